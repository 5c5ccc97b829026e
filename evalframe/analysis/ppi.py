"""The prediction-powered mean (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 2023): a judge's mean over
the queries without gold, corrected by its mean error on those with gold, with its normal interval; PPI++'s tuned
weight of the judge (Angelopoulos, Duchi and Zrnic 2023) on request.

Examples
--------
>>> import numpy as np
>>> estimate, low, high, lam = ppi_interval(np.array([1.0, 0.0]), np.array([1.0, 1.0]), np.array([1.0, 0.0]), z=1.96)
>>> estimate, lam                             # mean(1, 0) - mean(0, 1)
(0.0, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_number
from ..errors import InvalidParameterError
from .sides import aligned, missing, numbers_of

__all__ = ["PPIMean", "check_options", "ppi_interval", "ppi_mean"]


def ppi_interval(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray, *, z: float,
                 lam: float | None = 1.0) -> tuple[float, float, float, float]:
    """The prediction-powered mean and its normal interval: ``(estimate, low, high, lam)``.

    ``estimate = lam * mean(yhat_unlabeled) + mean(y - lam * yhat)``, its standard error
    ``sqrt(var(lam * yhat_unlabeled) / N + var(y - lam * yhat) / n)`` (variances with divisor n, as ppi_python),
    the interval ``estimate +- z * se``. ``lam=1`` is PPI (Angelopoulos et al., Science 2023); ``lam=None`` the
    power-tuned PPI++ (Angelopoulos, Duchi and Zrnic 2023): ``cov(y, yhat) / ((1 + n / N) var(yhat, all))``
    clipped to [0, 1], 0 when the judge gives one value only (it then carries no information).
    """
    n, big_n = len(y), len(yhat_unlabeled)
    if lam is None:
        spread = float(np.var(np.concatenate([yhat, yhat_unlabeled]), ddof=1))
        covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
        lam = 0.0 if spread == 0.0 else float(np.clip(covariance / ((1.0 + n / big_n) * spread), 0.0, 1.0))
    estimate = float(np.mean(lam * yhat_unlabeled) + np.mean(y - lam * yhat))
    se = math.sqrt(float(np.var(lam * yhat_unlabeled)) / big_n + float(np.var(y - lam * yhat)) / n)
    return estimate, estimate - z * se, estimate + z * se, lam


def _normal_interval(values: np.ndarray, z: float) -> tuple[float, float, float]:
    """The mean and its CLT interval (standard deviation with divisor n, as ppi_python's classical_mean_ci)."""
    mean = float(values.mean())
    half = z * float(values.std()) / math.sqrt(len(values))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class PPIMean:
    """A judge score's mean corrected by the human-graded queries (:func:`ppi_mean`), beside the two naive means.

    ``estimate`` (``low``, ``high``): the prediction-powered mean and its interval at ``confidence``; ``lam``: the
    weight of the judge (1: PPI; ``tuned``: PPI++'s); ``judge_mean`` (``judge_low``, ``judge_high``): the judge's mean
    over every query it scored, whose interval knows nothing of the judge's bias; ``gold_mean`` (``gold_low``,
    ``gold_high``): the mean of the graded queries only; ``n_labeled``, ``n_unlabeled``: the queries with and
    without a gold value (and a judge score), ``left_out``: those with no judge score.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    lam: float
    n_labeled: int
    n_unlabeled: int
    judge_mean: float
    judge_low: float
    judge_high: float
    gold_mean: float
    gold_low: float
    gold_high: float
    left_out: int = 0
    tuned: bool = False

    @property
    def table(self) -> pd.DataFrame:
        """The three means with their intervals, one row each (prediction-powered, judge only, gold only)."""
        n = self.n_labeled + self.n_unlabeled
        return pd.DataFrame({"mean": [self.estimate, self.judge_mean, self.gold_mean],
                             "low": [self.low, self.judge_low, self.gold_low],
                             "high": [self.high, self.judge_high, self.gold_high],
                             "queries": [n, n, self.n_labeled]},
                            index=pd.Index(["prediction-powered", "judge only", "gold only"], name="mean of"))

    def __repr__(self) -> str:
        method = f"PPI++, lambda {self.lam:.4f}" if self.tuned else "PPI" if self.lam == 1.0 else f"lambda {self.lam:g}"
        head = (f"Prediction-powered mean ({method}; {self.n_labeled} graded of {self.n_labeled + self.n_unlabeled} "
                f"queries; {self.confidence:.0%} normal intervals)")
        return head + "\n" + self.table.round(4).to_string()


def check_options(confidence: Any, lam: Any) -> tuple[float, float | None]:
    """:func:`ppi_mean`'s ``confidence`` and ``lam`` (None: tuned), checked before any work."""
    confidence = check_number(confidence, name="confidence")
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must lie strictly between 0 and 1, e.g. 0.95; got {confidence}.",
                                    parameter="confidence")
    if isinstance(lam, str):
        if lam != "tuned":
            raise InvalidParameterError(f"lam must be a number in [0, 1] (1: PPI) or 'tuned' (PPI++); got {lam!r}.",
                                        parameter="lam")
        return confidence, None
    weight = check_number(lam, name="lam")
    if not 0.0 <= weight <= 1.0:
        raise InvalidParameterError(f"lam must be a number in [0, 1] (1: PPI) or 'tuned' (PPI++); got {lam!r}.",
                                    parameter="lam")
    return confidence, weight


