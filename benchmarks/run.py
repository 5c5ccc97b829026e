"""Benchmark runner: ``python benchmarks/run.py --queries 1000,10000,100000``.

For each query count, builds a synthetic result (benchmarks/synthetic.py: 10 documents and 5 + 5
answers per query) and prints, per operation, the median of ``--repeat`` runs and the peak RSS during
one run (absolute, and the increase over the RSS before it). ``calculate_metrics()`` and
``query_metrics`` (cold) are timed on a result freshly loaded from CSV before every run (the load is
not timed), and once more after ``clear_cache()`` (nothing prepared, not even the loader's coding of
the list columns, as for a result built in memory); the calls with other scopes or top-k are timed
after it, as a user's second call. ``load CSV (read_csv + literal_eval)`` is the plain-pandas
baseline. Before printing, the metrics of the in-memory, CSV-loaded and Parquet-loaded results are
checked to agree to 1e-12.
"""

from __future__ import annotations

import argparse
import ast
import math
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_result  # noqa: E402

from evalframe import EvaluationResult  # noqa: E402
from evalframe.columns import LIST_COLUMNS  # noqa: E402

warnings.simplefilter("ignore", UserWarning)  # the context/context scope warns by design


def _rss_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return math.nan


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS (Linux)
        return True
    except OSError:
        return False


def measure(fn, repeat: int, before=None, peak_run: bool = True) -> tuple[float, float, float]:
    """(median seconds, peak RSS MB during one run, increase over the RSS before it)."""
    times = []
    for _ in range(repeat):
        if before:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    if before:
        before()
    rss_before = _rss_mb("VmRSS")
    peak = math.nan
    if peak_run and _reset_peak():
        fn()
        peak = _rss_mb("VmHWM")
    return statistics.median(times), peak, peak - rss_before


def baseline_load(folder: Path) -> dict[str, pd.DataFrame]:
    """What a plain pandas user does: read_csv with ast.literal_eval converters on the list columns."""
    frames = {}
    for path in folder.glob("*.csv"):
        header = pd.read_csv(path, nrows=0).columns
        converters = {c: (lambda text: ast.literal_eval(text) if text else None) for c in header if c in LIST_COLUMNS}
        frames[path.stem] = pd.read_csv(path, converters=converters)
    return frames


def _agree(a: dict, b: dict) -> bool:
    return all(math.isclose(a[n][m], b[n][m], rel_tol=0, abs_tol=1e-12) or (math.isnan(a[n][m]) and math.isnan(b[n][m]))
               for n in a for m in a[n])


def run(n_queries: int, repeat: int, baseline: bool = True) -> list[tuple[str, float, float, float]]:
    result = make_result(n_queries)
    work = Path(tempfile.mkdtemp())
    csv_dir, parquet_dir = work / "csv", work / "parquet"
    rows = []

    def add(name, fn, before=None, times=repeat, peak_run=True):
        seconds, peak, extra = measure(fn, times, before, peak_run)
        rows.append((name, seconds, peak, extra))

    add("save CSV", lambda: result.save(csv_dir))
    add("load CSV", lambda: EvaluationResult.load(csv_dir))
    if baseline:
        add("load CSV (read_csv + literal_eval)", lambda: baseline_load(csv_dir), times=1, peak_run=False)  # slow: once
    add("save Parquet", lambda: result.save(parquet_dir, format="parquet"))
    add("load Parquet", lambda: EvaluationResult.load(parquet_dir))

    fresh = {}

    def load_fresh():  # a result just loaded from CSV, as a user has it (the load itself is not timed)
        fresh.clear()
        fresh["result"] = EvaluationResult.load(csv_dir)

    add("calculate_metrics() (cold)", lambda: fresh["result"].calculate_metrics(), before=load_fresh)
    add('query_metrics("Retriever") (cold)', lambda: fresh["result"].query_metrics("Retriever"), before=load_fresh)
    fresh.clear()
    loaded = EvaluationResult.load(csv_dir)
    add("calculate_metrics() after clear_cache() (no loader coding)", loaded.calculate_metrics, before=loaded.clear_cache)
    add("calculate_metrics(simulated_top_k_retriever=3)", lambda: loaded.calculate_metrics(simulated_top_k_retriever=3))
    add('calculate_metrics(document_scope="context", answer_scope="context")',
        lambda: loaded.calculate_metrics(document_scope="context", answer_scope="context"))
    add('wrong_examples("Reader", n=10) (cold)', lambda: loaded.wrong_examples("Reader", n=10), before=loaded.clear_cache)
    add("metrics_at_k(ks=(1, 3, 5, 10)) (cold)", lambda: loaded.metrics_at_k(ks=(1, 3, 5, 10)), before=loaded.clear_cache)

    reference = result.calculate_metrics(simulated_top_k_retriever=3)
    for name, other in (("CSV", loaded), ("Parquet", EvaluationResult.load(parquet_dir))):
        if not _agree(reference, other.calculate_metrics(simulated_top_k_retriever=3)):
            raise SystemExit(f"metrics of the {name}-loaded result differ from the in-memory result")
    memory = sum(frame.memory_usage(deep=True).sum() for frame in result.node_results.values()) / 2**20
    rows.append(("result memory_usage(deep=True), MB", memory, math.nan, math.nan))
    loaded.clear_cache()
    tracemalloc.start()  # numpy and pandas allocations are traced: the peak of what the call allocates
    loaded.calculate_metrics()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rows.append(("calculate_metrics() (cold) peak allocation, MB", peak, math.nan, math.nan))
    shutil.rmtree(work, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", default="1000,10000", help="comma-separated query counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per operation (the median is printed)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the slow read_csv + literal_eval baseline (for intermediate runs)")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.queries.split(",")]
    results = {}
    for n in counts:
        results[n] = run(n, args.repeat, baseline=not args.no_baseline)
        rows = results[n]
        print(f"\n{n:,} queries ({n * 20:,} rows), median of {args.repeat}")
        print(f"  {'operation':<70} {'seconds':>9} {'peak RSS MB':>12} {'+MB':>8}")
        for name, seconds, peak, extra in rows:
            if name.startswith(("result memory", "calculate_metrics() (cold) peak")):
                print(f"  {name:<70} {seconds:>9.0f}")
            elif math.isnan(peak):
                print(f"  {name:<70} {seconds:>9.3f} {'-':>12} {'-':>8}")
            else:
                print(f"  {name:<70} {seconds:>9.3f} {peak:>12.0f} {extra:>8.0f}")
        times = {name: seconds for name, seconds, _, _ in rows}
        if "load CSV (read_csv + literal_eval)" in times:
            print(f"  CSV load speed-up over read_csv + literal_eval: "
                  f"{times['load CSV (read_csv + literal_eval)'] / times['load CSV']:.1f}x")
        print("  metrics of the in-memory, CSV and Parquet results agree to 1e-12")
        print(f"  calculate_metrics peak allocation / result memory: "
              f"{times['calculate_metrics() (cold) peak allocation, MB'] / times['result memory_usage(deep=True), MB']:.2f}")
    for small, large in zip(counts, counts[1:]):
        print(f"\ngrowth {large:,} / {small:,} queries (time ratio):")
        before = {name: seconds for name, seconds, _, _ in results[small]}
        for name, seconds, _, _ in results[large]:
            if "MB" not in name and before.get(name):
                print(f"  {name:<70} {seconds / before[name]:>6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
