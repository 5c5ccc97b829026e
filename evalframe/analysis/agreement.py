"""The judge against the gold: agreement (Cohen's kappa, weighted kappa, the confusion per grade) and the
prediction-powered mean of a judge score corrected by the queries a person graded (Angelopoulos et al. 2023).

The kernels are plain numpy over grade codes and score arrays (:func:`kappa_of`, :func:`ppi_interval`); the public
:func:`agreement` and :func:`ppi_mean` take what users have, per-query Series (aligned by their index) or arrays
(aligned by position), and :func:`result_values` reads both sides from a result's per-query table (a metric or a
declared score by name, a ``meta.<field>`` / ``filters.<field>``, or a Series indexed by ``multilabel_id``).

Examples
--------
>>> import numpy as np
>>> confusion = np.array([[4, 1], [1, 4]])   # judge grade x gold grade
>>> round(kappa_of(confusion), 12)           # observed .8, chance .5: (.8 - .5) / (1 - .5)
0.6
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union, cast

import numpy as np
import pandas as pd

from .._validation import check_choice, check_number, did_you_mean, few_names, short_repr
from ..errors import EvalframeError, InvalidParameterError

__all__ = ["Agreement", "PPIMean", "WEIGHTS", "agreement", "kappa_of", "ppi_interval", "ppi_mean", "result_values"]

#: The weightings of :func:`agreement`'s weighted kappa: the penalty of a disagreement by i grades apart.
WEIGHTS = ("linear", "quadratic")
#: What a side of :meth:`evalframe.EvaluationResult.agreement` may be.
Side = Union[str, pd.Series, Mapping[Hashable, Any]]


# ---------------------------------------------------------------------------------------------------- the kernels
def kappa_of(confusion: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a confusion matrix (counts, judge grade x gold grade, grades in order): ``1 - sum(W * O) /
    sum(W * E)``, O the observed shares, E the shares expected by chance (the product of the two margins) and W the
    penalty of each cell: 1 off the diagonal (``weights=None``), ``|i - j|`` (linear) or ``(i - j) ** 2``
    (quadratic), i and j the grades' positions. NaN when chance agreement is perfect (``sum(W * E) == 0``: both
    sides give one and the same grade), as scikit-learn's ``cohen_kappa_score``.
    """
    counts = np.asarray(confusion, dtype=np.float64)
    total = counts.sum()
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / total
    positions = np.arange(counts.shape[0], dtype=np.float64)
    apart = positions[:, None] - positions[None, :]
    penalty = (apart != 0).astype(np.float64) if weights is None else np.abs(apart) if weights == "linear" else apart ** 2
    chance = float((penalty * expected).sum())
    if chance == 0.0:  # a sum of non-negative terms: exactly 0 when every expected count is on the diagonal
        return math.nan
    return float(1.0 - (penalty * counts).sum() / chance)


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


# ---------------------------------------------------------------------------------------------------- the inputs
def _missing(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


def _column(values: Any, name: str) -> pd.Series | np.ndarray:
    if isinstance(values, pd.Series):
        if values.index.has_duplicates:
            duplicated = values.index[values.index.duplicated()][0]
            raise InvalidParameterError(f"{name} has index label {duplicated!r} more than once; give one value per query.",
                                        parameter=name)
        return values
    if isinstance(values, pd.DataFrame):
        raise InvalidParameterError(f"{name} must be one value per query (a Series or a 1-d array); got a DataFrame with "
                                    f"columns {few_names(list(map(str, values.columns)))}: pick one column.", parameter=name)
    if isinstance(values, Mapping):
        return _column(pd.Series(dict(values), dtype=object), name)
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray, pd.Index)):
        raise InvalidParameterError(f"{name} must be a Series or a 1-d array of per-query values; got "
                                    f"{short_repr(values, 60)} of type {type(values).__name__}.", parameter=name)
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if array.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-d, one value per query; got shape {array.shape}.", parameter=name)
    return array


@dataclass(frozen=True)
class _Keys:
    """Where each value of the aligned sides came from, for the messages: an index label, or a position."""

    index: pd.Index
    labelled: bool

    def at(self, positions: np.ndarray, where: int) -> str:
        key = self.index[positions[where]]
        return f"index label {key!r}" if self.labelled else f"position {key}"


def _absent_like(values: np.ndarray, count: int) -> np.ndarray:
    """``count`` missing values to go beside ``values``: NaN for floats, None otherwise (ints and bools stay what they
    are beside None, not floats)."""
    return np.full(count, np.nan) if values.dtype.kind == "f" else np.full(count, None, dtype=object)


