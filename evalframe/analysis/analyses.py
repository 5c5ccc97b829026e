"""The mean analyses, written once for a result in memory and for one on Dask: :class:`MeanAnalyses`.

``calculate_metrics``, ``metrics_frame``, ``sliced_metrics``, ``metrics_at_k`` and ``trec_metrics`` (and
``no_answer_summary``, ``headline_metric``, ``pipeline_order``) are defined here over a small *partials source* that
each result class implements: :meth:`MeanAnalyses.metric_partials`, :meth:`MeanAnalyses.slice_partials` and
:meth:`MeanAnalyses.trec_partial` (the per-query tables summed up,
:mod:`evalframe.analysis.aggregate`: :class:`evalframe.EvaluationResult` from its frames,
:class:`evalframe.dask.DaskEvaluationResult` per partition, merged on the client), plus the checks of the options
and of a node. Both classes thus take the same arguments (signatures generated from
:class:`evalframe.options.MetricOptions` by :func:`evalframe.options.with_options`) and return the same values.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

import pandas as pd

from ..errors import warn
from ..metrics.registry import DOCUMENT_METRICS, headline_metric
from ..metrics.trec import parse_measures, swept_measures
from ..frames.backends import as_backend
from ..options import AT_K_SETS, IntervalOptions, MetricOptions, OutputOptions, check_at_k, with_options
from .agreement import Agreement, agreement, check_options as check_agreement
from .ppi import PPIMean, check_options as check_ppi, ppi_mean
from .sides import Side, result_values
from .aggregate import Partial, means, merge_slices
from .intervals import Estimate, mean_intervals
from .slices import FieldPresence, SliceKey, check_by, check_present

__all__ = ["MeanAnalyses", "MetricKey", "SlicePiece", "metrics_table"]

#: (node, variant: 0, or the position of k in metrics_at_k's ks, row type "answer" / "document" / "score": the
#: node's declared scores, at k only those of level "row")
MetricKey = tuple[str, int, str]
#: What one part of a result gives per node for sliced_metrics: the slice label names, the
#: :func:`evalframe.analysis.aggregate.slice_partial` table, and what its queries hold of the filters fields.
SlicePiece = tuple[list[str], pd.DataFrame, dict[str, FieldPresence]]
_M = TypeVar("_M", bound=Callable[..., Any])
#: The per-query table type of a result class (pandas in memory, a Dask DataFrame on Dask).
_Table = TypeVar("_Table")


def in_session(method: _M) -> _M:
    """Run a public analysis inside the result's :meth:`MeanAnalyses.session` (e.g. the prepared arrays checked once)."""

    @functools.wraps(method)
    def wrapper(self: MeanAnalyses, *args: Any, **kwargs: Any) -> Any:
        with self.session():
            return method(self, *args, **kwargs)

    return cast(_M, wrapper)


