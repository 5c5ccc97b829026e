"""EvaluationResult.from_runs (docs/runs-format.md): Haystack-identical frames, hand-worked rows, errors, SAS, runs files."""

from __future__ import annotations

import json
import math
import sys
import types
import warnings
from pathlib import Path

import pandas as pd
import pytest

from evalframe import (Answer, Document, EvalframeError, EvaluationResult, InvalidParameterError, Label, LoadError,
                       MultiLabel, read_runs)
from evalframe.columns import COLUMN_ORDER

DATA = Path(__file__).parents[1] / "data" / "haystack1"
EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"

HAMLET = ("Hamlet is a tragedy written by William Shakespeare sometime between 1599 and 1601. It is Shakespeare's "
          "longest play, with 29,551 words.")
FAUST = ("Faust is a tragic play in two parts by Johann Wolfgang von Goethe, usually known in English as Faust, "
         "Part One and Faust, Part Two.")


# ------------------------------------------------------------------ Haystack 1.x golden frames
def test_frames_equal_haystack_built_frames():
    inputs = json.loads((DATA / "inputs.json").read_text())
    golden = json.loads((DATA / "frames.json").read_text())
    result = EvaluationResult.from_runs([q["labels"] for q in inputs["queries"]], inputs["node_outputs"],
                                        progress=False, **inputs["build_eval_dataframe_params"])
    for node in ("Retriever", "Reader"):
        theirs = golden[node]
        columns = theirs["columns"]  # with 'index', the per-query row number of Haystack's reset_index(), last
        ours = result[node]
        assert list(ours.columns) == columns
        assert ours["index"].dtype == theirs["dtypes"]["index"] == "int64"
        assert len(ours) == len(theirs["records"])
        for i, record in enumerate(theirs["records"]):
            for column in columns:
                mine, expected = ours[column].iloc[i], record[column]
                if column == "filters" and expected == "null":
                    expected = None  # DIFFERS: Haystack wrote b'null' on document rows without filters
                if isinstance(mine, float) and math.isnan(mine):
                    assert expected is None, (node, i, column)
                elif isinstance(expected, float):
                    assert mine == pytest.approx(expected, abs=1e-9), (node, i, column)
                else:
                    assert mine == expected, (node, i, column)
    assert result["Retriever"]["rank"].dtype == "int64"


# ------------------------------------------------------------------ a hand-made run
def hamlet_label(filters=None, **kwargs):
    return Label("Who wrote Hamlet?", Document(HAMLET, id="hamlet", meta={"url": "u/hamlet"}), True, True,
                 "gold-label", Answer("William Shakespeare"), filters=filters or {"lang": "en"}, **kwargs)


def no_answer_label():
    return Label("Who wrote Faust II?", Document(FAUST, id="faust"), True, True, "gold-label", Answer(""))


def run(**kwargs):
    labels = [[hamlet_label()], [no_answer_label()]]
    outputs = {
        "Retriever": {"documents": [[Document(FAUST, id="faust"), Document(HAMLET, id="hamlet")], []]},
        "Reader": {
            "answers": [[Answer("Shakespeare", context=HAMLET, document_ids=["hamlet"]),
                         Answer("Goethe", context=FAUST, document_ids=["faust"])], []],
            "answers_isolated": [[Answer("William Shakespeare", context=HAMLET, document_ids=["hamlet"])], []],
        },
    }
    return EvaluationResult.from_runs(labels, outputs, progress=False, **kwargs)


