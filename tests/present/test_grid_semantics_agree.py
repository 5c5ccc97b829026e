"""The contract's grid semantics, implemented twice: the static page's ``LocalSource`` (evalframe/report/assets/grid.js,
in headless Chromium) and ``evalframe serve``'s ``Pager`` (present/serve/paging.py) give the same rows, in the same
order, and the same totals for every view of one grid built to hold what tells them apart: NaN values (one run, all
runs), ties, empty queries and slice labels, characters past U+FFFF (two UTF-16 code units), characters whose lower
case is special (İ, ß, final Σ, ǅ), three runs and a measure of each direction.

Skipped without playwright or Chromium unless EVALFRAME_REQUIRE_BROWSER is set (as the other browser tests).
"""

from __future__ import annotations

import itertools
import unicodedata

import numpy as np
import pytest

from evalframe.present.serve.paging import Pager, View
from evalframe.report.html import asset
from tests.fixtures import launched_chromium
from tests.present.serve_fixtures import grid_of

sync_api = pytest.importorskip("playwright.sync_api")

RUNS = ("base", "next", "last")
# words chosen so that sorting and lower-casing have every case that differs between careless implementations: a
# character past U+FFFF sorts before U+FF41 by UTF-16 code units (after it by code points), İ lower-cases to two
# code points, a final Σ to ς, ǅ (title case) to ǆ; ties (a / A, the same word twice), and "" (sorts last)
WORDS = ["Flood", "fire", "İstanbul", "straße", "STRASSE", "ΣΟΦΟΣ", "σοφος", "ǅemal", "émile", "\U0001f600x",
         "\uff41z", "\U00010400", "a", "A", ""]
LABELS = ["auto", "home", "", "Home", "\U0001f600", "\uff41", "İ"]


def _grid(n: int = 240):
    rng = np.random.default_rng(40)
    query = [" ".join(rng.choice(WORDS, size=int(rng.integers(0, 4)))).strip() for _ in range(n)]
    ids = [f"Q{i}" if i % 7 else f"q-\u0130{i}" for i in range(n)]
    topic = [str(x) for x in rng.choice(LABELS, size=n)]
    kind = [str(x) for x in rng.choice(["", "long", "short"], size=n)]
    grid_values = {}
    for name, scale in (("mrr", 1.0), ("latency", 10.0), ("count", 1.0)):
        # few distinct values: many ties; NaN in some runs of a row and in every run of others
        block = rng.choice([0.0, 0.25, 0.5, 1.0, np.nan], size=(n, len(RUNS)), p=[.25, .2, .2, .2, .15]) * scale
        block[rng.random(n) < 0.05] = np.nan
        grid_values[name] = block.tolist()
    return grid_of(ids, query, {"topic": topic, "kind": kind}, grid_values,
                   {"mrr": 1.0, "latency": -1.0, "count": 0.0})


def _payload(grid) -> dict:
    """The GRID PAYLOAD of ``grid`` (one node), NaN as None."""
    measures = list(grid.values)
    direction = {1.0: "higher", -1.0: "lower", 0.0: "none"}
    return {"summary": {"names": list(RUNS), "nodes": [{
                "node": grid.node, "answer_node": False, "order_metric": "mrr", "slice_keys": list(grid.slices),
                "measures": [{"metric": m, "direction": direction[grid.signs[m]], "description": ""}
                             for m in measures]}]},
            "grids": [{"node": grid.node, "n": len(grid.ids), "id": grid.ids.tolist(), "query": grid.query.tolist(),
                       "slices": [labels.tolist() for labels in grid.slices.values()],
                       "values": {m: [[None if v != v else v for v in grid.values[m][:, r].tolist()]
                                      for r in range(len(RUNS))] for m in measures},
                       "signs": {m: int(grid.signs[m]) for m in measures}, "detail": list(range(len(grid.ids)))}]}


def _views(pager: Pager, *, every: bool) -> list[View]:
    """Each sort key both ways, each filter alone, and combinations; ``every``: the whole sweep."""
    views = [View(sort=key, descending=descending) for key in ["", *pager.sort_keys()] for descending in (False, True)]
    filters = [View(show=show, measure=measure) for show, measure in
               itertools.product(["", "changed", "worse", "better"], ["", "mrr", "latency", "count"])]
    filters += [View(slices=(("topic", label),)) for label in LABELS]
    filters += [View(slices=(("topic", "auto"), ("kind", ""))), View(slices=(("kind", "long"),))]
    filters += [View(text=text) for text in ["flood", "FIRE", "i\u0307", "İ", "istanbul", "straße", "STRASSE",
                                             "σοφος", "ΣΟΦΟΣ", "ǆ", "ǅ", "q1", "Q-İ", "\U0001f600", "É", " ", "zz"]]
    combined = [View(measure="mrr", sort="gain:mrr", show="worse", text="a"),
                View(measure="latency", sort="gain:latency", descending=True, slices=(("topic", ""),)),
                View(sort="query", descending=True, slices=(("topic", "\U0001f600"),), text="s"),
                View(sort="slice:0", show="changed", measure="count"),
                View(sort="delta:mrr:2", descending=True, show="better", slices=(("kind", "short"),)),
                View(sort="value:latency:1", text="\uff41", show="changed"),
                View(sort="", descending=True, measure="mrr", slices=(("topic", "Home"),))]
    if every:
        return views + filters + combined + [
            View(sort=v.sort, descending=v.descending, show=f.show, measure=f.measure, slices=f.slices, text=f.text)
            for v, f in itertools.product(views[::3], filters[::2])]
    # the normal run: every sort key's two directions on a few, every filter alone, the combinations
    return views[:8] + [v for v in views if v.sort.startswith(("gain:", "slice:", "query"))] + views[-6:] \
        + filters + combined


