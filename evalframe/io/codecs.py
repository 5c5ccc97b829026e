"""Column encodings shared by the CSV and Parquet formats (see docs/persistence.md#evalframejson).

Every column is written with one *codec*, recorded in ``evalframe.json`` beside its dtype:

``native``   numbers / bools written as they are, read back with their dtype (floats exactly);
``text``     strings written as they are; an empty cell stands for one recorded value
             (None, NaN or "") because the column holds only one of them;
``literal``  every cell a Python literal (lists, dicts, mixed objects, and text columns whose
             empty cells would be ambiguous); an empty cell is None, ``nan`` is NaN;
``list``     (Parquet only, see :mod:`evalframe.io.parquet`) flat lists of one scalar type, stored natively.

:func:`encode_frame` checks a frame and gives its cells as written plus its manifest entry
(:func:`evalframe.io.csv_render.encode_frame_texts`: the same cells rendered as texts column-wide, in Arrow,
for the CSV writer); :func:`decode_column` turns a text or literal column back, literal cells with
:class:`evalframe.io.literals.LiteralParser`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from .._addresses import object_addresses
from .._validation import few_names, short_repr
from ..columns import LIST_COLUMNS
from ..errors import SaveError, warn
from ..frames.arrays import DistinctLists, object_array
from . import literals
from .literals import is_missing

__all__ = [
    "as_object_column", "by_identity", "check_frame", "check_literal_sizes", "checked_distinct", "decode_column",
    "encode_column", "encode_columns", "encode_frame", "encode_text", "encodes", "first_of_codes", "is_native_dtype",
    "native_spec", "refuse_long_literals", "LoadedColumns", "ColumnsFrame", "kept_column", "kept_lists", "whole_columns",
]

_LITERAL_SCALARS = (str, int, float, bool, bytes, type(None))


def _check_literal(value: Any) -> bool:
    """True when ``repr(value)`` parses back to an equal value with ``ast.literal_eval``."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    if kind in _LITERAL_SCALARS:
        return True
    if kind in (list, tuple, set):
        return all(_check_literal(v) for v in value)
    if kind is dict:
        return all(_check_literal(k) and _check_literal(v) for k, v in value.items())
    return False


