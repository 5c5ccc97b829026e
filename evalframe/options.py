"""The options of the analyses and of building frames, each defined once: name, default, check, help.

:class:`MetricOptions` is what every analysis takes as keyword arguments (``calculate_metrics``,
``query_metrics``, ``sliced_metrics``, ``wrong_examples``, ``metrics_at_k``, :func:`evalframe.compare`,
the plots and the command line); :class:`MatchingOptions` is how ``from_runs`` matches retrieved
texts against gold labels; :class:`ReportOptions` what the report of a run takes (``result.report``,
``evalframe report``), :class:`CompareOptions` what a comparison of runs takes (:func:`evalframe.compare` of results,
tables and TREC runs, ``evalframe.dask.compare``, ``evalframe compare``) and :class:`ComparisonReportOptions` what
the comparative report takes (:func:`evalframe.compare_report`). Signatures, command-line flags and docs are
generated from the fields (:func:`with_options`), so a default is written here and nowhere else, and so is the
description of each parameter.

Examples
--------
>>> from evalframe.options import MetricOptions
>>> MetricOptions(simulated_top_k_retriever=3).document_scope
'document_id_or_answer'
>>> MetricOptions(document_scope="documentid")
Traceback (most recent call last):
...
evalframe.errors.InvalidParameterError: document_scope must be one of [...]; got 'documentid'. Did you mean 'document_id'?
"""

from __future__ import annotations

import functools
import inspect
import numbers
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from . import _validation as check
from .errors import InvalidParameterError, UnknownArgumentError, warn
from .columns import ANSWER_SCOPES, DOCUMENT_SCOPES, EVAL_MODES, AnswerScope, DocumentScope, EvalMode, relevance_criterion

__all__ = ["MetricOptions", "MatchingOptions", "ReportOptions", "CompareOptions", "ComparisonReportOptions", "Count",
           "IntervalOptions", "OutputOptions", "ExamplesOutputOptions", "BACKENDS", "CI_METHODS", "check_ci",
           "AT_K_SETS", "THRESHOLD", "ROUNDS", "COMPARE_TESTS", "ALL_PAIRS_TESTS", "WRONG_EXAMPLES_FIELDS",
           "COMPARE_CORRECTIONS", "COMPARE_PAIRS", "CORRECTION_FAMILIES", "ZERO_METHODS", "check_family",
           "check_test", "check_correction", "check_max_p", "with_options"]

#: wrong_examples (and ``evalframe worst``, the report) lists the queries scoring at most this, unless told otherwise.
THRESHOLD = 0.5
#: Resampling rounds of the bootstrap and the randomization test.
ROUNDS = 10_000
#: The paired tests of a comparison (``test=``, ``--test``): the keys of :data:`evalframe.analysis.compare.TESTS`.
COMPARE_TESTS = ("randomization", "t-test", "wilcoxon", "sign", "bootstrap", "tukey", "randomized-tukey")
#: The tests of all pairs of N runs at once (each implies ``pairs="all"``; their p-values are already adjusted over the
#: pairs of runs of each metric, so ``correction`` spans the measures only).
ALL_PAIRS_TESTS = ("tukey", "randomized-tukey")
#: How the Wilcoxon signed-rank test treats zero differences (``zero_method=``, ``--zero-method``), scipy's names.
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
#: Other names of the tests: ranx's (``stat_test="fisher"`` / ``"student"``) and the usual ones.
_TEST_NAMES = {"fisher": "randomization", "permutation": "randomization", "student": "t-test", "ttest": "t-test",
               "t_test": "t-test", "t": "t-test", "signed-rank": "wilcoxon", "sign-test": "sign",
               "tukey-hsd": "tukey", "hsd": "tukey", "randomised-tukey": "randomized-tukey",
               "randomized_tukey": "randomized-tukey", "randomised_tukey": "randomized-tukey"}
#: The corrections of the p-values over the runs compared with the first (``correction=``, ``--correction``):
#: the names of statsmodels' ``multipletests``, the keys of :data:`evalframe.analysis.compare.CORRECTION_COLUMNS`.
COMPARE_CORRECTIONS = ("holm", "bonferroni", "holm-sidak", "fdr_bh", "fdr_by", "none")
#: Which runs a comparison pairs (``pairs=``, ``--pairs``): each with the first, or all pairs.
COMPARE_PAIRS = ("first", "all")
#: The dimensions a correction's family spans (``family=``, ``--family``): the comparisons of a metric over the runs,
#: the metrics of a pair of runs, the slices of the queries (``by=``), or several (their product).
CORRECTION_FAMILIES = ("runs", "measures", "slices")
#: How the interval of a mean is computed (``ci_method=``, ``--ci-method``): the percentile bootstrap, or Student's t.
CI_METHODS = ("bootstrap", "t")
#: The kinds of table the per-query tables, the metrics frame and the comparison come out as (``backend=``).
BACKENDS = ("pandas", "arrow", "polars")
#: Haystack 1.x's default fields of each listed answer / document in the worst queries.
WRONG_EXAMPLES_FIELDS = ("answer", "context", "document_id")

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Count:
    """A flag's value that counts something: an int >= ``minimum``; the command line refuses any other with a usage
    error naming ``what`` it counts (``-n 0``: "must be an int >= 1 (how many queries to list)")."""

    what: str
    minimum: int = 1


def _option(default: Any, help: str | None, *, flag: str | None, choices: tuple[str, ...] | None = None,
            parse: Callable[[str], Any] | Count | None = None, metavar: str | None = None, doc: str | None = None,
            kind: str | None = None, short: str | None = None, many: str | None = None) -> Any:
    """A dataclass field with what the command line and the docs need.

    ``flag`` (None: no flag), ``short`` (another spelling, ``-m``), ``choices``, ``parse`` (the flag's type),
    ``metavar`` and ``help`` make its flag; ``many`` how a flag gives a list: ``"comma"`` (``a,b``) or ``"repeat"``
    (the flag again). ``kind`` (the numpydoc type, ``"int"``) and ``doc`` (its description, default ``help``) make
    the entry of the Parameters section :func:`with_options` writes into a function's docstring.
    """
    return field(default=default, metadata={"help": help, "flag": flag, "choices": choices, "parse": parse,
                                            "metavar": metavar, "doc": doc, "kind": kind, "short": short,
                                            "many": many})


def _like(options: type, name: str, **changes: Any) -> Any:
    """The field ``name`` of ``options`` again, with ``changes`` (its default, flag, help, doc): one parameter's
    declaration for several option sets (the comparative report's ``test`` is compare's, its default another)."""
    source = next(f for f in fields(options) if f.name == name)
    default = changes.pop("default", source.default)
    return field(default=default, metadata={**source.metadata, **changes})


