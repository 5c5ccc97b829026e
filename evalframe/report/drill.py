"""The comparison's per-query data as columns (built by :func:`evalframe.report.model.build_comparison_model`; laid
out for the viewers, the comparative page and ``evalframe serve``, by :mod:`evalframe.report.viewer_data`).

:class:`Grid` is one node's per-query table (every run's value of every measure, the default order worst change
first); :class:`Detail` holds every query's drill-down (its gold, each run's answers and retrieved passages with
their gold matches, whole texts), shared by the nodes. Both are built by
:func:`evalframe.report.model.build_comparison_model` with numpy / pandas over the node frames (no per-query Python),
and :func:`evalframe.report.viewer_data.viewer_payload` lays them out as the two JSON-ready payloads the page and
the server read. Texts are data here: a viewer escapes them where it draws them.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_comparison_model
>>> demo = load_demo_result()
>>> model = build_comparison_model({"a": demo, "b": demo}, metrics=["mrr", "f1"], rounds=10)
>>> grid = model.nodes[0].grid
>>> grid.node, len(grid), list(grid.values), grid.values["mrr"].shape
('Retriever', 8, ['mrr'], (8, 2))
>>> len(model.detail), model.detail.names
(8, ('a', 'b'))
>>> first = model.detail.query(int(grid.detail[0]))
>>> first["gold_answers"], [len(run["documents"]) for run in first["runs"]]
(['Berlin'], [4, 4])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..analysis.examples import parsed_meta
from ..analysis.protocol import ResultLike
from ..columns import answer_metric_column, relevance_column, relevance_criterion
from ..errors import InvalidParameterError

__all__ = ["Grid", "Detail", "Rows", "Lists", "DOCUMENT_MARKS", "ANSWER_MARKS", "node_rows", "rows_of",
           "build_detail", "empty_rows", "texts", "lists"]

#: The 0/1 (and f1) columns a drill-down row shows beside each document / answer: its gold matches.
DOCUMENT_MARKS = ("gold_id_match", "context_match", "answer_match")
ANSWER_MARKS = ("exact_match", "f1")
#: A row frame's columns the drill-down reads (those the frame has).
_QUERY_COLUMNS = ("multilabel_id", "query", "gold_answers", "gold_document_ids", "gold_contexts", "meta")
_ROW_COLUMNS = ("rank", "answer", "document_ids", "document_id", "context")


# ---------------------------------------------------------------------------------------------- the shapes
@dataclass(frozen=True, eq=False)
class Grid:
    """One node's per-query table, in the default order (the worst change of the node's ``order_metric`` first).

    ``values[m]`` is an ``(n, runs)`` float64 array (NaN: the run did not score the query); ``signs[m]`` is +1 when a
    higher value of ``m`` is better, -1 when a lower one is, 0 for a count (no direction); ``detail[i]`` is the row of
    the model's :class:`Detail` holding query ``i``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> from evalframe.report.model import build_comparison_model
    >>> demo = load_demo_result()
    >>> grid = build_comparison_model({"a": demo, "b": demo}, nodes=["Reader"], rounds=10).nodes[0].grid
    >>> len(grid), grid.signs, grid.values["f1"][:2].tolist()
    (8, {'exact_match': 1.0, 'f1': 1.0}, [[1.0, 1.0], [1.0, 1.0]])
    """

    node: str
    ids: np.ndarray  # object array of str: multilabel_id
    query: np.ndarray  # object array of str: the query text ("" when missing)
    slices: dict[str, np.ndarray]  # slice key -> object array of str labels ("" when missing)
    values: dict[str, np.ndarray]  # measure -> float64 (n, runs)
    signs: dict[str, float]  # measure -> +1, -1 or 0
    detail: np.ndarray  # int64: the Detail row of each query

    def __len__(self) -> int:
        return len(self.ids)

    def __eq__(self, other: object) -> bool:
        """Equal grids: the same node, signs and columns (NaN equal to NaN), not the same arrays."""
        if not isinstance(other, Grid):
            return NotImplemented
        same = self.node == other.node and self.signs == other.signs and list(self.slices) == list(other.slices) \
            and list(self.values) == list(other.values)
        return same and all(np.array_equal(a, b) for a, b in [(self.ids, other.ids), (self.query, other.query),
                                                               (self.detail, other.detail)]) \
            and all(np.array_equal(self.slices[k], other.slices[k]) for k in self.slices) \
            and all(np.array_equal(self.values[m], other.values[m], equal_nan=True) for m in self.values)

    __hash__ = None  # type: ignore[assignment]  # arrays: no hash


@dataclass(frozen=True, eq=False)
class Lists:
    """A list per query (or per row), flattened: query ``q``'s items are ``values[offsets[q]:offsets[q + 1]]``."""

    offsets: np.ndarray  # int64, one more than the lists
    values: np.ndarray  # object


