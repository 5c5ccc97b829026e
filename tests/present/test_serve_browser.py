"""evalframe serve in a real browser (headless Chromium through playwright, as tests/present/test_report_browser.py;
skipped without one unless EVALFRAME_REQUIRE_BROWSER is set): the server on a free port in a thread, over a store of
two runs and two result files whose every field holds hostile text (tests/report/test_hostile_text.py's runs).

Each page: no dialog, no injected script run (``window.__pwned`` stays undefined), no injected element, no console
error, no request outside the server; the runs view, the comparison (sort, filter, slice, drill-down), the trend, and
the URL of each view reproducing it on reload.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

import evalframe as ef
from evalframe.options import ComparisonReportOptions
from tests.fixtures import launched_chromium
from tests.report.test_hostile_text import PAYLOADS, _result

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from evalframe.present.serve.app import Sources, make_app  # noqa: E402
from evalframe.present.serve.command import serve_in_thread  # noqa: E402

ATTRIBUTE = PAYLOADS["attribute"]
SCRIPT = PAYLOADS["script"]
#: The hostile text of each field (a query's text is the field's text and " 0", " 1", " 2").
VALUES = {"query": SCRIPT, "answer": ATTRIBUTE, "context": PAYLOADS["quote"], "document_id": ATTRIBUTE,
          "gold": SCRIPT, "meta_value": ATTRIBUTE, "run": SCRIPT}
INJECTED = "img[src='x'], svg[onload], script:not([src])"
#: The two results served (the server fixture fills it).
RESULTS: list[Any] = []
#: docs/examples/rag's two Ragas runs, served as run=2 and run=3: their query order differs from the grid's.
RAG = Path(__file__).resolve().parents[2] / "docs" / "examples" / "rag"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    first, second = _result(VALUES, "A", folder), _result(VALUES, "B", folder)
    store = folder / "store"
    history = ef.History(store)
    history.log(first, name=SCRIPT, tags=[ATTRIBUTE], commit=None)
    history.log(second, name="B", tags=["v2"], commit=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rag = [ef.EvaluationResult.from_ragas(RAG / f"{name}.jsonl", progress=False) for name in ("bm25", "hybrid")]
    results = [first, second, *rag]
    sources = Sources(files=[(VALUES["run"] + " A", "runA.jsonl"), ("B", "runB.jsonl"), ("bm25", "bm25.jsonl"),
                             ("hybrid", "hybrid.jsonl")], read=results.__getitem__,
                      history=history, store=str(store), options={"by": "meta.topic", "rounds": 200})
    url, running, thread = serve_in_thread(make_app(sources))
    RESULTS[:] = results[:2]
    yield url
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def tab(browser, server):
    """A fresh page whose requests outside the server are refused and recorded, with its dialogs and errors."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    seen: dict[str, list[Any]] = {"outside": [], "dialogs": [], "errors": []}

    def route(found: Any) -> None:
        if found.request.url.startswith(server + "/"):
            found.continue_()
        else:
            seen["outside"].append(found.request.url)
            found.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: seen["errors"].append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.seen = seen  # type: ignore[attr-defined]
    yield page
    assert seen == {"outside": [], "dialogs": [], "errors": []}
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator(INJECTED).count() == 0
    context.close()


def query_of(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query, keep_blank_values=True)


def grid_ready(page, rows: int | None = None) -> None:
    """The grid drawn (with ``rows`` rows): waited for through locators, as the pages' policy runs no string as
    script (playwright's wait_for_function would)."""
    page.wait_for_selector("#sv-grid .ef-row, #sv-grid .ef-empty")
    if rows is not None:
        expect(page.locator("#sv-grid tr.ef-row")).to_have_count(rows)


def url_says(page, text: str) -> None:
    """Wait until the page's URL (kept by replaceState) holds ``text``."""
    page.wait_for_url(lambda url: text in url)


def test_the_runs_view_lists_the_store_and_compares_the_runs_checked(tab, server):
    tab.goto(server + "/runs")
    rows = tab.locator("form.sv-runs tbody tr")
    assert rows.count() == 2
    assert SCRIPT in rows.nth(0).inner_text() and ATTRIBUTE in rows.nth(0).inner_text()  # shown as text
    tab.locator("input[name=run]").nth(0).check()
    tab.locator("input[name=run]").nth(1).check()
    tab.locator("form.sv-runs button[type=submit]").click()
    tab.wait_for_url(re.compile(r"/compare\?run=%40"))
    grid_ready(tab)
    assert tab.locator("h1").inner_text() == f"{SCRIPT} vs B"  # the names the runs were logged under
    assert tab.title() == f"{SCRIPT} vs B · evalframe serve"
    assert tab.locator(".ef-count").inner_text().endswith("of 3 queries shown")


