"""The comparative report's page in a real browser (headless Chromium through playwright), built by
:func:`evalframe.compare_report` from the three runs of tests/present/compare_fixtures.py (values worked out there by
hand): it loads without a console error or a request, the default order, choosing a measure sorts by its gain (the
worst change first, over both later runs), a header sorts, each filter gives the hand-worked rows, the drill-down shows
the gold, each run's passages with their gold matches, the query's values and meta, and the page shows the numbers
:func:`evalframe.compare` computes for every measure (the summary table and every grid cell).

The script itself on hand-built payloads (virtualization, the expander, hostile texts): tests/report/
test_compare_page_browser.py. Skipped without playwright or a Chromium, as tests/present/test_report_browser.py
(EVALFRAME_REQUIRE_BROWSER makes a missing browser a failure).
"""

from __future__ import annotations

import warnings

import pytest

import evalframe as ef
from tests.fixtures import launched_chromium
from tests.present.compare_fixtures import QUERIES, run_result

sync_api = pytest.importorskip("playwright.sync_api")

METRICS = ["mrr", "recall_single_hit"]
READY = "() => evalframePage.ready.then(g => g[0].ready).then(() => true)"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    return {name: run_result(name, folder) for name in "ABC"}


@pytest.fixture(scope="module")
def tab(runs, tmp_path_factory):
    page_file = ef.compare_report(runs, metrics=METRICS, by="meta.topic", rounds=50).save(
        tmp_path_factory.mktemp("page") / "compare.html")
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.set_default_timeout(5000)
        errors: list[str] = []
        requested: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requested.append(request.url))
        page.goto(page_file.as_uri())
        assert page.evaluate(READY)
        page.errors, page.requested, page.uri = errors, requested, page_file.as_uri()  # type: ignore[attr-defined]
        yield page


def _reset(tab) -> None:
    tab.goto(tab.uri)
    assert tab.evaluate(READY)


def _settle(tab) -> None:
    assert tab.evaluate(READY)


def _shown(tab) -> list[str]:
    """The queries of the grid's rows drawn, in order."""
    return tab.evaluate("() => Array.from(document.querySelectorAll('tr.ef-row')).map(r => r.cells[1].textContent)")


def test_the_page_loads_without_error_or_request(tab):
    assert tab.errors == []
    assert tab.requested and set(tab.requested) == {tab.uri}, tab.requested  # the page itself and nothing else
    # the default view: the node's order_metric (recall_single_hit) and its columns; its worst change first: every
    # gain is 0 but q4's (+1 in B), so the runs' order
    assert tab.locator("select.ef-measure").input_value() == "recall_single_hit"
    assert _shown(tab) == QUERIES
    assert tab.locator(".ef-count").inner_text() == "4 of 4 queries shown"
    keys = tab.evaluate("() => Array.from(document.querySelectorAll('thead th')).map(t => t.dataset.key)")
    assert keys == ["rank", "query", "slice:0", "value:recall_single_hit:0", "value:recall_single_hit:1",
                    "value:recall_single_hit:2", "delta:recall_single_hit:1", "delta:recall_single_hit:2"]


def test_choosing_a_measure_sorts_by_its_gain_and_a_header_sorts(tab):
    _reset(tab)
    # mrr's gain, the smallest over B - A and C - A: q1 min(-1/2, 0), q2 min(1/2, 0), q3 min(0, -2/3), q4 min(1, 0)
    tab.select_option("select.ef-measure", "mrr")
    _settle(tab)
    assert _shown(tab) == [QUERIES[2], QUERIES[0], QUERIES[1], QUERIES[3]]
    header = tab.locator("th[data-key='delta:mrr:2']")  # C - A: 0, 0, -2/3, 0
    header.locator("button").click()
    header.locator("button").click()
    _settle(tab)
    assert header.get_attribute("aria-sort") == "descending"
    assert _shown(tab) == [QUERIES[0], QUERIES[1], QUERIES[3], QUERIES[2]]  # ties in the default order
    tab.locator("th[data-key='query'] button").click()
    _settle(tab)
    assert _shown(tab) == sorted(QUERIES, key=str.lower)


def test_each_filter_gives_the_hand_worked_rows(tab):
    _reset(tab)
    tab.select_option("select.ef-measure", "")
    tab.select_option("select.ef-show", "worse")  # mrr: q1 in B (-1/2), q3 in C (-2/3); recall never drops
    _settle(tab)
    assert _shown(tab) == [QUERIES[0], QUERIES[2]]
    tab.select_option("select.ef-show", "better")  # mrr: q2 and q4 in B; recall: q4 in B
    _settle(tab)
    assert _shown(tab) == [QUERIES[1], QUERIES[3]]
    tab.select_option("select.ef-measure", "recall_single_hit")
    _settle(tab)
    assert _shown(tab) == [QUERIES[3]]
    tab.select_option("select.ef-show", "")
    tab.select_option("select.ef-measure", "")
    tab.select_option("select.ef-slice", "y")
    _settle(tab)
    assert _shown(tab) == [QUERIES[2], QUERIES[3]]
    tab.select_option("select.ef-slice", "")
    tab.fill("input.ef-search", "</script>")
    _settle(tab)
    assert _shown(tab) == [QUERIES[3]]


