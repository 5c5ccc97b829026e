"""evalframe.power on Dask (issue 37): runs loaded with evalframe.dask.load give the in-memory table, their per-query
tables gathered to the client (the power needs each paired query's difference only through its sd)."""

from __future__ import annotations

import numpy as np
import pytest

import evalframe
import evalframe.dask
from benchmarks.synthetic import make_result
from evalframe import EvaluationResult


def test_power_on_dask_equals_in_memory(tmp_path, client):
    base, other = make_result(40, seed=7), make_result(40, seed=7)
    other["Reader"]["f1"] = other["Reader"]["f1"].to_numpy()[::-1]
    memory, cluster = [], []
    for i, result in enumerate((base, other)):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "effect": 0.05, "queries": 300}
    got = evalframe.power(*cluster, **options)
    expected = evalframe.power(*memory, **options)
    np.testing.assert_allclose(got.drop(columns="note").to_numpy(dtype=float),
                               expected.drop(columns="note").to_numpy(dtype=float), rtol=1e-12)
    tables = [result.query_metrics("Reader") for result in memory]
    d = (tables[1]["f1"] - tables[0]["f1"]).dropna().to_numpy()
    assert got.loc["f1", "sd"] == pytest.approx(np.std(d, ddof=1), rel=1e-12)
