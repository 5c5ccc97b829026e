"""Build a partitioned result from sharded runs files on Dask workers (docs/cluster.md#building-a-result-on-the-cluster).

:func:`from_runs` runs two rounds of tasks. One task per shard (a runs file) reads it with
:func:`evalframe.sources.runs.read_runs` and builds its node frames with :func:`evalframe.sources.flatten.flatten`, the
code of :meth:`evalframe.EvaluationResult.from_runs` (its distinct (gold context, candidate) pairs are scored there,
on the worker), splits each frame by partition number (:func:`evalframe.io.partitioned.partition_of_ids`) and writes
the pieces to a scratch folder inside the save's staging folder. Then one task per partition concatenates that
partition's pieces, in shard order, and writes its part file of every node
(:func:`evalframe.io.partitioned.write_part`); :func:`evalframe.io.save_parts` swaps the folder into place. No process
holds more than one shard or one partition, and the folder appears whole or not at all.

Each row's order key is ``(shard number << 40) | its row position in the shard's node frame``, so a whole load puts
the rows in the order of :meth:`EvaluationResult.from_runs` over the shards read one after another.
"""

from __future__ import annotations

import contextlib
import glob
import io
import shutil
import time
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pandas as pd

from .._locations import Remote, check_storage_options, is_dir, is_file, locate, read_bytes, remote_or_value, write_bytes
from ..metrics.registry import Metric
from ..result import EvaluationResult
from ..schema import Skipped
from ..sources.assemble import NO_LABEL
from ..sources.flatten import EntryNames, entry_scores, flatten
from ..sources.flatten import IdlessDocuments, warn_idless_documents
from ..sources.runs import query_lines, read_runs_counted
from ..columns import COLUMN_ORDER
from ..errors import InvalidParameterError, LoadError
from ..io import atomic, partitioned, save_parts
from ..io.remote import resolve
from ..options import MatchingOptions
from .client import current_client, run

__all__ = ["from_runs", "BuiltFolder", "SHARD_BITS", "PIECES_FOLDER", "run_round", "Scratch"]

#: An order key is ``(shard number << SHARD_BITS) | row position``: up to 2**40 rows per node and shard, 2**23 shards.
SHARD_BITS = 40
_MAX_SHARDS = 1 << (63 - SHARD_BITS)
_PIECES = ".evalframe-pieces"  # the scratch folder of the shards' pieces, inside the staging folder


@dataclass
class BuiltFolder:
    """What :func:`from_runs` wrote.

    ``path``: the results folder; ``queries``: the queries written (lines with gold labels); ``rows``: node -> rows;
    ``dropped``: ``"file:line"`` of every query left out because it has no gold label (recorded in the folder's
    ``evalframe.json`` as ``"skipped"``: the loaded result's ``skipped``, as a saved result's).
    """

    path: Path | Remote
    queries: int
    rows: dict[str, int]
    dropped: list[str] = field(default_factory=list)


@dataclass
class _Shard:
    """What one shard task reports to the client (small: no rows)."""

    number: int
    path: str
    shape: dict[str, tuple[str, ...]]
    schemas: dict[str, pd.DataFrame]  # node -> a zero-row frame with the node's columns and dtypes
    rows: dict[str, int]
    pieces: dict[str, dict[int, str | Remote]]  # node -> partition number -> piece file (a Remote: at a URL)
    queries: int = 0
    dropped: list[str] = field(default_factory=list)
    idless: IdlessDocuments = field(default_factory=IdlessDocuments)  # warned about once for all shards
    scores: dict[str, Any] = field(default_factory=dict)  # the declarations of the scores its lines give


