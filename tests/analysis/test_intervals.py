"""A confidence interval on every mean (``ci=``): Student's t against scipy, the percentile bootstrap against the exact
bootstrap distribution (enumerated by convolution on small n), the measures
whose number is no mean on their own scale, the bad inputs, and ``ci=None`` unchanged. Memory and Dask:
tests/analysis/test_same_analyses.py ``test_intervals_identical``."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from evalframe import EvaluationResult, load_demo_result
from evalframe.analysis.intervals import Estimate, sample_of, summand_intervals
from evalframe.errors import InvalidParameterError, UnknownArgumentError
from evalframe.options import IntervalOptions

#: A judge's score on the demo's 8 Reader queries: quarters, so the exact bootstrap distribution of their mean is a
#: convolution of integers; several distinct values, so the bootstrap resamples queries (not counts).
JUDGE = [0.0, 0.25, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0]


def judged(values: list[float] = JUDGE) -> EvaluationResult:
    """The demo result with ``values`` as the Reader's declared score ``judge``, one per query."""
    result = load_demo_result()
    queries = result.query_metrics("Reader", with_query=True)["query"].tolist()
    result.add_scores("Reader", pd.DataFrame({"query": queries[:len(values)], "judge": values}))
    return result


def t_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """scipy's t interval of the mean of ``values``."""
    low, high = scipy.stats.t.interval(confidence, len(values) - 1, loc=values.mean(), scale=scipy.stats.sem(values))
    return float(low), float(high)


