"""compare on the measure's own scale: for a count (summed over queries) and a geometric mean (gm_map), ``delta`` is
the difference of the runs' numbers and its interval and tests are about that same quantity; in memory, on TREC run
files and on each backend (in memory and on Dask, the same numbers). Hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, compare

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Four queries. NumRet: a 3, 5, 2, 3 (sum 13), b one more each (17). gm_map: a's AP 0.5, 0.25, 0.5, 0.125, b's
    twice each (their geometric means 2^(-6/4) and 2 × that). AP: the same values, averaged."""
    index = pd.Index(["q1", "q2", "q3", "q4"], name="multilabel_id")
    ap = np.array([0.5, 0.25, 0.5, 0.125])
    a = pd.DataFrame({"NumRet": [3.0, 5.0, 2.0, 3.0], "gm_map": ap, "AP": ap}, index=index)
    b = pd.DataFrame({"NumRet": [4.0, 6.0, 3.0, 4.0], "gm_map": 2 * ap, "AP": 2 * ap}, index=index)
    return a, b


def test_a_count_is_compared_on_its_sum():
    table = compare(*tables(), metrics=["NumRet"], rounds=200)
    row = table.loc["NumRet"]
    # every difference is 1: the sums differ by 4, and every resampled sum of differences is 4 too
    assert (row["mean_a"], row["mean_b"], row["delta"]) == (13.0, 17.0, 4.0)
    assert (row["ci_low"], row["ci_high"]) == (4.0, 4.0)  # was the mean's (1.0, 1.0) beside a delta of 4
    assert (row["t"], row["p_ttest"]) == (math.inf, 0.0)  # n times the mean: the same paired test


def test_a_count_with_differing_differences_keeps_the_tests_and_scales_the_interval():
    a, b = tables()
    b = b.assign(NumRet=[4.0, 5.0, 6.0, 2.0])  # differences 1, 0, 4, -1: sum 4, mean 1
    row = compare(a, b, metrics=["NumRet"], rounds=500).loc["NumRet"]
    assert row["delta"] == 4.0
    # the t-test of the mean difference is that of the sum: t = mean / (sd / sqrt(n)), sd² = (0 + 1 + 9 + 4) / 3
    assert row["t"] == pytest.approx(1.0 / (math.sqrt(14 / 3) / 2), rel=1e-12)
    # the interval of a sum of 4 differences lies within 4 × [min, max] of them and holds the delta's sign range
    assert -4.0 <= row["ci_low"] <= row["delta"] <= row["ci_high"] <= 16.0
    mean_row = compare(a, b, metrics=["AP"], rounds=500).loc["AP"]  # a mean: its interval as it was
    assert -0.5 <= mean_row["ci_low"] <= mean_row["ci_high"] <= 0.5


def test_a_geometric_mean_is_compared_on_its_ratio():
    row = compare(*tables(), metrics=["gm_map"], rounds=200).loc["gm_map"]
    gm_a = (0.5 * 0.25 * 0.5 * 0.125) ** 0.25
    assert row["mean_a"] == pytest.approx(gm_a, rel=1e-12) and row["mean_b"] == pytest.approx(2 * gm_a, rel=1e-12)
    assert row["delta"] == pytest.approx(gm_a, rel=1e-12)
    # every query's log difference is log 2: the ratio of the geometric means is 2 in every resample, so the
    # interval of b - a = a (ratio - 1) is the point gm_a; the tests are of the log differences (equal but for the
    # logs' rounding: t beyond 1e12, where the values' differences 0.5, 0.25, 0.5, 0.125 give t = 3.8)
    assert row["ci_low"] == pytest.approx(gm_a, rel=1e-12) and row["ci_high"] == pytest.approx(gm_a, rel=1e-12)
    assert row["t"] > 1e12 and row["p_ttest"] < 1e-12
    # the arithmetic mean of the same values: differences 0.5, 0.25, 0.5, 0.125, a t-test of them
    ap = compare(*tables(), metrics=["AP"], rounds=200).loc["AP"]
    d = np.array([0.5, 0.25, 0.5, 0.125])
    assert ap["t"] == pytest.approx(d.mean() / (d.std(ddof=1) / 2), rel=1e-12)


def test_trec_run_files_are_compared_on_the_same_scales(tmp_path):
    """Run b retrieves one more unjudged document for each query: NumRet's sums 13 and 17, as in memory."""
    counts_a, counts_b = [3, 5, 2, 3], [4, 6, 3, 4]
    qrels = {f"q{q}": {"rel": 1} for q in range(1, 5)}
    runs = []
    for name, counts in (("a", counts_a), ("b", counts_b)):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"q{q} Q0 {'rel' if i == 0 else f'x{i}'} {i + 1} {10 - i} {name}\n"
                                for q, count in zip(range(1, 5), counts) for i in range(count)))
        runs.append(path)
    table = compare(*runs, qrels=qrels, metrics=["num_ret", "gm_map"], rounds=200)
    row = table.loc["NumRet"]
    assert (row["mean_a"], row["mean_b"], row["delta"], row["ci_low"], row["ci_high"]) == (13.0, 17.0, 4.0, 4.0, 4.0)
    # the relevant document first in both: AP 1 everywhere, the geometric means 1, no difference
    assert (table.loc["gm_map", "delta"], table.loc["gm_map", "ci_low"], table.loc["gm_map", "ci_high"]) == (0, 0, 0)
    results = [EvaluationResult.from_trec(run, qrels) for run in runs]
    assert compare(*results, metrics=["num_ret"], rounds=200).loc["NumRet", "ci_high"] == 4.0


def test_each_backend_compares_counts_on_their_sum_and_geometric_means_on_their_ratio(backend):
    """On each backend (tests/conftest.py) the numbers of evalframe.compare in memory: NumRet's sums 13 and 17 (on Dask
    once 3.25 and 4.25, the means), its interval 4 to 4, and gm_map's and AP's deltas, intervals and tests. q2's and
    q4's relevant document is lower in b: their AP and gm_map change."""
    qrels = {f"q{q}": {"rel": 1, "other": 1} for q in range(1, 5)}
    first = {"a": {1: 0, 2: 0, 3: 0, 4: 0}, "b": {1: 0, 2: 3, 3: 0, 4: 1}}
    in_memory, on = [], []
    for name, counts in (("a", [3, 5, 2, 3]), ("b", [4, 6, 3, 4])):
        run = {f"q{q}": {("rel" if i == first[name][q] else f"x{i}"): 10.0 - i for i in range(count)}
               for q, count in zip(range(1, 5), counts)}
        result = EvaluationResult.from_trec(run, qrels)
        in_memory.append(result)
        on.append(backend(result, partitions=2))
    metrics = ["num_ret", "gm_map", "AP"]
    expected = compare(*in_memory, metrics=metrics, rounds=300)
    table = backend.compare(*on, metrics=metrics, rounds=300)
    assert (table.loc["NumRet", "mean_a"], table.loc["NumRet", "mean_b"]) == (13.0, 17.0)
    assert (table.loc["NumRet", "ci_low"], table.loc["NumRet", "ci_high"]) == (4.0, 4.0)
    for metric in ("NumRet", "gm_map", "AP"):
        for column in ("mean_a", "mean_b", "delta", "ci_low", "ci_high", "t", "p_ttest", "p_value"):
            assert table.loc[metric, column] == pytest.approx(expected.loc[metric, column], rel=1e-12, abs=1e-12), \
                (metric, column)
