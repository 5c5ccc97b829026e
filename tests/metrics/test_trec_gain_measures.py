"""The gain-based and inferred measures (issue 27) through the public API, by each of their names:
``EvaluationResult.from_trec(run, qrels).trec_query_metrics / trec_metrics`` against pytrec_eval, the trec_eval 10.0
binary's printed values and ir_measures (the kernels' own sweeps are in test_trec_gain_kernels.py)."""

from __future__ import annotations

import math
import os
import shutil

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.metrics.trec import parse_measure
from tests.metrics.test_trec_gain_kernels import (
    COMPARED,
    EXAMPLE_QRELS,
    EXAMPLE_RUN,
    PRINTED,
    TREC_EVAL,
    assert_printed,
    ir_measures_case,
    random_case,
    run_trec_eval,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

#: each measure's names: ir_measures' (canonical first), trec_eval's, pytrec_eval's key; and the pytrec_eval measure
NAMES = {
    "infAP": ["infAP", "infAP(rel=1)"],
    "binG": ["binG"],
    "G": ["G"],
    "ndcg_rel": ["ndcg_rel"],
    "Rndcg": ["Rndcg"],
}


def from_dicts(run, qrels) -> EvaluationResult:
    return EvaluationResult.from_trec(run, qrels)


@pytest.mark.parametrize("seed", range(8))
def test_trec_eval_measures_by_every_name_equal_pytrec_eval(seed):
    rng = np.random.default_rng(600 + seed)
    run, qrels = random_case(rng, negatives=False, n_queries=8)
    if not any(q in qrels for q in run):
        return
    result = from_dicts(run, qrels)
    level = 1 + seed % 2
    for key, names in NAMES.items():
        expected = pytrec_eval.RelevanceEvaluator(qrels, {key}, relevance_level=level).evaluate(run)
        for name in names:
            if level != 1:
                measure = parse_measure(name)
                name = f"{measure.name}(rel={level})" if "rel" in _takes(measure.name) else name
            table = result.trec_query_metrics([name])
            column = table[table.columns[0]]
            for qid, value in column.items():
                assert value == pytest.approx(expected[qid][key], abs=1e-12), (name, qid)
            COMPARED["pytrec_eval"] += len(column)
            mean = result.trec_metrics([name])[table.columns[0]]
            assert mean == pytest.approx(np.mean([expected[q][key] for q in column.index]), abs=1e-12)


def _takes(name: str) -> set[str]:
    from evalframe.metrics.registry import TREC_MEASURES

    entry = TREC_MEASURES[name]
    return ({"rel"} if entry.rel else set()) | {p.name for p in entry.params}


@pytest.mark.parametrize("seed", range(6))
def test_gain_mappings_by_every_name_equal_pytrec_eval_on_mapped_qrels(seed):
    """``ndcg.1=3,2=9`` (trec_eval), ``nDCG(gains={1:3,2:9})`` (ir_measures), and the same for G, ndcg_rel, Rndcg:
    pytrec_eval on the qrels with each grade replaced by its gain (ir_measures' way; integer gains >= 0, grade 0
    kept at 0)."""
    rng = np.random.default_rng(700 + seed)
    run, qrels = random_case(rng, negatives=False, n_queries=8)
    if not any(q in qrels for q in run):
        return
    gains = {1: int(rng.integers(1, 5)), 2: int(rng.integers(1, 10)), 3: int(rng.integers(1, 10))}
    mapped = {q: {d: gains.get(g, g) for d, g in judged.items()} for q, judged in qrels.items()}
    result = from_dicts(run, qrels)
    dotted = ",".join(f"{g}={v}" for g, v in gains.items())
    braced = "{" + ",".join(f"{g}:{v}" for g, v in gains.items()) + "}"
    for key, stem in (("ndcg", "nDCG"), ("G", "G"), ("ndcg_rel", "ndcg_rel"), ("Rndcg", "Rndcg")):
        expected = pytrec_eval.RelevanceEvaluator(mapped, {key}).evaluate(run)
        for name in (f"{key}.{dotted}", f"{stem}(gains={braced})"):
            column = result.trec_query_metrics([name]).iloc[:, 0]
            for qid, value in column.items():
                assert value == pytest.approx(expected[qid][key], abs=1e-12), (name, qid)
            COMPARED["pytrec_eval"] += len(column)
    expected = pytrec_eval.RelevanceEvaluator(mapped, {"ndcg_cut.3"}).evaluate(run)
    column = result.trec_query_metrics([f"nDCG(gains={braced})@3"]).iloc[:, 0]
    for qid, value in column.items():
        assert value == pytest.approx(expected[qid]["ndcg_cut_3"], abs=1e-12)
    COMPARED["pytrec_eval"] += len(column)


def test_ndcg_at_its_defaults_is_plain_ndcg():
    """nDCG with gains={} or dcg='log2' is nDCG: the defaults are left out of the canonical name, so the columns are
    the plain measure's (its values are checked in tests/test_trec_vs_pytrec_eval.py)."""
    rng = np.random.default_rng(800)
    run, qrels = random_case(rng, negatives=False, n_queries=8)
    result = from_dicts(run, qrels)
    table = result.trec_query_metrics(["nDCG", "nDCG(gains={})", "nDCG(dcg='log2')@3", "nDCG@3"])
    assert list(table.columns) == ["nDCG", "nDCG@3"]  # the defaults are left out of the canonical name


@pytest.mark.parametrize(("name", "params"), list(PRINTED))
def test_example_by_name_equals_what_trec_eval_printed(name, params):
    """The trec_eval names (``rbp``, ``ndcg.1=3,2=9``, ...) of the binary's example, through the public API."""
    text = {"rbp.p=0.5": "rbp(p=0.5)"}.get(name, name)  # trec_eval's rbp.p=0.5 is read in ir_measures' syntax
    table = from_dicts(EXAMPLE_RUN, EXAMPLE_QRELS).trec_query_metrics([text])
    assert_printed(table.iloc[:, 0].to_numpy(), [f"{v:.4f}" for v in PRINTED[(name, params)]], name)
    COMPARED["trec_eval"] += 2


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10.0 is not built (benchmarks/setup_trec_eval.sh)")
@pytest.mark.parametrize("seed", range(4))
def test_trec_eval_names_equal_the_binary_with_negative_grades(seed, tmp_path):
    rng = np.random.default_rng(900 + seed)
    run, qrels = random_case(rng, negatives=True, n_queries=8)
    qrels = {q: judged for q, judged in qrels.items() if q in run and max(judged.values()) >= 0}
    if not qrels:
        return
    result = from_dicts(run, qrels)
    for measure, key, ours in (("infAP", "infAP", "infAP"), ("rbp", "rbp", "rbp"), ("rbp_resid", "rbp_resid", "rbp_resid"),
                               ("rbp.1=2,2=5", "rbp_1=2,2=5", "rbp.1=2,2=5"), ("G.1=2,3=7", "G_1=2,3=7", "G.1=2,3=7"),
                               ("ndcg.0=1,2=-1", "ndcg_0=1,2=-1", "ndcg.0=1,2=-1")):
        printed = run_trec_eval(run, qrels, [measure], tmp_path)
        column = result.trec_query_metrics([ours]).iloc[:, 0]
        assert_printed(column.to_numpy(), [printed[(key, q)] for q in column.index], measure)
        COMPARED["trec_eval"] += len(column)


def test_rbp_and_err_by_name_equal_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(1000)
    run, qrels = ir_measures_case(rng)
    result = from_dicts(run, qrels)
    if importlib_available("cwl"):
        # evalframe's RBP is binary at rel (default 1); ir_measures' cwl_eval provider computes it given rel (without
        # rel, ir_measures asks trectools for a graded RBP)
        for name, measure in (("RBP(rel=1)", ir_measures.RBP(rel=1)), ("RBP(p=0.5,rel=2)", ir_measures.RBP(p=0.5, rel=2)),
                              ("RBP(p=0.95,rel=1)", ir_measures.RBP(p=0.95, rel=1))):
            found = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}
            column = result.trec_query_metrics([name]).iloc[:, 0]
            for qid, value in column.items():
                assert value == pytest.approx(found[qid], abs=1e-9), (name, qid)
            COMPARED["ir_measures"] += len(column)
    if shutil.which("perl") is not None:
        names = ["ERR@5", "nDCG(dcg='exp-log2')@5"]
        found = {(str(m.measure), m.query_id): m.value
                 for m in ir_measures.gdeval.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run)}
        table = result.trec_query_metrics(names)
        for name in names:
            for qid, value in table[name].items():
                if (name, qid) in found:
                    assert value == pytest.approx(found[(name, qid)], abs=5e-6), (name, qid)
                    COMPARED["ir_measures"] += 1
                else:  # gdeval leaves out a query without a positive grade: evalframe gives it 0
                    assert value == 0.0


