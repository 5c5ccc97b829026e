"""The two sides of a judge-against-gold analysis, one value per query: aligned (two Series by their index,
anything else by position), their values checked in C (pandas' ``infer_dtype``) with the first bad one named, and
read from a result's per-query table (:func:`result_values`).

Examples
--------
>>> import pandas as pd
>>> judge, gold, keys = aligned(pd.Series([1, 2], index=["a", "b"]), pd.Series([3], index=["b"]))
>>> judge.tolist(), gold.tolist(), list(keys.index)
([1, 2], [None, 3], ['a', 'b'])
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union, cast

import numpy as np
import pandas as pd

from .._validation import did_you_mean, few_names, short_repr
from ..errors import EvalframeError, InvalidParameterError

__all__ = ["Keys", "Side", "aligned", "column", "is_number", "kind_of", "missing", "numbers_of", "result_values"]

#: What a side of :meth:`evalframe.EvaluationResult.agreement` (``judge=``, ``gold=``) may be.
Side = Union[str, pd.Series, Mapping[Hashable, Any]]


def missing(values: np.ndarray) -> np.ndarray:
    """Whether each value is missing (None, NaN, pandas' NA): a query left out of that side."""
    return np.asarray(pd.isna(values), dtype=bool)


def column(values: Any, name: str) -> pd.Series | np.ndarray:
    """One side as given: a Series (its index labels once each), a dict as a Series, anything else a 1-d array."""
    if isinstance(values, pd.Series):
        if values.index.has_duplicates:
            duplicated = values.index[values.index.duplicated()][0]
            raise InvalidParameterError(f"{name} has index label {duplicated!r} more than once; give one value per query.",
                                        parameter=name)
        return values
    if isinstance(values, pd.DataFrame):
        raise InvalidParameterError(f"{name} must be one value per query (a Series or a 1-d array); got a DataFrame with "
                                    f"columns {few_names(list(map(str, values.columns)))}: pick one column.", parameter=name)
    if isinstance(values, Mapping):
        return column(pd.Series(dict(values), dtype=object), name)
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray, pd.Index)):
        raise InvalidParameterError(f"{name} must be a Series or a 1-d array of per-query values; got "
                                    f"{short_repr(values, 60)} of type {type(values).__name__}.", parameter=name)
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if array.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-d, one value per query; got shape {array.shape}.", parameter=name)
    return array


@dataclass(frozen=True)
class Keys:
    """Where each value of the aligned sides came from, for the messages: an index label, or a position."""

    index: pd.Index
    labelled: bool

    def at(self, positions: np.ndarray, where: int) -> str:
        key = self.index[positions[where]]
        return f"index label {key!r}" if self.labelled else f"position {key}"


def _absent_like(values: np.ndarray, count: int) -> np.ndarray:
    """``count`` missing values to go beside ``values``: NaN for floats, None otherwise (ints and bools stay what they
    are beside None, not floats)."""
    return np.full(count, np.nan) if values.dtype.kind == "f" else np.full(count, None, dtype=object)


