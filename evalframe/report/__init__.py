"""The reports: the pipeline funnel and the worst queries of a run, and runs side by side, as text, one
self-contained HTML page, Markdown or JSON.

Each report has a model, built once with every number (:mod:`evalframe.report.model`), and renders it in any format
(:mod:`evalframe.report.reports`: :func:`~evalframe.report.reports.build_report` makes a
:class:`~evalframe.report.reports.Report`, :func:`evalframe.compare_report` a
:class:`~evalframe.report.reports.ComparisonReport`). Each format is one module that lays both models out, listed
once in :data:`FORMATS` (:mod:`evalframe.report.formats`: :mod:`~evalframe.report.text`,
:mod:`~evalframe.report.html`, :mod:`~evalframe.report.markdown`, :mod:`~evalframe.report.json`), every text of the
user's escaped by :mod:`evalframe.report.escape`. The plots the page embeds are :mod:`evalframe.report.plots`
(matplotlib, imported only when a chart is drawn).

The package imports only the table of formats, which needs no pandas: the command's parsers read it, and
``evalframe trec --format markdown`` escapes with :mod:`evalframe.report.escape`, without loading pandas. The reports
are ``evalframe.Report``, ``evalframe.ComparisonReport``, ``evalframe.print_eval_report`` and
``evalframe.compare_report``.

Examples
--------
>>> from evalframe import load_demo_result
>>> report = load_demo_result().report(n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> "document_scope='document_id_or_answer', answer_scope='any'" in report.text
True
>>> list(FORMATS)
['text', 'html', 'markdown', 'json']
"""

from __future__ import annotations

from .formats import FORMATS, Format

__all__ = ["FORMATS", "Format"]
