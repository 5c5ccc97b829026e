"""Simulated top-k, interpreted here and nowhere else (``docs/metrics.md#which-rows-are-used``).

* the retriever's top-k for answer nodes: which node's documents simulate it, in which eval_mode, and
  which answers survive it (:func:`retriever_join`, :func:`answer_rows_kept`);
* the reader's top-k: the best-ranked surviving answers per query (:func:`answer_rows_kept`);
* the retriever's top-k for document nodes: the rows ranked ``<= k`` (:func:`document_rows_kept`).

Everything works on whole node frames with numpy; nothing loops per query.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_node, require_columns
from ..columns import EVAL_MODES
from ..errors import InvalidParameterError
from .arrays import DistinctLists, select_lists
from .prepared import AnswerRows, DocumentRows
from .rows import NodeNeeded, document_node
from .store import POSITION_COLUMNS, PreparedStore

__all__ = ["RetrieverJoin", "RETRIEVER_NEEDED", "check_retriever_node", "retriever_node_of", "retriever_mode",
           "retriever_join", "join_retriever", "answer_rows_kept", "answers_kept", "document_rows_kept", "document_queries_kept"]


@dataclass
class RetrieverJoin:
    """Answer rows' document ids and the retriever's documents, coded with one shared integer key.

    Built once per (answer node, retriever node, eval_mode); a top-k then costs one ``isin``.
    """

    answer_owner: np.ndarray  # answer row (index into AnswerRows.positions) per document id
    answer_keys: np.ndarray  # (query, document) key per answer document id
    document_keys: np.ndarray  # (query, document) key per retriever row (sorted order)
    document_rank: np.ndarray  # rank per retriever row (sorted order)


def join_retriever(answers: AnswerRows, documents: DocumentRows | None, lists: DistinctLists | None = None) -> RetrieverJoin:
    """``lists``: the distinct cells of the answers' ``document_ids`` column (default: every row its own cell).

    ``documents`` None: the retriever has no rows to simulate with (only rows of an eval_mode outside
    integrated / isolated), so every answer with a document id drops out.
    """
    require_columns(answers.frame, ["document_ids"], where=answers.where, why="to simulate the retriever's top-k")
    if lists is None:
        lists = DistinctLists.of_rows(answers.frame["document_ids"])
    # None (a missing list) counts as [] (DIFFERS from Haystack, which raised TypeError)
    cells = select_lists(lists, answers.positions, answers.frame.index, column="document_ids", where=answers.where,
                         missing_as_empty=True)
    owner, element = cells.row_elements()
    if documents is None:
        none = np.zeros(0, dtype=np.int64)
        return RetrieverJoin(owner, np.full(len(owner), -1, dtype=np.int64), none, np.zeros(0, dtype=np.float64))
    # map both sides' queries to one code through the (small) arrays of distinct query ids
    query_codes, _ = pd.factorize(np.concatenate([answers.query_ids, documents.query_ids]), use_na_sentinel=False)
    answer_query = query_codes[: answers.n_queries].astype(np.int64)[answers.codes[owner]]
    document_query = query_codes[answers.n_queries:].astype(np.int64)[documents.row_query]
    # answer document ids as codes of the retriever's distinct ids (-1: never retrieved), looked up once per distinct id list
    retrieved = pd.Index(np.asarray(documents.document_ids, dtype=object))  # object: NaN and None match as before
    answer_docs = retrieved.get_indexer(cells.flat_objects()).astype(np.int64)[element]
    width = len(documents.document_ids) + 1
    answer_keys = np.where(answer_docs >= 0, answer_query * width + answer_docs, -1)
    return RetrieverJoin(owner, answer_keys, document_query * width + documents.document_codes, documents.rank)


def answer_rows_kept(
    answers: AnswerRows,
    *,
    top_k_reader: int,
    top_k_retriever: int,
    join: RetrieverJoin | None,
) -> np.ndarray:
    """Boolean mask (per answer row) of the rows that survive the simulated top-k of reader and retriever.

    With a retriever top-k, an answer survives when every id in its ``document_ids`` is among its
    query's documents ranked ``<= top_k_retriever``; then the ``top_k_reader`` best-ranked
    survivors of each query are kept (ties in frame order).
    """
    n = len(answers.positions)
    if top_k_retriever == -1:
        return np.ones(n, dtype=bool) if top_k_reader == -1 else answers.rank <= top_k_reader
    assert join is not None
    outside = ~np.isin(join.answer_keys, join.document_keys[join.document_rank <= top_k_retriever])
    kept = np.ones(n, dtype=bool)
    kept[join.answer_owner[outside]] = False
    if top_k_reader != -1:
        rows = np.flatnonzero(kept)
        order = rows[np.lexsort((rows, answers.rank[rows], answers.codes[rows]))]
        q = answers.codes[order]
        new_query = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
        index = np.arange(len(q))
        within = index - (np.maximum.accumulate(np.where(new_query, index, 0)) if len(q) else index)
        kept[order[within >= top_k_reader]] = False
    return kept


def document_rows_kept(rows: DocumentRows, top_k: int) -> np.ndarray:
    """Mask of the (sorted) document rows a retriever top-k keeps: every row for -1, else those ranked ``<= top_k``."""
    return np.ones(len(rows.rank), dtype=bool) if top_k == -1 else rows.rank <= top_k


def document_queries_kept(rows: DocumentRows, kept: np.ndarray) -> np.ndarray:
    """The queries (codes) that keep a row, in order of first appearance among the kept rows.

    The rows are filtered first (``docs/metrics.md#per-query``): a query with no row ranked ``<= k`` is not
    scored at all, as in Haystack 1.x.
    """
    first = np.full(rows.n_queries, np.iinfo(np.int64).max)
    np.minimum.at(first, rows.row_query[kept], rows.positions[rows.order[kept]])
    present = np.flatnonzero(first < np.iinfo(np.int64).max)
    return present[np.argsort(first[present], kind="stable")]


def check_retriever_node(retriever_node: str | None, nodes: Sequence[str], has_documents: Callable[[str], bool]) -> None:
    """``retriever_node`` (when given) must name a node with document rows; else its documents would simulate nothing.

    ``nodes``: the result's nodes; ``has_documents(node)``: whether a node has document rows (in a result in memory,
    or over a partitioned folder), asked of the other nodes only to name them in the error.

    Examples
    --------
    >>> check_retriever_node("Reader", ["Retriever", "Reader"], lambda node: node == "Retriever")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: retriever_node must name a node with document rows; 'Reader' has none. \
