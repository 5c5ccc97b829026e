"""Declared scores built on Dask (a LocalCluster): sharded runs files with scores make the folder memory saves
(tests/test_scores_everywhere.py runs the analyses of declared scores on both backends)."""

from __future__ import annotations

import json

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
