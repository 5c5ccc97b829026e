"""EvaluationResult.from_ragas on the files Ragas wrote (tests/data/rag/ragas/, scripts/make_ragas_goldens.py): the
metrics by hand, and equal to from_runs' on the same data written by hand as a runs file."""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult, read_runs
from evalframe.errors import EvalframeError, InvalidParameterError, LoadError

GOLDENS = Path(__file__).parents[1] / "data" / "rag" / "ragas"
FILES = ["dataset.jsonl", "dataset.csv", "dataset.parquet", "results.jsonl", "results.csv", "results.parquet"]

BERLIN = 'Berlin is the capital of Germany.\nIt is also its largest city, with "3.8 million" people.'
BONN = "Bonn was the capital of West Germany until 1990."
PARIS = "Paris is the capital and largest city of France."
SCHILLER = "Friedrich Schiller wrote The Robbers."
WEIMAR = "Weimar is a city in Thuringia, home to many poets."
GOETHE = "Faust is a tragic play by Johann Wolfgang von Goethe."


def generated(answer: str, ids: list[str]) -> dict[str, Any]:
    return {"answer": answer, "type": "generative", "document_ids": ids}


#: The golden dataset as a person writes it in a runs file (docs/runs-format.md): one line per sample, the retrieved
#: contexts as the retriever's documents, the response as the generator's answer citing them.
RUNS_LINES = [
    {"query": "What is the capital of Germany?",
     "gold": {"document_ids": ["berlin"], "contexts": [BERLIN], "answers": ["Berlin"]},
     "nodes": {"Retriever": {"documents": [{"id": "bonn", "content": BONN}, {"id": "berlin", "content": BERLIN}]},
               "Generator": {"answers": [generated("Berlin", ["bonn", "berlin"])]}}},
    {"query": "What is the capital of France?",
     "gold": {"document_ids": ["paris"], "contexts": [PARIS], "answers": ["Paris"]},
     "nodes": {"Retriever": {"documents": [{"id": "paris", "content": PARIS}]},
               "Generator": {"answers": [generated("Lyon.\nIt is in France.", ["paris"])]}}},
    {"query": "Who wrote Faust?",
     "gold": {"document_ids": ["goethe"], "contexts": [GOETHE], "answers": ["Johann Wolfgang von Goethe"]},
     "nodes": {"Retriever": {"documents": [{"id": "schiller", "content": SCHILLER}, {"id": "weimar", "content": WEIMAR}]},
               "Generator": {"answers": [generated("Goethe", ["schiller", "weimar"])]}}},
    {"query": "Who won the 2030 World Cup?", "gold": {"answers": [""]},
     "nodes": {"Retriever": {"documents": [{"id": "paris", "content": PARIS}]},
               "Generator": {"answers": [generated("", ["paris"])]}}},
]


def from_runs(tmp_path: Path, lines: list[dict], **options: Any) -> EvaluationResult:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with warnings.catch_warnings():  # documents without ids beside the placeholder gold id of answers alone
        warnings.filterwarnings("ignore", message=r".* retrieved documents have no 'id'")
        labels, outputs = read_runs(path)
    return EvaluationResult.from_runs(labels, outputs, progress=False, **options)


def ragas(source: Any, **options: Any) -> EvaluationResult:
    return EvaluationResult.from_ragas(source, progress=False, **options)


@pytest.mark.parametrize("name", FILES)
def test_hand_worked_metrics_of_each_golden_file(name):
    metrics = ragas(GOLDENS / name, scores=[]).calculate_metrics()
    retriever, generator = metrics["Retriever"], metrics["Generator"]
    # Germany: the gold document at rank 2; France: rank 1; Faust: none retrieved; World Cup: no gold (L = 0) -> 1.0
    assert retriever["mrr"] == (1 / 2 + 1 + 0 + 1) / 4
    assert retriever["recall_single_hit"] == (1 + 1 + 0 + 1) / 4
    assert retriever["precision"] == (1 / 2 + 1 + 0 + 1) / 4
    assert retriever["ndcg"] == pytest.approx((1 / math.log2(3) + 1 + 0 + 1) / 4)
    # Berlin = Berlin; "Lyon. It is in France." != Paris (no common token); "Goethe" in the reference: P = 1, R = 1/4;
    # the empty response to the no-answer question is right
    assert generator["exact_match"] == (1 + 0 + 0 + 1) / 4
    assert generator["f1"] == pytest.approx((1 + 0 + 2 * 1 * 0.25 / 1.25 + 1) / 4)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scope", ["document_id_or_answer", "document_id", "context", "answer"])
def test_each_golden_file_equals_from_runs_on_the_runs_file_written_by_hand(tmp_path, name, scope):
    result = ragas(GOLDENS / name, scores=[])
    expected = from_runs(tmp_path, RUNS_LINES)
    for node in ("Retriever", "Generator"):
        pd.testing.assert_frame_equal(result[node], expected[node])
        pd.testing.assert_frame_equal(result.query_metrics(node, document_scope=scope),
                                      expected.query_metrics(node, document_scope=scope))