Nodes with document rows: ['Retriever'].
    """
    if retriever_node is None:
        return
    check_node(retriever_node, list(nodes), name="retriever_node")
    if not has_documents(retriever_node):
        # every answer with a document id would silently drop out
        documents = [node for node in nodes if has_documents(node)]
        raise InvalidParameterError(
            f"retriever_node must name a node with document rows; {retriever_node!r} has none. "
            f"Nodes with document rows: {documents or 'none'}."
        )


#: What simulated_top_k_retriever says when it cannot pick the retriever node (:func:`retriever_node_of`).
RETRIEVER_NEEDED = NodeNeeded(
    none="simulated_top_k_retriever needs the node whose documents simulate the retriever, and no node has document "
         "rows (candidates: {documents}). Pass retriever_node=<name>.",
    several="simulated_top_k_retriever needs the node whose documents simulate the retriever, and several nodes "
            "have document rows (candidates: {documents}). Pass retriever_node=<name>.")


def retriever_node_of(documents: Sequence[str], nodes: Sequence[str], retriever_node: str | None) -> str:
    """The node whose documents simulate the retriever's top-k for answer nodes: ``retriever_node``, else the one
    node with document rows (``documents``: those nodes; :func:`evalframe.frames.rows.document_node`, with the
    error :data:`RETRIEVER_NEEDED`).

    Examples
    --------
    >>> retriever_node_of(["Retriever"], ["Retriever", "Reader"], None), retriever_node_of(["A", "B"], ["A", "B"], "B")
    ('Retriever', 'B')
    >>> retriever_node_of(["A", "B"], ["A", "B"], None)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: simulated_top_k_retriever needs the node whose documents simulate the \
