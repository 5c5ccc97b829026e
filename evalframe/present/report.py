"""The evaluation report: the pipeline funnel and the worst queries, as text and as one self-contained HTML page.

Built from the public analyses only (``calculate_metrics`` and ``wrong_examples``), so its numbers are
those of the library.
"""

from __future__ import annotations

import base64
import html
import io
import re
import warnings
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._version import __version__
from .._validation import check_positive_int, did_you_mean
from ..analysis.compare import is_result
from ..analysis.examples import NO_ANSWER, THRESHOLD
from ..columns import ANSWER_SCOPE_MEANINGS, CRITERIA, MATCH_MEANINGS, answer_metric_column, relevance_column, \
    relevance_criterion
from ..metrics.registry import METRICS, SYMBOLS, format_bounds
from ..metrics.trec import describe_measure, parse_measures
from ..errors import InvalidParameterError, warn

if TYPE_CHECKING:
    from ..result import EvaluationResult

__all__ = ["Report", "build_report", "print_eval_report"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;color:#1f2328;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.node{font-weight:600}.muted{color:#656d76;font-size:.85rem}img{max-width:36rem}
.evalframe-report th,.evalframe-report td{text-align:left!important}.evalframe-report td.num{text-align:right!important}
.ok{color:#1a7f37;font-weight:700}.flag{color:#9a6700}.field,.why{color:#656d76;font-size:.8rem}
a.metric{color:inherit;text-decoration:underline dotted}dl.definitions dt{font-weight:600;margin-top:.6rem}
dl.definitions dt code{font-size:1rem}
dl.definitions dd{margin-left:1.5rem}
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


#: The report explains its scopes and metrics in its own last section (a saved page or a pip-installed package has
#: no docs folder to link to); the page links there by these anchors.
DEFINITIONS_ANCHOR = "evalframe-definitions"
DEFINITIONS_TITLE = "What the numbers mean"
MODES = ("integrated: each node on the output of the nodes before it; top-1: the reader's first answer only; "
         "isolated: the node on the gold documents (an upper bound)")
#: Haystack 1.x's default fields of each listed answer / document in the worst queries.
WRONG_EXAMPLES_FIELDS = ("answer", "context", "document_id")
ABOVE_ONE = "above 1: a relevant document retrieved twice counts twice (Haystack's definition)"


def _metric_anchor(metric: str) -> str:
    """The id of a metric's definition in the page (a measure's ``(``, ``=`` and ``@`` become ``-``)."""
    return "evalframe-metric-" + re.sub(r"[^A-Za-z0-9_]", "-", metric)


def _description(metric: str) -> str:
    """A metric's one line: the registry's description, or a trec_eval measure's (with its cutoff and level)."""
    return METRICS[metric].description if metric in METRICS else describe_measure(metric)


def _details(metric: str) -> str:
    """A registered metric's per-query formula, edge rule and bounds, as the registry's markdown; "" for a measure."""
    if metric not in METRICS:
        return ""
    spec = METRICS[metric]
    bounds = format_bounds(spec, note=True)
    return f"Per query: {spec.formula}. Edge rule: {spec.edge}. Bounds: {bounds}."


def _markdown_html(markdown: str) -> str:
    """The registry's inline markdown (``**bold**``, ```code```, ``\\|``) as escaped HTML."""
    text = html.escape(markdown.replace("\\|", "|"), quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def _scope_meanings(document_scope: str, answer_scope: str) -> tuple[str, str]:
    """What makes a retrieved document relevant and an answer correct under the scopes (checked before)."""
    how, sets = CRITERIA[relevance_criterion(document_scope, answer_scope)]
    return f" {how} ".join(MATCH_MEANINGS[s] for s in sets), ANSWER_SCOPE_MEANINGS[answer_scope]


def _definitions(metrics: Sequence[str], document_scope: str, answer_scope: str) -> tuple[list[str], str]:
    """The report's last section: what its scopes and every metric it shows mean (text lines, HTML)."""
    relevant, correct = _scope_meanings(document_scope, answer_scope)
    scopes = f"document_scope={document_scope!r}, answer_scope={answer_scope!r}"
    text = [DEFINITIONS_TITLE, "-" * len(DEFINITIONS_TITLE), f"relevant document ({scopes}): {relevant}",
            f"correct answer (answer_scope={answer_scope!r}): {correct}", MODES]
    width = max(len(m) for m in metrics) if metrics else 0
    text += [f"{metric:<{width}}  {_description(metric)}" for metric in metrics]
    items = "".join(
        f"<dt id='{_metric_anchor(metric)}'><code>{html.escape(metric)}</code></dt>"
        f"<dd>{html.escape(_description(metric))} {_markdown_html(_details(metric))}</dd>" for metric in metrics)
    symbols = ("<p class='muted'>" + "; ".join(f"<b>{html.escape(s)}</b>: {html.escape(meaning)}"
                                               for s, meaning in SYMBOLS.items()) + ".</p>"
               if any(metric in METRICS and METRICS[metric].level == "document" for metric in metrics) else "")
    page = (f"<h2 id='{DEFINITIONS_ANCHOR}'>{DEFINITIONS_TITLE}</h2><dl class='definitions'>"
            f"<dt>relevant document ({html.escape(scopes)})</dt><dd>{html.escape(relevant)}</dd>"
            f"<dt>correct answer (answer_scope={html.escape(repr(answer_scope))})</dt><dd>{html.escape(correct)}</dd>"
            f"<dt>integrated, top-1, isolated</dt><dd>{html.escape(MODES)}</dd>{items}</dl>{symbols}"
            "<p class='muted'>Every value is the mean over the node's queries of the per-query value.</p>")
    return text, page


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == ""


def _cut(value: Any, limit: int, empty: str = "(empty)") -> str:
    if _is_missing(value):
        return empty  # the placeholder row of an empty retrieval or answer list
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _items(value: Any) -> list[Any] | None:
    """The items of a list cell (a list, tuple or array); None for a scalar."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return list(value.tolist()) if hasattr(value, "tolist") and not isinstance(value, (str, bytes)) else None


def _gold(value: Any, limit: int, answer_node: bool) -> str:
    """A gold list for a person, items joined by " | ": a no-answer gold (``['']`` or empty) reads NO_ANSWER."""
    items = _items(value)
    items = [value] if items is None else items
    if all(_is_missing(item) for item in items):
        return NO_ANSWER if answer_node else "(no gold document)"
    return _cut(" | ".join(str(item) for item in items), limit)


def _value(field: str, value: Any, limit: int) -> str:
    """A listed row's field for a person: an empty answer is a no-answer prediction."""
    items = _items(value)
    if items is not None:  # e.g. an answer's document_ids
        return "(none)" if not items else _cut(" | ".join(str(item) for item in items), limit)
    return _cut(value, limit, {"answer": NO_ANSWER, "document_id": "(nothing retrieved)"}.get(field, "(empty)"))


def _rank(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _has_isolated(result: EvaluationResult, node: str) -> bool:
    frame = result[node]
    return "eval_mode" in frame.columns and bool((frame["eval_mode"] == "isolated").any())


def _judged_correct(row: dict[str, Any], answer_node: bool, document_scope: str, answer_scope: str) -> bool | None:
    """Whether a listed row counts as correct under the report's scopes; None when the row does not say.

    A document is relevant by the row's 0/1 column of the relevance criterion; an answer is correct when its
    exact_match under ``answer_scope`` is 1 (``docs/metrics.md#relevance-criterion``).
    """
    if answer_node:
        column = answer_metric_column("exact_match", answer_scope)
    else:
        column = relevance_column(relevance_criterion(document_scope, answer_scope))
    value: Any = row.get(column)
    if _is_missing(value):
        return None
    return bool(float(value) >= 1.0)


def _why(row: dict[str, Any], answer_node: bool, answer_scope: str) -> str:
    """What a listed row matched, so a person sees why a query scored 0: a document's id / context / answer
    matches, an answer's exact_match and f1 under ``answer_scope``."""
    def flag(column: str) -> str | None:
        value: Any = row.get(column)
        return None if _is_missing(value) else ("yes" if float(value) >= 1.0 else "no")

    if answer_node:
        em: Any = row.get(answer_metric_column("exact_match", answer_scope))
        f1: Any = row.get(answer_metric_column("f1", answer_scope))
        if _is_missing(em) or _is_missing(f1):
            return ""
        note = f"exact_match {float(em):.0f}, f1 {float(f1):.2f}"
        if answer_scope != "any" and not _is_missing(row.get("exact_match")) and float(row["exact_match"]) > float(em):
            source = {"context": "context", "document_id": "document", "document_id_and_context": "document and context"}
            note += f"; the text matches, but not from the gold {source[answer_scope]}"
        return note
    if not row.get("document_id") and not row.get("context"):
        return ""  # an empty retrieval (Haystack stores it as one empty document): nothing to match
    found = [(name, flag(column)) for name, column in
             (("id", "gold_id_match"), ("context", "context_match"), ("answer", "answer_match"))]
    shown = [f"{name} {value}" for name, value in found if value is not None]
    return ("matches gold: " + ", ".join(shown)) if shown else ""


def _fields(row: dict[str, Any], fields: tuple[str, ...], answer_node: bool) -> list[tuple[str, Any]]:
    """The ``wrong_examples_fields`` a listed row has, in the order asked (``document_id`` also names an
    answer's ``document_ids``)."""
    shown = []
    for field in fields:
        key = "document_ids" if field == "document_id" and answer_node and field not in row else field
        if key in row:
            shown.append((field, row[key]))
    return shown


def _check_metrics_filter(metrics_filter: Any, nodes: list[str], integrated: dict[str, dict[str, float]]) -> None:
    if metrics_filter is None:
        return
    if not isinstance(metrics_filter, Mapping):
        raise InvalidParameterError(f"metrics_filter must be a dict of node name to a list of metrics, e.g. "
                                    f"{{{nodes[0]!r}: [...]}} (or None for all); got {type(metrics_filter).__name__}.")
    for node, metrics in metrics_filter.items():
        if node not in integrated:
            raise InvalidParameterError(f"metrics_filter names node {node!r}, which the result does not hold; "
                                        f"it holds {list(integrated)}.")
        if isinstance(metrics, str) or not all(isinstance(m, str) for m in metrics):
            raise InvalidParameterError(f"metrics_filter[{node!r}] must be a list of metric names; got {metrics!r}.")
        unknown = [m for m in metrics if m not in integrated[node]]
        if unknown:
            valid = [m for m in integrated[node] if m != "num_examples_for_eval"]
            raise InvalidParameterError(f"metrics_filter[{node!r}] names metric(s) {unknown} that node {node!r} does "
                                        f"not have; it has {valid}.")


def _check_fields(fields: Any) -> tuple[str, ...]:
    if isinstance(fields, str) or not isinstance(fields, (list, tuple)) or not all(isinstance(f, str) for f in fields):
        raise InvalidParameterError(f"wrong_examples_fields must be a list of row fields, e.g. "
                                    f"{list(WRONG_EXAMPLES_FIELDS)}; got {fields!r}.")
    return tuple(fields)


def _check_measures(measures: Any) -> list[str]:
    """The report's trec_eval measures as canonical names (``P(rel=1)@5`` -> ``P@5``)."""
    if measures is None:
        return []
    names = [measures] if isinstance(measures, str) else measures
    if not isinstance(names, Sequence) or not names or not all(isinstance(m, str) for m in names):
        raise InvalidParameterError(f"measures must be a trec_eval measure name or a list of them, e.g. ['nDCG@10', 'AP']; "
                                    f"got {measures!r}.")
    return list(dict.fromkeys(str(m) for m in parse_measures(list(names))))


def _recall_chart(result: EvaluationResult, node: str, ks: range, options: dict[str, Any]) -> str | None:
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
    plot_metrics_at_k(result, ks=list(ks), node=node, metrics=["recall_single_hit"], ax=axes, **options)
    legend = axes.get_legend()
    if legend is not None:
        legend.remove()
    axes.set_title("")
    axes.set_ylabel("recall_single_hit")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _deepest_rank(result: EvaluationResult, node: str) -> int:
    """The largest rank the node returned (its document rows), at least 1: the recall@k chart stops there."""
    frame = result[node]
    if "rank" not in frame.columns:
        return 10
    ranks = pd.to_numeric(frame["rank"], errors="coerce")
    if "type" in frame.columns:
        ranks = ranks[frame["type"] == "document"]
    top = ranks.max()
    return max(1, int(top)) if top == top else 1


def build_report(
    result: EvaluationResult,
    *,
    n: int = 3,
    node_order: list[str] | None = None,
    max_characters_per_field: int = 150,
    charts: bool = True,
    metrics_filter: Mapping[str, Sequence[str]] | None = None,
    document_scope: str = "document_id_or_answer",
    answer_scope: str = "any",
    wrong_examples_fields: Sequence[str] = WRONG_EXAMPLES_FIELDS,
    measures: str | Sequence[str] | None = None,
    complete: bool = False,
    duplicates: str = "error",
) -> Report:
    """The pipeline funnel (integrated metrics, top-1 answer metrics, isolated upper bound) and worst queries.

    Without ``node_order``, nodes with document rows only come first (retrievers feed readers), else in the
    result's order. Every number is computed under ``document_scope`` / ``answer_scope``, which the report
    states; each listed document or answer is marked when it counts as correct under them.

    Parameters
    ----------
    metrics_filter : dict of node to list of str, optional
        The metrics shown per node in the funnel (Haystack 1.x's ``metrics_filter``); None shows all.
    wrong_examples_fields : list of str
        The fields shown for each listed answer / document of the worst queries.
    measures : str or list of str, optional
        trec_eval measures (:meth:`EvaluationResult.trec_metrics`, e.g. ``["nDCG@10", "AP"]``) shown in the
        funnel of the document nodes; the first one also ranks their worst queries (instead of the headline metric).
    complete, duplicates
        As in :meth:`EvaluationResult.trec_metrics`, for ``measures``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> report = build_report(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
    >>> "document_scope='document_id_or_answer', answer_scope='any'" in report.text
    True
    """
    if not is_result(result):  # by its interface: the facade calls this module
        raise InvalidParameterError(f"the report needs an EvaluationResult; got {type(result).__name__}. "
                                    "Load one first: EvaluationResult.load(folder).")
    n = check_positive_int(n, name="n (worst queries per node)", minimum=1)
    max_characters_per_field = check_positive_int(max_characters_per_field, name="max_characters_per_field", minimum=1)
    fields = _check_fields(wrong_examples_fields)
    if node_order is not None and (isinstance(node_order, str) or not all(isinstance(x, str) for x in node_order)):
        raise InvalidParameterError(f"node_order must be a list of node names, e.g. {list(result)}; got {node_order!r}.",
                                    parameter="node_order")
    nodes = list(node_order) if node_order else result.pipeline_order()
    unknown = [node for node in nodes if node not in result]
    if unknown:
        raise InvalidParameterError(f"node_order names node(s) {unknown} that the result does not hold; it holds "
                                    f"{list(result)}.{did_you_mean(unknown[0], list(result))}", parameter="node_order")
    with warnings.catch_warnings(record=True) as caught:  # each analysis would repeat a scope warning: say it once
        warnings.simplefilter("always")
        text, page = _sections(result, nodes, n, max_characters_per_field, charts, metrics_filter, document_scope,
                               answer_scope, fields, _check_measures(measures), {"complete": complete,
                                                                                 "duplicates": duplicates})
    for message, category in dict.fromkeys((str(w.message), w.category) for w in caught):
        warn(message, category)
    document = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe report</title>"
                f"<style>{_CSS}</style></head><body><div class='evalframe-report'>{''.join(page)}</div></body></html>")
    return Report(text="\n".join(text).rstrip() + "\n", html=document)


def _sections(result: EvaluationResult, nodes: list[str], n: int, max_characters_per_field: int, charts: bool,
              metrics_filter: Mapping[str, Sequence[str]] | None, document_scope: str, answer_scope: str,
              fields: tuple[str, ...], measures: list[str], trec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The report's text lines and HTML fragments."""
    scopes: dict[str, Any] = {"document_scope": document_scope, "answer_scope": answer_scope}
    integrated = result.calculate_metrics(**scopes)  # checks the scopes, naming the valid ones
    top1 = result.calculate_metrics(simulated_top_k_reader=1, **scopes)
    isolated = (result.calculate_metrics(eval_mode="isolated", **scopes)
                if any(_has_isolated(result, n_) for n_ in nodes) else {})
    measured = [node for node in nodes if measures and result.has_documents(node) and not result.has_answers(node)]
    evaluated = {}
    for node in measured:
        per_query = result.trec_query_metrics(measures, node=node, **trec)
        evaluated[node] = len(per_query)
        integrated[node].update({m: float(per_query[m].mean()) if len(per_query) else 0.0 for m in per_query.columns})
        if _has_isolated(result, node):
            isolated[node].update(result.trec_metrics(measures, node=node, eval_mode="isolated", **trec))
    _check_metrics_filter(metrics_filter, nodes, integrated)
    scope_line = (f"Scopes: document_scope={document_scope!r}, answer_scope={answer_scope!r} "
                  f"(what they mean: '{DEFINITIONS_TITLE}', at the end)")
    explained: dict[str, None] = {}  # the metrics the report shows, in order: each is explained at the end

    text = [f"evalframe {__version__} evaluation report", "=" * 60, scope_line, "Pipeline funnel (integrated evaluation)", ""]
    page = [f"<h1>Evaluation report</h1><p class='muted'>evalframe {__version__}; nodes: "
            f"{html.escape(', '.join(nodes))}</p>",
            f"<p class='scopes'>Scopes: <code>document_scope={html.escape(repr(document_scope))}</code>, "
            f"<code>answer_scope={html.escape(repr(answer_scope))}</code> "
            f"(<a href='#{DEFINITIONS_ANCHOR}'>what they mean</a>)</p>", "<h2>Pipeline funnel</h2>",
            "<table><tr><th>node</th><th>metric</th><th>integrated</th><th>top-1</th><th>isolated (upper bound)</th></tr>"]
    text.append("Query")
    flagged = False
    for node in nodes:
        text.append("  |")
        text.append(node)
        answer_node = result.has_answers(node)
        shown = None if metrics_filter is None or node not in metrics_filter else set(metrics_filter[node])
        for metric, value in integrated[node].items():
            if metric == "num_examples_for_eval" or (shown is not None and metric not in shown):
                continue
            explained[metric] = None
            values = [value] + ([top1[node][metric]] if answer_node else []) + (
                [isolated[node][metric]] if metric in isolated.get(node, {}) else [])
            above_one = any(v > 1.0 for v in values)
            flagged = flagged or above_one
            extras = []
            if answer_node:
                extras.append(f"top-1 {top1[node][metric]:.4f}")
            if metric in isolated.get(node, {}):
                extras.append(f"isolated {isolated[node][metric]:.4f}")
            text.append(f"  | {metric:<18} {value:.4f}" + (f"   ({', '.join(extras)})" if extras else "")
                        + (f"   [! {ABOVE_ONE}]" if above_one else ""))
            flag = (f" <span class='flag' title='{ABOVE_ONE}'>&#9888; above 1 "
                    f"(<a href='#{_metric_anchor(metric)}'>why</a>)</span>" if above_one else "")
            name = (f"<a class='metric' href='#{_metric_anchor(metric)}' title='{html.escape(_description(metric))}'>"
                    f"{html.escape(metric)}</a>")
            page.append(
                f"<tr><td class='node'>{html.escape(node)}</td><td>{name}{flag}</td><td class='num'>{value:.4f}</td>"
                f"<td class='num'>{f'{top1[node][metric]:.4f}' if answer_node else ''}</td>"
                f"<td class='num'>{f'{isolated[node][metric]:.4f}' if metric in isolated.get(node, {}) else ''}</td></tr>"
            )
    text += ["  |", "Output", ""]
    page.append("</table>")
    for node, count in evaluated.items():
        note = (f"{', '.join(measures)} of {node}: trec_eval's definitions, means over the {count} queries trec_eval "
                f"evaluates (the Haystack metrics: over all the node's queries)")
        text += [f"[trec] {note}; see '{DEFINITIONS_TITLE}', at the end.", ""]
        page.append(f"<p class='muted'>{html.escape(note)} (<a href='#{DEFINITIONS_ANCHOR}'>definitions</a>).</p>")
    if flagged:
        text += [f"[!] map / ndcg {ABOVE_ONE}; see '{DEFINITIONS_TITLE}', at the end.", ""]
        page.append(f"<p class='flag'>&#9888; map / ndcg {html.escape(ABOVE_ONE)}; see "
                    f"<a href='#{DEFINITIONS_ANCHOR}'>{DEFINITIONS_TITLE}</a>.</p>")

    for node in nodes:
        answer_node = result.has_answers(node)
        metric = measures[0] if node in measured else result.headline_metric(node)
        explained[metric] = None
        if not answer_node and charts:
            chart = _recall_chart(result, node, range(1, _deepest_rank(result, node) + 1), scopes)
            if chart:
                page.append(f"<h2>{html.escape(node)}: recall@k</h2><img alt='recall@k' src='data:image/png;base64,{chart}'>")
        worst = (result.wrong_examples(node, n=n, document_metric=metric, **scopes, **trec) if node in measured
                 else result.wrong_examples(node, n=n, **scopes))
        title = f"Worst queries of {node} by {metric}"
        text += [title, "-" * len(title)]
        page.append(f"<h2>{html.escape(title)}</h2>")
        if not worst:
            text += [f"no query scores {metric} <= {THRESHOLD}", ""]
            page.append(f"<p>No query scores {metric} &le; {THRESHOLD}.</p>")
            continue
        kind = "answers" if answer_node else "retrieved documents"
        text.append(f"([correct]: judged correct under {'answer_scope' if answer_node else 'document_scope'} "
                    f"{answer_scope if answer_node else document_scope!r}"
                    + (f" and answer_scope {answer_scope!r}" if not answer_node and document_scope in ("answer",
                       "document_id_or_answer") else "") + ")")
        rows = [f"<table><tr><th>query</th><th>{metric}</th><th>gold</th><th>{kind} "
                "(<span class='ok'>&#10003;</span> judged correct under the scopes above)</th></tr>"]
        for example in worst:
            gold = example["gold_answers"] if answer_node else example["gold_document_ids"]
            listed = example["answers" if answer_node else "documents"]
            text.append(f"query:  {_cut(example['query'], max_characters_per_field)}")
            text.append(f"{metric}: {example['metrics'][metric]:.4f}")
            text.append(f"gold:   {_gold(gold, max_characters_per_field, answer_node)}")
            items = []
            for row in listed[:3]:
                correct = _judged_correct(row, answer_node, document_scope, answer_scope)
                parts = [(field, _value(field, value, max_characters_per_field))
                         for field, value in _fields(row, fields, answer_node)]
                why = _why(row, answer_node, answer_scope)
                text.append(f"  rank {_rank(row.get('rank'))}{' [correct]' if correct else ''}:" + (f" ({why})" if why else ""))
                text += [f"    {field}: {value}" for field, value in parts]
                mark = "<span class='ok' title='judged correct'>&#10003;</span> " if correct else ""
                why_html = f" <span class='why'>({html.escape(why)})</span>" if why else ""
                items.append(f"{_rank(row.get('rank'))}. {mark}" + " ".join(
                    f"<span class='field'>{field}:</span> "
                    + (f"<b>{html.escape(value)}</b>" if field in ("answer", "document_id")
                       else f"<span class='muted'>{html.escape(value)}</span>")
                    for field, value in parts) + why_html)
            text.append("")
            rows.append(f"<tr><td>{html.escape(_cut(example['query'], max_characters_per_field))}</td>"
                        f"<td class='num'>{example['metrics'][metric]:.4f}</td>"
                        f"<td>{html.escape(_gold(gold, max_characters_per_field, answer_node))}</td>"
                        f"<td>{'<br>'.join(items)}</td></tr>")
        page.append("".join(rows) + "</table>")
    definitions_text, definitions_page = _definitions(list(explained), document_scope, answer_scope)
    return text + definitions_text, page + [definitions_page]


def print_eval_report(
    eval_result: EvaluationResult,
    n_wrong_examples: int = 3,
    metrics_filter: Mapping[str, Sequence[str]] | None = None,
    document_scope: str = "document_id_or_answer",
    answer_scope: str = "any",
    wrong_examples_fields: Sequence[str] = WRONG_EXAMPLES_FIELDS,
    max_characters_per_field: int = 150,
    *,
    node_order: list[str] | None = None,
) -> None:
    """Print the report, as Haystack 1.x's ``Pipeline.print_eval_report`` did (Haystack 1.26's arguments, same order).

    Parameters
    ----------
    eval_result : EvaluationResult
    n_wrong_examples : int
        The worst queries shown per node.
    metrics_filter : dict of node to list of str, optional
        The metrics shown per node; None shows all.
    document_scope, answer_scope : str
        What makes a document relevant and where a matching answer must come from
        (``docs/metrics.md#relevance-criterion``); the report states them.
    wrong_examples_fields : list of str
        The fields shown for each listed answer / document (default ``["answer", "context", "document_id"]``).
    max_characters_per_field : int
        Longer field values are cut, ending in "...".
    node_order : list of str, optional
        The nodes in pipeline order (keyword only: not one of Haystack's arguments).

    Examples
    --------
    >>> from evalframe import load_demo_result, print_eval_report
    >>> print_eval_report(load_demo_result(), 1, {"Retriever": ["mrr"], "Reader": ["f1"]}, "document_id", "any",
    ...                   ["answer"], 40)  # doctest: +ELLIPSIS
    evalframe ... evaluation report
    ...
    """
    print(build_report(eval_result, n=n_wrong_examples, node_order=node_order, metrics_filter=metrics_filter,
                       document_scope=document_scope, answer_scope=answer_scope,
                       wrong_examples_fields=wrong_examples_fields,
                       max_characters_per_field=max_characters_per_field, charts=False).text)
