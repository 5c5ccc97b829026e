"""Metric definitions and their kernels: arrays in, one value per query out.

* :mod:`.kernels`: the counting and the formulas of Haystack's metrics, pure numpy;
* :mod:`.trec_kernels`: trec_eval's, pure numpy (one pass over the rankings for every cutoff);
* :mod:`.trec_gain_kernels`: trec_eval's gain-based and inferred measures (infAP, binG, G, nDCG with gains,
  ndcg_rel, Rndcg, rbp, rbp_resid, relstring) and ir_measures' ERR, RBP and nDCG(dcg='exp-log2');
* :mod:`.registry`: one entry per metric of both families (name and other names, parameters, level, headline,
  bounds, formula, edge rule and policy, kernel, aggregation), from which ``docs/metrics.md``'s table and
  ``evalframe list-metrics`` are generated (``python scripts/make_metrics_table.py`` rewrites the table);
* :mod:`.trec`: a trec_eval measure's name (ir_measures' or trec_eval's) read through its entry, and the values.
"""

from .kernels import HAYSTACK_EDGE_POLICY, ZERO_EDGE_POLICY, DocumentCounts, EdgePolicy, apply_edge_policy
from .registry import (
    ANSWER_METRICS,
    DOCUMENT_METRICS,
    EVALUATOR_METRICS,
    METRICS,
    REGISTRY,
    TREC_MEASURES,
    Metric,
    headline_metric,
)

__all__ = [
    "ANSWER_METRICS",
    "DOCUMENT_METRICS",
    "EVALUATOR_METRICS",
    "HAYSTACK_EDGE_POLICY",
    "METRICS",
    "REGISTRY",
    "TREC_MEASURES",
    "ZERO_EDGE_POLICY",
    "DocumentCounts",
    "EdgePolicy",
    "Metric",
    "apply_edge_policy",
    "headline_metric",
]
