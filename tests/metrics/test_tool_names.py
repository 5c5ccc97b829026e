"""One vocabulary of names: every tool's spelling of a measure (ranx's, pytrec_eval's, ir_measures' and its measure
objects), each checked against that tool's value on the same run; the one case rule; the ranx names refused."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.metrics.registry import TREC_MEASURES
from evalframe.metrics.trec import CASE_SENSITIVE, parse_measure, parse_measures

#: ranx's spellings (ranx 0.3.21's metric_switch, its -lN level) and the measure each names
RANX_NAMES = {
    "ndcg": "nDCG", "ndcg@5": "nDCG@5", "ndcg@10": "nDCG@10", "ndcg_burges": "nDCG(dcg='exp-log2')",
    "ndcg_burges@10": "nDCG(dcg='exp-log2')@10", "map": "AP", "map@5": "AP@5", "map@100": "AP@100", "mrr": "RR",
    "mrr@3": "RR@3", "precision": "SetP", "precision@5": "P@5", "recall@5": "R@5", "recall@100": "R@100",
    "r-precision": "Rprec", "hit_rate@1": "Success@1", "hit_rate@10": "Success@10", "f1": "SetF", "bpref": "Bpref",
    "precision@5-l2": "P(rel=2)@5", "recall@10-l2": "R(rel=2)@10", "map-l2": "AP(rel=2)", "mrr-l3": "RR(rel=3)",
    "hit_rate@5-l2": "Success(rel=2)@5", "r-precision-l2": "Rprec(rel=2)", "f1-l2": "SetF(rel=2)",
    "bpref-l2": "Bpref(rel=2)", "ndcg@10-l2": "nDCG(gains={1:0})@10",
    "ndcg_burges@5-l3": "nDCG(dcg='exp-log2',gains={1:0,2:0})@5",
}


def test_ranx_names_name_the_registry_measures():
    assert {name: str(parse_measure(name)) for name in RANX_NAMES} == RANX_NAMES
    assert str(parse_measure("P@5-l2")) == "P(rel=2)@5"  # ranx's level after any name
    assert [str(m) for m in parse_measures(["P.5,10-l2"])] == ["P(rel=2)@5", "P(rel=2)@10"]


def graded_case(seed: int, n_queries: int = 25, negative: bool = True) -> tuple[dict, dict]:
    """Graded qrels (0..3, and -1 with ``negative``), every query judged and retrieved, each with a judged
    non-relevant document (ranx's bpref is NaN without one), no tied scores (ranx keeps ties in input order)."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(n_queries):
        docs = rng.choice(80, int(rng.integers(1, 40)), replace=False)
        run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, rng.permutation(len(docs)) + rng.random(len(docs)))}
        judged = rng.choice(80, int(rng.integers(2, 30)), replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1 if negative else 0, 4)) for d in judged}
        qrels[f"q{q}"][f"d{judged[0]}"] = 0
    return run, qrels


@pytest.mark.stress  # ranx's numba kernels take 15 to 90 s to compile
@pytest.mark.parametrize("seed", range(3))
def test_ranx_names_equal_ranx_on_the_same_run(seed):
    ranx = pytest.importorskip("ranx")
    run, qrels = graded_case(seed, negative=False)
    result = EvaluationResult.from_trec(run, qrels)
    table = result.trec_query_metrics(list(RANX_NAMES))
    ours_means = result.trec_metrics(list(RANX_NAMES))
    for name, canonical in RANX_NAMES.items():
        ranx_run = ranx.Run(run)
        mean = ranx.evaluate(ranx.Qrels(qrels), ranx_run, name)  # each query's value kept in ranx_run.scores
        theirs = [ranx_run.scores[name][q] for q in table.index]
        if name == "bpref-l2":
            theirs, mean = ranx_python_bpref(ranx, run, qrels, 2, list(table.index))
        theirs = np.asarray(theirs, dtype=np.float64)
        # ranx's bpref has no number (NaN) for a query without a relevant or a judged non-relevant document at its
        # level (0 / 0); trec_eval's, and evalframe's, is a number there (docs/ir-researchers.md)
        level = 2 if name.endswith("-l2") else 1
        undefined = np.array([not any(g >= level for g in qrels[q].values()) or not any(0 <= g < level for g in
                              qrels[q].values()) for q in table.index])
        assert np.array_equal(np.isnan(theirs), undefined & np.isnan(theirs)), name
        np.testing.assert_allclose(table[canonical].to_numpy()[~np.isnan(theirs)], theirs[~np.isnan(theirs)], rtol=0,
                                   atol=1e-12, err_msg=name)
        if not np.isnan(theirs).any():
            assert ours_means[canonical] == pytest.approx(float(mean), abs=1e-12), name


