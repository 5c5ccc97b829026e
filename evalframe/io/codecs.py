"""Column encodings shared by the CSV and Parquet formats (see docs/persistence.md#evalframejson).

Every column is written with one *codec*, recorded in ``evalframe.json`` beside its dtype:

``native``   numbers / bools written as they are, read back with their dtype (floats exactly);
``text``     strings written as they are; an empty cell stands for one recorded value
             (None, NaN or "") because the column holds only one of them;
``literal``  every cell a Python literal (lists, dicts, mixed objects, and text columns whose
             empty cells would be ambiguous); an empty cell is None, ``nan`` is NaN;
``list``     (Parquet only, see :mod:`evalframe.io.parquet`) flat lists of one scalar type, stored natively.

:func:`encode_frame` checks a frame and gives its cells as written plus its manifest entry
(:func:`encode_frame_texts`: the same cells rendered as texts column-wide, in Arrow, for the CSV writer);
:func:`decode_column` turns a text or literal column back. :class:`LiteralParser` reads literal cells
(each distinct text once, with JSON and string-list fast paths; cells beyond :data:`LITERAL_CELL_LIMIT`
are read only when they are lists of strings or JSON-like, see docs/persistence.md#loading).
"""

from __future__ import annotations

import ast
import functools
import gc
import json
import math
import re
import threading
from dataclasses import dataclass
from collections.abc import Callable, Hashable
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._addresses import object_addresses
from .._validation import few_names, short_repr
from . import arrow_csv
from ..columns import LIST_COLUMNS
from ..errors import LoadError, SaveError, warn
from ..frames.arrays import DistinctLists, object_array

__all__ = [
    "LITERAL_CELL_LIMIT", "LiteralParser", "TextColumn", "UNREADABLE", "as_object_column", "by_identity", "check_frame",
    "check_literal_sizes", "decode_column", "large_literal",
    "encode_column", "encode_frame", "encode_frame_texts", "encodes", "render_literals", "is_native_dtype", "short_repr",
    "string_list",
]

_MISSING_TOKENS = {"": None, "nan": math.nan}
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


#: One thread at a time builds a syntax tree: CPython 3.11's AST constructor keeps its recursion depth in state
#: the threads share, and two threads parsing at once (a load on a Dask worker with several threads) can fail
#: with "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905). literal_eval holds the GIL
#: for nearly all its work, so the lock costs no parallelism.
_SYNTAX_TREE_LOCK = threading.Lock()


def literal_eval(text: str) -> Any:
    """:func:`ast.literal_eval`, one thread at a time (see ``_SYNTAX_TREE_LOCK``)."""
    with _SYNTAX_TREE_LOCK:
        return ast.literal_eval(text)


def _is_missing(value: Any) -> bool:
    return value is None or (type(value) is float and math.isnan(value))


