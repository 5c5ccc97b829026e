"""The judge against the gold: Cohen's kappa, weighted kappa and the confusion per grade of a judge's grades against
the gold's (:func:`agreement`; :mod:`evalframe.analysis.ppi` corrects a judge's mean by the gold).

The kernel is plain numpy over a confusion matrix (:func:`kappa_of`); :func:`agreement` takes what users have,
per-query Series (aligned by their index) or arrays (aligned by position, :mod:`evalframe.analysis.sides`).

Examples
--------
>>> import numpy as np
>>> confusion = np.array([[4, 1], [1, 4]])   # judge grade x gold grade
>>> round(kappa_of(confusion), 12)           # observed .8, chance .5: (.8 - .5) / (1 - .5)
0.6
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice, short_repr
from ..errors import InvalidParameterError
from .sides import Keys, aligned, is_number, kind_of, missing, numbers_of

__all__ = ["Agreement", "WEIGHTS", "agreement", "check_options", "kappa_of"]

#: The weightings of :func:`agreement`'s weighted kappa: the penalty of a disagreement by i grades apart.
WEIGHTS = ("linear", "quadratic")


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


def _edges(threshold: Any) -> np.ndarray:
    """``threshold`` as increasing bin edges (a number is one edge), checked."""
    edgy = isinstance(threshold, (Sequence, np.ndarray)) and not isinstance(threshold, (str, bytes))
    if not (is_number(threshold) or edgy):
        raise InvalidParameterError(f"threshold must be a number (score >= threshold: grade 1, else 0) or increasing bin "
                                    f"edges such as [0.25, 0.5, 0.75]; got {short_repr(threshold, 40)}.", parameter="threshold")
    edges = np.atleast_1d(np.asarray(threshold, dtype=object))
    if edges.ndim != 1 or not len(edges) or not all(is_number(e) and math.isfinite(e) for e in edges):
        raise InvalidParameterError(f"threshold must be a finite number or a non-empty list of finite bin edges; got "
                                    f"{short_repr(threshold, 40)}.", parameter="threshold")
    edges = edges.astype(np.float64)
    if (np.diff(edges) <= 0).any():
        raise InvalidParameterError(f"threshold's bin edges must increase strictly; got {edges.tolist()}.",
                                    parameter="threshold")
    return edges


def check_options(weights: Any, threshold: Any, grades: Any) -> tuple[str | None, np.ndarray | None, list[Any] | None]:
    """:func:`agreement`'s ``weights``, ``threshold`` (as bin edges) and ``grades`` (as a list of labels), checked
    before any work (a result's per-query table is read after)."""
    weights = None if weights is None else check_choice(weights, WEIGHTS, name="weights")
    edges = None if threshold is None else _edges(threshold)
    order = None
    if grades is not None:
        if isinstance(grades, (str, bytes)) or not isinstance(grades, (Sequence, np.ndarray, pd.Index)) or not len(grades):
            raise InvalidParameterError(f"grades must be a non-empty list of the grades in order, e.g. [1, 2, 3, 4, 5]; got "
                                        f"{short_repr(grades, 40)}.", parameter="grades")
        order = _labels(np.asarray(list(grades), dtype=object), "grades").tolist()
        if len(set(order)) != len(order):
            raise InvalidParameterError(f"grades must list each grade once; got {order!r}.", parameter="grades")
        if edges is not None and len(order) != len(edges) + 1:
            raise InvalidParameterError(f"threshold's {len(edges)} edges cut the judge into {len(edges) + 1} grades, so "
                                        f"grades must list {len(edges) + 1}; got {len(order)}: {short_repr(order, 40)}.",
                                        parameter="grades")
    return weights, edges, order


def _cut(scores: np.ndarray, edges: np.ndarray, grades: list[Any] | None) -> np.ndarray:
    """A judge's scores cut into grades: with one edge t, 0 below t and 1 at or above; with increasing edges, the
    number of edges at or below the score (0 ... len(edges)); with ``grades``, the grade at that position."""
    positions = np.searchsorted(edges, scores, side="right")
    return positions if grades is None else np.asarray(grades, dtype=object)[positions]


def _labels(values: np.ndarray, name: str, keys: Keys | None = None, positions: np.ndarray | None = None, *,
            hint: str = "") -> np.ndarray:
    """Grades as comparable labels: whole numbers as ints (1.0 and 1 are one grade), bools and texts as they are."""
    kind = kind_of(values)
    if kind in ("bool", "text", "empty"):
        return values
    numeric = (np.ones(len(values), dtype=bool) if kind == "number"
               else np.fromiter((is_number(v) for v in values), dtype=bool, count=len(values)))
    if numeric.any():
        floats = values[numeric].astype(np.float64)
        # whole, and exact as an int64 (a float beyond 2**53 is no grade anyone gives, and would not convert exactly)
        whole = np.isfinite(floats) & (floats == np.round(floats)) & (np.abs(floats) <= 2.0 ** 53)
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


def _order(judge: np.ndarray, gold: np.ndarray, grades: list[Any] | None, weights: str | None) -> list[Any]:
    """The grades in order: ``grades`` as given (checked; every label present must be among them), else the sorted
    labels."""
    if grades is not None:
        order = list(grades)
        listed = set(order)
        for values, name in ((judge, "judge"), (gold, "gold")):
            unknown = [grade for grade in pd.unique(values).tolist() if grade not in listed]
            if unknown:
                raise InvalidParameterError(f"{name} gives the grade {unknown[0]!r}, which grades={order!r} lacks.",
                                            parameter=name)
        return order
    present = pd.unique(np.concatenate([judge, gold])).tolist()  # the distinct grades, in C
    kinds = {"number" if is_number(v) else "bool" if isinstance(v, (bool, np.bool_)) else "text" for v in present}
    if len(kinds) > 1:
        raise InvalidParameterError(f"judge and gold mix {' and '.join(sorted(kinds))} grades ({short_repr(present, 50)}); "
                                    "give both on one scale, or list them in order with grades=[...].", parameter="grades")
    if kinds == {"text"} and weights is not None:
        raise InvalidParameterError(f"weights={weights!r} needs the grades in order, and texts have none "
                                    f"({short_repr(sorted(map(str, present)), 50)}); list them with grades=[...], "
                                    "lowest first.", parameter="grades")
    return sorted(present, key=lambda v: (str(v),) if kinds == {"text"} else (v,))


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
    weights, edges, order_given = check_options(weights, threshold, grades)
    left, right, keys = aligned(judge, gold)
    present = ~(missing(left) | missing(right))
    left_out = int((~present).sum())
    positions = np.flatnonzero(present)
    left, right = left[present], right[present]
    if edges is not None:
        left = _cut(numbers_of(left, "judge", keys, positions), edges, order_given)
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