@dataclass(frozen=True)
class MetricOptions:
    """How metrics are computed; every analysis takes these as keyword arguments.

    Parameters
    ----------
    simulated_top_k_reader, simulated_top_k_retriever : int
        -1 uses every rank; k keeps ranks <= k (for answer nodes the retriever's top-k keeps the answers
        whose documents are all among the retriever's top k): ``docs/metrics.md#which-rows-are-used``.
    document_scope : str
        What makes a document relevant: one of ``evalframe.columns.DOCUMENT_SCOPES``.
    eval_mode : {"integrated", "isolated"}
    answer_scope : str
        Where a matching answer must come from: ``any``, ``context``, ``document_id`` or ``document_id_and_context``.
    context_matching_threshold : float, optional
        Similarity above which a gold context counts as matched by a document; None: the threshold
        recorded with the result, else :attr:`MatchingOptions.context_matching_threshold`.
    retriever_node : str, optional
        The node whose documents simulate the retriever's top-k for answer nodes; None: the only node with
        document rows.

    Raises
    ------
    InvalidParameterError
        An option outside its valid values (the message names it and lists the valid ones).
    """

    simulated_top_k_reader: int = _option(-1, "simulate the reader's top k (-1: every rank)", flag="--top-k-reader",
                                          parse=int, metavar="K")
    simulated_top_k_retriever: int = _option(-1, "simulate the retriever's top k (-1: every rank)",
                                             flag="--top-k-retriever", parse=int, metavar="K")
    document_scope: DocumentScope = _option("document_id_or_answer", "what makes a document relevant",
                                            flag="--document-scope", choices=DOCUMENT_SCOPES)
    eval_mode: EvalMode = _option("integrated", "integrated or isolated rows", flag="--eval-mode", choices=EVAL_MODES)
    answer_scope: AnswerScope = _option("any", "where a matching answer must come from", flag="--answer-scope",
                                        choices=ANSWER_SCOPES)
    context_matching_threshold: float | None = _option(
        None, "similarity above which a gold context counts as matched (default: the result's)",
        flag="--context-matching-threshold", parse=float, metavar="T")
    retriever_node: str | None = _option(None, "node whose documents simulate the retriever's top k",
                                         flag="--retriever-node", metavar="NAME")

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        set_("simulated_top_k_reader", check.check_top_k(self.simulated_top_k_reader, name="simulated_top_k_reader"))
        set_("simulated_top_k_retriever", check.check_top_k(self.simulated_top_k_retriever,
                                                            name="simulated_top_k_retriever"))
        set_("document_scope", check.check_choice(self.document_scope, DOCUMENT_SCOPES, name="document_scope"))
        set_("eval_mode", check.check_choice(self.eval_mode, EVAL_MODES, name="eval_mode"))
        set_("answer_scope", check.check_choice(self.answer_scope, ANSWER_SCOPES, name="answer_scope"))
        if self.context_matching_threshold is not None:
            set_("context_matching_threshold", check.check_finite_in_range(
                self.context_matching_threshold, name="context_matching_threshold", low=0.0, high=100.0))
        set_("retriever_node", check.check_optional_name(self.retriever_node, name="retriever_node"))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in signature order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_keywords(cls, keywords: Mapping[str, Any], *, passed_to: str = "the metric options") -> MetricOptions:
        """The options from a call's keyword arguments; an unknown name is refused with the valid ones listed.

        Examples
        --------
        >>> MetricOptions.from_keywords({"eval_mode": "isolated"}).eval_mode
        'isolated'
        """
        check.check_keywords(keywords, cls.names(), passed_to=passed_to)
        return cls(**keywords)

    def replace(self, **changes: Any) -> MetricOptions:
        """A copy with ``changes`` applied (and checked)."""
        return replace(self, **changes)

    @property
    def criterion(self) -> str:
        """The document relevance criterion of ``document_scope`` and ``answer_scope`` (``docs/metrics.md``)."""
        return relevance_criterion(self.document_scope, self.answer_scope)

    @property
    def scopes_disagree(self) -> bool:
        """Whether document metrics ignore ``answer_scope`` (answer and document metrics then judge differently)."""
        return self.document_scope not in ("answer", "document_id_or_answer") and self.answer_scope != "any"

    def warn_if_scopes_disagree(self) -> None:
        """Warn when :attr:`scopes_disagree`: the document metrics then ignore ``answer_scope``."""
        if self.scopes_disagree:
            warn(f"document_scope={self.document_scope!r} ignores answer_scope={self.answer_scope!r} for document "
                 "metrics, so answer and document metrics may judge correctness differently; use document_scope "
                 "'answer' or 'document_id_or_answer' to apply the answer scope to documents too.")


#: The metric options metrics_at_k sets itself: the top-k from its ks, and no retriever simulation.
AT_K_SETS = ("simulated_top_k_reader", "simulated_top_k_retriever", "retriever_node")


def check_at_k(ks: Any, options: Mapping[str, Any]) -> list[int]:
    """``metrics_at_k``'s ``ks`` as sorted distinct ints, and its options without those it sets itself.

    Examples
    --------
    >>> check_at_k((10, 1, 3, 3), {"eval_mode": "isolated"})
    [1, 3, 10]
    """
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable) or not len(ks := list(ks)):
        raise InvalidParameterError(f"ks must be a non-empty list of positive ints, e.g. (1, 3, 5, 10); got {ks!r}.")
    bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1]
    if bad:
        # -1 (no cut) is not a k here: it is what calculate_metrics() gives without simulated_top_k_*
        raise InvalidParameterError(
            f"ks must hold positive ints only, e.g. (1, 3, 5, 10); got {bad[0]!r} in {ks!r}. "
            "For the metrics without a cut, call calculate_metrics()."
        )
    taken = [name for name in AT_K_SETS if name in options]
    if taken:
        raise UnknownArgumentError(
            f"metrics_at_k sets the simulated top-k from ks, so {taken[0]} cannot be passed; the options it takes: "
            f"{[name for name in MetricOptions.names() if name not in AT_K_SETS]}."
        )
    return sorted({int(k) for k in ks})


