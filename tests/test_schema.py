"""Schema objects (docs/haystack-compat.md#schema-objects): ids, containment, dict/JSON round trips, MultiLabel aggregation.

Document ids and MultiLabel aggregates are checked against values Haystack 1.x produced
(farm-haystack 1.26.4; tests/data/haystack1/inputs.json and frames.json).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe import Answer, Document, EvalframeError, Label, MultiLabel, Span, TableCell

DATA = Path(__file__).parent / "data" / "haystack1"


@pytest.mark.parametrize(
    ("kwargs", "haystack_id"),
    [  # ids printed by haystack.schema.Document in farm-haystack 1.26.4
        ({"content": "Berlin is the capital of Germany."}, "1a7644ef76698b7a1c6ed23c357fa598"),
        ({"content": "Berlin is the capital of Germany.", "id_hash_keys": ["content"]}, "4b8e0001292761c60b564ae0b9d070fc"),
        ({"content": "abc", "meta": {"url": "u1"}, "id_hash_keys": ["content", "meta.url"]}, "87c7287e6622e6f7483032f6447051f0"),
        ({"content": "abc", "meta": {"url": "u1"}, "id_hash_keys": ["meta"]}, "b8092c55af5a4a52724fe79989c4fd56"),
        ({"content": "abc", "score": 0.5, "id_hash_keys": ["content", "score", "content_type"]},
         "64e8863e25010f5bfaceb2bb9141a53d"),
    ],
)
def test_document_ids_equal_haystack(kwargs, haystack_id):
    assert Document(**kwargs).id == haystack_id


def test_a_lone_surrogate_in_the_content_gets_an_id_instead_of_crashing_the_interpreter():
    # JSON's "\ud800" reads as a lone surrogate; mmh3 given such a str dereferenced its failed UTF-8 encoding (a
    # segfault, found by tests/sources/test_hostile_importers.py). Its id: MurmurHash3 x64 128 of the surrogatepass
    # bytes b"a\xed\xa0\x80" (the bytes a str without surrogates hashes as, UTF-8, so other ids are unchanged)
    import subprocess
    import sys

    code = "from evalframe import Document; print(Document('a\\ud800').id)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{:02x}".format(236878703054850533144411974293937246534)
    assert Document("Berlin is the capital of Germany.").id == "1a7644ef76698b7a1c6ed23c357fa598"  # Haystack's


def test_document_id_rules():
    assert Document("x", id=7).id == "7"
    assert Document("x").id_hash_keys == ["content"]
    with pytest.raises(EvalframeError, match="content must not be None"):
        Document(None)  # type: ignore[arg-type]
    with pytest.raises(EvalframeError, match=r"id_hash_keys must name attributes .*got \['title'\]"):
        Document("x", id_hash_keys=["title"])
    with pytest.raises(EvalframeError, match="empty key"):
        Document("x", id_hash_keys=["meta.missing"])


def test_document_dict_round_trip_and_field_map():
    doc = Document("text", id="d1", score=0.5, meta={"a": 1}, embedding=[0.1, 0.2])
    assert isinstance(doc.embedding, np.ndarray)
    as_dict = doc.to_dict()
    assert list(as_dict) == ["content", "content_type", "score", "meta", "id_hash_keys", "embedding", "id"]
    assert Document.from_dict(as_dict) == doc
    assert Document.from_json(doc.to_json()) == doc
    mapped = doc.to_dict(field_map={"text": "content"})
    assert mapped["text"] == "text" and "content" not in mapped
    assert Document.from_dict(mapped, field_map={"text": "content"}) == doc
    extra = Document.from_dict({"content": "c", "id": "1", "url": "u", "meta": {"k": 1}})
    assert extra.meta == {"k": 1, "url": "u"}
    assert Document("a", score=0.1) < Document("b", score=0.2)


def test_table_documents():
    table = pd.DataFrame({"city": ["Berlin", "Paris"], "country": ["DE", "FR"]})
    doc = Document(table, content_type="table", id="t1")
    rows = doc.to_dict()["content"]
    assert rows == [["city", "country"], ["Berlin", "DE"], ["Paris", "FR"]]
    again = Document.from_dict(doc.to_dict())
    assert isinstance(again.content, pd.DataFrame) and again == doc


def test_span_containment():
    assert 10 in Span(5, 15) and 5 in Span(5, 15) and 15 not in Span(5, 15) and 20 not in Span(1, 15)
    assert 10.0 in Span(5, 15) and "10" in Span(5, 15)
    assert Span(10, 11) in Span(5, 15) and Span(5, 10) in Span(5, 15) and Span(5, 14) in Span(5, 15)
    assert Span(10, 15) not in Span(5, 15) and Span(5, 15) not in Span(5, 15)
    assert Span(0, 1) not in Span(5, 15) and Span(0, 10) not in Span(5, 15) and Span(10, 20) not in Span(5, 15)
    with pytest.raises(EvalframeError, match="neither a Span nor a number"):
        "ten" in Span(5, 15)  # noqa: B015


def test_answer_offsets_and_legacy_document_id():
    answer = Answer("x", offsets_in_document=[{"start": 1, "end": 2}], offsets_in_context=[{"row": 0, "col": 1}])
    assert answer.offsets_in_document == [Span(1, 2)] and answer.offsets_in_context == [TableCell(0, 1)]
    assert answer.meta == {}
    assert answer.to_dict()["offsets_in_context"] == [{"row": 0, "col": 1}]
    assert Answer.from_dict(answer.to_dict()) == answer
    assert Answer.from_json(answer.to_json()) == answer
    assert Answer.from_dict({"answer": "x", "document_id": "d1"}).document_ids == ["d1"]
    assert Answer.from_dict({"answer": "x", "document_id": None}).document_ids is None
    with pytest.raises(EvalframeError, match=r"unknown key\(s\) \['documentids'\]"):
        Answer.from_dict({"answer": "x", "documentids": ["d"]})


def label(query="q", answer="a", doc="d1", filters=None, **kwargs):
    return Label(query, Document(f"content of {doc}", id=doc), True, True, "gold-label",
                 None if answer is None else Answer(answer), filters=filters, **kwargs)


def test_label_no_answer_equality_and_round_trip():
    assert label(answer=None).no_answer is None
    assert label(answer="  ").no_answer is True and label(answer="x").no_answer is False
    a, b = label(id="1", created_at="2020-01-01 00:00:00"), label(id="2")
    assert a == b and hash(a) == hash(b)  # id and timestamps do not count
    assert a != label(answer="other")
    again = Label.from_dict(a.to_dict())
    assert again == a and again.id == "1" and again.created_at == "2020-01-01 00:00:00"
    assert Label.from_json(a.to_json()) == a
    assert len(label().id) == 36 and len(label().created_at) == 19


def test_multilabel_aggregates():
    labels = [
        label(answer="Berlin", doc="d1"),
        label(answer="Berlin", doc="d1"),  # duplicate: dropped
        label(answer="the capital", doc="d2"),
        label(answer="", doc="d3"),  # no-answer: contributes neither id nor context
        label(answer=None, doc="d4"),  # no answer object: id and context, but no answer
    ]
    ml = MultiLabel(labels)
    assert len(ml.labels) == 4
    assert ml.answers == ["Berlin", "the capital"]
    assert ml.document_ids == ["d1", "d2", "d4"]
    assert ml.contexts == ["content of d1", "content of d2", "content of d4"]
    assert ml.no_answer is False
    import hashlib
    assert ml.id == hashlib.md5(("q" + json.dumps(None, sort_keys=True)).encode()).hexdigest()
    only_no = MultiLabel([label(answer=""), label(answer=" ", doc="d2")])
    assert only_no.no_answer and only_no.answers == [""] and only_no.offsets_in_documents == []
    assert MultiLabel(labels, drop_no_answers=True).document_ids == ["d1", "d2"]
    negative = Label("q", Document("c", id="n"), False, False, "user-feedback", Answer("wrong"))
    assert MultiLabel(labels + [negative], drop_negative_labels=True).document_ids == ["d1", "d2", "d4"]
    assert MultiLabel.from_dict(ml.to_dict()) == ml
    assert set(ml.to_dict()) == {"labels", "query", "filters", "id", "no_answer", "answers", "offsets_in_documents",
                                 "offsets_in_contexts", "document_ids", "contexts"}
    with pytest.raises(EvalframeError, match="different 'query' values"):
        MultiLabel([label(query="a"), label(query="b")])
    with pytest.raises(EvalframeError, match="different 'filters' values"):
        MultiLabel([label(answer="a", filters={"x": 1}), label(answer="b", filters={"x": 2})])


def test_multilabels_of_haystack_inputs_equal_haystack_frames():
    inputs = json.loads((DATA / "inputs.json").read_text())
    records = json.loads((DATA / "frames.json").read_text())["Retriever"]["records"]
    first_row = {}
    for record in records:
        first_row.setdefault(record["multilabel_id"], record)
    for query in inputs["queries"]:
        ml = MultiLabel([Label.from_dict(d) for d in query["labels"]])
        assert ml.id == query["multilabel_id"]
        row = first_row[ml.id]
        assert ml.document_ids == row["gold_document_ids"]
        assert ml.contexts == row["gold_contexts"]
        assert ml.answers == row["gold_answers"]


def test_table_answers_compare_by_content_and_empty_label_ids_get_a_uuid():
    table = pd.DataFrame({"a": [1]})
    assert Answer("1", context=table) == Answer("1", context=table.copy())
    assert Answer("1", context=[["a"], [1]]).context.equals(table)
    labels = [Label("q", Document("c", id="d"), True, True, "gold-label", Answer("1", context=table)) for _ in range(2)]
    assert len(MultiLabel(labels).labels) == 1
    assert len(Label("q", Document("c"), True, True, "gold-label", id="").id) == 36
    assert "no_answer" not in labels[0].to_dict()
    assert Answer.from_dict({"answer": "x", "document_id": "a", "document_ids": ["b"]}).document_ids == ["a"]
