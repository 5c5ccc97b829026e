"""trec_eval's ranking order on integer codes, with numpy only (this module imports no pandas).

trec_eval ranks a query's documents by score descending, ties by docid descending (code point order), scores
compared as 32-bit floats (:func:`as_trec_scores`). :func:`trec_order_codes` gives that order and the ranks;
:func:`trec_order_lines` sorts a run's lines, and only its tied lines when the file is in (query, score) order
already (a run file written by a tool usually is), checked with vectorised comparisons alone.
:func:`query_order_positions` is the result's query order (the run's queries, then each query only in the qrels
after the query before it there), for ``from_trec`` (:func:`evalframe.sources.trec.query_order`) and the columnar
``evalframe trec`` alike.
:mod:`evalframe.frames.trec_codes` re-exports these names beside the code helpers that need pandas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["trec_order_codes", "trec_order_lines", "pairs_repeat", "as_trec_scores", "ranks_within", "compact_codes",
           "query_order_positions"]


def trec_order_codes(query: np.ndarray, doc: np.ndarray, doc_values: Any, scores: np.ndarray, *,
                     text_ranks: Callable[[], np.ndarray] | None = None,
                     sort_docids: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`evalframe.frames.trec_codes.trec_order` on codes: ``query`` numbers the queries in order of first
    appearance, ``doc[i]`` is row i's docid as an index into ``doc_values`` (distinct docids, any order: a numpy
    object array, or any sized array when ``sort_docids`` is given); ``scores`` as ``trec_order`` takes them.

    One integer sort by (query, score); the rows that tie there are then ordered by docid with a second integer
    sort, by (tie group, docid rank). ``text_ranks()``, when given, returns the rank of every distinct docid in
    code point order (e.g. sorted in Arrow); it is called only when the tied rows are many (more than one in
    ``_FEW_TIED`` of the distinct docids), else only the distinct docids of tied rows are sorted, as text (the
    same ranks among them: a sort of a few thousand strings instead of a million): ``sort_docids(codes)``, when
    given, returns the permutation sorting the docids of ``codes`` in code point order (e.g. in Arrow, without a
    Python str per docid), else they are sorted as ``doc_values[codes]``.

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
        if not (key[1:] < key[:-1]).any():  # rows in (query, score) order already (ties aside): no sort
            order, ordered = np.arange(n), key
        else:
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
            by_text = (sort_docids(used_codes) if sort_docids is not None
                       else np.argsort(doc_values[used_codes], kind="stable"))
            rank_of[used_codes[by_text]] = np.arange(len(used_codes))
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


def trec_order_lines(query: np.ndarray, scores: np.ndarray, *, docids_descending: Callable[[np.ndarray], bool],
                     sort_docids: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    """The order of a run's lines in trec_eval's ranking, None when they are in it already.

    ``query``: each line's query code (numbered in order of first appearance), ``scores`` as :func:`as_trec_scores`
    gives them; the docids are known by line: ``docids_descending(lines)`` says whether each of ``lines`` has a larger
    docid than the line after it (asked for tied lines only), and ``sort_docids(lines)`` the permutation sorting
    those lines' docids in code point order. Lines grouped by query with their scores descending (a run file as
    tools write it) have only their ties, if any, put in docid order (a sort of the tied lines alone); other files
    are ranked by :func:`trec_order_codes`.

    Examples
    --------
    >>> docids = np.array(["a", "c", "b", "x"], dtype=object)
    >>> trec_order_lines(np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 5.0], dtype=np.float32),
    ...                  docids_descending=lambda rows: bool((docids[rows] > docids[rows + 1]).all()),
    ...                  sort_docids=lambda rows: np.argsort(docids[rows])) is None
    True
    >>> trec_order_lines(np.array([0, 0, 0]), np.array([1.0, 1.0, 2.0], dtype=np.float32),
    ...                  docids_descending=lambda rows: bool((docids[rows] > docids[rows + 1]).all()),
    ...                  sort_docids=lambda rows: np.argsort(docids[rows])).tolist()
    [2, 1, 0]
    """
    n = len(query)
    if n < 2:
        return None
    step = query[1:] != query[:-1]
    if (query[1:] < query[:-1]).any() or not (step | (scores[1:] <= scores[:-1])).all():
        lines = np.arange(n)
        return trec_order_codes(query, lines, lines, scores, sort_docids=sort_docids)[0]
    same = ~step & (scores[1:] == scores[:-1])
    pairs = np.flatnonzero(same)
    if not len(pairs) or docids_descending(pairs):
        return None
    tied = np.zeros(n, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    rows = np.flatnonzero(tied)
    group = np.cumsum(_run_starts(tied, same)) - 1  # runs of equal (query, score), numbered in order
    docid_rank = np.empty(len(rows), dtype=np.int64)
    docid_rank[sort_docids(rows)] = np.arange(len(rows))
    order = np.arange(n)
    order[rows] = rows[np.lexsort((-docid_rank, group))]
    return order


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


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer codes as int32 when they fit (half the memory of int64), else as they are; use them in
    arithmetic only after ``astype(np.int64)``.

    Examples
    --------
    >>> compact_codes(np.array([0, 5])).dtype, compact_codes(np.array([0, 2**31])).dtype
    (dtype('int32'), dtype('int64'))
    """
    return codes.astype(np.int32) if not len(codes) or int(codes.max()) < 2**31 else codes


