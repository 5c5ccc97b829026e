"""TREC runs and qrels given as frames: a pandas DataFrame, a pyarrow Table or a polars DataFrame (``docs/storage.md``).

:func:`frame_columns` reads a frame's named columns into the :class:`evalframe.sources.trec_arrow.ArrowColumns` the
TREC file reader returns (ids as codes into Arrow dictionaries, in order of first appearance; float64 scores, int64
grades), so a frame goes the files' way from there on: the same ranking (trec_eval's: score descending, ties by docid
descending), the same codes, no round trip through text. The columns are found by name
(:data:`RUN_NAMES`, :data:`QRELS_NAMES`): evalframe's own (``qid, docid, score, relevance``), ir_measures' and
ranx's (``query_id`` / ``q_id``, ``doc_id``, ``score``, ``relevance``) and PyTerrier's (``qid``, ``docno``,
``score``, ``label``); any other column (a ``rank``, ``Q0``, a run tag) is not read, as trec_eval ignores a file's
rank column. The rules are those of the files and dicts: ids are text (a column of integers is read as their
decimal text, the ids a file holding them gives), non-empty and without spaces, tabs or line ends; a score is a
number on every row (a NaN or missing one is refused), a grade an integer (floats holding integers are read as
them); a (query, document) pair once. A problem is an :class:`evalframe.errors.InvalidParameterError` naming the
column and the row (its position, counting from 0). polars is imported only when a polars frame is given.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InvalidParameterError
from ..frames.trec_codes import repeated_pairs
from ..frames.trec_ranking import ranks_within
from .trec_arrow import ArrowColumns, arrow_trec_order, dictionary_codes, numpy_of

__all__ = ["Frame", "RUN_NAMES", "QRELS_NAMES", "is_frame", "is_run_frame", "frame_columns", "frame_run"]

#: A frame these readers take: a pandas DataFrame, a pyarrow Table (or RecordBatch) or a polars DataFrame (polars is
#: not imported to name it).
Frame = Any
#: The names a run frame's columns go by, for each column read: the query id, the document id, the score.
RUN_NAMES: dict[str, tuple[str, ...]] = {"query": ("query_id", "qid", "q_id"), "document": ("doc_id", "docno", "docid"),
                                         "score": ("score",)}
#: A qrels frame's: the query id, the document id, the grade (``relevance`` or PyTerrier's ``label``; ranx's
#: ``score`` only when neither is there).
QRELS_NAMES: dict[str, tuple[str, ...]] = {"query": RUN_NAMES["query"], "document": RUN_NAMES["document"],
                                           "grade": ("relevance", "label")}
#: ranx's name of a qrels frame's grade column, read when the frame has no ``relevance`` or ``label``.
_RANX_GRADE = "score"
_ID_PROBLEM = r"[ \t\r\n]"


def _polars_kind(value: object) -> str | None:
    """``"polars"`` for a polars DataFrame, ``"lazy"`` for a LazyFrame, else None: polars is looked at only when the
    value's class comes from it (then polars is imported already)."""
    module = type(value).__module__ or ""
    polars = sys.modules.get("polars") if module.startswith("polars") else None
    if polars is None:
        return None
    if isinstance(value, polars.DataFrame):
        return "polars"
    return "lazy" if isinstance(value, polars.LazyFrame) else None


def is_frame(value: object) -> bool:
    """Whether ``value`` is a frame :func:`frame_columns` reads: a pandas DataFrame, a pyarrow Table or RecordBatch, a
    polars DataFrame (or LazyFrame, refused there with the way to collect it).

    Examples
    --------
    >>> is_frame(pd.DataFrame({"qid": ["q1"]})), is_frame(pa.table({"qid": ["q1"]})), is_frame({"q1": {"d1": 1.0}})
    (True, True, False)
    """
    return isinstance(value, (pd.DataFrame, pa.Table, pa.RecordBatch)) or _polars_kind(value) is not None