def ranx_python_bpref(ranx, run: dict, qrels: dict, level: int, queries: list[str]) -> tuple[list[float], float]:
    """ranx 0.3.21's bpref at a level above 1 as its Python code defines it (``_bpref.py_func``): its numba build
    gives 0 for some queries where the same code run as Python gives trec_eval's value (the build's sums of booleans
    are unsigned: the NumbaTypeSafetyWarning it prints)."""
    import importlib

    from ranx.meta.evaluate import convert_qrels, convert_run

    module = importlib.import_module("ranx.metrics.bpref")
    ranx_qrels, ranx_run = ranx.Qrels(qrels), ranx.Run(run)
    keys = list(ranx_qrels.keys())
    typed_qrels, typed_run = convert_qrels(ranx_qrels), convert_run(ranx_run)
    values = {key: module._bpref.py_func(typed_qrels[i], typed_run[i], level) for i, key in enumerate(keys)}
    return [values[q] for q in queries], float(np.mean(list(values.values())))


@pytest.mark.stress
def test_ranx_numba_bpref_at_a_level_differs_from_its_own_python_code():
    """Why the test above reads ranx's bpref-l2 from its Python code (docs/ir-researchers.md)."""
    ranx = pytest.importorskip("ranx")
    run, qrels = graded_case(0, negative=False)
    ranx_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), ranx_run, "bpref-l2")
    python, _ = ranx_python_bpref(ranx, run, qrels, 2, list(run))
    built = [ranx_run.scores["bpref-l2"][q] for q in run]
    assert any(b == 0.0 and p > 0 for b, p in zip(built, python))


@pytest.mark.stress
def test_ranx_bpref_differs_only_where_ranx_has_no_number_or_a_negative_grade():
    """ranx's bpref is trec_eval's where ranx gives a number: it is NaN for a query without a judged non-relevant
    document (trec_eval: each relevant document retrieved counts 1) and counts a negative grade as non-relevant
    (trec_eval: not judged). evalframe's bpref is trec_eval's (docs/ir-researchers.md)."""
    ranx = pytest.importorskip("ranx")
    run = {"q1": {"a": 3.0, "z": 2.5, "b": 2.0, "n": 1.5, "c": 1.0}, "q2": {"y": 1.0, "x": 0.5}}
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "n": -1}, "q2": {"x": 1}}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["bpref"], return_mean=False)
    ours = EvaluationResult.from_trec(run, qrels).trec_query_metrics(["bpref"])["Bpref"]
    # q1: a relevant at rank 1 (1), c below b (judged 0): 1 - 1/1 = 0; ranx also counts n (-1): 1 - 2/2 = 0
    assert ours.tolist() == [0.5, 1.0] and theirs[0] == 0.5 and np.isnan(theirs[1])


#: pytrec_eval's keys (and trec_eval's names) -> the measure, checked against pytrec_eval on the same run
PYTREC_NAMES = {"map": "map", "map_cut_5": "map_cut.5", "ndcg": "ndcg", "ndcg_cut_10": "ndcg_cut.10", "P_5": "P.5",
                "recall_100": "recall.100", "recip_rank": "recip_rank", "success_1": "success.1", "Rprec": "Rprec",
                "bpref": "bpref", "set_P": "set_P", "set_recall": "set_recall", "set_F": "set_F",
                "num_rel_ret": "num_rel_ret"}  # iprec_at_recall: trec_eval 10.0's (test_trec_set_kernels.py)


