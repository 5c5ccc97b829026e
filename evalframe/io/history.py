"""The store of runs (docs/history.md): one immutable Parquet object per run, its metadata in the schema's footer.

A store is a folder or a URL. Each run is ``<store>/runs/<run id>.parquet``, written once and never rewritten: a
table of columns ``node``, ``query`` (the query id), ``text`` (the query text or null) and one float64 column per
measure or score, with the run's metadata as JSON under the schema metadata key :data:`META_KEY` (name, time, tags,
params, commit, the question sets' fingerprints and every measure's mean and interval, computed when it was logged),
so that listing a store reads the footers only.

A local write is atomic: the bytes go to ``runs/.tmp-<id>-<random>``, are fsynced, linked to the final name (or
renamed where links are refused) and the folder is fsynced; a run killed before the link leaves only a temporary
file, never listed, which the next write removes once it is older than :data:`STALE_SECONDS`. On a URL a run is one
PUT of its whole bytes (atomic on object storage). Two writers never share a name (the id holds 8 random hex digits),
so concurrent logs never lose or mix a run.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import uuid
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .._locations import Remote, write_bytes
from ..errors import InvalidParameterError, LoadError, SaveError
from .remote import resolve as resolve_location

__all__ = ["META_KEY", "FORMAT", "RUNS", "STALE_SECONDS", "REF_FORMS", "new_run_id", "store_location", "run_bytes",
           "write_run", "list_runs", "read_run", "resolve", "is_run_id"]

#: The schema metadata key of a run's JSON metadata.
META_KEY = b"evalframe.run"
#: The version of the run object's layout.
FORMAT = 1
#: The folder (prefix) of the runs inside a store.
RUNS = "runs"
#: A temporary file of a killed write older than this (seconds) is removed by the next write.
STALE_SECONDS = 3600.0
#: The forms of a reference to a stored run, as errors list them.
REF_FORMS = ("@last", "@last~N", "@last:NAME", "@best:MEASURE", "@best:MEASURE:NAME", "@tag:TAG", "@<run id or a "
             "unique prefix of it, at least 6 characters>")
_ID_RE = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{8}")
_TEMP_PREFIX = ".tmp-"
_SUFFIX = ".parquet"


def new_run_id(now: float | None = None) -> str:
    """A new run id: ``<UTC time %Y%m%dT%H%M%S%f>Z-<8 random hex digits>`` (ids sort by time).

    Examples
    --------
    >>> new_run_id(0.5)[:23]
    '19700101T000000500000Z-'
    >>> is_run_id(new_run_id())
    True
    """
    now = time.time() if now is None else now
    micros = int(round(now * 1e6))
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(micros // 1_000_000))
    return f"{stamp}{micros % 1_000_000:06d}Z-{uuid.uuid4().hex[:8]}"


def is_run_id(text: object) -> bool:
    """Whether ``text`` is a run id as :func:`new_run_id` makes them.

    Examples
    --------
    >>> is_run_id("20260101T000000000000Z-0123abcd"), is_run_id("last")
    (True, False)
    """
    return isinstance(text, str) and _ID_RE.fullmatch(text) is not None


def store_location(store: object, *, storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """Where a store is: a local folder (a Path) or a URL (a Remote reached with ``storage_options``).

    Examples
    --------
    >>> store_location("memory://evalframe-doc/store"), store_location("ci-runs")
    (Remote('memory://evalframe-doc/store'), PosixPath('ci-runs'))
    """
    if store is None or (isinstance(store, str) and not store):
        raise InvalidParameterError("store must name a folder or a URL (such as 'runs-store' or "
                                    "'s3://bucket/evalframe-runs'); got none (give --store or set $EVALFRAME_STORE).",
                                    parameter="store")
    location = resolve_location(store, name="store", storage_options=storage_options)
    if isinstance(location, Path) and (location.is_file() or (location / "runs").is_file()):
        file = location if location.is_file() else location / "runs"
        raise InvalidParameterError(f"store {str(store)!r}: {file} is a file; a store is a folder (or a URL) that "
                                    "holds runs/ (give a new or an existing store's folder).", parameter="store")
    return location


def run_bytes(table: pd.DataFrame, meta: Mapping[str, Any]) -> bytes:
    """The Parquet object of one run: ``table`` (columns node, query, text, then float64 measures) with ``meta`` as
    JSON in the schema metadata (:data:`META_KEY`).

    Examples
    --------
    >>> import pyarrow.parquet as pq
    >>> frame = pd.DataFrame({"node": ["R"], "query": ["q1"], "text": [None], "mrr": [1.0]})
    >>> data = run_bytes(frame, {"id": "x"})
    >>> json.loads(pq.read_schema(io.BytesIO(data)).metadata[META_KEY])
    {'id': 'x'}
    """

    fields = [pa.field("node", pa.string()), pa.field("query", pa.string()), pa.field("text", pa.string())]
    fields += [pa.field(str(name), pa.float64()) for name in table.columns[3:]]
    arrow = pa.Table.from_pandas(table, schema=pa.schema(fields), preserve_index=False)
    arrow = arrow.replace_schema_metadata({META_KEY: json.dumps(meta, allow_nan=False).encode("utf-8")})
    buffer = io.BytesIO()
    pq.write_table(arrow, buffer, compression="zstd")
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------ writing
# Each step of a local write is a function of its own, so that a test can make any one of them fail.
def _remove_stale(folder: Path, now: float) -> None:
    """Remove the temporary files of killed writes older than :data:`STALE_SECONDS` (another writer's newer one is
    still being written)."""
    for path in folder.glob(_TEMP_PREFIX + "*"):
        try:
            if now - path.stat().st_mtime > STALE_SECONDS:
                path.unlink()
        except OSError:
            pass  # removed meanwhile by another writer, or not ours to remove: left for a later write


def _write_temp(path: Path, data: bytes) -> None:
    """Write ``data`` to the new file ``path`` and fsync it."""
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _publish(temp: Path, final: Path) -> None:
    """Give the written file its final name, atomically, never replacing a file of that name."""
    try:
        os.link(temp, final)
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links: rename (the name is new: the id's random part)
        os.replace(temp, final)
        return
    temp.unlink()


def _sync_folder(folder: Path) -> None:
    """fsync the folder, so that the new name survives a crash of the machine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # a platform that opens no folder (Windows): its rename is durable enough
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_local(folder: Path, run_id: str, data: bytes) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SaveError(f"cannot create the store's folder {folder} ({exc.strerror or exc}).") from None
    try:
        _remove_stale(folder, time.time())
    except OSError:
        pass  # housekeeping only: a later write removes them
    temp = folder / f"{_TEMP_PREFIX}{run_id}-{uuid.uuid4().hex[:8]}"
    final = folder / f"{run_id}{_SUFFIX}"
    try:
        _write_temp(temp, data)
        _publish(temp, final)
    except BaseException as exc:
        try:
            temp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise SaveError(f"cannot write the run {final} ({exc.strerror or exc}); the store is unchanged.") from None
        raise
    try:
        _sync_folder(folder)
    except OSError as exc:  # the run is published whole: say so, never remove it
        raise SaveError(f"the run {final} is in the store, whole, but its folder could not be synced "
                        f"({exc.strerror or exc}): a crash of the machine now may lose it.") from None


