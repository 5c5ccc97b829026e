"""Gain-based and inferred measures of trec_eval 10.0 and ir_measures: vectorised kernels, numpy only.

The rows are :class:`~evalframe.metrics.trec_kernels.RankedRows` (flat arrays sorted by query, then position in
trec_eval's order); every kernel here is ``kernel(rows, level, cutoffs, params)`` and returns an
``(n_queries, len(cutoffs) + 1)`` matrix whose last column is the whole ranking (a measure without a cutoff reads
that column). No loop runs per query or per row: per-query running sums are segment cumulative sums, and a value
at a per-query position (an ideal ranking's boundary, a cutoff) is read off them with one ``searchsorted``.

Grades follow trec_eval's ``te_form_res_rels``: a document absent from the qrels has grade
:data:`~evalframe.metrics.trec_kernels.UNJUDGED` (trec_eval's ``RELVALUE_NONPOOL``, "not in the pool"), a qrels
grade below 0 is "in the pool but not judged" (``RELVALUE_UNJUDGED``: infAP skips it, relstring prints ``.``).

The measures and where each definition comes from (the code of each is the reference; the docstrings say where it
departs from the text of the paper):

* ``infAP`` (``m_infap.c``; Yilmaz & Aslam, CIKM 2006), ``binG`` and ``G`` (``m_binG.c``, ``m_G.c``), ``ndcg``
  with a gain mapping (``m_ndcg.c``, ``gain_init.c``), ``ndcg_rel`` (``m_ndcg_rel.c``), ``Rndcg``
  (``m_Rndcg.c``), ``rbp`` and ``rbp_resid`` (``m_rbp.c``, ``m_rbp_resid.c``), ``relstring`` (``m_relstring.c``);
* ir_measures' ``nDCG(dcg='exp-log2')`` and ``ERR@k`` (its gdeval provider: ``gdeval.pl`` 1.2a; ERR: Chapelle,
  Metzler, Zhang & Grinspan, CIKM 2009) and ``RBP(p=, rel=)`` (Moffat & Zobel, TOIS 2008; ir_measures' cwl_eval
  provider when ``rel`` is given).

A gain mapping (``gains``) is ``{grade: gain}``; a grade it leaves out keeps its own value as gain, as trec_eval's
``setup_gains`` does (``ndcg.1=3,2=9``: grade 1 gains 3, grade 2 gains 9, grade 3 gains 3); a document not judged,
or judged below 0, gains 0, unless the mapping names trec_eval's levels for them: -1 a document not in the qrels,
-2 one judged below 0 (``ndcg.-1=2``, as trec_eval's form_res_rels.c and get_gain read it).

Examples
--------
A query ranking a document of grade 2, an unjudged one, then one of grade 1 (the qrels also hold a grade 0):

>>> from evalframe.metrics.trec_kernels import UNJUDGED, RankedRows
>>> rows = RankedRows(row_query=np.array([0, 0, 0]), position=np.array([0, 1, 2]),
...                   grade=np.array([2, UNJUDGED, 1]), judged_query=np.array([0, 0, 0]),
...                   judged_grade=np.array([2, 1, 0]), n_queries=1)
>>> float(bing_table(rows, 1, [], {})[0, -1])  # (1/log2(2) + 1/log2(3)) / 2
0.8154648767857288
>>> float(err_table(rows, 1, [], {})[0, -1])  # 3/16 + (1/3) (1/16) (13/16), gdeval's grades out of 4
0.20442708333333334
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import trec_kernels
from .trec_kernels import UNJUDGED, RankedRows, cutoff_sums, divide

__all__ = [
    "INFAP_EPSILON",
    "GDEVAL_MAX_GRADE",
    "gain_mapping",
    "row_gains",
    "ideal_gains",
    "infap_table",
    "bing_table",
    "g_table",
    "gain_ndcg_table",
    "ndcg_rel_table",
    "rndcg_table",
    "trec_rbp_table",
    "rbp_resid_table",
    "rbp_table",
    "err_table",
    "relstrings",
    "ndcg_table",
]

#: trec_eval's INFAP_EPSILON (trec_eval.h): keeps infAP's estimate of the precision above a rank defined when no
#: judged document is above it.
INFAP_EPSILON = 0.00001
#: gdeval.pl's MAX_JUDGMENT: ERR's probability of relevance is (2^grade - 1) / 2^4 (ir_measures' ERR provider).
GDEVAL_MAX_GRADE = 4


# ------------------------------------------------------------------------------------ helpers
def gain_mapping(params: Mapping[str, object]) -> dict[int, float]:
    """The ``gains`` parameter as ``{grade: gain}`` (empty: each grade is its own gain).

    Accepts a mapping or ``(grade, gain)`` pairs, as the measure's parameters hold them.

    Examples
    --------
    >>> gain_mapping({"gains": ((1, 3), (2, 9))}), gain_mapping({})
    ({1: 3.0, 2: 9.0}, {})
    """
    gains: Any = params.get("gains") or {}
    pairs = gains.items() if isinstance(gains, Mapping) else gains
    return {int(grade): float(gain) for grade, gain in pairs}


def row_gains(grade: np.ndarray, gains: Mapping[int, float]) -> np.ndarray:
    """Each grade's gain (float64): ``gains[grade]``, else the grade itself; 0 for a grade < 0 or unjudged, unless the
    mapping gives trec_eval's level -1 (a document not in the qrels) or -2 (one judged below 0) a gain.

    Examples
    --------
    >>> row_gains(np.array([3, 2, 0, -1, UNJUDGED]), {2: 9.0, 0: 0.5}).tolist()
    [3.0, 9.0, 0.5, 0.0, 0.0]
    >>> row_gains(np.array([1, -1, -3, UNJUDGED]), {-1: 2.0, -2: 0.5}).tolist()  # trec_eval's levels -1 and -2
    [1.0, 0.5, 0.5, 2.0]
    """
    grade = np.asarray(grade)
    out = np.where(grade >= 0, grade, 0).astype(np.float64)
    for level, gain in gains.items():  # a few levels: one vectorised pass each
        if level >= 0:
            out[grade == level] = gain
        elif level == -1:  # trec_eval's level of a retrieved document not in the qrels (RELVALUE_NONPOOL)
            out[grade == UNJUDGED] = gain
        elif level == -2:  # trec_eval's level of one in the qrels with a grade < 0 (RELVALUE_UNJUDGED)
            out[(grade < 0) & (grade != UNJUDGED)] = gain
    return out


def _gain_rows(rows: RankedRows, gains: Mapping[int, float]) -> RankedRows:
    """The rows a gain mapping scores: the judged ones, and every retrieved row when the mapping gives trec_eval's
    level -1 (a document not in the qrels) a gain."""
    return rows if gains.get(-1) else rows.judged


def ideal_gains(rows: RankedRows, gains: Mapping[int, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ranking of every query: its judged documents' positive gains, highest first.

    Returns ``(query, position, gain)``, sorted by query then position (0-based).
    """
    judged = rows.judged_grade >= 0  # trec_eval's rel_levels count the grades >= 0 only
    gain = row_gains(rows.judged_grade[judged], gains)
    query = rows.judged_query[judged]
    keep = gain > 0.0  # the ideal ranking stops at the first gain <= 0
    gain, query = gain[keep], query[keep]
    order = np.lexsort((-gain, query))
    gain, query = gain[order], query[order]
    position = np.arange(len(query)) - np.searchsorted(query, query)
    return query, position, gain


