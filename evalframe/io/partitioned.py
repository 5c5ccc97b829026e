"""Partitioned result folders: each node as N Parquet files, a query's rows in one partition number in every node.

``save(dir, format="parquet", partitions=N)`` (docs/persistence.md#partitioned-results) puts every row in partition
``mmh3.hash(str(multilabel_id).encode("utf-8"), 0, signed=False) % N`` (MurmurHash3 x86_32, seed 0), computed once
per distinct ``multilabel_id``. Each partition file keeps its rows in their original order and holds their original
row positions in the reserved column :data:`ROW_COLUMN`, so a whole load puts every row back where it was. The files
stay flat in the results folder (``<node>.part-00003-of-00008.parquet``), so the one-generation reader
(:mod:`evalframe.io.folder`) and the atomic folder swap (:mod:`evalframe.io.atomic`) apply unchanged.

Folders written by many processes (Dask workers: :mod:`evalframe.dask`) use :func:`write_part` for each file and
:func:`evalframe.io.results.save_parts` around them; their :data:`ROW_COLUMN` holds unique order keys (a whole load
sorts the rows by them), not necessarily 0..n-1. Every partitioned folder records a random ``generation``, which a
reader of one partition (:func:`read_partition`) checks, so a worker never mixes files of two saves; every part file
records it too (Parquet key-value metadata :data:`GENERATION_KEY`), so a part copied from another save is refused.

Both readers (a whole load, :func:`read_nodes`, and one partition, :func:`read_partition`) check every part file with
:func:`check_part`: its generation, its order keys (distinct and increasing) and every row's partition by
:data:`HASH_RULE`. What needs every partition (the order keys of a node distinct and complete) a whole load checks
on the keys, and a reader of single partitions on their :func:`key_summary` (:func:`check_key_summaries`).
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import mmh3
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import atomic, parquet, remote
from .codecs import encodes
from .folder import Folder, is_plain_name, with_retries
from .manifest import read_manifest, scores_of_manifest
from .._locations import Remote, write_bytes
from .._validation import check_optional_name
from ..errors import LoadError, SaveError
from ..frames.arrays import DistinctLists, object_array
from ..frames.pending import ColumnView, PendingFrame

__all__ = ["HASH_RULE", "KEY_COLUMN", "ROW_COLUMN", "GENERATION_KEY", "GENERATION_FILE", "MAX_PARTITIONS",
           "check_part", "key_summary", "check_key_summaries", "staged_generation",
           "check_partitions", "part_file", "partition_of_rows",
           "partition_of_ids", "check_node_name", "concat_rows", "split_rows", "layout", "read_nodes", "read_partition",
           "write_part", "Partition"]

#: The column whose value decides a row's partition.
KEY_COLUMN = "multilabel_id"
#: The reserved column of every partition file: the row's order key in the node (its position in the saved node frame
#: for a save of a result in memory; unique int64 keys for folders written by many processes), dropped on load.
ROW_COLUMN = "__evalframe_row__"
#: The partition rule, as evalframe.json spells it out.
HASH_RULE = ("partition = mmh3.hash(str(multilabel_id).encode('utf-8', 'surrogatepass'), seed=0, signed=False) "
             "% partitions (MurmurHash3 x86_32, unsigned)")

#: The Parquet key-value metadata key of every part file: the generation of the save that wrote it (as evalframe.json's
#: "partitioned" "generation"). Part files written before it was recorded have none (see :func:`check_part`).
GENERATION_KEY = "evalframe.generation"
#: The hidden file in the staging folder of :func:`evalframe.io.results.save_parts` holding the save's generation,
#: which :func:`write_part` (on any worker that sees the staging folder) records in its part file; removed before
#: the folder is swapped into place.
GENERATION_FILE = ".evalframe-generation"
#: The most partitions a folder may have: part file names number them with five digits (``part-00003-of-00008``), so
#: that a sorted listing is in partition order; beyond, each partition is a file per node of mostly nothing (a
#: partition per query is reached long before for any result that fits on a disk) and the save would spend its
#: time and memory on empty files.
MAX_PARTITIONS = 99_999


def check_partitions(partitions: Any, format: str) -> int | None:
    """``partitions`` checked against the save's ``format``: None (one file per node) or an int in 1..MAX_PARTITIONS."""
    if partitions is None:
        return None
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise SaveError(f"partitions must be an int >= 1 (or None for one file per node); got {partitions!r}.")
    if partitions > MAX_PARTITIONS:
        raise SaveError(too_many_partitions(partitions))
    if format != "parquet":
        raise SaveError(f"partitions={partitions} needs format='parquet' (CSV folders stay one <node>.csv per node, "
                        f"as Haystack 1.x reads them); call save(out_dir, format='parquet', partitions={partitions}).")
    return int(partitions)


