"""The worst queries and their printed form (evalframe.analysis.examples): wrong_examples / query_examples ranked over
what a result offers (ExampleSource), and the printed Examples of wrong_examples / query_examples / worst_by_delta."""

from __future__ import annotations

import json
import pickle

import pandas as pd
import pytest

from evalframe import EvaluationResult, score_measure, worst_by_delta
from evalframe.analysis.examples import Examples, examples_of, worst_examples
from evalframe.analysis.protocol import ExampleSource
from evalframe.errors import InvalidParameterError
from evalframe.options import MetricOptions
from tests.fixtures import hand_result


def test_wrong_examples_is_still_the_plain_list_of_dicts():
    worst = hand_result().wrong_examples("Reader", n=2)
    plain = [dict(example) for example in worst]
    assert isinstance(worst, list) and isinstance(worst, Examples)
    assert worst == plain and plain == worst
    assert json.loads(json.dumps(worst)) == json.loads(json.dumps(plain))
    again = pickle.loads(pickle.dumps(worst))
    assert again == worst and isinstance(again, Examples)
    assert isinstance(hand_result().query_examples("Reader", hand_result().query_metrics("Reader"), metric="f1"), Examples)
    assert hand_result().wrong_examples("Reader", n=1, answer_metric_threshold=-1) == Examples() == []
    assert isinstance(worst[:1], Examples) and worst[:1] == plain[:1] and worst[0] == plain[0] and worst[-1] == plain[-1]


def test_repr_of_answer_examples():
    worst = hand_result().wrong_examples("Reader", n=2, answer_metric_threshold=1)
    assert repr(worst).splitlines() == [
        "2 queries (a list of dicts; index it for all fields)",
        "[0] question q5  (q5)",
        "    metrics   exact_match 0  f1 0.4",
        "    gold      answers ['answer q5'] | documents [g]",
        "    answers   1. 'a river'  exact_match 0  f1 0.4  docs [d99]",
        "[1] question q1  (q1)",
        "    metrics   exact_match 1  f1 1",
        "    gold      answers ['answer q1'] | documents [g]",
        "    answers   1. 'Bonn'  exact_match 0  f1 0.5  docs [d3]",
        "              2. 'Berlin'  exact_match 1  f1 1  docs [d1]",
        "              3. 'Munich'  exact_match 0  f1 0.2  docs []",
    ]


def test_repr_of_document_examples_lists_three_rows_and_counts_the_rest():
    result = hand_result()
    worst = result.query_examples("Retriever", result.query_metrics("Retriever").loc[["q1"], ["mrr"]], metric="mrr")
    text = repr(worst).splitlines()
    assert text[:2] == ["1 query (a list of dicts; index it for all fields)", "[0] question q1  (q1)"]
    assert text[2:] == [
        "    metrics   mrr 1",
        "    gold      documents [d1, d2]",
        "    documents 1. d3                 'passage d3'",
        "              2. d1           gold  'passage d1'",
        "              3. d2           gold  'passage d2'",
        "              … 2 more (in ['documents'])",
    ]
    assert all(len(line) <= 100 for line in text)


def test_repr_cuts_long_text_to_one_line_of_width_100():
    example = {"multilabel_id": "x", "query": "why\n" + "a" * 300, "metrics": {"f1": 0.0}, "gold_answers": ["g"],
               "gold_document_ids": [], "answers": [{"rank": 1, "answer": "b" * 300, "f1": 0.0, "document_ids": []}]}
    lines = repr(Examples([example])).splitlines()
    assert lines[1].startswith("[0] why aaa") and len(lines[1]) == 100 and lines[1].endswith("…")
    assert len(lines[4]) == 100 and lines[4].endswith("…")
    assert repr(Examples()) == "0 queries (an empty list)"


