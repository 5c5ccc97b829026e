"""Scores from elsewhere -> a per-query table: one column per declared score a node holds (``scores.<name>``).

A score declared at level ``"query"`` holds its query's value on every row of the query; a query's value is the one
its rows of the ``eval_mode`` hold (the first that is not NaN). One declared at level ``"row"`` holds a value per row;
a query's value is the mean of the values of its rows of the ``eval_mode`` that the simulated top-k keeps (document
rows: the retriever's, answer rows: the reader's and the retriever's), NaN ignored. A query without a value is NaN,
left out of the mean (:mod:`evalframe.analysis.aggregate`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import pandas as pd

from .prepared import AnswerRows, DocumentRows
from .._validation import short_repr
from ..errors import InvalidParameterError, SchemaError
from ..metrics.registry import DIRECTIONS, SCORE_PREFIX, Metric, score_column, score_measure
from .score_values import score_values
from .repeats import REPEATS_PREFIX, as_lists, check_means, read_repetitions, repeat_means, repeats_column

__all__ = ["score_columns", "node_scores", "score_query_table", "ScoreTable", "read_score_table", "check_bounds",
           "score_frame_values", "KEY_COLUMNS", "RowNames", "table_row", "attach_scores", "declared_by",
           "check_score_names", "ADD_SCORES"]

#: The columns of an ``add_scores`` table that say which query (and row) a value belongs to; every other is a score.
KEY_COLUMNS = ("multilabel_id", "query", "rank", "type", "eval_mode")

#: The documentation of :meth:`evalframe.EvaluationResult.add_scores` (:func:`attach_scores` with
#: :func:`declared_by`), kept beside the checks it describes.
ADD_SCORES = """Attach scores computed elsewhere (a judge's faithfulness, latency) to a node, as measures.

    Each score becomes a float64 column ``scores.<name>`` of the node's frame and a declaration in
    ``result.scores`` (:func:`evalframe.score_measure`); every analysis then reports it beside the node's metrics
    (``docs/scores.md``). Re-adding a score replaces its column and its declaration.

    Parameters
    ----------
    node : str
        The node the scores are of.
    table : DataFrame or dict
        One row per query, identified by a ``multilabel_id`` or a ``query`` (text) column or index; with a
        ``rank`` column (and ``type`` when the node has answer and document rows, ``eval_mode``, default
        ``"integrated"``) one row per frame row (level ``"row"``). Every other column is a score: numbers, or
        their text (``"0.8"``); NaN, None or an empty text: no value; a bool, a list, a complex number, other text
        is refused, named (``docs/scores.md``). A dict ``{score: {multilabel_id or query: value}}`` is read as
        ``pd.DataFrame(table)``. The node's queries the table lacks get NaN; a table without a row is refused.
    direction : {"higher", "lower", "none"} or dict
        Which way is better, for all the scores or per score name (``"none"``: neither, a count such as tokens,
        which then has no worst queries and no wins).
    bounds : (low, high), None or dict
        Declared range (checked here: a value outside is named by table row and column), or None (unbounded);
        for all the scores or per name.
    description : str or dict
        One line per score (or one for all).
    repetition : str, optional
        The column of the table saying which repetition of a judge's scores each row is (repeated judge runs):
        one row per (query, repetition), each score's values of a query kept as its repetitions (in table order;
        NaN: none) in a list column ``repeats.<name>`` beside their mean ``scores.<name>``, which every analysis
        reads (``docs/scores.md#repeated-judge-runs``). Per-query scores only (no ``rank`` column).

    Raises
    ------
    InvalidParameterError
        An unknown node or query, a non-numeric cell or a value out of bounds (named by table row and column), a
        score name clashing with a registry measure or a frame column.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> queries = result.query_metrics("Reader", with_query=True)["query"]
    >>> judge = pd.DataFrame({"query": queries.iloc[:3], "faithfulness": [0.9, 0.2, 0.6]})
    >>> result.add_scores("Reader", judge)
    >>> round(result.calculate_metrics()["Reader"]["faithfulness"], 4)  # (0.9 + 0.2 + 0.6) / 3
    0.5667
    """


def score_columns(columns: object) -> list[str]:
    """The score names of a frame's ``scores.<name>`` columns, in column order.

    Examples
    --------
    >>> score_columns(["rank", "scores.faithfulness", "scores.latency"])
    ['faithfulness', 'latency']
    """
    return [str(c)[len(SCORE_PREFIX):] for c in columns  # type: ignore[attr-defined]
            if isinstance(c, str) and c.startswith(SCORE_PREFIX)]


def node_scores(columns: object, scores: Mapping[str, Metric], *, where: str) -> dict[str, Metric]:
    """The declared scores whose column a node's frame has (``columns``), in column order; a ``scores.<x>`` column
    without a declaration is refused with an error saying how to declare it.

    Examples
    --------
    >>> from evalframe.metrics.registry import score_measure
    >>> list(node_scores(["rank", "scores.f"], {"f": score_measure("f"), "h": score_measure("h")}, where="node 'R'"))
    ['f']
    """
    found: dict[str, Metric] = {}
    for name in score_columns(columns):
        metric = scores.get(name)
        if not isinstance(metric, Metric) or metric.family != "score":
            raise SchemaError(
                f"{where} has a column {score_column(name)!r} but no score {name!r} is declared; declare it with "
                f"result.scores[{name!r}] = evalframe.score_measure({name!r}, direction='higher') (or attach the "
                "values with result.add_scores, which declares them), or drop the column.")
        found[name] = metric
    return found


def score_query_table(frame: pd.DataFrame, scores: Mapping[str, Metric], *, eval_mode: str,
                      documents: tuple[DocumentRows, np.ndarray] | None = None,
                      answers: tuple[AnswerRows, np.ndarray] | None = None,
                      levels: tuple[str, ...] = ("query", "row"), where: str = "the node") -> pd.DataFrame | None:
    """One row per query of ``frame`` with rows in ``eval_mode`` (index ``multilabel_id``, first appearance), one
    column per score of ``scores`` (the node's, :func:`node_scores`) whose level is in ``levels``; None without one.
    A ``scores.<name>`` cell that is no number (a column set by hand) is refused, naming ``where``, its row and column.

    ``documents`` and ``answers``: the prepared rows of the ``eval_mode`` and the mask of those the simulated top-k
    keeps (for the row-level scores).
    """
    chosen = {name: metric for name, metric in scores.items() if metric.level in levels}
    if not chosen or "multilabel_id" not in frame.columns:
        return None
    ids = pd.Series(np.asarray(frame["multilabel_id"], dtype=object))
    if "eval_mode" in frame.columns:
        in_mode = np.asarray(pd.Series(np.asarray(frame["eval_mode"], dtype=object)) == eval_mode)
    else:
        in_mode = np.ones(len(ids), dtype=bool)
    index = pd.Index(pd.unique(ids[in_mode]), name="multilabel_id", dtype=object)
    kept_positions = [np.zeros(0, dtype=np.int64)]
    if documents is not None:
        rows, kept = documents
        kept_positions.append(np.asarray(rows.positions)[np.asarray(rows.order)[kept]])
    if answers is not None:
        answer_rows, answer_kept = answers
        kept_positions.append(np.asarray(answer_rows.positions)[answer_kept])
    row_positions = np.unique(np.concatenate(kept_positions).astype(np.int64))
    out: dict[str, pd.Series] = {}
    for name, metric in chosen.items():
        column = score_column(name)

        def at(i: int, c: str = column) -> str:
            return f"{where}: column {c!r}, row {i} of its frame"

        values = score_values(frame[column], where=at, error=SchemaError)
        if repeats_column(name) in frame.columns:
            values = _repeated_means(frame, name, values, where)
        if metric.level == "query":
            positions = np.flatnonzero(in_mode)
            grouped = pd.Series(values[positions]).groupby(ids.to_numpy()[positions], sort=False).first()
        else:
            grouped = pd.Series(values[row_positions]).groupby(ids.to_numpy()[row_positions], sort=False).mean()
        out[name] = grouped.reindex(index).astype(np.float64)
    return pd.DataFrame(out, index=index)


def _repeated_means(frame: pd.DataFrame, name: str, values: np.ndarray, where: str) -> np.ndarray:
    """``values`` (column ``scores.<name>``) checked against the means of ``repeats.<name>``, each query's lists read
    once (at its first row; every row of a query holds its list): the means, on every row."""
    column = repeats_column(name)
    ids = pd.Series(np.asarray(frame["multilabel_id"], dtype=object))
    codes, _ = pd.factorize(ids)
    firsts = np.flatnonzero(~ids.duplicated().to_numpy())
    cells = pd.Series(np.asarray(frame[column], dtype=object)[firsts], dtype=object)
    read, lengths = read_repetitions(cells, where=lambda i, j: f"{where}: column {column!r}, row {int(firsts[i])} "
                                     "of its frame" + (f", repetition {j + 1}" if j >= 0 else ""), error=SchemaError)
    means = repeat_means(read, lengths)[codes]
    check_means(means, values, name=name, where=where)
    return means


@dataclass(frozen=True)
class ScoreTable:
    """An ``add_scores`` table read: how it names its queries (``"multilabel_id"`` or ``"query"``), the key of each of
    its rows (and, per row, its ``rank``, ``type``, ``eval_mode`` when it has a ``rank`` column), and each score's
    values (float64, NaN: none). ``labels``: how errors name each table row."""

    by: str
    keys: np.ndarray
    rank: np.ndarray | None
    type: np.ndarray | None
    eval_mode: np.ndarray | None
    values: dict[str, np.ndarray]
    labels: Sequence[str]
    #: With ``add_scores(..., repetition=...)``: the repetition of each table row, until grouped by
    #: :func:`by_repetition`; then each score's repetitions, a list per (query) row, beside its mean in ``values``.
    repetition: np.ndarray | None = None
    repeats: dict[str, np.ndarray] | None = None

    @property
    def level(self) -> str:
        """``"row"`` with a ``rank`` column, else ``"query"``."""
        return "query" if self.rank is None else "row"


class RowNames(Sequence[str]):
    """How errors name each row of an ``add_scores`` table, made when an error asks (a million-row table does not
    hold a million names): ``naming(row, index)``, ``row`` counted from 1, ``index`` the row's index label.

    A callable, never a template: a node or query name holding braces (``G{0}``) is named as it is.

    Examples
    --------
    >>> names = RowNames(pd.RangeIndex(3), table_row)
    >>> len(names), names[1]
    (3, 'add_scores: table row 2 (index 1)')
    """

    def __init__(self, index: pd.Index, naming: Callable[[int, Any], str]) -> None:
        self._index = index
        self._naming = naming

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        return self._naming(i + 1, self._index[i])


def table_row(row: int, index: Any) -> str:
    """How add_scores' errors name a row of its table: ``add_scores: table row 2 (index 'q7')``."""
    return "add_scores: table row " + str(row) + " (index " + short_repr(index, 40) + ")"


def read_score_table(table: Any, frame_ids: pd.Index, *, where: str,
                     naming: Callable[[int, Any], str] = table_row, repetition: str | None = None) -> ScoreTable:
    """``table`` (a DataFrame, or a mapping ``{score: {query: value}}``) read and checked: its key columns, its score
    columns as float64 by :func:`~evalframe.frames.score_values.score_values` (a cell that is no number is named by
    table row and column). ``frame_ids``: the node's multilabel_ids (an unnamed index is read as multilabel_ids when
    it holds only those, else as query texts). ``naming(row, index)``: how errors name a table row (``row``: counted
    from 1, ``index``: its index label); a table without a row is refused (``where`` names the node).
    ``repetition``: the column saying which repetition of its query's scores each row is (kept apart, not a score)."""
    if isinstance(table, Mapping) and not isinstance(table, pd.DataFrame):
        check_score_names(str(key) for key in table if str(key) not in KEY_COLUMNS)
        try:
            table = pd.DataFrame({str(k): pd.Series(v, dtype=object) for k, v in table.items()})
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"add_scores: table must be a DataFrame or a dict {{score: {{query: value}}}}; "
                                        f"{exc}.", parameter="table") from None
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(f"add_scores: table must be a pandas DataFrame or a dict {{score: {{query: value}}}}; "
                                    f"got {type(table).__name__}.", parameter="table")
    if isinstance(table.index, pd.MultiIndex) or table.index.name in KEY_COLUMNS:
        table = table.reset_index()
    columns = [str(c) for c in table.columns]
    check_score_names(column for column in columns if column not in KEY_COLUMNS)
    if len(set(columns)) != len(columns):
        raise InvalidParameterError(f"add_scores: the table names a column twice: {columns}.", parameter="table")
    table = table.set_axis(columns, axis=1)
    labels = RowNames(table.index, naming)
    repetitions = None
    if repetition is not None:
        if not isinstance(repetition, str) or repetition not in columns or repetition in KEY_COLUMNS:
            raise InvalidParameterError(
                f"add_scores: repetition={repetition!r} names no column of the table saying which repetition each "
                f"row is; its columns are {columns}.", parameter="repetition")
        repetitions = table[repetition].to_numpy(dtype=object)
        missing = np.flatnonzero(pd.isna(repetitions))
        if len(missing):
            raise InvalidParameterError(f"{labels[missing[0]]}, column {repetition!r}: no repetition given (a row is "
                                        "one repetition of its query's scores).", parameter="table")
        unhashable = [i for i, label in enumerate(repetitions) if not _hashable(label)][:1]
        if unhashable:  # a list or a dict cannot label a repetition (two rows of one query are told apart by it)
            raise InvalidParameterError(
                f"{labels[unhashable[0]]}, column {repetition!r}: a repetition is labelled by a number or a text; got "
                f"{type(repetitions[unhashable[0]]).__name__} {repetitions[unhashable[0]]!r:.60}.", parameter="table")
        columns = [column for column in columns if column != repetition]
        table = table[columns]
    if "multilabel_id" in table.columns:
        by, keys = "multilabel_id", table["multilabel_id"].to_numpy(dtype=object)
    elif "query" in table.columns:
        by, keys = "query", table["query"].to_numpy(dtype=object)
    else:
        keys = table.index.to_numpy(dtype=object)
        by = "multilabel_id" if len(keys) and pd.Index(keys).isin(frame_ids.astype(object)).all() else "query"
    rank = type_ = eval_mode = None
    if "rank" in table.columns:
        rank = pd.to_numeric(table["rank"], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(np.isnan(rank))
        if len(bad):
            raise InvalidParameterError(f"{labels[bad[0]]}, column 'rank': not a rank "
                                        f"({short_repr(table['rank'].iloc[bad[0]])}).", parameter="table")
        if "type" in table.columns:
            type_ = table["type"].to_numpy(dtype=object)
        eval_mode = (table["eval_mode"].to_numpy(dtype=object) if "eval_mode" in table.columns
                     else np.full(len(table), "integrated", dtype=object))
    else:
        for column in ("type", "eval_mode"):
            if column in table.columns:
                raise InvalidParameterError(f"add_scores: the table has a {column!r} column but no 'rank' column; give "
                                            f"'rank' (with 'type' and 'eval_mode') for per-row scores, or drop "
                                            f"{column!r} for per-query ones.", parameter="table")
    values: dict[str, np.ndarray] = {}
    for column in columns:
        if column not in KEY_COLUMNS:
            def cell(i: int, c: str = column) -> str:
                return f"{labels[i]}, column {c!r}"

            values[column] = score_values(table[column], where=cell, parameter="table")
    if not values:
        raise InvalidParameterError(f"add_scores: the table holds no score column, only the keys {columns}; add a "
                                    "column per score.", parameter="table")
    if not len(table):
        raise InvalidParameterError(f"add_scores: the table holds no row, so no query of {where} gets a value of "
                                    f"{', '.join(map(repr, values))}; give one row per query (NaN or None: no value).",
                                    parameter="table")
    if repetitions is not None and rank is not None:
        raise InvalidParameterError("add_scores: repetitions are of per-query scores; a table with a 'rank' column "
                                    "(per-row scores) cannot give them (drop 'rank', or repetition=None).",
                                    parameter="repetition")
    return ScoreTable(by, keys, rank, type_, eval_mode, values, labels, repetitions)


def by_repetition(read: ScoreTable) -> ScoreTable:
    """A table of one row per (query, repetition) as one row per query: each score's values of the query's rows, in
    table order, as its repetitions (NaN left out), and their mean. A query's repetition given twice is refused."""
    assert read.repetition is not None
    codes, _ = pd.factorize(pd.Series(read.keys, dtype=object), use_na_sentinel=False)
    twice = pd.DataFrame({"query": codes, "repetition": pd.Series(read.repetition, dtype=object)}).duplicated()
    if twice.any():
        j = int(np.flatnonzero(twice.to_numpy())[0])
        i = int(np.flatnonzero((codes == codes[j]) & (pd.Series(read.repetition, dtype=object) ==
                                                       read.repetition[j]).to_numpy())[0])
        raise InvalidParameterError(f"{read.labels[i]} and {read.labels[j]} give repetition "
                                    f"{short_repr(read.repetition[j])} of one query ({read.by} "
                                    f"{short_repr(read.keys[j])}); give each repetition of a query one row.",
                                    parameter="table")
    order = np.argsort(codes, kind="stable")
    firsts = order[np.concatenate([[True], codes[order][1:] != codes[order][:-1]])] if len(order) else order
    groups = len(firsts)
    means: dict[str, np.ndarray] = {}
    lists: dict[str, np.ndarray] = {}
    for name, values in read.values.items():
        ordered = values[order]
        kept = ~np.isnan(ordered)
        lengths = np.bincount(codes[order][kept], minlength=groups).astype(np.int64)
        means[name] = repeat_means(ordered[kept], lengths)
        lists[name] = as_lists(ordered[kept], lengths)
        lists[name][lengths == 0] = None  # a query without a value: none, as a query the table lacks
    named = RowNames(pd.Index(firsts), lambda _, row: read.labels[int(row)])  # each query by its first row's name
    return ScoreTable(read.by, read.keys[firsts], None, None, None, means, named, None, lists)


def check_bounds(values: np.ndarray, metric: Metric, labels: Sequence[str], *, column: str) -> None:
    """Refuse a value outside the declared bounds (or infinite), naming its row (``labels``) and ``column``."""
    finite = np.isfinite(values) | np.isnan(values)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise InvalidParameterError(f"{labels[i]}, column {column!r}: {float(values[i])} is not a finite number; a score is a "
                                    "finite number, or NaN for no value.", parameter="table")
    if metric.bounds is not None:
        low, high = metric.bounds
        outside = np.flatnonzero(~np.isnan(values) & ((values < low) | (values > high)))
        if len(outside):
            i = int(outside[0])
            raise InvalidParameterError(
                f"{labels[i]}, column {column!r}: {float(values[i])!r} lies outside the bounds [{low:g}, {high:g}] declared "
                f"for score {metric.name!r}; fix the value or declare other bounds (bounds=None: unbounded).",
                parameter="table")


def score_frame_values(frame: pd.DataFrame, read: ScoreTable, *, node: str) -> dict[str, np.ndarray]:
    """Each score of ``read`` as a float64 array, one value per row of ``frame`` (NaN: none): a per-query score on
    every row of its query, a per-row score on its row. An unknown query (or row) is refused, naming it."""
    ids = pd.Series(np.asarray(frame["multilabel_id"], dtype=object))
    if read.by == "query":
        if "query" not in frame.columns:
            raise InvalidParameterError(f"add_scores: node {node!r} has no 'query' column to match the table's query "
                                        "texts; identify the queries by a 'multilabel_id' column.", parameter="table")
        pairs = pd.DataFrame({"query": np.asarray(frame["query"], dtype=object), "id": ids}).drop_duplicates()
        names_two = pairs[pairs["query"].duplicated(keep=False)]
        asked = names_two[names_two["query"].isin(read.keys)]
        if len(asked):
            text = asked["query"].iloc[0]
            both = asked.loc[asked["query"] == text, "id"].tolist()
            raise InvalidParameterError(
                f"add_scores: the query text {short_repr(text)} names {len(both)} queries of node {node!r} (multilabel_id "
                f"{both[0]!r} and {both[1]!r}: the same text with other filters); identify them by a 'multilabel_id' "
                "column.", parameter="table")
        to_id = dict(zip(pairs["query"], pairs["id"]))
        keys = np.array([to_id.get(k) for k in read.keys], dtype=object)
        unknown = [i for i, k in enumerate(keys) if k is None]
    else:
        keys = read.keys
        known = set(ids.tolist())
        unknown = [i for i, k in enumerate(keys) if k not in known]
    if unknown:
        i = unknown[0]
        raise InvalidParameterError(f"{read.labels[i]}: node {node!r} has no query with {read.by} "
                                    f"{short_repr(read.keys[i])}.", parameter="table")
    if read.rank is None:
        first = pd.Series(range(len(keys))).groupby(keys).first()
        dupes = pd.Index(keys)[pd.Index(keys).duplicated()]
        if len(dupes):
            rows = [read.labels[i] for i, k in enumerate(keys) if k == dupes[0]]
            raise InvalidParameterError(f"{rows[0]} and {rows[1]} are one query ({read.by} "
                                        f"{short_repr(read.keys[np.flatnonzero(keys == dupes[0])[0]])}); give each "
                                        "query one row.", parameter="table")
        at = pd.Index(first.index).get_indexer(ids.to_numpy())
        out = {name: np.where(at >= 0, values[first.to_numpy()[np.maximum(at, 0)]], np.nan)
               for name, values in read.values.items()}
        for name, lists in (read.repeats or {}).items():
            cells = lists[first.to_numpy()[np.maximum(at, 0)]]
            cells[at < 0] = None
            out[repeats_column(name)] = cells
        return out
    key_columns = ["multilabel_id", "rank", "eval_mode"]
    frame_keys = pd.DataFrame({"multilabel_id": ids, "rank": pd.to_numeric(pd.Series(np.asarray(frame["rank"])),
                                                                             errors="coerce").to_numpy(np.float64),
                               "eval_mode": (np.asarray(frame["eval_mode"], dtype=object) if "eval_mode" in frame.columns
                                             else np.full(len(ids), "integrated", dtype=object))})
    table_keys = pd.DataFrame({"multilabel_id": keys, "rank": read.rank, "eval_mode": read.eval_mode})
    types: list[Any] = list(pd.unique(np.asarray(frame["type"], dtype=object))) if "type" in frame.columns else []
    if read.type is not None:
        key_columns.append("type")
        frame_keys["type"] = np.asarray(frame["type"], dtype=object)
        table_keys["type"] = read.type
    elif len(types) > 1:
        raise InvalidParameterError(f"add_scores: node {node!r} has {' and '.join(map(str, types))} rows; give the table "
                                    "a 'type' column to say which row each value belongs to.", parameter="table")
    if table_keys.duplicated().any():
        i = int(np.flatnonzero(table_keys.duplicated().to_numpy())[0])
        raise InvalidParameterError(f"{read.labels[i]} names a row named before; give each row one value.",
                                    parameter="table")
    at = pd.MultiIndex.from_frame(table_keys[key_columns]).get_indexer(pd.MultiIndex.from_frame(frame_keys[key_columns]))
    found = pd.MultiIndex.from_frame(table_keys[key_columns]).isin(pd.MultiIndex.from_frame(frame_keys[key_columns]))
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        row = ", ".join(f"{c} {short_repr(table_keys[c].iloc[i])}" for c in key_columns)
        raise InvalidParameterError(f"{read.labels[i]}: node {node!r} has no row with {row}.",
                                    parameter="table")
    return {name: np.where(at >= 0, values[np.maximum(at, 0)], np.nan) for name, values in read.values.items()}


def check_score_names(names: Iterable[str]) -> None:
    """Refuse, before a frame is built of them, score names that are no text UTF-8 encodes (a lone surrogate, JSON's
    ``"\\ud800"``): pandas' text columns would fail deep inside; refused by the rule of a score's name
    (:func:`evalframe.score_measure`)."""
    for name in names:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            score_measure(name)  # refuses it: a score's name holds letters, digits, '_' and '-'
            raise AssertionError(f"score_measure accepted {name!r}") from None


def declared_by(direction: str | Mapping[str, str] = "higher",
                bounds: tuple[float, float] | None | Mapping[str, tuple[float, float] | None] = None,
                description: str | Mapping[str, str] = "", *, caller: str = "add_scores"
                ) -> Callable[[str, str], Metric]:
    """``add_scores``' ``direction``, ``bounds`` and ``description`` (one for all the scores, or a dict per score
    name) as ``declare(name, level)``, each score's declaration (:func:`evalframe.score_measure`).

    Examples
    --------
    >>> declare = declared_by({"latency": "lower"}, bounds=(0, 60))
    >>> metric = declare("latency", "query")
    >>> metric.direction, metric.bounds, declare("rating", "row").direction
    ('lower', (0.0, 60.0), 'higher')
    """
    def declare(name: str, level: str) -> Metric:
        way = direction.get(name, "higher") if isinstance(direction, Mapping) else direction
        if way not in DIRECTIONS:
            raise InvalidParameterError(f"{caller}: direction of score {name!r} must be one of {list(DIRECTIONS)}; "
                                        f"got {way!r}.", parameter="direction")
        limits = bounds.get(name) if isinstance(bounds, Mapping) else bounds
        text = description.get(name, "") if isinstance(description, Mapping) else description
        return score_measure(name, direction=way, bounds=limits, level=level, description=text)

    return declare


def attach_scores(frame: pd.DataFrame, table: Any, declare: Callable[[str, str], Metric], *, node: str,
                  naming: Callable[[int, Any], str] = table_row,
                  repetition: str | None = None) -> tuple[pd.DataFrame, dict[str, Metric]]:
    """``frame`` with the scores of ``table`` (``add_scores``' table) as float64 ``scores.<name>`` columns, and their
    declarations (``declare(name, level)``); every value checked first (a number, within its bounds, of a query or
    row the frame has), each error naming the table row (``naming(row, index)``) and column.

    Examples
    --------
    >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "rank": [1, 2, 1]})
    >>> scored, declared = attach_scores(frame, pd.DataFrame({"multilabel_id": ["q2"], "judge": [0.5]}),
    ...                                  declared_by(), node="R")
    >>> scored["scores.judge"].tolist(), declared["judge"].level
    ([nan, nan, 0.5], 'query')
    """
    if "multilabel_id" not in frame.columns:
        raise InvalidParameterError(f"add_scores: node {node!r} has no 'multilabel_id' column.", parameter="node")
    read = read_score_table(table, pd.Index(frame["multilabel_id"].astype(object).unique()), where=f"node {node!r}",
                            naming=naming, repetition=repetition)
    declared: dict[str, Metric] = {}
    for name, values in read.values.items():
        metric = declare(name, read.level)
        check_bounds(values, metric, read.labels, column=name)
        declared[name] = metric
    if read.repetition is not None:
        read = by_repetition(read)
    columns = score_frame_values(frame, read, node=node)
    frame = frame.drop(columns=[repeats_column(name) for name in read.values if repeats_column(name) in frame.columns])
    for name, values in columns.items():
        if name.startswith(REPEATS_PREFIX):
            frame[name] = values
        else:
            frame[score_column(name)] = values.astype("float64")
    return frame, declared


def _hashable(value: object) -> bool:
    """Whether ``value`` can label a repetition (a tuple holding a list cannot, although it is a tuple)."""
    if not isinstance(value, Hashable):
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True
