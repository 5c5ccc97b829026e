"""The ``evalframe`` command's parsers (argparse), built without pandas: ``evalframe --help`` and ``list-metrics``
import none of the commands' implementations (:mod:`evalframe.present.commands`, loaded when a command runs; issue 26).

Their flags are generated from the fields of :class:`~evalframe.options.MetricOptions`,
:class:`~evalframe.options.MatchingOptions`, :class:`~evalframe.options.ReportOptions`,
:class:`~evalframe.options.CompareOptions` and :class:`~evalframe.options.ComparisonReportOptions`; the output formats'
names are those of :data:`evalframe.present.formats.TABLE_FORMATS` and :data:`~evalframe.present.formats.TREC_FORMATS`
(``tests/present/test_cli.py`` checks that they agree) and the reports' are :data:`evalframe.report.formats.FORMATS`
itself (the formats load no pandas).
"""

from __future__ import annotations

import argparse
import json
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._locations import UrlText, locate, parse_storage_option, url_problem
from ..errors import InvalidParameterError
from .._validation import close_matches
from .._version import __version__
from ..options import (COMPARE_CORRECTIONS, THRESHOLD, CompareOptions, ComparisonReportOptions, Count, IntervalOptions,
                       MatchingOptions, MetricOptions, ReportOptions)
from ..report.formats import FORMATS
from ..sources.catalog import SOURCES
from .flags import Command, MainParser

__all__ = ["build", "command_parsers", "comma_list", "path_or_url", "judgments_path", "IRDS_PREFIX", "storage_option",
           "options_given", "print_warning",
           "FOLDER", "SUBCOMMANDS", "GATE_FORMAT_NAMES", "GATE_TEST_NAMES", "TABLE_FORMAT_NAMES", "TREC_FORMAT_NAMES",
           "PAPER_FORMAT_NAMES", "COMPARE_FORMAT_NAMES", "TREC_DEFAULT_MEASURES", "FRAME_FIELDS"]

#: The --format of the table commands (metrics, worst, compare): the keys of formats.TABLE_FORMATS.
TABLE_FORMAT_NAMES = ("table", "json", "csv", "markdown")
#: The formats of the paper table (``evalframe compare --paper``): the keys of report.paper.PAPER_FORMATS.
PAPER_FORMAT_NAMES = ("latex", "markdown", "html")
#: The --format of ``evalframe compare``: the table formats and those of the paper table (latex and html imply
#: --paper).
COMPARE_FORMAT_NAMES = TABLE_FORMAT_NAMES + tuple(name for name in PAPER_FORMAT_NAMES if name not in TABLE_FORMAT_NAMES)
#: The --format of ``evalframe trec``: the keys of formats.TREC_FORMATS.
TREC_FORMAT_NAMES = ("tsv", "json", "markdown", "trec_eval")
#: The measures of ``evalframe trec`` without -m (and of ``evalframe compare --qrels``: evalframe.trec_compare's).
TREC_DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec", "Bpref")
#: The fields ``evalframe flatten --from frame --column FIELD=COLUMN`` names: EvaluationResult.from_frame's column
#: parameters (a test checks that they agree).
FRAME_FIELDS = ("question", "retrieved_ids", "retrieved_texts", "retrieved_scores", "answer", "gold_ids", "gold_contexts",
                "gold_answers", "meta", "scores")
#: The --missing-queries of ``evalframe trec``: evalframe.frames.judged_codes.MISSING_QUERY_RULES (a test checks).
MISSING_QUERY_NAMES = ("skip", "error")


def path_or_url(text: str) -> Path | UrlText:
    """An argparse type: a local path (a :class:`~pathlib.Path`), or a URL (``s3://bucket/results``, ``memory://x``:
    a :class:`~evalframe._locations.UrlText`, given the ``--storage-option`` options once they are parsed). A URL whose
    protocol fsspec does not know, or whose filesystem is not installed, is refused naming the install line; a path
    that is a URL whose ``//`` was lost (``s3:/bucket/x``) too (:func:`evalframe._locations.locate`)."""
    if url_problem(text) is None:
        return Path(text)
    try:
        where = locate(text, name="URL")
    except InvalidParameterError as exc:  # "URL is the URL 'x', and ..." said of the argument: "the URL 'x': ..."
        message = str(exc).rstrip(".").replace("URL is the URL ", "the URL ", 1).replace("', and ", "': ", 1)
        raise argparse.ArgumentTypeError(message[len("URL is "):] if message.startswith("URL is ") else message) from None
    return Path(where) if isinstance(where, Path) else UrlText(text)


