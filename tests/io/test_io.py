"""save / load (docs/persistence.md): lossless round trips, atomic writes, errors that name file, row and column."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalframe import EvaluationResult, InvalidParameterError, LoadError, SaveError, SchemaError
from evalframe.io import arrow_csv
from tests.fixtures import hand_result

# ------------------------------------------------------------------ hypothesis frames
texts = st.text(max_size=12)  # any unicode: quotes, commas, \r, \n, \x00, emoji ...
finite = st.floats(allow_nan=False, allow_infinity=False)
floats_any = st.floats(allow_nan=True, allow_infinity=True)
missing = st.sampled_from([None, math.nan])


def column_strategy(n: int):
    def list_of(values):
        return st.lists(values, max_size=3)

    kinds = {
        "float": st.lists(floats_any, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="float64")),
        "int": st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="int64")),
        "bool": st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=bool)),
        "nullable_int": st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype="Int64")),
        "text_object": st.lists(st.one_of(texts, missing), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype=object)),
        "text_default": st.lists(st.one_of(texts, st.none()), min_size=n, max_size=n).map(
            lambda v: pd.Series(v) if any(x is not None for x in v) else pd.Series(v, dtype=object)),
        "string_dtype": st.lists(st.one_of(texts, st.none()), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype="string")),
        "float_lists": st.lists(st.one_of(list_of(finite), st.none()), min_size=n, max_size=n).map(
            lambda v: pd.Series(v, dtype=object)),
        "text_lists": st.lists(list_of(texts), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=object)),
        "offsets": st.lists(
            list_of(st.fixed_dictionaries({"start": st.integers(0, 99), "end": st.integers(0, 99)})),
            min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=object)),
        "mixed": st.lists(st.one_of(texts, st.integers(), finite, st.booleans(), missing, st.binary(max_size=4)),
                          min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=object)),
    }
    return st.sampled_from(sorted(kinds)).flatmap(lambda kind: kinds[kind].map(lambda s: (kind, s)))


@st.composite
def frames(draw):
    n = draw(st.integers(0, 6))
    names = draw(st.lists(st.sampled_from(
        ["query", "answer", "gold_answers", "gold_contexts_similarity", "offsets_in_document", "filters",
         "rank", "f1", "weird, \"name\"", "ünï\ncode", "notes", "score"]), min_size=1, max_size=5, unique=True))
    columns = {}
    for name in names:
        _, series = draw(column_strategy(n))
        columns[name] = series.reset_index(drop=True)
    return pd.DataFrame(columns)


FORMATS = ["csv"] + (["parquet"] if importlib.util.find_spec("pyarrow") else [])


@pytest.mark.stress  # the long sweep (150 frames a format): .ci/run runs it with -m stress; the suite runs 20 below
@pytest.mark.parametrize("fmt", FORMATS + ["csv read by pandas"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frame=frames())
def test_save_load_round_trip_of_many_frames_is_lossless(tmp_path_factory, monkeypatch, fmt, frame):
    test_save_load_round_trip_is_lossless.hypothesis.inner_test(tmp_path_factory, monkeypatch, fmt, frame)


@pytest.mark.parametrize("fmt", FORMATS + ["csv read by pandas"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frame=frames())
def test_save_load_round_trip_is_lossless(tmp_path_factory, monkeypatch, fmt, frame):
    if fmt == "csv read by pandas":  # the reader used without pyarrow (and for what Arrow's is not sure of)
        monkeypatch.setattr(arrow_csv, "read_csv", lambda *args: None)
    folder = tmp_path_factory.mktemp("rt") / "result"
    EvaluationResult({"Node": frame}).save(folder, format=fmt.split()[0])
    loaded = EvaluationResult.load(folder)["Node"]
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)


@pytest.mark.skipif("parquet" not in FORMATS, reason="pyarrow is not installed")
def test_parquet_stores_list_columns_natively_and_loads_back(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    result = hand_result()
    folder = result.save(tmp_path / "pq", format="parquet")
    schema = pq.read_schema(folder / "Retriever.parquet")
    assert schema.field("gold_document_ids").type.value_type == pa.string()
    assert schema.field("gold_contexts_similarity").type.value_type == pa.float64()
    loaded = EvaluationResult.load(folder)
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], result[node], check_exact=True)
    assert loaded.calculate_metrics(simulated_top_k_retriever=2) == result.calculate_metrics(simulated_top_k_retriever=2)
    with pytest.raises(SaveError, match="takes no CSV options"):
        result.save(tmp_path / "x", format="parquet", sep=";")
    with pytest.raises(InvalidParameterError, match=r"format must be one of \['csv', 'parquet'\]; got 'parket'"):
        result.save(tmp_path / "x", format="parket")


def test_round_trip_of_a_full_result(tmp_path):
    result = hand_result()
    result.matching = {"context_matching_threshold": 70.0}
    result["Reader"].loc[0, "answer"] = 'a "quoted", multi-line\r\nanswer ✓'
    result["Reader"]["context"] = result["Reader"]["context"].astype(object)
    result["Reader"].loc[1, "context"] = None
    result["Reader"].loc[2, "context"] = ""
    folder = result.save(tmp_path / "out")
    loaded = EvaluationResult.load(folder)
    assert list(loaded) == ["Retriever", "Reader"]
    assert loaded.matching == {"context_matching_threshold": 70.0}
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], result[node], check_exact=True)
    assert loaded.calculate_metrics() == result.calculate_metrics()


def test_csv_is_readable_and_haystack_shaped(tmp_path):
    folder = hand_result().save(tmp_path / "out")
    text = (folder / "Retriever.csv").read_text(encoding="utf-8")
    header = text.splitlines()[0]
    assert header.startswith('"multilabel_id","query","filters","gold_answers"')
    assert "\"['d1', 'd2']\"" in text  # list cells are Python literals, as Haystack writes them
    manifest = json.loads((folder / "evalframe.json").read_text())
    assert manifest["format"] == "evalframe.EvaluationResult" and manifest["format_version"] == 1
    assert list(manifest["nodes"]) == ["Retriever", "Reader"]


def test_haystack_rules_apply_without_the_manifest(tmp_path):
    folder = hand_result().save(tmp_path / "out")
    (folder / "evalframe.json").unlink()
    loaded = EvaluationResult.load(folder)
    assert sorted(loaded) == ["Reader", "Retriever"]
    assert loaded["Retriever"]["gold_document_ids"][0] == ["d1", "d2"]
    assert loaded.calculate_metrics() == hand_result().calculate_metrics()


def test_save_replaces_files_only_when_complete(tmp_path, monkeypatch):
    folder = hand_result().save(tmp_path / "out")
    before = (folder / "Reader.csv").read_bytes()
    result = hand_result()
    result["Reader"]["bad"] = [object()] * len(result["Reader"])  # not writable losslessly
    with pytest.raises(SaveError, match=r"node 'Reader', column 'bad', row 1: .*cannot be written losslessly"):
        result.save(folder)
    assert (folder / "Reader.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left behind

    def fail(*args, **kwargs):
        raise OSError("disk full")

    import evalframe.io.csv

    monkeypatch.setattr(evalframe.io.csv, "write", fail)
    with pytest.raises(SaveError, match="disk full"):  # an OSError becomes a SaveError naming the folder
        hand_result().save(folder)
    assert (folder / "Reader.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with pytest.raises(SaveError, match="disk full"):  # folders the save made on the way are removed too
        hand_result().save(tmp_path / "new" / "deeper" / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    if importlib.util.find_spec("pyarrow"):
        with pytest.raises(SaveError, match="column 'bad'"):  # a node that fails after one was written
            result.save(tmp_path / "new" / "out", format="parquet")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_resave_removes_nodes_it_wrote_before_and_refuses_folders_with_other_files(tmp_path):
    # issue 12: a save replaces the whole folder, so a folder holding files evalframe did not write is
    # refused (it used to move them over, and load then refused the stray CSV)
    folder = hand_result().save(tmp_path / "out")
    only_reader = EvaluationResult({"Reader": hand_result()["Reader"]})
    only_reader.save(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["Reader.csv", "evalframe.json"]
    (folder / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(SaveError, match=r"holds files evalframe did not write \(\['notes.csv'\]; .*move those files"):
        hand_result().save(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["Reader.csv", "evalframe.json", "notes.csv"]


def test_bad_node_names_and_targets(tmp_path):
    with pytest.raises(SaveError, match="node name 'a/b' cannot be a file name"):
        EvaluationResult({"a/b": hand_result()["Reader"]}).save(tmp_path / "x")
    (tmp_path / "file").write_text("")
    with pytest.raises(SaveError, match="exists and is not a folder"):
        hand_result().save(tmp_path / "file")
    frame = pd.DataFrame({"when": pd.to_datetime(["2024-01-01"])})
    with pytest.raises(SaveError, match=r"column 'when' has dtype datetime64.*astype\(str\)"):
        EvaluationResult({"N": frame}).save(tmp_path / "y")


def test_load_errors_name_the_folder_file_row_and_column(tmp_path):
    with pytest.raises(LoadError, match="results folder .*nowhere does not exist"):
        EvaluationResult.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(LoadError, match="holds no .csv file"):
        EvaluationResult.load(tmp_path / "empty")

    folder = hand_result().save(tmp_path / "out")
    (folder / "evalframe.json").unlink()
    path = folder / "Retriever.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3].replace("\"['d1', 'd2']\"", "\"['d1', 'd2'\"", 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(LoadError, match=r"Retriever.csv: data row 3, column 'gold_document_ids': cannot parse \"\['d1', 'd2'\""):
        EvaluationResult.load(folder)

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(LoadError,
                       match=r"notes.csv is not an evaluation frame: it has none of the evaluation columns .*has \['a', 'b'\]"):
        EvaluationResult.load(other)


def test_load_refuses_truncated_or_newer_files(tmp_path):
    folder = hand_result().save(tmp_path / "out")
    path = folder / "Reader.csv"
    path.write_text("\n".join(path.read_text(encoding="utf-8").split("\n")[:4]) + "\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"Reader.csv: holds 3 rows but evalframe.json records 8"):
        EvaluationResult.load(folder)
    manifest = json.loads((folder / "evalframe.json").read_text())
    manifest["format_version"] = 99
    (folder / "evalframe.json").write_text(json.dumps(manifest))
    with pytest.raises(LoadError, match="format_version 99 is newer"):
        EvaluationResult.load(folder)


def test_equal_list_cells_share_one_parsed_value(tmp_path):
    # as in frames built in memory, a query's repeated gold list is one object (documented in persistence.md)
    folder = hand_result().save(tmp_path / "out")
    frame = EvaluationResult.load(folder)["Retriever"]
    assert frame["gold_document_ids"][0] is frame["gold_document_ids"][1] == ["d1", "d2"]


def test_literal_parsing_fast_paths_equal_literal_eval(tmp_path):
    import ast

    from evalframe.io.literals import LiteralParser

    texts = ["[1.0, 0.0]", "[1., .5]", "[-0.0, 1e-05, 12345678901234567890]", "['a', 'b c']", "['it''s']",
             "['a\\tb']", "[\"b'c\"]", "[{'start': 0, 'end': 6}]", "[]", "['x, y', 'z']", "[1.0, 0.0]"]
    values = LiteralParser(tmp_path / "f.csv", "c").column_values(pd.Series(texts, dtype=object))
    assert values == [ast.literal_eval(t) for t in texts]
    assert [type(v[0]) for v in values if v] == [type(ast.literal_eval(t)[0]) for t in texts if ast.literal_eval(t)]


@pytest.mark.parametrize("texts", [
    ["[1.0, 0.0]", "[0.0]", "[-0.0, 1e-05, 12345678901234567890]", "[]", "[ 2 ,3 ]", "[1E5]"],  # one JSON call
    ["['a', 'b c']", "[]", "['x, y', 'z']", "['ünï', '']", "['a\tb']"],  # tab: not JSON, parsed one by one
    ["['a', 'b']", "['say \"hi\"']"],  # a double quote inside: not turned into JSON
    ["[1.0]", "['a']", "[[1.0, 2.0], [3.0]]", "[.5]", "[{'start': 0, 'end': 6}]"],  # mixed columns
    ["[1, [2]", "[3]]", "[4], [5]"],  # brackets that balance only across texts: each text is read on its own
    ["[1], [2]", "[3]"],  # a tuple of lists, as literal_eval reads it
])
def test_whole_column_literal_parsing_equals_literal_eval(tmp_path, texts):
    import ast

    from evalframe.io.literals import LiteralParser

    parser = LiteralParser(tmp_path / "f.csv", "c")
    try:
        expected = [ast.literal_eval(t) for t in texts]
    except (SyntaxError, ValueError):
        with pytest.raises(LoadError, match="column 'c'"):
            parser.column_values(pd.Series(texts, dtype=object))
        return
    values = parser.column_values(pd.Series(texts, dtype=object))
    assert values == expected
    assert [repr(v) for v in values] == [repr(v) for v in expected]  # 1 vs 1.0, -0.0


def test_text_that_looks_missing_stays_text(tmp_path):
    frame = hand_result()["Reader"].copy()
    frame["answer"] = ["None", "NA", "null", "nan", "", "N/A", "-", "#N/A"]
    folder = EvaluationResult({"Reader": frame}).save(tmp_path / "out")
    assert EvaluationResult.load(folder)["Reader"]["answer"].tolist() == frame["answer"].tolist()
    (folder / "evalframe.json").unlink()  # Haystack rules: only empty cells are missing (DIFFERS)
    assert EvaluationResult.load(folder)["Reader"]["answer"].tolist() == ["None", "NA", "null", "nan", None, "N/A", "-", "#N/A"]


def test_numeric_looking_ids_stay_text_in_haystack_files(tmp_path):
    folder = tmp_path / "hs"
    folder.mkdir()
    (folder / "Retriever.csv").write_text(
        '"multilabel_id","document_id","type","rank","gold_document_ids"\n'
        '"1","12","document",1,"[\'12\']"\n', encoding="utf-8")
    frame = EvaluationResult.load(folder)["Retriever"]
    assert frame["document_id"].tolist() == ["12"] and frame["multilabel_id"].tolist() == ["1"]
    assert frame["rank"].dtype == np.int64
    assert os.path.exists(folder / "Retriever.csv")


def test_a_failed_swap_keeps_the_old_result(tmp_path, monkeypatch):
    folder = hand_result().save(tmp_path / "out")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    from evalframe.io import atomic as _atomic

    no_fault = _atomic.step  # the no-op step marker, put back after the fault

    def flaky(step):
        if step == "exchange":  # the swap of the new folder into place
            raise OSError(5, "interrupted")

    monkeypatch.setattr(_atomic, "step", flaky)
    with pytest.raises(SaveError, match="interrupted"):
        EvaluationResult({"Reader": hand_result()["Reader"]}).save(folder)
    monkeypatch.setattr(_atomic, "step", no_fault)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"float_format": "%.2f"}, r"does not take the to_csv option\(s\) \['float_format'\]"),
        ({"header": False}, r"\['header'\]"),
        ({"quoting": csv.QUOTE_NONE}, r"needs quoting"),
        ({"encoding": "ascii"}, r"node 'Reader' cannot be written with these CSV options \(UnicodeEncodeError"),
    ],
)
def test_save_refuses_csv_options_that_break_the_format(tmp_path, kwargs, message):
    result = hand_result()
    result["Reader"].loc[0, "answer"] = "é"
    with pytest.raises(SaveError, match=message):
        result.save(tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_save_with_another_separator_loads_back(tmp_path):
    folder = hand_result().save(tmp_path / "out", sep=";")
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["Reader"], hand_result()["Reader"])


def test_unsavable_cells_and_names(tmp_path):
    with pytest.raises(SaveError, match="a column named '' cannot be saved"):
        EvaluationResult({"N": pd.DataFrame({"": [1]})}).save(tmp_path / "a")
    with pytest.raises(SaveError, match=r"frozenset.*cannot be written losslessly"):
        EvaluationResult({"N": pd.DataFrame({"x": pd.Series([frozenset({1})], dtype=object)})}).save(tmp_path / "b")


def test_damaged_manifest_and_cells_are_named(tmp_path):
    folder = hand_result().save(tmp_path / "out")
    manifest_path = folder / "evalframe.json"
    good = json.loads(manifest_path.read_text())
    for damage, message in [
        (lambda m: m["nodes"]["Reader"]["columns"][0].pop("codec"),
         r"nodes\['Reader'\].columns\[0\] must be an object with a 'name' \(a str\) and a 'codec'"),
        (lambda m: m["nodes"]["Reader"]["columns"][0].update(dtype="floot"), r"unknown dtype 'floot'"),
        (lambda m: m.update(nodes=[]), r"'nodes' must map node names"),
    ]:
        manifest = json.loads(json.dumps(good))
        damage(manifest)
        manifest_path.write_text(json.dumps(manifest))
        with pytest.raises(LoadError, match=message):
            EvaluationResult.load(folder)
    manifest_path.write_text(json.dumps(good))
    path = folder / "Reader.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    header = next(csv.reader([lines[0]]))
    cells = next(csv.reader([lines[2]]))
    cells[header.index("rank")] = "two"
    lines[2] = ",".join('"' + c.replace('"', '""') + '"' for c in cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(LoadError, match=r"Reader.csv: data row 2, column 'rank': 'two' is not a valid int64 value"):
        EvaluationResult.load(folder)


def test_haystack_files_bytes_filters_and_missing_numbers(tmp_path):
    folder = tmp_path / "hs"
    folder.mkdir()
    (folder / "R.csv").write_text(
        '"multilabel_id","type","rank","filters","score"\n'
        '"q1","document",1,"b\'null\'",0.5\n'
        '"q1","document",2,"b\'{""a"": [1]}\'",\n', encoding="utf-8")
    frame = EvaluationResult.load(folder)["R"]
    assert frame["filters"].tolist() == [None, '{"a": [1]}']
    assert frame["score"].tolist() == [0.5, None]  # NaN becomes None (docs/haystack-compat.md#persistence)
    (folder / "R.csv").write_text('"multilabel_id","type","filters"\n"q1","document","b\'\\xff\'"\n', encoding="utf-8")
    with pytest.raises(LoadError, match=r"R.csv: data row 1, column 'filters': .* is not UTF-8"):
        EvaluationResult.load(folder)


@pytest.mark.parametrize("fmt", FORMATS)
def test_loaded_list_cells_are_shared_and_a_bad_one_is_named(tmp_path, fmt):
    result = hand_result()
    frame = result["Retriever"]
    frame["gold_documents_id_match"] = frame["gold_documents_id_match"].astype(object)
    frame.at[3, "gold_documents_id_match"] = "1.0"
    loaded = EvaluationResult.load(result.save(tmp_path / "out", format=fmt))
    cells = loaded["Retriever"]["gold_document_ids"]
    assert cells[0] is cells[1] and cells[0] == ["d1", "d2"]  # equal lists are one object: copy before mutating
    with pytest.raises(SchemaError, match=r"'gold_documents_id_match' must hold a list in every row; row 3 holds '1.0'"):
        loaded.calculate_metrics()
    loaded["Retriever"].at[3, "gold_documents_id_match"] = [0.0, 0.0]
    loaded.clear_cache()  # an in-place edit of a key column
    assert loaded.calculate_metrics() == hand_result().calculate_metrics()


@pytest.mark.skipif("parquet" not in FORMATS, reason="pyarrow is not installed")
def test_parquet_keeps_lists_apart_that_only_look_alike(tmp_path):
    shared = ["a", "b"]
    frame = pd.DataFrame({
        "multilabel_id": ["q"] * 9,
        "type": ["document"] * 9,
        "ids": pd.Series([shared, shared, ["a,b"], ["ab"], [], None, ["a", "b", ""], [""], ["b", "a"]], dtype=object),
        "floats": pd.Series([[0.0], [-0.0], [], None, [1.0, 2.0], [2.0, 1.0], [1e-300], [0.0], [0.0, 0.0]], dtype=object),
        "flags": pd.Series([[True], [False], [True, False], [], None, [True], [False, True], [True], []], dtype=object),
        "with_none": pd.Series([["a", None], [None], ["a"], [], None, ["a", None], [None, "a"], ["None"], [""]],
                               dtype=object),
        "ints_and_bools": pd.Series([[1], [True], [0], [False], [], None, [1, True], [2**40], [1]], dtype=object),
    })
    folder = EvaluationResult({"Node": frame}).save(tmp_path / "pq", format="parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = [pq.read_schema(folder / "Node.parquet").field(c).type
             for c in ("ids", "floats", "flags", "with_none", "ints_and_bools")]
    assert [str(t.value_type) if pa.types.is_list(t) else f"text {t}" for t in types] == [
        "string", "double", "bool", "text string", "text string"]  # the last two are stored as literal texts
    loaded = EvaluationResult.load(folder)["Node"]
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)
    for column in frame.columns[2:]:
        assert [type(v) for v in loaded[column]] == [type(v) for v in frame[column]], column
        assert [repr(v) for v in loaded[column]] == [repr(v) for v in frame[column]], column  # -0.0, True vs 1
    assert loaded["ids"][0] is loaded["ids"][1]
    assert loaded["floats"][0] is loaded["floats"][7] and loaded["floats"][0] is not loaded["floats"][1]
    assert loaded["ids"][4] == [] and loaded["ids"][5] is None


def test_save_and_load_restore_the_garbage_collector(tmp_path):
    import gc

    assert gc.isenabled()
    folder = hand_result().save(tmp_path / "out")
    assert gc.isenabled()
    EvaluationResult.load(folder)
    assert gc.isenabled()
    with pytest.raises(LoadError):
        EvaluationResult.load(tmp_path / "missing")
    assert gc.isenabled()
    gc.disable()
    try:
        EvaluationResult.load(folder)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif("parquet" not in FORMATS, reason="pyarrow is not installed")
def test_parquet_writes_shared_and_unshared_cells_alike(tmp_path):
    # 3,000 rows: cells shared between rows are converted once per object, unshared ones row by row
    import pyarrow.parquet as pq

    pool = [["d1"], ["d2", "d3"], [], None, ["d1"]]  # the last one equals the first but is another object
    shared = pd.Series([pool[i % 5] for i in range(3000)], dtype=object)
    unshared = pd.Series([None if cell is None else list(cell) for cell in shared], dtype=object)
    distinct = pd.Series([[float(i), -0.0] for i in range(2998)] + [[], None], dtype=object)  # loaded row by row
    frame = pd.DataFrame({"multilabel_id": ["q"] * 3000, "type": ["document"] * 3000,
                          "shared": shared, "unshared": unshared, "distinct": distinct})
    folder = EvaluationResult({"Node": frame}).save(tmp_path / "pq", format="parquet")
    table = pq.read_table(folder / "Node.parquet")
    assert table.column("shared").equals(table.column("unshared"))
    assert table.column("shared").to_pylist()[:6] == [["d1"], ["d2", "d3"], [], None, ["d1"], ["d1"]]
    loaded = EvaluationResult.load(folder)["Node"]
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)
    assert loaded["unshared"][0] is loaded["unshared"][4] is not loaded["unshared"][1]  # equal lists loaded once
    assert [repr(v) for v in loaded["distinct"][-3:]] == ["[2997.0, -0.0]", "[]", "None"]


def test_both_csv_readers_agree_on_missing_numbers_and_refuse_hand_typed_oddities(tmp_path, monkeypatch):
    frame = pd.DataFrame({"multilabel_id": ["q1", "q2", "q3"], "type": ["document"] * 3,
                          "score": [0.5, np.nan, -0.0], "rank": pd.array([1, 2, 3], dtype="int64")})
    folder = EvaluationResult({"Node": frame}).save(tmp_path / "out")
    used = []
    read = arrow_csv.read_csv
    monkeypatch.setattr(arrow_csv, "read_csv", lambda *args: used.append(read(*args) is not None) or read(*args))
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["Node"], frame, check_exact=True)
    assert used == [False]  # an int64 column: pandas reads the file
    floats = frame.drop(columns="rank")
    EvaluationResult({"Node": floats}).save(folder)
    loaded = EvaluationResult.load(folder)["Node"]  # NaN is written as a quoted empty cell
    pd.testing.assert_frame_equal(loaded, floats, check_exact=True)
    assert used[-1] is True and np.signbit(loaded["score"][2])

    path = folder / "Node.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("0.5", "nan"), encoding="utf-8")  # evalframe writes NaN as an empty cell
    with pytest.raises(LoadError, match=r"data row 1, column 'score': 'nan' is not a valid float64 value"):
        EvaluationResult.load(folder)
    EvaluationResult({"Node": frame}).save(folder)
    path.write_text(path.read_text(encoding="utf-8").replace(",1\n", ",9223372036854775808\n"), encoding="utf-8")
    with pytest.raises(LoadError, match=r"data row 1, column 'rank': '9223372036854775808' is not a valid int64"):
        EvaluationResult.load(folder)


@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC])
def test_line_breaks_inside_texts_survive_every_quoting(tmp_path, quoting):
    frame = pd.DataFrame({"multilabel_id": ["q1", "q2", "q3"], "type": ["answer"] * 3,
                          "answer": ["a\rb", "c\r\nd", "e\nf"]})
    folder = EvaluationResult({"Node": frame}).save(tmp_path / "out", quoting=quoting)
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["Node"], frame, check_exact=True)


def test_a_cell_that_is_no_literal_is_named_without_a_memory_address(tmp_path):
    folder = hand_result().save(tmp_path / "out")
    path = folder / "Retriever.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3].replace("\"['d1', 'd2']\"", "\"['d1', oops]\"", 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(LoadError, match=r"data row 3, column 'gold_document_ids': cannot parse") as error:
        EvaluationResult.load(folder)
    assert "0x" not in str(error.value) and "ast.Name object" in str(error.value)
