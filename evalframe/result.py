"""EvaluationResult: one DataFrame per pipeline node, and the analyses on them.

The facade: a read-only Mapping of node frames (with ``append`` and ``result[node] = frame``) that displays itself,
checks each call's options (:mod:`evalframe.options`), keeps what is prepared from its frames
(:mod:`evalframe.frames.store`) and delegates each analysis to the stage that does it: a node's per-query tables, its
judged rows, the trec measures' table and relstrings to :mod:`evalframe.frames.tables`; their means
(``calculate_metrics``, ``sliced_metrics``, ``metrics_at_k``, ``trec_metrics``) to
:class:`evalframe.analysis.analyses.MeanAnalyses`; the worst queries (``wrong_examples``, ``query_examples``) to
:mod:`evalframe.analysis.examples`; the report to :mod:`evalframe.report`; TREC files and result folders to
:mod:`evalframe.io`.
"""

from __future__ import annotations

import contextlib
import functools
import html
import inspect
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar, cast

import pandas as pd

from . import _validation as check
from ._locations import Remote, locate
from .analysis.examples import Examples, examples_of, with_measures, worst_examples
from .analysis.repeats import RepeatedScores, Repetitions, frame_repetitions
from .analysis.aggregate import Partial, partial, slice_partial
from .analysis.analyses import MeanAnalyses, MetricKey, SlicePiece
from .analysis.slices import SliceKey, beside, labelled, query_attributes, query_keys
from .columns import EVAL_MODES
from .errors import InvalidParameterError
from .frames.backends import as_backend, records_as_backend
from .frames.codings import Codings
from .frames.pending import NodeFrames, PendingFrame
from .frames.rows import NodeNeeded, document_node
from .frames.store import PreparedStore
from .frames.tables import (answer_table, document_table, listed_rows, node_query_table, score_table, trec_relstrings,
                            trec_table)
from .frames.topk import check_retriever_node
from .metrics.registry import Metric
from .report.reports import Report, build_report
from .frames.scores import ADD_SCORES, attach_scores, declared_by, node_scores
from .metrics.trec import measure_texts
from .schema import Skipped
from .sources.assemble import Built, assemble, checked_skipped
from .sources.catalog import read_source
from .sources.frame import read_frame
from .sources.haystack2 import read_haystack2
from .sources.llamaindex import read_llamaindex
from .sources.trec import read_trec
from .sources.ragas import read_ragas
from .options import (THRESHOLD, ExamplesOutputOptions, MatchingOptions, MetricOptions, OutputOptions, ReportOptions,
                      with_options)

__all__ = ["EvaluationResult"]

#: What to_trec_run and to_qrels say when ``node=None`` finds no node, or several, with document rows (one text).
_FILE_NODE = ("node=None picks the one node with document rows, but this result has {count} ({documents}) among its "
              "nodes {nodes}; pass node='<name>'.")
_FILE_NEEDED = NodeNeeded(none=_FILE_NODE, several=_FILE_NODE)
_M = TypeVar("_M", bound=Callable[..., Any])
_P = ParamSpec("_P")


def _fresh(method: _M) -> _M:
    """Mark a public entry point: the prepared arrays are checked against the frames once per call."""

    @functools.wraps(method)
    def wrapper(self: EvaluationResult, *args: Any, **kwargs: Any) -> Any:
        with self._store.session():
            return method(self, *args, **kwargs)

    return cast(_M, wrapper)


def _documented(by: Callable[..., Any]) -> Callable[[_M], _M]:
    """A delegate's docstring: that of ``by``, the function that does its work (documented once, there)."""

    def document(method: _M) -> _M:
        method.__doc__ = by.__doc__
        return method

    return document

