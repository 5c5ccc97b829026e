"""What each metric is: name, level, description, kernel (SPEC 3).

Document kernels are functions of :class:`~evalframe.metrics.document.DocumentCounts`; they are
written for queries that have gold documents and a relevant hit, while the two edge cases
(no gold, no hit) are named policies applied by :func:`apply_edge_policy`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from .document import DocumentCounts

__all__ = [
    "Metric",
    "DOCUMENT_METRICS",
    "ANSWER_METRICS",
    "METRICS",
    "EdgePolicy",
    "HAYSTACK_EDGE_POLICY",
    "apply_edge_policy",
    "EVALUATOR_METRICS",
    "log2_discount",
    "any_discount",
]


@dataclass(frozen=True)
class Metric:
    name: str
    level: str  # "document" or "answer"
    description: str
    kernel: Callable[[DocumentCounts], np.ndarray] | None = None


@dataclass(frozen=True)
class EdgePolicy:
    """Values of a document metric for queries outside the kernel's domain."""

    no_gold: float  # the query has no gold document (L == 0)
    no_hit: float  # the query has gold documents but no relevant retrieved row


#: Haystack 1.x EvaluationResult: a query without gold documents counts as perfect.
HAYSTACK_EDGE_POLICY = EdgePolicy(no_gold=1.0, no_hit=0.0)


def _recall_multi_hit(c: DocumentCounts) -> np.ndarray:
    return c.matched / c.n_gold


def _recall_single_hit(c: DocumentCounts) -> np.ndarray:
    return np.ones_like(c.n_gold, dtype=np.float64)


def _precision(c: DocumentCounts) -> np.ndarray:
    return c.n_relevant_rows / c.n_rows


def _map(c: DocumentCounts) -> np.ndarray:
    return c.precision_sum / c.num_relevants


def _mrr(c: DocumentCounts) -> np.ndarray:
    return 1.0 / c.min_rank


def _ndcg(c: DocumentCounts) -> np.ndarray:
    return c.dcg / c.ideal_dcg


def _recall_all(c: DocumentCounts) -> np.ndarray:
    return (c.matched == c.n_gold).astype(np.float64)


def log2_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of EvaluationResult's ndcg: 1 / log2(rank + 1)."""
    return 1.0 / np.log2(np.asarray(rank, dtype=np.float64) + 1.0)


def any_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of REMem's NDCG_any: ranks 1 and 2 undiscounted, then 1 / log2(rank)."""
    rank = np.asarray(rank, dtype=np.float64)
    return np.where(rank <= 2, 1.0, 1.0 / np.log2(np.maximum(rank, 2.0)))


DOCUMENT_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("recall_multi_hit", "document", "Share of a query's gold documents found among the relevant rows.", _recall_multi_hit),
        Metric("recall_single_hit", "document", "1 if at least one relevant document was retrieved.", _recall_single_hit),
        Metric("precision", "document", "Relevant rows / retrieved rows.", _precision),
        Metric("map", "document", "Average precision at each relevant rank, over the number of relevant documents.", _map),
        Metric("mrr", "document", "Reciprocal rank of the first relevant document.", _mrr),
        Metric("ndcg", "document", "DCG of the relevant ranks over the ideal DCG (binary relevance).", _ndcg),
    )
}

#: Kernels of other frameworks' evaluators that are not EvaluationResult metrics (see evalframe.evaluators).
EVALUATOR_METRICS: dict[str, Metric] = {
    "recall_all": Metric("recall_all", "document", "1 if every gold document was retrieved.", _recall_all),
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


def apply_edge_policy(values: np.ndarray, counts: DocumentCounts, policy: EdgePolicy) -> np.ndarray:
    """Replace the kernel's value where the query has no gold documents or no relevant hit."""
    out = np.where(counts.n_relevant_rows == 0, policy.no_hit, values)
    return np.where(counts.n_gold == 0, policy.no_gold, out)
