"""evalframe.power (issue 37): the paired t-test's power, minimum detectable effect and queries needed, against
statsmodels' TTestPower, the noncentral t's definition (integrated), G*Power's published table, and simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy import stats as scipy_stats
from statsmodels.stats.power import TTestPower

import evalframe
from evalframe import EvaluationResult, InvalidParameterError, load_demo_result
from evalframe.analysis.power import detectable_effect, queries_for, t_test_power

GRID = [(n, alpha, power) for n in (2, 3, 5, 12, 40, 200, 3000) for alpha in (0.01, 0.05, 0.1)
        for power in (0.5, 0.8, 0.95)]
#: The normal suite's share of GRID (statsmodels' solver takes ~15 ms a call): small n included; GRID runs in stress.
SMALL_GRID = [(2, 0.05, 0.8), (3, 0.01, 0.95), (5, 0.05, 0.5), (12, 0.1, 0.8), (40, 0.05, 0.8), (3000, 0.01, 0.9)]


def statsmodels_power(effect: float, n: float, alpha: float) -> float:
    return float(TTestPower().power(effect, n, alpha))


def power_by_definition(effect: float, n: int, alpha: float) -> float:
    """P(|T| > t_{1-alpha/2}) with T = (Z + d sqrt(n)) / sqrt(V / (n - 1)), Z normal, V chi-square with n - 1 df:
    integrated over V, no noncentral t of scipy's involved."""
    df = n - 1
    critical = scipy_stats.t.isf(alpha / 2, df)
    shift = effect * math.sqrt(n)

    def given(v: float) -> float:
        bound = critical * math.sqrt(v / df)
        return (scipy_stats.norm.sf(bound - shift) + scipy_stats.norm.cdf(-bound - shift)) * scipy_stats.chi2.pdf(v, df)

    return float(integrate.quad(given, 0, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)[0])


def reference_power(effect: float, n: int, alpha: float) -> float:
    """statsmodels' power, or where it is NaN (scipy's nct.cdf far in the lower tail) the definition integrated."""
    power = statsmodels_power(effect, n, alpha)
    return power_by_definition(effect, n, alpha) if math.isnan(power) else power


def test_power_equals_statsmodels():
    checked = 0
    for n, alpha in dict.fromkeys((n, alpha) for n, alpha, _ in GRID):
        for effect in (0.0, 0.05, 0.3, 1.0, 2.5, 6.0):
            expected = statsmodels_power(effect, n, alpha)
            if math.isnan(expected):  # statsmodels' nct.cdf is NaN far in the lower tail (df 1): ours is not
                continue
            assert t_test_power(effect, n, alpha) == pytest.approx(expected, rel=1e-12, abs=1e-15), (effect, n, alpha)
            checked += 1
    assert checked > 100
    assert t_test_power(-0.3, 12, 0.05) == t_test_power(0.3, 12, 0.05)  # two-sided


def test_power_by_the_definition():
    # the noncentral t integrated by hand, for df 1 (where scipy's nct.cdf is NaN), 4 and 29
    for effect, n, alpha in ((5.0, 2, 0.05), (1.2, 5, 0.05), (0.4, 30, 0.01)):
        assert t_test_power(effect, n, alpha) == pytest.approx(power_by_definition(effect, n, alpha), abs=1e-10)
    assert t_test_power(0.0, 10, 0.05) == pytest.approx(0.05, abs=1e-15)  # no change: rejected at the level


@pytest.mark.parametrize("grid", [pytest.param(SMALL_GRID, id="small"),
                                  pytest.param(GRID, id="full", marks=pytest.mark.stress)])
def test_detectable_effect_reaches_the_power_and_equals_statsmodels_solve(grid):
    for n, alpha, power in grid:
        effect = detectable_effect(n, alpha, power)
        # exact: statsmodels' own power function at our root is the asked power (where it is NaN, df 1 far in the
        # lower tail, the definition integrated)
        reached = statsmodels_power(effect, n, alpha)
        if math.isnan(reached):
            assert power_by_definition(effect, n, alpha) == pytest.approx(power, abs=1e-9), (n, alpha, power)
            continue
        assert reached == pytest.approx(power, abs=1e-12), (n, alpha, power)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # statsmodels' convergence notes on 2 or 3 queries
            solver = TTestPower()
            solved = solver.solve_power(nobs=n, alpha=alpha, power=power)
            converged = solver.cache_fit_res[0] == 1
        if n >= 5 and converged:  # its solver's tolerance (on 2-3 queries it may stop at a bracket's bound)
            assert effect == pytest.approx(solved, rel=1e-4), (n, alpha, power)


@pytest.mark.parametrize("levels, effects", [
    pytest.param([(0.05, 0.8), (0.01, 0.95)], (0.1, 0.8, 2.0), id="small"),
    pytest.param([(a, p) for a in (0.01, 0.05, 0.1) for p in (0.5, 0.8, 0.95)], (0.1, 0.35, 0.8, 2.0, 3.0), id="full",
                 marks=pytest.mark.stress)])
