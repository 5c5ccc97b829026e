"""``backend="arrow" | "polars"``: the tables of query_metrics, trec_query_metrics, metrics_frame, compare and
wrong_examples, in memory and on Dask, equal the pandas table converted independently here (column names, values,
types), and a polars table is a polars.DataFrame; numeric columns are handed over without a copy."""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import evalframe
from evalframe import EvaluationResult, load_demo_result
from evalframe.errors import InvalidParameterError
from evalframe.frames.backends import as_backend

pl = pytest.importorskip("polars")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RUN = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 2.0}, "q2": {"d4": 0.5, "d5": 0.2}, "q3": {"d1": 3.0}}
QRELS = {"q1": {"d1": 1, "d2": 2}, "q2": {"d5": 1}, "q3": {"d7": 1}}
OTHER = {"q1": {"d2": 1.0}, "q2": {"d5": 0.9, "d4": 0.1}, "q3": {"d7": 1.0}}


def cells(values: list) -> list:
    """pandas' cells as Arrow and polars hold them: NaN (no value) as None."""
    return [None if isinstance(value, float) and math.isnan(value) else value for value in values]


def check_arrow(table: pa.Table, frame: pd.DataFrame) -> None:
    """``table`` is ``frame`` with its index levels as the first columns, each column's values and type kept."""
    flat = frame.reset_index()
    assert isinstance(table, pa.Table)
    assert table.column_names == [str(name) for name in flat.columns]
    for name in flat.columns:
        assert table.column(str(name)).to_pylist() == cells(flat[name].tolist()), name
        kind, arrow_type = flat[name].dtype, table.schema.field(str(name)).type
        if kind == np.float64:
            assert arrow_type == pa.float64(), name
        elif kind == np.int64:
            assert arrow_type == pa.int64(), name
        elif kind == np.bool_:
            assert arrow_type == pa.bool_(), name
        else:  # query ids, node and metric names, run names
            assert pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type), (name, arrow_type)
    # the pandas metadata gives the same frame back (text in pandas' string dtype: the types were checked above)
    pd.testing.assert_frame_equal(table.to_pandas(), frame, check_dtype=False, check_index_type=False)


def check_polars(table, frame: pd.DataFrame) -> None:
    flat = frame.reset_index()
    assert type(table) is pl.DataFrame
    assert table.columns == [str(name) for name in flat.columns]
    for name in flat.columns:
        assert table[str(name)].to_list() == cells(flat[name].tolist()), name
        expected = {np.dtype(np.float64): pl.Float64, np.dtype(np.int64): pl.Int64, np.dtype(np.bool_): pl.Boolean}.get(
            flat[name].dtype, pl.String)
        assert table.schema[str(name)] == expected, name


def check_all(call, *, on_cluster: bool = False) -> None:
    """``call(backend)`` for each backend against ``call("pandas")`` (the default: ``call(None)`` passes none; left
    out on Dask, where each call is a computation on the cluster)."""
    frame = call("pandas")
    assert isinstance(frame, pd.DataFrame) and len(frame)
    if not on_cluster:
        pd.testing.assert_frame_equal(call(None), frame)
    check_arrow(call("arrow"), frame)
    check_polars(call("polars"), frame)


def with_backend(backend: str | None) -> dict:
    return {} if backend is None else {"backend": backend}


@pytest.fixture(scope="module")
def results():
    return (EvaluationResult.from_trec(RUN, QRELS, progress=False),
            EvaluationResult.from_trec(OTHER, QRELS, progress=False))


@pytest.fixture(scope="module")
def held(backend, results):
    """The two runs and the demo result on the engine, each saved (on Dask) once for the module."""
    return backend(results[0]), backend(results[1]), backend(load_demo_result())


def test_query_metrics_in_every_backend(backend, held):
    result, _, demo = held
    if backend.on_cluster:  # a Dask frame, unless asked for Arrow or polars: then gathered, as compute=True
        check_all(lambda kind: result.query_metrics("Retriever", measures=["RR", "AP"], compute=kind in (None, "pandas"),
                                                    **with_backend(kind)), on_cluster=True)
    else:
        check_all(lambda kind: result.query_metrics("Retriever", measures=["RR", "AP"], **with_backend(kind)))
        check_all(lambda kind: demo.query_metrics("Reader", with_query=True, **with_backend(kind)))


def test_trec_query_metrics_in_every_backend(backend, held):
    result = held[0]
    if backend.on_cluster:
        check_all(lambda kind: (lambda t: t if kind in ("arrow", "polars") else t.compute())(
            result.trec_query_metrics(["RR", "P@1"], **with_backend(kind))), on_cluster=True)
    else:
        check_all(lambda kind: result.trec_query_metrics(["RR", "P@1"], **with_backend(kind)))
    # hand-worked: q1 ranks d3, d2, d1 (the tie by docid descending): RR 1/2; q2 d4, d5: 1/2; q3 misses d7: 0
    table = result.trec_query_metrics(["RR"], backend="polars")
    assert table.sort("multilabel_id").to_dict(as_series=False) == {"multilabel_id": ["q1", "q2", "q3"],
                                                                     "RR": [0.5, 0.5, 0.0]}


