"""trec_eval's measures (evalframe.metrics.trec): names, and per-query values worked out by hand.

Query 0 (graded; "U" = not in the qrels, -1 = in the pool but unjudged):
  rank      1   2   3   4   5   6
  grade     3   U   0   1  -1   2        judged, not retrieved: one 2, one 0
  judged grades, sorted: 3 2 2 1 0 0 -1
  rel=1: R = 4 (3, 2, 2, 1), N = 2 (0, 0), relevant at ranks 1, 4, 6
  rel=2: R = 3 (3, 2, 2),    N = 3 (1, 0, 0), relevant at ranks 1, 6
Query 1: rank 1 grade 0, rank 2 U, rank 3 grade 1; judged: 1, 0 (R = 1, N = 1)
Query 2: judged 0 only (no relevant document); ranks 1, 2: grades 0, U
Query 3: nothing retrieved (as trec_eval -c evaluates it); judged 2, 1
"""

from __future__ import annotations

import re
from math import log2

import numpy as np
import pytest

from evalframe.errors import InvalidParameterError
from evalframe.metrics.trec import MEASURE_NAMES, Measure, evaluate, parse_measure, parse_measures
from evalframe.metrics.trec_kernels import UNJUDGED

U = UNJUDGED
ROW_QUERY = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2]
POSITION = [0, 1, 2, 3, 4, 5, 0, 1, 2, 0, 1]
GRADE = [3, U, 0, 1, -1, 2, 0, U, 1, 0, U]
JUDGED_QUERY = [0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 3]
JUDGED_GRADE = [3, 2, 2, 1, 0, 0, -1, 1, 0, 0, 2, 1]

IDCG_ALL_0 = 3 + 2 / log2(3) + 2 / log2(4) + 1 / log2(5)
HAND = {
    # rel=1, query 0: relevant at 1, 4, 6 of R = 4; query 1: relevant at 3 of R = 1
    "P@1": [1 / 1, 0 / 1, 0, 0],
    "P@5": [2 / 5, 1 / 5, 0, 0],
    "P@10": [3 / 10, 1 / 10, 0, 0],  # k even when fewer documents were retrieved
    "R@5": [2 / 4, 1 / 1, 0, 0],
    "R@2": [1 / 4, 0, 0, 0],
    "AP": [(1 / 1 + 2 / 4 + 3 / 6) / 4, (1 / 3) / 1, 0, 0],
    "AP@4": [(1 / 1 + 2 / 4) / 4, (1 / 3) / 1, 0, 0],  # still divided by R
    "AP@2": [(1 / 1) / 4, 0, 0, 0],
    "RR": [1 / 1, 1 / 3, 0, 0],
    "RR@2": [1 / 1, 0, 0, 0],  # query 1's first relevant document is at rank 3 > 2
    "RR@3": [1 / 1, 1 / 3, 0, 0],
    "Success@1": [1, 0, 0, 0],
    "Success@3": [1, 1, 0, 0],
    "Rprec": [2 / 4, 0 / 1, 0, 0],  # top 4: ranks 1 and 4; query 1's top 1: grade 0
    # walk query 0: 1 (n = 0) | U skipped | 0: n = 1 | 4: 1 - min(1, 4) / min(2, 4) | -1 skipped | 6: the same
    # query 1: 0: n = 1 | U skipped | 3: 1 - min(1, 1) / min(1, 1) = 0
    "Bpref": [(1 + (1 - 1 / 2) + (1 - 1 / 2)) / 4, 0 / 1, 0, 0],
    # DCG over gains 3 (rank 1), 1 (rank 4), 2 (rank 6); ideal over 3 2 2 1; query 1: gain 1 at rank 3, ideal 1
    "nDCG": [(3 + 1 / log2(5) + 2 / log2(7)) / IDCG_ALL_0, (1 / log2(4)) / 1, 0, 0],
    "nDCG@3": [3 / (3 + 2 / log2(3) + 2 / log2(4)), (1 / log2(4)) / 1, 0, 0],
    "nDCG@1": [3 / 3, 0 / 1, 0, 0],
    # rel=2, query 0: relevant at 1, 6 of R = 3, N = 3; query 1 has none (R = 0)
    "P(rel=2)@5": [1 / 5, 0, 0, 0],
    "R(rel=2)@10": [2 / 3, 0, 0, 0],
    "AP(rel=2)": [(1 / 1 + 2 / 6) / 3, 0, 0, 0],
    "RR(rel=2)@1": [1, 0, 0, 0],
    "Success(rel=2)@5": [1, 0, 0, 0],
    "Rprec(rel=2)": [1 / 3, 0, 0, 0],
    # 1: n = 0 -> 1 | 3 (grade 0), 4 (grade 1): n = 2 | 6: 1 - min(2, 3) / min(3, 3)
    "Bpref(rel=2)": [(1 + (1 - 2 / 3)) / 3, 0, 0, 0],
}