def storage_option(text: str) -> tuple[str, Any]:
    """An argparse type: one ``--storage-option KEY=VALUE`` (:func:`evalframe._locations.parse_storage_option`)."""
    try:
        return parse_storage_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _storage_option_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--storage-option", action="append", type=storage_option, default=None,
                        dest="storage_option_pairs", metavar="KEY=VALUE",
                        help="an option of the filesystem of the URLs given (s3://, gs://, az://, memory://; "
                             "docs/storage.md), e.g. endpoint_url=http://127.0.0.1:9000 or anon=true; a value is "
                             "read as JSON where it is JSON, a dotted key nests (client_kwargs.region_name=eu-west-1); "
                             "repeatable. Credentials come from each filesystem's usual environment (AWS_*, "
                             "GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_*)")


#: How a qrels or queries argument names an ir_datasets dataset (``--qrels irds:msmarco-passage/dev/small``):
#: :data:`evalframe.sources.irds.IRDS_PREFIX`, which loads pyarrow (the parsers load none; a test checks they agree).
IRDS_PREFIX = "irds:"


def judgments_path(text: str) -> Path | UrlText | str:
    """An argparse type of the qrels and queries arguments: ``irds:<id>`` as given (an ir_datasets dataset, read
    through ir_datasets when the command runs: ``docs/storage.md#ir_datasets``), else :func:`path_or_url`.

    Examples
    --------
    >>> judgments_path("irds:msmarco-passage/dev/small"), judgments_path("qrels.txt")
    ('irds:msmarco-passage/dev/small', PosixPath('qrels.txt'))
    """
    if text.startswith(IRDS_PREFIX):
        return text
    return path_or_url(text)


def _count(what: str, least: int) -> Callable[[str], int]:
    """An argparse type: an int >= ``least``, refused with ``what`` it counts."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"must be an int >= {least} ({what}); got {text!r}")
        return value

    return parse


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
#: trec_eval's -M: at most N documents per query (0: none, as trec_eval -M0 ranks none).
_max_docs = _count("at most this many documents per query", 0)
#: trec_eval's -l: the relevance level of every binary measure.
_level = _count("the relevance level: grade >= N is relevant", 1)
#: trec_eval's -N: the number of documents in the collection.
_collection = _count("the number of documents in the collection", 0)


def comma_list(text: str) -> list[str]:
    """An argparse type: comma-separated names (``bm25,hybrid``), each stripped."""
    return [part.strip() for part in text.split(",")]


def _add_options(parser: argparse.ArgumentParser, options: type, only: tuple[str, ...] | None = None, *,
                 prefix: str = "") -> None:
    """One flag per field of ``options`` (``only`` these, in this order) that has one: flag, type, choices, help
    (after ``prefix``), the default it leaves to the library.

    Unset flags stay None, so the options' own defaults apply (they are written only in evalframe.options). A list
    is given comma-separated or by repeating the flag, as the field says (``many``).
    """
    declared = {field.name: field for field in dataclasses.fields(options)}
    for field in (declared[name] for name in only) if only is not None else declared.values():
        meta, default = field.metadata, field.default
        if meta["flag"] is None:
            continue
        spellings = [*([meta["short"]] if meta.get("short") else []), meta["flag"]]
        if isinstance(default, bool) and default:  # a flag that turns the default off
            flag = meta["flag"].replace("--", "--no-", 1)
            parser.add_argument(flag, dest=field.name, action="store_const", const=not default, default=None,
                                help=f"do not {meta['help']}")
            continue
        if isinstance(default, bool):  # a flag that turns it on
            parser.add_argument(*spellings, dest=field.name, action="store_const", const=True, default=None,
                                help=prefix + meta["help"])
            continue
        parse = meta["parse"]
        if isinstance(parse, Count):
            parse = _count(parse.what, parse.minimum)
        if meta.get("many") == "comma":
            parse = comma_list
        shown = f" (default {default})" if default is not None else ""
        given: dict[str, Any] = {"action": "append"} if meta.get("many") == "repeat" else {}
        parser.add_argument(*spellings, dest=field.name, default=None, choices=meta["choices"], type=parse,
                            metavar=meta["metavar"], help=prefix + meta["help"] + shown, **given)


def options_given(args: argparse.Namespace, options: type) -> dict[str, Any]:
    """The options given on the command line (unset ones are left to the defaults): keyword arguments of the library.
    Only the fields with a flag are read: another flag of the command may share a name (``--duplicates``)."""
    return {field.name: getattr(args, field.name) for field in dataclasses.fields(options)
            if field.metadata["flag"] is not None and getattr(args, field.name, None) is not None}


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


def _scheduler_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="evaluate a partitioned folder on this Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: "
                             "$DASK_SCHEDULER_ADDRESS when set; pip install 'evalframe[dask]')")


def _scope_options(parser: argparse.ArgumentParser, formats: tuple[str, ...] = TABLE_FORMAT_NAMES) -> None:
    _add_options(parser, MetricOptions)
    parser.add_argument("--format", default="table", choices=formats)


def command_parsers() -> dict[str, Command]:
    """The parser of each subcommand, by name (what ``evalframe COMMAND --help`` shows)."""
    return build()[1]


# ------------------------------------------------------------------------------------------ the sources (--from)
#: The name ``--from`` gives a results folder (evalframe's or Haystack 1.x's), beside the sources' names.
FOLDER = "folder"


def _source_names(folder: bool) -> tuple[str, ...]:
    return ((FOLDER,) if folder else ()) + tuple(SOURCES)


def _source_name(folder: bool) -> Callable[[str], str]:
    """An argparse type: a name of :data:`evalframe.sources.catalog.SOURCES` (or ``folder``), read when the command
    line is, so that a source added to the table is offered without another edit."""

    def parse(text: str) -> str:
        names = _source_names(folder)
        if text in names:
            return text
        close = close_matches(text, names)
        raise argparse.ArgumentTypeError(f"unknown source {text!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                                         + f" (the sources: {', '.join(names)})")

    return parse


def _source_help(what: str, folder: bool, default: str) -> str:
    """The help of ``--from``: every source of the table with what its file holds."""
    sources = "; ".join(f"{name} ({entry.needs})" for name, entry in SOURCES.items())
    folder_text = f"{FOLDER} (a results folder), or " if folder else ""
    return (f"what {what} is: {folder_text}the file of one of evalframe's sources: {sources}. Without --from: "
            f"{default}").replace("%", "%%")


def _from_option(parser: argparse.ArgumentParser, what: str, *, folder: bool = True, default: str = "") -> None:
    """``--from NAME``: what a command's input is, a results folder or a file of any source."""
    parser.add_argument("--from", dest="source", default=None, metavar="SOURCE", type=_source_name(folder),
                        help=_source_help(what, folder, default or "a folder is a results folder; a file is read as "
                                          "the one source whose suffix and content claim it (else name it)"))


