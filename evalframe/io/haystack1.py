"""Folders Haystack 1.x wrote (no ``evalframe.json``): each ``<node>.csv`` read with Haystack's rules.

List columns are parsed as Python literals (:class:`evalframe.io.literals.LiteralParser`, never ``eval``),
empty cells become None, legacy column names are mapped (``content`` -> ``context``,
``gold_document_contents`` -> ``gold_contexts``, ``document_id`` -> ``document_ids`` in answer frames) and
``filters`` bytes literals are decoded to JSON text. A CSV with none of the evaluation columns is refused.
See docs/persistence.md#loading and docs/haystack-compat.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import csv as csv_format
from .literals import LiteralParser
from .folder import Folder
from .._validation import few_names
from ..columns import COLUMN_ORDER, LIST_COLUMNS, METRIC_LIST_COLUMNS
from ..errors import LoadError
from ..frames.arrays import DistinctLists, first_rows, object_array

__all__ = ["read"]

#: Columns of Haystack files that hold text even when every value looks like a number.
_TEXT_COLUMNS = (
    "multilabel_id", "query", "filters", "answer", "context", "content", "document_id", "custom_document_id",
    "type", "node", "eval_mode", "prompt", "gold_answers",
)


_LIST_COLUMNS = frozenset(LIST_COLUMNS)
#: Columns read as text (a set: the header of a file may name 10^5 columns).
_TEXT_NAMES = frozenset(_TEXT_COLUMNS) | _LIST_COLUMNS | {"gold_document_contents"}


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


def read(folder: Folder, name: str, read_csv_kwargs: dict[str, Any],
         codings: dict[str, DistinctLists]) -> pd.DataFrame:
    """Read one CSV with Haystack's rules; the distinct cells of its metric list columns go to ``codings``."""
    path = folder.path / name
    with folder.open_binary(name) as source:
        csv_format.check_dialect(source, path, read_csv_kwargs)
        # the text columns by name, whether the file has them or not (pandas ignores the others): no pass over the
        # header first, which cost pandas a second parse of every column name (1.1 s for 20,000 columns)
        options = {
            "header": 0, "dtype": dict.fromkeys(_TEXT_NAMES, object), "keep_default_na": False, "na_values": [""],
            **csv_format.EXACT_FLOATS, **read_csv_kwargs,
        }
        frame = csv_format.read_frame(source, path, **options)
        csv_format.check_rows(source, path, frame, options)
    _check_evaluation_frame(path, frame)
    _check_numbers(path, frame)
    frame = _haystack_values(frame, path, codings)
    renames = {old: new for old, new in (("gold_document_contents", "gold_contexts"), ("content", "context"))
               if old in frame.columns and new not in frame.columns}
    frame = frame.rename(columns=renames)
    if "answer" in frame.columns:
        for single, plural in (("document_id", "document_ids"), ("custom_document_id", "custom_document_ids")):
            if single in frame.columns and plural not in frame.columns:
                frame[plural] = [[] if v is None or v == "None" else [v] for v in frame[single].tolist()]
                frame = frame.drop(columns=[single])
    return frame


def _haystack_values(frame: pd.DataFrame, path: Path, codings: dict[str, DistinctLists]) -> pd.DataFrame:
    """The frame as Haystack 1.x loads it: list columns parsed (their distinct cells, of the metric list columns, go to
    ``codings``), a missing cell None in a column of objects, text as objects (not pandas' ``str``).

    Column-wide, not column by column: every column that becomes objects (text, lists, a column with a missing cell)
    is made in one 2-d object array, the others are kept by dtype, and the frame is put together once, so the cost is
    linear in the file's cells with no per-column pandas call but for the list columns (a per-column Series costs
    pandas some 100 µs, most of the load of a file of 20,000 columns; assigning them one by one was quadratic, 51 s).
    """
    if not len(frame.columns):
        return frame
    dtypes = list(frame.dtypes)
    labels = list(frame.columns)
    lists = [i for i, label in enumerate(labels) if label in _LIST_COLUMNS]
    objects = set(lists)
    objects.update(i for i, dtype in enumerate(dtypes) if dtype == object or isinstance(dtype, pd.StringDtype))
    others = [i for i in range(len(labels)) if i not in objects]
    if others:  # a number column with a missing cell becomes objects, the cell None (docs/persistence.md#loading)
        missing = frame.iloc[:, others].isna().to_numpy().any(axis=0)
        objects.update(np.asarray(others)[missing].tolist())
    made = sorted(objects)
    kept = [i for i in range(len(labels)) if i not in objects]
    parts = []
    if made:
        values = frame.iloc[:, made].to_numpy(dtype=object, na_value=None)
        for position, i in enumerate(made):
            if i in lists:
                values[:, position] = _list_values(frame.iloc[:, i], path, str(labels[i]), codings)
        parts.append(pd.DataFrame(values, index=frame.index, columns=frame.columns[made], dtype=object, copy=False))
    by_dtype: dict[Any, list[int]] = {}
    for i in kept:
        by_dtype.setdefault(dtypes[i], []).append(i)
    for dtype, positions in by_dtype.items():  # one block per dtype, as the frame pandas read held them
        part = frame.iloc[:, positions]
        parts.append(part if not isinstance(dtype, np.dtype) else pd.DataFrame(
            part.to_numpy(dtype=dtype), index=frame.index, columns=part.columns, copy=False))
    order = np.argsort(np.concatenate([np.asarray(made, dtype=np.int64)]
                                      + [np.asarray(p, dtype=np.int64) for p in by_dtype.values()]), kind="stable")
    whole = parts[0] if len(parts) == 1 else pd.concat(parts, axis=1)
    return whole.iloc[:, order] if not np.array_equal(order, np.arange(len(order))) else whole


def _list_values(column: pd.Series, path: Path, label: str, codings: dict[str, DistinctLists]) -> np.ndarray:
    """A list column's cells parsed as Python literals (each distinct text once), ``filters`` decoded to JSON text."""
    lists = LiteralParser(path, label).distinct_values(column)
    if label == "filters":  # each distinct cell once, named by the first row holding it
        return object_array([_decode_filters(cell, path, int(row))
                             for cell, row in zip(lists.cells.tolist(), first_rows(lists.codes))])[lists.codes]
    if label in METRIC_LIST_COLUMNS:
        codings[label] = lists
    return lists.row_values()


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
            f"'query', 'type', 'answer', 'document_ids'); it has {few_names(frame.columns)}. Move it out of the "
            "results folder."
        )




#: Columns Haystack 1.x writes numbers into (ranks, metrics, match flags): a cell there that is not a number is refused
#: here, naming file and row, instead of failing in a metric call far from its cause.
_NUMBER_COLUMNS = tuple(c for c in COLUMN_ORDER if c not in LIST_COLUMNS and c not in _TEXT_COLUMNS)


def _check_numbers(path: Path, frame: pd.DataFrame) -> None:
    for name in _NUMBER_COLUMNS:
        if name not in frame.columns or pd.api.types.is_numeric_dtype(frame[name]):
            continue
        cells = frame[name]
        bad = pd.to_numeric(cells, errors="coerce").isna().to_numpy() & cells.notna().to_numpy()
        if bad.any():
            row = int(bad.argmax())
            raise LoadError(f"{path}: data row {row + 1}, column {name!r}: {cells.iloc[row]!r} is not a number; "
                            f"Haystack 1.x writes numbers in {name!r}. Fix the cell (or leave it empty).")
