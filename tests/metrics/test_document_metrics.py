"""Document metrics of the hand-made Retriever (tests/fixtures.py), worked out by hand from docs/metrics.md#per-query.

Matched gold indices per row (threshold 65):
  q1 r1 d3: id {}  ctx {0} ans {0} | r2 d1: id {0} ctx {0} ans {0} | r3 d2: id {1} ctx {} ans {1}
     r4 d4: none                  | r5 d1: id {0} ctx {0} ans {0}            L = 2, 5 rows
  q3 r3 d6: everything {0}, other rows nothing                                 L = 1, 3 rows
  q6 r1 d14: ctx {0, 1} (80, 70)   | r2 d12: id {0} ctx {0}                   L = 2, 2 rows
  q2 (no gold) and q4 (only "00") have L = 0 -> 1.0; q5 (placeholder row) has no hit -> 0.0.
"""

from __future__ import annotations

from math import log2

import pytest

from evalframe import EvaluationResult, SchemaError
from tests.fixtures import hand_result, retriever_frame

METRICS = ("recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg")
ONE = dict.fromkeys(METRICS, 1.0)
ZERO = dict.fromkeys(METRICS, 0.0)


def q(recall_multi_hit, precision, map_, mrr, ndcg):
    return {"recall_multi_hit": recall_multi_hit, "recall_single_hit": 1.0, "precision": precision,
            "map": map_, "mrr": mrr, "ndcg": ndcg}


# q3 is the same under every criterion: one relevant row (d6) at rank 3 of 3, one gold document.
Q3 = q(1.0, 1 / 3, (1 / 3) / 1, 1 / 3, (1 / log2(4)) / 1)

# q1 -- R = {r2, r3, r5}, M = 2, num_relevants = |{d1, d2}| + 0 = 2
Q1_ID = q(1.0, 3 / 5, (1 / 2 + 2 / 3 + 3 / 5) / 2, 1 / 2, (1 / log2(3) + 1 / log2(4) + 1 / log2(6)) / (1 + 1 / log2(3)))
# q1 -- R = {r1, r2, r5}, M = 1, num_relevants = |{d3, d1}| + 1 = 3
Q1_CTX = q(0.5, 3 / 5, (1 / 1 + 2 / 2 + 3 / 5) / 3, 1.0, (1 + 1 / log2(3) + 1 / log2(6)) / (1 + 1 / log2(3) + 1 / log2(4)))
# q1 -- R = {r1, r2, r3, r5}, M = 2, num_relevants = |{d3, d1, d2}| + 0 = 3
Q1_ANY = q(1.0, 4 / 5, (1 + 1 + 1 + 4 / 5) / 3, 1.0,
           (1 + 1 / log2(3) + 1 / log2(4) + 1 / log2(6)) / (1 + 1 / log2(3) + 1 / log2(4)))
# q1 -- R = {r2, r5}, M = 1, num_relevants = |{d1}| + 1 = 2
Q1_ID_AND_CTX = q(0.5, 2 / 5, (1 / 2 + 2 / 5) / 2, 1 / 2, (1 / log2(3) + 1 / log2(6)) / (1 + 1 / log2(3)))

# q6 -- R = {r2}, M = 1, num_relevants = 1 + 1 = 2
Q6_ID = q(0.5, 1 / 2, (1 / 2) / 2, 1 / 2, (1 / log2(3)) / (1 + 1 / log2(3)))
# q6 -- R = {r1, r2}, M = 2, num_relevants = 2 + 0 = 2
Q6_BOTH = q(1.0, 1.0, (1 + 1) / 2, 1.0, 1.0)

EXPECTED = {
    # (document_scope, answer_scope): per-query values q1..q6
    ("document_id", "any"): [Q1_ID, ONE, Q3, ONE, ZERO, Q6_ID],
    ("context", "any"): [Q1_CTX, ONE, Q3, ONE, ZERO, Q6_BOTH],
    ("answer", "any"): [Q1_ANY, ONE, Q3, ONE, ZERO, ZERO],
    ("document_id_or_answer", "any"): [Q1_ANY, ONE, Q3, ONE, ZERO, Q6_ID],
    ("document_id_and_context", "any"): [Q1_ID_AND_CTX, ONE, Q3, ONE, ZERO, Q6_ID],
    ("document_id_or_context", "any"): [Q1_ANY, ONE, Q3, ONE, ZERO, Q6_BOTH],
    # answer scopes turn the answer document scopes into *_and_answer criteria
    ("answer", "document_id"): [Q1_ID, ONE, Q3, ONE, ZERO, ZERO],
    ("document_id_or_answer", "document_id"): [Q1_ID, ONE, Q3, ONE, ZERO, ZERO],
    ("answer", "context"): [Q1_CTX, ONE, Q3, ONE, ZERO, ZERO],
    ("document_id_or_answer", "document_id_and_context"): [Q1_ID_AND_CTX, ONE, Q3, ONE, ZERO, ZERO],
}
QUERIES = ["q1", "q2", "q3", "q4", "q5", "q6"]