def _source_options(parser: argparse.ArgumentParser, files: str, *, duplicates: bool = True, qrels: bool = True,
                    scores: bool = True) -> None:
    """The flags of a source's file: how its rows become queries (each refused by a source whose reader does not
    take it)."""
    if qrels:
        parser.add_argument("--qrels", type=judgments_path, default=None, metavar="QRELS",
                            help=f"with a TREC run (--from trec): the qrels file that judges {files}, or irds:<id> (an "
                                 "ir_datasets dataset's qrels)")
    parser.add_argument("--column", action="append", dest="columns", default=None, metavar="FIELD=COLUMN",
                        help="with --from frame: the column of a field, e.g. question=q, retrieved_ids=ids, "
                             "retrieved_texts=contexts, retrieved_scores=scores, answer=response, gold_ids=gold, "
                             "gold_contexts=reference_contexts, gold_answers=reference, meta=info (a column of "
                             "objects; meta=a,b: those columns as fields), scores=judge,latency (score columns); "
                             "repeatable (EvaluationResult.from_frame)")
    parser.add_argument("--id-column", default=None, metavar="COLUMN",
                        help="with --from ragas or frame: the column of the queries' ids, each its query's "
                             "multilabel_id (the same question under two ids: two queries); default: a query is its "
                             "text, and a question twice is refused")
    if duplicates:
        parser.add_argument("--duplicates", default=None, choices=("error", "first"),
                            help=f"with --from: a document twice in one ranking of {files} is an error (default, as "
                                 "trec_eval) or kept once at its first rank ('first')")
    parser.add_argument("--skip-invalid", action="store_true",
                        help=f"with --from: leave out the rows of {files} without any gold ('has no label') instead "
                             "of refusing them; the result records them and its reports say how many")
    if scores:
        parser.add_argument("--score", action="append", default=None, metavar="NAME[:higher|lower|none][:LOW:HIGH]",
                            dest="score_declarations",
                            help=f"declare a score {files} give(s) (docs/scores.md): its direction (default higher; "
                                 "none: neither is better, a count) and bounds, e.g. latency:lower:0:60; repeatable")


# ------------------------------------------------------------------------------------------ one function per command
def _demo_command(demo: Command) -> None:
    demo.add_argument("--out", type=path_or_url, default=Path("evalframe-demo"), help="where to write (default ./evalframe-demo)")


def _metrics_command(metrics: Command) -> None:
    metrics.add_argument("folder", type=path_or_url, help="a results folder (evalframe or Haystack 1.x), or a file of a "
                         "source (--from)")
    metrics.add_argument("--node", default=None, help="only this node")
    metrics.add_argument("--by-query", action="store_true", help="one row per query (needs --node)")
    metrics.add_argument("--by", default=None, metavar="KEYS", help="slice the queries: comma-separated columns, "
                         "'no_answer', 'filters.<field>' or 'meta.<field>'")
    _scope_options(metrics)
    _add_options(metrics, IntervalOptions)
    _from_option(metrics, "the result")
    _source_options(metrics, "the file")
    _csv_options(metrics)
    _scheduler_option(metrics)