def _by_index(left: pd.Series, right: pd.Series, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Two Series on the union of their indexes (``left``'s order, then the labels only ``right`` has): one hash
    lookup of ``right``'s labels in ``left``'s."""
    values_left, values_right = np.asarray(left), np.asarray(right)
    if left.index.equals(right.index):
        return values_left, values_right, left.index
    found = left.index.get_indexer(right.index)
    shared = found >= 0
    if len(left) and len(right) and not shared.any():
        raise InvalidParameterError(
            f"{names[0]} and {names[1]} share no index label (e.g. {list(left.index[:2])!r} vs "
            f"{list(right.index[:2])!r}), so no query has both; index both by the same query ids (multilabel_id), "
            "or pass arrays in one order.", parameter=names[1])
    extra = ~shared
    index = left.index.append(right.index[extra])
    aligned_left = np.concatenate([values_left, _absent_like(values_left, int(extra.sum()))])
    aligned_right = _absent_like(values_right, len(index))
    aligned_right[found[shared]] = values_right[shared]
    aligned_right[len(left):] = values_right[extra]
    return aligned_left, aligned_right, index


def aligned(judge: Any, gold: Any, names: tuple[str, str] = ("judge", "gold")) -> tuple[np.ndarray, np.ndarray, Keys]:
    """The two sides as arrays, one entry per query: two Series by their index (a query one of them lacks has no value
    there), otherwise by position (the lengths must agree); and where each entry came from."""
    left, right = column(judge, names[0]), column(gold, names[1])
    if isinstance(left, pd.Series) and isinstance(right, pd.Series):
        values_left, values_right, index = _by_index(left, right, names)
        return values_left, values_right, Keys(index, True)
    if len(left) != len(right):
        raise InvalidParameterError(f"{names[0]} and {names[1]} must give one value per query each, in one order; got "
                                    f"{len(left)} and {len(right)} values (two Series are aligned by their index).",
                                    parameter=names[1])
    return np.asarray(left), np.asarray(right), Keys(pd.RangeIndex(len(left)), False)


def is_number(value: Any) -> bool:
    """A real number that is no bool (True is a verdict, not the number 1)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


#: What pandas' infer_dtype calls the values of one kind (checked in C, not value by value in Python).
_KINDS = {"floating": "number", "integer": "number", "mixed-integer-float": "number", "boolean": "bool",
          "string": "text", "empty": "empty"}


def kind_of(values: np.ndarray) -> str:
    """``"number"``, ``"bool"``, ``"text"``, ``"empty"``, or ``"mixed"`` (anything else: checked value by value)."""
    return _KINDS.get(pd.api.types.infer_dtype(values, skipna=True), "mixed")


def numbers_of(values: np.ndarray, name: str, keys: Keys, positions: np.ndarray, *, bools: bool = False) -> np.ndarray:
    """Present values (at ``positions`` of the aligned sides) as float64 (numbers; with ``bools`` True / False too, as
    1 / 0), refusing the first that is not."""
    kind = kind_of(values)
    if kind == "mixed" or (kind == "bool" and not bools) or kind == "text":
        kinds = np.fromiter((is_number(v) or (bools and isinstance(v, (bool, np.bool_))) for v in values), dtype=bool,
                            count=len(values))
        if not kinds.all():
            where = int(np.flatnonzero(~kinds)[0])
            raise InvalidParameterError(f"{name} must hold numbers (NaN or None: no value); {keys.at(positions, where)} "
                                        f"holds {short_repr(values[where], 40)} of type {type(values[where]).__name__}.",
                                        parameter=name)
    floats = values.astype(np.float64)
    if not np.isfinite(floats).all():
        where = int(np.flatnonzero(~np.isfinite(floats))[0])
        raise InvalidParameterError(f"{name} must hold finite numbers; {keys.at(positions, where)} holds {floats[where]}.",
                                    parameter=name)
    return floats


def result_values(table_of: Callable[[list[Any]], pd.DataFrame], node: str, sides: Mapping[str, Side]) -> list[pd.Series]:
    """Each side's per-query values, read from the node's per-query table ``table_of(by)`` (index ``multilabel_id``):
    a metric or declared score by name, ``meta.<field>`` / ``filters.<field>`` (slice keys, read as ``by=``), or a
    Series / dict from ``multilabel_id`` to value (reindexed to the node's queries; one it lacks is refused)."""
    for side, value in sides.items():  # before the table is read (on Dask: gathered)
        if not isinstance(value, (str, pd.Series, Mapping)):
            raise InvalidParameterError(
                f"{side} must be a metric or score name, 'meta.<field>', or a Series from multilabel_id to value; got "
                f"{short_repr(value, 40)} of type {type(value).__name__}.", parameter=side)
    keys = [value for value in sides.values() if isinstance(value, str) and value.startswith(("meta.", "filters."))]
    try:
        table = table_of(keys)
    except EvalframeError as exc:  # a slice key's refusal speaks of by=: name the side instead
        named = next((name for name, value in sides.items() if isinstance(value, str) and repr(value) in str(exc)), None)
        if named is None or not str(exc).startswith("by"):
            raise
        raise type(exc)(f"{named}: {exc}", parameter=named) from None
    labels = {key: table.iloc[:, position] for position, key in enumerate(dict.fromkeys(keys))}
    metrics = [str(c) for c in table.columns[len(labels):]]
    values = []
    for side, value in sides.items():
        if isinstance(value, str):
            if value in labels:
                values.append(labels[value].rename(value))
            elif value in metrics:
                values.append(table[value])
            else:
                raise InvalidParameterError(
                    f"{side}={value!r} is no metric or score of node {node!r} (its columns: {few_names(metrics, 10)}), "
                    f"nor a 'meta.<field>' or 'filters.<field>'.{did_you_mean(value, metrics)}", parameter=side)
        else:
            series = cast(pd.Series, column(value, side))  # a Mapping becomes a Series there
            unknown = series.index.difference(table.index)
            if len(unknown):
                raise InvalidParameterError(
                    f"{side} is indexed by {unknown[0]!r}, which is no query (multilabel_id) of node {node!r} "
                    f"({len(unknown)} such of {len(series)}); index it by the node's multilabel_id "
                    "(result.query_metrics(node).index).", parameter=side)
            values.append(series.reindex(table.index))
    return values