@dataclass(frozen=True, eq=False)
class Rows:
    """One run's rows of one node and kind (``"answer"`` or ``"document"``), grouped by :class:`Detail` row: the
    rows of query ``q`` are ``offsets[q]:offsets[q + 1]``, in frame order.

    ``rank`` is float64 (NaN: none); ``ids`` the documents' ids ("" when missing); ``text`` the document's passage
    (None when missing) or the answer ("" when none); ``length`` the whole text's length; ``correct`` 1 / 0 / NaN
    (judged under the report's scopes); ``marks`` each gold-match column (NaN: not said); ``document_ids`` the
    answers' documents, ``listed`` whether the answer's cell was a list."""

    node: str | None
    kind: str
    offsets: np.ndarray
    rank: np.ndarray
    ids: np.ndarray
    text: np.ndarray
    length: np.ndarray
    correct: np.ndarray
    marks: dict[str, np.ndarray]
    document_ids: Lists
    listed: np.ndarray


def empty_rows(kind: str, n: int) -> Rows:
    none = np.empty(0, dtype=object)
    return Rows(None, kind, np.zeros(n + 1, dtype=np.int64), np.empty(0), none, none, np.empty(0, dtype=np.int64),
                np.empty(0), {}, Lists(np.zeros(1, dtype=np.int64), none), np.empty(0, dtype=bool))


# ---------------------------------------------------------------------------------------------- columns
def _missing(values: np.ndarray) -> np.ndarray:
    """Where an object array's cells are missing: None, NaN (or NA)."""
    return np.asarray(pd.isna(pd.Series(values, dtype=object)), dtype=bool) if len(values) else np.zeros(0, bool)


