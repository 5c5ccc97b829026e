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
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .._validation import did_you_mean
from ..errors import InvalidParameterError
from .registry import AGGREGATIONS, METRICS, TREC_MEASURES, Aggregation, Metric
from .trec_kernels import (
    UNJUDGED,
    RankedRows,
    average_precision,
    bpref,
    cutoff_sums,
    ndcg,
    r_precision,
    reciprocal_rank,
    relevant_counts,
)

__all__ = [
    "aggregation_of",
    "swept_measures",
    "Measure",
    "MEASURE_NAMES",
    "MEASURE_DESCRIPTIONS",
    "describe_measure",
    "entry_of",
    "UNJUDGED",
    "parse_measure",
    "parse_measures",
    "evaluate",
    "cutoff_sums",
    "relevant_counts",
    "average_precision",
    "reciprocal_rank",
    "ndcg",
    "r_precision",
    "bpref",
]

#: Every measure name (ir_measures'), in the registry's order.
MEASURE_NAMES: tuple[str, ...] = tuple(TREC_MEASURES)
#: What each measure is, in one line (trec_eval's definitions; the registry's descriptions): the report and the docs
#: read these. "k" is the cutoff (the whole ranking without one), "relevant" a grade at or above the relevance level.
MEASURE_DESCRIPTIONS: dict[str, str] = {name: entry.description for name, entry in TREC_MEASURES.items()}

#: trec_eval's names without a cutoff (``map``) and the stems of those with one (``P`` of ``P.k``), from the aliases.
_TREC_EVAL_NAMES: dict[str, str] = {a: m.name for m in TREC_MEASURES.values() for a in m.aliases if not a.endswith(".k")}
_TREC_EVAL_STEMS: dict[str, str] = {a[:-2]: m.name for m in TREC_MEASURES.values() for a in m.aliases if a.endswith(".k")}
_TREC_EVAL_FORM = re.compile(r"^(?P<stem>[A-Za-z_]+)[._](?P<cutoff>[^._]*)$")

#: Cutoffs and relevance levels: ASCII digits ("²" is a digit to str.isdigit, not to int), at most a billion.
_NUMBER = re.compile(r"[0-9]+")
_LARGEST = 10**9
_PATTERN = re.compile(r"^(?P<name>[A-Za-z_]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>[^@]*))?$")


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure: ``name`` (one of :data:`MEASURE_NAMES`), ``cutoff`` (k, or None) and ``rel``.

    ``str(measure)`` is the canonical name, as ir_measures writes it: ``P(rel=2)@5``, ``nDCG@10``, ``AP``.
    """

    name: str
    cutoff: int | None = None
    rel: int = 1

    def __str__(self) -> str:
        params = f"(rel={self.rel})" if self.rel != 1 else ""
        return f"{self.name}{params}" + (f"@{self.cutoff}" if self.cutoff is not None else "")


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


def _example(name: str) -> str:
    return f"{name}@10" if TREC_MEASURES[name].cutoff == "required" else name


def _names_to_suggest() -> list[str]:
    """Every name form parse_measure reads, with an example cutoff: the suggestions for an unknown one."""
    forms = [_example(name) for name in MEASURE_NAMES]
    return forms + list(_TREC_EVAL_NAMES) + [f"{stem}.10" for stem in _TREC_EVAL_STEMS]


def _suggestion(text: str, name: str | None) -> str:
    """`` Did you mean 'x'?`` for an unknown measure name: the same name in ir_measures' syntax (``map@10``:
    ``AP@10``), trec_eval's stem in other letter case (``Success.1``: ``success.1``), or the closest name."""
    if name is not None and name in _TREC_EVAL_NAMES:
        return f" Did you mean {_TREC_EVAL_NAMES[name] + text[len(name):]!r}?"
    form = _TREC_EVAL_FORM.match(text)
    stems = [stem for stem in _TREC_EVAL_STEMS if form is not None and stem.lower() == form["stem"].lower()]
    if stems:
        return f" Did you mean {stems[0] + text[len(stems[0]):]!r}?"
    return did_you_mean(text, _names_to_suggest())


