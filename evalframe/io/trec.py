"""TREC run and qrels files written atomically (``docs/persistence.md#trec-run-and-qrels-files``).

:func:`write_run` and :func:`write_qrels` write the tidy frames (or the dict-of-dicts form) that
:func:`evalframe.sources.trec_files.read_run` and :func:`~evalframe.sources.trec_files.read_qrels` read, in trec_eval's
order; the file is replaced whole or not at all.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._locations import Remote, is_dir, locate, write_bytes
from .._validation import check_choice
from ..columns import EVAL_MODES
from ..errors import InvalidParameterError, SaveError
from ..frames.trec_codes import repeated_pairs
from ..frames.trec_layout import TrecLayout
from ..frames.trec_ranking import as_trec_scores, trec_order_codes
from ..sources import trec_files
from ..sources.trec import qrels_from_frame, run_from_frame
from ..sources.trec_arrow import QRELS_FORMAT, RUN_FORMAT, TrecFormat
from ..sources.trec_files import WHITESPACE, PathLike, TrecColumns
from . import atomic

__all__ = ["write_run", "write_qrels", "check_tag", "check_run_arguments", "write_node_run", "write_node_qrels"]

# ------------------------------------------------------------------------------------------ writing
def check_tag(tag: object) -> str:
    """A run's name for column 6: a non-empty str without whitespace (a space would split the column).

    Examples
    --------
    >>> check_tag("bm25")
    'bm25'
    """
    if not isinstance(tag, str) or not tag or WHITESPACE.search(tag):
        raise InvalidParameterError(f"tag must be a non-empty string without whitespace (the run's name in column 6); "
                                    f"got {tag!r}.", parameter="tag")
    return tag


def write_run(run: pd.DataFrame | Mapping[str, Mapping[str, float]], path: PathLike | Remote, *, tag: str = "evalframe",
              storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """Write a TREC run file atomically (``.gz``: gzip); returns the path written.

    ``path`` may be a URL (``s3://bucket/run.txt``; ``storage_options``: the filesystem's options), written in one
    request (the object replaced whole); the :class:`~evalframe._locations.Remote` written is returned.

    ``run`` is a frame with columns ``qid``, ``docid`` and ``score`` (as :func:`read_run` returns; a ``rank``
    column is ignored) or ``{qid: {docid: score}}``. Lines follow trec_eval's ranking (queries in order of
    first appearance, score descending, ties by docid descending) with ranks 1..n, so the file's order and
    rank column agree with what trec_eval computes; scores are written with ``repr`` (the shortest text that
    reads back as the same float). The file is replaced whole or not at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = write_run({"q1": {"d1": 0.5, "d2": 1.5}}, pathlib.Path(tempfile.mkdtemp()) / "run.txt", tag="bm25")
    >>> print(path.read_text(), end="")
    q1 Q0 d2 1 1.5 bm25
    q1 Q0 d1 2 0.5 bm25
    """
    check_tag(tag)
    columns = _frame_columns(run, RUN_FORMAT, trec_files.read_run)
    values = columns.values
    if np.isnan(values).any():
        first = int(np.flatnonzero(np.isnan(values))[0])
        raise SaveError(f"cannot write the run to {path}: query {columns.qid_values[columns.qid_codes[first]]!r}, document "
                        f"{columns.docid_values[columns.docid_codes[first]]!r} has no score (NaN); trec_eval needs a number "
                        "on every line.")
    order, ranks = trec_order_codes(columns.qid_codes, columns.docid_codes, columns.docid_values, as_trec_scores(values))
    return _write_text(path, _lines(columns, order, [" Q0 ", " ", " ", f" {tag}\n"], ranks, values[order]), "run",
                       storage_options)


def write_qrels(qrels: pd.DataFrame | Mapping[str, Mapping[str, int]], path: PathLike, *,
                storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """Write a TREC qrels file atomically (``.gz``: gzip), one line ``qid 0 docid relevance`` per row, in row order.

    ``qrels`` is a frame with columns ``qid``, ``docid`` and ``relevance`` (integers), as :func:`read_qrels`
    returns, or ``{qid: {docid: grade}}``; returns the path written. ``path`` may be a URL (``storage_options``:
    its filesystem's options), written in one request.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = write_qrels({"q1": {"d1": 1, "d7": 0}}, pathlib.Path(tempfile.mkdtemp()) / "qrels.txt")
    >>> print(path.read_text(), end="")
    q1 0 d1 1
    q1 0 d7 0
    """
    columns = _frame_columns(qrels, QRELS_FORMAT, trec_files.read_qrels)
    order = np.arange(len(columns.values))
    return _write_text(path, _lines(columns, order, [" 0 ", " ", "\n"], columns.values), "qrels", storage_options)


def check_run_arguments(path: object, tag: object, scores: object, eval_mode: object, duplicates: object,
                        storage_options: object = None) -> None:
    """``EvaluationResult.to_trec_run``'s arguments checked, before the run is built: ``path`` a local path or a URL
    fsspec writes (:func:`evalframe._locations.locate`), ``tag``
    (:func:`check_tag`), ``scores``, ``eval_mode`` and ``duplicates`` among their values.

    Examples
    --------
    >>> check_run_arguments("run.txt", "bm25", "rank", "integrated", "first")
    >>> check_run_arguments("run.txt", "bm25", "ranks", "integrated", "first")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: scores must be one of ['score', 'rank']; got 'ranks'...
    """
    if isinstance(path, (str, os.PathLike)) and str(path):
        locate(path, name="path", storage_options=storage_options)
    check_tag(tag)
    check_choice(scores, ("score", "rank"), name="scores")
    check_choice(eval_mode, EVAL_MODES, name="eval_mode")
    check_choice(duplicates, ("error", "first"), name="duplicates")


def write_node_run(frame: pd.DataFrame, path: PathLike, *, node: str, tag: str, scores: Literal["score", "rank"],
                   eval_mode: str, duplicates: Literal["error", "first"], layout: TrecLayout | None = None,
                   storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """A node frame's document rows of ``eval_mode`` written as a TREC run, atomically (``EvaluationResult.to_trec_run``:
    :func:`evalframe.sources.trec.run_from_frame`'s run, :func:`write_run`); ``layout``: the frame's TREC layout,
    if known.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> frame = pd.DataFrame({"multilabel_id": ["q", "q"], "document_id": ["a", "b"], "rank": [2, 1]})
    >>> path = write_node_run(frame, pathlib.Path(tempfile.mkdtemp()) / "run.txt", node="Retriever", tag="bm25",
    ...                       scores="rank", eval_mode="integrated", duplicates="error")
    >>> print(path.read_text(), end="")
    q Q0 b 1 2.0 bm25
    q Q0 a 2 1.0 bm25
    """
    run = run_from_frame(frame, node=node, eval_mode=eval_mode, scores=scores, duplicates=duplicates, layout=layout)
    return write_run(run, path, tag=tag, storage_options=storage_options)


def write_node_qrels(frame: pd.DataFrame, path: PathLike, *, node: str,
                     storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
    """A node frame's judgments written as a TREC qrels file, atomically (``EvaluationResult.to_qrels``:
    :func:`evalframe.sources.trec.qrels_from_frame`'s judgments, :func:`write_qrels`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> frame = pd.DataFrame({"multilabel_id": ["q", "q"], "gold_document_ids": [["d9", "d1"]] * 2})
    >>> print(write_node_qrels(frame, pathlib.Path(tempfile.mkdtemp()) / "qrels.txt", node="R").read_text(), end="")
    q 0 d1 1
    q 0 d9 1
    """
    return write_qrels(qrels_from_frame(frame, node=node), path, storage_options=storage_options)


def _lines(columns: TrecColumns, order: np.ndarray, separators: list[str], *numbers: np.ndarray) -> bytes:
    """The UTF-8 text of the lines ``qid sep docid sep number sep number ...`` of the rows ``order``.

    ``separators``: the text after the qid, after the docid and after each of ``numbers`` (int64: written in
    decimal; float64: with ``repr``, the shortest text that reads back as the same float; one ``repr`` per distinct
    value). The lines are joined column-wide in Arrow (ids as dictionary codes, no Python string per line).
    """
    parts: list[tuple[np.ndarray, np.ndarray]] = [(columns.qid_codes[order], columns.qid_values),
                                                  (columns.docid_codes[order], columns.docid_values)]
    for values in numbers:
        codes, distinct = pd.factorize(values.view(np.int64) if values.dtype == np.float64 else values, sort=False)
        texts = list(map(repr, distinct.view(np.float64).tolist())) if values.dtype == np.float64 else \
            list(map(str, distinct.tolist()))
        parts.append((codes, np.array(texts, dtype=object)))
    arrays = [pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int64, copy=False)),
                                             pa.array(values.tolist(), type=pa.large_string())).cast(pa.large_string())
              for codes, values in parts]
    pieces = [piece for array, separator in itertools.zip_longest(arrays, separators)
              for piece in (array, pa.scalar(separator, type=pa.large_string())) if piece is not None]
    joined = pc.binary_join_element_wise(*pieces, pa.scalar("", type=pa.large_string()))  # the last: the separator
    end = int(np.frombuffer(joined.buffers()[1], dtype=np.int64)[joined.offset + len(joined)])
    start = int(np.frombuffer(joined.buffers()[1], dtype=np.int64)[joined.offset])
    return joined.buffers()[2].to_pybytes()[start:end]


def _frame_columns(table: Any, fmt: TrecFormat, reader: Callable[[Any], pd.DataFrame]) -> TrecColumns:
    """qids, docids and values of a frame (or dict) to write, checked: ids writable, no duplicate, values typed."""
    if isinstance(table, Mapping):
        table = reader(table)
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(f"the {fmt.kind} to write must be a DataFrame with columns qid, docid, "
                                    f"{fmt.value_name} or a dict {{qid: {{docid: {fmt.value_name}}}}}; "
                                    f"got {type(table).__name__}.")
    missing = [c for c in ("qid", "docid", fmt.value_name) if c not in table.columns]
    if missing:
        raise InvalidParameterError(f"the {fmt.kind} frame lacks the column(s) {missing}; it needs qid, docid and "
                                    f"{fmt.value_name} (as read_{fmt.kind} returns).")
    if len(table) == 0:
        what = "retrieved document" if fmt is RUN_FORMAT else "judgment"
        raise SaveError(f"the {fmt.kind} holds no {what}, so there is no line to write (and read_{fmt.kind} refuses an "
                        f"empty file); nothing was written.")
    qids = table["qid"].to_numpy(dtype=object)
    docids = table["docid"].to_numpy(dtype=object)
    columns = TrecColumns.of_ids(qids, docids, np.zeros(0))
    for name, ids, distinct in (("qid", qids, columns.qid_values), ("docid", docids, columns.docid_values)):
        if not _writable_ids(distinct):
            first = next(i for i, value in enumerate(ids.tolist()) if not _writable_ids(np.array([value], dtype=object)))
            raise SaveError(f"cannot write {fmt.kind} row {first + 1}: its {name} {ids[first]!r:.60} is not a non-empty "
                            "string without whitespace (TREC files separate columns by whitespace).")
    duplicated = repeated_pairs(columns.qid_codes, columns.docid_codes, len(columns.qid_values), len(columns.docid_values))
    if duplicated.any():
        first = int(np.flatnonzero(duplicated)[0])
        raise SaveError(f"cannot write the {fmt.kind}: document {docids[first]!r} appears twice in query {qids[first]!r}; "
                        f"trec_eval refuses {fmt.kind} with duplicate documents. Keep one row per (qid, docid).")
    values = table[fmt.value_name]
    if fmt is RUN_FORMAT:
        if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            raise InvalidParameterError(f"the run's score column must hold numbers; got dtype {values.dtype}.")
        columns.values = values.to_numpy(dtype=np.float64)
        return columns
    if not pd.api.types.is_integer_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise InvalidParameterError(f"the qrels' relevance column must hold integers; got dtype {values.dtype}. "
                                    "Convert it with .astype('int64').")
    columns.values = values.to_numpy(dtype=np.int64)
    return columns


def _writable_ids(ids: np.ndarray) -> bool:
    """Whether every id is a non-empty str without whitespace (checked in C: one join and one search)."""
    try:
        joined = "\x00".join(ids.tolist())  # TypeError for anything but str
    except TypeError:
        return False
    return not (ids == "").any() and WHITESPACE.search(joined) is None


def _write_text(path: PathLike | Remote, data: bytes, kind: str, storage_options: object = None) -> Path | Remote:
    """Replace ``path`` by a file holding ``data`` (UTF-8 text; gzip when the name ends with .gz): whole or not at all.

    The content goes to a hidden sibling ``.<name>.evalframe-write-<id>``, is fsync'ed, renamed over the target
    (atomic on POSIX) and the folder fsync'ed; on any failure the sibling is removed and the old file stays.
    A symbolic link keeps pointing at the file it names, which is replaced.
    """
    if isinstance(path, Remote):
        return _write_remote(path, data, kind)
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidParameterError(f"path must name the {kind} file to write; got {path!r:.80}.")
    where = locate(path, name="path", storage_options=storage_options)
    if isinstance(where, Remote):
        return _write_remote(where, data, kind)
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    if target.is_dir():
        raise SaveError(f"cannot write the {kind} file: {target} is a folder; give a file name.")
    if not target.parent.is_dir():
        raise SaveError(f"cannot write the {kind} file {target}: the folder {target.parent} does not exist.")
    if target.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)  # no time stamp: the same content gives the same bytes
    staging = target.parent / f".{target.name}.evalframe-write-{uuid.uuid4().hex[:12]}"
    try:
        atomic.step(f"write {target.name}")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        atomic.sync_file(staging)
        atomic.step(f"rename {target.name}")
        os.replace(staging, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise SaveError(f"cannot write the {kind} file {target}: {exc.strerror or exc}; the previous file (if any) is "
                        "unchanged.") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise
    with contextlib.suppress(OSError):
        fd = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return Path(path)


def _write_remote(where: Remote, data: bytes, kind: str) -> Remote:
    """``data`` written as the object ``where`` in one request (gzip when its name ends with .gz): a reader sees the
    old object or the new one, whole."""
    if is_dir(where):
        raise SaveError(f"cannot write the {kind} file: {where.url} is a folder; give a file name.")
    if where.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    write_bytes(where, data, what=f"the {kind} file")
    return where