def _evaluate(names):
    return evaluate(parse_measures(names), row_query=np.array(ROW_QUERY), position=np.array(POSITION),
                    grade=np.array(GRADE), judged_query=np.array(JUDGED_QUERY), judged_grade=np.array(JUDGED_GRADE),
                    n_queries=4)


@pytest.mark.parametrize("name", list(HAND))
def test_hand_worked_values(name):
    np.testing.assert_allclose(_evaluate([name])[name], HAND[name], rtol=0, atol=1e-15)


def test_all_measures_in_one_call_equal_one_at_a_time():
    together = _evaluate(list(HAND))
    assert list(together) == list(HAND)  # the order asked for
    for name, values in together.items():
        np.testing.assert_allclose(values, HAND[name], rtol=0, atol=1e-15)
        assert values.dtype == np.float64


def test_several_cutoffs_of_one_family_in_one_pass(monkeypatch):
    from evalframe.metrics import trec_kernels as trec

    calls = []
    original = trec.cutoff_sums
    monkeypatch.setattr(trec, "cutoff_sums", lambda *a, **k: calls.append(a[4]) or original(*a, **k))
    _evaluate(["P@1", "P@5", "R@2", "Success@3", "P@10"])
    assert calls == [[1, 2, 3, 5, 10]]  # one pass for every count-based measure and cutoff


def test_grades_below_zero_are_unjudged_like_missing_documents():
    grade = np.array(GRADE)
    as_missing = np.where(grade < 0, U, grade)
    a = evaluate(parse_measures(list(HAND)), row_query=np.array(ROW_QUERY), position=np.array(POSITION), grade=grade,
                 judged_query=np.array(JUDGED_QUERY), judged_grade=np.array(JUDGED_GRADE), n_queries=4)
    b = evaluate(parse_measures(list(HAND)), row_query=np.array(ROW_QUERY), position=np.array(POSITION), grade=as_missing,
                 judged_query=np.array(JUDGED_QUERY), judged_grade=np.array(JUDGED_GRADE), n_queries=4)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


def test_no_rows_at_all():
    values = evaluate(parse_measures(list(HAND)), row_query=np.zeros(0, int), position=np.zeros(0, int),
                      grade=np.zeros(0, int), judged_query=np.array([0]), judged_grade=np.array([1]), n_queries=1)
    assert all(v.tolist() == [0.0] for v in values.values())


# ----------------------------------------------------------------------------------------- names
@pytest.mark.parametrize("text, measure, canonical", [
    ("AP", Measure("AP"), "AP"),
    ("AP@100", Measure("AP", 100), "AP@100"),
    ("nDCG@10", Measure("nDCG", 10), "nDCG@10"),
    ("P@5", Measure("P", 5), "P@5"),
    ("P(rel=2)@5", Measure("P", 5, 2), "P(rel=2)@5"),
    ("P(rel=1)@5", Measure("P", 5, 1), "P@5"),
    ("R(rel=3)@1000", Measure("R", 1000, 3), "R(rel=3)@1000"),
    ("RR(rel=2)", Measure("RR", None, 2), "RR(rel=2)"),
    ("RR@10", Measure("RR", 10), "RR@10"),
    ("Success@1", Measure("Success", 1), "Success@1"),
    ("Rprec(rel=2)", Measure("Rprec", None, 2), "Rprec(rel=2)"),
    (" Bpref ", Measure("Bpref"), "Bpref"),
])
def test_names_and_canonical_names(text, measure, canonical):
    assert parse_measure(text) == measure
    assert str(parse_measure(text)) == canonical
    assert parse_measure(measure) is measure


def test_canonical_names_are_ir_measures_names():
    ir_measures = pytest.importorskip("ir_measures")
    for text in ["AP", "AP@5", "nDCG", "nDCG@10", "P(rel=2)@5", "R@100", "RR", "RR(rel=2)@3", "Success@1", "Rprec",
                 "Bpref(rel=2)"]:
        assert str(parse_measure(text)) == str(ir_measures.parse_measure(text))


