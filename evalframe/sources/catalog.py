"""The one table of sources (:data:`SOURCES`): each input evalframe reads, what reads it, the files it takes and what
they must hold, and how a file's content says it is one (:func:`detect`).

``EvaluationResult.from_source(name, path, **options)`` and the ``from_<x>`` classmethods read it, as the commands'
``--from`` and the docs do; adding a source is one module (its reader returns a
:class:`~evalframe.sources.assemble.Built`) and one entry here.

A file is claimed by a source when its suffix is one the source reads and its content looks like the source's (the
keys of a JSON Lines file's first line, of a JSON file's first record, a CSV header, a Parquet schema, a TREC run
line): a ``.jsonl`` file may be a runs file, a Ragas dataset or LlamaIndex results, and its first line tells them
apart. ``frame`` (a table whose columns are named by the caller) is never claimed: it reads any table.
"""

from __future__ import annotations

import csv
import gzip
import inspect
import io
import json
import os
import re
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .._locations import Remote, is_file, open_bytes, remote_or_value, suffix_of
from .._validation import check_choice, check_path
from ..errors import EvalframeError, InvalidParameterError
from ..options import MatchingOptions

if TYPE_CHECKING:
    from .assemble import Built

__all__ = ["Source", "SOURCES", "COMMON_OPTIONS", "TABLE_SUFFIXES", "detect", "candidates", "read_source"]

#: The files a table is read from, by suffix (``read_frame``'s, and so Ragas').
TABLE_SUFFIXES: tuple[str, ...] = (".jsonl", ".json", ".csv", ".parquet")

#: The keyword options every reader of a file of pipeline outputs takes (the matching options too): not listed in
#: :attr:`Source.options`.
COMMON_OPTIONS: frozenset[str] = frozenset({"sas_model", "progress", "storage_options",
                                         *(f.name for f in fields(MatchingOptions))})
#: How much of a file a sniff reads: its first line or record is read within it, or the file is claimed by no one.
_HEAD = 1 << 20


@dataclass(frozen=True)
class Source:
    """One input evalframe reads.

    Parameters
    ----------
    name : str
        The source's name (``--from NAME``, ``from_source(NAME, ...)``).
    reader : str or callable
        What reads it, ``reader(path_or_object, **options) -> Built`` (:attr:`read`): the function, or its name in
        a module of :mod:`evalframe.sources` as ``"module:function"``, imported when it is first read (so that the
        table is read, by ``evalframe --help`` too, without loading the readers and pandas).
    suffixes : tuple of str
        The file suffixes it reads (lower case; empty: any name, as TREC files have).
    needs : str
        One line for ``--help`` and the docs: what the file must hold.
    sniff : callable, optional
        ``sniff(path) -> bool``: whether a file's content says it is this source (None: never claimed, the caller
        names it).

    Examples
    --------
    >>> SOURCES["ragas"].suffixes
    ('.jsonl', '.json', '.csv', '.parquet')
    >>> "id_column" in SOURCES["ragas"].options, "id_column" in SOURCES["llamaindex"].options
    (True, False)
    >>> SOURCES["runs"].read.__name__
    'read_runs_file'
    """

    name: str
    reader: str | Callable[..., Built]
    suffixes: tuple[str, ...]
    needs: str
    sniff: Callable[[Path | Remote], bool] | None = None

    @property
    def read(self) -> Callable[..., Built]:
        """The reader, ``read(path_or_object, **options) -> Built`` (its module imported now when named)."""
        if callable(self.reader):
            return self.reader
        module, _, function = self.reader.partition(":")
        read: Callable[..., Built] = getattr(_module(module), function)
        return read

    @property
    def options(self) -> tuple[str, ...]:
        """The keyword options of :attr:`read` beyond the common ones (:data:`COMMON_OPTIONS`): what a command
        offers as flags for this source, read from the reader's signature (never restated)."""
        parameters = list(inspect.signature(self.read).parameters.values())[1:]
        return tuple(p.name for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD
                     and p.name not in COMMON_OPTIONS)

    def reads_suffix(self, path: Path | Remote) -> bool:
        """Whether ``path``'s suffix is one this source reads (a ``.gz`` one: the suffix before it)."""
        if not self.suffixes:
            return True
        suffixes = [s.lower() for s in (path if isinstance(path, Path) else Path(path.name)).suffixes]
        if suffixes and suffixes[-1] == ".gz":
            suffixes.pop()
        return bool(suffixes) and suffixes[-1] in self.suffixes


