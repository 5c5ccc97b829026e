"""A confidence interval on every mean: :class:`Estimate` and the kernels that compute it, for many metrics at once.

A metric's number is finished from the sum and the count of its per-query values' summands
(:class:`evalframe.metrics.registry.Aggregation`); its interval is an interval of the mean of those summands, mapped
to the number's scale by the same finish: ``finish(n * low, n)`` and ``finish(n * high, n)`` with n the count, an
increasing map. So a mean's interval is the interval of the mean, a sum's is n times it (NumRet), trec_eval's
geometric mean's (gm_map) is the exp of the interval of the mean of the floored logs, as compare does for deltas.

Two methods (``ci_method``):

- ``"bootstrap"``: the percentile bootstrap. Each of ``rounds`` resamples draws n of the metric's per-query values
  with replacement; the interval's ends are the (1 - ci) / 2 and (1 + ci) / 2 quantiles of the resampled means
  (``numpy.quantile``, linear interpolation). Every metric draws from a new ``numpy.random.default_rng(seed)``: when
  its values take few distinct values (at most n / 8 of them) the counts of a resample are one multinomial draw over
  those values; else a resample is n indices into the values sorted ascending, so metrics with the same n share one
  draw of indices. Either way the interval depends on the multiset of values, the seed and the rounds only: not on
  the queries' order, on the partitions of a Dask result, or on the other metrics computed.
- ``"t"``: Student's t, mean +- t_{(1 + ci) / 2, n - 1} sd / sqrt(n), sd with n - 1 degrees of freedom
  (``scipy.stats.t``, imported when asked).

Fewer than 2 values give NaN bounds (no spread to measure); values all equal give the value at both ends.

Examples
--------
>>> import numpy as np
>>> from evalframe.options import IntervalOptions
>>> found = mean_intervals({"f1": sample_of(np.array([0.0, 0.5, 1.0, 1.0]))}, {"f1": 0.625},
...                        IntervalOptions(ci=0.95, ci_method="t"))
>>> found["f1"]
0.625 [-0.1367, 1.387]
>>> float(found["f1"]), found["f1"].n, found["f1"].method
(0.625, 4, 't')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..metrics.trec import aggregation_of
from ..options import IntervalOptions
from .stats import few_distinct

__all__ = ["Estimate", "Sample", "sample_of", "merge_samples", "mean_intervals", "summand_intervals", "interval_note",
           "format_number", "column_intervals"]

#: A metric's per-query values as what they add to its sum (:meth:`Aggregation.summands`), NaN left out: the distinct
#: ones, sorted, and how many queries have each. The same values give the same sample in any order and any split into
#: parts (:func:`merge_samples`), so the intervals of :mod:`evalframe.analysis.intervals` are the same in memory and
#: on Dask.
Sample = tuple[np.ndarray, np.ndarray]


def sample_of(summands: np.ndarray) -> Sample:
    """The :data:`Sample` of one metric's summands (NaN: no value).

    Examples
    --------
    >>> sample_of(np.array([0.5, np.nan, 1.0, 0.5]))
    (array([0.5, 1. ]), array([2, 1]))
    """
    array = np.asarray(summands, dtype=np.float64)
    values, counts = np.unique(array[~np.isnan(array)], return_counts=True)
    return values, counts.astype(np.int64)


def merge_samples(first: Sample, second: Sample) -> Sample:
    """Two parts' samples of a metric as one (the sample of their values together).

    Examples
    --------
    >>> merge_samples((np.array([0.0, 1.0]), np.array([1, 2])), (np.array([1.0]), np.array([3])))
    (array([0., 1.]), array([1, 5]))
    """
    values, codes = np.unique(np.concatenate([first[0], second[0]]), return_inverse=True)
    counts = np.bincount(codes.ravel(), weights=np.concatenate([first[1], second[1]]), minlength=len(values))
    return values, counts.astype(np.int64)


#: Random numbers drawn per block of resamples: bounds the memory of the bootstrap at about 32 MB.
_BLOCK = 1 << 22


def format_number(value: float) -> str:
    """``value`` with 4 significant digits, without an exponent (``0.625``, ``0.4123``, ``1250``).

    >>> format_number(0.41234), format_number(1250.0), format_number(float("nan"))
    ('0.4123', '1250', 'nan')
    """
    if not math.isfinite(value):
        return str(value)
    return str(np.format_float_positional(value, precision=4, unique=True, fractional=False, trim="-"))


class Estimate(float):
    """A mean with its confidence interval: a float (its value is the mean, as without the interval) that also holds
    ``low``, ``high`` (NaN with fewer than 2 values), ``n`` (the per-query values), ``confidence`` and ``method``
    (``"bootstrap"`` or ``"t"``). Immutable; prints as ``0.625 [0.41, 0.83]``.

    Examples
    --------
    >>> e = Estimate(0.625, 0.41, 0.83, 8, 0.95, "bootstrap")
    >>> e, float(e), e.low, e + 1
    (0.625 [0.41, 0.83], 0.625, 0.41, 1.625)
    >>> e.low = 0.0
    Traceback (most recent call last):
    ...
    AttributeError: an Estimate is immutable
    """

    __slots__ = ("low", "high", "n", "confidence", "method")
    low: float
    high: float
    n: int
    confidence: float
    method: str

    def __new__(cls, mean: float, low: float, high: float, n: int, confidence: float, method: str) -> Estimate:
        self = super().__new__(cls, mean)
        for name, value in (("low", float(low)), ("high", float(high)), ("n", int(n)),
                            ("confidence", float(confidence)), ("method", str(method))):
            object.__setattr__(self, name, value)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an Estimate is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an Estimate is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return Estimate, (float(self), self.low, self.high, self.n, self.confidence, self.method)

    @property
    def mean(self) -> float:
        """The number itself, as a plain float."""
        return float(self)

    def __repr__(self) -> str:
        return f"{format_number(float(self))} [{format_number(self.low)}, {format_number(self.high)}]"

    __str__ = __repr__


def interval_note(options: IntervalOptions) -> str:
    """What the intervals are, for a person (the report, ``evalframe metrics``).

    >>> interval_note(IntervalOptions(ci=0.95))
    '[low, high]: 95% percentile bootstrap interval of each mean over its queries (10,000 rounds, seed 0)'
    >>> interval_note(IntervalOptions(ci=0.9, ci_method="t"))
    "[low, high]: 90% Student's t interval of each mean over its queries (mean +- t sd / sqrt(n))"
    """
    level = f"{100 * float(options.ci or 0.0):g}%"
    if options.ci_method == "t":
        return f"[low, high]: {level} Student's t interval of each mean over its queries (mean +- t sd / sqrt(n))"
    return (f"[low, high]: {level} percentile bootstrap interval of each mean over its queries "
            f"({options.rounds:,} rounds, seed {options.seed})")


def _blocks(rounds: int, width: int) -> list[int]:
    per_block = max(1, _BLOCK // max(width, 1))
    return [min(per_block, rounds - start) for start in range(0, rounds, per_block)]


def _t_bounds(samples: list[Sample], confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Student's t interval of the mean of each sample (n >= 2)."""
    from scipy import stats  # lazily: import evalframe loads no scipy

    n = np.array([float(counts.sum()) for _, counts in samples])
    mean = np.array([float(values @ counts) for values, counts in samples]) / n
    variance = np.array([float(counts @ (values - m) ** 2) for (values, counts), m in zip(samples, mean)]) / (n - 1)
    half = stats.t.ppf((1.0 + confidence) / 2, n - 1) * np.sqrt(variance / n)
    return mean - half, mean + half


