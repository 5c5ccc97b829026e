"""TREC runs of any size evaluated on Dask workers (docs/cluster.md#trec-runs-on-the-cluster).

:func:`from_trec` runs two rounds of tasks, as :func:`evalframe.dask.build.from_runs` does. One task per block of
the runs files (a byte range of a plain text file, cut at line ends; a whole gzip file, decompressed as it is read;
a row group of a Parquet file) reads its lines a batch at a time with the TREC reader of
:meth:`evalframe.EvaluationResult.from_trec` (:func:`evalframe.sources.trec_arrow.read_run_batches`: the same
checks, the same messages), splits them by the partition of their query
(:func:`evalframe.io.partitioned.partition_of_ids`) and writes the pieces (Arrow IPC files) to a scratch folder
inside the save's staging folder. Then one task per partition gathers its pieces (so a query whose lines lie in
several blocks or files is whole again), checks that no document appears twice in a query, ranks the rows and builds
the node with the code of ``from_trec`` (:func:`evalframe.sources.trec.run_table`,
:class:`evalframe.sources.trec.TrecNodeSource`, with the qrels of its queries), and writes its part file
(:func:`evalframe.io.partitioned.write_part`); :func:`evalframe.io.save_parts` swaps the folder into place. The
client reads the qrels (small: they go to every partition task) and the files' sizes and Parquet footers; the
run's lines never come to it.

A plain text block does not know on which line of its file it starts: it numbers its lines from 1 and reports how
many it holds. A block that finds a bad line reports it; once every block has reported, the client knows where each
block starts, and one more task reads the first bad block again numbered from there, raising the TREC reader's error
with the file's line. The partition tasks get the blocks' first lines, so the rows carry their file and line.

Each row's order key is ``((file << line bits | line of its query's first line) << rank bits) | position``, so a
whole load gives the run's queries in order of first appearance over the files read one after another (each
ranked as trec_eval ranks it), then the queries only in the qrels, in qrels order.
"""

from __future__ import annotations

import atexit
import glob
import io
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import dask
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._locations import Remote, is_url, locate, open_binary, read_bytes, write_bytes
from ..errors import InvalidParameterError, LoadError
from ..io import partitioned, save_parts
from ..io.remote import resolve
from ..options import MatchingOptions
from ..sources.trec import CodedTable, TrecNodeSource, read_coded_tables, run_table
from ..sources.trec_arrow import ArrowColumns, RunBatch, dictionary_codes, numpy_of, read_run_batches
from ..sources.trec_stream import GZIP_MAGIC, MAX_LINE, TrecSource, remote_source
from ..frames.trec_codes import repeated_pairs
from .build import Scratch, run_round
from .client import current_client
from .result import DaskEvaluationResult, load

__all__ = ["from_trec", "BLOCK_SIZE"]

#: The bytes of plain text one task reads (the last line of a block read on to its end).
BLOCK_SIZE = 64 << 20
#: Rows gathered before a block task writes them to the partitions' pieces (bounds its memory with a batch's).
_FLUSH_ROWS = 2_000_000
#: A Parquet run's column names, as ``from_trec`` reads frames and ranx / PyTerrier name them, or the TREC names.
_QID_NAMES = ("query_id", "qid")
_DOCID_NAMES = ("doc_id", "docno", "docid")
_SCORE_NAMES = ("score",)
_PIECE_SCHEMA = pa.schema([("qid", pa.string()), ("docid", pa.string()), ("score", pa.float64()),
                           ("line", pa.int64())])


@dataclass(frozen=True)
class _RunFile:
    """One runs file as the client found it: where it is, what messages call it, its kind and size."""

    number: int
    where: str  # the local path or the URL, as a worker opens it
    name: str  # what messages call it
    kind: str  # "text", "gzip" or "parquet"
    size: int
    row_groups: tuple[int, ...] = ()  # a Parquet file's rows per row group
    columns: tuple[str, str, str] = ("", "", "")  # a Parquet file's query id, docid and score columns


@dataclass(frozen=True)
class _Block:
    """One task's share of a file: bytes ``start``..``end`` (text, gzip: the whole file), or row group ``group``."""

    number: int
    file: int
    start: int = 0
    end: int = 0
    group: int = -1
    first_row: int = 0  # a Parquet row group's first row in its file (0-based)


