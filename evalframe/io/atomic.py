"""Replace a results folder by a complete new one in one atomic step (used by CSV and Parquet saves).

The new folder is built in a hidden sibling ``.<name>.evalframe-tmp-<id>`` (same parent, so same
filesystem), every file fsync'ed, then swapped with the target by one atomic exchange: Linux
``renameat2(RENAME_EXCHANGE)``, macOS ``renamex_np(RENAME_SWAP)``. A reader therefore always sees the
old or the new folder whole. Where the exchange is unsupported the documented fallback renames the old
folder aside to ``.<name>.evalframe-old-<id>`` and the new one into place; a crash between those two
renames leaves the target missing, which :func:`resolve_for_reading` and :func:`cleanup_stale` repair
by renaming the complete old folder back.

Every saver holds an flock'ed lock file ``.<name>.evalframe-tmp-<id>.lock`` for the whole save (made
under a temporary name and renamed, so a visible lock file is always held by a live saver until it
dies). Sibling ``-tmp-`` / ``-old-`` folders whose lock file is missing or can be locked belong to a
dead saver: every save, and :func:`cleanup_stale`, removes them. Nothing else is ever removed.

Every filesystem step first calls the no-op marker :func:`step` (looked up as ``atomic.step`` at call time),
which the tests replace to inject a failure or a kill at each one.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import os
import re
import shutil
import stat
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import SaveError, warn

try:
    import fcntl
except ImportError:  # Windows: a file held open cannot be removed, which tells a live saver instead
    fcntl = None  # type: ignore[assignment]

__all__ = ["replace_folder", "resolve_for_reading", "cleanup_stale", "check_writable", "sync_file", "staged_file", "step",
           "write_atomically", "file_mode"]


def step(name: str) -> None:
    """Mark one filesystem step of a save, just before it is taken; does nothing.

    Every step of a save (making the lock, writing and fsync'ing each file, the exchange or each rename of its
    fallback, ...) calls this marker first, always looked up as ``atomic.step`` when it runs. The fault sweeps of the
    test suite replace it (``monkeypatch.setattr(atomic, "step", ...)``) to raise an error, or end the process, at
    each step in turn and prove that the folder is always the old or the new result whole.

    Parameters
    ----------
    name : str
        What the step does, such as ``"exchange"`` or ``"write Reader.csv"``.

    Examples
    --------
    >>> from evalframe.io import atomic
    >>> atomic.step("exchange") is None
    True
    """


def _names(target: Path) -> re.Pattern[str]:
    """Sibling names this module makes for ``target``: ``.<name>.evalframe-{tmp,old}-<id>[.lock[-new]]``."""
    return re.compile(rf"\.{re.escape(target.name)}\.evalframe-(tmp|old)-([0-9a-f]{{12}})(\.lock|\.lock-new)?")


# ------------------------------------------------------------------------------- exchange
_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS sys/stdio.h
_AT_FDCWD = -100
_exchange_supported: bool | None = None


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False when this system or filesystem cannot (the caller falls back)."""
    global _exchange_supported
    if _exchange_supported is False:
        return False
    libc = _libc()
    if sys.platform.startswith("linux") and libc is not None and hasattr(libc, "renameat2"):
        call = lambda: libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)  # noqa: E731
    elif sys.platform == "darwin" and libc is not None and hasattr(libc, "renamex_np"):
        call = lambda: libc.renamex_np(os.fsencode(a), os.fsencode(b), _RENAME_SWAP)  # noqa: E731
    else:
        _exchange_supported = False
        return False
    if call() == 0:
        _exchange_supported = True
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        _exchange_supported = False  # kernel or filesystem without the exchange
        return False
    raise OSError(code, os.strerror(code), str(b))


# ------------------------------------------------------------------------------- syncing
def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:  # some filesystems cannot sync a directory; the rename order still holds
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def sync_file(path: Path) -> None:
    """Flush a file written into the staging folder to disk."""
    step(f"fsync {path.name}")
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def staged_file(path: Path) -> Iterator[Path]:
    """Mark the writing of one staging file (a step) and fsync it once written."""
    step(f"write {path.name}")
    yield path
    sync_file(path)


