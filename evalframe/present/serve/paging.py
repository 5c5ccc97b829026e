"""The comparison's grid paged on the server: a view (measure, sort, show, slices, text) of one node's
:class:`~evalframe.report.drill.Grid` columns, filtered and sorted in numpy, one page of rows at a time.

The semantics are the contract's, shared with the static page's ``LocalSource`` (``evalframe/report/assets/grid.js``):

* ``text`` keeps the rows whose query text or id holds it, case-insensitively (``str.lower``, the browser's
  ``toLowerCase``: the same full Unicode mapping, final sigma included; one exception, a character newer than
  Python's Unicode tables, which the server leaves as it is);
* ``slices[key]`` keeps the rows whose label of ``key`` is exactly it (``""``: the rows with no label, the select's
  "(none)");
* ``measure`` keeps the rows some run scored it in (a value not NaN);
* ``show``: per measure ``m`` and later run ``r``, ``gain = sign[m] * (v[r] - v[0])``; ``worse`` keeps the rows with
  some gain < 0, ``better`` some gain > 0, ``changed`` either, over ``measure`` when set, else every measure (a NaN
  gain is neither);
* the sort keys: ``rank`` (the grid's order; ``""`` is ``rank``, and descending reverses it), ``query`` (its
  lower-cased text; texts compare by their UTF-16 code units, as JavaScript's ``<``), ``slice:<index>``,
  ``value:<measure>:<run>``, ``delta:<measure>:<run>`` (``v[run] - v[0]``, run >= 1), ``gain:<measure>`` (the smallest
  gain over the later runs); NaN and empty texts sort last either way, ties keep the grid's order (a stable sort).

A sort order is computed once and kept, in the smallest integer type that holds the grid's positions (int32 up to
2**31 rows): the default order and each measure's ``gain:`` order (what choosing a measure sorts by) always, computed
ahead by :meth:`Pager.warm` (in the background; :meth:`Pager.close` stops it), the other orders in a bounded LRU
(:data:`CACHED_ORDERS`). A descending order is derived from the ascending one (its groups of ties reversed as groups,
each group kept in the grid's order, NaN still last), so that a page of a million queries is a gather of kept
arrays and the memory stays a few orders per node whatever the runs and measures.

Examples
--------
>>> import numpy as np
>>> from types import SimpleNamespace
>>> grid = SimpleNamespace(node="Retriever", ids=np.array(["q1", "q2", "q3"], dtype=object),
...                        query=np.array(["Flood", "fire", ""], dtype=object), slices={},
...                        values={"mrr": np.array([[1.0, 0.5], [0.0, 1.0], [0.5, np.nan]])}, signs={"mrr": 1.0},
...                        detail=np.arange(3))
>>> pager = Pager(grid)
>>> [row["id"] for row in pager.page(View(sort="gain:mrr"), 0, 10)["rows"]]
['q1', 'q2', 'q3']
>>> pager.page(View(text="FL"), 0, 10)["total"]
1
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..._validation import close_matches
from ...errors import InvalidParameterError

__all__ = ["View", "Pager", "SHOWS", "MAX_LIMIT", "CACHED_ORDERS", "view_from_query"]

#: The ``show`` choices ("" shows every row).
SHOWS = ("", "changed", "worse", "better")
#: The most rows one page holds (a request asking more gets this many).
MAX_LIMIT = 1000
#: The text filters whose masks are kept per grid.
_TEXT_MASKS = 8
#: The sort orders kept per grid besides the default one and the ``gain:`` ones (a least recently used cache).
CACHED_ORDERS = 16
#: The longest text filter taken (a longer one is cut: no request makes the server hold more).
MAX_TEXT = 1000


@dataclass(frozen=True)
class View:
    """One view of a node's grid: ``measure`` ("" all), ``sort`` ("" the grid's order), ``descending``, ``show``,
    ``slices`` ((key, label) pairs) and ``text``."""

    measure: str = ""
    sort: str = ""
    descending: bool = False
    show: str = ""
    slices: tuple[tuple[str, str], ...] = field(default=())
    text: str = ""


def view_from_query(params: Mapping[str, str] | Any) -> View:
    """A :class:`View` from a URL's query parameters: ``measure``, ``sort``, ``desc`` (``1`` / ``true``), ``show``,
    ``text`` and one ``slice.<key>=<label>`` per slice filter.

    Examples
    --------
    >>> view_from_query({"measure": "f1", "sort": "gain:f1", "desc": "1", "slice.topic": "auto"})
    View(measure='f1', sort='gain:f1', descending=True, show='', slices=(('topic', 'auto'),), text='')
    """
    slices = tuple((key[len("slice."):], str(value)) for key, value in params.items() if key.startswith("slice."))
    return View(measure=str(params.get("measure", "")), sort=str(params.get("sort", "")),
                descending=str(params.get("desc", "")).lower() in ("1", "true", "yes"),
                show=str(params.get("show", "")), slices=slices, text=str(params.get("text", ""))[:MAX_TEXT])


def _refuse(what: str, got: str, valid: list[str]) -> InvalidParameterError:
    close = close_matches(got, valid)
    shown = valid if len(valid) <= 12 else [*valid[:12], "..."]
    return InvalidParameterError(f"{what} must be one of {shown}; got {got!r}"
                                 + (f". Did you mean {close[0]!r}?" if close else "."), parameter=what)


def _codes(texts: np.ndarray) -> np.ndarray:
    """Each text's rank among the distinct texts as float64 (equal texts equal), NaN for an empty one: a sort key
    where empty sorts last."""
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object).fillna(""), sort=False)
    # the distinct texts ranked by their UTF-16 code units, as the browser's `<` compares strings (grid.js)
    ranked = sorted(range(len(uniques)), key=lambda k: _utf16(uniques[k]))
    rank = np.empty(len(uniques), dtype=np.float64)
    rank[ranked] = np.arange(len(uniques), dtype=np.float64)
    keyed = rank[codes] if len(uniques) else np.zeros(len(codes))
    keyed[texts == ""] = np.nan
    return keyed


def _utf16(text: str) -> bytes:
    """``text``'s UTF-16 code units, big-endian: bytes that compare as JavaScript compares strings (a character past
    U+FFFF, two surrogates, sorts before U+E000..U+FFFF, unlike Python's comparison of code points)."""
    return text.encode("utf-16-be", "surrogatepass")