@dataclass
class _BlockReport:
    """What a block task tells the client (small: no rows)."""

    number: int
    lines: int = 0  # line ends in a text block's lines; the last line (row) of a gzip or Parquet block
    rows: int = 0
    pieces: dict[int, str | Remote] = field(default_factory=dict)  # partition number -> piece file
    failed: str | None = None  # a text block's error, its lines numbered from 1 (read again once placed)


# ------------------------------------------------------------------------------------------ the client's part
def _where(value: Any, name: str, storage_options: Mapping[str, Any] | None) -> tuple[str, Any]:
    """``value`` located: (the text a worker opens, the Path or Remote)."""
    located = locate(value, name=name, storage_options=storage_options)
    return (located.url if isinstance(located, Remote) else str(located)), located


def _expand(runs: Any, storage_options: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The runs files as (parameter name, path or URL), a glob pattern's matches in sorted order."""
    if isinstance(runs, (str, Path)):
        items = [(runs, "runs")]
    elif isinstance(runs, Sequence) and not isinstance(runs, (bytes, bytearray)):
        items = [(item, f"runs[{i}]") for i, item in enumerate(runs)]
        if not items:
            raise InvalidParameterError("runs is an empty list; give at least one TREC run file (text, .gz or Parquet).")
    else:
        raise InvalidParameterError(f"runs must be a path, a URL, a glob pattern or a list of them; got "
                                    f"{type(runs).__name__}.")
    found: list[tuple[str, str]] = []
    for value, name in items:
        if not isinstance(value, (str, Path)):
            raise InvalidParameterError(f"{name} must be the path or URL of a TREC run file; got {value!r:.80}.")
        text, located = _where(value, name, storage_options)
        if not glob.has_magic(text):
            found.append((name, text))
            continue
        if isinstance(located, Remote):
            if located.fs.exists(located.path):  # a file whose name holds '[' is that file
                found.append((name, text))
                continue
            protocol = located.protocol
            matches = [f"{protocol}://{path}" for path in sorted(located.fs.glob(located.path))]
        else:
            if located.is_file():
                found.append((name, text))
                continue
            matches = sorted(glob.glob(text))
        if not matches:
            raise LoadError(f"no run file matches {name}={text!r}; check the pattern.", parameter="runs")
        found.extend((name, match) for match in matches)
    return found


def _open(where: str, storage_options: Mapping[str, Any] | None) -> Any:
    """The file opened for reading (binary), locally or with fsspec."""
    if is_url(where):
        located = locate(where, name="runs", storage_options=storage_options)
        if isinstance(located, Remote):
            return open_binary(located, what="run file")
        where = str(located)
    try:
        return open(where, "rb")
    except OSError as exc:
        raise LoadError(f"run file {where} cannot be read ({exc.strerror or exc}).") from None


def _run_file(number: int, name: str, where: str, storage_options: Mapping[str, Any] | None) -> _RunFile:
    """One runs file checked and described (its size, kind, a Parquet file's footer), as the client sees it."""
    located = locate(where, name=name, storage_options=storage_options)
    if isinstance(located, Remote):
        try:
            info = located.fs.info(located.path)
        except FileNotFoundError:
            raise LoadError(f"run file {where} does not exist ({name}).", parameter="runs") from None
        if info.get("type") == "directory":
            raise LoadError(f"run file {where} is a folder ({name}); give the files, e.g. '{where}/*.gz'.",
                            parameter="runs")
        size = int(info.get("size") or 0)
    else:
        if located.is_dir():
            raise LoadError(f"run file {where} is a folder ({name}); give the files, e.g. '{where}/*.gz'.",
                            parameter="runs")
        if not located.is_file():
            raise LoadError(f"run file {where} does not exist ({name}).", parameter="runs")
        size = located.stat().st_size
    with _open(where, storage_options) as handle:
        head = handle.read(4)
    if head[:2] == GZIP_MAGIC:
        return _RunFile(number, where, where, "gzip", size)
    if head == b"PAR1" or where.endswith((".parquet", ".pq")):
        return _parquet_file(number, name, where, size, storage_options)
    return _RunFile(number, where, where, "text", size)


def _parquet_file(number: int, name: str, where: str, size: int, storage_options: Mapping[str, Any] | None) -> _RunFile:
    try:
        with _open(where, storage_options) as handle:
            metadata = pq.ParquetFile(handle).metadata
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(f"run file {where} ({name}) cannot be read as Parquet ({exc}).", parameter="runs") from None
    names = list(metadata.schema.names)
    chosen = []
    for what, options in (("query id", _QID_NAMES), ("document id", _DOCID_NAMES), ("score", _SCORE_NAMES)):
        column = next((option for option in options if option in names), None)
        if column is None:
            raise LoadError(f"run file {where} ({name}) has no {what} column (one of {list(options)}); its columns: "
                            f"{names}.", parameter="runs")
        chosen.append(column)
    groups = tuple(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups))
    return _RunFile(number, where, where, "parquet", size, groups, (chosen[0], chosen[1], chosen[2]))