def _check_cutoff(cutoff: str, text: str, example: str) -> int:
    if not _NUMBER.fullmatch(cutoff) or not 1 <= int(cutoff) <= _LARGEST:
        raise InvalidParameterError(f"the cutoff of {text!r} must be a positive int (at most {_LARGEST:,}), e.g. "
                                    f"{example!r}.")
    return int(cutoff)


def _trec_eval_name(text: str) -> Measure | None:
    """A name in trec_eval's (pytrec_eval's) form, ``map``, ``P.5``, ``ndcg_cut_10``, as its Measure; None if not one."""
    if text in _TREC_EVAL_NAMES:
        return Measure(_TREC_EVAL_NAMES[text])
    if text in _TREC_EVAL_STEMS:
        raise InvalidParameterError(f"{text} needs a cutoff: {text}.10 (trec_eval's name of "
                                    f"{_TREC_EVAL_STEMS[text]}@10); got {text!r}.")
    match = _TREC_EVAL_FORM.match(text)
    if match is None or match["stem"] not in _TREC_EVAL_STEMS:
        return None
    return Measure(_TREC_EVAL_STEMS[match["stem"]], _check_cutoff(match["cutoff"], text, f"{match['stem']}.10"))


def parse_measure(text: str | Measure) -> Measure:
    """Read one measure name (ir_measures' syntax, or trec_eval's); a :class:`Measure` is returned as it is.

    Raises InvalidParameterError (a ValueError) saying what is accepted.

    Examples
    --------
    >>> parse_measure("P(rel=2)@5")
    Measure(name='P', cutoff=5, rel=2)
    >>> str(parse_measure("P(rel=1)@5"))
    'P@5'
    >>> [str(parse_measure(name)) for name in ("map", "ndcg", "ndcg_cut.10", "P_5", "recall_100", "recip_rank")]
    ['AP', 'nDCG', 'nDCG@10', 'P@5', 'R@100', 'RR']
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise InvalidParameterError(f"a measure is a name such as 'nDCG@10' or 'AP'; got {text!r} ({type(text).__name__}).")
    match = _PATTERN.match(text.strip())
    if match is None or match["name"] not in TREC_MEASURES:
        trec_eval = _trec_eval_name(text.strip())
        if trec_eval is not None:
            return trec_eval
        known = ", ".join(_example(n) for n in MEASURE_NAMES)
        close = [n for n in MEASURE_NAMES if match is not None and n.lower() == match["name"].lower()]
        hint = (f" Did you mean {close[0] + text.strip()[len(close[0]):]!r}?" if close
                else _suggestion(text.strip(), match["name"] if match is not None else None))
        raise InvalidParameterError(f"unknown measure {text!r}; the measures are {known} "
                                    f"(binary ones take a relevance level: 'P(rel=2)@5').{hint}")
    name = match["name"]
    entry = TREC_MEASURES[name]
    cutoff = None
    if match["cutoff"] is not None:
        if entry.cutoff == "none":
            raise InvalidParameterError(f"{name} takes no cutoff: write {name!r}; got {text!r}.")
        cutoff = _check_cutoff(match["cutoff"], text, f"{name}@10")
    elif entry.cutoff == "required":
        raise InvalidParameterError(f"{name} needs a cutoff: {name}@10; got {text!r}.")
    rel = 1
    if match["params"] is not None:
        if not entry.rel:
            raise InvalidParameterError(f"{name} takes no rel ({name} uses the grades as gains); got {text!r}: write "
                                        f"{name + (f'@{cutoff}' if cutoff else '')!r}.")
        key, _, value = match["params"].partition("=")
        if key.strip() != "rel" or not _NUMBER.fullmatch(value.strip()) or not 1 <= int(value) <= _LARGEST:
            raise InvalidParameterError(f"{name} takes one parameter, rel=N with N a positive int (grade >= N is relevant), "
                                        f"e.g. '{name}(rel=2)" + (f"@{cutoff}" if cutoff else "") + f"'; got {text!r}.")
        rel = int(value)
    return Measure(name, cutoff, rel)


def describe_measure(measure: str | Measure) -> str:
    """One line saying what ``measure`` is: its registry description, with its cutoff and level.

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
    return entry.description.removesuffix(".") + f" ({'; '.join(notes)})."


