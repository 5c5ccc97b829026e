"""compare and worst_by_delta on hand-made runs.

The hand result's Reader (tests/fixtures.py) scores f1 per query q1 1, q2 1, q3 1, q5 .4 and
exact_match 1, 1, 1, 0. Run B below changes q1's best answer to f1 .5 / em 0 and q5's to f1 1 / em 1.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, UnknownNodeError, compare, worst_by_delta
from tests.fixtures import hand_result, reader_frame, retriever_frame


def run_b() -> EvaluationResult:
    reader = reader_frame()
    reader.loc[(reader["multilabel_id"] == "q1") & (reader["answer"] == "Berlin"), ["exact_match", "f1"]] = [0.0, 0.5]
    reader.loc[reader["multilabel_id"] == "q5", ["exact_match", "f1"]] = [1.0, 1.0]
    return EvaluationResult({"Retriever": retriever_frame(), "Reader": reader})


def test_identical_runs_have_no_difference():
    table = compare(hand_result(), hand_result(), node="Reader")
    assert list(table.index) == ["exact_match", "f1"]
    f1 = table.loc["f1"]
    assert f1["delta"] == 0.0 and f1["ci_low"] == 0.0 and f1["ci_high"] == 0.0
    assert f1["p_value"] == 1.0 and f1["p_ttest"] == 1.0
    assert (f1["wins"], f1["ties"], f1["losses"], f1["queries"]) == (0, 4, 0, 4)


def test_two_runs_by_hand():
    table = compare(hand_result(), run_b(), node="Reader")
    f1 = table.loc["f1"]
    assert f1["mean_a"] == pytest.approx((1 + 1 + 1 + 0.4) / 4)
    # q1's best answer was Berlin (f1 1); B leaves Bonn (.5) and Munich (.2) best at .5, and q5 1: d = [-.5, 0, 0, .6]
    assert f1["mean_b"] == pytest.approx((0.5 + 1 + 1 + 1) / 4)
    assert f1["delta"] == pytest.approx(0.1 / 4)
    assert (f1["wins"], f1["ties"], f1["losses"]) == (1, 2, 1)
    # the sign-flip law of d = [-.5, 0, 0, .6]: |sum| >= .1 for (-,+) and (+,-) of the two nonzero values: p = 1
    assert f1["p_value"] == 1.0
    t = 0.025 / (np.std([-0.5, 0, 0, 0.6], ddof=1) / 2)
    assert f1["t"] == pytest.approx(t)
    em = table.loc["exact_match"]
    assert (em["mean_a"], em["mean_b"], em["delta"]) == (0.75, 0.75, 0.0)
    assert (em["wins"], em["losses"]) == (1, 1)


def per_query(values, name="f1"):
    return pd.DataFrame({name: values}, index=pd.Index([f"q{i}" for i in range(len(values))], name="multilabel_id"))


def test_a_run_that_wins_every_query_gets_a_tiny_p_value():
    a = per_query([0.0, 0.25, 0.5, 0.75] * 10)  # b - a is exactly .25 in binary floating point
    b = per_query([0.25, 0.5, 0.75, 1.0] * 10)
    row = compare(a, b).loc["f1"]
    assert row["delta"] == pytest.approx(0.25)
    assert row["p_value"] == 1 / 10_001  # no sign flip of 40 equal gains reaches the observed sum
    assert row["p_ttest"] == 0.0 and row["t"] == math.inf  # the same gain everywhere: sd 0
    assert (row["wins"], row["ties"], row["losses"]) == (40, 0, 0)
    assert row["ci_low"] == row["ci_high"] == pytest.approx(0.25)


def test_queries_in_one_run_only_are_counted_and_announced():
    a = per_query([1.0, 0.0, 1.0, 0.5])  # q0..q3
    b = pd.DataFrame({"f1": [0.0, 1.0, 1.0, 0.0, 1.0]}, index=["q1", "q2", "q3", "q4", "q5"])
    with pytest.warns(UserWarning, match=r"f1: 1 query is scored only in 'A' and 2 only in 'B'; .* the 3 queries"):
        row = compare(a, b).loc["f1"]
    assert (row["queries"], row["only_a"], row["only_b"]) == (3, 1, 2)
    # paired q1..q3: a 0, 1, .5 and b 0, 1, 1
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((0.5, 2 / 3))
    assert (row["wins"], row["ties"], row["losses"]) == (1, 2, 0)


def test_nan_means_not_scored():
    a = per_query([1.0, np.nan, 0.0])
    b = per_query([1.0, 1.0, np.nan])
    with pytest.warns(UserWarning, match="1 query is scored only in 'A' and 1 only in 'B'"):
        row = compare(a, b).loc["f1"]
    assert (row["queries"], row["only_a"], row["only_b"], row["delta"]) == (1, 1, 1, 0.0)


def test_more_than_two_runs_are_each_compared_with_the_first_and_holm_corrected():
    a = per_query([0.0] * 20)
    same = per_query([0.0] * 20)
    better = per_query([1.0] * 20)
    mixed = per_query([1.0, 0.0] * 10)
    table = compare(a, same, better, mixed, names=["base", "same", "better", "mixed"])
    assert list(table.index) == [("same", "f1"), ("better", "f1"), ("mixed", "f1")]
    p = table["p_value"].to_numpy()
    assert p[0] == 1.0 and p[1] == 1 / 10_001
    # Holm over the 3 comparisons of f1: sorted p[1] (x3), p[2] (x2), p[0] (x1), running max, capped at 1
    expected = np.empty(3)
    expected[1] = 3 * p[1]
    expected[2] = max(expected[1], 2 * p[2])
    expected[0] = 1.0
    assert table["p_holm"].to_numpy() == pytest.approx(expected)


def test_the_same_seed_gives_the_same_numbers_whatever_else_is_compared():
    one = compare(hand_result(), run_b(), node="Reader", metrics=["f1"], seed=3)
    both = compare(hand_result(), run_b(), node="Reader", seed=3)
    pd.testing.assert_series_equal(one.loc["f1"], both.loc["f1"])
    other_seed = compare(hand_result(), run_b(), node="Reader", metrics="f1", seed=4, rounds=50)
    assert other_seed.loc["f1", "delta"] == one.loc["f1", "delta"]


def test_results_and_simulated_top_k():
    # recall_single_hit per query on the hand Retriever, top-1: q1 1 (d3 holds the answer), q2 1 (no gold),
    # q3 0, q4 1 (only "00"), q5 0, q6 0; every rank: q3 (d6 at 3) and q6 (d12 at 2) hit too
    top1 = hand_result().query_metrics("Retriever", simulated_top_k_retriever=1)
    row = compare(top1, hand_result(), node="Retriever", metrics="recall_single_hit").loc["recall_single_hit"]
    assert (row["mean_a"], row["mean_b"]) == pytest.approx((3 / 6, 5 / 6))
    assert (row["wins"], row["ties"], row["losses"]) == (2, 4, 0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: compare(hand_result(), hand_result()), InvalidParameterError,
         r"node is needed: the runs share the nodes \['Retriever', 'Reader'\]"),
        (lambda: compare(hand_result(), hand_result(), node="Readr"), UnknownNodeError, "Did you mean 'Reader'"),
        (lambda: compare(hand_result(), hand_result(), node="Reader", metrics="mrr"), InvalidParameterError,
         r"run 'A' has no metric 'mrr'"),
        (lambda: compare(hand_result(), hand_result(), node="Reader", top_k=3), InvalidParameterError,
         r"unknown argument\(s\) \['top_k'\]"),
        (lambda: compare(per_query([1.0]), per_query([1.0]), simulated_top_k_retriever=3), InvalidParameterError,
         "is a per-query table"),
        (lambda: compare(per_query([1.0]), [1.0]), InvalidParameterError,
         "must be an EvaluationResult, a per-query DataFrame .* or a QueryTable"),
        (lambda: compare(per_query([1.0]), per_query([1.0]), confidence=95), InvalidParameterError, "between 0 and 1"),
        (lambda: compare(per_query([1.0]), per_query([1.0]), names=["x"]), InvalidParameterError, "2 distinct names"),
        (lambda: compare(per_query([1.0]), per_query([1.0]), rounds=0), InvalidParameterError, "rounds must be an int >= 1"),
        (lambda: worst_by_delta(hand_result(), hand_result(), "Reader", "F1"), InvalidParameterError, "Did you mean 'f1'"),
        (lambda: worst_by_delta(hand_result(), hand_result(), "Reader", "f1", direction="up"), InvalidParameterError,
         "direction"),
        (lambda: worst_by_delta(per_query([1.0]), hand_result(), "Reader", "f1"), InvalidParameterError,
         "needs EvaluationResults"),
    ],
)
def test_errors_say_how_to_fix_the_call(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_worst_by_delta_lists_the_biggest_drops_in_wrong_examples_shape():
    worse = worst_by_delta(hand_result(), run_b(), "Reader", "f1")
    assert [(e["multilabel_id"], e["delta"]) for e in worse] == [("q1", -0.5)]
    example = worse[0]
    assert example["metrics"] == {"exact_match": 0.0, "f1": 0.5}
    assert example["baseline"]["metrics"] == {"exact_match": 1.0, "f1": 1.0}
    assert [row["answer"] for row in example["answers"]] == ["Bonn", "Berlin", "Munich"]
    assert [row["f1"] for row in example["answers"]] == [0.5, 0.5, 0.2]
    assert [row["f1"] for row in example["baseline"]["answers"]] == [0.5, 1.0, 0.2]
    assert example["query"] == "question q1" and example["gold_answers"] == ["answer q1"]

    better = worst_by_delta(hand_result(), run_b(), "Reader", "f1", direction="better")
    assert [(e["multilabel_id"], e["delta"]) for e in better] == [("q5", pytest.approx(0.6))]
    isolated = worst_by_delta(hand_result(), run_b(), "Reader", "f1", eval_mode="isolated")
    assert [(e["multilabel_id"], e["delta"]) for e in isolated] == [("q1", -0.5)]  # the isolated Berlin row


def test_worst_by_delta_on_documents():
    # top-1 vs every rank: q3 and q6 gain (mrr 0 -> 1/3 and 0 -> 1/2), nothing drops
    top1_then_all = worst_by_delta(hand_result(), hand_result(), "Retriever", "mrr")
    assert top1_then_all == []
    cut = EvaluationResult({"Retriever": retriever_frame()[lambda f: f["rank"] == 1]})
    gains = worst_by_delta(cut, hand_result(), "Retriever", "mrr", direction="better")
    assert [(e["multilabel_id"], e["delta"]) for e in gains] == [("q6", 0.5), ("q3", pytest.approx(1 / 3))]
    assert [row["document_id"] for row in gains[0]["documents"]] == ["d14", "d12"]
    assert [row["document_id"] for row in gains[0]["baseline"]["documents"]] == ["d14"]


def test_equal_differences_give_equal_statistics():
    a = per_query([0.0, 1.0, 0.5, 0.0, 1.0, 0.25] * 5)
    b = per_query([1.0, 1.0, 0.0, 0.5, 1.0, 0.75] * 5)
    both = pd.concat([a, a.rename(columns={"f1": "exact_match"})], axis=1)
    both_b = pd.concat([b, b.rename(columns={"f1": "exact_match"})], axis=1)
    table = compare(both, both_b)
    pd.testing.assert_series_equal(table.loc["f1"], table.loc["exact_match"], check_names=False)
    three = compare(a, b, a)
    pd.testing.assert_series_equal(three.loc[("B", "f1")].drop("p_holm"), compare(a, b).loc["f1"], check_names=False)


def test_metric_lists_are_checked():
    a = per_query([1.0, 0.0]).assign(note=["x", "y"])
    with pytest.raises(InvalidParameterError, match="metrics must name at least one metric"):
        compare(a, a, metrics=[])
    with pytest.raises(InvalidParameterError, match=r"column 'note' of run 'A' is not numeric"):
        compare(a, a, metrics="note")
    assert list(compare(a, a, metrics=["f1", "f1"]).index) == ["f1"]
    infinite = per_query([1.0, np.inf])
    with pytest.raises(InvalidParameterError, match=r"run 'B' has infinite f1 for 1 queries \(e.g. 'q1'\)"):
        compare(a, infinite)


def test_compare_of_a_metric_a_run_lacks_names_the_metrics_the_runs_share(backend):
    # on Dask the partials hold the chosen metrics only: the shared ones were once computed from them ("share []")
    run_ = backend(hand_result(), partitions=2)
    with pytest.raises(InvalidParameterError, match=r"run 'A' has no metric 'mrx'; the runs share \['exact_match', 'f1'\]"):
        backend.compare(run_, run_, node="Reader", metrics="mrx")
