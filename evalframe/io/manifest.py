"""The manifest ``evalframe.json`` of a results folder: reading it and checking every field a load reads.

The manifest records the format, the matching parameters, the CSV options and, per node, its file,
row count and column specs (name, dtype, codec of :mod:`evalframe.io.codecs`); see
docs/persistence.md#evalframejson. A damaged or edited manifest is refused with a :class:`LoadError`
naming the field, before any node file is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .._locations import Remote
from .._validation import few_names, short_repr
from ..errors import InvalidParameterError, LoadError
from ..metrics.registry import Metric, score_measure
from ..options import MatchingOptions
from ..schema import Skipped
from .codecs import encodes, is_native_dtype
from .csv_dialect import encoding_problem, separator_problem
from .folder import Folder, is_plain_name, with_retries

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "PARTITIONED_FORMAT_VERSION", "MANIFEST_NAME", "invalid_matching",
           "listed_files", "read_manifest", "read_manifest_quietly", "scores_to_json", "scores_of_manifest",
           "skipped_to_json", "skipped_of_manifest"]

#: The manifest's file name inside a results folder.
MANIFEST_NAME = "evalframe.json"
#: Its "format" field: what wrote the folder.
FORMAT_NAME = "evalframe.EvaluationResult"
#: The "format_version" of a folder with one file per node.
FORMAT_VERSION = 1
#: The "format_version" of a partitioned folder (docs/persistence.md#partitioned-results), the newest this evalframe
#: reads: evalframe versions that read only version 1 refuse it instead of reading one partition as the node.
PARTITIONED_FORMAT_VERSION = 2
_CODECS = frozenset({"native", "text", "literal", "list"})


def read_manifest(folder: Path | Folder) -> dict[str, Any] | None:
    """The folder's checked evalframe.json, or None when it has none.

    Given a :class:`Folder`, the manifest of that generation; given a path, the folder is opened here.
    """
    if not isinstance(folder, Folder):
        def attempt() -> dict[str, Any] | None:
            with Folder(folder) as opened:
                return read_manifest(opened)

        return with_retries(folder, attempt)
    if not folder.exists(MANIFEST_NAME):
        return None
    path = folder.path / MANIFEST_NAME
    with folder.open_binary(MANIFEST_NAME) as handle:
        raw = handle.read()
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested deeper than Python's parser goes
        shown = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        raise LoadError(f"{path}: not a readable evalframe manifest ({shown}).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise LoadError(f"{path}: not an evalframe manifest (no 'format': 'evalframe.EvaluationResult').")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version > PARTITIONED_FORMAT_VERSION:
        raise LoadError(
            f"{path}: format_version {version!r} is newer than this evalframe reads ({PARTITIONED_FORMAT_VERSION}); "
            "upgrade evalframe (pip install -U evalframe)."
        )
    _check_manifest(path, manifest)
    return manifest


def _damaged(path: Path | str | Remote, what: str) -> LoadError:
    return LoadError(f"{path}: {what}; the manifest was edited or damaged (save the result again).")


def _check_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Check every field load reads, in one pass over nodes and columns (linear in the manifest's size).

    Every check here is what a field must hold for the readers below to work: afterwards they index
    and compare without raising KeyError / TypeError / LookupError.
    """
    csv_options = manifest.get("csv", {})
    if not isinstance(csv_options, dict):
        raise _damaged(path, f"'csv' must be an object of CSV options; got {type(csv_options).__name__}")
    sep = csv_options.get("sep", ",")
    problem = separator_problem(sep)  # the rules save applies
    if problem is not None:
        raise _damaged(path, f"'csv' 'sep' must be one character (not a quote or line break); got {short_repr(sep)} "
                             f"({problem})")
    encoding = csv_options.get("encoding", "utf-8")
    problem = encoding_problem(encoding)
    if problem is not None:
        raise _damaged(path, f"'csv' 'encoding' must name a text encoding such as 'utf-8'; got {short_repr(encoding)} "
                             f"({problem})")
    matching = manifest.get("matching")
    if matching is not None and not isinstance(matching, dict):
        raise _damaged(path, f"'matching' must be an object of matching parameters; got {type(matching).__name__}")
    _check_matching(path, matching or {})
    scores_of_manifest(manifest, path)  # a damaged declaration is refused before any file is read
    skipped_of_manifest(manifest, path)
    nodes = manifest.get("nodes")
    if not isinstance(nodes, dict):
        raise _damaged(path, "'nodes' must map node names to their files")
    partitioned = manifest.get("partitioned")
    if (partitioned is not None) != (manifest["format_version"] == PARTITIONED_FORMAT_VERSION):
        raise _damaged(path, f"'partitioned' is the layout of format_version {PARTITIONED_FORMAT_VERSION} folders and "
                             "only of them")
    if partitioned is not None:
        count = partitioned.get("partitions") if isinstance(partitioned, dict) else None
        if type(count) is not int or count < 1:
            raise _damaged(path, f"'partitioned' 'partitions' must be an integer >= 1; got {short_repr(count)}")
    files: dict[str, str] = {}  # file name -> the key path of the entry listing it
    dtypes: dict[str, Any] = {}  # each distinct dtype text parsed once, however many columns name it
    checked: set[tuple[str, str, str]] = set()  # (codec, dtype, empty) combinations found valid
    for node, entry in nodes.items():
        where = _node_key(node)
        if not is_plain_name(node) or node.startswith(".") or not encodes([node]):
            raise _damaged(path, f"{where}: a node name must be a plain file name (not empty, no '/', '\\' or "
                                 f"leading '.', no lone surrogates) as save writes it; got {node!r:.80}")
        if partitioned is None:
            _check_entry(path, where, entry, files, dtypes, checked)
            continue
        parts = entry.get("parts") if isinstance(entry, dict) else None
        if not isinstance(parts, list) or len(parts) != partitioned["partitions"]:
            raise _damaged(path, f"{where}.parts must be a list of one entry per partition "
                                 f"({partitioned['partitions']}, as 'partitioned' 'partitions' says); got "
                                 f"{_what(parts)}")
        rows = entry.get("rows")
        if type(rows) is not int or rows < 0:
            raise _damaged(path, f"{where}.rows must be a non-negative integer; got {short_repr(rows)}")
        for number, part in enumerate(parts):
            _check_entry(path, f"{where}.parts[{number}]", part, files, dtypes, checked)
            if not part["file"].endswith(".parquet"):
                raise _damaged(path, f"{where}.parts[{number}].file must name a .parquet file (a partition's); got "
                                     f"{part['file']!r:.80}")


