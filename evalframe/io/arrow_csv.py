"""Read a CSV evalframe wrote with pyarrow's multi-threaded CSV reader.

The result is the frame ``pandas.read_csv`` gives in :func:`evalframe.io.csv.read` before the
columns are decoded: float64 columns as numbers, every other column as Arrow-backed
strings (a literal column is then factorised in Arrow: only its distinct texts become Python
strings). Anything this reader is not sure to read exactly as pandas does (other native dtypes,
CSV options, a file that does not parse) returns None, and the pandas reader takes over; it also
words the error messages.
"""

from __future__ import annotations

import math
import mmap
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..frames.arrays import DistinctLists, object_array

__all__ = ["factorize_texts", "parse_list_texts", "read_csv", "text_column"]

#: Native dtypes Arrow parses as pandas does (both round floats correctly). Not int64: Arrow also takes "0x1".
_NUMBERS = {"float64": "float64"}


def read_csv(source: BinaryIO, path: Path, specs: list[dict[str, Any]], csv_options: dict[str, Any],
             read_csv_kwargs: dict[str, Any]) -> pd.DataFrame | None:
    """The columns of the opened file ``source`` as described by ``specs``, or None when pandas should read it.

    ``path`` is the file's name for messages; a row with too few or too many cells makes Arrow fail,
    so pandas reads the file again and names the row.
    """
    sep = csv_options.get("sep", ",")
    # Arrow takes one ASCII byte but NUL as its delimiter (another raised ValueError: "Expecting an ASCII character")
    if read_csv_kwargs or csv_options.get("encoding", "utf-8").lower().replace("_", "-") not in ("utf-8", "utf8") \
            or len(sep) != 1 or not "\x01" <= sep <= "\x7f":
        return None
    types = {}
    for spec in specs:
        if spec["codec"] == "native":
            if spec["dtype"] not in _NUMBERS:
                return None
            types[spec["name"]] = getattr(pa, _NUMBERS[spec["dtype"]])()
        else:
            types[spec["name"]] = pa.large_string()
    data = _file_bytes(source)
    block_size = None if data is None else _block_size(data)
    if block_size is None:
        return None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(block_size=block_size),
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
            values = column.to_numpy()  # float64, the one type of _NUMBERS
            # one chunk is Arrow's buffer, read-only: copied, else a cell set in the frame raised "assignment
            # destination is read-only" (several chunks are concatenated into a new array already)
            columns[spec["name"]] = values if values.flags.writeable else values.copy()
        else:
            columns[spec["name"]] = pd.arrays.ArrowStringArray(column)
    # arrays, not Series: a Series with an index of its own would be realigned to the frame's, one by one
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows), copy=False)


def _file_bytes(source: BinaryIO) -> Any:
    """The whole file's bytes, mapped (else read) apart from ``source``'s position; None for an empty file.

    Arrow's reader must never be handed ``source`` itself: its read-ahead tasks keep calling ``source.read``
    after the reader has raised (e.g. "straddling object straddles two block boundaries" for a row longer than
    its 1 MiB block), so they took blocks from under the pandas reader that reads the same handle next: a load
    refused the file, or read a cell cut short, now and then. A buffer has no position to share.
    """
    try:
        if os.fstat(source.fileno()).st_size == 0:
            return None
        return mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)  # the file's pages, not a copy
    except (AttributeError, OSError, ValueError):  # not a plain file (a test's BytesIO)
        source.seek(0)
        data = source.read()
        return data or None


#: Arrow's own block size (1 MiB), the first tried by :func:`_block_size`, and how many sizes after it are tried.
_BLOCK_SIZE = 1 << 20
_BLOCK_SIZES_TRIED = 64
#: The bytes counted at a time when quotes are counted (bounds the temporary array of the comparison).
_COUNTED_BYTES = 1 << 20


def _block_size(data: Any) -> int | None:
    """A block size at which Arrow's reader reads ``data`` whole, or None (then pandas reads the file).

    Arrow (up to 26 at least, apache/arrow#51368) drops the "\\n" that starts a block after a block ending with
    "\\r", even inside a quoted cell: a text holding "\\r\\n" whose "\\r" was the last byte of a block came back
    one character short, without an error. Blocks are the file's bytes cut every ``block_size`` bytes, so the first
    size from Arrow's own is taken on whose cuts no "\\r" meets a "\\n" inside quotes (a look at two bytes per
    block). Outside quotes such a cut splits a line end, which Arrow reads right (every line of a
    ``csv.QUOTE_MINIMAL`` file ends with "\\r\\n", so cuts land on line ends often): a cut is inside quotes when an
    odd number of quote characters come before it, as the files evalframe writes quote (a quote inside a cell is
    doubled, and a cell holding one is quoted), counted only when a cut meets "\\r\\n".
    """
    bytes_ = np.frombuffer(data, dtype=np.uint8)
    quotes = _QuoteCounts(bytes_)
    for size in range(_BLOCK_SIZE, _BLOCK_SIZE + _BLOCK_SIZES_TRIED):
        starts = bytes_[size::size]  # the first byte of every block but the first
        cuts = (np.flatnonzero((bytes_[size - 1::size][:len(starts)] == 13) & (starts == 10)) + 1) * size
        if not any(quotes.before(cut) % 2 for cut in cuts.tolist()):
            return size
    return None


