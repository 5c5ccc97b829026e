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
from ..options import COMPARE_CORRECTIONS, ROUNDS, ZERO_METHODS  # ROUNDS: the resampling rounds (CompareOptions)

__all__ = ["CORRECTIONS", "adjust_p_values", "bootstrap_ci", "bootstrap_means", "bootstrap_p_value", "few_distinct", "holm",
           "paired_t_test", "randomization_p_value", "randomization_p_value_below", "sign_test_p_value", "student_t_below",
           "student_t_two_sided_p", "wilcoxon_p_value"]

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


def randomization_p_value_below(d: np.ndarray, *, rounds: int = ROUNDS, rng: np.random.Generator) -> float:
    """One-sided p-value of a paired randomization (sign-flip) test of ``mean(d) >= 0`` against ``mean(d) < 0``.

    The p-value is ``(1 + #{rounds r with sum_i s_ri d_i <= sum_i d_i}) / (rounds + 1)`` for random signs ``s_ri``
    (as low within 1e-12 of the sums, which may differ in their last bits): small when ``sum(d)`` is lower than
    nearly every sign pattern makes it. Never 0; NaN for no difference or a non-finite one. The flips are drawn in
    blocks, one matrix product per block (:func:`randomization_p_value`'s two-sided test draws them the same way).

    Examples
    --------
    >>> randomization_p_value_below(-np.ones(30), rng=np.random.default_rng(0))  # no flip is as low: 1 / (10_000 + 1)
    9.999000099990002e-05
    >>> randomization_p_value_below(np.ones(30), rng=np.random.default_rng(0))  # every flip is as low or lower
    1.0
    """
    d = _numbers(d, "d")
    rounds = _check_resampling(rounds, rng)
    if len(d) == 0 or not np.isfinite(d).all():
        return math.nan
    nonzero = d[d != 0]  # a zero difference is the same either sign
    if len(nonzero) == 0:
        return 1.0
    observed = float(nonzero.sum())
    tolerance = 1e-12 * float(np.abs(nonzero).sum())
    low = 0
    for size in _blocks(rounds, len(nonzero)):
        # one random bit per query, 1 keeping d_i's sign: sum_i s_i d_i = 2 * (bits @ d) - sum(d)
        bits = np.unpackbits(rng.integers(0, 256, size=(size, -(-len(nonzero) // 8)), dtype=np.uint8), axis=1,
                             count=len(nonzero))
        low += int(np.count_nonzero(2 * (bits @ nonzero) - observed <= observed + tolerance))
    return (1 + low) / (rounds + 1)


def bootstrap_p_value(d: np.ndarray, *, rounds: int = ROUNDS, rng: np.random.Generator) -> float:
    """Two-sided p-value of the paired bootstrap test of ``mean(d) == 0`` (the shift method).

    The differences are shifted to mean 0 (``d - mean(d)``, the null hypothesis made true) and resampled with
    replacement ``rounds`` times; the p-value is ``(1 + #{rounds with |mean*| >= |mean(d)|}) / (rounds + 1)``, the
    resampled means ``mean*`` being those of the shifted resamples (Efron and Tibshirani 1993, section 16.4; Sakai
    2006, "Evaluating evaluation metrics based on the bootstrap"). NaN below 2 differences or for a non-finite one;
    1 when every difference is 0; ``1 / (rounds + 1)`` when all are equal and not 0 (no resample moves the mean).

    Examples
    --------
    >>> bootstrap_p_value(np.array([0.5, 0.5, 0.5]), rng=np.random.default_rng(0))  # 1 / (10_000 + 1)
    9.999000099990002e-05
    """
    d = _numbers(d, "d")
    rounds = _check_resampling(rounds, rng)
    if len(d) < 2 or not np.isfinite(d).all():
        return math.nan
    mean = float(d.mean())
    if np.all(d == d[0]):
        return 1.0 if mean == 0 else 1 / (rounds + 1)
    means = bootstrap_means(d, rounds=rounds, rng=rng)
    # mean* of d - mean(d) is mean* of d minus mean(d): the resamples count each query the same way
    extreme = np.count_nonzero(np.abs(means - mean) >= abs(mean) - 1e-12 * float(np.abs(d).mean()))
    return (1 + int(extreme)) / (rounds + 1)


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


def student_t_below(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom: the one-sided p-value of a t statistic against
    "the mean is below" (``scipy.stats.t.cdf(t, df)``), from :func:`student_t_two_sided_p`'s tail.

    Examples
    --------
    >>> round(student_t_below(-1.0, 1), 12), round(student_t_below(1.0, 1), 12)  # the Cauchy distribution's quartiles
    (0.25, 0.75)
    >>> student_t_below(-math.inf, 3), student_t_below(0.0, 3)
    (0.0, 0.5)
    """
    tail = student_t_two_sided_p(t, df) / 2  # checks t and df
    if math.isnan(tail):
        return math.nan
    return tail if t < 0 else 1.0 - tail


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


# ZERO_METHODS: how the Wilcoxon signed-rank test treats zero differences (scipy.stats.wilcoxon's ``zero_method``):
# "wilcox" drops them, "pratt" ranks them then drops their ranks, "zsplit" splits their ranks between both signs.

#: Above this many differences the signed-rank test uses the normal approximation, as scipy's ``method="auto"``.
_EXACT_LIMIT = 50
#: With ties or zeros and at most this many differences, every sign pattern is enumerated (scipy's permutation test).
_ENUMERATED_LIMIT = 13


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) of ``values`` and the size of each group of equal values."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.append(starts, len(values)))
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(starts + 1 + (sizes - 1) / 2, sizes)
    return ranks, sizes


def _signed_rank_sums(count: int) -> np.ndarray:
    """How many of the 2**count sign patterns of the ranks 1..count give each sum of positive ranks 0..n(n+1)/2."""
    ways = np.ones(1, dtype=np.int64)
    for rank in range(1, count + 1):  # over ranks (at most _EXACT_LIMIT), not queries
        grown = np.zeros(len(ways) + rank, dtype=np.int64)
        grown[:len(ways)] += ways
        grown[rank:] += ways
        ways = grown
    return ways


def wilcoxon_p_value(d: np.ndarray, *, zero_method: str = "wilcox") -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of ``d`` (median 0), as ``scipy.stats.wilcoxon(d)``.

    The statistic is the sum of the (average) ranks of ``|d|`` where ``d > 0``; zero differences are treated as
    ``zero_method`` says (:data:`ZERO_METHODS`, scipy's default ``"wilcox"``: dropped). As scipy's ``method="auto"``:
    with at most 50 differences and no ties or zeros, the exact distribution; with ties or zeros and at most 13, every
    sign pattern is enumerated (scipy's exact permutation test); otherwise the normal approximation with the tie
    correction and no continuity correction. NaN for no difference or a non-finite one; 1.0 when every difference is 0
    (identical runs, as the randomization test; scipy gives NaN there above 13 differences).

    Examples
    --------
    >>> wilcoxon_p_value(np.array([1.0, 2.0, 3.0]))  # 3 positive ranks: 1 of 8 sign patterns each side
    0.25
    """
    d = _numbers(d, "d")
    if zero_method not in ZERO_METHODS:
        raise InvalidParameterError(f"zero_method must be one of {list(ZERO_METHODS)}; got {zero_method!r}.",
                                    parameter="zero_method")
    n = len(d)
    if n == 0 or not np.isfinite(d).all():
        return math.nan
    zeros = d == 0
    if zeros.all():
        return 1.0
    kept = d[~zeros] if zero_method == "wilcox" else d
    ranks, sizes = _average_ranks(np.abs(kept))
    positive = kept > 0
    r_plus = float(ranks[positive].sum())
    kept_zeros = kept == 0
    if zero_method == "zsplit":
        r_plus += float(ranks[kept_zeros].sum()) / 2
    has_ties = bool((sizes > 1).any())
    if n <= _EXACT_LIMIT and not (has_ties or zeros.any()):
        ways = _signed_rank_sums(len(kept))
        below = ways[:math.ceil(r_plus) + 1].sum()
        above = ways[math.floor(r_plus):].sum()
        return float(min(1.0, 2 * min(above, below) / 2.0 ** len(kept)))
    if n <= _ENUMERATED_LIMIT:
        nonzero = ~kept_zeros
        shift = r_plus - float(ranks[positive].sum())  # zsplit's half ranks of the zeros, in every pattern
        signs = (np.arange(2 ** int(nonzero.sum()))[:, None] >> np.arange(int(nonzero.sum()))) & 1
        null = signs @ ranks[nonzero] + shift
        gamma = abs(np.finfo(np.float64).eps * 100 * r_plus)
        less = np.count_nonzero(null <= r_plus + gamma) / len(null)
        greater = np.count_nonzero(null >= r_plus - gamma) / len(null)
        return float(min(1.0, 2 * min(less, greater)))
    count = float(len(kept))
    mean = count * (count + 1) / 4
    variance = count * (count + 1) * (2 * count + 1)
    tie_sizes = sizes.astype(np.float64)
    if zero_method == "pratt" and kept_zeros.any():
        n_zero = float(kept_zeros.sum())
        mean -= n_zero * (n_zero + 1) / 4
        variance -= n_zero * (n_zero + 1) * (2 * n_zero + 1)
        tie_sizes = tie_sizes[1:]  # the zeros' group (the smallest |d|) is no tie
    variance -= float((tie_sizes ** 3 - tie_sizes).sum()) / 2
    z = (r_plus - mean) / math.sqrt(variance / 24)
    return math.erfc(abs(z) / math.sqrt(2.0))


#: Up to this many non-zero differences the sign test's binomial tail is summed exactly in integers.
_EXACT_SIGN_LIMIT = 1000


def sign_test_p_value(d: np.ndarray) -> float:
    """Two-sided p-value of the sign test of ``d``: the binomial test of the positive against the negative
    differences, zeros dropped, as ``scipy.stats.binomtest(k, n, 0.5).pvalue``.

    With k of the n non-zero differences positive it is ``min(1, 2 P(X <= min(k, n - k)))`` for X ~ Bin(n, 1/2).
    NaN for no difference or a non-finite one; 1.0 when every difference is 0 (scipy refuses n = 0).

    Examples
    --------
    >>> sign_test_p_value(np.array([0.5, 0.25, 0.0, 1.0]))  # 3 of 3 up: 2 / 2**3
    0.25
    """
    d = _numbers(d, "d")
    if len(d) == 0 or not np.isfinite(d).all():
        return math.nan
    n = int(np.count_nonzero(d))
    k = int(np.count_nonzero(d > 0))
    m = min(k, n - k)
    if 2 * m >= n:  # k == n / 2, and no difference at all
        return 1.0
    if n <= _EXACT_SIGN_LIMIT:  # exactly, in integers: sum of C(n, i) for i <= m, over 2**n (rounded once)
        term = total = 1  # C(n, i) from C(n, i - 1), not a fresh math.comb each (m of those cost 1.5 s over 90 rows)
        for i in range(1, m + 1):
            term = term * (n - i + 1) // i
            total += term
        return min(1.0, 2 * total / 2 ** n)
    # P(X <= m) = I_{1/2}(n - m, m + 1), the regularized incomplete beta function
    half, log_half = 0.5, -math.log(2.0)
    return min(1.0, 2 * _incomplete_beta(float(n - m), float(m + 1), half, half, log_half, log_half))


#: The corrections of the p-values of a family of comparisons (``correction=``), statsmodels' ``multipletests``
#: names; ``"holm"`` is the default.
CORRECTIONS = COMPARE_CORRECTIONS


def adjust_p_values(p_values: np.ndarray, correction: str = "holm") -> np.ndarray:
    """The p-values of one family adjusted by ``correction`` (:data:`CORRECTIONS`), as statsmodels'
    ``multipletests(p, method=correction)[1]``; NaN stays NaN and is not counted as a test.

    With m tests and the p-values sorted ascending p(1) <= ... <= p(m): ``"bonferroni"`` m p; ``"holm"``
    (m - i + 1) p(i) and ``"holm-sidak"`` 1 - (1 - p(i))^(m - i + 1), both made non-decreasing by a running maximum;
    ``"fdr_bh"`` (Benjamini-Hochberg) m p(i) / i and ``"fdr_by"`` (Benjamini-Yekutieli) that times sum 1/j, both made
    non-decreasing by a running minimum from the largest; ``"none"`` the p-values as they are. Each is at most 1.

    Examples
    --------
    >>> adjust_p_values(np.array([0.01, 0.04, 0.03]), "fdr_bh").round(4).tolist()  # .01*3/1, then .04*3/3 from the top
    [0.03, 0.04, 0.04]
    """
    p = _numbers(p_values, "p_values")
    if correction not in CORRECTIONS:
        raise InvalidParameterError(f"correction must be one of {list(CORRECTIONS)}; got {correction!r}.",
                                    parameter="correction")
    if correction == "holm":
        return holm(p)
    adjusted = np.full_like(p, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = len(order)
    ordered = p[order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if correction == "none":
        values = ordered
    elif correction == "bonferroni":
        values = m * ordered
    elif correction == "holm-sidak":
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, adjusted to 1
            values = np.maximum.accumulate(-np.expm1((m - rank + 1) * np.log1p(-ordered)))
    else:
        factor = rank / m if correction == "fdr_bh" else rank / m / float((1.0 / rank).sum())
        values = np.minimum.accumulate((ordered / factor)[::-1])[::-1]
    adjusted[order] = np.minimum(1.0, values)
    return adjusted
