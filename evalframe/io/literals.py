"""The literal parser: list (and other literal) cells read back with ``ast.literal_eval``'s rules.

:class:`LiteralParser` reads one column of literal texts (each distinct text once, with JSON and string-list fast
paths); cells beyond :data:`LITERAL_CELL_LIMIT` are read only when they are lists of strings or JSON-like
(:func:`large_literal`, see docs/persistence.md#loading). The codec that writes such cells is ``literal``
(:mod:`evalframe.io.codecs`).
"""

from __future__ import annotations

import ast
import gc
import json
import math
import re
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import arrow_csv
from ..errors import LoadError
from ..frames.arrays import DistinctLists, object_array

__all__ = ["LITERAL_CELL_LIMIT", "LiteralParser", "UNREADABLE", "is_missing", "large_literal", "literal_eval",
           "string_list"]

_MISSING_TOKENS = {"": None, "nan": math.nan}


#: One thread at a time builds a syntax tree: CPython 3.11's AST constructor keeps its recursion depth in state
#: the threads share, and two threads parsing at once (a load on a Dask worker with several threads) can fail
#: with "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905). literal_eval holds the GIL
#: for nearly all its work, so the lock costs no parallelism.
_SYNTAX_TREE_LOCK = threading.Lock()


def literal_eval(text: str) -> Any:
    """:func:`ast.literal_eval`, one thread at a time (see ``_SYNTAX_TREE_LOCK``)."""
    with _SYNTAX_TREE_LOCK:
        return ast.literal_eval(text)


def is_missing(value: Any) -> bool:
    """Whether a cell is missing: None or a float NaN."""
    return value is None or (type(value) is float and math.isnan(value))



class LiteralParser:
    """Parse one column of literal texts, each distinct text once.

    Gold lists repeat on every row of a query and the 0/1 match lists repeat everywhere, so the
    column is factorised first and rows with equal text share one parsed value (as the frames
    Haystack 1.x and ``from_runs`` build in memory share each query's gold lists): copy a cell
    before mutating it in place. Numeric lists are decoded together in one JSON call, plain string
    lists are split, anything else goes through :func:`ast.literal_eval` (never ``eval``).
    """

    def __init__(self, path: Path, column: str) -> None:
        self.path, self.column = path, column

    def column_values(self, texts: pd.Series) -> list[Any]:
        """The parsed value of every row."""
        return self.distinct_values(texts).row_values().tolist()

    def distinct_values(self, texts: pd.Series) -> DistinctLists:
        """The parsed values of the distinct texts and a code per row (rows with one code share one value)."""
        parsed = arrow_csv.parse_list_texts(texts, self.parse_distinct)
        if parsed is not None:  # Arrow strings: factorised, and the common list shapes parsed, in Arrow
            return parsed
        if not isinstance(texts.dtype, pd.StringDtype):
            texts = texts.astype(object)
        codes, uniques = pd.factorize(texts, use_na_sentinel=False)
        codes = codes.astype(np.int64, copy=False)
        return DistinctLists(codes, object_array(self.parse_distinct(uniques.tolist(), codes)))

    def parse_distinct(self, uniques: list[Any], codes: np.ndarray) -> list[Any]:
        """The value of each distinct text; ``codes`` (per row) only locate a bad text's row for the message."""
        fast = self._whole_column(uniques)
        if fast is not None:
            return fast
        parsed: list[Any] = [None] * len(uniques)
        numeric = []
        for code, text in enumerate(uniques):
            if not isinstance(text, str):  # a missing cell (NaN in files read with Haystack's rules)
                parsed[code] = None if is_missing(text) else text
            elif text in _MISSING_TOKENS:
                parsed[code] = _MISSING_TOKENS[text]
            elif _PLAIN_STRING_LIST.fullmatch(text):
                parsed[code] = text[2:-2].split("', '")
            elif _NUMERIC_LIST.fullmatch(text):
                numeric.append(code)
            else:
                parsed[code] = self._literal(text, code, codes)
        if numeric:
            try:  # one C-level JSON call for every numeric list of the column
                values = _JSON.decode("[" + ",".join(uniques[c] for c in numeric) + "]")
            except ValueError:  # e.g. "[1.]" or "[.5]": valid Python, not JSON
                values = [self._literal(uniques[c], c, codes) for c in numeric]
            for code, value in zip(numeric, values):
                parsed[code] = value
        return parsed

    @staticmethod
    def _whole_column(uniques: list[Any]) -> list[Any] | None:
        """Every distinct text is a flat list of numbers (match columns), or of plain strings (id and answer
        lists): one regex match and one JSON call for the whole column; None when that does not hold.

        The texts are joined by line breaks, which no such text holds, so the regex checks each text
        whole and the JSON array has exactly one item per text.
        """
        if not uniques or set(map(type, uniques)) != {str}:
            return None
        joined = "\n".join(uniques)
        if _NUMERIC_LISTS.fullmatch(joined):
            text = joined
        elif _STRING_LISTS.fullmatch(joined) and '"' not in joined:
            text = joined.replace("'", '"')  # plain items hold no quote or backslash: JSON strings as they are
        else:
            return None
        try:
            values = _JSON.decode("[" + text.replace("\n", ",") + "]")
        except ValueError:  # e.g. "[1.]" or "[.5]": valid Python, not JSON
            return None
        return values if len(values) == len(uniques) else None

    def _literal(self, text: str, code: int, codes: np.ndarray) -> Any:
        if len(text) > LITERAL_CELL_LIMIT:  # outside the try: its LoadError is a ValueError, not to be wrapped again
            return self._large_literal(text, code, codes)
        try:
            self._parsed = getattr(self, "_parsed", 0) + 1
            if self._parsed % _COLLECT_EVERY == 0:
                # each literal_eval leaves ~1 KB of cyclic garbage (its syntax tree), which the paused collector
                # (see evalframe.io.results) would keep until the load ends; the youngest generation holds only recent objects
                gc.collect(0)
            return literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            shown = text if len(text) <= 80 else text[:77] + "..."
            raise LoadError(
                f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: cannot parse {shown!r} as a "
                f"Python literal ({type(exc).__name__}: {_ADDRESS.sub('', str(exc))}). Fix or empty that cell."
            ) from None

    @staticmethod
    def _row(code: int, codes: np.ndarray) -> int:
        """The 1-based data row of the first cell holding the distinct text ``code``."""
        return int(np.argmax(codes == code)) + 1

    def _large_literal(self, text: str, code: int, codes: np.ndarray) -> Any:
        """A cell beyond :data:`LITERAL_CELL_LIMIT`, parsed by :func:`large_literal`, or refused."""
        value = large_literal(text)
        if value is not UNREADABLE:
            return value
        raise LoadError(
            f"{self.path}: data row {self._row(code, codes)}, column {self.column!r}: the cell holds {len(text)} "
            f"characters; cells other than lists of strings or JSON-like numbers and lists may hold at most "
            f"{LITERAL_CELL_LIMIT} characters (1 MiB), because Python's literal parser needs hundreds of times "
            "their size in memory. Shorten or empty that cell."
        )


