"""The report's renderers: each lays a :class:`~evalframe.report.model.ReportModel` out in one format, computing
no number (the model holds them all; a renderer only formats them).

``RENDERERS`` maps each format to its renderer: ``text`` (terminals), ``html`` (one self-contained page, charts
embedded), ``markdown`` (no charts) and ``json`` (:func:`to_dict`'s shape, NaN as null).

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> model = build_model(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> print(RENDERERS["markdown"](model).splitlines()[0])
# Evaluation report
>>> to_dict(model)["funnel"][0]["metrics"][0]["metric"]
'mrr'
"""

from __future__ import annotations

import html
import json
import math
import numbers
import re
from collections.abc import Callable
from typing import Any

from .model import ABOVE_ONE, DEFINITIONS_TITLE, Definitions, ReportModel, Section

__all__ = ["RENDERERS", "render_html", "render_json", "render_markdown", "render_text", "to_dict"]

#: The page links to the report's last section (and to each metric's definition there) by these anchors.
DEFINITIONS_ANCHOR = "evalframe-definitions"

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


def _metric_anchor(metric: str) -> str:
    """The id of a metric's definition in the page (a measure's ``(``, ``=`` and ``@`` become ``-``)."""
    return "evalframe-metric-" + re.sub(r"[^A-Za-z0-9_]", "-", metric)


