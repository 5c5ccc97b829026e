"""The regression gate's verdict as a person or a CI system reads it: text, Markdown, JUnit XML and JSON.

:func:`render_verdict` lays out one :class:`~evalframe.analysis.gate.Verdict` (``evalframe.gate``, ``evalframe gate``)
in one of :data:`VERDICT_FORMATS`:

- ``text``: one screen: the runs, the node, the questions, alpha, the test and the correction; one line per rule
  (its flag, PASS / FAIL / UNDECIDED, its numbers and its reason); the worst regressed queries; the verdict and the
  exit status last.
- ``markdown``: the same as tables, for a pull request's comment or ``$GITHUB_STEP_SUMMARY``; every text of the
  user's (run names, node, measures, query ids and texts) escaped (:func:`evalframe.report.escape.md`).
- ``junit``: one ``<testsuite name="evalframe gate">`` with one ``<testcase classname="evalframe.gate"
  name="FLAG">`` per rule, a ``<failure>`` for a rule that fails and an ``<error>`` for one the gate could not
  decide; control characters of the user's texts shown as their pictures, so the XML stays valid.
- ``json``: the verdict's numbers (NaN as null).

Examples
--------
>>> import pandas as pd
>>> from evalframe.analysis.gate import decide, rules_of
>>> index = pd.Index([f"q{i}" for i in range(6)], name="multilabel_id")
>>> baseline = pd.DataFrame({"mrr": [1.0, 0.5, 1.0, 0.5, 1.0, 0.25]}, index=index)
>>> candidate = pd.DataFrame({"mrr": [0.5, 0.5, 0.5, 0.25, 1.0, 0.25]}, index=index)
>>> verdict = decide(baseline, candidate, rules_of(no_drop="mrr"), names=("main", "branch"))
>>> print(render_verdict(verdict).splitlines()[-1])
verdict: FAIL (exit 1): 1 of 1 rule failed
>>> import json
>>> round(json.loads(render_verdict(verdict, "json"))["rules"][0]["p_value"], 4)
0.0463
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

from .._validation import check_choice
from .escape import json_text, md, visible

__all__ = ["VERDICT_FORMATS", "render_verdict", "verdict_data"]

#: The formats of :func:`render_verdict` (``evalframe gate --format``).
VERDICT_FORMATS = ("text", "markdown", "junit", "json")

_RULE_FIELDS = ("queries", "baseline", "candidate", "delta", "low", "high", "p_value", "p_adjusted")
_WORST_FIELDS = ("measure", "query", "text", "baseline", "candidate", "delta")
_MARKS = {"pass": "PASS", "fail": "FAIL", "undecided": "UNDECIDED"}


def _number(value: Any, digits: int = 4) -> str:
    """A number for a person: 4 decimals (p-values: 4 significant digits), ``-`` for NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.{digits}f}"


def _p(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.4g}"


