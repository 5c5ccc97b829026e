"""TREC tables <-> a document node frame (``docs/persistence.md#trec-run-and-qrels-files``).

:func:`trec_frame` turns a ranked run (``qid, docid, score, rank``) and qrels (``qid, docid, relevance``), as
:mod:`evalframe.sources.trec_files` reads them, into the node frame :meth:`EvaluationResult.from_runs` builds for a retriever
whose gold labels carry only document ids, plus the TREC columns ``score``, ``gold_document_relevance``,
``nonrelevant_document_ids`` and ``nonrelevant_document_relevance``. :func:`run_from_frame` and
:func:`qrels_from_frame` go back: any document node frame to the run and qrels tables trec_eval reads.
:func:`trec_frame_coded` hands the frame's :class:`TrecLayout` back with it, and takes the :class:`TableCodes` the
readers return with their frames: codes travel beside the frames, explicitly (``evalframe.frames.codings``).
Both build the frame from the tables as codes (:class:`CodedTable`) through a :class:`TrecNodeSource`, which makes
each column on demand: ``EvaluationResult.from_trec`` holds its node so (a pending frame, ``evalframe.frames.pending``),
the tables read by :func:`read_coded_tables` (a file's docids stay an Arrow dictionary), and the trec measures rank
its codes without any column; :func:`read_trec` (the source ``trec``) returns that node built.
trec_eval's ranking order and the id codes live in :mod:`evalframe.frames.trec_codes`, the layout and the codes
handed over in :mod:`evalframe.frames.trec_layout`. Everything is vectorised over rows; the only Python work per
query or per distinct cell is making the list cells, each shared by the rows that hold the same list (as the frames
``from_runs`` and ``load`` give).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import _validation as check
from .._locations import check_storage_options
from .._progress import Steps, enabled
from ..columns import COLUMN_ORDER, NO_ANSWER_DOCUMENT_ID
from ..errors import InvalidParameterError, SchemaError, warn
from ..frames.judged_codes import trec_judged_rows
from ..frames.pending import PendingFrame
from ..options import MatchingOptions
from .assemble import Built
from .flatten import numbered_per_query
from ..frames.trec_codes import factorized, repeated_pairs
from .irds import is_irds, irds_qrels
from .trec_arrow import (QRELS_FORMAT, RUN_FORMAT, ArrowColumns, arrow_trec_order, memory_pool, numpy_of,
                         read_arrow)
from .trec_files import (QrelsInput, RunInput, collapse_subtopics, read_qrels, read_qrels_coded, read_queries,
                         read_run_coded)
from .trec_frames import Frame, frame_columns, is_frame
from .trec_stream import TrecSource, checked_source, remote_source
from ..frames.trec_layout import TableCodes, TrecJudgments, TrecLayout
from ..frames.trec_ranking import (as_trec_scores, compact_codes, query_order_positions, ranks_within,
                                   trec_order_codes)

__all__ = ["TREC_COLUMNS", "TrecFrame", "CodedTable", "TrecNodeSource", "is_text", "one_coding", "trec_frame",
           "trec_frame_coded", "coded_tables", "read_coded_tables", "run_table",
           "run_from_frame", "qrels_from_frame", "read_trec"]

#: The columns a TREC build adds to the standard document columns, in this order after them.
TREC_COLUMNS: tuple[str, ...] = ("score", "gold_document_relevance", "nonrelevant_document_ids",
                                 "nonrelevant_document_relevance")
#: Document ids that stand for "no document" in gold lists (Haystack's no-answer id, and the empty id).
_NOT_DOCUMENTS = frozenset({NO_ANSWER_DOCUMENT_ID, ""})
#: The ``type`` and ``eval_mode`` of every row trec_frame builds: one object each, which its layout names.
_DOCUMENT, _INTEGRATED = "document", "integrated"


# ------------------------------------------------------------------------------------------ TREC -> frame
def query_order(run_qids: Sequence[Any] | np.ndarray, qrels_qids: Sequence[Any] | np.ndarray) -> np.ndarray:
    """The result's queries: the run's, in its order; a query only in the qrels follows the query before it there.

    So two files that list their queries in one order give that order (qrels-only queries before every run query
    when nothing precedes them in the qrels). The order itself is
    :func:`evalframe.frames.trec_ranking.query_order_positions` (``evalframe trec``'s columnar path uses it too).

    Examples
    --------
    >>> query_order(["q1", "q3"], ["q1", "q2", "q3", "q0"]).tolist()
    ['q1', 'q2', 'q3', 'q0']
    """
    run_unique = pd.unique(np.asarray(run_qids, dtype=object))
    qrels_unique = pd.unique(np.asarray(qrels_qids, dtype=object))
    in_run = pd.Index(run_unique).get_indexer(qrels_unique)  # position in the run, -1 if only in the qrels
    everything = np.r_[run_unique, qrels_unique[in_run < 0]].astype(object)
    return everything[query_order_positions(in_run, len(run_unique))]


def _object_array(cells: Sequence[Any]) -> np.ndarray:
    """An object array holding ``cells`` as they are (lists stay list objects, not a second dimension)."""
    array = np.empty(len(cells), dtype=object)
    for i, cell in enumerate(cells):
        array[i] = cell
    return array


def _split(values: np.ndarray, codes: np.ndarray, n: int) -> list[list[Any]]:
    """``values`` (sorted by ``codes``) as one list per code 0..n-1."""
    bounds = np.searchsorted(codes, np.arange(n + 1)).tolist()
    flat = values.tolist()
    return [flat[start:end] for start, end in zip(bounds[:-1], bounds[1:])]


def one_coding(first: np.ndarray, second: np.ndarray, first_arrow: Any = None, second_arrow: Any = None, *,
               extra: Sequence[Any] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One coding of two arrays of distinct values: ``(first_codes, second_codes, values)``, ``values[first_codes]``
    is ``first`` and ``values[second_codes]`` is ``second``; ``values`` is ``first`` followed by the values only in
    ``second``, in their order: the coding :func:`factorized` gives ``first`` and ``second`` concatenated.

    Strings are matched in Arrow (hashing their UTF-8 bytes, not Python objects);
    ``first_arrow`` / ``second_arrow``, when given, are the same values as Arrow string arrays (a reader's).
    ``extra``: values appended to ``values`` after the coded ones (no code points at them), in the same one copy.

    Examples
    --------
    >>> first, second, values = one_coding(np.array(["a", "b"], dtype=object), np.array(["c", "a"], dtype=object))
    >>> first.tolist(), second.tolist(), values.tolist()
    ([0, 1], [2, 0], ['a', 'b', 'c'])
    """
    in_first = _arrow_positions(first, second, first_arrow, second_arrow)
    if in_first is None:
        codes, values = factorized(np.concatenate([first, second]))
        return codes[:len(first)], codes[len(first):], np.concatenate([values, _object_array(list(extra))])
    second_codes = np.full(len(second), -1, dtype=np.int64)
    found = np.flatnonzero(in_first >= 0)
    second_codes[in_first[found]] = found
    only = np.flatnonzero(second_codes < 0)
    second_codes[only] = len(first) + np.arange(len(only))
    values = np.concatenate([first, second[only], _object_array(list(extra))]).astype(object, copy=False)
    return np.arange(len(first), dtype=np.int64), second_codes, values


def is_text(values: np.ndarray) -> bool:
    """Whether every value of the object array is a str (one pass in C).

    Examples
    --------
    >>> is_text(np.array(["a", "b"], dtype=object)), is_text(np.array(["a", 1], dtype=object))
    (True, False)
    """
    return pd.api.types.infer_dtype(values, skipna=False) in ("string", "empty")


def _arrow_positions(first: np.ndarray, second: np.ndarray, left: Any = None, right: Any = None) -> np.ndarray | None:
    """For each value of ``first``, its position in ``second`` (-1: absent), matched in Arrow; None when a value is
    not a str. ``left`` / ``right``: ``first`` / ``second`` as Arrow string arrays, if known."""
    given = [array if isinstance(array, pa.Array) and array.type == pa.string()
             and len(array) == len(values) else None for array, values in ((left, first), (right, second))]
    if not all(array is not None or is_text(values) for array, values in zip(given, (first, second))):
        return None  # a number, bytes, None ...: factorised as Python objects (1 and "1" stay apart)
    try:
        left, right = (array if array is not None else pa.array(values, type=pa.string())
                       for array, values in zip(given, (first, second)))
    except (pa.ArrowException, UnicodeError):
        return None  # a lone surrogate
    if left.null_count or right.null_count:
        return None
    return pc.index_in(left, value_set=right).fill_null(-1).to_numpy().astype(np.int64, copy=False)


class TrecFrame(NamedTuple):
    """What :func:`trec_frame_coded` builds: the node frame and how its key columns were made from codes."""

    frame: pd.DataFrame
    layout: TrecLayout


@dataclass(frozen=True, eq=False)
class CodedTable:
    """A TREC run or qrels table as codes: the rows' query codes into ``qids`` (an object array, numbered in order of
    first appearance), their document codes into the distinct docids, ``docids`` (an object array) or
    ``docids_arrow`` (an Arrow string array, a reader's dictionary: no Python str per docid) or both, the values (a
    run's float64 scores, the qrels' int64 grades); a run's ``ranks`` (1..n within a query). A run's rows are in
    trec_eval's order, the qrels' grouped by query; every (query, document) pair once (checked by whoever made it).

    Parameters
    ----------
    qid_codes : numpy.ndarray
        Each row's query code, into ``qids``.
    qids : numpy.ndarray
        The distinct query ids (object array), in order of first appearance.
    docid_codes : numpy.ndarray
        Each row's document code, into ``docids`` / ``docids_arrow``.
    docids : numpy.ndarray or None
        The distinct docids (object array); None when only ``docids_arrow`` holds them.
    values : numpy.ndarray
        Each row's score (float64, a run) or grade (int64, qrels).
    ranks : numpy.ndarray or None
        A run's rank per row (1..n within a query); None for qrels.
    docids_arrow : pyarrow.StringArray or None
        The distinct docids as Arrow strings (a reader's dictionary), or None.

    Examples
    --------
    >>> table = CodedTable(np.array([0, 0]), np.array(["q1"], dtype=object), np.array([1, 0]),
    ...                    np.array(["d1", "d2"], dtype=object), np.array([2.0, 1.0]), np.array([1, 2]))
    >>> table.docid_objects()[table.docid_codes].tolist()
    ['d2', 'd1']
    """

    qid_codes: np.ndarray
    qids: np.ndarray
    docid_codes: np.ndarray
    docids: np.ndarray | None
    values: np.ndarray
    ranks: np.ndarray | None = None
    docids_arrow: Any = None

    @property
    def n_docids(self) -> int:
        return len(self.docids) if self.docids is not None else len(self.docids_arrow)

    def docid_objects(self) -> np.ndarray:
        """The distinct docids as an object array (``docids``, else the Arrow dictionary's strings, made here)."""
        if self.docids is not None:
            return self.docids
        return np.asarray(self.docids_arrow.to_numpy(zero_copy_only=False), dtype=object)


def trec_frame(run: pd.DataFrame, qrels: pd.DataFrame, *, node: str = "Retriever",
               queries: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The document node frame of a TREC run and its qrels (columns: ``docs/persistence.md#trec-run-and-qrels-files``).

    Parameters
    ----------
    run : pandas.DataFrame
        ``qid, docid, score, rank``, ranked and grouped by query (as :func:`evalframe.sources.trec_files.read_run` returns it).
    qrels : pandas.DataFrame
        ``qid, docid, relevance`` (as :func:`evalframe.sources.trec_files.read_qrels` returns it).
    node : str
        The ``node`` column's value.
    queries : dict, optional
        Query texts by qid for the ``query`` column; a qid missing there (or without ``queries``) is its own text.

    See Also
    --------
    trec_frame_coded : the same frame with its :class:`TrecLayout`, from the readers' codes.
        A frame built here and put in a result by hand has no layout: its ids are hashed again when the trec
        measures first rank it (the same numbers, slower); hand the layout over with
        ``EvaluationResult(frames, codings=Codings({node: NodeCoding(trec=layout)}))`` to keep the codes.
    TrecNodeSource : the same frame's columns, each made when asked for (what ``from_trec`` holds).

    Examples
    --------
    >>> run = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["d2", "d1"], "score": [2.0, 1.0], "rank": [1, 2]})
    >>> qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["d1", "d9", "d4"], "relevance": [2, 0, 1]})
    >>> frame = trec_frame(run, qrels)
    >>> frame[["multilabel_id", "rank", "document_id", "score", "gold_id_match", "gold_document_ids"]]
      multilabel_id  rank document_id  score  gold_id_match gold_document_ids
    0            q1     1          d2    2.0            0.0              [d1]
    1            q1     2          d1    1.0            1.0              [d1]
    2            q2     1                NaN            0.0              [d4]
    """
    return trec_frame_coded(run, qrels, node=node, queries=queries).frame


def trec_frame_coded(run: pd.DataFrame, qrels: pd.DataFrame, *, node: str = "Retriever",
                     queries: Mapping[str, str] | None = None, run_codes: TableCodes | None = None,
                     qrels_codes: TableCodes | None = None) -> TrecFrame:
    """:func:`trec_frame`, and the :class:`TrecLayout` of the frame it builds, handed back with it.

    ``run_codes`` / ``qrels_codes``: the codes a reader returned with ``run`` / ``qrels``
    (:func:`evalframe.sources.trec_files.read_run_coded`); a column they no longer hold is hashed instead.
    The tables become codes (:func:`coded_tables`), and the codes the columns (:class:`TrecNodeSource`).

    Examples
    --------
    >>> run = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["d2", "d1"], "score": [2.0, 1.0], "rank": [1, 2]})
    >>> qrels = pd.DataFrame({"qid": ["q1"], "docid": ["d1"], "relevance": [1]})
    >>> frame, layout = trec_frame_coded(run, qrels)
    >>> layout.holds(frame), layout.doc_values[layout.row_doc].tolist()
    (True, ['d2', 'd1'])
    """
    source = TrecNodeSource(*coded_tables(run, qrels, run_codes, qrels_codes), node=node, queries=queries)
    # one block per column, each array the frame's own (no copy into consolidated blocks)
    frame = pd.DataFrame({name: source.column(name) for name in source.names}, copy=False)
    return TrecFrame(frame, source.layout())


def coded_tables(run: pd.DataFrame, qrels: pd.DataFrame, run_codes: TableCodes | None = None,
                 qrels_codes: TableCodes | None = None) -> tuple[CodedTable, CodedTable]:
    """The run and the qrels frames as :class:`CodedTable`: a reader's codes when the id columns still hold them,
    else hashed; each (qid, docid) pair checked to be distinct (unless a reader checked it and the frame is unedited).

    Examples
    --------
    >>> run, qrels = coded_tables(pd.DataFrame({"qid": ["q1"], "docid": ["d1"], "score": [1.0], "rank": [1]}),
    ...                           pd.DataFrame({"qid": ["q1"], "docid": ["d1"], "relevance": [1]}))
    >>> run.docid_codes.tolist(), qrels.values.tolist()
    ([0], [1])
    """
    return _coded_table("run", run, run_codes), _coded_table("qrels", qrels, qrels_codes)


def _coded_table(name: str, table: pd.DataFrame, codes: TableCodes | None) -> CodedTable:
    """:func:`coded_tables` of one table (``name``: "run" or "qrels")."""
    coded = {column: codes.column(table, column) if codes is not None else None for column in ("qid", "docid")}
    (q, qids), (d, docids) = (coded[column] or factorized(table[column].to_numpy(dtype=object))
                              for column in ("qid", "docid"))
    arrow = codes.arrow_values("docid") if codes is not None and coded["docid"] is not None else None
    if not (coded["qid"] is not None and coded["docid"] is not None and codes is not None
            and codes.distinct_pairs(table, "qid", "docid", columns_hold=True)):  # else: a reader's frame, unedited
        repeated = repeated_pairs(q, d, len(qids), len(docids))
        if repeated.any():
            row = table.iloc[int(np.flatnonzero(repeated)[0])]
            raise InvalidParameterError(f"the {name} lists document {row['docid']!r} twice in query {row['qid']!r}; "
                                        "trec_eval refuses duplicate documents (read the files with "
                                        "evalframe.sources.trec_files, which names the line).")
    values = table["score" if name == "run" else "relevance"].to_numpy(dtype=np.float64 if name == "run" else np.int64)
    ranks = table["rank"].to_numpy(dtype=np.int64) if name == "run" else None
    return CodedTable(np.asarray(q), qids, np.asarray(d), docids, values, ranks,
                      arrow if arrow is not None and _is_arrow_text(arrow, len(docids)) else None)


def read_coded_tables(run: RunInput, qrels: QrelsInput) -> tuple[CodedTable, CodedTable]:
    """The run and the qrels as :class:`CodedTable`, read from files or dicts (what ``from_trec`` reads).

    A file is read by the TREC reader (:func:`evalframe.sources.trec_arrow.read_arrow`, whose errors name the file
    and the line) and stays columns: the ids as codes into Arrow dictionaries (no Python str per docid), the run put
    in trec_eval's order (no sort when the file is in that order already). A dict is read by
    :func:`evalframe.sources.trec_files.read_run_coded` / ``read_qrels_coded``, whose errors name the qid and docid.
    Qrels ``"irds:<id>"`` or an ir_datasets dataset are read through ir_datasets into the reader's columns
    (:func:`evalframe.sources.irds.irds_qrels`).

    Examples
    --------
    >>> run, qrels = read_coded_tables({"q1": {"d1": 1.0, "d2": 2.0}}, {"q1": {"d1": 1}})
    >>> run.docid_objects()[run.docid_codes].tolist(), run.ranks.tolist(), qrels.values.tolist()
    (['d2', 'd1'], [1, 2], [1])
    """
    if isinstance(run, Mapping):
        empty = [qid for qid, documents in run.items() if isinstance(documents, Mapping) and not documents]
        if empty:
            warn(f"the run dict gives {len(empty)} quer{'y' if len(empty) == 1 else 'ies'} no document (e.g. "
                 f"{empty[:3]}): read as queries the run retrieves nothing for, as in a run file, which the trec "
                 "measures skip (complete=True scores them 0, with every other judged query the run lacks); "
                 "pytrec_eval scores such a query 0.")
    if is_frame(run) or is_frame(qrels):
        return _frame_tables(run, qrels)
    run_table = (_coded_table("run", *read_run_coded(run)) if isinstance(run, Mapping)
                 else _arrow_table(checked_source(run, "run"), ranked=True))
    if is_irds(qrels):  # "irds:<id>" or a dataset object: the reader's columns, made by ir_datasets' records
        return run_table, _columns_table(irds_qrels(qrels), ranked=False)
    return run_table, (_coded_table("qrels", *read_qrels_coded(qrels)) if isinstance(qrels, Mapping)
                       else _arrow_table(checked_source(qrels, "qrels"), ranked=False))


def _frame_tables(run: Any, qrels: Any) -> tuple[CodedTable, CodedTable]:
    """:func:`read_coded_tables` when the run or the qrels (or both) is a frame (pandas, Arrow, polars): a frame's
    columns are read as a file's (:func:`evalframe.sources.trec_frames.frame_columns`), the other input as before."""
    def table(value: Any, what: str) -> CodedTable:
        if is_frame(value):
            return _columns_table(frame_columns(value, what), ranked=what == "run")
        # the other input read by read_coded_tables' own dispatch (a file, a dict), beside an empty partner
        return read_coded_tables(value, {})[0] if what == "run" else read_coded_tables({}, value)[1]

    return table(run, "run"), table(qrels, "qrels")