def by_identity(values: list[Any] | np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Codes of distinct objects (by identity) and those objects: shared lists are handled once.

    The objects' addresses are read from an object array's buffer (no Python call per cell), else with ``id``.
    """
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        cells = np.ascontiguousarray(values)
        codes, first = _first_of_codes(_int64_addresses(cells))
        return codes, cells[first].tolist()
    codes, first = _first_of_codes(np.fromiter(map(id, values), dtype=np.int64, count=len(values)))
    return codes, [values[i] for i in first.tolist()]


def _first_of_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    codes, distinct = _checked_distinct(values, node=node, column=column)
    texts = list(map(repr, distinct))  # NaN is written "nan" by repr; None (one object, so one cell) is ""
    ids = list(map(id, distinct))
    if id(None) in ids:
        texts[ids.index(id(None))] = ""
    return object_array(texts)[codes]


def _checked_distinct(values: list[Any], *, node: str, column: Hashable) -> tuple[np.ndarray, list[Any]]:
    """The distinct cell objects (by identity) and a code per row; SaveError names a cell that is no literal."""
    codes, distinct = by_identity(values)
    if not _flat_literals(distinct):  # nested or unusual cells: check each distinct one
        for code, value in enumerate(distinct):
            if not (_is_missing(value) or _check_literal(value)):
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
        spec = _native_spec(series, node=node)
        missing = series.isna().to_numpy()
        cells = series.astype(object).tolist() if not missing.any() else series.astype(object).where(~missing, None).tolist()
        return cells, spec
    cells, spec = _encode_text(series, node=node, literal=lambda values: _literal_cells(values, node=node, column=series.name))
    return (cells.tolist() if isinstance(cells, np.ndarray) else cells), spec


def _native_spec(series: pd.Series, *, node: str) -> dict[str, Any]:
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
    import pyarrow as pa

    return pd.Series(object_array(pa.array(series.array).to_pylist()), index=series.index, name=series.name, dtype=object)


def _encode_text(series: pd.Series, *, node: str, literal: Callable[[list[Any]], Any]) -> tuple[Any, dict[str, Any]]:
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
    return _encode(node, frame, encode_column)


@dataclass(frozen=True)
class TextColumn:
    """One column's cells as the texts a CSV file holds, made column-wide (:func:`encode_frame_texts`).

    ``values`` is an Arrow ``large_string`` array (or chunked array): ``str`` of a number, the text of a text
    cell, ``repr`` of a literal cell ('' for None); one text per row, or, with ``codes`` (int64, one per row),
    one per distinct cell, row ``i`` holding ``values[codes[i]]`` (-1: null), laid out a batch of rows at a
    time by the writer (:meth:`rows`). ``numeric`` columns hold number texts, written unquoted under ``csv.QUOTE_NONNUMERIC``;
    their missing cells are nulls, written as a quoted empty cell as the csv module writes None.
    """

    values: Any
    numeric: bool
    codes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.values) if self.codes is None else len(self.codes)

    def rows(self, start: int = 0, stop: int | None = None) -> Any:
        """The texts of rows ``start`` to ``stop`` (all rows by default), one per row, as one Arrow array."""
        stop = len(self) if stop is None else min(stop, len(self))
        if self.codes is None:
            return _whole(self.values.slice(start, max(stop - start, 0)))
        pa, _ = _arrow()
        codes = self.codes[start:stop]
        missing = codes < 0  # a missing number: null
        return _whole(self.values).take(pa.array(codes, mask=missing if missing.any() else None))

    @property
    def texts(self) -> Any:
        """The text of every row."""
        return self.rows()


def encode_frame_texts(node: str, frame: pd.DataFrame) -> tuple[dict[str, TextColumn], dict[str, Any]]:
    """What :func:`encode_frame` gives, with each column's cells rendered as texts column-wide (needs pyarrow).

    The texts are those the csv module writes for :func:`encode_frame`'s cells (``str`` of numbers,
    ``repr`` of literals): numbers and list elements are formatted once per distinct value (floats per bit
    pattern), lists, tuples and dicts are assembled from their elements' texts with Arrow's string joins,
    and text columns stay in Arrow. The manifest entry is the same.
    """
    return _encode(node, frame, _encode_column_texts)


def _encode(node: str, frame: pd.DataFrame, encode: Callable[..., tuple[Any, dict[str, Any]]]) -> tuple[dict, dict[str, Any]]:
    """A checked frame's columns encoded by ``encode(series, node=...)``, and its manifest entry."""
    check_frame(node, frame)
    columns, specs = {}, []
    for name in frame.columns:
        columns[name], spec = encode(frame[name], node=node)
        if spec["codec"] == "literal":
            check_literal_sizes(columns[name], node=node, column=name)
        specs.append(spec)
    return columns, {"file": f"{node}.csv", "rows": len(frame), "columns": specs}


def check_literal_sizes(cells: list[Any] | TextColumn, *, node: str, column: Hashable) -> None:
    """Refuse a literal cell that load would refuse: longer than :data:`LITERAL_CELL_LIMIT` and not of a shape
    :func:`large_literal` reads (a :class:`SaveError` naming node, column and row, before anything is written).

    ``cells`` are a literal column's texts as encoded (one per row, or a :class:`TextColumn`); only texts beyond
    the limit are looked at, each distinct one once.
    """
    if isinstance(cells, TextColumn):
        pa, pc = _arrow()
        # bytes bound characters from above: only texts of more bytes than the limit can hold more characters
        sizes = pc.binary_length(cells.values).fill_null(0).to_numpy(zero_copy_only=False)
        longer = np.flatnonzero(sizes > LITERAL_CELL_LIMIT)
        texts = cells.values.take(pa.array(longer)).to_pylist() if len(longer) else []
        codes = cells.codes
    else:
        lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
        longer = np.flatnonzero(lengths > LITERAL_CELL_LIMIT)
        first: dict[int, int] = {}  # a cell shared by rows is one text object: checked once, at its first row
        for position in longer.tolist():
            first.setdefault(id(cells[position]), position)
        longer = np.array(list(first.values()), dtype=np.int64)
        texts = [cells[i] for i in longer.tolist()]
        codes = None
    for position, text in zip(longer.tolist(), texts):
        if len(text) <= LITERAL_CELL_LIMIT or large_literal(text) is not UNREADABLE:
            continue
        row = (position if codes is None else int(np.argmax(codes == position))) + 1
        fix = ("give the column one kind of missing value (None, NaN or '') and no NUL character or lone surrogate "
               "(a text that is not valid Unicode), so its texts are written as they are, or shorten the text"
               if text[:1] in "'\"" else "store it as a list of strings or of numbers, or split or shorten it")
        raise SaveError(
            f"node {node!r}, column {column!r}, row {row}: the cell is written as a Python literal of {len(text):,} "
            f"characters, and load reads literals over {LITERAL_CELL_LIMIT:,} characters (1 MiB) only when they are "
            f"lists of strings or JSON-like numbers and lists, so it would refuse this folder. Nothing was written; "
            f"{fix}."
        )


