"""The reports' models: what the report of a run (:class:`ReportModel`) and the comparison of runs
(:class:`ComparisonModel`) say, built once; each format (:data:`evalframe.report.formats.FORMATS`) only lays them out
as text, HTML, Markdown or JSON.

Built from the public analyses only (``calculate_metrics``, ``wrong_examples``, ``trec_metrics``, ``metrics_at_k``),
so its numbers are those of the library. Every number is computed here; a renderer formats it.

Examples
--------
>>> from evalframe import load_demo_result
>>> model = build_model(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> model.funnel[0].node, [row.metric for row in model.funnel[0].rows]
('Retriever', ['mrr'])
>>> model.sections[0].metric, len(model.sections[0].queries)
('recall_single_hit', 1)
"""

from __future__ import annotations

import base64
import dataclasses
import io
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import Any, cast

import numpy as np
import pandas as pd

from .._version import __version__
from .._validation import check_keywords, did_you_mean
from ..analysis.compare import p_column_of  # the slice view's marked p-value
from ..analysis.aggregate import means, partial
from ..analysis.compare import TESTS, compare, is_result, measure_names, paired_differences, scores_of_runs
from ..analysis.power import power_row
from ..analysis.examples import NO_ANSWER
from ..analysis.protocol import ResultLike, ResultSource
from ..analysis.intervals import Estimate, interval_note, mean_intervals
from ..options import THRESHOLD, ComparisonReportOptions, IntervalOptions, MetricOptions, ReportOptions, with_options
from ..columns import ANSWER_SCOPE_MEANINGS, CRITERIA, MATCH_MEANINGS, answer_metric_column, relevance_column, \
    relevance_criterion
from ..errors import InvalidParameterError, SchemaError, warn
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, METRICS, SYMBOLS, Metric, format_bounds
from ..metrics.trec import describe_measure, direction_of, parse_measures
from ..schema import skipped_note
from . import plots
from .drill import Detail, Grid, Rows, build_detail, empty_rows, node_rows, rows_of, texts

__all__ = ["ComparedMeasure", "ComparedNode", "ComparisonModel", "DrillRow", "GridQuery", "RunDelta", "WorseQuery",
           "build_comparison_model", "check_comparison_options", "measure_direction",
           "Definition", "Definitions", "FunnelNode", "FunnelRow", "Listed", "NoAnswerCount", "Note", "ReportModel",
           "Section", "TrecCount", "WorstQuery", "build_model", "comparison_includes", "no_answer_counts", "scope_note",
           "MODES", "NO_CHARTS", "ONE_ANSWER"]

MODES = ("integrated: each node on the output of the nodes before it; top-1: the reader's first answer only; "
         "isolated: the node on the gold documents (an upper bound)")
#: What the report says where its charts would be, when matplotlib (the ``plots`` extra) is not installed.
NO_CHARTS = "no charts: matplotlib is not installed; pip install 'evalframe[plots]'"
#: Why a node giving at most one answer per query has no top-1 value (the report's top-1 cell is left empty).
ONE_ANSWER = "one answer per query: top-1 is the integrated value"


# ---------------------------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class FunnelRow:
    """One metric of one node in the funnel: its integrated value, the reader's top-1 value (answer nodes) and the
    isolated upper bound (nodes evaluated isolated), None where the report shows none."""

    metric: str
    description: str
    integrated: float
    top1: float | None
    isolated: float | None
    above_one: bool  # one of the values exceeds 1 (Haystack's map / ndcg with duplicate documents)
    answerable: float | None = None  # a document metric's integrated value over the answerable queries only
    interval: tuple[float, float] | None = None  # the integrated value's confidence interval (report(ci=...))


@dataclass(frozen=True)
class FunnelNode:
    """A node of the funnel, in pipeline order, with the metrics shown (``metrics_filter``)."""

    node: str
    answer_node: bool
    rows: tuple[FunnelRow, ...]
    one_answer: bool = False  # an answer node with at most one answer per query: its top-1 is its integrated value

    @property
    def top1_note(self) -> str:
        """Why the node's top-1 cells are empty (:data:`ONE_ANSWER`), or ``""``."""
        return ONE_ANSWER if self.one_answer else ""


@dataclass(frozen=True)
class TrecCount:
    """A document node whose funnel holds trec_eval ``measures``: means over the ``queries`` trec_eval evaluates."""

    node: str
    queries: int


@dataclass(frozen=True)
class NoAnswerCount:
    """A document node's queries and how many of them are no-answer queries (no gold answer, no gold document):
    every document metric scores those 1.0 (Haystack 1.x's definition) and each mean counts them
    (:meth:`evalframe.EvaluationResult.no_answer_summary`)."""

    node: str
    queries: int
    no_answer_queries: int

    def sentence(self) -> str:
        """What the node's document-metric means include, for a person (the report, ``evalframe metrics``)."""
        n, total = self.no_answer_queries, self.queries
        if n == 0:
            return f"{self.node}: none of its {total} queries is a no-answer query; its document metrics are means " \
                   "over answerable queries."
        one = n == 1
        return (f"{self.node}: {n} of {total} queries {'is a no-answer query' if one else 'are no-answer queries'} "
                f"(no gold answer, no gold document); every document metric scores {'it' if one else 'them'} 1.0 "
                f"(Haystack's definition) and each mean counts {'it' if one else 'them'}; 'answerable only' is the "
                f"mean over the other {total - n}.")


@dataclass(frozen=True)
class Listed:
    """One of the first three answers / documents of a worst query, its fields cut for a person."""

    rank: Any  # an int where the row's rank is a whole number, else as stored (None when missing)
    correct: bool | None  # judged correct under the report's scopes; None when the row does not say
    why: str  # what it matched ("" when nothing to say)
    fields: tuple[tuple[str, str], ...]  # (field, value as shown) in the order of wrong_examples_fields


@dataclass(frozen=True)
class WorstQuery:
    """A worst query: its text and gold as shown, its value of the section's metric and its listed rows."""

    query: str
    value: float
    gold: str
    listed: tuple[Listed, ...]


@dataclass(frozen=True)
class Section:
    """The worst queries of one node by ``metric`` (those scoring at most ``threshold``, or at least it when lower is
    better: ``direction``), with its recall@k chart (a base64 PNG; None without charts, matplotlib or document rows)."""

    node: str
    answer_node: bool
    metric: str
    threshold: float
    chart: str | None
    queries: tuple[WorstQuery, ...]
    direction: str = "higher"  # the metric's (never "none": a count has no worst queries)
    chart_note: str = ""  # why a chart asked for is not there (:data:`NO_CHARTS`), else ""

    @property
    def at_worst(self) -> str:
        """How a worst query's value compares with ``threshold``: ``"<="``, or ``">="`` when lower is better."""
        return ">=" if self.direction == "lower" else "<="


@dataclass(frozen=True)
class Definition:
    """A metric the report shows: its one line, and a registered metric's formula, edge rule and bounds as the
    registry's inline markdown ("" for a trec_eval measure)."""

    metric: str
    description: str
    details: str


@dataclass(frozen=True)
class Definitions:
    """The report's last section: what the scopes and every metric shown mean."""

    relevant_document: str
    correct_answer: str
    modes: str
    metrics: tuple[Definition, ...]
    symbols: tuple[tuple[str, str], ...]  # the formulas' symbols, when a document metric is defined; else empty


@dataclass(frozen=True)
class Note:
    """A warning the analyses gave while the report was built (each said once)."""

    category: type[Warning]
    message: str


@dataclass(frozen=True)
class ReportModel:
    """Everything the report of a run says; each format lays it out (:data:`evalframe.report.formats.FORMATS`)."""

    version: str
    nodes: tuple[str, ...]
    document_scope: str
    answer_scope: str
    measures: tuple[str, ...]
    funnel: tuple[FunnelNode, ...]
    trec_counts: tuple[TrecCount, ...]
    above_one: bool  # some funnel value exceeds 1
    sections: tuple[Section, ...]
    definitions: Definitions
    notes: tuple[Note, ...]
    no_answer: tuple[NoAnswerCount, ...] = ()  # the document nodes of the funnel (none without gold_answers)
    scope_note: str = ""  # what the document_scope credits beyond gold ids, when it credits more ("" otherwise)
    skipped: str = ""  # the queries of the source left out of the result (result.skipped), when some were
    repeats: str = ""  # the scores given several times per query (repeated judge runs): their judge noise
    intervals: IntervalOptions | None = None  # report(ci=...): how each integrated value's interval was computed
    interval_note: str = ""  # what the intervals are, for a person ("" without ci)


