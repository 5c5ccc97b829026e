"""Metric kernels: plain arrays in, one value per query out (numpy only, no pandas).

Three kinds of function live here, each a definition used by every entry point (``EvaluationResult``,
the evaluators of :mod:`evalframe.evaluators`, the common test):

* :func:`document_counts` turns the prepared key arrays of a node's document rows (one query's rows
  contiguous and sorted by rank) into the per-query quantities of :class:`DocumentCounts`;
* the formulas (:func:`recall_multi_hit` ... :func:`recall_all`) are functions of those quantities,
  written for queries with gold documents and a relevant hit; :func:`apply_edge_policy` sets the two
  edge cases (no gold, no hit) from an :class:`EdgePolicy`;
* :func:`best_per_query` is the answer metrics' kernel: the best kept value per query.

The rules are in ``docs/metrics.md#per-query`` (documents) and ``docs/metrics.md#answer-metrics`` (answers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "DocumentCounts",
    "EdgePolicy",
    "HAYSTACK_EDGE_POLICY",
    "ZERO_EDGE_POLICY",
    "document_counts",
    "apply_edge_policy",
    "best_per_query",
    "ideal_dcg",
    "log2_discount",
    "any_discount",
    "recall_multi_hit",
    "recall_single_hit",
    "precision",
    "map",
    "mrr",
    "ndcg",
    "recall_all",
]


@dataclass(frozen=True)
class DocumentCounts:
    """Per-query quantities every document metric is a function of (float arrays of length n_queries)."""

    n_rows: np.ndarray  # retrieved rows (after top-k)
    n_relevant_rows: np.ndarray  # |R|
    n_gold: np.ndarray  # L
    matched: np.ndarray  # M: distinct gold indices matched by relevant rows
    num_relevants: np.ndarray  # distinct relevant document ids + (L - M)
    min_rank: np.ndarray  # smallest rank in R (inf when R is empty)
    precision_sum: np.ndarray  # sum over r in R of |{r' in R: rank r' <= rank r}| / rank r
    dcg: np.ndarray  # sum over R of 1 / log2(rank + 1)
    ideal_dcg: np.ndarray  # sum_{i=1..num_relevants} 1 / log2(i + 1)


@dataclass(frozen=True)
class EdgePolicy:
    """Values of a document metric for queries outside the formulas' domain."""

    no_gold: float  # the query has no gold document (L == 0)
    no_hit: float  # the query has gold documents but no hit


#: Haystack 1.x EvaluationResult: a query without gold documents counts as perfect (docs/metrics.md#per-query).
HAYSTACK_EDGE_POLICY = EdgePolicy(no_gold=1.0, no_hit=0.0)

#: The other frameworks' evaluators (docs/evaluators.md): a query without gold, or without a hit, scores 0.0.
ZERO_EDGE_POLICY = EdgePolicy(no_gold=0.0, no_hit=0.0)


# ------------------------------------------------------------------------------------- counting
def _first_of_runs(keys: np.ndarray) -> np.ndarray:
    """True where a run of equal consecutive ``keys`` starts."""
    new = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    return new


