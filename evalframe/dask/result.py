"""A partitioned results folder evaluated on Dask: :class:`DaskEvaluationResult` (docs/cluster.md).

Every analysis runs one task per partition number. A task reads that partition of every node
(:func:`evalframe.io.partitioned.read_partition`: all rows of its queries, in every node), builds an in-memory
:class:`evalframe.EvaluationResult` of them and runs the same public methods on it, so the kernels are those of
the in-memory path. What comes back is small: per metric the sum and the count of its per-query values (the
partials of :mod:`evalframe.analysis.aggregate`, merged on the client; the mean analyses are those of
:class:`evalframe.analysis.analyses.MeanAnalyses`, shared with the facade), or a partition's n worst queries with
the order key of their first row (merged so that ties keep the order of first appearance, as in memory). The
retriever node that simulates a retriever top-k is resolved over the whole folder and passed to each task as an
argument (:class:`Retriever`).

The folder's generation is read once by :func:`load`; a task that finds the folder saved again since raises a
LoadError instead of mixing two saves. A task whose worker dies is run again by Dask on another worker.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable

import dask
import numpy as np
import pandas as pd

from .. import _validation as check
from ..analysis.aggregate import Partial, merge, partial, slice_partial
from ..analysis.analyses import MeanAnalyses, MetricKey, SlicePiece
from ..analysis.examples import NO_ROWS_FOR_METRIC, Examples
from ..analysis.repeats import RepeatedScores, Repetitions, frame_repetitions, joined
from ..analysis.slices import FieldPresence, SliceKey, beside, check_by, check_present, labelled, query_attributes, query_keys
from ..errors import InvalidParameterError, LoadError
from ..frames.rows import NodeNeeded, document_node
from ..frames.topk import check_retriever_node, retriever_mode, retriever_node_of
from ..frames.backends import as_backend, records_as_backend
from ..frames.codings import Codings
from ..frames.scores import score_columns
from ..frames.judged_codes import check_cut
from .._locations import Remote
from ..io.folder import Folder
from ..io.remote import resolve, with_remote_retries
from ..io.manifest import read_manifest, scores_of_manifest, skipped_of_manifest
from ..io.partitioned import check_key_summaries, key_summary, partition_of_ids, read_partition
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS, Metric
from ..metrics.trec import (direction_of, known_direction, measure_texts, parse_measure, parse_measures,
                             without_direction)
from ..options import THRESHOLD, ExamplesOutputOptions, MetricOptions, OutputOptions, with_options
from ..schema import Skipped
from ..result import EvaluationResult
from .client import current_client, run

__all__ = ["DaskEvaluationResult", "Retriever", "first_appearance", "load", "local_options", "merged_columns",
           "open_partition", "partition_query_metrics", "partition_retriever"]

#: The simulated top-k options metrics_at_k sets from its ks.
_AT_K = ("simulated_top_k_reader", "simulated_top_k_retriever")
#: What trec_metrics says on Dask when ``node=None`` finds several nodes with document rows (in a partition, or
#: among those the partitions picked), or no partition has document rows of the node.
_TREC_NEEDED = NodeNeeded(
    none="no node has document rows with eval_mode={eval_mode!r}; the trec measures rank documents. Nodes: {nodes}.",
    several="trec_metrics needs node= when {count} nodes have document rows: {documents}.")


def load(load_dir: str | Path | Remote, *, client: Any = None,
         storage_options: Mapping[str, Any] | None = None) -> DaskEvaluationResult:
    """Open a partitioned results folder for evaluation on Dask; nothing but ``evalframe.json`` is read here.

    ``client``: a :class:`distributed.Client` or a scheduler address; by default the current client, else
    ``$DASK_SCHEDULER_ADDRESS``, else Dask's default scheduler in this process (:mod:`evalframe.dask.client`).
    The folder must be one ``result.save(dir, format="parquet", partitions=N)`` wrote (or
    :func:`evalframe.dask.from_runs`), on a path every worker can read, or at a URL (``s3://bucket/results``;
    ``storage_options`` go to its filesystem, on the client and on every worker): each task reads its partition's
    files whole from the generation ``evalframe.json`` names (docs/storage.md#safe-saves-on-object-storage).

    Examples
    --------
    >>> import tempfile, evalframe.dask
    >>> from evalframe import load_demo_result
    >>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=4, progress=False)
    >>> result = evalframe.dask.load(folder)
    >>> result
    DaskEvaluationResult(nodes=['Retriever', 'Reader'], partitions=4, rows={'Retriever': 24, 'Reader': 27})
    >>> round(result.calculate_metrics()["Retriever"]["recall_single_hit"], 4)
    0.875
    """
    if isinstance(load_dir, bytes) or not isinstance(load_dir, (str, os.PathLike)) or not str(load_dir):
        raise InvalidParameterError(f"load_dir must be the path of a partitioned results folder (a str or a "
                                    f"pathlib.Path); got {load_dir!r}. Pass the folder that result.save(dir, "
                                    "format='parquet', partitions=N) wrote.")
    path = resolve(load_dir, name="load_dir", storage_options=storage_options)  # a NUL character, which no file system allows
    if isinstance(path, Remote):
        manifest = with_remote_retries(path, read_manifest)
    else:
        with Folder(path) as folder:
            manifest = read_manifest(folder)
    if manifest is None or manifest.get("partitioned") is None:
        raise LoadError(f"{path} is not a partitioned results folder, which evalframe.dask reads; save the result with "
                        "result.save(dir, format='parquet', partitions=N), or read this folder with "
                        "evalframe.EvaluationResult.load(dir).")
    return DaskEvaluationResult(path, manifest, client=client)


@dataclass(frozen=True)
class Retriever:
    """The retriever_node the calls on one partition take, resolved over the whole folder and checked on the
    partition (:func:`partition_retriever`); None: the partition has no answers to cut.

    Examples
    --------
    >>> local_options({"simulated_top_k_retriever": 2}, Retriever("Retriever"))
    {'simulated_top_k_retriever': 2, 'retriever_node': 'Retriever'}
    """

    node: str | None


class DaskEvaluationResult(MeanAnalyses[Any], RepeatedScores):
    """A partitioned results folder, evaluated one partition per Dask task (open one with :func:`load`).

    The analyses take the arguments of :class:`evalframe.EvaluationResult`'s and return the same values (to
    rounding: sums are added partition by partition) and types; per-query tables are Dask DataFrames, one
    partition per partition number (``.compute()`` gives pandas; ``compute=True`` the in-memory order).

    Attributes
    ----------
    path : Path
        The folder.
    partitions : int
        Its number of partitions.
    nodes : list of str
        Its nodes, in saved order.
    rows : dict of str to int
        Rows per node.
    matching : dict
        The matching options the result was built with.
    scores : dict of str to Metric
        The declarations of the scores the folder holds (``evalframe.json``'s ``"scores"``; ``docs/scores.md``); the
        partitions are read with them.
    on_cluster : bool
        True: per-query tables are Dask DataFrames (``query_metrics(..., compute=True)`` gathers one as pandas).
    """

    on_cluster = True

    def __init__(self, path: Path | Remote, manifest: Mapping[str, Any], *, client: Any = None) -> None:
        layout = manifest["partitioned"]
        self.path: Path | Remote = path if isinstance(path, Remote) else Path(path)
        self.partitions: int = int(layout["partitions"])
        self.generation: str | None = layout.get("generation")
        self._nodes: list[str] = list(manifest["nodes"])
        self.rows: dict[str, int] = {node: int(entry["rows"]) for node, entry in manifest["nodes"].items()}
        self.matching: dict[str, Any] = dict(manifest.get("matching") or {})
        self.scores: dict[str, Metric] = scores_of_manifest(dict(manifest), path)
        self._score_names: dict[str, list[str]] = {  # each node's scores.<name> columns, as its parts record them
            node: list(dict.fromkeys(score_columns([column["name"] for part in entry["parts"]
                                                    for column in part["columns"]])))
            for node, entry in manifest["nodes"].items()}
        self.skipped: tuple[Skipped, ...] = skipped_of_manifest(dict(manifest), path)  # queries its source left out
        self._client = client
        self._row_kinds: dict[str, set[tuple[str, str]]] | None = None
        current_client(client)  # a bad client= or address fails here, not at the first analysis

    def __repr__(self) -> str:
        return f"DaskEvaluationResult(nodes={self.nodes}, partitions={self.partitions}, rows={self.rows})"

    @property
    def nodes(self) -> list[str]:
        """The folder's nodes, in saved order."""
        return list(self._nodes)

    @property
    def _source(self) -> str | Remote:
        """What the tasks open: the folder's path, or its Remote (the URL and its storage options, for the workers)."""
        return self.path if isinstance(self.path, Remote) else str(self.path)

    @property
    def client(self) -> Any:
        """The :class:`distributed.Client` the tasks run on (None: Dask's default scheduler in this process)."""
        return current_client(self._client)

    # ------------------------------------------------------------------ running tasks
    def _tasks(self, work: Callable[..., Any], *args: Any, nodes: Sequence[str] | None = None,
               retriever: tuple[str, str, str] | None = None) -> list[Any]:
        """One delayed ``work(result, keys, *args)`` per partition number (``retriever``: see :meth:`_simulated`)."""
        return [dask.delayed(_on_partition, pure=False)(self._source, number, self.generation,
                                                        None if nodes is None else list(nodes), work, args, retriever)
                for number in range(self.partitions)]

    def map_partitions(self, work: Callable[..., Any], *args: Any, nodes: Sequence[str] | None = None,
                       retriever: tuple[str, str, str] | None = None) -> list[Any]:
        """``work(result, keys, *args)`` on every partition, computed: a list with one value per partition number.

        ``result`` is the partition as an :class:`evalframe.EvaluationResult`; ``keys`` maps each node to the
        order keys of its rows (their positions in the saved result). For analyses of your own; return small values.
        With ``retriever`` (:meth:`retriever_of`), ``work`` is also passed ``retriever=`` the partition's
        :class:`Retriever`, for :func:`local_options`.

        Examples
        --------
        >>> import tempfile, evalframe.dask
        >>> from evalframe import load_demo_result
        >>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=3, progress=False)
        >>> sum(evalframe.dask.load(folder).map_partitions(lambda result, keys: len(result["Reader"])))
        27
        """
        return self._checked(run(self._tasks(work, *args, nodes=nodes, retriever=retriever), self.client))

    def _checked(self, parts: list[tuple[dict[str, tuple[int, ...]], Any]]) -> list[Any]:
        """The tasks' values, once the order keys their partitions summed up are checked over the whole folder
        (:func:`evalframe.io.partitioned.check_key_summaries`: what no task alone can see)."""
        for node in parts[0][0] if parts else ():
            check_key_summaries(self.path, node, self.rows[node], [summaries[node] for summaries, _ in parts])
        return [value for _, value in parts]

    def _kinds(self) -> dict[str, set[tuple[str, str]]]:
        """Per node, the (type, eval_mode) pairs of its rows in the whole folder (one pass, kept)."""
        if self._row_kinds is None:
            kinds: dict[str, set[tuple[str, str]]] = {node: set() for node in self.nodes}
            for part in self.map_partitions(_row_kinds):
                for node, pairs in part.items():
                    kinds[node] |= pairs
            self._row_kinds = kinds
        return self._row_kinds

    def retriever_of(self, options: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, str, str] | None]:
        """The node and eval_mode whose document rows simulate the retriever's top-k for ``options``, over the folder.

        A partition alone could pick another retriever node (the one with document rows in it) or fall back to
        the other eval_mode (when it holds no rows of this one); so the node and the mode are resolved over the
        whole folder, the node passed on, and each task checks that its partition has such rows.
        """
        if options.get("simulated_top_k_retriever", -1) == -1:
            return options, None
        kinds = self._kinds()
        asked = options.get("eval_mode", "integrated")
        if not any(("answer", asked) in pairs for pairs in kinds.values()):
            return options, None  # as in memory: no answers to cut
        documents = [node for node in self.nodes if any(t == "document" for t, _ in kinds[node])]
        node = retriever_node_of(documents, self.nodes, options.get("retriever_node"))
        mode = retriever_mode(asked, lambda mode: ("document", mode) in kinds.get(node, set()))
        return options, (node, mode, asked)

    def check_measures(self, node: str, eval_mode: str) -> None:
        """trec measures of ``node`` need its document rows of ``eval_mode`` somewhere in the folder (as in memory)."""
        if ("document", eval_mode) not in self._kinds()[self.check_node(node)]:
            documents = [n for n in self.nodes if any(t == "document" for t, _ in self._kinds()[n])]
            raise InvalidParameterError(f"node {node!r} has no document rows with eval_mode={eval_mode!r}; the trec "
                                        f"measures rank documents. Nodes with document rows: {documents}.")

    def has_answers(self, node: str) -> bool:
        """Whether ``node`` has answer rows (in any eval_mode); the first call reads the folder once."""
        return any(t == "answer" for t, _ in self._kinds()[self.check_node(node)])

    def has_documents(self, node: str) -> bool:
        """Whether ``node`` has document rows (in any eval_mode); the first call reads the folder once."""
        return any(t == "document" for t, _ in self._kinds()[self.check_node(node)])

    def check_node(self, node: str) -> str:
        """``node``, when the folder holds it (else an UnknownNodeError naming its nodes)."""
        return check.check_node(node, self.nodes)

    def score_repetitions(self, node: str, names: Sequence[str], eval_mode: str) -> dict[str, Repetitions]:
        """Each score's repetitions, read by one task per partition (a query's rows are in one partition)."""
        pieces = self.map_partitions(_partition_repetitions, node, list(names), eval_mode, nodes=[node])
        return joined([piece for piece in pieces if piece is not None], names)

    def _node_score_names(self, node: str) -> list[str]:
        return list(self._score_names.get(node, []))

    def check_options(self, keywords: Mapping[str, Any], *, passed_to: str) -> MetricOptions:
        """The call's options, checked (the threshold's default is the recorded one, which each task reads)."""
        opts = MetricOptions.from_keywords(keywords, passed_to=passed_to)
        check_retriever_node(opts.retriever_node, self.nodes, self.has_documents)  # as in memory, over the folder
        return opts

    def warn_scopes(self, options: MetricOptions) -> None:
        """Warn when the scopes disagree; without reading the folder to see whether any node has document rows."""
        options.warn_if_scopes_disagree()

    # ------------------------------------------------------------------ the partials of the mean analyses
    def metric_partials(self, nodes: Sequence[str], options: MetricOptions, keywords: Mapping[str, Any],
                        ks: Sequence[int] | None = None, values: bool = False) -> dict[MetricKey, Partial]:
        """Each partition's per-query tables summed up (one task per partition for every k), added up in partition
        order; ``values``: with each metric's distinct values and their counts (a partition's sample), merged."""
        if ks is None:
            used, retriever = self.retriever_of(dict(keywords))
            return merge(self.map_partitions(_metric_totals, list(nodes), [used], False, (), values,
                                             retriever=retriever))
        per_k = [{**keywords, "simulated_top_k_reader": k, "simulated_top_k_retriever": k} for k in ks]
        # at k a node's row scores are cut by the reader's k when it has answer rows of the eval_mode asked, as in
        # memory: decided over the folder (a partition alone may hold none of them, or only the other mode's)
        answering = [node for node in nodes if ("answer", options.eval_mode) in self._kinds()[node]]
        return merge(self.map_partitions(_metric_totals, list(nodes), per_k, True, answering))

    def slice_partials(self, by: list[SliceKey], options: MetricOptions, keywords: Mapping[str, Any],
                       measures: str | Sequence[str] | None, complete: bool,
                       duplicates: str) -> dict[str, list[SlicePiece]]:
        """Each partition's per-query tables summed up per slice (what its queries hold of the filters fields is
        checked over all partitions)."""
        measures = measure_texts(measures)  # ir_measures' measure objects: their names, not pickled to the workers
        used, retriever = self.retriever_of(dict(keywords))
        out: dict[str, list[SlicePiece]] = {}
        for part in self.map_partitions(_slice_totals, by, measures, complete, duplicates, used, retriever=retriever):
            for node, piece in part.items():
                out.setdefault(node, []).append(piece)
        return out

    def trec_partial(self, measures: str | Sequence[str], node: str | None, eval_mode: str, complete: bool,
                     duplicates: str, missing_queries: str = "skip", max_docs: int | None = None,
                     judged_only: bool = False, rel: int | None = None, values: bool = False) -> tuple[Partial, str]:
        """Each partition's per-query trec table summed up (with its samples when ``values``), merged in partition
        order, and the node the partitions
        ranked (:meth:`evalframe.analysis.analyses.MeanAnalyses.trec_partial`): the one node with document rows over
        the folder, when ``node`` is None."""
        measures = measure_texts(measures)  # ir_measures' measure objects: their names
        if node is not None:
            node = self.check_node(node)
        check_cut(max_docs, judged_only, rel)  # named here, before any task runs
        keywords = {"node": node, "eval_mode": eval_mode, "complete": complete, "duplicates": duplicates,
                    "missing_queries": missing_queries, "max_docs": max_docs, "judged_only": judged_only, "rel": rel}
        kept = [part for part in self.map_partitions(_trec_partial, measures, keywords, values) if part is not None]
        # partitions that picked different nodes: the error of several nodes with document rows
        node = document_node(sorted({used for _, used in kept}), self.nodes, _TREC_NEEDED, eval_mode=eval_mode)
        return merge({0: found} for found, _ in kept)[0], node

    # ------------------------------------------------------------------ analyses
    @with_options(OutputOptions, documented=(OutputOptions,))
    def trec_query_metrics(self, measures: str | Sequence[str], *, node: str | None = None, eval_mode: str = "integrated",
                           complete: bool = False, duplicates: str = "error", missing_queries: str = "skip",
                           max_docs: int | None = None, judged_only: bool = False, rel: int | None = None,
                           **options: Any) -> Any:
        """trec_eval's measures per query, as :meth:`evalframe.EvaluationResult.trec_query_metrics`: a Dask DataFrame
        (one partition per partition number); with ``backend="arrow"`` or ``"polars"`` that frame computed here (its
        partitions one after the other) as a pyarrow Table or a polars DataFrame."""
        output = OutputOptions.from_keywords(options, passed_to="trec_query_metrics takes these options")
        measures = measure_texts(measures)  # ir_measures' measure objects: their names
        parse_measures(measures)  # a bad measure is named here, before any task runs
        check_cut(max_docs, judged_only, rel)
        if node is not None:
            node = self.check_node(node)
        keywords = {"node": node, "eval_mode": eval_mode, "complete": complete, "duplicates": duplicates,
                    "missing_queries": missing_queries, "max_docs": max_docs, "judged_only": judged_only, "rel": rel}
        frame = self._frame(_trec_table, measures, keywords)
        return frame if output.backend == "pandas" else as_backend(frame.compute(), output.backend)

    @with_options(MetricOptions, OutputOptions, positional=("self", "node", *MetricOptions.names(), "by"),
                  documented=(OutputOptions,))
    def query_metrics(self, node: str, by: SliceKey | Sequence[SliceKey] | None = None, *, with_query: bool = False,
                      measures: str | Sequence[str] | None = None, complete: bool = False, duplicates: str = "error",
                      compute: bool = False, **options: Any) -> Any:
        """Per-query metrics of one node, as :meth:`evalframe.EvaluationResult.query_metrics`.

        Returns a Dask DataFrame with one partition per partition number (index ``multilabel_id``; queries in order
        of first appearance within a partition); ``.compute()`` gives it as pandas. ``compute=True`` gathers it to
        this process as pandas in the in-memory order (first appearance in the saved result): the one analysis
        that brings every query's row to the client. A ``filters.<field>`` (``meta.<field>``) in ``by`` that no query
        has is refused with ``compute=True`` (the Dask DataFrame labels every query None). ``backend="arrow"`` or
        ``"polars"`` gathers the table as ``compute=True`` does and gives it as a pyarrow Table or a polars DataFrame.
        """
        output, options = OutputOptions.take(options)
        if output.backend != "pandas":
            table = self.query_metrics(node, by=by, with_query=with_query, measures=measures, complete=complete,
                                       duplicates=duplicates, compute=True, **options)
            return as_backend(table, output.backend)
        node = self.check_node(node)
        measures = measure_texts(measures)  # ir_measures' measure objects: their names
        with_query = check.check_real_bool(with_query, name="with_query")
        compute = check.check_real_bool(compute, name="compute")
        self.check_options(options, passed_to="query_metrics takes these options")
        if by is not None:
            check_by(by)
        if measures is not None:
            self.check_measures(node, options.get("eval_mode", "integrated"))
        options, retriever = self.retriever_of(options)
        keywords = {"by": by, "with_query": with_query, "measures": measures, "complete": complete,
                    "duplicates": duplicates, **options}
        if not compute:
            return self._frame(_query_table, node, keywords, retriever=retriever)
        tables_and_presence = self.map_partitions(_ordered_query_table, node, keywords, nodes=[node], retriever=retriever)
        check_present([presence for _, presence in tables_and_presence], where=f"node {node!r}")
        parts = [part for part, _ in tables_and_presence]
        columns = merged_columns([part.iloc[:0] for part in parts])
        # no query left anywhere (e.g. a retriever top-k that keeps no row): the empty table of a partition that held
        # ids of the node, whose index has their dtype as in memory (a partition without them has an object index)
        empty = next((part for part in parts if part.index.dtype != object), parts[0])
        whole = pd.concat([_reindexed(part, columns) for part in parts if len(part)] or [_reindexed(empty, columns)])
        order = np.lexsort((whole["__key__"].to_numpy(), whole["__group__"].to_numpy()))
        table = whole.iloc[order].drop(columns=["__group__", "__key__"])
        return table if len(table.columns) else table.set_axis(pd.RangeIndex(0), axis=1)  # no metric: as in memory

    def gathered_query_metrics(self, node: str, by: list[SliceKey], options: Mapping[str, Any]) -> pd.DataFrame:
        """``query_metrics(node, by=by, compute=True, **options)``: the per-query table gathered to the client (one row
        per query), which ``agreement`` and ``ppi_mean`` read."""
        return self.query_metrics(node, by=by or None, compute=True, **options)

    def _frame(self, work: Callable[..., pd.DataFrame | None], *args: Any, retriever: tuple[str, str, str] | None = None) -> Any:
        """A Dask DataFrame of ``work``'s per-partition tables (its meta from partition 0's empty head)."""
        import dask.dataframe as dd

        tasks = self._tasks(work, *args, retriever=retriever)
        # a partition without rows of one type lacks its columns: a first pass gathers every partition's empty head,
        # and every partition is given the columns of the whole table (the tables are computed again on .compute(),
        # on whichever scheduler computes the frame)
        heads = self._checked(run([dask.delayed(_head)(task) for task in tasks], self.client))
        columns = merged_columns(heads)
        meta = _reindexed(next((h for h in heads if h is not None), pd.DataFrame()), columns, heads)
        parts = [dask.delayed(_reindexed)(dask.delayed(_value)(task), columns, meta) for task in tasks]
        return dd.from_delayed(parts, meta=meta, verify_meta=False)

    @with_options(MetricOptions, ExamplesOutputOptions, positional=(
        "self", "node", "n", "simulated_top_k_reader", "simulated_top_k_retriever", "document_scope", "document_metric",
        "answer_metric", "document_metric_threshold", "answer_metric_threshold", "eval_mode", "answer_scope",
        "context_matching_threshold", "retriever_node"), documented=(ExamplesOutputOptions,))  # the facade's order
    def wrong_examples(self, node: str, n: int = 3, document_metric: str = "recall_single_hit", answer_metric: str = "f1",
                       document_metric_threshold: float = THRESHOLD, answer_metric_threshold: float = THRESHOLD, *,
                       metric: str | None = None, threshold: float | None = None,
                       complete: bool = False, duplicates: str = "error", **options: Any) -> Any:
        """The ``n`` worst queries of a node, as :meth:`evalframe.EvaluationResult.wrong_examples`.

        Each partition returns its own ``n`` worst with the order key of each query's first listed row; the
        client keeps the ``n`` lowest, ties in order of first appearance in the saved result.
        """
        output, options = ExamplesOutputOptions.take(options)
        node = self.check_node(node)
        n = check.check_positive_int(n, name="n")
        metric, document_metric = measure_texts(metric), measure_texts(document_metric)  # ir_measures' objects
        self.check_options(options, passed_to="wrong_examples takes these options")
        options, retriever = self.retriever_of(options)
        arguments = {"n": n, "document_metric": document_metric, "answer_metric": answer_metric,
                     "document_metric_threshold": document_metric_threshold,
                     "answer_metric_threshold": answer_metric_threshold, "complete": complete,
                     "duplicates": duplicates, **options}
        named = metric if metric is not None else document_metric
        if known_direction(named, self.scores) == "none":  # a count: refused before any task, as in memory
            error = without_direction(str(named), self.scores, "no worst queries")
            error.parameter = "metric" if metric is not None else "document_metric"
            raise error
        if metric is not None:  # any measure of the node, worst first by its direction
            arguments.update(metric=metric, threshold=threshold)
            parts = self.map_partitions(_worst, node, arguments, retriever=retriever)
            listed = [c for part in parts for c in part if c[1] is not None]
            sign = -1.0 if listed and direction_of(listed[0][4], self.scores) == "lower" else 1.0
            ranked = sorted(listed, key=lambda c: (_sort_value(sign * c[3], None), c[2]))
            return _listed(Examples(c[1] for c in ranked[:n]), output.backend)
        parts = self.map_partitions(_worst, node, arguments, retriever=retriever)
        # a node with answer rows anywhere is ranked by its answer metric, as in memory (a partition holding only
        # its document rows ranks them instead: those are left out)
        answers = any(c[0] == "answer" for part in parts for c in part)
        candidates = [c for part in parts for c in part if c[0] == ("answer" if answers else "document") and c[1] is not None]
        metric = answer_metric if answers else None
        # a document measure where lower is better (unj@10): the highest first, as in memory
        sign = -1.0 if not answers and known_direction(document_metric) == "lower" else 1.0
        ranked = sorted(candidates, key=lambda c: (_sort_value(sign * c[3], metric), c[2]))
        return _listed(Examples(c[1] for c in ranked[:n]), output.backend)

    def query_examples(self, node: str, queries: pd.DataFrame, *, metric: str, eval_mode: str = "integrated") -> Examples:
        """:meth:`evalframe.EvaluationResult.query_examples`: the queries of ``queries`` (a per-query table, e.g. of
        ``query_metrics(node, compute=True)``), in its order, each listed by the task of its partition.

        Examples
        --------
        >>> import tempfile, evalframe.dask
        >>> from evalframe import load_demo_result
        >>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=3, progress=False)
        >>> result = evalframe.dask.load(folder)
        >>> table = result.query_metrics("Reader", compute=True).tail(2)
        >>> [e["multilabel_id"] for e in result.query_examples("Reader", table, metric="f1")] == list(table.index)
        True
        """
        node = self.check_node(node)
        if not isinstance(queries, pd.DataFrame):  # refused by the in-memory query_examples of a partition
            return Examples(self.map_partitions(_examples, node, queries, metric, eval_mode, nodes=[node])[0])
        numbers = partition_of_ids(queries.index, self.partitions)
        positions = [np.flatnonzero(numbers == number) for number in range(self.partitions)]
        tasks = [dask.delayed(_on_partition, pure=False)(self._source, number, self.generation, [node], _examples,
                                                         (node, queries.iloc[positions[number]], metric, eval_mode))
                 for number in range(self.partitions)]
        listed: list[Any] = [None] * len(queries)
        for where, part in zip(positions, self._checked(run(tasks, self.client))):
            for position, example in zip(where, part):
                listed[position] = example
        return Examples(listed)

    def compute(self) -> EvaluationResult:
        """The whole result in this process (:meth:`evalframe.EvaluationResult.load`): only for what fits in memory.

        Raises a LoadError when the folder has been saved again since :func:`load` (rather than return that save).
        """
        if isinstance(self.path, Remote):
            whole = EvaluationResult.load(self.path.url, progress=False, storage_options=self.path.storage_options)
            now = (with_remote_retries(self.path, read_manifest) or {}).get("partitioned") or {}
        else:
            whole = EvaluationResult.load(self.path, progress=False)
            with Folder(self.path) as folder:
                now = (read_manifest(folder) or {}).get("partitioned") or {}
        if now.get("generation") != self.generation:  # a save swaps the whole folder: this one is newer, or it
            raise LoadError(f"{self.path} was saved again since it was loaded with evalframe.dask.load; load it again.")
        return whole


