"""Pipeline runs -> one DataFrame per node (``docs/runs-format.md``), as Haystack 1.x's ``Pipeline.eval`` built them.

``flatten(labels, node_outputs)`` validates everything first (errors name node, query index and
field; nothing is half-built), collects the rows column by column, scores every distinct
(gold context, candidate) pair once in a batch (:func:`evalframe.sources.matching.context_similarities`),
calls a SAS model once for the whole build, then derives the match columns.
"""

from __future__ import annotations

import json
import numbers
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import _progress
from .._validation import check_build_options, did_you_mean, short_repr
from ..columns import COLUMN_ORDER, LIST_COLUMNS
from ..errors import EvalframeError, InvalidParameterError, warn
from ..options import MatchingOptions
from .matching import AnswerMatcher, context_similarities
from .sas import resolve_sas_model
from ..schema import Answer, Document, Label, MultiLabel, Span, TableCell, offset_to_dict

__all__ = ["OUTPUT_KEYS", "EntryNames", "NUMBERED", "flatten", "multilabel_ids", "entry_scores", "unlabelled_entries",
           "as_answer", "as_document", "IdlessDocuments", "idless_positions", "numbered_per_query",
           "warn_idless_documents"]

#: What a node may return per query; the ``*_isolated`` outputs are evaluated in isolated mode.
OUTPUT_KEYS: tuple[str, ...] = ("answers", "answers_isolated", "documents", "documents_isolated")
_FLOAT_COLUMNS = frozenset(
    c for c in COLUMN_ORDER
    if (c.startswith(("exact_match", "f1", "sas")) or c.endswith("_match")) and c not in LIST_COLUMNS
)


@dataclass(frozen=True)
class EntryNames:
    """How messages name each entry of ``labels`` (and its query and meta): ``labels[i]``, ``query i`` and
    ``meta[i]`` by default; ``given``: one name per entry (a runs file's ``file:line``, a source's ``row 3``), which
    then names the entry, its query and its meta alike (the message holds the name, never a number rewritten later).

    Examples
    --------
    >>> EntryNames().label(2), EntryNames().query(2), EntryNames().meta(2)
    ('labels[2]', 'query 2', 'meta[2]')
    >>> named = EntryNames(("runs.jsonl:1", "runs.jsonl:3"))
    >>> named.label(1), named.query(1), named.meta(1)
    ('runs.jsonl:3', 'runs.jsonl:3', 'runs.jsonl:3, meta')
    """

    given: Sequence[str] | None = None

    def label(self, index: int) -> str:
        """The entry ``index`` of ``labels``."""
        return f"labels[{index}]" if self.given is None else self.given[index]

    def query(self, index: int) -> str:
        """The query of entry ``index``, where node outputs are named."""
        return f"query {index}" if self.given is None else self.given[index]

    def meta(self, index: int) -> str:
        """The entry ``index`` of ``meta=``."""
        return f"meta[{index}]" if self.given is None else f"{self.given[index]}, meta"

    def own_meta(self, index: int) -> str:
        """The meta a MultiLabel carries itself."""
        return f"{self.label(index)}: meta"

    def checked(self, count: int) -> EntryNames:
        """These names, checked to name ``count`` entries (``names=`` of a builder: one text per entry)."""
        if self.given is None:
            return self
        given = self.given
        if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Sequence) or len(given) != count \
                or not all(isinstance(name, str) and name for name in given):
            raise InvalidParameterError(f"names must be a list with one non-empty text per entry of labels ({count}); "
                                        f"got {short_repr(given)}.", parameter="names")
        return self


#: The default names: ``labels[i]``, ``query i``, ``meta[i]``.
NUMBERED = EntryNames()


# ------------------------------------------------------------------------------------ validation
def _as_multilabel(item: Any, index: int, names: EntryNames = NUMBERED) -> MultiLabel | None:
    if item is None:
        return None
    if isinstance(item, MultiLabel):
        return item
    if isinstance(item, Label):
        return MultiLabel([item])
    if isinstance(item, Mapping) and "labels" in item:
        if not item["labels"]:
            return None
        found = _as_multilabel(list(item["labels"]), index, names)
        if found is None or item.get("meta") is None:
            return found
        try:
            return MultiLabel(found.labels, meta=item["meta"])
        except EvalframeError as exc:
            raise EvalframeError(f"{names.label(index)}: {exc}") from None
    if isinstance(item, (list, tuple)):
        if not item:
            return None
        try:
            return MultiLabel([lab if isinstance(lab, Label) else Label.from_dict(lab) for lab in item])
        except EvalframeError as exc:
            raise EvalframeError(f"{names.label(index)}: {exc}") from None
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a Label dict with fields of the wrong kind
            raise EvalframeError(f"{names.label(index)}: expected Label objects or Label dicts ({exc}).") from None
    raise EvalframeError(
        f"{names.label(index)} must be a MultiLabel, a Label, a list of Labels / Label dicts, or a MultiLabel dict; "
        f"got {type(item).__name__}."
    )


def as_document(item: Any, where: str) -> Document:
    if isinstance(item, Document):
        return item
    if isinstance(item, Mapping):
        if item.get("content") is None:
            raise EvalframeError(f"{where} has no content; every document needs its text (or '' for an empty one).")
        try:
            return Document.from_dict(dict(item))
        except EvalframeError as exc:
            raise EvalframeError(f"{where}: {exc}") from None
        except (TypeError, ValueError, AttributeError) as exc:  # e.g. 'meta' that is not an object
            raise EvalframeError(f"{where} is not a valid Document dict ({exc}); see docs/runs-format.md.") from None
    raise EvalframeError(f"{where} must be a Document or a Document dict; got {type(item).__name__}.")


