"""The common shape of the foreign sources (evalframe.sources.records): retrieved_of reads every framework's document,
build writes what a runs file would hold for each record."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pytest

from evalframe import Document, EvaluationResult, read_runs
from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.schema import Skipped
from evalframe.sources.records import Record, Retrieved, build, retrieved_of


# ------------------------------------------------------------------ documents of other frameworks, duck-typed
@dataclass
class HaystackDocument:  # haystack.Document's attributes (haystack-ai 2.x)
    content: str | None
    id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    score: float | None = None


@dataclass
class LangChainDocument:  # langchain_core.documents.Document's attributes
    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class TextNode:  # llama_index.core.schema.TextNode: node_id, get_content(), metadata
    text: str
    id_: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        return self.id_

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:  # llama_index.core.schema.NodeWithScore
    node: TextNode
    score: float | None = None


@pytest.mark.parametrize("obj, expected", [
    (HaystackDocument("Berlin.", id="d1", meta={"lang": "en"}, score=0.5), Retrieved("d1", "Berlin.", 0.5, {"lang": "en"})),
    (Document("Berlin.", id="d1", score=2), Retrieved("d1", "Berlin.", 2.0, {})),
    (LangChainDocument("Berlin.", {"source": "wiki"}, id="d1"), Retrieved("d1", "Berlin.", None, {"source": "wiki"})),
    (LangChainDocument("Berlin.", {"id": "d7"}), Retrieved("d7", "Berlin.", None, {"id": "d7"})),
    (NodeWithScore(TextNode("Berlin.", "n1", {"page": 3}), 0.25), Retrieved("n1", "Berlin.", 0.25, {"page": 3})),
    (TextNode("Berlin.", "n1"), Retrieved("n1", "Berlin.", None, {})),
    ({"id": "d1", "content": "Berlin.", "score": 1, "meta": {"a": 1}, "embedding": None},
     Retrieved("d1", "Berlin.", 1.0, {"a": 1})),
    ({"id": 7}, Retrieved("7", None)),
    ({"page_content": "Berlin.", "metadata": {"id": "d2"}}, Retrieved("d2", "Berlin.", None, {"id": "d2"})),
    ({"node": {"id_": "n1", "text": "Berlin.", "metadata": {}}, "score": 0.5}, Retrieved("n1", "Berlin.", 0.5, {})),
    ({"id_": "n1", "text": "Berlin."}, Retrieved("n1", "Berlin.")),
    ("Berlin.", Retrieved(None, "Berlin.")),
    (Retrieved("d1", None, 1), Retrieved("d1", None, 1.0)),
], ids=["haystack", "evalframe", "langchain", "langchain metadata id", "NodeWithScore", "TextNode", "dict",
        "dict id only", "langchain dict", "NodeWithScore dict", "TextNode dict", "text", "Retrieved"])
def test_retrieved_of_reads_each_framework(obj, expected):
    assert retrieved_of(obj, "row 1") == expected


@pytest.mark.parametrize("obj, message", [
    (3.5, r"row 1, retrieved\[2\]: a retrieved document must be a string, a dict .* got float"),
    ({"title": "x"}, r"row 1, retrieved\[2\]: a retrieved document dict needs 'id' or 'content' .*got keys \['title'\]"),
    ({"id": None, "content": None}, r"the document has neither an id nor a content"),
    (HaystackDocument("x", id="d", score="high"), r"row 1, retrieved\[2\]: score must be a number \(or None\); got 'high'"),
    (HaystackDocument("x", id="d", meta=["a"]), r"meta must be an object \(a dict\) or None; got \['a'\]"),
    (LangChainDocument(7), r"page_content must be text \(or None\); got 7 of type int"),
    ({"id": ["d1"], "content": "x"}, r"id must be a string id \(or None\); got \['d1'\]"),
    ({"id": "d", "content": "x", "score": True}, r"score must be a number \(or None\); got True"),
])
def test_retrieved_of_names_where_and_the_field(obj, message):
    with pytest.raises(EvalframeError, match=message):
        retrieved_of(obj, "row 1, retrieved[2]")


# ------------------------------------------------------------------ build: what a runs file would hold
BERLIN = "Berlin is the capital of Germany."
BONN = "Bonn was the capital of West Germany."


def runs_result(tmp_path, lines: list[dict], **options: Any) -> EvaluationResult:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    labels, outputs = read_runs(path)
    return EvaluationResult.from_runs(labels, outputs, progress=False, **options)


def built(records: list[Record], **options: Any) -> EvaluationResult:
    return EvaluationResult(build(records, progress=False, **options))


def same_frames(a: EvaluationResult, b: EvaluationResult) -> None:
    assert sorted(a) == sorted(b)
    for node in a:
        pd.testing.assert_frame_equal(a[node], b[node])


def documents(*pairs: tuple[str | None, str]) -> list[Retrieved]:
    return [Retrieved(doc_id, text) for doc_id, text in pairs]


@pytest.mark.parametrize("gold, runs_gold", [
    ({"gold_ids": ["berlin"], "gold_contexts": [BERLIN], "gold_answers": ["Berlin"]},
     {"document_ids": ["berlin"], "contexts": [BERLIN], "answers": ["Berlin"]}),
    ({"gold_ids": ["berlin", "bonn"], "gold_answers": ["Berlin"]},  # one answer beside every document
     {"document_ids": ["berlin", "bonn"], "answers": ["Berlin", "Berlin"]}),
    ({"gold_ids": ["berlin"], "gold_answers": ["Berlin", "the city of Berlin"]},  # one document beside every answer
     {"document_ids": ["berlin", "berlin"], "answers": ["Berlin", "the city of Berlin"]}),
    ({"gold_contexts": [BERLIN]}, {"contexts": [BERLIN]}),
    ({"gold_ids": ["berlin"], "gold_answers": []}, {"document_ids": ["berlin"]}),  # [] beside documents: no answers
    ({"gold_answers": ["Berlin"]},  # answers alone: a gold document no retrieved one is, credited by the answer
     {"document_ids": ["<no gold document>"], "answers": ["Berlin"]}),
    ({"gold_answers": [""]}, {"answers": [""]}),  # no-answer
    ({"gold_answers": []}, {"answers": [""]}),
], ids=["ids, contexts and an answer", "one answer", "one document", "contexts", "no answers", "answers alone",
        "no-answer", "no-answer as []"])
def test_the_gold_is_what_a_runs_file_would_hold(tmp_path, gold, runs_gold):
    record = Record("row 1", "What is the capital of Germany?", documents(("bonn", BONN), ("berlin", BERLIN)),
                    answer="Berlin", **gold)
    line = {"query": record.query, "gold": runs_gold,
            "nodes": {"Retriever": {"documents": [{"id": "bonn", "content": BONN}, {"id": "berlin", "content": BERLIN}]},
                      "Generator": {"answers": [{"answer": "Berlin", "type": "generative",
                                                 "document_ids": ["bonn", "berlin"]}]}}}
    same_frames(built([record]), runs_result(tmp_path, [line]))


def test_a_record_without_gold_is_refused_or_left_out_and_recorded_when_asked():
    # issue 35 item 8: it was left out with a warning only, and every mean moved without the result saying so
    records = [Record("row 1", "q1", documents(("d1", "x")), gold_ids=["d1"]), Record("row 2", "q2", documents(("d1", "x")))]
    with pytest.raises(EvalframeError, match=r"^row 2 has no label: no gold_ids, gold_contexts or gold_answers\. .*"
                                             r"on_invalid='skip' \(--skip-invalid\)"):
        built(records)
    result = built(records, on_invalid="skip")
    assert result["Retriever"]["query"].tolist() == ["q1"]
    assert result.skipped == (Skipped("row 2", "no label: no gold document and no gold answer"),)


def test_hand_worked_metrics_and_the_generator_cites_the_retrieved_documents():
    # q1: gold at rank 2 -> mrr 1/2; q2: rank 1 -> 1; q3: no relevant document -> 0; q4: no-answer (L = 0) -> 1.0
    records = [
        Record("row 1", "q1", documents(("bonn", BONN), ("berlin", BERLIN)), "Berlin", gold_ids=["berlin"],
               gold_answers=["Berlin"]),
        Record("row 2", "q2", documents(("paris", "Paris.")), "Lyon", gold_ids=["paris"], gold_answers=["Paris"]),
        Record("row 3", "q3", documents(("x", "Nothing here.")), "Goethe", gold_ids=["goethe"],
               gold_answers=["Johann Wolfgang von Goethe"]),
        Record("row 4", "q4", documents(("paris", "Paris.")), "", gold_answers=[""]),
    ]
    result = built(records)
    metrics = result.calculate_metrics()
    assert metrics["Retriever"]["mrr"] == (0.5 + 1 + 0 + 1) / 4
    assert metrics["Retriever"]["recall_single_hit"] == 3 / 4
    assert metrics["Generator"]["exact_match"] == (1 + 0 + 0 + 1) / 4
    assert metrics["Generator"]["f1"] == pytest.approx((1 + 0 + 0.4 + 1) / 4)  # "Goethe": P = 1, R = 1/4 -> 0.4
    answers = result["Generator"]
    assert answers["document_ids"].tolist() == [["bonn", "berlin"], ["paris"], ["x"], ["paris"]]
    assert answers["type"].tolist() == ["answer"] * 4
    assert "score" not in result["Retriever"]  # no retrieved score given


def test_retrieved_scores_are_kept_and_a_document_without_id_gets_its_content_hash():
    records = [Record("row 1", "q1", [Retrieved(None, BERLIN, 0.75), Retrieved("bonn", BONN)], gold_contexts=[BERLIN])]
    frame = built(records)["Retriever"]
    assert frame["score"].tolist()[0] == 0.75 and pd.isna(frame["score"].tolist()[1])
    assert frame["document_id"].tolist() == [Document(BERLIN).id, "bonn"]


def test_a_record_without_an_output_gets_an_empty_one(tmp_path):
    records = [Record("row 1", "q1", documents(("d1", "x")), "a", gold_ids=["d1"], gold_answers=["a"]),
               Record("row 2", "q2", None, None, gold_ids=["d2"], gold_answers=["b"])]
    lines = [{"query": "q1", "gold": {"document_ids": ["d1"], "answers": ["a"]},
              "nodes": {"Retriever": {"documents": [{"id": "d1", "content": "x"}]},
                        "Generator": {"answers": [{"answer": "a", "type": "generative", "document_ids": ["d1"]}]}}},
             {"query": "q2", "gold": {"document_ids": ["d2"], "answers": ["b"]},
              "nodes": {"Retriever": {"documents": []}, "Generator": {"answers": []}}}]
    same_frames(built(records), runs_result(tmp_path, lines))


def test_node_names_and_only_the_outputs_given():
    records = [Record("row 1", "q1", documents(("d1", "x")), gold_ids=["d1"])]
    assert list(built(records, retriever="BM25")) == ["BM25"]
    records = [Record("row 1", "q1", answer="a", gold_answers=["a"])]
    assert list(built(records, generator="LLM")) == ["LLM"]


@pytest.mark.parametrize("records, options, error, message", [
    ([Record("a.jsonl:1", "q", documents(("d", "x"))), Record("a.jsonl:4", "q", documents(("d", "x")))], {},
     EvalframeError, r"a\.jsonl:1 and a\.jsonl:4 hold the same question 'q'; .*each question may appear once"),
    ([Record("row 1", "q", gold_ids=["d"])], {}, EvalframeError,
     r"the source holds neither retrieved documents \(retrieved\) nor answers \(answer\)"),
    ([Record("row 1", "q", answer="a", gold_ids=["d1", "d2"], gold_answers=["a", "b", "c"])], {}, EvalframeError,
     r"row 1: 3 gold_answers beside 2 gold documents cannot be paired"),
    ([Record("row 1", "q", answer="a", gold_ids=["d1", "d2"], gold_contexts=["x"])], {}, EvalframeError,
     r"row 1: gold_ids has 2 entries and gold_contexts 1"),
    ([Record("row 1", "q", answer="a", gold_ids=["d1"], gold_answers=[""])], {}, EvalframeError,
     r"row 1: gold_answers \[''\] says no-answer question, but 1 gold document\(s\) are given"),
    ([Record("row 1", "q", answer="a", gold_ids=["d1"], gold_answers=["a", ""])], {}, EvalframeError,
     r"row 1: gold_answers\[2\] is empty beside other answers"),
    ([Record("row 1", "q", answer="a", gold_ids="d1")], {}, EvalframeError,
     r"row 1: gold_ids must be a list of strings; got 'd1'"),
    ([Record("row 1", "q", answer="a", gold_ids=["d1", None])], {}, EvalframeError, r"row 1: gold_ids\[2\] must be a string"),
    ([Record("row 1", "q", answer=3)], {}, EvalframeError, r"row 1: answer must be a string \(or None\); got 3"),
    ([Record("row 1", 7, answer="a")], {}, EvalframeError, r"row 1: query must be a string; got 7"),
    ([Record("row 1", "q", answer="a", meta=["x"])], {}, EvalframeError, r"row 1: meta must be an object"),
    ([Record("row 1", "q", retrieved="abc")], {}, EvalframeError, r"row 1: retrieved must be a list of documents"),
    ([Record("row 1", "q", answer="a", scores={"judge": "good"})], {}, EvalframeError,
     r"row 1: score 'judge' must be a number .*; got 'good', text that is not a number"),
    ([Record("row 1", "q", answer="a")], {"score_node": "Retriever"}, InvalidParameterError,
     r"score_node must be one of the nodes built, \['Generator'\]; got 'Retriever'"),
    ([Record("row 1", "q", documents(("d", "x")), answer="a")], {"generator": "Retriever"}, InvalidParameterError,
     r"retriever and generator must name two nodes; both are 'Retriever'"),
    ([Record("row 1", "q", answer="a")], {"generator": ""}, InvalidParameterError, r"generator must be a non-empty string"),
    ([{"query": "q"}], {}, InvalidParameterError, r"records\[0\] must be a Record; got dict"),
    ([], {}, EvalframeError, r"the source holds no query"),
    ([Record("row 1", "q", answer="a", gold_answers=["a"])], {"fields": {"gold": "x"}}, InvalidParameterError,
     r"fields: unknown Record field 'gold'"),
])
def test_build_names_the_record_and_the_field(records, options, error, message):
    with pytest.raises(error, match=message):
        built(records, **options)


def test_messages_use_the_source_s_field_names():
    record = Record("ragas.jsonl:3", "q", answer="a", gold_ids=["d1", 5.5])
    with pytest.raises(EvalframeError, match=r"ragas\.jsonl:3: reference_context_ids\[2\] must be a string id"):
        built([record], fields={"gold_ids": "reference_context_ids"})


def test_an_error_of_from_runs_names_the_record():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(EvalframeError, match=r"custom_document_id_field 'doc' is not a meta field of the document of "
                                                 r"label .* \(ragas\.jsonl:7\)"):
            built([Record("ragas.jsonl:7", "q", documents(("d", "x")), gold_ids=["d"])], custom_document_id_field="doc")


def test_retrieved_documents_without_ids_beside_gold_ids_warn_once():
    records = [Record("a.csv:2", "q1", [Retrieved("d1", "x"), Retrieved(None, "y")], gold_ids=["d1"]),
               Record("a.csv:3", "q2", [Retrieved(None, "z")], gold_ids=["d2"])]
    with pytest.warns(UserWarning, match=r"^2 of 3 retrieved documents have no id \(the first: a\.csv:2, "
                                         r"retrieved_contexts\[2\]\) while the gold names documents by id "
                                         r"\(reference_context_ids\)") as caught:
        built(records, fields={"retrieved": "retrieved_contexts", "gold_ids": "reference_context_ids"})
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gold without ids: the texts are compared, nothing to say
        built([Record("a.csv:2", "q1", [Retrieved(None, "y")], gold_contexts=["y"])])
