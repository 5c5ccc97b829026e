"""A node giving one answer per query (a generator) has no top-1 of its own: the single report leaves its top-1 cells
empty and says why, in text, Markdown, HTML and JSON alike; decided by the data (no query with two answer rows), not
by the node's name.

The two Ragas records, worked out by hand: q1's response "the cat sat" against the reference "the cat sat" is an exact
match (f1 1); q2's "a dog" against "the dog ran" shares "dog" after SQuAD normalisation drops the article ("a",
"the"): precision 1/1, recall 1/2, f1 2/3, no exact match. The Generator's means: exact_match 0.5, f1 (1 + 2/3) / 2
= 0.8333. The demo's Reader gives up to three answers per query, so its top-1 column stays.
"""

from __future__ import annotations

import json
import re

import pytest

from evalframe import EvaluationResult, load_demo_result
from evalframe.present.cli import main
from evalframe.report.model import ONE_ANSWER, build_model
from evalframe.report.plots import one_answer_per_query

RECORDS = [
    {"user_input": "q one?", "retrieved_contexts": ["the cat sat on the mat", "a dog ran"],
     "retrieved_context_ids": ["d1", "d2"], "reference_context_ids": ["d1"], "response": "the cat sat",
     "reference": "the cat sat", "faithfulness": 0.5},
    {"user_input": "q two?", "retrieved_contexts": ["nothing here", "the dog ran home"],
     "retrieved_context_ids": ["d3", "d4"], "reference_context_ids": ["d4"], "response": "a dog",
     "reference": "the dog ran", "faithfulness": 1.0},
]


@pytest.fixture()
def ragas_file(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return path


def _report(ragas_file, capsys, format_: str) -> str:
    assert main(["report", "--from", "ragas", str(ragas_file), "--format", format_]) == 0
    return capsys.readouterr().out


def test_one_answer_per_query_is_read_from_the_rows_not_the_name(ragas_file):
    result = EvaluationResult.from_ragas(ragas_file)
    assert one_answer_per_query(result, "Generator") is True
    assert one_answer_per_query(result, "Retriever") is False  # document rows only
    demo = load_demo_result()
    assert one_answer_per_query(demo, "Reader") is False  # up to 3 answers per query
    # the same rows under a reader's name are still one answer per query
    renamed = EvaluationResult({"Reader": result["Generator"].assign(node="Reader")})
    assert one_answer_per_query(renamed, "Reader") is True


def test_the_models_generator_row_has_no_top1(ragas_file):
    model = build_model(EvaluationResult.from_ragas(ragas_file), charts=False)
    generator = next(node for node in model.funnel if node.node == "Generator")
    assert generator.one_answer and generator.top1_note == ONE_ANSWER
    rows = {row.metric: row for row in generator.rows}
    assert rows["exact_match"].integrated == pytest.approx(0.5)
    assert rows["f1"].integrated == pytest.approx((1 + 2 / 3) / 2)
    assert all(row.top1 is None for row in generator.rows)
    reader = next(node for node in build_model(load_demo_result(), charts=False).funnel if node.node == "Reader")
    assert not reader.one_answer and all(row.top1 is not None for row in reader.rows)


def test_text_says_why_and_repeats_no_value(ragas_file, capsys):
    text = _report(ragas_file, capsys, "text")
    assert "(top-1" not in text
    assert re.search(r"^  \| f1 +0\.8333$", text, re.M)
    assert "[one answer] Generator: one answer per query: top-1 is the integrated value; no top-1 value is shown for " \
           "it." in text


def test_markdown_has_no_empty_top1_column_and_says_why(ragas_file, capsys):
    markdown = _report(ragas_file, capsys, "markdown")
    assert "| node | metric | integrated |\n|---|---|---|\n" in markdown  # no top-1, no isolated column: none filled
    assert "| Generator | f1 | 0.8333 |\n" in markdown
    assert "Generator: one answer per query: top-1 is the integrated value" in markdown


def test_html_has_no_empty_top1_column_and_says_why(ragas_file, capsys):
    page = _report(ragas_file, capsys, "html")
    funnel = page[page.index("<h2>Pipeline funnel</h2>"):page.index("</table>")]
    assert "<th>top-1</th>" not in funnel and "<th>isolated (upper bound)</th>" not in funnel
    assert "0.8333" in funnel
    assert "Generator: one answer per query: top-1 is the integrated value" in page


def test_json_top1_is_null_with_the_reason(ragas_file, capsys):
    data = json.loads(_report(ragas_file, capsys, "json"))
    generator = next(node for node in data["funnel"] if node["node"] == "Generator")
    assert generator["one_answer"] is True and generator["top1_note"] == "one answer per query: top-1 is the " \
                                                                         "integrated value"
    assert {row["metric"]: row["top1"] for row in generator["metrics"]}["f1"] is None
    retriever = next(node for node in data["funnel"] if node["node"] == "Retriever")
    assert retriever["one_answer"] is False and retriever["top1_note"] == ""


def test_a_reader_of_several_answers_keeps_its_top1_column():
    from evalframe.report.markdown import render

    markdown = render(build_model(load_demo_result(), n=1, charts=False))
    assert "| node | metric | integrated | top-1 | isolated (upper bound) |" in markdown
    assert "one answer per query" not in markdown


def test_beside_a_reader_of_several_answers_the_generators_top1_cells_are_empty_and_say_why(ragas_file):
    from evalframe.report import html, markdown

    generator = EvaluationResult.from_ragas(ragas_file)["Generator"]
    both = EvaluationResult({"Reader": load_demo_result()["Reader"],
                             "Generator": generator.drop(columns=["scores.faithfulness"])})
    model = build_model(both, n=1, charts=False, metrics_filter={"Reader": ["f1"], "Generator": ["f1"]})
    lines = markdown.render(model).splitlines()
    assert "| node | metric | integrated | top-1 | isolated (upper bound) |" in lines
    assert "| Generator | f1 | 0.8333 |  |  |" in lines  # its top-1 cell empty, no value repeated
    assert next(line for line in lines if line.startswith("| Reader | f1 |")).split(" | ")[3] != ""
    page = html.render(model)
    assert ("<td class='num' title='one answer per query: top-1 is the integrated value'></td>") in page


def test_a_gold_answer_paired_with_two_gold_documents_is_shown_once(tmp_path):
    # one reference, two reference contexts: the source lists the answer once per gold document
    record = {**RECORDS[1], "reference_context_ids": ["d3", "d4"], "response": "no idea"}  # f1 0: a worst query
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = EvaluationResult.from_ragas(path)
    assert list(result["Generator"]["gold_answers"].iloc[0]) == ["the dog ran", "the dog ran"]
    section = next(s for s in build_model(result, charts=False).sections if s.node == "Generator")
    assert section.queries[0].gold == "the dog ran"
    retriever = next(s for s in build_model(result, charts=False).sections if s.node == "Retriever")
    assert [q.gold for q in retriever.queries] in ([], ["d3 | d4"])
