"""evalframe, ranx and pytrec_eval side by side on the same TREC files: ``python benchmarks/vs_peers.py``.

Writes a random run (``--queries`` queries x each of ``--depth`` documents; by default 10,000 x 100 and 10,000 x
1,000, i.e. 1M and 10M rows) and its qrels twice, binary (grades 0/1) and graded (0..3) on the same judged
documents, then evaluates every (depth, qrels) case with each tool in a fresh Python process (a worker mode of this
script), which reports:

* (a) load: the files into the tool's own form. evalframe: ``EvaluationResult.from_trec(run, qrels)``; ranx:
  ``Qrels.from_file`` + ``Run.from_file``; pytrec_eval: ``parse_qrel`` / ``parse_run`` on the open files (its
  documented way) + ``RelevanceEvaluator(qrels, measures)``.
* (b) evaluate: RR, AP, nDCG, P@10, R@100 and Success@10 (ranx: mrr, map, ndcg, precision@10, recall@100,
  hit_rate@10; pytrec_eval: recip_rank, map, ndcg, P_10, recall_100, success_10), their means over the queries.
  evalframe: the first ``trec_metrics`` call on the freshly loaded result; pytrec_eval: ``evaluate`` plus the means
  of its per-query dicts; ranx: ``evaluate`` called twice, the warm second call is the evaluation time compared and
  the first is printed beside it ("first call").
* ranx's numba JIT compile, apart: before (a), ranx loads and evaluates the files' first two queries (copied to two
  small files), which compiles its loaders and kernels into an empty numba cache (``--ranx-jit cached``: into a cache
  kept in ``--out``, so only the first ranx process compiles and the others load it); it is in neither (a) nor (b).
* the process CPU time (``time.process_time``, every thread) of (a) and (b) beside their wall times: on a machine
  other processes share, the CPU time moves less than the wall time.
* (c) the peak RSS of the process (``VmHWM`` of ``/proc/self/status``; not ``getrusage``'s ``ru_maxrss``, which on
  Linux keeps the peak of the parent that started the process), and its RSS after the imports.

``--repeat N`` runs N fresh processes per tool and case, the tools in turns, and prints the median of each figure
(the machine's speed drifts, and other processes may share its CPUs: the load average is printed). It prints a table
per case, the ratios evalframe / peer (below 1: evalframe is faster or smaller), the growth of
each tool's times from the smallest to the largest depth, and how far the tools' values are apart: the means and
every per-query value (pytrec_eval must agree to 1e-12, or the script exits 1; ranx is compared to 1e-9 and any
difference is reported with its size: ranx orders tied scores its own way, trec_eval by document id descending).

Scores have 4 decimals (ties happen, about 1.7 tied pairs per query at 1,000 documents); document ids are drawn
from a corpus of 8.8M documents (MS MARCO passage's size), distinct within a query; every query has 20 judged
documents, 10 of them retrieved at random ranks. ranx and pytrec_eval are benchmark-only dependencies
(``pip install -e '.[bench]'``); ``--tools`` leaves any of the three out.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("evalframe", "ranx", "pytrec_eval")
MEASURES = ("RR", "AP", "nDCG", "P@10", "R@100", "Success@10")
#: each tool's name of each measure, in MEASURES order
NAMES = {
    "evalframe": MEASURES,
    "ranx": ("mrr", "map", "ndcg", "precision@10", "recall@100", "hit_rate@10"),
    "pytrec_eval": ("recip_rank", "map", "ndcg", "P_10", "recall_100", "success_10"),
}
CORPUS = 8_841_823
JUDGED_RETRIEVED = 10
JUDGED_OTHER = 10
TOLERANCE = {"pytrec_eval": 1e-12, "ranx": 1e-9}


# -- the files --------------------------------------------------------------------------------------------------------

def _distinct_ids(rng: np.random.Generator, n_queries: int, per_query: int, corpus: int) -> np.ndarray:
    """``n_queries x per_query`` ids in ``[0, corpus)``, distinct within each row: a random start plus growing gaps."""
    gaps = rng.integers(1, max(2, corpus // (2 * per_query)), size=(n_queries, per_query))
    ids = (rng.integers(0, corpus, size=(n_queries, 1)) + np.cumsum(gaps, axis=1)) % corpus
    return ids[:, rng.permutation(per_query)]  # the order within a row carries nothing


def _write_lines(path: Path, columns: list[np.ndarray]) -> None:
    """One line per row, the columns (string arrays) joined by spaces, written in chunks of 1M lines."""
    with open(path, "w", encoding="ascii") as f:
        n = len(columns[0])
        for start in range(0, n, 1_000_000):
            parts = [np.asarray(c[start:start + 1_000_000]) for c in columns]
            line = parts[0]
            for part in parts[1:]:
                line = np.char.add(np.char.add(line, " "), part)
            f.write("\n".join(line.tolist()))
            f.write("\n")


def write_files(folder: Path, n_queries: int, depth: int, seed: int = 0) -> tuple[Path, Path, Path]:
    """Write ``run.txt`` (n_queries x depth) and ``qrels-binary.txt`` / ``qrels-graded.txt`` (20 judged per query)."""
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(n_queries).astype(str))
    # run documents are even ids of the corpus, judged documents the run did not retrieve odd ones: never both
    docs = 2 * _distinct_ids(rng, n_queries, depth, CORPUS // 2)
    scores = np.round(rng.random((n_queries, depth)) * 30, 4)
    order = np.argsort(-scores, axis=1, kind="stable")
    docs = np.take_along_axis(docs, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    folder.mkdir(parents=True, exist_ok=True)
    run_path = folder / f"run-{n_queries}x{depth}.txt"
    _write_lines(run_path, [np.repeat(qids, depth), np.full(n_queries * depth, "Q0"),
                            np.char.add("d", docs.ravel().astype(str)),
                            np.tile(np.arange(1, depth + 1), n_queries).astype(str),
                            np.char.mod("%.4f", scores.ravel()), np.full(n_queries * depth, "bench")])
    judged_in_run = min(JUDGED_RETRIEVED, depth)
    at = rng.random((n_queries, depth)).argsort(axis=1)[:, :judged_in_run]
    judged = np.concatenate([np.take_along_axis(docs, at, axis=1),
                             2 * _distinct_ids(rng, n_queries, JUDGED_OTHER, CORPUS // 2) + 1], axis=1)
    per_query = judged.shape[1]
    grades = rng.choice(4, p=[0.4, 0.3, 0.2, 0.1], size=judged.shape)
    qrels = {}
    for kind, values in (("binary", (grades > 0).astype(int)), ("graded", grades)):
        qrels[kind] = folder / f"qrels-{n_queries}x{depth}-{kind}.txt"
        _write_lines(qrels[kind], [np.repeat(qids, per_query), np.full(judged.size, "0"),
                                   np.char.add("d", judged.ravel().astype(str)), values.ravel().astype(str)])
    return run_path, qrels["binary"], qrels["graded"]


# -- the workers (one fresh process each) -------------------------------------------------------------------------------

def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb() -> float:
    return _status_mb("VmRSS")


def _peak_rss_mb() -> float:
    """The process's peak RSS: VmHWM where /proc has it (getrusage's ru_maxrss keeps the parent's peak across exec)."""
    peak = _status_mb("VmHWM")
    return peak if peak == peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def _work_evalframe(run_path: str, qrels_path: str, out: str) -> dict:
    start = time.perf_counter()
    from evalframe import EvaluationResult
    imported = time.perf_counter()
    rss_imported = _rss_mb()
    cpu_start = time.process_time()
    result = EvaluationResult.from_trec(run_path, qrels_path, progress=False)
    loaded, cpu_loaded = time.perf_counter(), time.process_time()
    means = result.trec_metrics(list(MEASURES))
    evaluated, cpu_evaluated = time.perf_counter(), time.process_time()
    peak = _peak_rss_mb()
    table = result.trec_query_metrics(list(MEASURES))  # after the timings: for the comparison only
    return {"import": imported - start, "rss_imported": rss_imported, "load": loaded - imported,
            "evaluate": evaluated - loaded, "load_cpu": cpu_loaded - cpu_start, "evaluate_cpu": cpu_evaluated - cpu_loaded,
            "peak_rss": peak, "means": [float(means[m]) for m in MEASURES],
            "per_query": {str(q): [float(v) for v in row] for q, row in zip(table.index, table[list(MEASURES)].to_numpy())}}


