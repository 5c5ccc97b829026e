"""Qrels and query texts read through ir_datasets (``docs/storage.md#ir_datasets``).

``qrels="irds:<id>"`` (or the dataset object ``ir_datasets.load(id)`` returns, or any object with ``qrels_iter()``)
is read through ir_datasets' own API, imported only when such a value is given (``pip install ir_datasets``), into the
columns the TREC reader makes of a qrels file (:class:`evalframe.sources.trec_arrow.ArrowColumns`: the ids as codes
into Arrow dictionaries in order of first appearance, the grades int64), so every reader of qrels
(:mod:`evalframe.sources.trec_files`, :func:`evalframe.sources.trec.read_coded_tables`, ``evalframe trec``'s columns)
reads a dataset as it reads the file. The judgments are taken from the iterator's records in blocks (each record's
``query_id``, ``doc_id`` and ``relevance``, one ``attrgetter`` call), each block's columns made Arrow arrays and numpy
arrays at once; nothing is done per query. A record's subtopic (``subtopic_id``, else its ``iteration``, the second
column of a TREC qrels file) is read with ``subtopics=True`` only, as the file reader reads that column.

The rules of the file reader hold: ids are non-empty strings without spaces, tabs or line ends, grades integers, a
document judged once per query (once per subtopic of a query with ``subtopics=True``); a record that breaks one is
refused naming the dataset and the record's 1-based number in ``qrels_iter()``'s order.

``queries="irds:<id>"`` (or an object with ``queries_iter()``) gives the query texts of reports: each query's
``text`` field when its record has one, else its first field after ``query_id`` that holds a str (``title`` of TREC
topics, ir_datasets' ``TrecQuery``).
"""

from __future__ import annotations

import itertools
import numbers
import operator
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

import numpy as np
import pyarrow as pa

from .._validation import close_matches
from ..errors import InvalidParameterError, LoadError
from .trec_arrow import ArrowColumns, dictionary_codes, string_array

__all__ = ["IRDS_PREFIX", "IRDS_INSTALL", "IrdsDataset", "is_irds", "irds_dataset", "irds_qrels", "irds_queries"]

#: How a string names an ir_datasets dataset: ``irds:msmarco-passage/dev/small`` (PyTerrier's and ranx's spelling).
IRDS_PREFIX = "irds:"
#: The install line of ir_datasets, said when it is missing.
IRDS_INSTALL = "pip install ir_datasets"
#: Records taken from ir_datasets' iterator at a time (their ids made Arrow arrays block by block).
_BLOCK = 1 << 16
#: What an id may not hold: what separates a TREC file's columns (the dict reader's rule).
_SEPARATORS = (" ", "\t", "\r", "\n")


def is_irds(value: object) -> bool:
    """Whether ``value`` is read through ir_datasets: a str ``irds:<id>``, an ir_datasets dataset (any object with
    ``qrels_iter()`` or ``queries_iter()``, or of ir_datasets' own classes), or an :class:`IrdsDataset`.

    Examples
    --------
    >>> is_irds("irds:msmarco-passage/dev/small"), is_irds("qrels.txt"), is_irds({"q1": {"d1": 1}})
    (True, False, False)
    """
    if isinstance(value, str):
        return value.startswith(IRDS_PREFIX)
    if isinstance(value, IrdsDataset):
        return True
    if value is None or isinstance(value, (bytes, os.PathLike, Mapping)):
        return False
    return (hasattr(value, "qrels_iter") or hasattr(value, "queries_iter")
            or type(value).__module__.partition(".")[0] == "ir_datasets")


class IrdsDataset:
    """An ir_datasets dataset, loaded: its qrels read once per ``subtopics`` (kept here: ``evalframe.compare`` and
    ``optimize_fusion`` evaluate many runs on one dataset), its query texts once.

    Made by :func:`irds_dataset`; ``str()`` is the name messages give it (``irds:<id>``).

    Parameters
    ----------
    dataset : object
        What ``ir_datasets.load(id)`` returned, or any object with ``qrels_iter()`` / ``queries_iter()``.
    name : str
        Its name in messages.
    """

    def __init__(self, dataset: Any, name: str, *, subsets: Callable[[], list[str]] | None = None) -> None:
        self.dataset, self.name = dataset, name
        self._subsets = subsets  # the ids of its subsets that have qrels (said when it has none)
        self._qrels: dict[bool, ArrowColumns] = {}
        self._queries: dict[str, str] | None = None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"IrdsDataset({self.name!r})"

    def qrels(self, *, subtopics: bool = False) -> ArrowColumns:
        """The judgments as the TREC reader's columns (:func:`irds_qrels`)."""
        if subtopics not in self._qrels:
            self._qrels[subtopics] = _read_qrels(self.dataset, self.name, subtopics, self._subsets)
        return self._qrels[subtopics]

    def queries(self) -> dict[str, str]:
        """The query texts by query id (:func:`irds_queries`)."""
        if self._queries is None:
            self._queries = _read_queries(self.dataset, self.name)
        return dict(self._queries)