def texts(values: Any, missing: Any = None) -> np.ndarray:
    """An object array of str from a column: missing cells (None, NaN) become ``missing``, others ``str(value)``.

    >>> texts(pd.Series(["a", None, 3, float("nan")])).tolist()
    ['a', None, '3', None]
    """
    array = np.asarray(values, dtype=object) if not isinstance(values, pd.Series) else values.to_numpy(dtype=object)
    out = array.copy()
    gone = _missing(out)
    out[gone] = missing
    kept = ~gone
    if kept.any() and pd.api.types.infer_dtype(out[kept], skipna=False) != "string":
        out[kept] = [value if isinstance(value, str) else str(value) for value in out[kept]]
    return out


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A column as float64 (NaN where missing or not a number); NaN everywhere when the frame lacks it."""
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def lists(cells: Any) -> tuple[Lists, np.ndarray]:
    """Cells holding lists (lists, tuples, arrays) flattened to str items, and whether each cell was a list: a
    missing cell has no item, a scalar one its ``str`` (items that are None become "").

    >>> flat, listed = lists(pd.Series([["a", "b"], None, [], "c"], dtype=object))
    >>> flat.offsets.tolist(), flat.values.tolist(), listed.tolist()
    ([0, 2, 2, 2, 3], ['a', 'b', 'c'], [True, False, True, False])
    """
    array = np.asarray(cells, dtype=object) if not isinstance(cells, pd.Series) else cells.to_numpy(dtype=object)
    arrow = None
    if not any(isinstance(cell, (str, bytes)) for cell in array.tolist()):  # Arrow would read a text as a list
        try:
            arrow = pa.array(array, type=pa.list_(pa.large_string()), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
            arrow = None
    if arrow is not None:
        lengths = pc.fill_null(pc.list_value_length(arrow), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        values = pc.list_flatten(arrow).to_numpy(zero_copy_only=False).astype(object)
        values[_missing(values)] = ""
        listed = ~arrow.is_null().to_numpy(zero_copy_only=False)
    else:  # items of other types, or scalar cells: read cell by cell
        items: list[list[Any]] = []
        flags = []
        for cell in array.tolist():
            if isinstance(cell, (list, tuple, np.ndarray)):
                items.append(list(cell.tolist() if isinstance(cell, np.ndarray) else cell))
                flags.append(True)
            else:
                gone = cell is None or (isinstance(cell, float) and cell != cell)
                items.append([] if gone else [cell])
                flags.append(False)
        lengths = np.array([len(item) for item in items], dtype=np.int64)
        values = texts(np.array([value for item in items for value in item] or [], dtype=object), "")
        listed = np.array(flags, dtype=bool)
    return Lists(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), values), listed.astype(bool)


def _partition_rows(result: Any, keys: Any, node: str, kind: str) -> pd.DataFrame:
    if node not in result.nodes:
        return pd.DataFrame()
    return result.node_rows(node, kind, "integrated")


def node_rows(result: ResultLike, node: str, kind: str) -> pd.DataFrame:
    """A node's integrated rows of one kind, in frame order (:meth:`evalframe.EvaluationResult.node_rows`); a result on
    Dask gathers them from its partitions."""
    if hasattr(result, "node_rows"):
        return result.node_rows(node, kind, "integrated")
    on_dask: Any = result  # a DaskEvaluationResult: its partitions list the rows
    gathered = on_dask.map_partitions(_partition_rows, node, kind, nodes=[node])
    parts = [part for part in gathered if len(part)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"multilabel_id": []})


def _grouped(frame: pd.DataFrame, position_of: pd.Index, n: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The frame's rows of the queries in ``position_of``, grouped by their position (frame order kept within a
    query), each row's position, and the offsets of the groups."""
    if "multilabel_id" not in frame.columns or not len(frame):
        return frame.iloc[:0], np.zeros(0, dtype=np.int64), np.zeros(n + 1, dtype=np.int64)
    where = position_of.get_indexer(pd.Index(frame["multilabel_id"]))
    kept = np.flatnonzero(where >= 0)
    order = kept[np.argsort(where[kept], kind="stable")]
    positions = where[order].astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(positions, minlength=n))]).astype(np.int64)
    return frame.iloc[order], positions, offsets


