"""The reports for a terminal: :func:`render` (``str(report)``, :func:`evalframe.print_eval_report`) and
:func:`render_comparison` (``evalframe report RUN_A RUN_B``). Control characters of the user's text are shown as
their pictures (:func:`evalframe.report.escape.visible`).

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> print(render(build_model(load_demo_result(), n=1, charts=False)).splitlines()[3])
Pipeline funnel (integrated evaluation)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .wording import slice_note  # the slice view
from .escape import visible
from .wording import (ABOVE_ONE, DEFINITIONS_TITLE, arrow, delta_text, detectable_text, includes, interval_text,
                      judged_under, plain, scopes, signed, significance_note, title, trec_note)

if TYPE_CHECKING:
    from .model import ComparisonModel, ReportModel

__all__ = ["render", "render_comparison"]


def render(model: ReportModel) -> str:
    """The report of one run for a terminal: the funnel, each node's worst queries, what the numbers mean."""
    text = [f"evalframe {model.version} evaluation report", "=" * 60,
            f"Scopes: {scopes(model)} (what they mean: '{DEFINITIONS_TITLE}', at the end)",
            "Pipeline funnel (integrated evaluation)", "", "Query"]
    for node in model.funnel:
        text += ["  |", node.node]
        for row in node.rows:
            extras = ([f"top-1 {row.top1:.4f}"] if row.top1 is not None else []) + (
                [f"isolated {row.isolated:.4f}"] if row.isolated is not None else []) + (
                [f"answerable only {row.answerable:.4f}"] if row.answerable is not None else [])
            text.append(f"  | {row.metric:<18} {row.integrated:.4f}{interval_text(row.interval)}"
                        + (f"   ({', '.join(extras)})" if extras else "")
                        + (f"   [! {ABOVE_ONE}]" if row.above_one else ""))
    text += ["  |", "Output", ""]
    text += [f"[{label}] {line}" for label, line in includes(model)] + ([""] if includes(model) else [])
    for count in model.trec_counts:
        text += [f"[trec] {trec_note(model, count.node, count.queries)}; see '{DEFINITIONS_TITLE}', at the end.", ""]
    if model.above_one:
        text += [f"[!] map / ndcg {ABOVE_ONE}; see '{DEFINITIONS_TITLE}', at the end.", ""]
    for section in model.sections:
        heading = title(section)
        text += [heading, "-" * len(heading)]
        if not section.queries:
            text += [f"no query scores {section.metric} {section.at_worst} {section.threshold}", ""]
            continue
        text.append(f"([correct]: {judged_under(model, section)})")
        for query in section.queries:
            text += [f"query:  {query.query}", f"{section.metric}: {query.value:.4f}", f"gold:   {query.gold}"]
            for listed in query.listed:
                text.append(f"  rank {listed.rank}{' [correct]' if listed.correct else ''}:"
                            + (f" ({listed.why})" if listed.why else ""))
                text += [f"    {field}: {value}" for field, value in listed.fields]
            text.append("")
    text += _definitions(model)
    return visible("\n".join(text).rstrip() + "\n")


def _definitions(model: ReportModel) -> list[str]:
    definitions = model.definitions
    lines = [DEFINITIONS_TITLE, "-" * len(DEFINITIONS_TITLE), f"relevant document ({scopes(model)}): "
             f"{definitions.relevant_document}", f"correct answer (answer_scope={model.answer_scope!r}): "
             f"{definitions.correct_answer}", definitions.modes]
    width = max((len(d.metric) for d in definitions.metrics), default=0)
    return lines + [f"{d.metric:<{width}}  {d.description}" for d in definitions.metrics]


def render_comparison(model: ComparisonModel) -> str:
    """The comparative report for a terminal: per node a table of the runs' values and deltas, and the queries that
    got worse (each with its delta, as measured: a rise of a lower-is-better measure is positive)."""
    lines = [f"evalframe {model.version} comparative report", "=" * 60, f"Runs: {', '.join(model.names)} "
             f"(baseline {model.names[0]!r}); document_scope={model.document_scope!r}, answer_scope={model.answer_scope!r}",
             significance_note(model), *(f"[includes] {line}" for line in model.includes), ""]
    for node in model.nodes:
        header = ["metric", *model.names, *(f"{d.run} - {model.names[0]}" for d in node.measures[0].deltas)]
        rows = [[f"{m.metric} {arrow(m.direction)}", *(plain(v) for v in m.values), *(delta_text(d) for d in m.deltas)]
                for m in node.measures]
        widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
        lines += [node.node, "-" * len(node.node)]
        lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
                  for line in [header, *rows]]
        detectable = [detectable_text(m) for m in node.measures if m.detectable is not None]
        lines += [""] + [f"  {line}" for line in detectable] if detectable else []
        worse = node.got_worse(model.n)
        if node.slices:
            header = ["slice", "metric", "queries", *model.names,
                      *(f"{d.run} - {model.names[0]}" for d in node.slices[0].deltas)]
            rows = [[s.slice, f"{s.metric} {arrow(s.direction)}", str(s.queries), *(plain(v) for v in s.values),
                     *(delta_text(d) for d in s.deltas)] for s in node.slices]
            widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
            lines += ["", slice_note(model, node.slice_keys)]
            lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
                      for line in [header, *rows]]
        lines += ["", f"Queries that got worse on {node.order_metric} (worst first, {len(worse)} shown of "
                      f"{node.worse_count}; {len(node.grid)} queries in all):"]
        for change in worse:
            values = " ".join(f"{name}={plain(value)}" for name, value in zip(model.names, change.values))
            lines.append(f"  {signed(change.delta)}  {values}  {change.query.query}")
        if not worse:
            lines.append("  none")
        lines.append("")
    lines += [f"[{note.category.__name__}] {note.message}" for note in model.notes]
    return visible("\n".join(lines).rstrip() + "\n")
