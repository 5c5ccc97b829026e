"""Per-query answer metrics: the best value of a row metric over the kept answer rows (SPEC 3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._arrays import first_appearance_codes, numeric_column, row_label
from .._validation import require_columns
from ..columns import answer_metric_column
from ..errors import SchemaError
from .registry import ANSWER_METRICS

__all__ = ["AnswerRows", "prepare_answer_rows", "available_answer_metrics", "answer_query_metrics"]


@dataclass
class AnswerRows:
    """One node's answer rows of one eval_mode: query codes, ranks and the grouping for per-query maxima.

    Metric values are not held here; they are read from ``frame`` on every call.
    """

    frame: pd.DataFrame
    positions: np.ndarray  # row positions in frame
    where: str
    codes: np.ndarray  # query code per row
    query_ids: np.ndarray
    rank: np.ndarray
    by_query: np.ndarray  # rows grouped by query (stable)
    starts: np.ndarray  # start of each query's group in by_query

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)


def prepare_answer_rows(frame: pd.DataFrame, positions: np.ndarray, *, where: str) -> AnswerRows:
    codes, query_ids = first_appearance_codes(frame["multilabel_id"], positions)
    rank = numeric_column(frame, "rank", where=where)[positions]
    if np.isnan(rank).any():
        row = row_label(frame.index, int(positions[np.flatnonzero(np.isnan(rank))[0]]))
        raise SchemaError(f"{where}: column 'rank' is empty in row {row!r}; every row needs a rank.")
    by_query = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[by_query], np.arange(len(query_ids)))
    return AnswerRows(frame, positions, where, codes, query_ids, rank, by_query, starts)


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
