"""trec_order / trec_order_codes sort as trec_eval: a property test against a plain Python sort."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "c", "é", "Z", "a0", "ü", "😀"]),
                          st.sampled_from([0.0, -0.0, 1.0, 1.5, 0.1234567891, 0.1234567890, math.inf, -math.inf, 1e300])),
                min_size=1, max_size=40), st.booleans())
def test_trec_order_codes_is_trec_evals_sort(rows, with_text_ranks):
    """Queries in order of first appearance; score (as float32) descending; docid descending, by code point."""
    from evalframe.frames.trec_codes import trec_order
    from evalframe.frames.trec_ranking import as_trec_scores, trec_order_codes

    qids = np.array([f"q{q}" for q, _, _ in rows], dtype=object)
    docids = np.array([d for _, d, _ in rows], dtype=object)
    scores = as_trec_scores(np.array([s for _, _, s in rows]))
    first = {q: i for i, q in reversed(list(enumerate(qids.tolist())))}
    expected = sorted(range(len(rows)), key=lambda i: (first[qids[i]], -scores[i], [-ord(c) for c in docids[i]] + [1]))
    order, _ = trec_order(qids, docids, scores)
    keys = [(qids[i], float(scores[i]), docids[i]) for i in order.tolist()]
    assert keys == [(qids[i], float(scores[i]), docids[i]) for i in expected]
    doc_codes, doc_values = pd.factorize(docids)
    text_ranks = (lambda: np.argsort(np.argsort(np.asarray(doc_values, dtype=object)))) if with_text_ranks else None
    query_codes = pd.factorize(qids)[0]
    codes_order, ranks = trec_order_codes(query_codes, doc_codes, np.asarray(doc_values, dtype=object), scores,
                                          text_ranks=text_ranks)
    assert codes_order.tolist() == order.tolist()
    ordered = query_codes[codes_order].tolist()
    assert ranks.tolist() == [ordered[:i + 1].count(q) for i, q in enumerate(ordered)]  # 1..n within each query


def test_few_ties_sort_only_the_tied_docids(monkeypatch):
    """With few tied rows, text_ranks is not called, and the order equals the one the full docid ranks give."""
    from evalframe.frames import trec_ranking as build_trec

    rng = np.random.default_rng(7)
    n = 5000
    query = np.sort(rng.integers(0, 50, n))
    doc_values = np.array([f"d{i}" for i in rng.permutation(20 * n)[:n]] + ["é", "Z", "😀"], dtype=object)
    doc = rng.permutation(n)
    scores = as_scores = build_trec.as_trec_scores(np.round(rng.random(n), 3))  # about 1 tie in 20 rows
    calls = []

    def text_ranks():
        calls.append(1)
        return np.argsort(np.argsort(doc_values))

    few, _ = build_trec.trec_order_codes(query, doc, doc_values, scores, text_ranks=text_ranks)
    assert not calls
    monkeypatch.setattr(build_trec, "_FEW_TIED", 10**9)  # every tie count is "many": the full ranks
    many, _ = build_trec.trec_order_codes(query, doc, doc_values, as_scores, text_ranks=text_ranks)
    assert calls and few.tolist() == many.tolist()
    expected = sorted(range(n), key=lambda i: (query[i], -scores[i], [-ord(c) for c in doc_values[doc[i]]] + [1]))
    assert few.tolist() == expected


def test_repeated_pairs_bitmap_sort_and_hash_agree():
    """Small code spaces take the bitmap, large ones the sort (then the hash when a pair repeats): one answer."""
    from evalframe.frames.trec_codes import repeated_pairs

    rng = np.random.default_rng(3)
    for n_first, n_second, n in ((5, 7, 30), (50, 10**9, 2000), (3000, 10**8, 1000)):
        first, second = rng.integers(0, n_first, n), rng.integers(0, min(n_second, 40), n)
        expected = pd.Series(list(zip(first.tolist(), second.tolist()))).duplicated().to_numpy()
        assert repeated_pairs(first, second, n_first, n_second).tolist() == expected.tolist()
        distinct = np.unique(first * 40 + second)
        assert not repeated_pairs(distinct // 40, distinct % 40, n_first, n_second).any()


def test_score_key_equals_the_plain_formula():
    """The in-place score key equals the formula it replaced: sign-flipped bits, complemented, under the query."""
    from evalframe.frames.trec_ranking import _score_key

    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.standard_normal(20000).astype(np.float32) * 1e3,
                             np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38], dtype=np.float32)])
    query = rng.integers(0, 50, len(scores))
    bits = (scores + np.float32(0.0)).view(np.uint32)
    ascending = np.where(bits >= np.uint32(0x80000000), ~bits, bits | np.uint32(0x80000000))
    expected = (query.astype(np.uint64) << np.uint64(32)) | (~ascending).astype(np.uint64)
    assert np.array_equal(_score_key(query, scores), expected)
    assert np.array_equal(_score_key(query, scores.astype(np.float64)), expected)


def _query_order_before_the_tidy(run_qids, qrels_qids):
    """sources/trec.py's query_order as it was before query_order_positions (the reference)."""
    run_unique = pd.unique(np.asarray(run_qids, dtype=object))
    qrels_unique = pd.unique(np.asarray(qrels_qids, dtype=object))
    in_run = pd.Index(run_unique).get_indexer(qrels_unique)
    anchor = np.maximum.accumulate(np.where(in_run >= 0, in_run, -1)) if len(in_run) else in_run
    only = in_run < 0
    major = np.r_[np.arange(len(run_unique)), anchor[only]]
    minor = np.r_[np.zeros(len(run_unique)), 1 + np.arange(only.sum())]
    return np.r_[run_unique, qrels_unique[only]].astype(object)[np.lexsort((minor, major))]


def test_query_order_positions_by_hand():
    from evalframe.frames.trec_ranking import query_order_positions

    # run a b; qrels z a y b x: z before every run query, y after a, x after b
    assert query_order_positions(np.array([-1, 0, -1, 1, -1]), 2).tolist() == [2, 0, 3, 1, 4]
    assert query_order_positions(np.zeros(0, dtype=np.int64), 2).tolist() == [0, 1]  # no qrels
    assert query_order_positions(np.array([-1, -1]), 0).tolist() == [0, 1]  # no run


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcdefg")), st.lists(st.sampled_from("abcdefg")))
def test_query_order_is_the_order_before_the_tidy(run_qids, qrels_qids):
    from evalframe.sources.trec import query_order

    assert query_order(run_qids, qrels_qids).tolist() == _query_order_before_the_tidy(run_qids, qrels_qids).tolist()
