"""TREC run and qrels files: read into tidy frames, written atomically (``docs/persistence.md#trec-run-and-qrels-files``).

A run file holds one line ``qid Q0 docid rank score tag`` per retrieved document, a qrels file one line
``qid iter docid relevance`` per judgment; columns are separated by whitespace (as trec_eval splits them), files
are plain text or gzip (recognised by their first bytes). :func:`read_run` and :func:`read_qrels` take a path or
the dict-of-dicts form of ranx, ir_measures and pytrec_eval (``{qid: {docid: score}}`` / ``{qid: {docid: grade}}``)
and return tidy frames; :func:`write_run` and :func:`write_qrels` write them back. Parsing is vectorised (pandas'
C parser); a problem is then located by a second, line-by-line pass that names the file and the 1-based line.

trec_eval's rules kept here: a run's documents are ranked by score descending, ties by docid descending (code
point order); the rank column of the file is ignored. A docid twice in one query is refused ("duplicate docs"),
in runs and in qrels alike. Grades are integers.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import itertools
import math
import mmap
import numbers
import os
import re
import uuid
import warnings
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, Union

import numpy as np
import pandas as pd

from ..errors import InvalidParameterError, LoadError, SaveError
from ..build.trec import as_trec_scores, compact_codes, factorized, remember_codes, repeated_pairs, trec_order_codes
from .atomic import step, sync_file

__all__ = ["RUN_COLUMNS", "QRELS_COLUMNS", "read_run", "read_qrels", "read_queries", "write_run", "write_qrels", "check_tag"]

#: Columns of :func:`read_run`'s frame and of :func:`read_qrels`'.
RUN_COLUMNS: tuple[str, ...] = ("qid", "docid", "score", "rank")
QRELS_COLUMNS: tuple[str, ...] = ("qid", "docid", "relevance")

PathLike = Union[str, "os.PathLike[str]"]
RunInput = Union[PathLike, Mapping[str, Mapping[str, float]]]
QrelsInput = Union[PathLike, Mapping[str, Mapping[str, int]]]

_GZIP_MAGIC = b"\x1f\x8b"
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.IGNORECASE)
#: What separates columns: spaces and tabs (as pandas' whitespace parser and trec_eval split), and the line ends.
#: Other characters, NBSP or a form feed included, belong to the id they are in.
_WHITESPACE = re.compile(r"[ \t\r\n]")
_SEPARATOR = re.compile(r"[ \t]+")


class _Format:
    """What one kind of TREC file holds: its name, columns, where the ids and the value are."""

    def __init__(self, kind: str, layout: str, value: int, value_name: str) -> None:
        self.kind, self.layout, self.value, self.value_name = kind, layout, value, value_name
        self.width = len(layout.split())


_RUN = _Format("run", "qid Q0 docid rank score tag", 4, "score")
_QRELS = _Format("qrels", "qid iter docid relevance", 3, "relevance")


# ------------------------------------------------------------------------------------------ grouping
# ------------------------------------------------------------------------------------------ reading files
def _check_path(value: object, kind: str) -> Path:
    if isinstance(value, (str, os.PathLike)) and str(value):
        path = Path(value)
        if path.is_dir():
            raise LoadError(f"{kind} file {path} is a folder; give the TREC {kind} file itself.", parameter=kind)
        if not path.is_file():
            raise LoadError(f"{kind} file {path} does not exist.", parameter=kind)
        return path
    raise InvalidParameterError(
        f"{kind} must be a path to a TREC {kind} file or a dict {{qid: {{docid: "
        f"{'score' if kind == 'run' else 'grade'}}}}}; got {value!r:.80} of type {type(value).__name__}.")


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(2) == _GZIP_MAGIC


def _open(path: Path) -> BinaryIO:
    return gzip.open(path, "rb") if _is_gzip(path) else path.open("rb")  # type: ignore[return-value]


#: What reading a damaged or cut gzip file raises.
_DAMAGED_GZIP = (gzip.BadGzipFile, EOFError, zlib.error)


def _damaged(path: Path, kind: str, exc: BaseException) -> LoadError:
    return LoadError(f"{kind} file {path} cannot be read ({type(exc).__name__}: {exc}): the gzip file is damaged or "
                     "cut short.")


def _read_bytes(path: Path, kind: str) -> bytes:
    """The whole (decompressed) content, without a UTF-8 byte-order mark; damaged gzip and OS errors as LoadError."""
    try:
        with _open(path) as source:
            data = source.read()
    except _DAMAGED_GZIP as exc:
        raise _damaged(path, kind, exc) from None
    except OSError as exc:
        raise LoadError(f"{kind} file {path} cannot be read ({exc.strerror or exc}).") from None
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


#: trec_eval reads scores with atof, the nearest double: pandas 3 parses so by default (and deprecates the option);
#: pandas 2.2's default parser is an ulp off for some 17-digit scores, its "round_trip" parser is exact.
#: pandas 2.2's parsers are either an ulp off (default) or refuse an overflow such as 1e400 (round_trip), which atof
#: reads as inf: there the scores are read as text, checked, and converted by Python's float (correctly rounded).
_SCORES_AS_TEXT = int(pd.__version__.split(".")[0]) < 3


def _parse(path: Path, fmt: _Format) -> pd.DataFrame:
    """The file's columns (ids as text, the value as float64 for runs, as text for qrels); problems via :func:`_locate`."""
    dtype: dict[int, Any] = {i: object for i in range(fmt.width + 1)}  # one column more: to see lines that have one
    if fmt is _RUN and not _SCORES_AS_TEXT:
        dtype[fmt.value] = "float64"
    try:
        with _open(path) as source, warnings.catch_warnings():
            # a line with two or more extra columns: pandas warns and drops them; the check below refuses the line
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            frame = pd.read_csv(source, sep=r"\s+", header=None, names=list(range(fmt.width + 1)), dtype=dtype,
                                index_col=False,  # an extra column on every line is an error, not an index
                                na_filter=False, quoting=csv.QUOTE_NONE, engine="c", encoding="utf-8")
    except (ValueError, UnicodeDecodeError, OverflowError) as exc:  # ParserError is a ValueError
        _locate(path, fmt, exc)
    except _DAMAGED_GZIP as exc:
        raise _damaged(path, fmt.kind, exc) from None
    except OSError as exc:
        raise LoadError(f"{fmt.kind} file {path} cannot be read ({exc.strerror or exc}).") from None
    if len(frame) == 0:
        raise LoadError(f"{fmt.kind} file {path} holds no line; a TREC {fmt.kind} file has one line "
                        f"`{fmt.layout}` per {'retrieved document' if fmt is _RUN else 'judgment'}.")
    extra = frame[fmt.width].to_numpy()
    frame = frame.drop(columns=[fmt.width])
    if (frame[fmt.width - 1].to_numpy() == "").any() or (extra != "").any():
        _locate(path, fmt)  # a line with fewer or more columns
    if fmt is _RUN and _SCORES_AS_TEXT:
        if not frame[fmt.value].str.fullmatch(_NUMBER.pattern, flags=re.IGNORECASE).all():
            _locate(path, fmt)
        frame[fmt.value] = frame[fmt.value].to_numpy(dtype=object).astype(np.float64)
    return frame


