"""What a document metric's mean includes: no_answer_summary (evalframe.analysis.analyses.MeanAnalyses), on the ten
queries of tests/fixtures.py (``ten_query_lines``: 2 no-answer queries, one answer found in a chunk of another id),
worked out by hand there; the issue's example (200 queries, 20 no-answer) has the same shape. The hand-worked tests
run on each ``backend`` (in memory and on Dask, tests/conftest.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError
from tests.fixtures import hand_result, reader_frame, ten_query_result


@pytest.fixture(scope="module")
def ten(backend):
    return backend(ten_query_result())


def test_the_counts_and_each_metric_beside_its_answerable_only_value_by_hand(ten):
    summary = ten.no_answer_summary()
    assert list(summary.index) == ["Retriever"] and summary.index.name == "node"
    assert list(summary.columns[:4]) == ["queries", "no_answer_queries", "recall_multi_hit", "recall_multi_hit_answerable"]
    row = summary.loc["Retriever"]
    assert (row["queries"], row["no_answer_queries"]) == (10, 2)
    assert summary["queries"].dtype == "int64" and summary["no_answer_queries"].dtype == "int64"
    # recall: (5 + 1 + 0 + 0 + 2 no-answer ones) / 10, answerable (5 + 1) / 8; mrr: q6's chunk at rank 2
    assert row["recall_single_hit"] == pytest.approx(0.8) and row["recall_single_hit_answerable"] == pytest.approx(0.75)
    assert row["mrr"] == pytest.approx(0.75) and row["mrr_answerable"] == pytest.approx(5.5 / 8)
    # every other column as in memory (on Dask: merged from the partitions)
    pd.testing.assert_frame_equal(summary, ten_query_result().no_answer_summary(), check_exact=False, rtol=0, atol=1e-12)


def test_gold_ids_only_and_a_top_k(ten):
    by_id = ten.no_answer_summary(document_scope="document_id").loc["Retriever"]
    # q6's chunk c6 holds the answer under another id: not relevant by id -> (5 + 2) / 10 and 5 / 8
    assert by_id["recall_single_hit"] == pytest.approx(0.7) and by_id["recall_single_hit_answerable"] == pytest.approx(0.625)
    top1 = ten.no_answer_summary(simulated_top_k_retriever=1).loc["Retriever"]
    # the top 1 cuts q6's chunk at rank 2 -> as by id
    assert top1["recall_single_hit"] == pytest.approx(0.7) and top1["recall_single_hit_answerable"] == pytest.approx(0.625)


def test_the_numbers_are_calculate_metrics_and_the_answerable_slice():
    result = ten_query_result()
    summary = result.no_answer_summary().loc["Retriever"]
    means = result.calculate_metrics()["Retriever"]
    answerable = result.sliced_metrics("no_answer").loc[("Retriever", False)]
    for metric, value in means.items():
        assert summary[metric] == value and summary[f"{metric}_answerable"] == answerable[metric]


def test_nodes_without_document_rows_are_left_out_and_no_no_answer_query_reads_zero():
    # the hand result: Retriever has one no-answer query (q2) of 6; the Reader has answer rows only
    summary = hand_result().no_answer_summary()
    assert list(summary.index) == ["Retriever"] and summary.loc["Retriever", "no_answer_queries"] == 1
    # mrr of q1 q3 q4 q5 q6: 1, 1/3, 1 (only "00": no gold), 0, 1/2 (tests/analysis/test_slices.py)
    assert summary.loc["Retriever", "mrr_answerable"] == pytest.approx((1 + 1 / 3 + 1 + 0 + 0.5) / 5)
    only_answers = EvaluationResult({"Reader": reader_frame()}).no_answer_summary()
    assert only_answers.empty and list(only_answers.columns) == ["queries", "no_answer_queries"]
    frame = ten_query_result()["Retriever"]
    answered = EvaluationResult({"Retriever": frame[~frame["query"].isin(["question 9?", "question 10?"])]})
    row = answered.no_answer_summary().loc["Retriever"]
    assert (row["queries"], row["no_answer_queries"]) == (8, 0)
    assert row["recall_single_hit"] == row["recall_single_hit_answerable"] == pytest.approx(0.75)


def test_only_no_answer_queries_give_nan_answerable_values():
    frame = ten_query_result()["Retriever"]
    only = EvaluationResult({"Retriever": frame[frame["query"].isin(["question 9?", "question 10?"])]})
    row = only.no_answer_summary().loc["Retriever"]
    assert (row["queries"], row["no_answer_queries"], row["mrr"]) == (2, 2, 1.0) and math.isnan(row["mrr_answerable"])


def test_a_bad_option_is_named():
    with pytest.raises(InvalidParameterError, match=r"document_scope must be one of .*got 'docment_id'"):
        ten_query_result().no_answer_summary(document_scope="docment_id")
    with pytest.raises(InvalidParameterError, match=r"no_answer_summary takes these options"):
        ten_query_result().no_answer_summary(top_k=3)
