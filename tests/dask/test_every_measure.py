"""Every measure of the registry on Dask: the same numbers as in memory (tests/test_every_measure_everywhere.py checks
the in-memory surfaces against the per-query values)."""

from __future__ import annotations

import pytest

import evalframe.dask
from tests.test_every_measure_everywhere import NAMES, make_run  # noqa: F401

from evalframe import EvaluationResult

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_dask_takes_every_measure(tmp_path, client):
    run, qrels = make_run(1)
    result = EvaluationResult.from_trec(run, qrels)
    folder = result.save(tmp_path / "saved", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client).trec_metrics(NAMES)
    in_memory = result.trec_metrics(NAMES)
    assert list(on_dask) == list(in_memory) == NAMES
    for name in NAMES:
        assert on_dask[name] == pytest.approx(in_memory[name], rel=1e-12, abs=1e-12), name
