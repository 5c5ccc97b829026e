"""The one table of the reports' formats (evalframe.report.formats.FORMATS): every format renders both models, every
surface reads the table (render, save's suffix, ``evalframe report --format`` for one run and for two), and a new
format is one module and one entry. The values are hand-worked: the demo result's Reader exact_match (integrated 6/8,
top-1 4/8, isolated 7/8; tests/report/test_model_and_renderers.py) and the comparison of runs A and B of
tests/present/compare_fixtures.py (mrr 2.5/4 = 0.625 and 3.5/4 = 0.875, B - A = 0.25).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest

from evalframe import load_demo_result
from evalframe.errors import InvalidParameterError
from evalframe.present.cli import main
from evalframe.report import FORMATS, Format
from evalframe.report.reports import ComparisonReport, Report, build_report
from evalframe.report.model import build_comparison_model
from tests.present.compare_fixtures import QUERIES, run_result

DEMO = Path(__file__).resolve().parents[2] / "evalframe" / "data" / "demo_result"


@pytest.fixture(scope="module")
def single() -> Report:
    return build_report(load_demo_result(), n=1, charts=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    return {name: run_result(name, folder) for name in "ABC"}


@pytest.fixture(scope="module")
def comparison(runs) -> ComparisonReport:
    return ComparisonReport(build_comparison_model({"A": runs["A"], "B": runs["B"]}, metrics=["mrr"], rounds=50))


#: What each format's rendering of the single report (the Reader's exact_match row) and of the comparison (mrr of A
#: and B, their delta) must show; a new format adds its checks here (the test below refuses a format without them).
CHECKS = {
    "text": (lambda page: "  | exact_match        0.7500   (top-1 0.5000, isolated 0.8750)" in page,
             lambda page: "mrr ↑   0.6250  0.8750  +0.2500 [" in page),
    "html": (lambda page: page.startswith("<!DOCTYPE html>") and "<td class='num'>0.7500</td><td class='num'>0.5000"
             "</td><td class='num'>0.8750</td>" in page,
             lambda page: page.startswith("<!DOCTYPE html>") and "<td class='num'>0.6250</td><td class='num'>0.8750"
             "</td><td class='num '>+0.2500 [" in page),
    "markdown": (lambda page: "| Reader | exact_match | 0.7500 | 0.5000 | 0.8750 |  |" in page.splitlines(),
                 lambda page: "| mrr ↑ | 0.6250 | 0.8750 | +0.2500 [" in page),
    "json": (lambda page: json.loads(page)["funnel"][1]["metrics"][0]["integrated"] == 0.75,
             lambda page: json.loads(page)["nodes"][0]["measures"][0]["values"] == {"A": 0.625, "B": 0.875}),
}


def test_every_format_has_its_checks():
    assert list(FORMATS) == ["text", "html", "markdown", "json"] and set(CHECKS) == set(FORMATS)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_renders_the_single_report_and_the_comparison(single, comparison, name):
    of_run, of_runs = CHECKS[name]
    assert of_run(FORMATS[name].render(single.model))
    assert of_runs(FORMATS[name].render_comparison(comparison.model))
    # the reports render through the table, both of them in every format
    assert single.render(name) == FORMATS[name].render(single.model)
    assert comparison.render(name) == FORMATS[name].render_comparison(comparison.model)


@pytest.mark.parametrize("name", list(FORMATS))
def test_save_picks_the_format_by_each_suffix_of_the_table(single, comparison, tmp_path, name):
    for suffix in FORMATS[name].suffixes:
        for report, kind in ((single, "single"), (comparison, "comparison")):
            path = report.save(tmp_path / f"{kind}{suffix.upper()}")  # any case
            assert path.read_text(encoding="utf-8") == report.render(name)


def test_the_single_report_is_saved_as_the_comparison_is(single, tmp_path):
    assert single.save(tmp_path / "out.html").read_text(encoding="utf-8") == single.html
    assert single.save(tmp_path / "out.txt", format="markdown").read_text(encoding="utf-8") == single.to_markdown()
    assert json.loads(single.save(tmp_path / "deep" / "out.json").read_text(encoding="utf-8")) == single.to_dict()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["deep", "out.html", "out.json", "out.txt"]  # no temporary
    with pytest.raises(InvalidParameterError, match=r"suffix '\.pdf' names no format; use one of \['\.htm', '\.html', "
                                                    r"'\.json', '\.markdown', '\.md', '\.txt'\]"):
        single.save(tmp_path / "out.pdf")
    with pytest.raises(InvalidParameterError, match=r"is a folder; give the file to write, e.g. .*report\.html"):
        single.save(tmp_path / "deep", format="html")
    with pytest.raises(InvalidParameterError, match="^path is the URL 'nosuch://x/report.html', whose protocol"):
        single.save("nosuch://x/report.html")
    with pytest.raises(InvalidParameterError, match="format must be one of"):
        single.save(tmp_path / "out.html", format="pdf")


def test_a_saved_single_report_gets_the_permissions_of_a_new_file_or_keeps_the_replaced_ones(single, tmp_path):
    old = os.umask(0o027)
    try:
        assert stat.S_IMODE(single.save(tmp_path / "fresh.html").stat().st_mode) == 0o640  # 0o666 less the umask
        kept = tmp_path / "kept.md"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o604)
        assert stat.S_IMODE(single.save(kept).stat().st_mode) == 0o604
        assert kept.read_text(encoding="utf-8") == single.to_markdown()
    finally:
        os.umask(old)


def _csv_like(name: str) -> Format:
    """A format that a user adds: one module's two renderers (here two lambdas) and one entry."""
    return Format(name, lambda model: f"nodes,{len(model.nodes)}\n", lambda model: f"runs,{len(model.names)}\n",
                  (".csvish",), "a line of counts")