def _compare_command(compare: Command) -> None:
    compare.add_argument("folders", type=_run_or_ref, nargs="+", metavar="RUN", help="two or more results folders or "
                         "files of a source (--from), TREC run files with --qrels, or @ref, runs of the history store "
                         "(--store); each is compared with the first")
    compare.add_argument("--qrels", type=judgments_path, default=None, metavar="QRELS",
                         help="the runs are TREC run files (plain or .gz) judged by this qrels file (or irds:<id>, an "
                              "ir_datasets dataset's qrels), compared on trec_eval's measures over the same queries "
                              "(docs/ir-researchers.md)")
    _add_options(compare, CompareOptions, only=("node", "metrics"))
    compare.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                         help="a trec_eval measure, e.g. nDCG@10, map, P_5 (repeatable; added to --metrics)")
    _add_options(compare, CompareOptions, only=("by", "family"))
    _add_options(compare, CompareOptions, only=("complete", "names", "rounds", "seed", "test", "zero_method", "correction",
                                                "pairs", "max_p"))
    compare.add_argument("--paper", action="store_true", default=False,
                         help="print the paper table (evalframe.comparison_table): every pair of runs compared, each "
                              "run's mean with superscripts naming the runs it is significantly better than, the test "
                              "and correction in its caption; in --format latex (booktabs), markdown or html (latex "
                              "and html imply --paper; the default table format prints the markdown)")
    _scope_options(compare, COMPARE_FORMAT_NAMES)
    _store_option(compare)
    _from_option(compare, "each RUN")
    _source_options(compare, "the files", qrels=False)
    _csv_options(compare)
    _scheduler_option(compare)


def _worst_command(worst: Command) -> None:
    worst.add_argument("folder", type=path_or_url, help="a results folder, or a file of a source (--from)")
    worst.add_argument("--node", required=True)
    worst.add_argument("-n", type=_at_least_one, default=5, help="how many queries, >= 1 (default 5)")
    worst.add_argument("--metric", default=None, help="answer nodes: f1 (default), exact_match, sas; "
                                                        "document nodes: recall_single_hit (default), mrr, ... or a "
                                                        "trec_eval measure such as nDCG@10")
    worst.add_argument("--threshold", type=float, default=THRESHOLD,
                       help=f"list queries scoring <= this, >= for a measure where lower is better such as unj@10 "
                            f"(default {THRESHOLD})")
    _scope_options(worst)
    _from_option(worst, "the result")
    _source_options(worst, "the file")
    _csv_options(worst)
    _scheduler_option(worst)


def _convert_command(convert: Command) -> None:
    convert.description = (
        "IN is a results folder, a TREC run file (plain or .gz) or the file of another source (--from). A file (a TREC "
        "run with --qrels QRELS) becomes a results folder (--to csv|parquet); a folder or a file becomes a run file "
        "OUT (--to trec), and its judgments a qrels file with --qrels OUT_QRELS. See docs/cli.md#convert.")
    convert.add_argument("folder", type=path_or_url, metavar="IN", help="a results folder, a TREC run file, or a file of "
                         "a source (--from)")
    convert.add_argument("out", type=path_or_url, metavar="OUT", help="the results folder or TREC run file to write")
    convert.add_argument("--to", required=True, choices=("csv", "parquet", "trec"))
    _from_option(convert, "IN", default="a folder if IN is a folder, else the one source whose suffix and content "
                 "claim the file, else a TREC run file")
    convert.add_argument("--qrels", type=judgments_path, default=None, metavar="QRELS",
                         help="from TREC: the qrels file to read (needed; or irds:<id>, an ir_datasets dataset's "
                              "qrels); to TREC: the qrels file to write (optional)")
    convert.add_argument("--queries", type=judgments_path, default=None, metavar="TSV",
                         help="from TREC: query texts, lines qid<TAB>text, or irds:<id> (an ir_datasets dataset's "
                              "queries; default: the query ids)")
    convert.add_argument("--node", default=None, help="from TREC: the node's name (default Retriever); to TREC: the "
                         "node to write (default: the one node with document rows)")
    convert.add_argument("--tag", default=None, help="to TREC: the run's name in column 6 (default evalframe)")
    convert.add_argument("--scores", default=None, choices=("score", "rank"),
                         help="to TREC: 'score' writes the score column, checked against the ranks (default), 'rank' "
                              "writes n - rank + 1")
    convert.add_argument("--duplicates", default=None, choices=("error", "first"),
                         help="to TREC: a document retrieved twice in a query is an error (default, trec_eval's rule) "
                              "or written once at its best rank ('first')")
    _source_options(convert, "IN", duplicates=False, qrels=False)
    _partition_options(convert)
    _csv_options(convert)


