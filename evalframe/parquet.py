"""Parquet storage of node frames (extra ``evalframe[parquet]``): list columns typed natively.

Columns follow the CSV codecs of :mod:`evalframe.io`, recorded in ``evalframe.json`` so a round trip
is exact: numbers are stored natively, lists of one scalar type as Parquet lists (``list``),
texts as strings with their missing-value kind, anything else as Python literal text.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import LoadError, SaveError
from .io import _check_frame, _encode_frame, decode_column

__all__ = ["encode_frame", "write", "read"]


def _pyarrow() -> tuple[Any, Any]:
    """pyarrow and pyarrow.parquet, imported on first use (the extra is optional)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise SaveError('Parquet needs pyarrow: pip install "evalframe[parquet]"') from None
    return pyarrow, pyarrow.parquet


def _list_type(series: pd.Series) -> Any:
    """The Parquet list type for a column of flat lists of one scalar type (None cells allowed), else None."""
    values = series.tolist()
    if not set(map(type, values)) <= {list, type(None)}:
        return None
    element_types = {type(v) for cell in values if cell is not None for v in cell}
    if len(element_types) != 1:
        return None if element_types else _pyarrow()[0].list_(_pyarrow()[0].float64())
    pa, _ = _pyarrow()
    scalar_types = {float: pa.float64(), int: pa.int64(), str: pa.string(), bool: pa.bool_()}
    kind = element_types.pop()
    if kind not in scalar_types:
        return None
    if kind is float and not all(math.isfinite(v) for cell in values if cell is not None for v in cell):
        return None
    if kind is int and not all(-(2**63) <= v < 2**63 for cell in values if cell is not None for v in cell):
        return None
    return pa.list_(scalar_types[kind])


def encode_frame(node: str, frame: pd.DataFrame) -> tuple[Any, dict[str, Any]]:
    pa, _ = _pyarrow()
    # list columns stored natively skip the CSV encoding (their cells are never turned into text)
    _check_frame(node, frame)
    native_lists = {name: list_type for name in frame.columns
                    if frame[name].dtype == object and (list_type := _list_type(frame[name])) is not None}
    rest = frame.drop(columns=list(native_lists))
    cells, entry = (_encode_frame(node, rest) if len(rest.columns)
                    else ({}, {"file": "", "rows": len(frame), "columns": []}))
    specs = {spec["name"]: spec for spec in entry["columns"]}
    arrays, ordered = {}, []
    for name in frame.columns:
        if name in native_lists:
            spec = {"name": name, "dtype": "object", "codec": "list"}
            arrays[name] = pa.array(frame[name].tolist(), type=native_lists[name])
        else:
            spec = specs[name]
            arrays[name] = (pa.Array.from_pandas(frame[name]) if spec["codec"] == "native"
                            else pa.array(cells[name], type=pa.string()))
        ordered.append(spec)
    entry["columns"] = ordered
    entry["file"] = f"{node}.parquet"
    return pa.table(arrays), entry


def write(path: Path, table: Any) -> None:
    _pyarrow()[1].write_table(table, path)


def read(path: Path, entry: dict[str, Any], codings: dict[str, Any]) -> pd.DataFrame:
    try:
        pa, pq = _pyarrow()
    except SaveError as exc:
        raise LoadError(f"{path}: {exc}") from None
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise LoadError(f"{path}: cannot be read as Parquet ({exc}).") from None
    names = [spec["name"] for spec in entry["columns"]]
    if table.column_names != names or table.num_rows != entry.get("rows", table.num_rows):
        raise LoadError(f"{path}: its columns or row count differ from those evalframe.json records.")
    columns = {}
    for spec in entry["columns"]:
        column = table.column(spec["name"])
        if spec["codec"] == "native":
            dtype = pd.api.types.pandas_dtype(spec["dtype"])
            series = (column.to_pandas() if isinstance(dtype, type(pd.api.types.pandas_dtype("float64")))
                      else pd.Series(column.to_pylist(), dtype=object))
            columns[spec["name"]] = series.astype(dtype)
        elif spec["codec"] == "list":
            columns[spec["name"]] = pd.Series(column.to_pylist(), dtype=object)
        else:
            columns[spec["name"]] = decode_column(path, spec, pd.Series(column.to_pylist(), dtype=object))[0]
    return pd.DataFrame(columns)
