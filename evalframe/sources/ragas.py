"""A Ragas evaluation dataset (or the frame of a Ragas evaluation result) -> records (``EvaluationResult.from_ragas``).

Ragas' single-turn samples have the columns ``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``,
``reference_contexts``, ``reference_context_ids``, ``response`` and ``reference``; Ragas before 0.2 called them
``question``, ``contexts``, ``answer`` and ``ground_truth`` (``ground_truths``: a list), which are read the same way.
Every other column with a number (or its text) in some row is a score, and so is each of Ragas' metric columns
(:data:`RAGAS_SCORES`: faithfulness, answer_relevancy, context_precision, ...) whatever it holds, each cell read by
:mod:`~evalframe.frames.score_values` (a cell that is no number is refused, named); every other column of texts (a
topic, a test set's ``persona_name``) is a field of the query's ``meta``; any other column that gives no score is
named in a warning. Nothing of Ragas is imported: a dataset is read through its
``to_pandas()``, or from the files Ragas writes (``to_jsonl``, ``to_csv``, ``to_pandas().to_parquet``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from .._validation import did_you_mean, few_names
from ..errors import EvalframeError, InvalidParameterError, warn
from .frame import ColumnMapping, Table, frame_records, id_hint, read_table
from .records import build
from ..frames.score_values import looks_like_scores

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


#: Ragas' metric columns (``ragas.evaluate(...).to_pandas()``; a metric with a mode adds it: ``factual_correctness(mode=f1)``,
#: ``noise_sensitivity_relevant``): scores whatever their cells hold, so that a judge's score stored as text is read as
#: a number and a cell that is no number is refused, named, instead of the column quietly becoming a ``meta`` field.
RAGAS_SCORES = frozenset({
    "faithfulness", "answer_relevancy", "response_relevancy", "context_precision", "context_recall",
    "context_entity_recall", "context_entities_recall", "context_utilization", "context_relevance", "noise_sensitivity",
    "answer_correctness", "answer_similarity", "semantic_similarity", "factual_correctness", "answer_accuracy",
    "response_groundedness", "llm_context_precision_with_reference", "llm_context_precision_without_reference",
    "non_llm_context_precision_with_reference", "non_llm_context_recall", "id_based_context_precision",
    "id_based_context_recall", "nv_accuracy", "nv_context_relevance", "nv_response_groundedness",
    "faithfulness_with_hhem", "multimodal_faithness", "multimodal_relevance", "bleu_score", "chrf_score",
    "rouge_score", "exact_match", "string_present", "non_llm_string_similarity", "summary_score", "topic_adherence",
    "tool_call_accuracy", "agent_goal_accuracy", "harmfulness", "maliciousness", "coherence", "correctness",
    "conciseness"})


def _ragas_score(column: str) -> bool:
    """Whether ``column`` is one of Ragas' metric columns (with or without its mode)."""
    base = column.split("(", 1)[0].strip()
    return base in RAGAS_SCORES or any(base.startswith(name + "_") for name in
                                       ("noise_sensitivity", "factual_correctness", "rouge_score"))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str) and not value.strip())


def _cells(table: Table, column: str) -> list[Any]:
    return [row.get(column) for row in table.rows]


def _scalar(cells: Sequence[Any]) -> bool:
    """Whether no cell is a list (a text, a number, a flag or an object each)."""
    return not any(isinstance(value, (list, tuple, np.ndarray)) for value in cells)


