"""Schema objects: Document, Span, TableCell, Answer, Label, MultiLabel (``docs/haystack-compat.md#schema-objects``).

Plain Python classes that carry pipeline inputs, outputs and gold labels. They hold no
evaluation logic. Their ``to_dict`` / ``from_dict`` formats are those of Haystack 1.x, so
Haystack dicts load unchanged, and generated document ids equal Haystack's for the same content.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import mmh3
import numpy as np
import pandas as pd

from .errors import EvalframeError

__all__ = ["Document", "Span", "TableCell", "Answer", "Label", "MultiLabel", "Skipped", "skipped_note"]

_HASHABLE_ATTRIBUTES = ("content", "content_type", "score", "meta", "embedding")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.DataFrame):
        return _table_to_rows(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _table_to_rows(table: pd.DataFrame) -> list[list[Any]]:
    return [table.columns.tolist()] + table.values.tolist()


def _rows_to_table(rows: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(columns=rows[0], data=rows[1:])


def _murmur_hex(key: str) -> str:
    # hashed as UTF-8 bytes, as mmh3 hashes a str (so ids equal Haystack's); a lone surrogate (JSON's "\ud800") is
    # kept by surrogatepass: mmh3 given such a str crashes the interpreter (it does not check the failed encoding)
    return "{:02x}".format(mmh3.hash128(key.encode("utf-8", "surrogatepass"), signed=False))


class Document:
    """A passage (or table) returned by a retriever, or the document a label points at.

    Parameters
    ----------
    content : str or pandas.DataFrame
        The text, or a table when ``content_type="table"``.
    content_type : str
        ``"text"``, ``"table"``, ``"image"`` or ``"audio"``.
    id : str, optional
        Given ids are kept (as ``str``); otherwise the murmur3 128-bit hash of the content,
        identical to Haystack 1.x's id for the same content and ``id_hash_keys``.
    score, meta, embedding
        Retriever score, free metadata (default ``{}``), vector (stored as a numpy array).
    id_hash_keys : list of str, optional
        Attributes (``content, content_type, score, meta, embedding``) or ``meta.<name>`` keys
        whose values make the generated id.

    Examples
    --------
    >>> Document("Berlin is the capital of Germany.").id
    '1a7644ef76698b7a1c6ed23c357fa598'
    >>> Document("x", id=7).id
    '7'
    """

    def __init__(
        self,
        content: str | pd.DataFrame,
        content_type: str = "text",
        id: str | None = None,
        score: float | None = None,
        meta: dict[str, Any] | None = None,
        embedding: Any = None,
        id_hash_keys: list[str] | None = None,
    ) -> None:
        if content is None:
            raise EvalframeError("Document content must not be None; pass the passage text (or '' for an empty one).")
        if id_hash_keys is not None:
            bad = [k for k in id_hash_keys if k not in _HASHABLE_ATTRIBUTES and not str(k).startswith("meta.")]
            if bad:
                raise EvalframeError(
                    f"id_hash_keys must name attributes {list(_HASHABLE_ATTRIBUTES)} or 'meta.<key>'; got {bad}."
                )
        self.content = content
        self.content_type = content_type
        self.score = score
        self.meta = {} if meta is None else meta
        self.id_hash_keys = list(id_hash_keys) if id_hash_keys else ["content"]
        self.embedding = None if embedding is None else np.asarray(embedding)
        self.id = str(id) if id is not None else self._generate_id(id_hash_keys)

    def _generate_id(self, id_hash_keys: list[str] | None) -> str:
        if id_hash_keys is None:
            return _murmur_hex(str(self.content))
        key = ""
        for attribute in id_hash_keys:
            if attribute.startswith("meta."):
                name = attribute.split(".", maxsplit=1)[1]
                if name in self.meta:
                    key += ":" + str(self.meta[name])
            else:
                key += ":" + str(getattr(self, attribute))
        if key == "":
            raise EvalframeError(
                "Cannot generate a Document id: the id_hash_keys gave an empty key "
                f"({id_hash_keys} name no meta field that is set). Include 'content' or pass id=."
            )
        return _murmur_hex(key)

    def to_dict(self, field_map: dict[str, str] | None = None) -> dict[str, Any]:
        """Plain dict of all attributes; ``field_map`` maps custom key -> attribute name.

        Examples
        --------
        >>> Document("some text", id="1").to_dict(field_map={"text": "content"})["text"]
        'some text'
        """
        inverse = {attribute: key for key, attribute in (field_map or {}).items()}
        content: str | pd.DataFrame | list[list[Any]] = self.content
        if self.content_type == "table" and isinstance(content, pd.DataFrame):
            content = _table_to_rows(content)
        values = {
            "content": content,
            "content_type": self.content_type,
            "score": self.score,
            "meta": self.meta,
            "id_hash_keys": self.id_hash_keys,
            "embedding": self.embedding,
            "id": self.id,
        }
        return {inverse.get(k, k): v for k, v in values.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], field_map: dict[str, str] | None = None) -> Document:
        """Build a Document from ``to_dict`` output (Haystack 1.x dicts work); unknown keys go to ``meta``.

        Examples
        --------
        >>> Document.from_dict({"content": "a", "id": "1", "url": "u"}).meta
        {'url': 'u'}
        """
        field_map = field_map or {}
        known = ("content", "content_type", "id", "score", "id_hash_keys", "question", "meta", "embedding")
        meta = dict(data.get("meta") or {})
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key.startswith("__"):
                continue
            if key in field_map:
                kwargs[field_map[key]] = value
            elif key in known:
                kwargs[key] = value
            else:
                meta[key] = value
        kwargs.pop("question", None)
        kwargs["meta"] = meta
        if kwargs.get("content_type") == "table" and isinstance(kwargs.get("content"), list):
            kwargs["content"] = _rows_to_table(kwargs["content"])
        if "content" not in kwargs:
            raise EvalframeError(f"Document dict has no 'content' key; got keys {sorted(data)}.")
        return cls(**kwargs)

    def to_json(self, field_map: dict[str, str] | None = None) -> str:
        return json.dumps(self.to_dict(field_map=field_map), default=_json_default)

    @classmethod
    def from_json(cls, data: str | dict[str, Any], field_map: dict[str, str] | None = None) -> Document:
        return cls.from_dict(json.loads(data) if isinstance(data, str) else data, field_map=field_map)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        if isinstance(self.content, pd.DataFrame) or isinstance(other.content, pd.DataFrame):
            same_content = (
                isinstance(self.content, pd.DataFrame)
                and isinstance(other.content, pd.DataFrame)
                and self.content.equals(other.content)
            )
        else:
            same_content = self.content == other.content
        if (self.embedding is None) != (other.embedding is None):
            return False
        # both embeddings are set here when self's is: the check above returned False otherwise
        same_embedding = self.embedding is None or np.array_equal(self.embedding, cast(np.ndarray, other.embedding))
        return bool(
            same_content
            and same_embedding
            and self.content_type == other.content_type
            and self.id == other.id
            and self.id_hash_keys == other.id_hash_keys
            and self.score == other.score
            and self.meta == other.meta
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __lt__(self, other: Document) -> bool:
        return self.score < other.score  # type: ignore[operator]

    def __repr__(self) -> str:
        text = str(self.content)
        text = text if len(text) <= 60 else text[:57] + "..."
        return f"<Document: id={self.id}, content={text!r}>"


@dataclass
class Span:
    """A character (or cell) range ``[start, end)``.

    Examples
    --------
    >>> 10 in Span(5, 15), 15 in Span(5, 15), Span(5, 10) in Span(5, 15)
    (True, False, True)
    """

    start: int
    end: int

    def __contains__(self, value: object) -> bool:
        if isinstance(value, Span):
            return self.start <= value.start and self.end > value.end
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise EvalframeError(f"Cannot test whether {value!r} is in {self}: it is neither a Span nor a number.") from exc
        return self.start <= number < self.end


@dataclass
class TableCell:
    """A table cell by row and column index."""

    row: int
    col: int


def _to_offset(value: Any) -> Span | TableCell:
    if isinstance(value, dict):
        return TableCell(**value) if "row" in value else Span(**value)
    return value


def offset_to_dict(offset: Span | TableCell) -> dict[str, int]:
    if isinstance(offset, TableCell):
        return {"row": offset.row, "col": offset.col}
    return {"start": offset.start, "end": offset.end}


@dataclass(eq=False)
class Answer:
    """An answer from a reader or generator, or the answer of a gold label.

    Examples
    --------
    >>> a = Answer("Berlin", offsets_in_document=[{"start": 0, "end": 6}], document_ids=["d1"])
    >>> a.offsets_in_document
    [Span(start=0, end=6)]
    """

    answer: str
    type: Literal["generative", "extractive", "other"] = "extractive"
    score: float | None = None
    context: str | pd.DataFrame | None = None
    # __post_init__ stores the offsets as one list of Span / TableCell objects (dicts converted)
    offsets_in_document: list[Span] | list[TableCell] | list[Span | TableCell] | None = None
    offsets_in_context: list[Span] | list[TableCell] | list[Span | TableCell] | None = None
    document_ids: list[str] | None = None
    meta: dict[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        if self.offsets_in_document is not None:
            self.offsets_in_document = [_to_offset(o) for o in self.offsets_in_document]
        if self.offsets_in_context is not None:
            self.offsets_in_context = [_to_offset(o) for o in self.offsets_in_context]
        if self.meta is None:
            self.meta = {}
        if isinstance(self.context, list):  # a table context given as rows, header first
            self.context = _rows_to_table(self.context)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Answer):
            return NotImplemented
        if isinstance(self.context, pd.DataFrame) or isinstance(other.context, pd.DataFrame):
            same_context = (isinstance(self.context, pd.DataFrame) and isinstance(other.context, pd.DataFrame)
                            and self.context.equals(other.context))
        else:
            same_context = self.context == other.context
        return same_context and all(
            getattr(self, name) == getattr(other, name)
            for name in ("answer", "type", "score", "offsets_in_document", "offsets_in_context", "document_ids", "meta")
        )

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict; offsets become ``{"start", "end"}`` / ``{"row", "col"}`` dicts."""
        context: str | pd.DataFrame | list[list[Any]] | None = self.context
        if isinstance(context, pd.DataFrame):
            context = _table_to_rows(context)
        return {
            "answer": self.answer,
            "type": self.type,
            "score": self.score,
            "context": context,
            "offsets_in_document": None
            if self.offsets_in_document is None
            else [offset_to_dict(o) for o in self.offsets_in_document],
            "offsets_in_context": None
            if self.offsets_in_context is None
            else [offset_to_dict(o) for o in self.offsets_in_context],
            "document_ids": self.document_ids,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        """Build an Answer from ``to_dict`` output; the legacy key ``document_id`` becomes ``document_ids``.

        Examples
        --------
        >>> Answer.from_dict({"answer": "x", "document_id": "d1"}).document_ids
        ['d1']
        """
        data = dict(data)
        if "document_id" in data:  # the legacy key wins, as in Haystack 1.x
            legacy = data.pop("document_id")
            data["document_ids"] = None if legacy is None else [legacy]
        unknown = sorted(set(data) - _ANSWER_FIELDS)
        if unknown:
            raise EvalframeError(f"Answer dict has unknown key(s) {unknown}; valid keys are {sorted(_ANSWER_FIELDS)}.")
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=_json_default)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Answer:
        return cls.from_dict(json.loads(data) if isinstance(data, str) else data)

    def __lt__(self, other: Answer) -> bool:
        return self.score < other.score  # type: ignore[operator]


