"""Column witnesses: a cheap proof that a column still holds what a cached array was made from.

``EvaluationResult`` prepares key arrays (query codes, ranks, list layouts) once and reuses them.
A user may edit a frame in place (``df["rank"] = ...``, ``.loc`` / ``.iloc`` / ``.at``, a replaced
list cell), so every cached array is kept together with a witness of each column it read, and is
rebuilt as soon as one witness no longer holds. A witness is checked with one vectorised
comparison, never by re-reading the cells:

* numpy numeric / bool columns: a copy of the values, compared bit for bit (a NaN written anew may
  differ in its bits: the entry is then rebuilt, which is harmless);
* object columns: a copy of the column's object array, which keeps every cell object alive (so no
  other object can get its address), and the cells' addresses as a zero-copy view of that copy's
  pointer buffer; the column holds the same content while it holds the same objects at the same
  rows. Strings are immutable; list cells are taken as not mutated in place (replace a cell,
  do not ``.append`` to it: ``docs/metrics.md``);
* Arrow-backed columns (pandas 3's default ``str``): the immutable Arrow array itself, compared by
  identity (an edit makes a new one), else with ``equals``;
* any other dtype: a copy of the values, compared with ``equals``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._addresses import object_addresses
__all__ = ["ColumnWitness", "witness", "holds"]


@dataclass(frozen=True)
class ColumnWitness:
    kind: str  # "absent", "numpy", "object", "arrow", "other"
    dtype: Any = None
    held: Any = None  # the copy / Arrow array the comparison is made against
    pointers: Any = None  # object columns: cell addresses, a view of ``held``'s buffer


_ABSENT = ColumnWitness("absent")
_UNUSABLE = ColumnWitness("unusable")  # e.g. a duplicated column name: never holds, so nothing is reused


def _bits(values: np.ndarray) -> np.ndarray:
    """A numeric / bool array as unsigned ints of the same width, for an exact, NaN-aware comparison."""
    values = np.ascontiguousarray(values)
    if values.dtype.kind == "c":  # complex: two floats per value
        values = values.view(np.dtype(f"f{values.dtype.itemsize // 2}"))
    return values.view(np.dtype(f"u{values.dtype.itemsize}"))


def _column(frame: pd.DataFrame, column: str) -> pd.Series | None:
    if column not in frame.columns:
        return None
    series = frame[column]
    return series if isinstance(series, pd.Series) else None


def witness(frame: pd.DataFrame, column: str) -> ColumnWitness:
    """A witness of ``frame[column]`` as it is now (of its absence, when the frame has no such column)."""
    if column not in frame.columns:
        return _ABSENT
    series = _column(frame, column)
    if series is None:
        return _UNUSABLE
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biufc":
        return ColumnWitness("numpy", dtype, series.to_numpy(copy=True))
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        held = np.array(series.to_numpy(dtype=object), dtype=object, copy=True)
        return ColumnWitness("object", dtype, held, object_addresses(held))
    array = series.array
    if isinstance(array, pd.arrays.ArrowExtensionArray):
        return ColumnWitness("arrow", dtype, array.__arrow_array__())
    return ColumnWitness("other", dtype, array.copy())


def holds(w: ColumnWitness, frame: pd.DataFrame, column: str) -> bool:
    """Whether ``frame[column]`` still has the content ``w`` was taken from."""
    if w.kind == "absent":
        return column not in frame.columns
    series = _column(frame, column)
    if w.kind == "unusable" or series is None or series.dtype != w.dtype or len(series) != len(w.held):
        return False
    if w.kind == "numpy":
        return bool(np.array_equal(_bits(series.to_numpy()), _bits(w.held)))
    if w.kind == "object":
        current = series.to_numpy(dtype=object)  # no copy for an object column
        return bool(np.array_equal(object_addresses(current), w.pointers))
    array = series.array
    if w.kind == "arrow":
        if not isinstance(array, pd.arrays.ArrowExtensionArray):
            return False
        current = array.__arrow_array__()
        return current is w.held or bool(current.equals(w.held))
    return type(array) is type(w.held) and bool(array.equals(w.held))
