"""The reports as JSON: :func:`to_dict` (one run: ``report.to_dict()``, the shape docs/cli.md#the-report-as-json
documents) and :func:`comparison_to_dict` (the comparison, ``"kind": "comparison"``), written by :func:`render` and
:func:`render_comparison` (indented, UTF-8 kept, NaN as null, a lone surrogate as its ``\\u`` escape:
:func:`evalframe.report.escape.json_text`). The charts are left out.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> model = build_model(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> to_dict(model)["funnel"][0]["metrics"][0]["metric"]
'mrr'
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

from .escape import json_text
from .wording import slice_note

if TYPE_CHECKING:
    from .model import ComparisonModel, Definitions, ReportModel, RunDelta

__all__ = ["render", "render_comparison", "to_dict", "comparison_to_dict", "number"]


def number(value: Any) -> Any:
    """A value for JSON: a float (None for NaN or missing), an int or a string as it is."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if not isinstance(value, numbers.Real):
        return str(value)
    real = float(value)
    return None if math.isnan(real) or math.isinf(real) else real


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
        "funnel": [{"node": node.node, "answer_node": node.answer_node, "one_answer": node.one_answer,
                    "top1_note": node.top1_note, "metrics": [
            {"metric": row.metric, "integrated": number(row.integrated), "top1": number(row.top1),
             "isolated": number(row.isolated), "above_one": row.above_one, "answerable": number(row.answerable),
             **({"ci_low": number(row.interval[0]), "ci_high": number(row.interval[1])} if row.interval else {})}
            for row in node.rows]}
            for node in model.funnel],
        "no_answer": [{"node": count.node, "queries": count.queries, "no_answer_queries": count.no_answer_queries}
                      for count in model.no_answer],
        "scope_note": model.scope_note,
        "skipped": model.skipped,
        "repeats": model.repeats,
        "trec": [{"node": count.node, "queries": count.queries} for count in model.trec_counts],
        "above_one": model.above_one,
        **({"ci": {**model.intervals.as_dict(), "note": model.interval_note}} if model.intervals is not None else {}),
        "worst": [{"node": section.node, "answer_node": section.answer_node, "metric": section.metric,
                   "threshold": number(section.threshold), "direction": section.direction,
                   "chart_note": section.chart_note, "queries": [
                       {"query": query.query, "value": number(query.value), "gold": query.gold, "listed": [
                           {"rank": number(row.rank), "correct": row.correct, "why": row.why, "fields": dict(row.fields)}
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


def render(model: ReportModel) -> str:
    """:func:`to_dict` as JSON text (indented, UTF-8 kept)."""
    return json_text(to_dict(model))


def comparison_to_dict(model: ComparisonModel) -> dict[str, Any]:
    """The comparative report as plain JSON data (``schema_version`` 1; NaN is None)."""
    return {
        "schema_version": 1, "kind": "comparison", "evalframe_version": model.version, "runs": list(model.names),
        "test": model.test, "max_p": model.max_p, "holm": model.holm, "confidence": model.confidence,
        "power": model.power,
        "scopes": {"document_scope": model.document_scope, "answer_scope": model.answer_scope},
        "nodes": [{
            "node": node.node, "answer_node": node.answer_node, "order_metric": node.order_metric,
            "slices": list(node.slice_keys),
            "measures": [{"metric": m.metric, "direction": m.direction, "queries": m.queries,
                          "values": dict(zip(model.names, (number(v) for v in m.values))),
                          "deltas": [{"run": d.run, "delta": number(d.delta), "ci_low": number(d.ci_low),
                                      "ci_high": number(d.ci_high), "p_value": number(d.p_value),
                                      "significant": d.significant, "change": d.change, "d_z": number(d.d_z),
                                      "improved": number(d.improved)} for d in m.deltas],
                          "detectable": None if m.detectable is None else {
                              "queries": m.detectable.queries, "mde": number(m.detectable.mde),
                              "power": m.detectable.power, "alpha": m.detectable.alpha, "test": "paired t-test",
                              "note": m.detectable.note}}
                         for m in node.measures],
            "slice_note": slice_note(model, node.slice_keys) if node.slices else None,
            "slice_view": [{"slice": sv.slice, "metric": sv.metric, "direction": sv.direction, "queries": sv.queries,
                            "values": dict(zip(model.names, (number(v) for v in sv.values))),
                            "deltas": [_delta(d) for d in sv.deltas]} for sv in node.slices],
            "queries": [{"multilabel_id": q.multilabel_id, "query": q.query, "slices": dict(q.slices),
                         "worst": number(q.worst),
                         "values": {m.metric: [number(v) for v in values] for m, values in zip(node.measures, q.values)},
                         "deltas": {m.metric: [number(v) for v in values] for m, values in zip(node.measures, q.deltas)},
                         "changes": {m.metric: list(c) for m, c in zip(node.measures, q.changes)},
                         "rows": {name: [{"kind": r.kind, "rank": number(r.rank), "correct": r.correct,
                                          "fields": dict(r.fields), "marks": dict(r.marks)} for r in rows]
                                  for name, rows in zip(model.names, q.rows)}}
                        for q in node.queries]}
            for node in model.nodes],
        "notes": [{"category": note.category.__name__, "message": note.message} for note in model.notes],
        "includes": list(model.includes),
    }


def _delta(d: RunDelta) -> dict[str, Any]:
    return {"run": d.run, "delta": number(d.delta), "ci_low": number(d.ci_low), "ci_high": number(d.ci_high),
            "p_value": number(d.p_value), "significant": d.significant, "change": d.change, "d_z": number(d.d_z),
            "improved": number(d.improved)}


def render_comparison(model: ComparisonModel) -> str:
    """:func:`comparison_to_dict` as JSON text."""
    return json_text(comparison_to_dict(model))
