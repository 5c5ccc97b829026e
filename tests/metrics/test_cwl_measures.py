"""cwl_eval's C/W/L measures (INSQ, INST, SDCG@k, NERR8@k ... NERR11, BPM@k) against ir_measures' cwl_eval provider
on the same runs: per query and aggregated, to 1e-12, through trec_query_metrics, trec_metrics and ir_measures'
measure objects; and what their names refuse."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.metrics.trec import parse_measure

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its notes on grades outside [min_rel, max_rel]

#: Every measure of the provider, several parameters each (ir_measures' syntax: T is a float)
NAMES = ["INSQ(max_rel=3)", "INSQ(T=2.5,max_rel=3)", "INST(max_rel=3)", "INST(T=3.0,min_rel=1,max_rel=3)",
         "SDCG(max_rel=3)@10", "SDCG(max_rel=2)@3", "NERR8(max_rel=3)@10", "NERR8(max_rel=3)@1", "NERR9(max_rel=3)@5",
         "NERR9(max_rel=1)@20", "NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=2)", "NERR11(max_rel=3)",
         "NERR11(T=2.0,max_rel=3)", "BPM(max_rel=3)@10", "BPM(T=2.0,max_rel=3)@5", "BPM(T=0.5,min_rel=1,max_rel=3)@20"]


def graded_case(seed: int, n_queries: int = 30, depth: int = 30) -> tuple[dict, dict]:
    """A run without tied scores (ir_measures keeps a tie in input order, trec_eval breaks it by docid) and qrels
    graded -1..3, some documents retrieved unjudged, some queries of the qrels not retrieved."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(n_queries):
        if q % 7 != 3:  # every seventh query has judgments only
            docs = rng.choice(3 * depth, int(rng.integers(1, depth)), replace=False)
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, rng.permutation(len(docs)) + rng.random(len(docs)))}
        judged = rng.choice(3 * depth, int(rng.integers(1, depth)), replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1, 4)) for d in judged}
    return run, qrels


def check(run: dict, qrels: dict, names: list, complete: bool) -> None:
    theirs_measures = [name if not isinstance(name, str) else ir_measures.parse_measure(name) for name in names]
    aggregate, per_query = ir_measures.calc(theirs_measures, qrels, run)
    theirs = {(m.query_id, str(m.measure)): m.value for m in per_query}
    result = EvaluationResult.from_trec(run, qrels)
    table = result.trec_query_metrics(names, complete=complete)
    means = result.trec_metrics(names, complete=complete)
    # ir_measures scores a query of the qrels without run lines 0 (trec_eval -c's empty ranking)
    assert sorted(table.index) == sorted(qrels if complete else set(qrels) & set(run))
    for name, measure in zip(names, theirs_measures, strict=True):
        column = str(parse_measure(name))
        expected = np.array([theirs[q, str(measure)] for q in table.index])
        np.testing.assert_allclose(table[column].to_numpy(), expected, rtol=0, atol=1e-12, err_msg=str(measure))
        if complete:  # ir_measures' mean is over every query of the qrels
            assert means[column] == pytest.approx(aggregate[measure], abs=1e-12), str(measure)


# seed 0 in the suite, seeds 1 and 2 under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize("seed", [0, *(pytest.param(seed, marks=pytest.mark.stress) for seed in (1, 2))])
@pytest.mark.parametrize("complete", [False, True])
def test_every_cwl_measure_equals_ir_measures_cwl_eval(seed, complete):
    run, qrels = graded_case(seed)
    check(run, qrels, NAMES, complete)


def test_a_ranking_past_cwl_evals_depth_is_cut_at_1000():
    """cwl_eval reads 1000 documents (ir_measures' max_n): a relevant one at rank 1001 adds nothing."""
    run = {"q1": {f"d{d}": 2000.0 - d for d in range(1200)}, "q2": {f"d{d}": 5.0 - d for d in range(5)}}
    qrels = {"q1": {"d3": 2, "d999": 3, "d1000": 3, "d1100": 1}, "q2": {"d1": 1, "d4": 3}}
    check(run, qrels, ["INSQ(max_rel=3)", "INST(max_rel=3)", "NERR10(p=0.99,max_rel=3)", "NERR11(max_rel=3)",
                       "SDCG(max_rel=3)@1200", "NERR8(max_rel=3)@1200", "BPM(T=5.0,max_rel=3)@1100"], complete=True)


def test_ir_measures_objects_are_read_as_their_names():
    run, qrels = graded_case(7)
    objects = [ir_measures.INSQ(T=2.0, max_rel=3), ir_measures.NERR8(max_rel=2) @ 5, ir_measures.BPM(max_rel=3) @ 10,
               ir_measures.INSQ(min_rel=-1, max_rel=2)]  # min_rel -1: the grades -1 and 0 gain 1/3
    check(run, qrels, objects, complete=False)
    assert [str(parse_measure(m)) for m in objects] == ["INSQ(T=2,max_rel=3)", "NERR8(max_rel=2)@5",
                                                        "BPM(max_rel=3)@10", "INSQ(max_rel=2,min_rel=-1)"]


@pytest.mark.parametrize("text, message", [
    ("INSQ", r"INSQ needs max_rel= \(the highest grade.*e\.g\. 'INSQ\(max_rel=3\)'; got 'INSQ'"),
    ("NERR8@10", r"NERR8 needs max_rel= .*e\.g\. 'NERR8\(max_rel=3\)@10'"),
    ("SDCG(max_rel=3)", r"SDCG needs a cutoff: SDCG\(max_rel=3\)@10"),
    ("INST(max_rel=2,min_rel=2)", r"min_rel must be below max_rel .*got min_rel=2, max_rel=2"),
    ("INSQ(T=0,max_rel=2)", r"T, the gain the user wants, must be > 0; got T=0"),
    ("NERR10(p=1.5,max_rel=2)", r"p, the chance a user reads on, must lie in \[0, 1\]; got p=1.5"),
    ("NERR10(max_rel=2)@5", r"NERR10 takes no cutoff"),
    ("SDCG(dcg='exp-log2',max_rel=2)@5", r"dcg of .* must be a word; got \"'exp-log2'\" \(one of \['log2'\]\)"),
])
def test_the_names_say_what_is_needed(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_measure(text)