# ---------------------------------------------------------------------- the tasks (run on the workers)
def _listed(examples: Examples, backend: str | None) -> Any:
    """The worst queries as the list (``backend=None``) or as a table of that kind."""
    return examples if backend is None else records_as_backend(list(examples), backend)


def _on_partition(path: str | Remote, number: int, generation: str | None, nodes: list[str] | None,
                  work: Callable[..., Any], args: tuple[Any, ...],
                  retriever: tuple[str, str, str] | None = None) -> tuple[dict[str, tuple[int, ...]], Any]:
    """``work`` on one partition: its order keys summed up per node (checked by the client over all partitions), and
    ``work``'s value (``retriever``: ``work`` is passed the partition's :class:`Retriever` as ``retriever=``)."""
    result, keys = open_partition(path, number, generation, nodes, retriever)
    summaries = {node: key_summary(node_keys) for node, node_keys in keys.items()}
    if retriever is None:
        return summaries, work(result, keys, *args)
    return summaries, work(result, keys, *args, retriever=partition_retriever(path, number, result, retriever))


def _value(part: tuple[Any, Any]) -> Any:
    return part[1]


def open_partition(path: str | Remote, number: int, generation: str | None, nodes: list[str] | None = None,
                   retriever: tuple[str, str, str] | None = None) -> tuple[EvaluationResult, dict[str, np.ndarray]]:
    """Partition ``number`` of a folder as an in-memory result (its nodes pending, indexed by their saved row numbers,
    which errors name), and each node's order keys; with ``nodes``, those nodes (and ``retriever``'s node,
    :meth:`DaskEvaluationResult.retriever_of`) only."""
    part = read_partition(path, number, generation, None if nodes is None or retriever is None else [*nodes, retriever[0]],
                          pending=True)  # pending nodes indexed by their order keys: columns made as the analyses read
    return EvaluationResult(part.frames, matching=part.matching, codings=Codings.of_lists(part.codings),
                            scores=part.scores), part.keys


