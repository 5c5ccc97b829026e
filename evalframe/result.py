"""EvaluationResult: one DataFrame per pipeline node, and the analyses on them.

A thin facade: it validates arguments, selects rows and columns, and hands arrays to the
kernels in :mod:`evalframe.metrics`; per-query tables are the shared currency of
``calculate_metrics``, ``query_metrics`` and ``wrong_examples``.
"""

from __future__ import annotations

import functools
import itertools
import numbers
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _validation as check
from .frames.arrays import DistinctLists
from .frames.witness import ColumnWitness, holds, witness
from .columns import (
    ANSWER_SCOPES,
    MATCH_LIST_COLUMNS,
    CRITERIA,
    DEFAULT_CONTEXT_MATCHING_THRESHOLD,
    DOCUMENT_SCOPES,
    EVAL_MODES,
    AnswerScope,
    DocumentScope,
    EvalMode,
    relevance_criterion,
)
from .errors import InvalidParameterError
from .frames.prepared import AnswerRows, DocumentRows, prepare_answer_rows, prepare_document_rows
from .frames.tables import answer_query_metrics, document_query_metrics
from .metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS
from .frames.topk import RetrieverJoin, answer_rows_kept, join_retriever, row_positions
from .analysis.slices import SliceKey, beside, check_by, query_attributes, slice_means

__all__ = ["EvaluationResult"]

_DOCUMENT_COLUMNS = ("multilabel_id", "rank", "document_id", "gold_document_ids", "gold_custom_document_ids")
_ANSWER_DROP = ("node", "query", "type", "gold_answers", "gold_offsets_in_documents", "gold_document_ids")
_DOCUMENT_DROP = ("node", "query", "multilabel_id", "filters", "type", "gold_document_ids", "gold_contexts")
# the columns cached arrays are made from (relevance and metric columns are read on every call instead)
_POSITION_COLUMNS = ("multilabel_id", "type", "eval_mode", "rank")
_DOCUMENT_KEY_COLUMNS = (_POSITION_COLUMNS + ("document_id", "gold_document_ids", "gold_custom_document_ids")
                         + tuple(MATCH_LIST_COLUMNS.values()))


class _NodeCache:
    """A node's prepared arrays, each with the names of the columns it was made from, and those columns' witnesses."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.entries: dict[Any, Any] = {}
        self.columns_of: dict[Any, tuple[str, ...]] = {}
        self.witnesses: dict[str, ColumnWitness] = {}
        self.checked = -1

    def put(self, key: Any, value: Any, columns: tuple[str, ...]) -> None:
        for column in columns:
            if column not in self.witnesses:
                self.witnesses[column] = witness(self.frame, column)
        self.entries[key] = value
        self.columns_of[key] = columns

    def drop_stale(self) -> None:
        """Drop the entries made from a column whose content changed, and those columns' witnesses."""
        changed = {column for column, w in self.witnesses.items() if not holds(w, self.frame, column)}
        if not changed:
            return
        for column in changed:
            del self.witnesses[column]
        for key in [k for k, columns in self.columns_of.items() if changed.intersection(columns)]:
            del self.entries[key], self.columns_of[key]


_CALLS = itertools.count(1)


