"""Which way a measure is better, on Dask (a LocalCluster): the hand-worked orders and counts of
tests/test_directions.py (a measure of the registry and a declared score per direction: higher, lower, none) from
``wrong_examples``, ``compare`` and the comparative report of partitioned folders."""

from __future__ import annotations

import math

import pytest

import evalframe.dask
from evalframe import InvalidParameterError, compare_report
from tests.test_directions import MEASURES, make

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, client):
    folder = tmp_path_factory.mktemp("directions")
    return [evalframe.dask.load(make(name).save(folder / name, format="parquet", partitions=2, progress=False),
                                client=client) for name in "AB"]


def test_wrong_examples_on_dask_ranks_worst_first_by_the_direction(runs):
    a = runs[0]
    by = {metric: [e["multilabel_id"] for e in a.wrong_examples("Retriever", n=2, metric=metric)]
          for metric in ("P@4", "unj@4", "latency")}
    assert by == {"P@4": ["q3", "q2"], "unj@4": ["q2", "q4"], "latency": ["q2", "q3"]}  # as in memory, by hand
    assert [e["multilabel_id"] for e in a.wrong_examples("Retriever", n=4, document_metric="unj@4")] == ["q2", "q4"]
    for metric, message in (("NumRet", r"NumRet is a count"), ("tokens", r"tokens is declared with direction 'none'")):
        with pytest.raises(InvalidParameterError, match=message):
            a.wrong_examples("Retriever", metric=metric)
    with pytest.raises(InvalidParameterError, match=r"NumRet is a count"):
        a.wrong_examples("Retriever", document_metric="num_ret")


def test_compare_and_the_comparative_report_on_dask_follow_the_direction(runs):
    table = evalframe.dask.compare(*runs, node="Retriever", metrics=[*MEASURES, "latency", "tokens"], rounds=50)
    assert table.loc["unj@4", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]
    assert table.loc["latency", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]
    assert table.loc["P@4", ["wins", "ties", "losses"]].tolist() == [1, 3, 0]
    for metric, ties in (("NumRet", 0), ("tokens", 1)):
        assert math.isnan(table.loc[metric, "wins"]) and math.isnan(table.loc[metric, "losses"])
        assert table.loc[metric, "ties"] == ties
    node = compare_report({"A": runs[0], "B": runs[1]}, metrics=["NumRet", "unj@4"], rounds=50).model.nodes[0]
    assert [m.direction for m in node.measures] == ["none", "lower"] and node.order_metric == "unj@4"
    assert node.queries[0].multilabel_id == "q3" and node.queries[0].worst == -0.75
