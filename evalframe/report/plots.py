"""Plots for notebooks and reports (extra ``plots``: matplotlib, imported only when a plot is drawn).

Every function draws on ``ax`` (or a new figure's axes) and returns the Axes, so plots compose
with the rest of a matplotlib figure. They read the same tables as the rest of evalframe:
:meth:`EvaluationResult.metrics_at_k`, :meth:`~EvaluationResult.query_metrics` and
:meth:`~EvaluationResult.calculate_metrics`. A name (node, metric, run) is drawn as it is written, never read as
mathtext: its ``$`` is escaped (:func:`evalframe.report.escape.plain`).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from evalframe import load_demo_result
>>> from evalframe.report.plots import plot_metrics_at_k
>>> ax = plot_metrics_at_k(load_demo_result(), ks=(1, 2, 3), node="Retriever", metrics=["recall_single_hit"])
>>> [round(float(y), 3) for y in ax.lines[0].get_ydata()]
[0.625, 0.75, 0.875]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from .. import _validation as check
from ..analysis.compare import (
    Run,
    check_metric_parameters,
    directions_of,
    is_result,
    paired,
    per_query_table,
    run_names,
    scores_of_runs,
    select_metrics,
    shared_node,
)
from ..analysis.protocol import ResultSource
from ..errors import InvalidParameterError
from ..metrics.registry import ANSWER_METRICS, Metric
from ..metrics.trec import known_direction
from ..options import AT_K_SETS, MetricOptions, with_options
from .escape import plain

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_comparison", "plot_funnel", "plot_metric_distribution", "plot_metrics_at_k", "metric_label"]

#: The curves plot_metrics_at_k draws unless told otherwise (those the node has).
DEFAULT_AT_K = ("recall_single_hit", "recall_multi_hit", "mrr", "ndcg", "exact_match", "f1")


def _axes(ax: Axes | None, figsize: tuple[float, float] = (6.0, 4.0)) -> Axes:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('evalframe\'s plots need matplotlib: pip install "evalframe[plots]"') from None
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _check_keywords(params: dict[str, Any], taken: tuple[str, ...]) -> None:
    allowed = [name for name in MetricOptions.names() if name not in taken]
    check.check_keywords(params, allowed, passed_to="this plot passes on")


def _top(values: Any) -> float:
    """The upper end of a metric axis: 1, or more for map and ndcg, which exceed 1 with duplicate documents."""
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    return max(1.0, float(finite.max())) if len(finite) else 1.0


def _bottom(values: Any) -> float:
    """The lower end of a metric axis: 0, or less for a score with negative values."""
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    return min(0.0, float(finite.min())) if len(finite) else 0.0


def metric_label(metric: str, scores: Mapping[str, Metric]) -> str:
    """A metric's axis label: its name, and which way is better where a reader could not assume it: ``(lower is
    better)`` for a measure of the registry where lower is (``unj@10``), ``(higher is better)`` or ``(lower is
    better)`` for a declared score (``latency (lower is better)``); no note for a registry measure where higher is
    better (``f1``), for a count (direction ``"none"``: ``NumRet``), a score declared so or a column of unknown
    direction.

    Examples
    --------
    >>> from evalframe import score_measure
    >>> metric_label("latency", {"latency": score_measure("latency", direction="lower")}), metric_label("f1", {})
    ('latency (lower is better)', 'f1')
    >>> metric_label("unj@10", {}), metric_label("NumRet", {})
    ('unj@10 (lower is better)', 'NumRet')
    """
    direction = known_direction(metric, scores)
    noted = direction == "lower" or (direction == "higher" and metric in scores)
    return f"{metric} ({direction} is better)" if noted else metric


def one_answer_per_query(result: Any, node: str) -> bool:
    """Whether ``node`` gives at most one answer per query (a generator): then the reader's top-k keeps every answer at
    every k, so its answer metrics at top-1 (and at any k) are its integrated values. Decided by the data (the
    integrated answer rows: no query has two), never by the node's name; False for a node without answer rows or a
    result whose frames are not in memory.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> one_answer_per_query(load_demo_result(), "Reader")  # the extractive reader gives up to 3 answers per query
    False
    """
    try:
        frame = result[node]
    except (TypeError, KeyError):  # a result without frames in memory (Dask): it cannot say
        return False
    if not isinstance(frame, pd.DataFrame) or "multilabel_id" not in frame.columns:
        return False
    kept = np.ones(len(frame), dtype=bool)
    if "type" in frame.columns:
        kept &= (frame["type"] == "answer").to_numpy(dtype=bool, na_value=False)
    if "eval_mode" in frame.columns and (frame["eval_mode"] == "integrated").any():
        kept &= (frame["eval_mode"] == "integrated").to_numpy(dtype=bool, na_value=False)
    ids = frame["multilabel_id"][kept]
    return bool(len(ids)) and not bool(ids.duplicated().any())


#: What k cuts for each kind of metric (the x label of its axes).
_K_MEANS = {"document": "retriever's simulated top-k (documents kept)", "answer": "reader's simulated top-k (answers kept)"}


def _legend_outside(ax: Axes) -> None:
    """A legend right of the axes, where it covers no data (constrained layout makes room for it)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", frameon=False)


