"""Paired statistics for comparing two runs, vectorised with numpy (no scipy needed).

Every function takes ``d = b - a``: one difference per query that both runs scored. Resampling
works on the distinct values of ``d`` and their counts when there are few of them (metrics like
recall or exact match take a handful of values), which gives the same distributions as resampling
queries, at a cost that does not grow with the number of queries.

Examples
--------
>>> import numpy as np
>>> d = np.array([0.0, 0.5, 1.0, 0.5])
>>> paired_t_test(d)[0]  # mean .5, sd .408..., n 4
2.449489742783178
>>> randomization_p_value(np.zeros(5), rng=np.random.default_rng(0))
1.0
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._validation import check_number, check_positive_int
from ..errors import InvalidParameterError
from ..options import ROUNDS  # the resampling rounds unless told otherwise: a comparison's default (CompareOptions)

__all__ = ["bootstrap_ci", "bootstrap_means", "few_distinct", "holm", "paired_t_test", "randomization_p_value",
           "student_t_two_sided_p"]

#: Random numbers drawn per block: bounds the memory of resampling at about 32 MB.
_BLOCK = 1 << 22


def _numbers(values: Any, name: str) -> np.ndarray:
    """``values`` as a 1-D float array (empty allowed: the functions define their result for it)."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim != 1 or isinstance(values, (str, bytes)):
        shape = f" of shape {array.shape}" if array is not None else ""
        raise InvalidParameterError(
            f"{name} must be a 1-D array of numbers (one per query); got {type(values).__name__}{shape} {values!r:.60}."
        )
    return array


def _check_resampling(rounds: Any, rng: Any) -> int:
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError(
            f"rng must be a numpy.random.Generator, e.g. np.random.default_rng(0); got {type(rng).__name__}."
        )
    return check_positive_int(rounds, name="rounds", minimum=1)


