"""Per-query answer metrics: the best value of a row metric over the kept answer rows (SPEC 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._arrays import numeric_column
from .._validation import require_columns
from ..columns import answer_metric_column
from .registry import ANSWER_METRICS

__all__ = ["available_answer_metrics", "answer_query_metrics"]


def available_answer_metrics(frame: pd.DataFrame) -> list[str]:
    """The answer metrics a frame carries (``sas`` only when it was built with a SAS model)."""
    return [name for name in ANSWER_METRICS if name in frame.columns]


def answer_query_metrics(
    answers: pd.DataFrame,
    query_codes: np.ndarray,
    query_ids: np.ndarray,
    kept: np.ndarray,
    *,
    answer_scope: str,
    where: str,
) -> pd.DataFrame:
    """One row per query (index ``multilabel_id``), one column per answer metric.

    A query none of whose rows is kept scores 0.0 (DIFFERS: Haystack gave NaN and dropped it).
    """
    metrics = available_answer_metrics(answers)
    columns = [answer_metric_column(m, answer_scope) for m in metrics]
    require_columns(answers, columns, where=where, why=f"for answer metrics with answer_scope={answer_scope!r}")
    nq = len(query_ids)
    has_row = np.bincount(query_codes[kept], minlength=nq) > 0
    order = np.argsort(query_codes, kind="stable")
    starts = np.searchsorted(query_codes[order], np.arange(nq))
    out = {}
    for metric, column in zip(metrics, columns):
        values = np.where(kept, numeric_column(answers, column, where=where), -np.inf)
        best = np.fmax.reduceat(values[order], starts) if nq else np.zeros(0)
        best = np.where(has_row, best, 0.0)
        best[has_row & (best == -np.inf)] = np.nan  # kept rows, but every value missing
        out[metric] = best
    return pd.DataFrame(out, index=pd.Index(query_ids, name="multilabel_id"))