def _blocks(files: list[_RunFile], block_size: int) -> list[_Block]:
    """Every file's blocks, in file order."""
    blocks: list[_Block] = []
    for file in files:
        if file.kind == "gzip":
            blocks.append(_Block(len(blocks), file.number, 0, file.size))
        elif file.kind == "parquet":
            first = 0
            for group, rows in enumerate(file.row_groups):
                blocks.append(_Block(len(blocks), file.number, group=group, first_row=first))
                first += rows
        else:
            for start in range(0, max(file.size, 1), block_size):
                blocks.append(_Block(len(blocks), file.number, start, min(start + block_size, file.size)))
    return blocks


def _read_qrels(qrels: Any, storage_options: Mapping[str, Any] | None) -> CodedTable:
    """The qrels, read in this process as ``from_trec`` reads them: a file, a URL, a dict, a frame (pandas, Arrow,
    polars) or an ir_datasets dataset (``"irds:<id>"`` or the object)."""
    return read_coded_tables({}, cast(Any, remote_source(qrels, "qrels", storage_options=storage_options)))[1]


# ------------------------------------------------------------------------------------------ round 1: blocks
def _text_bytes(handle: Any, block: _Block, size: int) -> bytes:
    """The lines that start in bytes ``start``..``end`` of the file, each whole (the last read on to its end)."""
    if block.start > 0:
        handle.seek(block.start - 1)
        data = handle.read(block.end - block.start + 1)
        cut = data.find(b"\n")  # the line that started before the block belongs to the block before
        data = data[cut + 1:] if cut >= 0 else b""
    else:
        data = handle.read(block.end)
    if data and not data.endswith(b"\n") and block.end < size:
        tail = []
        read = 0
        while read <= MAX_LINE:
            chunk = handle.read(1 << 16)
            if not chunk:
                break
            end = chunk.find(b"\n")
            if end >= 0:
                tail.append(chunk[:end + 1])
                break
            tail.append(chunk)
            read += len(chunk)
        data += b"".join(tail)
    return data


def _parquet_rows(handle: Any, file: _RunFile, block: _Block) -> RunBatch:
    """A Parquet row group's rows, checked as a TREC line is (ids present and not empty, a score that is a number)."""
    qid_name, docid_name, score_name = file.columns
    try:
        table = pq.ParquetFile(handle).read_row_group(block.group, columns=list(file.columns))
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(f"run file {file.name}: row group {block.group} cannot be read ({exc}).") from None

    def row(index: int) -> str:
        return f"{file.name}: row {block.first_row + index + 1}"

    columns = []
    for name, kind in ((qid_name, pa.string()), (docid_name, pa.string()), (score_name, pa.float64())):
        column = table.column(name)
        if column.null_count:
            at = _first_true(pc.is_null(column))
            raise LoadError(f"{row(at)}: column {name!r} is missing (null); every row needs a query id, a document "
                            "id and a score.")
        try:
            column = pc.cast(column, kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise LoadError(f"run file {file.name}: column {name!r} of type {column.type} cannot be read as "
                            f"{'text' if kind == pa.string() else 'a number'}.") from None
        columns.append(column)
    qids, docids, scores = columns
    for name, column in ((qid_name, qids), (docid_name, docids)):
        empty = pc.equal(pc.utf8_length(column), 0)
        if pc.any(empty).as_py():
            at = _first_true(empty)
            raise LoadError(f"{row(at)}: column {name!r} is empty; a TREC id is a non-empty string.")
    values = np.asarray(scores.combine_chunks().to_numpy(zero_copy_only=False), dtype=np.float64)
    if np.isnan(values).any():
        raise LoadError(f"{row(int(np.flatnonzero(np.isnan(values))[0]))}: the score ({score_name!r}) must be a number; "
                        "got NaN.")
    lines = np.arange(block.first_row + 1, block.first_row + 1 + len(values), dtype=np.int64)
    return RunBatch(qids, docids, values, lines)


def _first_true(mask: Any) -> int:
    """The position of the first true value of an Arrow boolean array."""
    return int(np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False), dtype=bool))[0])