def _ir_datasets(value: str, name: str) -> Any:
    """The ir_datasets module, imported now; its absence is refused with the install line."""
    try:
        import ir_datasets
    except ImportError:
        raise InvalidParameterError(f"{name} {value!r} is read through ir_datasets, which is not installed: "
                                    f"{IRDS_INSTALL}.", parameter=name) from None
    return ir_datasets


def irds_dataset(value: object, *, name: str = "qrels") -> IrdsDataset:
    """``value`` (``"irds:<id>"``, an ir_datasets dataset object, or an :class:`IrdsDataset`) as an
    :class:`IrdsDataset`: an id loaded by ``ir_datasets.load`` (ir_datasets imported here).

    Parameters
    ----------
    value : str or object
        ``"irds:<id>"``, or a dataset object.
    name : str
        The parameter it was given as (``"qrels"``, ``"queries"``), for messages.

    Raises
    ------
    InvalidParameterError
        ir_datasets is not installed (the install line), or has no dataset of that id (naming the id, and the close
        ids it has).

    Examples
    --------
    >>> irds_dataset("irds:no-such-collection/dev")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: qrels 'irds:no-such-collection/dev': ir_datasets has no dataset ...
    """
    if isinstance(value, IrdsDataset):
        return value
    if not isinstance(value, str):
        if not is_irds(value):
            raise InvalidParameterError(f"{name} must be 'irds:<id>' or an ir_datasets dataset; got "
                                        f"{type(value).__name__}.", parameter=name)
        identify = getattr(value, "dataset_id", None)
        try:
            shown = f"{IRDS_PREFIX}{identify()}" if callable(identify) else f"the dataset {value!r:.60}"
        except Exception:  # noqa: BLE001 - a name for messages only
            shown = f"the dataset {type(value).__name__}"
        return IrdsDataset(value, shown)
    dataset_id = value[len(IRDS_PREFIX):]
    if not dataset_id.strip():
        raise InvalidParameterError(f"{name} {value!r} names no dataset: write irds:<id>, an ir_datasets id such as "
                                    "irds:msmarco-passage/dev/small.", parameter=name)
    module = _ir_datasets(value, name)
    try:
        dataset = module.load(dataset_id)
    except KeyError:
        close = close_matches(dataset_id, list(module.registry))
        hint = f" Did you mean {' or '.join(repr(IRDS_PREFIX + c) for c in close)}?" if close else ""
        raise InvalidParameterError(f"{name} {value!r}: ir_datasets has no dataset {dataset_id!r} (its ids: "
                                    f"https://ir-datasets.com, or `ir_datasets list`).{hint}", parameter=name) from None
    except Exception as exc:  # noqa: BLE001 - whatever ir_datasets raises, said with the dataset's name
        raise LoadError(f"{name} {value!r}: ir_datasets could not load the dataset ({type(exc).__name__}: {exc}).",
                        parameter=name) from exc
    def subsets() -> list[str]:
        found = []
        for other in module.registry:
            if other.startswith(dataset_id.rstrip("/") + "/") and module.load(other).has_qrels():
                found.append(IRDS_PREFIX + other)
        return found

    return IrdsDataset(dataset, value, subsets=subsets)