class _QuoteCounts:
    """How many quote characters come before a position of a file's bytes: counted once per 1 MiB piece (on the
    first question), then a piece's part per question."""

    def __init__(self, bytes_: np.ndarray) -> None:
        self.bytes = bytes_
        self.pieces: np.ndarray | None = None  # quotes before the start of each piece

    def _count(self, start: int, stop: int) -> int:
        return int(np.count_nonzero(self.bytes[start:stop] == 34))

    def before(self, position: int) -> int:
        if self.pieces is None:
            counts = [self._count(start, start + _COUNTED_BYTES) for start in range(0, len(self.bytes), _COUNTED_BYTES)]
            self.pieces = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
        piece = position // _COUNTED_BYTES
        return int(self.pieces[piece]) + self._count(piece * _COUNTED_BYTES, position)


def text_column(column: pd.Series, dtype: Any, empty_is_missing: bool) -> pd.Series:
    """A string column read by :func:`read_csv` in its saved string dtype ("" is the missing value if so marked)."""
    if empty_is_missing:
        column = column.where(column != "", pd.NA)
    return column.astype(dtype)



#: The shapes of list texts parsed in Arrow (:func:`parse_list_texts`), as ``repr`` writes them: items separated
#: by ", ", floats in repr's forms (a "." or an exponent, so never read as ints), ints of up to 18 digits without
#: leading zeros (within int64), strings single-quoted without a quote, backslash or line break inside (so without
#: escapes: the item is the text between its quotes). "[]" is apart (it is every kind's empty list).
_FLOAT = r"-?[0-9]+(?:\.[0-9]+(?:e[+-][0-9]+)?|e[+-][0-9]+)"
_INT = r"(?:0|-?[1-9][0-9]{0,17})"
_STRING = r"'[^'\\\n\r]*'"
_LIST_SHAPES = {kind: rf"^\[{item}(?:, {item})*\]$" for kind, item in (("float", _FLOAT), ("int", _INT), ("str", _STRING))}
def parse_list_texts(texts: pd.Series, parse: Callable[[list[str], np.ndarray], list[Any]]) -> DistinctLists | None:
    """The literal texts of an Arrow-backed string column as its distinct values and a code per row, or None
    when the column is not Arrow-backed (or pyarrow is missing).

    The texts are factorised in Arrow (codes in order of first appearance, as ``pandas.factorize``); the
    distinct texts of the common shapes (:data:`_LIST_SHAPES`: flat lists of floats, ints or plain strings as
    ``repr`` writes them) are split and cast column-wide, and their Python lists built by Arrow; ``""`` is None
    and ``"nan"`` NaN. Every other distinct text (and a group whose floats do not read back finite) goes to
    ``parse(texts, codes)``, the exact parser, with the codes numbering those texts (a bad text's row is found
    from them).
    """
    array = texts.array
    if not isinstance(array, pd.arrays.ArrowExtensionArray):
        return None
    column = array.__arrow_array__()
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)) or column.null_count:
        return None
    codes, dictionary = factorize_texts(column)
    values = np.empty(len(dictionary), dtype=object)
    done = np.zeros(len(dictionary), dtype=bool)
    for text, value in (("", None), ("nan", math.nan)):
        found = np.flatnonzero(pc.equal(dictionary, text).to_numpy(zero_copy_only=False))
        values[found] = value
        done[found] = True
    empty = np.flatnonzero(pc.equal(dictionary, "[]").to_numpy(zero_copy_only=False))
    values[empty] = object_array([[] for _ in range(len(empty))])
    done[empty] = True
    for kind, shape in _LIST_SHAPES.items():
        rows = np.flatnonzero(pc.match_substring_regex(dictionary, shape).to_numpy(zero_copy_only=False) & ~done)
        if not len(rows):
            continue
        lists = _split_lists(dictionary.take(pa.array(rows)), kind)
        if lists is not None:
            values[rows] = lists
            done[rows] = True
    rest = np.flatnonzero(~done)
    if len(rest):
        numbering = np.full(len(dictionary), -1, dtype=np.int64)
        numbering[rest] = np.arange(len(rest))
        values[rest] = object_array(parse(dictionary.take(pa.array(rest)).to_pylist(), numbering[codes]))
    return DistinctLists(codes, values)


def factorize_texts(texts: Any) -> tuple[np.ndarray, Any]:
    """``pandas.factorize`` of an Arrow string array without nulls: int64 codes in order of first appearance
    and the distinct texts (an Arrow array)."""
    encoded = pc.dictionary_encode(texts)
    encoded = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False), encoded.dictionary


def _split_lists(texts: Any, kind: str) -> np.ndarray | None:
    """The Python lists of non-empty list texts of one shape (see :data:`_LIST_SHAPES`); None when a float
    does not read back finite (the exact parser then reads the texts)."""
    quote = 1 if kind == "str" else 0
    inner = pc.utf8_slice_codeunits(texts, 1 + quote, -1 - quote)
    lists = pc.split_pattern(inner, "', '" if kind == "str" else ", ")
    if kind == "str":
        return object_array(lists.to_pylist())
    numbers = pc.cast(pc.list_flatten(lists), pa.float64() if kind == "float" else pa.int64())
    if kind == "float" and not np.isfinite(numbers.to_numpy(zero_copy_only=False)).all():
        return None  # e.g. 1e+400: read as the exact parser reads it
    offsets = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64).cumsum()
    typed = pa.LargeListArray.from_arrays(pa.array(np.concatenate([[0], offsets]).astype(np.int64)), numbers)
    return object_array(typed.to_pylist())  # Arrow's conversion: faster than building the lists with numpy
