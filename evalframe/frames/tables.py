"""Prepared arrays -> per-query metric tables (one row per query, one column per metric)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .arrays import numeric_column
from .prepared import AnswerRows, DocumentRows
from .topk import document_queries_kept
from .._validation import require_columns
from ..columns import CRITERIA, answer_metric_column, relevance_column
from ..metrics import kernels
from ..metrics.kernels import HAYSTACK_EDGE_POLICY, DocumentCounts, EdgePolicy
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS

__all__ = ["query_index", "document_counts", "document_query_metrics", "available_answer_metrics", "answer_query_metrics"]


def query_index(rows: DocumentRows | AnswerRows) -> pd.Index:
    """The index of a per-query table: ``pd.Index(rows.query_ids, name="multilabel_id")``.

    Made from the Arrow strings themselves when the ids are pandas' ``str`` (what the index of their Python
    strings would be), not from one Python string per query.
    """
    values = rows.query_values
    if isinstance(values, pd.arrays.ArrowStringArray) and values.dtype == pd.StringDtype("pyarrow", na_value=np.nan):
        index = pd.Index(values, name="multilabel_id")
        if index.dtype == pd.Index(rows.query_ids[:1]).dtype:  # the dtype inferred from Python strings
            return index
    return pd.Index(rows.query_ids, name="multilabel_id")


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


def document_counts(rows: DocumentRows, *, criterion: str, kept: np.ndarray, context_threshold: float) -> DocumentCounts:
    """Per-query counts for one relevance criterion, the rows a top-k keeps and a context threshold.

    ``kept`` is a mask over the sorted rows (:func:`evalframe.frames.topk.document_rows_kept`). Reads the
    criterion's relevance column and match lists from the frame, then counts with
    :func:`evalframe.metrics.kernels.document_counts`.
    """
    column = relevance_column(criterion)
    require_columns(rows.frame, [column], where=rows.where, why=f"for the relevance criterion {criterion!r}")
    relevant_rows = numeric_column(rows.frame, column, where=rows.where)[rows.positions] == 1.0
    return kernels.document_counts(
        row_query=rows.row_query, rank=rows.rank, kept=kept, relevant=relevant_rows[rows.order],
        doc_group=rows.doc_group, doc_group_query=rows.doc_group_query, pair_row=rows.pair_row, pair_group=rows.pair_group,
        pair_group_query=rows.pair_group_query, pair_matched=_pair_flags(rows, criterion, context_threshold), n_gold=rows.n_gold,
    )


def document_query_metrics(
    rows: DocumentRows,
    *,
    criterion: str,
    kept: np.ndarray,
    context_threshold: float,
    policy: EdgePolicy = HAYSTACK_EDGE_POLICY,
) -> pd.DataFrame:
    """One row per query that keeps a row (index ``multilabel_id``), one column per document metric.

    ``kept`` is the mask of the sorted rows a top-k keeps; the queries are those of
    :func:`evalframe.frames.topk.document_queries_kept`, in its order.
    """
    counts = document_counts(rows, criterion=criterion, kept=kept, context_threshold=context_threshold)
    columns = {name: metric.values(counts, policy) for name, metric in DOCUMENT_METRICS.items()}
    table = pd.DataFrame(columns, index=query_index(rows))
    return table if kept.all() else table.iloc[document_queries_kept(rows, kept)]


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
    return pd.DataFrame(out, index=query_index(rows))

