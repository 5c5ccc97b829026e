"""The one rule of a score's value, for every way a score comes in: ``add_scores``, ``from_runs(scores=)``, a runs
file line's ``scores``, the score columns of ``from_frame`` and ``from_ragas``, Haystack 2.x's
``individual_scores``, LlamaIndex's ``metric_dict`` and a node frame's ``scores.<name>`` columns.

A score is a number: an int or a float (numpy's, ``Decimal`` and ``Fraction`` too), kept as a float64. The text of
a number in decimal notation (``"0.8"``, ``" 1e-3 "``, ``"-2"``, ``"inf"``; spaces around it are ignored) is that
number: a CSV file gives every cell as text, and a judge sometimes writes its number as text. None, NaN, pandas' NA,
an empty (or blank) text and ``"nan"`` are no value (NaN). Anything else is refused, naming the cell as its source
counts it (``row 3, column 'faithfulness'``, ``runs.jsonl:4, score 'f' of node 'G'``) and saying why:

* a bool: True / False is a verdict, not a score, and read as 1 / 0 it would be averaged without a word; give
  1.0 / 0.0 (``df[column].astype(float)``) to average it as a rate;
* a list, a tuple or an array, ``[0.5]`` too: a score is one number per query (give the number itself);
* a complex number, a dict, bytes, a date, any other object;
* text that is not a number in decimal notation (``"n/a"``, ``"high"``, ``"1_0"``, ``"0x10"``);
* an integer beyond the range of a float (``10**400``, or its text: a CSV cell of 400 digits), which as a float
  would be infinite.

An infinite value is a number here; the score's bounds check (``evalframe.frames.scores.check_bounds``) refuses it,
as a score is finite.
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import short_repr
from ..errors import EvalframeError, InvalidParameterError

__all__ = ["score_value", "score_values", "not_a_score", "column_kind", "looks_like_scores", "SCORE_KINDS", "NUMBER_TEXT",
           "INTEGER_TEXT", "text_series"]

#: The text of a number (between ASCII spaces, tabs and line breaks): decimal notation with an optional exponent, or
#: inf / infinity, any case; what ``pandas.to_numeric`` reads, which converts a column of texts whole (a test holds
#: the two to one grammar). The texts of no value are the empty text and "nan".
NUMBER_TEXT = r"[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|inf|infinity)"
_NUMBER = re.compile(NUMBER_TEXT, re.IGNORECASE)
#: The text of an integer: a number's text without a point, an exponent or inf (what ids, years and codes are).
INTEGER_TEXT = r"[+-]?[0-9]+"
_INTEGER = re.compile(INTEGER_TEXT)
SPACES = " \t\n\r\v\f"
_NO_VALUE_TEXTS = ("", "nan", "+nan", "-nan")
#: What ``pandas.api.types.infer_dtype`` calls an object column of numbers only (and missing values).
_NUMBER_KINDS = frozenset({"floating", "integer", "mixed-integer-float", "decimal"})

_BOOL = "a bool: True / False is a verdict, not a score (give 1.0 / 0.0 to average it as a rate)"
_LIST = "a list: a score is one number per query (give the number itself)"
_TEXT = "text that is not a number"
_HUGE = "an integer beyond the range of a float (as a float it would be infinite)"


class _Refused(Exception):
    """Why one cell is no score's value."""


