"""Node frame -> judged rows: a node's ranking joined with its judgments, as the flat arrays of trec_eval's measures.

:func:`prepare_judged_rows` reads the document rows of one eval_mode and the judgments the frame carries per
query (``gold_document_ids`` with ``gold_document_relevance``, and ``nonrelevant_document_ids`` with
``nonrelevant_document_relevance`` when present), and lays them out for :func:`evalframe.metrics.trec.evaluate`;
:func:`trec_query_table` computes one row per evaluated query. The rules
(``docs/ir-researchers.md#measures-and-trec_evals-rules``):

* a query's ranking is its rows sorted by (rank ascending, document_id descending), trec_eval's tie-break;
  rows with document_id ``""`` (the placeholder of an empty retrieval) are not documents;
* a query's judged documents are ``gold_document_ids`` (grade from ``gold_document_relevance``, else 1; the
  entries ``"00"`` and ``""`` are not documents) and ``nonrelevant_document_ids`` (grade from
  ``nonrelevant_document_relevance``, else 0), read from the query's first row (the lists are per query, repeated
  on its rows). A document judged twice keeps its highest grade. The trec measures
  read ``document_id`` and ``gold_document_ids`` (the TREC ids), also when ``gold_custom_document_ids`` exists;
* a query with no judged document is not in the qrels: never evaluated. A query with no document row is not
  in the run: evaluated (all measures 0) only with ``complete=True`` (trec_eval ``-c``);
* a document twice in one query's ranking: SchemaError (trec_eval refuses such a run), or with
  ``duplicates="first"`` the best-ranked one is kept.

Everything is done on integer codes: one factorisation of the document ids and the judged ids; nothing loops per
row or per query but the one flattening of the list cells. A frame :func:`evalframe.sources.trec.trec_frame` built
(``EvaluationResult.from_trec``) hands over its codes instead: the rows' document codes while its key columns hold
the very objects it put there, and the judgments' codes while the judgment columns hold its very list cells (checked
by address on each query's first row), so no id is hashed again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .judged_codes import JudgedRows, row_grades
from .arrays import DistinctLists, SelectedLists, first_appearance_codes, first_rows, numeric_column, row_label, select_lists
from .._validation import require_columns
from .trec_codes import repeated_pairs
from .trec_layout import TrecLayout
from .trec_ranking import compact_codes
from ..columns import NO_ANSWER_DOCUMENT_ID
from ..errors import InvalidParameterError, SchemaError
from ..metrics.trec import Measure, evaluate, parse_measures
from ..metrics.trec_gain_kernels import relstrings
from ..metrics.trec_kernels import RankedRows

__all__ = ["JUDGMENT_COLUMNS", "DUPLICATE_RULES", "prepare_judged_rows", "trec_query_table", "relstring_series"]

#: The columns judged rows are read from (besides multilabel_id, type, eval_mode and rank).
JUDGMENT_COLUMNS = ("document_id", "gold_document_ids", "gold_document_relevance", "nonrelevant_document_ids",
                    "nonrelevant_document_relevance")

#: What ``duplicates`` may say: refuse a ranking with a document twice (trec_eval), or keep the best-ranked one.
DUPLICATE_RULES = ("error", "first")


def _strings(array: np.ndarray) -> np.ndarray:
    """An object array of ids as str (ids read as numbers are compared as their text, like trec_eval's)."""
    if len(array) and set(map(type, array)) - {str}:
        return np.asarray([value if isinstance(value, str) else str(value) for value in array], dtype=object)
    return array


def _ranking_order(query: np.ndarray, rank: np.ndarray) -> np.ndarray | None:
    """The order sorting rows by (query code, rank), stably; None when the frame is in that order already."""
    step = np.diff(query)
    if (step >= 0).all() and ((step > 0) | (np.diff(rank) >= 0)).all():
        return None
    return np.lexsort((rank, query))


def _tie_break(ids_of: Callable[[np.ndarray], np.ndarray], query: np.ndarray, rank: np.ndarray) -> np.ndarray | None:
    """For rows sorted by (query, rank): a key ordering the rows of equal (query, rank) by id descending
    (trec_eval's ``strcmp``: code point order), 0 elsewhere; None when no two rows tie. Only tied ids are sorted
    (``ids_of(rows)``: the ids of those rows)."""
    same = (np.diff(query) == 0) & (np.diff(rank) == 0)
    if not same.any():
        return None
    tied = np.zeros(len(query), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    codes, _ = pd.factorize(ids_of(np.flatnonzero(tied)), sort=True)
    key = np.zeros(len(query), dtype=np.int64)
    key[tied] = -codes.astype(np.int64)
    return key


def _judgments(frame: pd.DataFrame, first: np.ndarray, query_of_first: np.ndarray, lists: Callable[[str], DistinctLists],
               ids_column: str, grades_column: str, default_grade: int, where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query code, document id, grade) of every entry of ``ids_column`` in the rows ``first`` (one per query)."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64))
    if ids_column not in frame.columns:
        return empty
    ids: SelectedLists = select_lists(lists(ids_column), first, frame.index, column=ids_column, where=where,
                                      missing_as_empty=True)
    owner, element = ids.row_elements()
    flat_ids = ids.flat_objects()[element] if len(element) else np.zeros(0, dtype=object)
    if grades_column in frame.columns:
        grades = select_lists(lists(grades_column), first, frame.index, column=grades_column, where=where,
                              missing_as_empty=True)
        mismatch = np.flatnonzero(grades.row_lengths() != ids.row_lengths())
        if len(mismatch):
            row = row_label(frame.index, int(first[mismatch[0]]))
            raise SchemaError(f"{where}: row {row!r} has {int(ids.row_lengths()[mismatch[0]])} {ids_column} but "
                              f"{int(grades.row_lengths()[mismatch[0]])} {grades_column}; "
                              "they must be aligned, one grade per id.")
        flat = grades.flat_floats()
        _, grade_element = grades.row_elements()
        values = flat[grade_element] if len(grade_element) else np.zeros(0)
        if not np.isfinite(values).all() or (values != np.round(values)).any():
            bad = values[~np.isfinite(values) | (values != np.round(values))][0]
            raise SchemaError(f"{where}: column {grades_column!r} must hold integer grades (qrels relevance); got {bad!r}.")
        grade = values.astype(np.int64)
    else:
        grade = np.full(len(flat_ids), default_grade, dtype=np.int64)
    flat_ids = _strings(flat_ids)
    keep = (flat_ids != NO_ANSWER_DOCUMENT_ID) & (flat_ids != "")
    return query_of_first[owner][keep], flat_ids[keep], grade[keep]


def _first_rows(codes: np.ndarray, n_codes: int, *, ascending: bool) -> np.ndarray:
    """The row where each code 0..n_codes-1 first appears (codes numbered in order of first appearance). Codes known
    to be ascending (a layout's) are searched, n_codes binary searches instead of a pass over every row; the result
    is checked (every code present) and else found by the pass."""
    if ascending:
        found = np.searchsorted(codes, np.arange(n_codes))
        if (found < len(codes)).all() and np.array_equal(codes[np.minimum(found, len(codes) - 1)], np.arange(n_codes)):
            return found
    return first_rows(codes)


def _coded_judgments(frame: pd.DataFrame, layout: TrecLayout | None, first: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(query code, document code, grade) of the judgments trec_frame put in the list cells, the documents by code
    (``layout.doc_values``) and each row's document code, when the rows ``first`` (one per query) still hold those
    very cells and the ids are all text; else None."""
    judgments = layout.judgments if layout is not None else None
    if layout is None or judgments is None or not layout.text_ids or not judgments.holds(frame, first):
        return None
    return judgments.query, judgments.doc, judgments.grade, layout.doc_values, layout.row_doc  # "00" and "" left out


def _hashed_judgments(frame: pd.DataFrame, positions: np.ndarray, first: np.ndarray, n_queries: int,
                      lists: Callable[[str], DistinctLists], layout: TrecLayout | None, where: str
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The judgments read from the list cells, and one coding of their ids and the rows' document ids:
    (judged query, judged document code, judged grade, the ids by code, each row's document code, whether each row
    is a document) -- the last two for the rows ``positions`` (codes from ``layout`` when given)."""
    query_of_first = np.arange(n_queries, dtype=np.int64)
    gold = _judgments(frame, first, query_of_first, lists, "gold_document_ids", "gold_document_relevance", 1, where)
    other = _judgments(frame, first, query_of_first, lists, "nonrelevant_document_ids", "nonrelevant_document_relevance",
                       0, where)
    judged_query = np.concatenate([gold[0], other[0]])
    judged_ids = np.concatenate([gold[1], other[1]])
    judged_grade = np.concatenate([gold[2], other[2]])

    # the rows' document ids as codes into ``distinct`` (every row its own, or the layout's distinct ids)
    if layout is not None:
        row_code, distinct = layout.row_doc, layout.doc_values
    else:
        row_code, distinct = np.arange(len(positions)), frame["document_id"].iloc[positions].to_numpy(dtype=object)
    distinct = _strings(np.where(pd.isna(distinct), "", distinct).astype(object) if len(distinct) else distinct)
    document = (distinct != "")[row_code] if len(distinct) else np.zeros(len(row_code), dtype=bool)
    # one coding of every id (equal ids, equal codes): of the distinct ids and the judged ones
    id_codes, id_values = pd.factorize(np.concatenate([distinct, judged_ids]), sort=False)
    id_codes = id_codes.astype(np.int64, copy=False)
    return (judged_query, id_codes[len(distinct):], judged_grade, np.asarray(id_values, dtype=object),
            id_codes[:len(distinct)][row_code[document]], document)


def prepare_judged_rows(frame: pd.DataFrame, positions: np.ndarray, *, where: str, duplicates: str = "error",
                        lists: Callable[[str], DistinctLists] | None = None, layout: TrecLayout | None = None) -> JudgedRows:
    """Lay out the document rows at ``positions`` (one node, one eval_mode) and their queries' judgments.

    ``lists(column)`` gives a list column's distinct cells (default: every row its own cell); ``duplicates``
    is ``"error"`` or ``"first"`` (see the module). ``layout``: how :func:`evalframe.sources.trec.trec_frame` built
    the frame, checked with :meth:`~evalframe.frames.trec_layout.TrecLayout.holds` by the caller, with ``positions`` every
    row: the query and document codes are then taken from it instead of hashing the ids of every row.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "rank": [1, 2, 1], "document_id": ["d1", "d2", ""],
    ...                       "gold_document_ids": [["d2"], ["d2"], ["d9"]], "gold_document_relevance": [[2], [2], [1]]})
    >>> rows = prepare_judged_rows(frame, np.arange(3), where="node 'R'")
    >>> rows.grade.tolist(), rows.in_run.tolist()
    ([-4611686018427387904, 2], [True, False])
    """
    if duplicates not in DUPLICATE_RULES:
        raise InvalidParameterError(f"duplicates must be one of {list(DUPLICATE_RULES)}; got {duplicates!r}.")
    if lists is None:
        lists = lambda column: DistinctLists.of_rows(frame[column])  # noqa: E731
    require_columns(frame, ["multilabel_id", "rank", "document_id", "gold_document_ids"], where=where,
                    why="for the trec measures")
    if layout is not None:
        codes, query_ids = layout.row_query, layout.query_ids
    else:
        codes, query_ids = first_appearance_codes(frame["multilabel_id"], positions)
    n_queries = len(query_ids)
    rank = numeric_column(frame, "rank", where=where)[positions]
    if np.isnan(rank).any():
        position = int(positions[np.flatnonzero(np.isnan(rank))[0]])
        raise SchemaError(f"{where}: column 'rank' is empty in row {row_label(frame.index, position)!r}; every row needs a rank.")

    first = positions[_first_rows(codes, n_queries, ascending=layout is not None)]
    coded = _coded_judgments(frame, layout, first)
    if coded is not None:  # from_trec's judgments, unedited: the layout's codes, no id hashed
        judged_query, judged_doc, judged_grade, id_values, row_doc = coded
        document = (id_values != "")[row_doc]
    else:
        judged_query, judged_doc, judged_grade, id_values, row_doc, document = _hashed_judgments(
            frame, positions, first, n_queries, lists, layout, where)
    if document.all():  # no placeholder row: every row is a document, the arrays taken as they are (no copies)
        row_rank, row_query, row_frame = rank, codes, positions
    else:
        row_rank, row_query, row_frame = rank[document], codes[document], positions[document]
        row_doc = row_doc if coded is None else row_doc[document]  # the hashed codes are of the documents already
    width = max(len(id_values), 1)

    # judgments: one per (query, document), the highest grade; then sorted by query, grade descending
    judged_key = judged_query * width + judged_doc
    by_key = np.lexsort((-judged_grade, judged_key))
    judged_key, judged_grade, judged_query = judged_key[by_key], judged_grade[by_key], judged_query[by_key]
    unique = np.diff(judged_key, prepend=-1) != 0
    judged_key, judged_grade, judged_query = judged_key[unique], judged_grade[unique], judged_query[unique]
    by_grade = np.lexsort((-judged_grade, judged_query))

    # the ranking: query, rank ascending, document id descending (no copy when the rows are in that order)
    order = _ranking_order(row_query, row_rank)
    if order is None:
        tie_break = _tie_break(lambda rows: id_values[row_doc[rows]], row_query, row_rank)
        if tie_break is not None:
            order = np.lexsort((tie_break, row_rank, row_query))
    else:
        sorted_rows = order
        tie_break = _tie_break(lambda rows: id_values[row_doc[sorted_rows[rows]]], row_query[order], row_rank[order])
        if tie_break is not None:
            order = order[np.lexsort((tie_break, row_rank[order], row_query[order]))]
    if order is not None:
        row_query, row_doc, row_frame = row_query[order], row_doc[order], row_frame[order]
    # rows in ranking order: the first is the best; trec_frame's rows, unedited, hold distinct pairs (it checked)
    repeated = repeated_pairs(row_query, row_doc, n_queries, width) if coded is None else None
    if repeated is not None and repeated.any():
        if duplicates == "error":
            row = int(np.argmax(repeated))
            raise SchemaError(
                f"{where}: query {query_ids[row_query[row]]!r} ranks document {id_values[row_doc[row]]!r} twice "
                f"(row {row_label(frame.index, int(row_frame[row]))!r}); trec_eval refuses a run with duplicate documents. "
                "Remove the repeats, or pass duplicates='first' to keep the best-ranked one.")
        row_query, row_doc = row_query[~repeated], row_doc[~repeated]
    starts = np.searchsorted(row_query, np.arange(n_queries))
    position = np.arange(len(row_query), dtype=np.int64) - starts[row_query]
    grade = row_grades(row_query, row_doc, width, judged_key, judged_grade)

    in_run = np.bincount(row_query, minlength=n_queries) > 0
    in_qrels = np.bincount(judged_query, minlength=n_queries) > 0
    return JudgedRows(where=where, query_ids=np.asarray(query_ids, dtype=object), row_query=compact_codes(row_query),
                      position=compact_codes(position),
                      grade=grade, judged_query=judged_query[by_grade], judged_grade=judged_grade[by_grade],
                      in_run=in_run, in_qrels=in_qrels)


def trec_query_table(rows: JudgedRows, measures: str | Measure | Sequence[str | Measure], complete: bool = False) -> pd.DataFrame:
    """One row per evaluated query (index ``multilabel_id``, result order), one float64 column per measure.

    Queries trec_eval does not evaluate (not in the qrels; not in the run unless ``complete``) are absent.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1"], "rank": [1, 2], "document_id": ["d1", "d2"],
    ...                       "gold_document_ids": [["d2"], ["d2"]]})
    >>> trec_query_table(prepare_judged_rows(frame, np.arange(2), where="node 'R'"), ["RR", "P@1"])
                    RR  P@1
    multilabel_id
    q1             0.5  0.0
    """
    parsed = parse_measures(measures)
    values = evaluate(parsed, row_query=rows.row_query, position=rows.position, grade=rows.grade,
                      judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries,
                      subtopics=rows.subtopics)
    evaluated = rows.evaluated(complete)
    index = pd.Index(rows.query_ids[evaluated], name="multilabel_id", dtype=object)
    return pd.DataFrame({name: column[evaluated] for name, column in values.items()}, index=index, dtype=np.float64)


def relstring_series(rows: JudgedRows, length: int, complete: bool = False) -> pd.Series:
    """trec_eval's ``relstring`` of each evaluated query (``m_relstring.c``; index ``multilabel_id``, result order):
    one character per document of its top ``length`` (:func:`evalframe.metrics.trec_gain_kernels.relstrings`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1"], "rank": [1, 2], "document_id": ["d1", "d2"],
    ...                       "gold_document_ids": [["d2"], ["d2"]], "gold_document_relevance": [[12], [12]]})
    >>> relstring_series(prepare_judged_rows(frame, np.arange(2), where="node 'R'"), 3).to_dict()
    {'q1': '->'}
    """
    ranked = RankedRows(row_query=rows.row_query, position=rows.position, grade=rows.grade,
                        judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries)
    evaluated = rows.evaluated(complete)
    return pd.Series(relstrings(ranked, max(length, 0))[evaluated], index=pd.Index(
        rows.query_ids[evaluated], name="multilabel_id"), dtype=object, name="relstring")
