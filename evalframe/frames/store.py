"""The prepared arrays of a result's nodes, each kept only while the columns it was made from are unchanged.

Preparing a node's key arrays (query codes, ranks, the exploded match lists) is most of the cost
of a metric; every later call with other options reuses them. A user may edit a frame in place,
so each entry is kept with a witness of every column it read (:mod:`evalframe.frames.witness`) and
is dropped as soon as one no longer holds. Inside one :meth:`PreparedStore.session` (one public call)
the frames cannot change, so each node is checked once per session; outside a session, on every use.

Examples
--------
>>> import pandas as pd
>>> frames = {"R": pd.DataFrame({"multilabel_id": ["q1", "q2"], "type": ["document"] * 2, "rank": [1, 1],
...                              "eval_mode": ["integrated"] * 2})}
>>> store = PreparedStore(frames)
>>> store.positions("R", "document", "integrated").tolist()
[0, 1]
>>> frames["R"].loc[1, "type"] = "answer"  # an in-place edit: the cached positions are rebuilt
>>> store.positions("R", "document", "integrated").tolist()
[0]
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

import numpy as np
import pandas as pd

from ..columns import COLUMN_ORDER, MATCH_LIST_COLUMNS
from ..errors import InvalidParameterError, SchemaError
from .arrays import DistinctLists
from .codings import NodeCoding
from .judged import JUDGMENT_COLUMNS, prepare_judged_rows
from .judged_codes import JudgedRows
from .trec_layout import TrecLayout
from .pending import ColumnView, NodeFrames
from .prepared import AnswerRows, DocumentRows, add_match_lists, prepare_answer_rows, prepare_document_rows
from .rows import coded_equals, column_coding, empty_kind, has_rows, row_positions
from .witness import ColumnWitness, holds, witness

__all__ = ["PreparedStore"]

# the columns cached arrays are made from (relevance and metric columns are read on every call instead)
POSITION_COLUMNS = ("multilabel_id", "type", "eval_mode", "rank")
DOCUMENT_KEY_COLUMNS = (POSITION_COLUMNS + ("document_id", "gold_document_ids", "gold_custom_document_ids")
                        + tuple(MATCH_LIST_COLUMNS.values()))

#: the columns judged rows (trec measures) are made from
JUDGED_KEY_COLUMNS = POSITION_COLUMNS + JUDGMENT_COLUMNS
#: the columns a TREC layout describes (:meth:`evalframe.frames.trec_layout.TrecLayout.holds`)
TREC_LAYOUT_COLUMNS = ("multilabel_id", "document_id", "type", "eval_mode", "rank")

_SESSIONS = itertools.count(1)


class _NodeEntries:
    """One node's entries, the names of the columns each was made from, and those columns' witnesses.

    Entries made from a pending node's :class:`~evalframe.frames.pending.ColumnView` take no witness: nothing can
    edit a view. Their witnesses are taken of the built frame when it is built (:meth:`rebase`), before anyone holds it.
    """

    def __init__(self, frame: pd.DataFrame | ColumnView) -> None:
        self.frame = frame
        self.entries: dict[Any, Any] = {}
        self.columns_of: dict[Any, tuple[str, ...]] = {}
        self.witnesses: dict[str, ColumnWitness] = {}
        self.checked = -1

    def put(self, key: Any, value: Any, columns: tuple[str, ...]) -> None:
        if not isinstance(self.frame, ColumnView):
            for column in columns:
                if column not in self.witnesses:
                    self.witnesses[column] = witness(self.frame, column)
        self.entries[key] = value
        self.columns_of[key] = columns

    def rebase(self, frame: pd.DataFrame) -> None:
        """The pending node these entries were made from is built as ``frame``: witness its columns as they are, and
        point the prepared rows that read their other columns on every call (relevance and metric columns:
        ``DocumentRows.frame``, ``AnswerRows.frame``) at the frame, so an edit of those is seen too."""
        view, self.frame = self.frame, frame
        for column in sorted({column for columns in self.columns_of.values() for column in columns}):
            self.witnesses[column] = witness(frame, column)
        for value in self.entries.values():
            if isinstance(value, (DocumentRows, AnswerRows)) and value.frame is view:
                value.frame = frame

    def drop_stale(self) -> None:
        """Drop the entries made from a column whose content changed, and those columns' witnesses."""
        if isinstance(self.frame, ColumnView):  # a view is never edited
            return
        changed = {column for column, w in self.witnesses.items() if not holds(w, self.frame, column)}
        if not changed:
            return
        for column in changed:
            del self.witnesses[column]
        for key in [k for k, columns in self.columns_of.items() if changed.intersection(columns)]:
            del self.entries[key], self.columns_of[key]