def irds_qrels(value: object, *, subtopics: bool = False, name: str = "qrels") -> ArrowColumns:
    """The judgments of an ir_datasets dataset as the TREC reader's columns of a qrels file.

    Parameters
    ----------
    value : str or object
        ``"irds:<id>"``, an ir_datasets dataset object (anything with ``qrels_iter()``), or an :class:`IrdsDataset`.
    subtopics : bool
        Read each record's subtopic (``subtopic_id``, else ``iteration``) as the second column of a subtopic qrels.
    name : str
        The parameter, for messages.

    Returns
    -------
    ArrowColumns
        In ``qrels_iter()``'s order: query and document codes (int32, in order of first appearance) into Arrow
        dictionaries, the grades (int64); with ``subtopics``, the subtopics coded too.

    Raises
    ------
    InvalidParameterError
        As :func:`irds_dataset`; a dataset without qrels.
    LoadError
        No judgment at all, a record without ``query_id``, ``doc_id`` or ``relevance``, an id that is not a non-empty
        string without whitespace, a grade that is not an int, a document judged twice in a query (naming the record),
        or what ir_datasets raised while reading them.

    Examples
    --------
    >>> from typing import NamedTuple
    >>> class Qrel(NamedTuple):
    ...     query_id: str
    ...     doc_id: str
    ...     relevance: int
    ...     iteration: str
    >>> class Judged:
    ...     def qrels_iter(self):
    ...         return iter([Qrel("q1", "d1", 2, "0"), Qrel("q2", "d1", 0, "0"), Qrel("q1", "d3", 1, "0")])
    >>> columns = irds_qrels(Judged())
    >>> columns.qid_codes.tolist(), columns.docids.to_pylist(), columns.values.tolist()
    ([0, 1, 0], ['d1', 'd3'], [2, 0, 1])
    """
    return irds_dataset(value, name=name).qrels(subtopics=bool(subtopics))


def irds_queries(value: object, *, name: str = "queries") -> dict[str, str]:
    """The query texts of an ir_datasets dataset by query id: each record's ``text``, else its first str field after
    ``query_id`` (a TREC topic's ``title``).

    Raises
    ------
    InvalidParameterError
        As :func:`irds_dataset`; a dataset without queries.
    LoadError
        A query id or text that is not a str, a query id twice, or what ir_datasets raised while reading them.

    Examples
    --------
    >>> from typing import NamedTuple
    >>> class Topic(NamedTuple):
    ...     query_id: str
    ...     title: str
    ...     description: str
    >>> class Topics:
    ...     def queries_iter(self):
    ...         return iter([Topic("301", "foreign minorities", "..."), Topic("302", "polio", "...")])
    >>> irds_queries(Topics())
    {'301': 'foreign minorities', '302': 'polio'}
    """
    return irds_dataset(value, name=name).queries()


# ------------------------------------------------------------------------------------------ reading
def _provides(dataset: Any) -> str:
    provided = [kind for kind in ("docs", "queries", "qrels", "scoreddocs", "docpairs", "qlogs")
                if hasattr(dataset, f"{kind}_iter")]
    return ", ".join(provided) or "nothing"


def _records(dataset: Any, kind: str, name: str) -> Iterator[Any]:
    """``dataset.<kind>_iter()``'s records, whatever ir_datasets raises while making them a LoadError naming the
    dataset (a missing file, a download that failed, a line of the wrong shape)."""
    try:
        for record in getattr(dataset, f"{kind}_iter")():
            yield record
    except (LoadError, InvalidParameterError):  # pragma: no cover - ours, raised by the consumer's checks
        raise
    except Exception as exc:  # noqa: BLE001 - ir_datasets' own errors (RuntimeError, OSError, ...), said with the name
        raise LoadError(f"{kind} {name}: ir_datasets could not read them ({type(exc).__name__}: {exc}).") from exc


def _blocks(records: Iterator[Any]) -> Iterator[list[Any]]:
    while True:
        block = list(itertools.islice(records, _BLOCK))
        if not block:
            return
        yield block


def _fields_of(record: Any, wanted: list[str], kind: str, name: str) -> None:
    missing = [field for field in wanted if not hasattr(record, field)]
    if missing:
        fields = getattr(record, "_fields", None)
        raise LoadError(f"{kind} {name}: ir_datasets gives records of type {type(record).__name__}"
                        + (f" (fields {', '.join(fields)})" if fields else "") + f", without {', '.join(missing)}; "
                        f"evalframe reads {', '.join(wanted)}.")


def _columns(block: list[Any], fields: list[str], start: int, kind: str, name: str) -> list[list[Any]]:
    """The block's records as one list per field (each field fetched over the block by one ``map``)."""
    try:
        return [list(map(operator.attrgetter(field), block)) for field in fields]
    except AttributeError:
        get = operator.attrgetter(*fields)
        for number, record in enumerate(block, start=start + 1):
            try:
                get(record)
            except AttributeError as exc:
                raise LoadError(f"{kind} {name}: record {number} ({record!r:.80}) has no field {exc.name!r}.") from None
        raise  # pragma: no cover - the record that failed is found above


