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
