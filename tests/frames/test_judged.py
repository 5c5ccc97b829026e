"""Judged rows (evalframe.frames.judged) and EvaluationResult.trec_metrics on hand-built frames.

The frame of _result() (node "Retriever", eval_mode integrated), worked out by hand:
  qA  ranks: 1 d3 (grade 2), 2 d1 (not judged), 3 d2 (grade 0)     judged: d3 2, d9 1, d2 0     R = 2 (d3, d9)
      P@1 = 1, P@3 = 1/3, AP = (1/1) / 2 = 0.5, RR = 1, R@3 = 1/2
  qB  ranks: 1 d5 (not judged), 2 d4 (grade 1)                      judged: d4 1                 R = 1
      P@1 = 0, P@3 = 1/3, AP = (1/2) / 1 = 0.5, RR = 1/2, R@3 = 1
  qC  placeholder row only (document_id "")                          judged: d7 1  -> not in the run
  qD  ranks: 1 d8                                                     no judgment  -> not in the qrels
Means over qA, qB: P@1 0.5, AP 0.5, RR 0.75; with complete=True qC counts as zeros: P@1 1/3, RR 0.5.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError, SchemaError
from evalframe.frames.judged import prepare_judged_rows, trec_query_table
from evalframe.metrics.trec_kernels import UNJUDGED


def _row(qid, rank, doc, gold, grades, other=(), other_grades=(), mode="integrated"):
    return {"multilabel_id": qid, "type": "document", "eval_mode": mode, "rank": rank, "document_id": doc,
            "gold_document_ids": list(gold), "gold_document_relevance": list(grades),
            "nonrelevant_document_ids": list(other), "nonrelevant_document_relevance": list(other_grades)}


def _frame() -> pd.DataFrame:
    a = (["d3", "d9"], [2, 1], ["d2"], [0])
    return pd.DataFrame([
        _row("qA", 1, "d3", *a), _row("qA", 2, "d1", *a), _row("qA", 3, "d2", *a),
        _row("qB", 1, "d5", ["d4"], [1]), _row("qB", 2, "d4", ["d4"], [1]),
        _row("qC", 1, "", ["d7"], [1]),
        _row("qD", 1, "d8", [], []),
    ])


def _result(frame: pd.DataFrame | None = None) -> EvaluationResult:
    return EvaluationResult({"Retriever": _frame() if frame is None else frame})


def test_hand_values_per_query_and_means():
    result = _result()
    table = result.trec_query_metrics(["P@1", "P@3", "AP", "RR", "R@3"])
    assert table.index.name == "multilabel_id" and list(table.index) == ["qA", "qB"]
    assert table.to_dict("index") == {
        "qA": {"P@1": 1.0, "P@3": 1 / 3, "AP": 0.5, "RR": 1.0, "R@3": 0.5},
        "qB": {"P@1": 0.0, "P@3": 1 / 3, "AP": 0.5, "RR": 0.5, "R@3": 1.0},
    }
    assert all(dtype == np.float64 for dtype in table.dtypes)
    assert result.trec_metrics(["P@1", "AP", "RR"]) == {"P@1": 0.5, "AP": 0.5, "RR": 0.75}
    assert result.trec_metrics("RR") == {"RR": 0.75}


def test_complete_counts_the_judged_queries_without_run_lines_as_zeros():
    result = _result()
    table = result.trec_query_metrics(["P@1", "RR"], complete=True)
    assert list(table.index) == ["qA", "qB", "qC"]  # qD (no judgment) is never evaluated
    assert table.loc["qC"].tolist() == [0.0, 0.0]
    assert result.trec_metrics(["P@1", "RR"], complete=True) == pytest.approx({"P@1": 1 / 3, "RR": 0.5}, abs=1e-15)


def test_the_ranking_is_rank_then_document_id_descending_whatever_the_frame_order():
    # ranks tie: trec_eval's order puts d9 before d10 before d1 (string order, descending)
    frame = pd.DataFrame([_row("q", 1, "d1", ["d1"], [1]), _row("q", 1, "d10", ["d1"], [1]),
                          _row("q", 1, "d9", ["d1"], [1]), _row("q", 0, "d0", ["d1"], [1])])
    rows = prepare_judged_rows(frame, np.arange(4), where="node 'R'")
    assert rows.position.tolist() == [0, 1, 2, 3]
    assert rows.grade.tolist() == [UNJUDGED, UNJUDGED, UNJUDGED, 1]  # d0, d9, d10, d1
    for seed in range(3):
        shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        assert _result(shuffled).trec_metrics("RR") == {"RR": 0.25}


def test_judgment_columns_defaults_and_no_answer_entries():
    # no relevance column: gold grade 1; no nonrelevant columns; "00" and "" are not documents
    frame = pd.DataFrame({"multilabel_id": ["q", "q"], "type": "document", "eval_mode": "integrated", "rank": [1, 2],
                          "document_id": ["00", "d1"], "gold_document_ids": [["00", "d1", ""], ["00", "d1", ""]]})
    rows = prepare_judged_rows(frame, np.arange(2), where="node 'R'")
    assert rows.judged_grade.tolist() == [1]
    assert rows.grade.tolist() == [UNJUDGED, 1]  # a retrieved "00" is an unjudged document
    assert _result(frame).trec_metrics(["AP", "Rprec"]) == {"AP": 0.5, "Rprec": 0.0}


def test_a_document_judged_twice_keeps_its_highest_grade():
    frame = pd.DataFrame([_row("q", 1, "d1", ["d1", "d1"], [1, 3], ["d1"], [0])])
    rows = prepare_judged_rows(frame, np.arange(1), where="node 'R'")
    assert rows.judged_grade.tolist() == [3] and rows.grade.tolist() == [3]


def test_gold_custom_document_ids_are_not_read():
    frame = _frame().assign(gold_custom_document_ids=[["x"]] * 7)
    assert _result(frame).trec_metrics("AP") == _result().trec_metrics("AP")


def test_duplicates():
    frame = pd.concat([_frame(), pd.DataFrame([_row("qB", 5, "d4", ["d4"], [1])])], ignore_index=True)
    result = _result(frame)
    with pytest.raises(SchemaError, match=r"node 'Retriever'.*query 'qB' ranks document 'd4' twice \(row 7\); trec_eval"):
        result.trec_metrics("AP")
    # first: the best-ranked d4 (rank 2) is kept, so qB is as before
    assert result.trec_metrics(["AP", "P@3"], duplicates="first") == _result().trec_metrics(["AP", "P@3"])
    with pytest.raises(InvalidParameterError, match="duplicates"):
        result.trec_metrics("AP", duplicates="last")


def test_eval_mode_selects_the_rows():
    isolated = [_row("qA", 1, "d9", ["d3", "d9"], [2, 1], mode="isolated")]
    result = _result(pd.concat([_frame(), pd.DataFrame(isolated)], ignore_index=True))
    assert result.trec_query_metrics("RR", eval_mode="isolated")["RR"].to_dict() == {"qA": 1.0}
    assert result.trec_metrics("P@1", eval_mode="isolated") == {"P@1": 1.0}
    assert result.trec_metrics("RR") == {"RR": 0.75}


def test_bad_frames_name_the_row_and_column():
    frame = _frame()
    frame.at[0, "gold_document_relevance"] = [2]
    with pytest.raises(SchemaError, match=r"row 0 has 2 gold_document_ids but 1 gold_document_relevance"):
        _result(frame).trec_metrics("AP")
    frame = _frame()
    frame.at[0, "gold_document_relevance"] = [2.5, 1]
    with pytest.raises(SchemaError, match=r"'gold_document_relevance' must hold integer grades"):
        _result(frame).trec_metrics("AP")
    frame = _frame().drop(columns="gold_document_ids")
    with pytest.raises(SchemaError, match="gold_document_ids"):
        _result(frame).trec_metrics("AP")


def test_node_choice_and_errors():
    reader = pd.DataFrame({"multilabel_id": ["qA"], "type": ["answer"], "eval_mode": ["integrated"], "rank": [1]})
    result = EvaluationResult({"Retriever": _frame(), "Reader": reader})
    assert result.trec_metrics("RR") == {"RR": 0.75}  # the one node with document rows
    with pytest.raises(InvalidParameterError, match=r"node 'Reader' has no document rows.*rank documents"):
        result.trec_metrics("RR", node="Reader")
    two = EvaluationResult({"Retriever": _frame(), "Other": _frame()})
    with pytest.raises(InvalidParameterError, match=r"needs node= when 2 nodes have document rows: \['Retriever', 'Other'\]"):
        two.trec_metrics("RR")
    assert two.trec_metrics("RR", node="Other") == {"RR": 0.75}
    assert result.trec_metrics("MRR") == {"RR": 0.75}  # ir_measures' other name of RR
    with pytest.raises(InvalidParameterError, match="unknown measure 'MRRR'"):
        result.trec_metrics("MRRR")
    with pytest.raises(InvalidParameterError, match="not in this EvaluationResult"):
        result.trec_metrics("RR", node="Nope")
    with pytest.raises(InvalidParameterError, match="eval_mode"):
        result.trec_metrics("RR", eval_mode="both")


def test_no_evaluated_query_warns_and_gives_zeros():
    frame = pd.DataFrame([_row("q", 1, "d1", [], [])])
    with pytest.warns(UserWarning, match="no query of node 'Retriever' is evaluated"):
        assert _result(frame).trec_metrics(["AP", "P@5"]) == {"AP": 0.0, "P@5": 0.0}
    assert _result(frame).trec_query_metrics(["AP"]).shape == (0, 1)


def test_trec_query_table_directly():
    frame = _frame()
    rows = prepare_judged_rows(frame, np.flatnonzero(frame["type"] == "document"), where="node 'R'")
    assert rows.in_run.tolist() == [True, True, False, True]
    assert rows.in_qrels.tolist() == [True, True, True, False]
    table = trec_query_table(rows, ["RR", "RR"], complete=True)
    assert list(table.columns) == ["RR"] and table["RR"].tolist() == [1.0, 0.5, 0.0]


# ------------------------------------------------------------------------------ cache freshness
def test_the_prepared_rows_are_reused_and_follow_in_place_edits(monkeypatch):
    from evalframe.frames import store

    builds = []
    monkeypatch.setattr(store, "prepare_judged_rows", lambda *a, **k: builds.append(1) or prepare_judged_rows(*a, **k))
    result = _result()
    assert result.trec_metrics(["AP", "nDCG"]) == result.trec_metrics(["AP", "nDCG"])
    result.trec_query_metrics("P@5")
    assert len(builds) == 1  # reused while nothing changed

    frame = result["Retriever"]
    frame.at[0, "gold_document_relevance"] = [0, 1]  # d3 now judged non-relevant in qA: R = 1 (d9)
    assert result.trec_query_metrics("AP")["AP"].to_dict() == {"qA": 0.0, "qB": 0.5}
    assert len(builds) == 2

    frame.loc[frame["multilabel_id"] == "qB", "rank"] = [2, 1]  # qB: d4 first
    assert result.trec_query_metrics("RR")["RR"].to_dict() == {"qA": 0.0, "qB": 1.0}

    frame.at[1, "document_id"] = "d9"  # qA rank 2 is now d9 (grade 1)
    assert result.trec_query_metrics("RR")["RR"].to_dict() == {"qA": 0.5, "qB": 1.0}

    assert result.trec_query_metrics("P@3")["P@3"].to_dict() == {"qA": 1 / 3, "qB": 1 / 3}  # d9 only
    frame["nonrelevant_document_relevance"] = [[1]] * 3 + [[]] * 4  # d2 (qA rank 3) now graded 1
    assert result.trec_query_metrics("P@3")["P@3"].to_dict() == {"qA": 2 / 3, "qB": 1 / 3}


def test_adding_a_judgment_column_is_seen():
    frame = pd.DataFrame({"multilabel_id": ["q", "q"], "type": "document", "eval_mode": "integrated", "rank": [1, 2],
                          "document_id": ["d1", "d2"], "gold_document_ids": [["d2"], ["d2"]]})
    result = _result(frame)
    assert result.trec_metrics("nDCG@1") == {"nDCG@1": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame["nonrelevant_document_ids"] = [["d1"], ["d1"]]
        frame["nonrelevant_document_relevance"] = [[0], [0]]
    # Bpref: d1 judged non-relevant above d2: 1 - min(1, 1) / min(1, 1) = 0 (before: d1 unjudged, skipped -> 1)
    assert result.trec_metrics("Bpref") == {"Bpref": 0.0}


def test_a_from_runs_frame_gives_haystacks_numbers_where_the_definitions_agree():
    # one gold document per query, each retrieved, no repeats: RR = mrr, AP = map, Success@k = recall_single_hit
    from evalframe import Answer, Document, Label

    def label(query, doc_id):
        return [Label(query, Document(f"text of {doc_id}", id=doc_id), True, True, "gold-label", Answer("x"))]

    docs = {i: Document(f"text {i}", id=i) for i in ["d1", "d2", "d3", "d4"]}
    result = EvaluationResult.from_runs(
        [label("first?", "d2"), label("second?", "d4")],
        {"Retriever": {"documents": [[docs["d1"], docs["d2"], docs["d3"]], [docs["d4"], docs["d1"]]]}})
    haystack = result.calculate_metrics(document_scope="document_id")["Retriever"]
    ours = result.trec_metrics(["RR", "AP", "Success@3"])
    # query 1: gold d2 at rank 2 -> 1/2; query 2: gold d4 at rank 1 -> 1
    assert ours == {"RR": 0.75, "AP": 0.75, "Success@3": 1.0}
    assert (haystack["mrr"], haystack["map"], haystack["recall_single_hit"]) == (0.75, 0.75, 1.0)


def test_row_grades_equal_a_dictionary_lookup():
    """The bitmap-filtered search of each row's grade against a plain dict of the judgments (random codes)."""
    from evalframe.frames import judged_codes
    from evalframe.metrics.trec_kernels import UNJUDGED

    rng = np.random.default_rng(5)
    width = 300
    judged_query, judged_doc = rng.integers(0, 40, 500), rng.integers(0, width, 500)
    keys, first = np.unique(judged_query * width + judged_doc, return_index=True)
    grades = rng.integers(-2, 4, len(keys))
    row_query, row_doc = np.sort(rng.integers(0, 45, 4000)), rng.integers(0, width, 4000)
    lookup = dict(zip(keys.tolist(), grades.tolist()))
    expected = [lookup.get(q * width + d, UNJUDGED) for q, d in zip(row_query.tolist(), row_doc.tolist())]
    assert judged_codes.row_grades(row_query, row_doc, width, keys, grades).tolist() == expected
    assert (judged_codes.row_grades(row_query, row_doc, width, keys[:0], grades[:0]) == UNJUDGED).all()


def test_first_rows_searched_or_scanned_alike():
    from evalframe.frames import judged
    from evalframe.frames.arrays import first_rows

    rng = np.random.default_rng(2)
    codes = np.sort(rng.integers(0, 50, 400))
    codes = np.unique(codes, return_inverse=True)[1]  # ascending, every code present
    assert judged._first_rows(codes, int(codes.max()) + 1, ascending=True).tolist() == first_rows(codes).tolist()
    gap = np.where(codes >= 10, codes + 1, codes)  # code 10 missing: the search is refused, the scan answers
    assert judged._first_rows(gap, int(gap.max()) + 1, ascending=True).tolist() == first_rows(gap).tolist()
    assert judged._first_rows(codes[:0], 0, ascending=True).tolist() == []
