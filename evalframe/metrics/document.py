"""Per-query document counts, from whole-frame numpy work (SPEC 3, "Per-query document metrics").

:func:`prepare_document_rows` explodes the per-gold match lists once and sorts the rows by
(query, rank); :func:`document_counts` then turns one relevance criterion, top-k and
threshold into per-query counts with a handful of array expressions (bincount, fancy
indexing). The metric kernels in :mod:`.registry` are functions of these counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._arrays import first_appearance_codes, flatten_floats, list_lengths, numeric_column, row_label, segment_positions
from .._validation import require_columns
from ..columns import CRITERIA, MATCH_LIST_COLUMNS, NO_ANSWER_DOCUMENT_ID, relevance_column
from ..errors import SchemaError
from .registry import DOCUMENT_METRICS, HAYSTACK_EDGE_POLICY, EdgePolicy, apply_edge_policy, log2_discount

__all__ = ["DocumentRows", "DocumentCounts", "prepare_document_rows", "document_counts", "document_query_metrics"]


@dataclass
class DocumentRows:
    """One node's document rows (already filtered to one eval_mode) as flat arrays.

    Rows are reordered by (query, rank), stably; ``order`` maps them back to frame positions.
    Pairs are (row, gold index) for every index below the longest of the row's match lists.
    """

    frame: pd.DataFrame
    where: str
    query_ids: np.ndarray  # distinct multilabel_id, first-appearance order
    row_query: np.ndarray  # query code per sorted row
    rank: np.ndarray  # float64 per sorted row
    order: np.ndarray  # frame position per sorted row
    doc_group: np.ndarray  # code of (query, document_id) per sorted row
    doc_group_query: np.ndarray  # query code per doc group
    n_gold: np.ndarray  # L per query
    pair_row: np.ndarray  # sorted-row index per pair
    pair_group: np.ndarray  # code of (query, gold index) per pair
    pair_group_query: np.ndarray  # query code per pair group
    pair_values: dict[str, np.ndarray]  # "id"/"ctx"/"ans" -> value per pair (NaN where the list is shorter)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)


def _gold_counts(frame: pd.DataFrame, first_rows: np.ndarray, where: str) -> np.ndarray:
    gold_column = "gold_custom_document_ids" if "gold_custom_document_ids" in frame.columns else "gold_document_ids"
    cells = frame[gold_column].to_numpy()[first_rows]
    counts = np.empty(len(cells), dtype=np.int64)
    for i, gold in enumerate(cells):  # one cell per query: linear, not a DataFrame filter
        if not isinstance(gold, (list, tuple, np.ndarray)):
            raise SchemaError(
                f"{where}: column {gold_column!r} must hold a list of gold ids; the first row of query "
                f"{frame['multilabel_id'].iloc[first_rows[i]]!r} holds {gold!r}."
            )
        counts[i] = sum(1 for g in gold if g != NO_ANSWER_DOCUMENT_ID)
    return counts


def prepare_document_rows(frame: pd.DataFrame, *, where: str, needed: tuple[str, ...] = ("id", "ctx", "ans")) -> DocumentRows:
    """Build the arrays shared by every criterion, top-k and threshold for these document rows.

    ``needed`` names the match lists to explode ("id", "ctx", "ans"); the others are left out.
    """
    gold_column = "gold_custom_document_ids" if "gold_custom_document_ids" in frame.columns else "gold_document_ids"
    list_columns = [MATCH_LIST_COLUMNS[k] for k in needed]
    require_columns(frame, ["multilabel_id", "rank", "document_id", gold_column, *list_columns], where=where,
                    why="for document metrics")
    codes, query_ids = first_appearance_codes(frame["multilabel_id"])
    n_queries = len(query_ids)
    rank_frame = numeric_column(frame, "rank", where=where)
    if np.isnan(rank_frame).any():
        position = int(np.flatnonzero(np.isnan(rank_frame))[0])
        raise SchemaError(f"{where}: column 'rank' is empty in row {row_label(frame.index, position)!r}; every row needs a rank.")

    order = np.lexsort((rank_frame, codes))  # stable: ties keep frame order
    row_query = codes[order]
    rank = rank_frame[order]
    first_rows = np.unique(codes, return_index=True)[1]
    n_gold = _gold_counts(frame, first_rows, where)

    doc_codes = pd.factorize(frame["document_id"], sort=False, use_na_sentinel=False)[0].astype(np.int64)[order]
    doc_key = row_query * (int(doc_codes.max(initial=0)) + 1) + doc_codes
    doc_keys, doc_group = np.unique(doc_key, return_inverse=True)
    doc_group_query = doc_keys // (int(doc_codes.max(initial=0)) + 1)

    lengths, starts, flats = {}, {}, {}
    for key in needed:
        column = MATCH_LIST_COLUMNS[key]
        cells = frame[column]
        frame_lengths = list_lengths(cells, column=column, where=where)
        flats[key] = flatten_floats(cells, frame_lengths, column=column, where=where)
        lengths[key] = frame_lengths[order]
        starts[key] = (np.cumsum(frame_lengths) - frame_lengths)[order]
    longest = np.zeros(len(frame), dtype=np.int64)
    for key in needed:
        np.maximum(longest, lengths[key], out=longest)
    pair_row, pair_index = segment_positions(longest)
    pair_values = {}
    for key in needed:
        inside = pair_index < lengths[key][pair_row]
        values = np.full(len(pair_row), np.nan)
        values[inside] = flats[key][starts[key][pair_row[inside]] + pair_index[inside]]
        pair_values[key] = values
    width = int(longest.max(initial=0)) + 1
    pair_keys, pair_group = np.unique(row_query[pair_row] * width + pair_index, return_inverse=True)
    return DocumentRows(
        frame=frame,
        where=where,
        query_ids=query_ids,
        row_query=row_query,
        rank=rank,
        order=order,
        doc_group=doc_group.astype(np.int64),
        doc_group_query=doc_group_query,
        n_gold=n_gold,
        pair_row=pair_row,
        pair_group=pair_group.astype(np.int64),
        pair_group_query=pair_keys // width,
        pair_values=pair_values,
    )


@dataclass
class DocumentCounts:
    """Per-query quantities every document metric is a function of (arrays of length n_queries)."""

    n_rows: np.ndarray  # retrieved rows (after top-k)
    n_relevant_rows: np.ndarray  # |R|
    n_gold: np.ndarray  # L
    matched: np.ndarray  # M: distinct gold indices matched by relevant rows
    num_relevants: np.ndarray  # distinct relevant document ids + (L - M)
    min_rank: np.ndarray  # smallest rank in R (inf when R is empty)
    precision_sum: np.ndarray  # sum over r in R of |{r' in R: rank r' <= rank r}| / rank r
    dcg: np.ndarray  # sum over R of 1 / log2(rank + 1)
    ideal_dcg: np.ndarray  # sum_{i=1..num_relevants} 1 / log2(i + 1)


def _pair_flags(rows: DocumentRows, criterion: str, context_threshold: float) -> np.ndarray:
    how, parts = CRITERIA[criterion]
    flags = []
    for part in parts:
        values = rows.pair_values[part]
        flags.append(values > context_threshold if part == "ctx" else values == 1.0)
    combined = flags[0]
    for flag in flags[1:]:
        combined = (combined & flag) if how == "and" else (combined | flag)
    return combined


def _ideal_dcg(num_relevants: np.ndarray) -> np.ndarray:
    top = int(num_relevants.max(initial=0))
    table = np.concatenate(([0.0], np.cumsum(log2_discount(np.arange(1, top + 1)))))
    return table[np.clip(num_relevants, 0, None)]


def document_counts(
    rows: DocumentRows,
    *,
    criterion: str,
    top_k: int = -1,
    context_threshold: float = 65.0,
) -> DocumentCounts:
    """Per-query counts for one relevance criterion, simulated top-k and context threshold."""
    column = relevance_column(criterion)
    require_columns(rows.frame, [column], where=rows.where, why=f"for the relevance criterion {criterion!r}")
    missing_parts = [p for p in CRITERIA[criterion][1] if p not in rows.pair_values]
    if missing_parts:  # pragma: no cover - prepare_document_rows is called with the needed parts
        raise SchemaError(f"{rows.where}: match lists {missing_parts} were not prepared")
    relevant_frame = numeric_column(rows.frame, column, where=rows.where) == 1.0
    keep = np.ones(len(rows.rank), dtype=bool) if top_k == -1 else rows.rank <= top_k
    relevant = relevant_frame[rows.order] & keep
    nq = rows.n_queries

    n_rows = np.bincount(rows.row_query[keep], minlength=nq)
    n_relevant_rows = np.bincount(rows.row_query[relevant], minlength=nq)

    selected = _pair_flags(rows, criterion, context_threshold) & relevant[rows.pair_row]
    hit = np.zeros(len(rows.pair_group_query), dtype=bool)
    hit[rows.pair_group[selected]] = True
    matched = np.bincount(rows.pair_group_query[hit], minlength=nq)

    doc_hit = np.zeros(len(rows.doc_group_query), dtype=bool)
    doc_hit[rows.doc_group[relevant]] = True
    num_relevants = np.bincount(rows.doc_group_query[doc_hit], minlength=nq) + (rows.n_gold - matched)

    # Relevant rows in (query, rank) order: first one per query has the smallest rank; for map,
    # the count of relevant rows ranked at or above a row includes rows tied with it.
    positions = np.flatnonzero(relevant)
    q = rows.row_query[positions]
    r = rows.rank[positions]
    new_query = np.r_[True, q[1:] != q[:-1]] if len(q) else np.zeros(0, dtype=bool)
    min_rank = np.full(nq, np.inf)
    min_rank[q[new_query]] = r[new_query]
    index = np.arange(len(q))
    query_start = np.maximum.accumulate(np.where(new_query, index, 0)) if len(q) else index
    within = index - query_start + 1
    new_tie = new_query | np.r_[False, r[1:] != r[:-1]] if len(q) else new_query
    last_of_tie = np.r_[new_tie[1:], True] if len(q) else new_tie
    tie_id = np.cumsum(new_tie) - 1
    at_or_above = within[last_of_tie][tie_id]
    precision_sum = np.bincount(q, weights=at_or_above / r, minlength=nq)
    dcg = np.bincount(q, weights=log2_discount(r), minlength=nq)

    return DocumentCounts(
        n_rows=n_rows.astype(np.float64),
        n_relevant_rows=n_relevant_rows.astype(np.float64),
        n_gold=rows.n_gold.astype(np.float64),
        matched=matched.astype(np.float64),
        num_relevants=num_relevants.astype(np.float64),
        min_rank=min_rank,
        precision_sum=precision_sum,
        dcg=dcg,
        ideal_dcg=_ideal_dcg(num_relevants),
    )


def document_query_metrics(
    rows: DocumentRows,
    *,
    criterion: str,
    top_k: int = -1,
    context_threshold: float = 65.0,
    policy: EdgePolicy = HAYSTACK_EDGE_POLICY,
) -> pd.DataFrame:
    """One row per query (index ``multilabel_id``), one column per document metric."""
    counts = document_counts(rows, criterion=criterion, top_k=top_k, context_threshold=context_threshold)
    columns = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, metric in DOCUMENT_METRICS.items():
            columns[name] = apply_edge_policy(metric.kernel(counts), counts, policy)  # type: ignore[misc]
    table = pd.DataFrame(columns, index=pd.Index(rows.query_ids, name="multilabel_id"))
    if top_k == -1:
        return table
    # SPEC 3 filters the rows first: a query with no row ranked <= top_k is not in the table, and the queries
    # are in order of first appearance among the remaining rows
    kept = rows.rank <= top_k
    first = np.full(rows.n_queries, np.iinfo(np.int64).max)
    np.minimum.at(first, rows.row_query[kept], rows.order[kept])
    present = np.flatnonzero(counts.n_rows > 0)
    return table.iloc[present[np.argsort(first[present], kind="stable")]]
