"""A pandas table as the kind of table asked for (``backend=``): pandas as it is, a pyarrow Table, a polars DataFrame.

The analyses build their tables in pandas (one code path); :func:`as_backend` converts the finished table once,
at the public entry point: Arrow by ``pyarrow.Table.from_pandas`` (the frame's named index levels become its first
columns, and the pandas metadata Arrow keeps gives the same frame back with ``to_pandas()``; numeric columns are
taken over without a copy where pandas holds them in one block), polars by ``polars.from_arrow`` of that table
(imported here, only when asked for). ``docs/storage.md#frames-in-and-out``.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pyarrow as pa

from ..errors import InvalidParameterError
from ..options import OutputOptions

__all__ = ["as_backend", "records_as_backend", "POLARS_INSTALL"]

#: What to run when polars is asked for and missing.
POLARS_INSTALL = "pip install polars"


def as_backend(table: pd.DataFrame, backend: str) -> Any:
    """``table`` as a pandas DataFrame (itself), a pyarrow Table or a polars DataFrame.

    Parameters
    ----------
    table : pandas.DataFrame
        An analysis' table (its index: the query ids, the nodes, the metrics compared, ...).
    backend : {"pandas", "arrow", "polars"}
        The kind of table to return (checked: :class:`evalframe.options.OutputOptions`).

    Returns
    -------
    pandas.DataFrame, pyarrow.Table or polars.DataFrame
        The same values; in Arrow and polars each named index level is a column before the others (an unnamed
        RangeIndex is left out, as ``Table.from_pandas`` leaves it).

    Raises
    ------
    InvalidParameterError
        An unknown ``backend`` (naming the choices); ``"polars"`` without polars installed (naming ``pip install
        polars``); a column Arrow cannot hold (cells of mixed types), naming it.

    Examples
    --------
    >>> table = pd.DataFrame({"AP": [0.5, 1.0]}, index=pd.Index(["q1", "q2"], name="multilabel_id"))
    >>> as_backend(table, "arrow").to_pydict()
    {'multilabel_id': ['q1', 'q2'], 'AP': [0.5, 1.0]}
    >>> as_backend(table, "arrow").to_pandas().equals(table)
    True
    """
    backend = OutputOptions(backend=backend).backend
    if backend == "pandas":
        return table
    polars = _polars() if backend == "polars" else None  # checked before any conversion
    try:
        arrow = pa.Table.from_pandas(table, preserve_index=None)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        bad = next((str(name) for name in [*table.index.names, *table.columns] if name is not None
                    and not _converts(table, name)), None)
        raise InvalidParameterError(f"backend={backend!r}: the column {bad!r} cannot be an Arrow column ({exc}); take "
                                    "the pandas table (backend='pandas') and convert that column first.",
                                    parameter="backend") from None
    metadata = json.loads((arrow.schema.metadata or {}).get(b"pandas", b"{}"))
    index = [name for name in metadata.get("index_columns", []) if isinstance(name, str)]  # a RangeIndex: a dict
    if index:  # the index levels first, as the frame shows them (the metadata still makes them the index again)
        arrow = arrow.select(index + [name for name in arrow.column_names if name not in index])
    if polars is None:
        return arrow
    return polars.from_arrow(arrow)


def _converts(table: pd.DataFrame, name: Any) -> bool:
    """Whether the column (or index level) ``name`` converts to Arrow on its own."""
    try:
        column = table[name] if name in table.columns else table.index.get_level_values(name)
        pa.array(column, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, KeyError):
        return False
    return True


def _polars() -> Any:
    """The polars module, or the error naming its install line."""
    try:
        import polars
    except ImportError:
        raise InvalidParameterError(f"backend='polars' needs polars, which is not installed: {POLARS_INSTALL} (or "
                                    "backend='arrow' for a pyarrow Table, backend='pandas').",
                                    parameter="backend") from None
    return polars


def records_as_backend(records: list[dict[str, Any]], backend: str) -> Any:
    """Records (dicts, such as the worst queries') as a table: one row per record, one column per key (in order of
    first appearance), nested dicts and lists as pandas cells, or as Arrow / polars structs and lists.

    Examples
    --------
    >>> records = [{"multilabel_id": "q1", "metrics": {"f1": 0.0}}, {"multilabel_id": "q2", "metrics": {"f1": 0.5}}]
    >>> records_as_backend(records, "arrow").column("metrics").to_pylist()
    [{'f1': 0.0}, {'f1': 0.5}]
    >>> records_as_backend(records, "pandas")["multilabel_id"].tolist()
    ['q1', 'q2']
    """
    backend = OutputOptions(backend=backend).backend
    if backend == "pandas":
        return pd.DataFrame.from_records(records) if records else pd.DataFrame()
    polars = _polars() if backend == "polars" else None
    try:
        arrow = pa.Table.from_pylist(records)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        keys = list(dict.fromkeys(key for record in records for key in record))
        bad = next((key for key in keys if not _field_converts([record.get(key) for record in records])), None)
        raise InvalidParameterError(f"backend={backend!r}: the field {bad!r} holds values of different types, which "
                                    f"one Arrow column cannot hold ({exc}); take the list (backend=None) or the pandas "
                                    "table (backend='pandas').", parameter="backend") from None
    return arrow if polars is None else polars.from_arrow(arrow)


def _field_converts(values: list[Any]) -> bool:
    try:
        pa.array(values)
    except (pa.ArrowException, TypeError, ValueError):
        return False
    return True
