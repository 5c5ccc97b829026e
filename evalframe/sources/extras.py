"""The one rule of a dataset's extra columns (a Ragas table's, a Haystack 2.x run result's inputs, a LlamaIndex
result's fields): what plays no part of a query (question, documents, answer, gold) is a score, a ``meta`` field or
named in a warning.

* a column with a number (or its text) in some row is a score (the source may name more: Ragas' metric columns,
  whatever they hold), each cell then read by :mod:`~evalframe.frames.score_values` (a cell that is no number is
  refused, named);
* every other column of one value per row (texts; flags and objects too, with a warning saying so) is a field of the
  query's ``meta``, to slice by (``sliced_metrics("meta.topic")``);
* a column of lists is left out, named in the same warning.

``scores=[...]`` names the score columns instead, ``meta=[...]`` the meta fields (``[]``: none; a column named there
is never a score).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import warn
from ..frames.score_values import looks_like_scores

__all__ = ["missing", "scalar", "why_no_score", "extra_scores", "extra_meta", "warn_left_out", "meta_of"]


def missing(value: Any) -> bool:
    """Whether a cell holds no value: None, NaN or a blank text."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str) and not value.strip())


def scalar(cells: Sequence[Any]) -> bool:
    """Whether no cell is a list (a text, a number, a flag or an object each)."""
    return not any(isinstance(value, (list, tuple, np.ndarray)) for value in cells)


def why_no_score(cells: Sequence[Any]) -> str | None:
    """What a column that is no score holds, for the warning that names it; None for a column of texts (a meta
    field, as documented: no warning).

    Examples
    --------
    >>> why_no_score(["a", None]), why_no_score([True, False]), why_no_score([["a"], []])
    (None, 'True / False, not numbers', 'lists, not numbers')
    """
    present = [value for value in cells if not missing(value)]
    if not present:
        return "no value in any row"
    if all(isinstance(value, str) for value in present):
        return None
    if any(isinstance(value, (list, tuple, np.ndarray)) for value in present):
        return "lists, not numbers"
    kinds = sorted({"True / False" if isinstance(value, (bool, np.bool_)) else "objects" if isinstance(value, Mapping)
                    else "texts" if isinstance(value, str) else type(value).__name__ for value in present})
    return " and ".join(kinds) + ", not numbers"


def extra_scores(cells: Mapping[str, Sequence[Any]], named_meta: Sequence[str] = (),
                 is_score: Callable[[str], bool] | None = None) -> list[str]:
    """The extra columns that are scores: a number (or its text) in some row, or one ``is_score`` names; never one
    of ``named_meta``.

    Examples
    --------
    >>> extra_scores({"judge": [0.5, "0.7"], "topic": ["a", "b"], "flag": [True, False]})
    ['judge']
    """
    return [column for column, values in cells.items() if column not in named_meta
            and ((is_score is not None and is_score(column)) or looks_like_scores(values))]


def extra_meta(cells: Mapping[str, Sequence[Any]], scores: Sequence[str]) -> list[str]:
    """The extra columns that become meta fields when the caller names none: those of one value per row that are
    neither scores nor hold numbers.

    Examples
    --------
    >>> extra_meta({"judge": [0.5], "topic": ["a"], "flag": [True], "ids": [["d1"]]}, ["judge"])
    ['topic', 'flag']
    """
    return [column for column, values in cells.items() if column not in scores and scalar(values)
            and not looks_like_scores(values)]


def warn_left_out(source: str, cells: Mapping[str, Sequence[Any]], scores: Sequence[str], meta: Sequence[str], *,
                  noun: str = "columns", more: Mapping[str, str] | None = None) -> None:
    """One warning naming each extra column (of ``cells``: those the caller did not name) that gives no score and
    holds something else than texts (a column of texts is a meta field, as documented), with what it became and why: a
    score column without a value in any row, a meta field of flags or objects, a column left out (lists); ``more``:
    other columns the source left out, with why."""
    noted = dict(more or {})
    for column, values in cells.items():
        why = why_no_score(values)
        if why is None or (column in scores and why != "no value in any row"):
            continue
        noted[column] = (f"a score without a value in any row: no {column!r} in result.scores" if column in scores
                         else f"{'a meta field' if column in meta else 'left out'}: {why}")
    if noted:
        told = ", ".join(f"{column!r} ({what})" for column, what in noted.items())
        kind = noun[:-1] if noun.endswith("s") else noun
        article = "an" if kind[0] in "aeiou" else "a"
        warn(f"{source}: {noun} that give no score: {told}. A score {kind} holds a number (or its text) in "
             f"some row; name {article} {kind} in scores=[...] to read it as a score (a cell that is no number is then "
             "refused, named), or in meta=[...] to keep it as a meta field.")


def meta_of(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """One query's meta from its extra fields' values (numpy scalars and arrays as Python's); a field without a value
    is left out, and no field at all is no meta (None), as a runs line without ``"meta"``.

    Examples
    --------
    >>> meta_of({"topic": "sports", "split": None}), meta_of({"topic": float("nan")})
    ({'topic': 'sports'}, None)
    >>> meta_of({"asked": pd.Timestamp("2024-05-01 12:00"), "rank": np.int64(2)})
    {'asked': '2024-05-01T12:00:00', 'rank': 2}
    """
    fields = {}
    for name, value in values.items():
        if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
            continue
        if isinstance(value, (datetime.date, datetime.time, np.datetime64)):  # a time as its ISO 8601 text
            value = pd.Timestamp(value).isoformat() if isinstance(value, np.datetime64) else value.isoformat()
        fields[name] = value.item() if isinstance(value, np.generic) else value.tolist() \
            if isinstance(value, np.ndarray) else value
    return fields or None
