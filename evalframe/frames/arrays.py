"""Whole-column helpers that turn list cells and key columns into flat numpy arrays.

Each helper walks a column once (C-level iteration via map/chain); nothing here loops per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

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

    ``cells`` is an object array of the cells, or an Arrow list array (``pa.list_`` / ``pa.large_list``,
    one chunk; a null is a missing cell): then lengths come from its offsets and the values from its
    values buffer, without a Python object per cell (:meth:`of_rows` of a ``pd.ArrowDtype(pa.list_(...))``
    column gives one).
    """

    codes: np.ndarray  # int64, one per row of the frame
    cells: Any  # object array of the distinct cells (lists, or whatever the column holds), or an Arrow list array

    @classmethod
    def of_rows(cls, series: pd.Series) -> DistinctLists:
        arrow = arrow_array(series)
        if arrow is not None and is_arrow_list(arrow):
            return cls(np.arange(len(arrow), dtype=np.int64), arrow)
        cells = series.to_numpy(dtype=object)
        return cls(np.arange(len(cells), dtype=np.int64), cells)

    def row_values(self) -> np.ndarray:
        """The cell of every row, as an object array (rows with one code share one object)."""
        cells = self.cells if isinstance(self.cells, np.ndarray) else object_array(self.cells.to_pylist())
        return cells[self.codes]


def is_arrow_list(array: Any) -> bool:
    """Whether ``array`` (a pyarrow array) holds lists (``list``, ``large_list``)."""
    return bool(pa.types.is_list(array.type) or pa.types.is_large_list(array.type))


@dataclass
class SelectedLists:
    """The list cells of some rows of a column: the distinct cells they use, their lengths, and a cell per row.

    ``starts`` place each cell in the concatenation of ``cells`` (see :meth:`flat_floats`). ``cells`` is an
    object array, or an Arrow list array when the column is one (:class:`DistinctLists`).
    """

    column: str
    where: str
    rows: np.ndarray  # frame positions of the selected rows
    index: pd.Index  # the frame's index, for messages
    row_cell: np.ndarray  # index into cells per selected row
    cells: Any  # object array of the distinct cells used (or an Arrow list array)
    lengths: np.ndarray  # length per cell
    starts: np.ndarray  # start of each cell in the concatenated cells

    def row_lengths(self) -> np.ndarray:
        return self.lengths[self.row_cell]

    def row_label(self, cell: int) -> object:
        """The index label of the first selected row holding ``cell``."""
        return row_label(self.index, int(self.rows[int(np.argmax(self.row_cell == cell))]))

    def _python_cells(self) -> Any:
        return self.cells if isinstance(self.cells, np.ndarray) else self.cells.to_pylist()

    def flat_floats(self) -> np.ndarray:
        """The cells' values laid end to end, as float64."""
        try:
            if not isinstance(self.cells, np.ndarray):
                return _arrow_floats(self.cells.flatten())
            return np.fromiter(chain.from_iterable(self.cells), dtype=np.float64, count=int(self.lengths.sum()))
        except (TypeError, ValueError):
            for cell, values in enumerate(self._python_cells()):
                for value in values or ():
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
        if not isinstance(self.cells, np.ndarray):
            return object_array(self.cells.flatten().to_pylist())
        return np.fromiter(chain.from_iterable(self.cells), dtype=object, count=int(self.lengths.sum()))

    def row_elements(self) -> tuple[np.ndarray, np.ndarray]:
        """Every element of every selected row: (selected row, index into the flat values)."""
        owner, within = segment_positions(self.row_lengths())
        return owner, self.starts[self.row_cell[owner]] + within


def _arrow_floats(values: Any) -> np.ndarray:
    """An Arrow array of list elements as float64 (missing: NaN, as numpy makes of None); TypeError for text."""
    if pa.types.is_null(values.type):
        return np.full(len(values), np.nan)
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type) or pa.types.is_boolean(values.type)):
        raise TypeError(f"list elements of type {values.type}")
    return np.asarray(pc.cast(values, pa.float64(), safe=False).to_numpy(zero_copy_only=False), dtype=np.float64)


