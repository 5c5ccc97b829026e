"""Answer metrics of the hand-made Reader (tests/fixtures.py), worked out by hand from docs/metrics.md#answer-metrics.

Integrated answer rows (rank: em / f1 / document_ids):
  q1  1: 0 / .5 [d3]   2: 1 / 1 [d1]   3: 0 / .2 []
  q2  1: 1 / 1 []   (no-answer placeholder)
  q3  1: 0 / 0 [d6]    2: 1 / 1 [d8, d6]
  q5  1: 0 / .4 [d99]
Retriever top-k documents: q1 d3, d1, d2, ... | q2 d5 | q3 d7, d8, d6 | q5 "" (placeholder)
"""

from __future__ import annotations

import pytest

from evalframe import EvaluationResult, InvalidParameterError
from tests.fixtures import hand_result, reader_frame, retriever_frame


def reader(storage, **kwargs):
    return storage(hand_result()).calculate_metrics(**kwargs)["Reader"]


def test_defaults(storage):
    m = reader(storage)
    assert list(m) == ["exact_match", "f1", "num_examples_for_eval"]
    assert m["exact_match"] == pytest.approx((1 + 1 + 1 + 0) / 4)
    assert m["f1"] == pytest.approx((1 + 1 + 1 + 0.4) / 4)
    assert m["num_examples_for_eval"] == 4.0


def test_simulated_top_k_reader(storage):
    # the rank-1 answers: q1 0/.5, q2 1/1, q3 0/0, q5 0/.4
    m = reader(storage, simulated_top_k_reader=1)
    assert m["exact_match"] == pytest.approx(1 / 4)
    assert m["f1"] == pytest.approx((0.5 + 1 + 0 + 0.4) / 4)


@pytest.mark.parametrize(
    ("k", "em", "f1"),
    [
        # k=1: q1 keeps [d3] and [] (0/.5); q2 keeps [] (1/1); q3 and q5 keep nothing -> 0 (DIFFERS: Haystack NaN)
        (1, 1 / 4, (0.5 + 1 + 0 + 0) / 4),
        # k=2: q1 keeps all (1/1); q3's answers both need d6 (rank 3) -> 0
        (2, 2 / 4, 2 / 4),
        # k=3: q3 keeps both (1/1); q5's d99 was never retrieved
        (3, 3 / 4, 3 / 4),
    ],
)
def test_simulated_top_k_retriever(storage, k, em, f1):
    m = reader(storage, simulated_top_k_retriever=k)
    assert m["exact_match"] == pytest.approx(em)
    assert m["f1"] == pytest.approx(f1)
    assert m["num_examples_for_eval"] == 4.0  # queries present before simulation


def test_top_k_retriever_then_reader(storage):
    # k_ret=3 keeps q1's three answers and q3's two; k_reader=1 then keeps the best rank of each
    m = reader(storage, simulated_top_k_retriever=3, simulated_top_k_reader=1)
    assert m["exact_match"] == pytest.approx(1 / 4)
    assert m["f1"] == pytest.approx((0.5 + 1 + 0 + 0) / 4)


def test_top_k_reader_ties_keep_frame_order(storage):
    frame = reader_frame()
    frame = frame[(frame["multilabel_id"] == "q3")].copy()
    frame["rank"] = [1, 1]  # tie: the first row in the frame (em 0) wins the single slot
    docs = retriever_frame()
    result = storage(EvaluationResult({"Retriever": docs, "Reader": frame}))
    m = result.calculate_metrics(simulated_top_k_retriever=3, simulated_top_k_reader=1)["Reader"]
    assert m["exact_match"] == 0.0


def test_answer_scope_reads_scoped_columns(storage):
    # exact_match_document_id_scope: q1 r2 = 1, q2 0 (no gold ids: only the sentinel), q3 r2 = 1, q5 0
    m = reader(storage, answer_scope="document_id")
    assert m["exact_match"] == pytest.approx(2 / 4)
    assert m["f1"] == pytest.approx(2 / 4)


def test_isolated_mode(storage):
    m = reader(storage, eval_mode="isolated")
    assert m == {"exact_match": 1.0, "f1": 1.0, "num_examples_for_eval": 1.0}
    # the retriever has no isolated rows, so it reports nothing in isolated mode
    assert storage(hand_result()).calculate_metrics(eval_mode="isolated")["Retriever"] == {}


def test_isolated_top_k_retriever_falls_back_to_the_retrievers_integrated_documents(storage):
    # the retriever has no isolated rows, so its integrated ones simulate the top-k (as Haystack did):
    # q1's isolated answer [d1] is within q1's top 3 (d3, d1, d2) and kept (em 1), but not within its top 1 (d3)
    assert reader(storage, eval_mode="isolated", simulated_top_k_retriever=3)["exact_match"] == 1.0
    assert reader(storage, eval_mode="isolated", simulated_top_k_retriever=1)["exact_match"] == 0.0


def test_document_ids_none_counts_as_empty(storage):
    frame = reader_frame()
    frame["document_ids"] = frame["document_ids"].astype(object)
    frame.at[2, "document_ids"] = None  # q1 rank 3 (em 0, f1 .2): kept like []
    result = storage(EvaluationResult({"Retriever": retriever_frame(), "Reader": frame}))
    table = result.query_metrics("Reader", simulated_top_k_retriever=1)
    assert table.loc["q1", "f1"] == pytest.approx(0.5)


def test_sas_reported_when_present(storage):
    frame = reader_frame()
    frame["sas"] = [0.9, 0.3, 0.1, 0.5, 1.0, 0.2, 0.6, 0.7]
    m = storage(EvaluationResult({"Reader": frame})).calculate_metrics()["Reader"]
    assert list(m) == ["exact_match", "f1", "sas", "num_examples_for_eval"]
    assert m["sas"] == pytest.approx((0.9 + 1.0 + 0.6 + 0.7) / 4)


def test_retriever_node_must_be_named_when_ambiguous(storage):
    result = storage(hand_result())
    result["Other"] = retriever_frame()
    with pytest.raises(InvalidParameterError, match=r"several nodes.*\['Retriever', 'Other'\].*retriever_node"):
        result.calculate_metrics(simulated_top_k_retriever=1)
    m = result.calculate_metrics(simulated_top_k_retriever=1, retriever_node="Other")["Reader"]
    assert m["exact_match"] == pytest.approx(1 / 4)


def test_no_retriever_node_at_all(storage):
    result = storage(EvaluationResult({"Reader": reader_frame()}))
    with pytest.raises(InvalidParameterError, match="no node has document rows"):
        result.calculate_metrics(simulated_top_k_retriever=1)
