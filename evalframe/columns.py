"""Names shared by every part of evalframe: node-frame columns, option sets and their mappings.

These are defined once and reused by signatures, validation, the CLI and the docs.
"""

from __future__ import annotations

from typing import Literal, get_args

#: The option sets, each written once: the Literal is the type of the option (signatures, type checkers), the tuple of
#: its values (``get_args``) what the checks, the CLI's choices and the docs list.
DocumentScope = Literal[
    "document_id",
    "context",
    "document_id_and_context",
    "document_id_or_context",
    "answer",
    "document_id_or_answer",
]
AnswerScope = Literal["any", "context", "document_id", "document_id_and_context"]
EvalMode = Literal["integrated", "isolated"]

DOCUMENT_SCOPES: tuple[str, ...] = get_args(DocumentScope)
ANSWER_SCOPES: tuple[str, ...] = get_args(AnswerScope)
EVAL_MODES: tuple[str, ...] = get_args(EvalMode)

#: The criterion that decides document relevance, for document scopes that involve the answer.
_ANSWER_SCOPE_TO_CRITERION = {
    "any": None,
    "context": "context_and_answer",
    "document_id": "document_id_and_answer",
    "document_id_and_context": "document_id_and_context_and_answer",
}

#: Every relevance criterion: the gold-label index sets it combines ("id", "ctx", "ans") and how.
CRITERIA: dict[str, tuple[str, tuple[str, ...]]] = {
    "document_id": ("or", ("id",)),
    "context": ("or", ("ctx",)),
    "answer": ("or", ("ans",)),
    "document_id_and_context": ("and", ("id", "ctx")),
    "document_id_or_context": ("or", ("id", "ctx")),
    "document_id_and_answer": ("and", ("id", "ans")),
    "document_id_or_answer": ("or", ("id", "ans")),
    "context_and_answer": ("and", ("ctx", "ans")),
    "document_id_and_context_and_answer": ("and", ("id", "ctx", "ans")),
}

#: What each index set of a criterion asks of a retrieved document, for people (the report states the criterion).
MATCH_MEANINGS = {
    "id": "its id is a gold document id",
    "ctx": "its text matches a gold context (similarity above the context-matching threshold)",
    "ans": "it contains a gold answer",
}
#: Where an answer must come from to count as correct, per answer_scope, for people.
ANSWER_SCOPE_MEANINGS = {
    "any": "an answer matching a gold answer counts wherever it comes from",
    "context": "an answer matching a gold answer counts only when it comes from a gold context",
    "document_id": "an answer matching a gold answer counts only when it comes from a gold document",
    "document_id_and_context": "an answer matching a gold answer counts only when it comes from a gold document "
                               "and a gold context",
}

#: The per-gold list column behind each index set.
MATCH_LIST_COLUMNS = {
    "id": "gold_documents_id_match",
    "ctx": "gold_contexts_similarity",
    "ans": "gold_answers_match",
}


#: List columns the metrics read; loaders hand their distinct cells to the result (no per-row work on first use).
METRIC_LIST_COLUMNS: tuple[str, ...] = ("gold_document_ids", "gold_custom_document_ids", "document_ids",
                                        *MATCH_LIST_COLUMNS.values())


def relevance_criterion(document_scope: str, answer_scope: str) -> str:
    """The document relevance criterion for a document_scope / answer_scope pair (``docs/metrics.md#relevance-criterion``)."""
    if document_scope in ("answer", "document_id_or_answer"):
        return _ANSWER_SCOPE_TO_CRITERION[answer_scope] or document_scope
    return document_scope


def relevance_column(criterion: str) -> str:
    """The 0/1 row column of a criterion, e.g. ``document_id_or_answer`` -> ``gold_id_or_answer_match``."""
    return criterion.replace("document_id", "gold_id") + "_match"


def answer_metric_column(metric: str, answer_scope: str) -> str:
    """The answer-row column read for ``metric`` under ``answer_scope``."""
    return metric if answer_scope == "any" else f"{metric}_{answer_scope}_scope"


#: Columns holding Python lists (or, for filters, bytes/JSON text) in CSV files: parsed as literals.
LIST_COLUMNS: tuple[str, ...] = (
    "filters",
    "gold_document_ids",
    "gold_custom_document_ids",
    "gold_contexts",
    "gold_answers",
    "gold_documents_id_match",
    "gold_offsets_in_documents",
    "gold_offsets_in_contexts",
    "gold_answers_exact_match",
    "gold_answers_f1",
    "gold_answers_sas",
    "gold_answers_match",
    "gold_contexts_similarity",
    "offsets_in_document",
    "offsets_in_context",
    "document_ids",
    "custom_document_ids",
    "gold_document_contents",
)

#: Column order of node frames; other columns follow. Haystack 1.x's ``Pipeline.eval`` orders its frames by this list
#: without ``index`` (the row number a per-query ``reset_index()`` left) and appends the columns it does not know, so
#: ``index`` comes right after ``eval_mode`` in its files.
COLUMN_ORDER: tuple[str, ...] = (
    "multilabel_id", "query", "filters", "gold_answers", "answer", "context",
    "exact_match", "f1", "sas",
    "exact_match_context_scope", "f1_context_scope", "sas_context_scope",
    "exact_match_document_id_scope", "f1_document_id_scope", "sas_document_id_scope",
    "exact_match_document_id_and_context_scope", "f1_document_id_and_context_scope",
    "sas_document_id_and_context_scope",
    "gold_contexts", "gold_id_match", "context_match", "answer_match", "gold_id_or_answer_match",
    "gold_id_and_answer_match", "gold_id_or_context_match", "gold_id_and_context_match",
    "gold_id_and_context_and_answer_match", "context_and_answer_match",
    "rank", "document_id", "document_ids", "gold_document_ids", "custom_document_id",
    "custom_document_ids", "gold_custom_document_ids",
    "offsets_in_document", "gold_offsets_in_documents", "offsets_in_context", "gold_offsets_in_contexts",
    "gold_answers_exact_match", "gold_answers_f1", "gold_answers_sas", "gold_documents_id_match",
    "gold_contexts_similarity", "gold_answers_match", "type", "node", "eval_mode", "index", "prompt",
)

#: Gold document id entries that stand for "no document" and are not counted as gold (``docs/metrics.md#per-query``).
NO_ANSWER_DOCUMENT_ID = "00"