# ------------------------------------------------------------------------------- locks
def _lock_is_free(lock: Path) -> tuple[bool, int | None]:
    """Whether no live saver holds ``lock`` (missing counts as free); the fd holding it, if opened."""
    if fcntl is None:
        try:
            os.unlink(lock)
        except FileNotFoundError:
            return True, None
        except OSError:
            return False, None
        return True, None
    try:
        fd = os.open(lock, os.O_RDONLY)  # a reader that may not write can still test the lock
    except FileNotFoundError:
        return True, None
    except OSError:
        return False, None  # cannot tell: leave it alone
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False, None
    return True, fd


def _take_lock(parent: Path, target_name: str) -> tuple[str, int, Path]:
    """A fresh id with its lock file created, flock'ed, and only then made visible under its final name."""
    for _ in range(8):
        token = uuid.uuid4().hex[:12]
        final = parent / f".{target_name}.evalframe-tmp-{token}.lock"
        temporary = parent / f".{target_name}.evalframe-tmp-{token}.lock-new"
        step("create lock")
        fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            step("publish lock")
            os.rename(temporary, final)
        except FileNotFoundError:  # a cleaner took the not-yet-locked temporary file for a dead one: retry
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return token, fd, final
    raise OSError(errno.EAGAIN, "could not create a lock file", str(parent))


# ------------------------------------------------------------------------------- cleanup
def cleanup_stale(target: Path) -> None:
    """Remove the staging / old folders (and lock files) that dead savers left beside ``target``.

    A folder whose saver is alive (its lock file is held) is left alone, and so is every name this module
    did not make. When the target is missing but a dead saver's complete ``-old-`` folder exists (a crash
    inside the fallback's two renames), that folder is renamed back first. Permission errors are ignored
    (a reader may not be allowed to clean).
    """
    target = Path(target)
    parent = target.parent
    pattern = _names(target)
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    ids: dict[str, list[str]] = {}
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match:
            ids.setdefault(match.group(2), []).append(entry)
    for token, names in ids.items():
        free, fd = _lock_is_free(parent / f".{target.name}.evalframe-tmp-{token}.lock")
        if not free:
            continue
        try:
            with contextlib.suppress(OSError):
                newer = parent / f".{target.name}.evalframe-tmp-{token}.lock-new"
                if newer.exists():  # a saver between creating and publishing its lock: alive if held
                    newer_free, newer_fd = _lock_is_free(newer)
                    if not newer_free:
                        continue
                    if newer_fd is not None:
                        os.close(newer_fd)
            old = parent / f".{target.name}.evalframe-old-{token}"
            if old.is_dir() and not os.path.lexists(target):
                with contextlib.suppress(OSError):
                    os.rename(old, target)  # the fallback died between its renames: the old result returns
            for name in names:
                path = parent / name
                with contextlib.suppress(OSError):
                    if name.endswith((".lock", ".lock-new")):
                        continue
                    shutil.rmtree(path)
            with contextlib.suppress(OSError):
                os.unlink(parent / f".{target.name}.evalframe-tmp-{token}.lock-new")
            if fd is not None or fcntl is None:
                # only a lock file this cleaner holds (or Windows, where a held one cannot be removed): a lock found
                # missing above may since have been published by a saver that was between its two lock steps, and
                # removing it would make that live saver's staging folder look dead to the next cleaner
                with contextlib.suppress(OSError):
                    os.unlink(parent / f".{target.name}.evalframe-tmp-{token}.lock")
        finally:
            if fd is not None:
                os.close(fd)


def resolve_for_reading(target: Path) -> Path:
    """The folder a loader should read for ``target``.

    ``target`` itself when it exists. When a crash (or a saver right now) in the rename fallback left it
    missing, the complete old folder is renamed back when its saver is dead (and that is permitted), else
    read where it lies.
    """
    target = Path(target)
    if os.path.lexists(target):
        return target
    cleanup_stale(target)
    if os.path.lexists(target):
        return target
    pattern = _names(target)
    with contextlib.suppress(OSError):
        for entry in sorted(os.listdir(target.parent)):
            match = pattern.fullmatch(entry)
            if match and match.group(1) == "old" and match.group(3) is None and (target.parent / entry).is_dir():
                return target.parent / entry
    return target


