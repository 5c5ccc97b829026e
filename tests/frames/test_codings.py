"""Codings handed over explicitly: EvaluationResult(frames, codings=...) and from_trec's layout."""

from __future__ import annotations

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.frames.arrays import DistinctLists
from evalframe.frames.codings import Codings, NodeCoding
from evalframe.frames.trec_layout import TrecLayout
from evalframe.sources.trec import trec_frame_coded
from tests.fixtures import hand_result

RUN = {"q1": {"d1": 1.0, "d2": 2.0}, "q3": {"d1": 0.5}}
QRELS = {"q1": {"d2": 1, "d7": 0}, "q2": {"d3": 2}}


def test_from_trec_hands_its_layout_to_the_result():
    """Worked out by hand: queries q1, q2 (only judged: it follows q1, as in the qrels), q3; q1's rows ranked by
    score (d2 2.0, d1 1.0), q2 one placeholder row ""; judgments gold then non-relevant, each by query."""
    result = EvaluationResult.from_trec(RUN, QRELS, progress=False)
    layout = result._store.trec_layout("Retriever")
    assert isinstance(layout, TrecLayout)
    assert layout.query_ids.tolist() == ["q1", "q2", "q3"]
    assert layout.row_query.tolist() == [0, 0, 1, 2]
    assert layout.doc_values[layout.row_doc].tolist() == ["d2", "d1", "", "d1"]
    assert layout.constants == {"type": "document", "eval_mode": "integrated"} and layout.text_ids
    judgments = layout.judgments
    assert judgments is not None
    assert judgments.query.tolist() == [0, 1, 0]
    assert layout.doc_values[judgments.doc].tolist() == ["d2", "d3", "d7"]
    assert judgments.grade.tolist() == [1, 2, 0]
    # RR over the judged queries (trec_eval -c): q1 1 (d2 at rank 1), q2 0 (nothing retrieved); q3 has no judgments
    assert result.trec_query_metrics("RR", complete=True)["RR"].to_dict() == {"q1": 1.0, "q2": 0.0}


def test_trec_frame_coded_returns_the_frame_and_its_layout():
    run = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [1.0, 2.0], "rank": [2, 1]})
    built = trec_frame_coded(run, pd.DataFrame({"qid": ["q1"], "docid": ["b"], "relevance": [3]}), node="R")
    frame, layout = built
    assert frame is built.frame and layout is built.layout and layout.holds(frame)
    assert frame["node"].tolist() == ["R", "R"] and frame["gold_id_match"].tolist() == [0.0, 1.0]


def lists_of(result: EvaluationResult) -> dict[str, dict[str, DistinctLists]]:
    return {node: {"gold_document_ids": DistinctLists.of_rows(frame["gold_document_ids"])}
            for node, frame in result.node_results.items() if "gold_document_ids" in frame.columns}


def test_the_lists_coding_handed_over_is_the_one_used():
    result = hand_result()
    codings = lists_of(result)
    node = next(iter(codings))
    new = EvaluationResult(dict(result.node_results), matching=result.matching, codings=Codings.of_lists(codings))
    assert new._store.distinct_lists(node, "gold_document_ids") is codings[node]["gold_document_ids"]
    assert new.calculate_metrics() == result.calculate_metrics()


def test_codings_are_checked():
    result = hand_result()
    frames = dict(result.node_results)
    node = next(iter(lists_of(result)))
    with pytest.raises(InvalidParameterError, match="codings must be an evalframe.frames.codings.Codings"):
        EvaluationResult(frames, codings={node: {}})  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"codings\['Retriever'\] must be a NodeCoding"):
        EvaluationResult(frames, codings=Codings({"Retriever": {}}))  # type: ignore[dict-item]
    short = DistinctLists.of_rows(pd.Series([["x"]], dtype=object))
    with pytest.raises(InvalidParameterError, match=rf"codings\['{node}'\]\.lists\['gold_document_ids'\] must be the "
                                                    rf"DistinctLists of a list column of node '{node}' with one code "
                                                    rf"per row \({len(frames[node])}\)"):
        EvaluationResult(frames, codings=Codings.of_lists({node: {"gold_document_ids": short}}))
    _, layout = trec_frame_coded(pd.DataFrame({"qid": ["q"], "docid": ["d"], "score": [1.0], "rank": [1]}),
                                 pd.DataFrame({"qid": ["q"], "docid": ["d"], "relevance": [1]}))
    with pytest.raises(InvalidParameterError, match=rf"codings\['{node}'\]\.trec must be the TrecLayout"):
        EvaluationResult(frames, codings=Codings({node: NodeCoding(trec=layout)}))
    with pytest.raises(InvalidParameterError, match="'Nowhere'"):  # an unknown node is named
        EvaluationResult(frames, codings=Codings({"Nowhere": NodeCoding()}))


def test_codings_read_like_a_mapping():
    coding = NodeCoding(trec=None)
    codings = Codings({"A": coding})
    assert codings["A"] is coding and list(codings) == ["A"] and len(codings) == 1
    assert codings.get("B").lists == {} and codings.get("B").trec is None and coding.judgments is None
    assert Codings.of_lists({"A": {}})["A"].lists == {}