def importlib_available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_ap_at_k_is_map_cut_by_every_name():
    rng = np.random.default_rng(1100)
    run, qrels = random_case(rng, negatives=False, n_queries=8)
    result = from_dicts(run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.5"}).evaluate(run)
    for name in ("AP@5", "map_cut.5", "map_cut_5"):
        column = result.trec_query_metrics([name]).iloc[:, 0]
        for qid, value in column.items():
            assert value == pytest.approx(expected[qid]["map_cut_5"], abs=1e-12), name
        COMPARED["pytrec_eval"] += len(column)


def test_parameters_are_checked_with_what_to_write():
    result = from_dicts(EXAMPLE_RUN, EXAMPLE_QRELS)
    with pytest.raises(InvalidParameterError, match=r"dcg of .* must be a word.*'log2', 'exp-log2'"):
        result.trec_metrics(["nDCG(dcg='exp')@10"])
    with pytest.raises(InvalidParameterError, match=r"p of 'RBP\(p=x,rel=1\)' must be a number"):
        result.trec_metrics(["RBP(p=x,rel=1)"])
    with pytest.raises(InvalidParameterError, match=r"RBP needs rel=N, .* trectools' graded variant"):
        result.trec_metrics(["RBP(p=0.5)"])
    with pytest.raises(InvalidParameterError, match=r"ERR takes no rel"):
        result.trec_metrics(["ERR(rel=2)@5"])
    with pytest.raises(InvalidParameterError, match=r"unknown measure 'infapp'.*Did you mean 'infAP'"):
        result.trec_metrics(["infapp"])


def test_rndcg_is_nan_where_trec_eval_divides_zero_by_zero():
    """Rndcg with every relevant grade's gain at 0 (``Rndcg.1=0``): no boundary has an ideal DCG; trec_eval prints
    -nan, evalframe gives NaN (no value: the mean skips it)."""
    result = from_dicts({"1": {"a": 2.0}}, {"1": {"a": 1, "b": 0}})
    assert math.isnan(result.trec_query_metrics(["Rndcg.1=0"]).iloc[0, 0])


def test_a_query_missing_from_the_run_scores_what_trec_eval_c_printed():
    """``trec_eval -q -c`` on the example plus a qrels-only query 3 (grades 2, 0) printed 0.0000 for each trec_eval
    measure here; ERR and RBP (ir_measures') sum over no document: 0."""
    qrels = {**EXAMPLE_QRELS, "3": {"f1": 2, "f2": 0}}
    names = ["Rndcg", "rbp_resid", "infAP", "G", "ndcg_rel", "binG", "rbp", "ERR", "RBP(rel=1)"]
    table = from_dicts(EXAMPLE_RUN, qrels).trec_query_metrics(names, complete=True)
    assert table.loc["3"].tolist() == [0.0] * len(names)
    assert "3" not in from_dicts(EXAMPLE_RUN, qrels).trec_query_metrics(names).index
    COMPARED["trec_eval"] += 7
