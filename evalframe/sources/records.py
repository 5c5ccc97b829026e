"""The common shape of every foreign source (Ragas, Haystack 2.x, LlamaIndex, a column mapping): one :class:`Record`
per query, and :func:`build`, the one place records become node frames.

A source module reads its format into records (naming each record by ``where``: ``ragas.jsonl:3``, ``row 3``,
``inputs[2]``); :func:`build` writes the labels and node outputs a person would write in a runs file for them
(``docs/runs-format.md``) and assembles them as a runs file's (:func:`evalframe.sources.assemble.assemble`, each
entry named by its record's ``where``), so every source follows the same matching rules: gold ids when given, gold
contexts, gold answers. :func:`retrieved_of` reads one retrieved document of any framework (duck-typed: no framework
is imported).
"""

from __future__ import annotations

import functools
import gc
import json
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .._validation import check_choice, did_you_mean, short_repr
from ..errors import EvalframeError, InvalidParameterError, warn
from ..schema import Answer, Document, Label, MultiLabel, Skipped
from ..frames.repeats import is_repetitions
from ..frames.score_values import score_value
from .assemble import NO_LABEL, Built, assemble

__all__ = ["Retrieved", "Record", "retrieved_of", "build", "RECORD_FIELDS", "NO_GOLD_DOCUMENT", "DUPLICATES",
           "ON_INVALID", "repeated_documents", "collection_paused"]


@dataclass(frozen=True)
class Retrieved:
    """One retrieved document (or chunk) of a query, as any framework gives it.

    Parameters
    ----------
    id : str, optional
        The document's id (the one the gold ids use); None: the content's hash is its id, as in a runs file.
    content : str, optional
        Its text; None: unknown (read as ``""``).
    score : float, optional
        The retriever's score; given for any document, the node's rows get a ``score`` column.
    meta : mapping, optional
        Its metadata.

    Examples
    --------
    >>> Retrieved("d1", "Berlin is the capital of Germany.", score=0.9)
    Retrieved(id='d1', content='Berlin is the capital of Germany.', score=0.9, meta=None)
    """

    id: str | None
    content: str | None
    score: float | None = None
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Record:
    """One query of any source: its question, what the pipeline returned, its gold, its metadata and scores.

    Parameters
    ----------
    where : str
        How messages name the record: ``"ragas.jsonl:3"`` (file:line), ``"row 3"``, ``"inputs[2]"``.
    query : str
        The question.
    retrieved : sequence of Retrieved, optional
        The retriever's ranked documents; None: the source has no retriever output.
    answer : str, optional
        The generated answer; None: no generator output.
    gold_ids, gold_contexts : sequence of str, optional
        The gold documents' ids and texts (one entry per gold document; both given: the same documents, in one
        order).
    gold_answers : sequence of str, optional
        The gold answers; ``[]`` or ``[""]``: a no-answer question (no gold document either).
    meta : mapping, optional
        The query's metadata (the ``meta`` column; sliceable as ``meta.<field>``).
    scores : mapping, optional
        The source's own per-query scores (``{name: number}``), e.g. an LLM judge's faithfulness.
    id : str, optional
        The query's id in its source (a dataset's id column): it is the query's ``multilabel_id``, so two records
        with the same question and different ids are two queries. None: the MD5 of the question (Haystack's).

    Examples
    --------
    >>> Record("row 1", "Capital of Germany?", [Retrieved("d1", "Berlin is the capital.")], answer="Berlin",
    ...        gold_ids=["d1"], gold_answers=["Berlin"]).gold_ids
    ['d1']
    """

    where: str
    query: str
    retrieved: Sequence[Retrieved] | None = None
    answer: str | None = None
    gold_ids: Sequence[str] | None = None
    gold_contexts: Sequence[str] | None = None
    gold_answers: Sequence[str] | None = None
    meta: Mapping[str, Any] | None = None
    scores: Mapping[str, float | Sequence[float]] | None = None
    id: str | None = None


#: The gold document id of a record with gold answers but no gold document: an id no retrieved document has, so the
#: document metrics credit a retrieved document by the answer it holds (the default scope), and nothing by its id.
NO_GOLD_DOCUMENT = "<no gold document>"

