"""Row selection before metrics: eval_mode and type filters, simulated top-k (SPEC 3).

Everything works on whole node frames with numpy; nothing loops per query.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .arrays import DistinctLists, select_lists
from .._validation import require_columns
from .prepared import AnswerRows
from .prepared import DocumentRows

__all__ = ["row_positions", "RetrieverJoin", "join_retriever", "answer_rows_kept"]


def _equals(series: pd.Series, value: str) -> np.ndarray:
    return (series == value).to_numpy(dtype=bool, na_value=False)


def row_positions(frame: pd.DataFrame, row_type: str, eval_mode: str, *, where: str) -> np.ndarray:
    """Positions of the rows of ``row_type`` evaluated in ``eval_mode``.

    A frame without an ``eval_mode`` column uses all its rows, with a warning.
    """
    require_columns(frame, ["multilabel_id", "type", "rank"], where=where, why="to compute metrics")
    mask = _equals(frame["type"], row_type)
    if "eval_mode" in frame.columns:
        mask = mask & _equals(frame["eval_mode"], eval_mode)
    else:
        warnings.warn(
            f"{where} has no 'eval_mode' column; using all its rows for eval_mode={eval_mode!r}.",
            UserWarning,
            stacklevel=4,
        )
    return np.flatnonzero(mask)


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