def _plain(value: Any) -> Any:
    """A value for JSON: numpy scalars as Python's, NaN and None as null."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _counts(verdict: Any) -> dict[str, int]:
    statuses = [outcome.status for outcome in verdict.outcomes]
    return {status: statuses.count(status) for status in ("pass", "fail", "undecided")}


def _summary(verdict: Any) -> str:
    """``FAIL (exit 1): 1 of 3 rules failed`` and the like."""
    counts = _counts(verdict)
    total = len(verdict.outcomes)
    rules = "rule" if total == 1 else "rules"
    if verdict.status == "fail":
        said = f"{counts['fail']} of {total} {rules} failed"
    elif verdict.status == "undecided":
        said = (f"{counts['undecided']} of {total} {rules} could not be decided" if not verdict.message else
                "the gate could not decide")
    else:
        said = f"{total} of {total} {rules} passed"
    return f"{verdict.status.upper()} (exit {verdict.exit_code}): {said}"


def _queries(verdict: Any) -> int:
    return max((outcome.queries for outcome in verdict.outcomes), default=0)


def _worst_rows(verdict: Any) -> list[dict[str, Any]]:
    worst = verdict.worst
    if worst is None or not len(worst):
        return []
    return [{field: _plain(value) for field, value in zip(_WORST_FIELDS, row)}
            for row in zip(*(worst[field].tolist() for field in _WORST_FIELDS))]


def verdict_data(verdict: Any) -> dict[str, Any]:
    """The verdict as JSON-ready data (the ``json`` format's content; NaN as None).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe.analysis.gate import decide, rules_of
    >>> table = pd.DataFrame({"mrr": [1.0, 0.5, 0.5]}, index=["q1", "q2", "q3"])
    >>> data = verdict_data(decide(table, table, rules_of(minimum={"mrr": 0.5})))
    >>> data["status"], data["rules"][0]["rule"], data["rules"][0]["p_value"]
    ('pass', '--min mrr=0.5', None)
    """
    questions = verdict.questions
    return {
        "status": verdict.status, "exit_code": verdict.exit_code,
        "baseline": verdict.baseline_name, "candidate": verdict.candidate_name, "node": verdict.node,
        "alpha": _plain(verdict.alpha), "test": verdict.test, "correction": verdict.correction,
        "confidence_note": verdict.confidence_note, "message": verdict.message,
        "questions": {"baseline": questions.baseline, "candidate": questions.candidate, "common": questions.common,
                      "differ": questions.differ, "on_common": questions.on_common},
        "rules": [{"rule": outcome.rule.flag(), "kind": outcome.rule.kind, "measure": outcome.rule.measure,
                   "value": _plain(outcome.rule.value), "status": outcome.status, "reason": outcome.reason,
                   "direction": outcome.direction,
                   **{field: _plain(getattr(outcome, field)) for field in _RULE_FIELDS}}
                  for outcome in verdict.outcomes],
        "worst": _worst_rows(verdict),
    }


def _header(verdict: Any) -> list[str]:
    node = f", node {visible(verdict.node)!r}" if verdict.node is not None else ""
    questions = verdict.questions
    common = " (gated on the common ones)" if questions.on_common and questions.differ else ""
    return [f"evalframe gate: candidate {visible(verdict.candidate_name)!r} against baseline "
            f"{visible(verdict.baseline_name)!r}{node}",
            f"questions: baseline {questions.baseline}, candidate {questions.candidate}, common {questions.common}"
            f"{common}; alpha {verdict.alpha:g}, {verdict.test}, correction {verdict.correction}; "
            f"{verdict.confidence_note}"]


def _numbers(outcome: Any) -> str:
    """A rule's numbers on one line: ``delta -0.0885 [-0.1416, -0.0442], p 0.0016 (adjusted 0.0032), 48 queries``."""
    if outcome.rule.kind == "min":
        shown = f"candidate {_number(outcome.candidate)} [{_number(outcome.low)}, {_number(outcome.high)}]"
    else:
        shown = (f"{_number(outcome.baseline)} -> {_number(outcome.candidate)}, delta {_number(outcome.delta)} "
                 f"[{_number(outcome.low)}, {_number(outcome.high)}]")
        if not math.isnan(outcome.p_value):
            adjusted = (f" (adjusted {_p(outcome.p_adjusted)})"
                        if outcome.rule.kind == "no-drop" and outcome.p_adjusted != outcome.p_value else "")
            shown += f", p {_p(outcome.p_value)}{adjusted}"
    return f"{shown}, {outcome.queries} quer{'y' if outcome.queries == 1 else 'ies'}"


def _text(verdict: Any) -> str:
    lines = _header(verdict)
    if verdict.message:
        lines.append(f"cannot decide: {visible(verdict.message)}")
    lines.append("rules:")
    width = max(len(visible(outcome.rule.flag())) for outcome in verdict.outcomes)
    for outcome in verdict.outcomes:
        lines.append(f"  {visible(outcome.rule.flag()):<{width}}  {_MARKS[outcome.status]:<9}  {_numbers(outcome)}")
        lines.append(f"  {'':<{width}}  {'':<9}  {visible(outcome.reason)}")
    rows = _worst_rows(verdict)
    if rows:
        lines.append("worst regressed queries:")
        cells = [[visible(row["measure"]), visible(row["query"]), _number(row["baseline"]), _number(row["candidate"]),
                  _number(row["delta"]), visible(row["text"] or "")[:60]] for row in rows]
        titles = ["measure", "query", "baseline", "candidate", "delta", "text"]
        widths = [max(len(titles[i]), *(len(cell[i]) for cell in cells)) for i in range(5)]
        lines.append("  " + "  ".join(title.ljust(width) for title, width in zip(titles, widths)) + "  text")
        for cell in cells:
            lines.append(("  " + "  ".join(value.rjust(width) if i >= 2 else value.ljust(width)
                                           for i, (value, width) in enumerate(zip(cell, widths)))
                          + "  " + cell[5]).rstrip())
    lines.append(f"verdict: {_summary(verdict)}")
    return "\n".join(lines)


def _md(value: Any) -> str:
    """The user's text for a Markdown cell or line: control characters as their pictures, Markdown's syntax escaped."""
    return md(visible(value))


_MD_MARKS = {"pass": "✅ pass", "fail": "❌ fail", "undecided": "⚠️ undecided"}


def _markdown(verdict: Any) -> str:
    questions = verdict.questions
    node = f", node {_md(verdict.node)}" if verdict.node is not None else ""
    lines = [f"### evalframe gate: {_summary(verdict)}", "",
             f"Candidate **{_md(verdict.candidate_name)}** against baseline **{_md(verdict.baseline_name)}**{node}: "
             f"questions baseline {questions.baseline}, candidate {questions.candidate}, common {questions.common}"
             f"{' (gated on the common ones)' if questions.on_common and questions.differ else ''}; alpha "
             f"{verdict.alpha:g}, {_md(verdict.test)}, correction {_md(verdict.correction)}; "
             f"{_md(verdict.confidence_note)}.", ""]
    if verdict.message:
        lines += [f"**Cannot decide:** {_md(verdict.message)}", ""]
    lines += ["| rule | status | baseline | candidate | delta | interval | p | p adjusted | queries | reason |",
              "|---|---|---:|---:|---:|---|---:|---:|---:|---|"]
    for outcome in verdict.outcomes:
        lines.append(f"| {_md(outcome.rule.flag())} | {_MD_MARKS[outcome.status]} | {_number(outcome.baseline)} | "
                     f"{_number(outcome.candidate)} | {_number(outcome.delta)} | "
                     f"[{_number(outcome.low)}, {_number(outcome.high)}] | {_p(outcome.p_value)} | "
                     f"{_p(outcome.p_adjusted)} | {outcome.queries} | {_md(outcome.reason)} |")
    rows = _worst_rows(verdict)
    if rows:
        lines += ["", "**Worst regressed queries**", "", "| measure | query | baseline | candidate | delta | text |",
                  "|---|---|---:|---:|---:|---|"]
        lines += [f"| {_md(row['measure'])} | {_md(row['query'])} | {_number(row['baseline'])} | "
                  f"{_number(row['candidate'])} | {_number(row['delta'])} | {_md(row['text'] or '')} |" for row in rows]
    return "\n".join(lines) + "\n"


def _junit(verdict: Any) -> str:
    counts = _counts(verdict)
    suite = ET.Element("testsuite", {"name": "evalframe gate", "tests": str(len(verdict.outcomes)),
                                     "failures": str(counts["fail"]), "errors": str(counts["undecided"]),
                                     "skipped": "0"})
    properties = ET.SubElement(suite, "properties")
    for name, value in (("baseline", verdict.baseline_name), ("candidate", verdict.candidate_name),
                        ("node", verdict.node or ""), ("alpha", f"{verdict.alpha:g}"), ("test", verdict.test),
                        ("correction", verdict.correction), ("status", verdict.status),
                        ("exit_code", str(verdict.exit_code))):
        ET.SubElement(properties, "property", {"name": name, "value": visible(value)})
    for outcome in verdict.outcomes:
        case = ET.SubElement(suite, "testcase", {"classname": "evalframe.gate", "name": visible(outcome.rule.flag())})
        details = f"{_numbers(outcome)}\n{visible(outcome.reason)}"
        if outcome.status == "fail":
            failure = ET.SubElement(case, "failure", {"message": visible(outcome.reason), "type": "regression"})
            failure.text = details
        elif outcome.status == "undecided":
            reason = visible(verdict.message or outcome.reason)
            error = ET.SubElement(case, "error", {"message": reason, "type": "undecided"})
            error.text = f"{details}\n{reason}" if verdict.message else details
        else:
            ET.SubElement(case, "system-out").text = details
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def render_verdict(verdict: Any, fmt: str = "text") -> str:
    """The gate's verdict in ``fmt``, one of :data:`VERDICT_FORMATS` (the module's documentation says what each
    holds).

    Parameters
    ----------
    verdict : Verdict
        What :func:`evalframe.gate` (or :func:`evalframe.analysis.gate.decide`) returned.
    fmt : str
        ``"text"``, ``"markdown"``, ``"junit"`` or ``"json"``.

    Returns
    -------
    str
        The rendered verdict (``markdown``, ``junit`` and ``json`` end with a line feed).

    Raises
    ------
    InvalidParameterError
        ``fmt`` is no format of :data:`VERDICT_FORMATS`.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe.analysis.gate import decide, rules_of
    >>> table = pd.DataFrame({"mrr": [1.0, 0.5, 0.5]}, index=["q1", "q2", "q3"])
    >>> verdict = decide(table, table, rules_of(minimum={"mrr": 0.5}))
    >>> print(render_verdict(verdict, "junit"))  # doctest: +ELLIPSIS
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuite name="evalframe gate" tests="1" failures="0" errors="0" skipped="0">
    ...
      <testcase classname="evalframe.gate" name="--min mrr=0.5">
    ...
    """
    check_choice(fmt, VERDICT_FORMATS, name="fmt")
    if fmt == "text":
        return _text(verdict)
    if fmt == "markdown":
        return _markdown(verdict)
    if fmt == "junit":
        return _junit(verdict)
    return json_text(verdict_data(verdict)) + "\n"