def partition_retriever(path: str | Remote, number: int, result: EvaluationResult,
                        retriever: tuple[str, str, str]) -> Retriever:
    """The retriever_node a partition's calls take (``retriever``: (node, eval_mode of its rows, eval_mode asked),
    :meth:`DaskEvaluationResult.retriever_of`; None: no answers to cut); refuses a partition that would simulate
    the retriever's top-k otherwise than the whole result does."""
    node, mode, asked = retriever
    frames = result.node_results  # read through their views: pending nodes stay pending
    views = {name: frames.view(name) for name in frames}
    answers = any(len(frame) and ((frame["type"] == "answer") & (frame["eval_mode"] == asked)).any()
                  for frame in views.values())
    frame = views.get(node)
    if not answers or frame is None:
        return Retriever(None)
    if not ((frame["type"] == "document") & (frame["eval_mode"] == mode)).any():
        raise InvalidParameterError(
            f"{path}: partition {number} holds answers but no document rows of node {node!r} with eval_mode {mode!r}, "
            "which simulate the retriever's top-k of its answers (other partitions have them), so its answers cannot "
            "be cut as in the whole result; save the result with fewer partitions (each query's retriever rows beside "
            "its answers) if its queries have retriever rows, else evaluate it in memory (EvaluationResult.load).")
    return Retriever(node)


