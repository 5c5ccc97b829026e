"""Node frames built on first access: a result holds columns until someone asks for the Haystack-shaped frame.

A source (``from_trec``, a loader) that holds a node as columns (Arrow tables, numpy codes) hands it over as a
:class:`PendingFrame`: its row count, its column names, and a :class:`ColumnSource` that makes one column at a time.
:class:`NodeFrames`, the mapping an ``EvaluationResult`` keeps its nodes in, answers the analyses through
:meth:`NodeFrames.view` (a :class:`ColumnView`: only the columns an analysis reads are made) and builds the whole
frame when a user asks for it (``result[node]``, ``result.node_results[node]``, iteration over its values). From then
on the built frame is the node's content, and what was prepared from the view is checked against it as any frame's
(:mod:`evalframe.frames.witness`): the listeners registered with :meth:`NodeFrames.on_build` (the result's
:class:`~evalframe.frames.store.PreparedStore`) take their witnesses of the built frame before it is handed out, so an
edit made to it afterwards is always seen.

The built frame is made of the very Series the view made, so what was prepared from the view holds for it.

Threads: a node is built once, under :attr:`NodeFrames.lock` (an ``RLock``: a listener may read another node, or
this one), so every caller gets the frame kept and the listeners run once; a view makes each column once, under the
same lock; the store holds it during each public call of the result (one lock for both, so no thread holds one and
waits for the other).

Examples
--------
>>> import numpy as np, pandas as pd
>>> class Ranks:
...     names = ("multilabel_id", "rank")
...     def column(self, name):
...         return pd.Series(["q1", "q1"] if name == "multilabel_id" else np.array([1, 2]), name=name)
>>> frames = NodeFrames()
>>> frames["Retriever"] = PendingFrame(2, Ranks())
>>> frames.view("Retriever")["rank"].tolist(), frames.is_built("Retriever")
([1, 2], False)
>>> frames["Retriever"]
  multilabel_id  rank
0            q1     1
1            q1     2
>>> frames.is_built("Retriever")
True
"""

from __future__ import annotations

import inspect
import itertools
import threading
import weakref
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from typing import Any, Protocol

import numpy as np
import pandas as pd

__all__ = ["ColumnSource", "PendingFrame", "ColumnView", "NodeFrames"]


class ColumnSource(Protocol):
    """What holds a pending node's columns: their names, in frame order, and each column on demand.

    ``column(name)`` returns the column exactly as the built frame holds it (its dtype, its values, a RangeIndex, which
    the view replaces by the pending frame's ``index``), and may be called once per name; it should make no Python
    object per row that the frame would not hold anyway. A source may also answer ``lists(name)``: a list column's
    distinct cells and a code per row, or None (see :meth:`ColumnView.coded_lists`).
    """

    names: Sequence[str]

    def column(self, name: str) -> pd.Series: ...


class PendingFrame:
    """A node frame not built yet: its row count and the source of its columns.

    ``extras`` holds what the source can answer without any column, keyed as the source and its reader agree;
    :class:`~evalframe.frames.store.PreparedStore` asks for it before it reads columns. The store reads
    ``"judged_rows"`` (``(eval_mode, duplicates) -> JudgedRows | None``: the trec measures' rows), ``"row_types"``
    (the ``type`` values the node holds) and ``"trec_layout"`` (``() -> TrecLayout``: the layout of the columns the
    source makes, kept when the frame is built); ``from_trec`` gives all three.

    Examples
    --------
    >>> import pandas as pd
    >>> class Ranks:  # a ColumnSource: the column names, and one column on demand
    ...     names = ("multilabel_id", "type", "rank")
    ...     def column(self, name):
    ...         return pd.Series({"multilabel_id": ["q1", "q2"], "type": ["document"] * 2, "rank": [1, 1]}[name], name=name)
    >>> from evalframe import EvaluationResult
    >>> result = EvaluationResult({"Retriever": PendingFrame(2, Ranks())})
    >>> result, result.has_documents("Retriever"), result.node_results.is_built("Retriever")
    (<EvaluationResult: 1 node(s) (Retriever: 2 rows)>, True, False)
    >>> result["Retriever"]["rank"].tolist(), result.node_results.is_built("Retriever")
    ([1, 1], True)
    """

    def __init__(self, n_rows: int, source: ColumnSource, extras: dict[str, Any] | None = None, *,
                 index: pd.Index | None = None) -> None:
        self.n_rows = int(n_rows)
        self.source = source
        self.extras: dict[str, Any] = dict(extras or {})
        if index is not None and len(index) != self.n_rows:
            raise ValueError(f"a pending frame of {self.n_rows} rows needs an index of {self.n_rows} labels; got {len(index)}")
        #: The built frame's index (and its columns'): a RangeIndex by default.
        self.index: pd.Index = pd.RangeIndex(self.n_rows) if index is None else index

    def __repr__(self) -> str:
        return f"<PendingFrame: {self.n_rows} rows, columns {list(self.source.names)}>"