def too_many_partitions(partitions: Any) -> str:
    """The refusal of a partition count over :data:`MAX_PARTITIONS` (a save's, or a cluster build's)."""
    return (f"partitions must be at most {MAX_PARTITIONS:,} (part files are numbered with five digits); got "
            f"{int(partitions):,}. Choose a few partitions per worker (docs/cluster.md), e.g. partitions=64.")


def check_node_name(node: str) -> None:
    """A node's files are named after it: a plain name a load reads back (no separator, not hidden, encodable)."""
    if not isinstance(node, str) or not is_plain_name(node) or node.startswith(".") or not encodes([node]):
        raise SaveError(
            f"node name {node!r} cannot be a file name (no '/', '\\', leading '.', lone surrogates or empty names); "
            "rename the node before saving."
        )


def part_file(node: str, part: int, partitions: int) -> str:
    """The file name of one partition of a node, flat in the results folder."""
    return f"{node}.part-{part:05d}-of-{partitions:05d}.parquet"


def partition_of_rows(node: str, frame: pd.DataFrame, partitions: int, known: dict[Any, int]) -> np.ndarray:
    """The partition number of every row of ``frame`` (int64), hashed once per distinct ``multilabel_id``.

    ``known`` caches the numbers of ids already hashed (the nodes of one result share their queries).
    """
    if KEY_COLUMN not in frame.columns:
        raise SaveError(f"node {node!r} has no {KEY_COLUMN!r} column, which decides a row's partition; save it "
                        "without partitions=, or add the column.")
    if ROW_COLUMN in frame.columns:
        raise SaveError(f"node {node!r} has a column named {ROW_COLUMN!r}, which partitioned folders reserve for the "
                        "row positions; rename it.")
    codes, _, numbers = _hashed(frame[KEY_COLUMN].to_numpy(dtype=object), partitions, known)
    return numbers[codes]


