"""The report's model and its renderers: the values are worked out by hand from the demo result's rows
(evalframe/data/demo_result: 8 queries; the Reader's answers per query listed in the comments)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evalframe import load_demo_result
from evalframe.errors import InvalidParameterError
from evalframe.present.cli import main
from evalframe.report import FORMATS
from evalframe.report.reports import Report, build_report
from evalframe.report.json import to_dict
from evalframe.report.model import FunnelNode, FunnelRow, build_model
from evalframe.report.text import render as render_text

DEMO = Path(__file__).resolve().parents[2] / "evalframe" / "data" / "demo_result"

# Reader, exact_match per query (Germany, river, Moon, Mars, Everest, Python, Rhine, Paris):
#   any answer (integrated):  1 1 1 1 0 1 1 0 -> 6/8;  rank 1 only: 1 0 1 1 0 0 1 0 -> 4/8;
#   isolated:                 1 1 1 1 1 0 1 1 -> 7/8
# Retriever, recall_single_hit: every query finds a relevant document (Mars has no gold: 1) but Everest, whose
# retrieval is empty -> 7/8
READER_EXACT_MATCH = {"metric": "exact_match", "integrated": 0.75, "top1": 0.5, "isolated": 0.875, "above_one": False,
                      "answerable": None}  # an answer metric: no answerable-only value


@pytest.fixture(scope="module")
def report() -> Report:
    return build_report(load_demo_result(), n=1, charts=False)


def test_the_dict_holds_the_funnel_numbers_as_numbers(report):
    data = report.to_dict()
    assert data["schema_version"] == 1 and data["nodes"] == ["Retriever", "Reader"]
    assert data["scopes"] == {"document_scope": "document_id_or_answer", "answer_scope": "any"}
    retriever, reader = data["funnel"]
    assert (retriever["node"], retriever["answer_node"], reader["node"], reader["answer_node"]) == (
        "Retriever", False, "Reader", True)
    assert reader["metrics"][0] == READER_EXACT_MATCH
    single_hit = next(row for row in retriever["metrics"] if row["metric"] == "recall_single_hit")
    # a retriever has no top-1 and no isolated rows: null; of the 7 answerable queries (the 8th, "Who was the first
    # person to walk on Mars?", is a no-answer query) 6 are found ("How tall is Mount Everest?" retrieved nothing)
    assert single_hit == {"metric": "recall_single_hit", "integrated": 0.875, "top1": None, "isolated": None,
                          "above_one": False, "answerable": 6 / 7}
    assert data["no_answer"] == [{"node": "Retriever", "queries": 8, "no_answer_queries": 1}]
    assert data["scope_note"].startswith("document_scope='document_id_or_answer' (the default) counts a retrieved "
                                         "document as relevant when its id is a gold document id or when its text "
                                         "contains a gold answer string")
    assert data["above_one"] is False and data["trec"] == [] and data["measures"] == []


def test_the_dict_lists_the_worst_queries_as_the_text_shows_them(report):
    retriever, reader = report.to_dict()["worst"]
    assert retriever["metric"] == "recall_single_hit" and retriever["threshold"] == 0.5  # wrong_examples' default
    assert retriever["queries"] == [{"query": "How tall is Mount Everest?", "value": 0.0, "gold": "doc-everest",
                                     "listed": [{"rank": 1, "correct": False, "why": "", "fields": {
                                         "context": "(empty)", "document_id": "(nothing retrieved)"}}]}]
    # the Reader's worst by f1: Everest, whose only integrated answer is a no-answer (f1 0)
    (query,) = reader["queries"]
    assert (query["query"], query["value"], query["gold"]) == ("How tall is Mount Everest?", 0.0, "8,848.86 metres")
    assert query["listed"][0]["rank"] == 1 and query["listed"][0]["correct"] is False
    assert query["listed"][0]["why"] == "exact_match 0, f1 0.00"
    assert query["listed"][0]["fields"]["answer"] == "(no answer)"


def test_the_json_is_the_dict_and_strict(report):
    text = report.to_json()
    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON")

    assert json.loads(text, parse_constant=refuse) == report.to_dict()
    metrics = [d["metric"] for d in report.to_dict()["definitions"]["metrics"]]
    assert metrics == ["recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg", "exact_match", "f1"]


def test_nan_is_null_in_json():
    model = build_model(load_demo_result(), n=1, charts=False, metrics_filter={"Retriever": ["mrr"], "Reader": []})
    row = FunnelRow("f1", "Best token-overlap F1.", float("nan"), float("nan"), None, False)
    model = dataclasses.replace(model, funnel=(FunnelNode("Reader", True, (row,)),))
    assert to_dict(model)["funnel"][0]["metrics"][0] == {"metric": "f1", "integrated": None, "top1": None,
                                                        "isolated": None, "above_one": False, "answerable": None}
    assert '"integrated": null' in Report(model).to_json()


def test_markdown_tables(report):
    lines = report.to_markdown().splitlines()
    assert lines[0] == "# Evaluation report"
    assert "| node | metric | integrated | top-1 | isolated (upper bound) | answerable only |" in lines
    assert "| Reader | exact_match | 0.7500 | 0.5000 | 0.8750 |  |" in lines
    assert "| Retriever | recall_single_hit | 0.8750 |  |  | 0.8571 |" in lines  # 6/7 answerable queries found
    assert ("| How tall is Mount Everest? | 0.0000 | doc-everest | 1. context: (empty); document_id: (nothing "
            "retrieved) |") in lines
    assert "## What the numbers mean" in lines


def test_every_format_is_one_renderer_of_the_model(report):
    assert list(FORMATS) == ["text", "html", "markdown", "json"]
    assert report.text == render_text(report.model) == report.render("text") == str(report)
    assert report.html == report.render("html") == report._repr_html_()
    with pytest.raises(InvalidParameterError, match="format must be one of"):
        report.render("pdf")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_json_and_markdown(capsys):
    code, out, _ = run(capsys, "report", str(DEMO), "-n", "1", "--format", "json")
    assert code == 0
    assert json.loads(out)["funnel"][1]["metrics"][0] == READER_EXACT_MATCH
    code, out, _ = run(capsys, "report", str(DEMO), "-n", "1", "--format", "markdown")
    assert code == 0 and "| Reader | exact_match | 0.7500 | 0.5000 | 0.8750 |  |" in out.splitlines()


def test_cli_report_text_is_the_default(capsys):
    _, default, _ = run(capsys, "report", str(DEMO), "-n", "1")
    _, text, _ = run(capsys, "report", str(DEMO), "-n", "1", "--format", "text")
    assert default == text and default.startswith("evalframe ") and "  | exact_match        0.7500" in default


def test_cli_report_json_with_html_file_stays_json(capsys, tmp_path):
    page = tmp_path / "report.html"
    code, out, _ = run(capsys, "report", str(DEMO), "-n", "1", "--format", "json", "--html", str(page))
    assert code == 0 and json.loads(out)["nodes"] == ["Retriever", "Reader"]
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_report_is_made_of_its_model_only():
    # Report(text, html), the form of the report before it held its model, is gone (never released)
    with pytest.raises(InvalidParameterError, match=r"^Report takes the report's model \(build_report\(result\) builds "
                                                    r"it\); got str\.$"):
        Report("plain\n")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"takes 2 positional arguments but 3 were given"):
        Report("plain\n", "<p>page</p>")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'text'"):
        Report(text="plain\n", html="<p>page</p>")  # type: ignore[call-arg]
    with pytest.raises(InvalidParameterError, match="Report takes the report's model"):
        Report(42)  # type: ignore[arg-type]