def document_counts(
    *,
    row_query: np.ndarray,
    rank: np.ndarray,
    kept: np.ndarray,
    relevant: np.ndarray,
    doc_group: np.ndarray,
    doc_group_query: np.ndarray,
    pair_row: np.ndarray,
    pair_group: np.ndarray,
    pair_group_query: np.ndarray,
    pair_matched: np.ndarray,
    n_gold: np.ndarray,
) -> DocumentCounts:
    """Per-query counts of retrieved rows sorted by (query, rank).

    Parameters
    ----------
    row_query, rank : per row, the query code (0 .. n_queries - 1, ascending) and the rank (ascending
        within a query; ties in any order).
    kept : per row, whether the row counts (``rank <= k`` under a simulated top-k, else all True).
    relevant : per row, whether the row is relevant (the criterion's row column is 1); only kept rows count.
    doc_group, doc_group_query : per row, the code of its (query, document_id); per code, its query.
    pair_row, pair_group, pair_group_query : per (row, gold index) pair, its row; the code of its
        (query, gold index); per code, its query.
    pair_matched : per pair, whether the row matches that gold index under the criterion.
    n_gold : per query, L (its gold documents without ``"00"`` entries); its length is the number of queries.

    Examples
    --------
    One query, gold [g0, g1]; rank 1 retrieves g1 (relevant), rank 2 an irrelevant document:

    >>> import numpy as np
    >>> c = document_counts(row_query=np.array([0, 0]), rank=np.array([1.0, 2.0]), kept=np.array([True, True]),
    ...                     relevant=np.array([True, False]), doc_group=np.array([0, 1]), doc_group_query=np.array([0, 0]),
    ...                     pair_row=np.array([0, 0]), pair_group=np.array([0, 1]), pair_group_query=np.array([0, 0]),
    ...                     pair_matched=np.array([False, True]), n_gold=np.array([2]))
    >>> c.matched.tolist(), c.n_rows.tolist(), recall_multi_hit(c.matched, c.n_gold).tolist()
    ([1.0], [2.0], [0.5])
    """
    nq = len(n_gold)
    relevant = relevant & kept
    n_rows = np.bincount(row_query[kept], minlength=nq)
    n_relevant_rows = np.bincount(row_query[relevant], minlength=nq)

    selected = pair_matched & relevant[pair_row]
    hit = np.zeros(len(pair_group_query), dtype=bool)
    hit[pair_group[selected]] = True
    matched = np.bincount(pair_group_query[hit], minlength=nq)

    doc_hit = np.zeros(len(doc_group_query), dtype=bool)
    doc_hit[doc_group[relevant]] = True
    num_relevants = np.bincount(doc_group_query[doc_hit], minlength=nq) + (n_gold - matched)

    # Relevant rows in (query, rank) order: first one per query has the smallest rank; for map,
    # the count of relevant rows ranked at or above a row includes rows tied with it.
    positions = np.flatnonzero(relevant)
    q = row_query[positions]
    r = rank[positions]
    new_query = _first_of_runs(q)
    min_rank = np.full(nq, np.inf)
    min_rank[q[new_query]] = r[new_query]
    index = np.arange(len(q))
    query_start = np.maximum.accumulate(np.where(new_query, index, 0)) if len(q) else index
    within = index - query_start + 1
    new_tie = new_query | _first_of_runs(r)
    last_of_tie = np.r_[new_tie[1:], True] if len(q) else new_tie
    tie_id = np.cumsum(new_tie) - 1
    at_or_above = within[last_of_tie][tie_id]
    precision_sum = np.bincount(q, weights=at_or_above / r, minlength=nq)
    dcg = np.bincount(q, weights=log2_discount(r), minlength=nq)

    return DocumentCounts(
        n_rows=n_rows.astype(np.float64),
        n_relevant_rows=n_relevant_rows.astype(np.float64),
        n_gold=np.asarray(n_gold).astype(np.float64),
        matched=matched.astype(np.float64),
        num_relevants=num_relevants.astype(np.float64),
        min_rank=min_rank,
        precision_sum=precision_sum,
        dcg=dcg,
        ideal_dcg=ideal_dcg(num_relevants),
    )


def apply_edge_policy(values: np.ndarray, *, n_gold: np.ndarray, n_hits: np.ndarray, policy: EdgePolicy) -> np.ndarray:
    """``values`` with ``policy.no_hit`` where ``n_hits == 0`` and ``policy.no_gold`` where ``n_gold == 0`` (this wins).

    Examples
    --------
    >>> import numpy as np
    >>> apply_edge_policy(np.array([0.5, np.nan, np.nan]), n_gold=np.array([2, 2, 0]), n_hits=np.array([1, 0, 0]),
    ...                   policy=HAYSTACK_EDGE_POLICY).tolist()
    [0.5, 0.0, 1.0]
    """
    out = np.where(np.asarray(n_hits) == 0, policy.no_hit, values)
    return np.where(np.asarray(n_gold) == 0, policy.no_gold, out)


