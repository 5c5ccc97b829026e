"""The comparative page at scale: ``python benchmarks/bench_page.py --queries 5000 --runs 2 --big 100000x3``.

Writes synthetic Ragas datasets (``benchmarks/synthetic_ragas.py``) and measures, each in a fresh process:

- the build from the files: ``evalframe report --from ragas a.jsonl b.jsonl --html p.html`` (the whole command:
  start, import, load, compare, page), wall seconds and the process's peak RSS;
- the build from loaded results: ``compare_report(runs).save("p.html")`` timed after ``from_ragas`` loaded them (the
  peak RSS is the process's, loads included);
- the page's size;
- in headless Chromium (playwright, a fresh browser per page, as the browser tests find it): *usable*, the time from
  the navigation's start until the grids' first rows are drawn (``performance.now()`` in the page) plus the time of a
  click on the first row until its drill-down is drawn; then each filter change and sort (the measure select, which
  sorts by its gain; show regressions; a slice; a text search; a header click), timed in the page with
  ``performance.now()`` from the change until the rows are drawn and a frame has passed.

Targets (issue 40): 5,000 x 2 built under 3 s and 300 MB, the page under 5 MB, usable under 1 s, a filter or sort
under 100 ms; 100,000 x 3 usable under 5 s. Prints a Markdown table and the machine's load (``uptime``); exit 1 when
the page shows an error in the browser.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The child that builds a page from loaded results: the loads not timed, compare_report + save timed.
CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {benchmarks!r})
from process_usage import peak_rss_mb
import evalframe as ef
paths = [Path(p) for p in {paths!r}]
runs = {{p.stem: ef.EvaluationResult.from_ragas(p, progress=False) for p in paths}}
start = time.perf_counter()
report = ef.compare_report(runs)
report.model
middle = time.perf_counter()
report.save({out!r})
end = time.perf_counter()
print(json.dumps({{"seconds": end - start, "model": middle - start, "page": end - middle, "peak_mb": peak_rss_mb()}}))
"""

#: The child that runs the command and reports its peak RSS (the wall time is measured around the process).
COMMAND = """
import json, sys
sys.path.insert(0, {benchmarks!r})
from process_usage import peak_rss_mb
from evalframe.present.cli import main
code = main({argv!r})
print(json.dumps({{"code": code, "peak_mb": peak_rss_mb()}}))
"""

#: In the page: each change, timed from the change until the rows are drawn and a frame has passed.
MEASURE_CHANGES = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const grids = await evalframePage.ready;
  const times = {};
  const time = async (name, grid, act) => {
    const start = performance.now(); act(); await grid.ready; await frame();
    times[name] = Math.max(times[name] || 0, performance.now() - start);
  };
  for (const grid of grids) {
    const root = grid.container, info = grid.info;
    const select = (el, value) => { el.value = value; el.dispatchEvent(new Event('change')); };
    const measure = root.querySelector('select.ef-measure');
    for (const m of info.measures) await time('measure select (sort by its gain)', grid, () => select(measure, m.metric));
    await time('show regressions', grid, () => select(root.querySelector('select.ef-show'), 'worse'));
    await time('show all', grid, () => select(root.querySelector('select.ef-show'), ''));
    const slice = root.querySelector('select.ef-slice');
    if (slice && slice.options.length > 1) {
      await time('a slice', grid, () => select(slice, slice.options[1].value));
      await time('a slice', grid, () => select(slice, ''));
    }
    const search = root.querySelector('input.ef-search');
    await time('text search', grid, () => { search.value = 'q1'; search.dispatchEvent(new Event('input')); });
    await time('text search', grid, () => { search.value = ''; search.dispatchEvent(new Event('input')); });
    for (const key of ['value:', 'delta:', 'query']) {
      const button = root.querySelector(`th[data-key^='${key}'] button`);
      if (button) for (const again of [1, 2]) await time('header sort', grid, () => button.click());
    }
    await time('scroll to the end', grid, () => { grid.scroller.scrollTop = grid.scroller.scrollHeight; grid._draw(); });
  }
  return times;
}"""

USABLE = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const grids = await evalframePage.ready;
  await Promise.all(grids.map(g => g.ready));
  const drawn = evalframePage.drawn;
  const row = grids[0].container.querySelector('tr.ef-row');
  const start = performance.now();
  row.click();
  await grids[0].opening; await frame();
  const drill = grids[0].container.querySelector('.ef-drill');
  return {drawn: drawn, click: performance.now() - start, drill: !!drill, rows: document.querySelectorAll('tr.ef-row').length,
          nodes: document.getElementsByTagName('*').length};
}"""