@pytest.fixture(scope="module")
def tab():
    with launched_chromium() as chromium:
        page = chromium.new_page()
        page.set_content("<!DOCTYPE html><html><body></body></html>")
        page.add_script_tag(content=asset("grid.js"))
        yield page


def _local(tab, grid, views: list[View], offset: int = 0, limit: int = 1000) -> list[dict]:
    """Each view's page from LocalSource: {total, rows: [i]}, in one evaluate call."""
    return tab.evaluate("""([payload, views, offset, limit]) => {
        const source = new Evalframe.LocalSource(payload, null, 0);
        return Promise.all(views.map(v => source.page(v, offset, limit)
            .then(p => ({total: p.total, rows: p.rows.map(r => r.i)}))));
    }""", [_payload(grid), [{"measure": v.measure, "sort": v.sort, "descending": v.descending, "show": v.show,
                              "slices": dict(v.slices), "text": v.text} for v in views], offset, limit])


def _served(pager: Pager, view: View, offset: int = 0, limit: int = 1000) -> dict:
    page = pager.page(view, offset, limit)
    return {"total": page["total"], "rows": [row["i"] for row in page["rows"]]}


def _agree(tab, *, every: bool) -> int:
    grid = _grid()
    pager = Pager(grid)
    views = _views(pager, every=every)
    local = _local(tab, grid, views)
    differ = [(view, got, _served(pager, view)) for view, got in zip(views, local) if got != _served(pager, view)]
    assert not differ, (f"{len(differ)} of {len(views)} views differ; the first: {differ[0][0]}: page "
                        f"{differ[0][1]['total']} rows {differ[0][1]['rows'][:12]}, server {differ[0][2]['total']} "
                        f"rows {differ[0][2]['rows'][:12]}")
    # the views are not trivial: some keep few rows, some none, and the orders differ
    totals = {got["total"] for got in local}
    assert 0 in totals and len(grid.ids) in totals and len(totals) > 10
    assert len({tuple(got["rows"]) for got in local}) > len(views) // 3
    return len(views)


def test_local_source_and_pager_agree_on_every_view(tab):
    assert _agree(tab, every=False) >= 60


def test_a_page_is_the_same_offset_and_limit_on_both(tab):
    grid = _grid()
    pager = Pager(grid)
    views = [View(sort="gain:mrr"), View(sort="query", descending=True, show="changed")]
    assert _local(tab, grid, views, 37, 50) == [_served(pager, view, 37, 50) for view in views]


def test_the_special_cases_lower_case_alike():
    # what the text filter and the query sort lower-case, worked out by hand (Unicode's SpecialCasing): both sides
    # are checked against it in test_lower_case_agrees_for_every_character_python_knows (stress) and, for these,
    # through the views above
    assert "İ".lower() == "i\u0307" and "ΣΟΦΟΣ".lower() == "σοφος" and "ǅ".lower() == "ǆ" and "ß".lower() == "ß"


def test_special_lower_cases_agree_in_the_browser(tab):
    words = ["İ", "ΣΟΦΟΣ", "ΑΣ.", "AΣB", "ǅemal", "STRASSE", "straße", "\U00010400", "Ω", "K", "Å"]
    assert tab.evaluate("ws => ws.map(w => w.toLowerCase())", words) == [word.lower() for word in words]


@pytest.mark.stress
def test_local_source_and_pager_agree_on_the_whole_sweep(tab):
    assert _agree(tab, every=True) > 300


@pytest.mark.stress
def test_lower_case_agrees_for_every_character_python_knows(tab):
    # the one documented exception: a character newer than Python's Unicode (unicodedata.unidata_version) is not
    # lower-cased by the server; the browser's newer tables may lower-case it
    characters = [chr(c) for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    lowered = tab.evaluate("s => s.split('\\x00').map(c => c.toLowerCase())", "\x00".join(characters))
    differ = [c for c, low in zip(characters, lowered) if low != c.lower()]
    assert all(unicodedata.category(c) == "Cn" for c in differ), [hex(ord(c)) for c in differ
                                                                  if unicodedata.category(c) != "Cn"]
