"""compare's statistics at scale: ``python benchmarks/bench_compare.py --queries 1000 --runs 10 --repeat 3``.

Generates ``--runs`` per-query tables of ``--queries`` queries with ten trec_eval measures (five continuous, AP-like;
three on a grid of eleven values, P@k-like; two binary, Success-like; each run a little better than the previous)
and times, each in a fresh Python process (so that no cache nor warmed-up generator of one case helps the next):

- ``compare(runs[0], ..., runs[-1], correction=c)``: each run compared with the first (``runs - 1`` x 10 rows), once
  per correction (holm, bonferroni, holm-sidak, fdr_bh, fdr_by, none), every test's p-value computed in each call;
- the same with ``pairs="all"`` (every pair of runs: 45 x 10 = 450 rows for 10 runs, the paper table's comparison),
  once per correction, and once each with the tests of all pairs (``test="tukey"``, ``"randomized-tukey"``);
- the engine alone (:func:`evalframe.analysis.compare.paired_statistics_many`) on every pair of runs x 10 measures
  (45 x 10 = 450 rows for 10 runs), as compare of all pairs needs it.

It prints, per case, the median of ``--repeat`` timings, wall-clock and CPU (the process's, all its threads: on a
shared machine the wall-clock time grows with the others' load, the CPU time much less), the process start and the
table generation not timed, and the largest wall-clock time over the corrections.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

CONTINUOUS = ["AP", "nDCG", "nDCG@10", "RR", "Rprec"]
GRID = ["P@5", "P@10", "P@20"]
BINARY = ["Success@1", "Success@10"]
MEASURES = CONTINUOUS + GRID + BINARY
CORRECTIONS = ["holm", "bonferroni", "holm-sidak", "fdr_bh", "fdr_by", "none"]


def make_runs(runs: int, queries: int, seed: int = 0) -> list[pd.DataFrame]:
    """``runs`` per-query tables (indexed by multilabel_id) of :data:`MEASURES`, run i slightly better than run i-1."""
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(queries)], name="multilabel_id")
    difficulty = rng.beta(2, 3, size=queries)  # shared by the runs: their values are paired
    tables = []
    for position in range(runs):
        skill = np.clip(difficulty + 0.01 * position + rng.normal(0, 0.15, size=queries), 0, 1)
        columns = {m: np.clip(skill + rng.normal(0, 0.05, size=queries), 0, 1) for m in CONTINUOUS}
        columns.update({m: np.round(np.clip(skill + rng.normal(0, 0.1, size=queries), 0, 1) * 10) / 10 for m in GRID})
        columns.update({m: (skill + rng.normal(0, 0.2, size=queries) > 0.5).astype(np.float64) for m in BINARY})
        tables.append(pd.DataFrame(columns, index=index))
    return tables


def child(case: str, runs: int, queries: int, repeat: int) -> list[tuple[float, float]]:
    """Timings of one case, in this (fresh) process: (wall seconds, CPU seconds of the process, all threads)."""
    import warnings

    from evalframe import compare
    from evalframe.analysis.compare import paired_differences, paired_statistics_many, directions_of

    warnings.simplefilter("ignore")
    tables = make_runs(runs, queries)
    times = []
    if case == "engine":
        directions = directions_of(MEASURES, {})
        items = [paired_differences(tables[i][m], tables[j][m], directions[m])
                 for i in range(runs) for j in range(i + 1, runs) for m in MEASURES]
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            rows = paired_statistics_many(items, seed=0, rounds=10_000, confidence=0.95)
            times.append((time.perf_counter() - start, time.process_time() - cpu))
        assert len(rows) == len(items)
    else:
        pairs, correction, test = case.split(":")
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            table = compare(*tables, metrics=MEASURES, correction=correction, pairs=pairs, test=test)
            times.append((time.perf_counter() - start, time.process_time() - cpu))
        assert len(table) == (runs - 1 if pairs == "first" else runs * (runs - 1) // 2) * len(MEASURES)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.runs, args.queries, args.repeat)))
        return 0
    pairs = args.runs * (args.runs - 1) // 2 * len(MEASURES)
    compared = (args.runs - 1) * len(MEASURES)
    print(f"{args.runs} runs x {len(MEASURES)} measures x {args.queries:,} queries, 10,000 rounds, median of "
          f"{args.repeat} (each case in a fresh process)")
    print("| case | rows | seconds | CPU seconds |")
    print("|---|---:|---:|---:|")
    worst = {"first": 0.0, "all": 0.0}
    cases = [f"{pairs}:{correction}:randomization" for pairs in ("first", "all") for correction in CORRECTIONS]
    for case in [*cases, "engine", "all:holm:tukey", "all:holm:randomized-tukey"]:
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", case, "--runs", str(args.runs),
                              "--queries", str(args.queries), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True).stdout
        timings = json.loads(out.strip().splitlines()[-1])
        seconds = statistics.median(wall for wall, _ in timings)
        cpu = statistics.median(used for _, used in timings)
        if case == "engine":
            print(f"| engine (paired_statistics_many), all pairs | {pairs} | {seconds:.3f} | {cpu:.3f} |")
        else:
            pairs_, correction, test = case.split(":")
            if test == "randomization":
                worst[pairs_] = max(worst[pairs_], seconds)
            print(f"| compare(pairs={pairs_!r}, correction={correction!r}, test={test!r}) | "
                  f"{compared if pairs_ == 'first' else pairs} | {seconds:.3f} | {cpu:.3f} |")
    print(f"slowest compare over the corrections: {worst['first']:.3f} s (each run with the first), "
          f"{worst['all']:.3f} s (all pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
