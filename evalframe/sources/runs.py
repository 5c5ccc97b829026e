"""Read a JSON Lines runs file: one query per line, its gold labels and every node's outputs.

See ``docs/runs-format.md``. ``read_runs(path)`` returns ``(labels, node_outputs)``, ready for
:meth:`evalframe.EvaluationResult.from_runs`; :func:`read_runs_file` builds them (the source ``runs`` of
``EvaluationResult.from_source``), each query named by its line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._progress import bar, enabled
from .._locations import Remote, is_dir, is_file, locate, open_bytes, open_text, url_problem
from .._validation import check_path, did_you_mean, gzip_problem
from ..errors import EvalframeError, InvalidParameterError, LoadError
from ..frames.score_values import score_value
from ..metrics.registry import Metric
from ..options import MatchingOptions, with_options
from .assemble import Built, assemble
from .flatten import (OUTPUT_KEYS, IdlessDocuments, as_answer, as_document, gold_ids_are_given, idless_positions,
                      warn_idless_documents)
from ..schema import Answer, Document, Label, MultiLabel

__all__ = ["read_runs", "read_runs_counted", "read_runs_file", "query_lines", "json_value"]

_LINE_KEYS = ("query", "filters", "labels", "gold", "nodes", "id", "meta", "scores")
_GOLD_KEYS = ("document_ids", "contexts", "answers")
_NOT_JSON_LINES = ("the file is {what}, not JSON Lines: a runs file holds one JSON object per line, each "
                   "query on a line of its own (docs/runs-format.md). Rewrite it, e.g. with "
                   "`jq -c '.[]' runs.json > runs.jsonl` for an array.")


def _refuse_unknown_keys(obj: dict[str, Any], keys: tuple[str, ...], where: str, inside: str = "") -> None:
    """A LoadError naming the first key of ``obj`` outside ``keys`` (``inside``: which object) and the valid keys."""
    unknown = [k for k in obj if k not in keys]
    if unknown:
        raise LoadError(f"{where}: unknown key {unknown[0]!r}{inside}; valid keys are {list(keys)}."
                        f"{did_you_mean(unknown[0], keys)}")


def _no_answer_gold(answers: Any, where: str) -> dict[str, list[Any]]:
    """The gold of a no-answer question without a gold document: ``{}``, ``{"answers": []}`` or ``{"answers": [""]}``.

    Each reads as ``{"document_ids": [""], "answers": [""]}`` (one label per ``""`` answer, at least one): a no-answer
    label whose document is empty, as Haystack 1.x writes it. Answers with text need their document.
    """
    if not isinstance(answers, list) or any(a not in ("", None) for a in answers):
        raise LoadError(f"{where}: 'gold' needs 'document_ids' or 'contexts' (one entry per gold label) for its answers "
                        f"{answers!r:.60}; only a no-answer question may leave them out, as "
                        '"gold": {"answers": [""]} (docs/runs-format.md#no-answer-questions).')
    count = max(1, len(answers))
    return {"document_ids": [""] * count, "answers": [""] * count}


def _line_meta(line: dict[str, Any], where: str) -> dict[str, Any] | None:
    """A line's ``meta``: a JSON object (kept with its query, docs/runs-format.md#per-query-metadata), or None."""
    meta = line.get("meta")
    if meta is not None and not isinstance(meta, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(meta), "a number")
        raise LoadError(f"{where}: 'meta' must be a JSON object (e.g. {{\"topic\": \"billing\"}}) or null; got "
                        f"{kind}, {json.dumps(meta)[:60]}.")
    return meta


class _Digits(str):
    """An integer literal of a runs file too long for ``int()``, kept as its text to say where it is."""