def _module(name: str) -> ModuleType:
    """A module of :mod:`evalframe.sources` (a reader's), imported on first use by the package's ``__getattr__``."""
    module: ModuleType = getattr(sys.modules[__package__], name)
    return module


# ------------------------------------------------------------------------------------------------ sniffing
#: A JSON string (escapes kept), or one of the punctuation marks that give a JSON text its shape.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')


@dataclass(frozen=True)
class _Shape:
    """What the start of a JSON text shows: its top container (``"{"`` or ``"["``) and the keys met at each depth
    (1: the top object's keys; 2: the keys of the objects inside the top one)."""

    top: str
    keys: dict[int, set[str]]

    def at(self, depth: int) -> set[str]:
        return self.keys.get(depth, set())


def _shape(text: str) -> _Shape | None:
    """The shape of the start of a JSON text (it may be cut anywhere: the scan stops at the first piece it cannot
    read whole); None when it is no JSON object or array."""
    text = text.lstrip("\ufeff \t\r\n")
    if not text or text[0] not in "{[":
        return None
    keys: dict[int, set[str]] = {}
    stack: list[str] = []
    end, pending = 0, None
    for match in _TOKENS.finditer(text):
        if '"' in text[end:match.start()]:  # a string cut by the end of the piece read: stop before it
            break
        end, token = match.end(), match.group()
        if token in "{[":
            stack.append(token)
        elif token in "]}":
            if not stack:
                break
            stack.pop()
            if not stack:
                break
        elif token == ":" and pending is not None and stack and stack[-1] == "{":
            keys.setdefault(len(stack), set()).add(pending)
        pending = None
        if token.startswith('"'):
            try:
                pending = json.loads(token)
            except ValueError:
                pending = None
    return _Shape(text[0], keys)


def _head(path: Path | Remote) -> bytes:
    """The first bytes of a file (a gzip file's, expanded): at most :data:`_HEAD`."""
    with open_bytes(path) as handle:
        start = handle.read(2)
        handle.seek(0)
        if start == b"\x1f\x8b":
            with gzip.open(handle) as expanded:
                return expanded.read(_HEAD)
        return handle.read(_HEAD)


def _text(path: Path | Remote) -> str:
    return _head(path).decode("utf-8-sig", errors="replace")


def _first_line(path: Path | Remote) -> str:
    return next((line for line in _text(path).splitlines() if line.strip()), "")


def _record_keys(path: Path | Remote) -> set[str]:
    """The keys of a file's first record: a JSON Lines file's first line, a JSON list's first object, a JSON
    object of columns (``{column: [values]}``), a CSV header, a Parquet schema."""
    suffix = suffix_of(path).lower()
    if suffix == ".csv":
        return set(next(csv.reader(io.StringIO(_first_line(path))), []))
    if suffix == ".parquet":
        return _parquet_columns(path)
    shape = _shape(_first_line(path) if suffix in (".jsonl", ".ndjson") else _text(path))
    if shape is None:
        return set()
    return shape.at(1) if shape.top == "{" else shape.at(2)


def _parquet_columns(path: Path | Remote) -> set[str]:
    # pyarrow.parquet imported here, for a .parquet file only: its import takes some 0.2 s, which a result read
    # from any other source (and `import evalframe.result`) does not pay
    import pyarrow.parquet as parquet

    try:
        if isinstance(path, Path):
            return set(parquet.read_schema(path).names)
        with open_bytes(path) as handle:
            return set(parquet.read_schema(handle).names)
    except (OSError, ValueError):
        return set()


