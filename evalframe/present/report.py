"""The evaluation report: the pipeline funnel and the worst queries, as text and as one self-contained HTML page.

Built from the public analyses only (``calculate_metrics`` and ``wrong_examples``), so its numbers are
those of the library.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._version import __version__
from .._validation import check_positive_int
from ..analysis.compare import is_result
from ..analysis.examples import THRESHOLD
from ..errors import InvalidParameterError

if TYPE_CHECKING:
    from ..result import EvaluationResult

__all__ = ["Report", "build_report", "print_eval_report"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;color:#1f2328;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.node{font-weight:600}.muted{color:#656d76;font-size:.85rem}img{max-width:36rem}
"""


@dataclass
class Report:
    """An evaluation report; ``.text`` for terminals, ``.html`` for browsers (displays in Jupyter)."""

    text: str
    html: str

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html


def _cut(value: Any, limit: int) -> str:
    if value is None or (isinstance(value, float) and value != value) or value == "":
        return "(empty)"  # the placeholder row of an empty retrieval or answer list
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _rank(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _has_isolated(result: EvaluationResult, node: str) -> bool:
    frame = result[node]
    return "eval_mode" in frame.columns and bool((frame["eval_mode"] == "isolated").any())


def _recall_chart(result: EvaluationResult, node: str, ks: range) -> str | None:
    """A recall@k PNG (base64) when matplotlib is installed; None otherwise.

    Drawn on a bare Figure, so the pyplot backend of a notebook is left alone.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    from .plots import plot_metrics_at_k

    figure = Figure(figsize=(5, 2.6), dpi=100, layout="constrained")
    axes = figure.subplots()
    plot_metrics_at_k(result, ks=list(ks), node=node, metrics=["recall_single_hit"], ax=axes)
    legend = axes.get_legend()
    assert legend is not None  # plot_metrics_at_k always draws one (ax.legend)
    legend.remove()
    axes.set_title("")
    axes.set_ylabel("recall_single_hit")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def build_report(
    result: EvaluationResult,
    *,
    n: int = 3,
    node_order: list[str] | None = None,
    max_characters_per_field: int = 150,
    charts: bool = True,
) -> Report:
    """The pipeline funnel (integrated metrics, top-1 answer metrics, isolated upper bound) and worst queries.

    Without ``node_order``, nodes with document rows only come first (retrievers feed readers), else in the
    result's order.
    """
    if not is_result(result):  # by its interface: the facade calls this module
        raise InvalidParameterError(f"the report needs an EvaluationResult; got {type(result).__name__}. "
                                    "Load one first: EvaluationResult.load(folder).")
    n = check_positive_int(n, name="n (worst queries per node)", minimum=1)
    max_characters_per_field = check_positive_int(max_characters_per_field, name="max_characters_per_field", minimum=1)
    if node_order is not None and (isinstance(node_order, str) or not all(isinstance(x, str) for x in node_order)):
        raise InvalidParameterError(f"node_order must be a list of node names, e.g. {list(result)}; got {node_order!r}.")
    nodes = list(node_order) if node_order else result.pipeline_order()
    unknown = [node for node in nodes if node not in result]
    if unknown:
        raise InvalidParameterError(f"node_order names node(s) {unknown} that the result does not hold; it holds {list(result)}.")
    integrated = result.calculate_metrics()
    top1 = result.calculate_metrics(simulated_top_k_reader=1)
    isolated = result.calculate_metrics(eval_mode="isolated") if any(_has_isolated(result, n_) for n_ in nodes) else {}

    text = [f"evalframe {__version__} evaluation report", "=" * 60, "", "Pipeline funnel (integrated evaluation)", ""]
    page = [f"<h1>Evaluation report</h1><p class='muted'>evalframe {__version__}; nodes: "
            f"{html.escape(', '.join(nodes))}</p>", "<h2>Pipeline funnel</h2>",
            "<table><tr><th>node</th><th>metric</th><th>integrated</th><th>top-1</th><th>isolated (upper bound)</th></tr>"]
    text.append("Query")
    for node in nodes:
        text.append("  |")
        text.append(node)
        answer_node = result.has_answers(node)
        for metric, value in integrated[node].items():
            if metric == "num_examples_for_eval":
                continue
            extras = []
            if answer_node:
                extras.append(f"top-1 {top1[node][metric]:.4f}")
            if metric in isolated.get(node, {}):
                extras.append(f"isolated {isolated[node][metric]:.4f}")
            text.append(f"  | {metric:<18} {value:.4f}" + (f"   ({', '.join(extras)})" if extras else ""))
            page.append(
                f"<tr><td class='node'>{html.escape(node)}</td><td>{metric}</td><td class='num'>{value:.4f}</td>"
                f"<td class='num'>{f'{top1[node][metric]:.4f}' if answer_node else ''}</td>"
                f"<td class='num'>{f'{isolated[node][metric]:.4f}' if metric in isolated.get(node, {}) else ''}</td></tr>"
            )
    text += ["  |", "Output", ""]
    page.append("</table>")

    for node in nodes:
        answer_node = result.has_answers(node)
        metric = result.headline_metric(node)
        if not answer_node and charts:
            chart = _recall_chart(result, node, range(1, 11))
            if chart:
                page.append(f"<h2>{html.escape(node)}: recall@k</h2><img alt='recall@k' src='data:image/png;base64,{chart}'>")
        worst = result.wrong_examples(node, n=n)
        title = f"Worst queries of {node} by {metric}"
        text += [title, "-" * len(title)]
        page.append(f"<h2>{html.escape(title)}</h2>")
        if not worst:
            text += [f"no query scores {metric} <= {THRESHOLD}", ""]
            page.append(f"<p>No query scores {metric} &le; {THRESHOLD}.</p>")
            continue
        rows = ["<table><tr><th>query</th><th>" + metric + "</th><th>gold</th><th>"
                + ("answers" if answer_node else "retrieved documents") + "</th></tr>"]
        for example in worst:
            gold = example["gold_answers"] if answer_node else example["gold_document_ids"]
            listed = example["answers" if answer_node else "documents"]
            shown = [(_rank(r.get("rank")), r.get("answer") if answer_node else r.get("document_id"), r.get("context"))
                     for r in listed[:3]]
            text.append(f"query:  {_cut(example['query'], max_characters_per_field)}")
            text.append(f"{metric}: {example['metrics'][metric]:.4f}")
            text.append(f"gold:   {_cut(gold, max_characters_per_field)}")
            for rank, item, context in shown:
                text.append(f"  rank {rank}: {_cut(item, max_characters_per_field)}")
                text.append(f"          {_cut(context, max_characters_per_field)}")
            text.append("")
            items = "<br>".join(
                f"{rank}. <b>{html.escape(_cut(item, max_characters_per_field))}</b> "
                f"<span class='muted'>{html.escape(_cut(context, max_characters_per_field))}</span>"
                for rank, item, context in shown
            )
            rows.append(f"<tr><td>{html.escape(_cut(example['query'], max_characters_per_field))}</td>"
                        f"<td class='num'>{example['metrics'][metric]:.4f}</td>"
                        f"<td>{html.escape(_cut(gold, max_characters_per_field))}</td><td>{items}</td></tr>")
        page.append("".join(rows) + "</table>")
    document = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe report</title>"
                f"<style>{_CSS}</style></head><body>{''.join(page)}</body></html>")
    return Report(text="\n".join(text).rstrip() + "\n", html=document)


def print_eval_report(result: EvaluationResult, n_wrong_examples: int = 3, node_order: list[str] | None = None,
                      max_characters_per_field: int = 150) -> None:
    """Print the report, as Haystack 1.x's ``Pipeline.print_eval_report`` did (same arguments)."""
    print(build_report(result, n=n_wrong_examples, node_order=node_order,
                       max_characters_per_field=max_characters_per_field, charts=False).text)