def _batches(file: _RunFile, block: _Block, first_line: int, storage_options: Mapping[str, Any] | None
             ) -> Iterator[tuple[RunBatch | None, int]]:
    """The block's rows a batch at a time, and (last) the line ends it holds: ``(batch, 0)`` ... ``(None, lines)``."""
    with _open(file.where, storage_options) as handle:
        if file.kind == "parquet":
            batch = _parquet_rows(handle, file, block)
            yield batch, 0
            yield None, int(batch.lines[-1]) if len(batch.lines) else 0
            return
        if file.kind == "gzip":
            source = TrecSource("run", None, handle)
            source.name = file.name
            last = 0
            for batch in read_run_batches(source, first_line=1):
                last = int(batch.lines[-1])
                yield batch, 0
            yield None, last
            return
        data = _text_bytes(handle, block, file.size)
    source = TrecSource("run", None, io.BytesIO(data))
    source.name = file.name
    for batch in read_run_batches(source, first_line=first_line):
        yield batch, 0
    yield None, int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10))


def _read_block(file: _RunFile, block: _Block, pieces_dir: str | Remote, partitions: int,
                storage_options: Mapping[str, Any] | None, first_line: int | None = None) -> _BlockReport:
    """One task: a block's lines split by partition, written as pieces; with ``first_line``, only read (to raise
    the error of a block that reported one, numbered from its first line in the file)."""
    report = _BlockReport(block.number)
    placed = first_line is not None or block.start == 0  # lines numbered as in the file
    writers: dict[int, Any] = {}
    held: list[RunBatch] = []
    try:
        for batch, lines in _batches(file, block, first_line or 1, storage_options):
            if batch is None:
                report.lines = lines
                break
            if first_line is not None:
                continue  # read again to raise its error: nothing is written
            held.append(batch)
            if sum(len(b.scores) for b in held) >= _FLUSH_ROWS:
                report.rows += _flush(held, writers, report, pieces_dir, block.number, partitions)
                held = []
        if held:
            report.rows += _flush(held, writers, report, pieces_dir, block.number, partitions)
    except LoadError as exc:
        if placed:
            raise
        report.failed = str(exc)
        if file.kind == "text":  # the client needs the line ends of every block before this one only
            report.lines = 0
    finally:
        for writer, sink, target in writers.values():
            writer.close()
            if isinstance(target, Remote):  # a piece on object storage: one PUT of the bytes written
                write_bytes(target, sink.getvalue().to_pybytes(), what="piece")
            sink.close()
    return report