def test_the_comparison_sorts_filters_slices_and_drills_down(tab, server):
    tab.goto(server + "/compare?run=0&run=1&node=Reader")
    grid_ready(tab, rows=3)
    assert SCRIPT in tab.locator(".sv-runs-line").inner_text()  # the hostile run name, as text
    # sort by the query text: the URL says so, and a reload sorts so again (the order itself: the next test)
    tab.locator("th[data-key=query] button").click()
    url_says(tab, "sort=query")
    grid_ready(tab, rows=3)
    tab.reload()
    grid_ready(tab, rows=3)
    assert tab.locator("th[data-key=query]").get_attribute("aria-sort") == "ascending"
    # the text filter, case-insensitive
    tab.fill(".ef-search", "SCRIPT> 2".upper())
    url_says(tab, "text=")
    grid_ready(tab, rows=1)
    assert tab.locator("#sv-grid tr.ef-row td.ef-query").inner_text() == f"{SCRIPT} 2"
    tab.fill(".ef-search", "")
    grid_ready(tab, rows=3)
    # a slice: meta.topic is the hostile value for queries 0 and 1, "y" for query 2
    tab.select_option("select.ef-slice", ATTRIBUTE)
    grid_ready(tab, rows=2)
    assert "slice.meta.topic" in query_of(tab)
    tab.reload()
    grid_ready(tab, rows=2)
    assert tab.locator("select.ef-slice").input_value() == ATTRIBUTE
    # the drill-down: the query, each run's answer, the gold, as text; its row kept in the URL
    tab.locator("#sv-grid tr.ef-row").first.click()
    detail = tab.locator(".ef-detail .ef-drill")
    detail.wait_for()
    text = detail.inner_text()
    assert f"{SCRIPT} 0" in text and f"{ATTRIBUTE} 0" in text and "gold answer 0" in text
    assert "open" in query_of(tab)
    tab.reload()
    tab.locator(".sv-opened .ef-drill").wait_for()
    assert f"{ATTRIBUTE} 0" in tab.locator(".sv-opened").inner_text()


def test_the_query_sort_of_two_ragas_runs(tab, server):
    """The Generator grid of docs/examples/rag's runs: by default worst faithfulness change first; sorted by query,
    the questions in lower-cased order (worked out from the JSONL files: sorted(user_input, key=str.lower))."""
    questions = [json.loads(line)["user_input"] for line in (RAG / "bm25.jsonl").read_text().splitlines() if line]
    in_order = sorted(questions, key=str.lower)
    tab.goto(server + "/compare?run=2&run=3&node=Generator")
    grid_ready(tab)
    default = tab.locator("#sv-grid tr.ef-row td.ef-query").all_inner_texts()[:5]
    tab.locator("th[data-key=query] button").click()
    url_says(tab, "sort=query")
    expect(tab.locator("#sv-grid tr.ef-row td.ef-query").first).to_have_text(in_order[0])
    shown = tab.locator("#sv-grid tr.ef-row td.ef-query").all_inner_texts()[:5]
    assert shown == in_order[:5] and shown != default


def test_three_runs_files_beside_a_stored_one(tab, server):
    """run=0&run=1&run=@last: three runs' columns, the stored "B" told from the file "B" by its id's tail; the files'
    drill-down keeps their answers and gold, the stored run's says it has no rows."""
    tab.goto(server + "/compare?run=0&run=1&run=%40last&node=Reader")
    grid_ready(tab, rows=3)
    heading = tab.locator("h1").inner_text()
    tail = re.fullmatch(re.escape(f"{SCRIPT} A vs B vs B (") + r"([0-9a-f]{8})\)", heading)
    assert tail is not None, heading
    header = tab.locator("#sv-grid thead").inner_text()
    assert f"B ({tail.group(1)})" in header
    tab.locator("#sv-grid tr.ef-row").first.click()
    detail = tab.locator(".ef-detail .ef-drill")
    detail.wait_for()
    runs = detail.locator(".ef-run")
    assert runs.count() == 3
    assert f"{ATTRIBUTE} " in runs.nth(0).inner_text() and f"{ATTRIBUTE} " in runs.nth(1).inner_text()
    assert "gold answer" in detail.locator(".ef-gold").inner_text()
    assert runs.nth(2).locator(".ef-run-name").inner_text() == f"B ({tail.group(1)})"
    assert "no rows" in runs.nth(2).inner_text()