def by_identity(values: list[Any] | np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Codes of distinct objects (by identity) and those objects: shared lists are handled once.

    The objects' addresses are read from an object array's buffer (no Python call per cell), else with ``id``.
    """
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        cells = np.ascontiguousarray(values)
        codes, first = first_of_codes(_int64_addresses(cells))
        return codes, cells[first].tolist()
    codes, first = first_of_codes(np.fromiter(map(id, values), dtype=np.int64, count=len(values)))
    return codes, [values[i] for i in first.tolist()]


def first_of_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` codes of int64 ``keys`` (in order of first appearance) and the first position of each code.

    A key equal to the one before it (a query's rows sharing its gold lists) takes that row's code: only the
    first key of each run is hashed.
    """
    count = len(keys)
    starts = np.ones(count, dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    heads = np.flatnonzero(starts)
    head_codes, uniques = pd.factorize(keys[heads] if len(heads) < count else keys, sort=False)
    head_codes = head_codes.astype(np.int64, copy=False)
    first = np.zeros(len(uniques), dtype=np.int64)
    first[head_codes[::-1]] = np.arange(len(head_codes) - 1, -1, -1)  # the last write of a code is its first head
    if len(heads) == count:
        return head_codes, first
    return head_codes[np.cumsum(starts) - 1], heads[first]


def _int64_addresses(cells: np.ndarray) -> np.ndarray:
    """The addresses of a 1-d object array's objects, copied as int64."""
    return object_addresses(cells).astype(np.int64)


def _literal_cells(values: list[Any], *, node: str, column: Hashable) -> np.ndarray:
    """Every cell as a Python literal ('' for None, 'nan' for NaN), each distinct object written once."""
    codes, distinct = checked_distinct(values, node=node, column=column)
    texts = list(map(repr, distinct))  # NaN is written "nan" by repr; None (one object, so one cell) is ""
    ids = list(map(id, distinct))
    if id(None) in ids:
        texts[ids.index(id(None))] = ""
    return object_array(texts)[codes]


def checked_distinct(values: list[Any], *, node: str, column: Hashable) -> tuple[np.ndarray, list[Any]]:
    """The distinct cell objects (by identity) and a code per row; SaveError names a cell that is no literal."""
    codes, distinct = by_identity(values)
    if not _flat_literals(distinct):  # nested or unusual cells: check each distinct one
        for code, value in enumerate(distinct):
            if not (is_missing(value) or _check_literal(value)):
                # located by code, never by comparing values (pd.NA and arrays have no truth value)
                row = int(np.argmax(codes == code)) + 1
                raise SaveError(
                    f"node {node!r}, column {column!r}, row {row}: {short_repr(value)} ({type(value).__name__}) cannot "
                    "be written losslessly (only str, int, finite float, bool, bytes, None and "
                    "lists/tuples/dicts/sets of them can); convert the column, e.g. df[col] = df[col].map(list)."
                )
    return codes, distinct


def encodes(strings: list[str]) -> bool:
    """Whether the texts encode to UTF-8 (no lone surrogates), checked on the whole column at once."""
    try:
        "".join(strings).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _first_unencodable(values: list[Any]) -> int:
    """0-based position of the first text that does not encode to UTF-8 (only called once one is known to)."""
    return next(i for i, v in enumerate(values) if isinstance(v, str) and not encodes([v]))


def _flat_literals(values: list[Any]) -> bool:
    """True when every cell is missing, a literal scalar, or a list of literal scalars (the common case).

    Checked with C-level iteration over the whole column rather than a Python call per cell.
    """
    cell_types = set(map(type, values))
    if not cell_types <= {list, str, int, float, bool, type(None), bytes}:
        return False
    if float in cell_types:
        floats = np.array([v for v in values if type(v) is float])
        if np.isinf(floats).any():  # NaN cells are missing; inf is not a literal
            return False
    lists = values if cell_types == {list} else [v for v in values if type(v) is list]
    elements = list(chain.from_iterable(lists))
    element_types = set(map(type, elements))
    if not element_types <= {str, int, float, bool, type(None), bytes}:
        return False
    if element_types == {float}:
        return bool(np.isfinite(np.array(elements, dtype=np.float64)).all())
    return all(map(math.isfinite, (v for v in elements if type(v) is float)))


def _text_is_safe(strings: list[str]) -> bool:
    """Raw text survives the CSV only without NUL characters and when it encodes to UTF-8."""
    joined = "".join(strings)
    if "\x00" in joined:
        return False
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_native_dtype(dtype: Any) -> bool:
    """Whether a column of this dtype is stored as numbers (codec "native"): numpy bool / int / float and their nullable kinds."""
    return dtype.kind in "biuf" or isinstance(dtype, (pd.BooleanDtype, pd.Float64Dtype, pd.Float32Dtype)) or (
        pd.api.types.is_extension_array_dtype(dtype) and pd.api.types.is_integer_dtype(dtype))


def encode_column(series: pd.Series, *, node: str) -> tuple[list[Any], dict[str, Any]]:
    """The column's cells as written to CSV (Python values), and its manifest entry."""
    if is_native_dtype(series.dtype):
        spec = native_spec(series, node=node)
        missing = series.isna().to_numpy()
        cells = series.astype(object).tolist() if not missing.any() else series.astype(object).where(~missing, None).tolist()
        return cells, spec
    cells, spec = encode_text(series, node=node, literal=lambda values: _literal_cells(values, node=node, column=series.name))
    return (cells.tolist() if isinstance(cells, np.ndarray) else cells), spec


def native_spec(series: pd.Series, *, node: str) -> dict[str, Any]:
    """The manifest entry of a number / bool column (SaveError for a float16 column with missing values)."""
    name, dtype = series.name, series.dtype
    if dtype == np.float16 and series.isna().any():  # pandas' CSV parser cannot read float16 with empty cells
        row = int(np.argmax(series.isna().to_numpy())) + 1
        raise SaveError(
            f"node {node!r}, column {name!r} has dtype float16 and a missing value (row {row}), which CSV "
            "cannot restore; convert it with df[col] = df[col].astype('float32') (exact) or save with "
            "format='parquet'."
        )
    return {"name": name, "dtype": str(dtype), "codec": "native"}


def as_object_column(series: pd.Series) -> pd.Series:
    """An Arrow-backed (``pd.ArrowDtype``) column as the object column it stands for: Python lists, strings, ...
    and None for a missing cell; any other column as it is."""
    if not isinstance(series.dtype, pd.ArrowDtype) or is_native_dtype(series.dtype):
        return series
    return pd.Series(object_array(pa.array(series.array).to_pylist()), index=series.index, name=series.name, dtype=object)


def encode_text(series: pd.Series, *, node: str, literal: Callable[[list[Any]], Any]) -> tuple[Any, dict[str, Any]]:
    """A text or object column's cells (a list of texts, or what ``literal`` makes of the values) and its entry.

    An Arrow-backed column (``pd.ArrowDtype`` lists or strings) is written as its equivalent object column."""
    series = as_object_column(series)
    name = series.name
    dtype = series.dtype
    spec: dict[str, Any] = {"name": name, "dtype": str(dtype)}
    if dtype == object and name in LIST_COLUMNS:  # always literal (a list column's cells are checked as literals)
        spec["codec"] = "literal"
        return literal(series.tolist()), spec
    if isinstance(dtype, pd.StringDtype) or dtype == object:
        missing = series.isna().to_numpy()
        any_missing = bool(missing.any())
        plain = series.astype(object).where(~missing, None) if isinstance(dtype, pd.StringDtype) and any_missing else series
        values = plain.tolist()
        kinds = set(map(type, values))
        if dtype == object and (name in LIST_COLUMNS or not kinds <= {str, type(None), float}
                                or (float in kinds and not all(missing[i] for i, v in enumerate(values) if type(v) is float))):
            spec["codec"] = "literal"
            return literal(values), spec
        present = [v for v, m in zip(values, missing.tolist()) if not m] if any_missing else values
        # Arrow-backed strings are valid UTF-8 by construction; python-backed ones may hold lone surrogates
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "python" and not encodes(present):
            row = _first_unencodable(values) + 1
            raise SaveError(
                f"node {node!r}, column {name!r}, row {row}: {short_repr(values[row - 1])} holds a lone surrogate, "
                f"which a {dtype} column cannot hold once loaded; fix the text (e.g. "
                "s.encode('utf-8', 'replace').decode()) or convert the column with astype(object)."
            )
        none = any(values[i] is None for i in np.flatnonzero(missing).tolist())
        nan = bool(missing.any()) and (isinstance(dtype, pd.StringDtype) or not all(
            values[i] is None for i in np.flatnonzero(missing).tolist()))
        if isinstance(dtype, pd.StringDtype):
            none = False
        has_empty = "" in present
        if (none and nan) or ((none or nan) and has_empty) or not _text_is_safe(present):
            spec["codec"] = "literal"
            return literal(values), spec
        spec["codec"] = "text"
        spec["empty"] = "none" if none else "nan" if nan else "empty"
        return ["" if m else v for v, m in zip(values, missing.tolist())] if any_missing else values, spec
    raise SaveError(
        f"node {node!r}, column {name!r} has dtype {dtype}, which evalframe's CSV format cannot restore; "
        "convert it (e.g. df[col] = df[col].astype(str)) before saving."
    )


def encode_frame(node: str, frame: pd.DataFrame) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """A checked frame's cells as written to CSV (Python values per column) and its manifest entry
    (``file``, ``rows``, ``columns``: one spec per column with its codec); :class:`SaveError` names a cell
    that cannot be written losslessly."""
    return encode_columns(node, frame, encode_column, check_literal_sizes)


def encode_columns(node: str, frame: pd.DataFrame, encode: Callable[..., tuple[Any, dict[str, Any]]],
                   check_sizes: Callable[..., None],
                   encoded: Callable[[str], tuple[Any, dict[str, Any]] | None] | None = None) -> tuple[dict, dict[str, Any]]:
    """A checked frame's columns encoded by ``encode(series, node=...)``, and its manifest entry; each literal
    column's cells are given to ``check_sizes(cells, node=..., column=...)`` (:func:`check_literal_sizes`).
    ``encoded(name)``, when given, is asked first: a column's cells and entry made without its Series, or None."""
    check_frame(node, frame)
    columns, specs = {}, []
    for name in frame.columns:
        made = encoded(name) if encoded is not None else None
        columns[name], spec = made if made is not None else encode(frame[name], node=node)
        if spec["codec"] == "literal":
            check_sizes(columns[name], node=node, column=name)
        specs.append(spec)
    return columns, {"file": f"{node}.csv", "rows": len(frame), "columns": specs}


def check_literal_sizes(cells: list[Any], *, node: str, column: Hashable) -> None:
    """Refuse a literal cell that load would refuse: longer than :data:`~evalframe.io.literals.LITERAL_CELL_LIMIT`
    and not of a shape :func:`~evalframe.io.literals.large_literal` reads (a :class:`SaveError` naming node, column
    and row, before anything is written).

    ``cells`` are a literal column's texts as encoded, one per row (the CSV writer's texts made column-wide:
    :func:`evalframe.io.csv_render.check_text_sizes`); only texts beyond the limit are looked at, each distinct
    one once.
    """
    lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    longer = np.flatnonzero(lengths > literals.LITERAL_CELL_LIMIT)
    first: dict[int, int] = {}  # a cell shared by rows is one text object: checked once, at its first row
    for position in longer.tolist():
        first.setdefault(id(cells[position]), position)
    positions = list(first.values())
    refuse_long_literals(positions, [cells[i] for i in positions], None, node=node, column=column)


def refuse_long_literals(positions: list[int], texts: list[str], codes: np.ndarray | None, *, node: str,
                         column: Hashable) -> None:
    """:class:`SaveError` for the first of ``texts`` (the literal texts at ``positions``, a row each, or with
    ``codes`` (one per row) a distinct text each) that is longer than
    :data:`~evalframe.io.literals.LITERAL_CELL_LIMIT` and that :func:`~evalframe.io.literals.large_literal` does not
    read."""
    for position, text in zip(positions, texts):
        if len(text) <= literals.LITERAL_CELL_LIMIT or literals.large_literal(text) is not literals.UNREADABLE:
            continue
        row = (position if codes is None else int(np.argmax(codes == position))) + 1
        fix = ("give the column one kind of missing value (None, NaN or '') and no NUL character or lone surrogate "
               "(a text that is not valid Unicode), so its texts are written as they are, or shorten the text"
               if text[:1] in "'\"" else "store it as a list of strings or of numbers, or split or shorten it")
        raise SaveError(
            f"node {node!r}, column {column!r}, row {row}: the cell is written as a Python literal of {len(text):,} "
            f"characters, and load reads literals over {literals.LITERAL_CELL_LIMIT:,} characters (1 MiB) only when they are "
            f"lists of strings or JSON-like numbers and lists, so it would refuse this folder. Nothing was written; "
            f"{fix}."
        )


def check_frame(node: str, frame: pd.DataFrame) -> None:
    """What a frame needs to be saved: string, unique, non-empty column names (a warning for a custom index)."""
    if not all(isinstance(c, str) for c in frame.columns):
        bad = [c for c in frame.columns if not isinstance(c, str)]
        raise SaveError(f"node {node!r}: column names must be strings to be saved; got {few_names(bad)}.")
    if "" in frame.columns:
        raise SaveError(f"node {node!r}: a column named '' cannot be saved to CSV (pandas reads it back as "
                        "'Unnamed: N'); rename it.")
    if not encodes(list(frame.columns)):
        bad_name = frame.columns[_first_unencodable(list(frame.columns))]
        raise SaveError(f"node {node!r}: column name {bad_name!r} holds a lone surrogate, which no file can store; "
                        "rename the column.")
    # the dtypes in one Series, not frame[c] per column (which is a frame, without .dtype, for a repeated name)
    sparse = [(c, dtype) for c, dtype in zip(frame.columns, frame.dtypes) if isinstance(dtype, pd.SparseDtype)]
    if sparse:
        raise SaveError(f"node {node!r}, column {sparse[0][0]!r} has sparse dtype {sparse[0][1]}, which "
                        "evalframe cannot restore; convert it with df[col] = df[col].sparse.to_dense().")
    duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
    if duplicated:
        raise SaveError(f"node {node!r}: column names must be unique to be saved; {few_names(duplicated)} repeat.")
    if len(frame.columns) == 0:
        raise SaveError(f"node {node!r}: a frame without columns cannot be saved.")
    if not (isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1):
        warn(f"node {node!r}: the frame's index is not a default RangeIndex; it is not saved "
             "(load gives 0..n-1). Call reset_index() first to keep it as a column.")



def decode_column(path: Path, spec: dict[str, Any], cells: pd.Series) -> tuple[pd.Series, DistinctLists | None]:
    """A text / literal column as written, back to its values and dtype; for an object literal column
    also its distinct values with a code per row (see :class:`DistinctLists`)."""
    name, codec = spec["name"], spec["codec"]
    lists = None
    if codec == "text":
        empty = {"none": None, "nan": math.nan, "empty": ""}[spec.get("empty", "empty")]
        column = cells.astype(object)
        if empty != "":
            column = column.where(column != "", empty)
    else:
        lists = literals.LiteralParser(path, name).distinct_values(cells)
        column = pd.Series(lists.row_values(), index=cells.index, dtype=object)
    if spec["dtype"] == "object":
        return column, lists
    return column.astype(spec["dtype"]), None




class LoadedColumns:
    """A loaded node's columns, each made on demand (a :class:`~evalframe.frames.pending.ColumnSource`).

    ``makers[name]()`` makes column ``name`` exactly as the frame a load built before held it (the loader decoded and
    checked everything at load: making a column raises nothing a load would have raised); ``dtypes`` are the
    columns' dtypes, known without making them; ``lists[name]()`` makes a list column's distinct cells and a code per
    row (:meth:`lists`), from which its column is then made, so the two agree; ``arrow[name]`` is, for a column made
    from the Arrow column it was read as and nothing else, that column, the function that makes the Series of it (or
    of its rows laid out anew: a partitioned load takes its parts' rows in the saved order once, in Arrow) and a key
    of how it makes it (columns of equal keys are made alike);
    ``tables[format](source, node)`` gives what a save
    in ``format`` writes of this node straight from the loaded columns (its columns and manifest entry), or None;
    ``source`` is this object, passed on each call, not held by the maker (which would make a reference cycle: the
    columns kept until the cyclic garbage collector runs, a partition's worth of memory per Dask task);
    ``whole`` is, for a loader that decodes a file's columns together (the CSV reader), the frame of every column but
    the coded list ones (in any order), from which a column and the built frame are taken
    (:meth:`columns_frame`: the frame is put together from its blocks, not column by column).

    Examples
    --------
    >>> import numpy as np
    >>> source = LoadedColumns({"rank": lambda: pd.Series(np.array([1.0, 2.0]))}, {"rank": np.dtype("float64")})
    >>> source.names, source.column("rank").tolist(), source.lists("rank")
    (['rank'], [1.0, 2.0], None)
    """

    def __init__(self, makers: dict[str, Callable[[], pd.Series]], dtypes: dict[str, Any], *,
                 lists: dict[str, Callable[[], DistinctLists]] | None = None,
                 tables: dict[str, Callable[[LoadedColumns, str], Any]] | None = None,
                 arrow: dict[str, tuple[Any, Callable[[Any], pd.Series], str]] | None = None,
                 whole: pd.DataFrame | None = None) -> None:
        self.names: Sequence[str] = list(makers)
        self.whole = whole
        self.arrow = dict(arrow or {})
        self.dtypes = dtypes
        self._makers = makers
        self._lists = dict(lists or {})
        self._coded: dict[str, DistinctLists] = {}
        self.tables = dict(tables or {})

    def lists(self, name: str) -> DistinctLists | None:
        """Column ``name``'s distinct cells and a code per row when the load coded it (made once), else None."""
        coded = self._coded.get(name)
        if coded is None and name in self._lists:
            coded = self._coded[name] = self._lists[name]()
        return coded

    def column(self, name: str) -> pd.Series:
        """Column ``name`` as the loaded frame holds it (a default index, named ``name``)."""
        lists = self.lists(name)
        series = (pd.Series(lists.row_values(), dtype=object, copy=False) if lists is not None
                  else self._makers[name]())
        series.name = name
        return series

    def columns_frame(self, names: Sequence[str]) -> pd.DataFrame | None:
        """The columns ``names`` (in that order) as one frame with a default index, made from :attr:`whole` and the
        coded list columns at once; None without ``whole`` (then each column is made by :meth:`column`).

        Examples
        --------
        >>> whole = pd.DataFrame({"rank": [1, 2], "answer": ["a", "b"]})
        >>> source = LoadedColumns(whole_columns(whole), dict(whole.dtypes), whole=whole)
        >>> source.columns_frame(["answer", "rank"]).to_dict("list")
        {'answer': ['a', 'b'], 'rank': [1, 2]}
        """
        if self.whole is None:
            return None
        wanted = set(names)
        listed = [name for name in names if name in self._lists]
        held = self.whole.columns.tolist()  # (iterating an Index of pandas' str dtype costs ~5 µs a name)
        # the columns of ``whole`` in its own order (its blocks kept whole), then one reorder to ``names``: a reorder
        # splits pandas' object blocks into a block per column, so it is done once
        frame = self.whole.copy(deep=False) if wanted.issuperset(held) else self.whole[
            [name for name in held if name in wanted]]
        if listed:
            cells = {name: cast(DistinctLists, self.lists(name)).row_values() for name in listed}
            frame = pd.concat([frame, pd.DataFrame(cells, index=frame.index, dtype=object, copy=False)], axis=1)
        return frame if list(frame.columns) == list(names) else frame[list(names)]

    def table(self, format: str, node: str) -> Any:
        """What a save in ``format`` writes of the node (named ``node``), made from the loaded columns, or None (then
        the save encodes the node's frame)."""
        make = self.tables.get(format)
        return make(self, node) if make is not None else None


def kept_column(series: pd.Series) -> Callable[[], pd.Series]:
    """A maker of :class:`LoadedColumns` for a column decoded at load: a new Series of its values each time."""
    return partial(pd.Series.copy, series, deep=False)


def whole_columns(whole: pd.DataFrame) -> dict[str, Callable[[], pd.Series]]:
    """The makers of :class:`LoadedColumns` for the columns of ``whole``: each column taken from it when read."""
    return {name: partial(_taken, whole, name) for name in whole.columns.tolist()}


def _taken(whole: pd.DataFrame, name: str) -> pd.Series:
    return whole[name].copy(deep=False)  # a new Series each time, as kept_column's


def kept_lists(lists: DistinctLists) -> Callable[[], DistinctLists]:
    """A list maker of :class:`LoadedColumns` for a list column coded at load."""
    return partial(_same, lists)


def _same(value: DistinctLists) -> DistinctLists:
    return value


class ColumnsFrame:
    """A pending node's columns read as a frame by the CSV encoders (:func:`encode_columns`): ``columns``, ``dtypes``,
    ``index``, ``len`` and ``frame[name]``, each column made when read and not kept (a save writes one at a time).

    Examples
    --------
    >>> import numpy as np
    >>> frame = ColumnsFrame(LoadedColumns({"rank": lambda: pd.Series(np.array([1.0]))}, {"rank": np.dtype("float64")}), 1)
    >>> list(frame.columns), frame["rank"].tolist(), len(frame)
    (['rank'], [1.0], 1)
    """

    def __init__(self, source: LoadedColumns, n_rows: int) -> None:
        self.source = source
        self.columns = pd.Index(list(source.names), dtype="object")
        self.dtypes = pd.Series([source.dtypes[name] for name in source.names], index=self.columns, dtype=object)
        self.index = pd.RangeIndex(n_rows)

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, name: str) -> pd.Series:
        return self.source.column(name)
