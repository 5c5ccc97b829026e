"""What each subcommand of ``evalframe`` does (but ``list-metrics``): imported by :func:`evalframe.present.cli.main`
when a command runs, so that the parsers (``--help``) start without pandas (issue 26).

Each command takes the parsed arguments and returns the text to print; an :class:`~evalframe.errors.EvalframeError`
is printed as one ``error:`` line by ``main``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_node
from ..analysis import aggregate
from ..analysis.compare import TESTS, compare, p_column_of, shared_nodes
from ..analysis.protocol import ResultLike
from ..errors import EvalframeError
from ..metrics.trec import known_direction, parse_measure, parse_measures
from ..analysis.analyses import metrics_table
from ..analysis.intervals import Estimate, interval_note
from ..options import (CompareOptions, ComparisonReportOptions, IntervalOptions, MatchingOptions, MetricOptions,
                       ReportOptions, ALL_PAIRS_TESTS, check_correction, check_family, check_test)
from .formats import TABLE_FORMATS, above_one_note, render_table, short_text
from .trec_formats import TrecTable, relstring_column, trec_intervals, trec_render, trec_request
from ..report.formats import FORMATS
from ..report.model import no_answer_counts, scope_note
from ..result import EvaluationResult
from ..schema import skipped_note
from ..sources.runs import query_lines, read_runs
from ..trec_compare import MAX_P as TREC_MAX_P
from ..trec_compare import compare as compare_runs
from .demo import load_demo_runs
from .comparison import compare_report
from .paper import comparison_table
from ..report.paper import PAPER_FORMATS
from .fusion import fuse_command
from .history import History, store_from
from .._locations import UrlText
from .inputs import (convert_source, judged_sources, load, needed_flag, read_result, read_source, reader_options,
                     refuse_file_flags, run_names, score_declarations, source_of, source_words, storage_of)
from .parsers import FOLDER, IRDS_PREFIX, options_given, print_warning
from .gate import gate, read_run
from .._locations import Remote, locate, write_bytes
from ..io.atomic import write_atomically
from ..report.verdict import render_verdict
from pathlib import Path

__all__ = ["COMMANDS"]


def _parquet_storage(args: argparse.Namespace, storage: str | None, flag: str = "--format") -> str:
    """The folder format: --partitions implies parquet and refuses csv."""
    if args.partitions is None:
        return storage or "csv"
    if storage == "csv":
        raise EvalframeError(f"--partitions {args.partitions} writes a partitioned Parquet folder; CSV folders stay one "
                             f"<node>.csv per node (as Haystack 1.x reads them): use {flag} parquet, or drop --partitions.")
    return "parquet"


def _check_node(result: ResultLike, node: str) -> None:
    """The node named with the result's nodes when it has no such node (in memory or on Dask)."""
    check_node(node, result.nodes)


def _scope_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return options_given(args, MetricOptions)


# ------------------------------------------------------------------------------------------ output
def _scopes(args: argparse.Namespace) -> str:
    """The options that produced the numbers, defaults included: one line for the table and markdown formats."""
    options = MetricOptions.from_keywords(_scope_kwargs(args), passed_to="the command's options")

    def top_k(k: int) -> str:
        return "all" if k == -1 else str(k)

    return (f"scopes: document_scope={options.document_scope}, answer_scope={options.answer_scope}, "
            f"eval_mode={options.eval_mode}, top-k retriever={top_k(options.simulated_top_k_retriever)}, "
            f"top-k reader={top_k(options.simulated_top_k_reader)}")


def _with_scopes(text: str, args: argparse.Namespace, table: pd.DataFrame | None = None,
                 notes: Sequence[str] = ()) -> str:
    """The scopes above a table, below a markdown table (its first line stays the table's header row), not in json/csv.

    Metric values above 1 in ``table`` (Haystack's map and ndcg count a document retrieved twice) get a note below,
    after ``notes`` (each a paragraph of its own in markdown).
    """
    above_one = above_one_note(table) if table is not None else ""
    shown = [*notes, above_one] if above_one else list(notes)
    note = ("\n\n" if args.format == "markdown" else "\n").join(shown)
    return TABLE_FORMATS[args.format].with_scopes(text, lambda: _scopes(args), note)