def _markdown_html(markdown: str) -> str:
    """The registry's inline markdown (``**bold**``, ```code```, ``\\|``) as escaped HTML."""
    text = html.escape(markdown.replace("\\|", "|"), quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def _scopes(model: ReportModel) -> str:
    return f"document_scope={model.document_scope!r}, answer_scope={model.answer_scope!r}"


def _trec_note(model: ReportModel, node: str, queries: int) -> str:
    return (f"{', '.join(model.measures)} of {node}: trec_eval's definitions, means over the {queries} queries trec_eval "
            f"evaluates (the Haystack metrics: over all the node's queries)")


def _judged_under(model: ReportModel, section: Section) -> str:
    """Under which scope a listed row counts as correct (the text's legend of ``[correct]``)."""
    scope = model.answer_scope if section.answer_node else model.document_scope
    both = not section.answer_node and model.document_scope in ("answer", "document_id_or_answer")
    return (f"judged correct under {'answer_scope' if section.answer_node else 'document_scope'} {scope!r}"
            + (f" and answer_scope {model.answer_scope!r}" if both else ""))


def _includes(model: ReportModel) -> list[tuple[str, str]]:
    """What the document metrics' means include: each document node's no-answer queries, and what the scope credits
    (the text's label of each, its sentence)."""
    return [("no-answer", count.sentence()) for count in model.no_answer] + (
        [("scope", model.scope_note)] if model.scope_note else [])


def _answerable_shown(model: ReportModel) -> bool:
    return any(row.answerable is not None for node in model.funnel for row in node.rows)


def _title(section: Section) -> str:
    return f"Worst queries of {section.node} by {section.metric}"


# ---------------------------------------------------------------------------------------------- text
def render_text(model: ReportModel) -> str:
    """The report for a terminal (``str(report)``, :func:`evalframe.print_eval_report`)."""
    text = [f"evalframe {model.version} evaluation report", "=" * 60,
            f"Scopes: {_scopes(model)} (what they mean: '{DEFINITIONS_TITLE}', at the end)",
            "Pipeline funnel (integrated evaluation)", "", "Query"]
    for node in model.funnel:
        text += ["  |", node.node]
        for row in node.rows:
            extras = ([f"top-1 {row.top1:.4f}"] if row.top1 is not None else []) + (
                [f"isolated {row.isolated:.4f}"] if row.isolated is not None else []) + (
                [f"answerable only {row.answerable:.4f}"] if row.answerable is not None else [])
            text.append(f"  | {row.metric:<18} {row.integrated:.4f}" + (f"   ({', '.join(extras)})" if extras else "")
                        + (f"   [! {ABOVE_ONE}]" if row.above_one else ""))
    text += ["  |", "Output", ""]
    text += [f"[{label}] {line}" for label, line in _includes(model)] + ([""] if _includes(model) else [])
    for count in model.trec_counts:
        text += [f"[trec] {_trec_note(model, count.node, count.queries)}; see '{DEFINITIONS_TITLE}', at the end.", ""]
    if model.above_one:
        text += [f"[!] map / ndcg {ABOVE_ONE}; see '{DEFINITIONS_TITLE}', at the end.", ""]
    for section in model.sections:
        title = _title(section)
        text += [title, "-" * len(title)]
        if not section.queries:
            text += [f"no query scores {section.metric} <= {section.threshold}", ""]
            continue
        text.append(f"([correct]: {_judged_under(model, section)})")
        for query in section.queries:
            text += [f"query:  {query.query}", f"{section.metric}: {query.value:.4f}", f"gold:   {query.gold}"]
            for listed in query.listed:
                text.append(f"  rank {listed.rank}{' [correct]' if listed.correct else ''}:"
                            + (f" ({listed.why})" if listed.why else ""))
                text += [f"    {field}: {value}" for field, value in listed.fields]
            text.append("")
    text += _definitions_text(model)
    return "\n".join(text).rstrip() + "\n"


def _definitions_text(model: ReportModel) -> list[str]:
    definitions = model.definitions
    lines = [DEFINITIONS_TITLE, "-" * len(DEFINITIONS_TITLE), f"relevant document ({_scopes(model)}): "
             f"{definitions.relevant_document}", f"correct answer (answer_scope={model.answer_scope!r}): "
             f"{definitions.correct_answer}", definitions.modes]
    width = max((len(d.metric) for d in definitions.metrics), default=0)
    return lines + [f"{d.metric:<{width}}  {d.description}" for d in definitions.metrics]


# ---------------------------------------------------------------------------------------------- HTML
def render_html(model: ReportModel) -> str:
    """The report as one self-contained HTML page (the recall@k charts embedded as PNG)."""
    page = [f"<h1>Evaluation report</h1><p class='muted'>evalframe {model.version}; nodes: "
            f"{html.escape(', '.join(model.nodes))}</p>",
            f"<p class='scopes'>Scopes: <code>document_scope={html.escape(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={html.escape(repr(model.answer_scope))}</code> "
            f"(<a href='#{DEFINITIONS_ANCHOR}'>what they mean</a>)</p>", "<h2>Pipeline funnel</h2>",
            "<table><tr><th>node</th><th>metric</th><th>integrated</th><th>top-1</th><th>isolated (upper bound)</th>"
            + ("<th>answerable only</th>" if _answerable_shown(model) else "") + "</tr>"]
    for node in model.funnel:
        for row in node.rows:
            anchor = _metric_anchor(row.metric)
            flag = (f" <span class='flag' title='{ABOVE_ONE}'>&#9888; above 1 "
                    f"(<a href='#{anchor}'>why</a>)</span>" if row.above_one else "")
            name = (f"<a class='metric' href='#{anchor}' title='{html.escape(row.description)}'>"
                    f"{html.escape(row.metric)}</a>")
            page.append(
                f"<tr><td class='node'>{html.escape(node.node)}</td><td>{name}{flag}</td>"
                f"<td class='num'>{row.integrated:.4f}</td>"
                f"<td class='num'>{f'{row.top1:.4f}' if row.top1 is not None else ''}</td>"
                f"<td class='num'>{f'{row.isolated:.4f}' if row.isolated is not None else ''}</td>"
                + (f"<td class='num'>{f'{row.answerable:.4f}' if row.answerable is not None else ''}</td>"
                   if _answerable_shown(model) else "") + "</tr>")
    page.append("</table>")
    page += [f"<p class='muted includes'>{html.escape(line)}</p>" for _, line in _includes(model)]
    for count in model.trec_counts:
        page.append(f"<p class='muted'>{html.escape(_trec_note(model, count.node, count.queries))} "
                    f"(<a href='#{DEFINITIONS_ANCHOR}'>definitions</a>).</p>")
    if model.above_one:
        page.append(f"<p class='flag'>&#9888; map / ndcg {html.escape(ABOVE_ONE)}; see "
                    f"<a href='#{DEFINITIONS_ANCHOR}'>{DEFINITIONS_TITLE}</a>.</p>")
    page += [_section_html(section) for section in model.sections]
    page.append(_definitions_html(model))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe report</title>"
            f"<style>{_CSS}</style></head><body><div class='evalframe-report'>{''.join(page)}</div></body></html>")


