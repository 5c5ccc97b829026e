"""Significance per slice: :func:`evalframe.compare` with ``by=``, one row per slice of the queries and comparison.

A slice's row is what :func:`~evalframe.analysis.compare.compare` gives on that slice's queries alone: the queries are
paired once per comparison (pair of runs and metric), each paired query is given its slice's code, and the paired
differences are split by code (one sort, no loop over queries); the statistics of every slice then come from one call
of :func:`~evalframe.analysis.compare.paired_statistics_many`. The slice labels are those of
:meth:`EvaluationResult.sliced_metrics` (:mod:`evalframe.analysis.slices`); a query the runs label differently is in
the slice of its label in the first run that holds it (with a warning). The correction (``correction=``) spans the
slices as ``family`` says (``"slices"``, :data:`evalframe.analysis.compare.FAMILY_LEVELS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import warn
from ..metrics.trec import aggregation_of
from ..options import CompareOptions
from .compare import (PairedDifferences, Run, add_correction, is_result, paired, paired_statistics_many,
                      per_query_table, table_of_rows, warn_of_unpaired)
from .slices import check_by, query_attributes

__all__ = ["labelled_tables", "slice_codes", "sliced_table", "SLICE_LEVEL", "UNTESTED"]

#: The index level of the slices in :func:`evalframe.compare`'s table with ``by=``.
SLICE_LEVEL = "slice"
#: The columns a slice of fewer than two paired queries has as NaN: no test, no interval, of one difference.
UNTESTED = ("ci_low", "ci_high", "t")


def labelled_tables(runs: Sequence[Run], names: Sequence[str], node: str | None, by: Any,
                    params: Mapping[str, Any], measures: Sequence[str],
                    trec: dict[str, Any]) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Each run's per-query table (as :func:`~evalframe.analysis.compare.compare` reads it) and its slice labels (one
    column per key of ``by``, index multilabel_id). A result's labels are those of ``query_metrics(node, by=by)``; a
    per-query table's come from its own columns (a key naming one is then no metric) or a Series / dict."""
    keys = check_by(by)
    tables, labels = [], []
    for run, name in zip(runs, names):
        if is_result(run):
            table = per_query_table(run, node, {**params, "by": keys}, name, measures, trec)
            labels.append(table.iloc[:, :len(keys)])
            tables.append(table.iloc[:, len(keys):])
            continue
        table = per_query_table(run, node, params, name, measures, trec)
        frame = table.rename_axis("multilabel_id").reset_index()
        labels.append(query_attributes(frame, keys, where=f"run {name!r} (a per-query table)"))
        tables.append(table.drop(columns=[key for key in keys if isinstance(key, str) and key in table.columns]))
    return tables, labels


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


def sliced_table(tables: Sequence[pd.DataFrame], labels: Sequence[pd.DataFrame], names: Sequence[str],
                 positions: Sequence[tuple[int, int]], metrics: Sequence[str], directions: Mapping[str, str],
                 chosen: CompareOptions, family: Sequence[str]) -> pd.DataFrame:
    """:func:`~evalframe.analysis.compare.compare`'s table per slice: index ``(slice, metric)`` (two runs),
    ``(slice, run, metric)`` or ``(slice, run_a, run_b, metric)``; each row the statistics of the slice's queries
    paired in the runs ``positions`` names (a slice of fewer than two paired queries: NaN tests and interval), the
    correction over ``family``. One warning per comparison with unpaired queries, as without slices."""
    codes, slices = slice_codes(labels, names)
    count = len(slices)
    per_comparison: list[list[tuple[tuple[str, str, str], PairedDifferences]]] = []
    for i, j in positions:
        for metric in metrics:
            pairs = paired(tables[i][metric], tables[j][metric])
            warn_of_unpaired(names[i], names[j], metric, pairs.only_a, pairs.only_b, len(pairs.a))
            paired_codes = codes.reindex(pairs.a.index).to_numpy(dtype=np.int64)
            only_a = _counts(codes, tables[i][metric].dropna().index.difference(pairs.a.index), count)
            only_b = _counts(codes, tables[j][metric].dropna().index.difference(pairs.a.index), count)
            aggregation = aggregation_of(metric)
            values_a = pairs.a.to_numpy(dtype=np.float64)
            values_b = pairs.b.to_numpy(dtype=np.float64)
            d = aggregation.summands(values_b) - aggregation.summands(values_a)
            order = np.argsort(paired_codes, kind="stable")  # a's query order within each slice
            bounds = np.searchsorted(paired_codes[order], np.arange(count + 1))
            items = []
            for code in range(count):
                members = order[bounds[code]:bounds[code + 1]]
                mean_a = aggregation(values_a[members]) if len(members) else np.nan
                mean_b = aggregation(values_b[members]) if len(members) else np.nan
                items.append(((names[i], names[j], metric),
                              PairedDifferences(d[members], mean_a, mean_b, int(only_a[code]), int(only_b[code]),
                                                directions[metric], aggregation.name)))
            per_comparison.append(items)
    # slice first, then the comparisons in compare's order
    ordered = [items[code] for code in range(count) for items in per_comparison]
    statistics = paired_statistics_many([item for _, item in ordered], seed=chosen.seed, rounds=chosen.rounds,
                                        confidence=chosen.confidence, zero_method=chosen.zero_method)
    table = table_of_rows([(key, row) for (key, _), row in zip(ordered, statistics)], names, test=chosen.test,
                          correction="none", pairs=chosen.pairs, warn_unpaired=False)
    inner = table.index
    levels = [inner.get_level_values(level) for level in range(inner.nlevels)]
    slice_values = slices.to_flat_index().take(np.repeat(np.arange(count), len(per_comparison)))
    table.index = pd.MultiIndex.from_arrays([slice_values, *levels], names=[SLICE_LEVEL, *inner.names])
    few = table["queries"].to_numpy() < 2
    if few.any():  # one difference: no test, and no interval (the bootstrap would give the value itself)
        untested = [column for column in table.columns if column in UNTESTED or column.startswith("p_")]
        table.loc[few, untested] = np.nan
    add_correction(table, test=chosen.test, correction=chosen.correction, family=family, max_p=chosen.max_p)
    return table


def _counts(codes: pd.Series, queries: pd.Index, count: int) -> np.ndarray:
    """How many of ``queries`` each slice holds."""
    return np.bincount(codes.reindex(queries).to_numpy(dtype=np.int64), minlength=count)