def _bootstrap_bounds(samples: list[Sample], confidence: float, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap interval of the mean of each sample (n >= 2, at least two distinct values)."""
    resampled = np.empty((rounds, len(samples)))
    shared: dict[int, list[int]] = {}  # n -> the samples of many distinct values, resampled from one draw of indices
    for i, (values, counts) in enumerate(samples):
        n = int(counts.sum())
        if few_distinct(len(values), n):
            rng = np.random.default_rng(seed)
            probabilities = counts / n
            resampled[:, i] = np.concatenate([rng.multinomial(n, probabilities, size=size) @ values / n
                                              for size in _blocks(rounds, len(values))])
        else:
            shared.setdefault(n, []).append(i)
    for n, chosen in shared.items():
        # each sample's values sorted ascending: the same rows of indices resample each of them
        sorted_values = [np.repeat(*samples[i]) for i in chosen]
        rng = np.random.default_rng(seed)
        start = 0
        for size in _blocks(rounds, n):
            rows = rng.integers(0, n, size=(size, n), dtype=np.int64)
            for i, values in zip(chosen, sorted_values):
                resampled[start:start + size, i] = values[rows].mean(axis=1)
            start += size
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(resampled, [tail, 1.0 - tail], axis=0)
    return low, high


def summand_intervals(samples: Mapping[str, Sample], options: IntervalOptions) -> dict[str, tuple[float, float, int]]:
    """Per metric, the interval of the mean of its sample's values and their number n: ``(low, high, n)``; NaN bounds
    for n < 2, the value at both ends when every value is equal.

    Examples
    --------
    >>> summand_intervals({"x": sample_of(np.array([0.25, 0.25])), "y": sample_of(np.array([1.0]))},
    ...                   IntervalOptions(ci=0.95))
    {'x': (0.25, 0.25, 2), 'y': (nan, nan, 1)}
    """
    if options.ci is None:
        raise InvalidParameterError("summand_intervals needs ci, e.g. IntervalOptions(ci=0.95).", parameter="ci")
    out: dict[str, tuple[float, float, int]] = {}
    spread: list[str] = []
    for name, (values, counts) in samples.items():
        n = int(counts.sum())
        if n < 2:
            out[name] = (math.nan, math.nan, n)
        elif len(values) == 1:
            out[name] = (float(values[0]), float(values[0]), n)
        else:
            out[name] = (math.nan, math.nan, n)  # filled below, in the order of the samples
            spread.append(name)
    if spread:
        chosen = [samples[name] for name in spread]
        if options.ci_method == "t":
            low, high = _t_bounds(chosen, options.ci)
        else:
            low, high = _bootstrap_bounds(chosen, options.ci, options.rounds, options.seed)
        for name, lo, hi in zip(spread, low.tolist(), high.tolist()):
            out[name] = (lo, hi, out[name][2])
    return out


def mean_intervals(samples: Mapping[str, Sample], numbers: Mapping[str, float],
                   options: IntervalOptions) -> dict[str, Estimate]:
    """Each metric's number (``numbers``: the one ``calculate_metrics`` / ``trec_metrics`` give without ci) as an
    :class:`Estimate`, its interval from ``samples`` (its per-query summands) on the number's own scale: the ends
    finished as the number is (:class:`evalframe.metrics.registry.Aggregation`).

    Examples
    --------
    >>> found = mean_intervals({"NumRet": sample_of(np.array([2.0, 4.0]))}, {"NumRet": 6.0},
    ...                        IntervalOptions(ci=0.95, ci_method="t"))
    >>> found["NumRet"]  # a sum: n = 2 times the mean's interval, 3 -+ t_{0.975, 1} sd / sqrt(2) = 3 -+ 12.706
    6 [-19.41, 31.41]
    """
    found = summand_intervals({name: samples[name] for name in numbers}, options)
    out: dict[str, Estimate] = {}
    for name, number in numbers.items():
        low, high, n = found[name]
        finish = aggregation_of(name).finish
        ends = finish(np.array([n * low, n * high]), np.array([n, n])) if n >= 2 else np.array([math.nan, math.nan])
        out[name] = Estimate(number, float(ends[0]), float(ends[1]), n, float(options.ci or math.nan),
                             options.ci_method)
    return out


def column_intervals(columns: Mapping[str, np.ndarray], numbers: Mapping[str, float],
                     options: IntervalOptions) -> dict[str, Estimate]:
    """:func:`mean_intervals` of per-query columns (one array of values per measure, NaN: no value), without pandas:
    what ``evalframe trec --ci`` prints beside each mean.

    Examples
    --------
    >>> column_intervals({"RR": np.array([1.0, 0.5, 1.0])}, {"RR": 2.5 / 3}, IntervalOptions(ci=0.9, ci_method="t"))
    {'RR': 0.8333 [0.3467, 1.32]}
    """
    samples = {name: sample_of(aggregation_of(name).summands(np.asarray(columns[name], dtype=np.float64)))
               for name in numbers}
    return mean_intervals(samples, numbers, options)
