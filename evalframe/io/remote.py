"""Result folders on object storage (``s3://``, ``gs://``, ``memory://``, ...): safe saves where nothing can be renamed.

A local folder is replaced by one atomic exchange (:mod:`evalframe.io.atomic`); an object store has no rename, only
PUTs that replace one object at a time. So a save to a URL never overwrites a file a reader may be reading
(docs/storage.md#safe-saves-on-object-storage):

1. every file of the new result is written under a new *generation* prefix ``<url>/<generation>/`` (the generation
   id is the UTC time of the save and a random part, so ids sort by age and never repeat);
2. ``<url>/evalframe.json``, naming that generation, is written last, in one PUT: until then readers see the old
   result, from then on the new one; a save that fails (or is killed) before it leaves the old result in place;
3. only after that is the generation it replaced removed (and its own, when another save published after it); any
   other generation (a killed save's, the loser's of a race) is removed once it is older than :data:`GRACE_SECONDS`.
   The generation ``evalframe.json`` names is never removed.

A load reads ``evalframe.json`` (one GET), then each file of the generation it names whole in one GET each; a file
that vanished means a newer save removed that generation under the reader, which then reads ``evalframe.json``
again and starts over, and after :data:`MAX_ATTEMPTS` attempts gives up with a LoadError "saved again while being
read". A folder whose ``evalframe.json`` names no generation (a local save copied as it is) and a Haystack 1.x folder
(only ``<node>.csv`` files) are read from the URL's own files.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast

from . import atomic
from .._locations import Remote, is_url, locate, url_problem, write_bytes
from .._validation import check_path, few_names
from ..errors import LoadError, SaveError
from .folder import Folder, Vanished, is_plain_name
from .manifest import MANIFEST_NAME, listed_files, read_manifest

__all__ = ["RemoteFolder", "resolve", "load_remote", "save_remote", "stage_and_upload", "new_generation",
           "current_generation", "GRACE_SECONDS", "MAX_ATTEMPTS", "GENERATION"]

#: A generation that is neither the current one nor the one a save just replaced (a killed save's, a race's loser's)
#: is removed by a later save only once it is older than this (seconds): a save still writing it is not disturbed.
GRACE_SECONDS = 3600.0
#: How many times a load starts again when the generation it read was removed by a newer save.
MAX_ATTEMPTS = 20
#: The manifest key naming the generation a URL's result lives in.
GENERATION = "generation"
_GENERATION_RE = re.compile(r"gen-(\d{8}T\d{6})\.(\d{6})Z-([0-9a-f]{12})")
_T = TypeVar("_T")


def resolve(value: object, *, name: str, storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """Where a save or load goes: a :class:`Remote` for a URL (or a Remote given), else the local path, checked as
    before URLs were read (``file://`` is a local path).

    Examples
    --------
    >>> resolve("results/run1", name="out_dir"), resolve("memory://b/run1", name="out_dir")
    (PosixPath('results/run1'), Remote('memory://b/run1'))
    """
    if isinstance(value, Remote):
        return value
    if is_url(value) or url_problem(value) is not None:  # a URL, or one whose '//' pathlib collapsed (refused)
        return locate(value, name=name, storage_options=storage_options)
    return check_path(value, name=name)


def new_generation() -> str:
    """A new generation id: ``gen-<UTC time to the microsecond>Z-<12 random hex digits>`` (sorts by age).

    Examples
    --------
    >>> bool(_GENERATION_RE.fullmatch(new_generation()))
    True
    """
    now = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"gen-{stamp}.{int(now % 1 * 1e6):06d}Z-{uuid.uuid4().hex[:12]}"


def _age(generation: str) -> float | None:
    match = _GENERATION_RE.fullmatch(generation)
    if match is None:
        return None
    import calendar

    made = calendar.timegm(time.strptime(match.group(1), "%Y%m%dT%H%M%S")) + int(match.group(2)) / 1e6
    return time.time() - made


class RemoteFolder(Folder):
    """One generation of a results folder at a URL, with :class:`Folder`'s interface (the format readers read it
    unchanged): every file read whole, in one GET, when it is opened (a loaded result never reads an object later,
    when a newer save may have removed it).

    ``names``: the files of the generation (from its manifest) or None to list the URL; ``manifest``: the bytes of
    ``evalframe.json`` as read (read once: a load checks the manifest it chose the generation by).
    """

    def __init__(self, where: Remote, *, names: list[str] | None = None, manifest: bytes | None = None,
                 generation: str | None = None) -> None:
        self.where = where
        self.path = cast(Path, where)  # messages name files as path / name: a Remote's '/' gives their URLs
        self.fd = -1
        self.generation = generation
        self._manifest = manifest
        self._names = sorted(names) if names is not None else None
        self._name_set = None

    def close(self) -> None:
        pass

    def names(self) -> list[str]:
        if self._names is None:
            self._names = sorted(_files(self.where))
        return self._names

    def _is_current(self) -> bool:
        return True

    def open_binary(self, name: str, *, max_bytes: int | None = None) -> BinaryIO:
        shown = self.where / name
        if not is_plain_name(name):
            raise LoadError(f"{shown}: only files directly inside the results folder are read; got the name {name!r}.")
        if name == MANIFEST_NAME and self._manifest is not None:
            return io.BytesIO(self._manifest)
        try:
            if max_bytes is not None:
                size = self.where.fs.size(shown.path)
                if size is not None and size > max_bytes:
                    raise LoadError(f"{shown} holds {size} bytes, more than the {max_bytes} this file may hold.")
            data = self.where.fs.cat_file(shown.path)
        except FileNotFoundError:
            raise Vanished(str(shown)) from None
        except IsADirectoryError:
            raise LoadError(f"{shown} is a folder; load reads only files. Move it out of the results folder.") from None
        except OSError as exc:
            raise LoadError(f"{shown} cannot be read ({exc.strerror or exc}).") from None
        return io.BytesIO(bytes(data))


def _fresh(where: Remote) -> None:
    """Forget what the filesystem cached of ``where``'s listing (s3fs keeps listings): another process saves too."""
    with contextlib.suppress(Exception):
        where.fs.invalidate_cache(where.path)