def _locate(path: Path, fmt: _Format, detail: object = "") -> NoReturn:
    """Read the file line by line and raise a LoadError for the first bad line (the slow path, for errors only).

    ``detail``: what the fast path found, for the message when no line is to blame (not expected).
    """
    data = _read_bytes(path, fmt.kind)
    seen: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LoadError(f"{path}:{number}: not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason}); "
                            "TREC files are plain (ASCII or UTF-8) text.") from None
        fields = _SEPARATOR.split(line.strip(" \t"))
        fields = fields if fields != [""] else []
        if not fields:
            continue
        if len(fields) != fmt.width:
            raise LoadError(f"{path}:{number}: a TREC {fmt.kind} line has {fmt.width} whitespace-separated columns "
                            f"`{fmt.layout}`; this one has {len(fields)}: {line.strip()!r:.100}.")
        value = fields[fmt.value]
        if fmt is _RUN and not _NUMBER.fullmatch(value):
            raise LoadError(f"{path}:{number}: the score (column 5) must be a number; got {value!r:.40}.")
        if fmt is _QRELS and not _INTEGER.fullmatch(value):
            raise LoadError(f"{path}:{number}: the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 "
                            f"for unjudged); got {value!r:.40}.")
        if fmt is _QRELS and not -2**63 <= int(value) < 2**63:
            raise LoadError(f"{path}:{number}: the relevance grade {value!r:.40} is too large (64-bit integers).")
        key = (fields[0], fields[2])
        if key in seen:
            raise LoadError(f"{path}:{number}: document {fields[2]!r} appears twice in query {fields[0]!r} (first on line "
                            f"{seen[key]}); trec_eval refuses {'a run' if fmt is _RUN else 'qrels'} with duplicate "
                            "documents (\"duplicate docs\"). Keep one of the lines.")
        seen[key] = number
    raise LoadError(f"{path}: cannot be read as a TREC {fmt.kind} file ({detail or 'unexpected content'}); each line "
                    f"must be `{fmt.layout}`.")