class MeanAnalyses(Generic[_Table]):
    """The analyses that are means of per-query tables, over the partials a result class gives.

    A subclass provides ``nodes`` (the node names, in order), :meth:`has_answers`, :meth:`has_documents`,
    :meth:`check_options`, :meth:`check_node`, :meth:`metric_partials`, :meth:`slice_partials`, :meth:`trec_partial`
    and :meth:`trec_query_metrics` (whose table type, ``_Table``, the class is generic in); :meth:`session` is
    optional.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> isinstance(load_demo_result(), MeanAnalyses)
    True
    """

    # ------------------------------------------------------------------ what a result class provides
    @property
    def nodes(self) -> list[str]:
        """The node names, in order."""
        raise NotImplementedError

    def session(self) -> contextlib.AbstractContextManager[Any]:
        """The context one public analysis runs in (none by default)."""
        return contextlib.nullcontext()

    def has_answers(self, node: str) -> bool:
        """Whether ``node`` has answer rows (in any eval_mode)."""
        raise NotImplementedError

    def has_documents(self, node: str) -> bool:
        """Whether ``node`` has document rows (in any eval_mode)."""
        raise NotImplementedError

    def check_options(self, keywords: Mapping[str, Any], *, passed_to: str) -> MetricOptions:
        """The call's options, checked against this result."""
        raise NotImplementedError

    def check_node(self, node: str) -> str:
        """``node``, checked to be one of the result's (an error lists them)."""
        raise NotImplementedError

    def metric_partials(self, nodes: Sequence[str], options: MetricOptions, keywords: Mapping[str, Any],
                        ks: Sequence[int] | None = None, values: bool = False) -> dict[MetricKey, Partial]:
        """Per (node, variant, row type), the per-query table (``query_table``) summed up over the result.

        ``ks`` None: one variant (0) with ``options``; else variant i cuts the answers at the reader's top ``ks[i]``
        and the documents at the retriever's. ``keywords``: the options as passed (``options`` checked). ``values``:
        each partial holds its metrics' samples too (:func:`evalframe.analysis.aggregate.partial`), for intervals.
        """
        raise NotImplementedError

    def slice_partials(self, by: list[SliceKey], options: MetricOptions, keywords: Mapping[str, Any],
                       measures: str | Sequence[str] | None, complete: bool,
                       duplicates: str) -> dict[str, list[SlicePiece]]:
        """Per node, the :data:`SlicePiece` of each part of the result (one in memory, one per partition)."""
        raise NotImplementedError

    def trec_partial(self, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
                     duplicates: str, missing_queries: str = "skip", max_docs: int | None = None,
                     judged_only: bool = False, rel: int | None = None, values: bool = False) -> tuple[Partial, str]:
        """The per-query table of trec_eval's ``measures`` (:meth:`trec_query_metrics`) summed up over the result
        (:func:`evalframe.analysis.aggregate.partial`, with the samples when ``values``; on Dask the partitions'
        merged), and the node it ranks (``node``, or the one node with document rows); the arguments are
        :meth:`trec_metrics`', checked here."""
        raise NotImplementedError

    def trec_query_metrics(self, measures: str | Sequence[str], *, node: str | None = None,
                           eval_mode: str = "integrated", complete: bool = False, duplicates: str = "error",
                           missing_queries: str = "skip", max_docs: int | None = None, judged_only: bool = False,
                           rel: int | None = None) -> _Table:
        """trec_eval's measures of a document node per query (a DataFrame in memory, a Dask DataFrame on Dask)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ written once
    def gathered_query_metrics(self, node: str, by: list[SliceKey], options: Mapping[str, Any]) -> pd.DataFrame:
        """``query_metrics(node, by=by, **options)`` as one pandas table (on Dask: the partitions' gathered)."""
        raise NotImplementedError

    def headline_metric(self, node: str) -> str:
        """The metric a node is summed up by in reports, plots and the CLI: f1 for answer nodes, else recall_single_hit.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().headline_metric("Reader")
        'f1'
        """
        return headline_metric("answer" if self.has_answers(node) else "document")

    def pipeline_order(self) -> list[str]:
        """The nodes in pipeline order: nodes with document rows only, then the others.

        A Haystack folder records no node order (its files load in name order: Reader before Retriever),
        and retrievers feed readers, so nodes that only retrieve come first; within each group the
        result's order (from_runs' node order, evalframe.json's) is kept.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().pipeline_order()
        ['Retriever', 'Reader']
        """
        retrieving = [node for node in self.nodes if self.has_documents(node) and not self.has_answers(node)]
        return retrieving + [node for node in self.nodes if node not in retrieving]

    def warn_scopes(self, options: MetricOptions) -> None:
        """Warn when ``document_scope`` ignores ``answer_scope`` (:meth:`MetricOptions.warn_if_scopes_disagree`), if any
        node has document rows."""
        if any(self.has_documents(node) for node in self.nodes):
            options.warn_if_scopes_disagree()

    @in_session
    @with_options(MetricOptions, IntervalOptions, OutputOptions, positional=("self", *MetricOptions.names()),
                  documented=(IntervalOptions, OutputOptions))
    def metrics_frame(self, **options: Any) -> Any:
        """:meth:`calculate_metrics` as a DataFrame: one row per node, one column per metric.

        Takes the options of :meth:`calculate_metrics`. With ``ci``, each metric's column is followed by
        ``<metric>_ci_low`` and ``<metric>_ci_high`` (its interval; NaN where the node has no value or fewer than 2),
        so ``frame[metric]`` is still the mean; ``frame.attrs["ci"]`` states the interval (``confidence``,
        ``method``, ``seed``, ``rounds``).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> float(load_demo_result().metrics_frame().loc["Reader", "exact_match"])
        0.75
        >>> frame = load_demo_result().metrics_frame(ci=0.95, ci_method="t")
        >>> frame.loc["Reader", ["exact_match", "exact_match_ci_low", "exact_match_ci_high"]].round(4).tolist()
        [0.75, 0.363, 1.137]
        """
        output, options = OutputOptions.take(options)
        intervals, rest = IntervalOptions.take(options)
        MetricOptions.from_keywords(rest, passed_to="metrics_frame takes these options (for slices: sliced_metrics)")
        table = metrics_table(self.calculate_metrics(**options))
        if intervals.ci is not None:
            table.attrs["ci"] = {"confidence": intervals.ci, "method": intervals.ci_method, "seed": intervals.seed,
                                 "rounds": intervals.rounds}
        return as_backend(table, output.backend)

    @in_session
    @with_options(MetricOptions, IntervalOptions, positional=("self", *MetricOptions.names()),
                  documented=(IntervalOptions,))
    def calculate_metrics(self, **options: Any) -> dict[str, dict[str, float]]:
        """Mean metrics per node: ``{node: {metric: value}}`` (``docs/metrics.md``).

        Answer rows give ``exact_match``, ``f1`` (and ``sas``) plus ``num_examples_for_eval``;
        document rows give ``recall_multi_hit``, ``recall_single_hit``, ``precision``, ``map``,
        ``mrr`` and ``ndcg``. Each is the mean over queries of ``query_metrics``: the sum of the per-query values
        over their count (:mod:`evalframe.analysis.aggregate`; on Dask the sums and counts are added up over
        the partitions). A node's declared scores (``result.scores``, ``docs/scores.md``) follow its metrics, each
        the mean over the queries that have a value.

        Options
        -------
        simulated_top_k_reader, simulated_top_k_retriever, document_scope, eval_mode, answer_scope,
        context_matching_threshold, retriever_node
            Keyword arguments, see :class:`evalframe.options.MetricOptions`. The means per slice of queries are
            :meth:`sliced_metrics`.

        With ``ci`` (e.g. 0.95), each mean is an :class:`evalframe.analysis.intervals.Estimate`: a float equal to
        the mean without ``ci`` (bit for bit), which also holds ``low``, ``high``, ``n``, ``confidence`` and
        ``method`` and prints as ``0.75 [0.375, 1]``; ``num_examples_for_eval`` stays a float. The interval is computed
        from the per-query values of ``query_metrics`` that the mean averages (``docs/statistics.md``).

        Returns
        -------
        dict of str to dict of str to float

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
        >>> load_demo_result().calculate_metrics(ci=0.95)["Reader"]["exact_match"]
        0.75 [0.375, 1]
        """
        intervals, options = IntervalOptions.take(options)
        opts = self.check_options(options, passed_to="calculate_metrics takes these options (for slices: sliced_metrics)")
        self.warn_scopes(opts)
        totals = self.metric_partials(self.nodes, opts, options, values=intervals.ci is not None)
        out: dict[str, dict[str, float]] = {}
        for node in self.nodes:
            values: dict[str, float] = {}
            for row_type in ("answer", "document", "score"):
                found = totals.get((node, 0, row_type))
                if found is None:
                    continue
                values.update(_numbers(found, intervals))
                if row_type == "answer":
                    values["num_examples_for_eval"] = float(found.queries)
            out[node] = values
        return out

    @in_session
    @with_options(MetricOptions, positional=("self", "by", *MetricOptions.names()))
    def sliced_metrics(self, by: SliceKey | Sequence[SliceKey], *, measures: str | Sequence[str] | None = None,
                       complete: bool = False, duplicates: str = "error", **options: Any) -> pd.DataFrame:
        """Mean metrics per slice of the queries: index (node, slice label...), ``queries``, one column per metric.

        Each value is the mean over the slice's queries of ``query_metrics`` (with ``by``, the same
        labels in front); NaN labels form a slice of their own. On Dask a slice key is computed per partition: a
        callable sees one partition's per-query table (give it a rule per query, not one over all queries such as
        a quantile), a Series or dict is sent to every task.

        Parameters
        ----------
        by : str, callable, Series, dict or list of these
            A key is a per-query column (``"filters"``, ``"meta"``), ``"no_answer"``, ``"filters.<field>"``,
            ``"meta.<field>"``, a callable
            over the per-query table or a Series/dict from multilabel_id to label (see
            :mod:`evalframe.analysis.slices`).
        measures : str or list of str, optional
            trec_eval measures (``trec_metrics``) added for the document nodes, each averaged over the
            slice's queries that trec_eval evaluates (``complete`` and ``duplicates`` as in ``trec_metrics``).
        simulated_top_k_reader, simulated_top_k_retriever, document_scope, eval_mode, answer_scope,
        context_matching_threshold, retriever_node
            Keyword arguments, see :class:`evalframe.options.MetricOptions`.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> load_demo_result().sliced_metrics("no_answer")[["queries", "recall_single_hit", "f1"]].round(3)
                             queries  recall_single_hit    f1
        node      no_answer
        Retriever False            7              0.857   NaN
                  True             1              1.000   NaN
        Reader    False            7                NaN   0.81
                  True             1                NaN   1.00
        """
        opts = self.check_options(options, passed_to="sliced_metrics takes these options")
        keys = check_by(by)
        self.warn_scopes(opts)
        pieces = self.slice_partials(keys, opts, options, measures, complete, duplicates)
        out = {}
        for node in self.nodes:
            found = pieces.get(node)
            if not found:
                continue
            check_present([piece[2] for piece in found], where=f"node {node!r}")
            out[node] = merge_slices(found[0][0], [piece[1] for piece in found])
        if not out:
            return pd.DataFrame()
        return pd.concat(out, names=["node"])

    @in_session
    @with_options(MetricOptions, positional=("self", *MetricOptions.names()))
    def no_answer_summary(self, **options: Any) -> pd.DataFrame:
        """What the document metrics' means include: per document node, its queries, how many are no-answer queries,
        and each document metric over all of them beside its value over the answerable ones.

        A no-answer query (``sliced_metrics("no_answer")``: its gold answers are blank, and it has no gold document)
        scores 1.0 on every document metric (Haystack 1.x's definition, ``docs/metrics.md#per-query``), so with many
        of them a retriever's means read higher than its retrieval is. The values are those of
        :meth:`calculate_metrics` (all queries) and of :meth:`sliced_metrics` by ``"no_answer"`` (its ``False``
        slice: the answerable queries; NaN when there is none).

        Takes the options of :meth:`calculate_metrics`.

        Returns
        -------
        pandas.DataFrame
            Index ``node`` (the nodes with document rows in the ``eval_mode``), columns ``queries``,
            ``no_answer_queries``, then per document metric ``<metric>`` and ``<metric>_answerable``.

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> summary = load_demo_result().no_answer_summary()
        >>> summary.loc["Retriever", ["queries", "no_answer_queries", "mrr", "mrr_answerable"]].round(4).to_dict()
        {'queries': 8.0, 'no_answer_queries': 1.0, 'mrr': 0.7292, 'mrr_answerable': 0.6905}
        """
        self.check_options(options, passed_to="no_answer_summary takes these options")
        means_ = self.calculate_metrics(**options)
        documents = {node: [m for m in values if m in DOCUMENT_METRICS] for node, values in means_.items()}
        documents = {node: metrics for node, metrics in documents.items() if metrics}
        records = []
        if documents:
            sliced = self.sliced_metrics("no_answer", **options)
            for node, metrics in documents.items():
                slices = sliced.loc[node]
                counts = slices["queries"]
                record: dict[str, Any] = {"node": node, "queries": int(counts.sum()),
                                          "no_answer_queries": int(counts.get(True, 0))}
                for metric in metrics:
                    record[metric] = means_[node][metric]
                    record[f"{metric}_answerable"] = float(slices[metric].get(False, float("nan")))
                records.append(record)
        columns = ["queries", "no_answer_queries",
                   *dict.fromkeys(c for metrics in documents.values() for m in metrics for c in (m, f"{m}_answerable"))]
        table = pd.DataFrame.from_records(records, columns=["node", *columns]).set_index("node")
        return table.astype({"queries": "int64", "no_answer_queries": "int64"})

    @in_session
    @with_options(MetricOptions, without=AT_K_SETS, positional=("self", "ks", "node", "document_scope", "eval_mode",
                                                                "answer_scope", "context_matching_threshold"))
    def metrics_at_k(self, ks: Sequence[int] = (1, 3, 5, 10), node: str | None = None, *,
                     measures: str | Sequence[str] | None = None, complete: bool = False, duplicates: str = "error",
                     **options: Any) -> pd.DataFrame:
        """Metrics at several simulated top-k, as a tidy DataFrame with columns node, k, metric, value.

        The options are those of :class:`evalframe.options.MetricOptions` but the simulated top-k (set by
        ``ks``) and ``retriever_node`` (answer metrics at k cut the reader's ranks only). Document metrics at k
        equal ``calculate_metrics(simulated_top_k_retriever=k)``, answer metrics
        at k equal ``calculate_metrics(simulated_top_k_reader=k)``. The key arrays are prepared once;
        each k is then a few array operations with the same kernels (on Dask: every k in one task per partition).
        ``measures`` adds trec_eval measures
        of the document nodes at each k, named without their cutoff (``["nDCG", "P", "R(rel=2)"]`` gives
        rows ``nDCG`` with ``trec_metrics("nDCG@k")`` ...), all cutoffs in one pass (``complete`` and ``duplicates``
        as in ``trec_metrics``).

        Examples
        --------
        >>> from evalframe import load_demo_result
        >>> table = load_demo_result().metrics_at_k(ks=(1, 3), node="Retriever")
        >>> table[table["metric"] == "recall_single_hit"]["value"].round(4).tolist()
        [0.625, 0.875]
        """
        ks = check_at_k(ks, options)
        base = self.check_options(options, passed_to="metrics_at_k takes these options")
        nodes = [self.check_node(node)] if node is not None else list(self.nodes)
        swept = swept_measures(measures, ks)
        totals = self.metric_partials(nodes, base, options, ks)
        records: list[tuple[str, int, str, float]] = []
        for name in nodes:
            if swept and self.has_documents(name):
                values = self.trec_metrics([m for at_k in swept.values() for m in at_k], node=name,
                                           eval_mode=base.eval_mode, complete=complete, duplicates=duplicates)
                records += [(name, k, label, values[m]) for label, at_k in swept.items() for k, m in zip(ks, at_k)]
            for i, k in enumerate(ks):
                for row_type in ("answer", "document", "score"):
                    found = totals.get((name, i, row_type))
                    if found is not None:
                        records += [(name, k, metric, value) for metric, value in means(found).items()]
        return pd.DataFrame(records, columns=["node", "k", "metric", "value"])

    @in_session
    @with_options(IntervalOptions, documented=(IntervalOptions,))
    def trec_metrics(self, measures: str | Sequence[str], *, node: str | None = None, eval_mode: str = "integrated",
                     complete: bool = False, duplicates: str = "error", missing_queries: str = "skip",
                     max_docs: int | None = None, judged_only: bool = False, rel: int | None = None,
                     **interval: Any) -> dict[str, float]:
        """trec_eval's measures of a document node, with ir_measures' names: ``{measure: mean over the queries}``.

        The rules are trec_eval's (``docs/ir-researchers.md#measures-and-trec_evals-rules``); the per-query values
        are :meth:`trec_query_metrics`, whose column means these are (each measure finished by its aggregation in the
        registry, :mod:`evalframe.analysis.aggregate`; on Dask the partitions' sums and counts are added up).

        Parameters
        ----------
        measures : str or list of str
            ``AP``, ``AP@k``, ``nDCG``, ``nDCG@k``, ``P@k``, ``R@k``, ``RR``, ``RR@k``, ``Success@k``, ``Rprec``,
            ``Bpref``; the binary ones take a relevance level, ``P(rel=2)@5`` (grade >= 2 is relevant). trec_eval's
            names mean what trec_eval means: ``map`` (``AP``), ``ndcg`` (``nDCG``), ``ndcg_cut.10`` or ``ndcg_cut_10``
            (``nDCG@10``), ``P_5``, ``recall_100``, ``recip_rank``, ``success_1``, ``bpref``. The keys are the
            canonical names (``AP`` for ``map``; ``evalframe list-metrics`` lists every name).
        node : str, optional
            The node ranking documents; None picks the one node with document rows.
        eval_mode : str
            Which rows rank the documents (``"integrated"`` or ``"isolated"``).
        complete : bool
            Evaluate the queries with judgments but no retrieved document too (all measures 0), as
            ``trec_eval -c``; by default they are skipped (``missing_queries``).
        duplicates : str
            ``"error"``: a document twice in one query's ranking raises SchemaError (trec_eval refuses such a
            run); ``"first"``: the best-ranked one is kept.
        missing_queries : str
            Without ``complete``, a query with judgments but no retrieved document is ``"skip"``-ped (the default, as
            trec_eval 9.x and pytrec_eval do), or refused with a SchemaError (``"error"``, as trec_eval 10.0 does
            without -c).
        max_docs : int, optional
            At most this many documents per query, the first in trec_eval's order (``trec_eval -M``); None: all.
        judged_only : bool
            Rank the judged documents only, the others removed before ranking (``trec_eval -J``, pytrec_eval's
            ``judged_docs_only_flag``; after ``max_docs``, as trec_eval does).
        rel : int, optional
            The relevance level of every binary measure (``trec_eval -l``: grade >= rel is relevant); None: each
            measure's own (1, or its ``(rel=N)``). nDCG's gains are unchanged.

        Queries with no judged document are never evaluated. The ranking is each query's rows by
        (rank, document_id descending); the judgments are ``gold_document_ids`` / ``gold_document_relevance``
        and ``nonrelevant_document_ids`` / ``nonrelevant_document_relevance``.

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import EvaluationResult
        >>> frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
        ...                       "rank": [1, 2, 1], "document_id": ["d1", "d2", "d3"],
        ...                       "gold_document_ids": [["d2"], ["d2"], ["d3", "d4"]],
        ...                       "gold_document_relevance": [[1], [1], [2, 1]]})
        >>> result = EvaluationResult({"Retriever": frame})
        >>> result.trec_metrics(["RR", "P@1", "nDCG@1"])
        {'RR': 0.75, 'P@1': 0.5, 'nDCG@1': 0.5}
        >>> result.trec_metrics(["recip_rank", "P_1"])  # trec_eval's names
        {'RR': 0.75, 'P@1': 0.5}
        >>> result.trec_metrics(["P@1"], max_docs=1, rel=2)  # trec_eval -M 1 -l 2: q2's d3 (grade 2) only
        {'P(rel=2)@1': 0.5}
        >>> result.trec_metrics(["RR"], ci=0.95, ci_method="t")  # each mean an Estimate, as calculate_metrics'
        {'RR': 0.75 [-2.427, 3.927]}
        """
        parse_measures(measures)  # a bad measure is named first, as before the other arguments
        intervals = IntervalOptions.from_keywords(
            interval, passed_to="trec_metrics takes measures, node, eval_mode, complete, duplicates, missing_queries, "
            "max_docs, judged_only, rel and these interval options")
        found, node = self.trec_partial(measures, node, eval_mode, complete, duplicates, missing_queries, max_docs,
                                        judged_only, rel, values=intervals.ci is not None)
        if found.queries == 0:
            warn(f"trec_metrics: no query of node {node!r} is evaluated (none has both judged documents and retrieved "
                 "ones; complete=True evaluates the judged queries without retrieved documents); every mean is 0.0.")
            return {str(name): 0.0 for name in found.sums.index}
        return _numbers(found, intervals)  # each measure's aggregation (the registry's), in memory and on Dask alike

    # ------------------------------------------------------------------ the judge against the gold
    def agreement(self, node: str, *, judge: Side, gold: Side, weights: str | None = None, threshold: Any = None,
                  grades: Sequence[Any] | None = None, **options: Any) -> Agreement:
        """A judge's grades against the gold's on one node's queries: :func:`evalframe.agreement` of two columns.

        ``judge`` and ``gold`` each name a column of :meth:`query_metrics` (a metric such as ``"exact_match"``, or a
        declared score such as ``"faithfulness"``), a ``"meta.<field>"`` (``"filters.<field>"``) read as
        ``sliced_metrics``' ``by=``, or are a Series (dict) from ``multilabel_id`` to value. A query missing either
        is left out. ``weights``, ``threshold`` and ``grades`` are :func:`evalframe.agreement`'s; the other keyword
        arguments (``simulated_top_k_reader``, ...) :meth:`query_metrics`'. On Dask the per-query table is gathered
        to the client (one row per query).

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import load_demo_result
        >>> result = load_demo_result()
        >>> ids = result.query_metrics("Reader").index
        >>> result.add_scores("Reader", pd.DataFrame({"multilabel_id": ids,
        ...                   "judge": [0.9, 0.8, 0.4, 0.7, 0.3, 0.8, 0.6, 0.7]}))
        >>> found = result.agreement("Reader", judge="judge", gold="exact_match", threshold=0.5)
        >>> found.n, found.observed, round(found.kappa, 4)   # 6 of 8 alike, 0.625 by chance: (0.75 - 0.625) / 0.375
        (8, 0.75, 0.3333)
        """
        check_agreement(weights, threshold, grades)
        judged, golden = result_values(lambda by: self.gathered_query_metrics(node, by, options), node,
                                       {"judge": judge, "gold": gold})
        return agreement(judged, golden, weights=weights, threshold=threshold, grades=grades)

    def ppi_mean(self, node: str, *, judge: Side, gold: Side, confidence: float = 0.95, lam: float | str = 1.0,
                 **options: Any) -> PPIMean:
        """The judge's mean on one node corrected by the queries with gold (NaN elsewhere): :func:`evalframe.ppi_mean`
        of two columns, named as in :meth:`agreement` (a human grade attached to some queries by
        ``add_scores``, or a ``meta.<field>`` that only the graded queries have).

        Examples
        --------
        >>> import pandas as pd
        >>> from evalframe import load_demo_result
        >>> result = load_demo_result()
        >>> ids = result.query_metrics("Reader").index
        >>> result.add_scores("Reader", pd.DataFrame({"multilabel_id": ids,
        ...                   "judge": [0.9, 0.8, 0.4, 0.7, 0.3, 0.8, 0.6, 0.7],
        ...                   "human": [1.0, 0.5, None, None, 0.0, None, None, None]}))
        >>> found = result.ppi_mean("Reader", judge="judge", gold="human")
        >>> round(found.estimate, 4), found.n_labeled     # mean(.4, .7, .8, .6, .7) - mean(-.1, .3, .3)
        (0.4733, 3)
        """
        check_ppi(confidence, lam)
        judged, golden = result_values(lambda by: self.gathered_query_metrics(node, by, options), node,
                                       {"judge": judge, "gold": gold})
        return ppi_mean(judged, golden, confidence=confidence, lam=lam)


def metrics_table(metrics: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    """``calculate_metrics``' numbers as :meth:`MeanAnalyses.metrics_frame`'s table: one row per node (index
    ``node``), one column per metric, each followed by ``<metric>_ci_low`` and ``<metric>_ci_high`` when some node's
    value is an :class:`evalframe.analysis.intervals.Estimate` (NaN for the others).

    Examples
    --------
    >>> metrics_table({"Reader": {"f1": Estimate(0.5, 0.25, 0.75, 8, 0.95, "t")}}).columns.tolist()
    ['f1', 'f1_ci_low', 'f1_ci_high']
    """
    table = pd.DataFrame.from_dict({node: {name: float(value) for name, value in values.items()}
                                    for node, values in metrics.items()}, orient="index")
    table.index.name = "node"
    columns: dict[str, pd.Series] = {}
    for name in table.columns:
        columns[name] = table[name]
        bounded = {node: value for node, values in metrics.items() if isinstance(value := values.get(name), Estimate)}
        if bounded:
            columns[f"{name}_ci_low"] = pd.Series({node: v.low for node, v in bounded.items()}, dtype="float64")
            columns[f"{name}_ci_high"] = pd.Series({node: v.high for node, v in bounded.items()}, dtype="float64")
    return pd.DataFrame(columns, index=table.index) if len(columns) > len(table.columns) else table


def _numbers(found: Partial, intervals: IntervalOptions) -> dict[str, float]:
    """The metrics' numbers of ``found`` (:func:`evalframe.analysis.aggregate.means`), each an
    :class:`evalframe.analysis.intervals.Estimate` when ``intervals`` asks for a ci (``found`` then holds the samples)."""
    numbers = means(found)
    if intervals.ci is None or found.values is None:
        return numbers
    return dict(mean_intervals(found.values, numbers, intervals))