def rows_of(frame: pd.DataFrame, node: str, kind: str, position_of: pd.Index, scopes: Mapping[str, str]) -> Rows:
    """:class:`Rows` of ``frame`` (a node's rows of ``kind``) for the queries of ``position_of`` (multilabel_id ->
    Detail row), ``correct`` judged under ``scopes`` (``document_scope``, ``answer_scope``)."""
    n = len(position_of)
    rows, _, offsets = _grouped(frame, position_of, n)
    answers = kind == "answer"
    if answers:
        column = answer_metric_column("exact_match", scopes["answer_scope"])
        text = texts(rows["answer"], "") if "answer" in rows.columns else np.full(len(rows), "", dtype=object)
        ids = np.full(len(rows), "", dtype=object)
        cells = rows["document_ids"] if "document_ids" in rows.columns else pd.Series([None] * len(rows), dtype=object)
        document_ids, listed = lists(cells)
    else:
        column = relevance_column(relevance_criterion(scopes["document_scope"], scopes["answer_scope"]))
        text = texts(rows["context"]) if "context" in rows.columns else np.full(len(rows), None, dtype=object)
        ids = texts(rows["document_id"], "") if "document_id" in rows.columns else np.full(len(rows), "", dtype=object)
        document_ids, listed = Lists(np.zeros(len(rows) + 1, dtype=np.int64), np.empty(0, dtype=object)), \
            np.zeros(len(rows), dtype=bool)
    length = _lengths(text) if len(rows) else \
        np.zeros(0, dtype=np.int64)
    correct = _numbers(rows, column)
    correct = np.where(np.isnan(correct), np.nan, (correct >= 1.0).astype(np.float64))
    marks = {mark: _numbers(rows, mark) for mark in (ANSWER_MARKS if answers else DOCUMENT_MARKS) if mark in rows.columns}
    return Rows(node, kind, offsets, _numbers(rows, "rank"), ids, text, length, correct, marks, document_ids, listed)


# ---------------------------------------------------------------------------------------------- the drill-down
def _cut(text: np.ndarray, characters: int | None) -> np.ndarray:
    """Each text's first ``characters`` characters (None: whole; missing stays None)."""
    if characters is None or not len(text):
        return text
    cut = pd.Series(text, dtype=object).str.slice(0, characters).to_numpy(dtype=object, copy=True)
    cut[_missing(text)] = None
    return cut


def _floats(values: np.ndarray) -> list[Any]:
    """float64 values for JSON: NaN (and an infinity) is None."""
    out = values.astype(object)
    out[~np.isfinite(values)] = None
    return list(out.tolist())


def _ranks(values: np.ndarray) -> list[Any]:
    """Ranks for JSON: a whole number as an int, anything else None."""
    out = np.full(len(values), None, dtype=object)
    whole = np.isfinite(values) & (values == np.floor(values))
    out[whole] = values[whole].astype(np.int64).tolist()
    return list(out.tolist())


def _flags(values: np.ndarray) -> list[Any]:
    """1 / 0 / NaN as 1 / 0 / None."""
    out = np.full(len(values), None, dtype=object)
    said = ~np.isnan(values)
    out[said] = values[said].astype(np.int64).tolist()
    return list(out.tolist())