def test_metrics_frame_in_every_backend(backend, held):
    demo = held[2]
    check_all(lambda kind: demo.metrics_frame(**with_backend(kind)), on_cluster=backend.on_cluster)
    if not backend.on_cluster:
        check_all(lambda kind: demo.metrics_frame(ci=0.9, ci_method="t", **with_backend(kind)))
        assert demo.metrics_frame(ci=0.9, ci_method="t", backend="arrow").to_pandas().attrs["ci"]["method"] == "t"


def test_compare_of_two_runs_in_every_backend(backend, held):
    check_all(lambda kind: backend.compare(held[0], held[1], node="Retriever", metrics=["RR", "AP"], rounds=200,
                                           **with_backend(kind)), on_cluster=backend.on_cluster)


def test_compare_of_three_runs_in_every_backend(backend, held):
    check_all(lambda kind: backend.compare(held[0], held[1], held[0], node="Retriever", metrics=["RR"], rounds=200,
                                           **with_backend(kind)), on_cluster=backend.on_cluster)  # index (run, metric)


def test_compare_of_trec_runs_in_every_backend():
    check_all(lambda kind: evalframe.compare(RUN, OTHER, qrels=QRELS, metrics=["RR"], rounds=200, **with_backend(kind)))
    table = evalframe.compare(RUN, OTHER, qrels=QRELS, metrics=["RR"], rounds=200, backend="arrow")
    # A's RR: (1/2 + 1/2 + 0) / 3; B's: d2 first in q1 (1), d5 first in q2 (1), d7 in q3 (1)
    assert table.column("metric").to_pylist() == ["RR"]
    assert table.column("mean_a").to_pylist() == [pytest.approx(1 / 3)]
    assert table.column("mean_b").to_pylist() == [1.0]


def test_wrong_examples_as_a_table(held):
    result = held[2]
    examples = result.wrong_examples("Reader", n=3)
    assert isinstance(examples, list)  # no backend: the list of dicts, as before
    frame = result.wrong_examples("Reader", n=3, backend="pandas")
    assert frame.columns.tolist() == list(examples[0])
    assert frame.to_dict("records") == list(examples)
    arrow = result.wrong_examples("Reader", n=3, backend="arrow")
    assert isinstance(arrow, pa.Table) and arrow.column_names == list(examples[0])
    assert arrow.column("multilabel_id").to_pylist() == [e["multilabel_id"] for e in examples]
    assert arrow.column("metrics").to_pylist() == [e["metrics"] for e in examples]
    polars = result.wrong_examples("Reader", n=3, backend="polars")
    assert type(polars) is pl.DataFrame and polars["metrics"].to_list() == [e["metrics"] for e in examples]
    worst = held[0].wrong_examples("Retriever", n=2, metric="RR", backend="arrow")
    assert worst.column("multilabel_id").to_pylist() == ["q3", "q1"]  # RR 0, then 0.5 (q1 before q2: first appearance)


def test_numeric_columns_are_not_copied():
    frame = pd.DataFrame({"AP": np.linspace(0, 1, 5), "RR": np.ones(5)},
                         index=pd.Index([f"q{i}" for i in range(5)], name="multilabel_id"))
    address = frame["AP"].to_numpy().__array_interface__["data"][0]
    table = as_backend(frame, "arrow")
    assert table.column("AP").chunks[0].buffers()[1].address == address
    assert as_backend(frame, "polars")["AP"].to_numpy().__array_interface__["data"][0] == address


def test_a_bad_backend_is_refused_with_the_choices(results):
    result = results[0]
    for call in (lambda: result.query_metrics("Retriever", backend="polar"),
                 lambda: result.trec_query_metrics(["RR"], backend="polar"),
                 lambda: result.metrics_frame(backend="polar"),
                 lambda: result.wrong_examples("Retriever", backend="polar"),
                 lambda: evalframe.compare(RUN, OTHER, qrels=QRELS, backend="polar")):
        with pytest.raises(InvalidParameterError, match=r"^backend must be one of \['pandas', 'arrow', 'polars'\]; "
                                                        r"got 'polar'\. Did you mean 'polars'\?$"):
            call()
    with pytest.raises(TypeError, match=r"unknown argument\(s\) \['backends'\]"):
        result.trec_query_metrics(["RR"], backends="arrow")


def test_polars_missing_names_its_install_line(results, monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # an import of polars fails, as when it is not installed
    with pytest.raises(InvalidParameterError, match=r"backend='polars' needs polars, which is not installed: "
                                                    r"pip install polars"):
        results[0].trec_query_metrics(["RR"], backend="polars")
    assert isinstance(results[0].trec_query_metrics(["RR"], backend="arrow"), pa.Table)  # Arrow needs no polars


def test_a_column_arrow_cannot_hold_is_named():
    frame = pd.DataFrame({"label": ["a", 1], "AP": [0.5, 1.0]}, index=pd.Index(["q1", "q2"], name="multilabel_id"))
    with pytest.raises(InvalidParameterError, match=r"^backend='arrow': the column 'label' cannot be an Arrow column"):
        as_backend(frame, "arrow")
