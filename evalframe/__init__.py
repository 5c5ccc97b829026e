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

from ._version import __version__
from ._moved import install as _install_moved
from .columns import ANSWER_SCOPES, DOCUMENT_SCOPES, EVAL_MODES
from .errors import (
    EvalframeError,
    InvalidParameterError,
    LoadError,
    SaveError,
    SchemaError,
    UnknownNodeError,
)
from .evaluators.recall import (
    DocumentRecallEvaluator,
    RecallMode,
    RetrievalNDCGAny,
    RetrievalRecall,
    RetrievalRecallAll,
    RetrieverRecall,
)
from .metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, METRICS
from .report import Report, print_eval_report
from .result import EvaluationResult
from .analysis.compare import compare, worst_by_delta
from .sources.runs import read_runs
from .schema import Answer, Document, Label, MultiLabel, Span, TableCell
from .options import MatchingOptions, MetricOptions
from .present.demo import load_demo_result, load_demo_runs


__all__ = [
    "ANSWER_METRICS",
    "ANSWER_SCOPES",
    "Answer",
    "DOCUMENT_METRICS",
    "DOCUMENT_SCOPES",
    "Document",
    "DocumentRecallEvaluator",
    "EVAL_MODES",
    "EvaluationResult",
    "EvalframeError",
    "InvalidParameterError",
    "Label",
    "LoadError",
    "METRICS",
    "MatchingOptions",
    "MetricOptions",
    "MultiLabel",
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
    "compare",
    "load_demo_result",
    "load_demo_runs",
    "print_eval_report",
    "read_runs",
    "worst_by_delta",
]

_install_moved()  # evalframe.build[.x] -> evalframe.sources[.x], with a FutureWarning
