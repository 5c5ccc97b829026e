"""The report says what its document metrics include: each document node's no-answer queries (scored 1.0 by
Haystack's definition) with the answerable-only value beside each mean, and what the default document_scope credits.
On the ten queries of tests/fixtures.py (``ten_query_lines``, worked out by hand there): 2 no-answer queries;
recall_single_hit 0.8 (answerable 0.75), 0.7 with gold ids only; mrr 0.75 (answerable 0.6875)."""

from __future__ import annotations

import json

import pytest

from evalframe import EvaluationResult, load_demo_result
from evalframe.report.reports import build_report
from evalframe.report.model import build_model
from tests.fixtures import reader_frame, ten_query_result

NO_ANSWER = ("Retriever: 2 of 10 queries are no-answer queries (no gold answer, no gold document); every document "
             "metric scores them 1.0 (Haystack's definition) and each mean counts them; 'answerable only' is the mean "
             "over the other 8.")
SCOPE = ("document_scope='document_id_or_answer' (the default) counts a retrieved document as relevant when its id is a "
         "gold document id or when its text contains a gold answer string: a chunk holding the answer counts even "
         "under another document id. With document_scope='document_id' (gold ids only): Retriever recall_single_hit "
         "0.7000 (0.8000 here).")


@pytest.fixture(scope="module")
def report():
    return build_report(ten_query_result(), n=1, charts=False)


def test_the_model_holds_the_counts_the_answerable_values_and_the_scope_note(report):
    model = report.model
    assert [(c.node, c.queries, c.no_answer_queries) for c in model.no_answer] == [("Retriever", 10, 2)]
    rows = {row.metric: row for row in model.funnel[0].rows}
    assert rows["recall_single_hit"].integrated == pytest.approx(0.8)
    assert rows["recall_single_hit"].answerable == pytest.approx(0.75)
    assert rows["mrr"].answerable == pytest.approx(5.5 / 8)
    assert model.no_answer[0].sentence() == NO_ANSWER
    assert model.scope_note == SCOPE


def test_text_markdown_html_and_json_say_it(report):
    text = report.text.splitlines()
    assert "  | recall_single_hit  0.8000   (answerable only 0.7500)" in text
    assert "  | mrr                0.7500   (answerable only 0.6875)" in text
    assert f"[no-answer] {NO_ANSWER}" in text and f"[scope] {SCOPE}" in text
    markdown = report.to_markdown().splitlines()
    # a retriever alone, run integrated: no top-1 and no isolated value, so neither column (none would be filled)
    assert "| node | metric | integrated | answerable only |" in markdown
    assert "| Retriever | recall_single_hit | 0.8000 | 0.7500 |" in markdown
    assert NO_ANSWER in markdown and SCOPE in markdown
    page = report.html
    assert "<th>answerable only</th>" in page and "<td class='num'>0.7500</td></tr>" in page
    assert NO_ANSWER.replace("'", "&#x27;") in page and "document_scope=&#x27;document_id&#x27;" in page
    data = json.loads(report.to_json())
    assert data["no_answer"] == [{"node": "Retriever", "queries": 10, "no_answer_queries": 2}]
    assert data["scope_note"] == SCOPE
    single_hit = next(row for row in data["funnel"][0]["metrics"] if row["metric"] == "recall_single_hit")
    assert single_hit["answerable"] == pytest.approx(0.75)


def test_gold_ids_only_need_no_scope_note_and_a_node_without_no_answer_query_no_answerable_column():
    by_id = build_model(ten_query_result(), n=1, charts=False, document_scope="document_id")
    assert by_id.scope_note == ""
    assert {row.metric: row.answerable for row in by_id.funnel[0].rows}["recall_single_hit"] == pytest.approx(0.625)
    frame = ten_query_result()["Retriever"]
    answered = EvaluationResult({"Retriever": frame[~frame["query"].isin(["question 9?", "question 10?"])]})
    report = build_report(answered, n=1, charts=False)
    assert all(row.answerable is None for row in report.model.funnel[0].rows)
    assert "answerable only" not in report.to_markdown()
    assert ("[no-answer] Retriever: none of its 8 queries is a no-answer query; its document metrics are means over "
            "answerable queries.") in report.text.splitlines()
    # an answer node alone: nothing to say of document metrics
    only_answers = build_model(EvaluationResult({"Reader": reader_frame()}), n=1, charts=False)
    assert only_answers.no_answer == () and only_answers.scope_note == ""


def test_a_frame_without_gold_answers_gives_no_count_rather_than_an_error():
    frame = ten_query_result()["Retriever"].drop(columns="gold_answers")
    model = build_model(EvaluationResult({"Retriever": frame}), n=1, charts=False, document_scope="document_id")
    assert model.no_answer == () and all(row.answerable is None for row in model.funnel[0].rows)


def test_the_demo_reports_its_one_no_answer_query():
    text = load_demo_result().report(n=1, charts=False).text.splitlines()
    assert text[3] == "Pipeline funnel (integrated evaluation)"
    # 7 answerable queries, 6 found (Everest's retrieval is empty); Mars is the no-answer query
    assert "  | recall_single_hit  0.8750   (answerable only 0.8571)" in text
    assert any(line.startswith("[no-answer] Retriever: 1 of 8 queries is a no-answer query") for line in text)
