"""The column-wide CSV writer (docs/performance.md#saving-csv): byte-identical to the csv module's per-cell files.

A tiny reference writer is kept here: every literal cell through ``repr``, every row through ``csv.writer``.
The files ``save`` writes must equal its bytes, read back cell by cell with ``ast.literal_eval``, and load back
as equal frames.
"""

from __future__ import annotations

import ast
import csv
import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalframe import EvaluationResult
from evalframe.io import csv_render
from evalframe.io import csv as csv_format
from evalframe.io.codecs import encode_frame
from evalframe.io.csv_render import encode_frame_texts, render_literals

pytest.importorskip("pyarrow")

AWKWARD_TEXTS = [
    "plain", "", "comma, inside", 'double "quoted"', "single 'quoted'", "both ' and \"", "new\nline", "carriage\rreturn",
    "crlf\r\n", "tab\there", "back\\slash", "é à ü", "中文", "emoji 🎉", "zero\u200bwidth", "line\u2028separator",
    "escape \x1b", "nul \x00 inside", "del \x7f", "nbsp\xa0", "trailing space ", " leading", "[not a list]", "None",
]
AWKWARD_FLOATS = [0.1, -0.0, 0.0, 1e-7, 1e16, 1e22, 5e-324, 1.7976931348623157e308, 0.30000000000000004, 2.5, -3.25,
                  123456789.123, 1e-5, 65.0]


