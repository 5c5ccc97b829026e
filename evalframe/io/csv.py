"""evalframe's own CSV files: one ``<node>.csv`` per node, written and read as ``evalframe.json`` describes.

Cells are encoded by :mod:`evalframe.io.codecs`; this module writes them (as texts made column-wide by
:mod:`evalframe.io.csv_render`, joined into lines by Arrow, or with Python's C csv writer for other options: the same
bytes, docs/performance.md#saving-csv) with the options :mod:`evalframe.io.csv_dialect` allows, and reads them back
(with pyarrow's reader, :mod:`evalframe.io.arrow_csv`, when it is installed and sure to read the file as pandas does;
else with pandas). Rows with too few or too many cells and cells of a
native column that do not parse are refused with a :class:`LoadError` naming the row and column
(see docs/persistence.md#loading).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from collections.abc import Callable
from typing import Any, BinaryIO, Literal, NoReturn, cast, overload

import numpy as np
import pandas as pd

from . import arrow_csv
from .codecs import LoadedColumns, decode_column, kept_column, kept_lists
from .csv_dialect import close_encoding, codec_name, encoding_problem
from .csv_render import TextColumn
from .folder import Folder
from .._validation import few_names, short_repr
from ..columns import METRIC_LIST_COLUMNS
from ..errors import LoadError
from ..frames.arrays import DistinctLists
from ..frames.pending import PendingFrame
from .literals import LiteralParser

__all__ = ["EXACT_FLOATS", "check_dialect", "check_rows", "read", "read_frame", "write", "writes_texts"]

#: pandas 3 parses floats exactly by default and deprecates the option; 2.x needs it for exact floats.
EXACT_FLOATS = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def write(path: Path, columns: dict[str, list[Any]] | dict[str, TextColumn], *, sep: str, encoding: str,
          quoting: int) -> None:
    """One header row and the encoded cells: Python values (:func:`evalframe.io.codecs.encode_frame`) with
    Python's C csv writer (floats are written by repr: exact), or texts made column-wide
    (:func:`evalframe.io.csv_render.encode_frame_texts`, where :func:`writes_texts` allows the options) with Arrow."""
    if any(isinstance(column, TextColumn) for column in columns.values()):
        _write_texts(path, cast("dict[str, TextColumn]", columns), sep=sep, quoting=quoting)
        return
    # QUOTE_MINIMAL quotes a field holding a character of the line terminator: with "\n" alone, a bare "\r"
    # in a text would go out unquoted and read back as a line break, so those files end their lines with "\r\n"
    terminator = "\r\n" if quoting == csv.QUOTE_MINIMAL else "\n"
    with open(path, "w", encoding=encoding, newline="") as handle:
        # the header is always quoted: unquoted, a name's leading BOM would be taken for the file's
        # encoding mark and its surrounding spaces are at the mercy of the reader
        csv.writer(handle, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator=terminator).writerow(list(columns))
        # any int: csv.writer refuses an unknown value itself, and Python 3.12 adds QUOTE_STRINGS (4) and QUOTE_NOTNULL (5)
        writer = csv.writer(handle, delimiter=sep, quoting=quoting, lineterminator=terminator)  # type: ignore[arg-type]
        writer.writerows(zip(*cast("dict[str, list[Any]]", columns).values()))


#: Characters a number's text may hold (digits, signs, "." and the letters of "1e+16", "nan", "inf", "True", "False"):
#: a separator among them would make the csv module quote numbers, so such files are written by the csv module.
_NUMBER_CHARACTERS = frozenset("0123456789.+-eEnaifTrulsF")
#: Rows joined into lines per Arrow call (bounds the memory the lines take besides the columns' texts).
_BATCH_ROWS = 1 << 16


def writes_texts(sep: Any, encoding: Any, quoting: Any) -> bool:
    """Whether :func:`write` writes texts made column-wide with Arrow (:func:`evalframe.io.csv_render.encode_frame_texts`)
    as the bytes the csv module writes for the cells of :func:`evalframe.io.codecs.encode_frame` with these options.

    It does for UTF-8 files quoted with ``csv.QUOTE_NONNUMERIC`` (the default) or ``csv.QUOTE_ALL``, a
    one-character separator that no number text holds, and pyarrow installed; any other file is written by
    :func:`write`.
    """
    if type(quoting) is not int or quoting not in (csv.QUOTE_NONNUMERIC, csv.QUOTE_ALL):
        return False
    if not isinstance(sep, str) or len(sep) != 1 or sep in _NUMBER_CHARACTERS or sep in '"\r\n':
        return False
    try:
        if not isinstance(encoding, str) or codecs.lookup(encoding).name != "utf-8":
            return False
        import pyarrow  # noqa: F401
    except (LookupError, ImportError):
        return False
    return True


def _write_texts(path: Path, columns: dict[str, TextColumn], *, sep: str, quoting: int) -> None:
    """Write the header row and the columns' texts (:func:`evalframe.io.csv_render.encode_frame_texts`) as UTF-8.

    The bytes are those the csv module writes for the same cells, when
    :func:`writes_texts` allows these options: every field but a number quoted (every field with
    ``csv.QUOTE_ALL``), quotes doubled, a missing number a quoted empty cell, lines ending with "\\n".
    Fields are quoted and rows joined into lines with Arrow's string kernels, a batch of rows at a time.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def text(value: str) -> Any:
        return pa.scalar(value, pa.large_string())

    # a line is one join of the fields and the constant texts between them (quotes, separators, the line end)
    layout: list[str | int] = []  # a text, or the position of a column
    escaped, missing = [], []
    for position, column in enumerate(columns.values()):
        quote = '"' if not column.numeric or quoting == csv.QUOTE_ALL else ""
        layout += [(sep if position else "") + quote, position, quote]
        escaped.append(not column.numeric and bool(pc.any(pc.match_substring(column.values, '"')).as_py()))
        missing.append("" if quote else '""')  # QUOTE_NONNUMERIC writes a missing number as "" (the csv module's None)
    layout.append("\n")
    texts = list(columns.values())
    rows = len(texts[0]) if texts else 0
    header = io.StringIO()
    csv.writer(header, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(list(columns))
    with open(path, "wb") as handle, ThreadPoolExecutor(max_workers=1) as writer:
        handle.write(header.getvalue().encode("utf-8"))
        written: Future[Any] | None = None
        for start in range(0, rows, _BATCH_ROWS):  # batches small enough for Arrow to reuse their memory
            arguments: list[Any] = []
            constant = ""
            for piece in layout:
                if isinstance(piece, str):
                    constant += piece
                    continue
                field = texts[piece].rows(start, start + _BATCH_ROWS)  # a distinct cell's text laid out on its rows here
                if escaped[piece]:
                    field = pc.replace_substring(field, '"', '""')
                if field.null_count:
                    field = field.fill_null(missing[piece])
                if constant:
                    arguments.append(text(constant))
                arguments.append(field)
                constant = ""
            arguments.append(text(constant))
            lines = pc.binary_join_element_wise(*arguments, text(""))
            _, offsets, data = lines.buffers()
            ends = np.frombuffer(offsets, dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
            if written is not None:
                written.result()
            # the lines lie end to end; they are written while the next batch is joined (neither holds the GIL)
            written = writer.submit(handle.write, memoryview(data)[int(ends[0]):int(ends[-1])])
        if written is not None:
            written.result()


#: Separators a spreadsheet writes instead of a comma (Excel: ";" where the decimal mark is a comma).
_OTHER_SEPARATORS = (";", "\t", "|")
#: How much of a file the dialect check reads.
_HEAD = 1 << 16


def check_dialect(source: BinaryIO, path: Path, options: dict[str, Any]) -> None:
    """Refuse a CSV not written in ``options``' separator and encoding, saying which ``sep`` / ``encoding`` to pass.

    A CSV a spreadsheet saved (Excel: semicolons, Windows-1252 or UTF-8 with a byte-order mark) otherwise
    fails with a parser error about cell counts or bytes. The header row and the first 64 KiB are checked.

    Examples
    --------
    >>> import io, pathlib
    >>> check_dialect(io.BytesIO("query;answer\\nwhere?;là\\n".encode("cp1252")), pathlib.Path("Reader.csv"),
    ...               {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    evalframe.errors.LoadError: Reader.csv looks like a CSV saved by a spreadsheet (Excel): its header row is ... \
    Load it with sep=';', encoding='cp1252' (evalframe command: --sep ';' --encoding cp1252).
    """
    sep = options.get("sep", options.get("delimiter", ","))
    encoding = options.get("encoding") or "utf-8"
    if not isinstance(sep, str) or not sep or sep in '"\r\n':  # pandas would fail deep inside its parser, or blame the file
        raise LoadError(f"sep must be the CSV files' separator, e.g. ',' or ';' (not the quote or a line break); got "
                        f"{sep!r}.", parameter="sep")
    problem = encoding_problem(encoding)
    if problem is not None:  # the user's encoding= (--encoding): the manifest's was checked with the manifest
        raise LoadError(f"encoding {short_repr(encoding)} cannot read a CSV file: {problem}; pass e.g. 'utf-8', 'utf-8-sig' or "
                        f"'cp1252'.{close_encoding(encoding)}", parameter="encoding")
    name = codecs.lookup(encoding).name
    source.seek(0)
    head = source.read(_HEAD)
    source.seek(0)
    reasons, fixes = [], {}
    readable = encoding
    if head.startswith(codecs.BOM_UTF8) and name not in ("utf-8", "utf-8-sig"):
        reasons.append(f"it starts with a UTF-8 byte-order mark, which {encoding} reads as text")
        fixes["encoding"] = readable = "utf-8-sig"
    else:
        try:
            codecs.getincrementaldecoder(encoding)().decode(head, final=len(head) < _HEAD)
        except UnicodeDecodeError as exc:
            reasons.append(f"it is not {encoding} text (byte {exc.start + 1} is 0x{head[exc.start]:02x})")
            fixes["encoding"] = readable = _single_byte_encoding(head)
    if isinstance(sep, str) and len(sep) == 1:
        header = head.decode(readable, errors="replace").lstrip("\ufeff").split("\n", 1)[0]
        if sep not in header:
            found = [other for other in _OTHER_SEPARATORS if other != sep and other in header]
            if found:
                reasons.insert(0, f"its header row is separated by {found[0]!r}, not {sep!r}")
                fixes = {"sep": found[0], **fixes}
    if fixes:
        python = ", ".join(f"{key}={value!r}" for key, value in fixes.items())
        command = " ".join(f"--{key} {value!r}" if key == "sep" else f"--{key} {value}" for key, value in fixes.items())
        raise LoadError(f"{path} looks like a CSV saved by a spreadsheet (Excel): {'; '.join(reasons)}. Load it with "
                        f"{python} (evalframe command: {command}).")


def _encoding_hint(exc: Exception) -> str:
    """For bytes the encoding cannot decode beyond what check_dialect reads: which encoding to pass."""
    if not isinstance(exc, UnicodeDecodeError):
        return ""
    return (" A CSV saved by a spreadsheet (Excel) is often Windows-1252: load it with encoding='cp1252' "
            "(evalframe command: --encoding cp1252).")


def _single_byte_encoding(head: bytes) -> str:
    """Windows-1252 (what Excel writes on Windows) when it decodes the bytes, else Latin-1, which decodes any byte."""
    try:
        head.decode("cp1252")
    except UnicodeDecodeError:
        return "latin-1"
    return "cp1252"


def read_frame(source: BinaryIO, path: Path, **kwargs: Any) -> pd.DataFrame:
    """pandas.read_csv of an opened file (from its start); ``path`` words the errors."""
    source.seek(0)
    try:
        return pd.read_csv(source, **kwargs)
    except pd.errors.EmptyDataError:
        raise LoadError(f"{path}: the file is empty; an evaluation CSV has at least a header row.") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        _raise_for_bad_row(source, path, kwargs)
        raise LoadError(f"{path}: cannot be read as CSV ({type(exc).__name__}: {exc}).{_encoding_hint(exc)}") from None


#: read_csv options that keep the file's records as the csv module reads them (others: rows are not checked).
_ROW_CHECK_OPTIONS = frozenset({"sep", "delimiter", "encoding", "header", "dtype", "keep_default_na", "na_values",
                                "float_precision", "nrows"})


def _raise_for_bad_row(source: BinaryIO, path: Path, options: dict[str, Any]) -> None:
    """Raise a LoadError naming the first data row (1-based) whose cell count differs from the header's.

    pandas pads a row missing its last cells with empty cells (a short row loaded with eval_mode ''
    and changed the metrics) and words a long row by file line, so every row's cells are counted here
    with the csv module, whose quoting rules are those of the files evalframe and Haystack write.
    Blank lines are skipped, as pandas skips them.
    """
    if not set(options) <= _ROW_CHECK_OPTIONS:
        return
    sep = options.get("sep", options.get("delimiter", ","))
    if not isinstance(sep, str) or len(sep) != 1:
        return
    source.seek(0)
    text = io.TextIOWrapper(source, encoding=options.get("encoding") or "utf-8", newline="")
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, _MAX_FIELD))  # a cell may be as long as the file
    try:
        records = csv.reader(text, delimiter=sep, strict=False)
        header = next(records, None)
        if header is None:
            return
        row = 0
        for record in records:
            if not record:
                continue
            row += 1
            if len(record) != len(header):
                few = len(record) < len(header)
                raise LoadError(
                    f"{path}: data row {row} holds {len(record)} cells but the header names {len(header)} columns "
                    f"({'missing its last cells' if few else 'too many cells'}); the file was cut or edited. "
                    f"Fix that row{' (a cell holding the separator must be quoted)' if not few else ''}."
                )
    except (csv.Error, UnicodeDecodeError):
        return  # not a row-count problem: the caller words the error
    finally:
        csv.field_size_limit(limit)
        text.detach()


