"""Saving and loading a whole result folder: the order of the steps, over the format modules.

A save checks the call, the node names and the target folder first, encodes every node
(:mod:`evalframe.io.codecs`), writes the CSV or Parquet files and ``evalframe.json`` into a staging folder
and swaps it into place (:mod:`evalframe.io.atomic`, docs/persistence.md#safe-writes). A load reads one
generation of the folder (:mod:`evalframe.io.folder`): the nodes ``evalframe.json`` lists with
:mod:`evalframe.io.csv` or :mod:`evalframe.io.parquet`, any other ``<node>.csv`` with Haystack's rules
(:mod:`evalframe.io.haystack1`), and hands the frames with their list codings to the result class
(docs/persistence.md#loading). A partitioned save (``partitions=N``) writes every node as N Parquet files into the
same staging folder, and a load reads them whole (:mod:`evalframe.io.partitioned`,
docs/persistence.md#partitioned-results).
"""

from __future__ import annotations

import contextlib
import csv
import gc
import json
import os
import stat
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pyarrow as pa

from . import atomic
from . import csv as csv_format
from . import haystack1
from .codecs import ColumnsFrame, LoadedColumns, check_frame, encode_frame
from .csv_dialect import save_options
from .csv_render import encode_frame_texts
from .partitioned import check_node_name
from .folder import Folder, FolderMissing, KeptChanging, Vanished, with_retries
from . import parquet
from . import partitioned as partitioned_format
from .manifest import (FORMAT_NAME, FORMAT_VERSION, MANIFEST_NAME, PARTITIONED_FORMAT_VERSION, invalid_matching, listed_files,
                       scores_of_manifest, scores_to_json, skipped_of_manifest, skipped_to_json,
                       read_manifest, read_manifest_quietly)
from . import remote
from .. import _progress
from .._locations import Remote, write_bytes
from .._validation import check_choice, few_names
from .._version import __version__
from ..errors import InvalidParameterError, LoadError, SaveError
from ..frames.arrays import DistinctLists
from ..frames.codings import Codings
from ..frames.pending import ColumnView, NodeFrames, PendingFrame

__all__ = ["load_result", "save_result", "save_parts"]


