"""Screenshot ``evalframe serve`` in headless Chromium: ``python scripts/screenshot_viewer.py``.

Serves what docs/viewer.md starts: the two Ragas runs of ``docs/examples/rag`` (``evalframe serve --from ragas
bm25.jsonl hybrid.jsonl --by meta.topic --score latency_ms:lower``, read through the command's own parser), and a
store holding them (each logged with ``evalframe.History.log``), on a free port of 127.0.0.1 in a thread; then writes

- ``docs/images/viewer_runs.png``: the store's runs;
- ``docs/images/viewer_compare.png``: the generator in the comparison (its measures with paired intervals, the
  slices opened, the grid);
- ``docs/images/viewer_drill.png``: the worst faithfulness drop opened (question, gold, each run's answer and
  passages);
- ``docs/images/viewer_trend.png``: faithfulness over the runs of the store.

Needs the serve extra, playwright and a Chromium (found as ``scripts/screenshot_report.py`` finds it).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import evalframe as ef

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = ROOT / "docs" / "images"
RAG = ROOT / "docs" / "examples" / "rag"
WIDTH = 1300


def _browser() -> str | None:
    spec = importlib.util.spec_from_file_location("screenshot_report", HERE / "screenshot_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.browser()


def served(store: Path) -> tuple[str, object, object]:
    """The viewer of the two Ragas runs and a store of them, as ``evalframe serve`` builds it; its address."""
    from evalframe.present.parsers import build
    from evalframe.present.serve.app import make_app
    from evalframe.present.serve.command import serve_in_thread, sources_of

    latency = {"latency_ms": ef.score_measure("latency_ms", direction="lower")}
    history = ef.History(store)
    for name, tags in (("bm25", ["baseline"]), ("hybrid", ["candidate"])):
        result = ef.EvaluationResult.from_ragas(RAG / f"{name}.jsonl", score_measures=latency, progress=False)
        history.log(result, name=name, tags=tags, commit=None)
    args = build()[0].parse_args(["serve", "--from", "ragas", str(RAG / "bm25.jsonl"), str(RAG / "hybrid.jsonl"),
                                  "--store", str(store), "--by", "meta.topic", "--score", "latency_ms:lower"])
    args.storage_options = {}
    return serve_in_thread(make_app(sources_of(args)))


def main() -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit("needs playwright: pip install playwright (and a Chromium: apt-get install chromium-headless-shell)")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        url, server, thread = served(Path(folder) / "store")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=_browser(), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": WIDTH, "height": 900})
                page.goto(url + "/runs")
                page.screenshot(path=str(OUT / "viewer_runs.png"), full_page=True)
                page.set_viewport_size({"width": WIDTH, "height": 1800})  # the grid draws the rows on the screen
                page.goto(url + "/compare?run=0&run=1&node=Generator")
                page.wait_for_selector("#sv-grid tr.ef-row")
                page.locator("section[data-node=Generator] details.sv-slices summary").click()
                page.locator("section[data-node=Generator]").screenshot(path=str(OUT / "viewer_compare.png"))
                page.goto(url + "/compare?run=0&run=1&node=Generator&measure=faithfulness&sort=gain%3Afaithfulness")
                page.wait_for_selector("#sv-grid tr.ef-row")
                page.locator("#sv-grid tr.ef-row").first.click()
                page.wait_for_selector(".ef-detail .ef-drill")
                detail = page.locator("#sv-grid")
                detail.scroll_into_view_if_needed()
                detail.screenshot(path=str(OUT / "viewer_drill.png"))
                page.set_viewport_size({"width": WIDTH, "height": 900})
                page.goto(url + "/trend?measure=faithfulness")
                page.screenshot(path=str(OUT / "viewer_trend.png"), full_page=True)
                browser.close()
        finally:
            server.should_exit = True  # type: ignore[attr-defined]
            thread.join(timeout=10)  # type: ignore[attr-defined]
    for name in ("viewer_runs", "viewer_compare", "viewer_drill", "viewer_trend"):
        print(OUT / f"{name}.png")


if __name__ == "__main__":
    main()
