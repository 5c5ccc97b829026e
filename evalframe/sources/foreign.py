"""What the framework sources (Haystack 2.x, LlamaIndex) share: reading their JSON files, and choosing, naming and
declaring the per-query scores they carry (``individual_scores``, ``metric_dict``).

A framework names its scores as it likes (``mrr``, ``exact_match``, ``doc_recall``); evalframe's registry already owns
some of these names (its own ``mrr``, ``exact_match``), so a score whose name is taken keeps it behind the
framework's prefix (``llamaindex_mrr``, ``haystack_exact_match``): evalframe's ``mrr`` and llama-index's then stand
side by side. Whether a name is taken is asked of the registry (:func:`score_name_taken`), as for Ragas' columns
(``ragas_<name>``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._validation import check_path, short_repr
from ..errors import EvalframeError, InvalidParameterError, LoadError
from ..metrics.registry import score_measure
from .runs import json_value
from ..frames.score_values import score_value

__all__ = ["ScoreChoice", "number_or_nan", "read_json_file", "is_path", "naming_file", "score_name_taken",
           "prefixed"]


def score_name_taken(name: str) -> bool:
    """Whether :func:`evalframe.score_measure` refuses ``name`` (a measure or alias of the registry, a frame column):
    a framework's score so named is kept under its prefix (``llamaindex_mrr``).

    Examples
    --------
    >>> score_name_taken("mrr"), score_name_taken("faithfulness")
    (True, False)
    """
    try:
        score_measure(name)
    except InvalidParameterError:
        return True
    return False


def prefixed(name: str, prefix: str) -> str:
    """A framework's score name as a score: ``<prefix>_<name>`` when evalframe's registry or frames own the name (a
    name no prefix mends, with a character measure names read, stays: the build names it).

    Examples
    --------
    >>> prefixed("exact_match", "ragas"), prefixed("faithfulness", "ragas"), prefixed("a b", "ragas")
    ('ragas_exact_match', 'faithfulness', 'a b')
    """
    if score_name_taken(name) and not score_name_taken(f"{prefix}_{name}"):
        return f"{prefix}_{name}"
    return name


def is_path(value: object) -> bool:
    """Whether ``value`` names a file (a str or os.PathLike; not bytes)."""
    return isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes)


def read_json_file(path: str | os.PathLike[str], *, name: str, lines: bool | None = None) -> tuple[Path, Any]:
    """``(path, value)`` of a JSON file, or of a JSON Lines file as a list of ``(line number, value)`` pairs.

    ``lines`` None: JSON Lines when the suffix is ``.jsonl`` / ``.ndjson``. Errors name the file (and line).
    """
    file = check_path(path, name=name)
    if file.is_dir():
        raise LoadError(f"{name} {file} is a directory; give the JSON file.")
    if not file.is_file():
        raise LoadError(f"{name} {file} does not exist.")
    if lines is None:
        lines = file.suffix.lower() in (".jsonl", ".ndjson")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start}); write the file as UTF-8.") from None
    if not lines:
        try:
            return file, json_value(text, str(file))
        except json.JSONDecodeError as exc:
            raise LoadError(f"{file}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno}).") from None
    values = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append((number, json_value(line, str(file), number)))
        except json.JSONDecodeError as exc:
            raise LoadError(f"{file}:{number}: not valid JSON: {exc.msg} (column {exc.colno}); a JSON Lines file "
                            "holds one JSON object per line.") from None
    return file, values


@contextlib.contextmanager
def naming_file(path: Path | None) -> Iterator[None]:
    """An EvalframeError raised inside names the file ``path`` first (when it does not already; None: nothing read
    from a file)."""
    try:
        yield
    except EvalframeError as exc:
        if path is not None and str(path) not in str(exc):
            exc.args = (f"{path}: {exc}",) + exc.args[1:]
        raise


def number_or_nan(value: Any, where: str) -> float:
    """A per-query score as a float (NaN: none), by the rule of every score's value
    (:mod:`evalframe.frames.score_values`); else an error naming ``where``."""
    return score_value(value, where=where, error=EvalframeError)


class ScoreChoice:
    """The scores of a source that are kept, each under its evalframe name, with its declaration.

    Parameters
    ----------
    available : sequence of str
        The score names the source holds, in its order.
    scores : None, sequence of str or mapping
        The caller's choice: None keeps every score; a list keeps those named (the source's names); a mapping
        ``{source name: evalframe.score_measure(...)}`` keeps those and declares each (direction, bounds), under the
        declaration's name.
    prefix : str
        Put before a name evalframe's registry owns (a measure, an alias, a frame column: ``llamaindex`` ->
        ``llamaindex_mrr``).
    known : mapping, optional
        Declarations of scores whose meaning the source knows (``{source name: {"bounds": (0, 1), "description":
        ...}}``), used unless the caller declares the score.
    """

    def __init__(self, available: Sequence[str], scores: Sequence[str] | Mapping[str, Any] | None, *, prefix: str,
                 known: Mapping[str, Mapping[str, Any]] | None = None, parameter: str = "scores") -> None:
        if scores is None:
            chosen: list[str] = list(available)
            declared: Mapping[str, Any] = {}
        elif isinstance(scores, Mapping):
            chosen, declared = list(scores), scores
        elif isinstance(scores, Sequence) and not isinstance(scores, (str, bytes)):
            chosen, declared = list(scores), {}
        else:
            raise InvalidParameterError(f"{parameter} must be None, a list of score names or a dict name -> "
                                        f"evalframe.score_measure(...); got {short_repr(scores, 60)}.",
                                        parameter=parameter)
        for name in chosen:
            if name not in available:
                raise InvalidParameterError(
                    f"{parameter}: the source has no score {name!r}; its scores are {list(available)}.",
                    parameter=parameter)
        #: source name -> evalframe name
        self.names: dict[str, str] = {}
        #: evalframe name -> declaration (what ``measure`` returned)
        self.measures: dict[str, Any] = {}
        for name in chosen:
            if name in declared:
                metric = declared[name]
                target = getattr(metric, "name", None)
                if not isinstance(target, str):
                    raise InvalidParameterError(f"{parameter}[{name!r}] must be an evalframe.score_measure(...); got "
                                                f"{short_repr(metric, 60)}.", parameter=parameter)
                self.names[name] = target
                self.measures[target] = metric
                continue
            target = prefixed(name, prefix)
            self.names[name] = target
            if known is not None and name in known:
                self.measures[target] = score_measure(target, **known[name])
        targets = list(self.names.values())
        twice = sorted({t for t in targets if targets.count(t) > 1})
        if twice:
            raise InvalidParameterError(f"{parameter}: two scores would both be named {twice[0]!r}; name them apart "
                                        "(a dict source name -> evalframe.score_measure(new name)).",
                                        parameter=parameter)

    def check_bounds(self, name: str, value: float, where: str) -> None:
        """Refuse a value of the source's score ``name`` outside the bounds declared for it, naming ``where``."""
        target = self.names.get(name)
        bounds = getattr(self.measures.get(target), "bounds", None) if target is not None else None
        if bounds is not None and not math.isnan(value) and not bounds[0] <= value <= bounds[1]:
            raise EvalframeError(f"{where}: {value!r} lies outside the bounds [{bounds[0]:g}, {bounds[1]:g}] declared "
                                 f"for score {target!r}; fix the value or declare other bounds (bounds=None: "
                                 "unbounded).")

    def of(self, values: Mapping[str, float]) -> dict[str, float] | None:
        """One record's kept scores under their evalframe names (None: it has none)."""
        kept = {self.names[name]: value for name, value in values.items() if name in self.names}
        return kept or None