def test_queries_for_is_statsmodels_nobs_rounded_up_and_gpower_table(levels, effects):
    for alpha, power in levels:
        for effect in effects:
            needed = queries_for(effect, alpha, power)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                solved = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power)
            assert needed == max(2.0, math.ceil(solved)), (effect, alpha, power)
            assert reference_power(effect, needed, alpha) >= power
            if needed > 2:
                assert reference_power(effect, needed - 1, alpha) < power
    # G*Power 3, "t tests - means: difference from constant", two-tailed, alpha 0.05, power 0.8: 199, 34, 15 pairs
    assert [queries_for(d, 0.05, 0.8) for d in (0.2, 0.5, 0.8)] == [199.0, 34.0, 15.0]
    assert queries_for(1e-7, 0.05, 0.8) == math.inf  # beyond 10^12 queries


def demo_pilot() -> tuple[pd.DataFrame, pd.DataFrame]:
    result = load_demo_result()
    return (result.query_metrics("Retriever", simulated_top_k_retriever=1),
            result.query_metrics("Retriever", simulated_top_k_retriever=5))


def test_power_of_two_runs_by_hand():
    top1, top5 = demo_pilot()
    table = evalframe.power(top1, top5, metrics=["recall_single_hit", "mrr"], effect=0.25)
    # recall_single_hit: 2 of the 8 queries gain 1, 6 do not move: the sd is sqrt((2 * 0.75^2 + 6 * 0.25^2) / 7)
    row = table.loc["recall_single_hit"]
    assert row["pilot_queries"] == 8 and row["queries"] == 8
    assert row["sd"] == pytest.approx(math.sqrt(1.5 / 7), rel=1e-14)
    assert statsmodels_power(row["mde"] / row["sd"], 8, 0.05) == pytest.approx(0.8, abs=1e-12)
    assert row["power_at_effect"] == pytest.approx(statsmodels_power(0.25 / row["sd"], 8, 0.05), rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nobs = TTestPower().solve_power(effect_size=0.25 / row["sd"], alpha=0.05, power=0.8)
    assert row["queries_needed"] == math.ceil(nobs) == 29
    d = (top5["mrr"] - top1["mrr"]).to_numpy()
    assert table.loc["mrr", "sd"] == pytest.approx(np.std(d, ddof=1), rel=1e-14)
    assert list(table.columns) == ["pilot_queries", "sd", "queries", "mde", "effect", "power_at_effect",
                                   "queries_needed", "note"]
    assert table.attrs["alpha"] == 0.05 and table.attrs["power"] == 0.8


def test_power_plans_for_other_queries_and_effects_per_measure():
    top1, top5 = demo_pilot()
    table = evalframe.power(top1, top5, metrics=["recall_single_hit", "mrr"], queries=200, alpha=0.01, power=0.9,
                            effect={"mrr": 0.05})
    sd = table["sd"]
    assert (table["queries"] == 200).all() and (table["pilot_queries"] == 8).all()
    for metric in ("recall_single_hit", "mrr"):
        assert statsmodels_power(table.loc[metric, "mde"] / sd[metric], 200, 0.01) == pytest.approx(0.9, abs=1e-12)
    assert math.isnan(table.loc["recall_single_hit", "effect"])
    assert table.loc["mrr", "power_at_effect"] == pytest.approx(statsmodels_power(0.05 / sd["mrr"], 200, 0.01),
                                                                rel=1e-12)


def test_power_of_given_differences():
    d = pd.Series([0.0, 0.5, 1.0], name="gain")  # sd 0.5 exactly
    table = evalframe.power(d, effect=0.5)
    assert table.index.tolist() == ["gain"]
    assert table.loc["gain", "sd"] == 0.5
    assert table.loc["gain", "mde"] == pytest.approx(0.5 * detectable_effect(3, 0.05, 0.8), rel=1e-14)
    assert table.loc["gain", "queries_needed"] == 10  # effect 0.5 / sd 0.5: d_z 1, G*Power's 10 pairs
    assert evalframe.power([0.1, 0.3]).index.tolist() == ["difference"]


def test_power_nan_with_a_reason():
    top1, _ = demo_pilot()
    same = evalframe.power(top1, top1, metrics="mrr", effect=0.1)  # every difference 0
    assert math.isnan(same.loc["mrr", "mde"]) and math.isnan(same.loc["mrr", "queries_needed"])
    assert same.loc["mrr", "sd"] == 0.0 and "difference is 0: sd 0" in same.loc["mrr", "note"]
    one = evalframe.power(np.array([0.4]))
    assert math.isnan(one.iloc[0]["sd"]) and "needs 2 or more" in one.iloc[0]["note"]


def test_power_pairs_queries_as_compare_and_warns_of_unpaired():
    top1, top5 = demo_pilot()
    with pytest.warns(UserWarning, match="1 queries scored only in run a"):
        table = evalframe.power(top1, top5.iloc[1:], metrics="mrr")
    compared = evalframe.compare(top1.iloc[1:], top5.iloc[1:], metrics="mrr", rounds=10)
    assert table.loc["mrr", "pilot_queries"] == compared.loc["mrr", "queries"] == 7


def test_power_on_trec_runs_and_judge_scores():
    qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1, "d5": 1}, "q4": {"d6": 1}}
    run_a = {"q1": {"d1": 3.0, "d9": 2.0, "d2": 1.0}, "q2": {"d9": 2.0, "d3": 1.0}, "q3": {"d4": 2.0, "d8": 1.0},
             "q4": {"d7": 1.0}}
    run_b = {"q1": {"d2": 3.0, "d1": 2.0}, "q2": {"d3": 2.0}, "q3": {"d8": 2.0, "d5": 1.0}, "q4": {"d6": 1.0}}
    a, b = (EvaluationResult.from_trec(run, qrels, progress=False) for run in (run_a, run_b))
    table = evalframe.power(a, b, metrics=["nDCG@10", "AP"])
    compared = evalframe.compare(a, b, metrics=["nDCG@10", "AP"], rounds=10)
    for metric in ("nDCG@10", "AP"):  # the sd from compare's t statistic: t = delta / (sd / sqrt(n))
        assert table.loc[metric, "sd"] == pytest.approx(
            compared.loc[metric, "delta"] * 2 / compared.loc[metric, "t"], rel=1e-12)
    # judge scores: a declared score's per-query values
    result = load_demo_result()
    ids = result.query_metrics("Reader").index
    scores = pd.DataFrame({"multilabel_id": ids, "faithfulness": np.linspace(0.2, 0.9, len(ids))})
    later = pd.DataFrame({"multilabel_id": ids, "faithfulness": np.linspace(0.2, 0.9, len(ids)) ** 0.5})
    result.add_scores("Reader", scores)
    second = load_demo_result()
    second.add_scores("Reader", later)
    judged = evalframe.power(result, second, node="Reader", metrics="faithfulness")
    d = np.linspace(0.2, 0.9, len(ids)) ** 0.5 - np.linspace(0.2, 0.9, len(ids))
    assert judged.loc["faithfulness", "sd"] == pytest.approx(np.std(d, ddof=1), rel=1e-12)


