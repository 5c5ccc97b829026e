"""The C/W/L measures of cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019) as ir_measures names them: vectorised
kernels, numpy only.

A C/W/L measure is a user model: ``C(i)``, the chance a user who read rank ``i`` reads on, gives each rank a weight
``W(i) = Π_{j<i} C(j) / Σ_{i'} Π_{j<i'} C(j)`` (the chance rank ``i`` is read, normalised), and the measure is the
expected rate of gain ``Σ_i W(i) g(i)``. The measures differ in their ``C``:

* ``INSQ(T)`` (Moffat, Scholer & Thomas, ADCS 2012): ``C(i) = ((i + 2T - 1) / (i + 2T))²``;
* ``INST(T)`` (Moffat, Bailey, Scholer & Thomas, ADCS 2015): ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))²``,
  ``T_i = T - Σ_{j≤i} g(j)`` the gain still wanted;
* ``SDCG@k``: ``C(i) = log2(i + 1) / log2(i + 2)`` for ``i < k``, else 0 (DCG's discount made a distribution:
  nDCG scaled as though ``k`` fully relevant documents existed);
* ``NERR8@k``, ``NERR9@k``, ``NERR10(p)``, ``NERR11(T)`` (Azzopardi, Mackenzie & Moffat, ICTIR 2021, equations 8 to
  11): ``C(i) = 1 - g(i)`` for ``i < k``; ``(i / (i + 1)) (1 - g(i))`` for ``i < k``; ``p (1 - g(i))``;
  ``((i + 2T - 1) / (i + 2T))² (1 - g(i))``;
* ``BPM(T)@K`` (Zhang et al., SIGIR 2017, the static Bejeweled Player Model): ``C(i) = 1`` while the gain so far is
  below ``T`` and ``i < K`` (each document costs 1), else 0.

As ir_measures' cwl_eval provider runs cwl_eval (``ir_measures/providers/cwl_eval.py``, cwl-eval 1.0.12's
``cwl/ruler``): a document's gain is its grade, below 0 raised to 0, clipped to ``[min_rel, max_rel]`` and scaled
to ``(grade - min_rel) / (max_rel - min_rel)``; a document the qrels do not hold gains 0 (cwl_eval's worst case);
each query's ranking is cut at :data:`CWL_DEPTH` documents and padded with documents of gain 0 to that depth (the
weights of a measure spread over all of them: a short ranking is read as one followed by irrelevant documents).

The rows are :class:`~evalframe.metrics.trec_kernels.RankedRows`; each kernel is ``kernel(rows, level, cutoffs,
params)`` and returns an ``(n_queries, len(cutoffs) + 1)`` matrix whose last column is the whole ranking (NaN for
the measures that need a cutoff). The relevance level is not read (the gains are graded). No loop runs per query:
the measures whose ``C`` reads the gains work on blocks of queries as ``(queries, CWL_DEPTH)`` matrices; INSQ and
SDCG, whose weights are the same for every query, are one sum over the rows.

Examples
--------
A query ranking a document of grade 2 then one of grade 1, graded 0..2 (``max_rel=2``: gains 1 and 1/2):

>>> from evalframe.metrics.trec_kernels import RankedRows
>>> rows = RankedRows(row_query=np.array([0, 0]), position=np.array([0, 1]), grade=np.array([2, 1]),
...                   judged_query=np.array([0, 0]), judged_grade=np.array([2, 1]), n_queries=1)
>>> float(nerr8_table(rows, 1, [2], {"max_rel": 2})[0, 0])  # C(1) = 1 - 1 = 0: rank 1 alone is read, W = (1, 0)
1.0
>>> round(float(bpm_table(rows, 1, [3], {"max_rel": 2, "T": 2.0})[0, 0]), 12)  # reads on while gain < 2 and i < 3
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .trec_kernels import UNJUDGED, RankedRows

__all__ = [
    "CWL_DEPTH",
    "cwl_gains",
    "expected_utility",
    "insq_table",
    "inst_table",
    "sdcg_table",
    "nerr8_table",
    "nerr9_table",
    "nerr10_table",
    "nerr11_table",
    "bpm_table",
]

#: The depth cwl_eval reads every ranking to (ir_measures' cwl_eval provider: ``RankingMaker(max_n=1000)``): the
#: documents below it are dropped, a shorter ranking is padded with documents of gain 0.
CWL_DEPTH = 1000
#: About how many cells a block of queries holds (``(queries, CWL_DEPTH)`` float64 matrices of 16 MB).
_BLOCK_CELLS = 2**21


def cwl_gains(rows: RankedRows, params: Mapping[str, Any]) -> np.ndarray:
    """Each row's gain as cwl_eval reads it through ir_measures: the grade raised to 0, clipped to
    ``[min_rel, max_rel]`` and scaled to ``[0, 1]``; 0 for a document the qrels do not hold."""
    low, high = float(params.get("min_rel", 0)), float(params["max_rel"])
    grade = np.clip(np.maximum(rows.grade, 0).astype(np.float64), low, high)
    return np.where(rows.grade == UNJUDGED, 0.0, (grade - low) / (high - low))


def expected_utility(c: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """``Σ_i W(i) g(i)`` per row of the ``(queries, depth)`` matrices ``c`` (each rank's chance to read on) and
    ``gains``, ``W(i) = Π_{j<i} C(j) / Σ_{i'} Π_{j<i'} C(j)``, as cwl_eval's ``CWLMetric.w_vector`` computes it."""
    reach = np.ones_like(c)
    reach[:, 1:] = c[:, :-1]
    reach = np.cumprod(reach, axis=1)
    weights = reach * (1.0 / reach.sum(axis=1, keepdims=True))
    return np.einsum("ij,ij->i", weights, gains)


def _blocks(rows: RankedRows, params: Mapping[str, Any]) -> Iterator[tuple[int, int, np.ndarray]]:
    """The queries in blocks: ``(first, stop, gains)``, ``gains`` the ``(stop - first, CWL_DEPTH)`` matrix of their
    rankings' gains, padded with 0."""
    kept = rows.position < CWL_DEPTH
    query, position, gain = rows.row_query[kept], rows.position[kept], cwl_gains(rows, params)[kept]
    step = max(1, _BLOCK_CELLS // CWL_DEPTH)
    for first in range(0, rows.n_queries, step):
        stop = min(first + step, rows.n_queries)
        start, end = np.searchsorted(query, [first, stop])
        block = np.zeros((stop - first, CWL_DEPTH))
        block[query[start:end] - first, position[start:end]] = gain[start:end]
        yield first, stop, block


def _by_blocks(rows: RankedRows, params: Mapping[str, Any], cutoffs: Sequence[object],
               continuation: Callable[[np.ndarray, np.ndarray, int | None], np.ndarray], whole: bool) -> np.ndarray:
    """A measure whose ``C`` reads the gains: ``continuation(gains, rank, k)`` gives ``C`` of a block (``rank`` the
    1-based ranks, a row vector); one column per cutoff, then the whole ranking (``whole``: ``k`` None) or NaN."""
    out = np.full((rows.n_queries, len(cutoffs) + 1), np.nan)
    rank = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)[None, :]
    for first, stop, gains in _blocks(rows, params):
        for column, k in enumerate(cutoffs):
            out[first:stop, column] = expected_utility(continuation(gains, rank, int(k)), gains)  # type: ignore[call-overload]
        if whole:
            out[first:stop, -1] = expected_utility(continuation(gains, rank, None), gains)
    return out


def _same_weights(rows: RankedRows, params: Mapping[str, Any], c: np.ndarray) -> np.ndarray:
    """``Σ_i W(i) g(i)`` per query for a ``C`` the same for every query (a vector over the ranks): one weighted sum
    over the rows, each row's weight that of its rank."""
    weights = _weights(c)
    kept = rows.position < CWL_DEPTH
    gain = cwl_gains(rows, params)[kept]
    return np.bincount(rows.row_query[kept], weights=weights[rows.position[kept]] * gain, minlength=rows.n_queries)


def _weights(c: np.ndarray) -> np.ndarray:
    """``W`` of one continuation vector ``c`` (:func:`expected_utility`'s, for every query alike)."""
    reach = np.cumprod(np.concatenate(([1.0], c[:-1])))
    return reach * (1.0 / reach.sum())


def _insq_c(rank: np.ndarray, t: float) -> np.ndarray:
    return ((rank + 2.0 * t - 1.0) / (rank + 2.0 * t)) ** 2.0


# ------------------------------------------------------------------------------------ table kernels
def insq_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``INSQ(T)``: ``C(i) = ((i + 2T - 1) / (i + 2T))²``, the same for every query; one column."""
    rank = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
    return _same_weights(rows, params, _insq_c(rank, float(params.get("T", 1.0))))[:, None]


def sdcg_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``SDCG@k`` (its ``NDCGCWLMetric``): ``C(i) = log2(i + 1) / log2(i + 2)`` for ``i < k``, else 0;
    the last column NaN (the measure needs a cutoff)."""
    rank = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
    out = np.full((rows.n_queries, len(cutoffs) + 1), np.nan)
    for column, k in enumerate(cutoffs):
        c = np.where(rank < int(k), (np.log(rank + 1.0) / np.log(2.0)) / (np.log(rank + 2.0) / np.log(2.0)), 0.0)  # type: ignore[call-overload]
        out[:, column] = _same_weights(rows, params, c)
    return out


def inst_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``INST(T)``: ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))²``, ``T_i`` = T minus the gain of the
    top i; one column."""
    t = float(params.get("T", 1.0))

    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        wanted = t - np.cumsum(gains, axis=1)
        return ((rank + t + wanted - 1.0) / (rank + t + wanted)) ** 2.0

    return _by_blocks(rows, params, [], continuation, whole=True)


def nerr8_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``NERR8@k`` (``NERReq8CWLMetric``): ``C(i) = 1 - g(i)`` for ``i < k``, else 0."""
    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        return np.where(rank < k, 1.0 - gains, 0.0)

    return _by_blocks(rows, params, cutoffs, continuation, whole=False)