def _by_index(left: pd.Series, right: pd.Series, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Two Series on the union of their indexes (``left``'s order, then the labels only ``right`` has): one hash
    lookup of ``right``'s labels in ``left``'s."""
    values_left, values_right = np.asarray(left), np.asarray(right)
    if left.index.equals(right.index):
        return values_left, values_right, left.index
    found = left.index.get_indexer(right.index)
    shared = found >= 0
    if len(left) and len(right) and not shared.any():
        raise InvalidParameterError(
            f"{names[0]} and {names[1]} share no index label (e.g. {list(left.index[:2])!r} vs "
            f"{list(right.index[:2])!r}), so no query has both; index both by the same query ids (multilabel_id), "
            "or pass arrays in one order.", parameter=names[1])
    extra = ~shared
    index = left.index.append(right.index[extra])
    aligned_left = np.concatenate([values_left, _absent_like(values_left, int(extra.sum()))])
    aligned_right = _absent_like(values_right, len(index))
    aligned_right[found[shared]] = values_right[shared]
    aligned_right[len(left):] = values_right[extra]
    return aligned_left, aligned_right, index


def _aligned(judge: Any, gold: Any, names: tuple[str, str] = ("judge", "gold")) -> tuple[np.ndarray, np.ndarray, _Keys]:
    """The two sides as arrays, one entry per query: two Series by their index (a query one of them lacks has no value
    there), otherwise by position (the lengths must agree); and where each entry came from."""
    left, right = _column(judge, names[0]), _column(gold, names[1])
    if isinstance(left, pd.Series) and isinstance(right, pd.Series):
        values_left, values_right, index = _by_index(left, right, names)
        return values_left, values_right, _Keys(index, True)
    if len(left) != len(right):
        raise InvalidParameterError(f"{names[0]} and {names[1]} must give one value per query each, in one order; got "
                                    f"{len(left)} and {len(right)} values (two Series are aligned by their index).",
                                    parameter=names[1])
    return np.asarray(left), np.asarray(right), _Keys(pd.RangeIndex(len(left)), False)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


#: What pandas' infer_dtype calls the values of one kind (checked in C, not value by value in Python).
_KINDS = {"floating": "number", "integer": "number", "mixed-integer-float": "number", "boolean": "bool",
          "string": "text", "empty": "empty"}


def _kind(values: np.ndarray) -> str:
    """``"number"``, ``"bool"``, ``"text"``, ``"empty"``, or ``"mixed"`` (anything else: checked value by value)."""
    return _KINDS.get(pd.api.types.infer_dtype(values, skipna=True), "mixed")


def _numbers(values: np.ndarray, name: str, keys: _Keys, positions: np.ndarray, *, bools: bool = False) -> np.ndarray:
    """Present values (at ``positions`` of the aligned sides) as float64 (numbers; with ``bools`` True / False too, as
    1 / 0), refusing the first that is not."""
    kind = _kind(values)
    if kind == "mixed" or (kind == "bool" and not bools) or kind == "text":
        kinds = np.fromiter((_is_number(v) or (bools and isinstance(v, (bool, np.bool_))) for v in values), dtype=bool,
                            count=len(values))
        if not kinds.all():
            where = int(np.flatnonzero(~kinds)[0])
            raise InvalidParameterError(f"{name} must hold numbers (NaN or None: no value); {keys.at(positions, where)} "
                                        f"holds {short_repr(values[where], 40)} of type {type(values[where]).__name__}.",
                                        parameter=name)
    floats = values.astype(np.float64)
    if not np.isfinite(floats).all():
        where = int(np.flatnonzero(~np.isfinite(floats))[0])
        raise InvalidParameterError(f"{name} must hold finite numbers; {keys.at(positions, where)} holds {floats[where]}.",
                                    parameter=name)
    return floats


def _cut(scores: np.ndarray, threshold: Any, grades: list[Any] | None) -> np.ndarray:
    """A judge's scores cut into grades: a number t gives 0 below t and 1 at or above; increasing edges give the
    number of edges at or below the score (0 ... len(edges)); with ``grades``, the grade at that position."""
    edgy = isinstance(threshold, (Sequence, np.ndarray)) and not isinstance(threshold, (str, bytes))
    if not (_is_number(threshold) or edgy):
        raise InvalidParameterError(f"threshold must be a number (score >= threshold: grade 1, else 0) or increasing bin "
                                    f"edges such as [0.25, 0.5, 0.75]; got {short_repr(threshold, 40)}.", parameter="threshold")
    edges = np.atleast_1d(np.asarray(threshold, dtype=object))
    if edges.ndim != 1 or not len(edges) or not all(_is_number(e) and math.isfinite(e) for e in edges):
        raise InvalidParameterError(f"threshold must be a finite number or a non-empty list of finite bin edges; got "
                                    f"{short_repr(threshold, 40)}.", parameter="threshold")
    edges = edges.astype(np.float64)
    if (np.diff(edges) <= 0).any():
        raise InvalidParameterError(f"threshold's bin edges must increase strictly; got {edges.tolist()}.",
                                    parameter="threshold")
    positions = np.searchsorted(edges, scores, side="right")
    if grades is None:
        return positions.astype(object)
    if len(grades) != len(edges) + 1:
        raise InvalidParameterError(f"threshold's {len(edges)} edges cut the judge into {len(edges) + 1} grades, so grades "
                                    f"must list {len(edges) + 1}; got {len(grades)}: {short_repr(grades, 40)}.",
                                    parameter="grades")
    return np.asarray(grades, dtype=object)[positions]


def _labels(values: np.ndarray, name: str, keys: _Keys | None = None, positions: np.ndarray | None = None, *,
            hint: str = "") -> np.ndarray:
    """Grades as comparable labels: whole numbers as ints (1.0 and 1 are one grade), bools and texts as they are."""
    kind = _kind(values)
    if kind in ("bool", "text", "empty"):
        return values
    numeric = (np.ones(len(values), dtype=bool) if kind == "number"
               else np.fromiter((_is_number(v) for v in values), dtype=bool, count=len(values)))
    if numeric.any():
        floats = values[numeric].astype(np.float64)
        whole = np.isfinite(floats) & (floats == np.round(floats))
        if not whole.all():
            first = int(np.flatnonzero(numeric)[np.flatnonzero(~whole)[0]])
            where = f" at {keys.at(positions, first)}" if keys is not None and positions is not None else ""
            raise InvalidParameterError(f"{name} holds {float(values[first])!r}{where}, which is no grade: grades are "
                                        f"whole numbers, bools or texts.{hint}", parameter=name)
        if kind == "number":
            return floats.astype(np.int64)
        out = np.asarray(values, dtype=object).copy()
        out[numeric] = floats.astype(np.int64).tolist()
        return out
    return values


def _order(judge: np.ndarray, gold: np.ndarray, grades: Any, weights: str | None) -> list[Any]:
    """The grades in order: ``grades`` as given (every label present must be among them), else the sorted labels."""
    if grades is not None:
        if isinstance(grades, (str, bytes)) or not isinstance(grades, (Sequence, np.ndarray, pd.Index)) or not len(grades):
            raise InvalidParameterError(f"grades must be a non-empty list of the grades in order, e.g. [1, 2, 3, 4, 5]; got "
                                        f"{short_repr(grades, 40)}.", parameter="grades")
        order = _labels(np.asarray(list(grades), dtype=object), "grades").tolist()
        if len(set(order)) != len(order):
            raise InvalidParameterError(f"grades must list each grade once; got {order!r}.", parameter="grades")
        listed = set(order)
        for values, name in ((judge, "judge"), (gold, "gold")):
            unknown = [grade for grade in dict.fromkeys(values.tolist()) if grade not in listed]
            if unknown:
                raise InvalidParameterError(f"{name} gives the grade {unknown[0]!r}, which grades={order!r} lacks.",
                                            parameter=name)
        return order
    present = list(dict.fromkeys(np.concatenate([judge, gold]).tolist()))
    kinds = {"number" if _is_number(v) else "bool" if isinstance(v, (bool, np.bool_)) else "text" for v in present}
    if len(kinds) > 1:
        raise InvalidParameterError(f"judge and gold mix {' and '.join(sorted(kinds))} grades ({short_repr(present, 50)}); "
                                    "give both on one scale, or list them in order with grades=[...].", parameter="grades")
    if kinds == {"text"} and weights is not None:
        raise InvalidParameterError(f"weights={weights!r} needs the grades in order, and texts have none "
                                    f"({short_repr(sorted(map(str, present)), 50)}); list them with grades=[...], "
                                    "lowest first.", parameter="grades")
    return sorted(present, key=lambda v: (str(v),) if kinds == {"text"} else (v,))


# ---------------------------------------------------------------------------------------------------- agreement
@dataclass(frozen=True)
class Agreement:
    """How far a judge agrees with the gold, query by query (:func:`agreement`).

    ``n``: the queries with a grade on both sides (``left_out``: those missing one); ``observed``: the share graded
    alike; ``expected``: the share alike by chance (from the two margins); ``kappa``: Cohen's kappa, ``(observed -
    expected) / (1 - expected)``; ``weighted_kappa``: with ``weights`` (None without); ``reason``: why kappa is NaN,
    when it is; ``confusion``: the counts, judge grade (rows) x gold grade (columns).
    """

    n: int
    left_out: int
    grades: list[Any]
    observed: float
    expected: float
    kappa: float
    weights: str | None
    weighted_kappa: float | None
    confusion: pd.DataFrame
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The numbers (not the confusion) as a dict."""
        return {"n": self.n, "left_out": self.left_out, "observed": self.observed, "expected": self.expected,
                "kappa": self.kappa, "weights": self.weights, "weighted_kappa": self.weighted_kappa}

    def __repr__(self) -> str:
        lines = [f"Agreement of {self.n} queries ({self.left_out} left out: no grade on one side)",
                 f"  observed agreement {self.observed:.4f}, by chance {self.expected:.4f}",
                 f"  Cohen's kappa {self.kappa:.4f}" + (f" ({self.reason})" if self.reason else "")]
        if self.weights is not None:
            lines.append(f"  weighted kappa ({self.weights}) {self.weighted_kappa:.4f}")
        lines.append("  confusion (judge grade x gold grade):")
        lines.extend("    " + line for line in self.confusion.to_string().splitlines())
        return "\n".join(lines)


def agreement(judge: Any, gold: Any, *, weights: str | None = None, threshold: Any = None,
              grades: Sequence[Any] | None = None) -> Agreement:
    """Cohen's kappa (and weighted kappa) of a judge's grades against the gold's, with the confusion per grade.

    Parameters
    ----------
    judge, gold : Series or 1-d array
        One value per query: two Series are aligned by their index (a query one lacks counts as missing there),
        otherwise by position. A missing value (NaN, None) leaves the query out. Grades are whole numbers (``1.0``
        and ``1`` alike), bools or texts.
    weights : {None, "linear", "quadratic"}
        The weighted kappa's penalty of grades i and j: ``|i - j|`` or ``(i - j) ** 2`` of their positions in the
        order (scikit-learn's); None: no weighted kappa.
    threshold : float or sequence of float, optional
        Cuts a continuous judge score into grades: a number t gives grade 1 to a score >= t and 0 below; increasing
        edges ``[t1, ..., tm]`` give the number of edges at or below the score (0 ... m), or with ``grades`` the grade
        at that position (``grades`` then lists m + 1). The gold is never cut.
    grades : sequence, optional
        The grades in order, lowest first (default: the grades present, sorted); grades listed that no query has are
        rows and columns of zeros. Needed for weighted kappa of text grades.

    Returns
    -------
    Agreement
        ``kappa``, ``weighted_kappa``, ``n``, ``observed``, ``expected``, ``confusion`` (a DataFrame judge x gold).

    Raises
    ------
    InvalidParameterError
        Misaligned sides, a value that is no grade (a score without ``threshold``), no query graded on both sides.

    Examples
    --------
    >>> import evalframe
    >>> judge = [0.9, 0.8, 0.3, 0.7, 0.2, 0.6]                # faithfulness from an LLM judge
    >>> gold = [1, 1, 0, 0, 0, 1]                             # a person's verdict: correct or not
    >>> result = evalframe.agreement(judge, gold, threshold=0.5)
    >>> round(result.kappa, 4), result.n                       # 5 of 6 alike; by chance 0.5
    (0.6667, 6)
    >>> result.confusion
    gold   0  1
    judge
    0      2  0
    1      1  3
    """
    weights = None if weights is None else check_choice(weights, WEIGHTS, name="weights")
    left, right, keys = _aligned(judge, gold)
    present = ~(_missing(left) | _missing(right))
    left_out = int((~present).sum())
    positions = np.flatnonzero(present)
    left, right = left[present], right[present]
    order_given = None if grades is None else list(grades)
    if threshold is not None:
        left = _cut(_numbers(left, "judge", keys, positions), threshold, order_given)
    left = _labels(left, "judge", keys, positions, hint=" A score is cut into grades by threshold= (a number, or bin edges).")
    right = _labels(right, "gold", keys, positions)
    if not len(left):
        raise InvalidParameterError(f"no query has a grade on both sides ({left_out} have one side missing); judge and "
                                    "gold must grade some queries alike (aligned by index, or in one order).",
                                    parameter="gold")
    order = _order(left, right, order_given, weights)
    index = pd.Index(order)  # ints, texts or bools: a typed index, hashed in C
    rows, columns = index.get_indexer(left), index.get_indexer(right)
    k = len(order)
    counts = np.bincount(rows * k + columns, minlength=k * k).reshape(k, k)
    n = int(counts.sum())
    observed = float(np.trace(counts)) / n
    expected = float(counts.sum(axis=1) @ counts.sum(axis=0)) / n ** 2
    kappa = kappa_of(counts)
    reason = None
    if math.isnan(kappa):
        reason = (f"undefined: judge and gold give every query the one grade {order[int(rows[0])]!r}, so agreement by "
                  "chance is 1 (scikit-learn's cohen_kappa_score gives NaN too)")
    confusion = pd.DataFrame(counts, index=pd.Index(order, name="judge"), columns=pd.Index(order, name="gold"))
    return Agreement(n=n, left_out=left_out, grades=order, observed=observed, expected=expected, kappa=kappa,
                     weights=weights, weighted_kappa=None if weights is None else kappa_of(counts, weights),
                     confusion=confusion, reason=reason)


# ---------------------------------------------------------------------------------------------------- PPI
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


def _confidence(value: Any) -> float:
    confidence = check_number(value, name="confidence")
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must lie strictly between 0 and 1, e.g. 0.95; got {confidence}.",
                                    parameter="confidence")
    return confidence


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
    confidence = _confidence(confidence)
    if isinstance(lam, str):
        if lam != "tuned":
            raise InvalidParameterError(f"lam must be a number in [0, 1] (1: PPI) or 'tuned' (PPI++); got {lam!r}.",
                                        parameter="lam")
        weight: float | None = None
    else:
        weight = check_number(lam, name="lam")
    left, right, keys = _aligned(judge, gold)
    scored = ~_missing(left)
    graded = ~_missing(right)
    yhat_all = _numbers(left[scored], "judge", keys, np.flatnonzero(scored), bools=True)
    labeled = graded[scored]
    y = _numbers(right[scored & graded], "gold", keys, np.flatnonzero(scored & graded), bools=True)
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


