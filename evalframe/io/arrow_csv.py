"""Read a CSV evalframe wrote with pyarrow's multi-threaded CSV reader, when pyarrow is installed.

The result is the frame ``pandas.read_csv`` gives in :func:`evalframe.io.csv.read` before the
columns are decoded: float64 columns as numbers, every other column as Arrow-backed
strings (a literal column is then factorised in Arrow: only its distinct texts become Python
strings). Anything this reader is not sure to read exactly as pandas does (other native dtypes,
CSV options, a file that does not parse) returns None, and the pandas reader takes over; it also
words the error messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

__all__ = ["read_csv"]

#: Native dtypes Arrow parses as pandas does (both round floats correctly). Not int64: Arrow also takes "0x1".
_NUMBERS = {"float64": "float64"}


def read_csv(source: BinaryIO, path: Path, specs: list[dict[str, Any]], csv_options: dict[str, Any],
             read_csv_kwargs: dict[str, Any]) -> pd.DataFrame | None:
    """The columns of the opened file ``source`` as described by ``specs``, or None when pandas should read it.

    ``path`` is the file's name for messages; a row with too few or too many cells makes Arrow fail,
    so pandas reads the file again and names the row.
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    sep = csv_options.get("sep", ",")
    if read_csv_kwargs or csv_options.get("encoding", "utf-8").lower().replace("_", "-") not in ("utf-8", "utf8") \
            or len(sep) != 1:
        return None
    types = {}
    for spec in specs:
        if spec["codec"] == "native":
            if spec["dtype"] not in _NUMBERS:
                return None
            types[spec["name"]] = getattr(pa, _NUMBERS[spec["dtype"]])()
        else:
            types[spec["name"]] = pa.large_string()
    try:
        source.seek(0)
        table = pacsv.read_csv(
            source,
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
            # an empty cell, quoted or not, is a missing number; in text columns it stays "" (strings_can_be_null)
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[""], strings_can_be_null=False,
                                                 quoted_strings_can_be_null=True),
        )
    except (pa.ArrowException, OSError):
        return None
    if table.column_names != [spec["name"] for spec in specs]:
        return None
    columns = {}
    for spec in specs:
        column = table.column(spec["name"])
        if spec["codec"] == "native":
            if pc.any(pc.is_nan(column)).as_py():  # "nan" text: evalframe writes NaN as an empty cell
                return None  # pandas refuses it and names the cell
            columns[spec["name"]] = pd.Series(column.to_numpy(), dtype=spec["dtype"], copy=False)
        else:
            columns[spec["name"]] = pd.Series(pd.arrays.ArrowStringArray(column), copy=False)
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows), copy=False)


def text_column(column: pd.Series, dtype: Any, empty_is_missing: bool) -> pd.Series:
    """A string column read by :func:`read_csv` in its saved string dtype ("" is the missing value if so marked)."""
    if empty_is_missing:
        column = column.where(column != "", pd.NA)
    return column.astype(dtype)

