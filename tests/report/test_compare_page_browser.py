"""The comparative page's script (assets/grid.js, page.js) in a real browser, on hand-built payloads in the
contract's shapes (tests/report/compare_page_payloads.py: every expected row worked out there by hand): the default
order, sorting by a header and by a measure's gain, each filter, the virtualization, the drill-down and its expander,
hostile texts shown as text and never run.

Headless Chromium through playwright, skipped without them unless EVALFRAME_REQUIRE_BROWSER is set (as
tests/present/test_report_browser.py).
"""

from __future__ import annotations

import pytest

from evalframe.report.html import _cut_texts, _page, _runs_left_out
from tests.fixtures import launched_chromium
from tests.report import compare_page_payloads as fixture

sync_api = pytest.importorskip("playwright.sync_api")

BOX = "<div class='evalframe-grid' id='evalframe-grid-0' data-grid='0'><div class='ef-mount'></div></div>"
READY = "() => evalframePage.ready.then(g => g[0].ready).then(() => true)"


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    small = folder / "small.html"
    small.write_text(_page("<h1>hand</h1>" + BOX, fixture.grid_payload(),
                           fixture.detail_payload(fixture.query_details(), fixture.RUNS)), encoding="utf-8")
    cut = fixture.detail_payload(fixture.query_details(), fixture.RUNS)
    _cut_texts(cut, 4, 4)  # every answer and passage cut to 4 characters, the gold answers too (their lengths kept)
    (folder / "cut.html").write_text(_page(BOX, fixture.grid_payload(), cut), encoding="utf-8")
    left = fixture.detail_payload(fixture.query_details(), fixture.RUNS)
    _runs_left_out(left)  # past PAGE_LIMIT: the gold and the meta, no run's answers or passages
    (folder / "left.html").write_text(_page(BOX, fixture.grid_payload(), left), encoding="utf-8")
    big = folder / "big.html"
    big.write_text(_page(BOX, *fixture.big_payloads(2000)), encoding="utf-8")
    return {"small": small.as_uri(), "big": big.as_uri(), "cut": (folder / "cut.html").as_uri(),
            "left": (folder / "left.html").as_uri()}


