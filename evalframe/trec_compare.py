"""``evalframe.compare``: runs compared from TREC run files, pytrec_eval's dicts or results, on trec_eval's measures.

:func:`compare` is :func:`evalframe.analysis.compare.compare` (results and per-query tables, as before) that also
takes TREC runs: a run file or ``{qid: {docid: score}}`` is read with its ``qrels`` by
:meth:`EvaluationResult.from_trec` (the readers of ``evalframe trec``, whose errors name the file and line), every run
is evaluated with :meth:`EvaluationResult.trec_query_metrics` on one query set, and the per-query tables are compared
by the analysis stage's paired statistics (bootstrap interval, effect sizes, the paired tests, the corrections), with the
column ``significant`` at ``max_p`` (ranx's ``compare(qrels, runs, metrics, max_p=...)``).

The module belongs to the facade's stage: it reads runs into :class:`~evalframe.result.EvaluationResult`, which the
analysis stage may not import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Union, cast

import pandas as pd

from .analysis.compare import is_result, run_names
from .analysis.compare import compare as compare_results
from ._locations import check_storage_options
from ._validation import check_keywords
from .errors import EvalframeError, InvalidParameterError, warn
from .metrics.trec import measure_texts
from .frames.backends import as_backend
from .options import CompareOptions, MetricOptions, OutputOptions, with_options
from .result import EvaluationResult
from .sources.trec_frames import is_run_frame
from .sources.irds import irds_dataset, is_irds
from .sources.trec_stream import TrecSource, remote_source

__all__ = ["compare", "is_trec_run", "TREC_MEASURES", "MAX_P"]

#: The measures compared when ``metrics`` is not given: those ``evalframe trec`` prints without ``-m``.
TREC_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec", "Bpref")
#: The p-value at or below which a delta between TREC runs is marked significant unless ``max_p`` says otherwise.
MAX_P = 0.05

Run = Union[str, "os.PathLike[str]", Mapping[str, Mapping[str, float]], EvaluationResult, pd.DataFrame, Any]


def is_trec_run(run: object) -> bool:
    """Whether ``run`` is a TREC run to read with qrels: a path (``str`` or ``os.PathLike``), a dict that is not a
    result (pytrec_eval's ``{qid: {docid: score}}``), or a run frame (a pyarrow Table, a polars DataFrame, a pandas
    DataFrame with a document id column: :func:`evalframe.sources.trec_frames.is_run_frame`; a pandas frame
    without one is a per-query table).

    Examples
    --------
    >>> is_trec_run("run.txt"), is_trec_run({"q1": {"d1": 1.0}}), is_trec_run(EvaluationResult())
    (True, True, False)
    >>> is_trec_run(pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}))
    True
    """
    return (isinstance(run, (str, os.PathLike, TrecSource)) or (isinstance(run, Mapping) and not is_result(run))
            or is_run_frame(run))


def _per_query_table(run: object) -> bool:
    """Whether ``run`` is a per-query table (a pandas frame that is not a run frame)."""
    return isinstance(run, pd.DataFrame) and not is_run_frame(run)


def _queries(ids: Sequence[object]) -> str:
    shown = ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")
    return f"{len(ids)} quer{'y' if len(ids) == 1 else 'ies'} ({shown})"


def _per_query(run: Run, name: str, qrels: Any, measures: list[str], node: str | None, complete: bool,
               duplicates: str) -> pd.DataFrame:
    """One run's trec_eval measures per query (``trec_query_metrics``), read first when it is a file or a dict."""
    if _per_query_table(run):
        return run  # type: ignore[return-value]  # a pandas frame
    if is_trec_run(run):
        try:
            run = EvaluationResult.from_trec(run, qrels, node=node or "Retriever", progress=False)
        except EvalframeError as exc:
            if not isinstance(run, (str, os.PathLike, TrecSource)):  # a file's errors name the file already
                exc.args = (f"run {name!r}: {exc}",)
            raise
    if not is_result(run):
        raise InvalidParameterError(
            f"run {name!r} must be a TREC run file, a dict {{qid: {{docid: score}}}}, an EvaluationResult or a per-query "
            f"DataFrame; got {type(run).__name__}.")
    return run.trec_query_metrics(measures, node=node, complete=complete, duplicates=duplicates)


