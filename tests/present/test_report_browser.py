"""The HTML report in a real browser (headless Chromium through playwright): its explanations are reachable.

Skipped without playwright (in ``.[test]``) or a Chromium (Debian: ``apt-get install
chromium-headless-shell``; ``EVALFRAME_CHROMIUM`` names another binary; else playwright's own, ``playwright install
chromium``), the browser ``scripts/screenshot_report.py`` uses.
"""

from __future__ import annotations

import pytest

from evalframe import load_demo_result
from tests.fixtures import launched_chromium

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def tab(tmp_path_factory):
    page_file = tmp_path_factory.mktemp("report") / "report.html"
    page_file.write_text(load_demo_result().report(n=2).html, encoding="utf-8")
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 700})
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(page_file.as_uri())
        page.requested = requested  # type: ignore[attr-defined]
        yield page


def _in_view(tab, selector: str) -> bool:
    """Whether the element's top is on the screen (a scroll to an anchor may leave it a fraction of a pixel above)."""
    return tab.evaluate("""(selector) => { const box = document.querySelector(selector).getBoundingClientRect();
                                           return box.top > -1 && box.top < window.innerHeight; }""", selector)


def test_a_metric_name_in_the_funnel_leads_to_its_explanation(tab):
    definition = "#evalframe-metric-mrr"
    tab.evaluate("window.scrollTo(0, 0)")
    assert not _in_view(tab, definition)  # the definitions are at the end, below the first screen
    link = tab.locator("a.metric", has_text="mrr").first
    assert link.get_attribute("title") == "Reciprocal rank of the first relevant document."  # the hover text
    link.click()
    assert tab.evaluate("location.hash") == definition and _in_view(tab, definition)
    explanation = tab.locator(f"{definition} + dd")
    assert explanation.is_visible()
    assert explanation.inner_text().startswith("Reciprocal rank of the first relevant document. Per query: 1 / min rank "
                                               "over R.")


def test_what_the_scopes_mean_is_one_click_away(tab):
    tab.evaluate("window.scrollTo(0, 0)")
    tab.get_by_role("link", name="what they mean").click()
    assert _in_view(tab, "#evalframe-definitions")
    assert tab.get_by_text("its id is a gold document id or it contains a gold answer").is_visible()


def test_the_page_loads_nothing_but_itself(tab):
    assert tab.requested and all(url.startswith(("file:", "data:")) for url in tab.requested), tab.requested
