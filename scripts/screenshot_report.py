"""Screenshot the HTML report in headless Chromium, to look at it as a reader would: ``python scripts/screenshot_report.py``.

Writes ``docs/images/report.png`` (the page a browser shows) and ``docs/images/report_notebook.png`` (the same report
inside a page carrying JupyterLab's rule that right-aligns table cells, ``.jp-RenderedHTMLCommon td``, which the report
must override). Both are drawn from the demo result.

A browser is needed: playwright's Chromium (``pip install playwright && playwright install chromium``), else a
Chromium binary (Debian: ``apt-get install chromium-headless-shell``; or set ``EVALFRAME_CHROMIUM`` to its path),
driven through playwright when installed, else through Chromium's own ``--screenshot`` flag.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import evalframe as ef

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"
CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "chrome")
#: What JupyterLab's stylesheet does to a rendered table (right-aligned cells), for the notebook screenshot.
JUPYTER_CSS = ".jp-RenderedHTMLCommon td,.jp-RenderedHTMLCommon th{text-align:right;vertical-align:middle}"
WIDTH = 1200


def browser() -> str | None:
    """A Chromium executable: EVALFRAME_CHROMIUM, else the first of CANDIDATES on PATH (None: playwright's own)."""
    if os.environ.get("EVALFRAME_CHROMIUM"):
        return os.environ["EVALFRAME_CHROMIUM"]
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


def screenshot(page: Path, png: Path) -> None:
    executable = browser()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if executable is None:
            sys.exit("no browser: pip install playwright && playwright install chromium, or install chromium")
        subprocess.run([executable, "--headless", "--no-sandbox", "--hide-scrollbars", f"--window-size={WIDTH},4000",
                        f"--screenshot={png}", page.as_uri()], check=True, capture_output=True)
        return
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        tab = chromium.new_page(viewport={"width": WIDTH, "height": 800})
        tab.goto(page.as_uri())
        tab.screenshot(path=str(png), full_page=True)
        chromium.close()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    report = ef.load_demo_result().report(n=2)
    notebook = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{JUPYTER_CSS}</style></head><body>"
                f"<div class='jp-RenderedHTMLCommon'>{report._repr_html_()}</div></body></html>")
    with tempfile.TemporaryDirectory() as folder:
        for name, html in (("report.png", report.html), ("report_notebook.png", notebook)):
            page = Path(folder) / name.replace(".png", ".html")
            page.write_text(html, encoding="utf-8")
            screenshot(page, OUT / name)
            print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
