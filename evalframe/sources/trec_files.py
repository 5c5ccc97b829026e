"""TREC run and qrels files read into tidy frames (``docs/persistence.md#trec-run-and-qrels-files``).

A run file holds one line ``qid Q0 docid rank score tag`` per retrieved document, a qrels file one line ``qid iter
docid relevance`` per judgment; columns are separated by whitespace (as trec_eval splits them), blank lines and
comment lines (:data:`evalframe.sources.trec_arrow.COMMENT_LINE`) are skipped and a run's columns after the sixth
ignored, as trec_eval 10.0 reads them; files are plain text or gzip (recognised by their first bytes).
:func:`read_run` and :func:`read_qrels` take a path or the dict-of-dicts form of ranx, ir_measures and pytrec_eval
(``{qid: {docid: score}}`` / ``{qid: {docid: grade}}``) and return tidy frames; :mod:`evalframe.io.trec` writes them
back. A file is read by the TREC reader, :func:`evalframe.sources.trec_arrow.read_arrow` (pyarrow, a batch of lines
at a time: a gzip file decompressed as it is read, standard input read once), whose errors name the file and the
1-based line.

trec_eval's rules kept here: a run's documents are ranked by score descending, ties by docid descending (code
point order); the rank column of the file is ignored. A docid twice in one query is refused ("duplicate docs"),
in runs and in qrels alike. Grades are integers.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from .._locations import exists, is_dir
from ..errors import InvalidParameterError, LoadError
from ..frames.trec_codes import factorized
from .irds import is_irds, irds_qrels, irds_queries
from .trec_arrow import QRELS_FORMAT, RUN_FORMAT, ArrowColumns, TrecFormat, numpy_of, read_arrow
from .trec_stream import TrecSource, blocks, checked_source
from ..frames.trec_layout import TableCodes
from ..frames.trec_ranking import as_trec_scores, compact_codes, trec_order_codes

__all__ = ["RUN_COLUMNS", "QRELS_COLUMNS", "SUBTOPIC_QRELS_COLUMNS", "read_run", "read_qrels", "read_subtopic_qrels",
           "collapse_subtopics", "read_run_coded", "read_qrels_coded", "read_queries"]

#: Columns of :func:`read_run`'s frame and of :func:`read_qrels`'.
RUN_COLUMNS: tuple[str, ...] = ("qid", "docid", "score", "rank")
QRELS_COLUMNS: tuple[str, ...] = ("qid", "docid", "relevance")
#: Columns of :func:`read_subtopic_qrels`' frame (``read_qrels(..., subtopics=True)``).
SUBTOPIC_QRELS_COLUMNS: tuple[str, ...] = ("qid", "subtopic", "docid", "relevance")

PathLike = Union[str, "os.PathLike[str]"]
RunInput = Union[PathLike, TrecSource, Mapping[str, Mapping[str, float]]]
QrelsInput = Union[PathLike, TrecSource, Mapping[str, Mapping[str, int]]]
SubtopicQrelsInput = Union[PathLike, TrecSource, Mapping[str, Mapping[str, Mapping[str, int]]]]

#: What separates columns: spaces and tabs (as trec_eval splits them), and the line ends (a dict's ids must not hold
#: them). Other characters, NBSP or a form feed included, belong to the id they are in.
WHITESPACE = re.compile(r"[ \t\r\n]")


class TrecColumns:
    """A table read from a file or a dict: qids and docids as codes into their distinct values, and the values.

    ``qid_values`` are in order of first appearance (so the codes number the queries in that order); the docid
    codes index ``docid_values`` (distinct, any order).
    """

    def __init__(self, qid_codes: np.ndarray, qid_values: np.ndarray, docid_codes: np.ndarray, docid_values: np.ndarray,
                 values: np.ndarray) -> None:
        self.qid_codes, self.qid_values = qid_codes.astype(np.int64, copy=False), qid_values
        self.docid_codes, self.docid_values = docid_codes.astype(np.int64, copy=False), docid_values
        self.values = values
        self.text_ranks: Callable[[], np.ndarray] | None = None  # docid ranks in code point order, when cheap to get
        self.arrow_values: dict[str, Any] = {}  # qid / docid: the distinct values as an Arrow string array, when read so

    @classmethod
    def of_ids(cls, qids: np.ndarray, docids: np.ndarray, values: np.ndarray) -> TrecColumns:
        """From the ids as object arrays (factorised here)."""
        (q, q_values), (d, d_values) = factorized(qids), factorized(docids)
        return cls(q, q_values, d, d_values, values)

    def frame(self, order: np.ndarray, values: dict[str, np.ndarray]) -> tuple[pd.DataFrame, TableCodes]:
        """The frame ``qid, docid`` (object columns) and ``values`` of the rows ``order``, and its qid and docid codes
        for trec_frame_coded (no hashing there), with their pairs distinct (a file's were checked; a dict's are its
        keys). Each column's codes are gathered once, for the objects and the codes."""
        qid_codes, docid_codes = compact_codes(self.qid_codes[order]), compact_codes(self.docid_codes[order])
        frame = pd.DataFrame({"qid": pd.Series(self.qid_values[qid_codes], dtype=object),
                              "docid": pd.Series(self.docid_values[docid_codes], dtype=object), **values}, copy=False)
        codes = TableCodes({"qid": (qid_codes, self.qid_values), "docid": (docid_codes, self.docid_values)},
                           distinct=("qid", "docid"), arrow=dict(self.arrow_values))
        return frame, codes