def _same_queries(tables: list[pd.DataFrame], names: list[str], complete: bool) -> list[pd.DataFrame]:
    """The tables cut to the queries every one of them evaluates, in the first one's order, with a warning per run
    that leaves some out (they are dropped from every run, so that all runs are compared on the same queries)."""
    common = tables[0].index
    for table in tables[1:]:
        common = common.intersection(table.index, sort=False)
    if not len(common):
        raise InvalidParameterError(
            f"the runs {names} have no evaluated query in common (" + ", ".join(
                f"{name!r}: {len(table)}" for name, table in zip(names, tables)) + " queries); check that they rank "
            "the topics of the qrels, or pass complete=True (-c) to evaluate every query of the qrels in every run.")
    every = pd.Index([qid for table in tables for qid in table.index]).unique()
    for table, name in zip(tables, names):
        missing = every.difference(table.index, sort=False).tolist()
        if not missing:
            continue
        left_out = (f"{'they are' if len(missing) > 1 else 'it is'} left out for every run, so that all are compared on "
                    f"the same {len(common)} quer{'y' if len(common) == 1 else 'ies'}")
        if complete:  # every run was evaluated on every query of its qrels: the runs' judgments differ
            warn(f"run {name!r} is not evaluated on {_queries(missing)} that other runs are evaluated on (its "
                 f"judgments are not theirs); {left_out}. Compare runs judged by the same qrels.")
        else:
            warn(f"run {name!r} is not evaluated on {_queries(missing)} that other runs are evaluated on (no run "
                 f"line{'s' if len(missing) > 1 else ''} for {'these queries' if len(missing) > 1 else 'this query'} of "
                 f"the qrels); {left_out} (trec_eval 9.x and pytrec_eval skip such a query, trec_eval 10.0 refuses the "
                 "run); complete=True (-c) scores a query of the qrels missing from a run 0 instead (trec_eval -c, "
                 "ranx's make_comparable=True).")
    return [table.loc[common] for table in tables]


