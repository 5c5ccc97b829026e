"""The evaluation report (text and HTML) and its command, checked against the library's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalframe import EvaluationResult, InvalidParameterError, load_demo_result, print_eval_report
from evalframe.present.cli import main

DEMO = Path(__file__).parents[2] / "evalframe" / "data" / "demo_result"


def test_text_report_shows_the_funnel_with_the_library_numbers():
    result = load_demo_result()
    text = result.report(n=2, charts=False).text
    integrated = result.calculate_metrics()
    top1 = result.calculate_metrics(simulated_top_k_reader=1)
    isolated = result.calculate_metrics(eval_mode="isolated")
    assert text.index("Retriever") < text.index("Reader") < text.index("Output")
    assert f"| mrr                {integrated['Retriever']['mrr']:.4f}" in text
    assert (f"| f1                 {integrated['Reader']['f1']:.4f}   (top-1 {top1['Reader']['f1']:.4f}, "
            f"isolated {isolated['Reader']['f1']:.4f})") in text
    worst = result.wrong_examples("Reader", n=2)
    assert f"query:  {worst[0]['query']}" in text
    assert "Worst queries of Retriever by recall_single_hit" in text


def test_html_report_is_self_contained_and_escaped():
    result = load_demo_result()
    result["Reader"]["query"] = "<script>alert(1)</script>"
    page = result.report(n=8).html
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert not re.search(r"(src|href)=['\"]https?://", page)  # no network
    assert page.count("<table>") >= 3
    if "data:image/png;base64," not in page:
        pytest.importorskip("matplotlib")  # the recall@k chart is drawn only with matplotlib


def test_node_order_and_truncation():
    result = load_demo_result()
    text = result.report(n=1, node_order=["Reader", "Retriever"], max_characters_per_field=10, charts=False).text
    assert text.index("Reader") < text.index("Retriever")
    assert "query:  How tal..." in text  # 10 characters: 7 and "..."
    with pytest.raises(InvalidParameterError, match=r"node_order names node\(s\) \['Ranker'\]"):
        result.report(node_order=["Ranker"])


def test_print_eval_report_for_haystack_users(capsys):
    print_eval_report(load_demo_result(), n_wrong_examples=1)
    assert "Pipeline funnel" in capsys.readouterr().out


def test_report_command_writes_html(tmp_path, capsys):
    assert main(["report", str(DEMO), "--html", str(tmp_path / "report.html"), "-n", "1",
                 "--node-order", "Retriever,Reader"]) == 0
    out = capsys.readouterr().out
    assert "Pipeline funnel" in out and f"HTML report: {tmp_path / 'report.html'}" in out
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_node_whose_isolated_rows_lack_some_metrics_reports_the_ones_they_have():
    import pandas as pd

    from evalframe import EvaluationResult

    result = load_demo_result()  # a node with document and answer rows; only the answers were run isolated
    both = EvaluationResult({"Retriever": result["Retriever"],
                             "Reader": pd.concat([result["Reader"], result["Retriever"]], ignore_index=True)})
    text = both.report(charts=False).text
    isolated_f1 = both.calculate_metrics(eval_mode="isolated")["Reader"]["f1"]
    assert f"isolated {isolated_f1:.4f}" in text
    assert not re.search(r"recall_multi_hit .*isolated", text.split("Reader", 1)[1].split("Output", 1)[0])


def test_funnel_puts_retrievers_before_readers_when_the_folder_records_no_order():
    # a Haystack folder loads its files in name order: Reader.csv before Retriever.csv
    haystack = EvaluationResult.load(Path(__file__).parents[1] / "data" / "haystack1" / "result")
    assert list(haystack) == ["Reader", "Retriever"]
    text = haystack.report(n=1, charts=False).text
    funnel = text[text.index("Query"): text.index("Output")]
    assert funnel.index("Retriever") < funnel.index("Reader")
    page = haystack.report(n=1, charts=False).html
    assert "nodes: Retriever, Reader" in page
    assert page.index("<td class='node'>Retriever") < page.index("<td class='node'>Reader")
    # an explicit order is kept, and so is the result's order among nodes of one kind
    text = haystack.report(n=1, node_order=["Reader", "Retriever"], charts=False).text
    assert text.index("Reader") < text.index("Retriever")