def _segment_cumsum(query: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """Inclusive running sum of integer-valued ``values`` within each query (rows sorted by query): exact, as every
    partial sum is an integer below 2^53."""
    total = np.cumsum(values, dtype=np.float64)
    counts = np.bincount(query, minlength=n_queries)
    before = np.concatenate(([0.0], total))[np.cumsum(counts) - counts]
    return total - before[query]


def _running_sums(query: np.ndarray, values: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Each query's running sums of float ``values`` (rows sorted by query), added one by one from 0 in row order as
    trec_eval adds them: an ``(n_queries, width + 1)`` matrix whose column ``i`` sums the query's first ``i`` rows,
    and each row's index among its query's rows. (A global running sum less its value at the query's start would
    round differently: a perfect ranking's DCG would not equal its ideal DCG.)"""
    counts = np.bincount(query, minlength=n_queries)
    index = np.arange(len(query)) - (np.cumsum(counts) - counts)[query]
    sums = np.zeros((n_queries, int(counts.max(initial=0)) + 1))
    sums[query, index + 1] = values
    np.cumsum(sums, axis=1, out=sums)
    return sums, index


def _float_cumsum(query: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """Inclusive running sum of float ``values`` within each query, in trec_eval's order of additions."""
    sums, index = _running_sums(query, values, n_queries)
    return sums[query, index + 1]


def _sum_before(query: np.ndarray, position: np.ndarray, values: np.ndarray, n_queries: int, at_query: np.ndarray,
                at_position: np.ndarray) -> np.ndarray:
    """For each (``at_query``, ``at_position``): the sum of ``values`` over the rows of that query at
    ``position < at_position`` (rows sorted by query then position), added in row order from 0."""
    sums, _ = _running_sums(query, values, n_queries)
    width = int(max(position.max(initial=0), np.max(at_position, initial=0))) + 2
    keys = query.astype(np.int64) * width + position
    at_query = at_query.astype(np.int64)
    starts = np.searchsorted(keys, at_query * width)
    ends = np.searchsorted(keys, at_query * width + np.minimum(at_position, width - 1))
    return sums[at_query, ends - starts]


def _one_column(values: np.ndarray, cutoffs: Sequence[int | float]) -> np.ndarray:
    """A measure without a cutoff: its values in every column (the last one is read)."""
    return np.repeat(values[:, None], len(cutoffs) + 1, axis=1)


def _per_query(query: np.ndarray, weights: np.ndarray, n_queries: int) -> np.ndarray:
    return np.bincount(query, weights=weights, minlength=n_queries)


# ------------------------------------------------------------------------------------ trec_eval 10.0
def infap_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                ) -> np.ndarray:
    """trec_eval's ``infAP`` (``m_infap.c``), one column.

    Documents absent from the qrels are skipped; qrels grades < 0 (pooled, not judged) are skipped but counted in
    the estimate. At each relevant document at 0-based position ``j``, with ``r`` relevant, ``n`` judged
    non-relevant and ``u`` pooled-unjudged documents up to it (``r`` counting itself), the term is 1 at ``j = 0``,
    else ``1/(j+1) + (j/(j+1)) ((r-1+n+u)/j) ((r-1+eps)/(r-1+n+2 eps))``; the sum over the query's number of
    relevant documents (the sum itself when it has none: 0). The rows may be the judged ones (positions kept).
    """
    rows = rows.judged
    grade = rows.grade
    in_pool = grade != UNJUDGED
    query, position, grade = rows.row_query[in_pool], rows.position[in_pool], grade[in_pool]
    relevant = grade >= level
    nonrelevant = (grade >= 0) & ~relevant
    unjudged = grade < 0
    n_queries = rows.n_queries
    rel_so_far = _segment_cumsum(query, relevant.astype(np.float64), n_queries)
    nonrel_so_far = _segment_cumsum(query, nonrelevant.astype(np.float64), n_queries)
    unjudged_so_far = _segment_cumsum(query, unjudged.astype(np.float64), n_queries)
    j = position.astype(np.float64)
    above = rel_so_far - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        # trec_eval's expression, in its order of operations (bit for bit on the same doubles)
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((above + nonrel_so_far + unjudged_so_far) / j)
                * ((above + INFAP_EPSILON) / (above + nonrel_so_far + 2 * INFAP_EPSILON)))
    term = np.where(position == 0, 1.0, term)
    total = _per_query(query[relevant], term[relevant], n_queries)
    num_rel = rows.num_rel(level)
    return _one_column(np.where(num_rel > 0, divide(total, num_rel), total), cutoffs)


def bing_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
               ) -> np.ndarray:
    """trec_eval's ``binG`` (``m_binG.c``), one column: the sum over the relevant documents retrieved of
    ``1 / log2(2 + the documents above it that are not relevant)`` (unjudged ones included), over the query's
    number of relevant documents; 0 when none is retrieved."""
    rows = rows.judged
    relevant = rows.relevant(level)
    query, position = rows.row_query[relevant], rows.position[relevant]
    rel_so_far = _segment_cumsum(query, np.ones(len(query)), rows.n_queries)
    term = 1.0 / np.log2(3.0 + position - rel_so_far)
    return _one_column(divide(_per_query(query, term, rows.n_queries), rows.num_rel(level)), cutoffs)


def _ideal_at(rows: RankedRows, ideal: tuple[np.ndarray, np.ndarray, np.ndarray], at_query: np.ndarray,
              at_position: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The sum of the ideal ranking's ``weights`` at positions < ``at_position`` of ``at_query``."""
    query, position, _ = ideal
    return _sum_before(query, position, weights, rows.n_queries, at_query, at_position)


def g_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
            ) -> np.ndarray:
    """trec_eval's ``G`` (``m_G.c``), one column, with the ``gains`` mapping.

    A document at 0-based position ``i`` of gain ``g != 0`` adds ``g / log2(2 + cost(i) - gained(i))``:
    ``gained(i)`` the gains of the documents up to it (itself included), ``cost(i)`` the sum over the positions up
    to ``i`` of ``max(ideal gain there, 1)`` (past the ideal ranking, 1). The sum over the ideal ranking's total
    gain (0 when it is 0). The rows may be the judged ones (positions kept).
    """
    gains = gain_mapping(params)
    rows = _gain_rows(rows, gains)
    gain = row_gains(rows.grade, gains)
    scored = gain != 0.0
    query, position, gain = rows.row_query[scored], rows.position[scored], gain[scored]
    ideal = ideal_gains(rows, gains)
    gained = _float_cumsum(query, gain, rows.n_queries)
    extra = np.maximum(ideal[2], 1.0) - 1.0  # cost beyond 1 at each ideal position
    cost = (position + 1.0) + _ideal_at(rows, ideal, query, position + 1, extra)
    total = _per_query(query, gain / np.log2(2.0 + cost - gained), rows.n_queries)
    return _one_column(divide(total, _per_query(ideal[0], ideal[2], rows.n_queries)), cutoffs)


def _dcg_gain(gain: np.ndarray, params: Mapping[str, object]) -> np.ndarray:
    """The DCG's gain of a document: its gain (``dcg='log2'``) or ``2^gain - 1`` (``dcg='exp-log2'``)."""
    return np.exp2(gain) - 1.0 if params.get("dcg", "log2") == "exp-log2" else gain


def gain_ndcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                    ) -> np.ndarray:
    """nDCG with a ``gains`` mapping (trec_eval's ``ndcg.1=3,2=9``, ir_measures' ``nDCG(gains={...})``) and/or
    ir_measures' ``dcg='exp-log2'`` (gdeval's ``(2^gain - 1) / log2(rank + 1)``), at every cutoff.

    DCG: every retrieved document's gain (a negative one too, as trec_eval's ndcg counts it) over
    ``log2(rank + 1)``; the ideal DCG: the judged documents' positive gains, highest first; 0 when that is 0.
    """
    gains = gain_mapping(params)
    rows = _gain_rows(rows, gains)
    gain = _dcg_gain(row_gains(rows.grade, gains), params)
    scored = gain != 0.0
    query, position = rows.row_query[scored], rows.position[scored]
    dcg = cutoff_sums(query, position, gain[scored] / np.log2(position + 2.0), rows.n_queries, cutoffs)  # type: ignore[arg-type]
    ideal_query, ideal_position, ideal_gain = ideal_gains(rows, gains)
    ideal = cutoff_sums(ideal_query, ideal_position, _dcg_gain(ideal_gain, params) / np.log2(ideal_position + 2.0),
                        rows.n_queries, cutoffs)  # type: ignore[arg-type]
    return divide(dcg, ideal)


def ndcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
               ) -> np.ndarray:
    """nDCG's kernel: trec_eval's ``ndcg`` / ``ndcg_cut`` (:func:`evalframe.metrics.trec_kernels.ndcg_table`, the
    grades as gains) unless the measure has a ``gains`` mapping or ``dcg='exp-log2'`` (:func:`gain_ndcg_table`)."""
    if not params.get("gains") and params.get("dcg", "log2") == "log2":
        return trec_kernels.ndcg_table(rows, level, cutoffs, params)  # type: ignore[arg-type]
    return gain_ndcg_table(rows, level, cutoffs, params)


def _ideal_dcg(rows: RankedRows, gains: Mapping[int, float]
               ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray]:
    """The ideal ranking, its discounted gains, and each query's length of it (float64)."""
    ideal = ideal_gains(rows, gains)
    discounted = ideal[2] / np.log2(ideal[1] + 2.0)
    return ideal, discounted, _per_query(ideal[0], np.ones(len(ideal[0])), rows.n_queries)


def ndcg_rel_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                   ) -> np.ndarray:
    """trec_eval's ``ndcg_rel`` (``m_ndcg_rel.c``), one column, with the ``gains`` mapping.

    At each retrieved document of positive gain at 0-based position ``i``: DCG of the top ``i + 1`` over the ideal
    DCG of its top ``min(i + 1, L)``, ``L`` the ideal ranking's length; each of the ``L`` minus those documents
    adds the whole ranking's DCG over the whole ideal DCG; the sum over ``L`` (0 unless the sum is positive).
    """
    gains = gain_mapping(params)
    rows = _gain_rows(rows, gains)
    n_queries = rows.n_queries
    gain = row_gains(rows.grade, gains)
    scored = gain != 0.0
    query, position, gain = rows.row_query[scored], rows.position[scored], gain[scored]
    dcg_so_far = _float_cumsum(query, gain / np.log2(position + 2.0), n_queries)
    ideal, discounted, length = _ideal_dcg(rows, gains)
    positive = gain > 0.0
    at = np.minimum(position[positive] + 1.0, length[query[positive]]).astype(np.int64)
    ideal_so_far = _ideal_at(rows, ideal, query[positive], at, discounted)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = _per_query(query[positive], dcg_so_far[positive] / ideal_so_far, n_queries)
        dcg = _per_query(query, gain / np.log2(position + 2.0), n_queries)
        ideal_dcg = _per_query(ideal[0], discounted, n_queries)
        missing = length - _per_query(query[positive], np.ones(int(positive.sum())), n_queries)
        total = total + missing * dcg / ideal_dcg
        value = np.where(total > 0.0, total / length, 0.0)
    return _one_column(value, cutoffs)


