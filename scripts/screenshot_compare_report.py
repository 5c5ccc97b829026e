"""Screenshot the comparative report in headless Chromium: ``python scripts/screenshot_compare_report.py``.

Writes ``docs/images/compare_report.png`` (the page: the summary tables and the top of the per-query grid) and
``docs/images/compare_report_drill.png`` (the worst query's drill-down: its gold, every run's documents with their
gold matches, its values), from the two demo runs of
docs/compare-report.md (BM25's rankings and the same rankings reversed); and for docs/rag.md
``docs/images/rag_compare_report.png`` (the two Ragas runs of ``docs/examples/rag``, as ``evalframe report --from
ragas`` makes them: the summary) and ``docs/images/rag_compare_grid.png`` (the generator's grid on the judge's
faithfulness, sorted by its largest drop, its regressions in one topic, the first opened). Needs playwright and a
Chromium, found as ``scripts/screenshot_report.py``
finds it.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import evalframe as ef

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "docs" / "images"
WIDTH = 1200


def _browser() -> str | None:
    spec = importlib.util.spec_from_file_location("screenshot_report", HERE / "screenshot_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.browser()


def demo_report() -> ef.ComparisonReport:
    labels, outputs = ef.load_demo_runs()
    bm25 = ef.EvaluationResult.from_runs(labels, outputs, progress=False)
    swapped = {node: dict(output) for node, output in outputs.items()}
    swapped["Retriever"]["documents"] = [ranking[::-1] for ranking in outputs["Retriever"]["documents"]]
    reversed_run = ef.EvaluationResult.from_runs(labels, swapped, progress=False)
    return ef.compare_report({"bm25": bm25, "reversed": reversed_run}, metrics=["mrr", "recall_single_hit", "f1"],
                             by="no_answer")


def rag_report() -> ef.ComparisonReport:
    """The comparative report of docs/rag.md: the Ragas runs of docs/examples/rag, latency lower-is-better."""
    latency = {"latency_ms": ef.score_measure("latency_ms", direction="lower")}
    runs = {name: ef.EvaluationResult.from_ragas(HERE.parent / "docs" / "examples" / "rag" / f"{name}.jsonl",
                                                 score_measures=latency, progress=False) for name in ("bm25", "hybrid")}
    return ef.compare_report(runs, by=["meta.topic", "no_answer"])


def main() -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit("needs playwright: pip install playwright (and a Chromium: apt-get install chromium-headless-shell)")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        page_file = demo_report().save(Path(folder) / "compare.html")
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=_browser(), args=["--no-sandbox"])
            tab = chromium.new_page(viewport={"width": WIDTH, "height": 720})
            tab.goto(page_file.as_uri())
            tab.evaluate("() => evalframePage.ready")  # the grids drawn from the page's packed data
            tab.screenshot(path=str(OUT / "compare_report.png"))
            grid = tab.locator(".evalframe-grid").first
            grid.locator("tr.ef-row").first.click()  # the worst query, its drill-down built when opened
            grid.locator(".ef-drill").wait_for()
            grid.locator(".ef-detail").scroll_into_view_if_needed()
            grid.locator(".ef-detail").screenshot(path=str(OUT / "compare_report_drill.png"))
            rag_file = rag_report().save(Path(folder) / "rag.html")
            tab = chromium.new_page(viewport={"width": WIDTH, "height": 900})
            tab.goto(rag_file.as_uri())
            tab.evaluate("() => evalframePage.ready")
            tab.screenshot(path=str(OUT / "rag_compare_report.png"))
            grid = tab.locator("#evalframe-grid-1")  # the generator's: faithfulness, its largest drops first
            grid.locator("select.ef-measure").select_option("faithfulness")
            grid.locator("select.ef-show").select_option("worse")
            grid.locator("select.ef-slice").first.select_option("account")
            grid.locator("tr.ef-row").first.click()
            grid.locator(".ef-drill").wait_for()
            grid.screenshot(path=str(OUT / "rag_compare_grid.png"))
            chromium.close()
    for name in ("compare_report.png", "compare_report_drill.png", "rag_compare_report.png", "rag_compare_grid.png"):
        _shrink(OUT / name)
        print(f"wrote {OUT / name}")


def _shrink(png: Path) -> None:
    """The screenshot in 64 colours (a few tens of KB in the repository), when Pillow (matplotlib's) is installed."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        small = image.convert("RGB").quantize(colors=64)
    small.save(png, optimize=True)


if __name__ == "__main__":
    main()
