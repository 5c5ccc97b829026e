"""The comparison's data for the viewers (the comparative page and ``evalframe serve``): each node's :class:`Grid`
and the model's :class:`Detail` (:mod:`evalframe.report.drill`, built by
:func:`evalframe.report.model.build_comparison_model`), and :func:`viewer_payload`, the two JSON-ready payloads the
page and the server read. Texts are data here: a viewer escapes them where it draws them.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_comparison_model
>>> demo = load_demo_result()
>>> model = build_comparison_model({"a": demo, "b": demo}, metrics=["mrr", "f1"], rounds=10)
>>> grid, detail = viewer_payload(model)
>>> list(grid["grids"][0]["values"]), detail["names"], len(detail["strings"]) == len(set(detail["strings"]))
(['mrr'], ['a', 'b'], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._version import __version__
from .wording import detectable_text, significance_note, slice_note

if TYPE_CHECKING:
    from .model import ComparisonModel

__all__ = ["viewer_payload"]


def _floats(values: np.ndarray) -> list[Any]:
    """float64 values for JSON: NaN (and an infinity) is None."""
    out = values.astype(object)
    out[~np.isfinite(values)] = None
    return list(out.tolist())


def _deltas(deltas: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"run": d.run, "delta": _number(d.delta), "ci_low": _number(d.ci_low), "ci_high": _number(d.ci_high),
             "p_value": _number(d.p_value), "significant": bool(d.significant), "change": d.change} for d in deltas]


def _number(value: float) -> float | None:
    """A number for JSON: NaN (and an infinity) is None."""
    return float(value) if np.isfinite(value) else None


def viewer_payload(model: ComparisonModel, *, characters: int | None = 500) -> tuple[dict[str, Any], dict[str, Any]]:
    """(GRID PAYLOAD, DETAIL PAYLOAD) of a comparison, JSON-ready (NaN is None), texts cut to ``characters`` (None:
    whole): the summary and every node's :class:`Grid`, and the model's :meth:`Detail.columns`.

    Examples
    --------
    >>> import json
    >>> from evalframe import load_demo_result
    >>> from evalframe.report.model import build_comparison_model
    >>> demo = load_demo_result()
    >>> grid, detail = viewer_payload(build_comparison_model({"a": demo, "b": demo}, rounds=10), characters=40)
    >>> grid["format"], [g["node"] for g in grid["grids"]], grid["grids"][0]["n"], detail["n"]
    ('evalframe-comparison', ['Retriever', 'Reader'], 8, 8)
    >>> len(json.dumps([grid, detail], allow_nan=False)) > 0
    True
    """
    nodes = []
    grids = []
    for node in model.nodes:
        nodes.append({"node": node.node, "answer_node": node.answer_node, "order_metric": node.order_metric,
                      "slice_keys": list(node.slice_keys),
                      "slice_note": slice_note(model, node.slice_keys) if node.slices else "",
                      "measures": [{"metric": m.metric, "description": m.description, "direction": m.direction,
                                    "values": [_number(v) for v in m.values], "queries": m.queries,
                                    "detectable": None if m.detectable is None else detectable_text(m),
                                    "deltas": _deltas(m.deltas)} for m in node.measures],
                      "slices": [{"slice": s.slice, "metric": s.metric, "direction": s.direction,
                                  "values": [_number(v) for v in s.values], "queries": s.queries,
                                  "deltas": _deltas(s.deltas)} for s in node.slices]})
        grid = node.grid
        grids.append({"node": node.node, "n": len(grid), "id": grid.ids.tolist(), "query": grid.query.tolist(),
                      "slices": [grid.slices[key].tolist() for key in node.slice_keys],
                      "values": {m: [_floats(grid.values[m][:, r]) for r in range(grid.values[m].shape[1])]
                                 for m in grid.values},
                      "signs": {m: int(sign) for m, sign in grid.signs.items()}, "detail": grid.detail.tolist()})
    summary = {"names": list(model.names), "test": model.test, "max_p": model.max_p, "holm": model.holm,
               "confidence": model.confidence, "document_scope": model.document_scope,
               "answer_scope": model.answer_scope, "significance_note": significance_note(model),
               "includes": list(model.includes),
               "notes": [{"category": note.category.__name__, "message": note.message} for note in model.notes],
               "nodes": nodes}
    return ({"format": "evalframe-comparison", "version": 1, "evalframe": __version__, "summary": summary,
             "grids": grids}, model.detail.columns(characters=characters))