def _line_scores(line: dict[str, Any], where: str) -> dict[str, dict[str, float]] | None:
    """A line's ``scores``: ``{node: {name: number or null}}``, each node one the line's ``nodes`` name
    (docs/runs-format.md#scores), or None."""
    scores = line.get("scores")
    if scores is None:
        return None
    if not isinstance(scores, dict):
        raise LoadError(f"{where}: 'scores' must be a JSON object {{\"<node>\": {{\"<name>\": number}}}}; got "
                        f"{json.dumps(scores)[:60]}.")
    given = line.get("nodes")
    nodes: dict[str, Any] = given if isinstance(given, dict) else {}
    for node, named in scores.items():
        if node not in nodes:
            raise LoadError(f"{where}: 'scores' names node {node!r}, which the line's 'nodes' does not "
                            f"({sorted(nodes)}).")
        if not isinstance(named, dict):
            raise LoadError(f"{where}: 'scores' of node {node!r} must be a JSON object {{\"<name>\": number}}; got "
                            f"{json.dumps(named)[:60]}.")
        for name, value in named.items():
            if isinstance(value, list):  # repeated judge runs: one value per repetition (docs/scores.md)
                named[name] = [score_value(v, where=f"{where}: score {name!r} of node {node!r}, repetition {j}",
                                           error=LoadError) for j, v in enumerate(value, start=1)]
            elif value is not None:  # the one rule of a score's value (a number's text is the number)
                named[name] = score_value(value, where=f"{where}: score {name!r} of node {node!r}", error=LoadError)
    return scores


def _integer_or_digits(text: str) -> int | _Digits:
    try:
        return int(text)
    except ValueError:
        return _Digits(text)


def _find_digits(value: Any, path: str = "") -> tuple[str, _Digits] | None:
    """The jq path (``.nodes.R.documents[0].score``) and text of the first :class:`_Digits` inside ``value``."""
    if isinstance(value, _Digits):
        return path or ".", value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        step = f"[{key}]" if isinstance(key, int) else f".{key}" if key.isidentifier() else f".{json.dumps(key)}"
        found = _find_digits(item, path + step)
        if found is not None:
            return found
    return None


def _too_long_integer(text: str, where: str) -> str:
    """The message for a line whose JSON holds an integer longer than Python converts: which field, how long."""
    # read again, only on this error, keeping long integers as text: the field's path can then be named
    try:
        found = _find_digits(json.loads(text, parse_int=_integer_or_digits))
    except (RecursionError, ValueError):  # nested as deep as the reader allows: the path is not walked
        found = None
    what = "an integer" if found is None else \
        f"field {found[0]} holds an integer of {len(found[1].lstrip('-')):,} digits,"
    return (f"{where}: {what} longer than the {sys.get_int_max_str_digits():,} digits Python converts to a number "
            "(sys.get_int_max_str_digits()). Write it as a string if it is an id, or fix the value; the environment "
            "variable PYTHONINTMAXSTRDIGITS sets a higher limit.")


#: A JSON string (escapes skipped) or a bracket: what :func:`_deepest` counts the nesting by.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _deepest(text: str) -> tuple[int, int]:
    """``(depth, line)`` of the deepest nesting of a JSON text (counted from 1), brackets inside strings skipped."""
    depth = deepest = at = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, match.start()
        elif token in "]}":
            depth -= 1
    return deepest, text.count("\n", 0, at) + 1