def as_answer(item: Any, where: str) -> Answer:
    if isinstance(item, Mapping):
        try:
            item = Answer.from_dict(dict(item))
        except (TypeError, ValueError, AttributeError) as exc:  # EvalframeError is a ValueError too
            raise EvalframeError(f"{where}: {exc}") from None
    if not isinstance(item, Answer):
        raise EvalframeError(f"{where} must be an Answer or an Answer dict; got {type(item).__name__}.")
    if not isinstance(item.answer, str):
        raise EvalframeError(f"{where}: field 'answer' must be a string ('' for no answer); got {item.answer!r}.")
    if item.document_ids is not None and not isinstance(item.document_ids, (list, tuple)):
        raise EvalframeError(
            f"{where}: field 'document_ids' must be a list of ids (or None); got {item.document_ids!r}. "
            "Wrap a single id in a list."
        )
    for field_name in ("offsets_in_document", "offsets_in_context"):
        offsets = getattr(item, field_name)
        if offsets is None:
            continue
        if not isinstance(offsets, (list, tuple)) or not all(isinstance(o, (Span, TableCell, dict)) for o in offsets):
            raise EvalframeError(
                f"{where}: field {field_name!r} must be a list of spans {{'start': int, 'end': int}} or table cells "
                f"{{'row': int, 'col': int}} (or None); got {offsets!r:.80}."
            )
    return item


@dataclass
class IdlessDocuments:
    """Retrieved documents given without an ``id`` (or with ``""``): how many of how many, where the first one is, and
    whether the gold labels name documents by ids of their own (only then is there something to say)."""

    count: int = 0
    total: int = 0
    first: str = ""
    gold_ids: bool = False

    def add(self, total: int, missing: list[int], where: Callable[[int], str]) -> None:
        """Count a list of ``total`` documents whose positions ``missing`` have no id; ``where(j)`` names one."""
        if missing and not self.count:
            self.first = where(missing[0])
        self.count += len(missing)
        self.total += total

    def merge(self, other: IdlessDocuments) -> None:
        """Add the counts of a later part (a shard of runs files): the first document stays the earliest one."""
        if other.count and not self.count:
            self.first = other.first
        self.count += other.count
        self.total += other.total
        self.gold_ids = self.gold_ids or other.gold_ids


def gold_ids_are_given(labels: Sequence[MultiLabel | None]) -> bool:
    """Whether some gold document's id is not the content hash a document without an id gets (so it can never match).

    Gold labels without ids (contexts only) get the same content hashes as retrieved documents without ids: then the
    document_id scopes compare texts, and nothing needs saying.
    """
    for ml in labels:
        for label in ml.labels if ml is not None else ():
            document = label.document
            if document.id and isinstance(document.content, str) and document.id != Document(document.content).id:
                return True
    return False


def warn_idless_documents(idless: IdlessDocuments) -> None:
    """One warning for all retrieved documents without an id, when the gold labels name documents by given ids."""
    if not idless.count or not idless.gold_ids:
        return
    warn(f"{idless.count:,} of {idless.total:,} retrieved documents have no 'id' or an empty one (the first: "
         f"{idless.first}); one without an id gets the hash of its content as id, one with '' keeps it, and neither "
         "equals a gold document id given in the labels, so the "
         "document_id scopes (document_scope 'document_id', 'document_id_and_context' and the id part of "
         "'document_id_or_context' / 'document_id_or_answer', the default) count them as not relevant: document_id "
         "metrics come out too low. Give every document its id (the id the gold labels use), or score with a "
         "context scope (document_scope='context'; --document-scope context on the command line).")


def idless_positions(items: Sequence[Any]) -> list[int]:
    """Positions of the Document dicts in ``items`` without an id or with ``""`` (a Document object always has one)."""
    return [j for j, item in enumerate(items) if isinstance(item, Mapping) and item.get("id") in (None, "")]


def _plain_document(item: Any) -> bool:
    """Whether :func:`as_document` gives ``item`` back as it is (a Document)."""
    return isinstance(item, Document)


def _plain_answer(item: Any) -> bool:
    """Whether :func:`as_answer` gives ``item`` back as it is: an Answer with a text, its ``document_ids`` a list (or
    None) and no offsets (offsets are checked there)."""
    return (isinstance(item, Answer) and isinstance(item.answer, str) and item.offsets_in_document is None
            and item.offsets_in_context is None
            and (item.document_ids is None or isinstance(item.document_ids, (list, tuple))))