def awkward_frame() -> pd.DataFrame:
    """One node's frame with every awkward cell the writer must render as the csv module and repr do."""
    texts = AWKWARD_TEXTS
    n = len(texts)
    floats = (AWKWARD_FLOATS * 2)[:n]
    nested: list = [[1, [2.5, -0.0]], ("a",), (1, 2), (), {"start": 0, "end": 10}, {}, [("x", 1.5)], [None, True, False],
                    [b"b\"y'tes\x00", "s"], [1, "a", None, 2.5, b"x", True], {1, 2}, [{"k": ["v", 1e16]}], [], None]
    frame = pd.DataFrame({
        "multilabel_id": [f"q{i}" for i in range(n)],
        "query": texts,  # an Arrow-backed str column, quoted and escaped by Arrow
        "context": pd.Series(texts[::-1], dtype=object),
        "gold_document_ids": [texts[i:i + 3] for i in range(n)],  # flat string lists
        "gold_answers": [[] if i % 5 == 0 else [texts[i], ""] for i in range(n)],
        "document_ids": [None if i == 3 else [f"d{i}"] for i in range(n)],
        "gold_contexts_similarity": [floats[i:i + 4] for i in range(n)],  # flat float lists
        "gold_answers_f1": [[] for _ in range(n)],
        "gold_document_relevance": [[i, -i, 2**62] for i in range(n)],  # flat int lists
        "nonrelevant_document_relevance": [[10**30] if i == 0 else [i] for i in range(n)],  # beyond int64
        "offsets_in_document": [nested[i % len(nested)] for i in range(n)],
        "filters": [b'{"name": ["a"]}' if i % 3 == 0 else b"null" if i % 3 == 1 else None for i in range(n)],
        "mixed": [float("nan") if i == 0 else None if i == 1 else ["x", 1] if i == 2 else texts[i] for i in range(n)],
        "nul_text": ["a\x00b" if i == 0 else texts[i] for i in range(n)],
        "none_and_empty": [None if i == 0 else "" if i == 1 else "t" for i in range(n)],
        "strings_missing": pd.Series([None if i == 0 else texts[i] for i in range(n)], dtype="str"),
        "strings_ambiguous": pd.Series([None if i == 0 else "" if i == 1 else "s" for i in range(n)], dtype="str"),
        "python_strings": pd.Series([pd.NA if i == 0 else texts[i] for i in range(n)], dtype="string[python]"),
        "score": [math.nan if i == 0 else math.inf if i == 1 else -math.inf if i == 2 else floats[i] for i in range(n)],
        "f32": np.array([min(x, 1e30) for x in floats], dtype=np.float32),
        "rank": np.arange(n, dtype=np.int64) - 5,
        "big": np.array([2**64 - 1 - i for i in range(n)], dtype=np.uint64),
        "nullable_int": pd.array([None if i == 2 else -(2**63) + i for i in range(n)], dtype="Int64"),
        "flag": [i % 2 == 0 for i in range(n)],
        "nullable_flag": pd.array([None if i == 1 else i % 2 == 0 for i in range(n)], dtype="boolean"),
        "nullable_float": pd.array([None if i == 1 else floats[i] for i in range(n)], dtype="Float64"),
    })
    frame["shared"] = [frame["gold_document_ids"][i // 4] for i in range(n)]  # a list object shared by rows
    return frame


def reference_bytes(frame: pd.DataFrame, *, sep: str = ",", quoting: int = csv.QUOTE_NONNUMERIC) -> bytes:
    """The file as the per-cell writer makes it: repr of each literal cell, the csv module for every row."""
    _, entry = encode_frame("N", frame)  # the codecs the manifest records
    columns = []
    for spec in entry["columns"]:
        series = frame[spec["name"]]
        missing = series.isna().to_numpy()
        values = series.astype(object).tolist()
        if isinstance(series.dtype, pd.StringDtype):  # a missing text is None to the encoder
            values = [None if m else v for v, m in zip(values, missing)]
        if spec["codec"] == "literal":
            columns.append(["" if v is None else repr(v) for v in values])
        elif spec["codec"] == "text":
            columns.append(["" if m else v for v, m in zip(values, missing)])
        else:
            columns.append([None if m else v for v, m in zip(values, missing)])
    out = io.StringIO(newline="")
    csv.writer(out, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(list(frame.columns))
    csv.writer(out, delimiter=sep, quoting=quoting, lineterminator="\n").writerows(zip(*columns))  # type: ignore[arg-type]
    return out.getvalue().encode("utf-8")


def assert_frames_equal(loaded: pd.DataFrame, frame: pd.DataFrame) -> None:
    if "python_strings" in frame:  # the manifest records "string": it loads with pandas' default string storage
        assert str(loaded["python_strings"].dtype) == "string"
        loaded = loaded.astype({"python_strings": frame["python_strings"].dtype})
    pd.testing.assert_frame_equal(loaded, frame)


def test_awkward_cells_are_written_as_the_per_cell_writer_writes_them(tmp_path):
    frame = awkward_frame()
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    data = (folder / "N.csv").read_bytes()
    assert data == reference_bytes(frame)
    # the same bytes as the csv module writes the cells of encode_frame (the writer used for other options)
    old = tmp_path / "old.csv"
    csv_format.write(old, encode_frame("N", frame)[0], sep=",", encoding="utf-8", quoting=csv.QUOTE_NONNUMERIC)
    assert old.read_bytes() == data


def test_awkward_literal_cells_read_back_with_literal_eval_and_load(tmp_path):
    frame = awkward_frame()
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    _, entry = encode_frame_texts("N", frame)
    literal = [spec["name"] for spec in entry["columns"] if spec["codec"] == "literal"]
    assert {"gold_document_ids", "gold_contexts_similarity", "offsets_in_document", "filters", "mixed", "nul_text",
            "none_and_empty", "strings_ambiguous"} <= set(literal)
    with open(folder / "N.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for name in literal:
        for row, record in enumerate(rows):
            value = frame[name].astype(object).iloc[row]
            text = record[name]
            if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                assert text in ("", "nan") or (name == "strings_ambiguous" and text == "nan")
                continue
            parsed = ast.literal_eval(text)
            assert parsed == value and repr(parsed) == repr(value), (name, row, text)
    loaded = EvaluationResult.load(folder)
    assert_frames_equal(loaded["N"], frame)


@pytest.mark.parametrize(("sep", "quoting"), [(",", csv.QUOTE_NONNUMERIC), (";", csv.QUOTE_NONNUMERIC),
                                              ("\t", csv.QUOTE_ALL), ("|", csv.QUOTE_ALL), (",", csv.QUOTE_MINIMAL)])
def test_other_options_write_the_csv_module_bytes_and_load_back(tmp_path, sep, quoting):
    frame = awkward_frame()
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out", sep=sep, quoting=quoting)
    old = tmp_path / "old.csv"
    csv_format.write(old, encode_frame("N", frame)[0], sep=sep, encoding="utf-8", quoting=quoting)
    assert (folder / "N.csv").read_bytes() == old.read_bytes()
    if quoting != csv.QUOTE_MINIMAL:
        assert (folder / "N.csv").read_bytes() == reference_bytes(frame, sep=sep, quoting=quoting)
    assert_frames_equal(EvaluationResult.load(folder)["N"], frame)


def test_which_options_the_column_wide_writer_takes():
    assert csv_format.writes_texts(",", "utf-8", csv.QUOTE_NONNUMERIC)
    assert csv_format.writes_texts(";", "UTF8", csv.QUOTE_ALL)
    assert not csv_format.writes_texts(",", "utf-8", csv.QUOTE_MINIMAL)  # quoting decided per text: the csv module
    assert not csv_format.writes_texts(",", "utf-8-sig", csv.QUOTE_NONNUMERIC)  # a BOM first
    assert not csv_format.writes_texts(",", "cp1252", csv.QUOTE_NONNUMERIC)
    assert not csv_format.writes_texts(".", "utf-8", csv.QUOTE_NONNUMERIC)  # the csv module would quote 1.5
    assert not csv_format.writes_texts("e", "utf-8", csv.QUOTE_NONNUMERIC)
    assert not csv_format.writes_texts(True, "utf-8", csv.QUOTE_NONNUMERIC)


def test_non_default_encoding_goes_through_the_csv_module(tmp_path):
    frame = pd.DataFrame({"query": ["é, \"x\""], "gold_answers": [["à"]], "score": [0.1]})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out", encoding="utf-8-sig")
    assert (folder / "N.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert_frames_equal(EvaluationResult.load(folder, encoding="utf-8-sig")["N"], frame)


def test_a_synthetic_result_is_written_byte_for_byte_as_the_per_cell_writer(tmp_path):
    from benchmarks.synthetic import make_result

    result = make_result(150)  # every list column the flattener fills, shared and per-row list cells
    folder = result.save(tmp_path / "out")
    for node, frame in result.node_results.items():
        old = tmp_path / f"{node}.old.csv"
        csv_format.write(old, encode_frame(node, frame)[0], sep=",", encoding="utf-8", quoting=csv.QUOTE_NONNUMERIC)
        assert (folder / f"{node}.csv").read_bytes() == old.read_bytes() == reference_bytes(frame)


def test_shared_and_per_row_cells_give_the_same_texts():
    per_row = [[float(i) / 7, 1.0] for i in range(3000)]  # all distinct objects: rendered row by row
    one = [0.5, -0.0]
    shared = [one] * 3000  # one object: rendered once
    for cells in (per_row, shared, per_row[:10] + shared):
        texts = csv_render.encode_frame_texts("N", pd.DataFrame({"gold_answers_f1": cells}))[0]["gold_answers_f1"].texts
        assert texts.to_pylist() == [repr(v) for v in cells]


def test_bad_cells_are_still_named(tmp_path):
    from evalframe import SaveError

    frame = pd.DataFrame({"gold_answers_f1": [[0.5], [float("nan")]], "gold_answers": [["a"], [object()]]})
    with pytest.raises(SaveError, match=r"column 'gold_answers_f1', row 2: \[nan\]"):
        EvaluationResult({"N": frame[["gold_answers_f1"]]}).save(tmp_path / "out")
    with pytest.raises(SaveError, match=r"column 'gold_answers', row 2: \[<object"):
        EvaluationResult({"N": frame[["gold_answers"]]}).save(tmp_path / "out")
    assert not (tmp_path / "out").exists()


scalars = (st.floats(allow_nan=False, allow_infinity=False) | st.integers() | st.text() | st.booleans() | st.none()
           | st.binary(max_size=5))
literals = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner) | st.tuples(inner, inner)
                        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3), max_leaves=12)


LIST_CELLS = st.lists(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=4) | st.lists(st.text(), max_size=3)
                      | st.lists(st.integers(), max_size=3) | st.none(), min_size=1, max_size=12)


# 50 and 40 examples here; the long sweeps (200 and 100) under the stress marker, which .ci/run runs in full
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(literals, max_size=12))
def test_render_literals_is_repr(values):
    assert render_literals(values).to_pylist() == [repr(v) for v in values]


@pytest.mark.stress
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(literals, max_size=12))
def test_render_literals_of_many_lists_is_repr(values):
    test_render_literals_is_repr.hypothesis.inner_test(values)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LIST_CELLS)
def test_list_columns_are_written_as_repr(values):
    frame = pd.DataFrame({"gold_answers": pd.Series(values, dtype=object)})
    texts = encode_frame_texts("N", frame)[0]["gold_answers"].texts.to_pylist()
    assert texts == ["" if v is None else repr(v) for v in values]


@pytest.mark.stress
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LIST_CELLS)
def test_many_list_columns_are_written_as_repr(values):
    test_list_columns_are_written_as_repr.hypothesis.inner_test(values)


def test_without_the_column_wide_writer_the_bytes_are_the_same(tmp_path, monkeypatch):
    frame = awkward_frame()
    fast = EvaluationResult({"N": frame}).save(tmp_path / "fast")
    monkeypatch.setattr(csv_format, "writes_texts", lambda *args, **kwargs: False)  # as without pyarrow
    slow = EvaluationResult({"N": frame}).save(tmp_path / "slow")
    for name in ("N.csv", "evalframe.json"):
        assert (fast / name).read_bytes() == (slow / name).read_bytes()
