"""Is run B better than run A? Paired comparisons of per-query metrics, and the queries that changed most.

Both functions read the per-query tables of :meth:`EvaluationResult.query_metrics` (the numbers
``calculate_metrics`` averages) and pair the runs' queries by ``multilabel_id``. The statistics are in
:mod:`evalframe.analysis.stats`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from collections.abc import Sequence
from collections.abc import Mapping
from typing import Any, TypeGuard, Union

import numpy as np
import pandas as pd

from .. import _validation as check
from ..errors import EvalframeError, InvalidParameterError, warn
from ..metrics.registry import AGGREGATIONS, ANSWER_METRICS, DOCUMENT_METRICS, METRICS, Metric
from ..metrics.trec import (aggregation_of, direction_of, measure_texts, parse_measures, reads_as_written,
                             without_direction)
from ..frames.backends import as_backend
from ..options import ALL_PAIRS_TESTS, CompareOptions, MetricOptions, OutputOptions, with_options
from .all_pairs import ALL_PAIRS_COLUMNS, all_pairs_p_values, common_values, with_all_pairs_p_values
from .examples import Examples
from .protocol import QueryTable, ResultLike, ResultSource
from .resampling import resample_many
from .slice_compare import slice_codes, slice_counts, slice_members, table_labels, with_slices
from .slices import check_by
from .stats import (adjust_p_values, bootstrap_ci, bootstrap_p_value, paired_t_test, randomization_p_value,
                    sign_test_p_value, wilcoxon_p_value)

__all__ = ["compare", "table_of_rows", "paired_statistics", "paired_statistics_many", "paired_differences",
           "PairedDifferences", "paired_differences_many", "on_dask", "effect_size", "worst_by_delta", "is_result", "TESTS",
           "CORRECTION_COLUMNS", "FAMILY_LEVELS", "p_column_of", "add_correction", "warn_of_unpaired",
           "scores_of_runs", "directions_of", "labelled_tables", "sliced_table"]

Run = Union[ResultSource, pd.DataFrame, QueryTable]


def is_result(run: object) -> TypeGuard[ResultSource]:
    """Whether ``run`` is an EvaluationResult, recognised by its public interface (the one definition of it).

    The class is not imported here: the facade imports this stage, so importing it back would close an import
    circle.
    """
    return isinstance(run, Mapping) and isinstance(run, ResultLike)


COLUMNS = ("mean_a", "mean_b", "delta", "ci_low", "ci_high", "d_z", "improved", "p_value", "t", "p_ttest",
           "wins", "ties", "losses", "queries", "only_a", "only_b")

#: The paired tests whose p-value marks a delta significant (``test=``: :data:`evalframe.options.COMPARE_TESTS`, read by
#: :func:`evalframe.options.check_test`), and the column each one's p-value is in.
TESTS = {"randomization": "p_value", "t-test": "p_ttest", "wilcoxon": "p_wilcoxon", "sign": "p_sign",
         "bootstrap": "p_bootstrap", **ALL_PAIRS_COLUMNS}
#: The column of each correction over the runs of a metric (``correction=``: :data:`evalframe.options.COMPARE_CORRECTIONS`);
#: ``"none"`` adds none.
CORRECTION_COLUMNS = {"holm": "p_holm", "bonferroni": "p_bonferroni", "holm-sidak": "p_holm_sidak",
                      "fdr_bh": "p_fdr_bh", "fdr_by": "p_fdr_by", "none": None}


#: The index levels of each dimension a correction's family can span (``family=``).
FAMILY_LEVELS = {"runs": ("run", "run_a", "run_b"), "measures": ("metric",), "slices": ("slice",)}


def p_column_of(table: pd.DataFrame, test: str) -> str:
    """The column whose p-value ``significant`` reads in a comparison ``table``: its correction's, or ``test``'s.

    >>> p_column_of(pd.DataFrame(columns=["p_value", "p_wilcoxon", "p_fdr_bh"]), "wilcoxon")
    'p_fdr_bh'
    >>> p_column_of(pd.DataFrame(columns=["p_value", "p_ttest"]), "t-test")
    'p_ttest'
    """
    corrected = [column for column in CORRECTION_COLUMNS.values() if column is not None and column in table.columns]
    return corrected[0] if corrected else TESTS[test]


def _queries(count: int) -> str:
    return f"{count} quer{'y is' if count == 1 else 'ies are'}"


def check_metric_parameters(params: dict[str, Any], *, caller: str = "compare") -> None:
    """The metric options ``caller`` passes on to ``query_metrics``, checked before any run is read."""
    MetricOptions.from_keywords(params, passed_to=f"{caller} passes these on to query_metrics")


def on_dask(run: object) -> bool:
    """Whether ``run`` is a result on Dask (``evalframe.dask.load(folder)``): a result by its interface that is no
    in-memory EvaluationResult. :func:`compare` gathers its per-query tables to the client (one row per query)."""
    return isinstance(run, ResultLike) and not is_result(run)


def _nodes_of(result: Any) -> list[str]:
    return list(result) if is_result(result) else list(result.nodes)


def shared_nodes(runs: Sequence[Run]) -> list[str]:
    """The nodes every EvaluationResult among ``runs`` (in memory or on Dask) holds, in the first one's order."""
    results = [_nodes_of(run) for run in runs if is_result(run) or on_dask(run)]
    return [name for name in results[0] if all(name in result for result in results[1:])] if results else []