def local_options(options: Mapping[str, Any], retriever: Retriever | None) -> dict[str, Any]:
    """The options of a call on one partition: with ``retriever`` (:func:`partition_retriever`), its node as
    ``retriever_node`` (resolved over the whole folder; None when the partition has no answers to cut)."""
    return dict(options) if retriever is None else {**options, "retriever_node": retriever.node}


def _examples(result: EvaluationResult, keys: Any, node: str, queries: Any, metric: str, eval_mode: str) -> Examples:
    return result.query_examples(node, queries, metric=metric, eval_mode=eval_mode)


def _row_kinds(result: EvaluationResult, keys: Any) -> dict[str, set[tuple[str, str]]]:
    return {node: set(zip(frame["type"].tolist(), frame["eval_mode"].tolist())) if len(frame) else set()
            for node, frame in result.node_results.items()}


def _metric_totals(result: EvaluationResult, keys: Any, nodes: list[str], variants: list[dict[str, Any]],
                   at_k: bool = False, answering: Sequence[str] = (), values: bool = False,
                   retriever: Retriever | None = None) -> dict[MetricKey, Partial]:
    """{(node, variant, row type): partial} of the per-query tables of one partition; ``at_k``: each variant is a k
    of metrics_at_k, the row scores of the nodes in ``answering`` (answer rows of the eval_mode in the folder) cut by
    the reader's k, the others' by the retriever's."""
    out = {}
    for node in nodes:
        if node not in result.node_results:
            continue
        for i, options in enumerate(variants):
            for row_type in ("answer", "document", "score"):
                used = options
                if at_k:  # metrics_at_k: answers (and an answer node's scores) by the reader's k, documents by the retriever's
                    by_reader = row_type == "answer" or (row_type == "score" and node in answering)
                    cut = "simulated_top_k_reader" if by_reader else "simulated_top_k_retriever"
                    used = {key: value for key, value in options.items() if key not in _AT_K or key == cut}
                table = result.query_table(node, row_type, **local_options(used, retriever))
                if table is not None and at_k and row_type == "score":  # at k: the row-level scores only
                    table = table[[c for c in table.columns if result.scores[c].level == "row"]]
                if table is not None and len(table.columns):
                    out[(node, i, row_type)] = partial(table, values)
    return out