# ---------------------------------------------------------------------------------------------- helpers
def _scores_of(result: Any) -> dict[str, Metric]:
    """The result's score declarations (``result.scores``; none for a result without them)."""
    declared = getattr(result, "scores", None)
    return {name: m for name, m in declared.items() if isinstance(m, Metric)} if isinstance(declared, Mapping) else {}


def _description(metric: str, scores: Mapping[str, Metric] | None = None) -> str:
    """A metric's one line: the registry's description, a declared score's (with its direction), or a trec_eval
    measure's (with its cutoff and level)."""
    if scores and metric in scores:
        score = scores[metric]
        said = "is better" in score.description  # the default description says it
        better = "neither higher nor lower" if score.direction == "none" else score.direction
        return score.description if said else f"{score.description} (a score from elsewhere; {better} is better)"
    return METRICS[metric].description if metric in METRICS else describe_measure(metric)


def _details(metric: str, scores: Mapping[str, Metric] | None = None) -> str:
    """A registered metric's per-query formula, edge rule and bounds, as the registry's markdown; "" for a measure."""
    if scores and metric in scores:
        score = scores[metric]
        return f"Per query: {score.formula}. Edge rule: {score.edge}. Bounds: {format_bounds(score, note=True)}."
    if metric not in METRICS:
        return ""
    spec = METRICS[metric]
    bounds = format_bounds(spec, note=True)
    return f"Per query: {spec.formula}. Edge rule: {spec.edge}. Bounds: {bounds}."


def _scope_meanings(document_scope: str, answer_scope: str) -> tuple[str, str]:
    """What makes a retrieved document relevant and an answer correct under the scopes (checked before)."""
    how, sets = CRITERIA[relevance_criterion(document_scope, answer_scope)]
    return f" {how} ".join(MATCH_MEANINGS[s] for s in sets), ANSWER_SCOPE_MEANINGS[answer_scope]


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == ""


def _cut(value: Any, limit: int, empty: str = "(empty)") -> str:
    if _is_missing(value):
        return empty  # the placeholder row of an empty retrieval or answer list
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _items(value: Any) -> list[Any] | None:
    """The items of a list cell (a list, tuple or array); None for a scalar."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return list(value.tolist()) if hasattr(value, "tolist") and not isinstance(value, (str, bytes)) else None


def _gold(value: Any, limit: int, answer_node: bool) -> str:
    """A gold list for a person, each item once, joined by " | ": a no-answer gold (``['']`` or empty) reads
    NO_ANSWER. (A source pairing one answer with each gold document, as a Ragas record of two reference contexts,
    lists the answer once per document: shown twice, it would read as two gold answers.)"""
    items = _items(value)
    items = [value] if items is None else items
    if all(_is_missing(item) for item in items):
        return NO_ANSWER if answer_node else "(no gold document)"
    return _cut(" | ".join(dict.fromkeys(str(item) for item in items)), limit)


def _value(field: str, value: Any, limit: int) -> str:
    """A listed row's field for a person: an empty answer is a no-answer prediction."""
    items = _items(value)
    if items is not None:  # e.g. an answer's document_ids
        return "(none)" if not items else _cut(" | ".join(str(item) for item in items), limit)
    return _cut(value, limit, {"answer": NO_ANSWER, "document_id": "(nothing retrieved)"}.get(field, "(empty)"))