@contextlib.contextmanager
def _gc_paused() -> Any:
    """Pause the cyclic garbage collector while millions of lists and strings are built.

    The cells built here hold no reference cycles, but every collection of the oldest generation
    walks all live container objects (every list cell of every frame): collections triggered while
    loading or saving a large result made it grow faster than its row count. The collector's previous
    state is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def save_result(result: Any, out_dir: Path | Remote, format: str = "csv", *, partitions: int | None = None,
                progress: bool | None = None, **to_csv_kwargs: Any) -> Path | Remote:
    """Write ``result`` to ``out_dir``, replacing the folder in one step (see :meth:`EvaluationResult.save`).

    Parameters
    ----------
    result
        The result to save: its ``node_results`` (node name -> DataFrame) and ``matching`` parameters.
    out_dir
        The folder to write: missing, empty, or one evalframe wrote (any other file in it is refused); a
        :class:`~evalframe._locations.Remote` is saved as a new generation (:mod:`evalframe.io.remote`).
    format
        ``"csv"`` (one ``<node>.csv`` per node, readable by Haystack 1.x) or ``"parquet"``.
    partitions
        None: one file per node. An int N >= 1 (Parquet only): each node as N files, a query's rows in one
        partition number in every node (:mod:`evalframe.io.partitioned`, docs/persistence.md#partitioned-results).
    progress
        A bar over the nodes written: None shows it where a person watches (:mod:`evalframe._progress`).
    **to_csv_kwargs
        ``sep``, ``encoding`` and ``quoting`` of the CSV files (none for Parquet).

    Returns
    -------
    Path or Remote
        ``out_dir``.

    Raises
    ------
    SaveError
        When a cell, a node name, an option or the folder cannot be written; the folder is then unchanged, except
        after an OSError inside the rename fallback's swap, whose message says what it left
        (docs/persistence.md#safe-writes).
    """
    show = _progress.enabled(progress)
    with _gc_paused():
        return _save_result(result, out_dir, format, partitions, show, **to_csv_kwargs)


@dataclass
class _Writing:
    """What writing one node needs: the staging folder, the file writer's thread and its pending writes, the manifest
    the node's entry goes to, and the options of the format."""

    staging: Path
    writer: ThreadPoolExecutor
    writes: list[Future[None]]
    manifest: dict[str, Any]
    options: dict[str, Any]
    texts_written: bool
    rows_of: dict[str, list[Any]]
    partitions: int | None
    generation: str


def _write_csv_node(writing: _Writing, node: str, frame: pd.DataFrame | PendingFrame) -> None:
    # cells rendered column-wide and written by Arrow (the bytes the csv module writes), where the options
    # allow: the file is written (Arrow and the file system, without the GIL) while the next node is encoded
    if isinstance(frame, PendingFrame):  # a loaded node: its columns encoded one at a time, no frame built
        frame = cast(pd.DataFrame, ColumnsFrame(cast(LoadedColumns, frame.source), frame.n_rows))
    columns, writing.manifest["nodes"][node] = (encode_frame_texts if writing.texts_written else encode_frame)(node, frame)
    writing.writes.append(writing.writer.submit(_write_csv, node, writing.staging / f"{node}.csv", columns,
                                                writing.options))
    del columns


def _write_parquet_node(writing: _Writing, node: str, frame: pd.DataFrame | PendingFrame) -> None:
    # a node loaded from Parquet: the arrays read, as encode_frame would make them of the built frame
    saved = cast(LoadedColumns, frame.source).table("parquet", node) if isinstance(frame, PendingFrame) else None
    if saved is None and isinstance(frame, PendingFrame):
        frame = ColumnView(frame).frame()
    table, writing.manifest["nodes"][node] = (saved if saved is not None
                                              else parquet.encode_frame(node, cast(pd.DataFrame, frame)))
    writing.writes.append(writing.writer.submit(_write_parquet, parquet,
                                                writing.staging / writing.manifest["nodes"][node]["file"], table))
    del table


def _write_partitioned_node(writing: _Writing, node: str, frame: pd.DataFrame | PendingFrame) -> None:
    assert writing.partitions is not None  # the layout of a save with partitions=N
    if isinstance(frame, PendingFrame):  # (the rows of each part are taken from a whole frame)
        frame = ColumnView(frame).frame()
    check_frame(node, frame)  # the whole frame's names and index (a part's index is always 0..n-1)
    parts = []
    for number, positions in enumerate(writing.rows_of[node]):
        piece = partitioned_format.part_frame(frame, positions)
        try:
            table, entry = parquet.encode_frame(node, piece)
        except SaveError:
            parquet.encode_frame(node, frame)  # the same refusal, naming the row of the node's frame
            raise
        del piece
        entry["file"] = partitioned_format.part_file(node, number, writing.partitions)
        parts.append(entry)
        writing.writes.append(writing.writer.submit(_write_parquet, parquet, writing.staging / entry["file"], table,
                                                    {partitioned_format.GENERATION_KEY: writing.generation}))
        del table
    writing.manifest["nodes"][node] = {"rows": len(frame), "parts": parts}


#: How each layout of a results folder writes one node: ``save(format=)``, and ``"partitioned"`` for
#: ``save(format="parquet", partitions=N)``.
NODE_WRITERS: dict[str, Callable[[_Writing, str, pd.DataFrame | PendingFrame], None]] = {
    "csv": _write_csv_node, "parquet": _write_parquet_node, "partitioned": _write_partitioned_node}
#: The values of ``save(format=)``.
SAVE_FORMATS = ("csv", "parquet")


def _save_result(result: Any, out_dir: Path | Remote, format: str, partitions: int | None, show: bool,
                 **to_csv_kwargs: Any) -> Path | Remote:
    check_choice(format, SAVE_FORMATS, name="format")
    partitions = partitioned_format.check_partitions(partitions, format)
    if format != "csv" and to_csv_kwargs:
        raise SaveError(f"save(format={format!r}) takes no CSV options; got {few_names(sorted(to_csv_kwargs))}.")
    options = save_options(to_csv_kwargs)
    if not isinstance(result.matching, Mapping):  # an attribute anyone can set: the constructor's rule, at the save
        raise SaveError(f"result.matching must be a dict of matching options (or {{}}); got "
                        f"{type(result.matching).__name__}. Set it to a dict, e.g. result.matching = {{}}.")
    for node in result.node_results:
        check_node_name(node)
    manifest: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION if partitions is None else PARTITIONED_FORMAT_VERSION,
        "evalframe_version": __version__,
        "matching": dict(result.matching),
        "csv": {"sep": options["sep"], "encoding": options["encoding"]},
        "nodes": {},
    }
    declared = getattr(result, "scores", None) or {}
    if declared:  # written only when the result declares scores: other folders stay as they were
        try:
            manifest["scores"] = scores_to_json(declared)
        except InvalidParameterError as exc:
            raise SaveError(f"{exc} Nothing was written.") from None
    skipped = getattr(result, "skipped", ())
    if skipped:  # written only when queries were left out: other folders stay as they were
        try:
            manifest["skipped"] = skipped_to_json(skipped)
        except InvalidParameterError as exc:
            raise SaveError(f"{exc} Nothing was written.") from None
    generation = ""
    rows_of: dict[str, list[Any]] = {}
    if partitions is not None:
        manifest["partitioned"] = partitioned_format.layout(partitions)
        generation = manifest["partitioned"]["generation"]  # recorded in every part file too
        known: dict[Any, int] = {}  # a query's partition number, hashed once for all nodes
        rows_of = {node: partitioned_format.split_rows(
            partitioned_format.partition_of_rows(node, frame, partitions, known), partitions)
            for node, frame in ((node, _frame(result.node_results, node)) for node in result.node_results)}
    try:
        json.dumps(manifest["matching"])
    except TypeError as exc:
        raise SaveError(f"the result's matching parameters are not JSON-serialisable: {exc}") from exc
    if (invalid := invalid_matching(manifest["matching"])) is not None:  # load would refuse the folder
        raise SaveError(f"{invalid.naming(f'result.matching[{invalid.parameter!r}]')} Set it to the value the result "
                        "was built with; nothing was written.")

    texts_written = format == "csv" and csv_format.writes_texts(**options)
    write_node = NODE_WRITERS["partitioned" if partitions is not None else format]

    def write(staging: Path) -> None:
        # nodes are encoded one at a time; a node's file is written (Arrow, without the GIL) while the next
        # node is encoded. Everything goes to the staging folder: a refused cell leaves the target untouched.
        with ThreadPoolExecutor(max_workers=1) as writer:
            writing = _Writing(staging, writer, [], manifest, options, texts_written, rows_of, partitions, generation)
            for node in _progress.bar(list(result.node_results), show=show, desc="saving", unit="node",
                                      total=len(result.node_results)):
                write_node(writing, node, _held(result.node_results, node))
            for pending in writing.writes:
                pending.result()
        path = staging / MANIFEST_NAME
        try:
            text = json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SaveError(f"the result's matching parameters hold text that is not UTF-8 ({exc}).") from None
        with atomic.staged_file(path):
            path.write_bytes(text)

    if isinstance(out_dir, Remote):  # object storage: a new generation, published by its manifest (io/remote.py)
        return remote.save_remote(out_dir, remote.stage_and_upload(write))
    target = _check_target(out_dir)
    return _replace(out_dir, target, write)


def _held(frames: Mapping[str, pd.DataFrame], node: str) -> pd.DataFrame | PendingFrame:
    """``node`` as a save reads it: a node a load left pending (loaded columns the writers read without building its
    frame), a frame made for the save alone of another pending node (it stays pending), else its frame."""
    pending = frames.pending(node) if isinstance(frames, NodeFrames) else None
    if pending is None:
        return frames[node]
    # a loaded node's columns are read as they are; another source's (a partitioned load's) make a frame for the save
    return pending if isinstance(pending.source, LoadedColumns) else ColumnView(pending).frame()


def _frame(frames: Mapping[str, pd.DataFrame], node: str) -> pd.DataFrame:
    """``node``'s frame, made for the save alone when a load left it pending (it stays pending)."""
    held = _held(frames, node)
    return ColumnView(held).frame() if isinstance(held, PendingFrame) else held


def _replace(out_dir: Path, target: Path, write: Callable[[Path], None]) -> Path:
    """Make the parent folder, then build the new folder with ``write(staging)`` and swap it in (:mod:`atomic`)."""
    created = next((folder for folder in reversed(target.parents) if not folder.exists()), None)
    saved = False
    try:
        try:
            atomic.step("mkdir parent")
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SaveError(f"cannot create {target.parent}: {exc.strerror or exc}; choose another out_dir.") from None
        atomic.replace_folder(target, write, foreign=lambda folder: _foreign_files(folder)[0])
        saved = True
        return out_dir
    finally:
        if created is not None and not saved:  # a failed save leaves no folder it made behind (empty ones only)
            _remove_empty_folders(target.parent, up_to=created)


def save_parts(out_dir: str | Path | Remote, partitions: int,
               write_parts: Callable[[Any], Mapping[str, Sequence[dict[str, Any]]]],
               *, matching: Mapping[str, Any] | None = None, scores: Mapping[str, Any] | None = None,
               skipped: Sequence[Any] | None = None, storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """Write a partitioned folder whose files other processes write (Dask workers), replacing ``out_dir`` atomically.

    ``write_parts(staging)`` writes every partition file of every node into the staging folder (a sibling of
    ``out_dir``, so on the same file system; on a cluster it must be a path every worker sees), each with
    :func:`evalframe.io.partitioned.write_part`, and returns ``{node: [entry of partition 0, 1, ...]}``. This writes
    ``evalframe.json`` (with ``scores``, the score declarations, and ``skipped``, the queries the source left out
    (:class:`evalframe.schema.Skipped`), as ``write_parts`` left them) and swaps the folder
    into place as :meth:`EvaluationResult.save` does: until then readers see
    the old folder whole, and a failure anywhere (a worker's too) leaves it as it was.

    ``out_dir`` may be a URL (with ``storage_options``): ``staging`` is then the new generation's prefix, a
    :class:`~evalframe._locations.Remote` the workers write to (:func:`~evalframe.io.partitioned.write_part` takes it),
    and the result is published as :mod:`evalframe.io.remote` says.
    """
    where = remote.resolve(out_dir, name="out_dir", storage_options=storage_options)
    partitions = partitioned_format.check_partitions(partitions, "parquet") or 1
    manifest: dict[str, Any] = {
        "format": FORMAT_NAME, "format_version": PARTITIONED_FORMAT_VERSION, "evalframe_version": __version__,
        "matching": dict(matching or {}), "csv": {"sep": ",", "encoding": "utf-8"}, "nodes": {},
        "partitioned": partitioned_format.layout(partitions),
    }
    try:
        json.dumps(manifest["matching"])
    except TypeError as exc:
        raise SaveError(f"the matching parameters are not JSON-serialisable: {exc}") from exc

    def collect(staging: Path | Remote) -> None:
        # the generation, for write_part to record in every part file (on whichever worker writes it)
        marker = staging / partitioned_format.GENERATION_FILE
        text = manifest["partitioned"]["generation"]
        if isinstance(marker, Remote):
            atomic.step(f"put {partitioned_format.GENERATION_FILE}")
            write_bytes(marker, text.encode("ascii"), what="generation marker")
        else:
            with atomic.staged_file(marker):
                marker.write_text(text, encoding="ascii")
        written = write_parts(staging)
        atomic.step(f"remove {marker.name}")
        if isinstance(marker, Remote):
            marker.fs.rm_file(marker.path)
        else:
            marker.unlink()  # not part of the folder: a load or the next save would take it for a foreign file
        for node, parts in written.items():
            check_node_name(node)
            parts = list(parts)
            if len(parts) != partitions:
                raise SaveError(f"node {node!r}: {len(parts)} partition files were written, not {partitions}.")
            for number, part in enumerate(parts):
                if not isinstance(part, dict):
                    raise SaveError(f"node {node!r}: partition {number}'s entry must be the dict write_part returns; got "
                                    f"{type(part).__name__}.")
                if part.get("file") != partitioned_format.part_file(node, number, partitions):
                    raise SaveError(f"node {node!r}: partition {number} was written as {part.get('file')!r}, not "
                                    f"{partitioned_format.part_file(node, number, partitions)!r}.")
            manifest["nodes"][node] = {"rows": sum(part["rows"] for part in parts), "parts": parts}
        if scores:  # the scores' declarations, known once the parts are written (``scores`` filled by write_parts)
            manifest["scores"] = scores_to_json(dict(scores))
        if skipped:  # the queries left out, known once the shards are read (as save records result.skipped)
            manifest["skipped"] = skipped_to_json(tuple(skipped))

    if isinstance(where, Remote):
        def fill(prefix: Remote, generation: str) -> dict[str, Any]:
            collect(prefix)
            return manifest

        return remote.save_remote(where, fill)
    target = _check_target(where)

    def write(staging: Path) -> None:
        collect(staging)
        path = staging / MANIFEST_NAME
        with atomic.staged_file(path):
            path.write_bytes(json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8"))

    return _replace(where, target, write)


def _write_csv(node: str, path: Path, columns: Any, options: dict[str, Any]) -> None:
    try:
        with atomic.staged_file(path):
            csv_format.write(path, columns, **options)
    except (UnicodeError, csv.Error, TypeError) as exc:
        raise SaveError(f"node {node!r} cannot be written with these CSV options ({type(exc).__name__}: "
                        f"{exc}); keep the default encoding='utf-8' and quoting.") from None


def _write_parquet(parquet: Any, path: Path, table: Any, metadata: dict[str, str] | None = None) -> None:
    with atomic.staged_file(path):
        parquet.write(path, table, metadata)


def _check_target(out_dir: Path) -> Path:
    """The folder to replace (a symlink's folder, keeping the link), checked before anything is written.

    It must be missing, empty, or a folder evalframe wrote: its evalframe.json readable and every other
    entry a file it lists. The whole folder is exchanged for the new one, so any other file would be lost;
    such folders are refused, as are folders this process may not change.
    """
    target = out_dir
    if out_dir.is_symlink():
        target = Path(os.path.realpath(out_dir))
        if not target.is_dir():
            raise SaveError(f"{out_dir} is a symbolic link to {target}, which is not a folder; choose another out_dir.")
    if target.exists() and not target.is_dir():
        raise SaveError(f"out_dir {out_dir} exists and is not a folder; choose another.", parameter="out_dir")
    if target.is_dir():
        try:
            foreign, manifest = _foreign_files(target)
        except OSError as exc:
            raise SaveError(f"{out_dir} cannot be listed ({exc.strerror or exc}); choose another out_dir.") from None
        except KeptChanging:
            raise SaveError(f"{out_dir} kept changing while this save checked it (another process saves into it again "
                            "and again); save again once that process is finished.") from None
        except LoadError as exc:
            raise SaveError(f"{out_dir} cannot be listed: {exc} Choose another out_dir.") from None
        if foreign:
            shown = few_names(foreign)
            why = "it holds no readable evalframe.json" if manifest is None else "its evalframe.json does not list them"
            raise SaveError(
                f"{out_dir} holds files evalframe did not write ({shown}; {why}); save replaces the whole folder "
                "and would lose them. Choose a new or empty out_dir, or move those files elsewhere."
            )
    atomic.check_writable(target)
    return target


def _foreign_files(folder: Path) -> tuple[list[str], dict[str, Any] | None]:
    """The entries of ``folder`` evalframe did not write (all of them without a readable evalframe.json),
    and its manifest. The listing and the manifest come from one generation of the folder (another process
    may be saving into it), read again when it changed in between."""

    def attempt() -> tuple[list[str], dict[str, Any] | None]:
        try:
            opened = Folder(folder)
        except FolderMissing:
            if not os.path.lexists(folder):  # gone since the caller looked: another saver's rename fallback has it aside
                return [], None
            raise Vanished(str(folder)) from None  # and back already: look again
        with opened:
            entries = opened.names()
            if not entries:
                return [], None
            manifest = read_manifest_quietly(opened)
            if manifest is None:
                return entries, None
            ours = {MANIFEST_NAME, *listed_files(manifest)}
            return [name for name in entries if name not in ours or not _is_file(opened, name)], manifest

    return with_retries(folder, attempt)


def _is_file(folder: Folder, name: str) -> bool:
    """Whether the listed entry ``name`` is a regular file; :class:`Vanished` when it is gone (another save
    exchanged the folder and is deleting the generation listed: the check starts again)."""
    try:
        info = os.stat(name, dir_fd=folder.fd, follow_symlinks=False) if folder.fd >= 0 else os.lstat(folder.path / name)
    except FileNotFoundError:
        raise Vanished(str(folder.path / name)) from None
    return stat.S_ISREG(info.st_mode)


def _remove_empty_folders(folder: Path, *, up_to: Path) -> None:
    """Remove ``folder`` and its parents up to ``up_to`` while they are empty."""
    while True:
        try:
            folder.rmdir()
        except OSError:
            return
        if folder == up_to:
            return
        folder = folder.parent


def load_result(cls: type, load_dir: Path | Remote, *, progress: bool | None = None, **read_csv_kwargs: Any) -> Any:
    """Read a results folder (see :meth:`EvaluationResult.load`).

    Parameters
    ----------
    cls
        The result class, called as ``cls(frames, matching=..., codings=...)``.
    load_dir
        The folder: one evalframe wrote (with ``evalframe.json``) or one Haystack 1.x wrote; a
        :class:`~evalframe._locations.Remote` is read from the generation its ``evalframe.json`` names
        (:mod:`evalframe.io.remote`), every file whole at once.
    progress
        A bar over the nodes read: None shows it where a person watches (:mod:`evalframe._progress`).
    **read_csv_kwargs
        Options passed to :func:`pandas.read_csv` for every CSV file.

    Returns
    -------
    The ``cls`` instance.

    Raises
    ------
    LoadError
        When the folder, its manifest or a file is missing, damaged or not one a save writes.

    What a dead saver left beside the folder is cleaned up first (where this process may), and a folder
    left missing by a crash inside the rename fallback is read from its complete old generation.
    """
    show = _progress.enabled(progress)
    if "delimiter" in read_csv_kwargs:  # pandas' other name of sep: evalframe passes sep, and pandas refuses both
        if "sep" in read_csv_kwargs:
            raise InvalidParameterError("pass sep or delimiter (pandas' other name for it), not both; got sep="
                                        f"{read_csv_kwargs['sep']!r} and delimiter={read_csv_kwargs['delimiter']!r}.",
                                        parameter="delimiter")
        read_csv_kwargs = {("sep" if key == "delimiter" else key): value for key, value in read_csv_kwargs.items()}
    if isinstance(load_dir, Remote):
        with _gc_paused():
            return remote.load_remote(load_dir, lambda folder: _load_from(cls, folder, show, **read_csv_kwargs))
    load_dir = atomic.resolve_for_reading(load_dir)
    if load_dir.is_dir():
        atomic.cleanup_stale(Path(os.path.realpath(load_dir)))
    with _gc_paused():
        return with_retries(load_dir, lambda: _load_result(cls, load_dir, show, **read_csv_kwargs))


def _load_result(cls: type, load_dir: Path, show: bool, **read_csv_kwargs: Any) -> Any:
    """One attempt: every file from the generation of the folder opened here (see :mod:`evalframe.io.folder`)."""
    with Folder(load_dir) as folder:
        return _load_from(cls, folder, show, **read_csv_kwargs)


def _load_from(cls: type, folder: Folder, show: bool, **read_csv_kwargs: Any) -> Any:
    """Read the result from one generation of a folder (a local :class:`Folder` or a :class:`remote.RemoteFolder`)."""
    load_dir = folder.path
    manifest = read_manifest(folder)
    if manifest is not None and manifest.get("partitioned") is not None:
        whole = partitioned_format.read_nodes(folder, manifest)  # pending: list columns coded on first use
        _release_arrow_memory()
        return cls(whole, matching=manifest.get("matching"), scores=scores_of_manifest(manifest, load_dir),
                   skipped=skipped_of_manifest(manifest, load_dir))
    own = (manifest or {}).get("nodes", {})
    owned = {entry["file"] for entry in own.values()}
    # hidden names are skipped, as the glob("*.csv") of earlier versions (and Haystack's) skipped them
    csv_files = {name[:-4]: name for name in folder.names()
                 if name.endswith(".csv") and not name.startswith(".") and name not in owned}
    if not csv_files and not own:
        raise LoadError(f"results folder {load_dir} holds no .csv file (and no evalframe.json listing Parquet files).")
    for node, entry in own.items():  # every listed file is checked before any is read: a damaged folder fails fast
        if not folder.exists(entry["file"]):
            raise LoadError(f"{load_dir / MANIFEST_NAME} lists node {node!r} (nodes[{node!r}].file) but "
                            f"{load_dir / entry['file']} is missing; save the result again.")
    frames: dict[str, pd.DataFrame | PendingFrame] = {}  # evalframe's files: pending until a frame is asked for
    codings: dict[str, dict[str, DistinctLists]] = {}
    steps = _progress.Steps(show=show, desc="loading", total=len(own) + len(csv_files), unit="node")
    for node, entry in own.items():
        if entry["file"].endswith(".parquet"):
            frames[node] = parquet.read_pending(folder, entry)  # list columns coded on first use
        else:
            assert manifest is not None  # own lists nodes only when there is a manifest
            frames[node] = csv_format.read(folder, entry, manifest.get("csv", {}), read_csv_kwargs,
                                           codings.setdefault(node, {}))
        steps.update(1)
    for node, name in csv_files.items():
        if node not in frames:
            frames[node] = haystack1.read(folder, name, read_csv_kwargs, codings.setdefault(node, {}))
        steps.update(1)
    steps.close()
    result = cls(frames, matching=(manifest or {}).get("matching"), codings=Codings.of_lists(codings),
                 scores=scores_of_manifest(manifest or {}, load_dir), skipped=skipped_of_manifest(manifest or {}, load_dir))
    _release_arrow_memory()
    return result


def _release_arrow_memory() -> None:
    """Hand the memory Arrow's pool freed while reading (the files' texts, the columns replaced by their decoded or
    coded form) back to the system: the pool keeps it otherwise, and a loaded result held 50 bytes per row more."""
    pa.default_memory_pool().release_unused()