#: The values of ``duplicates=``: a document twice in one ranking is refused (trec_eval's rule), or kept once, at its
#: first (best) rank, the ranks below closing up (``to_trec_run(duplicates="first")``'s rule).
DUPLICATES: tuple[str, ...] = ("error", "first")
#: The values of ``on_invalid=``: a record that cannot be a query (no label) is refused, or left out and recorded in
#: ``result.skipped``.
ON_INVALID: tuple[str, ...] = ("raise", "skip")

#: The fields of a :class:`Record` a source fills, each named as messages name it by default (a source passes its
#: own names to :func:`build` as ``fields``: ``{"gold_ids": "reference_context_ids", ...}``).
RECORD_FIELDS: tuple[str, ...] = ("query", "retrieved", "answer", "gold_ids", "gold_contexts", "gold_answers", "meta",
                                  "scores")


_F = TypeVar("_F", bound=Callable[..., Any])


def collection_paused(function: _F) -> _F:
    """``function`` with Python's cyclic garbage collector paused while it runs (and restored as it was): reading a
    source makes hundreds of thousands of small objects (records, labels, documents, row lists) that hold no cycle,
    and each collection the allocations set off walks all of them again (a third of the time of a 5,000-sample
    Ragas file). The wrapper is evalframe's own frame, so a warning still names the user's line.

    Examples
    --------
    >>> import gc
    >>> collection_paused(gc.isenabled)(), gc.isenabled()
    (False, True)
    """
    @functools.wraps(function)
    def paused(*args: Any, **kwargs: Any) -> Any:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused  # type: ignore[return-value]