def _head(path: str, to: Path, n_queries: int = 2) -> Path:
    """Copy the lines of the first ``n_queries`` query ids of a TREC file (grouped by query) to ``to``."""
    seen: list[str] = []
    with open(path, encoding="utf-8") as f, open(to, "w", encoding="utf-8") as out:
        for line in f:
            qid = line.split(maxsplit=1)[0]
            if qid not in seen:
                if len(seen) == n_queries:
                    break
                seen.append(qid)
            out.write(line)
    return to


def _work_ranx(run_path: str, qrels_path: str, out: str) -> dict:
    start = time.perf_counter()
    import warnings

    from ranx import Qrels, Run, evaluate
    imported = time.perf_counter()
    rss_imported = _rss_mb()
    from numba.core.errors import NumbaTypeSafetyWarning

    warnings.simplefilter("ignore", NumbaTypeSafetyWarning)  # an uint64 -> int64 cast inside ranx's reciprocal rank
    names = list(NAMES["ranx"])
    # numba compiles ranx's loaders and kernels at their first call (per argument types): the files' first two queries,
    # loaded and evaluated the same way, pay it here
    toy_run = _head(run_path, Path(out).with_suffix(".toy-run.txt"))
    toy_qrels = _head(qrels_path, Path(out).with_suffix(".toy-qrels.txt"))
    evaluate(Qrels.from_file(str(toy_qrels), kind="trec"), Run.from_file(str(toy_run), kind="trec"), names)
    compiled, cpu_compiled = time.perf_counter(), time.process_time()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    loaded, cpu_loaded = time.perf_counter(), time.process_time()
    evaluate(qrels, run, names)
    first, cpu_first = time.perf_counter(), time.process_time()
    means = evaluate(qrels, run, names)
    warm, cpu_warm = time.perf_counter(), time.process_time()
    peak = _peak_rss_mb()
    scores = {name: dict(run.scores[name]) for name in names}
    return {"import": imported - start, "rss_imported": rss_imported, "jit": compiled - imported, "load": loaded - compiled,
            "first_evaluate": first - loaded, "evaluate": warm - first, "peak_rss": peak,
            "load_cpu": cpu_loaded - cpu_compiled, "evaluate_cpu": cpu_warm - cpu_first,
            "means": [float(means[name]) for name in names],
            "per_query": {str(q): [float(scores[name][q]) for name in names] for q in scores[names[0]]}}


