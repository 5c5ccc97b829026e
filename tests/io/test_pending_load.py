"""A loaded result holds its nodes as columns (evalframe/io/codecs.py LoadedColumns, io/partitioned.py): the analyses
read them without building a frame, the frame built on access is the one saved, and a save writes the columns as a save
of the built frame writes it (the unchanged encoders of the built frame are the reference)."""

from __future__ import annotations

import csv
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, load_demo_result
from evalframe.errors import LoadError
from tests.fixtures import hand_result, load_benchmark, without_cyclic_gc

#: (save options, what a load reads): one file per node as CSV and as Parquet, and a partitioned folder
LAYOUTS = {"csv": {}, "parquet": {"format": "parquet"}, "partitioned": {"format": "parquet", "partitions": 3}}


def originals() -> dict[str, EvaluationResult]:
    synthetic = load_benchmark("synthetic.py").make_result(40)  # every list column the flattener fills
    return {"demo": load_demo_result(), "hand": hand_result(), "synthetic": synthetic}


@pytest.fixture(scope="module", params=sorted(originals()))
def original(request: pytest.FixtureRequest) -> EvaluationResult:
    return originals()[request.param]


def pending_nodes(result: EvaluationResult) -> list[str]:
    return [node for node in result.node_results if not result.node_results.is_built(node)]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_analyses_read_a_loaded_result_without_building_it(original: EvaluationResult, layout: str,
                                                               tmp_path: Path) -> None:
    original.save(tmp_path / "saved", **LAYOUTS[layout])
    loaded = EvaluationResult.load(tmp_path / "saved")
    nodes = list(loaded.node_results)
    assert pending_nodes(loaded) == nodes  # nothing built by the load
    expected = original.calculate_metrics()
    got = loaded.calculate_metrics()
    assert got.keys() == expected.keys()
    for node in got:
        assert got[node] == pytest.approx(expected[node], rel=0, abs=1e-12, nan_ok=True)
    for node in nodes:
        pd.testing.assert_frame_equal(loaded.query_metrics(node), original.query_metrics(node), check_exact=False,
                                      rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(loaded.metrics_at_k(ks=(1, 3)), original.metrics_at_k(ks=(1, 3)), rtol=0, atol=1e-12)
    pd.testing.assert_frame_equal(loaded.sliced_metrics("no_answer"), original.sliced_metrics("no_answer"), rtol=0,
                                  atol=1e-12)
    assert pending_nodes(loaded) == nodes  # still nothing built
    loaded.wrong_examples(nodes[0])  # shows rows: builds the frame
    assert loaded.node_results.is_built(nodes[0])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_frame_built_on_access_is_the_saved_one(original: EvaluationResult, layout: str, tmp_path: Path) -> None:
    original.save(tmp_path / "saved", **LAYOUTS[layout])
    loaded = EvaluationResult.load(tmp_path / "saved")
    loaded.calculate_metrics()  # some columns made through the view first: the frame is made of those and the others
    for node in original.node_results:
        frame = loaded[node]
        assert list(frame.columns) == list(original[node].columns)
        assert list(frame.dtypes) == list(original[node].dtypes)
        pd.testing.assert_frame_equal(frame, original[node], check_exact=True)
    assert pending_nodes(loaded) == []


def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("read_as", ["csv", "parquet"])
@pytest.mark.parametrize("written_as", ["csv", "parquet"])
def test_a_pending_node_is_saved_as_its_built_frame_is(original: EvaluationResult, read_as: str, written_as: str,
                                                       tmp_path: Path) -> None:
    original.save(tmp_path / "saved", **LAYOUTS[read_as])
    pending = EvaluationResult.load(tmp_path / "saved")
    built = EvaluationResult.load(tmp_path / "saved")
    for node in built.node_results:
        built[node] = built[node].copy()  # a frame of its own: saved by the encoders of a frame, as before
    pending.save(tmp_path / "from-pending", **LAYOUTS[written_as])
    built.save(tmp_path / "from-built", **LAYOUTS[written_as])
    assert pending_nodes(pending) == list(pending.node_results)  # the save built nothing
    assert files(tmp_path / "from-pending") == files(tmp_path / "from-built")


def test_a_partitioned_save_of_a_pending_node_keeps_its_rows(tmp_path: Path) -> None:
    original = load_benchmark("synthetic.py").make_result(30)
    original.save(tmp_path / "saved", format="parquet")
    loaded = EvaluationResult.load(tmp_path / "saved")
    loaded.save(tmp_path / "parts", format="parquet", partitions=4)
    assert pending_nodes(loaded) == list(loaded.node_results)
    again = EvaluationResult.load(tmp_path / "parts")
    for node in original.node_results:
        pd.testing.assert_frame_equal(again[node], original[node], check_exact=True)


def test_a_bad_literal_cell_is_refused_by_the_load_not_on_first_access(tmp_path: Path) -> None:
    hand_result().save(tmp_path / "saved")
    path = tmp_path / "saved" / "Retriever.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    header = next(csv.reader([lines[0]]))
    column = header.index("gold_document_ids")
    cells = next(csv.reader([lines[2]]))
    cells[column] = "['d1', "  # an unfinished list
    lines[2] = ",".join('"' + cell.replace('"', '""') + '"' if not cell.replace(".", "").isdigit() else cell
                        for cell in cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(LoadError, match=r"Retriever\.csv.*gold_document_ids"):
        EvaluationResult.load(tmp_path / "saved")


def test_loaded_list_columns_are_held_as_distinct_cells(tmp_path: Path) -> None:
    original = load_benchmark("synthetic.py").make_result(50)
    original.save(tmp_path / "saved")
    loaded = EvaluationResult.load(tmp_path / "saved")
    source = loaded.node_results.pending("Retriever").source  # type: ignore[union-attr]
    lists = source.lists("gold_document_ids")
    assert lists is not None and len(lists.codes) == len(original["Retriever"])
    assert len(lists.cells) <= original["Retriever"]["multilabel_id"].nunique() + 1  # a query's rows share one cell
    column = loaded["Retriever"]["gold_document_ids"]
    first = np.flatnonzero(lists.codes == lists.codes[0])
    assert all(column[int(i)] is column[int(first[0])] for i in first)  # one list object per distinct cell


def test_loaded_arrow_lists_are_written_to_csv_as_the_built_frame_writes_them(tmp_path: Path) -> None:
    # list columns stored as Parquet lists, coded as distinct Arrow lists at load: rows sharing lists, every row its
    # own list, empty lists, missing cells, -0.0, bools, ints, texts Python's repr escapes, and a column of no list
    # (encode_text's choice, not a list's); the CSV of the built frame (the encoders of a frame) is the reference
    result = hand_result()
    for node in result.node_results:
        frame = result[node].copy()
        n = len(frame)
        shared = [["d1", "it's"], ["d1", "it's"], [], ["é\n", "\\"], None]
        frame["gold_document_ids"] = [shared[i % len(shared)] for i in range(n)]
        frame["float_lists"] = [[float(i), -0.0, 0.5] if i % 3 else [] for i in range(n)]
        frame["bool_lists"] = [[True, i % 2 == 0] for i in range(n)]
        frame["int_lists"] = [[i, 2**40] for i in range(n)]
        frame["no_lists"] = [None] * n
        result[node] = frame
    result.save(tmp_path / "saved", format="parquet")
    pending = EvaluationResult.load(tmp_path / "saved")
    built = EvaluationResult.load(tmp_path / "saved")
    for node in built.node_results:
        built[node] = built[node].copy()
    pending.save(tmp_path / "from-pending")
    built.save(tmp_path / "from-built")
    assert pending_nodes(pending) == list(pending.node_results)
    assert files(tmp_path / "from-pending") == files(tmp_path / "from-built")
    text = (tmp_path / "from-pending" / "Retriever.csv").read_text(encoding="utf-8")
    assert "\"['d1', \"\"it's\"\"]\"" in text and "['é\\n', '\\\\']" in text and "[True, False]" in text
    assert "[1.0, -0.0, 0.5]" in text and "[1, 1099511627776]" in text


def test_a_partitioned_node_is_laid_out_in_its_saved_order_column_by_column(tmp_path: Path) -> None:
    # string and number columns are taken from the parts' Arrow columns in the saved order; a column of one value
    # (type, eval_mode) is not reordered; a column of one value per part but several in the node is; a string column
    # whose parts record different missing-value kinds (one part without a missing value) is made part by part
    original = load_benchmark("synthetic.py").make_result(30)
    for node in original.node_results:
        frame = original[node].copy()
        queries = pd.factorize(frame["multilabel_id"])[0]
        frame["per_query"] = pd.Series([f"q{code}" for code in queries], dtype="str")
        frame["some_missing"] = pd.Series([None if code == 1 else f"t{code}" for code in queries], dtype="str")
        frame["count"] = np.arange(len(frame), dtype=np.int64)[::-1].copy()
        original[node] = frame
    original.save(tmp_path / "parts", format="parquet", partitions=3)
    loaded = EvaluationResult.load(tmp_path / "parts")
    for node in original.node_results:
        frame = loaded[node]
        pd.testing.assert_frame_equal(frame, original[node], check_exact=True)
        assert frame["count"].tolist() == list(range(len(frame)))[::-1]  # worked out: n-1 .. 0 in the saved order
        assert frame["per_query"].tolist() == [f"q{code}" for code in pd.factorize(frame["multilabel_id"])[0]]


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) < 3,
                    reason="pandas 2.2's text columns are object columns, read as plain strings (docs/persistence.md)")
