"""The one table of the reports' formats: :data:`FORMATS`, read by ``Report.render`` and ``ComparisonReport.render``,
``save``'s choice by suffix, ``evalframe report --format`` and the docs.

A format is one module rendering both models (``render(ReportModel) -> str`` and
``render_comparison(ComparisonModel) -> str``: :mod:`~evalframe.report.text`, :mod:`~evalframe.report.html`,
:mod:`~evalframe.report.markdown`, :mod:`~evalframe.report.json`) and one entry here: its name, the file suffixes
``save`` writes it for, and a line for ``--help``. ``tests/report/test_formats.py`` renders every entry's both models.
Loads no pandas: the command's parsers read the table.

Examples
--------
>>> list(FORMATS)
['text', 'html', 'markdown', 'json']
>>> format_of_path("compare.md")
'markdown'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import html, json, markdown, text
from ..errors import InvalidParameterError

if TYPE_CHECKING:
    from .model import ComparisonModel, ReportModel

__all__ = ["Format", "FORMATS", "suffixes", "format_of_path"]


@dataclass(frozen=True)
class Format:
    """An output format of the reports: its renderer of each model, the suffixes of the files written in it, whether
    it shows the report's charts (``evalframe report`` draws them only then), and what it is, for ``--help``."""

    name: str
    render: Callable[[ReportModel], str]
    render_comparison: Callable[[ComparisonModel], str]
    suffixes: tuple[str, ...]
    help: str
    charts: bool = False


#: Every format of the reports, by name: ``report.render(name)``, ``evalframe report --format NAME``.
FORMATS: dict[str, Format] = {entry.name: entry for entry in (
    Format("text", text.render, text.render_comparison, (".txt",), "for a terminal"),
    Format("html", html.render, html.render_comparison, (".html", ".htm"), "one self-contained page, charts embedded",
           charts=True),
    Format("markdown", markdown.render, markdown.render_comparison, (".md", ".markdown"), "GitHub-flavoured, no chart"),
    Format("json", json.render, json.render_comparison, (".json",), "docs/cli.md#the-report-as-json"),
)}

def suffixes() -> dict[str, str]:
    """The format of each file suffix ``save`` knows (read from :data:`FORMATS` when asked).

    Examples
    --------
    >>> sorted(suffixes())
    ['.htm', '.html', '.json', '.markdown', '.md', '.txt']
    """
    return {suffix: entry.name for entry in FORMATS.values() for suffix in entry.suffixes}


def format_of_path(path: str | os.PathLike[str]) -> str:
    """The format a report saved to ``path`` is written in: its suffix's (:func:`suffixes`, any case).

    Raises
    ------
    InvalidParameterError
        A suffix no format has, naming those that do.

    Examples
    --------
    >>> format_of_path("out/REPORT.HTML")
    'html'
    """
    suffix, known = Path(path).suffix, suffixes()
    if suffix.lower() not in known:
        raise InvalidParameterError(f"save({str(path)!r}): the suffix {suffix!r} names no format; use one "
                                    f"of {sorted(known)} or pass format=.", parameter="path")
    return known[suffix.lower()]