_ANSWER_FIELDS = {
    "answer", "type", "score", "context", "offsets_in_document", "offsets_in_context", "document_ids", "meta",
}


class Label:
    """One gold label (or user feedback): a query with its correct document and, optionally, answer.

    ``no_answer`` is None when ``answer`` is None, else True when the answer text is empty or blank.

    Examples
    --------
    >>> label = Label("Capital of Germany?", Document("Berlin is the capital.", id="d1"),
    ...               is_correct_answer=True, is_correct_document=True, origin="gold-label",
    ...               answer=Answer("Berlin"))
    >>> label.no_answer
    False
    """

    def __init__(
        self,
        query: str,
        document: Document,
        is_correct_answer: bool,
        is_correct_document: bool,
        origin: Literal["user-feedback", "gold-label"],
        answer: Answer | None = None,
        id: str | None = None,
        pipeline_id: str | None = None,
        created_at: str | None = None,
        updated_at: str | None = None,
        meta: dict[str, Any] | None = None,
        filters: dict[str, Any] | None = None,
    ) -> None:
        self.id = str(id) if id else str(uuid.uuid4())
        self.created_at = created_at if created_at is not None else time.strftime("%Y-%m-%d %H:%M:%S")
        self.updated_at = updated_at
        self.query = query
        self.answer = answer
        self.document = document
        self.is_correct_answer = is_correct_answer
        self.is_correct_document = is_correct_document
        self.origin = origin
        self.pipeline_id = pipeline_id
        self.meta = {} if meta is None else meta
        self.filters = filters

    @property
    def no_answer(self) -> bool | None:
        if self.answer is None:
            return None
        return self.answer.answer is None or not self.answer.answer.strip()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "document": self.document.to_dict(),
            "is_correct_answer": self.is_correct_answer,
            "is_correct_document": self.is_correct_document,
            "origin": self.origin,
            "answer": None if self.answer is None else self.answer.to_dict(),
            "pipeline_id": self.pipeline_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "meta": self.meta,
            "filters": self.filters,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Label:
        """Build a Label from ``to_dict`` output (nested document and answer dicts are rebuilt)."""
        data = dict(data)
        data.pop("no_answer", None)  # derived from the answer
        missing = [k for k in ("query", "document", "is_correct_answer", "is_correct_document", "origin") if k not in data]
        if missing:
            raise EvalframeError(f"Label dict lacks key(s) {missing}; got keys {sorted(data)}.")
        unknown = sorted(set(data) - _LABEL_FIELDS)
        if unknown:
            raise EvalframeError(f"Label dict has unknown key(s) {unknown}; valid keys are {sorted(_LABEL_FIELDS)}.")
        if isinstance(data["document"], dict):
            data["document"] = Document.from_dict(data["document"])
        if isinstance(data.get("answer"), dict):
            data["answer"] = Answer.from_dict(data["answer"])
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=_json_default)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Label:
        return cls.from_dict(json.loads(data) if isinstance(data, str) else data)

    def _key(self) -> tuple[Any, ...]:
        return (
            self.query, self.answer, self.is_correct_answer, self.is_correct_document,
            self.origin, self.document, self.no_answer, self.pipeline_id,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Label):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(tuple(str(part) for part in self._key()))

    def __repr__(self) -> str:
        answer = None if self.answer is None else self.answer.answer
        return f"<Label: query={self.query!r}, answer={answer!r}, document_id={self.document.id!r}>"


