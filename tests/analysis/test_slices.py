"""Slices of queries: sliced_metrics(by) and query_metrics(by=...) on the hand result.

Per-query values of the hand result (tests/fixtures.py), worked out in the metric tests:
  Retriever mrr (document_id_or_answer): q1 1, q2 1 (no gold), q3 1/3, q4 1 (only "00"), q5 0, q6 1/2
  Reader exact_match / f1:               q1 1/1, q2 1/1, q3 1/1, q5 0/.4
q2 is the only no-answer query (gold answers [""]).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, SchemaError
from evalframe.analysis.slices import query_attributes
from tests.fixtures import hand_result, reader_frame, retriever_frame
from tests.test_reference import random_result

FILTERS = {"q1": {"year": 2023, "source": {"name": "wiki"}}, "q3": {"year": 2024}, "q5": {"year": 2023}, "q6": {}}


def with_filters() -> EvaluationResult:
    frames = {}
    for node, frame in (("Retriever", retriever_frame()), ("Reader", reader_frame())):
        frame["filters"] = frame["multilabel_id"].map(
            lambda q: json.dumps(FILTERS[q], sort_keys=True) if q in FILTERS else None)
        frames[node] = frame
    return EvaluationResult(frames)


def test_no_answer_slices_by_hand():
    table = hand_result().sliced_metrics("no_answer")
    assert list(table.index.names) == ["node", "no_answer"]
    assert table.columns[0] == "queries"
    retriever, reader = table.loc["Retriever"], table.loc["Reader"]
    assert retriever.loc[True, "queries"] == 1 and retriever.loc[False, "queries"] == 5
    assert retriever.loc[True, "mrr"] == 1.0
    assert retriever.loc[False, "mrr"] == pytest.approx((1 + 1 / 3 + 1 + 0 + 0.5) / 5)
    assert reader.loc[True, ["queries", "exact_match", "f1"]].tolist() == [1, 1.0, 1.0]
    assert reader.loc[False, "exact_match"] == pytest.approx(2 / 3)
    assert reader.loc[False, "f1"] == pytest.approx((1 + 1 + 0.4) / 3)
    assert np.isnan(reader.loc[False, "mrr"])  # the reader has no document rows


def test_filters_field_and_column_slices():
    result = with_filters()
    table = result.sliced_metrics("filters.year").loc["Retriever"]
    # 2023: q1 (1), q5 (0); 2024: q3 (1/3); no year: q2 (1), q4 (1), q6 {} (1/2)
    assert table.loc[2023, "mrr"] == 0.5 and table.loc[2023, "queries"] == 2
    assert table.loc[2024, "mrr"] == pytest.approx(1 / 3)
    missing = table[table.index.isna()]
    assert missing["queries"].tolist() == [3] and missing["mrr"].tolist() == pytest.approx([2.5 / 3])
    nested = result.sliced_metrics("filters.source.name").loc["Retriever"]
    assert nested.loc["wiki", "queries"] == 1
    by_text = result.sliced_metrics("filters").loc["Reader"]  # the JSON text, one slice per distinct text
    assert by_text.loc['{"year": 2023}', ["queries", "f1"]].tolist() == [1, 0.4]  # q5 only: q1 also has a source
    assert by_text.loc['{"source": {"name": "wiki"}, "year": 2023}', "f1"] == 1.0


def test_callable_series_dict_and_several_keys():
    result = hand_result()
    long_ids = lambda q: q.index.isin(["q1", "q3"])  # noqa: E731
    table = result.sliced_metrics(long_ids).loc["Reader"]
    assert table.index.name == "slice"
    assert table.loc[True, "f1"] == 1.0 and table.loc[False, "f1"] == pytest.approx(0.7)  # q2 1, q5 .4

    def group(q):
        return np.where(q.index == "q5", "river", "other")

    assert result.sliced_metrics(group).loc[("Reader", "river"), "f1"] == 0.4

    series = pd.Series({"q1": "a", "q2": "a", "q3": "b"}, name="team")
    table = result.sliced_metrics(series).loc["Retriever"]
    assert table.index.name == "team"
    assert table.loc["a", "mrr"] == 1.0 and table.loc["b", "mrr"] == pytest.approx(1 / 3)
    assert table[table.index.isna()]["queries"].tolist() == [3]  # q4, q5, q6 are not in the Series
    assert result.sliced_metrics({"q5": "x"}).loc[("Reader", "x"), "queries"] == 1

    both = result.sliced_metrics(["no_answer", series]).loc["Reader"]
    assert list(both.index.names) == ["no_answer", "team"]
    assert both.loc[(False, "a"), "f1"] == 1.0 and both.loc[(True, "a"), "queries"] == 1


@pytest.mark.filterwarnings("ignore:document_scope=.* ignores answer_scope")
# seeds 0-9 here, 10-29 under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize("seeds", [range(10), pytest.param(range(10, 30), marks=pytest.mark.stress)], ids=["0-9", "10-29"])
def test_weighted_slice_means_give_the_overall_mean(seeds):
    for seed in seeds:
        result, params = random_result(seed)
        overall = result.calculate_metrics(**params)
        sliced = result.sliced_metrics(lambda q: np.arange(len(q)) % 3, **params)
        for node, metrics in overall.items():
            if node not in sliced.index.get_level_values("node"):
                continue
            part = sliced.loc[node]
            for metric, value in metrics.items():
                if metric == "num_examples_for_eval":
                    continue
                valid = part[metric].notna()
                weighted = (part.loc[valid, metric] * part.loc[valid, "queries"]).sum() / part.loc[valid, "queries"].sum()
                assert weighted == pytest.approx(value, abs=1e-12)


def test_query_metrics_by_puts_labels_in_front():
    table = hand_result().query_metrics("Retriever", by=["no_answer"])
    assert list(table.columns[:2]) == ["no_answer", "recall_multi_hit"]
    assert table["no_answer"].tolist() == [False, True, False, False, False, False]
    assert table.loc["q3", "mrr"] == pytest.approx(1 / 3)


def test_query_attributes_reads_the_first_row_of_each_query():
    frame = pd.DataFrame({"multilabel_id": ["b", "b", "a"], "query": ["x", "x", "y"],
                          "gold_answers": [[" "], [" "], ["Paris"]]})
    attributes = query_attributes(frame, ["query", "no_answer"])
    assert attributes.index.tolist() == ["b", "a"]
    assert attributes.to_dict("list") == {"query": ["x", "y"], "no_answer": [True, False]}


@pytest.mark.parametrize(
    ("by", "match"),
    [
        ("rank", r"by='rank': column 'rank' of node 'Retriever' varies within a query"),
        ("gold_document_ids", r"holds lists.*callable"),
        ("filtres", r"by 'filtres' is not a column.*Did you mean 'filters'"),
        ("filters.", r"name a filters field"),
        (3, r"by must be a column name"),
        ([], r"by must be a column name"),
        ({"nope": 1}, r"has none of this node's queries among its 1 keys"),
        (pd.Series(["a", "b"], index=["q1", "q1"]), r"labels multilabel_id 'q1' more than once"),
        (lambda q: [1, 2], r"one label per query, 6 of them .* got shape \(2,\)"),
        (lambda q: pd.Series(1, index=["x"]), r"the Series the callable returned has none of this node's queries"),
        (lambda q: q["missing"], r"the callable failed on the per-query table.*KeyError"),
    ],
)
def test_bad_slices_name_what_is_wrong(by, match):
    with pytest.raises(InvalidParameterError, match=match):
        hand_result().sliced_metrics(by)


def test_no_answer_tells_no_answer_labels_from_document_only_labels():
    frame = pd.DataFrame({
        "multilabel_id": ["explicit", "haystack", "documents", "zeros", "answered"],
        "gold_answers": [[""], [], [], [], ["Paris"]],
        "gold_document_ids": [[], [], ["d1"], ["00"], ["d2"]],
    })
    assert query_attributes(frame, "no_answer")["no_answer"].tolist() == [True, True, False, True, False]


def test_labels_named_like_a_metric_get_a_prefix():
    result = hand_result()
    good = result.query_metrics("Reader")["f1"] > 0.5
    table = result.query_metrics("Reader", by=good)
    assert list(table.columns) == ["by_f1", "exact_match", "f1"]
    sliced = result.sliced_metrics(good).loc["Reader"]
    assert sliced.index.name == "by_f1" and sliced.loc[False, "queries"] == 1


def test_dict_filters_and_filters_that_are_not_json():
    frame = retriever_frame()
    frame["filters"] = frame["multilabel_id"].map({"q1": {"year": 2023}, "q3": {"year": 2024}})
    result = EvaluationResult({"Retriever": frame})
    assert result.sliced_metrics("filters.year").loc[("Retriever", 2024), "queries"] == 1
    assert result.sliced_metrics("filters").loc[("Retriever", '{"year": 2023}'), "queries"] == 1
    frame["filters"] = frame["multilabel_id"].map({"q3": "{'year': 2024}"})
    with pytest.raises(SchemaError, match=r"holds \"{'year': 2024}\" for multilabel_id 'q3', which is not JSON text"):
        EvaluationResult({"Retriever": frame}).sliced_metrics("filters.year")


def test_callables_may_return_sets_and_lists():
    table = hand_result().sliced_metrics(lambda q: [{"a"} if i % 2 else {"b"} for i in range(len(q))])
    assert sorted(table.loc["Reader"].index, key=str) == [frozenset({"a"}), frozenset({"b"})]


def test_slice_keys_that_cannot_work_are_refused_with_a_reason():
    from evalframe import EvaluationResult, load_demo_result

    result = load_demo_result()
    with pytest.raises(InvalidParameterError, match=r"by='multilabel_id' would put every query in a slice of its own"):
        result.sliced_metrics("multilabel_id")
    frame = result["Reader"].copy()
    frame["gold_answers"] = 1
    with pytest.raises(SchemaError, match=r"by='no_answer': column 'gold_answers' of node 'Reader' must hold lists"):
        EvaluationResult({"Reader": frame}).query_metrics("Reader", by="no_answer")


def test_calculate_metrics_takes_no_by_and_names_sliced_metrics():
    # calculate_metrics(by=...) returned sliced_metrics' DataFrame with a FutureWarning until the form was removed
    with pytest.raises(InvalidParameterError, match=r"^unknown argument\(s\) \['by'\]; calculate_metrics takes these "
                       r"options \(for slices: sliced_metrics\): \['simulated_top_k_reader'"):
        hand_result().calculate_metrics(by="no_answer", simulated_top_k_retriever=1)


def test_a_filters_field_no_query_has_is_an_error_naming_the_fields_there():
    # FILTERS' fields: source (q1, with source.name), year (q1, q3, q5); a typo used to give one NaN slice of 6 queries
    result = with_filters()
    with pytest.raises(InvalidParameterError, match=r"^by 'filters\.yaer': no query of node 'Retriever' has "
                       r"'filters\.yaer' in its filters, so every query would be in one slice; their fields are "
                       r"\['filters\.source', 'filters\.year'\]\. Did you mean 'filters\.year'\?$"):
        result.sliced_metrics("filters.yaer")
    with pytest.raises(InvalidParameterError, match=r"their fields are \['filters\.source\.name'\]\. "
                       r"Did you mean 'filters\.source\.name'\?$"):
        result.sliced_metrics("filters.source.nmae")
    with pytest.raises(InvalidParameterError, match=r"none has a field under 'filters\.year'\.$"):
        result.sliced_metrics("filters.year.month")  # year is a number, not an object
    with pytest.raises(InvalidParameterError, match=r"^by 'filters\.yaer': no query of node 'Retriever'"):
        result.query_metrics("Retriever", by="filters.yaer")


def test_a_filters_field_some_queries_lack_is_their_own_slice_and_a_null_value_counts_as_there():
    # q1 alone has source.name: the other 5 queries form the None slice (q2 q4 q6: mrr 1, 1, 1/2; q3: 1/3; q5: 0)
    table = with_filters().sliced_metrics("filters.source.name").loc["Retriever"]
    assert table.loc["wiki", "queries"] == 1
    missing = table[table.index.isna()]
    assert missing["queries"].tolist() == [5] and missing["mrr"].tolist() == pytest.approx([(1 + 1 + 0.5 + 1 / 3) / 5])
    frame = retriever_frame()
    frame["filters"] = '{"year": null}'  # the field is there, without a value: not a typo
    assert EvaluationResult({"Retriever": frame}).sliced_metrics("filters.year")["queries"].tolist() == [6]


def test_the_fields_of_a_missing_filters_field_are_listed_a_few_only():
    frame = retriever_frame()
    frame["filters"] = json.dumps({f"field{i:02d}": i for i in range(25)})
    with pytest.raises(InvalidParameterError, match=r"their fields are \['filters\.field00', .*'filters\.field09'\] "
                       r"and 15 more\.$"):
        EvaluationResult({"Retriever": frame}).sliced_metrics("filters.nope")


def test_an_unknown_column_lists_a_few_columns():
    frame = retriever_frame()
    for i in range(30):
        frame[f"extra{i}"] = 1
    with pytest.raises(InvalidParameterError, match=rf"^by 'qeury' is not a column of node 'Retriever'.*Did you mean "
                       rf"'query'\? Columns: \[[^]]*\] and {len(frame.columns) - 10} more\.$"):
        EvaluationResult({"Retriever": frame}).sliced_metrics("qeury")


# ------------------------------------------------------------------ meta.<field>: the filters code, on the meta column
META = {"q1": {"topic": "geo", "source": {"team": "support"}}, "q3": {"topic": "sport"}, "q5": {"topic": "geo"},
        "q6": {}}


def with_meta() -> EvaluationResult:
    frames = {}
    for node, frame in (("Retriever", retriever_frame()), ("Reader", reader_frame())):
        frame["meta"] = frame["multilabel_id"].map(lambda q: json.dumps(META[q], sort_keys=True) if q in META else None)
        frames[node] = frame
    return EvaluationResult(frames)


def test_meta_field_and_meta_column_slices_by_hand():
    result = with_meta()
    table = result.sliced_metrics("meta.topic").loc["Retriever"]
    # geo: q1 (mrr 1), q5 (0); sport: q3 (1/3); no topic: q2 (1), q4 (1), q6 {} (1/2)
    assert table.loc["geo", ["queries", "mrr"]].tolist() == [2, 0.5]
    assert table.loc["sport", "mrr"] == pytest.approx(1 / 3)
    missing = table[table.index.isna()]
    assert missing["queries"].tolist() == [3] and missing["mrr"].tolist() == pytest.approx([2.5 / 3])
    nested = result.sliced_metrics("meta.source.team").loc["Reader"]
    assert nested.loc["support", ["queries", "f1"]].tolist() == [1, 1.0]  # q1
    by_text = result.sliced_metrics("meta").loc["Reader"]  # the whole object's JSON text
    assert by_text.loc['{"topic": "geo"}', ["queries", "f1"]].tolist() == [1, 0.4]  # q5
    # beside a filters field, and per query
    labelled = result.query_metrics("Retriever", by=["meta.topic", "no_answer"])
    assert [None if pd.isna(v) else v for v in labelled["meta.topic"]] == ["geo", None, "sport", None, "geo", None]
    assert labelled["no_answer"].tolist() == [False, True, False, False, False, False]


def test_dict_meta_slices_like_its_json_text():
    frame = retriever_frame()
    frame["meta"] = frame["multilabel_id"].map({"q1": {"topic": "geo"}, "q3": {"topic": "sport"}})
    result = EvaluationResult({"Retriever": frame})
    assert result.sliced_metrics("meta.topic").loc[("Retriever", "sport"), "queries"] == 1
    assert result.sliced_metrics("meta").loc[("Retriever", '{"topic": "geo"}'), "queries"] == 1


def test_a_meta_field_no_query_has_or_a_result_without_meta_is_refused_with_a_reason():
    with pytest.raises(InvalidParameterError, match=r"^by 'meta\.topci': no query of node 'Retriever' has 'meta\.topci' "
                       r"in its meta, so every query would be in one slice; their fields are \['meta\.source', "
                       r"'meta\.topic'\]\. Did you mean 'meta\.topic'\?$"):
        with_meta().sliced_metrics("meta.topci")
    with pytest.raises(InvalidParameterError, match=r"name a meta field after 'meta\.', e\.g\. 'meta\.topic'"):
        with_meta().sliced_metrics("meta.")
    with pytest.raises(SchemaError, match=r"by='meta\.topic' reads column 'meta', which node 'Retriever' lacks \(a runs "
                       r"line's \"meta\" object, or from_runs\(meta=\.\.\.\)"):
        hand_result().sliced_metrics("meta.topic")
    frame = retriever_frame()
    frame["meta"] = "topic=geo"
    with pytest.raises(SchemaError, match=r"column 'meta' of node 'Retriever' holds 'topic=geo' for multilabel_id 'q1', "
                       r"which is not JSON text; meta are JSON objects such as '\{\"topic\": \"billing\"\}'"):
        EvaluationResult({"Retriever": frame}).sliced_metrics("meta.topic")


def test_a_label_holding_a_lone_surrogate_is_refused_naming_its_query():
    """Review: a meta field (or query) holding a lone surrogate (JSON's "\\ud800", which a text field may hold)
    raised a raw UnicodeEncodeError from pyarrow inside sliced_metrics; it is refused, naming the query and field."""
    rows = [{"user_input": question, "retrieved_contexts": ["x"], "retrieved_context_ids": ["d1"],
             "reference_context_ids": ["d1"], "topic": topic, "judge": 0.5}
            for question, topic in (("Capital of Germany?", "geo\ud800"), ("Capital of France?", "geo"))]
    result = EvaluationResult.from_ragas(rows, meta=["topic"], progress=False)
    query = result["Retriever"]["multilabel_id"].iloc[0]
    with pytest.raises(SchemaError, match=rf"^by='meta.topic': the label of multilabel_id '{query}' is 'geo\\ud800', a "
                                          r"text that holds a lone surrogate \(U\+D800\), which UTF-8 cannot encode"):
        result.sliced_metrics("meta.topic")
    rows[0]["user_input"], rows[0]["topic"] = "Capital of \udfff?", "geo"
    result = EvaluationResult.from_ragas(rows, meta=["topic"], progress=False)
    with pytest.raises(SchemaError, match=r"^by='query': the label of multilabel_id .* \(U\+DFFF\)"):
        result.sliced_metrics("query")
    with pytest.raises(SchemaError, match=r"^by=slice: the label of multilabel_id .* \(U\+DFFF\)"):
        result.sliced_metrics(lambda table: table["query"])
    assert result.sliced_metrics("meta.topic").loc[("Retriever", "geo"), "queries"] == 2  # valid labels slice as before
