"""What a command reads: a results folder, or the file of any source of :data:`evalframe.sources.catalog.SOURCES`
(``--from NAME``, or the one source whose suffix and content claim the file), built in memory with the flags that
give the source's reader its options. Every command that takes a result (``metrics``, ``worst``, ``compare``,
``report``, ``flatten``, ``convert``) reads it here, so that a source added to the table is read by each with no
other edit.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from .._locations import is_url
from .._validation import did_you_mean
from ..errors import EvalframeError, InvalidParameterError
from ..metrics.registry import DIRECTIONS, Metric, score_measure
from ..options import MatchingOptions
from ..result import EvaluationResult
from ..schema import skipped_note
from ..sources.catalog import COMMON_OPTIONS, SOURCES, Source, candidates
from .parsers import FOLDER, FRAME_FIELDS, options_given, print_warning

__all__ = ["source_of", "storage_of", "read_result", "refuse_file_flags", "read_source", "reader_options", "load", "said_skipped",
           "score_declarations", "needed_flag", "run_names", "source_words", "judged_sources", "convert_source"]


class _ReaderFlag(NamedTuple):
    """A flag that gives a source's reader one of its options."""

    flag: str  # as the command line spells it
    dest: str  # its parsed argument
    keyword: str  # the reader's option
    value: Callable[[Any], Any]  # the option's value of the parsed argument
    needed: str = ""  # what the reader is missing without it, when it must be given


#: The flags of a source's file and the reader option each gives (``--column``: each field its own option).
READER_FLAGS = (
    _ReaderFlag("--qrels", "qrels", "qrels", lambda value: value, "its judgments: add --qrels QRELS"),
    _ReaderFlag("--id-column", "id_column", "id_column", lambda value: value),
    _ReaderFlag("--duplicates", "duplicates", "duplicates", lambda value: value),
    _ReaderFlag("--skip-invalid", "skip_invalid", "on_invalid", lambda value: "skip"),
    _ReaderFlag("--score", "score_declarations", "score_measures", lambda value: score_declarations(value)),
    _ReaderFlag("--sas-model", "sas_model", "sas_model", lambda value: value),
)


def _joined(names: Sequence[str]) -> str:
    return " or ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + f" or {names[-1]}"


def _takes(source: Source) -> tuple[set[str], bool]:
    """The keyword options ``source``'s reader takes, and whether it takes any other (``**matching``)."""
    parameters = list(inspect.signature(source.read).parameters.values())[1:]
    return ({p.name for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD},
            any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters))


def _taking(keyword: str) -> list[str]:
    """The sources whose reader takes the option ``keyword``."""
    return [name for name, source in SOURCES.items() if keyword in _takes(source)[0]]


def needed_flag(source: str) -> _ReaderFlag | None:
    """The flag that gives ``source``'s reader an option it must be given (``--qrels`` of a TREC run), if any.

    Examples
    --------
    >>> needed_flag("trec").flag, needed_flag("ragas")
    ('--qrels', None)
    """
    required = {p.name for p in list(inspect.signature(SOURCES[source].read).parameters.values())[1:]
                if p.default is inspect.Parameter.empty and p.kind is not inspect.Parameter.VAR_KEYWORD}
    return next((flag for flag in READER_FLAGS if flag.keyword in required), None)


def source_words(source: str, *, the: bool = False) -> str:
    """A source's file in a few words, the start of its ``needs`` (``a TREC run``, ``a runs file``; ``the``: ``the
    TREC run``).

    Examples
    --------
    >>> source_words("runs"), source_words("trec", the=True)
    ('a runs file', 'the TREC run')
    """
    words = re.split(r"[:(,]", SOURCES[source].needs)[0].strip()
    return re.sub(r"^(a|an) ", "the ", words) if the else words


def _reads_columns(source: str) -> bool:
    """Whether ``source`` reads any table, its columns named (``--column FIELD=COLUMN``): its reader takes every
    field of :data:`FRAME_FIELDS`."""
    return set(FRAME_FIELDS) <= _takes(SOURCES[source])[0]


# ------------------------------------------------------------------------------------------ which source
def _undetected(path: Path, found: Sequence[str], command: str) -> EvalframeError:
    names = ", ".join((FOLDER, *SOURCES)) if command != "flatten" else ", ".join(SOURCES)
    if found:
        return EvalframeError(f"{path} could be read as {_joined(list(found))}: name its source with --from "
                              f"{found[0]} (the sources: {names}).")
    return EvalframeError(f"{path} is a file, not a results folder, and no source claims it by its suffix and content: "
                          f"name its source with --from SOURCE, one of {names} (evalframe {command} --help says what "
                          "each file holds).")