@pytest.mark.parametrize(("document_scope", "answer_scope"), list(EXPECTED))
def test_per_query_values(storage, document_scope, answer_scope):
    table = storage(hand_result()).query_metrics("Retriever", document_scope=document_scope, answer_scope=answer_scope)
    assert list(table.index) == QUERIES
    assert list(table.columns) == list(METRICS)
    for qid, expected in zip(QUERIES, EXPECTED[document_scope, answer_scope]):
        for metric in METRICS:
            assert table.loc[qid, metric] == pytest.approx(expected[metric], abs=1e-12), (qid, metric)


@pytest.mark.parametrize(("document_scope", "answer_scope"), list(EXPECTED))
def test_means(storage, document_scope, answer_scope):
    metrics = storage(hand_result()).calculate_metrics(document_scope=document_scope, answer_scope=answer_scope)["Retriever"]
    assert list(metrics) == list(METRICS)
    for metric in METRICS:
        expected = sum(values[metric] for values in EXPECTED[document_scope, answer_scope]) / 6
        assert metrics[metric] == pytest.approx(expected, abs=1e-12)


def test_values_worked_out_as_numbers(storage):
    # the default scope, written out once as plain numbers
    m = storage(hand_result()).calculate_metrics()["Retriever"]
    assert m["recall_multi_hit"] == pytest.approx((1 + 1 + 1 + 1 + 0 + 0.5) / 6)
    assert m["precision"] == pytest.approx((0.8 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6)
    assert m["map"] == pytest.approx((19 / 15 + 1 + 1 / 3 + 1 + 0 + 0.25) / 6)  # duplicates push q1's map over 1
    assert m["mrr"] == pytest.approx((1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6)
    assert m["recall_single_hit"] == pytest.approx(5 / 6)


def test_simulated_top_k_retriever(storage):
    result = storage(hand_result())
    # top 2: q1 keeps r1 (ans {0}) and r2 (id/ans {0}): M = 1, num_relevants = 2 + 1 = 3; q3 loses d6.
    q1 = q(0.5, 1.0, (1 + 1) / 3, 1.0, (1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4)))
    table = result.query_metrics("Retriever", simulated_top_k_retriever=2)
    for metric in METRICS:
        assert table.loc["q1", metric] == pytest.approx(q1[metric])
        assert table.loc["q3", metric] == 0.0
        assert table.loc["q6", metric] == pytest.approx(Q6_ID[metric])
    # top 1: q1 keeps r1 only: M = 1, num_relevants = 1 + 1 = 2; q6's rank 1 (d14) is not relevant
    table = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    q1 = q(0.5, 1.0, 1 / 2, 1.0, 1 / (1 + 1 / log2(3)))
    for metric in METRICS:
        assert table.loc["q1", metric] == pytest.approx(q1[metric])
        assert table.loc["q6", metric] == 0.0
    assert result.calculate_metrics(simulated_top_k_retriever=1)["Retriever"]["recall_single_hit"] == pytest.approx(3 / 6)


def test_context_matching_threshold_changes_matched_golds_not_relevance(storage):
    # at 75, q6's d14 (80, 70) matches gold 0 only: M = 1, num_relevants = 2 + 1 = 3
    q6 = q(0.5, 1.0, (1 + 1) / 3, 1.0, (1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4)))
    table = storage(hand_result()).query_metrics("Retriever", document_scope="context", context_matching_threshold=75)
    for metric in METRICS:
        assert table.loc["q6", metric] == pytest.approx(q6[metric])
        assert table.loc["q1", metric] == pytest.approx(Q1_CTX[metric])  # r1 (70) drops out, r2, r5 keep gold 0: M = 1 as at 65
    # None means: the threshold recorded with the result, else 65
    recorded = storage(EvaluationResult({"Retriever": retriever_frame()}, matching={"context_matching_threshold": 75.0}))
    assert recorded.query_metrics("Retriever", document_scope="context").loc["q6", "map"] == pytest.approx(2 / 3)
    assert storage(hand_result()).query_metrics("Retriever", document_scope="context").loc["q6", "map"] == pytest.approx(1.0)