def test_worst_by_delta_prints_the_delta_and_the_baseline():
    from tests.analysis.test_compare import run_b

    listed = worst_by_delta(hand_result(), run_b(), "Reader", "f1")
    assert isinstance(listed, Examples)
    assert repr(listed).splitlines()[1:5] == ["[0] question q1  (q1)", "    metrics   exact_match 0  f1 0.5",
                                              "    delta     -0.5  (baseline exact_match 1  f1 1)",
                                              "    gold      answers ['answer q1'] | documents [g]"]


def test_html_is_a_table_with_escaped_text():
    example = {"multilabel_id": "<id>", "query": "is 1 < 2 & 3 > 2?", "metrics": {"f1": 0.5}, "gold_answers": ["<b>"],
               "gold_document_ids": ["d&1"], "answers": [{"rank": 1, "answer": "<script>", "f1": 0.5, "document_ids": []}]}
    page = Examples([example])._repr_html_()
    assert page.startswith("<table>") and page.endswith("</table>")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "is 1 &lt; 2 &amp; 3 &gt; 2?" in page and "&lt;id&gt;" in page and "d&amp;1" in page
    assert page.count("<tr>") == 2


def test_each_example_carries_its_query_meta_parsed_and_prints_it():
    import pytest

    from evalframe import EvaluationResult, SchemaError
    from tests.fixtures import reader_frame

    frame = reader_frame()
    frame["meta"] = frame["multilabel_id"].map({"q5": '{"source": {"team": "support"}, "topic": "rivers"}'})
    result = EvaluationResult({"Reader": frame})
    worst = result.wrong_examples("Reader", n=2, answer_metric_threshold=1)
    assert [(example["multilabel_id"], example["meta"]) for example in worst] == [
        ("q5", {"source": {"team": "support"}, "topic": "rivers"}), ("q1", {})]
    assert repr(worst).splitlines()[1:4] == [
        "[0] question q5  (q5)",
        "    metrics   exact_match 0  f1 0.4",
        '    meta      {"source": {"team": "support"}, "topic": "rivers"}',
    ]
    assert repr(worst).splitlines()[6:8] == ["[1] question q1  (q1)", "    metrics   exact_match 1  f1 1"]  # no meta line
    assert hand_result().wrong_examples("Reader", n=1)[0]["meta"] == {}  # a frame without the column
    frame["meta"] = frame["multilabel_id"].map({"q5": "[1, 2]"})
    with pytest.raises(SchemaError, match=r"column 'meta' holds '\[1, 2\]' for multilabel_id 'q5', which is not the "
                                          r"JSON text of an object"):
        EvaluationResult({"Reader": frame}).wrong_examples("Reader", n=2, answer_metric_threshold=1)


class _HandSource:
    """A result as the worst-example ranking reads it (evalframe.analysis.protocol.ExampleSource), written by hand:
    one answer node with per-query tables given as literals, and no EvaluationResult behind it."""

    index = pd.Index(["q1", "q2", "q3"], name="multilabel_id")
    frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q2", "q3"], "type": "answer", "eval_mode": "integrated",
                          "rank": [1, 2, 1, 1], "answer": ["Berlin", "Bonn", "Paris", ""],
                          "query": ["capital of Germany?", "capital of Germany?", "capital of Italy?", "tallest?"],
                          "gold_answers": [["Berlin"], ["Berlin"], ["Rome"], ["Everest"]],
                          "gold_document_ids": [["d1"], ["d1"], ["d2"], ["d3"]], "filters": None})

    def __init__(self) -> None:
        self.tables: list[tuple[str, dict]] = []

    def check_node(self, node: str) -> str:
        if node != "Reader":
            raise InvalidParameterError(f"no node {node!r}")
        return node

    def check_options(self, keywords, *, passed_to):
        return MetricOptions.from_keywords(keywords, passed_to=passed_to)

    def declared_scores(self):
        return {"latency": score_measure("latency", direction="lower")}

    def query_table(self, node, row_type, **options):
        self.tables.append((row_type, options))
        if row_type == "answer":
            return pd.DataFrame({"exact_match": [1.0, 0.0, 0.0], "f1": [1.0, 0.4, 0.0]}, index=self.index)
        if row_type == "score":
            return pd.DataFrame({"latency": [0.2, 3.0, 1.0]}, index=self.index)
        return None

    def trec_query_metrics(self, measures, **options):
        raise AssertionError("an answer node is not ranked by a trec measure")

    def node_rows(self, node, row_type, eval_mode="integrated"):
        return self.frame[(self.frame["type"] == row_type) & (self.frame["eval_mode"] == eval_mode)]


