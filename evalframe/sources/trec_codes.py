"""trec_eval's ranking order, and the integer codes of TREC ids (``docs/persistence.md#trec-run-and-qrels-files``).

trec_eval ranks a query's documents by score descending, ties by docid descending (code point order);
:func:`trec_order` / :func:`trec_order_codes` give that order and the ranks 1..n, vectorised over every query.
:func:`factorized`, :func:`compact_codes` and :func:`repeated_pairs` are the code helpers the TREC readers, the
writers, :func:`evalframe.sources.trec.trec_frame` and the judged rankings of the trec measures share.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = ["trec_order", "trec_order_codes", "as_trec_scores", "ranks_within", "factorized", "compact_codes",
           "repeated_pairs"]


# ------------------------------------------------------------------------------------------ ranking
def trec_order(qids: np.ndarray, docids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's ranking: queries in order of first appearance, then score descending, ties by docid descending.

    Run scores are compared as trec_eval compares them: pass :func:`as_trec_scores`. Returns ``(order, ranks)``:
    the row positions in ranked order and the rank (1..n within its query) of each row of that order. Docids compare
    by code point (byte order in UTF-8), as trec_eval's ``strcmp``.

    Examples
    --------
    >>> order, ranks = trec_order(np.array(["q1", "q1", "q1"], dtype=object), np.array(["a", "c", "b"], dtype=object),
    ...                           np.array([1.0, 2.0, 2.0]))
    >>> order.tolist(), ranks.tolist()  # c and b tie: the larger docid first
    ([1, 2, 0], [1, 2, 3])
    """
    doc_codes, doc_values = pd.factorize(docids, sort=False) if len(docids) else (np.zeros(0, dtype=np.int64), docids)
    return trec_order_codes(_codes(qids), doc_codes, np.asarray(doc_values, dtype=object), scores)