def _arrow_table(source: TrecSource, *, ranked: bool) -> CodedTable:
    """A run (``ranked``) or qrels file read by the TREC reader (which refuses a docid twice in a query, naming the
    line) as a :class:`CodedTable`."""
    return _columns_table(read_arrow(source, RUN_FORMAT if ranked else QRELS_FORMAT), ranked=ranked)


def run_table(columns: ArrowColumns) -> CodedTable:
    """A run's columns in file order (as :func:`evalframe.sources.trec_arrow.read_arrow` reads them, docids encoded,
    every (query, docid) pair once) as the :class:`CodedTable` ``from_trec`` builds its node of: the rows in
    trec_eval's order (score descending, ties by docid descending), ranked 1..n per query. ``evalframe.dask.from_trec``
    builds each partition's node from its rows so.

    Examples
    --------
    >>> from evalframe.sources.trec_arrow import string_array
    >>> columns = ArrowColumns(np.array([0, 0], dtype=np.int32), string_array(["q1"]), np.array([0, 1], dtype=np.int32),
    ...                        string_array(["d1", "d2"]), np.array([1.0, 1.0]))
    >>> table = run_table(columns)
    >>> table.docid_objects()[table.docid_codes].tolist(), table.ranks.tolist()
    (['d2', 'd1'], [1, 2])
    """
    return _columns_table(columns, ranked=True)