class _Columns:
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
    def of_ids(cls, qids: np.ndarray, docids: np.ndarray, values: np.ndarray) -> _Columns:
        """From the ids as object arrays (factorised here)."""
        (q, q_values), (d, d_values) = factorized(qids), factorized(docids)
        return cls(q, q_values, d, d_values, values)

    def has_duplicate(self) -> bool:
        """Whether a (qid, docid) pair repeats."""
        return bool(repeated_pairs(self.qid_codes, self.docid_codes, len(self.qid_values), len(self.docid_values)).any())

    def frame(self, order: np.ndarray, values: dict[str, np.ndarray]) -> pd.DataFrame:
        """The frame ``qid, docid`` (object columns) and ``values`` of the rows ``order``; its qid and docid codes are
        recorded for trec_frame (no hashing there), with their pairs distinct (a file's were checked; a dict's are its
        keys). Each column's codes are gathered once, for the objects and the record."""
        qid_codes, docid_codes = compact_codes(self.qid_codes[order]), compact_codes(self.docid_codes[order])
        frame = pd.DataFrame({"qid": pd.Series(self.qid_values[qid_codes], dtype=object),
                              "docid": pd.Series(self.docid_values[docid_codes], dtype=object), **values}, copy=False)
        remember_codes(frame, {"qid": (qid_codes, self.qid_values), "docid": (docid_codes, self.docid_values)},
                       distinct=("qid", "docid"), arrow=self.arrow_values)
        return frame


def _read_file(path: Path, fmt: _Format) -> _Columns:
    """qids, docids and values (float64 scores / int64 grades) of a file, in file order, checked."""
    columns = _read_arrow(path, fmt)
    if columns is None:
        frame = _parse(path, fmt)
        qids, docids = frame[0].to_numpy(dtype=object), frame[2].to_numpy(dtype=object)
        if fmt is _RUN:
            values = frame[fmt.value].to_numpy(dtype=np.float64)
        else:
            text = frame[fmt.value]
            if not text.str.fullmatch(_INTEGER.pattern).all():
                _locate(path, fmt)
            try:
                values = text.to_numpy(dtype=object).astype(np.int64)
            except (ValueError, OverflowError) as exc:
                _locate(path, fmt, exc)
        columns = _Columns.of_ids(qids, docids, values)
    if columns.has_duplicate():
        _locate(path, fmt)
    return columns