@pytest.mark.parametrize("seed", range(2))
def test_pytrec_eval_keys_and_ranx_names_equal_pytrec_eval(seed):
    """pytrec_eval's keys, and ranx's names of trec_eval's measures, in any letter case, give pytrec_eval's values."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = graded_case(10 + seed)
    positive = {q: {d: g for d, g in judged.items() if g >= 0} for q, judged in qrels.items()}  # pytrec_eval: >= 0
    theirs = pytrec_eval.RelevanceEvaluator(positive, set(PYTREC_NAMES.values())).evaluate(run)
    result = EvaluationResult.from_trec(run, positive)
    spellings = {**{key: key for key in PYTREC_NAMES}, "MAP": "map", "Ndcg_Cut_10": "ndcg_cut_10", "p_5": "P_5",
                 "mrr": "recip_rank", "MRR": "recip_rank", "hit_rate@1": "success_1", "r-precision": "Rprec",
                 "precision": "set_P", "map@5": "map_cut_5", "ndcg@10": "ndcg_cut_10", "precision@5": "P_5",
                 "recall@100": "recall_100", "f1": "set_F", "NumRet(rel=1)": "num_rel_ret"}
    table = result.trec_query_metrics(list(spellings))
    for name, key in spellings.items():
        expected = [theirs[q][key] for q in table.index]
        np.testing.assert_allclose(table[str(parse_measure(name))].to_numpy(), expected, rtol=0, atol=1e-12,
                                   err_msg=name)


#: ir_measures' measure objects (built here, as a user builds them) and the measures they are
def ir_measures_objects():
    ir = pytest.importorskip("ir_measures")
    return {"nDCG@10": ir.nDCG @ 10, "P(rel=2)@5": ir.P(rel=2) @ 5, "AP": ir.AP, "RR@5": ir.RR @ 5,
            "R@100": ir.R @ 100, "Rprec": ir.Rprec, "Bpref": ir.Bpref, "Success@1": ir.Success @ 1,
            "SetP(relative=True)": ir.SetRelP, "SetF(beta=0.5)": ir.SetF(beta=0.5), "Judged@10": ir.Judged @ 10,
            "NumRelRet": ir.NumRet(rel=1), "nDCG(judged_only=True)@5": ir.nDCG(judged_only=True) @ 5,
            "RBP(p=0.5,rel=1)": ir.RBP(p=0.5, rel=1), "INSQ(max_rel=3)": ir.INSQ(max_rel=3),
            "MAP_alias": ir.MAP}


def test_ir_measures_objects_equal_ir_measures():
    ir = pytest.importorskip("ir_measures")
    objects = ir_measures_objects()
    run, qrels = graded_case(20, negative=False)
    result = EvaluationResult.from_trec(run, qrels)
    table = result.trec_query_metrics(list(objects.values()))
    means = result.trec_metrics(list(objects.values()))
    measures = list(dict.fromkeys(objects.values()))
    aggregate, per_query = ir.calc(measures, qrels, run)
    theirs = {(m.query_id, str(m.measure)): m.value for m in per_query}
    for written, measure in objects.items():
        canonical = str(parse_measure(measure))
        assert canonical == ("AP" if written == "MAP_alias" else written)
        np.testing.assert_allclose(table[canonical].to_numpy(), [theirs[q, str(measure)] for q in table.index],
                                   rtol=0, atol=1e-12, err_msg=written)
        assert means[canonical] == pytest.approx(aggregate[measure], abs=1e-12), written


def test_an_ir_measures_object_evalframe_lacks_says_so():
    ir = pytest.importorskip("ir_measures")
    with pytest.raises(InvalidParameterError, match=r"the ir_measures measure Accuracy@5 \(_Accuracy\) is no measure "
                                                    r"of evalframe: `evalframe list-metrics` lists them"):
        parse_measure(ir.Accuracy @ 5)
    with pytest.raises(InvalidParameterError, match=r"P needs a cutoff"):  # ir_measures' own rule, not trec_eval's -m P
        parse_measures([ir.P])


# ------------------------------------------------------------------------------------ the case rule
def spellings() -> list[str]:
    """Every name of every measure (its own, its synonyms, trec_eval's), written so that it reads."""
    from evalframe.metrics.trec import example_measure

    names = []
    for name, entry in TREC_MEASURES.items():
        example = example_measure(name)
        tail = example[len(name):]
        names.append(example)
        names += [synonym.text + tail for synonym in entry.synonyms  # a synonym that reads with this cutoff or none
                  if (synonym.cutoff or entry.cutoff) in ("optional", "required" if "@" in tail else "none")]
        names += [te.stem + (".5" if te.params == "cutoffs" and entry.cutoff_kind == "int" else "") for te in entry.trec_eval
                  if te.params in ("none", "cutoffs") and not (te.params == "cutoffs" and entry.cutoff_kind == "float")]
    return names


def test_a_name_reads_in_any_letter_case_but_the_names_that_differ_only_by_case():
    assert CASE_SENSITIVE == {"rbp"}  # trec_eval 10.0's rbp and ir_measures' RBP: different measures
    for name in spellings():
        head = re.split(r"[(@.]", name, maxsplit=1)[0]
        exact = [str(m) for m in parse_measures([name])]
        for other in {head.lower(), head.upper(), head.title()} - {head}:
            written = other + name[len(head):]
            if head.lower() in CASE_SENSITIVE:
                if other in TREC_MEASURES:
                    continue  # rbp written RBP: ir_measures' RBP, its own name
                with pytest.raises(InvalidParameterError, match="differ only by letter case"):
                    parse_measures([written])
                continue
            assert [str(m) for m in parse_measures([written])] == exact, (name, written)


def test_a_parameter_reads_in_any_letter_case():
    assert str(parse_measure("rbp(P=0.5)")) == "rbp(p=0.5)"
    assert str(parse_measure("INST(t=2,MAX_REL=3)")) == "INST(T=2,max_rel=3)"
    assert str(parse_measure("p(REL=2)@5")) == "P(rel=2)@5"


@pytest.mark.parametrize("text, message", [
    ("dcg@10", r"ranx's dcg is the unnormalised DCG .* its normalised form, ranx's ndcg, is nDCG"),
    ("DCG_burges", r"ranx's dcg_burges is the unnormalised DCG of gains 2\^grade - 1"),
    ("hits@5", r"ranx's hits is the number of relevant documents in the top k, averaged over queries"),
    ("hits", r"no measure of evalframe: per query it is P@k × k"),
    ("f1@10", r"'f1@10' is ranx's f1@k, the F1 of P@k and R@k, which is no measure of evalframe .* is SetF"),
    ("rbp.95", r"ranx's rank-biased precision with persistence 0.95, which weighs each relevant document by its "
               r"grade .* 'rbp.p=0.95' .* 'RBP\(p=0.95,rel=1\)'"),
    ("rbp@8-l2", r"persistence 0.8"),
    ("hit_rate", r"Success needs a cutoff: Success@10; got 'hit_rate'. \(ranx's hit_rate without @k"),
    ("recall", r"'recall' names 9 measures .* \(ranx's 'recall' without @k, the whole ranking's, is SetR here\)"),
    ("nDCG@10-l200", r"ranx's level of a graded measure is read up to -l100"),
    ("P@5-l0", r"ranx's relevance level of 'P@5-l0' must be a positive int"),
    ("P@5-l99999999999", r"at most 1,000,000,000"),
    ("nDCG(gains={1:3})@5-l2", r"nDCG takes no relevance level \(ranx's -l2\)"),  # a level and gains: one of them
    ("Judged@5-l2", r"Judged takes no relevance level"),
])
def test_ranx_names_no_measure_computes_are_refused_saying_why(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_measure(text)


def test_parameters_after_the_cutoff_are_named():
    with pytest.raises(InvalidParameterError, match=re.escape(
            "the parameters of 'IPrec@0(judged_only=True)' go before its cutoff, as ir_measures writes them: "
            "IPrec(judged_only=True)@0.")):
        parse_measure("IPrec@0(judged_only=True)")
    with pytest.raises(InvalidParameterError, match=re.escape("writes them: P(rel=2)@5.")):
        parse_measure("P@5(rel=2)")