@pytest.mark.parametrize("text, message", [
    ("P", r"P needs a cutoff: P@10"),
    ("R", r"R needs a cutoff: R@10"),
    ("Success", r"Success needs a cutoff"),
    ("Rprec@5", r"Rprec takes no cutoff"),
    ("Bpref@5", r"Bpref takes no cutoff"),
    ("nDCG(rel=2)@10", r"nDCG takes no rel"),
    ("MAPP", r"unknown measure 'MAPP'; name a measure as ir_measures .* trec_eval .* or pytrec_eval .* write it"),
    ("ndgc@10", r"Did you mean 'nDCG@10'\?"),
    ("P@0", r"cutoff of 'P@0' must be a positive int"),
    ("P@x", r"must be a positive int"),
    ("P(rel=0)@5", r"rel=N with N a positive int"),
    ("P(judged=1)@5", r"P takes 2 parameters, rel=N, judged_only=; got 'judged=1'.*Did you mean 'judged_only'"),
    ("AP(rel=x)", r"rel=N"),
])
def test_bad_names_say_what_is_accepted(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_measure(text)


def test_parse_measures():
    assert [str(m) for m in parse_measures("AP")] == ["AP"]
    assert [str(m) for m in parse_measures(["P@5", "P(rel=1)@5", "AP"])] == ["P@5", "AP"]
    with pytest.raises(InvalidParameterError, match="measures is empty"):
        parse_measures([])
    with pytest.raises(InvalidParameterError, match="a measure is a name"):
        parse_measures([5])
    with pytest.raises(InvalidParameterError, match="a name or a list of names"):
        parse_measures(5)
    assert set(MEASURE_NAMES) >= {"AP", "nDCG", "P", "R", "RR", "Success", "Rprec", "Bpref"}  # and any added since


@pytest.mark.parametrize("text, words", [
    ("P@²", "must be a positive int"),  # "²".isdigit() is True, int("²") fails: ASCII digits only
    ("P@99999999999999999999999", "at most 1,000,000,000"),
    ("P(rel=²)@5", "rel=N with N a positive int"),
    ("ndgc@10", "Did you mean 'nDCG@10'"),
])
def test_cutoffs_and_levels_are_ascii_ints_in_range(text, words):
    with pytest.raises(InvalidParameterError, match=re.escape(words)):
        parse_measure(text)


def test_evaluate_on_the_judged_rows_equals_the_kernels_on_every_row():
    """evaluate runs the kernels on the judged rows only; on every row they give the same values, bit for bit."""
    from evalframe.metrics import trec_kernels as kernels
    from evalframe.metrics.trec import evaluate, parse_measures

    rng = np.random.default_rng(11)
    n_queries = 30
    row_query = np.sort(rng.integers(0, n_queries, 3000))
    position = np.arange(len(row_query)) - np.searchsorted(row_query, row_query)
    grade = np.where(rng.random(len(row_query)) < 0.8, kernels.UNJUDGED, rng.integers(-1, 4, len(row_query)))
    judged_query = np.sort(rng.integers(0, n_queries, 400))
    judged_grade = rng.integers(-1, 4, 400)
    judged_grade = judged_grade[np.lexsort((-judged_grade, judged_query))]
    measures = parse_measures(["AP", "AP@5", "nDCG", "nDCG@3", "P@3", "P(rel=2)@10", "R@10", "RR", "RR@2",
                                       "Rprec", "Bpref", "Success@2"])
    values = evaluate(measures, row_query=row_query, position=position, grade=grade, judged_query=judged_query,
                      judged_grade=judged_grade, n_queries=n_queries)
    num_rel = np.bincount(judged_query, weights=judged_grade >= 1, minlength=n_queries)
    relevant = grade >= 1
    num_nonrel = np.bincount(judged_query, weights=(judged_grade >= 0) & (judged_grade < 1), minlength=n_queries)
    # the kernels on every row, with the cutoffs evaluate groups (one family and level: one pass, one summation order)
    ap = kernels.average_precision(row_query, position, relevant, num_rel, n_queries, [5])
    gain = kernels.ndcg(row_query, position, grade, judged_query, judged_grade, n_queries, [3])
    counts = kernels.relevant_counts(row_query, position, relevant, n_queries, [2, 3, 10])
    rr = kernels.reciprocal_rank(row_query, position, relevant, n_queries, [2])
    full = {
        "AP": ap[:, -1], "AP@5": ap[:, 0], "nDCG": gain[:, -1], "nDCG@3": gain[:, 0],
        "P@3": counts[:, 1] / 3,
        "P(rel=2)@10": kernels.relevant_counts(row_query, position, grade >= 2, n_queries, [10])[:, 0] / 10,
        "R@10": kernels.divide(counts[:, 2], num_rel),
        "RR": rr[:, -1], "RR@2": rr[:, 0],
        "Rprec": kernels.r_precision(row_query, position, relevant, num_rel, n_queries),
        "Bpref": kernels.bpref(row_query, grade, 1, num_rel, num_nonrel, n_queries),
        "Success@2": (counts[:, 0] > 0).astype(float),
    }
    assert set(values) == set(full)
    for name, expected in full.items():
        assert np.array_equal(values[name], expected), name
