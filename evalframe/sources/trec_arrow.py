"""TREC run and qrels files read by pyarrow into columns, ids dictionary-encoded in Arrow (no pandas imported here).

:func:`read_arrow` reads a plain or gzip file (or standard input) of single-space-separated, well-formed lines (comment
lines starting with ``#`` taken out first, as trec_eval 10.0 skips them) with pyarrow's multi-threaded CSV reader, a
batch of lines at a time (:mod:`evalframe.sources.trec_stream`: a gzip file decompressed as it is read, nothing held
whole): the query and document ids as integer codes (in order of first appearance) into Arrow dictionaries (no
Python str per id), the scores (float64) or grades (int64) as numpy arrays. It returns None for anything else (no
pyarrow, an empty file, a tab, two spaces in a row, a line with more or fewer columns (a run's extra columns
included: the pandas path ignores them), an indented comment line, an empty column, a value that is not a plain
number, text that is not UTF-8, a line with the query and docid of the line before it):
:mod:`evalframe.sources.trec_files` then reads the file with pandas' parser and names the line of any problem. pyarrow
is imported when a file is read. The readers allocate from :func:`memory_pool`'s pools (not a process-wide setting);
:func:`arrow_trec_order` puts a run's lines in trec_eval's ranking with the docids compared in Arrow (``evalframe
trec`` and ``from_trec`` share it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..frames.trec_ranking import as_trec_scores, trec_order_lines
from .trec_stream import TrecSource, batches, trec_source

__all__ = ["TrecFormat", "RUN_FORMAT", "QRELS_FORMAT", "ArrowColumns", "read_arrow", "dictionary_codes",
           "COMMENT_LINE", "without_comments", "numpy_of", "arrow_of", "string_array", "memory_pool",
           "arrow_trec_order"]

class TrecFormat:
    """What one kind of TREC file holds: its name, columns, where the ids and the value are."""

    def __init__(self, kind: str, layout: str, value: int, value_name: str) -> None:
        self.kind, self.layout, self.value, self.value_name = kind, layout, value, value_name
        self.width = len(layout.split())


RUN_FORMAT = TrecFormat("run", "qid Q0 docid rank score tag", 4, "score")
QRELS_FORMAT = TrecFormat("qrels", "qid iter docid relevance", 3, "relevance")



#: Files above this size (bytes) are parsed by pyarrow's thread pool, smaller ones (and streams) in this thread.
_THREADED_SIZE = 64 << 20


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


def _has_comment_line(data: Any, start: int = 0) -> bool:
    """Whether a line from ``start`` on (a line's start) starts with ``#`` (the first ``#`` found by memchr: most
    files have none)."""
    first = data.find(b"#", start)
    return first >= 0 and (first == start or _has_pair(data, b"\n#", first - 1))


def _without_comment_lines(data: Any) -> Any:
    """``data`` without its comment lines (``#`` first): the lines after a header of comments are a view of the same
    bytes (no copy of a mapped file); comments further on are taken out of a copy."""
    start = 0
    while data[start:start + 1] == b"#":
        end = data.find(b"\n", start)
        start = len(data) if end < 0 else end + 1
    if _has_comment_line(data, start):
        return _COMMENT_FIRST.sub(b"", bytes(data[start:]))
    return memoryview(data)[start:]


_COMMENT_FIRST = re.compile(rb"^#[^\n]*\n?", re.MULTILINE)


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


@dataclass(frozen=True)
class ArrowColumns:
    """A TREC file's columns in file order: the ids as codes (int32, numbered in order of first appearance) into
    Arrow string arrays of the distinct ids, and the values (float64 scores of a run, int64 grades of qrels).
    Read with ``encode_docids=False``, ``docid_codes`` is None and ``docids`` the file's column (a chunked array,
    one docid per line).

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


