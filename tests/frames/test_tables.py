"""A node's tables for one call's options, from the prepared store (evalframe.frames.tables): what the facade's
analyses delegate to, checked on hand-made frames with values worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from evalframe import score_measure
from evalframe.errors import InvalidParameterError, SchemaError
from evalframe.frames.store import PreparedStore
from evalframe.frames.tables import (answer_table, document_table, judged_rows_of, listed_rows, node_query_table,
                                     score_table, trec_relstrings, trec_table)
from evalframe.options import MetricOptions
from tests.fixtures import hand_result

OPTIONS = MetricOptions(context_matching_threshold=65.0)


def _ranking() -> pd.DataFrame:
    """q1 ranks d1, d2, d3 (d2 graded 12, d3 graded 0, d1 unjudged); q2 ranks d4 (graded 1)."""
    return pd.DataFrame({"multilabel_id": ["q1", "q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
                         "rank": [1, 2, 3, 1], "document_id": ["d1", "d2", "d3", "d4"],
                         "gold_document_ids": [["d2", "d3"]] * 3 + [["d4"]],
                         "gold_document_relevance": [[12, 0]] * 3 + [[1]]})


def test_the_answer_and_document_tables_of_the_hand_result():
    store = PreparedStore(hand_result().node_results)
    # tests/fixtures.py: q1's answers f1 .5, 1, .2; q2 the no-answer placeholder (1); q3 0, 1; q5 .4
    assert answer_table(store, "Reader", OPTIONS)["f1"].to_dict() == {"q1": 1.0, "q2": 1.0, "q3": 1.0, "q5": 0.4}
    cut = answer_table(store, "Reader", OPTIONS.replace(simulated_top_k_reader=1))
    assert cut["f1"].to_dict() == {"q1": 0.5, "q2": 1.0, "q3": 0.0, "q5": 0.4}
    assert answer_table(store, "Retriever", OPTIONS) is None and document_table(store, "Reader", OPTIONS) is None
    mrr = document_table(store, "Retriever", OPTIONS)["mrr"]
    assert mrr.to_dict() == pytest.approx({"q1": 1.0, "q2": 1.0, "q3": 1 / 3, "q4": 1.0, "q5": 0.0, "q6": 0.5})
    assert len(listed_rows(store, "Reader", "answer", "integrated")) == 7  # 3 + 1 + 2 + 1 rows; q1's isolated row left
    assert listed_rows(store, "Reader", "answer", "isolated")["multilabel_id"].tolist() == ["q1"]


def test_a_row_score_is_the_mean_over_the_rows_the_top_k_keeps_and_joins_the_metrics():
    frame = _ranking().assign(**{"scores.cost": [1.0, 3.0, 5.0, 7.0], "scores.judge": [0.5, 0.5, 0.5, 0.25]})
    store = PreparedStore({"Retriever": frame})
    declared = {"cost": score_measure("cost", direction="lower", level="row"), "judge": score_measure("judge")}
    assert score_table(store, "Retriever", OPTIONS, declared).to_dict("index") == {
        "q1": {"cost": 3.0, "judge": 0.5}, "q2": {"cost": 7.0, "judge": 0.25}}
    top1 = OPTIONS.replace(simulated_top_k_retriever=1)
    assert score_table(store, "Retriever", top1, declared)["cost"].to_dict() == {"q1": 1.0, "q2": 7.0}
    assert list(score_table(store, "Retriever", top1, declared, levels=("row",)).columns) == ["cost"]
    with pytest.raises(SchemaError, match="has a column 'scores.cost' but no score 'cost' is declared"):
        score_table(store, "Retriever", top1, {})
    assert score_table(PreparedStore(hand_result().node_results), "Reader", OPTIONS, {}) is None
    with_metrics = node_query_table(PreparedStore(hand_result().node_results), "Reader", OPTIONS, {})
    assert list(with_metrics.columns) == ["exact_match", "f1"] and with_metrics.index.tolist() == ["q1", "q2", "q3", "q5"]


def test_the_trec_table_and_relstrings_of_a_node():
    store = PreparedStore({"Retriever": _ranking()})
    table, node = trec_table(store, ["RR", "P@1", "P(rel=2)@3"], None, "integrated", False, "error")
    # q1: d2 (grade 12) at rank 2; q2: d4 (grade 1) at rank 1, under rel=2 not relevant
    assert node == "Retriever"
    assert table.to_dict("index") == {"q1": {"RR": 0.5, "P@1": 0.0, "P(rel=2)@3": pytest.approx(1 / 3)},
                                      "q2": {"RR": 1.0, "P@1": 1.0, "P(rel=2)@3": 0.0}}
    judged, _ = trec_table(store, ["RR"], "Retriever", "integrated", False, "error", judged_only=True)
    assert judged["RR"].to_dict() == {"q1": 1.0, "q2": 1.0}  # trec_eval -J: d1 removed, d2 first
    # relstring: a grade above 9 is '>', not judged '-', judged 0 is '0'
    assert trec_relstrings(store, 3, None, "integrated", False, "error", "skip", None, False).to_dict() == {
        "q1": "->0", "q2": "1"}
    assert trec_relstrings(store, 3, None, "integrated", False, "error", "skip", 1, False).to_dict() == {
        "q1": "-", "q2": "1"}


def test_the_trec_tables_refusals_name_the_node_and_what_it_lacks():
    reader = hand_result()["Reader"]
    store = PreparedStore({"Retriever": _ranking(), "Reader": reader})
    with pytest.raises(InvalidParameterError, match=r"node 'Reader' has no document rows \(a reader's answers only\?\)"
                                                    r".*Nodes with document rows: \['Retriever'\]"):
        trec_table(store, ["RR"], "Reader", "integrated", False, "error")
    with pytest.raises(InvalidParameterError, match=r"node 'Retriever' has no document rows with eval_mode='isolated'\."):
        trec_table(store, ["RR"], None, "isolated", False, "error")
    with pytest.raises(InvalidParameterError, match=r"relstring ranks documents\. Nodes with document rows"):
        trec_relstrings(store, 3, "Reader", "integrated", False, "error", "skip", None, False)
    with pytest.raises(InvalidParameterError, match="length is the number of top documents shown, an int; got 2.5"):
        trec_relstrings(store, 2.5, None, "integrated", False, "error", "skip", None, False)  # type: ignore[arg-type]
    two = PreparedStore({"A": _ranking(), "B": _ranking()})
    with pytest.raises(InvalidParameterError, match=r"trec_metrics needs node= when 2 nodes have document rows: "
                                                    r"\['A', 'B'\] \(all nodes: \['A', 'B'\]\)"):
        judged_rows_of(two, None, "integrated", "error", "skip")
    with pytest.raises(InvalidParameterError, match="missing_queries"):
        judged_rows_of(two, "A", "integrated", "error", "never")