def exact_bootstrap_cdf(quarters: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The exact bootstrap distribution of the mean of n values k / 4 (``quarters``: the k): the n-fold convolution
    of their empirical distribution; the support (as means) and the CDF."""
    n = len(quarters)
    pmf = np.bincount(quarters) / n
    total = np.array([1.0])
    for _ in range(n):
        total = np.convolve(total, pmf)
    return np.arange(len(total)) / (4 * n), np.cumsum(total)


# ---------------------------------------------------------------------------------------------- Student's t
def test_t_interval_equals_scipys_on_every_metric_of_the_demo():
    result = load_demo_result()
    metrics = result.calculate_metrics(ci=0.9, ci_method="t")
    for node in ("Retriever", "Reader"):
        table = result.query_metrics(node)
        for metric in ("recall_single_hit", "map", "ndcg") if node == "Retriever" else ("exact_match", "f1"):
            values = table[metric].dropna().to_numpy()
            estimate = metrics[node][metric]
            low, high = t_interval(values, 0.9)
            assert (estimate.low, estimate.high) == pytest.approx((low, high), abs=1e-12)
            assert (estimate.n, estimate.confidence, estimate.method) == (len(values), 0.9, "t")


def test_t_interval_by_hand():
    # judge: mean 4.75 / 8 = 0.59375; sum of squares 3.9375 - 8 * 0.59375 ** 2 = 1.1171875, sd sqrt(1.1171875 / 7); t_{0.975, 7}
    estimate = judged().calculate_metrics(ci=0.95, ci_method="t")["Reader"]["judge"]
    half = 2.364624251592785 * math.sqrt(1.1171875 / 7) / math.sqrt(8)
    assert float(estimate) == 0.59375
    assert (estimate.low, estimate.high) == pytest.approx((0.59375 - half, 0.59375 + half), abs=1e-12)


def test_scipy_is_not_imported_for_the_bootstrap_alone():
    # the t quantile is scipy's, imported inside the function (tests/test_startup.py checks import evalframe)
    import evalframe.analysis.intervals as intervals

    assert "scipy" not in vars(intervals)


# ---------------------------------------------------------------------------------------------- the bootstrap
def test_bootstrap_is_seeded():
    result = judged()
    first = result.calculate_metrics(ci=0.95, rounds=2000)["Reader"]["judge"]
    again = result.calculate_metrics(ci=0.95, rounds=2000)["Reader"]["judge"]
    other = [result.calculate_metrics(ci=0.95, rounds=2000, seed=seed)["Reader"]["judge"] for seed in (1, 2, 3)]
    assert (first.low, first.high) == (again.low, again.high)
    assert any((e.low, e.high) != (first.low, first.high) for e in other)
    assert first.method == "bootstrap" and first.n == 8


def test_bootstrap_percentiles_within_monte_carlo_error_of_the_exact_bootstrap():
    estimate = judged().calculate_metrics(ci=0.9)["Reader"]["judge"]  # 10,000 rounds
    support, cdf = exact_bootstrap_cdf([round(4 * v) for v in JUDGE])
    error = 4 * math.sqrt(0.05 * 0.95 / 10_000)  # 4 standard errors of a 5% tail frequency
    for end, tail in ((estimate.low, 0.05), (estimate.high, 0.95)):
        below = float(cdf[support < end - 1e-12][-1]) if (support < end - 1e-12).any() else 0.0
        at_most = float(cdf[support <= end + 1e-12][-1])
        # the end is the tail quantile up to the atoms' jumps: P(mean < end) <= tail <= P(mean <= end), give or take
        assert below <= tail + error and at_most >= tail - error, (end, tail, below, at_most)


def test_bootstrap_many_values_share_one_draw_and_match_scipys_percentile_bootstrap():
    rng = np.random.default_rng(7)
    values = rng.random(64)  # many distinct values: resampled by indices
    other = rng.random(64) ** 2
    together = summand_intervals({"a": sample_of(values), "b": sample_of(other)}, IntervalOptions(ci=0.95))
    alone = summand_intervals({"a": sample_of(values)}, IntervalOptions(ci=0.95))
    assert together["a"] == alone["a"]  # a metric's interval does not depend on what else is computed
    reference = scipy.stats.bootstrap((values,), np.mean, confidence_level=0.95, n_resamples=10_000,
                                      method="percentile", random_state=np.random.default_rng(1)).confidence_interval
    # a 2.5% quantile of 10,000 resampled means has a Monte-Carlo sd of sqrt(0.025 * 0.975 / 10_000) / phi(1.96) = 0.027
    # standard errors of the mean; two independent estimates differ by 0.038 of them: 4 sd is 0.15
    se = values.std(ddof=1) / 8
    assert together["a"][:2] == pytest.approx((reference.low, reference.high), abs=0.15 * se)


@pytest.mark.stress
def test_bootstrap_quantiles_within_monte_carlo_error_over_seeds():
    support, cdf = exact_bootstrap_cdf([round(4 * v) for v in JUDGE])
    error = 4 * math.sqrt(0.025 * 0.975 / 10_000)
    result = judged()
    for seed in range(30):
        estimate = result.calculate_metrics(ci=0.95, seed=seed)["Reader"]["judge"]
        for end, tail in ((estimate.low, 0.025), (estimate.high, 0.975)):
            below = float(cdf[support < end - 1e-12][-1]) if (support < end - 1e-12).any() else 0.0
            assert below <= tail + error and float(cdf[support <= end + 1e-12][-1]) >= tail - error


def test_bootstrap_of_a_query_order_is_the_same():
    shuffled = judged(JUDGE[::-1]).calculate_metrics(ci=0.95, rounds=500)["Reader"]["judge"]
    estimate = judged().calculate_metrics(ci=0.95, rounds=500)["Reader"]["judge"]
    assert (shuffled.low, shuffled.high) == (estimate.low, estimate.high)


# ---------------------------------------------------------------------------------------------- edges and scales
def test_fewer_than_two_values_give_nan_bounds_and_equal_values_a_point():
    result = judged([0.5])
    one = result.calculate_metrics(ci=0.95)["Reader"]["judge"]
    assert float(one) == 0.5 and one.n == 1 and math.isnan(one.low) and math.isnan(one.high)
    same = judged([0.5, 0.5, 0.5]).calculate_metrics(ci=0.95, ci_method="t")["Reader"]["judge"]
    assert (same.low, same.high, same.n) == (0.5, 0.5, 3)


RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 3.0, "d5": 2.0}, "q3": {"d6": 1.0, "d7": 0.5},
       "q4": {"d8": 2.0, "d9": 1.0, "d10": 0.5}}
QRELS = {"q1": {"d1": 1}, "q2": {"d5": 1}, "q3": {"d7": 1, "d6": 0}, "q4": {"d10": 1, "x": 1}}


def test_sum_and_geometric_mean_on_their_own_scale():
    result = EvaluationResult.from_trec(RUN, QRELS, progress=False)
    found = result.trec_metrics(["num_ret", "gm_map", "AP"], ci=0.95, ci_method="t")
    per_query = result.trec_query_metrics(["num_ret", "AP"])
    retrieved = per_query["NumRet"].to_numpy()  # 3, 2, 2, 3 documents
    low, high = t_interval(retrieved, 0.95)
    assert float(found["NumRet"]) == 10.0
    assert (found["NumRet"].low, found["NumRet"].high) == pytest.approx((4 * low, 4 * high), abs=1e-12)
    logs = np.log(np.maximum(per_query["AP"].to_numpy(), 1e-5))  # trec_eval's floor of gm_map
    low, high = t_interval(logs, 0.95)
    assert (found["gm_map"].low, found["gm_map"].high) == pytest.approx((math.exp(low), math.exp(high)), rel=1e-12)
    assert float(found["gm_map"]) == pytest.approx(math.exp(logs.mean()), rel=1e-12)
    assert found["gm_map"].low < float(found["gm_map"]) < found["gm_map"].high


def test_estimate_is_a_float_that_prints_its_interval():
    estimate = Estimate(0.625, 0.41, 0.83, 8, 0.95, "bootstrap")
    assert repr(estimate) == str(estimate) == "0.625 [0.41, 0.83]"
    assert float(estimate) == estimate.mean == 0.625 and estimate * 2 == 1.25 and f"{estimate:.1f}" == "0.6"
    assert pickle.loads(pickle.dumps(estimate)).low == 0.41
    with pytest.raises(AttributeError, match="immutable"):
        estimate.high = 1.0


# ---------------------------------------------------------------------------------------------- shapes
def test_ci_none_is_unchanged():
    result = load_demo_result()
    plain = result.calculate_metrics()
    assert all(type(v) is float for values in plain.values() for v in values.values())
    with_ci = result.calculate_metrics(ci=0.95)
    assert {n: {m: float(v) for m, v in values.items()} for n, values in with_ci.items()} == plain
    assert type(with_ci["Reader"]["num_examples_for_eval"]) is float  # a count, no interval
    frame = result.metrics_frame()
    assert not any(str(c).endswith(("_ci_low", "_ci_high")) for c in frame.columns) and "ci" not in frame.attrs


def test_metrics_frame_adds_the_bounds_after_each_metric():
    frame = judged().metrics_frame(ci=0.95, ci_method="t")
    half = 2.364624251592785 * math.sqrt(1.1171875 / 7) / math.sqrt(8)
    row = frame.loc["Reader"]
    assert list(frame.columns[frame.columns.str.startswith("judge")]) == ["judge", "judge_ci_low", "judge_ci_high"]
    assert (row["judge"], row["judge_ci_low"], row["judge_ci_high"]) == pytest.approx(
        (0.59375, 0.59375 - half, 0.59375 + half), abs=1e-12)
    assert math.isnan(frame.loc["Retriever", "exact_match_ci_low"])
    assert frame.attrs["ci"] == {"confidence": 0.95, "method": "t", "seed": 0, "rounds": 10_000}


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("options", "error", "message"), [
    ({"ci": 1.5}, InvalidParameterError, r"ci must lie strictly between 0 and 1 .*got 1.5"),
    ({"ci": 95}, InvalidParameterError, r"ci must lie strictly between 0 and 1 \(the coverage, e.g. 0.95 for 95%\)"),
    ({"ci": "x"}, InvalidParameterError, r"ci must be a number; got 'x'"),
    ({"ci": 0.95, "ci_method": "z"}, InvalidParameterError, r"ci_method must be one of \['bootstrap', 't'\]; got 'z'"),
    ({"ci": 0.95, "rounds": 0}, InvalidParameterError, r"rounds must be an int >= 1"),
    ({"ci": 0.95, "ci_level": 2}, UnknownArgumentError, r"unknown argument\(s\) \['ci_level'\]"),
])
def test_bad_interval_options_are_named(options, error, message):
    result = load_demo_result()
    with pytest.raises(error, match=message):
        result.calculate_metrics(**options)
    with pytest.raises(error, match=message):
        result.metrics_frame(**options)
    if "ci_level" not in options:
        with pytest.raises(error, match=message):
            EvaluationResult.from_trec(RUN, QRELS, progress=False).trec_metrics(["AP"], **options)
