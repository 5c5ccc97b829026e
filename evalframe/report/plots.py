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


def _draw_at_k(ax: Axes, table: pd.DataFrame, metrics: list[str], nodes: list[str], kind: str,
               flat: Sequence[str] = ()) -> None:
    """One kind's metrics@k on ``ax``; the ``flat`` nodes (one answer per query: every k keeps it) get no curve, a
    line of text with their values instead (a flat line would say k matters and it does not)."""
    drawn = table[table["metric"].isin(metrics)]
    shown = [name for name in nodes if (drawn["node"] == name).any()]
    ranked = [name for name in shown if name not in flat]
    drawn_lines = 0
    for name in ranked:
        for metric in metrics:
            line = drawn[(drawn["node"] == name) & (drawn["metric"] == metric)].sort_values("k")
            if len(line):
                label = plain(metric if len(nodes) == 1 else f"{name}: {metric}")
                marker, dash = _STYLES[drawn_lines % len(_STYLES)]
                ax.plot(line["k"], line["value"], marker=marker, linestyle=dash, label=label)
                drawn_lines += 1
    ax.set_ylabel("mean over queries")
    ax.grid(alpha=0.3)
    unranked = [name for name in shown if name in flat]
    if unranked:
        first = drawn[drawn["k"] == drawn["k"].min()]
        said = [f"{name} gives one answer per query: every k keeps it, so its {kind} metrics are the same at every "
                "k (no curve):\n" + ", ".join(
                    f"{metric} {float(first[(first['node'] == name) & (first['metric'] == metric)]['value'].iloc[0]):.4f}"
                    for metric in metrics if ((first["node"] == name) & (first["metric"] == metric)).any())
                for name in unranked]
        note = plain("\n".join(said))
    if not drawn_lines:  # only nodes of one answer: no k axis, the values said in the panel
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
        ax.set_ylabel("")
        ax.set_title(plain(f"{kind} metrics of {', '.join(unranked)}"))
        ax.text(0.5, 0.5, _wrapped(note), transform=ax.transAxes, ha="center", va="center", fontsize="small")
        return
    ax.set_xticks(sorted(drawn[drawn["node"].isin(ranked)]["k"].unique()))
    ax.set_xlabel(_K_MEANS[kind])
    ax.set_ylim(0, 1.05 * _top(drawn[drawn["node"].isin(ranked)]["value"]))
    ax.set_title(plain(f"{kind} metrics@k" + (f" of {ranked[0]}" if len(ranked) == 1 else "")))
    _legend_outside(ax)
    if unranked:  # beside the curves, under the legend
        ax.text(1.02, 0.0, _wrapped(note, 40), transform=ax.transAxes, fontsize="x-small", color="#656d76",
                va="bottom", ha="left")