def invalid_matching(matching: dict[str, Any]) -> InvalidParameterError | None:
    """The refusal of the first invalid matching option recorded in ``matching`` (its ``parameter`` the option's
    name), or None: the options from_runs records must hold what MatchingOptions takes, since the threshold is the
    default of every analysis.

    Examples
    --------
    >>> str(invalid_matching({"context_matching_threshold": None}))
    'context_matching_threshold must be a finite number in [0, 100]; got None of type NoneType.'
    """
    for name in MatchingOptions.names():
        if name in matching:
            try:
                MatchingOptions(**{name: matching[name]})
            except InvalidParameterError as error:
                return error
    return None


def _check_matching(path: Path, matching: dict[str, Any]) -> None:
    """Refuse at load a recorded matching option that an analysis would fail on later."""
    error = invalid_matching(matching)
    if error is not None:
        raise LoadError(f"{path}: {error.naming(f'matching.{error.parameter}')} Set it to a valid value (the one "
                        "the result was built with) or save the result again.")


def _node_key(node: str) -> str:
    """The JSON key path of a node's entry, as messages name it: ``nodes['Reader']`` (a huge name cut)."""
    return f"nodes[{node!r:.80}]"


def _what(value: Any) -> str:
    """A value as a message shows it: a list or object by its length, anything else cut."""
    if isinstance(value, (list, dict)):
        return f"{'a list' if isinstance(value, list) else 'an object'} of {len(value):,} entries"
    return short_repr(value)


