"""evalframe.dask.compare of all pairs of N runs (issue 37): pairs="all", the correction's family, Tukey's HSD (from
per-run sums over the partitions) and the randomized Tukey HSD (the values brought to the client in run A's order)
give memory's table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import evalframe
import evalframe.dask
from benchmarks.synthetic import make_result
from evalframe import EvaluationResult


def test_dask_compare_of_all_pairs_is_memorys(tmp_path, client):
    made = [make_result(30, seed=11) for _ in range(3)]
    made[1]["Reader"]["f1"] = made[1]["Reader"]["f1"].to_numpy()[::-1]  # many distinct differences
    made[2]["Reader"]["exact_match"] = 1.0 - made[2]["Reader"]["exact_match"]  # few
    memory, cluster = [], []
    for i, result in enumerate(made):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "rounds": 200, "max_p": 0.05}
    # each test implies pairs="all"; their correction spans the measures of each pair
    for extra in ({"test": "tukey"}, {"test": "randomized-tukey", "family": "measures", "correction": "fdr_bh"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = evalframe.dask.compare(*cluster, **options, **extra)
            expected = evalframe.compare(*memory, **options, **extra)
        assert got.index.names == ["run_a", "run_b", "metric"] and list(got.index) == list(expected.index)
        assert list(got.columns) == list(expected.columns)
        numeric = [c for c in got.columns if c != "significant"]
        np.testing.assert_allclose(got[numeric].to_numpy(dtype=float), expected[numeric].to_numpy(dtype=float),
                                   rtol=1e-12, atol=1e-15)
        assert got["significant"].tolist() == expected["significant"].tolist()
    assert "p_randomized_tukey" in got.columns and "p_fdr_bh" in got.columns
    # the randomized p-values are of the values every run scored, permuted within queries: not all 1
    assert isinstance(got, pd.DataFrame) and (got["p_randomized_tukey"] < 1).any()


def test_the_paper_table_of_runs_on_dask_is_memorys(tmp_path, client):
    """evalframe.comparison_table of results on Dask (evalframe.compare gathers their per-query tables to the
    client): memory's means, superscripts and caption, also with results on Dask beside results in memory."""
    made = [make_result(30, seed=5) for _ in range(3)]
    made[2]["Reader"]["f1"] = np.minimum(1.0, made[2]["Reader"]["f1"].to_numpy() + 0.3)  # clearly better
    memory, cluster = {}, {}
    for i, result in enumerate(made):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory[f"run{i}"] = EvaluationResult.load(folder, progress=False)
        cluster[f"run{i}"] = evalframe.dask.load(folder, client=client)
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "rounds": 200, "test": "t-test", "correction": "none"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evalframe.comparison_table(cluster, **options)
        expected = evalframe.comparison_table(memory, **options)
    pd.testing.assert_frame_equal(got.means, expected.means, rtol=1e-12)
    assert got.superscripts().equals(expected.superscripts()) and got.caption == expected.caption
    assert set(got.superscripts()["f1"]["run2"]) == {"a", "b"}  # run2 (c) beats both on f1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = evalframe.comparison_table({"run0": memory["run0"], "run1": cluster["run1"], "run2": memory["run2"]},
                                           **options)
    pd.testing.assert_frame_equal(mixed.means, expected.means, rtol=1e-12)
    assert mixed.superscripts().equals(expected.superscripts())