def _no_value(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return isinstance(value, str) and value.strip(SPACES).lower() in _NO_VALUE_TEXTS


def _one(value: Any) -> float:
    """``value`` as a float (NaN: no value), or _Refused saying why it is none."""
    if _no_value(value):
        return math.nan
    if isinstance(value, (bool, np.bool_)):
        raise _Refused(_BOOL)
    if isinstance(value, str):
        text = value.strip(SPACES)
        if _NUMBER.fullmatch(text) is None:
            raise _Refused(_TEXT)
        number = float(text)  # any length: float() has no digit limit (int() has), and 5,001 digits are inf
        if math.isinf(number) and _INTEGER.fullmatch(text) is not None:
            raise _Refused(_HUGE)  # as the integer itself is (10**400): not "inf" written as digits
        return number
    if isinstance(value, (numbers.Real, decimal.Decimal, np.integer, np.floating)):
        try:
            return float(value)
        except OverflowError:
            raise _Refused(_HUGE) from None
        except (ValueError, decimal.InvalidOperation):  # a signalling Decimal NaN
            raise _Refused(f"a {type(value).__name__} that is no number") from None
    if isinstance(value, (complex, np.complexfloating)):
        raise _Refused("a complex number")
    if isinstance(value, (list, tuple, np.ndarray)):
        raise _Refused(_LIST)
    if isinstance(value, dict):
        raise _Refused("a dict")
    raise _Refused(f"a {type(value).__name__}, not a number")


def not_a_score(value: Any) -> str | None:
    """Why ``value`` is no score's value; None when it is a number or no value.

    Examples
    --------
    >>> not_a_score(0.5), not_a_score("0.5"), not_a_score(None), not_a_score("")
    (None, None, None, None)
    >>> not_a_score(True)
    'a bool: True / False is a verdict, not a score (give 1.0 / 0.0 to average it as a rate)'
    >>> not_a_score([0.5])
    'a list: a score is one number per query (give the number itself)'
    """
    try:
        _one(value)
    except _Refused as refused:
        return str(refused)
    return None


def _message(where: str, value: Any, reason: str) -> str:
    return f"{where} must be a number (None, NaN or empty: no value); got {short_repr(value, 60)}, {reason}."


def score_value(value: Any, *, where: str, error: type[EvalframeError] = InvalidParameterError,
                parameter: str | None = None) -> float:
    """One score's value as a float (NaN: no value), by the module's rule; else ``error`` naming ``where``.

    Examples
    --------
    >>> score_value(" 0.8 ", where="runs.jsonl:4, score 'f' of node 'G'")
    0.8
    >>> score_value("high", where="runs.jsonl:4, score 'f' of node 'G'")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: runs.jsonl:4, score 'f' of node 'G' must be a number (...); got 'high', text ...
    """
    try:
        return _one(value)
    except _Refused as refused:
        raise error(_message(where, value, str(refused)), parameter=parameter) from None


def _objects(values: Any) -> np.ndarray:
    """``values`` as a 1-D object array, each cell unchanged (a list cell stays one cell)."""
    if isinstance(values, (pd.Series, pd.Index)):
        return values.to_numpy(dtype=object)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values.astype(object)
    listed = list(values)  # not np.array(listed): a list cell would become a row of a 2-D array
    return np.fromiter(listed, dtype=object, count=len(listed))


def _texts(objects: np.ndarray, missing: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A column of texts (and missing cells) read whole: its values (NaN: no value) and which cells are no number;
    None when pandas gives no float column (then each cell is read)."""
    parsed = pd.to_numeric(pd.Series(objects, dtype=object), errors="coerce")
    if parsed.dtype.kind not in "iuf":
        return None
    out = parsed.to_numpy(dtype=np.float64, na_value=np.nan)
    unread = np.flatnonzero(np.isnan(out) & ~missing)  # "nan", blank or no number: told apart on these cells only
    bad = np.zeros(len(objects), dtype=bool)
    if len(unread):
        texts = pd.Series(objects[unread], dtype=object).str.strip(SPACES).str.lower()
        bad[unread[~texts.isin(_NO_VALUE_TEXTS).to_numpy()]] = True
    infinite = np.flatnonzero(np.isinf(out))  # "inf", "1e400", or the digits of an integer beyond the float range
    if len(infinite):
        texts = pd.Series(objects[infinite], dtype=object).str.strip(SPACES)
        bad[infinite[texts.str.fullmatch(INTEGER_TEXT).to_numpy(dtype=bool)]] = True
    return out, bad


def score_values(values: Sequence[Any] | np.ndarray | pd.Series, *, where: Callable[[int], str],
                 error: type[EvalframeError] = InvalidParameterError, parameter: str | None = None) -> np.ndarray:
    """A column of scores as float64 (NaN: no value), by the module's rule; the first cell that is no number is
    refused with ``error`` naming ``where(i)`` (``i``: its position, from 0).

    Vectorised: a column of a numeric dtype, of numbers only or of texts only is converted whole; a column of mixed
    cells (numbers and texts, or other objects) is looked at cell by cell.

    Parameters
    ----------
    values : sequence, numpy array or pandas Series
        The cells, one per row.
    where : callable
        ``where(i)``: how the source names cell ``i`` (``"row 3, column 'faithfulness'"``).
    error, parameter
        The error class raised and its ``parameter``.

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    EvalframeError
        (``error``) a cell that is no number: a bool, text that is not a number, a complex number, a list, a dict,
        an integer beyond the float range; the message names the cell and says why.

    Examples
    --------
    >>> score_values([0.1, "0.2", None, " 1e-3 "], where=lambda i: f"row {i + 1}, column 'f'").tolist()
    [0.1, 0.2, nan, 0.001]
    >>> score_values([0.1, 0.2j], where=lambda i: f"row {i + 1}, column 'f'")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: row 2, column 'f' must be a number (...); got 0.2j, a complex number.
    """
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
        return np.asarray(values, dtype=np.float64)
    if dtype is not None and not isinstance(dtype, np.dtype) and pd.api.types.is_numeric_dtype(dtype) \
            and not pd.api.types.is_bool_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)  # Int64, Float64: NA is no value
    objects = _objects(values)
    missing = pd.isna(objects)
    out = np.full(len(objects), np.nan)
    kind = pd.api.types.infer_dtype(objects, skipna=True)
    if kind == "empty":
        return out
    if kind in _NUMBER_KINDS:
        texts = np.zeros(len(objects), dtype=bool)
    elif kind == "string":
        texts = ~missing
    else:  # mixed cells: the texts are read together, the other cells apart
        texts = np.fromiter((isinstance(value, str) for value in objects), dtype=bool, count=len(objects)) & ~missing
    bad_text: int | None = None
    if texts.any():
        at = np.flatnonzero(texts)
        read = _texts(objects[at], np.zeros(len(at), dtype=bool))
        if read is None:
            texts[:] = False  # each text read apart, below
        else:
            out[at] = read[0]
            bad_text = int(at[read[1]][0]) if read[1].any() else None
    rest = np.flatnonzero(~missing & ~texts)
    refused = _first_refused(objects, rest, out) if len(rest) else None
    if refused is not None and bad_text is not None and (refused[2] or bad_text < refused[0]):
        refused = None  # the text is named: it comes first, or the other is a complex number that looks real
    if refused is not None:
        i, reason, _ = refused
        raise error(_message(where(i), objects[i], reason), parameter=parameter)
    if bad_text is not None:  # why: text that is no number, or an integer's digits beyond the float range
        raise error(_message(where(bad_text), objects[bad_text], not_a_score(objects[bad_text]) or _TEXT),
                    parameter=parameter)
    return out


def _first_refused(objects: np.ndarray, positions: np.ndarray, out: np.ndarray) -> tuple[int, str, bool] | None:
    """Read the cells at ``positions`` (none missing, none a text read already) into ``out``; the first that is no
    number as ``(position, why, whether it is a complex number with no imaginary part)``, or None."""
    cells = objects[positions]
    if pd.api.types.infer_dtype(cells, skipna=True) in _NUMBER_KINDS:
        try:
            out[positions] = cells.astype(np.float64)
            return None
        except (OverflowError, ValueError, TypeError, decimal.InvalidOperation):
            pass  # an integer beyond the float range (or an odd Decimal): found and named below
    # a complex number whose imaginary part is 0 is refused too; a cell that shows why (0.2j, not (0.1+0j)) is named first
    zero = np.fromiter((isinstance(v, (complex, np.complexfloating)) and v.imag == 0 for v in cells), dtype=bool,
                       count=len(cells))
    first: tuple[int, str, bool] | None = None
    for i in np.concatenate([positions[~zero], positions[zero]]):  # each cell looked at (rare: mixed objects)
        try:
            out[i] = _one(objects[i])
        except _Refused as why:
            first = (int(i), str(why), bool(isinstance(objects[i], (complex, np.complexfloating))
                                            and objects[i].imag == 0))
            break
    return first


def _native_number(value: Any) -> bool:
    """Whether ``value`` is a number as a typed source holds one (any kind: a complex one, an integer beyond the float
    range, numpy's), or a list of one such number (a score written as a list, refused when read); no bool."""
    if isinstance(value, (list, tuple)) and len(value) == 1 or isinstance(value, np.ndarray) and value.shape == (1,):
        value = value[0]
    return isinstance(value, (numbers.Number, decimal.Decimal, np.number)) and not isinstance(value, (bool, np.bool_))


#: The kinds of :func:`column_kind` that make a column a score.
SCORE_KINDS = frozenset({"numbers", "numbers and texts", "texts of numbers"})


def text_series(texts: Any) -> pd.Series:
    """Texts as a Series of pandas' (Arrow's) text dtype, whose string functions run in C over the whole column; as
    objects when a text is no UTF-8 (a lone surrogate), which that dtype cannot hold.

    Examples
    --------
    >>> text_series(["0.8", "x"]).str.fullmatch(NUMBER_TEXT).tolist(), text_series(["a\\ud800"]).dtype
    ([True, False], dtype('O'))
    """
    try:
        return pd.Series(texts, dtype="str")
    except UnicodeEncodeError:
        return pd.Series(texts, dtype=object)


def _text_kind(texts: pd.Series) -> str:
    """The kind of a column of texts (none blank): ``"texts of numbers"`` when each is the text of a number, or at
    least half are and one of those is no integer's (``["0.8", "n/a"]``: a judge's scores, one of them refused when
    read); else ``"texts"`` (``["1001", "X-2", "1003"]``: integers among other texts are codes)."""
    stripped = texts.str.strip(SPACES)
    number = stripped.str.fullmatch(NUMBER_TEXT, case=False).to_numpy(dtype=bool)
    if number.all():
        return "texts of numbers"
    integer = stripped.str.fullmatch(INTEGER_TEXT).to_numpy(dtype=bool)
    return "texts of numbers" if 2 * int(number.sum()) >= len(texts) and (number & ~integer).any() else "texts"


def column_kind(values: Sequence[Any] | np.ndarray | pd.Series) -> str:
    """What an extra column a source classifies holds (a Ragas table's, a Haystack 2.x run's inputs, a LlamaIndex
    result's fields), by which :mod:`evalframe.sources.extras` tells a score from a meta field.

    * ``"numbers"``: numbers as a typed source holds them (JSON's, Python's, a numeric dtype; a list of one number
      too), in at least half of its cells with a value, and no text: a score (any other cell refused when read);
    * ``"numbers and texts"``: the same, some cells texts (``[0.9, "n/a", 0.7]``, ``[1001, "X-2"]``): a score, each
      text read by :func:`score_values` (``"n/a"`` refused, named);
    * ``"texts of numbers"``: texts only, each the text of a number (``["2", "5"]``: a CSV file's cells, which are
      all text), or at least half of them and one of those no integer's (``["0.8", "n/a"]``: a judge writing its
      number as text): a score, read the same way;
    * ``"texts"``: other texts (``"geography"``; ``["1001", "X-2", "1003"]`` too: integers among texts that are no
      number are codes, no score); ``"none"``: no value in any cell (None, NaN, blank); ``"other"``: anything else
      (True / False, dicts, lists, numbers among mostly other cells).

    Vectorised for a column of numbers or of texts; a column of mixed cells is looked at cell by cell.

    Examples
    --------
    >>> column_kind([0.9, "n/a", 0.7]), column_kind(["0.8", "n/a"]), column_kind(["2020", "2021"])
    ('numbers and texts', 'texts of numbers', 'texts of numbers')
    >>> column_kind(["1001", "X-2", "1003"]), column_kind([None, ""]), column_kind([True, False])
    ('texts', 'none', 'other')
    """
    objects = _objects(values)
    missing = pd.isna(objects)
    kind = pd.api.types.infer_dtype(objects, skipna=True)
    if kind == "empty":
        return "none"
    if kind in _NUMBER_KINDS or kind == "complex":
        return "numbers"
    if kind == "string":
        texts = text_series(objects[~missing])
        texts = texts[~texts.str.strip(SPACES).str.lower().isin(_NO_VALUE_TEXTS).to_numpy()]
        return _text_kind(texts) if len(texts) else "none"
    # mixed cells (rare): each looked at
    present = [value for value in objects[~missing] if not _no_value(value)]
    if not present:
        return "none"
    native = sum(map(_native_number, present))
    texts = text_series([value for value in present if isinstance(value, str)])
    if native and len(texts) == len(present) - native:  # numbers and texts only
        numbers_texts = int(texts.str.strip(SPACES).str.fullmatch(NUMBER_TEXT, case=False).sum()) if len(texts) else 0
        if 2 * (native + numbers_texts) >= len(present):
            return "numbers and texts" if len(texts) else "numbers"
    elif native and 2 * native >= len(present):  # numbers and other cells (a bool, a list): a score, those refused
        return "numbers"
    elif not native and len(texts) == len(present):
        return _text_kind(texts)
    return "other"


def looks_like_scores(values: Sequence[Any] | np.ndarray | pd.Series) -> bool:
    """Whether a column a source classifies is a score by what it holds (:func:`column_kind`); its cells are then read
    by :func:`score_values`: a cell that is no number is refused, named, rather than the whole column quietly taken
    for something else.

    Examples
    --------
    >>> looks_like_scores(["0.8", "n/a"]), looks_like_scores([None, [0.5]]), looks_like_scores(["1001", "X-2"])
    (True, True, False)
    """
    return column_kind(values) in SCORE_KINDS
