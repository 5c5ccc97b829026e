"""The comparative page's Python side (report/html.py): the payloads packed (gzip, base64) in non-executable script
elements, the constant scripts (no user data in them), the assets read from the package, the texts fit to the
page's budget (hand-worked cuts), no drill-down texts past the stated size."""

from __future__ import annotations

import base64
import gzip
import json
import re
from importlib.resources import files

from evalframe.report import html
from tests.report import compare_page_payloads as fixture


def _unpacked(page: str, element: str) -> dict:
    found = re.search(rf"<script type='application/octet-stream' id='{element}'>([A-Za-z0-9+/=]*)</script>", page)
    assert found, element
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_the_payloads_travel_packed_and_the_scripts_are_constants():
    grid, detail = fixture.grid_payload(), fixture.detail_payload(fixture.query_details(), fixture.RUNS)
    page = html._page("<p>body</p>", grid, detail)
    assert _unpacked(page, "evalframe-grid") == grid and _unpacked(page, "evalframe-detail") == detail
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert scripts == [html.asset("grid.js"), html.asset("page.js")]  # the executable scripts: the assets unchanged
    assert fixture.HOSTILE not in page and "onerror" not in page.replace(html.asset("grid.js"), "")
    for name in ("grid.js", "grid.css", "page.js"):  # package files; none can close its element early
        text = (files("evalframe.report") / "assets" / name).read_text(encoding="utf-8")
        assert text == html.asset(name) and "</script" not in text.lower() and "</style" not in text.lower()
    assert "id='evalframe-detail'" not in html._page("", grid, None)  # no detail: no element (the drill-down of values)


def _detail(texts: list[str]) -> dict:
    """A DETAIL PAYLOAD of one query whose run 0 retrieved documents with ``texts`` (ids d0, d1, ...)."""
    details = [{"row": 0, "id": "q", "query": "the query", "gold_answers": ["gold answer"], "gold_documents": [],
                "meta": {"topic": "meta text"},
                "runs": [{"name": "A", "answers": [],
                          "documents": [{"rank": k + 1, "id": f"d{k}", "text": t, "length": len(t), "correct": None,
                                         "marks": {"gold_id_match": 0.0}} for k, t in enumerate(texts)]},
                         {"name": "B", "answers": [], "documents": []}]}]
    return fixture.detail_payload(details, ["A", "B"])


def test_the_texts_are_cut_to_fit_the_budget():
    # distinct texts of 10, 40 and 100 characters plus "gold answer" (11): a cut c keeps min(len, c) of each;
    # budget 100: c = 30 gives 10 + 30 + 30 + 11 = 81, c = 36 gives 10 + 36 + 36 + 11 = 93, c = 39: 99, c = 40: 101
    detail = _detail(["a" * 10, "b" * 40, "c" * 100, "c" * 100])  # the third text twice: counted once
    assert html._fit_texts(detail, 100) == 39
    texts = [detail["strings"][k] for k in detail["runs"][0]["documents"]["text"]]
    assert texts == ["a" * 10, "b" * 39, "c" * 39, "c" * 39]
    assert detail["runs"][0]["documents"]["length"] == [10, 40, 100, 100]  # the whole lengths stay
    assert detail["characters"] == 39
    # ids, the query and meta are never cut
    assert {"the query", "meta text", "d0", "d1", "d2", "d3", "q"} <= set(detail["strings"])


def test_texts_within_the_budget_stay_whole():
    detail = _detail(["a" * 10, "b" * 40])
    before = list(detail["strings"])
    assert html._fit_texts(detail, 1000) == 40
    assert detail["strings"] == before and detail["characters"] == fixture.CHARACTERS


def test_the_page_states_its_cut(tmp_path):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    # the longest text, "passage g1 with wordg1" (22 characters), whole: every text fits
    assert "the page holds each text&#x27;s first 22 characters" in page
    assert "evalframe serve" not in page.split("<script")[0]  # a small page does not send the reader elsewhere
    detail = _unpacked(page, "evalframe-detail")
    assert detail["n"] == 4 and detail["names"] == ["A", "B"]


def test_past_the_limit_the_page_says_serve_and_holds_no_drill_down_texts(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    monkeypatch.setattr(html, "PAGE_LIMIT", 7)  # 4 queries x 2 runs = 8 > 7
    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    assert "4 queries x 2 runs: past 7 this page holds the grid and every value" in page
    assert "<code>evalframe serve RUN...</code> is the better tool" in page
    assert "id='evalframe-detail'" not in page and "passage g1" not in page
    assert _unpacked(page, "evalframe-grid")["grids"][0]["n"] == 4
