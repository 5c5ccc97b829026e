"""EvaluationResult: one DataFrame per pipeline node, and the analyses on them.

A thin facade: it validates the options once (:mod:`evalframe.options`), takes the prepared arrays from
:mod:`evalframe.frames` (row selection, simulated top-k, the cache), hands them to the kernels of
:mod:`evalframe.metrics` and aggregates the per-query tables, the shared currency of ``calculate_metrics``,
``sliced_metrics``, ``query_metrics``, ``metrics_at_k`` and ``wrong_examples``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import html
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import numpy as np
import pandas as pd

from . import _validation as check
from ._progress import Steps, enabled
from .analysis.examples import ANSWER_DROP, DOCUMENT_DROP, THRESHOLD, Examples, examples, worst
from .analysis.aggregate import Partial, partial, slice_partial
from .analysis.analyses import MeanAnalyses, MetricKey, SlicePiece
from .analysis.slices import SliceKey, beside, labelled, query_attributes, query_keys
from .columns import CRITERIA, EVAL_MODES
from .errors import EvalframeError, InvalidParameterError, warn
from .frames.arrays import DistinctLists
from .frames.codings import Codings, NodeCoding, TrecLayout
from .frames.judged import DUPLICATE_RULES, JudgedRows, trec_query_table
from .frames.judged_codes import (MISSING_QUERY_RULES, at_level, check_cut, check_missing_queries, cut_ranking,
                                  judged_rows_of_codes, subtopics_of_ids)
from .frames.pending import NodeFrames, PendingFrame
from .frames.rows import NodeNeeded, document_node
from .frames.store import PreparedStore
from .frames.tables import answer_query_metrics, document_query_metrics
from .frames.topk import answers_kept, check_retriever_node, document_rows_kept
from .frames.scores import check_bounds, node_scores, read_score_table, score_frame_values, score_query_table, table_row
from .metrics.registry import (ANSWER_METRICS, DOCUMENT_METRICS, DIRECTIONS, Metric, score_column,
                               score_measure)
from .metrics.trec import direction_of, measure_texts, parse_measure, parse_measures, without_direction
from .metrics.trec_gain_kernels import relstrings
from .metrics.trec_kernels import RankedRows
from .report import Report, build_report
from .schema import Skipped
from .sources.flatten import entry_scores, flatten, multilabel_ids
from .sources.haystack2 import read_haystack2
from .sources.llamaindex import read_llamaindex
from .sources.records import build
from .frames.score_values import score_values
from .sources.frame import from_frame as frame_result
from .sources.ragas import from_ragas as ragas_result
from .sources.trec import TrecNodeSource, qrels_from_frame, read_coded_tables, run_from_frame
from .options import MatchingOptions, MetricOptions, with_options

__all__ = ["EvaluationResult", "NO_ROWS_FOR_METRIC"]

#: What wrong_examples(metric=...) says of a node without the rows the metric lists (evalframe.dask skips such parts).
NO_ROWS_FOR_METRIC = "has none of"

#: What trec_metrics and trec_query_metrics say when ``node=None`` finds no node, or several, with document rows.
_TREC_NEEDED = NodeNeeded(
    none="no node has document rows; the trec measures rank documents. Nodes: {nodes}.",
    several="trec_metrics needs node= when {count} nodes have document rows: {documents} (all nodes: {nodes}).")
#: What to_trec_run and to_qrels say when ``node=None`` finds no node, or several, with document rows (one text).
_FILE_NODE = ("node=None picks the one node with document rows, but this result has {count} ({documents}) among its "
              "nodes {nodes}; pass node='<name>'.")
_FILE_NEEDED = NodeNeeded(none=_FILE_NODE, several=_FILE_NODE)


_M = TypeVar("_M", bound=Callable[..., Any])



def _fresh(method: _M) -> _M:
    """Mark a public entry point: the prepared arrays are checked against the frames once per call."""

    @functools.wraps(method)
    def wrapper(self: EvaluationResult, *args: Any, **kwargs: Any) -> Any:
        with self._store.session():
            return method(self, *args, **kwargs)

    return cast(_M, wrapper)


def _looks_like_measure(name: str, parameter: str, choices: Sequence[str]) -> bool:
    """Whether ``name`` is a trec_eval measure (ir_measures' names) rather than one of ``choices``; neither: an error."""
    if name in ANSWER_METRICS or name in DOCUMENT_METRICS:
        return False
    try:
        parse_measure(name)
    except EvalframeError as error:
        try:
            check.check_choice(name, tuple(choices), name=parameter)
        except InvalidParameterError as not_a_metric:
            raise InvalidParameterError(f"{not_a_metric} Nor is it a trec_eval measure: {error}",
                                        parameter=parameter) from None
    return True



def _one_row_per_query(table: pd.DataFrame, node: str) -> pd.DataFrame:
    """The entries of one query (sharded runs) merged: each score's value, the one given (entries that give two
    different values are refused, naming both)."""
    if not table["multilabel_id"].duplicated().any():
        return table
    values = table.drop(columns="multilabel_id")
    grouped = values.groupby(table["multilabel_id"].to_numpy(), sort=False)
    varying = (grouped.nunique(dropna=True) > 1).stack()
    if varying.any():
        key, column = varying[varying].index[0]
        given = table.index[(table["multilabel_id"] == key).to_numpy() & values[column].notna().to_numpy()]
        raise InvalidParameterError(
            f"scores[{node!r}][{column!r}]: labels[{given[0]}] and labels[{given[1]}] are one query "
            f"(multilabel_id {key!r}) with different values ({values.at[given[0], column]!r} and "
            f"{values.at[given[1], column]!r}).", parameter="scores")
    merged = grouped.first()  # each score's value given by some entry of the query (None: none gives one)
    firsts = table.index[~table["multilabel_id"].duplicated().to_numpy()]  # errors name the query's first entry
    return pd.DataFrame({"multilabel_id": merged.index.to_numpy(dtype=object),
                         **{column: merged[column].to_numpy(dtype=object) for column in merged.columns}},
                        columns=table.columns).set_axis(firsts)


def _trec_judged_rows(source: TrecNodeSource, node: str, subtopics: pd.DataFrame | None, eval_mode: str,
                      duplicates: str) -> JudgedRows | None:
    """The judged rows of ``from_trec``'s node from its codes (every row is a document row of eval_mode integrated;
    the readers refused a document twice in a query, so ``duplicates`` changes nothing), with the subtopic
    judgments ``subtopics`` (``qid, subtopic, docid, relevance``) when the qrels were read with them."""
    if eval_mode != "integrated":
        return None  # an empty run and qrels: no row, no query evaluated (pytrec_eval's {}), not a node without documents
    codes = source.judged_codes()
    rows = judged_rows_of_codes(*codes, where=f"node {node!r} (document rows, eval_mode={eval_mode!r})")
    if subtopics is None:
        return rows
    # made when a diversity measure first reads them (the other measures never do)
    judged = functools.cache(functools.partial(
        subtopics_of_ids, rows.row_query, source.ids.doc_values()[codes[1]], rows.query_ids,
        subtopics["qid"].to_numpy(dtype=object), subtopics["subtopic"].to_numpy(dtype=object),
        subtopics["docid"].to_numpy(dtype=object), subtopics["relevance"].to_numpy()))
    return dataclasses.replace(rows, subtopics=judged)


def _score_name_taken(name: str) -> bool:
    """Whether ``score_measure`` refuses ``name`` (a measure or alias of the registry, a frame column): a framework's
    score so named is kept under its prefix (``llamaindex_mrr``)."""
    try:
        score_measure(name)
    except InvalidParameterError:
        return True
    return False


def _score_name(column: str) -> str:
    """A Ragas score column's name as a score: ``ragas_<name>`` when evalframe's registry or frames own the name (a
    name no prefix mends, with a character measure names read, stays: from_runs names it)."""
    if _score_name_taken(column) and not _score_name_taken(f"ragas_{column}"):
        return f"ragas_{column}"
    return column


def _skipped(skipped: Any) -> tuple[Skipped, ...]:
    """``skipped=`` as a tuple of :class:`Skipped` (None: none), each checked."""
    if skipped is None:
        return ()
    if isinstance(skipped, (str, bytes, Mapping)) or not isinstance(skipped, Sequence) or not all(
            isinstance(item, Skipped) and isinstance(item.where, str) and isinstance(item.reason, str)
            for item in skipped):
        raise InvalidParameterError(f"skipped must be a list of evalframe.schema.Skipped(where, reason); got "
                                    f"{check.short_repr(skipped)}.", parameter="skipped")
    return tuple(skipped)


class EvaluationResult(MeanAnalyses[pd.DataFrame], Mapping):
    """The evaluation of a pipeline: one DataFrame per node, in Haystack 1.x's schema.

    Behaves like a read-only dict of node name -> DataFrame (``result["Reader"]``, ``in``,
    ``len``, iteration over node names), plus ``append`` and ``result[node] = frame``.

    ``from_trec`` and ``load`` hold their nodes as columns until a frame is asked for (``result[node]``,
    ``result.node_results[node]``, ``wrong_examples``, ``report``): the metrics, measures, slices and ``save`` run on
    the columns. ``result.node_results`` is a dict of node name -> DataFrame, as Haystack 1.x's, whose reads build a
    pending frame (a :class:`evalframe.frames.pending.NodeFrames`; ``is_built(node)`` tells whether a frame was made).
    One result may be read by several threads: a node is built once, and the analyses run one at a time.

    Parameters
    ----------
    node_results : dict of str to pandas.DataFrame, optional
        The node frames (see ``docs/metrics.md`` for the columns), or a
        :class:`evalframe.frames.pending.PendingFrame` for a node held as columns (what ``from_trec`` and ``load``
        pass).
    matching : dict, optional
        The matching options the frames were built with (:class:`evalframe.options.MatchingOptions`, and
        ``sas_model``); saved in ``evalframe.json``; its ``context_matching_threshold`` is the default of the
        document metrics'.
    codings : Codings, optional
        What the builder or loader of the frames knows of their coding (:class:`evalframe.frames.codings.Codings`):
        per node, its list columns' distinct cells and a code per row (so that work per cell is done once per
        distinct cell) and how :meth:`from_trec` built its key columns. Each is used while the columns it
        describes hold what they held.
    list_codings : dict of str to dict of str to DistinctLists, optional
        Deprecated (``FutureWarning``): ``codings=Codings.of_lists(list_codings)``.
    scores : dict of str to Metric, optional
        The declarations of the scores the frames hold as ``scores.<name>`` columns (:func:`evalframe.score_measure`);
        kept as ``result.scores``, a plain dict (:meth:`add_scores` adds to it).
    skipped : sequence of Skipped, optional
        The queries of the source left out of the frames, each where it was and why
        (:class:`evalframe.schema.Skipped`; ``from_ragas(..., on_invalid="skip")`` and the other sources); kept as
        ``result.skipped``, a tuple, saved with the result and stated by its reports.

    Examples
    --------
    >>> from evalframe import EvaluationResult, load_demo_result
    >>> result = load_demo_result()
    >>> list(result)
    ['Retriever', 'Reader']
    >>> round(result.calculate_metrics()["Retriever"]["recall_single_hit"], 4)
    0.875
    """

    def __init__(self, node_results: Mapping[str, pd.DataFrame | PendingFrame] | None = None, *,
                 matching: Mapping[str, Any] | None = None,
                 codings: Codings | None = None,
                 list_codings: Mapping[str, Mapping[str, DistinctLists]] | None = None,
                 scores: Mapping[str, Metric] | None = None, skipped: Sequence[Skipped] | None = None) -> None:
        if scores is not None and not isinstance(scores, Mapping):
            raise InvalidParameterError(f"scores must be a dict {{name: evalframe.score_measure(...)}}; got "
                                        f"{type(scores).__name__}.", parameter="scores")
        self.scores: dict[str, Metric] = dict(scores or {})
        self.skipped: tuple[Skipped, ...] = _skipped(skipped)
        self.node_results = node_results or {}
        if isinstance(matching, MatchingOptions):
            matching = matching.as_dict()
        if matching is not None and not isinstance(matching, Mapping):
            raise InvalidParameterError(f"matching must be a dict or MatchingOptions; got {type(matching).__name__}.")
        self.matching: dict[str, Any] = dict(matching or {})
        if list_codings is not None:
            warn("EvaluationResult(list_codings=...) is deprecated; pass codings=Codings.of_lists(list_codings) "
                 "(evalframe.frames.codings.Codings), which also carries from_trec's codes.", FutureWarning)
            if not isinstance(list_codings, Mapping):
                raise InvalidParameterError(f"list_codings must be a dict {{node: {{column: DistinctLists}}}}; "
                                            f"got {type(list_codings).__name__}.")
            for node, columns in list_codings.items():
                self._check_lists(node, columns, "list_codings")
                self._store.keep_coding(node, NodeCoding(lists=columns))
        if codings is not None and not isinstance(codings, Codings):
            raise InvalidParameterError(f"codings must be an evalframe.frames.codings.Codings (node -> NodeCoding); "
                                        f"got {type(codings).__name__}.")
        for node, coding in (codings or Codings()).items():
            if not isinstance(coding, NodeCoding):
                raise InvalidParameterError(f"codings[{node!r}] must be a NodeCoding; got {type(coding).__name__}.")
            self._check_lists(node, coding.lists, f"codings[{node!r}].lists", nested=False)
            layout, rows = coding.trec, self.node_results.n_rows(self.check_node(node))
            if layout is not None and (not isinstance(layout, TrecLayout) or len(layout.row_query) != rows):
                raise InvalidParameterError(f"codings[{node!r}].trec must be the TrecLayout of node {node!r}'s frame, one "
                                            f"code per row ({rows}); got {type(layout).__name__}.")
            self._store.keep_coding(node, coding)

    def _check_lists(self, node: str, columns: Mapping[str, DistinctLists], name: str, *, nested: bool = True) -> None:
        """Check a node's list codings ``{column: DistinctLists}`` (``name``: the parameter, for the errors)."""
        frame = self._store.view(self.check_node(node))  # an unknown node is named with the nodes held
        for column, lists in (columns.items() if isinstance(columns, Mapping) else [(None, columns)]):
            if column not in frame.columns or not isinstance(lists, DistinctLists) or len(lists.codes) != len(frame):
                raise InvalidParameterError(
                    f"{name}{f'[{node!r}]' if nested else ''}[{column!r}] must be the DistinctLists of a list column of "
                    f"node {node!r} with one code per row ({len(frame)}); got {type(lists).__name__}"
                    + ("" if column in frame.columns else " for a column the frame does not have") + ".")

    @property
    def node_results(self) -> NodeFrames:
        """The node frames, a dict of node name -> DataFrame (a :class:`~evalframe.frames.pending.NodeFrames`: a node
        held as columns is built when read). Assigning a dict replaces every node, as Haystack 1.x's attribute did."""
        return self._node_results

    @node_results.setter
    def node_results(self, frames: Mapping[str, pd.DataFrame | PendingFrame]) -> None:
        if not isinstance(frames, Mapping):
            raise InvalidParameterError(f"node_results must be a dict of node name -> DataFrame; got "
                                        f"{type(frames).__name__}.", parameter="node_results")
        self._node_results = NodeFrames()
        self._store = PreparedStore(self._node_results)  # what was prepared from the frames replaced goes with them
        for node, frame in frames.items():
            self[node] = frame

    # ------------------------------------------------------------------ dict-like access
    def __getitem__(self, node: str) -> pd.DataFrame:
        return self.node_results[check.check_node(node, list(self.node_results))]

    def __setitem__(self, node: str, frame: pd.DataFrame | PendingFrame) -> None:
        if not isinstance(node, str) or not node:
            raise InvalidParameterError(f"node names must be non-empty strings; got {node!r}.")
        if not isinstance(frame, (pd.DataFrame, PendingFrame)):
            raise InvalidParameterError(
                f"the result of node {node!r} must be a pandas DataFrame; got {type(frame).__name__}."
            )
        self.node_results[node] = frame
        self._store.forget(node)

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

    def add_scores(self, node: str, table: pd.DataFrame | Mapping[str, Mapping[str, float]], *,
                   direction: str | Mapping[str, str] = "higher",
                   bounds: tuple[float, float] | None | Mapping[str, tuple[float, float] | None] = None,
                   description: str | Mapping[str, str] = "") -> None:
        """Attach scores computed elsewhere (a judge's faithfulness, latency) to a node, as measures.

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
        def declare(name: str, level: str) -> Metric:
            way = direction.get(name, "higher") if isinstance(direction, Mapping) else direction
            if way not in DIRECTIONS:
                raise InvalidParameterError(f"add_scores: direction of score {name!r} must be one of {list(DIRECTIONS)}; "
                                            f"got {way!r}.", parameter="direction")
            limits = bounds.get(name) if isinstance(bounds, Mapping) else bounds
            text = description.get(name, "") if isinstance(description, Mapping) else description
            return score_measure(name, direction=way, bounds=limits, level=level, description=text)

        self._attach_scores(self.check_node(node), table, declare)

    def _attach_scores(self, node: str, table: Any, declare: Callable[[str, str], Metric],
                       naming: Callable[[int, Any], str] = table_row) -> None:
        """:meth:`add_scores` with each score's declaration from ``declare(name, level)`` (``naming``: how errors
        name a row of ``table``)."""
        frame = self[node]
        if "multilabel_id" not in frame.columns:
            raise InvalidParameterError(f"add_scores: node {node!r} has no 'multilabel_id' column.", parameter="node")
        read = read_score_table(table, pd.Index(frame["multilabel_id"].astype(object).unique()), where=f"node {node!r}",
                                naming=naming)
        declared: dict[str, Metric] = {}
        for name, values in read.values.items():
            metric = declare(name, read.level)
            check_bounds(values, metric, read.labels, column=name)
            declared[name] = metric
        columns = score_frame_values(frame, read, node=node)
        frame = frame.copy()
        for name, values in columns.items():
            frame[score_column(name)] = values.astype("float64")
        self[node] = frame
        self.scores = {**self.declared_scores(), **declared}

    def __repr__(self) -> str:
        nodes = ", ".join(f"{node}: {self.node_results.n_rows(node)} rows" for node in self.node_results)
        return f"<EvaluationResult: {len(self)} node(s){' (' + nodes + ')' if nodes else ''}>"

    @_fresh
    def _repr_html_(self) -> str:
        """Jupyter display: per node its rows, queries, eval modes and headline metrics (integrated)."""
        try:
            headline = self.calculate_metrics()
        except (ValueError, KeyError):  # a frame the metrics cannot read still displays
            headline = {}
        rows = []
        for node in self.node_results:
            frame = self._store.view(node)
            queries = f"{frame['multilabel_id'].nunique():,}" if "multilabel_id" in frame.columns else "?"
            modes = ", ".join(sorted(map(str, frame["eval_mode"].dropna().unique()))) if "eval_mode" in frame.columns else ""
            metrics = ", ".join(f"{m} {v:.3f}" for m, v in headline.get(node, {}).items()
                                if m in ("recall_single_hit", "mrr", "ndcg", "exact_match", "f1", "sas"))
            rows.append(f"<tr><td><b>{html.escape(node)}</b></td><td>{len(frame):,}</td><td>{queries}</td>"
                        f"<td>{html.escape(modes)}</td><td>{html.escape(metrics)}</td></tr>")
        return ("<div><b>EvaluationResult</b> with " + f"{len(self)} node(s)"
                + "<table><tr><th>node</th><th>rows</th><th>queries</th><th>eval modes</th><th>metrics (integrated)</th></tr>"
                + "".join(rows) + "</table></div>")

    def clear_cache(self) -> None:
        """Forget every prepared array (no longer needed: edited frames are noticed on the next call).

        Prepared arrays are checked against the columns they were made from on every call and rebuilt
        when those changed (:mod:`evalframe.frames.store`); this only frees their memory.
        """
        self._store.forget()

    # ------------------------------------------------------------------ what the nodes hold
    def has_answers(self, node: str) -> bool:
        """Whether ``node`` has answer rows (in any eval_mode).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().has_answers("Reader"), load_demo_result().has_answers("Retriever")
        (True, False)
        """
        return self._store.has_rows(self.check_node(node), "answer")

    def has_documents(self, node: str) -> bool:
        """Whether ``node`` has document rows (in any eval_mode).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().has_documents("Retriever")
        True
        """
        return self._store.has_rows(self.check_node(node), "document")

    # ------------------------------------------------------------------ options and per-query tables
    def check_options(self, keywords: Mapping[str, Any], *, passed_to: str) -> MetricOptions:
        """The call's options, checked against this result; the threshold defaults to the one recorded with it."""
        options = MetricOptions.from_keywords(keywords, passed_to=passed_to)
        check_retriever_node(options.retriever_node, list(self.node_results),
                             lambda node: self._store.has_rows(node, "document"))
        if options.context_matching_threshold is None:
            if not isinstance(self.matching, Mapping):
                raise InvalidParameterError(f"result.matching must be a dict of matching options (or {{}}); got "
                                            f"{type(self.matching).__name__}. Set it to a dict, e.g. result.matching = {{}}.")
            recorded = self.matching.get("context_matching_threshold", MatchingOptions.context_matching_threshold)
            try:  # result.matching is a plain dict: checked where it is used, before any work
                options = options.replace(context_matching_threshold=check.check_finite_in_range(
                    recorded, name="context_matching_threshold", low=0.0, high=100.0))
            except InvalidParameterError as error:
                recorded_as = "result.matching['context_matching_threshold']"
                raise InvalidParameterError(
                    f"{error.naming(recorded_as)} It is the default threshold of the analyses: set it to the threshold "
                    "the result was built with, or pass context_matching_threshold=.") from None
        return options

    # ------------------------------------------------------------------ the partials of the mean analyses
    @property
    def nodes(self) -> list[str]:
        """The node names, in order (as ``list(result)``).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().nodes
        ['Retriever', 'Reader']
        """
        return list(self.node_results)

    #: A result in memory holds its frames here (:class:`evalframe.dask.DaskEvaluationResult`: True).
    on_cluster = False

    def session(self) -> contextlib.AbstractContextManager[Any]:
        """The prepared arrays checked against the frames once for the call (:mod:`evalframe.frames.store`)."""
        return self._store.session()

    def check_node(self, node: str) -> str:
        """``node``, when the result holds it (else an UnknownNodeError naming the nodes held)."""
        return check.check_node(node, list(self.node_results))

    def metric_partials(self, nodes: Sequence[str], options: MetricOptions, keywords: Mapping[str, Any],
                        ks: Sequence[int] | None = None) -> dict[MetricKey, Partial]:
        """The per-query tables summed up (:meth:`evalframe.analysis.analyses.MeanAnalyses.metric_partials`)."""
        out: dict[MetricKey, Partial] = {}
        for node in nodes:
            for i, k in enumerate([None] if ks is None else ks):
                answers = self._answer_table(node, options if k is None else options.replace(simulated_top_k_reader=k))
                if answers is not None:
                    out[(node, i, "answer")] = partial(answers)
                documents = self._document_table(
                    node, options if k is None else options.replace(simulated_top_k_retriever=k))
                if documents is not None:
                    out[(node, i, "document")] = partial(documents)
                # at k a node's row scores are cut as its metrics are: by the reader's k when it has answers
                # (the retriever's k would drop answers too), else by the retriever's
                cut = "simulated_top_k_reader" if answers is not None else "simulated_top_k_retriever"
                scored = self._score_table(node, options if k is None else options.replace(**{cut: k}),
                                           levels=("query", "row") if k is None else ("row",))
                if scored is not None:
                    out[(node, i, "score")] = partial(scored)
        return out

    def slice_partials(self, by: list[SliceKey], options: MetricOptions, keywords: Mapping[str, Any],
                       measures: str | Sequence[str] | None, complete: bool,
                       duplicates: str) -> dict[str, list[SlicePiece]]:
        """Each node's per-query table summed up per slice (one piece: the whole result)."""
        out: dict[str, list[SlicePiece]] = {}
        for node in self.node_results:
            frame = self._store.view(node)
            table = self._query_table(node, options)
            if measures is not None and self.has_documents(node):
                table = self._with_measures(table, node, measures, options.eval_mode, complete, duplicates)
            if len(table.columns):
                labels = beside(query_attributes(frame, by, where=f"node {node!r}"), table)
                out[node] = [(list(labels.columns), slice_partial(table, labels), {})]
        return out

    def _answer_table(self, node: str, options: MetricOptions) -> pd.DataFrame | None:
        answers = self._store.answer_rows(node, options.eval_mode)
        if answers is None:
            return None
        kept = answers_kept(self._store, node, answers, top_k_reader=options.simulated_top_k_reader,
                            top_k_retriever=options.simulated_top_k_retriever, retriever_node=options.retriever_node,
                            eval_mode=options.eval_mode)
        return answer_query_metrics(answers, kept, answer_scope=options.answer_scope)

    def _document_table(self, node: str, options: MetricOptions) -> pd.DataFrame | None:
        rows = self._store.document_rows(node, options.eval_mode, CRITERIA[options.criterion][1])
        if rows is None:
            return None
        return document_query_metrics(rows, criterion=options.criterion,
                                      kept=document_rows_kept(rows, options.simulated_top_k_retriever),
                                      # resolved to a checked number by _options
                                      context_threshold=cast(float, options.context_matching_threshold))

    def _score_table(self, node: str, options: MetricOptions,
                     levels: tuple[str, ...] = ("query", "row")) -> pd.DataFrame | None:
        """The node's declared scores per query (:func:`evalframe.frames.scores.score_query_table`), or None."""
        frame = self._store.view(node)
        declared = node_scores(frame.columns, self.declared_scores(), where=f"node {node!r}")
        chosen = {name: metric for name, metric in declared.items() if metric.level in levels}
        if not chosen:
            return None
        documents = answers = None
        if any(metric.level == "row" for metric in chosen.values()):
            rows = self._store.document_rows(node, options.eval_mode)
            if rows is not None:
                documents = (rows, document_rows_kept(rows, options.simulated_top_k_retriever))
            answer_rows = self._store.answer_rows(node, options.eval_mode)
            if answer_rows is not None:
                answers = (answer_rows, answers_kept(
                    self._store, node, answer_rows, top_k_reader=options.simulated_top_k_reader,
                    top_k_retriever=options.simulated_top_k_retriever, retriever_node=options.retriever_node,
                    eval_mode=options.eval_mode))
        return score_query_table(frame, chosen, eval_mode=options.eval_mode, documents=documents, answers=answers,
                                 where=f"node {node!r}")

    def declared_scores(self) -> dict[str, Metric]:
        """``result.scores``, checked: a dict of score names to :func:`evalframe.score_measure` declarations."""
        if not isinstance(self.scores, Mapping) or not all(
                isinstance(m, Metric) and m.family == "score" and m.name == name for name, m in self.scores.items()):
            raise InvalidParameterError(
                "result.scores must be a dict {name: evalframe.score_measure(name, ...)} (each entry's name its key); "
                f"got {check.short_repr(self.scores)}.", parameter="result.scores")
        return dict(self.scores)

    def _query_table(self, node: str, options: MetricOptions) -> pd.DataFrame:
        tables = [t for t in (self._answer_table(node, options), self._document_table(node, options),
                              self._score_table(node, options)) if t is not None]
        if not tables:
            return pd.DataFrame(index=pd.Index([], name="multilabel_id", dtype=object))
        table = tables[0]
        for other in tables[1:]:
            index = table.index.append(other.index[~other.index.isin(table.index)])
            table = table.reindex(index).join(other.reindex(index))
        return table

    def _with_measures(self, table: pd.DataFrame, node: str, measures: str | Sequence[str] | None,
                       eval_mode: str, complete: bool = False, duplicates: str = "error") -> pd.DataFrame:
        """``table`` with a column per trec_eval measure (NaN for the queries trec_eval skips: docs/ir-researchers.md)."""
        if measures is None:
            return table
        values = self.trec_query_metrics(measures, node=node, eval_mode=eval_mode, complete=complete,
                                         duplicates=duplicates)
        return table.join(values[[c for c in values.columns if c not in table.columns]])

    # ------------------------------------------------------------------ public analyses
    @_fresh
    @with_options(MetricOptions, positional=("self", "node", *MetricOptions.names(), "by"))
    def query_metrics(self, node: str, by: SliceKey | Sequence[SliceKey] | None = None, *, with_query: bool = False,
                      measures: str | Sequence[str] | None = None, complete: bool = False, duplicates: str = "error",
                      **options: Any) -> pd.DataFrame:
        """Per-query metrics of one node: index ``multilabel_id``, one column per metric.

        Queries appear in order of first appearance. A node with answer and document rows gets
        both sets of columns (NaN where a query has rows of one type only), then a column per declared score the
        node holds (``docs/scores.md``: a per-query score's value, a per-row score's mean over the rows kept). The parameters are
        those of :meth:`calculate_metrics`, whose values are the means of these columns; ``by``
        puts the slice labels of each query in front (see :mod:`evalframe.analysis.slices`).
        ``with_query=True`` puts the query text in front as a ``query`` column, to read the table
        beside the hash ids (the same column as ``by="query"``; leave it off for a table of metrics
        only, as :func:`evalframe.compare` and the slices take it). ``measures`` adds a column per
        trec_eval measure (:meth:`trec_metrics`, e.g. ``["nDCG@10", "AP"]``), NaN for the queries
        trec_eval skips; they read the whole ranking (their cutoff is in their name, not in
        ``simulated_top_k_retriever``); ``complete`` and ``duplicates`` are :meth:`trec_metrics`'.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> table = load_demo_result().query_metrics("Reader")
        >>> list(table.columns)
        ['exact_match', 'f1']
        >>> list(load_demo_result().query_metrics("Reader", by="no_answer").columns)
        ['no_answer', 'exact_match', 'f1']
        >>> load_demo_result().query_metrics("Reader", with_query=True)["query"].iloc[0]
        'What is the capital of Germany?'
        """
        node = check.check_node(node, list(self.node_results))
        with_query = check.check_real_bool(with_query, name="with_query")
        opts = self.check_options(options, passed_to="query_metrics takes these options")
        keys = query_keys(by, with_query)
        table = self._with_measures(self._query_table(node, opts), node, measures, opts.eval_mode, complete, duplicates)
        return labelled(table, self._store.view(node), keys, where=f"node {node!r}")

    @_fresh
    @with_options(MetricOptions, positional=("self", "node", "row_type", *MetricOptions.names()))
    def query_table(self, node: str, row_type: str, **options: Any) -> pd.DataFrame | None:
        """The per-query table of one row type of a node, the one whose column means :meth:`calculate_metrics` gives.

        ``row_type`` ``"answer"`` gives the answer metrics of the queries with answer rows (in the ``eval_mode``), and
        ``"document"`` the document metrics of those with document rows, each in order of first appearance; None when
        the node has no such rows. :meth:`query_metrics` joins the two. ``num_examples_for_eval`` is the length of
        the answer table (:mod:`evalframe.dask` adds up these tables' sums and lengths over partitions).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> table = load_demo_result().query_table("Reader", "answer")
        >>> len(table), list(table.columns)
        (8, ['exact_match', 'f1'])
        >>> load_demo_result().query_table("Reader", "document") is None
        True
        """
        node = check.check_node(node, list(self.node_results))
        row_type = check.check_choice(row_type, ("answer", "document", "score"), name="row_type")
        opts = self.check_options(options, passed_to="query_table takes these options")
        if row_type == "score":
            return self._score_table(node, opts)
        return self._answer_table(node, opts) if row_type == "answer" else self._document_table(node, opts)

    def trec_partial(self, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
                     duplicates: str, missing_queries: str = "skip", max_docs: int | None = None,
                     judged_only: bool = False, rel: int | None = None) -> tuple[Partial, str]:
        """The per-query table of :meth:`trec_metrics` summed up (:func:`evalframe.analysis.aggregate.partial`), and the
        node it ranks (:meth:`evalframe.analysis.analyses.MeanAnalyses.trec_partial`)."""
        table, node = self._trec_table(measures, node, eval_mode, complete, duplicates, missing_queries, max_docs,
                                       judged_only, rel)
        return partial(table), node

    @_fresh
    def trec_query_metrics(self, measures: str | Sequence[str], *, node: str | None = None,
                           eval_mode: str = "integrated", complete: bool = False, duplicates: str = "error",
                           missing_queries: str = "skip", max_docs: int | None = None, judged_only: bool = False,
                           rel: int | None = None) -> pd.DataFrame:
        """trec_eval's measures of a document node per query (``trec_eval -q``): the values :meth:`trec_metrics` averages.

        The parameters are :meth:`trec_metrics`'. Returns a DataFrame with index ``multilabel_id`` (the TREC query
        id), one row per query trec_eval evaluates, in the order of first appearance, and one float64 column per
        measure, named canonically (``AP`` for ``map``).

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import EvaluationResult
        >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
        ...                       "rank": [1, 2, 1], "document_id": ["d1", "d2", "d3"],
        ...                       "gold_document_ids": [["d2"], ["d2"], ["d3", "d4"]],
        ...                       "gold_document_relevance": [[1], [1], [2, 1]]})
        >>> table = EvaluationResult({"Retriever": frame}).trec_query_metrics(["R@1", "recip_rank"])
        >>> table.to_dict("index")  # q1: d2 at rank 2 of 1 relevant; q2: d3 at rank 1 of 2 relevant
        {'q1': {'R@1': 0.0, 'RR': 0.5}, 'q2': {'R@1': 0.5, 'RR': 1.0}}
        >>> table = EvaluationResult({"Retriever": frame}).trec_query_metrics(["RR"], judged_only=True)
        >>> table.to_dict("index")  # trec_eval -J: q1's unjudged d1 removed, d2 moves to rank 1
        {'q1': {'RR': 1.0}, 'q2': {'RR': 1.0}}
        """
        return self._trec_table(measures, node, eval_mode, complete, duplicates, missing_queries, max_docs, judged_only,
                                rel)[0]

    def _trec_table(self, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
                    duplicates: str, missing_queries: str = "skip", max_docs: object = None,
                    judged_only: object = False, rel: object = None) -> tuple[pd.DataFrame, str]:
        """The per-query table of trec_metrics and trec_query_metrics, and the node it ranks (arguments checked)."""
        cut = check_cut(max_docs, judged_only, rel)
        parsed = at_level(parse_measures(measures), cut[2])
        complete = check.check_real_bool(complete, name="complete")
        rows, documents, node = self._judged_rows_of(node, eval_mode, duplicates, missing_queries)
        if node not in documents:
            raise InvalidParameterError(
                f"node {node!r} has no document rows (a reader's answers only?); the trec measures rank documents. "
                f"Nodes with document rows: {documents}.")
        if rows is None:
            raise InvalidParameterError(f"node {node!r} has no document rows with eval_mode={eval_mode!r}.")
        check_missing_queries(rows, missing_queries, complete)
        return trec_query_table(cut_ranking(rows, max_docs=cut[0], judged_only=cut[1]), parsed, complete=complete), node

    def _judged_rows_of(self, node: str | None, eval_mode: str, duplicates: str, missing_queries: str
                        ) -> tuple[JudgedRows | None, list[str], str]:
        """The judged rows of ``node`` (the one node with document rows when None; None if it has none with
        ``eval_mode``), the nodes with document rows, and the node (arguments checked, ``missing_queries`` too)."""
        eval_mode = check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        duplicates = check.check_choice(duplicates, DUPLICATE_RULES, name="duplicates")
        check.check_choice(missing_queries, MISSING_QUERY_RULES, name="missing_queries")
        documents = [name for name in self.node_results if self._store.has_rows(name, "document")]
        if node is None:
            node = document_node(documents, list(self.node_results), _TREC_NEEDED)
        node = check.check_node(node, list(self.node_results))
        rows = self._store.judged_rows(node, eval_mode, duplicates) if node in documents else None
        return rows, documents, node

    def trec_relstrings(self, length: int = 10, *, node: str | None = None, eval_mode: str = "integrated",
                        complete: bool = False, duplicates: str = "error", missing_queries: str = "skip",
                        max_docs: int | None = None, judged_only: bool = False) -> pd.Series:
        """trec_eval's ``relstring`` per query (``trec_eval -q -m relstring.N``, ``m_relstring.c``): one character
        per document of the top ``length``: its grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` judged with
        a grade below 0. A string, not a number: it has no mean (trec_eval prints it per query only).

        The other parameters are :meth:`trec_metrics`'. Returns a Series of str with index ``multilabel_id``, the
        queries of :meth:`trec_query_metrics`, in its order.

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import EvaluationResult
        >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q1", "q2"], "type": "document",
        ...                       "eval_mode": "integrated", "rank": [1, 2, 3, 1], "document_id": ["d1", "d2", "d3", "d4"],
        ...                       "gold_document_ids": [["d2", "d3"]] * 3 + [["d4"]],
        ...                       "gold_document_relevance": [[12, 0]] * 3 + [[1]]})
        >>> EvaluationResult({"Retriever": frame}).trec_relstrings(2).to_dict()  # d1 unjudged, d2 graded 12
        {'q1': '->', 'q2': '1'}
        """
        cut = check_cut(max_docs, judged_only, None)
        if isinstance(length, bool) or not isinstance(length, int):
            raise InvalidParameterError(f"length is the number of top documents shown, an int; got {length!r}.",
                                        parameter="length")
        complete = check.check_real_bool(complete, name="complete")
        rows, documents, node = self._judged_rows_of(node, eval_mode, duplicates, missing_queries)
        if rows is None:
            raise InvalidParameterError(f"node {node!r} has no document rows with eval_mode={eval_mode!r}; "
                                        f"relstring ranks documents. Nodes with document rows: {documents}.")
        check_missing_queries(rows, missing_queries, complete)
        rows = cut_ranking(rows, max_docs=cut[0], judged_only=cut[1])
        ranked = RankedRows(row_query=rows.row_query, position=rows.position, grade=rows.grade,
                            judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries)
        evaluated = rows.evaluated(complete)
        return pd.Series(relstrings(ranked, max(length, 0))[evaluated], index=pd.Index(
            rows.query_ids[evaluated], name="multilabel_id"), dtype=object, name="relstring")

    @_fresh
    @with_options(MetricOptions, positional=(
        "self", "node", "n", "simulated_top_k_reader", "simulated_top_k_retriever", "document_scope", "document_metric",
        "answer_metric", "document_metric_threshold", "answer_metric_threshold", "eval_mode", "answer_scope",
        "context_matching_threshold", "retriever_node"))  # Haystack 1.x's order
    def wrong_examples(
        self,
        node: str,
        n: int = 3,
        document_metric: str = "recall_single_hit",
        answer_metric: str = "f1",
        document_metric_threshold: float = THRESHOLD,
        answer_metric_threshold: float = THRESHOLD,
        *,
        metric: str | None = None,
        threshold: float | None = None,
        complete: bool = False,
        duplicates: str = "error",
        **options: Any,
    ) -> Examples:
        """The ``n`` worst queries of a node, for a person to read (``docs/metrics.md``).

        ``metric`` names any measure of the node instead: a Haystack metric, a trec_eval measure or a declared score
        (``result.scores``); the queries are ranked worst first by its direction (:func:`evalframe.direction_of`: the
        lowest first when higher is better, the highest first when lower is, as for ``unj@10``; a count such as
        ``NumRet``, whose direction is ``"none"``, has no worst queries and is refused), queries without a value left
        out. ``threshold=None`` lists the ``n`` worst whatever their value; a number keeps those at or worse than it. An
        answer metric lists the answer rows, a document metric or measure the document rows, a score the answer rows
        of a node that has them (else its document rows); each query's ``metrics`` hold the node's scores too. The
        ``*_metric`` and ``*_threshold`` arguments are ignored then.

        Answer nodes are ranked by ``answer_metric``, document nodes by ``document_metric`` (a
        Haystack metric or a trec_eval measure such as ``"nDCG@10"``, see :meth:`trec_metrics`; queries
        trec_eval skips are not listed; ``complete`` and ``duplicates`` as in :meth:`trec_metrics`); ties keep
        first-appearance order, and only queries whose value is ``<=`` the threshold are returned (a measure where
        lower is better, ``unj@10``: the highest first, those ``>=`` the threshold; a count is refused). Each query
        is a dict with ``multilabel_id``, ``query``, ``filters``, ``meta`` (the query's meta as a dict, ``{}`` without),
        ``metrics``, ``answers`` or ``documents`` (all the query's rows of that eval_mode, in frame
        order) and the gold answers / document ids. The options are those of
        :class:`evalframe.options.MetricOptions`. The list is an
        :class:`evalframe.analysis.examples.Examples`: a plain list of these dicts that prints
        a few lines per query (and a table in a notebook).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> worst = load_demo_result().wrong_examples("Retriever", n=2)
        >>> [example["metrics"]["recall_single_hit"] for example in worst]
        [0.0]
        """
        node = check.check_node(node, list(self.node_results))
        n = check.check_positive_int(n, name="n")
        metric, document_metric = measure_texts(metric), measure_texts(document_metric)  # ir_measures' objects
        if metric is not None:
            return self._worst_by(node, n, metric, threshold, complete, duplicates, options)
        measure = None
        if isinstance(document_metric, str) and _looks_like_measure(document_metric, "document_metric", tuple(DOCUMENT_METRICS)):
            measure = document_metric = str(parse_measure(document_metric))
            if direction_of(measure) == "none":
                error = without_direction(measure, None, "no worst queries")
                error.parameter = "document_metric"
                raise error
        else:
            check.check_choice(document_metric, tuple(DOCUMENT_METRICS), name="document_metric")
        check.check_choice(answer_metric, tuple(ANSWER_METRICS), name="answer_metric")
        document_metric_threshold = check.check_number(document_metric_threshold, name="document_metric_threshold")
        answer_metric_threshold = check.check_number(answer_metric_threshold, name="answer_metric_threshold")
        opts = self.check_options(options, passed_to="wrong_examples takes these options")

        answers = self._answer_table(node, opts)
        if answers is not None:
            if answer_metric not in answers.columns:
                raise InvalidParameterError(
                    f"answer_metric must be one of {list(answers.columns)} for node {node!r}; got {answer_metric!r} "
                    "(sas exists only when the result was built with a SAS model)."
                )
            rows = self._rows(node, "answer", opts.eval_mode)
            return worst(answers, answer_metric, answer_metric_threshold, n, rows, "answers", ANSWER_DROP)
        documents = self._document_table(node, opts)
        if documents is not None:
            opts.warn_if_scopes_disagree()
            documents = self._with_measures(documents, node, measure, opts.eval_mode, complete, duplicates)
            rows = self._rows(node, "document", opts.eval_mode)
            return worst(documents, document_metric, document_metric_threshold, n, rows, "documents", DOCUMENT_DROP,
                         direction_of(document_metric))
        return Examples()

    def _worst_by(self, node: str, n: int, metric: str, threshold: float | None, complete: bool, duplicates: str,
                  options: Mapping[str, Any]) -> Examples:
        """:meth:`wrong_examples` with ``metric=`` (any measure of the node, ranked by its direction)."""
        opts = self.check_options(options, passed_to="wrong_examples takes these options")
        threshold = None if threshold is None else check.check_number(threshold, name="threshold")
        scores = self._score_table(node, opts)
        named = list(scores.columns) if scores is not None else []
        measure = None
        if not isinstance(metric, str):
            raise InvalidParameterError(f"metric must be a metric name (str); got {type(metric).__name__}.",
                                        parameter="metric")
        if metric in named:
            row_type = "answer" if self._store.answer_rows(node, opts.eval_mode) is not None else "document"
        elif metric in ANSWER_METRICS:
            row_type = "answer"
        elif metric in DOCUMENT_METRICS:
            row_type = "document"
        elif _looks_like_measure(metric, "metric", [*ANSWER_METRICS, *DOCUMENT_METRICS, *named]):
            row_type, measure = "document", str(parse_measure(metric))
            metric = measure
        else:
            check.check_choice(metric, [*ANSWER_METRICS, *DOCUMENT_METRICS, *named], name="metric")
            raise AssertionError  # check_choice raised
        declared = self.declared_scores()
        direction = direction_of(metric, declared)
        if direction == "none":  # a count: no query is worse than another
            raise without_direction(metric, declared, "no worst queries")
        table = self._answer_table(node, opts) if row_type == "answer" else self._document_table(node, opts)
        if table is None:
            if scores is None or metric not in named:
                raise InvalidParameterError(f"metric {metric!r} needs {row_type} rows, which node {node!r} "
                                            f"{NO_ROWS_FOR_METRIC} in eval_mode {opts.eval_mode!r}.", parameter="metric")
            table = pd.DataFrame(index=scores.index)
        if row_type == "document":
            opts.warn_if_scopes_disagree()
            table = self._with_measures(table, node, measure, opts.eval_mode, complete, duplicates)
        if scores is not None:
            table = table.join(scores.reindex(table.index)) if len(table.columns) else scores.reindex(table.index)
        if metric not in table.columns:
            raise InvalidParameterError(f"metric must be one of {list(table.columns)} for node {node!r}; got {metric!r}.",
                                        parameter="metric")
        rows = self._rows(node, row_type, opts.eval_mode)
        table = table[table.index.isin(rows["multilabel_id"])]
        return worst(table, metric, threshold, n, rows, f"{row_type}s",
                     ANSWER_DROP if row_type == "answer" else DOCUMENT_DROP, direction)

    def _rows(self, node: str, row_type: str, eval_mode: str) -> pd.DataFrame:
        """The frame's own rows of one type and eval_mode (for listing them)."""
        return self.node_results[node].iloc[self._store.positions(node, row_type, eval_mode)]

    @_fresh
    def query_examples(self, node: str, queries: pd.DataFrame, *, metric: str,
                       eval_mode: str = "integrated") -> Examples:
        """:meth:`wrong_examples`-shaped dicts for the queries of ``queries``, in its order.

        ``queries`` is a per-query table (index ``multilabel_id``; its columns become each dict's
        ``metrics``); the node's answer rows are listed when ``metric`` is an answer metric, else (a
        document metric or a trec_eval measure) its document rows.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> result = load_demo_result()
        >>> table = result.query_metrics("Reader").head(1)
        >>> [e["multilabel_id"] == table.index[0] for e in result.query_examples("Reader", table, metric="f1")]
        [True]
        """
        node = check.check_node(node, list(self.node_results))
        if not (isinstance(metric, str) and _looks_like_measure(metric, "metric", [*ANSWER_METRICS, *DOCUMENT_METRICS])):
            check.check_choice(metric, tuple(ANSWER_METRICS) + tuple(DOCUMENT_METRICS), name="metric")
        eval_mode = check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        row_type = "answer" if metric in ANSWER_METRICS else "document"
        if not isinstance(queries, pd.DataFrame):
            raise InvalidParameterError(f"queries must be a per-query DataFrame indexed by multilabel_id (e.g. a slice of "
                                        f"result.query_metrics({node!r})); got {type(queries).__name__}.")
        rows = self._rows(node, row_type, eval_mode)
        unknown = queries.index[~queries.index.isin(rows["multilabel_id"])]
        if len(unknown):
            raise InvalidParameterError(
                f"queries holds {len(unknown)} multilabel_id(s) without {row_type} rows of node {node!r} in eval_mode "
                f"{eval_mode!r} (e.g. {unknown[0]!r}); metric={metric!r} lists the node's {row_type} rows, so pass "
                f"queries of result.query_metrics({node!r}) and one of its metrics."
            )
        numeric = [c for c in queries.columns if not pd.api.types.is_numeric_dtype(queries[c])]
        if numeric:
            raise InvalidParameterError(f"queries' columns become each query's metrics and must be numeric; "
                                        f"{numeric[0]!r} is {queries[numeric[0]].dtype}. Drop the label columns first.")
        if row_type == "answer":
            return examples(queries, rows, "answers", ANSWER_DROP)
        return examples(queries, rows, "documents", DOCUMENT_DROP)

    def report(self, n: int = 3, node_order: list[str] | None = None, max_characters_per_field: int = 150,
               charts: bool = True, *, metrics_filter: Mapping[str, Sequence[str]] | None = None,
               document_scope: str = MetricOptions.document_scope, answer_scope: str = MetricOptions.answer_scope,
               wrong_examples_fields: Sequence[str] | None = None, measures: str | Sequence[str] | None = None,
               complete: bool = False, duplicates: str = "error", metric: str | None = None) -> Report:
        """The evaluation report: pipeline funnel and worst queries, as ``.text`` and self-contained ``.html``.

        A node's declared scores (``result.scores``) are rows of its funnel; ``metric`` ranks the worst queries of
        each node that has it by that metric (a score too, worst first by its direction) instead of the headline one.

        ``metrics_filter``, ``document_scope``, ``answer_scope`` and ``wrong_examples_fields`` are those of
        Haystack 1.x's ``print_eval_report`` (:func:`evalframe.print_eval_report`); the report states its scopes.
        ``measures`` adds trec_eval measures (:meth:`trec_metrics`) to the funnel of the document nodes, the
        first ranking their worst queries (``complete`` and ``duplicates`` as in :meth:`trec_metrics`).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> report = load_demo_result().report(n=1, charts=False)
        >>> report.text.splitlines()[3]
        'Pipeline funnel (integrated evaluation)'
        """
        fields = {} if wrong_examples_fields is None else {"wrong_examples_fields": wrong_examples_fields}
        return build_report(self, n=n, node_order=node_order, max_characters_per_field=max_characters_per_field,
                            charts=charts, metrics_filter=metrics_filter, document_scope=document_scope,
                            answer_scope=answer_scope, measures=measure_texts(measures), complete=complete, duplicates=duplicates,
                            metric=metric, **fields)

    # ------------------------------------------------------------------ building
    @classmethod
    @with_options(MatchingOptions)
    def from_runs(
        cls,
        labels: Sequence[Any],
        node_outputs: Mapping[str, Mapping[str, Sequence[Sequence[Any]]]],
        *,
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
        keep_scores: bool = False,
        meta: Sequence[Mapping[str, Any] | None] | None = None,
        scores: Mapping[str, Mapping[str, Sequence[float | None]]] | None = None,
        score_measures: Mapping[str, Metric] | None = None,
        skipped: Sequence[Skipped] | None = None,
        **matching: Any,
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
        context_matching_threshold, context_matching_min_length, context_matching_boost_split_overlaps,
        custom_document_id_field
            Keyword arguments: how texts are matched, see :class:`evalframe.options.MatchingOptions`.
        sas_model : callable or str, optional
            ``(predictions, golds) -> scores`` or a sentence-transformers model name
            (``pip install "evalframe[sas]"``); adds the ``sas`` columns.
        progress : bool, optional
            Show progress bars (building the rows, scoring the contexts); None shows them where a person
            watches: stderr is a terminal or the code runs in a Jupyter / IPython kernel.
        keep_scores : bool
            True adds a float64 ``score`` column to the document rows: each ``Document.score`` (NaN where None),
            e.g. for :meth:`to_trec_run`. Off by default, so the columns stay Haystack 1.x's.
        meta : list of dict or None, optional
            Per-query metadata, one JSON object (or None) per entry of ``labels``: kept as its JSON text (keys
            sorted) in a ``meta`` column on every row of the query, sliceable as ``by="meta.<field>"``
            (``docs/runs-format.md#per-query-metadata``). It is not part of ``multilabel_id``: two entries of one query
            with different meta are refused. None: each ``MultiLabel``'s own ``meta`` (a runs file line's
            ``"meta"``, as :func:`evalframe.read_runs` gives it); without any, the frames have no ``meta`` column.
        scores : dict, optional
            Per-query scores computed elsewhere, ``{node: {name: [value per entry of labels]}}`` (None: no value),
            attached as :meth:`add_scores` does (``docs/scores.md``). None: each ``MultiLabel``'s own ``scores`` (a
            runs file line's ``"scores"``, as :func:`evalframe.read_runs` gives it).
        score_measures : dict of str to Metric, optional
            The scores' declarations (:func:`evalframe.score_measure`: direction, bounds, description); a score not
            named here is declared higher-is-better and unbounded.
        skipped : list of Skipped, optional
            The queries the source of ``labels`` left out before (:class:`evalframe.schema.Skipped`: where and why;
            the sources' ``on_invalid="skip"``): kept as ``result.skipped`` and stated by the reports.

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
        options = MatchingOptions.from_keywords(matching, passed_to="from_runs takes these matching options")
        frames = flatten(labels, node_outputs, matching=options, sas_model=sas_model, progress=progress,
                         keep_scores=keep_scores, meta=meta)
        recorded = {
            **options.as_dict(),
            "sas_model": sas_model if isinstance(sas_model, str) or sas_model is None
            else getattr(sas_model, "__qualname__", type(sas_model).__name__),
        }
        result = cls(frames, matching=recorded, skipped=skipped)
        result._scores_of_entries(labels, scores, score_measures)
        return result

    def _scores_of_entries(self, labels: Sequence[Any], scores: Any, score_measures: Any) -> None:
        """Attach ``from_runs``' ``scores`` (or the MultiLabels' own) with their ``score_measures``."""
        if score_measures is not None and (not isinstance(score_measures, Mapping) or not all(
                isinstance(m, Metric) and m.family == "score" and m.name == k for k, m in score_measures.items())):
            raise InvalidParameterError("score_measures must be a dict {name: evalframe.score_measure(name, ...)}; got "
                                        f"{check.short_repr(score_measures)}.", parameter="score_measures")
        ids = multilabel_ids(labels)
        given = entry_scores(labels) if scores is None else scores
        if given and not isinstance(given, Mapping):
            raise InvalidParameterError(f"scores must be a dict {{node: {{name: [value per label entry]}}}}; got "
                                        f"{type(given).__name__}.", parameter="scores")
        measures = dict(score_measures or {})
        named_anywhere = sorted({str(name) for named in (given or {}).values() if isinstance(named, Mapping)
                                 for name in named})
        stray = [name for name in measures if name not in named_anywhere]
        if stray:  # a typo would otherwise leave the score undeclared: higher-is-better, wins and losses swapped
            raise InvalidParameterError(
                f"score_measures declares {stray[0]!r}, which no entry's scores name (they name {named_anywhere}); "
                "declare the scores the runs give (evalframe flatten --score NAME:...)."
                f"{check.did_you_mean(stray[0], named_anywhere)}",
                parameter="score_measures")
        if not given:
            return
        for node, named in given.items():
            if node not in self.node_results:
                raise InvalidParameterError(f"scores names node {node!r}, which the result does not have (nodes: "
                                            f"{list(self.node_results)}).", parameter="scores")
            if not isinstance(named, Mapping):
                raise InvalidParameterError(f"scores[{node!r}] must be a dict {{name: [value per label entry]}}; got "
                                            f"{type(named).__name__}.", parameter="scores")
            columns: dict[str, np.ndarray] = {}
            for name, values in named.items():
                if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence) \
                        or len(values) != len(ids):
                    raise InvalidParameterError(
                        f"scores[{node!r}][{name!r}] must be a list with one value (or None) per entry of labels "
                        f"({len(ids)}); got {check.short_repr(values)}.", parameter="scores")
                def where(i: int, n: str = node, s: str = str(name), own: bool = scores is None) -> str:
                    # a MultiLabel's own scores (a runs file's were read by the same rule, naming file:line)
                    return f"labels[{i}].scores[{n!r}][{s!r}]" if own else f"scores[{n!r}][{s!r}][{i}]"

                columns[str(name)] = score_values(values, where=where, parameter="scores")
            table = pd.DataFrame({"multilabel_id": ids, **columns}, index=pd.RangeIndex(len(ids)))
            table = table[table["multilabel_id"].notna()]
            table = _one_row_per_query(table, node)

            def declare(name: str, level: str) -> Metric:
                found = measures.get(name)
                return found if found is not None else score_measure(name, level=level)

            def entry(row: int, index: Any, n: str = node) -> str:
                return f"labels[{index}]: scores of node {n!r}"

            self._attach_scores(node, table, declare, naming=entry)

    @classmethod
    @with_options(MatchingOptions)
    def from_frame(
        cls,
        df: Any,
        *,
        question: str = "question",
        retrieved_ids: str | None = None,
        retrieved_texts: str | None = None,
        retrieved_scores: str | None = None,
        answer: str | None = None,
        gold_ids: str | None = None,
        gold_contexts: str | None = None,
        gold_answers: str | None = None,
        meta: str | Sequence[str] | None = None,
        scores: Sequence[str] | Mapping[str, Any] | None = None,
        retriever: str = "Retriever",
        generator: str = "Generator",
        score_node: str | None = None,
        score_measures: Mapping[str, Any] | None = None,
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
        id_column: str | None = None,
        duplicates: Literal["error", "first"] = "error",
        on_invalid: Literal["raise", "skip"] = "raise",
        **matching: Any,
    ) -> EvaluationResult:
        """A result from a table of any shape, one row per question, by naming its columns.

        Each row becomes what a runs file line would hold (``docs/runs-format.md``), and :meth:`from_runs` builds the
        frames with its matching rules: the retrieved documents are the ``retriever`` node's, in list order; the answer
        is the ``generator`` node's one generative answer; the gold is one label per gold document (its id and text),
        each with the gold answer beside it. A list column may hold lists, numpy arrays, or their JSON / Python literal
        text (as a CSV file gives them); in a CSV file a plain text is a one-item list and an empty cell an empty
        list, elsewhere a text in a column of retrieved documents is refused (it is often a joined list).

        Parameters
        ----------
        df : DataFrame, list of dicts, object with ``to_pandas()``, or path
            The table, or a ``.csv`` / ``.parquet`` / ``.jsonl`` / ``.json`` file holding it.
        question : str
            The column of the question texts (each question once).
        retrieved_ids, retrieved_texts, retrieved_scores : str, optional
            List columns of the retrieved documents' ids, texts (or document objects: LangChain, Haystack 2.x,
            llama-index, dicts) and scores, one entry per document in rank order. Scores given: the document rows get
            a ``score`` column.
        answer : str, optional
            The column of the generated answers.
        gold_ids, gold_contexts : str, optional
            List columns of the gold documents' ids and texts (both given: the same documents, one entry each). With
            ids, a retrieved document is relevant by its id (or, in the default scope, by holding a gold answer); with
            texts only, by its text.
        gold_answers : str, optional
            A list column (or a text column: one answer) of the gold answers; ``[]`` or ``""`` with no gold
            document: a no-answer question.
        meta : str or list of str, optional
            A column of dicts (or their JSON text), or columns whose values become the fields of each query's ``meta``.
        scores : list of str or dict, optional
            Columns of per-query scores (an LLM judge's, a latency, ...: numbers, or their text, each cell read as
            ``docs/scores.md`` says), or ``{column: score_measure(...)}``
            to declare each one's direction and bounds; they belong to ``score_node`` (default the generator when
            there are answers, else the retriever).
        retriever, generator : str
            The node names.
        score_measures : dict, optional
            Score name -> ``evalframe.score_measure(...)`` (default: higher is better, unbounded).
        id_column : str, optional
            A column of the queries' ids (texts or integers, each once): each becomes its query's ``multilabel_id``,
            so two rows with the same question and different ids are two queries (saved, loaded and compared by
            id). None (default): a query is identified by its text, and a question twice is refused.
        duplicates : {"error", "first"}
            A document twice in one ranking (by id; without ids, by its text) is refused (default), naming the row
            and the document, as the TREC readers refuse it (it would be counted twice: a recall or map above 1);
            ``"first"`` keeps it once, at its first rank, the ranks below closing up (as
            ``to_trec_run(duplicates="first")``).
        on_invalid : {"raise", "skip"}
            A row without any gold (no gold document, no gold answer: "has no label") is refused (default), naming
            the row; ``"skip"`` leaves such rows out and records each in ``result.skipped`` (where and why), kept by
            :meth:`save` and stated by the reports: each mean is over the other queries.
        sas_model, progress, context_matching_threshold, context_matching_min_length,
        context_matching_boost_split_overlaps, custom_document_id_field
            As :meth:`from_runs`.

        Returns
        -------
        EvaluationResult

        Raises
        ------
        InvalidParameterError
            A parameter naming no column (the columns are listed), or a bad option.
        EvalframeError
            A cell of the wrong kind: the message names the row (``row 3``, ``file.csv:4``, ``file.jsonl:2``) and the
            column.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"q": ["Capital of Germany?", "Capital of France?"],
        ...                    "ids": [["d2", "d1"], ["d3"]], "texts": [["Bonn.", "Berlin."], ["Paris."]],
        ...                    "gold": [["d1"], ["d3"]], "reply": ["Berlin", "Lyon"], "truth": ["Berlin", "Paris"],
        ...                    "judge": [0.9, 0.4]})
        >>> result = EvaluationResult.from_frame(df, question="q", retrieved_ids="ids", retrieved_texts="texts",
        ...                                      gold_ids="gold", answer="reply", gold_answers="truth", scores=["judge"],
        ...                                      progress=False)
        >>> metrics = result.calculate_metrics()
        >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"], metrics["Generator"]["judge"]
        (0.75, 0.5, 0.65)
        >>> EvaluationResult.from_frame(df, question="query")
        Traceback (most recent call last):
          ...
        evalframe.errors.InvalidParameterError: question='query' names no column of df; its columns are [...
        """
        options = MatchingOptions.from_keywords(matching, passed_to="from_frame takes these matching options")
        return frame_result(df, from_runs=cls.from_runs, question=question, retrieved_ids=retrieved_ids,
                            retrieved_texts=retrieved_texts, retrieved_scores=retrieved_scores, answer=answer,
                            gold_ids=gold_ids, gold_contexts=gold_contexts, gold_answers=gold_answers, meta=meta,
                            scores=scores, retriever=retriever, generator=generator, score_node=score_node,
                            score_measures=score_measures, sas_model=sas_model, progress=progress, id_column=id_column,
                            duplicates=duplicates, on_invalid=on_invalid, **options.as_dict())

    @classmethod
    @with_options(MatchingOptions)
    def from_ragas(
        cls,
        dataset_or_path: Any,
        *,
        scores: Sequence[str] | Mapping[str, Any] | None = None,
        meta: Sequence[str] | None = None,
        retriever: str = "Retriever",
        generator: str = "Generator",
        score_node: str | None = None,
        score_measures: Mapping[str, Any] | None = None,
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
        id_column: str | None = None,
        duplicates: Literal["error", "first"] = "error",
        on_invalid: Literal["raise", "skip"] = "raise",
        **matching: Any,
    ) -> EvaluationResult:
        """A result from a Ragas evaluation dataset, or the frame of a Ragas evaluation with its metric columns.

        Reads Ragas' single-turn columns ``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``,
        ``reference_contexts``, ``reference_context_ids``, ``response`` and ``reference`` (Ragas before 0.2:
        ``question``, ``contexts``, ``answer``, ``ground_truth`` / ``ground_truths``, read the same way) as
        :meth:`from_frame` does: the retrieved contexts are the ``retriever`` node's documents (matched by their ids
        when ``retrieved_context_ids`` and ``reference_context_ids`` are given, else by their text and by holding the
        reference answer), the response the ``generator`` node's answer, ``reference`` the gold answer (with no
        reference context: a label credited by the answer only; an empty reference without reference contexts: a
        no-answer question). Every other column with a number (or its text) in some row is a score of ``score_node``,
        and so is each metric column of ``ragas.evaluate(...).to_pandas()`` (``faithfulness``, ``answer_relevancy``,
        ``context_precision``, ...) whatever it holds: a cell of a score column that is no number (``"n/a"``, True,
        ``[0.5]``) is refused, naming its row and column (``docs/rag.md#which-columns-are-scores``); one named like an
        evalframe measure or column (Ragas' ``exact_match``) is kept as ``ragas_<name>``. Every other column of texts
        (a ``topic``; a Ragas test set's ``persona_name``, ``query_style``, ``query_length``) is a field of the query's
        ``meta``, to slice by (``sliced_metrics("meta.topic")``); any other column that gives no score (flags,
        objects, lists) is named in a warning saying what it became and why.

        Parameters
        ----------
        dataset_or_path
            A Ragas ``EvaluationDataset`` or ``EvaluationResult`` (anything with ``to_pandas()``), a DataFrame, a list
            of sample dicts, or the path of a ``.jsonl`` (``to_jsonl``), ``.csv`` (``to_csv``), ``.parquet`` or
            ``.json`` (a list of samples) file.
        scores : list of str or dict, optional
            The score columns (default: every column of numbers that is not a sample field), or ``{column:
            score_measure(...)}`` to declare each one's direction and bounds.
        meta : list of str, optional
            Columns whose values become each query's ``meta`` fields (default: the text columns above; ``[]``: none);
            a column named here is never read as a score.
        id_column : str, optional
            A column of the samples' ids (a test set asking one question about two products): each is its query's
            ``multilabel_id``, so the same question under two ids is two queries (neither a score nor a meta field).
            None (default): a question is identified by its text, and a question twice is refused (the message names
            a column called ``id``, ``sample_id``, ``question_id``, ``query_id`` or ``qid`` when there is one; it is
            not taken on its own, as that would change how every such dataset's queries are identified and paired).
        retriever, generator, score_node, score_measures, sas_model, progress, duplicates, on_invalid,
        context_matching_threshold, context_matching_min_length, context_matching_boost_split_overlaps,
        custom_document_id_field
            As :meth:`from_frame` (a retrieved context without an id is named by its text: the same passage twice
            is a duplicate).

        Returns
        -------
        EvaluationResult

        Raises
        ------
        EvalframeError
            A sample field of the wrong kind, naming ``file:line`` (JSON Lines, CSV: the line the row starts on),
            ``file, row N`` (Parquet, JSON) or ``row N``, and the column.

        Examples
        --------
        >>> samples = [{"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn.", "Berlin."],
        ...             "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"],
        ...             "response": "Berlin", "reference": "Berlin", "faithfulness": 1.0},
        ...            {"user_input": "Who won the 2030 World Cup?", "retrieved_contexts": ["Paris."],
        ...             "retrieved_context_ids": ["d3"], "reference_context_ids": [], "response": "",
        ...             "reference": "", "faithfulness": 0.5}]
        >>> result = EvaluationResult.from_ragas(samples, progress=False)
        >>> metrics = result.calculate_metrics()
        >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"]  # (1/2 + 1) / 2: no-answer scores 1
        (0.75, 1.0)
        >>> metrics["Generator"]["faithfulness"]  # the judge's score: (1.0 + 0.5) / 2
        0.75
        """
        options = MatchingOptions.from_keywords(matching, passed_to="from_ragas takes these matching options")
        return ragas_result(dataset_or_path, from_runs=cls.from_runs, scores=scores, meta=meta, retriever=retriever,
                            generator=generator, score_node=score_node, score_measures=score_measures,
                            sas_model=sas_model, progress=progress, renamed=_score_name, id_column=id_column,
                            duplicates=duplicates, on_invalid=on_invalid, **options.as_dict())

    @classmethod
    @with_options(MatchingOptions)
    def from_haystack2(
        cls,
        run_result_or_pipeline_outputs: Any,
        *,
        inputs: Mapping[str, str | Sequence[str]] | None = None,
        questions: Sequence[str] | None = None,
        gold_documents: Sequence[Any] | None = None,
        gold_ids: Sequence[Sequence[str]] | None = None,
        gold_answers: Sequence[Any] | None = None,
        meta: Sequence[Mapping[str, Any] | None] | None = None,
        scores: Sequence[str] | Mapping[str, Any] | None = None,
        documents_from: str | None = None,
        answers_from: str | None = None,
        document_comparison_field: str | None = None,
        retriever: str = "Retriever",
        generator: str = "Generator",
        score_node: str | None = None,
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
        duplicates: Literal["error", "first"] = "error",
        on_invalid: Literal["raise", "skip"] = "raise",
        **matching: Any,
    ) -> EvaluationResult:
        """A result from Haystack 2.x (haystack-ai): an ``EvaluationRunResult``, its detailed report, or pipeline outputs.

        Nothing of Haystack is imported: any object with its attributes, its dict, or a JSON file of it is read
        (``docs/rag.md``). The retrieved documents become the ``retriever`` node, the generated answers the
        ``generator`` node, matched against the gold as :meth:`from_runs` matches a runs file's gold; each metric of
        the run result's ``results`` (its ``individual_scores``) becomes a score of the query
        (``evalframe.score_measure``), on the generator node when there is one (``score_node``).

        Parameters
        ----------
        run_result_or_pipeline_outputs
            An ``EvaluationRunResult`` (``.inputs``: one list per input; ``.results``: ``{metric: {"score",
            "individual_scores"}}``), its dict ``{"inputs", "results"}`` or a path to a JSON file of it (Documents
            as ``Document.to_dict()``); its detailed report (``detailed_report()``'s dict of lists, or the DataFrame of
            ``output_format="df"``), whose numeric columns that play no role are the scores; or a list of pipeline
            outputs (``Pipeline.run``'s ``{component: {"documents": [...], "answers" or "replies": [...]}}``), one
            per question, with the questions and gold given by the keywords below.
        inputs : dict, optional
            For a run result or report: role -> input name, for the roles ``question``, ``documents`` (retrieved),
            ``answer`` (generated), ``gold_documents``, ``gold_ids``, ``gold_answers`` and ``meta`` (a list of input
            names, each becoming a field of the query's metadata). A role not named is looked for under the names
            Haystack's evaluators and tutorials use (``question``, ``retrieved_documents``/``contexts``,
            ``predicted_answer``/``replies``, ``ground_truth_documents``, ``ground_truth_answer(s)``/``answer``, ...).
        questions, gold_documents, gold_ids, gold_answers, meta : list, optional
            For pipeline outputs: one entry per output (the question, its gold Documents, gold ids, gold answer(s)
            and metadata dict). A ``GeneratedAnswer`` knows its question, so ``questions`` may be left out then.
        scores : list or dict, optional
            Which of a run result's metrics to keep: None all, a list of their names, or a dict name ->
            ``evalframe.score_measure(...)`` declaring each (direction, bounds; its name is the score's name in
            evalframe). A metric named as a measure of evalframe's registry (``exact_match``, ``mrr``, ...) is kept as
            ``haystack_<name>`` unless declared; the others are higher-is-better and unbounded.
        documents_from, answers_from : str, optional
            For pipeline outputs: the component whose ``documents`` / ``answers`` (or ``replies``) to read, when
            several have them. Without any ``documents`` output, the documents the ``GeneratedAnswer`` cites are the
            retrieved ones.
        document_comparison_field : str, optional
            What makes a retrieved document a gold one, as Haystack's document evaluators say it: ``"content"`` (equal
            texts; the default, as Haystack's), ``"id"`` (the default when gold ids are given) or ``"meta.<key>"``.
        retriever, generator, score_node : str
            The node names (``score_node``: where the scores go; default the generator when there are answers).
        duplicates, on_invalid
            As in :meth:`from_frame`: a document twice in one ranking (by the ``document_comparison_field``: two
            chunks of one file compared by ``meta.file_id`` are one document twice) is refused unless
            ``duplicates="first"``; a question without gold is refused unless ``on_invalid="skip"``.
        sas_model, progress, **matching
            As in :meth:`from_runs`.

        Returns
        -------
        EvaluationResult

        Raises
        ------
        EvalframeError
            A missing or mistyped field, named with where it is (``inputs[2]``, ``outputs[1]``, ``row 3``, the file)
            and the input's name.

        Examples
        --------
        >>> from evalframe import EvaluationResult
        >>> run = {"inputs": {
        ...     "question": ["Capital of Germany?", "Capital of France?"],
        ...     "retrieved_documents": [[{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}],
        ...                             [{"id": "d3", "content": "Paris."}]],
        ...     "ground_truth_documents": [[{"id": "d1", "content": "Berlin."}], [{"id": "d3", "content": "Paris."}]],
        ...     "ground_truth_answer": ["Berlin", "Paris"], "predicted_answer": ["Berlin", "Lyon"]},
        ...     "results": {"faithfulness": {"score": 0.5, "individual_scores": [1.0, 0.0]}}}
        >>> result = EvaluationResult.from_haystack2(run, progress=False)
        >>> metrics = result.calculate_metrics()
        >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"], metrics["Generator"]["faithfulness"]
        (0.75, 0.5, 0.5)
        """
        options = MatchingOptions.from_keywords(matching, passed_to="from_haystack2 takes these matching options")
        read = read_haystack2(run_result_or_pipeline_outputs, inputs=inputs, questions=questions,
                              gold_documents=gold_documents, gold_ids=gold_ids, gold_answers=gold_answers, meta=meta,
                              scores=scores, documents_from=documents_from, answers_from=answers_from,
                              document_comparison_field=document_comparison_field, taken=_score_name_taken)
        return build(read.records, from_runs=cls.from_runs, retriever=retriever, generator=generator,
                     score_node=score_node, score_measures=read.score_measures or None, sas_model=sas_model,
                     progress=progress, fields=read.fields, duplicates=duplicates, on_invalid=on_invalid,
                     source=read.name, **options.as_dict())

    @classmethod
    @with_options(MatchingOptions)
    def from_llamaindex(
        cls,
        results: Any,
        *,
        scores: Sequence[str] | Mapping[str, Any] | None = None,
        retriever: str = "Retriever",
        sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
        progress: bool | None = None,
        duplicates: Literal["error", "first"] = "error",
        on_invalid: Literal["raise", "skip"] = "raise",
        **matching: Any,
    ) -> EvaluationResult:
        """A result from LlamaIndex's retrieval evaluation: ``RetrievalEvalResult`` objects, their dicts or a file of them.

        Nothing of llama-index is imported: any object with its attributes (``query``, ``expected_ids``,
        ``expected_texts``, ``retrieved_ids``, ``retrieved_texts``, ``metric_dict``) or its dict (``model_dump()``)
        is read (``docs/rag.md``). A dict may hold ``retrieved_nodes`` (``NodeWithScore`` objects or dicts, or
        LangChain documents) instead of ``retrieved_ids`` / ``retrieved_texts``. The retrieved nodes become the
        ``retriever`` node, relevant when their id is one of ``expected_ids`` (the ``expected_texts`` are the gold
        contexts); each ``metric_dict`` score becomes a score of the query (``evalframe.score_measure``).

        Parameters
        ----------
        results
            A list of ``RetrievalEvalResult`` (or one), of their dicts, or a path to a JSON file of a list of them
            or a JSON Lines file of one per line.
        scores : list or dict, optional
            Which metrics of ``metric_dict`` to keep: None all, a list of their names, or a dict name ->
            ``evalframe.score_measure(...)`` declaring each. A name evalframe's registry owns (``mrr``,
            ``precision``, ``recall``, ``ndcg``, ...) is kept as ``llamaindex_<name>`` unless declared; llama-index's
            own retrieval metrics are declared higher-is-better in [0, 1], any other higher and unbounded.
        retriever : str
            The node's name.
        duplicates, on_invalid
            As in :meth:`from_frame`: a node id twice in ``retrieved_ids`` is refused unless ``duplicates="first"``; a
            result with empty ``expected_ids`` (no gold) is refused unless ``on_invalid="skip"``.
        sas_model, progress, **matching
            As in :meth:`from_runs`.

        Returns
        -------
        EvaluationResult

        Raises
        ------
        EvalframeError
            A missing or mistyped field, named with where it is (``results[2]``, ``file:line``) and the field's name.

        Examples
        --------
        >>> from evalframe import EvaluationResult
        >>> results = [{"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
        ...             "retrieved_texts": ["Bonn.", "Berlin."], "metric_dict": {"mrr": {"score": 0.5}}},
        ...            {"query": "Capital of France?", "expected_ids": ["d3"], "retrieved_ids": ["d3"],
        ...             "retrieved_texts": ["Paris."], "metric_dict": {"mrr": {"score": 1.0}}}]
        >>> metrics = EvaluationResult.from_llamaindex(results, progress=False).calculate_metrics()["Retriever"]
        >>> metrics["mrr"], metrics["llamaindex_mrr"]
        (0.75, 0.75)
        """
        options = MatchingOptions.from_keywords(matching, passed_to="from_llamaindex takes these matching options")
        read = read_llamaindex(results, scores=scores, taken=_score_name_taken, measure=score_measure)
        return build(read.records, from_runs=cls.from_runs, retriever=retriever,
                     score_measures=read.score_measures or None, sas_model=sas_model, progress=progress,
                     fields=read.fields, duplicates=duplicates, on_invalid=on_invalid, source=read.name,
                     **options.as_dict())

    @classmethod
    def from_trec(cls, run: str | Path | Mapping[str, Mapping[str, float]], qrels: str | Path | Mapping[str, Mapping[str, int]],
                  *, node: str = "Retriever", queries: str | Path | Mapping[str, str] | None = None,
                  progress: bool | None = None, subtopics: bool = False) -> EvaluationResult:
        """A result with one document node from a TREC run and its qrels (``docs/persistence.md#trec-run-and-qrels-files``).

        The node frame has the columns :meth:`from_runs` gives a retriever whose gold labels carry only document
        ids, so every analysis works on it, plus ``score`` (the run's), ``gold_document_relevance`` (the grade of
        each of ``gold_document_ids``: the judged documents with grade > 0, in qrels order),
        ``nonrelevant_document_ids`` and ``nonrelevant_document_relevance`` (judged with grade <= 0).
        ``multilabel_id`` is the TREC query id. Rows follow trec_eval's ranking (score descending, ties by docid
        descending; ``rank`` 1..n). A query in the qrels without a run line keeps one row with document_id ``""``
        (as an empty retrieval in :meth:`from_runs`); a query in the run without judgments has empty gold lists.

        Parameters
        ----------
        run : path or dict
            A TREC run file (``qid Q0 docid rank score tag``, plain or ``.gz``) or ``{qid: {docid: score}}``.
        qrels : path or dict
            A TREC qrels file (``qid iter docid relevance``, plain or ``.gz``) or ``{qid: {docid: grade}}``.
        node : str
            The node's name (default ``"Retriever"``).
        queries : dict or path, optional
            Query texts for the ``query`` column: ``{qid: text}`` or a TSV file ``qid<TAB>text``; without it
            (or for a qid it lacks, with a warning) the query id is the text.
        progress : bool, optional
            A bar over the steps (reading, building) where a person watches; False never.
        subtopics : bool
            The qrels are subtopic (diversity) judgments, ``qid subtopic docid relevance`` (the second column is the
            subtopic; a dict ``{qid: {subtopic: {docid: grade}}}``): the diversity measures (``alpha_nDCG@k``,
            ``ERR_IA@k``, ``P_IA@k``, ``AP_IA``, ``StRecall@k``, ...) read them, and every other measure reads each
            judged document once, with its highest grade over the subtopics
            (``docs/ir-researchers.md#diversity-measures-and-subtopic-qrels``). The subtopic judgments stay with
            this result's node as read (not in its frame: a saved and loaded result has the collapsed qrels only).

        Raises
        ------
        LoadError
            A file that cannot be read; the message names the file and the 1-based line (a line without its
            columns, a score that is not a number, a grade that is not an integer, a docid twice in a query).
        InvalidParameterError
            A dict with ids that are not strings or values of the wrong kind (naming the qid and docid), or a bad
            ``node``.

        Examples
        --------
        >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.2, "d2": 3.4}, "q2": {"d3": 0.5}},
        ...                                     {"q1": {"d1": 2, "d5": 0}, "q2": {"d4": 1}}, progress=False)
        >>> result["Retriever"][["multilabel_id", "rank", "document_id", "score", "gold_document_ids"]]
          multilabel_id  rank document_id  score gold_document_ids
        0            q1     1          d2    3.4              [d1]
        1            q1     2          d1    1.2              [d1]
        2            q2     1          d3    0.5              [d4]
        >>> result.calculate_metrics()["Retriever"]["mrr"]
        0.25
        """
        from .sources.trec_files import collapse_subtopics, read_qrels, read_queries

        if not isinstance(node, str) or not node:
            raise InvalidParameterError(f"node must be a non-empty string (the node's name); got {node!r}.")
        for value, name in ((run, "run"), (qrels, "qrels"), (queries, "queries")):
            check.refuse_url(value, name=name)
        subtopics = check.check_real_bool(subtopics, name="subtopics")
        steps = Steps(show=enabled(progress), desc="reading TREC files", total=3, unit="step")
        try:
            subtopic_table = read_qrels(qrels, subtopics=True) if subtopics else None
            if subtopic_table is not None:  # the other measures read each document once, its highest grade
                qrels = collapse_subtopics(subtopic_table)
            run_table, qrels_table = read_coded_tables(run, qrels)  # codes; Arrow dictionaries of a file's docids
            steps.update(2)
            texts = read_queries(queries) if queries is not None else None
            source = TrecNodeSource(run_table, qrels_table, node=node, queries=texts)
            steps.update(1)
        finally:
            steps.close()
        # held as codes: the trec measures rank them as they are, a column is made when an analysis reads it, the
        # frame when asked for (result[node]), with its layout (evalframe.frames.pending)
        extras = {"judged_rows": functools.partial(_trec_judged_rows, source, node, subtopic_table), "trec_layout": source.layout,
                  "row_types": ("document",)}
        return cls({node: PendingFrame(source.n_rows, source, extras)},
                   matching={**MatchingOptions().as_dict(), "sas_model": None})

    def _trec_node(self, node: str | None) -> str:
        """``node``, or the one node with document rows (an error lists the nodes when there is none or several)."""
        if node is not None:
            return self.check_node(node)
        return document_node([name for name in self.node_results if self.has_documents(name)], list(self.node_results),
                             _FILE_NEEDED)

    def to_trec_run(self, path: str | Path, node: str | None = None, tag: str = "evalframe", *,
                    scores: Literal["score", "rank"] = "score", eval_mode: str = "integrated",
                    duplicates: Literal["error", "first"] = "error") -> Path:
        """Write a node's ranking as a TREC run file (``.gz``: gzip), atomically; returns the path.

        One line ``qid Q0 docid rank score tag`` per document row of ``eval_mode`` (rows with document_id ``""``,
        an empty retrieval, are left out): queries in the result's order, documents in rank order (ties by
        document_id descending), rank 1..n, scores written with ``repr``. trec_eval ranks by score, so the scores
        must agree with the ranks:

        * ``scores="score"`` (default): the node's ``score`` column (from :meth:`from_trec`, or
          ``from_runs(..., keep_scores=True)``) when it has one; a score that is NaN or that orders two documents
          of a query otherwise than their ranks (trec_eval: score descending, ties by docid descending) is an
          error naming the query. Without a ``score`` column, as ``"rank"``.
        * ``scores="rank"``: ``n - rank + 1`` for the n documents of a query, whatever the frame holds.

        A document twice in one query is an error (trec_eval refuses duplicates) unless ``duplicates="first"``,
        which writes it once, at its best rank (the ranks below close up). ``node=None``: the one node with
        document rows. See ``docs/persistence.md#trec-run-and-qrels-files``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.25, "d2": 3.5}}, {"q1": {"d1": 1}}, progress=False)
        >>> path = result.to_trec_run(pathlib.Path(tempfile.mkdtemp()) / "run.txt", tag="bm25")
        >>> print(path.read_text(), end="")
        q1 Q0 d2 1 3.5 bm25
        q1 Q0 d1 2 1.25 bm25
        """
        from .io.trec import check_tag, write_run

        check.refuse_url(path, name="path")  # before the run is built
        check_tag(tag)
        check.check_choice(scores, ("score", "rank"), name="scores")
        check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        check.check_choice(duplicates, ("error", "first"), name="duplicates")
        name = self._trec_node(node)
        # the node as the analyses read it: a pending node makes the key columns, rank and score, not the list columns
        run = run_from_frame(self._store.view(name), node=name, eval_mode=eval_mode, scores=scores, duplicates=duplicates,
                             layout=self._store.trec_layout(name))
        return write_run(run, path, tag=tag)

    def to_qrels(self, path: str | Path, node: str | None = None) -> Path:
        """Write a node's judgments as a TREC qrels file (``.gz``: gzip), atomically; returns the path.

        One line ``qid 0 docid relevance`` per judged document: ``gold_document_ids`` with their
        ``gold_document_relevance`` (1 where the frame has no grades, as :meth:`from_runs` results), and
        ``nonrelevant_document_ids`` with their grades when present. Queries in the result's order, the documents
        of a query sorted by docid; ids ``""`` and ``"00"`` (no document) are left out, a document listed twice
        keeps its highest grade. ``node=None``: the one node with document rows.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d9": 0, "d1": 2}}, progress=False)
        >>> print(result.to_qrels(pathlib.Path(tempfile.mkdtemp()) / "qrels.txt").read_text(), end="")
        q1 0 d1 2
        q1 0 d9 0
        """
        from .io.trec import write_qrels

        check.refuse_url(path, name="path")
        name = self._trec_node(node)
        return write_qrels(qrels_from_frame(self[name], node=name), path)

    # ------------------------------------------------------------------ persistence
    def save(self, out_dir: str | Path, format: str = "csv", *, partitions: int | None = None, progress: bool | None = None,
             **to_csv_kwargs: Any) -> Path:
        """Write one ``<node>.csv`` (or ``.parquet``) per node plus ``evalframe.json`` to ``out_dir``, atomically.

        ``format="parquet"`` needs ``pip install "evalframe[parquet]"``; ``load`` detects the format.
        See ``docs/persistence.md``. ``partitions=N`` (Parquet only, an int >= 1) writes each node as N files
        in which all rows of one query, in every node, share one partition number (a hash of ``multilabel_id``);
        ``load`` reads such a folder whole (docs/persistence.md#partitioned-results). Returns the folder written.
        ``progress``: a bar over the nodes, shown by default where a person watches (stderr a terminal, or a
        Jupyter kernel); False never shows it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(p.name for p in folder.iterdir())
        ['Reader.csv', 'Retriever.csv', 'evalframe.json']
        """
        from .io import save_result

        return save_result(self, check.check_path(out_dir, name="out_dir"), format, partitions=partitions, progress=progress,
                           **to_csv_kwargs)

    @classmethod
    def load(cls, load_dir: str | Path, *, progress: bool | None = None, **read_csv_kwargs: Any) -> EvaluationResult:
        """Load a folder written by :meth:`save` or by Haystack 1.x's ``EvaluationResult.save``.

        ``progress``: a bar over the nodes read, shown by default where a person watches (stderr a terminal,
        or a Jupyter kernel); False never shows it. The other keywords go to :func:`pandas.read_csv`.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import EvaluationResult, load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(EvaluationResult.load(folder))
        ['Reader', 'Retriever']
        """
        from .io import load_result

        return load_result(cls, check.check_path(load_dir, name="load_dir"), progress=progress, **read_csv_kwargs)