def nerr9_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``NERR9@k`` (``NERReq9CWLMetric``): ``C(i) = (i / (i + 1)) (1 - g(i))`` for ``i < k``, else 0."""
    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        return np.where(rank < k, (rank / (rank + 1.0)) * (1.0 - gains), 0.0)

    return _by_blocks(rows, params, cutoffs, continuation, whole=False)


def nerr10_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``NERR10(p)`` (``NERReq10CWLMetric``, its ``phi``): ``C(i) = p (1 - g(i))``; one column."""
    p = float(params.get("p", 0.9))

    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        return p * (1.0 - gains)

    return _by_blocks(rows, params, [], continuation, whole=True)


def nerr11_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's ``NERR11(T)`` (``NERReq11CWLMetric``): ``C(i) = ((i + 2T - 1) / (i + 2T))² (1 - g(i))``; one
    column."""
    t = float(params.get("T", 1.0))

    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        return _insq_c(rank, t) * (1.0 - gains)

    return _by_blocks(rows, params, [], continuation, whole=True)


def bpm_table(rows: RankedRows, level: int, cutoffs: Sequence[object], params: Mapping[str, Any]) -> np.ndarray:
    """cwl_eval's static ``BPM(T)@K`` (``BPMCWLMetric(T, K)``): ``C(i) = 1`` while the gain of the top i is below T
    and i is below K (every document costs 1: ir_measures gives cwl_eval no costs), else 0."""
    t = float(params.get("T", 1.0))

    def continuation(gains: np.ndarray, rank: np.ndarray, k: int | None) -> np.ndarray:
        return ((np.cumsum(gains, axis=1) < t) & (rank < k)).astype(np.float64)

    return _by_blocks(rows, params, cutoffs, continuation, whole=False)