def _run_index(text: str) -> int | None:
    """``text`` as a run's or a slice's index: ASCII digits only (``str.isdigit`` takes '¹' and '١' too)."""
    return int(text) if text.isascii() and text.isdigit() else None


class Pager:
    """One node's grid paged: filter masks and sort orders over its columns, computed once and kept.

    Parameters
    ----------
    grid : Grid
        The node's :class:`~evalframe.report.drill.Grid` (``ids``, ``query``, ``slices``, ``values``,
        ``signs``, ``detail``).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> grid = SimpleNamespace(node="Reader", ids=np.array(["a", "b"], dtype=object),
    ...                        query=np.array(["x", "y"], dtype=object), slices={},
    ...                        values={"f1": np.array([[1.0, 0.0], [0.0, 1.0]])}, signs={"f1": 1.0}, detail=np.arange(2))
    >>> [row["id"] for row in Pager(grid).page(View(show="worse"), 0, 10)["rows"]]
    ['a']
    """

    def __init__(self, grid: Any, *, cached_orders: int = CACHED_ORDERS) -> None:
        self.grid = grid
        self.n = len(grid.ids)
        #: the positions' type: the smallest signed integer type that holds n
        self.dtype = np.dtype(np.int16 if self.n <= 2**15 else np.int32 if self.n <= 2**31 else np.int64)
        self.cached_orders = cached_orders
        self._closed = threading.Event()
        self.measures = list(grid.values)
        self.slice_keys = list(grid.slices)
        first = next(iter(grid.values.values()), None)
        self.runs = int(first.shape[1]) if first is not None else 0
        self._lock = threading.Lock()
        self._orders: dict[tuple[str, bool], np.ndarray] = {}  # kept while the pager lives: rank, gain:*
        self._recent: OrderedDict[tuple[str, bool], np.ndarray] = OrderedDict()  # the others, the last used
        self._masks: dict[tuple[str, str], np.ndarray] = {}
        self._texts: OrderedDict[str, np.ndarray] = OrderedDict()
        self._haystack: tuple[list[str], str, list[int]] | None = None
        self._gains: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ the columns
    def gains(self, measure: str) -> np.ndarray:
        """``sign * (v[r] - v[0])`` of each later run (n, runs - 1), NaN where either is missing."""
        found = self._gains.get(measure)
        if found is None:
            values = self.grid.values[measure]
            found = float(self.grid.signs[measure]) * (values[:, 1:] - values[:, :1])
            self._gains[measure] = found
        return found

    def sort_keys(self) -> list[str]:
        """Every sort key of this grid."""
        keys = ["rank", "query", *(f"slice:{i}" for i in range(len(self.slice_keys)))]
        for measure in self.measures:
            keys += [f"value:{measure}:{run}" for run in range(self.runs)]
            keys += [f"delta:{measure}:{run}" for run in range(1, self.runs)]
            keys.append(f"gain:{measure}")
        return keys

    def _measure(self, name: str, what: str) -> str:
        if name not in self.grid.values:
            raise _refuse(what, name, self.measures)
        return name

    def _key(self, key: str) -> np.ndarray:
        """The float64 sort key ``key`` names (NaN sorts last)."""
        kind, _, rest = key.partition(":")
        if kind == "slice" and (index := _run_index(rest)) is not None and index < len(self.slice_keys):
            return _codes(np.asarray(self.grid.slices[self.slice_keys[index]], dtype=object))
        if kind == "gain" and rest in self.grid.values:
            gains = self.gains(rest)
            if gains.shape[1] == 0:
                return np.full(self.n, np.nan)
            scored = ~np.isnan(gains)
            smallest = np.where(scored, gains, np.inf).min(axis=1)
            return np.where(scored.any(axis=1), smallest, np.nan)
        if kind in ("value", "delta"):
            measure, _, run_text = rest.rpartition(":")
            run = _run_index(run_text)
            if measure in self.grid.values and run is not None:
                values = self.grid.values[measure]
                if kind == "value" and run < self.runs:
                    return np.asarray(values[:, run], dtype=np.float64)
                if kind == "delta" and 1 <= run < self.runs:
                    return np.asarray(values[:, run] - values[:, 0], dtype=np.float64)
        raise _refuse("sort", key, self.sort_keys())

    def order(self, key: str, descending: bool = False) -> np.ndarray:
        """The rows (grid positions) sorted by ``key``: NaN last either way, ties in the grid's order; kept."""
        key = key or "rank"
        slot = (key, descending)
        with self._lock:
            cached = self._orders.get(slot)
            if cached is None:
                cached = self._recent.get(slot)
                if cached is not None:
                    self._recent.move_to_end(slot)
        if cached is not None:
            return cached
        if key == "rank":
            order = np.arange(self.n, dtype=self.dtype)
            order = order[::-1].copy() if descending else order
        elif descending:
            order = self._reversed(key, self.order(key))
        elif key == "query":
            # Python's sort of the lower-cased texts (by UTF-16 code units, as grid.js's `<`): faster than numpy's
            # of strings (object or StringDType) or a factorization, and stable (equal texts in their order); empty
            # ones last
            keys = [_utf16(text.lower()) for text in self.grid.query.tolist()]
            filled = np.flatnonzero(self.grid.query != "")
            ranked = sorted(filled.tolist(), key=keys.__getitem__)
            order = np.concatenate([np.asarray(ranked, dtype=self.dtype),
                                    np.flatnonzero(self.grid.query == "").astype(self.dtype)])
        else:
            # a stable sort keeps ties in the grid's order; NaN sorts last
            order = np.argsort(self._key(key), kind="stable").astype(self.dtype)
        self._keep(slot, order)
        return order

    def _keep(self, slot: tuple[str, bool], order: np.ndarray) -> None:
        order.flags.writeable = False  # shared by every page: never changed in place
        with self._lock:
            if slot[0] == "rank" or slot[0].startswith("gain:"):
                self._orders[slot] = order
                return
            self._recent[slot] = order
            self._recent.move_to_end(slot)
            while len(self._recent) > self.cached_orders:
                self._recent.popitem(last=False)

    def _reversed(self, key: str, ascending: np.ndarray) -> np.ndarray:
        """``ascending`` (the order of ``key``) descending: its groups of equal keys in the reverse order, each group
        still in the grid's order (a stable sort's ties), the missing ones (NaN, "") still last; O(n)."""
        if key == "query":
            texts = np.asarray([text.lower() for text in self.grid.query.tolist()], dtype=object)[ascending]
            missing = int((self.grid.query == "").sum())
            texts = texts[:len(texts) - missing]
            change = texts[1:] != texts[:-1]
        else:
            keyed = self._key(key)[ascending]
            missing = int(np.isnan(keyed).sum())
            keyed = keyed[:len(keyed) - missing]
            change = keyed[1:] != keyed[:-1]  # -0.0 == 0.0: one group, as the stable sort ties them
        present = len(ascending) - missing
        if present == 0:
            return ascending
        starts = np.concatenate([[0], np.flatnonzero(change) + 1])
        lengths = np.diff(np.append(starts, present))
        starts, lengths = starts[::-1], lengths[::-1]  # the groups, the largest key first
        before = np.concatenate([[0], np.cumsum(lengths)[:-1]])  # where each group lands
        where = np.repeat(starts - before, lengths) + np.arange(present)
        return np.concatenate([ascending[where], ascending[present:]]).astype(self.dtype, copy=False)

    def warm(self) -> None:
        """Compute ahead, in the order a person asks them, the default order, each measure's ``gain:`` order (what
        choosing it sorts by, both directions) and the text index, so that no page waits for them; returns early
        once :meth:`close` is called."""
        orders = [("rank", False), *((f"gain:{m}", descending) for m in self.measures for descending in (False, True))]
        for key, descending in orders:
            if self._closed.is_set():
                return
            self.order(key, descending)
        if not self._closed.is_set():
            self._text_index()

    def close(self) -> None:
        """Stop a running :meth:`warm` (after the order it is computing) and drop the kept orders: the grid is no
        longer served."""
        self._closed.set()
        with self._lock:
            self._orders.clear()
            self._recent.clear()

    # ------------------------------------------------------------------ the filters
    def _text_index(self) -> tuple[list[str], str, list[int]]:
        """Each row's query and id lower-cased (split by a NUL), the rows joined by U+0001 into one text, and where
        each row starts in it."""
        if self._haystack is None:
            rows = [f"{query.lower()}\x00{ident.lower()}".replace("\x01", " ") for query, ident in
                    zip(self.grid.query.tolist(), self.grid.ids.tolist())]
            starts = np.zeros(len(rows), dtype=np.int64)
            if rows:
                np.cumsum(np.fromiter((len(row) + 1 for row in rows), dtype=np.int64, count=len(rows))[:-1],
                          out=starts[1:])
            self._haystack = (rows, "\x01".join(rows), starts.tolist())
        return self._haystack

    def _text_mask(self, text: str) -> np.ndarray:
        needle = text.lower()
        with self._lock:
            found = self._texts.get(needle)
            if found is not None:
                self._texts.move_to_end(needle)
                return found
        if "\x00" in needle or "\x01" in needle:  # could span a row's query and id, or two rows: each row alone
            queries = [query.lower() for query in self.grid.query.tolist()]
            ids = [ident.lower() for ident in self.grid.ids.tolist()]
            found = np.fromiter((needle in q or needle in i for q, i in zip(queries, ids)), dtype=bool, count=self.n)
        else:
            rows, joined, starts = self._text_index()
            found = np.zeros(self.n, dtype=bool)
            # a rare text: str.find over the joined rows, from the next row on after each match; a common one (more
            # matches than a twentieth of the rows): a test per row, faster than a find per match
            at, matches = joined.find(needle), 0
            while at >= 0 and matches * 20 <= self.n:
                row = bisect.bisect_right(starts, at) - 1
                found[row] = True
                matches += 1
                at = joined.find(needle, starts[row + 1]) if row + 1 < self.n else -1
            if at >= 0:
                found = np.fromiter((needle in row for row in rows), dtype=bool, count=self.n)
        with self._lock:
            self._texts[needle] = found
            while len(self._texts) > _TEXT_MASKS:
                self._texts.popitem(last=False)
        return found

    def _show_mask(self, show: str, measure: str) -> np.ndarray:
        cached = self._masks.get((show, measure))
        if cached is not None:
            return cached
        worse = np.zeros(self.n, dtype=bool)
        better = np.zeros(self.n, dtype=bool)
        for name in [measure] if measure else self.measures:
            gains = self.gains(name)
            worse |= (gains < 0).any(axis=1)  # NaN < 0 and NaN > 0 are False: a NaN gain is neither
            better |= (gains > 0).any(axis=1)
        mask = {"worse": worse, "better": better, "changed": worse | better}[show]
        with self._lock:
            self._masks[(show, measure)] = mask
        return mask

    def mask(self, view: View) -> np.ndarray | None:
        """The rows ``view`` keeps (a bool array), None when it keeps every row."""
        if view.show not in SHOWS:
            raise _refuse("show", view.show, [s for s in SHOWS if s])
        measure = self._measure(view.measure, "measure") if view.measure else ""
        masks = []
        for key, label in view.slices:
            if key not in self.grid.slices:
                raise _refuse("slice", key, self.slice_keys)
            masks.append(np.asarray(self.grid.slices[key], dtype=object) == label)
        if measure:
            masks.append(~np.isnan(self.grid.values[measure]).all(axis=1))
        if view.show:
            masks.append(self._show_mask(view.show, measure))
        kept = None
        if masks:
            kept = masks[0].copy() if len(masks) > 1 else masks[0]
            for other in masks[1:]:
                kept &= other
        if not view.text:
            return kept
        needle = view.text.lower()
        if (kept is None or needle in self._texts or kept.sum() * 4 > self.n or "\x00" in needle
                or "\x01" in needle):
            text = self._text_mask(view.text)  # kept for the next pages of this text
            return text if kept is None else kept & text
        # few rows left by the other filters: the text tested on them alone
        rows, _, _ = self._text_index()
        chosen = np.flatnonzero(kept)
        found = np.zeros(self.n, dtype=bool)
        found[chosen[np.fromiter((needle in rows[i] for i in chosen.tolist()), dtype=bool, count=len(chosen))]] = True
        return found

    # ------------------------------------------------------------------ a page
    def rows(self, view: View) -> np.ndarray:
        """Every row ``view`` shows, in its order (grid positions)."""
        order = self.order(view.sort, view.descending)
        kept = self.mask(view)
        return order if kept is None else order[kept[order]]

    def row(self, i: int) -> dict[str, Any]:
        """The row at grid position ``i`` in a page's row shape."""
        return self._rows(np.array([i], dtype=np.int64))[0]

    def page(self, view: View, offset: int = 0, limit: int = 100) -> dict[str, Any]:
        """One page: ``{"total": rows the view shows, "rows": [{i, id, query, slices, values}]}``, ``values`` every
        measure's value per run (None: not scored), ``i`` the row's grid position (its drill-down's key)."""
        if offset < 0 or limit < 0:
            raise InvalidParameterError(f"offset and limit must be >= 0; got offset={offset}, limit={limit}.",
                                        parameter="offset")
        shown = self.rows(view)
        return {"total": int(len(shown)), "rows": self._rows(shown[offset:offset + min(limit, MAX_LIMIT)])}

    def _rows(self, chosen: np.ndarray) -> list[dict[str, Any]]:
        grid = self.grid
        ids = grid.ids[chosen].tolist()
        queries = grid.query[chosen].tolist()
        slices = [np.asarray(grid.slices[key], dtype=object)[chosen].tolist() for key in self.slice_keys]
        values = {}
        for measure in self.measures:
            block = grid.values[measure][chosen]
            shown = block.astype(object)
            shown[np.isnan(block)] = None  # JSON's null: not scored
            values[measure] = shown.tolist()
        return [{"i": int(i), "id": ids[p], "query": queries[p], "slices": [column[p] for column in slices],
                 "values": {measure: values[measure][p] for measure in self.measures}}
                for p, i in enumerate(chosen.tolist())]