def json_value(text: str, name: str, line: int | None = None) -> Any:
    """The value of one JSON text, as the runs-file reader reads each line: what ``json.loads`` cannot turn into a
    value is a :class:`LoadError` naming ``name:line`` (a JSON text of several lines, ``line`` None: the line in it).

    Nesting deeper than Python's recursion allows is named with its depth, an integer longer than Python converts
    (``sys.get_int_max_str_digits()``) with its field and length; invalid JSON raises the ``json.JSONDecodeError``
    itself, for the caller to word (a JSON Lines file and a JSON file say it differently).

    Examples
    --------
    >>> json_value('{"a": [1, 2]}', "runs.jsonl", 3)
    {'a': [1, 2]}
    >>> json_value("[" * 100_000 + "]" * 100_000, "runs.jsonl", 3)
    Traceback (most recent call last):
      ...
    evalframe.errors.LoadError: runs.jsonl:3: JSON nested too deeply to read (100,000 levels; ...
    """
    try:
        return json.loads(text)
    except RecursionError:
        depth, at = _deepest(text)
        where = f"{name}:{line if line is not None else at}"
        raise LoadError(f"{where}: JSON nested too deeply to read ({depth:,} levels; Python reads at most about "
                        f"{sys.getrecursionlimit():,}). Flatten the structure.") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits())
        if line is None:  # the line of the first digit run longer than the limit
            long = re.search(r"\d{%d,}" % (sys.get_int_max_str_digits() + 1), text)
            line = 1 if long is None else text.count("\n", 0, long.start()) + 1
        raise LoadError(_too_long_integer(text, f"{name}:{line}")) from None


def _gold_labels(query: str, filters: Any, gold: Any, where: str, number: int) -> list[Label]:
    if not isinstance(gold, dict):
        raise LoadError(f"{where}: 'gold' must be an object with keys {list(_GOLD_KEYS)}; got {type(gold).__name__}.")
    _refuse_unknown_keys(gold, _GOLD_KEYS, where, " in 'gold'")
    lists = {k: gold[k] for k in _GOLD_KEYS if gold.get(k) is not None}
    # empty id / context lists beside a no-answer ("" or none) say "no gold document" too
    if lists.get("answers") in ([""], [None]) and all(lists.get(k, []) == [] for k in ("document_ids", "contexts")):
        lists = {"answers": lists["answers"]}
    if "document_ids" not in lists and "contexts" not in lists:
        lists = _no_answer_gold(lists.get("answers", []), where)
    for key, values in lists.items():
        if not isinstance(values, list):
            raise LoadError(f"{where}: gold {key!r} must be a list (one entry per gold label); got {values!r}.")
        nested = [i for i, v in enumerate(values) if isinstance(v, (list, dict))]
        if nested:
            raise LoadError(f"{where}: gold {key!r}[{nested[0] + 1}] must be a string (or null), one per gold label; "
                            f"got {values[nested[0]]!r:.60}.")
    lengths = {k: len(v) for k, v in lists.items()}
    if len(set(lengths.values())) > 1:
        raise LoadError(f"{where}: the gold lists must have one entry per gold label, but their lengths differ: {lengths}.")
    n = next(iter(lengths.values()))
    labels = []
    for i in range(n):
        content = lists["contexts"][i] if "contexts" in lists else ""
        document = Document(content="" if content is None else str(content),
                            id=lists["document_ids"][i] if "document_ids" in lists else None)
        answer = None
        if "answers" in lists:
            text = lists["answers"][i]
            answer = Answer(answer="" if text is None else str(text))
        labels.append(Label(query=query, document=document, is_correct_answer=True, is_correct_document=True,
                            origin="gold-label", answer=answer, filters=filters,
                            id=f"line{number}-gold{i}", created_at="1970-01-01 00:00:00"))
    return labels