# ---------------------------------------------------------------------------------------------------- on a result
def result_values(table_of: Callable[[list[Any]], pd.DataFrame], node: str, sides: Mapping[str, Side]) -> list[pd.Series]:
    """Each side's per-query values, read from the node's per-query table ``table_of(by)`` (index ``multilabel_id``):
    a metric or declared score by name, ``meta.<field>`` / ``filters.<field>`` (slice keys, read as ``by=``), or a
    Series / dict from ``multilabel_id`` to value (reindexed to the node's queries; one it lacks is refused)."""
    keys = [value for value in sides.values() if isinstance(value, str) and value.startswith(("meta.", "filters."))]
    try:
        table = table_of(keys)
    except EvalframeError as exc:
        if not keys or not str(exc).startswith("by"):
            raise
        side = next(name for name, value in sides.items() if isinstance(value, str) and repr(value) in str(exc))
        raise type(exc)(f"{side}: {exc}", parameter=side) from None
    labels = {key: table.iloc[:, position] for position, key in enumerate(dict.fromkeys(keys))}
    metrics = [str(c) for c in table.columns[len(labels):]]
    values = []
    for side, value in sides.items():
        if isinstance(value, str):
            if value in labels:
                values.append(labels[value].rename(value))
            elif value in metrics:
                values.append(table[value])
            else:
                raise InvalidParameterError(
                    f"{side}={value!r} is no metric or score of node {node!r} (its columns: {few_names(metrics, 10)}), "
                    f"nor a 'meta.<field>' or 'filters.<field>'.{did_you_mean(value, metrics)}", parameter=side)
        elif isinstance(value, (pd.Series, Mapping)):
            series = cast(pd.Series, _column(value, side))  # a Mapping becomes a Series there
            unknown = series.index.difference(table.index)
            if len(unknown):
                raise InvalidParameterError(
                    f"{side} is indexed by {unknown[0]!r}, which is no query (multilabel_id) of node {node!r} "
                    f"({len(unknown)} such of {len(series)}); index it by the node's multilabel_id "
                    "(result.query_metrics(node).index).", parameter=side)
            values.append(series.reindex(table.index))
        else:
            raise InvalidParameterError(
                f"{side} must be a metric or score name, 'meta.<field>', or a Series from multilabel_id to value; got "
                f"{short_repr(value, 40)} of type {type(value).__name__}.", parameter=side)
    return values


