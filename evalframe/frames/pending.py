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

from collections.abc import Callable, Iterator, MutableMapping, Sequence
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

    def __init__(self, pending: PendingFrame) -> None:
        self.pending = pending
        self.columns = pd.Index(list(pending.source.names), dtype=object)
        self.index = pending.index
        self._labelled = not self.index.equals(pd.RangeIndex(pending.n_rows))
        self.made: dict[str, pd.Series] = {}

    def __len__(self) -> int:
        return self.pending.n_rows

    @property
    def shape(self) -> tuple[int, int]:
        return self.pending.n_rows, len(self.columns)

    def __getitem__(self, name: str) -> pd.Series:
        series = self.made.get(name)
        if series is None:
            if name not in self.made and name not in self.columns:
                raise KeyError(name)
            series = self.pending.source.column(name)
            if len(series) != self.pending.n_rows:  # a source's bug: never read a column of another length
                raise ValueError(f"the pending column {name!r} has {len(series)} rows, not {self.pending.n_rows}")
            if self._labelled:  # the source makes a RangeIndex: the pending frame's labels instead (data not copied)
                series = series.set_axis(self.index)
            self.made[name] = series
        return series

    def coded_lists(self, name: str) -> Any:
        """List column ``name``'s distinct cells and a code per row (a
        :class:`~evalframe.frames.arrays.DistinctLists`) when the source codes it (a loaded node: ``source.lists(name)``,
        made once, from which the source makes the column too), else None."""
        lists = getattr(self.pending.source, "lists", None)
        return lists(name) if lists is not None and name in self.columns else None

    def take(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows at ``positions``, every column (as ``DataFrame.take``)."""
        columns = {name: self[name].take(positions) for name in self.columns}
        return pd.DataFrame(columns, index=self.index.take(positions)) if columns else pd.DataFrame(
            index=self.index.take(positions))

    def frame(self) -> pd.DataFrame:
        """The whole frame, made of the columns read so far and the others."""
        columns = {name: self[name] for name in self.columns}
        frame = pd.DataFrame(columns, copy=False) if columns else pd.DataFrame(index=self.index)
        frame.index = self.index
        return frame


#: What a listener of :meth:`NodeFrames.on_build` is called with: the node, the view it was read through, the frame.
BuildListener = Callable[[str, ColumnView, pd.DataFrame], None]


class NodeFrames(MutableMapping[str, pd.DataFrame]):
    """A result's nodes: node name -> DataFrame, some of them pending until first asked for (see the module).

    ``frames[node]`` (and ``values()``, ``items()``, ``dict(frames)``) builds a pending frame; ``in``, ``len``,
    iteration over the names, :meth:`view`, :meth:`n_rows` and :meth:`is_built` do not.

    Examples
    --------
    >>> import pandas as pd
    >>> class One:
    ...     names = ("rank",)
    ...     def column(self, name):
    ...         return pd.Series([1, 2, 3], name=name)
    >>> frames = NodeFrames()
    >>> frames["Retriever"] = PendingFrame(3, One())
    >>> list(frames), frames.n_rows("Retriever"), frames.is_built("Retriever")
    (['Retriever'], 3, False)
    >>> frames["Retriever"].shape, frames.is_built("Retriever")
    ((3, 1), True)
    """

    def __init__(self) -> None:
        self._held: dict[str, pd.DataFrame | PendingFrame] = {}
        self._views: dict[str, ColumnView] = {}
        self._listeners: list[BuildListener] = []

    def on_build(self, listener: BuildListener) -> None:
        """Call ``listener(node, view, frame)`` when a pending node is built, before the frame is handed out."""
        self._listeners.append(listener)

    def __getitem__(self, node: str) -> pd.DataFrame:
        held = self._held[node]
        if isinstance(held, PendingFrame):
            view = self.view(node)
            assert isinstance(view, ColumnView)
            frame = view.frame()
            for listener in self._listeners:
                listener(node, view, frame)
            self._held[node] = frame
            del self._views[node]
            return frame
        return held

    def __setitem__(self, node: str, frame: pd.DataFrame | PendingFrame) -> None:
        self._held[node] = frame
        self._views.pop(node, None)

    def __delitem__(self, node: str) -> None:
        del self._held[node]
        self._views.pop(node, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, node: object) -> bool:
        return node in self._held

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{node!r}: {held!r}" if isinstance(held, PendingFrame) else f"{node!r}: <{len(held)} rows>"
                               for node, held in self._held.items()) + "}"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (and deep-copied) with every frame built: a source need not be picklable."""
        return {"_held": {node: self[node] for node in self._held}, "_views": {}, "_listeners": []}

    def copy(self) -> dict[str, pd.DataFrame]:
        """A plain dict of every node's frame (pending frames are built), as ``dict.copy`` of the former dict gave.

        Examples
        --------
        >>> frames = NodeFrames()
        >>> frames["R"] = pd.DataFrame({"rank": [1]})
        >>> frames.copy()["R"]["rank"].tolist()
        [1]
        """
        return {node: self[node] for node in self._held}

    def is_built(self, node: str) -> bool:
        """Whether ``node``'s frame exists (it was never pending, or was asked for)."""
        return not isinstance(self._held[node], PendingFrame)

    def pending(self, node: str) -> PendingFrame | None:
        """``node``'s pending frame, while it is not built."""
        held = self._held[node]
        return held if isinstance(held, PendingFrame) else None

    def n_rows(self, node: str) -> int:
        """``node``'s row count, without building it."""
        held = self._held[node]
        return held.n_rows if isinstance(held, PendingFrame) else len(held)

    def view(self, node: str) -> pd.DataFrame | ColumnView:
        """``node`` as the analyses read it: its frame when built, else a :class:`ColumnView` of its columns."""
        held = self._held[node]
        if not isinstance(held, PendingFrame):
            return held
        view = self._views.get(node)
        if view is None:
            view = self._views[node] = ColumnView(held)
        return view