# ------------------------------------------------------------------------------------------ commands
def _metrics(args: argparse.Namespace) -> str:
    interval = options_given(args, IntervalOptions)
    if interval and (args.by_query or args.by):
        flag = "--by-query" if args.by_query else "--by"
        raise EvalframeError(f"--ci, --ci-method, --seed and --rounds give an interval on each node's means; {flag} "
                             "shows other numbers: leave one of them out.")
    intervals = IntervalOptions(**interval)  # checked before the result is read
    result = read_result(args.folder, args, on_dask=True)
    kwargs = _scope_kwargs(args)
    by = [key.strip() for key in args.by.split(",")] if args.by else None
    if args.by_query:
        if args.node is None:
            nodes = result.nodes
            raise EvalframeError(f"--by-query needs --node (one of {nodes}).")
        on_dask = {"compute": True} if result.on_cluster else {}
        table = result.query_metrics(args.node, **kwargs, by=by, **on_dask)
        return _with_scopes(render_table(table, args.format), args, table)
    if by is not None:
        table = result.sliced_metrics(by, **kwargs)
        if args.node is not None:
            _check_node(result, args.node)
            if args.node not in table.index:
                mode = kwargs.get("eval_mode", MetricOptions.eval_mode)
                raise EvalframeError(f"node {args.node!r} has no rows with eval_mode={mode!r} to slice.")
            table = table.loc[[args.node]].dropna(axis=1, how="all")
        flat = table.reset_index()
        return _with_scopes(render_table(flat.set_index("node"), args.format, lambda: json.loads(flat.to_json(orient="records"))),
                            args, flat)
    metrics = result.calculate_metrics(**kwargs, **interval)
    if args.node is not None:
        _check_node(result, args.node)
        metrics = {args.node: metrics[args.node]}
    frame = pd.DataFrame.from_dict({node: {name: float(value) for name, value in values.items()}
                                    for node, values in metrics.items()}, orient="index").rename_axis("node")
    # for a person: json and csv stay the numbers alone, as they leave out the scopes
    includes = _includes(result, list(metrics), kwargs) if args.format in ("table", "markdown") else []
    if intervals.ci is None:
        return _with_scopes(render_table(frame, args.format, lambda: metrics), args, frame, includes)
    return _with_scopes(_interval_table(metrics, frame, args.format), args, frame,
                        [*includes, "note: " + interval_note(intervals)] if args.format in ("table", "markdown")
                        else includes)


def _interval_table(metrics: dict[str, dict[str, float]], frame: pd.DataFrame, fmt: str) -> str:
    """``evalframe metrics --ci``: each mean with its interval. table and markdown: ``0.8750 [0.6250, 1.0000]`` per
    cell; csv: the columns of ``metrics_frame(ci=...)`` (``<metric>_ci_low``, ``<metric>_ci_high`` after each);
    json: per metric ``{"mean", "ci_low", "ci_high", "n"}``."""
    def cell(value: float) -> Any:
        if not isinstance(value, Estimate):
            return value
        return f"{value:.4f} [{value.low:.4f}, {value.high:.4f}]"

    def record(value: float) -> Any:
        if not isinstance(value, Estimate):
            return value
        return {"mean": float(value), "ci_low": value.low, "ci_high": value.high, "n": value.n,
                "confidence": value.confidence, "method": value.method}

    if fmt == "json":
        return render_table(frame, fmt, lambda: {node: {name: record(v) for name, v in values.items()}
                                                 for node, values in metrics.items()})
    if fmt == "csv":
        return render_table(metrics_table(metrics), fmt)
    shown = pd.DataFrame({name: [cell(metrics[node][name]) if name in metrics[node] else np.nan for node in frame.index]
                          for name in frame.columns}, index=frame.index)
    return render_table(shown, fmt)


def _includes(result: Any, nodes: list[str], options: dict[str, Any]) -> list[str]:
    """What the document metrics' means include (the report's notes, :mod:`evalframe.report.model`): each document node's
    no-answer queries with the means over the answerable ones, and what the document_scope credits beyond gold ids."""
    with warnings.catch_warnings():  # the table's own computation gave the options' warnings once
        warnings.simplefilter("ignore")
        counts, answerable = no_answer_counts(result, nodes, **options)
        credited = scope_note(result, nodes, **options)
    notes = []
    for count in counts:
        if not count.no_answer_queries:
            continue
        values = ", ".join(f"{metric} {value:.4f}" for metric, value in answerable[count.node].items())
        notes.append(f"note: {count.sentence()} Answerable only: {values} (--by no_answer slices them).")
    return notes + ([f"note: {credited}"] if credited else [])


def _worst(args: argparse.Namespace) -> str:
    result = read_result(args.folder, args, on_dask=True)
    _check_node(result, args.node)
    answers = result.has_answers(args.node)
    metric = args.metric or result.headline_metric(args.node)
    kwargs = _scope_kwargs(args)
    options = {"answer_metric": metric, "answer_metric_threshold": args.threshold} if answers else {
        "document_metric": metric, "document_metric_threshold": args.threshold}
    examples = result.wrong_examples(args.node, n=args.n, **options, **kwargs)
    if examples and metric not in examples[0]["metrics"]:  # a measure by another spelling (ndcg@10): as tables name it
        metric = str(parse_measure(metric))
    rows = []
    for example in examples:
        listed = example["answers" if answers else "documents"]
        top = listed[0] if listed else {}
        rows.append({
            "multilabel_id": example["multilabel_id"],
            "query": short_text(example["query"]),
            metric: example["metrics"][metric],
            "gold": short_text(example["gold_answers"] if answers else example["gold_document_ids"]),
            "rank 1": short_text(top.get("answer") if answers else top.get("document_id")),
        })
    table = pd.DataFrame(rows, columns=["multilabel_id", "query", metric, "gold", "rank 1"]).set_index("multilabel_id")
    if not rows and args.format == "table":
        worse = ">=" if known_direction(metric, getattr(result, "scores", None)) == "lower" else "<="
        return _with_scopes(f"no query of node {args.node!r} scores {metric} {worse} {args.threshold}", args)
    return _with_scopes(render_table(table, args.format, lambda: examples), args)  # json: the examples themselves


