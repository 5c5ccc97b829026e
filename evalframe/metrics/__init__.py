"""Metric definitions (registry) and their vectorised kernels.

* :mod:`.registry`: what each metric is (name, level, description, kernel) and the edge policies;
* :mod:`.document`: per-query document counts from whole-frame numpy work;
* :mod:`.answer`: per-query answer metrics (best value over the kept answer rows).
"""

from .registry import (
    ANSWER_METRICS,
    DOCUMENT_METRICS,
    HAYSTACK_EDGE_POLICY,
    METRICS,
    EdgePolicy,
    Metric,
    apply_edge_policy,
)

__all__ = [
    "ANSWER_METRICS",
    "DOCUMENT_METRICS",
    "HAYSTACK_EDGE_POLICY",
    "METRICS",
    "EdgePolicy",
    "Metric",
    "apply_edge_policy",
]