def _encode_column_texts(series: pd.Series, *, node: str) -> tuple[TextColumn, dict[str, Any]]:
    pa, pc = _arrow()
    dtype = series.dtype
    if is_native_dtype(dtype):
        spec = _native_spec(series, node=node)
        if dtype.kind == "f":  # float16 / float32 widen exactly: their values print as the csv module prints them
            texts, codes = _float_codes(series.to_numpy(dtype=np.float64, na_value=np.nan), series.isna().to_numpy())
            return TextColumn(texts, True, codes), spec
        return TextColumn(_number_texts(series), True), spec
    if isinstance(dtype, pd.ArrowDtype):  # Arrow lists rendered from their values; else as the equivalent object column
        texts = _arrow_list_texts(pa.array(series.array))
        if texts is not None:
            return TextColumn(texts, False), {"name": series.name, "dtype": "object", "codec": "literal"}
        series, dtype = as_object_column(series), np.dtype(object)
    if dtype == object and series.name in LIST_COLUMNS:  # always literal, as _encode_text writes them
        spec = {"name": series.name, "dtype": str(dtype), "codec": "literal"}
        return _literal_column(series.to_numpy(dtype=object), node=node, column=series.name), spec
    if isinstance(dtype, pd.StringDtype) and dtype.storage in ("pyarrow", "pyarrow_numpy"):
        # Arrow strings (valid UTF-8): text unless an empty text and a missing value (or a NUL) need the literal codec
        texts = pa.array(series.array).cast(pa.large_string())  # chunks are combined a batch at a time by the writer
        ambiguous = texts.null_count and pc.any(pc.equal(texts, "")).as_py() is True
        if not ambiguous and pc.any(pc.match_substring(texts, "\x00")).as_py() is not True:
            spec = {"name": series.name, "dtype": str(dtype), "codec": "text", "empty": "nan" if texts.null_count else "empty"}
            return TextColumn(texts.fill_null(""), False), spec
    cells, spec = _encode_text(series, node=node, literal=lambda values: _literal_texts(values, node=node, column=series.name))
    if not isinstance(cells, pa.Array):
        cells = pa.array(cells, type=pa.large_string())
    return TextColumn(cells, False), spec


def _arrow() -> tuple[Any, Any]:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa, pc


def _whole(array: Any) -> Any:
    """One Arrow array (a chunked array's chunks combined)."""
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


def _number_texts(series: pd.Series) -> Any:
    """``str`` of every number or bool of a native column (null where it is missing), column-wide."""
    pa, _ = _arrow()
    dtype = series.dtype
    missing = series.isna().to_numpy()
    mask = missing if missing.any() else None
    if dtype.kind == "b":
        flags = series.to_numpy(dtype=bool, na_value=False)
        return pa.array(np.where(flags, "True", "False"), type=pa.large_string(), mask=mask)
    if dtype.kind == "f":  # float16 / float32 widen exactly: their values print as the csv module prints them
        return _float_texts(series.to_numpy(dtype=np.float64, na_value=np.nan), mask)
    if isinstance(dtype, np.dtype):
        return pa.array(series.to_numpy(), mask=mask).cast(pa.large_string())
    return _whole(pa.array(series.array)).cast(pa.large_string())  # nullable and Arrow integers: NA is null


def _float_texts(values: np.ndarray, mask: np.ndarray | None = None) -> Any:
    """``repr`` of each float (null where ``mask``), computed once per distinct bit pattern (0.0 and -0.0 differ)."""
    pa, _ = _arrow()
    texts, codes = _float_codes(values, mask)
    return texts.take(pa.array(codes, mask=codes < 0))