@dataclass(frozen=True)
class MatchingOptions:
    """How ``from_runs`` matches retrieved texts and answers against gold labels (recorded with the result).

    Parameters
    ----------
    context_matching_threshold : float
        Similarity (0-100) above which a retrieved text matches a gold context (Haystack 1.x's value).
    context_matching_min_length : int
        A gold context or retrieved text shorter than this (in characters, after normalisation) matches nothing
        (similarity 0).
    context_matching_boost_split_overlaps : bool
        Count a document that holds a split of the gold context as a match.
    custom_document_id_field : str, optional
        A ``meta`` field whose value identifies documents instead of their ids.

    Examples
    --------
    >>> MatchingOptions(context_matching_min_length=50).as_dict()["context_matching_min_length"]
    50
    """

    context_matching_threshold: float = _option(65.0, "similarity (0-100) above which a text matches a gold context",
                                                flag="--context-matching-threshold", parse=float, metavar="T")
    context_matching_min_length: int = _option(100, "texts shorter than this many characters match nothing",
                                               flag="--context-matching-min-length", parse=int, metavar="N")
    context_matching_boost_split_overlaps: bool = _option(True, "count a document holding a split of the gold context",
                                                          flag="--boost-split-overlaps")
    custom_document_id_field: str | None = _option(None, "meta field identifying documents instead of their ids",
                                                   flag="--custom-document-id-field", metavar="FIELD")

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        set_("context_matching_threshold", check.check_finite_in_range(
            self.context_matching_threshold, name="context_matching_threshold", low=0.0, high=100.0))
        set_("context_matching_min_length", check.check_positive_int(
            self.context_matching_min_length, name="context_matching_min_length", minimum=0))
        set_("context_matching_boost_split_overlaps", check.check_real_bool(
            self.context_matching_boost_split_overlaps, name="context_matching_boost_split_overlaps"))
        set_("custom_document_id_field", check.check_optional_name(
            self.custom_document_id_field, name="custom_document_id_field"))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names, in signature order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_keywords(cls, keywords: Mapping[str, Any], *, passed_to: str = "the matching options") -> MatchingOptions:
        """The options from a call's keyword arguments; an unknown name is refused with the valid ones listed."""
        check.check_keywords(keywords, cls.names(), passed_to=passed_to)
        return cls(**keywords)

    def as_dict(self) -> dict[str, Any]:
        """The options by name (as ``result.matching`` and ``evalframe.json`` record them)."""
        return {name: getattr(self, name) for name in self.names()}


def check_test(test: object, tests: Sequence[str] = COMPARE_TESTS) -> str:
    """``test`` by its name in ``tests`` (:data:`COMPARE_TESTS`; ranx's ``"fisher"`` and ``"student"`` are read too,
    and ``"t"``).

    Examples
    --------
    >>> check_test("student"), check_test("HSD")
    ('t-test', 'tukey')
    """
    if isinstance(test, str) and _TEST_NAMES.get(test.lower()) in tests:
        return _TEST_NAMES[test.lower()]
    if isinstance(test, str) and test.lower() in tests:
        return test.lower()
    return check.check_choice(test, tests, name="test")  # raises, naming the tests


def check_family(family: object, dimensions: Sequence[str] = CORRECTION_FAMILIES) -> tuple[str, ...]:
    """``family`` as a tuple of distinct :data:`CORRECTION_FAMILIES` (a name, a comma-separated text or a list).

    Examples
    --------
    >>> check_family("runs"), check_family("measures,runs"), check_family(["runs", "measures"])
    (('runs',), ('measures', 'runs'), ('runs', 'measures'))
    """
    given = family.split(",") if isinstance(family, str) else family
    if isinstance(given, (bytes, Mapping)) or not isinstance(given, Sequence) or not given:
        raise InvalidParameterError(
            f"family must be one of {list(dimensions)} or several of them, e.g. ['runs', 'measures']; got {family!r}.",
            parameter="family")
    chosen = []
    for name in given:
        name = name.strip().lower() if isinstance(name, str) else name
        chosen.append(check.check_choice(name, dimensions, name="family"))
    if len(set(chosen)) != len(chosen):
        raise InvalidParameterError(f"family names a dimension twice: {list(given)}.", parameter="family")
    return tuple(chosen)


def check_correction(correction: object) -> str:
    """``correction`` by its name in :data:`COMPARE_CORRECTIONS` (in any letter case, ``_`` and ``-`` alike).

    Examples
    --------
    >>> check_correction("FDR-BH"), check_correction("holm_sidak")
    ('fdr_bh', 'holm-sidak')
    """
    if isinstance(correction, str):
        folded = {name.replace("-", "_"): name for name in COMPARE_CORRECTIONS}
        found = folded.get(correction.lower().replace("-", "_"))
        if found is not None:
            return found
    return check.check_choice(correction, COMPARE_CORRECTIONS, name="correction")  # raises, naming them


def check_max_p(max_p: object) -> float | None:
    """``max_p``: None, or the p-value at or below which a delta is marked significant, in (0, 1).

    Examples
    --------
    >>> check_max_p(0.01), check_max_p(None)
    (0.01, None)
    """
    if max_p is None:
        return None
    value = check.check_number(max_p, name="max_p")
    if not 0.0 < value < 1.0:
        raise InvalidParameterError(f"max_p must lie strictly between 0 and 1, e.g. 0.05 or 0.01 (ranx's default); "
                                    f"got {max_p!r}.", parameter="max_p")
    return value


def _check_resampling(options: Any) -> None:
    """``rounds``, ``confidence`` and ``seed`` of a comparison, checked (and made plain numbers)."""
    set_ = functools.partial(object.__setattr__, options)
    set_("rounds", check.check_positive_int(options.rounds, name="rounds", minimum=1))
    confidence = check.check_number(options.confidence, name="confidence")
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must lie strictly between 0 and 1, e.g. 0.95; got {confidence}.")
    set_("confidence", confidence)
    set_("seed", check.check_positive_int(options.seed, name="seed"))