def _flush(held: list[RunBatch], writers: dict[int, Any], report: _BlockReport, pieces_dir: str | Remote, block: int,
           partitions: int) -> int:
    """Append the rows held to their partitions' pieces (one Arrow IPC file per block and partition)."""
    qids = pa.chunked_array([chunk for b in held for chunk in _chunks(b.qids)], type=pa.string())
    docids = pa.chunked_array([chunk for b in held for chunk in _chunks(b.docids)], type=pa.string())
    scores = np.concatenate([b.scores for b in held])
    lines = np.concatenate([b.lines for b in held])
    codes, dictionary = dictionary_codes(qids)
    parts = partitioned.partition_of_ids(np.asarray(dictionary.to_numpy(zero_copy_only=False), dtype=object),
                                         partitions)[codes]
    table = pa.table([qids, docids, pa.array(scores, type=pa.float64()), pa.array(lines, type=pa.int64())],
                     schema=_PIECE_SCHEMA)
    order = np.argsort(parts, kind="stable")
    bounds = np.searchsorted(parts[order], np.arange(partitions + 1))
    for part in np.flatnonzero(np.diff(bounds)).tolist():
        rows = table.take(pa.array(order[bounds[part]:bounds[part + 1]]))
        if part not in writers:
            name = f"{block:07d}-{part:05d}.arrow"
            target: str | Remote = pieces_dir / name if isinstance(pieces_dir, Remote) else str(Path(pieces_dir) / name)
            sink = pa.BufferOutputStream() if isinstance(target, Remote) else pa.OSFile(target, "wb")
            options = pa.ipc.IpcWriteOptions(compression="lz4" if pa.Codec.is_available("lz4") else None)
            writers[part] = (pa.ipc.new_file(sink, _PIECE_SCHEMA, options=options), sink, target)
            report.pieces[part] = target
        writers[part][0].write_table(rows)
    return len(scores)


def _chunks(column: Any) -> list[Any]:
    return list(column.chunks) if isinstance(column, pa.ChunkedArray) else [column]


# ------------------------------------------------------------------------------------------ round 2: partitions
@dataclass(frozen=True)
class _Layout:
    """What every partition task needs to know of the blocks and files (small)."""

    block_file: np.ndarray  # per block: its file number
    block_offset: np.ndarray  # per block: what to add to its rows' lines
    names: tuple[str, ...]  # per file: what messages call it
    kinds: tuple[str, ...]  # per file: "text", "gzip" or "parquet"
    line_bits: int
    rank_bits: int

    def where(self, file: int, line: int) -> str:
        if self.kinds[file] == "parquet":
            return f"{self.names[file]}: row {line}"
        return f"{self.names[file]}:{line}"


def _write_partition(staging: str | Remote, part: int, partitions: int, pieces: list[tuple[int, str | Remote]],
                     layout: _Layout,
                     qrels: CodedTable, qrels_parts: np.ndarray, node: str, generation: str) -> dict[str, Any]:
    """One task: partition ``part``'s rows gathered from the pieces, ranked and built as ``from_trec`` builds a node,
    written as its part file."""
    tables, files, lines = [], [], []
    for block, path in pieces:
        if isinstance(path, Remote):
            table = pa.ipc.open_file(pa.py_buffer(read_bytes(path, what="piece"))).read_all()
        else:
            with pa.memory_map(path) as source:
                table = pa.ipc.open_file(source).read_all()
        tables.append(table.select(["qid", "docid", "score"]))
        files.append(np.full(table.num_rows, layout.block_file[block], dtype=np.int64))
        lines.append(numpy_of(table.column("line").combine_chunks()) + layout.block_offset[block])
    if tables:
        rows = pa.concat_tables(tables)
        file = np.concatenate(files)
        line = np.concatenate(lines)
    else:
        rows = _PIECE_SCHEMA.empty_table().select(["qid", "docid", "score"])
        file = line = np.zeros(0, dtype=np.int64)
    del tables, files, lines
    keys = (file << layout.line_bits) | line
    if len(keys) > 1 and not (np.diff(keys) > 0).all():  # blocks in file order, each's rows in line order
        order = np.argsort(keys, kind="stable")
        rows, keys, file, line = rows.take(pa.array(order)), keys[order], file[order], line[order]
    q_codes, qids = dictionary_codes(rows.column("qid"))
    d_codes, docids = dictionary_codes(rows.column("docid"))
    scores = numpy_of(rows.column("score").combine_chunks())
    del rows
    _check_distinct(q_codes, d_codes, qids, docids, file, line, layout)
    run = run_table(ArrowColumns(q_codes, qids, d_codes, docids, scores))
    first_row = np.unique(q_codes, return_index=True)[1]  # codes number the queries in file order
    query_keys = keys[first_row]
    mine = np.flatnonzero(qrels_parts == part)  # the qrels' queries of this partition, in qrels order
    judged = _qrels_of(qrels, mine)
    frame = pd.DataFrame({name: column for name, column in _columns(run, judged, node)}, copy=False)
    ids = frame[partitioned.KEY_COLUMN].to_numpy(dtype=object)
    codes, distinct = pd.factorize(ids, use_na_sentinel=False)
    distinct = np.asarray(distinct, dtype=object)
    in_run = pd.Index(np.asarray(run.qids, dtype=object)).get_indexer(distinct)
    in_qrels = pd.Index(np.asarray(qrels.qids[mine], dtype=object)).get_indexer(distinct)
    # padded by one: a partition may have no run query, or no judged one
    qrels_only = ((np.int64(len(layout.names)) << layout.line_bits)
                  | np.append(mine, 0).astype(np.int64)[np.where(in_qrels >= 0, in_qrels, len(mine))])
    query_key = np.where(in_run >= 0, np.append(query_keys, 0)[np.where(in_run >= 0, in_run, len(query_keys))],
                         qrels_only)
    position = pd.Series(codes).groupby(codes).cumcount().to_numpy(dtype=np.int64)
    if len(position) and int(position.max()) >> layout.rank_bits:
        raise LoadError(f"query {distinct[codes[int(np.argmax(position))]]!r} has more than {1 << layout.rank_bits:,} "
                        "lines, more than the order keys of this many files and lines hold; split the run.")
    frame[partitioned.ROW_COLUMN] = (query_key[codes] << layout.rank_bits) | position
    return partitioned.write_part(staging, node, part, partitions, frame, generation=generation)