def _is_runs(path: Path | Remote) -> bool:
    keys = _record_keys(path)
    return "query" in keys and "nodes" in keys and bool({"labels", "gold"} & keys)


def _is_ragas(path: Path | Remote) -> bool:
    keys = _record_keys(path)
    older = frozenset(_module("ragas").OLDER_NAMES) - {"question"}  # the sample columns of Ragas before 0.2
    return "user_input" in keys or ("question" in keys and bool(older & keys) and "nodes" not in keys)


def _is_llamaindex(path: Path | Remote) -> bool:
    shape = _shape(_first_line(path) if suffix_of(path).lower() in (".jsonl", ".ndjson") else _text(path))
    if shape is None:
        return False
    keys = shape.at(1) | shape.at(2) | (shape.at(3) if shape.at(1) == {"results"} else set())
    return "expected_ids" in keys or ("query" in keys and bool({"retrieved_ids", "retrieved_nodes", "metric_dict"}
                                                               & keys))


def _is_haystack2(path: Path | Remote) -> bool:
    shape = _shape(_text(path))
    if shape is None or shape.top != "{":
        return False
    keys = shape.at(1)
    guesses = _module("haystack2").ROLE_GUESSES
    # the input names only a Haystack 2.x run result or detailed report uses (a Ragas table shares the others)
    gold = frozenset(guesses["gold_documents"][:3] + guesses["gold_ids"][:2] + guesses["gold_answers"][:3])
    return {"inputs", "results"} <= keys or (bool(set(guesses["question"]) & keys) and bool(gold & keys))


