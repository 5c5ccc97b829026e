"""From per-query tables to means, in one way for a result in memory and for one on Dask.

A metric's one number is made of a sum and a count of its per-query values: its aggregation
(:class:`evalframe.metrics.registry.Aggregation`, declared by the metric's registry entry and found by the column's
name with :func:`evalframe.metrics.trec.aggregation_of`) says what each value adds to the sum and how the sum and the
count finish (the mean: the sum over the count). Each result class turns its per-query tables into *partials*
(:class:`Partial`: queries, sums and counts per metric, or per slice with :func:`slice_partial`); a result in memory
has one partial per table, a result on Dask one per partition, merged on the client (:func:`merge`,
:func:`merge_slices`); :func:`means` and :func:`merge_slices` give the numbers. The sums of one table are pandas'
(``Series.sum``, ``groupby().sum()``), so a result in memory gets the numbers ``Series.mean()`` gave; a partitioned
one adds the partitions' sums in partition order (equal to rounding).

Examples
--------
>>> import pandas as pd
>>> first = partial(pd.DataFrame({"f1": [1.0, 0.5]}))
>>> second = partial(pd.DataFrame({"f1": [0.0, float("nan")]}))
>>> merged = merge([{"Reader": first}, {"Reader": second}])["Reader"]
>>> merged.queries, means(merged)
(4, {'f1': 0.5})
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

import numpy as np
import pandas as pd

from ..metrics.trec import aggregation_of
from .intervals import Sample, merge_samples, sample_of

__all__ = ["Partial", "partial", "merge", "means", "slice_partial", "merge_slices"]

_K = TypeVar("_K", bound=Hashable)


class Partial(NamedTuple):
    """A per-query table summed up: its number of queries, and per metric the sum and the count of its values; with
    ``values`` (asked by an interval), per metric its :data:`evalframe.analysis.intervals.Sample` too."""

    queries: int
    sums: pd.Series
    counts: pd.Series
    values: Mapping[str, Sample] | None = None


def partial(table: pd.DataFrame, values: bool = False) -> Partial:
    """``table`` (one row per query, one column per metric; NaN: no value) summed up; ``values``: with each
    metric's :data:`evalframe.analysis.intervals.Sample` (for its interval).

    Examples
    --------
    >>> import pandas as pd
    >>> partial(pd.DataFrame({"mrr": [1.0, float("nan"), 0.5]}))
    Partial(queries=3, sums=mrr    1.5
    dtype: float64, counts=mrr    2
    dtype: int64, values=None)
    """
    summands = _summands(table)
    samples = ({str(column): sample_of(summands[column].to_numpy(dtype=np.float64, na_value=np.nan))
                for column in table.columns} if values else None)
    return Partial(len(table), summands.sum(), table.count(), samples)


def _summands(table: pd.DataFrame) -> pd.DataFrame:
    """What each value of ``table`` adds to its column's sum (the values themselves for a mean)."""
    aggregations = [aggregation_of(column) for column in table.columns]
    if all(aggregation.summand is None for aggregation in aggregations):
        return table
    return pd.DataFrame({column: aggregation.summands(table[column])
                         for column, aggregation in zip(table.columns, aggregations)}, index=table.index)


def merge(parts: Iterable[Mapping[_K, Partial]]) -> dict[_K, Partial]:
    """Partials added up key by key, in the order given (a part without a key adds nothing to it).

    Examples
    --------
    >>> import pandas as pd
    >>> one = partial(pd.DataFrame({"f1": [1.0]}))
    >>> merge([{"a": one}, {}, {"a": one}])["a"].sums.tolist()
    [2.0]
    """
    totals: dict[_K, Partial] = {}
    for part in parts:
        for key, (queries, sums, counts, values) in part.items():
            if key in totals:
                q, s, c, v = totals[key]
                if v is not None and values is not None:
                    v = {**v, **values, **{name: merge_samples(v[name], values[name]) for name in v if name in values}}
                totals[key] = Partial(q + queries, s.add(sums, fill_value=0.0), c.add(counts, fill_value=0), v)
            else:
                totals[key] = Partial(queries, sums, counts, values)
    return totals


def means(found: Partial) -> dict[str, float]:
    """Per metric, its number: the sum and the count finished by its aggregation (the mean: the sum over the count,
    NaN for a metric without values).

    Examples
    --------
    >>> import pandas as pd
    >>> means(partial(pd.DataFrame({"f1": [1.0, 0.0], "sas": [float("nan")] * 2})))
    {'f1': 0.5, 'sas': nan}
    """
    sums, counts = found.sums, found.counts
    return {str(name): float(aggregation_of(name).finish(np.array([float(sums[name])]), np.array([int(counts[name])]))[0])
            for name in sums.index}


def slice_partial(table: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Per slice of ``table``'s queries (``labels``: the slice label columns, one row per query of ``table``): the
    label columns, ``<metric>:sum`` and ``<metric>:count`` per metric, and ``queries``; one row per slice.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"f1": [1.0, 0.0, 0.5]}, index=["q1", "q2", "q3"])
    >>> labels = pd.DataFrame({"no_answer": [False, False, True]}, index=table.index)
    >>> slice_partial(table, labels)
       no_answer  f1:sum  f1:count  queries
    0      False     1.0         2        2
    1       True     0.5         1        1
    """
    names = list(labels.columns)
    columns, summands = list(table.columns), _summands(table)
    grouped = pd.concat([labels, table], axis=1).groupby(names, sort=False, dropna=False, observed=True)
    added = grouped if summands is table else \
        pd.concat([labels, summands], axis=1).groupby(names, sort=False, dropna=False, observed=True)
    sums = added[columns].sum().add_suffix(":sum")
    counts = grouped[columns].count().add_suffix(":count")
    totals = pd.concat([sums, counts], axis=1)
    totals["queries"] = grouped.size()
    return totals.reset_index()


def merge_slices(names: Sequence[str], pieces: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The :func:`slice_partial` pieces added up per slice, as numbers: index the slice labels (sorted; NaN labels a
    slice of their own), ``queries`` first, then each metric's sum and count finished by its aggregation (the mean:
    the sum over the count, NaN without values).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"f1": [1.0, 0.0, 0.5]}, index=["q1", "q2", "q3"])
    >>> labels = pd.DataFrame({"no_answer": [False, False, True]}, index=table.index)
    >>> merge_slices(["no_answer"], [slice_partial(table.iloc[:2], labels.iloc[:2]),
    ...                              slice_partial(table.iloc[2:], labels.iloc[2:])])
               queries   f1
    no_answer
    False            2  0.5
    True             1  0.5
    """
    totals = pd.concat(pieces, ignore_index=True)
    grouped = totals.groupby(list(names), sort=True, dropna=False, observed=True)
    metrics = [c[:-len(":sum")] for c in totals.columns if c.endswith(":sum")]
    added = grouped[[*(f"{m}:sum" for m in metrics), *(f"{m}:count" for m in metrics), "queries"]].sum()
    table = pd.DataFrame({"queries": added["queries"].astype(np.int64)}, index=added.index)
    for metric in metrics:
        sums, counts = added[f"{metric}:sum"].to_numpy(), added[f"{metric}:count"].to_numpy()
        table[metric] = aggregation_of(metric).finish(sums, counts)
    return table
