"""Prepared arrays -> per-query metric tables (one row per query, one column per metric)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .arrays import numeric_column
from .prepared import AnswerRows, DocumentRows
from .._validation import require_columns
from ..columns import CRITERIA, answer_metric_column, relevance_column
from ..metrics.kernels import HAYSTACK_EDGE_POLICY, DocumentCounts, EdgePolicy, apply_edge_policy, ideal_dcg, log2_discount
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS

__all__ = ["document_counts", "document_query_metrics", "available_answer_metrics", "answer_query_metrics"]


def _pair_flags(rows: DocumentRows, criterion: str, context_threshold: float) -> np.ndarray:
    how, parts = CRITERIA[criterion]
    flags = []
    for part in parts:
        values = rows.pair_values(part)
        flags.append(values > context_threshold if part == "ctx" else values == 1.0)
    combined = flags[0]
    for flag in flags[1:]:
        combined = (combined & flag) if how == "and" else (combined | flag)
    return combined


def document_counts(
    rows: DocumentRows,
    *,
    criterion: str,
    top_k: int = -1,
    context_threshold: float = 65.0,
) -> DocumentCounts:
    """Per-query counts for one relevance criterion, simulated top-k and context threshold."""
    column = relevance_column(criterion)
    require_columns(rows.frame, [column], where=rows.where, why=f"for the relevance criterion {criterion!r}")
    relevant_rows = numeric_column(rows.frame, column, where=rows.where)[rows.positions] == 1.0
    keep = np.ones(len(rows.rank), dtype=bool) if top_k == -1 else rows.rank <= top_k
    relevant = relevant_rows[rows.order] & keep
    nq = rows.n_queries

    n_rows = np.bincount(rows.row_query[keep], minlength=nq)
    n_relevant_rows = np.bincount(rows.row_query[relevant], minlength=nq)

    selected = _pair_flags(rows, criterion, context_threshold) & relevant[rows.pair_row]
    hit = np.zeros(len(rows.pair_group_query), dtype=bool)
    hit[rows.pair_group[selected]] = True
    matched = np.bincount(rows.pair_group_query[hit], minlength=nq)

    doc_hit = np.zeros(len(rows.doc_group_query), dtype=bool)
    doc_hit[rows.doc_group[relevant]] = True
    num_relevants = np.bincount(rows.doc_group_query[doc_hit], minlength=nq) + (rows.n_gold - matched)

    # Relevant rows in (query, rank) order: first one per query has the smallest rank; for map,
    # the count of relevant rows ranked at or above a row includes rows tied with it.
    positions = np.flatnonzero(relevant)
    q = rows.row_query[positions]
    r = rows.rank[positions]
    new_query = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
    min_rank = np.full(nq, np.inf)
    min_rank[q[new_query]] = r[new_query]
    index = np.arange(len(q))
    query_start = np.maximum.accumulate(np.where(new_query, index, 0)) if len(q) else index
    within = index - query_start + 1
    new_tie = new_query | np.r_[False, r[1:] != r[:-1]] if len(q) else new_query
    last_of_tie = np.r_[new_tie[1:], True] if len(q) else new_tie
    tie_id = np.cumsum(new_tie) - 1
    at_or_above = within[last_of_tie][tie_id]
    precision_sum = np.bincount(q, weights=at_or_above / r, minlength=nq)
    dcg = np.bincount(q, weights=log2_discount(r), minlength=nq)

    return DocumentCounts(
        n_rows=n_rows.astype(np.float64),
        n_relevant_rows=n_relevant_rows.astype(np.float64),
        n_gold=rows.n_gold.astype(np.float64),
        matched=matched.astype(np.float64),
        num_relevants=num_relevants.astype(np.float64),
        min_rank=min_rank,
        precision_sum=precision_sum,
        dcg=dcg,
        ideal_dcg=ideal_dcg(num_relevants),
    )


def document_query_metrics(
    rows: DocumentRows,
    *,
    criterion: str,
    top_k: int = -1,
    context_threshold: float = 65.0,
    policy: EdgePolicy = HAYSTACK_EDGE_POLICY,
) -> pd.DataFrame:
    """One row per query (index ``multilabel_id``), one column per document metric."""
    counts = document_counts(rows, criterion=criterion, top_k=top_k, context_threshold=context_threshold)
    columns = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, metric in DOCUMENT_METRICS.items():
            columns[name] = apply_edge_policy(metric.kernel(counts), counts, policy)  # type: ignore[misc]
    table = pd.DataFrame(columns, index=pd.Index(rows.query_ids, name="multilabel_id"))
    if top_k == -1:
        return table
    # SPEC 3 filters the rows first: a query with no row ranked <= top_k is not in the table, and the queries
    # are in order of first appearance among the remaining rows
    kept = rows.rank <= top_k
    first = np.full(rows.n_queries, np.iinfo(np.int64).max)
    np.minimum.at(first, rows.row_query[kept], rows.positions[rows.order[kept]])
    present = np.flatnonzero(counts.n_rows > 0)
    return table.iloc[present[np.argsort(first[present], kind="stable")]]


def available_answer_metrics(frame: pd.DataFrame) -> list[str]:
    """The answer metrics a frame carries (``sas`` only when it was built with a SAS model)."""
    return [name for name in ANSWER_METRICS if name in frame.columns]


def answer_query_metrics(rows: AnswerRows, kept: np.ndarray, *, answer_scope: str) -> pd.DataFrame:
    """One row per query (index ``multilabel_id``), one column per answer metric.

    A query none of whose rows is kept scores 0.0 (DIFFERS: Haystack gave NaN and dropped it).
    """
    metrics = available_answer_metrics(rows.frame)
    columns = [answer_metric_column(m, answer_scope) for m in metrics]
    require_columns(rows.frame, columns, where=rows.where, why=f"for answer metrics with answer_scope={answer_scope!r}")
    nq = rows.n_queries
    has_row = np.bincount(rows.codes[kept], minlength=nq) > 0
    out = {}
    for metric, column in zip(metrics, columns):
        values = np.where(kept, numeric_column(rows.frame, column, where=rows.where)[rows.positions], -np.inf)
        best = np.fmax.reduceat(values[rows.by_query], rows.starts) if nq else np.zeros(0)
        best = np.where(has_row, best, 0.0)
        best[has_row & (best == -np.inf)] = np.nan  # kept rows, but every value missing
        out[metric] = best
    return pd.DataFrame(out, index=pd.Index(rows.query_ids, name="multilabel_id"))

