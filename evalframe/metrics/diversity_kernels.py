"""Diversity measures over subtopic judgments (ndeval's, as ir_measures computes them), and Compat: numpy only.

A *subtopic qrels* judges a document per subtopic (an aspect, an intent) of the query: ``query subtopic doc grade``,
the qrels' second column being the subtopic. :class:`Subtopics` holds those judgments as flat arrays: every
judgment of the query's documents (for the ideal rankings), and every judgment of a ranked document keyed by the
row's (query, position) (for the runs). A judgment is relevant when its grade is at least the relevance level
(``rel``, default 1): the measures are binary per subtopic, as ndeval's (it reads every grade above 1 as 1).

The measures, with ndeval's definitions (Clarke et al.'s ``ndeval`` 4.5, which ir_measures runs through
``pyndeval``); ``S`` is the number of the query's subtopics with at least one relevant document, ``c_j(r)`` the
number of documents relevant to subtopic j ranked above rank r, and ``g(r) = Σ_j rel_j(r) (1 - alpha)^c_j(r)`` the
novelty-discounted gain at rank r:

* ``alpha_DCG@k``: ``Σ_{r<=k} g(r) / log2(r + 1)``, over the same sum of an "ideal ideal" ranking, which covers every
  subtopic at every rank (``S Σ_{r<=k} (1 - alpha)^(r-1) / log2(r + 1)``); at k = 1 ndeval leaves the sum as it is;
* ``alpha_nDCG@k`` (Clarke et al. 2008): the same sum over that of the ideal ranking, built greedily (each rank takes
  the document of the highest gain given those above it; ties go to the greatest docid, as ndeval's ``strcmp``);
* ``ERR_IA@k`` / ``nERR_IA@k``: as alpha_DCG / alpha_nDCG with the discount 1 / r;
* ``P_IA@k``: relevant (document, subtopic) pairs in the top k over ``k S``;
* ``StRecall@k``: subtopics with a relevant document in the top k, over ``S``;
* ``AP_IA``: the mean over the S subtopics of each one's average precision over the whole ranking;
* ``NRBP`` (Clarke, Kolla and Vechtomova 2009): ``(1 - (1 - alpha) beta) / S Σ_r beta^(r-1) g(r)`` over the whole
  ranking; ``nNRBP``: the same sum over the greedy ideal ranking's (ndeval divides 0 by 0 for a query with S = 0:
  NaN, no value).

A query with ``S = 0`` scores 0 on each. A ranked document without any judgment takes its rank and adds nothing;
with ``judged_only`` (ir_measures' parameter) such documents are removed first and the ranks close up.

Compat (Clarke, Vtyurina and Smucker 2020, as ir_measures' ``compat`` provider computes it) needs no subtopics: the
rank-biased overlap (persistence ``p``) of the ranking with the ideal ranking, the documents of grade > 0 by grade
descending, ties in the order the run ranks them (unretrieved ones last), to the depth ``D = max(ranked, ideal)``::

    RBO = Σ_{i=1..D} p^(i-1) |ranking[:i] ∩ ideal[:i]| / i  /  Σ_{i=1..D} p^(i-1)

normalised (the default) by the RBO of the ideal ranking with itself.

Examples
--------
>>> import numpy as np
>>> # Clarke et al. 2008's alpha-nDCG worked by hand (alpha = 0.5): documents a, b, c; a is relevant to subtopics
>>> # s1 and s2, b to s1, c to s2; the run ranks b, c, a. Gains: b 1 (s1 new), c 1 (s2 new), a 0.5 + 0.5 (both seen
>>> # once); DCG@3 = 1 + 1/log2(3) + 1/2 = 2.13093. The greedy ideal ranks a (gain 2), then c or b (0.5 each), then
>>> # the other (0.5): ideal DCG@3 = 2 + 0.5/log2(3) + 0.5/2 = 2.56546; alpha-nDCG@1, @2, @3 = 1/2, 1.63093/2.31546,
>>> # 2.13093/2.56546.
>>> subtopics = Subtopics(doc_query=np.array([0, 0, 0]), subtopic_query=np.array([0, 0]),  # documents c, b, a
...     judged_doc=np.array([2, 2, 1, 0]), judged_subtopic=np.array([0, 1, 0, 1]), judged_grade=np.array([1, 1, 1, 1]),
...     row_query=np.array([0, 0, 0, 0]), row_position=np.array([0, 1, 2, 2]), row_subtopic=np.array([0, 1, 0, 1]),
...     row_grade=np.array([1, 1, 1, 1]))
>>> [round(float(v), 5) for v in alpha_ndcg(subtopics, 1, [1, 2, 3], n_queries=1)[0, :3]]
[0.5, 0.70436, 0.83062]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from .trec_kernels import RankedRows, cutoff_sums, divide

__all__ = [
    "Subtopics",
    "alpha_dcg",
    "alpha_ndcg",
    "err_ia",
    "nerr_ia",
    "precision_ia",
    "subtopic_recall",
    "ap_ia",
    "nrbp",
    "nnrbp",
    "compat",
    "ideal_gains",
    "alpha_ndcg_table",
    "alpha_dcg_table",
    "err_ia_table",
    "nerr_ia_table",
    "p_ia_table",
    "strecall_table",
    "ap_ia_table",
    "nrbp_table",
    "nnrbp_table",
    "compat_table",
    "SUBTOPIC_KERNELS",
]


@dataclass(frozen=True)
class Subtopics:
    """A node's subtopic judgments, for the diversity measures (see the module).

    Attributes
    ----------
    doc_query : numpy.ndarray
        Per judged document (of a query): its query code. A query's documents are consecutive, in docid order
        *descending* (ndeval's ideal ranking gives a tie to the greatest docid: the first of the query's documents).
    subtopic_query : numpy.ndarray
        Per subtopic (of a query): its query code. Subtopic codes are per (query, subtopic); within a query ascending
        in the order ndeval sums them.
    judged_doc, judged_subtopic, judged_grade : numpy.ndarray
        Per judgment (line of the subtopic qrels): its document and subtopic codes (indexes of the two arrays above),
        and grade.
    row_query, row_position, row_subtopic, row_grade : numpy.ndarray
        Per judgment of a ranked document: the row's query code and 0-based position in the query's whole ranking,
        the subtopic code and the grade. Sorted by query, then position.
    """

    doc_query: np.ndarray
    subtopic_query: np.ndarray
    judged_doc: np.ndarray
    judged_subtopic: np.ndarray
    judged_grade: np.ndarray
    row_query: np.ndarray
    row_position: np.ndarray
    row_subtopic: np.ndarray
    row_grade: np.ndarray

    def n_subtopics(self, level: int, n_queries: int) -> np.ndarray:
        """Per query, S: its subtopics with at least one judgment of grade >= ``level`` (float64)."""
        relevant = np.zeros(len(self.subtopic_query), dtype=bool)
        relevant[self.judged_subtopic[self.judged_grade >= level]] = True
        return np.bincount(self.subtopic_query, weights=relevant, minlength=n_queries)


def _ranked_pairs(subtopics: Subtopics, level: int, judged_only: bool, ranked: tuple[np.ndarray, np.ndarray] | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query, position, subtopic) of the relevant judgments of ranked rows, sorted by query and position.

    With ``judged_only``, positions count only the judged rows (a judgment of grade >= 0 for some subtopic: trec_eval
    -J's rule, which ir_measures' ``judged_only`` follows here; the other rows removed and the ranks closed up).
    ``ranked``: the (query, position) of the rows evaluated, sorted,
    positions counted the same way; the judgments of other rows are dropped (rows cut off by the caller).
    """
    query = np.asarray(subtopics.row_query, dtype=np.int64)
    position = np.asarray(subtopics.row_position, dtype=np.int64)
    subtopic = np.asarray(subtopics.row_subtopic, dtype=np.int64)
    grade = np.asarray(subtopics.row_grade, dtype=np.int64)
    if judged_only and len(query):
        # a row is judged when its highest grade over the subtopics is >= 0 (trec_eval -J: a grade < 0 is pooled, not
        # judged): its new position counts the judged rows above it
        first = np.diff(query * (int(position.max()) + 1) + position, prepend=-1) != 0
        starts = np.flatnonzero(first)
        best = np.maximum.reduceat(grade, starts) if len(starts) else grade[:0]
        keep = np.repeat(best >= 0, np.diff(np.append(starts, len(grade))))
        query, position, subtopic, grade, first = query[keep], position[keep], subtopic[keep], grade[keep], first[keep]
    if judged_only and len(query):
        row_number = np.cumsum(first) - 1  # index among the judged rows, over every query
        query_start = np.searchsorted(query[first], np.arange(int(query.max()) + 1))
        position = row_number - query_start[query]
    if ranked is not None and len(query):
        rank_query, rank_position = (np.asarray(a, dtype=np.int64) for a in ranked)
        width = int(max(position.max(initial=0), rank_position.max(initial=0))) + 1
        keys = rank_query * width + rank_position
        wanted = query * width + position
        found = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
        kept = (keys[found] == wanted) if len(keys) else np.zeros(len(wanted), dtype=bool)
        query, position, subtopic, grade = query[kept], position[kept], subtopic[kept], grade[kept]
    relevant = grade >= level
    return query[relevant], position[relevant], subtopic[relevant]