# ------------------------------------------------------------------------------- replace
def _writable(folder: Path) -> bool:
    """Writable by us, and not made read-only by its owner (root passes ``os.access`` regardless of 0555)."""
    return os.access(folder, os.W_OK | os.X_OK) and bool(os.stat(folder).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def check_writable(target: Path) -> None:
    """Refuse, before anything is written, a target whose folder (or parent) this process may not change."""
    parent = target.parent
    if parent.exists() and not _writable(parent):
        raise SaveError(f"{parent} is not writable, so save cannot create the new result beside {target.name}; "
                        "choose another out_dir or make that folder writable.")
    if target.exists() and not _writable(target):
        raise SaveError(f"{target} is not writable (read-only or owned by another user); save leaves it as it is. "
                        "Choose another out_dir or make it writable (chmod u+w).")


class _Failed(Exception):
    """An OSError inside the swap, with what it left at the target: the end of the SaveError's message.

    Before the new folder is in place the old one is unchanged (the default message); the rename fallback has other
    states (the target missing, another save's result in place, the new result in place with the old one beside
    it), each said as it is.
    """

    def __init__(self, error: OSError, state: str) -> None:
        super().__init__(error, state)
        self.error, self.state = error, state


def _as_save_error(exc: OSError, target: Path, state: str | None = None) -> SaveError:
    where = exc.filename or target
    return SaveError(f"cannot save to {target}: {exc.strerror or exc} ({where}); "
                     f"{state or 'the previous folder is unchanged'}.")


def replace_folder(target: Path, write: Callable[[Path], None],
                   foreign: Callable[[Path], list[str]] = lambda folder: []) -> Path:
    """Build the new folder with ``write(staging)`` and make it ``target`` atomically.

    ``target`` is already resolved (no symlink) and checked (see :func:`check_writable`, and the caller's
    check that it holds only files evalframe wrote). Any OSError is turned into a SaveError after the
    staging folder is removed; up to the swap the old folder stays as it was, and an OSError inside the rename
    fallback's swap says what it left at ``target`` (see :func:`_put_in_place`). ``foreign(folder)`` names the files of a
    folder that the caller did not write: if one appeared in the old folder after the caller's check,
    the old folder is kept (renamed ``.<name>.evalframe-kept-<id>``, with a warning), never removed.
    """
    parent = target.parent
    cleanup_stale(target)
    # a save that fails before its swap leaves the target as it was: the previous folder, or none
    untouched = None if os.path.lexists(target) else f"{target} was not created"
    try:
        token, lock_fd, lock = _take_lock(parent, target.name)
    except OSError as exc:
        raise _as_save_error(exc, target, untouched) from None
    staging = parent / f".{target.name}.evalframe-tmp-{token}"
    aside = parent / f".{target.name}.evalframe-old-{token}"
    try:
        try:
            step("mkdir staging")
            staging.mkdir()
            write(staging)
            step("fsync staging")
            _fsync_dir(staging)
            _put_in_place(staging, target, aside, foreign)
        except _Failed as failed:
            raise _as_save_error(failed.error, target, failed.state) from None
        except OSError as exc:
            raise _as_save_error(exc, target, untouched) from None
        # the old generation (now at the staging path) goes; a failure here leaves the new result in place,
        # and what is left is removed by the next save or load, as the lock is released below
        with contextlib.suppress(OSError):
            step("remove old")
            if os.path.isdir(staging):
                _remove_old(staging, target, foreign)
            step("fsync parent")
            _fsync_dir(parent)
        return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # the unfinished new folder, or the old one after the swap
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(lock_fd)


def _remove_old(old: Path, target: Path, foreign: Callable[[Path], list[str]]) -> None:
    """Remove an old generation of ``target``, or keep it (renamed, with a warning) when files evalframe did not
    write appeared in it after the save's check."""
    if foreign(old):
        kept = target.parent / f".{target.name}.evalframe-kept-{uuid.uuid4().hex[:12]}"
        os.rename(old, kept)
        warn(f"{target}: files evalframe did not write appeared during the save; the previous folder, with them, "
             f"is kept as {kept}.")
    else:
        if "-old-" in old.name:  # a cleaner restores an -old- folder as complete: half-removed, it must not carry that name
            garbage = target.parent / f".{target.name}.evalframe-tmp-{uuid.uuid4().hex[:12]}"  # no lock: a dead saver's
            os.rename(old, garbage)
            old = garbage
        shutil.rmtree(old)


def _put_in_place(staging: Path, target: Path, aside: Path, foreign: Callable[[Path], list[str]]) -> bool:
    """Move the complete staging folder to ``target``; the old folder (if any) ends at ``staging``.

    An OSError of the rename fallback is raised as :class:`_Failed`, saying what it left at ``target``.
    """
    unchanged = None  # what a failure leaves at the target, until another save's result replaces the previous one
    for _ in range(4):  # another saver may create or exchange the target meanwhile
        if not os.path.lexists(target):
            step("rename into place")
            try:
                os.rename(staging, target)
                return True
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise _Failed(exc, unchanged or f"{target} was not created") from None
                continue  # another saver put its result there first: exchange with it
        step("exchange")
        try:
            if _exchange(staging, target):
                return True
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _Failed(exc, unchanged or "the previous folder is unchanged") from None
        # fallback without an atomic exchange: for an instant the target is missing (see resolve_for_reading)
        try:
            step("rename old aside")
            os.rename(target, aside)
        except OSError as exc:
            raise _Failed(exc, unchanged or "the previous folder is unchanged") from None
        try:
            step("rename new into place")
            os.rename(staging, target)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise _Failed(exc, _put_back(aside, target, unchanged)) from None
            # another saver renamed its folder into place while ours was aside: that save superseded the old
            # generation, and this one puts its folder in place over that save's in the next round
            try:
                step("remove superseded")
                _remove_old(aside, target, foreign)
            except OSError as error:
                raise _Failed(error, f"another save put its result in {target} meanwhile, and it is there now (this "
                                     "save's result was not written: save again); the previous result, which that "
                                     "save superseded, could not be removed: the next save or load of "
                                     f"{target} removes what is left of it beside {target.name}") from None
            unchanged = (f"{target} holds the result another save put there meanwhile (this save's result was not "
                         "written: save again)")
            continue
        except BaseException:  # put the old folder back (a kill here is repaired by cleanup_stale)
            with contextlib.suppress(OSError):
                os.rename(aside, target)
            raise
        try:
            step("move old to staging")
            os.rename(aside, staging)
        except OSError as exc:
            raise _Failed(exc, f"the new result is in place at {target}, but the previous result could not be moved "
                               f"away from {aside}: the next save or load of {target} removes it (or remove it by "
                               "hand)") from None
        return True
    raise _Failed(OSError(errno.EBUSY, "the folder kept changing under concurrent saves", str(target)),
                  unchanged or "the previous folder is unchanged")


def _put_back(aside: Path, target: Path, unchanged: str | None) -> str:
    """Rename the old folder back to ``target`` after the new one could not be put in place; what is left there."""
    try:
        step("put old back")
        os.rename(aside, target)
    except OSError:
        return (f"{target} is missing: the previous result is whole at {aside}, and the next save or load of {target} "
                "renames it back (or rename it back by hand)")
    return unchanged or "the previous folder is unchanged"


def file_mode(target: Path) -> int:
    """The permissions a report written to ``target`` gets: the file's own when it is replaced, else those any new file
    gets (0o666 less the process's umask), as ``open(target, "w")`` would give it."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mask = os.umask(0o022)  # read the umask (it is only read by setting it), then put it back
        os.umask(mask)
        return 0o666 & ~mask


def write_atomically(target: Path, content: str | bytes) -> None:
    """Write ``content`` (text as UTF-8, or bytes) to ``target`` through a temporary file beside it, renamed over it:
    a reader never sees half a file (a report, a trend); the file keeps its permissions, a new one gets a new file's."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(staging, file_mode(target))  # mkstemp's file is private (0o600); a report is a file like another
        with os.fdopen(handle, "wb") as file:
            file.write(content.encode("utf-8") if isinstance(content, str) else content)
            file.flush()
            os.fsync(file.fileno())
        os.replace(staging, target)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise
