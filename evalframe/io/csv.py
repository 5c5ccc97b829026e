"""Save and load EvaluationResults as CSV folders (SPEC 5).

Files evalframe writes are lossless: ``evalframe.json`` beside the CSVs records, per column,
the dtype and how cells were written (the *codec*):

``native``   numbers / bools written by pandas, read back with their dtype (floats exactly);
``text``     strings written as they are; an empty cell stands for one recorded value
             (None, NaN or "") because the column holds only one of them;
``literal``  every cell a Python literal (lists, dicts, mixed objects, and text columns whose
             empty cells would be ambiguous); an empty cell is None, ``nan`` is NaN.

Folders without ``evalframe.json`` (such as Haystack 1.x's) are read with Haystack's rules:
list columns parsed with :func:`ast.literal_eval`, empty cells -> None, legacy column names
mapped, ``filters`` bytes literals decoded to JSON text.

Loading reads one generation of the folder through a directory descriptor (:mod:`evalframe.io.folder`):
regular files inside the folder only, retried when a concurrent save replaces the folder. Rows with
too few or too many cells, literal cells beyond :data:`LITERAL_CELL_LIMIT` that are not lists of
strings or JSON-like numbers, and damaged manifests are refused with a :class:`LoadError`.
"""

from __future__ import annotations

import ast
import codecs
import contextlib
import csv
import gc
import io
import json
import math
import os
import re
import reprlib
import warnings
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from . import arrow_csv
from . import atomic as _atomic
from .folder import Folder, is_plain_name, with_retries
from ..frames.arrays import DistinctLists, first_rows, object_array
from ..columns import LIST_COLUMNS, METRIC_LIST_COLUMNS
from ..errors import LoadError, SaveError

__all__ = ["MANIFEST_NAME", "FORMAT_VERSION", "save_result", "load_result"]

MANIFEST_NAME = "evalframe.json"
FORMAT_VERSION = 1
_MISSING_TOKENS = {"": None, "nan": math.nan}
#: Columns of Haystack files that hold text even when every value looks like a number.
_TEXT_COLUMNS = (
    "multilabel_id", "query", "filters", "answer", "context", "content", "document_id", "custom_document_id",
    "type", "node", "eval_mode", "prompt", "gold_answers",
)
_LITERAL_SCALARS = (str, int, float, bool, bytes, type(None))
#: to_csv options that keep a folder readable by load(): recorded in evalframe.json where load needs them.
_CSV_OPTIONS = frozenset({"sep", "encoding", "quoting"})
#: pandas 3 parses floats exactly by default and deprecates the option; 2.x needs it for exact floats.
_EXACT_FLOATS = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


@contextlib.contextmanager
def _gc_paused() -> Any:
    """Pause the cyclic garbage collector while millions of lists and strings are built.

    The cells built here hold no reference cycles, but every collection of the oldest generation
    walks all live container objects (every list cell of every frame): collections triggered while
    loading or saving a large result made it grow faster than its row count. The collector's previous
    state is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# ---------------------------------------------------------------------------------------- save
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


def _is_missing(value: Any) -> bool:
    return value is None or (type(value) is float and math.isnan(value))


def _by_identity(values: list[Any]) -> tuple[np.ndarray, list[Any]]:
    """Codes of distinct objects (by identity) and those objects: shared lists are handled once."""
    codes, unique_ids = pd.factorize(np.fromiter(map(id, values), dtype=np.int64, count=len(values)), sort=False)
    first = np.zeros(len(unique_ids), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    return codes, [values[i] for i in first.tolist()]


def _literal_cells(values: list[Any], *, node: str, column: str) -> np.ndarray:
    """Every cell as a Python literal ('' for None, 'nan' for NaN), each distinct object written once."""
    codes, distinct = _by_identity(values)
    if not _flat_literals(distinct):  # nested or unusual cells: check each distinct one
        for code, value in enumerate(distinct):
            if not (_is_missing(value) or _check_literal(value)):
                # located by code, never by comparing values (pd.NA and arrays have no truth value)
                row = int(np.argmax(codes == code)) + 1
                raise SaveError(
                    f"node {node!r}, column {column!r}, row {row}: {_shown(value)} ({type(value).__name__}) cannot "
                    "be written to CSV losslessly (only str, int, finite float, bool, bytes, None and "
                    "lists/tuples/dicts/sets of them can); convert the column, e.g. df[col] = df[col].map(list)."
                )
    texts = list(map(repr, distinct))  # NaN is written "nan" by repr; None (one object, so one cell) is ""
    ids = list(map(id, distinct))
    if id(None) in ids:
        texts[ids.index(id(None))] = ""
    return object_array(texts)[codes]


def _shown(value: Any) -> str:
    """A cell for an error message: its repr, cut short (repr itself may fail on odd objects)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any object may sit in a cell
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 80 else text[:77] + "..."