def shared_node(runs: Sequence[Run], node: str | None) -> str | None:
    """``node`` checked against every result among ``runs``, or the one node they share (None: only tables)."""
    results = [run for run in runs if is_result(run) or on_dask(run)]
    if not results:
        return None
    if node is not None:
        for position, result in enumerate(results):
            where = "node" if len(results) == 1 else f"node (run {position + 1})"
            check.check_node(node, _nodes_of(result), name=where)
        return node
    common = shared_nodes(results)
    if len(common) != 1:
        holder = "the result has" if len(results) == 1 else "the runs share"
        raise InvalidParameterError(
            f"node is needed: {holder} the nodes {common}; pass node=<one of them>." if common else
            "the runs share no node; pass node=<name> after checking each run's nodes."
        )
    return common[0]


#: Haystack's metrics by their lower-case names (``f1``), for a name written in another case (``F1``).
_HAYSTACK_FOLDED = {name.lower(): name for name in METRICS}


def measure_names(metrics: Sequence[str]) -> tuple[list[str], list[str]]:
    """``metrics`` with trec_eval measures in their canonical names (``P(rel=1)@5`` -> ``P@5``), and those measures.

    A name that is neither a Haystack metric nor a measure stays as it is (a column of a per-query table).
    """
    named: list[str] = []
    measures: list[str] = []
    for metric in metrics:
        haystack = _HAYSTACK_FOLDED.get(metric.lower()) if isinstance(metric, str) else None
        if haystack is not None and metric != haystack and not reads_as_written(metric):
            # F1: Haystack's f1, or ranx's f1 (SetF) in another case? Two names differing only by case: refused
            other = ", ".join(str(m) for m in parse_measures([metric]))
            raise InvalidParameterError(
                f"{metric!r} is Haystack's metric {haystack!r} and the measure {other} in other letter cases; write "
                f"the one you mean as it is spelled. Did you mean {haystack!r} (Haystack's) or {other!r}?",
                parameter="metrics")
        if metric not in METRICS:
            try:  # a trec_eval name may be several measures: P.5,10
                read = [str(measure) for measure in parse_measures([metric])]
                measures.extend(read)
                named.extend(read)
                continue
            except EvalframeError:
                pass
        named.append(metric)
    return named, measures


def per_query_table(run: Run, node: str | None, params: dict[str, Any], name: str,
                    measures: Sequence[str] = (), trec: dict[str, Any] | None = None) -> pd.DataFrame:
    if on_dask(run):  # a result on Dask: its per-query table gathered to the client
        gathered: Any = run
        if measures:
            return gathered.query_metrics(node, measures=list(measures), compute=True, **(trec or {}), **params)
        return gathered.query_metrics(node, compute=True, **params)
    if isinstance(run, QueryTable):  # a stored run: its table (its scores' directions are read by scores_of_runs)
        run = run.table
    if is_result(run):
        if measures:
            return run.query_metrics(node, measures=list(measures), **(trec or {}), **params)  # type: ignore[arg-type]
        return run.query_metrics(node, **params)  # type: ignore[arg-type]
    if isinstance(run, pd.DataFrame):
        if params:
            raise InvalidParameterError(
                f"run {name!r} is a per-query table, so {sorted(params)} cannot apply; compute the table with "
                "result.query_metrics(node, ...) using them, or pass the EvaluationResult."
            )
        missing = np.flatnonzero(pd.isna(run.index))
        if len(missing):  # a missing id names no query: it could only be paired by accident
            raise InvalidParameterError(
                f"run {name!r}: the per-query table's index has no query id at position {int(missing[0])} "
                f"({len(missing)} missing in all); index it by multilabel_id.")
        if run.index.has_duplicates:
            duplicated = run.index[run.index.duplicated()][0]
            raise InvalidParameterError(
                f"run {name!r}: the per-query table has query {duplicated!r} more than once; index it by multilabel_id."
            )
        return run
    raise InvalidParameterError(
        f"run {name!r} must be an EvaluationResult, a per-query DataFrame (result.query_metrics(node)) or a "
        f"QueryTable (a stored run: History(store).get(ref).run(node)); got {type(run).__name__}."
    )


def select_metrics(tables: Sequence[pd.DataFrame], metrics: Sequence[str] | str | None, names: Sequence[str],
             parameter: str = "metrics") -> list[str]:
    numeric = [{c for c in t.columns if pd.api.types.is_numeric_dtype(t[c]) and not pd.api.types.is_bool_dtype(t[c])}
               for t in tables]
    shared = [c for c in tables[0].columns if all(c in n for n in numeric)]
    if metrics is None:
        if not shared:
            raise InvalidParameterError(f"the runs {list(names)} have no metric column in common.")
        chosen = shared
    else:
        chosen = list(dict.fromkeys([metrics] if isinstance(metrics, str) else metrics))
        if not chosen:
            raise InvalidParameterError(f"{parameter} must name at least one metric; the runs share {shared}.",
                                        parameter=parameter)
        for metric in chosen:
            for table, kinds, name in zip(tables, numeric, names):
                if metric not in table.columns:
                    raise InvalidParameterError(
                        f"{parameter}: run {name!r} has no metric {metric!r}; the runs share {shared}."
                        f"{check.did_you_mean(metric, shared)}", parameter=parameter,
                    )
                if metric not in kinds:
                    raise InvalidParameterError(
                        f"{parameter}: column {metric!r} of run {name!r} is not numeric ({table[metric].dtype}); "
                        f"compare metric columns such as {shared[:3]}.", parameter=parameter,
                    )
    for metric in chosen:
        for table, name in zip(tables, names):
            infinite = np.isinf(table[metric].to_numpy(dtype=np.float64, na_value=np.nan))
            if infinite.any():
                raise InvalidParameterError(
                    f"{parameter}: run {name!r} has infinite {metric} for {int(infinite.sum())} queries (e.g. "
                    f"{table.index[infinite][0]!r}); metrics are finite, so check how that table was made."
                )
    return chosen


