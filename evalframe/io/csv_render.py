"""The CSV writer's texts, made column-wide in Arrow: CSV only, Parquet stores values natively.

:func:`encode_frame_texts` gives what :func:`evalframe.io.codecs.encode_frame` gives (same codecs, same manifest
entry), each column's cells rendered as the texts the csv module would write for them (:class:`TextColumn`):
numbers once per distinct value (floats per bit pattern), lists, tuples and dicts joined from their elements' texts
with Arrow's string joins (:func:`render_literals`), text columns kept in Arrow.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..columns import LIST_COLUMNS
from ..frames.arrays import object_array
from .codecs import (ColumnsFrame, as_object_column, by_identity, checked_distinct, encode_columns, encode_text, first_of_codes,
                     is_native_dtype, native_spec, refuse_long_literals)
from .literals import LITERAL_CELL_LIMIT

__all__ = ["TextColumn", "check_text_sizes", "encode_frame_texts", "render_literals"]


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
        codes = self.codes[start:stop]
        missing = codes < 0  # a missing number: null
        return _whole(self.values).take(pa.array(codes, mask=missing if missing.any() else None))

    @property
    def texts(self) -> Any:
        """The text of every row."""
        return self.rows()


def encode_frame_texts(node: str, frame: pd.DataFrame) -> tuple[dict[str, TextColumn], dict[str, Any]]:
    """What :func:`encode_frame` gives, with each column's cells rendered as texts column-wide.

    The texts are those the csv module writes for :func:`encode_frame`'s cells (``str`` of numbers,
    ``repr`` of literals): numbers and list elements are formatted once per distinct value (floats per bit
    pattern), lists, tuples and dicts are assembled from their elements' texts with Arrow's string joins,
    and text columns stay in Arrow. The manifest entry is the same.
    """
    encoded = functools.partial(_coded_list_texts, frame) if isinstance(frame, ColumnsFrame) else None
    return encode_columns(node, frame, _encode_column_texts, check_text_sizes, encoded)


def _coded_list_texts(frame: ColumnsFrame, name: str) -> tuple[TextColumn, dict[str, Any]] | None:
    """A loaded list column coded as distinct Arrow lists (:meth:`LoadedColumns.lists`): the texts of its distinct
    cells rendered from their Arrow values, a code per row, as :func:`_literal_column` gives them for the object column
    it stands for (whose rows sharing a code share one list); None for any other column, or lists
    :func:`_arrow_list_texts` leaves to the object column."""
    lists = frame.source.lists(name)
    if lists is None or isinstance(lists.cells, np.ndarray):
        return None
    if name not in LIST_COLUMNS and lists.cells.null_count == len(lists.cells):  # no list: encode_text's choice
        return None
    texts = _arrow_list_texts(lists.cells)
    if texts is None:
        return None
    identity = len(lists.cells) == len(lists.codes) and bool(
        np.array_equal(lists.codes, np.arange(len(lists.codes))))  # a reordered coding (partitioned) keeps its codes
    codes = None if identity else lists.codes
    return TextColumn(texts, False, codes), {"name": name, "dtype": "object", "codec": "literal"}


def check_text_sizes(cells: TextColumn, *, node: str, column: Hashable) -> None:
    """:func:`evalframe.io.codecs.check_literal_sizes` for a literal column's texts made column-wide: only texts of
    more bytes than :data:`~evalframe.io.literals.LITERAL_CELL_LIMIT` are looked at, each distinct one once."""
    # bytes bound characters from above: only texts of more bytes than the limit can hold more characters
    sizes = pc.binary_length(cells.values).fill_null(0).to_numpy(zero_copy_only=False)
    longer = np.flatnonzero(sizes > LITERAL_CELL_LIMIT)
    texts = cells.values.take(pa.array(longer)).to_pylist() if len(longer) else []
    refuse_long_literals(longer.tolist(), texts, cells.codes, node=node, column=column)


def _encode_column_texts(series: pd.Series, *, node: str) -> tuple[TextColumn, dict[str, Any]]:
    dtype = series.dtype
    if is_native_dtype(dtype):
        spec = native_spec(series, node=node)
        if dtype.kind == "f":  # float16 / float32 widen exactly: their values print as the csv module prints them
            texts, codes = _float_codes(series.to_numpy(dtype=np.float64, na_value=np.nan), series.isna().to_numpy())
            return TextColumn(texts, True, codes), spec
        return TextColumn(_number_texts(series), True), spec
    if isinstance(dtype, pd.ArrowDtype):  # Arrow lists rendered from their values; else as the equivalent object column
        texts = _arrow_list_texts(pa.array(series.array))
        if texts is not None:
            return TextColumn(texts, False), {"name": series.name, "dtype": "object", "codec": "literal"}
        series, dtype = as_object_column(series), np.dtype(object)
    if dtype == object and series.name in LIST_COLUMNS:  # always literal, as encode_text writes them
        spec = {"name": series.name, "dtype": str(dtype), "codec": "literal"}
        return _literal_column(series.to_numpy(dtype=object), node=node, column=series.name), spec
    if isinstance(dtype, pd.StringDtype) and dtype.storage in ("pyarrow", "pyarrow_numpy"):
        # Arrow strings (valid UTF-8): text unless an empty text and a missing value (or a NUL) need the literal codec
        texts = pa.array(series.array).cast(pa.large_string())  # chunks are combined a batch at a time by the writer
        ambiguous = texts.null_count and pc.any(pc.equal(texts, "")).as_py() is True
        if not ambiguous and pc.any(pc.match_substring(texts, "\x00")).as_py() is not True:
            spec = {"name": series.name, "dtype": str(dtype), "codec": "text", "empty": "nan" if texts.null_count else "empty"}
            return TextColumn(texts.fill_null(""), False), spec
    cells, spec = encode_text(series, node=node, literal=lambda values: _literal_texts(values, node=node, column=series.name))
    if not isinstance(cells, pa.Array):
        cells = pa.array(cells, type=pa.large_string())
    return TextColumn(cells, False), spec


def _whole(array: Any) -> Any:
    """One Arrow array (a chunked array's chunks combined)."""
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


def _number_texts(series: pd.Series) -> Any:
    """``str`` of every number or bool of a native column (null where it is missing), column-wide."""
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
    texts, codes = _float_codes(values, mask)
    return texts.take(pa.array(codes, mask=codes < 0))


def _float_codes(values: np.ndarray, mask: np.ndarray | None = None) -> tuple[Any, np.ndarray]:
    """``repr`` of each distinct float bit pattern (0.0 and -0.0 differ) and a code per value (-1 where ``mask``)."""
    bits = np.ascontiguousarray(values).view(np.int64)
    codes, first = first_of_codes(bits)
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
    """Every cell as a Python literal ('' for None, 'nan' for NaN), as :func:`evalframe.io.codecs.encode_column`
    writes them, in Arrow.

    Flat lists of floats, of ints or of strings (the list columns of an evaluation) are converted by Arrow
    in one pass and their elements formatted column-wide; any other column is checked cell by cell
    (:func:`checked_distinct` names a bad cell) and rendered by :func:`render_literals`. Cells shared by
    rows (a query's gold lists) are rendered once.
    """
    sample = values[:_SHARING_SAMPLE]
    shared = len(set(map(id, sample))) <= len(sample) // 2
    codes, distinct = by_identity(values) if shared else (None, values)
    texts = _flat_list_texts(distinct)
    if texts is None:
        texts, codes = _checked_literal_texts(values, node=node, column=column)
    return texts if codes is None else texts.take(pa.array(codes))


def _checked_literal_texts(values: list[Any], *, node: str, column: Hashable) -> tuple[Any, np.ndarray]:
    """The texts of the distinct cells (each checked, :func:`checked_distinct`) rendered by :func:`render_literals`
    ('' for None), and a code per row."""
    codes, distinct = checked_distinct(values, node=node, column=column)
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
    """``repr`` of every value as an Arrow ``large_string`` array, rendered column-wide.

    Floats are formatted once per distinct bit pattern; lists, tuples and dicts are joined from the texts
    of their elements (rendered the same way, a level at a time) with Arrow's string joins, exactly as
    ``repr`` joins them; other values (str, int, bool, None, bytes, sets) go through ``repr``.

    Examples
    --------
    >>> render_literals([[0.5, 1.0], ("a",), {"start": 0}, None, -0.0]).to_pylist()
    ['[0.5, 1.0]', "('a',)", "{'start': 0}", 'None', '-0.0']
    """
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
    return pa.array(list(map(repr, values)), type=pa.large_string())


def _render_floats(values: list[Any]) -> Any:
    return _float_texts(np.array(values, dtype=np.float64))


def _joined(values: list[Any], elements: Any, sep: str = ", ") -> Any:
    """Per container of ``values``, the texts of its ``elements`` (laid end to end) joined by ``sep``, and the lengths."""
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), elements)
    return pc.binary_join(lists, pa.scalar(sep, pa.large_string())), lengths


def _wrap(texts: Any, opening: str, closing: str) -> Any:
    text = functools.partial(pa.scalar, type=pa.large_string())
    return pc.binary_join_element_wise(text(opening), texts, text(closing), text(""))


def _render_lists(values: list[Any]) -> Any:
    joined, _ = _joined(values, render_literals(list(chain.from_iterable(values))))
    return _wrap(joined, "[", "]")


def _render_tuples(values: list[Any]) -> Any:
    joined, lengths = _joined(values, render_literals(list(chain.from_iterable(values))))
    if (lengths == 1).any():  # (x,)
        joined = pc.if_else(pa.array(lengths == 1), _wrap(joined, "", ","), joined)
    return _wrap(joined, "(", ")")


def _render_dicts(values: list[Any]) -> Any:
    keys = render_literals(list(chain.from_iterable(values)))
    items = render_literals(list(chain.from_iterable(map(dict.values, values))))
    pairs = pc.binary_join_element_wise(keys, items, pa.scalar(": ", pa.large_string()))
    joined, _ = _joined(values, pairs)
    return _wrap(joined, "{", "}")


_RENDERERS: list[Callable[[list[Any]], Any]] = [_render_repr, _render_floats, _render_lists, _render_tuples, _render_dicts]