def test_document_rows_by_hand():
    frame = run()["Retriever"]
    assert list(frame.columns) == [c for c in COLUMN_ORDER if c in frame.columns]
    hamlet = frame.iloc[1]
    assert hamlet["rank"] == 2 and hamlet["document_id"] == "hamlet"
    assert hamlet["gold_contexts_similarity"] == [100.0]
    assert hamlet["gold_documents_id_match"] == [1.0]
    assert hamlet["gold_answers_match"] == [1.0]  # "William Shakespeare" occurs in the passage
    for column in ("gold_id_match", "context_match", "answer_match", "gold_id_or_answer_match", "gold_id_and_answer_match",
                   "gold_id_or_context_match", "gold_id_and_context_match", "gold_id_and_context_and_answer_match",
                   "context_and_answer_match"):
        assert hamlet[column] == 1.0, column
    faust = frame.iloc[0]
    assert faust["gold_documents_id_match"] == [0.0] and faust["gold_answers_match"] == [0.0]
    assert faust["gold_contexts_similarity"][0] < 65 and faust["context_match"] == 0.0
    assert faust["filters"] == '{"lang": "en"}'
    # the no-answer query: no gold documents or contexts, gold answer "" (never found in a text); empty retrieval
    placeholder = frame.iloc[2]
    assert (placeholder["document_id"], placeholder["context"], placeholder["rank"]) == ("", "", 1)
    assert placeholder["gold_document_ids"] == [] and placeholder["gold_contexts"] == []
    assert placeholder["gold_answers"] == [""] and placeholder["gold_answers_match"] == [0.0]
    assert placeholder["gold_id_or_answer_match"] == 0.0 and placeholder["filters"] is None


def test_answer_rows_by_hand():
    frame = run()["Reader"]
    assert list(frame["eval_mode"]) == ["integrated", "integrated", "isolated", "integrated", "isolated"]
    assert list(frame["rank"]) == [1, 2, 1, 1, 1]
    shakespeare = frame.iloc[0]
    # gold tokens [william, shakespeare], predicted [shakespeare]: P = 1, R = 1/2 -> F1 = 2/3
    assert shakespeare["gold_answers_exact_match"] == [0] and shakespeare["gold_answers_f1"] == [pytest.approx(2 / 3)]
    assert shakespeare["exact_match"] == 0.0 and shakespeare["f1"] == pytest.approx(2 / 3)
    assert shakespeare["gold_contexts_similarity"] == [100.0] and shakespeare["gold_documents_id_match"] == [1.0]
    for scope in ("context", "document_id", "document_id_and_context"):
        assert shakespeare[f"f1_{scope}_scope"] == pytest.approx(2 / 3)
    goethe = frame.iloc[1]
    assert goethe["f1"] == 0 and goethe["gold_documents_id_match"] == [0.0]
    # placeholder answers: "" with offsets [0, 0]; against the no-answer gold [""], em = f1 = 1; the scoped
    # columns pair the gold's 1 with the sentinels (similarity 100, id match 1) -> 1 as in Haystack
    placeholder = frame.iloc[3]
    assert placeholder["answer"] == "" and placeholder["offsets_in_document"] == [{"start": 0, "end": 0}]
    assert placeholder["document_ids"] is None and placeholder["context"] is None
    assert placeholder["exact_match"] == 1.0 and placeholder["exact_match_context_scope"] == 1.0
    assert placeholder["exact_match_document_id_scope"] == 1.0


def test_index_numbers_each_querys_rows_from_zero_as_haystack():
    result = run()
    reader = result["Reader"]
    # query 0: integrated ranks 1, 2 then isolated rank 1; query 1: the integrated and the isolated placeholder
    assert reader["index"].tolist() == [0, 1, 2, 0, 1] and reader["index"].dtype == "int64"
    assert result["Retriever"]["index"].tolist() == [0, 1, 0]
    assert list(reader.columns)[-1] == "index"
    # one node with answers and documents: a query's answer rows first, its document rows after, one numbering;
    # the same query given twice (one multilabel_id) is numbered per entry, as Haystack numbered per eval call
    both = EvaluationResult.from_runs(
        [[hamlet_label()], [hamlet_label()]],
        {"Node": {"answers": [[Answer("Shakespeare", context=HAMLET, document_ids=["hamlet"])], []],
                  "documents": [[Document(FAUST, id="faust"), Document(HAMLET, id="hamlet")], [Document(HAMLET, id="hamlet")]]}},
        progress=False)["Node"]
    assert both["type"].tolist() == ["answer", "document", "document", "answer", "document"]
    assert both["index"].tolist() == [0, 1, 2, 0, 1]