def _validate_outputs(node_outputs: Any, n_labels: int, idless: IdlessDocuments | None = None,
                      names: EntryNames = NUMBERED) -> dict[str, dict[str, list[list[Any]]]]:
    if not isinstance(node_outputs, Mapping):
        raise EvalframeError(
            f"node_outputs must map node names to their outputs, e.g. {{'Retriever': {{'documents': [...]}}}}; "
            f"got {type(node_outputs).__name__}."
        )
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for node, outputs in node_outputs.items():
        if not isinstance(node, str) or not node:
            raise EvalframeError(f"node names must be non-empty strings; got {node!r}.")
        if not isinstance(outputs, Mapping):
            raise EvalframeError(
                f"node {node!r}: outputs must be a dict with keys {list(OUTPUT_KEYS)}; got {type(outputs).__name__}.")
        unknown = [k for k in outputs if k not in OUTPUT_KEYS]
        if unknown:
            raise EvalframeError(
                f"node {node!r}: unknown output key {unknown[0]!r}; valid keys are {list(OUTPUT_KEYS)}."
                f"{did_you_mean(unknown[0], OUTPUT_KEYS)}"
            )
        out[node] = {}
        for key, per_query in outputs.items():
            if per_query is None:
                continue
            if not isinstance(per_query, Sequence) or isinstance(per_query, (str, bytes)):
                raise EvalframeError(f"node {node!r}, {key!r}: expected one list per label; got {type(per_query).__name__}.")
            if len(per_query) != n_labels:
                raise EvalframeError(
                    f"node {node!r}, {key!r} holds {len(per_query)} entries but there are {n_labels} labels; "
                    "give one list per label, in label order."
                )
            convert = as_answer if key.startswith("answers") else as_document
            kind = "answer" if key.startswith("answers") else "document"
            lists = []
            ready = _plain_document if kind == "document" else _plain_answer
            for index, items in enumerate(per_query):
                if not isinstance(items, (list, tuple)):
                    raise EvalframeError(
                        f"node {node!r}, {key!r}, {names.query(index)}: expected a list of {kind}s; got "
                        f"{type(items).__name__}."
                    )
                if all(map(ready, items)):  # what convert gives back as it is, without naming each item
                    lists.append(list(items))
                    continue
                lists.append([convert(item, f"node {node!r}, {key!r}, {names.query(index)}, {kind} {j}")
                              for j, item in enumerate(items)])
                if idless is not None and kind == "document":
                    idless.add(len(items), idless_positions(items),
                               lambda j: f"node {node!r}, {key!r}, {names.query(index)}, document {j}")  # noqa: B023
            out[node][key] = lists
    return out


# ------------------------------------------------------------------------------------ building
@dataclass
class _Rows:
    """Column-wise rows of one type (answers or documents) of one node, one output (a block) of all queries at a time.

    A column that a later block brings (``prompt``, ``meta``) is None on the rows before; ``keys`` counts the outputs
    added, whose rows are then put in (query, output, rank) order when the frame is made.
    """

    columns: dict[str, list[Any]] = field(default_factory=dict)
    position: list[np.ndarray] = field(default_factory=list)  # per block, each row's query position
    block: list[np.ndarray] = field(default_factory=list)
    rank: list[np.ndarray] = field(default_factory=list)
    rows: int = 0

    def extend(self, position: np.ndarray, block: int, rank: np.ndarray, columns: dict[str, list[Any]]) -> None:
        """Add the rows of one output of every query, each column a list with one value per row."""
        n, added = self.rows, len(position)
        for name, values in columns.items():
            column = self.columns.get(name)
            if column is None:
                column = self.columns[name] = [None] * n
            column.extend(values)
        for column in self.columns.values():
            if len(column) == n:
                column.extend([None] * added)
        self.position.append(position)
        self.block.append(np.full(added, block, dtype=np.int64))
        self.rank.append(rank)
        self.rows += added


@dataclass
class _Pairs:
    """Requests for batch scoring; each list cell is filled once the batch is scored."""

    similarity: list[tuple[str, str]] = field(default_factory=list)
    sas: list[tuple[str, str]] = field(default_factory=list)
    answers: AnswerMatcher = field(default_factory=AnswerMatcher)  # exact_match / f1, each text normalised once


def _scoped(values: list[float], similarities: list[float], id_matches: list[float],
            threshold: float) -> tuple[float, float, float]:
    """Best value where the gold context matched / the gold id matched / both (0.0 when none)."""
    context = [v for v, s in zip(values + [0.0], similarities + [100]) if s > threshold]
    document = [v for v, d in zip(values + [0.0], id_matches + [1.0]) if d == 1.0]
    both = [v for v, s, d in zip(values + [0.0], similarities + [100], id_matches + [1.0]) if s > threshold and d == 1.0]
    return max(context, default=0.0), max(document, default=0.0), max(both, default=0.0)


@dataclass
class _Query:
    position: int
    label: MultiLabel
    filters: str | None
    gold_custom_ids: list[Any]
    meta: str | None = None  # the JSON text of the query's meta
    name: str = ""  # how messages about its node outputs name it (EntryNames.query)


def _meta_texts(meta: Any, multilabels: Sequence[MultiLabel | None], names: EntryNames = NUMBERED
                ) -> list[str | None]:
    """Each entry's meta as JSON text with sorted keys (None without meta): ``meta[i]`` when ``meta`` is given, else
    the MultiLabel's own (a runs file line's ``"meta"``)."""
    if meta is None:
        given: Sequence[Any] = [None if ml is None else ml.meta for ml in multilabels]
        where = names.own_meta
    else:
        if isinstance(meta, (str, bytes, Mapping)) or not isinstance(meta, Sequence):
            raise InvalidParameterError(f"meta must be a list with one dict (or None) per entry of labels; got "
                                        f"{type(meta).__name__}.", parameter="meta")
        if len(meta) != len(multilabels):
            raise InvalidParameterError(f"meta holds {len(meta)} entries but there are {len(multilabels)} labels; "
                                        "give one dict (or None) per label entry, in label order.", parameter="meta")
        given, where = meta, names.meta
    texts: list[str | None] = []
    for index, value in enumerate(given):
        if value is None:
            texts.append(None)
            continue
        if not isinstance(value, Mapping):
            raise InvalidParameterError(f"{where(index)} must be a dict (a JSON object) or None; got "
                                        f"{type(value).__name__} {short_repr(value)}.", parameter="meta")
        try:
            texts.append(json.dumps(dict(value), sort_keys=True))
        except RecursionError:
            raise InvalidParameterError(f"{where(index)} is nested too deeply to write as JSON (Python writes "
                                        f"at most about {sys.getrecursionlimit():,} levels); flatten it.",
                                        parameter="meta") from None
        except (TypeError, ValueError) as exc:  # a value JSON cannot hold, keys of mixed types, a cycle
            raise InvalidParameterError(f"{where(index)} must be JSON data (dicts with string keys, lists, "
                                        f"strings, numbers, booleans, None): {exc}.", parameter="meta") from None
    return texts


