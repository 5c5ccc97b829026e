"""The two reports: :class:`Report` (one run: the pipeline funnel and the worst queries, :func:`build_report`) and
:class:`ComparisonReport` (runs side by side, :func:`evalframe.compare_report`). Each holds its model and renders it
in any format of :data:`evalframe.report.formats.FORMATS`; both are saved by one atomic writer (:meth:`save`).

Examples
--------
>>> from evalframe import load_demo_result
>>> report = build_report(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
>>> "document_scope='document_id_or_answer', answer_scope='any'" in report.text
True
>>> report.to_dict()["funnel"][0]["metrics"][0]["metric"]
'mrr'
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from .._locations import Remote, is_dir, locate, write_bytes
from .._validation import check_choice
from ..analysis.protocol import ResultSource
from ..errors import InvalidParameterError
from ..options import ReportOptions, with_options
from .formats import FORMATS, format_of_path
from .html import render_comparison
from .model import ComparisonModel, ReportModel, build_model
from .viewer_data import viewer_payload
from ..io.atomic import write_atomically

__all__ = ["Report", "ComparisonReport", "build_report", "print_eval_report"]


class _Rendered:
    """What both reports do with their model: render it in a format of :data:`FORMATS`, as text, HTML, Markdown,
    JSON or plain data, and save it."""

    model: Any
    #: The file :meth:`save`'s message suggests for a folder.
    _file_name = "report.html"

    def _render(self, format: str) -> str:
        raise NotImplementedError

    def render(self, format: str) -> str:
        """The report in ``format``: one of :data:`evalframe.report.formats.FORMATS` (``text``, ``html``,
        ``markdown``, ``json``)."""
        check_choice(format, tuple(FORMATS), name="format")
        return self._render(format)

    @cached_property
    def text(self) -> str:
        """The report for a terminal."""
        return self.render("text")

    @cached_property
    def html(self) -> str:
        """The report as one self-contained HTML page (inline CSS and script, charts embedded; no network)."""
        return self.render("html")

    @cached_property
    def markdown(self) -> str:
        """The report as GitHub-flavoured Markdown (tables, no HTML, no chart)."""
        return self.render("markdown")

    def to_markdown(self) -> str:
        """The report as Markdown (no charts): :attr:`markdown`."""
        return self.markdown

    def to_json(self) -> str:
        """The report as JSON text (NaN as null)."""
        return self.render("json")

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data: the JSON's shape (docs/cli.md#the-report-as-json for a run's)."""
        return json.loads(self.to_json())  # the same data, NaN already null

    def save(self, path: str | os.PathLike[str], format: str | None = None, *,
             storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
        """Write the report to ``path`` atomically (a temporary file beside it, then renamed over it: a reader never
        sees half a page); the format is ``format``, else the suffix's (``.html``, ``.md``, ``.json``, ``.txt``:
        :func:`evalframe.report.formats.suffixes`). A file replaced keeps its permissions. Returns the path written.

        ``path`` may be a URL (``s3://bucket/report.html``; ``storage_options``: its filesystem's options,
        ``docs/storage.md``), written in one request (the object replaced whole); the
        :class:`~evalframe._locations.Remote` written is returned.

        Raises
        ------
        InvalidParameterError
            ``path`` is a folder or a URL fsspec cannot write, or its suffix names no format and ``format`` is None.
        """
        where = locate(path, name="path", storage_options=storage_options)
        if isinstance(where, Remote):
            content = self.render(format_of_path(where.name) if format is None else format)
            if is_dir(where):
                raise InvalidParameterError(f"save({where.url!r}) is a folder; give the file to write, e.g. "
                                            f"{(where / self._file_name).url!r}.", parameter="path")
            write_bytes(where, content.encode("utf-8"), what="report")
            return where
        target = Path(path)
        content = self.render(format_of_path(path) if format is None else format)
        if target.is_dir():
            raise InvalidParameterError(f"save({str(path)!r}) is a folder; give the file to write, e.g. "
                                        f"{str(target / self._file_name)!r}.", parameter="path")
        write_atomically(target, content)
        return target

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.html


class Report(_Rendered):
    """An evaluation report; ``.text`` for terminals, ``.html`` for browsers (displays in Jupyter),
    :meth:`to_markdown`, :meth:`to_json` / :meth:`to_dict`, :meth:`render`, :meth:`save`; ``.model`` holds what it
    says.

    Parameters
    ----------
    model : ReportModel
        What the report says (:func:`evalframe.report.model.build_model`).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> report = load_demo_result().report(n=1, charts=False)
    >>> report.to_markdown().splitlines()[0]
    '# Evaluation report'
    """

    def __init__(self, model: ReportModel) -> None:
        if not isinstance(model, ReportModel):
            raise InvalidParameterError(f"Report takes the report's model (build_report(result) builds it); got "
                                        f"{type(model).__name__}.", parameter="model")
        self.model = model

    def _render(self, format: str) -> str:
        return FORMATS[format].render(self.model)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Report) and (self.text, self.html) == (other.text, other.html)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the former dataclass