def query_order_positions(in_run: np.ndarray, n_run: int) -> np.ndarray:
    """The result's query order: the run's queries in its order, a query only in the qrels after the query before
    it there (before every run query when none precedes it), as positions into the run's distinct queries followed
    by the qrels-only ones.

    Parameters
    ----------
    in_run : array of int
        For each distinct query of the qrels, in their order: its position among the run's distinct queries (in
        order of first appearance), -1 when the run does not have it.
    n_run : int
        The number of distinct queries of the run.

    Returns
    -------
    numpy.ndarray
        The result's i-th query as a position into ``[run queries..., qrels-only queries in qrels order...]``.

    Examples
    --------
    Run queries ``q1 q3``, qrels queries ``q1 q2 q3 q0`` (``q2`` and ``q0`` only in the qrels, positions 2 and 3):

    >>> query_order_positions(np.array([0, -1, 1, -1]), 2).tolist()  # q1 q2 q3 q0
    [0, 2, 1, 3]
    """
    in_run = np.asarray(in_run, dtype=np.int64)
    only = in_run < 0
    anchor = np.maximum.accumulate(in_run) if len(in_run) else in_run  # the run query before each qrels query
    major = np.r_[np.arange(n_run), anchor[only]]
    minor = np.r_[np.zeros(n_run, dtype=np.int64), 1 + np.arange(int(only.sum()))]
    return np.lexsort((minor, major))


def pairs_repeat(query: np.ndarray, doc: np.ndarray, n_queries: int) -> bool:
    """Whether a (query, document) pair of codes repeats (trec_eval refuses a document twice in a query).

    Rows grouped by query (ascending codes) of similar lengths are laid out one query per row of a grid, padded with
    negative codes no document has, and the grid's rows sorted: short sorts, faster than one sort of every
    ``query * width + doc`` key, which is the way for other rows.

    Examples
    --------
    >>> pairs_repeat(np.array([0, 0, 1, 1]), np.array([3, 5, 3, 4]), 2), pairs_repeat(np.array([0, 1, 0]), np.array([3, 3, 3]), 2)
    (False, True)
    """
    n = len(query)
    if n < 2:
        return False
    query = np.asarray(query)
    doc = np.asarray(doc)
    counts = np.bincount(query, minlength=n_queries)
    width = int(counts.max())
    grouped = not (query[1:] < query[:-1]).any()
    if grouped and n_queries * width <= 2 * n + 1024:
        dtype = np.int32 if int(doc.max()) < 2**31 and width < 2**31 else np.int64
        grid = np.empty((n_queries, width), dtype=dtype)
        grid[:] = -1 - np.arange(width, dtype=dtype)  # a padding cell: a negative code, distinct along its row
        starts = np.cumsum(counts) - counts
        grid[query, np.arange(n) - np.repeat(starts, counts)] = doc
        grid.sort(axis=1)
        return bool((grid[:, 1:] == grid[:, :-1]).any())
    key = query.astype(np.int64) * max(int(doc.max()) + 1, 1) + doc
    key.sort()
    return bool((key[1:] == key[:-1]).any())