def _flatten_command(flatten: Command) -> None:
    flatten.add_argument("runs", type=path_or_url, nargs="+", help="runs file (docs/runs-format.md); several files, the shards "
                         "of one run in this order, need --partitions; with --from, the one file of that source")
    flatten.add_argument("-o", "--out", type=path_or_url, required=True, help="results folder to write")
    _from_option(flatten, "the file", folder=False,
                 default="the one source whose suffix and content claim the file, else a runs file")
    _add_options(flatten, MatchingOptions)
    flatten.add_argument("--sas-model", default=None, help='a sentence-transformers model (pip install "evalframe[sas]")')
    _source_options(flatten, "the file")
    flatten.add_argument("--format", default=None, choices=("csv", "parquet"), dest="storage",
                         help="csv (default) or parquet (implied by --partitions)")
    _partition_options(flatten)
    flatten.add_argument("--scheduler", default=None, metavar="ADDRESS",
                         help="with --partitions: build on this Dask scheduler's workers, one task per runs file "
                              "(default: $DASK_SCHEDULER_ADDRESS; several runs files without either: Dask's default "
                              "scheduler in this process); docs/cluster.md")


def _report_command(report: Command) -> None:
    report.add_argument("folders", type=path_or_url, nargs="+", metavar="RUN",
                        help="a result folder or a file of a source (--from); two or more: a comparative report, the "
                             "first the baseline")
    report.add_argument("--html", type=path_or_url, default=None, help="also write a self-contained HTML report here")
    report.add_argument("--format", default="text", choices=tuple(FORMATS),
                        help="what is printed: " + ", ".join(f"{name} ({fmt.help})" for name, fmt in FORMATS.items())
                             + "; default text")
    _add_options(report, ReportOptions, only=("n", "node_order", "measures", "ci", "ci_method", "seed", "rounds"))
    _add_options(report, ComparisonReportOptions,
                 only=("names", "metrics", "by", "test", "max_p", "power", "page_characters"), prefix="comparison: ")
    _from_option(report, "each RUN")
    _source_options(report, "a file")
    _add_options(report, ReportOptions, only=("document_scope", "answer_scope"))
    _csv_options(report)


def _trec_command(trec: Command) -> None:
    trec.description = ("trec_eval measures of a TREC run against qrels: the numbers of trec_eval (pytrec_eval), by "
                        "ir_measures' names (docs/ir-researchers.md).")
    trec.add_argument("run", type=path_or_url, help="TREC run file: qid Q0 docid rank score tag (plain or .gz; - reads it "
                      "from standard input, as trec_eval 10.0)")
    trec.add_argument("qrels", type=judgments_path, help="qrels file: qid iter docid relevance (plain or .gz; - reads it "
                      "from standard input), or irds:<id> (an ir_datasets dataset's qrels)")
    trec.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                      help="a measure by ir_measures' name, e.g. nDCG@10, AP, P(rel=2)@5, or trec_eval's, e.g. "
                           "ndcg_cut.10, map, P_5, P.5,10, or one of trec_eval's sets: official, all_trec, set "
                           "(evalframe list-metrics); repeat for more (default: " + " ".join(TREC_DEFAULT_MEASURES)
                           + "; with --format trec_eval: official)")
    trec.add_argument("-q", "--per-query", action="store_true", help="a line per query before the means (trec_eval -q)")
    trec.add_argument("-c", "--complete", action="store_true",
                      help="queries of the qrels without run lines count as 0 in the means (trec_eval -c)")
    trec.add_argument("-M", "--max-docs", type=_max_docs, default=None, metavar="N",
                      help="at most N documents per query, the first in trec_eval's order (trec_eval -M)")
    trec.add_argument("-J", "--judged-only", action="store_true",
                      help="rank the judged documents only, the others removed after -M (trec_eval -J)")
    trec.add_argument("-l", "--level", type=_level, default=None, dest="rel", metavar="N",
                      help="grade >= N is relevant, for every binary measure (trec_eval -l; default 1)")
    trec.add_argument("-N", "--num-docs", type=_collection, default=None, metavar="N",
                      help="documents in the collection (trec_eval -N: only its utility measure reads it)")
    trec.add_argument("-n", "--no-summary", action="store_false", dest="summary",
                      help="print no line for all the queries (trec_eval -n; with -q: the per-query lines only)")
    trec.add_argument("-Z", "--zscores", type=path_or_url, default=None, metavar="FILE",
                      help="print z-scores against FILE's 'qid measure mean stddev' lines (trec_eval -Z; with "
                           "--format trec_eval)")
    trec.add_argument("--subtopics", action="store_true",
                      help="QRELS is a subtopic (diversity) qrels, qid subtopic docid relevance: the diversity measures "
                      "(alpha_nDCG@20, ERR_IA@20, P_IA@20, AP_IA, StRecall@20, ...) read its subtopics, the others each "
                      "document's highest grade")
    trec.add_argument("--missing-queries", default="skip", choices=MISSING_QUERY_NAMES,
                      help="without -c, a query of the qrels without run lines is skipped (default, as trec_eval 9.x "
                           "and pytrec_eval) or refused (error, as trec_eval 10.0)")
    trec.add_argument("--format", default="tsv", choices=TREC_FORMAT_NAMES,
                      help="tsv: 'measure<TAB>query<TAB>value' lines, evalframe's names (default); json; markdown; "
                           "trec_eval: trec_eval's output byte for byte (its names, order and precision)")
    _add_options(trec, IntervalOptions)
    trec.add_argument("--digits", type=int, default=4, help="decimals of the tsv and markdown values (default 4, as "
                      "trec_eval; json keeps every digit)")