def _built_by(read: Callable[_P, Built], name: str) -> classmethod[EvaluationResult, _P, EvaluationResult]:
    """The classmethod ``name``: the result of what the source function ``read`` built, with ``read``'s signature and
    documentation (generated, not restated: ``help(EvaluationResult.from_ragas)`` shows every parameter; the example
    runs as a doctest of the source's module)."""
    signature = inspect.signature(read)
    def build(cls: type[EvaluationResult], *args: _P.args, **kwargs: _P.kwargs) -> EvaluationResult:
        try:  # a call that does not fit is named as the user wrote it, not as the source function
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"EvaluationResult.{name}(): {exc}") from None
        return cls(read(*args, **kwargs))

    functools.update_wrapper(build, read)
    build.__name__, build.__qualname__ = name, f"EvaluationResult.{name}"
    build.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[inspect.Parameter("cls", inspect.Parameter.POSITIONAL_OR_KEYWORD), *signature.parameters.values()],
        return_annotation="EvaluationResult")
    build.__doc__ = _RETURNS_BUILT.sub(r"\1\2EvaluationResult\n", read.__doc__ or "")
    return classmethod(build)


#: A source function's "Returns" section (what it built), which its classmethod's documentation says is the result.
_RETURNS_BUILT = re.compile(r"(Returns\n\s*-------\n)( *)Built\n(?:\2 .*\n)*")


