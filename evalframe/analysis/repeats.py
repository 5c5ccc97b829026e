"""Repeated judge runs: judge noise against query variance, and pass@k / pass^k (``docs/statistics.md``).

A score given k times per query (:mod:`evalframe.frames.repeats`) is one observation per (query, repetition). Its
spread is split by the one-way random-effects model ``y_ij = mu + q_i + e_ij``: the variance between queries
(``q_i``: what the questions differ in) and within a query (``e_ij``: the judge scoring the same answer again).
Unbalanced designs (a different k per query) use the usual ANOVA estimators with ``n0`` (Searle, Casella &
McCulloch 1992, ch. 3): ``MSB = SSB / (a - 1)``, ``MSW = SSW / (N - a)``, ``n0 = (N - sum n_i^2 / N) / (a - 1)``,
``within = MSW``, ``between = max((MSB - MSW) / n0, 0)``, ``ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW)``.

pass@k is the share of queries where at least one of k repetitions reaches a threshold, pass^k the share where all
k do; a query with n >= k repetitions of which c pass contributes the unbiased estimates ``1 - C(n - c, k) / C(n, k)``
(Chen et al. 2021, HumanEval) and ``C(c, k) / C(n, k)`` (Yao et al. 2024, tau-bench).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice
from ..columns import EVAL_MODES
from ..errors import InvalidParameterError
from ..frames.repeats import query_repetitions
from ..metrics.registry import Metric

__all__ = ["noise_decomposition", "pass_estimates", "judge_noise_table", "pass_at_k_of", "NOISE_COLUMNS",
           "Repetitions", "frame_repetitions", "joined", "check_pass_options", "RepeatedScores"]

#: The columns of ``judge_noise``, in order.
NOISE_COLUMNS = ("queries", "repetitions", "k_min", "k_max", "mean", "between_variance", "within_variance",
                 "noise_share", "icc", "judge_se")


def noise_decomposition(values: np.ndarray, lengths: np.ndarray) -> dict[str, float]:
    """The one-way random-effects decomposition of repetitions (``values`` one query after another, ``lengths`` how
    many each query has; a query with none is left out).

    Returns ``queries`` (a, with a value), ``repetitions`` (N), ``k_min``, ``k_max``, ``mean`` (of the per-query
    means, as every analysis gives it), ``between_variance``, ``within_variance`` (MSW: the judge's noise),
    ``noise_share`` (within / (between + within)), ``icc`` (ICC(1), may be negative) and ``judge_se`` (the standard
    error the judge's noise alone puts on the mean: ``sqrt(MSW / a^2 * sum 1 / n_i)``). A variance that needs two
    queries (between) or a query with two repetitions (within) is NaN without them.

    Examples
    --------
    >>> out = noise_decomposition(np.array([1.0, 3.0, 4.0, 6.0]), np.array([2, 2]))
    >>> out["between_variance"], out["within_variance"]   # MSB = 9, MSW = 2, n0 = 2: (9 - 2) / 2
    (3.5, 2.0)
    >>> round(out["noise_share"], 12), round(out["icc"], 12)   # 2 / 5.5 = 4 / 11, 7 / 11
    (0.363636363636, 0.636363636364)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    have = lengths > 0
    a, n_total = int(have.sum()), int(lengths.sum())
    sums = np.bincount(owner, weights=values, minlength=len(lengths))
    means = sums[have] / lengths[have]
    n = lengths[have].astype(np.float64)
    out: dict[str, float] = {"queries": float(a), "repetitions": float(n_total),
                             "k_min": float(n.min()) if a else math.nan, "k_max": float(n.max()) if a else math.nan,
                             "mean": float(means.mean()) if a else math.nan}
    nan = math.nan
    if a and n_total > a:
        residual = values - (sums / np.maximum(lengths, 1))[owner]
        msw = float(np.dot(residual, residual)) / (n_total - a)
    else:
        msw = nan
    if a >= 2:
        grand = float(values.sum()) / n_total
        msb = float(np.dot(n, (means - grand) ** 2)) / (a - 1)
        n0 = (n_total - float(np.dot(n, n)) / n_total) / (a - 1)
    else:
        msb = n0 = nan
    between = max((msb - msw) / n0, 0.0) if not (math.isnan(msb) or math.isnan(msw)) else nan
    total = between + msw
    out["between_variance"] = between
    out["within_variance"] = msw
    out["noise_share"] = msw / total if total > 0 else nan
    denominator = msb + (n0 - 1) * msw
    out["icc"] = (msb - msw) / denominator if denominator and not math.isnan(denominator) else nan
    out["judge_se"] = math.sqrt(msw * float(np.sum(1.0 / n)) / a ** 2) if a and not math.isnan(msw) else nan
    return out


def pass_estimates(lengths: np.ndarray, passed: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each query's unbiased pass@k and pass^k from its ``n`` repetitions (``lengths``, each >= k) of which ``c``
    (``passed``) reach the threshold: ``1 - C(n - c, k) / C(n, k)`` and ``C(c, k) / C(n, k)``, as products (no
    factorial overflows).

    Examples
    --------
    >>> at, all_ = pass_estimates(np.array([5, 3]), np.array([2, 3]), 2)
    >>> at.round(12).tolist(), all_.round(12).tolist()   # 1 - C(3,2)/C(5,2) = 0.7, C(2,2)/C(5,2) = 0.1
    ([0.7, 1.0], [0.1, 1.0])
    """
    n = np.asarray(lengths, dtype=np.float64)
    c = np.asarray(passed, dtype=np.float64)
    none_pass = np.ones(len(n))
    all_pass = np.ones(len(n))
    for j in range(k):  # k factors, each over every query at once
        none_pass *= np.maximum(n - c - j, 0.0) / (n - j)
        all_pass *= np.maximum(c - j, 0.0) / (n - j)
    return 1.0 - none_pass, all_pass


#: One score's repetitions: the queries (multilabel_ids), their values one query after another and how many each has.
Repetitions = tuple[pd.Index, np.ndarray, np.ndarray]


def frame_repetitions(frame: pd.DataFrame, names: Sequence[str], *, node: str,
                      eval_mode: str = "integrated") -> dict[str, Repetitions]:
    """The repetitions of each score of ``names`` in a node's ``frame``
    (:func:`~evalframe.frames.repeats.query_repetitions`)."""
    return {name: query_repetitions(frame, name, eval_mode=eval_mode, where=f"node {node!r}") for name in names}


def joined(pieces: Sequence[Mapping[str, Repetitions]], names: Sequence[str]) -> dict[str, Repetitions]:
    """Partitions' repetitions (each query in one partition) as one per score."""
    out: dict[str, Repetitions] = {}
    for name in names:
        found = [piece[name] for piece in pieces if name in piece]
        if not found:
            out[name] = (pd.Index([], dtype=object), np.zeros(0), np.zeros(0, dtype=np.int64))
            continue
        out[name] = (pd.Index(np.concatenate([f[0].to_numpy(dtype=object) for f in found]), dtype=object),
                     np.concatenate([f[1] for f in found]), np.concatenate([f[2] for f in found]))
    return out


def judge_noise_table(repetitions: Mapping[str, Repetitions]) -> pd.DataFrame:
    """``judge_noise``'s table: one row per score, :data:`NOISE_COLUMNS`."""
    rows = {name: noise_decomposition(values, lengths) for name, (_, values, lengths) in repetitions.items()}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(NOISE_COLUMNS))
    for column in ("queries", "repetitions"):
        table[column] = table[column].astype(np.int64)
    table.index.name = "score"
    return table


def _threshold(threshold: Any) -> float:
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real) \
            or not math.isfinite(float(threshold)):
        raise InvalidParameterError(f"pass_at_k: threshold must be a finite number (the value a repetition must "
                                    f"reach to pass); got {threshold!r}.", parameter="threshold")
    return float(threshold)


def check_pass_options(metric: Metric, threshold: Any, k: Any) -> float:
    """Refuse a threshold that is no finite number, a k that is no integer >= 1 and a score without direction
    (before any task runs); the threshold as a float."""
    limit = _threshold(threshold)
    if k is not None and (isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1):
        raise InvalidParameterError(f"pass_at_k: k must be an integer >= 1 (the repetitions drawn per query); got "
                                    f"{k!r}.", parameter="k")
    if metric.direction not in ("higher", "lower"):
        raise InvalidParameterError(f"pass_at_k: score {metric.name!r} is declared direction={metric.direction!r}: "
                                    "neither way is better, so no value passes a threshold.", parameter="score")
    return limit


def pass_at_k_of(repetitions: Repetitions, metric: Metric, threshold: Any, k: Any = None, *,
                 node: str) -> dict[str, Any]:
    """``pass_at_k``: ``{"k", "queries", "pass@k", "pass^k"}`` of score ``metric`` from its repetitions."""
    limit = check_pass_options(metric, threshold, k)
    ids, values, lengths = repetitions
    have = lengths > 0
    if not have.any():
        raise InvalidParameterError(f"pass_at_k: score {metric.name!r} of node {node!r} has no value.",
                                    parameter="score")
    smallest = int(lengths[have].min())
    k = smallest if k is None else int(k)
    short = np.flatnonzero(have & (lengths < k))
    if len(short):
        i = int(short[0])
        raise InvalidParameterError(
            f"pass_at_k: k={k} exceeds the {int(lengths[i])} repetition(s) of score {metric.name!r} of query "
            f"{ids[i]!r} (node {node!r}; {len(short)} queries have fewer than {k}); k can be at most {smallest}.",
            parameter="k")
    reached = values >= limit if metric.direction == "higher" else values <= limit
    owner = np.repeat(np.arange(len(lengths)), lengths)
    passed = np.bincount(owner, weights=reached.astype(np.float64), minlength=len(lengths))
    at_least_one, every = pass_estimates(lengths[have], passed[have], k)
    return {"k": k, "queries": int(have.sum()), "pass@k": float(at_least_one.mean()), "pass^k": float(every.mean())}


class RepeatedScores:
    """``judge_noise`` and ``pass_at_k``, written once for the result classes; a class provides
    :meth:`score_repetitions` and :meth:`_node_score_names` (and ``check_node``, ``scores``)."""

    def score_repetitions(self, node: str, names: Sequence[str], eval_mode: str) -> dict[str, Repetitions]:
        """Each score of ``names``' repetitions in ``node`` (checked), over the whole result."""
        raise NotImplementedError

    def _repeated_scores(self, node: str, score: str | None) -> tuple[str, dict[str, Metric]]:
        node = self.check_node(node)  # type: ignore[attr-defined]
        held = set(self._node_score_names(node))
        found = {name: metric for name, metric in self._declarations().items() if name in held}
        if score is None:
            return node, found
        if score not in found:
            raise InvalidParameterError(f"score {score!r} is no score of node {node!r} (its scores: {list(found)}).",
                                        parameter="score")
        return node, {score: found[score]}

    def _node_score_names(self, node: str) -> list[str]:
        """The scores the node's frames hold (a ``scores.<name>`` column)."""
        raise NotImplementedError

    def _declarations(self) -> Mapping[str, Metric]:
        """The declared scores (``result.scores``)."""
        return self.scores  # type: ignore[attr-defined]

    def judge_noise(self, node: str, score: str | None = None, *, eval_mode: str = "integrated") -> pd.DataFrame:
        """How much of a score's spread is the judge's noise (repeated judge runs) and how much the queries'.

        One row per score of ``node`` (or ``score``): ``queries`` and ``repetitions`` (values), ``k_min`` /
        ``k_max`` (repetitions per query), ``mean`` (of the per-query means, as ``calculate_metrics`` gives it),
        ``between_variance`` (between queries), ``within_variance`` (between repetitions of one query: the
        judge's noise), ``noise_share`` (within / (between + within)), ``icc`` (ICC(1)) and ``judge_se`` (the
        standard error the judge's noise puts on the mean); a one-way random-effects decomposition
        (:mod:`evalframe.analysis.repeats`, ``docs/statistics.md#repeated-judge-runs``). A score without
        repetitions has k = 1 and no within variance (NaN).

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import load_demo_result
        >>> result = load_demo_result()
        >>> ids = result.query_metrics("Reader").index[:2].tolist()
        >>> runs = pd.DataFrame({"multilabel_id": [ids[0]] * 2 + [ids[1]] * 2, "run": [1, 2, 1, 2],
        ...                      "judge": [1.0, 3.0, 4.0, 6.0]})
        >>> result.add_scores("Reader", runs, repetition="run")
        >>> result.judge_noise("Reader").loc["judge", ["between_variance", "within_variance"]].tolist()
        [3.5, 2.0]
        """
        check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        node, found = self._repeated_scores(node, score)
        return judge_noise_table(self.score_repetitions(node, list(found), eval_mode))

    def pass_at_k(self, node: str, score: str, threshold: float, k: int | None = None, *,
                  eval_mode: str = "integrated") -> dict[str, Any]:
        """pass@k and pass^k of a score given several times per query (repeated judge runs).

        pass@k: the share of queries where at least one of k repetitions reaches ``threshold`` (``>=``; ``<=`` for
        a lower-is-better score); pass^k: the share where all k do. A query with n > k repetitions, c of them
        passing, counts the unbiased estimates ``1 - C(n - c, k) / C(n, k)`` and ``C(c, k) / C(n, k)`` (Chen et al.
        2021; tau-bench's pass^k). ``k`` (default: the fewest repetitions of a query) may not exceed any query's
        n; queries without a value are left out.

        Returns
        -------
        dict
            ``{"k": k, "queries": queries counted, "pass@k": ..., "pass^k": ...}``.

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import load_demo_result
        >>> result = load_demo_result()
        >>> ids = result.query_metrics("Reader").index[:2].tolist()
        >>> runs = pd.DataFrame({"multilabel_id": [ids[0]] * 3 + [ids[1]] * 3, "run": [1, 2, 3] * 2,
        ...                      "judge": [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]})
        >>> result.add_scores("Reader", runs, repetition="run")
        >>> result.pass_at_k("Reader", "judge", threshold=1.0, k=2)   # q1: 1 - C(1,2)/C(3,2) = 1, C(2,2)/C(3,2)
        {'k': 2, 'queries': 2, 'pass@k': 0.5, 'pass^k': 0.16666666666666666}
        """
        check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        node, found = self._repeated_scores(node, score)
        check_pass_options(found[score], threshold, k)  # before any task
        return pass_at_k_of(self.score_repetitions(node, [score], eval_mode)[score], found[score], threshold, k,
                            node=node)