def _float_codes(values: np.ndarray, mask: np.ndarray | None = None) -> tuple[Any, np.ndarray]:
    """``repr`` of each distinct float bit pattern (0.0 and -0.0 differ) and a code per value (-1 where ``mask``)."""
    pa, _ = _arrow()
    bits = np.ascontiguousarray(values).view(np.int64)
    codes, first = _first_of_codes(bits)
    if mask is not None and mask.any():
        codes = codes.copy() if codes.base is not None else codes
        codes[mask] = -1
    return pa.array(list(map(repr, bits[first].view(np.float64).tolist())), type=pa.large_string()), codes


def _literal_column(cells: np.ndarray, *, node: str, column: Hashable) -> TextColumn:
    """Every cell of an object column as a Python literal, as :func:`_literal_texts` gives them: the texts of its
    distinct cell objects and a code per row (none when every row holds its own object).

    The cells' addresses are read from the object array's buffer, so sharing costs one hash of 8-byte keys;
    only the distinct cells are rendered, and the rows are laid out by the writer a batch at a time.
    """
    codes, distinct = by_identity(cells)
    texts = _flat_list_texts(distinct)
    if texts is None:
        texts, codes = _checked_literal_texts(cells.tolist(), node=node, column=column)
    return TextColumn(texts, False, None if len(texts) == len(cells) else codes)


def _literal_texts(values: list[Any], *, node: str, column: Hashable) -> Any:
    """Every cell as a Python literal ('' for None, 'nan' for NaN), as :func:`_literal_cells` gives them, in Arrow.

    Flat lists of floats, of ints or of strings (the list columns of an evaluation) are converted by Arrow
    in one pass and their elements formatted column-wide; any other column is checked cell by cell
    (:func:`_checked_distinct` names a bad cell) and rendered by :func:`render_literals`. Cells shared by
    rows (a query's gold lists) are rendered once.
    """
    pa, pc = _arrow()
    sample = values[:_SHARING_SAMPLE]
    shared = len(set(map(id, sample))) <= len(sample) // 2
    codes, distinct = by_identity(values) if shared else (None, values)
    texts = _flat_list_texts(distinct)
    if texts is None:
        texts, codes = _checked_literal_texts(values, node=node, column=column)
    return texts if codes is None else texts.take(pa.array(codes))


def _checked_literal_texts(values: list[Any], *, node: str, column: Hashable) -> tuple[Any, np.ndarray]:
    """The texts of the distinct cells (each checked, :func:`_checked_distinct`) rendered by :func:`render_literals`
    ('' for None), and a code per row."""
    pa, pc = _arrow()
    codes, distinct = _checked_distinct(values, node=node, column=column)
    texts = render_literals(distinct)
    none = np.fromiter(map(id, distinct), dtype=np.int64, count=len(distinct)) == id(None)
    if none.any():  # None (one object, so one distinct cell) is an empty cell
        texts = pc.if_else(pa.array(none), pa.scalar("", pa.large_string()), texts)
    return texts, codes


#: How many leading cells tell whether a column's cells are shared between rows.
_SHARING_SAMPLE = 2000
_NONE = type(None)
#: Strings whose repr is the string between single quotes: printable ASCII without ' and \.
_PLAIN_ASCII = r"^[\x20-\x26\x28-\x5b\x5d-\x7e]*$"


def _flat_list_texts(cells: list[Any]) -> Any:
    """``repr`` of cells that are all lists (or None: '') of floats, of ints or of strings, else None.

    One pass checks the element types, Arrow converts the lists, the elements are formatted column-wide
    (floats once per bit pattern) and joined; a NaN or inf element (not a literal) returns None, so the
    caller's check names it.
    """
    pa, pc = _arrow()
    cell_types = set(map(type, cells))
    if not cell_types <= {list, _NONE}:
        return None
    lists = cells if _NONE not in cell_types else [cell for cell in cells if cell is not None]
    element_types = set(map(type, chain.from_iterable(lists)))
    try:
        if element_types <= {float}:
            array = pa.array(cells, type=pa.large_list(pa.float64()))
            numbers = array.values.to_numpy(zero_copy_only=False)
            if not np.isfinite(numbers).all():
                return None
            elements = _float_texts(numbers)
        elif element_types == {int}:
            array = pa.array(cells, type=pa.large_list(pa.int64()))
            elements = array.values.cast(pa.large_string())
        elif element_types == {str}:
            array = pa.array(cells, type=pa.large_list(pa.large_string()))
            elements = _string_texts(array.values)
        else:
            return None
    except (OverflowError, UnicodeError, pa.ArrowException):  # ints beyond int64, lone surrogates
        return None
    joined = pc.binary_join(pa.LargeListArray.from_arrays(array.offsets, elements), pa.scalar(", ", pa.large_string()))
    texts = _wrap(joined, "[", "]")
    if array.null_count:
        texts = pc.if_else(array.is_null(), pa.scalar("", pa.large_string()), texts)
    return texts