def test_metrics_of_the_hand_made_run():
    result = run()
    retriever = result.calculate_metrics()["Retriever"]
    # Hamlet: gold at rank 2 of 2 -> precision 1/2, map 1/2, mrr 1/2, ndcg 1/log2(3); no-answer query -> 1.0
    assert retriever["mrr"] == pytest.approx((0.5 + 1) / 2)
    assert retriever["precision"] == pytest.approx((0.5 + 1) / 2)
    assert retriever["ndcg"] == pytest.approx((1 / math.log2(3) + 1) / 2)
    reader = result.calculate_metrics()["Reader"]
    assert reader["exact_match"] == pytest.approx((0 + 1) / 2) and reader["f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert result.calculate_metrics(eval_mode="isolated")["Reader"]["exact_match"] == 1.0
    assert result.matching["context_matching_threshold"] == 65.0


def test_thresholds_just_above_and_below_a_similarity():
    # the Hamlet passage matches its gold context with similarity exactly 100
    below = run(context_matching_threshold=99.99)["Retriever"].iloc[1]
    at = run(context_matching_threshold=100.0)["Retriever"].iloc[1]
    assert below["context_match"] == 1.0 and at["context_match"] == 0.0  # "> T", not ">= T"
    reader = run(context_matching_threshold=100.0)["Reader"].iloc[0]
    assert reader["f1_context_scope"] == 0.0  # no pair qualifies: 0.0 (DIFFERS: Haystack raised)
    assert reader["f1_document_id_scope"] == pytest.approx(2 / 3)


def test_min_length_and_boost_parameters_are_used():
    short = run(context_matching_min_length=1000)["Retriever"]
    assert short["gold_contexts_similarity"].iloc[1] == [0.0]
    result = run(context_matching_min_length=10, context_matching_boost_split_overlaps=False)
    assert result.matching["context_matching_min_length"] == 10
    assert result.matching["context_matching_boost_split_overlaps"] is False


def test_custom_document_id_field():
    labels = [[hamlet_label()]]
    copy = Document(HAMLET, id="another-id", meta={"url": "u/hamlet"})
    outputs = {"Retriever": {"documents": [[copy, Document(FAUST, id="hamlet")]]},
               "Reader": {"answers": [[Answer("Shakespeare", document_ids=["x"], meta={"url": "u/hamlet"})]]}}
    result = EvaluationResult.from_runs(labels, outputs, custom_document_id_field="url", progress=False)
    docs = result["Retriever"]
    assert list(docs["custom_document_id"]) == ["u/hamlet", ""]
    assert list(docs["gold_custom_document_ids"]) == [["u/hamlet"], ["u/hamlet"]]
    assert list(docs["gold_id_match"]) == [1.0, 0.0]  # matched by url, not by id
    answers = result["Reader"]
    assert answers["custom_document_ids"].iloc[0] == ["u/hamlet"]
    assert answers["gold_documents_id_match"].iloc[0] == [1.0]
    assert result.matching["custom_document_id_field"] == "url"
    with pytest.raises(EvalframeError, match=r"custom_document_id_field 'title' is not a meta field of the "
                       r"document of label .* \(labels\[0\]\)"):
        EvaluationResult.from_runs(labels, outputs, custom_document_id_field="title")


def test_negative_labels_count_unless_dropped():
    wrong = Label("Who wrote Hamlet?", Document(FAUST, id="faust"), False, False, "user-feedback",
                  Answer("Goethe"), filters={"lang": "en"})
    outputs = {"Retriever": {"documents": [[Document(FAUST, id="faust")]]}}
    kept = EvaluationResult.from_runs([[hamlet_label(), wrong]], outputs, progress=False)["Retriever"]
    assert kept["gold_document_ids"].iloc[0] == ["hamlet", "faust"]
    dropped = EvaluationResult.from_runs([MultiLabel([hamlet_label(), wrong], drop_negative_labels=True)], outputs,
                                         progress=False)["Retriever"]
    assert dropped["gold_document_ids"].iloc[0] == ["hamlet"] and dropped["gold_id_match"].iloc[0] == 0.0


def test_generative_answers_get_a_prompt_column():
    labels = [[hamlet_label()], [no_answer_label()]]
    outputs = {"Generator": {"answers": [
        [Answer("Shakespeare wrote it.", type="generative", meta={"prompt": "Answer: Who wrote Hamlet?"})],
        [Answer("nobody", type="extractive")]]}}
    frame = EvaluationResult.from_runs(labels, outputs, progress=False)["Generator"]
    assert list(frame.columns)[-1] == "prompt"
    assert list(frame["prompt"]) == ["Answer: Who wrote Hamlet?", None]


def test_empty_labels_are_skipped_with_a_warning():
    outputs = {"Retriever": {"documents": [[Document(HAMLET, id="hamlet")], []]}}
    with pytest.warns(UserWarning, match=r"labels\[1\] has no label; the query is left out"):
        result = EvaluationResult.from_runs([[hamlet_label()], []], outputs, progress=False)
    assert result["Retriever"]["multilabel_id"].nunique() == 1


def test_sas_from_a_callable_is_called_once_with_distinct_pairs():
    calls = []

    def sas(predictions, golds):
        calls.append(list(zip(predictions, golds)))
        return [1.0 if p == g else 0.25 * len(p.split()) for p, g in zip(predictions, golds)]

    frame = run(sas_model=sas)["Reader"]
    assert len(calls) == 1
    assert len(calls[0]) == len(set(calls[0])) == 4  # Shakespeare, Goethe, William Shakespeare vs gold; "" vs ""
    assert frame["gold_answers_sas"].iloc[0] == [0.25] and frame["sas"].iloc[0] == 0.25
    assert frame["sas"].iloc[2] == 1.0 and frame["sas_document_id_scope"].iloc[2] == 1.0
    assert run(sas_model=sas).calculate_metrics()["Reader"]["sas"] == pytest.approx((0.25 + 1.0) / 2)
    with pytest.raises(EvalframeError, match="returned 1 scores for 4"):
        run(sas_model=lambda p, g: [1.0])


def test_sas_from_a_sentence_transformers_name(monkeypatch):
    class FakeBiEncoder:
        def __init__(self, name):
            self.name = name

        def encode(self, texts, batch_size, convert_to_numpy, normalize_embeddings):
            import numpy as np
            vectors = np.array([[len(t) % 3 + 1.0, 1.0] for t in texts])
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    class FakeConfig:
        architectures = ["BertModel"]

        @classmethod
        def from_pretrained(cls, name):
            return cls()

    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeBiEncoder))
    monkeypatch.setitem(sys.modules, "transformers", types.SimpleNamespace(AutoConfig=FakeConfig))
    frame = run(sas_model="fake/bi-encoder")["Reader"]
    # "William Shakespeare" (19 chars -> [2, 1]) against itself: cosine 1
    assert frame["gold_answers_sas"].iloc[2] == [pytest.approx(1.0)]
    assert run(sas_model="fake/bi-encoder").matching["sas_model"] == "fake/bi-encoder"