def _compared_metrics(args: argparse.Namespace) -> list[str] | None:
    """--metrics (comma-separated) and each -m (a trec_eval measure, checked here so that an error names -m), in
    order; None when neither is given."""
    metrics = list(args.metrics or [])
    if args.measures:
        parse_measures(args.measures)
    metrics += args.measures or []
    return metrics or None


def _compare_options(args: argparse.Namespace, names: list[str]) -> dict[str, Any]:
    """The compare options given (compare's own defaults otherwise), the runs' names and the measures of --metrics
    and -m."""
    return {**options_given(args, CompareOptions), "metrics": _compared_metrics(args), "names": names}


def _compare(args: argparse.Namespace) -> str:
    if len(args.folders) < 2:
        raise EvalframeError(f"compare needs two or more runs (results folders, or TREC run files with --qrels QRELS); "
                             f"got {len(args.folders)}.")
    if args.qrels is not None and args.source not in (None, *judged_sources()):
        raise EvalframeError(f"--qrels judges TREC run files (--from {' or '.join(judged_sources())}); --from "
                             f"{args.source} reads its own judgments: leave --qrels out.")
    if args.paper or args.format not in TABLE_FORMATS:
        return _paper(args)
    if args.qrels is not None:
        return _compare_trec(args)
    if any(isinstance(folder, str) and folder.startswith("@") for folder in args.folders):
        return _compare_stored(args)
    _refuse_trec_files(args)
    names = args.names or run_names(args.folders)
    runs = [read_result(folder, args, on_dask=True) for folder in args.folders]
    on_dask = [run.on_cluster for run in runs]
    if any(on_dask) and not all(on_dask):
        raise EvalframeError("compare on Dask needs every folder partitioned (with the same partitions=); "
                             f"{args.folders[on_dask.index(False)]} is not.")
    if all(on_dask):
        import evalframe.dask as dask_runs

        compared: Callable[..., pd.DataFrame] = dask_runs.compare  # the same table, computed per partition
        shared = [n for n in runs[0].nodes if all(n in run.nodes for run in runs[1:])]
    else:
        compared = compare
        shared = shared_nodes(runs)
    if args.node is None and len(shared) != 1:
        raise EvalframeError(f"--node is needed: the runs share the nodes {shared}." if shared else
                             "the runs share no node; check the folders with: evalframe metrics DIR")
    options = _compare_options(args, names)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compared(*runs, **options, **_scope_kwargs(args))
    for warning in caught:
        print_warning(warning.message)
    if len(table) and not table["queries"].any():
        # the runs share query ids, but no query is scored (not NaN) in both: a table of NaN answers nothing
        raise EvalframeError(
            f"the runs {names} share no query that both scored (every metric is missing in one run or the other for "
            f"the queries they share), so there is nothing to compare; check that the folders evaluate the same "
            f"labels with: evalframe metrics DIR --node {args.node or shared[0]} --by-query"
        )
    flat = table.reset_index()
    return _with_scopes(render_table(flat.set_index(flat.columns[0]), args.format,
                                lambda: json.loads(flat.to_json(orient="records"))), args)


def _stored_name(run: Any) -> str:
    return run if isinstance(run, str) else run_names([run])[0]


def _compare_stored(args: argparse.Namespace) -> str:
    """``evalframe compare @last @tag:v3 [FOLDER ...] --store STORE``: runs of the history store (their per-query
    tables, ``History(store).get(ref).run(node)``) compared with each other or with results read as usual."""
    if args.qrels is not None:
        raise EvalframeError("--qrels judges TREC run files; a run of the history store (@ref) holds its measures "
                             "already: leave --qrels out, or compare TREC run files without @refs.")
    names = args.names or [_stored_name(run) for run in args.folders]
    runs = [read_run(run, name=name, node=args.node, store=args.store, storage_options=args.storage_options)[0]
            if isinstance(run, str) else read_result(run, args) for run, name in zip(args.folders, names)]
    options = _compare_options(args, names)
    compared: Callable[..., pd.DataFrame] = compare
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compared(*runs, **options, **_scope_kwargs(args))
    for warning in caught:
        print_warning(warning.message)
    flat = table.reset_index()
    return TABLE_FORMATS[args.format].with_scopes(
        render_table(flat.set_index(flat.columns[0]), args.format, lambda: json.loads(flat.to_json(orient="records"))),
        lambda: f"runs: {', '.join(names)}" + (f"; node {args.node}" if args.node else ""), "")