@pytest.mark.parametrize("keywords, match", [
    ({"power": 1.5}, r"power must be a probability in \(alpha, 1\)"),
    ({"power": 0.05}, r"power must be .* at or below alpha"),
    ({"alpha": 0}, r"alpha must be a significance level in \(0, 1\)"),
    ({"alpha": True}, r"alpha must be"),
    ({"effect": -0.1}, r"effect must be a finite number > 0"),
    ({"effect": 0}, r"effect must be a finite number > 0"),
    ({"effect": {"mrr": 0.0}}, r"effect\['mrr'\] must be a finite number > 0"),
    ({"effect": {"mmr": 0.1}}, r"effect names \['mmr'\].*Did you mean 'mrr'"),
    ({"queries": 1}, r"queries must be a whole number of queries >= 2"),
    ({"queries": 20.5}, r"queries must be a whole number"),
])
def test_bad_arguments_named(keywords, match):
    top1, top5 = demo_pilot()
    with pytest.raises(InvalidParameterError, match=match) as caught:
        evalframe.power(top1, top5, metrics="mrr", **keywords)
    assert caught.value.parameter == next(iter(keywords))


def test_bad_differences_named():
    with pytest.raises(InvalidParameterError, match=r"position 1 is nan"):
        evalframe.power([0.1, float("nan"), 0.2])
    with pytest.raises(InvalidParameterError, match=r"with b omitted, a must be the per-query differences"):
        evalframe.power({"q1": 0.1})
    with pytest.raises(InvalidParameterError, match=r"\['metrics'\]: the differences are given"):
        evalframe.power([0.1, 0.2], metrics="mrr")
    with pytest.raises(InvalidParameterError, match=r"b is needed: a is a run \(DataFrame\)"):
        evalframe.power(demo_pilot()[0])
    with pytest.raises(InvalidParameterError, match=r"run b must be an EvaluationResult"):
        evalframe.power(demo_pilot()[0], [0.1, 0.2])


@pytest.mark.stress
@pytest.mark.parametrize("n, alpha, power", [(2, 0.05, 0.8), (5, 0.05, 0.8), (12, 0.01, 0.9), (30, 0.05, 0.5),
                                             (200, 0.05, 0.8)])
def test_simulated_rejection_rate_is_the_power(n, alpha, power):
    # normal differences whose true mean is the mde: the paired t-test rejects at the nominal power's rate
    rounds, sd = 40_000, 0.3
    rng = np.random.default_rng(n)
    mde = evalframe.power(rng.normal(0.0, sd, 50), queries=n, alpha=alpha, power=power)
    mde_at = mde["mde"].item() / mde["sd"].item() * sd
    d = rng.normal(mde_at, sd, size=(rounds, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    rate = float(np.mean(np.abs(t) > scipy_stats.t.isf(alpha / 2, n - 1)))
    assert abs(rate - power) < 4 * math.sqrt(power * (1 - power) / rounds), (rate, power)
    # and the queries needed for (a hair above) that change are n
    assert queries_for(mde_at / sd * (1 + 1e-9), alpha, power) == max(n, 2)
