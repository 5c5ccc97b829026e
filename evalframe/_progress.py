"""Progress bars: shown where a person is watching, and the one place that decides it.

``progress=None`` (the default of every call that reads, builds, scores or saves) shows a bar when stderr is a
terminal or the code runs in a Jupyter / IPython kernel; ``True`` shows it anyway, ``False`` never. The bars are
``tqdm.auto``'s (a widget in Jupyter with ipywidgets, text otherwise) and go to stderr; a bar appears only
once its work has taken :data:`DELAY` seconds, so quick steps (the demo, a small folder) print nothing.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import numpy as np

from .errors import InvalidParameterError

__all__ = ["watching", "enabled", "bar", "Steps"]

_T = TypeVar("_T")

#: Seconds of work before a bar appears.
DELAY = 0.5


def in_kernel() -> bool:
    """Whether the code runs in a Jupyter / IPython kernel (an IPython shell with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    if get_ipython is None:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def watching() -> bool:
    """Whether a person is likely watching: stderr is a terminal, or a Jupyter / IPython kernel runs the code."""
    try:
        terminal = bool(sys.stderr is not None and sys.stderr.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stderr
        terminal = False
    return terminal or in_kernel()


def enabled(progress: object, *, name: str = "progress") -> bool:
    """``progress`` (None, True or False) as a decision: None means :func:`watching`.

    Examples
    --------
    >>> enabled(False), enabled(True)
    (False, True)
    """
    if progress is None:
        return watching()
    if isinstance(progress, (bool, np.bool_)):
        return bool(progress)
    raise InvalidParameterError(f"{name} must be None, True or False; got {progress!r} (None shows a bar where a person "
                                "watches: a terminal or a Jupyter kernel).")


def bar(items: Iterable[_T], *, show: bool, desc: str, unit: str = "it", total: int | None = None) -> Iterator[_T]:
    """``items``, with a ``tqdm.auto`` bar on stderr when ``show``; without one, ``items`` as they are."""
    if not show:
        return iter(items)
    return iter(_tqdm()(items, desc=f"evalframe: {desc}", unit=unit, total=total, leave=False, delay=DELAY))


def _tqdm() -> Any:
    """``tqdm.auto.tqdm``; in Jupyter without ipywidgets it is the text bar, without tqdm's warning about it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm
    return tqdm


class Steps:
    """A bar counted by hand (``update(n)``), for work done in batches; does nothing when not ``show``."""

    def __init__(self, *, show: bool, desc: str, total: int, unit: str = "it") -> None:
        self._bar: Any = None
        if show:
            self._bar = _tqdm()(desc=f"evalframe: {desc}", total=total, unit=unit, leave=False, delay=DELAY)

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