def _write_output(path: Any, content: str, args: argparse.Namespace, flag: str) -> None:
    """One output file of ``evalframe gate`` written whole: a local file through a temporary one renamed over it, a
    URL in one request (the object replaced whole)."""
    if isinstance(path, UrlText):
        where = locate(path, name=flag, storage_options=args.storage_options or None)
        if isinstance(where, Remote):
            write_bytes(where, content.encode("utf-8"), what=f"{flag} file")
            return
        path = Path(where)
    target = Path(path)
    if target.is_dir():
        raise EvalframeError(f"{flag} {target} is a folder; give the file to write, e.g. {target / 'verdict'}.")
    write_atomically(target, content)


def _gate(args: argparse.Namespace) -> str:
    """``evalframe gate BASELINE CANDIDATE``: the verdict printed in --format and written to each output file; the
    exit status the verdict's (``args.exit_status``)."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if args.github_summary else None
    if args.github_summary and not summary:
        raise EvalframeError("--github-summary appends to the file $GITHUB_STEP_SUMMARY names, and it is not set "
                             "(GitHub Actions sets it in a job's steps); write the Markdown with --markdown FILE.")
    if args.names is not None and len(args.names) != 2:
        raise EvalframeError(f"--names names the baseline and the candidate: two names, A,B; got {','.join(args.names)}.")
    if args.source is not None and args.source != FOLDER:
        read = {"source": args.source}
    else:
        read = {}
    if not (args.no_drop or args.margin or args.minimum):
        raise EvalframeError("give at least one rule: --no-drop MEASURE, --margin MEASURE=M or --min MEASURE=F "
                             "(each repeatable).")
    qrels = _given(args.qrels) if args.qrels is not None else None
    given_names = args.names or [_stored_name(run) for run in (args.baseline, args.candidate)]
    runs = [run if isinstance(run, str) else _gate_run(run, args) for run in (args.baseline, args.candidate)]
    verdict = gate(runs[0], runs[1], no_drop=args.no_drop or (), margin=args.margin, minimum=args.minimum,
                   alpha=args.alpha, test=args.test, correction=args.correction, on_common=args.on_common,
                   node=args.node, qrels=qrels, store=args.store, storage_options=args.storage_options or None,
                   names=given_names if len(set(given_names)) == 2 or args.names else None,
                   worst=args.worst, rounds=args.rounds, seed=args.seed, **read, **_scope_kwargs(args))
    for flag, path, fmt in (("--markdown", args.markdown, "markdown"), ("--junit", args.junit, "junit"),
                            ("--json", args.json, "json")):
        if path is not None:
            _write_output(path, render_verdict(verdict, fmt), args, flag)
    if summary:
        with open(summary, "a", encoding="utf-8") as file:
            file.write(render_verdict(verdict, "markdown") + "\n")
    args.exit_status = verdict.exit_code
    return render_verdict(verdict, args.format).rstrip("\n")


def _gate_run(path: Path, args: argparse.Namespace) -> Any:
    """A run of the gate given as a path: with --qrels, a TREC run file (read by the gate); else the result read as
    the other commands read it (a folder, or a source's file found by its suffix and content)."""
    if args.qrels is not None:
        return _given(path)
    return read_result(path, args)


#: How the header of ``evalframe compare --qrels`` names each correction of 3+ runs.
_CORRECTED = {"holm": "Holm-corrected", "bonferroni": "Bonferroni-corrected", "holm-sidak": "Holm-Sidak-corrected",
              "fdr_bh": "Benjamini-Hochberg-corrected", "fdr_by": "Benjamini-Yekutieli-corrected",
              "none": "uncorrected"}


def _given(path: Any) -> Any:
    """A path argument as the library takes it: a local path's text, a URL as it is (with its options)."""
    return path if isinstance(path, UrlText) else str(path)


def _refuse_trec_files(args: argparse.Namespace) -> None:
    """A TREC run file among the runs compared without --qrels, refused with the command that compares it."""
    for path in args.folders:
        source = source_of(path, args)
        if source != FOLDER and needed_flag(source) is not None:  # a TREC run: compared on trec_eval's measures
            raise EvalframeError(f"{path} is a file, not a results folder; to compare TREC run files, give their "
                                 f"judgments: evalframe compare {' '.join(map(str, args.folders))} --qrels QRELS")


def _paper(args: argparse.Namespace) -> str:
    """``evalframe compare RUN_A RUN_B ... --paper`` (or ``--format latex|html``): the paper table of every pair of
    runs (:func:`evalframe.comparison_table`), of TREC run files with --qrels or of results read in memory."""
    if args.format not in (*PAPER_FORMATS, "table"):
        raise EvalframeError(f"--paper prints the paper table in --format {', '.join(PAPER_FORMATS)} (or the default "
                             f"table format, as markdown); got --format {args.format}.")
    if args.qrels is not None:
        _refuse_trec_flags(args)
        names = args.names or run_names(args.folders, stems=False)
        runs: list[Any] = [_given(path) for path in args.folders]
        given: dict[str, Any] = {"qrels": _given(args.qrels), **storage_of(args, *args.folders, args.qrels)}
    else:
        _refuse_trec_files(args)
        names = args.names or run_names(args.folders)
        runs = [read_result(folder, args) for folder in args.folders]
        shared = shared_nodes(runs)
        if args.node is None and len(shared) != 1:
            raise EvalframeError(f"--node is needed: the runs share the nodes {shared}." if shared else
                                 "the runs share no node; check the folders with: evalframe metrics DIR")
        given = _scope_kwargs(args)
    options = {name: value for name, value in _compare_options(args, names).items() if name not in ("pairs", "max_p")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = comparison_table(runs, **given, **options, **({} if args.max_p is None else {"max_p": args.max_p}))
    for warning in caught:
        print_warning(warning.message)
    return table.render("markdown" if args.format == "table" else args.format)


def _refuse_trec_flags(args: argparse.Namespace) -> None:
    """The flags of results refused for TREC run files (--qrels), naming them."""
    unused = [flag for flag, given in (("--node", args.node is not None), ("--sep", args.sep is not None),
                                       ("--encoding", args.encoding is not None),
                                       ("--scheduler", args.scheduler is not None))
              if given] + [field.metadata["flag"] for field in dataclasses.fields(MetricOptions)
                           if field.name in _scope_kwargs(args)]
    if unused:
        raise EvalframeError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply to TREC run files "
                             "(--qrels), which are compared on trec_eval's measures: choose them with -m, e.g. -m "
                             "nDCG@10 -m 'P(rel=2)@5'.")


def _compare_trec(args: argparse.Namespace) -> str:
    """``evalframe compare RUN_A RUN_B ... --qrels QRELS``: the runs read as ``evalframe trec`` reads them (errors name
    the file and line) and compared on trec_eval's measures over the same queries (:func:`evalframe.compare`)."""
    _refuse_trec_flags(args)
    names = args.names or run_names(args.folders, stems=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compare_runs(*[_given(path) for path in args.folders], qrels=_given(args.qrels),
                             storage_options=args.storage_options or None, **_compare_options(args, names))
    for warning in caught:
        print_warning(warning.message)
    max_p = args.max_p if args.max_p is not None else TREC_MAX_P
    test = check_test(args.test or "randomization")
    correction = check_correction(args.correction or "holm")
    read = p_column_of(table, test)
    family = check_family(args.family or "runs")
    if test in ALL_PAIRS_TESTS:  # the test's own family is the runs; a correction spans the measures
        family = ("measures",)
    spans = "" if family == ("runs",) else f" over {' x '.join(sorted(family, reverse=True))}"
    corrected = f", {_CORRECTED[correction]}{spans}" if read != TESTS[test] else ""
    if test in ALL_PAIRS_TESTS:
        corrected = f", adjusted over the pairs of each measure{corrected}"
    compared = (f"all pairs of {', '.join(names)}" if "run_a" in table.index.names else f"baseline: {names[0]}")
    header = (f"{compared}; {int(table['queries'].iloc[0])} queries{' (-c)' if args.complete else ''}; "
              f"significant: {read} ({test}{corrected}) <= {max_p:g}")
    flat = table.reset_index()
    shown = render_table(flat.set_index(flat.columns[0]), args.format, lambda: json.loads(flat.to_json(orient="records")))
    return TABLE_FORMATS[args.format].with_scopes(shown, lambda: header, "")


def _convert(args: argparse.Namespace) -> str:
    source = convert_source(args)
    given = {flag: getattr(args, name) is not None for flag, name in (
        ("--qrels", "qrels"), ("--queries", "queries"), ("--node", "node"), ("--tag", "tag"), ("--scores", "scores"),
        ("--duplicates", "duplicates"), ("--sep", "sep"), ("--encoding", "encoding"), ("--partitions", "partitions"))}
    allowed = {("file", False): ("--qrels", "--queries", "--node", "--partitions"),
               ("file", True): ("--qrels", "--node", "--tag", "--scores", "--duplicates"),
               (FOLDER, True): ("--qrels", "--node", "--tag", "--scores", "--duplicates", "--sep", "--encoding"),
               (FOLDER, False): ("--sep", "--encoding", "--partitions")}
    direction = ("file" if source != FOLDER else FOLDER, args.to == "trec")
    if direction == ("file", True) and source in judged_sources():
        raise EvalframeError("convert reads a TREC run into a results folder (--to csv or parquet) or writes a folder "
                             "as TREC files (--to trec); TREC to TREC is not a conversion.")
    unused = [flag for flag, set_ in given.items() if set_ and flag not in allowed[direction]]
    if unused:
        what = ("writing TREC files" if args.to == "trec" else
                "rewriting a results folder" if source == FOLDER else f"reading {source_words(source)}")
        raise EvalframeError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply when {what}; "
                             "see evalframe convert --help.")
    if args.to == "trec" and isinstance(args.qrels, str) and args.qrels.startswith(IRDS_PREFIX):
        raise EvalframeError(f"--qrels {args.qrels} names an ir_datasets dataset, which is read, not written: with --to "
                             "trec, --qrels is the qrels file to write.")
    if args.partitions is not None:
        _parquet_storage(args, args.to, "--to")
    if source == FOLDER:
        refuse_file_flags(args, not_read=("--qrels", "--duplicates"))
        result = load(args.folder, args)
    elif args.to == "trec":  # the file's result written as TREC files: --qrels and --node are the writer's
        result = read_source(source, args.folder, args, not_read=("--qrels", "--duplicates"))
    else:
        result = read_source(source, args.folder, args, not_read=("--duplicates",), node=args.node,
                             queries=args.queries)
    if args.to != "trec":
        folder = result.save(args.out, format=args.to, partitions=args.partitions, **storage_of(args, args.out))
        if source == FOLDER:
            return f"wrote {len(result)} node(s) as {args.to} to {folder}"
        queries = max(frame["multilabel_id"].nunique() for frame in result.values())
        rows = (f"{len(next(iter(result.values())))} rows" if len(result) == 1 else
                ", ".join(f"{node}: {len(frame)} rows" for node, frame in result.items()))
        return f"wrote {queries} queries ({rows}) as {args.to} to {folder}"
    run = result.to_trec_run(args.out, node=args.node, tag=args.tag or "evalframe", scores=args.scores or "score",
                             duplicates=args.duplicates or "error", **storage_of(args, args.out))
    message = f"wrote the TREC run {run}"
    if args.qrels is not None:
        message += f" and the qrels {result.to_qrels(args.qrels, node=args.node, **storage_of(args, args.qrels))}"
    return message


#: The source ``evalframe flatten`` reads without --from when no source claims the file, and the one it builds shard
#: by shard (several files, a glob pattern, on Dask): a runs file (docs/runs-format.md).
_SHARDED = "runs"


def _flatten_source(args: argparse.Namespace, source: str, storage: str) -> str:
    """flatten of a source's file (a runs file's too, but shards): EvaluationResult.from_source, saved."""
    if len(args.runs) > 1:
        raise EvalframeError(f"--from {source} reads one file; got {len(args.runs)}.")
    if args.scheduler is not None:
        raise EvalframeError(f"--scheduler builds runs files on Dask; --from {source} builds in memory (--partitions "
                             "still writes a partitioned folder).")
    path = args.runs[0]
    result = read_source(source, path, args)
    folder = result.save(args.out, format=storage, partitions=args.partitions, **storage_of(args, args.out))
    rows = ", ".join(f"{node}: {len(frame)} rows" for node, frame in result.items())
    queries = max(frame["multilabel_id"].nunique() for frame in result.values())
    message = f"wrote {queries} queries ({rows}) from {path} ({source}) to {folder}"
    note = skipped_note(result.skipped)
    return message + (f"\n{note}" if note else "")


def _flattened_source(args: argparse.Namespace) -> str:
    """What flatten reads: --from, else the one source whose suffix and content claim the one file, else a runs file
    (several files and glob patterns too: the shards of one)."""
    sharded = len(args.runs) > 1 or any(char in str(args.runs[0]) for char in "*?[")  # a quoted glob pattern too
    if args.source is not None or sharded or not args.runs[0].is_file():
        return str(args.source or _SHARDED)
    return source_of(args.runs[0], args, otherwise=_SHARDED)


def _flatten(args: argparse.Namespace) -> str:
    storage = _parquet_storage(args, args.storage)
    source = _flattened_source(args)
    if source != _SHARDED:
        return _flatten_source(args, source, storage)
    reader_options(source, args.runs[0], args)  # the flags a runs file does not take refused
    if args.partitions is None and (len(args.runs) > 1 or args.scheduler is not None):  # the in-memory build reads one file
        given = "--scheduler" if args.scheduler is not None else f"{len(args.runs)} runs files"
        raise EvalframeError(f"{given} build{'s' if given == '--scheduler' else ''} a partitioned folder shard by shard: "
                             "add --partitions N (docs/cluster.md#building-a-result-on-the-cluster).")
    sharded = len(args.runs) > 1 or any(char in str(args.runs[0]) for char in "*?[")  # a quoted glob pattern too
    if args.partitions is not None and (sharded or args.scheduler is not None or os.environ.get("DASK_SCHEDULER_ADDRESS")):
        return _flatten_on_dask(args)
    runs = args.runs[0]
    labels, outputs = read_runs(runs, **storage_of(args, runs))
    lines = query_lines(runs, **storage_of(args, runs))
    # queries without gold labels are left out by from_runs (one warning each, and result.skipped); they are summed
    # up below instead
    dropped = [lines[position] for position, label in enumerate(labels) if label is None]  # their runs file lines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = EvaluationResult.from_runs(labels, outputs, sas_model=args.sas_model,
                                            score_measures=score_declarations(args.score_declarations),
                                            names=[f"{runs}:{line}" for line in lines],  # messages name the lines
                                            **options_given(args, MatchingOptions))
    for warning in caught:
        if "has no label; the query is left out" not in str(warning.message):
            print_warning(warning.message)
    folder = result.save(args.out, format=storage, partitions=args.partitions, **storage_of(args, args.out))
    rows = ", ".join(f"{node}: {len(frame)} rows" for node, frame in result.items())
    written = len(labels) - len(dropped)
    total = f"{written} of {len(labels)}" if dropped else f"{written}"
    message = f"wrote {total} queries ({rows}) to {folder}"
    if dropped:
        shown = ", ".join(map(str, dropped[:10])) + (", ..." if len(dropped) > 10 else "")
        message += (f"\ndropped {len(dropped)} quer{'y' if len(dropped) == 1 else 'ies'} without gold labels "
                    f"(empty 'gold' lists or 'labels'): {runs} line{'' if len(dropped) == 1 else 's'} {shown}")
    return message