def test_sas_name_without_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(EvalframeError, match=r'pip install "evalframe\[sas\]"'):
        run(sas_model="some/model")


@pytest.mark.parametrize(
    ("labels", "outputs", "message"),
    [
        ([[hamlet_label()]], {"Retriever": {"documents": [[], []]}},
         r"node 'Retriever', 'documents' holds 2 entries but there are 1 labels"),
        ([[hamlet_label()]], {"Retriever": {"documents": [[{"id": "x"}]]}},
         r"node 'Retriever', 'documents', query 0, document 0 has no content"),
        ([[hamlet_label()]], {"Reader": {"answers": [[{"answer": "x", "document_ids": "d1"}]]}},
         r"node 'Reader', 'answers', query 0, answer 0: field 'document_ids' must be a list"),
        ([[hamlet_label()]], {"Reader": {"answer": [[]]}},
         r"node 'Reader': unknown output key 'answer'; .* Did you mean 'answers'\?"),
        ([[hamlet_label()]], {"Reader": {"answers": [None]}}, r"node 'Reader', 'answers', query 0: expected a list of answers"),
        ([[hamlet_label(), Label("Another query?", Document(HAMLET), True, True, "gold-label", Answer("x"))]],
         {"Reader": {"answers": [[]]}}, r"labels\[0\]: Tried to combine labels with different 'query' values"),
        ([[hamlet_label(), hamlet_label(filters={"lang": "de"}, pipeline_id="p")]], {"Reader": {"answers": [[]]}},
         r"different 'filters' values"),
        ([[hamlet_label()]], {"Reader": {"answers": [[Document(HAMLET)]]}}, r"must be an Answer or an Answer dict; got Document"),
        ("labels", {}, r"labels must be a list"),
    ],
)
def test_bad_input_is_named(labels, outputs, message):
    with pytest.raises(EvalframeError, match=message):
        EvaluationResult.from_runs(labels, outputs, progress=False)


