"""TREC files read as a stream of blocks of whole lines: plain or gzip files, devices, FIFOs and standard input.

Every reader of TREC text (the TREC reader :func:`evalframe.sources.trec_arrow.read_arrow`, the queries reader,
``evalframe trec``'s run tag) reads a :class:`TrecSource` through :func:`blocks`: the bytes a megabyte
(:data:`BLOCK`) at a time, decompressed as they are read when they start with gzip's magic bytes (whatever the
file's name), cut after their last line end, without a UTF-8 byte-order mark. Nothing is read whole: memory is
bounded by the block size, not by the file's (or its expanded) size, and a line longer than :data:`MAX_LINE` bytes
is refused as soon as it is (a stream of NUL bytes, ``/dev/zero``, an endless line), naming the file and the line.
A damaged or cut gzip file is refused naming the file, whatever the reader.

Standard input (``evalframe trec - QRELS``), a FIFO or a character device is read once, its bytes parsed as they
arrive and none of them kept (no temporary file either): what the reader made of them is kept on the source
(:attr:`TrecSource.memo`) for a second use of it, and reading its bytes a second time is refused.

Examples
--------
>>> import io
>>> source = standard_input("run", io.BytesIO(b"q1 Q0 d1 1 2.0 r\\nq1 Q0 d2 2 1.0 r"))
>>> [(block.line, block.data) for block in blocks(source)]
[(1, b'q1 Q0 d1 1 2.0 r\\nq1 Q0 d2 2 1.0 r')]
>>> str(source), source.rereadable
('standard input', False)
>>> list(blocks(source))
Traceback (most recent call last):
...
evalframe.errors.LoadError: run file standard input was read already: a stream (standard input, a FIFO, a device) ...
"""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np

from .._locations import Remote, exists, is_dir, is_url, locate, open_binary, url_problem
from ..errors import InvalidParameterError, LoadError

__all__ = ["TrecSource", "Block", "trec_source", "remote_source", "checked_source", "standard_input", "blocks", "batches",
           "BLOCK", "MAX_LINE", "STANDARD_INPUT", "GZIP_MAGIC", "DAMAGED_GZIP"]

#: How messages call standard input (the ``-`` of ``evalframe trec - QRELS``).
STANDARD_INPUT = "standard input"
#: Bytes read (decompressed) at a time.
BLOCK = 1 << 20
#: The longest line read, in bytes before its line end (1 MiB; trec_eval 10.0 reads lines of standard input in
#: pieces of 10,000 bytes): a longer one is no TREC line, and holding it would be holding what the input claims.
MAX_LINE = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
#: What reading a damaged or cut gzip file raises.
DAMAGED_GZIP = (gzip.BadGzipFile, EOFError, zlib.error)
_BOM = b"\xef\xbb\xbf"
#: What one line of each kind of file is, for the messages.
_LINE_OF = {"run": "`qid Q0 docid rank score tag` per retrieved document",
            "qrels": "`qid iter docid relevance` per judgment", "queries": "`qid<TAB>text` per query",
            "z-score": "`qid measure mean stddev` per query and measure"}


