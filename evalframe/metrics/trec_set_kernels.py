"""trec_eval's counting, set, recall-point and geometric-mean measures: vectorised kernels over flat arrays.

The measures of trec_eval 10.0 that are counts (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
``num_nonrel_judged_ret``), set measures over everything retrieved (``set_P``, ``set_relative_P``, ``set_recall``,
``set_map``, ``set_F``, ``utility``), measures at recall points or multiples of R (``iprec_at_recall``,
``11pt_avg``, ``Rprec_mult``, ``relative_P``), the geometric-mean measures (``gm_map``, ``gm_bpref``: the per-query
value is AP or bpref, the registry's ``geometric_mean`` aggregation floors and averages the logs) and the judgment
rates (trec_eval's ``unj`` and ir_measures' ``Judged``). Each definition is that of the measure's ``m_*.c`` file
(cited in each kernel), checked against pytrec_eval, ir_measures and the trec_eval binary in
``tests/metrics/test_trec_set_kernels.py``.

Every kernel is ``kernel(rows, level, cutoffs, params) -> (n_queries, len(cutoffs) + 1)`` over a
:class:`~evalframe.metrics.trec_kernels.RankedRows` (the last column: no cutoff), with no loop per query. ``params``
is the measure's parameters by name; ``judged_only`` (trec_eval's ``-J``, pytrec_eval's ``judged_docs_only_flag``)
drops the rows whose grade is below 0 (unjudged, or judged with a negative grade) and ranks the rest again, as
trec_eval does before any measure. A query without any row is one a run does not rank (``-c``): trec_eval 10.0
evaluates it on a ranking of one unjudged document and then zeroes ``num_ret``, ``utility`` and ``unj``; every
measure here gives it what that gives (0, its ``num_rel``, 1 for ``num_q``).

Examples
--------
>>> from evalframe.metrics.trec_kernels import UNJUDGED
>>> rows = RankedRows(row_query=np.array([0, 0, 0]), position=np.array([0, 1, 2]),
...                   grade=np.array([1, UNJUDGED, 0]), judged_query=np.array([0, 0]), judged_grade=np.array([1, 0]),
...                   n_queries=1)
>>> set_p_table(rows, 1, [], {}).tolist(), set_p_table(rows, 1, [], {"judged_only": True}).tolist()
([[0.3333333333333333]], [[0.5]])
>>> unj_table(rows, 1, [2, 5], {}).tolist()  # 1 unjudged in the top 2, in the top 5 (filled with judged), all 3
[[0.5, 0.2, 0.3333333333333333]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .trec_kernels import RankedRows, average_precision, bpref, cutoff_sums, divide

__all__ = [
    "IPREC_RECALLS",
    "ranked",
    "retrieved",
    "num_q_table",
    "num_ret_table",
    "num_rel_table",
    "num_rel_ret_table",
    "num_nonrel_judged_ret_table",
    "gm_map_table",
    "gm_bpref_table",
    "recall_point_counts",
    "interpolated_precision",
    "iprec_table",
    "eleven_point_table",
    "rprec_mult_table",
    "relative_p_table",
    "set_p_table",
    "set_recall_table",
    "set_map_table",
    "set_f_table",
    "utility_table",
    "unj_table",
    "judged_table",
]

#: trec_eval's recall points of ``iprec_at_recall`` and ``11pt_avg``.
IPREC_RECALLS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def ranked(rows: RankedRows, judged_only: bool) -> RankedRows:
    """The ranking the measures read: every row, or (``judged_only``) the rows with a grade >= 0, ranked again from 0
    within each query in the same order (trec_eval's ``-J``; :attr:`RankedRows.judged_ranking`)."""
    return rows.judged_ranking if judged_only else rows


def retrieved(rows: RankedRows, judged_only: bool) -> np.ndarray:
    """Per query, the documents retrieved (trec_eval's ``num_ret``; with ``judged_only``, those with a grade >= 0)."""
    return ranked(rows, judged_only).num_ret


def _hits(rows: RankedRows, level: int) -> tuple[np.ndarray, np.ndarray]:
    """``(query, position)`` of the relevant rows, sorted by query then position: all most kernels read."""
    judged = rows.judged
    relevant = judged.grade >= level
    return judged.row_query[relevant], judged.position[relevant]


def _ranked_queries(rows: RankedRows) -> np.ndarray:
    """Per query, whether a run ranks it (has any row, before ``judged_only``): False is trec_eval -c's stand-in."""
    return rows.num_ret > 0


def _judged_only(params: Mapping[str, object]) -> bool:
    return bool(params.get("judged_only", False))


def _columns(values: np.ndarray, cutoffs: Sequence[object]) -> np.ndarray:
    """A measure without a cutoff: its values in every column."""
    return np.repeat(np.asarray(values, dtype=np.float64)[:, None], len(cutoffs) + 1, axis=1)


# ------------------------------------------------------------------------------------ counts (summed over queries)
def num_q_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``num_q`` (m_num_q.c): 1 per evaluated query, summed."""
    return np.ones((rows.n_queries, len(cutoffs) + 1))


def num_ret_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``num_ret`` (m_num_ret.c): the documents retrieved (0 for a query the run does not rank)."""
    return _columns(retrieved(rows, _judged_only(params)), cutoffs)


def num_rel_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``num_rel`` (m_num_rel.c): the judged documents with grade >= level."""
    return _columns(rows.num_rel(level), cutoffs)


def num_rel_ret_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]
                      ) -> np.ndarray:
    """trec_eval's ``num_rel_ret`` (m_num_rel_ret.c): the retrieved documents with grade >= level."""
    return _columns(rows.judged.num_ret_rel(level), cutoffs)


def num_nonrel_judged_ret_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]
                                ) -> np.ndarray:
    """trec_eval's ``num_nonrel_judged_ret`` (m_num_nonrel_judged_ret.c): retrieved documents with 0 <= grade < level."""
    judged = rows.judged
    nonrel = (judged.grade >= 0) & (judged.grade < level)
    return _columns(np.bincount(judged.row_query, weights=nonrel, minlength=rows.n_queries), cutoffs)


