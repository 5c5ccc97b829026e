"""The ``evalframe`` command: thin subcommands over the library.

``main(argv=None) -> int`` is testable without a subprocess; errors print one line ``error: ...`` on
stderr and return 1 (argparse usage errors exit 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._validation import check_node
from .._version import __version__
from ..analysis import aggregate
from ..analysis.compare import compare, shared_nodes
from ..analysis.examples import THRESHOLD
from ..analysis.protocol import ResultLike
from ..analysis.stats import ROUNDS
from ..errors import EvalframeError
from ..metrics.registry import LEVELS, METRICS, TREC_MEASURES, format_bounds, headline_metric, other_names, parameters
from ..options import MatchingOptions, MetricOptions
from ..report import RENDERERS as REPORT_RENDERERS
from .formats import FORMATS, TABLE_FORMATS, TREC_FORMATS, above_one_note, render_table, short_text
from ..result import EvaluationResult
from ..sources.runs import query_lines, read_runs
from .demo import load_demo_runs

__all__ = ["main"]


#: Columns that count things (queries, wins, ...): table and markdown print them as integers, not 117.0000.


def _positive_int(what: str) -> Callable[[str], int]:
    """An argparse type: an int >= 1, refused with ``what`` it counts."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be an int >= 1 ({what}); got {text!r}")
        return value

    return parse


#: -n: a count of queries to list; 0 would list none while the report says none qualifies.
_at_least_one = _positive_int("how many queries to list")
#: --partitions: how many part files per node.
_partitions = _positive_int("how many Parquet part files per node")


def _add_options(parser: argparse.ArgumentParser, options: type, only: tuple[str, ...] | None = None) -> None:
    """One flag per field of ``options`` (MetricOptions or MatchingOptions; ``only`` these): flag, type, choices, help.

    Unset flags stay None, so the options' own defaults apply (they are written only in evalframe.options).
    """
    for field in dataclasses.fields(options):
        if only is not None and field.name not in only:
            continue
        meta, default = field.metadata, field.default
        if isinstance(default, bool):  # a flag that turns the default off
            flag = meta["flag"].replace("--", "--no-", 1)
            parser.add_argument(flag, dest=field.name, action="store_const", const=not default, default=None,
                                help=f"do not {meta['help']}")
            continue
        shown = f" (default {default})" if default is not None else ""
        parser.add_argument(meta["flag"], dest=field.name, default=None, choices=meta["choices"],
                            type=meta["parse"], metavar=meta["metavar"],
                            help=meta["help"] + shown)


def _options(args: argparse.Namespace, options: type[MetricOptions] | type[MatchingOptions]) -> dict[str, Any]:
    """The options given on the command line (unset ones are left to the defaults)."""
    return {name: getattr(args, name) for name in options.names() if getattr(args, name, None) is not None}


def _csv_options(parser: argparse.ArgumentParser) -> None:
    """How to read the folders' CSV files when they are not comma-separated UTF-8 (e.g. saved by Excel)."""
    parser.add_argument("--sep", default=None, metavar="CHAR",
                        help="the CSV files' separator, e.g. ';' for a CSV saved by Excel (default: as saved, ',')")
    parser.add_argument("--encoding", default=None, metavar="NAME",
                        help="the CSV files' encoding, e.g. cp1252 or utf-8-sig (default: as saved, utf-8)")


def _partition_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--partitions", type=_partitions, default=None, metavar="N",
                        help="write a partitioned Parquet folder of N part files per node, a query's rows in one "
                             "part number (docs/persistence.md#partitioned-results); implies --format parquet")


def _parquet_storage(args: argparse.Namespace, storage: str | None, flag: str = "--format") -> str:
    """The folder format: --partitions implies parquet and refuses csv."""
    if args.partitions is None:
        return storage or "csv"
    if storage == "csv":
        raise EvalframeError(f"--partitions {args.partitions} writes a partitioned Parquet folder; CSV folders stay one "
                             f"<node>.csv per node (as Haystack 1.x reads them): use {flag} parquet, or drop --partitions.")
    return "parquet"


def _scheduler_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="evaluate a partitioned folder on this Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: "
                             "$DASK_SCHEDULER_ADDRESS when set; pip install 'evalframe[dask]')")


