"""The resampling of :func:`evalframe.compare`'s rows, all rows at once: bootstrap interval, bootstrap test and
randomization test of many vectors of paired differences.

Rows whose differences take few distinct values for their number of queries (:func:`order_free`: at least 2,048
queries per value) resample those values and their counts, each from a fresh generator seeded ``seed``, as
:func:`evalframe.analysis.stats.bootstrap_ci` and :func:`~evalframe.analysis.stats.randomization_p_value` do (a
multinomial / binomial draw per round, whose cost does not grow with the number of queries). The other rows with
the same number of queries ``n`` share ONE draw: a matrix of bootstrap resample counts (``rounds x n``, each line a
multinomial(n, 1/n) count of how often each query is drawn) and a matrix of random signs, both drawn once per
``(seed, n)`` and applied to every row's ``d`` by matrix products, block by block of rounds (about 8 MB per block
whatever ``n`` and ``rounds``; the products are exact sums of integers, :func:`_integers`). A row's numbers are so
a function of its ``d``, ``seed`` and ``rounds`` alone: equal differences give equal numbers, whatever else is
compared. The bootstrap test (:func:`shift_p_value`) reads the same resamples as the interval.

Examples
--------
>>> import numpy as np
>>> rows = resample_many([np.array([0.1, 0.3, -0.2, 0.4]), np.zeros(3)], seed=0, rounds=1000, confidence=0.9)
>>> [float(p) for p in rows["p_value"]]  # exactly 6 of the 16 sign patterns (.375); every difference 0: p is 1
[0.3696303696303696, 1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .stats import bootstrap_means, randomization_p_value

__all__ = ["resample_many", "order_free", "shared_pays", "shift_p_value", "TOLERANCE"]

#: Numbers of one block of a shared draw (float64): bounds the memory of a block at about 8 MB.
_BLOCK = 1 << 20
#: Bootstrap means kept at once (float64), across the rows resampled together: about 32 MB.
_KEPT = 1 << 22
#: A row resampled by its distinct values and their counts has at least this many queries per distinct value.
_SHORTCUT = 2048
#: Relative tolerance of "as extreme as observed": sums in another order may differ in the last bits.
TOLERANCE = 1e-12


def shared_pays(distinct: int, n: int) -> bool:
    """Whether a row of ``n`` differences taking ``distinct`` values is resampled by the shared draw, rather than by
    its distinct values and their counts (a multinomial / binomial draw per round and value costs about as much as
    2,000 queries of a shared draw)."""
    return distinct * _SHORTCUT > n


def order_free(d: np.ndarray) -> bool:
    """Whether ``d`` is resampled by its distinct values and their counts (the shortcut of both tests), so that its
    numbers do not depend on the order of its queries."""
    nonzero = d[d != 0]
    return not shared_pays(len(np.unique(d)), len(d)) and (
        not len(nonzero) or not shared_pays(len(np.unique(np.abs(nonzero))), len(nonzero)))


def shift_p_value(means: np.ndarray, mean: float, scale: float) -> float:
    """The shift bootstrap test's p-value from the bootstrap means of ``d`` (``mean`` its mean, ``scale`` the mean
    of ``|d|``): ``(1 + #{|mean* - mean| >= |mean|}) / (rounds + 1)``, as extreme within :data:`TOLERANCE`."""
    extreme = np.count_nonzero(np.abs(means - mean) >= abs(mean) - TOLERANCE * scale)
    return (1 + int(extreme)) / (len(means) + 1)


def _generators(seed: int, n: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The generators of the shared draw of ``n`` queries: the bootstrap counts', the signs'."""
    return np.random.default_rng([seed, n, 0]), np.random.default_rng([seed, n, 1])


def _integers(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column (``n`` differences) as integers ``m`` times a power of two ``scale`` (``d = m * scale`` to 53 -
    bit_length(n) bits of the largest ``|d|``), so that every sum of up to ``n`` of them, each counted up to ``n``
    times, is an integer below 2**52: the matrix products are exact, whatever the order of their additions (equal
    differences give equal numbers beside any other row)."""
    n = columns.shape[0]
    bits = 52 - n.bit_length()
    exponents = np.frexp(np.abs(columns).max(axis=0))[1] - bits
    return np.rint(np.ldexp(columns, -exponents[None, :])), np.ldexp(1.0, exponents)


def _shared(columns: np.ndarray, *, seed: int, rounds: int, tail: float) -> dict[str, np.ndarray]:
    """The statistics of the rows ``columns`` (``n x k``: one row's d per column), from the draw shared by ``n``."""
    n, k = columns.shape
    counts_rng, signs_rng = _generators(seed, n)
    per_block = max(1, _BLOCK // n)
    integers, scale = _integers(columns)
    sums = np.empty((rounds, k))  # the resamples' sums, as integers
    absolute = np.abs(integers)
    total = absolute.sum(axis=0)
    observed = integers.sum(axis=0)
    extreme = np.zeros(k, dtype=np.int64)
    for start in range(0, rounds, per_block):
        size = min(per_block, rounds - start)
        # a multinomial(n, 1/n) count per query and round: how often the resample draws it
        picks = counts_rng.integers(0, n, size=(size, n))
        picks += (np.arange(size) * n)[:, None]
        drawn = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        sums[start:start + size] = drawn @ integers
        # one random bit per query: the sum of flipped d is 2 * (sum of |d| where the bit is set) - sum of |d|
        bits = np.unpackbits(signs_rng.integers(0, 256, size=(size, -(-n // 8)), dtype=np.uint8), axis=1,
                             count=n).astype(np.float64)
        flipped = np.abs(2 * (bits @ absolute) - total)
        extreme += np.count_nonzero(flipped >= np.abs(observed) - TOLERANCE * total, axis=0)
    # the shift test: mean* of d - mean(d) is mean* of d minus mean(d) (each resample counts n queries)
    shift = np.count_nonzero(np.abs(sums - observed) >= np.abs(observed) - TOLERANCE * total, axis=0)
    low, high = np.quantile(sums, [tail, 1.0 - tail], axis=0, method="linear")
    return {"ci_low": low * scale / n, "ci_high": high * scale / n, "p_value": (1 + extreme) / (rounds + 1),
            "p_bootstrap": (1 + shift) / (rounds + 1)}


def _alone(d: np.ndarray, *, seed: int, rounds: int, tail: float) -> tuple[float, float, float, float]:
    """One row resampled by its distinct values, from a fresh generator seeded ``seed`` (bootstrap, then signs)."""
    rng = np.random.default_rng(seed)
    means = bootstrap_means(d, rounds=rounds, rng=rng)
    low, high = np.quantile(means, [tail, 1.0 - tail])
    shift = shift_p_value(means, float(d.mean()), float(np.abs(d).mean()))
    return float(low), float(high), randomization_p_value(d, rounds=rounds, rng=rng), shift


def resample_many(ds: Sequence[np.ndarray], *, seed: int, rounds: int, confidence: float) -> dict[str, np.ndarray]:
    """The resampled statistics of each of ``ds`` (1-D float arrays of paired differences ``b - a``).

    Returns arrays, one value per row: ``ci_low`` / ``ci_high`` (percentile bootstrap interval of ``mean(d)`` at
    ``confidence``; NaN for no difference or a non-finite one, the value itself when all are equal), ``p_value``
    (the two-sided paired randomization test, ``(1 + #{rounds with |sum of sign-flipped d| >= |sum of d|}) /
    (rounds + 1)``; NaN for no difference or a non-finite one, 1 when all are 0) and ``p_bootstrap`` (the shift
    bootstrap test of ``mean(d) == 0``, :func:`shift_p_value`; NaN below 2 differences or for a non-finite one, 1
    when all are 0, ``1 / (rounds + 1)`` when all are equal and not 0). The module's docstring says how they are
    drawn.
    """
    rows = len(ds)
    out = {name: np.full(rows, np.nan) for name in ("ci_low", "ci_high", "p_value", "p_bootstrap")}
    tail = (1.0 - confidence) / 2
    groups: dict[int, list[int]] = {}
    for position, d in enumerate(ds):
        n = len(d)
        if n == 0 or not np.isfinite(d).all():
            continue
        if np.all(d == d[0]):  # every resample has this mean
            out["ci_low"][position] = out["ci_high"][position] = d[0]
            out["p_value"][position] = 1.0 if d[0] == 0 else randomization_p_value(
                d, rounds=rounds, rng=np.random.default_rng(seed))
            if n >= 2:
                out["p_bootstrap"][position] = 1.0 if d[0] == 0 else 1 / (rounds + 1)
        elif order_free(d):
            alone = _alone(d, seed=seed, rounds=rounds, tail=tail)
            for name, value in zip(("ci_low", "ci_high", "p_value", "p_bootstrap"), alone):
                out[name][position] = value
        else:
            groups.setdefault(n, []).append(position)
    most = max(1, _KEPT // rounds)  # rows resampled together: their bootstrap sums are kept for the quantiles
    for positions in groups.values():
        chunks = -(-len(positions) // most)  # as few draws as the memory allows, of rows shared evenly
        for part in range(chunks):
            taken = positions[part * len(positions) // chunks:(part + 1) * len(positions) // chunks]
            found = _shared(np.stack([ds[p] for p in taken], axis=1), seed=seed, rounds=rounds, tail=tail)
            for name, values in found.items():
                out[name][taken] = values
    return out