def test_a_query_opens_to_its_gold_and_every_runs_passages(tab):
    _reset(tab)
    tab.locator("tr.ef-row").first.click()  # q1: A [g1], B [x1, g1], C [g1]
    drill = tab.locator(".ef-drill")
    drill.wait_for()
    assert drill.locator(".ef-question").inner_text() == QUERIES[0]
    assert drill.locator(".ef-gold-answers li").all_inner_texts() == ["answer1"]
    assert drill.locator(".ef-gold-documents li").all_inner_texts() == ["g1 passage g1 with wordg1"]
    runs = drill.locator(".ef-run")
    assert runs.locator(".ef-run-name").all_inner_texts() == ["A", "B", "C"]
    b = runs.nth(1).locator(".ef-documents li")
    assert b.locator(".ef-doc-id").all_inner_texts() == ["x1", "g1"]
    assert b.nth(0).locator(".ef-text").inner_text() == "passage x1 with wordx1"
    assert b.nth(0).locator(".ef-ok").count() == 0 and b.nth(1).locator(".ef-ok").count() == 1  # g1 judged correct
    assert b.nth(1).locator(".ef-mark.on").all_inner_texts() == ["gold_id_match 1"]
    assert b.nth(0).locator(".ef-mark.on").count() == 0
    values = drill.evaluate("""d => Array.from(d.querySelectorAll('.ef-measures tbody tr'))
        .map(r => Array.from(r.cells).map(c => c.textContent))""")
    # mrr 1, 1/2, 1 (deltas -1/2, 0); recall_single_hit 1 in every run
    assert values == [["mrr ↑", "1.0000", "0.5000", "1.0000", "-0.5000", "+0.0000"],
                      ["recall_single_hit ↑", "1.0000", "1.0000", "1.0000", "+0.0000", "+0.0000"]]
    assert drill.locator(".ef-meta").inner_text().split() == ["topic", "x"]
    tab.locator("tr.ef-row").first.click()  # a second click closes it
    assert tab.locator(".ef-detail").is_hidden()


def test_the_page_shows_the_numbers_of_compare(tab, runs):
    """The summary's values, deltas, intervals and p-values, and every grid cell, against evalframe.compare and the
    runs' per-query values (every measure, every run)."""
    _reset(tab)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ef.compare(runs["A"], runs["B"], runs["C"], metrics=METRICS, rounds=50)
    rows = tab.evaluate("""() => Array.from(document.querySelectorAll('table.summary tr')).slice(1)
        .map(r => Array.from(r.cells).map(c => c.textContent))""")
    for row, metric in zip(rows, METRICS):
        b, c = table.loc[("B", metric)], table.loc[("C", metric)]
        # 3 runs: Holm over the measure's two comparisons (the smaller p doubled, the larger at least that)
        low, high = sorted([b.p_ttest, c.p_ttest])
        adjusted = {low: min(1.0, 2 * low), high: min(1.0, max(2 * low, high))}
        holm = [adjusted[b.p_ttest], adjusted[c.p_ttest]]
        assert row[1:4] == [f"{b.mean_a:.4f}", f"{b.mean_b:.4f}", f"{c.mean_b:.4f}"]
        for cell, p_cell, d, p in ((row[4], row[5], b, holm[0]), (row[6], row[7], c, holm[1])):
            assert cell.startswith(f"{d.delta:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]")
            assert p_cell.rstrip(" *") == f"{p:.4f}"
    tab.select_option("select.ef-measure", "")
    _settle(tab)
    cells = tab.evaluate("""() => Array.from(document.querySelectorAll('tr.ef-row')).map(r => [r.cells[1].textContent,
        Array.from(r.cells).slice(3).map(c => [c.textContent, c.getAttribute('title')])])""")
    per_query = {name: run.query_metrics("Retriever", with_query=True).set_index("query") for name, run in runs.items()}
    for query, shown in cells:
        expected = []
        for metric in METRICS:
            values = [float(per_query[name].loc[query, metric]) for name in "ABC"]
            expected += [(f"{v:.4f}", v) for v in values]
            expected += [(f"{v - values[0]:+.4f}", v - values[0]) for v in values[1:]]
        assert [(text, float(title)) for text, title in shown] == expected  # the title: the value to the last digit


def test_after_every_view_nothing_but_the_page_was_requested(tab):
    # the module's last test: every view above (sorts, filters, drill-downs, hostile texts) asked nothing of the
    # network or the disk but the page's own file
    assert set(tab.requested) == {tab.uri}, tab.requested