def run_names(names: Sequence[str] | None, count: int) -> list[str]:
    if names is None:
        return [chr(ord("A") + i) if i < 26 else f"run{i + 1}" for i in range(count)]
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise InvalidParameterError(f"names must be a list of {count} distinct names, one per run; got {names!r}.",
                                    parameter="names")
    names = [str(n) for n in names]
    if len(names) != count or len(set(names)) != count:
        raise InvalidParameterError(f"names must be {count} distinct names, one per run; got {names}.",
                                    parameter="names")
    return names


@dataclass(frozen=True)
class Paired:
    """One metric of two runs on the queries both scored (not NaN), paired by multilabel_id in a's order."""

    a: pd.Series
    b: pd.Series
    only_a: int  # queries scored by a only
    only_b: int


def paired(a: pd.Series, b: pd.Series) -> Paired:
    scored_a, scored_b = a.dropna(), b.dropna()
    both = scored_a.index.intersection(scored_b.index, sort=False)
    return Paired(scored_a.loc[both], scored_b.loc[both], len(scored_a) - len(both), len(scored_b) - len(both))


def scores_of_runs(runs: Sequence[Any]) -> dict[str, Metric]:
    """The score declarations of ``runs`` (a result's or a QueryTable's ``scores``; a plain DataFrame declares none), for
    :func:`evalframe.direction_of`. Two runs declaring one score with opposite directions are refused."""
    found: dict[str, Metric] = {}
    for run in runs:
        declared = getattr(run, "scores", None)
        for name, metric in (declared.items() if isinstance(declared, Mapping) else ()):
            if not isinstance(metric, Metric):
                continue
            if name in found and found[name].direction != metric.direction:
                raise InvalidParameterError(f"the runs declare score {name!r} with opposite directions "
                                            f"({found[name].direction!r} and {metric.direction!r}); declare it alike "
                                            "in both (result.scores).")
            found.setdefault(name, metric)
    return found


def directions_of(metrics: Sequence[str], scores: Mapping[str, Metric]) -> dict[str, str]:
    """Each compared metric's direction (:func:`evalframe.direction_of`); a column of per-query tables that is no
    measure of the registry nor a declared score is refused, naming it: counting its wins either way could be
    wrong."""
    directions = {}
    for metric in metrics:
        try:
            directions[metric] = direction_of(metric, scores)
        except InvalidParameterError:
            raise InvalidParameterError(
                f"metrics: column {metric!r} of the per-query tables is no metric or measure of evalframe's registry "
                "and no declared score, so which way it is better (and so its wins and losses) is not known; leave it "
                "out (metrics=[...]) or compare the results with it declared as a score (result.add_scores(node, "
                "table, direction='higher' | 'lower' | 'none')).", parameter="metrics") from None
    return directions


@dataclass(frozen=True)
class PairedDifferences:
    """What one row of :func:`compare` is computed from: the paired differences of one metric of two runs.

    ``d`` holds ``b - a`` per paired query (in a's order) of what each value adds to the runs' numbers (the
    measure's :meth:`~evalframe.metrics.registry.Aggregation.summands`); ``mean_a`` / ``mean_b`` are those numbers;
    ``only_a`` / ``only_b`` count the queries scored by one run only.
    """

    d: np.ndarray
    mean_a: float
    mean_b: float
    only_a: int
    only_b: int
    direction: str = "higher"
    aggregation: str = "mean"


def paired_differences(a: pd.Series, b: pd.Series, direction: str = "higher") -> PairedDifferences:
    """One metric of two runs (per-query Series named by the metric) paired as :func:`compare` pairs them."""
    pairs = paired(a, b)
    values_a = pairs.a.to_numpy(dtype=np.float64)
    values_b = pairs.b.to_numpy(dtype=np.float64)
    # each run's number is the measure's own aggregation (trec_eval's geometric mean of gm_map, the sum of num_ret),
    # the mean for the others; the tests and the interval are of the per-query differences of what each value adds
    # to that number (the value, or its floored log for a geometric mean), the interval then carried to delta's scale
    aggregation = aggregation_of(a.name)
    d = aggregation.summands(values_b) - aggregation.summands(values_a)
    mean_a = aggregation(values_a) if len(d) else np.nan
    mean_b = aggregation(values_b) if len(d) else np.nan
    return PairedDifferences(d, mean_a, mean_b, pairs.only_a, pairs.only_b, direction, aggregation.name)