# ------------------------------------------------------------------ the runs file
def test_example_runs_file_gives_the_hand_worked_metrics():
    labels, outputs = read_runs(EXAMPLE)
    assert [ml.query for ml in labels] == ["What is the capital of Germany?", "How high is Mount Everest?",
                                           "Who won the 2030 World Cup?", "What is the second-highest mountain?"]
    assert labels[0].filters == {"lang": ["en"]} and labels[2].no_answer
    result = EvaluationResult.from_runs(labels, outputs, progress=False)
    m = result.calculate_metrics()
    # gold at rank 2 | rank 1 | no gold (1.0) | empty retrieval (0.0)
    assert m["Retriever"]["map"] == pytest.approx((0.5 + 1 + 1 + 0) / 4)
    assert m["Retriever"]["precision"] == pytest.approx((0.5 + 0.5 + 1 + 0) / 4)
    assert m["Retriever"]["ndcg"] == pytest.approx((1 / math.log2(3) + 1 + 1 + 0) / 4)
    # Berlin found at rank 2 | exact | "France" for a no-answer | nothing answered
    assert m["Reader"]["exact_match"] == pytest.approx(2 / 4)
    # isolated: Berlin | exact | empty list -> "" matches the no-answer gold | K2
    assert result.calculate_metrics(eval_mode="isolated")["Reader"]["exact_match"] == 1.0


def test_runs_file_round_trips_through_the_result(tmp_path):
    labels, outputs = read_runs(EXAMPLE)
    result = EvaluationResult.from_runs(labels, outputs, progress=False)
    again = EvaluationResult.load(result.save(tmp_path / "out"))
    for node in result:
        pd.testing.assert_frame_equal(again[node], result[node])
    assert again.matching == result.matching


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", r"runs.jsonl:1: not valid JSON"),
        ('{"query": "q", "gold": {"document_ids": ["a"]}, "nodes": {"R": {"document": []}}}',
         r":1: node 'R' has unknown output key 'document'.*Did you mean 'documents'"),
        ('{"query": "q", "gold": {"document_ids": ["a", "b"], "answers": ["x"]}, "nodes": {"R": {"documents": []}}}',
         r":1: the gold lists must have one entry per gold label, but their lengths differ"),
        ('{"query": "q", "nodes": {"R": {"documents": []}}}', r":1: give the gold either as 'labels'"),
        ('{"query": "q", "gold": {"ids": []}, "nodes": {}}', r":1: unknown key 'ids' in 'gold'"),
        ('{"query": "q", "gold": {"document_ids": ["a"]}, "nodes": {"R": {"documents": [{"id": "a"}]}}}',
         r":1: node 'R', 'documents', document 1 has no content"),
    ],
)
def test_runs_file_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "runs.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(LoadError, match=message):
        read_runs(path)