def _columns_table(columns: ArrowColumns, *, ranked: bool) -> CodedTable:
    """A run's (``ranked``) or qrels' columns as the TREC reader returns them (a file's, or a frame's) as a
    :class:`CodedTable`: a run in trec_eval's order, qrels grouped by query."""
    if ranked:
        order, ranks = _trec_order(columns)
    else:  # grouped by query, in order of first appearance; a query's judgments in file order
        order, ranks = np.argsort(columns.qid_codes, kind="stable"), None
    assert columns.docid_codes is not None  # read with its docids encoded
    query = columns.qid_codes if order is None else columns.qid_codes[order]
    doc = columns.docid_codes if order is None else columns.docid_codes[order]
    values = columns.values if order is None else columns.values[order]
    qids = np.asarray(columns.qids.to_numpy(zero_copy_only=False), dtype=object)
    return CodedTable(query, qids, doc, None, values, ranks, columns.docids)  # the reader's int32 codes, no copy


def _trec_order(run: ArrowColumns) -> tuple[np.ndarray | None, np.ndarray]:
    """The run's rows in trec_eval's order (None: they are in it) and their ranks."""
    assert run.docid_codes is not None  # read with its docids encoded
    order = arrow_trec_order(run.qid_codes, run.values, run.docids, run.docid_codes)
    return order, ranks_within(run.qid_codes if order is None else run.qid_codes[order])


def _is_arrow_text(array: Any, n: int) -> bool:
    """Whether ``array`` is an Arrow string array of ``n`` values, none missing."""
    return isinstance(array, pa.Array) and array.type == pa.string() and len(array) == n and not array.null_count