class Detail:
    """Every query's drill-down, columnar, whole texts, shared by the comparison's nodes (row ``q`` is query
    ``ids[q]``; a node's :attr:`Grid.detail` maps its rows here).

    ``answers[r]`` / ``documents[r]`` are run ``r``'s :class:`Rows` (integrated rows, frame order) of the model's
    answer node (the first compared node with answers) and document node (the last compared node with documents
    only: what the answers read); the gold answers, gold documents (their ids, and their texts where the frame's
    ``gold_contexts`` align with them) and meta of a query are read from the first run holding it, each gold answer
    and document once (empty ones left out).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> from evalframe.report.model import build_comparison_model
    >>> demo = load_demo_result()
    >>> detail = build_comparison_model({"a": demo, "b": demo}, rounds=10).detail
    >>> query = detail.query(0, characters=20)
    >>> query["query"], query["gold_documents"][0]["id"]
    ('What is the capital of Germany?', 'doc-berlin')
    >>> answer = query["runs"][0]["answers"][0]
    >>> answer["text"], answer["correct"], sorted(answer["marks"])
    ('Berlin', True, ['exact_match', 'f1'])
    >>> document = query["runs"][0]["documents"][0]
    >>> document["rank"], document["text"], document["length"] > 20
    (1, 'Berlin is the capita', True)
    """

    def __init__(self, names: Sequence[str], ids: np.ndarray, query: np.ndarray, gold_answers: Lists,
                 gold_documents: Lists, gold_texts: np.ndarray, meta: dict[str, np.ndarray],
                 answers: Sequence[Rows], documents: Sequence[Rows]) -> None:
        self.names = tuple(names)
        self.ids = ids
        self.query_text = query
        self.gold_answers = gold_answers
        self.gold_documents = gold_documents
        self.gold_texts = gold_texts
        self.gold_lengths = _lengths(gold_texts) if len(gold_texts) else np.zeros(0, dtype=np.int64)
        self.meta = meta
        self.answers = tuple(answers)
        self.documents = tuple(documents)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Detail(names={self.names}, queries={len(self)})"

    def _row(self, row: Any) -> int:
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= int(row) < len(self):
            raise InvalidParameterError(f"row must be a query's row of the detail, 0 to {len(self) - 1}; got {row!r}.",
                                        parameter="row")
        return int(row)

    @staticmethod
    def _characters(characters: Any) -> int | None:
        if characters is not None and (isinstance(characters, bool) or not isinstance(characters, (int, np.integer))
                                       or characters < 0):
            raise InvalidParameterError(f"characters must be a whole number of characters, 0 or more (None: whole "
                                        f"texts); got {characters!r}.", parameter="characters")
        return None if characters is None else int(characters)

    def query(self, row: int, *, characters: int | None = None) -> dict[str, Any]:
        """Query ``row``'s drill-down: its id and text, gold answers and documents, meta, and per run its answers
        and documents (texts cut to ``characters`` as ``text[:characters]``, ``length`` the whole length; None:
        whole), each with its rank, judged-correct mark and gold matches."""
        q, characters = self._row(row), self._characters(characters)
        start, stop = self.gold_documents.offsets[q], self.gold_documents.offsets[q + 1]
        gold_documents = [{"id": str(self.gold_documents.values[i]), "text": _one(self.gold_texts[i], characters),
                           "length": int(self.gold_lengths[i])} for i in range(start, stop)]
        a, b = self.gold_answers.offsets[q], self.gold_answers.offsets[q + 1]
        runs = []
        for name, answers, documents in zip(self.names, self.answers, self.documents):
            listed_answers = []
            for i in range(answers.offsets[q], answers.offsets[q + 1]):
                c, d = answers.document_ids.offsets[i], answers.document_ids.offsets[i + 1]
                listed_answers.append({"rank": _one_rank(answers.rank[i]), "text": _one(answers.text[i], characters) or "",
                                       "length": int(answers.length[i]), "correct": _one_flag(answers.correct[i]),
                                       "document_ids": [str(v) for v in answers.document_ids.values[c:d]],
                                       "marks": _one_marks(answers.marks, i)})
            listed_documents = [{"rank": _one_rank(documents.rank[i]), "id": str(documents.ids[i]),
                                 "text": _one(documents.text[i], characters), "length": int(documents.length[i]),
                                 "correct": _one_flag(documents.correct[i]), "marks": _one_marks(documents.marks, i)}
                                for i in range(documents.offsets[q], documents.offsets[q + 1])]
            runs.append({"name": name, "answers": listed_answers, "documents": listed_documents})
        return {"row": q, "id": str(self.ids[q]), "query": str(self.query_text[q]),
                "gold_answers": [str(v) for v in self.gold_answers.values[a:b]], "gold_documents": gold_documents,
                "meta": {key: str(values[q]) for key, values in self.meta.items() if values[q] is not None},
                "runs": runs}

    def columns(self, *, characters: int | None = 500) -> dict[str, Any]:
        """Every query's drill-down as columns (the DETAIL PAYLOAD: every text once in ``strings``, referenced by
        its index, -1 for a missing one), texts cut to ``characters`` (None: whole), JSON-ready."""
        characters = self._characters(characters)
        pieces: list[np.ndarray] = []

        def text_column(values: np.ndarray) -> slice:
            start = sum(len(piece) for piece in pieces)
            pieces.append(np.asarray(values, dtype=object))
            return slice(start, start + len(values))

        spans: dict[str, Any] = {"id": text_column(self.ids), "query": text_column(self.query_text),
                                 "gold_answers": text_column(self.gold_answers.values),
                                 "gold_id": text_column(self.gold_documents.values),
                                 "gold_text": text_column(_cut(self.gold_texts, characters)),
                                 "meta": {key: text_column(values) for key, values in self.meta.items()}}
        run_spans = []
        for answers, documents in zip(self.answers, self.documents):
            run_spans.append({"answer_text": text_column(_cut(answers.text, characters)),
                              "answer_ids": text_column(answers.document_ids.values),
                              "document_id": text_column(documents.ids),
                              "document_text": text_column(_cut(documents.text, characters))})
        every = np.concatenate(pieces) if pieces else np.empty(0, dtype=object)
        codes, strings = pd.factorize(pd.Series(every, dtype=object), use_na_sentinel=True)
        codes = codes.astype(np.int64)

        def of(span: slice) -> list[int]:
            return list(codes[span].tolist())

        runs = []
        for answers, documents, span in zip(self.answers, self.documents, run_spans):
            runs.append({
                "answers": {"node": answers.node, "offsets": answers.offsets.tolist(), "rank": _ranks(answers.rank),
                            "text": of(span["answer_text"]), "length": answers.length.tolist(),
                            "correct": _flags(answers.correct),
                            "document_ids": {"offsets": answers.document_ids.offsets.tolist(),
                                             "id": of(span["answer_ids"])},
                            "marks": {mark: _floats(values) for mark, values in answers.marks.items()}},
                "documents": {"node": documents.node, "offsets": documents.offsets.tolist(),
                              "rank": _ranks(documents.rank), "id": of(span["document_id"]),
                              "text": of(span["document_text"]), "length": documents.length.tolist(),
                              "correct": _flags(documents.correct),
                              "marks": {mark: _floats(values) for mark, values in documents.marks.items()}}})
        return {"names": list(self.names), "n": len(self), "strings": [str(s) for s in strings.tolist()],
                "characters": characters, "id": of(spans["id"]), "query": of(spans["query"]),
                "gold_answers": {"offsets": self.gold_answers.offsets.tolist(), "text": of(spans["gold_answers"])},
                "gold_documents": {"offsets": self.gold_documents.offsets.tolist(), "id": of(spans["gold_id"]),
                                   "text": of(spans["gold_text"]), "length": self.gold_lengths.tolist()},
                "meta": {"keys": list(self.meta), "values": [of(span) for span in spans["meta"].values()]},
                "runs": runs}