def rndcg_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                ) -> np.ndarray:
    """trec_eval's ``Rndcg`` (``m_Rndcg.c``), one column, with the ``gains`` mapping.

    The mean of nDCG@b over the ideal ranking's boundaries ``b`` (each position ``1 <= b <= L`` where the ideal
    gain changes, ``b = L`` always), plus, when the ranking is longer than ``L + 1``, the whole ranking's nDCG
    (m_Rndcg.c's final term; a ranking of exactly ``L + 1`` documents adds none). 0 when the query has no relevant
    judgment (grade >= ``level``); NaN when no boundary has an ideal DCG (every gain <= 0: trec_eval divides 0 by 0).
    """
    num_ret = rows.num_ret  # every retrieved row's, before the unjudged ones are left out
    gains = gain_mapping(params)
    rows = _gain_rows(rows, gains)
    n_queries = rows.n_queries
    gain = row_gains(rows.grade, gains)
    scored = gain != 0.0
    query, position, gain = rows.row_query[scored], rows.position[scored], gain[scored]
    discounted_rows = gain / np.log2(position + 2.0)
    ideal, discounted, length = _ideal_dcg(rows, gains)
    ideal_query, ideal_position, ideal_gain = ideal
    # a boundary b: the ideal gain at b differs from the one at b - 1 (the last ideal position is always one)
    changes = np.append((ideal_query[1:] != ideal_query[:-1]) | (ideal_gain[1:] != ideal_gain[:-1]), True)
    changes = changes[:len(ideal_query)]
    b_query, b = ideal_query[changes], ideal_position[changes] + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        at_b = (_sum_before(query, position, discounted_rows, n_queries, b_query, b)
                / _ideal_at(rows, ideal, b_query, b, discounted))
        total = _per_query(b_query, at_b, n_queries)
        count = _per_query(b_query, np.ones(len(b_query)), n_queries)
        # the ranking outlives a non-empty ideal ranking by more than one document
        tail = (length + 1.0 < num_ret) & (length > 0)
        ideal_dcg = _per_query(ideal_query, discounted, n_queries)
        whole = _per_query(query, discounted_rows, n_queries) / ideal_dcg
        total = total + np.where(tail, whole, 0.0)
        count = count + tail
        value = total / count
    return _one_column(np.where(rows.num_rel(level) > 0, value, 0.0), cutoffs)