def _arrow_list_texts(column: Any) -> Any:
    """``repr`` of the cells of an Arrow list array of floats, ints, bools or strings ('' for a missing cell),
    rendered from its values, as :func:`_flat_list_texts` renders the equivalent Python lists; None for any
    other array, or when an element is missing or not finite (the equivalent object column is then checked)."""
    pa, pc = _arrow()
    array = _whole(column)
    kind = array.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        return None
    values = array.flatten()  # the elements of the cells present, end to end
    if values.null_count:
        return None
    element = values.type
    if pa.types.is_floating(element):
        numbers = values.cast(pa.float64()).to_numpy(zero_copy_only=False)
        if not np.isfinite(numbers).all():
            return None
        elements = _float_texts(numbers)
    elif pa.types.is_integer(element):
        elements = values.cast(pa.large_string())
    elif pa.types.is_boolean(element):
        elements = pc.if_else(values, pa.scalar("True", pa.large_string()), pa.scalar("False", pa.large_string()))
    elif pa.types.is_string(element) or pa.types.is_large_string(element):
        elements = _string_texts(values.cast(pa.large_string()))
    else:
        return None
    lengths = pc.list_value_length(array).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), elements), pa.scalar(", ", pa.large_string()))
    texts = _wrap(joined, "[", "]")
    if array.null_count:
        texts = pc.if_else(array.is_null(), pa.scalar("", pa.large_string()), texts)
    return texts


def _string_texts(strings: Any) -> Any:
    """``repr`` of every string of an Arrow string array: quoted in Arrow, Python's repr where it escapes."""
    pa, pc = _arrow()
    quoted = _wrap(strings, "'", "'")
    escaped = pc.invert(pc.match_substring_regex(strings, _PLAIN_ASCII))
    if not pc.any(escaped).as_py():
        return quoted
    rows = np.flatnonzero(escaped.to_numpy(zero_copy_only=False))
    reprs = pa.array(list(map(repr, strings.take(pa.array(rows)).to_pylist())), type=pa.large_string())
    return pc.replace_with_mask(quoted, escaped, reprs)


class _Kinds(dict[type, int]):
    """How :func:`render_literals` renders a value of each type: any type not listed by repr."""

    def __missing__(self, key: Any) -> int:
        return _REPR


_REPR, _FLOAT, _LIST, _TUPLE, _DICT = range(5)
_KINDS = _Kinds({float: _FLOAT, list: _LIST, tuple: _TUPLE, dict: _DICT, str: _REPR, int: _REPR, bool: _REPR,
                 type(None): _REPR, bytes: _REPR})


def render_literals(values: list[Any]) -> Any:
    """``repr`` of every value as an Arrow ``large_string`` array, rendered column-wide (needs pyarrow).

    Floats are formatted once per distinct bit pattern; lists, tuples and dicts are joined from the texts
    of their elements (rendered the same way, a level at a time) with Arrow's string joins, exactly as
    ``repr`` joins them; other values (str, int, bool, None, bytes, sets) go through ``repr``.

    Examples
    --------
    >>> render_literals([[0.5, 1.0], ("a",), {"start": 0}, None, -0.0]).to_pylist()
    ['[0.5, 1.0]', "('a',)", "{'start': 0}", 'None', '-0.0']
    """
    pa, _ = _arrow()
    count = len(values)
    if count == 0:
        return pa.array([], type=pa.large_string())
    kinds = np.fromiter(map(_KINDS.__getitem__, map(type, values)), dtype=np.int8, count=count)
    present = np.flatnonzero(np.bincount(kinds, minlength=len(_RENDERERS)))
    if len(present) == 1:
        return _RENDERERS[int(present[0])](values)
    objects = object_array(values)
    parts, order, start = [], np.empty(count, dtype=np.int64), 0
    for kind in present.tolist():
        rows = np.flatnonzero(kinds == kind)
        parts.append(_RENDERERS[kind](objects[rows].tolist()))
        order[rows] = np.arange(start, start + len(rows))
        start += len(rows)
    return pa.concat_arrays(parts).take(pa.array(order))


def _render_repr(values: list[Any]) -> Any:
    pa, _ = _arrow()
    return pa.array(list(map(repr, values)), type=pa.large_string())


