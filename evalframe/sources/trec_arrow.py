"""The TREC reader: run and qrels files read by pyarrow into columns, ids as codes into Arrow dictionaries (no pandas).

:func:`read_arrow` reads a plain or gzip file, a FIFO or standard input a batch of whole lines at a time
(:mod:`evalframe.sources.trec_stream`: a gzip file decompressed as it is read, a stream read once, nothing held whole),
as trec_eval 10.0 reads runs: columns separated by spaces and tabs, blank lines and comment lines
(:data:`COMMENT_LINE`) skipped, a run's columns after the sixth ignored, a qrels line of four columns, ``\\n``,
``\\r\\n`` and ``\\r`` ending a line. Each batch is parsed by pyarrow's multi-threaded CSV reader when its lines are
single-space-separated (most files), else by Arrow's string kernels (the lines trimmed and split on runs of blanks);
either way the query and document ids become integer codes (in order of first appearance) into Arrow dictionaries
(no Python str per id), the scores float64 and the grades int64 numpy arrays. A score is a number as trec_eval's
atof reads it (:data:`NUMBER`: decimal, exponent, ``inf``; the nearest double), a grade an integer of 64 bits.

A docid twice in a query (``"duplicate docs"``, refused by trec_eval) is looked for in each batch as it is read (a
gzip file of a few lines repeated stops at its first batch) and, for the queries found in more than one batch, once
the file is read. Whatever is wrong is refused with a :class:`evalframe.errors.LoadError` naming the file and the
1-based line of the first problem: the offending batch alone is read again line by line (never the file: standard
input is read once) to word it, and the lines read before it are looked at for a docid repeated earlier. A stream's
columns may be kept on its source for a second reader (``keep``). The readers allocate from :func:`memory_pool`'s
pools (not a process-wide setting); :func:`arrow_trec_order` puts a run's lines in trec_eval's ranking with the
docids compared in Arrow (``evalframe trec`` and ``from_trec`` share it).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..errors import LoadError
from ..frames.trec_ranking import as_trec_scores, pairs_repeat, trec_order_lines
from .trec_stream import TrecSource, batches, checked_source

__all__ = ["TrecFormat", "RUN_FORMAT", "QRELS_FORMAT", "ArrowColumns", "read_arrow", "forget", "dictionary_codes",
           "COMMENT_LINE", "NUMBER", "INTEGER", "without_comments", "last_tag", "numpy_of", "arrow_of", "string_array",
           "memory_pool", "arrow_trec_order", "RunBatch", "read_run_batches"]


class TrecFormat:
    """What one kind of TREC file holds: its name, columns, where the ids and the value are."""

    def __init__(self, kind: str, layout: str, value: int, value_name: str) -> None:
        self.kind, self.layout, self.value, self.value_name = kind, layout, value, value_name
        self.width = len(layout.split())


RUN_FORMAT = TrecFormat("run", "qid Q0 docid rank score tag", 4, "score")
QRELS_FORMAT = TrecFormat("qrels", "qid iter docid relevance", 3, "relevance")

#: A score as trec_eval's atof reads it (and pandas' and Arrow's parsers: the same spellings; NaN refused): a decimal
#: number with an optional exponent, or inf / infinity, signed or not.
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.IGNORECASE)
#: A relevance grade: an integer (within 64 bits).
INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = f"(?i)^(?:{NUMBER.pattern})$"  # the same, for Arrow's regular expressions (RE2)
_INTEGER_TEXT = f"^{INTEGER.pattern}$"
#: What separates columns: spaces and tabs (as trec_eval splits them). Other characters, NBSP or a form feed
#: included, belong to the id they are in.
_SEPARATOR = re.compile(r"[ \t]+")
#: A line end, as ``bytes.splitlines`` reads them (the numbering of the lines in messages).
_LINE_END = re.compile(rb"\r\n|\r|\n")
#: Said of a qrels line that looks like preference judgments (5 columns, or a grade with a fraction).
_PREFERENCES = (" If these are preference judgments (trec_eval -R prefs: `qid jg jsg docid level`, the level a real "
                "number): evalframe does not evaluate them; it reads graded qrels `qid iter docid relevance`, integer "
                "grades.")
#: Files above this size (bytes) are parsed by pyarrow's thread pool, smaller ones (and streams) in this thread.
_THREADED_SIZE = 64 << 20
#: Bytes parsed at a time (whole lines; a threaded read parses its blocks on pyarrow's threads).
_BATCH = 16 << 20
#: Bytes split by the string kernels at a time (a batch of irregular lines: bounds the arrays of its line offsets).
_PIECE = 4 << 20


def _has_pair(data: Any, pair: bytes, start: int = 0) -> bool:
    """Whether the two bytes ``pair`` follow each other in ``data`` (from ``start`` on): the bytes viewed as 16-bit
    words at both alignments, compared with the pair, a few MB at a time (in the cache; bytes.find's search for two
    bytes is several times slower than this)."""
    view = np.frombuffer(data, dtype=np.uint8)[start:]
    word = np.frombuffer(pair, dtype=np.uint16)[0]
    step = 1 << 22
    for begin in range(0, len(view), step):
        part = view[begin:begin + step + 1]  # one byte more: a pair across the boundary
        even = part[:len(part) // 2 * 2].view(np.uint16)
        odd = part[1:1 + (len(part) - 1) // 2 * 2].view(np.uint16)
        if (even == word).any() or (odd == word).any():
            return True
    return False


#: A comment line as trec_eval 10.0 reads runs (get_trec_results.c): its first character other than a space or a tab
#: is ``#``. (Its qrels reader takes one ``#`` line at a time, at the start of the line only; evalframe reads both
#: kinds of file by the run reader's rule.) A ``#`` further on in a line is part of its column (docids hold them).
COMMENT_LINE = re.compile(rb"^[ \t]*#[^\n]*", re.MULTILINE)


def without_comments(data: Any) -> Any:
    """The bytes with every comment line (:data:`COMMENT_LINE`) emptied, its line end kept (lines keep their numbers);
    ``data`` itself when it has none.

    Examples
    --------
    >>> without_comments(b"# a run\\nq1 Q0 d#1 1 2.0 r\\n  # the end\\n")
    b'\\nq1 Q0 d#1 1 2.0 r\\n\\n'
    """
    if data.find(b"#") < 0:
        return data
    return COMMENT_LINE.sub(b"", data)


def _comment_header(data: bytes) -> int:
    """Where the lines after a header of comment lines (``#`` first) start: read from there, a view of the same
    bytes (no copy), numbered on after them. The first line end followed by a line not starting with ``#``, looked
    for a megabyte at a time with numpy (no Python step per line)."""
    view = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 20
    for begin in range(0, len(view) - 1, step):
        part = view[begin:begin + step + 1]
        breaks = (part[:-1] == 10) & (part[1:] != 35)  # a line end, and the next line not a "#" one
        at = int(np.argmax(breaks))
        if breaks[at]:
            return begin + at + 1
    return len(data)


def last_tag(data: bytes, *, whole: bool = True) -> bytes | None:
    """The tag (6th column, whitespace-separated) of the last line of ``data`` that has one and is no ``#`` comment:
    what trec_eval prints as ``runid`` (it keeps the last line's); ``whole=False``: the first line may be cut.

    Examples
    --------
    >>> last_tag(b"q1 Q0 d1 1 2.0 bm25\\nq2 Q0 d1 1 2.0 rm3 extra\\n\\n# a comment\\n")
    b'rm3'
    """
    lines = data.split(b"\n")
    if not whole:
        lines = lines[1:]
    for line in reversed(lines):
        fields = line.split()
        if fields and not fields[0].startswith(b"#") and len(fields) >= 6:
            return fields[5]
    return None


@dataclass(frozen=True)
class ArrowColumns:
    """A TREC file's columns in file order: the ids as codes (int32, numbered in order of first appearance) into
    Arrow string arrays of the distinct ids, and the values (float64 scores of a run, int64 grades of qrels).
    Read with ``encode_docids=False``, ``docid_codes`` is None and ``docids`` the file's column (a chunked array,
    one docid per line); read with ``subtopics=True`` (qrels), the second column is coded too.

    Attributes
    ----------
    qid_codes : numpy.ndarray
        Each line's query code (int32), into ``qids``.
    qids : pyarrow.StringArray
        The distinct query ids, in order of first appearance.
    docid_codes : numpy.ndarray or None
        Each line's document code (int32) into ``docids``; None when read with ``encode_docids=False``.
    docids : pyarrow.StringArray or pyarrow.ChunkedArray
        The distinct docids (in order of first appearance), or every line's docid when not encoded.
    values : numpy.ndarray
        Each line's score (float64, a run) or grade (int64, qrels).
    subtopic_codes : numpy.ndarray or None
        Each line's subtopic code (int32) into ``subtopics`` (subtopic qrels), else None.
    subtopics : pyarrow.StringArray or None
        The distinct subtopics (the second column), in order of first appearance.

    Examples
    --------
    >>> columns = ArrowColumns(np.array([0, 0, 1], dtype=np.int32), string_array(["q1", "q2"]),
    ...                        np.array([0, 1, 0], dtype=np.int32), string_array(["d2", "d1"]), np.array([1, 0, 2]))
    >>> columns.qids.to_pylist()[1], columns.docids.to_pylist()[columns.docid_codes[1]], int(columns.values[2])
    ('q2', 'd1', 2)
    """

    qid_codes: np.ndarray
    qids: Any  # pyarrow.StringArray
    docid_codes: np.ndarray | None
    docids: Any  # pyarrow.StringArray, or a ChunkedArray of every line's docid
    values: np.ndarray
    subtopic_codes: np.ndarray | None = None
    subtopics: Any = None


def read_arrow(source: Path | TrecSource, fmt: TrecFormat, *, encode_docids: bool = True, subtopics: bool = False,
               keep: bool = False) -> ArrowColumns:
    """The file parsed a batch of lines at a time (:func:`evalframe.sources.trec_stream.batches`: a gzip file
    decompressed as it is read, a stream read once), ids dictionary-encoded (the docids only with ``encode_docids``:
    millions of distinct docids take seconds to encode), every line checked: a problem is refused naming the line.

    Parameters
    ----------
    source : pathlib.Path or TrecSource
        A plain or gzip TREC file, a FIFO, or standard input (:func:`evalframe.sources.trec_stream.standard_input`).
    fmt : TrecFormat
        :data:`RUN_FORMAT` (``qid Q0 docid rank score tag``) or :data:`QRELS_FORMAT` (``qid iter docid relevance``).
    encode_docids : bool
        Whether the docids are dictionary-encoded (else ``docids`` is the file's column, ``docid_codes`` None).
    subtopics : bool
        Qrels whose second column is the subtopic (a diversity qrels): coded too, and a document may be judged
        once per subtopic of a query (a (query, subtopic, document) once).
    keep : bool
        Keep what was read from a stream (standard input, a FIFO) on its source, for the next ``read_arrow`` of it
        (a stream is read once); a file is read again by the next reader instead.

    Returns
    -------
    ArrowColumns
        The columns in file order.

    Raises
    ------
    LoadError
        Naming the file, and the 1-based line where a line is to blame (the first one): a missing file or a folder,
        a file without any line (but comments and blank lines), a line with too few columns (a qrels line: other
        than four), a score that is no number (NaN included), a grade that is no 64-bit integer, text that is not
        UTF-8, a docid twice in a query (with the line of its first appearance); and what
        :func:`evalframe.sources.trec_stream.blocks` raises: a file that cannot be read, a damaged gzip file, a line
        longer than :data:`evalframe.sources.trec_stream.MAX_LINE` bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d2 1 2.5 bm25\\nq1 Q0 d1 2 1.5 bm25\\nq2\\tQ0  d2 1 0.5 bm25 extra\\n")
    >>> columns = read_arrow(path, RUN_FORMAT)
    >>> columns.qid_codes.tolist(), columns.docids.to_pylist(), columns.values.tolist()
    ([0, 0, 1], ['d2', 'd1'], [2.5, 1.5, 0.5])
    >>> _ = path.write_text("q1 Q0 d2 1 2.5 bm25\\nq1 Q0 d1 2 high bm25\\n")
    >>> read_arrow(path, RUN_FORMAT)
    Traceback (most recent call last):
    ...
    evalframe.errors.LoadError: ...run.txt:2: the score (column 5) must be a number; got 'high'.
    """
    source = checked_source(source, fmt.kind)
    key = ("columns", fmt.kind, subtopics)
    read = source.memo.pop(key, None)  # a stream's columns, kept by the reader before (read once)
    if read is None:
        read = _Reader(source, fmt, subtopics).read()
    if keep and not source.rereadable:
        source.memo[key] = read
    return read.columns(encode_docids)


def forget(source: TrecSource) -> None:
    """Drop the columns kept on ``source`` for another reader (``read_arrow(..., keep=True)``): they are not needed
    again (a run's tag stays).

    Examples
    --------
    >>> import io
    >>> from evalframe.sources.trec_stream import standard_input
    >>> source = standard_input("qrels", io.BytesIO(b"q1 0 d1 1\\n"))
    >>> _ = read_arrow(source, QRELS_FORMAT, keep=True)
    >>> forget(source)
    >>> source.memo
    {}
    """
    for key in [key for key in source.memo if isinstance(key, tuple) and key[:1] == ("columns",)]:
        del source.memo[key]


class RunBatch(NamedTuple):
    """One batch of a run's lines (:func:`read_run_batches`): every row's query id and docid (Arrow strings), score
    (float64) and line (int64, 1-based, counted from the ``first_line`` the reader was given)."""

    qids: Any
    docids: Any
    scores: np.ndarray
    lines: np.ndarray


def read_run_batches(source: TrecSource, *, first_line: int = 1) -> Iterator[RunBatch]:
    """A run's lines a batch at a time, parsed and checked as :func:`read_arrow` reads a run, none kept after its
    batch: memory is bounded by a batch, however long the file (a part of a file, a gzip file streamed).

    ``first_line`` is the number of the source's first line in its file (a block cut from a file at a line end), so
    every message names the file's line. A docid twice in a query is refused within a batch; repeats across batches
    are the caller's to find (:attr:`RunBatch.lines` names them). A source of comment and blank lines only yields
    nothing (a block of a file may hold no run line).

    Examples
    --------
    >>> import io
    >>> from evalframe.sources.trec_stream import standard_input
    >>> source = standard_input("run", io.BytesIO(b"q1 Q0 d1 1 2.0 r\\n# note\\nq2 Q0 d1 1 1.5 r\\n"))
    >>> [(batch.qids.to_pylist(), batch.lines.tolist()) for batch in read_run_batches(source, first_line=41)]
    [(['q1', 'q2'], [41, 43])]
    """
    reader = _Reader(source, RUN_FORMAT, False)
    lone_cr = 0  # lone "\r" line ends so far: the blocks number lines by "\n"
    for batch in batches(source, _BATCH):
        first = batch.line + lone_cr + first_line - 1
        part = reader._batch(batch.data, first)
        if part is not None and len(part):
            if reader._repeats_within(part):
                reader._refuse(extra=part)
            offsets = np.arange(len(part), dtype=np.int64) if part.lines is None else part.lines.astype(np.int64)
            qids = part.q_dict.take(arrow_of(part.q_codes))
            yield RunBatch(qids, part.docids, part.values, offsets + part.first_line)
        if batch.data.find(b"\r") >= 0:
            lone_cr += batch.data.count(b"\r") - batch.data.count(b"\r\n")


@dataclass
class _Read:
    """What a read gives: the query codes and ids, every line's docid, the values (the docids coded on demand)."""

    qid_codes: np.ndarray
    qids: Any
    docids: Any
    values: np.ndarray
    subtopic_codes: np.ndarray | None
    subtopics: Any
    pool: Any
    coded: tuple[np.ndarray, Any] | None = None

    def columns(self, encode_docids: bool) -> ArrowColumns:
        if not encode_docids:
            return ArrowColumns(self.qid_codes, self.qids, None, self.docids, self.values, self.subtopic_codes,
                                self.subtopics)
        if self.coded is None:
            self.coded = dictionary_codes(self.docids, self.pool)
        codes, dictionary = self.coded
        return ArrowColumns(self.qid_codes, self.qids, codes, dictionary, self.values, self.subtopic_codes,
                            self.subtopics)


@dataclass
class _Part:
    """One batch's rows: query codes into the batch's own dictionary, every row's docid (Arrow strings), the values,
    the second column's codes (qrels), each row's line (counted from ``first_line``; None: row i is on line
    ``first_line + i``) and a run's last tag."""

    first_line: int
    q_codes: np.ndarray
    q_dict: Any
    docids: Any
    values: np.ndarray
    g_codes: np.ndarray | None = None
    g_dict: Any = None
    lines: np.ndarray | None = None
    tag: bytes | None = None

    def __len__(self) -> int:
        return len(self.values)

    def line(self, row: int) -> int:
        return self.first_line + (row if self.lines is None else int(self.lines[row]))


class _Reader:
    """One read of a source: its batches parsed, checked and merged (see :func:`read_arrow`)."""

    def __init__(self, source: TrecSource, fmt: TrecFormat, subtopics: bool) -> None:
        self.source, self.fmt, self.subtopics = source, fmt, subtopics
        self.threaded = source.size() > _THREADED_SIZE
        self.pool = memory_pool(threaded=self.threaded)  # the reader's and its compute calls'
        self.parts: list[_Part] = []
        self.comments = False  # a comment line seen (said when there is no other line)

    def read(self) -> _Read:
        lone_cr = 0  # lone "\r" line ends so far: the blocks number lines by "\n"
        for batch in batches(self.source, _BATCH):
            first = batch.line + lone_cr
            part = self._batch(batch.data, first)
            if part is not None and len(part):
                if self._repeats_within(part):
                    self._refuse(extra=part)
                self.parts.append(part)
            if batch.data.find(b"\r") >= 0:
                lone_cr += batch.data.count(b"\r") - batch.data.count(b"\r\n")
        if not self.parts:
            fmt = self.fmt
            held = " other than comments and blank lines" if self.comments else ""
            raise LoadError(f"{fmt.kind} file {self.source} holds no line{held}; a TREC {fmt.kind} file has one line "
                            f"`{fmt.layout}` per {'retrieved document' if fmt is RUN_FORMAT else 'judgment'}.")
        if self.fmt is RUN_FORMAT:
            self.source.memo["tag"] = next((part.tag for part in reversed(self.parts) if part.tag is not None), None)
        return self._merged()

    # ---------------------------------------------------------------------------------------- a batch
    def _batch(self, data: bytes, first_line: int) -> _Part | None:
        """The batch's rows, read by the CSV reader when its lines are single-space-separated, else by the string
        kernels; a problem is refused (:meth:`_refuse`)."""
        start = _comment_header(data) if data[:1] == b"#" else 0
        if start:
            self.comments = True
        if start == len(data):
            return None
        if (not _has_comment_line(data, start) and data.find(b"\t", start) < 0 and not _has_pair(data, b"  ", start)):
            part = self._fast(data, start, first_line + _line_ends(data, 0, start))
            if part is not None:
                return part
        part = self._general(data, first_line)
        if part is None:
            self._refuse(data, first_line)
        return part

    def _fast(self, data: bytes, start: int, first_line: int) -> _Part | None:
        """The lines from ``start`` on parsed by pyarrow's CSV reader (one space between columns, ``width`` columns,
        no empty line); None when they are not all so, or a value is not well-formed (the string kernels decide)."""
        fmt = self.fmt
        lines = _plain_lines(data, start)
        if lines is None:
            return None
        names = [f"c{i}" for i in range(fmt.width)]
        # a run's scores parsed as float64 by the reader (as pc.cast parses the text: the spellings of NUMBER, and
        # NaN's, refused below), no text of them kept; no spelling is read as missing
        types = {name: pa.string() for name in names}
        if fmt is RUN_FORMAT:
            types[names[fmt.value]] = pa.float64()
        kept = [names[0], names[2], names[fmt.value]] if fmt is RUN_FORMAT else names
        try:
            table = pa_csv.read_csv(
                pa.py_buffer(memoryview(data)[start:]),
                # threads for large files only: starting the pool costs more than it saves below some 10 MB a core
                read_options=pa_csv.ReadOptions(column_names=names, use_threads=self.threaded,
                                                block_size=1 << 22 if self.threaded else 1 << 20),
                parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                                  escape_char=False),
                convert_options=pa_csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                                      quoted_strings_can_be_null=False, include_columns=kept),
                memory_pool=self.pool)
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
            return None  # a line with more or fewer columns, text that is not UTF-8, a score that is no number, ...
        if table.num_rows != lines:
            # an empty line, which the reader skipped: the string kernels number the rows' lines; only empty ones:
            # no row (a file of line ends)
            return _Part(first_line, np.zeros(0, dtype=np.int32), string_array([]), string_array([]), np.zeros(0)) \
                if not table.num_rows else None
        qids, docids, value = (table.column(name) for name in (names[0], names[2], names[fmt.value]))
        if fmt is RUN_FORMAT:
            values = numpy_of(value)
            if np.isnan(values).any():
                return None
            groups = None
        else:
            grades = _grades(value, self.pool)
            if grades is None:
                return None
            values, groups = grades, table.column(names[1])
        del table
        tag = last_tag(_last_line(data)) if fmt is RUN_FORMAT else None
        return self._part(first_line, qids, docids, values, groups, None, tag)

    def _general(self, data: bytes, first_line: int) -> _Part | None:
        """The batch's lines trimmed and split on runs of spaces and tabs by Arrow's string kernels, a piece of
        :data:`_PIECE` bytes at a time; None when a line is not a well-formed TREC line."""
        fmt = self.fmt
        if (data.find(b"#") >= 0 or _short_lines(_line_ends(data, 0, len(data)), len(data))) and _no_rows(data):
            # blank and comment lines only (a stream of them: ``yes '' | evalframe trec - QRELS``): no array per line
            self.comments = self.comments or data.find(b"#") >= 0
            return _Part(first_line, np.zeros(0, dtype=np.int32), string_array([]), string_array([]), np.zeros(0))
        text = without_comments(data)
        if text is not data and text != data:
            self.comments = True
            if data.find(b"\r") >= 0:  # a "\r" in a comment line ends a line of the numbering (bytes.splitlines')
                text = COMMENT_LINE.sub(_comment_line_ends, data)
        if text.find(b"\r") >= 0:  # "\r\n" and "\r" end a line as "\n" does (the same lines, the same numbers)
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        pieces: list[tuple[Any, Any, Any, Any, np.ndarray]] = []  # qids, docids, values, seconds, lines
        line, position, last = 0, 0, None
        while position < len(text):
            end = text.rfind(b"\n", position, position + _PIECE) + 1 if position + _PIECE < len(text) else len(text)
            if end <= position:
                end = len(text)
            piece = _split_lines(text, position, end, fmt, line)
            if piece is None:
                return None
            if len(piece[4]):
                pieces.append(piece)
                last = piece[5]
            line += piece[6]
            position = end
        empty = string_array([])
        if not pieces:
            return _Part(first_line, np.zeros(0, dtype=np.int32), empty, empty, np.zeros(0))
        chunks = [pa.chunked_array([piece[k] for piece in pieces], type=piece_type)
                  for k, piece_type in ((0, pa.string()), (1, pa.string()), (3, pa.string()))]
        values = np.concatenate([piece[2] for piece in pieces])
        lines = np.concatenate([piece[4] for piece in pieces])
        if fmt is RUN_FORMAT:
            if np.isnan(values).any():
                return None
        tag = last_tag(last) if fmt is RUN_FORMAT and last is not None else None
        dense = len(lines) == line  # every line a row: row i on line i
        return self._part(first_line, chunks[0], chunks[1], values, chunks[2] if fmt is QRELS_FORMAT else None,
                          None if dense else lines.astype(np.int32), tag)

    def _part(self, first_line: int, qids: Any, docids: Any, values: np.ndarray, seconds: Any,
              lines: np.ndarray | None, tag: bytes | None) -> _Part:
        q_codes, q_dict = dictionary_codes(qids, self.pool)  # the batch's own coding: its ids are few
        g_codes, g_dict = dictionary_codes(seconds, self.pool) if seconds is not None else (None, None)
        return _Part(first_line, q_codes, q_dict, docids, values, g_codes, g_dict, lines, tag)

    # ---------------------------------------------------------------------------------------- duplicates
    def _groups(self, part: _Part) -> np.ndarray:
        """Each row's group in which a docid may appear once: its query (and its subtopic, subtopic qrels)."""
        if not self.subtopics:
            return part.q_codes
        assert part.g_codes is not None and part.g_dict is not None
        return np.unique(part.q_codes.astype(np.int64) * len(part.g_dict) + part.g_codes, return_inverse=True)[1]

    def _repeats_within(self, part: _Part) -> bool:
        """Whether a docid repeats in a group of the batch: the docids' fingerprints compared (a pass over their
        bytes, no hash table), and the rows whose fingerprints are shared compared exactly."""
        groups = self._groups(part)
        prints = _fingerprints(part.docids)
        if not _keys_repeat(groups, prints.view(np.int64)):
            return False
        rows = _shared_rows(groups, prints)
        codes, _ = dictionary_codes(part.docids.take(arrow_of(rows)), self.pool)
        groups = np.unique(groups[rows], return_inverse=True)[1]
        return pairs_repeat(groups, codes, int(groups.max()) + 1)

    def _merged(self) -> _Read:
        """The batches' columns as one read: the queries coded over every batch, the queries found in more than one
        batch checked for a docid repeated across them."""
        parts = self.parts
        q_codes, qids, batches_of = _unified([part.q_codes for part in parts], [part.q_dict for part in parts], self.pool)
        docids = pa.chunked_array([chunk for part in parts for chunk in _chunks(part.docids)], type=pa.string())
        values = parts[0].values if len(parts) == 1 else np.concatenate([part.values for part in parts])
        g_codes, seconds = (_unified([part.g_codes for part in parts], [part.g_dict for part in parts], self.pool)[:2]
                            if self.subtopics else (None, None))
        if len(parts) > 1:
            spanning = np.bincount(batches_of, minlength=len(qids)) > 1  # a query in more than one batch
            if spanning.any():
                rows = np.flatnonzero(spanning[q_codes])
                codes, _ = dictionary_codes(_rows_of(docids, rows), self.pool)
                groups = q_codes[rows].astype(np.int64)
                if g_codes is not None and seconds is not None:
                    groups = groups * len(seconds) + g_codes[rows]
                groups = np.unique(groups, return_inverse=True)[1]
                if pairs_repeat(groups, codes, int(groups.max()) + 1):
                    self._refuse()
        return _Read(q_codes, qids, docids, values, g_codes if self.subtopics else None, seconds, self.pool)

    # ---------------------------------------------------------------------------------------- refusals
    def _refuse(self, failed: bytes | None = None, failed_line: int = 0, extra: _Part | None = None) -> NoReturn:
        """Raise the LoadError of the first bad line: of the batch ``failed`` (read line by line) or a docid
        repeated in the rows read before it (and in the rows of ``extra``), whichever comes first."""
        parts = self.parts + ([extra] if extra is not None else [])
        bad = None
        if failed is not None:
            bad = _first_bad_line(self.source, self.fmt, failed, failed_line)
            before = failed[:bad[1]] if bad is not None else failed
            prefix = self._general(before, failed_line) if before.strip() else None
            if prefix is not None and len(prefix):
                parts = parts + [prefix]
        repeat = _first_repeat(self.source, self.fmt, parts, self.subtopics, self.pool) if parts else None
        if repeat is not None and (bad is None or repeat[0] < bad[0]):
            raise LoadError(repeat[1])
        if bad is not None:
            raise LoadError(bad[2])
        raise LoadError(f"{self.source}: cannot be read as a TREC {self.fmt.kind} file (unexpected content); each line "
                        f"must be `{self.fmt.layout}`.")


def _line_ends(data: bytes, start: int, end: int) -> int:
    """The line ends in ``data[start:end]`` as ``bytes.splitlines`` counts them (``\\r\\n`` once, a lone ``\\r``)."""
    view = memoryview(data)[start:end]
    count = int(np.count_nonzero(np.frombuffer(view, dtype=np.uint8) == 10))
    if data.find(b"\r", start, end) >= 0:
        piece = bytes(view)
        count += piece.count(b"\r") - piece.count(b"\r\n")
    return count


def _plain_lines(data: bytes, start: int) -> int | None:
    """How many lines ``data[start:]`` holds, None when a line starts or ends with a space (an empty first or last
    column, which the CSV reader would take for a value: ``q1 Q0 d1 1 1.5 `` has five columns) or ends with a lone
    ``\\r`` (the string kernels read those). Looked at the line ends only."""
    view = np.frombuffer(memoryview(data)[start:], dtype=np.uint8)
    newline = view == 10
    if _short_lines(int(np.count_nonzero(newline)), len(view)):
        return None  # blank lines, many: the string kernels skip them (the CSV reader is slow on them)
    ends = np.flatnonzero(newline)
    before = ends - 1
    if data.find(b"\r", start) >= 0:
        if data.count(b"\r", start) != data.count(b"\r\n", start):
            return None
        before = np.where(view[before] == 13, before - 1, before)
    unended = len(view) and view[-1] != 10
    if (view[before[before >= 0]] == 32).any() or (unended and view[-1] == 32) or view[0] == 32:
        return None
    following = ends[:-1] + 1 if not unended else ends + 1
    if (view[following] == 32).any():
        return None
    return len(ends) + int(bool(unended))


def _short_lines(line_ends: int, size: int) -> bool:
    """Whether ``size`` bytes of ``line_ends`` lines are shorter than any TREC line on average (blank lines, or
    comment lines of a character or two, make most of them)."""
    return line_ends * 8 > size


def _no_rows(data: bytes) -> bool:
    """Whether ``data`` holds only blank lines and comment lines (:data:`COMMENT_LINE`): with the spaces, tabs and
    the ``\\r`` of ``\\r\\n`` left out, every line is empty or starts with ``#``. A copy of the bytes and a few
    passes over them, no array per line. False (the exact reading decides) when a lone ``\\r`` ends a line."""
    if data.find(b"\r") >= 0 and data.count(b"\r") != data.count(b"\r\n"):
        return False
    plain = data.find(b" ") < 0 and data.find(b"\t") < 0 and data.find(b"\r") < 0  # (memchr: no copy needed)
    kept = np.frombuffer(data if plain else data.translate(None, b" \t\r"), dtype=np.uint8)
    if np.count_nonzero(kept == 10) == len(kept):
        return True  # blank lines only
    if kept[0] != 10 and kept[0] != 35:
        return False
    following = kept[1:]
    return not np.any((kept[:-1] == 10) & (following != 10) & (following != 35))


def _comment_line_ends(found: re.Match[bytes]) -> bytes:
    """What a comment line becomes in the text split into rows: its line ends as ``bytes.splitlines`` counts them
    (a ``\\r`` in it ends a line of the numbering; its last, before the ``\\n``, is one line end with it)."""
    comment = found.group()
    inner = comment.count(b"\r", 0, len(comment) - 1)
    return b"\n" * inner + (b"\r" if comment.endswith(b"\r") else b"")


def _has_comment_line(data: bytes, start: int = 0) -> bool:
    """Whether a line from ``start`` on (a line's start) starts with ``#`` (the first ``#`` found by memchr: most
    files have none)."""
    first = data.find(b"#", start)
    return first >= 0 and (first == start or _has_pair(data, b"\n#", first - 1))


def _last_line(data: bytes) -> bytes:
    """The batch's last line (without its line end)."""
    end = len(data)
    while end and data[end - 1:end] in (b"\n", b"\r"):
        end -= 1
    return data[max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1:end]


def _grades(text: Any, pool: Any) -> np.ndarray | None:
    """Grade texts as int64 (each an integer, :data:`INTEGER`, of 64 bits), None when one is not."""
    if not pc.all(pc.match_substring_regex(text, _INTEGER_TEXT, memory_pool=pool), memory_pool=pool).as_py():
        return None
    try:
        return numpy_of(pc.cast(text, pa.int64(), memory_pool=pool))
    except pa.ArrowInvalid:  # "+2" (Arrow takes no sign but "-"), or beyond 64 bits
        numbers = [int(value) for value in text.to_pylist()]
        if not all(-2**63 <= number < 2**63 for number in numbers):
            return None
        return np.array(numbers, dtype=np.int64)


def _scores(text: Any, pool: Any) -> np.ndarray | None:
    """Score texts as float64 (each a number, :data:`NUMBER`, read as atof reads it), None when one is not."""
    if not pc.all(pc.match_substring_regex(text, _NUMBER_TEXT, memory_pool=pool), memory_pool=pool).as_py():
        return None
    try:
        return numpy_of(pc.cast(text, pa.float64(), memory_pool=pool))
    except pa.ArrowInvalid:  # pragma: no cover - pyarrow parses every spelling of NUMBER (tests/sources/test_trec_arrow.py)
        return np.array([float(value) for value in text.to_pylist()], dtype=np.float64)


def _split_lines(text: bytes, start: int, end: int, fmt: TrecFormat, line: int) -> tuple[Any, ...] | None:
    """The lines of ``text[start:end]`` (lines ending with ``\\n``; the first is line ``line`` of the batch) trimmed
    and split into their columns: (qids, docids, values, second column, each row's line, the last row's text, the
    number of lines), or None when a line is not a well-formed TREC line (or not UTF-8)."""
    view = np.frombuffer(memoryview(text)[start:end], dtype=np.uint8)
    ends = np.flatnonzero(view == 10)
    count = len(ends) + (1 if end > start and text[end - 1:end] != b"\n" else 0)
    offsets = np.empty(count + 1, dtype=np.int32)
    offsets[0] = 0
    offsets[1:len(ends) + 1] = ends + 1
    offsets[count] = end - start
    lines = pa.Array.from_buffers(pa.binary(), count, [None, pa.py_buffer(offsets),
                                                       pa.py_buffer(memoryview(text)[start:end])])
    try:
        lines = pc.cast(lines, pa.string())
    except pa.ArrowInvalid:
        return None  # not UTF-8 text
    trimmed = pc.utf8_trim(lines, characters=" \t\n")
    filled = numpy_of(pc.binary_length(trimmed)) > 0
    rows = trimmed.filter(arrow_of(filled))
    numbers = np.flatnonzero(filled) + line
    if not len(rows):
        return string_array([]), string_array([]), np.zeros(0), string_array([]), numbers, None, count
    fields = pc.split_pattern_regex(rows, pattern="[ \t]+")
    widths = numpy_of(pc.list_value_length(fields))
    if ((widths < fmt.width) if fmt is RUN_FORMAT else (widths != fmt.width)).any():
        return None
    flat = fields.flatten()
    firsts = numpy_of(fields.offsets)[:-1]

    def column(k: int) -> Any:
        return flat.take(arrow_of(firsts + np.int32(k)))

    value = column(fmt.value)
    values = _scores(value, None) if fmt is RUN_FORMAT else _grades(value, None)
    if values is None:
        return None
    last = rows.slice(len(rows) - 1).to_pylist()[0].encode("utf-8") if fmt is RUN_FORMAT else None
    return column(0), column(2), values, column(1), numbers, last, count


def _chunks(column: Any) -> list[Any]:
    return list(getattr(column, "chunks", [column]))


def _unified(codes: list[Any], dictionaries: list[Any], pool: Any) -> tuple[np.ndarray, Any, np.ndarray]:
    """The batches' codes into their own dictionaries as codes into one dictionary (in order of first appearance
    over the batches): the dictionaries coded, each batch's codes looked up; and the code of each batch's distinct
    value, batch after batch."""
    mapping, dictionary = dictionary_codes(pa.chunked_array(dictionaries, type=pa.string()), pool)
    bounds = np.cumsum([0] + [len(values) for values in dictionaries])
    coded = [mapping[bounds[i]:bounds[i + 1]][part] for i, part in enumerate(codes)]
    return (coded[0] if len(coded) == 1 else np.concatenate(coded)).astype(np.int32, copy=False), dictionary, mapping


def _rows_of(column: Any, rows: np.ndarray) -> Any:
    """The values of ``column`` at ``rows`` (ascending): slices of it when the rows are a few runs of neighbours (the
    queries at the bounds of the batches, in a file grouped by query), else taken."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    if len(breaks) > 64:
        return column.take(arrow_of(rows))
    starts, ends = np.r_[rows[:1], rows[breaks]], np.r_[rows[breaks - 1], rows[-1:]] + 1
    return pa.chunked_array([chunk for start, end in zip(starts.tolist(), ends.tolist())
                             for chunk in _chunks(column.slice(start, end - start))], type=column.type)


# ------------------------------------------------------------------------------------------ docids compared
#: Odd 64-bit multipliers that mix the pieces of a fingerprint (and a group into a key).
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9),
        np.uint64(0xD6E8FEB86659FD93))
#: The low ``k`` bytes of a word, for k = 0..8.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _fingerprints(column: Any) -> np.ndarray:
    """A 64-bit fingerprint per string (equal strings, equal fingerprints): its length and its first, middle and
    last 8 bytes, mixed. Strings of up to 24 bytes are covered whole; two longer strings differing only between
    those pieces share a fingerprint, so a shared one is only a candidate (compared exactly by the caller)."""
    prints = []
    for chunk in _chunks(column):
        n = len(chunk)
        if not n:
            continue
        wide = pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type)
        kind = np.dtype(np.int64 if wide else np.int32)
        offsets = np.frombuffer(chunk.buffers()[1], dtype=kind, count=n + 1, offset=chunk.offset * kind.itemsize)
        base = int(offsets[0])
        size = int(offsets[-1]) - base
        data = np.zeros(size + 8, dtype=np.uint8)  # 8 bytes more: a word read at any string's start
        if size:
            data[:size] = np.frombuffer(chunk.buffers()[2], dtype=np.uint8, count=size, offset=base)
        words = np.lib.stride_tricks.as_strided(data, shape=(size + 1, 8), strides=(1, 1)).view(np.uint64)[:, 0]
        starts = offsets[:-1].astype(np.int64) - base
        lengths = np.diff(offsets).astype(np.int64)
        low = _LOW_BYTES[np.minimum(lengths, 8)]
        value = (words[starts] & low) * _MIX[0]
        value ^= (words[starts + np.maximum(lengths - 8, 0)] & low) * _MIX[1]
        value ^= (words[starts + np.maximum(lengths // 2 - 4, 0)] & low) * _MIX[2]
        value ^= lengths.astype(np.uint64)
        prints.append(value)
    return prints[0] if len(prints) == 1 else np.concatenate(prints) if prints else np.zeros(0, dtype=np.uint64)


def _keys_repeat(groups: np.ndarray, keys: np.ndarray) -> bool:
    """Whether a (group, key) pair may repeat (``keys`` int64): True for every repeat, and now and then for none (a
    padding cell or a mix that meets a key): the caller compares exactly. Rows grouped by group (ascending) are laid
    out one group per row of a grid, sorted row by row (short sorts), as :func:`pairs_repeat` does."""
    n = len(groups)
    if n < 2:
        return False
    if not (groups[1:] < groups[:-1]).any():
        counts = np.bincount(groups)
        width = int(counts.max())
        if len(counts) * width <= 2 * n + 1024:
            grid = np.empty((len(counts), width), dtype=np.int64)
            grid[:] = np.iinfo(np.int64).min + np.arange(width, dtype=np.int64)  # padding: distinct along a row
            starts = np.cumsum(counts) - counts
            grid[groups, np.arange(n) - np.repeat(starts, counts)] = keys
            grid.sort(axis=1)
            return bool((grid[:, 1:] == grid[:, :-1]).any())
    mixed = np.sort(keys.view(np.uint64) ^ (groups.astype(np.uint64) * _MIX[3]))
    return bool((mixed[1:] == mixed[:-1]).any())


def _shared_rows(groups: np.ndarray, prints: np.ndarray) -> np.ndarray:
    """The rows whose (group, fingerprint) another row shares."""
    key = prints ^ (groups.astype(np.uint64) * _MIX[3])
    order = np.argsort(key, kind="stable")
    same = key[order][1:] == key[order][:-1]
    shared = np.zeros(len(key), dtype=bool)
    shared[order[1:][same]] = True
    shared[order[:-1][same]] = True
    return np.flatnonzero(shared)


# ------------------------------------------------------------------------------------------ naming the bad line
def _numbered(data: bytes, first_line: int) -> Iterator[tuple[int, int, bytes]]:
    """The lines of ``data`` as ``bytes.splitlines`` splits them, numbered from ``first_line``, with the offset where
    each starts (read as they are asked for), but for the comment lines: a comment (:data:`COMMENT_LINE`) runs to the
    next ``\\n``, as trec_eval reads its lines, a ``\\r`` in it included."""
    comments = [(found.start(), found.end()) for found in COMMENT_LINE.finditer(data)] if data.find(b"#") >= 0 else []
    starts = [begin for begin, _ in comments]

    def in_comment(position: int) -> bool:
        at = bisect.bisect_right(starts, position) - 1
        return at >= 0 and position <= comments[at][1]

    start, number = 0, first_line
    for end in _LINE_END.finditer(data):
        if not (comments and in_comment(start)):
            yield number, start, data[start:end.start()]
        start, number = end.end(), number + 1
    if start < len(data) and not (comments and in_comment(start)):
        yield number, start, data[start:]


def _line_problem(source: TrecSource, fmt: TrecFormat, number: int, raw: bytes) -> str | None:
    """What is wrong with line ``number`` (``raw``, without its line end; no comment line), None when it is a
    well-formed TREC line or a blank line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"{source}:{number}: not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason}); TREC files are "
                "plain (ASCII or UTF-8) text.")
    fields = _SEPARATOR.split(line.strip(" \t"))
    fields = fields if fields != [""] else []
    if not fields:  # a blank line
        return None
    if len(fields) < fmt.width or (fmt is QRELS_FORMAT and len(fields) > fmt.width):
        return (f"{source}:{number}: a TREC {fmt.kind} line has {fmt.width} whitespace-separated columns "
                f"`{fmt.layout}`; this one has {len(fields)}: {line.strip()!r:.100}."
                + (_PREFERENCES if fmt is QRELS_FORMAT and len(fields) == 5 else ""))
    value = fields[fmt.value]
    if fmt is RUN_FORMAT and not NUMBER.fullmatch(value):
        return f"{source}:{number}: the score (column 5) must be a number; got {value!r:.40}."
    if fmt is QRELS_FORMAT and not INTEGER.fullmatch(value):
        return (f"{source}:{number}: the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 for "
                f"unjudged); got {value!r:.40}." + (_PREFERENCES if NUMBER.fullmatch(value) else ""))
    if fmt is QRELS_FORMAT and not -2**63 <= int(value) < 2**63:
        return f"{source}:{number}: the relevance grade {value!r:.40} is too large (64-bit integers)."
    return None


