"""Metric definitions and their kernels: arrays in, one value per query out.

* :mod:`.kernels`: the formulas, pure numpy;
* :mod:`.registry`: what each metric is (name, level, description, kernel).
"""

from .kernels import HAYSTACK_EDGE_POLICY, EdgePolicy, apply_edge_policy
from .registry import ANSWER_METRICS, DOCUMENT_METRICS, METRICS, Metric

__all__ = [
    "ANSWER_METRICS",
    "DOCUMENT_METRICS",
    "HAYSTACK_EDGE_POLICY",
    "METRICS",
    "EdgePolicy",
    "Metric",
    "apply_edge_policy",
]
