"""The queries a person should read: wrong_examples-shaped dicts from a per-query table and the node's rows."""

from __future__ import annotations

import json
from html import escape
from typing import Any, SupportsIndex, overload

import pandas as pd

from ..errors import InvalidParameterError, SchemaError

__all__ = ["ANSWER_DROP", "DOCUMENT_DROP", "NO_ANSWER", "Examples", "worst", "examples"]

#: Columns left out of each listed answer / document row (they are the query's, listed once; ``meta`` parsed).
ANSWER_DROP = ("node", "query", "type", "gold_answers", "gold_offsets_in_documents", "gold_document_ids", "meta")
DOCUMENT_DROP = ("node", "query", "multilabel_id", "filters", "type", "gold_document_ids", "gold_contexts", "meta")


def parsed_meta(value: Any, multilabel_id: Any) -> dict[str, Any]:
    """A query's ``meta`` cell as the dict it holds: JSON text (as saved) or a dict; ``{}`` for none."""
    if isinstance(value, dict):
        return value
    if value is None or (isinstance(value, float) and value != value):
        return {}
    try:
        meta = json.loads(value)
    except (TypeError, ValueError):
        meta = None
    if not isinstance(meta, dict):
        raise SchemaError(f"column 'meta' holds {value!r:.80} for multilabel_id {multilabel_id!r}, which is not the JSON "
                          "text of an object; meta cells are JSON objects such as '{\"topic\": \"billing\"}' (or empty).")
    return meta


def worst(
    table: pd.DataFrame,
    metric: str,
    threshold: float | None,
    n: int,
    rows: pd.DataFrame,
    key: str,
    drop: tuple[str, ...],
    direction: str = "higher",
) -> Examples:
    """The ``n`` queries of ``table`` worst in ``metric`` (ties in table order; queries without a value left out):
    the lowest when higher is better (``direction``), the highest when lower is; with a ``threshold``, those at or
    worse than it (``<=``, or ``>=`` for lower-is-better). A metric without a direction (``"none"``: a count) has no
    worst queries: refused (the callers name the measure and what to pick instead, before any work)."""
    if direction not in ("higher", "lower"):
        raise InvalidParameterError(f"{metric} has direction {direction!r}: it has no worst queries; pick a measure "
                                    "where higher or lower is better.", parameter="metric")
    valued = table[table[metric].notna()]
    ranked = valued.sort_values(metric, kind="stable", ascending=direction == "higher").head(n)
    if threshold is not None:
        ranked = ranked[ranked[metric] <= threshold] if direction == "higher" else ranked[ranked[metric] >= threshold]
    return examples(ranked, rows, key, drop)


def examples(queries: pd.DataFrame, rows: pd.DataFrame, key: str, drop: tuple[str, ...]) -> Examples:
    """One wrong_examples dict per query of ``queries`` (a per-query table), in its order."""
    if len(queries) == 0:
        return Examples()
    selected = rows[rows["multilabel_id"].isin(queries.index)]
    listed = selected.drop(columns=[c for c in drop if c in selected.columns])
    groups = {qid: idx for qid, idx in selected.groupby("multilabel_id", sort=False).indices.items()}
    records = listed.to_dict(orient="records")
    out = Examples()
    for multilabel_id, values in queries.iterrows():
        positions = groups[multilabel_id]
        first = selected.iloc[positions[0]]
        example: dict[str, Any] = {
            "multilabel_id": multilabel_id,
            "query": first.get("query"),
            "filters": first.get("filters"),
            "meta": parsed_meta(first.get("meta"), multilabel_id),
            "metrics": {m: float(v) for m, v in values.items()},
            key: [records[p] for p in positions],
        }
        if key == "answers":
            example["gold_answers"] = first.get("gold_answers")
        example["gold_document_ids"] = first.get("gold_document_ids")
        out.append(example)
    return out


#: What the printed form shows: rows listed per query, and the width each line is cut to.
SHOWN_ROWS = 3
WIDTH = 100


