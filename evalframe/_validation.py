"""Argument checks for the public entry points, each written once.

Messages follow one template: what must hold, what was received, the valid values and,
where one is close, a suggestion.
"""

from __future__ import annotations

import difflib
import itertools
import math
import numbers
import os
import reprlib
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._locations import Remote, open_bytes, parameter_of, url_problem
from .errors import EvalframeError, InvalidParameterError, SchemaError, UnknownArgumentError, UnknownNodeError

if TYPE_CHECKING:  # an annotation only: the checks run without pandas (the command line's parsers use them, issue 26)
    import pandas as pd


def close_matches(value: object, choices: Iterable[str]) -> list[str]:
    """The choices closest to ``value`` (at most two; none when nothing is close)."""
    if not isinstance(value, str):
        return []
    choices = list(choices)
    close = [c for c in choices if c.lower() == value.lower()][:1]
    close = close or difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    if not close and value:
        close = [c for c in choices if c.startswith(value) or value in c][:2]
    return close


def did_you_mean(value: object, choices: Iterable[str], *, prefix: str = "") -> str:
    """Return `` Did you mean 'x'?`` for the closest choice, or an empty string (``prefix`` goes before the choice)."""
    close = close_matches(value, choices)
    return f" Did you mean {' or '.join(repr(prefix + c) for c in close)}?" if close else ""


def check_choice(value: object, choices: Sequence[str], *, name: str) -> str:
    """Return ``value`` if it is one of ``choices``; raise InvalidParameterError naming ``name`` otherwise."""
    if isinstance(value, str) and value in choices:
        return value
    raise InvalidParameterError(
        f"{name} must be one of {list(choices)}; got {value!r}.{did_you_mean(value, choices)}",
        parameter=parameter_of(name),
    )


def check_top_k(value: object, *, name: str) -> int:
    """A simulated top-k: -1 (no simulation) or a positive int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name} must be an int: -1 (use every rank) or a positive number of ranks; "
            f"got {value!r} of type {type(value).__name__}.", parameter=parameter_of(name),
        )
    value = int(value)
    if value == 0 or value < -1:
        raise InvalidParameterError(
            f"{name} must be -1 (use every rank) or a positive int such as 1, 3 or 10; got {value}.",
            parameter=parameter_of(name),
        )
    return value


def check_positive_int(value: object, *, name: str, minimum: int = 0) -> int:
    """An int >= ``minimum`` (bools refused: True is not a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise InvalidParameterError(f"{name} must be an int >= {minimum}; got {value!r}.", parameter=parameter_of(name))
    return int(value)


def refuse_url(value: object, *, name: str) -> None:
    """Raise InvalidParameterError naming ``name`` when ``value`` is a URL (:func:`url_problem`)."""
    problem = url_problem(value)
    if problem is not None:
        raise InvalidParameterError(f"{name} {problem}.", parameter=parameter_of(name))


#: The first two bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"


def gzip_problem(path: Path | Remote) -> str | None:
    """What to say of a gzip-compressed file given to a reader of plain text (None when ``path`` is none): only TREC
    runs and qrels are read compressed.

    Examples
    --------
    >>> import gzip, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rag.jsonl.gz"
    >>> _ = path.write_bytes(gzip.compress(b"{}"))
    >>> gzip_problem(path).endswith("decompress it first: gunzip -k " + str(path) + " writes rag.jsonl.")
    True
    """
    try:
        with open_bytes(path) as handle:
            if handle.read(2) != GZIP_MAGIC:
                return None
    except (OSError, EvalframeError):
        return None
    plain = path.name[:-3] if path.name.lower().endswith(".gz") else "the plain file"
    return (f"{path} is gzip-compressed; only TREC runs and qrels are read compressed, this file is read as plain "
            f"text: decompress it first: gunzip -k {path} writes {plain}.")


def check_path(value: object, *, name: str) -> Path:
    """A file or folder path: a str or os.PathLike (not bytes, not empty, no NUL character, not a URL)."""
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes) and str(value) != "":
        refuse_url(value, name=name)
        if "\x00" in str(value):  # the os module raises a bare ValueError ("embedded null byte") at the first use
            raise InvalidParameterError(f"{name} must be a path without a NUL character (no file system allows one); "
                                        f"got {str(value)!r}. Remove the '\\x00'.", parameter=parameter_of(name))
        return Path(value)
    raise InvalidParameterError(f"{name} must be a path (a str or pathlib.Path) of a results folder; got {value!r}.",
                                parameter=parameter_of(name))