def _check_entry(path: Path, where: str, entry: Any, files: dict[str, str], dtypes: dict[str, Any],
                 checked: set[tuple[str, str, str]]) -> None:
    """Check one file entry (a node's, or one partition's, at the key path ``where``): file, rows and column specs."""
    if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not isinstance(entry.get("columns"), list):
        raise _damaged(path, f"{where} must be an object with 'file' (a file name) and 'columns' (a list); got "
                             f"{_what(entry) if not isinstance(entry, dict) else 'an object with keys ' + few_names(entry)}")
    file = entry["file"]
    if not is_plain_name(file) or file.startswith(".") or not file.endswith((".csv", ".parquet")):
        raise _damaged(path, f"{where}.file must name a .csv or .parquet file directly inside the results folder; got "
                             f"{file!r:.80}")
    if file in files:
        raise _damaged(path, f"{where}.file: file {file!r:.80} is also listed at {files[file]}.file; each node has "
                             "files of its own")
    files[file] = where
    rows = entry.get("rows", 0)
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
        raise _damaged(path, f"{where}.rows must be a non-negative integer; got {short_repr(rows)}")
    names: dict[str, int] = {}  # column name -> its position in 'columns'
    for position, spec in enumerate(entry["columns"]):
        name = spec.get("name") if type(spec) is dict else None
        codec = spec.get("codec") if type(spec) is dict else None
        column = f"{where}.columns[{position}]"
        if type(name) is not str or type(codec) is not str or codec not in _CODECS:
            raise _damaged(path, f"{column} must be an object with a 'name' (a str) and a 'codec' in "
                                 f"{sorted(_CODECS)}; got {short_repr(spec)}")
        if name in names:
            raise _damaged(path, f"{column}.name: column {name!r:.80} is listed twice (also at "
                                 f"{where}.columns[{names[name]}])")
        names[name] = position
        combination = (codec, spec.get("dtype"), spec.get("empty", "empty"))
        hashable = type(combination[1]) is str and type(combination[2]) is str
        if not (hashable and combination in checked):
            _check_column_spec(path, column, name, combination, dtypes)
            if hashable:
                checked.add(combination)


def _check_column_spec(path: Path, column: str, name: str, combination: tuple[str, Any, Any],
                       dtypes: dict[str, Any]) -> None:
    """Check one (codec, dtype, empty) combination of a column entry (each distinct one is checked once)."""
    codec, dtype_text, empty = combination
    if type(dtype_text) is str and dtype_text not in dtypes:
        try:
            dtypes[dtype_text] = pd.api.types.pandas_dtype(dtype_text)
        except (TypeError, ValueError):
            dtypes[dtype_text] = None
    dtype = dtypes[dtype_text] if type(dtype_text) is str else None
    if dtype is None:
        raise _damaged(path, f"{column}.dtype (column {name!r:.80}): unknown dtype {short_repr(dtype_text)}; a dtype "
                             "pandas names, such as 'float64', 'int64', 'bool' or 'object'")
    text_kind = dtype == object or isinstance(dtype, pd.StringDtype)
    if not (is_native_dtype(dtype) if codec == "native" else text_kind if codec in ("text", "literal") else dtype == object):
        raise _damaged(path, f"{column}.codec (column {name!r:.80}): codec {codec!r} cannot hold dtype {dtype_text!r}")
    if codec == "text" and empty not in ("none", "nan", "empty"):
        raise _damaged(path, f"{column}.empty (column {name!r:.80}) must be 'none', 'nan' or 'empty'; got "
                             f"{short_repr(empty)}")


def read_manifest_quietly(folder: Path | Folder) -> dict[str, Any] | None:
    """The folder's checked evalframe.json, or None when it has none or it cannot be read."""
    try:
        return read_manifest(folder)
    except LoadError:
        return None


