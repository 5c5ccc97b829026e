"""Prepared arrays -> per-query metric tables (one row per query, one column per metric)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .arrays import numeric_column
from .prepared import AnswerRows, DocumentRows
from .._validation import require_columns
from ..columns import CRITERIA, answer_metric_column, relevance_column
from ..metrics import kernels
from ..metrics.kernels import HAYSTACK_EDGE_POLICY, DocumentCounts, EdgePolicy
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
    """Per-query counts for one relevance criterion, simulated top-k and context threshold.

    Reads the criterion's relevance column and match lists from the frame, then counts with
    :func:`evalframe.metrics.kernels.document_counts`.
    """
    column = relevance_column(criterion)
    require_columns(rows.frame, [column], where=rows.where, why=f"for the relevance criterion {criterion!r}")
    relevant_rows = numeric_column(rows.frame, column, where=rows.where)[rows.positions] == 1.0
    kept = np.ones(len(rows.rank), dtype=bool) if top_k == -1 else rows.rank <= top_k
    return kernels.document_counts(
        row_query=rows.row_query, rank=rows.rank, kept=kept, relevant=relevant_rows[rows.order],
        doc_group=rows.doc_group, doc_group_query=rows.doc_group_query, pair_row=rows.pair_row, pair_group=rows.pair_group,
        pair_group_query=rows.pair_group_query, pair_matched=_pair_flags(rows, criterion, context_threshold), n_gold=rows.n_gold,
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
    columns = {name: metric.values(counts, policy) for name, metric in DOCUMENT_METRICS.items()}
    table = pd.DataFrame(columns, index=pd.Index(rows.query_ids, name="multilabel_id"))
    if top_k == -1:
        return table
    # the rows are filtered first (docs/metrics.md#per-query): a query with no row ranked <= top_k is not in the table, and the queries
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

    A query none of whose rows is kept scores 0.0 (Haystack gave NaN and dropped it: docs/metrics.md#answer-metrics).
    """
    metrics = available_answer_metrics(rows.frame)
    columns = [answer_metric_column(m, answer_scope) for m in metrics]
    require_columns(rows.frame, columns, where=rows.where, why=f"for answer metrics with answer_scope={answer_scope!r}")
    out = {}
    for metric, column in zip(metrics, columns):
        values = numeric_column(rows.frame, column, where=rows.where)[rows.positions]
        out[metric] = ANSWER_METRICS[metric].kernel(values, kept, row_query=rows.codes, by_query=rows.by_query,
                                                    starts=rows.starts)
    return pd.DataFrame(out, index=pd.Index(rows.query_ids, name="multilabel_id"))

