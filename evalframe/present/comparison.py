"""``evalframe.compare_report``: runs side by side in one report (:class:`evalframe.report.reports.ComparisonReport`).

Here (the present stage) because a run may be a result folder, loaded with :meth:`EvaluationResult.load`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import pandas as pd

from ..analysis.compare import compare, is_result, run_names
from ..analysis.protocol import ResultLike
from .._locations import Remote, check_storage_options, locate
from ..errors import InvalidParameterError
from ..options import ComparisonReportOptions, MetricOptions, with_options
from ..report.model import build_comparison_model, check_comparison_options
from ..report.reports import ComparisonReport
from ..result import EvaluationResult

__all__ = ["compare_report"]

RunLike = Union[ResultLike, str, "os.PathLike[str]"]


def _result(run: Any, name: str, storage_options: dict[str, Any]) -> Any:
    """A run as a result (ResultLike): itself, or the folder it names loaded (a local folder or a URL)."""
    if isinstance(run, ResultLike):  # in memory, or on Dask
        return run
    if isinstance(run, (str, os.PathLike)):
        where = locate(run, name=f"runs ({name!r})", storage_options=storage_options)
        if isinstance(where, Remote):  # a folder at a URL, read through its filesystem
            return EvaluationResult.load(where.url, storage_options=storage_options)
        return EvaluationResult.load(Path(run))  # a folder written by result.save (plain or partitioned)
    raise InvalidParameterError(f"run {name!r} must be an EvaluationResult, a DaskEvaluationResult or a result folder; "
                                f"got {type(run).__name__}.", parameter="runs")


@with_options(ComparisonReportOptions, MetricOptions, documented=(ComparisonReportOptions,))
def compare_report(runs: Sequence[RunLike] | Mapping[str, RunLike], *, storage_options: Mapping[str, Any] | None = None,
                   **options: Any) -> ComparisonReport:
    """Runs side by side: per node and measure each run's value, the delta against the first run with its
    confidence interval and a significance mark, and a per-query grid (worst change first), as text, Markdown
    and one self-contained HTML page.

    Parameters
    ----------
    runs : list of results or folders, or dict of name to result or folder
        The runs, the first the baseline: EvaluationResults, DaskEvaluationResults or folders written by
        ``result.save``, local or at URLs (``s3://bucket/bm25``). A dict names them.
    storage_options : dict, optional
        The filesystem's options for folders given as URLs (``docs/storage.md``).
    **options
        The metric options (``simulated_top_k_retriever``, ``document_scope``, ...:
        :class:`evalframe.options.MetricOptions`), applied to every run.

    Returns
    -------
    ComparisonReport
        ``.text``, ``.markdown``, ``.html``, ``.save(path)``, ``.model``.

    Examples
    --------
    >>> from evalframe import compare_report, load_demo_result
    >>> demo = load_demo_result()
    >>> report = compare_report([demo, demo], names=["bm25", "again"], metrics=["mrr", "f1"], rounds=100)
    >>> [node.node for node in report.model.nodes], report.model.nodes[0].measures[0].deltas[0].delta
    (['Retriever', 'Reader'], 0.0)
    """
    check_comparison_options(options)  # before a folder is loaded
    location_options = check_storage_options(storage_options)
    names = options.pop("names", None)
    if isinstance(runs, Mapping):
        if names is not None:
            raise InvalidParameterError("names: the runs are a dict, whose keys name them; pass a list of runs to "
                                        "name them with names=.", parameter="names")
        named = {str(name): _result(run, str(name), location_options) for name, run in runs.items()}
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        labels = run_names(names, len(runs))
        named = {label: _result(run, label, location_options) for label, run in zip(labels, runs)}
    else:
        raise InvalidParameterError(f"runs must be a list of results (or folders) or a dict of name to result; got "
                                    f"{type(runs).__name__}.", parameter="runs")
    on_dask = [name for name, result in named.items() if not is_result(result)]
    if on_dask and len(on_dask) < len(named):
        raise InvalidParameterError(f"runs {on_dask} are on Dask and the others in memory; compare runs of one kind "
                                    "(evalframe.dask.load each folder, or EvaluationResult.load each).", parameter="runs")
    compare_function: Callable[..., pd.DataFrame] = compare
    if on_dask:
        import evalframe.dask as on_cluster  # the optional extra, installed since a run is on Dask

        compare_function = on_cluster.compare
    return ComparisonReport(build_comparison_model(named, compare_function=compare_function, **options))