def _section_html(section: Section) -> str:
    title = _title(section)
    page = ""
    if section.chart:
        page += (f"<h2>{html.escape(section.node)}: recall@k</h2>"
                 f"<img alt='recall@k' src='data:image/png;base64,{section.chart}'>")
    page += f"<h2>{html.escape(title)}</h2>"
    if not section.queries:
        return page + f"<p>No query scores {section.metric} &le; {section.threshold}.</p>"
    kind = "answers" if section.answer_node else "retrieved documents"
    rows = [f"<table><tr><th>query</th><th>{section.metric}</th><th>gold</th><th>{kind} "
            "(<span class='ok'>&#10003;</span> judged correct under the scopes above)</th></tr>"]
    for query in section.queries:
        items = []
        for listed in query.listed:
            mark = "<span class='ok' title='judged correct'>&#10003;</span> " if listed.correct else ""
            why = f" <span class='why'>({html.escape(listed.why)})</span>" if listed.why else ""
            items.append(f"{listed.rank}. {mark}" + " ".join(
                f"<span class='field'>{field}:</span> "
                + (f"<b>{html.escape(value)}</b>" if field in ("answer", "document_id")
                   else f"<span class='muted'>{html.escape(value)}</span>")
                for field, value in listed.fields) + why)
        rows.append(f"<tr><td>{html.escape(query.query)}</td><td class='num'>{query.value:.4f}</td>"
                    f"<td>{html.escape(query.gold)}</td><td>{'<br>'.join(items)}</td></tr>")
    return page + "".join(rows) + "</table>"


def _definitions_html(model: ReportModel) -> str:
    definitions = model.definitions
    items = "".join(
        f"<dt id='{_metric_anchor(d.metric)}'><code>{html.escape(d.metric)}</code></dt>"
        f"<dd>{html.escape(d.description)} {_markdown_html(d.details)}</dd>" for d in definitions.metrics)
    symbols = ("<p class='muted'>" + "; ".join(f"<b>{html.escape(s)}</b>: {html.escape(meaning)}"
                                               for s, meaning in definitions.symbols) + ".</p>"
               if definitions.symbols else "")
    return (f"<h2 id='{DEFINITIONS_ANCHOR}'>{DEFINITIONS_TITLE}</h2><dl class='definitions'>"
            f"<dt>relevant document ({html.escape(_scopes(model))})</dt><dd>{html.escape(definitions.relevant_document)}</dd>"
            f"<dt>correct answer (answer_scope={html.escape(repr(model.answer_scope))})</dt>"
            f"<dd>{html.escape(definitions.correct_answer)}</dd>"
            f"<dt>integrated, top-1, isolated</dt><dd>{html.escape(definitions.modes)}</dd>{items}</dl>{symbols}"
            "<p class='muted'>Every value is the mean over the node's queries of the per-query value.</p>")


# ---------------------------------------------------------------------------------------------- Markdown
def _md(value: Any) -> str:
    """A table cell: ``|`` escaped, on one line."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _md_value(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def render_markdown(model: ReportModel) -> str:
    """The report as GitHub-flavoured Markdown (no charts): the funnel and each node's worst queries as tables."""
    lines = ["# Evaluation report", "", f"evalframe {model.version}; nodes: {', '.join(model.nodes)}", "",
             f"Scopes: `document_scope={model.document_scope!r}`, `answer_scope={model.answer_scope!r}` "
             f"(what they mean: [{DEFINITIONS_TITLE}](#{_slug(DEFINITIONS_TITLE)}))", "", "## Pipeline funnel", "",
             "| node | metric | integrated | top-1 | isolated (upper bound) |"
             + (" answerable only |" if _answerable_shown(model) else ""),
             "|---|---|---|---|---|" + ("---|" if _answerable_shown(model) else "")]
    lines += [f"| {_md(node.node)} | {_md(row.metric)}{' ⚠ above 1' if row.above_one else ''} | "
              f"{_md_value(row.integrated)} | {_md_value(row.top1)} | {_md_value(row.isolated)} |"
              + (f" {_md_value(row.answerable)} |" if _answerable_shown(model) else "")
              for node in model.funnel for row in node.rows]
    lines.append("")
    lines += [f"{_md(line)}\n" for _, line in _includes(model)]
    lines += [f"{_trec_note(model, count.node, count.queries)}.\n" for count in model.trec_counts]
    if model.above_one:
        lines += [f"⚠ map / ndcg {ABOVE_ONE}.", ""]
    for section in model.sections:
        lines += [f"## {_title(section)}", ""]
        if not section.queries:
            lines += [f"No query scores {section.metric} <= {section.threshold}.", ""]
            continue
        kind = "answers" if section.answer_node else "retrieved documents"
        lines += [f"✓: {_judged_under(model, section)}.", "", f"| query | {_md(section.metric)} | gold | {kind} |",
                  "|---|---|---|---|"]
        for query in section.queries:
            listed = "<br>".join(
                f"{row.rank}. {'✓ ' if row.correct else ''}"
                + "; ".join(f"{field}: {_md(value)}" for field, value in row.fields)
                + (f" ({_md(row.why)})" if row.why else "") for row in query.listed)
            lines.append(f"| {_md(query.query)} | {query.value:.4f} | {_md(query.gold)} | {listed} |")
        lines.append("")
    lines += _definitions_markdown(model)
    return "\n".join(lines).rstrip() + "\n"