def _read_file(path: TrecSource, fmt: TrecFormat) -> TrecColumns:
    """qids, docids and values (float64 scores / int64 grades) of a file, in file order, checked: read by
    :func:`evalframe.sources.trec_arrow.read_arrow` (ids dictionary-encoded in Arrow), the dictionaries then as
    object arrays."""
    return _arrow_columns(read_arrow(path, fmt))


def _arrow_columns(read: ArrowColumns) -> TrecColumns:
    """The TREC reader's columns (a file's, or an ir_datasets dataset's: :mod:`evalframe.sources.irds`) as
    :class:`TrecColumns`, the dictionaries as object arrays."""
    assert read.docid_codes is not None  # read with encode_docids
    columns = TrecColumns(read.qid_codes, read.qids.to_numpy(zero_copy_only=False),
                          read.docid_codes, read.docids.to_numpy(zero_copy_only=False), read.values)
    columns.arrow_values = {"qid": read.qids, "docid": read.docids}
    docids = read.docids

    def text_ranks() -> np.ndarray:  # Arrow sorts strings by their UTF-8 bytes: code point order
        ranks = np.empty(len(docids), dtype=np.int64)
        ranks[numpy_of(pc.sort_indices(docids))] = np.arange(len(docids))
        return ranks

    columns.text_ranks = text_ranks
    return columns


# ------------------------------------------------------------------------------------------ reading dicts
def _read_mapping(mapping: Mapping[Any, Any], fmt: TrecFormat) -> TrecColumns:
    """qids, docids and values of the dict-of-dicts form, checked (errors name the qid and docid)."""
    what = "run" if fmt is RUN_FORMAT else "qrels"
    qids: list[str] = []
    docids: list[str] = []
    values: list[Any] = []
    for qid, documents in mapping.items():
        _check_id(qid, f"{what}: query id {qid!r}")
        if not isinstance(documents, Mapping):
            raise InvalidParameterError(f"{what}[{qid!r}] must be a dict {{docid: {fmt.value_name}}}; "
                                        f"got {type(documents).__name__}.")
        for docid, value in documents.items():
            _check_id(docid, f"{what}[{qid!r}]: document id {docid!r}")
            if fmt is RUN_FORMAT:
                if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
                    raise InvalidParameterError(f"{what}[{qid!r}][{docid!r}]: the score must be a number (not NaN); "
                                                f"got {value!r:.40}.")
                values.append(float(value))
            else:
                if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                    raise InvalidParameterError(f"{what}[{qid!r}][{docid!r}]: the relevance grade must be an int; got "
                                                f"{value!r:.40}. Convert grades with int() (0 or less: not relevant).")
                values.append(int(value))
            qids.append(qid)
            docids.append(docid)
    value_array = np.array(values, dtype=np.float64 if fmt is RUN_FORMAT else np.int64)
    return TrecColumns.of_ids(np.array(qids, dtype=object), np.array(docids, dtype=object), value_array)


def _check_id(value: object, where: str) -> None:
    if not isinstance(value, str):
        raise InvalidParameterError(f"{where} must be a string (TREC ids are text); got {type(value).__name__}. "
                                    "Convert the ids with str().")
    if not value or WHITESPACE.search(value):
        raise InvalidParameterError(f"{where} must be a non-empty string without spaces, tabs or line ends (TREC files "
                                    "separate their columns by them).")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidParameterError(f"{where} is not valid Unicode text (a lone surrogate); TREC files are UTF-8 "
                                        "text.") from None


