"""A table of any shape -> records, by a column mapping (:func:`read_frame`, ``EvaluationResult.from_frame``); the
table reading that :mod:`evalframe.sources.ragas` shares.

A table is a pandas DataFrame, an object with ``to_pandas()``, a list of dicts, or a file: JSON Lines, JSON (a list
of objects), CSV or Parquet. Each row is named as a person finds it: ``file:line`` in JSON Lines and CSV (the line
the row starts on, quoted line breaks counted), ``file, row N`` in JSON and Parquet, ``row N`` otherwise (from 1).
List cells may hold lists, tuples, numpy arrays or their JSON / Python literal text, as CSV files give them. The
columns no column parameter names follow the rule of every source's extra columns (:mod:`evalframe.sources.extras`).
"""

from __future__ import annotations

import ast
import io
import csv
import datetime
import json
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._locations import Remote, exists, is_file, read_bytes, read_text, open_text, remote_or_value, suffix_of
from .._validation import check_path, did_you_mean, few_names, gzip_problem, short_repr
from ..errors import EvalframeError, InvalidParameterError, LoadError
from ..options import MatchingOptions, with_options
from .assemble import Built
from .catalog import TABLE_SUFFIXES
from .extras import check_score_columns, extra_meta, extra_scores, warn_left_out
from .records import Record, Retrieved, build, retrieved_of
from .runs import json_value
from ..frames.score_values import score_values

__all__ = ["Table", "ColumnMapping", "read_table", "read_frame", "frame_records", "list_cell", "text_cell",
           "number_cell", "id_hint"]


@dataclass
class Table:
    """Rows of a table as dicts, with how to name each row (``wheres``) and whether every cell is text (CSV)."""

    columns: list[str]
    rows: list[Mapping[str, Any]]
    wheres: list[str]
    name: str
    text_cells: bool = False


# ------------------------------------------------------------------------------------ reading a table
def _frame_table(frame: pd.DataFrame, name: str, where: Callable[[int], str]) -> Table:
    if not frame.columns.is_unique:
        repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        raise EvalframeError(f"{name} has the column(s) {repeated} twice; each column must appear once.")
    columns = [str(c) for c in frame.columns]
    frame = frame.set_axis(columns, axis=1)
    rows: list[Mapping[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]  # str columns: set above
    return Table(columns, rows, [where(i) for i in range(1, len(rows) + 1)], name)


def _read_jsonl(path: Path | Remote) -> Table:
    rows: list[Mapping[str, Any]] = []
    wheres: list[str] = []
    columns: dict[str, None] = {}
    with open_text(path) as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json_value(text, str(path), number)
            except json.JSONDecodeError as exc:
                raise LoadError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); a JSON Lines file holds "
                                "one JSON object per line.") from None
            if not isinstance(row, dict):
                raise LoadError(f"{where}: each line must be a JSON object (one row); got {type(row).__name__}.")
            columns.update(dict.fromkeys(row))
            rows.append(row)
            wheres.append(where)
    return Table(list(columns), rows, wheres, str(path))


def _read_json(path: Path | Remote) -> Table:
    try:
        data = json_value(read_text(path), str(path))
    except json.JSONDecodeError as exc:
        raise LoadError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno}).") from None
    if isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):  # {column: [values]}
        lengths = {str(column): len(values) for column, values in data.items()}
        if len(set(lengths.values())) > 1:
            shown = dict(list(lengths.items())[:8])
            raise LoadError(f"{path}: a JSON table of columns {{column: [values]}} needs one value per row in every "
                            f"column, but their lengths differ: {shown}.")
        return _frame_table(pd.DataFrame(data), str(path), lambda i: f"{path}, row {i}")
    if not isinstance(data, list):
        raise LoadError(f"{path}: a JSON table must be a list of objects, one per row (or {{column: [values]}}); got "
                        f"{type(data).__name__}.")
    columns: dict[str, None] = {}
    for i, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise LoadError(f"{path}, row {i}: each entry must be a JSON object (one row); got {type(row).__name__}.")
        columns.update(dict.fromkeys(row))
    return Table(list(columns), data, [f"{path}, row {i}" for i in range(1, len(data) + 1)], str(path))