# ------------------------------------------------------------------------------------ geometric means
def gm_map_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``gm_map`` per query (m_gm_map.c): AP; the aggregation takes exp(mean(log(max(AP, 1e-5))))."""
    hit_query, hit_position = _hits(ranked(rows, _judged_only(params)), level)
    values = average_precision(hit_query, hit_position, np.ones(len(hit_query), dtype=bool), rows.num_rel(level),
                               rows.n_queries, [])[:, -1]
    return _columns(values, cutoffs)


def gm_bpref_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]
                   ) -> np.ndarray:
    """trec_eval's ``gm_bpref`` per query (m_gm_bpref.c): bpref (which skips the rows below grade 0 anyway)."""
    judged = rows.judged
    values = bpref(judged.row_query, judged.grade, level, rows.num_rel(level), rows.num_nonrel(level), rows.n_queries)
    return _columns(values, cutoffs)


# ------------------------------------------------------------------------------------ recall points, multiples of R
def recall_point_counts(recalls: Sequence[float], num_rel: np.ndarray, version: str = "10.0") -> np.ndarray:
    """Per query and recall point p, the number of relevant documents it stands for: trec_eval 10.0 rounds p * R to
    the nearest (``lround``, halves away from 0), trec_eval 9.x and pytrec_eval truncate p * R + 0.9.

    Examples
    --------
    >>> recall_point_counts([0.1, 0.4, 0.5], np.array([3.0, 5.0])).tolist()
    [[0, 1, 2], [1, 2, 3]]
    >>> recall_point_counts([0.1, 0.4, 0.5], np.array([3.0, 5.0]), version="9").tolist()
    [[1, 2, 2], [1, 2, 3]]
    """
    scaled = np.asarray(recalls, dtype=np.float64)[None, :] * num_rel[:, None]
    if version == "9":
        return np.trunc(scaled + 0.9).astype(np.int64)
    whole = np.trunc(scaled)
    return (whole + (scaled - whole >= 0.5)).astype(np.int64)  # lround: x - trunc(x) is exact


def interpolated_precision(rows: RankedRows, level: int, recalls: Sequence[float], judged_only: bool = False,
                           version: str = "10.0") -> np.ndarray:
    """trec_eval's ``iprec_at_recall`` (m_iprec_at_recall.c) at each recall point, ``(n_queries, len(recalls))``.

    At recall point p, c = the number of relevant documents p stands for (:func:`recall_point_counts`): the highest
    precision j / rank(j-th relevant) over j >= max(c, 1); 0 when c exceeds the relevant documents retrieved. A query
    retrieving no relevant document scores 0, a ranking of nothing too, however it is left empty (``judged_only``
    with no judged document retrieved, ``-M 0``, a query without run lines): where trec_eval divides 0 by 0 at the
    points with c = 0, ``evalframe trec --format trec_eval`` prints its ``-nan`` (``present/trec_formats.py``), the
    values stay one number for one measure.
    """
    hit_query, hit_position = _hits(ranked(rows, judged_only), level)
    num_rel = rows.num_rel(level)
    nth = np.arange(len(hit_query)) - np.searchsorted(hit_query, hit_query)  # 0-based index among the query's hits
    precision = (nth + 1.0) / (hit_position + 1.0)
    # the highest precision at or after each hit, within its query: a running max over the hits in reverse, on
    # integer keys (the query, then the precision's rank among all precisions) so that no float is altered
    levels, level_of = np.unique(precision, return_inverse=True)
    key = (rows.n_queries - 1 - hit_query) * (len(levels) + 1) + level_of
    best = levels[np.maximum.accumulate(key[::-1])[::-1] % (len(levels) + 1)] if len(key) else precision
    hits = np.bincount(hit_query, minlength=rows.n_queries)
    first = np.searchsorted(hit_query, np.arange(rows.n_queries))  # each query's first hit in the hit arrays
    counts = recall_point_counts(recalls, num_rel, version)
    reached = counts <= hits[:, None]
    index = np.clip(first[:, None] + np.maximum(counts, 1) - 1, 0, max(len(best) - 1, 0))
    return np.where(reached & (hits[:, None] > 0), best[index] if len(best) else 0.0, 0.0)