class _Ids:
    """The run's and the qrels' ids as codes: query codes into ``run_qids`` / ``judged_qids``, document codes into
    one coding of both tables' docids (the run's, then those only in the qrels), then the placeholder's ``""``
    (code ``n_docs``). The docids stay as the tables give them (Arrow, when a reader's) until :meth:`doc_values`."""

    def __init__(self, run: CodedTable, qrels: CodedTable) -> None:
        self.run_q, self.run_qids = run.qid_codes, run.qids
        self.judged_q, self.judged_qids = qrels.qid_codes, qrels.qids
        in_qrels = _in_arrow(run.docids_arrow, qrels.docids_arrow)
        if in_qrels is None:  # not both Arrow: one coding of the objects (matched in Arrow when they are text)
            run_map, judged_map, values = one_coding(run.docid_objects(), qrels.docid_objects(), run.docids_arrow,
                                                     qrels.docids_arrow, extra=[""])
            self._values: np.ndarray | None = values
            self.n_docs = len(values) - 1
        else:  # the run's coding kept; the qrels' docids only there follow the run's
            n_run = run.n_docids
            judged_map = np.full(qrels.n_docids, -1, dtype=np.int64)
            found = np.flatnonzero(in_qrels >= 0)
            judged_map[in_qrels[found]] = found
            only = np.flatnonzero(judged_map < 0)
            judged_map[only] = n_run + np.arange(len(only))
            run_map = np.arange(n_run, dtype=np.int64)
            self._values = None
            self._parts = (run, qrels, only)
            self.n_docs = n_run + len(only)
        self.run_doc = run_map[run.docid_codes] if in_qrels is None else run.docid_codes  # the run's coding kept
        self.judged_doc = judged_map[qrels.docid_codes]
        self.judged_map = judged_map  # each distinct judged docid's code
        self.judged_table = qrels

    def doc_values(self) -> np.ndarray:
        """The docids by code (an object array, ``""`` last), made once."""
        if self._values is None:
            run, qrels, only = self._parts
            self._values = np.concatenate([run.docid_objects(), qrels.docid_objects()[only],
                                           _object_array([""])]).astype(object, copy=False)
        return self._values

    def judged_codes_of(self, text: str) -> np.ndarray:
        """The codes of the judged docids equal to ``text`` (compared in Arrow when the qrels' docids are)."""
        table = self.judged_table
        if table.docids is not None:
            return self.judged_map[np.flatnonzero(np.asarray(table.docids == text, dtype=bool))]
        return self.judged_map[np.flatnonzero(pc.equal(table.docids_arrow, text).to_numpy(zero_copy_only=False))]


def _in_arrow(first: Any, second: Any) -> np.ndarray | None:
    """For each value of the Arrow string array ``first``, its position in ``second`` (-1: absent: the set hashed is
    ``second``, the qrels' docids); None unless both are Arrow string arrays."""
    if first is None or second is None:
        return None
    return numpy_of(pc.index_in(first, value_set=second, memory_pool=memory_pool()), null=-1).astype(np.int64)


@dataclass(frozen=True)
class _Rows:
    """The frame's rows (the run's, and one placeholder per query only in the qrels), grouped by query: query code
    (ascending, into the query order), document code, score and rank."""

    query: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    rank: np.ndarray


def _rows(run: CodedTable, ids: _Ids, index: pd.Index) -> _Rows:
    """The run's rows and a placeholder row (document_id ``""``, rank 1, no score) per query only in the qrels."""
    placeholder = np.flatnonzero(~index.isin(ids.run_qids))  # queries only in the qrels: one row each, document_id ""
    row_query = compact_codes(index.get_indexer(ids.run_qids))[ids.run_q]  # type: ignore[arg-type]  # (an array)
    row_doc = ids.run_doc
    assert run.ranks is not None  # a run's table
    # the node's own arrays (a reader's, else copies: never a view of the run frame's)
    row_score = np.r_[run.values.astype(np.float64, copy=False), np.full(len(placeholder), np.nan)] \
        if len(placeholder) or not _owned(run.values, np.float64) else run.values
    row_rank = np.r_[run.ranks.astype(np.int64, copy=False), np.ones(len(placeholder), dtype=np.int64)] \
        if len(placeholder) or not _owned(run.ranks, np.int64) else run.ranks
    if len(placeholder):
        row_query = np.r_[row_query, placeholder]
        row_doc = np.r_[ids.run_doc, np.full(len(placeholder), ids.n_docs, dtype=np.int64)]
    if not (np.diff(row_query) >= 0).all():
        by_query = np.argsort(row_query, kind="stable")
        row_query, row_doc, row_score, row_rank = row_query[by_query], row_doc[by_query], row_score[by_query], row_rank[by_query]
    return _Rows(row_query, row_doc, row_score, row_rank)


def _owned(array: np.ndarray, dtype: type) -> bool:
    """Whether ``array`` is of ``dtype``, writeable and owns its memory (no view of another array's)."""
    return array.dtype == dtype and array.flags.writeable and array.base is None


@dataclass(frozen=True)
class _Judged:
    """The qrels per query: each judgment's query code and grade, a relevant one's position in its query's gold
    list, the judgments of the gold and of the other list cells (each by query, file order within), those the
    measures count (``"00"`` and ``""`` left out) in list order, and the number of gold documents per query."""

    query: np.ndarray
    grades: np.ndarray
    positions: np.ndarray
    listed: tuple[np.ndarray, np.ndarray]
    counted: np.ndarray
    n_gold: np.ndarray


def _judgments(qrels: CodedTable, ids: _Ids, index: pd.Index, order: np.ndarray) -> _Judged:
    """Judgments per query (file order): relevant (grade > 0) and not (grade <= 0), as codes."""
    n_queries = len(order)
    judged_query = index.get_indexer(ids.judged_qids)[ids.judged_q]  # type: ignore[arg-type]
    grades = np.asarray(qrels.values, dtype=np.int64)
    # the codes of the judged ids that are no document ("00", ""): found among the distinct judged ids, not every docid
    not_documents = [ids.judged_codes_of(text) for text in (NO_ANSWER_DOCUMENT_ID, "")]
    no_answer = (np.flatnonzero(np.isin(ids.judged_doc, not_documents[0])) if len(not_documents[0])
                 else np.zeros(0, np.int64))
    if len(no_answer):
        warn(f"the qrels judge a document with id {NO_ANSWER_DOCUMENT_ID!r} (query {order[judged_query[no_answer[0]]]!r}"
             f"{f' and {len(no_answer) - 1} more' if len(no_answer) > 1 else ''}): that id is Haystack's no-answer id, so "
             "evalframe's metrics and to_qrels do not count it as a judged document.")
    positions = np.zeros(len(grades), dtype=np.int64)  # a relevant document's position in its query's gold list
    listed = []  # the judgments in the order of the list cells: gold ones by query, then the others by query
    for name, chosen in (("gold", grades > 0), ("nonrelevant", grades <= 0)):
        rows = np.flatnonzero(chosen)
        rows = rows[np.argsort(judged_query[rows], kind="stable")]
        listed.append(rows)
        if name == "gold":
            positions[rows] = ranks_within(judged_query[rows]) - 1
    counted = np.concatenate(listed)
    not_counted = np.concatenate(not_documents)
    if len(not_counted):  # the measures do not count "00" and "" (the cells keep them)
        counted = counted[~np.isin(ids.judged_doc[counted], not_counted)]
    n_gold = np.bincount(judged_query[grades > 0], minlength=n_queries).astype(np.int64)
    return _Judged(judged_query, grades, positions, (listed[0], listed[1]), counted, n_gold)


def _judgment_cells(judged: _Judged, doc_values: np.ndarray, judged_doc: np.ndarray, n_queries: int
                    ) -> dict[str, np.ndarray]:
    """The judgment list cells, one list object per query code, by column."""
    cells = {}
    for name, rows in zip(("gold", "nonrelevant"), judged.listed):
        codes = judged.query[rows]
        cells[f"{name}_document_ids"] = _object_array(_split(doc_values[judged_doc[rows]], codes, n_queries))
        cells[f"{name}_document_relevance"] = _object_array(_split(judged.grades[rows], codes, n_queries))
    return cells


