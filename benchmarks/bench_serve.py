"""evalframe serve's grid at scale: ``python benchmarks/bench_serve.py --queries 1000000``.

In a fresh Python process: a comparison's grid of ``--queries`` queries x ``--runs`` runs is built directly from
arrays (five Haystack retriever measures on the grids of values they take, ~5% not scored, ties everywhere; query
texts of insurance questions; a slice key of eight topics) — building the comparison model of a million queries
through ``make_result`` and ``compare_report`` would take far longer than the paging it serves, and is not what is
measured here. The grid is served by the real application (:func:`evalframe.present.serve.app.make_app`) on uvicorn
in a thread on a free port of 127.0.0.1, and an httpx client times each request, wall-clock, from the request sent to
the JSON parsed:

- ``cold``: each sort key's first page before any order is cached (the server computes it on that request), each
  filter's first page (text searches, show worse/better/changed, a slice, a measure);
- ``warm``: the same once every sort order is computed (what the server does in a thread as soon as a comparison is
  built, :meth:`evalframe.present.serve.paging.Pager.warm`), and pages deep in the list (offset 90% of the rows).

Prints one line per request and the largest of each group, with the machine's load (``os.getloadavg``); ``--json``
writes them too. The target (issue 40): any page under 300 ms at a million queries x 2 runs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

MEASURES = ("recall_single_hit", "recall_multi_hit", "mrr", "map", "ndcg")
TOPICS = ("auto", "home", "flood", "life", "travel", "pet", "health", "business")
WORDS = ("claim", "policy", "deductible", "premium", "coverage", "flood", "windscreen", "excess", "renewal", "theft",
         "liability", "storm", "cancel", "refund", "broker", "accident", "named", "driver", "roof", "water")


def make_grid(queries: int, runs: int = 2, seed: int = 0):
    """A comparison's grid (:class:`evalframe.report.drill.Grid`), built from arrays."""
    from evalframe.report.drill import Grid

    rng = np.random.default_rng(seed)
    values = {}
    for k, measure in enumerate(MEASURES):
        levels = np.array([0.0, 1.0]) if k < 2 else np.array([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 1.0])
        block = levels[rng.integers(0, len(levels), size=(queries, runs))]
        block[rng.random((queries, runs)) < 0.05] = np.nan
        values[measure] = block
    words = np.array(WORDS, dtype=object)
    picks = rng.integers(0, len(WORDS), size=(queries, 6))
    texts = [f"what does my {a} {b} cover if the {c} {d} {e} {f} #{i}" for i, (a, b, c, d, e, f) in
             enumerate(words[picks].tolist())]
    query = np.array(texts, dtype=object)
    ids = np.array([f"q{i:07d}" for i in range(queries)], dtype=object)
    topic = np.array(TOPICS, dtype=object)[rng.integers(0, len(TOPICS), size=queries)]
    return Grid("Retriever", ids, query, {"topic": topic}, values, {m: 1.0 for m in MEASURES},
                      np.arange(queries, dtype=np.int64))


def comparison_of(grid, runs: int):
    from evalframe.present.serve import views
    from evalframe.present.serve.app import Comparison

    names = tuple(f"run{r}" for r in range(runs))
    measures = tuple(views.MeasureRow(m, "higher", tuple(float(np.nanmean(grid.values[m][:, r])) for r in range(runs)),
                                      (), len(grid.ids)) for m in MEASURES)
    summary = views.NodeSummary("Retriever", False, "recall_single_hit", ("meta.topic",), measures)

    def drill(node: str, i: int) -> dict:
        return {"row": i, "id": str(grid.ids[i]), "query": str(grid.query[i]), "gold_answers": [],
                "gold_documents": [], "meta": {}, "runs": [{"name": n, "answers": [], "documents": []} for n in names]}

    return Comparison(names, (summary,), {"Retriever": grid}, drill, lambda node: [], "randomization")