#: Marker and dash of the n-th line: metrics with equal values (recall single and multi hit often are) stay visible.
_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."), ("v", (0, (5, 1))), ("x", (0, (1, 3))))


def _draw_at_k(ax: Axes, table: pd.DataFrame, metrics: list[str], nodes: list[str], kind: str) -> None:
    drawn_lines = 0
    for name in nodes:
        for metric in metrics:
            line = table[(table["node"] == name) & (table["metric"] == metric)].sort_values("k")
            if len(line):
                label = plain(metric if len(nodes) == 1 else f"{name}: {metric}")
                marker, dash = _STYLES[drawn_lines % len(_STYLES)]
                ax.plot(line["k"], line["value"], marker=marker, linestyle=dash, label=label)
                drawn_lines += 1
    drawn = table[table["metric"].isin(metrics)]
    ax.set_xticks(sorted(drawn["k"].unique()))
    ax.set_xlabel(_K_MEANS[kind])
    ax.set_ylabel("mean over queries")
    ax.set_ylim(0, 1.05 * _top(drawn["value"]))
    shown = list(dict.fromkeys(drawn["node"]))
    ax.set_title(plain(f"{kind} metrics@k" + (f" of {shown[0]}" if len(shown) == 1 else "")))
    ax.grid(alpha=0.3)
    _legend_outside(ax)


@with_options(MetricOptions, without=AT_K_SETS)
def plot_metrics_at_k(
    result: ResultSource | pd.DataFrame,
    ks: Sequence[int] = (1, 3, 5, 10),
    node: str | None = None,
    metrics: Sequence[str] | None = None,
    ax: Axes | None = None,
    **params: Any,
) -> Axes:
    """Metrics against simulated top-k: one line per node and metric, the legend right of the axes.

    Document metrics are drawn against the retriever's top-k, answer metrics against the reader's: the two
    k are different cuts, so they never share an axis. When both kinds are drawn (a result with a retriever
    and a reader, ``node=None``), a new figure gets two axes side by side and the document axes are returned
    (the answer axes are ``ax.figure.axes[1]``); with ``ax=`` given, pick one kind by ``node`` or ``metrics``.

    Parameters
    ----------
    result : EvaluationResult or pandas.DataFrame
        A result (its :meth:`~EvaluationResult.metrics_at_k` is drawn) or that tidy table itself.
    ks, node, **params
        Passed to :meth:`~EvaluationResult.metrics_at_k`.
    metrics : list of str, optional
        The metrics to draw; by default recall_single_hit, recall_multi_hit, mrr, ndcg, exact_match and f1
        where present.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from evalframe import load_demo_result
    >>> ax = plot_metrics_at_k(load_demo_result(), ks=(1, 2, 3))  # retriever and reader: two axes
    >>> [axes.get_xlabel() for axes in ax.figure.axes]
    ["retriever's simulated top-k (documents kept)", "reader's simulated top-k (answers kept)"]
    """
    if isinstance(result, pd.DataFrame):
        if params:
            raise InvalidParameterError(f"{sorted(params)} apply to an EvaluationResult, not to a metrics@k table.")
        table = result
    else:
        _check_keywords(params, AT_K_SETS)
        table = result.metrics_at_k(ks=ks, node=node, **params)
    check.require_columns(table, ("node", "k", "metric", "value"), where="the metrics@k table",
                          why="to plot it (the output of metrics_at_k)")
    present = list(dict.fromkeys(table["metric"]))
    if metrics is None:
        metrics = [m for m in DEFAULT_AT_K if m in present]
    else:
        for metric in metrics:
            check.check_choice(metric, present, name="metrics")
    kinds = {kind: [m for m in metrics if (m in ANSWER_METRICS) == (kind == "answer")] for kind in ("document", "answer")}
    kinds = {kind: chosen for kind, chosen in kinds.items() if chosen}
    nodes = list(dict.fromkeys(table["node"]))
    if len(kinds) == 2 and ax is not None:
        raise InvalidParameterError(
            f"metrics {kinds['document']} are cut by the retriever's top-k and {kinds['answer']} by the reader's, "
            "so they need two axes: leave out ax= (a figure with both is drawn), or pass node= or metrics= of one kind.")
    if ax is None and len(kinds) == 2:
        import matplotlib.pyplot as plt

        _, pair = plt.subplots(1, 2, figsize=(11.0, 4.0), layout="constrained")
        panels = list(pair)
    else:
        panels = [_axes(ax)]
    for panel, (kind, chosen) in zip(panels, kinds.items()):
        _draw_at_k(panel, table, chosen, nodes, kind)
    return panels[0]


@with_options(MetricOptions)
def plot_metric_distribution(
    result: ResultSource | pd.DataFrame,
    node: str | None = None,
    metric: str | None = None,
    kind: str = "hist",
    bins: int = 20,
    ax: Axes | None = None,
    **params: Any,
) -> Axes:
    """How a metric is spread over the queries: a histogram or an ECDF of the per-query values.

    Parameters
    ----------
    result : EvaluationResult or pandas.DataFrame
        A result (the per-query table of ``node`` is drawn) or a per-query table.
    node : str, optional
        Needed for a result with several nodes.
    metric : str, optional
        Default: f1 for answer nodes, recall_single_hit for document nodes.
    kind : {"hist", "ecdf"}
    bins : int
        Histogram bins over [0, 1] (or up to the largest value: map and ndcg can exceed 1).
    **params
        Passed to :meth:`~EvaluationResult.query_metrics` (simulated top-k, scopes, eval_mode).
    """
    check.check_choice(kind, ("hist", "ecdf"), name="kind")
    bins = check.check_positive_int(bins, name="bins", minimum=1)
    check_metric_parameters(params, caller="plot_metric_distribution")
    node = shared_node([result], node)
    if metric is None:
        if not is_result(result):  # so a DataFrame
            raise InvalidParameterError(
                f"metric is needed for a per-query table; it has {list(cast(pd.DataFrame, result).columns)}.")
        metric = result.headline_metric(node)  # type: ignore[arg-type]
    table = per_query_table(result, node, params, "result")
    check.check_choice(metric, [str(c) for c in table.columns], name="metric")
    values = table[metric].dropna().to_numpy(dtype=np.float64)
    ax = _axes(ax)
    if kind == "hist":
        # matplotlib's stub says Sequence[float]; hist takes any array of bin edges, as numpy.histogram does
        ax.hist(values, bins=np.linspace(_bottom(values), _top(values), bins + 1),  # type: ignore[arg-type]
                color="#4c72b0", edgecolor="white")
        ax.set_ylabel("queries")
    else:
        ordered = np.sort(values)
        ax.step(np.concatenate([[_bottom(values)], ordered]), np.arange(len(ordered) + 1) / max(len(ordered), 1),
                where="post")
        ax.set_ylabel("share of queries <= value")
        ax.set_ylim(0, 1.02)
    if len(values):
        ax.axvline(values.mean(), color="#c44e52", linestyle="--", label=f"mean {values.mean():.3f}")
        _legend_outside(ax)
    ax.set_xlabel(plain(metric_label(metric, scores_of_runs([result]))))
    ax.set_title(plain(f"{metric} per query" + (f" ({node}, {len(values)} queries)" if node else
                                                f" ({len(values)} queries)")))
    return ax


