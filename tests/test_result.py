"""EvaluationResult as a container, wrong_examples (docs/metrics.md#wrong_examples), and argument errors."""

from __future__ import annotations

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, SaveError, SchemaError, UnknownNodeError, load_demo_result
from tests.fixtures import hand_result, reader_frame, retriever_frame


def test_dict_like_access():
    result = hand_result()
    assert list(result) == ["Retriever", "Reader"]
    assert len(result) == 2 and "Reader" in result and "Generator" not in result
    assert result["Reader"] is result.node_results["Reader"]
    assert repr(result) == "<EvaluationResult: 2 node(s) (Retriever: 13 rows, Reader: 8 rows)>"
    with pytest.raises(UnknownNodeError, match=r"node 'Raeder' is not in this EvaluationResult.*Did you mean 'Reader'\?"):
        result["Raeder"]
    with pytest.raises(KeyError):
        result["Raeder"]


def test_append_concatenates_and_renumbers():
    result = EvaluationResult()
    result.append("Reader", reader_frame())
    result.append("Reader", reader_frame())
    result.append("Reader", reader_frame().iloc[:0])
    assert len(result["Reader"]) == 16
    assert list(result["Reader"].index) == list(range(16))
    with pytest.raises(InvalidParameterError, match="needs a pandas DataFrame"):
        result.append("Reader", [1, 2])


def test_wrong_examples_answers(storage):
    worst = storage(hand_result()).wrong_examples("Reader")
    # f1 per query: q1 1, q2 1, q3 1, q5 .4 -> only q5 is <= .5
    assert [w["multilabel_id"] for w in worst] == ["q5"]
    example = worst[0]
    assert example["query"] == "question q5"
    assert example["filters"] is None
    assert example["metrics"] == {"exact_match": 0.0, "f1": 0.4}
    assert example["gold_answers"] == ["answer q5"]
    assert example["gold_document_ids"] == ["g"]
    (row,) = example["answers"]
    assert row["answer"] == "a river" and row["document_ids"] == ["d99"]
    for dropped in ("node", "query", "type", "gold_answers", "gold_offsets_in_documents", "gold_document_ids"):
        assert dropped not in row
    assert row["multilabel_id"] == "q5"