class ColumnView:
    """A pending node read as a DataFrame by the analyses: ``view[column]``, ``view.columns``, ``view.index``,
    ``len(view)``; each column is made once, on first read, by the source.

    Examples
    --------
    >>> import pandas as pd
    >>> class Counting:
    ...     names, made = ("a", "b"), []
    ...     def column(self, name):
    ...         self.made.append(name)
    ...         return pd.Series([1, 2], name=name)
    >>> source = Counting()
    >>> view = ColumnView(PendingFrame(2, source))
    >>> int(view["a"].sum()), int(view["a"].sum()), source.made, list(view.columns), len(view)
    (3, 3, ['a'], ['a', 'b'], 2)
    """

    def __init__(self, pending: PendingFrame, *, lock: threading.RLock | None = None) -> None:
        self.pending = pending
        self.columns = pd.Index(list(pending.source.names), dtype=object)
        self.index = pending.index
        self._labelled = not self.index.equals(pd.RangeIndex(pending.n_rows))
        self.made: dict[str, pd.Series] = {}
        #: Held while a column is made (the :class:`NodeFrames`' lock): each is made once, whatever the threads.
        self.lock = threading.RLock() if lock is None else lock

    def __len__(self) -> int:
        return self.pending.n_rows

    @property
    def shape(self) -> tuple[int, int]:
        return self.pending.n_rows, len(self.columns)

    def __getitem__(self, name: str) -> pd.Series:
        series = self.made.get(name)
        if series is not None:
            return series
        if name not in self.columns:
            raise KeyError(name)
        with self.lock:
            series = self.made.get(name)  # made by another thread while this one waited
            if series is None:
                series = self.pending.source.column(name)
                if len(series) != self.pending.n_rows:  # a source's bug: never read a column of another length
                    raise ValueError(f"the pending column {name!r} has {len(series)} rows, not {self.pending.n_rows}")
                if self._labelled:  # the source makes a RangeIndex: the pending frame's labels instead (not copied)
                    series = series.set_axis(self.index)
                self.made[name] = series
        return series

    def coded_lists(self, name: str) -> Any:
        """List column ``name``'s distinct cells and a code per row (a
        :class:`~evalframe.frames.arrays.DistinctLists`) when the source codes it (a loaded node: ``source.lists(name)``,
        made once, from which the source makes the column too), else None."""
        lists = getattr(self.pending.source, "lists", None)
        if lists is None or name not in self.columns:
            return None
        with self.lock:  # the source makes it once
            return lists(name)

    def take(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows at ``positions``, every column (as ``DataFrame.take``)."""
        columns = {name: self[name].take(positions) for name in self.columns}
        return pd.DataFrame(columns, index=self.index.take(positions)) if columns else pd.DataFrame(
            index=self.index.take(positions))

    def frame(self) -> pd.DataFrame:
        """The whole frame, made of the columns read so far and the others: those at once when the source makes
        several columns as one frame (``columns_frame(names)``, a loaded CSV's), else one by one."""
        with self.lock:
            whole = getattr(self.pending.source, "columns_frame", None)
            rest = [name for name in self.columns if name not in self.made]
            others = whole(rest) if whole is not None and rest else None
            if others is None:
                columns = {name: self[name] for name in self.columns}
                frame = pd.DataFrame(columns, copy=False) if columns else pd.DataFrame(index=self.index)
                frame.index = self.index
                return frame
            if list(others.columns) != rest or len(others) != self.pending.n_rows:  # a source's bug
                raise ValueError(f"the pending columns made at once are {_few(list(others.columns))} of "
                                 f"{len(others)} rows, not {_few(rest)} of {self.pending.n_rows}")
            others.index = self.index
            if not self.made:
                return others
            made = pd.DataFrame(self.made, index=self.index, copy=False)  # the very columns the view made
            frame = pd.concat([others, made], axis=1)
            return frame[list(self.columns)]


def _few(names: Sequence[str]) -> str:
    """A few of ``names``, for a message (a node may have 10^5 columns)."""
    return repr(list(names[:5])) + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")


#: What a listener of :meth:`NodeFrames.on_build` is called with: the node, the view it was read through, the frame.
BuildListener = Callable[[str, ColumnView, pd.DataFrame], None]

#: A node's frame or pending frame as held (never built), and a node's entry set: dict's own methods.
_held: Callable[[dict[str, Any], str], Any] = dict.__getitem__
_put: Callable[[dict[str, Any], str, Any], None] = dict.__setitem__


class NodeFrames(dict[str, pd.DataFrame]):  # a pending frame is held (not a DataFrame) until read
    """A result's nodes: a ``dict`` of node name -> DataFrame, some of them pending until first read (see the module).

    ``isinstance(frames, dict)`` holds, as Haystack 1.x's ``Dict[str, DataFrame]`` declares; every read of a value
    builds a pending frame and gives the built one: ``frames[node]``, ``get``, ``values()``, ``items()``, ``pop``,
    ``popitem``, ``setdefault``, ``dict(frames)``, ``{**frames}``, ``frames | other``, ``copy()`` (a plain dict),
    ``copy.copy``, ``copy.deepcopy`` and pickling (a pending frame's source need not be picklable), ``==``. ``in``,
    ``len``, ``keys()`` and iteration over the names, :meth:`view`, :meth:`n_rows` and :meth:`is_built` build nothing.
    Only ``dict``'s own methods called unbound (``dict.__getitem__(frames, node)``, ``dict.values(frames)``) see the
    pending frame held; docs/haystack-compat.md lists them.

    One frame is built per node, whatever the threads: the build holds :attr:`lock` (re-entrant: a listener of
    :meth:`on_build` may read another node), so every caller gets the same frame object, and the listeners run once.

    Examples
    --------
    >>> import pandas as pd
    >>> class One:
    ...     names = ("rank",)
    ...     def column(self, name):
    ...         return pd.Series([1, 2, 3], name=name)
    >>> frames = NodeFrames()
    >>> frames["Retriever"] = PendingFrame(3, One())
    >>> list(frames), frames.n_rows("Retriever"), frames.is_built("Retriever"), isinstance(frames, dict)
    (['Retriever'], 3, False, True)
    >>> {**frames}["Retriever"].shape, frames.is_built("Retriever")
    ((3, 1), True)
    """

    def __init__(self, frames: Mapping[str, pd.DataFrame | PendingFrame] | Iterable[tuple[str, Any]] = (), /,
                 **nodes: pd.DataFrame | PendingFrame) -> None:
        super().__init__()
        self._views: dict[str, ColumnView] = {}
        self._listeners: list[Callable[[], BuildListener | None]] = []  # each gives its listener, or None once gone
        #: Held while a frame is built, a view made, a node set or deleted, and by the result's store
        #: (:class:`~evalframe.frames.store.PreparedStore`) during each public call.
        self.lock = threading.RLock()
        self.update(frames, **nodes)

    def on_build(self, listener: BuildListener) -> None:
        """Call ``listener(node, view, frame)`` when a pending node is built, before the frame is handed out.

        A bound method is held weakly: called while its object lives, dropped after. Its object (the result's store)
        holds these frames, so holding the method would make a reference cycle, and the frames' columns would be kept
        until the cyclic garbage collector runs (a partition's worth of memory per Dask task). Other callables are
        held as given.
        """
        held: Callable[[], BuildListener | None]
        if inspect.ismethod(listener):
            held = weakref.WeakMethod(listener)
        else:
            def held() -> BuildListener:
                return listener
        with self.lock:
            self._listeners = [*(old for old in self._listeners if old() is not None), held]

    def __getitem__(self, node: str) -> pd.DataFrame:
        held = _held(self, node)
        if not isinstance(held, PendingFrame):
            return held
        with self.lock:
            held = _held(self, node)  # another thread may have built it while this one waited
            if not isinstance(held, PendingFrame):
                return held
            view = self._view_of(node, held)
            frame = view.frame()
            _put(self, node, frame)  # a listener reading this node gets this frame
            try:
                for held_listener in self._listeners:
                    listener = held_listener()
                    if listener is not None:
                        listener(node, view, frame)
            except BaseException:
                _put(self, node, held)
                raise
            self._views.pop(node, None)
            return frame

    def __setitem__(self, node: str, frame: pd.DataFrame | PendingFrame) -> None:
        with self.lock:
            _put(self, node, frame)
            self._views.pop(node, None)

    def __delitem__(self, node: str) -> None:
        with self.lock:
            dict.__delitem__(self, node)
            self._views.pop(node, None)

    # dict's own C methods read the values held, pending frames included; each is answered through __getitem__.
    # __iter__ is defined for dict(frames), {**frames} and dict.update(frames): CPython copies a dict's entries
    # directly only when its type keeps dict's __iter__, else it reads keys() and __getitem__.
    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self)

    def get(self, node: str, default: Any = None) -> Any:
        return self[node] if node in self else default

    def values(self) -> ValuesView[pd.DataFrame]:  # type: ignore[override]
        return ValuesView(self)

    def items(self) -> ItemsView[str, pd.DataFrame]:  # type: ignore[override]
        return ItemsView(self)

    def pop(self, node: str, *default: Any) -> Any:
        with self.lock:
            if node not in self:
                if default:
                    return default[0]
                raise KeyError(node)
            frame = self[node]
            del self[node]
            return frame

    def popitem(self) -> tuple[str, pd.DataFrame]:
        with self.lock:
            if not len(self):
                raise KeyError("popitem(): dictionary is empty")
            node = next(reversed(self))
            return node, self.pop(node)

    def setdefault(self, node: str, default: Any = None) -> Any:
        with self.lock:
            if node not in self:
                self[node] = default
            return self[node]

    def update(self, frames: Any = (), /, **nodes: Any) -> None:
        pairs = frames.items() if isinstance(frames, Mapping) else (
            ((key, frames[key]) for key in frames.keys()) if hasattr(frames, "keys") else frames)
        for node, frame in itertools.chain(pairs, nodes.items()):
            self[node] = frame

    def clear(self) -> None:
        with self.lock:
            dict.clear(self)
            self._views.clear()

    def copy(self) -> dict[str, pd.DataFrame]:
        """A plain dict of every node's frame (pending frames are built), as ``dict.copy`` of the former dict gave.

        Examples
        --------
        >>> frames = NodeFrames()
        >>> frames["R"] = pd.DataFrame({"rank": [1]})
        >>> frames.copy()["R"]["rank"].tolist()
        [1]
        """
        return {node: self[node] for node in list(self)}

    def __or__(self, other: Any) -> Any:
        if not isinstance(other, Mapping):
            return NotImplemented
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: Any) -> Any:
        if not isinstance(other, Mapping):
            return NotImplemented
        merged = dict(other)
        merged.update(self.copy())
        return merged

    def __ior__(self, other: Any) -> NodeFrames:  # type: ignore[override]
        self.update(other)
        return self

    def __eq__(self, other: object) -> bool:
        return self.copy() == (other.copy() if isinstance(other, NodeFrames) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        """As a dict of DataFrames shows: each built frame as pandas shows it; a pending one by its size, not built
        for a repr (``<24 rows, 27 columns, not yet built>``: reading it builds it).

        Examples
        --------
        >>> class One:
        ...     names = ("rank",)
        ...     def column(self, name):
        ...         return pd.Series([1, 2, 3], name=name)
        >>> frames = NodeFrames(Retriever=PendingFrame(3, One()), Reader=pd.DataFrame({"rank": [1]}))
        >>> frames
        {'Retriever': <3 rows, 1 column, not yet built>, 'Reader':    rank
        0     1}
        """
        def shown(held: pd.DataFrame | PendingFrame) -> str:
            if not isinstance(held, PendingFrame):
                return repr(held)
            columns = len(held.source.names)
            return f"<{held.n_rows:,} row{'s' * (held.n_rows != 1)}, {columns:,} column{'s' * (columns != 1)}, not yet built>"

        return "{" + ", ".join(f"{node!r}: {shown(_held(self, node))}" for node in self) + "}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) with every frame built: a source need not be picklable."""
        return NodeFrames, (self.copy(),)

    def is_built(self, node: str) -> bool:
        """Whether ``node``'s frame exists (it was never pending, or was asked for)."""
        return not isinstance(_held(self, node), PendingFrame)

    def pending(self, node: str) -> PendingFrame | None:
        """``node``'s pending frame, while it is not built."""
        held = _held(self, node)
        return held if isinstance(held, PendingFrame) else None

    def n_rows(self, node: str) -> int:
        """``node``'s row count, without building it."""
        held = _held(self, node)
        return held.n_rows if isinstance(held, PendingFrame) else len(held)

    def view(self, node: str) -> pd.DataFrame | ColumnView:
        """``node`` as the analyses read it: its frame when built, else a :class:`ColumnView` of its columns."""
        held = _held(self, node)
        if not isinstance(held, PendingFrame):
            return held
        with self.lock:
            held = _held(self, node)
            return held if not isinstance(held, PendingFrame) else self._view_of(node, held)

    def _view_of(self, node: str, held: PendingFrame) -> ColumnView:
        view = self._views.get(node)
        if view is None or view.pending is not held:
            view = self._views[node] = ColumnView(held, lock=self.lock)
        return view
