"""Codes -> judged rows: a ranking and its judgments, given as integer codes, laid out for the trec measures.

:class:`JudgedRows` holds what :func:`evalframe.metrics.trec.evaluate` reads
(``docs/ir-researchers.md#measures-and-trec_evals-rules``).
:func:`judged_rows_of_codes` builds it from codes alone, with numpy only (this module imports no pandas): what a
reader that codes the TREC files' ids itself (``evalframe trec``'s columnar path, :mod:`evalframe.sources.trec_arrow`)
or ``EvaluationResult.from_trec`` has in hand. :func:`evalframe.frames.judged.prepare_judged_rows` builds the same
arrays from a node frame.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from ..errors import InvalidParameterError, SchemaError
from ..metrics.diversity_kernels import Subtopics
from ..metrics.registry import TREC_MEASURES
from ..metrics.trec import Measure
from ..metrics.trec_kernels import UNJUDGED
from .trec_ranking import compact_codes

__all__ = ["JudgedRows", "judged_rows_of_codes", "row_grades", "subtopics_of_ids", "NOT_DOCUMENTS", "MISSING_QUERY_RULES",
           "check_missing_queries", "cut_ranking", "at_level", "check_cut", "Columns", "trec_judged_rows"]

#: Judged ids that are no document (as the trec measures count them: :mod:`evalframe.sources.trec`).
NOT_DOCUMENTS = ("00", "")

#: What ``missing_queries`` may say of a query with judgments but no document in the run (without ``complete``):
#: ``"skip"`` it, as trec_eval 9.x and pytrec_eval do (evalframe's default), or refuse the run (``"error"``), as
#: trec_eval 10.0 does without -c.
MISSING_QUERY_RULES = ("skip", "error")


@dataclass(frozen=True)
class JudgedRows:
    """A node's ranking and judgments per query, as flat arrays (see :mod:`evalframe.metrics.trec`).

    Rows are sorted by query code, then position; judged documents by query code, then grade descending.

    Attributes
    ----------
    where : str
        What the rows are, for messages (``"node 'Retriever'"``).
    query_ids : numpy.ndarray
        The id of each query code (object array), in result order.
    row_query, position, grade : numpy.ndarray
        Per ranked row: its query code, its 0-based position in the query's ranking, its grade (``UNJUDGED`` when
        the document is not judged).
    judged_query, judged_grade : numpy.ndarray
        Per judgment: its query code and grade.
    in_run, in_qrels : numpy.ndarray
        Per query (bool): whether it ranks a document, whether it has a judgment.
    subtopics : Subtopics, a function returning them, or None
        The subtopic judgments of the queries and of the ranked rows (the diversity measures'), when the qrels were
        read with their subtopics (``EvaluationResult.from_trec(..., subtopics=True)``); a function (cached) makes
        them when a diversity measure first reads them. None: the qrels have no subtopics.

    Examples
    --------
    >>> rows = JudgedRows(where="node 'Retriever'", query_ids=np.array(["q1", "q2"], dtype=object),
    ...                   row_query=np.array([0, 0]), position=np.array([0, 1]), grade=np.array([1, UNJUDGED]),
    ...                   judged_query=np.array([0, 1]), judged_grade=np.array([1, 2]),
    ...                   in_run=np.array([True, False]), in_qrels=np.array([True, True]))
    >>> rows.n_queries, rows.evaluated().tolist(), rows.evaluated(complete=True).tolist()
    (2, [0], [0, 1])
    """

    where: str
    query_ids: np.ndarray  # multilabel_id per query code (first-appearance order)
    row_query: np.ndarray  # query code per ranked row
    position: np.ndarray  # 0-based position in the query's ranking
    grade: np.ndarray  # the row's qrels grade, UNJUDGED when the document is not judged
    judged_query: np.ndarray  # query code per judged document
    judged_grade: np.ndarray  # its grade
    in_run: np.ndarray  # bool per query: the query ranks at least one document
    in_qrels: np.ndarray  # bool per query: the query has at least one judged document
    subtopics: Subtopics | Callable[[], Subtopics] | None = None  # subtopic judgments, from a subtopic qrels

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def evaluated(self, complete: bool = False) -> np.ndarray:
        """The query codes trec_eval evaluates (with ``complete``, as ``trec_eval -c``), in result order."""
        return np.flatnonzero(self.in_qrels & (self.in_run | complete))


def check_missing_queries(rows: JudgedRows, missing_queries: str, complete: bool) -> None:
    """Refuse, for ``missing_queries="error"`` without ``complete``, a query with judgments but no ranked document
    (trec_eval 10.0's rule; ``"skip"``: trec_eval 9.x's and pytrec_eval's, nothing to check).

    Parameters
    ----------
    rows : JudgedRows
        The ranking and judgments.
    missing_queries : str
        ``"skip"`` or ``"error"`` (:data:`MISSING_QUERY_RULES`, checked by the caller).
    complete : bool
        trec_eval's ``-c``: such queries are evaluated (all measures 0), so none is refused.

    Raises
    ------
    SchemaError
        Naming the first such query (and how many), and the two ways to go on.

    Examples
    --------
    >>> rows = JudgedRows(where="node 'Retriever'", query_ids=np.array(["q1", "q2"], dtype=object),
    ...                   row_query=np.array([0]), position=np.array([0]), grade=np.array([1]),
    ...                   judged_query=np.array([0, 1]), judged_grade=np.array([1, 1]),
    ...                   in_run=np.array([True, False]), in_qrels=np.array([True, True]))
    >>> check_missing_queries(rows, "error", complete=True)  # trec_eval -c evaluates q2
    >>> try:
    ...     check_missing_queries(rows, "error", complete=False)
    ... except SchemaError as error:
    ...     print(str(error)[:50])
    query 'q2' of the qrels has no document in the run
    """
    if missing_queries != "error" or complete:
        return
    missing = np.flatnonzero(rows.in_qrels & ~rows.in_run)
    if len(missing):
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise SchemaError(
            f"query {rows.query_ids[missing[0]]!r}{more} of the qrels has no document in the run (no ranked row); "
            "with missing_queries='error' (--missing-queries error) such a run is refused, as trec_eval 10.0 refuses "
            "it without -c. Score such queries 0 with complete=True (-c), or leave them out with "
            "missing_queries='skip' (--missing-queries skip), as trec_eval 9.x and pytrec_eval do.",
            parameter="missing_queries")


def row_grades(row_query: np.ndarray, row_doc: np.ndarray, width: int, judged_key: np.ndarray, judged_grade: np.ndarray
               ) -> np.ndarray:
    """Each row's grade (UNJUDGED when its (query, document) is not judged); ``judged_key`` sorted, of
    ``query * width + document`` (documents ``0 <= doc < width``). Only the rows whose document is judged in some
    query are searched (a bitmap of the judged documents picks them), not every row.

    Examples
    --------
    >>> row_grades(np.array([0, 0, 1]), np.array([0, 1, 1]), 2, np.array([1, 3]), np.array([2, 0])).tolist()[1:]
    [2, 0]
    """
    grade = np.full(len(row_query), UNJUDGED, dtype=np.int64)
    if not len(judged_key) or not len(row_query):
        return grade
    judged_doc = np.zeros(width, dtype=bool)
    judged_doc[judged_key % width] = True
    candidates = np.flatnonzero(judged_doc[row_doc])
    keys = row_query[candidates].astype(np.int64) * width + row_doc[candidates]  # int64: codes may be int32
    found = np.minimum(np.searchsorted(judged_key, keys), len(judged_key) - 1)
    hit = judged_key[found] == keys
    grade[candidates[hit]] = judged_grade[found[hit]]
    return grade


def judged_rows_of_codes(row_query: np.ndarray, row_doc: np.ndarray, judged_query: np.ndarray, judged_doc: np.ndarray,
                         judged_grade: np.ndarray, query_ids: np.ndarray, *, where: str) -> JudgedRows:
    """The judged rows of a ranking and its judgments given as codes (numpy only; nothing per row in Python).

    Parameters
    ----------
    row_query : array of int
        The query code (``0 <= code < len(query_ids)``) of each ranked row, the rows in ranking order: grouped by
        query code ascending, each query's rows best first (trec_eval's order: score descending, ties by docid
        descending). A query without rows is not in the run.
    row_doc : array of int
        Each row's document code (``>= 0``); a document at most once per query (the caller refuses repeats, as
        trec_eval does).
    judged_query, judged_doc, judged_grade : arrays of int, one entry per judgment (qrels line)
        The query code, the document code in ``row_doc``'s coding, or ``-1`` for a document the ranking does not
        hold (it counts among the query's judged documents, no row matches it), and the grade (any int; ``<= 0``:
        not relevant). Each (query, document) pair at most once (the TREC readers refuse repeats); the ids that are
        no document (``"00"``, ``""``) left out by the caller. A query with no judgment is not in the qrels.
    query_ids : numpy.ndarray
        The id of each query code, in result order (the order of the per-query tables).
    where : str
        What the rows are, for messages (``"node 'Retriever'"``).

    Returns
    -------
    JudgedRows
        ``row_query`` and ``position`` as int32 when they fit, ``grade`` per row (``UNJUDGED`` when not judged),
        the judgments sorted by query then grade descending, ``in_run`` / ``in_qrels`` per query.

    Examples
    --------
    >>> rows = judged_rows_of_codes(np.array([0, 0, 0]), np.array([4, 7, 2]), np.array([0, 0, 1]),
    ...                             np.array([7, -1, -1]), np.array([1, 3, 2]), np.array(["q1", "q2"], dtype=object),
    ...                             where="node 'Retriever'")
    >>> rows.position.tolist(), rows.grade.tolist()[1], rows.judged_grade.tolist()
    ([0, 1, 2], 1, [3, 1, 2])
    >>> rows.in_run.tolist(), rows.in_qrels.tolist(), rows.evaluated(complete=True).tolist()
    ([True, False], [True, True], [0, 1])
    """
    n_queries = len(query_ids)
    row_query = np.asarray(row_query)
    row_doc = np.asarray(row_doc)
    judged_query = np.asarray(judged_query, dtype=np.int64)
    judged_doc = np.asarray(judged_doc, dtype=np.int64)
    judged_grade = np.asarray(judged_grade, dtype=np.int64)
    counts = np.bincount(row_query, minlength=n_queries) if len(row_query) else np.zeros(n_queries, dtype=np.int64)
    starts = np.cumsum(counts) - counts  # rows grouped by query ascending: a query's first row
    position = np.arange(len(row_query), dtype=np.int64) - np.repeat(starts, counts)

    width = max(int(row_doc.max(initial=-1)), int(judged_doc.max(initial=-1))) + 1
    in_ranking = np.flatnonzero(judged_doc >= 0)
    keys = judged_query[in_ranking] * width + judged_doc[in_ranking]
    by_key = np.argsort(keys, kind="stable")
    grade = row_grades(row_query, row_doc, width, keys[by_key], judged_grade[in_ranking][by_key])

    by_grade = np.lexsort((-judged_grade, judged_query))
    return JudgedRows(where=where, query_ids=np.asarray(query_ids, dtype=object), row_query=compact_codes(row_query),
                      position=compact_codes(position), grade=grade, judged_query=judged_query[by_grade],
                      judged_grade=judged_grade[by_grade], in_run=counts > 0,
                      in_qrels=np.bincount(judged_query, minlength=n_queries) > 0)


class Columns(Protocol):
    """A table read by column name (a DataFrame, or a dict of arrays)."""

    def __getitem__(self, name: str) -> Any: ...


def trec_judged_rows(judged_codes: Callable[[], tuple[np.ndarray, ...]], doc_values: Callable[[], np.ndarray], node: str,
                     subtopics: Columns | None, eval_mode: str, duplicates: str) -> JudgedRows | None:
    """The judged rows of ``EvaluationResult.from_trec``'s node, from its codes: what its pending frame answers the
    store for ``(eval_mode, duplicates)`` (``extras["judged_rows"]``, :mod:`evalframe.frames.pending`).

    Every row of such a node is a document row of eval_mode ``"integrated"`` (another eval_mode has none: None); the
    TREC readers refused a document twice in a query, so ``duplicates`` changes nothing.

    Parameters
    ----------
    judged_codes : callable
        ``() ->`` what :func:`judged_rows_of_codes` takes (the ranked rows' query and document codes, the judgments'
        query and document codes and grades, the query ids by code), called when the rows are asked for.
    doc_values : callable
        ``() ->`` the document id of each document code (read only with ``subtopics``).
    node : str
        The node's name, for messages.
    subtopics : table, optional
        The subtopic judgments when the qrels were read with them (columns ``qid``, ``subtopic``, ``docid``,
        ``relevance``, :func:`evalframe.sources.trec_files.read_qrels` with ``subtopics=True``): the rows' subtopic
        judgments are made when a diversity measure first reads them (the other measures never do).
    eval_mode, duplicates : str
        The rows asked for.

    Examples
    --------
    >>> codes = (np.array([0, 0]), np.array([1, 0]), np.array([0]), np.array([0]), np.array([2]),
    ...          np.array(["q1"], dtype=object))
    >>> docids = np.array(["d1", "d2"], dtype=object)
    >>> rows = trec_judged_rows(lambda: codes, lambda: docids, "Retriever", None, "integrated", "error")
    >>> rows.where, rows.grade.tolist()[1]
    ("node 'Retriever' (document rows, eval_mode='integrated')", 2)
    >>> trec_judged_rows(lambda: codes, lambda: docids, "Retriever", None, "isolated", "error") is None
    True
    >>> subtopics = {"qid": ["q1", "q1"], "subtopic": ["1", "2"], "docid": ["d1", "d2"], "relevance": [2, 1]}
    >>> rows = trec_judged_rows(lambda: codes, lambda: docids, "Retriever", subtopics, "integrated", "error")
    >>> rows.subtopics().row_subtopic.tolist(), rows.subtopics().row_grade.tolist()  # d2 (subtopic 2), then d1 (1)
    ([1, 0], [1, 2])
    """
    if eval_mode != "integrated":
        return None  # an empty run and qrels: no row, no query evaluated (pytrec_eval's {}), not a node without documents
    codes = judged_codes()
    rows = judged_rows_of_codes(*codes, where=f"node {node!r} (document rows, eval_mode={eval_mode!r})")
    if subtopics is None:
        return rows
    # made when a diversity measure first reads them (the other measures never do)
    judged = functools.cache(functools.partial(
        subtopics_of_ids, rows.row_query, doc_values()[codes[1]], rows.query_ids,
        np.asarray(subtopics["qid"], dtype=object), np.asarray(subtopics["subtopic"], dtype=object),
        np.asarray(subtopics["docid"], dtype=object), np.asarray(subtopics["relevance"])))
    return replace(rows, subtopics=judged)


def cut_ranking(rows: JudgedRows, *, max_docs: int | None = None, judged_only: bool = False) -> JudgedRows:
    """``rows`` as trec_eval ranks them with ``-M max_docs`` and ``-J``: each query's first ``max_docs`` documents
    (in trec_eval's order: score descending, docid descending on ties), then, with ``judged_only``, only those
    judged (a grade ``>= 0``: trec_eval's ``-J`` drops the documents the qrels do not hold and those judged with a
    negative grade, "in the pool but unjudged"), their positions renumbered from 0. ``-M`` comes first, as in
    trec_eval's ``form_res_rels.c``: ``-M 10 -J`` ranks the judged documents among the first ten, not the first ten
    judged ones. The queries stay as they were (a query left with no document is still in the run, all its
    measures 0, as trec_eval evaluates it); the judgments are unchanged.

    Parameters
    ----------
    rows : JudgedRows
        The ranking and its judgments (:func:`judged_rows_of_codes`).
    max_docs : int, optional
        At most this many documents per query (``>= 0``); None keeps every one.
    judged_only : bool
        Keep only the judged documents (``trec_eval -J``; pytrec_eval's ``judged_docs_only_flag``).

    Returns
    -------
    JudgedRows
        ``rows`` itself when nothing is cut, else the kept rows with their new positions.

    Examples
    --------
    >>> rows = judged_rows_of_codes(np.array([0, 0, 0, 1]), np.array([4, 7, 2, 4]), np.array([0, 0, 1]),
    ...                             np.array([7, 2, 4]), np.array([1, 0, 2]), np.array(["q1", "q2"], dtype=object),
    ...                             where="node 'Retriever'")
    >>> cut = cut_ranking(rows, judged_only=True)  # q1's d4 is not judged: d7 and d2 move up
    >>> cut.row_query.tolist(), cut.position.tolist(), cut.grade.tolist()
    ([0, 0, 1], [0, 1, 0], [1, 0, 2])
    >>> cut = cut_ranking(rows, max_docs=1, judged_only=True)  # q1's first document is not judged: none is left
    >>> cut.row_query.tolist(), cut.in_run.tolist()
    ([1], [True, True])
    """
    keep = np.ones(len(rows.row_query), dtype=bool)
    if max_docs is not None:
        keep &= rows.position < max_docs
    if judged_only:
        keep &= rows.grade >= 0
    if keep.all():
        return rows
    kept = np.flatnonzero(keep)
    row_query = rows.row_query[kept]
    counts = np.bincount(row_query, minlength=rows.n_queries) if len(row_query) else np.zeros(rows.n_queries, np.int64)
    position = np.arange(len(row_query), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return replace(rows, row_query=row_query, position=compact_codes(position), grade=rows.grade[kept])


def at_level(measures: Sequence[Measure], rel: int | None) -> list[Measure]:
    """``measures`` with ``rel`` as the relevance level of every binary one (``trec_eval -l rel``): the measures
    that take a level (P, R, AP, RR, Success, Rprec, Bpref, ...) get ``rel``, the graded ones (nDCG) are unchanged,
    as trec_eval's ``-l`` changes no gain. ``rel`` None leaves every measure as it is; a measure written with its own
    level (``P(rel=3)@5``) gets ``rel`` too: one level for all, as trec_eval has. Repeats are dropped.

    Examples
    --------
    >>> [str(m) for m in at_level([Measure("P", 5), Measure("nDCG", 10), Measure("AP")], 2)]
    ['P(rel=2)@5', 'nDCG@10', 'AP(rel=2)']
    """
    if rel is None:
        return list(measures)
    out: dict[str, Measure] = {}
    for measure in measures:
        changed = replace(measure, rel=rel) if TREC_MEASURES[measure.name].rel else measure
        out.setdefault(str(changed), changed)
    return list(out.values())


def check_cut(max_docs: object, judged_only: object, rel: object) -> tuple[int | None, bool, int | None]:
    """``max_docs``, ``judged_only`` and ``rel`` of the trec measures checked (trec_eval's ``-M``, ``-J``, ``-l``).

    Raises InvalidParameterError naming the parameter, the value and what it must be.

    Examples
    --------
    >>> check_cut(100, True, None)
    (100, True, None)
    >>> check_cut(-1, False, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: max_docs must be None or an int >= 0 (...trec_eval -M); got -1.
    """
    def count(value: object, name: str, least: int, what: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise InvalidParameterError(f"{name} must be None or an int >= {least} ({what}); got {value!r}.",
                                        parameter=name)
        return int(value)

    if not isinstance(judged_only, (bool, np.bool_)):
        raise InvalidParameterError(f"judged_only must be True or False (trec_eval -J); got {judged_only!r}.",
                                    parameter="judged_only")
    return (count(max_docs, "max_docs", 0, "at most this many documents per query, trec_eval -M"), bool(judged_only),
            count(rel, "rel", 1, "the relevance level of every binary measure, trec_eval -l"))


def _codes_of(values: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """The index of each of ``values`` in ``distinct`` (sorted, holding every one of them)."""
    return np.searchsorted(distinct, values).astype(np.int64)


def subtopics_of_ids(row_query: np.ndarray, row_docid: np.ndarray, query_ids: np.ndarray, qid: np.ndarray,
                     subtopic: np.ndarray, docid: np.ndarray, grade: np.ndarray) -> Subtopics:
    """The :class:`~evalframe.metrics.diversity_kernels.Subtopics` of a ranking and its subtopic judgments (numpy only).

    Parameters
    ----------
    row_query, row_docid : numpy.ndarray
        Per ranked row: its query code (an index of ``query_ids``) and document id (str); rows grouped by query code
        ascending, each query's best first (the rows of :func:`judged_rows_of_codes`).
    query_ids : numpy.ndarray
        The id of each query code.
    qid, subtopic, docid, grade : numpy.ndarray
        One entry per subtopic judgment (str ids, int grades), each (qid, subtopic, docid) at most once; a qid not
        in ``query_ids`` is left out, and so are the ids that are no document (``"00"``, ``""``).

    Returns
    -------
    Subtopics
        A query's judged documents in docid order descending (ndeval's ideal ranking gives a tie to the greatest
        docid), its subtopics in order of first appearance of their ids in the judgments (the order ndeval's
        provider in ir_measures numbers them, so its sums are added in the same order).

    Examples
    --------
    >>> subtopics = subtopics_of_ids(np.array([0, 0]), np.array(["d2", "d9"], dtype=object),
    ...     np.array(["q1"], dtype=object), np.array(["q1", "q1", "q1"], dtype=object),
    ...     np.array(["1", "2", "1"], dtype=object), np.array(["d1", "d1", "d2"], dtype=object), np.array([1, 1, 2]))
    >>> subtopics.doc_query.tolist(), subtopics.judged_doc.tolist(), subtopics.judged_subtopic.tolist()
    ([0, 0], [1, 1, 0], [0, 1, 0])
    >>> subtopics.row_position.tolist(), subtopics.row_subtopic.tolist(), subtopics.row_grade.tolist()
    ([0], [0], [2])
    """
    qid, subtopic, docid = (np.asarray(a, dtype=object) for a in (qid, subtopic, docid))
    grade = np.asarray(grade, dtype=np.int64)
    query_ids = np.asarray(query_ids, dtype=object)
    by_id = np.argsort(query_ids.astype(str), kind="stable")
    sorted_ids = query_ids[by_id].astype(str)
    found = np.minimum(np.searchsorted(sorted_ids, qid.astype(str)), max(len(sorted_ids) - 1, 0))
    keep = (sorted_ids[found] == qid.astype(str)) if len(sorted_ids) else np.zeros(len(qid), dtype=bool)
    keep &= ~np.isin(docid, np.array(NOT_DOCUMENTS, dtype=object))
    query = by_id[found[keep]].astype(np.int64)
    subtopic, docid, grade = subtopic[keep], docid[keep].astype(str), grade[keep]

    # documents: one per (query, docid), a query's in docid order descending
    texts = np.unique(np.concatenate([docid, np.asarray(row_docid, dtype=object).astype(str)]))
    doc_text = _codes_of(docid, texts)
    width = len(texts)
    doc_key = query * width + (width - 1 - doc_text)  # ascending: query, then docid descending
    doc_keys, judged_doc = np.unique(doc_key, return_inverse=True)
    doc_query = doc_keys // width

    # subtopics: one per (query, subtopic), numbered in order of the subtopic id's first appearance
    _, first_seen, subtopic_code = np.unique(subtopic.astype(str), return_index=True, return_inverse=True)
    appearance = np.argsort(np.argsort(first_seen, kind="stable"), kind="stable")[subtopic_code]
    n_ids = int(appearance.max(initial=-1)) + 1
    subtopic_keys, judged_subtopic = np.unique(query * max(n_ids, 1) + appearance, return_inverse=True)
    subtopic_query = subtopic_keys // max(n_ids, 1)

    # the ranked rows' judgments: each row joined with the judgments of its (query, docid)
    row_query = np.asarray(row_query, dtype=np.int64)
    counts = np.bincount(row_query, minlength=len(query_ids)) if len(row_query) else np.zeros(len(query_ids), int)
    position = np.arange(len(row_query), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    row_key = row_query * width + (width - 1 - _codes_of(np.asarray(row_docid, dtype=object).astype(str), texts))
    by_key = np.argsort(doc_key, kind="stable")
    start = np.searchsorted(doc_key[by_key], row_key, side="left")
    stop = np.searchsorted(doc_key[by_key], row_key, side="right")
    n_pairs = stop - start
    row_of_pair = np.repeat(np.arange(len(row_query)), n_pairs)
    pair = by_key[np.repeat(start - np.cumsum(n_pairs) + n_pairs, n_pairs) + np.arange(int(n_pairs.sum()))]
    return Subtopics(doc_query=doc_query, subtopic_query=subtopic_query, judged_doc=judged_doc.astype(np.int64),
                     judged_subtopic=judged_subtopic.astype(np.int64), judged_grade=grade,
                     row_query=row_query[row_of_pair], row_position=position[row_of_pair],
                     row_subtopic=judged_subtopic[pair].astype(np.int64), row_grade=grade[pair])
