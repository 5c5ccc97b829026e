"""Whole-column helpers that turn list cells and key columns into flat numpy arrays.

Each helper walks a column once (C-level iteration via map/chain); nothing here loops per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SchemaError


_LIST_TYPES = (list, tuple, np.ndarray)


def object_array(values: list[Any]) -> np.ndarray:
    """A 1-d object array of ``values``: lists stay cells (``np.array`` would build a 2-d array)."""
    return np.fromiter(values, dtype=object, count=len(values))


def row_label(index: pd.Index, position: int) -> object:
    """The index label of a row as a plain Python value, for messages (numpy 2 reprs np.int64(3))."""
    label = index[position]
    return label.item() if isinstance(label, np.generic) else label


@dataclass(frozen=True)
class DistinctLists:
    """A list column as its distinct cells and, per row, the code of the row's cell.

    Rows with one code hold equal lists, so per-cell work (lengths, flattening) is done once per
    distinct cell and spread to the rows with numpy indexing. Loaders build it while parsing (equal
    texts are parsed once); :meth:`of_rows` makes every row its own cell.
    """

    codes: np.ndarray  # int64, one per row of the frame
    cells: np.ndarray  # object array of the distinct cells (lists, or whatever the column holds)

    @classmethod
    def of_rows(cls, series: pd.Series) -> DistinctLists:
        cells = series.to_numpy(dtype=object)
        return cls(np.arange(len(cells), dtype=np.int64), cells)

    def row_values(self) -> np.ndarray:
        """The cell of every row, as an object array (rows with one code share one object)."""
        return self.cells[self.codes]


@dataclass
class SelectedLists:
    """The list cells of some rows of a column: the distinct cells they use, their lengths, and a cell per row.

    ``starts`` place each cell in the concatenation of ``cells`` (see :meth:`flat_floats`).
    """

    column: str
    where: str
    rows: np.ndarray  # frame positions of the selected rows
    index: pd.Index  # the frame's index, for messages
    row_cell: np.ndarray  # index into cells per selected row
    cells: np.ndarray  # object array of the distinct cells used
    lengths: np.ndarray  # length per cell
    starts: np.ndarray  # start of each cell in the concatenated cells

    def row_lengths(self) -> np.ndarray:
        return self.lengths[self.row_cell]

    def row_label(self, cell: int) -> object:
        """The index label of the first selected row holding ``cell``."""
        return row_label(self.index, int(self.rows[int(np.argmax(self.row_cell == cell))]))

    def flat_floats(self) -> np.ndarray:
        """The cells' values laid end to end, as float64."""
        try:
            return np.fromiter(chain.from_iterable(self.cells), dtype=np.float64, count=int(self.lengths.sum()))
        except (TypeError, ValueError):
            for cell, values in enumerate(self.cells):
                for value in values:
                    try:
                        float(value)
                    except (TypeError, ValueError):
                        raise SchemaError(
                            f"{self.where}: column {self.column!r} must hold lists of numbers; row "
                            f"{self.row_label(cell)!r} holds {values!r}."
                        ) from None
            raise

    def flat_objects(self) -> np.ndarray:
        """The cells' values laid end to end, as an object array (for ids)."""
        return np.fromiter(chain.from_iterable(self.cells), dtype=object, count=int(self.lengths.sum()))

    def row_elements(self) -> tuple[np.ndarray, np.ndarray]:
        """Every element of every selected row: (selected row, index into the flat values)."""
        owner, within = segment_positions(self.row_lengths())
        return owner, self.starts[self.row_cell[owner]] + within


def select_lists(lists: DistinctLists, positions: np.ndarray, index: pd.Index, *, column: str, where: str,
                 missing_as_empty: bool = False) -> SelectedLists:
    """The list cells of the rows at ``positions``; a cell that is not a list raises SchemaError naming its row.

    Strings are refused (``len("[1.0]")`` would silently count characters). With ``missing_as_empty``,
    None / NaN cells count as empty lists.
    """
    row_codes = lists.codes[positions]
    used = np.zeros(len(lists.cells), dtype=bool)
    used[row_codes] = True
    renumber = np.cumsum(used) - 1
    cells = lists.cells[used]  # a copy: replacing entries below leaves the shared cells alone
    selected = SelectedLists(column, where, positions, index, renumber[row_codes], cells,
                             np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if missing_as_empty:
        for missing in np.flatnonzero(pd.isna(pd.Series(cells, dtype=object)).to_numpy()):
            cells[missing] = []
    if not set(map(type, cells)) <= set(_LIST_TYPES):
        for cell, value in enumerate(cells):
            if not isinstance(value, _LIST_TYPES):
                raise SchemaError(
                    f"{where}: column {column!r} must hold a list in every row; row {selected.row_label(cell)!r} "
                    f"holds {value!r} ({type(value).__name__}). Parse text cells first (EvaluationResult.load does)."
                )
    selected.lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    selected.starts = np.cumsum(selected.lengths) - selected.lengths
    return selected


def segment_positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For lists of the given lengths laid end to end: (owner row of each element, index within its list)."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    index = np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)
    return owner, index


def first_appearance_codes(series: pd.Series, positions: np.ndarray | None = None, *,
                           objects: bool = True) -> tuple[np.ndarray, Any]:
    """Codes numbering the distinct values (of the rows at ``positions``) in order of first appearance, and those values.

    The values are an object array, or with ``objects=False`` as pandas' factorize gives them (Arrow-backed
    strings stay in Arrow: no Python string is made for them).
    """
    values = series if positions is None or _is_every_row(positions, len(series)) else series.iloc[positions]
    codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), (np.asarray(uniques, dtype=object) if objects else uniques)


def _is_every_row(positions: np.ndarray, n_rows: int) -> bool:
    """Whether ``positions`` are 0, 1, ..., n_rows - 1 (then no row selection is needed)."""
    return len(positions) == n_rows and (n_rows == 0 or (positions[0] == 0 and positions[-1] == n_rows - 1
                                                          and bool((np.diff(positions) == 1).all())))


def first_rows(codes: np.ndarray) -> np.ndarray:
    """The row where each code first appears, for codes numbered in order of first appearance (code c: entry c)."""
    # such a code's first row is where it exceeds every code before it
    return np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)


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