def _flatten_on_dask(args: argparse.Namespace) -> str:
    """flatten of sharded runs files on Dask workers (evalframe.dask.from_runs), written as a partitioned folder."""
    try:
        from ..dask import from_runs
    except ImportError as exc:
        raise EvalframeError(str(exc)) from None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = str(args.runs[0]) if len(args.runs) == 1 else args.runs  # one argument may be a quoted glob pattern
        built = from_runs(runs, args.out, partitions=args.partitions, client=args.scheduler,
                          **storage_of(args, *args.runs, args.out),
                          sas_model=args.sas_model, score_measures=score_declarations(args.score_declarations),
                          **options_given(args, MatchingOptions))
    for warning in caught:
        if "without gold labels" not in str(warning.message):
            print_warning(warning.message)
    rows = ", ".join(f"{node}: {count} rows" for node, count in built.rows.items())
    total = f"{built.queries} of {built.queries + len(built.dropped)}" if built.dropped else f"{built.queries}"
    message = f"wrote {total} queries ({rows}) to {built.path} ({args.partitions} partitions)"
    if built.dropped:
        shown = ", ".join(built.dropped[:10]) + (", ..." if len(built.dropped) > 10 else "")
        message += (f"\ndropped {len(built.dropped)} quer{'y' if len(built.dropped) == 1 else 'ies'} without gold labels "
                    f"(empty 'gold' lists or 'labels'): {shown}")
    return message