def _trec_ranked(result: EvaluationResult, measures: Any, keywords: dict[str, Any]) -> tuple[pd.DataFrame, str] | None:
    """The partition's per-query trec table and the node it ranks (``keywords["node"]``, else the partition's one node
    with document rows); None: the partition has no document rows of that node, so it adds no query."""
    documents = [node for node in result.node_results if result.has_documents(node)]
    node = keywords["node"]
    if node is None and documents:
        node = document_node(documents, list(result.node_results), _TREC_NEEDED, eval_mode=keywords["eval_mode"])
    if node not in documents:
        return None
    return result.trec_query_metrics(measures, **{**keywords, "node": node}), node


def _trec_partial(result: EvaluationResult, keys: Any, measures: Any, keywords: dict[str, Any],
                  values: bool = False) -> tuple[Partial, str] | None:
    ranked = _trec_ranked(result, measures, keywords)
    # each measure's aggregation (the registry's): the client finishes the added-up sums
    return None if ranked is None else (partial(ranked[0], values), ranked[1])


def _trec_table(result: EvaluationResult, keys: Any, measures: Any, keywords: dict[str, Any]) -> pd.DataFrame | None:
    ranked = _trec_ranked(result, measures, keywords)
    return None if ranked is None else ranked[0]


def _query_table(result: EvaluationResult, keys: Any, node: str, keywords: dict[str, Any],
                 retriever: Retriever | None = None) -> pd.DataFrame:
    return partition_query_metrics(result, node, keywords, retriever=retriever)