def _load(folder: Path, args: argparse.Namespace, *, on_dask: bool = False) -> Any:
    """EvaluationResult.load with the --sep / --encoding given (read_csv's sep and encoding); a partitioned folder
    with --scheduler (or $DASK_SCHEDULER_ADDRESS) is evaluated on that Dask cluster instead, for the analysis commands
    that take them (``on_dask``: metrics, worst, compare; docs/cluster.md)."""
    address = (getattr(args, "scheduler", None) or os.environ.get("DASK_SCHEDULER_ADDRESS")) if on_dask else None
    if address:
        from ..io.manifest import read_manifest_quietly

        manifest = read_manifest_quietly(folder) if folder.is_dir() else None
        if manifest is not None and manifest.get("partitioned") is not None:
            try:
                import evalframe.dask as dask_results
            except ImportError as exc:
                raise EvalframeError(f"{exc} (asked for by --scheduler / DASK_SCHEDULER_ADDRESS)") from None
            return dask_results.load(folder, client=address)
        if getattr(args, "scheduler", None):
            raise EvalframeError(f"--scheduler evaluates a partitioned folder, and {folder} is not one; write one with "
                                 "result.save(dir, format='parquet', partitions=N), or leave --scheduler out to "
                                 "evaluate this folder here.")
    kwargs = {name: getattr(args, name) for name in ("sep", "encoding") if getattr(args, name, None) is not None}
    return EvaluationResult.load(folder, **kwargs)


def _check_node(result: ResultLike, node: str) -> None:
    """The node named with the result's nodes when it has no such node (in memory or on Dask)."""
    check_node(node, result.nodes)


def _scope_options(parser: argparse.ArgumentParser) -> None:
    _add_options(parser, MetricOptions)
    parser.add_argument("--format", default="table", choices=FORMATS)


def _scope_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return _options(args, MetricOptions)