def _demo(args: argparse.Namespace) -> str:
    if args.out.exists() and not args.out.is_dir():  # before the demo is built
        raise EvalframeError(f"--out {args.out} exists and is not a folder; choose a new or empty folder to write to.")
    labels, outputs = load_demo_runs()
    result = EvaluationResult.from_runs(labels, outputs)  # a bar where a person watches (evalframe._progress)
    folder = result.save(args.out / "results", **storage_of(args, args.out))
    report = result.report(n=3)
    html_path = args.out / "report.html"
    if isinstance(html_path, UrlText):  # one request, as every report saved to a URL
        report.save(html_path, format="html", **storage_of(args, html_path))
    else:
        html_path.write_text(report.html, encoding="utf-8")
    # where the page's charts would be, it says why there are none; the terminal says it beside the page's path
    no_charts = next((f" ({s.chart_note})" for s in report.model.sections if s.chart_note), "")
    return (f"evalframe demo: {len(labels)} questions over a small corpus, a BM25 retriever and an extractive reader "
            f"(evalframe.load_demo_runs())\n\n{report.text}\nresults folder: {folder}\nHTML report:    {html_path}"
            f"{no_charts}\n"
            f"next: evalframe metrics {folder} --top-k-retriever 1    evalframe worst {folder} --node Reader")