def _version(params: Mapping[str, object]) -> str:
    return str(params.get("version", "10.0"))


def iprec_table(rows: RankedRows, level: int, cutoffs: Sequence[float], params: Mapping[str, object]) -> np.ndarray:
    """``IPrec@p`` / ``iprec_at_recall.p``: interpolated precision at each recall point of ``cutoffs`` (last column:
    NaN, the measure needs a recall point)."""
    values = interpolated_precision(rows, level, [float(p) for p in cutoffs], _judged_only(params), _version(params))
    return np.hstack([values, np.full((rows.n_queries, 1), np.nan)])


def eleven_point_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]
                       ) -> np.ndarray:
    """trec_eval's ``11pt_avg`` (m_11pt_avg.c): the mean of the interpolated precisions at the recall points
    (``params["recalls"]``, trec_eval's 11 by default), summed in trec_eval's order (the highest point first)."""
    recalls = [float(p) for p in params.get("recalls", IPREC_RECALLS)]  # type: ignore[attr-defined]
    values = interpolated_precision(rows, level, recalls, _judged_only(params), _version(params))
    total = np.zeros(rows.n_queries)
    for column in range(len(recalls) - 1, -1, -1):
        total = total + values[:, column]
    return _columns(total / len(recalls), cutoffs)


def rprec_mult_table(rows: RankedRows, level: int, cutoffs: Sequence[float], params: Mapping[str, object]
                     ) -> np.ndarray:
    """trec_eval's ``Rprec_mult.m`` (m_Rprec_mult.c): precision at k = trunc(m * R + 0.9), R the query's relevant
    documents (0 when k is 0); the last column is NaN (the measure needs a multiple)."""
    hit_query, hit_position = _hits(ranked(rows, _judged_only(params)), level)
    num_rel = rows.num_rel(level)
    out = np.full((rows.n_queries, len(cutoffs) + 1), np.nan)
    for column, multiple in enumerate(cutoffs):
        k = np.trunc(float(multiple) * num_rel + 0.9)
        inside = np.bincount(hit_query, weights=hit_position < k[hit_query], minlength=rows.n_queries)
        out[:, column] = divide(inside, k)
    return out


def relative_p_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, object]
                     ) -> np.ndarray:
    """trec_eval's ``relative_P.k`` (m_rel_P.c): relevant documents in the top k over min(k, R); 0 when R is 0
    (without a cutoff: over min(retrieved, R), ``set_relative_P``)."""
    hit_query, hit_position = _hits(ranked(rows, _judged_only(params)), level)
    num_rel = rows.num_rel(level)
    counts = cutoff_sums(hit_query, hit_position, np.ones(len(hit_query)), rows.n_queries, [int(k) for k in cutoffs])
    limits = np.append(np.asarray(cutoffs, dtype=np.float64), np.inf)[None, :]
    last = np.minimum(retrieved(rows, _judged_only(params)), num_rel)
    bound = np.minimum(limits, num_rel[:, None])
    bound[:, -1] = last
    return divide(counts, bound)


# ------------------------------------------------------------------------------------ set measures
def _set_counts(rows: RankedRows, level: int, params: Mapping[str, object]) -> tuple[np.ndarray, ...]:
    """(num_ret, num_rel, num_rel_ret) per query; only num_ret depends on ``judged_only``."""
    return retrieved(rows, _judged_only(params)), rows.num_rel(level), rows.judged.num_ret_rel(level)