#: every column a metric, measure or analysis of evalframe reads
_READ_COLUMNS = (frozenset(COLUMN_ORDER) - {"index"}) | frozenset(JUDGMENT_COLUMNS) | {"score"}  # index: Haystack's row number


def _refuse_duplicated_columns(node: str, frame: pd.DataFrame) -> None:
    """A column evalframe reads must be there once: ``frame[name]`` of a repeated name is a DataFrame."""
    repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()] if c in _READ_COLUMNS})
    if repeated:
        raise SchemaError(
            f"node {node!r} has more than one column named {', '.join(map(repr, repeated))}; evalframe cannot tell "
            f"which one to read. Keep one, e.g. frame = frame.loc[:, ~frame.columns.duplicated()], or rename the copies."
        )


class PreparedStore:
    """Prepared arrays per node of ``frames`` (a live mapping: a replaced frame starts afresh)."""

    def __init__(self, frames: Mapping[str, pd.DataFrame]) -> None:
        self.frames = frames
        self._nodes: dict[str, _NodeEntries] = {}
        self._session = 0  # the session being served (0: none)
        self._attach()

    def _attach(self) -> None:
        # one lock for the frames' builds and the entries: a build rebases entries (_built) and an entry is made from
        # a view or a frame, so each must see the other whole; one lock, not two, so no thread holds one and waits
        # for the other
        self._lock: threading.RLock = self.frames.lock if isinstance(self.frames, NodeFrames) else threading.RLock()
        if isinstance(self.frames, NodeFrames):
            self.frames.on_build(self._built)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its entries (they are rebuilt on use), so a pending node's source is never pickled."""
        return {key: value for key, value in {**self.__dict__, "_nodes": {}, "_session": 0}.items() if key != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._attach()

    def view(self, node: str) -> pd.DataFrame:
        """``node`` as the analyses read it: its frame, or while it is pending, a view of its columns
        (:meth:`evalframe.frames.pending.NodeFrames.view`).

        Typed as a DataFrame: a :class:`~evalframe.frames.pending.ColumnView` answers the part of DataFrame's interface
        that the readers of ``frames/`` and ``analysis/slices.py`` use (``view[column]``, ``columns``, ``index``,
        ``len``, ``take``); ``tests/frames/test_pending.py`` runs the analyses on views.
        """
        return cast(pd.DataFrame, self.frames.view(node)) if isinstance(self.frames, NodeFrames) else self.frames[node]

    def has_rows(self, node: str, row_type: str) -> bool:
        """Whether ``node`` has rows of ``row_type`` (:func:`evalframe.frames.rows.has_rows`); a pending node whose
        source says which ``extras["row_types"]`` it holds (``from_trec``'s: documents only) makes no column for it."""
        pending = self.frames.pending(node) if isinstance(self.frames, NodeFrames) else None
        if pending is not None and "row_types" in pending.extras:
            return row_type in pending.extras["row_types"]
        frame = self.view(node)
        if not len(frame):  # a node of no row (from_trec of an empty run, saved and loaded): its columns say its kind
            layout = self.trec_layout(node)
            if layout is not None:
                return row_type == layout.constants["type"]
            return row_type == empty_kind(frame.columns)
        return has_rows(frame, row_type)

    def _built(self, node: str, view: ColumnView, frame: pd.DataFrame) -> None:
        entries = self._nodes.get(node)
        if entries is not None and entries.frame is view:
            entries.rebase(frame)
        layout = view.pending.extras.get("trec_layout")  # the source's layout of the built columns (see keep_coding)
        if layout is not None:
            if entries is None or entries.frame is not frame:
                entries = self._nodes[node] = _NodeEntries(frame)
            if ("trec", "given") not in entries.entries:
                entries.put(("trec", "given"), layout(), ())

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """One public call: the frames are checked against the entries once per node, not on every use.

        It holds the store's lock (the frames' :attr:`~evalframe.frames.pending.NodeFrames.lock`): calls from several
        threads on one result run one after the other, each on the frames and entries as the last one left them.
        """
        with self._lock:  # one public call at a time: the frames and the entries are shared by every thread
            if self._session:  # nested public calls share the outer call's check
                yield
                return
            self._session = next(_SESSIONS)
            try:
                yield
            finally:
                self._session = 0

    def forget(self, node: str | None = None) -> None:
        """Drop the entries of ``node`` (every node when None); they are rebuilt on use."""
        with self._lock:
            if node is None:
                self._nodes.clear()
            else:
                self._nodes.pop(node, None)

    def _entries(self, node: str) -> _NodeEntries:
        frame = self.view(node)
        if not frame.columns.is_unique:
            _refuse_duplicated_columns(node, frame)
        entries = self._nodes.get(node)
        if entries is None or entries.frame is not frame:
            entries = self._nodes[node] = _NodeEntries(frame)
            entries.checked = self._session
        elif entries.checked != self._session or self._session == 0:
            entries.drop_stale()
            entries.checked = self._session
        return entries

    def cached(self, node: str, key: Any, columns: tuple[str, ...], build: Callable[[], Any]) -> Any:
        """The entry ``key`` of ``node``, built by ``build()`` from ``columns`` when missing or stale."""
        with self._lock:  # built and kept whole: no build of the node between (its entries would be rebased half)
            entries = self._entries(node)
            if key not in entries.entries:
                entries.put(key, build(), columns)
            return entries.entries[key]

    def get(self, node: str, key: Any) -> Any:
        """The entry ``key`` of ``node`` when it is held and fresh, else None."""
        with self._lock:
            return self._entries(node).entries.get(key)

    def keep(self, node: str, key: Any, value: Any, columns: tuple[str, ...]) -> None:
        """Keep ``value`` as entry ``key`` of ``node``, valid while ``columns`` hold what they hold now."""
        with self._lock:
            self._entries(node).put(key, value, columns)

    def distinct_lists(self, node: str, column: str) -> DistinctLists:
        """A list column's distinct cells and a code per row: a loader's coding, else every row its own cell."""
        def build() -> DistinctLists:
            view = self.frames.view(node) if isinstance(self.frames, NodeFrames) else None
            coded = view.coded_lists(column) if isinstance(view, ColumnView) else None  # a loader's, made on first use
            return coded if coded is not None else DistinctLists.of_rows(self.view(node)[column])

        return self.cached(node, ("lists", column), (column,), build)

    def keep_distinct_lists(self, node: str, column: str, lists: DistinctLists) -> None:
        """Keep a loader's coding of a list column, while the column holds the cells it was made from."""
        self.keep(node, ("lists", column), lists, (column,))

    def keep_coding(self, node: str, coding: NodeCoding) -> None:
        """Keep what a builder or loader handed over of ``node``'s coding: its list codings (each while its column
        holds the cells it was made from) and its TREC layout (see :meth:`trec_layout`), once checked against the
        frame (one code per row, of a column it has; the error names ``codings[node]``)."""
        if not isinstance(coding, NodeCoding):
            raise InvalidParameterError(f"codings[{node!r}] must be a NodeCoding; got {type(coding).__name__}.")
        frame = self.view(node)
        columns = coding.lists
        for column, lists in (columns.items() if isinstance(columns, Mapping) else [(None, columns)]):
            if column not in frame.columns or not isinstance(lists, DistinctLists) or len(lists.codes) != len(frame):
                raise InvalidParameterError(
                    f"codings[{node!r}].lists[{column!r}] must be the DistinctLists of a list column of "
                    f"node {node!r} with one code per row ({len(frame)}); got {type(lists).__name__}"
                    + ("" if column in frame.columns else " for a column the frame does not have") + ".")
        layout = coding.trec
        if layout is not None and (not isinstance(layout, TrecLayout) or len(layout.row_query) != len(frame)):
            raise InvalidParameterError(f"codings[{node!r}].trec must be the TrecLayout of node {node!r}'s frame, one "
                                        f"code per row ({len(frame)}); got {type(layout).__name__}.")
        for column, lists in coding.lists.items():
            self.keep_distinct_lists(node, column, lists)
        if coding.trec is not None:  # checked against the frame on first use, not here (from_trec pays no witness)
            self.keep(node, ("trec", "given"), coding.trec, ())

    def trec_layout(self, node: str) -> TrecLayout | None:
        """The TREC layout handed over for ``node`` while the key columns hold what it says, else None.

        On first use it is checked against the frame (:meth:`~evalframe.frames.trec_layout.TrecLayout.holds`) and then
        kept with witnesses of :data:`TREC_LAYOUT_COLUMNS`: an edit of one of them drops it (the ids are then hashed).
        """
        def build() -> TrecLayout | None:
            given = self.get(node, ("trec", "given"))
            pending = self.frames.pending(node) if given is None and isinstance(self.frames, NodeFrames) else None
            if pending is not None and "trec_layout" in pending.extras:  # a pending source's, of the columns it makes
                given = pending.extras["trec_layout"]()
            return given if given is not None and given.holds(self.view(node)) else None

        return self.cached(node, ("trec", "layout"), TREC_LAYOUT_COLUMNS, build)

    def positions(self, node: str, row_type: str, eval_mode: str) -> np.ndarray:
        """Positions of ``node``'s rows of ``row_type`` and ``eval_mode`` in its frame."""
        def equals(column: str, value: str) -> np.ndarray:  # type / eval_mode: coded once, then per value from the runs
            coding = self.cached(node, ("coding", column), (column,), lambda: column_coding(self.view(node)[column]))
            return coded_equals(coding, value)

        return self.cached(node, ("positions", row_type, eval_mode), POSITION_COLUMNS,
                           lambda: row_positions(self.view(node), row_type, eval_mode, where=f"node {node!r}",
                                                 equals=equals))

    def document_rows(self, node: str, eval_mode: str, parts: tuple[str, ...] = ()) -> DocumentRows | None:
        """Prepared document rows laid out for at least the match lists ``parts`` (None: the node has none)."""
        with self._lock:
            return self._document_rows(node, eval_mode, parts)

    def _document_rows(self, node: str, eval_mode: str, parts: tuple[str, ...]) -> DocumentRows | None:
        entries = self._entries(node)
        key = ("documents", eval_mode)
        rows = entries.entries.get(key)
        lists = lambda column: self.distinct_lists(node, column)  # noqa: E731
        if key not in entries.entries or (rows is not None and not set(parts) <= rows.parts
                                          and not add_match_lists(rows, tuple(sorted(parts)), lists)):
            # laid out for the match lists asked for: another call's lists are added when they fit
            frame = self.view(node)
            positions = self.positions(node, "document", eval_mode)
            where = f"node {node!r} (document rows, eval_mode={eval_mode!r})"
            layout = tuple(sorted(set(parts) | (rows.parts if rows is not None else set())))
            entries.put(key, prepare_document_rows(frame, positions, where=where, parts=layout, lists=lists)
                        if len(positions) else None, DOCUMENT_KEY_COLUMNS)
        return entries.entries[key]

    def answer_rows(self, node: str, eval_mode: str) -> AnswerRows | None:
        """Prepared answer rows of ``node`` in ``eval_mode`` (None: the node has none)."""
        def build() -> AnswerRows | None:
            positions = self.positions(node, "answer", eval_mode)
            where = f"node {node!r} (answer rows, eval_mode={eval_mode!r})"
            return prepare_answer_rows(self.view(node), positions, where=where) if len(positions) else None

        return self.cached(node, ("answers", eval_mode), POSITION_COLUMNS, build)

    def judged_rows(self, node: str, eval_mode: str, duplicates: str = "error") -> JudgedRows | None:
        """``node``'s document rows of ``eval_mode`` joined with their judgments, for the trec measures (None: no rows).

        Kept while every column read holds (:data:`JUDGED_KEY_COLUMNS`, the relevance columns included). While the
        node is pending and its source answers ``extras["judged_rows"](eval_mode, duplicates)`` (``from_trec``'s, from
        its codes), that answer, no column made.
        """
        def build() -> JudgedRows | None:
            pending = self.frames.pending(node) if isinstance(self.frames, NodeFrames) else None
            of_codes = pending.extras.get("judged_rows") if pending is not None else None
            if of_codes is not None:
                return cast("JudgedRows | None", of_codes(eval_mode, duplicates))
            frame = self.view(node)
            where = f"node {node!r} (document rows, eval_mode={eval_mode!r})"
            lists = lambda column: self.distinct_lists(node, column)  # noqa: E731
            layout = self.trec_layout(node)
            if layout is not None:  # from_trec's frame, unedited: its codes, no hashing
                if layout.constants["type"] != "document" or layout.constants["eval_mode"] != eval_mode:
                    return None
                return prepare_judged_rows(frame, np.arange(len(frame)), where=where, duplicates=duplicates, lists=lists,
                                           layout=layout)  # no row (an empty run and qrels): no query evaluated
            positions = self.positions(node, "document", eval_mode)
            if not len(positions) and (len(frame) or empty_kind(frame.columns) != "document"):
                return None
            # a document node of no row (an empty run and qrels, saved and loaded): no query evaluated
            return prepare_judged_rows(frame, positions, where=where, duplicates=duplicates, lists=lists)

        return self.cached(node, ("judged", eval_mode, duplicates), JUDGED_KEY_COLUMNS, build)
