"""Declared scores on Dask (a LocalCluster): the analyses of tests/test_scores_everywhere.py on a partitioned folder
equal the values aggregated by the formulas written there, and the in-memory result's."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import evalframe.dask
from tests.test_scores_everywhere import FAITH, LATENCY, QUERIES, make, mean, relevance_at

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, client):
    folder = tmp_path_factory.mktemp("scores")
    memory = [make(name, folder) for name in ("A", "B")]
    on_dask = [evalframe.dask.load(result.save(folder / name, format="parquet", partitions=3, progress=False),
                                   client=client) for name, result in zip("AB", memory)]
    return memory, on_dask


def test_scores_on_dask_equal_the_formulas_and_memory(runs):
    memory, (a, b) = runs
    assert a.scores == memory[0].scores and a.scores["latency"].direction == "lower"
    means = a.calculate_metrics()
    assert means["Generator"]["faithfulness"] == pytest.approx(mean(FAITH["A"]), abs=1e-12)
    assert means["Generator"]["latency"] == pytest.approx(mean(LATENCY["A"]), abs=1e-12)
    assert means["Retriever"]["relevance"] == pytest.approx(relevance_at(3), abs=1e-12)
    table = a.query_metrics("Generator", with_query=True, compute=True).set_index("query")
    assert table.loc[QUERIES, "latency"].tolist() == LATENCY["A"]
    at_k = a.metrics_at_k(ks=(1, 2))
    got = at_k[at_k["metric"] == "relevance"].set_index("k")["value"].to_dict()
    assert got == pytest.approx({1: relevance_at(1), 2: relevance_at(2)})
    ids = memory[0].query_metrics("Generator", with_query=True)["query"]
    halves = {qid: QUERIES.index(query) < 3 for qid, query in ids.items()}
    pd.testing.assert_frame_equal(a.sliced_metrics(halves), memory[0].sliced_metrics(halves), rtol=0, atol=1e-12)
    slowest = sorted(range(6), key=lambda i: -LATENCY["A"][i])[:3]
    assert [e["query"] for e in a.wrong_examples("Generator", n=3, metric="latency")] == [QUERIES[i] for i in slowest]
    table = evalframe.dask.compare(a, b, node="Generator", metrics=["latency"], rounds=100)
    assert table.loc["latency", ["wins", "losses"]].tolist() == [
        sum(y < x for x, y in zip(LATENCY["A"], LATENCY["B"])), sum(y > x for x, y in zip(LATENCY["A"], LATENCY["B"]))]


def test_sharded_runs_files_with_scores_build_the_folder_memory_saves(tmp_path, client):
    from evalframe import EvaluationResult, read_runs, score_measure
    from tests.test_scores_everywhere import lines

    shards = lines()
    for line, latency in zip(shards, LATENCY["A"][:4]):  # the last two lines (the second shard) have no scores
        line["scores"] = {"Generator": {"latency": latency}}
    for number, part in enumerate((shards[:4], shards[4:])):
        (tmp_path / f"runs-{number}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in part))
    measures = {"latency": score_measure("latency", direction="lower")}
    built = evalframe.dask.from_runs(str(tmp_path / "runs-*.jsonl"), tmp_path / "built", partitions=2, client=client,
                                     score_measures=measures)
    loaded = EvaluationResult.load(built.path, progress=False)
    assert loaded.scores == measures
    assert loaded.calculate_metrics()["Generator"]["latency"] == pytest.approx(mean(LATENCY["A"][:4]))
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(x) + "\n" for x in shards))
    memory = EvaluationResult.from_runs(*read_runs(whole), score_measures=measures, progress=False)
    for node, values in memory.calculate_metrics().items():
        assert loaded.calculate_metrics()[node] == pytest.approx(values, abs=1e-12), node