def _columns(run: CodedTable, qrels: CodedTable, node: str) -> Iterator[tuple[str, Any]]:
    source = TrecNodeSource(run, qrels, node=node)
    for name in source.names:
        yield name, source.column(name)


def _check_distinct(q_codes: np.ndarray, d_codes: np.ndarray, qids: Any, docids: Any, file: np.ndarray,
                    line: np.ndarray, layout: _Layout) -> None:
    """Refuse a document twice in a query (rows in file order), naming both lines, as the TREC reader does."""
    repeated = repeated_pairs(q_codes, d_codes, len(qids), len(docids))
    if not repeated.any():
        return
    at = int(np.flatnonzero(repeated)[0])
    first = int(np.flatnonzero((q_codes == q_codes[at]) & (d_codes == d_codes[at]))[0])
    qid, docid = qids[int(q_codes[at])].as_py(), docids[int(d_codes[at])].as_py()
    raise LoadError(f"{layout.where(int(file[at]), int(line[at]))}: document {docid!r} appears twice in query {qid!r} "
                    f"(first on {layout.where(int(file[first]), int(line[first]))}); trec_eval refuses a run with "
                    "duplicate documents (\"duplicate docs\"). Keep one of the lines.")


def _qrels_of(qrels: CodedTable, queries: np.ndarray) -> CodedTable:
    """The judgments of the qrels' queries ``queries`` (codes, in qrels order), renumbered in that order."""
    renumber = np.full(len(qrels.qids), -1, dtype=np.int64)
    renumber[queries] = np.arange(len(queries))
    codes = renumber[np.asarray(qrels.qid_codes, dtype=np.int64)]
    keep = codes >= 0
    return CodedTable(codes[keep].astype(np.int32), np.asarray(qrels.qids, dtype=object)[queries],
                      np.asarray(qrels.docid_codes)[keep], qrels.docids, np.asarray(qrels.values)[keep], None,
                      qrels.docids_arrow)


# ------------------------------------------------------------------------------------------ the call
def _check_partitions(partitions: Any) -> int:
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise InvalidParameterError(f"partitions must be an int >= 1 (how many part files); got {partitions!r}.")
    if partitions > partitioned.MAX_PARTITIONS:
        raise InvalidParameterError(partitioned.too_many_partitions(partitions))
    return int(partitions)


