"""Metric kernels: per-query values from per-query counts, pure numpy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DocumentCounts", "EdgePolicy", "HAYSTACK_EDGE_POLICY", "apply_edge_policy", "ideal_dcg", "log2_discount",
           "any_discount", "recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg", "recall_all"]


@dataclass
class DocumentCounts:
    """Per-query quantities every document metric is a function of (arrays of length n_queries)."""

    n_rows: np.ndarray  # retrieved rows (after top-k)
    n_relevant_rows: np.ndarray  # |R|
    n_gold: np.ndarray  # L
    matched: np.ndarray  # M: distinct gold indices matched by relevant rows
    num_relevants: np.ndarray  # distinct relevant document ids + (L - M)
    min_rank: np.ndarray  # smallest rank in R (inf when R is empty)
    precision_sum: np.ndarray  # sum over r in R of |{r' in R: rank r' <= rank r}| / rank r
    dcg: np.ndarray  # sum over R of 1 / log2(rank + 1)
    ideal_dcg: np.ndarray  # sum_{i=1..num_relevants} 1 / log2(i + 1)


def ideal_dcg(num_relevants: np.ndarray) -> np.ndarray:
    top = int(num_relevants.max(initial=0))
    table = np.concatenate(([0.0], np.cumsum(log2_discount(np.arange(1, top + 1)))))
    return table[np.clip(num_relevants, 0, None)]


@dataclass(frozen=True)
class EdgePolicy:
    """Values of a document metric for queries outside the kernel's domain."""

    no_gold: float  # the query has no gold document (L == 0)
    no_hit: float  # the query has gold documents but no relevant retrieved row


#: Haystack 1.x EvaluationResult: a query without gold documents counts as perfect.
HAYSTACK_EDGE_POLICY = EdgePolicy(no_gold=1.0, no_hit=0.0)


def recall_multi_hit(c: DocumentCounts) -> np.ndarray:
    return c.matched / c.n_gold


def recall_single_hit(c: DocumentCounts) -> np.ndarray:
    return np.ones_like(c.n_gold, dtype=np.float64)


def precision(c: DocumentCounts) -> np.ndarray:
    return c.n_relevant_rows / c.n_rows


def map(c: DocumentCounts) -> np.ndarray:
    return c.precision_sum / c.num_relevants


def mrr(c: DocumentCounts) -> np.ndarray:
    return 1.0 / c.min_rank


def ndcg(c: DocumentCounts) -> np.ndarray:
    return c.dcg / c.ideal_dcg


def recall_all(c: DocumentCounts) -> np.ndarray:
    return (c.matched == c.n_gold).astype(np.float64)


def log2_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of EvaluationResult's ndcg: 1 / log2(rank + 1)."""
    return 1.0 / np.log2(np.asarray(rank, dtype=np.float64) + 1.0)


def any_discount(rank: np.ndarray) -> np.ndarray:
    """DCG discount of REMem's NDCG_any: ranks 1 and 2 undiscounted, then 1 / log2(rank)."""
    rank = np.asarray(rank, dtype=np.float64)
    return np.where(rank <= 2, 1.0, 1.0 / np.log2(np.maximum(rank, 2.0)))


def apply_edge_policy(values: np.ndarray, counts: DocumentCounts, policy: EdgePolicy) -> np.ndarray:
    """Replace the kernel's value where the query has no gold documents or no relevant hit."""
    out = np.where(counts.n_relevant_rows == 0, policy.no_hit, values)
    return np.where(counts.n_gold == 0, policy.no_gold, out)
