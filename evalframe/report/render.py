"""The report's renderers: each lays a :class:`~evalframe.report.model.ReportModel` out in one format, computing
no number (the model holds them all; a renderer only formats them).

``RENDERERS`` maps each format to its renderer: ``text`` (terminals), ``html`` (one self-contained page, charts
embedded), ``markdown`` (no charts) and ``json`` (:func:`to_dict`'s shape, NaN as null).

Every text the model holds is the user's (node, run, score and field names, queries, answers, contexts, ids, meta
fields and values, file names) and is written as text, never as markup: in HTML escaped for an element or a quoted
attribute (:func:`_h`), in Markdown with its HTML and Markdown syntax escaped (:func:`_md`, :func:`_md_code`), in
every format with the control characters shown as their pictures (NUL as ``␀``: a browser drops a NUL, a terminal
runs an escape sequence) and a lone surrogate (a JSON ``"\\ud800"``) as U+FFFD (JSON: its ``\\u`` escape), so that UTF-8
can write it. No page embeds data in a script: the comparison's script is a constant. ``tests/report/
test_hostile_text.py`` loads pages with hostile text in every field in a browser.

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

from .model import ABOVE_ONE, DEFINITIONS_TITLE, ComparedNode, ComparisonModel, Definitions, GridQuery, ReportModel, \
    RunDelta, Section

__all__ = ["COMPARISON_RENDERERS", "comparison_to_dict", "render_comparison_html", "render_comparison_json",
           "render_comparison_markdown", "render_comparison_text",
           "RENDERERS", "render_html", "render_json", "render_markdown", "render_text", "to_dict"]

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
.evalframe-report b,.evalframe-report code,.evalframe-report span,.evalframe-report a{unicode-bidi:isolate}
"""


#: The C0 control characters but tab, line feed and carriage return, and DEL: shown as their control pictures.
_CONTROLS = {**{code: 0x2400 + code for code in range(0x20) if code not in (9, 10, 13)}, 0x7F: 0x2421}
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _visible(text: object) -> str:
    """``text`` as the report writes it: control characters as their pictures (``\x00`` as ``␀``), a lone surrogate
    as U+FFFD.

    Examples
    --------
    >>> _visible("a\\x00b\\x1b[2J\\ud800")
    'a␀b␛[2J�'
    """
    return _SURROGATE.sub("\ufffd", str(text).translate(_CONTROLS))


def _h(value: object) -> str:
    """``value`` as HTML text, for an element or a quoted attribute (``&``, ``<``, ``>``, ``"`` and ``'`` escaped).

    Examples
    --------
    >>> _h("\\"'><img src=x onerror=alert(1)>")
    '&quot;&#x27;&gt;&lt;img src=x onerror=alert(1)&gt;'
    """
    return html.escape(_visible(value), quote=True)


def _hi(value: object) -> str:
    """The user's text inside a sentence of ours, isolated (``<bdi>``): a right-to-left override in it (U+202E)
    reverses none of the words after it."""
    return f"<bdi>{_h(value)}</bdi>"


def _metric_anchor(metric: str) -> str:
    """The id of a metric's definition in the page (a measure's ``(``, ``=`` and ``@`` become ``-``)."""
    return "evalframe-metric-" + re.sub(r"[^A-Za-z0-9_]", "-", metric)


