"""Is run B better than run A, on Dask: :func:`evalframe.compare` over partitioned folders (docs/cluster.md).

The runs must have the same number of partitions, so that a query lies in the same partition number in both: one
task per partition number reads it in both runs, pairs their per-query tables by ``multilabel_id`` (the in-memory
``query_metrics``) and returns, per metric, the sums, counts and wins/ties/losses, and the distinct differences with
their counts. The statistics of :func:`evalframe.analysis.compare.paired_statistics_many` depend on the differences
only through those counts when they take few distinct values for their number of queries
(:func:`evalframe.analysis.resampling.order_free`: binary metrics over many thousand queries); otherwise a second
pass brings each paired query's difference to the client, in run A's order, as resampling needs it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validation as check
from ..analysis.compare import (PairedDifferences, directions_of, measure_names, paired, paired_statistics_many,
                                run_names, scores_of_runs, select_metrics, sliced_table, table_of_rows)
from ..analysis.all_pairs import (common_queries, common_values, merged_moments, moments, randomized_tukey_p_values,
                                  tukey_hsd_p_values, with_all_pairs_p_values)
from ..analysis.resampling import shared_pays
from ..analysis.slices import check_by
from ..errors import InvalidParameterError
from ..io.partitioned import check_key_summaries, key_summary
from ..metrics.trec import aggregation_of, measure_texts
from ..frames.backends import as_backend
from ..options import ALL_PAIRS_TESTS, CompareOptions, MetricOptions, OutputOptions, with_options
from .client import run
from .result import (DaskEvaluationResult, first_appearance, merged_columns, open_partition, partition_query_metrics,
                     partition_retriever)

__all__ = ["compare"]


@with_options(CompareOptions, MetricOptions, OutputOptions, documented=(CompareOptions, OutputOptions))
def compare(a: DaskEvaluationResult, b: DaskEvaluationResult, *others: DaskEvaluationResult,
            **options: Any) -> Any:
    """:func:`evalframe.compare` of partitioned folders on Dask: the same table, to rounding.

    Parameters
    ----------
    a, b, *others : DaskEvaluationResult
        The runs (``evalframe.dask.load(folder)``), saved with the same ``partitions``; each is compared with ``a``,
        or every pair with ``pairs="all"`` (each pair's partials computed as for two runs). The tests of all pairs
        (``test="tukey"``: each run's count, sum and squared deviations per partition, merged on the client;
        ``"randomized-tukey"``: the values of the queries every run scored, brought to the client in run A's order)
        give memory's p-values.
    **metric_params
        The metric options (:class:`evalframe.options.MetricOptions`), passed to each partition's
        ``query_metrics``.

    Examples
    --------
    >>> import tempfile, evalframe.dask
    >>> from evalframe import load_demo_result
    >>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=2, progress=False)
    >>> run = evalframe.dask.load(folder)
    >>> table = evalframe.dask.compare(run, run, node="Retriever", metrics="mrr")
    >>> table[["mean_a", "mean_b", "wins", "ties", "losses"]].round(4)
            mean_a  mean_b  wins  ties  losses
    metric
    mrr     0.7292  0.7292     0     8       0
    """
    runs = [a, b, *others]
    check.check_keywords(options, (*CompareOptions.option_names(), *MetricOptions.names(), *OutputOptions.option_names()),
                         passed_to="compare takes these options")
    output, options = OutputOptions.take(options)
    names = run_names(options.get("names"), len(runs))
    if options.get("metrics") is not None:  # ir_measures' measure objects: their names
        options = {**options, "metrics": measure_texts(options["metrics"])}
    for run_, name in zip(runs, names):
        if not isinstance(run_, DaskEvaluationResult):
            raise InvalidParameterError(f"run {name!r} must be a DaskEvaluationResult (evalframe.dask.load(folder)); got "
                                        f"{type(run_).__name__}. Compare results in memory with evalframe.compare.")
        if run_.partitions != a.partitions:
            raise InvalidParameterError(
                f"run {name!r} has {run_.partitions} partitions and run {names[0]!r} {a.partitions}; a query must lie in "
                f"the same partition number in both, so save both with the same partitions= "
                f"(result.save(dir, format='parquet', partitions={a.partitions})).")
    given: CompareOptions
    given, metric_params = CompareOptions.take(options)
    MetricOptions.from_keywords(metric_params, passed_to="compare passes these on to query_metrics")
    node, metrics, rounds, confidence, seed = given.node, given.metrics, given.rounds, given.confidence, given.seed
    shared = [n for n in a.nodes if all(n in r.nodes for r in runs[1:])]
    if node is None:
        if len(shared) != 1:
            raise InvalidParameterError(f"node is needed: the runs share the nodes {shared}; pass node=<one of them>."
                                        if shared else "the runs share no node; pass node=<name>.")
        node = shared[0]
    for position, run_ in enumerate(runs):
        check.check_node(node, run_.nodes, name=f"node (run {position + 1})")
    measures: list[str] = []
    chosen = None
    if metrics is not None:
        chosen, measures = measure_names([metrics] if isinstance(metrics, str) else list(metrics))
    for run_ in runs if measures else ():
        run_.check_measures(node, metric_params.get("eval_mode", "integrated"))
    keywords = {"measures": measures or None, "complete": given.complete, "duplicates": given.duplicates,
                **metric_params}
    if given.by is not None:
        return as_backend(_per_slice(runs, names, node, given, keywords, chosen,
                                     given.family if "family" in options else ("runs", "slices")), output.backend)
    row_keys: list[tuple[str, str, str]] = []
    items: list[PairedDifferences] = []
    positions = (list(itertools.combinations(range(len(runs)), 2)) if given.pairs == "all"
                 else [(0, position) for position in range(1, len(runs))])
    for first, position in positions:
        pair = (runs[first], runs[position])
        retrievers = [r.retriever_of(dict(metric_params))[1] for r in pair]
        partials = _checked(pair, run([_pair_task(pair, number, node, keywords, chosen, retrievers, False)
                                       for number in range(a.partitions)], a.client))
        columns = _metrics_of(partials, chosen, names[first], names[position])
        directions = directions_of(columns, scores_of_runs(runs))
        totals = {metric: _add([p[metric] for p in partials if metric in p])
                  for metric in columns}
        many = [m for m in columns if not _order_free(totals[m]["values"], totals[m]["counts"])]
        ordered: dict[str, np.ndarray] = {}
        if many:
            gathered = _checked(pair, run([_pair_task(pair, number, node, keywords, many, retrievers, True)
                                           for number in range(a.partitions)], a.client))
            for metric in many:
                pieces = [g[metric] for g in gathered if metric in g]
                keys = np.concatenate([k for _, k in pieces]) if pieces else np.empty((0, 2), np.int64)
                d = np.concatenate([v for v, _ in pieces]) if pieces else np.empty(0)
                ordered[metric] = d[np.lexsort((keys[:, 1], keys[:, 0]))]
        for metric in columns:
            total = totals[metric]
            n = total["queries"]
            d = ordered[metric] if metric in ordered else np.repeat(total["values"], total["counts"])
            # each run's number is the measure's aggregation of its summands' sum (the sum of a count, the geometric
            # mean of gm_map), as in memory
            aggregation = aggregation_of(metric)
            mean_a = float(aggregation.finish(np.array([total["sum_a"]]), np.array([n]))[0]) if n else np.nan
            mean_b = float(aggregation.finish(np.array([total["sum_b"]]), np.array([n]))[0]) if n else np.nan
            row_keys.append((names[first], names[position], metric))
            items.append(PairedDifferences(d, mean_a, mean_b, total["only_a"], total["only_b"], directions[metric],
                                           aggregation.name))
    statistics = paired_statistics_many(items, seed=seed, rounds=rounds, confidence=confidence,
                                        zero_method=given.zero_method)
    if given.test in ALL_PAIRS_TESTS:
        compared = list(dict.fromkeys(metric for _, _, metric in row_keys))
        p_values = _all_pairs_p_values(tuple(runs), node, keywords, compared, metric_params, given.test, rounds, seed)
        statistics = with_all_pairs_p_values(row_keys, statistics, names, p_values, given.test)
    return as_backend(table_of_rows(list(zip(row_keys, statistics)), names, test=given.test, max_p=given.max_p,
                                    correction=given.correction, pairs=given.pairs, family=given.family), output.backend)


def _per_slice(runs: list[DaskEvaluationResult], names: list[str], node: str, given: CompareOptions,
               keywords: dict[str, Any], metrics: list[str] | None, family: Sequence[str]) -> pd.DataFrame:
    """compare(by=...) on Dask: each run's per-query table and slice labels gathered to the client
    (``query_metrics(node, by=by, compute=True)``: one row of numbers per query, as the second pass of the
    statistics brings each paired query's difference), then the slices' statistics of memory
    (:func:`evalframe.analysis.compare.sliced_table`), for the pairs ``pairs`` names."""
    keys = check_by(given.by)
    gathered = [run_.query_metrics(node, by=keys, compute=True, **keywords) for run_ in runs]
    labels = [table.iloc[:, :len(keys)] for table in gathered]
    tables = [table.iloc[:, len(keys):] for table in gathered]
    columns = select_metrics(tables, metrics, names)
    directions = directions_of(columns, scores_of_runs(runs))
    positions = (list(itertools.combinations(range(len(runs)), 2)) if given.pairs == "all"
                 else [(0, position) for position in range(1, len(runs))])
    return sliced_table(tables, labels, names, positions, columns, directions, given, family)


def _all_pairs_p_values(runs: tuple[DaskEvaluationResult, ...], node: str, keywords: dict[str, Any],
                        metrics: list[str], metric_params: dict[str, Any], test: str, rounds: int,
                        seed: int) -> dict[str, np.ndarray]:
    """Per metric, the N x N p-values of a test of all pairs (:mod:`evalframe.analysis.all_pairs`) on the queries every
    run scored: one task per partition number reads it in every run and returns, for Tukey's HSD, each run's count,
    sum and squared deviations (merged on the client), for the randomized test the values themselves with run A's
    order keys (the client puts them in A's order, as memory has them, and resamples)."""
    retrievers = [r.retriever_of(dict(metric_params))[1] for r in runs]
    ordered = test != "tukey"
    parts = _checked(runs, run([_runs_task(runs, number, node, keywords, metrics, retrievers, ordered)
                                for number in range(runs[0].partitions)], runs[0].client))
    p_values = {}
    for metric in metrics:
        if not ordered:
            p_values[metric] = tukey_hsd_p_values(*merged_moments([part[metric] for part in parts]))
            continue
        keys = np.concatenate([part[metric][1] for part in parts])
        values = np.concatenate([part[metric][0] for part in parts])[np.lexsort((keys[:, 1], keys[:, 0]))]
        p_values[metric] = randomized_tukey_p_values(values, rounds=rounds, rng=np.random.default_rng(seed))
    return p_values


def _runs_task(runs: tuple[DaskEvaluationResult, ...], number: int, node: str, keywords: dict[str, Any],
               metrics: list[str], retrievers: list[Any], ordered: bool) -> Any:
    import dask

    return dask.delayed(_on_runs, pure=False)([(str(r.path), r.generation) for r in runs], number, node, keywords,
                                              metrics, retrievers, ordered)


def _on_runs(folders: list[tuple[str, str | None]], number: int, node: str, keywords: dict[str, Any],
             metrics: list[str], retrievers: list[Any],
             ordered: bool) -> tuple[list[dict[str, tuple[int, ...]]], dict[str, Any]]:
    """One partition of every run: per metric, the :func:`~evalframe.analysis.all_pairs.moments` of the values on the
    queries every run scored, or (``ordered``) those values with run A's order keys."""
    summaries, tables, order = _partition_tables(folders, number, node, keywords, retrievers)
    out: dict[str, Any] = {}
    for metric in metrics:
        values = common_values(tables, metric)
        if ordered:
            out[metric] = (values, order[tables[0].index.get_indexer(common_queries(tables, metric))].reshape(-1, 2))
        else:
            out[metric] = moments(values)
    return summaries, out


def _order_free(values: np.ndarray, counts: np.ndarray) -> bool:
    """Whether the bootstrap and the randomization test of these differences depend on their counts only (both
    resample the distinct values, :func:`evalframe.analysis.resampling.order_free`), not on the queries' order."""
    nonzero = values != 0
    magnitudes = len(np.unique(np.abs(values[nonzero])))
    return not shared_pays(len(values), int(counts.sum())) and (
        not nonzero.any() or not shared_pays(magnitudes, int(counts[nonzero].sum())))


def _metrics_of(partials: list[dict[str, Any]], chosen: list[str] | None, first: str, second: str) -> list[str]:
    """The metrics compared: ``chosen``, or those both runs have (in run A's column order), as in memory."""
    # the metric columns each run has in any partition, whichever metrics were chosen (the partials hold those only)
    has_a = {m for p in partials for m in p["numeric"][0]}
    has_b = {m for p in partials for m in p["numeric"][1]}
    shared = [m for m in merged_columns([p["columns_a"] for p in partials]) if m in has_a and m in has_b]
    if chosen is None:
        if not shared:
            raise InvalidParameterError(f"the runs {[first, second]} have no metric column in common.")
        return shared
    for metric in chosen:
        for name, has in ((first, has_a), (second, has_b)):
            if metric not in has:
                raise InvalidParameterError(f"metrics: run {name!r} has no metric {metric!r}; the runs share {shared}.",
                                            parameter="metrics")
    return chosen


def _add(parts: list[dict[str, Any]]) -> dict[str, Any]:
    values = np.concatenate([p["values"] for p in parts]) if parts else np.empty(0)
    counts = np.concatenate([p["counts"] for p in parts]) if parts else np.empty(0, np.int64)
    distinct, codes = np.unique(values, return_inverse=True)
    return {"values": distinct, "counts": np.bincount(codes, weights=counts, minlength=len(distinct)).astype(np.int64),
            **{key: sum(p[key] for p in parts) for key in ("queries", "sum_a", "sum_b", "only_a", "only_b")}}


def pair_partials(table_a: pd.DataFrame, table_b: pd.DataFrame, order: np.ndarray, metrics: list[str] | None,
                  ordered: bool) -> dict[str, Any]:
    """Per metric of two partitions' per-query tables: sums and counts (or, ``ordered``, d with A's order keys).

    A metric one side lacks here (no rows of its type in this partition) counts that side's queries as unpaired.
    """
    numeric = [[c for c in t.columns if pd.api.types.is_numeric_dtype(t[c]) and not pd.api.types.is_bool_dtype(t[c])]
               for t in (table_a, table_b)]
    out: dict[str, Any] = {"columns_a": list(table_a.columns), "numeric": numeric}
    for metric in metrics if metrics is not None else list(dict.fromkeys(numeric[0] + numeric[1])):
        side_a = table_a[metric] if metric in table_a.columns else pd.Series(np.nan, index=table_a.index)
        side_b = table_b[metric] if metric in table_b.columns else pd.Series(np.nan, index=table_b.index)
        pairs = paired(side_a, side_b)
        # what each value adds to the measure's number (the value; for a geometric mean its floored log), as in memory
        aggregation = aggregation_of(metric)
        summands_a = aggregation.summands(pairs.a.to_numpy(dtype=np.float64))
        summands_b = aggregation.summands(pairs.b.to_numpy(dtype=np.float64))
        d = summands_b - summands_a
        if ordered:
            out[metric] = (d, order[table_a.index.get_indexer(pairs.a.index)])
            continue
        distinct, counts = np.unique(d, return_counts=True)
        out[metric] = {"values": distinct, "counts": counts, "queries": len(d), "sum_a": float(summands_a.sum()),
                       "sum_b": float(summands_b.sum()), "only_a": pairs.only_a, "only_b": pairs.only_b}
    return out


def _pair_task(pair: tuple[DaskEvaluationResult, DaskEvaluationResult], number: int, node: str,
               keywords: dict[str, Any], metrics: list[str] | None, retrievers: list[Any], ordered: bool) -> Any:
    import dask

    return dask.delayed(_on_pair, pure=False)([(str(r.path), r.generation) for r in pair], number, node, keywords, metrics,
                                              retrievers, ordered)


def _on_pair(folders: list[tuple[str, str | None]], number: int, node: str, keywords: dict[str, Any],
             metrics: list[str] | None, retrievers: list[Any],
             ordered: bool) -> tuple[list[dict[str, tuple[int, ...]]], dict[str, Any]]:
    """The partials of one partition of both runs, and per run its order keys summed up per node (checked by the
    client over all partitions, as :meth:`DaskEvaluationResult.map_partitions` does)."""
    summaries, tables, order = _partition_tables(folders, number, node, keywords, retrievers)
    return summaries, pair_partials(tables[0], tables[1], order, metrics, ordered)


def _partition_tables(folders: list[tuple[str, str | None]], number: int, node: str, keywords: dict[str, Any],
                      retrievers: list[Any]) -> tuple[list[dict[str, tuple[int, ...]]], list[pd.DataFrame], np.ndarray]:
    """One partition of each run: its order keys summed up per node, its per-query table, and the first run's order
    keys of its table's queries."""
    tables: list[pd.DataFrame] = []
    summaries: list[dict[str, tuple[int, ...]]] = []
    order = np.empty((0, 2), np.int64)
    for (path, generation), retriever in zip(folders, retrievers):
        result, keys = open_partition(path, number, generation, [node], retriever)
        summaries.append({name: key_summary(node_keys) for name, node_keys in keys.items()})
        table = partition_query_metrics(result, node, {k: v for k, v in keywords.items() if v is not None},
                                        retriever=None if retriever is None else
                                        partition_retriever(path, number, result, retriever))
        if not tables:
            order = first_appearance(result, keys, node, table.index, keywords)
        tables.append(table)
    return summaries, tables, order


def _checked(pair: tuple[DaskEvaluationResult, ...],
             parts: list[tuple[list[dict[str, tuple[int, ...]]], dict[str, Any]]]) -> list[dict[str, Any]]:
    """The pair tasks' partials, once each run's order keys are checked over all its partitions."""
    for side, result in enumerate(pair):
        for name in parts[0][0][side] if parts else ():
            check_key_summaries(result.path, name, result.rows[name], [summaries[side][name] for summaries, _ in parts])
    return [partials for _, partials in parts]
