"""Parquet storage of node frames: list columns typed natively.

Columns follow the codecs of :mod:`evalframe.io.codecs`, recorded in ``evalframe.json`` so a round trip
is exact: numbers are stored natively, lists of one scalar type as Parquet lists (``list``),
texts as strings with their missing-value kind, anything else as Python literal text
(see docs/persistence.md#parquet).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from itertools import chain, repeat
from operator import is_not
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyarrow.types as types

from . import codecs
from .codecs import LoadedColumns, by_identity, kept_column, kept_lists, check_frame, decode_column, encodes, is_native_dtype
from .folder import Folder
from ..frames.arrays import DistinctLists, object_array
from ..frames.pending import ColumnView, PendingFrame
from ..columns import METRIC_LIST_COLUMNS
from ..errors import LoadError

__all__ = ["encode_frame", "write", "read", "read_pending"]


#: Element types stored natively, with their Arrow type and numpy dtype (None: built by Arrow from the objects).
_SCALARS = {float: ("float64", np.float64), int: ("int64", np.int64), bool: ("bool_", np.bool_), str: ("string", None)}


def _list_array(cells: np.ndarray) -> Any:
    """Cells that are flat lists of one scalar type (None cells allowed) as an Arrow list array, else None.

    The cells are walked at C level (map / chain): their lengths give the offsets, their elements laid
    end to end the values, so no cell is converted on its own. Non-finite floats and ints beyond int64
    are left to the literal codec.
    """
    kinds = set(map(type, cells))
    if not kinds <= {list, type(None)}:
        return None
    present = np.fromiter(map(is_not, cells, repeat(None)), dtype=bool, count=len(cells))
    filled = cells if present.all() else cells[present]
    lengths = np.zeros(len(cells), dtype=np.int64)
    lengths[present] = np.fromiter(map(len, filled), dtype=np.int64, count=len(filled))
    flat = list(chain.from_iterable(filled))
    element_kinds = set(map(type, flat))
    if len(element_kinds) > 1 or not element_kinds <= set(_SCALARS):
        return None
    arrow_type, dtype = _SCALARS[element_kinds.pop()] if element_kinds else ("float64", np.float64)
    if dtype is None:
        try:
            values = pa.array(flat, type=getattr(pa, arrow_type)())
        except UnicodeEncodeError:  # a lone surrogate: the literal codec escapes it (repr), exactly
            return None
        if isinstance(values, pa.ChunkedArray):  # beyond 2 GB of text: leave it to the literal codec
            return None
    else:
        try:
            numbers: np.ndarray = np.array(flat, dtype=dtype)
        except OverflowError:
            return None
        if dtype is np.float64 and not np.isfinite(numbers).all():
            return None
        values = pa.array(numbers)
    offsets = np.zeros(len(cells) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    large = offsets[-1] > np.iinfo(np.int32).max
    kind = pa.LargeListArray if large else pa.ListArray
    mask = None if present.all() else pa.array(~present)
    return kind.from_arrays(pa.array(offsets if large else offsets.astype(np.int32)), values, mask=mask)


def _native_list_column(series: pd.Series) -> Any:
    """The column as an Arrow list array when its cells are flat lists of one scalar type, else None.

    Each distinct cell object (found by the cells' addresses) is converted once; when cells are shared
    between rows (a loaded result, or a query's gold lists in ``from_runs`` frames), the column is given as
    :class:`_Rows`, whose rows Arrow's take lays out on the writer thread.
    """
    cells = series.to_numpy(dtype=object)
    codes, distinct = by_identity(cells)  # the cells' addresses, read from the object array
    array = _list_array(object_array(distinct))
    if array is None or len(distinct) == len(cells):
        return array
    return _Rows(array, codes)


class _Rows:
    """A list column as the Arrow lists of its distinct cells and a code per row, laid out by :func:`write`
    (on the writer thread, while the next node is encoded)."""

    def __init__(self, distinct: Any, codes: np.ndarray) -> None:
        self.distinct, self.codes = distinct, codes

    def array(self) -> Any:
        return self.distinct.take(pa.array(self.codes))


#: How many leading cells tell whether a column's cells are shared between rows.
_SHARING_SAMPLE = 2000


def encode_frame(node: str, frame: pd.DataFrame) -> tuple[dict[str, Any], dict[str, Any]]:
    """A checked frame as the columns of an Arrow table (:func:`write` lays out the shared list cells) and its
    manifest entry (numbers and flat lists stored natively,
    other columns as the text cells of :func:`evalframe.io.codecs.encode_frame`)."""
    # list columns stored natively skip the CSV encoding (their cells are never turned into text)
    check_frame(node, frame)
    native_lists = {name: array for name in frame.columns
                    if frame[name].dtype == object and (array := _native_list_column(frame[name])) is not None}
    # string-dtype columns without missing values are stored as they are (no empty-cell marker is needed)
    # (texts that do not encode to UTF-8 go through the CSV encoding, which names the cell)
    native_texts = [name for name in frame.columns
                    if isinstance(frame[name].dtype, pd.StringDtype) and not frame[name].isna().any()
                    and (cast(pd.StringDtype, frame[name].dtype).storage != "python" or encodes(frame[name].tolist()))]
    numbers = [name for name in frame.columns if is_native_dtype(frame[name].dtype)]  # Arrow takes them as they are
    rest = frame.drop(columns=list(native_lists) + native_texts + numbers)
    cells, entry = (codecs.encode_frame(node, rest) if len(rest.columns)
                    else ({}, {"file": "", "rows": len(frame), "columns": []}))
    specs = {spec["name"]: spec for spec in entry["columns"]}
    arrays, ordered = {}, []
    for name in frame.columns:
        if name in native_lists:
            spec = {"name": name, "dtype": "object", "codec": "list"}
            arrays[name] = native_lists[name]
        elif name in numbers:
            spec = {"name": name, "dtype": str(frame[name].dtype), "codec": "native"}
            arrays[name] = pa.Array.from_pandas(frame[name])
        elif name in native_texts:
            spec = {"name": name, "dtype": str(frame[name].dtype), "codec": "text", "empty": "empty"}
            arrays[name] = pa.array(frame[name].array)
        else:
            spec = specs[name]  # a text or literal codec: the cells as written to CSV
            arrays[name] = pa.array(cells[name], type=pa.string())
        ordered.append(spec)
    entry["columns"] = ordered
    entry["file"] = f"{node}.parquet"
    return arrays, entry


def write(path: Path | BinaryIO, table: Any, metadata: Mapping[str, str] | None = None) -> None:
    """Write one node's table (an Arrow table, or the columns :func:`encode_frame` gives) to ``path``; ``metadata``:
    key-value pairs for the file's schema (a partition file's generation)."""
    if isinstance(table, dict):
        table = pa.table({name: column.array() if isinstance(column, _Rows) else column for name, column in table.items()})
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    pq.write_table(table, path)


def _row_keys(lists: Any) -> Any:
    """One binary key per row of a list array: equal lists get equal keys, other lists (and nulls) other keys.

    The key of a row is the fixed-width codes of its values laid end to end (the list offsets times the
    width), so no Python object is built. Floats are coded by their bits (-0.0 and 0.0 stay apart).
    """
    offsets = np.asarray(lists.offsets, dtype=np.int64)
    values = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    if pa.types.is_floating(values.type):
        values = values.view(pa.int64())
    elif pa.types.is_boolean(values.type):
        values = values.cast(pa.int8())
    codes = pc.dictionary_encode(values, null_encoding="encode").indices.to_numpy(zero_copy_only=False)
    codes = codes.astype(np.int32, copy=False)
    keys = pa.Array.from_buffers(pa.large_binary(), len(lists), [
        None, pa.py_buffer(((offsets - offsets[0]) * codes.itemsize).tobytes()), pa.py_buffer(codes.tobytes())])
    if lists.null_count:  # a missing cell (None) is not an empty list
        keys = pc.if_else(lists.is_null(), pa.scalar(None, pa.large_binary()), keys)
    return keys


def _distinct_list_cells(column: Any, *, arrow_cells: bool = False) -> DistinctLists:
    """A Parquet list column as its distinct lists (Python lists built once each) and a code per row; with
    ``arrow_cells`` the distinct lists stay an Arrow list array (their Python lists are built when the column is).

    Null cells (None) and empty lists are different cells.
    """
    lists = column.combine_chunks()
    sample = lists.slice(0, _SHARING_SAMPLE)
    if len(lists) > len(sample) and len(pc.unique(_row_keys(sample))) > len(sample) // 2:
        # long and hardly repeating (judged on its first rows): every row gets its own list, without hashing
        every = np.arange(len(lists), dtype=np.int64)
        return DistinctLists(every, lists if arrow_cells else object_array(lists.to_pylist()))
    codes = pc.dictionary_encode(_row_keys(lists), null_encoding="encode").indices.to_numpy(zero_copy_only=False)
    codes = codes.astype(np.int64)  # codes number the distinct keys in order of first appearance
    first = np.empty(int(codes.max(initial=-1)) + 1, dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)  # the last write of a code is its first row
    distinct = lists.take(first)
    return DistinctLists(codes, distinct if arrow_cells else object_array(distinct.to_pylist()))


def _text_column(path: Path, spec: dict[str, Any], column: Any) -> pd.Series:
    """A text-codec column; string dtypes are built from Arrow without Python strings."""
    dtype = pd.api.types.pandas_dtype(spec["dtype"])
    if not isinstance(dtype, pd.StringDtype):
        return decode_column(path, spec, pd.Series(column.to_pylist(), dtype=object))[0]
    if spec.get("empty", "empty") != "empty":  # "" stood for the missing value, which a string dtype holds as NA
        column = pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.string()), column)
    if not pa.types.is_large_string(column.type):  # (a dictionary's texts are decoded)
        column = column.cast(pa.string())
    return pd.Series(pd.arrays.ArrowStringArray(column)).astype(dtype)


def _literal_texts(column: Any) -> pd.Series:
    """A literal column's texts: Arrow-backed (factorised and parsed in Arrow, see :func:`decode_column`) when
    they are strings without nulls, else Python values."""
    if (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)) and not column.null_count:
        return pd.Series(pd.arrays.ArrowStringArray(column.cast(pa.large_string())), copy=False)
    return pd.Series(column.to_pylist(), dtype=object)


#: What each codec of evalframe.json stores, as Arrow types (the predicates of pyarrow.types) and in words.
_ARROW_KINDS = {
    "native": (("is_integer", "is_floating", "is_boolean", "is_null"), "numbers or booleans"),
    "list": (("is_list", "is_large_list"), "lists"),
    "text": (("is_string", "is_large_string"), "texts (strings)"),
    "literal": (("is_string", "is_large_string"), "texts (strings: Python literals)"),
}


def _check_arrow_type(path: Path, spec: dict[str, Any], arrow_type: Any) -> None:
    """Refuse a column whose Arrow type is not what its codec in evalframe.json stores (the manifest and the file
    disagree: one of them was edited or comes from another save)."""
    predicates, what = _ARROW_KINDS[spec["codec"]]
    if spec["codec"] == "text" and types.is_dictionary(arrow_type):  # texts read as a dictionary (_dictionary_columns)
        arrow_type = arrow_type.value_type
    if not any(getattr(types, predicate)(arrow_type) for predicate in predicates):
        raise LoadError(f"{path}: column {spec['name']!r} holds {arrow_type} values, but evalframe.json records it with "
                        f"codec {spec['codec']!r}, which stores {what}; the file and evalframe.json do not belong "
                        "together (one was edited or copied from another save): save the result again.")
    if spec["codec"] == "native":
        # save writes a number column as the Arrow type of its dtype: any other type would be cast to the recorded
        # dtype (ranks read as booleans, say) and change the numbers
        dtype = pd.api.types.pandas_dtype(spec["dtype"])
        nullable = isinstance(dtype, pd.api.extensions.ExtensionDtype)
        try:
            expected = _arrow_type_of(dtype)
        except (TypeError, ValueError, NotImplementedError) as exc:  # (pyarrow's errors derive from these)
            raise LoadError(f"{path}: column {spec['name']!r}: evalframe.json records dtype {spec['dtype']!r}, which save "
                            f"never writes to Parquet ({type(exc).__name__}: {exc}); evalframe.json was edited: save "
                            "the result again.") from None
        if arrow_type != expected and not (nullable and types.is_null(arrow_type)):
            raise LoadError(f"{path}: column {spec['name']!r} holds {arrow_type} values, but evalframe.json records its "
                            f"dtype as {spec['dtype']!r}, which save writes as {expected}; the file and evalframe.json "
                            "do not belong together (one was edited or copied from another save): save the result "
                            "again.")


def _arrow_type_of(dtype: Any) -> Any:
    """The Arrow type save writes a number / bool column of ``dtype`` as (a nullable dtype: its numpy kind's)."""
    return pa.from_numpy_dtype(getattr(dtype, "numpy_dtype", dtype))


def read(folder: Folder, entry: dict[str, Any], codings: dict[str, DistinctLists],
         metadata: dict[str, str] | None = None) -> pd.DataFrame:
    """Read one Parquet node file of ``folder`` as a frame (:func:`read_pending`, built at once); the distinct cells of
    its metric list columns go to ``codings``, the file's key-value metadata (texts) to ``metadata``."""
    pending = read_pending(folder, entry, metadata)
    source = cast(LoadedColumns, pending.source)
    for name in source.names:
        if name in METRIC_LIST_COLUMNS and (lists := source.lists(name)) is not None:
            codings[name] = lists
    return ColumnView(pending).frame()


def read_pending(folder: Folder, entry: dict[str, Any], metadata: dict[str, str] | None = None) -> PendingFrame:
    """Read one Parquet node file of ``folder`` (opened relative to its descriptor, see :mod:`evalframe.io.folder`)
    as a pending node: the decoded Arrow table, checked against ``entry`` as a load checks it, each column made as
    the loaded frame holds it when first read (a list column from its distinct cells, coded on first use); the file's
    key-value metadata (texts) goes to ``metadata``.

    Everything a load refuses is refused here (the file, its columns, row count and types, each literal cell); what
    is deferred only lays out values already read.
    """
    path = folder.path / entry["file"]
    with folder.open_binary(entry["file"]) as source:
        try:
            table = pq.read_table(source, read_dictionary=_dictionary_columns(pq.read_schema(source), entry))
        except (OSError, pa.ArrowException) as exc:
            raise LoadError(f"{path}: cannot be read as Parquet ({exc}).") from None
    if metadata is not None:
        metadata.update({key.decode("utf-8", "replace"): value.decode("utf-8", "replace")
                         for key, value in (table.schema.metadata or {}).items()})
    names = [spec["name"] for spec in entry["columns"]]
    if table.column_names != names or table.num_rows != entry.get("rows", table.num_rows):
        raise LoadError(f"{path}: its columns or row count differ from those evalframe.json records.")
    makers: dict[str, Callable[[], pd.Series]] = {}
    lists: dict[str, Callable[[], DistinctLists]] = {}
    dtypes: dict[str, Any] = {}
    arrow: dict[str, tuple[Any, Callable[[Any], pd.Series], str]] = {}
    for spec in entry["columns"]:
        name, column = spec["name"], table.column(spec["name"])
        _check_arrow_type(path, spec, column.type)
        if spec["codec"] == "native":
            dtype = pd.api.types.pandas_dtype(spec["dtype"])
            made = _native_column(column, dtype) if column.null_count else None  # a cast that may fail: at load
            makers[name] = kept_column(made) if made is not None else partial(_native_column, column, dtype)
            if made is None:
                arrow[name] = (column, partial(_native_column, dtype=dtype), _spec_key(spec))
            dtypes[name] = dtype
        elif spec["codec"] == "list":
            lists[name] = partial(_distinct_list_cells, column, arrow_cells=True)
            makers[name] = _never_made
            dtypes[name] = np.dtype(object)
        elif spec["codec"] == "text":
            dtype = pd.api.types.pandas_dtype(spec["dtype"])
            if isinstance(dtype, pd.StringDtype):  # built from Arrow, nothing to check
                makers[name] = partial(_text_column, path, spec, column)
                arrow[name] = (column, partial(_text_column, path, spec), _spec_key(spec))
            else:
                makers[name] = kept_column(_text_column(path, spec, column))
            dtypes[name] = dtype
        else:  # the literal cells are parsed (and checked, naming the cell) at load
            decoded, decoded_lists = decode_column(path, spec, _literal_texts(column))
            if decoded_lists is not None and name in METRIC_LIST_COLUMNS:
                lists[name] = kept_lists(decoded_lists)
                makers[name] = _never_made
            else:
                makers[name] = kept_column(decoded)
            dtypes[name] = decoded.dtype
            del decoded
    loaded = LoadedColumns(makers, dtypes, lists=lists, arrow=arrow)
    if entry["columns"]:  # (a literal column is encoded again from its decoded cells: its texts are not kept)
        kept = table.drop_columns([spec["name"] for spec in entry["columns"] if spec["codec"] == "literal"])
        loaded.tables["parquet"] = partial(_saved_table, kept, entry)  # given ``loaded`` when called: no cycle
    return PendingFrame(table.num_rows, loaded)


def _stored_type(kind: Any) -> Any:
    """The Arrow type a column read as ``kind`` is stored as (a dictionary's: its values' type)."""
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def _spec_key(spec: dict[str, Any]) -> str:
    """A column's entry in evalframe.json as one text (parts whose entries are equal make their columns alike)."""
    return json.dumps(spec, sort_keys=True)


def _dictionary_columns(schema: Any, entry: dict[str, Any]) -> list[str]:
    """The columns read as dictionaries (codes and distinct texts, a table per row group): the string-dtype text
    columns, stored as strings, whose repeated texts (a query's, a row type) are then held once per row group; their
    Series are made of the decoded texts (:func:`_text_column`)."""
    stored = {field.name: field.type for field in schema}
    return [spec["name"] for spec in entry["columns"]
            if spec["codec"] == "text" and spec["name"] in stored
            and (types.is_string(stored[spec["name"]]) or types.is_large_string(stored[spec["name"]]))
            and isinstance(pd.api.types.pandas_dtype(spec["dtype"]), pd.StringDtype)]


def _never_made() -> pd.Series:  # a list column is made from its distinct cells (LoadedColumns.column)
    raise AssertionError("a coded list column is made from its cells")


def _native_column(column: Any, dtype: Any) -> pd.Series:
    # a numpy column of Arrow's is its buffer, read-only: copied (deep=True), else a cell set in the built frame
    # (frame.at[row, "f1"] = 0.0) raised "assignment destination is read-only"
    series = (column.to_pandas().copy(deep=True) if isinstance(dtype, type(pd.api.types.pandas_dtype("float64")))
              else pd.Series(column.to_pylist(), dtype=object))
    return series.astype(dtype)


def _saved_table(table: Any, entry: dict[str, Any], source: LoadedColumns,
                 node: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """What ``save(format="parquet")`` writes of node ``node`` loaded from ``table`` and ``entry``: the arrays and
    manifest entry :func:`encode_frame` makes of the loaded frame, without building it.

    A column :func:`encode_frame` writes as the Arrow array it was read as (numbers of the recorded dtype's Arrow type,
    flat lists, strings without a missing value) is taken from ``table`` (a list column with Arrow's default field
    name, as :func:`encode_frame` makes it); any other column is made (``source``) and encoded as :func:`encode_frame`
    encodes it.
    """
    arrays: dict[str, Any] = {}
    specs: dict[str, dict[str, Any]] = {}
    others = []
    for spec in entry["columns"]:
        name = spec["name"]
        if spec["codec"] == "literal":
            others.append(name)
            continue
        column, dtype = table.column(name), source.dtypes[name]
        if spec["codec"] == "native" and column.type == _arrow_type_of(dtype):
            arrays[name] = column.combine_chunks()
            specs[name] = {"name": name, "dtype": str(dtype), "codec": "native"}
        elif spec["codec"] == "list":
            kind = pa.large_list if pa.types.is_large_list(column.type) else pa.list_
            arrays[name] = column.combine_chunks().cast(kind(column.type.value_type))
            specs[name] = {"name": name, "dtype": "object", "codec": "list"}
        elif (spec["codec"] == "text" and spec.get("empty", "empty") == "empty" and isinstance(dtype, pd.StringDtype)
              and dtype.storage == "pyarrow" and not column.null_count
              and _stored_type(column.type) in (pa.large_string(), pa.string() if pa.types.is_dictionary(column.type) else None)):
            # (texts read as a dictionary: decoded, as encode_frame writes the column made of them)
            arrays[name] = column.cast(pa.large_string()).combine_chunks()
            specs[name] = {"name": name, "dtype": str(dtype), "codec": "text", "empty": "empty"}
        else:
            others.append(name)
    if others:  # encoded as encode_frame encodes them, from the columns as loaded
        made, made_entry = encode_frame(node, pd.DataFrame({name: source.column(name) for name in others}, copy=False))
        arrays.update(made)
        specs.update({spec["name"]: spec for spec in made_entry["columns"]})
    names = [spec["name"] for spec in entry["columns"]]
    return ({name: arrays[name] for name in names},
            {"file": f"{node}.parquet", "rows": table.num_rows, "columns": [specs[name] for name in names]})