def _report(args: argparse.Namespace) -> str:
    if args.html is not None and args.html.is_dir():
        raise EvalframeError(f"--html {args.html} is a folder; give the file to write, e.g. {args.html / 'report.html'}.")
    if len(args.folders) > 1:
        return _compare_report(args)
    single = {field.name for field in dataclasses.fields(ReportOptions)}  # --seed, --rounds: the intervals' (--ci)
    alone = [field.metadata["flag"] for field in dataclasses.fields(ComparisonReportOptions)
             if field.metadata["flag"] is not None and field.name not in single
             and getattr(args, field.name, None) is not None]
    if alone:
        raise EvalframeError(f"{alone[0]} is for a comparison of two runs or more (evalframe report RUN_A RUN_B ...); "
                             f"one folder {args.folders[0]} makes the single report, which does not take it.")
    result = read_result(args.folders[0], args)
    charts = args.html is not None or FORMATS[args.format].charts  # drawn for the formats that show them
    report = result.report(charts=charts, **options_given(args, ReportOptions))
    shown = report.render(args.format).rstrip("\n")
    if args.html is not None:
        try:
            report.save(args.html, format="html", **storage_of(args, args.html))
        except OSError as exc:
            raise EvalframeError(f"--html {args.html} cannot be written: {exc.strerror or exc}.") from None
        if args.format == "text":  # a line a person reads; json, markdown and html stay whole documents
            return shown + f"\n\nHTML report: {args.html}"
    return shown