def set_p_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``set_P`` (m_set_P.c): relevant retrieved over retrieved; with ``relative`` (``set_relative_P``,
    m_set_rel_P.c) over min(retrieved, R), 0 when R is 0."""
    num_ret, num_rel, rel_ret = _set_counts(rows, level, params)
    if params.get("relative", False):
        return _columns(divide(rel_ret, np.minimum(num_ret, num_rel)), cutoffs)
    return _columns(divide(rel_ret, num_ret), cutoffs)


def set_recall_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]
                     ) -> np.ndarray:
    """trec_eval's ``set_recall`` (m_set_recall.c): relevant retrieved over R (0 when R is 0)."""
    _, num_rel, rel_ret = _set_counts(rows, level, params)
    return _columns(divide(rel_ret, num_rel), cutoffs)


def set_map_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``set_map`` (m_set_map.c): relevant retrieved squared over (retrieved * R)."""
    num_ret, num_rel, rel_ret = _set_counts(rows, level, params)
    return _columns(divide(rel_ret * rel_ret, num_ret * num_rel), cutoffs)


def set_f_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``set_F.beta`` (m_set_F.c): (beta + 1) * P * R / (beta * P + R) of the set precision P and recall
    R (0 without a relevant document retrieved); ``beta`` 1 by default."""
    num_ret, num_rel, rel_ret = _set_counts(rows, level, params)
    beta = float(params.get("beta", 1.0))  # type: ignore[arg-type]
    precision, recall = divide(rel_ret, num_ret), divide(rel_ret, num_rel)
    return _columns(divide((beta + 1.0) * precision * recall, beta * precision + recall), cutoffs)


#: ``utility``'s parameters, in trec_eval's order (``utility.1,-1,0,0``), and their defaults.
UTILITY_PARAMS: tuple[tuple[str, float], ...] = (("rel_ret", 1.0), ("nonrel_ret", -1.0), ("rel_unret", 0.0),
                                                 ("nonrel_unret", 0.0))


def utility_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval's ``utility`` (m_utility.c): rel_ret * a + nonrel_ret * (retrieved - a) + rel_unret * (R - a) +
    nonrel_unret * (N + a - retrieved - R), a the relevant documents retrieved, N ``num_docs`` (trec_eval's ``-N``,
    0 by default); 0 for a query the run does not rank (trec_eval 10.0 ``-c`` zeroes it)."""
    num_ret, num_rel, rel_ret = _set_counts(rows, level, params)
    p1, p2, p3, p4 = (float(params.get(name, default)) for name, default in UTILITY_PARAMS)  # type: ignore[arg-type]
    num_docs = float(params.get("num_docs", 0))  # type: ignore[arg-type]
    values = p1 * rel_ret + p2 * (num_ret - rel_ret) + p3 * (num_rel - rel_ret) + p4 * (num_docs + rel_ret - num_ret
                                                                                          - num_rel)
    # -c's stand-in ranking is zeroed; under -J it is dropped, and the empty ranking's value is what trec_eval prints
    return _columns(np.where(_ranked_queries(rows) | _judged_only(params), values, 0.0), cutoffs)


# ------------------------------------------------------------------------------------ judgment rates
def unj_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, object]) -> np.ndarray:
    """trec_eval 10.0's ``unj.k`` (m_unjudged.c): the documents in the top k without a grade >= 0 (unjudged, or judged
    below 0), over k (a ranking shorter than k is filled with judged ones); without a cutoff, over the retrieved.
    With ``judged_only`` those documents are dropped first: 0. (Positions run 0..n-1 in a query's ranking, so the top
    k holds min(k, retrieved) rows, of which those judged >= 0 are counted.)"""
    ranking = ranked(rows, _judged_only(params))
    judged = ranking.judged
    counts = cutoff_sums(judged.row_query, judged.position, (judged.grade >= 0).astype(np.float64), rows.n_queries,
                         [int(k) for k in cutoffs])
    limits = np.append(np.asarray(cutoffs, dtype=np.float64), np.inf)[None, :]
    inside = np.minimum(limits, ranking.num_ret[:, None])  # the rows in the top k
    bound = np.repeat(limits, rows.n_queries, axis=0)
    bound[:, -1] = ranking.num_ret
    return divide(inside - counts, bound)


def judged_table(rows: RankedRows, level: int, cutoffs: Sequence[int], params: Mapping[str, object]) -> np.ndarray:
    """ir_measures' ``Judged@k``: the documents in the top k the qrels hold (any grade, negative ones too) over
    min(k, retrieved); over the retrieved without a cutoff; 0 for a query without a row."""
    judged = rows.judged
    counts = cutoff_sums(judged.row_query, judged.position, np.ones(len(judged.row_query)), rows.n_queries,
                         [int(k) for k in cutoffs])
    limits = np.append(np.asarray(cutoffs, dtype=np.float64), np.inf)[None, :]
    return divide(counts, np.minimum(limits, rows.num_ret[:, None]))