class ComparisonReport(_Rendered):
    """A comparative report of runs: ``.text`` for terminals, ``.markdown`` for pull requests, ``.html`` (one
    self-contained page: the per-query grid, sortable and filterable, each query opening to every run's rows),
    :meth:`to_dict` / :meth:`to_json`, :meth:`render` and :meth:`save`; ``.model`` holds what it says.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> from evalframe.report.model import build_comparison_model
    >>> demo = load_demo_result()
    >>> report = ComparisonReport(build_comparison_model({"A": demo, "B": demo}, metrics=["mrr"], rounds=50))
    >>> report.markdown.splitlines()[0]
    '# Comparative report'
    """

    _file_name = "compare.html"

    def __init__(self, model: ComparisonModel, *, serve: str | None = None) -> None:
        if not isinstance(model, ComparisonModel):
            raise InvalidParameterError(f"ComparisonReport takes a ComparisonModel (evalframe.compare_report builds "
                                        f"one); got {type(model).__name__}.", parameter="model")
        self.model = model
        #: The ``evalframe serve`` command the HTML page names where the viewer shows more (None: built from the
        #: runs' names, :func:`evalframe.report.html.serve_command`); ``evalframe report`` gives its own inputs.
        self.serve = serve

    def _render(self, format: str) -> str:
        if format == "html":
            return render_comparison(self.model, serve=self.serve)
        return FORMATS[format].render_comparison(self.model)

    def payload(self, *, characters: int | None = 500) -> tuple[dict[str, Any], dict[str, Any]]:
        """The viewers' data (:func:`evalframe.report.viewer_data.viewer_payload`): every node's grid and every
        query's drill-down, JSON-ready, texts cut to ``characters`` (None: whole).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> from evalframe.report.model import build_comparison_model
        >>> demo = load_demo_result()
        >>> grid, detail = ComparisonReport(build_comparison_model({"A": demo, "B": demo}, rounds=10)).payload()
        >>> [g["n"] for g in grid["grids"]], detail["names"]
        ([8, 8], ['A', 'B'])
        """
        return viewer_payload(self.model, characters=characters)


@with_options(ReportOptions, documented=(ReportOptions,))
def build_report(result: ResultSource, **options: Any) -> Report:
    """The pipeline funnel (integrated metrics, top-1 answer metrics, isolated upper bound) and worst queries.

    Without ``node_order``, nodes with document rows only come first (retrievers feed readers), else in the
    result's order. Every number is computed under ``document_scope`` / ``answer_scope``, which the report
    states; each listed document or answer is marked when it counts as correct under them.

    Parameters
    ----------
    result : EvaluationResult

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> report = build_report(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"]})
    >>> "document_scope='document_id_or_answer', answer_scope='any'" in report.text
    True
    """
    return Report(build_model(result, **options))


def print_eval_report(
    eval_result: ResultSource,
    n_wrong_examples: int = ReportOptions.n,
    metrics_filter: Mapping[str, Sequence[str]] | None = ReportOptions.metrics_filter,
    document_scope: str = ReportOptions.document_scope,
    answer_scope: str = ReportOptions.answer_scope,
    wrong_examples_fields: Sequence[str] = ReportOptions.wrong_examples_fields,
    max_characters_per_field: int = ReportOptions.max_characters_per_field,
    *,
    node_order: list[str] | None = ReportOptions.node_order,
) -> None:
    """Print the report, as Haystack 1.x's ``Pipeline.print_eval_report`` did (Haystack 1.26's arguments, same order).

    Parameters
    ----------
    eval_result : EvaluationResult
    n_wrong_examples : int
        The worst queries shown per node.
    metrics_filter : dict of node to list of str, optional
        The metrics shown per node; None shows all.
    document_scope, answer_scope : str
        What makes a document relevant and where a matching answer must come from
        (``docs/metrics.md#relevance-criterion``); the report states them.
    wrong_examples_fields : list of str
        The fields shown for each listed answer / document (default ``["answer", "context", "document_id"]``).
    max_characters_per_field : int
        Longer field values are cut, ending in "...".
    node_order : list of str, optional
        The nodes in pipeline order (keyword only: not one of Haystack's arguments).

    Examples
    --------
    >>> from evalframe import load_demo_result, print_eval_report
    >>> print_eval_report(load_demo_result(), 1, {"Retriever": ["mrr"], "Reader": ["f1"]}, "document_id", "any",
    ...                   ["answer"], 40)  # doctest: +ELLIPSIS
    evalframe ... evaluation report
    ...
    """
    print(build_report(eval_result, n=n_wrong_examples, node_order=node_order, metrics_filter=metrics_filter,
                       document_scope=document_scope, answer_scope=answer_scope,
                       wrong_examples_fields=wrong_examples_fields,
                       max_characters_per_field=max_characters_per_field, charts=False).text)