def _encodes(strings: list[str]) -> bool:
    """Whether the texts encode to UTF-8 (no lone surrogates), checked on the whole column at once."""
    try:
        "".join(strings).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _first_unencodable(values: list[Any]) -> int:
    """0-based position of the first text that does not encode to UTF-8 (only called once one is known to)."""
    return next(i for i, v in enumerate(values) if isinstance(v, str) and not _encodes([v]))


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


def _encode_column(series: pd.Series, *, node: str) -> tuple[list[Any], dict[str, Any]]:
    """The column's cells as written to CSV (Python values), and its manifest entry."""
    name = series.name
    dtype = series.dtype
    spec: dict[str, Any] = {"name": name, "dtype": str(dtype)}
    if isinstance(dtype, pd.StringDtype) or dtype == object:
        missing = series.isna().to_numpy()
        any_missing = bool(missing.any())
        plain = series.astype(object).where(~missing, None) if isinstance(dtype, pd.StringDtype) and any_missing else series
        values = plain.tolist()
        kinds = set(map(type, values))
        if dtype == object and (name in LIST_COLUMNS or not kinds <= {str, type(None), float}
                                or (float in kinds and not all(missing[i] for i, v in enumerate(values) if type(v) is float))):
            spec["codec"] = "literal"
            return _literal_cells(values, node=node, column=name).tolist(), spec
        present = [v for v, m in zip(values, missing.tolist()) if not m] if any_missing else values
        # Arrow-backed strings are valid UTF-8 by construction; python-backed ones may hold lone surrogates
        if isinstance(dtype, pd.StringDtype) and dtype.storage == "python" and not _encodes(present):
            row = _first_unencodable(values) + 1
            raise SaveError(
                f"node {node!r}, column {name!r}, row {row}: {_shown(values[row - 1])} holds a lone surrogate, "
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
            return _literal_cells(values, node=node, column=name).tolist(), spec
        spec["codec"] = "text"
        spec["empty"] = "none" if none else "nan" if nan else "empty"
        return ["" if m else v for v, m in zip(values, missing.tolist())] if any_missing else values, spec
    if is_native_dtype(dtype):
        spec["codec"] = "native"
        missing = series.isna().to_numpy()
        if dtype == np.float16 and missing.any():  # pandas' CSV parser cannot read float16 with empty cells
            row = int(np.argmax(missing)) + 1
            raise SaveError(
                f"node {node!r}, column {name!r} has dtype float16 and a missing value (row {row}), which CSV "
                "cannot restore; convert it with df[col] = df[col].astype('float32') (exact) or save with "
                "format='parquet'."
            )
        cells = series.astype(object).tolist() if not missing.any() else series.astype(object).where(~missing, None).tolist()
        return cells, spec
    raise SaveError(
        f"node {node!r}, column {name!r} has dtype {dtype}, which evalframe's CSV format cannot restore; "
        "convert it (e.g. df[col] = df[col].astype(str)) before saving."
    )


def _encode_frame(node: str, frame: pd.DataFrame) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    _check_frame(node, frame)
    columns, specs = {}, []
    for name in frame.columns:
        columns[name], spec = _encode_column(frame[name], node=node)
        specs.append(spec)
    return columns, {"file": f"{node}.csv", "rows": len(frame), "columns": specs}


def _check_frame(node: str, frame: pd.DataFrame) -> None:
    """What a frame needs to be saved: string, unique, non-empty column names (a warning for a custom index)."""
    if not all(isinstance(c, str) for c in frame.columns):
        bad = [c for c in frame.columns if not isinstance(c, str)]
        raise SaveError(f"node {node!r}: column names must be strings to be saved; got {bad}.")
    if "" in frame.columns:
        raise SaveError(f"node {node!r}: a column named '' cannot be saved to CSV (pandas reads it back as "
                        "'Unnamed: N'); rename it.")
    if not _encodes(list(frame.columns)):
        bad = frame.columns[_first_unencodable(list(frame.columns))]
        raise SaveError(f"node {node!r}: column name {bad!r} holds a lone surrogate, which no file can store; "
                        "rename the column.")
    sparse = [c for c in frame.columns if isinstance(frame[c].dtype, pd.SparseDtype)]
    if sparse:
        raise SaveError(f"node {node!r}, column {sparse[0]!r} has sparse dtype {frame[sparse[0]].dtype}, which "
                        "evalframe cannot restore; convert it with df[col] = df[col].sparse.to_dense().")
    duplicated = frame.columns[frame.columns.duplicated()].tolist()
    if duplicated:
        raise SaveError(f"node {node!r}: column names must be unique to be saved; {duplicated} repeat.")
    if len(frame.columns) == 0:
        raise SaveError(f"node {node!r}: a frame without columns cannot be saved.")
    if not (isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1):
        warnings.warn(
            f"node {node!r}: the frame's index is not a default RangeIndex; it is not saved "
            "(load gives 0..n-1). Call reset_index() first to keep it as a column.",
            UserWarning,
            stacklevel=5,
        )


def _check_node_name(node: str) -> None:
    # the node's file name must be one a load reads back: a plain name (is_plain_name), not hidden, encodable
    if not is_plain_name(node) or node.startswith(".") or not _encodes([node]):
        raise SaveError(
            f"node name {node!r} cannot be a file name (no '/', '\\', leading '.', lone surrogates or empty names); rename the node "
            "before saving."
        )


def _read_manifest(folder: Path | Folder) -> dict[str, Any] | None:
    """The folder's checked evalframe.json, or None when it has none.

    Given a :class:`Folder`, the manifest of that generation; given a path, the folder is opened here.
    """
    if not isinstance(folder, Folder):
        def attempt() -> dict[str, Any] | None:
            with Folder(folder) as opened:
                return _read_manifest(opened)

        return with_retries(folder, attempt)
    if not folder.exists(MANIFEST_NAME):
        return None
    path = folder.path / MANIFEST_NAME
    with folder.open_binary(MANIFEST_NAME) as handle:
        raw = handle.read()
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested deeper than Python's parser goes
        shown = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        raise LoadError(f"{path}: not a readable evalframe manifest ({shown}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "evalframe.EvaluationResult":
        raise LoadError(f"{path}: not an evalframe manifest (no 'format': 'evalframe.EvaluationResult').")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version > FORMAT_VERSION:
        raise LoadError(
            f"{path}: format_version {version!r} is newer than this evalframe reads ({FORMAT_VERSION}); "
            "upgrade evalframe (pip install -U evalframe)."
        )
    _check_manifest(path, manifest)
    return manifest


def _damaged(path: Path, what: str) -> LoadError:
    return LoadError(f"{path}: {what}; the manifest was edited or damaged (save the result again).")


def _check_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Check every field load reads, in one pass over nodes and columns (linear in the manifest's size).

    Every check here is what a field must hold for the readers below to work: afterwards they index
    and compare without raising KeyError / TypeError / LookupError.
    """
    csv_options = manifest.get("csv", {})
    if not isinstance(csv_options, dict):
        raise _damaged(path, f"'csv' must be an object of CSV options; got {type(csv_options).__name__}")
    sep = csv_options.get("sep", ",")
    if not isinstance(sep, str) or len(sep) != 1 or sep in "\r\n\"":
        raise _damaged(path, f"'csv' 'sep' must be one character (not a quote or line break); got {sep!r}")
    encoding = csv_options.get("encoding", "utf-8")
    try:
        codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        raise _damaged(path, f"'csv' 'encoding' must name a text encoding such as 'utf-8'; got {encoding!r}") from None
    matching = manifest.get("matching")
    if matching is not None and not isinstance(matching, dict):
        raise _damaged(path, f"'matching' must be an object of matching parameters; got {type(matching).__name__}")
    nodes = manifest.get("nodes")
    if not isinstance(nodes, dict):
        raise _damaged(path, "'nodes' must map node names to their files")
    files: set[str] = set()
    dtypes: dict[str, Any] = {}  # each distinct dtype text parsed once, however many columns name it
    checked: set[tuple[str, str, str]] = set()  # (codec, dtype, empty) combinations found valid
    for node, entry in nodes.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not isinstance(entry.get("columns"), list):
            raise _damaged(path, f"the entry of node {node!r} needs 'file' and 'columns'")
        file = entry["file"]
        if not is_plain_name(file) or file.startswith(".") or not file.endswith((".csv", ".parquet")):
            raise _damaged(path, f"node {node!r}: 'file' must name a .csv or .parquet file directly inside the "
                                 f"results folder; got {file!r}")
        if file in files:
            raise _damaged(path, f"node {node!r}: file {file!r} is listed for two nodes")
        files.add(file)
        rows = entry.get("rows", 0)
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            raise _damaged(path, f"node {node!r}: 'rows' must be a non-negative integer; got {rows!r}")
        names: set[str] = set()
        for spec in entry["columns"]:
            name = spec.get("name") if type(spec) is dict else None
            codec = spec.get("codec") if type(spec) is dict else None
            if type(name) is not str or type(codec) is not str or codec not in _CODECS:
                raise LoadError(f"{path}: node {node!r}: column entry {_shown(spec)} needs a 'name' and a 'codec' in "
                                f"{sorted(_CODECS)}; the manifest was edited or damaged (save the result again).")
            if name in names:
                raise _damaged(path, f"node {node!r}: column {name!r} is listed twice")
            names.add(name)
            combination = (codec, spec.get("dtype"), spec.get("empty", "empty"))
            hashable = type(combination[1]) is str and type(combination[2]) is str
            if not (hashable and combination in checked):
                _check_column_spec(path, node, name, combination, dtypes)
                if hashable:
                    checked.add(combination)


def _check_column_spec(path: Path, node: str, name: str, combination: tuple[str, Any, Any],
                       dtypes: dict[str, Any]) -> None:
    """Check one (codec, dtype, empty) combination of a column entry (each distinct one is checked once)."""
    codec, dtype_text, empty = combination
    if type(dtype_text) is not str:
        raise LoadError(f"{path}: node {node!r}, column {name!r}: unknown dtype {_shown(dtype_text)}.")
    if dtype_text not in dtypes:
        try:
            dtypes[dtype_text] = pd.api.types.pandas_dtype(dtype_text)
        except (TypeError, ValueError):
            dtypes[dtype_text] = None
    dtype = dtypes[dtype_text]
    if dtype is None:
        raise LoadError(f"{path}: node {node!r}, column {name!r}: unknown dtype {_shown(dtype_text)}.")
    text_kind = dtype == object or isinstance(dtype, pd.StringDtype)
    if not (is_native_dtype(dtype) if codec == "native" else text_kind if codec in ("text", "literal") else dtype == object):
        raise _damaged(path, f"node {node!r}, column {name!r}: codec {codec!r} cannot hold dtype {dtype_text!r}")
    if codec == "text" and empty not in ("none", "nan", "empty"):
        raise LoadError(f"{path}: node {node!r}, column {name!r}: 'empty' must be none, nan or empty.")


def _shown(value: Any, limit: int = 80) -> str:
    """repr of a (possibly huge) manifest value, cut for an error message."""
    text = reprlib.repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_CODECS = frozenset({"native", "text", "literal", "list"})


def save_result(result: Any, out_dir: Path, format: str = "csv", **to_csv_kwargs: Any) -> Path:
    """Write ``result`` to ``out_dir`` (see :meth:`EvaluationResult.save`)."""
    with _gc_paused():
        return _save_result(result, out_dir, format, **to_csv_kwargs)


def _save_result(result: Any, out_dir: Path, format: str, **to_csv_kwargs: Any) -> Path:
    from .._version import __version__
    from .._validation import check_choice

    check_choice(format, ("csv", "parquet"), name="format")
    if format == "parquet":
        if to_csv_kwargs:
            raise SaveError(f"save(format='parquet') takes no CSV options; got {sorted(to_csv_kwargs)}.")
        from . import parquet  # needs pyarrow, imported only here
    unsupported = sorted(set(to_csv_kwargs) - _CSV_OPTIONS)
    if unsupported:
        raise SaveError(
            f"save() does not take the to_csv option(s) {unsupported}: they would write a folder load() cannot read "
            f"back exactly. Supported: {sorted(_CSV_OPTIONS)}."
        )
    if to_csv_kwargs.get("quoting", csv.QUOTE_NONNUMERIC) == csv.QUOTE_NONE:
        raise SaveError("save() needs quoting (texts hold commas and newlines); drop quoting=csv.QUOTE_NONE.")
    for node in result.node_results:
        _check_node_name(node)
    manifest: dict[str, Any] = {
        "format": "evalframe.EvaluationResult",
        "format_version": FORMAT_VERSION,
        "evalframe_version": __version__,
        "matching": dict(result.matching),
        "csv": {"sep": to_csv_kwargs.get("sep", ","), "encoding": to_csv_kwargs.get("encoding", "utf-8")},
        "nodes": {},
    }
    try:
        json.dumps(manifest["matching"])
    except TypeError as exc:
        raise SaveError(f"the result's matching parameters are not JSON-serialisable: {exc}") from exc

    sep = to_csv_kwargs.get("sep", ",")
    encoding = to_csv_kwargs.get("encoding", "utf-8")
    quoting = to_csv_kwargs.get("quoting", csv.QUOTE_NONNUMERIC)
    target = _check_target(out_dir)

    def write(staging: Path) -> None:
        # nodes are encoded one at a time; a Parquet file is written (Arrow, without the GIL) while the next
        # node is encoded. Everything goes to the staging folder: a refused cell leaves the target untouched.
        with ThreadPoolExecutor(max_workers=1) as writer:
            writes = []
            for node, frame in result.node_results.items():
                if format == "parquet":
                    table, manifest["nodes"][node] = parquet.encode_frame(node, frame)
                    writes.append(writer.submit(_write_parquet, parquet, staging / manifest["nodes"][node]["file"], table))
                    del table
                    continue
                columns, manifest["nodes"][node] = _encode_frame(node, frame)
                path = staging / f"{node}.csv"
                try:
                    with _atomic.staged_file(path):
                        _write_csv(path, columns, sep=sep, encoding=encoding, quoting=quoting)
                except (UnicodeError, csv.Error, TypeError) as exc:
                    raise SaveError(f"node {node!r} cannot be written with these CSV options ({type(exc).__name__}: "
                                    f"{exc}); keep the default encoding='utf-8' and quoting.") from None
            for pending in writes:
                pending.result()
        path = staging / MANIFEST_NAME
        try:
            text = json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SaveError(f"the result's matching parameters hold text that is not UTF-8 ({exc}).") from None
        with _atomic.staged_file(path):
            path.write_bytes(text)

    created = next((folder for folder in reversed(target.parents) if not folder.exists()), None)
    saved = False
    try:
        try:
            _atomic._step("mkdir parent")
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SaveError(f"cannot create {target.parent}: {exc.strerror or exc}; choose another out_dir.") from None
        _atomic.replace_folder(target, write, foreign=lambda folder: _foreign_files(folder)[0])
        saved = True
        return out_dir
    finally:
        if created is not None and not saved:  # a failed save leaves no folder it made behind (empty ones only)
            _remove_empty_folders(target.parent, up_to=created)


def _write_parquet(parquet: Any, path: Path, table: Any) -> None:
    with _atomic.staged_file(path):
        parquet.write(path, table)


def _check_target(out_dir: Path) -> Path:
    """The folder to replace (a symlink's folder, keeping the link), checked before anything is written.

    It must be missing, empty, or a folder evalframe wrote: its evalframe.json readable and every other
    entry a file it lists. The whole folder is exchanged for the new one, so any other file would be lost;
    such folders are refused, as are folders this process may not change.
    """
    target = out_dir
    if out_dir.is_symlink():
        target = Path(os.path.realpath(out_dir))
        if not target.is_dir():
            raise SaveError(f"{out_dir} is a symbolic link to {target}, which is not a folder; choose another out_dir.")
    if target.exists() and not target.is_dir():
        raise SaveError(f"{out_dir} exists and is not a folder; choose another out_dir.")
    if target.is_dir():
        try:
            foreign, manifest = _foreign_files(target)
        except OSError as exc:
            raise SaveError(f"{out_dir} cannot be listed ({exc.strerror or exc}); choose another out_dir.") from None
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            why = "it holds no readable evalframe.json" if manifest is None else "its evalframe.json does not list them"
            raise SaveError(
                f"{out_dir} holds files evalframe did not write ({shown}; {why}); save replaces the whole folder "
                "and would lose them. Choose a new or empty out_dir, or move those files elsewhere."
            )
    _atomic.check_writable(target)
    return target


def _foreign_files(folder: Path) -> tuple[list[str], dict[str, Any] | None]:
    """The entries of ``folder`` evalframe did not write (all of them without a readable evalframe.json),
    and its manifest."""
    entries = sorted(os.listdir(folder))
    if not entries:
        return [], None
    manifest = _read_manifest_quietly(folder)
    if manifest is None:
        return entries, None
    ours = {MANIFEST_NAME, *(entry["file"] for entry in manifest["nodes"].values())}
    return [name for name in entries if name not in ours or not (folder / name).is_file()], manifest


def _remove_empty_folders(folder: Path, *, up_to: Path) -> None:
    """Remove ``folder`` and its parents up to ``up_to`` while they are empty."""
    while True:
        try:
            folder.rmdir()
        except OSError:
            return
        if folder == up_to:
            return
        folder = folder.parent


def _write_csv(path: Path, columns: dict[str, list[Any]], *, sep: str, encoding: str, quoting: int) -> None:
    """One header row and the encoded cells, with Python's C csv writer (floats are written by repr: exact)."""
    # QUOTE_MINIMAL quotes a field holding a character of the line terminator: with "\n" alone, a bare "\r"
    # in a text would go out unquoted and read back as a line break, so those files end their lines with "\r\n"
    terminator = "\r\n" if quoting == csv.QUOTE_MINIMAL else "\n"
    with open(path, "w", encoding=encoding, newline="") as handle:
        # the header is always quoted: unquoted, a name's leading BOM would be taken for the file's
        # encoding mark and its surrounding spaces are at the mercy of the reader
        csv.writer(handle, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator=terminator).writerow(list(columns))
        writer = csv.writer(handle, delimiter=sep, quoting=quoting, lineterminator=terminator)
        writer.writerows(zip(*columns.values()))


def _read_manifest_quietly(folder: Path) -> dict[str, Any] | None:
    try:
        return _read_manifest(folder)
    except LoadError:
        return None


# ---------------------------------------------------------------------------------------- load
class _LiteralParser:
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
        if not isinstance(texts.dtype, pd.StringDtype):  # (Arrow strings are factorised in Arrow: no str per row)
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
        try:
            if len(text) > LITERAL_CELL_LIMIT:
                return self._large_literal(text, code, codes)
            self._parsed = getattr(self, "_parsed", 0) + 1
            if self._parsed % _COLLECT_EVERY == 0:
                # each literal_eval leaves ~1 KB of cyclic garbage (its syntax tree), which the paused collector
                # (see _gc_paused) would keep until the load ends; the youngest generation holds only recent objects
                gc.collect(0)
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            shown = text if len(text) <= 80 else text[:77] + "..."
            raise LoadError(
                f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: cannot parse {shown!r} as a "
                f"Python literal ({type(exc).__name__}: {exc}). Fix or empty that cell."
            ) from None

    @staticmethod
    def _row(code: int, codes: np.ndarray) -> int:
        """The 1-based data row of the first cell holding the distinct text ``code``."""
        return int(np.argmax(codes == code)) + 1

    def _large_literal(self, text: str, code: int, codes: np.ndarray) -> Any:
        """A cell beyond :data:`LITERAL_CELL_LIMIT`, parsed in memory proportional to its size, or refused.

        ``ast.literal_eval`` builds a syntax tree of several hundred bytes per element (a 10 MB list
        cell took 5 GB), so long cells are only read in two shapes whose parsing stays bounded: a list
        of string literals (gold_contexts of long documents), each string parsed on its own, and JSON
        texts that mean the same in Python (numbers, lists, double-quoted strings; no true/false/null).
        """
        strings = _string_list(text)
        if strings is not None:
            return strings
        if not _JSON_ONLY_NAMES.search(text):
            try:
                return _JSON.decode(text)
            except (ValueError, RecursionError):
                pass
        raise LoadError(
            f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: the cell holds {len(text)} "
            f"characters; cells other than lists of strings or JSON-like numbers and lists may hold at most "
            f"{LITERAL_CELL_LIMIT} characters (1 MiB), because Python's literal parser needs hundreds of times "
            "their size in memory. Shorten or empty that cell."
        )


#: How many ast.literal_eval calls leave their garbage before it is collected.
_COLLECT_EVERY = 2000
#: Cells longer than this (1 MiB of text) are not given to ast.literal_eval (see ``_LiteralParser._large_literal``).
LITERAL_CELL_LIMIT = 1 << 20
#: JSON's names, which Python spells True / False / None: a text holding them is not the same value in both.
_JSON_ONLY_NAMES = re.compile(r"\b(?:true|false|null)\b")


#: Texts made only of numbers, brackets and commas mean the same as JSON and as Python literals
#: (no strings, names or escapes), and JSON parses them many times faster than literal_eval.
_NUMERIC_LIST = re.compile(r"\[[0-9eE+\-., ]*\]")  # flat: nested lists go to ast.literal_eval
#: Whole columns of such texts, one per line (see ``_LiteralParser._whole_column``).
_NUMERIC_LISTS = re.compile(r"\[[0-9eE+\-., ]*\](?:\n\[[0-9eE+\-., ]*\])*")
_STRING_LISTS = re.compile(r"\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\](?:\n\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\])*")
#: A list of plain strings as repr writes them: single-quoted, no quote, backslash or line break inside
#: (so no escapes, and "', '" cannot occur inside an item): the items are the text between the separators.
_PLAIN_STRING_LIST = re.compile(r"\['[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*\]")


def _string_list(text: str) -> list[Any] | None:
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
    syntax tree per item, whose garbage (collected only after the load, see :func:`_gc_paused`) took
    a kilobyte per item. Bytes literals, and backslashes before non-ASCII characters (which repr never
    writes), go to ``ast.literal_eval``.
    """
    if literal[0] == "b" or _ESCAPED_NON_ASCII.search(body):
        return ast.literal_eval(literal)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # an unknown escape stays as typed, as in a literal
            return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:  # e.g. a cut hex escape: the literal parser words the error
        return ast.literal_eval(literal)


_ESCAPED_NON_ASCII = re.compile(r"\\[^\x00-\x7f]")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a Python literal")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def _read_csv(source: BinaryIO, path: Path, **kwargs: Any) -> pd.DataFrame:
    """pandas.read_csv of an opened file (from its start); ``path`` words the errors."""
    source.seek(0)
    try:
        return pd.read_csv(source, **kwargs)
    except pd.errors.EmptyDataError:
        raise LoadError(f"{path}: the file is empty; an evaluation CSV has at least a header row.") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        _raise_for_bad_row(source, path, kwargs)
        raise LoadError(f"{path}: cannot be read as CSV ({type(exc).__name__}: {exc}).") from None


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


def _check_rows(source: BinaryIO, path: Path, frame: pd.DataFrame, options: dict[str, Any]) -> None:
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


def _load_own(folder: Folder, entry: dict[str, Any], csv_options: dict[str, Any], read_csv_kwargs: dict[str, Any],
              codings: dict[str, DistinctLists]) -> pd.DataFrame:
    """Read one CSV evalframe wrote; the distinct cells of its metric list columns go to ``codings``."""
    path = folder.path / entry["file"]
    specs = entry["columns"]
    # string-dtype text columns are parsed straight into their dtype (an empty cell is "" or the missing value)
    direct = {s["name"] for s in specs if s["codec"] == "text" and isinstance(pd.api.types.pandas_dtype(s["dtype"]), pd.StringDtype)}
    dtypes = {s["name"]: (s["dtype"] if s["codec"] == "native" or s["name"] in direct else object) for s in specs}
    na_values = {s["name"]: [""] for s in specs if s["codec"] == "native"
                 or (s["name"] in direct and s.get("empty", "empty") != "empty")}
    options = {
        "header": 0, "dtype": dtypes, "keep_default_na": False, "na_values": na_values,
        **_EXACT_FLOATS, "sep": csv_options.get("sep", ","),
        "encoding": csv_options.get("encoding", "utf-8"), **read_csv_kwargs,
    }
    with folder.open_binary(entry["file"]) as source:
        # None: pyarrow missing, or not sure to read it as pandas does (a bad row, too): pandas reads it and words errors
        frame = arrow_csv.read_csv(source, path, specs, csv_options, read_csv_kwargs)
        if frame is not None:
            for spec in specs:
                if spec["name"] in direct:
                    frame[spec["name"]] = arrow_csv.text_column(frame[spec["name"]], spec["dtype"],
                                                                spec.get("empty", "empty") != "empty")
            return _decode_frame(path, frame, entry, direct, codings)
        source.seek(0)
        try:
            frame = pd.read_csv(source, **options)
        except (ValueError, TypeError, OverflowError):  # a native column that does not parse: find the cell
            _raise_for_bad_row(source, path, options)
            _raise_for_bad_number(source, path, options, specs)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            _raise_for_bad_row(source, path, options)
            raise LoadError(f"{path}: cannot be read as CSV ({type(exc).__name__}: {exc}).") from None
        _check_rows(source, path, frame, options)
        if any(spec["codec"] == "native" and str(frame[spec["name"]].dtype) != spec["dtype"]
               for spec in specs if spec["name"] in frame.columns):  # pandas 2.2 reads 2**63 in an int64 column as uint64
            _raise_for_bad_number(source, path, options, specs, found_only=True)
    return _decode_frame(path, frame, entry, direct, codings)


def _raise_for_bad_number(source: BinaryIO, path: Path, options: dict[str, Any], specs: list[dict[str, Any]], *,
                          found_only: bool = False) -> None:
    """Raise a LoadError naming the first cell of a native column that is not a valid value of its dtype
    (with ``found_only``, return when there is none)."""
    frame = _read_csv(source, path, **{**options, "dtype": object, "na_values": {}})
    for spec in specs:
        if spec["codec"] == "native" and spec["name"] in frame.columns:
            for row, text in enumerate(frame[spec["name"]].tolist()):
                try:
                    value = pd.Series([np.nan if text == "" else text], dtype=object).astype(spec["dtype"])
                    valid = text == "" or not value.isna().all()  # a missing number is an empty cell, not "nan"
                except (ValueError, TypeError, OverflowError):
                    valid = False
                if not valid:
                    raise LoadError(f"{path}: data row {row + 1}, column {spec['name']!r}: {text!r} is not a "
                                    f"valid {spec['dtype']} value. Fix or empty that cell.")
    if not found_only:
        raise LoadError(f"{path}: cannot be read as the CSV evalframe.json describes.")


def _decode_frame(path: Path, frame: pd.DataFrame, entry: dict[str, Any], direct: set[str],
                  codings: dict[str, DistinctLists]) -> pd.DataFrame:
    """Check a read frame against its manifest entry and decode its text and literal columns."""
    specs = entry["columns"]
    expected = [s["name"] for s in specs]
    if list(frame.columns) != expected:
        raise LoadError(f"{path}: columns {list(frame.columns)} differ from those evalframe.json records ({expected}).")
    if len(frame) != entry.get("rows", len(frame)):
        raise LoadError(f"{path}: holds {len(frame)} rows but evalframe.json records {entry['rows']}; the file was cut or edited.")
    for spec in specs:
        if spec["codec"] != "native" and spec["name"] not in direct:
            frame[spec["name"]], lists = decode_column(path, spec, frame[spec["name"]])
            if lists is not None and spec["name"] in METRIC_LIST_COLUMNS:
                codings[spec["name"]] = lists
    return frame


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
        lists = _LiteralParser(path, name).distinct_values(cells)
        column = pd.Series(lists.row_values(), index=cells.index, dtype=object)
    if spec["dtype"] == "object":
        return column, lists
    return column.astype(spec["dtype"]), None


def _decode_filters(value: Any, path: Path, row: int) -> Any:
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            raise LoadError(f"{path}: data row {row + 1}, column 'filters': {value!r} is not UTF-8 JSON text.") from None
        return None if text == "null" else text
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def _load_foreign(folder: Folder, name: str, read_csv_kwargs: dict[str, Any],
                  codings: dict[str, DistinctLists]) -> pd.DataFrame:
    """Read one CSV with Haystack's rules; the distinct cells of its metric list columns go to ``codings``."""
    path = folder.path / name
    with folder.open_binary(name) as source:
        header = _read_csv(source, path, nrows=0, **{k: v for k, v in read_csv_kwargs.items() if k in ("sep", "encoding")})
        text_columns = [c for c in header.columns if c in _TEXT_COLUMNS or c in LIST_COLUMNS or c == "gold_document_contents"]
        options = {
            "header": 0, "dtype": {c: object for c in text_columns}, "keep_default_na": False, "na_values": [""],
            **_EXACT_FLOATS, **read_csv_kwargs,
        }
        frame = _read_csv(source, path, **options)
        _check_rows(source, path, frame, options)
    _check_evaluation_frame(path, frame)
    for name in frame.columns:
        if name in LIST_COLUMNS:
            lists = _LiteralParser(path, name).distinct_values(frame[name])
            values = lists.row_values()
            if name == "filters":  # each distinct cell once, named by the first row holding it
                values = object_array([_decode_filters(cell, path, int(row))
                                       for cell, row in zip(lists.cells.tolist(), first_rows(lists.codes))])[lists.codes]
            elif name in METRIC_LIST_COLUMNS:
                codings[name] = lists
            frame[name] = pd.Series(values, index=frame.index, dtype=object)
        elif frame[name].isna().any():  # SPEC 5: NaN becomes None (the column becomes object, as in Haystack)
            column = frame[name].astype(object)
            frame[name] = column.where(column.notna(), None)
        elif isinstance(frame[name].dtype, pd.StringDtype):
            frame[name] = frame[name].astype(object)
    renames = {old: new for old, new in (("gold_document_contents", "gold_contexts"), ("content", "context"))
               if old in frame.columns and new not in frame.columns}
    frame = frame.rename(columns=renames)
    if "answer" in frame.columns:
        for single, plural in (("document_id", "document_ids"), ("custom_document_id", "custom_document_ids")):
            if single in frame.columns and plural not in frame.columns:
                frame[plural] = [[] if v is None or v == "None" else [v] for v in frame[single].tolist()]
                frame = frame.drop(columns=[single])
    return frame


#: Columns of which an evaluation CSV holds at least one (Haystack 1.x's names, old and new).
_EVALUATION_COLUMNS = frozenset(_TEXT_COLUMNS) | frozenset(LIST_COLUMNS) | {"gold_document_contents", "rank"}


def _check_evaluation_frame(path: Path, frame: pd.DataFrame) -> None:
    """Refuse a CSV with none of the evaluation columns (a stray file in the results folder).

    Haystack 1.x loaded every *.csv whatever its columns, and its own tests load legacy frames with only
    a few columns (answer, document_id, content, ...), so a CSV with any evaluation column loads as a
    node; a metric call then names what the node lacks (SchemaError). A CSV with none of them is not
    one Haystack or evalframe wrote: loading it as a node would only fail later, far from its cause.
    """
    if not _EVALUATION_COLUMNS.intersection(map(str, frame.columns)):
        raise LoadError(
            f"{path} is not an evaluation frame: it has none of the evaluation columns (such as 'multilabel_id', "
            f"'query', 'type', 'answer', 'document_ids'); it has {list(frame.columns)[:8]}. Move it out of the "
            "results folder."
        )


def load_result(cls: type, load_dir: Path, **read_csv_kwargs: Any) -> Any:
    """Read a results folder (see :meth:`EvaluationResult.load`).

    What a dead saver left beside the folder is cleaned up first (where this process may), and a folder
    left missing by a crash inside the rename fallback is read from its complete old generation.
    """
    load_dir = _atomic.resolve_for_reading(load_dir)
    if load_dir.is_dir():
        _atomic.cleanup_stale(Path(os.path.realpath(load_dir)))
    with _gc_paused():
        return with_retries(load_dir, lambda: _load_result(cls, load_dir, **read_csv_kwargs))


def _load_result(cls: type, load_dir: Path, **read_csv_kwargs: Any) -> Any:
    """One attempt: every file from the generation of the folder opened here (see :mod:`evalframe.io.folder`)."""
    with Folder(load_dir) as folder:
        manifest = _read_manifest(folder)
        own = (manifest or {}).get("nodes", {})
        owned = {entry["file"] for entry in own.values()}
        # hidden names are skipped, as the glob("*.csv") of earlier versions (and Haystack's) skipped them
        csv_files = {name[:-4]: name for name in folder.names()
                     if name.endswith(".csv") and not name.startswith(".") and name not in owned}
        if not csv_files and not own:
            raise LoadError(f"results folder {load_dir} holds no .csv file (and no evalframe.json listing Parquet files).")
        for node, entry in own.items():  # every listed file is checked before any is read: a damaged folder fails fast
            if not folder.exists(entry["file"]):
                raise LoadError(f"{load_dir / MANIFEST_NAME} lists node {node!r} but {entry['file']} is missing.")
        frames: dict[str, pd.DataFrame] = {}
        codings: dict[str, dict[str, DistinctLists]] = {}
        for node, entry in own.items():
            if entry["file"].endswith(".parquet"):
                from . import parquet

                frames[node] = parquet.read(folder, entry, codings.setdefault(node, {}))
            else:
                frames[node] = _load_own(folder, entry, manifest.get("csv", {}), read_csv_kwargs, codings.setdefault(node, {}))
        for node, name in csv_files.items():
            if node not in frames:
                frames[node] = _load_foreign(folder, name, read_csv_kwargs, codings.setdefault(node, {}))
    result = cls(frames, matching=(manifest or {}).get("matching"), list_codings=codings)
    return result
