"""The options of the analyses and of building frames, each defined once: name, default, check, help.

:class:`MetricOptions` is what every analysis takes as keyword arguments (``calculate_metrics``,
``query_metrics``, ``sliced_metrics``, ``wrong_examples``, ``metrics_at_k``, :func:`evalframe.compare`,
the plots and the command line); :class:`MatchingOptions` is how ``from_runs`` matches retrieved
texts against gold labels. Signatures, command-line flags and docs are generated from the fields, so
a default is written here and nowhere else.

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from . import _validation as check
from .errors import InvalidParameterError, UnknownArgumentError, warn
from .columns import ANSWER_SCOPES, DOCUMENT_SCOPES, EVAL_MODES, AnswerScope, DocumentScope, EvalMode, relevance_criterion

__all__ = ["MetricOptions", "MatchingOptions", "AT_K_SETS", "THRESHOLD", "with_options"]

#: wrong_examples (and ``evalframe worst``, the report) lists the queries scoring at most this, unless told otherwise.
THRESHOLD = 0.5

_F = TypeVar("_F", bound=Callable[..., Any])


def _option(default: Any, help: str, *, flag: str, choices: tuple[str, ...] | None = None,
            parse: Callable[[str], Any] | None = None, metavar: str | None = None) -> Any:
    """A dataclass field with what the command line and the docs need: flag, choices, parser, metavar and help."""
    return field(default=default, metadata={"help": help, "flag": flag, "choices": choices, "parse": parse,
                                            "metavar": metavar})


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


def with_options(options: type, *, without: tuple[str, ...] = (),
                 positional: tuple[str, ...] | None = None) -> Callable[[_F], _F]:
    """Give a ``(..., **options)`` function the signature of its options, for ``help()``, Jupyter and the docs.

    The function still receives ``**options`` and builds ``options`` (:class:`MetricOptions` or
    :class:`MatchingOptions`) from them; the options named in ``without`` and those the function sets
    itself (an explicit parameter of the same name) are left out.

    ``positional`` is the order in which the parameters may also be passed by position (Haystack 1.x's
    signatures, e.g. ``calculate_metrics(-1, 3)``): the function's own parameters and options interleaved. The
    returned function then maps positional arguments onto those names before calling the function, with
    Python's own errors for too many or repeated arguments.
    """

    def decorate(method: _F) -> _F:
        signature = inspect.signature(method)
        own = {p.name: p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD}
        taken = set(own) | set(without)
        added = {f.name: inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
                 for f in fields(options) if f.name not in taken}
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