def is_run_frame(value: object) -> bool:
    """Whether ``value`` is a frame to read as a run: a pyarrow Table or polars DataFrame, or a pandas DataFrame with a
    document id column (``doc_id``, ``docno``, ``docid``); a pandas frame without one is a per-query table of
    metrics (what :func:`evalframe.compare` also takes).

    Examples
    --------
    >>> is_run_frame(pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}))
    True
    >>> is_run_frame(pd.DataFrame({"AP": [0.5]}, index=pd.Index(["q1"], name="multilabel_id")))
    False
    """
    if isinstance(value, pd.DataFrame):
        return any(name in value.columns for name in RUN_NAMES["document"])
    return is_frame(value)


def _names(frame: Any) -> list[str]:
    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        return list(frame.column_names)
    return [name for name in frame.columns if isinstance(name, str)]  # pandas (names of any type), polars


def _pick(frame: Any, names: list[str], aliases: tuple[str, ...], what: str, role: str, expected: str) -> str:
    found = [name for name in aliases if name in names]
    if len(found) > 1:
        raise InvalidParameterError(f"the {what} frame has the columns {found}, which all name the {role}; keep one "
                                    f"(e.g. frame.drop(columns={found[1:]!r})).", parameter=what)
    if found:
        return found[0]
    index = getattr(frame, "index", None)
    held = " (it is the frame's index: reset_index() first)" if index is not None and any(
        name in aliases for name in (index.names or [])) else ""
    raise InvalidParameterError(f"the {what} frame has no {role} column: name it {' or '.join(map(repr, aliases))}"
                                f"{held}; its columns are {names[:12]}. A {what} frame's columns are {expected}.",
                                parameter=what)


def _columns(frame: Any, names: list[str], what: str) -> list[Any]:
    """The columns ``names`` of ``frame`` as Arrow (chunked) arrays."""
    if isinstance(frame, pd.DataFrame):
        arrays = []
        for name in names:
            column = frame[name]
            if isinstance(column, pd.DataFrame):  # a name twice in a pandas frame
                raise InvalidParameterError(f"the {what} frame has {column.shape[1]} columns named {name!r}; keep one.",
                                            parameter=what)
            try:
                arrays.append(pa.array(column, from_pandas=True))
            except (pa.ArrowException, TypeError, ValueError):  # UnicodeError is a ValueError
                arrays.append(_mixed(column, name, what))
        return arrays
    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if _polars_kind(frame) == "polars":
        frame = frame.select(names).to_arrow()  # polars' buffers, viewed (strings: their own layout, cast below)
    return [frame.column(name) for name in names]


def _mixed(column: pd.Series, name: str, what: str) -> Any:
    """A pandas column Arrow cannot read as one type: refused, naming the first row whose type differs (the error
    path only walks the cells)."""
    kinds = column.map(type).to_numpy(dtype=object)
    if not (kinds != kinds[0]).any():  # one type, str: a text that is no Unicode (a lone surrogate)
        row = next((i for i, text in enumerate(column.tolist()) if isinstance(text, str) and not _encodes(text)), 0)
        raise InvalidParameterError(f"the {what} frame's column {name!r}, row {row}: the id {column.iloc[row]!r:.40} is "
                                    "not valid Unicode text (a lone surrogate); TREC ids are UTF-8 text.",
                                    parameter=what)
    row = int(np.flatnonzero(kinds != kinds[0])[0])
    raise InvalidParameterError(f"the {what} frame's column {name!r} mixes types: row {row} holds "
                                f"{column.iloc[row]!r:.40} ({type(column.iloc[row]).__name__}), row 0 "
                                f"{type(column.iloc[0]).__name__}; convert the column to one type (ids: "
                                f"frame[{name!r}].astype(str)).", parameter=what)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _first(mask: Any) -> int:
    """The position of the first true value of an Arrow boolean (chunked) array."""
    return int(np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False) if isinstance(mask, pa.Array)
                                         else mask.combine_chunks().to_numpy(zero_copy_only=False), dtype=bool))[0])