def _novelty(query: np.ndarray, position: np.ndarray, subtopic: np.ndarray, alpha: float) -> np.ndarray:
    """(1 - alpha)^c per relevant judgment, c the judgments of its subtopic ranked above it (ndeval's repeated
    product, not a power: the same bits)."""
    if not len(subtopic):
        return np.zeros(0)
    order = np.lexsort((position, subtopic))
    sorted_subtopic = subtopic[order]
    start = np.flatnonzero(np.diff(sorted_subtopic, prepend=-1) != 0)
    count = np.arange(len(order)) - np.repeat(start, np.diff(np.append(start, len(order))))
    table = np.cumprod(np.concatenate(([1.0], np.full(int(count.max()), 1.0 - alpha))))
    novelty = np.empty(len(order))
    novelty[order] = table[count]
    return novelty


def _discount(position: np.ndarray, kind: str) -> np.ndarray:
    """ndeval's discounts per 0-based position: log(2) / log(rank + 1) (DCG) or 1 / rank (ERR)."""
    position = np.asarray(position, dtype=np.float64)
    if kind == "dcg":
        return np.log(2.0) / np.log(position + 2.0)
    return 1.0 / (position + 1.0)


def ideal_gains(subtopics: Subtopics, level: int, alpha: float, depth: int, n_queries: int) -> np.ndarray:
    """The gains ``g(r)`` of ndeval's greedy ideal ranking, ranks 1..depth: an ``(n_queries, depth)`` matrix.

    Each rank takes the query's unplaced document of the highest gain ``Σ_j rel_j (1 - alpha)^(placed documents
    relevant to j)``, summed over its subtopics in code order (ndeval's sum, bit for bit), ties to the greatest
    docid (the lowest document code). One step per rank for every query at once.
    """
    gains = np.zeros((n_queries, max(depth, 0)))
    relevant = subtopics.judged_grade >= level
    pair_doc = np.asarray(subtopics.judged_doc, dtype=np.int64)[relevant]
    pair_subtopic = np.asarray(subtopics.judged_subtopic, dtype=np.int64)[relevant]
    if depth <= 0 or not len(pair_doc):
        return gains
    order = np.lexsort((pair_subtopic, pair_doc))  # each document's subtopics in code order, as ndeval adds them
    pair_doc, pair_subtopic = pair_doc[order], pair_subtopic[order]
    candidates, pair_candidate = np.unique(pair_doc, return_inverse=True)  # only documents with a relevant subtopic
    candidate_query = np.asarray(subtopics.doc_query, dtype=np.int64)[candidates]  # ascending (documents by query)
    group_start = np.flatnonzero(np.diff(candidate_query, prepend=-1) != 0)
    group_query = candidate_query[group_start]
    pair_start = np.searchsorted(pair_candidate, np.arange(len(candidates) + 1))
    subtopic_gain = np.ones(len(subtopics.subtopic_query))
    placed = np.zeros(len(candidates), dtype=bool)
    index = np.arange(len(candidates))
    for rank in range(depth):
        score = np.bincount(pair_candidate, weights=subtopic_gain[pair_subtopic], minlength=len(candidates))
        score[placed] = -1.0
        best = np.maximum.reduceat(score, group_start)
        first_best = np.minimum.reduceat(np.where(score == best[np.repeat(np.arange(len(group_start)),
                                                                             np.diff(np.append(group_start,
                                                                                               len(candidates))))],
                                                  index, len(candidates)), group_start)
        going = best > 0.0  # a query whose remaining documents all gain 0 keeps 0 at every later rank
        if not going.any():
            break
        chosen = first_best[going]
        gains[group_query[going], rank] = best[going]
        placed[chosen] = True
        lengths = pair_start[chosen + 1] - pair_start[chosen]
        pairs = np.repeat(pair_start[chosen] - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
        subtopic_gain[pair_subtopic[pairs]] *= 1.0 - alpha
    return gains


def _with_whole(values: np.ndarray) -> np.ndarray:
    """The kernels' table: the values at each cutoff, then a last column for the whole ranking, NaN (these
    measures take a cutoff: ndeval has no value without one)."""
    return np.concatenate([values, np.full((len(values), 1), np.nan)], axis=1)


def _run_sums(subtopics: Subtopics, level: int, cutoffs: Sequence[int], n_queries: int, alpha: float, kind: str,
              judged_only: bool, ranked: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """Per query, ``Σ_{r<=k} g(r) d(r)`` of the ranking for each cutoff (columns)."""
    query, position, subtopic = _ranked_pairs(subtopics, level, judged_only, ranked)
    weights = _novelty(query, position, subtopic, alpha) * _discount(position, kind)
    return cutoff_sums(query, position, weights, n_queries, cutoffs)[:, :-1]


def _ideal_sums(subtopics: Subtopics, level: int, cutoffs: Sequence[int], n_queries: int, alpha: float, kind: str
                ) -> np.ndarray:
    """Per query, the same sums over the greedy ideal ranking, for each cutoff."""
    depth = int(max(cutoffs, default=0))
    summed = np.cumsum(ideal_gains(subtopics, level, alpha, depth, n_queries) * _discount(np.arange(depth), kind),
                       axis=1)
    return summed[:, np.asarray(cutoffs, dtype=np.int64) - 1]


def _collection_independent(sums: np.ndarray, subtopics: Subtopics, level: int, cutoffs: Sequence[int],
                            n_queries: int, alpha: float, kind: str) -> np.ndarray:
    """``sums`` over ndeval's "ideal ideal" normaliser ``S Σ_{r<=k} (1 - alpha)^(r-1) d(r)``, which covers every
    subtopic at every rank; at k = 1 ndeval leaves the sum as it is (its loop normalises from the second rank)."""
    depth = int(max(cutoffs, default=1))
    weight = np.cumprod(np.concatenate(([1.0], np.full(depth - 1, 1.0 - alpha))))
    ideal_ideal = np.cumsum(weight * _discount(np.arange(depth), kind))[np.asarray(cutoffs, dtype=np.int64) - 1]
    count = subtopics.n_subtopics(level, n_queries)
    normaliser = np.where(np.asarray(cutoffs)[None, :] == 1, 1.0, ideal_ideal[None, :] * count[:, None])
    return np.where(count[:, None] > 0, divide(sums, normaliser), 0.0)


def alpha_dcg(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int, alpha: float = 0.5,
              judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """ndeval's alpha-DCG@k (collection-independent normalisation) for each cutoff; the last column NaN.

    ``ranked``: the (query, position) of the rows the caller evaluates, sorted; None: every ranked judgment counts.
    """
    sums = _run_sums(subtopics, level, cutoffs, n_queries, alpha, "dcg", judged_only, ranked)
    return _with_whole(_collection_independent(sums, subtopics, level, cutoffs, n_queries, alpha, "dcg"))


def err_ia(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int, alpha: float = 0.5,
           judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """ndeval's ERR-IA@k (collection-independent normalisation) for each cutoff; the last column NaN."""
    sums = _run_sums(subtopics, level, cutoffs, n_queries, alpha, "err", judged_only, ranked)
    return _with_whole(_collection_independent(sums, subtopics, level, cutoffs, n_queries, alpha, "err"))


def _over_ideal(run: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """ndeval's renormalisation: the run's sum over the ideal's, 0 where the run gains nothing in the top k."""
    return _with_whole(np.where(run != 0.0, divide(run, ideal), 0.0))


def alpha_ndcg(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int, alpha: float = 0.5,
               judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """alpha-nDCG@k: the ranking's alpha-DCG over the greedy ideal ranking's, for each cutoff; the last column NaN.

    0 where the ranking gains nothing in the top k (ndeval's rule), also when the query has no relevant subtopic.
    """
    run = _run_sums(subtopics, level, cutoffs, n_queries, alpha, "dcg", judged_only, ranked)
    return _over_ideal(run, _ideal_sums(subtopics, level, cutoffs, n_queries, alpha, "dcg"))


def nerr_ia(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int, alpha: float = 0.5,
            judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """nERR-IA@k: the ranking's ERR-IA over the greedy ideal ranking's (ndeval's collection-dependent one)."""
    run = _run_sums(subtopics, level, cutoffs, n_queries, alpha, "err", judged_only, ranked)
    return _over_ideal(run, _ideal_sums(subtopics, level, cutoffs, n_queries, alpha, "err"))


def precision_ia(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int,
                 judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """P-IA@k: relevant (document, subtopic) pairs in the top k over k S, for each cutoff; the last column NaN."""
    query, position, _ = _ranked_pairs(subtopics, level, judged_only, ranked)
    pairs = cutoff_sums(query, position, np.ones(len(query)), n_queries, cutoffs)[:, :-1]
    depth = np.asarray(cutoffs, dtype=np.float64)[None, :] * subtopics.n_subtopics(level, n_queries)[:, None]
    return _with_whole(divide(pairs, depth))


def _first_of_subtopic(position: np.ndarray, subtopic: np.ndarray) -> np.ndarray:
    """Per relevant judgment (one query's or many, subtopic codes distinct across queries): 1.0 for its subtopic's
    best-ranked one, else 0.0."""
    first = np.zeros(len(subtopic))
    order = np.lexsort((position, subtopic))
    first[order] = np.diff(subtopic[order], prepend=-1) != 0
    return first


def subtopic_recall(subtopics: Subtopics, level: int, cutoffs: Sequence[int], *, n_queries: int,
                    judged_only: bool = False, ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """strec@k: the subtopics with a relevant document in the top k, over S, for each cutoff; the last column NaN."""
    query, position, subtopic = _ranked_pairs(subtopics, level, judged_only, ranked)
    covered = cutoff_sums(query, position, _first_of_subtopic(position, subtopic), n_queries, cutoffs)[:, :-1]
    return _with_whole(divide(covered, subtopics.n_subtopics(level, n_queries)[:, None]))


def ap_ia(subtopics: Subtopics, level: int, *, n_queries: int, judged_only: bool = False,
          ranked: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """MAP-IA: the mean over the query's S subtopics of ``Σ (relevant to j so far) / rank`` over the documents
    relevant to j, over the subtopic's relevant documents. One value per query (the whole ranking)."""
    query, position, subtopic = _ranked_pairs(subtopics, level, judged_only, ranked)
    if len(subtopic):
        order = np.lexsort((position, subtopic))
        start = np.flatnonzero(np.diff(subtopic[order], prepend=-1) != 0)
        so_far = np.empty(len(order))
        so_far[order] = np.arange(len(order)) - np.repeat(start, np.diff(np.append(start, len(order)))) + 1.0
    else:
        so_far = np.zeros(0)
    relevant = subtopics.judged_grade >= level
    per_subtopic = np.bincount(subtopics.judged_subtopic[relevant], minlength=len(subtopics.subtopic_query))
    precision = divide(so_far / (position + 1.0), per_subtopic[subtopic].astype(np.float64))
    return divide(np.bincount(query, weights=precision, minlength=n_queries), subtopics.n_subtopics(level, n_queries))


def _decay(position: np.ndarray, beta: float) -> np.ndarray:
    """beta^position, by ndeval's repeated product."""
    depth = int(np.max(position, initial=-1)) + 1
    return np.cumprod(np.concatenate(([1.0], np.full(max(depth - 1, 0), beta))))[:depth][position]


def nrbp(subtopics: Subtopics, level: int, *, n_queries: int, alpha: float = 0.5, beta: float = 0.5,
         ranked: tuple[np.ndarray, np.ndarray] | None = None, judged_only: bool = False) -> np.ndarray:
    """ndeval's NRBP per query, over the whole ranking (0 when S = 0)."""
    query, position, subtopic = _ranked_pairs(subtopics, level, judged_only, ranked)
    summed = np.bincount(query, weights=_novelty(query, position, subtopic, alpha) * _decay(position, beta),
                         minlength=n_queries)
    return divide(summed * (1.0 - (1.0 - alpha) * beta), subtopics.n_subtopics(level, n_queries))


def nnrbp(subtopics: Subtopics, level: int, *, n_queries: int, alpha: float = 0.5, beta: float = 0.5,
          ranked: tuple[np.ndarray, np.ndarray] | None = None, judged_only: bool = False,
          num_ret: np.ndarray | None = None) -> np.ndarray:
    """ndeval's nNRBP per query: the ranking's NRBP sum over the greedy ideal ranking's; NaN when S = 0 (ndeval's
    0 / 0: the query has no value), but 0 for a query without a ranking (``num_ret`` 0: ndeval's -c, ir_measures)."""
    query, position, subtopic = _ranked_pairs(subtopics, level, judged_only, ranked)
    run = np.bincount(query, weights=_novelty(query, position, subtopic, alpha) * _decay(position, beta),
                      minlength=n_queries)
    depth = int(np.bincount(subtopics.doc_query, minlength=n_queries).max(initial=0))
    gains = ideal_gains(subtopics, level, alpha, depth, n_queries)
    ideal = gains @ _decay(np.arange(depth), beta) if depth else np.zeros(n_queries)
    values = np.full(n_queries, np.nan)
    np.divide(run, ideal, out=values, where=ideal > 0)
    if num_ret is not None:
        values[np.asarray(num_ret) == 0] = 0.0
    return values


def compat(row_query: np.ndarray, position: np.ndarray, grade: np.ndarray, judged_query: np.ndarray,
           judged_grade: np.ndarray, num_ret: np.ndarray, n_queries: int, p: float = 0.95,
           normalize: bool = True) -> np.ndarray:
    """Compat per query: the RBO of the ranking with the ideal ranking (see the module), normalised or not.

    ``row_query`` / ``position`` / ``grade``: the retrieved rows (the judged ones suffice: an unjudged row overlaps
    nothing; positions in the whole ranking), ``judged_*`` every judgment (query, grade descending within a query),
    ``num_ret`` the length of each query's ranking.
    """
    row_query = np.asarray(row_query, dtype=np.int64)
    position = np.asarray(position, dtype=np.int64)
    grade = np.asarray(grade, dtype=np.int64)
    judged_query = np.asarray(judged_query, dtype=np.int64)
    judged_grade = np.asarray(judged_grade, dtype=np.int64)
    ideal_length = np.bincount(judged_query, weights=judged_grade > 0, minlength=n_queries).astype(np.int64)
    depth = np.maximum(np.asarray(num_ret, dtype=np.int64), ideal_length)
    longest = int(depth.max(initial=0))
    weight = np.cumprod(np.concatenate(([1.0], np.full(max(longest - 1, 0), p))))[:longest]  # p^(i-1), i = 1..
    # tables from rank 0: harmonic[i] = Σ_{t<=i} p^(t-1) / t, weights[i] = Σ_{t<=i} p^(t-1)
    harmonic = np.concatenate(([0.0], np.cumsum(weight / np.arange(1, longest + 1))))
    weights = np.concatenate(([0.0], np.cumsum(weight)))

    # the ideal rank of each relevant retrieved document: the judged documents of a higher grade, then the
    # retrieved ones of its grade ranked above it, then itself
    relevant = grade > 0
    q, pos, g = row_query[relevant], position[relevant], grade[relevant]
    levels = np.unique(np.concatenate([judged_grade, g]))
    width = len(levels)
    judged_key = judged_query * width + (width - 1 - np.searchsorted(levels, judged_grade))  # ascending: grade desc
    positive_key = np.sort(judged_key[judged_grade > 0])
    key = q * width + (width - 1 - np.searchsorted(levels, g))
    above = np.searchsorted(positive_key, key) - np.searchsorted(positive_key, q * width)
    order = np.lexsort((pos, key))
    start = np.flatnonzero(np.diff(key[order], prepend=-1) != 0)
    tied_above = np.empty(len(order), dtype=np.int64)
    tied_above[order] = np.arange(len(order)) - np.repeat(start, np.diff(np.append(start, len(order))))
    ideal_rank = above + tied_above + 1
    enters = np.maximum(pos + 1, ideal_rank)  # the depth from which the document is in both prefixes
    overlap = np.bincount(q, weights=harmonic[depth[q]] - harmonic[enters - 1], minlength=n_queries)
    # the overlap is at most the ideal ranking's own (and than Σ p^(i-1)): a ratio above 1 is a rounding of the
    # tables' differences, not a value
    if not normalize:
        return np.minimum(divide(overlap, weights[depth]), 1.0)
    best = weights[ideal_length] + ideal_length * (harmonic[depth] - harmonic[ideal_length])
    return np.minimum(divide(overlap, best), 1.0)


# ------------------------------------------------------------------------------------ table kernels
def _subtopics_of(rows: RankedRows, measure: str) -> Subtopics:
    """``rows.subtopics``: the :class:`Subtopics`, or a function making them (called here: made on first use, when
    a diversity measure is asked for)."""
    given = rows.subtopics() if callable(rows.subtopics) else rows.subtopics
    if not isinstance(given, Subtopics):
        raise InvalidParameterError(
            f"{measure} is a diversity measure: it reads subtopic judgments (a qrels whose second column is the "
            "subtopic, `qid subtopic docid relevance`), and these qrels were read without them. Read them with "
            "subtopics=True: EvaluationResult.from_trec(run, qrels, subtopics=True), or evalframe trec --subtopics "
            "RUN QRELS.")
    return given


def _ranked(rows: RankedRows) -> tuple[tuple[np.ndarray, np.ndarray], bool]:
    """The (query, position) of the judged rows :func:`evalframe.metrics.trec.evaluate` hands over, and whether their
    positions count the judged rows only: it hands the whole ranking (unjudged rows with their ranks), or with
    ``judged_only`` the judged rows ranked again among themselves; either way a ranking without unjudged rows ranks
    its judged ones by their order among the judged ones."""
    judged = rows.judged
    return (judged.row_query, judged.position), len(judged.row_query) == len(rows.row_query)


def _cutoff_table(kernel: Any, measure: str, rows: RankedRows, level: int, cutoffs: Sequence[int | float],
                  **options: Any) -> np.ndarray:
    ranked, renumbered = _ranked(rows)
    return np.asarray(kernel(_subtopics_of(rows, measure), level, [int(k) for k in cutoffs], n_queries=rows.n_queries,
                             judged_only=renumbered, ranked=ranked, **options))


def alpha_ndcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                     ) -> np.ndarray:
    """alpha_nDCG@k (:func:`alpha_ndcg`), ``params["alpha"]`` (default 0.5)."""
    return _cutoff_table(alpha_ndcg, "alpha_nDCG", rows, level, cutoffs, alpha=float(params.get("alpha", 0.5)))


def alpha_dcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                    ) -> np.ndarray:
    """alpha_DCG@k (:func:`alpha_dcg`), ``params["alpha"]`` (default 0.5)."""
    return _cutoff_table(alpha_dcg, "alpha_DCG", rows, level, cutoffs, alpha=float(params.get("alpha", 0.5)))


def err_ia_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                 ) -> np.ndarray:
    """ERR_IA@k (:func:`err_ia`, ndeval's alpha 0.5)."""
    return _cutoff_table(err_ia, "ERR_IA", rows, level, cutoffs)


def nerr_ia_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                  ) -> np.ndarray:
    """nERR_IA@k (:func:`nerr_ia`, ndeval's alpha 0.5)."""
    return _cutoff_table(nerr_ia, "nERR_IA", rows, level, cutoffs)


def p_ia_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]) -> np.ndarray:
    """P_IA@k (:func:`precision_ia`)."""
    return _cutoff_table(precision_ia, "P_IA", rows, level, cutoffs)


def strecall_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                   ) -> np.ndarray:
    """StRecall@k (:func:`subtopic_recall`)."""
    return _cutoff_table(subtopic_recall, "StRecall", rows, level, cutoffs)


def ap_ia_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]) -> np.ndarray:
    """AP_IA (:func:`ap_ia`), one column (no cutoff)."""
    ranked, renumbered = _ranked(rows)
    return ap_ia(_subtopics_of(rows, "AP_IA"), level, n_queries=rows.n_queries, judged_only=renumbered,
                 ranked=ranked)[:, None]


def nrbp_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]) -> np.ndarray:
    """NRBP (:func:`nrbp`), ``params["alpha"]`` and ``params["beta"]`` (default 0.5 each); one column."""
    ranked, renumbered = _ranked(rows)
    return nrbp(_subtopics_of(rows, "NRBP"), level, n_queries=rows.n_queries, alpha=float(params.get("alpha", 0.5)),
                beta=float(params.get("beta", 0.5)), ranked=ranked, judged_only=renumbered)[:, None]