def read_runs(path: str | Path, *, progress: bool | None = None, storage_options: Mapping[str, Any] | None = None,
              ) -> tuple[list[MultiLabel | None], dict[str, dict[str, list[list[Any]]]]]:
    """Read a runs file (JSON Lines, one query per line) into ``(labels, node_outputs)``.

    Every line holds ``query``, optional ``filters``, the gold as ``labels`` (Label dicts) or
    ``gold`` (``{"document_ids": [...], "contexts": [...], "answers": [...]}``, one entry per gold
    label, ``""`` for a no-answer), and ``nodes``: ``{node: {"documents": [...], "answers": [...],
    "documents_isolated": [...], "answers_isolated": [...]}}`` with Document / Answer dicts in rank order.
    Every line must name the same nodes and output keys. Blank lines are skipped. ``path`` may be a URL
    (``s3://bucket/runs.jsonl``; ``storage_options``: its filesystem's options, ``docs/storage.md``), read as a
    stream; messages name it as the file.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> line = {"query": "Capital of Germany?",
    ...         "gold": {"document_ids": ["d1"], "contexts": ["Berlin is the capital."], "answers": ["Berlin"]},
    ...         "nodes": {"Retriever": {"documents": [{"id": "d1", "content": "Berlin is the capital."}]},
    ...                   "Reader": {"answers": [{"answer": "Berlin", "document_ids": ["d1"]}]}}}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text(json.dumps(line) + "\\n")
    >>> labels, outputs = read_runs(path)
    >>> labels[0].answers, sorted(outputs)
    (['Berlin'], ['Reader', 'Retriever'])
    """
    labels, outputs, idless = read_runs_counted(path, progress=progress, storage_options=storage_options)
    warn_idless_documents(idless)
    return labels, outputs


def read_runs_counted(path: str | Path, *, progress: bool | None = None, storage_options: Mapping[str, Any] | None = None,
                      ) -> tuple[list[MultiLabel | None], dict[str, dict[str, list[list[Any]]]], IdlessDocuments]:
    """:func:`read_runs` without its warning about documents without ids: they are counted and returned, for a
    build of several files (shards) that warns once for all of them (:func:`warn_idless_documents`)."""
    if not isinstance(path, (str, os.PathLike, Remote)) or (isinstance(path, str) and not path):
        raise InvalidParameterError(
            f"path must be a str or os.PathLike naming a non-empty runs file; got {path!r} of type {type(path).__name__}."
        )
    show = enabled(progress)
    where = runs_location(path, storage_options)
    if is_dir(where):
        raise LoadError(f"runs file {where} is a directory; give the JSON Lines file (docs/runs-format.md).")
    if not is_file(where):
        raise LoadError(f"runs file {where} does not exist.")
    try:
        return _read(where, show)
    except UnicodeDecodeError:
        # the decoder reads ahead in blocks, so its offset is within a block, not the file: find the line itself
        raise LoadError(_not_utf8(where)) from None


def runs_location(path: object, storage_options: object = None) -> Path | Remote:
    """A runs file's path checked (a NUL character, which no file system allows, refused), or its URL located
    (:func:`evalframe._locations.locate`: one fsspec cannot read refused, naming ``path``)."""
    if isinstance(path, Remote):
        return path
    if storage_options or url_problem(path) is not None:
        return locate(path, name="path", storage_options=storage_options)
    return check_path(path, name="path")


def _not_utf8(path: Path | Remote) -> str:
    """Where the first byte sequence that is not UTF-8 lies: ``file:line``, its byte in the line and in the file (or
    that the file is gzip-compressed)."""
    compressed = gzip_problem(path)
    if compressed is not None:
        return compressed
    offset = 0
    with open_bytes(path, what="runs file") as handle:
        for number, raw in enumerate(handle, start=1):  # b"\n" never occurs inside a UTF-8 multi-byte sequence
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = raw[exc.start:exc.end]
                return (f"{path}:{number}: not UTF-8 text: byte {exc.start + 1} of the line (byte offset "
                        f"{offset + exc.start} in the file), {bad!r}: {exc.reason}. Write the runs file as UTF-8 "
                        "JSON Lines (e.g. `iconv -f latin1 -t utf-8`, if it is Latin-1).")
            offset += len(raw)
    return f"runs file {path} is not UTF-8 text; write it as UTF-8 JSON Lines."  # changed while read