def parse_measures(texts: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Read a measure name or a list of them; repeats (by canonical name) are dropped, order kept.

    Examples
    --------
    >>> [str(m) for m in parse_measures(["nDCG@10", "AP", "P(rel=1)@5", "P@5"])]
    ['nDCG@10', 'AP', 'P@5']
    """
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    if not isinstance(texts, Iterable):
        raise InvalidParameterError(f"measures must be a name or a list of names, e.g. ['nDCG@10', 'AP']; got {texts!r}.",
                                    parameter="measures")
    measures: dict[str, Measure] = {}
    for text in texts:
        try:
            measure = parse_measure(text)
        except InvalidParameterError as error:  # a name the caller passed as measures (the CLI's -m)
            error.parameter = error.parameter or "measures"
            raise
        measures.setdefault(str(measure), measure)
    if not measures:
        raise InvalidParameterError("measures is empty; give at least one, e.g. ['nDCG@10', 'AP'].", parameter="measures")
    return list(measures.values())


def evaluate(measures: Sequence[Measure], *, row_query: np.ndarray, position: np.ndarray, grade: np.ndarray,
             judged_query: np.ndarray, judged_grade: np.ndarray, n_queries: int) -> dict[str, np.ndarray]:
    """Every measure's value per query (float64 arrays of length ``n_queries``), keyed by canonical name.

    The arrays are laid out as :mod:`evalframe.metrics.trec_kernels` says. The measures whose entries share a kernel
    and a relevance level are computed in one pass for all their cutoffs, over the judged rows only (the others add
    nothing to any measure); each measure's values are its entry's finish of its column, with its edge policy.
    """
    grade = np.asarray(grade, dtype=np.int64)
    # only judged rows add to any measure (an unjudged row weighs 0.0 in every sum, and adding 0.0 to a sum of
    # non-negative terms leaves it bit for bit): the kernels run on them alone, in the same order
    judged_rows = np.flatnonzero(grade != UNJUDGED)
    if len(judged_rows) < len(grade):
        row_query, position, grade = (np.asarray(row_query)[judged_rows], np.asarray(position)[judged_rows],
                                      grade[judged_rows])
    rows = RankedRows(row_query=np.asarray(row_query, dtype=np.int64), position=np.asarray(position, dtype=np.int64),
                      grade=grade, judged_query=np.asarray(judged_query, dtype=np.int64),
                      judged_grade=np.asarray(judged_grade, dtype=np.int64), n_queries=n_queries)
    groups: dict[tuple[Callable[..., np.ndarray], int], list[Measure]] = {}
    for measure in measures:
        groups.setdefault((TREC_MEASURES[measure.name].kernel, measure.rel), []).append(measure)
    out: dict[str, np.ndarray] = {}
    for (kernel, level), members in groups.items():
        cuts = sorted({m.cutoff for m in members if m.cutoff is not None})
        column = {k: i for i, k in enumerate(cuts)}
        num_rel = rows.num_rel(level)
        hits = rows.num_ret_rel(level)
        table = kernel(rows, level, cuts)
        for measure in members:
            entry = TREC_MEASURES[measure.name]
            assert entry.finish is not None and entry.policy is not None  # every trec entry has both (Metric checks)
            values = entry.finish(table[:, column[measure.cutoff] if measure.cutoff is not None else -1],
                                  measure.cutoff, num_rel)
            # the edge cases: no relevant document retrieved, the query having relevant judgments (no_hit) or none
            # (no_gold); every kernel gives 0.0 there, so the zero policy leaves every value as it is
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
        form = "{}.{}" if name.strip() in _TREC_EVAL_STEMS and name.strip() not in TREC_MEASURES else "{}@{}"
        at_k = [str(m) for m in parse_measures([form.format(name.strip() if form == "{}.{}" else name, k) for k in ks])]
        swept[at_k[0].rsplit("@", 1)[0]] = at_k
    return swept
