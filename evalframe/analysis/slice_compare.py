"""Significance per slice, the pieces :func:`evalframe.compare` with ``by=`` is built from: each query's slice, the
paired queries split by slice, the table's ``slice`` index level and the rule for slices too small to test.

A slice's row is what :func:`~evalframe.analysis.compare.compare` gives on that slice's queries alone: the queries are
paired once per comparison (pair of runs and metric), each paired query is given its slice's code, and the paired
differences are split by code (one sort, no loop over queries: :func:`slice_members`); the statistics of every slice
then come from one call of :func:`~evalframe.analysis.compare.paired_statistics_many`
(:func:`evalframe.analysis.compare.sliced_table`). The slice labels are those of
:meth:`EvaluationResult.sliced_metrics` (:mod:`evalframe.analysis.slices`); a query the runs label differently is in
the slice of its label in the first run that holds it (with a warning). The correction (``correction=``) spans the
slices as ``family`` says (``"slices"``, :data:`evalframe.analysis.compare.FAMILY_LEVELS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import warn
from .slices import SliceKey, query_attributes

__all__ = ["table_labels", "slice_codes", "slice_members", "slice_counts", "with_slices", "SLICE_LEVEL", "UNTESTED"]

#: The index level of the slices in :func:`evalframe.compare`'s table with ``by=``.
SLICE_LEVEL = "slice"
#: The columns a slice of fewer than two paired queries has as NaN: no test, no interval, of one difference.
UNTESTED = ("ci_low", "ci_high", "t")


def table_labels(table: pd.DataFrame, keys: Sequence[SliceKey], name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A per-query table's slice labels (one column per key, index multilabel_id: its own columns, a callable over
    it, a Series or dict) and the table without the label columns it held (a key naming a column is no metric).

    Examples
    --------
    >>> table = pd.DataFrame({"topic": ["x", "y"], "mrr": [1.0, 0.5]}, index=["q1", "q2"])
    >>> labels, rest = table_labels(table, ["topic"], "A")
    >>> labels["topic"].tolist(), list(rest.columns)
    (['x', 'y'], ['mrr'])
    """
    frame = table.rename_axis("multilabel_id").reset_index()
    labels = query_attributes(frame, list(keys), where=f"run {name!r} (a per-query table)")
    return labels, table.drop(columns=[key for key in keys if isinstance(key, str) and key in table.columns])


def slice_codes(labels: Sequence[pd.DataFrame], names: Sequence[str]) -> tuple[pd.Series, pd.Index]:
    """Each query's slice (its code, index multilabel_id) over every run, and the slices' labels (a label, or a tuple
    of labels for several keys; sorted where the labels compare, NaN a slice of its own, last).

    A query that the runs label differently is in the slice of its label in the first run (in the order given)
    that holds it, as the comparative report's grid shows it, with a warning naming one such query, its labels and
    how many there are.

    Examples
    --------
    >>> a = pd.DataFrame({"topic": ["x", "y"]}, index=pd.Index(["q1", "q2"], name="multilabel_id"))
    >>> b = pd.DataFrame({"topic": ["y", "z"]}, index=pd.Index(["q2", "q3"], name="multilabel_id"))
    >>> codes, slices = slice_codes([a, b], ["A", "B"])
    >>> codes.to_dict(), list(slices)
    ({'q1': 0, 'q2': 1, 'q3': 2}, ['x', 'y', 'z'])
    """
    columns = [str(column) for column in labels[0].columns]
    stacked = pd.concat([frame.set_axis(columns, axis=1).assign(_run=position)
                         for position, frame in enumerate(labels)])
    stacked.index.name = "multilabel_id"
    flat = stacked.reset_index()
    distinct = flat.drop_duplicates(subset=["multilabel_id", *columns])
    disagreeing = distinct["multilabel_id"].duplicated(keep=False).to_numpy()
    if disagreeing.any():
        query = distinct["multilabel_id"].to_numpy()[disagreeing][0]
        rows = distinct[distinct["multilabel_id"] == query]
        seen = ", ".join(f"run {names[int(run)]!r} {tuple(values) if len(columns) > 1 else values[0]!r}"
                         for run, values in zip(rows["_run"], rows[columns].to_numpy(dtype=object).tolist()))
        count = int(distinct["multilabel_id"][disagreeing].nunique())
        warn(f"by: the runs label {count} quer{'y' if count == 1 else 'ies'} differently (e.g. {query!r}: {seen}); "
             "each is in the slice of its label in the first run that holds it. Pass by= a Series or dict from "
             "multilabel_id to label to label every run's queries alike.")
    distinct = flat.drop_duplicates(subset=["multilabel_id"], keep="first")  # the first run's label
    distinct = distinct.set_index("multilabel_id")[columns]
    try:
        grouped = distinct.groupby(columns, sort=True, dropna=False)
        codes = grouped.ngroup()
    except TypeError:  # labels that do not compare (text and numbers): in the order they first appear
        grouped = distinct.groupby(columns, sort=False, dropna=False)
        codes = grouped.ngroup()
    slices = grouped.size().index
    if len(columns) == 1 and isinstance(slices, pd.MultiIndex):
        slices = slices.get_level_values(0)
    return codes.astype(np.int64), slices


def slice_members(codes: np.ndarray, count: int) -> list[np.ndarray]:
    """The positions of each of ``count`` slices among ``codes`` (one code per paired query), in their order: one
    stable sort, then a cut per slice.

    >>> [members.tolist() for members in slice_members(np.array([1, 0, 1, 2]), 4)]
    [[1], [0, 2], [3], []]
    """
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(count + 1))
    return [order[bounds[code]:bounds[code + 1]] for code in range(count)]


def slice_counts(codes: pd.Series, queries: pd.Index, count: int) -> np.ndarray:
    """How many of ``queries`` each of ``count`` slices holds (``codes``: :func:`slice_codes`' by query)."""
    return np.bincount(codes.reindex(queries).to_numpy(dtype=np.int64), minlength=count)


def with_slices(table: pd.DataFrame, slices: pd.Index, comparisons: int) -> pd.DataFrame:
    """A comparison table of ``len(slices)`` x ``comparisons`` rows (slice by slice) with the first index level
    ``slice``, and no test nor interval where a slice has fewer than 2 paired queries (:data:`UNTESTED` and every
    p-value NaN: one difference says nothing of its spread)."""
    inner = table.index
    levels = [inner.get_level_values(level) for level in range(inner.nlevels)]
    values = slices.to_flat_index().take(np.repeat(np.arange(len(slices)), comparisons))
    table.index = pd.MultiIndex.from_arrays([values, *levels], names=[SLICE_LEVEL, *inner.names])
    few = table["queries"].to_numpy() < 2
    if few.any():
        untested = [column for column in table.columns if column in UNTESTED or column.startswith("p_")]
        table.loc[few, untested] = np.nan
    return table