def check_number(value: object, *, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(float(value)):
        raise InvalidParameterError(f"{name} must be a number; got {value!r} of type {type(value).__name__}.",
                                    parameter=parameter_of(name))
    return float(value)


def check_keywords(params: Iterable[str], allowed: Sequence[str], *, passed_to: str) -> None:
    """Raise InvalidParameterError naming keyword arguments outside ``allowed`` (``passed_to`` says where they go)."""
    unknown = [name for name in params if name not in allowed]
    if unknown:
        raise UnknownArgumentError(
            f"unknown argument(s) {unknown}; {passed_to}: {list(allowed)}.{did_you_mean(unknown[0], allowed)}"
        )


def check_node(node: object, nodes: Sequence[str], *, name: str = "node") -> str:
    """Return ``node`` if the result holds it; raise UnknownNodeError listing the nodes otherwise."""
    if isinstance(node, str) and node in nodes:
        return node
    held = few_names(nodes, limit=10) if nodes else "no nodes"
    raise UnknownNodeError(
        f"{name} {node!r} is not in this EvaluationResult; it holds {held}.{did_you_mean(node, nodes)}",
        parameter=parameter_of(name),
    )


def require_columns(df: pd.DataFrame, columns: Iterable[str], *, where: str, why: str) -> None:
    """Raise SchemaError naming the missing columns of ``df`` (``where`` names the frame)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise SchemaError(
            f"{where} lacks column(s) {few_names(missing)}, needed {why}. "
            f"It has {len(df.columns):,}: {few_names(df.columns, limit=10)}."
        )


def check_real_bool(value: object, *, name: str) -> bool:
    """A real ``bool``: strings such as "no" are truthy and must not pass for True."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be True or False; got {value!r} of type {type(value).__name__}.",
                                    parameter=parameter_of(name))
    return bool(value)


def check_finite_in_range(value: object, *, name: str, low: float, high: float) -> float:
    """A finite real number in ``[low, high]`` (bools and NaN refused)."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real) and math.isfinite(float(value))
    if not ok or not low <= float(value) <= high:  # type: ignore[arg-type]
        raise InvalidParameterError(
            f"{name} must be a finite number in [{low:g}, {high:g}]; got {value!r} of type {type(value).__name__}.",
            parameter=parameter_of(name),
        )
    return float(value)  # type: ignore[arg-type]


def check_optional_name(value: object, *, name: str) -> str | None:
    """None or a non-empty str."""
    if value is None or (isinstance(value, str) and value):
        return value
    raise InvalidParameterError(f"{name} must be None or a non-empty str; got {value!r} of type {type(value).__name__}.",
                                parameter=parameter_of(name))


def check_build_options(*, sas_model: object) -> None:
    """``from_runs``' sas_model, checked before any label is read (matching options and progress check themselves)."""
    if not (sas_model is None or callable(sas_model) or (isinstance(sas_model, str) and sas_model)):
        raise InvalidParameterError(
            "sas_model must be None, a callable (predictions, golds) -> scores or a non-empty sentence-transformers "
            f"model name; got {sas_model!r} of type {type(sas_model).__name__}.", parameter="sas_model",
        )


def short_repr(value: Any, limit: int = 80) -> str:
    """repr of a (possibly huge or odd) value, cut for an error message."""
    text = reprlib.repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


#: How many names a message lists (:func:`few_names`) and how long each may be shown.
SHOWN_NAMES = 5
_SHOWN_NAME_LENGTH = 60


def few_names(names: Collection[Any], limit: int = SHOWN_NAMES) -> str:
    """The first ``limit`` of ``names`` for an error message, and how many more there are.

    A message built from a column list of a 10^5-column file must not hold 10^5 names: it would take
    megabytes and bury the point. Each name is its ``repr``, cut to 60 characters.

    Parameters
    ----------
    names
        The names (any sized collection: a list, a set, a pandas Index).
    limit
        How many to show.

    Returns
    -------
    str
        ``['a', 'b']`` when all fit, else ``['c0', 'c1', 'c2', 'c3', 'c4'] and 99,995 more``.

    Examples
    --------
    >>> few_names(["query", "answer"])
    "['query', 'answer']"
    >>> few_names([f"c{i}" for i in range(100_000)])
    "['c0', 'c1', 'c2', 'c3', 'c4'] and 99,995 more"
    >>> few_names(["x" * 100]) == "['" + "x" * 56 + "...]"
    True
    """
    shown = []
    for name in itertools.islice(names, limit):
        text = repr(name)
        shown.append(text if len(text) <= _SHOWN_NAME_LENGTH else text[:_SHOWN_NAME_LENGTH - 3] + "...")
    rest = len(names) - len(shown)
    return f"[{', '.join(shown)}]" + (f" and {rest:,} more" if rest > 0 else "")
