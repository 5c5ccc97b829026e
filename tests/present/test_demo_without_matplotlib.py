"""``evalframe demo`` installed without matplotlib: where the HTML report's charts would be, a line says why there are
none and how to get them; the terminal says it beside the page's path. matplotlib is made unimportable
(``sys.modules["matplotlib"] = None``, and so its submodules: ``import matplotlib`` then raises ImportError, as when it
is not installed), by monkeypatch (undone after each test).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from evalframe.present.cli import main

ROOT = Path(__file__).resolve().parents[2]
LINE = "no charts: matplotlib is not installed; pip install 'evalframe[plots]'"
DEMO_RESULT = ROOT / "evalframe" / "data" / "demo_result"


@pytest.fixture()
def no_matplotlib(monkeypatch):
    for name in [name for name in sys.modules if name == "matplotlib" or name.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError):
        from matplotlib.figure import Figure  # noqa: F401


def test_the_demo_without_matplotlib_says_why_it_has_no_chart(tmp_path, capsys, no_matplotlib):
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    page = (tmp_path / "demo" / "report.html").read_text(encoding="utf-8")
    assert "<img" not in page
    # the Retriever's recall@k chart would be there: its heading and the line in its place
    assert ("<h2><bdi>Retriever</bdi>: recall@k</h2><p class='muted charts'>no charts: matplotlib is not installed; "
            "pip install &#x27;evalframe[plots]&#x27;</p>") in page
    assert f"HTML report:    {tmp_path / 'demo' / 'report.html'} ({LINE})" in capsys.readouterr().out


def test_the_json_report_without_matplotlib_says_it_too(tmp_path, capsys, no_matplotlib):
    # --html asks for the charts (the JSON alone does not: it never holds one, and then says nothing)
    assert main(["report", str(DEMO_RESULT), "--format", "json", "-n", "1", "--html", str(tmp_path / "page.html")]) == 0
    worst = {section["node"]: section["chart_note"] for section in json.loads(capsys.readouterr().out)["worst"]}
    assert worst == {"Retriever": LINE, "Reader": ""}  # a reader has no recall@k chart to miss
    assert LINE.replace("'", "&#x27;") in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_with_matplotlib_the_chart_is_there_and_no_line():
    pytest.importorskip("matplotlib")
    from evalframe import load_demo_result

    report = load_demo_result().report(n=1)
    assert "<img alt='recall@k'" in report.html and LINE not in report.html
    assert all(section.chart_note == "" for section in report.model.sections)