def test_query_order_does_not_change_means(storage):
    frame = retriever_frame()
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    a = storage(EvaluationResult({"Retriever": frame})).calculate_metrics()
    b = storage(EvaluationResult({"Retriever": shuffled})).calculate_metrics()
    for metric in METRICS:
        assert a["Retriever"][metric] == pytest.approx(b["Retriever"][metric], abs=1e-12)


def test_rank_ties_count_every_tied_relevant_row_in_map(storage):
    # two relevant rows both at rank 1 and one at rank 2: each rank-1 row sees 2 relevant rows at or
    # above it -> 2/1 + 2/1 + 3/2 = 5.5, over num_relevants = |{a, b, c}| + 0 = 3
    frame = retriever_frame()
    frame = frame[frame["multilabel_id"] == "q3"].copy()
    frame["rank"] = [1, 1, 2]
    frame["document_id"] = ["a", "b", "c"]
    frame["gold_document_ids"] = [["a", "b", "c"]] * 3
    frame["gold_documents_id_match"] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    frame["gold_id_match"] = 1.0
    table = storage(EvaluationResult({"R": frame})).query_metrics("R", document_scope="document_id")
    assert table.loc["q3", "map"] == pytest.approx(5.5 / 3)
    assert table.loc["q3", "mrr"] == 1.0
    assert table.loc["q3", "ndcg"] == pytest.approx((1 + 1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4)))


def test_gold_custom_document_ids_take_precedence(storage):
    frame = retriever_frame()
    frame["gold_custom_document_ids"] = frame["gold_document_ids"]
    q1 = (frame["multilabel_id"] == "q1").to_numpy()
    frame["gold_document_ids"] = [["00", "00"] if first else ids for first, ids in zip(q1, frame["gold_document_ids"])]
    table = storage(EvaluationResult({"R": frame})).query_metrics("R", document_scope="document_id")
    # read from gold_document_ids, q1 would have L = 0 and score 1.0 everywhere; its custom ids give L = 2
    assert table.loc["q1"].to_dict() == pytest.approx(Q1_ID)


def test_rows_with_another_gold_list_are_refused_not_scored_above_one(storage):
    # Haystack 1.x reads L from a query's first row and M from every row's match lists: with [d1] on the first row
    # and [d1, d2] on another it scored recall_multi_hit 2.0; with the longer list first, map 2.0 (rows of two
    # queries under one id). evalframe names the row instead, whichever comes first
    for first_short in (True, False):
        frame = retriever_frame()
        row = 0 if first_short else 1  # q1's first row, or its second
        frame.at[row, "gold_document_ids"] = ["d1"]
        frame.at[row, "gold_documents_id_match"] = [float(frame.at[row, "document_id"] == "d1")]
        frame.at[row, "gold_contexts_similarity"] = [70.0]
        frame.at[row, "gold_answers_match"] = [1.0]
        result = storage(EvaluationResult({"R": frame}))
        length, first_length = (2, 1) if first_short else (1, 2)
        message = (rf"row 1 of query 'q1' has {length} entries in 'gold_\w+', but the query's 'gold_document_ids' "
                   rf"\(row 0, its first\) has {first_length}; every row of a query carries the query's gold lists")
        for scope in ("document_id", "context", "document_id_or_answer"):
            with pytest.raises(SchemaError, match=message):
                result.calculate_metrics(document_scope=scope)
        with pytest.raises(SchemaError, match=message):
            result.query_metrics("R", document_scope="context")


def test_fewer_gold_answers_than_gold_documents_are_haystacks_shape(storage):
    # Haystack 1.x's MultiLabel gives labels without an answer a gold document but no gold answer: the answers'
    # match lists may be shorter. q1 (L = 2) with one gold answer, matched on d3, d1, d1: R = {r1, r2, r5}, M = 1,
    # the same relevant rows and matched golds as under "context" (Q1_CTX)
    frame = retriever_frame()
    q1 = (frame["multilabel_id"] == "q1").to_numpy()
    frame["gold_answers_match"] = [cells[:1] if first else cells for first, cells in zip(q1, frame["gold_answers_match"])]
    frame["answer_match"] = [float(cells[:1] == [1]) if first else value
                             for first, cells, value in zip(q1, frame["gold_answers_match"], frame["answer_match"])]
    table = storage(EvaluationResult({"R": frame})).query_metrics("R", document_scope="answer")
    assert table.loc["q1"].to_dict() == pytest.approx(Q1_CTX)