def _text(values: list[Any], start: int, what: str, kind: str, name: str, *, ids: bool = True) -> Any:
    """A block's values as an Arrow string array, made from its buffers (one join and one encoding of the block's
    text: no Python work per value but its length, and no pandas, which pyarrow's own conversion imports); a value
    that is not a str is refused, and with ``ids`` one that is empty or holds a space, a tab or a line end (they
    separate a TREC file's columns), naming its record."""
    try:
        joined = "".join(values)
        data = joined.encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        _refuse_text(values, start, what, kind, name, ids=False)
    if len(data) == len(joined):  # ASCII: a value's bytes are its characters
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    else:
        lengths = np.fromiter((len(value.encode("utf-8")) for value in values), dtype=np.int64, count=len(values))
    if ids and (not lengths.all() or any(separator in joined for separator in _SEPARATORS)):
        _refuse_text(values, start, what, kind, name, ids=True)
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 2**31:  # more than an Arrow string array's 2 GB: its 64-bit offsets
        return pa.Array.from_buffers(pa.large_string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
                                     ).cast(pa.string())
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets.astype(np.int32)),
                                                            pa.py_buffer(data)])


def _refuse_text(values: list[Any], start: int, what: str, kind: str, name: str, *, ids: bool) -> NoReturn:
    """The error of the first value of a block that :func:`_text` cannot take, naming its record."""
    for number, value in enumerate(values, start=start + 1):
        if not isinstance(value, str):
            raise LoadError(f"{kind} {name}: record {number}: the {what} must be a str; got {type(value).__name__} "
                            f"{value!r:.40}.")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise LoadError(f"{kind} {name}: record {number}: the {what} {value!r:.40} is not valid Unicode text (a "
                            "lone surrogate).") from None
        if ids and (not value or any(separator in value for separator in _SEPARATORS)):
            raise LoadError(f"{kind} {name}: record {number}: the {what} {value!r:.40} must be a non-empty string "
                            "without spaces, tabs or line ends (TREC files separate their columns by them).")
    raise LoadError(  # pragma: no cover - one is refused above
        f"{kind} {name}: the {what}s of records {start + 1}..{start + len(values)} cannot be read as text.")


def _grades(values: list[Any], start: int, name: str) -> np.ndarray:
    """A block's grades as int64; one that is not an int (a bool, a float, a str) is refused, naming its record."""
    grades = np.asarray(values)
    if grades.dtype.kind == "i" or (grades.dtype.kind == "u" and (not len(grades) or grades.max() < 2**63)):
        return grades.astype(np.int64, copy=False)
    for number, value in enumerate(values, start=start + 1):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not -2**63 <= int(value) < 2**63:
            raise LoadError(f"qrels {name}: record {number}: the relevance grade must be an int; got "
                            f"{type(value).__name__} {value!r:.40}.")
    return grades.astype(np.int64)  # pragma: no cover - one is refused above


def _read_qrels(dataset: Any, name: str, subtopics: bool, subsets: Callable[[], list[str]] | None) -> ArrowColumns:
    if not hasattr(dataset, "qrels_iter"):
        try:
            found = subsets() if subsets is not None else []
        except Exception:  # noqa: BLE001 - a hint only
            found = []
        more = f" and {len(found) - 4} more" if len(found) > 4 else ""
        hint = (f"; its subsets with qrels: {', '.join(found[:4])}{more}" if found else
                "; name a dataset with judgments (a subset such as irds:msmarco-passage/dev/small)")
        raise InvalidParameterError(f"qrels {name}: the dataset has no qrels (it gives {_provides(dataset)}){hint}.",
                                    parameter="qrels")
    records = _records(dataset, "qrels", name)
    first = next(records, None)
    if first is None:
        raise LoadError(f"qrels {name}: ir_datasets gives no judgment (qrels_iter() is empty).")
    wanted = ["query_id", "doc_id", "relevance"]
    if subtopics:
        subtopic = next((field for field in ("subtopic_id", "iteration") if hasattr(first, field)), None)
        if subtopic is None:
            raise LoadError(f"qrels {name}: subtopics=True reads each judgment's subtopic (its subtopic_id or iteration "
                            f"field), and ir_datasets' {type(first).__name__} records have neither.")
        wanted.append(subtopic)
    _fields_of(first, wanted, "qrels", name)
    parts: list[list[Any]] = [[] for _ in wanted]
    start = 0
    for block in _blocks(itertools.chain([first], records)):
        columns = _columns(block, wanted, start, "qrels", name)
        parts[0].append(_text(columns[0], start, "query id", "qrels", name))
        parts[1].append(_text(columns[1], start, "document id", "qrels", name))
        parts[2].append(_grades(columns[2], start, name))
        if subtopics:
            parts[3].append(_text(columns[3], start, "subtopic", "qrels", name))
        start += len(block)
    ids = {what: pa.chunked_array(chunks, type=pa.string()) for what, chunks in
           (("query id", parts[0]), ("document id", parts[1]), *((("subtopic", parts[3]),) if subtopics else ()))}
    qid_codes, qids = dictionary_codes(ids["query id"])
    docid_codes, docids = dictionary_codes(ids["document id"])
    subtopic_codes, subtopic_values = dictionary_codes(ids["subtopic"]) if subtopics else (None, None)
    _check_repeats(qid_codes, docid_codes, subtopic_codes, qids, docids, subtopic_values, name)
    return ArrowColumns(qid_codes, qids, docid_codes, docids, np.concatenate(parts[2]), subtopic_codes, subtopic_values)


