"""The reports as GitHub-flavoured Markdown (no charts): :func:`render` (one run: the funnel and each node's worst
queries as tables) and :func:`render_comparison` (for a pull request: a table per node and its worst queries). The
user's text has its HTML and Markdown syntax escaped (:func:`evalframe.report.escape.md`).

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> print(render(build_model(load_demo_result(), n=1, charts=False)).splitlines()[0])
# Evaluation report
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .wording import slice_note  # the slice view
from .escape import md, md_code, visible
from .wording import (ABOVE_ONE, DEFINITIONS_TITLE, answerable_shown, arrow, delta_text, detectable_text, includes,
                      judged_under, plain, scopes, signed, significance_note, title, trec_note)
from .wording import interval_text, isolated_shown, top1_shown

if TYPE_CHECKING:
    from .model import ComparisonModel, ReportModel

__all__ = ["render", "render_comparison"]


def _value(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def render(model: ReportModel) -> str:
    """The report of one run as GitHub-flavoured Markdown (no charts): the funnel and each node's worst queries as
    tables."""
    # a column no row fills is left out (no reader giving several answers: no top-1; no isolated run: no isolated)
    shown = [name for name, on in (("top-1", top1_shown(model)), ("isolated (upper bound)", isolated_shown(model)),
                                   ("answerable only", answerable_shown(model))) if on]
    lines = ["# Evaluation report", "", f"evalframe {md(model.version)}; nodes: {md(', '.join(model.nodes))}", "",
             f"Scopes: `document_scope={model.document_scope!r}`, `answer_scope={model.answer_scope!r}` "
             f"(what they mean: [{DEFINITIONS_TITLE}](#{_slug(DEFINITIONS_TITLE)}))", "", "## Pipeline funnel", "",
             "| node | metric | integrated |" + "".join(f" {name} |" for name in shown),
             "|---|---|---|" + "---|" * len(shown)]
    for node in model.funnel:
        for row in node.rows:
            cells = {"top-1": row.top1, "isolated (upper bound)": row.isolated, "answerable only": row.answerable}
            lines.append(f"| {md(node.node)} | {md(row.metric)}{' ⚠ above 1' if row.above_one else ''} | "
                         f"{_value(row.integrated)}{md(interval_text(row.interval))} |"
                         + "".join(f" {_value(cells[name])} |" for name in shown))
    lines.append("")
    lines += [f"{md(line)}\n" for _, line in includes(model)]
    lines += [f"{md(trec_note(model, count.node, count.queries))}.\n" for count in model.trec_counts]
    if model.above_one:
        lines += [f"⚠ map / ndcg {ABOVE_ONE}.", ""]
    for section in model.sections:
        lines += [f"## {md(title(section))}", ""]
        if not section.queries:
            lines += [f"No query scores {md(section.metric)} {md(section.at_worst)} {md(section.threshold)}.", ""]
            continue
        kind = "answers" if section.answer_node else "retrieved documents"
        lines += [f"✓: {md(judged_under(model, section))}.", "", f"| query | {md(section.metric)} | gold | {kind} |",
                  "|---|---|---|---|"]
        for query in section.queries:
            listed = "<br>".join(
                f"{md(row.rank)}. {'✓ ' if row.correct else ''}"
                + "; ".join(f"{md(field)}: {md(value)}" for field, value in row.fields)
                + (f" ({md(row.why)})" if row.why else "") for row in query.listed)
            lines.append(f"| {md(query.query)} | {query.value:.4f} | {md(query.gold)} | {listed} |")
        lines.append("")
    lines += _definitions(model)
    return visible("\n".join(lines).rstrip() + "\n")


def _slug(text: str) -> str:
    """GitHub's anchor of a heading: lower case, spaces as ``-``."""
    return re.sub(r"[^a-z0-9 -]", "", text.lower()).replace(" ", "-")


def _definitions(model: ReportModel) -> list[str]:
    definitions = model.definitions
    lines = [f"## {DEFINITIONS_TITLE}", "", f"- **relevant document** ({scopes(model)}): {definitions.relevant_document}",
             f"- **correct answer** (answer_scope={model.answer_scope!r}): {definitions.correct_answer}",
             f"- **integrated, top-1, isolated**: {definitions.modes}"]
    lines += [f"- {md_code(d.metric)}: {md(d.description)}" + (f" {d.details}" if d.details else "")
              for d in definitions.metrics]
    if definitions.symbols:
        lines += ["", "; ".join(f"**{symbol}**: {meaning}" for symbol, meaning in definitions.symbols) + "."]
    return lines + ["", "Every value is the mean over the node's queries of the per-query value."]


def render_comparison(model: ComparisonModel) -> str:
    """The comparative report as GitHub-flavoured Markdown (for a pull request): a table per node and the queries that
    got worse, each with its delta as measured."""
    lines = ["# Comparative report", "", f"Runs: {', '.join(md_code(name) for name in model.names)} (baseline "
             f"{md_code(model.names[0])}); `document_scope={model.document_scope!r}`, `answer_scope={model.answer_scope!r}`",
             "", md(significance_note(model)), "", *(part for line in model.includes for part in (f"> {md(line)}", ""))]
    for node in model.nodes:
        runs = node.measures[0].deltas
        lines += [f"## {md(node.node)}", "", "| metric | " + " | ".join(md(name) for name in model.names) + " | "
                  + " | ".join(f"{md(d.run)} − {md(model.names[0])}" for d in runs) + " |",
                  "|---|" + "---:|" * (len(model.names) + len(runs))]
        lines += [f"| {md(m.metric)} {arrow(m.direction)} | " + " | ".join(plain(v) for v in m.values) + " | "
                  + " | ".join(delta_text(d) for d in m.deltas) + " |" for m in node.measures]
        detectable = [detectable_text(m) for m in node.measures if m.detectable is not None]
        lines += [""] + [f"- {md(line)}" for line in detectable] if detectable else []
        worse = node.got_worse(model.n)
        if node.slices:
            lines += ["", md(slice_note(model, node.slice_keys)), "",
                      "| slice | metric | queries | " + " | ".join(md(name) for name in model.names) + " | "
                      + " | ".join(f"{md(d.run)} − {md(model.names[0])}" for d in runs) + " |",
                      "|---|---|---:|" + "---:|" * (len(model.names) + len(runs))]
            lines += [f"| {md(s.slice)} | {md(s.metric)} {arrow(s.direction)} | {s.queries} | "
                      + " | ".join(plain(v) for v in s.values) + " | " + " | ".join(delta_text(d) for d in s.deltas)
                      + " |" for s in node.slices]
        lines += ["", f"Queries that got worse on {md_code(node.order_metric)} ({len(worse)} shown of "
                      f"{node.worse_count}; {len(node.grid)} queries in all):", ""]
        if worse:
            lines += ["| query | change | " + " | ".join(md(name) for name in model.names) + " |",
                      "|---|---:|" + "---:|" * len(model.names)]
            lines += [f"| {md(change.query.query)} | {signed(change.delta)} | "
                      + " | ".join(plain(v) for v in change.values) + " |" for change in worse]
        else:
            lines.append("None.")
        lines.append("")
    lines += [f"> {note.category.__name__}: {md(note.message)}" for note in model.notes]
    return visible("\n".join(lines).rstrip() + "\n")