def source_of(path: Path, args: argparse.Namespace, *, otherwise: str | None = None) -> str:
    """What a command's input ``path`` is: :data:`FOLDER` or a name of ``SOURCES``.

    ``--from`` as given (a folder for a source's file, or a file for ``--from folder``, refused naming ``--from``);
    without it a folder, or a path that does not exist (the loader names it), is a results folder and a file is the
    one source whose suffix and content claim it; ``otherwise`` (a source's name) when none does, else an error
    naming ``--from`` and the sources.
    """
    given = getattr(args, "source", None)
    if given == FOLDER:
        if path.is_file():
            raise EvalframeError(f"{path} is not a folder (--from folder reads a results folder); name the file's "
                                 f"source with --from SOURCE, one of {', '.join(SOURCES)}, or leave --from out to "
                                 "find it by its suffix and content.")
        return FOLDER
    if given is not None:
        if path.is_dir():
            raise EvalframeError(f"--from {given} reads files, and {path} is a folder; leave --from out to read a "
                                 "results folder (evalframe flatten writes one).")
        return str(given)
    if not path.is_file():
        return FOLDER
    found = candidates(path)
    if len(found) == 1:
        return found[0]
    if otherwise is not None and not found:
        return otherwise
    raise _undetected(path, found, args.command)


def judged_sources() -> list[str]:
    """The sources whose files are judged by --qrels (a TREC run): compare reads them as TREC run files."""
    return [name for name in SOURCES if (flag := needed_flag(name)) is not None and flag.flag == "--qrels"]


def convert_source(args: argparse.Namespace) -> str:
    """What convert's IN is: --from, else a folder, the one source whose suffix and content claim the file, else a
    TREC run file; a missing IN is a folder (the loader names it) unless --qrels is read with it (a TREC run)."""
    judged = judged_sources()[0]
    if args.source is None and not args.folder.exists():
        return FOLDER if args.qrels is None or args.to == "trec" else judged
    return source_of(args.folder, args, otherwise=judged)


# ------------------------------------------------------------------------------------------ reading
def load(folder: Path, args: argparse.Namespace, *, on_dask: bool = False) -> Any:
    """EvaluationResult.load with the --sep / --encoding given (read_csv's sep and encoding); a partitioned folder
    with --scheduler (or $DASK_SCHEDULER_ADDRESS) is evaluated on that Dask cluster instead, for the analysis commands
    that take them (``on_dask``: metrics, worst, compare; docs/cluster.md)."""
    address = (getattr(args, "scheduler", None) or os.environ.get("DASK_SCHEDULER_ADDRESS")) if on_dask else None
    if address:
        from ..io.manifest import read_manifest_quietly

        manifest = read_manifest_quietly(folder) if isinstance(folder, Path) and folder.is_dir() else None
        if manifest is not None and manifest.get("partitioned") is not None:
            try:
                import evalframe.dask as dask_results
            except ImportError as exc:
                raise EvalframeError(f"{exc} (asked for by --scheduler / DASK_SCHEDULER_ADDRESS)") from None
            return said_skipped(dask_results.load(folder, client=address))
        if getattr(args, "scheduler", None):
            raise EvalframeError(f"--scheduler evaluates a partitioned folder, and {folder} is not one; write one with "
                                 "result.save(dir, format='parquet', partitions=N), or leave --scheduler out to "
                                 "evaluate this folder here.")
    kwargs = {name: getattr(args, name) for name in ("sep", "encoding") if getattr(args, name, None) is not None}
    return said_skipped(EvaluationResult.load(folder, **kwargs, **storage_of(args, folder)))


def storage_of(args: argparse.Namespace, *values: Any) -> dict[str, Any]:
    """``{"storage_options": ...}`` (the ``--storage-option`` flags, merged) when one of ``values`` is a URL, for the
    call that reads or writes it; ``{}`` for local paths (whose calls stay as they were)."""
    if any(is_url(value) for value in values if value is not None):
        return {"storage_options": dict(getattr(args, "storage_options", None) or {})}
    return {}


def said_skipped(result: Any) -> Any:
    """``result``, its queries left out by the source (``result.skipped``) said first on stderr: every number the
    command prints is a mean over the others."""
    note = skipped_note(getattr(result, "skipped", ()))
    if note:
        print_warning(note)
    return result


#: The flags of a results folder (read with EvaluationResult.load), refused for a source's file.
_FOLDER_FLAGS = (("--sep", "sep"), ("--encoding", "encoding"))