def _check_one_gold_per_id(golds: dict[str, tuple[int, tuple[Any, ...]]], position: int, ml: MultiLabel,
                           gold_custom: list[Any], meta: str | None = None, names: EntryNames = NUMBERED) -> None:
    """Refuse a second entry of one multilabel_id (query text and filters) with other gold lists or another meta.

    The metrics score one query per multilabel_id against its first row's gold lists: the rows of the two entries
    would be scored against one of them (a recall above 1, docs/metrics.md#per-query). Entries with the same gold
    lists are one query whose outputs come in parts (as sharded runs files may give them). The meta is the query's
    (one value on all its rows, not part of multilabel_id): two entries with different meta are refused too.
    """
    gold = (ml.document_ids, ml.contexts, ml.answers, gold_custom, meta)
    first = golds.setdefault(ml.id, (position, gold))
    if first[0] == position:
        return
    def text(lists: tuple[Any, ...]) -> str:  # NaN equals NaN here, and any custom id compares
        return json.dumps(lists, sort_keys=True, default=repr)

    if text(first[1][:4]) != text(gold[:4]):
        raise EvalframeError(
            f"{names.label(first[0])} and {names.label(position)} are one query (multilabel_id {ml.id!r}: the query "
            f"{short_repr(ml.query)} with the same filters) with different gold labels (gold document ids "
            f"{short_repr(first[1][0])} and {short_repr(gold[0])}); the metrics score one query per multilabel_id. "
            "Put all their labels into one entry (as Haystack's aggregate_labels does), or tell the queries apart by "
            "their filters."
        )
    if first[1][4] != meta:
        raise EvalframeError(
            f"{names.label(first[0])} and {names.label(position)} are one query (multilabel_id {ml.id!r}: the query "
            f"{short_repr(ml.query)} with the same filters) with different meta ({short_repr(first[1][4])} and "
            f"{short_repr(meta)}); meta belongs to the query and is not part of its multilabel_id. Give both entries "
            "the same meta, put their labels into one entry, or tell the queries apart by their filters."
        )


def _offsets(offsets: Any) -> Any:
    if offsets is None:
        return None
    return [offset_to_dict(o) if not isinstance(o, dict) else o for o in offsets]


def _query_columns(queries: list[_Query], sizes: np.ndarray, node: str, block: int) -> dict[str, list[Any]]:
    """The columns every row of a query has (Haystack 1.x's), repeated over each query's ``sizes`` rows."""
    def repeated(values: list[Any]) -> list[Any]:
        return [value for value, size in zip(values, sizes.tolist()) for _ in range(size)]

    total = int(sizes.sum())
    columns: dict[str, list[Any]] = {
        "type": ["answer" if block < 2 else "document"] * total,
        "node": [node] * total,
        "multilabel_id": repeated([q.label.id for q in queries]),
        "query": repeated([q.label.query for q in queries]),
        "filters": repeated([q.filters for q in queries]),
        "eval_mode": ["isolated" if block % 2 else "integrated"] * total,
    }
    if any(q.meta is not None for q in queries):  # the column exists once some query has meta (None on the others')
        columns["meta"] = repeated([q.meta for q in queries])
    return columns


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """1, 2, ... within each of the consecutive groups of ``sizes`` rows."""
    total = int(sizes.sum())
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.arange(1, total + 1, dtype=np.int64) - starts


