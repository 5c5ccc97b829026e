"""Repeated judge runs: a score given k times per query, kept as its k values (``docs/scores.md#repeated-judge-runs``).

A score with repetitions lives in a node's frame as two columns: ``repeats.<name>``, on every row of a query the list
of its values (floats, in the order given; None: none), and ``scores.<name>``, their mean (float64,
NaN without a value), which every analysis reads. The mean is derived from the list whenever the score is read
(:func:`repeat_means`), so a frame whose ``scores.<name>`` was changed by hand and no longer is the mean of its
``repeats.<name>`` is refused, named, rather than one of them silently winning.

A repetition that is no value (None, NaN, an empty text) is left out when the values are read: a query's k is the
number of its values, its mean their mean; a query with none has no value (NaN, left out of the means). Each value
follows the one rule of a score's value (:mod:`evalframe.frames.score_values`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import short_repr
from ..errors import EvalframeError, InvalidParameterError, SchemaError
from .score_values import score_values

__all__ = ["REPEATS_PREFIX", "repeats_column", "read_repetitions", "repeat_means", "as_lists", "check_means",
           "is_repetitions", "query_repetitions"]

#: The prefix of the column holding a score's repetitions (``repeats.<name>``), beside its mean ``scores.<name>``.
REPEATS_PREFIX = "repeats."


def repeats_column(name: str) -> str:
    """The column of a score's repetitions.

    Examples
    --------
    >>> repeats_column("faithfulness")
    'repeats.faithfulness'
    """
    return REPEATS_PREFIX + name


def is_repetitions(value: Any) -> bool:
    """Whether a cell holds repetitions (a list, a tuple or a 1-D array), not one value.

    Examples
    --------
    >>> is_repetitions([0.5, 0.7]), is_repetitions(0.5), is_repetitions("0.5")
    (True, False, False)
    """
    return isinstance(value, (list, tuple)) or isinstance(value, np.ndarray) and value.ndim == 1


def read_repetitions(cells: Sequence[Any] | np.ndarray | pd.Series, *, where: Callable[[int, int], str],
                     error: type[EvalframeError] = InvalidParameterError,
                     parameter: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cells each holding a score's repetitions (a list; None or NaN: none) as ``(values, lengths)``: the values of
    every cell one after another (float64, the values that are no value left out) and how many each cell has.

    ``where(i, j)`` names repetition ``j`` of cell ``i`` (both from 0) in an error; a cell that is no list is named
    ``where(i, -1)``.

    Examples
    --------
    >>> values, lengths = read_repetitions([[0.5, "1"], None, [0.2, None, 0.4]],
    ...                                    where=lambda i, j: f"row {i + 1}, repetition {j + 1}")
    >>> values.tolist(), lengths.tolist()
    ([0.5, 1.0, 0.2, 0.4], [2, 0, 2])
    >>> read_repetitions([[0.5], 0.7], where=lambda i, j: f"row {i + 1}")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: row 2 must be a list of the score's repetitions (None: none); got 0.7.
    """
    objects = cells.to_numpy(dtype=object) if isinstance(cells, (pd.Series, pd.Index)) else np.fromiter(
        list(cells), dtype=object, count=len(cells))
    codes, kinds = pd.factorize(pd.Series(list(map(type, objects)), dtype=object))  # the few types of the cells
    listed = np.isin(codes, [n for n, kind in enumerate(kinds) if issubclass(kind, (list, tuple, np.ndarray))])
    arrays = np.flatnonzero(np.isin(codes, [n for n, kind in enumerate(kinds) if issubclass(kind, np.ndarray)]))
    if len(arrays):  # only a 1-D array is a list of repetitions
        listed[arrays] = [objects[i].ndim == 1 for i in arrays]
    bad = np.flatnonzero(~listed)
    if len(bad):
        bad = bad[~pd.isna(objects[bad]).astype(bool)]
    if len(bad):
        i = int(bad[0])
        raise error(f"{where(i, -1)} must be a list of the score's repetitions (None: none); got "
                    f"{short_repr(objects[i], 60)}.", parameter=parameter)
    present = pd.Series(objects[listed], index=np.flatnonzero(listed), dtype=object)
    sizes = np.zeros(len(objects), dtype=np.int64)
    sizes[listed] = present.str.len().to_numpy(dtype=np.int64)
    exploded = present.explode()
    owners = exploded.index.to_numpy(dtype=np.int64)
    flat = exploded.to_numpy(dtype=object)[sizes[owners] > 0]  # an empty list explodes to one NaN: none
    cell_of = np.repeat(np.arange(len(objects)), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else sizes
    rep_of = np.arange(len(flat)) - np.repeat(starts, sizes)
    values = score_values(flat, where=lambda p: where(int(cell_of[p]), int(rep_of[p])), error=error,
                          parameter=parameter)
    kept = ~np.isnan(values)
    return values[kept], np.bincount(cell_of[kept], minlength=len(objects)).astype(np.int64)


def repeat_means(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each cell's mean of its values (:func:`read_repetitions`' output), NaN for a cell without one.

    Examples
    --------
    >>> repeat_means(np.array([0.5, 1.0, 0.2, 0.4]), np.array([2, 0, 2])).round(12).tolist()
    [0.75, nan, 0.3]
    """
    owner = np.repeat(np.arange(len(lengths)), lengths)
    sums = np.bincount(owner, weights=values, minlength=len(lengths))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(lengths > 0, sums / np.maximum(lengths, 1), np.nan)


def as_lists(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The values as one list of floats per cell (an object array), as ``repeats.<name>`` holds them.

    Examples
    --------
    >>> as_lists(np.array([0.5, 1.0, 0.2]), np.array([2, 0, 1])).tolist()
    [[0.5, 1.0], [], [0.2]]
    """
    ends = np.cumsum(lengths).tolist()
    flat = values.tolist()
    out = np.empty(len(lengths), dtype=object)
    out[:] = [flat[end - size:end] for end, size in zip(ends, lengths.tolist())]  # one list object per query
    return out


def check_means(means: np.ndarray, given: np.ndarray, *, name: str, where: str) -> None:
    """Refuse a ``scores.<name>`` column that is not the mean of its ``repeats.<name>`` (set by hand), naming the
    first row that differs (``where``: the node)."""
    same = np.isclose(given, means, rtol=1e-12, atol=1e-12, equal_nan=True)
    if not same.all():
        i = int(np.flatnonzero(~same)[0])
        raise SchemaError(
            f"{where}: column 'scores.{name}', row {i} of its frame, holds {float(given[i])!r}, which is not the mean "
            f"({float(means[i])!r}) of the repetitions in column 'repeats.{name}'; the repetitions are the score's "
            f"values: change them (result.add_scores(node, table, repetition=...)), or drop 'repeats.{name}' to "
            "keep one value per query.")


def query_repetitions(frame: pd.DataFrame, name: str, *, eval_mode: str = "integrated",
                      where: str = "the node") -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """Each query's repetitions of score ``name`` in ``frame`` (the rows of ``eval_mode``; first appearance):
    ``(multilabel_ids, values, lengths)`` as :func:`read_repetitions` gives them; a score without a
    ``repeats.<name>`` column has one value per query (none: length 0).

    Examples
    --------
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "scores.f": [0.75, 0.75, 0.5],
    ...                       "repeats.f": [[0.5, 1.0], [0.5, 1.0], [0.5]]})
    >>> ids, values, lengths = query_repetitions(frame, "f")
    >>> ids.tolist(), values.tolist(), lengths.tolist()
    (['q1', 'q2'], [0.5, 1.0, 0.5], [2, 1])
    """
    ids = pd.Series(np.asarray(frame["multilabel_id"], dtype=object))
    in_mode = (np.asarray(pd.Series(np.asarray(frame["eval_mode"], dtype=object)) == eval_mode)
               if "eval_mode" in frame.columns else np.ones(len(ids), dtype=bool))
    positions = np.flatnonzero(in_mode)
    firsts = positions[~ids.iloc[positions].duplicated().to_numpy()]
    index = pd.Index(ids.iloc[firsts].to_numpy(), name="multilabel_id", dtype=object)
    column = repeats_column(name)
    if column in frame.columns:
        values, lengths = read_repetitions(
            pd.Series(np.asarray(frame[column], dtype=object)[firsts], dtype=object),
            where=lambda i, j: f"{where}: column {column!r}, row {int(firsts[i])} of its frame"
            + (f", repetition {j + 1}" if j >= 0 else ""), error=SchemaError)
        return index, values, lengths
    single = score_values(frame["scores." + name], where=lambda i: f"{where}: column 'scores.{name}', row {i}",
                          error=SchemaError)[firsts]
    kept = ~np.isnan(single)
    return index, single[kept], kept.astype(np.int64)
