"""Whole-column helpers that turn list cells and key columns into flat numpy arrays.

Each helper walks a column once (C-level iteration via map/chain); nothing here loops per query.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import pandas as pd

from .errors import SchemaError


_LIST_TYPES = (list, tuple, np.ndarray)


def row_label(index: pd.Index, position: int) -> object:
    """The index label of a row as a plain Python value, for messages (numpy 2 reprs np.int64(3))."""
    label = index[position]
    return label.item() if isinstance(label, np.generic) else label


def list_lengths(cells: pd.Series, *, column: str, where: str) -> np.ndarray:
    """Length of every list cell; a cell that is not a list raises SchemaError naming its row.

    Strings are refused (``len("[1.0]")`` would silently count characters).
    """
    if not set(map(type, cells)) <= set(_LIST_TYPES):
        for position, cell in enumerate(cells):
            if not isinstance(cell, _LIST_TYPES):
                raise SchemaError(
                    f"{where}: column {column!r} must hold a list in every row; row {row_label(cells.index, position)!r} "
                    f"holds {cell!r} ({type(cell).__name__}). Parse text cells first (EvaluationResult.load does)."
                )
    return np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))


def flatten_floats(cells: pd.Series, lengths: np.ndarray, *, column: str, where: str) -> np.ndarray:
    """Concatenate the list cells of a column into one float64 array."""
    try:
        return np.fromiter(chain.from_iterable(cells), dtype=np.float64, count=int(lengths.sum()))
    except (TypeError, ValueError):
        for position, cell in enumerate(cells):
            for value in cell:
                try:
                    float(value)
                except (TypeError, ValueError):
                    raise SchemaError(
                        f"{where}: column {column!r} must hold lists of numbers; row {row_label(cells.index, position)!r} "
                        f"holds {cell!r}."
                    ) from None
        raise


def flatten_objects(cells: pd.Series, lengths: np.ndarray) -> np.ndarray:
    """Concatenate list cells into one object array (for ids)."""
    out = np.empty(int(lengths.sum()), dtype=object)
    out[:] = list(chain.from_iterable(cells))
    return out


def segment_positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For lists of the given lengths laid end to end: (owner row of each element, index within its list)."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    index = np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)
    return owner, index


def first_appearance_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes numbering distinct values in order of first appearance, and the distinct values."""
    codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def numeric_column(df: pd.DataFrame, column: str, *, where: str) -> np.ndarray:
    """A column as float64 (None -> NaN); text that is not a number raises SchemaError naming the row."""
    series = df[column]
    try:
        return pd.to_numeric(series, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        converted = pd.to_numeric(series, errors="coerce")
        bad = series[converted.isna() & series.notna()]
        raise SchemaError(
            f"{where}: column {column!r} must be numeric; row {row_label(bad.index, 0)!r} holds {bad.iloc[0]!r}."
        ) from None