class TrecSource:
    """A TREC file to read: a path (a regular file, read again from its start by each reader) or a stream read once
    (standard input, a FIFO, a character device), its bytes parsed as they arrive and none of them kept.

    Parameters
    ----------
    kind : str
        ``"run"``, ``"qrels"`` or ``"queries"``: what messages call the file.
    path : pathlib.Path, optional
        The file; a path that is neither a regular file nor a folder (``/dev/stdin``, a FIFO) is read as a stream.
    stream : binary file object, optional
        Standard input's bytes (``sys.stdin.buffer``), for a source without a path.
    remote : evalframe._locations.Remote, optional
        A file at a URL (``s3://bucket/run.txt``), read again from its start by each reader, as a regular file; its
        URL is what messages name.

    Attributes
    ----------
    memo : dict
        What readers made of the source, by their own keys: the columns the TREC reader parsed from a stream (its
        bytes cannot be read again) and a run's tag, for a second use of the same source.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.0 r\\n")
    >>> source = TrecSource("run", path)
    >>> str(source) == str(path), source.rereadable
    (True, True)
    """

    def __init__(self, kind: str, path: Path | None = None, stream: BinaryIO | None = None, *,
                 remote: Remote | None = None) -> None:
        self.kind, self.path, self._stream, self.remote = kind, path, stream, remote
        self.name = remote.url if remote is not None else STANDARD_INPUT if path is None else str(path)
        self.memo: dict[Any, Any] = {}
        self._opened = False  # a stream's bytes handed to a reader already

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"TrecSource({self.kind!r}, {self.name!r})"

    @property
    def rereadable(self) -> bool:
        """Whether each reader opens the file again (a regular file), rather than the one pass over a stream."""
        if self.remote is not None:
            return True
        return self.path is not None and (self.path.is_file() or not self.path.exists())

    def check(self) -> None:
        """Raise a LoadError when the path is a folder or does not exist (a device or a FIFO exists).

        Examples
        --------
        >>> TrecSource("qrels", Path("no-such-qrels.txt")).check()
        Traceback (most recent call last):
        ...
        evalframe.errors.LoadError: qrels file no-such-qrels.txt does not exist.
        """
        if self.remote is not None:
            if is_dir(self.remote):
                raise LoadError(f"{self.kind} file {self.name} is a folder; give the TREC {self.kind} file itself.",
                                parameter=self.kind)
            if not exists(self.remote):
                raise LoadError(f"{self.kind} file {self.name} does not exist.", parameter=self.kind)
            return
        if self.path is None:
            return
        if self.path.is_dir():
            raise LoadError(f"{self.kind} file {self.path} is a folder; give the TREC {self.kind} file itself.",
                            parameter=self.kind)
        if not self.path.exists():
            raise LoadError(f"{self.kind} file {self.path} does not exist.", parameter=self.kind)

    def size(self) -> int:
        """A hint of how many bytes there are to parse: the file's size, a gzip file's expanded size as its trailer
        says (modulo 4 GiB: at least the compressed size); 0 for a stream or a missing file."""
        if self.remote is not None:
            try:
                return int(self.remote.fs.size(self.remote.path) or 0)  # compressed or not: a hint
            except (OSError, TypeError, ValueError):
                return 0
        if self.path is None or not self.rereadable:
            return 0
        try:
            with self.path.open("rb") as handle:
                if handle.read(2) != GZIP_MAGIC:
                    return handle.seek(0, 2)
                compressed = handle.seek(-4, 2) + 4
                return max(int.from_bytes(handle.read(4), "little"), compressed)
        except OSError:
            return 0

    def open(self) -> BinaryIO:
        """The bytes from the start: the file opened again, or the stream, once (a second call is refused)."""
        if self.remote is not None:
            return open_binary(self.remote, what=f"{self.kind} file")
        if self.rereadable:
            assert self.path is not None
            return self.path.open("rb")
        if self._opened:
            raise LoadError(f"{self.kind} file {self.name} was read already: a stream (standard input, a FIFO, a "
                            "device) is read once.")
        self._opened = True
        if self._stream is None:
            assert self.path is not None
            return self.path.open("rb")
        return _Unclosed(self._stream)  # type: ignore[return-value]