_MAX_FIELD = 2**31 - 1


def check_rows(source: BinaryIO, path: Path, frame: pd.DataFrame, options: dict[str, Any]) -> None:
    """Refuse rows with missing cells, which pandas reads as empty ones.

    A row missing cells leaves the last column empty there, so the rows are counted (a second pass
    over the file) only when the last column holds an empty or missing cell, or when pandas took
    the first column as an index (a first data row with one cell too many).
    """
    if not len(frame.columns):
        return
    last = frame.iloc[:, -1]
    empty = last.isna().any() or (last.dtype == object and (last == "").any()) or (
        isinstance(last.dtype, pd.StringDtype) and (last == "").any())
    if empty or not isinstance(frame.index, pd.RangeIndex):
        _raise_for_bad_row(source, path, options)


def _passed_dialect(recorded: dict[str, Any], given: dict[str, Any]) -> str | None:
    """The ``sep`` or ``encoding`` a load was given that differs from the one evalframe.json records (the files may
    have been rewritten with it, by a spreadsheet say), or None."""
    for key in ("sep", "encoding"):
        if key not in given or key not in recorded or not isinstance(given[key], str):
            continue
        if (codec_name(given[key]) != codec_name(recorded[key])) if key == "encoding" else given[key] != recorded[key]:
            return key
    return None