def _answer_block(rows: _Rows, pairs: _Pairs, queries: list[_Query], lists: list[list[Answer]], *, node: str,
                  block: int, custom_field: str | None, with_sas: bool) -> None:
    """The answer rows of one output (``answers`` or ``answers_isolated``) of every query, column by column."""
    blank = None
    given = []
    for answers in lists:
        if not answers:  # a query must not disappear from the frame
            if blank is None:
                blank = [Answer(answer="", offsets_in_document=[Span(0, 0)], offsets_in_context=[Span(0, 0)])]
            answers = blank
        given.append(answers)
    sizes = np.fromiter(map(len, given), dtype=np.int64, count=len(given))
    flat = [answer for answers in given for answer in answers]
    owner = [q for q, answers in zip(queries, given) for _ in answers]
    generative = [any(a.type == "generative" for a in answers) for answers in given]
    similarity = pairs.similarity
    spans = []
    for q, answer in zip(owner, flat):
        context = answer.context
        candidate = str(context) if context is not None else ""
        start = len(similarity)
        similarity.extend((str(gold), candidate) for gold in q.label.contexts)
        spans.append((start, len(similarity)))
    matched = [pairs.answers.scores(q.label.answers, answer.answer) for q, answer in zip(owner, flat)]
    if custom_field is None:
        id_match = []
        for q, answer in zip(owner, flat):
            ids = answer.document_ids or []
            id_match.append([1.0 if gold in ids else 0.0 for gold in q.label.document_ids])
    else:
        custom = [[meta.get(custom_field, "") for meta in (answer.meta or {}).get("doc_metas", [answer.meta])]
                  for answer in flat]
        id_match = [[1.0 if gold in ids else 0.0 for gold in q.gold_custom_ids] for q, ids in zip(owner, custom)]
    columns: dict[str, list[Any]] = {
        "answer": [answer.answer for answer in flat],
        "document_ids": [answer.document_ids for answer in flat],
        "offsets_in_document": [_offsets(answer.offsets_in_document) for answer in flat],
        "offsets_in_context": [_offsets(answer.offsets_in_context) for answer in flat],
        "context": [answer.context for answer in flat],
        "rank": [],  # set below (its place among the columns kept)
        "gold_answers": [q.label.answers for q in owner],
        "gold_offsets_in_documents": [q.label.offsets_in_documents for q in owner],
        "gold_offsets_in_contexts": [q.label.offsets_in_contexts for q in owner],
        "gold_document_ids": [q.label.document_ids for q in owner],
        "gold_contexts": [q.label.contexts for q in owner],
        "gold_answers_exact_match": [exact for exact, _ in matched],
        "gold_answers_f1": [overlap for _, overlap in matched],
        "gold_contexts_similarity": spans,  # filled after batch scoring
        "gold_documents_id_match": id_match,
    }
    rank = _ranks(sizes)
    columns["rank"] = rank.tolist()
    if any(generative):  # the column exists once some query's answers are generative (None on the others')
        columns["prompt"] = [(answer.meta or {}).get("prompt") if g else None
                             for answer, g in zip(flat, (g for g, size in zip(generative, sizes.tolist())
                                                         for _ in range(size)))]
    if custom_field is not None:
        columns["gold_custom_document_ids"] = [q.gold_custom_ids for q in owner]
        columns["custom_document_ids"] = custom
    if with_sas:
        sas_spans = []
        for q, answer in zip(owner, flat):
            sas_start = len(pairs.sas)
            pairs.sas.extend((answer.answer, gold) for gold in q.label.answers)
            sas_spans.append((sas_start, len(pairs.sas)))
        columns["gold_answers_sas"] = sas_spans
    columns.update(_query_columns(queries, sizes, node, block))
    position = np.repeat(np.fromiter((q.position for q in queries), dtype=np.int64, count=len(queries)), sizes)
    rows.extend(position, block, rank, columns)


def _document_block(rows: _Rows, pairs: _Pairs, queries: list[_Query], lists: list[list[Document]], *, node: str,
                    block: int, custom_field: str | None, keep_scores: bool = False) -> None:
    """The document rows of one output (``documents`` or ``documents_isolated``) of every query, column by column."""
    blank = None
    given = []
    for documents in lists:
        if not documents:
            if blank is None:
                blank = [Document(content="", id="")]
            documents = blank
        given.append(documents)
    sizes = np.fromiter(map(len, given), dtype=np.int64, count=len(given))
    flat = [document for documents in given for document in documents]
    owner = [i for i, documents in enumerate(given) for _ in documents]
    gold_ids = [q.label.document_ids for q in queries]
    gold_contexts = [q.label.contexts for q in queries]
    gold_answers = [q.label.answers for q in queries]
    contents = [document.content for document in flat]
    texts = [content if isinstance(content, str) else str(content) for content in contents]
    similarity = pairs.similarity
    spans = []
    for i, text in zip(owner, texts):
        start = len(similarity)
        similarity.extend([(gold, text) for gold in gold_contexts[i]])
        spans.append((start, len(similarity)))
    ids = [document.id for document in flat]
    if custom_field is None:
        keys, gold_keys = ids, [gold_ids[i] for i in owner]
    else:
        keys = [document.meta.get(custom_field, "") for document in flat]
        gold_keys = [queries[i].gold_custom_ids for i in owner]
    rank = _ranks(sizes)
    columns: dict[str, list[Any]] = {
        "context": contents,
        "document_id": ids,
        "gold_document_ids": [gold_ids[i] for i in owner],
        "gold_answers": [gold_answers[i] for i in owner],
        "gold_contexts": [gold_contexts[i] for i in owner],
        "gold_contexts_similarity": spans,
        "gold_documents_id_match": [[1.0 if key == gold else 0.0 for gold in golds] for key, golds in zip(keys, gold_keys)],
        "gold_answers_match": [[1.0 if gold != "" and gold in text else 0.0 for gold in gold_answers[i]]
                               for i, text in zip(owner, texts)],
        "rank": rank.tolist(),
    }
    if custom_field is not None:
        columns["gold_custom_document_ids"] = gold_keys
        columns["custom_document_id"] = keys
    if keep_scores:
        columns["score"] = [document.score for document in flat]
    columns.update(_query_columns(queries, sizes, node, block))
    position = np.repeat(np.fromiter((q.position for q in queries), dtype=np.int64, count=len(queries)), sizes)
    rows.extend(position, block, rank, columns)


def _check_scores(queries: list[_Query], outputs: Mapping[str, Mapping[str, list[list[Any]]]]) -> None:
    """keep_scores: every Document.score a real number or None, the first bad one named (query, node, output)."""
    for q in queries:
        for node, node_output in outputs.items():
            for block, key in enumerate(OUTPUT_KEYS):
                if block < 2 or key not in node_output:
                    continue
                for j, document in enumerate(node_output[key][q.position]):
                    _check_score(document.score, f"node {node!r}, {key!r}, {q.name}, document {j}")