def partition_query_metrics(result: EvaluationResult, node: str, keywords: dict[str, Any],
                            presence: dict[str, FieldPresence] | None = None, *,
                            retriever: Retriever | None = None) -> pd.DataFrame:
    """``query_metrics`` of one partition; trec measures only where the partition has the node's document rows of the
    eval_mode (elsewhere the whole table's measure columns are NaN, as for queries trec_eval skips)."""
    frame = result[node]
    mode = keywords.get("eval_mode", "integrated")
    if keywords.get("measures") is not None and not ((frame["type"] == "document") & (frame["eval_mode"] == mode)).any():
        keywords = {key: value for key, value in keywords.items() if key not in ("measures", "complete", "duplicates")}
    # the slice labels are added here, as one part of the result: a filters field absent from this partition may be
    # in others (what it holds goes to ``presence``, which the client checks over all partitions with check_present)
    keys = query_keys(keywords.get("by"), keywords.get("with_query", False))
    keywords = {key: value for key, value in keywords.items() if key not in ("by", "with_query")}
    table = result.query_metrics(node, **local_options(keywords, retriever))
    return labelled(table, frame, keys, where=f"node {node!r}", presence={} if presence is None else presence)


def _ordered_query_table(result: EvaluationResult, keys: Any, node: str, keywords: dict[str, Any],
                         retriever: Retriever | None = None) -> tuple[pd.DataFrame, dict[str, FieldPresence]]:
    """The partition's query_metrics with the in-memory sort keys (see :func:`first_appearance`), and what its queries
    hold of the filters fields sliced by."""
    presence: dict[str, FieldPresence] = {}
    table = partition_query_metrics(result, node, keywords, presence, retriever=retriever)
    order = first_appearance(result, keys, node, table.index, keywords)
    return table.assign(__group__=order[:, 0], __key__=order[:, 1]), presence


