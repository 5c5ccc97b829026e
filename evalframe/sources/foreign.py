"""What the framework sources (Haystack 2.x, LlamaIndex) share: reading their JSON files, and choosing, naming and
declaring the per-query scores they carry (``individual_scores``, ``metric_dict``).

A framework names its scores as it likes (``mrr``, ``exact_match``, ``doc_recall``); evalframe's registry already owns
some of these names (its own ``mrr``, ``exact_match``), so a score whose name is taken keeps it behind the
framework's prefix (``llamaindex_mrr``, ``haystack_exact_match``): evalframe's ``mrr`` and llama-index's then stand
side by side. Whether a name is taken is asked of the registry (:func:`score_name_taken`), as for Ragas' columns
(``ragas_<name>``). A name written with its metric's parameters (Ragas' ``factual_correctness(mode=f1)``), which a
score's name cannot hold (measure names read ``(``, ``=``, ``)`` as parameters: ``P(rel=2)@5``), is kept mended
(:func:`mended_name`: ``factual_correctness_mode_f1``), and the import's warning says so (:func:`warn_mended`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._locations import Remote, is_dir, is_file, read_text, suffix_of
from .._validation import check_path, gzip_problem, short_repr
from ..errors import EvalframeError, InvalidParameterError, LoadError, warn
from ..metrics.registry import score_measure
from .runs import json_value
from ..frames.score_values import score_value

__all__ = ["ScoreChoice", "number_or_nan", "read_json_file", "is_path", "naming_file", "score_name_taken",
           "prefixed", "mended_name", "score_name", "warn_mended", "source_name", "check_apart"]

#: The characters that mark a name written with its metric's parameters (Ragas: ``factual_correctness(mode=f1)``).
PARAMETER_MARKS = frozenset("()=")
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_\-]+")
_A_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


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


def mended_name(name: str) -> str:
    """A framework's score name written with its metric's parameters (holding ``(``, ``)`` or ``=``: Ragas'
    ``factual_correctness(mode=f1)``) as a score's name can be: every run of characters a score's name cannot hold
    (anything but letters, digits, ``_`` and ``-``) becomes ``_``, stripped at the ends. Any other name, and one
    whose mended form still cannot name a score (it starts with no letter), is returned as it is (the rule of score
    names then refuses it, naming it as the source does: ``"my score"``, ``"mrr@5"``).

    Examples
    --------
    >>> mended_name("factual_correctness(mode=f1)"), mended_name("rouge_score(mode=fmeasure)")
    ('factual_correctness_mode_f1', 'rouge_score_mode_fmeasure')
    >>> mended_name("faithfulness"), mended_name("my score"), mended_name("mrr@5"), mended_name("(mode=f1)")
    ('faithfulness', 'my score', 'mrr@5', 'mode_f1')
    >>> mended_name("1(x)")
    '1(x)'
    """
    if not isinstance(name, str) or not PARAMETER_MARKS.intersection(name) or _A_NAME.fullmatch(name):
        return name
    mended = _NOT_IN_A_NAME.sub("_", name).strip("_")
    return mended if _A_NAME.fullmatch(mended) else name


def score_name(name: str, prefix: str | None) -> str:
    """A framework's score name as evalframe names the score: :func:`mended_name`, then :func:`prefixed` (None: no
    prefix).

    Examples
    --------
    >>> score_name("factual_correctness(mode=f1)", "ragas"), score_name("exact_match", "ragas")
    ('factual_correctness_mode_f1', 'ragas_exact_match')
    """
    mended = mended_name(name)
    return prefixed(mended, prefix) if prefix else mended


def warn_mended(source: str, names: Mapping[str, str]) -> None:
    """One warning naming each score kept under a mended name (``names``: the source's name -> the score's; those
    alike are not named), e.g. ``from_ragas: score 'factual_correctness(mode=f1)' is named
    'factual_correctness_mode_f1'``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_mended("t.csv", {"factual_correctness(mode=f1)": "factual_correctness_mode_f1", "judge": "judge"})
    >>> print(str(caught[0].message).replace(" (", "\\n("))
    t.csv: score 'factual_correctness(mode=f1)' is named 'factual_correctness_mode_f1'
    (a score's name holds letters, digits, '_' and '-' only; scores=[...] takes either name).
    """
    told = [f"score {name!r} is named {target!r}" for name, target in names.items()
            if target != name and mended_name(name) != name]
    if told:
        warn(f"{source}: {', '.join(told)} (a score's name holds letters, digits, '_' and '-' only; scores=[...] "
             "takes either name).")


def is_path(value: object) -> bool:
    """Whether ``value`` names a file (a str or os.PathLike, not bytes; or a URL's Remote)."""
    return isinstance(value, (str, os.PathLike, Remote)) and not isinstance(value, bytes)


def read_json_file(path: str | os.PathLike[str] | Remote, *, name: str, lines: bool | None = None
                   ) -> tuple[Path | Remote, Any]:
    """``(path, value)`` of a JSON file, or of a JSON Lines file as a list of ``(line number, value)`` pairs.

    ``lines`` None: JSON Lines when the suffix is ``.jsonl`` / ``.ndjson``. Errors name the file (and line).
    """
    file = path if isinstance(path, Remote) else check_path(path, name=name)
    if is_dir(file):
        raise LoadError(f"{name} {file} is a directory; give the JSON file.")
    if not is_file(file):
        raise LoadError(f"{name} {file} does not exist.")
    if lines is None:
        lines = suffix_of(file).lower() in (".jsonl", ".ndjson")
    try:
        text = read_text(file, what=name)
    except UnicodeDecodeError as exc:
        compressed = gzip_problem(file)
        raise LoadError(compressed or f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start}); write the file as "
                        "UTF-8.") from None
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
def naming_file(path: Path | Remote | None) -> Iterator[None]:
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