def _listing(where: Remote) -> list[dict[str, Any]]:
    """The entries directly under ``where`` (none when it does not exist), never from a cached listing."""
    _fresh(where)
    try:
        entries = where.fs.ls(where.path, detail=True)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise LoadError(f"{where.url} cannot be listed ({exc.strerror or exc}).") from None
    base = where.path.rstrip("/")
    return [entry for entry in entries if str(entry["name"]).rstrip("/") != base]


def _name(entry: Mapping[str, Any]) -> str:
    return str(entry["name"]).rstrip("/").rsplit("/", 1)[-1]


def _files(where: Remote) -> list[str]:
    return [_name(entry) for entry in _listing(where) if entry.get("type") != "directory"]


def _read_top(where: Remote) -> bytes | None:
    """``<url>/evalframe.json`` as it is now (one GET), or None when there is none."""
    try:
        return bytes(where.fs.cat_file((where / MANIFEST_NAME).path))
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OSError as exc:
        raise LoadError(f"{where / MANIFEST_NAME} cannot be read ({exc.strerror or exc}).") from None


def _generation_of(where: Remote, raw: bytes) -> str | None:
    """The generation a manifest's bytes name (None: a folder saved locally and copied, its files beside it)."""
    try:
        parsed = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None  # read_manifest refuses it, naming the file
    generation = parsed.get(GENERATION) if isinstance(parsed, dict) else None
    if generation is None:
        return None
    if not isinstance(generation, str) or not _GENERATION_RE.fullmatch(generation):
        raise LoadError(f"{where / MANIFEST_NAME}: '{GENERATION}' must name the generation a save wrote (such as "
                        f"'gen-20260101T000000.000000Z-0123456789ab'); got {generation!r:.80}; the manifest was "
                        "edited or damaged (save the result again).")
    return generation


def current_generation(where: Remote) -> str | None:
    """The generation ``<url>/evalframe.json`` names now (None: no manifest, or one that names none)."""
    raw = _read_top(where)
    return None if raw is None else _generation_of(where, raw)


