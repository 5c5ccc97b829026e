"""Empty inputs follow the convention of the caller's form (docs/ir-researchers.md, "Reading TREC files").

A run given as a dict follows pytrec_eval (an empty run evaluates no query); ``complete=True`` scores every qrels
query 0 (as ir_measures does with an empty run, and trec_eval -c); a file follows trec_eval (an empty run file is
refused, naming it). The references are run here: pytrec_eval and ir_measures.
"""

from __future__ import annotations

import math
import warnings

import pytest

from evalframe import EvaluationResult
from evalframe.errors import LoadError
from evalframe.sources.trec_files import read_run

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
MEASURES = {"AP": "map", "P@5": "P_5", "nDCG": "ndcg", "RR": "recip_rank"}


def _table(run, **options):
    result = EvaluationResult.from_trec(run, QRELS, progress=False)
    return result.trec_query_metrics(list(MEASURES), **options)


def test_an_empty_run_dict_evaluates_no_query_as_pytrec_eval_does():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    assert pytrec_eval.RelevanceEvaluator(QRELS, set(MEASURES.values())).evaluate({}) == {}
    assert len(_table({})) == 0
    assert read_run({}).columns.tolist() == ["qid", "docid", "score", "rank"] and len(read_run({})) == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        means = EvaluationResult.from_trec({}, QRELS, progress=False).trec_metrics(list(MEASURES))
    assert means == {name: 0.0 for name in MEASURES}  # as before for a run sharing no query with the qrels
    assert any("no query of node 'Retriever' is evaluated" in str(warning.message) for warning in caught)


def test_an_empty_run_with_complete_scores_every_qrels_query_zero_as_ir_measures_does():
    ir_measures = pytest.importorskip("ir_measures")
    parsed = [ir_measures.parse_measure(name) for name in MEASURES]
    theirs = {(metric.query_id, str(metric.measure)): metric.value for metric in ir_measures.iter_calc(parsed, QRELS, {})}
    table = _table({}, complete=True)
    assert sorted(table.index) == ["q1", "q2"]
    assert {(qid, name): value for qid, row in table.iterrows() for name, value in row.items()} == theirs
    assert all(value == 0.0 for value in theirs.values())


def test_a_run_dict_query_without_documents_is_not_in_the_run():
    """pytrec_eval evaluates a run query given as {} (every measure 0); evalframe reads it as a query the run does not
    retrieve for: skipped, or 0 with complete=True (documented difference, docs/ir-researchers.md)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q1": {}, "q2": {"d3": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, set(MEASURES.values())).evaluate(run)
    assert sorted(theirs) == ["q1", "q2"] and all(value == 0.0 for value in theirs["q1"].values())
    with pytest.warns(UserWarning, match=r"the run dict gives 1 query no document \(e.g. \['q1'\]\): read as queries "
                                         "the run retrieves nothing for"):
        assert _table(run).index.tolist() == ["q2"]
    with pytest.warns(UserWarning, match="pytrec_eval scores such a query 0"):
        table = _table(run, complete=True)  # both queries, as pytrec_eval gives them
    assert {qid: {name: float(row[name]) for name in MEASURES} for qid, row in table.iterrows()} == {
        qid: {name: pytest.approx(theirs[qid][trec], abs=1e-12) for name, trec in MEASURES.items()} for qid in theirs}


def test_an_empty_run_file_is_refused_naming_it_as_trec_eval_does(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("")
    with pytest.raises(LoadError, match=f"run file {path} holds no line; a TREC run file has one line"):
        EvaluationResult.from_trec(path, QRELS, progress=False)


@pytest.mark.parametrize("built", [False, True], ids=["as codes", "frame built"])
def test_an_empty_run_and_empty_qrels_evaluate_no_query_as_pytrec_eval_does(built):
    """Issue 35, item 11: from_trec({}, {}) then trec_metrics raised "node 'Retriever' has no document rows" (and,
    once the frame was built, "no node has document rows"); pytrec_eval evaluates no query, ir_measures' mean of no
    query is NaN, evalframe's is 0.0 with a warning, as for an empty run dict (docs/ir-researchers.md)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    assert pytrec_eval.RelevanceEvaluator({}, set(MEASURES.values())).evaluate({}) == {}
    parsed = [ir_measures.parse_measure(name) for name in MEASURES]
    assert list(ir_measures.iter_calc(parsed, {}, {})) == []
    assert all(math.isnan(value) for value in ir_measures.calc_aggregate(parsed, {}, {}).values())
    result = EvaluationResult.from_trec({}, {}, progress=False)
    if built:
        assert len(result["Retriever"]) == 0 and result.node_results.is_built("Retriever")
    assert result.has_documents("Retriever")
    for complete in (False, True):  # no judged query either: complete=True adds none
        table = result.trec_query_metrics(list(MEASURES), complete=complete)
        assert len(table) == 0 and list(table.columns) == list(MEASURES) and table.index.name == "multilabel_id"
        with pytest.warns(UserWarning, match="no query of node 'Retriever' is evaluated"):
            means = result.trec_metrics([*MEASURES, "num_q", "num_ret"], complete=complete)
        assert means == {**dict.fromkeys(MEASURES, 0.0), "NumQ": 0.0, "NumRet": 0.0}
    assert result.calculate_metrics() == {"Retriever": {}}  # no query: no metric, as for any node without rows


@pytest.mark.parametrize("copy_of", ["csv", "parquet", "partitioned", "deepcopy"])
def test_an_empty_trec_result_stays_one_of_no_query_when_saved_loaded_or_copied(tmp_path, copy_of):
    """The review of item 11: after save + load (or a deep copy) the node of no row was "no node has document rows"
    (its rows' type cells are gone; its columns say it is a document node), and report() refused its headline."""
    import copy

    result = EvaluationResult.from_trec({}, {}, progress=False)
    if copy_of == "deepcopy":
        again = copy.deepcopy(result)
    else:
        storage = "csv" if copy_of == "csv" else "parquet"
        folder = result.save(tmp_path / "empty", format=storage, partitions=4 if copy_of == "partitioned" else None,
                             progress=False)
        again = EvaluationResult.load(folder, progress=False)
    assert again.has_documents("Retriever") and not again.has_answers("Retriever")
    table = again.trec_query_metrics(list(MEASURES))
    assert len(table) == 0 and list(table.columns) == list(MEASURES)
    with pytest.warns(UserWarning, match="no query of node 'Retriever' is evaluated"):
        assert again.trec_metrics([*MEASURES, "num_q"]) == {**dict.fromkeys(MEASURES, 0.0), "NumQ": 0.0}
    assert again.calculate_metrics() == {"Retriever": {}}
    text = again.report(charts=True).text
    assert "Worst queries of Retriever by recall_single_hit" in text and "no query scores" in text
