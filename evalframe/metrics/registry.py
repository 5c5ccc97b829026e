"""What each metric is: name, level, description, kernel (SPEC 3).

Document kernels (:mod:`.kernels`) are functions of per-query counts; they are written for queries
that have gold documents and a relevant hit, while the two edge cases (no gold, no hit) are named
policies applied by :func:`~evalframe.metrics.kernels.apply_edge_policy`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import kernels
from .kernels import DocumentCounts

__all__ = [
    "Metric",
    "DOCUMENT_METRICS",
    "ANSWER_METRICS",
    "METRICS",
    "EVALUATOR_METRICS",
]


@dataclass(frozen=True)
class Metric:
    name: str
    level: str  # "document" or "answer"
    description: str
    kernel: Callable[[DocumentCounts], np.ndarray] | None = None


DOCUMENT_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("recall_multi_hit", "document", "Share of a query's gold documents found among the relevant rows.", kernels.recall_multi_hit),
        Metric("recall_single_hit", "document", "1 if at least one relevant document was retrieved.", kernels.recall_single_hit),
        Metric("precision", "document", "Relevant rows / retrieved rows.", kernels.precision),
        Metric("map", "document", "Average precision at each relevant rank, over the number of relevant documents.", kernels.map),
        Metric("mrr", "document", "Reciprocal rank of the first relevant document.", kernels.mrr),
        Metric("ndcg", "document", "DCG of the relevant ranks over the ideal DCG (binary relevance).", kernels.ndcg),
    )
}

#: Kernels of other frameworks' evaluators that are not EvaluationResult metrics (see evalframe.evaluators).
EVALUATOR_METRICS: dict[str, Metric] = {
    "recall_all": Metric("recall_all", "document", "1 if every gold document was retrieved.", kernels.recall_all),
}

ANSWER_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("exact_match", "answer", "1 if the best answer equals a gold answer after SQuAD normalisation."),
        Metric("f1", "answer", "Best token-overlap F1 between an answer and a gold answer."),
        Metric("sas", "answer", "Best semantic answer similarity (needs a SAS model at build time)."),
    )
}

METRICS: dict[str, Metric] = {**ANSWER_METRICS, **DOCUMENT_METRICS}


