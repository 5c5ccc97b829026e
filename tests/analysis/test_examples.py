"""The printed form of wrong_examples / query_examples / worst_by_delta (evalframe.analysis.examples.Examples)."""

from __future__ import annotations

import json
import pickle

from evalframe import worst_by_delta
from evalframe.analysis.examples import Examples
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