def _why_no_score(cells: Sequence[Any]) -> str | None:
    """What a column that is no score holds, for the warning that names it; None for a column of texts (a meta
    field, as documented: no warning)."""
    present = [value for value in cells if not _missing(value)]
    if not present:
        return "no value in any row"
    if all(isinstance(value, str) for value in present):
        return None
    if any(isinstance(value, (list, tuple, np.ndarray)) for value in present):
        return "lists, not numbers"
    kinds = sorted({"True / False" if isinstance(value, (bool, np.bool_)) else "objects" if isinstance(value, Mapping)
                    else "texts" if isinstance(value, str) else type(value).__name__ for value in present})
    return " and ".join(kinds) + ", not numbers"


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
    cells = {c: _cells(table, c) for c in table.columns if c not in not_scores}
    named_meta = set(meta) if isinstance(meta, Sequence) and not isinstance(meta, str) else set()
    if scores is None:  # a column with a number (or its text) in some cell, or a Ragas metric's, is a score
        score_columns = [c for c in cells if c not in named_meta and (_ragas_score(c) or looks_like_scores(cells[c]))]
    elif isinstance(scores, Mapping):
        score_columns = list(scores)
        declared = {column: measure for column, measure in scores.items() if measure is not None}
    elif isinstance(scores, str) or not isinstance(scores, Sequence):
        raise InvalidParameterError(f"scores must be None (every column of numbers), a list of columns or a dict "
                                    f"column -> score_measure; got {scores!r}.", parameter="scores")
    else:
        score_columns = list(scores)
    for column in score_columns:
        if column not in columns:
            raise InvalidParameterError(f"scores names {column!r}, which is no column of {table.name}; its columns are "
                                        f"{few_names(table.columns, 20)}.", parameter="scores")
    if meta is None:
        meta_columns = [c for c in cells if c not in score_columns and _scalar(cells[c])
                        and not looks_like_scores(cells[c])] + [c for c in _TESTSET_META if c in columns]
    elif isinstance(meta, str) or not isinstance(meta, Sequence):
        raise InvalidParameterError(f"meta must be a list of columns; got {meta!r}.", parameter="meta")
    else:
        meta_columns = list(meta)
        unknown = [c for c in meta_columns if c not in columns]
        if unknown:
            raise InvalidParameterError(f"meta names {unknown[0]!r}, which is no column of {table.name}.",
                                        parameter="meta")
    if scores is None:
        _warn_no_scores(table, {c: cells[c] for c in cells if c not in named_meta}, score_columns, meta_columns)
    names = {column: renamed(column) if renamed is not None else column for column in score_columns}
    mapping = ColumnMapping(
        question=chosen["question"], retrieved_ids=chosen.get("retrieved_ids"),
        retrieved_texts=chosen.get("retrieved_texts"), answer=chosen.get("answer"), gold_ids=chosen.get("gold_ids"),
        gold_contexts=chosen.get("gold_contexts"), gold_answers=chosen.get("gold_answers"),
        meta=meta_columns or None, scores=tuple(score_columns), gold_answer_text=chosen.get("gold_answers") in
        ("reference", "ground_truth"), score_names=names, query_id=id_column)
    return mapping, {names[column]: measure for column, measure in declared.items()}


def _warn_no_scores(table: Table, cells: Mapping[str, Sequence[Any]], score_columns: Sequence[str],
                    meta_columns: Sequence[str]) -> None:
    """One warning naming each column (of ``cells``: those the caller did not name) that gives no score and holds
    something else than texts (a column of texts is a meta field, as documented), with what it became and why: a
    score column without a value in any row, a meta field of flags or objects, a column left out (lists)."""
    noted = {}
    for column, values in cells.items():
        why = _why_no_score(values)
        if why is None or (column in score_columns and why != "no value in any row"):
            continue
        noted[column] = (f"a score without a value in any row: no {column!r} in result.scores" if column in score_columns
                         else f"{'a meta field' if column in meta_columns else 'left out'}: {why}")
    if noted:
        told = ", ".join(f"{column!r} ({what})" for column, what in noted.items())
        source = "from_ragas" if table.name == "dataset_or_path" else table.name  # a file by its path
        warn(f"{source}: columns that give no score: {told}. A score column holds a number (or its text) in "
             "some row; name a column in scores=[...] to read it as a score (a cell that is no number is then "
             "refused, named), or in meta=[...] to keep it as a meta field.")


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