def _fresh(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a public entry point: its nodes' caches are checked against the frames once, at first use.

    Nested public calls share the outer call's check (the frames cannot change in between).
    """

    @functools.wraps(method)
    def wrapper(self: EvaluationResult, *args: Any, **kwargs: Any) -> Any:
        if self._call:
            return method(self, *args, **kwargs)
        self._call = next(_CALLS)
        try:
            return method(self, *args, **kwargs)
        finally:
            self._call = 0

    return wrapper


@dataclass(frozen=True)
class _Params:
    simulated_top_k_reader: int
    simulated_top_k_retriever: int
    document_scope: str
    eval_mode: str
    answer_scope: str
    context_matching_threshold: float
    retriever_node: str | None

    @property
    def criterion(self) -> str:
        return relevance_criterion(self.document_scope, self.answer_scope)


class EvaluationResult(Mapping):
    """The evaluation of a pipeline: one DataFrame per node, in Haystack 1.x's schema.

    Behaves like a read-only dict of node name -> DataFrame (``result["Reader"]``, ``in``,
    ``len``, iteration over node names), plus ``append`` and ``result[node] = frame``.

    Parameters
    ----------
    node_results : dict of str to pandas.DataFrame, optional
        The node frames (see ``docs/metrics.md`` for the columns).
    matching : dict, optional
        The matching parameters the frames were built with (``context_matching_threshold``,
        ``context_matching_min_length``, ``context_matching_boost_split_overlaps``,
        ``custom_document_id_field``); saved in ``evalframe.json`` and used as defaults.
    list_codings : dict of str to dict of str to DistinctLists, optional
        ``{node: {column: codes}}``: a list column's distinct cells and a code per row, as a loader
        read them (:class:`evalframe.frames.arrays.DistinctLists`), so that work per cell is done once
        per distinct cell. A coding is used while its column holds the cells it was made from.

    Examples
    --------
    >>> from evalframe import EvaluationResult, load_demo_result
    >>> result = load_demo_result()
    >>> list(result)
    ['Retriever', 'Reader']
    >>> round(result.calculate_metrics()["Retriever"]["recall_single_hit"], 4)
    0.875
    """

    def __init__(self, node_results: Mapping[str, pd.DataFrame] | None = None, *, matching: Mapping[str, Any] | None = None,
                 list_codings: Mapping[str, Mapping[str, DistinctLists]] | None = None) -> None:
        self.node_results: dict[str, pd.DataFrame] = {}
        self._cache: dict[str, _NodeCache] = {}
        self._call = 0  # the public call being served (0: none), see _fresh
        for node, frame in (node_results or {}).items():
            self[node] = frame
        self.matching: dict[str, Any] = dict(matching or {})
        for node, columns in (list_codings or {}).items():
            for column, lists in columns.items():
                if node in self.node_results and column in self.node_results[node].columns:
                    self._node_cache(node).put(("lists", column), lists, (column,))

    # ------------------------------------------------------------------ dict-like access
    def __getitem__(self, node: str) -> pd.DataFrame:
        return self.node_results[check.check_node(node, list(self.node_results))]

    def __setitem__(self, node: str, frame: pd.DataFrame) -> None:
        if not isinstance(node, str) or not node:
            raise InvalidParameterError(f"node names must be non-empty strings; got {node!r}.")
        if not isinstance(frame, pd.DataFrame):
            raise InvalidParameterError(
                f"the result of node {node!r} must be a pandas DataFrame; got {type(frame).__name__}."
            )
        self.node_results[node] = frame
        self._cache.pop(node, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.node_results)

    def __len__(self) -> int:
        return len(self.node_results)

    def __contains__(self, node: object) -> bool:
        return node in self.node_results

    def append(self, node: str, frame: pd.DataFrame) -> None:
        """Add ``frame``'s rows to ``node`` (creating the node); empty frames are ignored.

        Examples
        --------
        >>> import pandas as pd
        >>> r = EvaluationResult()
        >>> r.append("Retriever", pd.DataFrame({"multilabel_id": ["q1"], "type": ["document"], "rank": [1]}))
        >>> len(r["Retriever"])
        1
        """
        if not isinstance(frame, pd.DataFrame):
            raise InvalidParameterError(f"append needs a pandas DataFrame for node {node!r}; got {type(frame).__name__}.")
        if len(frame) == 0:
            return
        if node in self.node_results:
            self[node] = pd.concat([self.node_results[node], frame]).reset_index(drop=True)
        else:
            self[node] = frame

    def __repr__(self) -> str:
        nodes = ", ".join(f"{node}: {len(frame)} rows" for node, frame in self.node_results.items())
        return f"<EvaluationResult: {len(self)} node(s){' (' + nodes + ')' if nodes else ''}>"

    @_fresh
    def _repr_html_(self) -> str:
        """Jupyter display: per node its rows, queries, eval modes and headline metrics (integrated)."""
        import html

        try:
            headline = self.calculate_metrics()
        except (ValueError, KeyError):  # a frame the metrics cannot read still displays
            headline = {}
        rows = []
        for node, frame in self.node_results.items():
            queries = f"{frame['multilabel_id'].nunique():,}" if "multilabel_id" in frame.columns else "?"
            modes = ", ".join(sorted(map(str, frame["eval_mode"].dropna().unique()))) if "eval_mode" in frame.columns else ""
            metrics = ", ".join(f"{m} {v:.3f}" for m, v in headline.get(node, {}).items()
                                if m in ("recall_single_hit", "mrr", "ndcg", "exact_match", "f1", "sas"))
            rows.append(f"<tr><td><b>{html.escape(node)}</b></td><td>{len(frame):,}</td><td>{queries}</td>"
                        f"<td>{html.escape(modes)}</td><td>{html.escape(metrics)}</td></tr>")
        return ("<div><b>EvaluationResult</b> with " + f"{len(self)} node(s)"
                + "<table><tr><th>node</th><th>rows</th><th>queries</th><th>eval modes</th><th>metrics (integrated)</th></tr>"
                + "".join(rows) + "</table></div>")

    @_fresh
    def metrics_frame(self, **kwargs: Any) -> pd.DataFrame:
        """:meth:`calculate_metrics` as a DataFrame: one row per node, one column per metric.

        Takes the arguments of :meth:`calculate_metrics`.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> float(load_demo_result().metrics_frame().loc["Reader", "exact_match"])
        0.75
        """
        table = pd.DataFrame.from_dict(self.calculate_metrics(**kwargs), orient="index")
        table.index.name = "node"
        return table

    # ------------------------------------------------------------------ argument handling
    def _params(
        self,
        simulated_top_k_reader: object,
        simulated_top_k_retriever: object,
        document_scope: object,
        eval_mode: object,
        answer_scope: object,
        context_matching_threshold: object,
        retriever_node: object,
    ) -> _Params:
        threshold = context_matching_threshold
        if threshold is None:
            threshold = self.matching.get("context_matching_threshold", DEFAULT_CONTEXT_MATCHING_THRESHOLD)
        if retriever_node is not None:
            check.check_node(retriever_node, list(self.node_results), name="retriever_node")
            if not self._has_rows(retriever_node, "document"):  # type: ignore[arg-type]
                # its documents would simulate nothing: every answer with a document id would silently drop out
                raise InvalidParameterError(
                    f"retriever_node must name a node with document rows; {retriever_node!r} has none. "
                    f"Nodes with document rows: {self._document_nodes() or 'none'}."
                )
        return _Params(
            simulated_top_k_reader=check.check_top_k(simulated_top_k_reader, name="simulated_top_k_reader"),
            simulated_top_k_retriever=check.check_top_k(simulated_top_k_retriever, name="simulated_top_k_retriever"),
            document_scope=check.check_choice(document_scope, DOCUMENT_SCOPES, name="document_scope"),
            eval_mode=check.check_choice(eval_mode, EVAL_MODES, name="eval_mode"),
            answer_scope=check.check_choice(answer_scope, ANSWER_SCOPES, name="answer_scope"),
            context_matching_threshold=check.check_finite_in_range(threshold, name="context_matching_threshold",
                                                                   low=0.0, high=100.0),
            retriever_node=retriever_node,  # type: ignore[arg-type]
        )

    def _warn_scope_mismatch(self, params: _Params) -> None:
        if params.document_scope not in ("answer", "document_id_or_answer") and params.answer_scope != "any":
            warnings.warn(
                f"document_scope={params.document_scope!r} ignores answer_scope={params.answer_scope!r} for document "
                "metrics, so answer and document metrics may judge correctness differently; use document_scope "
                "'answer' or 'document_id_or_answer' to apply the answer scope to documents too.",
                UserWarning,
                stacklevel=3,
            )

    # ------------------------------------------------------------------ prepared arrays (cached)
    def _node_cache(self, node: str) -> _NodeCache:
        """The prepared arrays of a node that still match its frame's current content.

        Every entry is kept with a witness of each column it was made from (:mod:`evalframe.frames.witness`);
        entries whose columns changed since (assignment, ``.loc`` / ``.iloc`` / ``.at`` edits, a replaced
        list cell) are dropped here and rebuilt on use. Inside one public call the frames cannot change,
        so a node is checked once per call (see :func:`_fresh`); outside a call, on every access.
        """
        frame = self.node_results[node]
        cache = self._cache.get(node)
        if cache is None or cache.frame is not frame:
            cache = self._cache[node] = _NodeCache(frame)
            cache.checked = self._call
        elif cache.checked != self._call or self._call == 0:
            cache.drop_stale()
            cache.checked = self._call
        return cache

    def clear_cache(self) -> None:
        """Forget every prepared array (no longer needed: edited frames are noticed on the next call).

        Cached arrays are checked against the columns they were made from on every call and rebuilt
        when those changed; this only frees their memory.
        """
        self._cache.clear()

    def _distinct_lists(self, node: str, column: str) -> DistinctLists:
        """A list column's distinct cells and a code per row: the loader's coding, else every row its own cell."""
        cache = self._node_cache(node)
        key = ("lists", column)
        if key not in cache.entries:
            cache.put(key, DistinctLists.of_rows(self.node_results[node][column]), (column,))
        return cache.entries[key]

    def _positions(self, node: str, row_type: str, eval_mode: str) -> np.ndarray:
        cache = self._node_cache(node)
        key = ("positions", row_type, eval_mode)
        if key not in cache.entries:
            cache.put(key, row_positions(self.node_results[node], row_type, eval_mode, where=f"node {node!r}"),
                      _POSITION_COLUMNS)
        return cache.entries[key]

    def _rows(self, node: str, row_type: str, eval_mode: str) -> pd.DataFrame:
        """The frame's own rows of one type and eval_mode (for listing them)."""
        return self.node_results[node].iloc[self._positions(node, row_type, eval_mode)]

    def _document_rows(self, node: str, eval_mode: str, parts: tuple[str, ...] = ()) -> DocumentRows | None:
        """Prepared document rows laid out for at least the match lists ``parts`` (re-laid out if needed)."""
        cache = self._node_cache(node)
        key = ("documents", eval_mode)
        rows = cache.entries.get(key)
        if key not in cache.entries or (rows is not None and not set(parts) <= rows.parts):
            positions = self._positions(node, "document", eval_mode)
            where = f"node {node!r} (document rows, eval_mode={eval_mode!r})"
            present = [p for p, column in MATCH_LIST_COLUMNS.items() if column in self.node_results[node].columns]
            layout = tuple(sorted(set(parts) | set(present) | (rows.parts if rows is not None else set())))
            lists = lambda column: self._distinct_lists(node, column)  # noqa: E731
            cache.put(key, (prepare_document_rows(self.node_results[node], positions, where=where, parts=layout,
                                                  lists=lists) if len(positions) else None), _DOCUMENT_KEY_COLUMNS)
        return cache.entries[key]

    def _answer_rows(self, node: str, eval_mode: str) -> AnswerRows | None:
        cache = self._node_cache(node)
        key = ("answers", eval_mode)
        if key not in cache.entries:
            positions = self._positions(node, "answer", eval_mode)
            where = f"node {node!r} (answer rows, eval_mode={eval_mode!r})"
            cache.put(key, prepare_answer_rows(self.node_results[node], positions, where=where) if len(positions) else None,
                      _POSITION_COLUMNS)
        return cache.entries[key]

    def _has_rows(self, node: str, row_type: str) -> bool:
        """Whether ``node`` has rows of ``row_type`` ("answer" or "document"), in any eval_mode."""
        frame = self.node_results[node]
        return "type" in frame.columns and bool((frame["type"] == row_type).to_numpy(dtype=bool, na_value=False).any())

    def _headline_metric(self, node: str) -> str:
        """The metric a node is summed up by in reports, plots and the CLI: f1 for answers, else recall_single_hit."""
        return "f1" if self._has_rows(node, "answer") else "recall_single_hit"

    def _funnel_order(self) -> list[str]:
        """The nodes in pipeline order for the funnel: nodes with document rows only, then the others.

        A Haystack folder records no node order (its files load in name order: Reader before Retriever),
        and retrievers feed readers, so nodes that only retrieve come first; within each group the
        result's order (from_runs' node order, evalframe.json's) is kept.
        """
        retrieving = [node for node in self.node_results
                      if self._has_rows(node, "document") and not self._has_rows(node, "answer")]
        return retrieving + [node for node in self.node_results if node not in retrieving]

    def _document_nodes(self) -> list[str]:
        return [node for node in self.node_results if self._has_rows(node, "document")]

    def _retriever_join(self, node: str, answers: AnswerRows, params: _Params) -> RetrieverJoin | None:
        retriever = params.retriever_node
        if retriever is None:
            candidates = self._document_nodes()
            if len(candidates) != 1:
                raise InvalidParameterError(
                    "simulated_top_k_retriever needs the node whose documents simulate the retriever, and "
                    f"{'no node has' if not candidates else 'several nodes have'} document rows "
                    f"(candidates: {candidates}). Pass retriever_node=<name>."
                )
            retriever = candidates[0]
        # The retriever's documents of the same eval_mode; a retriever evaluated in one mode only (Haystack
        # gives retrievers no isolated rows) simulates the other mode too, as Haystack, which took every
        # document row regardless of eval_mode, did (SPEC 3 correction, docs/haystack-compat.md).
        mode = params.eval_mode
        documents = self._document_rows(retriever, mode)
        if documents is None:
            mode = EVAL_MODES[1 - EVAL_MODES.index(mode)]
            documents = self._document_rows(retriever, mode)
        if documents is None:  # e.g. eval_mode cells that are neither mode: no retriever to simulate, not an empty one
            frame = self.node_results[retriever]
            found = sorted(map(repr, frame.loc[(frame["type"] == "document").to_numpy(dtype=bool, na_value=False),
                                               "eval_mode"].unique())) if "eval_mode" in frame.columns else []
            raise InvalidParameterError(
                f"simulated_top_k_retriever needs document rows of node {retriever!r} with eval_mode 'integrated' or "
                f"'isolated'; its document rows have eval_mode {', '.join(found) or 'values'}. Fix the frame's "
                "'eval_mode' column (or pass another retriever_node)."
            )
        lists = self._distinct_lists(node, "document_ids") if "document_ids" in self.node_results[node].columns else None
        cache = self._node_cache(node)
        key = ("join", retriever, params.eval_mode, mode)
        held = cache.entries.get(key)
        # the join is valid for these answer rows and these retriever rows (each rebuilt when its frame changed);
        # the entry holds both, so their identities cannot be taken by new objects
        if held is None or held[0] is not answers or held[1] is not documents:
            cache.put(key, (answers, documents, join_retriever(answers, documents, lists)), _POSITION_COLUMNS + ("document_ids",))
        return cache.entries[key][2]

    def _answer_table(self, node: str, params: _Params) -> pd.DataFrame | None:
        answers = self._answer_rows(node, params.eval_mode)
        if answers is None:
            return None
        join = self._retriever_join(node, answers, params) if params.simulated_top_k_retriever != -1 else None
        kept = answer_rows_kept(answers, top_k_reader=params.simulated_top_k_reader,
                                top_k_retriever=params.simulated_top_k_retriever, join=join)
        return answer_query_metrics(answers, kept, answer_scope=params.answer_scope)

    def _document_table(self, node: str, params: _Params) -> pd.DataFrame | None:
        rows = self._document_rows(node, params.eval_mode, CRITERIA[params.criterion][1])
        if rows is None:
            return None
        return document_query_metrics(
            rows,
            criterion=params.criterion,
            top_k=params.simulated_top_k_retriever,
            context_threshold=params.context_matching_threshold,
        )

    # ------------------------------------------------------------------ public analyses
    @_fresh
    def calculate_metrics(
        self,
        simulated_top_k_reader: int = -1,
        simulated_top_k_retriever: int = -1,
        document_scope: DocumentScope = "document_id_or_answer",
        eval_mode: EvalMode = "integrated",
        answer_scope: AnswerScope = "any",
        context_matching_threshold: float | None = None,
        retriever_node: str | None = None,
        by: SliceKey | Sequence[SliceKey] | None = None,
    ) -> dict[str, dict[str, float]] | pd.DataFrame:
        """Mean metrics per node: ``{node: {metric: value}}`` (SPEC 3).

        Answer rows give ``exact_match``, ``f1`` (and ``sas``) plus ``num_examples_for_eval``;
        document rows give ``recall_multi_hit``, ``recall_single_hit``, ``precision``, ``map``,
        ``mrr`` and ``ndcg``. Each is the mean over queries of :meth:`query_metrics`.

        Parameters
        ----------
        simulated_top_k_reader, simulated_top_k_retriever : int
            -1 uses every rank; k keeps ranks <= k (for answer nodes the retriever's top-k keeps
            the answers whose documents are all among the retriever's top k).
        document_scope : str
            What makes a document relevant: one of ``evalframe.columns.DOCUMENT_SCOPES``.
        eval_mode : {"integrated", "isolated"}
        answer_scope : str
            Where a matching answer must come from: ``any``, ``context``, ``document_id`` or
            ``document_id_and_context``.
        context_matching_threshold : float, optional
            Similarity above which a gold context counts as matched by a document. None: the
            threshold recorded with the result, else 65.0 (Haystack's fixed value).
        retriever_node : str, optional
            The node whose documents simulate the retriever's top-k for answer nodes; None means
            the only node with document rows.
        by : str, callable, Series, dict or list of these, optional
            Slice the queries and return a DataFrame instead: index (node, slice label...), a
            ``queries`` column and one column per metric, each the mean over the slice's queries. A
            key is a per-query column (``"filters"``), ``"no_answer"``, ``"filters.<field>"``, a
            callable over the per-query table or a Series/dict from multilabel_id to label (see
            :mod:`evalframe.analysis.slices`).

        Returns
        -------
        dict of str to dict of str to float, or pandas.DataFrame with ``by``

        Raises
        ------
        InvalidParameterError
            An option outside its valid values, or an unknown node.
        SchemaError
            A frame lacks a column the computation needs.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> metrics = load_demo_result().calculate_metrics(simulated_top_k_retriever=1)
        >>> sorted(metrics["Retriever"])
        ['map', 'mrr', 'ndcg', 'precision', 'recall_multi_hit', 'recall_single_hit']
        >>> load_demo_result().calculate_metrics(by="no_answer")[["queries", "recall_single_hit", "f1"]].round(3)
                             queries  recall_single_hit    f1
        node      no_answer
        Retriever False            7              0.857   NaN
                  True             1              1.000   NaN
        Reader    False            7                NaN   0.81
                  True             1                NaN   1.00
        """
        params = self._params(simulated_top_k_reader, simulated_top_k_retriever, document_scope, eval_mode,
                              answer_scope, context_matching_threshold, retriever_node)
        if self._document_nodes():
            self._warn_scope_mismatch(params)
        if by is not None:
            return self._sliced_metrics(params, check_by(by))
        out: dict[str, dict[str, float]] = {}
        for node in self.node_results:
            values: dict[str, float] = {}
            answers = self._answer_table(node, params)
            if answers is not None:
                values.update({m: float(answers[m].mean()) for m in answers.columns})
                values["num_examples_for_eval"] = float(len(answers))
            documents = self._document_table(node, params)
            if documents is not None:
                values.update({m: float(documents[m].mean()) for m in documents.columns})
            out[node] = values
        return out

    @_fresh
    def query_metrics(
        self,
        node: str,
        simulated_top_k_reader: int = -1,
        simulated_top_k_retriever: int = -1,
        document_scope: DocumentScope = "document_id_or_answer",
        eval_mode: EvalMode = "integrated",
        answer_scope: AnswerScope = "any",
        context_matching_threshold: float | None = None,
        retriever_node: str | None = None,
        by: SliceKey | Sequence[SliceKey] | None = None,
    ) -> pd.DataFrame:
        """Per-query metrics of one node: index ``multilabel_id``, one column per metric.

        Queries appear in order of first appearance. A node with answer and document rows gets
        both sets of columns (NaN where a query has rows of one type only). The parameters are
        those of :meth:`calculate_metrics`, whose values are the means of these columns; ``by``
        puts the slice labels of each query in front (see :mod:`evalframe.analysis.slices`).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> table = load_demo_result().query_metrics("Reader")
        >>> list(table.columns)
        ['exact_match', 'f1']
        >>> list(load_demo_result().query_metrics("Reader", by="no_answer").columns)
        ['no_answer', 'exact_match', 'f1']
        """
        node = check.check_node(node, list(self.node_results))
        params = self._params(simulated_top_k_reader, simulated_top_k_retriever, document_scope, eval_mode,
                              answer_scope, context_matching_threshold, retriever_node)
        keys = check_by(by) if by is not None else None
        table = self._query_table(node, params)
        if keys is None:
            return table
        attributes = query_attributes(self.node_results[node], keys, where=f"node {node!r}")
        return beside(attributes, table).join(table)

    def _query_table(self, node: str, params: _Params) -> pd.DataFrame:
        tables = [t for t in (self._answer_table(node, params), self._document_table(node, params)) if t is not None]
        if not tables:
            return pd.DataFrame(index=pd.Index([], name="multilabel_id", dtype=object))
        if len(tables) == 1:
            return tables[0]
        answers, documents = tables
        index = answers.index.append(documents.index[~documents.index.isin(answers.index)])
        return answers.reindex(index).join(documents.reindex(index))

    def _sliced_metrics(self, params: _Params, by: SliceKey | Sequence[SliceKey]) -> pd.DataFrame:
        parts = {}
        for node, frame in self.node_results.items():
            table = self._query_table(node, params)
            if len(table.columns):
                parts[node] = slice_means(table, query_attributes(frame, by, where=f"node {node!r}"))
        if not parts:
            return pd.DataFrame()
        sliced = pd.concat(parts, names=["node"])
        columns = ["queries"] + [c for c in sliced.columns if c != "queries"]
        return sliced[columns]

    @_fresh
    def metrics_at_k(
        self,
        ks: Sequence[int] = (1, 3, 5, 10),
        node: str | None = None,
        document_scope: DocumentScope = "document_id_or_answer",
        eval_mode: EvalMode = "integrated",
        answer_scope: AnswerScope = "any",
        context_matching_threshold: float | None = None,
    ) -> pd.DataFrame:
        """Metrics at several simulated top-k, as a tidy DataFrame with columns node, k, metric, value.

        Document metrics at k equal ``calculate_metrics(simulated_top_k_retriever=k)``, answer metrics
        at k equal ``calculate_metrics(simulated_top_k_reader=k)``. The key arrays are prepared once;
        each k is then a few array operations with the same kernels.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> table = load_demo_result().metrics_at_k(ks=(1, 3), node="Retriever")
        >>> table[table["metric"] == "recall_single_hit"]["value"].round(4).tolist()
        [0.625, 0.875]
        """
        if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable) or not len(ks := list(ks)):
            raise InvalidParameterError(f"ks must be a non-empty list of positive ints, e.g. (1, 3, 5, 10); got {ks!r}.")
        bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1]
        if bad:
            # -1 (no cut) is not a k here: it is what calculate_metrics() gives without simulated_top_k_*
            raise InvalidParameterError(
                f"ks must hold positive ints only, e.g. (1, 3, 5, 10); got {bad[0]!r} in {ks!r}. "
                "For the metrics without a cut, call calculate_metrics()."
            )
        ks = sorted({int(k) for k in ks})
        nodes = [check.check_node(node, list(self.node_results))] if node is not None else list(self.node_results)
        records = []
        for name in nodes:
            for k in ks:
                documents_params = self._params(-1, k, document_scope, eval_mode, answer_scope,
                                                context_matching_threshold, None)
                answers_params = self._params(k, -1, document_scope, eval_mode, answer_scope,
                                              context_matching_threshold, None)
                answers = self._answer_table(name, answers_params)
                if answers is not None:
                    records += [(name, k, metric, float(answers[metric].mean())) for metric in answers.columns]
                documents = self._document_table(name, documents_params)
                if documents is not None:
                    records += [(name, k, metric, float(documents[metric].mean())) for metric in documents.columns]
        return pd.DataFrame(records, columns=["node", "k", "metric", "value"])

    @_fresh
    def wrong_examples(
        self,
        node: str,
        n: int = 3,
        simulated_top_k_reader: int = -1,
        simulated_top_k_retriever: int = -1,
        document_scope: DocumentScope = "document_id_or_answer",
        document_metric: str = "recall_single_hit",
        answer_metric: str = "f1",
        document_metric_threshold: float = 0.5,
        answer_metric_threshold: float = 0.5,
        eval_mode: EvalMode = "integrated",
        answer_scope: AnswerScope = "any",
        context_matching_threshold: float | None = None,
        retriever_node: str | None = None,
    ) -> list[dict[str, Any]]:
        """The ``n`` worst queries of a node, for a person to read (SPEC 4).

        Answer nodes are ranked by ``answer_metric``, document nodes by ``document_metric``;
        ties keep first-appearance order, and only queries whose value is ``<=`` the threshold
        are returned. Each query is a dict with ``multilabel_id``, ``query``, ``filters``,
        ``metrics``, ``answers`` or ``documents`` (all the query's rows of that eval_mode, in frame
        order) and the gold answers / document ids.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> worst = load_demo_result().wrong_examples("Retriever", n=2)
        >>> [example["metrics"]["recall_single_hit"] for example in worst]
        [0.0]
        """
        node = check.check_node(node, list(self.node_results))
        n = check.check_positive_int(n, name="n")
        check.check_choice(document_metric, tuple(DOCUMENT_METRICS), name="document_metric")
        check.check_choice(answer_metric, tuple(ANSWER_METRICS), name="answer_metric")
        document_metric_threshold = check.check_number(document_metric_threshold, name="document_metric_threshold")
        answer_metric_threshold = check.check_number(answer_metric_threshold, name="answer_metric_threshold")
        params = self._params(simulated_top_k_reader, simulated_top_k_retriever, document_scope, eval_mode,
                              answer_scope, context_matching_threshold, retriever_node)

        answers = self._answer_table(node, params)
        if answers is not None:
            if answer_metric not in answers.columns:
                raise InvalidParameterError(
                    f"answer_metric must be one of {list(answers.columns)} for node {node!r}; got {answer_metric!r} "
                    "(sas exists only when the result was built with a SAS model)."
                )
            rows = self._rows(node, "answer", params.eval_mode)
            return _worst(answers, answer_metric, answer_metric_threshold, n, rows, "answers", _ANSWER_DROP)
        documents = self._document_table(node, params)
        if documents is not None:
            if params.document_scope not in ("answer", "document_id_or_answer") and params.answer_scope != "any":
                self._warn_scope_mismatch(params)
            rows = self._rows(node, "document", params.eval_mode)
            return _worst(documents, document_metric, document_metric_threshold, n, rows, "documents", _DOCUMENT_DROP)
        return []

    @_fresh
    def _query_examples(self, node: str, table: pd.DataFrame, metric: str, eval_mode: str) -> list[dict[str, Any]]:
        """wrong_examples-shaped dicts for the queries of ``table`` (rows of a per-query table), in its order."""
        if metric in ANSWER_METRICS:
            return _examples(table, self._rows(node, "answer", eval_mode), "answers", _ANSWER_DROP)
        return _examples(table, self._rows(node, "document", eval_mode), "documents", _DOCUMENT_DROP)

    def report(self, n: int = 3, node_order: list[str] | None = None, max_characters_per_field: int = 150,
               charts: bool = True) -> Any:
        """The evaluation report: pipeline funnel and worst queries, as ``.text`` and self-contained ``.html``.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> report = load_demo_result().report(n=1, charts=False)
        >>> report.text.splitlines()[3]
        'Pipeline funnel (integrated evaluation)'
        """
        from .present.report import build_report

        return build_report(self, n=n, node_order=node_order, max_characters_per_field=max_characters_per_field,
                            charts=charts)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_runs(
        cls,
        labels: Sequence[Any],
        node_outputs: Mapping[str, Mapping[str, Sequence[Sequence[Any]]]],
        *,
        custom_document_id_field: str | None = None,
        context_matching_min_length: int = 100,
        context_matching_boost_split_overlaps: bool = True,
        context_matching_threshold: float = 65.0,
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
    ) -> EvaluationResult:
        """Build the node frames from gold labels and pipeline outputs, as Haystack 1.x's ``Pipeline.eval``.

        Parameters
        ----------
        labels : list
            One entry per query: a ``MultiLabel``, a list of ``Label`` objects or Label dicts, or a
            MultiLabel dict; an entry without labels is skipped with a warning.
        node_outputs : dict
            ``{node: {"documents": [...], "answers": [...], "documents_isolated": [...],
            "answers_isolated": [...]}}``, each a list with one ranked list of ``Document`` /
            ``Answer`` objects (or their dicts) per label. The ``*_isolated`` outputs are evaluated
            with ``eval_mode="isolated"``.
        custom_document_id_field : str, optional
            A ``meta`` field whose value identifies documents instead of their ids.
        context_matching_min_length, context_matching_boost_split_overlaps, context_matching_threshold
            Context matching (see :func:`evalframe.build.matching.context_similarity`).
        sas_model : callable or str, optional
            ``(predictions, golds) -> scores`` or a sentence-transformers model name
            (``pip install "evalframe[sas]"``); adds the ``sas`` columns.
        progress : bool, optional
            Show a progress bar; None shows it when stderr is a terminal.

        Raises
        ------
        InvalidParameterError
            Before anything is read or scored, when an option is out of range:
            ``context_matching_threshold`` not a finite number in [0, 100], ``context_matching_min_length``
            not an int >= 0, ``context_matching_boost_split_overlaps`` not a bool (``"no"`` would be truthy),
            ``custom_document_id_field`` neither None nor a non-empty str, ``sas_model`` neither None, a str
            nor a callable.
        EvalframeError
            When labels or node outputs are malformed (the message names the label index, node and field).

        Examples
        --------
        >>> from evalframe import Answer, Document, EvaluationResult, Label
        >>> doc = Document("Berlin is the capital of Germany.", id="d1")
        >>> label = Label("Capital of Germany?", doc, True, True, "gold-label", Answer("Berlin"))
        >>> result = EvaluationResult.from_runs(
        ...     [[label]],
        ...     {"Retriever": {"documents": [[Document("Bonn was the capital.", id="d2"), doc]]},
        ...      "Reader": {"answers": [[Answer("Berlin", document_ids=["d1"])]]}})
        >>> result.calculate_metrics()["Retriever"]["mrr"], result.calculate_metrics()["Reader"]["exact_match"]
        (0.5, 1.0)
        """
        from .build.flatten import flatten

        frames = flatten(
            labels, node_outputs,
            custom_document_id_field=custom_document_id_field,
            context_matching_min_length=context_matching_min_length,
            context_matching_boost_split_overlaps=context_matching_boost_split_overlaps,
            context_matching_threshold=context_matching_threshold,
            sas_model=sas_model,
            progress=progress,
        )
        matching = {
            "context_matching_threshold": float(context_matching_threshold),
            "context_matching_min_length": int(context_matching_min_length),
            "context_matching_boost_split_overlaps": bool(context_matching_boost_split_overlaps),
            "custom_document_id_field": custom_document_id_field,
            "sas_model": sas_model if isinstance(sas_model, str) or sas_model is None
            else getattr(sas_model, "__qualname__", type(sas_model).__name__),
        }
        return cls(frames, matching=matching)

    # ------------------------------------------------------------------ persistence
    def save(self, out_dir: str | Path, format: str = "csv", **to_csv_kwargs: Any) -> Path:
        """Write one ``<node>.csv`` (or ``.parquet``) per node plus ``evalframe.json`` to ``out_dir``, atomically.

        ``format="parquet"`` needs ``pip install "evalframe[parquet]"``; ``load`` detects the format.
        See ``docs/persistence.md``. Returns the folder written.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(p.name for p in folder.iterdir())
        ['Reader.csv', 'Retriever.csv', 'evalframe.json']
        """
        from .io import save_result

        return save_result(self, check.check_path(out_dir, name="out_dir"), format, **to_csv_kwargs)

    @classmethod
    def load(cls, load_dir: str | Path, **read_csv_kwargs: Any) -> EvaluationResult:
        """Load a folder written by :meth:`save` or by Haystack 1.x's ``EvaluationResult.save``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import EvaluationResult, load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(EvaluationResult.load(folder))
        ['Reader', 'Retriever']
        """
        from .io import load_result

        return load_result(cls, check.check_path(load_dir, name="load_dir"), **read_csv_kwargs)


