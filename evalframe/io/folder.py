"""Read the files of one results folder safely, all from one generation of the folder.

:meth:`EvaluationResult.save` replaces a whole folder at once (the new folder is exchanged with the old
one, then the old generation is deleted), so a reader that opened files by path could mix files of
two saves. :class:`Folder` opens the folder once as a directory descriptor and opens every file
relative to it, so all files come from the generation that descriptor names; when a file vanishes
(the old generation was deleted under the reader) it raises :class:`Vanished`, and the loader starts
again from a fresh descriptor (:func:`with_retries`).

Only regular files directly inside the folder are read: no symlinks (``O_NOFOLLOW``), no named pipes
or devices (opened with ``O_NONBLOCK`` so a FIFO cannot block, then refused after ``fstat``), no
names with a path separator or ``..``. Anything else is a :class:`LoadError` naming the file.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable, TypeVar

from ..errors import LoadError

__all__ = ["Folder", "FolderMissing", "Vanished", "KeptChanging", "with_retries", "MAX_ATTEMPTS"]

#: How many times a load starts again when files vanish because another process saved into the folder;
#: the pauses between attempts grow from 1 ms to 50 ms (about 2 s in all), so a reader is not starved
#: by a process that saves again and again.
MAX_ATTEMPTS = 50
_T = TypeVar("_T")
#: Platforms without openat() (Windows) open by path: the same checks, without the one-generation guarantee.
_BY_DESCRIPTOR = os.open in os.supports_dir_fd and os.listdir in os.supports_fd
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class Vanished(Exception):
    """A file or the folder disappeared mid-load (another process replaced the folder): start again."""


class FolderMissing(LoadError):
    """The results folder does not exist (when :class:`Folder` tried to open it)."""


class KeptChanging(LoadError):
    """:func:`with_retries` gave up: files vanished on every attempt (another process saves into the folder again
    and again)."""


def is_plain_name(name: str) -> bool:
    """True for a file name directly inside a folder: no separator, not '.' or '..', no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in ("/", "\\", "\x00"))


class Folder:
    """One generation of a results folder, opened once as a directory descriptor.

    Use as a context manager; ``path`` only words error messages.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            if not _BY_DESCRIPTOR:
                if not os.path.isdir(path):
                    raise NotADirectoryError if os.path.exists(path) else FileNotFoundError
                self.fd = -1
            else:
                self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise FolderMissing(f"results folder {path} does not exist.") from None
        except NotADirectoryError:
            raise LoadError(f"{path} is not a folder; pass the folder that holds the <node>.csv files.") from None
        except OSError as exc:
            raise LoadError(f"results folder {path} cannot be opened ({exc.strerror}).") from None
        self._names: list[str] | None = None
        self._name_set: set[str] | None = None

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def names(self) -> list[str]:
        """The folder's entry names, sorted (listed once).

        Raises :class:`Vanished` when the generation listed is no longer the folder's: a save exchanged it
        since it was opened, and may be deleting its files, so the listing could be partial or empty.
        """
        if self._names is None:
            try:
                names = sorted(os.listdir(self.fd if self.fd >= 0 else self.path))
            except FileNotFoundError:
                raise Vanished(str(self.path)) from None
            if self.fd >= 0 and not self._is_current():
                raise Vanished(str(self.path))
            self._names = names
        return self._names

    def _is_current(self) -> bool:
        """Whether the generation held is still the one at ``path`` (not exchanged away, not deleted)."""
        held = os.fstat(self.fd)
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False
        return held.st_nlink > 0 and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)

    def exists(self, name: str) -> bool:
        """Whether the folder holds an entry of that name (of any kind); one set lookup per call."""
        if self._name_set is None:
            self._name_set = set(self.names())
        return name in self._name_set

    def open_binary(self, name: str, *, max_bytes: int | None = None) -> BinaryIO:
        """Open the regular file ``name`` of the folder for reading (buffered, binary).

        Raises :class:`Vanished` when it disappeared (the load starts again), :class:`LoadError` for a
        symlink, a pipe, a device, a folder, a file larger than ``max_bytes`` or a name outside the folder.
        """
        shown = self.path / name
        if not is_plain_name(name):
            raise LoadError(f"{shown}: only files directly inside the results folder are read; got the name {name!r}.")
        try:
            if self.fd < 0 and os.path.islink(shown):  # no O_NOFOLLOW to refuse it at open()
                raise OSError(errno.ELOOP, "symbolic link")
            fd = os.open(name, _FILE_FLAGS, dir_fd=self.fd) if self.fd >= 0 else os.open(shown, _FILE_FLAGS)
        except FileNotFoundError:
            raise Vanished(str(shown)) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LoadError(f"{shown} is a symbolic link; load reads only regular files inside the folder "
                                "(copy the file into the folder instead).") from None
            raise LoadError(f"{shown} cannot be opened ({exc.strerror}).") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a named pipe" if stat.S_ISFIFO(info.st_mode)
                        else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file")
                raise LoadError(f"{shown} is {kind}; load reads only regular files. Move it out of the results folder.")
            if max_bytes is not None and info.st_size > max_bytes:
                raise LoadError(f"{shown} holds {info.st_size} bytes, more than the {max_bytes} this file may hold.")
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)  # a regular file: O_NONBLOCK was only there so a FIFO could not block open()
            return io.open(fd, "rb", closefd=True)
        except BaseException:
            os.close(fd)
            raise


def with_retries(path: Path, attempt: Callable[[], _T]) -> _T:
    """Run ``attempt`` (a whole load from a fresh :class:`Folder`) until no file vanished under it."""
    for number in range(MAX_ATTEMPTS):
        try:
            return attempt()
        except Vanished:
            time.sleep(min(0.001 * 2**number, 0.05))
    raise KeptChanging(f"results folder {path} kept changing while it was read ({MAX_ATTEMPTS} attempts: files vanished "
                    "as another process saved into it); load it again once the save is finished.")