@with_options(MetricOptions, without=("eval_mode",))
def plot_funnel(
    result: ResultSource,
    metrics: str | Mapping[str, str] | None = None,
    node_order: Sequence[str] | None = None,
    ax: Axes | None = None,
    **params: Any,
) -> Axes:
    """The pipeline funnel: each node's headline metric in integrated and isolated evaluation.

    Integrated evaluation feeds each node what the node before it produced; isolated evaluation
    feeds it the gold input. The gap between the two bars is what the upstream nodes cost.

    Parameters
    ----------
    metrics : str or dict of node to str, optional
        The metric of each node; default f1 for answer nodes and recall_single_hit for document nodes.
    node_order : list of str, optional
        The nodes in pipeline order (default: nodes with document rows only first, as retrievers
        feed readers, else the result's order).
    **params
        Passed to :meth:`~EvaluationResult.calculate_metrics`, except eval_mode.
    """
    if "eval_mode" in params:
        raise InvalidParameterError("plot_funnel draws both eval modes; leave out eval_mode.")
    _check_keywords(params, ("eval_mode",))
    nodes = list(node_order) if node_order is not None else result.pipeline_order()
    for node in nodes:
        check.check_node(node, list(result), name="node_order")
    chosen = {node: (metrics if isinstance(metrics, str) else (metrics or {}).get(node) or result.headline_metric(node))
              for node in nodes}
    values = {mode: result.calculate_metrics(eval_mode=mode, **params) for mode in ("integrated", "isolated")}
    for node, metric in chosen.items():
        if metric not in values["integrated"][node] and metric not in values["isolated"][node]:
            raise InvalidParameterError(
                f"node {node!r} has no metric {metric!r}; it has {sorted(values['integrated'][node])}. "
                "Pass metrics={node: metric}."
            )
    ax = _axes(ax)
    x = np.arange(len(nodes))
    width = 0.38
    for offset, (mode, color) in zip((-width / 2, width / 2), (("integrated", "#4c72b0"), ("isolated", "#dd8452"))):
        heights = [values[mode][node].get(chosen[node], np.nan) for node in nodes]
        bars = ax.bar(x + offset, np.nan_to_num(heights), width, label=mode, color=color)
        for bar, height in zip(bars, heights):
            text = "n/a" if np.isnan(height) else f"{height:.3f}"
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, 0.0 if np.isnan(height) else height),
                        xytext=(0, 3), textcoords="offset points", ha="center", fontsize="small")
    ax.set_xticks(x, [plain(f"{node}\n{chosen[node]}") for node in nodes])
    ax.set_ylim(0, 1.12 * _top([values[m][n].get(chosen[n], np.nan) for m in values for n in nodes]))
    ax.set_ylabel("mean over queries")
    ax.set_title("pipeline funnel: integrated vs isolated")
    _legend_outside(ax)  # inside, it covered the value labels of the bars
    return ax