#: What :func:`large_literal` gives for a text load refuses.
UNREADABLE = object()


def large_literal(text: str) -> Any:
    """The value of a literal cell longer than :data:`LITERAL_CELL_LIMIT`, or :data:`UNREADABLE` when load refuses it.

    ``ast.literal_eval`` builds a syntax tree of several hundred bytes per element (a 10 MB list
    cell took 5 GB), so long cells are only read in two shapes whose parsing stays bounded: a list
    of string literals (gold_contexts of long documents), each string parsed on its own, and JSON
    texts that mean the same in Python (numbers, lists, double-quoted strings; no true/false/null).
    A save refuses the other long cells with the same function (:func:`check_literal_sizes`).
    """
    strings = string_list(text)
    if strings is not None:
        return strings
    if not _JSON_ONLY_NAMES.search(text) and not _JSON_OTHER_ESCAPES.search(text):
        try:
            return _JSON.decode(text)
        except (ValueError, RecursionError):
            pass
    return UNREADABLE


#: How many ast.literal_eval calls leave their garbage before it is collected.
_COLLECT_EVERY = 2000
#: Cells longer than this (1 MiB of text) are not given to ast.literal_eval (see ``LiteralParser._large_literal``).
LITERAL_CELL_LIMIT = 1 << 20
#: JSON's names, which Python spells True / False / None: a text holding them is not the same value in both.
_JSON_ONLY_NAMES = re.compile(r"\b(?:true|false|null)\b")
#: Escapes JSON reads otherwise than Python (after an even run of backslashes, so the backslash is not itself
#: escaped): "\/" (JSON "/", Python a backslash and "/") and a surrogate "\ud800"-"\udfff" (JSON joins a pair into
#: one character, Python keeps two), as repr writes a text with lone surrogates.
_JSON_OTHER_ESCAPES = re.compile(r"(?<!\\)(?:\\\\)*\\(?:/|u[dD][89a-fA-F])")


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
#: Texts made only of numbers, brackets and commas mean the same as JSON and as Python literals
#: (no strings, names or escapes), and JSON parses them many times faster than literal_eval.
_NUMERIC_LIST = re.compile(r"\[[0-9eE+\-., ]*\]")  # flat: nested lists go to ast.literal_eval
#: Whole columns of such texts, one per line (see ``LiteralParser._whole_column``).
_NUMERIC_LISTS = re.compile(r"\[[0-9eE+\-., ]*\](?:\n\[[0-9eE+\-., ]*\])*")
_STRING_LISTS = re.compile(r"\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\](?:\n\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\])*")
#: A list of plain strings as repr writes them: single-quoted, no quote, backslash or line break inside
#: (so no escapes, and "', '" cannot occur inside an item): the items are the text between the separators.
_PLAIN_STRING_LIST = re.compile(r"\['[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*\]")