def paired_differences_many(tables: Sequence[pd.DataFrame], positions: Sequence[tuple[int, int]],
                            metrics: Sequence[str], directions: Mapping[str, str]) -> list[PairedDifferences]:
    """:func:`paired_differences` of every metric of every pair ``(i, j)`` of ``tables`` (per-query tables without a
    query twice), in that order: the queries are matched once, by one code per query id over all tables, instead of
    by an index lookup per pair and metric.

    >>> a = pd.DataFrame({"f1": [1.0, 0.5, np.nan]}, index=["q1", "q2", "q3"])
    >>> b = pd.DataFrame({"f1": [0.0, 1.0, 1.0]}, index=["q2", "q1", "q4"])
    >>> item, = paired_differences_many([a, b], [(0, 1)], ["f1"], {"f1": "higher"})
    >>> item.d.tolist(), item.only_a, item.only_b  # q1 and q2 in a's order; q4 only in b (q3 is NaN in a)
    ([0.0, -0.5], 0, 1)
    """
    codes, uniques = pd.factorize(pd.Index(np.concatenate([np.asarray(t.index, dtype=object) for t in tables])))
    bounds = np.cumsum([0, *(len(t) for t in tables)])
    rows_of = []  # per table: its row of each query code, -1 where it has no such query
    for position in range(len(tables)):
        rows = np.full(len(uniques), -1, dtype=np.int64)
        rows[codes[bounds[position]:bounds[position + 1]]] = np.arange(len(tables[position]))
        rows_of.append(rows)
    items = []
    for i, j in positions:
        in_j = rows_of[j][codes[bounds[i]:bounds[i + 1]]]  # each query of i (in i's order): its row in j
        for metric in metrics:
            values_i = tables[i][metric].to_numpy(dtype=np.float64, na_value=np.nan)
            values_j = tables[j][metric].to_numpy(dtype=np.float64, na_value=np.nan)
            scored_i, scored_j = ~np.isnan(values_i), ~np.isnan(values_j)
            both = scored_i & (in_j >= 0)
            both[both] = scored_j[in_j[both]]
            values_a, values_b = values_i[both], values_j[in_j[both]]
            aggregation = aggregation_of(metric)
            d = aggregation.summands(values_b) - aggregation.summands(values_a)
            paired_count = len(d)
            items.append(PairedDifferences(
                d, aggregation(values_a) if paired_count else np.nan, aggregation(values_b) if paired_count else np.nan,
                int(scored_i.sum()) - paired_count, int(scored_j.sum()) - paired_count, directions[metric],
                aggregation.name))
    return items


def paired_statistics_many(items: Sequence[PairedDifferences], *, seed: int, rounds: int, confidence: float,
                           zero_method: str = "wilcox") -> list[dict[str, Any]]:
    """The rows of :func:`compare` (as :func:`paired_statistics` describes them) of all ``items`` at once.

    The resampling (the bootstrap interval, the bootstrap test, the randomization test) is
    :func:`evalframe.analysis.resampling.resample_many`'s: the rows with the same number of paired queries share one
    draw seeded by ``seed`` and that number, so equal differences give equal numbers, whatever else is compared, and
    the same seed the same numbers.
    """
    resampled = resample_many([item.d for item in items], seed=seed, rounds=rounds, confidence=confidence)
    return [_row(item.d, item.mean_a, item.mean_b, item.only_a, item.only_b,
                 *(float(resampled[name][position]) for name in ("ci_low", "ci_high", "p_value", "p_bootstrap")),
                 direction=item.direction, aggregation=item.aggregation, zero_method=zero_method)
            for position, item in enumerate(items)]


def effect_size(d: np.ndarray) -> float:
    """Cohen's d_z of the paired differences: ``mean(d) / sd(d)`` (sample standard deviation, ddof 1).

    NaN below 2 differences or for a non-finite one; when every difference is equal (sd 0), 0.0 if they are 0 and
    ``±inf`` otherwise, as the t statistic (``t = d_z * sqrt(n)``).

    Examples
    --------
    >>> effect_size(np.array([0.0, 0.5, 1.0, 0.5]))  # mean .5, sd .408...
    1.224744871391589
    """
    if len(d) < 2 or not np.isfinite(d).all():
        return np.nan
    if np.all(d == d[0]):  # sd 0 (computed, it may be a rounding error above 0)
        return 0.0 if d[0] == 0.0 else math.copysign(math.inf, d[0])
    return float(d.mean()) / float(d.std(ddof=1))


def _row(d: np.ndarray, mean_a: float, mean_b: float, only_a: int, only_b: int, low: float, high: float,
         p_value: float, p_bootstrap: float, *, direction: str, aggregation: str, zero_method: str) -> dict[str, Any]:
    if len(d):
        low, high = AGGREGATIONS[aggregation].interval(low, high, len(d), mean_a)
    t, p_ttest = paired_t_test(d)
    wins: float = np.nan  # a count (direction "none"): neither a higher nor a lower value is better, no query won or lost
    losses: float = np.nan
    improved: float = np.nan
    if direction != "none":
        better = {"higher": 1, "lower": -1}[direction]
        wins, losses = int(np.count_nonzero(better * d > 0)), int(np.count_nonzero(better * d < 0))
        improved = wins / len(d) if len(d) else np.nan
    return {
        "mean_a": mean_a, "mean_b": mean_b, "delta": mean_b - mean_a, "ci_low": low, "ci_high": high,
        "d_z": effect_size(d), "improved": improved,
        "p_value": p_value, "t": t, "p_ttest": p_ttest, "p_wilcoxon": wilcoxon_p_value(d, zero_method=zero_method),
        "p_sign": sign_test_p_value(d), "p_bootstrap": p_bootstrap,
        "wins": wins, "ties": int(np.count_nonzero(d == 0)), "losses": losses,
        "queries": len(d), "only_a": only_a, "only_b": only_b,
    }