class EvaluationResult(MeanAnalyses[pd.DataFrame], RepeatedScores, Mapping):
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
    node_results : dict of str to pandas.DataFrame, or Built, optional
        The node frames (see ``docs/metrics.md`` for the columns), or a
        :class:`evalframe.frames.pending.PendingFrame` for a node held as columns (what ``from_trec`` and ``load``
        pass); or what a source built (:class:`evalframe.sources.assemble.Built`: its frames, codings, scores,
        matching and skipped queries, the other parameters then left out), as the ``from_<source>`` classmethods
        pass it.
    matching : dict, optional
        The matching options the frames were built with (:class:`evalframe.options.MatchingOptions`, and
        ``sas_model``); saved in ``evalframe.json``; its ``context_matching_threshold`` is the default of the
        document metrics'.
    codings : Codings, optional
        What the builder or loader of the frames knows of their coding (:class:`evalframe.frames.codings.Codings`):
        per node, its list columns' distinct cells and a code per row (so that work per cell is done once per
        distinct cell) and how :meth:`from_trec` built its key columns. Each is used while the columns it
        describes hold what they held.
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

    def __init__(self, node_results: Mapping[str, pd.DataFrame | PendingFrame] | Built | None = None, *,
                 matching: Mapping[str, Any] | None = None,
                 codings: Codings | None = None,
                 scores: Mapping[str, Metric] | None = None, skipped: Sequence[Skipped] | None = None) -> None:
        if isinstance(node_results, Built):  # what a source built (evalframe.sources.assemble), whole
            given = next((name for name, value in (("matching", matching), ("codings", codings), ("scores", scores),
                                                   ("skipped", skipped))
                          if value is not None), None)
            if given is not None:
                raise InvalidParameterError(f"EvaluationResult(built) takes the {given} the source built; {given}= "
                                            "is for a dict of node frames.", parameter=given)
            built = node_results
            node_results, matching, codings, scores = built.frames, built.matching, built.codings, built.scores
            skipped = built.skipped
        if scores is not None and not isinstance(scores, Mapping):
            raise InvalidParameterError(f"scores must be a dict {{name: evalframe.score_measure(...)}}; got "
                                        f"{type(scores).__name__}.", parameter="scores")
        self.scores: dict[str, Metric] = dict(scores or {})
        self.skipped: tuple[Skipped, ...] = () if skipped is None or skipped == () else checked_skipped(skipped)
        self.node_results = node_results or {}
        if isinstance(matching, MatchingOptions):
            matching = matching.as_dict()
        if matching is not None and not isinstance(matching, Mapping):
            raise InvalidParameterError(f"matching must be a dict or MatchingOptions; got {type(matching).__name__}.")
        self.matching: dict[str, Any] = dict(matching or {})
        if codings is not None and not isinstance(codings, Codings):
            raise InvalidParameterError(f"codings must be an evalframe.frames.codings.Codings (node -> NodeCoding); "
                                        f"got {type(codings).__name__}.")
        for node, coding in (codings or Codings()).items():
            self._store.keep_coding(self.check_node(node), coding)  # checked against the node's frame there

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
                   description: str | Mapping[str, str] = "", repetition: str | None = None) -> None:
        node = self.check_node(node)
        self[node], declared = attach_scores(self[node], table, declared_by(direction, bounds, description), node=node,
                                             repetition=repetition)
        self.scores = {**self.declared_scores(), **declared}

    add_scores.__doc__ = ADD_SCORES  # frames/scores.py, beside the checks it describes

    def score_repetitions(self, node: str, names: Sequence[str], eval_mode: str) -> dict[str, Repetitions]:
        return frame_repetitions(self[node], names, node=node, eval_mode=eval_mode)

    def _node_score_names(self, node: str) -> list[str]:
        return list(node_scores(self[node].columns, self.declared_scores(), where=f"node {node!r}"))

    def _declarations(self) -> Mapping[str, Metric]:
        return self.declared_scores()

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
                        ks: Sequence[int] | None = None, values: bool = False) -> dict[MetricKey, Partial]:
        """The per-query tables summed up (:meth:`evalframe.analysis.analyses.MeanAnalyses.metric_partials`)."""
        out: dict[MetricKey, Partial] = {}
        for node in nodes:
            for i, k in enumerate([None] if ks is None else ks):
                answers = answer_table(self._store, node,
                                       options if k is None else options.replace(simulated_top_k_reader=k))
                if answers is not None:
                    out[(node, i, "answer")] = partial(answers, values)
                documents = document_table(self._store, node,
                                           options if k is None else options.replace(simulated_top_k_retriever=k))
                if documents is not None:
                    out[(node, i, "document")] = partial(documents, values)
                # at k a node's row scores are cut as its metrics are: by the reader's k when it has answers
                # (the retriever's k would drop answers too), else by the retriever's
                cut = "simulated_top_k_reader" if answers is not None else "simulated_top_k_retriever"
                scored = score_table(self._store, node, options if k is None else options.replace(**{cut: k}),
                                     self.declared_scores(), levels=("query", "row") if k is None else ("row",))
                if scored is not None:
                    out[(node, i, "score")] = partial(scored, values)
        return out

    def slice_partials(self, by: list[SliceKey], options: MetricOptions, keywords: Mapping[str, Any],
                       measures: str | Sequence[str] | None, complete: bool,
                       duplicates: str) -> dict[str, list[SlicePiece]]:
        """Each node's per-query table summed up per slice (one piece: the whole result)."""
        out: dict[str, list[SlicePiece]] = {}
        for node in self.node_results:
            table = node_query_table(self._store, node, options, self.declared_scores())
            if measures is not None and self.has_documents(node):
                table = with_measures(self, table, node, measures, options.eval_mode, complete, duplicates)
            if len(table.columns):
                labels = beside(query_attributes(self._store.view(node), by, where=f"node {node!r}"), table)
                out[node] = [(list(labels.columns), slice_partial(table, labels), {})]
        return out

    def declared_scores(self) -> dict[str, Metric]:
        """``result.scores``, checked: a dict of score names to :func:`evalframe.score_measure` declarations."""
        if not isinstance(self.scores, Mapping) or not all(
                isinstance(m, Metric) and m.family == "score" and m.name == name for name, m in self.scores.items()):
            raise InvalidParameterError(
                "result.scores must be a dict {name: evalframe.score_measure(name, ...)} (each entry's name its key); "
                f"got {check.short_repr(self.scores)}.", parameter="result.scores")
        return dict(self.scores)

    def node_rows(self, node: str, row_type: str, eval_mode: str = "integrated") -> pd.DataFrame:
        """The node frame's own rows of one type (``"answer"`` or ``"document"``) and eval_mode, in frame order: what
        :meth:`wrong_examples` and :meth:`query_examples` list.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> rows = load_demo_result().node_rows("Retriever", "document")
        >>> len(rows), set(rows["type"]), set(rows["eval_mode"])
        (24, {'document'}, {'integrated'})
        """
        node = self.check_node(node)
        row_type = check.check_choice(row_type, ("answer", "document"), name="row_type")
        eval_mode = check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
        return listed_rows(self._store, node, row_type, eval_mode)

    # ------------------------------------------------------------------ public analyses
    @_fresh
    @with_options(MetricOptions, OutputOptions, positional=("self", "node", *MetricOptions.names(), "by"),
                  documented=(OutputOptions,))
    def query_metrics(self, node: str, by: SliceKey | Sequence[SliceKey] | None = None, *, with_query: bool = False,
                      measures: str | Sequence[str] | None = None, complete: bool = False, duplicates: str = "error",
                      **options: Any) -> Any:
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
        >>> load_demo_result().query_metrics("Reader", backend="arrow").column_names  # the query ids a column
        ['multilabel_id', 'exact_match', 'f1']
        """
        output, options = OutputOptions.take(options)
        node = check.check_node(node, list(self.node_results))
        with_query = check.check_real_bool(with_query, name="with_query")
        opts = self.check_options(options, passed_to="query_metrics takes these options")
        keys = query_keys(by, with_query)
        table = with_measures(self, node_query_table(self._store, node, opts, self.declared_scores()), node, measures,
                              opts.eval_mode, complete, duplicates)
        return as_backend(labelled(table, self._store.view(node), keys, where=f"node {node!r}"), output.backend)

    def gathered_query_metrics(self, node: str, by: list[SliceKey], options: Mapping[str, Any]) -> pd.DataFrame:
        """``query_metrics(node, by=by, **options)``: the per-query table that ``agreement`` and ``ppi_mean`` read."""
        return self.query_metrics(node, by=by or None, **options)

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
            return score_table(self._store, node, opts, self.declared_scores())
        return (answer_table if row_type == "answer" else document_table)(self._store, node, opts)

    def trec_partial(self, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
                     duplicates: str, missing_queries: str = "skip", max_docs: int | None = None,
                     judged_only: bool = False, rel: int | None = None, values: bool = False) -> tuple[Partial, str]:
        """The per-query table of :meth:`trec_metrics` summed up (:func:`evalframe.analysis.aggregate.partial`), and the
        node it ranks (:meth:`evalframe.analysis.analyses.MeanAnalyses.trec_partial`)."""
        table, node = trec_table(self._store, measures, node, eval_mode, complete, duplicates, missing_queries, max_docs,
                                 judged_only, rel)
        return partial(table, values), node

    @_fresh
    @with_options(OutputOptions, documented=(OutputOptions,))
    def trec_query_metrics(self, measures: str | Sequence[str], *, node: str | None = None,
                           eval_mode: str = "integrated", complete: bool = False, duplicates: str = "error",
                           missing_queries: str = "skip", max_docs: int | None = None, judged_only: bool = False,
                           rel: int | None = None, **options: Any) -> Any:
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
        >>> EvaluationResult({"Retriever": frame}).trec_query_metrics(["RR"], backend="polars").to_dict(as_series=False)
        {'multilabel_id': ['q1', 'q2'], 'RR': [0.5, 1.0]}
        """
        output = OutputOptions.from_keywords(options, passed_to="trec_query_metrics takes these options")
        return as_backend(trec_table(self._store, measures, node, eval_mode, complete, duplicates, missing_queries,
                                     max_docs, judged_only, rel)[0], output.backend)

    @_documented(trec_relstrings)
    def trec_relstrings(self, length: int = 10, *, node: str | None = None, eval_mode: str = "integrated",
                        complete: bool = False, duplicates: str = "error", missing_queries: str = "skip",
                        max_docs: int | None = None, judged_only: bool = False) -> pd.Series:
        return trec_relstrings(self._store, length, node, eval_mode, complete, duplicates, missing_queries, max_docs,
                               judged_only)

    @_fresh
    @with_options(MetricOptions, ExamplesOutputOptions, positional=(
        "self", "node", "n", "simulated_top_k_reader", "simulated_top_k_retriever", "document_scope", "document_metric",
        "answer_metric", "document_metric_threshold", "answer_metric_threshold", "eval_mode", "answer_scope",
        "context_matching_threshold", "retriever_node"), documented=(ExamplesOutputOptions,))  # Haystack 1.x's order
    @_documented(worst_examples)
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
    ) -> Any:
        output, options = ExamplesOutputOptions.take(options)
        metric, document_metric = measure_texts(metric), measure_texts(document_metric)  # ir_measures' objects
        examples = worst_examples(self, node, n, document_metric, answer_metric, document_metric_threshold,
                                  answer_metric_threshold, metric, threshold, complete, duplicates, options)
        return examples if output.backend is None else records_as_backend(list(examples), output.backend)

    @_fresh
    @_documented(examples_of)
    def query_examples(self, node: str, queries: pd.DataFrame, *, metric: str,
                       eval_mode: str = "integrated") -> Examples:
        return examples_of(self, node, queries, metric, eval_mode)

    @with_options(ReportOptions, positional=("self", "n", "node_order", "max_characters_per_field", "charts"),
                  documented=(ReportOptions,))
    def report(self, **options: Any) -> Report:
        """The evaluation report: pipeline funnel and worst queries, as ``.text`` and self-contained ``.html``.

        A node's declared scores (``result.scores``) are rows of its funnel; ``metric`` ranks the worst queries of
        each node that has it by that metric (a score too, worst first by its direction) instead of the headline one.

        ``metrics_filter``, ``document_scope``, ``answer_scope`` and ``wrong_examples_fields`` are those of
        Haystack 1.x's ``print_eval_report`` (:func:`evalframe.print_eval_report`); the report states its scopes.
        ``n``, ``node_order``, ``max_characters_per_field`` and ``charts`` may also be given by position, in this order.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> report = load_demo_result().report(n=1, charts=False)
        >>> report.text.splitlines()[3]
        'Pipeline funnel (integrated evaluation)'
        """
        if options.get("measures") is not None:  # ir_measures' measure objects: their names
            options = {**options, "measures": measure_texts(options["measures"])}
        return build_report(self, **options)

    # ------------------------------------------------------------------ building: what a source built (sources/)
    from_runs = _built_by(assemble, "from_runs")
    from_frame = _built_by(read_frame, "from_frame")
    from_ragas = _built_by(read_ragas, "from_ragas")
    from_haystack2 = _built_by(read_haystack2, "from_haystack2")
    from_llamaindex = _built_by(read_llamaindex, "from_llamaindex")
    from_trec = _built_by(read_trec, "from_trec")
    from_source = _built_by(read_source, "from_source")

    def _trec_node(self, node: str | None) -> str:
        """``node``, or the one node with document rows (an error lists the nodes when there is none or several)."""
        if node is not None:
            return self.check_node(node)
        return document_node([name for name in self.node_results if self.has_documents(name)], list(self.node_results),
                             _FILE_NEEDED)

    def to_trec_run(self, path: str | Path, node: str | None = None, tag: str = "evalframe", *,
                    scores: Literal["score", "rank"] = "score", eval_mode: str = "integrated",
                    duplicates: Literal["error", "first"] = "error",
                    storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
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
        document rows. See ``docs/persistence.md#trec-run-and-qrels-files``. ``path`` may be a URL
        (``s3://bucket/run.txt``, ``storage_options``: its filesystem's options; ``docs/storage.md``), written in one
        request; the :class:`~evalframe._locations.Remote` written is returned.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.25, "d2": 3.5}}, {"q1": {"d1": 1}}, progress=False)
        >>> path = result.to_trec_run(pathlib.Path(tempfile.mkdtemp()) / "run.txt", tag="bm25")
        >>> print(path.read_text(), end="")
        q1 Q0 d2 1 3.5 bm25
        q1 Q0 d1 2 1.25 bm25
        """
        from .io.trec import check_run_arguments, write_node_run

        check_run_arguments(path, tag, scores, eval_mode, duplicates, storage_options)  # before the run is built
        name = self._trec_node(node)
        # the node as the analyses read it: a pending node makes the key columns, rank and score, not the list columns
        return write_node_run(self._store.view(name), path, node=name, tag=tag, scores=scores, eval_mode=eval_mode,
                              duplicates=duplicates, layout=self._store.trec_layout(name), storage_options=storage_options)

    def to_qrels(self, path: str | Path, node: str | None = None, *,
                 storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
        """Write a node's judgments as a TREC qrels file (``.gz``: gzip), atomically; returns the path.

        One line ``qid 0 docid relevance`` per judged document: ``gold_document_ids`` with their
        ``gold_document_relevance`` (1 where the frame has no grades, as :meth:`from_runs` results), and
        ``nonrelevant_document_ids`` with their grades when present. Queries in the result's order, the documents
        of a query sorted by docid; ids ``""`` and ``"00"`` (no document) are left out, a document listed twice
        keeps its highest grade. ``node=None``: the one node with document rows. ``path`` may be a URL
        (``storage_options``: its filesystem's options), written in one request.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> result = EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d9": 0, "d1": 2}}, progress=False)
        >>> print(result.to_qrels(pathlib.Path(tempfile.mkdtemp()) / "qrels.txt").read_text(), end="")
        q1 0 d1 2
        q1 0 d9 0
        """
        from .io.trec import write_node_qrels

        if isinstance(path, (str, os.PathLike)) and str(path):
            locate(path, name="path", storage_options=storage_options)  # before the node is read
        name = self._trec_node(node)
        return write_node_qrels(self[name], path, node=name, storage_options=storage_options)

    # ------------------------------------------------------------------ persistence
    def save(self, out_dir: str | Path, format: str = "csv", *, partitions: int | None = None, progress: bool | None = None,
             storage_options: Mapping[str, Any] | None = None, **to_csv_kwargs: Any) -> Path | Remote:
        """Write one ``<node>.csv`` (or ``.parquet``) per node plus ``evalframe.json`` to ``out_dir``, atomically.

        ``load`` detects the format.
        See ``docs/persistence.md``. ``partitions=N`` (Parquet only, an int >= 1) writes each node as N files
        in which all rows of one query, in every node, share one partition number (a hash of ``multilabel_id``);
        ``load`` reads such a folder whole (docs/persistence.md#partitioned-results). Returns the folder written.
        ``progress``: a bar over the nodes, shown by default where a person watches (stderr a terminal, or a
        Jupyter kernel); False never shows it.

        ``out_dir`` may be a URL (``s3://bucket/results``, ``memory://x``; ``storage_options`` go to its filesystem):
        the result is then written as a new generation and published by one PUT of ``evalframe.json``, so readers see
        the old result or the new one whole (docs/storage.md#safe-saves-on-object-storage); the return value is then
        the :class:`~evalframe._locations.Remote` written, which :meth:`load` takes.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(p.name for p in folder.iterdir())
        ['Reader.csv', 'Retriever.csv', 'evalframe.json']
        >>> load_demo_result().save("memory://evalframe-doc/save/run", progress=False)
        Remote('memory://evalframe-doc/save/run')
        """
        from .io import resolve, save_result

        return save_result(self, resolve(out_dir, name="out_dir", storage_options=storage_options), format,
                           partitions=partitions, progress=progress, **to_csv_kwargs)

    @classmethod
    def load(cls, load_dir: str | Path, *, progress: bool | None = None, storage_options: Mapping[str, Any] | None = None,
             **read_csv_kwargs: Any) -> EvaluationResult:
        """Load a folder written by :meth:`save` or by Haystack 1.x's ``EvaluationResult.save``.

        ``progress``: a bar over the nodes read, shown by default where a person watches (stderr a terminal,
        or a Jupyter kernel); False never shows it. The other keywords go to :func:`pandas.read_csv`.
        ``load_dir`` may be a URL (``storage_options`` go to its filesystem): every file is read whole at the load,
        from the generation ``evalframe.json`` names (docs/storage.md#safe-saves-on-object-storage).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from evalframe import EvaluationResult, load_demo_result
        >>> folder = load_demo_result().save(pathlib.Path(tempfile.mkdtemp()) / "run")
        >>> sorted(EvaluationResult.load(folder))
        ['Reader', 'Retriever']
        >>> _ = load_demo_result().save("memory://evalframe-doc/load/run", progress=False)
        >>> sorted(EvaluationResult.load("memory://evalframe-doc/load/run", progress=False))
        ['Reader', 'Retriever']
        """
        from .io import load_result, resolve

        return load_result(cls, resolve(load_dir, name="load_dir", storage_options=storage_options), progress=progress,
                           **read_csv_kwargs)
