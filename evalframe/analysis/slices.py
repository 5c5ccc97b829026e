"""Per-query attributes, and metric means per slice of queries (the ``by=`` of calculate_metrics).

A slice key turns a node frame into one label per query (``multilabel_id``). Keys can be

* a column that holds one value per query, e.g. ``"query"`` or ``"filters"``;
* ``"no_answer"``: True for queries whose gold answers are all blank (no-answer labels);
* ``"filters.<field>"``: one field of the filters JSON, dotted for nested fields, e.g. ``"filters.year"``; a field
  no query's filters have is an error (a typo would otherwise put every query in one slice), queries without it
  (or without filters) get the label None, a slice of their own;
* ``"meta.<field>"``: one field of the query's ``meta`` (a runs line's ``"meta"`` object), read exactly as
  ``filters.<field>``; ``"meta"`` slices by the whole object's JSON text, as ``"filters"`` does;
* a callable, given the per-query table (index ``multilabel_id``, the first row of each query) and
  returning one label per query, e.g. ``lambda q: q["query"].str.len() > 40``;
* a Series or dict from ``multilabel_id`` to label (queries it lacks get the label NaN);
* a list of these, for slices by several keys.

Means per slice are means of the per-query table, the same numbers :meth:`calculate_metrics` averages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Union

import numpy as np
import pandas as pd

from ..frames.arrays import object_array
from ..columns import NO_ANSWER_DOCUMENT_ID
from .._validation import did_you_mean, few_names, short_repr
from ..errors import InvalidParameterError, SchemaError
from ..metrics.registry import METRICS

__all__ = ["FieldPresence", "SliceKey", "beside", "check_by", "check_present", "labelled", "query_attributes", "query_keys"]

SliceKey = Union[str, Callable[[pd.DataFrame], Any], pd.Series, Mapping[Hashable, Any]]

#: Derived attributes computed from the frame rather than read from a column.
DERIVED = ("no_answer",)
#: Per-query columns holding a JSON object (as text, or a dict built in memory), sliceable by ``<column>.<field>``.
OBJECT_COLUMNS = ("filters", "meta")

def check_by(by: SliceKey | Sequence[SliceKey]) -> list[SliceKey]:
    if isinstance(by, (str, pd.Series, Mapping)) or callable(by):
        return [by]
    if isinstance(by, Sequence) and by and not isinstance(by, bytes):
        return list(by)
    raise InvalidParameterError(
        "by must be a column name, 'no_answer', 'filters.<field>', 'meta.<field>', a callable over the per-query table, "
        "a Series or "
        f"dict from multilabel_id to label, or a non-empty list of these; got {by!r}."
    )


def _first_rows(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    if "multilabel_id" not in frame.columns:
        raise SchemaError(f"{where} lacks column 'multilabel_id', needed to tell queries apart for by=.")
    first = frame.take(np.flatnonzero(~frame["multilabel_id"].duplicated().to_numpy()))  # a ColumnView takes too
    return first.set_index("multilabel_id")


def _labels(values: Any, index: pd.Index, name: str) -> pd.Series:
    """A Series of slice labels, as objects when a text label is no UTF-8 (pandas' text dtype cannot hold a lone
    surrogate; :func:`_utf8_labels` then refuses it, naming its query)."""
    try:
        return pd.Series(values, index=index, name=name)
    except UnicodeEncodeError:
        return pd.Series(values, index=index, name=name, dtype=object)


def _utf8_labels(labels: pd.Series, what: str) -> None:
    """Refuse a slice label that is no text UTF-8 encodes (a lone surrogate: JSON's ``"\\ud800"``, which a text meta
    field or a query may hold), naming its query: pandas keeps the slices' labels as UTF-8 text.

    Examples
    --------
    >>> _utf8_labels(pd.Series(["a\\ud800", "b"], index=["q1", "q2"], dtype=object), "by='meta.topic'")
    Traceback (most recent call last):
    ...
    evalframe.errors.SchemaError: by='meta.topic': the label of multilabel_id 'q1' is 'a\\ud800', a text that holds ...
    """
    if labels.dtype != object:
        return
    try:  # one pass over the texts (pandas 3 keeps them as UTF-8 and fails on one; pandas 2.2 would take it)
        found = labels.str.contains(_SURROGATE, regex=True, na=False).to_numpy(dtype=bool)
    except AttributeError:  # no text among the labels
        return
    if found.any():
        first = int(found.argmax())
        query, value = labels.index[first], str(labels.iloc[first])
        surrogate = next(char for char in value if "\ud800" <= char <= "\udfff")
        raise SchemaError(
            f"{what}: the label of multilabel_id {query!r} is {short_repr(value, 60)}, a text that holds a lone "
            f"surrogate (U+{ord(surrogate):04X}), which UTF-8 cannot encode and so no slice can be named by; give it "
            "valid text (a JSON file: no unpaired \\ud800-\\udfff escape).")


#: A lone surrogate (a code point of U+D800-U+DFFF in a str: JSON's unpaired "\\ud800" escape).
_SURROGATE = "[\ud800-\udfff]"


def _hashable(values: pd.Series, what: str) -> pd.Series:
    """Labels usable as group keys: lists become tuples, dicts their JSON text."""
    def convert(value: Any) -> Any:
        if isinstance(value, (list, tuple, np.ndarray)):
            return tuple(convert(v) for v in value)
        if isinstance(value, (set, frozenset)):
            return frozenset(convert(v) for v in value)
        if isinstance(value, dict):
            return json.dumps(value, sort_keys=True, default=str)
        return value

    if values.dtype != object:
        return values
    unhashable = values.map(lambda v: isinstance(v, (list, dict, set, np.ndarray)))
    if not unhashable.any():
        return values
    try:
        return values.map(convert)
    except TypeError as exc:  # pragma: no cover - nested exotic values
        raise InvalidParameterError(f"{what} gives labels that cannot be grouped: {exc}") from None


def _object_text(values: pd.Series) -> pd.Series:
    """Filters or meta as their JSON text: dicts (built in memory) become the text evalframe saves."""
    return values.map(lambda v: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v)


def _column(frame: pd.DataFrame, first: pd.DataFrame, column: str, where: str) -> pd.Series:
    labels = first[column]
    if column in OBJECT_COLUMNS:  # dict filters / meta (built in memory) slice like their JSON text
        labels = _object_text(labels)
    if labels.dtype == object and labels.map(lambda v: isinstance(v, (list, dict, set, np.ndarray))).any():
        raise InvalidParameterError(
            f"by={column!r}: column {column!r} of {where} holds lists or dicts, which make poor slices; pass a callable "
            f"over the per-query table instead, e.g. by=lambda q: q[{column!r}].str.len()."
        )
    rows = frame[column]
    if column in OBJECT_COLUMNS:
        rows = _object_text(rows)
    varying = rows.groupby(frame["multilabel_id"], sort=False, dropna=False).nunique(dropna=False) > 1
    if varying.any():
        query = varying.index[varying.to_numpy()][0]
        raise InvalidParameterError(
            f"by={column!r}: column {column!r} of {where} varies within a query ({int(varying.sum())} queries, e.g. "
            f"multilabel_id {query!r}), so it cannot label queries; slice by a per-query column such as 'query' or "
            "'filters', or pass a Series from multilabel_id to label."
        )
    return labels


def _no_answer(first: pd.DataFrame, where: str) -> pd.Series:
    """No-answer queries: gold answers ``[""]`` (``MultiLabel.no_answer``), or ``[]`` without gold documents.

    Haystack 1.x wrote the gold answers of no-answer queries as ``[]``; queries with document-only labels
    also have ``[]``, but they have gold document ids, so there is something to find.
    """
    if "gold_answers" not in first.columns:
        raise SchemaError(f"by='no_answer' reads column 'gold_answers', which {where} lacks.")

    def empty(values: Any) -> bool:
        return values is None or (isinstance(values, float) and np.isnan(values)) or len(values) == 0

    def blank(values: Any) -> bool:
        return not empty(values) and all(not str(value).strip() for value in values)

    def no_document(values: Any) -> bool:
        return empty(values) or all(value == NO_ANSWER_DOCUMENT_ID for value in values)

    for column in ("gold_answers", "gold_document_ids"):
        cells = first[column] if column in first.columns else pd.Series([], dtype=object)
        bad = cells[~cells.map(lambda v: v is None or isinstance(v, (list, tuple, np.ndarray, float)))]
        if len(bad):
            raise SchemaError(f"by='no_answer': column {column!r} of {where} must hold lists; multilabel_id "
                              f"{bad.index[0]!r} holds {bad.iloc[0]!r}. Parse text cells first (EvaluationResult.load does).")
    answers = first["gold_answers"]
    labels = answers.map(blank).astype(bool)
    if "gold_document_ids" in first.columns:
        labels |= answers.map(empty).astype(bool) & first["gold_document_ids"].map(no_document).astype(bool)
    return labels.rename("no_answer")


#: How many field or column names a refusal of a slice key lists (:func:`evalframe._validation.few_names`).
SHOWN_NAMES = 10


@dataclass
class FieldPresence:
    """Whether some query's filters (meta) hold a ``filters.<field>`` (``meta.<field>``; its value may be null), and
    the fields beside it
    (for the message when none does): what one part of a result (a Dask partition) says of a slice key."""

    found: bool = False
    siblings: dict[str, None] = field(default_factory=dict)  # an ordered set

    def merge(self, other: FieldPresence) -> None:
        self.found = self.found or other.found
        if not self.found:
            self.siblings.update(other.siblings)


def check_present(parts: Sequence[Mapping[str, FieldPresence]], *, where: str) -> None:
    """Refuse a ``filters.<field>`` (``meta.<field>``) that no query of any part holds, as :func:`query_attributes`
    does for a whole frame (``parts``: the ``presence`` each part recorded)."""
    merged: dict[str, FieldPresence] = {}
    for part in parts:
        for key, presence in part.items():
            merged.setdefault(key, FieldPresence()).merge(presence)
    for key, presence in merged.items():
        if not presence.found:
            raise _absent(key, where, presence.siblings)


def _absent(key: str, where: str, siblings: Mapping[str, None]) -> InvalidParameterError:
    column, *path = key.split(".")
    parent = f"{column}." + "".join(f"{part}." for part in path[:-1])
    fields = [parent + name for name in sorted(siblings)]  # sorted: the same words however the queries are split
    held = f"their fields are {few_names(fields, SHOWN_NAMES)}" if fields else f"none has a field under {parent[:-1]!r}"
    return InvalidParameterError(  # the suggestion compares field names, not the shared 'filters.' prefix
        f"by {key!r}: no query of {where} has {key!r} in its {column}, so every query would be in one slice; "
        f"{held}.{did_you_mean(path[-1], list(siblings), prefix=parent)}", parameter="by")


#: An example field and object of each object column, for the messages.
_EXAMPLE_FIELD = {"filters": "filters.year", "meta": "meta.topic"}
_EXAMPLE_OBJECT = {"filters": '{"year": 2023}', "meta": '{"topic": "billing"}'}


def _object_field(first: pd.DataFrame, key: str, where: str,
                  presence: dict[str, FieldPresence] | None) -> pd.Series:
    """The labels of ``<column>.<field>`` (``filters.year``, ``meta.source.team``): one field of a JSON object column."""
    column, *path = key.split(".")
    if column not in first.columns:
        hint = (" (a runs line's \"meta\" object, or from_runs(meta=...): docs/runs-format.md#per-query-metadata)"
                if column == "meta" else "")
        raise SchemaError(f"by={key!r} reads column {column!r}, which {where} lacks{hint}.")
    if not all(path):
        raise InvalidParameterError(f"by={key!r}: name a {column} field after '{column}.', e.g. "
                                    f"{_EXAMPLE_FIELD[column]!r}.", parameter="by")
    texts = _object_text(first[column])
    codes, distinct = pd.factorize(texts, use_na_sentinel=True)
    values = []
    found = False  # whether some query's filters hold the field (its value may be null)
    siblings: dict[str, None] = {}  # the fields beside it, for the message when none does
    for text in distinct:  # once per distinct filters value, not per query
        try:
            value: Any = json.loads(text) if isinstance(text, (str, bytes)) else text
        except ValueError:
            query = first.index[texts.to_numpy() == text][0]
            raise SchemaError(
                f"by={key!r}: column {column!r} of {where} holds {text!r} for multilabel_id {query!r}, which is not "
                f"JSON text; {column} are JSON objects such as '{_EXAMPLE_OBJECT[column]}'."
            ) from None
        for part in path[:-1]:
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, dict):
            found = found or path[-1] in value
            if not found:
                siblings.update(dict.fromkeys(map(str, value)))
            value = value.get(path[-1])
        else:
            value = None
        values.append(value)
    if presence is not None:  # one part of a result: the caller checks the parts together (check_present)
        presence.setdefault(key, FieldPresence()).merge(FieldPresence(found, siblings))
    elif not found:
        raise _absent(key, where, siblings)
    labels = object_array(values + [None])[codes]  # code -1 (no filters / meta) -> None
    return _hashable(_labels(labels, first.index, key), f"by={key!r}")


def _callable(first: pd.DataFrame, key: Callable[[pd.DataFrame], Any]) -> pd.Series:
    name = getattr(key, "__name__", "slice")
    name = "slice" if name == "<lambda>" else name
    try:
        labels = key(first)
    except Exception as exc:
        raise InvalidParameterError(
            f"by={name}: the callable failed on the per-query table (columns {list(first.columns)}): "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(labels, pd.Series):
        if not labels.index.equals(first.index):
            return _mapping(first, labels.rename(name), what=f"by={name}: the Series the callable returned")
        return _hashable(labels.rename(name), f"by={name}")
    if isinstance(labels, (list, tuple)):
        labels = object_array(list(labels))  # a list of lists stays one label per query
    labels = np.asarray(labels) if not isinstance(labels, np.ndarray) else labels
    if labels.shape != (len(first),):
        raise InvalidParameterError(
            f"by={name}: the callable must return one label per query, {len(first)} of them (a Series or 1-d array "
            f"over the per-query table's rows); got shape {labels.shape}."
        )
    return _hashable(_labels(labels, first.index, name), f"by={name}")


def _mapping(first: pd.DataFrame, key: pd.Series | Mapping[Hashable, Any], what: str = "by: the Series/dict") -> pd.Series:
    series = key if isinstance(key, pd.Series) else pd.Series(dict(key), dtype=object)
    if series.index.has_duplicates:
        duplicated = series.index[series.index.duplicated()][0]
        raise InvalidParameterError(f"{what} labels multilabel_id {duplicated!r} more than once; give one label per query.")
    if len(first) and series.index.isin(first.index).sum() == 0:
        raise InvalidParameterError(
            f"{what} has none of this node's queries among its {len(series)} keys "
            f"(e.g. {list(series.index[:2])!r} vs {list(first.index[:2])!r}); index the labels by multilabel_id."
        )
    labels = series.reindex(first.index)
    return _hashable(labels.rename(series.name if isinstance(series.name, str) else "slice"), "by")


def query_attributes(frame: pd.DataFrame, by: SliceKey | Sequence[SliceKey], *, where: str = "the frame",
                     presence: dict[str, FieldPresence] | None = None) -> pd.DataFrame:
    """One label column per slice key, one row per query (index ``multilabel_id``, first-appearance order).

    A ``filters.<field>`` or ``meta.<field>`` that no query of ``frame`` has is an error (InvalidParameterError),
    unless ``presence`` is given: the frame is one part of a result (a Dask partition), where other parts may have the
    field; what this part holds is recorded in ``presence`` and the caller checks the parts together with
    :func:`check_present`.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["a", "a", "b"], "query": ["x", "x", "y"],
    ...                       "gold_answers": [["1"], ["1"], [""]], "filters": ['{"year": 2023}'] * 2 + [None]})
    >>> query_attributes(frame, ["no_answer", "filters.year"])
                   no_answer filters.year
    multilabel_id
    a                  False         2023
    b                   True         None
    """
    first = _first_rows(frame, where)
    columns = []
    for key in check_by(by):
        if isinstance(key, str):
            if key == "multilabel_id":
                raise InvalidParameterError(
                    "by='multilabel_id' would put every query in a slice of its own; per-query values are "
                    "query_metrics(node).")
            if key in frame.columns:
                labels = _column(frame, first, key, where)
            elif key == "no_answer":
                labels = _no_answer(first, where)
            elif key.startswith(tuple(f"{column}." for column in OBJECT_COLUMNS)):
                labels = _object_field(first, key, where, presence)
            else:
                columns_ = list(map(str, frame.columns))
                raise InvalidParameterError(
                    f"by {key!r} is not a column of {where}, 'no_answer', 'filters.<field>' or 'meta.<field>'."
                    f"{did_you_mean(key, [*columns_, *DERIVED])} Columns: {few_names(columns_, SHOWN_NAMES)}.", parameter="by")
        elif callable(key):
            labels = _callable(first, key)
        elif isinstance(key, (pd.Series, Mapping)):
            labels = _mapping(first, key)
        else:
            raise InvalidParameterError(f"by holds {key!r} of type {type(key).__name__}; see help(calculate_metrics).")
        _utf8_labels(labels, f"by={key!r}" if isinstance(key, str) else f"by={labels.name}")
        columns.append(labels)
    names = [str(c.name) for c in columns]
    if len(set(names)) != len(names):  # two callables both called "slice"
        columns = [c.rename(f"{n}_{i}") for i, (c, n) in enumerate(zip(columns, names))]
    attributes = pd.concat(columns, axis=1)
    attributes.index.name = "multilabel_id"
    return attributes


def query_keys(by: SliceKey | Sequence[SliceKey] | None, with_query: bool) -> list[SliceKey]:
    """The slice keys of a per-query table: ``by``'s, with the query text first when ``with_query``."""
    keys = check_by(by) if by is not None else []
    if with_query and not any(isinstance(key, str) and key == "query" for key in keys):
        keys = ["query", *keys]
    return keys


def labelled(table: pd.DataFrame, frame: pd.DataFrame, keys: Sequence[SliceKey], *, where: str,
             presence: dict[str, FieldPresence] | None = None) -> pd.DataFrame:
    """A per-query ``table`` of ``frame``'s queries with the labels of ``keys`` (:func:`query_keys`) before its
    columns (``presence``: see :func:`query_attributes`)."""
    if not keys:
        return table
    return beside(query_attributes(frame, keys, where=where, presence=presence), table).join(table)


def beside(attributes: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """The slice labels of ``table``'s queries; a label named like a metric (or a column) gets the prefix ``by_``."""
    taken = {*METRICS, "queries", "num_examples_for_eval", *map(str, table.columns)}
    clashing = {c: f"by_{c}" for c in attributes.columns if c in taken}
    return attributes.rename(columns=clashing).reindex(table.index)