def test_runs_file_lines_must_agree_on_nodes(tmp_path):
    path = tmp_path / "runs.jsonl"
    first = {"query": "q1", "gold": {"document_ids": ["a"]}, "nodes": {"R": {"documents": []}}}
    second = {"query": "q2", "gold": {"document_ids": ["a"]}, "nodes": {"R": {"documents": []}, "Reader": {"answers": []}}}
    path.write_text(json.dumps(first) + "\n\n" + json.dumps(second) + "\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r":3: names nodes and outputs"):
        read_runs(path)


# ------------------------------------------------------------------ matching options checked first (issue 12)
@pytest.mark.parametrize(
    ("option", "value", "pattern"),
    [
        ("context_matching_threshold", float("nan"),
         r"context_matching_threshold must be a finite number in \[0, 100\]; got nan"),
        ("context_matching_boost_split_overlaps", "no", r"context_matching_boost_split_overlaps must be True or False; got 'no'"),
        ("context_matching_boost_split_overlaps", "high", r"must be True or False; got 'high'"),
        ("context_matching_min_length", -5, r"context_matching_min_length must be an int >= 0; got -5"),
        ("custom_document_id_field", "", r"custom_document_id_field must be None or a non-empty str; got ''"),
        ("sas_model", 3.5, r"sas_model must be None, a callable"),
    ],
)
def test_matching_options_are_checked_before_any_scoring(option, value, pattern):
    # before: nan made every context match 0, "no" counted as True, "high" failed after all scoring, -5 was recorded
    from evalframe import Answer, Document, EvaluationResult, Label

    calls = []

    def sas(predictions, golds):
        calls.append(len(predictions))
        return [1.0] * len(predictions)

    doc = Document("Berlin is the capital of Germany.", id="d1")
    label = Label("Capital?", doc, True, True, "gold-label", Answer("Berlin"))
    kwargs = {"sas_model": sas, option: value}
    with pytest.raises(InvalidParameterError, match=pattern):
        EvaluationResult.from_runs([[label]], {"Reader": {"answers": [[Answer("Berlin", context=doc.content)]]}},
                                   progress=False, **kwargs)
    assert calls == []  # nothing was scored


def test_one_query_given_twice_with_other_gold_labels_is_refused_by_position():
    # found by review: the same question text twice (SQuAD repeats questions) gave two entries one multilabel_id; the
    # metrics then scored both entries' rows against the first one's gold list (recall 2.0, or map 2.0)
    d1 = Document("Berlin is the capital of Germany.", id="d1")
    d2 = Document("Paris is the capital of France.", id="d2")

    def label(doc, answer):
        return Label("capital?", doc, True, True, "gold-label", Answer(answer))

    outputs = {"Retriever": {"documents": [[d1, d2], [d2, d1], [d1]]}}
    with pytest.raises(EvalframeError, match=r"labels\[0\] and labels\[2\] are one query \(multilabel_id '[0-9a-f]{32}': "
                                             r"the query 'capital\?' with the same filters\) with different gold labels "
                                             r"\(gold document ids \['d1'\] and \['d1', 'd2'\]\)"):
        EvaluationResult.from_runs([[label(d1, "Berlin")], [Label("other?", d2, True, True, "gold-label", Answer("Paris"))],
                                    [label(d1, "Berlin"), label(d2, "Paris")]], outputs, progress=False)
    # the same gold labels twice are one query whose outputs come in two parts: its rows share the id
    other = Label("other?", d2, True, True, "gold-label", Answer("Paris"))
    result = EvaluationResult.from_runs([[label(d1, "Berlin")], [other], [label(d1, "Berlin")]], outputs, progress=False)
    assert result["Retriever"]["multilabel_id"].nunique() == 2 and len(result["Retriever"]) == 5


def test_one_query_given_twice_with_a_nan_custom_id_is_one_query():
    # NaN != NaN: the two entries' gold labels are compared by their JSON text, where NaN equals NaN
    def label():
        doc = Document("Berlin is the capital of Germany.", id="d1", meta={"key": float("nan")})
        return Label("capital?", doc, True, True, "gold-label", Answer("Berlin"))

    documents = [Document("Berlin is the capital of Germany.", id="d1", meta={"key": float("nan")})]
    result = EvaluationResult.from_runs([[label()], [label()]], {"Retriever": {"documents": [documents, documents]}},
                                        custom_document_id_field="key", progress=False)
    assert result["Retriever"]["multilabel_id"].nunique() == 1 and len(result["Retriever"]) == 2


# ------------------------------------------------------------------ documents without an id
def test_in_memory_documents_without_ids_are_warned_about_once_with_the_first_position():
    with_ids = [{"id": f"d{j}", "content": f"passage {j}"} for j in range(3)]
    without = [{"content": f"passage {j}"} for j in range(400)]
    labels = [[hamlet_label()], [hamlet_label(filters={"lang": "de"})], [hamlet_label(filters={"lang": "fr"})]]
    pattern = (r"800 of 803 retrieved documents have no 'id' or an empty one \(the first: node 'R', 'documents', query 1, "
               r"document 0\); one without an id gets the hash of its content as id.*document_id scopes.*"
               r"document_scope='context'")
    with pytest.warns(UserWarning, match=pattern) as caught:
        frame = EvaluationResult.from_runs(labels, {"R": {"documents": [with_ids, without, without]}},
                                           progress=False)["R"]
    assert len(caught) == 1 and caught[0].filename == __file__
    assert frame["gold_id_match"].sum() == 0.0  # what the warning is about: the hashes match no gold id "hamlet"


def test_documents_with_an_empty_id_are_warned_about_too():
    # was: no warning; an id '' is kept, and equals no gold id
    documents = [{"id": "", "content": "passage 0"}, {"id": "d1", "content": "passage 1"}, {"id": "", "content": "x"}]
    with pytest.warns(UserWarning, match=r"^2 of 3 retrieved documents have no 'id' or an empty one \(the first: node "
                                         r"'R', 'documents', query 0, document 0\)") as caught:
        frame = EvaluationResult.from_runs([[hamlet_label()]], {"R": {"documents": [documents]}}, progress=False)["R"]
    assert len(caught) == 1
    assert frame["document_id"].tolist() == ["", "d1", ""]


def test_no_warning_when_every_in_memory_document_has_an_id():
    documents = [[{"id": "hamlet", "content": HAMLET}, Document(FAUST)]]  # a Document object always has its id
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = EvaluationResult.from_runs([[hamlet_label()]], {"R": {"documents": documents}}, progress=False)["R"]
    assert frame["gold_id_match"].tolist() == [1.0, 0.0]


# ------------------------------------------------------------------ the match columns against their definition
def reference_match_columns(ids: list[float], sims: list[float], answers: list[float], threshold: float) -> list[float]:
    """Haystack 1.x's nine document match columns of one row, written out from its per-gold lists."""
    ctx = [1.0 if s > threshold else 0.0 for s in sims]
    gold_id, answer = max(ids + [0.0]), max(answers + [0.0])
    context = 1.0 if any(s > threshold for s in sims) else 0.0
    return [
        gold_id, context, answer, max(gold_id, answer),
        max(min(i, a) for i, a in zip(ids + [0.0], answers + [0.0])),
        max(gold_id, context),
        max(min(i, x) for i, x in zip(ids + [0.0], ctx + [0.0])),
        max(min(i, x, a) for i, x, a in zip(ids + [0.0], ctx + [0.0], answers + [0.0])),
        max(min(x, a) for x, a in zip(ctx, answers)) if any(answers) and any(sims) else 0.0,
    ]


def test_document_match_columns_follow_their_definition_on_random_runs():
    import random

    rng = random.Random(24)
    passages = [f"{HAMLET} Variant {k}." if k % 2 else f"{FAUST} Variant {k}." for k in range(6)]
    labels, documents = [], []
    for q in range(40):
        chosen = rng.sample(range(6), rng.randint(1, 3))
        query_labels = [Label(f"query {q}", Document(passages[k], id=f"p{k}"), True, True, "gold-label",
                              Answer(rng.choice(["Shakespeare", "Goethe", "tragedy", ""])))
                        for k in chosen]
        if rng.random() < 0.2:  # a no-answer label beside answered ones: the gold lists differ in length
            query_labels.append(Label(f"query {q}", Document("", id=""), True, True, "gold-label", Answer("")))
        labels.append(query_labels)
        documents.append([Document(passages[k][: rng.choice([60, 200])], id=rng.choice([f"p{k}", f"x{k}"]))
                          for k in rng.choices(range(6), k=rng.randint(0, 5))])
    frame = EvaluationResult.from_runs(labels, {"R": {"documents": documents, "documents_isolated": documents}},
                                       progress=False)["R"]
    assert len(frame) > 150
    for row in frame.itertuples(index=False):
        expected = reference_match_columns(row.gold_documents_id_match, row.gold_contexts_similarity,
                                           row.gold_answers_match, 65.0)
        got = [getattr(row, name) for name in ("gold_id_match", "context_match", "answer_match",
                                               "gold_id_or_answer_match", "gold_id_and_answer_match",
                                               "gold_id_or_context_match", "gold_id_and_context_match",
                                               "gold_id_and_context_and_answer_match", "context_and_answer_match")]
        assert got == expected, row
