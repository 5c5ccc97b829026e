"""Every source treats a dataset's extra columns or inputs the same way (sources/extras.py, issue 36): numbers make a
score, one value per row a meta field, lists are left out, each column that gives no score named; meta=[...] names
the meta fields (tests/sources/test_extra_columns.py: ids, codes and years)."""

from __future__ import annotations

import json
import warnings

import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError

QUESTIONS = ["Capital of Germany?", "Capital of France?"]
TOPICS = ["germany", "france"]
LATENCY = [120.0, 80.0]
RAGAS = [{"user_input": q, "retrieved_contexts": ["Bonn.", "Berlin."] if i == 0 else ["Paris."],
          "retrieved_context_ids": ["d2", "d1"] if i == 0 else ["d3"], "reference_context_ids": ["d1"] if i == 0 else ["d3"],
          "topic": TOPICS[i], "latency": LATENCY[i], "tags": ["a", "b"]} for i, q in enumerate(QUESTIONS)]
HAYSTACK = {"inputs": {"question": QUESTIONS,
                       "retrieved_documents": [[{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}],
                                               [{"id": "d3", "content": "Paris."}]],
                       "ground_truth_document_ids": [["d1"], ["d3"]], "topic": TOPICS, "latency": LATENCY,
                       "tags": [["a", "b"], ["a", "b"]]},
            "results": {}}
LLAMA = [{"query": q, "expected_ids": row["reference_context_ids"], "retrieved_ids": row["retrieved_context_ids"],
          "retrieved_texts": row["retrieved_contexts"], "topic": TOPICS[i], "latency": LATENCY[i], "tags": ["a", "b"]}
         for i, (q, row) in enumerate(zip(QUESTIONS, RAGAS))]
META = ['{"topic": "germany"}', '{"topic": "germany"}', '{"topic": "france"}']  # per row: d2, d1 of q1, d3 of q2


def quietly(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("source", ["ragas", "haystack2", "llamaindex"])
def test_extra_texts_are_meta_numbers_scores_and_lists_are_named(source):
    build = {"ragas": lambda **o: EvaluationResult.from_ragas(RAGAS, progress=False, **o),
             "haystack2": lambda **o: EvaluationResult.from_haystack2(HAYSTACK, progress=False, **o),
             "llamaindex": lambda **o: EvaluationResult.from_llamaindex(LLAMA, progress=False, **o)}[source]
    noun = {"ragas": "columns", "haystack2": "inputs", "llamaindex": "fields"}[source]
    # each column that gives no score is named, with what it became and why (review R6: the meta fields too)
    with pytest.warns(UserWarning, match=rf"^from_{source}: {noun} that give no score: 'topic' \(a meta field: texts, "
                                         r"not numbers\), 'tags' \(left out: lists, not numbers\)\. "):
        result = build()
    frame = result["Retriever"]
    assert frame["meta"].tolist() == META
    # the latency: a score of each query, (120 + 80) / 2; mrr (1/2 + 1) / 2
    assert result.calculate_metrics()["Retriever"]["latency"] == 100.0
    assert result.calculate_metrics()["Retriever"]["mrr"] == 0.75
    sliced = result.sliced_metrics("meta.topic")["mrr"].to_dict()
    assert sliced == {("Retriever", "germany"): 0.5, ("Retriever", "france"): 1.0}
    # meta=[...] names the meta fields (never a score then); [] none
    named = quietly(lambda: build(meta=["topic", "latency"]))
    assert named["Retriever"]["meta"].tolist()[0] == '{"latency": 120.0, "topic": "germany"}'
    assert "latency" not in named.scores
    assert "meta" not in quietly(lambda: build(meta=[]))["Retriever"].columns


def test_haystack2_takes_meta_as_from_ragas_does_once():
    # was refused: "meta= is for pipeline outputs; a run result names its inputs by role: inputs={'meta': ...}"
    by_keyword = quietly(lambda: EvaluationResult.from_haystack2(HAYSTACK, meta=["topic"], progress=False))
    by_role = quietly(lambda: EvaluationResult.from_haystack2(HAYSTACK, inputs={"meta": ["topic"]}, progress=False))
    assert by_keyword["Retriever"]["meta"].tolist() == by_role["Retriever"]["meta"].tolist() == META
    with pytest.raises(InvalidParameterError, match=r"meta= and inputs=\{'meta': \.\.\.\} both name the meta inputs"):
        EvaluationResult.from_haystack2(HAYSTACK, meta=["topic"], inputs={"meta": ["topic"]})
    with pytest.raises(InvalidParameterError, match=r"meta= of a run result names the inputs whose values become each "
                                                    r"query's meta fields, a list of input names"):
        EvaluationResult.from_haystack2(HAYSTACK, meta=[{"topic": "germany"}, None])
    with pytest.raises(InvalidParameterError, match=r"inputs\['meta'\]: the run result has no input 'topc'"):
        EvaluationResult.from_haystack2(HAYSTACK, meta=["topc"])


def test_a_haystack2_input_without_an_entry_per_question_is_left_out_and_named():
    odd = {**HAYSTACK, "inputs": {**HAYSTACK["inputs"], "run_config": {"top_k": 3}}}
    with pytest.warns(UserWarning, match=r"'run_config' \(left out: not a list of one entry per question"):
        result = EvaluationResult.from_haystack2(odd, progress=False)
    assert result["Retriever"]["meta"].tolist() == META


def test_the_haystack2_golden_file_s_topic_is_each_question_s_meta():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "rag" / "haystack2" / "run_result.json"
    topics = json.loads(path.read_text())["inputs"]["topic"]
    result = EvaluationResult.from_haystack2(path, document_comparison_field="id", progress=False)
    per_query = result["Generator"].drop_duplicates("multilabel_id")["meta"].tolist()
    assert per_query == [json.dumps({"topic": topic}) for topic in topics]
    # the same rows as a detailed report
    report = json.loads((path.parent / "detailed_report.json").read_text())
    from_report = EvaluationResult.from_haystack2(report, document_comparison_field="id", progress=False)
    assert from_report["Generator"].drop_duplicates("multilabel_id")["meta"].tolist() == per_query


def test_llamaindex_meta_names_fields_it_has():
    with pytest.raises(InvalidParameterError, match=r"meta names 'topc', which is no field of the results beyond a "
                                                    r"RetrievalEvalResult's; their other fields are \['topic', "
                                                    r"'latency', 'tags'\]"):
        EvaluationResult.from_llamaindex(LLAMA, meta=["topc"])
    plain = [{key: value for key, value in row.items() if key not in ("topic", "latency", "tags")} for row in LLAMA]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no extra field: nothing to say, no meta column (as before)
        assert "meta" not in EvaluationResult.from_llamaindex(plain, progress=False)["Retriever"].columns


def test_a_score_no_prefix_mends_keeps_its_own_name_in_the_refusal():
    # "mrr@5" cannot name a score (the '@' reads as a cutoff) with or without the prefix: the refusal names it as the
    # run result does (it said 'haystack_mrr@5', a name the file never held), as Ragas' columns are named
    run = {**HAYSTACK, "results": {"mrr@5": {"score": 1.0, "individual_scores": [1.0, 1.0]}}}
    with pytest.raises(InvalidParameterError, match=r"^score name 'mrr@5': a score's name starts with a letter"):
        quietly(lambda: EvaluationResult.from_haystack2(run, progress=False))
    run = {**HAYSTACK, "results": {"exact_match": {"score": 1.0, "individual_scores": [1.0, 0.0]}}}
    assert "haystack_exact_match" in quietly(lambda: EvaluationResult.from_haystack2(run, progress=False)).scores
