"""evalframe.dask.compare takes compare's Wilcoxon and sign tests and its corrections (issue 37): the same p-values as
in memory and as scipy on the per-query differences, whether the client gets them as counts or in A's order."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

import evalframe
import evalframe.dask
from benchmarks.synthetic import make_result
from evalframe import EvaluationResult


def test_dask_compare_takes_the_tests_and_corrections(tmp_path, client):
    base, other, third = (make_result(40, seed=7) for _ in range(3))
    other["Reader"]["f1"] = other["Reader"]["f1"].to_numpy()[::-1]  # many distinct differences: sent in A's order
    third["Reader"]["exact_match"] = 1.0 - third["Reader"]["exact_match"]  # few: sent as counts
    memory, cluster = [], []
    for i, result in enumerate((base, other, third)):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "rounds": 100, "max_p": 0.05}
    computed = {}
    for test, correction, column in (("wilcoxon", "fdr_bh", "p_fdr_bh"), ("sign", "holm-sidak", "p_holm_sidak")):
        got = computed[test] = evalframe.dask.compare(*cluster, test=test, correction=correction, **options)
        expected = evalframe.compare(*memory, test=test, correction=correction, **options)
        assert list(got.columns) == list(expected.columns) and column in got.columns
        np.testing.assert_allclose(got[[f"p_{test}", column]].to_numpy(dtype=float),
                                   expected[[f"p_{test}", column]].to_numpy(dtype=float), rtol=1e-12)
        assert got["significant"].tolist() == expected["significant"].tolist()
    # the p-values are scipy's on the paired per-query differences
    tables = [result.query_metrics("Reader") for result in memory]
    got = computed["wilcoxon"]
    for position, name in ((1, "B"), (2, "C")):
        for metric in ("f1", "exact_match"):
            d = (tables[position][metric] - tables[0][metric]).dropna().to_numpy()
            if not d.any():  # B's exact_match is A's: identical runs give 1 (scipy: NaN above 13 queries)
                assert got.loc[(name, metric), "p_wilcoxon"] == 1.0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected_p = scipy_stats.wilcoxon(d).pvalue
            assert got.loc[(name, metric), "p_wilcoxon"] == pytest.approx(expected_p, rel=1e-12)


def test_dask_compare_by_slices_equals_memory(tmp_path, client):
    base, other = make_result(30, seed=3), make_result(30, seed=3)
    other["Reader"]["f1"] = other["Reader"]["f1"].to_numpy()[::-1]
    memory, cluster = [], []
    for i, result in enumerate((base, other)):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "rounds": 100, "by": "no_answer", "max_p": 0.05}
    got = evalframe.dask.compare(*cluster, **options)
    expected = evalframe.compare(*memory, **options)
    assert got.index.names == ["slice", "metric"] and "p_holm" in got.columns  # corrected over the slices
    np.testing.assert_allclose(got.to_numpy(dtype=float), expected.to_numpy(dtype=float), rtol=1e-12, equal_nan=True)
    assert got.index.equals(expected.index)


def test_dask_compare_takes_the_bootstrap_test_and_the_effect_sizes(tmp_path, client):
    """test='bootstrap' (p_bootstrap), d_z and improved on Dask: memory's numbers, whether the differences come to
    the client in A's order (f1: many distinct values) or as counts (exact_match)."""
    base, other = make_result(40, seed=3), make_result(40, seed=3)
    other["Reader"]["f1"] = other["Reader"]["f1"].to_numpy()[::-1]
    other["Reader"]["exact_match"] = 1.0 - other["Reader"]["exact_match"]
    memory, cluster = [], []
    for i, result in enumerate((base, other)):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=2, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    options = {"node": "Reader", "metrics": ["f1", "exact_match"], "rounds": 200, "test": "bootstrap", "max_p": 0.05}
    got = evalframe.dask.compare(*cluster, **options)
    expected = evalframe.compare(*memory, **options)
    assert list(got.columns) == list(expected.columns) and "p_bootstrap" in got.columns
    columns = ["d_z", "improved", "p_bootstrap", "p_value", "ci_low", "ci_high"]
    np.testing.assert_allclose(got[columns].to_numpy(dtype=float), expected[columns].to_numpy(dtype=float), rtol=1e-12)
    tables = [result.query_metrics("Reader") for result in memory]
    d = (tables[1]["f1"] - tables[0]["f1"]).dropna().to_numpy()
    assert got.loc["f1", "d_z"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert got.loc["f1", "improved"] == np.count_nonzero(d > 0) / len(d)