_UTF8_CODECS = ("utf-8", "utf-8-sig")
_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _refuse_misreading(folder: Folder, path: Path, name: str, recorded: str, given: str) -> None:
    """Refuse ``encoding=given`` for a file still in the UTF-8 ``recorded`` in evalframe.json, with non-ASCII text.

    Such a file was not rewritten (a spreadsheet's Windows code page is almost never valid UTF-8 past its first
    accented letter), and any other encoding reads each of its multi-byte letters as several: silently wrong text.
    A file that is not valid UTF-8, or is ASCII only, is read as passed. One pass over the file, 1 MiB at a time.
    """
    if codec_name(recorded) not in _UTF8_CODECS or codec_name(given) in _UTF8_CODECS or encoding_problem(given):
        return  # (an encoding that cannot read text is refused by the read, naming it)
    decoder = codecs.getincrementaldecoder(recorded)()
    line, piece, newlines = 0, b"", 0  # line: the 1-based line of the first non-ASCII byte (0: none yet)
    with folder.open_binary(name) as source:
        while chunk := source.read(1 << 20):
            if not line and (found := _NON_ASCII.search(chunk)) is not None:
                line = newlines + chunk.count(b"\n", 0, found.start()) + 1
                piece = chunk[found.start():found.start() + 4]
            newlines += chunk.count(b"\n")
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError:
                return  # not the file that was saved: read as passed
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return
    if not line:
        return  # ASCII only: every encoding reads it alike
    shown = piece.decode(recorded, errors="ignore")[:1]
    misread = piece[:len(shown.encode("utf-8"))].decode(given, errors="replace")
    sample = f" (line {line}: {shown!r} would read as {misread!r})" if shown else f" (line {line})"
    raise LoadError(f"{path}: the file is {recorded} text, as evalframe.json records, and encoding={given!r} would misread "
                    f"its non-ASCII letters{sample}; leave encoding out (or pass encoding={recorded!r}).",
                    parameter="encoding")


