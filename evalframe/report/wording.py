"""The sentences and number forms every format of the reports shares (each format escapes them its way): the scopes,
what a mean includes, the worst queries' titles, and the comparison's deltas and test note. Text only: the numbers
are the model's (:mod:`evalframe.report.model`).

Examples
--------
>>> signed(0.25), signed(float("nan")), plain(0.5), arrow("lower")
('+0.2500', '', '0.5000', '↓')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import ComparedMeasure, ComparisonModel, ReportModel, RunDelta, Section

__all__ = ["DEFINITIONS_TITLE", "ABOVE_ONE", "scopes", "trec_note", "judged_under", "includes", "answerable_shown",
           "title", "signed", "plain", "arrow", "delta_text", "significance_note", "detectable_text"]

#: The report explains its scopes and metrics in its own last section (a saved page or a pip-installed package has
#: no docs folder to link to).
DEFINITIONS_TITLE = "What the numbers mean"
ABOVE_ONE = "above 1: a relevant document retrieved twice counts twice (Haystack's definition)"
__all__ += ["slice_note", "top1_shown", "isolated_shown"]


# ---------------------------------------------------------------------------------------------- the single run
def scopes(model: ReportModel) -> str:
    """The scopes the report judges with, as the user passes them."""
    return f"document_scope={model.document_scope!r}, answer_scope={model.answer_scope!r}"


def trec_note(model: ReportModel, node: str, queries: int) -> str:
    """Over which queries the funnel's trec_eval measures of ``node`` are means."""
    return (f"{', '.join(model.measures)} of {node}: trec_eval's definitions, means over the {queries} queries trec_eval "
            f"evaluates (the Haystack metrics: over all the node's queries)")


def judged_under(model: ReportModel, section: Section) -> str:
    """Under which scope a listed row counts as correct (the text's legend of ``[correct]``)."""
    scope = model.answer_scope if section.answer_node else model.document_scope
    both = not section.answer_node and model.document_scope in ("answer", "document_id_or_answer")
    return (f"judged correct under {'answer_scope' if section.answer_node else 'document_scope'} {scope!r}"
            + (f" and answer_scope {model.answer_scope!r}" if both else ""))


def includes(model: ReportModel) -> list[tuple[str, str]]:
    """What the document metrics' means include: each document node's no-answer queries, what the scope credits, and
    the queries of the source left out of the result (the text's label of each, its sentence); what the
    intervals are, when asked (``ci``); and each answer node giving one answer per query, whose top-1 is its
    integrated value (a generator: the funnel leaves its top-1 cells empty)."""
    return [("no-answer", count.sentence()) for count in model.no_answer] + (
        [("scope", model.scope_note)] if model.scope_note else []) + (
        [("left out", model.skipped)] if model.skipped else []) + (
        [("judge runs", model.repeats)] if model.repeats else []) + (
        [("interval", model.interval_note)] if model.interval_note else []) + [
        ("one answer", f"{node.node}: {node.top1_note}; no top-1 value is shown for it.") for node in model.funnel
        if node.top1_note]


def interval_text(interval: tuple[float, float] | None) -> str:
    """An integrated value's interval after it, `` [0.6250, 1.0000]`` (4 decimals; "" without one).

    >>> interval_text((0.625, 1.0)), interval_text(None)
    (' [0.6250, 1.0000]', '')
    """
    return "" if interval is None else f" [{interval[0]:.4f}, {interval[1]:.4f}]"


def top1_shown(model: ReportModel) -> bool:
    """Whether the funnel has the column of the reader's top-1 values (some answer node gives several answers)."""
    return any(row.top1 is not None for node in model.funnel for row in node.rows)


def isolated_shown(model: ReportModel) -> bool:
    """Whether the funnel has the column of the isolated values (some node was run isolated)."""
    return any(row.isolated is not None for node in model.funnel for row in node.rows)


def answerable_shown(model: ReportModel) -> bool:
    """Whether the funnel has the column of the means over the answerable queries."""
    return any(row.answerable is not None for node in model.funnel for row in node.rows)


def title(section: Section) -> str:
    """The heading of a node's worst queries."""
    return f"Worst queries of {section.node} by {section.metric}"


# ---------------------------------------------------------------------------------------------- the comparison
def signed(value: float) -> str:
    """A delta: its sign always shown, 4 decimals (NaN: empty)."""
    return "" if value != value else f"{value:+.4f}"


def plain(value: float) -> str:
    """A value with 4 decimals (NaN: empty)."""
    return "" if value != value else f"{value:.4f}"


def arrow(direction: str) -> str:
    """Which way a measure is better: ↑ higher, ↓ lower, nothing for a count (direction ``"none"``)."""
    return {"higher": "↑", "lower": "↓"}.get(direction, "")


def delta_text(delta: RunDelta) -> str:
    """A run's delta for a person: ``+0.1250 [+0.0000, +0.2500] p=0.0412 *`` (``*``: significant; ▲/▼: better/worse)."""
    mark = {"better": " ▲", "worse": " ▼"}.get(delta.change, "")
    return (f"{signed(delta.delta)} [{signed(delta.ci_low)}, {signed(delta.ci_high)}] p={plain(delta.p_value)}"
            + (" *" if delta.significant else "") + mark)


def slice_note(model: ComparisonModel, keys: Sequence[str]) -> str:
    """What the slice view's rows are: each slice's queries compared alone, the correction over the slices."""
    runs = " and the runs" if model.holm else ""
    test = {"t-test": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}.get(model.test, f"paired {model.test} test")
    return (f"Per slice by {', '.join(keys)}: the runs compared on each slice's queries alone; p: the {test}'s "
            f"p-value Holm-corrected over the slices{runs} of each measure, * when at most {model.max_p:g}; a slice of "
            "fewer than 2 paired queries has no test.")


def significance_note(model: ComparisonModel) -> str:
    """What the deltas, intervals, p-values and marks are."""
    corrected = " Holm-corrected over the runs of each measure," if model.holm else ""
    test = {"t-test": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}.get(model.test, f"paired {model.test} test")
    return (f"Delta: each run minus {model.names[0]!r}, with its {model.confidence:.0%} bootstrap interval; p: the "
            f"{test}'s p-value,{corrected} * when at most {model.max_p:g}; ▲ better / ▼ worse by the measure's "
            f"direction (↑ higher is better, ↓ lower is better, no arrow: a count, neither). Values over the queries "
            f"paired with {model.names[0]!r}.")


def detectable_text(measure: ComparedMeasure) -> str:
    """What a two-run comparison of ``measure`` can detect, one line (empty with 3+ runs): ``with 200 questions a
    change of 0.0312 in recall would be detected 80% of the time (paired t-test, alpha 0.05)``, or why not.

    Examples
    --------
    >>> from evalframe.report.model import ComparedMeasure, Detectable
    >>> measure = ComparedMeasure("recall", "", "higher", (0.5, 0.6), (), 200, Detectable(200, 0.03119, 0.8, 0.05, ""))
    >>> detectable_text(measure)
    'with 200 questions a change of 0.0312 in recall would be detected 80% of the time (paired t-test, alpha 0.05)'
    """
    found = measure.detectable
    if found is None:
        return ""
    test = f"paired t-test, alpha {found.alpha:g}"
    if found.mde != found.mde:
        return f"{measure.metric}: no detectable change estimated ({test}; {found.note})"
    return (f"with {found.queries} questions a change of {found.mde:.3g} in {measure.metric} would be detected "
            f"{found.power:.0%} of the time ({test}" + (f"; {found.note}" if found.note else "") + ")")
