"""The paired statistics against closed forms, exact enumeration and (when installed) scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalframe.analysis.stats import bootstrap_ci, holm, paired_t_test, randomization_p_value, student_t_two_sided_p


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("t", [0.1, 0.5, 1.0, 2.0, 7.5, 40.0])
def test_t_tail_equals_the_closed_forms_for_one_two_and_three_degrees_of_freedom(t):
    assert student_t_two_sided_p(t, 1) == pytest.approx(1 - 2 * math.atan(t) / math.pi, rel=1e-13)
    assert student_t_two_sided_p(-t, 2) == pytest.approx(1 - t / math.sqrt(t * t + 2), rel=1e-13)
    u = t / math.sqrt(3)
    assert student_t_two_sided_p(t, 3) == pytest.approx(1 - 2 / math.pi * (math.atan(u) + u / (1 + u * u)), rel=1e-12)


def test_paired_t_test_by_hand():
    # d = [0, .5, 1, .5]: mean .5, sd sqrt(1/6), t = .5 / (sqrt(1/6) / 2) = sqrt(6), df 3
    t, p = paired_t_test(np.array([0.0, 0.5, 1.0, 0.5]))
    assert t == pytest.approx(math.sqrt(6), rel=1e-14)
    u = math.sqrt(2)
    assert p == pytest.approx(1 - 2 / math.pi * (math.atan(u) + u / (1 + u * u)), rel=1e-12)


def test_paired_t_test_edges():
    assert paired_t_test(np.zeros(5)) == (0.0, 1.0)  # identical runs
    assert paired_t_test(np.full(5, 0.5)) == (math.inf, 0.0)  # the same gain on every query
    assert paired_t_test(np.full(5, -0.5)) == (-math.inf, 0.0)
    assert all(math.isnan(v) for v in paired_t_test(np.array([1.0])))


@pytest.mark.parametrize("sizes", [(2, 3, 10, 250, 5000), pytest.param((100_000,), marks=pytest.mark.stress)],
                         ids=["small", "large"])  # the large one under the stress marker, which .ci/run runs in full
def test_paired_t_test_equals_scipy(sizes):
    stats = pytest.importorskip("scipy.stats")
    generator = rng(7)
    for n in sizes:
        for shift in (0.0, 0.01, 0.2):
            a = generator.random(n)
            b = np.clip(a + generator.normal(shift, 0.3, n), 0, 1)
            expected = stats.ttest_rel(b, a)
            t, p = paired_t_test(b - a)
            assert t == pytest.approx(expected.statistic, rel=1e-12)
            assert p == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)


def test_randomization_identical_runs_give_p_one_and_a_clean_sweep_a_tiny_p():
    assert randomization_p_value(np.zeros(100), rng=rng()) == 1.0
    # 30 gains: a sign flip reaches |sum| >= 30 only with all signs equal, 2 in 2**30 -> no round does
    assert randomization_p_value(np.ones(30), rounds=10_000, rng=rng()) == 1 / 10_001
    assert randomization_p_value(np.linspace(0.1, 1, 30), rounds=10_000, rng=rng()) == 1 / 10_001


def exact_sign_flip_p(d):
    observed = abs(d.sum())
    sums = [abs(np.dot(signs, d)) for signs in itertools.product((-1, 1), repeat=len(d))]
    return np.mean(np.array(sums) >= observed - 1e-12)


def test_randomization_matches_exact_enumeration_with_many_distinct_values():
    # 12 distinct magnitudes -> the per-query sign-flip sampler; 4096 sign patterns enumerated exactly
    d = np.array([0.9, -0.2, 0.35, 0.5, -0.05, 0.6, 0.15, -0.4, 0.7, 0.25, -0.1, 0.3])
    exact = exact_sign_flip_p(d)
    estimate = randomization_p_value(d, rounds=20_000, rng=rng(3))
    assert abs(estimate - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)


def test_randomization_matches_the_binomial_law_with_few_distinct_values():
    # 300 queries with d in {-1, 0, 1}: the flipped sum is 2 B - c with B ~ Binomial(c, 1/2), c = nonzero count
    d = np.array([1.0] * 40 + [-1.0] * 25 + [0.0] * 235)
    c, observed = 65, 15
    exact = sum(math.comb(c, k) for k in range(c + 1) if abs(2 * k - c) >= observed) / 2**c
    estimate = randomization_p_value(d, rounds=20_000, rng=rng(4))
    assert abs(estimate - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)


@pytest.mark.parametrize("continuous", [False, True])
def test_bootstrap_interval_matches_the_normal_approximation_on_many_queries(continuous):
    generator = rng(5)
    n = 4000
    d = generator.random(n) - generator.random(n) if continuous else (generator.random(n) < 0.3) - 0.0
    half_width = 1.959964 * d.std(ddof=1) / math.sqrt(n)
    low, high = bootstrap_ci(d, rounds=4000, rng=rng(6))
    assert low == pytest.approx(d.mean() - half_width, abs=0.1 * half_width)
    assert high == pytest.approx(d.mean() + half_width, abs=0.1 * half_width)


def test_bootstrap_edges_and_reproducibility():
    assert bootstrap_ci(np.zeros(10), rng=rng()) == (0.0, 0.0)
    assert all(math.isnan(v) for v in bootstrap_ci(np.zeros(0), rng=rng()))
    d = np.array([0.0, 1.0, 0.5, 1.0, -0.5])
    assert bootstrap_ci(d, rng=rng(1)) == bootstrap_ci(d, rng=rng(1))
    low, high = bootstrap_ci(d, rng=rng(1))
    assert -0.5 <= low < d.mean() < high <= 1.0


def test_holm_by_hand():
    # sorted .01 (x3) .03 (x2) .04 (x1) = .03 .06 .04 -> running max .03 .06 .06
    assert holm(np.array([0.01, 0.04, 0.03])).tolist() == pytest.approx([0.03, 0.06, 0.06])
    adjusted = holm(np.array([0.2, np.nan, 0.9]))  # two tests: .2 x2 = .4, .9 x1 -> max .9
    assert adjusted[0] == pytest.approx(0.4) and np.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.9)
    assert holm(np.array([0.6, 0.7])).tolist() == [1.0, 1.0]


def test_non_finite_differences_give_nan_not_a_confident_number():
    for d in (np.array([np.nan, 1.0, 1.0]), np.array([np.inf, 1.0, 1.0])):
        assert math.isnan(randomization_p_value(d, rng=rng()))
        assert all(math.isnan(v) for v in bootstrap_ci(d, rng=rng()))
        assert all(math.isnan(v) for v in paired_t_test(d))


def test_tiny_t_gives_p_one():
    assert student_t_two_sided_p(1e-200, 5) == 1.0
    assert student_t_two_sided_p(0.0, 5) == 1.0