def paired_statistics(d: np.ndarray, mean_a: float, mean_b: float, only_a: int, only_b: int, *,
                      rng: np.random.Generator, rounds: int, confidence: float, direction: str = "higher",
                      aggregation: str = "mean", zero_method: str = "wilcox") -> dict[str, Any]:
    """One row of :func:`compare`: the statistics of the paired differences ``d = b - a`` (in a's query order).

    ``mean_a`` / ``mean_b`` are the runs' numbers over the paired queries (the measure's ``aggregation``: the mean, the
    sum of a count, trec_eval's geometric mean); ``d`` the per-query differences of what each value adds to that
    number (:meth:`~evalframe.metrics.registry.Aggregation.summands`: the values, or for a geometric mean their
    floored logs); ``only_a`` / ``only_b`` count the queries scored by one run only. ``delta`` is
    ``mean_b - mean_a``; the tests are of ``mean(d) == 0``, which holds exactly when ``delta`` is 0 (for a sum, n
    times the mean; for a geometric mean, ``mean(d)`` is the log of ``mean_b / mean_a``), and the bootstrap interval
    of ``mean(d)`` is carried to ``delta``'s scale (:meth:`~evalframe.metrics.registry.Aggregation.interval`): the
    interval, the p-values and ``delta`` are about one quantity. The bootstrap draws first (its means give the
    interval), then the randomization test, then the bootstrap test ``p_bootstrap``, from ``rng`` (:func:`compare`
    computes its rows with :func:`paired_statistics_many` instead, whose draws are shared by rows). ``wins`` counts
    the queries where b is better (``d`` above 0: a higher value, or below 0 for a lower-is-better measure,
    ``direction``); a measure without a direction (``"none"``: a count) has no wins and no losses (NaN), its ties
    still counted. ``improved`` is ``wins / queries`` (NaN without a direction), ``d_z`` Cohen's effect size
    (:func:`effect_size`). ``p_wilcoxon`` treats zero differences as ``zero_method`` says, ``p_sign`` drops them.
    """
    low, high = bootstrap_ci(d, confidence=confidence, rounds=rounds, rng=rng)
    p_value = randomization_p_value(d, rounds=rounds, rng=rng) if len(d) else np.nan
    p_bootstrap = bootstrap_p_value(d, rounds=rounds, rng=rng)
    return _row(d, mean_a, mean_b, only_a, only_b, low, high, p_value, p_bootstrap, direction=direction,
                aggregation=aggregation, zero_method=zero_method)


def table_of_rows(rows: Sequence[tuple[tuple[str, str, str], dict[str, Any]]], names: Sequence[str], *,
                  test: str = "randomization", max_p: float | None = None, correction: str = "holm",
                  pairs: str = "first", family: Sequence[str] = ("runs",), warn_unpaired: bool = True) -> pd.DataFrame:
    """:func:`compare`'s table from its rows ``((run_a, run_b, metric), paired_statistics row)``, warning of unpaired
    queries.

    The columns are :data:`COLUMNS`, and after ``p_ttest`` the column of ``test`` when it is another
    (``p_wilcoxon``, ``p_sign``). The index is ``metric`` (two runs, each compared with the first), ``(run, metric)``
    (more runs) or ``(run_a, run_b, metric)`` (``pairs="all"``). The p-value of ``test`` corrected by ``correction``
    within each family (the comparisons sharing the levels ``family`` does not span: :data:`FAMILY_LEVELS`) is in
    the column :data:`CORRECTION_COLUMNS` names (``p_holm`` by default; none for ``"none"``, nor when every family
    holds one comparison; with a test of all pairs, :data:`evalframe.options.ALL_PAIRS_TESTS`, whose p-values are
    adjusted over the pairs of each metric already, the family spans the measures or nothing); with ``max_p`` the
    column ``significant`` says whether the p-value :func:`p_column_of` names is at most ``max_p``.
    ``warn_unpaired=False``: the caller warns of the unpaired queries (the rows of slices, :func:`sliced_table`, warn
    once per comparison).
    """
    for (first, name, metric), row in (rows if warn_unpaired else ()):
        warn_of_unpaired(first, name, metric, row["only_a"], row["only_b"], row["queries"])
    columns = list(COLUMNS)
    if TESTS[test] not in columns:
        columns.insert(columns.index("p_ttest") + 1, TESTS[test])
    table = pd.DataFrame([{column: row[column] for column in columns} for _, row in rows], columns=columns)
    if pairs == "all":
        table.index = pd.MultiIndex.from_tuples([key for key, _ in rows], names=["run_a", "run_b", "metric"])
    elif len(names) == 2:
        table.index = pd.Index([metric for (_, _, metric), _ in rows], name="metric")
    else:
        table.index = pd.MultiIndex.from_tuples([(name, metric) for (_, name, metric), _ in rows],
                                                names=["run", "metric"])
    add_correction(table, test=test, correction=correction, family=family, max_p=max_p)
    return table


def warn_of_unpaired(first: str, name: str, metric: str, only_a: int, only_b: int, queries: int) -> None:
    """Warn that ``metric`` has queries scored by one of the runs ``first`` and ``name`` only (none: no warning)."""
    if only_a or only_b:
        warn(f"{metric}: {_queries(only_a)} scored only in {first!r} and {only_b} only in {name!r}; the statistics "
             f"use the {queries} queries both scored (see columns only_a / only_b).")


def add_correction(table: pd.DataFrame, *, test: str, correction: str, family: Sequence[str],
                   max_p: float | None) -> None:
    """Add to a comparison ``table`` the column of ``test``'s p-value corrected by ``correction`` within each family
    (the rows sharing the index levels ``family`` does not span, :data:`FAMILY_LEVELS`; none when every family holds
    one row) and with ``max_p`` the column ``significant`` (the p-value :func:`p_column_of` names is at most it)."""
    corrected = CORRECTION_COLUMNS[correction]
    if test in ALL_PAIRS_TESTS:  # adjusted over the pairs of each metric already: a correction spans the measures only
        family = ("measures",) if "measures" in family else ()
    spanned = {level for dimension in family for level in FAMILY_LEVELS[dimension]}
    held = [level for level in table.index.names if level not in spanned]  # a family: one value of each of these
    families = (list(table.groupby(held, sort=False, dropna=False).indices.values()) if held
                else [np.arange(len(table))])
    if corrected is not None and any(len(members) > 1 for members in families):
        p = table[TESTS[test]].to_numpy(dtype=np.float64)
        adjusted = np.full(len(table), np.nan)
        for members in families:
            adjusted[members] = adjust_p_values(p[members], correction)
        table[corrected] = adjusted
    if max_p is not None:  # NaN (no pair of queries) is never significant
        table["significant"] = (table[p_column_of(table, test)] <= max_p).to_numpy(dtype=bool)


