"""The reports: the pipeline funnel and the worst queries of a run, and runs side by side, as text, one
self-contained HTML page, Markdown or JSON.

Each report has a model, built once with every number (:mod:`evalframe.report.model`: :func:`build_report` makes a
:class:`Report`, :func:`evalframe.compare_report` a :class:`ComparisonReport`, :mod:`evalframe.report.reports`), and
each format is one module that lays both models out, listed once in :data:`FORMATS`
(:mod:`evalframe.report.formats`: :mod:`~evalframe.report.text`, :mod:`~evalframe.report.html`,
:mod:`~evalframe.report.markdown`, :mod:`~evalframe.report.json`), every text of the user's escaped by
:mod:`evalframe.report.escape`. The plots the page embeds are :mod:`evalframe.report.plots` (matplotlib, imported
only when a chart is drawn).

The formats need no pandas (``evalframe --help`` reads :data:`FORMATS`); the names built on pandas (the reports and
their models) are imported on first use (PEP 562), as the package ``evalframe`` does.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report import build_report
>>> report = build_report(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> "document_scope='document_id_or_answer', answer_scope='any'" in report.text
True
>>> list(FORMATS)
['text', 'html', 'markdown', 'json']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .formats import FORMATS, Format

if TYPE_CHECKING:  # loaded on first use by __getattr__ below; imported here for type checkers
    from .model import ComparisonModel, ReportModel, build_comparison_model
    from .reports import ComparisonReport, Report, build_report, print_eval_report

__all__ = ["FORMATS", "Format", "ComparisonModel", "ComparisonReport", "Report", "ReportModel",
           "build_comparison_model", "build_report", "print_eval_report"]

#: The public names whose modules load pandas, each imported when first asked for.
_ON_FIRST_USE = {"reports": ("Report", "ComparisonReport", "build_report", "print_eval_report"),
                 "model": ("ReportModel", "ComparisonModel", "build_comparison_model")}


if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise take any misspelt name for Any
    def __getattr__(name: str) -> Any:
        """A public name of :data:`_ON_FIRST_USE`, imported now (PEP 562) and kept in the package from then on."""
        if name in _ON_FIRST_USE["reports"]:
            from . import reports as module
        elif name in _ON_FIRST_USE["model"]:
            from . import model as module
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(module, name)
        globals()[name] = value
        return value
