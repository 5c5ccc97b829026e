"""trec_eval's measures: their names (ir_measures' syntax, and trec_eval's), and their values over flat arrays.

A measure is written as ir_measures writes it: ``AP``, ``AP@k``, ``nDCG``, ``nDCG@k``, ``P@k``, ``R@k``,
``RR``, ``RR@k``, ``Success@k``, ``Rprec``, ``Bpref``, each binary measure with an optional relevance level
``(rel=N)`` (``P(rel=2)@5``: grade >= 2 is relevant). trec_eval's and pytrec_eval's names are read too, meaning what
trec_eval means: ``map`` (``AP``), ``map_cut.k``, ``ndcg`` (``nDCG``), ``ndcg_cut.k`` (``nDCG@k``), ``P.k``,
``recall.k``, ``recip_rank`` (``RR``), ``success.k``, ``Rprec``, ``bpref``, with ``_k`` for ``.k`` as pytrec_eval
writes its keys (``P_5``). :func:`parse_measure` reads one name into a :class:`Measure`, whose ``str`` is the
canonical name (ir_measures'; ``rel=1``, the default, is dropped).

The measures, their names and their kernels are entries of :data:`evalframe.metrics.registry.TREC_MEASURES`;
:func:`evaluate` runs each entry's kernel (:mod:`evalframe.metrics.trec_kernels`, whose docstring lays out the
arrays), once for all the measures that share it, and its finish.

Examples
--------
>>> import numpy as np
>>> from evalframe.metrics.trec_kernels import UNJUDGED
>>> measures = parse_measures(["P@2", "AP", "nDCG@2"])
>>> [str(m) for m in measures]
['P@2', 'AP', 'nDCG@2']
>>> values = evaluate(measures, row_query=np.array([0, 0, 0]), position=np.array([0, 1, 2]),
...                   grade=np.array([0, 2, UNJUDGED]), judged_query=np.array([0, 0, 0]),
...                   judged_grade=np.array([2, 1, 0]), n_queries=1)
>>> values["P@2"].tolist(), values["AP"].tolist()  # P@2 = 1/2; AP = (1/2) / num_rel 2
([0.5], [0.25])
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import did_you_mean
from ..errors import InvalidParameterError
from .registry import (AGGREGATIONS, EVALUATOR_METRICS, METRICS, TABLE_COUNTS, TREC_MEASURES, Aggregation, Metric, Name,
                       Param, TrecEvalName)
from .trec_kernels import RankedRows

__all__ = [
    "aggregation_of",
    "is_count",
    "reads_as_written",
    "direction_of",
    "known_direction",
    "without_direction",
    "swept_measures",
    "Measure",
    "MEASURE_NAMES",
    "MEASURE_DESCRIPTIONS",
    "describe_measure",
    "example_measure",
    "foreign_measure",
    "measure_texts",
    "CASE_SENSITIVE",
    "entry_of",
    "trec_eval_key",
    "parse_measure",
    "parse_measures",
    "evaluate",
]

#: Every measure name (ir_measures'), in the registry's order.
MEASURE_NAMES: tuple[str, ...] = tuple(TREC_MEASURES)
#: What each measure is, in one line (trec_eval's definitions; the registry's descriptions): the report and the docs
#: read these. "k" is the cutoff (the whole ranking without one), "relevant" a grade at or above the relevance level.
MEASURE_DESCRIPTIONS: dict[str, str] = {name: entry.description for name, entry in TREC_MEASURES.items()}

#: ir_measures' and ranx's other names of the measures (``MAP``, ``SetRelP``, ``hit_rate``): the entries they name
#: (ranx's ``precision`` names two: ``P`` with a cutoff, ``SetP`` without), each with its :class:`Name`.
_SYNONYMS: dict[str, list[tuple[str, Name]]] = {}
for _entry in TREC_MEASURES.values():
    for _synonym in _entry.synonyms:
        _SYNONYMS.setdefault(_synonym.text, []).append((_entry.name, _synonym))
#: trec_eval's stems (``map_cut``), each with the entries and names it is a stem of (``ndcg``: the plain name and
#: the one taking gains).
_STEMS: dict[str, list[tuple[Metric, TrecEvalName]]] = {}
for _entry in TREC_MEASURES.values():
    for _name in _entry.trec_eval:
        _STEMS.setdefault(_name.stem, []).append((_entry, _name))

#: Every name a measure is written by before its parameters (measures', synonyms', trec_eval's stems).
_SPELLINGS: tuple[str, ...] = tuple(dict.fromkeys([*TREC_MEASURES, *_SYNONYMS, *_STEMS]))


def _case_groups() -> dict[str, dict[str, str]]:
    """The names that differ only by letter case and name different measures (written alike with a cutoff or
    without: ranx's ``precision`` and ``precision@5`` name SetP and P by design), by their lower-case form:
    ``{"rbp": {"rbp": "rbp", "RBP": "RBP"}}`` (each spelling's entry)."""
    forms: dict[str, list[tuple[str, str, set[bool]]]] = {}

    def add(text: str, entry: str, rule: str | None) -> None:
        rule = rule or TREC_MEASURES[entry].cutoff
        cut = {"required": {True}, "none": {False}}.get(rule, {True, False})
        forms.setdefault(text.lower(), []).append((text, entry, cut))

    for name in TREC_MEASURES:
        add(name, name, None)
    for text, pairs in _SYNONYMS.items():
        for entry_name, synonym in pairs:
            add(text, entry_name, synonym.cutoff)
    for stem, stem_pairs in _STEMS.items():
        for stem_entry, _ in stem_pairs:
            add(stem, stem_entry.name, "optional")
    groups: dict[str, dict[str, str]] = {}
    for key, found in forms.items():
        for (text_a, entry_a, cut_a), (text_b, entry_b, cut_b) in itertools.combinations(found, 2):
            if entry_a != entry_b and cut_a & cut_b:
                groups.setdefault(key, {}).update({text_a: entry_a, text_b: entry_b})
    return groups


_CASE_GROUPS = _case_groups()
#: The lower-case forms of the names that must be written in their own letter case (:func:`_case_groups`):
#: trec_eval 10.0's ``rbp`` and ir_measures' ``RBP``. Every other name is read in any letter case.
CASE_SENSITIVE: frozenset[str] = frozenset(_CASE_GROUPS)

#: Cutoffs and relevance levels: ASCII digits ("²" is a digit to str.isdigit, not to int), at most a billion.
_NUMBER = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_LARGEST = 10**9
_PATTERN = re.compile(r"^(?P<name>[A-Za-z0-9_\-α]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>[^@]*))?$")


@dataclass(frozen=True)
class Measure:
    """One measure: ``name`` (one of :data:`MEASURE_NAMES`), ``cutoff`` (k, a recall level for IPrec, or None),
    ``rel`` and ``params``, the other parameters as ``(key, value)`` pairs in the entry's order, defaults left out.

    ``str(measure)`` is the canonical name, as ir_measures writes it: ``P(rel=2)@5``, ``RBP(p=0.5)``, ``AP``.

    Examples
    --------
    >>> str(Measure("P", 5, rel=2)), Measure("P", 5).param("rel")
    ('P(rel=2)@5', 1)
    """

    name: str
    cutoff: int | float | None = None
    rel: int = 1
    params: tuple[tuple[str, Any], ...] = ()

    def param(self, key: str) -> Any:
        """The value of parameter ``key`` (``"rel"`` or one of the entry's): the measure's, else the default."""
        if key == "rel":
            return self.rel
        given = dict(self.params)
        if key in given:
            return given[key]
        for param in TREC_MEASURES[self.name].params:
            if param.name == key:
                return param.default
        raise InvalidParameterError(f"{self.name} has no parameter {key!r}.")

    def __str__(self) -> str:
        parts = [f"{key}={_write_value(value)}" for key, value in self.params]
        if self.rel != 1:
            parts.append(f"rel={self.rel}")
        params = f"({','.join(sorted(parts))})" if parts else ""
        return f"{self.name}{params}" + (f"@{self.cutoff}" if self.cutoff is not None else "")


def _write_value(value: Any) -> str:
    """A parameter's value as ir_measures writes it: ``'exp-log2'``, ``0.8``, ``True``, ``{1:3,2:9}``."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):  # gains: ((grade, gain), ...)
        return "{" + ",".join(f"{grade}:{gain:g}" for grade, gain in value) + "}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def entry_of(measure: str | Measure) -> Metric:
    """The registry's entry of a measure (:data:`evalframe.metrics.registry.TREC_MEASURES`).

    Examples
    --------
    >>> entry_of("P_5").name, entry_of("map").aggregation
    ('P', 'mean')
    """
    return TREC_MEASURES[parse_measure(measure).name]


def aggregation_of(column: object) -> Aggregation:
    """How a per-query column becomes one number: a Haystack metric's or a trec_eval measure's aggregation (by the
    column's name, as the tables name them), the mean for any other column.

    Examples
    --------
    >>> aggregation_of("f1").name, aggregation_of("P@5").name, aggregation_of("latency").name
    ('mean', 'mean', 'mean')
    """
    if isinstance(column, str):
        if column in METRICS:
            return AGGREGATIONS[METRICS[column].aggregation]
        with contextlib.suppress(InvalidParameterError):
            return AGGREGATIONS[entry_of(column).aggregation]
    return AGGREGATIONS["mean"]


def is_count(column: object) -> bool:
    """Whether a per-query column's values are counts (``NumRet``, ``NumRel``...): the measures the registry sums over
    queries (aggregation ``"sum"``, as trec_eval sums its counts), whose values are whole numbers; ``evalframe trec``
    prints them as integers.

    Examples
    --------
    >>> is_count("num_ret"), is_count("NumRelRet(rel=2)"), is_count("AP"), is_count("latency")
    (True, True, False, False)
    """
    return aggregation_of(column).name == "sum"


def known_direction(metric: object, scores: Mapping[str, Metric] | None = None) -> str | None:
    """:func:`direction_of`, or None for a name that is no measure of the registry and no declared score.

    Examples
    --------
    >>> known_direction("unj@5"), known_direction("bleu"), known_direction("num_examples_for_eval")
    ('lower', None, 'none')
    """
    metric = measure_texts(metric)  # an ir_measures measure: its name
    if metric in TABLE_COUNTS:  # a metric table's count (no score is named so)
        return "none"
    found = (scores or {}).get(metric) if isinstance(metric, str) else None
    if isinstance(found, Metric):
        return found.direction
    if not isinstance(metric, str):
        return None
    entry = METRICS.get(metric) or EVALUATOR_METRICS.get(metric)
    if entry is None:
        try:
            entry = entry_of(metric)
        except InvalidParameterError:
            return None
    return entry.direction


def direction_of(metric: str | Any, scores: Mapping[str, Metric] | None = None) -> str:
    """Which way ``metric`` is better: ``"higher"``, ``"lower"`` or ``"none"`` (a count: neither, so no worst query,
    no win, no loss), as its registry entry says (a Haystack metric, or a trec_eval measure in any of the names
    :func:`parse_measure` reads: ``nDCG@10``, ``ndcg_cut_10``, ``num_ret``, ranx's ``ndcg@10``, an ir_measures
    measure object; a metric table's count, ``num_examples_for_eval`` and ``queries``, is ``"none"``) or, for a
    declared score (``scores``, as ``result.scores``), its declaration.

    Raises InvalidParameterError for a name that is neither: which way it is better is not known.

    Examples
    --------
    >>> direction_of("mrr"), direction_of("nDCG@10"), direction_of("unj@5"), direction_of("num_ret")
    ('higher', 'higher', 'lower', 'none')
    >>> from evalframe.metrics.registry import score_measure
    >>> direction_of("latency", {"latency": score_measure("latency", direction="lower")})
    'lower'
    """
    metric = measure_texts(metric)
    direction = known_direction(metric, scores)
    if direction is None:
        declared = sorted(scores or {})
        raise InvalidParameterError(
            f"which way {metric!r} is better is not known: it is no metric or measure of evalframe's registry "
            "(`evalframe list-metrics` lists them) and no declared score"
            + (f" (the scores declared: {declared})" if declared else "")
            + "; declare a score with evalframe.score_measure(name, direction='higher' | 'lower' | 'none') "
            "(result.add_scores(..., direction=...))." + (did_you_mean(metric, declared) if isinstance(metric, str)
                                                             and declared else ""), parameter="metric")
    return direction


def without_direction(metric: str, scores: Mapping[str, Metric] | None, what: str) -> InvalidParameterError:
    """The error of an analysis that needs a better direction (``what``: ``"no worst queries"``) for ``metric``,
    whose direction is ``"none"``.

    Examples
    --------
    >>> print(without_direction("NumRet", None, "no worst queries"))
    NumRet is a count (neither higher nor lower is better): it has no worst queries; pick a measure with a direction ...
    """
    declared = (scores or {}).get(metric)
    kind = (f"declared with direction 'none' (score_measure({metric!r}, direction='none'))"
            if isinstance(declared, Metric) else "a count (neither higher nor lower is better)")
    if not isinstance(declared, Metric) and metric not in METRICS:
        with contextlib.suppress(InvalidParameterError):
            metric = str(parse_measure(metric))  # as the tables name it: num_ret is NumRet
    return InvalidParameterError(f"{metric} is {kind}: it has {what}; pick a measure with a direction (higher or "
                                 f"lower is better, as `evalframe list-metrics` says), e.g. 'nDCG@10' or 'unj@10'.",
                                 parameter="metric")


def trec_eval_key(measure: str | Measure) -> str | None:
    """trec_eval's (and pytrec_eval's) key of a measure, as trec_eval prints it: ``map``, ``P_5``,
    ``iprec_at_recall_0.10``; None for a measure trec_eval does not have.

    Examples
    --------
    >>> [trec_eval_key(name) for name in ("AP", "AP@5", "nDCG@10", "RR", "P(rel=2)@5")]
    ['map', 'map_cut_5', 'ndcg_cut_10', 'recip_rank', 'P_5']
    """
    parsed = parse_measure(measure)
    given = dict(parsed.params)
    for name in TREC_MEASURES[parsed.name].trec_eval:
        if (name.params == "cutoffs") != (parsed.cutoff is not None):
            continue
        if all(given.get(key, _default(parsed.name, key)) == value for key, value in name.implies):
            if not name.implies and any(key in given for key in _implied_keys(parsed.name)):
                continue  # e.g. SetP(relative=True) is set_relative_P, not set_P
            tail = _trec_eval_tail(parsed, name, given)
            if tail is None:
                continue  # e.g. ndcg without gains; its gains name follows
            return name.key(parsed.cutoff) + (f"_{tail}" if tail else "")
    return None


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _trec_eval_tail(measure: Measure, name: TrecEvalName, given: dict[str, Any]) -> str | None:
    """What trec_eval prints after the key's underscore for a name's parameters (``set_F_0.5``, ``ndcg_1=3,2=9``):
    "" at their defaults, None when the name cannot say the measure's parameters (another name of it can)."""
    if name.params == "values":
        if not any(key in given for key in name.values):
            return ""
        return ",".join(_number(measure.param(key)) for key in name.values)
    if name.params == "gains":
        if not given.keys() - {key for key, _ in name.implies} - {"judged_only"}:
            return None  # at the defaults: the plain name says it
        named = [f"{key}={_number(value)}" for key, value in given.items() if key not in ("gains", "judged_only")]
        gains = [f"{grade}={_number(gain)}" for grade, gain in given.get("gains", ())]
        return ",".join(named + gains)
    other = given.keys() - {key for key, _ in name.implies} - {"judged_only"}
    return "" if not other else None


def _implied_keys(name: str) -> set[str]:
    return {key for trec_name in TREC_MEASURES[name].trec_eval for key, _ in trec_name.implies}


def _default(name: str, key: str) -> Any:
    return Measure(name).param(key)


def example_measure(name: str, cutoff: int | float | None = None) -> str:
    """A name of the registry's measure ``name`` that reads: its required parameters at their example values (RBP's
    ``rel``, cwl_eval's ``max_rel``) and, where it needs one or ``cutoff`` is given, a cutoff (``cutoff``, else 10, or
    0.5 for a recall level).

    Examples
    --------
    >>> example_measure("P"), example_measure("RBP"), example_measure("BPM", 5), example_measure("AP")
    ('P@10', 'RBP(rel=1)', 'BPM(max_rel=3)@5', 'AP')
    """
    entry = TREC_MEASURES[name]
    required = [p for p in entry.params if p.required]  # what the name must give
    if required:
        name = f"{name}({','.join(f'{p.name}={_write_value(p.default)}' for p in required)})"
    if cutoff is not None:
        return f"{name}@{_write_value(cutoff)}"
    if entry.cutoff != "required":
        return name
    return f"{name}@{'0.5' if entry.cutoff_kind == 'float' else '10'}"


def _example(name: str) -> str:
    return example_measure(name)


def _trec_eval_examples(name: TrecEvalName) -> list[str]:
    """How a trec_eval name is written (``map``; ``P.10`` and pytrec_eval's ``P_10``; ``set_F.0.5``)."""
    if name.params == "cutoffs":
        cutoff = name.defaults[len(name.defaults) // 2] if name.defaults else 10
        return [name.stem, f"{name.stem}.{cutoff:g}", name.key(cutoff)]
    if name.params == "gains":
        return [f"{name.stem}.1=1,2=3"]
    if name.params == "values":
        return [f"{name.stem}." + ",".join("1" for _ in name.values)]
    return [name.stem]


def _names_to_suggest() -> list[str]:
    """Every name form parse_measure reads (ir_measures', trec_eval's, pytrec_eval's), with an example cutoff: the
    suggestions for an unknown one."""
    forms = [_example(name) for name in MEASURE_NAMES] + list(_SYNONYMS)
    return forms + [form for entry in TREC_MEASURES.values() for name in entry.trec_eval
                     for form in _trec_eval_examples(name)]


def _suggestion(text: str) -> str:
    """`` Did you mean 'x'?`` for an unknown measure name: a cutoff glued to its stem (``ndcg_cut10``), else the
    closest name of any spelling, in any letter case, with the rest as written."""
    head = re.match(r"[A-Za-z0-9_\-α]*", text)
    stem = head.group(0) if head else ""
    glued = re.fullmatch(r"(?P<stem>[A-Za-z_]+?)_?(?P<cutoff>[0-9]+)", text)  # ndcg_cut10: a cutoff without its dot
    if glued is not None and any(name.params == "cutoffs" for _, name in _STEMS.get(glued["stem"], [])):
        return f" Did you mean {glued['stem'] + '.' + glued['cutoff']!r}?"
    # the closest name (any spelling, any letter case) with the rest as written: nDGC@10 -> nDCG@10, recal.100 -> recall.100
    names: dict[str, list[str]] = {}
    for known in (*MEASURE_NAMES, *_SYNONYMS, *_STEMS):
        names.setdefault(known.lower(), []).append(known)
    for close in difflib.get_close_matches(stem.lower(), list(names), n=3, cutoff=0.6):
        for known in names[close]:
            if _reads(known + text[len(stem):]):
                return f" Did you mean {known + text[len(stem):]!r}?"
    return did_you_mean(text, _names_to_suggest())


def reads_as_written(text: str) -> bool:
    """Whether ``text`` names a measure in the letter case written (``MRR``, ``ndcg@10``), not only in another
    (``Mrr``): the analyses that take Haystack's metrics too refuse a Haystack metric's name in another case
    (``F1``) that is a measure's only in another case, naming both.

    Examples
    --------
    >>> reads_as_written("MRR"), reads_as_written("Mrr"), reads_as_written("F1")
    (True, False, False)
    """
    return _reads(text)


def _reads(text: str) -> bool:
    """Whether ``text`` names a measure (a suggestion must be one: ``bpref@10`` is not ``Bpref@10``, which takes no
    cutoff)."""
    try:
        _exact(text.strip(), text)  # as spelled: a suggestion is a name in its own letter case
    except InvalidParameterError:
        return False
    return _ranx_refusal(text.strip(), text) is None


#: trec_eval's names of sets of measures (``-m all_trec``): ``evalframe trec``'s -m reads them, the API does not.
_TREC_EVAL_SETS = ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")


def _unknown(text: str, suggest: bool = True) -> InvalidParameterError:
    if text.strip() in _TREC_EVAL_SETS:
        return InvalidParameterError(
            f"{text.strip()!r} is trec_eval's name of a set of measures: `evalframe trec -m {text.strip()}` reads it; "
            f"here name the measures themselves, e.g. ['map', 'P', 'ndcg_cut'] (bare stems are trec_eval's cutoffs).")
    return InvalidParameterError(
        f"unknown measure {text!r}; name a measure as ir_measures ('nDCG@10', 'P(rel=2)@5'), trec_eval ('ndcg_cut.10', "
        f"'map') or pytrec_eval ('ndcg_cut_10') write it: `evalframe list-metrics` lists every measure."
        + (_suggestion(text) if suggest else ""))


def _check_cutoff(cutoff: str, text: str, entry: Metric, example: str | None = None) -> int | float:
    example = example or (_example(entry.name) if entry.cutoff == "required" else f"{entry.name}@10")
    after = re.fullmatch(r"(?P<cutoff>[^(]*)\((?P<params>.*)\)", cutoff.strip())
    if after is not None:  # IPrec@0(judged_only=True): the parameters written after the cutoff
        name = text.strip()[:len(text.strip()) - len(cutoff.strip()) - 1]
        raise InvalidParameterError(f"the parameters of {text!r} go before its cutoff, as ir_measures writes them: "
                                    f"{name}({after['params']})@{after['cutoff']}.")
    if entry.cutoff_kind == "float":
        if not _FLOAT.fullmatch(cutoff.strip()) or not 0.0 <= float(cutoff) <= _LARGEST:
            raise InvalidParameterError(f"the cutoff of {text!r} must be a number >= 0, e.g. {example!r}.")
        return float(cutoff)
    if not _NUMBER.fullmatch(cutoff) or not 1 <= int(cutoff) <= _LARGEST:
        raise InvalidParameterError(f"the cutoff of {text!r} must be a positive int (at most {_LARGEST:,}), e.g. "
                                    f"{example!r}.")
    return int(cutoff)


def _split_params(text: str) -> list[str]:
    """``"a=1,gains={0:0,1:1}"``: the parts between the commas outside braces."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _read_value(param: Param, value: str, text: str) -> Any:
    """A parameter's value from its text, by the parameter's kind; InvalidParameterError naming the measure."""
    bad = InvalidParameterError(f"{param.name} of {text!r} must be {_KIND_TEXT[param.kind]}; got {value!r}"
                                + (f" (one of {list(param.choices)})" if param.choices else "") + ".")
    value = value.strip()
    result: Any
    if param.kind == "int":
        if not re.fullmatch(r"[-+]?[0-9]+", value):
            raise bad
        result = int(value)
    elif param.kind == "float":
        if not _FLOAT.fullmatch(value):
            raise bad
        result = float(value)
    elif param.kind == "bool":
        if value not in ("True", "False", "true", "false", "1", "0"):
            raise bad
        result = value in ("True", "true", "1")
    elif param.kind == "str":
        result = value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value
    else:  # gains: {grade:gain,...}
        inner = value[1:-1] if value.startswith("{") and value.endswith("}") else None
        if inner is None:
            raise bad
        result = _read_gains([part.replace(":", "=", 1) for part in _split_params(inner)], text, param)
    if param.choices is not None and result not in param.choices:
        raise bad
    return result


_KIND_TEXT = {"int": "an int", "float": "a number", "bool": "True or False", "str": "a word",
              "gains": "a mapping of grades to gains, e.g. {0:0,1:1,2:3}"}


def _read_gains(parts: list[str], text: str, param: Param) -> tuple[tuple[int, float], ...]:
    gains: dict[int, float] = {}
    for part in parts:
        grade, _, gain = part.partition("=")
        if not re.fullmatch(r"[-+]?[0-9]+", grade.strip()) or not _FLOAT.fullmatch(gain.strip()):
            raise InvalidParameterError(f"the gains of {text!r} map each grade (an int) to its gain (a number), e.g. "
                                        f"'1=1,2=3' after trec_eval's dot or {{1:1,2:3}} in ir_measures' syntax; got "
                                        f"{part!r}.")
        gains[int(grade)] = float(gain)
    return tuple(sorted(gains.items()))


def _finish(name: str, cutoff: int | float | None, rel: int, given: dict[str, Any]) -> Measure:
    """The Measure, its parameters in the entry's order and those at their default left out."""
    entry = TREC_MEASURES[name]
    params = tuple((p.name, given[p.name]) for p in entry.params
                   if p.name in given and (p.required or given[p.name] != p.default))
    return Measure(name, cutoff, rel, params)


#: ir_measures' names whose ``rel=`` makes them another measure: ``NumRet(rel=1)`` is trec_eval's num_rel_ret.
_WITH_REL = {"NumRet": "NumRelRet"}


def _ir_measures_name(text: str, match: re.Match[str], name: str | None = None,
                      implied: tuple[tuple[str, Any], ...] = ()) -> Measure:
    """A name in ir_measures' syntax: ``Name(key=value,...)@cutoff``; ``name`` and ``implied``: the entry and the
    parameters of the synonym written (``MAP``, ``SetRelP``), None when the entry's own name is written."""
    written = match["name"]
    name = name or written
    if name in _WITH_REL and any(part.split("=")[0].strip().lower() == "rel"
                                 for part in _split_params(match["params"] or "")):
        name = _WITH_REL[name]
    entry = TREC_MEASURES[name]
    cutoff = None
    if match["cutoff"] is not None:
        if entry.cutoff == "none":
            if (written, "cutoff") in _RANX_NOTES:
                raise InvalidParameterError(_RANX_NOTES[written, "cutoff"].format(text=text.strip()))
            raise InvalidParameterError(f"{name} takes no cutoff: write {name!r}; got {text!r}.")
        cutoff = _check_cutoff(match["cutoff"], text, entry)
    elif entry.cutoff == "required":
        raise InvalidParameterError(f"{name} needs a cutoff: {_example(name)}; got {text!r}."
                                    + _RANX_NOTES.get((written, "bare"), ""))
    rel, given = 1, dict(implied)
    declared = {p.name: p for p in entry.params}
    for part in _split_params(match["params"] or ""):
        key, equals, value = (piece.strip() for piece in part.partition("="))
        key = _declared_key(key, [*declared, "rel"])
        if key == "rel" and entry.rel:
            if not equals or not _NUMBER.fullmatch(value) or not 1 <= int(value) <= _LARGEST:
                raise InvalidParameterError(
                    f"{name} takes rel=N with N a positive int (grade >= N is relevant), e.g. "
                    f"'{name}(rel=2)" + (f"@{cutoff}" if cutoff is not None else "") + f"'; got {text!r}.")
            rel = int(value)
        elif key in declared and equals:
            given[key] = _read_value(declared[key], value, text)
        else:
            takes = (["rel=N"] if entry.rel else []) + [f"{p.name}=" for p in entry.params]
            if key == "rel":
                raise InvalidParameterError(
                    f"{name} takes no rel ({name} uses the grades as gains); got {text!r}: write "
                    f"{name + (f'@{cutoff}' if cutoff is not None else '')!r}."
                    + (f" Its parameters: {', '.join(takes)}." if takes else ""))
            if not takes:
                raise InvalidParameterError(f"{name} takes no parameter; got {text!r}: write {_example(name)!r}.")
            count = "one parameter" if len(takes) == 1 else f"{len(takes)} parameters"
            raise InvalidParameterError(f"{name} takes {count}, {', '.join(takes)}; got {part!r} in {text!r}."
                                        f"{did_you_mean(key, [t.split('=')[0] for t in takes])}")
    for param in entry.params:
        if not param.required or param.name in given:
            continue
        if param.name == "rel":  # RBP: ir_measures' RBP without rel is another, graded, measure
            raise InvalidParameterError(f"{name} needs rel=N, N a positive int (grade >= N is relevant), e.g. "
                                        f"'{name}(rel=1)'; got {text!r}: ir_measures' {name} without rel is "
                                        f"trectools' graded variant, which evalframe does not compute.")
        raise InvalidParameterError(f"{name} needs {param.name}= ({param.description}), e.g. {_example(name)!r}; "
                                    f"got {text!r}.")
    if "rel" in given and not (isinstance(given["rel"], int) and given["rel"] >= 1):
        raise InvalidParameterError(f"{name} needs rel=N, N a positive int (grade >= N is relevant), e.g. "
                                    f"'{name}(rel=1)'; got {text!r}.")
    if entry.check_params is not None:
        wrong = entry.check_params({**{p.name: p.default for p in entry.params}, **given})
        if wrong:
            raise InvalidParameterError(f"{text.strip()!r}: {wrong}")
    return _finish(name, cutoff, rel, given)


def _trec_eval_names(text: str) -> list[Measure] | None:
    """A name in trec_eval's or pytrec_eval's form as its Measures (``P.5,10``: two); None if not one.

    ``stem``, ``stem.PARAMS`` (cutoffs ``P.5,10``, gains ``ndcg.1=3,2=9``, values ``set_F.0.5``) or pytrec_eval's key
    ``stem_CUTOFF`` (``P_5``, ``iprec_at_recall_0.10``). A bare stem taking cutoffs is trec_eval's default cutoffs.
    """
    stem, dot, tail = text.partition(".")
    if stem not in _STEMS:
        keyed = [known for known in _STEMS if text.startswith(known + "_") and
                 any(name.params == "cutoffs" for _, name in _STEMS[known])]
        if not keyed:
            return None
        stem = max(keyed, key=len)
        dot, tail = "_", text[len(stem) + 1:]
    names = _STEMS[stem]
    if not dot:
        plain = [(entry, name) for entry, name in names if name.params in ("none", "gains", "values")]
        if plain:
            entry, name = plain[0]
            return [_finish(entry.name, None, 1, dict(name.implies))]
        entry, name = names[0]
        return [_finish(entry.name, cutoff, 1, dict(name.implies)) for cutoff in name.defaults]
    taking = [(entry, name) for entry, name in names if name.params != "none"]
    if not taking:
        raise InvalidParameterError(f"{stem} takes no parameter after a dot: write {stem!r}; got {text!r}.")
    entry, name = taking[0]
    if not tail:
        example = _trec_eval_examples(name)[1 if name.params == "cutoffs" else 0]
        raise InvalidParameterError(f"{text!r} ends after its dot: write {example!r}.")
    if name.params == "cutoffs":
        example = _trec_eval_examples(name)[1]
        cutoffs = [_check_cutoff(part, text, entry, example) for part in (tail.split(",") if dot == "." else [tail])]
        return [_finish(entry.name, cutoff, 1, dict(name.implies)) for cutoff in dict.fromkeys(cutoffs)]
    if dot != ".":
        return None
    given = dict(name.implies)
    if name.params == "gains":  # grade=gain pairs, and the measure's named parameters (rbp.p=0.5,1=2)
        declared = {p.name: p for p in entry.params if p.name != "gains"}
        named = [part for part in tail.split(",") if part.partition("=")[0].strip() in declared]
        for part in named:
            key, _, value = part.partition("=")
            given[key.strip()] = _read_value(declared[key.strip()], value, text)
        pairs = [part for part in tail.split(",") if part not in named]
        if pairs and not any(p.name == "gains" for p in entry.params):
            takes = ", ".join(f"{key}=" for key in declared if key != "judged_only")
            raise InvalidParameterError(f"{stem} takes {takes} after its dot, e.g. '{stem}.p=0.5'; got {text!r}.")
        if pairs:
            given["gains"] = _read_gains(pairs, text, next(p for p in entry.params if p.name == "gains"))
    else:
        values = tail.split(",")
        if len(values) != len(name.values):
            raise InvalidParameterError(f"{stem} takes {len(name.values)} value(s) after its dot ("
                                        f"{', '.join(name.values)}), e.g. {_trec_eval_examples(name)[0]!r}; got {text!r}.")
        declared = {p.name: p for p in entry.params}
        for key, value in zip(name.values, values, strict=True):
            given[key] = _read_value(declared[key], value, text)
    return [_finish(entry.name, None, 1, given)]


class _Unknown(InvalidParameterError):
    """A name that is no measure's in the letter case written (another case, or no case, may name one); ``mistake``:
    what is wrong with it if it is read as written (``hit_rate`` without a cutoff), None for a name of nothing."""

    mistake: InvalidParameterError | None = None


def _fits(name: str, synonym: Name, has_cutoff: bool) -> bool:
    """Whether ``synonym`` of entry ``name``, written with a cutoff or without, names it (its own cutoff rule, else
    the entry's: ir_measures' ``Precision`` needs one, so ``precision`` alone is ranx's SetP)."""
    rule = synonym.cutoff or TREC_MEASURES[name].cutoff
    return rule == "optional" or (rule == "required") == has_cutoff


def _exact(stripped: str, text: str) -> list[Measure]:
    """``stripped`` read in the letter case written: ir_measures' syntax (the entry's name or a synonym, ranx's
    ``-lN`` level), else trec_eval's and pytrec_eval's; :class:`_Unknown` when it is none of them."""
    level = _RANX_LEVEL.fullmatch(stripped)
    if level is not None:  # ranx's level after a name (ranx's, or any other)
        return [_at_ranx_level(measure, int(level["level"]), text) for measure in _exact(level["head"], text)]
    match = _PATTERN.match(stripped)
    if match is not None and match["name"] in TREC_MEASURES:
        bare_stem = (match["params"] is None and match["cutoff"] is None and stripped in _STEMS
                     and TREC_MEASURES[stripped].cutoff == "required")
        if not bare_stem:  # P alone is trec_eval's -m P (P.5 ... P.1000)
            return [_ir_measures_name(text, match)]
    mistake = None
    if match is not None and match["name"] not in TREC_MEASURES and match["name"] in _SYNONYMS:
        pairs = _SYNONYMS[match["name"]]
        fitting = [(name, synonym) for name, synonym in pairs if _fits(name, synonym, match["cutoff"] is not None)]
        if fitting:
            name, synonym = fitting[0]
            return [_ir_measures_name(text, match, name, synonym.implies)]
        try:  # written with a cutoff it refuses or without one it needs: its mistake, unless another name reads
            _ir_measures_name(text, match, pairs[0][0], pairs[0][1].implies)
        except InvalidParameterError as error:
            mistake = error
    measures = _trec_eval_names(stripped)  # ranx's recall@k without @k is trec_eval's -m recall
    if measures is None:
        unknown = _Unknown(f"unknown measure {text!r}")
        unknown.mistake = mistake
        raise unknown
    return measures


def _in_any_case(stripped: str, text: str) -> tuple[list[Measure] | None, InvalidParameterError | None]:
    """``stripped`` read with its name in another letter case (``ndcg@10``: ``nDCG@10``; ``MAP_CUT.10``:
    ``map_cut.10``), else None and the mistake of the name in another case (``Ndcg@x``: its cutoff), if any. Two
    names that differ only by case and name different measures (:data:`CASE_SENSITIVE`: ``rbp``, ``RBP``) are read
    as written only."""
    lowered = stripped.lower()
    read: dict[str, tuple[str, list[Measure]]] = {}
    failed: list[tuple[int, str, InvalidParameterError]] = []
    for known in _SPELLINGS:
        if not lowered.startswith(known.lower()) or stripped.startswith(known):
            continue
        candidate = known + stripped[len(known):]
        try:
            measures = _exact(candidate, candidate)
        except _Unknown as unknown:
            if unknown.mistake is not None:
                failed.append((len(known), candidate, unknown.mistake))
            continue
        except InvalidParameterError as error:
            failed.append((len(known), candidate, error))
            continue
        if known.lower() in CASE_SENSITIVE:
            spelled = " and ".join(repr(name) for name in sorted(_CASE_GROUPS[known.lower()]))
            raise InvalidParameterError(
                f"{text!r}: {spelled} differ only by letter case and name different measures ("
                + "; ".join(f"{name}: {TREC_MEASURES[_CASE_GROUPS[known.lower()][name]].description.removesuffix('.')}"
                            for name in sorted(_CASE_GROUPS[known.lower()]))
                + "), so write the one you mean as it is spelled.")
        read.setdefault(", ".join(map(str, measures)), (candidate, measures))
    if len(read) > 1:
        raise InvalidParameterError(f"{text!r} names different measures in other letter cases: "
                                    f"{', '.join(repr(c) for c, _ in read.values())}; write one as it is spelled.")
    if read:
        return next(iter(read.values()))[1], None
    if failed:  # the name in another case, with a mistake after it: that mistake, as the user wrote it
        _, candidate, mistake = max(failed, key=lambda found: found[0])  # the longest name: ndcg_cut, not ndcg
        return None, InvalidParameterError(str(mistake).replace(repr(candidate), repr(text)), parameter=mistake.parameter)
    return None, None


def _read(text: str, suggest: bool = True) -> list[Measure]:
    """One name as the measures it names: one, or several for a trec_eval list or bare stem (``P.5,10``, ``P``);
    the name in any letter case (:data:`CASE_SENSITIVE` apart)."""
    stripped = text.strip()
    refused = _ranx_refusal(stripped, text)
    if refused is not None:
        raise refused
    mistake: InvalidParameterError | None = None
    try:
        return _exact(stripped, text)
    except _Unknown as unknown:
        mistake = unknown.mistake  # hit_rate: Success needs a cutoff, unless HIT_RATE names another measure
    except InvalidParameterError as error:
        head = re.match(r"[A-Za-z0-9_\-α]*", stripped)
        if head is None or head.group(0) in _SPELLINGS:
            raise  # a known name as written, with a mistake after it (NDCG@x): that mistake
        mistake = error  # P_Ia@10: not P with a cutoff "Ia@10", but P_IA@10
    measures, failed = _in_any_case(stripped, text)
    if measures is not None:
        return measures
    raise mistake or failed or _unknown(text, suggest)


# ------------------------------------------------------------------------------------ ranx's and ir_measures' forms
#: ranx's names (ranx 0.3.21's ``metric_switch``) that name a measure of the registry (:class:`Name`, tool ``ranx``;
#: ``map``, ``ndcg`` and ``bpref`` are trec_eval's names too, meaning the same), lower-cased.
_RANX_NAMES = frozenset(synonym.text.lower() for entry in TREC_MEASURES.values() for synonym in entry.synonyms
                        if synonym.tool == "ranx")
#: ranx's relevance level after a name: ``precision@5-l2`` (grade >= 2 is relevant).
_RANX_LEVEL = re.compile(r"(?P<head>.+?)-l(?P<level>[0-9]+)", re.IGNORECASE)
#: The highest ranx level read on a graded measure (nDCG), whose grades below it become gains of 0.
_RANX_GRADED_LEVEL = 100
#: What ranx means by a name evalframe reads otherwise: (its spelling, "cutoff" with @k / "bare" without) -> why.
_RANX_NOTES = {
    ("f1", "cutoff"): "{text!r} is ranx's f1@k, the F1 of P@k and R@k, which is no measure of evalframe (a "
                      "definition it does not compute is refused, never read as a near one): f1 without a cutoff, "
                      "the F1 of the whole ranking's set precision and set recall, is SetF.",
    ("hit_rate", "bare"): " (ranx's hit_rate without @k, a relevant document anywhere in the ranking, is no measure "
                          "of evalframe; hit_rate@k is Success@k.)",
}
#: ranx's names whose definition differs from every measure of evalframe: refused, saying why.
_RANX_REFUSED = {
    "dcg": "ranx's dcg is the unnormalised DCG (Σ grade / log2(rank + 1)), which evalframe does not compute; its "
           "normalised form, ranx's ndcg, is nDCG",
    "dcg_burges": "ranx's dcg_burges is the unnormalised DCG of gains 2^grade - 1, which evalframe does not compute; "
                  "its normalised form, ranx's ndcg_burges, is nDCG(dcg='exp-log2')",
    "hits": "ranx's hits is the number of relevant documents in the top k, averaged over queries, which is no "
            "measure of evalframe: per query it is P@k × k, and NumRelRet counts the whole ranking's, summed over "
            "queries",
}
#: ranx's names whose bare form is trec_eval's bare stem (``recall``: trec_eval's -m recall, R@5 ... R@1000), with
#: the measure ranx means by it.
_RANX_BARE = {"recall": "SetR"}
_RANX_RBP = re.compile(r"rbp[.@](?P<p>[0-9]+)(?:-l[0-9]+)?")


def _ranx_refusal(stripped: str, text: str) -> InvalidParameterError | None:
    """The error of a ranx name that no measure of evalframe computes (:data:`_RANX_REFUSED`, ranx's ``rbp.95``),
    None for another name."""
    lowered = stripped.lower()
    rbp = _RANX_RBP.fullmatch(lowered)
    if rbp is not None:
        p = f"0.{rbp['p']}"
        return InvalidParameterError(
            f"{text!r} is ranx's rank-biased precision with persistence {p}, which weighs each relevant document by "
            f"its grade ((1 - p) Σ grade · p^(rank - 1)): no measure of evalframe computes it (a definition it does "
            f"not compute is refused, never read as a near one). trec_eval 10.0's rbp is 'rbp.p={p}' (gains rescaled "
            f"to [0, 1]); ir_measures' binary RBP is 'RBP(p={p},rel=1)', equal to ranx's on qrels graded 0 and 1.")
    head = re.fullmatch(r"(?P<name>[a-z_]+)(?:@[0-9]+)?(?:-l[0-9]+)?", lowered)
    if head is not None and head["name"] in _RANX_REFUSED:
        return InvalidParameterError(f"{text!r}: {_RANX_REFUSED[head['name']]} (a definition evalframe does not "
                                     f"compute is refused, never read as a near one).")
    return None


def _name_of(text: str) -> str:
    """The name part of a measure's text (before its parameters and cutoff), lower-cased."""
    return re.split(r"[(@]", text, maxsplit=1)[0].strip().lower()


def _at_ranx_level(measure: Measure, level: int, text: str) -> Measure:
    """A measure at ranx's level ``-lN``: ``rel=N`` for a binary measure; for nDCG (ranx's ndcg keeps the judgments
    graded N or more) the grades below N gain 0."""
    entry = TREC_MEASURES[measure.name]
    if not 1 <= level <= _LARGEST:
        raise InvalidParameterError(f"ranx's relevance level of {text!r} must be a positive int (-l1, -l2, ...; at "
                                    f"most {_LARGEST:,}).")
    if entry.rel:
        return Measure(measure.name, measure.cutoff, level, measure.params)
    if not any(p.name == "gains" for p in entry.params) or measure.param("gains"):
        raise InvalidParameterError(f"{text!r}: {measure.name} takes no relevance level (ranx's -l{level}).")
    if level > _RANX_GRADED_LEVEL:
        raise InvalidParameterError(f"{text!r}: ranx's level of a graded measure is read up to -l{_RANX_GRADED_LEVEL}"
                                    f" (the grades below it gain 0); got -l{level}.")
    given = {**dict(measure.params), "gains": tuple((grade, 0.0) for grade in range(1, level))}
    return _finish(measure.name, measure.cutoff, measure.rel, given)


def _declared_key(key: str, keys: Sequence[str]) -> str:
    """A parameter's key as the entry declares it, written in any letter case (``t``: ``T``)."""
    if key in keys:
        return key
    folded = [known for known in keys if known.lower() == key.lower()]
    return folded[0] if len(folded) == 1 else key


def foreign_measure(value: object) -> str | None:
    """ir_measures' name of an ``ir_measures`` measure object (``ir_measures.nDCG@10``: ``'nDCG@10'``; any object with
    its Measure interface: a ``NAME``, a dict of ``params``, ``SUPPORTED_PARAMS``), None for any other value.
    ir_measures is not imported: its ``str`` is the name in its syntax (and ir_measures' own identity of a measure).

    Examples
    --------
    >>> class Like:  # what an ir_measures measure looks like
    ...     NAME, SUPPORTED_PARAMS, params = "P", {}, {"cutoff": 5}
    ...     def __str__(self): return "P(rel=2)@5"
    >>> foreign_measure(Like()), foreign_measure("P@5")
    ('P(rel=2)@5', None)
    """
    if isinstance(value, (str, Measure)):
        return None
    if isinstance(getattr(value, "NAME", None), str) and isinstance(getattr(value, "params", None), Mapping) \
            and isinstance(getattr(value, "SUPPORTED_PARAMS", None), Mapping):
        return str(value)
    return None


def measure_texts(value: Any) -> Any:
    """``value`` with each ir_measures measure object in it as its name (:func:`foreign_measure`): one object, or the
    objects of a list or tuple (a list is returned); anything else as it is. The analyses call it on a metric
    argument before checking that it holds names.

    Examples
    --------
    >>> measure_texts("AP"), measure_texts(["AP", 3]), measure_texts(None)
    ('AP', ['AP', 3], None)
    """
    foreign = foreign_measure(value)
    if foreign is not None:
        return foreign
    if isinstance(value, (list, tuple)):
        return [measure_texts(item) if foreign_measure(item) is not None else item for item in value]
    return value


def _from_ir_measures(value: object, text: str) -> Measure:
    """An ir_measures measure object's Measure, read from its name in ir_measures' syntax only (``P`` without a
    cutoff is ir_measures' error, not trec_eval's -m P)."""
    match = _PATTERN.match(text.strip())
    if match is None or match["name"] not in TREC_MEASURES:
        raise InvalidParameterError(f"the ir_measures measure {text} ({type(value).__name__}) is no measure of "
                                    f"evalframe: `evalframe list-metrics` lists them.{_suggestion(text)}")
    return _ir_measures_name(text, match)


def parse_measure(text: str | Measure) -> Measure:
    """Read one measure name (ir_measures', trec_eval's or pytrec_eval's); a :class:`Measure` is returned as it is.

    Raises InvalidParameterError (a ValueError) saying what is accepted.

    Examples
    --------
    >>> parse_measure("P(rel=2)@5")
    Measure(name='P', cutoff=5, rel=2, params=())
    >>> str(parse_measure("P(rel=1)@5"))
    'P@5'
    >>> [str(parse_measure(name)) for name in ("map", "ndcg", "ndcg_cut.10", "P_5", "recall_100", "recip_rank")]
    ['AP', 'nDCG', 'nDCG@10', 'P@5', 'R@100', 'RR']
    """
    if isinstance(text, Measure):
        return text
    foreign = foreign_measure(text)
    if foreign is not None:
        return _from_ir_measures(text, foreign)
    if not isinstance(text, str):
        raise InvalidParameterError(f"a measure is a name such as 'nDCG@10' or 'AP', or an ir_measures measure "
                                    f"(ir_measures.nDCG@10); got {text!r} ({type(text).__name__}).")
    measures = _read(text)
    if len(measures) != 1 and text.strip() in TREC_MEASURES:  # P: ir_measures' name, or trec_eval's P.5,...,1000
        raise InvalidParameterError(f"{text.strip()} needs a cutoff: {_example(text.strip())}; got {text!r} (in a list "
                                    f"of measures, {text.strip()!r} is trec_eval's -m {text.strip()}: "
                                    f"{', '.join(map(str, measures))}).")
    if len(measures) != 1:
        ranx = (f" (ranx's {text.strip()!r} without @k, the whole ranking's, is "
                f"{_RANX_BARE[text.strip().lower()]} here)" if text.strip().lower() in _RANX_BARE else "")
        raise InvalidParameterError(f"{text!r} names {len(measures)} measures ({', '.join(map(str, measures))}){ranx}; "
                                    f"name one, or pass it to a function taking a list of measures.")
    return measures[0]


def describe_measure(measure: str | Measure) -> str:
    """One line saying what ``measure`` is: its registry description, with its cutoff, level and parameters.

    Examples
    --------
    >>> describe_measure("P(rel=2)@5")
    'Precision: relevant documents in the top k, over k (k = 5; relevant: grade >= 2).'
    >>> describe_measure("Rprec")
    "R-precision: relevant documents in the top R, over R, the query's number of relevant documents (relevant: grade >= 1)."
    """
    parsed = parse_measure(measure)
    entry = TREC_MEASURES[parsed.name]
    notes = []
    if entry.cutoff != "none":
        notes.append(f"k = {parsed.cutoff}" if parsed.cutoff is not None else "k: the whole ranking")
    if entry.rel:
        notes.append(f"relevant: grade >= {parsed.rel}")
    notes.extend(f"{key} = {_write_value(value)}" for key, value in parsed.params)
    return entry.description.removesuffix(".") + f" ({'; '.join(notes)})." if notes else entry.description


def parse_measures(texts: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Read a measure name or a list of them; repeats (by canonical name) are dropped, order kept.

    A trec_eval name may stand for several measures: ``P.5,10`` (two cutoffs) or a bare stem (``P``, ``map_cut``:
    trec_eval's default cutoffs, as ``trec_eval -m P`` prints them).

    Examples
    --------
    >>> [str(m) for m in parse_measures(["nDCG@10", "AP", "P(rel=1)@5", "P@5", "P.5,10"])]
    ['nDCG@10', 'AP', 'P@5', 'P@10']
    """
    if isinstance(texts, (str, Measure)) or foreign_measure(texts) is not None:
        texts = [texts]  # type: ignore[list-item]
    if not isinstance(texts, Iterable):
        raise InvalidParameterError(f"measures must be a name or a list of names, e.g. ['nDCG@10', 'AP']; got {texts!r}.",
                                    parameter="measures")
    measures: dict[str, Measure] = {}
    for text in texts:
        try:
            if isinstance(text, Measure):
                read = [text]
            elif isinstance(text, str):
                read = _read(text)
            else:
                read = [parse_measure(text)]
        except InvalidParameterError as error:  # a name the caller passed as measures (the CLI's -m)
            error.parameter = error.parameter or "measures"
            raise
        for measure in read:
            measures.setdefault(str(measure), measure)
    if not measures:
        raise InvalidParameterError("measures is empty; give at least one, e.g. ['nDCG@10', 'AP'].", parameter="measures")
    return list(measures.values())


def evaluate(measures: Sequence[Measure], *, row_query: np.ndarray, position: np.ndarray, grade: np.ndarray,
             judged_query: np.ndarray, judged_grade: np.ndarray, n_queries: int, subtopics: Any = None
             ) -> dict[str, np.ndarray]:
    """Every measure's value per query (float64 arrays of length ``n_queries``), keyed by canonical name.

    The arrays are laid out as :mod:`evalframe.metrics.trec_kernels` says (every retrieved row, unjudged ones with
    grade ``UNJUDGED``); ``subtopics`` is what the diversity measures read. The measures whose entries share a kernel,
    a relevance level and parameters are computed in one pass for all their cutoffs; each measure's values are its
    entry's finish of its column, with its edge policy (an entry without one gives its kernel's values).
    """
    rows = RankedRows(row_query=np.asarray(row_query, dtype=np.int64), position=np.asarray(position, dtype=np.int64),
                      grade=np.asarray(grade, dtype=np.int64), judged_query=np.asarray(judged_query, dtype=np.int64),
                      judged_grade=np.asarray(judged_grade, dtype=np.int64), n_queries=n_queries, subtopics=subtopics)
    groups: dict[tuple[Callable[..., np.ndarray], int, tuple[tuple[str, Any], ...]], list[Measure]] = {}
    for measure in measures:
        groups.setdefault((TREC_MEASURES[measure.name].kernel, measure.rel, measure.params), []).append(measure)
    out: dict[str, np.ndarray] = {}
    for (kernel, level, params), members in groups.items():
        cuts = sorted({m.cutoff for m in members if m.cutoff is not None})
        column = {k: i for i, k in enumerate(cuts)}
        options = dict(params)
        # judged_only stays in the options: a kernel may need it (trec_set_kernels: trec_eval -J's edge rules)
        ranked = rows.judged_ranking if options.get("judged_only", False) else rows
        num_rel = ranked.num_rel(level)
        table = kernel(ranked, level, cuts, options)
        for measure in members:
            entry = TREC_MEASURES[measure.name]
            assert entry.finish is not None  # every trec entry has one (Metric checks)
            values = entry.finish(table[:, column[measure.cutoff] if measure.cutoff is not None else -1],
                                  measure.cutoff, num_rel)
            if entry.policy is not None and (entry.policy.no_gold, entry.policy.no_hit) != (0.0, 0.0):
                # the edge cases: no relevant document retrieved, the query having relevant judgments (no_hit) or
                # none (no_gold); the kernels give 0.0 there, so the zero policy leaves every value as it is
                hits = ranked.num_ret_rel(level)
                values = np.where(hits == 0, np.where(num_rel == 0, entry.policy.no_gold, entry.policy.no_hit), values)
            out[str(measure)] = np.ascontiguousarray(values, dtype=np.float64)
    return {str(measure): out[str(measure)] for measure in measures}


def swept_measures(measures: str | Sequence[str] | None, ks: list[int]) -> dict[str, list[str]]:
    """``{measure without cutoff: [its canonical name at each k]}`` for ``metrics_at_k``.

    A measure is named without its cutoff, in ir_measures' syntax (``nDCG``, ``R(rel=2)``) or by trec_eval's stem
    (``ndcg_cut``, ``recall``); the key is the canonical name without the cutoff.

    Examples
    --------
    >>> swept_measures(["nDCG", "recall"], [1, 5])
    {'nDCG': ['nDCG@1', 'nDCG@5'], 'R': ['R@1', 'R@5']}
    """
    if measures is None:
        return {}
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names or not all(isinstance(name, str) for name in names):
        raise InvalidParameterError(f"measures must be a trec_eval measure name or a list of them, e.g. ['nDCG', 'P']; "
                                    f"got {measures!r}.")
    cut = [name for name in names if "@" in name]
    if cut:
        raise InvalidParameterError(f"metrics_at_k sets the cutoff of measures from ks, so name them without one: "
                                    f"{cut[0].split('@')[0]!r}, not {cut[0]!r}.")
    swept: dict[str, list[str]] = {}
    for name in names:
        # trec_eval's stem of a measure with a cutoff (ndcg_cut, recall, ...) takes it after a dot: ndcg_cut.10
        stem = name.strip()
        form = ("{}.{}" if stem in _STEMS and stem not in TREC_MEASURES and stem not in _SYNONYMS
                and any(known.params == "cutoffs" for _, known in _STEMS[stem]) else "{}@{}")
        at_k = [str(m) for m in parse_measures([form.format(name.strip() if form == "{}.{}" else name, k) for k in ks])]
        swept[at_k[0].rsplit("@", 1)[0]] = at_k
    return swept