@with_options(CompareOptions, MetricOptions, OutputOptions, documented=(CompareOptions, OutputOptions))
def compare(a: Run, b: Run, *others: Run, **options: Any) -> Any:
    """Compare runs on the same queries: means, the paired delta, its confidence interval and p-values.

    Queries are paired by ``multilabel_id``; the statistics use the queries that both runs scored.
    Queries scored by one run only are counted in ``only_a`` / ``only_b`` and announced with a
    warning, never dropped silently.

    Parameters
    ----------
    a, b, *others : EvaluationResult or pandas.DataFrame
        The runs: results (their :meth:`~EvaluationResult.query_metrics` are compared) or per-query
        tables indexed by multilabel_id. With more than two runs each is compared with ``a``.
    **metric_params
        The metric options (:class:`evalframe.options.MetricOptions`), passed to ``query_metrics``.

    Returns
    -------
    pandas.DataFrame
        One row per metric (two runs) or per (run, metric) (more runs), with columns ``mean_a`` and
        ``mean_b`` (the runs' numbers over the paired queries: the mean, or the measure's own aggregation,
        trec_eval's geometric mean of ``gm_map`` and the sum of the counts), ``delta`` (mean_b - mean_a), ``ci_low`` /
        ``ci_high`` (percentile bootstrap interval of the delta: of the mean difference, n times it for a sum, of
        the log ratio carried to b - a for a geometric mean; the tests are of the same quantity), ``d_z`` (Cohen's
        effect size of the paired differences d, ``mean(d) / sd(d)`` with the sample sd, ddof 1: NaN below 2 queries;
        0 when every difference is 0, ``±inf`` when all are equal and not 0; :func:`effect_size`), ``improved`` (the
        share of the paired queries where b is better, ``wins / queries``; NaN for a count, direction ``"none"``),
        ``p_value`` (two-sided paired randomization test: ``(1 + #{rounds with |sum of sign-flipped d| >= |sum of
        d|}) / (rounds + 1)``), ``t`` and ``p_ttest`` (paired t-test), ``wins`` / ``ties`` / ``losses``
        (queries where b scores better / the same / worse: higher, or lower for a measure where lower is better,
        ``unj@10`` or a score declared so, :func:`evalframe.direction_of`; ``delta`` stays b - a, negative for such a
        measure's improvement; NaN wins and losses for a count such as ``NumRet``, whose direction is ``"none"``;
        a column of per-query tables that is no measure of the registry nor a declared score is refused, its
        direction unknown), ``queries``
        (paired), ``only_a``,
        ``only_b``; with ``test="wilcoxon"``, ``"sign"`` or ``"bootstrap"`` also its p-value, ``p_wilcoxon``, ``p_sign``
        or ``p_bootstrap`` (after ``p_ttest``; the bootstrap test of ``mean(d) == 0`` by the shift method: ``d -
        mean(d)`` resampled, ``(1 + #{rounds with |mean*| >= |mean(d)|}) / (rounds + 1)``, Efron and Tibshirani 1993
        section 16.4, Sakai 2006; NaN below 2 queries); with ``test="tukey"`` or ``"randomized-tukey"`` (all pairs,
        indexed ``(run_a, run_b, metric)``) ``p_tukey`` or ``p_randomized_tukey``, a test of all pairs of each metric
        at once on the queries every run scored (``queries`` still counts each pair's paired queries, the other
        columns' basis; :mod:`evalframe.analysis.all_pairs`); with more than two runs also ``p_holm``: ``test``'s p-value
        Holm-corrected over the
        comparisons of each metric (another ``correction``: ``p_bonferroni``, ``p_holm_sidak``, ``p_fdr_bh``,
        ``p_fdr_by``, or no column for ``"none"``); with ``max_p`` also ``significant``. With ``by``, a first index
        level ``slice`` and one row per slice and comparison, each over the slice's queries
        (:mod:`evalframe.analysis.slice_compare`).

    Examples
    --------
    >>> from evalframe import compare, load_demo_result
    >>> result = load_demo_result()
    >>> top1 = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    >>> top5 = result.query_metrics("Retriever", simulated_top_k_retriever=5)
    >>> table = compare(top1, top5, metrics="recall_single_hit")
    >>> table[["mean_a", "mean_b", "wins", "ties", "losses", "only_a", "only_b"]]
                       mean_a  mean_b  wins  ties  losses  only_a  only_b
    metric
    recall_single_hit   0.625   0.875     2     6       0       0       0
    >>> table[["delta", "d_z", "improved"]].round(4)  # 2 of 8 queries gained 1: mean .25, sd .4629
                       delta     d_z  improved
    metric
    recall_single_hit   0.25  0.5401      0.25

    The resampled numbers (``ci_low``, ``ci_high``, ``p_value``, ``p_bootstrap``) come from ``rounds`` draws seeded
    ``seed``, shared by the rows with the same number of paired queries (:mod:`evalframe.analysis.resampling`): equal
    per-query differences give equal numbers, whatever else is compared.
    """
    runs = [a, b, *others]
    check.check_keywords(options, (*CompareOptions.option_names(), *MetricOptions.names(), *OutputOptions.option_names()),
                         passed_to="compare takes these options")
    output, options = OutputOptions.take(options)
    names = run_names(options.get("names"), len(runs))
    for run, name in zip(runs, names):  # before shared_node, which would only see the results among them
        if not (is_result(run) or on_dask(run) or isinstance(run, (pd.DataFrame, QueryTable))):
            raise InvalidParameterError(
                f"run {name!r} must be an EvaluationResult, a per-query DataFrame (result.query_metrics(node)) or a "
                f"QueryTable (a stored run: History(store).get(ref).run(node)); got {type(run).__name__}."
            )
    metrics = measure_texts(options.get("metrics"))  # ir_measures' measure objects: their names
    if not (metrics is None or isinstance(metrics, str)
            or (isinstance(metrics, Sequence) and all(isinstance(m, str) for m in metrics))):
        raise InvalidParameterError(f"metrics must be None, a metric name or a list of metric names; got {metrics!r}.")
    chosen: CompareOptions
    chosen, metric_params = CompareOptions.take(options)
    check_metric_parameters(metric_params)
    rounds, confidence, seed, complete, duplicates = (chosen.rounds, chosen.confidence, chosen.seed, chosen.complete,
                                                      chosen.duplicates)
    node = shared_node(runs, chosen.node)
    measures: list[str] = []
    if metrics is not None:
        metrics, measures = measure_names([metrics] if isinstance(metrics, str) else metrics)
    trec = {"complete": complete, "duplicates": duplicates}
    if chosen.by is not None:  # the statistics per slice
        tables, labels = labelled_tables(runs, names, node, chosen.by, metric_params, measures, trec)
    else:
        tables = [per_query_table(run, node, metric_params, name, measures, trec) for run, name in zip(runs, names)]
    for table, name in zip(tables[1:], names[1:]):
        if not len(tables[0].index.intersection(table.index)):
            raise InvalidParameterError(
                f"runs {names[0]!r} and {name!r} have no query (multilabel_id) in common ({len(tables[0])} and "
                f"{len(table)} queries); compare runs over the same labels."
            )
    metrics = select_metrics(tables, metrics, names)
    directions = directions_of(metrics, scores_of_runs(runs))

    positions = (list(itertools.combinations(range(len(runs)), 2)) if chosen.pairs == "all"
                 else [(0, position) for position in range(1, len(runs))])
    if chosen.by is not None:
        family = chosen.family if "family" in options else ("runs", "slices")
        return as_backend(sliced_table(tables, labels, names, positions, metrics, directions, chosen, family),
                          output.backend)
    keys = [(names[i], names[j], metric) for i, j in positions for metric in metrics]
    items = paired_differences_many(tables, positions, metrics, directions)
    statistics = paired_statistics_many(items, seed=seed, rounds=rounds, confidence=confidence,
                                        zero_method=chosen.zero_method)
    if chosen.test in ALL_PAIRS_TESTS:  # one test of all pairs per metric, on the queries every run scored
        p_values = {metric: all_pairs_p_values(common_values(tables, metric), chosen.test, rounds=rounds, seed=seed)
                    for metric in metrics}
        statistics = with_all_pairs_p_values(keys, statistics, names, p_values, chosen.test)
    return as_backend(table_of_rows(list(zip(keys, statistics)), names, test=chosen.test, max_p=chosen.max_p,
                                    correction=chosen.correction, pairs=chosen.pairs, family=chosen.family),
                      output.backend)


