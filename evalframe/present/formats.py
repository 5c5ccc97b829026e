"""The output formats of the command line: one table of renderers per kind of output.

:data:`TABLE_FORMATS` renders the tables of ``evalframe metrics``, ``worst`` and ``compare`` (``table``, ``json``,
``csv``, ``markdown``: each a renderer and where the scopes line goes); ``TREC_FORMATS`` the output of ``evalframe
trec`` (trec_eval's ``tsv`` lines, ``json``, ``markdown``: :mod:`evalframe.present.trec_formats`, which needs no
pandas); the report's formats are :data:`evalframe.report.formats.FORMATS`. A new format is one renderer and
one key. Every text of a Markdown table is escaped by the one Markdown escaping, :func:`evalframe.report.escape.md`.

Examples
--------
>>> import pandas as pd
>>> print(render_table(pd.DataFrame({"f1": [0.5]}, index=pd.Index(["Reader"], name="node")), "markdown"))
| node | f1 |
|---|---|
| Reader | 0.5000 |
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pandas as pd

from ..metrics.registry import METRICS
from ..report.escape import md
from .trec_formats import cell_text

__all__ = ["TABLE_FORMATS", "FORMATS", "TableFormat", "render_table", "markdown_table", "above_one_note", "short_text",
           "COUNT_COLUMNS"]

COUNT_COLUMNS = ("num_examples_for_eval", "queries", "wins", "ties", "losses", "only_a", "only_b")


def markdown_table(frame: pd.DataFrame) -> str:
    """``frame`` as a GitHub-flavoured Markdown table: its index and every cell as text, escaped (:func:`cell_text`).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"query": ["<b>a|b</b>"]}, index=pd.Index(["q|1"], name="multilabel_id"))))
    | multilabel_id | query |
    |---|---|
    | q\\|1 | \\<b\\>a\\|b\\</b\\> |
    """
    # every table the commands render names its index with a string (node, multilabel_id, ...) or not at all
    header = [cast(str, frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(map(md, header)) + " |", "|" + "---|" * len(header)]
    for index, row in frame.iterrows():
        lines.append("| " + " | ".join([md(index)] + [cell_text(v) for v in row.tolist()]) + " |")
    return "\n".join(lines)


#: The counts a measure without a direction (a count such as NumRet, ``direction_of``: "none") has none of: ``n/a``.
NO_WINS = ("wins", "losses")


def counts_as_int(frame: pd.DataFrame) -> pd.DataFrame:
    """Count columns holding only whole numbers print as 117, not 117.0000 (a missing count stays NaN, like the rest;
    missing wins and losses, of a measure without a direction, print n/a)."""
    frame = frame.copy()
    for column in frame.columns:
        if str(column) not in COUNT_COLUMNS or not pd.api.types.is_numeric_dtype(frame[column]):
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        present = values.dropna()
        if (present == present.round()).all():
            # object dtype: ints where present, NaN where missing (Int64 would print <NA> beside the other NaN)
            missing = "n/a" if str(column) in NO_WINS else np.nan
            frame[column] = values.astype("Int64").astype(object).where(values.notna(), missing)
    return frame


def _as_table(frame: pd.DataFrame, records: Callable[[], Any]) -> str:
    with pd.option_context("display.max_rows", 500, "display.max_columns", 50, "display.width", 200,
                           "display.max_colwidth", 60, "display.float_format", "{:.4f}".format):
        return counts_as_int(frame).to_string()


def _as_json(frame: pd.DataFrame, records: Callable[[], Any]) -> str:
    return json.dumps(records(), indent=1, ensure_ascii=False, default=str)


def _as_csv(frame: pd.DataFrame, records: Callable[[], Any]) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer)
    return buffer.getvalue().rstrip("\n")


def _as_markdown(frame: pd.DataFrame, records: Callable[[], Any]) -> str:
    return markdown_table(counts_as_int(frame))


def _scopes_above(text: str, scopes: Callable[[], str], note: str) -> str:
    return f"{scopes()}\n{text}" + (f"\n{note}" if note else "")


def _scopes_below(text: str, scopes: Callable[[], str], note: str) -> str:
    """Below a markdown table: its first line stays the table's header row."""
    return f"{text}\n\n{scopes()}" + (f"\n\n{note}" if note else "")


def _no_scopes(text: str, scopes: Callable[[], str], note: str) -> str:
    return text


@dataclasses.dataclass(frozen=True)
class TableFormat:
    """An output format of the table commands: how a table is rendered (``records`` gives the JSON records) and
    where the scopes line and the above-1 note go."""

    render: Callable[[pd.DataFrame, Callable[[], Any]], str]
    with_scopes: Callable[[str, Callable[[], str], str], str]


#: The --format of the table commands (metrics, worst, compare): each format's renderer.
TABLE_FORMATS = {"table": TableFormat(_as_table, _scopes_above), "json": TableFormat(_as_json, _no_scopes),
                 "csv": TableFormat(_as_csv, _no_scopes), "markdown": TableFormat(_as_markdown, _scopes_below)}
FORMATS = tuple(TABLE_FORMATS)


def render_table(frame: pd.DataFrame, fmt: str, records: Callable[[], Any] | None = None) -> str:
    """``frame`` in ``fmt``; ``records``: what the json format writes (default: the rows by index)."""
    return TABLE_FORMATS[fmt].render(frame, records or (lambda: json.loads(frame.to_json(orient="index"))))


def above_one_note(table: pd.DataFrame) -> str:
    """A note naming the metric columns with values above 1, and why, or ""."""
    above = [column for column in table.columns if column in METRICS
             and (pd.to_numeric(table[column], errors="coerce") > 1.0).any()]
    if not above:
        return ""
    return (f"note: {', '.join(above)} above 1: Haystack 1.x's definition counts a relevant document retrieved more "
            "than once each time (docs/metrics.md#per-query).")


def short_text(value: Any, width: int = 60) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."