def test_the_csv_rows_are_named_by_the_line_they_start_on(tmp_path):
    # the second sample's response spans two lines: the third sample starts on line 5 of the file
    text = (GOLDENS / "dataset.csv").read_text(encoding="utf-8")
    path = tmp_path / "ragas.csv"
    path.write_text(text.replace("['schiller', 'weimar']", "['schiller', 'weimar'"), encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"ragas\.csv:5: column 'retrieved_context_ids' holds .* which starts like a "
                                             r"list but is neither JSON nor a Python list literal"):
        ragas(path)


@pytest.mark.parametrize("change, message", [
    (lambda s: {**s, "retrieved_contexts": 5}, r"ragas\.jsonl:3: column 'retrieved_contexts' must hold a list"),
    (lambda s: {**s, "response": ["a"]}, r"ragas\.jsonl:3: column 'response' must hold text; got \['a'\]"),
    (lambda s: {**s, "reference_context_ids": [["goethe"]]}, r"ragas\.jsonl:3: reference_context_ids\[1\] must be a string"),
    (lambda s: {**s, "retrieved_context_ids": ["schiller"]},
     r"ragas\.jsonl:3: the retrieved lists differ in length, \{'retrieved_context_ids': 1, 'retrieved_contexts': 2\}"),
    (lambda s: {**s, "user_input": None}, r"ragas\.jsonl:3: column 'user_input' is empty"),
    (lambda s: {**s, "reference_contexts": ["a"]}, r"ragas\.jsonl:3: reference_context_ids has 1 entries and "
                                                  r"reference_contexts 1|ragas\.jsonl:3: reference_context_ids has"),
])
def test_a_mistyped_field_is_named_by_file_line_and_column(tmp_path, change, message):
    lines = [json.loads(text) for text in (GOLDENS / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    lines[2] = change(lines[2])
    path = tmp_path / "ragas.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines[:2]) + "\n\n" + json.dumps(lines[2]) + "\n",
                    encoding="utf-8")  # a blank line before the third sample: it is on line 4... of the text
    if "entries" in message:  # one reference context beside one id: fine, the same document
        ragas(path)
        return
    with pytest.raises(EvalframeError, match=message.replace(":3", ":4")):
        ragas(path)


def test_files_that_cannot_be_read_are_named(tmp_path):
    path = tmp_path / "ragas.jsonl"
    path.write_text('{"user_input": "q"}\n{"user_input": \n', encoding="utf-8")
    with pytest.raises(LoadError, match=r"ragas\.jsonl:2: not valid JSON"):
        ragas(path)
    path.write_text('["q"]\n', encoding="utf-8")
    with pytest.raises(LoadError, match=r"ragas\.jsonl:1: each line must be a JSON object \(one row\); got list"):
        ragas(path)
    with pytest.raises(LoadError, match=r"missing\.csv does not exist"):
        ragas(tmp_path / "missing.csv")
    with pytest.raises(InvalidParameterError, match=r"dataset_or_path: .*ragas\.txt is not a table file this reads; give a "
                                                    r"file ending in \['\.jsonl', '\.json', '\.csv', '\.parquet'\]"):
        ragas(tmp_path / "ragas.txt")
    with pytest.raises(InvalidParameterError, match=r"dataset_or_path must be a pandas DataFrame, an object with "
                                                    r"to_pandas\(\), a list of dicts or the path"):
        ragas(42)
    shutil.copy(GOLDENS / "dataset.csv", tmp_path / "no_question.csv")
    frame = pd.read_csv(tmp_path / "no_question.csv").drop(columns="user_input")
    with pytest.raises(EvalframeError, match=r"has no column 'user_input' \(Ragas' question; 'question' before Ragas "
                                             r"0\.2\); its columns are \['retrieved_contexts'"):
        ragas(frame)


def test_a_json_list_a_dataframe_and_an_object_with_to_pandas():
    samples = [json.loads(text) for text in (GOLDENS / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = ragas(GOLDENS / "dataset.jsonl", scores=[]).calculate_metrics()

    class Dataset:  # what ragas.EvaluationDataset and ragas' EvaluationResult offer
        def to_pandas(self) -> pd.DataFrame:
            return pd.DataFrame(samples)

    assert ragas(samples).calculate_metrics() == expected
    assert ragas(pd.DataFrame(samples)).calculate_metrics() == expected
    assert ragas(Dataset()).calculate_metrics() == expected


def test_the_names_of_ragas_before_0_2(tmp_path):
    old = [{"question": line["query"], "contexts": [d["content"] for d in line["nodes"]["Retriever"]["documents"]],
            "answer": line["nodes"]["Generator"]["answers"][0]["answer"],
            "ground_truth": (line["gold"]["answers"][0])} for line in RUNS_LINES]
    # no ids and no reference contexts: each gold answer with a gold document no retrieved one is; a retrieved context
    # is relevant when it holds the answer (the default scope); the runs file says the same
    lines = [{"query": line["query"], "gold": {"document_ids": ["<no gold document>"], "answers": [line["gold"]["answers"][0]]}
              if line["gold"]["answers"][0] else {"answers": [""]},
              "nodes": {"Retriever": {"documents": [{"content": d["content"]} for d in line["nodes"]["Retriever"]["documents"]]},
                        "Generator": {"answers": [generated(line["nodes"]["Generator"]["answers"][0]["answer"],
                                                            [])]}}} for line in RUNS_LINES]
    result = ragas(old)
    expected = from_runs(tmp_path, lines)
    pd.testing.assert_frame_equal(result.query_metrics("Retriever"), expected.query_metrics("Retriever"))
    pd.testing.assert_frame_equal(result.query_metrics("Generator"), expected.query_metrics("Generator"))
    # by hand: Germany: "Berlin" in the second context -> mrr 1/2; France: Paris's context holds "Paris" -> 1;
    # Faust: no context holds "Johann Wolfgang von Goethe" -> 0; the no-answer question -> 1
    assert result.calculate_metrics()["Retriever"]["mrr"] == (1 / 2 + 1 + 0 + 1) / 4
    assert result.calculate_metrics(document_scope="document_id")["Retriever"]["mrr"] == (0 + 0 + 0 + 1) / 4
    many = [{**{k: v for k, v in sample.items() if k != "ground_truth"}, "ground_truths": [sample["ground_truth"]]}
            for sample in old]  # ground_truths: a list of answers
    assert ragas(many).calculate_metrics() == result.calculate_metrics()


def test_live_ragas_objects(monkeypatch):
    monkeypatch.setenv("RAGAS_DO_NOT_TRACK", "true")  # no usage analytics: nothing leaves the machine
    ragas_module = pytest.importorskip("ragas")
    ragas_metrics = pytest.importorskip("ragas.metrics")
    samples = [json.loads(text) for text in (GOLDENS / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    dataset = ragas_module.EvaluationDataset.from_list(samples)
    expected = ragas(GOLDENS / "dataset.jsonl").calculate_metrics()
    assert ragas(dataset).calculate_metrics() == expected
    evaluated = ragas_module.evaluate(dataset, metrics=[ragas_metrics.IDBasedContextPrecision(), ragas_metrics.ExactMatch()],
                                      show_progress=False)  # neither needs a model
    table = ragas(evaluated).query_metrics("Generator")
    # retrieved ids that are gold: Germany 1 of 2, France 1 of 1, Faust 0 of 2, the World Cup 0 of 1 (no gold id)
    assert table["id_based_context_precision"].tolist() == [0.5, 1.0, 0.0, 0.0]
    assert table["ragas_exact_match"].tolist() == [1.0, 0.0, 0.0, 1.0]  # Ragas' own, beside evalframe's exact_match


def test_other_text_columns_are_meta_fields_to_slice_by():
    samples = [json.loads(text) for text in (GOLDENS / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    topics = ["geography", "geography", "literature", None]
    tagged = [{**sample, "topic": topic, "persona_name": "student"} for sample, topic in zip(samples, topics)]
    result = ragas(tagged, scores=[])
    assert result["Retriever"].drop_duplicates("multilabel_id")["meta"].tolist() == [
        '{"persona_name": "student", "topic": "geography"}', '{"persona_name": "student", "topic": "geography"}',
        '{"persona_name": "student", "topic": "literature"}', '{"persona_name": "student"}']
    mrr = result.sliced_metrics("meta.topic")["mrr"]
    # geography: Germany (1/2) and France (1); literature: Faust (0); the World Cup question has no topic
    assert mrr[("Retriever", "geography")] == (1 / 2 + 1) / 2 and mrr[("Retriever", "literature")] == 0.0
    assert "meta" not in ragas(tagged, scores=[], meta=[])["Retriever"]


def test_a_score_column_with_one_cell_that_is_no_number_is_refused_not_read_as_meta():
    """Review finding: one 'n/a' made the whole faithfulness column a meta field, its scores gone without a word."""
    rows = [{"user_input": "a?", "retrieved_contexts": ["x"], "retrieved_context_ids": ["d1"],
             "reference_context_ids": ["d1"], "response": "x", "reference": "x", "faithfulness": 1.0},
            {"user_input": "b?", "retrieved_contexts": ["y"], "retrieved_context_ids": ["d2"],
             "reference_context_ids": ["d2"], "response": "y", "reference": "y", "faithfulness": "n/a"}]
    with pytest.raises(EvalframeError, match="row 2, column 'faithfulness' must be a number .*; got 'n/a', text"):
        EvaluationResult.from_ragas(rows, progress=False)