def _ids(column: Any, name: str, what: str) -> tuple[np.ndarray, Any]:
    """An id column as codes (int32, in order of first appearance) and its dictionary of distinct texts."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind) or (
            hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind)):
        text = column if column.type == pa.string() else pc.cast(column, pa.string())
    else:
        hint = (" (a pandas column of integers with a missing value becomes float64: fill or drop that row)"
                if pa.types.is_floating(kind) else "")
        raise InvalidParameterError(f"the {what} frame's column {name!r} holds {kind}; ids are text (str), or integers "
                                    f"(read as their decimal text, as a TREC file's ids){hint}.", parameter=what)
    if text.null_count:
        raise InvalidParameterError(f"the {what} frame's column {name!r}, row {_first(pc.is_null(text))}: no id (None "
                                    "or NaN); every row needs one.", parameter=what)
    codes, dictionary = dictionary_codes(text)
    bad = pc.or_(pc.equal(pc.utf8_length(dictionary), 0), pc.match_substring_regex(dictionary, _ID_PROBLEM))
    if pc.any(bad).as_py():
        code = _first(bad)
        raise InvalidParameterError(f"the {what} frame's column {name!r}, row {int(np.flatnonzero(codes == code)[0])}: "
                                    f"the id {dictionary[code].as_py()!r} must be a non-empty string without spaces, "
                                    "tabs or line ends (TREC files separate their columns by them).", parameter=what)
    return codes, dictionary


def _numbers(column: Any, name: str, what: str, *, grades: bool) -> np.ndarray:
    """A score column as float64 (every row a number), or a grade column as int64 (every row an integer)."""
    kind = column.type
    noun = "relevance grade" if grades else "score"
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)):
        hint = "pd.to_numeric(frame[...])" if not grades else "frame[...].astype(int)"
        raise InvalidParameterError(f"the {what} frame's column {name!r} holds {kind}; a {noun} is a number "
                                    f"({'an integer' if grades else 'int or float'}): convert it with {hint}.",
                                    parameter=what)
    floats = pc.cast(column, pa.float64()) if column.type != pa.float64() else column
    missing = pc.or_kleene(pc.is_null(floats), pc.is_nan(floats))
    if missing.null_count or pc.any(missing).as_py():
        missing = pc.fill_null(missing, True)
        needs = "every judgment needs a grade" if grades else "trec_eval needs a score on every line"
        raise InvalidParameterError(f"the {what} frame's column {name!r}, row {_first(missing)}: no {noun} (NaN or "
                                    f"missing); {needs}.", parameter=what)
    if not grades:
        return np.ascontiguousarray(numpy_of(floats), dtype=np.float64)
    if pa.types.is_integer(kind):
        return np.ascontiguousarray(numpy_of(pc.cast(column, pa.int64())), dtype=np.int64)
    values = numpy_of(floats)
    wrong = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) >= 2.0 ** 63)
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise InvalidParameterError(f"the {what} frame's column {name!r}, row {row}: the relevance grade {float(values[row])!r} "
                                    "is not an integer; qrels grades are integers.", parameter=what)
    return values.astype(np.int64)


def frame_columns(frame: Any, what: str) -> ArrowColumns:
    """A run (``what="run"``) or qrels (``"qrels"``) frame's columns as the TREC reader returns a file's.

    Parameters
    ----------
    frame : pandas.DataFrame, pyarrow.Table or polars.DataFrame
        A run: the query id (``query_id``, ``qid`` or ``q_id``), the document id (``doc_id``, ``docno`` or
        ``docid``) and ``score``; qrels: the ids and the grade (``relevance`` or ``label``; ``score``, ranx's
        name, when neither is there). Other columns are not read.
    what : {"run", "qrels"}
        Which it is (named in the errors).

    Returns
    -------
    ArrowColumns
        The rows in frame order: the ids as int32 codes into Arrow string dictionaries (in order of first
        appearance), float64 scores or int64 grades.

    Raises
    ------
    InvalidParameterError
        A missing column or two naming the same thing (both ``qid`` and ``query_id``), a column of the wrong type,
        a missing id, score or grade, an empty id or one with whitespace, a grade that is not an integer, a
        document twice in a query; naming the column and the row.

    Examples
    --------
    >>> columns = frame_columns(pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, 2.0]}), "run")
    >>> columns.qids.to_pylist(), columns.docid_codes.tolist(), columns.values.tolist()
    (['q1'], [0, 1], [1.0, 2.0])
    >>> frame_columns(pd.DataFrame({"query_id": [301], "doc_id": ["d1"], "label": [2]}), "qrels").qids.to_pylist()
    ['301']
    """
    if _polars_kind(frame) == "lazy":
        raise InvalidParameterError(f"the {what} is a polars LazyFrame; pass the frame itself: {what}.collect().",
                                    parameter=what)
    if not is_frame(frame):
        raise InvalidParameterError(f"{what} must be a pandas DataFrame, a pyarrow Table or a polars DataFrame; got "
                                    f"{type(frame).__name__}.", parameter=what)
    names = _names(frame)
    table = RUN_NAMES if what == "run" else QRELS_NAMES
    expected = ("the query id, the document id and the score (query_id/qid, doc_id/docno, score)" if what == "run"
                else "the query id, the document id and the grade (query_id/qid, doc_id/docno, relevance/label)")
    query = _pick(frame, names, table["query"], what, "query id", expected)
    document = _pick(frame, names, table["document"], what, "document id", expected)
    if what == "run":
        value = _pick(frame, names, table["score"], what, "score", expected)
    elif not any(name in names for name in table["grade"]) and _RANX_GRADE in names:
        value = _RANX_GRADE
    else:
        value = _pick(frame, names, table["grade"], what, "relevance grade", expected)
    query_column, document_column, value_column = _columns(frame, [query, document, value], what)
    qid_codes, qids = _ids(query_column, query, what)
    docid_codes, docids = _ids(document_column, document, what)
    values = _numbers(value_column, value, what, grades=what != "run")
    repeated = repeated_pairs(qid_codes, docid_codes, len(qids), len(docids))
    if repeated.any():
        second = int(np.flatnonzero(repeated)[0])
        first = int(np.flatnonzero((qid_codes == qid_codes[second]) & (docid_codes == docid_codes[second]))[0])
        raise InvalidParameterError(
            f"the {what} frame lists document {docids[int(docid_codes[second])].as_py()!r} twice in query "
            f"{qids[int(qid_codes[second])].as_py()!r} (rows {first} and {second}); trec_eval refuses duplicate "
            f"documents. Keep one row of each (e.g. frame.drop_duplicates([{query!r}, {document!r}])).", parameter=what)
    return ArrowColumns(qid_codes, qids, docid_codes, docids, values)


def frame_run(columns: ArrowColumns) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A run's columns (:func:`frame_columns`) as ``(qids, docids, scores, ranks)`` in trec_eval's ranking: ids as
    object arrays, queries in order of first appearance, documents by score descending, ties by docid descending.

    Examples
    --------
    >>> run = frame_columns(pd.DataFrame({"qid": ["q1"] * 3, "docid": ["a", "c", "b"], "score": [1.0, 2.0, 2.0]}), "run")
    >>> [part.tolist() for part in frame_run(run)]
    [['q1', 'q1', 'q1'], ['c', 'b', 'a'], [2.0, 2.0, 1.0], [1, 2, 3]]
    """
    assert columns.docid_codes is not None  # frame_columns codes the docids
    order = arrow_trec_order(columns.qid_codes, columns.values, columns.docids, columns.docid_codes)
    rows = np.arange(len(columns.values)) if order is None else order
    query, doc = columns.qid_codes[rows], columns.docid_codes[rows]
    qids = np.asarray(columns.qids.to_numpy(zero_copy_only=False), dtype=object)[query]
    docids = np.asarray(columns.docids.to_numpy(zero_copy_only=False), dtype=object)[doc]
    return qids, docids, columns.values[rows], ranks_within(query)