def _one(value: Any, characters: int | None) -> str | None:
    if value is None:
        return None
    return str(value) if characters is None else str(value)[:characters]


def _one_rank(value: float) -> int | None:
    return int(value) if value == value and float(value).is_integer() else None


def _one_flag(value: float) -> bool | None:
    return None if value != value else bool(value >= 1.0)


def _one_marks(marks: Mapping[str, np.ndarray], i: int) -> dict[str, float]:
    return {mark: float(values[i]) for mark, values in marks.items() if values[i] == values[i]}


def _meta(cells: np.ndarray, ids: np.ndarray) -> dict[str, np.ndarray]:
    """Each meta key's values per query (str; None where a query's meta lacks it), parsing each distinct meta once."""
    if not len(cells):
        return {}
    try:
        codes, distinct = pd.factorize(pd.Series(cells, dtype=object), use_na_sentinel=True)
    except TypeError:  # dict cells (a frame built by hand): as JSON text
        textual = [json.dumps(cell, sort_keys=True) if isinstance(cell, dict) else cell for cell in cells.tolist()]
        codes, distinct = pd.factorize(pd.Series(textual, dtype=object), use_na_sentinel=True)
    seen, first = np.unique(codes, return_index=True)
    first = first[seen >= 0]
    parsed = [parsed_meta(value, ids[at]) for value, at in zip(distinct.tolist(), first.tolist())]
    keys = list(dict.fromkeys(str(key) for meta in parsed for key in meta))
    out = {}
    for key in keys:
        values = [meta.get(key) for meta in parsed]
        shown = np.array([None if v is None else v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                          for v in values] + [None], dtype=object)
        out[key] = shown[codes]
    return out


