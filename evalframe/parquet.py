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
from .io import _encode_frame, decode_column

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SaveError('Parquet needs pyarrow: pip install "evalframe[parquet]"') from exc

__all__ = ["encode_frame", "write", "read"]

_SCALAR_TYPES = {float: pa.float64(), int: pa.int64(), str: pa.string(), bool: pa.bool_()}


def _list_type(series: pd.Series) -> pa.DataType | None:
    """The Parquet list type for a column of flat lists of one scalar type (None cells allowed), else None."""
    values = series.tolist()
    if not set(map(type, values)) <= {list, type(None)}:
        return None
    element_types = {type(v) for cell in values if cell is not None for v in cell}
    if len(element_types) != 1:
        return None if element_types else pa.list_(pa.float64())
    kind = element_types.pop()
    if kind not in _SCALAR_TYPES:
        return None
    if kind is float and not all(math.isfinite(v) for cell in values if cell is not None for v in cell):
        return None
    if kind is int and not all(-(2**63) <= v < 2**63 for cell in values if cell is not None for v in cell):
        return None
    return pa.list_(_SCALAR_TYPES[kind])


def encode_frame(node: str, frame: pd.DataFrame) -> tuple[pa.Table, dict[str, Any]]:
    cells, entry = _encode_frame(node, frame)
    arrays = {}
    for spec in entry["columns"]:
        name = spec["name"]
        if spec["codec"] == "native":
            arrays[name] = pa.Array.from_pandas(frame[name])
        elif spec["codec"] == "literal" and frame[name].dtype == object and (list_type := _list_type(frame[name])):
            spec["codec"] = "list"
            arrays[name] = pa.array(frame[name].tolist(), type=list_type)
        else:
            arrays[name] = pa.array(cells[name], type=pa.string())
    entry["file"] = f"{node}.parquet"
    return pa.table(arrays), entry


def write(path: Path, table: pa.Table) -> None:
    pq.write_table(table, path)


def read(path: Path, entry: dict[str, Any]) -> pd.DataFrame:
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
            columns[spec["name"]] = decode_column(path, spec, pd.Series(column.to_pylist(), dtype=object))
    return pd.DataFrame(columns)