# ------------------------------------------------------------------------------------------ public readers
def read_run(run: RunInput) -> pd.DataFrame:
    """A TREC run as a tidy frame ``qid, docid, score, rank``, ranked as trec_eval ranks it.

    Parameters
    ----------
    run : path or dict
        A run file (``qid Q0 docid rank score tag`` per line, whitespace-separated, plain or gzip) or
        ``{qid: {docid: score}}`` (ranx / ir_measures / pytrec_eval).

    Returns
    -------
    pandas.DataFrame
        One row per retrieved document: ``qid`` and ``docid`` (str), ``score`` (float64) and ``rank``
        (int64, 1..n within a query). Queries in order of first appearance; within a query by score
        descending, ties by docid descending (the file's rank column is ignored, as trec_eval ignores it).

    Raises
    ------
    LoadError
        A missing or empty file, a line with fewer than 6 columns, a score that is not a number (NaN included),
        a docid twice in one query; the message names the file and the 1-based line. (Comment lines and the
        columns after the sixth are read as trec_eval 10.0 reads them: skipped, ignored; ``{}`` is a run that
        retrieves nothing.)
    InvalidParameterError
        The dict form with an id that is not a non-empty string without whitespace, or a score that is not
        a number; the message names the qid and the docid.

    Examples
    --------
    >>> read_run({"q1": {"d1": 0.5, "d2": 1.5, "d3": 0.5}})
      qid docid  score  rank
    0  q1    d2    1.5     1
    1  q1    d3    0.5     2
    2  q1    d1    0.5     3
    """
    return read_run_coded(run)[0]


def read_run_coded(run: RunInput) -> tuple[pd.DataFrame, TableCodes]:
    """:func:`read_run`'s frame, and the codes of its ``qid`` and ``docid`` columns (for
    :func:`evalframe.sources.trec.trec_frame_coded`, which then hashes no id).

    Examples
    --------
    >>> frame, codes = read_run_coded({"q1": {"d1": 0.5, "d2": 1.5}})
    >>> frame["docid"].tolist(), codes.column(frame, "docid")[0].tolist()
    (['d2', 'd1'], [1, 0])
    """
    columns = _read_mapping(run, RUN_FORMAT) if isinstance(run, Mapping) else _read_file(checked_source(run, "run"), RUN_FORMAT)
    order, ranks = trec_order_codes(columns.qid_codes, columns.docid_codes, columns.docid_values,
                                    as_trec_scores(columns.values), text_ranks=columns.text_ranks)
    return columns.frame(order, {"score": columns.values[order], "rank": ranks})


def read_qrels(qrels: QrelsInput | SubtopicQrelsInput, *, subtopics: bool = False) -> pd.DataFrame:
    """TREC relevance judgments as a tidy frame ``qid, docid, relevance``.

    Parameters
    ----------
    qrels : path, dict or ir_datasets dataset
        A qrels file (``qid iter docid relevance`` per line, whitespace-separated, plain or gzip; the ``iter``
        column is ignored), ``{qid: {docid: grade}}``, or an ir_datasets dataset (``"irds:<id>"`` or the object:
        :func:`evalframe.sources.irds.irds_qrels`, the same rules, its records' ``iteration`` read as the ``iter``
        column).
    subtopics : bool
        Read the second column as the subtopic (a diversity qrels, ``qid subtopic docid relevance``): the frame of
        :func:`read_subtopic_qrels`, ``qid, subtopic, docid, relevance``.

    Returns
    -------
    pandas.DataFrame
        One row per judgment: ``qid``, ``docid`` (str) and ``relevance`` (int64). Queries in order of first
        appearance, judgments of a query in file (dict) order. ``{}`` gives an empty frame.

    Raises
    ------
    LoadError
        A missing or empty file, a line without 4 columns, a grade that is not an integer, a docid judged twice
        in one query; the message names the file and the 1-based line, and says when the line looks like
        trec_eval's preference judgments (``-R prefs``, ``qrels_jg``), which evalframe does not evaluate.
    InvalidParameterError
        The dict form with a bad id or a grade that is not an int, naming the qid and the docid.

    Examples
    --------
    >>> read_qrels({"q1": {"d2": 2, "d1": 0}})
      qid docid  relevance
    0  q1    d2          2
    1  q1    d1          0
    """
    if subtopics is not False:
        if subtopics is not True:
            raise InvalidParameterError(f"subtopics must be True or False; got {subtopics!r}.", parameter="subtopics")
        return read_subtopic_qrels(qrels)  # type: ignore[arg-type]  # a plain dict is refused there, naming it
    return read_qrels_coded(qrels)[0]  # type: ignore[arg-type]  # a subtopic dict is refused there, naming it