class Command(argparse.ArgumentParser):
    """A subcommand's parser that keeps the options it was given, so that errors can name them as typed.

    Attributes
    ----------
    options : list of argparse.Action
        The options (not the positional arguments), in the order added.
    flags : dict
        The flag of each option's ``dest`` (its long spelling): ``{"simulated_top_k_retriever": "--top-k-retriever"}``;
        a positional argument's is its name in the usage line (``OUT``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: list[argparse.Action] = []
        self.flags: dict[str, str] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if action.option_strings:
            self.options.append(action)
            self.flags.setdefault(action.dest, max(action.option_strings, key=len))
        elif isinstance(action.metavar, str):
            self.flags.setdefault(action.dest, action.metavar)
        else:
            self.flags.setdefault(action.dest, action.dest)
        return action


#: The library's parameter names that the commands fill from a flag of another ``dest``.
_PARAMETER_DESTS = {"answer_metric": "metric", "document_metric": "metric", "answer_metric_threshold": "threshold",
                    "document_metric_threshold": "threshold", "out_dir": "out"}


def _as_typed(error: EvalframeError, command: Command, argv: Sequence[str]) -> str:
    """The error's message with the parameter it is about named by the command's flag, as typed (``-m`` or
    ``--measure``; the long one when the flag is not in ``argv``, e.g. an abbreviation argparse completed).

    The flags are those the parser generated (from the MetricOptions and MatchingOptions fields, and the commands' own
    options), so a new option is named without a change here.
    """
    name = error.parameter
    flag = command.flags.get(_PARAMETER_DESTS.get(name, name)) if name else None
    if flag is None:
        return str(error)
    spellings = next((action.option_strings for action in command.options if flag in action.option_strings), [])
    typed = [token.split("=", 1)[0] for token in argv if token.split("=", 1)[0] in spellings]
    return error.naming(typed[-1] if typed else flag)


def command_parsers() -> dict[str, Command]:
    """The parser of each subcommand, by name (what ``evalframe COMMAND --help`` shows)."""
    return _parsers()[1]


def _parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    parser = argparse.ArgumentParser(
        prog="evalframe",
        description="Analyse retrieval and question-answering evaluation results (Haystack 1.x EvaluationResult folders).",
    )
    parser.add_argument("--version", action="version", version=f"evalframe {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Command)

    demo = commands.add_parser("demo", help="build, report and save the demo evaluation shipped with evalframe")
    demo.add_argument("--out", type=Path, default=Path("evalframe-demo"), help="where to write (default ./evalframe-demo)")

    metrics = commands.add_parser("metrics", help="metrics per node (or per query with --by-query)")
    metrics.add_argument("folder", type=Path, help="a results folder (evalframe or Haystack 1.x)")
    metrics.add_argument("--node", default=None, help="only this node")
    metrics.add_argument("--by-query", action="store_true", help="one row per query (needs --node)")
    metrics.add_argument("--by", default=None, metavar="KEYS", help="slice the queries: comma-separated columns, "
                         "'no_answer' or 'filters.<field>'")
    _scope_options(metrics)
    _csv_options(metrics)
    _scheduler_option(metrics)

    compare = commands.add_parser("compare", help="compare runs on the same queries: delta, 95%% CI, p-values")
    compare.add_argument("folders", type=Path, nargs="+", metavar="DIR", help="two or more results folders; "
                         "each is compared with the first")
    compare.add_argument("--node", default=None, help="the node to compare (needed when the runs share several)")
    compare.add_argument("--metrics", default=None, help="comma-separated metrics (default: all the runs share); "
                         "trec_eval measures too, e.g. nDCG@10,AP")
    compare.add_argument("--names", default=None, help="comma-separated run names (default: the folder names)")
    compare.add_argument("--rounds", type=int, default=ROUNDS, help=f"bootstrap / randomization rounds (default {ROUNDS})")
    compare.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    _scope_options(compare)
    _csv_options(compare)
    _scheduler_option(compare)

    worst = commands.add_parser("worst", help="the worst queries of a node")
    worst.add_argument("folder", type=Path)
    worst.add_argument("--node", required=True)
    worst.add_argument("-n", type=_at_least_one, default=5, help="how many queries, >= 1 (default 5)")
    worst.add_argument("--metric", default=None, help="answer nodes: f1 (default), exact_match, sas; "
                                                        "document nodes: recall_single_hit (default), mrr, ... or a "
                                                        "trec_eval measure such as nDCG@10")
    worst.add_argument("--threshold", type=float, default=THRESHOLD, help=f"list queries scoring <= this (default {THRESHOLD})")
    _scope_options(worst)
    _csv_options(worst)
    _scheduler_option(worst)

    convert = commands.add_parser(
        "convert", help="rewrite a results folder as CSV or Parquet, or convert to and from TREC run and qrels files",
        description="IN is a results folder or a TREC run file (plain or .gz). A run (with --qrels QRELS) becomes a "
                    "results folder (--to csv|parquet); a folder becomes a run file OUT (--to trec), and its judgments "
                    "a qrels file with --qrels OUT_QRELS. See docs/cli.md#convert.")
    convert.add_argument("folder", type=Path, metavar="IN", help="a results folder, or a TREC run file")
    convert.add_argument("out", type=Path, metavar="OUT", help="the results folder or TREC run file to write")
    convert.add_argument("--to", required=True, choices=("csv", "parquet", "trec"))
    convert.add_argument("--from", dest="source", default=None, choices=("folder", "trec"),
                         help="what IN is (default: a folder if IN is a folder, else a TREC run file)")
    convert.add_argument("--qrels", type=Path, default=None, metavar="QRELS",
                         help="from TREC: the qrels file to read (needed); to TREC: the qrels file to write (optional)")
    convert.add_argument("--queries", type=Path, default=None, metavar="TSV",
                         help="from TREC: query texts, lines qid<TAB>text (default: the query ids)")
    convert.add_argument("--node", default=None, help="from TREC: the node's name (default Retriever); to TREC: the "
                         "node to write (default: the one node with document rows)")
    convert.add_argument("--tag", default=None, help="to TREC: the run's name in column 6 (default evalframe)")
    convert.add_argument("--scores", default=None, choices=("score", "rank"),
                         help="to TREC: 'score' writes the score column, checked against the ranks (default), 'rank' "
                              "writes n - rank + 1")
    convert.add_argument("--duplicates", default=None, choices=("error", "first"),
                         help="to TREC: a document retrieved twice in a query is an error (default, trec_eval's rule) "
                              "or written once at its best rank ('first')")
    _partition_options(convert)
    _csv_options(convert)

    flatten = commands.add_parser("flatten", help="build a results folder from a JSON Lines runs file")
    flatten.add_argument("runs", type=Path, nargs="+", help="runs file (docs/runs-format.md); several files, the shards "
                         "of one run in this order, need --partitions")
    flatten.add_argument("-o", "--out", type=Path, required=True, help="results folder to write")
    _add_options(flatten, MatchingOptions)
    flatten.add_argument("--sas-model", default=None, help='a sentence-transformers model (pip install "evalframe[sas]")')
    flatten.add_argument("--format", default=None, choices=("csv", "parquet"), dest="storage",
                         help="csv (default) or parquet (implied by --partitions)")
    _partition_options(flatten)
    flatten.add_argument("--scheduler", default=None, metavar="ADDRESS",
                         help="with --partitions: build on this Dask scheduler's workers, one task per runs file "
                              "(default: $DASK_SCHEDULER_ADDRESS; several runs files without either: Dask's default "
                              "scheduler in this process); docs/cluster.md")

    report = commands.add_parser("report", help="the pipeline funnel and the worst queries (text, and HTML with --html)")
    report.add_argument("folder", type=Path)
    report.add_argument("--html", type=Path, default=None, help="also write a self-contained HTML report here")
    report.add_argument("--format", default="text", choices=tuple(REPORT_RENDERERS),
                        help="what is printed: text (default), html (the page, charts embedded), markdown or json "
                             "(docs/cli.md#the-report-as-json)")
    report.add_argument("-n", type=_at_least_one, default=3, help="worst queries per node, >= 1 (default 3)")
    report.add_argument("--node-order", default=None, help="comma-separated node names, e.g. Retriever,Reader")
    report.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                        help="a trec_eval measure for the document nodes' funnel, e.g. nDCG@10 (repeatable; the first "
                             "ranks their worst queries)")
    _add_options(report, MetricOptions, only=("document_scope", "answer_scope"))
    _csv_options(report)

    trec = commands.add_parser("trec", help="trec_eval measures of a TREC run against qrels (like trec_eval [-q])",
                               description="trec_eval measures of a TREC run against qrels: the numbers of trec_eval "
                               "(pytrec_eval), by ir_measures' names (docs/ir-researchers.md).")
    trec.add_argument("run", type=Path, help="TREC run file: qid Q0 docid rank score tag (plain or .gz)")
    trec.add_argument("qrels", type=Path, help="qrels file: qid iter docid relevance (plain or .gz)")
    trec.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                      help="a measure by ir_measures' name, e.g. nDCG@10, AP, P(rel=2)@5, or trec_eval's, e.g. "
                           "ndcg_cut.10, map, P_5 (evalframe list-metrics); repeat for more (default: "
                           + " ".join(TREC_DEFAULT_MEASURES) + ")")
    trec.add_argument("-q", "--per-query", action="store_true", help="a line per query before the means (trec_eval -q)")
    trec.add_argument("-c", "--complete", action="store_true",
                      help="queries of the qrels without run lines count as 0 in the means (trec_eval -c)")
    trec.add_argument("--format", default="tsv", choices=tuple(TREC_FORMATS),
                      help="tsv: trec_eval's 'measure<TAB>query<TAB>value' lines (default); json; markdown")
    trec.add_argument("--digits", type=int, default=4, help="decimals of the tsv and markdown values (default 4, as "
                      "trec_eval; json keeps every digit)")

    commands.add_parser("list-metrics", help="the metrics evalframe computes")
    return parser, commands.choices


# ------------------------------------------------------------------------------------------ output
def _scopes(args: argparse.Namespace) -> str:
    """The options that produced the numbers, defaults included: one line for the table and markdown formats."""
    options = MetricOptions.from_keywords(_scope_kwargs(args), passed_to="the command's options")

    def top_k(k: int) -> str:
        return "all" if k == -1 else str(k)

    return (f"scopes: document_scope={options.document_scope}, answer_scope={options.answer_scope}, "
            f"eval_mode={options.eval_mode}, top-k retriever={top_k(options.simulated_top_k_retriever)}, "
            f"top-k reader={top_k(options.simulated_top_k_reader)}")


def _with_scopes(text: str, args: argparse.Namespace, table: pd.DataFrame | None = None) -> str:
    """The scopes above a table, below a markdown table (its first line stays the table's header row), not in json/csv.

    Metric values above 1 in ``table`` (Haystack's map and ndcg count a document retrieved twice) get a note below.
    """
    note = above_one_note(table) if table is not None else ""
    return TABLE_FORMATS[args.format].with_scopes(text, lambda: _scopes(args), note)


# ------------------------------------------------------------------------------------------ commands
def _metrics(args: argparse.Namespace) -> str:
    result = _load(args.folder, args, on_dask=True)
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
    metrics = result.calculate_metrics(**kwargs)
    if args.node is not None:
        _check_node(result, args.node)
        metrics = {args.node: metrics[args.node]}
    frame = pd.DataFrame.from_dict(metrics, orient="index").rename_axis("node")
    return _with_scopes(render_table(frame, args.format, lambda: metrics), args, frame)


def _worst(args: argparse.Namespace) -> str:
    result = _load(args.folder, args, on_dask=True)
    _check_node(result, args.node)
    answers = result.has_answers(args.node)
    metric = args.metric or result.headline_metric(args.node)
    kwargs = _scope_kwargs(args)
    options = {"answer_metric": metric, "answer_metric_threshold": args.threshold} if answers else {
        "document_metric": metric, "document_metric_threshold": args.threshold}
    examples = result.wrong_examples(args.node, n=args.n, **options, **kwargs)
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
        return _with_scopes(f"no query of node {args.node!r} scores {metric} <= {args.threshold}", args)
    return _with_scopes(render_table(table, args.format, lambda: examples), args)  # json: the examples themselves


def _compare(args: argparse.Namespace) -> str:
    if len(args.folders) < 2:
        raise EvalframeError(f"compare needs two or more results folders; got {len(args.folders)}.")
    names = [n.strip() for n in args.names.split(",")] if args.names else _folder_names(args.folders)
    runs = [_load(folder, args, on_dask=True) for folder in args.folders]
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
    metrics = [m.strip() for m in args.metrics.split(",")] if args.metrics else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = compared(*runs, node=args.node, metrics=metrics, names=names, rounds=args.rounds, seed=args.seed,
                        **_scope_kwargs(args))
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


def _folder_names(folders: Sequence[Path]) -> list[str]:
    names: list[str] = []
    for folder in folders:
        name = folder.resolve().name or str(folder)
        names.append(name if name not in names else f"{name} ({len(names) + 1})")
    return names


def _convert(args: argparse.Namespace) -> str:
    source = args.source
    if source is None:  # a folder, a file, or (missing: the loader names it) what the other flags point to
        exists = args.folder.exists()
        source = "folder" if args.folder.is_dir() or (not exists and (args.qrels is None or args.to == "trec")) else "trec"
    given = {flag: getattr(args, name) is not None for flag, name in (
        ("--qrels", "qrels"), ("--queries", "queries"), ("--node", "node"), ("--tag", "tag"), ("--scores", "scores"),
        ("--duplicates", "duplicates"), ("--sep", "sep"), ("--encoding", "encoding"), ("--partitions", "partitions"))}
    allowed = {("trec", False): ("--qrels", "--queries", "--node", "--partitions"), ("folder", True): ("--qrels", "--node",
               "--tag", "--scores", "--duplicates", "--sep", "--encoding"),
               ("folder", False): ("--sep", "--encoding", "--partitions")}
    direction = (source, args.to == "trec")
    if direction == ("trec", True):
        raise EvalframeError("convert reads a TREC run into a results folder (--to csv or parquet) or writes a folder "
                             "as TREC files (--to trec); TREC to TREC is not a conversion.")
    unused = [flag for flag, set_ in given.items() if set_ and flag not in allowed[direction]]
    if unused:
        what = {("trec", False): "reading a TREC run", ("folder", True): "writing TREC files",
                ("folder", False): "rewriting a results folder"}[direction]
        raise EvalframeError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply when {what}; "
                             "see evalframe convert --help.")
    if args.partitions is not None:
        _parquet_storage(args, args.to, "--to")
    if source == "trec":
        if args.qrels is None:
            raise EvalframeError(f"reading the TREC run {args.folder} needs its judgments: add --qrels QRELS.")
        result = EvaluationResult.from_trec(args.folder, args.qrels, node=args.node or "Retriever", queries=args.queries)
        folder = result.save(args.out, format=args.to, partitions=args.partitions)
        frame = next(iter(result.values()))
        return f"wrote {frame['multilabel_id'].nunique()} queries ({len(frame)} rows) as {args.to} to {folder}"
    result = _load(args.folder, args)
    if args.to != "trec":
        folder = result.save(args.out, format=args.to, partitions=args.partitions)
        return f"wrote {len(result)} node(s) as {args.to} to {folder}"
    run = result.to_trec_run(args.out, node=args.node, tag=args.tag or "evalframe", scores=args.scores or "score",
                             duplicates=args.duplicates or "error")
    message = f"wrote the TREC run {run}"
    if args.qrels is not None:
        message += f" and the qrels {result.to_qrels(args.qrels, node=args.node)}"
    return message


def _flatten(args: argparse.Namespace) -> str:
    storage = _parquet_storage(args, args.storage)
    if args.partitions is None and (len(args.runs) > 1 or args.scheduler is not None):  # the in-memory build reads one file
        given = "--scheduler" if args.scheduler is not None else f"{len(args.runs)} runs files"
        raise EvalframeError(f"{given} build{'s' if given == '--scheduler' else ''} a partitioned folder shard by shard: "
                             "add --partitions N (docs/cluster.md#building-a-result-on-the-cluster).")
    sharded = len(args.runs) > 1 or any(char in str(args.runs[0]) for char in "*?[")  # a quoted glob pattern too
    if args.partitions is not None and (sharded or args.scheduler is not None or os.environ.get("DASK_SCHEDULER_ADDRESS")):
        return _flatten_on_dask(args)
    runs = args.runs[0]
    labels, outputs = read_runs(runs)
    lines = query_lines(runs)

    def at_line(message: object) -> str:
        """from_runs names a query ``labels[i]`` (0-based, of the list it got): name its runs file line instead."""
        return re.sub(r"labels\[(\d+)\]", lambda m: f"{runs}:{lines[int(m.group(1))]}", str(message))

    # queries without gold labels are left out by from_runs (one warning each); they are summed up below instead
    dropped = [lines[position] for position, label in enumerate(labels) if label is None]  # their runs file lines
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = EvaluationResult.from_runs(labels, outputs, sas_model=args.sas_model,
                                                **_options(args, MatchingOptions))
        except EvalframeError as exc:
            exc.args = (at_line(exc),)  # the same error (its class and parameter), naming the runs file line
            raise exc from None
    for warning in caught:
        if "has no label; the query is left out" not in str(warning.message):
            print_warning(at_line(warning.message))
    folder = result.save(args.out, format=storage, partitions=args.partitions)
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
                          sas_model=args.sas_model, **_options(args, MatchingOptions))
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
    folder = result.save(args.out / "results")
    report = result.report(n=3)
    html_path = args.out / "report.html"
    html_path.write_text(report.html, encoding="utf-8")
    return (f"evalframe demo: {len(labels)} questions over a small corpus, a BM25 retriever and an extractive reader "
            f"(evalframe.load_demo_runs())\n\n{report.text}\nresults folder: {folder}\nHTML report:    {html_path}\n"
            f"next: evalframe metrics {folder} --top-k-retriever 1    evalframe worst {folder} --node Reader")


def _report(args: argparse.Namespace) -> str:
    if args.html is not None and args.html.is_dir():
        raise EvalframeError(f"--html {args.html} is a folder; give the file to write, e.g. {args.html / 'report.html'}.")
    result = _load(args.folder, args)
    order = [name.strip() for name in args.node_order.split(",")] if args.node_order else None
    scopes = {name: value for name, value in _options(args, MetricOptions).items()}
    charts = args.html is not None or args.format == "html"  # the page embeds them; the other formats have none
    report = result.report(n=args.n, node_order=order, charts=charts, measures=args.measures, **scopes)
    shown = report.render(args.format).rstrip("\n")
    if args.html is not None:
        try:
            args.html.parent.mkdir(parents=True, exist_ok=True)
            args.html.write_text(report.html, encoding="utf-8")
        except OSError as exc:
            raise EvalframeError(f"--html {args.html} cannot be written: {exc.strerror or exc}.") from None
        if args.format == "text":  # a line a person reads; json, markdown and html stay whole documents
            return shown + f"\n\nHTML report: {args.html}"
    return shown


#: The measures of ``evalframe trec`` without -m.
TREC_DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec", "Bpref")


def _trec(args: argparse.Namespace) -> str:
    """trec_eval's numbers of a run file against a qrels file, in trec_eval's layout (or JSON / markdown)."""
    if not 0 <= args.digits <= 17:
        raise EvalframeError(f"--digits must be between 0 and 17; got {args.digits}.")
    measures = list(dict.fromkeys(args.measures or TREC_DEFAULT_MEASURES))
    result = EvaluationResult.from_trec(args.run, args.qrels)
    table = result.trec_query_metrics(measures, complete=args.complete)
    means = aggregate.means(aggregate.partial(table)) if len(table) else {column: 0.0 for column in table.columns}
    if not len(table):
        print_warning(f"no query of {args.run} is evaluated: none is also in {args.qrels} (trec_eval evaluates the queries "
                      "of both; -c adds the qrels' queries missing from the run).")
    return TREC_FORMATS[args.format](table, means, args)


def _list_metrics(_: argparse.Namespace) -> str:
    """The registered metrics by level: name, level, headline marker, bounds and description (docs/metrics.md); then
    trec_eval's measures: name, level, parameters, bounds, description and trec_eval's names."""
    lines = []
    for level in LEVELS:
        lines.append(f"{level} metrics:")
        for metric in METRICS.values():
            if metric.level == level:
                marker = "headline" if metric.name == headline_metric(level) else ""
                bounds = format_bounds(metric)
                lines.append(f"  {metric.name:<18} {metric.level:<9} {marker:<9} {bounds:<10} {metric.description}")
    lines.append("trec_eval measures (trec_metrics, evalframe trec -m; @k: a cutoff, [@k] an optional one, rel: "
                 "a relevance level, as P(rel=2)@5):")
    for metric in TREC_MEASURES.values():
        lines.append(f"  {metric.name:<18} {metric.level:<9} {parameters(metric):<9} {format_bounds(metric):<10} "
                     f"{metric.description} trec_eval: {', '.join(other_names(metric))}.")
    return "\n".join(lines)


def print_warning(message: object) -> None:
    """A warning as one line ``warning: <message>`` on stderr, without the source path Python's format adds."""
    print("warning: " + " ".join(str(message).split()), file=sys.stderr)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """warnings.showwarning while a command runs: every warning (the library's, pandas', ...) as one line."""
    print_warning(message)


COMMANDS = {"demo": _demo, "metrics": _metrics, "compare": _compare, "worst": _worst, "convert": _convert,
            "flatten": _flatten, "report": _report, "trec": _trec, "list-metrics": _list_metrics}


def _silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush does not hit the closed pipe again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``evalframe`` command; returns the exit status.

    Examples
    --------
    >>> main(["list-metrics"])  # doctest: +ELLIPSIS
    answer metrics:
      exact_match ...
    0
    """
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            # Python's filters, each distinct UserWarning once per run: adding the filter forgets what earlier runs showed
            warnings.simplefilter("default", UserWarning)
            output = COMMANDS[args.command](args)
        print(output)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (`evalframe worst ... | head`): nothing to report
        _silence_stdout()
        return 1
    except EvalframeError as exc:
        print(f"error: {_as_typed(exc, commands[args.command], sys.argv[1:] if argv is None else argv)}",
              file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug of evalframe, not of the input: still one line, with a way to get the traceback
        if os.environ.get("EVALFRAME_TRACEBACK"):
            raise
        print(f"error: internal error {type(exc).__name__}: {exc} (set EVALFRAME_TRACEBACK=1 to see the traceback, "
              "and please report it)", file=sys.stderr)
        return 1
    return 0