class _Unclosed:
    """A stream handed to one reader, not closed after it (standard input stays the process's)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def close(self) -> None:
        pass

    def __enter__(self) -> _Unclosed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Joined:
    """``head`` then the rest of ``raw``: the bytes read to see whether a file is gzip, handed back."""

    def __init__(self, head: bytes, raw: Any) -> None:
        self._head, self._raw = head, raw

    def read(self, size: int = -1) -> bytes:
        if self._head:
            piece, self._head = (self._head, b"") if size < 0 or size >= len(self._head) else \
                (self._head[:size], self._head[size:])
            return piece
        return self._raw.read(size)


def trec_source(value: object, kind: str, *, name: str | None = None, storage_options: object = None) -> TrecSource:
    """``value`` as a :class:`TrecSource` (itself when it is one); a path is not checked here (:meth:`TrecSource.check`).

    A URL (``s3://bucket/run.txt``) is a source read through its filesystem (``storage_options``: its options),
    refused when its protocol is unknown or its package not installed (:func:`evalframe._locations.locate`, naming
    ``name``, default ``kind``).

    Examples
    --------
    >>> trec_source("runs/bm25.txt", "run")
    TrecSource('run', 'runs/bm25.txt')
    >>> trec_source("memory://evalframe-doc/bm25.txt", "run")
    TrecSource('run', 'memory://evalframe-doc/bm25.txt')
    """
    if isinstance(value, TrecSource):
        return value
    if isinstance(value, (str, os.PathLike)) and str(value):
        if is_url(value) or storage_options:
            where = locate(value, name=name or kind, storage_options=storage_options)
            return TrecSource(kind, remote=where) if isinstance(where, Remote) else TrecSource(kind, where)
        return TrecSource(kind, Path(value))
    raise InvalidParameterError(
        f"{kind} must be a path to a TREC {kind} file or a dict {{qid: {{docid: "
        f"{'score' if kind == 'run' else 'grade'}}}}} or a frame (pandas, pyarrow, polars) with the columns "
        f"{'query_id, doc_id, score' if kind == 'run' else 'query_id, doc_id, relevance'}; got {value!r:.80} of type "
        f"{type(value).__name__}.")


def remote_source(value: object, kind: str, *, name: str | None = None, storage_options: object = None) -> object:
    """``value`` as a :class:`TrecSource` when it is a URL (read through its filesystem, ``storage_options`` its
    options); anything else as it is (a local path, a dict, a frame: each reader takes it as before). A URL fsspec
    cannot read, or a ``Path`` made of a URL (pathlib collapsed its ``//``), is refused naming ``name``.

    Examples
    --------
    >>> remote_source("memory://evalframe-doc/run.txt", "run"), remote_source("run.txt", "run")
    (TrecSource('run', 'memory://evalframe-doc/run.txt'), 'run.txt')
    """
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes) and (
            url_problem(value) is not None or storage_options):
        where = locate(value, name=name or kind, storage_options=storage_options)
        if isinstance(where, Remote):
            return TrecSource(kind, remote=where)
    return value


def checked_source(value: object, kind: str) -> TrecSource:
    """:func:`trec_source`, checked (:meth:`TrecSource.check`: a folder or a missing path refused).

    Examples
    --------
    >>> checked_source("no-such-run.txt", "run")
    Traceback (most recent call last):
    ...
    evalframe.errors.LoadError: run file no-such-run.txt does not exist.
    """
    source = trec_source(value, kind)
    source.check()
    return source


def standard_input(kind: str, stream: BinaryIO | None = None) -> TrecSource:
    """Standard input as a :class:`TrecSource` (``stream``: its bytes, ``sys.stdin.buffer`` by default), read once,
    called ``standard input`` in messages.

    Examples
    --------
    >>> import io
    >>> standard_input("run", io.BytesIO(b""))
    TrecSource('run', 'standard input')
    """
    return TrecSource(kind, None, stream if stream is not None else sys.stdin.buffer)


class Block(NamedTuple):
    """Whole lines of a file: ``data`` (ending with a line end, but for the file's last line) starts at ``line``."""

    line: int
    data: bytes


def _cannot_read(source: TrecSource, exc: BaseException) -> LoadError:
    if isinstance(exc, DAMAGED_GZIP):
        return LoadError(f"{source.kind} file {source.name} cannot be read ({type(exc).__name__}: {exc}): the gzip file "
                         "is damaged or cut short.")
    return LoadError(f"{source.kind} file {source.name} cannot be read ({getattr(exc, 'strerror', None) or exc}).")


def _too_long(source: TrecSource, line: int, start: bytes) -> LoadError:
    """The error of a line too long, which starts with ``start``."""
    what = "all NUL bytes (binary data, not text)" if start and not start.strip(b"\0") else "no line end"
    return LoadError(f"{source.name}:{line}: a line of more than {MAX_LINE:,} bytes, {what}: not a TREC {source.kind} "
                     f"file (text, one line {_LINE_OF[source.kind]}).")


def _read_full(reader: Any, size: int) -> bytes:
    """``size`` bytes, fewer at the end only (a pipe gives short reads)."""
    data = reader.read(size)
    if len(data) in (0, size):
        return data
    parts = [data]
    have = len(data)
    while have < size:
        more = reader.read(size - have)
        if not more:
            break
        parts.append(more)
        have += len(more)
    return b"".join(parts)


def blocks(source: TrecSource, size: int = BLOCK) -> Iterator[Block]:
    """The file's (decompressed) bytes in blocks of whole lines, ``size`` bytes read at a time (a block holds them
    and the line carried over from the read before); line numbers from 1 (a line ends with ``\\n``).

    Parameters
    ----------
    source : TrecSource
        The file (read again from its start), or a stream (read once).
    size : int
        Bytes read (decompressed) at a time: memory is bounded by it and :data:`MAX_LINE`.

    Yields
    ------
    Block
        ``line`` (of the block's first line) and ``data``.

    Raises
    ------
    LoadError
        The file cannot be read (naming it), is a damaged or cut gzip file, or holds a line longer than
        :data:`MAX_LINE` bytes (naming the file and the line).

    Examples
    --------
    >>> import io
    >>> [tuple(block) for block in blocks(standard_input("qrels", io.BytesIO(b"q1 0 d1 1\\nq1 0 d2 0\\n")), size=12)]
    [(1, b'q1 0 d1 1\\n'), (2, b'q1 0 d2 0\\n')]
    >>> list(blocks(standard_input("qrels", io.BytesIO(b"x" * (MAX_LINE + 1)))))
    Traceback (most recent call last):
    ...
    evalframe.errors.LoadError: standard input:1: a line of more than 1,048,576 bytes, no line end: not a TREC qrels ...
    """
    try:
        with source.open() as raw:
            head = _read_full(raw, 2)
            reader: Any = _Joined(head, raw)
            if head == GZIP_MAGIC:
                reader = gzip.GzipFile(fileobj=reader, mode="rb")
            yield from _blocks_of(source, reader, size)
    except (*DAMAGED_GZIP, OSError) as exc:
        raise _cannot_read(source, exc) from None


def _blocks_of(source: TrecSource, reader: Any, size: int) -> Iterator[Block]:
    line, carry, first = 1, b"", True
    while True:
        chunk = _read_full(reader, size)
        end_of_file = len(chunk) < size  # a full read but at the end
        if first:
            chunk, first = (chunk[3:] if chunk.startswith(_BOM) else chunk), False
        last = chunk.rfind(b"\n")
        if last < 0:
            carry += chunk
            if len(carry) > MAX_LINE:
                raise _too_long(source, line, carry[:64])
            if end_of_file:
                if carry:
                    yield Block(line, carry)
                return
            continue
        if len(carry) + chunk.find(b"\n") > MAX_LINE:
            raise _too_long(source, line, carry[:64] if carry else chunk[:64])
        long = _long_line(chunk, last)
        if long is not None:
            raise _too_long(source, line + _count_lines(chunk[:long]), chunk[long:long + 64])
        if end_of_file:
            yield Block(line, carry + chunk if carry else chunk)
            return
        data = carry + chunk[:last + 1] if carry else chunk[:last + 1]
        carry = chunk[last + 1:]
        yield Block(line, data)
        line += _count_lines(data)


def _count_lines(data: bytes) -> int:
    """The line ends in ``data`` (numpy's count: four times bytes.count's speed)."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10))


def _long_line(chunk: bytes, last: int) -> int | None:
    """Where a line longer than :data:`MAX_LINE` starts in ``chunk`` after its first line end (``last``: its last
    line end; the line after it counts too), None when there is none. Such a line holds one of the chunk's aligned
    pieces of ``MAX_LINE // 2`` bytes whole: only a piece without a line end is looked at closer (most chunks: one
    ``find`` per piece, no array of the line ends)."""
    piece = MAX_LINE // 2
    for start in range(0, len(chunk), piece):
        if chunk.find(b"\n", start, start + piece) >= 0:
            continue
        begin = chunk.rfind(b"\n", 0, start) + 1
        if begin == 0:
            continue  # the chunk's first line: checked with the line carried over
        end = chunk.find(b"\n", start)
        if (end if end >= 0 else len(chunk)) - begin > MAX_LINE:
            return begin
    return None


def batches(source: TrecSource, size: int) -> Iterator[Block]:
    """:func:`blocks` of about ``size`` bytes (whole lines), for a parser that is faster on more bytes at a time;
    memory is bounded by ``size``.

    Examples
    --------
    >>> import io
    >>> [tuple(batch) for batch in batches(standard_input("qrels", io.BytesIO(b"q1 0 d1 1\\nq1 0 d2 0\\n")), 1 << 20)]
    [(1, b'q1 0 d1 1\\nq1 0 d2 0\\n')]
    """
    return blocks(source, size)