def _bad_cell(lists: SelectedLists, cells: Any, missing_as_empty: bool) -> None:
    """Raise SchemaError naming the first selected row whose cell is not a list."""
    for cell, value in enumerate(cells):
        if not isinstance(value, _LIST_TYPES) and not (missing_as_empty and _is_missing(value)):
            raise SchemaError(
                f"{lists.where}: column {lists.column!r} must hold a list in every row; row {lists.row_label(cell)!r} "
                f"holds {value!r} ({type(value).__name__}). Parse text cells first (EvaluationResult.load does)."
            )


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def select_lists(lists: DistinctLists, positions: np.ndarray, index: pd.Index, *, column: str, where: str,
                 missing_as_empty: bool = False) -> SelectedLists:
    """The list cells of the rows at ``positions``; a cell that is not a list raises SchemaError naming its row.

    Strings are refused (``len("[1.0]")`` would silently count characters). With ``missing_as_empty``,
    None / NaN cells count as empty lists.
    """
    row_codes = lists.codes[positions]
    n_cells = len(lists.cells)
    used = np.zeros(n_cells, dtype=bool)
    used[row_codes] = True
    every = bool(used.all())
    if every:  # every cell is used (every row its own cell, all rows selected): no renumbering, no copy
        row_cell = row_codes
        cells = lists.cells
    else:
        renumber = np.cumsum(used) - 1
        row_cell = renumber[row_codes]
        cells = lists.cells[used] if isinstance(lists.cells, np.ndarray) else lists.cells.filter(used)
    selected = SelectedLists(column, where, positions, index, row_cell, cells, np.zeros(0, dtype=np.int64),
                             np.zeros(0, dtype=np.int64))
    if isinstance(cells, np.ndarray):
        if missing_as_empty:
            missing = np.flatnonzero(pd.isna(pd.Series(cells, dtype=object)).to_numpy())
            if len(missing):
                if every:
                    cells = selected.cells = cells.copy()  # replacing entries below leaves the shared cells alone
                cells[missing] = object_array([[]] * len(missing))  # one shared empty list, never changed
        if not set(map(type, cells)) <= set(_LIST_TYPES):
            _bad_cell(selected, cells, missing_as_empty=False)
        selected.lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    else:
        if cells.null_count and not missing_as_empty:
            _bad_cell(selected, cells.to_pylist(), missing_as_empty=False)
        selected.lengths = np.asarray(pc.fill_null(pc.list_value_length(cells), 0).to_numpy(zero_copy_only=False),
                                      dtype=np.int64)
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

    The values are an object array, or with ``objects=False`` the array pandas' factorize gives for the column's
    array (Arrow-backed strings stay in Arrow: no Python string is made for them). See :func:`coded_values`.
    """
    codes, uniques, _ = coded_values(series, positions, objects=objects)
    return codes, uniques


def coded_values(series: pd.Series, positions: np.ndarray | None = None, *,
                 objects: bool = True) -> tuple[np.ndarray, Any, np.ndarray]:
    """:func:`first_appearance_codes`, and the first row (an index into ``positions``) of each code.

    Equal values usually come in runs (a query's rows are contiguous), so only the first value of each run
    of equal neighbours is hashed: one vectorised comparison of neighbours finds the runs (:func:`run_starts`),
    and equal values of different runs still get one code from the factorize of the runs' first values. The
    codes and values are those of ``pd.factorize(values, sort=False, use_na_sentinel=False)`` for any row
    order (a missing value always starts a run; pandas' factorize gives every missing value one code).
    """
    every = positions is None or is_every_row(positions, len(series))
    picked = cast(np.ndarray, positions)  # used only when not every row is
    n = len(series) if every else len(picked)
    heads = None
    if every or 4 * n >= len(series):  # neighbours compared in the whole column (no copy of the selected rows)
        starts = run_starts(series)
        if starts is not None and not every:
            starts = starts[picked]
            if n:
                starts[1:] |= np.diff(picked) != 1  # rows not next to each other in the column: a new run
                starts[0] = True
        if starts is not None:
            heads = np.flatnonzero(starts)
            head_rows = heads if every else picked[heads]
            values = series
    else:
        values = series.iloc[picked]
        starts = run_starts(values)
        if starts is not None:
            heads = head_rows = np.flatnonzero(starts)
    if heads is None or 2 * len(heads) > n:  # few runs of equal neighbours: hash every row
        selected = series if every else series.iloc[picked]
        codes, uniques = _factorize(selected.array)
        codes = codes.astype(np.int64, copy=False)
        first = first_rows(codes)
    else:
        head_codes, uniques = _factorize(values.array.take(head_rows))
        head_codes = head_codes.astype(np.int64, copy=False)
        codes = np.repeat(head_codes, np.diff(np.append(heads, n)))
        first = heads[first_rows(head_codes)]
    return codes, (np.asarray(uniques, dtype=object) if objects else uniques), first


def _factorize(array: Any) -> tuple[np.ndarray, Any]:
    """``pd.factorize`` of a column's values as the column's own factorize does it, uniques as an array (no Index).

    numpy-backed values are factorized as their ndarray (what a Series of them does: None and NaN get one code).
    """
    if isinstance(array, pd.arrays.NumpyExtensionArray):
        return pd.factorize(array.to_numpy(), sort=False, use_na_sentinel=False)
    if isinstance(array, pd.arrays.ArrowExtensionArray):
        return array.factorize(use_na_sentinel=False)  # pd.factorize calls this, without sorting
    codes, uniques = pd.factorize(pd.Series(array, copy=False), sort=False, use_na_sentinel=False)
    return codes, uniques.array


def arrow_array(series: pd.Series) -> pa.Array | None:
    """The one-chunk Arrow array of an Arrow-backed column (pandas 3's ``str``, ``pd.ArrowDtype``), else None.

    The array is a view of the column's buffers when the column has one chunk (a copy of them otherwise).
    """
    array = series.array
    if not isinstance(array, pd.arrays.ArrowExtensionArray):
        return None
    chunked = array.__arrow_array__()
    return chunked.combine_chunks() if hasattr(chunked, "combine_chunks") else chunked


def run_starts(series: pd.Series) -> np.ndarray | None:
    """True where a row's value differs from the row before it, or either is missing (the first row: True).

    None when the values cannot be compared as a whole column (e.g. cells that compare elementwise);
    then every row must be hashed. Rows marked False hold a value equal to the previous row's.
    """
    n = len(series)
    starts = np.ones(n, dtype=bool)
    if n < 2:
        return starts
    if isinstance(series.array, pd.arrays.ArrowExtensionArray):  # the column holds Arrow data
        arrow = series.array.__arrow_array__()  # chunked: compared chunk piece by chunk piece, not combined
        try:
            differ = pc.fill_null(pc.not_equal(arrow[1:], arrow[:-1]), True)
        except (NotImplementedError, TypeError, ValueError):  # a type without a comparison kernel (lists, structs)
            return None
        starts[1:] = differ.to_numpy(zero_copy_only=False)
        return starts
    try:
        values = series.to_numpy()
        if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind not in "biufcOUSmM":
            return None
        with np.errstate(invalid="ignore"):
            differ = values[1:] != values[:-1]
        if not isinstance(differ, np.ndarray) or differ.dtype != bool or differ.shape != (n - 1,):
            return None
        starts[1:] = differ
        if values.dtype.kind in "fcOmM":  # NaN / None / NaT never continue a run (pandas gives them one code)
            missing = pd.isna(values)
            starts[1:] |= missing[1:] | missing[:-1]
        return starts
    except (TypeError, ValueError):
        return None


def is_every_row(positions: np.ndarray, n_rows: int) -> bool:
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