def read_subtopic_qrels(qrels: SubtopicQrelsInput) -> pd.DataFrame:
    """Subtopic (diversity) judgments as a tidy frame ``qid, subtopic, docid, relevance``.

    A diversity qrels (TREC Web track's, ndeval's and ir_measures' input) judges a document per subtopic of the query:
    its second column, trec_eval's ignored "iteration", is the subtopic. A document may be judged for several
    subtopics; a (query, subtopic, document) at most once.

    Parameters
    ----------
    qrels : path or dict
        A file of lines ``qid subtopic docid relevance`` (whitespace-separated, plain or gzip) or
        ``{qid: {subtopic: {docid: grade}}}``.

    Returns
    -------
    pandas.DataFrame
        One row per judgment, in file (dict) order: ``qid``, ``subtopic``, ``docid`` (str), ``relevance`` (int64).

    Raises
    ------
    LoadError
        A missing or empty file, a line without 4 columns, a grade that is not an integer, a document judged twice
        for one subtopic of a query; the message names the file and the 1-based line.
    InvalidParameterError
        The dict form with an id that is not a non-empty string without whitespace, or a grade that is not an int.

    Examples
    --------
    >>> read_subtopic_qrels({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d1": 2}}})
      qid subtopic docid  relevance
    0  q1        1    d1          1
    1  q1        1    d2          0
    2  q1        2    d1          2
    """
    if isinstance(qrels, Mapping):
        rows: list[tuple[str, str, str, int]] = []
        for qid, per_subtopic in qrels.items():
            _check_id(qid, f"qrels: query id {qid!r}")
            if not isinstance(per_subtopic, Mapping):
                raise InvalidParameterError(f"qrels[{qid!r}] must be a dict {{subtopic: {{docid: grade}}}} (subtopic "
                                            f"qrels); got {type(per_subtopic).__name__}.")
            for subtopic, documents in per_subtopic.items():
                _check_id(subtopic, f"qrels[{qid!r}]: subtopic id {subtopic!r}")
                if not isinstance(documents, Mapping):
                    raise InvalidParameterError(f"qrels[{qid!r}][{subtopic!r}] must be a dict {{docid: grade}}; got "
                                                f"{type(documents).__name__}.")
                for docid, grade in documents.items():
                    _check_id(docid, f"qrels[{qid!r}][{subtopic!r}]: document id {docid!r}")
                    if isinstance(grade, bool) or not isinstance(grade, numbers.Integral):
                        raise InvalidParameterError(f"qrels[{qid!r}][{subtopic!r}][{docid!r}]: the relevance grade must "
                                                    f"be an int; got {grade!r:.40}.")
                    rows.append((qid, subtopic, docid, int(grade)))
        columns = list(zip(*rows)) if rows else [(), (), (), ()]
        return pd.DataFrame({"qid": pd.Series(columns[0], dtype=object), "subtopic": pd.Series(columns[1], dtype=object),
                             "docid": pd.Series(columns[2], dtype=object),
                             "relevance": np.asarray(columns[3], dtype=np.int64)})
    read = (irds_qrels(qrels, subtopics=True) if is_irds(qrels)  # an ir_datasets dataset: its records' subtopics
            else read_arrow(checked_source(qrels, "qrels"), QRELS_FORMAT, subtopics=True))
    assert read.docid_codes is not None and read.subtopic_codes is not None
    return pd.DataFrame({"qid": _objects(read.qids, read.qid_codes), "subtopic": _objects(read.subtopics, read.subtopic_codes),
                         "docid": _objects(read.docids, read.docid_codes), "relevance": read.values})


def _objects(dictionary: Any, codes: np.ndarray) -> pd.Series:
    """A column of str objects from an Arrow dictionary and the rows' codes (each distinct id one str)."""
    return pd.Series(np.asarray(dictionary.to_numpy(zero_copy_only=False), dtype=object)[codes], dtype=object)


