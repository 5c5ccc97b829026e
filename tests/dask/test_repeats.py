"""Repeated judge runs on Dask: a partitioned folder keeps each query's repetitions; the means, judge_noise and
pass_at_k equal memory's (tests/test_repeats.py checks memory's against hand values)."""

from __future__ import annotations

import pandas as pd
import pytest

import evalframe.dask

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_repetitions_on_dask_give_memory_values(tmp_path, client):
    from tests.test_repeats import QUERIES, repeated

    memory = repeated([[1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 0.2, 1.0], [0.5, 0.5, 0.7], [0.9, 1.0, 0.3]])
    folder = memory.save(tmp_path / "folder", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client)
    assert on_dask.calculate_metrics()["Generator"]["judge"] == pytest.approx(
        memory.calculate_metrics()["Generator"]["judge"], abs=1e-12)
    pd.testing.assert_frame_equal(on_dask.judge_noise("Generator"), memory.judge_noise("Generator"), rtol=1e-12)
    for k in (1, 2, 3):
        assert on_dask.pass_at_k("Generator", "judge", 0.5, k) == pytest.approx(
            memory.pass_at_k("Generator", "judge", 0.5, k), abs=1e-12)
    assert len(QUERIES) == 4
