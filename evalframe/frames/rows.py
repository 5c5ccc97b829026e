"""Row selection: a node's rows of one type and eval_mode, as positions in its frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import require_columns
from ..errors import warn

__all__ = ["row_positions", "has_rows"]


def _equals(series: pd.Series, value: str) -> np.ndarray:
    return (series == value).to_numpy(dtype=bool, na_value=False)


def row_positions(frame: pd.DataFrame, row_type: str, eval_mode: str, *, where: str) -> np.ndarray:
    """Positions of the rows of ``row_type`` evaluated in ``eval_mode``.

    A frame without an ``eval_mode`` column uses all its rows, with a warning.
    """
    require_columns(frame, ["multilabel_id", "type", "rank"], where=where, why="to compute metrics")
    mask = _equals(frame["type"], row_type)
    if "eval_mode" in frame.columns:
        mask = mask & _equals(frame["eval_mode"], eval_mode)
    else:
        warn(f"{where} has no 'eval_mode' column; using all its rows for eval_mode={eval_mode!r}.")
    return np.flatnonzero(mask)


def has_rows(frame: pd.DataFrame, row_type: str) -> bool:
    """Whether ``frame`` has rows of ``row_type`` ("answer" or "document"), in any eval_mode."""
    return "type" in frame.columns and bool(_equals(frame["type"], row_type).any())
