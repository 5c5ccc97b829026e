"""The one rule of a dataset's extra columns (a Ragas table's, a Haystack 2.x run result's inputs, a LlamaIndex
result's fields): what plays no part of a query (question, documents, answer, gold) is a score, a ``meta`` field or
left out, and one warning names each column that gives no score, with what it became and why.

* a column of numbers (or their text) is a score (the source may name more: Ragas' metric columns, whatever they
  hold), each cell then read by :mod:`~evalframe.frames.score_values` (a cell that is no number is refused, named):
  numbers, or their text, in at least half of the rows with a value (:func:`~evalframe.frames.score_values.column_kind`:
  ``[0.9, "n/a", 0.7]`` is a score whose ``"n/a"`` is refused; a CSV file's ``"1"`` ... ``"5"`` a judge's score);
* unless its name is an id's (:func:`id_like`: ``id``, ``sample_id``, ``sku``, ``year``, ...): ids, codes and years
  are integers, and so are a judge's 1-5 scores, so a name tells them apart: such a column is a meta field;
* every other column of one value per row (texts, such as ``"1001"``, ``"X-2"``: integers among texts that are no
  number are codes; flags and objects too) is a field of the query's ``meta``, to slice by
  (``sliced_metrics("meta.topic")``);
* a column of lists is left out.

``scores=[...]`` names the score columns instead (a column named like an id too), ``meta=[...]`` the meta fields
(``[]``: none; a column named there is never a score, and no warning names it).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import short_repr
from ..errors import InvalidParameterError, warn
from ..frames.score_values import NUMBER_TEXT, SPACES, looks_like_scores, text_series
from ..metrics.registry import score_measure
from .foreign import score_name

__all__ = ["missing", "scalar", "ID_WORDS", "id_like", "why_no_score", "extra_scores", "extra_meta", "warn_left_out",
           "check_score_columns", "meta_of"]

#: The last words of a column's name that say it holds ids, codes or years (never a score unless named in
#: ``scores=[...]``): ``id``, ``sample_id``, ``productSKU``, ``release_year``.
ID_WORDS = frozenset({"id", "ids", "qid", "uuid", "guid", "sku", "year"})
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: How the warning says the rule of the name.
_ID_NAMES = "'id', '..._id', 'sku', 'year', ..."


def missing(value: Any) -> bool:
    """Whether a cell holds no value: None, NaN or a blank text."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str) and not value.strip())


def scalar(cells: Sequence[Any]) -> bool:
    """Whether no cell is a list (a text, a number, a flag or an object each)."""
    return not any(isinstance(value, (list, tuple, np.ndarray)) for value in cells)


def id_like(column: str) -> bool:
    """Whether a column's name is an id's, a code's or a year's: its last word (words split at ``_``, ``-``, ``.``,
    spaces, digits and where camelCase turns) is one of :data:`ID_WORDS`, in any case.

    Examples
    --------
    >>> id_like("id"), id_like("sample_id"), id_like("productSKU"), id_like("Release Year"), id_like("docID")
    (True, True, True, True, True)
    >>> id_like("valid"), id_like("paid"), id_like("judge"), id_like("id_score")
    (False, False, False, False)
    """
    words = _WORDS.findall(column)
    return bool(words) and words[-1].lower() in ID_WORDS


def why_no_score(cells: Sequence[Any], column: str | None = None) -> str:
    """Why a column is no score, for the warning that names it: what it holds, or (``column`` given) its name an id's
    when it holds numbers.

    Examples
    --------
    >>> why_no_score(["a", None]), why_no_score([True, False]), why_no_score([["a"], []])
    ('texts, not numbers', 'True / False, not numbers', 'lists, not numbers')
    >>> why_no_score(["1001", "X-2", "1003"]), why_no_score([101, 102], "id")
    ("texts, not numbers ('X-2' is none)", "an id's name: its numbers are no score")
    """
    if column is not None and id_like(column) and looks_like_scores(cells):
        return "an id's name: its numbers are no score"
    present = [value for value in cells if not missing(value)]
    if not present:
        return "no value in any row"
    if all(isinstance(value, str) for value in present):
        texts = text_series(present).str.strip(SPACES)
        others = texts[~texts.str.fullmatch(NUMBER_TEXT, case=False).to_numpy(dtype=bool)]
        if 0 < len(others) < len(texts):  # numbers among them (codes): say which text is none
            return f"texts, not numbers ({short_repr(others.iloc[0], 40)} is none)"
        return "texts, not numbers"
    if any(isinstance(value, (list, tuple, np.ndarray)) for value in present):
        return "lists, not numbers"
    kinds = sorted({"True / False" if isinstance(value, (bool, np.bool_)) else "objects" if isinstance(value, Mapping)
                    else "texts" if isinstance(value, str) else type(value).__name__ for value in present})
    return " and ".join(kinds) + ", not numbers"