def write_run(store: object, table: pd.DataFrame, meta: Mapping[str, Any], *,
              storage_options: Mapping[str, Any] | None = None) -> str:
    """Write one run into the store, as one new object; returns its id (``meta["id"]``, or a new one).

    Parameters
    ----------
    store : str or Path
        The store's folder or URL.
    table : pandas.DataFrame
        Columns ``node``, ``query``, ``text``, then one float64 column per measure or score.
    meta : dict
        The run's metadata (JSON-able), kept in the object's footer; its ``"id"`` is set.
    storage_options : dict, optional
        The filesystem's options for a URL.

    Returns
    -------
    str
        The run id.

    Raises
    ------
    SaveError
        When the object cannot be written (the store is left as it was).

    Examples
    --------
    >>> frame = pd.DataFrame({"node": ["R"], "query": ["q1"], "text": ["who?"], "mrr": [0.5]})
    >>> run_id = write_run("memory://evalframe-doc/write-run", frame, {"format": 1, "name": "base"})
    >>> [meta["name"] for meta in list_runs("memory://evalframe-doc/write-run")]
    ['base']
    """
    where = store_location(store, storage_options=storage_options)
    run_id = str(meta.get("id") or new_run_id())
    if not is_run_id(run_id):
        raise InvalidParameterError(f"a run id must be as new_run_id makes them; got {run_id!r}.", parameter="meta")
    meta = {**meta, "id": run_id}
    data = run_bytes(table, meta)
    if isinstance(where, Path):
        _write_local(where / RUNS, run_id, data)
    else:
        write_bytes(where / RUNS / f"{run_id}{_SUFFIX}", data, what="run")
    return run_id