def _work_pytrec_eval(run_path: str, qrels_path: str, out: str) -> dict:
    start = time.perf_counter()
    import pytrec_eval
    imported = time.perf_counter()
    rss_imported = _rss_mb()
    names = list(NAMES["pytrec_eval"])
    cpu_start = time.process_time()
    with open(qrels_path, encoding="utf-8") as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path, encoding="utf-8") as f:
        run = pytrec_eval.parse_run(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names))
    loaded, cpu_loaded = time.perf_counter(), time.process_time()
    per_query = evaluator.evaluate(run)
    means = [sum(values[name] for values in per_query.values()) / len(per_query) for name in names]
    evaluated, cpu_evaluated = time.perf_counter(), time.process_time()
    peak = _peak_rss_mb()
    return {"import": imported - start, "rss_imported": rss_imported, "load": loaded - imported,
            "evaluate": evaluated - loaded, "load_cpu": cpu_loaded - cpu_start, "evaluate_cpu": cpu_evaluated - cpu_loaded,
            "peak_rss": peak, "means": means,
            "per_query": {q: [values[name] for name in names] for q, values in per_query.items()}}


WORKERS = {"evalframe": _work_evalframe, "ranx": _work_ranx, "pytrec_eval": _work_pytrec_eval}


def _median(runs: list[dict]) -> dict:
    """The median of each figure over fresh processes of one tool; the values (identical in each) from the first."""
    for run in runs:
        run["total"] = run["load"] + run["evaluate"]
    figures = dict(runs[0])
    for key in ("import", "rss_imported", "jit", "load", "first_evaluate", "evaluate", "total", "peak_rss", "load_cpu",
                "evaluate_cpu"):
        if key in figures:
            figures[key] = float(np.median([run[key] for run in runs]))
    if any(run["means"] != figures["means"] for run in runs):
        raise SystemExit("a tool gave different means in two processes on the same files")
    return figures


