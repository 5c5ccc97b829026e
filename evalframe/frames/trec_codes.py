"""trec_eval's ranking order, and the integer codes of TREC ids (``docs/persistence.md#trec-run-and-qrels-files``).

trec_eval ranks a query's documents by score descending, ties by docid descending (code point order);
:func:`trec_order` (over ids; :func:`evalframe.frames.trec_ranking.trec_order_codes` over codes) gives that order and
the ranks 1..n, vectorised over every query. :func:`factorized` and :func:`repeated_pairs` (and
:func:`evalframe.frames.trec_ranking.compact_codes`) are the code helpers the TREC readers, the writers,
:func:`evalframe.sources.trec.trec_frame` and the judged rankings of the trec measures share.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from .trec_ranking import trec_order_codes

__all__ = ["trec_order", "factorized", "repeated_pairs"]  # the ranking over codes is evalframe.frames.trec_ranking's


# ------------------------------------------------------------------------------------------ ranking
def trec_order(qids: np.ndarray, docids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's ranking: queries in order of first appearance, then score descending, ties by docid descending.

    Run scores are compared as trec_eval compares them: pass :func:`~evalframe.frames.trec_ranking.as_trec_scores`.
    Returns ``(order, ranks)``: the row positions in ranked order and the rank (1..n within its query) of each row of
    that order. Docids compare by code point (byte order in UTF-8), as trec_eval's ``strcmp``.

    Examples
    --------
    >>> order, ranks = trec_order(np.array(["q1", "q1", "q1"], dtype=object), np.array(["a", "c", "b"], dtype=object),
    ...                           np.array([1.0, 2.0, 2.0]))
    >>> order.tolist(), ranks.tolist()  # c and b tie: the larger docid first
    ([1, 2, 0], [1, 2, 3])
    """
    doc_codes, doc_values = pd.factorize(docids, sort=False) if len(docids) else (np.zeros(0, dtype=np.int64), docids)
    return trec_order_codes(_codes(qids), doc_codes, np.asarray(doc_values, dtype=object), scores)


def _codes(values: np.ndarray) -> np.ndarray:
    """Codes 0..k-1 in order of first appearance."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    return pd.factorize(values, sort=False)[0].astype(np.int64)


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