def listed_files(manifest: dict[str, Any]) -> set[str]:
    """The node files a checked manifest lists (every partition file of a partitioned folder)."""
    if manifest.get("partitioned") is None:
        return {entry["file"] for entry in manifest["nodes"].values()}
    return {part["file"] for entry in manifest["nodes"].values() for part in entry["parts"]}


def scores_to_json(scores: Any) -> dict[str, dict[str, Any]]:
    """A result's score declarations (``result.scores``) as the manifest's ``"scores"``: ``{name: {"direction",
    "bounds" ([low, high] or null), "level", "description"}}``.

    Examples
    --------
    >>> scores_to_json({"latency": score_measure("latency", direction="lower", bounds=(0, 10), description="seconds")})
    {'latency': {'direction': 'lower', 'bounds': [0.0, 10.0], 'level': 'query', 'description': 'seconds'}}
    """
    if not isinstance(scores, dict) or not all(isinstance(m, Metric) and m.family == "score" and m.name == name
                                                for name, m in scores.items()):
        raise InvalidParameterError("result.scores must be a dict {name: evalframe.score_measure(name, ...)}; got "
                                    f"{short_repr(scores)}.", parameter="result.scores")
    return {name: {"direction": m.direction, "bounds": None if m.bounds is None else list(m.bounds), "level": m.level,
                   "description": m.description} for name, m in scores.items()}


def scores_of_manifest(manifest: dict[str, Any], path: Path | str | Remote) -> dict[str, Metric]:
    """The score declarations of a manifest's ``"scores"`` (none without it); a damaged one is a LoadError naming it."""
    found = manifest.get("scores")
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise _damaged(path, f"'scores' must map score names to their declarations; got {_what(found)}")
    out: dict[str, Metric] = {}
    for name, entry in found.items():
        if not isinstance(entry, dict):
            raise _damaged(path, f"'scores'[{name!r}] must be an object (direction, bounds, level, description); got "
                                       f"{_what(entry)}")
        try:
            bounds = entry.get("bounds")
            out[name] = score_measure(name, direction=entry.get("direction", "higher"),
                                      bounds=None if bounds is None else tuple(bounds),
                                      level=entry.get("level", "query"), description=entry.get("description", ""))
        except (InvalidParameterError, TypeError) as exc:
            raise _damaged(path, f"'scores'[{name!r}]: {exc}") from None
    return out


def skipped_to_json(skipped: Any) -> list[dict[str, str]]:
    """``result.skipped`` as the manifest's ``"skipped"``: one ``{"where", "reason"}`` per query left out.

    Examples
    --------
    >>> skipped_to_json((Skipped("ragas.jsonl:3", "no label"),))
    [{'where': 'ragas.jsonl:3', 'reason': 'no label'}]
    """
    if isinstance(skipped, (str, bytes, dict)) or not isinstance(skipped, (list, tuple)) or not all(
            isinstance(item, Skipped) and isinstance(item.where, str) and isinstance(item.reason, str)
            for item in skipped):
        raise InvalidParameterError(f"result.skipped must be a tuple of evalframe.schema.Skipped(where, reason); got "
                                    f"{short_repr(skipped)}.", parameter="result.skipped")
    return [{"where": item.where, "reason": item.reason} for item in skipped]


def skipped_of_manifest(manifest: dict[str, Any], path: Path | str | Remote) -> tuple[Skipped, ...]:
    """The queries a manifest's ``"skipped"`` records as left out of the result (none without it); a damaged entry is
    a LoadError naming it."""
    found = manifest.get("skipped")
    if found is None:
        return ()
    if not isinstance(found, list):
        raise _damaged(path, f"'skipped' must be a list of {{\"where\", \"reason\"}} objects; got {_what(found)}")
    out = []
    for number, entry in enumerate(found):
        if not isinstance(entry, dict) or not isinstance(entry.get("where"), str) \
                or not isinstance(entry.get("reason"), str):
            raise _damaged(path, f"'skipped'[{number}] must be an object with the strings 'where' and 'reason'; "
                                       f"got {_what(entry)}")
        out.append(Skipped(entry["where"], entry["reason"]))
    return tuple(out)