def _run_worker(tool: str, run_path: Path, qrels_path: Path, out: Path, ranx_jit: str) -> dict:
    """Run one tool in a fresh process; its figures come back through a JSON file."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    cache = None
    if tool == "ranx" and ranx_jit == "cold":
        cache = tempfile.mkdtemp(prefix="numba-cache-")  # empty: the first call compiles
        env["NUMBA_CACHE_DIR"] = cache
    elif tool == "ranx":
        env["NUMBA_CACHE_DIR"] = str(out.parent / "numba-cache")  # kept: only the script's first ranx process compiles
    try:
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", tool, str(run_path), str(qrels_path),
                        str(out)], check=True, env=env)
    finally:
        if cache is not None:
            subprocess.run(["rm", "-rf", cache], check=False)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


# -- the report ----------------------------------------------------------------------------------------------------------

def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "-"


def _print_case(title: str, figures: dict[str, dict]) -> None:
    print(f"\n### {title}\n")
    print("| tool | import s | JIT compile s | (a) load s | (b) evaluate s | first call s | (a)+(b) s | (a) CPU s "
          "| (b) CPU s | RSS after import MB | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tool, f in figures.items():
        jit = f"{f['jit']:.2f}" if "jit" in f else ""
        first = f"{f['first_evaluate']:.3f}" if "first_evaluate" in f else ""
        cpu = [f"{f[key]:.3f}" if key in f else "" for key in ("load_cpu", "evaluate_cpu")]
        print(f"| {tool} | {f['import']:.2f} | {jit} | {f['load']:.3f} | {f['evaluate']:.3f} | {first} "
              f"| {f['total']:.3f} | {cpu[0]} | {cpu[1]} | {f['rss_imported']:,.0f} | {f['peak_rss']:,.0f} |")
    if "evalframe" in figures and len(figures) > 1:
        print("\n| evalframe / peer | (a) load | (b) evaluate | (a)+(b) | peak RSS |")
        print("|---|---|---|---|---|")
        ours = figures["evalframe"]
        for tool, f in figures.items():
            if tool == "evalframe":
                continue
            both = _ratio(ours['total'], f['total'])
            print(f"| / {tool} | {_ratio(ours['load'], f['load'])} | {_ratio(ours['evaluate'], f['evaluate'])} "
                  f"| {both} | {_ratio(ours['peak_rss'], f['peak_rss'])} |")


def _agreement(figures: dict[str, dict]) -> bool:
    """Print how far each peer's means and per-query values are from evalframe's; False if pytrec_eval's differ."""
    if "evalframe" not in figures:
        return True
    ok = True
    ours = figures["evalframe"]
    for tool, f in figures.items():
        if tool == "evalframe":
            continue
        tolerance = TOLERANCE[tool]
        mean_gaps = {m: abs(a - b) for m, a, b in zip(MEASURES, ours["means"], f["means"])}
        queries_ours, queries_peer = set(ours["per_query"]), set(f["per_query"])
        compared = differ = 0
        worst = {m: 0.0 for m in MEASURES}
        differ_by = {m: 0 for m in MEASURES}
        for q in queries_ours & queries_peer:
            for m, a, b in zip(MEASURES, ours["per_query"][q], f["per_query"][q]):
                compared += 1
                gap = abs(a - b)
                worst[m] = max(worst[m], gap)
                if gap > tolerance:
                    differ += 1
                    differ_by[m] += 1
        means_ok = all(gap <= tolerance for gap in mean_gaps.values())
        same_queries = queries_ours == queries_peer
        print(f"\n{tool} vs evalframe (tolerance {tolerance:.0e}): means {'agree' if means_ok else 'DIFFER'} "
              f"(largest gap {max(mean_gaps.values()):.1e}); per-query values {compared - differ:,} of {compared:,} agree"
              + ("" if same_queries else f"; queries: {len(queries_ours):,} evalframe, {len(queries_peer):,} {tool}"))
        if differ or not means_ok:
            for m in MEASURES:
                if differ_by[m] or mean_gaps[m] > tolerance:
                    print(f"  {m}: mean gap {mean_gaps[m]:.2e}, {differ_by[m]:,} queries differ, largest {worst[m]:.2e}")
        if tool == "pytrec_eval" and (differ or not means_ok or not same_queries):
            ok = False
    return ok


