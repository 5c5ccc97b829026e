"""Row selection before metrics: eval_mode filter and simulated top-k (SPEC 3).

Everything returns masks or frames for whole node frames; nothing loops per query.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._arrays import flatten_objects, list_lengths, segment_positions

__all__ = ["filter_eval_mode", "answer_rows_kept"]


def filter_eval_mode(frame: pd.DataFrame, eval_mode: str, *, where: str) -> pd.DataFrame:
    """Rows of ``frame`` evaluated in ``eval_mode``; a frame without the column is kept whole, with a warning."""
    if "eval_mode" not in frame.columns:
        warnings.warn(
            f"{where} has no 'eval_mode' column; using all its rows for eval_mode={eval_mode!r}.",
            UserWarning,
            stacklevel=3,
        )
        return frame
    return frame[frame["eval_mode"].to_numpy() == eval_mode]


def _document_id_lists(frame: pd.DataFrame) -> pd.Series:
    # None (a missing list) counts as an empty list (DIFFERS from Haystack, which raised TypeError)
    cells = frame["document_ids"]
    if not cells.isna().any():
        return cells
    return pd.Series([[] if _is_missing(v) else v for v in cells.tolist()], index=cells.index, dtype=object)


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def answer_rows_kept(
    answers: pd.DataFrame,
    query_codes: np.ndarray,
    rank: np.ndarray,
    *,
    top_k_reader: int,
    top_k_retriever: int,
    retriever_documents: pd.DataFrame | None,
    where: str,
) -> np.ndarray:
    """Boolean mask of the answer rows that survive the simulated top-k of reader and retriever.

    With a retriever top-k, an answer survives when every id in its ``document_ids`` is among its
    query's documents ranked ``<= top_k_retriever``; then the ``top_k_reader`` best-ranked
    survivors of each query are kept (ties in frame order).
    """
    n = len(answers)
    if top_k_retriever == -1:
        return np.ones(n, dtype=bool) if top_k_reader == -1 else rank <= top_k_reader

    assert retriever_documents is not None
    docs = retriever_documents[retriever_documents["rank"].to_numpy(dtype=np.float64) <= top_k_retriever]
    id_cells = _document_id_lists(answers)
    lengths = list_lengths(id_cells, column="document_ids", where=where)
    owner, _ = segment_positions(lengths)
    answer_doc_ids = flatten_objects(id_cells, lengths)

    # one shared coding of (multilabel_id, document_id) for both frames
    query_codes_all, _ = pd.factorize(
        pd.concat([answers["multilabel_id"].iloc[owner], docs["multilabel_id"]], ignore_index=True),
        use_na_sentinel=False,
    )
    doc_codes_all, doc_uniques = pd.factorize(
        pd.concat([pd.Series(answer_doc_ids, dtype=object), docs["document_id"].astype(object)], ignore_index=True),
        use_na_sentinel=False,
    )
    keys = query_codes_all.astype(np.int64) * (len(doc_uniques) + 1) + doc_codes_all
    answer_keys, document_keys = keys[: len(owner)], keys[len(owner):]
    outside = ~np.isin(answer_keys, document_keys)
    kept = np.ones(n, dtype=bool)
    kept[owner[outside]] = False

    if top_k_reader != -1:
        positions = np.flatnonzero(kept)
        order = positions[np.lexsort((positions, rank[positions], query_codes[positions]))]
        q = query_codes[order]
        new_query = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
        index = np.arange(len(q))
        within = index - (np.maximum.accumulate(np.where(new_query, index, 0)) if len(q) else index)
        kept[order[within >= top_k_reader]] = False
    return kept