def open_current(where: Remote) -> RemoteFolder:
    """The result at ``where`` as it is now: the generation its manifest names, or the URL's own files."""
    raw = _read_top(where)
    generation = None if raw is None else _generation_of(where, raw)
    if generation is None:
        folder = RemoteFolder(where, manifest=raw)
        if raw is None and not folder.names():
            entries = _listing(where)
            if not entries and where.fs.isfile(where.path):
                raise LoadError(f"{where.url} is a file, not a results folder; pass the folder that holds the "
                                "<node>.csv files.")
            if entries:
                raise LoadError(f"results folder {where.url} holds no evalframe.json and no .csv file (a save to it "
                                "was never published, or the folder is another's); save the result again.")
            raise LoadError(f"results folder {where.url} does not exist.")
        return folder
    try:
        names = sorted({MANIFEST_NAME, *listed_files(json.loads(raw.decode("utf-8")))}) if raw is not None else None
    except (KeyError, TypeError, AttributeError, ValueError):
        names = [MANIFEST_NAME]  # a damaged manifest: read_manifest refuses it, naming the field
    return RemoteFolder(where / generation, names=names, manifest=raw, generation=generation)


def with_remote_retries(where: Remote, attempt: Callable[[RemoteFolder], _T]) -> _T:
    """Run ``attempt`` on the current generation of ``where`` until none of its files vanished under it.

    A file that vanished while the manifest still names its generation is missing (the folder is damaged): a
    LoadError names it. Otherwise a newer save removed the generation read: read the manifest again and start over.
    """
    for number in range(MAX_ATTEMPTS):
        folder = open_current(where)
        try:
            return attempt(folder)
        except Vanished as gone:
            if folder.generation is not None and current_generation(where) == folder.generation:
                raise LoadError(f"{gone} is missing: {where / MANIFEST_NAME} lists it, but the files of generation "
                                f"{folder.generation} are incomplete (save the result again).") from None
            if folder.generation is None and (raw := _read_top(where)) is not None and _generation_of(where, raw) is None \
                    and raw == folder._manifest:
                raise LoadError(f"{gone} is missing: {where / MANIFEST_NAME} lists it (save the result again).") from None
            time.sleep(min(0.005 * 2**number, 0.2))
    raise LoadError(f"results folder {where.url} was saved again while being read ({MAX_ATTEMPTS} attempts: each "
                    "time a newer save removed the generation being read); load it again once the saves are finished.")


def load_remote(where: Remote, load: Callable[[RemoteFolder], _T]) -> _T:
    """Read the result at ``where`` with ``load(folder)`` (see :func:`with_remote_retries`)."""
    return with_remote_retries(where, load)


# ------------------------------------------------------------------------------------------------ saving
def _check_target(where: Remote) -> tuple[str | None, dict[str, Any] | None]:
    """Refuse a URL holding files evalframe did not write; its current generation and manifest (None: none)."""
    _fresh(where)
    if where.fs.isfile(where.path):
        raise SaveError(f"out_dir {where.url} exists and is not a folder; choose another.", parameter="out_dir")
    try:
        entries = _listing(where)
        raw = _read_top(where)
        manifest = None
        if raw is not None:
            with contextlib.suppress(LoadError):
                manifest = read_manifest(RemoteFolder(where, names=[MANIFEST_NAME], manifest=raw))
        generation = _generation_of(where, raw) if manifest is not None and raw is not None else None
    except LoadError as exc:
        raise SaveError(f"{where.url} cannot be listed: {exc} Choose another out_dir.") from None
    if not entries:
        return None, None
    ours = {MANIFEST_NAME} if manifest is not None else set()
    if manifest is not None and generation is None:
        ours |= listed_files(manifest)
    foreign = sorted(_name(entry) for entry in entries if _name(entry) not in ours
                     and not (entry.get("type") == "directory" and _GENERATION_RE.fullmatch(_name(entry))))
    if foreign:
        why = "it holds no readable evalframe.json" if manifest is None else "its evalframe.json does not list them"
        raise SaveError(f"{where.url} holds files evalframe did not write ({few_names(foreign)}; {why}); save "
                        "replaces the whole folder and would lose them. Choose a new or empty out_dir, or move those "
                        "files elsewhere.")
    return generation, manifest