def _markdown_html(markdown: str) -> str:
    """The registry's inline markdown (``**bold**``, ```code```, ``\\|``) as escaped HTML."""
    text = _h(markdown.replace("\\|", "|"))
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
    """What the document metrics' means include: each document node's no-answer queries, what the scope credits, and
    the queries of the source left out of the result (the text's label of each, its sentence)."""
    return [("no-answer", count.sentence()) for count in model.no_answer] + (
        [("scope", model.scope_note)] if model.scope_note else []) + (
        [("left out", model.skipped)] if model.skipped else [])


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
            text += [f"no query scores {section.metric} {section.at_worst} {section.threshold}", ""]
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
    return _visible("\n".join(text).rstrip() + "\n")


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
    page = [f"<h1>Evaluation report</h1><p class='muted'>evalframe {_h(model.version)}; nodes: "
            f"{', '.join(map(_hi, model.nodes))}</p>",
            f"<p class='scopes'>Scopes: <code>document_scope={_h(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={_h(repr(model.answer_scope))}</code> "
            f"(<a href='#{DEFINITIONS_ANCHOR}'>what they mean</a>)</p>", "<h2>Pipeline funnel</h2>",
            "<table><tr><th>node</th><th>metric</th><th>integrated</th><th>top-1</th><th>isolated (upper bound)</th>"
            + ("<th>answerable only</th>" if _answerable_shown(model) else "") + "</tr>"]
    for node in model.funnel:
        for row in node.rows:
            anchor = _metric_anchor(row.metric)
            flag = (f" <span class='flag' title='{_h(ABOVE_ONE)}'>&#9888; above 1 "
                    f"(<a href='#{anchor}'>why</a>)</span>" if row.above_one else "")
            name = f"<a class='metric' href='#{anchor}' title='{_h(row.description)}'>{_h(row.metric)}</a>"
            page.append(
                f"<tr><td class='node'>{_h(node.node)}</td><td>{name}{flag}</td>"
                f"<td class='num'>{row.integrated:.4f}</td>"
                f"<td class='num'>{f'{row.top1:.4f}' if row.top1 is not None else ''}</td>"
                f"<td class='num'>{f'{row.isolated:.4f}' if row.isolated is not None else ''}</td>"
                + (f"<td class='num'>{f'{row.answerable:.4f}' if row.answerable is not None else ''}</td>"
                   if _answerable_shown(model) else "") + "</tr>")
    page.append("</table>")
    page += [f"<p class='muted includes'>{_h(line)}</p>" for _, line in _includes(model)]
    for count in model.trec_counts:
        page.append(f"<p class='muted'>{_h(_trec_note(model, count.node, count.queries))} "
                    f"(<a href='#{DEFINITIONS_ANCHOR}'>definitions</a>).</p>")
    if model.above_one:
        page.append(f"<p class='flag'>&#9888; map / ndcg {_h(ABOVE_ONE)}; see "
                    f"<a href='#{DEFINITIONS_ANCHOR}'>{_h(DEFINITIONS_TITLE)}</a>.</p>")
    page += [_section_html(section) for section in model.sections]
    page.append(_definitions_html(model))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe report</title>"
            f"<style>{_CSS}</style></head><body><div class='evalframe-report'>{''.join(page)}</div></body></html>")


def _section_html(section: Section) -> str:
    page = ""
    if section.chart:
        page += (f"<h2>{_hi(section.node)}: recall@k</h2>"
                 f"<img alt='recall@k' src='data:image/png;base64,{_h(section.chart)}'>")
    page += f"<h2>Worst queries of {_hi(section.node)} by {_hi(section.metric)}</h2>"  # _title's words
    if not section.queries:
        at_worst = "&ge;" if section.at_worst == ">=" else "&le;"
        return page + f"<p>No query scores {_hi(section.metric)} {at_worst} {_h(section.threshold)}.</p>"
    kind = "answers" if section.answer_node else "retrieved documents"
    rows = [f"<table><tr><th>query</th><th>{_h(section.metric)}</th><th>gold</th><th>{kind} "
            "(<span class='ok'>&#10003;</span> judged correct under the scopes above)</th></tr>"]
    for query in section.queries:
        items = []
        for listed in query.listed:
            mark = "<span class='ok' title='judged correct'>&#10003;</span> " if listed.correct else ""
            why = f" <span class='why'>({_h(listed.why)})</span>" if listed.why else ""
            items.append(f"{_h(listed.rank)}. {mark}" + " ".join(
                f"<span class='field'>{_h(field)}:</span> "
                + (f"<b>{_h(value)}</b>" if field in ("answer", "document_id") else f"<span class='muted'>{_h(value)}</span>")
                for field, value in listed.fields) + why)
        rows.append(f"<tr><td>{_h(query.query)}</td><td class='num'>{query.value:.4f}</td>"
                    f"<td>{_h(query.gold)}</td><td>{'<br>'.join(items)}</td></tr>")
    return page + "".join(rows) + "</table>"


