"""Repeated judge runs on Dask: a partitioned folder (saved, or built from sharded runs files) keeps each query's
repetitions; the means, judge_noise and pass_at_k equal memory's (tests/test_repeats.py checks memory's against hand
values)."""

from __future__ import annotations

import pandas as pd
import pytest

import evalframe.dask

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.stress
def test_repetitions_on_dask_give_memory_values(tmp_path, client):
    from tests.test_repeats import QUERIES, repeated

    memory = repeated([[1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 0.2, 1.0], [0.5, 0.5, 0.7], [0.9, 1.0, 0.3]])
    folder = memory.save(tmp_path / "folder", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client)
    assert on_dask.calculate_metrics()["Generator"]["judge"] == pytest.approx(
        memory.calculate_metrics()["Generator"]["judge"], abs=1e-12)
    pd.testing.assert_frame_equal(on_dask.judge_noise("Generator"), memory.judge_noise("Generator"), rtol=1e-12)
    assert on_dask.pass_at_k("Generator", "judge", 0.5, 2) == pytest.approx(
        memory.pass_at_k("Generator", "judge", 0.5, 2), abs=1e-12)
    assert len(QUERIES) == 4


def test_sharded_runs_files_with_repetitions_build_the_folder_memory_saves(tmp_path, client):
    import json

    from evalframe import EvaluationResult, read_runs
    from tests.test_scores_everywhere import lines

    shards = lines()
    given = [[0.5, 1.0], [0.25], None, [0.75, 0.25, 0.5]]  # the last lines (the second shard) have none
    for line, runs in zip(shards, given):
        if runs is not None:
            line["scores"] = {"Generator": {"judge": runs}}
    for number, part in enumerate((shards[:4], shards[4:])):
        (tmp_path / f"runs-{number}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in part))
    built = evalframe.dask.from_runs(str(tmp_path / "runs-*.jsonl"), tmp_path / "built", partitions=2, client=client)
    loaded = EvaluationResult.load(built.path, progress=False)
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(x) + "\n" for x in shards))
    memory = EvaluationResult.from_runs(*read_runs(whole), progress=False)
    assert loaded.calculate_metrics()["Generator"]["judge"] == pytest.approx((0.75 + 0.25 + 0.5) / 3, abs=1e-12)
    pd.testing.assert_frame_equal(loaded.judge_noise("Generator"), memory.judge_noise("Generator"), rtol=1e-12)
    on_dask = evalframe.dask.load(built.path, client=client)
    pd.testing.assert_frame_equal(on_dask.judge_noise("Generator"), memory.judge_noise("Generator"), rtol=1e-12)
    assert on_dask.pass_at_k("Generator", "judge", 0.5, 1) == pytest.approx(
        memory.pass_at_k("Generator", "judge", 0.5, 1), abs=1e-12)
    assert memory.pass_at_k("Generator", "judge", 0.5, 1)["pass@k"] == pytest.approx((1 + 0 + 2 / 3) / 3, abs=1e-12)