def _shard_paths(runs: Any, storage_options: dict[str, Any]) -> list[Path | Remote]:
    """The shard files in order: a list as given, or a glob pattern's matches in sorted order (local paths, or URLs
    located with ``storage_options``)."""
    paths: list[Path | Remote]
    if isinstance(runs, (str, Path)):
        text = str(runs)
        if not text:
            raise InvalidParameterError("runs must name a runs file, a glob pattern such as 'runs/*.jsonl', or a list of "
                                        "files; got ''.")
        where = remote_or_value(runs, name="runs", storage_options=storage_options)
        if isinstance(where, Remote):
            if glob.has_magic(where.path) and not is_file(where):
                paths = [locate(f"{where.protocol}://{match.lstrip('/')}", name="runs", storage_options=storage_options)
                         for match in sorted(where.fs.glob(where.path))]
                if not paths:
                    raise LoadError(f"no runs file matches {text!r}; check the pattern (docs/cluster.md#building-a-"
                                    "result-on-the-cluster).")
            else:
                paths = [where]
        elif glob.has_magic(text) and not Path(text).is_file():  # a file whose name holds '[' is that file
            paths = [Path(p) for p in sorted(glob.glob(text))]
            if not paths:
                raise LoadError(f"no runs file matches {text!r}; check the pattern (docs/cluster.md#building-a-result-on-"
                                "the-cluster).")
        else:
            paths = [Path(text)]
    elif isinstance(runs, Sequence) and not isinstance(runs, (bytes, bytearray)):
        paths = []
        for i, item in enumerate(runs):
            if not isinstance(item, (str, Path)) or not str(item):
                raise InvalidParameterError(f"runs[{i}] must be the path of a runs file; got {item!r}.")
            item_where = remote_or_value(item, name=f"runs[{i}]", storage_options=storage_options)
            paths.append(item_where if isinstance(item_where, Remote) else Path(item))
        if not paths:
            raise InvalidParameterError("runs is an empty list; give at least one runs file.")
    else:
        raise InvalidParameterError(f"runs must be a path, a glob pattern or a list of paths; got {type(runs).__name__}.")
    for path in paths:
        if is_dir(path):
            raise LoadError(f"runs file {path} is a directory; give the JSON Lines files, e.g. '{path}/*.jsonl'.")
        if not is_file(path):
            raise LoadError(f"runs file {path} does not exist (shard {paths.index(path)} of {len(paths)}); nothing was "
                            "built.")
    if len(paths) > _MAX_SHARDS:
        raise InvalidParameterError(f"runs names {len(paths)} files; at most {_MAX_SHARDS} shards fit the order keys.")
    return paths


def _build_shard(number: int, path: str, pieces_dir: str | Remote, partitions: int, options: MatchingOptions,
                 sas_model: Any, keep_scores: bool, score_measures: Any = None,
                 storage_options: dict[str, Any] | None = None) -> _Shard:
    """One task: read a shard (a local file or a URL, read on the worker with ``storage_options``), build its node
    frames as from_runs does, write them split by partition."""
    lines = query_lines(path, storage_options=storage_options or None)
    shard = _Shard(number, path, {}, {}, {}, {})
    if not lines:  # an empty shard (a split's last file, say) adds nothing
        return shard
    # no warnings.catch_warnings here: it is not thread-safe, and on a threaded scheduler it swapped the warning
    # filters of the caller's process under its other threads (a warning of the caller's was lost). The read counts
    # the documents without ids (the client warns once for all shards); the queries without gold labels are left
    # out here, before flatten would warn of them by their position in the shard (the client names their lines)
    labels, outputs, shard.idless = read_runs_counted(path, progress=False, storage_options=storage_options or None)
    shard.shape = {node: tuple(sorted(node_output)) for node, node_output in outputs.items()}
    keep = [i for i, label in enumerate(labels) if label is not None]
    shard.dropped = [f"{path}:{lines[i]}" for i, label in enumerate(labels) if label is None]
    shard.queries = len(keep)
    if len(keep) < len(labels):
        labels, lines = [labels[i] for i in keep], [lines[i] for i in keep]
        outputs = {node: {key: [lists[i] for i in keep] for key, lists in node_output.items()}
                   for node, node_output in outputs.items()}
    names = [f"{path}:{line}" for line in lines]  # every message names the query's runs file line
    if entry_scores(labels):  # the lines' "scores": attached as from_runs does (docs/scores.md)
        built = EvaluationResult.from_runs(labels, outputs, sas_model=sas_model, progress=False,
                                           keep_scores=keep_scores, score_measures=score_measures, names=names,
                                           **options.as_dict())
        frames = {node: built[node] for node in built}
        shard.scores = dict(built.scores)
    else:
        frames = flatten(labels, outputs, matching=options, sas_model=sas_model, progress=False,
                         keep_scores=keep_scores, names=EntryNames(names))
    folder: Path | Remote
    if isinstance(pieces_dir, Remote):  # a save to a URL: the pieces go under its new generation's prefix
        folder = pieces_dir / f"{number:07d}"
    else:
        folder = Path(pieces_dir) / f"{number:07d}"
        folder.mkdir(exist_ok=True)  # not parents: once a failed build has removed its staging folder, nothing is written
    for node_number, (node, frame) in enumerate(frames.items()):
        shard.schemas[node] = frame.iloc[:0]
        shard.rows[node] = len(frame)
        shard.pieces[node] = {}
        numbers = partitioned.partition_of_ids(frame[partitioned.KEY_COLUMN].to_numpy(dtype=object), partitions)
        for part, positions in enumerate(partitioned.split_rows(numbers, partitions)):
            if not len(positions):
                continue
            piece = frame.take(positions).reset_index(drop=True)
            piece[partitioned.ROW_COLUMN] = (np.int64(number) << SHARD_BITS) | positions.astype(np.int64)
            file = folder / f"{node_number}-{part:05d}.pkl"
            if isinstance(file, Remote):
                buffer = io.BytesIO()
                piece.to_pickle(buffer)
                write_bytes(file, buffer.getvalue(), what="scratch piece")
                shard.pieces[node][part] = file
            else:
                piece.to_pickle(file)  # a scratch file of this build, read back by the partition task and removed
                shard.pieces[node][part] = str(file)
    return shard