def _read_arrow(path: Path, fmt: _Format) -> _Columns | None:
    """The file parsed by pyarrow's multi-threaded CSV reader, ids dictionary-encoded; None when pyarrow is missing
    or the file is not plain single-space-separated lines of well-formed values (the pandas path then reads it, and
    names the line of any problem).
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pa_csv
    except ImportError:  # pragma: no cover - pyarrow is optional
        return None
    try:
        if _is_gzip(path):
            with gzip.open(path, "rb") as source:
                data: Any = source.read()
        else:  # mapped, not copied: the checks and pyarrow read the file's pages
            with path.open("rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if path.stat().st_size else b""
    except (*_DAMAGED_GZIP, OSError, ValueError):
        return None  # the pandas path reports it
    if not len(data) or data.find(b"\t") >= 0 or data.find(b"  ") >= 0:  # find: a memchr scan, faster than a regex
        return None
    names = [f"c{i}" for i in range(fmt.width + 1)]  # one column more: to see lines that have one
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(column_names=names[:fmt.width]),
            parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
            convert_options=pa_csv.ConvertOptions(column_types={name: pa.string() for name in names[:fmt.width]},
                                                  include_columns=[names[0], names[2], names[fmt.value]]))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None  # a line with more or fewer columns, text that is not UTF-8, ...
    del data
    if table.num_rows == 0:
        return None
    qids, docids, text = (table.column(i) for i in range(3))  # chunked: encoded chunk by chunk, never concatenated
    del table
    # an empty column (a line starting with a space) or a value that is not a plain number: the pandas path decides
    if min(pc.min(pc.binary_length(column)).as_py() for column in (qids, docids, text)) == 0:
        return None
    try:
        if fmt is _RUN:
            values = pc.cast(text, pa.float64()).to_numpy()
            if np.isnan(values).any():
                return None
        else:
            if not pc.all(pc.match_substring_regex(text, r"^[+-]?[0-9]+$")).as_py():
                return None
            values = pc.cast(text, pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    del text
    (q_codes, q_dictionary), (d_codes, d_dictionary) = _dictionary_codes(qids), _dictionary_codes(docids)
    del qids, docids
    columns = _Columns(q_codes, q_dictionary.to_numpy(zero_copy_only=False),
                       d_codes, d_dictionary.to_numpy(zero_copy_only=False), values)
    columns.arrow_values = {"qid": q_dictionary, "docid": d_dictionary}

    def text_ranks() -> np.ndarray:  # Arrow sorts strings by their UTF-8 bytes: code point order
        ranks = np.empty(len(d_dictionary), dtype=np.int64)
        ranks[pc.sort_indices(d_dictionary).to_numpy()] = np.arange(len(d_dictionary))
        return ranks

    columns.text_ranks = text_ranks
    return columns


def _dictionary_codes(column: Any) -> tuple[np.ndarray, Any]:
    """A chunked Arrow string column as codes (in order of first appearance) and its dictionary (an Arrow array).

    Arrow encodes the chunks with one hash table and gives every chunk the same final dictionary, so the codes are
    the chunks' indices one after the other (no concatenation of the strings); should the chunks ever hold
    different dictionaries, the column is concatenated and encoded whole.
    """
    encoded = column.dictionary_encode()
    chunks = [chunk for chunk in encoded.chunks if len(chunk)]
    dictionary = chunks[0].dictionary
    same = [buffer.address if buffer is not None else 0 for buffer in dictionary.buffers()]
    if all(len(chunk.dictionary) == len(dictionary) and [buffer.address if buffer is not None else 0
                                                        for buffer in chunk.dictionary.buffers()] == same
           for chunk in chunks):
        return np.concatenate([chunk.indices.to_numpy() for chunk in chunks]), dictionary
    whole = column.combine_chunks().dictionary_encode()  # pragma: no cover - not seen with pyarrow 14-26
    return whole.indices.to_numpy(), whole.dictionary  # pragma: no cover


# ------------------------------------------------------------------------------------------ reading dicts
def _read_mapping(mapping: Mapping[Any, Any], fmt: _Format) -> _Columns:
    """qids, docids and values of the dict-of-dicts form, checked (errors name the qid and docid)."""
    what = "run" if fmt is _RUN else "qrels"
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
            if fmt is _RUN:
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
    if fmt is _RUN and not qids:
        raise InvalidParameterError(f"the run dict {dict(mapping)!r:.80} holds no document; give {{qid: {{docid: score}}}}.")
    value_array = np.array(values, dtype=np.float64 if fmt is _RUN else np.int64)
    return _Columns.of_ids(np.array(qids, dtype=object), np.array(docids, dtype=object), value_array)


def _check_id(value: object, where: str) -> None:
    if not isinstance(value, str):
        raise InvalidParameterError(f"{where} must be a string (TREC ids are text); got {type(value).__name__}. "
                                    "Convert the ids with str().")
    if not value or _WHITESPACE.search(value):
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
        A missing or empty file, a line without 6 columns, a score that is not a number (NaN included),
        a docid twice in one query; the message names the file and the 1-based line.
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
    columns = _read_mapping(run, _RUN) if isinstance(run, Mapping) else _read_file(_check_path(run, "run"), _RUN)
    order, ranks = trec_order_codes(columns.qid_codes, columns.docid_codes, columns.docid_values,
                                    as_trec_scores(columns.values), text_ranks=columns.text_ranks)
    frame = columns.frame(order, {"score": columns.values[order], "rank": ranks})
    return frame


def read_qrels(qrels: QrelsInput) -> pd.DataFrame:
    """TREC relevance judgments as a tidy frame ``qid, docid, relevance``.

    Parameters
    ----------
    qrels : path or dict
        A qrels file (``qid iter docid relevance`` per line, whitespace-separated, plain or gzip; the ``iter``
        column is ignored) or ``{qid: {docid: grade}}``.

    Returns
    -------
    pandas.DataFrame
        One row per judgment: ``qid``, ``docid`` (str) and ``relevance`` (int64). Queries in order of first
        appearance, judgments of a query in file (dict) order. ``{}`` gives an empty frame.

    Raises
    ------
    LoadError
        A missing or empty file, a line without 4 columns, a grade that is not an integer, a docid judged twice
        in one query; the message names the file and the 1-based line.
    InvalidParameterError
        The dict form with a bad id or a grade that is not an int, naming the qid and the docid.

    Examples
    --------
    >>> read_qrels({"q1": {"d2": 2, "d1": 0}})
      qid docid  relevance
    0  q1    d2          2
    1  q1    d1          0
    """
    columns = _read_mapping(qrels, _QRELS) if isinstance(qrels, Mapping) else _read_file(_check_path(qrels, "qrels"), _QRELS)
    order = np.argsort(columns.qid_codes, kind="stable")  # grouped by query, in order of first appearance
    frame = columns.frame(order, {"relevance": columns.values[order]})
    return frame


def read_queries(queries: PathLike | Mapping[str, str]) -> dict[str, str]:
    """Query texts by qid, from ``{qid: text}`` or a TSV file with lines ``qid<TAB>text`` (plain or gzip).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "queries.tsv"
    >>> _ = path.write_text("q1\\twho wrote hamlet\\nq2\\tcapital of peru\\n")
    >>> read_queries(path)
    {'q1': 'who wrote hamlet', 'q2': 'capital of peru'}
    """
    if isinstance(queries, Mapping):
        for qid, text in queries.items():
            if not isinstance(qid, str) or not isinstance(text, str):
                raise InvalidParameterError(f"queries must map query ids (str) to query texts (str); got {qid!r}: "
                                            f"{text!r:.60}.")
        return dict(queries)
    if not isinstance(queries, (str, os.PathLike)) or not str(queries):
        raise InvalidParameterError(f"queries must be a dict {{qid: text}} or the path of a TSV file `qid<TAB>text`; "
                                    f"got {queries!r:.80} of type {type(queries).__name__}.")
    path = Path(queries)
    if not path.is_file():
        raise LoadError(f"queries file {path} does not exist" + (" (it is a folder)." if path.is_dir() else "."),
                        parameter="queries")
    texts: dict[str, str] = {}
    lines: dict[str, int] = {}
    data = _read_bytes(path, "queries")
    for number, raw in enumerate(data.split(b"\n"), start=1):
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
        if qid in lines:
            raise LoadError(f"{path}:{number}: query {qid!r} appears twice (first on line {lines[qid]}); keep one line.")
        texts[qid], lines[qid] = text, number
    return texts


# ------------------------------------------------------------------------------------------ writing
def check_tag(tag: object) -> str:
    """A run's name for column 6: a non-empty str without whitespace (a space would split the column).

    Examples
    --------
    >>> check_tag("bm25")
    'bm25'
    """
    if not isinstance(tag, str) or not tag or _WHITESPACE.search(tag):
        raise InvalidParameterError(f"tag must be a non-empty string without whitespace (the run's name in column 6); "
                                    f"got {tag!r}.", parameter="tag")
    return tag


def write_run(run: pd.DataFrame | Mapping[str, Mapping[str, float]], path: PathLike, *, tag: str = "evalframe") -> Path:
    """Write a TREC run file atomically (``.gz``: gzip); returns the path written.

    ``run`` is a frame with columns ``qid``, ``docid`` and ``score`` (as :func:`read_run` returns; a ``rank``
    column is ignored) or ``{qid: {docid: score}}``. Lines follow trec_eval's ranking (queries in order of
    first appearance, score descending, ties by docid descending) with ranks 1..n, so the file's order and
    rank column agree with what trec_eval computes; scores are written with ``repr`` (the shortest text that
    reads back as the same float). The file is replaced whole or not at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = write_run({"q1": {"d1": 0.5, "d2": 1.5}}, pathlib.Path(tempfile.mkdtemp()) / "run.txt", tag="bm25")
    >>> print(path.read_text(), end="")
    q1 Q0 d2 1 1.5 bm25
    q1 Q0 d1 2 0.5 bm25
    """
    check_tag(tag)
    columns = _frame_columns(run, _RUN, read_run)
    values = columns.values
    if np.isnan(values).any():
        first = int(np.flatnonzero(np.isnan(values))[0])
        raise SaveError(f"cannot write the run to {path}: query {columns.qid_values[columns.qid_codes[first]]!r}, document "
                        f"{columns.docid_values[columns.docid_codes[first]]!r} has no score (NaN); trec_eval needs a number "
                        "on every line.")
    order, ranks = trec_order_codes(columns.qid_codes, columns.docid_codes, columns.docid_values, as_trec_scores(values))
    return _write_text(path, _lines(columns, order, [" Q0 ", " ", " ", f" {tag}\n"], ranks, values[order]), "run")


def write_qrels(qrels: pd.DataFrame | Mapping[str, Mapping[str, int]], path: PathLike) -> Path:
    """Write a TREC qrels file atomically (``.gz``: gzip), one line ``qid 0 docid relevance`` per row, in row order.

    ``qrels`` is a frame with columns ``qid``, ``docid`` and ``relevance`` (integers), as :func:`read_qrels`
    returns, or ``{qid: {docid: grade}}``; returns the path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = write_qrels({"q1": {"d1": 1, "d7": 0}}, pathlib.Path(tempfile.mkdtemp()) / "qrels.txt")
    >>> print(path.read_text(), end="")
    q1 0 d1 1
    q1 0 d7 0
    """
    columns = _frame_columns(qrels, _QRELS, read_qrels)
    order = np.arange(len(columns.values))
    return _write_text(path, _lines(columns, order, [" 0 ", " ", "\n"], columns.values), "qrels")


def _lines(columns: _Columns, order: np.ndarray, separators: list[str], *numbers: np.ndarray) -> bytes:
    """The UTF-8 text of the lines ``qid sep docid sep number sep number ...`` of the rows ``order``.

    ``separators``: the text after the qid, after the docid and after each of ``numbers`` (int64: written in
    decimal; float64: with ``repr``, the shortest text that reads back as the same float; one ``repr`` per distinct
    value). With pyarrow the lines are joined column-wide in Arrow (ids as dictionary codes, no Python string per
    line); without it, one f-string per line.
    """
    parts: list[tuple[np.ndarray, np.ndarray]] = [(columns.qid_codes[order], columns.qid_values),
                                                  (columns.docid_codes[order], columns.docid_values)]
    for values in numbers:
        codes, distinct = pd.factorize(values.view(np.int64) if values.dtype == np.float64 else values, sort=False)
        texts = list(map(repr, distinct.view(np.float64).tolist())) if values.dtype == np.float64 else \
            list(map(str, distinct.tolist()))
        parts.append((codes, np.array(texts, dtype=object)))
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is optional
        cells = [values[codes].tolist() for codes, values in parts] + [itertools.repeat("")]
        return "".join("".join(itertools.chain.from_iterable(zip(row, separators))) for row in zip(*cells)).encode("utf-8")
    arrays = [pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int64, copy=False)),
                                             pa.array(values.tolist(), type=pa.large_string())).cast(pa.large_string())
              for codes, values in parts]
    pieces = [piece for array, separator in itertools.zip_longest(arrays, separators)
              for piece in (array, pa.scalar(separator, type=pa.large_string())) if piece is not None]
    joined = pc.binary_join_element_wise(*pieces, pa.scalar("", type=pa.large_string()))  # the last: the separator
    end = int(np.frombuffer(joined.buffers()[1], dtype=np.int64)[joined.offset + len(joined)])
    start = int(np.frombuffer(joined.buffers()[1], dtype=np.int64)[joined.offset])
    return joined.buffers()[2].to_pybytes()[start:end]


def _frame_columns(table: Any, fmt: _Format, reader: Callable[[Any], pd.DataFrame]) -> _Columns:
    """qids, docids and values of a frame (or dict) to write, checked: ids writable, no duplicate, values typed."""
    if isinstance(table, Mapping):
        table = reader(table)
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(f"the {fmt.kind} to write must be a DataFrame with columns qid, docid, "
                                    f"{fmt.value_name} or a dict {{qid: {{docid: {fmt.value_name}}}}}; "
                                    f"got {type(table).__name__}.")
    missing = [c for c in ("qid", "docid", fmt.value_name) if c not in table.columns]
    if missing:
        raise InvalidParameterError(f"the {fmt.kind} frame lacks the column(s) {missing}; it needs qid, docid and "
                                    f"{fmt.value_name} (as read_{fmt.kind} returns).")
    if len(table) == 0:
        what = "retrieved document" if fmt is _RUN else "judgment"
        raise SaveError(f"the {fmt.kind} holds no {what}, so there is no line to write (and read_{fmt.kind} refuses an "
                        f"empty file); nothing was written.")
    qids = table["qid"].to_numpy(dtype=object)
    docids = table["docid"].to_numpy(dtype=object)
    columns = _Columns.of_ids(qids, docids, np.zeros(0))
    for name, ids, distinct in (("qid", qids, columns.qid_values), ("docid", docids, columns.docid_values)):
        if not _writable_ids(distinct):
            first = next(i for i, value in enumerate(ids.tolist()) if not _writable_ids(np.array([value], dtype=object)))
            raise SaveError(f"cannot write {fmt.kind} row {first + 1}: its {name} {ids[first]!r:.60} is not a non-empty "
                            "string without whitespace (TREC files separate columns by whitespace).")
    duplicated = repeated_pairs(columns.qid_codes, columns.docid_codes, len(columns.qid_values), len(columns.docid_values))
    if duplicated.any():
        first = int(np.flatnonzero(duplicated)[0])
        raise SaveError(f"cannot write the {fmt.kind}: document {docids[first]!r} appears twice in query {qids[first]!r}; "
                        f"trec_eval refuses {fmt.kind} with duplicate documents. Keep one row per (qid, docid).")
    values = table[fmt.value_name]
    if fmt is _RUN:
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            raise InvalidParameterError(f"the run's score column must hold numbers; got dtype {values.dtype}.")
        columns.values = values.to_numpy(dtype=np.float64)
        return columns
    if not pd.api.types.is_integer_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise InvalidParameterError(f"the qrels' relevance column must hold integers; got dtype {values.dtype}. "
                                    "Convert it with .astype('int64').")
    columns.values = values.to_numpy(dtype=np.int64)
    return columns


def _writable_ids(ids: np.ndarray) -> bool:
    """Whether every id is a non-empty str without whitespace (checked in C: one join and one search)."""
    try:
        joined = "\x00".join(ids.tolist())  # TypeError for anything but str
    except TypeError:
        return False
    return not (ids == "").any() and _WHITESPACE.search(joined) is None


def _write_text(path: PathLike, data: bytes, kind: str) -> Path:
    """Replace ``path`` by a file holding ``data`` (UTF-8 text; gzip when the name ends with .gz): whole or not at all.

    The content goes to a hidden sibling ``.<name>.evalframe-write-<id>``, is fsync'ed, renamed over the target
    (atomic on POSIX) and the folder fsync'ed; on any failure the sibling is removed and the old file stays.
    A symbolic link keeps pointing at the file it names, which is replaced.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidParameterError(f"path must name the {kind} file to write; got {path!r:.80}.")
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    if target.is_dir():
        raise SaveError(f"cannot write the {kind} file: {target} is a folder; give a file name.")
    if not target.parent.is_dir():
        raise SaveError(f"cannot write the {kind} file {target}: the folder {target.parent} does not exist.")
    if target.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)  # no time stamp: the same content gives the same bytes
    staging = target.parent / f".{target.name}.evalframe-write-{uuid.uuid4().hex[:12]}"
    try:
        step(f"write {target.name}")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        sync_file(staging)
        step(f"rename {target.name}")
        os.replace(staging, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise SaveError(f"cannot write the {kind} file {target}: {exc.strerror or exc}; the previous file (if any) is "
                        "unchanged.") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise
    with contextlib.suppress(OSError):
        fd = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return Path(path)