def collapse_subtopics(table: pd.DataFrame) -> dict[str, dict[str, int]]:
    """The ordinary qrels of subtopic judgments: each judged document once, with its highest grade over the
    subtopics (relevant to the query when relevant to any subtopic, as ndeval counts it), queries and documents in
    order of first appearance.

    Examples
    --------
    >>> collapse_subtopics(read_subtopic_qrels({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d1": 2, "d2": -1}}}))
    {'q1': {'d1': 2, 'd2': 0}}
    """
    out: dict[str, dict[str, int]] = {}
    for qid, docid, grade in zip(table["qid"].tolist(), table["docid"].tolist(), table["relevance"].tolist()):
        documents = out.setdefault(qid, {})
        documents[docid] = max(documents.get(docid, grade), grade)
    return out


def read_qrels_coded(qrels: QrelsInput) -> tuple[pd.DataFrame, TableCodes]:
    """:func:`read_qrels`'s frame, and the codes of its ``qid`` and ``docid`` columns (for
    :func:`evalframe.sources.trec.trec_frame_coded`).

    Examples
    --------
    >>> frame, codes = read_qrels_coded({"q1": {"d2": 2}, "q2": {"d2": 1}})
    >>> codes.column(frame, "qid")[0].tolist(), codes.column(frame, "docid")[0].tolist()
    ([0, 1], [0, 0])
    """
    if is_irds(qrels):  # "irds:<id>" or a dataset object: read through ir_datasets (evalframe.sources.irds)
        columns = _arrow_columns(irds_qrels(qrels))
    else:
        columns = (_read_mapping(qrels, QRELS_FORMAT) if isinstance(qrels, Mapping)
                   else _read_file(checked_source(qrels, "qrels"), QRELS_FORMAT))
    order = np.argsort(columns.qid_codes, kind="stable")  # grouped by query, in order of first appearance
    return columns.frame(order, {"relevance": columns.values[order]})


def read_queries(queries: PathLike | TrecSource | Mapping[str, str]) -> dict[str, str]:
    """Query texts by qid, from ``{qid: text}``, a TSV file with lines ``qid<TAB>text`` (plain or gzip), or an
    ir_datasets dataset (``"irds:<id>"`` or the object: :func:`evalframe.sources.irds.irds_queries`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "queries.tsv"
    >>> _ = path.write_text("q1\\twho wrote hamlet\\nq2\\tcapital of peru\\n")
    >>> read_queries(path)
    {'q1': 'who wrote hamlet', 'q2': 'capital of peru'}
    """
    if is_irds(queries):  # "irds:<id>" or a dataset object: its queries' texts (evalframe.sources.irds)
        return irds_queries(queries)
    if isinstance(queries, Mapping):
        for qid, text in queries.items():
            if not isinstance(qid, str) or not isinstance(text, str):
                raise InvalidParameterError(f"queries must map query ids (str) to query texts (str); got {qid!r}: "
                                            f"{text!r:.60}.")
        return dict(queries)
    if isinstance(queries, TrecSource):  # a URL (evalframe.sources.trec_stream.remote_source)
        source = queries
        path: Any = source.name
        if source.remote is not None and (is_dir(source.remote) or not exists(source.remote)):
            raise LoadError(f"queries file {path} does not exist" + (" (it is a folder)." if is_dir(source.remote)
                                                                      else "."), parameter="queries")
    else:
        if not isinstance(queries, (str, os.PathLike)) or not str(queries):
            raise InvalidParameterError(f"queries must be a dict {{qid: text}} or the path of a TSV file "
                                        f"`qid<TAB>text`; got {queries!r:.80} of type {type(queries).__name__}.")
        path = Path(queries)
        if not path.exists() or path.is_dir():
            raise LoadError(f"queries file {path} does not exist" + (" (it is a folder)." if path.is_dir() else "."),
                            parameter="queries")
        source = TrecSource("queries", path)
    texts: dict[str, str] = {}
    numbers: dict[str, int] = {}
    for number, raw in enumerate(_split_lines(source), start=1):
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            raise LoadError(f"{path}:{number}: not UTF-8 text ({exc.reason}).") from None
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        if not tab or not qid.strip():
            raise LoadError(f"{path}:{number}: a queries line is `qid<TAB>text`; this one has no tab: {line!r:.80}.")
        qid = qid.strip()
        if qid in numbers:
            raise LoadError(f"{path}:{number}: query {qid!r} appears twice (first on line {numbers[qid]}); keep one line.")
        texts[qid], numbers[qid] = text, number
    return texts


def _split_lines(source: TrecSource) -> Any:
    """The file's pieces between ``\\n`` line ends (a ``\\r`` kept), a block at a time."""
    for block in blocks(source):
        pieces = block.data.split(b"\n")
        if block.data.endswith(b"\n"):
            pieces.pop()
        yield from pieces