def _read_piece(file: str | Remote) -> pd.DataFrame:
    if isinstance(file, Remote):
        return pd.read_pickle(io.BytesIO(read_bytes(file, what="scratch piece")))
    return pd.read_pickle(file)


def _write_partition(staging: str | Remote, part: int, partitions: int, pieces: dict[str, list[Any]],
                     schemas: dict[str, pd.DataFrame], generation: str) -> dict[str, dict[str, Any]]:
    """One task: partition ``part`` of every node, its pieces concatenated in shard order, written as its part file."""
    entries = {}
    for node, schema in schemas.items():
        frames = [_read_piece(file) for file in pieces.get(node, [])]
        if not frames:
            frame = schema.assign(**{partitioned.ROW_COLUMN: np.zeros(0, dtype=np.int64)})
        else:
            frame = frames[0] if len(frames) == 1 else partitioned.concat_rows(_aligned(frames))
            del frames
            frame = _with_columns(frame, schema)
        entries[node] = partitioned.write_part(staging, node, part, partitions, frame, generation=generation)
    return entries


def _aligned(frames: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """The pieces with one column order (the union, in order of first appearance), a missing column all NaN."""
    names = list(dict.fromkeys(name for frame in frames for name in frame.columns))
    return [frame if list(frame.columns) == names else frame.reindex(columns=names) for frame in frames]


def _with_columns(frame: pd.DataFrame, schema: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the node's columns in the node's order; a column no shard of this partition had is all NaN,
    as ``pd.concat`` fills it in memory (a node whose answer rows lie in other shards)."""
    for name in schema.columns:
        if name not in frame.columns:
            frame[name] = pd.Series(np.nan, index=frame.index, dtype=schema[name].dtype)
    return frame[[*schema.columns, partitioned.ROW_COLUMN]]


def _node_schemas(shards: list[_Shard]) -> dict[str, pd.DataFrame]:
    """Per node (in the runs files' node order), a zero-row frame with its columns as the in-memory build has them."""
    order = next((list(s.shape) for s in shards if s.shape), [])
    schemas: dict[str, pd.DataFrame] = {}
    for node in order:
        columns: dict[Any, Any] = {}
        for shard in shards:
            if node in shard.schemas:
                for name, dtype in shard.schemas[node].dtypes.items():
                    columns.setdefault(name, dtype)
        if columns:
            known = [c for c in COLUMN_ORDER if c in columns]
            names = known + [c for c in columns if c not in known]
            schemas[node] = pd.DataFrame({name: pd.Series(dtype=columns[name]) for name in names})
    return schemas


def _check_shapes(shards: list[_Shard]) -> None:
    """Every shard must name the same nodes and outputs, as every line of one runs file must."""
    first = next((s for s in shards if s.shape), None)
    for shard in shards:
        if first is not None and shard.shape and shard.shape != first.shape:
            raise LoadError(f"runs file {shard.path} names nodes and outputs {shard.shape}, but {first.path} names "
                            f"{first.shape}; every shard of one run must give the same nodes and output keys "
                            "(use [] for an empty result).")


def _executing(token: str, dask_worker: Any) -> int:
    """How many of this build's tasks the worker is running (``Client.run`` passes ``dask_worker``)."""
    return sum(token in str(task.key) for task in dask_worker.state.executing)


def _run(tasks: list[Any], dask_client: Any, token: str, patience: float = 600.0) -> list[Any]:
    """:func:`evalframe.dask.client.run`; when a task fails, wait until the build's other running tasks end.

    A failed task makes the client raise at once, while its siblings still write into the staging folder; it is
    removed only once they are done, so that no piece outlives the failed build.
    """
    try:
        return run(tasks, dask_client)
    except BaseException:
        if dask_client is not None:
            deadline = time.monotonic() + patience
            with contextlib.suppress(Exception):
                while time.monotonic() < deadline and any(dask_client.run(_executing, token).values()):
                    time.sleep(0.1)
        raise


#: For the other builders of partitioned folders on the workers (evalframe.dask.trec): the scratch folder's name
#: inside the staging folder, and running a round of tasks that waits for its siblings when one fails.
PIECES_FOLDER = _PIECES
run_round = _run


@dataclass
class Scratch:
    """The pieces' scratch folder inside a save's staging folder (a local folder, or a prefix of a URL's new
    generation), as the tasks are handed it: ``pieces`` and ``staging`` as a str or a :class:`Remote`."""

    folder: Path | Remote
    pieces: str | Remote
    staging: str | Remote

    @classmethod
    def made(cls, staging: Path | Remote) -> Scratch:
        """The scratch folder of ``staging``, made (a prefix needs no making)."""
        folder = staging / _PIECES
        if isinstance(folder, Path):
            folder.mkdir()
        return cls(folder, folder if isinstance(folder, Remote) else str(folder),
                   staging if isinstance(staging, Remote) else str(staging))

    def remove(self) -> None:
        """Remove the pieces once the partitions are written."""
        if isinstance(self.folder, Remote):
            atomic.step("remove scratch pieces")
            self.folder.fs.rm(self.folder.path, recursive=True)
        else:
            shutil.rmtree(self.folder)


def from_runs(runs: str | Path | Sequence[str | Path], out_dir: str | Path, *, partitions: int, client: Any = None,
              sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
              keep_scores: bool = False, score_measures: Mapping[str, Metric] | None = None,
              storage_options: Mapping[str, Any] | None = None, **matching: Any) -> BuiltFolder:
    """Build the result of sharded runs files on Dask workers and write it as a partitioned folder.

    The folder equals ``EvaluationResult.from_runs`` of the shards read one after another, saved with
    ``save(out_dir, format="parquet", partitions=partitions)``: :meth:`EvaluationResult.load` of it gives the same
    frames, row for row, and every analysis the same numbers. One task per shard builds its frames (scoring its
    distinct (gold context, candidate) pairs on the worker) and one task per partition writes that partition; no
    process holds the whole result. ``out_dir`` is replaced atomically: a failure anywhere, a worker's too, leaves
    the old folder as it was.

    Parameters
    ----------
    runs : path, glob pattern or list of paths
        The runs files (JSON Lines, docs/runs-format.md), one task each, in the order given (a pattern's matches in
        sorted order); local paths or URLs (``s3://bucket/runs/*.jsonl``), which each worker reads itself with
        ``storage_options``. Every worker must see them, and ``out_dir``, at the same paths (a shared file system). Lines
        of one query (one ``multilabel_id``: the same query text and filters) may lie in several shards: their rows
        land in one partition, in the order of the shards, as in memory.
    out_dir : path or URL
        The results folder to write (a partitioned Parquet folder, docs/persistence.md#partitioned-results). At a URL
        (``s3://bucket/results``) the workers write their files under the save's new generation prefix, and the
        result is published as docs/storage.md#safe-saves-on-object-storage says.
    partitions : int
        How many partition files per node (>= 1); see docs/cluster.md for how they relate to worker memory.
    client : distributed.Client or str, optional
        Where the tasks run: a client, a scheduler address, else the current client, ``$DASK_SCHEDULER_ADDRESS``, or
        Dask's default scheduler in this process (:func:`evalframe.dask.client.current_client`).
    sas_model, keep_scores, context_matching_threshold, context_matching_min_length, \
context_matching_boost_split_overlaps, custom_document_id_field
        As :meth:`EvaluationResult.from_runs` (a ``sas_model`` is called once per shard, on the worker).
    storage_options : dict, optional
        The filesystem's options of the runs and of ``out_dir`` given as URLs (credentials, ``endpoint_url``;
        ``docs/storage.md``), handed to every worker.
    score_measures : dict of str to Metric, optional
        The declarations of the scores the lines give (their ``"scores"`` key, docs/scores.md), as
        :meth:`EvaluationResult.from_runs`' (default: higher is better, unbounded); written in ``evalframe.json``.

    Returns
    -------
    BuiltFolder
        The folder's path, the queries written, the rows per node, and the lines dropped for lack of gold labels.

    Raises
    ------
    InvalidParameterError
        Before anything is read: ``partitions`` not an int >= 1, a bad matching option, ``runs`` of the wrong kind.
    LoadError
        A missing runs file (named, before any task runs); a malformed line (named ``file:line``); shards naming
        different nodes or outputs.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from evalframe import EvaluationResult
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for shard, city in enumerate(["Berlin", "Paris"]):
    ...     line = {"query": f"Capital city {shard}?", "gold": {"document_ids": [city], "answers": [city]},
    ...             "nodes": {"Retriever": {"documents": [{"id": city, "content": f"{city} is a capital."}]}}}
    ...     _ = (folder / f"runs-{shard}.jsonl").write_text(json.dumps(line) + "\\n")
    >>> built = from_runs(str(folder / "runs-*.jsonl"), folder / "result", partitions=2)
    >>> built.queries, built.rows
    (2, {'Retriever': 2})
    >>> EvaluationResult.load(built.path).calculate_metrics()["Retriever"]["recall_single_hit"]
    1.0
    """
    where = resolve(out_dir, name="out_dir", storage_options=storage_options)
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise InvalidParameterError(f"partitions must be an int >= 1 (how many part files per node); got {partitions!r}.")
    if partitions > partitioned.MAX_PARTITIONS:
        raise InvalidParameterError(partitioned.too_many_partitions(partitions))
    partitions = int(partitions)
    if not isinstance(keep_scores, (bool, np.bool_)):
        raise InvalidParameterError(f"keep_scores must be True or False; got {keep_scores!r}.")
    options = MatchingOptions.from_keywords(matching, passed_to="from_runs takes these matching options")
    location_options = check_storage_options(storage_options)
    paths = _shard_paths(runs, location_options)
    dask_client = current_client(client)
    recorded = {
        **options.as_dict(),
        "sas_model": sas_model if isinstance(sas_model, str) or sas_model is None
        else getattr(sas_model, "__qualname__", type(sas_model).__name__),
    }
    summary: dict[str, Any] = {}
    token = uuid.uuid4().hex[:12]  # this build's task names (a dashboard shows them)

    def write_parts(staging: Path | Remote) -> dict[str, list[dict[str, Any]]]:
        scratch = Scratch.made(staging)
        pieces, place = scratch.pieces, scratch.staging
        build = dask.delayed(_build_shard, pure=False)
        shards: list[_Shard] = _run([build(number, str(path), pieces, partitions, options, sas_model,
                                           bool(keep_scores), score_measures, location_options,
                                           dask_key_name=f"evalframe-shard-{number}-{token}")
                                     for number, path in enumerate(paths)], dask_client, token)
        _check_shapes(shards)
        schemas = _node_schemas(shards)
        write = dask.delayed(_write_partition, pure=False)
        generation = partitioned.staged_generation(staging)  # each part file records it
        tasks = []
        for part in range(partitions):
            part_pieces = {node: [s.pieces[node][part] for s in shards if part in s.pieces.get(node, {})]
                           for node in schemas}
            tasks.append(write(place, part, partitions, part_pieces, schemas, generation,
                               dask_key_name=f"evalframe-partition-{part}-{token}"))
        entries: list[dict[str, dict[str, Any]]] = _run(tasks, dask_client, token)
        scratch.remove()
        summary.update(shards=shards, schemas=schemas)
        declared.update((name, metric) for shard in shards for name, metric in shard.scores.items())
        left_out.extend(Skipped(line, NO_LABEL) for shard in shards for line in shard.dropped)
        return {node: [entry[node] for entry in entries] for node in schemas}

    declared: dict[str, Metric] = {}  # the shards' score declarations, written into evalframe.json once known
    left_out: list[Skipped] = []  # the lines without gold labels, recorded as a save records result.skipped
    path = save_parts(where, partitions, write_parts, matching=recorded, scores=declared, skipped=left_out)
    shards: list[_Shard] = summary["shards"]
    idless = IdlessDocuments()
    for shard in shards:
        idless.merge(shard.idless)
    warn_idless_documents(idless)  # one warning, with the count over every shard and the first file:line
    dropped = [line for s in shards for line in s.dropped]
    if dropped:
        shown = ", ".join(dropped[:10]) + (", ..." if len(dropped) > 10 else "")
        warnings.warn(f"{len(dropped)} quer{'y' if len(dropped) == 1 else 'ies'} without gold labels "
                      f"(empty 'gold' lists or 'labels') left out: {shown}.", stacklevel=2)
    rows = {node: sum(s.rows.get(node, 0) for s in shards) for node in summary["schemas"]}
    return BuiltFolder(path, sum(s.queries for s in shards), rows, dropped)
