"""Power and sample size of the paired t-test: how large a change the queries can detect, and how many queries a
change needs.

The kernels are of the two-sided paired (one-sample) t-test of ``mean(d) == 0`` on ``n`` per-query differences, at
level ``alpha``, when the differences are normal with mean ``delta`` and standard deviation ``sd``: the statistic is
noncentral t with ``n - 1`` degrees of freedom and noncentrality ``d_z sqrt(n)``, ``d_z = delta / sd`` (Cohen's
standardized effect of paired data), so the power is

    P(T > t_{1 - alpha/2}) + P(T < -t_{1 - alpha/2}),   T ~ nct(n - 1, d_z sqrt(n)),

the formula of ``statsmodels.stats.power.TTestPower`` (G*Power's "t test, means, difference from constant"). The
minimum detectable effect at ``n`` is the ``d_z`` whose power is the asked one, times the pilot's ``sd``; the queries
needed for a change are the smallest whole ``n`` whose power reaches it. The roots are found by
``scipy.optimize.brentq`` to a relative ``4 * machine epsilon``, so that statsmodels' power function at them gives the
asked power to 1e-12 (statsmodels' own ``solve_power`` stops at a looser tolerance: its solved effects differ from
the exact root by up to about 1e-4 relative, and on 2 to 4 queries it may stop at a bracket's bound, elsewhere or at
NaN: 4.01 for the root 4.338 at 4 queries, alpha 0.01, power 0.9). Where scipy's ``nct.cdf`` is NaN far in the lower
tail (1 degree of freedom, noncentrality 8), the lower tail is read as ``nct.sf`` of the mirrored noncentrality.
scipy is imported inside the functions (``import evalframe`` loads none).

:func:`power` is ``evalframe.power``: these numbers for every measure of a pilot comparison of two runs (paired as
:func:`evalframe.compare` pairs them) or for given differences.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validation as check
from ..errors import InvalidParameterError, warn
from ..metrics.trec import aggregation_of, measure_texts
from ..options import MetricOptions, with_options
from .compare import (check_metric_parameters, is_result, measure_names, paired_differences, per_query_table,
                      run_names, select_metrics)
from .protocol import ResultLike

__all__ = ["power", "t_test_power", "detectable_effect", "queries_for", "check_levels", "power_row", "power_table",
           "MAX_QUERIES"]

#: The most queries :func:`queries_for` looks for; a change needing more is reported as needing more (inf).
MAX_QUERIES = 10**12


def check_levels(alpha: object, power: object) -> tuple[float, float]:
    """``alpha`` in (0, 1) and ``power`` in (alpha, 1), each refused by its name: a test at level alpha rejects a
    true null hypothesis with probability alpha, so no change is detected with a power at or below it.

    Examples
    --------
    >>> check_levels(0.05, 0.8)
    (0.05, 0.8)
    >>> check_levels(0.05, 1.5)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: power must be a probability in (alpha, 1) = (0.05, 1), the chance ...
    """
    alpha = _alpha_of(alpha)
    if isinstance(power, (bool, np.bool_)) or not isinstance(power, numbers.Real) or math.isnan(float(power)):
        raise InvalidParameterError(f"power must be a number in (alpha, 1), e.g. 0.8; got {power!r} of type "
                                    f"{type(power).__name__}.", parameter="power")
    power = float(power)
    if not alpha < power < 1.0:
        raise InvalidParameterError(
            f"power must be a probability in (alpha, 1) = ({alpha:g}, 1), the chance of detecting the change, e.g. "
            f"0.8; got {power!r}." + (" (A power at or below alpha is reached by no change at all.)"
                                      if 0.0 < power <= alpha else ""), parameter="power")
    return alpha, power


def _alpha_of(alpha: object) -> float:
    if (isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real) or math.isnan(float(alpha))
            or not 0.0 < float(alpha) < 1.0):
        raise InvalidParameterError(f"alpha must be a significance level in (0, 1), e.g. 0.05; got {alpha!r}.",
                                    parameter="alpha")
    return float(alpha)


def _queries_of(queries: object, name: str = "queries") -> int:
    if isinstance(queries, (bool, np.bool_)) or not isinstance(queries, numbers.Integral) or int(queries) < 2:
        raise InvalidParameterError(f"{name} must be a whole number of queries >= 2 (the t-test needs 2 to estimate "
                                    f"a spread); got {queries!r}.", parameter=check.parameter_of(name))
    return int(queries)


def _effect_of(effect: object, name: str = "effect") -> float:
    if (isinstance(effect, (bool, np.bool_)) or not isinstance(effect, numbers.Real)
            or not math.isfinite(float(effect)) or float(effect) <= 0):
        raise InvalidParameterError(
            f"{name} must be a finite number > 0, the size of the change (the test is two-sided: a change of -x is "
            f"detected as often as one of x); got {effect!r}.", parameter=check.parameter_of(name))
    return float(effect)


def _power(effect_size: float, n: float, alpha: float) -> float:
    """The power at a standardized effect ``effect_size`` >= 0 and ``n`` >= 2 queries (possibly fractional)."""
    from scipy import stats

    df = n - 1.0
    critical = float(stats.t.isf(alpha / 2.0, df))
    noncentrality = effect_size * math.sqrt(n)
    # P(T < -c) under nc is P(T > c) under -nc: scipy's nct.cdf is NaN far in that tail (df 1, nc 8), its sf is not
    return float(stats.nct.sf(critical, df, noncentrality) + stats.nct.sf(critical, df, -noncentrality))


def t_test_power(effect_size: float, queries: int, alpha: float = 0.05) -> float:
    """The power of the two-sided paired t-test at level ``alpha`` on ``queries`` differences whose mean is
    ``effect_size`` standard deviations (Cohen's d_z): ``TTestPower().power(effect_size, queries, alpha)``.

    Examples
    --------
    >>> round(t_test_power(0.0, 10, 0.05), 12)  # no change: rejected at the level
    0.05
    >>> round(t_test_power(0.5, 34, 0.05), 4)  # Cohen's medium effect with 34 pairs: about 80%
    0.8078
    """
    alpha = _alpha_of(alpha)
    n = _queries_of(queries)
    if (isinstance(effect_size, (bool, np.bool_)) or not isinstance(effect_size, numbers.Real)
            or not math.isfinite(float(effect_size))):
        raise InvalidParameterError(f"effect_size must be a finite number (the mean difference over its sd); got "
                                    f"{effect_size!r}.", parameter="effect_size")
    return _power(abs(float(effect_size)), n, alpha)


def _root(function: Any, low: float, high: float) -> float:
    from scipy import optimize

    return float(optimize.brentq(function, low, high, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))


def detectable_effect(queries: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest standardized change (d_z, the mean difference over its sd) that the two-sided paired t-test at
    level ``alpha`` on ``queries`` differences detects with probability ``power``:
    ``TTestPower().solve_power(nobs=queries, alpha=alpha, power=power)``.

    Examples
    --------
    >>> round(detectable_effect(34, 0.05, 0.8078), 3)
    0.5
    """
    alpha, power = check_levels(alpha, power)
    return _detectable_effect(_queries_of(queries), alpha, power)


@functools.lru_cache(maxsize=256)
def _detectable_effect(n: int, alpha: float, power: float) -> float:
    """:func:`detectable_effect` of checked levels, remembered: a report asks it of every measure of a node (the same
    ``n``), and each answer is a root search over the noncentral t distribution."""
    high = 1.0
    while _power(high, n, alpha) < power:  # the power rises with the effect, to 1
        high *= 2.0
    return _root(lambda effect: _power(effect, n, alpha) - power, 0.0, high)


def queries_for(effect_size: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The fewest queries (a whole number >= 2) on which the two-sided paired t-test at level ``alpha`` detects a
    standardized change ``effect_size`` (d_z > 0) with probability at least ``power``: the ceiling of
    ``TTestPower().solve_power(effect_size=effect_size, alpha=alpha, power=power)`` (which solves for a fractional
    number of queries). ``inf`` beyond :data:`MAX_QUERIES`.

    Examples
    --------
    >>> queries_for(0.5, 0.05, 0.8)  # Cohen's medium effect: 34 pairs give 80.8%, 33 give 79.7%
    34.0
    """
    alpha, power = check_levels(alpha, power)
    effect = _effect_of(effect_size, "effect_size")
    if _power(effect, 2, alpha) >= power:
        return 2.0
    from scipy import stats

    # the normal approximation n = ((z_{1-alpha/2} + z_power) / d)^2 is below the t-test's n: start above it
    normal = ((float(stats.norm.isf(alpha / 2)) + float(stats.norm.ppf(power))) / effect) ** 2
    high = max(4.0, 2.0 * normal + 8.0)
    while _power(effect, high, alpha) < power:
        if high > MAX_QUERIES:
            return math.inf
        high *= 2.0
    if high > 2 * MAX_QUERIES:
        return math.inf
    n = math.ceil(_root(lambda count: _power(effect, count, alpha) - power, 2.0, high))
    # the root is fractional; the answer is the first whole n reaching the power, checked on whole numbers
    while _power(effect, n, alpha) < power:
        n += 1
    while n > 2 and _power(effect, n - 1, alpha) >= power:
        n -= 1
    return float(n) if n <= MAX_QUERIES else math.inf


def power_row(d: np.ndarray, *, alpha: float, power: float, effect: float | None, queries: int | None,
              aggregation: str = "mean") -> dict[str, Any]:
    """One row of :func:`power` from the pilot's per-query differences ``d`` (finite), the levels checked.

    ``pilot_queries`` and ``sd`` (ddof 1) are the pilot's; ``queries`` is the number planned for (``queries``, or the
    pilot's); ``mde`` the detectable change at it (d_z times sd, in the differences' units); with ``effect`` also
    ``power_at_effect`` (at ``queries``) and ``queries_needed``. Fewer than 2 differences or an sd of 0 give NaN, the
    reason in ``note``.
    """
    n = len(d)
    row: dict[str, Any] = {"pilot_queries": n, "sd": math.nan, "queries": queries if queries is not None else n,
                           "mde": math.nan, "effect": math.nan if effect is None else effect,
                           "power_at_effect": math.nan, "queries_needed": math.nan, "note": ""}
    if n < 2:
        row["note"] = f"{n} paired quer{'y' if n == 1 else 'ies'}: the sd of the differences needs 2 or more"
        return row
    sd = float(np.std(d, ddof=1))
    row["sd"] = sd
    if sd == 0.0:
        row["note"] = f"every paired query's difference is {float(d[0]):g}: sd 0, no spread to plan from"
        return row
    planned = queries if queries is not None else n
    row["mde"] = detectable_effect(planned, alpha, power) * sd
    if effect is not None:
        row["power_at_effect"] = _power(effect / sd, planned, alpha)
        row["queries_needed"] = queries_for(effect / sd, alpha, power)
    if aggregation == "geometric_mean":
        row["note"] = ("a geometric mean: sd, mde and effect are of the per-query logs (a change of x multiplies the "
                       "number by e^x)")
    elif aggregation == "sum":
        row["note"] = "a sum: sd, mde and effect are per query (the sum changes by queries times it)"
    return row


def _effects(effect: float | Mapping[str, float] | None, metrics: Sequence[str]) -> dict[str, float | None]:
    if effect is None:
        return dict.fromkeys(metrics)
    if isinstance(effect, Mapping):
        unknown = [name for name in effect if name not in metrics]
        if unknown:
            raise InvalidParameterError(f"effect names {unknown!r}, which is not among the measures {list(metrics)}."
                                        f"{check.did_you_mean(unknown[0], list(metrics))}", parameter="effect")
        return {metric: (_effect_of(effect[metric], f"effect[{metric!r}]") if metric in effect else None)
                for metric in metrics}
    value = _effect_of(effect)
    return dict.fromkeys(metrics, value)


def power_table(items: Sequence[tuple[str, np.ndarray, str]], *, alpha: float, power: float,
                effect: float | Mapping[str, float] | None, queries: int | None) -> pd.DataFrame:
    """:func:`power`'s table from ``(metric, differences, aggregation)`` items, the arguments checked here."""
    alpha, power = check_levels(alpha, power)
    if queries is not None:
        queries = _queries_of(queries)
    effects = _effects(effect, [metric for metric, _, _ in items])
    rows = [power_row(d, alpha=alpha, power=power, effect=effects[metric], queries=queries, aggregation=aggregation)
            for metric, d, aggregation in items]
    columns = ["pilot_queries", "sd", "queries", "mde", "effect", "power_at_effect", "queries_needed", "note"]
    table = pd.DataFrame(rows, columns=columns, index=pd.Index([metric for metric, _, _ in items], name="metric"))
    table.attrs.update({"alpha": alpha, "power": power, "test": "paired t-test, two-sided"})
    return table


def _differences(values: object) -> tuple[str, np.ndarray]:
    """Given per-query differences: a 1-D array, list or Series (its name names the row), every value finite."""
    if isinstance(values, pd.DataFrame) or isinstance(values, (str, bytes, Mapping)) or isinstance(values, ResultLike):
        raise InvalidParameterError(
            f"a: with b omitted, a must be the per-query differences (a 1-D array, list or Series of b - a per query); "
            f"got {type(values).__name__}. To plan from two runs, pass both: power(run_a, run_b).", parameter="a")
    name = str(values.name) if isinstance(values, pd.Series) and values.name is not None else "difference"
    try:
        d = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"a: the per-query differences must be numbers; got {check.short_repr(values)}.",
                                    parameter="a") from None
    if d.ndim != 1:
        raise InvalidParameterError(f"a: the per-query differences must be 1-D (one per query); got shape {d.shape}.",
                                    parameter="a")
    bad = np.flatnonzero(~np.isfinite(d))
    if len(bad):
        raise InvalidParameterError(
            f"a: the per-query differences must be finite; position {int(bad[0])} is {float(d[bad[0]])!r} ({len(bad)} not "
            "finite in all). Leave out the queries either run did not score.", parameter="a")
    return name, d