def test_a_bad_open_row_is_a_note_and_the_grid_stays(tab, server):
    tab.goto(server + "/compare?run=0&run=1&node=Reader&open=99999")
    grid_ready(tab, rows=3)
    expect(tab.locator("#sv-grid .sv-open-error")).to_have_text(
        "open=99999: no query 99999 in Reader: the rows are 0 to 2.")
    assert "open" not in query_of(tab)


def test_the_retriever_drill_down_shows_the_passages(tab, server):
    tab.goto(server + "/compare?run=0&run=1&node=Retriever&measure=&sort=query")
    grid_ready(tab, rows=3)
    tab.locator("#sv-grid tr.ef-row").first.click()
    detail = tab.locator(".ef-detail .ef-drill")
    detail.wait_for()
    text = detail.inner_text()
    assert f"{PAYLOADS['quote']} 0" in text and "gold passage 0" in text  # the retrieved passage and the gold one


def test_a_comparison_of_stored_runs_and_the_show_filter(tab, server):
    tab.goto(server + "/compare?run=%40last~1&run=%40last&node=Reader&measure=")  # every measure
    grid_ready(tab, rows=3)
    assert "keeps each query's values" in tab.locator(".sv-note").first.inner_text()
    tab.select_option("select.ef-show", "better")
    url_says(tab, "show=better")
    grid_ready(tab)
    # run B scores each query 0.25 higher on the judge score: all three better
    assert tab.locator(".ef-count").inner_text().startswith("3 of 3")


def test_the_trend_and_the_paper_table(tab, server):
    tab.goto(server + "/trend?measure=mrr")
    assert tab.locator(".sv-trend svg").count() == 1
    assert SCRIPT in tab.locator(".sv-trend table").inner_text()
    tab.goto(server + "/paper?run=0&run=1&node=Retriever")
    assert tab.locator(".sv-paper table caption").count() == 1
    # the stored runs' paper table, their judge score among its columns: each mean as compare's of the two runs
    tab.goto(server + "/paper?run=%40last~1&run=%40last&node=Reader")
    heads = tab.locator(".sv-paper thead th").all_inner_texts()
    assert "judge" in heads
    expected = ef.compare(*RESULTS, node="Reader")
    for letter, mean in (("a", "mean_a"), ("b", "mean_b")):
        cells = tab.locator(".sv-paper tbody tr").nth(0 if letter == "a" else 1).locator("td").all_inner_texts()
        assert cells[0] == letter
        assert [cell.rstrip("ab") for cell in cells[2:]] == [f"{expected.loc[m, mean]:.4f}" for m in heads[2:]]


def test_the_page_shows_compares_numbers_for_every_measure(tab, server):
    tab.goto(server + "/compare?run=0&run=1&node=Reader&measure=")
    grid_ready(tab, rows=3)
    names = [VALUES["run"] + " A", "B"]
    for node in ("Retriever", "Reader"):
        expected = ef.compare(*RESULTS, node=node, names=names, rounds=200, max_p=0.05, test=ComparisonReportOptions.test)
        rows = tab.locator(f"section[data-node='{node}'] table.sv-summary").first.locator("tbody tr")
        assert rows.count() == len(expected)
        for k, (metric, row) in enumerate(expected.iterrows()):
            cells = rows.nth(k).locator("td").all_inner_texts()
            assert cells[0].split(" ")[0] == metric
            assert cells[1:4] == [f"{row['mean_a']:.4f}", f"{row['mean_b']:.4f}",
                                  f"{row['delta']:.4f}" + (" *" if row["significant"] else "")]
            assert cells[4] == f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    # the grid's cells: each query's value of every measure in each run, as query_metrics has it (4 decimals shown,
    # every digit in the cell's title)
    table = RESULTS[1].query_metrics("Reader")
    for tr in tab.locator("#sv-grid tr.ef-row").all():
        text = tr.locator("td.ef-query").inner_text()
        ident = table.index[[q == text for q in RESULTS[1].query_metrics("Reader", with_query=True)["query"]]][0]
        titles = tr.locator("td.ef-num:not(.ef-rank):not(.ef-delta)").evaluate_all(
            "cells => cells.map(cell => cell.getAttribute('title'))")
        values = [float(t) for t in titles[1::2]]  # each measure's second run (B)
        assert values == [float(table.loc[ident, m]) for m in table.columns]