def read(folder: Folder, entry: dict[str, Any], csv_options: dict[str, Any], read_csv_kwargs: dict[str, Any],
         codings: dict[str, DistinctLists]) -> PendingFrame:
    """Read one CSV evalframe wrote, as a pending node (its columns decoded and checked, the frame built when asked
    for); the distinct cells of its metric list columns go to ``codings``."""
    path = folder.path / entry["file"]
    passed = _passed_dialect(csv_options, read_csv_kwargs)
    if passed == "encoding":
        _refuse_misreading(folder, path, entry["file"], csv_options["encoding"], read_csv_kwargs["encoding"])
    try:
        return _read(folder, path, entry, csv_options, read_csv_kwargs, codings)
    except LoadError as error:
        if passed is None or error.parameter is not None:
            raise
        # the file is not what the manifest says, but it was read as the caller said, not as the manifest says
        raise LoadError(f"{error} It was read with {passed} {read_csv_kwargs[passed]!r}, as passed, where evalframe.json "
                        f"records {csv_options[passed]!r}: leave {passed} out unless the files were rewritten with it.",
                        parameter=passed) from None


def _read(folder: Folder, path: Path, entry: dict[str, Any], csv_options: dict[str, Any], read_csv_kwargs: dict[str, Any],
          codings: dict[str, DistinctLists]) -> PendingFrame:
    specs = entry["columns"]
    # each distinct dtype text parsed once: pandas_dtype costs tens of microseconds, and a node may have 10^5 columns
    parsed = {text: pd.api.types.pandas_dtype(text) for text in {s["dtype"] for s in specs}}
    # string-dtype text columns are parsed straight into their dtype (an empty cell is "" or the missing value)
    direct = {s["name"] for s in specs if s["codec"] == "text" and isinstance(parsed[s["dtype"]], pd.StringDtype)}
    dtypes = {s["name"]: (parsed[s["dtype"]] if s["codec"] == "native" or s["name"] in direct else object) for s in specs}
    # narrow floats (float16, float32) are read as float64 and then narrowed only when that is exact: pandas would
    # round a cell to the recorded dtype, so a dtype edited in evalframe.json would change the numbers unseen
    narrow = {s["name"]: parsed[s["dtype"]] for s in specs if s["codec"] == "native" and _is_narrow_float(parsed[s["dtype"]])}
    # (a nullable Float32 too: pandas 2.2 parses a nullable Float64 column inexactly; NaN becomes <NA> in the cast)
    dtypes.update(dict.fromkeys(narrow, np.dtype("float64")))
    na_values = {s["name"]: [""] for s in specs if s["codec"] == "native"
                 or (s["name"] in direct and s.get("empty", "empty") != "empty")}
    options = {
        "header": 0, "dtype": dtypes, "keep_default_na": False, "na_values": na_values,
        **EXACT_FLOATS, "sep": csv_options.get("sep", ","),
        "encoding": csv_options.get("encoding", "utf-8"), **read_csv_kwargs,
    }
    if isinstance(options["sep"], str) and not options["sep"].isascii() and "engine" not in read_csv_kwargs:
        # pandas' C parser takes a one-byte separator only and falls back to its python parser with a ParserWarning
        # the user can do nothing about: asked for here (it parses floats exactly, and takes no float_precision)
        options["engine"] = "python"
        options.pop("float_precision", None)
    with folder.open_binary(entry["file"]) as source:
        check_dialect(source, path, options)
        if not read_csv_kwargs:  # (options of the user's may select or rename columns: then the read frame is checked)
            header = _header(source, options["sep"], options["encoding"])
            if header is not None:  # a header evalframe.json does not record is refused before the file is parsed
                _check_columns(path, header, [s["name"] for s in specs])
        # None: pyarrow missing, or not sure to read it as pandas does (a bad row, too): pandas reads it and words errors
        frame = arrow_csv.read_csv(source, path, specs, csv_options, read_csv_kwargs)
        if frame is not None:
            texts = {spec["name"]: arrow_csv.text_column(frame[spec["name"]], parsed[spec["dtype"]],
                                                         spec.get("empty", "empty") != "empty")
                     for spec in specs if spec["name"] in direct}
            return _decode_frame(path, frame, entry, direct, codings, texts)
        source.seek(0)
        try:
            frame = pd.read_csv(source, **options)
        except (ValueError, TypeError, OverflowError):  # a native column that does not parse: find the cell
            _raise_for_bad_row(source, path, options)
            _raise_for_bad_number(source, path, options, specs)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            _raise_for_bad_row(source, path, options)
            raise LoadError(f"{path}: cannot be read as CSV ({type(exc).__name__}: {exc}).{_encoding_hint(exc)}") from None
        check_rows(source, path, frame, options)
        frame = _narrowed(path, frame, narrow)
        found = dict(zip(frame.columns, map(str, frame.dtypes)))
        if any(spec["codec"] == "native" and found.get(spec["name"], spec["dtype"]) != spec["dtype"]
               for spec in specs):  # pandas 2.2 reads 2**63 in an int64 column as uint64
            _raise_for_bad_number(source, path, options, specs, found_only=True)
    return _decode_frame(path, frame, entry, direct, codings, {})