def _gold_hits(rows: _Rows, ids: _Ids, judged: _Judged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which rows hold a gold document: ``(hit per row, matched rows ascending, the position of each one's document
    in its query's gold list)``.

    Integer keys (query, document), one sorted search of the rows whose document is gold in some query (a bitmap
    picks them).
    """
    relevant = np.flatnonzero(judged.grades > 0)
    width = ids.n_docs + 1  # the placeholder's code included
    gold_keys = judged.query[relevant].astype(np.int64) * width + ids.judged_doc[relevant]
    by_key = np.argsort(gold_keys)
    gold_keys, gold_positions = gold_keys[by_key], judged.positions[relevant][by_key]
    hit = np.zeros(len(rows.query), dtype=bool)
    matched, matched_position = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(gold_keys):
        gold_document = np.zeros(width, dtype=bool)
        gold_document[ids.judged_doc[relevant]] = True
        candidates = np.flatnonzero(gold_document[rows.doc])
        keys = rows.query[candidates].astype(np.int64) * width + rows.doc[candidates]  # codes may be int32
        at = np.minimum(np.searchsorted(gold_keys, keys), len(gold_keys) - 1)
        found_at = gold_keys[at] == keys
        matched, matched_position = candidates[found_at], gold_positions[at[found_at]]
        hit[matched] = True
    return hit, matched, matched_position


def _id_match_cells(row_query: np.ndarray, matched: np.ndarray, matched_position: np.ndarray,
                    n_gold: np.ndarray) -> np.ndarray:
    """The ``gold_documents_id_match`` column: per query one all-zero list, and one list per gold document retrieved,
    each row holding its query's or its document's list object."""
    n_queries = len(n_gold)
    zero_lists = [[0.0] * int(n) for n in n_gold]
    pair_width = int(n_gold.max(initial=0)) + 1
    pair_keys = row_query[matched].astype(np.int64) * pair_width + matched_position
    pair_values, pair_code = np.unique(pair_keys, return_inverse=True)
    one_hot = []
    for key in pair_values.tolist():
        query, position = divmod(key, pair_width)
        cell = [0.0] * int(n_gold[query])
        cell[position] = 1.0
        one_hot.append(cell)
    id_match_cells = _object_array(zero_lists + one_hot)
    id_match_code = row_query.copy()
    id_match_code[matched] = n_queries + np.asarray(pair_code).reshape(-1)
    return id_match_cells[id_match_code]


#: The columns of a TREC node frame, in the frame's order (COLUMN_ORDER's, then the TREC columns).
_FRAME_COLUMNS = ("multilabel_id", "query", "filters", "gold_answers", "context", "gold_contexts", "gold_id_match",
                  "context_match", "answer_match", "gold_id_or_answer_match", "gold_id_and_answer_match",
                  "gold_id_or_context_match", "gold_id_and_context_match", "gold_id_and_context_and_answer_match",
                  "context_and_answer_match", "rank", "document_id", "gold_document_ids", "gold_documents_id_match",
                  "gold_contexts_similarity", "gold_answers_match", "type", "node", "eval_mode", "index") + TREC_COLUMNS
#: The match columns that are 0.0 on every row of a TREC node (it has no answers and no contexts).
_ZERO_COLUMNS = frozenset({"context_match", "answer_match", "gold_id_and_answer_match", "gold_id_and_context_match",
                           "gold_id_and_context_and_answer_match", "context_and_answer_match"})


class TrecNodeSource:
    """The node frame of a TREC run and its qrels held as codes, each column made when asked for
    (a :class:`evalframe.frames.pending.ColumnSource`; ``EvaluationResult.from_trec`` holds its node so).

    Made from the two tables as codes (:class:`CodedTable`): the query order, the rows (the run's, then a placeholder
    per query only in the qrels) and the judgments as codes, in numpy; the docids stay as the tables give them (an
    Arrow dictionary, when a reader's). :meth:`column` makes one column of :func:`trec_frame`'s frame (the same
    values and dtype, a RangeIndex), :meth:`judged_codes` the codes the trec measures rank (no column read) and
    :meth:`layout` the :class:`TrecLayout` of the columns made (the same objects).

    Parameters
    ----------
    run : CodedTable
        The run, rows in trec_eval's order, with ranks.
    qrels : CodedTable
        The judgments, grouped by query.
    node : str
        The node's name, for messages.
    queries : mapping of str to str, optional
        Query texts by qid (a query without one has its id as text, with a warning).

    Examples
    --------
    >>> run = CodedTable(np.array([0, 0]), np.array(["q1"], dtype=object), np.array([1, 0]),
    ...                  np.array(["d1", "d2"], dtype=object), np.array([2.0, 1.0]), np.array([1, 2]))
    >>> qrels = CodedTable(np.array([0]), np.array(["q1"], dtype=object), np.array([0]), np.array(["d1"], dtype=object),
    ...                    np.array([2]))
    >>> source = TrecNodeSource(run, qrels)
    >>> source.n_rows, source.column("document_id").tolist(), source.column("gold_id_match").tolist()
    (2, ['d2', 'd1'], [0.0, 1.0])
    >>> row_query, row_doc, judged_query, judged_doc, judged_grade, query_ids = source.judged_codes()
    >>> row_doc.tolist(), judged_doc.tolist(), judged_grade.tolist()
    ([1, 0], [0], [2])
    """

    names: Sequence[str] = tuple([c for c in COLUMN_ORDER if c in _FRAME_COLUMNS]
                                   + [c for c in _FRAME_COLUMNS if c not in COLUMN_ORDER])

    def __init__(self, run: CodedTable, qrels: CodedTable, *, node: str = "Retriever",
                 queries: Mapping[str, str] | None = None) -> None:
        self.node = node
        self.ids = ids = _Ids(run, qrels)
        self.order = order = query_order(ids.run_qids, ids.judged_qids)
        index = pd.Index(order, dtype=object)
        self.rows = _rows(run, ids, index)
        self.judged = _judgments(qrels, ids, index, order)
        self.texts = dict(queries or {})
        missing = [qid for qid in order.tolist() if qid not in self.texts]
        if queries is not None and missing:
            warn(f"{len(missing)} of {len(order)} queries have no text in queries= (e.g. {missing[:3]}); their query "
                 "id is their text.")
        self.n_rows = len(self.rows.query)
        self._made: dict[str, Any] = {}

    def _once(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def _cells(self) -> dict[str, np.ndarray]:
        """The judgment list cells, one per query code (made once: the columns and the layout share them)."""
        return self._once("cells", lambda: _judgment_cells(self.judged, self.ids.doc_values(), self.ids.judged_doc,
                                                           len(self.order)))

    def _hits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._once("hits", lambda: _gold_hits(self.rows, self.ids, self.judged))

    def _per_query(self, cells: list[Any] | np.ndarray) -> np.ndarray:
        rows_per_query = self._once("rows_per_query", lambda: np.bincount(self.rows.query, minlength=len(self.order)))
        return np.repeat(cells if isinstance(cells, np.ndarray) else _object_array(cells), rows_per_query)

    def _array(self, name: str) -> np.ndarray:
        """Column ``name``'s values, as :func:`trec_frame`'s frame holds them: per-query cells repeated over each
        query's block of rows (rows are grouped by query, ascending)."""
        rows, n_gold, n_queries = self.rows, self.judged.n_gold, len(self.order)
        if name in _ZERO_COLUMNS:  # its own array per column (calloc'ed: no copy, pages mapped when read)
            return np.zeros(self.n_rows, dtype=np.float64)
        if name in ("type", "node", "eval_mode", "context"):  # one object on every row
            value = {"type": _DOCUMENT, "node": self.node, "eval_mode": _INTEGRATED, "context": ""}[name]
            return np.repeat(np.array([value], dtype=object), self.n_rows)
        if name in ("gold_id_match", "gold_id_or_answer_match", "gold_id_or_context_match"):
            return np.asarray(self._hits()[0], dtype=np.float64)
        if name in ("gold_answers", "gold_answers_match"):
            return self._per_query([[] for _ in range(n_queries)])
        if name in TREC_COLUMNS[1:] or name == "gold_document_ids":
            return self._per_query(self._cells()[name])
        makers: dict[str, Callable[[], np.ndarray]] = {
            "multilabel_id": lambda: self._per_query(np.asarray(self.order, dtype=object)),
            "query": lambda: self._per_query(np.array([self.texts.get(qid, qid) for qid in self.order.tolist()],
                                                      dtype=object)),
            "filters": lambda: np.empty(self.n_rows, dtype=object),  # None in every row
            "gold_contexts": lambda: self._per_query([[""] * int(n) for n in n_gold]),
            "rank": lambda: rows.rank,
            "document_id": lambda: self.ids.doc_values()[rows.doc],
            "gold_documents_id_match": lambda: _id_match_cells(rows.query, *self._hits()[1:], n_gold),
            "gold_contexts_similarity": lambda: self._per_query([[0.0] * int(n) for n in n_gold]),
            # Haystack 1.x's row number within each query (its per-query reset_index()), as from_runs writes it
            "index": lambda: numbered_per_query(rows.query),
            "score": lambda: rows.score,
        }
        return makers[name]()

    def column(self, name: str) -> pd.Series:
        """Column ``name`` of :func:`trec_frame`'s frame (a KeyError for another name)."""
        if name not in self.names:
            raise KeyError(name)
        array = self._array(name)
        return pd.Series(array, dtype=array.dtype, copy=False, name=name)

    def judged_codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What :func:`evalframe.frames.judged_codes.judged_rows_of_codes` takes, from the codes alone: the document
        rows' query and document codes (rows in ranking order, placeholders left out), the judgments' query, document
        codes and grades (``"00"`` and ``""`` left out), and the query ids by code."""
        rows, judged, counted = self.rows, self.judged, self.judged.counted
        document = rows.doc != self.ids.n_docs  # the placeholder's code: no document
        row_query, row_doc = (rows.query, rows.doc) if document.all() else (rows.query[document], rows.doc[document])
        return (row_query, row_doc, judged.query[counted], self.ids.judged_doc[counted], judged.grades[counted],
                np.asarray(self.order, dtype=object))

    def layout(self) -> TrecLayout:
        """The :class:`TrecLayout` of the columns :meth:`column` makes (the same objects), made once."""
        def make() -> TrecLayout:
            cells = self._cells()
            judged, counted = self.judged, self.judged.counted
            judgments = TrecJudgments(cells=cells, query=judged.query[counted], doc=self.ids.judged_doc[counted],
                                      grade=judged.grades[counted])
            doc_values = self.ids.doc_values()
            return TrecLayout(row_query=compact_codes(self.rows.query), query_ids=np.asarray(self.order, dtype=object),
                              row_doc=compact_codes(self.rows.doc), doc_values=doc_values,
                              constants={"type": _DOCUMENT, "eval_mode": _INTEGRATED},
                              judgments=judgments, text_ids=is_text(doc_values))

        return self._once("layout", make)


# ------------------------------------------------------------------------------------------ frame -> TREC
def _document_rows(frame: pd.DataFrame, node: str, eval_mode: str | None) -> np.ndarray:
    """Positions of the node's document rows (of ``eval_mode`` when the frame has that column), placeholders left out.

    A placeholder is the row of an empty retrieval: document_id ``""`` (as built) or missing (as a Haystack 1.x
    folder loads it).
    """
    keep = np.ones(len(frame), dtype=bool)
    if "type" in frame.columns:
        keep &= (frame["type"] == "document").to_numpy(dtype=bool)
        if not keep.any():
            raise SchemaError(f"node {node!r} has no document rows (type 'document'): TREC runs rank documents, so "
                              "write a retriever node (or one that returns documents).", parameter="node")
    missing = [c for c in ("multilabel_id", "document_id", "rank") if c not in frame.columns]
    if missing:
        raise SchemaError(f"node {node!r} lacks the column(s) {missing} a TREC run is written from; it needs "
                          "multilabel_id, document_id and rank (a retriever's document rows).")
    if eval_mode is not None and "eval_mode" in frame.columns:
        keep &= (frame["eval_mode"] == eval_mode).to_numpy(dtype=bool)
    positions = np.flatnonzero(keep)
    if frame["multilabel_id"].iloc[positions].isna().any():
        raise SchemaError(f"node {node!r}: multilabel_id is missing on some rows; it is the TREC query id.")
    if frame["rank"].iloc[positions].isna().any():
        raise SchemaError(f"node {node!r}: rank is missing on some rows; the run is ordered by rank.")
    ids = frame["document_id"].iloc[positions]
    return positions[(ids.notna() & (ids != "")).to_numpy(dtype=bool)]


def _layout_rows(frame: pd.DataFrame, layout: TrecLayout, node: str, eval_mode: str | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_document_rows` of a frame :func:`trec_frame` built and that still holds its layout, from its codes:
    (positions, query codes (ascending), query ids as text, document codes, document ids as text)."""
    if eval_mode is not None and layout.constants["eval_mode"] != eval_mode:
        positions = np.zeros(0, dtype=np.int64)
    else:
        doc_values = layout.doc_values
        is_document = ~pd.isna(doc_values) & (doc_values != "") if len(doc_values) else np.zeros(0, dtype=bool)
        positions = np.flatnonzero(is_document[layout.row_doc])
    if frame["rank"].iloc[positions].isna().any():
        raise SchemaError(f"node {node!r}: rank is missing on some rows; the run is ordered by rank.")
    query_text = _as_text(pd.Series(layout.query_ids, dtype=object))
    doc_text = _as_text(pd.Series(layout.doc_values, dtype=object))
    q_codes, q_values = factorized(query_text)  # equal texts (an id 1 and "1"), one code
    d_codes, d_values = factorized(doc_text)
    return positions, q_codes[layout.row_query[positions]], q_values, d_codes[layout.row_doc[positions]], d_values


def _as_text(values: pd.Series) -> np.ndarray:
    """The values as an object array of str (a value that is not a str: its ``str``); no copy when all are str."""
    array = values.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(array, skipna=False) in ("string", "empty"):
        return array
    return np.array([v if isinstance(v, str) else str(v) for v in array.tolist()] + [None], dtype=object)[:-1]


def run_from_frame(frame: pd.DataFrame, *, node: str, eval_mode: str | None = "integrated",
                   scores: Literal["score", "rank"] = "score", duplicates: Literal["error", "first"] = "error",
                   layout: TrecLayout | None = None) -> pd.DataFrame:
    """The TREC run (``qid, docid, score, rank``) of a node frame's document rows, in the frame's ranking.

    The frame's ranking is rank ascending, ties by document_id descending, within each query (queries in the
    frame's order). ``scores="score"`` writes the ``score`` column when the frame has one (it must rank the
    documents as the frame does under trec_eval's rule: score descending, ties by docid descending), else
    ``n - position + 1``; ``scores="rank"`` always the latter. Rows with document_id ``""`` or missing (an empty
    retrieval) are left out; a document_id twice in one query is a SchemaError (trec_eval refuses duplicates).
    ``layout``: the frame's :class:`TrecLayout` (:func:`trec_frame_coded`'s), if known; used while it holds.

    Examples
    --------
    >>> frame = pd.DataFrame({"multilabel_id": ["q", "q"], "document_id": ["a", "b"], "rank": [2, 1]})
    >>> run_from_frame(frame, node="Retriever")
      qid docid  score  rank
    0   q     b    2.0     1
    1   q     a    1.0     2
    """
    if duplicates not in ("error", "first"):
        raise InvalidParameterError(f"duplicates must be 'error' (trec_eval's rule) or 'first' (keep a document's "
                                    f"best-ranked row); got {duplicates!r}.")
    if scores not in ("score", "rank"):
        raise InvalidParameterError(f"scores must be 'score' (the frame's score column, checked against its ranks) or "
                                    f"'rank' (scores from the ranks); got {scores!r}.")
    if layout is not None and layout.holds(frame):  # from_trec's frame, unedited: its codes, no hashing
        rows, q_codes, q_values, d_codes, d_values = _layout_rows(frame, layout, node, eval_mode)
    else:
        rows = _document_rows(frame, node, eval_mode)
        q_codes, q_values = factorized(_as_text(frame["multilabel_id"].iloc[rows]))
        d_codes, d_values = factorized(_as_text(frame["document_id"].iloc[rows]))
    ranks = frame["rank"].iloc[rows].to_numpy(dtype=np.float64)
    order, positions = trec_order_codes(q_codes, d_codes, d_values, -ranks)
    codes, doc_codes = q_codes[order], d_codes[order]
    qids, docids = q_values[codes], d_values[doc_codes]
    duplicated = repeated_pairs(codes, doc_codes, len(q_values), len(d_values))
    if duplicated.any() and duplicates == "error":
        first = int(np.flatnonzero(duplicated)[0])
        raise SchemaError(f"node {node!r}, query {qids[first]!r}: document {docids[first]!r} is retrieved twice; trec_eval "
                          "refuses a run with duplicate documents. Pass duplicates='first' (--duplicates first on the "
                          "command line) to write each document once, at its best rank.")
    if duplicated.any():  # "first": the best-ranked row of each document stays; positions close up
        order, qids, docids, codes = order[~duplicated], qids[~duplicated], docids[~duplicated], codes[~duplicated]
        positions = ranks_within(codes)
    if scores == "score" and "score" in frame.columns:
        values = pd.to_numeric(frame["score"].iloc[rows], errors="coerce").to_numpy(dtype=np.float64)[order]
        _check_scores(node, qids, docids, codes, values, as_trec_scores(values), frame["rank"].iloc[rows].to_numpy()[order])
    else:
        sizes = np.bincount(codes) if len(codes) else np.zeros(0, dtype=np.int64)
        values = (sizes[codes] - positions + 1).astype(np.float64)
    return pd.DataFrame({"qid": pd.Series(qids, dtype=object), "docid": pd.Series(docids, dtype=object),
                         "score": values, "rank": positions})


def _check_scores(node: str, qids: np.ndarray, docids: np.ndarray, codes: np.ndarray, values: np.ndarray,
                  compared: np.ndarray, ranks: np.ndarray) -> None:
    """The scores must give the frame's order under trec_eval's sort (score desc, docid desc); else a SchemaError.

    ``compared``: the scores as trec_eval compares them (:func:`as_trec_scores`).
    """
    hint = "; pass scores='rank' (--scores rank on the command line) to write scores from the ranks (n - rank + 1) instead."
    missing = np.isnan(values)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise SchemaError(f"node {node!r}, query {qids[first]!r}: document {docids[first]!r} (rank {ranks[first]}) has no "
                          f"score (NaN), and trec_eval needs one on every line{hint}")
    same = codes[1:] == codes[:-1]
    lower, higher = compared[:-1], compared[1:]
    wrong = same & (higher > lower)
    tied = np.flatnonzero(same & (higher == lower))
    if len(tied):  # equal scores: trec_eval puts the larger docid first, so the frame must too
        wrong[tied] |= np.asarray(docids[tied] < docids[tied + 1], dtype=bool)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise SchemaError(
            f"node {node!r}, query {qids[i]!r}: the scores disagree with the ranks: document {docids[i]!r} at rank "
            f"{ranks[i]} has score {float(values[i])!r}, document {docids[i + 1]!r} at rank {ranks[i + 1]} has score "
            f"{float(values[i + 1])!r}; trec_eval ranks by score (ties: larger docid first), so the file would be evaluated "
            f"in another order{hint}")


def qrels_from_frame(frame: pd.DataFrame, *, node: str) -> pd.DataFrame:
    """The judgments (``qid, docid, relevance``) of a node frame: each query's gold and non-relevant documents.

    Relevant: ``gold_document_ids`` with grades from ``gold_document_relevance`` (1 without that column); judged
    non-relevant: ``nonrelevant_document_ids`` / ``nonrelevant_document_relevance`` when present. Ids ``""`` and
    ``"00"`` (no document) are left out; a document listed twice in one query keeps its highest grade. Queries in
    the frame's order, documents of a query sorted by docid (code point order).

    Examples
    --------
    >>> frame = pd.DataFrame({"multilabel_id": ["q", "q"], "gold_document_ids": [["d9", "d1", "d9"]] * 2})
    >>> qrels_from_frame(frame, node="Retriever")
      qid docid  relevance
    0   q    d1          1
    1   q    d9          1
    """
    missing = [c for c in ("multilabel_id", "gold_document_ids") if c not in frame.columns]
    if missing:
        raise SchemaError(f"node {node!r} lacks the column(s) {missing} the qrels are written from (each query's "
                          "multilabel_id and gold_document_ids).")
    first = frame.drop_duplicates("multilabel_id")
    qids = _as_text(first["multilabel_id"])
    parts = []
    for ids_column, grades_column in (("gold_document_ids", "gold_document_relevance"),
                                      ("nonrelevant_document_ids", "nonrelevant_document_relevance")):
        if ids_column not in first.columns:
            continue
        id_cells = [cell if isinstance(cell, (list, tuple)) else [] for cell in first[ids_column].tolist()]
        lengths = np.array([len(ids) for ids in id_cells], dtype=np.int64)
        if grades_column in first.columns:
            grade_cells = [cell if isinstance(cell, (list, tuple)) else () for cell in first[grades_column].tolist()]
        else:
            grade_cells = [[1] * int(n) for n in lengths]
        unaligned = np.flatnonzero(np.array([len(g) for g in grade_cells], dtype=np.int64) != lengths)
        if len(unaligned):
            i = int(unaligned[0])
            raise SchemaError(f"node {node!r}, query {qids[i]!r}: {grades_column} must hold one grade per entry of "
                              f"{ids_column} ({lengths[i]}); got {first[grades_column].iloc[i]!r:.60}.")
        parts.append(pd.DataFrame({
            "query": np.repeat(np.arange(len(qids)), lengths),
            "docid": pd.Series(list(itertools.chain.from_iterable(id_cells)), dtype=object),
            "relevance": pd.Series(list(itertools.chain.from_iterable(grade_cells)), dtype=object),
        }))
    judged = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"query": [], "docid": [], "relevance": []})
    judged = judged.loc[~judged["docid"].isin(_NOT_DOCUMENTS) & judged["docid"].notna()]
    grades = pd.to_numeric(judged["relevance"], errors="coerce")
    bad = grades.isna() | (grades != grades.round())
    if bad.any():
        row = judged.loc[bad].iloc[0]
        raise SchemaError(f"node {node!r}, query {qids[int(row['query'])]!r}: document {row['docid']!r} has the grade "
                          f"{row['relevance']!r}; qrels grades are integers.")
    judged = judged.assign(docid=_as_text(judged["docid"]), relevance=grades.astype(np.int64))
    judged = judged.sort_values("relevance", ascending=False, kind="stable").drop_duplicates(["query", "docid"])
    docid_codes = pd.factorize(judged["docid"].to_numpy(dtype=object), sort=True)[0]
    judged = judged.iloc[np.lexsort((docid_codes, judged["query"].to_numpy(dtype=np.int64)))]
    return pd.DataFrame({"qid": pd.Series(qids[judged["query"].to_numpy(dtype=np.int64)], dtype=object),
                         "docid": pd.Series(judged["docid"].to_numpy(dtype=object), dtype=object),
                         "relevance": judged["relevance"].to_numpy(dtype=np.int64)})


# ------------------------------------------------------------------------------------------ the source
def read_trec(run: str | Path | Mapping[str, Mapping[str, float]] | Frame,
              qrels: str | Path | Mapping[str, Mapping[str, int]] | Frame, *, node: str = "Retriever",
              queries: str | Path | Mapping[str, str] | None = None, progress: bool | None = None,
              subtopics: bool = False, storage_options: Mapping[str, Any] | None = None) -> Built:
    """A result with one document node from a TREC run and its qrels (``docs/persistence.md#trec-run-and-qrels-files``).

    The node frame has the columns :meth:`from_runs` gives a retriever whose gold labels carry only document
    ids, so every analysis works on it, plus ``score`` (the run's), ``gold_document_relevance`` (the grade of
    each of ``gold_document_ids``: the judged documents with grade > 0, in qrels order),
    ``nonrelevant_document_ids`` and ``nonrelevant_document_relevance`` (judged with grade <= 0).
    ``multilabel_id`` is the TREC query id. Rows follow trec_eval's ranking (score descending, ties by docid
    descending; ``rank`` 1..n). A query in the qrels without a run line keeps one row with document_id ``""``
    (as an empty retrieval in :meth:`from_runs`); a query in the run without judgments has empty gold lists.

    Parameters
    ----------
    run : path, dict or frame
        A TREC run file (``qid Q0 docid rank score tag``, plain or ``.gz``), ``{qid: {docid: score}}``, or a pandas
        DataFrame, pyarrow Table or polars DataFrame with the columns query id (``query_id``, ``qid`` or ``q_id``),
        document id (``doc_id``, ``docno`` or ``docid``) and ``score`` (ir_measures', ranx's and PyTerrier's
        names; other columns, a ``rank`` too, are not read), ranked as the same run read from a file
        (:mod:`evalframe.sources.trec_frames`: integer ids are read as their decimal text; a missing id or score,
        a document twice in a query, two columns naming one thing are refused, naming the column and the row).
    qrels : path, dict, frame or ir_datasets dataset
        A TREC qrels file (``qid iter docid relevance``, plain or ``.gz``), ``{qid: {docid: grade}}``, a frame
        with the query id, the document id and the grade (``relevance`` or ``label``; ranx's ``score`` when the
        frame has neither), integers, or an ir_datasets dataset: ``"irds:<id>"``
        (``"irds:msmarco-passage/dev/small"``, loaded by ``ir_datasets.load``) or the dataset object (anything with
        ``qrels_iter()``), read through ir_datasets' own API (``docs/storage.md#ir_datasets``; ``pip install
        ir_datasets``).
    node : str
        The node's name (default ``"Retriever"``).
    queries : dict, path or ir_datasets dataset, optional
        Query texts for the ``query`` column: ``{qid: text}``, a TSV file ``qid<TAB>text``, or an ir_datasets
        dataset (``"irds:<id>"`` or the object: each query's ``text`` field, else its first str field); without it
        (or for a qid it lacks, with a warning) the query id is the text.
    progress : bool, optional
        A bar over the steps (reading, building) where a person watches; False never.
    subtopics : bool
        The qrels are subtopic (diversity) judgments, ``qid subtopic docid relevance`` (the second column is the
        subtopic; a dict ``{qid: {subtopic: {docid: grade}}}``): the diversity measures (``alpha_nDCG@k``,
        ``ERR_IA@k``, ``P_IA@k``, ``AP_IA``, ``StRecall@k``, ...) read them, and every other measure reads each
        judged document once, with its highest grade over the subtopics
        (``docs/ir-researchers.md#diversity-measures-and-subtopic-qrels``). The subtopic judgments stay with
        this result's node as read (not in its frame: a saved and loaded result has the collapsed qrels only).
    storage_options : dict, optional
        The filesystem's options (credentials, ``endpoint_url``, ...) for a ``run``, ``qrels`` or ``queries`` given
        as a URL (``s3://bucket/run.txt.gz``, ``memory://x/qrels.txt``: ``docs/storage.md``); without them each
        filesystem reads its usual environment.

    Returns
    -------
    Built
        The node, held as codes (``EvaluationResult.from_trec`` returns the result made of it).

    Raises
    ------
    LoadError
        A file that cannot be read; the message names the file and the 1-based line (a line without its
        columns, a score that is not a number, a grade that is not an integer, a docid twice in a query); an
        ir_datasets dataset's judgment of the same kinds, naming the dataset and the record.
    InvalidParameterError
        A dict with ids that are not strings or values of the wrong kind (naming the qid and docid), or a bad
        ``node``; ``"irds:<id>"`` without ir_datasets installed (``pip install ir_datasets``), an id it does not
        know (with the close ones), a dataset without qrels.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.2, "d2": 3.4}, "q2": {"d3": 0.5}},
    ...                                     {"q1": {"d1": 2, "d5": 0}, "q2": {"d4": 1}}, progress=False)
    >>> result["Retriever"][["multilabel_id", "rank", "document_id", "score", "gold_document_ids"]]
      multilabel_id  rank document_id  score gold_document_ids
    0            q1     1          d2    3.4              [d1]
    1            q1     2          d1    1.2              [d1]
    2            q2     1          d3    0.5              [d4]
    >>> result.calculate_metrics()["Retriever"]["mrr"]
    0.25

    The same run as a frame (PyTerrier's column names), the qrels as a pyarrow Table (ir_measures'):

    >>> import pyarrow as pa
    >>> run = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d3"], "score": [1.2, 3.4, 0.5]})
    >>> qrels = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d5", "d4"], "relevance": [2, 0, 1]})
    >>> EvaluationResult.from_trec(run, qrels, progress=False).calculate_metrics()["Retriever"]["mrr"]
    0.25
    """
    if not isinstance(node, str) or not node:
        raise InvalidParameterError(f"node must be a non-empty string (the node's name); got {node!r}.")
    storage_options = check_storage_options(storage_options)
    run = cast(Any, remote_source(run, "run", storage_options=storage_options))
    qrels = cast(Any, remote_source(qrels, "qrels", storage_options=storage_options))
    queries = cast(Any, remote_source(queries, "queries", storage_options=storage_options))
    subtopics = check.check_real_bool(subtopics, name="subtopics")
    if subtopics and is_frame(qrels):
        raise InvalidParameterError("subtopics=True reads subtopic qrels from a file or a dict {qid: {subtopic: "
                                    "{docid: grade}}}; a qrels frame is read as ordinary qrels (subtopics=False).",
                                    parameter="subtopics")
    steps = Steps(show=enabled(progress), desc="reading TREC files", total=3, unit="step")
    try:
        subtopic_table = read_qrels(qrels, subtopics=True) if subtopics else None
        if subtopic_table is not None:  # the other measures read each document once, its highest grade
            qrels = collapse_subtopics(subtopic_table)
        run_table, qrels_table = read_coded_tables(run, qrels)  # codes; Arrow dictionaries of a file's docids
        steps.update(2)
        texts = read_queries(queries) if queries is not None else None
        source = TrecNodeSource(run_table, qrels_table, node=node, queries=texts)
        steps.update(1)
    finally:
        steps.close()
    # held as codes: the trec measures rank them as they are, a column is made when an analysis reads it, the
    # frame when asked for (result[node]), with its layout (evalframe.frames.pending)
    extras = {"judged_rows": functools.partial(trec_judged_rows, source.judged_codes, source.ids.doc_values, node,
                                               subtopic_table),
              "trec_layout": source.layout, "row_types": ("document",)}
    return Built({node: PendingFrame(source.n_rows, source, extras)},
                 matching={**MatchingOptions().as_dict(), "sas_model": None})