def _trec_rbp_p(params: Mapping[str, object]) -> float:
    return float(params.get("p", 0.9))  # type: ignore[arg-type]


def trec_rbp_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                   ) -> np.ndarray:
    """trec_eval 10.0's ``rbp`` (``m_rbp.c``), one column: ``(1 - p) Σ gain(d) p^(rank(d) - 1)``, ``p`` 0.9 by
    default, graded: the query's gains (its grades, or the ``gains`` mapping) are rescaled to
    ``(gain - min) / (max - min)`` when one lies outside [0, 1], ``min``/``max`` over the query's grade levels
    0..its highest grade and the mapping's gains, and 0 (m_rbp.c leaves them uninitialised; trec_eval 10.0's
    binary behaves as if they started at 0, which this follows). The relevance level is not read."""
    p = _trec_rbp_p(params)
    gains = gain_mapping(params)
    n_queries = rows.n_queries
    # the query's gain levels (trec_eval's setup_gains): the mapping's, and each level 0..its highest grade that the
    # mapping leaves out, whose gain is the level itself; the highest such level is found by walking down past the
    # mapped ones (as many steps as there are mapped levels)
    top = np.full(n_queries, -1.0)
    judged = rows.judged_grade >= 0
    np.maximum.at(top, rows.judged_query[judged], rows.judged_grade[judged].astype(np.float64))
    mapped = np.array([level for level in gains if level >= 0], dtype=np.float64)
    for _ in range(len(mapped)):
        top = np.where(np.isin(top, mapped), top - 1.0, top)
    mapped_gains = np.array(list(gains.values()) or [0.0])
    low = np.full(n_queries, min(0.0, float(mapped_gains.min())))
    high = np.maximum(np.maximum(top, 0.0), max(0.0, float(mapped_gains.max())))
    rescale = (low < 0.0) | (high > 1.0)
    rows = _gain_rows(rows, gains)
    gain = row_gains(rows.grade, gains)
    scored = gain != 0.0
    query, position, gain = rows.row_query[scored], rows.position[scored], gain[scored]
    span = high - low
    gain = np.where(rescale[query], divide(gain - low[query], span[query]), gain)
    total = _per_query(query, gain * np.power(p, position.astype(np.float64)), n_queries)
    return _one_column((1.0 - p) * total, cutoffs)


