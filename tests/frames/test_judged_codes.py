"""Judged rows from codes (evalframe.frames.judged_codes): the same measures as the judged rows of a node frame."""

from __future__ import annotations

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.frames.judged_codes import judged_rows_of_codes
from evalframe.metrics.trec import evaluate, parse_measures

MEASURES = parse_measures(["AP", "nDCG", "nDCG@3", "P@2", "R@5", "RR", "Rprec", "Bpref", "Success@1", "P(rel=2)@3"])


def _random_case(seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(30)]
    run = {f"q{q}": {d: float(rng.integers(0, 4)) for d in rng.choice(docs, rng.integers(1, 12), replace=False)}
           for q in rng.permutation(12)[:9]}
    qrels = {f"q{q}": {d: int(rng.integers(-1, 4)) for d in rng.choice(docs, rng.integers(1, 8), replace=False)}
             for q in rng.permutation(12)[:9]}
    return run, qrels


def _codes(run, qrels):
    """The codes worked out with dicts and sorted(): trec_eval's order (score descending, docid descending)."""
    query_ids = list(run) + [q for q in qrels if q not in run]
    code = {q: i for i, q in enumerate(query_ids)}
    doc_code: dict[str, int] = {}
    row_query, row_doc = [], []
    for qid in run:
        for docid, _ in sorted(run[qid].items(), key=lambda item: (item[1], item[0]), reverse=True):
            row_query.append(code[qid])
            row_doc.append(doc_code.setdefault(docid, len(doc_code)))
    judged = [(code[q], doc_code.get(d, -1), g) for q in qrels for d, g in qrels[q].items()]
    jq, jd, jg = (np.array(column, dtype=np.int64) for column in zip(*judged))
    return np.array(row_query), np.array(row_doc), jq, jd, jg, np.array(query_ids, dtype=object)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("complete", [False, True])
def test_the_same_values_as_the_judged_rows_of_the_node_frame(seed, complete):
    run, qrels = _random_case(seed)
    reference = EvaluationResult.from_trec(run, qrels, progress=False).trec_query_metrics(MEASURES, complete=complete)
    rows = judged_rows_of_codes(*_codes(run, qrels), where="node 'Retriever'")
    values = evaluate(MEASURES, row_query=rows.row_query, position=rows.position, grade=rows.grade,
                      judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries)
    evaluated = rows.evaluated(complete)
    # queries only in the qrels come last here, and wherever query_order puts them in the frame: compare by id
    got = {qid: {name: float(column[code]) for name, column in values.items()}
           for code, qid in zip(evaluated, rows.query_ids[evaluated])}
    assert got == reference.to_dict("index")


def test_empty_ranking_and_a_judged_document_outside_it():
    rows = judged_rows_of_codes(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.array([0]), np.array([-1]),
                                np.array([1]), np.array(["q1"], dtype=object), where="node 'R'")
    assert rows.in_run.tolist() == [False] and rows.in_qrels.tolist() == [True]
    assert rows.evaluated().tolist() == [] and rows.evaluated(complete=True).tolist() == [0]


def test_from_trecs_judged_rows_are_made_from_its_codes_when_asked_for():
    """trec_judged_rows (frames, no longer the facade's): the codes read only when the rows are asked for, the
    isolated rows none, the subtopics (ndeval's numbering: subtopic ids in order of first appearance) made once, on
    first read. q1 ranks d2 then d1, q1's judgments: d1 grade 2, d9 (not ranked) grade 1."""
    from evalframe.frames.judged_codes import trec_judged_rows

    calls = []

    def codes():
        calls.append("codes")
        return (np.array([0, 0]), np.array([1, 0]), np.array([0, 0]), np.array([0, -1]), np.array([2, 1]),
                np.array(["q1"], dtype=object))

    docids = np.array(["d1", "d2"], dtype=object)
    assert trec_judged_rows(codes, lambda: docids, "Retriever", None, "isolated", "error") is None
    assert calls == []
    rows = trec_judged_rows(codes, lambda: docids, "Retriever", None, "integrated", "first")
    assert calls == ["codes"]
    assert rows.where == "node 'Retriever' (document rows, eval_mode='integrated')"
    assert rows.position.tolist() == [0, 1] and rows.grade.tolist()[1] == 2 and rows.subtopics is None
    assert rows.judged_grade.tolist() == [2, 1] and rows.in_qrels.tolist() == [True]

    table = {"qid": ["q1", "q1", "q1"], "subtopic": ["7", "3", "7"], "docid": ["d2", "d1", "d1"], "relevance": [1, 1, 2]}
    rows = trec_judged_rows(codes, lambda: docids, "Retriever", table, "integrated", "error")
    subtopics = rows.subtopics()
    assert subtopics is rows.subtopics()  # made once
    # row 0 is d2 (subtopic "7": code 0, grade 1); row 1 is d1 (subtopic "3": code 1, grade 1; "7": code 0, grade 2)
    assert list(zip(subtopics.row_position.tolist(), subtopics.row_subtopic.tolist(), subtopics.row_grade.tolist())) \
        == [(0, 0, 1), (1, 1, 1), (1, 0, 2)]
