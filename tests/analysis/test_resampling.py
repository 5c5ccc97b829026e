"""compare's resampling engine (evalframe.analysis.resampling) and the statistics beside each delta (issue 37).

The 10,000-round estimates are checked against the EXACT values enumerated over every sign pattern (2**n) and every
bootstrap resample (n**n) of small n, within 4 standard errors of a Monte-Carlo estimate (plus the 1 / (rounds + 1)
of the p-value's form); one case each in the normal suite, the sweeps under the stress marker.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

import evalframe
from evalframe.analysis.compare import effect_size
from evalframe.analysis.resampling import order_free, resample_many
from evalframe.analysis.stats import bootstrap_ci, bootstrap_p_value, randomization_p_value

ROUNDS = 10_000


def exact_randomization(d: np.ndarray) -> float:
    """P(|sum of sign-flipped d| >= |sum d|) over all 2**n sign patterns."""
    signs = 1 - 2 * ((np.arange(2 ** len(d))[:, None] >> np.arange(len(d))) & 1)
    sums = signs @ d
    return float(np.mean(np.abs(sums) >= abs(d.sum()) - 1e-12))


def exact_bootstrap_means(d: np.ndarray) -> np.ndarray:
    """The means of all n**n bootstrap resamples (equally likely)."""
    n = len(d)
    picks = np.array(list(itertools.product(range(n), repeat=n)))
    return d[picks].mean(axis=1)


def within(estimate: float, exact: float, rounds: int = ROUNDS) -> bool:
    se = math.sqrt(max(exact * (1 - exact), 1e-12) / rounds)
    return abs(estimate - exact) <= 4 * se + 1 / (rounds + 1)


def check_against_exact(d: np.ndarray, seed: int) -> None:
    row = {k: float(v[0]) for k, v in resample_many([d], seed=seed, rounds=ROUNDS, confidence=0.9).items()}
    assert within(row["p_value"], exact_randomization(d))
    means = exact_bootstrap_means(d)
    mean = d.mean()
    exact_shift = float(np.mean(np.abs(means - mean) >= abs(mean) - 1e-12))
    assert within(row["p_bootstrap"], exact_shift)
    # the percentile interval: each end is a 5% / 95% quantile of the exact bootstrap distribution, within MC error
    for end, level in (("ci_low", 0.05), ("ci_high", 0.95)):
        tol = 4 * math.sqrt(level * (1 - level) / ROUNDS)
        value = row[end]
        assert np.mean(means < value - 1e-12) <= level + tol
        assert np.mean(means <= value + 1e-12) >= level - tol


def test_ten_thousand_rounds_are_within_monte_carlo_error_of_the_exact_values():
    check_against_exact(np.array([0.3, -0.1, 0.25, 0.4, -0.05]), seed=0)


@pytest.mark.stress
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [3, 5, 6])
def test_the_estimates_are_within_monte_carlo_error_of_the_exact_values_sweep(n, seed):
    rng = np.random.default_rng(100 * n + seed)
    d = np.round(rng.normal(0.1, 0.3, n), 2)
    if np.all(d == d[0]):
        d[0] += 0.01
    check_against_exact(d, seed)


@pytest.mark.stress
@pytest.mark.parametrize("seed", range(4))
def test_randomization_on_twelve_queries_against_all_sign_patterns(seed):
    d = np.round(np.random.default_rng(seed).normal(0.05, 0.2, 12), 3)
    assert within(float(resample_many([d], seed=seed, rounds=ROUNDS, confidence=0.95)["p_value"][0]),
                  exact_randomization(d))


@pytest.mark.stress
def test_the_interval_agrees_with_scipys_percentile_bootstrap():
    d = np.random.default_rng(5).normal(0.05, 0.2, 80)
    row = resample_many([d], seed=1, rounds=ROUNDS, confidence=0.95)
    scipy_ci = scipy_stats.bootstrap((d,), np.mean, n_resamples=ROUNDS, method="percentile",
                                     random_state=np.random.default_rng(2)).confidence_interval
    # two independent 10,000-round estimates of a 2.5% quantile: their MC errors are about 0.03 sd of the mean each
    tol = 0.15 * d.std(ddof=1) / math.sqrt(len(d))
    assert abs(row["ci_low"][0] - scipy_ci.low) <= tol and abs(row["ci_high"][0] - scipy_ci.high) <= tol


def test_equal_differences_give_equal_numbers_whatever_else_is_compared():
    rng = np.random.default_rng(3)
    d = rng.normal(0.02, 0.2, 100)
    alone = resample_many([d], seed=7, rounds=2000, confidence=0.95)
    others = [rng.normal(0, 0.3, 100) for _ in range(5)] + [rng.normal(0, 0.3, 40)]
    among = resample_many([*others[:3], d, *others[3:]], seed=7, rounds=2000, confidence=0.95)
    again = resample_many([d], seed=7, rounds=2000, confidence=0.95)
    other_seed = resample_many([d], seed=8, rounds=2000, confidence=0.95)
    for name in ("ci_low", "ci_high", "p_value", "p_bootstrap"):
        assert among[name][3] == alone[name][0] == again[name][0]  # bit for bit
    assert (other_seed["ci_low"][0], other_seed["p_value"][0]) != (alone["ci_low"][0], alone["p_value"][0])


def test_a_row_of_few_values_over_many_queries_is_resampled_by_its_counts():
    # 3 values over 7,000 queries: the multinomial / binomial kernels of stats, from a generator seeded `seed`
    d = np.random.default_rng(4).choice([-1.0, 0.0, 1.0], size=7000, p=[0.3, 0.4, 0.3])
    assert order_free(d) and order_free(np.sort(d))
    row = resample_many([d], seed=5, rounds=300, confidence=0.95)
    rng = np.random.default_rng(5)
    assert (row["ci_low"][0], row["ci_high"][0]) == bootstrap_ci(d, rounds=300, rng=rng)
    assert row["p_value"][0] == randomization_p_value(d, rounds=300, rng=rng)
    shuffled = resample_many([np.random.default_rng(0).permutation(d)], seed=5, rounds=300, confidence=0.95)
    assert all(shuffled[name][0] == row[name][0] for name in row)  # the order of the queries does not matter


def test_degenerate_rows():
    rows = resample_many([np.zeros(4), np.full(3, 0.5), np.array([0.5]), np.empty(0), np.array([1.0, np.nan])],
                         seed=0, rounds=99, confidence=0.95)
    assert rows["ci_low"].tolist()[:3] == [0.0, 0.5, 0.5] and rows["ci_high"].tolist()[:3] == [0.0, 0.5, 0.5]
    assert rows["p_value"][0] == rows["p_value"][2] == 1.0  # one query: both signs are as extreme
    assert within(rows["p_value"][1], 0.25, rounds=99)  # 3 equal differences: 2 of 8 sign patterns as extreme
    assert rows["p_bootstrap"].tolist()[:2] == [1.0, 1 / 100]
    assert all(math.isnan(v) for v in rows["p_bootstrap"][2:])  # below 2 queries, none, NaN
    assert all(math.isnan(rows[name][i]) for name in rows for i in (3, 4))


def test_bootstrap_p_value_kernel_against_all_resamples():
    d = np.array([0.2, -0.1, 0.35, 0.05, 0.1])
    means = exact_bootstrap_means(d)
    exact = float(np.mean(np.abs(means - d.mean()) >= abs(d.mean()) - 1e-12))
    assert within(bootstrap_p_value(d, rounds=ROUNDS, rng=np.random.default_rng(1)), exact)
    assert bootstrap_p_value(d, rounds=500, rng=np.random.default_rng(1)) == bootstrap_p_value(
        d, rounds=500, rng=np.random.default_rng(1))
    assert bootstrap_p_value(np.array([0.5, 0.5]), rounds=9, rng=np.random.default_rng(0)) == 0.1
    assert math.isnan(bootstrap_p_value(np.array([0.5]), rng=np.random.default_rng(0)))


def test_cohens_d_z_by_hand_and_as_scipys_t_over_root_n():
    # mean .5, sd (ddof 1) sqrt(((-.5)**2 + 0 + .5**2 + 0) / 3) = sqrt(1/6): d_z = .5 * sqrt(6) = sqrt(1.5)
    assert effect_size(np.array([0.0, 0.5, 1.0, 0.5])) == pytest.approx(math.sqrt(1.5), rel=1e-15)
    d = np.random.default_rng(2).normal(0.1, 0.3, 25)
    t = scipy_stats.ttest_rel(d, np.zeros(25)).statistic
    assert effect_size(d) == pytest.approx(t / 5, rel=1e-12)
    assert effect_size(d) == pytest.approx(np.mean(d) / np.std(d, ddof=1), rel=1e-15)
    assert math.isnan(effect_size(np.array([0.3])))
    assert effect_size(np.zeros(3)) == 0.0 and effect_size(np.full(3, -0.2)) == -math.inf


def test_compare_shows_d_z_and_the_share_improved_beside_each_delta():
    index = pd.Index(["q1", "q2", "q3", "q4"], name="multilabel_id")
    a = pd.DataFrame({"recall_single_hit": [0.0, 1.0, 0.0, 1.0], "unj@4": [2.0, 1.0, 0.0, 3.0],
                      "NumRet": [10.0, 10.0, 10.0, 10.0]}, index=index)
    b = pd.DataFrame({"recall_single_hit": [1.0, 1.0, 1.0, 0.0], "unj@4": [1.0, 1.0, 2.0, 1.0],
                      "NumRet": [10.0, 8.0, 10.0, 12.0]}, index=index)
    table = evalframe.compare(a, b, rounds=50)
    # recall: d = 1, 0, 1, -1 -> mean .25, sd sqrt((.5625*2 + .0625 + 1.5625) / 3) = sqrt(11/12); 2 of 4 improved
    assert table.loc["recall_single_hit", "d_z"] == pytest.approx(0.25 / math.sqrt(11 / 12), rel=1e-12)
    assert table.loc["recall_single_hit", "improved"] == 0.5
    # unj@4 (lower is better): d = -1, 0, 2, -2: q1 and q4 fell, 2 of 4 improved; d_z is of b - a, as delta
    assert table.loc["unj@4", "improved"] == 0.5
    assert table.loc["unj@4", "d_z"] == pytest.approx(-0.25 / np.std([-1, 0, 2, -2], ddof=1), rel=1e-12)
    assert math.isnan(table.loc["NumRet", "improved"])  # a count has no direction, so no improved query
    assert table.loc["NumRet", "d_z"] == 0.0  # d = 0, -2, 0, 2: mean 0


def test_compare_takes_the_bootstrap_test():
    rng = np.random.default_rng(9)
    index = pd.Index([f"q{i}" for i in range(60)], name="multilabel_id")
    a = pd.DataFrame({"f1": rng.uniform(0, 1, 60)}, index=index)
    b = pd.DataFrame({"f1": np.clip(a["f1"] + rng.normal(0.1, 0.2, 60), 0, 1)}, index=index)
    c = pd.DataFrame({"f1": np.clip(a["f1"] + rng.normal(0.0, 0.2, 60), 0, 1)}, index=index)
    table = evalframe.compare(a, b, c, test="bootstrap", rounds=2000, max_p=0.05, correction="bonferroni")
    assert "p_bootstrap" in table.columns and list(table.columns).index("p_bootstrap") == \
        list(table.columns).index("p_ttest") + 1
    assert table["p_bonferroni"].tolist() == [min(1.0, 2 * p) for p in table["p_bootstrap"]]
    assert table["significant"].tolist() == (table["p_bonferroni"] <= 0.05).tolist()
    # a clear gain: small p-values by the bootstrap test and by scipy's t-test alike
    assert table.loc[("B", "f1"), "p_bootstrap"] < 0.01 and scipy_stats.ttest_rel(b["f1"], a["f1"]).pvalue < 0.01
    # through compare, on 5 queries: within Monte-Carlo error of the exact shift bootstrap over all 5**5 resamples
    small_a = pd.DataFrame({"f1": [0.1, 0.4, 0.3, 0.8, 0.5]}, index=index[:5])
    small_b = pd.DataFrame({"f1": [0.3, 0.3, 0.65, 0.85, 0.6]}, index=index[:5])
    d = (small_b["f1"] - small_a["f1"]).to_numpy()
    means = exact_bootstrap_means(d)
    exact = float(np.mean(np.abs(means - d.mean()) >= abs(d.mean()) - 1e-12))
    assert within(float(evalframe.compare(small_a, small_b, test="bootstrap", rounds=ROUNDS)["p_bootstrap"].iloc[0]),
                  exact)


def test_the_shared_draw_is_made_in_blocks_of_bounded_memory(monkeypatch):
    import tracemalloc

    from evalframe.analysis import resampling

    monkeypatch.setattr(resampling, "_BLOCK", 1 << 14)  # 16,384 numbers a block (128 KB), to measure it small
    rng = np.random.default_rng(6)
    ds = [rng.normal(0, 0.2, 5_000) for _ in range(3)]  # 200 rounds x 5,000 queries: 8 MB per matrix at once
    expected = resample_many(ds, seed=0, rounds=200, confidence=0.95)
    tracemalloc.start()
    try:
        got = resample_many(ds, seed=0, rounds=200, confidence=0.95)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 2 ** 20, f"peak {peak / 2 ** 20:.1f} MB"
    assert all((got[name] == expected[name]).all() for name in got)