def rbp_resid_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
                    ) -> np.ndarray:
    """trec_eval 10.0's ``rbp_resid`` (``m_rbp_resid.c``), one column: RBP's residual when every unjudged document
    (absent from the qrels or graded < 0) were fully relevant: ``p^num_ret + (1 - p) Σ over unjudged d of
    p^(rank(d) - 1)``; 0 for a query without an unjudged document retrieved (trec_eval leaves it unset). Needs
    every retrieved row (``rows="all"``)."""
    p = _trec_rbp_p(params)
    unjudged = rows.grade < 0
    query, position = rows.row_query[unjudged], rows.position[unjudged]
    total = _per_query(query, np.power(p, position.astype(np.float64)), rows.n_queries)
    count = _per_query(query, np.ones(len(query)), rows.n_queries)
    value = np.power(p, rows.num_ret) + (1.0 - p) * total
    return _one_column(np.where(count > 0, value, 0.0), cutoffs)


def relstrings(rows: RankedRows, length: int = 10) -> np.ndarray:
    """trec_eval's ``relstring`` (``m_relstring.c``): per query, one character per document of its top ``length``:
    the grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` in them with a grade < 0. An object array of str.

    Needs every retrieved row (``rows="all"``). trec_eval prints it per query only (``-q``), in quotes.

    Examples
    --------
    >>> rows = RankedRows(row_query=np.array([0, 0, 0, 1]), position=np.array([0, 1, 2, 0]),
    ...                   grade=np.array([12, UNJUDGED, -1, 0]), judged_query=np.array([0, 0, 1]),
    ...                   judged_grade=np.array([12, -1, 0]), n_queries=3)
    >>> relstrings(rows, 2).tolist()
    ['>-', '0', '']
    """
    grade = rows.grade
    shown = rows.position < length
    grade, query, position = grade[shown], rows.row_query[shown], rows.position[shown]
    chars = np.where(grade > 9, ord(">"), np.where(grade >= 0, ord("0") + np.clip(grade, 0, 9),
                                                   np.where(grade == UNJUDGED, ord("-"), ord("."))))
    width = max(int(min(length, int(position.max(initial=-1)) + 1)), 1)
    matrix = np.zeros((rows.n_queries, width), dtype=np.uint8)
    matrix[query, position] = chars
    return np.char.decode(matrix.view(f"S{width}").ravel(), "ascii").astype(object)


