"""The demo shipped with evalframe: a small saved result, and the runs of a small pipeline."""

from __future__ import annotations

from importlib.resources import files
from typing import cast

from ..sources.runs import read_runs
from ..errors import InvalidParameterError
from ..result import EvaluationResult
from ..schema import MultiLabel

__all__ = ["load_demo_result", "load_demo_runs"]


def load_demo_result() -> EvaluationResult:
    """The small evaluation result shipped with evalframe (a retriever and a reader on 8 questions).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> len(load_demo_result()["Retriever"]) > 0
    True
    """
    return EvaluationResult.load(files("evalframe") / "data" / "demo_result")  # type: ignore[arg-type]


def load_demo_runs(top_k: int = 3) -> tuple[list[MultiLabel], dict[str, dict[str, list]]]:
    """The demo pipeline's runs over 113 questions: ``(labels, outputs)`` for :meth:`EvaluationResult.from_runs`.

    A BM25 retriever over 64 passages and an extractive reader, run integrated and isolated (see
    ``scripts/make_demo_runs.py``). ``top_k`` picks the run: the retriever's top 3 (the default, what
    ``evalframe demo`` shows) or top 5, a second run to compare with the first.

    Examples
    --------
    >>> from evalframe import load_demo_runs
    >>> labels, outputs = load_demo_runs()
    >>> len(labels), sorted(outputs)
    (113, ['Reader', 'Retriever'])
    """
    runs = {3: "runs.jsonl", 5: "runs_top5.jsonl"}
    if not isinstance(top_k, int) or top_k not in runs:
        raise InvalidParameterError(f"top_k must be 3 or 5 (the demo's two runs); got {top_k!r}.")
    # every query of the shipped demo runs has gold labels: none of them is None
    return cast("tuple[list[MultiLabel], dict[str, dict[str, list]]]",
                read_runs(files("evalframe") / "data" / "demo" / runs[top_k], progress=False))  # type: ignore[arg-type]