def _browser() -> str | None:
    spec = importlib.util.spec_from_file_location("screenshot_report", ROOT / "scripts" / "screenshot_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.browser()


def _python(code: str) -> dict:
    # the evalframe of PYTHONPATH when set (a worktree's), else this checkout's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH", ""), str(ROOT)]))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"the child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def build_command(paths: list[Path], out: Path) -> dict:
    argv = ["report", "--from", "ragas", *map(str, paths), "--html", str(out)]
    start = time.perf_counter()
    found = _python(COMMAND.format(benchmarks=str(HERE), argv=argv))
    found["seconds"] = time.perf_counter() - start
    return found


def build_loaded(paths: list[Path], out: Path) -> dict:
    return _python(CHILD.format(benchmarks=str(HERE), paths=[str(p) for p in paths], out=str(out)))


def in_browser(page: Path) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=_browser(), args=["--no-sandbox"])
        tab = chromium.new_page(viewport={"width": 1200, "height": 800})
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        tab.set_default_timeout(120_000)
        tab.goto(page.as_uri(), wait_until="domcontentloaded")
        usable = tab.evaluate(USABLE)
        changes = tab.evaluate(MEASURE_CHANGES)
        chromium.close()
    return {"usable": usable, "changes": changes, "errors": errors}


def _size(spec: str) -> tuple[int, int]:
    queries, _, runs = spec.partition("x")
    return int(queries), int(runs or 2)


def case(queries: int, runs: int, folder: Path, *, browser: bool = True, loaded: bool = True) -> dict:
    sys.path.insert(0, str(HERE))
    import synthetic_ragas

    paths = synthetic_ragas.write(queries, folder, runs=runs)
    command = build_command(paths, folder / "command.html")
    found = {"queries": queries, "runs": runs, "command": command,
             "loaded": build_loaded(paths, folder / "loaded.html") if loaded else None,
             "page_mb": (folder / "command.html").stat().st_size / 1e6}
    if browser:
        found.update(in_browser(folder / "command.html"))
    return found


def report(found: dict, *, usable_target: float, build_target: float | None) -> list[str]:
    q, r = found["queries"], found["runs"]
    lines = [f"### {q:,} questions x {r} runs (synthetic Ragas)", "", "| what | figure | target |", "| --- | --- | --- |"]
    lines.append(f"| build: evalframe report --from ragas ... --html (whole process) | {found['command']['seconds']:.2f} s, "
                 f"peak {found['command']['peak_mb']:.0f} MB | {f'< {build_target:g} s, < 300 MB' if build_target else '-'} |")
    loaded = found["loaded"]
    if loaded is not None:
        lines.append(f"| build from loaded results: compare_report(runs).save | {loaded['seconds']:.2f} s: the model "
                     f"{loaded['model']:.2f} s, the page {loaded['page']:.2f} s (process peak {loaded['peak_mb']:.0f} MB) "
                     f"| {f'< {build_target:g} s' if build_target else '-'} |")
    lines.append(f"| page size | {found['page_mb']:.2f} MB | {'< 5 MB' if build_target else '-'} |")
    if "usable" in found:
        u = found["usable"]
        total = (u["drawn"] + u["click"]) / 1000
        lines.append(f"| usable: first rows drawn after navigation + a click opening its drill-down | {u['drawn'] / 1000:.2f} s "
                     f"+ {u['click']:.0f} ms = {total:.2f} s ({u['rows']} rows, {u['nodes']:,} elements in the DOM) | "
                     f"< {usable_target:g} s |")
        for name, ms in found["changes"].items():
            lines.append(f"| {name} (slowest) | {ms:.0f} ms | < 100 ms |")
        if found["errors"]:
            lines.append(f"| errors in the page | {found['errors'][:3]} | none |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=5000, help="the main case's questions (0: none)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--big", default="100000x3", help="the large case, QUERIESxRUNS ('' or 0: none)")
    parser.add_argument("--no-browser", action="store_true", help="the builds and the size only")
    parser.add_argument("--big-loaded", action="store_true",
                        help="build the large case from loaded results too (by default from the files only)")
    args = parser.parse_args(argv)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"machine load before: {load}\n")
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        if args.queries:
            found = case(args.queries, args.runs, Path(folder) / "main", browser=not args.no_browser)
            print("\n".join(report(found, usable_target=1, build_target=3)), flush=True)
            failed |= bool(found.get("errors"))
        if args.big and args.big != "0":
            queries, runs = _size(args.big)
            found = case(queries, runs, Path(folder) / "big", browser=not args.no_browser, loaded=args.big_loaded)
            print("\n".join(report(found, usable_target=5, build_target=None)))
            failed |= bool(found.get("errors"))
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"machine load after: {load}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