def _check_score(score: Any, where: str) -> None:
    """keep_scores: a Document.score must be a real number or None (NaN in the ``score`` column)."""
    if score is not None and (isinstance(score, (bool, np.bool_)) or not isinstance(score, numbers.Real)):
        raise EvalframeError(f"{where}: field 'score' must be a number or None to keep it (keep_scores=True); "
                             f"got {score!r:.60}.")


def _fill(rows: _Rows, column: str, scores: list[float]) -> None:
    cells = rows.columns.get(column)
    if cells is not None:
        rows.columns[column] = [scores[a:b] for a, b in cells]


def _by_widths(*columns: list[list[Any]]) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """The rows grouped by the lengths of their lists in ``columns`` (one list per row in each): per group, its row
    numbers and each column's lists of those rows as one float64 array (rows x length)."""
    n = len(columns[0])
    widths = np.column_stack([np.fromiter(map(len, column), dtype=np.int64, count=n) for column in columns]) \
        if n else np.zeros((0, len(columns)), dtype=np.int64)
    if not n:
        return []
    distinct, group = np.unique(widths, axis=0, return_inverse=True)
    group = group.reshape(-1)
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(distinct) + 1))
    out = []
    for g in range(len(distinct)):
        rows = order[bounds[g]:bounds[g + 1]]
        picked = rows.tolist()
        arrays = []
        for column, width in zip(columns, distinct[g].tolist()):
            values = [column[i] for i in picked]
            arrays.append(np.array(values, dtype=np.float64).reshape(len(picked), width))
        out.append((rows, arrays))
    return out