def trec_order_codes(query: np.ndarray, doc: np.ndarray, doc_values: np.ndarray, scores: np.ndarray, *,
                     text_ranks: Callable[[], np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`trec_order` on codes: ``query`` numbers the queries in order of first appearance, ``doc[i]`` is row i's
    docid as an index into ``doc_values`` (distinct docids, any order); ``scores`` as :func:`trec_order` takes them.

    One integer sort by (query, score); the rows that tie there are then ordered by docid with a second integer
    sort, by (tie group, docid rank). ``text_ranks()``, when given, returns the rank of every distinct docid in
    code point order (e.g. sorted in Arrow); it is called only when the tied rows are many (more than one in
    ``_FEW_TIED`` of the distinct docids), else only the distinct docids of tied rows are sorted, as text (the
    same ranks among them: a sort of a few thousand strings instead of a million).

    Examples
    --------
    >>> trec_order_codes(np.array([0, 0, 0]), np.array([0, 1, 2]), np.array(["a", "c", "b"], dtype=object),
    ...                  np.array([1.0, 2.0, 2.0]))[0].tolist()
    [1, 2, 0]
    """
    n = len(query)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    query, doc = np.asarray(query, dtype=np.int64), np.asarray(doc, dtype=np.int64)
    key = _score_key(query, np.asarray(scores))
    if key is not None:
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        same = ordered[1:] == ordered[:-1]
    else:  # scores that no 32-bit key holds exactly: sort on the floats
        order = np.lexsort((-scores, query))
        ordered_query, ordered_scores = query[order], scores[order]
        same = (ordered_query[1:] == ordered_query[:-1]) & (ordered_scores[1:] == ordered_scores[:-1])
    if same.any():  # ties: the tied rows are ranked by docid descending, in place
        tied = np.zeros(n, dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        rows = order[tied]
        if text_ranks is not None and len(rows) * _FEW_TIED > len(doc_values):
            rank_of = np.asarray(text_ranks(), dtype=np.int64)
        else:  # only the docids of tied rows, each once
            used = np.zeros(len(doc_values), dtype=bool)
            used[doc[rows]] = True
            used_codes = np.flatnonzero(used)
            rank_of = np.zeros(len(doc_values), dtype=np.int64)
            rank_of[used_codes[np.argsort(doc_values[used_codes], kind="stable")]] = np.arange(len(used_codes))
        docid_rank = rank_of[doc[rows]]
        # tie groups: runs of equal (query, score) among the tied rows, numbered in order
        group = np.cumsum(_run_starts(tied, same)) - 1
        largest = int(docid_rank.max(initial=0))
        if int(group[-1]).bit_length() + largest.bit_length() <= 63:
            within = np.argsort((group << largest.bit_length()) | (largest - docid_rank), kind="stable")
        else:
            within = np.lexsort((-docid_rank, group))
        order[tied] = rows[within]
    # the order keeps the queries ascending: rank = position - the query's first position + 1 (no gather of codes)
    counts = np.bincount(query)
    starts = np.cumsum(counts) - counts
    return order, np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, counts)


#: Tied rows fewer than one in this many distinct docids: their docids are sorted alone (``text_ranks`` is not called).
_FEW_TIED = 8


def _run_starts(tied: np.ndarray, same: np.ndarray) -> np.ndarray:
    """For the tied positions (in sorted order): whether each starts a new group of equal keys (``same[i]``: position
    i + 1 equals position i)."""
    positions = np.flatnonzero(tied)
    starts = np.ones(len(positions), dtype=bool)
    inside = positions[1:] - 1  # position before each tied position but the first
    starts[1:] = ~((positions[1:] == positions[:-1] + 1) & same[inside])
    return starts.astype(np.int64)


def _score_key(query: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """One uint64 per row ordering by (query ascending, score descending), equal exactly when both are equal.

    Scores must be float32 or float64 values that float32 holds exactly (else None); -0.0 and 0.0 are one score.
    """
    if np.isnan(scores).any():
        return None
    if scores.dtype != np.float32:
        as32 = scores.astype(np.float32)
        if not np.array_equal(as32, scores):
            return None
        scores = as32
    if len(query) and int(query.max()) >= 2**32:
        return None
    bits = (scores + np.float32(0.0)).view(np.uint32)  # + 0.0: -0.0 becomes 0.0
    # the score part: larger float, smaller key. A float's bits order like the float when the sign bit is flipped for
    # positives and all bits for negatives; the complement of that is ``bits`` for negatives and ``bits ^ 0x7FFFFFFF``
    # for positives: one mask (0 or 0x7FFFFFFF from the sign bit), in place
    descending = bits >> np.uint32(31)
    descending -= np.uint32(1)
    descending &= np.uint32(0x7FFFFFFF)
    descending ^= bits
    key = query.astype(np.uint64)
    key <<= np.uint64(32)
    key |= descending
    return key


def as_trec_scores(scores: np.ndarray) -> np.ndarray:
    """Scores as trec_eval compares them: 32-bit floats (its ``float sim``), so 0.1234567891 and 0.1234567890 tie.

    The frames keep the scores' 64-bit values; only the ranking rounds them.

    Examples
    --------
    >>> as_trec_scores(np.array([0.1234567891, 0.1234567890, 1e-300, 1e300])).tolist()[1:]
    [0.12345679104328156, 0.0, inf]
    """
    with np.errstate(over="ignore"):  # beyond float32's range: inf, as atof into a float gives
        return np.asarray(scores, dtype=np.float64).astype(np.float32)


def _codes(values: np.ndarray) -> np.ndarray:
    """Codes 0..k-1 in order of first appearance."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    return pd.factorize(values, sort=False)[0].astype(np.int64)


def ranks_within(sorted_codes: np.ndarray) -> np.ndarray:
    """1..n within each run of equal codes (rows grouped by code).

    Examples
    --------
    >>> ranks_within(np.array([0, 0, 1, 1, 1])).tolist()
    [1, 2, 1, 2, 3]
    """
    n = len(sorted_codes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n, dtype=np.int64) - np.repeat(starts, lengths) + 1


def factorized(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64 codes in order of first appearance, and the distinct values (an object array); a missing value is a value.

    Examples
    --------
    >>> codes, values = factorized(np.array(["b", "a", "b"], dtype=object))
    >>> codes.tolist(), values.tolist()
    ([0, 1, 0], ['b', 'a'])
    """
    if not len(values):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    codes, uniques = pd.factorize(values, sort=False)
    if len(codes) and codes.min() < 0:  # a missing value: coded as a value too (checking for them costs a pass)
        codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def repeated_pairs(first: np.ndarray, second: np.ndarray, n_first: int, n_second: int) -> np.ndarray:
    """Whether each row repeats an earlier row's pair of codes (``first`` < ``n_first``, ``second`` < ``n_second``).

    A bitmap when the pairs are few enough to count, else a sort of integer keys; only when some pair repeats, one
    hash of the keys finds which rows.

    Examples
    --------
    >>> repeated_pairs(np.array([0, 0, 1, 0]), np.array([0, 1, 0, 1]), 2, 2).tolist()
    [False, False, False, True]
    """
    if not len(first):
        return np.zeros(0, dtype=bool)
    width = max(n_second, 1)
    key = np.asarray(first, dtype=np.int64) * width + np.asarray(second, dtype=np.int64)
    if n_first * width <= max(16 * len(key), 1 << 24):
        seen = np.zeros(n_first * width, dtype=bool)
        seen[key] = True
        if int(np.count_nonzero(seen)) == len(key):
            return np.zeros(len(key), dtype=bool)
    else:  # a sort proves there is no repeat faster than a hash of 10M keys (radix / merge runs of grouped queries)
        ordered = np.sort(key, kind="stable")
        if not (ordered[1:] == ordered[:-1]).any():
            return np.zeros(len(key), dtype=bool)
    return pd.Series(key).duplicated().to_numpy()


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer codes as int32 when they fit (half the memory of int64), else as they are; use them in
    arithmetic only after ``astype(np.int64)``.

    Examples
    --------
    >>> compact_codes(np.array([0, 5])).dtype, compact_codes(np.array([0, 2**31])).dtype
    (dtype('int32'), dtype('int64'))
    """
    return codes.astype(np.int32) if not len(codes) or int(codes.max()) < 2**31 else codes
