"""Row selection: a node's rows of one type and eval_mode, as positions in its frame.

``type`` and ``eval_mode`` hold a few values in long runs, so a column is coded once (:func:`column_coding`:
one comparison of neighbours, the value of each run) and the rows equal to any value then come from its
runs, without comparing every row again (:func:`coded_equals`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import require_columns
from ..errors import InvalidParameterError, warn
from .arrays import run_starts

__all__ = ["row_positions", "has_rows", "empty_kind", "document_node", "NodeNeeded", "ColumnCoding", "column_coding",
           "coded_equals"]

#: (run lengths, the value of each run) of a column of few long runs, else (None, None); then the column itself
ColumnCoding = tuple[np.ndarray | None, list | None, pd.Series]

#: Up to this many runs, a column's runs are compared to a value one by one in Python.
_FEW_RUNS = 256


def _equals(series: pd.Series, value: str) -> np.ndarray:
    return (series == value).to_numpy(dtype=bool, na_value=False)


def _is_missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def column_coding(series: pd.Series) -> ColumnCoding:
    """``series`` as runs of equal neighbours: the length of each run and its value (a Python object).

    A column without few long runs, or holding values other than strings and missing ones, is kept as it is
    (its rows are compared one by one in :func:`coded_equals`).
    """
    starts = run_starts(series)
    heads = np.flatnonzero(starts) if starts is not None else None
    if heads is None or len(heads) > _FEW_RUNS or 8 * len(heads) > len(series):
        return None, None, series
    array = series.array
    if isinstance(array, pd.arrays.ArrowExtensionArray):  # one scalar per run: no take (it would join the chunks)
        chunked = array.__arrow_array__()
        values = [chunked[int(head)].as_py() for head in heads]
    else:
        values = series.to_numpy()[heads].tolist()
    if not all(isinstance(v, str) or _is_missing(v) for v in values):
        return None, None, series
    return np.diff(np.append(heads, len(series))), values, series


def coded_equals(coding: ColumnCoding, value: str) -> np.ndarray:
    """Per row of the coded column, whether it equals ``value`` (as ``series == value``; missing: False)."""
    lengths, values, series = coding
    if lengths is None or values is None:
        return _equals(series, value)
    same = np.fromiter((isinstance(v, str) and v == value for v in values), dtype=bool, count=len(values))
    return np.repeat(same, lengths)


def row_positions(frame: pd.DataFrame, row_type: str, eval_mode: str, *, where: str,
                  equals: Callable[[str, str], np.ndarray] | None = None) -> np.ndarray:
    """Positions of the rows of ``row_type`` evaluated in ``eval_mode``.

    A frame without an ``eval_mode`` column uses all its rows, with a warning. ``equals(column, value)`` gives the
    mask of a column's rows equal to a value (default: compare every row; the store passes its kept codings).
    """
    require_columns(frame, ["multilabel_id", "type", "rank"], where=where, why="to compute metrics")
    if equals is None:
        equals = lambda column, value: _equals(frame[column], value)  # noqa: E731
    mask = equals("type", row_type)
    if "eval_mode" in frame.columns:
        mask = mask & equals("eval_mode", eval_mode)
    else:
        warn(f"{where} has no 'eval_mode' column; using all its rows for eval_mode={eval_mode!r}.")
    return np.flatnonzero(mask)


def empty_kind(columns: Iterable[str]) -> str | None:
    """The row type a frame of no row stands for, by its columns: ``"document"`` when it has a ``document_id`` column
    and no ``answer`` one, ``"answer"`` the other way round, else None (a frame of no row keeps its columns through a
    save, a load and a copy; its rows' ``type`` cells are gone).

    Examples
    --------
    >>> empty_kind(["multilabel_id", "document_id", "rank", "type"]), empty_kind(["answer", "rank"]), empty_kind([])
    ('document', 'answer', None)
    """
    names = set(columns)
    if "document_id" in names and "answer" not in names:
        return "document"
    if "answer" in names and "document_id" not in names:
        return "answer"
    return None


def has_rows(frame: pd.DataFrame, row_type: str) -> bool:
    """Whether ``frame`` has rows of ``row_type`` ("answer" or "document"), in any eval_mode."""
    if "type" not in frame.columns:
        return False
    series = frame["type"]
    if isinstance(series, pd.Series) and isinstance(series.array, pd.arrays.ArrowExtensionArray):
        import pyarrow.compute as pc

        try:  # stops at the first match: usually the first row
            return bool(pc.index(series.array.__arrow_array__(), row_type).as_py() >= 0)
        except (NotImplementedError, TypeError, ValueError):  # e.g. a column of another type: compared as below
            pass
    return bool(_equals(series, row_type).any())


@dataclass(frozen=True)
class NodeNeeded:
    """What a caller of :func:`document_node` says when not exactly one node has document rows.

    ``none`` and ``several`` are :meth:`str.format` templates of its two errors, over ``count`` (how many nodes have
    document rows), ``documents`` (those nodes, a list), ``nodes`` (all nodes, a list) and the keywords the caller
    passes to :func:`document_node` (e.g. ``eval_mode``). The rule is one; each caller words what it means.

    Examples
    --------
    >>> needed = NodeNeeded(none="no node has document rows; nodes: {nodes}.",
    ...                     several="{count} nodes have document rows: {documents}; pass node='<name>'.")
    >>> str(needed.error(["A", "B"], ["A", "B", "C"]))
    "2 nodes have document rows: ['A', 'B']; pass node='<name>'."
    """

    none: str
    several: str

    def error(self, documents: Sequence[str], nodes: Sequence[str], **fields: Any) -> InvalidParameterError:
        """The error for ``documents`` (the nodes with document rows: none or several) among ``nodes``."""
        template = self.several if documents else self.none
        return InvalidParameterError(template.format(count=len(documents), documents=list(documents),
                                                     nodes=list(nodes), **fields))


def document_node(documents: Sequence[str], nodes: Sequence[str], needed: NodeNeeded, **fields: Any) -> str:
    """The one node with document rows, which an analysis reads when it is not named: the one way this is decided.

    ``documents``: the nodes with document rows (in a result in memory, in one partition, or over a partitioned
    folder); ``nodes``: all nodes. None or several is an error, worded by the caller's ``needed``
    (:class:`NodeNeeded`, its templates filled with ``fields`` too).

    Examples
    --------
    >>> needed = NodeNeeded(none="no node has document rows. Nodes: {nodes}.",
    ...                     several="trec_metrics needs node= when {count} nodes have document rows: {documents}.")
    >>> document_node(["Retriever"], ["Retriever", "Reader"], needed)
    'Retriever'
    >>> document_node(["A", "B"], ["A", "B"], needed)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: trec_metrics needs node= when 2 nodes have document rows: ['A', 'B'].
    >>> document_node([], ["Reader"], needed)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: no node has document rows. Nodes: ['Reader'].
    """
    if len(documents) == 1:
        return documents[0]
    raise needed.error(documents, nodes, **fields)