_LABEL_FIELDS = {
    "id", "query", "document", "is_correct_answer", "is_correct_document", "origin", "answer",
    "pipeline_id", "created_at", "updated_at", "meta", "filters",
}


def _is_positive(label: Label) -> bool:
    return bool(
        (label.is_correct_answer and label.is_correct_document)
        or (label.answer is None and label.is_correct_document)
    )


class MultiLabel:
    """All gold labels of one query (and filters), with their aggregated answers, ids and contexts.

    Examples
    --------
    >>> doc = Document("Berlin is the capital of Germany.", id="d1")
    >>> ml = MultiLabel([Label("q", doc, True, True, "gold-label", Answer("Berlin")),
    ...                  Label("q", doc, True, True, "gold-label", Answer("the capital"))])
    >>> ml.answers, ml.document_ids
    (['Berlin', 'the capital'], ['d1', 'd1'])

    ``meta`` (evalframe's, not Haystack's) is the query's own metadata, a JSON object such as a runs file line's
    ``"meta"``: :meth:`EvaluationResult.from_runs` keeps it in the ``meta`` column of the frames; it is not part
    of ``id`` and not of ``==``.

    >>> MultiLabel(ml.labels, meta={"topic": "geography"}).meta
    {'topic': 'geography'}

    ``id`` (evalframe's) keys the query by an id of its source (a dataset's id column) instead of the MD5 of its text
    and filters: two questions with the same text and different ids are two queries.

    >>> MultiLabel(ml.labels, id="q-17").id
    'q-17'
    """

    def __init__(self, labels: list[Label], drop_negative_labels: bool = False, drop_no_answers: bool = False,
                 *, meta: Mapping[str, Any] | None = None,
                 scores: Mapping[str, Mapping[str, float]] | None = None, id: str | None = None) -> None:
        if id is not None and (not isinstance(id, str) or not id):
            raise EvalframeError(f"MultiLabel id must be a non-empty string (or None: the MD5 of the query and its "
                                 f"filters); got {id!r:.60}.")
        if meta is not None and not isinstance(meta, Mapping):
            raise EvalframeError(f"MultiLabel meta must be a dict (a JSON object) or None; got {type(meta).__name__} "
                                 f"{meta!r:.60}.")
        self._meta = None if meta is None else dict(meta)
        # per-query scores computed elsewhere, {node: {name: value}} (a runs file line's "scores"; from_runs attaches them)
        self._scores = None if scores is None else {str(n): dict(v) for n, v in scores.items()}
        labels = list(dict.fromkeys(labels))
        if drop_negative_labels:
            labels = [label for label in labels if _is_positive(label)]
        if drop_no_answers:
            labels = [label for label in labels if label.no_answer is False]
        if not labels:
            raise EvalframeError(
                "MultiLabel needs at least one label (after dropping negative / no-answer labels, none was left)."
            )
        self._labels = labels
        self._query = self._single_value("query")
        self._filters = self._single_value("filters")
        # UTF-8, as Haystack hashes it; a lone surrogate (JSON's "\ud800") kept by surrogatepass, which leaves every
        # other text's id unchanged (a plain encode() refused such a query with a UnicodeEncodeError)
        self.id = id if id is not None else hashlib.md5(
            (self._query + json.dumps(self._filters, sort_keys=True)).encode("utf-8", "surrogatepass")).hexdigest()
        self._no_answer = all(label.no_answer for label in labels)
        if self._no_answer:
            self._answers = [""]
            self._offsets_in_documents: list[dict[str, int]] = []
            self._offsets_in_contexts: list[dict[str, int]] = []
        else:
            answered = [label.answer for label in labels if not label.no_answer and label.answer is not None]
            self._answers = [answer.answer for answer in answered]
            self._offsets_in_documents = [
                offset_to_dict(o) for a in answered for o in (a.offsets_in_document or [])
            ]
            self._offsets_in_contexts = [
                offset_to_dict(o) for a in answered for o in (a.offsets_in_context or [])
            ]
        self._document_ids = [label.document.id for label in labels if not label.no_answer]
        self._contexts = [str(label.document.content) for label in labels if not label.no_answer]

    def _single_value(self, key: str) -> Any:
        values: list[Any] = []
        for label in self._labels:
            value = getattr(label, key)
            if value not in values:
                values.append(value)
        if len(values) > 1:
            raise EvalframeError(
                f"Tried to combine labels with different {key!r} values into one MultiLabel: {values}. "
                "Group labels by query and filters first."
            )
        return values[0]

    labels = property(lambda self: self._labels)
    query = property(lambda self: self._query)
    filters = property(lambda self: self._filters)
    no_answer = property(lambda self: self._no_answer)
    answers = property(lambda self: self._answers)
    offsets_in_documents = property(lambda self: self._offsets_in_documents)
    offsets_in_contexts = property(lambda self: self._offsets_in_contexts)
    document_ids = property(lambda self: self._document_ids)
    contexts = property(lambda self: self._contexts)
    meta = property(lambda self: self._meta)
    scores = property(lambda self: self._scores)

    def to_dict(self) -> dict[str, Any]:
        """The MultiLabel as Haystack 1.x's dict; with ``meta`` (evalframe's) when it has one."""
        return {
            "labels": [label.to_dict() for label in self._labels],
            "query": self._query,
            "filters": self._filters,
            "id": self.id,
            "no_answer": self._no_answer,
            "answers": self._answers,
            "offsets_in_documents": self._offsets_in_documents,
            "offsets_in_contexts": self._offsets_in_contexts,
            "document_ids": self._document_ids,
            "contexts": self._contexts,
            **({"meta": self._meta} if self._meta is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MultiLabel:
        """Rebuild from ``to_dict`` output; derived keys are recomputed, extra keys ignored."""
        if "labels" not in data:
            raise EvalframeError(f"MultiLabel dict lacks the 'labels' key; got keys {sorted(data)}.")
        return cls(
            labels=[Label.from_dict(label) if isinstance(label, dict) else label for label in data["labels"]],
            drop_negative_labels=data.get("drop_negative_labels", False),
            drop_no_answers=data.get("drop_no_answers", False),
            meta=data.get("meta"),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=_json_default)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> MultiLabel:
        return cls.from_dict(json.loads(data) if isinstance(data, str) else data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MultiLabel):
            return NotImplemented
        return self._labels == other._labels

    def __repr__(self) -> str:
        return f"<MultiLabel: query={self._query!r}, {len(self._labels)} label(s), answers={self._answers}>"


@dataclass(frozen=True)
class Skipped:
    """A query of a source left out of a result, where it is and why (``on_invalid="skip"`` of the sources).

    A result keeps them in ``result.skipped`` (saved with it), and its reports state how many were left out: each
    mean is over the other queries.

    Examples
    --------
    >>> Skipped("ragas.jsonl:3", "no label")
    Skipped(where='ragas.jsonl:3', reason='no label')
    """

    where: str
    reason: str


def skipped_note(skipped: tuple[Skipped, ...] | list[Skipped], shown: int = 5) -> str:
    """What the reports say of the queries left out of a result: how many, why and where (the first ``shown`` of each
    reason); ``""`` when none was.

    Examples
    --------
    >>> print(skipped_note([Skipped("ragas.jsonl:3", "no label"), Skipped("ragas.jsonl:7", "no label")]))
    2 queries of the source were left out of the result (each mean is over the others): 2 with no label
    (ragas.jsonl:3, ragas.jsonl:7).
    """
    if not skipped:
        return ""
    reasons: dict[str, list[str]] = {}
    for item in skipped:
        reasons.setdefault(item.reason, []).append(item.where)
    parts = []
    for reason, wheres in reasons.items():
        more = f" and {len(wheres) - shown:,} more" if len(wheres) > shown else ""
        parts.append(f"{len(wheres):,} with {reason} ({', '.join(wheres[:shown])}{more})")
    count = len(skipped)
    return (f"{count:,} quer{'y' if count == 1 else 'ies'} of the source {'was' if count == 1 else 'were'} left out of "
            f"the result (each mean is over the others): {'; '.join(parts)}.")