# ------------------------------------------------------------------------------------ ir_measures
def rbp_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
              ) -> np.ndarray:
    """ir_measures' ``RBP(p=0.8, rel=N)@k`` (Moffat & Zobel 2008): ``(1 - p) Σ over relevant d in the top k of
    p^(rank(d) - 1)``, relevant meaning grade >= ``level`` (ir_measures' cwl_eval provider)."""
    p = float(params.get("p", 0.8))  # type: ignore[arg-type]
    rows = rows.judged
    relevant = rows.relevant(int(params.get("rel", level)))  # type: ignore[call-overload]
    query, position = rows.row_query[relevant], rows.position[relevant]
    return (1.0 - p) * cutoff_sums(query, position, np.power(p, position.astype(np.float64)), rows.n_queries,
                                   cutoffs)  # type: ignore[arg-type]


def err_table(rows: RankedRows, level: int, cutoffs: Sequence[int | float], params: Mapping[str, object]
              ) -> np.ndarray:
    """ir_measures' ``ERR@k`` (Chapelle et al. 2009, as gdeval.pl computes it): ``Σ_i R_i / i Π_{j<i} (1 - R_j)``
    over the top k, ``R = (2^g - 1) / 2^4`` for a grade ``g`` > 0 (grades above 4, which gdeval refuses, count as
    4), 0 for the others. The relevance level is not read."""
    rows = rows.judged
    grade = np.clip(rows.grade, 0, GDEVAL_MAX_GRADE).astype(np.float64)
    chance = (np.exp2(grade) - 1.0) / 2.0**GDEVAL_MAX_GRADE
    query, position = rows.row_query, rows.position
    # Π_{j<i} (1 - R_j) over the rows above, as a running sum of logs would lose R = 1; a running product is exact
    # here: each query's product restarts at its first row
    stay = 1.0 - chance
    with np.errstate(divide="ignore"):
        logs = np.log(stay)
    zero = stay == 0.0
    zeros_before = _segment_cumsum(query, zero.astype(np.float64), rows.n_queries) - zero
    log_before = _float_cumsum(query, np.where(zero, 0.0, logs), rows.n_queries) - np.where(zero, 0.0, logs)
    reach = np.where(zeros_before > 0, 0.0, np.exp(log_before))
    return cutoff_sums(query, position, chance * reach / (position + 1.0), rows.n_queries, cutoffs)  # type: ignore[arg-type]
