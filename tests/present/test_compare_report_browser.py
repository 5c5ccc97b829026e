"""The comparative report's page in a real browser (headless Chromium through playwright): it loads without a console
error, sorting reorders the queries, each filter changes the queries shown, a query opens to every run's rows.

Skipped without playwright or a Chromium, as tests/present/test_report_browser.py (EVALFRAME_REQUIRE_BROWSER makes a
missing browser a failure).
"""

from __future__ import annotations

import os

import pytest

from evalframe import compare_report
from tests.fixtures import SCRIPTS, load_benchmark
from tests.present.compare_fixtures import QUERIES, run_result

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def tab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    runs = {name: run_result(name, folder) for name in "AB"}
    page_file = compare_report(runs, metrics=["mrr", "recall_single_hit"], by="meta.topic",
                               rounds=50).save(folder / "compare.html")
    executable = load_benchmark("screenshot_report.py", SCRIPTS).browser()
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except sync_api.Error as exc:
            if os.environ.get("EVALFRAME_REQUIRE_BROWSER"):
                pytest.fail(f"EVALFRAME_REQUIRE_BROWSER is set but no Chromium starts: {str(exc).splitlines()[0]}")
            pytest.skip(f"no Chromium: {str(exc).splitlines()[0]}")
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        errors: list[str] = []
        requested: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requested.append(request.url))
        page.goto(page_file.as_uri())
        page.errors, page.requested = errors, requested  # type: ignore[attr-defined]
        yield page
        browser.close()


def _shown(tab) -> list[str]:
    """The queries of the grid shown, in order."""
    return tab.evaluate("""() => Array.from(document.querySelectorAll('table.grid tbody'))
        .filter(b => b.style.display !== 'none').map(b => b.rows[0].cells[1].textContent)""")


def _reset(tab) -> None:
    tab.reload()


def test_the_page_loads_without_error_or_request(tab):
    assert tab.errors == []
    assert all(url.startswith(("file:", "data:")) for url in tab.requested), tab.requested
    assert _shown(tab) == QUERIES  # worst first: q1 (mrr -1/2), then A's order
    assert tab.locator(".count").inner_text() == "4 of 4 queries shown"


def test_sorting_changes_the_order(tab):
    _reset(tab)
    header = tab.locator("th[data-key='d-mrr-1']")  # the delta of mrr, B - A: -1/2, +1/2, 0, +1
    header.click()
    assert _shown(tab) == [QUERIES[0], QUERIES[2], QUERIES[1], QUERIES[3]]
    header.click()
    assert _shown(tab) == [QUERIES[3], QUERIES[1], QUERIES[2], QUERIES[0]]
    tab.locator("th[data-key='query']").click()
    assert _shown(tab) == sorted(QUERIES, key=str.lower)


def test_each_filter_changes_the_rows(tab):
    _reset(tab)
    tab.select_option("select.show", "worse")
    assert _shown(tab) == [QUERIES[0]]  # the one regression (mrr of q1)
    tab.select_option("select.show", "better")
    assert _shown(tab) == [QUERIES[1], QUERIES[3]]  # mrr of q2 and q4, recall of q4
    tab.select_option("select.measure", "recall_single_hit")
    assert _shown(tab) == [QUERIES[3]]  # recall_single_hit improved on q4 only
    assert not tab.locator("th[data-key='v-mrr-0']").is_visible()  # the other measure's columns are hidden
    tab.select_option("select.show", "")
    tab.select_option("select.measure", "")
    tab.select_option("select.slice", "y")
    assert _shown(tab) == [QUERIES[2], QUERIES[3]]
    tab.select_option("select.slice", "")
    tab.fill("input.text", "</script>")
    assert _shown(tab) == [QUERIES[3]]
    tab.fill("input.text", "")
    assert _shown(tab) == QUERIES


def test_the_slice_view_shows_each_slice_and_measure(tab):
    _reset(tab)
    table = tab.locator("table.slices")
    assert table.is_visible()
    rows = tab.evaluate("""() => Array.from(document.querySelectorAll('table.slices tr'))
        .map(r => Array.from(r.cells).map(c => c.textContent))""")
    assert rows[0][:5] == ["slice", "metric", "queries", "A", "B"]
    # mrr of B - A: slice x [-1/2, 1/2], y [0, 1]; recall_single_hit: x [0, 0], y [0, 1]
    assert [row[:3] for row in rows[1:]] == [["x", "mrr ↑", "2"], ["x", "recall_single_hit ↑", "2"],
                                             ["y", "mrr ↑", "2"], ["y", "recall_single_hit ↑", "2"]]
    assert rows[3][5].startswith("+0.5000 [") and rows[4][5].startswith("+0.5000 [")


def test_a_query_opens_to_every_runs_rows(tab):
    _reset(tab)
    body = tab.locator("table.grid tbody").first
    drill = body.locator("tr.drill")
    assert not drill.is_visible()
    body.locator("tr.query").click()
    assert drill.is_visible()
    runs = drill.locator(".run")
    assert runs.count() == 2
    assert runs.nth(0).locator("li").count() == 1 and runs.nth(1).locator("li").count() == 2  # [g1] and [x1, g1]
    assert "gold_id_match 1" in runs.nth(1).locator("li").nth(1).inner_text()
    assert runs.nth(1).locator("li").nth(1).locator(".ok").count() == 1  # g1 judged correct
    assert runs.nth(1).locator("li").nth(0).locator(".mark.on").count() == 0  # x1 matches nothing
    body.locator("tr.query").click()
    assert not drill.is_visible()