def _first_bad_line(source: TrecSource, fmt: TrecFormat, data: bytes, first_line: int) -> tuple[int, int, str] | None:
    """The first bad line of a batch: (its number, its offset in ``data``, the message), None when there is none."""
    for number, start, raw in _numbered(data, first_line):
        problem = _line_problem(source, fmt, number, raw)
        if problem is not None:
            return number, start, problem
    return None


def _first_repeat(source: TrecSource, fmt: TrecFormat, parts: list[_Part], subtopics: bool, pool: Any
                  ) -> tuple[int, str] | None:
    """The first row (in file order) whose (query, docid) (with the subtopic, subtopic qrels) an earlier row has:
    (its line, the message naming both lines), None when every pair is distinct."""
    def rows(codes: list[np.ndarray], dictionaries: list[Any]) -> tuple[np.ndarray, Any]:
        return dictionary_codes(pa.chunked_array([d.take(arrow_of(c)) for c, d in zip(codes, dictionaries)],
                                                 type=pa.string()), pool)

    q, qids = rows([part.q_codes for part in parts], [part.q_dict for part in parts])
    d, docids = dictionary_codes(pa.chunked_array([c for part in parts for c in _chunks(part.docids)],
                                                  type=pa.string()), pool)
    keys = [d, q]
    if subtopics:
        g, _ = rows([part.g_codes for part in parts if part.g_codes is not None],
                    [part.g_dict for part in parts if part.g_dict is not None])
        keys = [d, g, q]
    order = np.lexsort(keys)  # stable: equal pairs in file order
    same = np.logical_and.reduce([key[order][1:] == key[order][:-1] for key in keys])
    if not same.any():
        return None
    again = np.flatnonzero(same) + 1  # positions in ``order`` that repeat the position before
    at = int(again[np.argmin(order[again])])
    starts = np.flatnonzero(np.r_[True, ~same])
    first, repeat = int(order[starts[np.searchsorted(starts, at, side="right") - 1]]), int(order[at])
    bounds = np.cumsum([0] + [len(part) for part in parts])

    def where(row: int) -> tuple[_Part, int]:
        index = int(np.searchsorted(bounds, row, side="right")) - 1
        return parts[index], row - int(bounds[index])

    (part_1, row_1), (part_2, row_2) = where(first), where(repeat)
    line_1, line_2 = part_1.line(row_1), part_2.line(row_2)
    qid, docid = qids.take(arrow_of(q[[repeat]])).to_pylist()[0], docids.take(arrow_of(d[[repeat]])).to_pylist()[0]

    def second(part: _Part, row: int) -> str:
        assert part.g_dict is not None and part.g_codes is not None
        return part.g_dict.take(arrow_of(part.g_codes[[row]])).to_pylist()[0]

    if subtopics:
        return line_2, (f"{source}:{line_2}: document {docid!r} is judged twice for subtopic {second(part_2, row_2)!r} "
                        f"of query {qid!r} (first on line {line_1}); keep one of the lines.")
    groups = ""
    if fmt is QRELS_FORMAT and second(part_1, row_1) != second(part_2, row_2):
        groups = (f" The second column differs ({second(part_1, row_1)!r:.20} on line {line_1}, "
                  f"{second(part_2, row_2)!r:.20} here): if it names judgment groups, this is trec_eval's qrels_jg "
                  "format (trec_eval -R qrels_jg, a judgment per judge), which evalframe does not evaluate.")
    return line_2, (f"{source}:{line_2}: document {docid!r} appears twice in query {qid!r} (first on line {line_1}); "
                    f"trec_eval refuses {'a run' if fmt is RUN_FORMAT else 'qrels'} with duplicate documents "
                    "(\"duplicate docs\"). Keep one of the lines." + groups)


