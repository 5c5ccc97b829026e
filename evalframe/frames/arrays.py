"""Whole-column helpers that turn list cells and key columns into flat numpy arrays.

Each helper walks a column once (C-level iteration via map/chain); nothing here loops per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ..errors import SchemaError

if TYPE_CHECKING:
    import pyarrow as pa


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
    import pyarrow as pa

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
    import pyarrow as pa
    import pyarrow.compute as pc

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
        import pyarrow.compute as pc

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
    every = positions is None or _is_every_row(positions, len(series))
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
    if isinstance(series.array, pd.arrays.ArrowExtensionArray):  # pyarrow is installed: the column holds Arrow data
        import pyarrow.compute as pc

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


_MIX = np.uint64(0x9E3779B97F4A7C15)
_MISSING_KEY = np.uint64(0x5BD1E9955BD1E995)


def _avalanche(h: np.ndarray, spare: np.ndarray | None = None) -> np.ndarray:
    """splitmix64's finaliser: every input bit reaches every output bit (in place, uint64 wraps; ``spare``: a buffer)."""
    spare = np.empty_like(h) if spare is None else spare
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB), (31, None)):
        np.right_shift(h, np.uint64(shift), out=spare)
        np.bitwise_xor(h, spare, out=h)
        if factor is not None:
            np.multiply(h, np.uint64(factor), out=h)
    return h


#: the mask keeping the first i bytes of an 8-byte little-endian word, for i = 0..8
_BYTE_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(9)], dtype=np.uint64)


def _arrow_string_keys(array: Any, rows: np.ndarray) -> np.ndarray | None:
    """64-bit hashes of the strings (or bytes) at ``rows`` of a one-chunk Arrow array, read from its buffers.

    Every byte enters the hash, 8 at a time (one pass over the rows per 8 bytes of the longest value, in
    reused buffers: few fresh pages), so equal strings get equal keys; None for other types.
    """
    import pyarrow as pa

    if pa.types.is_string(array.type) or pa.types.is_binary(array.type):
        offset_type: Any = np.int32
    elif pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        offset_type = np.int64
    else:
        return None
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type)[array.offset:array.offset + len(array) + 1]
    end = int(offsets[-1])
    if end < 8 or buffers[2] is None:  # a few bytes in all: an 8-byte copy with room to read past the end
        data = np.zeros(16, dtype=np.uint8)
        if buffers[2] is not None and end:
            data[:end] = np.frombuffer(buffers[2], dtype=np.uint8)[:end]
        end = 8
    else:
        data = np.frombuffer(buffers[2], dtype=np.uint8)[:end]
    last = end - 8  # the last byte an 8-byte read may start at
    words = np.ndarray(shape=(last + 1,), dtype="<u8", buffer=data, strides=(1,))  # the 8 bytes from each byte on
    starts = offsets[:-1].astype(np.int64, copy=False)
    lengths = np.diff(offsets).astype(np.int64, copy=False)
    longest = int(lengths.max(initial=0))
    if longest > 65536:
        return None
    n = len(starts)
    keys = lengths.astype(np.uint64)
    keys *= _MIX
    index, word, spare = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64)
    shortest = int(lengths.min(initial=0))
    active: np.ndarray | None = None  # None: every row (a value shorter than ``at`` reads 0 bytes)
    for at in range(0, longest, 8):
        if active is None and at > shortest and 4 * int(np.count_nonzero(lengths > at)) < n:
            active = np.flatnonzero(lengths > at)  # few long values left: only theirs
        elif active is not None:
            active = active[lengths[active] > at]
        rows_at = starts if active is None else starts[active]
        count = len(rows_at)
        idx, got, tmp = index[:count], word[:count], spare[:count]
        np.add(rows_at, at, out=idx)
        tail = int(np.searchsorted(idx, last, side="right")) if active is None else count  # offsets ascend
        if active is not None or tail < count:
            over = np.maximum(idx - last, 0) if active is not None else idx[tail:] - last
            np.minimum(idx, last, out=idx)
            got[...] = words[idx]  # fancy indexing reads the overlapping view in place (np.take would copy it whole)
            shifted = got if active is not None else got[tail:]
            shifted >>= np.minimum(over, 7).astype(np.uint64) * np.uint64(8)  # bytes past the end: read earlier, shifted
        else:
            got[...] = words[idx]  # fancy indexing reads the overlapping view in place (np.take would copy it whole)
        if (shortest if active is None else int(lengths[active].min(initial=at + 8))) < at + 8:
            # values ending in these 8 bytes keep only their own bytes (the buffers are reused: no fresh pages)
            np.subtract(lengths if active is None else lengths[active], at, out=idx)
            np.clip(idx, 0, 8, out=idx)
            np.take(_BYTE_MASKS, idx, out=tmp)
            got &= tmp
        if active is None:
            keys ^= got
            _avalanche(keys, spare)
        else:
            part = keys[active] ^ got
            keys[active] = _avalanche(part, tmp)
    keys = _avalanche(keys, spare)
    return keys if _is_every_row(rows, n) else keys[rows]


