"""The gate's error rates on generated runs whose true difference is known, 200 seeded repetitions each.

Each repetition draws a baseline's per-query values and a candidate's as the baseline plus per-query gains
N(delta, sigma^2), then decides the gate. With no true change a no-drop rule fails in about alpha of the repetitions
(the count lies in the binomial 99% range around alpha, and is neither 0 nor half); with a true drop of the size the
test is sized for (80% power, statsmodels' one-sided TTestPower) it fails about as often as the power says; a margin
rule at a true delta of exactly -margin passes in about alpha of them; and a raw-mean gate (fail when the candidate's
mean is below the baseline's) fails about half the time with no change at all: it flaps.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.power import TTestPower

from evalframe.analysis.gate import decide, rules_of

pytestmark = pytest.mark.stress

REPETITIONS = 200
QUERIES = 50
SIGMA = 0.2
ALPHA = 0.05


def _runs(seed: int, delta: float, n: int = QUERIES) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n)], name="multilabel_id")
    baseline = rng.uniform(0.2, 0.8, n)
    candidate = baseline + rng.normal(delta, SIGMA, n)
    return pd.DataFrame({"mrr": baseline}, index=index), pd.DataFrame({"mrr": candidate}, index=index)


def _binomial_range(rate: float) -> tuple[float, float]:
    low, high = scipy_stats.binom.interval(0.99, REPETITIONS, rate)
    return float(low), float(high)


def _failures(delta: float, **options) -> tuple[int, int]:
    """How many of the repetitions the no-drop gate fails, and how many a raw-mean gate fails, on the same runs."""
    gate = raw = 0
    for seed in range(REPETITIONS):
        baseline, candidate = _runs(seed, delta)
        verdict = decide(baseline, candidate, rules_of(no_drop="mrr"), alpha=ALPHA, **options)
        gate += verdict.exit_code == 1
        raw += float(candidate["mrr"].mean()) < float(baseline["mrr"].mean())
    return gate, raw


@pytest.mark.parametrize("options", [{"test": "t-test"}, {"test": "randomization", "rounds": 2_000}],
                         ids=["t-test", "randomization"])
def test_with_no_change_the_no_drop_gate_fails_about_alpha_and_a_raw_mean_gate_half_the_time(options):
    gate, raw = _failures(0.0, **options)
    low, high = _binomial_range(ALPHA)  # (3, 19) of 200
    assert low <= gate <= high, f"{gate} failures of {REPETITIONS} with no change, expected about {ALPHA:.0%}"
    assert 0 < gate < REPETITIONS / 4
    low, high = _binomial_range(0.5)  # (82, 118) of 200
    assert low <= raw <= high, f"the raw-mean gate failed {raw} of {REPETITIONS}"


def test_a_true_drop_of_the_size_tested_fails_as_often_as_the_power_says():
    effect = TTestPower().solve_power(nobs=QUERIES, alpha=ALPHA, power=0.8, alternative="larger")  # d_z = 0.357
    delta = -effect * SIGMA
    power = TTestPower().power(effect_size=-effect, nobs=QUERIES, alpha=ALPHA, alternative="smaller")
    assert power == pytest.approx(0.8, abs=1e-6)
    gate, raw = _failures(delta)
    low, high = _binomial_range(power)  # (145, 174) of 200: within Monte-Carlo error of 80%
    assert low <= gate <= high, f"{gate} failures of {REPETITIONS} at a true drop of {delta:.4f}, power {power:.3f}"
    assert raw > gate  # the raw-mean gate fails these too, but it fails everything that moves down by chance


def test_a_margin_rule_at_a_true_delta_of_minus_the_margin_passes_about_alpha():
    margin = 0.05
    passes = 0
    for seed in range(REPETITIONS):
        baseline, candidate = _runs(10_000 + seed, -margin)
        verdict = decide(baseline, candidate, rules_of(margin={"mrr": margin}), alpha=ALPHA)
        passes += verdict.exit_code == 0
    low, high = _binomial_range(ALPHA)
    assert low <= passes <= high, f"{passes} passes of {REPETITIONS} at the margin, expected about {ALPHA:.0%}"
    assert passes > 0


def test_a_binary_measure_with_no_change_fails_no_drop_about_alpha():
    # recall_single_hit of two runs that hit each query independently with the same chance: no true change
    failures = 0
    for seed in range(REPETITIONS):
        rng = np.random.default_rng(20_000 + seed)
        chance = rng.uniform(0.3, 0.95, 200)
        index = pd.Index([f"q{i}" for i in range(200)], name="multilabel_id")
        baseline = pd.DataFrame({"recall_single_hit": (rng.random(200) < chance).astype(float)}, index=index)
        candidate = pd.DataFrame({"recall_single_hit": (rng.random(200) < chance).astype(float)}, index=index)
        failures += decide(baseline, candidate, rules_of(no_drop="recall_single_hit")).exit_code == 1
    low, high = _binomial_range(ALPHA)
    assert low <= failures <= high and failures > 0