def memory_pool(*, threaded: bool = False) -> Any:
    """The Arrow memory pool the TREC readers allocate from (``threaded``: for a CSV read on pyarrow's threads).

    The system allocator's hands the CSV reader's parse buffers back when they are freed (pyarrow's default,
    mimalloc, kept some 60 MB of them at 1M lines), but not when the reader's threads allocated them (glibc keeps an
    arena per thread: 10M lines peaked 300 MB higher than with jemalloc); a threaded read (and the compute calls
    on its columns) takes jemalloc's pool, when pyarrow has it.

    Parameters
    ----------
    threaded : bool
        Whether the allocations are made on pyarrow's threads (a threaded CSV read and the compute calls on it).

    Returns
    -------
    pyarrow.MemoryPool
        The system allocator's pool; jemalloc's for ``threaded`` when pyarrow is built with it.

    Examples
    --------
    >>> memory_pool().backend_name
    'system'
    >>> memory_pool(threaded=True).backend_name in ("jemalloc", "system")
    True
    """
    if threaded:
        try:
            return pa.jemalloc_memory_pool()
        except NotImplementedError:  # pragma: no cover - a pyarrow built without jemalloc
            pass
    return pa.system_memory_pool()


def arrow_trec_order(query: np.ndarray, scores: np.ndarray, docids: Any, doc: np.ndarray | None = None
                     ) -> np.ndarray | None:
    """The order of a run's lines in trec_eval's ranking (score as float32 descending, docid descending), None when
    they are in it already (:func:`evalframe.frames.trec_ranking.trec_order_lines`: a file in score order has only
    its ties sorted), the docids compared in Arrow (UTF-8 bytes order is code point order; no Python str per docid).

    ``query``: each line's query code (in order of first appearance); ``scores``: each line's score; ``docids``: an
    Arrow string array (or chunked array) holding line i's docid at ``doc[i]``, or at i when ``doc`` is None (the
    file's column).

    Parameters
    ----------
    query : numpy.ndarray
        Each line's query code (grouped or not).
    scores : numpy.ndarray
        Each line's score (compared as float32, :func:`evalframe.frames.trec_ranking.as_trec_scores`).
    docids : pyarrow.StringArray or pyarrow.ChunkedArray
        The docids, by ``doc`` or by line.
    doc : numpy.ndarray or None
        Each line's position in ``docids``; None: line i's docid is ``docids[i]``.

    Returns
    -------
    numpy.ndarray or None
        The lines' permutation into trec_eval's order (queries in order of first appearance); None when the lines
        are in it.

    Examples
    --------
    >>> docids = string_array(["a", "c", "b"])
    >>> arrow_trec_order(np.array([0, 0, 0]), np.array([1.0, 2.0, 2.0]), docids).tolist()
    [1, 2, 0]
    >>> arrow_trec_order(np.array([0, 0, 0]), np.array([2.0, 2.0, 1.0]), docids, doc=np.array([1, 2, 0])) is None
    True
    """
    def docids_of(lines: np.ndarray) -> Any:
        return docids.take(arrow_of(lines if doc is None else doc[lines]))

    def descending(lines: np.ndarray) -> bool:
        return bool(pc.all(pc.greater(docids_of(lines), docids_of(lines + 1))).as_py())

    def sort_docids(lines: np.ndarray) -> np.ndarray:
        return numpy_of(pc.sort_indices(docids_of(lines)))

    return trec_order_lines(query, as_trec_scores(scores), docids_descending=descending, sort_docids=sort_docids)