def _node_of(runs: Sequence[Any], node: str | None) -> str | None:
    """``node`` checked against every result among ``runs`` (in memory or on Dask), or the one node they share."""
    results = [run for run in runs if isinstance(run, ResultLike)]
    if not results:
        return None
    if node is not None:
        for position, result in enumerate(results):
            check.check_node(node, list(result.nodes), name=f"node (run {'ab'[position]})")
        return node
    common = [name for name in results[0].nodes if all(name in result.nodes for result in results[1:])]
    if len(common) != 1:
        raise InvalidParameterError(f"node is needed: the runs share the nodes {common}; pass node=<one of them>."
                                    if common else "the runs share no node; pass node=<name>.", parameter="node")
    return common[0]


def _table_of(run: Any, node: str | None, params: dict[str, Any], name: str, measures: Sequence[str],
              trec: dict[str, Any]) -> pd.DataFrame:
    if isinstance(run, ResultLike) and not is_result(run):  # a result on Dask: its per-query table gathered
        return run.query_metrics(node, measures=list(measures) or None, compute=True,  # type: ignore[arg-type]
                                 **trec, **params)
    return per_query_table(run, node, params, name, measures, trec)


@with_options(MetricOptions)
def power(a: Any, b: Any = None, *, alpha: float = 0.05, power: float = 0.8,
          effect: float | Mapping[str, float] | None = None, queries: int | None = None, node: str | None = None,
          metrics: Sequence[str] | str | None = None, complete: bool = False, duplicates: str = "error",
          **metric_params: Any) -> pd.DataFrame:
    """How large a change the queries can detect, and how many queries a change needs: the paired t-test's power.

    From a pilot comparison of two runs (their per-query differences, paired as :func:`evalframe.compare` pairs
    them: by ``multilabel_id``, on the queries both scored) or from given per-query differences, per measure: the
    minimum detectable effect ``mde``, the change of the measure that the two-sided paired t-test at level ``alpha``
    detects with probability ``power`` on ``queries`` queries, when the per-query differences spread as in the
    pilot (their sd); with ``effect``, the power at that change and the queries it needs.

    Parameters
    ----------
    a, b : EvaluationResult, DaskEvaluationResult or pandas.DataFrame
        The pilot's runs (results, in memory or on Dask, or per-query tables indexed by multilabel_id), as
        :func:`evalframe.compare` takes them. With ``b`` omitted, ``a`` is the per-query differences themselves
        (a 1-D array, list or Series; a Series' name names the row).
    alpha : float
        The test's level, in (0, 1).
    power : float
        The probability of detecting the change, in (alpha, 1).
    effect : float or dict, optional
        A change to plan for, > 0 in the measure's units (one for every measure, or ``{measure: change}``):
        adds ``power_at_effect`` and ``queries_needed``.
    queries : int, optional
        The number of queries to plan for (>= 2); the pilot's paired queries by default.
    node, metrics, complete, duplicates
        As in :func:`evalframe.compare`: the node, the measures (Haystack metrics, trec_eval measures such as
        ``"nDCG@10"``, declared scores; all the runs share by default), and the trec_eval measures' options.
    **metric_params
        The metric options (:class:`evalframe.options.MetricOptions`), passed to ``query_metrics``.

    Returns
    -------
    pandas.DataFrame
        One row per measure: ``pilot_queries`` (the pilot's paired queries), ``sd`` (their differences' standard
        deviation, ddof 1), ``queries`` (planned for: ``queries`` or the pilot's), ``mde`` (the detectable change
        at ``queries``: the effect size d_z solving the power, times ``sd``), ``effect``, ``power_at_effect`` (at
        ``queries``) and ``queries_needed`` (the fewest queries reaching ``power`` at ``effect``; ``inf`` beyond
        10^12), NaN without ``effect``; ``note``: why a row is NaN (fewer than 2 paired queries, an sd of 0) or the
        scale of a measure that is no mean (trec_eval's geometric mean ``gm_map``: the per-query logs; a count's
        sum: per query). ``attrs`` holds ``alpha``, ``power`` and the test.

    Raises
    ------
    InvalidParameterError
        ``alpha`` or ``power`` out of range, ``effect`` <= 0, ``queries`` < 2, differences that are not finite,
        runs without a common query, an unknown measure.

    Examples
    --------
    >>> from evalframe import load_demo_result, power
    >>> result = load_demo_result()
    >>> top1 = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    >>> top5 = result.query_metrics("Retriever", simulated_top_k_retriever=5)
    >>> table = power(top1, top5, metrics="recall_single_hit", effect=0.25)  # 2 of 8 queries gain 1
    >>> table.loc["recall_single_hit", ["pilot_queries", "sd", "mde", "power_at_effect", "queries_needed"]].round(4)
    pilot_queries       8.0000
    sd                  0.4629
    mde                 0.5351
    power_at_effect     0.2625
    queries_needed     29.0000
    Name: recall_single_hit, dtype: float64
    >>> print(f"with 200 questions a change of {power(top1, top5, metrics='recall_single_hit', queries=200)['mde'].item():.3f}"
    ...       " in recall would be detected 80% of the time")
    with 200 questions a change of 0.092 in recall would be detected 80% of the time
    """
    alpha, power = check_levels(alpha, power)
    if queries is not None:
        queries = _queries_of(queries)
    if effect is not None and not isinstance(effect, Mapping):
        _effect_of(effect)
    if b is None:
        if isinstance(a, (ResultLike, pd.DataFrame)):
            raise InvalidParameterError(
                f"b is needed: a is a run ({type(a).__name__}), the pilot's baseline; pass the other run as b, or pass "
                "the per-query differences alone as a (a 1-D array, list or Series).", parameter="b")
        if metrics is not None or node is not None or metric_params:
            given = [name for name, value in (("metrics", metrics), ("node", node)) if value is not None]
            raise InvalidParameterError(
                f"{[*given, *sorted(metric_params)]}: the differences are given (b omitted), so no run is read; pass "
                "the runs as a and b, or leave these out.", parameter=([*given, *sorted(metric_params)])[0])
        name, d = _differences(a)
        return power_table([(name, d, "mean")], alpha=alpha, power=power, effect=effect, queries=queries)
    names = run_names(None, 2)
    for run, name in zip((a, b), names):
        if not (isinstance(run, ResultLike) or isinstance(run, pd.DataFrame)):
            raise InvalidParameterError(
                f"run {'ab'[names.index(name)]} must be an EvaluationResult (in memory or on Dask) or a per-query "
                f"DataFrame (result.query_metrics(node)); got {type(run).__name__}.", parameter="ab"[names.index(name)])
    check_metric_parameters(metric_params, caller="power")
    metrics = measure_texts(metrics)
    if not (metrics is None or isinstance(metrics, str)
            or (isinstance(metrics, Sequence) and all(isinstance(m, str) for m in metrics))):
        raise InvalidParameterError(f"metrics must be None, a metric name or a list of metric names; got {metrics!r}.",
                                    parameter="metrics")
    node = _node_of((a, b), node)
    measures: list[str] = []
    if metrics is not None:
        metrics, measures = measure_names([metrics] if isinstance(metrics, str) else metrics)
    trec = {"complete": complete, "duplicates": duplicates}
    tables = [_table_of(run, node, metric_params, name, measures, trec) for run, name in zip((a, b), names)]
    if not len(tables[0].index.intersection(tables[1].index)):
        raise InvalidParameterError(f"runs a and b have no query (multilabel_id) in common ({len(tables[0])} and "
                                    f"{len(tables[1])} queries); plan from runs over the same labels.")
    chosen = select_metrics(tables, metrics, ["a", "b"])
    items = []
    for metric in chosen:
        pair = paired_differences(tables[0][metric], tables[1][metric])
        if pair.only_a or pair.only_b:
            warn(f"{metric}: {pair.only_a} queries scored only in run a and {pair.only_b} only in run b; the pilot's "
                 f"sd is of the {len(pair.d)} queries both scored (as evalframe.compare pairs them).")
        items.append((metric, pair.d, aggregation_of(metric).name))
    return power_table(items, alpha=alpha, power=power, effect=effect, queries=queries)