def from_trec(runs: str | Path | Sequence[str | Path], qrels: str | Path | Mapping[str, Mapping[str, int]], *,
              partitions: int, out_dir: str | Path | Remote | None = None,
              storage_options: Mapping[str, Any] | None = None,
              client: Any = None, node: str = "Retriever", block_size: int = BLOCK_SIZE) -> DaskEvaluationResult:
    """Evaluate a TREC run of any size on Dask: read on the workers in blocks, shuffled by query to partitions.

    The result equals ``EvaluationResult.from_trec`` of the runs files read one after another (as one file, ``cat``
    of them), saved with ``save(out_dir, format="parquet", partitions=partitions)`` and loaded on Dask: every trec
    measure gives the same numbers, under trec_eval's rules (ranking order, ties, a document twice in a query
    refused). The workers read the files themselves; the client reads the qrels and the files' sizes (and Parquet
    footers) only, never the run's lines. One task reads each block (``block_size`` bytes of a plain text file, a
    whole gzip file, a Parquet row group) and one task builds each partition: no process holds more than a block or a
    partition.

    Parameters
    ----------
    runs : path, URL, glob pattern, or a list of them
        TREC run files (``qid Q0 docid rank score tag``, plain text or gzip, recognised by their first bytes) or
        Parquet files with the run's columns (``query_id`` or ``qid``, ``doc_id``, ``docno`` or ``docid``, and
        ``score``), in the order given (a pattern's matches in sorted order). A query's lines may lie in several
        blocks or files. Every worker opens them itself: on a cluster, give paths every worker sees or URLs
        (``s3://bucket/runs/*.gz``).
    qrels : path, URL, dict, frame or ir_datasets dataset
        The qrels (``qid iter docid relevance``, plain or gzip; or anything ``EvaluationResult.from_trec`` reads as
        qrels: ``{qid: {docid: grade}}``, a pandas / Arrow / polars frame, ``"irds:<id>"``), read here and handed to
        every partition task.
    partitions : int
        How many partitions the queries are hashed to (>= 1); each partition task holds its queries' lines.
    out_dir : path, optional
        The results folder to write (a partitioned Parquet folder, docs/persistence.md#partitioned-results). None:
        a new folder under the system's temporary folder (``tempfile.mkdtemp``), on this machine, removed when the
        process ends (the result and the lazy frames of its analyses read it until then) and at once when the build
        fails; on a cluster whose workers run
        elsewhere, give a folder every worker sees, or a URL (``s3://bucket/results``: the pieces and the part
        files are written to it, and the result published as docs/storage.md#safe-saves-on-object-storage says).
    storage_options : dict, optional
        The filesystem options of the URLs (credentials, ``endpoint_url``); the workers open the files with them.
    client : distributed.Client or str, optional
        Where the tasks run (:func:`evalframe.dask.client.current_client`).
    node : str
        The node's name (default ``"Retriever"``).
    block_size : int
        The bytes of plain text one task reads (default 64 MiB).

    Returns
    -------
    DaskEvaluationResult
        The folder written, loaded on the same client (``result.path``).

    Raises
    ------
    InvalidParameterError
        Before any task runs: ``partitions`` or ``block_size`` not an int >= 1, ``runs`` of the wrong kind, a URL
        whose filesystem is not installed.
    LoadError
        A missing run file (before any task runs), a Parquet file without the run's columns; a bad line, named
        ``file:line`` (a Parquet file's ``file: row n``); a document twice in a query (both lines named, in one
        file or two); qrels that cannot be read (named as ``from_trec`` names them).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run-a.txt").write_text("q1 Q0 d1 1 2.0 r\\nq2 Q0 d3 1 1.0 r\\n")
    >>> _ = (folder / "run-b.txt").write_text("q1 Q0 d2 2 3.0 r\\n")
    >>> _ = (folder / "qrels.txt").write_text("q1 0 d1 1\\nq2 0 d3 1\\n")
    >>> result = from_trec(str(folder / "run-*.txt"), folder / "qrels.txt", partitions=2, out_dir=folder / "result")
    >>> result.trec_metrics(["RR", "P@1"])
    {'RR': 0.75, 'P@1': 0.5}
    """
    partitions = _check_partitions(partitions)
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise InvalidParameterError(f"block_size must be an int >= 1 (bytes of text per task); got {block_size!r}.")
    if not isinstance(node, str) or not node:
        raise InvalidParameterError(f"node must be a non-empty string (the node's name); got {node!r}.")
    partitioned.check_node_name(node)
    temporary = None
    target: Path | Remote
    if out_dir is None:  # removed when the result is dropped (or at exit), and at once when the build fails
        temporary = Path(tempfile.mkdtemp(prefix="evalframe-from-trec-"))
        target = temporary / "result"
    else:
        target = resolve(out_dir, name="out_dir", storage_options=storage_options)
    files = [_run_file(number, name, where, storage_options)
             for number, (name, where) in enumerate(_expand(runs, storage_options))]
    blocks = _blocks(files, int(block_size))
    qrels_table = _read_qrels(qrels, storage_options)
    qrels_parts = partitioned.partition_of_ids(np.asarray(qrels_table.qids, dtype=object), partitions)
    dask_client = current_client(client)
    token = uuid.uuid4().hex[:12]
    options = dict(storage_options or {})

    def write_parts(staging: Path | Remote) -> dict[str, list[dict[str, Any]]]:
        scratch = Scratch.made(staging)
        pieces, place = scratch.pieces, scratch.staging
        read = dask.delayed(_read_block, pure=False)
        reports: list[_BlockReport] = run_round([read(files[block.file], block, pieces, partitions, options,
                                                 dask_key_name=f"evalframe-trec-block-{block.number}-{token}")
                                            for block in blocks], dask_client, token)
        offsets = np.zeros(len(blocks), dtype=np.int64)
        last_line = np.zeros(len(files), dtype=np.int64)
        for block, report in zip(blocks, reports):
            file = files[block.file]
            if file.kind == "text":
                offsets[block.number] = last_line[block.file]
                if report.failed is not None:
                    first = int(offsets[block.number]) + 1
                    run_round([read(file, block, pieces, partitions, options, first,
                               dask_key_name=f"evalframe-trec-again-{block.number}-{token}")], dask_client, token)
                    raise LoadError(report.failed)  # pragma: no cover - the task raised it, numbered in the file
                last_line[block.file] += report.lines
            else:
                last_line[block.file] = max(last_line[block.file], report.lines)
        if not sum(report.rows for report in reports):
            raise LoadError(f"the run files ({', '.join(f.name for f in files[:3])}{', ...' if len(files) > 3 else ''}) "
                            "hold no line other than comments and blank lines; a TREC run file has one line "
                            "`qid Q0 docid rank score tag` per retrieved document.", parameter="runs")
        file_bits = max(len(files).bit_length(), 1)  # files 0..n-1, and n: the queries only in the qrels
        line_bits = max(int(last_line.max(initial=0)) + 1, len(qrels_table.qids)).bit_length()
        rank_bits = 63 - file_bits - line_bits
        if rank_bits < 1:
            raise InvalidParameterError(f"{len(files)} files of up to {int(last_line.max()):,} lines are more than "
                                        "the order keys hold; give fewer, shorter files.")
        layout = _Layout(np.array([block.file for block in blocks], dtype=np.int64), offsets,
                         tuple(f.name for f in files), tuple(f.kind for f in files), line_bits, rank_bits)
        shared_qrels = dask.delayed(qrels_table, name=f"evalframe-trec-qrels-{token}")
        shared_parts = dask.delayed(qrels_parts, name=f"evalframe-trec-qrels-parts-{token}")
        shared_layout = dask.delayed(layout, name=f"evalframe-trec-layout-{token}")
        write = dask.delayed(_write_partition, pure=False)
        generation = partitioned.staged_generation(staging)
        tasks = []
        for part in range(partitions):
            part_pieces = [(report.number, report.pieces[part]) for report in reports if part in report.pieces]
            tasks.append(write(place, part, partitions, part_pieces, shared_layout, shared_qrels, shared_parts,
                               node, generation, dask_key_name=f"evalframe-trec-partition-{part}-{token}"))
        entries: list[dict[str, Any]] = run_round(tasks, dask_client, token)
        scratch.remove()
        return {node: entries}

    matching = {**MatchingOptions().as_dict(), "sas_model": None}  # what from_trec records
    try:
        path = save_parts(target, partitions, write_parts, matching=matching, storage_options=storage_options)
        result = load(path.url if isinstance(path, Remote) else str(path), client=client, storage_options=storage_options)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise
    if temporary is not None:  # kept while this process runs: lazy frames of the result read it after it is dropped
        atexit.register(shutil.rmtree, temporary, ignore_errors=True)
    return result