def read_arrow(source: Path | TrecSource, fmt: TrecFormat, *, encode_docids: bool = True) -> ArrowColumns | None:
    """The file parsed by pyarrow's CSV reader a batch of lines at a time (:func:`evalframe.sources.trec_stream.batches`:
    a gzip file decompressed as it is read), ids dictionary-encoded (the docids only with ``encode_docids``:
    millions of distinct docids take seconds to encode); None when pyarrow is missing, the file is missing or it is
    not plain single-space-separated lines of well-formed values (the caller then reads it another way). Repeated
    (qid, docid) pairs are not looked for here, but for a line repeating the pair of the line before it (a file of
    one line repeated, such as a gzip bomb of it, stops there: the other reader names the line).

    Parameters
    ----------
    source : pathlib.Path or TrecSource
        A plain or gzip TREC file, or standard input (:func:`evalframe.sources.trec_stream.standard_input`).
    fmt : TrecFormat
        :data:`RUN_FORMAT` (``qid Q0 docid rank score tag``) or :data:`QRELS_FORMAT` (``qid iter docid relevance``).
    encode_docids : bool
        Whether the docids are dictionary-encoded (else ``docids`` is the file's column, ``docid_codes`` None).

    Returns
    -------
    ArrowColumns or None
        The columns in file order; None for a file this reader does not take (or no pyarrow).

    Raises
    ------
    LoadError
        What :func:`evalframe.sources.trec_stream.blocks` raises, whatever the reader: a file that cannot be read,
        a damaged gzip file, a line longer than :data:`evalframe.sources.trec_stream.MAX_LINE` bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d2 1 2.5 bm25\\nq1 Q0 d1 2 1.5 bm25\\nq2 Q0 d2 1 0.5 bm25\\n")
    >>> columns = read_arrow(path, RUN_FORMAT)
    >>> columns.qid_codes.tolist(), columns.docids.to_pylist(), columns.values.tolist()
    ([0, 0, 1], ['d2', 'd1'], [2.5, 1.5, 0.5])
    >>> _ = path.write_text("q1\\tQ0 d2 1 2.5 bm25\\n")
    >>> read_arrow(path, RUN_FORMAT) is None  # a tab: not this reader's
    True
    """
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is optional
        return None
    source = trec_source(source, fmt.kind)
    if source.path is not None and (source.path.is_dir() or not source.path.exists()):
        return None  # the pandas path reports it
    threaded = source.size() > _THREADED_SIZE
    pool = memory_pool(threaded=threaded)  # the reader's and its compute calls'
    parts = []
    for batch in batches(source, _BATCH):
        part = _read_batch(batch.data, fmt, threaded, pool)
        if part is None:
            return None
        if len(part[2]):
            parts.append(part)
    if not parts:
        return None
    # chunked: encoded chunk by chunk, never concatenated
    qids = pa.chunked_array([chunk for part in parts for chunk in part[0].chunks], type=pa.string())
    docids = pa.chunked_array([chunk for part in parts for chunk in part[1].chunks], type=pa.string())
    values = parts[0][2] if len(parts) == 1 else np.concatenate([part[2] for part in parts])
    del parts
    q_codes, q_dictionary = dictionary_codes(qids, pool)
    if not encode_docids:
        return ArrowColumns(q_codes, q_dictionary, None, docids, values)
    d_codes, d_dictionary = dictionary_codes(docids, pool)
    return ArrowColumns(q_codes, q_dictionary, d_codes, d_dictionary, values)


#: Bytes parsed at a time (whole lines; a threaded read parses its blocks on pyarrow's threads).
_BATCH = 16 << 20


def _read_batch(data: Any, fmt: TrecFormat, threaded: bool, pool: Any) -> tuple[Any, Any, np.ndarray] | None:
    """One batch's qid and docid columns (chunked Arrow strings) and values; None when this reader does not take it."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    if data.find(b"\t") >= 0 or _has_pair(data, b"  "):
        return None
    if _has_comment_line(data):  # comment lines (trec_eval 10.0 skips them): read without them
        data = _without_comment_lines(data)
    if not len(data):  # comment lines only
        return None, None, np.zeros(0)
    names = [f"c{i}" for i in range(fmt.width + 1)]  # one column more: to see lines that have one
    # a run's scores parsed as float64 by the reader (as pc.cast parses the text: the same spellings taken, the same
    # refused, see tests/sources/test_trec_arrow.py), no text of them kept; no spelling is read as missing
    types = {name: pa.string() for name in names[:fmt.width]}
    if fmt is RUN_FORMAT:
        types[names[fmt.value]] = pa.float64()
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            # threads for large files only: starting the pool costs more than it saves below some 10 MB a core
            read_options=pa_csv.ReadOptions(column_names=names[:fmt.width], use_threads=threaded,
                                            block_size=1 << 22 if threaded else 1 << 20),
            parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
            convert_options=pa_csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                                  quoted_strings_can_be_null=False,
                                                  include_columns=[names[0], names[2], names[fmt.value]]),
            memory_pool=pool)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None  # a line with more or fewer columns, text that is not UTF-8, a score that is no number, ...
    del data
    qids, docids, text = (table.column(i) for i in range(3))
    del table
    if not len(qids):
        return qids, docids, np.zeros(0)
    # an empty column (a line starting with a space) or a value that is not a plain number: the pandas path decides
    if min(pc.min(pc.binary_length(column, memory_pool=pool), memory_pool=pool).as_py()
           for column in ((qids, docids) if fmt is RUN_FORMAT else (qids, docids, text))) == 0:
        return None
    # a line with the (qid, docid) of the line before it: a docid twice in a query, refused by the other reader now
    # (not after the whole of a file of one line repeated)
    if len(qids) > 1 and pc.any(pc.and_(pc.equal(qids[1:], qids[:-1], memory_pool=pool),
                                        pc.equal(docids[1:], docids[:-1], memory_pool=pool),
                                        memory_pool=pool), memory_pool=pool).as_py():
        return None
    try:
        if fmt is RUN_FORMAT:
            values = numpy_of(text)
            if np.isnan(values).any():
                return None
        else:
            if not pc.all(pc.match_substring_regex(text, r"^[+-]?[0-9]+$", memory_pool=pool), memory_pool=pool).as_py():
                return None
            values = numpy_of(pc.cast(text, pa.int64(), memory_pool=pool))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return qids, docids, values


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
    import pyarrow as pa

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
    import pyarrow.compute as pc

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
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column, memory_pool=pool if pool is not None else memory_pool())
    chunks = [chunk for chunk in encoded.chunks if len(chunk)]
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
    import pyarrow as pa

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
    import pyarrow as pa

    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(data) for data in encoded])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