def string_list(text: str) -> list[Any] | None:
    """The value of a list of string (or bytes) literals as repr writes it, or None for any other text.

    A scan with ``str.find`` from quote to quote (no regular expression, whose backtracking state grew
    with every escape of a long document): an item without a backslash is the text between its quotes,
    any other item is parsed on its own by ``ast.literal_eval`` (one string: memory bounded by its size).
    """
    end = len(text) - 1
    if end < 1 or text[0] != "[" or text[end] != "]":
        return None
    values: list[Any] = []
    start = 1
    while start < end:
        opening = start + 1 if text[start] == "b" else start
        quote = text[opening] if opening < end else ""
        if quote not in ("'", '"'):
            return None
        search = opening + 1
        while True:
            closing = text.find(quote, search, end)
            if closing < 0:
                return None
            backslashes = closing
            while text[backslashes - 1] == "\\":
                backslashes -= 1
            if (closing - backslashes) % 2 == 0:  # not itself escaped
                break
            search = closing + 1
        body = text[opening + 1:closing]
        values.append(body if opening == start and "\\" not in body else _unescape(text[start:closing + 1], body))
        start = closing + 1
        if start == end:
            return values
        if text[start:start + 2] != ", ":
            return None
        start += 2
    return values if start == 1 else None  # "[]" is the empty list; a trailing ", " is not a list


def _unescape(literal: str, body: str) -> Any:
    """The value of one string literal with escapes (``body`` is the text between its quotes).

    Python's own escape decoder ("unicode_escape", the escapes of string literals) on the body: no
    syntax tree per item, whose garbage (collected only after the load, see :mod:`evalframe.io.results`) took
    a kilobyte per item. Bytes literals, and backslashes before non-ASCII characters (which repr never
    writes), go to ``ast.literal_eval``.
    """
    if literal[0] == "b" or _ESCAPED_NON_ASCII.search(body):
        return literal_eval(literal)
    # an unknown escape ("\\d") stays as typed, as in a literal: its backslash is doubled first, instead of silencing the
    # decoder's DeprecationWarning with warnings.catch_warnings, which is not thread-safe (Dask reads partitions on
    # threads, and it swapped the warning state of the whole process under them)
    body = _UNKNOWN_ESCAPE.sub(_keep_unknown_escape, body)
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:  # e.g. a cut hex escape: the literal parser words the error
        return literal_eval(literal)


_ESCAPED_NON_ASCII = re.compile(r"\\[^\x00-\x7f]")
#: A backslash and the octal digits or the character after it (left to right, so an escaped backslash is one pair).
_UNKNOWN_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.S)
#: The characters after a backslash that make an escape of a string literal (and a line break: a continued line).
_ESCAPES = frozenset("\\'\"abfnrtv01234567xNuU\n")


def _keep_unknown_escape(match: re.Match[str]) -> str:
    """An escape the decoder reads without a DeprecationWarning: an unknown one with its backslash doubled (kept as
    typed), an octal one over 0o377 as its character (a literal reads it so)."""
    escaped = match.group(1)
    if escaped[0] in "01234567":
        return match.group(0) if int(escaped, 8) <= 0o377 else chr(int(escaped, 8))
    return match.group(0) if escaped in _ESCAPES else "\\" + match.group(0)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a Python literal")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)
