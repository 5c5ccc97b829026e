"""The gate's rules decided on per-query tables: hand-worked numbers, scipy's one-sided t-tests and t quantiles as the
references, every status of every rule kind, and the refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from evalframe import score_measure
from evalframe.analysis.gate import (GATE_TESTS, RULE_KINDS, WORST_COLUMNS, QuestionSets, Rule, Verdict, decide,
                                     queries_needed, rules_of)
from evalframe.analysis.protocol import QueryTable
from evalframe.analysis.stats import randomization_p_value_below, student_t_below
from evalframe.errors import InvalidParameterError

BASE = [1.0, 0.5, 1.0, 0.5, 1.0, 0.25, 0.75, 1.0]
CAND = [0.5, 0.5, 0.75, 0.25, 1.0, 0.25, 0.5, 1.0]  # gains -0.5, 0, -0.25, -0.25, 0, 0, -0.25, 0


def _index(n: int, prefix: str = "q") -> pd.Index:
    return pd.Index([f"{prefix}{i}" for i in range(n)], name="multilabel_id")


def _table(**columns: list[float]) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=_index(n))


def _one(verdict: Verdict, kind: str, measure: str | None = None):
    found = [o for o in verdict.outcomes if o.rule.kind == kind and (measure is None or o.rule.measure == measure)]
    assert len(found) == 1
    return found[0]


# --- the statistics' helpers against scipy and enumeration ---------------------------------------------------------

@pytest.mark.parametrize("df", [1, 2, 5, 30, 400])
@pytest.mark.parametrize("t", [-40.0, -3.0, -1.0, -0.2, 0.0, 0.3, 1.7, 6.0])
def test_student_t_below_is_scipys_t_cdf(t, df):
    assert student_t_below(t, df) == pytest.approx(float(scipy_stats.t.cdf(t, df)), rel=1e-10, abs=1e-15)


def test_sign_flip_test_below_against_all_sign_patterns():
    d = np.array([-0.5, -0.25, 0.125, -0.75, 0.0, -0.25, 0.5, -1.0, -0.125, 0.25])
    patterns = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    exact = float(np.mean(patterns @ d <= d.sum() + 1e-12))  # the share of the 1024 patterns as low as observed
    estimate = randomization_p_value_below(d, rounds=40_000, rng=np.random.default_rng(3))
    assert estimate == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 40_000))
    assert randomization_p_value_below(np.zeros(4), rng=np.random.default_rng(0)) == 1.0
    assert math.isnan(randomization_p_value_below(np.array([]), rng=np.random.default_rng(0)))


def test_queries_needed_is_the_smallest_n_with_one_over_two_to_the_n_at_most_alpha():
    assert [queries_needed(a) for a in (0.5, 0.25, 0.1, 0.05, 0.03125, 0.01, 0.001)] == [1, 2, 4, 5, 5, 7, 10]


# --- no-drop --------------------------------------------------------------------------------------------------------

def test_no_drop_t_test_is_scipys_one_sided_paired_t_test_and_its_bounds_t_ppf():
    verdict = decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(no_drop="mrr"))
    outcome = _one(verdict, "no-drop")
    reference = scipy_stats.ttest_rel(CAND, BASE, alternative="less")
    assert outcome.p_value == pytest.approx(reference.pvalue, rel=1e-10)
    assert outcome.p_adjusted == outcome.p_value  # one no-drop rule: nothing to correct
    # gains: mean -1.25 / 8 = -0.15625; sd by hand: sum of squares 0.4375 - 8 * 0.15625^2 = 0.2421875, / 7
    mean, sd = -0.15625, math.sqrt(0.2421875 / 7)
    half = scipy_stats.t.ppf(0.95, 7) * sd / math.sqrt(8)
    assert (outcome.low, outcome.high) == pytest.approx((mean - half, mean + half), rel=1e-12)
    assert (outcome.baseline, outcome.candidate, outcome.delta) == pytest.approx((0.75, 0.59375, -0.15625))
    assert outcome.queries == 8 and outcome.direction == "higher"
    assert outcome.status == "fail" and reference.pvalue < 0.05  # t = -2.376: p 0.0246
    assert outcome.reason == "delta -0.1562 is below 0: p 0.0246 <= alpha 0.05 (one no-drop rule)"
    assert (verdict.status, verdict.exit_code, verdict.passed) == ("fail", 1, False)


def test_no_drop_passes_when_the_drop_is_not_significant_at_alpha():
    verdict = decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(no_drop="mrr"), alpha=0.01)
    outcome = _one(verdict, "no-drop")
    assert outcome.status == "pass"
    assert outcome.reason.startswith("delta -0.1562 is not significantly below 0: p 0.0246 > alpha 0.01")
    assert (verdict.status, verdict.exit_code, verdict.passed) == ("pass", 0, True)
    half = scipy_stats.t.ppf(0.99, 7) * math.sqrt(0.2421875 / 7) / math.sqrt(8)
    assert outcome.low == pytest.approx(-0.15625 - half, rel=1e-12)


def test_an_improvement_passes_no_drop_with_p_near_one():
    verdict = decide(_table(mrr=CAND), _table(mrr=BASE), rules_of(no_drop="mrr"))
    outcome = _one(verdict, "no-drop")
    assert outcome.status == "pass"
    assert outcome.p_value == pytest.approx(scipy_stats.ttest_rel(BASE, CAND, alternative="less").pvalue, rel=1e-10)
    assert outcome.p_value > 0.95


def test_holm_over_the_no_drop_rules_by_hand():
    base = _table(mrr=BASE, ndcg=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    cand = _table(mrr=CAND, ndcg=[0.85, 0.85, 0.6, 0.6, 0.45, 0.45, 0.3, 0.1])
    p_mrr = scipy_stats.ttest_rel(CAND, BASE, alternative="less").pvalue
    p_ndcg = scipy_stats.ttest_rel(cand["ndcg"], base["ndcg"], alternative="less").pvalue
    assert p_mrr < p_ndcg
    verdict = decide(base, cand, rules_of(no_drop=["mrr", "ndcg"]))
    mrr, ndcg = _one(verdict, "no-drop", "mrr"), _one(verdict, "no-drop", "ndcg")
    # Holm: the smaller p times 2, the larger times 1, kept non-decreasing
    assert mrr.p_adjusted == pytest.approx(min(1.0, 2 * p_mrr), rel=1e-10)
    assert ndcg.p_adjusted == pytest.approx(max(2 * p_mrr, p_ndcg), rel=1e-10)
    assert mrr.p_adjusted == pytest.approx(0.0492, abs=1e-4) and mrr.status == "fail"  # 2 * 0.0246 <= 0.05
    assert "Holm over 2 measures" in mrr.reason and "adjusted 0.0492" in mrr.reason
    # at alpha 0.04 the correction decides: uncorrected 0.0246 fails, Holm's 0.0492 passes
    holm = decide(base, cand, rules_of(no_drop=["mrr", "ndcg"]), alpha=0.04)
    none = decide(base, cand, rules_of(no_drop=["mrr", "ndcg"]), correction="none", alpha=0.04)
    assert _one(holm, "no-drop", "mrr").status == "pass"
    assert _one(none, "no-drop", "mrr").p_adjusted == pytest.approx(p_mrr, rel=1e-10)
    assert _one(none, "no-drop", "mrr").status == "fail"
    bonferroni = decide(base, cand, rules_of(no_drop=["mrr", "ndcg"]), correction="bonferroni")
    assert _one(bonferroni, "no-drop", "ndcg").p_adjusted == pytest.approx(min(1.0, 2 * p_ndcg), rel=1e-10)


def test_a_lower_is_better_judge_score_fails_no_drop_when_it_rises():
    latency = {"latency": score_measure("latency", direction="lower")}
    base = [10.0, 12.0, 9.0, 11.0, 10.0, 13.0]
    cand = [11.0, 13.5, 9.5, 11.0, 12.0, 13.5]
    verdict = decide(QueryTable(_table(latency=base), latency), QueryTable(_table(latency=cand), latency),
                     rules_of(no_drop="latency"))
    outcome = _one(verdict, "no-drop")
    assert outcome.direction == "lower"
    assert outcome.p_value == pytest.approx(scipy_stats.ttest_rel(cand, base, alternative="greater").pvalue, rel=1e-10)
    assert outcome.status == "fail" and "above 0 (lower is better)" in outcome.reason
    d = np.subtract(cand, base)
    half = scipy_stats.t.ppf(0.95, 5) * d.std(ddof=1) / math.sqrt(6)
    assert (outcome.low, outcome.high) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-12)
    # the same fall passes
    fall = decide(QueryTable(_table(latency=cand), latency), QueryTable(_table(latency=base), latency),
                  rules_of(no_drop="latency"))
    assert _one(fall, "no-drop").status == "pass"


def test_a_registry_measure_where_lower_is_better_reads_its_direction_from_the_registry():
    base, cand = _table(**{"unj@10": [0.1, 0.2, 0.1, 0.3]}), _table(**{"unj@10": [0.3, 0.4, 0.3, 0.5]})
    outcome = _one(decide(base, cand, rules_of(no_drop="unj@10")), "no-drop")
    assert outcome.direction == "lower" and outcome.status == "fail"  # every query rose by 0.2: sd 0, p 0


def test_sd_zero_every_gain_equal():
    base = _table(mrr=[0.5, 0.75, 1.0, 0.25])
    drop = decide(base, base - 0.25, rules_of(no_drop="mrr"))
    outcome = _one(drop, "no-drop")
    assert (outcome.p_value, outcome.status, outcome.low, outcome.high) == (0.0, "fail", -0.25, -0.25)
    assert "every query's gain is the same" in outcome.reason
    gain = _one(decide(base, base + 0.25, rules_of(no_drop="mrr")), "no-drop")
    assert (gain.p_value, gain.status) == (1.0, "pass")
    same = _one(decide(base, base, rules_of(no_drop="mrr", margin={"mrr": 0.0})), "no-drop")
    assert (same.p_value, same.status, same.delta) == (1.0, "pass", 0.0)
    margin = _one(decide(base, base - 0.25, rules_of(margin={"mrr": 0.3})), "margin")
    assert (margin.status, margin.p_value) == ("pass", 0.0)
    not_within = _one(decide(base, base - 0.25, rules_of(margin={"mrr": 0.25})), "margin")
    assert not_within.status == "fail"  # exactly at -m: not shown above it


def test_fewer_than_two_paired_queries_is_undecided():
    base = _table(mrr=[1.0, np.nan, 0.5])
    cand = _table(mrr=[0.5, 1.0, np.nan])  # q0 only is scored by both
    verdict = decide(base, cand, rules_of(no_drop="mrr", margin={"mrr": 0.1}))
    for kind in ("no-drop", "margin"):
        outcome = _one(verdict, kind)
        assert outcome.status == "undecided" and outcome.queries == 1
        assert "too few queries" in outcome.reason and "at least 2 are needed" in outcome.reason
        assert math.isnan(outcome.p_value)
    assert (verdict.status, verdict.exit_code) == ("undecided", 2)


# --- randomization ---------------------------------------------------------------------------------------------------

def test_randomization_too_few_queries_for_alpha_is_undecided():
    base = _table(mrr=[1.0, 1.0, 1.0, 1.0])
    verdict = decide(base, base.sub([0.5, 0.25, 0.5, 0.75], axis=0), rules_of(no_drop="mrr"), test="randomization")
    outcome = _one(verdict, "no-drop")
    assert outcome.status == "undecided" and verdict.exit_code == 2
    assert "too few queries for --no-drop mrr at alpha 0.05: 4 paired, at least 5 are needed" in outcome.reason
    # at alpha 0.1, 4 queries suffice: 1/16 <= 0.1
    assert _one(decide(base, base.sub([0.5, 0.25, 0.5, 0.75], axis=0), rules_of(no_drop="mrr"), test="randomization",
                       alpha=0.1), "no-drop").status == "fail"


def test_randomization_no_drop_p_against_the_exact_sign_flip_test():
    base = _table(mrr=[1.0] * 5)
    verdict = decide(base, base.sub([0.5, 0.25, 0.5, 0.75, 0.25], axis=0), rules_of(no_drop="mrr"), test="randomization",
                     rounds=20_000, seed=1)
    outcome = _one(verdict, "no-drop")
    # all 5 gains negative: only the observed pattern is as low, exactly 1/32 = 0.03125
    assert outcome.p_value == pytest.approx(1 / 32, abs=4 * math.sqrt(1 / 32 * 31 / 32 / 20_000))
    assert outcome.status == "fail" and "p-values of the sign-flip test (20,000 rounds, seed 1)" in verdict.confidence_note
    again = decide(base, base.sub([0.5, 0.25, 0.5, 0.75, 0.25], axis=0), rules_of(no_drop="mrr"), test="randomization",
                   rounds=20_000, seed=1)
    assert _one(again, "no-drop").p_value == outcome.p_value  # seeded


def test_randomization_margin_flips_the_shifted_gains():
    base = pd.DataFrame({"mrr": [1.0] * 8}, index=_index(8))
    cand = base.sub([0.1, 0.0, 0.2, 0.0, 0.1, 0.0, 0.0, 0.1], axis=0)
    g = -np.array([0.1, 0.0, 0.2, 0.0, 0.1, 0.0, 0.0, 0.1]) + 0.25  # gains + margin: all > 0, exact p 1/256
    outcome = _one(decide(base, cand, rules_of(margin={"mrr": 0.25}), test="randomization"), "margin")
    assert (g > 0).all()
    assert outcome.p_value == pytest.approx(1 / 256, abs=4 * math.sqrt(1 / 256 / 10_000) + 1e-4)
    assert outcome.status == "pass"


# --- margin ------------------------------------------------------------------------------------------------------------

def test_margin_pass_and_fail_at_the_one_sided_lower_bound():
    d = np.subtract(CAND, BASE)
    lower = d.mean() - scipy_stats.t.ppf(0.95, 7) * d.std(ddof=1) / math.sqrt(8)  # -0.2808
    passed = _one(decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(margin={"mrr": 0.3})), "margin")
    assert passed.status == "pass" and passed.low == pytest.approx(lower, rel=1e-12)
    assert passed.p_value == pytest.approx(scipy_stats.ttest_1samp(d + 0.3, 0.0, alternative="greater").pvalue, rel=1e-10)
    assert passed.p_value <= 0.05 and passed.p_adjusted == passed.p_value
    assert passed.reason == "delta -0.1562 is shown above -0.3: its one-sided 95% lower bound -0.2808 > -0.3"
    failed = _one(decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(margin={"mrr": 0.25})), "margin")
    assert failed.status == "fail" and failed.p_value > 0.05
    assert failed.reason == "delta -0.1562 is not shown above -0.25: its one-sided 95% lower bound -0.2808 <= -0.25"


def test_margin_of_a_lower_is_better_score_bounds_its_rise():
    latency = {"latency": score_measure("latency", direction="lower")}
    base, cand = [10.0, 12.0, 9.0, 11.0, 10.0, 13.0], [10.5, 12.0, 9.5, 11.5, 10.0, 13.5]
    d = np.subtract(cand, base)
    upper = d.mean() + scipy_stats.t.ppf(0.95, 5) * d.std(ddof=1) / math.sqrt(6)  # 0.3333 + 2.015 * 0.1054
    run = lambda values: QueryTable(_table(latency=values), latency)  # noqa: E731
    ok = _one(decide(run(base), run(cand), rules_of(margin={"latency": 1.0})), "margin")
    assert ok.status == "pass" and ok.high == pytest.approx(upper, rel=1e-12) and "upper bound" in ok.reason
    assert ok.p_value == pytest.approx(scipy_stats.ttest_1samp(d - 1.0, 0.0, alternative="less").pvalue, rel=1e-10)
    tight = _one(decide(run(base), run(cand), rules_of(margin={"latency": 0.5})), "margin")
    assert tight.status == "fail" and upper > 0.5


# --- min ---------------------------------------------------------------------------------------------------------------

def test_min_pass_and_fail_and_the_interval_reaching_past_the_floor():
    cand = _table(mrr=CAND)  # mean 0.59375, sd of the values by hand
    values = np.array(CAND)
    half = scipy_stats.t.ppf(0.95, 7) * values.std(ddof=1) / math.sqrt(8)
    clear = _one(decide(_table(mrr=BASE), cand, rules_of(minimum={"mrr": 0.3})), "min")
    assert clear.status == "pass" and clear.reason == "the candidate 0.5938 is not below the floor 0.3"
    assert (clear.low, clear.high) == pytest.approx((0.59375 - half, 0.59375 + half), rel=1e-12)
    assert math.isnan(clear.baseline) and math.isnan(clear.delta) and math.isnan(clear.p_value)
    close = _one(decide(_table(mrr=BASE), cand, rules_of(minimum={"mrr": 0.55})), "min")
    assert close.status == "pass" and "reaches below it: more queries would tell" in close.reason
    below = _one(decide(_table(mrr=BASE), cand, rules_of(minimum={"mrr": 0.6})), "min")
    assert below.status == "fail" and "below the floor 0.6, but within its interval" in below.reason
    far = _one(decide(_table(mrr=BASE), cand, rules_of(minimum={"mrr": 0.95})), "min")
    assert far.status == "fail" and far.reason == "the candidate 0.5938 is below the floor 0.95"


def test_min_reads_every_query_the_candidate_scored_not_only_the_paired_ones():
    base = _table(mrr=[1.0, np.nan, np.nan, 1.0])
    cand = _table(mrr=[0.5, 1.0, 1.0, np.nan])
    outcome = _one(decide(base, cand, rules_of(minimum={"mrr": 0.8})), "min")
    assert outcome.queries == 3 and outcome.candidate == pytest.approx(2.5 / 3)


def test_min_of_a_lower_is_better_score_is_a_ceiling():
    latency = {"latency": score_measure("latency", direction="lower")}
    cand = QueryTable(_table(latency=[10.0, 12.0, 11.0, 11.0]), latency)
    over = _one(decide(cand, cand, rules_of(minimum={"latency": 10.5})), "min")
    assert over.status == "fail" and over.reason.startswith("the candidate 11.0000 is above the ceiling 10.5")
    under = _one(decide(cand, cand, rules_of(minimum={"latency": 13})), "min")
    assert under.status == "pass" and under.direction == "lower"


def test_min_without_a_scored_query_is_undecided():
    base = _table(mrr=[1.0, 0.5])
    outcome = _one(decide(base, _table(mrr=[np.nan, np.nan]), rules_of(minimum={"mrr": 0.5})), "min")
    assert outcome.status == "undecided" and "scored no query" in outcome.reason


# --- the question sets ---------------------------------------------------------------------------------------------------

def test_different_question_sets_are_undecided_without_on_common():
    base = pd.DataFrame({"mrr": BASE[:6]}, index=_index(6))
    cand = pd.DataFrame({"mrr": CAND[:6]}, index=pd.Index(["q0", "q1", "q2", "q3", "q4", "x9"], name="multilabel_id"))
    verdict = decide(base, cand, rules_of(no_drop="mrr", minimum={"mrr": 0.1}))
    assert verdict.questions == QuestionSets(6, 6, 5, False) and verdict.questions.differ == 2
    assert verdict.message == ("2 questions differ (baseline 6, candidate 6, common 5); pass on_common=True "
                               "(--on-common on the command line) to gate on the 5 shared")
    assert {o.status for o in verdict.outcomes} == {"undecided"} and verdict.exit_code == 2
    assert verdict.message in str(verdict)
    common = decide(base, cand, rules_of(no_drop="mrr", minimum={"mrr": 0.1}), on_common=True)
    assert common.message == "" and common.questions.on_common
    no_drop = _one(common, "no-drop")
    assert no_drop.queries == 5
    assert no_drop.p_value == pytest.approx(scipy_stats.ttest_rel(CAND[:5], BASE[:5], alternative="less").pvalue)
    assert no_drop.reason.endswith("(on the 5 questions both runs have)")
    assert _one(common, "min").queries == 5  # x9 is not among the common questions


# --- worst queries -------------------------------------------------------------------------------------------------------

def test_worst_lists_the_largest_drops_first_ties_in_baseline_order_with_texts():
    texts = pd.Series({"q0": "who", "q2": "what", "q3": "when"})
    verdict = decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(no_drop="mrr"), worst=3, texts=texts)
    worst = verdict.worst
    assert tuple(worst.columns) == WORST_COLUMNS
    assert worst["query"].tolist() == ["q0", "q2", "q3"]  # -0.5, then the -0.25s of q2, q3 (q6 is the 4th)
    assert worst["text"].tolist() == ["who", "what", "when"]
    assert worst["delta"].tolist() == [-0.5, -0.25, -0.25]
    assert worst["baseline"].tolist() == [1.0, 1.0, 0.5] and set(worst["measure"]) == {"mrr"}
    assert decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(no_drop="mrr"), worst=0).worst.empty


def test_worst_of_a_lower_is_better_score_lists_its_rises():
    latency = {"latency": score_measure("latency", direction="lower")}
    run = lambda values: QueryTable(_table(latency=values), latency)  # noqa: E731
    verdict = decide(run([1.0, 2.0, 3.0]), run([3.0, 1.0, 3.5]), rules_of(no_drop="latency"))
    assert verdict.worst["query"].tolist() == ["q0", "q2"] and verdict.worst["text"].tolist() == ["", ""]


# --- the verdict ------------------------------------------------------------------------------------------------------------

def test_verdict_status_fail_outranks_undecided_and_str_names_every_rule():
    base = _table(mrr=BASE, ndcg=[1.0] * 8)
    cand = _table(mrr=CAND, ndcg=[1.0] + [np.nan] * 7)
    verdict = decide(base, cand, rules_of(no_drop=["mrr", "ndcg"]), correction="none", names=("main", "pr-7"),
                     node="Retriever")
    assert [o.status for o in verdict.outcomes] == ["fail", "undecided"]
    assert (verdict.status, verdict.exit_code, verdict.passed) == ("fail", 1, False)
    text = str(verdict).splitlines()
    assert text[0] == "gate FAIL (exit 1): 'pr-7' against 'main', node 'Retriever', 8 queries, alpha 0.05, t-test"
    assert text[1].startswith("  --no-drop mrr: FAIL: delta -0.1562 is below 0")
    assert text[2].startswith("  --no-drop ndcg: UNDECIDED: too few queries")
    assert verdict.confidence_note == "one-sided 95% t bounds"
    undecided = decide(base, cand, rules_of(no_drop="ndcg"))
    assert (undecided.status, undecided.exit_code, undecided.passed) == ("undecided", 2, False)


# --- bad rules and bad input --------------------------------------------------------------------------------------------------

def test_rules_of_reads_the_command_lines_texts_and_canonical_names():
    rules = rules_of(no_drop=["ndcg_cut_10"], margin=["P(rel=2)@5=0.01"], minimum=["recall_single_hit=0.8"])
    assert [(r.kind, r.measure, r.value) for r in rules] == [("no-drop", "nDCG@10", None), ("margin", "P(rel=2)@5", 0.01),
                                                             ("min", "recall_single_hit", 0.8)]
    assert [r.flag() for r in rules] == ["--no-drop nDCG@10", "--margin P(rel=2)@5=0.01", "--min recall_single_hit=0.8"]
    assert [r.measure for r in rules_of(no_drop="P.5,10")] == ["P@5", "P@10"]
    assert RULE_KINDS == ("no-drop", "margin", "min") and GATE_TESTS == ("t-test", "randomization")


@pytest.mark.parametrize("kwargs, match", [
    ({}, "give at least one rule"),
    ({"margin": ["recall"]}, r"^margin must be written measure=value, e.g. recall_single_hit=0.01; got 'recall'"),
    ({"margin": ["recall=x"]}, r"^margin must be written measure=value with a number after '='"),
    ({"margin": {"mrr": -0.1}}, r"^margin mrr= must be >= 0"),
    ({"margin": {"mrr": float("nan")}}, r"^margin mrr= must be a finite number"),
    ({"minimum": ["mrr"]}, r"^minimum must be written measure=value"),
    ({"minimum": {"mrr": float("inf")}}, r"^minimum mrr= must be a finite number"),
    ({"minimum": 0.8}, r"^minimum must be a mapping"),
    ({"no_drop": ["mrr", "mrr"]}, r"^no_drop names 'mrr' twice"),
    ({"no_drop": ["nDCG@10", "ndcg_cut_10"]}, r"^no_drop names 'nDCG@10' twice \(as 'nDCG@10'\)"),
    ({"margin": ["mrr=0.1", "mrr=0.2"]}, r"^margin names 'mrr' twice"),
    ({"no_drop": [3]}, r"^no_drop must be a measure's name"),
    ({"no_drop": "F1"}, r"^no_drop: 'F1' is Haystack's metric 'f1'"),
])
def test_rules_of_refuses_bad_rules_naming_the_parameter(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match) as caught:
        rules_of(**kwargs)
    parameter = caught.value.parameter
    assert parameter == {"margin": "margin", "minimum": "minimum"}.get(next(iter(kwargs), ""), "no_drop")


def test_a_bad_rule_made_directly_is_refused():
    with pytest.raises(InvalidParameterError, match=r"kind must be one of \['no-drop', 'margin', 'min'\]; got 'max'"):
        Rule("max", "mrr", 1.0)
    with pytest.raises(InvalidParameterError, match="value must be a margin >= 0"):
        Rule("margin", "mrr", -1.0)
    with pytest.raises(InvalidParameterError, match="value must be None for a no-drop rule"):
        Rule("no-drop", "mrr", 0.1)
    with pytest.raises(InvalidParameterError, match=r"value must be the floor \(a finite number\)"):
        Rule("min", "mrr", None)


def test_decide_refuses_a_measure_missing_from_a_table_naming_the_columns():
    with pytest.raises(InvalidParameterError, match=r"rules: --no-drop mrr: the candidate 'candidate' has no measure "
                                                     r"'mrr'; its columns are .*'MRR'.*Did you mean 'MRR'"):
        decide(_table(mrr=BASE), _table(MRR=CAND), rules_of(no_drop="mrr"))


def test_decide_refuses_a_count_and_an_unknown_column():
    counts = _table(NumRet=[10.0, 9.0, 10.0])
    with pytest.raises(InvalidParameterError, match="NumRet is a count .* no better or worse side to gate"):
        decide(counts, counts, rules_of(no_drop="num_ret"))
    plain = _table(latency=[1.0, 2.0])
    with pytest.raises(InvalidParameterError, match="which way 'latency' is better is not known"):
        decide(plain, plain, rules_of(no_drop="latency"))
    none = {"calls": score_measure("calls", direction="none")}
    calls = QueryTable(_table(calls=[1.0, 2.0]), none)
    with pytest.raises(InvalidParameterError, match="declared with direction 'none'"):
        decide(calls, calls, rules_of(minimum={"calls": 1.0}))


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": 0.5}, r"^alpha must lie strictly between 0 and 0.5"),
    ({"alpha": 0.0}, r"^alpha must lie strictly between 0 and 0.5"),
    ({"alpha": "0.05"}, r"^alpha must be a number"),
    ({"test": "wilcoxon"}, r"^test must be one of \['t-test', 'randomization'\]"),
    ({"correction": "holms"}, r"^correction must be one of .*Did you mean 'holm'"),
    ({"on_common": "yes"}, r"^on_common must be True or False"),
    ({"names": ("a", "a")}, r"^names must be two distinct names"),
    ({"worst": -1}, r"^worst must be an int >= 0"),
    ({"rounds": 0}, r"^rounds must be an int >= 1"),
    ({"texts": {"q0": "x"}}, r"^texts must be a pandas Series"),
])
def test_decide_refuses_bad_options_naming_them(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match) as caught:
        decide(_table(mrr=BASE), _table(mrr=CAND), rules_of(no_drop="mrr"), **kwargs)
    assert caught.value.parameter == next(iter(kwargs))


def test_decide_refuses_what_is_no_per_query_table_and_bad_rules():
    with pytest.raises(InvalidParameterError, match=r"^baseline must be a per-query table"):
        decide({"mrr": BASE}, _table(mrr=CAND), rules_of(no_drop="mrr"))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"^rules must be a list of Rule"):
        decide(_table(mrr=BASE), _table(mrr=CAND), ["mrr"])  # type: ignore[list-item]
    with pytest.raises(InvalidParameterError, match=r"^rules must hold at least one rule"):
        decide(_table(mrr=BASE), _table(mrr=CAND), [])
    twice = pd.DataFrame({"mrr": [1.0, 0.5]}, index=["q0", "q0"])
    with pytest.raises(InvalidParameterError, match="has query 'q0' more than once"):
        decide(twice, twice, rules_of(no_drop="mrr"))


def test_worst_ties_written_alike_keep_the_baseline_order_despite_float_noise():
    latency = {"latency": score_measure("latency", direction="lower")}
    run = lambda values: QueryTable(_table(latency=values), latency)  # noqa: E731
    # 0.95 - 0.9 and 1.05 - 1.0 differ in their last bits (0.04999999999999993, 0.050000000000000044)
    verdict = decide(run([0.9, 1.0, 0.9]), run([0.95, 1.05, 0.95]), rules_of(no_drop="latency"))
    assert verdict.worst["query"].tolist() == ["q0", "q1", "q2"]


def test_randomization_with_too_few_rounds_for_alpha_is_undecided():
    base = _table(mrr=[1.0] * 8)
    outcome = _one(decide(base, base * 0.5, rules_of(no_drop="mrr"), test="randomization", rounds=10), "no-drop")
    assert outcome.status == "undecided" and "too few rounds for --no-drop mrr at alpha 0.05: 10" in outcome.reason


def test_a_geometric_mean_is_gated_on_its_logs_and_its_margin_carried_to_them():
    # gm_map: the number is exp(mean log AP); the gains are log(candidate / baseline) per query
    base = np.array([0.5, 0.4, 0.8, 0.2, 0.6, 0.3])
    ratios = np.array([0.9, 1.0, 0.95, 0.85, 1.02, 0.97])
    verdict = decide(_table(gm_map=list(base)), _table(gm_map=list(base * ratios)),
                     rules_of(no_drop="gm_map", margin={"gm_map": 0.05}))
    no_drop, margin = _one(verdict, "no-drop"), _one(verdict, "margin")
    logs = np.log(ratios)
    assert no_drop.p_value == pytest.approx(scipy_stats.ttest_1samp(logs, 0.0, alternative="less").pvalue, rel=1e-10)
    gm_a = math.exp(np.log(base).mean())
    assert margin.baseline == pytest.approx(gm_a) and margin.delta == pytest.approx(gm_a * (math.exp(logs.mean()) - 1))
    half = scipy_stats.t.ppf(0.95, 5) * logs.std(ddof=1) / math.sqrt(6)
    assert margin.low == pytest.approx(gm_a * (math.exp(logs.mean() - half) - 1), rel=1e-10)
    # the margin of 0.05 on gm_map is log(1 - 0.05 / gm_a) on the logs: the t-test and the bound agree
    shifted = logs - math.log(1 - 0.05 / gm_a)
    assert margin.p_value == pytest.approx(scipy_stats.ttest_1samp(shifted, 0.0, alternative="greater").pvalue,
                                           rel=1e-10)
    assert (margin.p_value <= 0.05) == (margin.low > -0.05) == (margin.status == "pass")


def test_the_worst_queries_are_not_listed_when_the_question_sets_differ_and_texts_are_checked():
    base = pd.DataFrame({"mrr": [1.0, 0.5, 0.25]}, index=["q0", "q1", "q2"])
    cand = pd.DataFrame({"mrr": [0.5, 0.5, 0.25]}, index=["q0", "q1", "x"])
    assert decide(base, cand, rules_of(no_drop="mrr")).worst.empty
    assert decide(base, cand, rules_of(no_drop="mrr"), on_common=True).worst["query"].tolist() == ["q0"]
    with pytest.raises(InvalidParameterError, match="^texts has query 'q0' more than once"):
        decide(base, base, rules_of(no_drop="mrr"), texts=pd.Series(["a", "b"], index=["q0", "q0"]))


# --- judged differently; unscored queries ----------------------------------------------------------------------------

def test_judgments_differ_is_undecided_even_on_common():
    base, cand = _table(mrr=BASE), _table(mrr=CAND)
    why = "the judgments (question set) differ: '@a' and '@b' were judged by different qrels"
    for on_common in (False, True):
        verdict = decide(base, cand, rules_of(no_drop="mrr", minimum={"mrr": 0.1}), on_common=on_common,
                         judgments_differ=why)
        assert verdict.message == why and verdict.exit_code == 2 and verdict.status == "undecided"
        assert [o.reason for o in verdict.outcomes] == ["not compared: the judgments differ"] * 2
    assert decide(base, cand, rules_of(no_drop="mrr")).message == ""  # None: decided as before
    with pytest.raises(InvalidParameterError, match="judgments_differ must be a message"):
        decide(base, cand, rules_of(no_drop="mrr"), judgments_differ=1)  # type: ignore[arg-type]


def test_queries_one_run_did_not_score_are_named_in_the_reason():
    cand = CAND[:6] + [np.nan, np.nan]
    verdict = decide(_table(mrr=BASE), _table(mrr=cand), rules_of(no_drop="mrr", minimum={"mrr": 0.1}),
                     names=("old", "new"))
    no_drop = _one(verdict, "no-drop")
    assert no_drop.queries == 6
    # gains -0.5, 0, -0.25, -0.25, 0, 0: mean -1/6, sd 0.2041 (ddof 1), t = -2.0, 5 df: p = 0.0509
    assert no_drop.p_value == pytest.approx(scipy_stats.ttest_rel(CAND[:6], BASE[:6], alternative="less").pvalue)
    assert no_drop.p_value == pytest.approx(0.05097, abs=1e-4)
    assert no_drop.reason.endswith("(2 queries unscored in the candidate 'new': not paired)")
    assert _one(verdict, "min").reason.endswith("(2 queries unscored in the candidate 'new': not paired)")
    one = decide(_table(mrr=[np.nan] + BASE[1:]), _table(mrr=CAND), rules_of(no_drop="mrr"))
    assert _one(one, "no-drop").reason.endswith("(1 query unscored in the baseline 'baseline': not paired)")
    both = decide(_table(mrr=[np.nan] + BASE[1:]), _table(mrr=[np.nan] + CAND[1:]), rules_of(no_drop="mrr"))
    assert "unscored" not in _one(both, "no-drop").reason  # neither scored q0: nothing lost
