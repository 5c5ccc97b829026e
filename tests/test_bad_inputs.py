"""Bad inputs to the public API and the CLI end in an evalframe error naming what is wrong, never a raw traceback.

Every case is one row of a table: the call, the error class expected and a pattern its message must
match (the parameter, file, line or value it names). The CLI cases check the exit status (1, or 2 for
argparse usage errors), one ``error: ...`` line on stderr and no traceback.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

import evalframe
from evalframe import (
    DocumentRecallEvaluator,
    EvalframeError,
    EvaluationResult,
    InvalidParameterError,
    LoadError,
    RetrievalNDCGAny,
    RetrievalRecall,
    RetrievalRecallAll,
    RetrieverRecall,
    UnknownNodeError,
    compare,
    read_runs,
    worst_by_delta,
)
from evalframe.analysis import stats
from evalframe.present.cli import main

DEMO = Path(__file__).parent.parent / "evalframe" / "data" / "demo_result"

GOOD_LINE = {
    "query": "Capital of Germany?",
    "gold": {"document_ids": ["d1"], "contexts": ["Berlin is the capital."], "answers": ["Berlin"]},
    "nodes": {"Retriever": {"documents": [{"id": "d1", "content": "Berlin is the capital."}]}},
}


@lru_cache(maxsize=None)
def demo() -> EvaluationResult:
    return EvaluationResult.load(DEMO)


@lru_cache(maxsize=None)
def retriever_only() -> EvaluationResult:
    return EvaluationResult({"Retriever": demo()["Retriever"]})


@lru_cache(maxsize=None)
def reader_only() -> EvaluationResult:
    return EvaluationResult({"Reader": demo()["Reader"]})


def good_runs() -> tuple[list[Any], dict[str, Any]]:
    label = {"query": "q", "document": {"content": "Berlin is the capital.", "id": "d1"}, "is_correct_answer": True,
             "is_correct_document": True, "origin": "gold-label", "answer": {"answer": "Berlin"}}
    return [[label]], {"Retriever": {"documents": [[{"id": "d1", "content": "Berlin is the capital."}]]}}


def from_runs(**kwargs: Any) -> Callable[[], Any]:
    labels, outputs = good_runs()
    outputs["Reader"] = {"answers": [[{"answer": "Berlin", "document_ids": ["d1"]}]]}
    return lambda: EvaluationResult.from_runs(labels, outputs, **{"progress": False, **kwargs})


def table(index: list[str], **columns: list[float]) -> pd.DataFrame:
    return pd.DataFrame(columns, index=pd.Index(index, name="multilabel_id"))


RNG = np.random.default_rng(0)

# --------------------------------------------------------------------------------------------- API
API_CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    # read_runs: paths
    ("read_runs None", lambda: read_runs(None), InvalidParameterError, r"path must be a str or os\.PathLike .*got None"),
    ("read_runs int", lambda: read_runs(3), InvalidParameterError, r"path must be .*got 3"),
    ("read_runs list", lambda: read_runs(["a.jsonl"]), InvalidParameterError, r"path must be"),
    ("read_runs missing", lambda: read_runs("/nonexistent/runs.jsonl"), LoadError, r"runs\.jsonl does not exist"),
    ("read_runs directory", lambda: read_runs(DEMO), LoadError, r"is a directory"),
    ("read_runs empty str", lambda: read_runs(""), InvalidParameterError, r"path must be .*non-empty"),
    # from_runs: matching options (checked before any scoring)
    ("threshold nan", from_runs(context_matching_threshold=math.nan), InvalidParameterError,
     r"context_matching_threshold must be a finite number in \[0, 100\]; got nan"),
    ("threshold inf", from_runs(context_matching_threshold=math.inf), InvalidParameterError,
     r"context_matching_threshold .*got inf"),
    ("threshold negative", from_runs(context_matching_threshold=-1), InvalidParameterError,
     r"context_matching_threshold .*\[0, 100\]; got -1"),
    ("threshold above 100", from_runs(context_matching_threshold=101.5), InvalidParameterError,
     r"context_matching_threshold .*got 101\.5"),
    ("threshold str", from_runs(context_matching_threshold="65"), InvalidParameterError,
     r"context_matching_threshold .*got '65' of type str"),
    ("threshold None", from_runs(context_matching_threshold=None), InvalidParameterError,
     r"context_matching_threshold .*got None"),
    ("threshold bool", from_runs(context_matching_threshold=True), InvalidParameterError,
     r"context_matching_threshold .*got True"),
    ("min_length negative", from_runs(context_matching_min_length=-5), InvalidParameterError,
     r"context_matching_min_length must be an int >= 0; got -5"),
    ("min_length float", from_runs(context_matching_min_length=1.5), InvalidParameterError,
     r"context_matching_min_length must be an int >= 0; got 1\.5"),
    ("min_length str", from_runs(context_matching_min_length="100"), InvalidParameterError,
     r"context_matching_min_length .*got '100'"),
    ("min_length bool", from_runs(context_matching_min_length=True), InvalidParameterError,
     r"context_matching_min_length .*got True"),
    ("boost 'no'", from_runs(context_matching_boost_split_overlaps="no"), InvalidParameterError,
     r"context_matching_boost_split_overlaps must be True or False; got 'no'"),
    ("boost 'high'", from_runs(context_matching_boost_split_overlaps="high"), InvalidParameterError,
     r"context_matching_boost_split_overlaps .*got 'high'"),
    ("boost 1", from_runs(context_matching_boost_split_overlaps=1), InvalidParameterError,
     r"context_matching_boost_split_overlaps .*got 1"),
    ("boost None", from_runs(context_matching_boost_split_overlaps=None), InvalidParameterError,
     r"context_matching_boost_split_overlaps .*got None"),
    ("custom field int", from_runs(custom_document_id_field=5), InvalidParameterError,
     r"custom_document_id_field must be None or a non-empty str; got 5"),
    ("custom field empty", from_runs(custom_document_id_field=""), InvalidParameterError,
     r"custom_document_id_field .*got ''"),
    ("custom field list", from_runs(custom_document_id_field=["id"]), InvalidParameterError,
     r"custom_document_id_field .*got \['id'\]"),
    ("custom field missing in meta", from_runs(custom_document_id_field="key"), EvalframeError,
     r"custom_document_id_field 'key' is not a meta field .*\(labels\[0\]\)"),
    ("sas_model int", from_runs(sas_model=5), InvalidParameterError, r"sas_model must be None, a callable .*got 5 of type int"),
    ("sas_model list", from_runs(sas_model=[]), InvalidParameterError, r"sas_model must be None, a callable"),
    ("sas_model empty str", from_runs(sas_model=""), InvalidParameterError, r"sas_model .*non-empty"),
    ("sas_model wrong count", from_runs(sas_model=lambda p, g: []), EvalframeError, r"returned 0 scores"),
    ("progress str", from_runs(progress="yes"), InvalidParameterError, r"progress must be None, True or False; got 'yes'"),
    # from_runs: labels and outputs
    ("labels None", lambda: EvaluationResult.from_runs(None, {}), EvalframeError, r"labels must be a list .*NoneType"),
    ("labels str", lambda: EvaluationResult.from_runs("abc", {}), EvalframeError, r"labels must be a list .*str"),
    ("labels dict", lambda: EvaluationResult.from_runs({"q": 1}, {}), EvalframeError, r"labels must be a list .*dict"),
    ("labels int entry", lambda: EvaluationResult.from_runs([5], good_runs()[1]), EvalframeError, r"labels\[0\]"),
    ("labels str entry", lambda: EvaluationResult.from_runs(["q"], good_runs()[1]), EvalframeError, r"labels\[0\]"),
    ("labels bad dict", lambda: EvaluationResult.from_runs([[{"query": "q"}]], good_runs()[1]), EvalframeError,
     r"labels\[0\]"),
    ("outputs None", lambda: EvaluationResult.from_runs(good_runs()[0], None), EvalframeError, r"node_outputs"),
    ("outputs list", lambda: EvaluationResult.from_runs(good_runs()[0], [1]), EvalframeError, r"node_outputs"),
    ("outputs node None", lambda: EvaluationResult.from_runs(good_runs()[0], {"R": None}), EvalframeError,
     r"node 'R'"),
    ("outputs unknown key", lambda: EvaluationResult.from_runs(good_runs()[0], {"R": {"docs": [[]]}}), EvalframeError,
     r"'docs'"),
    ("outputs str per query", lambda: EvaluationResult.from_runs(good_runs()[0], {"R": {"documents": "abc"}}),
     EvalframeError, r"node 'R', 'documents'"),
    ("outputs too few queries", lambda: EvaluationResult.from_runs(good_runs()[0] * 2, good_runs()[1]),
     EvalframeError, r"documents"),
    ("outputs not nested", lambda: EvaluationResult.from_runs(
        good_runs()[0], {"R": {"documents": [{"id": "d1", "content": "x"}]}}), EvalframeError, r"node 'R', 'documents'"),
    ("outputs document int", lambda: EvaluationResult.from_runs(good_runs()[0], {"R": {"documents": [[5]]}}),
     EvalframeError, r"Document"),
    ("outputs answer int", lambda: EvaluationResult.from_runs(good_runs()[0], {"R": {"answers": [[5]]}}),
     EvalframeError, r"Answer"),
    ("outputs document meta str", lambda: EvaluationResult.from_runs(
        good_runs()[0], {"R": {"documents": [[{"content": "x", "meta": "m"}]]}}), EvalframeError,
     r"node 'R', 'documents', query 0, document 0 is not a valid Document dict"),
    ("outputs answer offsets ints", lambda: EvaluationResult.from_runs(
        good_runs()[0], {"R": {"answers": [[{"answer": "x", "offsets_in_document": [5]}]]}}), EvalframeError,
     r"answer 0: field 'offsets_in_document' must be a list of spans"),
    ("outputs answer document_ids str", lambda: EvaluationResult.from_runs(
        good_runs()[0], {"R": {"answers": [[{"answer": "x", "document_ids": "d1"}]]}}), EvalframeError,
     r"field 'document_ids' must be a list of ids .*Wrap a single id in a list"),
    ("labels document None", lambda: EvaluationResult.from_runs([[{**good_runs()[0][0][0], "document": None}]],
                                                                good_runs()[1]), EvalframeError,
     r"labels\[0\]: expected Label objects or Label dicts"),
    ("labels generator", lambda: EvaluationResult.from_runs((x for x in good_runs()[0]), good_runs()[1]),
     EvalframeError, r"labels must be a list .*generator"),
    ("sas_model raises", from_runs(sas_model=lambda p, g: 1 / 0), EvalframeError,
     r"sas_model failed on 1 \(prediction, gold\) pairs: ZeroDivisionError"),
    ("sas_model returns None", from_runs(sas_model=lambda p, g: None), EvalframeError, r"sas_model failed"),
    ("sas_model returns str", from_runs(sas_model=lambda p, g: ["a"] * len(p)), EvalframeError,
     r"sas_model must return numbers; got 'a'"),
    ("outputs node name empty", lambda: EvaluationResult.from_runs(good_runs()[0], {"": {"documents": [[]]}}),
     EvalframeError, r"node names must be non-empty"),
    # compare
    ("compare ints", lambda: compare(1, 2), InvalidParameterError,
     r"run 'A' must be an EvaluationResult, a per-query DataFrame .* or a QueryTable .*got int"),
    ("compare str", lambda: compare(demo(), "B"), InvalidParameterError, r"run 'B' .*got str"),
    ("compare None", lambda: compare(demo(), None), InvalidParameterError, r"run 'B' .*got NoneType"),
    ("compare unknown node", lambda: compare(demo(), demo(), node="Retreiver"), UnknownNodeError,
     r"'Retreiver' .*Did you mean 'Retriever'"),
    ("compare no shared node", lambda: compare(retriever_only(), reader_only()), InvalidParameterError,
     r"share no node"),
    ("compare several nodes", lambda: compare(demo(), demo()), InvalidParameterError, r"node"),
    ("compare unknown metric", lambda: compare(demo(), demo(), node="Reader", metrics="f2"), InvalidParameterError,
     r"f2"),
    ("compare metrics int", lambda: compare(demo(), demo(), node="Reader", metrics=5), InvalidParameterError,
     r"metrics"),
    ("compare names short", lambda: compare(demo(), demo(), node="Reader", names=["a"]), InvalidParameterError,
     r"names must be 2 distinct names"),
    ("compare names str", lambda: compare(demo(), demo(), node="Reader", names="ab"), InvalidParameterError,
     r"names must be a list"),
    ("compare rounds 0", lambda: compare(demo(), demo(), node="Reader", rounds=0), InvalidParameterError,
     r"rounds must be an int >= 1; got 0"),
    ("compare rounds float", lambda: compare(demo(), demo(), node="Reader", rounds=1.5), InvalidParameterError,
     r"rounds must be an int"),
    ("compare confidence 2", lambda: compare(demo(), demo(), node="Reader", confidence=2), InvalidParameterError,
     r"confidence must lie strictly between 0 and 1"),
    ("compare confidence nan", lambda: compare(demo(), demo(), node="Reader", confidence=math.nan),
     InvalidParameterError, r"confidence must be a number"),
    ("compare seed -1", lambda: compare(demo(), demo(), node="Reader", seed=-1), InvalidParameterError,
     r"seed must be an int >= 0"),
    ("compare unknown keyword", lambda: compare(demo(), demo(), node="Reader", top_k=3), InvalidParameterError,
     r"unknown argument\(s\) \['top_k'\]"),
    ("compare bad scope", lambda: compare(demo(), demo(), node="Reader", answer_scope="contxt"), InvalidParameterError,
     r"answer_scope .*Did you mean 'context'"),
    ("compare tables no shared queries", lambda: compare(table(["q1"], f1=[1.0]), table(["q2"], f1=[0.0])),
     InvalidParameterError, r"have no query \(multilabel_id\) in common"),
    ("compare tables no shared metric", lambda: compare(table(["q1"], f1=[1.0]), table(["q1"], mrr=[0.0])),
     InvalidParameterError, r"metric"),
    ("compare empty tables", lambda: compare(table([], f1=[]), table([], f1=[])), InvalidParameterError,
     r"no query \(multilabel_id\) in common \(0 and 0 queries\)"),
    ("compare table str values", lambda: compare(table(["q1"], f1=["x"]), table(["q1"], f1=["y"])),
     InvalidParameterError, r"no metric column in common"),
    ("compare table duplicate ids", lambda: compare(table(["q1", "q1"], f1=[1.0, 0.0]), table(["q1"], f1=[0.0])),
     InvalidParameterError, r"duplicate|once"),
    ("compare result vs table no shared queries", lambda: compare(reader_only(), table(["zz"], f1=[1.0])),
     InvalidParameterError, r"have no query \(multilabel_id\) in common"),
    # worst_by_delta
    ("worst_by_delta table", lambda: worst_by_delta(table(["q1"], f1=[1.0]), demo(), "Reader", "f1"),
     InvalidParameterError, r"run 'a' is DataFrame"),
    ("worst_by_delta None", lambda: worst_by_delta(demo(), None, "Reader", "f1"), InvalidParameterError,
     r"run 'b' is NoneType"),
    ("worst_by_delta unknown node", lambda: worst_by_delta(demo(), demo(), "Raeder", "f1"), UnknownNodeError,
     r"'Raeder'"),
    ("worst_by_delta node None", lambda: worst_by_delta(demo(), demo(), None, "f1"), InvalidParameterError, r"node"),
    ("worst_by_delta unknown metric", lambda: worst_by_delta(demo(), demo(), "Reader", "f2"), InvalidParameterError,
     r"metric must be one of"),
    ("worst_by_delta n 0", lambda: worst_by_delta(demo(), demo(), "Reader", "f1", n=0), InvalidParameterError,
     r"n must be an int >= 1; got 0"),
    ("worst_by_delta n str", lambda: worst_by_delta(demo(), demo(), "Reader", "f1", n="3"), InvalidParameterError,
     r"n must be an int"),
    ("worst_by_delta direction", lambda: worst_by_delta(demo(), demo(), "Reader", "f1", direction="up"),
     InvalidParameterError, r"direction must be one of \['worse', 'better'\]"),
    ("worst_by_delta document metric on reader", lambda: worst_by_delta(demo(), demo(), "Reader", "mrr"),
     InvalidParameterError, r"mrr"),
    ("worst_by_delta no shared node", lambda: worst_by_delta(retriever_only(), reader_only(), "Reader", "f1"),
     UnknownNodeError, r"'Reader'"),
    # stats
    ("bootstrap_ci str", lambda: stats.bootstrap_ci("abc", rng=RNG), InvalidParameterError,
     r"d must be a 1-D array of numbers"),
    ("bootstrap_ci 2-D", lambda: stats.bootstrap_ci(np.ones((2, 2)), rng=RNG), InvalidParameterError,
     r"d must be a 1-D array .*shape \(2, 2\)"),
    ("bootstrap_ci None", lambda: stats.bootstrap_ci(None, rng=RNG), InvalidParameterError, r"d must be"),
    ("bootstrap_ci rng None", lambda: stats.bootstrap_ci(np.array([0.0, 1.0]), rng=None), InvalidParameterError,
     r"rng must be a numpy.random.Generator"),
    ("bootstrap_ci rng int", lambda: stats.bootstrap_ci(np.array([0.0, 1.0]), rng=0), InvalidParameterError,
     r"rng must be a numpy.random.Generator"),
    ("bootstrap_ci confidence 1", lambda: stats.bootstrap_ci(np.array([0.0, 1.0]), confidence=1.0, rng=RNG),
     InvalidParameterError, r"confidence must lie strictly between 0 and 1"),
    ("bootstrap_ci confidence nan", lambda: stats.bootstrap_ci(np.array([0.0, 1.0]), confidence=math.nan, rng=RNG),
     InvalidParameterError, r"confidence"),
    ("bootstrap_ci rounds 0", lambda: stats.bootstrap_ci(np.array([0.0, 1.0]), rounds=0, rng=RNG),
     InvalidParameterError, r"rounds must be an int >= 1"),
    ("randomization str", lambda: stats.randomization_p_value(["a"], rng=RNG), InvalidParameterError, r"d must be"),
    ("randomization rounds -1", lambda: stats.randomization_p_value(np.array([1.0, 2.0]), rounds=-1, rng=RNG),
     InvalidParameterError, r"rounds must be an int >= 1"),
    ("randomization rng str", lambda: stats.randomization_p_value(np.array([1.0, 2.0]), rng="x"),
     InvalidParameterError, r"rng must be"),
    ("paired_t_test str", lambda: stats.paired_t_test(["a", "b"]), InvalidParameterError, r"d must be"),
    ("paired_t_test 2-D", lambda: stats.paired_t_test([[1.0], [2.0]]), InvalidParameterError, r"1-D"),
    ("holm str", lambda: stats.holm("x"), InvalidParameterError, r"p_values must be"),
    ("holm 2-D", lambda: stats.holm(np.ones((2, 2))), InvalidParameterError, r"p_values must be a 1-D"),
    ("student_t str", lambda: stats.student_t_two_sided_p("x", 3), InvalidParameterError, r"t must be a number"),
    ("student_t df 0", lambda: stats.student_t_two_sided_p(1.0, 0), InvalidParameterError, r"df must be .*> 0"),
    ("student_t df nan", lambda: stats.student_t_two_sided_p(1.0, math.nan), InvalidParameterError, r"df must be"),
    # evaluators: strings where lists are required
    ("recall str ground truth", lambda: DocumentRecallEvaluator().run(["Paris"], [["Spain"]]), InvalidParameterError,
     r"ground_truth_documents: query 1 .*list .*per query.*got str 'Paris'"),
    ("recall str retrieved", lambda: DocumentRecallEvaluator().run([["Paris"]], ["Spain"]), InvalidParameterError,
     r"retrieved_documents: query 1 .*list"),
    ("recall both str", lambda: DocumentRecallEvaluator().run(["Paris"], ["Spain"]), InvalidParameterError,
     r"ground_truth_documents: query 1"),
    ("recall outer str", lambda: DocumentRecallEvaluator().run("Paris", "Spain"), InvalidParameterError,
     r"ground_truth_documents must be a list .*got str"),
    ("recall None", lambda: DocumentRecallEvaluator().run(None, [["x"]]), InvalidParameterError,
     r"ground_truth_documents must be a list"),
    ("recall None query", lambda: DocumentRecallEvaluator().run([None], [["x"]]), InvalidParameterError,
     r"ground_truth_documents: query 1"),
    ("recall int document", lambda: DocumentRecallEvaluator().run([[5]], [["x"]]), InvalidParameterError,
     r"ground_truth_documents: query 1"),
    ("recall lengths", lambda: DocumentRecallEvaluator().run([["a"]], [["a"], ["b"]]), InvalidParameterError,
     r"ground_truth_documents has 1 and retrieved_documents has 2"),
    ("recall mode", lambda: DocumentRecallEvaluator(mode="multi"), InvalidParameterError, r"mode must be one of"),
    ("recall mode int", lambda: DocumentRecallEvaluator(mode=1), InvalidParameterError, r"mode must be a RecallMode"),
    ("recall from_dict", lambda: DocumentRecallEvaluator.from_dict({"x": 1}), InvalidParameterError, r"to_dict"),
    ("recall from_dict bad params", lambda: DocumentRecallEvaluator.from_dict({"init_parameters": {"mod": "x"}}),
     InvalidParameterError, r"init_parameters"),
    ("retriever recall gt str", lambda: RetrieverRecall().compute(["text"], ["gold"]), InvalidParameterError,
     r"gt_contexts: query 1 .*list .*per query"),
    ("retriever recall int context", lambda: RetrieverRecall().compute([5], [["gold"]]), InvalidParameterError,
     r"retrieved_contexts: query 1 .*must give a str or a list of strings"),
    ("retriever recall list of int", lambda: RetrieverRecall().compute([[5]], [["gold"]]), InvalidParameterError,
     r"retrieved_contexts: query 1"),
    ("retriever recall gt int item", lambda: RetrieverRecall().compute(["x"], [[5]]), InvalidParameterError,
     r"gt_contexts: query 1"),
    ("retriever recall outer str", lambda: RetrieverRecall().compute("abc", [["a"], ["b"], ["c"]]),
     InvalidParameterError, r"retrieved_contexts must be a list"),
    ("retriever recall None", lambda: RetrieverRecall().compute(None, None), InvalidParameterError,
     r"retrieved_contexts must be a list"),
    ("retriever recall lengths", lambda: RetrieverRecall().compute(["a", "b"], [["a"]]), InvalidParameterError,
     r"retrieved_contexts has 2 and gt_contexts has 1"),
    ("REMem recall gold str", lambda: RetrievalRecall().calculate_metric_scores(["gold"], [["gold"]], [1]),
     InvalidParameterError, r"gold_docs: query 1 .*list"),
    ("REMem recall retrieved str", lambda: RetrievalRecall().calculate_metric_scores([["gold"]], ["gold"], [1]),
     InvalidParameterError, r"retrieved_docs: query 1 .*list"),
    ("REMem recall_all retrieved str", lambda: RetrievalRecallAll().calculate_metric_scores([["g"]], ["g"], [1]),
     InvalidParameterError, r"retrieved_docs: query 1"),
    ("REMem ndcg gold str", lambda: RetrievalNDCGAny().calculate_metric_scores(["g"], [["g"]], [1]),
     InvalidParameterError, r"gold_docs: query 1"),
    ("REMem ndcg chunk int", lambda: RetrievalNDCGAny().calculate_metric_scores([["g"]], [[5]], [1]),
     InvalidParameterError, r"retrieved_docs: query 1 .*str"),
    ("REMem None", lambda: RetrievalRecall().calculate_metric_scores(None, None, [1]), InvalidParameterError,
     r"gold_docs must be a list"),
    ("REMem lengths", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [], [1]), InvalidParameterError,
     r"gold_docs has 1 and retrieved_docs has 0"),
    ("REMem k_list 0", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], [0]),
     InvalidParameterError, r"k_list must hold positive ints"),
    ("REMem k_list empty", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], []),
     InvalidParameterError, r"k_list must hold positive ints"),
    ("REMem k_list int", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], 5),
     InvalidParameterError, r"k_list must be a list"),
    ("REMem k_list str", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], ["1"]),
     InvalidParameterError, r"k_list must hold positive ints"),
    ("REMem k_list None", lambda: RetrievalRecall().calculate_metric_scores([["a"]], [["a"]], None),
     InvalidParameterError, r"k_list must be a list"),
    ("REMem round_pooled -1", lambda: RetrievalRecall(round_pooled=-1), InvalidParameterError,
     r"round_pooled must be None .*or an int >= 0 .*got -1"),
    ("REMem round_pooled str", lambda: RetrievalNDCGAny(round_pooled="4"), InvalidParameterError,
     r"round_pooled must be None .*got '4'"),
    ("REMem matcher", lambda: RetrievalRecallAll(matcher=5), InvalidParameterError, r"matcher must be a callable"),
    # load_demo_runs
    ("load_demo_runs 0", lambda: evalframe.load_demo_runs(0), InvalidParameterError, r"top_k must be 3 or 5"),
    ("load_demo_runs str", lambda: evalframe.load_demo_runs("3"), InvalidParameterError, r"top_k must be 3 or 5"),
    ("load_demo_runs None", lambda: evalframe.load_demo_runs(None), InvalidParameterError, r"top_k must be 3 or 5"),
    ("load_demo_runs list", lambda: evalframe.load_demo_runs([3]), InvalidParameterError, r"top_k must be 3 or 5"),
    # load / save paths, the report
    ("load None", lambda: EvaluationResult.load(None), InvalidParameterError, r"load_dir must be a path .*got None"),
    ("load int", lambda: EvaluationResult.load(5), InvalidParameterError, r"load_dir must be a path .*got 5"),
    ("load empty", lambda: EvaluationResult.load(""), InvalidParameterError, r"load_dir must be a path .*got ''"),
    ("save None", lambda: demo().save(None), InvalidParameterError, r"out_dir must be a path .*got None"),
    ("print_eval_report None", lambda: evalframe.print_eval_report(None), InvalidParameterError,
     r"the report needs an EvaluationResult; got NoneType"),
    ("report n 0", lambda: demo().report(n=0), InvalidParameterError, r"n \(worst queries per node\) must be an int >= 1; got 0"),
    ("report max chars -5", lambda: demo().report(max_characters_per_field=-5), InvalidParameterError,
     r"max_characters_per_field must be an int >= 1; got -5"),
    ("report node_order str", lambda: demo().report(node_order="Reader"), InvalidParameterError,
     r"node_order must be a list of node names"),
]


@pytest.mark.parametrize("call, error, pattern", [case[1:] for case in API_CASES], ids=[case[0] for case in API_CASES])
def test_api_bad_input_raises_evalframe_error(call, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        call()
    assert isinstance(info.value, EvalframeError)


# ------------------------------------------------------------------------------------- runs files
def line(**changes: Any) -> str:
    record = json.loads(json.dumps(GOOD_LINE))
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    return json.dumps(record)


RUNS_FILES: list[tuple[str, bytes, str]] = [
    ("empty file", b"", r"runs\.jsonl holds no query"),
    ("blank lines only", b"\n\n  \n", r"holds no query"),
    ("binary", bytes(range(128, 256)), r"runs\.jsonl:1: not UTF-8 text: byte 1 of the line"),
    ("utf-16", "﻿{}".encode("utf-16"), r"runs\.jsonl:1: not UTF-8 text"),
    ("truncated line", (line() + "\n" + line()[:40] + "\n").encode(), r"runs\.jsonl:2: not valid JSON"),
    ("json array", json.dumps([GOOD_LINE, GOOD_LINE], indent=1).encode(), r"runs\.jsonl:1: .*JSON Lines"),
    ("one json array line", json.dumps([GOOD_LINE]).encode(), r"runs\.jsonl:1: each line must be a JSON object"),
    ("number line", b"42\n", r":1: each line must be a JSON object; got int"),
    ("unknown key", line(querry="x").encode(), r":1: unknown key 'querry'.*Did you mean 'query'"),
    ("query missing", line(query=None).encode(), r":1: 'query' must be a string"),
    ("query int", json.dumps({**GOOD_LINE, "query": 5}).encode(), r":1: 'query' must be a string; got 5"),
    ("no gold", line(gold=None).encode(), r":1: give the gold either as 'labels'"),
    ("gold list", line(gold=["d1"]).encode(), r":1: 'gold' must be an object"),
    ("gold str list", line(gold={"document_ids": "d1"}).encode(), r":1: gold 'document_ids' must be a list"),
    ("gold lengths", line(gold={"document_ids": ["a", "b"], "answers": ["x"]}).encode(), r":1: .*lengths differ"),
    ("gold unknown key", line(gold={"document_id": ["a"]}).encode(), r":1: unknown key 'document_id' in 'gold'"),
    ("gold id list", line(gold={"document_ids": [["a"]]}).encode(), r":1: gold 'document_ids'\[1\] must be"),
    ("labels dict", json.dumps({"query": "q", "labels": {"a": 1}, "nodes": GOOD_LINE["nodes"]}).encode(),
     r":1: 'labels' must be a list"),
    ("labels bad item", json.dumps({"query": "q", "labels": [5], "nodes": GOOD_LINE["nodes"]}).encode(),
     r":1: .*label"),
    ("labels missing fields", json.dumps({"query": "q", "labels": [{"query": "q"}], "nodes": GOOD_LINE["nodes"]}
                                         ).encode(), r":1: "),
    ("nodes missing", line(nodes=None).encode(), r":1: 'nodes' must be an object"),
    ("nodes list", line(nodes=[1]).encode(), r":1: 'nodes' must be an object"),
    ("node output list", line(nodes={"R": [1]}).encode(), r":1: node 'R' must map output keys"),
    ("output key typo", line(nodes={"R": {"document": []}}).encode(), r":1: .*unknown output key 'document'"),
    ("documents dict", line(nodes={"R": {"documents": {"id": "d"}}}).encode(), r":1: node 'R', 'documents' must be a list"),
    ("documents nested", line(nodes={"R": {"documents": [[{"id": "d", "content": "x"}]]}}).encode(),
     r":1: .*'documents', document 1"),
    ("document no content", line(nodes={"R": {"documents": [{"id": "d"}]}}).encode(), r":1: .*no content"),
    ("document str", line(nodes={"R": {"documents": ["text"]}}).encode(), r":1: .*document 1"),
    ("answer int", line(nodes={"R": {"answers": [5]}}).encode(), r":1: .*answer 1"),
    ("answer not str", line(nodes={"R": {"answers": [{"answer": 5}]}}).encode(), r":1: .*'answer' must be a string"),
    ("shapes differ", (line() + "\n" + line(nodes={"Other": {"documents": []}})).encode(),
     r":2: names nodes and outputs"),
    ("document meta str", line(nodes={"R": {"documents": [{"content": "x", "meta": "m"}]}}).encode(),
     r":1: node 'R', 'documents', document 1 is not a valid Document dict"),
    ("answer offsets dict", line(nodes={"R": {"answers": [{"answer": "x", "offsets_in_document": {"start": 1}}]}}
                                 ).encode(), r":1: .*'offsets_in_document' must be a list of spans"),
    ("label document str", json.dumps({"query": "q", "labels": [{"query": "q", "document": "x", "is_correct_answer": True,
                                                                 "is_correct_document": True, "origin": "gold-label"}],
                                       "nodes": GOOD_LINE["nodes"]}).encode(), r":1: 'labels' must hold Label dicts"),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, r":1: JSON nested too deeply"),
    ("query NaN", b'{"query": NaN}\n', r":1: 'query' must be a string; got nan"),
]


@pytest.mark.parametrize("content, pattern", [case[1:] for case in RUNS_FILES], ids=[case[0] for case in RUNS_FILES])
def test_read_runs_bad_file(tmp_path, content, pattern):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(content)
    with pytest.raises(LoadError, match=pattern):
        read_runs(path)


@pytest.mark.parametrize("content, pattern", [case[1:] for case in RUNS_FILES], ids=[case[0] for case in RUNS_FILES])
def test_cli_flatten_bad_file(tmp_path, capsys, content, pattern):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(content)
    assert_cli_error(capsys, ["flatten", str(path), "-o", str(tmp_path / "out")], 1, pattern)


# --------------------------------------------------------------------------------------------- CLI
def assert_cli_error(capsys, argv: list[str], status: int, pattern: str) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == status, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    errors = [text for text in err.splitlines() if "error: " in text]
    assert len(errors) == 1, err
    import re

    assert re.search(pattern, errors[0]), errors[0]


def write(tmp_path: Path, name: str, content: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def folder(tmp_path: Path, nodes: dict[str, pd.DataFrame] | None = None) -> str:
    out = tmp_path / "result"
    EvaluationResult(nodes or {"Retriever": demo()["Retriever"]}).save(out)
    return str(out)


D = str(DEMO)
CLI_CASES: list[tuple[str, Callable[[Path], list[str]], int, str]] = [
    ("no command", lambda t: [], 2, r"required: COMMAND"),
    ("unknown command", lambda t: ["metrix"], 2, r"invalid choice: 'metrix'"),
    ("metrics missing folder", lambda t: ["metrics", "/nonexistent/folder"], 1, r"/nonexistent/folder"),
    ("metrics file not folder", lambda t: ["metrics", write(t, "x.csv", "a,b\n1,2\n")], 1, r"x\.csv"),
    ("metrics empty folder", lambda t: ["metrics", str(t)], 1, r"no .*csv|no node|holds no"),
    ("metrics unknown node", lambda t: ["metrics", D, "--node", "Raeder"], 1, r"'Raeder'.*Did you mean 'Reader'"),
    ("metrics by-query no node", lambda t: ["metrics", D, "--by-query"], 1, r"--by-query needs --node"),
    ("metrics bad scope", lambda t: ["metrics", D, "--document-scope", "doc"], 2, r"--document-scope: invalid choice"),
    ("metrics top-k 0", lambda t: ["metrics", D, "--top-k-retriever", "0"], 1, r"^error: --top-k-retriever must be -1"),
    ("metrics top-k str", lambda t: ["metrics", D, "--top-k-reader", "x"], 2, r"--top-k-reader: invalid int"),
    ("metrics bad format", lambda t: ["metrics", D, "--format", "xml"], 2, r"--format: invalid choice"),
    ("metrics by unknown", lambda t: ["metrics", D, "--by", "colour"], 1, r"colour"),
    ("metrics by empty", lambda t: ["metrics", D, "--by", ","], 1, r"--by|by"),
    ("metrics retriever node unknown", lambda t: ["metrics", D, "--top-k-retriever", "1", "--retriever-node", "X"], 1,
     r"'X'"),
    ("worst no node", lambda t: ["worst", D], 2, r"--node"),
    ("worst unknown node", lambda t: ["worst", D, "--node", "Retreiver"], 1, r"'Retreiver'"),
    ("worst n 0", lambda t: ["worst", D, "--node", "Reader", "-n", "0"], 2,
     r"argument -n: must be an int >= 1 \(how many queries to list\); got '0'"),
    ("worst n negative", lambda t: ["worst", D, "--node", "Reader", "-n", "-3"], 2, r"argument -n"),
    ("worst metric unknown", lambda t: ["worst", D, "--node", "Reader", "--metric", "f2"], 1, r"f2"),
    ("worst metric wrong level", lambda t: ["worst", D, "--node", "Reader", "--metric", "mrr"], 1, r"mrr"),
    ("worst threshold nan", lambda t: ["worst", D, "--node", "Reader", "--threshold", "nan"], 1, r"threshold"),
    ("worst missing folder", lambda t: ["worst", "/nonexistent", "--node", "Reader"], 1, r"/nonexistent"),
    ("compare one folder", lambda t: ["compare", D], 1, r"compare needs two or more runs \(results folders, or TREC .*; got 1"),
    ("compare missing folder", lambda t: ["compare", D, "/nonexistent"], 1, r"/nonexistent"),
    ("compare several nodes", lambda t: ["compare", D, D], 1, r"--node is needed"),
    ("compare no shared node", lambda t: ["compare", D, folder(t, {"Other": demo()["Reader"]})], 1,
     r"share no node"),
    ("compare unknown node", lambda t: ["compare", D, D, "--node", "X"], 1, r"'X'"),
    ("compare unknown metric", lambda t: ["compare", D, D, "--node", "Reader", "--metrics", "f2"], 1, r"f2"),
    ("compare names count", lambda t: ["compare", D, D, "--node", "Reader", "--names", "a"], 1, r"names must be 2"),
    ("compare rounds 0", lambda t: ["compare", D, D, "--node", "Reader", "--rounds", "0"], 1, r"rounds must be"),
    ("compare seed negative", lambda t: ["compare", D, D, "--node", "Reader", "--seed", "-1"], 1, r"seed must be"),
    ("compare rounds str", lambda t: ["compare", D, D, "--rounds", "many"], 2, r"--rounds: invalid int"),
    ("convert missing --to", lambda t: ["convert", D, str(t / "out")], 2, r"--to"),
    ("convert bad --to", lambda t: ["convert", D, str(t / "out"), "--to", "xlsx"], 2, r"invalid choice: 'xlsx'"),
    ("convert missing folder", lambda t: ["convert", "/nonexistent", str(t / "out"), "--to", "csv"], 1,
     r"/nonexistent"),
    ("convert out is a file", lambda t: ["convert", D, write(t, "file.txt", "x"), "--to", "csv"], 1, r"file\.txt"),
    ("flatten missing file", lambda t: ["flatten", "/nonexistent.jsonl", "-o", str(t / "o")], 1,
     r"/nonexistent\.jsonl does not exist"),
    ("flatten directory", lambda t: ["flatten", str(t), "-o", str(t / "o")], 1, r"is a directory"),
    ("flatten no out", lambda t: ["flatten", "x.jsonl"], 2, r"-o/--out"),
    ("flatten threshold nan", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", str(t / "o"),
                                         "--context-matching-threshold", "nan"], 1,
     r"^error: --context-matching-threshold must be a finite number in \[0, 100\]; got nan"),
    ("flatten threshold 500", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", str(t / "o"),
                                         "--context-matching-threshold", "500"], 1,
     r"^error: --context-matching-threshold must be"),
    ("flatten min length -5", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", str(t / "o"),
                                         "--context-matching-min-length", "-5"], 1,
     r"^error: --context-matching-min-length must be an int >= 0; got -5"),
    ("flatten min length str", lambda t: ["flatten", "r.jsonl", "-o", "o", "--context-matching-min-length", "x"], 2,
     r"invalid int"),
    ("flatten custom field empty", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", str(t / "o"),
                                              "--custom-document-id-field", ""], 1,
     r"^error: --custom-document-id-field must be None or a non-empty str"),
    ("flatten custom field missing", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", str(t / "o"),
                                                "--custom-document-id-field", "key"], 1,
     r"--custom-document-id-field 'key' is not a meta field"),
    ("flatten bad storage", lambda t: ["flatten", "r.jsonl", "-o", "o", "--format", "xlsx"], 2, r"invalid choice"),
    ("flatten out is a file", lambda t: ["flatten", write(t, "r.jsonl", line()), "-o", write(t, "f.txt", "x")], 1,
     r"f\.txt"),
    ("report missing folder", lambda t: ["report", "/nonexistent"], 1, r"/nonexistent"),
    ("report n 0", lambda t: ["report", D, "-n", "0"], 2,
     r"argument -n: must be an int >= 1 \(how many queries to list\); got '0'"),
    ("report n negative", lambda t: ["report", D, "-n", "-1"], 2, r"argument -n"),
    ("report unknown node order", lambda t: ["report", D, "--node-order", "Retriever,Raeder"], 1, r"Raeder"),
    ("report binary csv", lambda t: ["report", str(Path(write(t, "Node.csv", bytes(range(128, 256)))).parent)], 1,
     r"Node\.csv"),
    ("report empty csv", lambda t: ["report", str(Path(write(t, "Node.csv", b"")).parent)], 1, r"Node\.csv"),
    ("demo out is a file", lambda t: ["demo", "--out", write(t, "f.txt", "x")], 1, r"f\.txt"),
    ("list-metrics extra", lambda t: ["list-metrics", "x"], 2, r"unrecognized arguments: x"),
]


@pytest.mark.parametrize("argv, status, pattern", [case[1:] for case in CLI_CASES], ids=[case[0] for case in CLI_CASES])
def test_cli_bad_input(tmp_path, capsys, argv, status, pattern):
    assert_cli_error(capsys, argv(tmp_path), status, pattern)


def test_case_count():
    # the brief: 150+ bad inputs over the API and the CLI
    assert len(API_CASES) + 2 * len(RUNS_FILES) + len(CLI_CASES) >= 150