def _read_csv(path: Path | Remote) -> Table:
    """Every cell as text, each row named by the line it starts on (a quoted cell may span lines)."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # long contexts: the module's 128 KiB default is too small
    with open_text(path, newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise LoadError(f"{path} is empty; a CSV table needs a header line and rows.") from None
        except csv.Error as exc:
            raise LoadError(f"{path}:1: not a CSV header ({exc}).") from None
        if len(set(header)) != len(header):
            repeated = sorted({c for c in header if header.count(c) > 1})
            raise LoadError(f"{path}:1: the column(s) {repeated} appear twice in the header; each must appear once.")
        rows: list[Mapping[str, Any]] = []
        wheres: list[str] = []
        start = reader.line_num + 1
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                raise LoadError(f"{path}:{start}: not valid CSV ({exc}).") from None
            if cells:  # a blank line holds no row
                if len(cells) != len(header):
                    raise LoadError(f"{path}:{start}: {len(cells)} cells, but the header names {len(header)} columns.")
                rows.append(dict(zip(header, cells)))
                wheres.append(f"{path}:{start}")
            start = reader.line_num + 1
    return Table(header, rows, wheres, str(path), text_cells=True)


def _read_parquet(path: Path | Remote) -> Table:
    try:
        if isinstance(path, Remote):
            frame = pd.read_parquet(io.BytesIO(read_bytes(path, what="Parquet file")))
        else:
            frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise LoadError(f"{path}: not a readable Parquet file ({exc}).") from None
    return _frame_table(frame, str(path), lambda i: f"{path}, row {i}")


_READERS: dict[str, Callable[[Path | Remote], Table]] = {".jsonl": _read_jsonl, ".json": _read_json, ".csv": _read_csv,
                                                ".parquet": _read_parquet}


def read_table(data: Any, *, name: str = "df", storage_options: Mapping[str, Any] | None = None) -> Table:
    """The rows of ``data``: a DataFrame, an object with ``to_pandas()``, a list of dicts, or a table file's path.

    Parameters
    ----------
    data
        The table.
    name : str
        The parameter ``data`` was passed as, for messages.

    Returns
    -------
    Table

    Raises
    ------
    LoadError
        A file that cannot be read (naming the file and line).
    InvalidParameterError
        ``data`` is none of these.

    Examples
    --------
    >>> table = read_table([{"question": "q1"}, {"question": "q2"}])
    >>> table.columns, table.wheres
    (['question'], ['row 1', 'row 2'])
    """
    if isinstance(data, pd.DataFrame):
        return _frame_table(data, name, lambda i: f"row {i}")
    data = remote_or_value(data, name=name, storage_options=storage_options)
    if isinstance(data, (str, os.PathLike, Remote)):
        path = data if isinstance(data, Remote) else check_path(data, name=name)
        suffix = suffix_of(path).lower()
        compressed = gzip_problem(path) if is_file(path) else None
        if compressed is not None:
            raise LoadError(compressed)
        if suffix not in _READERS:
            raise InvalidParameterError(f"{name}: {path} is not a table file this reads; give a file ending in "
                                        f"{list(TABLE_SUFFIXES)}.", parameter=name)
        if not is_file(path):
            raise LoadError(f"{path} does not exist." if not exists(path) else f"{path} is not a file.")
        try:
            return _READERS[suffix](path)
        except UnicodeDecodeError as exc:
            raise LoadError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    to_pandas = getattr(data, "to_pandas", None)
    if callable(to_pandas):
        frame = to_pandas()
        if not isinstance(frame, pd.DataFrame):
            raise InvalidParameterError(f"{name}.to_pandas() returned {type(frame).__name__}, not a DataFrame.",
                                        parameter=name)
        return _frame_table(frame, name, lambda i: f"row {i}")
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        columns: dict[str, None] = {}
        for i, row in enumerate(data, start=1):
            if not isinstance(row, Mapping):
                raise InvalidParameterError(f"{name}[{i - 1}] must be a dict (one row); got {type(row).__name__}.",
                                            parameter=name)
            columns.update(dict.fromkeys(map(str, row)))
        return Table(list(columns), list(data), [f"row {i}" for i in range(1, len(data) + 1)], name)
    raise InvalidParameterError(f"{name} must be a pandas DataFrame, an object with to_pandas(), a list of dicts or "
                                f"the path of a {'/'.join(s[1:] for s in TABLE_SUFFIXES)} file; got "
                                f"{type(data).__name__}.", parameter=name)


# ------------------------------------------------------------------------------------ cells
def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT


_NOT_A_LITERAL = object()


def _literal(text: str, where: str, column: str) -> Any:
    """The value of a cell's JSON or Python literal text (a CSV file's list or object), or ``_NOT_A_LITERAL``; text
    nested deeper or holding an integer longer than Python reads is refused, naming the cell."""
    try:
        return json.loads(text)
    except RecursionError:
        raise EvalframeError(f"{where}: column {column!r} holds a value nested too deeply to read (Python reads at "
                             f"most about {sys.getrecursionlimit():,} levels).") from None
    except json.JSONDecodeError:
        pass
    except ValueError:  # an integer longer than Python converts
        raise EvalframeError(f"{where}: column {column!r} holds an integer longer than the "
                             f"{sys.get_int_max_str_digits():,} digits Python converts to a number; write it as a "
                             "string if it is an id.") from None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return _NOT_A_LITERAL


def list_cell(value: Any, where: str, column: str, *, one_item: bool = True) -> list[Any] | None:
    """A list cell: a list, tuple or numpy array, or its JSON / Python literal text; ``""`` is ``[]``, a text that
    is not a literal one item (``one_item=False``: refused, naming the cell); None / NaN: missing (None).

    Examples
    --------
    >>> list_cell("['d1', 'd2']", "row 1", "ids"), list_cell('["d1"]', "row 1", "ids"), list_cell("d1", "row 1", "ids")
    (['d1', 'd2'], ['d1'], ['d1'])
    >>> list_cell("", "row 1", "ids"), list_cell(None, "row 1", "ids")
    ([], None)
    """
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if _missing(value):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not one_item and not text.startswith("["):
            raise EvalframeError(f"{where}: {column} must be a list (one entry per document); got a string "
                                 f"{short_repr(value, 60)}. A text where a list belongs may be a joined list; give "
                                 "the list, e.g. [\"first passage\", \"second passage\"].")
        if not text:
            return []
        if not text.startswith("["):
            return [value]
        parsed = _literal(text, where, column)
        if parsed is _NOT_A_LITERAL:
            raise EvalframeError(f"{where}: column {column!r} holds {short_repr(value, 60)}, which starts like a "
                                 "list but is neither JSON nor a Python list literal.")
        if isinstance(parsed, (list, tuple)):
            return list(parsed)
        return [value]
    tolist = getattr(value, "tolist", None)  # a pyarrow or pandas array cell
    if callable(tolist) and not isinstance(value, (numbers.Number, np.generic)):
        listed = tolist()
        if isinstance(listed, list):
            return listed
    raise EvalframeError(f"{where}: column {column!r} must hold a list (or its JSON text); got {short_repr(value, 60)} "
                         f"of type {type(value).__name__}.")


def text_cell(value: Any, where: str, column: str, *, required: bool = False) -> str | None:
    """A text cell; None / NaN: missing (None), an error when ``required``."""
    if isinstance(value, str):
        return value
    if _missing(value):
        if required:
            raise EvalframeError(f"{where}: column {column!r} is empty; every row needs its {column}.")
        return None
    raise EvalframeError(f"{where}: column {column!r} must hold text; got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def number_cell(value: Any, where: str, column: str) -> float | None:
    """A number cell (a number, or its text in a CSV file); None / NaN / ``""``: missing (None)."""
    if isinstance(value, (bool, np.bool_)):
        raise EvalframeError(f"{where}: column {column!r} must hold a number; got {value!r}.")
    if isinstance(value, (numbers.Real, np.number)):
        number = float(value)
        return None if math.isnan(number) else number
    if _missing(value):
        return None
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            number = float(value)
        except ValueError:
            raise EvalframeError(f"{where}: column {column!r} must hold a number; got {short_repr(value, 60)}.") from None
        return None if math.isnan(number) else number
    raise EvalframeError(f"{where}: column {column!r} must hold a number; got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def _json_value(value: Any) -> Any:
    """A cell as a JSON value (numpy scalars and arrays as Python's, a time as its ISO 8601 text)."""
    if isinstance(value, (datetime.date, datetime.time, np.datetime64)):
        return pd.Timestamp(value).isoformat() if isinstance(value, np.datetime64) else value.isoformat()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _meta_cell(value: Any, where: str, column: str) -> Mapping[str, Any] | None:
    if isinstance(value, Mapping):
        return value
    if _missing(value) or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        parsed = _literal(value, where, column)
        if isinstance(parsed, dict):
            return parsed
    raise EvalframeError(f"{where}: column {column!r} must hold an object (a dict, or its JSON text); got "
                         f"{short_repr(value, 60)}.")


# ------------------------------------------------------------------------------------ the column mapping
def _check_column(table: Table, column: Any, parameter: str) -> str:
    if not isinstance(column, str) or not column:
        raise InvalidParameterError(f"{parameter} must be a column name (a non-empty str); got {column!r}.",
                                    parameter=parameter)
    if column not in table.columns:
        raise InvalidParameterError(f"{parameter}={column!r} names no column of {table.name}; its columns are "
                                    f"{few_names(table.columns, 20)}.{did_you_mean(column, table.columns)}",
                                    parameter=parameter)
    return column


def _column_list(table: Table, value: Any, parameter: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidParameterError(f"{parameter} must be a list of column names; got {value!r}.", parameter=parameter)
    return [_check_column(table, column, parameter) for column in value]


@dataclass(frozen=True)
class ColumnMapping:
    """The columns of each :class:`Record` field (None: not given); ``gold_answer_text``: the gold answers column
    holds one answer text per row (Ragas' ``reference``), not a list; a blank one beside gold documents is no
    gold answer (CSV writes a missing text as an empty cell)."""

    question: str
    retrieved_ids: str | None = None
    retrieved_texts: str | None = None
    retrieved_scores: str | None = None
    answer: str | None = None
    gold_ids: str | None = None
    gold_contexts: str | None = None
    gold_answers: str | None = None
    meta: str | list[str] | None = None
    scores: tuple[str, ...] = ()
    gold_answer_text: bool = False
    score_names: Mapping[str, str] | None = None  # a score column's name as a score (default: the column's)
    query_id: str | None = None  # the column of the queries' ids (their multilabel_id)


def _retrieved(row: Mapping[str, Any], where: str, columns: ColumnMapping, one_item: bool) -> list[Retrieved] | None:
    """The ranked documents of a row; ``one_item``: a plain text is a one-document list (CSV, which has no lists),
    else refused (elsewhere a text where the ranking belongs is a mistake, often a joined list)."""
    ids = texts = scores = None
    if columns.retrieved_ids is not None:
        ids = list_cell(row.get(columns.retrieved_ids), where, columns.retrieved_ids, one_item=one_item)
    if columns.retrieved_texts is not None:
        texts = list_cell(row.get(columns.retrieved_texts), where, columns.retrieved_texts, one_item=one_item)
    if columns.retrieved_scores is not None:
        scores = list_cell(row.get(columns.retrieved_scores), where, columns.retrieved_scores, one_item=one_item)
    given = [(name, values) for name, values in ((columns.retrieved_ids, ids), (columns.retrieved_texts, texts),
                                                 (columns.retrieved_scores, scores)) if values is not None]
    if not given:
        return None
    lengths = {name: len(values) for name, values in given}
    if len(set(lengths.values())) > 1:
        raise EvalframeError(f"{where}: the retrieved lists differ in length, {lengths}; they describe the same ranked "
                             "documents, one entry each.")
    out = []
    for j in range(len(given[0][1])):
        here = f"{where}, {given[0][0]}[{j + 1}]"
        text = texts[j] if texts is not None else None
        if text is not None and not isinstance(text, str):  # a document object (LangChain, Haystack, ...) in the cell
            document = retrieved_of(text, f"{where}, {columns.retrieved_texts}[{j + 1}]")
        else:
            document = Retrieved(None, text)
        doc_id = document.id
        if ids is not None:
            doc_id = ids[j]
            if isinstance(doc_id, np.generic):
                doc_id = doc_id.item()
            if isinstance(doc_id, numbers.Integral) and not isinstance(doc_id, bool):
                doc_id = str(doc_id)
            if not isinstance(doc_id, str):
                raise EvalframeError(f"{where}: {columns.retrieved_ids}[{j + 1}] must be a string id; got "
                                     f"{short_repr(doc_id, 60)}.")
        score = document.score
        if scores is not None:
            score = number_cell(scores[j], f"{where}, {columns.retrieved_scores}[{j + 1}]", "score")
        if doc_id is None and document.content is None:
            raise EvalframeError(f"{here}: the document has neither an id nor a text.")
        out.append(Retrieved(doc_id, document.content, score, document.meta))
    return out


def _gold_list(row: Mapping[str, Any], where: str, column: str | None, *, ids: bool = False) -> list[str] | None:
    if column is None:
        return None
    values = list_cell(row.get(column), where, column)
    if values is None:
        return None
    out = []
    for i, value in enumerate(values, start=1):
        value = _json_value(value)
        if ids and isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise EvalframeError(f"{where}: {column}[{i}] must be a string; got {short_repr(value, 60)} of type "
                                 f"{type(value).__name__}.")
        out.append(value)
    return out


def _gold_answers(row: Mapping[str, Any], where: str, columns: ColumnMapping, has_gold_documents: bool
                  ) -> list[str] | None:
    if columns.gold_answers is None or not columns.gold_answer_text:
        return _gold_list(row, where, columns.gold_answers)
    text = text_cell(row.get(columns.gold_answers), where, columns.gold_answers)
    if text is None or (not text.strip() and has_gold_documents):  # CSV writes a missing reference as "" too
        return None
    return [text]


def _meta(row: Mapping[str, Any], where: str, meta: str | list[str] | None) -> Mapping[str, Any] | None:
    if meta is None:
        return None
    if isinstance(meta, str):
        return _meta_cell(row.get(meta), where, meta)
    fields = {column: _json_value(row.get(column)) for column in meta if not _missing(row.get(column))}
    return fields or None  # no field: no meta, as a runs line without "meta"


def _query_id(value: Any, where: str, column: str) -> str:
    """A query's id cell: a non-empty text, or an integer (as its text)."""
    value = _json_value(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    if _missing(value) or isinstance(value, str):
        raise EvalframeError(f"{where}: column {column!r} (id_column) is empty; every row needs its query's id.")
    raise EvalframeError(f"{where}: column {column!r} (id_column) must hold a text or an integer id; got "
                         f"{short_repr(value, 60)} of type {type(value).__name__}.")


def _query_ids(cells: Sequence[Any], wheres: Sequence[str], column: str) -> list[str]:
    """The id column's cells (:func:`_query_id` each), a cell without a value named first, at its row: a DataFrame's
    integer column with a missing value holds floats (``[1, None, 2]`` is ``1.0, NaN, 2.0``), so the float in row 1
    is no cause to name."""
    empty = next((i for i, value in enumerate(cells) if _missing(_json_value(value))
                  or (isinstance(value, str) and not value.strip())), None)
    if empty is not None:
        floats = "; a DataFrame's integer column with a missing value holds floats (1.0, NaN, 2.0)" if any(
            isinstance(value, float) and not math.isnan(value) for value in cells) else ""
        raise EvalframeError(f"{wheres[empty]}: column {column!r} (id_column) is empty ({short_repr(cells[empty], 20)})"
                             f"; every row needs its query's id{floats}.")
    return [_query_id(value, where, column) for value, where in zip(cells, wheres)]


def id_hint(table: Table, parameter: str = "id_column") -> str:
    """What the refusal of a question twice adds: how to key the queries by an id column, naming one the table has."""
    found = next((c for c in table.columns if c.lower() in ("id", "sample_id", "question_id", "query_id", "qid")), None)
    named = f": the table has a column {found!r}, {parameter}={found!r} (--id-column {found})" if found else ""
    return f", or key the queries by a column of ids ({parameter}=, --id-column){named}"


def frame_records(table: Table, columns: ColumnMapping) -> list[Record]:
    """One :class:`Record` per row of ``table``, its fields read from the columns of ``columns``."""
    wheres = table.wheres
    values = {}  # each score column read at once
    for column in columns.scores:
        def cell(i: int, c: str = column) -> str:
            return f"{wheres[i]}, column {c!r}"

        name = column if columns.score_names is None else columns.score_names.get(column, column)
        values[name] = score_values([row.get(column) for row in table.rows], where=cell, error=EvalframeError)
    ids = None if columns.query_id is None else _query_ids([row.get(columns.query_id) for row in table.rows], wheres,
                                                           columns.query_id)
    records = []
    for i, (row, where) in enumerate(zip(table.rows, wheres)):
        scores = {name: float(column[i]) for name, column in values.items() if not math.isnan(column[i])}
        gold_ids = _gold_list(row, where, columns.gold_ids, ids=True)
        gold_contexts = _gold_list(row, where, columns.gold_contexts)
        records.append(Record(
            where=where,
            query=text_cell(row.get(columns.question), where, columns.question, required=True) or "",
            retrieved=_retrieved(row, where, columns, table.text_cells),
            answer=None if columns.answer is None else text_cell(row.get(columns.answer), where, columns.answer),
            gold_ids=gold_ids,
            gold_contexts=gold_contexts,
            gold_answers=_gold_answers(row, where, columns, bool(gold_ids or gold_contexts)),
            meta=_meta(row, where, columns.meta),
            scores=scores or None,
            id=None if ids is None else ids[i],
        ))
    return records


def _score_columns(table: Table, scores: Any, score_measures: Any) -> tuple[tuple[str, ...], dict[str, Any] | None]:
    """The score columns and their declarations: ``scores`` is a list of columns or ``{column: score_measure}``."""
    measures = dict(score_measures) if score_measures is not None else {}
    if scores is None:
        return (), measures or None
    if isinstance(scores, Mapping):
        columns = _column_list(table, list(scores), "scores")
        measures.update({name: metric for name, metric in scores.items() if metric is not None})
        return tuple(columns), measures or None
    return tuple(_column_list(table, scores, "scores")), measures or None


def _extra_columns(table: Table, consumed: Iterable[str | None], score_columns: tuple[str, ...],
                   meta_columns: str | list[str] | None, *, scores_given: bool
                   ) -> tuple[tuple[str, ...], str | list[str] | None]:
    """The score columns and the meta of a table's columns, its extra ones (those no column parameter names) read by
    the rule of every source's extra columns (:mod:`evalframe.sources.extras`), as ``from_ragas`` reads them: without
    ``scores=``, the extra columns of numbers (or their text) not named like an id and not in ``meta=`` are scores;
    without ``meta=``, the other extra columns of one value per row are meta fields; one warning (when ``scores=``
    is not given) names each extra column not in ``meta=`` that gives no score, with what it became and why."""
    named_meta = [] if meta_columns is None else [meta_columns] if isinstance(meta_columns, str) else meta_columns
    taken = {column for column in consumed if column is not None} | set(score_columns) | set(named_meta)
    cells = {column: [row.get(column) for row in table.rows] for column in table.columns if column not in taken}
    source = "from_frame" if table.name == "df" else table.name  # a file by its path
    chosen: list[str] = []
    if not scores_given:
        chosen = extra_scores(cells)
        score_columns = tuple(chosen)
    if meta_columns is None:
        meta_columns = extra_meta(cells, score_columns) or None
    if not scores_given:
        warn_left_out(source, cells, score_columns, meta_columns if isinstance(meta_columns, list) else [])
        check_score_columns(source, chosen, names={column: column for column in chosen})
    return score_columns, meta_columns


@with_options(MatchingOptions)
def read_frame(
    df: Any,
    *,
    question: str = "question",
    retrieved_ids: str | None = None,
    retrieved_texts: str | None = None,
    retrieved_scores: str | None = None,
    answer: str | None = None,
    gold_ids: str | None = None,
    gold_contexts: str | None = None,
    gold_answers: str | None = None,
    meta: str | Sequence[str] | None = None,
    scores: Sequence[str] | Mapping[str, Any] | None = None,
    retriever: str = "Retriever",
    generator: str = "Generator",
    score_node: str | None = None,
    score_measures: Mapping[str, Any] | None = None,
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    id_column: str | None = None,
    duplicates: Literal["error", "first"] = "error",
    on_invalid: Literal["raise", "skip"] = "raise",
    storage_options: Mapping[str, Any] | None = None,
    **matching: Any,
) -> Built:
    """A result from a table of any shape, one row per question, by naming its columns.

    Each row becomes what a runs file line would hold (``docs/runs-format.md``), and :meth:`from_runs` builds the
    frames with its matching rules: the retrieved documents are the ``retriever`` node's, in list order; the answer
    is the ``generator`` node's one generative answer; the gold is one label per gold document (its id and text),
    each with the gold answer beside it. A list column may hold lists, numpy arrays, or their JSON / Python literal
    text (as a CSV file gives them); in a CSV file a plain text is a one-item list and an empty cell an empty
    list, elsewhere a text in a column of retrieved documents is refused (it is often a joined list).

    Parameters
    ----------
    df : DataFrame, list of dicts, object with ``to_pandas()``, or path
        The table, or a ``.csv`` / ``.parquet`` / ``.jsonl`` / ``.json`` file holding it.
    question : str
        The column of the question texts (each question once).
    retrieved_ids, retrieved_texts, retrieved_scores : str, optional
        List columns of the retrieved documents' ids, texts (or document objects: LangChain, Haystack 2.x,
        llama-index, dicts) and scores, one entry per document in rank order. Scores given: the document rows get
        a ``score`` column.
    answer : str, optional
        The column of the generated answers.
    gold_ids, gold_contexts : str, optional
        List columns of the gold documents' ids and texts (both given: the same documents, one entry each). With
        ids, a retrieved document is relevant by its id (or, in the default scope, by holding a gold answer); with
        texts only, by its text.
    gold_answers : str, optional
        A list column (or a text column: one answer) of the gold answers; ``[]`` or ``""`` with no gold
        document: a no-answer question.
    meta : str or list of str, optional
        A column of dicts (or their JSON text), or columns whose values become the fields of each query's ``meta``
        (default: the extra columns, those no other parameter names, of one value per row that hold no numbers or
        are named like an id; ``[]``: none).
    scores : list of str or dict, optional
        Columns of per-query scores (an LLM judge's, a latency, ...: numbers, or their text, each cell read as
        ``docs/scores.md`` says), or ``{column: score_measure(...)}``
        to declare each one's direction and bounds; they belong to ``score_node`` (default the generator when
        there are answers, else the retriever). Default: the extra columns of numbers (or their text, in at least
        half of the rows) not named like an id and not in ``meta``; one warning then names each extra column
        that gives no score, with what it became and why (:mod:`evalframe.sources.extras`, the rule of every
        source, as ``from_ragas`` reads it); ``scores=[...]`` given: no warning, ``[]``: no score.
    retriever, generator : str
        The node names.
    score_measures : dict, optional
        Score name -> ``evalframe.score_measure(...)`` (default: higher is better, unbounded).
    id_column : str, optional
        A column of the queries' ids (texts or integers, each once): each becomes its query's ``multilabel_id``,
        so two rows with the same question and different ids are two queries (saved, loaded and compared by
        id). None (default): a query is identified by its text, and a question twice is refused.
    duplicates : {"error", "first"}
        A document twice in one ranking (by id; without ids, by its text) is refused (default), naming the row
        and the document, as the TREC readers refuse it (it would be counted twice: a recall or map above 1);
        ``"first"`` keeps it once, at its first rank, the ranks below closing up (as
        ``to_trec_run(duplicates="first")``).
    on_invalid : {"raise", "skip"}
        A row without any gold (no gold document, no gold answer: "has no label") is refused (default), naming
        the row; ``"skip"`` leaves such rows out and records each in ``result.skipped`` (where and why), kept by
        :meth:`save` and stated by the reports: each mean is over the other queries.
    sas_model, progress, context_matching_threshold, context_matching_min_length,
    context_matching_boost_split_overlaps, custom_document_id_field
        As :meth:`from_runs`.

    storage_options : dict, optional
        The filesystem's options for a file given as a URL (``s3://bucket/eval.jsonl``; ``docs/storage.md``).

    Returns
    -------
    Built
        What the table built (``EvaluationResult.from_frame`` returns the result made of it).

    Raises
    ------
    InvalidParameterError
        A parameter naming no column (the columns are listed), or a bad option.
    EvalframeError
        A cell of the wrong kind: the message names the row (``row 3``, ``file.csv:4``, ``file.jsonl:2``) and the
        column.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import EvaluationResult
    >>> df = pd.DataFrame({"q": ["Capital of Germany?", "Capital of France?"],
    ...                    "ids": [["d2", "d1"], ["d3"]], "texts": [["Bonn.", "Berlin."], ["Paris."]],
    ...                    "gold": [["d1"], ["d3"]], "reply": ["Berlin", "Lyon"], "truth": ["Berlin", "Paris"],
    ...                    "judge": [0.9, 0.4]})
    >>> result = EvaluationResult.from_frame(df, question="q", retrieved_ids="ids", retrieved_texts="texts",
    ...                                      gold_ids="gold", answer="reply", gold_answers="truth", scores=["judge"],
    ...                                      progress=False)
    >>> metrics = result.calculate_metrics()
    >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"], metrics["Generator"]["judge"]
    (0.75, 0.5, 0.65)
    >>> EvaluationResult.from_frame(df, question="query")
    Traceback (most recent call last):
      ...
    evalframe.errors.InvalidParameterError: question='query' names no column of df; its columns are [...
    """
    df = remote_or_value(df, name='df', storage_options=storage_options)
    options = MatchingOptions.from_keywords(matching, passed_to="from_frame takes these matching options")
    table = read_table(df, name="df")
    if not table.rows:
        raise EvalframeError(f"{table.name} holds no row.")
    given = {"question": question, "retrieved_ids": retrieved_ids, "retrieved_texts": retrieved_texts,
             "retrieved_scores": retrieved_scores, "answer": answer, "gold_ids": gold_ids,
             "gold_contexts": gold_contexts, "gold_answers": gold_answers, "id_column": id_column}
    checked = {name: None if column is None else _check_column(table, column, name) for name, column in given.items()}
    if retrieved_scores is not None and retrieved_ids is None and retrieved_texts is None:
        raise InvalidParameterError("retrieved_scores needs retrieved_ids or retrieved_texts: the documents they score.",
                                    parameter="retrieved_scores")
    meta_columns: str | list[str] | None = None
    if isinstance(meta, str):
        meta_columns = _check_column(table, meta, "meta")
    elif meta is not None:
        meta_columns = _column_list(table, meta, "meta")
    score_columns, measures = _score_columns(table, scores, score_measures)
    score_columns, meta_columns = _extra_columns(table, checked.values(), score_columns, meta_columns,
                                                 scores_given=scores is not None)
    mapping = ColumnMapping(question=checked["question"] or question, retrieved_ids=checked["retrieved_ids"],
                       retrieved_texts=checked["retrieved_texts"], retrieved_scores=checked["retrieved_scores"],
                       answer=checked["answer"], gold_ids=checked["gold_ids"], gold_contexts=checked["gold_contexts"],
                       gold_answers=checked["gold_answers"], meta=meta_columns, scores=score_columns,
                       query_id=checked["id_column"])
    records = frame_records(table, mapping)
    fields = {"query": question, "retrieved": retrieved_texts or retrieved_ids or "retrieved", "answer": answer or "answer",
              "gold_ids": gold_ids or "gold_ids", "gold_contexts": gold_contexts or "gold_contexts",
              "gold_answers": gold_answers or "gold_answers", "meta": meta if isinstance(meta, str) else "meta",
              "scores": "scores"}
    return build(records, retriever=retriever, generator=generator, score_node=score_node,
                 score_measures=measures, sas_model=sas_model, progress=progress, fields=fields,
                 duplicates=duplicates, on_invalid=on_invalid, key_hint="" if id_column else id_hint(table),
                 source=table.name, **options.as_dict())