def test_string_texts_are_held_as_dictionaries_after_a_parquet_load(tmp_path: Path) -> None:
    # a string-dtype text column is read as codes and distinct texts (one query's text held once per row group) and
    # made as the texts it stands for; a file whose text column holds numbers is still refused with the type check
    import json

    import pyarrow.parquet as pq

    original = hand_result()
    original.save(tmp_path / "saved", format="parquet")
    loaded = EvaluationResult.load(tmp_path / "saved")
    source = loaded.node_results.pending("Retriever").source
    column, _, _ = source.arrow["multilabel_id"]
    assert str(column.type) == "dictionary<values=string, indices=int32, ordered=0>"
    pd.testing.assert_frame_equal(loaded["Retriever"], original["Retriever"], check_exact=True)
    manifest = json.loads((tmp_path / "saved" / "evalframe.json").read_text())
    table = pq.read_table(tmp_path / "saved" / "Retriever.parquet")
    table = table.set_column(table.column_names.index("multilabel_id"), "multilabel_id",
                             [np.arange(table.num_rows, dtype=np.int64)])
    pq.write_table(table, tmp_path / "saved" / "Retriever.parquet")
    assert [c["codec"] for c in manifest["nodes"]["Retriever"]["columns"] if c["name"] == "multilabel_id"] == ["text"]
    with pytest.raises(LoadError, match=r"Retriever\.parquet: column 'multilabel_id' holds int64 values, but "
                                        r"evalframe\.json records it with codec 'text'"):
        EvaluationResult.load(tmp_path / "saved")