def _is_narrow_float(dtype: Any) -> bool:
    return (isinstance(dtype, np.dtype) and dtype.kind == "f" and dtype.itemsize < 8) or isinstance(dtype, pd.Float32Dtype)


def _narrowed(path: Path, frame: pd.DataFrame, narrow: dict[str, Any]) -> pd.DataFrame:
    """``frame`` with its ``narrow`` columns (read as float64) in their recorded dtypes, refused with the first cell
    that dtype cannot hold exactly (evalframe writes a narrow float's exact value)."""
    columns = {}
    for name, dtype in narrow.items():
        if name not in frame.columns:
            continue
        values = frame[name].to_numpy(dtype=np.float64)
        cast = frame[name].astype(dtype)
        back = cast.to_numpy(dtype=np.float64, na_value=np.nan)
        changed = np.flatnonzero(~((back == values) | (np.isnan(back) & np.isnan(values))))
        if len(changed):
            row = int(changed[0])
            raise LoadError(f"{path}: data row {row + 1}, column {name!r}: {float(values[row])!r} is not a {dtype} value "
                            f"(evalframe.json records dtype {str(dtype)!r}, which would read it as {float(back[row])!r}); the "
                            "file or evalframe.json was edited: save the result again.")
        columns[name] = cast
    if not columns:
        return frame
    # the frame built once: assigning the columns one by one rebuilds pandas' block list per column (quadratic)
    return pd.DataFrame({name: columns.get(name, frame[name]) for name in frame.columns}, copy=False)