def _slug(title: str) -> str:
    """GitHub's anchor of a heading: lower case, spaces as ``-``."""
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def _definitions_markdown(model: ReportModel) -> list[str]:
    definitions = model.definitions
    lines = [f"## {DEFINITIONS_TITLE}", "", f"- **relevant document** ({_scopes(model)}): {definitions.relevant_document}",
             f"- **correct answer** (answer_scope={model.answer_scope!r}): {definitions.correct_answer}",
             f"- **integrated, top-1, isolated**: {definitions.modes}"]
    lines += [f"- `{d.metric}`: {d.description}" + (f" {d.details}" if d.details else "") for d in definitions.metrics]
    if definitions.symbols:
        lines += ["", "; ".join(f"**{symbol}**: {meaning}" for symbol, meaning in definitions.symbols) + "."]
    return lines + ["", "Every value is the mean over the node's queries of the per-query value."]


# ---------------------------------------------------------------------------------------------- JSON
def _number(value: Any) -> Any:
    """A value for JSON: a float (None for NaN or missing), an int or a string as it is."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if not isinstance(value, numbers.Real):
        return str(value)
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def to_dict(model: ReportModel) -> dict[str, Any]:
    """The report as plain JSON data: the documented shape of ``report.to_dict()`` (docs/cli.md#report-as-json).

    ``schema_version`` 1: keys are added in later versions, never renamed or removed. Numbers are numbers (NaN is None),
    the charts are left out.
    """
    return {
        "schema_version": 1,
        "evalframe_version": model.version,
        "nodes": list(model.nodes),
        "scopes": {"document_scope": model.document_scope, "answer_scope": model.answer_scope},
        "measures": list(model.measures),
        "funnel": [{"node": node.node, "answer_node": node.answer_node, "metrics": [
            {"metric": row.metric, "integrated": _number(row.integrated), "top1": _number(row.top1),
             "isolated": _number(row.isolated), "above_one": row.above_one, "answerable": _number(row.answerable)}
            for row in node.rows]}
            for node in model.funnel],
        "no_answer": [{"node": count.node, "queries": count.queries, "no_answer_queries": count.no_answer_queries}
                      for count in model.no_answer],
        "scope_note": model.scope_note,
        "trec": [{"node": count.node, "queries": count.queries} for count in model.trec_counts],
        "above_one": model.above_one,
        "worst": [{"node": section.node, "answer_node": section.answer_node, "metric": section.metric,
                   "threshold": _number(section.threshold), "queries": [
                       {"query": query.query, "value": _number(query.value), "gold": query.gold, "listed": [
                           {"rank": _number(row.rank), "correct": row.correct, "why": row.why, "fields": dict(row.fields)}
                           for row in query.listed]} for query in section.queries]}
                  for section in model.sections],
        "definitions": _definitions_dict(model.definitions),
        "notes": [{"category": note.category.__name__, "message": note.message} for note in model.notes],
    }


def _definitions_dict(definitions: Definitions) -> dict[str, Any]:
    return {"relevant_document": definitions.relevant_document, "correct_answer": definitions.correct_answer,
            "modes": definitions.modes,
            "metrics": [{"metric": d.metric, "description": d.description, "details": d.details}
                        for d in definitions.metrics],
            "symbols": dict(definitions.symbols)}


def render_json(model: ReportModel) -> str:
    """:func:`to_dict` as JSON text (indented, UTF-8 kept)."""
    return json.dumps(to_dict(model), indent=1, ensure_ascii=False, allow_nan=False)


#: Each output format of the report and its renderer (``Report.render(format)``, ``evalframe report --format``).
RENDERERS: dict[str, Callable[[ReportModel], str]] = {
    "text": render_text, "html": render_html, "markdown": render_markdown, "json": render_json}