def test_the_hand_result_gives_its_hand_worked_values(backend):
    # tests/fixtures.py: the Reader's integrated answers give q1, q2, q3 an exact match and q5 none (3 of 4); the
    # Retriever's per-query values are those worked out in tests/metrics/test_document_metrics.py (default scope)
    metrics = backend(hand_result()).calculate_metrics()
    assert metrics["Reader"]["num_examples_for_eval"] == 4.0
    assert metrics["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)
    assert metrics["Retriever"]["recall_multi_hit"] == pytest.approx((1 + 1 + 1 + 1 + 0 + 0.5) / 6, abs=1e-12)
    assert metrics["Retriever"]["precision"] == pytest.approx((0.8 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6, abs=1e-12)
    assert metrics["Retriever"]["mrr"] == pytest.approx((1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6, abs=1e-12)


def test_wrong_examples_ties_keep_first_appearance_and_list_all_rows(storage):
    worst = storage(hand_result()).wrong_examples("Reader", answer_metric="exact_match", answer_metric_threshold=1.0)
    # em: q1 1, q2 1, q3 1, q5 0 -> q5 first, then the ties in first-appearance order
    assert [w["multilabel_id"] for w in worst] == ["q5", "q1", "q2"]
    assert [r["rank"] for r in worst[1]["answers"]] == [1, 2, 3]  # integrated rows only, frame order
    assert all(r["eval_mode"] == "integrated" for r in worst[1]["answers"])


def test_wrong_examples_documents(storage):
    result = storage(hand_result())
    worst = result.wrong_examples("Retriever")
    assert [w["multilabel_id"] for w in worst] == ["q5"]
    (row,) = worst[0]["documents"]
    assert row["document_id"] == "" and row["rank"] == 1
    for dropped in ("node", "query", "multilabel_id", "filters", "type", "gold_document_ids", "gold_contexts"):
        assert dropped not in row
    assert worst[0]["gold_document_ids"] == ["d10", "d11"]
    # mrr per query: q1 1, q2 1, q3 1/3, q4 1, q5 0, q6 1/2
    worst = result.wrong_examples("Retriever", n=10, document_metric="mrr")
    assert [w["multilabel_id"] for w in worst] == ["q5", "q3", "q6"]
    assert worst[1]["metrics"]["mrr"] == pytest.approx(1 / 3)


def test_wrong_examples_top_k_affects_metrics_not_listed_rows(storage):
    worst = storage(hand_result()).wrong_examples("Retriever", n=10, simulated_top_k_retriever=2)
    q3 = next(w for w in worst if w["multilabel_id"] == "q3")
    assert q3["metrics"]["recall_single_hit"] == 0.0
    assert [r["document_id"] for r in q3["documents"]] == ["d7", "d8", "d6"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"document_scope": "docment_id"},
         r"document_scope must be one of \[.*\]; got 'docment_id'\. Did you mean 'document_id'\?"),
        ({"answer_scope": "contexts"}, r"answer_scope must be one of .*Did you mean 'context'\?"),
        ({"eval_mode": "isolation"}, r"eval_mode must be one of \['integrated', 'isolated'\]; got 'isolation'"),
        ({"simulated_top_k_retriever": 0}, r"simulated_top_k_retriever must be -1 .* got 0"),
        ({"simulated_top_k_reader": -2}, r"simulated_top_k_reader must be -1 .* got -2"),
        ({"simulated_top_k_reader": 2.0}, r"simulated_top_k_reader must be an int.*float"),
        ({"simulated_top_k_reader": True}, r"simulated_top_k_reader must be an int"),
        ({"retriever_node": "Retreiver"},
         r"retriever_node 'Retreiver' is not in this EvaluationResult.*Did you mean 'Retriever'"),
        ({"context_matching_threshold": "high"}, r"context_matching_threshold must be a (finite )?number"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        hand_result().calculate_metrics(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"document_metric": "recall"}, r"document_metric must be one of \['recall_multi_hit'.*Did you mean"),
        ({"answer_metric": "f2"}, r"answer_metric must be one of \['exact_match', 'f1', 'sas'\]; got 'f2'"),
        ({"n": -1}, r"n must be an int >= 0"),
        ({"answer_metric": "sas"}, r"answer_metric must be one of \['exact_match', 'f1'\] for node 'Reader'.*SAS model"),
    ],
)
def test_bad_wrong_examples_arguments(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        hand_result().wrong_examples("Reader", **kwargs)


def test_unknown_node_in_query_metrics_and_wrong_examples():
    with pytest.raises(UnknownNodeError, match="holds \\['Retriever', 'Reader'\\]"):
        hand_result().query_metrics("Generator")
    with pytest.raises(UnknownNodeError, match="Generator"):
        hand_result().wrong_examples("Generator")


def test_missing_columns_are_named():
    frame = retriever_frame().drop(columns=["gold_answers_match"])
    with pytest.raises(SchemaError, match=r"node 'R' \(document rows.*lacks column\(s\) \['gold_answers_match'\]"):
        EvaluationResult({"R": frame}).calculate_metrics()
    # a criterion that does not need the answer lists still works
    assert EvaluationResult({"R": frame}).calculate_metrics(document_scope="document_id")["R"]["mrr"] > 0
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['type'\]"):
        EvaluationResult({"R": retriever_frame().drop(columns=["type"])}).calculate_metrics()


def test_malformed_list_cell_is_named():
    frame = retriever_frame()
    frame["gold_documents_id_match"] = frame["gold_documents_id_match"].astype(object)
    frame.at[3, "gold_documents_id_match"] = None
    with pytest.raises(SchemaError, match=r"'gold_documents_id_match' must hold a list in every row; row 3 .*None"):
        EvaluationResult({"R": frame}).calculate_metrics()


def test_no_eval_mode_column_warns_and_uses_all_rows():
    frame = retriever_frame().drop(columns=["eval_mode"])
    with pytest.warns(UserWarning, match="no 'eval_mode' column"):
        metrics = EvaluationResult({"R": frame}).calculate_metrics()
    assert metrics["R"]["recall_single_hit"] == pytest.approx(5 / 6)


def test_non_answer_document_scope_with_answer_scope_warns():
    with pytest.warns(UserWarning, match="ignores answer_scope='context'"):
        hand_result().calculate_metrics(document_scope="document_id", answer_scope="context")


def test_query_metrics_of_node_with_both_row_types(storage):
    frame = pd.concat([reader_frame(), retriever_frame()], ignore_index=True)
    table = storage(EvaluationResult({"Both": frame})).query_metrics("Both")
    assert list(table.columns) == ["exact_match", "f1", "recall_multi_hit", "recall_single_hit", "precision",
                                   "map", "mrr", "ndcg"]
    assert list(table.index) == ["q1", "q2", "q3", "q5", "q4", "q6"]
    assert pd.isna(table.loc["q4", "f1"]) and table.loc["q4", "mrr"] == 1.0


def test_text_in_a_list_column_is_refused_not_read_character_by_character():
    frame = retriever_frame()
    frame["gold_contexts_similarity"] = frame["gold_contexts_similarity"].astype(object)
    frame.at[0, "gold_contexts_similarity"] = "[70.0, 10.0]"
    message = r"'gold_contexts_similarity' must hold a list in every row; row 0 holds '\[70.0, 10.0\]' \(str\)"
    with pytest.raises(SchemaError, match=message):
        EvaluationResult({"R": frame}).calculate_metrics(document_scope="context")
    answers = reader_frame()
    answers.at[0, "document_ids"] = "['d3']"
    with pytest.raises(SchemaError, match=r"'document_ids' must hold a list"):
        EvaluationResult({"Retriever": retriever_frame(), "Reader": answers}).calculate_metrics(simulated_top_k_retriever=1)


@pytest.mark.parametrize("node", ["Retriever", "Reader"])
def test_bad_ranks_are_named(node):
    result = hand_result()
    frame = result[node]
    frame["rank"] = frame["rank"].astype(object)
    frame.at[2, "rank"] = "x"
    with pytest.raises(SchemaError, match=r"column 'rank' must be numeric; row 2 holds 'x'"):
        result.calculate_metrics()
    frame.at[2, "rank"] = None
    with pytest.raises(SchemaError, match=r"column 'rank' is empty in row 2"):
        result.calculate_metrics()


def test_non_numeric_relevance_column_and_nan_threshold():
    frame = retriever_frame()
    frame["gold_id_match"] = frame["gold_id_match"].astype(object)
    frame.at[1, "gold_id_match"] = "no"
    with pytest.raises(SchemaError, match=r"column 'gold_id_match' must be numeric; row 1 holds 'no'"):
        EvaluationResult({"R": frame}).calculate_metrics(document_scope="document_id")
    with pytest.raises(InvalidParameterError, match="context_matching_threshold must be a (finite )?number"):
        hand_result().calculate_metrics(context_matching_threshold=float("nan"))


def test_top_k_leaves_out_queries_without_rows_in_filtered_order(storage):
    # docs/metrics.md#per-query filters the rows first: q2 has only ranks 2 and 3, so at k=1 it is not a query at all
    frame = retriever_frame()
    frame = frame[frame["multilabel_id"].isin(["q3", "q1"])].copy()
    frame.loc[frame["multilabel_id"] == "q1", "rank"] += 1
    table = storage(EvaluationResult({"R": frame})).query_metrics("R", simulated_top_k_retriever=1)
    assert list(table.index) == ["q3"]


def test_metrics_frame_and_notebook_display(storage):
    result = storage(hand_result())
    table = result.metrics_frame(simulated_top_k_retriever=1)
    assert list(table.index) == ["Retriever", "Reader"]
    assert table.loc["Retriever", "recall_single_hit"] == pytest.approx(3 / 6)  # worked out in test_document_metrics
    assert table.loc["Reader", "exact_match"] == pytest.approx(1 / 4)
    page = result._repr_html_()
    assert "<td><b>Retriever</b></td><td>13</td><td>6</td><td>integrated</td>" in page
    assert "<td><b>Reader</b></td><td>8</td><td>4</td><td>integrated, isolated</td>" in page
    assert "exact_match 0.750" in page and len(repr(result)) < 80


def test_load_demo_runs_names_a_bad_top_k():
    from evalframe import InvalidParameterError, load_demo_runs

    with pytest.raises(InvalidParameterError, match=r"top_k must be 3 or 5 \(the demo's two runs\); got \[3\]"):
        load_demo_runs(top_k=[3])


def test_query_metrics_with_query_puts_the_query_text_in_front():
    result = hand_result()
    plain = result.query_metrics("Reader")
    shown = result.query_metrics("Reader", with_query=True)
    assert list(shown.columns) == ["query", *plain.columns]
    assert shown["query"].tolist() == ["question q1", "question q2", "question q3", "question q5"]
    pd.testing.assert_frame_equal(shown.drop(columns="query"), plain)
    assert list(result.query_metrics("Reader", by="no_answer", with_query=True).columns) == [
        "query", "no_answer", "exact_match", "f1"]
    pd.testing.assert_frame_equal(result.query_metrics("Reader", by="query", with_query=True), shown)
    pd.testing.assert_frame_equal(result.query_metrics("Reader", with_query=False), plain)
    with pytest.raises(InvalidParameterError, match="with_query"):
        result.query_metrics("Reader", with_query="yes")


def test_a_recorded_threshold_that_is_not_a_number_is_an_error_not_an_assertion():
    result = hand_result()
    result.matching["context_matching_threshold"] = None  # result.matching is a plain dict anyone can edit
    with pytest.raises(InvalidParameterError, match=r"^result\.matching\['context_matching_threshold'\] must be a "
                       r"finite number in \[0, 100\]; got None.*or pass context_matching_threshold=\.$"):
        result.calculate_metrics()
    # an explicit threshold does not read the recorded one (q6's rank 1 matches its two gold contexts at 80 and 70)
    table = result.query_metrics("Retriever", document_scope="context", context_matching_threshold=65)
    assert table.loc["q6", "recall_multi_hit"] == 1.0


def test_a_matching_attribute_that_is_not_a_dict_is_named_by_the_analyses_and_save(tmp_path):
    # was: a bare AttributeError ('NoneType' object has no attribute 'get') and TypeError (not iterable)
    result = load_demo_result()
    result.matching = None
    with pytest.raises(InvalidParameterError, match=r"^result\.matching must be a dict of matching options"):
        result.calculate_metrics()
    with pytest.raises(SaveError, match=r"^result\.matching must be a dict of matching options"):
        result.save(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_facades_analyses_are_delegates():
    """result.py keeps the analyses' signatures and hands their work to its stage (issue 36): the worst queries to
    analysis/examples.py, a node's tables, judged rows, trec table and relstrings to frames/tables.py, TREC files to
    io/trec.py; each method is its checks of the call and one delegation, and the helpers moved out are gone."""
    import ast
    from pathlib import Path

    import evalframe.result

    tree = ast.parse(Path(evalframe.result.__file__).read_text())
    facade = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "EvaluationResult")
    methods = {node.name: node for node in facade.body if isinstance(node, ast.FunctionDef)}

    def statements(method: ast.FunctionDef) -> int:
        body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        return len([s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))])

    delegates = ["query_table", "trec_partial", "trec_query_metrics", "trec_relstrings", "wrong_examples",
                 "query_examples", "node_rows", "to_trec_run", "to_qrels"]
    assert {name: statements(methods[name]) for name in delegates if statements(methods[name]) > 5} == {}
    moved = {"_looks_like_measure", "_trec_judged_rows", "_worst_by", "_rows", "_answer_table", "_document_table",
             "_score_table", "_query_table", "_with_measures", "_trec_table", "_judged_rows_of"}
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert moved & defined == set()