def _render_floats(values: list[Any]) -> Any:
    return _float_texts(np.array(values, dtype=np.float64))


def _joined(values: list[Any], elements: Any, sep: str = ", ") -> Any:
    """Per container of ``values``, the texts of its ``elements`` (laid end to end) joined by ``sep``, and the lengths."""
    pa, pc = _arrow()
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), elements)
    return pc.binary_join(lists, pa.scalar(sep, pa.large_string())), lengths


def _wrap(texts: Any, opening: str, closing: str) -> Any:
    pa, pc = _arrow()
    text = functools.partial(pa.scalar, type=pa.large_string())
    return pc.binary_join_element_wise(text(opening), texts, text(closing), text(""))


def _render_lists(values: list[Any]) -> Any:
    joined, _ = _joined(values, render_literals(list(chain.from_iterable(values))))
    return _wrap(joined, "[", "]")


def _render_tuples(values: list[Any]) -> Any:
    pa, pc = _arrow()
    joined, lengths = _joined(values, render_literals(list(chain.from_iterable(values))))
    if (lengths == 1).any():  # (x,)
        joined = pc.if_else(pa.array(lengths == 1), _wrap(joined, "", ","), joined)
    return _wrap(joined, "(", ")")


def _render_dicts(values: list[Any]) -> Any:
    pa, pc = _arrow()
    keys = render_literals(list(chain.from_iterable(values)))
    items = render_literals(list(chain.from_iterable(map(dict.values, values))))
    pairs = pc.binary_join_element_wise(keys, items, pa.scalar(": ", pa.large_string()))
    joined, _ = _joined(values, pairs)
    return _wrap(joined, "{", "}")


_RENDERERS: list[Callable[[list[Any]], Any]] = [_render_repr, _render_floats, _render_lists, _render_tuples, _render_dicts]


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


class LiteralParser:
    """Parse one column of literal texts, each distinct text once.

    Gold lists repeat on every row of a query and the 0/1 match lists repeat everywhere, so the
    column is factorised first and rows with equal text share one parsed value (as the frames
    Haystack 1.x and ``from_runs`` build in memory share each query's gold lists): copy a cell
    before mutating it in place. Numeric lists are decoded together in one JSON call, plain string
    lists are split, anything else goes through :func:`ast.literal_eval` (never ``eval``).
    """

    def __init__(self, path: Path, column: str) -> None:
        self.path, self.column = path, column

    def column_values(self, texts: pd.Series) -> list[Any]:
        """The parsed value of every row."""
        return self.distinct_values(texts).row_values().tolist()

    def distinct_values(self, texts: pd.Series) -> DistinctLists:
        """The parsed values of the distinct texts and a code per row (rows with one code share one value)."""
        parsed = arrow_csv.parse_list_texts(texts, self.parse_distinct)
        if parsed is not None:  # Arrow strings: factorised, and the common list shapes parsed, in Arrow
            return parsed
        if not isinstance(texts.dtype, pd.StringDtype):
            texts = texts.astype(object)
        codes, uniques = pd.factorize(texts, use_na_sentinel=False)
        codes = codes.astype(np.int64, copy=False)
        return DistinctLists(codes, object_array(self.parse_distinct(uniques.tolist(), codes)))

    def parse_distinct(self, uniques: list[Any], codes: np.ndarray) -> list[Any]:
        """The value of each distinct text; ``codes`` (per row) only locate a bad text's row for the message."""
        fast = self._whole_column(uniques)
        if fast is not None:
            return fast
        parsed: list[Any] = [None] * len(uniques)
        numeric = []
        for code, text in enumerate(uniques):
            if not isinstance(text, str):  # a missing cell (NaN in files read with Haystack's rules)
                parsed[code] = None if _is_missing(text) else text
            elif text in _MISSING_TOKENS:
                parsed[code] = _MISSING_TOKENS[text]
            elif _PLAIN_STRING_LIST.fullmatch(text):
                parsed[code] = text[2:-2].split("', '")
            elif _NUMERIC_LIST.fullmatch(text):
                numeric.append(code)
            else:
                parsed[code] = self._literal(text, code, codes)
        if numeric:
            try:  # one C-level JSON call for every numeric list of the column
                values = _JSON.decode("[" + ",".join(uniques[c] for c in numeric) + "]")
            except ValueError:  # e.g. "[1.]" or "[.5]": valid Python, not JSON
                values = [self._literal(uniques[c], c, codes) for c in numeric]
            for code, value in zip(numeric, values):
                parsed[code] = value
        return parsed

    @staticmethod
    def _whole_column(uniques: list[Any]) -> list[Any] | None:
        """Every distinct text is a flat list of numbers (match columns), or of plain strings (id and answer
        lists): one regex match and one JSON call for the whole column; None when that does not hold.

        The texts are joined by line breaks, which no such text holds, so the regex checks each text
        whole and the JSON array has exactly one item per text.
        """
        if not uniques or set(map(type, uniques)) != {str}:
            return None
        joined = "\n".join(uniques)
        if _NUMERIC_LISTS.fullmatch(joined):
            text = joined
        elif _STRING_LISTS.fullmatch(joined) and '"' not in joined:
            text = joined.replace("'", '"')  # plain items hold no quote or backslash: JSON strings as they are
        else:
            return None
        try:
            values = _JSON.decode("[" + text.replace("\n", ",") + "]")
        except ValueError:  # e.g. "[1.]" or "[.5]": valid Python, not JSON
            return None
        return values if len(values) == len(uniques) else None

    def _literal(self, text: str, code: int, codes: np.ndarray) -> Any:
        if len(text) > LITERAL_CELL_LIMIT:  # outside the try: its LoadError is a ValueError, not to be wrapped again
            return self._large_literal(text, code, codes)
        try:
            self._parsed = getattr(self, "_parsed", 0) + 1
            if self._parsed % _COLLECT_EVERY == 0:
                # each literal_eval leaves ~1 KB of cyclic garbage (its syntax tree), which the paused collector
                # (see evalframe.io.results) would keep until the load ends; the youngest generation holds only recent objects
                gc.collect(0)
            return literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            shown = text if len(text) <= 80 else text[:77] + "..."
            raise LoadError(
                f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: cannot parse {shown!r} as a "
                f"Python literal ({type(exc).__name__}: {_ADDRESS.sub('', str(exc))}). Fix or empty that cell."
            ) from None

    @staticmethod
    def _row(code: int, codes: np.ndarray) -> int:
        """The 1-based data row of the first cell holding the distinct text ``code``."""
        return int(np.argmax(codes == code)) + 1

    def _large_literal(self, text: str, code: int, codes: np.ndarray) -> Any:
        """A cell beyond :data:`LITERAL_CELL_LIMIT`, parsed by :func:`large_literal`, or refused."""
        value = large_literal(text)
        if value is not UNREADABLE:
            return value
        raise LoadError(
            f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: the cell holds {len(text)} "
            f"characters; cells other than lists of strings or JSON-like numbers and lists may hold at most "
            f"{LITERAL_CELL_LIMIT} characters (1 MiB), because Python's literal parser needs hundreds of times "
            "their size in memory. Shorten or empty that cell."
        )