# ------------------------------------------------------------------------------------------ reading
def _footer(handle: Any, shown: str) -> dict[str, Any] | None:
    """A run's metadata read from its footer, or None (warned) for an object that is not a run of this store."""

    try:
        metadata = pq.read_schema(handle).metadata or {}
        meta = json.loads(metadata[META_KEY].decode("utf-8"))
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        warnings.warn(f"{shown} is not a run of an evalframe store ({type(exc).__name__}: {exc}); left out.",
                      stacklevel=3)
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        warnings.warn(f"{shown} holds a run of format {meta.get('format') if isinstance(meta, dict) else None!r}, "
                      f"not {FORMAT} (written by another evalframe version); left out.", stacklevel=3)
        return None
    return meta


def _run_names(names: Sequence[str]) -> list[str]:
    return sorted(name for name in names if name.endswith(_SUFFIX) and is_run_id(name[:-len(_SUFFIX)]))


def list_runs(store: object, *, storage_options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The metadata of every run in the store, by time (oldest first), read from the objects' footers only.

    A store that does not exist yet holds no run. Temporary files of writes under way or killed are never listed.

    Examples
    --------
    >>> list_runs("memory://evalframe-doc/empty-store")
    []
    """
    where = store_location(store, storage_options=storage_options)
    metas: list[dict[str, Any]] = []
    if isinstance(where, Path):
        folder = where / RUNS
        try:
            names = _run_names([entry.name for entry in os.scandir(folder)])
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise LoadError(f"cannot list the store {folder} ({exc.strerror or exc}).") from None
        for name in names:
            try:
                with open(folder / name, "rb") as handle:
                    meta = _footer(handle, str(folder / name))
            except FileNotFoundError:
                continue
            if meta is not None:
                metas.append(meta)
    else:
        folder_url = where / RUNS
        try:
            folder_url.fs.invalidate_cache(folder_url.path)
        except Exception:  # noqa: BLE001 - a filesystem without a cache
            pass
        try:
            entries = folder_url.fs.ls(folder_url.path, detail=False)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise LoadError(f"cannot list the store {folder_url.url} ({exc.strerror or exc}).") from None
        for name in _run_names([str(entry).rstrip("/").rsplit("/", 1)[-1] for entry in entries]):
            obj = folder_url / name
            try:
                with obj.fs.open(obj.path, "rb") as handle:
                    meta = _footer(handle, obj.url)
            except FileNotFoundError:
                continue
            if meta is not None:
                metas.append(meta)
    return sorted(metas, key=lambda meta: str(meta.get("id")))


def read_run(store: object, run_id: str, *,
             storage_options: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], pd.DataFrame]:
    """One run, whole: its metadata and its table (columns node, query, text, then the measures).

    Raises
    ------
    LoadError
        When the store holds no run of that id, or the object cannot be read.

    Examples
    --------
    >>> frame = pd.DataFrame({"node": ["R"], "query": ["q1"], "text": [None], "mrr": [0.5]})
    >>> run_id = write_run("memory://evalframe-doc/read-run", frame, {"format": 1, "name": "base"})
    >>> meta, table = read_run("memory://evalframe-doc/read-run", run_id)
    >>> meta["name"], table["mrr"].tolist()
    ('base', [0.5])
    """

    where = store_location(store, storage_options=storage_options)
    if not is_run_id(run_id):
        raise InvalidParameterError(f"run_id must be a run id such as '20260101T000000000000Z-0123abcd'; got "
                                    f"{run_id!r:.80}.", parameter="run_id")
    name = f"{run_id}{_SUFFIX}"
    if isinstance(where, Path):
        path = where / RUNS / name
        shown = str(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise LoadError(f"the store {where} holds no run {run_id} ({shown} does not exist).") from None
        except OSError as exc:
            raise LoadError(f"cannot read the run {shown} ({exc.strerror or exc}).") from None
    else:
        obj = where / RUNS / name
        shown = obj.url
        try:
            data = bytes(obj.fs.cat_file(obj.path))
        except FileNotFoundError:
            raise LoadError(f"the store {where.url} holds no run {run_id} ({shown} does not exist).") from None
        except OSError as exc:
            raise LoadError(f"cannot read the run {shown} ({exc.strerror or exc}).") from None
    try:
        arrow = pq.read_table(io.BytesIO(data))
        meta = json.loads((arrow.schema.metadata or {})[META_KEY].decode("utf-8"))
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise LoadError(f"{shown} is not a run of an evalframe store ({type(exc).__name__}: {exc}).") from None
    frame = arrow.replace_schema_metadata(None).to_pandas()
    for column in ("node", "query", "text"):
        if column in frame.columns:
            values = frame[column].astype(object)
            frame[column] = values.where(values.notna(), None)
    return meta, frame


# ------------------------------------------------------------------------------------------ references
def _store_words(metas: Sequence[Mapping[str, Any]], store: object) -> str:
    where = f"the store {store}" if store is not None else "the store"
    if not metas:
        return f"{where} holds no run (evalframe log RESULT --store STORE --name NAME writes one)"
    names = sorted({str(meta.get("name")) for meta in metas})
    tags = sorted({str(tag) for meta in metas for tag in meta.get("tags") or ()})
    return (f"{where} holds {len(metas)} run{'s' if len(metas) != 1 else ''}; names: {', '.join(names)}; tags: "
            f"{', '.join(tags) if tags else 'none'}")


def _measure_mean(meta: Mapping[str, Any], measure: str) -> tuple[float, str] | None:
    """The mean of ``measure`` in a run (its first node holding it) and its direction, or None."""
    for node in (meta.get("nodes") or {}).values():
        found = (node.get("measures") or {}).get(measure)
        if found is not None and found.get("mean") is not None:
            return float(found["mean"]), str(found.get("direction"))
    return None


def resolve(metas: Sequence[Mapping[str, Any]], ref: str, *, store: object = None) -> dict[str, Any]:
    """The run a reference names among ``metas`` (by time, as :func:`list_runs` gives them).

    The forms: ``@last``, ``@last~N`` (N runs before the last), ``@last:NAME`` (the latest of that name),
    ``@best:MEASURE`` (the best mean of the measure by its direction, the latest on ties; ``@best:MEASURE:NAME``
    among the runs of that name), ``@tag:TAG`` (the latest with that tag), ``@<id>`` (a run id or a unique prefix of
    it, at least 6 characters). ``store`` is what errors name.

    Raises
    ------
    InvalidParameterError
        For a reference of no form (listing the forms), or one no run matches (naming what the store holds).

    Examples
    --------
    >>> metas = [{"id": "20260101T000000000000Z-aaaaaaaa", "name": "a", "tags": ["v1"]},
    ...          {"id": "20260102T000000000000Z-bbbbbbbb", "name": "b", "tags": []}]
    >>> resolve(metas, "@last")["name"], resolve(metas, "@last~1")["name"], resolve(metas, "@tag:v1")["name"]
    ('b', 'a', 'a')
    >>> resolve(metas, "@tag:v9")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: no run has the tag 'v9': the store holds 2 runs; names: a, b; tags: v1
    """
    forms = ", ".join(REF_FORMS)
    if not isinstance(ref, str) or not ref.startswith("@") or len(ref) < 2:
        raise InvalidParameterError(f"a run reference must be one of {forms}; got {ref!r:.80}.", parameter="ref")
    body = ref[1:]

    def missing(what: str) -> InvalidParameterError:
        return InvalidParameterError(f"{what}: {_store_words(metas, store)}", parameter="ref")

    def latest(chosen: Sequence[Mapping[str, Any]], what: str) -> dict[str, Any]:
        if not chosen:
            raise missing(what)
        return dict(chosen[-1])

    last = re.fullmatch(r"last(?:~(\d+))?", body)
    if last is not None:
        back = int(last.group(1) or 0)
        if back >= len(metas):
            raise missing(f"no run {ref}" if metas else f"no run for {ref}")
        return dict(metas[len(metas) - 1 - back])
    if body.startswith("last:"):
        name = body[len("last:"):]
        if not name:
            raise InvalidParameterError(f"@last:NAME needs a name; got {ref!r}.", parameter="ref")
        return latest([meta for meta in metas if meta.get("name") == name], f"no run is named {name!r}")
    if body.startswith("tag:"):
        tag = body[len("tag:"):]
        if not tag:
            raise InvalidParameterError(f"@tag:TAG needs a tag; got {ref!r}.", parameter="ref")
        return latest([meta for meta in metas if tag in (meta.get("tags") or ())], f"no run has the tag {tag!r}")
    if body.startswith("best:"):
        measure, _, name = body[len("best:"):].partition(":")
        if not measure:
            raise InvalidParameterError(f"@best:MEASURE needs a measure (such as @best:nDCG@10); got {ref!r}.",
                                        parameter="ref")
        among = [meta for meta in metas if not name or meta.get("name") == name]
        if name and not among:
            raise missing(f"no run is named {name!r}")
        best: tuple[float, Mapping[str, Any]] | None = None
        for meta in among:  # by time: a later run equal to the best so far wins the tie
            found = _measure_mean(meta, measure)
            if found is None or found[0] != found[0]:
                continue
            mean, direction = found
            if direction not in ("higher", "lower"):
                raise InvalidParameterError(f"{ref}: {measure} is a count (direction {direction!r}); no run is best "
                                            "by it; name a measure that is better higher or lower.", parameter="ref")
            score = mean if direction == "higher" else -mean
            if best is None or score >= best[0]:
                best = (score, meta)
        if best is None:
            measures = sorted({m for meta in among for node in (meta.get("nodes") or {}).values()
                               for m in node.get("measures") or {}})
            raise missing(f"no run {'named ' + repr(name) + ' ' if name else ''}holds the measure {measure!r} (the "
                          f"runs' measures: {', '.join(measures) or 'none'})")
        return dict(best[1])
    if re.fullmatch(r"[0-9A-Za-z-]+", body):
        if len(body) < 6:
            raise InvalidParameterError(f"a run id prefix must have at least 6 characters; got {ref!r} (the forms: "
                                        f"{forms}).", parameter="ref")
        prefixed = [meta for meta in metas if str(meta.get("id", "")).startswith(body)]
        if len(prefixed) > 1:
            shown = ", ".join(str(m["id"]) for m in prefixed[:5])
            raise InvalidParameterError(f"{ref} is the prefix of {len(prefixed)} runs ({shown}"
                                        f"{', ...' if len(prefixed) > 5 else ''}); give more of the id.", parameter="ref")
        if not prefixed:
            raise missing(f"no run id starts with {body!r}")
        return dict(prefixed[0])
    raise InvalidParameterError(f"a run reference must be one of {forms}; got {ref!r:.80}.", parameter="ref")
