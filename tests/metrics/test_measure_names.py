"""A measure by each of its three names (ir_measures', trec_eval's, pytrec_eval's), and ir_measures' judged_only
against pytrec_eval's judged_docs_only_flag (trec_eval -J)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.metrics.trec import parse_measure, parse_measures, trec_eval_key


@pytest.mark.parametrize("text, canonical", [
    ("map", ["AP"]), ("MAP", ["AP"]), ("map_cut.10", ["AP@10"]), ("map_cut_10", ["AP@10"]), ("MAP@10", ["AP@10"]),
    ("ndcg_cut.10", ["nDCG@10"]), ("ndcg_cut_10", ["nDCG@10"]), ("NDCG@10", ["nDCG@10"]),
    ("P_5", ["P@5"]), ("P.5,10", ["P@5", "P@10"]), ("recall.100", ["R@100"]), ("recall_100", ["R@100"]),
    ("recip_rank", ["RR"]), ("MRR", ["RR"]), ("success.1,5", ["Success@1", "Success@5"]), ("BPref", ["Bpref"]),
    ("RPrec", ["Rprec"]), ("P(judged_only=True)@5", ["P(judged_only=True)@5"]),
    ("success", ["Success@1", "Success@5", "Success@10"]),  # trec_eval -m success: its default cutoffs
    ("P", ["P@5", "P@10", "P@15", "P@20", "P@30", "P@100", "P@200", "P@500", "P@1000"]),
])
def test_every_spelling_names_the_measure(text, canonical):
    assert [str(m) for m in parse_measures([text])] == canonical


@pytest.mark.parametrize("text, key", [("AP", "map"), ("AP@5", "map_cut_5"), ("nDCG", "ndcg"), ("P(rel=2)@5", "P_5"),
                                       ("R@100", "recall_100"), ("Success@1", "success_1"), ("Bpref", "bpref")])
def test_trec_eval_prints_a_measure_under_its_key(text, key):
    assert trec_eval_key(text) == key


@pytest.mark.parametrize("text, message", [
    ("P.5,10", r"'P.5,10' names 2 measures"),  # one name, several measures: parse_measures takes it
    ("map_cut.x", r"cutoff of 'map_cut.x' must be a positive int .* e.g. 'map_cut.30'"),
    ("map.5", r"map takes no parameter after a dot: write 'map'"),
    ("P.", r"'P.' ends after its dot: write 'P.30'"),
    ("P(judged_only=maybe)@5", r"judged_only of 'P\(judged_only=maybe\)@5' must be True or False"),
    ("P(foo=1)@5", r"P takes 2 parameters, rel=N, judged_only=; got 'foo=1'"),
    ("Rbp(p=0.5)", r"'Rbp\(p=0.5\)': 'RBP' and 'rbp' differ only by letter case and name different measures"),
    ("bpref@10", r"Bpref takes no cutoff: write 'Bpref'; got 'bpref@10'"),  # ranx's bpref, trec_eval's too
    ("ndcg_cut10", r"unknown measure 'ndcg_cut10'.*Did you mean 'ndcg_cut.10'"),
])
def test_bad_spellings_say_what_is_accepted(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_measure(text)


def test_judged_only_is_pytrec_evals_judged_docs_only_flag():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in rng.choice(30, 15, replace=False)} for q in range(25)}
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(30, 10, replace=False)} for q in range(25)}
    keys = {"P(judged_only=True)@5": "P_5", "AP(judged_only=True)": "map", "nDCG(judged_only=True)@10": "ndcg_cut_10",
            "RR(judged_only=True)": "recip_rank", "Rprec(judged_only=True)": "Rprec", "R(judged_only=True)@5": "recall_5",
            "Success(judged_only=True)@1": "success_1", "AP(judged_only=True)@5": "map_cut_5"}
    ours = EvaluationResult.from_trec(run, qrels).trec_query_metrics(list(keys))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "map", "ndcg_cut.10", "recip_rank", "Rprec", "recall.5",
                                                       "success.1", "map_cut.5"}, judged_docs_only_flag=True).evaluate(run)
    assert sorted(ours.index) == sorted(reference)
    for query, row in ours.iterrows():
        for name, key in keys.items():
            assert row[name] == pytest.approx(reference[query][key], abs=1e-12), (query, name)
    plain = EvaluationResult.from_trec(run, qrels).trec_query_metrics(["P@5"])
    assert not np.array_equal(plain["P@5"], ours["P(judged_only=True)@5"])  # the flag changes the numbers here


@pytest.mark.parametrize("text, canonical", [
    ("NumRet(rel=1)", "NumRelRet"), ("NumRet(rel=2)", "NumRelRet(rel=2)"), ("NumRet", "NumRet"),
    ("alpha-nDCG@20", "alpha_nDCG@20"), ("α_nDCG@20", "alpha_nDCG@20"), ("MAP-IA", "AP_IA"), ("ERR-IA@20", "ERR_IA@20"),
    ("rbp.p=0.5", "rbp(p=0.5)"), ("rbp.p=0.7,1=2", "rbp(gains={1:2},p=0.7)"), ("set_F.0.5", "SetF(beta=0.5)"),
])
def test_ir_measures_and_ndeval_and_trec_eval_parameter_spellings(text, canonical):
    assert str(parse_measure(text)) == canonical


# trec_eval 10.0 prints a measure given parameters after its dot under the stem, an underscore and the parameters as
# given: `trec_eval -m set_F.0.5 -m utility.2,-1,-3,0.5 -m ndcg.1=3,2=9 -m rbp.p=0.5 -m G.1=2` prints these keys
@pytest.mark.parametrize("text, key", [
    ("set_F.0.5", "set_F_0.5"), ("set_F", "set_F"), ("utility.2,-1,-3,0.5", "utility_2,-1,-3,0.5"),
    ("utility", "utility"), ("ndcg.1=3,2=9", "ndcg_1=3,2=9"), ("rbp.p=0.5", "rbp_p=0.5"), ("G.1=2", "G_1=2"),
    ("nDCG(dcg='exp-log2')@10", None), ("ERR@10", None), ("SetP(relative=True)", "set_relative_P"),
])
def test_trec_eval_keys_of_measures_with_parameters(text, key):
    assert trec_eval_key(text) == key


@pytest.mark.parametrize("text, suggestion", [
    ("nDGC@10", "nDCG@10"), ("recal.100", "recall.100"), ("Rprecmult.0.2", "Rprec_mult.0.2"), ("gm_mapp", "gm_map"),
    ("ndgc_cut.10", "ndcg_cut.10"), ("bpreff", "Bpref"), ("hitrate@10", "hit_rate@10"),
    ("INSQQ(max_rel=2)", "INSQ(max_rel=2)"),
])
def test_the_suggestion_keeps_what_was_written_and_is_a_name_that_reads(text, suggestion):
    with pytest.raises(InvalidParameterError, match=re.escape(f"Did you mean {suggestion!r}?")):
        parse_measure(text)
    parse_measure(suggestion)


def test_trec_evals_sets_say_they_are_the_commands():
    with pytest.raises(InvalidParameterError, match=r"'all_trec' is trec_eval's name of a set of measures: `evalframe "
                                                    r"trec -m all_trec` reads it"):
        parse_measures(["all_trec"])
