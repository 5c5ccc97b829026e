"""Prepared arrays -> per-query metric tables (one row per query, one column per metric).

The kernels' tables (:func:`document_query_metrics`, :func:`answer_query_metrics`), and a node's tables for one
call's options read from the :class:`~evalframe.frames.store.PreparedStore` (what ``EvaluationResult``'s analyses
delegate to): its answer, document and score tables (:func:`answer_table`, :func:`document_table`,
:func:`score_table`) and their join (:func:`node_query_table`, ``query_metrics``'), the rows an example lists
(:func:`listed_rows`), and the trec measures' table (:func:`trec_table`) and trec_eval's relstrings
(:func:`trec_relstrings`) of the node's judged rows (:func:`judged_rows_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pandas as pd

from .arrays import numeric_column
from .judged import DUPLICATE_RULES, relstring_series, trec_query_table
from .judged_codes import MISSING_QUERY_RULES, JudgedRows, at_level, check_cut, check_missing_queries, cut_ranking
from .prepared import AnswerRows, DocumentRows
from .rows import NodeNeeded, document_node
from .scores import node_scores, score_query_table
from .store import PreparedStore
from .topk import answers_kept, document_queries_kept, document_rows_kept
from .. import _validation as check
from .._validation import require_columns
from ..columns import CRITERIA, EVAL_MODES, answer_metric_column, relevance_column
from ..errors import InvalidParameterError
from ..metrics import kernels
from ..metrics.kernels import HAYSTACK_EDGE_POLICY, DocumentCounts, EdgePolicy
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, Metric
from ..metrics.trec import parse_measures
from ..options import MetricOptions

__all__ = ["query_index", "document_counts", "document_query_metrics", "available_answer_metrics", "answer_query_metrics",
           "answer_table", "document_table", "score_table", "node_query_table", "listed_rows", "TREC_NEEDED",
           "judged_rows_of", "trec_table", "trec_relstrings"]

#: What trec_metrics, trec_query_metrics and trec_relstrings say when ``node=None`` finds no node, or several, with
#: document rows.
TREC_NEEDED = NodeNeeded(
    none="no node has document rows; the trec measures rank documents. Nodes: {nodes}.",
    several="trec_metrics needs node= when {count} nodes have document rows: {documents} (all nodes: {nodes}).")


def query_index(rows: DocumentRows | AnswerRows) -> pd.Index:
    """The index of a per-query table: ``pd.Index(rows.query_ids, name="multilabel_id")``.

    Made from the Arrow strings themselves when the ids are pandas' ``str`` (what the index of their Python
    strings would be), not from one Python string per query.
    """
    values = rows.query_values
    if isinstance(values, pd.arrays.ArrowStringArray) and values.dtype == pd.StringDtype("pyarrow", na_value=np.nan):
        index = pd.Index(values, name="multilabel_id")
        if index.dtype == pd.Index(rows.query_ids[:1]).dtype:  # the dtype inferred from Python strings
            return index
    return pd.Index(rows.query_ids, name="multilabel_id")


def _pair_flags(rows: DocumentRows, criterion: str, context_threshold: float) -> np.ndarray:
    how, parts = CRITERIA[criterion]
    flags = []
    for part in parts:
        values = rows.pair_values(part)
        flags.append(values > context_threshold if part == "ctx" else values == 1.0)
    combined = flags[0]
    for flag in flags[1:]:
        combined = (combined & flag) if how == "and" else (combined | flag)
    return combined


def document_counts(rows: DocumentRows, *, criterion: str, kept: np.ndarray, context_threshold: float) -> DocumentCounts:
    """Per-query counts for one relevance criterion, the rows a top-k keeps and a context threshold.

    ``kept`` is a mask over the sorted rows (:func:`evalframe.frames.topk.document_rows_kept`). Reads the
    criterion's relevance column and match lists from the frame, then counts with
    :func:`evalframe.metrics.kernels.document_counts`.
    """
    column = relevance_column(criterion)
    require_columns(rows.frame, [column], where=rows.where, why=f"for the relevance criterion {criterion!r}")
    relevant_rows = numeric_column(rows.frame, column, where=rows.where)[rows.positions] == 1.0
    return kernels.document_counts(
        row_query=rows.row_query, rank=rows.rank, kept=kept, relevant=relevant_rows[rows.order],
        doc_group=rows.doc_group, doc_group_query=rows.doc_group_query, pair_row=rows.pair_row, pair_group=rows.pair_group,
        pair_group_query=rows.pair_group_query, pair_matched=_pair_flags(rows, criterion, context_threshold), n_gold=rows.n_gold,
    )


def document_query_metrics(
    rows: DocumentRows,
    *,
    criterion: str,
    kept: np.ndarray,
    context_threshold: float,
    policy: EdgePolicy = HAYSTACK_EDGE_POLICY,
) -> pd.DataFrame:
    """One row per query that keeps a row (index ``multilabel_id``), one column per document metric.

    ``kept`` is the mask of the sorted rows a top-k keeps; the queries are those of
    :func:`evalframe.frames.topk.document_queries_kept`, in its order.
    """
    counts = document_counts(rows, criterion=criterion, kept=kept, context_threshold=context_threshold)
    columns = {name: metric.values(counts, policy) for name, metric in DOCUMENT_METRICS.items()}
    table = pd.DataFrame(columns, index=query_index(rows))
    return table if kept.all() else table.iloc[document_queries_kept(rows, kept)]


def available_answer_metrics(frame: pd.DataFrame) -> list[str]:
    """The answer metrics a frame carries (``sas`` only when it was built with a SAS model)."""
    return [name for name in ANSWER_METRICS if name in frame.columns]


def answer_query_metrics(rows: AnswerRows, kept: np.ndarray, *, answer_scope: str) -> pd.DataFrame:
    """One row per query (index ``multilabel_id``), one column per answer metric.

    A query none of whose rows is kept scores 0.0 (Haystack gave NaN and dropped it: docs/metrics.md#answer-metrics).
    """
    metrics = available_answer_metrics(rows.frame)
    columns = [answer_metric_column(m, answer_scope) for m in metrics]
    require_columns(rows.frame, columns, where=rows.where, why=f"for answer metrics with answer_scope={answer_scope!r}")
    out = {}
    for metric, column in zip(metrics, columns):
        values = numeric_column(rows.frame, column, where=rows.where)[rows.positions]
        out[metric] = ANSWER_METRICS[metric].kernel(values, kept, row_query=rows.codes, by_query=rows.by_query,
                                                    starts=rows.starts)
    return pd.DataFrame(out, index=query_index(rows))



# ------------------------------------------------------------------ a node's tables, from the store
def answer_table(store: PreparedStore, node: str, options: MetricOptions) -> pd.DataFrame | None:
    """The answer metrics of ``node`` per query under ``options`` (checked), or None: no answer rows in its eval_mode.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> store = PreparedStore(load_demo_result().node_results)
    >>> options = MetricOptions(context_matching_threshold=65.0)
    >>> list(answer_table(store, "Reader", options).columns), answer_table(store, "Retriever", options)
    (['exact_match', 'f1'], None)
    """
    answers = store.answer_rows(node, options.eval_mode)
    if answers is None:
        return None
    kept = answers_kept(store, node, answers, top_k_reader=options.simulated_top_k_reader,
                        top_k_retriever=options.simulated_top_k_retriever, retriever_node=options.retriever_node,
                        eval_mode=options.eval_mode)
    return answer_query_metrics(answers, kept, answer_scope=options.answer_scope)


def document_table(store: PreparedStore, node: str, options: MetricOptions) -> pd.DataFrame | None:
    """The document metrics of ``node`` per query under ``options`` (checked, with a context_matching_threshold), or
    None: no document rows in its eval_mode.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> store = PreparedStore(load_demo_result().node_results)
    >>> table = document_table(store, "Retriever", MetricOptions(context_matching_threshold=65.0))
    >>> len(table), float(table["recall_single_hit"].mean())
    (8, 0.875)
    """
    rows = store.document_rows(node, options.eval_mode, CRITERIA[options.criterion][1])
    if rows is None:
        return None
    return document_query_metrics(rows, criterion=options.criterion,
                                  kept=document_rows_kept(rows, options.simulated_top_k_retriever),
                                  # resolved to a checked number by the result's check_options
                                  context_threshold=cast(float, options.context_matching_threshold))


def score_table(store: PreparedStore, node: str, options: MetricOptions, declared: Mapping[str, Metric],
                levels: tuple[str, ...] = ("query", "row")) -> pd.DataFrame | None:
    """The declared scores (``declared``: ``result.scores``) of ``node`` per query whose level is in ``levels``
    (:func:`evalframe.frames.scores.score_query_table`; a per-row score's mean over the rows ``options`` keep), or
    None: the node holds none.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import score_measure
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
    ...                       "rank": [1, 2, 1], "scores.latency": [0.5, 0.5, 2.0]})
    >>> store = PreparedStore({"Retriever": frame})
    >>> declared = {"latency": score_measure("latency", direction="lower")}
    >>> score_table(store, "Retriever", MetricOptions(), declared)["latency"].to_dict()
    {'q1': 0.5, 'q2': 2.0}
    >>> score_table(store, "Retriever", MetricOptions(), declared, levels=("row",)) is None
    True
    """
    frame = store.view(node)
    found = node_scores(frame.columns, declared, where=f"node {node!r}")
    chosen = {name: metric for name, metric in found.items() if metric.level in levels}
    if not chosen:
        return None
    documents = answers = None
    if any(metric.level == "row" for metric in chosen.values()):
        rows = store.document_rows(node, options.eval_mode)
        if rows is not None:
            documents = (rows, document_rows_kept(rows, options.simulated_top_k_retriever))
        answer_rows = store.answer_rows(node, options.eval_mode)
        if answer_rows is not None:
            answers = (answer_rows, answers_kept(
                store, node, answer_rows, top_k_reader=options.simulated_top_k_reader,
                top_k_retriever=options.simulated_top_k_retriever, retriever_node=options.retriever_node,
                eval_mode=options.eval_mode))
    return score_query_table(frame, chosen, eval_mode=options.eval_mode, documents=documents, answers=answers,
                             where=f"node {node!r}")


def node_query_table(store: PreparedStore, node: str, options: MetricOptions,
                     declared: Mapping[str, Metric]) -> pd.DataFrame:
    """``query_metrics``' table of ``node``: its answer, document and score tables joined (a query in order of
    first appearance over them; NaN where a query has no value of a table), an empty table without any.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> queries = result.query_metrics("Reader", with_query=True)["query"]
    >>> result.add_scores("Reader", pd.DataFrame({"query": queries.iloc[:3], "faithfulness": [0.9, 0.2, 0.6]}))
    >>> options = MetricOptions(context_matching_threshold=65.0)
    >>> table = node_query_table(PreparedStore(result.node_results), "Reader", options, result.scores)
    >>> list(table.columns), len(table), int(table["faithfulness"].notna().sum())
    (['exact_match', 'f1', 'faithfulness'], 8, 3)
    """
    tables = [t for t in (answer_table(store, node, options), document_table(store, node, options),
                          score_table(store, node, options, declared)) if t is not None]
    if not tables:
        return pd.DataFrame(index=pd.Index([], name="multilabel_id", dtype=object))
    table = tables[0]
    for other in tables[1:]:
        index = table.index.append(other.index[~other.index.isin(table.index)])
        table = table.reindex(index).join(other.reindex(index))
    return table


def listed_rows(store: PreparedStore, node: str, row_type: str, eval_mode: str) -> pd.DataFrame:
    """The frame's own rows of ``node`` of one type and eval_mode, in frame order (what an example lists; the
    frame is built when pending).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document",
    ...                       "eval_mode": ["integrated", "isolated", "integrated"], "rank": [1, 1, 1]})
    >>> listed_rows(PreparedStore({"Retriever": frame}), "Retriever", "document", "integrated").index.tolist()
    [0, 2]
    """
    return store.frames[node].iloc[store.positions(node, row_type, eval_mode)]


# ------------------------------------------------------------------ the trec measures of a node
def judged_rows_of(store: PreparedStore, node: str | None, eval_mode: str, duplicates: str, missing_queries: str
                   ) -> tuple[JudgedRows | None, list[str], str]:
    """The judged rows of ``node`` (the one node with document rows when None; None if it has none with
    ``eval_mode``), the nodes with document rows, and the node (arguments checked, ``missing_queries`` too).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
    ...                       "rank": [1, 2, 1], "document_id": ["d1", "d2", "d3"],
    ...                       "gold_document_ids": [["d2"], ["d2"], ["d3", "d4"]],
    ...                       "gold_document_relevance": [[1], [1], [2, 1]]})
    >>> rows, documents, node = judged_rows_of(PreparedStore({"Retriever": frame}), None, "integrated", "error", "skip")
    >>> rows.n_queries, documents, node
    (2, ['Retriever'], 'Retriever')
    """
    eval_mode = check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
    duplicates = check.check_choice(duplicates, DUPLICATE_RULES, name="duplicates")
    check.check_choice(missing_queries, MISSING_QUERY_RULES, name="missing_queries")
    nodes = list(store.frames)
    documents = [name for name in nodes if store.has_rows(name, "document")]
    if node is None:
        node = document_node(documents, nodes, TREC_NEEDED)
    node = check.check_node(node, nodes)
    rows = store.judged_rows(node, eval_mode, duplicates) if node in documents else None
    return rows, documents, node


def trec_table(store: PreparedStore, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
               duplicates: str, missing_queries: str = "skip", max_docs: object = None, judged_only: object = False,
               rel: object = None) -> tuple[pd.DataFrame, str]:
    """The per-query table of ``trec_metrics`` and ``trec_query_metrics`` (their arguments, checked here), and the
    node it ranks.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
    ...                       "rank": [1, 2, 1], "document_id": ["d1", "d2", "d3"],
    ...                       "gold_document_ids": [["d2"], ["d2"], ["d3", "d4"]],
    ...                       "gold_document_relevance": [[1], [1], [2, 1]]})
    >>> table, node = trec_table(PreparedStore({"Retriever": frame}), ["RR"], None, "integrated", False, "error")
    >>> node, table["RR"].to_dict()  # q1: d2 (relevant) at rank 2; q2: d3 at rank 1
    ('Retriever', {'q1': 0.5, 'q2': 1.0})
    """
    cut = check_cut(max_docs, judged_only, rel)
    parsed = at_level(parse_measures(measures), cut[2])
    complete = check.check_real_bool(complete, name="complete")
    rows, documents, node = judged_rows_of(store, node, eval_mode, duplicates, missing_queries)
    if node not in documents:
        raise InvalidParameterError(
            f"node {node!r} has no document rows (a reader's answers only?); the trec measures rank documents. "
            f"Nodes with document rows: {documents}.")
    if rows is None:
        raise InvalidParameterError(f"node {node!r} has no document rows with eval_mode={eval_mode!r}.")
    check_missing_queries(rows, missing_queries, complete)
    return trec_query_table(cut_ranking(rows, max_docs=cut[0], judged_only=cut[1]), parsed, complete=complete), node


def trec_relstrings(store: PreparedStore, length: int, node: str | None, eval_mode: str, complete: bool,
                    duplicates: str, missing_queries: str, max_docs: object, judged_only: object) -> pd.Series:
    """trec_eval's ``relstring`` per query (``trec_eval -q -m relstring.N``, ``m_relstring.c``): one character
    per document of the top ``length``: its grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` judged with
    a grade below 0. A string, not a number: it has no mean (trec_eval prints it per query only).

    The other parameters are :meth:`trec_metrics`'. Returns a Series of str with index ``multilabel_id``, the
    queries of :meth:`trec_query_metrics`, in its order.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import EvaluationResult
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q1", "q2"], "type": "document",
    ...                       "eval_mode": "integrated", "rank": [1, 2, 3, 1], "document_id": ["d1", "d2", "d3", "d4"],
    ...                       "gold_document_ids": [["d2", "d3"]] * 3 + [["d4"]],
    ...                       "gold_document_relevance": [[12, 0]] * 3 + [[1]]})
    >>> EvaluationResult({"Retriever": frame}).trec_relstrings(2).to_dict()  # d1 unjudged, d2 graded 12
    {'q1': '->', 'q2': '1'}
    """
    cut = check_cut(max_docs, judged_only, None)
    if isinstance(length, bool) or not isinstance(length, int):
        raise InvalidParameterError(f"length is the number of top documents shown, an int; got {length!r}.",
                                    parameter="length")
    complete = check.check_real_bool(complete, name="complete")
    rows, documents, node = judged_rows_of(store, node, eval_mode, duplicates, missing_queries)
    if rows is None:
        raise InvalidParameterError(f"node {node!r} has no document rows with eval_mode={eval_mode!r}; "
                                    f"relstring ranks documents. Nodes with document rows: {documents}.")
    check_missing_queries(rows, missing_queries, complete)
    return relstring_series(cut_ranking(rows, max_docs=cut[0], judged_only=cut[1]), length, complete=complete)