@with_options(CompareOptions, MetricOptions, OutputOptions, documented=(CompareOptions, OutputOptions))
def compare(a: Run, b: Run, *others: Run,
            qrels: str | os.PathLike[str] | Mapping[str, Mapping[str, int]] | Any | None = None,
            storage_options: Mapping[str, Any] | None = None, **options: Any) -> Any:
    """Compare runs on the same queries: each run's mean, its delta to the first run, the paired tests' p-values.

    Runs are results and per-query tables (:func:`evalframe.analysis.compare.compare`, whose parameters and table
    these are), or TREC runs: run files (``qid Q0 docid rank score tag``, plain or ``.gz``) or pytrec_eval's dicts
    ``{qid: {docid: score}}``, read with ``qrels``. With a TREC run among them (or ``qrels`` given), every run is
    evaluated on trec_eval's measures (:meth:`EvaluationResult.trec_query_metrics`; a result with the judgments it
    was built with) over the same queries, and the table has the column ``significant``.

    Parameters
    ----------
    a, b, *others : path, dict, frame, EvaluationResult or pandas.DataFrame
        The runs (a run frame: pandas, pyarrow or polars with the columns ``query_id`` / ``qid``, ``doc_id`` /
        ``docno``, ``score``, read by :meth:`EvaluationResult.from_trec`; a pandas frame without a document id
        column is a per-query table); each is compared with ``a``, or every pair with ``pairs="all"`` (and with
        the tests of all pairs, ``test="tukey"`` / ``"randomized-tukey"``, on the queries every run is evaluated
        on).
    qrels : path, dict, frame or ir_datasets dataset, optional
        The judgments of the runs given as files, dicts or frames: a qrels file (``qid iter docid grade``),
        ``{qid: {docid: grade}}``, a frame (pandas, pyarrow, polars: ``query_id``, ``doc_id``, ``relevance``, as
        :meth:`EvaluationResult.from_trec` reads it), or an ir_datasets dataset, ``"irds:<id>"`` or the dataset
        object (read once, through ir_datasets' API: ``docs/storage.md#ir_datasets``).
    storage_options : dict, optional
        The filesystem's options for runs and ``qrels`` given as URLs (``s3://bucket/bm25.txt``; ``docs/storage.md``).
    **metric_params
        The metric options of results and tables (:class:`evalframe.options.MetricOptions`), as in
        :func:`evalframe.analysis.compare.compare`; they do not apply to TREC runs.

    Returns
    -------
    pandas.DataFrame
        :func:`evalframe.analysis.compare.compare`'s table: one row per measure (two runs) or per (run, measure),
        ``mean_a`` (the first run's mean), ``mean_b``, ``delta``, ``ci_low`` / ``ci_high``, ``p_value``, ``t``,
        ``p_ttest``, ``wins`` / ``ties`` / ``losses``, ``queries``, ``only_a`` / ``only_b``, ``p_holm`` (more
        than two runs) and ``significant``.

    Raises
    ------
    LoadError
        A run or qrels file that cannot be read (naming the file and line).
    InvalidParameterError
        A TREC run without ``qrels``, an unknown measure (with a suggestion), runs with no evaluated query in
        common, metric options given with TREC runs.

    Examples
    --------
    Hand-worked: run A ranks q1's relevant document first and misses q2's, run B the other way round, run C finds
    both second; each query's RR is 1, 0 (A), 0, 1 (B), 0.5, 0.5 (C).

    >>> from evalframe import compare
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> a = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0}}
    >>> b = {"q1": {"d9": 2.0}, "q2": {"d2": 2.0, "d9": 1.0}}
    >>> c = {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d9": 2.0, "d2": 1.0}}
    >>> table = compare(a, b, c, qrels=qrels, metrics=["RR", "P_1"], rounds=1000)
    >>> table[["mean_a", "mean_b", "delta", "wins", "ties", "losses", "significant"]]
              mean_a  mean_b  delta  wins  ties  losses  significant
    run metric
    B   RR       0.5     0.5    0.0     1     0       1        False
        P@1      0.5     0.5    0.0     1     0       1        False
    C   RR       0.5     0.5    0.0     1     0       1        False
        P@1      0.5     0.0   -0.5     0     1       1        False

    The same runs as frames (PyTerrier's columns), the table as a pyarrow Table (its index levels its first columns):

    >>> import pandas as pd
    >>> def frame(run):
    ...     return pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
    ...                         columns=["qid", "docno", "score"])
    >>> table = compare(frame(a), frame(b), qrels=qrels, metrics=["RR"], rounds=1000, backend="arrow")
    >>> table.select(["metric", "mean_a", "mean_b", "delta"]).to_pylist()
    [{'metric': 'RR', 'mean_a': 0.5, 'mean_b': 0.5, 'delta': 0.0}]
    """
    runs = [a, b, *others]
    check_keywords(options, (*CompareOptions.option_names(), *MetricOptions.names(), *OutputOptions.option_names()),
                   passed_to="compare takes these options")
    output, options = OutputOptions.take(options)
    names = run_names(options.get("names"), len(runs))
    if options.get("metrics") is not None:  # ir_measures' measure objects: their names
        options = {**options, "metrics": measure_texts(options["metrics"])}
    storage_options = check_storage_options(storage_options)
    qrels = cast(Any, remote_source(qrels, "qrels", storage_options=storage_options))  # checked before any run is read
    runs = [cast(Run, remote_source(run, "run", name=f"run {name!r}", storage_options=storage_options))
            for run, name in zip(runs, names)]
    if is_irds(qrels):  # loaded once (ir_datasets imported now), its judgments read once for every run
        qrels = irds_dataset(qrels, name="qrels")
    if qrels is None and not any(is_trec_run(run) for run in runs):
        return as_backend(compare_results(*runs, **{**options, "names": names}),  # type: ignore[arg-type]  # results
                          output.backend)
    chosen: CompareOptions
    chosen, metric_params = CompareOptions.take(options)
    metrics, node, complete, duplicates = chosen.metrics, chosen.node, chosen.complete, chosen.duplicates
    for run, name in zip(runs, names):
        if qrels is None and is_trec_run(run):
            raise InvalidParameterError(
                f"run {name!r} must be an EvaluationResult or a per-query DataFrame, or a TREC run (a run file or "
                f"{{qid: {{docid: score}}}}) with qrels=<its judgments: a qrels file or {{qid: {{docid: grade}}}}>; got "
                f"{type(run).__name__} {str(run)[:60]!r} without qrels.", parameter="qrels")
    if metric_params:
        raise InvalidParameterError(
            f"{sorted(metric_params)} {'is an option' if len(metric_params) == 1 else 'are options'} of the Haystack "
            "metrics; TREC runs are compared on trec_eval's measures (metrics=['nDCG@10', 'AP', ...]), whose cutoff "
            "and relevance level are in their names (P(rel=2)@5).", parameter=next(iter(metric_params)))
    if not (metrics is None or isinstance(metrics, str)
            or (isinstance(metrics, Sequence) and all(isinstance(m, str) for m in metrics))):
        raise InvalidParameterError(f"metrics must be None, a measure name or a list of measure names; got {metrics!r}.",
                                    parameter="metrics")
    if chosen.by is not None:
        keys = [chosen.by] if isinstance(chosen.by, (str, pd.Series, Mapping)) else list(chosen.by)
        named = [key for key in keys if isinstance(key, str)]
        if named:
            raise InvalidParameterError(
                f"by={named[0]!r}: TREC runs carry no per-query meta or filters, so only a label per query can slice "
                "them: pass by= a dict or Series from query id to label (in Python: evalframe.compare(run_a, run_b, "
                "qrels=..., by={'301': 'hard', '302': 'easy'})).",
                parameter="by")
    measures = list(TREC_MEASURES if metrics is None else [metrics] if isinstance(metrics, str) else metrics)
    if not measures:
        raise InvalidParameterError(f"metrics must name at least one measure, e.g. {list(TREC_MEASURES[:3])}.",
                                    parameter="metrics")
    tables = [_per_query(run, name, qrels, measures, node, complete, duplicates) for run, name in zip(runs, names)]
    # the measures by their canonical names (map -> AP), as the tables computed from runs name their columns
    computed = [table for table, run in zip(tables, runs) if not _per_query_table(run)]
    columns = [str(column) for column in computed[0].columns] if computed else measures
    tables = _same_queries(tables, names, complete)
    family: dict[str, Any] = {"family": chosen.family} if "family" in options else {}  # by's default otherwise
    return as_backend(compare_results(*tables, metrics=columns, names=names, rounds=chosen.rounds,
                                      confidence=chosen.confidence, seed=chosen.seed, test=chosen.test,
                                      correction=chosen.correction, zero_method=chosen.zero_method, pairs=chosen.pairs,
                                      by=chosen.by, **family, max_p=MAX_P if chosen.max_p is None else chosen.max_p),
                      output.backend)

