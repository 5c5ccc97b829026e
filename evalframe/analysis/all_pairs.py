"""All pairs of N runs tested at once: Tukey's HSD and the randomized Tukey HSD (``compare(..., test=...)``).

Both tests take, per metric, the runs' per-query values on the queries every run scored (an ``n x N`` matrix) and
give one p-value per pair of runs, already adjusted for the ``N (N - 1) / 2`` pairs of that metric:

* ``"tukey"``: Tukey's honestly significant difference, as ``scipy.stats.tukey_hsd(*groups)`` computes it, each run's
  values being one group. scipy's test (and ranx's ``stat_test="tukey"``, which calls it) treats the groups as
  independent samples: the per-query pairing is not used (the error term is the pooled within-run variance, which
  holds the queries' own spread), so it is conservative for runs scored on the same queries.
* ``"randomized-tukey"``: the randomized (permutation) Tukey HSD of Carterette (2012, "Multiple testing in statistical
  analysis of systems-based information retrieval experiments", ACM TOIS 30(1)) and Sakai: in each round the N runs'
  values are permuted within each query, and the round's statistic is the largest mean minus the smallest; the
  p-value of the pair (i, j) is ``(1 + #{rounds whose statistic >= |mean_i - mean_j|}) / (rounds + 1)``. It keeps
  the pairing (the permutations are within queries) and controls the family-wise error over all pairs.

The kernels are pure numpy (scipy's studentized range distribution, imported when the test runs); a Dask
computation gives Tukey's HSD the per-run sums (:func:`moments`, :func:`merged_moments`) and the randomized one the
matrix.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_positive_int
from ..errors import InvalidParameterError
from ..metrics.trec import aggregation_of
from ..options import ALL_PAIRS_TESTS

__all__ = ["ALL_PAIRS_COLUMNS", "common_queries", "common_values", "moments", "merged_moments", "tukey_hsd_p_values",
           "randomized_tukey_p_values", "all_pairs_p_values", "with_all_pairs_p_values"]

#: The column of each test of all pairs (``test=``: :data:`evalframe.options.ALL_PAIRS_TESTS`).
ALL_PAIRS_COLUMNS = {"tukey": "p_tukey", "randomized-tukey": "p_randomized_tukey"}

#: Random numbers drawn per block of rounds: bounds the memory of the randomized test at about 32 MB per array.
_BLOCK = 1 << 22


def common_values(tables: Sequence[pd.DataFrame], metric: str) -> np.ndarray:
    """The ``n x N`` matrix of ``metric``'s values of the N runs' per-query ``tables`` on the queries every run scored
    (not NaN), in the first table's query order; each value as it adds to the runs' number (the measure's
    :meth:`~evalframe.metrics.registry.Aggregation.summands`: the value, its floored log for a geometric mean).

    Examples
    --------
    >>> a = pd.DataFrame({"mrr": [1.0, 0.5, None]}, index=["q1", "q2", "q3"])
    >>> b = pd.DataFrame({"mrr": [0.0, 1.0, 1.0]}, index=["q3", "q2", "q1"])
    >>> common_values([a, b], "mrr")
    array([[1. , 1. ],
           [0.5, 1. ]])
    """
    queries = common_queries(tables, metric)
    if not len(queries):
        return np.empty((0, len(tables)))
    aggregation = aggregation_of(metric)
    columns = [aggregation.summands(table[metric].loc[queries].to_numpy(dtype=np.float64)) for table in tables]
    return np.column_stack(columns)


def common_queries(tables: Sequence[pd.DataFrame], metric: str) -> pd.Index:
    """The queries (index labels) every one of ``tables`` scores ``metric`` for (not NaN), in the first one's order;
    none when a table lacks the column."""
    if any(metric not in table.columns for table in tables):
        return tables[0].index[:0]
    both = tables[0].index[tables[0][metric].notna().to_numpy()]
    for table in tables[1:]:
        both = both.intersection(table.index[table[metric].notna().to_numpy()], sort=False)
    return both


def moments(values: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """``(n, sums, squares)`` of an ``n x N`` matrix: each run's sum and sum of squared deviations from its mean, what
    :func:`tukey_hsd_p_values` needs (merged over partitions by :func:`merged_moments`)."""
    n = values.shape[0]
    sums = values.sum(axis=0)
    squares = ((values - sums / n) ** 2).sum(axis=0) if n else np.zeros(values.shape[1])
    return n, sums, squares


def merged_moments(parts: Sequence[tuple[int, np.ndarray, np.ndarray]]) -> tuple[int, np.ndarray, np.ndarray]:
    """The :func:`moments` of the rows of several matrices from theirs (Chan et al.'s pairwise update: the squared
    deviations of each part about its own mean, plus its count times its mean's squared distance to the whole's).

    Examples
    --------
    >>> x = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]])
    >>> n, sums, squares = merged_moments([moments(x[:1]), moments(x[1:])])
    >>> n, sums.tolist(), np.allclose(squares, moments(x)[2])
    (3, [8.0, 11.0], True)
    """
    parts = [part for part in parts if part[0]]
    if not parts:
        return 0, np.zeros(0), np.zeros(0)
    n = sum(part[0] for part in parts)
    sums = np.sum([part[1] for part in parts], axis=0)
    mean = sums / n
    squares = np.sum([part[2] + part[0] * (part[1] / part[0] - mean) ** 2 for part in parts], axis=0)
    return n, sums, squares


def tukey_hsd_p_values(n: int, sums: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """The ``N x N`` p-values of Tukey's HSD of N groups of ``n`` values each, from each group's sum and sum of squared
    deviations (:func:`moments`), as ``scipy.stats.tukey_hsd`` computes them: the studentized range's survival function
    of ``|mean_i - mean_j| / sqrt(MSE / n)``, ``MSE`` the pooled within-group variance on ``N (n - 1)`` degrees of
    freedom. NaN without two values per group; with no spread within the groups (MSE 0) equal means give 1 and
    different means 0.

    Examples
    --------
    >>> x = np.array([[24.5, 28.4, 26.1], [23.5, 34.2, 28.3], [26.4, 29.5, 24.3], [27.1, 32.2, 26.2], [29.9, 30.1, 27.8]])
    >>> tukey_hsd_p_values(*moments(x)).round(4)  # scipy's documented example
    array([[1.    , 0.0144, 0.9803],
           [0.0144, 1.    , 0.0203],
           [0.9803, 0.0203, 1.    ]])
    """
    sums = np.asarray(sums, dtype=np.float64)
    groups = len(sums)
    df = groups * (n - 1)
    if groups < 2 or n < 2 or not (np.isfinite(sums).all() and np.isfinite(squares).all()):
        return np.full((groups, groups), np.nan)
    means = sums / n
    differences = np.abs(means[:, None] - means[None, :])
    mse = float(np.sum(squares)) / df
    if mse == 0:
        return np.where(differences == 0, 1.0, 0.0)
    from scipy.stats import studentized_range  # scipy is a core dependency, loaded when a test needs it

    # the distribution is integrated numerically per value (some 0.05 s each): each pair once, mirrored
    upper = np.triu_indices(groups, 1)
    p = np.ones((groups, groups))
    p[upper] = studentized_range.sf(differences[upper] / np.sqrt(mse / n), groups, df)
    p.T[upper] = p[upper]
    return p


def randomized_tukey_p_values(values: np.ndarray, *, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """The ``N x N`` p-values of the randomized Tukey HSD of an ``n x N`` matrix (queries x runs).

    Each round permutes the N values of every query independently (the runs are exchangeable under the null
    hypothesis that they are all alike) and records the largest run mean minus the smallest; the p-value of the pair
    (i, j) is ``(1 + #{rounds with max - min >= |mean_i - mean_j|}) / (rounds + 1)``, so 1 on the diagonal, never 0;
    NaN when nothing is paired or a value is not finite. The rounds are drawn in blocks; with few runs (N! orders
    of a query's values listed in at most 4M numbers) a round draws one of them per query, with more it sorts N
    random keys per query.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    >>> randomized_tukey_p_values(x, rounds=1000, rng=np.random.default_rng(0)).round(2)
    array([[1.  , 0.21, 0.21],
           [0.21, 1.  , 1.  ],
           [0.21, 1.  , 1.  ]])
    """
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng must be a numpy.random.Generator, e.g. np.random.default_rng(0); got {type(rng).__name__}.")
    rounds = check_positive_int(rounds, name="rounds", minimum=1)
    values = np.asarray(values, dtype=np.float64)
    n, runs = values.shape
    if n == 0 or not np.isfinite(values).all():
        return np.full((runs, runs), np.nan)
    # sums, not means: the same order of the same sums in every round; within each query the values are centred
    # first (a permutation within a query leaves its mean where it is), which keeps the sums small
    centred = values - values.mean(axis=1, keepdims=True)
    observed = centred.sum(axis=0)
    differences = np.abs(observed[:, None] - observed[None, :])
    tolerance = 1e-12 * max(float(np.abs(values).sum()), 1.0)  # sums in another order may differ in the last bits
    statistics = np.empty(rounds)
    per_block = max(1, _BLOCK // (n * runs))
    orders = math.factorial(runs) if runs <= 8 else 0
    # few runs: each query's values under every one of the N! orders, listed once; a round then draws one order per
    # query (an integer) instead of sorting N random keys per query, some 4 times faster
    listed = (centred[:, np.array(list(itertools.permutations(range(runs))))].reshape(n * orders, runs)
              if orders and n * orders * runs <= _BLOCK else None)
    for start in range(0, rounds, per_block):
        size = min(per_block, rounds - start)
        if listed is not None:
            chosen = rng.integers(0, orders, size=(size, n)) + np.arange(n) * orders
            permuted = listed[chosen].sum(axis=1)
        else:
            order = rng.random((size, n, runs)).argsort(axis=2)
            permuted = np.take_along_axis(np.broadcast_to(centred, (size, n, runs)), order, axis=2).sum(axis=1)
        statistics[start:start + size] = permuted.max(axis=1) - permuted.min(axis=1)
    statistics.sort()
    extreme = rounds - np.searchsorted(statistics, differences - tolerance, side="left")
    return (1 + extreme) / (rounds + 1)


def all_pairs_p_values(values: np.ndarray, test: str, *, rounds: int, seed: int) -> np.ndarray:
    """The ``N x N`` p-values of ``test`` (:data:`ALL_PAIRS_COLUMNS`) on an ``n x N`` matrix; the randomized test draws
    from a fresh generator seeded ``seed`` (the same matrix, the same p-values)."""
    if test == "tukey":
        return tukey_hsd_p_values(*moments(values))
    return randomized_tukey_p_values(values, rounds=rounds, rng=np.random.default_rng(seed))


def with_all_pairs_p_values(keys: Sequence[tuple[str, str, str]], statistics: Sequence[dict[str, Any]],
                            names: Sequence[str], p_values: dict[str, np.ndarray], test: str) -> list[dict[str, Any]]:
    """The rows ``statistics`` of the pairs ``keys`` ``(run_a, run_b, metric)`` with the column of ``test`` taken from
    each metric's ``N x N`` matrix ``p_values``."""
    if test not in ALL_PAIRS_TESTS:
        raise InvalidParameterError(f"test must be one of {list(ALL_PAIRS_TESTS)}; got {test!r}.", parameter="test")
    position = {name: i for i, name in enumerate(names)}
    column = ALL_PAIRS_COLUMNS[test]
    return [{**row, column: float(p_values[metric][position[first], position[second]])}
            for (first, second, metric), row in zip(keys, statistics)]
