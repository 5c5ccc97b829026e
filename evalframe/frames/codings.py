"""What a builder or loader knows of how a result's frames are coded, handed to the result with the frames.

A loader that decodes a list column makes each distinct cell once (:class:`~evalframe.frames.arrays.DistinctLists`);
:meth:`EvaluationResult.from_trec` builds a node's key columns from codes (:class:`~evalframe.frames.trec_layout.TrecLayout`,
with the judgments as codes, :class:`~evalframe.frames.trec_layout.TrecJudgments`). Both are handed over explicitly, as
one :class:`Codings` value (``EvaluationResult(frames, codings=...)``), never looked up by the frame's identity; the
result keeps them in its prepared store, each while the columns it describes hold what they held
(:mod:`evalframe.frames.witness`), so an edited frame falls back to hashing its ids.

The TREC classes are constructed in :mod:`evalframe.sources.trec` (a stage before ``frames``, which may not import
``frames``), so they live there and are re-exported here.

Examples
--------
>>> import pandas as pd
>>> from evalframe.frames.arrays import DistinctLists
>>> lists = DistinctLists.of_rows(pd.Series([["d1"], ["d2"]]))
>>> codings = Codings.of_lists({"Retriever": {"gold_document_ids": lists}})
>>> codings["Retriever"].lists["gold_document_ids"] is lists, codings["Retriever"].trec is None
(True, True)
>>> list(codings), codings.get("Reader").lists
(['Retriever'], {})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .trec_layout import TrecJudgments, TrecLayout
from .arrays import DistinctLists

__all__ = ["Codings", "NodeCoding"]


@dataclass(frozen=True, eq=False)
class NodeCoding:
    """One node's coding: ``lists[column]``, a list column's distinct cells and a code per row (a loader's), and
    ``trec``, how :func:`evalframe.sources.trec.trec_frame_coded` built the key columns (its ``judgments``: the
    judgment list cells as codes), or None.

    Examples
    --------
    >>> NodeCoding().lists, NodeCoding().trec
    ({}, None)
    """

    lists: Mapping[str, DistinctLists] = field(default_factory=dict)
    trec: TrecLayout | None = None

    @property
    def judgments(self) -> TrecJudgments | None:
        """The TREC judgments as codes (``trec.judgments``), or None."""
        return self.trec.judgments if self.trec is not None else None


@dataclass(frozen=True, eq=False)
class Codings(Mapping[str, NodeCoding]):
    """What is known of each node's coding, by node name: a read-only mapping of node -> :class:`NodeCoding`.

    Examples
    --------
    >>> Codings({"Retriever": NodeCoding()})["Retriever"].trec is None
    True
    """

    nodes: Mapping[str, NodeCoding] = field(default_factory=dict)

    @classmethod
    def of_lists(cls, list_codings: Mapping[str, Mapping[str, DistinctLists]]) -> Codings:
        """The codings of ``{node: {column: DistinctLists}}`` (a loader's list codings), no TREC layout.

        Examples
        --------
        >>> Codings.of_lists({"Reader": {}})["Reader"].lists
        {}
        """
        return cls({node: NodeCoding(lists=dict(columns)) for node, columns in list_codings.items()})

    def __getitem__(self, node: str) -> NodeCoding:
        return self.nodes[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def get(self, node: str, default: NodeCoding | None = None) -> NodeCoding:  # type: ignore[override]
        """``node``'s coding; an empty :class:`NodeCoding` for a node nothing is known of."""
        return self.nodes.get(node, default if default is not None else NodeCoding())