#: What :func:`large_literal` gives for a text load refuses.
UNREADABLE = object()


def large_literal(text: str) -> Any:
    """The value of a literal cell longer than :data:`LITERAL_CELL_LIMIT`, or :data:`UNREADABLE` when load refuses it.

    ``ast.literal_eval`` builds a syntax tree of several hundred bytes per element (a 10 MB list
    cell took 5 GB), so long cells are only read in two shapes whose parsing stays bounded: a list
    of string literals (gold_contexts of long documents), each string parsed on its own, and JSON
    texts that mean the same in Python (numbers, lists, double-quoted strings; no true/false/null).
    A save refuses the other long cells with the same function (:func:`check_literal_sizes`).
    """
    strings = string_list(text)
    if strings is not None:
        return strings
    if not _JSON_ONLY_NAMES.search(text) and not _JSON_OTHER_ESCAPES.search(text):
        try:
            return _JSON.decode(text)
        except (ValueError, RecursionError):
            pass
    return UNREADABLE


#: How many ast.literal_eval calls leave their garbage before it is collected.
_COLLECT_EVERY = 2000
#: Cells longer than this (1 MiB of text) are not given to ast.literal_eval (see ``LiteralParser._large_literal``).
LITERAL_CELL_LIMIT = 1 << 20
#: JSON's names, which Python spells True / False / None: a text holding them is not the same value in both.
_JSON_ONLY_NAMES = re.compile(r"\b(?:true|false|null)\b")
#: Escapes JSON reads otherwise than Python (after an even run of backslashes, so the backslash is not itself
#: escaped): "\/" (JSON "/", Python a backslash and "/") and a surrogate "\ud800"-"\udfff" (JSON joins a pair into
#: one character, Python keeps two), as repr writes a text with lone surrogates.
_JSON_OTHER_ESCAPES = re.compile(r"(?<!\\)(?:\\\\)*\\(?:/|u[dD][89a-fA-F])")