def _blocks(rounds: int, width: int) -> list[int]:
    per_block = max(1, _BLOCK // max(width, 1))
    return [min(per_block, rounds - start) for start in range(0, rounds, per_block)]


def few_distinct(distinct: int, n: int) -> bool:
    """Whether resampling ``n`` values works on their ``distinct`` values and counts (the result then depends on
    the values only through those counts, not on their order)."""
    # A multinomial/binomial draw costs about as much per category as an index draw per query.
    return distinct * 8 <= n


def bootstrap_means(d: np.ndarray, *, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``rounds`` bootstrap resamples (with replacement, size ``len(d)``) of ``d``."""
    n = len(d)
    values, counts = np.unique(d, return_counts=True)
    if few_distinct(len(values), n):
        probabilities = counts / n
        parts = [rng.multinomial(n, probabilities, size=size) @ values / n for size in _blocks(rounds, len(values))]
    else:
        parts = [d[rng.integers(0, n, size=(size, n), dtype=np.int32)].mean(axis=1) for size in _blocks(rounds, n)]
    return np.concatenate(parts)


def bootstrap_ci(d: np.ndarray, *, confidence: float = 0.95, rounds: int = ROUNDS,
                 rng: np.random.Generator) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``d``; NaN for no values (or a non-finite one), the value itself for one.

    Examples
    --------
    >>> bootstrap_ci(np.array([0.25, 0.25, 0.25]), rng=np.random.default_rng(0))
    (0.25, 0.25)
    """
    d = _numbers(d, "d")
    rounds = _check_resampling(rounds, rng)
    confidence = check_number(confidence, name="confidence")
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must lie strictly between 0 and 1, e.g. 0.95; got {confidence}.")
    if len(d) == 0 or not np.isfinite(d).all():
        return math.nan, math.nan
    if np.all(d == d[0]):  # every resample has this mean
        return float(d[0]), float(d[0])
    means = bootstrap_means(d, rounds=rounds, rng=rng)
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def randomization_p_value(d: np.ndarray, *, rounds: int = ROUNDS, rng: np.random.Generator) -> float:
    """Two-sided p-value of a paired randomization (sign-flip) test of ``mean(d) == 0``.

    Under the null hypothesis each query's difference is as likely to have the other sign; the
    p-value is ``(1 + #{rounds with |sum of flipped d| >= |sum of d|}) / (rounds + 1)``, so it is
    never 0 and is exactly 1 when every difference is 0; NaN when a difference is NaN or infinite.

    Examples
    --------
    >>> randomization_p_value(np.ones(30), rng=np.random.default_rng(0))  # 1 / (10_000 + 1)
    9.999000099990002e-05
    """
    d = _numbers(d, "d")
    rounds = _check_resampling(rounds, rng)
    if not np.isfinite(d).all():
        return math.nan
    nonzero = d[d != 0]
    if len(nonzero) == 0:
        return 1.0
    magnitudes, codes = np.unique(np.abs(nonzero), return_inverse=True)
    counts = np.bincount(codes, minlength=len(magnitudes))
    positives = np.bincount(codes, weights=nonzero > 0, minlength=len(magnitudes))
    observed = abs(float((2 * positives - counts) @ magnitudes))
    tolerance = 1e-12 * float(counts @ magnitudes)  # sums in another order may differ in the last bits
    extreme = 0
    if few_distinct(len(magnitudes), len(nonzero)):
        for size in _blocks(rounds, len(magnitudes)):
            heads = rng.binomial(counts, 0.5, size=(size, len(magnitudes)))
            extreme += int(np.count_nonzero(np.abs((2 * heads - counts) @ magnitudes) >= observed - tolerance))
    else:
        absolute = np.abs(nonzero)
        total = float(absolute.sum())
        for size in _blocks(rounds, len(nonzero)):
            # one random bit per query: the sum of flipped d is 2 * (sum of |d| where the bit is set) - sum of |d|
            bits = np.unpackbits(rng.integers(0, 256, size=(size, -(-len(nonzero) // 8)), dtype=np.uint8), axis=1,
                                 count=len(nonzero))
            extreme += int(np.count_nonzero(np.abs(2 * (bits @ absolute) - total) >= observed - tolerance))
    return (1 + extreme) / (rounds + 1)


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 20_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def _stirling_correction(z: float) -> float:
    """ln Gamma(z) minus its Stirling approximation, for z >= 20 (error below 1e-15)."""
    z2 = z * z
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * z2)) / z2) / z2) / z


def _log_gamma_ratio(a: float, b: float) -> float:
    """ln Gamma(a + b) - ln Gamma(a), without the cancellation of two large lgamma values when a is large."""
    if a < 20.0:
        return math.lgamma(a + b) - math.lgamma(a)
    return ((a - 0.5) * math.log1p(b / a) + b * math.log(a + b) - b
            + _stirling_correction(a + b) - _stirling_correction(a))


def _incomplete_beta(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """The regularized incomplete beta function I_x(a, b); ``y = 1 - x`` and the logs are passed exactly."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    big, small = (a, b) if a >= b else (b, a)
    log_beta = math.lgamma(small) - _log_gamma_ratio(big, small)  # ln B(a, b)
    front = math.exp(a * log_x + b * log_y - log_beta)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, y) / b


def student_t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(student_t_two_sided_p(1.0, 1), 12)  # df 1 is the Cauchy distribution: 1 - 2 atan(1) / pi
    0.5
    """
    for value, name in ((t, "t"), (df, "df")):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidParameterError(f"{name} must be a number; got {value!r} of type {type(value).__name__}.")
    if not (df > 0):  # also refuses NaN
        raise InvalidParameterError(f"df must be a number > 0 (degrees of freedom); got {df!r}.")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    square = t * t
    if square == 0.0:  # t == 0, or so small that t^2 underflows
        return 1.0
    # x = df / (df + t^2) and 1 - x, with their logs, computed without subtracting nearly equal numbers
    x, y = df / (df + square), square / (df + square)
    log_x, log_y = -math.log1p(square / df), 2.0 * math.log(abs(t)) - math.log(df + square)
    return min(1.0, _incomplete_beta(df / 2.0, 0.5, x, y, log_x, log_y))


def paired_t_test(d: np.ndarray) -> tuple[float, float]:
    """Paired t statistic and two-sided p-value of ``mean(d) == 0``.

    With fewer than 2 differences, or a NaN or infinite one, both are NaN. When every difference is equal the standard deviation
    is 0: equal to 0 gives ``(0.0, 1.0)`` (identical runs), otherwise ``(±inf, 0.0)``.
    """
    d = _numbers(d, "d")
    n = len(d)
    if n < 2 or not np.isfinite(d).all():
        return math.nan, math.nan
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        return (0.0, 1.0) if mean == 0.0 else (math.copysign(math.inf, mean), 0.0)
    t = mean / (sd / math.sqrt(n))
    return t, student_t_two_sided_p(t, n - 1)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (NaN stays NaN and is not counted as a test).

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03])).round(4).tolist()  # sorted .01 .03 .04 times 3, 2, 1
    [0.03, 0.06, 0.06]
    """
    p = _numbers(p_values, "p_values")
    adjusted = np.full_like(p, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = len(order)
    scaled = (m - np.arange(m)) * p[order]
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return adjusted