def ppi_mean(judge: Any, gold: Any, *, confidence: float = 0.95, lam: float | str = 1.0) -> PPIMean:
    """The mean of what the gold measures, estimated from a judge's score on every query and the gold on some:
    prediction-powered inference (Angelopoulos et al., Science 2023).

    The judge's mean over the queries without gold, corrected by its mean error on the queries with gold:
    ``mean(judge, ungraded) - mean(judge - gold, graded)``, with the normal interval
    ``+- z * sqrt(var(judge, ungraded) / N + var(judge - gold, graded) / n)``. It is unbiased whatever the judge's
    bias, and narrower than the gold-only mean's the better the judge predicts the gold.

    Parameters
    ----------
    judge : Series or 1-d array
        The judge's score of every query (NaN: none; such a query is left out).
    gold : Series or 1-d array
        The gold value (a human grade, 1.0 / 0.0 or True / False for correct or not) where a person graded the
        query, NaN where not. Aligned with ``judge`` as in :func:`agreement`.
    confidence : float
        Of the three intervals (normal, variances with divisor n, as ppi_python).
    lam : float or "tuned"
        The judge's weight: 1 is PPI; ``"tuned"`` picks the weight of the narrowest interval (PPI++, Angelopoulos,
        Duchi and Zrnic 2023, clipped to [0, 1]); 0 is the gold-only mean.

    Returns
    -------
    PPIMean
        ``estimate``, ``low``, ``high``, and ``judge_mean`` and ``gold_mean`` with their intervals for contrast.

    Raises
    ------
    InvalidParameterError
        Values that are no numbers, misaligned sides, fewer than two graded queries or none ungraded.

    Examples
    --------
    >>> import numpy as np, evalframe
    >>> judge = np.array([0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.9, 0.7])   # the judge is generous by about 0.1
    >>> gold = np.array([0.8, 0.7, np.nan, np.nan, np.nan, np.nan, np.nan, 0.6])
    >>> result = evalframe.ppi_mean(judge, gold)
    >>> round(result.estimate, 4)                    # mean(0.7, 0.9, 0.6, 0.8, 0.9) - mean(0.1, 0.1, 0.1)
    0.68
    >>> round(result.judge_mean, 4)                  # the raw judge mean, biased upwards
    0.7875
    """
    confidence, weight = check_options(confidence, lam)
    left, right, keys = aligned(judge, gold)
    scored = ~missing(left)
    graded = ~missing(right)
    yhat_all = numbers_of(left[scored], "judge", keys, np.flatnonzero(scored), bools=True)
    labeled = graded[scored]
    y = numbers_of(right[scored & graded], "gold", keys, np.flatnonzero(scored & graded), bools=True)
    yhat, yhat_unlabeled = yhat_all[labeled], yhat_all[~labeled]
    if len(y) < 2:
        raise InvalidParameterError(f"gold must grade at least 2 of the queries the judge scored (NaN where not graded); "
                                    f"got {len(y)}: the correction needs the judge's error on graded queries, and its "
                                    "spread.", parameter="gold")
    if not len(yhat_unlabeled):
        raise InvalidParameterError("every query the judge scored is graded in gold, so there is nothing to correct: its "
                                    "mean is the gold mean; ppi_mean is for gold on part of the queries (NaN elsewhere).",
                                    parameter="gold")
    from scipy.special import ndtri  # the normal quantile; scipy is loaded only by the statistics that need it

    z = float(ndtri(0.5 + confidence / 2))
    estimate, low, high, used = ppi_interval(y, yhat, yhat_unlabeled, z=z, lam=weight)
    judge_mean, judge_low, judge_high = _normal_interval(yhat_all, z)
    gold_mean, gold_low, gold_high = _normal_interval(y, z)
    return PPIMean(estimate=estimate, low=low, high=high, confidence=confidence, lam=used, n_labeled=len(y),
                   n_unlabeled=len(yhat_unlabeled), judge_mean=judge_mean, judge_low=judge_low, judge_high=judge_high,
                   gold_mean=gold_mean, gold_low=gold_low, gold_high=gold_high, left_out=int((~scored).sum()),
                   tuned=weight is None)
