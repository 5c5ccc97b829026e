"""EvaluationResult.from_llamaindex: llama-index RetrievalEvalResult objects, their dicts and files; NodeWithScore
and LangChain documents as retrieved nodes.

The golden files were written by llama-index-core itself (scripts/make_framework_goldens.py; versions in
tests/data/rag/llamaindex/versions.json), its metric_dict computed by its own HitRate, MRR, Precision, Recall,
AveragePrecision and NDCG. The four queries (expected ids; retrieved ids in rank order):

1. capital of Germany: d1; d2 d1
2. capital of France: d3; d4 d5 d3
3. capitals of Germany: d1 d2; d1 d3 d2
4. highest mountain: d5; d1 d3

(llama-index's metrics refuse a query without expected ids, so its evaluations hold no no-answer question.)
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvalframeError, EvaluationResult, LoadError, read_runs
from evalframe.sources.llamaindex import llamaindex_records
from evalframe.sources.records import retrieved_of

DATA = Path(__file__).parents[1] / "data" / "rag" / "llamaindex"
LOG2_3 = math.log2(3)

HAND = {  # per query, worked out by hand (docs/metrics.md's definitions), document_scope="document_id"
    "mrr": [1 / 2, 1 / 3, 1.0, 0.0],
    "map": [1 / 2, 1 / 3, (1 / 1 + 2 / 3) / 2, 0.0],
    "precision": [1 / 2, 1 / 3, 2 / 3, 0.0],
    "recall_multi_hit": [1.0, 1.0, 1.0, 0.0],
    "recall_single_hit": [1.0, 1.0, 1.0, 0.0],
    "ndcg": [1 / LOG2_3, 1 / math.log2(4), (1 + 1 / math.log2(4)) / (1 + 1 / LOG2_3), 0.0],
}

CORPUS = {
    "d1": "Berlin is the capital of Germany.",
    "d2": "Bonn was the capital of West Germany.",
    "d3": "Paris is the capital of France.",
    "d4": "Lyon is a city in France.",
    "d5": "Mount Everest is the highest mountain on Earth.",
}


def _line(query: str, gold: list[str], retrieved: list[str]) -> dict:
    return {"query": query, "gold": {"document_ids": gold, "contexts": [CORPUS[i] for i in gold]},
            "nodes": {"Retriever": {"documents": [{"id": i, "content": CORPUS[i]} for i in retrieved]}}}


RUNS_LINES = [  # the same four queries written by hand as a runs file (docs/runs-format.md)
    _line("What is the capital of Germany?", ["d1"], ["d2", "d1"]),
    _line("What is the capital of France?", ["d3"], ["d4", "d5", "d3"]),
    _line("Which cities were capitals of Germany?", ["d1", "d2"], ["d1", "d3", "d2"]),
    _line("What is the highest mountain?", ["d5"], ["d1", "d3"]),
]


def assert_same_metrics(ours: dict, theirs: dict) -> None:
    assert {node: sorted(m) for node, m in ours.items()} == {node: sorted(m) for node, m in theirs.items()}
    for node, metrics in ours.items():
        assert metrics == pytest.approx(theirs[node], abs=1e-12, nan_ok=True), node


@pytest.fixture(scope="module")
def from_file() -> EvaluationResult:
    return EvaluationResult.from_llamaindex(DATA / "retrieval_results.json", scores=[], progress=False)


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResult:
    path = tmp_path_factory.mktemp("runs") / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in RUNS_LINES), encoding="utf-8")
    return EvaluationResult.from_runs(*read_runs(path), progress=False)


def test_the_golden_results_give_the_hand_worked_metrics(from_file):
    table = from_file.query_metrics("Retriever", document_scope="document_id")
    for metric, values in HAND.items():
        assert table[metric].tolist() == pytest.approx(values, abs=1e-12), metric
    assert from_file.calculate_metrics()["Retriever"]["mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1 + 0) / 4)


def test_the_golden_results_equal_the_same_data_written_as_a_runs_file(from_file, by_hand):
    for options in ({}, {"document_scope": "document_id"}, {"document_scope": "context"},
                    {"simulated_top_k_retriever": 2}):
        assert_same_metrics(from_file.calculate_metrics(**options), by_hand.calculate_metrics(**options))
    pd.testing.assert_frame_equal(from_file["Retriever"], by_hand["Retriever"])


def test_json_lines_and_dicts_give_the_same_result(from_file):
    lines = EvaluationResult.from_llamaindex(DATA / "retrieval_results.jsonl", scores=[], progress=False)
    pd.testing.assert_frame_equal(lines["Retriever"], from_file["Retriever"])
    dicts = json.loads((DATA / "retrieval_results.json").read_text())
    pd.testing.assert_frame_equal(EvaluationResult.from_llamaindex(dicts, scores=[], progress=False)["Retriever"],
                                  from_file["Retriever"])


def test_llamaindex_own_metrics_agree_with_evalframe(from_file):
    """llama-index's own per-query metrics (metric_dict, computed for real) against evalframe's per-query values:
    hit_rate = recall_single_hit, mrr, precision, recall = recall_multi_hit, ap = map and ndcg agree on every query
    here. (They part where a query has no expected id: llama-index refuses it, evalframe scores it 1.0; and on
    duplicate retrieved ids, which llama-index counts each time.)"""
    golden = json.loads((DATA / "retrieval_results.json").read_text())
    table = from_file.query_metrics("Retriever", document_scope="document_id")
    for theirs, ours in (("hit_rate", "recall_single_hit"), ("mrr", "mrr"), ("precision", "precision"),
                         ("recall", "recall_multi_hit"), ("ap", "map"), ("ndcg", "ndcg")):
        assert [r["metric_dict"][theirs]["score"] for r in golden] == pytest.approx(table[ours].tolist()), theirs


def test_retrieved_nodes_as_node_with_score_and_langchain_dumps(from_file):
    nodes = json.loads((DATA / "nodes.json").read_text())
    first = [retrieved_of(n, "nodes") for n in nodes["nodes_with_score"]]
    assert [(r.id, r.content, r.score, dict(r.meta or {})) for r in first] == [
        ("d2", CORPUS["d2"], 0.9, {"source": "wiki/bonn"}), ("d1", CORPUS["d1"], 0.8, {"source": "wiki/germany"})]
    langchain = [retrieved_of(d, "docs") for d in nodes["langchain_documents"]]
    assert [(r.id, r.content) for r in langchain] == [("d2", CORPUS["d2"]), ("d1", CORPUS["d1"])]
    for key in ("nodes_with_score", "langchain_documents"):
        result = EvaluationResult.from_llamaindex(
            [{"query": nodes["query"], "expected_ids": nodes["expected_ids"], "retrieved_nodes": nodes[key]}],
            progress=False)
        assert result["Retriever"]["document_id"].tolist() == ["d2", "d1"]
        assert result.calculate_metrics()["Retriever"]["mrr"] == 0.5
    scored = EvaluationResult.from_llamaindex(
        [{"query": nodes["query"], "expected_ids": nodes["expected_ids"],
          "retrieved_nodes": nodes["nodes_with_score"]}], progress=False)
    assert scored["Retriever"]["score"].tolist() == [0.9, 0.8]


def test_metric_dict_scores_are_kept_per_query_under_free_names():
    from evalframe.sources.foreign import score_name_taken as _score_name_taken
    golden = json.loads((DATA / "retrieval_results.json").read_text())
    read = llamaindex_records(golden)
    # evalframe owns mrr, precision, ndcg, recall and ap as trec_eval's names (R, AP), hit_rate as ranx's (success):
    # llama-index's are kept beside them
    renamed = {"hit_rate": "llamaindex_hit_rate", "mrr": "llamaindex_mrr", "precision": "llamaindex_precision",
               "recall": "llamaindex_recall", "ap": "llamaindex_ap", "ndcg": "llamaindex_ndcg"}
    assert {name: _score_name_taken(name) for name in renamed} == {name: name != target
                                                                    for name, target in renamed.items()}
    for record, result in zip(read.records, golden):
        assert record.scores == {renamed[name]: outcome["score"] for name, outcome in result["metric_dict"].items()}


def test_metric_dict_scores_are_measures_of_the_retriever():
    golden = json.loads((DATA / "retrieval_results.json").read_text())
    result = EvaluationResult.from_llamaindex(DATA / "retrieval_results.json", progress=False)
    metrics = result.calculate_metrics()["Retriever"]
    assert metrics["llamaindex_hit_rate"] == pytest.approx(3 / 4)
    assert metrics["llamaindex_mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1 + 0) / 4) == pytest.approx(metrics["mrr"])
    for theirs, ours in (("precision", "precision"), ("recall", "recall_multi_hit"), ("ap", "map"), ("ndcg", "ndcg")):
        assert metrics[f"llamaindex_{theirs}"] == pytest.approx(metrics[ours]), theirs
    assert result.query_metrics("Retriever")["llamaindex_hit_rate"].tolist() == [r["metric_dict"]["hit_rate"]["score"]
                                                                      for r in golden]
    declared = result.scores["llamaindex_mrr"]
    assert (declared.direction, declared.bounds) == ("higher", (0.0, 1.0))
    assert declared.description.startswith("llama-index MRR")
    only = EvaluationResult.from_llamaindex(golden, scores=["hit_rate"], progress=False)
    assert list(only.scores) == ["llamaindex_hit_rate"]
    golden[1]["metric_dict"]["ndcg"]["score"] = 1.5
    with pytest.raises(EvalframeError, match=r"results\[1\]: metric_dict\['ndcg'\]\.score: 1\.5 lies outside the "
                                             r"bounds \[0, 1\] declared for score 'llamaindex_ndcg'"):
        EvaluationResult.from_llamaindex(golden)


# ------------------------------------------------------------------------------------------------ errors
def _results() -> list[dict]:
    return json.loads((DATA / "retrieval_results.json").read_text())


def test_errors_name_the_result_and_the_field(tmp_path):
    results = _results()
    del results[2]["retrieved_ids"]
    with pytest.raises(EvalframeError, match=r"results\[2\]: retrieved_ids is missing"):
        llamaindex_records(results)
    results = _results()
    results[1]["expected_ids"] = "d3"
    with pytest.raises(EvalframeError, match=r"results\[1\]: expected_ids must be a list of strings; got 'd3'"):
        llamaindex_records(results)
    results = _results()
    results[0]["retrieved_texts"].pop()
    with pytest.raises(EvalframeError, match=r"results\[0\]: retrieved_ids has 2 entries and retrieved_texts 1"):
        llamaindex_records(results)
    results = _results()
    results[3]["metric_dict"]["mrr"] = {"score": "low"}
    with pytest.raises(EvalframeError, match=r"results\[3\]: metric_dict\['mrr'\]\.score must be a number"):
        llamaindex_records(results)
    results = _results()
    results[0]["retrieved_ids"][1] = None
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    with pytest.raises(EvalframeError, match=r"results\.jsonl:1: retrieved_ids\[1\] must be a string; got None"):
        llamaindex_records(path)
    path.write_text('{"query": \n')
    with pytest.raises(LoadError, match=r"results\.jsonl:1: not valid JSON"):
        llamaindex_records(path)
    with pytest.raises(EvalframeError, match="from_llamaindex takes RetrievalEvalResult objects"):
        llamaindex_records(42)
    with pytest.raises(EvalframeError, match=r"results\[0\]: a RetrievalEvalResult \(or its dict\) is expected"):
        llamaindex_records([42])


# ------------------------------------------------------------------------------------------------ live objects
def test_live_llamaindex_and_langchain_objects(from_file):
    pytest.importorskip("llama_index.core")
    from llama_index.core.evaluation.retrieval.base import RetrievalEvalResult
    from llama_index.core.schema import NodeWithScore, TextNode

    live = [RetrievalEvalResult(**r) for r in _results()]
    result = EvaluationResult.from_llamaindex(live, scores=[], progress=False)
    pd.testing.assert_frame_equal(result["Retriever"], from_file["Retriever"])
    nodes = [NodeWithScore(node=TextNode(id_=i, text=CORPUS[i]), score=s) for i, s in (("d2", 0.9), ("d1", 0.8))]
    one = EvaluationResult.from_llamaindex([{"query": "q", "expected_ids": ["d1"], "retrieved_nodes": nodes}],
                                           progress=False)
    assert one["Retriever"]["document_id"].tolist() == ["d2", "d1"]
    assert one["Retriever"]["score"].tolist() == [0.9, 0.8]
    langchain_documents = pytest.importorskip("langchain_core.documents")
    docs = [langchain_documents.Document(id=i, page_content=CORPUS[i]) for i in ("d2", "d1")]
    two = EvaluationResult.from_llamaindex([{"query": "q", "expected_ids": ["d1"], "retrieved_nodes": docs}],
                                           progress=False)
    assert two.calculate_metrics()["Retriever"]["mrr"] == 0.5