def model_comparison(queries: int, runs: int):
    """The comparison evalframe serve builds of results (their model, grids and drill-down), of ``runs`` Haystack
    results of ``queries`` queries (each its own seed)."""
    import warnings

    import evalframe as ef
    from evalframe.present.serve.app import comparison_of_model
    from synthetic import make_result

    results = {f"run{r}": make_result(queries, seed=r) for r in range(runs)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return comparison_of_model(ef.compare_report(results, nodes=["Retriever"]).model)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(comparison) -> tuple[str, object]:
    """The real application on uvicorn in a thread; its base URL and the server."""
    import uvicorn

    from evalframe.present.serve import app as app_module

    viewer = app_module.Viewer(app_module.Sources(files=[("run0", ""), ("run1", "")]), warm=False)
    viewer.comparison = lambda tokens: comparison  # type: ignore[method-assign]  # the one built above, any runs named
    app = app_module.make_app(viewer)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server


def timed(client, url: str, params: dict) -> tuple[float, dict]:
    start = time.perf_counter()
    response = client.get(url, params=params)
    body = response.json()
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise SystemExit(f"{url} {params}: {response.status_code} {body}")
    return elapsed, body


def cases(runs: int, phase: str = "cold") -> tuple[list[dict], list[dict]]:
    """The pages asked: the sorts, and the filters (other texts, measures and labels once the orders are ready, so
    that no filter is answered from the masks the first phase kept)."""
    if phase == "warm":
        sorts = [{"sort": ""}, {"sort": "gain:map"}, {"sort": "gain:recall_multi_hit", "desc": "1"},
                 {"sort": "query", "desc": "1"}, {"sort": "slice:0", "desc": "1"}, {"sort": "value:mrr:0"},
                 {"sort": "delta:ndcg:1"}, {"sort": f"value:map:{runs - 1}", "desc": "1"}]
        filters = [{"text": "storm"}, {"text": "refund broker"}, {"text": "#123457"}, {"text": "zzz"},
                   {"show": "worse", "measure": "map"}, {"show": "better", "measure": "ndcg"},
                   {"show": "changed", "measure": "recall_multi_hit"}, {"slice.topic": "pet"},
                   {"measure": "map", "sort": "gain:map"},
                   {"show": "better", "measure": "ndcg", "sort": "gain:ndcg", "slice.topic": "home", "text": "roof"}]
        return sorts, filters
    sorts = [{"sort": ""}, {"sort": "gain:mrr"}, {"sort": "gain:ndcg", "desc": "1"}, {"sort": "query"},
             {"sort": "slice:0"}, {"sort": "value:map:1"}, {"sort": "delta:mrr:1", "desc": "1"},
             {"sort": f"value:recall_single_hit:{runs - 1}"}]
    filters = [{"text": "flood"}, {"text": "windscreen excess"}, {"text": "#987654"}, {"text": "no such words"},
               {"show": "worse"}, {"show": "better", "measure": "mrr"}, {"show": "changed"},
               {"slice.topic": "flood"}, {"measure": "ndcg", "sort": "gain:ndcg"},
               {"show": "worse", "measure": "mrr", "sort": "gain:mrr", "slice.topic": "auto", "text": "claim"}]
    return sorts, filters


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=100, help="rows per page (default 100, what grid.js asks: 200)")
    parser.add_argument("--json", type=Path, default=None, help="also write the timings here")
    parser.add_argument("--model", action="store_true",
                        help="build the comparison as evalframe serve does: two Haystack results of --queries queries "
                             "(benchmarks/synthetic.py make_result) through compare_report (20,000 queries: about 45 s "
                             "and 1.4 GB on a loaded two-core machine; a million would not fit)")
    args = parser.parse_args(argv)
    import httpx

    started = time.perf_counter()
    if args.model:
        comparison = model_comparison(args.queries, args.runs)
        grid = comparison.grids["Retriever"]
    else:
        grid = make_grid(args.queries, args.runs)
        comparison = comparison_of(grid, args.runs)
    built = time.perf_counter() - started
    base, server = serve(comparison)
    api = f"{base}/api/grid/page"
    runs = {"run": ["0", "1"], "node": "Retriever", "limit": str(args.limit)}
    results: dict[str, list[tuple[str, float, int]]] = {"cold": [], "warm": []}
    load = os.getloadavg()
    how = "comparison built by compare_report" if args.model else "grid built from arrays"
    print(f"bench_serve: {args.queries:,} queries x {args.runs} runs, {how} in {built:.1f} s; "
          f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    with httpx.Client(timeout=120) as client:
        elapsed, _ = timed(client, f"{base}/api/grid/info", {"run": ["0", "1"], "node": "Retriever"})
        print(f"  info {elapsed * 1000:8.1f} ms")
        for phase in ("cold", "warm"):
            if phase == "warm":
                start = time.perf_counter()
                comparison.warm()
                print(f"  warm: every sort order computed in {time.perf_counter() - start:.1f} s (in the server's "
                      "thread once a comparison is built)")
            sorts, filters = cases(args.runs, phase)
            if not grid.slices:  # a comparison without --by: no slice to sort or filter by
                sorts = [case for case in sorts if "slice" not in json.dumps(case)]
                filters = [case for case in filters if "slice" not in json.dumps(case)]
            for case in sorts + filters:
                elapsed, body = timed(client, api, {**runs, **case})
                results[phase].append((json.dumps(case), elapsed, body["total"]))
                print(f"  {phase} {elapsed * 1000:8.1f} ms  {body['total']:>9,} rows  {json.dumps(case)}")
            if phase == "warm":
                for case in sorts[:3]:
                    deep = {**runs, **case, "offset": str(int(args.queries * 0.9))}
                    elapsed, body = timed(client, api, deep)
                    results[phase].append((json.dumps({**case, "offset": deep["offset"]}), elapsed, body["total"]))
                    print(f"  {phase} {elapsed * 1000:8.1f} ms  {body['total']:>9,} rows  offset {deep['offset']} "
                          f"{json.dumps(case)}")
        elapsed, _ = timed(client, f"{base}/api/grid/detail", {"run": ["0", "1"], "node": "Retriever", "i": "123456"
                           if args.queries > 123456 else "0"})
        print(f"  detail {elapsed * 1000:8.1f} ms")
    server.should_exit = True
    summary = {phase: {"max_ms": max(t for _, t, _ in rows) * 1000, "median_ms": statistics.median(
        t for _, t, _ in rows) * 1000} for phase, rows in results.items()}
    for phase, numbers in summary.items():
        print(f"{phase}: the slowest page {numbers['max_ms']:.0f} ms, the median {numbers['median_ms']:.0f} ms")
    if args.json is not None:
        args.json.write_text(json.dumps({"queries": args.queries, "runs": args.runs, "load": load,
                                         "summary": summary, "pages": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