retriever, and several nodes have document rows (candidates: ['A', 'B']). Pass retriever_node=<name>.
    """
    if retriever_node is not None:
        return retriever_node
    return document_node(documents, nodes, RETRIEVER_NEEDED)


def retriever_mode(eval_mode: str, has_documents: Callable[[str], bool]) -> str:
    """The eval_mode of the retriever's rows that simulate its top-k for answers of ``eval_mode``: the same one, else
    the other when the retriever has no document rows of it (``has_documents(mode)``): Haystack gives retrievers
    no isolated rows, and took every document row regardless of eval_mode (``docs/haystack-compat.md``).

    Examples
    --------
    >>> retriever_mode("isolated", lambda mode: mode == "integrated")
    'integrated'
    """
    if has_documents(eval_mode):
        return eval_mode
    return EVAL_MODES[1 - EVAL_MODES.index(eval_mode)]


def retriever_join(store: PreparedStore, node: str, answers: AnswerRows, *, retriever_node: str | None,
                   eval_mode: str) -> RetrieverJoin:
    """The join of ``node``'s answers with the documents that simulate the retriever, prepared once and kept.

    The retriever's documents of the same eval_mode are used; a retriever evaluated in one mode only (Haystack
    gives retrievers no isolated rows) simulates the other mode too, as Haystack, which took every document row
    regardless of eval_mode, did (``docs/haystack-compat.md``).
    """
    frames = store.frames
    retriever = retriever_node_of([name for name in frames if store.has_rows(name, "document")], list(frames),
                             retriever_node)
    mode = retriever_mode(eval_mode, lambda mode: store.document_rows(retriever, mode) is not None)
    documents = store.document_rows(retriever, mode)
    if documents is None:  # e.g. eval_mode cells that are neither mode: no retriever to simulate, not an empty one
        frame = store.view(retriever)
        found = sorted(map(repr, frame["eval_mode"][(frame["type"] == "document").to_numpy(dtype=bool, na_value=False)]
                                 .unique())) if "eval_mode" in frame.columns else []
        raise InvalidParameterError(
            f"simulated_top_k_retriever needs document rows of node {retriever!r} with eval_mode 'integrated' or "
            f"'isolated'; its document rows have eval_mode {', '.join(found) or 'values'}. Fix the frame's "
            "'eval_mode' column (or pass another retriever_node)."
        )
    lists = store.distinct_lists(node, "document_ids") if "document_ids" in store.view(node).columns else None
    key = ("join", retriever, eval_mode, mode)
    # the join is valid for these answer rows and these retriever rows (each rebuilt when its frame changed);
    # the entry holds both, so their identities cannot be taken by new objects
    held = store.get(node, key)
    if held is None or held[0] is not answers or held[1] is not documents:
        held = (answers, documents, join_retriever(answers, documents, lists))
        store.keep(node, key, held, POSITION_COLUMNS + ("document_ids",))
    return held[2]


def answers_kept(store: PreparedStore, node: str, answers: AnswerRows, *, top_k_reader: int, top_k_retriever: int,
                 retriever_node: str | None, eval_mode: str) -> np.ndarray:
    """Mask of ``node``'s answer rows that survive the simulated top-k of the retriever and of the reader.

    With a retriever top-k the answers are joined with the documents that simulate the retriever
    (:func:`retriever_join`); then :func:`answer_rows_kept` applies both cuts.
    """
    join = None
    if top_k_retriever != -1:
        join = retriever_join(store, node, answers, retriever_node=retriever_node, eval_mode=eval_mode)
    return answer_rows_kept(answers, top_k_reader=top_k_reader, top_k_retriever=top_k_retriever, join=join)