def _hashed(ids: np.ndarray, partitions: int, known: dict[Any, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ids`` factorised (codes, distinct ids) and the partition number of each distinct id, hashed once per id
    (``known`` caches the numbers of ids already hashed)."""
    codes, distinct = pd.factorize(ids, use_na_sentinel=False)
    numbers = np.empty(len(distinct), dtype=np.int64)
    for i, key in enumerate(distinct.tolist()):  # one hash per distinct query, never per row
        number = known.get(key)
        if number is None:
            number = known[key] = _partition_of(key, partitions)
        numbers[i] = number
    return codes, distinct, numbers


def split_rows(parts: np.ndarray, partitions: int) -> list[np.ndarray]:
    """Per partition number, the positions of its rows in their original order."""
    order = np.argsort(parts, kind="stable")
    bounds = np.searchsorted(parts[order], np.arange(partitions + 1))
    return [order[bounds[p]:bounds[p + 1]] for p in range(partitions)]


def part_frame(frame: pd.DataFrame, positions: np.ndarray) -> pd.DataFrame:
    """The rows of one partition, with their original positions in :data:`ROW_COLUMN` (a default index)."""
    rows = frame.take(positions).reset_index(drop=True)
    rows[ROW_COLUMN] = positions.astype(np.int64)
    return rows


def _partition_of(key: Any, partitions: int) -> int:
    """One query's partition number by :data:`HASH_RULE`."""
    return mmh3.hash(str(key).encode("utf-8", "surrogatepass"), 0, signed=False) % partitions


def partition_of_ids(ids: Any, partitions: int) -> np.ndarray:
    """The partition number (int64) of every value of ``ids``, by :data:`HASH_RULE`, hashed once per distinct id.

    Examples
    --------
    >>> partition_of_ids(["q1", "q2", "q1"], 4).tolist() == [partition_of_ids(["q1"], 4)[0], partition_of_ids(["q2"], 4)[0],
    ...                                                      partition_of_ids(["q1"], 4)[0]]
    True
    """
    codes, distinct = pd.factorize(np.asarray(ids, dtype=object), use_na_sentinel=False)
    numbers = np.fromiter((_partition_of(key, partitions) for key in distinct.tolist()), dtype=np.int64,
                          count=len(distinct))
    return numbers[codes]


def layout(partitions: int) -> dict[str, Any]:
    """The manifest's "partitioned" field, with a new random generation."""
    # "generation_in_parts": every part file records the generation (GENERATION_KEY); folders written before have no
    # such field, and their parts no such key, which check_part accepts for them only
    return {"partitions": partitions, "key": KEY_COLUMN, "hash": HASH_RULE, "row_column": ROW_COLUMN,
            "generation": uuid.uuid4().hex, "generation_in_parts": True}


def staged_generation(staging: str | Path | Remote) -> str:
    """The generation :func:`evalframe.io.results.save_parts` left in its staging folder for :func:`write_part`."""
    try:
        if isinstance(staging, Remote):
            return bytes((staging / GENERATION_FILE).fs.cat_file((staging / GENERATION_FILE).path)).decode("ascii").strip()
        return (Path(staging) / GENERATION_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeError):
        raise SaveError(f"{staging} is not the staging folder of evalframe.io.save_parts (it holds no readable "
                        f"{GENERATION_FILE}); call write_part on the staging folder save_parts passes to write_parts, "
                        "or pass generation=.") from None


def write_part(staging: str | Path | Remote, node: str, number: int, partitions: int, frame: pd.DataFrame, *,
               generation: str | None = None) -> dict[str, Any]:
    """Write partition ``number`` of ``node`` into the staging folder of a partitioned save; its manifest entry.

    For folders written by many processes (:func:`evalframe.io.results.save_parts`, which passes ``staging``):
    ``frame`` holds the partition's rows with their order keys in :data:`ROW_COLUMN` (unique int64 within the node),
    every ``multilabel_id`` of partition ``number`` by :data:`HASH_RULE` (checked; a SaveError names the first
    that is not). The rows are written in key order, and the file records the save's ``generation`` (by default the
    one save_parts left in ``staging``), which readers check. ``staging`` may be the
    :class:`~evalframe._locations.Remote` prefix of a save to a URL: the file is then written in one PUT.
    """
    check_node_name(node)  # before anything is written: the file is named after it
    generation = check_optional_name(generation, name="generation")  # a part of no generation is refused at load
    if generation is None:
        generation = staged_generation(staging)
    if ROW_COLUMN not in frame.columns or KEY_COLUMN not in frame.columns:
        raise SaveError(f"partition {number} of node {node!r} needs the columns {KEY_COLUMN!r} and {ROW_COLUMN!r} "
                        "(the rows' order keys).")
    ids = frame[KEY_COLUMN].to_numpy(dtype=object)
    wrong = np.flatnonzero(partition_of_ids(ids, partitions) != number)
    if len(wrong):
        raise SaveError(f"node {node!r}: query {ids[wrong[0]]!r} belongs to partition "
                        f"{partition_of_ids(ids[wrong[:1]], partitions)[0]} of {partitions}, not {number}; split the rows "
                        "with evalframe.io.partitioned.partition_of_ids.")
    keys = frame[ROW_COLUMN].to_numpy()
    if keys.dtype.kind not in "iu":
        raise SaveError(f"node {node!r}: {ROW_COLUMN!r} must hold integer order keys; got {frame[ROW_COLUMN].dtype}.")
    if len(keys) > 1 and not (np.diff(keys) > 0).all():
        frame = frame.iloc[np.argsort(keys, kind="stable")].reset_index(drop=True)
    else:
        frame = frame.reset_index(drop=True)
    frame[ROW_COLUMN] = frame[ROW_COLUMN].astype(np.int64)
    table, entry = parquet.encode_frame(node, frame)
    entry["file"] = part_file(node, number, partitions)
    if isinstance(staging, Remote):
        buffer = io.BytesIO()
        parquet.write(buffer, table, {GENERATION_KEY: generation})
        atomic.step(f"put {entry['file']}")
        write_bytes(staging / entry["file"], buffer.getvalue(), what=f"partition file {entry['file']}")
        return entry
    path = Path(staging) / entry["file"]
    with atomic.staged_file(path):
        parquet.write(path, table, {GENERATION_KEY: generation})
    return entry


def check_part(path: Path, node: str, number: int, layout: Mapping[str, Any], frame: pd.DataFrame,
               metadata: Mapping[str, str], known: dict[Any, int] | None = None) -> np.ndarray:
    """Check one part file as read (``frame`` with :data:`ROW_COLUMN`, ``metadata`` its key-value metadata); its order
    keys (int64). The checks every reader of a partitioned folder makes on each file, whole or one partition.

    A :class:`LoadError` names the file (``path``) when it was written by another save than ``layout`` (evalframe.json's
    "partitioned") records, lacks the reserved columns, holds order keys that are not distinct and increasing, or
    holds a row whose ``multilabel_id`` belongs to another partition than ``number`` by :data:`HASH_RULE` (a row moved
    between part files: that query would be counted in two partitions). ``known`` caches the partition numbers of
    ids already hashed (the nodes of a folder share their queries).
    """
    found, expected = metadata.get(GENERATION_KEY), layout.get("generation")
    if found is None and layout.get("generation_in_parts"):
        raise LoadError(f"{path}: this part file records no generation, but every part file of the save of this folder "
                        f"does (generation {expected!r}, evalframe.json); it was copied in from another save (of an "
                        "older evalframe): save the result again.")
    if found is not None and found != expected:
        raise LoadError(f"{path}: this part file was written by the save of generation {found!r}, but the folder is "
                        f"the save of generation {expected!r} (evalframe.json); it was copied in from another save, "
                        "and would mix the rows of two results: save the result again.")
    if ROW_COLUMN not in frame.columns or KEY_COLUMN not in frame.columns:
        raise LoadError(f"{path}: a partition file needs the columns {ROW_COLUMN!r} and {KEY_COLUMN!r}; the file was "
                        "edited or damaged (save the result again).")
    keys = frame[ROW_COLUMN].to_numpy()
    if keys.dtype.kind not in "iu":
        raise LoadError(f"{path}: {ROW_COLUMN!r} must hold integer order keys; it holds {frame[ROW_COLUMN].dtype} (the "
                        "file was edited or damaged: save the result again).")
    keys = keys.astype(np.int64, copy=False)
    if len(keys) > 1:
        wrong = np.flatnonzero(np.diff(keys) <= 0)
        if len(wrong):  # every writer writes a part's rows in increasing key order
            raise LoadError(f"{path}: the order keys ({ROW_COLUMN!r}) must be distinct and increasing; row "
                            f"{wrong[0] + 2} of the file holds {keys[wrong[0] + 1]} after {keys[wrong[0]]} (the file was "
                            "edited or damaged: save the result again).")
    partitions = int(layout["partitions"])
    codes, distinct, numbers = _hashed(frame[KEY_COLUMN].to_numpy(dtype=object), partitions, {} if known is None else known)
    wrong = np.flatnonzero(numbers != number)
    if len(wrong):
        first = int(np.flatnonzero(codes == wrong[0])[0])
        raise LoadError(f"{path}: query {distinct[wrong[0]]!r} (row {first + 1} of the file) lies in partition {number}, "
                        f"but its {KEY_COLUMN} belongs to partition {numbers[wrong[0]]} of {partitions} by the hash rule; "
                        "rows were moved between part files, and the query would be evaluated in two partitions (the "
                        "folder was edited or damaged: save the result again).")
    return keys


#: 2**64: the key sums of :func:`key_summary` are taken modulo it (numpy's uint64 arithmetic wraps).
_WRAP = 1 << 64


def key_summary(keys: np.ndarray) -> tuple[int, ...]:
    """A partition's order keys of one node summed up for :func:`check_key_summaries`: (count, min, max, and the sums
    of the keys, their squares and their cubes modulo 2**64); small, whatever the partition's size."""
    if not len(keys):
        return (0, 0, -1, 0, 0, 0)
    wrapped = keys.astype(np.uint64)
    with np.errstate(over="ignore"):
        squares = wrapped * wrapped
        sums = (int(wrapped.sum(dtype=np.uint64)), int(squares.sum(dtype=np.uint64)),
                int((squares * wrapped).sum(dtype=np.uint64)))
    return (len(keys), int(keys.min()), int(keys.max()), *sums)


def check_key_summaries(path: Path | Remote, node: str, rows: int, summaries: Sequence[tuple[int, ...]]) -> None:
    """The order keys of a node, checked from every partition's :func:`key_summary` without collecting them.

    Their count must be the node's ``rows`` (evalframe.json). Keys in 0..rows-1 (a save of a result in memory: the
    rows' positions) must be each of them once: their sums of powers 1 to 3 are those of 0..rows-1 (a duplicated or
    missing key changes them; keys distinct within each file are checked by :func:`check_part`). The keys of a folder
    built on a cluster are not known in advance: their count and each file's are checked.
    """
    total = sum(s[0] for s in summaries)
    if total != rows:
        raise LoadError(f"{path}: the partition files of node {node!r} hold {total} rows, not {rows} as evalframe.json "
                        "records; the folder was edited or damaged (save the result again).")
    present = [s for s in summaries if s[0]]
    if not present or min(s[1] for s in present) != 0 or max(s[2] for s in present) != rows - 1:
        return
    n = rows
    expected = ((n - 1) * n // 2 % _WRAP, (n - 1) * n * (2 * n - 1) // 6 % _WRAP, ((n - 1) * n // 2) ** 2 % _WRAP)
    found = tuple(sum(s[3 + i] for s in present) % _WRAP for i in range(3))
    if found != expected:
        raise LoadError(f"{path}: the {ROW_COLUMN!r} order keys of node {node!r} are not the {rows} distinct row "
                        f"positions 0..{rows - 1} evalframe.json records (a key is repeated in two part files, and another "
                        "missing); the folder was edited or damaged (save the result again).")


@dataclass
class Partition:
    """One partition of a partitioned folder, read by :func:`read_partition`.

    ``frames``: node -> the partition's rows (in key order, :data:`ROW_COLUMN` dropped): DataFrames, or with
    ``read_partition(..., pending=True)`` :class:`~evalframe.frames.pending.PendingFrame` s indexed by their order keys;
    ``keys``: node -> their order keys (int64); ``codings``: node -> the list codings the reader made (none for pending
    nodes: their sources code their list columns on first use); ``matching``: the folder's matching options.
    """

    frames: dict[str, Any]
    keys: dict[str, np.ndarray]
    codings: dict[str, dict[str, DistinctLists]]
    matching: dict[str, Any]
    scores: dict[str, Any] = field(default_factory=dict)  # the folder's score declarations (name -> Metric)


def read_partition(path: str | Path | Remote, number: int, generation: str | None = None,
                   nodes: Sequence[str] | None = None, *, pending: bool = False,
                   storage_options: Mapping[str, Any] | None = None) -> Partition:
    """Read partition ``number`` of every node (or of ``nodes``) of a partitioned folder, all from one generation.

    ``generation``: the folder's generation when it was first read (:func:`read_manifest`'s ``"partitioned"``
    field); a LoadError says so when the folder has been saved again since, instead of mixing two saves.
    ``pending``: each node as a :class:`~evalframe.frames.pending.PendingFrame` indexed by its order keys (each column
    made when first read, :data:`ROW_COLUMN` hidden) instead of a DataFrame with a default index; the same checks.
    ``path`` may be a URL (with ``storage_options``) or a :class:`~evalframe._locations.Remote`: the partition is read
    from the generation its ``evalframe.json`` names (:mod:`evalframe.io.remote`), each file whole.

    Examples
    --------
    >>> import tempfile
    >>> from evalframe import load_demo_result
    >>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=2, progress=False)
    >>> whole, held = read_partition(folder, 0), read_partition(folder, 0, pending=True)
    >>> node = held.frames["Reader"]
    >>> node.n_rows, node.index.tolist() == whole.keys["Reader"].tolist(), "__evalframe_row__" in node.source.names
    (9, True, False)
    >>> node.source.column("f1").equals(whole.frames["Reader"]["f1"])
    True
    """
    where = remote.resolve(path, name="path", storage_options=storage_options)

    def attempt() -> Partition:
        assert isinstance(where, Path)  # (a Remote is read by with_remote_retries below)
        with Folder(where) as folder:
            return read(folder)

    def read(folder: Folder) -> Partition:
        path = where
        manifest = read_manifest(folder)
        layout = (manifest or {}).get("partitioned")
        if layout is None:
            raise LoadError(f"{path} is not a partitioned results folder; save it with "
                            "result.save(dir, format='parquet', partitions=N).")
        if generation is not None and layout.get("generation") != generation:
            raise LoadError(f"{path} was saved again while it was being read (generation {layout.get('generation')!r}, "
                            f"not {generation!r}); load it again.")
        if not 0 <= number < layout["partitions"]:
            raise LoadError(f"{path} has {layout['partitions']} partitions; there is no partition {number}.")
        assert manifest is not None
        out = Partition({}, {}, {}, dict(manifest.get("matching") or {}), scores_of_manifest(manifest, path))
        known: dict[Any, int] = {}  # the nodes share their queries: each is hashed once
        for node, entry in manifest["nodes"].items():
            if nodes is not None and node not in nodes:
                continue
            part = entry["parts"][number]
            if not folder.exists(part["file"]):
                raise LoadError(f"{path / part['file']} is missing: evalframe.json lists it as partition {number} of "
                                f"node {node!r}; the partitioned folder is incomplete (save the result again).")
            codings: dict[str, DistinctLists] = {}
            metadata: dict[str, str] = {}
            if pending:
                view = ColumnView(parquet.read_pending(folder, part, metadata))  # reads two columns: the checks'
                keys = check_part(path / part["file"], node, number, layout, cast(pd.DataFrame, view), metadata, known)
                out.frames[node] = PendingFrame(len(view), _PartColumns(view.pending.source), index=pd.Index(keys))
            else:
                frame = parquet_read(folder, part, codings, metadata)
                keys = check_part(path / part["file"], node, number, layout, frame, metadata, known)
                out.frames[node] = frame.drop(columns=[ROW_COLUMN])
            out.keys[node] = keys
            out.codings[node] = codings
        return out

    if isinstance(where, Remote):
        return remote.with_remote_retries(where, read)
    return with_retries(where, attempt)


class _PartColumns:
    """One part file's columns without :data:`ROW_COLUMN` (a :class:`~evalframe.frames.pending.ColumnSource`): each
    made by the part's source, its list codings (``lists``) and Arrow columns (``arrow``) passed on."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.names: Sequence[str] = [name for name in source.names if name != ROW_COLUMN]
        self.arrow = {name: made for name, made in getattr(source, "arrow", {}).items() if name != ROW_COLUMN}

    def lists(self, name: str) -> DistinctLists | None:
        lists = getattr(self.source, "lists", None)
        return lists(name) if lists is not None and name != ROW_COLUMN else None

    def column(self, name: str) -> pd.Series:
        return cast(pd.Series, self.source.column(name))


def parquet_read(folder: Folder, part: dict[str, Any], codings: dict[str, DistinctLists],
                 metadata: dict[str, str] | None = None) -> pd.DataFrame:
    return parquet.read(folder, part, codings, metadata)


def read_nodes(folder: Folder, manifest: dict[str, Any]) -> dict[str, PendingFrame]:
    """Every node of a partitioned folder, read whole as a pending node: its parts laid end to end and put back in the
    saved row order when a column is first read (:class:`_WholeColumns`; a list column is coded on first use, from
    its parts' codes).

    Raises a :class:`LoadError` naming the file for a missing part, a row count that differs from evalframe.json,
    a part that fails :func:`check_part` (another save's, or a row in another partition than its query's), or row
    positions that do not make up the node.
    """
    path = folder.path
    for node, entry in manifest["nodes"].items():  # every listed file is checked before any is read
        for part in entry["parts"]:
            if not folder.exists(part["file"]):
                raise LoadError(f"{path / part['file']} is missing: evalframe.json lists it as a partition of node "
                                f"{node!r}; the partitioned folder is incomplete (save the result again).")
    frames: dict[str, PendingFrame] = {}
    known: dict[Any, int] = {}  # the nodes share their queries: each is hashed once
    for node, entry in manifest["nodes"].items():
        pieces: list[ColumnView] = []
        positions: list[np.ndarray] = []
        for number, part in enumerate(entry["parts"]):
            metadata: dict[str, str] = {}
            piece = ColumnView(parquet.read_pending(folder, part, metadata))
            keys = check_part(path / part["file"], node, number, manifest["partitioned"], cast(pd.DataFrame, piece),
                              metadata, known)
            if not len(piece) and pieces:
                continue
            positions.append(keys)
            pieces.append(piece)
        frames[node] = _in_saved_order(path, node, entry, pieces, positions)
    return frames


def _in_saved_order(path: Path, node: str, entry: dict[str, Any], pieces: list[ColumnView],
                    positions: list[np.ndarray]) -> PendingFrame:
    nonempty = [i for i, piece in enumerate(pieces) if len(piece)] or [0]  # concat of empty frames changes dtypes
    pieces = [pieces[i] for i in nonempty]
    rows = np.concatenate([positions[i] for i in nonempty])
    total = entry["rows"]
    order = np.argsort(rows, kind="stable")  # order[i]: where the node's row i lies in the concatenated parts
    if len(rows) != total or (total > 1 and not (np.diff(rows[order]) > 0).all()):
        raise LoadError(f"{path}: the partition files of node {node!r} hold {len(rows)} rows whose {ROW_COLUMN!r} "
                        f"order keys are not {total} distinct values as evalframe.json records; the folder was edited or "
                        "damaged (save the result again).")
    return PendingFrame(len(rows), _WholeColumns(pieces, order))


class _WholeColumns:
    """A partitioned node's columns (a :class:`~evalframe.frames.pending.ColumnSource`): each made from its parts
    (their :class:`~evalframe.frames.pending.ColumnView`) laid end to end (:func:`concat_rows`) and taken in the saved
    row order; a list column the parts code is coded from their codes (:func:`_merged`), as the whole frame's."""

    def __init__(self, pieces: list[ColumnView], order: np.ndarray) -> None:
        self.pieces, self.order = pieces, order
        self.names: Sequence[str] = [name for name in pieces[0].columns if name != ROW_COLUMN]
        self._coded: dict[str, DistinctLists | None] = {}

    def lists(self, name: str) -> DistinctLists | None:
        if name not in self._coded:
            parts = [piece.coded_lists(name) for piece in self.pieces]
            merged = _merged(name, [{name: lists} for lists in parts]) if all(p is not None for p in parts) else None
            self._coded[name] = None if merged is None else DistinctLists(merged.codes[self.order], merged.cells)
        return self._coded[name]

    def _arrow(self, name: str) -> tuple[list[Any], Callable[[Any], pd.Series]] | None:
        """The parts' Arrow columns ``name`` and the maker of the Series of their rows, when every part made its column
        from its Arrow column alone (:class:`~evalframe.io.codecs.LoadedColumns`' ``arrow``), of one type and spec."""
        found = [getattr(piece.pending.source, "arrow", {}).get(name) for piece in self.pieces]
        made = [part for part in found if part is not None]
        if len(made) < len(found):
            return None
        columns = [column for column, _, _ in made]
        if len({column.type for column in columns}) != 1 or len({key for _, _, key in made}) != 1:
            return None
        return columns, made[0][1]

    def column(self, name: str) -> pd.Series:
        lists = self.lists(name)
        arrow = self._arrow(name) if lists is None else None
        if lists is not None:
            series = pd.Series(lists.row_values(), dtype=object, copy=False)
        elif arrow is not None:  # the parts' Arrow columns taken in the saved order once, then made as one part's is
            columns, make = arrow
            whole = pa.chunked_array([chunk for column in columns for chunk in column.chunks],
                                     type=columns[0].type).combine_chunks()
            # a column of one value (type, eval_mode, node) is that value in any order: no take
            series = make(whole if _one_value(whole) else whole.take(pa.array(self.order)))  # (a take of chunks is slower)
        else:
            series = concat_rows([pd.DataFrame({name: piece[name]}, copy=False) for piece in self.pieces])[name]
            series = series.take(self.order).reset_index(drop=True)
        series.name = name
        return series


def _one_value(array: Any) -> bool:
    """Whether every row of an Arrow array holds its first row's value (no null; floats compared by value)."""
    if not len(array) or array.null_count or not _comparable(array.type):
        return False
    return bool(pc.all(pc.equal(array, array[0])).as_py())


def _comparable(kind: Any) -> bool:
    """Whether equal values of this Arrow type are identical (strings, integers, booleans: not floats)."""
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind)
                or pa.types.is_boolean(kind))


def concat_rows(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Frames with the same columns laid end to end (a default index), every cell as it was.

    ``pd.concat`` is not used for object columns: pandas 2.2 rebuilds a piece whose object column is all missing
    with its own missing value, turning NaN cells into None.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> concat_rows([pd.DataFrame({"a": [None, np.nan]}, dtype=object), pd.DataFrame({"a": [[1]]})])["a"].tolist()
    [None, nan, [1]]
    """
    if len(frames) == 1:
        return frames[0].reset_index(drop=True)
    columns = []
    for i in range(frames[0].shape[1]):
        parts = [frame.iloc[:, i] for frame in frames]
        if all(part.dtype == object for part in parts):
            columns.append(pd.Series(np.concatenate([part.to_numpy(dtype=object) for part in parts]), dtype=object))
        else:
            columns.append(pd.concat(parts, ignore_index=True))
    whole = pd.concat(columns, axis=1, ignore_index=True)
    whole.columns = frames[0].columns
    return whole


def _merged(column: str, piece_codings: list[dict[str, DistinctLists]]) -> DistinctLists:
    """One column's list codings of the parts laid end to end (cells are not deduplicated across parts); Arrow cells of
    one type stay Arrow cells."""
    codes, cells, offset = [], [], 0
    arrow = [part[column].cells for part in piece_codings if not isinstance(part[column].cells, np.ndarray)]
    if arrow and len(arrow) == len(piece_codings) and len({cell.type for cell in arrow}) == 1:
        for part in piece_codings:
            codes.append(part[column].codes + offset)
            offset += len(part[column].cells)
        return DistinctLists(np.concatenate(codes), pa.concat_arrays(arrow))
    for part in piece_codings:
        lists = part[column]
        part_cells = lists.cells if isinstance(lists.cells, np.ndarray) else object_array(lists.cells.to_pylist())
        codes.append(lists.codes + offset)
        cells.append(part_cells)
        offset += len(part_cells)
    return DistinctLists(np.concatenate(codes), np.concatenate(cells))