def _value_keys(series: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """(64-bit key, missing flag, values) of the rows at ``rows``: equal values get equal keys.

    Values are Arrow strings (keys from the buffers) or Python objects (their ``hash``, which is cached on
    strings); missing values share one key. None for other columns, or cells that cannot be hashed.
    """
    arrow = arrow_array(series)
    if arrow is not None:
        keys = _arrow_string_keys(arrow, rows)
        if keys is None:
            return None
        missing = (arrow.is_null().to_numpy(zero_copy_only=False)[rows] if arrow.null_count
                   else np.zeros(len(rows), dtype=bool))
        keys[missing] = _MISSING_KEY
        return keys, missing, arrow
    values = series.to_numpy()
    if not isinstance(values, np.ndarray) or values.dtype != object:
        return None
    values = values[rows]
    try:
        keys = _avalanche(np.fromiter(map(hash, values), dtype=np.int64, count=len(values)).view(np.uint64))
    except TypeError:  # an unhashable cell: pandas' factorize raises its own error on it
        return None
    missing = pd.isna(values)
    keys[missing] = _MISSING_KEY
    return keys, missing, values


def _values_equal(values: Any, first: np.ndarray, second: np.ndarray, missing: np.ndarray, rows: np.ndarray,
                  is_arrow: bool) -> bool:
    """Whether the values at ``first[i]`` and ``second[i]`` (indices into ``rows``) are equal for every i, as
    pandas' factorize judges them (missing values are all equal)."""
    both_missing = missing[first] & missing[second]
    if (missing[first] != missing[second]).any():
        return False
    first, second = first[~both_missing], second[~both_missing]
    if not len(first):
        return True
    if is_arrow:
        import pyarrow.compute as pc

        equal = pc.equal(values.take(rows[first]), values.take(rows[second]))
        return bool(pc.all(equal).as_py())
    try:
        equal = values[first] == values[second]
    except (TypeError, ValueError):
        return False
    if not isinstance(equal, np.ndarray) or equal.dtype != bool or not set(map(type, values[first])) <= {str}:
        return False  # only strings are taken on trust of ``==``; other cells go through pandas' factorize
    return bool(equal.all())


def first_equal_rows(series: pd.Series, rows: np.ndarray, groups: np.ndarray) -> np.ndarray | None:
    """For each of ``rows`` (positions in ``series``), the first of the rows (an index into ``rows``) of its group
    holding an equal value, as ``pd.factorize`` judges equality (missing values are all equal).

    ``groups`` are non-negative integer group codes per row (e.g. the query of each row); the work is one
    hash per value from the column's buffers (or the strings' cached hashes), a stable sort of (group, key)
    that is nearly sorted when groups are, and an exact comparison of only the rows whose keys repeat within
    their group. None when the column is not one of Arrow strings or Python objects, or (never seen) two
    different values share a key: then the caller hashes the values themselves.
    """
    n = len(rows)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    found = _value_keys(series, rows)
    if found is None:
        return None
    keys, missing, values = found
    group_bits = max(1, int(groups.max()).bit_length())
    if group_bits > 40:
        return None
    combined = (groups.astype(np.uint64) << np.uint64(64 - group_bits)) | (keys >> np.uint64(group_bits))
    order = np.argsort(combined, kind="stable")  # ties keep row order: a run's head is its first row
    ordered = combined[order]
    repeat = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
    first = np.arange(n, dtype=np.int64)
    if not len(repeat):
        return first
    new = np.ones(n, dtype=bool)
    new[repeat] = False
    index = np.arange(n)
    head = order[np.maximum.accumulate(np.where(new, index, 0))[repeat]]
    member = order[repeat]
    if not (groups[head] == groups[member]).all() or not _values_equal(values, head, member, missing, rows,
                                                                       is_arrow=not isinstance(values, np.ndarray)):
        return None
    first[member] = head
    return first
