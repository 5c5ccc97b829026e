"""Metric definitions and their kernels: arrays in, one value per query out.

* :mod:`.kernels`: the counting and the formulas, pure numpy;
* :mod:`.registry`: one spec per metric (name, level, headline, bounds, formula, edge rule, kernel),
  from which ``docs/metrics.md``'s table and ``evalframe list-metrics`` are generated
  (``python scripts/make_metrics_table.py`` rewrites the table).
"""

from .kernels import HAYSTACK_EDGE_POLICY, ZERO_EDGE_POLICY, DocumentCounts, EdgePolicy, apply_edge_policy
from .registry import ANSWER_METRICS, DOCUMENT_METRICS, EVALUATOR_METRICS, METRICS, Metric, headline_metric

__all__ = [
    "ANSWER_METRICS",
    "DOCUMENT_METRICS",
    "EVALUATOR_METRICS",
    "HAYSTACK_EDGE_POLICY",
    "METRICS",
    "ZERO_EDGE_POLICY",
    "DocumentCounts",
    "EdgePolicy",
    "Metric",
    "apply_edge_policy",
    "headline_metric",
]