def _cut(text: str, width: int = WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with a trailing ``…``."""
    text = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _number(value: Any) -> str:
    try:
        return format(float(value), ".3g")
    except (TypeError, ValueError):
        return str(value)


def _metrics(metrics: Any) -> str:
    if not isinstance(metrics, dict):
        return ""
    return "  ".join(f"{name} {_number(value)}" for name, value in metrics.items())


def _gold(example: dict[str, Any]) -> str:
    parts = []
    if "gold_answers" in example:
        parts.append(f"answers {_quoted(example['gold_answers'])}")
    parts.append(f"documents {_plain(example.get('gold_document_ids'))}")
    return " | ".join(parts)


#: How a missing or empty answer reads, as in the report.
NO_ANSWER = "(no answer)"


def _answer(value: Any) -> str:
    """An answer as it reads: quoted, or (no answer) for an empty or missing one."""
    return NO_ANSWER if value is None or value == "" or (isinstance(value, float) and value != value) else repr(value)


def _quoted(values: Any) -> str:
    if values is None or isinstance(values, (float, str)):
        return _answer(values)
    return "[" + ", ".join(_answer(v) for v in values) + "]" if len(values) else "[]"


def _plain(values: Any) -> str:
    if values is None or isinstance(values, (float, str)):
        return repr(values)
    return "[" + ", ".join(str(v) for v in values) + "]"


def _row(row: dict[str, Any], kind: str) -> str:
    """One listed row: rank, the answer (and its documents) or the document id (its gold id match and passage)."""
    rank = row.get("rank")
    head = f"{int(rank)}." if isinstance(rank, (int, float)) and rank == rank else "-."
    if kind == "answers":
        scores = "  ".join(f"{m} {_number(row[m])}" for m in ("exact_match", "f1") if m in row)
        return f"{head} {_answer(row.get('answer'))}  {scores}  docs {_plain(row.get('document_ids'))}"
    document_id = row.get("document_id")
    shown = repr(document_id) if not isinstance(document_id, str) or document_id == "" else document_id
    match = "gold" if row.get("gold_id_match") == 1 else "    "
    return f"{head} {shown:<12} {match}  {row.get('context')!r}"


def _kind(example: dict[str, Any]) -> str:
    return "answers" if "answers" in example else "documents"


class Examples(list[dict[str, Any]]):
    """The list of wrong_examples dicts, printed for a person to read.

    A plain ``list`` in every other way (it equals the list of dicts, ``json.dumps`` and ``pickle`` take it);
    its ``repr`` gives a few lines per query (id, query text, metrics, gold, the first rows cut to a line)
    and, in a notebook, a compact table. Index it for the full dicts: ``examples[0]["answers"]``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> worst = load_demo_result().wrong_examples("Reader", n=1)
    >>> isinstance(worst, list)
    True
    >>> worst  # doctest: +NORMALIZE_WHITESPACE
    1 query (a list of dicts; index it for all fields)
    [0] How tall is Mount Everest?  (c385ff700e6e9d9a78dc15ccad18f7d5)
        metrics   exact_match 0  f1 0
        gold      answers ['8,848.86 metres'] | documents [doc-everest]
        answers   1. (no answer)  exact_match 0  f1 0  docs []
    """

    @overload
    def __getitem__(self, index: SupportsIndex) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Examples: ...

    def __getitem__(self, index: SupportsIndex | slice) -> dict[str, Any] | Examples:
        """One query's dict; a slice (``worst[:2]``) is an Examples again, printed the same way."""
        if isinstance(index, slice):
            return Examples(super().__getitem__(index))
        return super().__getitem__(index)

    def _summary(self, example: dict[str, Any]) -> list[str]:
        kind = _kind(example)
        rows = example.get(kind) or []
        lines = [f"    metrics   {_metrics(example.get('metrics'))}"]
        if example.get("meta"):
            lines.append(f"    meta      {json.dumps(example['meta'], sort_keys=True, default=str)}")
        if "delta" in example:
            baseline = example.get("baseline") or {}
            lines.append(f"    delta     {_number(example['delta'])}  (baseline {_metrics(baseline.get('metrics'))})")
        lines.append(f"    gold      {_gold(example)}")
        for position, row in enumerate(rows[:SHOWN_ROWS]):
            label = kind if position == 0 else ""
            lines.append(f"    {label:<9} {_row(row, kind)}")
        if len(rows) > SHOWN_ROWS:
            lines.append(f"    {'':<9} … {len(rows) - SHOWN_ROWS} more (in [{kind!r}])")
        return lines

    def __repr__(self) -> str:
        if not self:
            return "0 queries (an empty list)"
        lines = [f"{len(self)} {'query' if len(self) == 1 else 'queries'} (a list of dicts; index it for all fields)"]
        for number, example in enumerate(self):
            if not isinstance(example, dict):
                lines.append(f"[{number}] {example!r}")
                continue
            lines.append(f"[{number}] {example.get('query')}  ({example.get('multilabel_id')})")
            lines += self._summary(example)
        return "\n".join(_cut(line, WIDTH) if not line.startswith("    ") else "    " + _cut(line[4:], WIDTH - 4)
                         for line in lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left'>{h}</th>" for h in ("#", "query", "metrics", "gold", "rows"))
        body = []
        for number, example in enumerate(self):
            if not isinstance(example, dict):
                body.append(f"<tr><td>{number}</td><td colspan='4'>{escape(_cut(repr(example)))}</td></tr>")
                continue
            kind = _kind(example)
            rows = example.get(kind) or []
            listed = [escape(_cut(_row(row, kind), 80)) for row in rows[:SHOWN_ROWS]]
            if len(rows) > SHOWN_ROWS:
                listed.append(f"… {len(rows) - SHOWN_ROWS} more")
            metrics = escape(_metrics(example.get("metrics")))
            if "delta" in example:
                metrics += f"<br>delta {escape(_number(example['delta']))}"
            body.append(
                f"<tr><td>{number}</td><td>{escape(_cut(str(example.get('query'))))}<br>"
                f"<small><code>{escape(str(example.get('multilabel_id')))}</code></small></td>"
                f"<td>{metrics}</td><td>{escape(_cut(_gold(example)))}</td>"
                f"<td style='text-align:left'>{'<br>'.join(listed)}</td></tr>"
            )
        caption = f"{len(self)} {'query' if len(self) == 1 else 'queries'} (a list of dicts; index it for all fields)"
        return (f"<table><caption style='text-align:left'>{escape(caption)}</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
