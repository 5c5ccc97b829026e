"""What :func:`evalframe.sources.trec.trec_frame_coded` and the TREC readers know of the frames they return.

:class:`TrecLayout` says how a node frame's key columns were built from codes (with the judgments as codes,
:class:`TrecJudgments`); :class:`TableCodes` holds the codes a reader parsed its ids into. Each is handed over with its
frame (``evalframe.frames.codings``) and checked against the frame before use (``holds``: by the addresses of the
cells, so an edited or replaced column is never read through stale codes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._addresses import object_addresses

__all__ = ["TrecJudgments", "TrecLayout", "TableCodes"]


@dataclass(frozen=True)
class TrecJudgments:
    """The judgments :func:`trec_frame` put in a frame's list cells, as codes.

    ``cells[column]`` holds one list object per query code (the frame's ``column`` holds ``cells[column][row_query]``)
    for the columns ``gold_document_ids``, ``gold_document_relevance``, ``nonrelevant_document_ids`` and
    ``nonrelevant_document_relevance``; ``query``, ``doc`` (a code into the layout's ``doc_values``) and ``grade``
    are their entries flattened, the ids ``"00"`` and ``""`` left out (no document: the trec measures do not count
    them): the gold cells of the queries in order, then the others. The arrays keep the cells
    alive, so a cell at the address of one of them is that very list (list cells are replaced, never mutated in
    place: ``docs/metrics.md``).
    """

    cells: dict[str, np.ndarray]
    query: np.ndarray
    doc: np.ndarray
    grade: np.ndarray

    def holds(self, frame: pd.DataFrame, rows: np.ndarray) -> bool:
        """Whether the frame's rows ``rows`` (one per query code, in order) still hold these very cells."""
        for column, cells in self.cells.items():
            series = frame[column] if column in frame.columns else None
            if not isinstance(series, pd.Series) or series.dtype != object or len(rows) != len(cells):
                return False
            held = series.to_numpy()[rows]  # kept alive while its addresses are read (a view of its buffer)
            if not np.array_equal(object_addresses(held), object_addresses(cells)):
                return False
        return True


@dataclass(frozen=True)
class TrecLayout:
    """How :func:`trec_frame` built a frame's key columns from codes, so later steps need not hash its ids again.

    ``multilabel_id`` is ``query_ids[row_query]`` and ``document_id`` is ``doc_values[row_doc]`` (``row_query``
    ascending: codes in order of first appearance), ``type`` and ``eval_mode`` hold the one object ``constants[column]``
    on every row. The arrays hold the very objects the columns hold, which keeps them alive: a column holds what the
    layout says exactly when it holds the same objects at the same rows (:meth:`holds`, a check of addresses), so
    an edit of the frame is never missed.
    """

    row_query: np.ndarray
    query_ids: np.ndarray
    row_doc: np.ndarray
    doc_values: np.ndarray
    constants: dict[str, object]
    judgments: TrecJudgments | None = None  # the judgment list cells, as codes into doc_values
    text_ids: bool = False  # every doc_values entry is a str

    def holds(self, frame: pd.DataFrame) -> bool:
        """Whether ``frame``'s ``multilabel_id``, ``document_id``, ``type`` and ``eval_mode`` still hold exactly the
        objects the layout says, row by row, and it has a ``rank`` column.

        The layout keeps those objects alive, so an equal address is the same object: one comparison of addresses
        per column, and an edited cell, row or column is seen.
        """
        n = len(self.row_query)
        if len(frame) != n or "rank" not in frame.columns:
            return False
        expected: list[tuple[str, Any]] = [("multilabel_id", (self.query_ids, self.row_query)),
                                           ("document_id", (self.doc_values, self.row_doc))]
        expected += [(column, id(value)) for column, value in self.constants.items()]  # one object on every row
        for column, held in expected:
            series = frame[column] if column in frame.columns else None
            if not isinstance(series, pd.Series) or series.dtype != object:
                return False
            current = series.to_numpy()
            if len(current) != n:
                return False
            addresses = object_addresses(current)
            same = (addresses == held).all() if isinstance(held, int) else np.array_equal(addresses,
                                                                                          object_addresses(held[0])[held[1]])
            if not same:
                return False
        return True


@dataclass(frozen=True, eq=False)  # compared by identity: it holds arrays
class TableCodes:
    """What a reader knows of the id columns of a frame it returned, handed over with the frame (never looked up).

    ``columns[column]`` is ``(codes, values)``: the frame's ``column`` holds ``values[codes]`` (``values``: an object
    array of the very objects the column holds, distinct, in order of first appearance when the codes are);
    ``distinct``: two of the columns whose pairs of values the reader checked to be distinct row by row;
    ``arrow[column]``: ``values`` as an Arrow string array, when the reader has it. The arrays keep the objects
    alive, so a column that holds the same objects at the same rows (one comparison of addresses) holds what the
    codes say: an edit of the frame since it was read is never missed.

    Examples
    --------
    >>> values = np.array(["q1", "q2"], dtype=object)
    >>> frame = pd.DataFrame({"qid": pd.Series(values[[0, 0, 1]], dtype=object)})
    >>> codes = TableCodes({"qid": (np.array([0, 0, 1]), values)})
    >>> codes.column(frame, "qid")[0].tolist()
    [0, 0, 1]
    >>> frame.loc[0, "qid"] = "q2"  # an edit: the codes no longer hold
    >>> codes.column(frame, "qid") is None
    True
    """

    columns: Mapping[str, tuple[np.ndarray, np.ndarray]]
    distinct: tuple[str, str] | None = None
    arrow: Mapping[str, Any] = field(default_factory=dict)

    def column(self, frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(codes, values)`` of ``frame[column]`` when the column still holds those very objects row by row (one
        comparison of addresses), else None."""
        if column not in self.columns:
            return None
        codes, values = self.columns[column]
        series = frame[column] if column in frame.columns else None
        if not isinstance(series, pd.Series) or series.dtype != object or len(series) != len(codes):
            return None
        same = np.array_equal(object_addresses(series.to_numpy()), object_addresses(values)[codes])
        return (codes, values) if same else None

    def arrow_values(self, column: str) -> Any:
        """The Arrow string array of ``column``'s distinct values, or None; it stands for the values of
        :meth:`column`, so use it only when that gave the codes."""
        return self.arrow.get(column)

    def distinct_pairs(self, frame: pd.DataFrame, first: str, second: str, *, columns_hold: bool = False) -> bool:
        """Whether the reader checked ``(first, second)`` to be distinct pairs and both columns of ``frame`` still
        hold the read objects row by row (so no row was edited since). ``columns_hold``: the caller has just seen
        :meth:`column` give both columns' codes (not checked again)."""
        return self.distinct == (first, second) and (
            columns_hold or (self.column(frame, first) is not None and self.column(frame, second) is not None))
