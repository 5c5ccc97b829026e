"""evalframe: analyse retrieval and question-answering evaluation results on pandas.

Haystack 1.x's ``EvaluationResult`` (same columns, same numbers), vectorised.

Examples
--------
>>> import evalframe
>>> result = evalframe.load_demo_result()
>>> metrics = result.calculate_metrics()
>>> sorted(metrics)
['Reader', 'Retriever']
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .columns import ANSWER_SCOPES, DOCUMENT_SCOPES, EVAL_MODES
from .errors import (
    EvalframeError,
    InvalidParameterError,
    LoadError,
    SaveError,
    SchemaError,
    UnknownNodeError,
)
from .metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, METRICS, score_measure
from .metrics.trec import direction_of
from .options import MatchingOptions, MetricOptions

if TYPE_CHECKING:  # loaded on first use by __getattr__ below; imported here for type checkers
    from .evaluators.recall import (
        DocumentRecallEvaluator,
        RecallMode,
        RetrievalNDCGAny,
        RetrievalRecall,
        RetrievalRecallAll,
        RetrieverRecall,
    )
    from .report.reports import Report, print_eval_report
    from .result import EvaluationResult
    from .analysis.compare import worst_by_delta
    from .analysis.power import power
    from .trec_compare import compare
    from .sources.runs import read_runs
    from .schema import Answer, Document, Label, MultiLabel, Span, TableCell
    from .present.demo import load_demo_result, load_demo_runs
    from .present.fusion import FusionSearch, fuse, optimize_fusion
    from .present.comparison import compare_report
    from .present.gate import gate
    from .present.history import History
    from .present.paper import comparison_table
    from .report.paper import ComparisonTable
    from .report.reports import ComparisonReport
    from .analysis.agreement import Agreement, agreement
    from .analysis.ppi import PPIMean, ppi_mean

#: The public names whose modules load pandas (or rapidfuzz and multiprocessing, the evaluators): each is imported
#: by :func:`__getattr__` when first asked for (PEP 562), so that ``import evalframe`` and the ``evalframe``
#: command's parsers (``--help``, ``list-metrics``) start without pandas (issue 26).
_ON_FIRST_USE = {
    "evaluators": ("DocumentRecallEvaluator", "RecallMode", "RetrievalNDCGAny", "RetrievalRecall", "RetrievalRecallAll",
                   "RetrieverRecall"),
    "report": ("Report", "print_eval_report", "ComparisonReport"),
    "result": ("EvaluationResult",),
    "compare": ("worst_by_delta",),
    "power": ("power",),  # the paired t-test's power: minimum detectable effect, queries needed
    "trec_compare": ("compare",),  # results and tables as analysis.compare's, and TREC runs with their qrels
    "runs": ("read_runs",),
    "schema": ("Answer", "Document", "Label", "MultiLabel", "Span", "TableCell"),
    "demo": ("load_demo_result", "load_demo_runs"),
    "fusion": ("fuse", "optimize_fusion", "FusionSearch"),
    "comparison": ("compare_report",),
    "gate": ("gate",),  # the regression gate on two runs of any kind (docs/ci.md)
    "paper": ("comparison_table",),  # the paper table (present stage: TREC runs are read by evalframe.compare)
    "paper_table": ("ComparisonTable",),
    "agreement": ("agreement", "Agreement"),  # the judge against the gold
    "ppi": ("ppi_mean", "PPIMean"),
    "history": ("History",),  # the store of runs (docs/history.md)
}
#: The subpackages and modules reached as attributes (``evalframe.analysis``) that the package no longer imports itself.
_SUBPACKAGES = ("analysis", "evaluators", "frames", "io", "present", "report", "result", "schema", "sources")


if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise take any misspelt name for Any
    def __getattr__(name: str) -> Any:
        """A public name of :data:`_ON_FIRST_USE`, imported now (PEP 562) and kept in the package from then on."""
        module: ModuleType
        if name in _ON_FIRST_USE["evaluators"]:
            from .evaluators import recall

            module = recall
        elif name in _ON_FIRST_USE["history"]:
            from .present import history

            module = history
        elif name in _ON_FIRST_USE["report"]:
            from .report import reports

            module = reports
        elif name in _ON_FIRST_USE["result"]:
            from . import result

            module = result
        elif name in _ON_FIRST_USE["compare"]:
            from .analysis import compare

            module = compare
        elif name in _ON_FIRST_USE["power"]:
            from .analysis import power as power_module

            module = power_module
        elif name in _ON_FIRST_USE["trec_compare"]:
            from . import trec_compare

            module = trec_compare
        elif name in _ON_FIRST_USE["runs"]:
            from .sources import runs

            module = runs
        elif name in _ON_FIRST_USE["schema"]:
            from . import schema

            module = schema
        elif name in _ON_FIRST_USE["demo"]:
            from .present import demo

            module = demo
        elif name in _ON_FIRST_USE["fusion"]:
            from .present import fusion

            module = fusion
        elif name in _ON_FIRST_USE["comparison"]:
            from .present import comparison

            module = comparison
        elif name in _ON_FIRST_USE["gate"]:
            from .present import gate as gate_module

            module = gate_module
        elif name in _ON_FIRST_USE["paper"]:
            from .present import paper

            module = paper
        elif name in _ON_FIRST_USE["paper_table"]:
            from .report import paper as paper_table

            module = paper_table
        elif name in _ON_FIRST_USE["agreement"]:
            from .analysis import agreement as agreement_module

            module = agreement_module
        elif name in _ON_FIRST_USE["ppi"]:
            from .analysis import ppi

            module = ppi
        elif name in _SUBPACKAGES:  # ``import evalframe`` then ``evalframe.analysis``: as when the package imported them
            return importlib.import_module(f".{name}", __name__)
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(module, name)
        globals()[name] = value  # the next lookup finds it without calling __getattr__
        return value


def __dir__() -> list[str]:
    """The public names and the subpackages (not the helpers this module imports for itself)."""
    modules = {name for name, value in globals().items() if isinstance(value, ModuleType) and not name.startswith("_")}
    return sorted({*__all__, *_SUBPACKAGES, *(modules - {"importlib"}), "__version__"})

__all__ = [
    "ANSWER_METRICS",
    "ANSWER_SCOPES",
    "Agreement",
    "Answer",
    "ComparisonReport",
    "ComparisonTable",
    "DOCUMENT_METRICS",
    "DOCUMENT_SCOPES",
    "Document",
    "DocumentRecallEvaluator",
    "EVAL_MODES",
    "EvaluationResult",
    "History",
    "EvalframeError",
    "FusionSearch",
    "InvalidParameterError",
    "Label",
    "LoadError",
    "METRICS",
    "MatchingOptions",
    "MetricOptions",
    "MultiLabel",
    "PPIMean",
    "RecallMode",
    "Report",
    "RetrievalNDCGAny",
    "RetrievalRecall",
    "RetrievalRecallAll",
    "RetrieverRecall",
    "SaveError",
    "SchemaError",
    "Span",
    "TableCell",
    "UnknownNodeError",
    "__version__",
    "agreement",
    "compare",
    "compare_report",
    "comparison_table",
    "direction_of",
    "fuse",
    "gate",
    "load_demo_result",
    "load_demo_runs",
    "optimize_fusion",
    "power",
    "ppi_mean",
    "print_eval_report",
    "read_runs",
    "score_measure",
    "worst_by_delta",
]
