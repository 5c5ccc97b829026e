"""The addresses of the objects an object array holds, read from its pointer buffer (no Python call per cell).

Two cells hold the same object exactly when their addresses are equal, while something keeps those objects alive:
the cache witnesses (:mod:`evalframe.frames.witness`), from_trec's layout (:mod:`evalframe.sources.trec`) and the
writers' deduplication of list cells (:mod:`evalframe.io.codecs`) build on that.

>>> import numpy as np
>>> cell = ["a"]
>>> values = np.empty(3, dtype=object); values[:] = [cell, cell, None]
>>> addresses = object_addresses(values)
>>> bool(addresses[0] == addresses[1] == id(cell)), bool(addresses[2] == id(None))
(True, True)
"""

from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["object_addresses"]


def object_addresses(values: np.ndarray) -> np.ndarray:
    """The address of each object of a 1-d object array, as intp: a view of its buffer when it is contiguous.

    The view is valid while ``values`` lives; copy it to keep it longer.
    """
    n = len(values)
    if n and values.flags.c_contiguous:
        return np.ctypeslib.as_array((ctypes.c_ssize_t * n).from_address(values.ctypes.data))
    return np.fromiter(map(id, values), dtype=np.intp, count=n)