def read_result(path: Path, args: argparse.Namespace, *, on_dask: bool = False) -> Any:
    """The result a command reads at ``path``: a results folder (:func:`load`), or the file of a source built in
    memory (:func:`read_source`), its left-out queries said on stderr."""
    source = source_of(path, args)
    if source == FOLDER:
        refuse_file_flags(args)
        return load(path, args, on_dask=on_dask)
    for flag, dest in (*_FOLDER_FLAGS, ("--scheduler", "scheduler")):
        if getattr(args, dest, None) is not None:
            raise EvalframeError(f"{flag} is for a results folder, and {path} is read as a file of --from {source}; "
                                 f"leave {flag} out.")
    return said_skipped(read_source(source, path, args))


def refuse_file_flags(args: argparse.Namespace, *, not_read: Sequence[str] = ()) -> None:
    """The flags of a source's file refused for a results folder (``not_read``: flags of the command that are not
    the reader's, ``convert --qrels``)."""
    if getattr(args, "score_declarations", None):
        raise EvalframeError("--score declares the scores of files read with --from; a results folder keeps its "
                             "scores' declarations in its evalframe.json.")
    given = [flag.flag for flag in READER_FLAGS if flag.flag not in ("--sas-model", *not_read)
             and getattr(args, flag.dest, None)]
    given += ["--column"] if getattr(args, "columns", None) else []
    if given:
        raise EvalframeError(f"{given[0]} is for the files read with --from; a results folder holds its queries as "
                             f"they were built (evalframe flatten --from SOURCE FILE {given[0]} builds one).")


def read_source(source: str, path: Path, args: argparse.Namespace, *, not_read: Sequence[str] = (),
                **given: Any) -> EvaluationResult:
    """The result of one file of a source, built in memory (``EvaluationResult.from_source``) with the options its
    flags give (:func:`reader_options`); warnings printed."""
    options = reader_options(source, path, args, not_read=not_read, **given)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = EvaluationResult.from_source(source, path, **options)  # the table of sources
        except InvalidParameterError as exc:
            raise _column_flag_error(exc, options) if _reads_columns(source) else exc from None
    for warning in caught:
        print_warning(warning.message)
    return result


def reader_options(source: str, path: Path, args: argparse.Namespace, *, not_read: Sequence[str] = (),
                   **given: Any) -> dict[str, Any]:
    """The options of ``source``'s reader the command line gives: :data:`READER_FLAGS`, ``--column``, the matching
    options and ``given`` (the command's own, passed when not None, ``--node`` as ``node``), each refused naming its
    flag when the reader does not take it; an option the reader must be given, missing, is refused too. ``not_read``:
    flags of the command that are not the reader's (``convert --qrels`` writing TREC files)."""
    takes, any_keyword = _takes(SOURCES[source])
    options: dict[str, Any] = {}
    for flag in READER_FLAGS:
        value = getattr(args, flag.dest, None)
        if not value or flag.flag in not_read:
            continue
        if flag.keyword not in takes and not (any_keyword and flag.keyword in COMMON_OPTIONS):
            taking = _taking(flag.keyword)
            raise EvalframeError(f"{flag.flag} is for the files of --from {_joined(taking)}, not for --from {source}.")
        options[flag.keyword] = flag.value(value)
    options.update(_column_options(source, getattr(args, "columns", None)))
    matching = options_given(args, MatchingOptions)
    if matching and not (any_keyword or set(matching) <= takes):
        raise EvalframeError(f"the matching options (--context-matching-threshold, ...) are for the files of pipeline "
                             f"outputs, not for --from {source}.")
    options.update(matching)
    options.update(storage_of(args, path, *given.values()))  # every reader takes storage_options
    for keyword, value in given.items():
        if value is not None and keyword not in takes:
            raise EvalframeError(f"--{keyword.replace('_', '-')} does not apply when reading {path} as {source}.")
        if value is not None:
            options[keyword] = value
    needed = needed_flag(source)
    if needed is not None and needed.keyword not in options:
        raise EvalframeError(f"reading {source_words(source, the=True)} {path} needs {needed.needed}.")
    return options