def test_a_new_format_is_one_module_and_one_entry(monkeypatch, single, comparison, runs, tmp_path, capsys):
    monkeypatch.setitem(FORMATS, "csvish", _csv_like("csvish"))
    assert single.render("csvish") == "nodes,2\n" and comparison.render("csvish") == "runs,2\n"
    assert comparison.save(tmp_path / "out.csvish").read_text(encoding="utf-8") == "runs,2\n"
    # the command offers it for one run and for two (it used to refuse the comparison a format of the single report)
    assert main(["report", str(DEMO), "--format", "csvish"]) == 0
    assert capsys.readouterr().out == "nodes,2\n"
    folders = [str(runs[name].save(tmp_path / name, progress=False)) for name in "AB"]
    assert main(["report", *folders, "--format", "csvish", "--metric", "mrr"]) == 0
    assert capsys.readouterr().out == "runs,2\n"


def test_the_command_draws_the_charts_for_the_formats_that_show_them(monkeypatch, tmp_path, capsys):
    charted = []
    monkeypatch.setitem(FORMATS, "charted", Format("charted", lambda model: f"{[s.chart is not None for s in model.sections]}",
                                                   lambda model: "", (".charted",), "charts", charts=True))
    pytest.importorskip("matplotlib")
    assert main(["report", str(DEMO), "--format", "charted"]) == 0
    charted.append(capsys.readouterr().out)
    monkeypatch.setitem(FORMATS, "charted", Format("charted", FORMATS["charted"].render, lambda model: "",
                                                   (".charted",), "no charts"))
    assert main(["report", str(DEMO), "--format", "charted"]) == 0
    charted.append(capsys.readouterr().out)
    # the Retriever's recall@k chart (the Reader has no document rows to chart)
    assert charted == ["[True, False]\n", "[False, False]\n"]


# ---------------------------------------------------------------------------------------------- the worse lists
def _with_latency(result, values):
    result.add_scores("Retriever", pd.DataFrame({"query": QUERIES, "latency": values}), direction="lower")
    return result


@pytest.fixture(scope="module")
def latency_runs(tmp_path_factory):
    """Latency per query (lower is better): A 100 each; B +50 on q2 (worse) and -10 on q4 (better); C +30 on q3."""
    folder = tmp_path_factory.mktemp("latency")
    return {"A": _with_latency(run_result("A", folder), [100.0, 100.0, 100.0, 100.0]),
            "B": _with_latency(run_result("B", folder), [100.0, 150.0, 100.0, 90.0]),
            "C": _with_latency(run_result("C", folder), [100.0, 100.0, 130.0, 100.0])}


def test_the_queries_that_got_worse_show_the_delta_as_the_tables_do(latency_runs):
    report = ComparisonReport(build_comparison_model({"A": latency_runs["A"], "B": latency_runs["B"]},
                                                     metrics=["latency"], rounds=50))
    # the table's delta: the mean of (0, +50, 0, -10) = +10; the query listed: q2, a rise of 50 ms, worse
    assert "latency ↓  100.0000  110.0000  +10.0000 [" in report.text
    assert ("Queries that got worse on latency (worst first, 1 shown of 1; 4 queries in all):\n"
            "  +50.0000  A=100.0000 B=150.0000  where is g2?\n") in report.text
    assert ("| query | change | A | B |\n|---|---:|---:|---:|\n| where is g2? | +50.0000 | 100.0000 | 150.0000 |"
            in report.markdown)


def test_with_three_runs_each_query_shows_the_delta_of_its_worst_run(latency_runs):
    model = build_comparison_model(dict(latency_runs), metrics=["latency"], rounds=50)
    (node,) = model.nodes
    assert [(w.query.query, w.delta, w.values) for w in node.got_worse(5)] == [
        ("where is g2?", 50.0, (100.0, 150.0, 100.0)), ("where is g3?", 30.0, (100.0, 100.0, 130.0))]
    assert node.worse_count == 2 and node.got_worse(1)[0].delta == 50.0
    text = ComparisonReport(model).text
    assert ("  +50.0000  A=100.0000 B=150.0000 C=100.0000  where is g2?\n"
            "  +30.0000  A=100.0000 B=100.0000 C=130.0000  where is g3?\n") in text


def test_a_higher_is_better_measure_that_fell_shows_a_negative_delta(runs):
    # mrr of q1: 1 in A, 1/2 in B; B - A = -0.5, the only query that got worse
    report = ComparisonReport(build_comparison_model({"A": runs["A"], "B": runs["B"]}, metrics=["mrr"], rounds=50))
    assert "  -0.5000  A=1.0000 B=0.5000  where is g1?" in report.text
    assert "| where is g1? | -0.5000 | 1.0000 | 0.5000 |" in report.markdown


def test_the_docs_name_every_format_of_the_table():
    docs = Path(__file__).resolve().parents[2] / "docs"
    report = (docs / "cli.md").read_text(encoding="utf-8").split("\n## report\n")[1].split("\n## ")[0]
    shown = report.split("`--format` picks what is printed:")[1].split("\n`--html FILE`")[0]
    assert [name for name in FORMATS if f"`{name}`" not in shown] == []
    # save's suffixes, each format's first, as the pages state them
    for page in ("compare-report.md", "cli.md"):
        text = (docs / page).read_text(encoding="utf-8")
        assert [entry.suffixes[0] for entry in FORMATS.values() if f"`{entry.suffixes[0]}`" not in text] == [], page