def test_the_worst_queries_are_ranked_over_what_a_result_offers():
    source = _HandSource()
    worst = worst_examples(source, "Reader", 2, "recall_single_hit", "f1", 0.5, 0.5, None, None, False, "error",
                           {"simulated_top_k_reader": 1})
    # f1 per query 1.0, 0.4, 0.0: the lowest first, those <= 0.5
    assert [(e["multilabel_id"], e["metrics"]) for e in worst] == [("q3", {"exact_match": 0.0, "f1": 0.0}),
                                                                 ("q2", {"exact_match": 0.0, "f1": 0.4})]
    assert [row["answer"] for row in worst[1]["answers"]] == ["Paris"] and worst[1]["gold_answers"] == ["Rome"]
    assert source.tables == [("answer", {"simulated_top_k_reader": 1})]  # the options as passed, to its tables

    # a declared score where lower is better: the highest first, the node's metrics beside it
    slowest = worst_examples(_HandSource(), "Reader", 2, "recall_single_hit", "f1", 0.5, 0.5, "latency", None, False,
                             "error", {})
    assert [(e["multilabel_id"], e["metrics"]["latency"], e["metrics"]["f1"]) for e in slowest] == [
        ("q2", 3.0, 0.4), ("q3", 1.0, 0.0)]
    assert [row["answer"] for row in slowest[1]["answers"]] == [""]
    with pytest.raises(InvalidParameterError, match=r"metric must be one of \[.*'latency'\]; got 'latncy'"):
        worst_examples(_HandSource(), "Reader", 2, "recall_single_hit", "f1", 0.5, 0.5, "latncy", None, False,
                       "error", {})


def test_the_queries_of_a_table_are_listed_over_what_a_result_offers():
    source = _HandSource()
    listed = examples_of(source, "Reader", pd.DataFrame({"f1": [1.0]}, index=pd.Index(["q1"], name="multilabel_id")),
                         "f1", "integrated")
    assert [row["answer"] for row in listed[0]["answers"]] == ["Berlin", "Bonn"]
    assert listed[0]["query"] == "capital of Germany?" and listed[0]["metrics"] == {"f1": 1.0}
    with pytest.raises(InvalidParameterError, match=r"queries holds 1 multilabel_id\(s\) without answer rows of node "
                                                    r"'Reader' in eval_mode 'integrated' \(e.g. 'q9'\)"):
        examples_of(source, "Reader", pd.DataFrame({"f1": [1.0]}, index=pd.Index(["q9"])), "f1", "integrated")


def test_an_evaluation_result_is_an_example_source_and_its_methods_are_these_functions():
    members = [name for name in vars(ExampleSource) if not name.startswith("_")]
    assert sorted(members) == ["check_node", "check_options", "declared_scores", "node_rows", "query_table",
                               "trec_query_metrics"]
    assert all(callable(getattr(EvaluationResult, name)) for name in members)
    # the facade's docstring is the function's, with the output option it adds (backend=) documented before Examples
    facade = EvaluationResult.wrong_examples.__doc__
    assert facade is not None and worst_examples.__doc__ is not None
    added = facade[facade.index("    Parameters\n    ----------\n    backend : str, optional"):facade.index("    Examples\n")]
    assert facade.replace(added, "", 1) == worst_examples.__doc__
    assert EvaluationResult.query_examples.__doc__ == examples_of.__doc__