def _read(path: Path | Remote, show: bool,
          ) -> tuple[list[MultiLabel | None], dict[str, dict[str, list[list[Any]]]], IdlessDocuments]:
    labels: list[MultiLabel | None] = []
    outputs: dict[str, dict[str, list[list[Any]]]] = {}
    shape: dict[str, tuple[str, ...]] | None = None
    idless = IdlessDocuments()  # documents without an id: one warning for the file, once it is read
    first = True  # the first non-blank line, where a JSON array or a pretty-printed object shows itself
    # utf-8-sig: a byte-order mark (written by some Windows editors) is skipped; without one it reads as UTF-8
    with open_text(path, what="runs file") as handle:
        for number, text in bar(enumerate(handle, start=1), show=show, desc="reading runs", unit="line"):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            opening, first = first, False
            try:
                line = json_value(text, str(path), number)
            except json.JSONDecodeError as exc:
                if opening and text.lstrip().startswith("["):
                    raise LoadError(f"{where}: " + _NOT_JSON_LINES.format(what="a JSON array")) from None
                if opening and text.strip() == "{":
                    raise LoadError(f"{where}: " + _NOT_JSON_LINES.format(what="one JSON object over several lines")) from None
                raise LoadError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}).") from None
            if opening and isinstance(line, list):
                raise LoadError(f"{where}: each line must be a JSON object; got a list. "
                                + "T" + _NOT_JSON_LINES.format(what="a JSON array")[1:])
            if not isinstance(line, dict):
                raise LoadError(f"{where}: each line must be a JSON object; got {type(line).__name__}.")
            _refuse_unknown_keys(line, _LINE_KEYS, where)
            query = line.get("query")
            if not isinstance(query, str):
                raise LoadError(f"{where}: 'query' must be a string; got {query!r}.")
            if ("labels" in line) == ("gold" in line):
                raise LoadError(f"{where}: give the gold either as 'labels' (Label dicts) or as 'gold', exactly one of them.")
            try:
                if "labels" in line:
                    items = line["labels"]
                    if not isinstance(items, list):
                        raise LoadError(f"{where}: 'labels' must be a list of Label dicts.")
                    label_objects = []
                    for j, item in enumerate(items, start=1):
                        if not isinstance(item, dict):
                            raise LoadError(f"{where}: label {j} must be a Label dict; got {type(item).__name__}.")
                        label_objects.append(Label.from_dict(item))
                else:
                    label_objects = _gold_labels(query, line.get("filters"), line["gold"], where, number)
                labels.append(MultiLabel(label_objects, meta=_line_meta(line, where), scores=_line_scores(line, where))
                              if label_objects else None)
            except LoadError:
                raise
            except EvalframeError as exc:
                raise LoadError(f"{where}: {exc}") from None
            except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a Label dict with fields of the wrong kind
                raise LoadError(f"{where}: 'labels' must hold Label dicts (docs/runs-format.md); {exc}.") from None
            nodes = line.get("nodes")
            if not isinstance(nodes, dict) or not nodes:
                raise LoadError(f"{where}: 'nodes' must be an object mapping node names to their outputs.")
            line_shape = {}
            for node, node_output in nodes.items():
                if not isinstance(node_output, dict):
                    raise LoadError(f"{where}: node {node!r} must map output keys {list(OUTPUT_KEYS)} to lists.")
                for key, items in node_output.items():
                    if key not in OUTPUT_KEYS:
                        raise LoadError(f"{where}: node {node!r} has unknown output key {key!r}; valid keys are "
                                        f"{list(OUTPUT_KEYS)}.{did_you_mean(key, OUTPUT_KEYS)}")
                    if not isinstance(items, list):
                        raise LoadError(f"{where}: node {node!r}, {key!r} must be a list (ranked).")
                    convert = as_answer if key.startswith("answers") else as_document
                    kind = "answer" if key.startswith("answers") else "document"
                    try:
                        converted = [convert(item, f"node {node!r}, {key!r}, {kind} {j}")  # counted from 1, as a person does
                                     for j, item in enumerate(items, start=1)]
                    except EvalframeError as exc:
                        raise LoadError(f"{where}: {exc}") from None
                    if kind == "document":
                        idless.add(len(items), idless_positions(items),
                                   lambda j: f"{where}, node {node!r}, {key!r}, document {j + 1}")  # noqa: B023
                    outputs.setdefault(node, {}).setdefault(key, []).append(converted)
                line_shape[node] = tuple(sorted(node_output))
            if shape is None:
                shape = line_shape
            elif line_shape != shape:
                raise LoadError(
                    f"{where}: names nodes and outputs {line_shape}, but the first line names {shape}; every line "
                    "must give the same nodes and output keys (use [] for an empty result)."
                )
    if not labels:
        raise LoadError(f"runs file {path} holds no query.")
    idless.gold_ids = gold_ids_are_given(labels)
    return labels, outputs, idless