def _remove(where: Remote, step: str) -> None:
    """Remove a prefix (a generation) and everything under it; what cannot be removed is left (a later save
    removes it once it is older than the grace period)."""
    with contextlib.suppress(FileNotFoundError):
        atomic.step(step)
        where.fs.rm(where.path, recursive=True)


def _remove_local_style(where: Remote, manifest: Mapping[str, Any]) -> None:
    """Remove the files a copied local save (a manifest naming no generation) listed beside ``evalframe.json``."""
    for name in sorted(listed_files(dict(manifest))):
        with contextlib.suppress(FileNotFoundError):
            atomic.step("remove replaced file")
            where.fs.rm_file((where / name).path)


def save_remote(where: Remote, fill: Callable[[Remote, str], dict[str, Any]]) -> Remote:
    """Write a new generation of the result at ``where`` and publish it (module docstring).

    ``fill(prefix, generation)`` writes every file of the result under ``prefix`` (``<url>/<generation>``) and returns
    its manifest (the files named relative to ``prefix``); this writes ``<url>/evalframe.json`` last, then removes
    what the save replaced. A failure before that PUT leaves the old result as it was (SaveError says so).
    """
    _check_target(where)
    generation = new_generation()
    prefix = where / generation
    published = False
    try:
        manifest = fill(prefix, generation)
        manifest[GENERATION] = generation
        try:
            text = json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SaveError(f"the result's matching parameters hold text that is not UTF-8 ({exc}).") from None
        try:
            replaced_raw = _read_top(where)  # the generation this save replaces: removed once the new one is published
        except LoadError as exc:  # the target's manifest, not the result's data: a save's refusal
            raise SaveError(f"cannot save to {where.url}: {exc} The previous result, if any, is unchanged.") from None
        atomic.step(f"put {MANIFEST_NAME}")
        write_bytes(where / MANIFEST_NAME, text, what="results folder's evalframe.json")
        published = True
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            if current_generation(where) != generation:  # a PUT that failed may still have landed: never the current
                _remove(prefix, "remove unpublished generation")
        if isinstance(exc, OSError):
            raise SaveError(f"cannot save to {where.url} ({exc.strerror or exc}); the previous result, if any, is "
                            "unchanged.") from None
        raise
    assert published
    with contextlib.suppress(Exception):  # the new result is in place: what is left is removed by a later save
        _clean_after(where, generation, replaced_raw)
    return where


def _clean_after(where: Remote, generation: str, replaced_raw: bytes | None) -> None:
    now = current_generation(where)
    replaced = None if replaced_raw is None else _generation_of(where, replaced_raw)
    if replaced is not None and replaced not in (now, generation):
        _remove(where / replaced, "remove replaced generation")
    elif replaced_raw is not None and replaced is None and now is not None:  # a copied local save's files
        manifest = None
        with contextlib.suppress(LoadError):
            manifest = read_manifest(RemoteFolder(where, names=[MANIFEST_NAME], manifest=replaced_raw))
        if manifest is not None:
            _remove_local_style(where, manifest)
    if now != generation and now is not None:  # another save published after this one: this generation is not read
        _remove(where / generation, "remove own generation")
    for entry in _listing(where):
        name = _name(entry)
        age = _age(name)
        if entry.get("type") == "directory" and age is not None and age > GRACE_SECONDS and name not in (now, generation):
            if current_generation(where) == name:  # read again: never the current generation
                continue
            _remove(where / name, "remove stale generation")


def stage_and_upload(write: Callable[[Path], None]) -> Callable[[Remote, str], dict[str, Any]]:
    """A ``fill`` for :func:`save_remote` of a save's ``write(staging)``: the files built in a local temporary
    folder (the local save's own writers), then each PUT under the generation prefix; the manifest is returned."""

    def fill(prefix: Remote, generation: str) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="evalframe-save-") as staging:
            write(Path(staging))
            names = sorted(os.listdir(staging))
            for name in names:
                if name == MANIFEST_NAME:
                    continue
                atomic.step(f"put {name}")
                with open(os.path.join(staging, name), "rb") as handle:
                    write_bytes(prefix / name, handle.read(), what=f"file {name} of the new result")
            with open(os.path.join(staging, MANIFEST_NAME), "rb") as handle:
                return cast(dict[str, Any], json.loads(handle.read().decode("utf-8")))

    return fill