def nnrbp_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]) -> np.ndarray:
    """nNRBP (:func:`nnrbp`), ``params["alpha"]`` and ``params["beta"]`` (default 0.5 each); one column."""
    ranked, renumbered = _ranked(rows)
    return nnrbp(_subtopics_of(rows, "nNRBP"), level, n_queries=rows.n_queries, alpha=float(params.get("alpha", 0.5)),
                 beta=float(params.get("beta", 0.5)), ranked=ranked, judged_only=renumbered,
                 num_ret=rows.num_ret)[:, None]


def compat_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, Any]
                 ) -> np.ndarray:
    """Compat (:func:`compat`), ``params["p"]`` (default 0.95) and ``params["normalize"]`` (default True); one
    column. The judged rows suffice (an unjudged one overlaps nothing), with the ranking's length."""
    judged = rows.judged
    return compat(judged.row_query, judged.position, judged.grade, rows.judged_query, rows.judged_grade, rows.num_ret,
                  rows.n_queries, p=float(params.get("p", 0.95)), normalize=bool(params.get("normalize", True)))[:, None]


#: The table kernels that read subtopic judgments (``RankedRows.subtopics``).
SUBTOPIC_KERNELS = frozenset({alpha_ndcg_table, alpha_dcg_table, err_ia_table, nerr_ia_table, p_ia_table,
                              strecall_table, ap_ia_table, nrbp_table, nnrbp_table})