#: Texts made only of numbers, brackets and commas mean the same as JSON and as Python literals
#: (no strings, names or escapes), and JSON parses them many times faster than literal_eval.
#: " at 0x7f..." in a message of ast (the address of a syntax node): different in every run, of no use to a reader
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_NUMERIC_LIST = re.compile(r"\[[0-9eE+\-., ]*\]")  # flat: nested lists go to ast.literal_eval
#: Whole columns of such texts, one per line (see ``LiteralParser._whole_column``).
_NUMERIC_LISTS = re.compile(r"\[[0-9eE+\-., ]*\](?:\n\[[0-9eE+\-., ]*\])*")
_STRING_LISTS = re.compile(r"\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\](?:\n\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\])*")
#: A list of plain strings as repr writes them: single-quoted, no quote, backslash or line break inside
#: (so no escapes, and "', '" cannot occur inside an item): the items are the text between the separators.
_PLAIN_STRING_LIST = re.compile(r"\['[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*\]")


def string_list(text: str) -> list[Any] | None:
    """The value of a list of string (or bytes) literals as repr writes it, or None for any other text.

    A scan with ``str.find`` from quote to quote (no regular expression, whose backtracking state grew
    with every escape of a long document): an item without a backslash is the text between its quotes,
    any other item is parsed on its own by ``ast.literal_eval`` (one string: memory bounded by its size).
    """
    end = len(text) - 1
    if end < 1 or text[0] != "[" or text[end] != "]":
        return None
    values: list[Any] = []
    start = 1
    while start < end:
        opening = start + 1 if text[start] == "b" else start
        quote = text[opening] if opening < end else ""
        if quote not in ("'", '"'):
            return None
        search = opening + 1
        while True:
            closing = text.find(quote, search, end)
            if closing < 0:
                return None
            backslashes = closing
            while text[backslashes - 1] == "\\":
                backslashes -= 1
            if (closing - backslashes) % 2 == 0:  # not itself escaped
                break
            search = closing + 1
        body = text[opening + 1:closing]
        values.append(body if opening == start and "\\" not in body else _unescape(text[start:closing + 1], body))
        start = closing + 1
        if start == end:
            return values
        if text[start:start + 2] != ", ":
            return None
        start += 2
    return values if start == 1 else None  # "[]" is the empty list; a trailing ", " is not a list


def _unescape(literal: str, body: str) -> Any:
    """The value of one string literal with escapes (``body`` is the text between its quotes).

    Python's own escape decoder ("unicode_escape", the escapes of string literals) on the body: no
    syntax tree per item, whose garbage (collected only after the load, see :mod:`evalframe.io.results`) took
    a kilobyte per item. Bytes literals, and backslashes before non-ASCII characters (which repr never
    writes), go to ``ast.literal_eval``.
    """
    if literal[0] == "b" or _ESCAPED_NON_ASCII.search(body):
        return literal_eval(literal)
    # an unknown escape ("\\d") stays as typed, as in a literal: its backslash is doubled first, instead of silencing the
    # decoder's DeprecationWarning with warnings.catch_warnings, which is not thread-safe (Dask reads partitions on
    # threads, and it swapped the warning state of the whole process under them)
    body = _UNKNOWN_ESCAPE.sub(_keep_unknown_escape, body)
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:  # e.g. a cut hex escape: the literal parser words the error
        return literal_eval(literal)


_ESCAPED_NON_ASCII = re.compile(r"\\[^\x00-\x7f]")
#: A backslash and the octal digits or the character after it (left to right, so an escaped backslash is one pair).
_UNKNOWN_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.S)
#: The characters after a backslash that make an escape of a string literal (and a line break: a continued line).
_ESCAPES = frozenset("\\'\"abfnrtv01234567xNuU\n")


def _keep_unknown_escape(match: re.Match[str]) -> str:
    """An escape the decoder reads without a DeprecationWarning: an unknown one with its backslash doubled (kept as
    typed), an octal one over 0o377 as its character (a literal reads it so)."""
    escaped = match.group(1)
    if escaped[0] in "01234567":
        return match.group(0) if int(escaped, 8) <= 0o377 else chr(int(escaped, 8))
    return match.group(0) if escaped in _ESCAPES else "\\" + match.group(0)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a Python literal")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)


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
        lists = LiteralParser(path, name).distinct_values(cells)
        column = pd.Series(lists.row_values(), index=cells.index, dtype=object)
    if spec["dtype"] == "object":
        return column, lists
    return column.astype(spec["dtype"]), None