# ------------------------------------------------------------------------------------ one retrieved document
def _text_or_none(value: Any, where: str, name: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise EvalframeError(f"{where}: {name} must be text (or None); got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def _id_or_none(value: Any, where: str, name: str) -> str | None:
    """An id as text: a str, or an int (ids written as numbers, as a runs file reads them)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)
    raise EvalframeError(f"{where}: {name} must be a string id (or None); got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def _score_or_none(value: Any, where: str, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise EvalframeError(f"{where}: {name} must be a number (or None); got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def _meta_or_none(value: Any, where: str, name: str) -> Mapping[str, Any] | None:
    if value is None or isinstance(value, Mapping):
        return value
    raise EvalframeError(f"{where}: {name} must be an object (a dict) or None; got {short_repr(value, 60)} of type "
                         f"{type(value).__name__}.")


def _checked(where: str, id: Any, content: Any, score: Any, meta: Any, *,
             names: tuple[str, str, str, str] = ("id", "content", "score", "meta")) -> Retrieved:
    retrieved = Retrieved(_id_or_none(id, where, names[0]), _text_or_none(content, where, names[1]),
                          _score_or_none(score, where, names[2]), _meta_or_none(meta, where, names[3]))
    if retrieved.id is None and retrieved.content is None:
        raise EvalframeError(f"{where}: the document has neither an {names[0]} nor a {names[1]}; give at least one "
                             "(the id the gold ids use, or the text).")
    return retrieved


def _llamaindex_node(node: Any, score: Any, where: str) -> Retrieved:
    """A llama-index TextNode (``node_id``, ``get_content()`` or ``text``, ``metadata``), with the score beside it."""
    get_content = getattr(node, "get_content", None)
    content = get_content() if callable(get_content) else getattr(node, "text", None)
    node_id = getattr(node, "node_id", None)
    if node_id is None:
        node_id = getattr(node, "id_", None)
    return _checked(where, node_id, content, score, getattr(node, "metadata", None),
                    names=("node_id", "text", "score", "metadata"))


def retrieved_of(obj: Any, where: str) -> Retrieved:
    """One retrieved document of any framework as a :class:`Retrieved` (duck-typed: no framework is imported).

    Reads, in this order: a :class:`Retrieved`; a string (the text alone, as Ragas' ``retrieved_contexts``); a dict
    with ``id`` / ``content`` / ``score`` / ``meta`` (other keys are ignored), LangChain's ``page_content`` /
    ``metadata``, or llama-index's ``{"node": {...}, "score": ...}`` / ``text`` / ``id_``; a LangChain ``Document``
    (``page_content``, ``metadata``; its id from ``id``, else ``metadata["id"]``); a llama-index ``NodeWithScore``
    (``node``, ``score``) or ``TextNode`` (``node_id``, ``get_content()`` or ``text``, ``metadata``); a Haystack 2.x
    or evalframe ``Document`` (``id``, ``content``, ``score``, ``meta``).

    Parameters
    ----------
    obj
        The document.
    where : str
        How a message names it: ``"ragas.jsonl:3, retrieved_contexts[2]"``.

    Returns
    -------
    Retrieved

    Raises
    ------
    EvalframeError
        ``obj`` is none of these, or a field has the wrong type (naming ``where`` and the field).

    Examples
    --------
    >>> from evalframe import Document
    >>> retrieved_of(Document("Berlin is the capital.", id="d1", score=0.5), "row 1")
    Retrieved(id='d1', content='Berlin is the capital.', score=0.5, meta={})
    >>> retrieved_of({"page_content": "Bonn.", "metadata": {"id": "d2"}}, "row 2").id
    'd2'
    >>> retrieved_of("just the text", "row 3")
    Retrieved(id=None, content='just the text', score=None, meta=None)
    >>> retrieved_of(7, "row 4")
    Traceback (most recent call last):
      ...
    evalframe.errors.EvalframeError: row 4: a retrieved document must be a string, a dict with ... got int.
    """
    if isinstance(obj, Retrieved):
        return _checked(where, obj.id, obj.content, obj.score, obj.meta)
    if isinstance(obj, str):
        return Retrieved(None, obj)
    if isinstance(obj, Mapping):
        if isinstance(obj.get("node"), Mapping):  # a llama-index NodeWithScore as a dict
            node = obj["node"]
            node_id = node.get("id_", node.get("node_id", node.get("id")))
            return _checked(where, node_id, node.get("text", node.get("content")), obj.get("score"),
                            node.get("metadata", node.get("meta")), names=("node.id_", "node.text", "score", "node.metadata"))
        if "page_content" in obj:  # a LangChain Document as a dict
            metadata = _meta_or_none(obj.get("metadata"), where, "metadata")
            doc_id = obj.get("id") if obj.get("id") is not None else (metadata or {}).get("id")
            return _checked(where, doc_id, obj["page_content"], obj.get("score"), metadata,
                            names=("id", "page_content", "score", "metadata"))
        if "content" not in obj and "text" in obj:  # a llama-index TextNode as a dict
            return _checked(where, obj.get("id_", obj.get("id")), obj["text"], obj.get("score"),
                            obj.get("metadata", obj.get("meta")), names=("id_", "text", "score", "metadata"))
        if "id" in obj or "content" in obj:
            return _checked(where, obj.get("id"), obj.get("content"), obj.get("score"), obj.get("meta"))
        raise EvalframeError(f"{where}: a retrieved document dict needs 'id' or 'content' (or LangChain's "
                             f"'page_content'); got keys {sorted(map(str, obj))[:8]}.")
    if hasattr(obj, "page_content"):  # LangChain
        metadata = _meta_or_none(getattr(obj, "metadata", None), where, "metadata")
        doc_id = getattr(obj, "id", None)
        if doc_id is None and metadata is not None:
            doc_id = metadata.get("id")
        return _checked(where, doc_id, obj.page_content, getattr(obj, "score", None), metadata,
                        names=("id", "page_content", "score", "metadata"))
    if hasattr(obj, "node") and not hasattr(obj, "content"):  # llama-index NodeWithScore
        return _llamaindex_node(obj.node, getattr(obj, "score", None), where)
    if hasattr(obj, "node_id") and (hasattr(obj, "get_content") or hasattr(obj, "text")):  # llama-index TextNode
        return _llamaindex_node(obj, getattr(obj, "score", None), where)
    if hasattr(obj, "content"):  # Haystack 2.x or evalframe Document
        content = obj.content
        if content is not None and not isinstance(content, str):  # a table document: its text
            content = str(content)
        return _checked(where, getattr(obj, "id", None), content, getattr(obj, "score", None),
                        getattr(obj, "meta", None))
    raise EvalframeError(f"{where}: a retrieved document must be a string, a dict with 'id' / 'content' (or "
                         "LangChain's 'page_content'), or a Document-like object (Haystack, LangChain, llama-index, "
                         f"evalframe); got {type(obj).__name__}.")


# ------------------------------------------------------------------------------------ records -> runs
def _names(fields: Mapping[str, str] | None) -> dict[str, str]:
    names = {name: name for name in RECORD_FIELDS}
    if fields is not None:
        unknown = [name for name in fields if name not in names]
        if unknown:
            raise InvalidParameterError(f"fields: unknown Record field {unknown[0]!r}; the fields are "
                                        f"{list(RECORD_FIELDS)}.", parameter="fields")
        names.update(fields)
    return names


def _texts(values: Any, where: str, name: str, *, ids: bool = False) -> list[str] | None:
    """A gold list as a list of str (ids may be ints), each wrong entry named ``name[i]`` (counted from 1)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise EvalframeError(f"{where}: {name} must be a list of strings; got {short_repr(values, 60)} of type "
                             f"{type(values).__name__}.")
    out = []
    for i, value in enumerate(values, start=1):
        text = _id_or_none(value, where, f"{name}[{i}]") if ids else _text_or_none(value, where, f"{name}[{i}]")
        if text is None:
            raise EvalframeError(f"{where}: {name}[{i}] must be a string; got None.")
        out.append(text)
    return out


def _gold_labels(record: Record, index: int, names: Mapping[str, str]) -> list[Label]:
    """The labels a runs file's ``gold`` would give this record (``docs/runs-format.md``): one per gold document,
    each with the answer beside it (one answer: beside every document; one document: beside every answer)."""
    where = record.where
    ids = _texts(record.gold_ids, where, names["gold_ids"], ids=True)
    contexts = _texts(record.gold_contexts, where, names["gold_contexts"])
    answers = _texts(record.gold_answers, where, names["gold_answers"])
    if ids is not None and contexts is not None and len(ids) != len(contexts):
        raise EvalframeError(f"{where}: {names['gold_ids']} has {len(ids)} entries and {names['gold_contexts']} "
                             f"{len(contexts)}; they name the same gold documents, one entry each, in one order.")
    documents = [Document(content=contexts[i] if contexts is not None else "", id=ids[i] if ids is not None else None)
                 for i in range(len(ids if ids is not None else contexts or []))]
    blank = answers is not None and all(not a.strip() for a in answers)
    if not documents:
        if answers is None:
            return []  # no gold at all: refused, or left out and recorded (on_invalid)
        if blank:  # a no-answer question, as a runs file's "gold": {"answers": [""]}
            return [_label(record, index, 0, Document(content="", id=""), "")]
        # answers alone: a gold document no retrieved one is (an empty text's id, "00", would mean "no gold" and score
        # every document metric 1.0, as for a no-answer question); a retrieved document holding an answer is relevant
        documents = [Document(content="", id=NO_GOLD_DOCUMENT)]
    if answers is not None and answers and not blank and any(not a.strip() for a in answers):
        first = next(i for i, a in enumerate(answers, start=1) if not a.strip())
        raise EvalframeError(f"{where}: {names['gold_answers']}[{first}] is empty beside other answers; a no-answer "
                             "question has only the empty answer (or none).")
    if answers is None or not answers:
        return [_label(record, index, i, document, None) for i, document in enumerate(documents)]
    if blank:
        raise EvalframeError(f"{where}: {names['gold_answers']} {answers!r} says no-answer question, but "
                             f"{len(documents)} gold document(s) are given; a no-answer question has no gold document.")
    if len(answers) == len(documents):
        pairs = list(zip(documents, answers))
    elif len(answers) == 1:
        pairs = [(document, answers[0]) for document in documents]
    elif len(documents) == 1:
        pairs = [(documents[0], answer) for answer in answers]
    else:
        raise EvalframeError(f"{where}: {len(answers)} {names['gold_answers']} beside {len(documents)} gold "
                             "documents cannot be paired; give one answer per gold document, one answer for all of "
                             "them, or one gold document.")
    return [_label(record, index, i, document, answer) for i, (document, answer) in enumerate(pairs)]


def _label(record: Record, index: int, i: int, document: Document, answer: str | None) -> Label:
    return Label(query=record.query, document=document, is_correct_answer=True, is_correct_document=True,
                 origin="gold-label", answer=None if answer is None else Answer(answer=answer),
                 id=f"record{index}-gold{i}", created_at="1970-01-01 00:00:00")


def _plain(item: Any) -> bool:
    """Whether ``item`` is a :class:`Retrieved` whose fields :func:`retrieved_of` would keep as they are (an id and a
    text that are str or None, not both None; a float score or None; a dict meta or None)."""
    return (type(item) is Retrieved and (item.id is None or type(item.id) is str)
            and (item.content is None or type(item.content) is str) and (item.id is not None or item.content is not None)
            and (item.score is None or type(item.score) is float) and (item.meta is None or type(item.meta) is dict))


def _documents(record: Record, names: Mapping[str, str]) -> tuple[list[Document], list[int]]:
    """The record's retrieved documents, and the positions (from 1) of those given without an id (or with ``""``)."""
    retrieved = record.retrieved
    if retrieved is None:
        return [], []
    if isinstance(retrieved, (str, bytes, Mapping)) or not isinstance(retrieved, Sequence):
        raise EvalframeError(f"{record.where}: {names['retrieved']} must be a list of documents; got "
                             f"{type(retrieved).__name__}.")
    documents = []
    idless = []
    for j, item in enumerate(retrieved, start=1):
        if type(item) is str:
            doc = Retrieved(None, item)
        elif _plain(item):  # what a table's row gives: read as retrieved_of reads it, without the checks it passes
            doc = item
        else:
            doc = retrieved_of(item, f"{record.where}, {names['retrieved']}[{j}]")
        if doc.id is None or doc.id == "":
            idless.append(j)
        documents.append(Document(content="" if doc.content is None else doc.content, id=doc.id, score=doc.score,
                                  meta=dict(doc.meta) if doc.meta is not None else None))
    return documents, idless


def _score_values(records: Sequence[Record], names: Mapping[str, str]) -> dict[str, list[Any]]:
    """Each score name's values, one per record (NaN where a record lacks it; a list: its repetitions), in
    first-seen name order."""
    columns: dict[str, list[Any]] = {}
    for index, record in enumerate(records):
        if record.scores is None:
            continue
        if not isinstance(record.scores, Mapping):
            raise EvalframeError(f"{record.where}: {names['scores']} must map score names to numbers; got "
                                 f"{type(record.scores).__name__}.")
        for name, value in record.scores.items():
            if not isinstance(name, str) or not name:
                raise EvalframeError(f"{record.where}: a score name must be a non-empty string; got {name!r}.")
            if type(value) is float:  # score_value's value of a float (NaN: no value), without its checks
                number: Any = value
            elif is_repetitions(value):  # repeated judge runs: a list of the score's values (docs/scores.md)
                listed: Sequence[Any] = value  # type: ignore[assignment]
                number = [score_value(v, where=f"{record.where}: score {name!r}, repetition {j}",
                                      error=EvalframeError) for j, v in enumerate(listed, start=1)]
            else:
                number = score_value(value, where=f"{record.where}: score {name!r}", error=EvalframeError)
            column = columns.get(name)
            if column is None:  # (not setdefault: its default, a list of n, would be made for every value: n^2)
                column = columns[name] = [math.nan] * len(records)
            column[index] = number
    return columns


def _warn_idless(records: Sequence[Record], names: Mapping[str, str], idless: Sequence[Sequence[int]]) -> None:
    """One warning when the gold names documents by id but retrieved documents come without one (``idless``: per
    record, the positions of its retrieved documents without an id)."""
    if not any(record.gold_ids for record in records):
        return
    missing = [(record.where, j) for record, positions in zip(records, idless) for j in positions]
    if missing:
        total = sum(len(record.retrieved or ()) for record in records)
        where, j = missing[0]
        warn(f"{len(missing):,} of {total:,} retrieved documents have no id (the first: {where}, {names['retrieved']}"
             f"[{j}]) while the gold names documents by id ({names['gold_ids']}): such a document is relevant only by "
             "holding a gold answer (the default document_scope) or by its text (document_scope='context'), never "
             "by its id. Give the retrieved documents' ids to score by id.")


def _node_name(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidParameterError(f"{name} must be a non-empty string (the node's name); got {value!r}.",
                                    parameter=name)
    return value


def _refuse_repeated_queries(records: Sequence[Record], key_hint: str) -> None:
    """A query text twice is one query (one multilabel_id) to evalframe: refused, naming both records; with ids
    (every record has one), an id twice is refused instead, and one text under two ids is two queries."""
    keyed = [record.id is not None for record in records]
    if any(keyed):
        if not all(keyed):
            record = records[keyed.index(False)]
            raise EvalframeError(f"{record.where}: the query has no id while others have one; key every query by an "
                                 "id, or none.")
        seen_ids: dict[str, str] = {}
        for record in records:
            seen = seen_ids.setdefault(str(record.id), record.where)
            if seen != record.where:
                raise EvalframeError(f"{seen} and {record.where} have the same id {short_repr(record.id, 60)}; an id "
                                     "names one query. Give each question its own id.")
        return
    first: dict[str, str] = {}
    for record in records:
        seen = first.setdefault(record.query, record.where)
        if seen != record.where:
            raise EvalframeError(f"{seen} and {record.where} hold the same question {short_repr(record.query, 60)}; "
                                 "evalframe identifies a query by its text, so each question may appear once. Drop "
                                 f"the repeat, or tell the two apart in their text{key_hint}.")


def _document_key(document: Document, custom_field: str | None) -> str:
    """What the metrics match a retrieved document by: its id (its content's hash without one), or the meta field of
    ``custom_document_id_field``."""
    if custom_field is not None and custom_field in (document.meta or {}):
        return "meta:" + json.dumps(document.meta[custom_field], sort_keys=True, default=repr)
    return "id:" + str(document.id)


def repeated_documents(documents: Sequence[Sequence[Document]], *, custom_field: str | None = None) -> np.ndarray:
    """Per retrieved document of every ranking (concatenated in order), whether an earlier document of the same
    ranking has its key (its id, or its ``custom_field`` meta value): the rankings' repeats, found in one pass.

    Examples
    --------
    >>> docs = [[Document("x", id="d1"), Document("y", id="d1")], [Document("x", id="d1")]]
    >>> repeated_documents(docs).tolist()
    [False, True, False]
    """
    sizes = np.fromiter((len(docs) for docs in documents), dtype=np.int64, count=len(documents))
    owner = np.repeat(np.arange(len(documents), dtype=np.int64), sizes)
    keys = pd.Series([_document_key(d, custom_field) for docs in documents for d in docs], dtype=object)
    return pd.DataFrame({"ranking": owner, "key": keys}).duplicated().to_numpy()


def _without_repeats(records: Sequence[Record], documents: list[list[Document]], names: Mapping[str, str],
                     duplicates: str, custom_field: str | None) -> list[list[Document]]:
    """The rankings with each document once: a repeat refused (``duplicates="error"``), naming the record, its
    position and the document, or dropped (``"first"``: the first, best-ranked, stays; the ranks below close up)."""
    repeated = repeated_documents(documents, custom_field=custom_field)
    if not repeated.any():
        return documents
    sizes = np.fromiter((len(docs) for docs in documents), dtype=np.int64, count=len(documents))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    if duplicates == "error":
        at = int(np.flatnonzero(repeated)[0])
        index = int(np.searchsorted(starts, at, side="right") - 1)
        position = at - int(starts[index])
        record, document = records[index], documents[index][position]
        key = _document_key(document, custom_field)
        earlier = next(j for j in range(position) if _document_key(documents[index][j], custom_field) == key)
        given_id = retrieved_of(record.retrieved[position], record.where).id if record.retrieved else None
        here, first = f"{names['retrieved']}[{position + 1}]", f"{names['retrieved']}[{earlier + 1}]"
        if key.startswith("meta:") and custom_field is not None:
            what = (f"{here} is document {custom_field}={short_repr(document.meta[custom_field], 60)} again (first at "
                    f"{first})")
        elif given_id is None:
            what = (f"{here} holds the same text as {first}, {short_repr(document.content, 60)} (a document without "
                    "an id is named by its text)")
        else:
            what = f"{here} is document {short_repr(document.id, 60)} again (first at {first})"
        raise EvalframeError(
            f"{record.where}: {what}; a document twice in one ranking would be counted twice (a recall or map above "
            "1), and trec_eval refuses duplicate documents. Drop the repeat, or pass duplicates='first' (--duplicates "
            "first) to keep each document once, at its first rank.")
    flags = np.split(repeated, np.cumsum(sizes)[:-1]) if len(sizes) > 1 else [repeated]
    touched = set(np.unique(np.searchsorted(starts, np.flatnonzero(repeated), side="right") - 1).tolist())
    return [[d for d, again in zip(docs, flags[i].tolist()) if not again] if i in touched else docs
            for i, docs in enumerate(documents)]


@collection_paused
def build(records: Sequence[Record], *, retriever: str = "Retriever", generator: str = "Generator",
          score_node: str | None = None, score_measures: Any = None, sas_model: Any = None,
          progress: bool | None = None, fields: Mapping[str, str] | None = None, duplicates: str = "error",
          on_invalid: str = "raise", key_hint: str = "", source: str = "the source", **matching: Any) -> Built:
    """What ``records`` build: the labels and node outputs a runs file would hold, assembled as a runs file's.

    Per record: its gold becomes one label per gold document (the id and text given; one gold answer beside every
    document, or one per document; gold answers without a gold document: one label per answer whose document is
    :data:`NO_GOLD_DOCUMENT`, so a retrieved document is relevant by holding the answer only; ``[]`` or ``[""]``
    without a gold document: a no-answer question; no gold at all: refused, or with ``on_invalid="skip"`` left out
    and recorded in the result's ``skipped``). A record's ``id`` (given for every record or none) is its query's
    ``multilabel_id``. Its retrieved documents are the ``retriever`` node's ``documents`` in rank order (a document
    without an id gets its content's hash, as in a runs file; a document twice in a ranking, by id or by text, is
    refused, or kept once at its first rank with ``duplicates="first"``); its answer is the ``generator`` node's one
    generative answer, citing the retrieved documents (``document_ids``). A node is made when some record has its
    output (a record without it: an empty list). ``meta`` goes to ``assemble(meta=...)``, the scores to
    ``assemble(scores={score_node: ...})`` (NaN where a record lacks one), and ``keep_scores=True`` when any
    retrieved document has a score; every message names the record by its ``where``.

    Parameters
    ----------
    records : sequence of Record
        One per query; each question once.
    retriever, generator : str
        The node names of the documents and the answers.
    score_node : str, optional
        The node the scores belong to; default the generator when the records have answers, else the retriever.
    score_measures : mapping, optional
        Score name -> ``evalframe.score_measure(...)``, their declarations (default: higher is better, unbounded).
    sas_model, progress, **matching
        As :func:`~evalframe.sources.assemble.assemble`'s.
    fields : mapping, optional
        How the source names each :class:`Record` field in messages (``{"gold_ids": "reference_context_ids"}``).
    duplicates : {"error", "first"}
        A document twice in one ranking: refused (default, as the TREC readers and trec_eval), or kept once at its
        first rank, the ranks below closing up (as ``to_trec_run(duplicates="first")``).
    on_invalid : {"raise", "skip"}
        A record without any gold (no label): refused (default), naming it, or left out, each one recorded in the
        result's ``skipped`` (``Skipped(where, reason)``) and stated by its reports.
    key_hint : str
        Added to the refusal of a question twice (how the source keys queries by an id, e.g. ``id_column=``).
    source : str
        How messages about the whole source name it (its file).

    Returns
    -------
    Built
        The frames, scores and skipped records (``EvaluationResult(built)`` is the result).

    Raises
    ------
    EvalframeError
        A field of the wrong type, gold lists that cannot be paired, a question (or an id) twice, a document twice
        in a ranking, a record without gold; the message names the record's ``where`` and the field as the source
        calls it.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> records = [Record("row 1", "Capital of Germany?", [Retrieved("d2", "Bonn."), Retrieved("d1", "Berlin.")],
    ...                   answer="Berlin", gold_ids=["d1"], gold_answers=["Berlin"]),
    ...            Record("row 2", "Capital of France?", [Retrieved("d3", "Paris.")], answer="Lyon",
    ...                   gold_ids=["d3"], gold_answers=["Paris"])]
    >>> result = EvaluationResult(build(records, progress=False))
    >>> metrics = result.calculate_metrics()
    >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"]
    (0.75, 0.5)
    """
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence):
        raise InvalidParameterError(f"records must be a list of Record; got {type(records).__name__}.",
                                    parameter="records")
    for position, record in enumerate(records):
        if not isinstance(record, Record):
            raise InvalidParameterError(f"records[{position}] must be a Record; got {type(record).__name__}.",
                                        parameter="records")
    if not records:
        raise EvalframeError(f"{source} holds no query.")
    retriever = _node_name(retriever, "retriever")
    generator = _node_name(generator, "generator")
    check_choice(duplicates, DUPLICATES, name="duplicates")
    check_choice(on_invalid, ON_INVALID, name="on_invalid")
    names = _names(fields)
    for record in records:
        if not isinstance(record.query, str):
            raise EvalframeError(f"{record.where}: {names['query']} must be a string; got {short_repr(record.query, 60)}.")
        if record.answer is not None and not isinstance(record.answer, str):
            raise EvalframeError(f"{record.where}: {names['answer']} must be a string (or None); got "
                                 f"{short_repr(record.answer, 60)} of type {type(record.answer).__name__}.")
        _meta_or_none(record.meta, record.where, names["meta"])
        if record.id is not None and (not isinstance(record.id, str) or not record.id):
            raise EvalframeError(f"{record.where}: the query's id must be a non-empty string; got "
                                 f"{short_repr(record.id, 60)}.")
    _refuse_repeated_queries(records, key_hint)
    has_documents = any(record.retrieved is not None for record in records)
    has_answers = any(record.answer is not None for record in records)
    if not has_documents and not has_answers:
        raise EvalframeError(f"{source} holds neither retrieved documents ({names['retrieved']}) nor answers "
                             f"({names['answer']}) of any query; there is nothing to evaluate.")
    if has_documents and has_answers and retriever == generator:
        raise InvalidParameterError(f"retriever and generator must name two nodes; both are {retriever!r}.",
                                    parameter="generator")
    nodes = ([retriever] if has_documents else []) + ([generator] if has_answers else [])
    if score_node is None:
        score_node = generator if has_answers else retriever
    elif score_node not in nodes:
        raise InvalidParameterError(f"score_node must be one of the nodes built, {nodes}; got {score_node!r}.",
                                    parameter="score_node")

    gold = [_gold_labels(record, index, names) for index, record in enumerate(records)]
    read = [_documents(record, names) for record in records]
    documents = [docs for docs, _ in read]
    idless = [positions for _, positions in read]
    scores = _score_values(records, names)
    if score_measures:
        unknown = [name for name in score_measures if name not in scores]
        if unknown:
            raise InvalidParameterError(
                f"score_measures declares {unknown[0]!r}, which is no score of the source; its scores are "
                f"{list(scores)}.{did_you_mean(unknown[0], list(scores))}", parameter="score_measures")
    # a record without gold: refused (left out, it would move every mean), or left out and recorded
    unlabelled = [index for index, labels in enumerate(gold) if not labels]
    if unlabelled and on_invalid == "raise":
        record = records[unlabelled[0]]
        more = f" ({len(unlabelled):,} records have none)" if len(unlabelled) > 1 else ""
        raise EvalframeError(
            f"{record.where} has no label: no {names['gold_ids']}, {names['gold_contexts']} or {names['gold_answers']}"
            f"{more}. A query without gold cannot be scored, and leaving it out changes every mean. Give its gold (an "
            f"empty {names['gold_answers']} marks a no-answer question), or pass on_invalid='skip' (--skip-invalid) "
            "to leave such queries out; the result then records them (result.skipped) and its reports say so.")
    skipped = tuple(Skipped(records[index].where, NO_LABEL) for index in unlabelled)
    if unlabelled:
        if len(unlabelled) == len(records):
            raise EvalframeError(f"no record of {source} has a label ({names['gold_ids']}, {names['gold_contexts']} "
                                 f"or {names['gold_answers']}); there is nothing to score.")
        kept = [index for index, labels in enumerate(gold) if labels]
        records, gold, documents = [records[i] for i in kept], [gold[i] for i in kept], [documents[i] for i in kept]
        idless = [idless[i] for i in kept]
        scores = {name: [values[i] for i in kept] for name, values in scores.items()}
    # built here once (the builder and the scores' attachment take them as they are, not rebuilding them each)
    labels = [MultiLabel(entry, id=record.id) for entry, record in zip(gold, records)]
    documents = _without_repeats(records, documents, names, duplicates, matching.get("custom_document_id_field"))
    _warn_idless(records, names, idless)
    outputs: dict[str, dict[str, list[list[Any]]]] = {}
    if has_documents:
        outputs[retriever] = {"documents": documents}
    if has_answers:
        outputs[generator] = {"answers": [
            [] if record.answer is None else
            [Answer(answer=record.answer, type="generative", document_ids=[d.id for d in docs] if docs else None)]
            for record, docs in zip(records, documents)]}
    extra: dict[str, Any] = {}
    if any(record.meta is not None for record in records):
        extra["meta"] = [None if record.meta is None else dict(record.meta) for record in records]
    if scores:
        extra["scores"] = {score_node: scores}
        if score_measures is not None:
            extra["score_measures"] = score_measures
    if skipped:
        extra["skipped"] = skipped
    keep_scores = any(d.score is not None for docs in documents for d in docs)
    # each entry named by its record (file:line, row N, inputs[i]) in every message, handed in, never rewritten
    return assemble(labels, outputs, sas_model=sas_model, progress=progress, keep_scores=keep_scores,
                    names=[record.where for record in records], **extra, **matching)