def extra_scores(cells: Mapping[str, Sequence[Any]], named_meta: Sequence[str] = (),
                 is_score: Callable[[str], bool] | None = None) -> list[str]:
    """The extra columns that are scores: one ``is_score`` names, or one of numbers (or their text) not named like an
    id (:func:`id_like`); never one of ``named_meta``.

    Examples
    --------
    >>> extra_scores({"judge": [0.5, "0.7"], "topic": ["a", "b"], "flag": [True, False], "sample_id": [101, 102]})
    ['judge']
    """
    return [column for column, values in cells.items() if column not in named_meta
            and ((is_score is not None and is_score(column)) or (not id_like(column) and looks_like_scores(values)))]


def extra_meta(cells: Mapping[str, Sequence[Any]], scores: Sequence[str]) -> list[str]:
    """The extra columns that become meta fields when the caller names none: those of one value per row that are no
    scores, and hold no numbers or are named like an id.

    Examples
    --------
    >>> extra_meta({"judge": [0.5], "topic": ["a"], "flag": [True], "ids": [["d1"]], "year": ["2020"]}, ["judge"])
    ['topic', 'flag', 'year']
    """
    return [column for column, values in cells.items() if column not in scores and scalar(values)
            and (id_like(column) or not looks_like_scores(values))]


def warn_left_out(source: str, cells: Mapping[str, Sequence[Any]], scores: Sequence[str], meta: Sequence[str], *,
                  noun: str = "columns", more: Mapping[str, str] | None = None) -> None:
    """One warning naming each extra column (of ``cells``: those the caller did not name) that gives no score, with
    what it became and why: a meta field (texts, flags, objects; a column named like an id), a column left out
    (lists), a score column without a value in any row; ``more``: other columns the source left out, with why.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_left_out("t.csv", {"judge": ["4", "5"], "topic": ["a", "b"], "sku": ["1001", "X-2"]}, ["judge"],
    ...                   ["topic", "sku"])
    >>> print(str(caught[0].message).split(" A score ")[0].replace("), ", "),\\n"))
    t.csv: columns that give no score: 'topic' (a meta field: texts, not numbers),
    'sku' (a meta field: texts, not numbers ('X-2' is none)).
    """
    noted = dict(more or {})
    for column, values in cells.items():
        if column in scores:
            if not any(not missing(value) for value in values):
                noted[column] = f"a score without a value in any row: no {column!r} in result.scores"
            continue
        noted[column] = f"{'a meta field' if column in meta else 'left out'}: {why_no_score(values, column)}"
    if noted:
        told = ", ".join(f"{column!r} ({what})" for column, what in noted.items())
        kind = noun[:-1] if noun.endswith("s") else noun
        article = "an" if kind[0] in "aeiou" else "a"
        warn(f"{source}: {noun} that give no score: {told}. A score {kind} holds numbers (or their text) in at least "
             f"half of its rows and is not named like an id ({_ID_NAMES}); name {article} {kind} in scores=[...] to "
             "read it as a score (a cell that is no number is then refused, named), or the meta fields in meta=[...] "
             "(then no warning).")


def check_score_columns(source: str, columns: Sequence[str], *, noun: str = "columns", prefix: str | None = None,
                        names: Mapping[str, str] | None = None) -> None:
    """Refuse, naming the source and the column, an extra column read as a score whose name cannot name a score
    (``"my score"``, ``"mrr@5"``: a score's name holds letters, digits, ``_`` and ``-``); its name as a score is
    ``names[column]``, else the column's own, mended when written with parameters (``"f(mode=x)"`` is ``f_mode_x``:
    :func:`~evalframe.sources.foreign.mended_name`) and with ``prefix`` when evalframe owns it, as the source names it.

    Examples
    --------
    >>> check_score_columns("t.csv", ["judge"])
    >>> check_score_columns("t.csv", ["my score"])
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: t.csv, column 'my score': read as a score, but a score's name ...
    """
    kind = noun[:-1] if noun.endswith("s") else noun
    for column in columns:
        name = (names or {}).get(column) or score_name(column, prefix)
        try:
            score_measure(name)
        except InvalidParameterError as exc:
            told, named = str(exc), f"score name {name!r}: "
            why = told[len(named):] if told.startswith(named) else told
            raise InvalidParameterError(
                f"{source}, {kind} {column!r}: read as a score, but {why.rstrip('.')}; or name it in meta=[...] to "
                f"keep it as a meta field, or the other score {noun} in scores=[...].", parameter="scores") from None


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