def query_lines(path: str | Path | Remote, *, storage_options: Mapping[str, Any] | None = None) -> list[int]:
    """The 1-based line number of each query of a runs file read by :func:`read_runs` (blank lines hold none).

    ``read_runs(path)[0][i]`` is the query on line ``query_lines(path)[i]``: messages about ``labels[i]`` can name
    the line a person opens in an editor.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text('{"query": "a"}\\n\\n{"query": "b"}\\n')
    >>> query_lines(path)
    [1, 3]
    """
    where = runs_location(path, storage_options)
    try:
        with open_text(where, what="runs file") as handle:
            return [number for number, text in enumerate(handle, start=1) if text.strip()]
    except UnicodeDecodeError:  # the Dask build counts a shard's lines before reading it
        raise LoadError(_not_utf8(where)) from None


@with_options(MatchingOptions)
def read_runs_file(path: str | Path, *,
                   sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
                   progress: bool | None = None, keep_scores: bool = False,
                   score_measures: Mapping[str, Metric] | None = None,
                   storage_options: Mapping[str, Any] | None = None, **matching: Any) -> Built:
    """A runs file (JSON Lines, ``docs/runs-format.md``) built as :meth:`evalframe.EvaluationResult.from_runs` builds
    what :func:`read_runs` reads, every message and ``result.skipped`` naming a query by its ``file:line``.

    Parameters
    ----------
    path : str or Path
        The runs file.
    sas_model, progress, keep_scores, score_measures, context_matching_threshold, context_matching_min_length,
    context_matching_boost_split_overlaps, custom_document_id_field
        As :meth:`evalframe.EvaluationResult.from_runs` (``score_measures`` declares the scores the lines give).
    storage_options : dict, optional
        The filesystem's options for a ``path`` given as a URL (``docs/storage.md``).

    Returns
    -------
    Built
        What the file built (``EvaluationResult.from_source("runs", path)`` returns the result made of it).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> from evalframe import EvaluationResult
    >>> lines = [{"query": "Capital of Germany?", "gold": {"document_ids": ["d1"]},
    ...           "nodes": {"Retriever": {"documents": [{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}]}}},
    ...          {"query": "Capital of France?", "labels": [], "nodes": {"Retriever": {"documents": []}}}]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text("".join(json.dumps(line) + "\\n" for line in lines))
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = EvaluationResult(read_runs_file(path, progress=False))
    >>> [str(warning.message).endswith("runs.jsonl:2 has no label; the query is left out.") for warning in caught]
    [True]
    >>> result.calculate_metrics()["Retriever"]["mrr"], [item.where.endswith("runs.jsonl:2") for item in result.skipped]
    (0.5, [True])
    """
    options = MatchingOptions.from_keywords(matching, passed_to="from_runs takes these matching options")
    labels, outputs = read_runs(path, progress=progress, storage_options=storage_options)
    file = runs_location(path, storage_options)  # as read_runs names it
    return assemble(labels, outputs, sas_model=sas_model, progress=progress, keep_scores=keep_scores,
                    score_measures=score_measures, names=[f"{file}:{line}" for line in query_lines(file)],
                    **options.as_dict())
