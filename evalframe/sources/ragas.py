"""A Ragas evaluation dataset (or the frame of a Ragas evaluation result) -> records (``EvaluationResult.from_ragas``).

Ragas' single-turn samples have the columns ``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``,
``reference_contexts``, ``reference_context_ids``, ``response`` and ``reference``; Ragas before 0.2 called them
``question``, ``contexts``, ``answer`` and ``ground_truth`` (``ground_truths``: a list), which are read the same way.
Every other numeric column is a score: the metric columns of ``ragas.evaluate(...).to_pandas()`` (faithfulness,
answer_relevancy, context_precision, ...); every other column of texts (a topic, a test set's ``persona_name``) is
a field of the query's ``meta``. Nothing of Ragas is imported: a dataset is read through its
``to_pandas()``, or from the files Ragas writes (``to_jsonl``, ``to_csv``, ``to_pandas().to_parquet``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from .._validation import did_you_mean, few_names
from ..errors import EvalframeError, InvalidParameterError
from .frame import ColumnMapping, Table, frame_records, id_hint, read_table
from .records import build

__all__ = ["RAGAS_COLUMNS", "OLDER_NAMES", "from_ragas", "ragas_mapping"]

R = TypeVar("R")

#: Ragas' sample columns and the :class:`~evalframe.sources.frame.ColumnMapping` field each fills.
RAGAS_COLUMNS: dict[str, str] = {
    "user_input": "question", "retrieved_contexts": "retrieved_texts", "retrieved_context_ids": "retrieved_ids",
    "reference_contexts": "gold_contexts", "reference_context_ids": "gold_ids", "response": "answer",
    "reference": "gold_answers"}
#: The names of Ragas before 0.2, read as the current ones (when the current one is absent).
OLDER_NAMES: dict[str, str] = {"question": "user_input", "contexts": "retrieved_contexts", "answer": "response",
                               "ground_truth": "reference", "ground_truths": "reference"}
#: Columns of Ragas' samples and test sets that are never scores; the test set's become ``meta`` fields.
_TESTSET_META = ("persona_name", "query_style", "query_length", "synthesizer_name")
_NOT_SCORES = frozenset(RAGAS_COLUMNS) | frozenset(OLDER_NAMES) | frozenset(_TESTSET_META) | frozenset(
    {"multi_responses", "rubrics", "reference_tool_calls", "reference_topics", "retrieved_contexts_ids"})


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_))


def _numeric(table: Table, column: str) -> bool:
    """Whether every cell of ``column`` is a number or empty, and some cell a number (text numbers in CSV)."""
    found = False
    for row in table.rows:
        value = row.get(column)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if table.text_cells and isinstance(value, str):
            if not value.strip():
                continue
            try:
                float(value)
            except ValueError:
                return False
            found = True
        elif _is_number(value):
            found = True
        else:
            return False
    return found


def _some_number(table: Table, column: str) -> bool:
    """Whether some cell of ``column`` is a number (text numbers in CSV): a score column, even when another cell is
    not a number (then refused, named, rather than the whole column quietly read as a ``meta`` field)."""
    for row in table.rows:
        value = row.get(column)
        if _is_number(value) and not (isinstance(value, float) and math.isnan(value)):
            return True
        if table.text_cells and isinstance(value, str) and value.strip():
            try:
                float(value)
            except ValueError:
                continue
            return True
    return False


def _scalar(table: Table, column: str) -> bool:
    """Whether no cell of ``column`` is a list (a text, a number, a flag or an object each)."""
    return not any(isinstance(row.get(column), (list, tuple, np.ndarray)) for row in table.rows)


def ragas_mapping(table: Table, *, scores: Any = None, meta: Sequence[str] | None = None,
                  renamed: Callable[[str], str] | None = None, id_column: str | None = None
                  ) -> tuple[ColumnMapping, dict[str, Any]]:
    """The column mapping of a Ragas table, and the score declarations ``scores`` gives (``{column: measure}``).

    ``renamed(column)`` is the score name of a score column (default: the column's name); ``id_column``: the column
    of the queries' ids (neither a score nor a ``meta`` field then).

    Examples
    --------
    >>> from evalframe.sources.frame import read_table
    >>> table = read_table([{"question": "q", "contexts": ["c"], "answer": "a", "ground_truth": "a", "faithfulness": 1}])
    >>> mapping, _ = ragas_mapping(table)
    >>> mapping.question, mapping.retrieved_texts, mapping.gold_answers, mapping.scores
    ('question', 'contexts', 'ground_truth', ('faithfulness',))
    """
    columns = set(table.columns)
    chosen: dict[str, str] = {}
    for column, field in RAGAS_COLUMNS.items():
        if column in columns:
            chosen[field] = column
    for old, new in OLDER_NAMES.items():
        field = RAGAS_COLUMNS[new]
        if old in columns and field not in chosen:
            chosen[field] = old
    if "question" not in chosen:
        raise EvalframeError(f"{table.name} has no column 'user_input' (Ragas' question; 'question' before Ragas 0.2); "
                             f"its columns are {few_names(table.columns, 20)}.")
    if id_column is not None:
        if not isinstance(id_column, str) or id_column not in columns:
            raise InvalidParameterError(f"id_column={id_column!r} names no column of {table.name}; its columns are "
                                        f"{few_names(table.columns, 20)}.{did_you_mean(str(id_column), table.columns)}",
                                        parameter="id_column")
    not_scores = _NOT_SCORES | ({id_column} if id_column is not None else set())
    declared: dict[str, Any] = {}
    if scores is None:
        score_columns = [c for c in table.columns if c not in not_scores and _scalar(table, c)
                         and (_numeric(table, c) or _some_number(table, c))]
    elif isinstance(scores, Mapping):
        score_columns = list(scores)
        declared = {column: measure for column, measure in scores.items() if measure is not None}
    elif isinstance(scores, str) or not isinstance(scores, Sequence):
        raise InvalidParameterError(f"scores must be None (every numeric column), a list of columns or a dict "
                                    f"column -> score_measure; got {scores!r}.", parameter="scores")
    else:
        score_columns = list(scores)
    for column in score_columns:
        if column not in columns:
            raise InvalidParameterError(f"scores names {column!r}, which is no column of {table.name}; its columns are "
                                        f"{few_names(table.columns, 20)}.", parameter="scores")
    if meta is None:
        meta_columns = [c for c in table.columns if c not in not_scores and c not in score_columns
                        and not _numeric(table, c) and _scalar(table, c)] + [c for c in _TESTSET_META if c in columns]
    elif isinstance(meta, str) or not isinstance(meta, Sequence):
        raise InvalidParameterError(f"meta must be a list of columns; got {meta!r}.", parameter="meta")
    else:
        meta_columns = list(meta)
        unknown = [c for c in meta_columns if c not in columns]
        if unknown:
            raise InvalidParameterError(f"meta names {unknown[0]!r}, which is no column of {table.name}.",
                                        parameter="meta")
    names = {column: renamed(column) if renamed is not None else column for column in score_columns}
    mapping = ColumnMapping(
        question=chosen["question"], retrieved_ids=chosen.get("retrieved_ids"),
        retrieved_texts=chosen.get("retrieved_texts"), answer=chosen.get("answer"), gold_ids=chosen.get("gold_ids"),
        gold_contexts=chosen.get("gold_contexts"), gold_answers=chosen.get("gold_answers"),
        meta=meta_columns or None, scores=tuple(score_columns), gold_answer_text=chosen.get("gold_answers") in
        ("reference", "ground_truth"), score_names=names, query_id=id_column)
    return mapping, {names[column]: measure for column, measure in declared.items()}


def from_ragas(dataset_or_path: Any, *, from_runs: Callable[..., R], scores: Any = None,
               meta: Sequence[str] | None = None, retriever: str = "Retriever", generator: str = "Generator",
               score_node: str | None = None, score_measures: Mapping[str, Any] | None = None, sas_model: Any = None,
               progress: bool | None = None, renamed: Callable[[str], str] | None = None, id_column: str | None = None,
               duplicates: str = "error", on_invalid: str = "raise", **matching: Any) -> R:
    """``EvaluationResult.from_ragas``' work (see there); ``from_runs`` is ``EvaluationResult.from_runs``."""
    table = read_table(dataset_or_path, name="dataset_or_path")
    if not table.rows:
        raise EvalframeError(f"{table.name} holds no sample.")
    mapping, declared = ragas_mapping(table, scores=scores, meta=meta, renamed=renamed, id_column=id_column)
    records = frame_records(table, mapping)
    measures = {**(dict(score_measures) if score_measures is not None else {}), **declared}
    fields = {"query": mapping.question, "retrieved": mapping.retrieved_texts or mapping.retrieved_ids or "retrieved",
              "answer": mapping.answer or "response", "gold_ids": mapping.gold_ids or "reference_context_ids",
              "gold_contexts": mapping.gold_contexts or "reference_contexts",
              "gold_answers": mapping.gold_answers or "reference"}
    return build(records, from_runs=from_runs, retriever=retriever, generator=generator, score_node=score_node,
                 score_measures=measures or None, sas_model=sas_model, progress=progress, fields=fields,
                 duplicates=duplicates, on_invalid=on_invalid, key_hint="" if id_column else id_hint(table),
                 source=table.name, **matching)
