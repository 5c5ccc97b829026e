"""Node frame -> prepared arrays: the key arrays of a node's document or answer rows, built once.

:func:`prepare_document_rows` explodes the per-gold match lists once and sorts the rows by
(query, rank); :func:`prepare_answer_rows` codes the answer rows by query. Everything else
(relevance, top-k, thresholds) is applied to these arrays per call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .arrays import (
    DistinctLists,
    SelectedLists,
    coded_values,
    first_appearance_codes,
    numeric_column,
    row_label,
    segment_positions,
    select_lists,
)
from .hashing import first_equal_rows
from .._validation import require_columns
from ..columns import MATCH_LIST_COLUMNS, NO_ANSWER_DOCUMENT_ID
from ..errors import SchemaError

__all__ = ["DocumentRows", "AnswerRows", "prepare_document_rows", "prepare_answer_rows", "add_match_lists"]


@dataclass
class GoldLists:
    """The gold list of each query (its first row's: ``docs/metrics.md#per-query``), which every row's match lists
    index: the lists of ids and contexts have one entry per gold document, the list of answers at most that many
    (Haystack 1.x's MultiLabel: one answer per answered label)."""

    column: str  # gold_custom_document_ids or gold_document_ids
    lengths: np.ndarray  # entries per query, "00" included
    rows: np.ndarray  # the frame position of each query's first row

    def check(self, part: str, row_lengths: np.ndarray, *, frame: pd.DataFrame, where: str, row_query: np.ndarray,
              query_ids: np.ndarray, positions: np.ndarray, order: np.ndarray, expected: np.ndarray | None = None) -> None:
        """Refuse a row whose match list ``part`` (lengths per sorted row) does not fit its query's gold list.

        A row of another length belongs to another gold list: rows with different gold lists under one
        multilabel_id (a frame edited by hand, two queries under one id) would be scored against the first
        row's, with a recall above 1 or an infinite map. A query without gold ids may have the answers list
        ``[""]`` (Haystack 1.x's all-no_answer MultiLabel): it scores 1.0 whatever its rows match.
        """
        if expected is None:
            expected = self.lengths[row_query]
        bad = (row_lengths > expected) & (expected > 0) if part == "ans" else row_lengths != expected
        if not bad.any():
            return
        row = int(np.argmax(bad))
        query = row_query[row]
        raise SchemaError(
            f"{where}: row {row_label(frame.index, int(positions[order[row]]))!r} of query {query_ids[query]!r} has "
            f"{int(row_lengths[row])} entries in {MATCH_LIST_COLUMNS[part]!r}, but the query's {self.column!r} (row "
            f"{row_label(frame.index, int(self.rows[query]))!r}, its first) has {int(self.lengths[query])}; every row "
            "of a query carries the query's gold lists, and its match lists "
            f"{'at most ' if part == 'ans' else ''}one entry per gold label. Give all rows of the query the same gold "
            "lists, or different multilabel_ids if they are different queries."
        )


@dataclass
class DocumentRows:
    """One node's document rows of one eval_mode, as flat arrays (prepared once, then reused).

    ``positions`` are the rows' positions in ``frame``; internally rows are ordered by (query, rank),
    stably, and ``order`` maps that order back to ``positions``. Pairs are (row, gold index) for every
    index below the longest of the row's match lists; each list's values are exploded on first use.
    Only key columns are held here: relevance columns are read from ``frame`` on every call.
    """

    frame: pd.DataFrame
    positions: np.ndarray
    where: str
    query_ids: np.ndarray  # distinct multilabel_id, first-appearance order
    row_query: np.ndarray  # query code per sorted row
    rank: np.ndarray  # float64 per sorted row
    order: np.ndarray  # index into positions per sorted row
    doc_group: np.ndarray  # code of (query, document_id) per sorted row
    doc_group_query: np.ndarray  # query code per doc group
    n_gold: np.ndarray  # L per query
    pair_row: np.ndarray  # sorted-row index per pair
    pair_index: np.ndarray  # gold index per pair
    pair_group: np.ndarray  # code of (query, gold index) per pair
    pair_group_query: np.ndarray  # query code per pair group
    match_lists: dict[str, SelectedLists]  # "id"/"ctx"/"ans" -> the rows' cells of that match list (present only)
    match_cells: dict[str, np.ndarray]  # "id"/"ctx"/"ans" -> index into match_lists[part].cells per sorted row
    _values: dict[str, np.ndarray] = field(default_factory=dict)
    _documents: tuple[np.ndarray, Any] | None = None
    longest: np.ndarray | None = None  # pairs per sorted row (the longest laid-out match list)
    query_values: Any = None  # query_ids as pandas' factorize gave them (Arrow strings stay Arrow), for the tables' index
    gold: GoldLists | None = None  # the queries' gold lists, which match lists added later are checked against

    @property
    def document_codes(self) -> np.ndarray:
        """Code of ``document_id`` per sorted row (codes of first appearance in frame order), made on first use."""
        return self._document_coding()[0]

    @property
    def document_ids(self) -> Any:
        """The distinct ``document_id`` values (by code), as pandas' factorize gives them, made on first use."""
        return self._document_coding()[1]

    def _document_coding(self) -> tuple[np.ndarray, Any]:
        # only the retriever top-k of answer nodes needs ids coded across queries; the metrics need the
        # duplicates within a query only (doc_group), found without hashing every id
        if self._documents is None:
            codes, ids = first_appearance_codes(self.frame["document_id"], self.positions, objects=False)
            self._documents = (codes[self.order], ids)
        return self._documents

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def parts(self) -> frozenset[str]:
        """The match lists these rows were laid out for."""
        return frozenset(self.match_lists)

    def lengths(self, part: str) -> np.ndarray:
        """Length of match list ``part`` per sorted row."""
        return self.match_lists[part].lengths[self.match_cells[part]]

    def pair_values(self, part: str) -> np.ndarray:
        """Value of match list ``part`` per pair (NaN where the row's list is shorter), exploded once."""
        if part not in self._values:
            selected = self.match_lists[part]
            flat = selected.flat_floats()  # distinct cells only; pairs index into it
            cells = self.match_cells[part]
            if self.longest is not None and np.array_equal(selected.lengths[cells], self.longest):
                # every row's list fills its pairs (the usual case): a pair's value is at a fixed shift from it
                pair_start = np.cumsum(self.longest) - self.longest
                shift = selected.starts[cells] - pair_start
                values = flat if not shift.any() else flat[np.repeat(shift, self.longest) + np.arange(len(self.pair_row))]
            else:
                cell = cells[self.pair_row]
                inside = self.pair_index < selected.lengths[cell]
                values = np.full(len(self.pair_row), np.nan)
                values[inside] = flat[selected.starts[cell[inside]] + self.pair_index[inside]]
            self._values[part] = values
        return self._values[part]


def _sorted_by(codes: np.ndarray, rank: np.ndarray | None = None) -> bool:
    """Whether rows are in ascending (code, rank) order already (a stable sort would leave them as they are)."""
    if len(codes) < 2:
        return True
    step = np.diff(codes)
    if (step < 0).any():
        return False
    return rank is None or not (np.diff(rank)[step == 0] < 0).any()


def _in_order(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``values[order]``, without the copy when ``order`` is the identity (rows already sorted)."""
    identity = len(order) == 0 or (order[0] == 0 and order[-1] == len(order) - 1 and bool((np.diff(order) == 1).all()))
    return values if identity else values[order]


def _gold_counts(gold: SelectedLists) -> np.ndarray:
    """L per selected row: its gold ids without the "00" entries."""
    owner, _ = segment_positions(gold.lengths)
    no_answer = np.bincount(owner[gold.flat_objects() == NO_ANSWER_DOCUMENT_ID], minlength=len(gold.cells))
    return (gold.lengths - no_answer)[gold.row_cell]


#: Up to this many (query, slot) cells, group codes are the keys themselves (no hashing).
_DIRECT_GROUPS = 50_000_000


def _group(keys: np.ndarray, width: int, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes of integer (query * width + slot) keys, and the query of each code.

    Small key spaces use the keys as codes directly; larger ones are factorised (hash-based, linear).
    """
    if n_queries * width <= _DIRECT_GROUPS:
        return keys, np.repeat(np.arange(n_queries, dtype=np.int64), width)
    codes, uniques = pd.factorize(keys, sort=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64) // width


def _pair_codes(sorted_query: np.ndarray, document_codes: np.ndarray) -> np.ndarray:
    """Codes numbering the distinct (query, document) pairs; ``sorted_query`` is ascending.

    The keys are sorted already but for the few rows inside each query, which a stable sort
    (timsort) orders in about linear time, faster than hashing them.
    """
    keys = sorted_query * (int(document_codes.max(initial=0)) + 1) + document_codes
    order = np.argsort(keys, kind="stable")
    new = np.ones(len(keys), dtype=bool)
    ordered = keys[order]
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    codes = np.empty(len(keys), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes


def _document_groups(document_id: pd.Series, positions: np.ndarray, order: np.ndarray, row_query: np.ndarray,
                     in_order: bool = False) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, Any] | None]:
    """Codes of the (query, document_id) pairs per sorted row, the query of each code, and the document coding
    when it was made on the way (else None).

    The pairs only say which rows of a query hold one document: :func:`first_equal_rows` finds them from
    one hash per id (no hash table of all the ids); the codes number the pairs in sorted-row order.
    """
    first = first_equal_rows(document_id, positions if in_order else positions[order], row_query)
    if first is None:  # ids of another type: code every id, then the pairs
        codes, ids = first_appearance_codes(document_id, positions, objects=False)
        document_codes = codes[order]
        doc_group = _pair_codes(row_query, document_codes)
        doc_group_query = np.zeros(int(doc_group.max(initial=-1)) + 1, dtype=np.int64)
        doc_group_query[doc_group] = row_query
        return doc_group, doc_group_query, (document_codes, ids)
    own = first == np.arange(len(first))
    return (np.cumsum(own) - 1)[first], row_query[own], None


def prepare_document_rows(frame: pd.DataFrame, positions: np.ndarray, *, where: str,
                          parts: tuple[str, ...] = ("id", "ctx", "ans"),
                          lists: Callable[[str], DistinctLists] | None = None) -> DocumentRows:
    """Build the arrays shared by every criterion, top-k and threshold for the rows at ``positions``.

    ``parts`` are the match lists ("id", "ctx", "ans") whose lengths lay out the (row, gold) pairs;
    a criterion needing another list needs rows prepared with it (see ``DocumentRows.parts``).
    ``lists(column)`` gives a list column's distinct cells (default: every row its own cell).
    """
    if lists is None:
        lists = lambda column: DistinctLists.of_rows(frame[column])  # noqa: E731
    gold_column = "gold_custom_document_ids" if "gold_custom_document_ids" in frame.columns else "gold_document_ids"
    require_columns(frame, ["multilabel_id", "rank", "document_id", gold_column], where=where, why="for document metrics")
    codes, query_values, first_of_query = coded_values(frame["multilabel_id"], positions, objects=False)
    query_ids = np.asarray(query_values, dtype=object)
    rank_frame = numeric_column(frame, "rank", where=where)[positions]
    if np.isnan(rank_frame).any():
        position = int(positions[np.flatnonzero(np.isnan(rank_frame))[0]])
        raise SchemaError(f"{where}: column 'rank' is empty in row {row_label(frame.index, position)!r}; every row needs a rank.")

    in_order = _sorted_by(codes, rank_frame)
    if in_order:  # rows already in (query, rank) order, as results usually are: no sort, no reordered copies
        order, row_query, rank = np.arange(len(codes), dtype=np.int64), codes, rank_frame
    else:
        order = np.lexsort((rank_frame, codes))  # stable: ties keep frame order
        row_query = codes[order]
        rank = rank_frame[order]
    gold_rows = positions[first_of_query]  # a query's gold lists are its first row's
    gold = select_lists(lists(gold_column), gold_rows, frame.index, column=gold_column, where=where)
    n_gold = _gold_counts(gold)

    doc_group, doc_group_query, documents = _document_groups(frame["document_id"], positions, order, row_query, in_order)

    match_lists, match_cells = {}, {}
    longest = np.zeros(len(positions), dtype=np.int64)
    gold_lists = GoldLists(gold_column, gold.lengths[gold.row_cell], gold_rows)
    expected = gold_lists.lengths[row_query]  # the gold list's length per sorted row
    for part in parts:
        column = MATCH_LIST_COLUMNS[part]
        require_columns(frame, [column], where=where, why="for this document_scope")
        match_lists[part] = select_lists(lists(column), positions, frame.index, column=column, where=where)
        match_cells[part] = match_lists[part].row_cell if in_order else match_lists[part].row_cell[order]
        lengths = match_lists[part].lengths[match_cells[part]]
        gold_lists.check(part, lengths, frame=frame, where=where, row_query=row_query, query_ids=query_ids,
                         positions=positions, order=order, expected=expected)
        np.maximum(longest, lengths, out=longest)
    pair_row, pair_index = segment_positions(longest)
    width = int(longest.max(initial=0)) + 1
    pair_group, pair_group_query = _group(row_query[pair_row] * width + pair_index, width, len(query_ids))
    return DocumentRows(
        frame=frame, positions=positions, where=where, query_ids=query_ids, row_query=row_query, rank=rank,
        order=order, doc_group=doc_group, doc_group_query=doc_group_query, n_gold=n_gold, pair_row=pair_row,
        pair_index=pair_index, pair_group=pair_group, pair_group_query=pair_group_query, match_lists=match_lists,
        match_cells=match_cells, _documents=documents, longest=longest, query_values=query_values, gold=gold_lists,
    )


def add_match_lists(rows: DocumentRows, parts: tuple[str, ...], lists: Callable[[str], DistinctLists]) -> bool:
    """Add the match lists ``parts`` to prepared rows whose pairs they fit in (no row's list longer than its pairs).

    False (nothing added) when one does not fit: the rows must be prepared again with it. Rows are laid out for
    the lists a call needs, so a first call does not read the other lists' cells.
    """
    if rows.longest is None:
        return False
    added = {}
    for part in parts:
        if part in rows.match_lists:
            continue
        column = MATCH_LIST_COLUMNS[part]
        require_columns(rows.frame, [column], where=rows.where, why="for this document_scope")
        selected = select_lists(lists(column), rows.positions, rows.frame.index, column=column, where=rows.where)
        cells = _in_order(selected.row_cell, rows.order)
        if (selected.lengths[cells] > rows.longest).any():
            return False
        if rows.gold is not None:
            rows.gold.check(part, selected.lengths[cells], frame=rows.frame, where=rows.where, row_query=rows.row_query,
                            query_ids=rows.query_ids, positions=rows.positions, order=rows.order)
        added[part] = (selected, cells)
    for part, (selected, cells) in added.items():
        rows.match_lists[part], rows.match_cells[part] = selected, cells
    return True


@dataclass
class AnswerRows:
    """One node's answer rows of one eval_mode: query codes, ranks and the grouping for per-query maxima.

    Metric values are not held here; they are read from ``frame`` on every call.
    """

    frame: pd.DataFrame
    positions: np.ndarray  # row positions in frame
    where: str
    codes: np.ndarray  # query code per row
    query_ids: np.ndarray
    rank: np.ndarray
    by_query: np.ndarray  # rows grouped by query (stable)
    starts: np.ndarray  # start of each query's group in by_query
    query_values: Any = None  # query_ids as pandas' factorize gave them (Arrow strings stay Arrow)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)


def prepare_answer_rows(frame: pd.DataFrame, positions: np.ndarray, *, where: str) -> AnswerRows:
    codes, query_values = first_appearance_codes(frame["multilabel_id"], positions, objects=False)
    query_ids = np.asarray(query_values, dtype=object)
    rank = numeric_column(frame, "rank", where=where)[positions]
    if np.isnan(rank).any():
        row = row_label(frame.index, int(positions[np.flatnonzero(np.isnan(rank))[0]]))
        raise SchemaError(f"{where}: column 'rank' is empty in row {row!r}; every row needs a rank.")
    by_query = np.arange(len(codes)) if _sorted_by(codes) else np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[by_query], np.arange(len(query_ids)))
    return AnswerRows(frame, positions, where, codes, query_ids, rank, by_query, starts, query_values)