def _definitions_html(model: ReportModel) -> str:
    definitions = model.definitions
    items = "".join(
        f"<dt id='{_metric_anchor(d.metric)}'><code>{_h(d.metric)}</code></dt>"
        f"<dd>{_h(d.description)} {_markdown_html(d.details)}</dd>" for d in definitions.metrics)
    symbols = ("<p class='muted'>" + "; ".join(f"<b>{_h(s)}</b>: {_h(meaning)}" for s, meaning in definitions.symbols)
               + ".</p>" if definitions.symbols else "")
    return (f"<h2 id='{DEFINITIONS_ANCHOR}'>{_h(DEFINITIONS_TITLE)}</h2><dl class='definitions'>"
            f"<dt>relevant document ({_h(_scopes(model))})</dt><dd>{_h(definitions.relevant_document)}</dd>"
            f"<dt>correct answer (answer_scope={_h(repr(model.answer_scope))})</dt>"
            f"<dd>{_h(definitions.correct_answer)}</dd>"
            f"<dt>integrated, top-1, isolated</dt><dd>{_h(definitions.modes)}</dd>{items}</dl>{symbols}"
            "<p class='muted'>Every value is the mean over the node's queries of the per-query value.</p>")


# ---------------------------------------------------------------------------------------------- Markdown
#: What Markdown (GitHub's: tables, math, strikethrough) or the HTML inside it reads as syntax, escaped by a backslash:
#: ``_`` where it may open or close an emphasis (not inside a word: ``recall_single_hit`` stays as it is).
_MD_SYNTAX = re.compile(r"[\\`*\[\]<>&|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LINE_BREAK = re.compile(r"\r\n|[\r\n]")


def _md(value: Any) -> str:
    """The user's text for Markdown (a table cell or a line): on one line, every character Markdown or HTML would
    read as syntax escaped (``<b>`` is shown, not rendered bold; ``|`` does not end the cell).

    Examples
    --------
    >>> print(_md("a|b <b>x</b> *y* snake_case _z_ ${1}"))
    a\\|b \\<b\\>x\\</b\\> \\*y\\* snake_case \\_z\\_ \\${1}
    """
    return _MD_SYNTAX.sub(lambda match: "\\" + match.group(), _LINE_BREAK.sub(" ", str(value)))


def _md_code(value: Any) -> str:
    """The user's text as a Markdown code span outside a table (shown as it is: no escape works inside one), its
    fence longer than any run of backticks in it.

    Examples
    --------
    >>> print(_md_code("bm25"), _md_code("a`b"))
    `bm25` `` a`b ``
    """
    text = _LINE_BREAK.sub(" ", str(value))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_value(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def render_markdown(model: ReportModel) -> str:
    """The report as GitHub-flavoured Markdown (no charts): the funnel and each node's worst queries as tables."""
    lines = ["# Evaluation report", "", f"evalframe {_md(model.version)}; nodes: {_md(', '.join(model.nodes))}", "",
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
    lines += [f"{_md(_trec_note(model, count.node, count.queries))}.\n" for count in model.trec_counts]
    if model.above_one:
        lines += [f"⚠ map / ndcg {ABOVE_ONE}.", ""]
    for section in model.sections:
        lines += [f"## {_md(_title(section))}", ""]
        if not section.queries:
            lines += [f"No query scores {_md(section.metric)} {_md(section.at_worst)} {_md(section.threshold)}.", ""]
            continue
        kind = "answers" if section.answer_node else "retrieved documents"
        lines += [f"✓: {_md(_judged_under(model, section))}.", "", f"| query | {_md(section.metric)} | gold | {kind} |",
                  "|---|---|---|---|"]
        for query in section.queries:
            listed = "<br>".join(
                f"{_md(row.rank)}. {'✓ ' if row.correct else ''}"
                + "; ".join(f"{_md(field)}: {_md(value)}" for field, value in row.fields)
                + (f" ({_md(row.why)})" if row.why else "") for row in query.listed)
            lines.append(f"| {_md(query.query)} | {query.value:.4f} | {_md(query.gold)} | {listed} |")
        lines.append("")
    lines += _definitions_markdown(model)
    return _visible("\n".join(lines).rstrip() + "\n")


def _slug(title: str) -> str:
    """GitHub's anchor of a heading: lower case, spaces as ``-``."""
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def _definitions_markdown(model: ReportModel) -> list[str]:
    definitions = model.definitions
    lines = [f"## {DEFINITIONS_TITLE}", "", f"- **relevant document** ({_scopes(model)}): {definitions.relevant_document}",
             f"- **correct answer** (answer_scope={model.answer_scope!r}): {definitions.correct_answer}",
             f"- **integrated, top-1, isolated**: {definitions.modes}"]
    lines += [f"- {_md_code(d.metric)}: {_md(d.description)}" + (f" {d.details}" if d.details else "")
              for d in definitions.metrics]
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
        "skipped": model.skipped,
        "trec": [{"node": count.node, "queries": count.queries} for count in model.trec_counts],
        "above_one": model.above_one,
        "worst": [{"node": section.node, "answer_node": section.answer_node, "metric": section.metric,
                   "threshold": _number(section.threshold), "direction": section.direction, "queries": [
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


def _json_text(data: Any) -> str:
    """``data`` as JSON text, indented, UTF-8 kept; a lone surrogate (only ever inside a string) as its ``\\u``
    escape, which UTF-8 can write and a reader turns back into the same string."""
    text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def render_json(model: ReportModel) -> str:
    """:func:`to_dict` as JSON text (indented, UTF-8 kept)."""
    return _json_text(to_dict(model))


#: Each output format of the report and its renderer (``Report.render(format)``, ``evalframe report --format``).
RENDERERS: dict[str, Callable[[ReportModel], str]] = {
    "text": render_text, "html": render_html, "markdown": render_markdown, "json": render_json}


# ---------------------------------------------------------------------------------------------- the comparison
def _signed(value: float) -> str:
    return "" if value != value else f"{value:+.4f}"


def _plain(value: float) -> str:
    return "" if value != value else f"{value:.4f}"


def _arrow(direction: str) -> str:
    return {"higher": "↑", "lower": "↓"}.get(direction, "")  # a count (direction "none"): no arrow


def _delta_text(delta: RunDelta) -> str:
    """A run's delta for a person: ``+0.1250 [+0.0000, +0.2500] p=0.0412 *`` (``*``: significant; ▲/▼: better/worse)."""
    mark = {"better": " ▲", "worse": " ▼"}.get(delta.change, "")
    return (f"{_signed(delta.delta)} [{_signed(delta.ci_low)}, {_signed(delta.ci_high)}] p={_plain(delta.p_value)}"
            + (" *" if delta.significant else "") + mark)


def _test_note(model: ComparisonModel) -> str:
    corrected = " Holm-corrected over the runs of each measure," if model.holm else ""
    test = "paired t-test" if model.test == "t-test" else f"paired {model.test} test"
    return (f"Delta: each run minus {model.names[0]!r}, with its {model.confidence:.0%} bootstrap interval; p: the "
            f"{test}'s p-value,{corrected} * when at most {model.max_p:g}; ▲ better / ▼ worse by the measure's "
            f"direction (↑ higher is better, ↓ lower is better, no arrow: a count, neither). Values over the queries "
            f"paired with {model.names[0]!r}.")


def _worst_queries(node: ComparedNode, n: int) -> list[GridQuery]:
    return [query for query in node.queries if query.worst < 0][:n]


def render_comparison_text(model: ComparisonModel) -> str:
    """The comparative report for a terminal."""
    lines = [f"evalframe {model.version} comparative report", "=" * 60, f"Runs: {', '.join(model.names)} "
             f"(baseline {model.names[0]!r}); document_scope={model.document_scope!r}, answer_scope={model.answer_scope!r}",
             _test_note(model), *(f"[includes] {line}" for line in model.includes), ""]
    for node in model.nodes:
        header = ["metric", *model.names, *(f"{d.run} - {model.names[0]}" for d in node.measures[0].deltas)]
        rows = [[f"{m.metric} {_arrow(m.direction)}", *(_plain(v) for v in m.values), *(_delta_text(d) for d in m.deltas)]
                for m in node.measures]
        widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
        lines += [node.node, "-" * len(node.node)]
        lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
                  for line in [header, *rows]]
        worst = _worst_queries(node, model.n)
        position = [m.metric for m in node.measures].index(node.order_metric)
        lines += ["", f"Queries that got worse on {node.order_metric} (worst first, {len(worst)} shown of "
                      f"{sum(q.worst < 0 for q in node.queries)}; {len(node.queries)} queries in all):"]
        for query in worst:
            values = " ".join(f"{name}={_plain(value)}" for name, value in zip(model.names, query.values[position]))
            lines.append(f"  {_signed(query.worst)}  {values}  {query.query}")
        if not worst:
            lines.append("  none")
        lines.append("")
    lines += [f"[{note.category.__name__}] {note.message}" for note in model.notes]
    return _visible("\n".join(lines).rstrip() + "\n")


def render_comparison_markdown(model: ComparisonModel) -> str:
    """The comparative report as GitHub-flavoured Markdown (for a pull request): a table per node and its worst queries."""
    lines = ["# Comparative report", "", f"Runs: {', '.join(_md_code(name) for name in model.names)} (baseline "
             f"{_md_code(model.names[0])}); `document_scope={model.document_scope!r}`, `answer_scope={model.answer_scope!r}`",
             "", _md(_test_note(model)), "", *(part for line in model.includes for part in (f"> {_md(line)}", ""))]
    for node in model.nodes:
        runs = node.measures[0].deltas
        lines += [f"## {_md(node.node)}", "", "| metric | " + " | ".join(_md(name) for name in model.names) + " | "
                  + " | ".join(f"{_md(d.run)} − {_md(model.names[0])}" for d in runs) + " |",
                  "|---|" + "---:|" * (len(model.names) + len(runs))]
        lines += [f"| {_md(m.metric)} {_arrow(m.direction)} | " + " | ".join(_plain(v) for v in m.values) + " | "
                  + " | ".join(_delta_text(d) for d in m.deltas) + " |" for m in node.measures]
        worst = _worst_queries(node, model.n)
        position = [m.metric for m in node.measures].index(node.order_metric)
        lines += ["", f"Queries that got worse on {_md_code(node.order_metric)} ({len(worst)} shown of "
                      f"{sum(q.worst < 0 for q in node.queries)}; {len(node.queries)} queries in all):", ""]
        if worst:
            lines += ["| query | change | " + " | ".join(_md(name) for name in model.names) + " |",
                      "|---|---:|" + "---:|" * len(model.names)]
            lines += [f"| {_md(q.query)} | {_signed(q.worst)} | " + " | ".join(_plain(v) for v in q.values[position])
                      + " |" for q in worst]
        else:
            lines.append("None.")
        lines.append("")
    lines += [f"> {note.category.__name__}: {_md(note.message)}" for note in model.notes]
    return _visible("\n".join(lines).rstrip() + "\n")


def comparison_to_dict(model: ComparisonModel) -> dict[str, Any]:
    """The comparative report as plain JSON data (``schema_version`` 1; NaN is None)."""
    return {
        "schema_version": 1, "kind": "comparison", "evalframe_version": model.version, "runs": list(model.names),
        "test": model.test, "max_p": model.max_p, "holm": model.holm, "confidence": model.confidence,
        "scopes": {"document_scope": model.document_scope, "answer_scope": model.answer_scope},
        "nodes": [{
            "node": node.node, "answer_node": node.answer_node, "order_metric": node.order_metric,
            "slices": list(node.slice_keys),
            "measures": [{"metric": m.metric, "direction": m.direction, "queries": m.queries,
                          "values": dict(zip(model.names, (_number(v) for v in m.values))),
                          "deltas": [{"run": d.run, "delta": _number(d.delta), "ci_low": _number(d.ci_low),
                                      "ci_high": _number(d.ci_high), "p_value": _number(d.p_value),
                                      "significant": d.significant, "change": d.change} for d in m.deltas]}
                         for m in node.measures],
            "queries": [{"multilabel_id": q.multilabel_id, "query": q.query, "slices": dict(q.slices),
                         "worst": _number(q.worst),
                         "values": {m.metric: [_number(v) for v in values] for m, values in zip(node.measures, q.values)},
                         "deltas": {m.metric: [_number(v) for v in values] for m, values in zip(node.measures, q.deltas)},
                         "changes": {m.metric: list(c) for m, c in zip(node.measures, q.changes)},
                         "rows": {name: [{"kind": r.kind, "rank": _number(r.rank), "correct": r.correct,
                                          "fields": dict(r.fields), "marks": dict(r.marks)} for r in rows]
                                  for name, rows in zip(model.names, q.rows)}}
                        for q in node.queries]}
            for node in model.nodes],
        "notes": [{"category": note.category.__name__, "message": note.message} for note in model.notes],
        "includes": list(model.includes),
    }


def render_comparison_json(model: ComparisonModel) -> str:
    """:func:`comparison_to_dict` as JSON text."""
    return _json_text(comparison_to_dict(model))


_COMPARISON_CSS = """
.evalframe-compare .controls{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;margin:.5rem 0}
.evalframe-compare .better{background:#dafbe1}.evalframe-compare .worse{background:#ffebe9}
.evalframe-compare tr.query{cursor:pointer}.evalframe-compare tr.query:hover td{background-color:#f6f8fa}
.evalframe-compare tr.query td.better{background:#dafbe1}.evalframe-compare tr.query td.worse{background:#ffebe9}
.evalframe-compare th.sortable{cursor:pointer;user-select:none}.evalframe-compare th.sortable::after{content:" ⇅";color:#8c959f}
.evalframe-compare th[aria-sort=ascending]::after{content:" ▲"}.evalframe-compare th[aria-sort=descending]::after{content:" ▼"}
.evalframe-compare .sig{font-weight:700}.evalframe-compare tr.drill td{background:#fbfcfd}
.evalframe-compare .runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:.8rem}
.evalframe-compare .mark{font-size:.75rem;border-radius:.6rem;padding:0 .35rem;margin-right:.2rem;background:#eaeef2}
.evalframe-compare .mark.on{background:#1a7f37;color:#fff}.evalframe-compare ol{margin:.2rem 0;padding-left:1.4rem}
"""

#: The comparison page's script: sorting, filtering, the drill-downs. No network, no library: plain DOM.
_COMPARISON_JS = """
(function(){
document.querySelectorAll('.evalframe-grid').forEach(function(grid){
  var table=grid.querySelector('table.grid'), bodies=function(){return Array.prototype.slice.call(table.tBodies);};
  var measure=grid.querySelector('select.measure'), show=grid.querySelector('select.show'),
      text=grid.querySelector('input.text'), slices=grid.querySelectorAll('select.slice'), count=grid.querySelector('.count');
  function apply(){
    var m=measure.value, s=show.value, t=text.value.toLowerCase(), shown=0;
    table.querySelectorAll('[data-measure]').forEach(function(cell){
      cell.style.display=(m==='' || cell.getAttribute('data-measure')===m)?'':'none';});
    bodies().forEach(function(body){
      var ok=true, row=body.rows[0];
      if(t && body.getAttribute('data-text').indexOf(t)<0) ok=false;
      slices.forEach(function(select){
        if(select.value!=='' && body.getAttribute('data-slice-'+select.getAttribute('data-key'))!==select.value) ok=false;});
      if(ok && m!==''){ if(body.getAttribute('data-scored-'+m)!=='1') ok=false; }
      if(ok && s!==''){
        var changes=(m===''?body.getAttribute('data-changes'):(body.getAttribute('data-change-'+m)||''));
        if(s==='changed'? !/better|worse/.test(changes) : changes.indexOf(s)<0) ok=false; }
      body.style.display=ok?'':'none'; if(ok) shown++; });
    count.textContent=shown+' of '+bodies().length+' queries shown';
  }
  [measure,show].concat(Array.prototype.slice.call(slices)).forEach(function(c){c.addEventListener('change',apply);});
  text.addEventListener('input',apply);
  table.querySelectorAll('th.sortable').forEach(function(th, position){
    th.addEventListener('click',function(){
      var key=th.getAttribute('data-key'), ascending=th.getAttribute('aria-sort')!=='ascending',
          numeric=th.hasAttribute('data-numeric');
      table.querySelectorAll('th.sortable').forEach(function(other){other.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',ascending?'ascending':'descending');
      var list=bodies(); list.forEach(function(b,i){b._i=i;});
      list.sort(function(a,b){
        var x=a.getAttribute('data-sort-'+key), y=b.getAttribute('data-sort-'+key), r;
        if(numeric){ x=x===''?NaN:parseFloat(x); y=y===''?NaN:parseFloat(y);
          if(isNaN(x)&&isNaN(y)) r=0; else if(isNaN(x)) return 1; else if(isNaN(y)) return -1; else r=x-y; }
        else r=x<y?-1:x>y?1:0;
        return (ascending?r:-r)||a._i-b._i; });
      list.forEach(function(b){table.appendChild(b);}); }); });
  table.addEventListener('click',function(event){
    var row=event.target.closest('tr.query'); if(!row) return;
    var drill=row.nextElementSibling; var open=drill.hidden; drill.hidden=!open;
    row.setAttribute('aria-expanded',open?'true':'false'); });
  apply();
});
})();
"""


def _attr(value: object) -> str:
    """``value`` for a quoted attribute (:func:`_h`)."""
    return _h(value)


def _key(text: str) -> str:
    """A measure or slice name as an attribute suffix (letters, digits, -, _)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text).lower()


def _drill_html(model: ComparisonModel, query: GridQuery) -> str:
    runs = []
    for name, rows in zip(model.names, query.rows):
        items = []
        for row in rows:
            mark = "<span class='ok' title='judged correct'>&#10003;</span> " if row.correct else ""
            fields = " ".join(f"<span class='field'>{_h(field)}:</span> "
                              + (f"<b>{_h(value)}</b>" if field in ("answer", "document_id")
                                 else f"<span class='muted'>{_h(value)}</span>") for field, value in row.fields)
            marks = "".join(f"<span class='mark{' on' if value > 0 else ''}' title='{_attr(mark_name)}'>"
                            f"{_h(mark_name)} {value:g}</span>" for mark_name, value in row.marks)
            items.append(f"<li value='{_attr(str(row.rank)) if isinstance(row.rank, int) else ''}'>{mark}{fields}"
                         f"<div>{marks}</div></li>")
        body = f"<ol>{''.join(items)}</ol>" if items else "<p class='muted'>no rows</p>"
        runs.append(f"<div class='run' data-run='{_attr(name)}'><b>{_h(name)}</b>{body}</div>")
    return f"<div class='runs'>{''.join(runs)}</div>"


def _grid_html(model: ComparisonModel, node: ComparedNode, position: int) -> str:
    names = model.names
    metrics = [m.metric for m in node.measures]
    options = "".join(f"<option value='{_attr(_key(m))}'>{_h(m)}</option>" for m in metrics)
    controls = [f"<label>measure <select class='measure'><option value=''>all measures</option>{options}</select></label>",
                "<label>show <select class='show'><option value=''>all queries</option><option value='changed'>changed"
                "</option><option value='worse'>regressions</option><option value='better'>improvements</option>"
                "</select></label>"]
    for index, key in enumerate(node.slice_keys):
        labels = sorted({dict(q.slices)[key] for q in node.queries})
        choices = "".join(f"<option value='{_attr(label)}'>{_h(label)}</option>" for label in labels)
        controls.append(f"<label>{_h(key)} <select class='slice' data-key='{index}'>"
                        f"<option value=''>all</option>{choices}</select></label>")
    controls.append("<label>text <input class='text' type='search' placeholder='query or id'></label>"
                    "<span class='count muted'></span>")
    head = ["<th class='sortable' data-key='rank' data-numeric>#</th>", "<th class='sortable' data-key='query'>query</th>"]
    head += [f"<th class='sortable' data-key='slice{i}'>{_h(key)}</th>" for i, key in enumerate(node.slice_keys)]
    for m in node.measures:
        for r, name in enumerate(names):
            head.append(f"<th class='sortable' data-numeric data-key='v-{_attr(_key(m.metric))}-{r}' "
                        f"data-measure='{_attr(_key(m.metric))}'>{_h(m.metric)} {_arrow(m.direction)}<br>"
                        f"<span class='muted'>{_h(name)}</span></th>")
        for r, name in enumerate(names[1:], start=1):
            head.append(f"<th class='sortable' data-numeric data-key='d-{_attr(_key(m.metric))}-{r}' "
                        f"data-measure='{_attr(_key(m.metric))}'>&Delta; {_h(m.metric)}<br>"
                        f"<span class='muted'>{_hi(name)} &minus; {_hi(names[0])}</span></th>")
    width = 2 + len(node.slice_keys) + len(metrics) * (2 * len(names) - 1)
    bodies = []
    for rank, query in enumerate(node.queries, start=1):
        attrs = [f"data-text='{_attr((query.query + ' ' + query.multilabel_id).lower())}'",
                 f"data-sort-rank='{rank}'", f"data-sort-query='{_attr(query.query.lower())}'",
                 f"data-changes='{_attr(' '.join(c for changes in query.changes for c in changes if c))}'"]
        attrs += [f"data-slice-{i}='{_attr(label)}' data-sort-slice{i}='{_attr(label)}'"
                  for i, (_, label) in enumerate(query.slices)]
        cells = [f"<td class='num'>{rank}</td>", f"<td>{_h(query.query)}</td>"]
        cells += [f"<td>{_h(label)}</td>" for _, label in query.slices]
        for m, values, deltas, changes in zip(node.measures, query.values, query.deltas, query.changes):
            key = _key(m.metric)
            scored = any(v == v for v in values)
            attrs.append(f"data-scored-{_attr(key)}='{1 if scored else 0}' "
                         f"data-change-{_attr(key)}='{_attr(' '.join(c for c in changes if c))}'")
            for r, value in enumerate(values):
                attrs.append(f"data-sort-v-{_attr(key)}-{r}='{'' if value != value else repr(value)}'")
                cells.append(f"<td class='num' data-measure='{_attr(key)}'>{_plain(value)}</td>")
            for r, (delta, change) in enumerate(zip(deltas, changes), start=1):
                attrs.append(f"data-sort-d-{_attr(key)}-{r}='{'' if delta != delta else repr(delta)}'")
                cells.append(f"<td class='num {_attr(change)}' data-measure='{_attr(key)}'>{_signed(delta)}</td>")
        regressed = any("worse" in changes for changes in query.changes)
        bodies.append(f"<tbody {' '.join(attrs)}><tr class='query{' regressed' if regressed else ''}' "
                      f"aria-expanded='false' title='open to see every run&#39;s rows'>{''.join(cells)}</tr>"
                      f"<tr class='drill' hidden><td colspan='{width}'>{_drill_html(model, query)}</td></tr></tbody>")
    return (f"<div class='evalframe-grid' id='evalframe-grid-{position}'><h3>Queries of {_hi(node.node)}</h3>"
            f"<p class='muted'>All {len(node.queries)} queries, worst change of {_hi(node.order_metric)} first; "
            f"click a column to sort, a query to open every run's {'answers' if node.answer_node else 'documents'} with "
            f"their gold matches.</p><div class='controls'>{''.join(controls)}</div>"
            f"<table class='grid'><thead><tr>{''.join(head)}</tr></thead>{''.join(bodies)}</table></div>")


def render_comparison_html(model: ComparisonModel) -> str:
    """The comparative report as one self-contained HTML page (inline CSS and script, no network)."""
    names = model.names
    page = [f"<h1>Comparative report</h1><p class='muted'>evalframe {_h(model.version)}; runs: "
            f"{', '.join(map(_hi, names))} (baseline {_hi(names[0])}); "
            f"<code>document_scope={_h(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={_h(repr(model.answer_scope))}</code></p>",
            f"<p class='muted'>{_h(_test_note(model))}</p>",
            *(f"<p class='includes'>{_h(line)}</p>" for line in model.includes)]
    for position, node in enumerate(model.nodes):
        deltas = node.measures[0].deltas
        page.append(f"<h2>{_h(node.node)}</h2><table class='summary'><tr><th>metric</th>"
                    + "".join(f"<th>{_h(name)}</th>" for name in names)
                    + "".join(f"<th>&Delta; {_hi(d.run)} &minus; {_hi(names[0])} [CI]</th><th>p</th>"
                              for d in deltas) + "</tr>")
        for m in node.measures:
            cells = "".join(f"<td class='num'>{_plain(v)}</td>" for v in m.values)
            for d in m.deltas:
                mark = {"better": " &#9650;", "worse": " &#9660;"}.get(d.change, "")
                cells += (f"<td class='num {_attr(d.change)}'>{_signed(d.delta)} [{_signed(d.ci_low)}, {_signed(d.ci_high)}]"
                          f"{mark}</td><td class='num{' sig' if d.significant else ''}'>{_plain(d.p_value)}"
                          f"{' *' if d.significant else ''}</td>")
            page.append(f"<tr><td title='{_attr(m.description)}'>{_h(m.metric)} {_arrow(m.direction)}</td>"
                        f"{cells}</tr>")
        page.append("</table>")
        page.append(_grid_html(model, node, position))
    page += [f"<p class='flag'>{_h(note.category.__name__)}: {_h(note.message)}</p>"
             for note in model.notes]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe comparative report</title>"
            f"<style>{_CSS}{_COMPARISON_CSS}</style></head><body><div class='evalframe-report evalframe-compare'>"
            f"{''.join(page)}</div><script>{_COMPARISON_JS}</script></body></html>")


#: Each output format of the comparative report and its renderer (``ComparisonReport.render(format)``).
COMPARISON_RENDERERS: dict[str, Callable[[ComparisonModel], str]] = {
    "text": render_comparison_text, "html": render_comparison_html, "markdown": render_comparison_markdown,
    "json": render_comparison_json}