def labelled_tables(runs: Sequence[Run], names: Sequence[str], node: str | None, by: Any,
                    params: Mapping[str, Any], measures: Sequence[str],
                    trec: dict[str, Any]) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Each run's per-query table (as :func:`compare` reads it) and its slice labels (one column per key of ``by``,
    index multilabel_id): a result's from ``query_metrics(node, by=by)``, a per-query table's from its own columns
    (then no metric), a callable over it, a Series or dict (:func:`evalframe.analysis.slice_compare.table_labels`)."""
    keys = check_by(by)
    tables, labels = [], []
    for run, name in zip(runs, names):
        if is_result(run) or on_dask(run):
            table = per_query_table(run, node, {**params, "by": keys}, name, measures, trec)
            labels.append(table.iloc[:, :len(keys)])
            tables.append(table.iloc[:, len(keys):])
        else:
            found, table = table_labels(per_query_table(run, node, dict(params), name, measures, trec), keys, name)
            labels.append(found)
            tables.append(table)
    return tables, labels


def sliced_table(tables: Sequence[pd.DataFrame], labels: Sequence[pd.DataFrame], names: Sequence[str],
                 positions: Sequence[tuple[int, int]], metrics: Sequence[str], directions: Mapping[str, str],
                 chosen: CompareOptions, family: Sequence[str]) -> pd.DataFrame:
    """:func:`compare`'s table per slice (``by=``, :mod:`evalframe.analysis.slice_compare`): index ``(slice,
    metric)`` (two runs), ``(slice, run, metric)`` or ``(slice, run_a, run_b, metric)``; each row the statistics of
    the slice's queries paired in the runs ``positions`` names, the correction over ``family``. One warning per
    comparison with unpaired queries, as without slices."""
    codes, slices = slice_codes(labels, names)
    count = len(slices)
    per_comparison = []
    for i, j in positions:
        for metric in metrics:
            pairs = paired(tables[i][metric], tables[j][metric])
            warn_of_unpaired(names[i], names[j], metric, pairs.only_a, pairs.only_b, len(pairs.a))
            only_a = slice_counts(codes, tables[i][metric].dropna().index.difference(pairs.a.index), count)
            only_b = slice_counts(codes, tables[j][metric].dropna().index.difference(pairs.a.index), count)
            aggregation = aggregation_of(metric)
            values_a, values_b = pairs.a.to_numpy(dtype=np.float64), pairs.b.to_numpy(dtype=np.float64)
            d = aggregation.summands(values_b) - aggregation.summands(values_a)
            members = slice_members(codes.reindex(pairs.a.index).to_numpy(dtype=np.int64), count)
            per_comparison.append([((names[i], names[j], metric), PairedDifferences(
                d[m], aggregation(values_a[m]) if len(m) else np.nan, aggregation(values_b[m]) if len(m) else np.nan,
                int(only_a[code]), int(only_b[code]), directions[metric], aggregation.name))
                for code, m in enumerate(members)])
    ordered = [items[code] for code in range(count) for items in per_comparison]  # slice by slice
    statistics = paired_statistics_many([item for _, item in ordered], seed=chosen.seed, rounds=chosen.rounds,
                                        confidence=chosen.confidence, zero_method=chosen.zero_method)
    table = table_of_rows([(key, row) for (key, _), row in zip(ordered, statistics)], names, test=chosen.test,
                          correction="none", pairs=chosen.pairs, warn_unpaired=False)
    table = with_slices(table, slices, len(per_comparison))
    add_correction(table, test=chosen.test, correction=chosen.correction, family=family, max_p=chosen.max_p)
    return table


@with_options(MetricOptions)
def worst_by_delta(
    a: ResultSource,
    b: ResultSource,
    node: str,
    metric: str,
    n: int = 10,
    direction: str = "worse",
    *,
    complete: bool = False,
    duplicates: str = "error",
    **metric_params: Any,
) -> Examples:
    """The ``n`` queries whose ``metric`` changed most from run ``a`` to run ``b``.

    ``metric`` is a Haystack metric, a trec_eval measure (``"nDCG@10"``, :meth:`EvaluationResult.trec_metrics`,
    whose ``complete`` and ``duplicates`` it takes) or a score the runs declare (``result.scores``).

    "Worse" and "better" follow the metric's direction (:func:`evalframe.direction_of`): for a measure where lower
    is better (``unj@10``, a score declared so, latency) a rise is a drop in quality; ``delta`` is always b - a. A
    count (direction ``"none"``: ``NumRet``) is neither worse nor better and is refused.

    ``direction="worse"`` lists the largest drops (b < a) first, ``"better"`` the largest gains; queries
    whose value did not move in that direction are not listed, and ties keep a's query order. Each query
    is a dict shaped like :meth:`EvaluationResult.wrong_examples` for run ``b`` (``multilabel_id``,
    ``query``, ``filters``, ``metrics``, ``answers`` or ``documents``, gold answers / ids) plus
    ``delta`` and ``baseline``: run ``a``'s ``metrics`` and rows. The list is an
    :class:`evalframe.analysis.examples.Examples`: it prints a few lines per query.

    Examples
    --------
    >>> from evalframe import load_demo_result, worst_by_delta
    >>> result = load_demo_result()
    >>> [e["delta"] for e in worst_by_delta(result, result, "Reader", "f1")]  # nothing changed
    []
    """
    for position, run in enumerate((a, b)):
        if not is_result(run):
            raise InvalidParameterError(
                f"worst_by_delta needs EvaluationResults (it lists the queries' rows); run {'ab'[position]!r} is "
                f"{type(run).__name__}."
            )
    check_metric_parameters(metric_params, caller="worst_by_delta")
    node = shared_node([a, b], node)  # type: ignore[assignment]
    metric = measure_texts(metric)
    if not isinstance(metric, str):
        raise InvalidParameterError(f"metric must be a metric name, e.g. 'f1' or 'nDCG@10'; got {metric!r}.")
    (metric,), measures = measure_names([metric])
    scores = scores_of_runs([a, b])
    if not measures:
        check.check_choice(metric, (*METRICS, *scores), name="metric")
    better = direction_of(metric, scores)
    if better == "none":
        raise without_direction(metric, scores, "no worse or better queries")
    n = check.check_positive_int(n, name="n", minimum=1)
    check.check_choice(direction, ("worse", "better"), name="direction")
    trec = {"complete": complete, "duplicates": duplicates}
    table_a = per_query_table(a, node, metric_params, "a", measures, trec)
    table_b = per_query_table(b, node, metric_params, "b", measures, trec)
    select_metrics([table_a, table_b], [metric], ["a", "b"], parameter="metric")

    pairs = paired(table_a[metric], table_b[metric])
    delta = pairs.b - pairs.a
    gain = delta if better == "higher" else -delta  # a lower-is-better measure gains by falling
    moved = gain[gain < 0] if direction == "worse" else gain[gain > 0]
    ordered = moved.sort_values(kind="stable", ascending=direction == "worse").head(n)

    listing = metric  # the metric whose rows are listed: a score lists the answer rows of a node with answers
    if metric in scores:
        listing = "f1" if b.has_answers(node) else "recall_single_hit"
    level = list(ANSWER_METRICS) if listing in ANSWER_METRICS else [*DOCUMENT_METRICS, *measures]
    level += list(scores)
    eval_mode = MetricOptions.from_keywords(metric_params).eval_mode

    def examples(result: ResultSource, table: pd.DataFrame) -> list[dict[str, Any]]:
        columns = [c for c in table.columns if c in level]
        return result.query_examples(node, table.loc[ordered.index, columns], metric=listing, eval_mode=eval_mode)

    listed = []
    for changed, baseline, value in zip(examples(b, table_b), examples(a, table_a), delta.loc[ordered.index].to_numpy()):
        kind = "answers" if "answers" in baseline else "documents"
        changed["delta"] = float(value)
        changed["baseline"] = {"metrics": baseline["metrics"], kind: baseline[kind]}
        listed.append(changed)
    return Examples(listed)