def _column_flag_error(error: InvalidParameterError, options: dict[str, Any]) -> InvalidParameterError:
    """A table reader's refusal of a column parameter naming no column (``question='question' names no column of
    t.csv; ...``) as the flag to type: ``--column question=q names no column ...``, or, the field's default column
    missing, ``t.csv has no column 'question' (the default): name it with --column question=COLUMN; ...``.

    Examples
    --------
    >>> error = InvalidParameterError("question='question' names no column of t.csv; its columns are ['q'].",
    ...                               parameter="question")
    >>> print(_column_flag_error(error, {}))
    t.csv has no column 'question' (the default): name it with --column question=COLUMN; its columns are ['q'].
    >>> print(_column_flag_error(InvalidParameterError("answer='x' names no column of t.csv; its columns are ['q'].",
    ...                                                parameter="answer"), {"answer": "x"}))
    --column answer=x names no column of t.csv; its columns are ['q'].
    """
    field, message = error.parameter, str(error)
    match = re.match(r"(\w+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") names no column of (.*)", message, re.S)
    if field not in FRAME_FIELDS or match is None or match.group(1) != field:
        return error
    column, rest = match.group(2)[1:-1], match.group(3)
    typed = options.get(field)
    if typed is None:
        table, _, listed = rest.partition("; ")
        shown = f"{table} has no column {column!r} (the default): name it with --column {field}=COLUMN"
        return InvalidParameterError(f"{shown}; {listed}" if listed else f"{shown}.")
    if isinstance(typed, list):  # meta / scores: a list of columns, one of which is none
        return InvalidParameterError(f"--column {field}={','.join(typed)}: {column!r} names no column of {rest}")
    return InvalidParameterError(f"--column {field}={typed} names no column of {rest}")


def _column_options(source: str, given: Sequence[str] | None) -> dict[str, Any]:
    """``--column FIELD=COLUMN`` flags as the reader's keyword arguments (``meta`` / ``scores`` with commas: lists),
    for a source that reads any table (:func:`_reads_columns`)."""
    if not given:
        return {}
    if not _reads_columns(source):
        tables = [name for name in SOURCES if _reads_columns(name)]
        raise EvalframeError(f"--column names the columns of --from {_joined(tables)}; --from {source} reads its own "
                             "columns.")
    columns: dict[str, Any] = {}
    for text in given:
        field, sep, column = text.partition("=")
        field = field.strip()
        if not sep or not field or not column:
            raise EvalframeError(f"--column must be FIELD=COLUMN, e.g. question=q; got {text!r}.")
        if field not in FRAME_FIELDS:
            raise EvalframeError(f"--column {text!r}: unknown field {field!r}; the fields are {list(FRAME_FIELDS)}."
                                 f"{did_you_mean(field, FRAME_FIELDS)}")
        if field in columns:
            raise EvalframeError(f"--column names the field {field!r} twice ({field}={columns[field]} and {text}).")
        if field == "scores" or (field == "meta" and "," in column):
            columns[field] = [name.strip() for name in column.split(",") if name.strip()]
        else:
            columns[field] = column
    return columns


def run_names(paths: Sequence[Path], *, stems: bool = True) -> list[str]:
    """The runs' names: a folder's name, a file's stem before its first dot (``bm25.jsonl``: bm25; ``stems=False``:
    its name, as TREC run files are named); a name twice gets its position.

    Examples
    --------
    >>> run_names([Path("docs/examples/rag/bm25.jsonl"), Path("docs/examples/rag/hybrid.jsonl"), Path("runs/bm25")])
    ['bm25', 'hybrid', 'bm25 (3)']
    """
    names: list[str] = []
    for path in paths:
        stem = stems and path.is_file()
        name = (path.name.split(".")[0] or path.name) if stem else (path.resolve().name or str(path))
        names.append(name if name not in names else f"{name} ({len(names) + 1})")
    return names


def score_declarations(texts: list[str] | None) -> dict[str, Metric] | None:
    """``--score NAME[:higher|lower|none][:LOW:HIGH]`` flags as ``from_runs``' ``score_measures`` (``none``: neither
    is better, a count such as tokens).

    Examples
    --------
    >>> declared = score_declarations(["latency:lower:0:60", "faithfulness:0:1", "rating", "tokens:none"])
    >>> [(m.name, m.direction, m.bounds) for m in declared.values()]
    [('latency', 'lower', (0.0, 60.0)), ('faithfulness', 'higher', (0.0, 1.0)), ('rating', 'higher', None),
     ('tokens', 'none', None)]
    """
    if not texts:
        return None
    out: dict[str, Metric] = {}
    for text in texts:
        name, *parts = text.split(":")
        direction = parts.pop(0) if parts and parts[0] in DIRECTIONS else "higher"
        if len(parts) not in (0, 2):
            raise InvalidParameterError(f"--score {text!r}: write NAME[:higher|lower|none][:LOW:HIGH], e.g. "
                                        "latency:lower:0:60 or faithfulness:0:1.", parameter="score_declarations")
        try:
            bounds = (float(parts[0]), float(parts[1])) if parts else None
        except ValueError:
            raise InvalidParameterError(f"--score {text!r}: the bounds LOW:HIGH must be numbers; got "
                                        f"{':'.join(parts)!r}.", parameter="score_declarations") from None
        if name in out:
            raise InvalidParameterError(f"--score declares {name!r} twice.", parameter="score_declarations")
        out[name] = score_measure(name, direction=direction, bounds=bounds)
    return out