def build_detail(names: Sequence[str], ids: pd.Index, query: np.ndarray, answers: Sequence[tuple[pd.DataFrame, Rows]],
                 documents: Sequence[tuple[pd.DataFrame, Rows]]) -> Detail:
    """The :class:`Detail` of the queries ``ids`` (in this order; ``query`` their texts) from each run's answer and
    document row frames and their :class:`Rows`: the gold and meta of a query from the first frame holding it."""
    n = len(ids)
    taken = np.zeros(n, dtype=bool)
    cells = {column: np.full(n, None, dtype=object) for column in ("gold_answers", "gold_document_ids", "gold_contexts",
                                                                   "meta")}
    for frame, _ in [pair for pairs in zip(answers, documents) for pair in pairs]:
        if not len(frame) or "multilabel_id" not in frame.columns:
            continue
        where = ids.get_indexer(pd.Index(frame["multilabel_id"]))
        found, first = np.unique(where, return_index=True)
        keep = (found >= 0) & ~taken[np.maximum(found, 0)]
        found, first = found[keep], first[keep]
        for column, values in cells.items():
            if column in frame.columns:
                values[found] = frame[column].to_numpy(dtype=object)[first]
        taken[found] = True
    gold_answers, _ = lists(cells["gold_answers"])
    gold_answers, _ = _once(gold_answers, gold_answers.values != "")
    gold_ids, _ = lists(cells["gold_document_ids"])
    contexts, _ = lists(cells["gold_contexts"])
    aligned = np.diff(gold_ids.offsets) == np.diff(contexts.offsets)
    gold_texts = np.full(len(gold_ids.values), None, dtype=object)
    per_item = np.repeat(aligned, np.diff(gold_ids.offsets))
    from_contexts = np.repeat(aligned, np.diff(contexts.offsets))
    gold_texts[per_item] = contexts.values[from_contexts]
    gold_texts[gold_texts == ""] = None
    gold_ids, kept = _once(gold_ids, gold_ids.values != "")
    return Detail(names, texts(ids.to_numpy(dtype=object), ""), query, gold_answers, gold_ids, gold_texts[kept],
                  _meta(cells["meta"], ids.to_numpy(dtype=object)),
                  [rows for _, rows in answers], [rows for _, rows in documents])


def _lengths(texts: np.ndarray) -> np.ndarray:
    """Each text's length in characters, 0 for a missing one (None, NaN): no fillna, whose downcast of an object
    column pandas 2.2 warns about."""
    counted = pd.Series(texts, dtype=object).str.len().to_numpy(dtype=np.float64, na_value=np.nan)
    return np.nan_to_num(counted, nan=0.0).astype(np.int64)


def _once(flat: Lists, said: np.ndarray) -> tuple[Lists, np.ndarray]:
    """Each query's items of ``flat`` where ``said``, each value once (its first): a gold answer or document that
    several gold labels of the query repeat (a Ragas answer beside each of its gold documents) is listed once; and
    the positions kept."""
    n = len(flat.offsets) - 1
    owner = np.repeat(np.arange(n), np.diff(flat.offsets))
    # object values: pandas 3 would store texts as Arrow strings, which cannot hold a lone surrogate
    values = pd.Series(flat.values, dtype=object)
    kept = said & ~pd.DataFrame({"query": owner, "value": values}).duplicated().to_numpy()
    counts = np.bincount(owner[kept], minlength=n)
    return Lists(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), flat.values[kept]), kept