def _fuse_command(fuse: Command) -> None:
    fuse.description = ("Fuse two or more TREC run files into one, written atomically as a TREC run file. With "
                        "--optimize MEASURE --qrels QRELS the weights (and RRF's k) are searched on a grid first, as "
                        "ranx's optimize_fusion. See docs/ir-researchers.md#fusing-runs.")
    fuse.add_argument("runs", type=path_or_url, nargs="+", metavar="RUN", help="two or more TREC run files (plain or .gz)")
    fuse.add_argument("-o", "--out", type=path_or_url, required=True, help="the fused TREC run file to write")
    fuse.add_argument("--method", default="rrf", metavar="NAME",
                      help="rrf (default), combsum, combmnz, combmax, combmin, combanz, combmed (ranx's names too: wsum)")
    fuse.add_argument("--weights", default=None, metavar="W,W,...",
                      help="one weight >= 0 per run, comma-separated (default: 1 each; with --optimize: searched)")
    fuse.add_argument("--norm", default=None, metavar="NAME",
                      help="min-max (default of the score methods), zmuv, sum, max, rank, none; not for rrf")
    fuse.add_argument("-k", type=float, default=60.0, help="RRF's constant k (default 60)")
    fuse.add_argument("--depth", type=_positive_int("documents kept per fused query"), default=None, metavar="N",
                      help="keep the first N documents of each fused query (default: all)")
    fuse.add_argument("--tag", default=None, help="the fused run's name in column 6 (default fused-METHOD)")
    fuse.add_argument("--optimize", default=None, metavar="MEASURE",
                      help="search the weights (and rrf's k) that score best by this measure on --qrels: maximises a "
                           "higher-is-better measure (nDCG@10), minimises a lower-is-better one (unj@10)")
    fuse.add_argument("--qrels", type=judgments_path, default=None, metavar="QRELS",
                      help="with --optimize: the training qrels (a file, or irds:<id>: an ir_datasets dataset's)")
    fuse.add_argument("--step", type=float, default=None, help="with --optimize: the weights' grid step (default 0.1)")
    fuse.add_argument("--ks", default=None, metavar="K,K,...",
                      help="with --optimize and rrf: the k values to try (default 10,20,...,100)")
    fuse.add_argument("-c", "--complete", action="store_true",
                      help="with --optimize: the qrels' queries no run retrieved for count as 0 (trec_eval -c)")
    fuse.add_argument("--format", default="table", choices=TABLE_FORMAT_NAMES,
                      help="with --optimize: how the best trials are printed (default table)")


#: The --format of ``evalframe gate``: report.verdict.VERDICT_FORMATS (a test checks that they agree).
GATE_FORMAT_NAMES = ("text", "markdown", "junit", "json")
#: The tests of ``evalframe gate --test``: analysis.gate.GATE_TESTS (a test checks).
GATE_TEST_NAMES = ("t-test", "randomization")