def _is_trec_run(path: Path | Remote) -> bool:
    """Whether the first line (not blank, not a ``#`` comment) is a TREC run line: ``qid Q0 docid rank score tag``."""
    line = next((line for line in _text(path).splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    parts = line.split()
    if len(parts) != 6:
        return False
    try:
        int(parts[3])
        float(parts[4])
    except ValueError:
        return False
    return True


SOURCES: dict[str, Source] = {source.name: source for source in (
    Source("runs", "runs:read_runs_file", (".jsonl", ".ndjson"),
           "a runs file: one JSON object per line, a query with its gold and every node's outputs "
           "(docs/runs-format.md)", _is_runs),
    Source("ragas", "ragas:read_ragas", TABLE_SUFFIXES,
           "a Ragas dataset or evaluation frame: user_input, retrieved_contexts, response, reference, ... and its "
           "metric columns (docs/rag.md)", _is_ragas),
    Source("haystack2", "haystack2:read_haystack2", (".json",),
           "a Haystack 2.x EvaluationRunResult as JSON: {\"inputs\": ..., \"results\": ...}, or its detailed report "
           "(docs/frameworks.md)", _is_haystack2),
    Source("llamaindex", "llamaindex:read_llamaindex", (".json", ".jsonl", ".ndjson"),
           "LlamaIndex RetrievalEvalResult dicts: a JSON list or one per line (docs/frameworks.md)", _is_llamaindex),
    Source("frame", "frame:read_frame", TABLE_SUFFIXES,
           "any table, one row per question, its columns named (question=, retrieved_ids=, ...; --column)"),
    Source("trec", "trec:read_trec", (),
           "a TREC run (qid Q0 docid rank score tag, plain or .gz) and its qrels (qrels=, --qrels)", _is_trec_run),
)}


def candidates(path: str | os.PathLike[str] | Remote, among: Collection[str] | None = None) -> tuple[str, ...]:
    """The sources (of ``among``, default all) that claim the file ``path``: its suffix is one they read and its
    content looks like theirs; ``()`` for a path that is no readable file.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "eval.jsonl"
    >>> _ = path.write_text(json.dumps({"user_input": "q", "retrieved_contexts": ["c"], "reference": "a"}) + "\\n")
    >>> candidates(path)
    ('ragas',)
    """
    located = remote_or_value(path, name="path")  # a URL (with the options it carries: the command line's)
    file = located if isinstance(located, Remote) else check_path(path, name="path")
    if not is_file(file):
        return ()
    found = []
    for name, source in SOURCES.items():
        if (among is not None and name not in among) or source.sniff is None or not source.reads_suffix(file):
            continue
        try:
            claimed = source.sniff(file)
        except (OSError, EOFError, ValueError, gzip.BadGzipFile, EvalframeError):  # unreadable: claimed by no one
            claimed = False
        if claimed:
            found.append(name)
    return tuple(found)


def detect(path: str | os.PathLike[str] | Remote, among: Collection[str] | None = None) -> str | None:
    """The one source (of ``among``, default all) that claims the file ``path`` (:func:`candidates`); None when no
    source does, or when several do (a file both could read: :func:`candidates` names them), so that the caller asks
    for the source's name.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> runs = folder / "bm25.jsonl"
    >>> _ = runs.write_text(json.dumps({"query": "q", "gold": {"document_ids": ["d1"]},
    ...                                  "nodes": {"Retriever": {"documents": []}}}) + "\\n")
    >>> detect(runs), detect(folder / "missing.jsonl"), detect(folder)
    ('runs', None, None)
    """
    found = candidates(path, among)
    return found[0] if len(found) == 1 else None


def _not_detected(path: Path | Remote) -> InvalidParameterError:
    found = candidates(path)
    if found:
        return InvalidParameterError(
            f"{path} could be read as {' or '.join(found)}: name its source (source={found[0]!r}, or --from "
            f"{found[0]}).", parameter="source")
    return InvalidParameterError(
        f"no source claims {path} by its suffix and content; name its source, one of {list(SOURCES)} "
        "(frame: any table, its columns named).", parameter="source")


def read_source(source: str | None, path: Any, **options: Any) -> Built:
    """What a file (or an object) of a source builds: ``SOURCES[source].read(path, **options)``.

    Parameters
    ----------
    source : str or None
        The source's name, one of:

        SOURCES_TABLE

        None: the one source whose suffix and content claim the file (:func:`evalframe.sources.catalog.detect`);
        an error names the candidates when none or several do.
    path
        The file (or, as the source's reader takes it, an object: a DataFrame, a list of dicts, a dict).
    **options
        The options of the source's reader (``EvaluationResult.from_<source>``'s; ``trec``: ``qrels=``).

    Returns
    -------
    Built
        What the source built (``EvaluationResult.from_source`` returns the result made of it).

    Raises
    ------
    InvalidParameterError
        An unknown source (the sources are listed), or a file no source (or several) claims when ``source`` is None.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> samples = [{"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn.", "Berlin."],
    ...             "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"], "reference": "Berlin"}]
    >>> EvaluationResult.from_source("ragas", samples, progress=False).calculate_metrics()["Retriever"]["mrr"]
    0.5
    >>> EvaluationResult.from_source("ragaz", samples)
    Traceback (most recent call last):
      ...
    evalframe.errors.InvalidParameterError: source must be one of [...]; got 'ragaz'. Did you mean 'ragas'?
    """
    if source is None:
        path_given = path  # the reader locates a URL again, with the same options
        path = remote_or_value(path, name="path", storage_options=options.get("storage_options"))
        if not isinstance(path, (str, os.PathLike, Remote)):
            raise InvalidParameterError(f"source=None finds the source of a file by its suffix and content; got "
                                        f"{type(path).__name__}: name its source, one of {list(SOURCES)}.",
                                        parameter="source")
        file = path if isinstance(path, Remote) else check_path(path, name="path")
        source = detect(file)
        if source is None:
            raise _not_detected(file)
        path = path_given
    return SOURCES[check_choice(source, tuple(SOURCES), name="source")].read(path, **options)


if read_source.__doc__:  # the sources listed from the table (None under python -OO)
    read_source.__doc__ = read_source.__doc__.replace("SOURCES_TABLE", "\n\n        ".join(
        f"* ``{name!r}``: {entry.needs}" for name, entry in SOURCES.items()))
