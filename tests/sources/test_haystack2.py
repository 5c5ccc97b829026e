"""EvaluationResult.from_haystack2: Haystack 2.x run results, detailed reports and pipeline outputs.

The golden files were written by haystack-ai itself (scripts/make_framework_goldens.py; its version in
tests/data/rag/haystack2/versions.json). Every expected number is worked out by hand from the five questions below,
and checked again against from_runs on the same data written by hand as a runs file.

The questions (gold ids; retrieved ids in rank order; gold answer; generated answer):

1. capital of Germany: d1; d2 d1; "Berlin"; "Berlin"
2. capital of France: d3; d4 d5 d3; "Paris"; "Lyon"
3. 2030 World Cup: none (a no-answer question); d5; ""; "I don't know."
4. capitals of Germany: d1 d2; d1 d3 d2; "Berlin and Bonn"; "Berlin and Bonn"
5. highest mountain: d5; d1 d3; "Mount Everest"; "K2"
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvalframeError, EvaluationResult, InvalidParameterError, LoadError

DATA = Path(__file__).parents[1] / "data" / "rag" / "haystack2"
RUN = DATA / "run_result.json"
LOG2_3 = math.log2(3)

# per question, document_scope="document_id", worked out by hand (docs/metrics.md's definitions): question 3 has no
# gold document, so evalframe scores it 1.0 (Haystack 1.x's rule); question 5 retrieves no gold document
HAND = {
    "mrr": [1 / 2, 1 / 3, 1.0, 1.0, 0.0],
    "map": [1 / 2, 1 / 3, 1.0, (1 / 1 + 2 / 3) / 2, 0.0],
    "precision": [1 / 2, 1 / 3, 1.0, 2 / 3, 0.0],
    "recall_multi_hit": [1.0, 1.0, 1.0, 1.0, 0.0],
    "recall_single_hit": [1.0, 1.0, 1.0, 1.0, 0.0],
    "ndcg": [1 / LOG2_3, 1 / math.log2(4), 1.0, (1 + 1 / math.log2(4)) / (1 + 1 / LOG2_3), 0.0],
}
HAND_EXACT_MATCH = [1.0, 0.0, 0.0, 1.0, 0.0]  # "I don't know." is not the empty no-answer

CORPUS = {
    "d1": "Berlin is the capital of Germany.",
    "d2": "Bonn was the capital of West Germany.",
    "d3": "Paris is the capital of France.",
    "d4": "Lyon is a city in France.",
    "d5": "Mount Everest is the highest mountain on Earth.",
}


def _doc(doc_id: str, score: float) -> dict:
    return {"id": doc_id, "content": CORPUS[doc_id], "score": score}


# the same five questions written by hand as a runs file (docs/runs-format.md)
RUNS_LINES = [
    {"query": "What is the capital of Germany?",
     "gold": {"document_ids": ["d1"], "contexts": [CORPUS["d1"]], "answers": ["Berlin"]},
     "nodes": {"Retriever": {"documents": [_doc("d2", 0.9), _doc("d1", 0.8)]},
               "Generator": {"answers": [{"answer": "Berlin", "type": "generative", "document_ids": ["d2", "d1"]}]}}},
    {"query": "What is the capital of France?",
     "gold": {"document_ids": ["d3"], "contexts": [CORPUS["d3"]], "answers": ["Paris"]},
     "nodes": {"Retriever": {"documents": [_doc("d4", 0.7), _doc("d5", 0.6), _doc("d3", 0.5)]},
               "Generator": {"answers": [{"answer": "Lyon", "type": "generative",
                                          "document_ids": ["d4", "d5", "d3"]}]}}},
    {"query": "Who won the 2030 World Cup?", "gold": {"answers": [""]},
     "nodes": {"Retriever": {"documents": [_doc("d5", 0.2)]},
               "Generator": {"answers": [{"answer": "I don't know.", "type": "generative", "document_ids": ["d5"]}]}}},
    {"query": "Which cities were capitals of Germany?",
     "gold": {"document_ids": ["d1", "d2"], "contexts": [CORPUS["d1"], CORPUS["d2"]],
              "answers": ["Berlin and Bonn", "Berlin and Bonn"]},
     "nodes": {"Retriever": {"documents": [_doc("d1", 0.95), _doc("d3", 0.4), _doc("d2", 0.3)]},
               "Generator": {"answers": [{"answer": "Berlin and Bonn", "type": "generative",
                                          "document_ids": ["d1", "d3", "d2"]}]}}},
    {"query": "What is the highest mountain?",
     "gold": {"document_ids": ["d5"], "contexts": [CORPUS["d5"]], "answers": ["Mount Everest"]},
     "nodes": {"Retriever": {"documents": [_doc("d1", 0.3), _doc("d3", 0.1)]},
               "Generator": {"answers": [{"answer": "K2", "type": "generative", "document_ids": ["d1", "d3"]}]}}},
]


@pytest.fixture(scope="module")
def from_file() -> EvaluationResult:
    return EvaluationResult.from_haystack2(RUN, scores=[], document_comparison_field="id", progress=False)


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResult:
    path = tmp_path_factory.mktemp("runs") / "runs.jsonl"
    # the run result's input "topic" plays no role: each question's meta field, as a Ragas dataset's text column
    topics = ["germany", "france", "sports", "germany", "geography"]
    path.write_text("".join(json.dumps({**line, "meta": {"topic": topic}}) + "\n"
                            for line, topic in zip(RUNS_LINES, topics)), encoding="utf-8")
    from evalframe import read_runs
    labels, outputs = read_runs(path)
    return EvaluationResult.from_runs(labels, outputs, progress=False, keep_scores=True)


def assert_same_metrics(ours: dict, theirs: dict) -> None:
    assert {node: sorted(m) for node, m in ours.items()} == {node: sorted(m) for node, m in theirs.items()}
    for node, metrics in ours.items():
        assert metrics == pytest.approx(theirs[node], abs=1e-12, nan_ok=True), node


def _per_query(result: EvaluationResult, node: str, **options) -> pd.DataFrame:
    return result.query_metrics(node, with_query=True, **options).set_index("query")


def test_the_golden_run_result_gives_the_hand_worked_metrics(from_file):
    table = _per_query(from_file, "Retriever", document_scope="document_id")
    for metric, values in HAND.items():
        assert table[metric].tolist() == pytest.approx(values, abs=1e-12), metric
    metrics = from_file.calculate_metrics(document_scope="document_id")
    assert metrics["Retriever"]["mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1 + 1 + 0) / 5)
    assert metrics["Generator"]["exact_match"] == pytest.approx(2 / 5)
    assert _per_query(from_file, "Generator")["exact_match"].tolist() == HAND_EXACT_MATCH
    # the retriever's scores are kept, in rank order
    assert from_file["Retriever"]["score"].tolist() == [0.9, 0.8, 0.7, 0.6, 0.5, 0.2, 0.95, 0.4, 0.3, 0.3, 0.1]


def test_the_golden_run_result_equals_the_same_data_written_as_a_runs_file(from_file, by_hand):
    for options in ({}, {"document_scope": "document_id"}, {"document_scope": "context"},
                    {"simulated_top_k_retriever": 1}, {"document_scope": "document_id_or_answer", "answer_scope": "context"}):
        assert_same_metrics(from_file.calculate_metrics(**options), by_hand.calculate_metrics(**options))
    for node in ("Retriever", "Generator"):
        pd.testing.assert_frame_equal(from_file[node], by_hand[node])


def test_haystack_own_evaluator_scores_agree_with_evalframe_where_the_definitions_agree(from_file):
    """Haystack's DocumentMRR/MAP/NDCG/Recall(single hit) evaluators (run for real, compared by id) against
    evalframe's per-query values with document_scope="document_id". They agree on every question with a gold
    document; on the no-answer question 3 Haystack's evaluators score 0.0 (no ground truth) where evalframe scores
    1.0 (Haystack 1.x's rule, SPEC section 3)."""
    haystack = json.loads(RUN.read_text())["results"]
    table = _per_query(from_file, "Retriever", document_scope="document_id")
    answerable = [0, 1, 3, 4]
    for theirs, ours in (("doc_mrr", "mrr"), ("doc_map", "map"), ("doc_ndcg", "ndcg"),
                         ("doc_recall", "recall_single_hit")):
        individual = haystack[theirs]["individual_scores"]
        assert [individual[i] for i in answerable] == pytest.approx([table[ours].iloc[i] for i in answerable]), ours
        assert individual[2] == 0.0 and table[ours].iloc[2] == 1.0
    # AnswerExactMatchEvaluator compares the strings as they are; evalframe's exact_match normalises (SQuAD) first:
    # equal here, where no answer differs only by case or punctuation
    generator = _per_query(from_file, "Generator")
    assert haystack["exact_match"]["individual_scores"] == generator["exact_match"].tolist()


def test_content_comparison_the_haystack_default_matches_by_text(from_file):
    by_content = EvaluationResult.from_haystack2(RUN, scores=[], progress=False)
    # contents are unique here, so comparing texts finds the same relevant documents as comparing ids
    assert_same_metrics(by_content.calculate_metrics(document_scope="document_id"),
                        from_file.calculate_metrics(document_scope="document_id"))
    # the ids of the frames are then the contents' hashes, on both sides
    assert by_content["Retriever"]["document_id"].iloc[0] != "d2"
    # a meta field as the key: every document's "source"
    by_source = EvaluationResult.from_haystack2(RUN, scores=[], document_comparison_field="meta.source",
                                                progress=False)
    assert by_source["Retriever"]["document_id"].tolist()[:2] == ["wiki/bonn", "wiki/germany"]
    assert by_source.calculate_metrics(document_scope="document_id")["Retriever"]["mrr"] == pytest.approx(
        (1 / 2 + 1 / 3 + 1 + 1 + 0) / 5)


def test_the_inputs_of_haystack_tutorial_with_contexts_and_answers_alone():
    """Haystack's RAG evaluation tutorial keeps the retrieved texts as "contexts" and the gold answer as "answer"
    beside "predicted_answer": without gold documents, a context is relevant when it holds the gold answer."""
    run = {"inputs": {"question": ["Capital of Germany?", "Capital of France?"],
                      "contexts": [["Bonn was the capital.", "Berlin is the capital."], ["Lyon is a city."]],
                      "answer": ["Berlin", "Paris"], "predicted_answer": ["Berlin", "Lyon"]},
           "results": {}}
    result = EvaluationResult.from_haystack2(run, progress=False)
    metrics = result.calculate_metrics()
    assert metrics["Retriever"]["mrr"] == (1 / 2 + 0) / 2  # "Berlin" in the second context; "Paris" in none
    assert metrics["Generator"]["exact_match"] == 1 / 2


def test_the_detailed_report_gives_the_same_result(from_file):
    report = json.loads((DATA / "detailed_report.json").read_text())
    from_report = EvaluationResult.from_haystack2(report, scores=[], document_comparison_field="id", progress=False)
    assert_same_metrics(from_report.calculate_metrics(), from_file.calculate_metrics())
    frame = pd.DataFrame(report)  # detailed_report(output_format="df")
    from_frame = EvaluationResult.from_haystack2(frame, scores=[], document_comparison_field="id", progress=False)
    assert_same_metrics(from_frame.calculate_metrics(), from_file.calculate_metrics())


def test_the_scores_of_a_detailed_report_are_its_numeric_columns_without_a_role():
    from evalframe.sources.haystack2 import haystack2_records
    frame = pd.DataFrame(json.loads((DATA / "detailed_report.json").read_text()))
    frame["passing"] = [True, False, True, True, False]  # a bool is no score
    frame["nothing"] = None  # nor a column without any number
    frame["latency"] = [0.5, None, 1.5, 2.0, 1.0]  # a number missing: NaN
    with pytest.warns(UserWarning, match=r"^from_haystack2: columns that give no score: 'topic' \(a meta field: texts, "
                                         r"not numbers\), 'passing' \(a meta field: "
                                         r"True / False, not numbers\), 'nothing' \(a meta field: no value in any row\)"):
        read = haystack2_records(frame, document_comparison_field="id")
    # exact_match is evalframe's own metric: Haystack's kept beside it
    assert list(read.records[1].scores) == ["doc_mrr", "doc_map", "doc_recall", "doc_ndcg", "haystack_exact_match",
                                            "faithfulness", "latency"]
    assert math.isnan(read.records[1].scores["latency"]) and read.records[2].scores["latency"] == 1.5
    assert [r.where for r in read.records][:2] == ["row 1", "row 2"]
    frame["question"] = frame["question"].astype(object)
    frame.loc[2, "question"] = 7
    with pytest.raises(EvalframeError, match=r"row 3: question must be the question's text; got 7"), \
            pytest.warns(UserWarning, match="columns that give no score"):
        EvaluationResult.from_haystack2(frame)


def test_pipeline_outputs_of_a_real_pipeline():
    """Pipeline.run outputs (BM25 over the five documents, top 3; the answer builder's GeneratedAnswer), with the
    gold given beside them; the question is read from each GeneratedAnswer."""
    golden = json.loads((DATA / "pipeline_outputs.json").read_text())
    result = EvaluationResult.from_haystack2(golden["outputs"], gold_ids=golden["ground_truth_document_ids"],
                                             gold_answers=golden["ground_truth_answers"], progress=False)
    # BM25 ranked (in the file): d1 d2 d3 | d3 d1 d2 | d1 d3 d2 | d1 d2 d3 | d5 d1 d3: every gold document first
    table = _per_query(result, "Retriever", document_scope="document_id")
    assert table.index.tolist() == golden["questions"]
    assert table["mrr"].tolist() == [1.0] * 5
    assert table["precision"].tolist() == pytest.approx([1 / 3, 1 / 3, 1.0, 2 / 3, 1 / 3])
    assert table["map"].tolist() == pytest.approx([1.0, 1.0, 1.0, (1 / 1 + 2 / 2) / 2, 1.0])
    assert _per_query(result, "Generator")["exact_match"].tolist() == HAND_EXACT_MATCH
    assert result["Retriever"]["score"].iloc[0] == golden["outputs"][0]["retriever"]["documents"][0]["score"]
    # the replies of the generator give the same answers as the answer builder's GeneratedAnswers
    replies = EvaluationResult.from_haystack2(golden["outputs"], questions=golden["questions"], answers_from="llm",
                                              gold_ids=golden["ground_truth_document_ids"],
                                              gold_answers=golden["ground_truth_answers"], progress=False)
    assert replies["Generator"]["answer"].tolist() == result["Generator"]["answer"].tolist()


def test_pipeline_outputs_of_the_last_component_alone():
    """Pipeline.run returns only the last component's outputs by default: the retrieved documents are then those
    the answer builder's GeneratedAnswer cites (the retriever's, in its order)."""
    golden = json.loads((DATA / "pipeline_outputs.json").read_text())
    keywords = {"gold_ids": golden["ground_truth_document_ids"], "gold_answers": golden["ground_truth_answers"],
                "progress": False}
    last = [{"answer_builder": o["answer_builder"]} for o in golden["outputs"]]
    result = EvaluationResult.from_haystack2(last, **keywords)
    full = EvaluationResult.from_haystack2(golden["outputs"], **keywords)
    assert_same_metrics(result.calculate_metrics(), full.calculate_metrics())
    assert result["Retriever"]["document_id"].tolist() == full["Retriever"]["document_id"].tolist()


def test_haystack_document_dicts_keep_their_flattened_meta():
    from evalframe.sources.haystack2 import haystack2_records
    read = haystack2_records(RUN, scores=[], document_comparison_field="id")
    first = read.records[0].retrieved[0]
    assert (first.id, first.score, dict(first.meta)) == ("d2", 0.9, {"source": "wiki/bonn"})


def test_meta_from_an_input_is_sliceable():
    result = EvaluationResult.from_haystack2(RUN, scores=[], inputs={"meta": ["topic"]}, document_comparison_field="id",
                                             progress=False)
    assert result["Generator"]["meta"].tolist() == ['{"topic": "germany"}', '{"topic": "france"}', '{"topic": "sports"}',
                                                    '{"topic": "germany"}', '{"topic": "geography"}']
    sliced = result.sliced_metrics("meta.topic", document_scope="document_id")
    # germany: questions 1 and 4, mrr (1/2 + 1) / 2; exact_match (1 + 1) / 2
    assert sliced.loc[("Retriever", "germany"), "mrr"] == pytest.approx(3 / 4)
    assert sliced.loc[("Generator", "germany"), "exact_match"] == 1.0
    assert sliced.loc[("Retriever", "geography"), "mrr"] == 0.0


def test_meta_of_pipeline_outputs():
    golden = json.loads((DATA / "pipeline_outputs.json").read_text())
    meta = [{"split": "dev"}, None, {"split": "test"}, {"split": "dev"}, {}]
    result = EvaluationResult.from_haystack2(golden["outputs"], gold_ids=golden["ground_truth_document_ids"],
                                             gold_answers=golden["ground_truth_answers"], meta=meta, progress=False)
    examples = result.wrong_examples("Generator", n=5)
    assert {e["query"]: e["meta"] for e in examples}["What is the capital of France?"] == {}
    assert {e["query"]: e["meta"] for e in examples}["What is the highest mountain?"] == {}
    assert result["Retriever"].drop_duplicates("query")["meta"].tolist() == [
        '{"split": "dev"}', None, '{"split": "test"}', '{"split": "dev"}', "{}"]
    with pytest.raises(InvalidParameterError, match=r"meta\[1\] must be a dict or None; got 'x'"):
        EvaluationResult.from_haystack2(golden["outputs"], gold_ids=golden["ground_truth_document_ids"],
                                        meta=[None, "x", None, None, None])


def test_individual_scores_are_kept_per_question_under_free_names():
    from evalframe.sources.haystack2 import haystack2_records
    results = json.loads(RUN.read_text())["results"]
    read = haystack2_records(RUN)
    # "exact_match" is evalframe's own metric: Haystack's is kept beside it as haystack_exact_match
    assert list(read.records[0].scores) == ["doc_mrr", "doc_map", "doc_recall", "doc_ndcg", "haystack_exact_match",
                                            "faithfulness"]
    for name, outcome in results.items():
        ours = "haystack_exact_match" if name == "exact_match" else name
        assert [r.scores[ours] for r in read.records] == [float(v) for v in outcome["individual_scores"]]
    chosen = haystack2_records(RUN, scores=["faithfulness"])
    assert [r.scores for r in chosen.records][:2] == [{"faithfulness": 1.0}, {"faithfulness": 0.0}]
    with pytest.raises(InvalidParameterError, match=r"scores: the source has no score 'faithfulnes'; its scores are"):
        haystack2_records(RUN, scores=["faithfulnes"])
    assert haystack2_records(RUN, scores=[]).records[0].scores is None


def test_individual_scores_are_measures_of_the_generator():
    result = EvaluationResult.from_haystack2(RUN, document_comparison_field="id", progress=False)
    haystack = json.loads(RUN.read_text())["results"]
    generator = result.calculate_metrics()["Generator"]
    # each mean worked out from the individual scores: (1 + 0 + 1 + 0.5 + 0) / 5, (1/2 + 1/3 + 0 + 1 + 0) / 5, ...
    assert generator["faithfulness"] == pytest.approx(2.5 / 5)
    assert generator["doc_mrr"] == pytest.approx((1 / 2 + 1 / 3 + 0 + 1 + 0) / 5)
    assert generator["doc_recall"] == pytest.approx(3 / 5)
    assert generator["haystack_exact_match"] == pytest.approx(2 / 5)
    for name in ("doc_mrr", "doc_map", "doc_recall", "doc_ndcg", "faithfulness"):  # Haystack's own aggregate
        assert generator[name] == pytest.approx(haystack[name]["score"]), name
    table = result.query_metrics("Generator")
    assert table["faithfulness"].tolist() == [1.0, 0.0, 1.0, 0.5, 0.0]
    assert sorted(result.scores) == ["doc_map", "doc_mrr", "doc_ndcg", "doc_recall", "faithfulness",
                                     "haystack_exact_match"]
    assert {m.direction for m in result.scores.values()} == {"higher"}
    assert {m.bounds for m in result.scores.values()} == {None}
    worst = result.wrong_examples("Generator", n=2, metric="faithfulness")  # lowest first, ties in question order
    assert [(e["query"], e["metrics"]["faithfulness"]) for e in worst] == [
        ("What is the capital of France?", 0.0), ("What is the highest mountain?", 0.0)]
    on_retriever = EvaluationResult.from_haystack2(RUN, scores=["faithfulness"], score_node="Retriever",
                                                   progress=False)
    assert on_retriever.calculate_metrics()["Retriever"]["faithfulness"] == pytest.approx(0.5)
    assert "faithfulness" not in on_retriever.calculate_metrics()["Generator"]


def test_a_score_declared_with_its_bounds():
    from evalframe import score_measure
    result = EvaluationResult.from_haystack2(
        RUN, scores={"faithfulness": score_measure("judge", bounds=(0, 1), description="LLM judge")}, progress=False)
    assert list(result.scores) == ["judge"]
    assert (result.scores["judge"].bounds, result.scores["judge"].description) == ((0.0, 1.0), "LLM judge")
    assert result.calculate_metrics()["Generator"]["judge"] == pytest.approx(0.5)
    with pytest.raises(EvalframeError, match=r"results\['faithfulness'\]\['individual_scores'\]\[0\]: 1\.0 lies "
                                             r"outside the bounds \[0, 0\.9\] declared for score 'judge'"):
        EvaluationResult.from_haystack2(RUN, scores={"faithfulness": score_measure("judge", bounds=(0, 0.9))})


# ------------------------------------------------------------------------------------------------ errors
def _run() -> dict:
    return json.loads(RUN.read_text())


def test_a_path_that_is_not_a_run_result(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2]")
    with pytest.raises(EvalframeError, match=r"outputs\[0\] must be a pipeline output"):
        EvaluationResult.from_haystack2(path)
    path.write_text('{"a": 1}')
    with pytest.raises(LoadError, match=r"x\.json: not a Haystack 2\.x run result"):
        EvaluationResult.from_haystack2(path)
    path.write_text('{"a": ')
    with pytest.raises(LoadError, match=r"x\.json:1: not valid JSON"):
        EvaluationResult.from_haystack2(path)
    with pytest.raises(LoadError, match="does not exist"):
        EvaluationResult.from_haystack2(tmp_path / "missing.json")


def test_errors_name_the_question_and_the_input():
    run = _run()
    run["inputs"]["retrieved_documents"][2] = "d5"
    with pytest.raises(EvalframeError, match=r"inputs\[2\]: retrieved_documents must be a list of documents"):
        EvaluationResult.from_haystack2(run, scores=[])
    run = _run()
    run["inputs"]["retrieved_documents"][1][0] = 7
    with pytest.raises(EvalframeError, match=r"inputs\[1\], retrieved_documents\[0\]: a retrieved document must be"):
        EvaluationResult.from_haystack2(run, scores=[])
    run = _run()
    run["inputs"]["question"][3] = None
    with pytest.raises(EvalframeError, match=r"inputs\[3\]: question must be the question's text; got None"):
        EvaluationResult.from_haystack2(run, scores=[])
    run = _run()
    run["inputs"]["predicted_answer"].pop()
    with pytest.raises(EvalframeError, match=r"inputs\['predicted_answer'\] has 4 entries, but there are 5 questions"):
        EvaluationResult.from_haystack2(run, scores=[])
    run = _run()
    run["results"]["faithfulness"]["individual_scores"][4] = "high"
    with pytest.raises(EvalframeError, match=r"results\['faithfulness'\]\['individual_scores'\]\[4\] must be a number"):
        EvaluationResult.from_haystack2(run)
    run = _run()
    del run["results"]["doc_mrr"]["individual_scores"]
    with pytest.raises(EvalframeError, match=r"results\['doc_mrr'\] must hold 'individual_scores'"):
        EvaluationResult.from_haystack2(run)


def test_a_gold_document_without_the_field_compared_by():
    run = _run()
    run["inputs"]["ground_truth_documents"][3][1] = CORPUS["d2"]  # a text alone: no id
    with pytest.raises(EvalframeError, match=r"inputs\[3\]: ground_truth_documents\[1\] has no 'id' to compare by "
                                             r"\(document_comparison_field='id'\)"):
        EvaluationResult.from_haystack2(run, scores=[], document_comparison_field="id")
    by_text = EvaluationResult.from_haystack2(run, scores=[], progress=False)  # compared by content: found
    assert by_text.query_metrics("Retriever", document_scope="document_id")["map"].iloc[3] == pytest.approx(5 / 6)
    with pytest.raises(EvalframeError, match=r"inputs\[0\]: ground_truth_documents\[0\] has no 'meta\.page'"):
        EvaluationResult.from_haystack2(_run(), scores=[], document_comparison_field="meta.page")


def test_errors_of_the_file_name_it(tmp_path):
    run = _run()
    run["inputs"]["ground_truth_answer"][1] = {"x": 1}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    with pytest.raises(EvalframeError, match=r"run\.json: inputs\[1\]: ground_truth_answer must be an answer"):
        EvaluationResult.from_haystack2(path, scores=[])


def test_the_roles_of_the_inputs():
    run = _run()
    run["inputs"]["q"] = run["inputs"].pop("question")
    with pytest.raises(EvalframeError, match=r"no input holding the questions .* name it, e\.g\. inputs="):
        EvaluationResult.from_haystack2(run, scores=[])
    renamed = EvaluationResult.from_haystack2(run, scores=[], inputs={"question": "q"}, progress=False)
    assert renamed["Generator"]["query"].iloc[0] == "What is the capital of Germany?"
    with pytest.raises(InvalidParameterError, match=r"inputs: unknown role 'questoin'.*Did you mean 'question'"):
        EvaluationResult.from_haystack2(run, inputs={"questoin": "q"})
    with pytest.raises(InvalidParameterError, match=r"inputs\['question'\]: the run result has no input 'qq'"):
        EvaluationResult.from_haystack2(run, inputs={"question": "qq"})
    run = _run()
    for key in ("ground_truth_documents", "ground_truth_answer"):
        del run["inputs"][key]
    with pytest.raises(EvalframeError, match="the run result has no gold input"):
        EvaluationResult.from_haystack2(run)
    with pytest.raises(InvalidParameterError, match=r"gold_answers= is for pipeline outputs; a run result names its "
                                                    r"inputs by role: inputs=\{'gold_answers': 'input name'\}"):
        EvaluationResult.from_haystack2(_run(), gold_answers=["x"] * 5)
    with pytest.raises(InvalidParameterError, match="document_comparison_field must be one of"):
        EvaluationResult.from_haystack2(_run(), document_comparison_field="meta.")


def test_pipeline_output_errors():
    golden = json.loads((DATA / "pipeline_outputs.json").read_text())
    outputs = golden["outputs"]
    with pytest.raises(InvalidParameterError, match="pipeline outputs hold no gold"):
        EvaluationResult.from_haystack2(outputs)
    with pytest.raises(InvalidParameterError, match=r"gold_answers has 4 entries for 5 pipeline outputs"):
        EvaluationResult.from_haystack2(outputs, gold_answers=golden["ground_truth_answers"][:4])
    two = [{**o, "ranker": {"documents": o["retriever"]["documents"]}} for o in outputs]
    with pytest.raises(InvalidParameterError, match=r"several components output 'documents': \['ranker', "
                                                    r"'retriever'\]; say which one, e\.g\. documents_from="):
        EvaluationResult.from_haystack2(two, gold_answers=golden["ground_truth_answers"])
    with pytest.raises(InvalidParameterError, match=r"documents_from: no pipeline output has a component 'reader'"):
        EvaluationResult.from_haystack2(outputs, gold_answers=golden["ground_truth_answers"], documents_from="reader")
    without = [{"retriever": o["retriever"]} for o in outputs]
    with pytest.raises(InvalidParameterError, match=r"outputs\[0\]: the question is unknown; give questions="):
        EvaluationResult.from_haystack2(without, gold_answers=golden["ground_truth_answers"])


# ------------------------------------------------------------------------------------------------ live objects
def test_live_haystack_objects(from_file):
    pytest.importorskip("haystack")
    from haystack import Document
    from haystack.dataclasses import ChatMessage, GeneratedAnswer
    from haystack.evaluation import EvaluationRunResult

    run = _run()
    inputs = run["inputs"]
    for key in ("retrieved_documents", "ground_truth_documents"):
        inputs[key] = [[Document.from_dict(d) for d in docs] for docs in inputs[key]]
    inputs["predicted_answer"] = [ChatMessage.from_assistant(a) if i % 2 else
                                  GeneratedAnswer(data=a, query=q, documents=[])
                                  for i, (a, q) in enumerate(zip(inputs["predicted_answer"], inputs["question"]))]
    live = EvaluationRunResult(run_name="live", inputs=inputs, results=run["results"])
    result = EvaluationResult.from_haystack2(live, scores=[], document_comparison_field="id", progress=False)
    assert_same_metrics(result.calculate_metrics(), from_file.calculate_metrics())
    report = live.detailed_report(output_format="df")
    from_report = EvaluationResult.from_haystack2(report, scores=[], document_comparison_field="id", progress=False)
    assert_same_metrics(from_report.calculate_metrics(), from_file.calculate_metrics())


def test_live_pipeline_outputs():
    """A real Pipeline run (BM25, a stand-in generator, an answer builder) read as live objects equals the golden
    file of the same run."""
    pytest.importorskip("haystack")
    from haystack import Document, Pipeline, component
    from haystack.components.builders import AnswerBuilder
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    golden = json.loads((DATA / "pipeline_outputs.json").read_text())
    store = InMemoryDocumentStore()
    store.write_documents([Document(id=i, content=text, meta={"source": f"wiki/{i}"}) for i, text in CORPUS.items()])
    replies = dict(zip(golden["questions"], [o["llm"]["replies"][0] for o in golden["outputs"]]))

    @component
    class FixedGenerator:
        @component.output_types(replies=list[str])
        def run(self, question: str) -> dict:
            return {"replies": [replies[question]]}

    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=3))
    pipeline.add_component("llm", FixedGenerator())
    pipeline.add_component("answer_builder", AnswerBuilder())
    pipeline.connect("llm.replies", "answer_builder.replies")
    pipeline.connect("retriever.documents", "answer_builder.documents")
    outputs = [pipeline.run({"retriever": {"query": q}, "llm": {"question": q}, "answer_builder": {"query": q}},
                            include_outputs_from={"retriever"}) for q in golden["questions"]]
    assert isinstance(outputs[0]["retriever"]["documents"][0], Document)
    keywords = {"gold_ids": golden["ground_truth_document_ids"], "gold_answers": golden["ground_truth_answers"],
                "progress": False}
    live = EvaluationResult.from_haystack2(outputs, **keywords)
    from_file = EvaluationResult.from_haystack2(golden["outputs"], **keywords)
    assert_same_metrics(live.calculate_metrics(), from_file.calculate_metrics())
    assert live["Retriever"]["document_id"].tolist() == from_file["Retriever"]["document_id"].tolist()