def _check_repeats(query: np.ndarray, doc: np.ndarray, subtopic: np.ndarray | None, qids: Any, docids: Any,
                   subtopics: Any, name: str) -> None:
    """A document judged twice in a query (in a subtopic of a query) is refused, as the file reader refuses it: the
    first record that repeats an earlier one is named, with the earlier one."""
    keys = (doc, query) if subtopic is None else (doc, subtopic, query)
    order = np.lexsort(keys)  # stable: equal keys in record order
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for key in keys:
        ordered = key[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        return
    later, earlier = order[1:][same], order[:-1][same]
    at = int(np.argmin(later))
    row, first = int(later[at]), int(earlier[at])
    where = (f"query {qids[int(query[row])].as_py()!r}" if subtopic is None else
             f"subtopic {subtopics[int(subtopic[row])].as_py()!r} of query {qids[int(query[row])].as_py()!r}")
    raise LoadError(f"qrels {name}: record {row + 1} judges document {docids[int(doc[row])].as_py()!r} again in {where} "
                    f"(first in record {first + 1}); trec_eval refuses a document judged twice.")


def _text_field(record: Any, name: str) -> str:
    """The field of a query record that holds its text: ``text``, else the first str field after ``query_id``."""
    fields = getattr(record, "_fields", None)
    if fields is None:
        if hasattr(record, "text"):
            return "text"
        raise LoadError(f"queries {name}: ir_datasets gives records of type {type(record).__name__} without a text "
                        "field; evalframe reads each query's text (its text field, else its first str field).")
    if "text" in fields:
        return "text"
    field = next((field for field in fields if field != "query_id" and isinstance(getattr(record, field), str)), None)
    if field is None:
        raise LoadError(f"queries {name}: ir_datasets' {type(record).__name__} records (fields {', '.join(fields)}) "
                        "hold no text besides query_id; evalframe reads each query's text field, else its first str "
                        "field.")
    return field


def _read_queries(dataset: Any, name: str) -> dict[str, str]:
    if not hasattr(dataset, "queries_iter"):
        raise InvalidParameterError(f"queries {name}: the dataset has no queries (it gives {_provides(dataset)}).",
                                    parameter="queries")
    records = _records(dataset, "queries", name)
    first = next(records, None)
    if first is None:
        return {}
    wanted = ["query_id", _text_field(first, name)]
    _fields_of(first, wanted, "queries", name)
    ids: list[str] = []
    texts: list[str] = []
    start = 0
    for block in _blocks(itertools.chain([first], records)):
        columns = _columns(block, wanted, start, "queries", name)
        _text(columns[0], start, "query id", "queries", name, ids=False)  # refuses what is not a str, naming the record
        _text(columns[1], start, f"text ({wanted[1]})", "queries", name, ids=False)
        ids.extend(columns[0])
        texts.extend(columns[1])
        start += len(block)
    found = dict(zip(ids, texts))
    if len(found) != len(ids):
        codes, _ = dictionary_codes(pa.chunked_array([string_array(ids)], type=pa.string()))
        counts = np.bincount(codes)
        first_repeated = int(np.flatnonzero(counts[codes] > 1)[0])
        rows = np.flatnonzero(codes == codes[first_repeated])
        raise LoadError(f"queries {name}: query {ids[first_repeated]!r} appears twice (records {int(rows[0]) + 1} and "
                        f"{int(rows[1]) + 1}); evalframe reads one text per query.")
    return found