def test_csv_texts_of_a_reordered_arrow_list_coding_follow_its_codes() -> None:
    # as many distinct cells as rows does not make the codes the identity: a partitioned node's coding is reordered
    # (review of issue 26); row 0 holds cell 1 (['b']) and row 1 cell 0 (['a'])
    import pyarrow as pa

    from evalframe.frames.arrays import DistinctLists
    from evalframe.io.codecs import ColumnsFrame, LoadedColumns
    from evalframe.io.csv_render import encode_frame_texts

    lists = DistinctLists(np.array([1, 0], dtype=np.int64), pa.array([["a"], ["b"]], type=pa.list_(pa.string())))
    source = LoadedColumns({"gold_answers": lambda: pd.Series([["b"], ["a"]], dtype=object)},
                           {"gold_answers": np.dtype(object)}, lists={"gold_answers": lambda: lists})
    texts, _ = encode_frame_texts("Reader", ColumnsFrame(source, 2))  # type: ignore[arg-type]
    column = texts["gold_answers"]
    values = column.values.to_pylist()
    rows = [values[code] for code in column.codes] if column.codes is not None else values
    assert rows == ["['b']", "['a']"]


def _float_only() -> EvaluationResult:  # text and float64 columns only: pyarrow's CSV reader reads the file
    return EvaluationResult({"Node": pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": ["document"] * 3,
                                                   "score": [0.5, 0.25, 1.0], "eval_mode": ["integrated"] * 3})})


@pytest.mark.parametrize("layout", [*sorted(LAYOUTS), "csv read by pyarrow", "from_trec"])
def test_every_cell_of_a_frame_built_from_loaded_columns_can_be_set(layout: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A numeric column made from Arrow's buffer was read-only: frame.at[row, "f1"] = 0.0 on a Parquet (or
    partitioned, or pyarrow-read CSV) load raised "ValueError: assignment destination is read-only" (found by the edit
    sweep of tests/frames/test_cache_freshness.py)."""
    from evalframe.io import arrow_csv

    read, tables = arrow_csv.read_csv, []

    def reading(*args: object) -> object:
        table = read(*args)
        tables.append(table is not None)  # not the table: a reference to its arrays makes pandas copy them on write
        return table

    monkeypatch.setattr(arrow_csv, "read_csv", reading)
    if layout == "from_trec":
        result = EvaluationResult.from_trec({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d1": 1}}, progress=False)
    else:
        original = _float_only() if layout == "csv read by pyarrow" else hand_result()
        result = EvaluationResult.load(original.save(tmp_path / "saved", **LAYOUTS.get(layout, {})), progress=False)
    if layout == "csv read by pyarrow":
        assert tables == [True]
        assert result.has_documents("Node")  # a column made for an analysis first, then the frame
    else:
        result.calculate_metrics()
    for node in result:
        frame = result[node]
        for position in range(frame.shape[1]):
            frame.iat[0, position] = frame.iat[-1, position]  # a value of the column's own type
            assert frame.iat[0, position] is frame.iat[-1, position] or frame.iat[0, position] == frame.iat[
                -1, position] or pd.isna(frame.iat[0, position]), (node, frame.columns[position])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_loaded_result_is_freed_as_soon_as_it_is_dropped(layout: str, tmp_path: Path) -> None:
    # a reference cycle (a Parquet node's save maker held its LoadedColumns; the store and the NodeFrames held each
    # other) kept the loaded columns until the cyclic GC ran: on a Dask worker, many tasks' partitions at once
    demo = load_demo_result()
    demo.save(tmp_path / "saved", **LAYOUTS[layout])
    expected = demo.calculate_metrics()
    with without_cyclic_gc():
        loaded = EvaluationResult.load(tmp_path / "saved")
        assert loaded.calculate_metrics() == expected
        loaded.save(tmp_path / "again", format="parquet")  # through each Parquet node's save maker (pending nodes)
        frames = loaded.node_results
        sources = [weakref.ref(frames.pending(node).source) for node in pending_nodes(loaded)]
        assert len(sources) == 2
        loaded["Reader"]  # one node built too
        alive = [weakref.ref(frames), *sources]
        del loaded, frames
        assert [ref() is None for ref in alive] == [True, True, True]