def first_appearance(result: EvaluationResult, keys: Any, node: str, queries: pd.Index, options: dict[str, Any]) -> np.ndarray:
    """Per query of a per-query table, where the whole result's table puts it: (0, key of its first answer row) for
    a query with answer rows, else (1, key of its first document row kept by the retriever top-k, which is how
    the document table orders its queries); int64, shape (n, 2)."""
    frame = result[node]
    mode = options.get("eval_mode", "integrated")
    top_k = options.get("simulated_top_k_retriever", -1)
    order = np.zeros((len(queries), 2), dtype=np.int64)
    order[:, 0] = 1
    for number, row_type in ((1, "document"), (0, "answer")):  # answer rows decide where a query with both appears
        mask = (frame["type"].to_numpy() == row_type) & (frame["eval_mode"].to_numpy() == mode)
        if row_type == "document" and top_k != -1:
            mask &= (pd.to_numeric(frame["rank"], errors="coerce") <= top_k).to_numpy(dtype=bool, na_value=False)
        if not mask.any():
            continue
        firsts = pd.Series(keys[node][mask]).groupby(frame["multilabel_id"].to_numpy()[mask], sort=False).min()
        found = firsts.reindex(queries)
        has = found.notna().to_numpy()
        order[has, 0] = number
        order[has, 1] = found.to_numpy()[has].astype(np.int64)
    return order


def _head(part: tuple[Any, pd.DataFrame | None]) -> tuple[Any, pd.DataFrame | None]:
    summaries, table = part
    return summaries, None if table is None else table.iloc[:0]