def best_per_query(values: np.ndarray, kept: np.ndarray, *, row_query: np.ndarray, by_query: np.ndarray,
                   starts: np.ndarray) -> np.ndarray:
    """The largest kept value of each query: 0.0 for a query without a kept row, NaN when every kept value is NaN.

    Parameters
    ----------
    values, kept : per row, the metric value (NaN: missing) and whether the row is kept.
    row_query : per row, its query code (0 .. n_queries - 1).
    by_query, starts : the rows grouped by query (a stable argsort of ``row_query``) and where each query's
        group starts in it (every query has at least one row); ``len(starts)`` is the number of queries.

    Examples
    --------
    >>> import numpy as np
    >>> best_per_query(np.array([0.2, 0.9, np.nan, 0.5]), np.array([True, False, True, False]),
    ...                row_query=np.array([0, 0, 1, 2]), by_query=np.array([0, 1, 2, 3]), starts=np.array([0, 2, 3])).tolist()
    [0.2, nan, 0.0]
    """
    nq = len(starts)
    has_row = np.bincount(row_query[kept], minlength=nq) > 0
    candidates = np.where(kept, values, -np.inf)
    best = np.fmax.reduceat(candidates[by_query], starts) if nq else np.zeros(0)
    best = np.where(has_row, best, 0.0)
    best[has_row & (best == -np.inf)] = np.nan  # kept rows, but every value missing
    return best


# ------------------------------------------------------------------------------------- formulas
def recall_multi_hit(matched: np.ndarray, n_gold: np.ndarray) -> np.ndarray:
    """M / L: the share of the gold documents matched."""
    return matched / n_gold


def recall_single_hit(n_gold: np.ndarray) -> np.ndarray:
    """1 for every query with a hit (the edge policy sets the others)."""
    return np.ones(np.shape(n_gold), dtype=np.float64)


def precision(n_relevant_rows: np.ndarray, n_rows: np.ndarray) -> np.ndarray:
    """|R| / retrieved rows."""
    return n_relevant_rows / n_rows


def map(precision_sum: np.ndarray, num_relevants: np.ndarray) -> np.ndarray:  # noqa: A001 (the metric's name)
    """Average precision: the precision sum over the relevant rows / num_relevants."""
    return precision_sum / num_relevants


def mrr(min_rank: np.ndarray) -> np.ndarray:
    """1 / the smallest relevant rank."""
    return 1.0 / min_rank


def ndcg(dcg: np.ndarray, ideal_dcg: np.ndarray) -> np.ndarray:
    """DCG / ideal DCG."""
    return dcg / ideal_dcg


def recall_all(matched: np.ndarray, n_gold: np.ndarray) -> np.ndarray:
    """1 when every gold document is matched."""
    return (np.asarray(matched) == np.asarray(n_gold)).astype(np.float64)


# ------------------------------------------------------------------------------------- discounts
def log2_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of EvaluationResult's ndcg: 1 / log2(rank + 1)."""
    return 1.0 / np.log2(np.asarray(rank, dtype=np.float64) + 1.0)


def any_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of REMem's NDCG_any: ranks 1 and 2 undiscounted, then 1 / log2(rank)."""
    rank = np.asarray(rank, dtype=np.float64)
    return np.where(rank <= 2, 1.0, 1.0 / np.log2(np.maximum(rank, 2.0)))


def ideal_dcg(num_relevants: np.ndarray) -> np.ndarray:
    """Σ_{i=1..n} 1 / log2(i + 1) for every n of ``num_relevants`` (0 for n <= 0)."""
    num_relevants = np.asarray(num_relevants, dtype=np.int64)
    top = int(num_relevants.max(initial=0))
    table = np.concatenate(([0.0], np.cumsum(log2_discount(np.arange(1, top + 1)))))
    return table[np.clip(num_relevants, 0, None)]