@with_options(MetricOptions)
def plot_comparison(
    a: Run,
    b: Run,
    node: str | None = None,
    metric: str | None = None,
    names: Sequence[str] | None = None,
    ax: Axes | None = None,
    **params: Any,
) -> Axes:
    """Per-query scatter of run ``a`` against run ``b``: points above the diagonal are queries b improved (below it,
    for a measure where lower is better, ``unj@10`` or a score declared so: wins and colours follow
    :func:`evalframe.direction_of`; a count, direction ``"none"``, has no wins: every point grey, the title counting
    the queries where b is higher, the same and lower).

    Queries with the same pair of values are drawn once, with an area that grows with their count
    (written beside it when there are at most 30 such points), so 0/1 metrics stay readable. The
    title counts wins, ties and losses of b.

    Parameters are those of :func:`evalframe.compare` (one metric; default f1 for answer nodes,
    recall_single_hit for document nodes).
    """
    names = run_names(names, 2)
    check_metric_parameters(params, caller="plot_comparison")
    node = shared_node([a, b], node)
    if metric is None:
        first = a if is_result(a) else b
        if not is_result(first):
            raise InvalidParameterError("metric is needed for per-query tables.")
        metric = first.headline_metric(node)  # type: ignore[arg-type]
    table_a, table_b = (per_query_table(run, node, params, name) for run, name in zip((a, b), names))
    select_metrics([table_a, table_b], [metric], names, parameter="metric")
    both = paired(table_a[metric], table_b[metric])
    pairs = pd.DataFrame({"a": both.a.to_numpy(), "b": both.b.to_numpy()})
    counts = pairs.groupby(["a", "b"]).size().reset_index(name="queries")
    scores = scores_of_runs([a, b])
    # a lower-is-better measure: b below a is a win; a count (direction "none"): no win, no loss, every point grey
    better = {"higher": 1.0, "lower": -1.0, "none": 0.0}[directions_of([metric], scores)[metric]]
    gain = better * (counts["b"] - counts["a"])
    ax = _axes(ax, figsize=(5.0, 5.0))
    colors = np.where(gain > 0, "#55a868", np.where(gain < 0, "#c44e52", "#8c8c8c"))
    ax.scatter(counts["a"], counts["b"], s=20 + 280 * np.sqrt(counts["queries"] / max(counts["queries"].max(), 1)),
               c=colors, alpha=0.6, edgecolors="white")
    if len(counts) <= 30:  # few distinct pairs (0/1 metrics, short cut-offs): say how many queries each is
        for x, y, queries in counts.itertuples(index=False):
            ax.annotate(str(queries), (x, y), xytext=(6, -10), textcoords="offset points", fontsize="small")
    both_values = np.concatenate([pairs["a"].to_numpy(), pairs["b"].to_numpy()])
    top, bottom = _top(both_values), _bottom(both_values)
    margin = 0.05 * (top - bottom)
    ax.plot([bottom, top], [bottom, top], color="#444444", linewidth=0.8, linestyle="--")
    ax.set_xlim(bottom - margin, top + margin)
    ax.set_ylim(bottom - margin, top + margin)
    ax.set_aspect("equal")
    ax.set_xlabel(plain(f"{metric_label(metric, scores)} of {names[0]}"))
    ax.set_ylabel(plain(f"{metric_label(metric, scores)} of {names[1]}"))
    if better:
        wins = int((better * (pairs["b"] - pairs["a"]) > 0).sum())
        losses = int((better * (pairs["b"] - pairs["a"]) < 0).sum())
        title = f"{metric} per query: {names[1]} wins {wins}, ties {len(pairs) - wins - losses}, loses {losses}"
    else:
        higher, lower = int((pairs["b"] > pairs["a"]).sum()), int((pairs["b"] < pairs["a"]).sum())
        title = (f"{metric} per query (a count, no wins): {names[1]} higher on {higher}, the same on "
                 f"{len(pairs) - higher - lower}, lower on {lower}")
    ax.set_title(plain(title), fontsize="medium")
    return ax