def _wrapped(text: str, width: int = 48) -> str:
    """``text`` broken into lines of at most ``width`` characters (matplotlib does not wrap a text in axes)."""
    import textwrap

    return "\n".join(textwrap.fill(part, width) for part in text.split("\n"))


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
    k are different cuts, so they never share an axis. A node giving one answer per query (a generator: no query has
    two answer rows) has nothing for the reader's top-k to cut, every k gives the same values: it gets no curve;
    its panel says so and gives its values instead. When both kinds are drawn (a result with a retriever
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
    # a node giving one answer per query (read from the result's rows; a table alone cannot say): no flat curve
    flat = ([] if isinstance(result, pd.DataFrame) or "answer" not in kinds else
            [name for name in nodes if one_answer_per_query(result, name)])
    for panel, (kind, chosen) in zip(panels, kinds.items()):
        _draw_at_k(panel, table, chosen, nodes, kind, flat if kind == "answer" else ())
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
    feeds it the gold input. The gap between the two bars is what the upstream nodes cost. Without an isolated run
    (a Ragas or Haystack 2.x result), one bar per node and no isolated legend entry: the title says no node was run
    isolated; a node without an isolated value of its own has no isolated bar, named beside the legend.

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
    heights = {mode: np.array([values[mode].get(node, {}).get(chosen[node], np.nan) for node in nodes], dtype=float)
               for mode in values}
    # a mode no node was evaluated in draws nothing: no empty legend entry, no bar labelled as missing
    modes = [(mode, color) for mode, color in (("integrated", "#4c72b0"), ("isolated", "#dd8452"))
             if np.isfinite(heights[mode]).any()]
    width = 0.38 if len(modes) == 2 else 0.6
    offsets = (-width / 2, width / 2) if len(modes) == 2 else (0.0,)
    for offset, (mode, color) in zip(offsets, modes):
        present = np.isfinite(heights[mode])
        bars = ax.bar(x[present] + offset, heights[mode][present], width, label=mode, color=color)
        for bar, height in zip(bars, heights[mode][present]):
            ax.annotate(f"{height:.3f}", (bar.get_x() + bar.get_width() / 2, height),
                        xytext=(0, 3), textcoords="offset points", ha="center", fontsize="small")
    ax.set_xticks(x, [plain(f"{node}\n{chosen[node]}") for node in nodes])
    ax.set_xlim(-0.6, len(nodes) - 0.4)
    ax.set_ylim(0, 1.12 * _top([heights[mode] for mode, _ in modes]))
    ax.set_ylabel("mean over queries")
    names = [mode for mode, _ in modes]
    if len(modes) == 2:
        missing = [node for node, height in zip(nodes, heights["isolated"]) if not np.isfinite(height)]
        ax.set_title("pipeline funnel: integrated vs isolated")
        _legend_outside(ax)  # inside, it covered the value labels of the bars
        if missing:  # said once, under the legend, rather than as a label on an empty bar
            ax.text(1.02, 0.0, plain("not run isolated:\n" + "\n".join(missing)), transform=ax.transAxes,
                    fontsize="small", color="#656d76", va="bottom", ha="left")
    else:
        ax.set_title(plain(f"pipeline funnel: {names[0] if names else 'integrated'} evaluation"
                           + (" (no node was run isolated)" if names == ["integrated"] else "")))
    return ax


def _run_names(a: Any, b: Any, names: Sequence[str] | None) -> tuple[list[Any], list[str]]:
    """The two runs and their names: ``names=``, else a mapping's keys, else the runs' own ``name`` (a stored run),
    else ``A`` and ``B``, as :func:`evalframe.compare` names runs it was given no name for."""
    if isinstance(a, Mapping) and not is_result(a):  # a result is a mapping of its nodes, a run itself
        if b is not None:
            raise InvalidParameterError("plot_comparison takes two runs, a and b, or one dict {name: run} of two runs "
                                        "as a; got a dict and b.", parameter="b")
        if len(a) != 2:
            raise InvalidParameterError(f"a dict of runs must hold two runs {{name: run}}; got {len(a)}: {list(a)}.",
                                        parameter="a")
        runs = list(a.values())
        return runs, run_names(names, 2) if names is not None else [str(key) for key in a]
    if b is None:
        raise InvalidParameterError("plot_comparison needs two runs: a and b, or one dict {name: run} of two runs.",
                                    parameter="b")
    if names is not None:
        return [a, b], run_names(names, 2)
    own = [getattr(run, "name", None) for run in (a, b)]
    if all(isinstance(name, str) and name for name in own) and own[0] != own[1]:
        return [a, b], cast("list[str]", own)
    return [a, b], run_names(None, 2)


def _size_legend(ax: Axes, counts: pd.Series, size: Any, colors: Sequence[tuple[str, str]]) -> None:
    """The scatter's legend, right of the axes: what a colour means and how many queries a marker's area stands for
    (1, the most, and one between when they are far apart)."""
    from matplotlib.lines import Line2D

    most = int(counts.max()) if len(counts) else 1
    shown = sorted({1, most, *([int(round(np.sqrt(most)))] if most >= 4 else [])})
    handles = [Line2D([], [], linestyle="", marker="o", markersize=8, markerfacecolor=color, markeredgecolor="white",
                      alpha=0.6, label=plain(label)) for color, label in colors]
    # a scatter marker's s is its area in points squared; a Line2D marker's size is its diameter in points
    handles += [Line2D([], [], linestyle="", marker="o", markersize=float(np.sqrt(size(count))),
                       markerfacecolor="#8c8c8c", markeredgecolor="white", alpha=0.6,
                       label=f"{count} quer{'y' if count == 1 else 'ies'}") for count in shown]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small",
              frameon=False, title="colour: the better run\narea: queries at the point", title_fontsize="small",
              labelspacing=1.1, alignment="left")


@with_options(MetricOptions)
def plot_comparison(
    a: Run | Mapping[str, Run],
    b: Run | None = None,
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

    The runs are named on the axes, in the title and the legend by ``names=``, else by the keys of a dict ``{name:
    run}`` given as ``a``, else by their own names (a stored run's), else ``A`` and ``B`` (as :func:`evalframe.compare`
    names them). The legend right of
    the axes says what the colours mean and how many queries a marker's area stands for.

    Parameters are those of :func:`evalframe.compare` (one metric; default f1 for answer nodes,
    recall_single_hit for document nodes).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> top1 = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    >>> ax = plot_comparison({"top 1": top1, "top 5": result}, node="Retriever", metric="recall_single_hit")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('recall_single_hit of top 1', 'recall_single_hit of top 5')
    """
    runs, names = _run_names(a, b, names)
    a, b = cast(Run, runs[0]), cast(Run, runs[1])
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
    ax = _axes(ax, figsize=(7.0, 5.0))  # the legend right of the square axes
    colors = np.where(gain > 0, "#55a868", np.where(gain < 0, "#c44e52", "#8c8c8c"))
    most = max(int(counts["queries"].max()), 1) if len(counts) else 1

    def size(queries: Any) -> Any:
        return 20 + 280 * np.sqrt(np.asarray(queries, dtype=np.float64) / most)

    ax.scatter(counts["a"], counts["b"], s=size(counts["queries"]), c=colors, alpha=0.6, edgecolors="white")
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
    meanings = ([("#55a868", f"{names[1]} better"), ("#c44e52", f"{names[0]} better"), ("#8c8c8c", "the same")]
                if better else [("#8c8c8c", "a count: no better or worse")])
    present = set(colors)
    _size_legend(ax, counts["queries"], size, [(color, label) for color, label in meanings if color in present])
    return ax