def _alpha(text: str) -> float:
    """An argparse type: a level in (0, 0.5)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 0.5), the level of the tests; got {text!r}")
    return value


def _store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=path_or_url, default=None, metavar="STORE",
                        help="the history store (a folder or URL) that RUNs written @ref are read from: @last, "
                             "@last~N, @last:NAME, @best:MEASURE, @tag:TAG, @<id> (default: $EVALFRAME_STORE)")


def _gate_command(gate: Command) -> None:
    gate.add_argument("baseline", type=_run_or_ref, metavar="BASELINE",
                      help="the accepted run: a results folder, a file of a source (--from), a TREC run file "
                           "(--qrels), or @ref, a run of the history store (--store)")
    gate.add_argument("candidate", type=_run_or_ref, metavar="CANDIDATE", help="the run under test, as BASELINE")
    gate.add_argument("--no-drop", action="append", dest="no_drop", default=None, metavar="MEASURE",
                      help="fail when MEASURE is significantly worse (the one-sided paired test at --alpha, "
                           "corrected over the --no-drop measures); repeatable")
    gate.add_argument("--margin", action="append", dest="margin", default=None, metavar="MEASURE=M",
                      help="non-inferiority: fail unless the delta's one-sided lower bound is above -M; repeatable")
    gate.add_argument("--min", action="append", dest="minimum", default=None, metavar="MEASURE=F",
                      help="fail when the candidate's MEASURE is below F (above F when lower is better); repeatable")
    gate.add_argument("--alpha", type=_alpha, default=0.05, help="the level of every test and bound (default 0.05)")
    gate.add_argument("--test", choices=GATE_TEST_NAMES, default="t-test",
                      help="the paired test of --no-drop and --margin (default t-test)")
    gate.add_argument("--correction", choices=COMPARE_CORRECTIONS, default="holm",
                      help="the correction of the --no-drop p-values over the measures (default holm)")
    gate.add_argument("--on-common", action="store_true",
                      help="when the runs' question sets differ, gate on the questions both have (else exit 2)")
    gate.add_argument("--node", default=None, help="the node gated (needed when the runs share several)")
    gate.add_argument("--qrels", type=judgments_path, default=None, metavar="QRELS",
                      help="the runs are TREC run files judged by this qrels file (or irds:<id>)")
    _store_option(gate)
    gate.add_argument("--names", type=comma_list, default=None, metavar="A,B",
                      help="what the baseline and the candidate are called (default: their file names or refs)")
    gate.add_argument("--worst", type=_count("worst regressed queries listed per measure", 0), default=5,
                      metavar="N", help="the worst regressed queries listed per gated measure (default 5)")
    gate.add_argument("--rounds", type=_positive_int("sign patterns of --test randomization"), default=10_000,
                      metavar="N", help="the sign patterns of --test randomization (default 10000)")
    gate.add_argument("--seed", type=int, default=0, help="the seed of --test randomization (default 0)")
    gate.add_argument("--format", default="text", choices=GATE_FORMAT_NAMES,
                      help="what is printed: the verdict as text (default), markdown, junit or json")
    for flag, what in (("--markdown", "Markdown (a pull request comment)"), ("--junit", "JUnit XML (one test case "
                       "per rule)"), ("--json", "JSON")):
        gate.add_argument(flag, type=path_or_url, default=None, metavar="FILE",
                          help=f"also write the verdict as {what} to FILE (a path or URL; written atomically)")
    gate.add_argument("--github-summary", action="store_true",
                      help="append the Markdown verdict to the file $GITHUB_STEP_SUMMARY names (GitHub Actions)")
    _add_options(gate, MetricOptions)
    _from_option(gate, "each RUN")
    _source_options(gate, "the files", qrels=False)


def _run_or_ref(text: str) -> Any:
    """An argparse type: ``@ref`` as given (a run of the history store), else :func:`path_or_url`."""
    return text if text.startswith("@") else path_or_url(text)


def param_pair(text: str) -> tuple[str, Any]:
    """An argparse type: one ``--param KEY=VALUE`` of ``evalframe log``, the value read as JSON where it is a JSON
    number, bool or null (``top_k=5``, ``rerank=true``), else as text.

    Examples
    --------
    >>> param_pair("top_k=5"), param_pair("model=bm25"), param_pair("x=")
    (('top_k', 5), ('model', 'bm25'), ('x', ''))
    """
    key, equals, raw = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE (such as top_k=5 or model=bm25); got {text!r}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    if isinstance(value, (dict, list)) or (isinstance(value, float) and value != value):
        value = raw
    return key, value


def _log_command(log: Command) -> None:
    log.add_argument("folder", type=path_or_url, metavar="RESULT",
                     help="a results folder, or a file of a source (--from), or a TREC run file with --qrels")
    log.add_argument("--store", type=path_or_url, default=None,
                     help="the store's folder or URL (default: $EVALFRAME_STORE); docs/history.md")
    log.add_argument("--name", required=True, help="the run's name (the pipeline or experiment)")
    log.add_argument("--tag", action="append", dest="tags", default=None, metavar="TAG",
                     help="a tag to find the run by (@tag:TAG); repeatable")
    log.add_argument("--param", action="append", dest="params", type=param_pair, default=None, metavar="KEY=VALUE",
                     help="a parameter of the run's config (a JSON number, true/false or text); repeatable")
    log.add_argument("--node", default=None, help="log this node only (default: every node)")
    _from_option(log, "the result")
    _source_options(log, "the file")
    _csv_options(log)


def _history_command(history: Command) -> None:
    history.description = ("The runs of a store (evalframe log) listed with each measure's mean [low, high], or with "
                           "--measure that measure's trend over the runs (in time order; a change of question set "
                           "said, and marked on the plot); --plot draws it as a PNG or an HTML page. See "
                           "docs/history.md.")
    history.add_argument("--store", type=path_or_url, default=None,
                         help="the store: a folder or a URL (default $EVALFRAME_STORE)")
    history.add_argument("--measure", default=None, metavar="M",
                         help="one measure's trend (e.g. nDCG@10, recall_single_hit, a judge score)")
    history.add_argument("--measures", default=None, metavar="M1,M2",
                         help="the listing's measures (default: each node's headline ones, e.g. mrr, ndcg, "
                              "recall_single_hit, AP, nDCG@10, P@10, RR, f1, exact_match, and judge scores)")
    history.add_argument("--all", action="store_true", help="the listing shows every measure")
    history.add_argument("--node", default=None, help="only this node's measures")
    history.add_argument("--name", default=None, help="only the runs of this name")
    history.add_argument("--tag", default=None, help="only the runs with this tag")
    history.add_argument("--plot", type=path_or_url, default=None, metavar="FILE",
                         help="with --measure: draw the trend into FILE.png (an image) or FILE.html (a page)")
    history.add_argument("--format", default="table", choices=TABLE_FORMAT_NAMES,
                         help="how the rows are printed (default table)")


def _serve_command(serve: Command) -> None:
    serve.description = ("A local web viewer (pip install 'evalframe[serve]'): a history store's runs, a measure's trend "
                         "with its intervals, and any two or more runs side by side (the summary with paired "
                         "intervals, slices, the paper table, every query paged, sorted and filtered on the server, "
                         "and each query's drill-down), of a store and of results folders or source files. Read-only, "
                         "on 127.0.0.1 by default; a URL per view. See docs/viewer.md.")
    serve.add_argument("runs", type=path_or_url, nargs="*", metavar="STORE | FOLDER | FILE",
                       help="a history store (a folder evalframe log writes), or results folders and files of a source "
                            "(--from), each compared with the first; none: the store of --store / $EVALFRAME_STORE")
    serve.add_argument("--store", type=path_or_url, default=None, metavar="STORE",
                       help="the history store whose runs are shown (default: $EVALFRAME_STORE, or a STORE argument)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: any free port, printed)")
    serve.add_argument("--open", action="store_true", dest="open_browser",
                       help="open the viewer in the default web browser once it listens")
    _add_options(serve, ReportOptions, only=("seed", "rounds"))
    _add_options(serve, ComparisonReportOptions, only=("names", "metrics", "by", "test", "max_p"),
                 prefix="comparison: ")
    _from_option(serve, "each FOLDER or FILE")
    _source_options(serve, "a file")
    _add_options(serve, ReportOptions, only=("document_scope", "answer_scope"))
    _csv_options(serve)


def _list_metrics_command(_: Command) -> None:
    """``list-metrics`` takes no argument."""


#: Each subcommand: its name, its one-line help, and the function that adds its arguments, in the order --help lists.
SUBCOMMANDS: tuple[tuple[str, str, Callable[[Command], None]], ...] = (
    ("demo", "build, report and save the demo evaluation shipped with evalframe", _demo_command),
    ("metrics", "metrics per node (or per query with --by-query)", _metrics_command),
    ("compare", "compare runs on the same queries: delta, 95%% CI, p-values", _compare_command),
    ("worst", "the worst queries of a node", _worst_command),
    ("convert", "rewrite a results folder as CSV or Parquet, or convert to and from TREC run and qrels files",
     _convert_command),
    ("flatten", "build a results folder from a JSON Lines runs file, or from a Ragas dataset, a Haystack 2.x or "
                "LlamaIndex evaluation, or any table (--from)", _flatten_command),
    ("report", "the pipeline funnel and the worst queries (text, and HTML with --html); of two folders or more, the "
               "runs side by side (docs/compare-report.md)", _report_command),
    ("trec", "trec_eval measures of a TREC run against qrels (like trec_eval [-q])", _trec_command),
    ("fuse", "fuse TREC runs into one run file (RRF, CombSUM, CombMNZ, ...; weights searched with --optimize)",
     _fuse_command),
    ("gate", "the regression gate: exit 1 when the candidate run is significantly worse than the baseline (rules "
             "--no-drop, --margin, --min), 2 when it cannot decide; docs/ci.md", _gate_command),
    ("log", "record a run's per-query values in a store of runs (docs/history.md)", _log_command),
    ("history", "the runs of a store with their means and intervals, or a measure's trend (--plot: PNG or HTML)",
     _history_command),
    ("serve", "a local web viewer of a store's runs, their trends, and runs side by side, every query browsable "
              "(pip install 'evalframe[serve]'; docs/viewer.md)", _serve_command),
    ("list-metrics", "the metrics evalframe computes", _list_metrics_command),
)


def build() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The ``evalframe`` parser and each subcommand's parser, by name."""
    parser = MainParser(
        prog="evalframe",
        description="Analyse retrieval and question-answering evaluation results (Haystack 1.x EvaluationResult folders).",
    )
    parser.add_argument("--version", action="version", version=f"evalframe {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Command)
    for name, help_text, arguments in SUBCOMMANDS:
        command = commands.add_parser(name, help=help_text)
        arguments(command)
        if name != "list-metrics":  # every command that reads or writes a file
            _storage_option_flag(command)
    return parser, commands.choices


def print_warning(message: object) -> None:
    """A warning as one line ``warning: <message>`` on stderr, without the source path Python's format adds."""
    print("warning: " + " ".join(str(message).split()), file=sys.stderr)