def _masked_max(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per row, the largest of ``values`` where ``keep`` (0.0 where none is kept), as ``max([...], default=0.0)``."""
    if values.shape[1] == 0:
        return np.zeros(len(values))
    best = np.where(keep, values, -np.inf).max(axis=1)
    return np.where(keep.any(axis=1), best, 0.0)


def _derive_answer_columns(rows: _Rows, threshold: float, with_sas: bool) -> None:
    """The best value per answer row of each metric, overall and in the three scopes (:func:`_scoped`'s rule: each
    list with its sentinel, ``0.0`` / ``100`` / ``1.0``, paired by position as ``zip`` pairs them)."""
    c = rows.columns
    metrics = [("exact_match", "gold_answers_exact_match"), ("f1", "gold_answers_f1")]
    if with_sas:
        metrics.append(("sas", "gold_answers_sas"))
    n = rows.rows
    for metric, per_gold in metrics:
        best, context, document, both = (np.zeros(n) for _ in range(4))
        groups = _by_widths(c[per_gold], c["gold_contexts_similarity"], c["gold_documents_id_match"])
        if any(np.isnan(arrays[0]).any() for _, arrays in groups):  # NaN: Python's max, order and all
            scoped = [_scoped(values, sims, ids, threshold) for values, sims, ids in
                      zip(c[per_gold], c["gold_contexts_similarity"], c["gold_documents_id_match"])]
            c[metric] = [max(values + [0.0]) for values in c[per_gold]]
            c[f"{metric}_context_scope"] = [s[0] for s in scoped]
            c[f"{metric}_document_id_scope"] = [s[1] for s in scoped]
            c[f"{metric}_document_id_and_context_scope"] = [s[2] for s in scoped]
            continue
        for at, (values, sims, ids) in groups:
            k = len(at)
            values = np.column_stack([values, np.zeros(k)])
            sims = np.column_stack([sims, np.full(k, 100.0)])
            ids = np.column_stack([ids, np.ones(k)])
            best[at] = values.max(axis=1)
            w = min(values.shape[1], sims.shape[1])
            context[at] = _masked_max(values[:, :w], sims[:, :w] > threshold)
            w = min(values.shape[1], ids.shape[1])
            document[at] = _masked_max(values[:, :w], ids[:, :w] == 1.0)
            w = min(values.shape[1], sims.shape[1], ids.shape[1])
            both[at] = _masked_max(values[:, :w], (sims[:, :w] > threshold) & (ids[:, :w] == 1.0))
        c[metric] = best  # type: ignore[assignment]
        c[f"{metric}_context_scope"] = context  # type: ignore[assignment]
        c[f"{metric}_document_id_scope"] = document  # type: ignore[assignment]
        c[f"{metric}_document_id_and_context_scope"] = both  # type: ignore[assignment]


def _best_of_both(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, ``max(min(x, y) for x, y in zip(a_row + [0.0], b_row + [0.0]))``: zip stops at the shorter list."""
    k = min(a.shape[1], b.shape[1])
    if k == 0:
        return np.zeros(len(a))
    return np.maximum(np.minimum(a[:, :k], b[:, :k]).max(axis=1), 0.0)


def _derive_document_columns(rows: _Rows, threshold: float) -> None:
    """The 0/1 match columns of document rows, the rows of equal gold list lengths at a time."""
    c = rows.columns
    names = ("gold_id_match", "context_match", "answer_match", "gold_id_or_answer_match", "gold_id_and_answer_match",
             "gold_id_or_context_match", "gold_id_and_context_match", "gold_id_and_context_and_answer_match",
             "context_and_answer_match")
    out = {name: np.zeros(rows.rows) for name in names}
    for at, (ids, sims, answers) in _by_widths(c["gold_documents_id_match"], c["gold_contexts_similarity"],
                                               c["gold_answers_match"]):
        n = len(at)
        ctx = (sims > threshold).astype(np.float64)
        gold_id = ids.max(axis=1, initial=0.0)
        answer = answers.max(axis=1, initial=0.0)
        context = ctx.max(axis=1, initial=0.0)
        triple = min(ids.shape[1], ctx.shape[1], answers.shape[1])
        id_context_answer = (np.maximum(np.minimum(np.minimum(ids[:, :triple], ctx[:, :triple]),
                                                   answers[:, :triple]).max(axis=1), 0.0)
                             if triple else np.zeros(n))
        # no sentinel here: 0.0 unless some gold answer occurs and some similarity is not 0
        both = answers.any(axis=1) & sims.any(axis=1)
        context_and_answer = np.where(both, _best_of_both(ctx, answers) if both.any() else 0.0, 0.0)
        for name, values in zip(names, (gold_id, context, answer, np.maximum(gold_id, answer),
                                        _best_of_both(ids, answers), np.maximum(gold_id, context),
                                        _best_of_both(ids, ctx), id_context_answer, context_and_answer)):
            out[name][at] = values
    for name in names:
        c[name] = out[name]  # type: ignore[assignment]


def _frame(rows: _Rows) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows' frame, and each row's sort key (query position, output, rank) as one structured array."""
    columns = {}
    for name, values in rows.columns.items():
        if name == "rank":
            columns[name] = pd.Series(values, dtype=np.int64)
        elif name in _FLOAT_COLUMNS or name == "score":  # score: only with keep_scores, None -> NaN
            columns[name] = pd.Series(values, dtype=np.float64)
        else:
            columns[name] = pd.Series(values, dtype=object)
    frame = pd.DataFrame(columns)
    position, block, rank = (np.concatenate(parts) for parts in (rows.position, rows.block, rows.rank))
    return frame, np.column_stack([position, block, rank])


def numbered_per_query(query: np.ndarray) -> np.ndarray:
    """Haystack 1.x's ``index`` column: each row's number among its query's rows, from 0 (rows grouped by query).

    ``Pipeline.eval`` builds one frame per query and node and ends with ``reset_index()``, so the numbering restarts
    at every query (an entry of ``labels``) and runs over its answer rows, then its document rows.
    """
    n = len(query)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    return np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, n]))


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    known = [c for c in COLUMN_ORDER if c in frame.columns]
    return frame[known + [c for c in frame.columns if c not in known]]


#: With a progress bar, the context pairs are scored in batches of this many (or 1/20 of them, if more).
SCORING_BATCH = 20_000


def _similarities(pairs: list[tuple[str, str]], matching: MatchingOptions, *, show: bool) -> list[float]:
    """:func:`context_similarities` of ``pairs``; with a bar, in batches (each pair's score is its own: same values)."""
    def score(batch: list[tuple[str, str]]) -> list[float]:
        return context_similarities(batch, min_length=matching.context_matching_min_length,
                                    boost_split_overlaps=matching.context_matching_boost_split_overlaps)

    if not show or not pairs:
        return score(pairs)
    size = max(SCORING_BATCH, -(-len(pairs) // 20))
    steps = _progress.Steps(show=show, desc="scoring contexts", total=len(pairs), unit="pair")
    scores: list[float] = []
    try:
        for start in range(0, len(pairs), size):
            scores += score(pairs[start:start + size])
            steps.update(min(size, len(pairs) - start))
    finally:
        steps.close()
    return scores


def multilabel_ids(labels: Sequence[Any]) -> list[str | None]:
    """The ``multilabel_id`` of each entry of ``labels`` (None for an entry without labels, which is left out)."""
    if isinstance(labels, (str, bytes, Mapping)) or not isinstance(labels, Sequence):
        raise EvalframeError(
            f"labels must be a list with one MultiLabel (or list of Labels) per query; got {type(labels).__name__}.")
    return [None if ml is None else ml.id for ml in (_as_multilabel(item, i) for i, item in enumerate(labels))]


def unlabelled_entries(labels: Sequence[Any]) -> list[int]:
    """The positions of the entries of ``labels`` without a label, which :func:`flatten` leaves out (None, an empty
    list, a MultiLabel dict with empty ``labels``), found without building a MultiLabel.

    Examples
    --------
    >>> unlabelled_entries([None, [], {"labels": []}, {"labels": [{"query": "q"}]}])
    [0, 1, 2]
    """
    return [index for index, item in enumerate(labels)
            if item is None or (isinstance(item, (list, tuple)) and not item)
            or (isinstance(item, Mapping) and "labels" in item and not item["labels"])]


def entry_scores(labels: Sequence[Any]) -> dict[str, dict[str, list[float | None]]]:
    """The MultiLabels' own scores (a runs file line's ``"scores"``) as ``{node: {name: [value per entry]}}``."""
    out: dict[str, dict[str, list[float | None]]] = {}
    for i, item in enumerate(labels):
        found = getattr(item, "scores", None) if isinstance(item, MultiLabel) else None
        for node, named in (found or {}).items():
            for name, value in named.items():
                named_values = out.setdefault(node, {})
                column = named_values.get(name)
                if column is None:  # (not setdefault: its default, a list of n, would be made for every value: n^2)
                    column = named_values[name] = [None] * len(labels)
                column[i] = value
    return out


def flatten(
    labels: Sequence[Any],
    node_outputs: Mapping[str, Mapping[str, Sequence[Sequence[Any]]]],
    *,
    matching: MatchingOptions | None = None,
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    keep_scores: bool = False,
    meta: Sequence[Mapping[str, Any] | None] | None = None,
    names: EntryNames = NUMBERED,
) -> dict[str, pd.DataFrame]:
    """Build the node frames (``docs/metrics.md#columns``; see :meth:`EvaluationResult.from_runs`).

    ``keep_scores``: document rows get a float64 ``score`` column, each Document's ``score`` (NaN where None).
    ``meta``: one dict (or None) per entry of ``labels``, kept as JSON text in a ``meta`` column on every row of the
    query; None takes each MultiLabel's own ``meta`` (a runs file line's). Without any, the frames have no such column.
    ``names``: how messages name each entry of ``labels`` (:class:`EntryNames`).
    """
    # the options first (matching is checked when made): a bad one found after scoring every pair would waste the build
    check_build_options(sas_model=sas_model)
    if not isinstance(keep_scores, (bool, np.bool_)):
        raise InvalidParameterError(f"keep_scores must be True or False; got {keep_scores!r}.")
    show = _progress.enabled(progress)  # checks it too
    matching = matching if matching is not None else MatchingOptions()
    custom_document_id_field = matching.custom_document_id_field
    if isinstance(labels, (str, bytes, Mapping)) or not isinstance(labels, Sequence):
        raise EvalframeError(
            f"labels must be a list with one MultiLabel (or list of Labels) per query; got {type(labels).__name__}.")
    names = names.checked(len(labels))
    multilabels = [_as_multilabel(item, i, names) for i, item in enumerate(labels)]
    metas = _meta_texts(meta, multilabels, names)
    idless = IdlessDocuments()
    outputs = _validate_outputs(node_outputs, len(multilabels), idless, names)
    idless.gold_ids = gold_ids_are_given(multilabels)
    warn_idless_documents(idless)
    sas = resolve_sas_model(sas_model)

    queries: list[_Query | None] = []
    golds: dict[str, tuple[int, tuple[Any, ...]]] = {}  # each multilabel_id's first entry, and its gold lists
    for position, ml in enumerate(multilabels):
        if ml is None:
            warn(f"{names.label(position)} has no label; the query is left out.")
            queries.append(None)
            continue
        gold_custom: list[Any] = []
        if custom_document_id_field is not None:
            for label in ml.labels:
                if not label.no_answer:
                    if custom_document_id_field not in label.document.meta:
                        raise EvalframeError(
                            f"custom_document_id_field {custom_document_id_field!r} is not a meta field of the "
                            f"document of label {label.id!r} ({names.label(position)}); its meta keys are "
                            f"{sorted(label.document.meta)}.", parameter="custom_document_id_field",
                        )
                    gold_custom.append(label.document.meta[custom_document_id_field])
        _check_one_gold_per_id(golds, position, ml, gold_custom, metas[position], names)
        filters = None if ml.filters is None else json.dumps(ml.filters, sort_keys=True)
        queries.append(_Query(position, ml, filters, gold_custom, metas[position], names.query(position)))

    pairs = _Pairs()
    built: dict[str, tuple[_Rows, _Rows]] = {}
    kept = [q for q in queries if q is not None]
    if keep_scores:  # in the order the rows were once built (query, node, output): the first bad score is named
        _check_scores(kept, outputs)
    steps = _progress.Steps(show=show, desc="building frames", total=len(queries), unit="query")
    try:
        if kept:
            for node, node_output in outputs.items():
                answer_rows, document_rows = built.setdefault(node, (_Rows(), _Rows()))
                for block, key in enumerate(OUTPUT_KEYS):
                    if key not in node_output:
                        continue
                    lists = [node_output[key][q.position] for q in kept]
                    if block < 2:
                        _answer_block(answer_rows, pairs, kept, lists, node=node, block=block,
                                      custom_field=custom_document_id_field, with_sas=sas is not None)
                    else:
                        _document_block(document_rows, pairs, kept, lists, node=node, block=block,
                                        custom_field=custom_document_id_field, keep_scores=bool(keep_scores))
        steps.update(len(queries))
    finally:
        steps.close()

    similarity = _similarities(pairs.similarity, matching, show=show)
    sas_scores = sas(pairs.sas) if sas is not None and pairs.sas else []
    frames = {}
    for node, (answer_rows, document_rows) in built.items():
        parts = []
        if answer_rows.rows:
            _fill(answer_rows, "gold_contexts_similarity", similarity)
            _fill(answer_rows, "gold_answers_sas", sas_scores)
            _derive_answer_columns(answer_rows, matching.context_matching_threshold, sas is not None)
            parts.append(_frame(answer_rows))
        if document_rows.rows:
            _fill(document_rows, "gold_contexts_similarity", similarity)
            _derive_document_columns(document_rows, matching.context_matching_threshold)
            parts.append(_frame(document_rows))
        if not parts:
            continue
        frame = parts[0][0] if len(parts) == 1 else pd.concat([part for part, _ in parts], ignore_index=True)
        keys = parts[0][1] if len(parts) == 1 else np.concatenate([key for _, key in parts])
        if len(parts) > 1 or len(answer_rows.position) > 1 or len(document_rows.position) > 1:
            # rows added output after output: in (query, output, rank) order, as Pipeline.eval gives them
            order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0]))
            frame, keys = frame.iloc[order].reset_index(drop=True), keys[order]
        frame["index"] = numbered_per_query(keys[:, 0])
        frames[node] = _ordered(frame)
    return frames