def _worst(
    table: pd.DataFrame,
    metric: str,
    threshold: float,
    n: int,
    rows: pd.DataFrame,
    key: str,
    drop: tuple[str, ...],
) -> list[dict[str, Any]]:
    worst = table.sort_values(metric, kind="stable").head(n)
    return _examples(worst[worst[metric] <= threshold], rows, key, drop)


def _examples(worst: pd.DataFrame, rows: pd.DataFrame, key: str, drop: tuple[str, ...]) -> list[dict[str, Any]]:
    """One wrong_examples dict per query of ``worst`` (a per-query table), in its order."""
    if len(worst) == 0:
        return []
    selected = rows[rows["multilabel_id"].isin(worst.index)]
    listed = selected.drop(columns=[c for c in drop if c in selected.columns])
    groups = {qid: idx for qid, idx in selected.groupby("multilabel_id", sort=False).indices.items()}
    records = listed.to_dict(orient="records")
    examples = []
    for multilabel_id, values in worst.iterrows():
        positions = groups[multilabel_id]
        first = selected.iloc[positions[0]]
        example: dict[str, Any] = {
            "multilabel_id": multilabel_id,
            "query": first.get("query"),
            "filters": first.get("filters"),
            "metrics": {m: float(v) for m, v in values.items()},
            key: [records[p] for p in positions],
        }
        if key == "answers":
            example["gold_answers"] = first.get("gold_answers")
        example["gold_document_ids"] = first.get("gold_document_ids")
        examples.append(example)
    return examples