def source_name(name: Any, available: Sequence[str]) -> Any:
    """The source's name of a score the caller named by it or by its mended name (:func:`mended_name`:
    ``factual_correctness_mode_f1`` for Ragas' ``factual_correctness(mode=f1)``); ``name`` itself when the source
    has no such score (the caller's check then names it).

    Examples
    --------
    >>> source_name("factual_correctness_mode_f1", ["faithfulness", "factual_correctness(mode=f1)"])
    'factual_correctness(mode=f1)'
    >>> source_name("faithfulness", ["faithfulness"]), source_name("judge", ["faithfulness"])
    ('faithfulness', 'judge')
    """
    if not isinstance(name, str) or name in available:
        return name
    return next((given for given in available if mended_name(given) == name), name)


def check_apart(names: Mapping[str, str], *, parameter: str = "scores", noun: str = "scores",
                way_out: str = "a dict source name -> evalframe.score_measure(new name)") -> None:
    """Refuse two of the source's scores (``names``: the source's name -> the score's) that would be named alike
    (two columns mending to the same name: ``f(mode=x)`` and ``f_mode_x``), naming both.

    Examples
    --------
    >>> check_apart({"f(mode=x)": "f_mode_x", "f_mode_x": "f_mode_x"})
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: scores: two scores, 'f(mode=x)' and 'f_mode_x', would both be named ...
    """
    seen: dict[str, str] = {}
    for name, target in names.items():
        if target in seen:
            raise InvalidParameterError(
                f"{parameter}: two {noun}, {seen[target]!r} and {name!r}, would both be named {target!r} (a score's "
                f"name holds letters, digits, '_' and '-' only; a run of other characters becomes '_'); name them "
                f"apart ({way_out}).", parameter=parameter)
        seen[target] = name


class ScoreChoice:
    """The scores of a source that are kept, each under its evalframe name, with its declaration.

    Parameters
    ----------
    available : sequence of str
        The score names the source holds, in its order.
    scores : None, sequence of str or mapping
        The caller's choice: None keeps every score; a list keeps those named (the source's names, or their mended
        names: :func:`mended_name`); a mapping ``{source name: evalframe.score_measure(...)}`` keeps those and
        declares each (direction, bounds), under the declaration's name.
    prefix : str
        Put before a name evalframe's registry owns (a measure, an alias, a frame column: ``llamaindex`` ->
        ``llamaindex_mrr``).
    known : mapping, optional
        Declarations of scores whose meaning the source knows (``{source name: {"bounds": (0, 1), "description":
        ...}}``), used unless the caller declares the score.

    Examples
    --------
    >>> choice = ScoreChoice(["faithfulness", "factual_correctness(mode=f1)"], ["factual_correctness_mode_f1"],
    ...                      prefix="haystack")
    >>> choice.names
    {'factual_correctness(mode=f1)': 'factual_correctness_mode_f1'}
    >>> choice.mended == choice.names
    True
    """

    def __init__(self, available: Sequence[str], scores: Sequence[str] | Mapping[str, Any] | None, *, prefix: str,
                 known: Mapping[str, Mapping[str, Any]] | None = None, parameter: str = "scores") -> None:
        if scores is None:
            chosen: list[str] = list(available)
            declared: Mapping[str, Any] = {}
        elif isinstance(scores, Mapping):
            declared = {source_name(name, available): metric for name, metric in scores.items()}
            chosen = list(declared)
        elif isinstance(scores, Sequence) and not isinstance(scores, (str, bytes)):
            chosen, declared = [source_name(name, available) for name in scores], {}
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
        #: source name -> evalframe name, of the scores kept under a mended name (:func:`warn_mended` says so)
        self.mended: dict[str, str] = {}
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
            target = score_name(name, prefix)
            self.names[name] = target
            if mended_name(name) != name:
                self.mended[name] = target
            if known is not None and name in known:
                self.measures[target] = score_measure(target, **known[name])
        check_apart(self.names, parameter=parameter)

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