@overload
def _raise_for_bad_number(source: BinaryIO, path: Path, options: dict[str, Any], specs: list[dict[str, Any]], *,
                          found_only: Literal[False] = ...) -> NoReturn: ...
@overload
def _raise_for_bad_number(source: BinaryIO, path: Path, options: dict[str, Any], specs: list[dict[str, Any]], *,
                          found_only: bool) -> None: ...
def _raise_for_bad_number(source: BinaryIO, path: Path, options: dict[str, Any], specs: list[dict[str, Any]], *,
                          found_only: bool = False) -> None:
    """Raise a LoadError naming the first cell of a native column that is not a valid value of its dtype
    (with ``found_only``, return when there is none)."""
    frame = read_frame(source, path, **{**options, "dtype": object, "na_values": {}})
    for spec in specs:
        if spec["codec"] == "native" and spec["name"] in frame.columns:
            texts = frame[spec["name"]].to_numpy(dtype=object)
            row = _first_invalid(texts, spec["dtype"])
            if row is not None:
                raise LoadError(f"{path}: data row {row + 1}, column {spec['name']!r}: {texts[row]!r} is not a "
                                f"valid {spec['dtype']} value. Fix or empty that cell.")
    if not found_only:
        raise LoadError(f"{path}: cannot be read as the CSV evalframe.json describes.")


def _first_invalid(texts: np.ndarray, dtype: str) -> int | None:
    """The position of the first cell text that is not a valid ``dtype`` value, or None.

    An empty cell is valid (a missing number); a text is valid when it converts and is not NaN ("nan" typed into a
    float column: evalframe writes NaN as an empty cell). Conversion is element-wise, so the cells before the first
    invalid one are exactly the prefixes that convert: the first invalid cell is found by bisection, with about
    log2(rows) conversions of a column's prefix instead of one conversion per cell.
    """
    filled = np.flatnonzero(texts != "")

    def valid(count: int) -> bool:  # whether the first ``count`` non-empty cells are
        try:
            return not pd.Series(texts[filled[:count]], dtype=object).astype(dtype).isna().any()
        except (ValueError, TypeError, OverflowError):
            return False

    if valid(len(filled)):
        return None
    good, bad = 0, len(filled)  # valid(good) and not valid(bad)
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if valid(middle) else (good, middle)
    return int(filled[bad - 1])