def _print_growth(cases: dict[tuple[int, str], dict[str, dict]], depths: list[int], kinds: list[str]) -> None:
    small, large = min(depths), max(depths)
    if small == large:
        return
    print(f"\n### Growth from {small} to {large} documents per query ({large / small:g}x the rows): "
          f"figure at {large} / figure at {small}\n")
    print("| tool | qrels | (a) load | (b) evaluate | (a)+(b) | peak RSS |")
    print("|---|---|---|---|---|---|")
    for kind in kinds:
        for tool, a in cases[(small, kind)].items():
            b = cases[(large, kind)][tool]
            print(f"| {tool} | {kind} | {_ratio(b['load'], a['load'])} | {_ratio(b['evaluate'], a['evaluate'])} "
                  f"| {_ratio(b['total'], a['total'])} | {_ratio(b['peak_rss'], a['peak_rss'])} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", default="100,1000", help="documents per query, comma-separated (default 100,1000)")
    parser.add_argument("--qrels", default="binary,graded", help="binary, graded or both (default)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, of {', '.join(TOOLS)} (default all)")
    parser.add_argument("--ranx-jit", choices=("cold", "cached"), default="cold",
                        help="cold (default): each ranx process starts with an empty numba cache, so it compiles; "
                             "cached: a numba cache in --out kept between the processes, as a user's after a first use")
    parser.add_argument("--repeat", type=int, default=1,
                        help="fresh processes per tool and case, run in turns; the tables give the median of each figure")
    parser.add_argument("--out", type=Path, default=None, help="folder for the files (default: a temporary folder)")
    parser.add_argument("--worker", nargs=4, metavar=("TOOL", "RUN", "QRELS", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        tool, run_path, qrels_path, out = args.worker
        figures = WORKERS[tool](run_path, qrels_path, out)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(figures, f)
        return 0

    depths = [int(d) for d in args.depth.split(",")]
    kinds = [k.strip() for k in args.qrels.split(",")]
    tools = [t.strip() for t in args.tools.split(",")]
    for name, values, allowed in (("--qrels", kinds, ("binary", "graded")), ("--tools", tools, TOOLS)):
        if not values or any(v not in allowed for v in values):
            parser.error(f"{name} takes a comma-separated list of {', '.join(allowed)}; got {','.join(values)!r}")
    # each tool runs in a worker process: a missing one would fail there, with a traceback, after the files are written
    missing = [tool for tool in tools if find_spec(tool) is None]
    if missing:
        kept = ",".join(tool for tool in tools if tool not in missing) or "evalframe"
        parser.error(f"--tools {','.join(tools)}: {' and '.join(missing)} not installed in this Python. Install the "
                     f"benchmark's peers with pip install -e '.[bench]' (ranx, pytrec_eval-terrier), or leave them "
                     f"out: --tools {kept}")
    folder = args.out or Path(tempfile.mkdtemp(prefix="vs-peers-"))
    print(f"evalframe vs ranx vs pytrec_eval: {args.queries:,} queries x {', '.join(map(str, depths))} documents, "
          f"{', '.join(kinds)} qrels; files in {folder}; ranx JIT {args.ranx_jit}; "
          f"median of {args.repeat} fresh process(es) per tool")
    versions = {}
    for tool in tools:
        try:
            versions[tool] = metadata.version("pytrec_eval-terrier" if tool == "pytrec_eval" else tool)
        except Exception:  # noqa: BLE001 - a version is only printed
            versions[tool] = "?"
    print("versions: " + ", ".join(f"{tool} {version}" for tool, version in versions.items())
          + f"; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (other processes share them)")
    cases: dict[tuple[int, str], dict[str, dict]] = {}
    ok = True
    for depth in depths:
        start = time.perf_counter()
        run_path, binary, graded = write_files(folder, args.queries, depth)
        print(f"\n(files for {depth} documents per query written in {time.perf_counter() - start:.1f} s)")
        for kind in kinds:
            qrels_path = binary if kind == "binary" else graded
            repeats: dict[str, list[dict]] = {tool: [] for tool in tools}
            for i in range(args.repeat):  # the tools in turns, so a drift of the machine's speed touches each alike
                for tool in tools:
                    out = folder / f"{tool}-{depth}-{kind}-{i}.json"
                    repeats[tool].append(_run_worker(tool, run_path, qrels_path, out, args.ranx_jit))
            figures = {tool: _median(runs) for tool, runs in repeats.items()}
            cases[(depth, kind)] = figures
            _print_case(f"{args.queries:,} queries x {depth:,} documents ({args.queries * depth:,} rows), {kind} qrels", figures)
            ok = _agreement(figures) and ok
    _print_growth(cases, depths, kinds)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