class _Options:
    """What every option set offers: its names, and itself from a call's keyword arguments."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The option names, in signature order (``names`` is an option of the comparisons)."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    @classmethod
    def from_keywords(cls, keywords: Mapping[str, Any], *, passed_to: str = "the options") -> Any:
        """The options from a call's keyword arguments; an unknown name is refused with the valid ones listed."""
        check.check_keywords(keywords, cls.option_names(), passed_to=passed_to)
        return cls(**keywords)

    @classmethod
    def take(cls, keywords: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The options of this set among ``keywords`` (checked), and the other keywords, for the next set.

        Examples
        --------
        >>> options, rest = CompareOptions.take({"rounds": 100, "eval_mode": "isolated"})
        >>> options.rounds, rest
        (100, {'eval_mode': 'isolated'})
        """
        names = cls.option_names()
        return cls(**{k: v for k, v in keywords.items() if k in names}), {
            k: v for k, v in keywords.items() if k not in names}

    def as_dict(self) -> dict[str, Any]:
        """The options by name."""
        return {name: getattr(self, name) for name in self.option_names()}


def check_ci(ci: object) -> float | None:
    """``ci``: None (no interval), or the coverage of the interval of each mean, strictly between 0 and 1.

    Examples
    --------
    >>> check_ci(0.9), check_ci(None)
    (0.9, None)
    >>> check_ci(95)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: ci must lie strictly between 0 and 1 (the coverage, e.g. 0.95 for 95%); got 95.
    """
    if ci is None:
        return None
    value = check.check_number(ci, name="ci")
    if not 0.0 < value < 1.0:
        raise InvalidParameterError(f"ci must lie strictly between 0 and 1 (the coverage, e.g. 0.95 for 95%); got {ci!r}.",
                                    parameter="ci")
    return value


@dataclass(frozen=True)
class IntervalOptions(_Options):
    """The confidence interval of every mean, when asked: ``calculate_metrics``, ``metrics_frame``, ``trec_metrics``
    (in memory and on Dask), the report of a run and ``evalframe metrics`` / ``report`` (``--ci``, ``--ci-method``,
    ``--seed``, ``--rounds``).

    Examples
    --------
    >>> options = IntervalOptions(ci=0.9, ci_method="t")
    >>> options.ci, options.ci_method, options.seed, options.rounds
    (0.9, 't', 0, 10000)
    >>> IntervalOptions(ci_method="z")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: ci_method must be one of ['bootstrap', 't']; got 'z'.
    """

    ci: float | None = _option(
        None, "add a confidence interval of this coverage to every mean, e.g. 0.95", flag="--ci", parse=float,
        metavar="LEVEL", kind="float, optional",
        doc="The coverage of a confidence interval on every mean, e.g. 0.95 (``docs/statistics.md#intervals-on-every-"
            "mean``); None: the means alone, as before. The interval is computed from the per-query values the mean "
            "averages (:meth:`query_metrics`); a measure whose number is not a mean gets it on its own scale (a sum: "
            "n times the interval of the mean; trec_eval's geometric mean gm_map: the exp of the interval of the "
            "mean of the floored logs); fewer than 2 per-query values give NaN bounds.")
    ci_method: str = _option(
        "bootstrap", "how --ci is computed: the percentile bootstrap over queries, or Student's t", flag="--ci-method",
        choices=CI_METHODS, kind="str",
        doc="``\"bootstrap\"``: the percentile bootstrap (``rounds`` resamples of the queries with replacement, drawn "
            "from ``numpy.random.default_rng(seed)``; the interval's ends are the (1 - ci) / 2 and (1 + ci) / 2 "
            "quantiles of the resampled means, numpy's linear interpolation); ``\"t\"``: mean +- t_{(1 + ci) / 2, n - 1} "
            "sd / sqrt(n) (sd with n - 1 degrees of freedom).")
    seed: int = _option(0, "seed of the bootstrap", flag="--seed", parse=int, kind="int",
                        doc="Seed of the bootstrap of ``ci``. Every metric draws from a new generator with this seed, "
                            "so the same per-query values give the same interval, whatever else is computed.")
    rounds: int = _option(ROUNDS, "bootstrap rounds", flag="--rounds", parse=int, kind="int",
                          doc="Resampling rounds of the bootstrap of ``ci``.")

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        set_("ci", check_ci(self.ci))
        set_("ci_method", check.check_choice(self.ci_method, CI_METHODS, name="ci_method"))
        set_("rounds", check.check_positive_int(self.rounds, name="rounds", minimum=1))
        set_("seed", check.check_positive_int(self.seed, name="seed"))


@dataclass(frozen=True)
class OutputOptions(_Options):
    """The kind of table a table-returning analysis gives: ``query_metrics``, ``trec_query_metrics``,
    ``metrics_frame``, :func:`evalframe.compare` and ``wrong_examples`` (in memory and on Dask).

    Examples
    --------
    >>> OutputOptions().backend, OutputOptions(backend="arrow").backend
    ('pandas', 'arrow')
    >>> OutputOptions(backend="polar")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: backend must be one of ['pandas', 'arrow', 'polars']; got 'polar'. ...
    """

    backend: str = _option(
        "pandas", None, flag=None, choices=BACKENDS, kind="str",
        doc="The table's kind: ``\"pandas\"`` (a pandas DataFrame, as before), ``\"arrow\"`` (a pyarrow Table: the "
            "frame's named index levels, such as ``multilabel_id``, become its first columns, and the pandas metadata "
            "it keeps gives the same frame back with ``table.to_pandas()``) or ``\"polars\"`` (a polars DataFrame, "
            "``polars.from_arrow`` of that table, numeric columns without a copy; polars is needed: pip install "
            "polars). ``docs/storage.md#frames-in-and-out``.")

    def __post_init__(self) -> None:
        object.__setattr__(self, "backend", check.check_choice(self.backend, BACKENDS, name="backend"))


@dataclass(frozen=True)
class ExamplesOutputOptions(_Options):
    """What ``wrong_examples`` gives (in memory and on Dask): the list of dicts (None, as before) or a table of them.

    Examples
    --------
    >>> ExamplesOutputOptions().backend is None, ExamplesOutputOptions(backend="polars").backend
    (True, 'polars')
    """

    backend: str | None = _like(
        OutputOptions, "backend", default=None, kind="str, optional",
        doc="None: the worst queries as a list of dicts (an :class:`evalframe.analysis.examples.Examples`, as "
            "before); ``\"pandas\"``, ``\"arrow\"`` or ``\"polars\"``: the same dicts as a table of that kind, one row "
            "per query in the list's order, one column per key (``multilabel_id``, ``query``, ``metrics``, the rows "
            "listed, the gold ...): the nested dicts and lists as pandas cells, or as Arrow / polars structs and lists "
            "(``pyarrow.Table.from_pylist``; polars needs pip install polars).")

    def __post_init__(self) -> None:
        if self.backend is not None:
            object.__setattr__(self, "backend", check.check_choice(self.backend, BACKENDS, name="backend"))


@dataclass(frozen=True)
class ReportOptions(_Options):
    """What the report of a run takes: ``result.report``, :func:`evalframe.report.reports.build_report`, ``evalframe report``.

    Examples
    --------
    >>> ReportOptions(n=1).wrong_examples_fields
    ('answer', 'context', 'document_id')
    >>> ReportOptions(n=0)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: n (worst queries per node) must be an int >= 1; got 0.
    """

    n: int = _option(3, "worst queries per node, >= 1", flag="-n", parse=Count("how many queries to list"), kind="int",
                     doc="The worst queries listed per node (those scoring at most the threshold, worst first).")
    node_order: list[str] | None = _option(
        None, "comma-separated node names, e.g. Retriever,Reader", flag="--node-order", many="comma",
        kind="list of str, optional",
        doc="The nodes in pipeline order; by default nodes with document rows only come first (retrievers feed "
            "readers), else in the result's order.")
    max_characters_per_field: int = _option(150, None, flag=None, kind="int",
                                            doc="Longer field values are cut, ending in \"...\".")
    charts: bool = _option(True, None, flag=None, kind="bool",
                           doc="Draw each document node's recall@k chart, which the HTML page embeds (needs "
                               "matplotlib); the other formats show none.")
    metrics_filter: Mapping[str, Sequence[str]] | None = _option(
        None, None, flag=None, kind="dict of node to list of str, optional",
        doc="The metrics shown per node in the funnel (Haystack 1.x's ``metrics_filter``); None shows all.")
    document_scope: DocumentScope = _like(
        MetricOptions, "document_scope", kind="str",
        doc="What makes a document relevant (``docs/metrics.md#relevance-criterion``): every number is computed under "
            "it and the report states it; each listed document is marked when it counts as correct under it.")
    answer_scope: AnswerScope = _like(
        MetricOptions, "answer_scope", kind="str",
        doc="Where a matching answer must come from: ``any``, ``context``, ``document_id`` or "
            "``document_id_and_context``; the report states it.")
    wrong_examples_fields: Sequence[str] = _option(
        WRONG_EXAMPLES_FIELDS, None, flag=None, kind="list of str",
        doc="The fields shown for each listed answer / document of the worst queries (None: these).")
    measures: str | Sequence[str] | None = _option(
        None, "a trec_eval measure for the document nodes' funnel, e.g. nDCG@10 (repeatable; the first ranks their "
        "worst queries)", flag="--measure", short="-m", many="repeat", metavar="MEASURE",
        kind="str or list of str, optional",
        doc="trec_eval measures (:meth:`EvaluationResult.trec_metrics`, e.g. ``[\"nDCG@10\", \"AP\"]``) shown in the "
            "funnel of the document nodes; the first one also ranks their worst queries (instead of the headline "
            "metric).")
    complete: bool = _option(False, None, flag=None, kind="bool",
                             doc="For ``measures``, as in :meth:`EvaluationResult.trec_metrics`: a query of the "
                                 "qrels without retrieved documents scores 0 (``trec_eval -c``).")
    duplicates: str = _option("error", None, flag=None, kind="str",
                              doc="For ``measures``, as in :meth:`EvaluationResult.trec_metrics`: a document ranked "
                                  "twice in a query is refused (``\"error\"``, trec_eval's rule) or kept at its first "
                                  "rank (``\"first\"``).")
    metric: str | None = _option(
        None, None, flag=None, kind="str, optional",
        doc="Rank the worst queries of each node whose funnel shows it by this metric instead (a declared score "
            "too, worst first by its direction: :meth:`EvaluationResult.wrong_examples`' ``metric=``).")
    ci: float | None = _like(IntervalOptions, "ci", doc="The coverage of an interval on each integrated value of the "
                             "funnel (its mean over the queries), e.g. 0.95, as ``calculate_metrics(ci=...)``; the "
                             "report states the method and seed. None: no interval.")
    ci_method: str = _like(IntervalOptions, "ci_method", doc="How ``ci`` is computed: ``\"bootstrap\"`` (percentile) "
                           "or ``\"t\"``, as in ``calculate_metrics``.")
    # one --seed and --rounds in evalframe report: the single report's intervals, the comparison's resampling
    seed: int = _like(IntervalOptions, "seed", help="seed of the resampling")
    rounds: int = _like(IntervalOptions, "rounds", help="bootstrap / randomization rounds")

    @property
    def intervals(self) -> IntervalOptions:
        """The interval options of the report."""
        return IntervalOptions(ci=self.ci, ci_method=self.ci_method, seed=self.seed, rounds=self.rounds)

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        checked = self.intervals
        for name in ("ci", "ci_method", "seed", "rounds"):
            set_(name, getattr(checked, name))
        set_("n", check.check_positive_int(self.n, name="n (worst queries per node)", minimum=1))
        set_("max_characters_per_field", check.check_positive_int(self.max_characters_per_field,
                                                                  name="max_characters_per_field", minimum=1))
        set_("document_scope", check.check_choice(self.document_scope, DOCUMENT_SCOPES, name="document_scope"))
        set_("answer_scope", check.check_choice(self.answer_scope, ANSWER_SCOPES, name="answer_scope"))
        fields_ = WRONG_EXAMPLES_FIELDS if self.wrong_examples_fields is None else self.wrong_examples_fields
        if isinstance(fields_, str) or not isinstance(fields_, (list, tuple)) or not all(isinstance(f, str) for f in fields_):
            raise InvalidParameterError(f"wrong_examples_fields must be a list of row fields, e.g. "
                                        f"{list(WRONG_EXAMPLES_FIELDS)}; got {fields_!r}.")
        set_("wrong_examples_fields", tuple(fields_))
        if self.metric is not None and not isinstance(self.metric, str):
            raise InvalidParameterError(f"metric must be a metric name (str); got {type(self.metric).__name__}.",
                                        parameter="metric")


@dataclass(frozen=True)
class CompareOptions(_Options):
    """What a comparison of runs takes: :func:`evalframe.compare` (results, per-query tables, TREC runs),
    ``evalframe.dask.compare`` and ``evalframe compare``.

    Examples
    --------
    >>> CompareOptions(test="student").test, CompareOptions().rounds
    ('t-test', 10000)
    """

    node: str | None = _option(None, "the node to compare (needed when the runs share several)", flag="--node",
                               kind="str, optional",
                               doc="The node to compare; may be omitted when the runs share exactly one node.")
    metrics: Sequence[str] | str | None = _option(
        None, "comma-separated metrics (default: all the runs share; with --qrels: evalframe trec's default "
        "measures); trec_eval measures too, e.g. nDCG@10,AP", flag="--metrics", many="comma",
        kind="str or list of str, optional",
        doc="The metric columns to compare, all those the runs share by default. trec_eval measures (ir_measures' "
            "names such as ``\"nDCG@10\"``, trec_eval's and pytrec_eval's such as ``\"ndcg_cut_10\"``, ``\"map\"``) are "
            "computed for results (:meth:`EvaluationResult.trec_metrics`) and compared on the queries trec_eval "
            "evaluates in both runs; TREC runs are compared on them only, by default on "
            ":data:`evalframe.trec_compare.TREC_MEASURES`. The table names them canonically.")
    names: Sequence[str] | None = _option(
        None, "comma-separated run names (default: the folder or file names)", flag="--names", many="comma",
        kind="list of str, optional",
        doc="A name per run (default \"A\", \"B\", \"C\", ...), used for the index of more than two runs.")
    rounds: int = _option(ROUNDS, "bootstrap / randomization rounds", flag="--rounds", parse=int, kind="int",
                          doc="Resampling rounds of the bootstrap and the randomization test.")
    confidence: float = _option(0.95, None, flag=None, kind="float",
                                doc="Coverage of the bootstrap interval of the delta.")
    seed: int = _option(0, "seed of the resampling", flag="--seed", parse=int, kind="int",
                        doc="Seed of the resampling. The rows with the same number of paired queries share one draw "
                            "made from this seed and that number, so equal per-query differences give equal intervals "
                            "and p-values, whatever else is compared.")
    complete: bool = _option(
        False, "a query of the qrels missing from a run scores 0 for it (trec_eval -c); by default it is left out of "
        "every run's statistics, with a warning", flag="--complete", short="-c", kind="bool",
        doc="For trec_eval measures and TREC runs: a query of the qrels missing from a run. False: skipped, as "
            "trec_eval 9.x and pytrec_eval do; as the tests pair queries, it is then left out of every run's "
            "statistics (with a warning naming it), so that every run is compared on the same queries. True: scored "
            "0 for that run (``trec_eval -c``, ranx's ``make_comparable=True``), so every run is compared on every "
            "query of the qrels. A query of a run that the qrels do not judge is skipped either way, as by "
            "trec_eval.")
    duplicates: str = _option("error", None, flag=None, kind="str",
                              doc="For trec_eval measures of results, as in :meth:`EvaluationResult.trec_metrics`: a "
                                  "document ranked twice in a query is refused (``\"error\"``) or kept at its first "
                                  "rank (``\"first\"``).")
    test: str = _option(
        "randomization", "the paired test whose p-value marks a delta significant, Holm-corrected with 3+ runs",
        flag="--test", choices=COMPARE_TESTS, kind="str",
        doc="The paired test whose p-value ``p_holm`` corrects (more than two runs) and ``significant`` reads: "
            "``\"randomization\"`` (the paired randomization test, ``p_value``) or ``\"t-test\"`` (the paired t-test, "
            "``p_ttest``); ranx's names ``\"fisher\"`` and ``\"student\"`` are read too. Both p-values are in the "
            "table either way; ``\"wilcoxon\"`` (the Wilcoxon signed-rank test, as ``scipy.stats.wilcoxon``: zero "
            "differences dropped, its default ``zero_method=\"wilcox\"``; the column ``p_wilcoxon``), ``\"sign\"`` "
            "(the sign test of wins against losses, ties dropped, as ``scipy.stats.binomtest(wins, wins + losses)``; "
            "the column ``p_sign``) or ``\"bootstrap\"`` (the paired bootstrap test of the mean difference, shift "
            "method; the column ``p_bootstrap``) add their column. Two tests compare all pairs of the runs at once, "
            "per metric, on the queries every run scored, and imply ``pairs=\"all\"``: ``\"tukey\"`` (Tukey's HSD as "
            "``scipy.stats.tukey_hsd`` and ranx's ``stat_test=\"tukey\"``, the runs' values taken as independent "
            "groups; the column ``p_tukey``) and ``\"randomized-tukey\"`` (the randomized Tukey HSD: the runs' values "
            "permuted within each query, ``rounds`` times from ``seed``; the column ``p_randomized_tukey``). Their "
            "p-values are adjusted over the pairs of each metric already, so ``correction`` adjusts them over the "
            "measures only (``family=\"measures\"``), and another correction than the default over runs is refused.")
    zero_method: str = _option(
        "wilcox", "how --test wilcoxon treats zero differences (scipy's zero_method)", flag="--zero-method",
        choices=ZERO_METHODS, kind="str",
        doc="How ``test=\"wilcoxon\"`` treats the queries whose difference is 0, as ``scipy.stats.wilcoxon``'s "
            "``zero_method``: ``\"wilcox\"`` (scipy's default: dropped), ``\"pratt\"`` (ranked with the others, "
            "then their ranks dropped) or ``\"zsplit\"`` (their ranks split between both signs).")
    correction: str = _option(
        "holm", "how the test's p-values are corrected over the runs compared with the first, per metric (3+ runs)",
        flag="--correction", choices=COMPARE_CORRECTIONS, kind="str",
        doc="With more than two runs, how the test's p-values are corrected over the comparisons of each metric (the "
            "runs compared with the first), as statsmodels' ``multipletests``: ``\"holm\"`` (the column "
            "``p_holm``), ``\"bonferroni\"``, ``\"holm-sidak\"``, ``\"fdr_bh\"`` (Benjamini-Hochberg), ``\"fdr_by\"`` "
            "(Benjamini-Yekutieli), each in the column ``p_<correction>`` (``p_bonferroni``, ``p_holm_sidak``, "
            "``p_fdr_bh``, ``p_fdr_by``) that ``significant`` then reads, or ``\"none\"`` (no column; "
            "``significant`` reads the test's own p-value).")
    pairs: str = _option(
        "first", "which runs are paired: each with the first, or all pairs (implied by --test tukey / "
        "randomized-tukey)", flag="--pairs", choices=COMPARE_PAIRS,
        kind="str",
        doc="Which runs are compared: ``\"first\"`` (each with the first run, the baseline; the index is ``metric`` "
            "for two runs, ``(run, metric)`` for more) or ``\"all\"`` (every pair of runs i < j in the order given, "
            "as ranx's table; the index is ``(run_a, run_b, metric)``, ``mean_a`` being run_a's mean; implied by "
            "``test=\"tukey\"`` and ``\"randomized-tukey\"``).")
    family: str | Sequence[str] = _option(
        "runs", "comma-separated dimensions the correction's family spans: runs, measures, slices (with --by, whose "
        "default is runs,slices), or several, e.g. slices,measures",
        flag="--family", many="comma", kind="str or list of str",
        doc="Over which comparisons ``correction`` adjusts the p-values: ``\"runs\"`` (the comparisons of each metric: "
            "the runs compared with the first, or all pairs), ``\"measures\"`` (the metrics of each pair of runs) or "
            "``\"slices\"`` (the slices of ``by``, per metric and pair of runs) or several of them, their "
            "product (``[\"runs\", \"measures\"]``: every comparison of the table at once, without ``by``). "
            "The default is ``\"runs\"``, and ``[\"runs\", \"slices\"]`` with ``by``. A family of a single "
            "comparison needs no correction: the column is added when some family holds more than one. With "
            "``test=\"tukey\"`` or ``\"randomized-tukey\"`` the runs are the test's own family: the correction "
            "spans the measures of each pair when ``family`` names them, and nothing otherwise.")
    by: Any = _option(
        None, "the statistics per slice of the queries by this key, e.g. no_answer, filters.<field>, meta.<field> "
        "(repeatable; the correction then spans the slices: --family)", flag="--by", many="repeat", metavar="KEY",
        kind="str, callable, Series, dict or list of these, optional",
        doc="Slice keys, as :meth:`EvaluationResult.sliced_metrics` takes them (``\"no_answer\"``, "
            "``\"filters.<field>\"``, ``\"meta.<field>\"``, a column, a callable over the per-query table, a Series "
            "or dict from multilabel_id to label, or a list of these): the table gets a first index level ``slice`` "
            "(a label, or a tuple of labels for several keys), one row per slice and comparison, each the statistics "
            "of that slice's paired queries (docs/statistics.md#significance-per-slice). A query the runs label "
            "differently is in the slice of its label in the first run that holds it (with a warning). Without "
            "``family`` the correction then spans the slices and the runs of each metric "
            "(``[\"runs\", \"slices\"]``).")
    max_p: float | None = _option(
        None, "add the column 'significant': the test's p-value (p_holm with 3+ runs) <= P (default with --qrels: "
        "0.05; ranx's is 0.01)", flag="--max-p", parse=float, metavar="P", kind="float, optional",
        doc="Adds the column ``significant``: the test's p-value (``p_holm`` with more than two runs) is at most "
            "``max_p`` (ranx's rule). None: no such column for results and tables; TREC runs get it at "
            ":data:`evalframe.trec_compare.MAX_P` (0.05).")

    def __post_init__(self) -> None:
        _check_resampling(self)
        object.__setattr__(self, "test", check_test(self.test))
        object.__setattr__(self, "correction", check_correction(self.correction))
        object.__setattr__(self, "zero_method", check.check_choice(self.zero_method, ZERO_METHODS, name="zero_method"))
        object.__setattr__(self, "pairs", check.check_choice(self.pairs, COMPARE_PAIRS, name="pairs"))
        object.__setattr__(self, "family", check_family(self.family))
        if "slices" in self.family and self.by is None:
            raise InvalidParameterError(
                f"family {list(self.family)} spans the slices, which only a comparison per slice has; pass by=<slice "
                "key>, e.g. by='meta.topic' (--by meta.topic), or leave 'slices' out.", parameter="family")
        object.__setattr__(self, "max_p", check_max_p(self.max_p))
        if self.test in ALL_PAIRS_TESTS:
            # a test of all pairs at once: its p-values are adjusted over the pairs of each metric already, so a
            # correction can only span the measures; one that would change nothing is refused rather than ignored
            object.__setattr__(self, "pairs", "all")
            if "measures" not in self.family and self.correction not in ("holm", "none"):
                raise InvalidParameterError(
                    f"test={self.test!r} adjusts its p-values over the pairs of runs of each metric itself, so "
                    f"correction={self.correction!r} can only adjust them over the measures: pass family='measures' "
                    "(--family measures) as well, or leave correction out.", parameter="correction")
            if self.by is not None:
                raise InvalidParameterError(
                    f"test={self.test!r} tests all pairs of runs at once on the queries every run scored, not per "
                    "slice; per slice, pass a paired test (test='t-test', 'randomization', 'wilcoxon', 'sign' or "
                    "'bootstrap'), with pairs='all' (--pairs all) for every pair of runs.", parameter="test")


@dataclass(frozen=True)
class ComparisonReportOptions(_Options):
    """What the comparative report takes: :func:`evalframe.compare_report`, the comparison of ``evalframe report
    RUN_A RUN_B``. Its test marks significance at ``max_p`` by default, the paired t-test's.

    Examples
    --------
    >>> options = ComparisonReportOptions(test="t")
    >>> options.test, options.max_p, options.n
    ('t-test', 0.05, 20)
    """

    names: Sequence[str] | None = _like(
        CompareOptions, "names",
        doc="A name per run, for a list of runs (default \"A\", \"B\", ...; a dict's keys name its runs).")
    nodes: Sequence[str] | None = _option(None, None, flag=None, kind="list of str, optional",
                                          doc="The nodes compared; every node the runs share by default.")
    metrics: Sequence[str] | str | None = _like(
        CompareOptions, "metrics", flag="--metric", many="repeat", metavar="METRIC",
        help="a measure to compare (repeatable; default: all the runs share)",
        doc="The measures compared (Haystack metrics, trec_eval measures such as ``\"nDCG@10\"``, declared scores); "
            "all those the runs share by default. A node is left out when it has none of them.")
    by: str | Sequence[str] | None = _option(
        None, "a slice key the query grid shows and filters by, e.g. no_answer, filters.<field>, meta.<field> "
        "(repeatable)", flag="--by", many="repeat", metavar="KEY", kind="str or list of str, optional",
        doc="Slice keys (``\"no_answer\"``, ``\"filters.<field>\"``, ``\"meta.<field>\"``, as :meth:`query_metrics` "
            "takes) whose labels the grid shows and filters by.")
    test: str = _like(
        CompareOptions, "test", default="t-test",
        doc="The paired test of :func:`evalframe.compare` whose p-value marks a delta significant: ``\"t-test\"`` "
            "(``\"t\"``, ranx's ``\"student\"``) or ``\"randomization\"``; with more than two runs its p-values are "
            "Holm-corrected over the runs of each measure.")
    max_p: float = _like(CompareOptions, "max_p", default=0.05, kind="float",
                         help="a delta whose p-value is at most P is marked significant",
                         doc="A delta whose p-value is at most this is marked significant.")
    power: float = _option(
        0.8, "the power of each measure's detectable change: 'with N questions a change of X would be detected 80%% "
        "of the time' (two runs; paired t-test at --max-p)", flag="--power", parse=float, metavar="P", kind="float",
        doc="With two runs, each measure's line says which change its queries detect with this probability "
            "(:func:`evalframe.power`'s ``mde``: the two-sided paired t-test at level ``max_p``, the per-query "
            "differences spread as in these runs), in (max_p, 1).")
    n: int = _option(20, None, flag=None, kind="int",
                     doc="The worst queries the text and Markdown list per node (the HTML grid holds every query).")
    page_characters: int | None = _option(
        None, "keep each text's first N characters in the HTML page, whatever its size (0: no texts; default: the "
        "answers whole up to 1,000 characters, the passages cut to fit a page under 5 MB)", flag="--page-characters",
        parse=Count("characters of each text the HTML page keeps", minimum=0), metavar="N", kind="int, optional",
        doc="What the HTML page holds of each text of the drill-down (answers, gold answers, passages): None fits "
            "them to the page (the answers whole up to 1,000 characters, the passages the longest common length "
            "that keeps the page under 5 MB: ``docs/compare-report.md#the-page``); N keeps each text's first N "
            "characters whatever the page's size (0: no texts; ``evalframe serve`` shows every text whole).")
    rounds: int = _like(CompareOptions, "rounds")
    confidence: float = _like(CompareOptions, "confidence")
    seed: int = _like(CompareOptions, "seed")

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        # the report compares each run with the first: the tests of all pairs at once are compare's
        set_("test", check_test(self.test, [test for test in COMPARE_TESTS if test not in ALL_PAIRS_TESTS]))
        if self.max_p is None:
            raise InvalidParameterError("max_p must be a p-value in (0, 1), e.g. 0.05.", parameter="max_p")
        set_("max_p", check_max_p(self.max_p))
        power = self.power
        if isinstance(power, bool) or not isinstance(power, numbers.Real) or not self.max_p < float(power) < 1.0:
            raise InvalidParameterError(f"power must be a probability in (max_p, 1) = ({self.max_p:g}, 1), the chance "
                                        f"of detecting a change, e.g. 0.8; got {power!r}.", parameter="power")
        set_("power", float(power))
        set_("n", check.check_positive_int(self.n, name="n (worst queries per node)", minimum=1))
        if self.page_characters is not None:
            set_("page_characters", check.check_positive_int(self.page_characters, name="page_characters", minimum=0))
        _check_resampling(self)


def _entry(option: Any, indent: str) -> list[str]:
    """The numpydoc entry of ``option`` (a dataclass field): ``name : kind, default value`` and its description."""
    kind = option.metadata.get("kind")
    head = option.name + (f" : {kind}" if kind else "")
    if kind and option.default is not None and "optional" not in kind:
        head += f", default {option.default!r}"
    text = option.metadata.get("doc") or option.metadata.get("help") or ""
    return [indent + head, *textwrap.wrap(text, width=116 - len(indent), initial_indent=indent + "    ",
                                          subsequent_indent=indent + "    ", break_on_hyphens=False)]


def with_parameters(doc: str | None, options: Sequence[Any]) -> str | None:
    """``doc`` (a numpydoc docstring) with an entry per option (dataclass fields) in its Parameters section: before
    an entry of ``**keywords`` there, else at its end; a Parameters section is added before the first section when
    there is none.

    Examples
    --------
    >>> doc = "Run it.\\n\\n    Examples\\n    --------\\n    >>> 1\\n    1\\n    "
    >>> print(with_parameters(doc, [f for f in fields(CompareOptions) if f.name == "seed"]))  # doctest: +ELLIPSIS
    Run it.
    <BLANKLINE>
        Parameters
        ----------
        seed : int, default 0
            Seed of the resampling. ...
    <BLANKLINE>
        Examples
    ...
    """
    if doc is None or not options:
        return doc
    lines = doc.split("\n")
    indent = " " * min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=0)
    entries = [line for option in options for line in _entry(option, indent)]
    headings = [i for i in range(len(lines) - 1) if lines[i].strip() and re.fullmatch(r"-+", lines[i + 1].strip())
                and len(lines[i + 1].strip()) == len(lines[i].strip())]
    parameters = next((i for i in headings if lines[i].strip() == "Parameters"), None)
    if parameters is None:
        at = headings[0] if headings else len(lines) - (not lines[-1].strip())
        lines[at:at] = [*([""] if lines[at - 1].strip() else []), indent + "Parameters", indent + "----------", *entries,
                        ""]
        return "\n".join(lines)
    end = next((i for i in headings if i > parameters), len(lines))
    while end > parameters + 2 and not lines[end - 1].strip():
        end -= 1
    at = next((i for i in range(parameters + 2, end) if lines[i].startswith(indent + "**")), end)
    lines[at:at] = entries
    return "\n".join(lines)


def with_options(*options: type, without: tuple[str, ...] = (), positional: tuple[str, ...] | None = None,
                 documented: tuple[type, ...] = ()) -> Callable[[_F], _F]:
    """Give a ``(..., **options)`` function the signature of its options, for ``help()``, Jupyter and the docs.

    The function still receives ``**options`` and builds each set of ``options`` (:class:`MetricOptions`,
    :class:`MatchingOptions`, :class:`ReportOptions`, :class:`CompareOptions`, ... in this order, a name shown
    once) from them; the options named in ``without`` and those the function sets itself (an explicit parameter
    of the same name) are left out. The options of the sets in ``documented`` get their entry in the docstring's
    Parameters section (:func:`with_parameters`): a parameter is described once, where it is declared.

    ``positional`` is the order in which the parameters may also be passed by position (Haystack 1.x's
    signatures, e.g. ``calculate_metrics(-1, 3)``): the function's own parameters and options interleaved. The
    returned function then maps positional arguments onto those names before calling the function, with
    Python's own errors for too many or repeated arguments.
    """

    def decorate(method: _F) -> _F:
        signature = inspect.signature(method)
        own = {p.name: p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD}
        taken = set(own) | set(without)
        chosen: dict[str, tuple[Any, type]] = {}
        for kind in options:
            for f in fields(kind):
                if f.name not in taken:
                    chosen.setdefault(f.name, (f, kind))  # the first set naming an option declares it
        added = {name: inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
                 for name, (f, _) in chosen.items()}
        method.__doc__ = with_parameters(method.__doc__, [f for f, kind in chosen.values() if kind in documented])
        if positional is None:
            method.__signature__ = signature.replace(  # type: ignore[attr-defined]
                parameters=[*own.values(), *added.values()])
            return method
        by_position = [(own.get(name) or added[name]).replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
                       for name in positional]
        rest = [p for name, p in {**own, **added}.items() if name not in positional]
        shown = signature.replace(parameters=by_position + rest)
        names = tuple(positional)

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            if len(args) > len(names):
                raise TypeError(f"{method.__qualname__}() takes at most {len(names)} positional arguments "
                                f"({', '.join(names)}); got {len(args)}.")
            for name, value in zip(names, args):
                if name in kwargs:
                    raise TypeError(f"{method.__qualname__}() got multiple values for argument {name!r}")
                kwargs[name] = value
            return method(**kwargs)

        call.__signature__ = shown  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate


for _described in (ReportOptions, CompareOptions, ComparisonReportOptions, IntervalOptions, OutputOptions,
                   ExamplesOutputOptions):  # each field's entry, written once
    _described.__doc__ = with_parameters(_described.__doc__, fields(_described))