def dictionary_codes(column: Any, pool: Any = None) -> tuple[np.ndarray, Any]:
    """A chunked Arrow string column as codes (in order of first appearance) and its dictionary (an Arrow array).

    Arrow encodes the chunks with one hash table and gives every chunk the same final dictionary, so the codes are
    the chunks' indices one after the other (no concatenation of the strings); should the chunks ever hold
    different dictionaries, the column is concatenated and encoded whole.

    Parameters
    ----------
    column : pyarrow.ChunkedArray or pyarrow.Array
        Strings, none missing.
    pool : pyarrow.MemoryPool, optional
        The Arrow memory pool (else :func:`memory_pool`'s).

    Returns
    -------
    codes : numpy.ndarray
        Each value's code (int32), numbered in order of first appearance.
    dictionary : pyarrow.StringArray
        The distinct values, ``dictionary[codes[i]] == column[i]``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes, dictionary = dictionary_codes(pa.chunked_array([string_array(["b", "a"]), string_array(["b"])]))
    >>> codes.tolist(), dictionary.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    encoded = pc.dictionary_encode(column, memory_pool=pool if pool is not None else memory_pool())
    if isinstance(encoded, pa.DictionaryArray):
        return numpy_of(encoded.indices), encoded.dictionary
    chunks = [chunk for chunk in encoded.chunks if len(chunk)]
    if not chunks:
        return np.zeros(0, dtype=np.int32), string_array([])
    dictionary = chunks[0].dictionary
    same = [buffer.address if buffer is not None else 0 for buffer in dictionary.buffers()]
    if all(len(chunk.dictionary) == len(dictionary) and [buffer.address if buffer is not None else 0
                                                        for buffer in chunk.dictionary.buffers()] == same
           for chunk in chunks):
        return np.concatenate([numpy_of(chunk.indices) for chunk in chunks]), dictionary
    whole = column.combine_chunks().dictionary_encode()  # pragma: no cover - not seen with pyarrow 14-26
    return numpy_of(whole.indices), whole.dictionary  # pragma: no cover


# ------------------------------------------------------------------------------------------ Arrow <-> numpy
# pyarrow's own conversions (Array.to_numpy, pa.array, a Python scalar argument) import pandas when it is installed
# (its pandas shim), a third of a second: these read and make the buffers directly.
_NUMPY_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint32": np.uint32,
                "uint64": np.uint64, "float": np.float32, "double": np.float64}


def numpy_of(array: Any, null: int = -1) -> np.ndarray:
    """A numeric Arrow array (or chunked array) as a numpy array, its buffers viewed (copied only to join chunks or
    to write ``null`` where a value is missing).

    Examples
    --------
    >>> import pyarrow.compute as pc
    >>> numpy_of(pc.index_in(string_array(["b", "x"]), value_set=string_array(["a", "b"]))).tolist()
    [1, -1]
    """
    parts = []
    for chunk in getattr(array, "chunks", [array]):
        dtype = np.dtype(_NUMPY_TYPES[str(chunk.type)])
        validity, data = chunk.buffers()[:2]
        part = np.frombuffer(data, dtype=dtype, count=len(chunk), offset=chunk.offset * dtype.itemsize) if len(chunk) \
            else np.zeros(0, dtype=dtype)
        if chunk.null_count:
            bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
            part = np.where(bits[chunk.offset:chunk.offset + len(chunk)].astype(bool), part, dtype.type(null))
        parts.append(part)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.dtype(_NUMPY_TYPES[str(array.type)]))


def arrow_of(values: np.ndarray) -> Any:
    """An int32 / int64 / float64 / bool numpy array as an Arrow array (its buffer, or a bitmap for bool).

    Examples
    --------
    >>> arrow_of(np.array([3, 1])).to_pylist(), arrow_of(np.array([True, False, True])).to_pylist()
    ([3, 1], [True, False, True])
    """
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), len(values),
                                     [None, pa.py_buffer(np.packbits(values, bitorder="little"))])
    kind = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}
    return pa.Array.from_buffers(kind[values.dtype], len(values), [None, pa.py_buffer(np.ascontiguousarray(values))])


def string_array(texts: list[str]) -> Any:
    """Texts as an Arrow string array (built from its buffers).

    Examples
    --------
    >>> string_array(["00", "é"]).to_pylist()
    ['00', 'é']
    """
    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(data) for data in encoded])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
