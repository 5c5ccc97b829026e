"""Evaluators of other frameworks (docs/evaluators.md): the seeds' examples and hand-worked edge cases."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from evalframe import (
    Document,
    DocumentRecallEvaluator,
    InvalidParameterError,
    RecallMode,
    RetrievalNDCGAny,
    RetrievalRecall,
    RetrievalRecallAll,
    RetrieverRecall,
)
from evalframe.sources.matching import is_chunk_from_original


@dataclass
class Haystack2Document:  # what a Haystack 2.x user passes: any object with .content
    content: str


# ------------------------------------------------------------------ DocumentRecallEvaluator (seed 000)
def test_seed_single_hit_example():
    result = DocumentRecallEvaluator().run(
        ground_truth_documents=[[Haystack2Document("France")], [Haystack2Document("9th century"), Haystack2Document("9th")]],
        retrieved_documents=[[Haystack2Document("France")],
                             [Haystack2Document("9th century"), Haystack2Document("10th century"), Haystack2Document("9th")]],
    )
    assert result == {"score": 1.0, "individual_scores": [1.0, 1.0]}


def test_seed_multi_hit_example():
    result = DocumentRecallEvaluator(mode="multi_hit").run(
        ground_truth_documents=[[Document("Paris"), Document("France")]],
        retrieved_documents=[[Document("Paris"), Document("Berlin")]],
    )
    assert result == {"score": 0.5, "individual_scores": [0.5]}


def test_document_recall_edges():
    multi = DocumentRecallEvaluator(RecallMode.MULTI_HIT)
    # unique contents: gold {A, B}, retrieved {A} -> 1/2 whatever the duplicates
    assert multi.run([["A", "A", "B"]], [["A", "A"]])["individual_scores"] == [0.5]
    with pytest.warns(UserWarning, match="no ground truth or no retrieved"):
        assert multi.run([[], ["A"], [""], ["A"]], [["A"], [], ["A"], [""]])["individual_scores"] == [0.0] * 4
    single = DocumentRecallEvaluator("single_hit")
    assert single.run([[], ["A"], ["A", "B"]], [["A"], ["B"], ["C", "B"]])["individual_scores"] == [0.0, 0.0, 1.0]
    assert single.run([], []) == {"score": 0.0, "individual_scores": []}


def test_document_recall_errors_and_serialisation():
    with pytest.raises(InvalidParameterError, match=r"ground_truth_documents has 2 and retrieved_documents has 1"):
        DocumentRecallEvaluator().run([["A"], ["B"]], [["A"]])
    with pytest.raises(InvalidParameterError,
                       match=r"mode must be one of \['single_hit', 'multi_hit'\]; got 'multi'\. Did you mean 'multi_hit'\?"):
        DocumentRecallEvaluator(mode="multi")
    with pytest.raises(InvalidParameterError, match=r"retrieved_documents: query 1 \(counting from 1\): a dict has no content"):
        DocumentRecallEvaluator().run([["A"]], [[{"id": "x"}]])
    evaluator = DocumentRecallEvaluator(mode="multi_hit")
    data = evaluator.to_dict()
    assert data == {"type": "evalframe.evaluators.DocumentRecallEvaluator", "init_parameters": {"mode": "multi_hit"}}
    assert DocumentRecallEvaluator.from_dict(data).mode is RecallMode.MULTI_HIT
    haystack = {"type": "haystack.components.evaluators.document_recall.DocumentRecallEvaluator",
                "init_parameters": {"mode": "single_hit"}}
    assert DocumentRecallEvaluator.from_dict(haystack).mode is RecallMode.SINGLE_HIT
    assert RecallMode.from_str("single_hit") is RecallMode.SINGLE_HIT and str(RecallMode.MULTI_HIT) == "multi_hit"


# ------------------------------------------------------------------ RetrieverRecall (seed 001)
SEED_RETRIEVED = [
    "Apple is founded before Google.",
    "Feburary has 28 days in common years. Feburary has 29 days in leap years. Feburary is the second month of the year.",
]
SEED_GOLD = [
    ["Apple is founded in 1976.", "Google is founded in 1998.", "Apple is founded before Google."],
    ["Feburary has 28 days in common years", "Feburary has 29 days in leap years"],
]


def test_seed_retriever_recall_example():
    average, per_query = RetrieverRecall().compute(SEED_RETRIEVED, SEED_GOLD)
    assert average == pytest.approx(2 / 3) and per_query == pytest.approx([1 / 3, 1.0])
    # the same retrieval given as lists of contexts (joined with a space)
    as_lists = [[SEED_RETRIEVED[0]], SEED_RETRIEVED[1].split(". ")]
    assert RetrieverRecall().compute(as_lists, SEED_GOLD)[1] == pytest.approx([1 / 3, 1.0])


def test_retriever_recall_edges():
    recall = RetrieverRecall()
    # duplicates count each time; an empty retrieval contains only ""
    assert recall.compute(["a b"], [["a", "a", "c"]])[1] == pytest.approx([2 / 3])
    assert recall.compute([[]], [["x", ""]])[1] == pytest.approx([1 / 2])
    with pytest.warns(UserWarning, match="no ground-truth context"):
        assert recall.compute(["text"], [[]]) == (0.0, [0.0])
    with pytest.raises(InvalidParameterError, match="retrieved_contexts has 1 and gt_contexts has 2"):
        recall.compute(["a"], [["a"], ["b"]])
    assert RetrieverRecall.from_dict(recall.to_dict()).compute(SEED_RETRIEVED, SEED_GOLD)[0] == pytest.approx(2 / 3)


# ------------------------------------------------------------------ REMem @k evaluators (seed 002)
GOLD = [["doc A text", "doc B text"], ["gold"], []]
RETRIEVED = [["A text", "C", "B text"], ["x", "gold", "y", "gold"], ["anything"]]


@pytest.mark.filterwarnings("ignore:.* query\\(ies\\) retrieved fewer than")
def test_recall_at_k_by_hand():
    pooled, per_example = RetrievalRecall(round_pooled=None).calculate_metric_scores(GOLD, RETRIEVED, [3, 1, 2, 3])
    # q1: A at rank 1, B at rank 3 | q2: gold at rank 2 | q3: no gold -> 0.0
    assert per_example == [{"Recall@1": 0.5, "Recall@2": 0.5, "Recall@3": 1.0},
                           {"Recall@1": 0.0, "Recall@2": 1.0, "Recall@3": 1.0},
                           {"Recall@1": 0.0, "Recall@2": 0.0, "Recall@3": 0.0}]
    assert list(pooled) == ["Recall@1", "Recall@2", "Recall@3"]
    assert pooled == pytest.approx({"Recall@1": 0.5 / 3, "Recall@2": 1.5 / 3, "Recall@3": 2 / 3})


@pytest.mark.filterwarnings("ignore:.* query\\(ies\\) retrieved fewer than")
def test_recall_all_at_k_by_hand():
    pooled, per_example = RetrievalRecallAll(round_pooled=None).calculate_metric_scores(GOLD, RETRIEVED, [1, 2, 3])
    assert [e["Recall_all@1"] for e in per_example] == [0.0, 0.0, 0.0]
    assert [e["Recall_all@3"] for e in per_example] == [1.0, 1.0, 0.0]
    assert pooled["Recall_all@3"] == pytest.approx(2 / 3)
    # duplicate gold documents count once
    assert RetrievalRecallAll().calculate_metric_scores([["g", "g"]], [["g"]], [1])[0] == {"Recall_all@1": 1.0}


@pytest.mark.filterwarnings("ignore:.* query\\(ies\\) retrieved fewer than")
def test_ndcg_any_by_hand():
    pooled, per_example = RetrievalNDCGAny(round_pooled=None).calculate_metric_scores(GOLD, RETRIEVED, [1, 2, 3, 4])
    # q1: relevances [1, 0, 1] -> DCG@3 = 1 + 0 + 1/log2(3); ideal [1, 1, 0] -> 1 + 1
    assert per_example[0]["NDCG_any@1"] == 1.0
    assert per_example[0]["NDCG_any@3"] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    # q2: relevances [0, 1, 0, 1]: rank 2 is not discounted, and the ideal sorts the whole retrieved list
    # ([1, 1, 0, 0]) -> NDCG@2 = (0 + 1) / (1 + 1); @4 = (1 + 1/log2(4)) / (1 + 1)
    assert per_example[1]["NDCG_any@1"] == 0.0 and per_example[1]["NDCG_any@2"] == 0.5
    assert per_example[1]["NDCG_any@4"] == pytest.approx((1 + 1 / math.log2(4)) / 2)
    assert per_example[2] == {"NDCG_any@1": 0.0, "NDCG_any@2": 0.0, "NDCG_any@3": 0.0, "NDCG_any@4": 0.0}
    # q1 at 2: relevances [1, 0] of [1, 0, 1] -> 1 / (1 + 1)
    assert pooled["NDCG_any@2"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)


def test_k_larger_than_the_list_warns_and_uses_all():
    with pytest.warns(UserWarning, match="retrieved fewer than 10 chunks"):
        pooled, _ = RetrievalRecall().calculate_metric_scores([["gold"]], [["gold"]], [10])
    assert pooled == {"Recall@10": 1.0}


def test_at_k_errors_and_serialisation():
    with pytest.raises(InvalidParameterError, match="gold_docs has 1 and retrieved_docs has 2"):
        RetrievalRecall().calculate_metric_scores([["a"]], [["a"], ["b"]], [1])
    with pytest.raises(InvalidParameterError, match=r"k_list must hold positive ints"):
        RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], [0])
    for cls in (RetrievalRecall, RetrievalRecallAll, RetrievalNDCGAny):
        assert cls.from_dict(cls().to_dict()).calculate_metric_scores([["a"]], [["a"]], [1])[0][f"{cls.key}@1"] == 1.0


@pytest.mark.parametrize(
    ("chunk", "original", "expected"),
    [
        ("Berlin is big", "Berlin is big and old", True),
        ("Berlin is big", "Bonn", False),
        ("Date: 2024-05-01\nBerlin is big", "Berlin is big.", True),  # the date line is ignored
        ("Date: 2024-05-01", "", True),  # only a date line: nothing left, which every text contains
        ("user: I moved to Lisbon", '{"role": "user", "content": "I moved to Lisbon"}', True),
        ("assistant: Noted: Lisbon", "Noted", True),  # the turn's text ends at its next ": "
        ('say "hi"', '{"text": "say \\"hi\\""}', True),  # JSON-escaped, with its quotes
        ('say "hi"', "say \\hi", False),
    ],
)
def test_is_chunk_from_original(chunk, original, expected):
    assert is_chunk_from_original(chunk, original) is expected


# ------------------------------------------------------------------ strings where lists are required (issue 12)
def test_a_string_per_query_is_refused_not_scored_by_character():
    # before: "Paris" and "Spain" became the character sets {P,a,r,i,s} and {S,p,a,i,n}, which intersect -> 1.0
    with pytest.raises(InvalidParameterError, match=r"ground_truth_documents: query 1 \(counting from 1\) must give a "
                                                    r"list of documents .*got str 'Paris'\. Wrap it in a list"):
        DocumentRecallEvaluator().run(["Paris"], ["Spain"])
    with pytest.raises(InvalidParameterError, match=r"retrieved_documents: query 2 .*got str 'Spain'"):
        DocumentRecallEvaluator().run([["Paris"], ["Spain"]], [["Paris"], "Spain"])
    with pytest.raises(InvalidParameterError, match=r"gt_contexts: query 1 .*list of strings .*got str"):
        RetrieverRecall().compute(["Apple is founded before Google."], ["Apple"])
    for cls in (RetrievalRecall, RetrievalRecallAll, RetrievalNDCGAny):
        with pytest.raises(InvalidParameterError, match=r"retrieved_docs: query 1 .*list of strings.*got str 'gold'"):
            cls().calculate_metric_scores([["gold"]], ["gold"], [1])
        with pytest.raises(InvalidParameterError, match=r"gold_docs: query 1 .*got str 'g'"):
            cls().calculate_metric_scores(["g"], [["g"]], [1])


def test_retriever_recall_keeps_one_string_per_query():
    # AdalFlow's compute takes List[str] (contexts already joined) or List[List[str]] for retrieved_contexts
    assert RetrieverRecall().compute(["a b", ["c", "d"]], [["a", "x"], ["c d"]])[1] == [0.5, 1.0]


# ------------------------------------------------------------------ REMem's pooled rounding and empty lists (issue 12)
def test_pooled_results_are_rounded_to_4_decimals_as_in_remem():
    gold, retrieved = [["g"], ["g"], ["g"]], [["g"], ["x"], ["x"]]
    # per example 1, 0, 0 -> mean 1/3, reported by REMem as round(1/3, 4) = 0.3333; per-example values unrounded
    pooled, per_example = RetrievalRecall().calculate_metric_scores(gold, retrieved, [1])
    assert pooled == {"Recall@1": 0.3333} and [e["Recall@1"] for e in per_example] == [1.0, 0.0, 0.0]
    assert RetrievalRecallAll().calculate_metric_scores(gold, retrieved, [1])[0] == {"Recall_all@1": 0.3333}
    # NDCG@2 of [x, g]: relevances [0, 1] -> DCG 0 + 1, ideal [1, 0] -> 1: 1.0; of [g]: 1.0; of [x]: 0 -> 2/3
    pooled, per_example = RetrievalNDCGAny().calculate_metric_scores(gold, [["x", "g"], ["g"], ["x"]], [1])
    assert pooled == {"NDCG_any@1": 0.3333}  # @1: 0, 1, 0
    # round_pooled=None gives the exact mean, round_pooled=2 two decimals; to_dict keeps the choice
    assert RetrievalRecall(round_pooled=None).calculate_metric_scores(gold, retrieved, [1])[0]["Recall@1"] == 1 / 3
    assert RetrievalRecall(round_pooled=2).calculate_metric_scores(gold, retrieved, [1])[0]["Recall@1"] == 0.33
    restored = RetrievalRecall.from_dict(RetrievalRecall(round_pooled=None).to_dict())
    assert restored.round_pooled is None


@pytest.mark.filterwarnings("ignore:.* query\\(ies\\) retrieved fewer than")
def test_empty_retrieved_list_scores_zero():
    """REMem on an empty retrieved list: recall counts the golds found in the (empty) top k, 0 of 1 -> 0.0, so
    recall_all is 0.0 too; NDCG_any uses the classic dcg_at_k, which is 0 for an empty relevance list, and NDCG is 0
    when the ideal DCG is 0 -> 0.0. Before: "attempt to get argmax of an empty sequence"."""
    gold, retrieved = [["g"], ["g"]], [[], ["g"]]
    assert RetrievalRecall().calculate_metric_scores(gold, retrieved, [1, 3]) == (
        {"Recall@1": 0.5, "Recall@3": 0.5}, [{"Recall@1": 0.0, "Recall@3": 0.0}, {"Recall@1": 1.0, "Recall@3": 1.0}])
    assert RetrievalRecallAll().calculate_metric_scores(gold, retrieved, [1])[1] == [{"Recall_all@1": 0.0},
                                                                                   {"Recall_all@1": 1.0}]
    assert RetrievalNDCGAny().calculate_metric_scores(gold, retrieved, [2])[1] == [{"NDCG_any@2": 0.0},
                                                                                 {"NDCG_any@2": 1.0}]
    # nothing retrieved and no gold: 0.0 as well
    assert RetrievalNDCGAny().calculate_metric_scores([[]], [[]], [1])[0] == {"NDCG_any@1": 0.0}
