"""The ``evalframe`` command: thin subcommands over the library.

``main(argv=None) -> int`` is testable without a subprocess; errors print one line ``error: ...`` on
stderr and return 1 (argparse usage errors exit 2). The parsers (:mod:`.parsers`) and ``list-metrics`` need no
pandas; a command that reads or writes results imports its implementation (:mod:`.commands`, and pandas) when it
runs, so ``evalframe --help`` starts in about the time of ``import numpy`` (issue 26).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._locations import UrlText, merge_storage_options
from ..errors import EvalframeError
from ..metrics.registry import (DIRECTION_WORDS, LEVELS, METRICS, TREC_MEASURES, format_bounds, headline_metric, other_names,
                                parameters)
from .flags import Command
from .parsers import build, print_warning


__all__ = ["main", "COMMANDS"]


#: The library's parameter names that the commands fill from a flag of another ``dest``.
_PARAMETER_DESTS = {"answer_metric": "metric", "document_metric": "metric", "answer_metric_threshold": "threshold",
                    "document_metric_threshold": "threshold", "out_dir": "out", "output": "out",
                    "score_measures": "score_declarations"}


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


def _list_metrics(_: argparse.Namespace) -> str:
    """The registered metrics by level: name, level, headline marker, bounds, which way is better and description
    (docs/metrics.md); then trec_eval's measures: name, level, parameters, bounds, which way is better, description
    and trec_eval's names."""
    lines = []
    for level in LEVELS:
        lines.append(f"{level} metrics:")
        for metric in METRICS.values():
            if metric.level == level:
                marker = "headline" if metric.name == headline_metric(level) else ""
                bounds = format_bounds(metric)
                lines.append(f"  {metric.name:<18} {metric.level:<9} {marker:<9} {bounds:<10} "
                             f"{DIRECTION_WORDS[metric.direction]:<8} {metric.description}")
    lines.append("trec_eval measures (trec_metrics, evalframe trec -m; @k: a cutoff, [@k] an optional one, rel: "
                 "a relevance level, as P(rel=2)@5):")
    for metric in TREC_MEASURES.values():
        names = other_names(metric)
        trec_eval, synonyms = names[:len(metric.trec_eval)], names[len(metric.trec_eval):]
        said = "; ".join(part for part in (f"trec_eval: {', '.join(trec_eval)}" if trec_eval else "",
                                           f"also: {', '.join(synonyms)}" if synonyms else "") if part)
        lines.append(f"  {metric.name:<18} {metric.level:<9} {parameters(metric):<9} {format_bounds(metric):<10} "
                     f"{DIRECTION_WORDS[metric.direction]:<8} {metric.description}" + (f" {said}." if said else ""))
    lines.append("the column after the bounds: which way is better, higher, lower, or neither (a count: it has no "
                 "worst queries and no wins)")
    return "\n".join(lines)


def _run_command(args: argparse.Namespace) -> str:
    """A command that reads or writes results: its implementation, and pandas, are imported now."""
    from . import commands

    return commands.COMMANDS[args.command](args)


def _run_trec(args: argparse.Namespace) -> str:
    """``evalframe trec``: on columns without pandas (:mod:`evalframe.present.trec_command`) when the files are
    that path's, else through ``EvaluationResult.from_trec`` (the same output; its messages name file and line).
    A run ``-`` is read from standard input, as trec_eval 10.0 reads it, as a stream (no temporary file; messages
    call it ``standard input``); both readers read the same sources (:func:`trec_command.trec_sources`)."""
    from .trec_command import not_swapped, trec_columnar, trec_sources

    args = trec_sources(args)
    with not_swapped(args):  # a qrels file given as the run and a run as the qrels: said so
        shown = trec_columnar(args)
        return shown if shown is not None else _run_command(args)


def _run_history(args: argparse.Namespace) -> str:
    """``evalframe history``: its implementation alone (not the other commands', which load the whole library), so
    that listing a store's runs reads their footers and little else."""
    from .history_command import history_command

    return history_command(args)


def _run_serve(args: argparse.Namespace) -> str:
    """``evalframe serve``: its implementation needs the serve extra (Starlette, uvicorn), imported now; without it,
    one line naming the install."""
    try:
        from .serve import command
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing in ("starlette", "uvicorn", "anyio", "h11"):
            raise EvalframeError(f"evalframe serve needs {missing}, which is not installed: pip install "
                                 "'evalframe[serve]'") from None
        raise
    return command.serve_command(args)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """warnings.showwarning while a command runs: every warning (the library's, pandas', ...) as one line."""
    print_warning(message)


#: What each command runs, by name.
COMMANDS: dict[str, Callable[[argparse.Namespace], str]] = {
    name: _run_command for name in ("demo", "metrics", "compare", "worst", "convert", "flatten", "report", "fuse",
                                    "gate", "log")}
COMMANDS["trec"] = _run_trec
COMMANDS["history"] = _run_history
COMMANDS["serve"] = _run_serve
COMMANDS["list-metrics"] = _list_metrics


def _silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush does not hit the closed pipe again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def with_storage_options(args: argparse.Namespace) -> None:
    """``args.storage_options``: the ``--storage-option`` flags merged (a dotted key nested), and every URL among the
    arguments given them, so that each read and write of the command uses them."""
    options = merge_storage_options(getattr(args, "storage_option_pairs", None) or [])
    args.storage_options = options
    for name, value in vars(args).items():
        if isinstance(value, UrlText):
            setattr(args, name, value.with_options(options))
        elif isinstance(value, list) and any(isinstance(item, UrlText) for item in value):
            setattr(args, name, [item.with_options(options) if isinstance(item, UrlText) else item for item in value])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``evalframe`` command; returns the exit status.

    Examples
    --------
    >>> main(["list-metrics"])  # doctest: +ELLIPSIS
    answer metrics:
      exact_match ...
    0
    """
    parser, commands = build()
    args = parser.parse_args(argv)
    with_storage_options(args)
    # evalframe gate: 0 pass, 1 a rule failed, 2 could not decide, bad input included (its error lines exit 2)
    failed = 2 if args.command == "gate" else 1
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            # Python's filters, each distinct UserWarning once per run: adding the filter forgets what earlier runs showed
            warnings.simplefilter("default", UserWarning)
            output = COMMANDS[args.command](args)
        if output:  # nothing to show prints nothing (evalframe trec -n without -q, as trec_eval -n)
            print(output)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (`evalframe worst ... | head`): nothing to report
        _silence_stdout()
        return failed
    except EvalframeError as exc:
        print(f"error: {_as_typed(exc, commands[args.command], sys.argv[1:] if argv is None else argv)}",
              file=sys.stderr)
        return failed
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return failed
    except Exception as exc:  # a bug of evalframe, not of the input: still one line, with a way to get the traceback
        if os.environ.get("EVALFRAME_TRACEBACK"):
            raise
        print(f"error: internal error {type(exc).__name__}: {exc} (set EVALFRAME_TRACEBACK=1 to see the traceback, "
              "and please report it)", file=sys.stderr)
        return failed
    return int(getattr(args, "exit_status", 0))