def _rank(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _has_isolated(result: ResultSource, node: str) -> bool:
    frame = result[node]
    return "eval_mode" in frame.columns and bool((frame["eval_mode"] == "isolated").any())


def _judged_correct(row: dict[str, Any], answer_node: bool, document_scope: str, answer_scope: str) -> bool | None:
    """Whether a listed row counts as correct under the report's scopes; None when the row does not say.

    A document is relevant by the row's 0/1 column of the relevance criterion; an answer is correct when its
    exact_match under ``answer_scope`` is 1 (``docs/metrics.md#relevance-criterion``).
    """
    if answer_node:
        column = answer_metric_column("exact_match", answer_scope)
    else:
        column = relevance_column(relevance_criterion(document_scope, answer_scope))
    value: Any = row.get(column)
    if _is_missing(value):
        return None
    return bool(float(value) >= 1.0)


def _why(row: dict[str, Any], answer_node: bool, answer_scope: str) -> str:
    """What a listed row matched, so a person sees why a query scored 0: a document's id / context / answer
    matches, an answer's exact_match and f1 under ``answer_scope``."""
    def flag(column: str) -> str | None:
        value: Any = row.get(column)
        return None if _is_missing(value) else ("yes" if float(value) >= 1.0 else "no")

    if answer_node:
        em: Any = row.get(answer_metric_column("exact_match", answer_scope))
        f1: Any = row.get(answer_metric_column("f1", answer_scope))
        if _is_missing(em) or _is_missing(f1):
            return ""
        note = f"exact_match {float(em):.0f}, f1 {float(f1):.2f}"
        if answer_scope != "any" and not _is_missing(row.get("exact_match")) and float(row["exact_match"]) > float(em):
            source = {"context": "context", "document_id": "document", "document_id_and_context": "document and context"}
            note += f"; the text matches, but not from the gold {source[answer_scope]}"
        return note
    if not row.get("document_id") and not row.get("context"):
        return ""  # an empty retrieval (Haystack stores it as one empty document): nothing to match
    found = [(name, flag(column)) for name, column in
             (("id", "gold_id_match"), ("context", "context_match"), ("answer", "answer_match"))]
    shown = [f"{name} {value}" for name, value in found if value is not None]
    return ("matches gold: " + ", ".join(shown)) if shown else ""


def _fields(row: dict[str, Any], fields: tuple[str, ...], answer_node: bool) -> list[tuple[str, Any]]:
    """The ``wrong_examples_fields`` a listed row has, in the order asked (``document_id`` also names an
    answer's ``document_ids``)."""
    shown = []
    for field in fields:
        key = "document_ids" if field == "document_id" and answer_node and field not in row else field
        if key in row:
            shown.append((field, row[key]))
    return shown


def _check_metrics_filter(metrics_filter: Any, nodes: list[str], integrated: dict[str, dict[str, float]]) -> None:
    if metrics_filter is None:
        return
    if not isinstance(metrics_filter, Mapping):
        raise InvalidParameterError(f"metrics_filter must be a dict of node name to a list of metrics, e.g. "
                                    f"{{{nodes[0]!r}: [...]}} (or None for all); got {type(metrics_filter).__name__}.")
    for node, metrics in metrics_filter.items():
        if node not in integrated:
            raise InvalidParameterError(f"metrics_filter names node {node!r}, which the result does not hold; "
                                        f"it holds {list(integrated)}.")
        if isinstance(metrics, str) or not all(isinstance(m, str) for m in metrics):
            raise InvalidParameterError(f"metrics_filter[{node!r}] must be a list of metric names; got {metrics!r}.")
        unknown = [m for m in metrics if m not in integrated[node]]
        if unknown:
            valid = [m for m in integrated[node] if m != "num_examples_for_eval"]
            raise InvalidParameterError(f"metrics_filter[{node!r}] names metric(s) {unknown} that node {node!r} does "
                                        f"not have; it has {valid}.")


def _check_measures(measures: Any) -> list[str]:
    """The report's trec_eval measures as canonical names (``P(rel=1)@5`` -> ``P@5``)."""
    if measures is None:
        return []
    names = [measures] if isinstance(measures, str) else measures
    if not isinstance(names, Sequence) or not names or not all(isinstance(m, str) for m in names):
        raise InvalidParameterError(f"measures must be a trec_eval measure name or a list of them, e.g. ['nDCG@10', 'AP']; "
                                    f"got {measures!r}.")
    return list(dict.fromkeys(str(m) for m in parse_measures(list(names))))


def _recall_chart(result: ResultSource, node: str, ks: range, options: dict[str, Any]) -> str | None:
    """A recall@k PNG (base64) when matplotlib is installed; None otherwise.

    Drawn on a bare Figure, so the pyplot backend of a notebook is left alone.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=(5, 2.6), dpi=100, layout="constrained")
    axes = figure.subplots()
    plots.plot_metrics_at_k(result, ks=list(ks), node=node, metrics=["recall_single_hit"], ax=axes, **options)
    legend = axes.get_legend()
    if legend is not None:
        legend.remove()
    axes.set_title("")
    axes.set_ylabel("recall_single_hit")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _deepest_rank(result: ResultSource, node: str) -> int:
    """The largest rank the node returned (its document rows), at least 1: the recall@k chart stops there."""
    frame = result[node]
    if "rank" not in frame.columns:
        return 10
    ranks = pd.to_numeric(frame["rank"], errors="coerce")
    if "type" in frame.columns:
        ranks = ranks[frame["type"] == "document"]
    top = ranks.max()
    return max(1, int(top)) if top == top else 1



def no_answer_counts(result: ResultSource, nodes: Sequence[str], **options: Any,
                     ) -> tuple[tuple[NoAnswerCount, ...], dict[str, dict[str, float]]]:
    """Per document node of ``nodes``: its :class:`NoAnswerCount` and each document metric over the answerable queries
    (:meth:`~evalframe.EvaluationResult.no_answer_summary` with ``options``); nothing when a frame lacks the gold
    answers that tell no-answer queries apart.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> counts, answerable = no_answer_counts(load_demo_result(), ["Retriever", "Reader"])
    >>> counts[0].sentence()[:60], round(answerable["Retriever"]["recall_single_hit"], 4)
    ('Retriever: 1 of 8 queries is a no-answer query (no gold answ', 0.8571)
    """
    try:
        summary = result.no_answer_summary(**options)
    except SchemaError:  # a hand-made frame without gold_answers: no-answer queries cannot be told apart
        return (), {}
    counts, answerable = [], {}
    for node in nodes:
        if node not in summary.index:
            continue
        row = summary.loc[node]
        counts.append(NoAnswerCount(node, int(row["queries"]), int(row["no_answer_queries"])))
        answerable[node] = {str(column)[:-len("_answerable")]: float(value) for column, value in row.items()
                            if str(column).endswith("_answerable") and value == value}
    return tuple(counts), answerable


#: What a document_scope crediting answers counts as relevant beyond gold ids (the criteria where an answer alone does).
_ANSWER_CREDIT = {
    "document_id_or_answer": "counts a retrieved document as relevant when its id is a gold document id or when its text "
                             "contains a gold answer string: a chunk holding the answer counts even under another "
                             "document id",
    "answer": "counts a retrieved document as relevant when its text contains a gold answer string, whatever its id",
}


def scope_note(result: ResultSource, nodes: Sequence[str], **options: Any) -> str:
    """What the options' ``document_scope`` credits beyond gold ids, with each document node's headline metric under
    ``document_scope="document_id"`` beside its value; "" when the scope credits gold ids (or contexts) only.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> import textwrap
    >>> print(textwrap.fill(scope_note(load_demo_result(), ["Retriever", "Reader"]), 100))
    document_scope='document_id_or_answer' (the default) counts a retrieved document as relevant when
    its id is a gold document id or when its text contains a gold answer string: a chunk holding the
    answer counts even under another document id. With document_scope='document_id' (gold ids only):
    Retriever recall_single_hit 0.8750 (0.8750 here).
    """
    chosen = MetricOptions.from_keywords(options, passed_to="scope_note takes these options")
    criterion = relevance_criterion(chosen.document_scope, chosen.answer_scope)
    documents = [node for node in nodes if result.has_documents(node) and not result.has_answers(node)]
    if criterion not in _ANSWER_CREDIT or not documents:
        return ""
    default = " (the default)" if chosen.document_scope == MetricOptions.document_scope else ""
    here = result.calculate_metrics(**options)
    by_id = result.calculate_metrics(**{**options, "document_scope": "document_id"})
    values = []
    for node in documents:
        metric = result.headline_metric(node)
        if metric in by_id.get(node, {}) and metric in here.get(node, {}):
            values.append(f"{node} {metric} {by_id[node][metric]:.4f} ({here[node][metric]:.4f} here)")
    compared = f" With document_scope='document_id' (gold ids only): {', '.join(values)}." if values else ""
    return f"document_scope={chosen.document_scope!r}{default} {_ANSWER_CREDIT[criterion]}.{compared}"


def _with_answerable(funnel: tuple[FunnelNode, ...], answerable: Mapping[str, Mapping[str, float]],
                     counts: Sequence[NoAnswerCount]) -> tuple[FunnelNode, ...]:
    """The funnel with each document metric's value over the answerable queries, where some query is a no-answer one."""
    flagged = {count.node for count in counts if count.no_answer_queries}
    return tuple(dataclasses.replace(node, rows=tuple(
        dataclasses.replace(row, answerable=answerable[node.node].get(row.metric)) for row in node.rows))
        if node.node in flagged else node for node in funnel)


# ---------------------------------------------------------------------------------------------- building
@with_options(ReportOptions)
def build_model(result: ResultSource, **options: Any) -> ReportModel:
    """The report's model of ``result``; the parameters are those of :func:`evalframe.report.reports.build_report`
    (:class:`~evalframe.options.ReportOptions`).

    The analyses' warnings are given once each (not once per analysis) and kept in ``notes``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> model = build_model(load_demo_result(), n=1, charts=False)
    >>> model.nodes, model.document_scope
    (('Retriever', 'Reader'), 'document_id_or_answer')
    """
    if not is_result(result):  # by its interface: the facade calls this module
        raise InvalidParameterError(f"the report needs an EvaluationResult; got {type(result).__name__}. "
                                    "Load one first: EvaluationResult.load(folder).")
    chosen: ReportOptions = ReportOptions.from_keywords(options, passed_to="the report takes these options")
    n, max_characters_per_field, fields = chosen.n, chosen.max_characters_per_field, tuple(chosen.wrong_examples_fields)
    node_order, metrics_filter, measures, metric = chosen.node_order, chosen.metrics_filter, chosen.measures, chosen.metric
    charts, document_scope, answer_scope = chosen.charts, chosen.document_scope, chosen.answer_scope
    if node_order is not None and (isinstance(node_order, str) or not all(isinstance(x, str) for x in node_order)):
        raise InvalidParameterError(f"node_order must be a list of node names, e.g. {list(result)}; got {node_order!r}.",
                                    parameter="node_order")
    nodes = list(node_order) if node_order else result.pipeline_order()
    unknown = [node for node in nodes if node not in result]
    if unknown:
        raise InvalidParameterError(f"node_order names node(s) {unknown} that the result does not hold; it holds "
                                    f"{list(result)}.{did_you_mean(unknown[0], list(result))}", parameter="node_order")
    scopes = {"document_scope": document_scope, "answer_scope": answer_scope}
    trec = {"complete": chosen.complete, "duplicates": chosen.duplicates}
    with warnings.catch_warnings(record=True) as caught:  # each analysis would repeat a scope warning: say it once
        warnings.simplefilter("always")
        checked = _check_measures(measures)
        intervals = chosen.intervals
        funnel, counts, explained = _funnel(result, nodes, metrics_filter, scopes, checked, trec, intervals)
        no_answer, answerable = no_answer_counts(result, nodes, **scopes)
        funnel = _with_answerable(funnel, answerable, no_answer)
        credited = scope_note(result, nodes, **scopes)
        measured = {count.node for count in counts}
        ranked = {node.node for node in funnel if metric is not None and any(row.metric == metric for row in node.rows)}
        if metric is not None and not ranked:
            raise InvalidParameterError(f"metric {metric!r} is no metric of the funnel's nodes; name one they show "
                                        f"(e.g. a declared score: {sorted(_scores_of(result))}).", parameter="metric")
        # a measured node's worst queries by the first measure with a direction (a count has no worst queries),
        # else by its headline metric
        directed = [m for m in checked if direction_of(m) != "none"]
        by_measure = {node for node in measured if directed}
        sections = tuple(_section(result, node, cast(str, metric), n, max_characters_per_field, charts, fields, scopes, None,
                                  by_metric=True) if node in ranked else
                         _section(result, node, directed[0] if node in by_measure else result.headline_metric(node), n,
                                  max_characters_per_field, charts, fields, scopes, trec if node in by_measure else None)
                         for node in nodes)
    notes = tuple(Note(category, message) for message, category in
                  dict.fromkeys((str(w.message), w.category) for w in caught))
    for note in notes:
        warn(note.message, note.category)
    explained.update((section.metric, None) for section in sections)
    return ReportModel(
        version=__version__, nodes=tuple(nodes), document_scope=document_scope, answer_scope=answer_scope,
        measures=tuple(checked), funnel=funnel, trec_counts=counts,
        above_one=any(row.above_one for node in funnel for row in node.rows), sections=sections,
        definitions=_definitions(list(explained), document_scope, answer_scope, _scores_of(result)), notes=notes,
        no_answer=no_answer, scope_note=credited, skipped=skipped_note(getattr(result, "skipped", ())),
        repeats=repeats_note(result, nodes),
        intervals=intervals if intervals.ci is not None else None,
        interval_note=interval_note(intervals) if intervals.ci is not None else "")


def repeats_note(result: Any, nodes: Sequence[str]) -> str:
    """What the report says of the scores given several times per query (repeated judge runs,
    ``docs/statistics.md#repeated-judge-runs``): per such score, its judge runs and their noise; ``""`` when none.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> ids = result.query_metrics("Reader").index[:2].tolist()
    >>> result.add_scores("Reader", pd.DataFrame({"multilabel_id": [ids[0]] * 2 + [ids[1]] * 2, "run": [1, 2] * 2,
    ...                                           "judge": [1.0, 3.0, 4.0, 6.0]}), repetition="run")
    >>> print(*repeats_note(result, ["Retriever", "Reader"]).split("; "), sep=";\\n")
    judge of Reader: the mean of 2 judge runs per query (4 values);
    the judge's noise is 36.4% of a judgement's variance (ICC(1) 0.636), a standard error of 0.7071 on the mean.
    """
    if not _scores_of(result) or not callable(getattr(result, "judge_noise", None)):
        return ""
    said = []
    for node in nodes:
        table = result.judge_noise(node)
        for name, row in table[table["k_max"] > 1].iterrows():  # a few scores, not queries
            runs = f"{row['k_min']:.0f}" if row["k_min"] == row["k_max"] else f"{row['k_min']:.0f} to {row['k_max']:.0f}"
            noise = ("" if row["noise_share"] != row["noise_share"] else
                     f"; the judge's noise is {row['noise_share']:.1%} of a judgement's variance (ICC(1) "
                     f"{row['icc']:.3f}), a standard error of {row['judge_se']:.4f} on the mean")
            said.append(f"{name} of {node}: the mean of {runs} judge runs per query ({row['repetitions']:.0f} values){noise}.")
    return " ".join(said)


def _funnel(result: ResultSource, nodes: list[str], metrics_filter: Mapping[str, Sequence[str]] | None,
            scopes: dict[str, Any], measures: list[str], trec: dict[str, Any],
            intervals: IntervalOptions | None = None,
            ) -> tuple[tuple[FunnelNode, ...], tuple[TrecCount, ...], dict[str, None]]:
    """The funnel's nodes, the trec_eval counts of the measured nodes and the metrics shown, in order; with
    ``intervals.ci``, each integrated value's interval (``calculate_metrics(ci=...)``, and the trec_eval measures' from
    the same per-query table as their means)."""
    asked = intervals is not None and intervals.ci is not None
    ci = intervals.as_dict() if intervals is not None and asked else {}
    integrated = result.calculate_metrics(**scopes, **ci)  # checks the scopes, naming the valid ones
    top1 = result.calculate_metrics(simulated_top_k_reader=1, **scopes)
    isolated = (result.calculate_metrics(eval_mode="isolated", **scopes)
                if any(_has_isolated(result, node) for node in nodes) else {})
    measured = [node for node in nodes if measures and result.has_documents(node) and not result.has_answers(node)]
    counts = []
    for node in measured:
        per_query = result.trec_query_metrics(measures, node=node, **trec)
        counts.append(TrecCount(node, len(per_query)))
        if not len(per_query):
            integrated[node].update({m: 0.0 for m in per_query.columns})
        else:
            summed = partial(per_query, values=asked)
            found = means(summed)
            integrated[node].update(mean_intervals(summed.values, found, cast(IntervalOptions, intervals))
                                    if asked and summed.values is not None else found)
        if _has_isolated(result, node):
            isolated[node].update(result.trec_metrics(measures, node=node, eval_mode="isolated", **trec))
    _check_metrics_filter(metrics_filter, nodes, integrated)
    explained: dict[str, None] = {}  # the metrics the report shows, in order: each is explained at the end
    scores = _scores_of(result)  # a node's declared scores are rows of its funnel, as its metrics
    funnel = []
    for node in nodes:
        answer_node = result.has_answers(node)
        # a node giving one answer per query (a generator) has no top-1 of its own: the same number twice says nothing
        one_answer = answer_node and plots.one_answer_per_query(result, node)
        shown = None if metrics_filter is None or node not in metrics_filter else set(metrics_filter[node])
        rows = []
        for metric, value in integrated[node].items():
            if metric == "num_examples_for_eval" or (shown is not None and metric not in shown):
                continue
            explained[metric] = None
            at_top1 = top1[node][metric] if answer_node and not one_answer else None
            alone = isolated[node][metric] if metric in isolated.get(node, {}) else None
            above_one = metric not in scores and any(v is not None and v > 1.0 for v in (value, at_top1, alone))
            interval = (value.low, value.high) if isinstance(value, Estimate) else None
            rows.append(FunnelRow(metric, _description(metric, scores), float(value), at_top1, alone, above_one,
                                  interval=interval))
        funnel.append(FunnelNode(node, answer_node, tuple(rows), one_answer=one_answer))
    return tuple(funnel), tuple(counts), explained


def _section(result: ResultSource, node: str, metric: str, n: int, limit: int, charts: bool, fields: tuple[str, ...],
             scopes: dict[str, Any], trec: dict[str, Any] | None, by_metric: bool = False) -> Section:
    """The worst queries of ``node`` by ``metric`` (a trec_eval measure when ``trec`` is given; ``by_metric``: any
    metric of the node, a declared score too, worst first by its direction, ``wrong_examples(metric=...)``)."""
    answer_node = result.has_answers(node)
    chart, chart_note = None, ""
    if not answer_node and charts and len(result[node]):  # a node of no row has no recall@k to draw
        chart = _recall_chart(result, node, range(1, _deepest_rank(result, node) + 1), scopes)
        chart_note = NO_CHARTS if chart is None else ""  # None: matplotlib is not installed
    if by_metric:
        worst = result.wrong_examples(node, n=n, metric=metric, **scopes)
    else:
        worst = (result.wrong_examples(node, n=n, document_metric=metric, **scopes, **trec) if trec is not None
                 else result.wrong_examples(node, n=n, **scopes))
    queries = []
    for example in worst:
        gold = example["gold_answers"] if answer_node else example["gold_document_ids"]
        listed = tuple(
            Listed(rank=_rank(row.get("rank")),
                   correct=_judged_correct(row, answer_node, scopes["document_scope"], scopes["answer_scope"]),
                   why=_why(row, answer_node, scopes["answer_scope"]),
                   fields=tuple((field, _value(field, value, limit)) for field, value in _fields(row, fields, answer_node)))
            for row in example["answers" if answer_node else "documents"][:3])
        queries.append(WorstQuery(_cut(example["query"], limit), example["metrics"][metric],
                                  _gold(gold, limit, answer_node), listed))
    return Section(node, answer_node, metric, THRESHOLD, chart, tuple(queries), direction_of(metric, _scores_of(result)),
                   chart_note=chart_note)


def _definitions(metrics: list[str], document_scope: str, answer_scope: str,
                 scores: Mapping[str, Metric] | None = None) -> Definitions:
    """What the report's scopes and every metric it shows mean."""
    relevant, correct = _scope_meanings(document_scope, answer_scope)
    symbols = (tuple(SYMBOLS.items()) if any(metric in METRICS and METRICS[metric].level == "document"
                                             for metric in metrics) else ())
    return Definitions(relevant, correct, MODES,
                       tuple(Definition(metric, _description(metric, scores), _details(metric, scores))
                             for metric in metrics), symbols)


# ---------------------------------------------------------------------------------------------- the comparison
#: The comparison's drill-down cuts a document's text or an answer to this many characters.
DRILL_CHARACTERS = 300
ANSWER_METRICS_SET = frozenset(ANSWER_METRICS)
#: A change's sign by the measure's direction: a rise is better (1), worse (-1), or neither (0, a count).
_SIGNS = {"higher": 1.0, "lower": -1.0, "none": 0.0}
DOCUMENT_METRICS_SET = frozenset(DOCUMENT_METRICS)


def measure_direction(metric: str, scores: Mapping[str, Any] | None = None) -> str:
    """Whether a higher or a lower value of ``metric`` is better: ``"higher"``, ``"lower"`` or ``"none"`` (a count:
    neither, so no change of it is better or worse), as :func:`evalframe.direction_of` reads it (the registry's entry,
    or a declared score's, ``result.scores``). This is the one place the comparison reads a direction.

    Examples
    --------
    >>> measure_direction("mrr"), measure_direction("unj@10"), measure_direction("NumRet")
    ('higher', 'lower', 'none')
    """
    return direction_of(metric, scores or {})


@dataclass(frozen=True)
class RunDelta:
    """One run against the first on one measure: ``delta`` (this run's value minus the first's), the bootstrap
    interval of the delta, the p-value the mark reads (Holm-corrected with 3+ runs), and ``change``:
    ``"better"`` / ``"worse"`` when the delta is significant (by the measure's direction), else ``""``; ``d_z`` and
    ``improved`` are :func:`evalframe.compare`'s effect size and share of the paired queries improved."""

    run: str
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool
    change: str
    d_z: float = float("nan")
    improved: float = float("nan")


@dataclass(frozen=True)
class Detectable:
    """What a two-run comparison of a measure can detect (:func:`evalframe.power` on its per-query differences):
    on ``queries`` paired queries, a change of ``mde`` is detected with probability ``power`` by the two-sided paired
    t-test at level ``alpha``; NaN with the reason in ``note`` (fewer than 2 queries, every difference equal), or
    ``note`` the scale of a measure that is no mean."""

    queries: int
    mde: float
    power: float
    alpha: float
    note: str


@dataclass(frozen=True)
class ComparedMeasure:
    """A measure of a node in every run: each run's value (over the queries paired with the first run) and each
    later run's :class:`RunDelta`; with two runs, what the comparison can detect (:class:`Detectable`)."""

    metric: str
    description: str
    direction: str
    values: tuple[float, ...]
    deltas: tuple[RunDelta, ...]
    queries: int  # the queries paired with the first run (the smallest over the later runs)
    detectable: Detectable | None = None


@dataclass(frozen=True)
class SliceMeasure:
    """A measure of a node on one slice of the queries (the comparison's ``by``): each run's value over the slice's
    queries paired with the first run, and each later run's :class:`RunDelta` on them (its p-value corrected over
    the slices, and the runs, of the measure: :func:`evalframe.compare` with ``by=``)."""

    slice: str  # the label as shown: a key's label, several keys' joined by " / ", "(none)" for a missing one
    metric: str
    direction: str
    values: tuple[float, ...]
    deltas: tuple[RunDelta, ...]
    queries: int  # the slice's paired queries (the smallest over the later runs); fewer than 2: no test


@dataclass(frozen=True)
class DrillRow:
    """One document or answer a run returned for a query: its rank, text, judged-correct mark and gold matches."""

    kind: str  # "document" or "answer"
    rank: Any
    correct: bool | None
    fields: tuple[tuple[str, str], ...]  # (field, value as shown): document_id and context, or answer and its document
    marks: tuple[tuple[str, float], ...]  # (gold-match column, value) the row holds


@dataclass(frozen=True)
class GridQuery:
    """A query of a node in every run: ``values[m][r]`` is measure ``m`` in run ``r`` (NaN: not scored),
    ``deltas[m][r - 1]`` run ``r`` minus the first, ``changes[m][r - 1]`` ``"better"`` / ``"worse"`` / ``""`` by the
    measure's direction; ``worst`` the largest drop (direction-adjusted, <= 0) of the ordering measure; ``rows[r]``
    the run's documents / answers."""

    multilabel_id: str
    query: str
    slices: tuple[tuple[str, str], ...]
    values: tuple[tuple[float, ...], ...]
    deltas: tuple[tuple[float, ...], ...]
    changes: tuple[tuple[str, ...], ...]
    worst: float
    rows: tuple[tuple[DrillRow, ...], ...]


@dataclass(frozen=True)
class WorseQuery:
    """A query whose ordering measure got worse in a run: the query, that run's ``delta`` (the run minus the first,
    as measured: a rise of a lower-is-better measure is positive; of the run that got worst, with several) and the
    measure's value in every run."""

    query: GridQuery
    delta: float
    values: tuple[float, ...]


@dataclass(frozen=True)
class ComparedNode:
    """A node of the comparison: its measures (summary) and its per-query :class:`Grid`, worst-by-delta first by
    ``order_metric``; :attr:`queries` lists the grid as :class:`GridQuery` tuples (built when first read)."""

    node: str
    answer_node: bool
    measures: tuple[ComparedMeasure, ...]
    order_metric: str
    slice_keys: tuple[str, ...]
    grid: Grid
    slices: tuple[SliceMeasure, ...] = ()  # with slice keys: each slice x measure, slice by slice
    drill: _DrillSource | None = dataclass_field(default=None, compare=False, repr=False)  # each run's rows, for queries

    @cached_property
    def worst(self) -> np.ndarray:
        """Per grid row, the largest drop (direction-adjusted, <= 0) of ``order_metric`` over the later runs."""
        position = [m.metric for m in self.measures].index(self.order_metric)
        values = self.grid.values[self.order_metric]
        gains = (values[:, 1:] - values[:, :1]) * _SIGNS[self.measures[position].direction]
        return np.minimum(np.nan_to_num(np.nanmin(np.where(np.isnan(gains), np.inf, gains), axis=1), posinf=0.0), 0.0) \
            if len(values) else np.zeros(0)

    @property
    def worse_count(self) -> int:
        """How many queries got worse on ``order_metric`` in some run."""
        return int((self.worst < 0).sum())

    @cached_property
    def queries(self) -> tuple[GridQuery, ...]:
        """The grid's queries as :class:`GridQuery` tuples, each with every run's rows (the JSON report's rows)."""
        return self._grid_queries(np.arange(len(self.grid)))

    def _grid_queries(self, positions: np.ndarray) -> tuple[GridQuery, ...]:
        grid = self.grid
        metrics = [m.metric for m in self.measures]
        values = [grid.values[m][positions] for m in metrics]
        signs = [grid.signs[m] for m in metrics]
        deltas = [v[:, 1:] - v[:, :1] for v in values]
        changes = [np.where(d * sign > 0, "better", np.where(d * sign < 0, "worse", "")).tolist()
                   for d, sign in zip(deltas, signs)]
        value_lists = [v.tolist() for v in values]
        delta_lists = [d.tolist() for d in deltas]
        slices = [(key, grid.slices[key][positions].tolist()) for key in self.slice_keys]
        ids, texts, worst = grid.ids[positions].tolist(), grid.query[positions].tolist(), self.worst[positions].tolist()
        rows = (self.drill.drill_rows(self, positions) if self.drill is not None
                else [tuple(() for _ in range(values[0].shape[1] if values else 0))] * len(positions))
        return tuple(
            GridQuery(str(ids[i]), texts[i], tuple((key, labels[i]) for key, labels in slices),
                      tuple(tuple(v[i]) for v in value_lists), tuple(tuple(d[i]) for d in delta_lists),
                      tuple(tuple(c[i]) for c in changes), worst[i], rows[i])
            for i in range(len(positions)))

    def got_worse(self, n: int) -> tuple[WorseQuery, ...]:
        """The first ``n`` queries that got worse on ``order_metric`` (the grid's order: the largest drop first),
        each with the delta of its worst run, as the tables show deltas.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> demo = load_demo_result()
        >>> model = build_comparison_model({"a": demo, "b": demo}, nodes=["Retriever"], metrics=["mrr"], rounds=10)
        >>> model.nodes[0].got_worse(3), model.nodes[0].worse_count  # the same run twice: nothing got worse
        ((), 0)
        """
        position = [m.metric for m in self.measures].index(self.order_metric)
        sign = _SIGNS[self.measures[position].direction]
        chosen = np.flatnonzero(self.worst < 0)[:max(n, 0)]
        queries = self.__dict__["queries"] if "queries" in self.__dict__ else self._grid_queries(chosen)
        if "queries" in self.__dict__:
            queries = tuple(queries[i] for i in chosen.tolist())
        return tuple(WorseQuery(query, min((sign * d, d) for d in query.deltas[position] if d == d)[1],
                                query.values[position])
                     for query in queries)


@dataclass(frozen=True)
class ComparisonModel:
    """What the comparative report says: the runs' names, the test and its threshold, and each shared node."""

    version: str
    names: tuple[str, ...]
    test: str
    max_p: float
    holm: bool  # 3+ runs: the p-values are Holm-corrected over the comparisons of each measure
    confidence: float
    document_scope: str
    answer_scope: str
    nodes: tuple[ComparedNode, ...]
    n: int  # the worst queries the text and Markdown list per node
    notes: tuple[Note, ...]
    detail: Detail  # every query's drill-down (the viewers': evalframe.report.viewer_data)
    includes: tuple[str, ...] = ()  # what the document-metric means include (no-answer queries, the scope's credit)
    power: float = 0.8  # the power of each measure's detectable change (two runs: ComparedMeasure.detectable)
    page_characters: int | None = None  # the HTML page's texts: None fits them to the page, N keeps N characters each


class _DrillSource:
    """Each run's rows of a node and kind (:class:`Rows`, built once when asked), for :attr:`ComparedNode.queries`."""

    def __init__(self, results: Sequence[ResultLike], position_of: pd.Index, scopes: Mapping[str, str]) -> None:
        self.results, self.position_of, self.scopes = list(results), position_of, scopes
        self._rows: dict[tuple[int, str, str], Rows] = {}

    def frame(self, run: int, node: str, kind: str) -> pd.DataFrame:
        return node_rows(self.results[run], node, kind)

    def rows(self, run: int, node: str, kind: str, frame: pd.DataFrame | None = None) -> Rows:
        key = (run, node, kind)
        if key not in self._rows:
            self._rows[key] = rows_of(self.frame(run, node, kind) if frame is None else frame, node, kind,
                                      self.position_of, self.scopes)
        return self._rows[key]

    def _drill(self, run: int, node: str, kind: str, indices: np.ndarray) -> list[DrillRow]:
        """The run's :class:`Rows` at ``indices`` as :class:`DrillRow` tuples, their fields cut for a person (only
        those asked: the text report's worst queries draw a few of them)."""
        rows = self.rows(run, node, kind)
        answer = kind == "answer"
        ranks = [_rank(value) for value in rows.rank[indices].tolist()]
        correct = [None if value != value else bool(value >= 1.0) for value in rows.correct[indices].tolist()]
        marks = [(mark, values[indices].tolist()) for mark, values in rows.marks.items()]
        texts = rows.text[indices].tolist()
        if answer:
            offsets, ids = rows.document_ids.offsets, rows.document_ids.values.tolist()
            starts, ends = offsets[indices].tolist(), offsets[indices + 1].tolist()
            firsts = [_cut(text, DRILL_CHARACTERS, NO_ANSWER) for text in texts]
            seconds = [("(none)" if a == b else _cut(" | ".join(ids[a:b]), DRILL_CHARACTERS)) if is_list else
                       _cut(" | ".join(ids[a:b]) if a < b else None, DRILL_CHARACTERS, "(nothing retrieved)")
                       for a, b, is_list in zip(starts, ends, rows.listed[indices].tolist())]
            names = ("answer", "document_id")
        else:
            firsts = [_cut(value, DRILL_CHARACTERS) for value in rows.ids[indices].tolist()]
            seconds = [_cut(text, DRILL_CHARACTERS) for text in texts]
            names = ("document_id", "context")
        return [DrillRow(kind, rank, judged, ((names[0], first), (names[1], second)),
                         tuple((mark, values[i]) for mark, values in marks if values[i] == values[i]))
                for i, (rank, judged, first, second) in enumerate(zip(ranks, correct, firsts, seconds))]

    def drill_rows(self, node: ComparedNode, positions: np.ndarray) -> list[tuple[tuple[DrillRow, ...], ...]]:
        """Per grid row of ``positions``, per run, the node's rows of that query in the run: its answers, then its
        documents, each kind where the run scored the query on one of the node's metrics of that kind."""
        grid = node.grid
        metrics = [m.metric for m in node.measures]
        runs = len(self.results)
        listed: list[list[list[DrillRow]]] = [[[] for _ in range(runs)] for _ in range(len(positions))]
        detail = grid.detail[positions]
        for kind, known in (("answer", ANSWER_METRICS_SET), ("document", DOCUMENT_METRICS_SET)):
            columns = [m for m in metrics if m in known]
            if not columns:
                continue
            scored = np.zeros((len(positions), runs), dtype=bool)
            for m in columns:
                scored |= ~np.isnan(grid.values[m][positions])
            for run in range(runs):
                if not scored[:, run].any():
                    continue
                offsets = self.rows(run, node.node, kind).offsets
                chosen = np.flatnonzero(scored[:, run])
                starts, ends = offsets[detail[chosen]], offsets[detail[chosen] + 1]
                counts = ends - starts  # each chosen query's rows: starts[i] + 0 .. counts[i] - 1
                indices = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
                drilled = self._drill(run, node.node, kind, indices)
                for i, start, stop in zip(chosen.tolist(), (np.cumsum(counts) - counts).tolist(),
                                          np.cumsum(counts).tolist()):
                    listed[i][run].extend(drilled[start:stop])
        return [tuple(tuple(run) for run in per_run) for per_run in listed]


def _per_query(result: ResultLike, node: str, **keywords: Any) -> pd.DataFrame:
    """``result.query_metrics(node, ...)`` as pandas: a result on Dask gathers it (``compute=True``)."""
    if is_result(result):
        return result.query_metrics(node, **keywords)
    return result.query_metrics(node, compute=True, **keywords)


def _label(value: Any) -> str:
    return "" if _is_missing(value) else str(value)


def check_comparison_options(options: Mapping[str, Any]) -> None:
    """Refuse, before any work, a keyword :func:`evalframe.compare_report` does not take (named as it was passed,
    with the options it takes and a close match) and a metric option of a bad value.

    Examples
    --------
    >>> check_comparison_options({"node": "Retriever"})
    Traceback (most recent call last):
    ...
    evalframe.errors.UnknownArgumentError: unknown argument(s) ['node']; compare_report takes these options: [...
    """
    metric_options = MetricOptions.names()
    check_keywords(options, (*ComparisonReportOptions.option_names(), *metric_options),
                   passed_to="compare_report takes these options")
    MetricOptions(**{name: value for name, value in options.items() if name in metric_options})


@with_options(ComparisonReportOptions, MetricOptions, without=("names",))
def build_comparison_model(runs: Mapping[str, ResultLike], *, compare_function: Callable[..., pd.DataFrame] = compare,
                           **options: Any) -> ComparisonModel:
    """The comparative report's model of ``runs`` (name -> result, the first the baseline); the parameters are those
    of :func:`evalframe.compare_report` (:class:`~evalframe.options.ComparisonReportOptions` and the metric options);
    ``compare_function`` compares the runs (:func:`evalframe.dask.compare` for results on Dask).

    Every number comes from the public analyses: each measure's values, deltas, intervals and p-values from
    :func:`evalframe.analysis.compare.compare` (Holm-corrected for 3+ runs), each query's values and slice labels
    from ``query_metrics(node, by=by, with_query=True)``, each query's rows from ``query_examples``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> demo = load_demo_result()
    >>> model = build_comparison_model({"top1": demo, "top5": demo}, nodes=["Retriever"], metrics=["mrr"], rounds=100)
    >>> model.nodes[0].measures[0].deltas[0].delta
    0.0
    """
    names = list(runs)
    results = list(runs.values())
    if len(results) < 2:
        raise InvalidParameterError(f"a comparison needs two runs or more; got {len(results)}.", parameter="runs")
    for name, result in runs.items():
        if not isinstance(result, ResultLike):
            raise InvalidParameterError(f"run {name!r} must be an EvaluationResult (or a result folder); got "
                                        f"{type(result).__name__}.", parameter="runs")
    if "names" in options:
        raise InvalidParameterError("names: the runs are a dict, whose keys name them.", parameter="names")
    check_comparison_options(options)
    given: ComparisonReportOptions
    given, options = ComparisonReportOptions.take(options)
    nodes, metrics, by, test, max_p, n = given.nodes, given.metrics, given.by, given.test, given.max_p, given.n
    rounds, confidence, seed, power = given.rounds, given.confidence, given.seed, given.power
    shared = [node for node in results[0].nodes if all(node in result.nodes for result in results[1:])]
    if nodes is None:
        chosen = shared
    else:
        chosen = [nodes] if isinstance(nodes, str) else list(nodes)
        missing = [node for node in chosen if node not in shared]
        if missing:
            raise InvalidParameterError(f"nodes names {missing}, which not every run holds; the runs share {shared}."
                                        f"{did_you_mean(missing[0], shared)}", parameter="nodes")
    if not chosen:
        raise InvalidParameterError(f"the runs {names} share no node; compare runs of one pipeline.", parameter="runs")
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    scopes = {"document_scope": options.get("document_scope", MetricOptions.document_scope),
              "answer_scope": options.get("answer_scope", MetricOptions.answer_scope)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = [_compared_node(runs, compare_function, node, metrics, keys, test, max_p, rounds, confidence, seed,
                                scopes, options, power)
                 for node in chosen]
    found = [node for node in built if node is not None]
    if not found:
        raise InvalidParameterError(f"metrics {metrics!r}: no node of the runs has them; the nodes {chosen} have "
                                    f"{[list(_per_query(runs[names[0]], node, **options).columns) for node in chosen]}.",
                                    parameter="metrics")
    notes = tuple(Note(category, message) for message, category in
                  dict.fromkeys((str(w.message), w.category) for w in caught))
    for note in notes:
        warn(note.message, note.category)
    compared, detail = _with_detail(names, results, found, scopes)
    includes = comparison_includes(cast(Mapping[str, ResultSource], runs), [node.node for node in compared], **options)
    includes += tuple(f"{name}: {note}" for name, note in ((name, skipped_note(getattr(result, "skipped", ())))
                                                          for name, result in runs.items()) if note)
    return ComparisonModel(__version__, tuple(names), test, max_p, len(names) > 2, confidence,
                           scopes["document_scope"], scopes["answer_scope"], compared, n, notes, detail, includes,
                           power, given.page_characters)


def _with_detail(names: Sequence[str], results: Sequence[ResultLike],
                 found: Sequence[tuple[ComparedNode, pd.Index, np.ndarray]], scopes: Mapping[str, str],
                 ) -> tuple[tuple[ComparedNode, ...], Detail]:
    """The nodes with their grids' Detail rows, and the :class:`Detail` of every query of any node (in the first
    node's grid order, then each later node's new ones): each run's answers from the first answer node, its
    documents from the last node with documents only."""
    union = found[0][1]
    for _, ordered, _ in found[1:]:
        union = union.append(ordered[~ordered.isin(union)])
    text = np.concatenate([query for _, _, query in found]) if len(found) > 1 else found[0][2]
    every = found[0][1].append([ordered for _, ordered, _ in found[1:]]) if len(found) > 1 else found[0][1]
    first = ~every.duplicated()
    query = pd.Series(text[first], index=every[first]).reindex(union).to_numpy(dtype=object)
    source = _DrillSource(results, union, scopes)
    nodes = [node for node, _, _ in found]
    answer_node = next((node.node for node in nodes if node.answer_node), None)
    document_node = next((node.node for node in reversed(nodes)
                          if not node.answer_node and results[0].has_documents(node.node)), None)
    sides = []
    for chosen, kind in ((answer_node, "answer"), (document_node, "document")):
        pairs = []
        for run in range(len(results)):
            if chosen is None:
                pairs.append((pd.DataFrame(), empty_rows(kind, len(union))))
                continue
            frame = source.frame(run, chosen, kind)
            pairs.append((frame, source.rows(run, chosen, kind, frame)))
        sides.append(pairs)
    detail = build_detail(names, union, query, sides[0], sides[1])
    compared = tuple(dataclasses.replace(node, grid=dataclasses.replace(
        node.grid, detail=union.get_indexer(ordered).astype(np.int64)), drill=source) for node, ordered, _ in found)
    return compared, detail


def comparison_includes(runs: Mapping[str, ResultSource], nodes: Sequence[str], **options: Any) -> tuple[str, ...]:
    """What the compared document-metric means include, as sentences: per document node, its no-answer queries (each
    scores 1.0 on every document metric) with each run's headline metric over the answerable queries beside it, and
    what the ``document_scope`` credits beyond gold ids with each run's headline metric by gold ids only
    (:func:`no_answer_counts` and the figures of :func:`scope_note`, per run).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> demo = load_demo_result()
    >>> for line in comparison_includes({"a": demo, "b": demo}, ["Retriever"]):
    ...     print(line)
    Retriever: 1 of 8 queries is a no-answer query (no gold answer, no gold document); every document metric scores it
    1.0 (Haystack's definition) and each mean counts it; 'answerable only' is the mean over the other 7. Answerable
    only, recall_single_hit: a 0.8571, b 0.8571.
    document_scope='document_id_or_answer' (the default) counts a retrieved document as relevant when its id is a gold
    document id or when its text contains a gold answer string: a chunk holding the answer counts even under another
    document id. With gold ids only (document_scope='document_id'), Retriever recall_single_hit: a 0.8750 (0.8750
    here), b 0.8750 (0.8750 here).
    """
    chosen = MetricOptions.from_keywords(options, passed_to="comparison_includes takes these options")
    first = next(iter(runs.values()))
    documents = [node for node in nodes if first.has_documents(node) and not first.has_answers(node)]
    if not documents:
        return ()
    counted = {name: no_answer_counts(result, documents, **options) for name, result in runs.items()}
    lines = []
    for count in counted[next(iter(runs))][0]:
        if count.no_answer_queries == 0:
            continue
        metric = first.headline_metric(count.node)
        values = ", ".join(f"{name} {answerable.get(count.node, {}).get(metric, float('nan')):.4f}"
                           for name, (_, answerable) in counted.items())
        lines.append(f"{count.sentence()} Answerable only, {metric}: {values}.")
    criterion = relevance_criterion(chosen.document_scope, chosen.answer_scope)
    if criterion in _ANSWER_CREDIT:
        default = " (the default)" if chosen.document_scope == MetricOptions.document_scope else ""
        here = {name: result.calculate_metrics(**options) for name, result in runs.items()}
        by_id = {name: result.calculate_metrics(**{**options, "document_scope": "document_id"})
                 for name, result in runs.items()}
        for node in documents:
            metric = first.headline_metric(node)
            values = ", ".join(f"{name} {by_id[name][node][metric]:.4f} ({here[name][node][metric]:.4f} here)"
                               for name in runs)
            lines.append(f"document_scope={chosen.document_scope!r}{default} {_ANSWER_CREDIT[criterion]}. With gold ids "
                         f"only (document_scope='document_id'), {node} {metric}: {values}.")
    return tuple(lines)


def _detectable(tables: Sequence[pd.DataFrame], metric: str, alpha: float, power: float) -> Detectable:
    """:class:`Detectable` of ``metric`` from the two runs' per-query tables, paired as :func:`evalframe.compare`
    pairs them (:func:`evalframe.analysis.compare.paired_differences`)."""
    pair = paired_differences(tables[0][metric], tables[1][metric])
    row = power_row(pair.d, alpha=alpha, power=power, effect=None, queries=None, aggregation=pair.aggregation)
    return Detectable(int(row["queries"]), float(row["mde"]), power, alpha, str(row["note"]))


def _compared_node(runs: Mapping[str, ResultLike], compare_function: Callable[..., pd.DataFrame], node: str,
                   metrics: Sequence[str] | str | None,
                   keys: list[str], test: str, max_p: float, rounds: int, confidence: float, seed: int,
                   scopes: Mapping[str, str], options: Mapping[str, Any], power: float = 0.8,
                   ) -> tuple[ComparedNode, pd.Index, np.ndarray] | None:
    """The node's :class:`ComparedNode` (its grid's ``detail`` still to be set), its queries in the grid's order (the
    multilabel_ids as the frames hold them) and their texts; None when the node has none of ``metrics``."""
    names, results = list(runs), list(runs.values())
    first = results[0]
    plain_columns = list(_per_query(first, node, **options).columns)
    wanted = None
    if metrics is not None:  # the asked measures this node has: its metrics, and trec measures of a document node
        documents = first.has_documents(node) and not first.has_answers(node)
        named, measures_asked = measure_names([metrics] if isinstance(metrics, str) else list(metrics))
        wanted = [m for m in named if m in plain_columns or (documents and m in measures_asked)]
        if not wanted:
            return None
    table = compare_function(*results, node=node, metrics=wanted, names=names, rounds=rounds, confidence=confidence, seed=seed,
                    test=test, max_p=max_p, **options)
    p_column = "p_holm" if len(names) > 2 else TESTS[test]
    chosen = list(dict.fromkeys(table.index.get_level_values("metric")))
    scores = scores_of_runs(results)  # every run's declarations (opposite directions refused)
    directions = {m: measure_direction(m, scores) for m in chosen}
    signs = {m: _SIGNS[directions[m]] for m in chosen}  # a count (direction "none"): 0, no change better or worse
    measures = []
    for metric in chosen:
        rows = ([table.loc[metric]] if len(names) == 2 else [table.loc[(name, metric)] for name in names[1:]])
        run_deltas = _run_deltas(names[1:], rows, signs[metric], p_column)
        means = (float(rows[0]["mean_a"]), *(float(row["mean_b"]) for row in rows))
        measures.append(ComparedMeasure(metric, _description(metric, scores), directions[metric], means, tuple(run_deltas),
                                        int(min(row["queries"] for row in rows))))
    per_slice: tuple[SliceMeasure, ...] = ()
    if keys:  # the slice view: the statistics of each slice's queries, corrected over the slices (and runs)
        sliced = compare_function(*results, node=node, metrics=wanted, names=names, rounds=rounds,
                                  confidence=confidence, seed=seed, test=test, max_p=max_p, by=keys, **options)
        per_slice = _slice_measures(sliced, names, chosen, directions, test)
    # the grid: every query of any run, in the first run's order then the others'
    extra = [m for m in chosen if m not in plain_columns]  # trec measures
    tables = [_per_query(result, node, by=keys or None, with_query=True, measures=extra or None, **options)
              for result in results]
    index = tables[0].index
    for other in tables[1:]:
        index = index.append(other.index[~other.index.isin(index)])
    if len(names) == 2:  # what the comparison can detect: the paired t-test's power on the per-query differences
        measures = [dataclasses.replace(measure, detectable=_detectable(tables, measure.metric, max_p, power))
                    for measure in measures]
    aligned = [t.reindex(index) for t in tables]
    labels = [str(c) for c in tables[0].columns if c != "query" and c not in chosen and c not in plain_columns]
    text = aligned[0]["query"]
    slices = aligned[0][labels] if labels else pd.DataFrame(index=index)
    for other in aligned[1:]:
        text = text.fillna(other["query"])
        if labels:
            slices = slices.fillna(other[labels])
    values = {m: np.column_stack([t[m].to_numpy(dtype=np.float64, na_value=np.nan) for t in aligned]) for m in chosen}
    deltas = {m: values[m][:, 1:] - values[m][:, :1] for m in chosen}
    headline = first.headline_metric(node)  # worst-by-delta of the headline metric, else of the first that moved
    # the queries are ordered by a measure with a direction (a count's change is neither worse nor better)
    directed = [m for m in chosen if signs[m]] or chosen
    moved = [m for m in directed if np.nan_to_num(deltas[m]).any()]
    order_metric = headline if headline in directed and (headline in moved or not moved) else (moved or directed)[0]
    gains = deltas[order_metric] * signs[order_metric]
    worst = np.minimum(np.nan_to_num(np.nanmin(np.where(np.isnan(gains), np.inf, gains), axis=1), posinf=0.0), 0.0)
    order = np.argsort(worst, kind="stable")
    ordered = index[order]
    query_text = texts(text.to_numpy(dtype=object)[order], "")
    grid = Grid(node, texts(ordered.to_numpy(dtype=object), ""), query_text,
                {c: texts(slices[c].to_numpy(dtype=object)[order], "") for c in labels},
                {m: values[m][order] for m in chosen}, dict(signs), np.zeros(len(order), dtype=np.int64))
    compared = ComparedNode(node, first.has_answers(node), tuple(measures), order_metric, tuple(labels), grid,
                            per_slice)
    return compared, ordered, query_text


def _run_deltas(runs: Sequence[str], rows: Sequence[pd.Series], sign: float, p_column: str) -> list[RunDelta]:
    """Each later run's :class:`RunDelta` from its row of a comparison table (``p_column``: the p-value marked)."""
    deltas = []
    for name, row in zip(runs, rows):
        gain = sign * row["delta"]
        change = ("better" if gain > 0 else "worse" if gain < 0 else "") if bool(row["significant"]) else ""
        deltas.append(RunDelta(name, float(row["delta"]), float(row["ci_low"]), float(row["ci_high"]),
                               float(row[p_column]), bool(row["significant"]), change, float(row["d_z"]),
                               float(row["improved"])))
    return deltas


def slice_text(label: Any) -> str:
    """A slice's label as the report shows it: several keys' labels joined by " / ", a missing one ``(none)``.

    >>> slice_text(("billing", True)), slice_text(None), slice_text(2023)
    ('billing / True', '(none)', '2023')
    """
    if isinstance(label, tuple):
        return " / ".join(slice_text(part) for part in label)
    return "(none)" if _is_missing(label) else str(label)


def _slice_measures(table: pd.DataFrame, names: Sequence[str], metrics: Sequence[str], directions: Mapping[str, str],
                    test: str) -> tuple[SliceMeasure, ...]:
    """The slice view from :func:`evalframe.compare`'s table with ``by=`` (index ``(slice, metric)`` or ``(slice,
    run, metric)``): per slice, in the table's order, each measure's :class:`SliceMeasure`."""
    p_column = p_column_of(table, test)
    codes = pd.factorize(table.index.get_level_values("slice"), use_na_sentinel=False)[0]
    metric_of = table.index.get_level_values("metric")
    runs = table.index.get_level_values("run") if "run" in table.index.names else pd.Index([names[1]] * len(table))
    positions: dict[tuple[int, str], dict[str, int]] = {}
    for position, (code, metric, run) in enumerate(zip(codes.tolist(), metric_of, runs)):
        positions.setdefault((code, str(metric)), {})[str(run)] = position
    labels = table.index.get_level_values("slice")
    measures = []
    for (_, metric), by_run in positions.items():
        if metric not in metrics:
            continue
        rows = [table.iloc[by_run[name]] for name in names[1:]]
        deltas = _run_deltas(names[1:], rows, _SIGNS[directions[metric]], p_column)
        values = (float(rows[0]["mean_a"]), *(float(row["mean_b"]) for row in rows))
        measures.append(SliceMeasure(slice_text(labels[by_run[names[1]]]), metric, directions[metric], values,
                                     tuple(deltas), int(min(row["queries"] for row in rows))))
    return tuple(measures)
