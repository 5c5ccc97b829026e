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

from importlib.resources import files as _files
from typing import cast as _cast

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
from .evaluators.recall import (
    DocumentRecallEvaluator,
    RecallMode,
    RetrievalNDCGAny,
    RetrievalRecall,
    RetrievalRecallAll,
    RetrieverRecall,
)
from .metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, METRICS
from .present.report import Report, print_eval_report
from .result import EvaluationResult
from .analysis.compare import compare, worst_by_delta
from .build.runs import read_runs
from .schema import Answer, Document, Label, MultiLabel, Span, TableCell


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


def load_demo_result() -> EvaluationResult:
    """The small evaluation result shipped with evalframe (a retriever and a reader on 8 questions).

    Examples
    --------
    >>> len(load_demo_result()["Retriever"]) > 0
    True
    """
    return EvaluationResult.load(_files("evalframe") / "data" / "demo_result")  # type: ignore[arg-type]


def load_demo_runs(top_k: int = 3) -> tuple[list[MultiLabel], dict[str, dict[str, list]]]:
    """The demo pipeline's runs over 113 questions: ``(labels, outputs)`` for :meth:`EvaluationResult.from_runs`.

    A BM25 retriever over 64 passages and an extractive reader, run integrated and isolated (see
    ``scripts/make_demo_runs.py``). ``top_k`` picks the run: the retriever's top 3 (the default, what
    ``evalframe demo`` shows) or top 5, a second run to compare with the first.

    Examples
    --------
    >>> labels, outputs = load_demo_runs()
    >>> len(labels), sorted(outputs)
    (113, ['Reader', 'Retriever'])
    """
    runs = {3: "runs.jsonl", 5: "runs_top5.jsonl"}
    if not isinstance(top_k, int) or top_k not in runs:
        raise InvalidParameterError(f"top_k must be 3 or 5 (the demo's two runs); got {top_k!r}.")
    # every query of the shipped demo runs has gold labels: none of them is None
    return _cast("tuple[list[MultiLabel], dict[str, dict[str, list]]]",
                read_runs(_files("evalframe") / "data" / "demo" / runs[top_k]))  # type: ignore[arg-type]
