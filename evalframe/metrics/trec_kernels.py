"""trec_eval's kernels: vectorised over flat arrays, numpy only (the measures' names and entries are elsewhere).

The rows of every query are laid end to end, sorted by query, then by position in the query's ranking (trec_eval's
order), as flat arrays (:class:`RankedRows`):

* ``row_query`` (query code per row, ascending), ``position`` (0-based rank in the query), ``grade`` (the
  document's qrels grade, :data:`UNJUDGED` for a document the qrels do not hold);
* ``judged_query`` / ``judged_grade``: every judged document of every query, sorted by query then grade
  descending (so a query's positive grades, in order, are its ideal ranking's gains).

Each family (precision-like counts, AP, RR, nDCG, Rprec, Bpref) is one pass over the rows for all its cutoffs:
rows are put in the bucket of the smallest cutoff that keeps them, summed per (query, bucket) with one
``bincount``, and the sums are accumulated over the buckets, so the value at every cutoff is read off one small
matrix. No loop runs per query. The definitions (trec_eval's, checked against pytrec_eval to 1e-12) are in
``docs/ir-researchers.md#measures-and-trec_evals-rules``.

Two kinds of function serve a measure's entry in :mod:`evalframe.metrics.registry`:

* a *table kernel* (``count_table`` ... ``bpref_table``), ``kernel(rows, level, cutoffs, params)``: the per-query
  values of one pass, an ``(n_queries, len(cutoffs) + 1)`` matrix whose last column is the whole ranking
  (Rprec and Bpref take no cutoff: one column); ``params`` are the measure's other parameters (``{"p": 0.8}``).
  Measures with the same table kernel, relevance level and parameters share the pass;
* a *finish* (``as_is``, ``over_cutoff``, ``over_num_rel``, ``found``), ``finish(column, cutoff, num_rel)``:
  the measure's values from its column of the table (P@k is the count over k, R@k the count over num_rel).

Examples
--------
>>> rows = RankedRows(row_query=np.array([0, 0, 0]), position=np.array([0, 1, 2]), grade=np.array([0, 2, 1]),
...                   judged_query=np.array([0, 0, 0]), judged_grade=np.array([2, 1, 0]), n_queries=1)
>>> count_table(rows, 1, [2], {}).tolist()  # relevant in the top 2; in the whole ranking
[[1.0, 2.0]]
>>> over_cutoff(count_table(rows, 1, [2], {})[:, 0], 2, rows.num_rel(1)).tolist()  # P@2
[0.5]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

__all__ = [
    "UNJUDGED",
    "RankedRows",
    "cutoff_sums",
    "relevant_counts",
    "average_precision",
    "reciprocal_rank",
    "ndcg",
    "r_precision",
    "bpref",
    "divide",
    "count_table",
    "ap_table",
    "rr_table",
    "ndcg_table",
    "rprec_table",
    "bpref_table",
    "as_is",
    "over_cutoff",
    "over_num_rel",
    "found",
]

#: The grade of a retrieved document the qrels do not hold. Every grade < 0 is treated alike: neither relevant
#: nor judged non-relevant (bpref skips it, its gain is 0).
UNJUDGED = -(2**62)


@dataclass(frozen=True)
class RankedRows:
    """A node's rankings and judgments as the flat int64 arrays the module describes: every retrieved row, judged
    or not (:attr:`judged` keeps the judged ones). ``subtopics`` is what the diversity measures read (None when the
    qrels have no subtopics)."""

    row_query: np.ndarray
    position: np.ndarray
    grade: np.ndarray
    judged_query: np.ndarray
    judged_grade: np.ndarray
    n_queries: int
    subtopics: Any = None

    @cached_property
    def judged(self) -> RankedRows:
        """The judged rows alone, positions kept: what most kernels read (an unjudged row weighs 0.0 in their sums,
        and adding 0.0 to a sum of non-negative terms leaves it bit for bit)."""
        keep = np.flatnonzero(self.grade != UNJUDGED)
        if len(keep) == len(self.grade):
            return self
        return RankedRows(row_query=self.row_query[keep], position=self.position[keep], grade=self.grade[keep],
                          judged_query=self.judged_query, judged_grade=self.judged_grade, n_queries=self.n_queries,
                          subtopics=self.subtopics)

    @cached_property
    def judged_ranking(self) -> RankedRows:
        """The judged rows alone, ranked again among themselves (trec_eval -J, ir_measures' ``judged_only``):
        every unjudged document removed before any measure is computed."""
        judged = self.judged
        if judged is self:
            return self
        first = np.searchsorted(judged.row_query, judged.row_query, side="left")
        return RankedRows(row_query=judged.row_query, position=np.arange(len(judged.row_query)) - first,
                          grade=judged.grade, judged_query=self.judged_query, judged_grade=self.judged_grade,
                          n_queries=self.n_queries, subtopics=self.subtopics)

    @cached_property
    def num_ret(self) -> np.ndarray:
        """Per query, its retrieved rows (float64)."""
        return np.bincount(self.row_query, minlength=self.n_queries).astype(np.float64)

    def relevant(self, level: int) -> np.ndarray:
        """Per row, whether its grade is at least ``level``."""
        return self.grade >= level

    def num_rel(self, level: int) -> np.ndarray:
        """Per query, its judged documents with grade >= ``level`` (float64)."""
        return np.bincount(self.judged_query, weights=self.judged_grade >= level, minlength=self.n_queries)

    def num_nonrel(self, level: int) -> np.ndarray:
        """Per query, its judged documents with 0 <= grade < ``level`` (float64)."""
        judged = self.judged_grade >= 0
        return np.bincount(self.judged_query, weights=judged & (self.judged_grade < level), minlength=self.n_queries)

    def num_ret_rel(self, level: int) -> np.ndarray:
        """Per query, its retrieved documents with grade >= ``level`` (float64): 0 is a query without a hit."""
        return np.bincount(self.row_query, weights=self.relevant(level), minlength=self.n_queries)


# ------------------------------------------------------------------------------------ formulas
def cutoff_sums(row_query: np.ndarray, position: np.ndarray, weights: np.ndarray, n_queries: int,
                cutoffs: Sequence[int]) -> np.ndarray:
    """Per query, the sum of ``weights`` over its rows at ``position < k``, for each k of ``cutoffs`` and for all rows.

    Returns an ``(n_queries, len(cutoffs) + 1)`` matrix; the last column sums every row. One pass: each row goes
    to the bucket of the smallest cutoff that keeps it, and the bucket sums are accumulated.
    ``cutoffs`` must be ascending.
    """
    cuts = np.asarray(cutoffs, dtype=np.int64)
    n_buckets = len(cuts) + 1
    bucket = np.searchsorted(cuts, position, side="right")  # position < cuts[b] for every b >= bucket
    sums = np.bincount(row_query * n_buckets + bucket, weights=weights, minlength=n_queries * n_buckets)
    return np.cumsum(sums.reshape(n_queries, n_buckets), axis=1)


def _segment_cumsum(row_query: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """Inclusive running sum of integer ``values`` within each query (exact: integers)."""
    total = np.cumsum(values)
    before = np.concatenate(([0], np.cumsum(np.bincount(row_query, weights=values, minlength=n_queries)
                                            .astype(np.int64))))[:-1]
    return total - before[row_query]


def relevant_counts(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, n_queries: int,
                    cutoffs: Sequence[int]) -> np.ndarray:
    """Relevant documents in the top k per query, for each cutoff (and all rows, last column)."""
    return cutoff_sums(row_query, position, relevant.astype(np.float64), n_queries, cutoffs)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=np.broadcast_to(denominator, out.shape) != 0)
    return out


def average_precision(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, num_rel: np.ndarray,
                      n_queries: int, cutoffs: Sequence[int]) -> np.ndarray:
    """trec_eval's map / map_cut.k: sum over relevant rows in the top k of (relevant so far) / rank, over num_rel."""
    so_far = _segment_cumsum(row_query, relevant.astype(np.int64), n_queries)
    precision = np.where(relevant, so_far / (position + 1.0), 0.0)
    return divide(cutoff_sums(row_query, position, precision, n_queries, cutoffs), num_rel[:, None])


def reciprocal_rank(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, n_queries: int,
                    cutoffs: Sequence[int]) -> np.ndarray:
    """1 / rank of the first relevant row (0 if none), counted only when that rank is <= k."""
    first = np.full(n_queries, np.iinfo(np.int64).max, dtype=np.int64)
    hit_query, hit_position = row_query[relevant], position[relevant]
    starts = np.flatnonzero(np.diff(hit_query, prepend=-1) != 0)  # rows are sorted: a query's first hit
    first[hit_query[starts]] = hit_position[starts]
    limits = np.append(np.asarray(cutoffs, dtype=np.int64), np.iinfo(np.int64).max)
    found = first[:, None] < limits[None, :]
    return np.where(found, 1.0 / (np.minimum(first, 2**52)[:, None] + 1.0), 0.0)


def ndcg(row_query: np.ndarray, position: np.ndarray, grade: np.ndarray, judged_query: np.ndarray,
         judged_grade: np.ndarray, n_queries: int, cutoffs: Sequence[int]) -> np.ndarray:
    """trec_eval's ndcg / ndcg_cut.k: DCG of the grades > 0 (gain / log2(rank + 1)) over the ideal DCG at k."""
    gain = np.where(grade > 0, grade, 0).astype(np.float64)
    dcg = cutoff_sums(row_query, position, gain / np.log2(position + 2.0), n_queries, cutoffs)
    positive = judged_grade > 0
    ideal_query = judged_query[positive]
    ideal_gain = judged_grade[positive].astype(np.float64)
    ideal_position = np.arange(len(ideal_query)) - np.searchsorted(ideal_query, ideal_query)
    ideal = cutoff_sums(ideal_query, ideal_position, ideal_gain / np.log2(ideal_position + 2.0), n_queries, cutoffs)
    return divide(dcg, ideal)


def r_precision(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, num_rel: np.ndarray,
                n_queries: int) -> np.ndarray:
    """Relevant in the top num_rel over num_rel (0 when num_rel is 0)."""
    inside = relevant & (position < num_rel[row_query])
    return divide(np.bincount(row_query, weights=inside, minlength=n_queries), num_rel)


def bpref(row_query: np.ndarray, grade: np.ndarray, level: int, num_rel: np.ndarray, num_nonrel: np.ndarray,
          n_queries: int) -> np.ndarray:
    """trec_eval's bpref: unjudged rows skipped; each relevant row adds 1 - min(n, R) / min(N, R), n the judged
    non-relevant rows above it (1 when n == 0); the sum over R (0 when R == 0)."""
    relevant = grade >= level
    nonrelevant = (grade >= 0) & ~relevant
    above = _segment_cumsum(row_query, nonrelevant.astype(np.int64), n_queries) - nonrelevant
    r, n_all = num_rel[row_query], num_nonrel[row_query]
    penalty = divide(np.minimum(above, r).astype(np.float64), np.minimum(n_all, r).astype(np.float64))
    score = np.where(relevant, np.where(above > 0, 1.0 - penalty, 1.0), 0.0)
    return divide(np.bincount(row_query, weights=score, minlength=n_queries), num_rel)


# ------------------------------------------------------------------------------------ table kernels
def count_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """Relevant documents in the top k (P, R, Success: one pass for all their cutoffs)."""
    rows = rows.judged
    return relevant_counts(rows.row_query, rows.position, rows.relevant(level), rows.n_queries, cutoffs)


def ap_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """trec_eval's map / map_cut.k."""
    rows = rows.judged
    return average_precision(rows.row_query, rows.position, rows.relevant(level), rows.num_rel(level), rows.n_queries,
                             cutoffs)


def rr_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """trec_eval's recip_rank (and its value counted only when the first relevant rank is <= k)."""
    rows = rows.judged
    return reciprocal_rank(rows.row_query, rows.position, rows.relevant(level), rows.n_queries, cutoffs)


def ndcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """trec_eval's ndcg / ndcg_cut.k (the grades are the gains: ``level`` is not read)."""
    rows = rows.judged
    return ndcg(rows.row_query, rows.position, rows.grade, rows.judged_query, rows.judged_grade, rows.n_queries, cutoffs)


def rprec_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """trec_eval's Rprec, one column (no cutoff)."""
    rows = rows.judged
    return r_precision(rows.row_query, rows.position, rows.relevant(level), rows.num_rel(level), rows.n_queries)[:, None]


def bpref_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, Any]) -> np.ndarray:
    """trec_eval's bpref, one column (no cutoff)."""
    rows = rows.judged
    return bpref(rows.row_query, rows.grade, level, rows.num_rel(level), rows.num_nonrel(level), rows.n_queries)[:, None]


# ------------------------------------------------------------------------------------ finishes
def as_is(column: np.ndarray, cutoff: int | None, num_rel: np.ndarray) -> np.ndarray:
    """The column itself (AP, nDCG, RR, Rprec, Bpref)."""
    return column


def over_cutoff(column: np.ndarray, cutoff: int | None, num_rel: np.ndarray) -> np.ndarray:
    """The count over k (P@k; the count itself without a cutoff)."""
    return column / cutoff if cutoff is not None else column


def over_num_rel(column: np.ndarray, cutoff: int | None, num_rel: np.ndarray) -> np.ndarray:
    """The count over the query's number of relevant documents, 0 when it has none (R@k)."""
    return divide(column, num_rel)


def found(column: np.ndarray, cutoff: int | None, num_rel: np.ndarray) -> np.ndarray:
    """1.0 where the count is positive, else 0.0 (Success@k)."""
    return (column > 0).astype(np.float64)