def _compare_report(args: argparse.Namespace) -> str:
    """``evalframe report RUN_A RUN_B [...]``: the comparative report (:func:`evalframe.compare_report`)."""
    for name, flag in (("ci", "--ci"), ("ci_method", "--ci-method")):
        if getattr(args, name, None) is not None:
            raise EvalframeError(f"{flag} is for the report of one run (evalframe report RUN); the comparative report of "
                                 f"{len(args.folders)} runs gives each delta its bootstrap interval already.")
    names = args.names
    if names is not None and len(names) != len(args.folders):
        raise EvalframeError(f"--names gives {len(names)} names for {len(args.folders)} runs; give one per run, "
                             f"e.g. --names {','.join(f'run{i + 1}' for i in range(len(args.folders)))}.")
    if names is None:  # folders by their names, files of a source by their stems (bm25.jsonl: bm25)
        names = run_names(args.folders)
    results = [read_result(folder, args) for folder in args.folders]
    # -n is the single report's, default 3, in both reports of the command
    options = {**options_given(args, ComparisonReportOptions), "names": names,
               "n": ReportOptions.n if args.n is None else args.n}
    report = compare_report(results, **options, **options_given(args, MetricOptions))
    # the page names the viewer with these very inputs: evalframe serve --from ragas a.jsonl b.jsonl (quoted for a
    # shell; the slices and names too, the other reading flags as the user gives them again)
    by = [] if args.by is None else [args.by] if isinstance(args.by, str) else list(args.by)
    report.serve = shlex.join(["evalframe", "serve", *(["--from", args.source] if args.source else []),
                               *map(str, args.folders), *(part for key in by for part in ("--by", str(key))),
                               *(["--names", ",".join(args.names)] if args.names else [])])
    shown = report.render(args.format).rstrip("\n")
    if args.html is not None:
        try:
            report.save(args.html, format="html", **storage_of(args, args.html))
        except OSError as exc:
            raise EvalframeError(f"--html {args.html} cannot be written: {exc.strerror or exc}.") from None
        if args.format == "text":
            return shown + f"\n\nHTML report: {args.html}"
    return shown


def _trec(args: argparse.Namespace) -> str:
    """trec_eval's numbers of a run file against a qrels file, in trec_eval's layout (or JSON / markdown)."""
    if not 0 <= args.digits <= 17:
        raise EvalframeError(f"--digits must be between 0 and 17; got {args.digits}.")
    measures = trec_request(args)
    trec_intervals(args)  # --ci checked before the files are read
    result = EvaluationResult.from_trec(args.run, args.qrels, subtopics=bool(getattr(args, "subtopics", False)))
    options = {"complete": args.complete, "missing_queries": args.missing_queries,
               "max_docs": getattr(args, "max_docs", None), "judged_only": getattr(args, "judged_only", False)}
    relstring = getattr(args, "relstring", None)  # --format trec_eval only: a string per query
    found = result.trec_relstrings(relstring[1], **options) if relstring is not None else None
    if measures or found is None:
        table = result.trec_query_metrics([str(m) for m in measures], **options)
    else:  # -m relstring alone (or with runid / num_q)
        table = pd.DataFrame(index=found.index)
    means = aggregate.means(aggregate.partial(table)) if len(table) else {column: 0.0 for column in table.columns}
    if not len(table):
        print_warning(f"no query of {args.run} is evaluated: none is also in {args.qrels} (trec_eval evaluates the queries "
                      "of both; -c adds the qrels' queries missing from the run).")
    columns = {str(name): table[name].to_numpy(dtype=np.float64) for name in table.columns}
    strings: dict[str, Sequence[str]] = ({relstring[0]: relstring_column(found.reindex(table.index).tolist(), relstring)}
               if relstring is not None and found is not None else {})
    return trec_render(TrecTable([str(qid) for qid in table.index], columns, strings), means, args)


def _log(args: argparse.Namespace) -> str:
    """``evalframe log RESULT --store STORE --name NAME``: the result read as the other commands read it, logged as one
    new run (:meth:`evalframe.History.log`); prints the run id and a one-line summary."""
    history = History(store_from(args.store), storage_options=args.storage_options or None)
    params = dict(args.params or [])
    result = read_result(args.folder, args)
    stored = history.log(result, name=args.name, tags=args.tags or (), params=params, node=args.node,
                         source=str(args.folder))
    parts = []
    for node, data in stored.meta["nodes"].items():
        measures = data["measures"]
        shown = next((m for m in ("ndcg", "f1", "AP") if m in measures), next(iter(measures), None))
        mean = measures[shown]["mean"] if shown is not None else None
        parts.append(f"{node}: {data['queries']} queries" + (f", {shown} {mean:.4g}" if mean is not None else ""))
    commit = stored.meta.get("commit")
    return (f"{stored.id}\nlogged {stored.name!r} into {history.location}: {'; '.join(parts)}"
            + (f"; commit {commit[:12]}{' (dirty)' if stored.meta.get('dirty') else ''}" if commit else ""))


#: Each command's implementation, by name (``list-metrics`` is :mod:`evalframe.present.cli`'s).
COMMANDS: dict[str, Callable[[argparse.Namespace], str]] = {
    "demo": _demo, "metrics": _metrics, "compare": _compare, "worst": _worst, "convert": _convert, "flatten": _flatten,
    "report": _report, "trec": _trec, "fuse": fuse_command, "gate": _gate, "log": _log}