@pytest.fixture(scope="module")
def tab(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.set_default_timeout(5000)
    page.errors, page.requested, page.dialogs = [], [], []  # type: ignore[attr-defined]
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("request", lambda request: page.requested.append(request.url))
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    page.close()


def _open(tab, uri: str):
    tab.goto(uri)
    assert tab.evaluate(READY)
    return tab


def _settle(tab) -> None:
    assert tab.evaluate(READY)


def _rows(tab) -> list[str]:
    """The ids of the grid's rows drawn, in order (the rank cell is the row's position in the payload, plus 1)."""
    ranks = tab.evaluate("() => Array.from(document.querySelectorAll('tr.ef-row')).map(r => r.cells[0].textContent)")
    return [fixture.IDS[int(rank) - 1] for rank in ranks]


def test_loads_with_the_default_view(tab, pages):
    _open(tab, pages["small"])
    assert tab.errors == [] and tab.dialogs == []
    assert tab.requested and set(tab.requested) <= set(pages.values()), tab.requested  # the pages, nothing else
    assert tab.requested[-1] == pages["small"]
    # the default view: the order_metric's columns (mrr: A, B, delta), rows scored by mrr, in the payload's order
    assert _rows(tab) == ["q1", "q2", "q3", "q4"]
    assert tab.locator(".ef-count").inner_text() == "4 of 5 queries shown"
    keys = tab.evaluate("() => Array.from(document.querySelectorAll('thead th')).map(t => t.dataset.key)")
    assert keys == ["rank", "query", "slice:0", "value:mrr:0", "value:mrr:1", "delta:mrr:1"]
    # the query column is wide enough to read (30rem at 16px)
    assert tab.evaluate("() => document.querySelector('thead th.ef-query').getBoundingClientRect().width") >= 400
    cells = tab.evaluate("() => Array.from(document.querySelector('tr.ef-row').cells).map(c => c.textContent)")
    assert cells == ["1", "where is g1?", "x", "1.0000", "0.5000", "-0.5000"]


def test_sort_by_a_header_and_by_a_measure(tab, pages):
    _open(tab, pages["small"])
    tab.select_option("select.ef-measure", "")  # all measures: every row, every measure's columns
    _settle(tab)
    assert _rows(tab) == fixture.IDS
    header = tab.locator("th[data-key='value:latency:0'] button")
    header.click()  # latency of A ascending: q4 50, q5 60, q1 100, q2 200, q3 not scored (last)
    _settle(tab)
    assert _rows(tab) == ["q4", "q5", "q1", "q2", "q3"]
    assert tab.locator("th[data-key='value:latency:0']").get_attribute("aria-sort") == "ascending"
    header.click()  # descending: NaN still last
    _settle(tab)
    assert _rows(tab) == ["q2", "q1", "q5", "q4", "q3"]
    assert tab.locator("th[data-key='value:latency:0']").get_attribute("aria-sort") == "descending"
    assert tab.locator("th[data-key='rank']").get_attribute("aria-sort") == "none"
    tab.locator("th[data-key='query'] button").click()  # lower-cased: '<' before 'w'; the empty query last
    _settle(tab)
    assert _rows(tab) == ["q4", "q3", "q1", "q2", "q5"]
    # choosing a measure sorts by its gain, worst first: latency (lower better) gains q4 -30, q1 -20, q5 0, q2 +50,
    # q3 not scored by A (NaN, last)
    tab.select_option("select.ef-measure", "latency")
    _settle(tab)
    assert _rows(tab) == ["q4", "q1", "q5", "q2", "q3"]
    assert "sorted by the worst change of latency" in tab.locator(".ef-sorted").inner_text()
    tab.select_option("select.ef-measure", "mrr")  # mrr gains q1 -0.5, q3 0, q2 +0.5, q4 +1 (q5 not scored)
    _settle(tab)
    assert _rows(tab) == ["q1", "q3", "q2", "q4"]
    tab.locator("th[data-key='delta:mrr:1'] button").click()  # B - A ascending: -0.5, 0, 0.5, 1
    _settle(tab)
    assert _rows(tab) == ["q1", "q3", "q2", "q4"]
    tab.locator("th[data-key='delta:mrr:1'] button").click()
    _settle(tab)
    assert _rows(tab) == ["q4", "q2", "q3", "q1"]


def test_each_filter(tab, pages):
    _open(tab, pages["small"])
    tab.select_option("select.ef-measure", "")
    tab.select_option("select.ef-show", "worse")  # over every measure: q1 (mrr, latency), q4 (latency)
    _settle(tab)
    assert _rows(tab) == ["q1", "q4"]
    tab.select_option("select.ef-show", "better")  # q2 (mrr, latency), q4 (mrr)
    _settle(tab)
    assert _rows(tab) == ["q2", "q4"]
    tab.select_option("select.ef-show", "changed")
    _settle(tab)
    assert _rows(tab) == ["q1", "q2", "q4"]
    tab.select_option("select.ef-measure", "mrr")  # over mrr alone: q1 -0.5, q2 +0.5, q4 +1 (sorted by gain)
    tab.select_option("select.ef-show", "worse")
    _settle(tab)
    assert _rows(tab) == ["q1"]
    tab.select_option("select.ef-show", "")
    tab.select_option("select.ef-measure", "")
    # a slice's options: all, then each label, q5's missing label a choice of its own, "(none)"
    assert tab.evaluate("() => Array.from(document.querySelectorAll('select.ef-slice option'))"
                        ".map(o => [o.value, o.textContent])") == [["", "all"], ["(none)", "(none)"], ["x", "x"],
                                                                   ["y", "y"]]
    tab.select_option("select.ef-slice", "y")
    _settle(tab)
    assert _rows(tab) == ["q3", "q4"]
    assert tab.locator(".ef-count").inner_text() == "2 of 5 queries shown"
    tab.select_option("select.ef-slice", index=1)  # the queries with no topic: q5 alone
    _settle(tab)
    assert _rows(tab) == ["q5"]
    assert tab.evaluate("() => evalframePage.grids[0].getView().slices") == {"topic": ""}
    tab.select_option("select.ef-slice", "")
    tab.fill("input.ef-search", "G3")  # case-insensitive, in the query text
    _settle(tab)
    assert _rows(tab) == ["q3"]
    tab.fill("input.ef-search", "Q5")  # in the id
    _settle(tab)
    assert _rows(tab) == ["q5"]
    tab.fill("input.ef-search", "</script>")
    _settle(tab)
    assert _rows(tab) == ["q4"]
    tab.fill("input.ef-search", "no such text")
    _settle(tab)
    assert _rows(tab) == [] and tab.locator(".ef-count").inner_text() == "0 of 5 queries shown"


def test_the_drill_down(tab, pages):
    _open(tab, pages["small"])
    tab.locator("tr.ef-row").first.click()  # q1: the Detail's row 4
    drill = tab.locator(".ef-drill")
    drill.wait_for()
    assert drill.locator(".ef-question").inner_text() == "where is g1?"
    assert drill.locator(".ef-gold-answers li").all_inner_texts() == ["answer1"]
    assert drill.locator(".ef-gold-documents li").all_inner_texts() == ["g1 passage g1"]
    runs = drill.locator(".ef-run")
    assert runs.count() == 2
    assert runs.nth(1).locator(".ef-run-name").inner_text() == fixture.RUNS[1]
    passages = runs.nth(1).locator(".ef-documents li")
    assert passages.count() == 2
    assert passages.nth(0).locator(".ef-ok").count() == 0 and passages.nth(1).locator(".ef-ok").count() == 1
    assert passages.nth(1).locator(".ef-mark.on").inner_text() == "gold_id_match 1"
    assert runs.nth(0).locator(".ef-answers li .ef-ok").count() == 1  # answer1 judged correct
    assert runs.nth(0).locator(".ef-answers .ef-mark").all_inner_texts() == ["exact_match 1", "f1 1"]
    # every measure of the query per run and the delta: mrr 1, 0.5, -0.5; latency 100, 120, +20; hits 2, 1, -1
    values = drill.evaluate("""d => Array.from(d.querySelectorAll('.ef-measures tbody tr'))
        .map(r => Array.from(r.cells).map(c => c.textContent))""")
    assert values == [["mrr ↑", "1.0000", "0.5000", "-0.5000"], ["latency ↓", "100.0000", "120.0000", "+20.0000"],
                      ["hits ", "2.0000", "1.0000", "-1.0000"]]
    meta = drill.evaluate("d => Array.from(d.querySelectorAll('.ef-meta dt, .ef-meta dd')).map(e => e.textContent)")
    assert meta == ["note", fixture.HOSTILE, "topic", "x"]


def test_the_expander(tab, pages):
    _open(tab, pages["small"])
    tab.locator("tr.ef-row").first.click()
    answer = tab.locator(".ef-run").nth(1).locator(".ef-answers li").first
    answer.wait_for()
    text = answer.locator(".ef-text")
    assert text.inner_text() == fixture.LONG_ANSWER[:160] + "…"  # the preview
    assert not answer.locator(".ef-cut").is_visible()
    answer.locator("button.ef-more").click()
    assert text.evaluate("e => e.textContent") == fixture.LONG_ANSWER  # all the page holds (300 characters)
    assert answer.locator(".ef-cut").inner_text().strip() == "cut: 700 characters in all; evalframe serve shows all"
    assert answer.locator(".ef-cut code").inner_text() == "evalframe serve"  # the command as code, no backticks
    assert "`" not in tab.locator(".ef-drill").inner_text()
    assert answer.locator("button.ef-more").inner_text() == "less"
    answer.locator("button.ef-more").click()
    assert text.inner_text().endswith("…") and not answer.locator(".ef-cut").is_visible()


def test_a_cut_gold_answer_says_how_long_it_is(tab, pages):
    # q1's gold answer "answer1" (7 characters) held as "answ": the note says its whole length, as a passage's does
    _open(tab, pages["cut"])
    tab.locator("tr.ef-row").first.click()
    gold = tab.locator(".ef-gold-answers li").first
    gold.wait_for()
    assert gold.locator(".ef-text").inner_text() == "answ"
    gold.locator("button.ef-more").click()
    assert gold.locator(".ef-cut").inner_text().strip() == "cut: 7 characters in all; evalframe serve shows all"
    passage = tab.locator(".ef-run").nth(0).locator(".ef-documents li").first
    assert passage.locator(".ef-text").inner_text() == "pass"  # "passage g1", 10 characters
    passage.locator("button.ef-more").click()
    assert passage.locator(".ef-cut").inner_text().strip() == "cut: 10 characters in all; evalframe serve shows all"
    assert not tab.errors


def test_hostile_texts_are_shown_as_text(tab, pages):
    _open(tab, pages["small"])
    tab.select_option("select.ef-measure", "")
    tab.fill("input.ef-search", "svg")
    _settle(tab)
    row = tab.locator("tr.ef-row").first
    assert row.locator("td.ef-query").inner_text() == fixture.HOSTILE
    row.click()
    tab.locator(".ef-drill").wait_for()
    assert tab.locator(".ef-drill .ef-question").inner_text() == fixture.HOSTILE
    assert tab.locator(".ef-run").nth(1).locator(".ef-documents li .ef-text").first.inner_text() == fixture.HOSTILE
    # no element the texts name was made, no dialog opened, nothing requested (the img's src=x)
    assert tab.evaluate("() => document.querySelectorAll('img, svg, [onerror], [onload]').length") == 0
    assert tab.evaluate("() => document.scripts.length") == 4  # the two payloads and the two constant scripts
    assert tab.dialogs == [] and tab.errors == []
    assert tab.requested and set(tab.requested) <= set(pages.values()), tab.requested  # the pages, nothing else
    assert tab.requested[-1] == pages["small"]
    header = tab.locator("th[data-key='value:mrr:1']").inner_text()
    assert fixture.RUNS[1] in header


def test_the_grid_is_virtualized(tab, pages):
    _open(tab, pages["big"])
    assert tab.locator(".ef-count").inner_text() == "2,000 of 2,000 queries shown"
    assert tab.locator("tr.ef-row").count() < 200
    first = tab.evaluate("() => Array.from(document.querySelectorAll('tr.ef-row')).map(r => r.cells[1].textContent)")
    assert first[0] == "question 1" and "question 2000" not in first
    tab.evaluate("() => { const s = document.querySelector('.ef-scroll'); s.scrollTop = s.scrollHeight; }")
    tab.wait_for_function("""() => Array.from(document.querySelectorAll('tr.ef-row'))
        .some(r => r.cells[1].textContent === 'question 2000')""")
    assert tab.locator("tr.ef-row").count() < 200
    # the keyboard: Home, then ArrowDown twice and Enter opens the third query
    tab.locator(".ef-scroll").focus()
    tab.keyboard.press("Home")
    tab.keyboard.press("ArrowDown")
    tab.keyboard.press("ArrowDown")
    tab.keyboard.press("Enter")
    tab.locator(".ef-drill .ef-question").wait_for()
    assert tab.locator(".ef-drill .ef-question").inner_text() == "question 3"


def test_numbers_are_printed_as_python_prints_them(tab, pages):
    _open(tab, pages["small"])
    cases = [0.03125, 0.09375, -0.03125, 1 / 3, -0.0, 0.5, 2.5e-05, 0.00015, 123.45675, float("nan")]
    got = tab.evaluate("xs => xs.map(x => [Evalframe.fixed(x), Evalframe.signed(x)])",
                       [x if x == x else None for x in cases])
    assert got == [[f"{x:.4f}" if x == x else "", f"{x:+.4f}" if x == x else ""] for x in cases]


FAKE = '''(message) => {
    const box = document.createElement('div'); box.className = 'evalframe-grid'; box.id = 'fake';
    document.body.appendChild(box);
    const rows = [{i: 0, id: 'a', query: 'q', slices: [], values: {recall_single_hit_rate: [0.5, 1]}}];
    const source = {info: {names: ['baseline', 'candidate'], node: 'Retriever', answer_node: false,
                           measures: [{metric: 'recall_single_hit_rate', direction: 'higher', description: ''}],
                           slice_keys: [], slice_labels: [], order_metric: 'recall_single_hit_rate', total: 1},
                    page: (view) => view.sort === 'bogus' ? Promise.reject(new Error(message))
                                                        : Promise.resolve({total: 1, rows: rows}),
                    detail: () => Promise.resolve(null)};
    window.fake = new Evalframe.Grid(box, source);
    return window.fake.ready.then(() => true);
}'''


def test_a_view_the_source_refuses_shows_its_message(tab, pages):
    # a served URL's bad sort: the source's page() rejects; the count line says why, the grid says it too, no error
    _open(tab, pages["small"])
    message = "sort must be one of ['rank', 'query']; got 'bogus'"
    assert tab.evaluate(FAKE, message)
    assert tab.locator("#fake tr.ef-row").count() == 1
    tab.evaluate("() => { fake.setView({sort: 'bogus'}); return fake.ready; }")
    assert tab.locator("#fake .ef-count").inner_text() == "This view cannot be shown: " + message
    assert tab.locator("#fake .ef-count.ef-error").count() == 1
    assert tab.locator("#fake tr.ef-row").count() == 0
    assert tab.locator("#fake tr.ef-empty").inner_text() == "This view cannot be shown: " + message
    tab.evaluate("() => { fake.setView({sort: ''}); return fake.ready; }")  # a good view again: rows, no error
    assert tab.locator("#fake tr.ef-row").count() == 1 and tab.locator("#fake .ef-error").count() == 0
    assert tab.locator("#fake .ef-count").inner_text() == "1 of 1 queries shown"
    assert tab.errors == []


def test_local_source_refuses_a_bad_view_as_the_server_does(tab, pages):
    _open(tab, pages["small"])
    got = tab.evaluate('''() => Promise.all(['bogus', 'value:mrr:\u00b9', 'delta:mrr:0', 'slice:1', 'gain:nope']
        .map(sort => evalframePage.grids[0].source.page({sort: sort}, 0, 10).then(() => 'shown', e => e.message)))''')
    assert all(message.startswith("sort must be one of [") for message in got), got
    assert got[1].endswith('got "value:mrr:\u00b9"')
    assert tab.evaluate("() => evalframePage.grids[0].source.page({measure: 'nope'}, 0, 1).catch(e => e.message)") \
        == 'measure must be one of ["mrr","latency","hits"]; got "nope"'


def test_a_long_measure_name_wraps_in_its_header(tab, pages):
    _open(tab, pages["small"])
    assert tab.evaluate(FAKE, "")
    heads = tab.evaluate('''() => Array.from(document.querySelectorAll('#fake thead th.ef-num button'))
        .map(b => [b.scrollWidth <= b.clientWidth + 1, b.closest('th').getAttribute('title') || b.title,
                   b.textContent])''')
    assert heads and all(fits for fits, _, _ in heads), heads  # nothing cut off: the name wraps
    assert all("recall_single_hit_rate" in text for _, _, text in heads)


def test_past_the_limit_the_drill_down_keeps_the_gold_and_the_meta(tab, pages):
    _open(tab, pages["left"])
    tab.locator("tr.ef-row").first.click()  # q1
    drill = tab.locator(".ef-drill")
    drill.wait_for()
    assert drill.locator(".ef-gold-answers li").all_inner_texts() == ["answer1"]
    assert drill.locator(".ef-gold-documents li").all_inner_texts() == ["g1 text not in this page (10 characters); "
                                                                        "evalframe serve shows it"]
    meta = drill.evaluate("d => Array.from(d.querySelectorAll('.ef-meta dt, .ef-meta dd')).map(e => e.textContent)")
    assert meta == ["note", fixture.HOSTILE, "topic", "x"]
    assert drill.locator(".ef-run").count() == 0
    assert drill.locator("p.ef-left-out").inner_text() == ("The runs\u2019 answers and passages are not in this page (it is "
                                                          "too large for them); evalframe serve shows them.")
    assert drill.locator(".ef-measures tbody tr").count() == 3  # the query's values stay
    assert not tab.errors