def merged_columns(heads: Sequence[pd.DataFrame | Sequence[Any] | None]) -> list[Any]:
    """The columns of the whole table from the partitions' (each the columns of the row types it holds, in the
    whole table's order): the widest first, then each missing column after its predecessor in its partition."""
    ordered = sorted((list(h.columns) if isinstance(h, pd.DataFrame) else list(h) for h in heads if h is not None),
                     key=len, reverse=True)
    merged: list[Any] = []
    for columns in ordered:
        for i, column in enumerate(columns):
            if column not in merged:
                before = next((c for c in reversed(columns[:i]) if c in merged), None)
                merged.insert(0 if before is None else merged.index(before) + 1, column)
    return merged


def _reindexed(table: pd.DataFrame | None, columns: list[Any], meta: Any = None) -> pd.DataFrame:
    """``table`` with the whole table's columns (a missing metric is NaN: the partition has no rows of its type)."""
    if table is None:  # no rows of the node's type in this partition (trec_metrics): an empty table
        return meta.iloc[:0] if isinstance(meta, pd.DataFrame) else pd.DataFrame(columns=columns)
    if list(table.columns) == list(columns):
        return table
    if isinstance(meta, list):  # the heads: each column's dtype from a partition that has it
        dtypes = {c: h[c].dtype for h in meta if h is not None for c in h.columns}
        return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, np.float64)) for c in columns},
                            index=table.index[:0]) if not len(table) else table.reindex(columns=columns)
    return table.reindex(columns=columns)


def _slice_totals(result: EvaluationResult, keys: Any, by: list[SliceKey], measures: Any, complete: bool, duplicates: str,
                  options: dict[str, Any], retriever: Retriever | None = None) -> dict[str, SlicePiece]:
    """Per node, the partition's per-query table summed up per slice (:func:`evalframe.analysis.aggregate.slice_partial`)."""
    out = {}
    for node, frame in result.node_results.items():
        if not len(frame):
            continue
        table = result.query_metrics(node, **local_options(options, retriever))
        if measures is not None and result.has_documents(node):
            trec = result.trec_query_metrics(measures, node=node, eval_mode=options.get("eval_mode", "integrated"),
                                             complete=complete, duplicates=duplicates)
            table = table.join(trec[[c for c in trec.columns if c not in table.columns]])
        if not len(table.columns):
            continue
        presence: dict[str, FieldPresence] = {}
        labels = beside(query_attributes(frame, by, where=f"node {node!r}", presence=presence), table)
        out[node] = (list(labels.columns), slice_partial(table, labels), presence)
    return out


def _worst(result: EvaluationResult, keys: Any, node: str, arguments: dict[str, Any],
           retriever: Retriever | None = None) -> list[tuple[Any, ...]]:
    """The partition's n worst of ``node``: (row type, example, order key of its first listed row, value); with
    ``metric``, (row type, example, order key, value, the metric's column name)."""
    if node not in result.node_results or not len(result[node]):
        return []
    if arguments.get("metric") is not None:
        return _worst_by(result, keys, node, arguments, retriever)
    frame = result[node]
    mode = arguments.get("eval_mode", "integrated")
    answers = bool(((frame["type"] == "answer") & (frame["eval_mode"] == mode)).any())
    measure = arguments["document_metric"] not in DOCUMENT_METRICS
    if not answers and measure and not ((frame["type"] == "document") & (frame["eval_mode"] == mode)).any():
        return []  # no document rows to rank by a trec measure here
    examples = result.wrong_examples(node, **local_options(arguments, retriever))
    row_type = "answer" if answers else "document"
    if not examples:
        return [(row_type, None, -1, math.nan)]  # nothing to list, but the partition says which rows rank the node
    order = first_appearance(result, keys, node, pd.Index([e["multilabel_id"] for e in examples]), arguments)
    metric = arguments["answer_metric"] if row_type == "answer" else None
    out: list[tuple[str, dict | None, int, float]] = []
    for example, (_, key) in zip(examples, order):
        value = example["metrics"][metric] if metric else _document_value(example, arguments)
        out.append((row_type, example, int(key), float(value)))
    return out


def _worst_by(result: EvaluationResult, keys: Any, node: str, arguments: dict[str, Any],
              retriever: Retriever | None) -> list[tuple[Any, ...]]:
    """:func:`_worst` with ``metric=``: a partition without the rows the metric lists has nothing to list."""
    metric = arguments["metric"]
    column = metric if metric in result.scores or metric in DOCUMENT_METRICS or metric in ANSWER_METRICS \
        else str(parse_measure(metric))
    try:
        examples = result.wrong_examples(node, **local_options(arguments, retriever))
    except InvalidParameterError as exc:
        if NO_ROWS_FOR_METRIC in str(exc):  # this partition holds none of the rows the metric lists: others may
            return []
        raise
    if not examples:
        return []
    order = first_appearance(result, keys, node, pd.Index([e["multilabel_id"] for e in examples]), arguments)
    return [("any", example, int(key), float(example["metrics"][column]), column)
            for example, (_, key) in zip(examples, order)]


def _document_value(example: dict[str, Any], arguments: dict[str, Any]) -> float:
    metric = arguments["document_metric"]
    metrics = example["metrics"]
    if metric in metrics:
        return float(metrics[metric])
    return float(metrics[str(parse_measure(metric))])


def _sort_value(value: float, metric: str | None) -> float:
    return math.inf if value != value else float(value)  # NaN last, as sort_values puts it


def _partition_repetitions(result: EvaluationResult, keys: Any, node: str, names: list[str],
                           eval_mode: str) -> dict[str, Repetitions] | None:
    """One partition's repetitions of each score of ``names`` (None: the partition has no row of ``node``)."""
    if node not in result:
        return None
    return frame_repetitions(result[node], names, node=node, eval_mode=eval_mode)