def _decode_frame(path: Path, frame: pd.DataFrame, entry: dict[str, Any], direct: set[str],
                  codings: dict[str, DistinctLists], decoded: dict[str, pd.Series]) -> PendingFrame:
    """Check a read frame against its manifest entry and decode its text and literal columns (``decoded``: the
    columns decoded already), as a pending node: a literal list column is held as its distinct cells and a code per
    row (:class:`DistinctLists`), its cells laid out on the rows when the column is first read."""
    specs = entry["columns"]
    _check_columns(path, list(frame.columns), [s["name"] for s in specs])
    if len(frame) != entry.get("rows", len(frame)):
        raise LoadError(f"{path}: holds {len(frame)} rows but evalframe.json records {entry['rows']}; "
                        "the file was cut or edited.")
    makers: dict[str, Callable[[], pd.Series]] = {}
    held: dict[str, Callable[[], DistinctLists]] = {}
    dtypes: dict[str, Any] = {}
    for spec, (_, column) in zip(specs, frame.items()):  # the same names, checked above
        name = spec["name"]
        lists = None
        if name in decoded:
            column = decoded[name]
        elif spec["codec"] != "native" and name not in direct:
            if spec["codec"] == "literal" and spec["dtype"] == "object":
                lists = LiteralParser(path, name).distinct_values(column)  # (decode_column's, without the rows)
            else:
                column, lists = decode_column(path, spec, column)
            if lists is not None and name in METRIC_LIST_COLUMNS:
                codings[name] = lists
        if lists is not None:
            held[name] = kept_lists(lists)
            makers[name] = _never_made
            dtypes[name] = np.dtype(object)
        else:
            makers[name] = kept_column(column)
            dtypes[name] = column.dtype
    return PendingFrame(len(frame), LoadedColumns(makers, dtypes, lists=held))


def _never_made() -> pd.Series:  # a literal list column is made from its distinct cells (LoadedColumns.column)
    raise AssertionError("a coded literal column is made from its cells")


def _header(source: BinaryIO, sep: str, encoding: str) -> list[str] | None:
    """The header row as the csv module reads it (the names pandas gives the columns of a file evalframe wrote), or
    None when it cannot be read so (the readers then word the error).

    Checked against evalframe.json before the file is parsed: a file of 10^5 columns that evalframe.json does not
    record (or the other way round) is refused at once, not after both readers have parsed it.
    """
    source.seek(0)
    text = io.TextIOWrapper(source, encoding=encoding, newline="")
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, _MAX_FIELD))
    try:
        lines = iter(text)
        first = next(lines, "").removeprefix("\ufeff")  # pandas drops a byte-order mark at the start of the file
        for record in csv.reader(itertools.chain([first], lines), delimiter=sep, strict=False):
            if record:  # blank lines before the header are skipped, as pandas skips them
                return record
        return None
    except (csv.Error, UnicodeDecodeError, LookupError, TypeError):
        return None
    finally:
        csv.field_size_limit(limit)
        text.detach()
        source.seek(0)


def _check_columns(path: Path, found: list[Any], expected: list[str]) -> None:
    """Refuse a file whose header is not the column list evalframe.json records, naming the first difference."""
    if found == expected:
        return
    at = next((i for i, (a, b) in enumerate(zip(found, expected)) if a != b), min(len(found), len(expected)))
    if at < min(len(found), len(expected)):
        what = f"column {at + 1} is {found[at]!r:.80} in the file but {expected[at]!r:.80} in evalframe.json"
    elif len(found) > len(expected):
        what = f"the file has {len(found) - at:,} more column(s) from column {at + 1} on: {few_names(found[at:])}"
    else:
        what = f"the file lacks the last {len(expected) - at:,} column(s), from column {at + 1} on: {few_names(expected[at:])}"
    raise LoadError(f"{path}: its columns differ from those evalframe.json records ({len(found):,} in the file, "
                    f"{len(expected):,} in evalframe.json): {what}. The file or evalframe.json was edited; save the "
                    "result again.")


