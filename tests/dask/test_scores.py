"""Declared scores built on Dask (a LocalCluster): sharded runs files with scores make the folder memory saves
(tests/test_scores_everywhere.py runs the analyses of declared scores on both backends)."""

from __future__ import annotations

import json

import pandas as pd

import pytest

import evalframe.dask
from tests.test_scores_everywhere import LATENCY, mean

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


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


def _answers_of_one_mode_result():
    """Two nodes with a per-row score ``cost``, each holding document and answer rows:

    - ``Gen``: its answers are integrated only, its documents isolated only (q1: costs 1, 3 at ranks 1, 2; q2: 5, 7);
    - ``Gen2``: isolated; q1 has documents (1, 3) and answers (6, 8 at ranks 1, 2), q2-q4 documents only (5, 7; 2, 4;
      9, 11), so a partition without q1 holds none of its answers.
    """
    from evalframe import EvaluationResult, score_measure
    from tests.fixtures import answer_row, doc_row

    def docs(qid, costs, mode="isolated"):
        return [{**doc_row(qid, rank, f"{qid}-d{rank}", [f"{qid}-d1"], [int(rank == 1)], [100 * (rank == 1)],
                           [int(rank == 1)], eval_mode=mode), "scores.cost": cost}
                for rank, cost in enumerate(costs, start=1)]

    def answers(qid, costs, mode):
        return [{**answer_row(qid, rank, f"a{rank}", int(rank == 1), int(rank == 1), [f"{qid}-d1"], eval_mode=mode),
                 "scores.cost": cost} for rank, cost in enumerate(costs, start=1)]

    gen = docs("q1", [1, 3]) + docs("q2", [5, 7]) + answers("q1", [10], "integrated") + answers("q2", [20], "integrated")
    gen2 = docs("q1", [1, 3]) + answers("q1", [6, 8], "isolated") + docs("q2", [5, 7]) + docs("q3", [2, 4]) + \
        docs("q4", [9, 11])
    frames = {"Gen": pd.DataFrame(gen).assign(node="Gen"), "Gen2": pd.DataFrame(gen2).assign(node="Gen2")}
    return EvaluationResult(frames, scores={"cost": score_measure("cost", direction="lower", level="row")})


def test_row_scores_at_k_are_cut_as_in_memory_by_the_answers_of_the_eval_mode(tmp_path, client):
    # Dask once cut a node's row scores at k by the reader's k when the partition's node had answer rows in any
    # eval_mode; memory cuts them by the reader's k only when the node has answer rows of the eval_mode asked
    memory = _answers_of_one_mode_result()
    folder = memory.save(tmp_path / "folder", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client)
    held = on_dask.map_partitions(lambda part, keys: set(part["Gen2"]["multilabel_id"]) if "Gen2" in part else set())
    assert any(queries and "q1" not in queries for queries in held)  # a partition with Gen2's documents, no answer
    # Gen, isolated: no answer of the mode, so the retriever's k: k=1 costs 1 (q1), 5 (q2); k=2 means 2, 6.
    # Gen2, isolated: answers, so the reader's k, every document kept: k=1: q1 (1+3+6)/3, q2 6, q3 3, q4 10;
    # k=2: q1 (1+3+6+8)/4
    expected = {("Gen", 1): 3.0, ("Gen", 2): 4.0, ("Gen2", 1): (10 / 3 + 6 + 3 + 10) / 4, ("Gen2", 2): (4.5 + 19) / 4}
    for table in (result.metrics_at_k(ks=(1, 2), eval_mode="isolated") for result in (memory, on_dask)):
        costs = table[table["metric"] == "cost"].set_index(["node", "k"])["value"].to_dict()
        assert costs == pytest.approx(expected, abs=1e-12)
    # one top-k asked (calculate_metrics) both cut every row: Gen isolated at the retriever's 1: 1, 5; at the reader's
    # 1 (no answer of the mode, every document kept): (1+3)/2, (5+7)/2
    for options, cost in (({"simulated_top_k_retriever": 1, "retriever_node": "Gen"}, 3.0),
                          ({"simulated_top_k_reader": 1}, 4.0)):
        assert [result.calculate_metrics(eval_mode="isolated", **options)["Gen"]["cost"]
                for result in (memory, on_dask)] == [cost, cost]
    # integrated: Gen's answers, cut by the reader's k (10, 20 at k=1 and 2); Gen2 has no row of it (NaN)
    for result in (memory, on_dask):
        table = result.metrics_at_k(ks=(1, 2), eval_mode="integrated")
        costs = table[table["metric"] == "cost"].set_index(["node", "k"])["value"]
        assert costs.loc["Gen"].to_dict() == {1: 15.0, 2: 15.0} and costs.loc["Gen2"].isna().all()
