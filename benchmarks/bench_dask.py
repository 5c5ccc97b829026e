"""A partitioned result evaluated on a Dask cluster: ``python benchmarks/bench_dask.py --rows 10M,30M,100M``.

For each size (rows; 20 rows per query as benchmarks/synthetic.py makes them: 10 retrieved documents and 5 + 5
answers), this

1. generates a partitioned result folder straight to disk, never in one process: on a ``distributed.LocalCluster``
   of 2 worker processes (1 thread each, ``memory_limit`` 3 GB), one task per partition makes that partition's
   queries with synthetic.py's row-making code (seeded by the partition number) and writes them with
   ``evalframe.io.partitioned.write_part`` inside ``evalframe.io.save_parts``. The client only hashes the query ids
   (``partitioned.partition_of_ids``, in chunks) to give each task the numbers of its queries, so every query
   lies in its partition by the mmh3 rule (docs/persistence.md#partitioned-results). A partition holds about
   ``--rows-per-partition`` rows (500k), so the sizes differ only in the number of partitions;
2. starts a fresh cluster of the same shape and times ``evalframe.dask.load(dir).calculate_metrics()`` on it;
3. at sizes up to ``--compare-max`` rows, loads the folder whole in this process and prints the largest
   difference between ``EvaluationResult.load(dir).calculate_metrics()`` and the cluster's values (must be <= 1e-12).

Memory is each worker process's peak RSS (VmHWM of ``/proc/self/status``, read with ``client.run`` on the fresh
cluster of each phase, so it covers that phase and the worker's start-up imports); a worker the nanny
restarted (over its memory limit) is reported, since its peak is then lost. Beside wall times, CPU time is printed:
the sum over the generating tasks (``time.thread_time``, each task on its worker thread), the worker processes'
user + system time during ``calculate_metrics`` (``getrusage`` before and after) and this process's. Other work on
the machine slows the wall times; the CPU times are what to compare then.

``--build 100000`` runs the build part instead: ``benchmarks/bench_dask_build.py`` (bench_flatten's workload as
sharded runs files, built on the cluster versus in one process; its own options after ``--``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import re
import shutil
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import numpy as np
from distributed import Client, LocalCluster

sys.path.insert(0, str(Path(__file__).resolve().parent))  # before the cluster starts: its workers import synthetic too

from process_usage import cpu_seconds, peak_rss_mb  # noqa: E402
from synthetic import ANSWERS_PER_QUERY, DOCS_PER_QUERY, T, make_frames, order_keys, query_ids  # noqa: E402

from evalframe import EvaluationResult  # noqa: E402
from evalframe.dask.client import run  # noqa: E402
from evalframe.io import partitioned, save_parts  # noqa: E402

ROWS_PER_QUERY = DOCS_PER_QUERY + 2 * ANSWERS_PER_QUERY
NODES = ("Retriever", "Reader")
MATCHING = {"context_matching_threshold": T}
HASH_CHUNK = 1_000_000  # query ids hashed at a time in the client (a million 32-character ids: ~100 MB)


def parse_rows(text: str) -> int:
    """``"10M"`` -> 10_000_000, ``"500k"`` -> 500_000, ``"2000"`` -> 2000."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"a row count such as 10M, 500k or 2000; got {text!r}")
    scale = {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()]
    return int(float(match.group(1)) * scale)


def label(rows: int) -> str:
    for scale, suffix in ((1_000_000, "M"), (1_000, "k")):
        if rows >= scale and rows % scale == 0:
            return f"{rows // scale}{suffix}"
    return str(rows)


@contextlib.contextmanager
def local_cluster(memory_limit: str) -> Iterator[Client]:
    """A fresh LocalCluster of 2 worker processes, 1 thread each, capped at ``memory_limit`` each."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


def worker_stats(client: Client) -> dict[str, tuple[int, float, float]]:
    """Per worker: (pid, peak RSS MB, user + system CPU seconds) of its process so far."""
    def stats() -> tuple[int, float, float]:
        return os.getpid(), peak_rss_mb(), cpu_seconds()

    return client.run(stats)


def partition_numbers(n_queries: int, partitions: int) -> list[np.ndarray]:
    """Per partition, the numbers (ascending) of the queries whose id hashes to it."""
    parts = np.empty(n_queries, dtype=np.int64)
    for start in range(0, n_queries, HASH_CHUNK):
        stop = min(start + HASH_CHUNK, n_queries)
        parts[start:stop] = partitioned.partition_of_ids(query_ids(np.arange(start, stop)), partitions)
    return partitioned.split_rows(parts, partitions)


def write_partition(staging: str, number: int, partitions: int, numbers: np.ndarray, n_queries: int,
                    seed: int) -> tuple[dict[str, dict[str, Any]], float]:
    """One task: make partition ``number``'s queries and write its file of every node; (entries, thread CPU s)."""
    start = time.thread_time()
    frames = make_frames(np.random.default_rng([seed, number]), numbers, n_queries)
    keys = order_keys(numbers, n_queries)  # the rows' positions in the whole result: a whole load is query-major
    entries = {}
    for node in NODES:
        frame = frames.pop(node)
        frame[partitioned.ROW_COLUMN] = keys[node]
        entries[node] = partitioned.write_part(staging, node, number, partitions, frame)
        del frame
    return entries, time.thread_time() - start


class Generated:
    """What :func:`generate` measured (a plain class: the tests load this script without registering its module)."""

    def __init__(self) -> None:
        self.seconds = math.nan  # wall, all of it (hashing, tasks, manifest and folder swap)
        self.hash_seconds = math.nan  # wall of the client's hashing of the query ids
        self.task_cpu = math.nan  # sum of the tasks' thread CPU seconds
        self.workers: dict[str, tuple[int, float, float]] = {}  # worker -> (pid, peak RSS MB, CPU s)


def generate(folder: Path, n_queries: int, partitions: int, client: Client | None, seed: int = 0) -> Generated:
    """Write a partitioned folder of ``n_queries`` synthetic queries, one task per partition on ``client``."""
    out = Generated()
    start = time.perf_counter()
    numbers = partition_numbers(n_queries, partitions)
    out.hash_seconds = time.perf_counter() - start

    def write_parts(staging: Path) -> dict[str, list[dict[str, Any]]]:
        tasks = [dask.delayed(write_partition, pure=False)(str(staging), number, partitions, numbers[number], n_queries, seed)
                 for number in range(partitions)]
        done = run(tasks, client)
        out.task_cpu = sum(cpu for _, cpu in done)
        return {node: [entries[node] for entries, _ in done] for node in NODES}

    save_parts(folder, partitions, write_parts, matching=MATCHING)
    out.seconds = time.perf_counter() - start
    return out


def in_memory_frames(n_queries: int, partitions: int, seed: int = 0) -> dict[str, Any]:
    """The frames :func:`generate` writes, made in this process (for tests at small sizes): node -> frame."""
    import pandas as pd

    pieces: dict[str, list[Any]] = {node: [] for node in NODES}
    for number, chosen in enumerate(partition_numbers(n_queries, partitions)):
        frames = make_frames(np.random.default_rng([seed, number]), chosen, n_queries)
        for node, keys in order_keys(chosen, n_queries).items():
            pieces[node].append(frames[node].assign(**{partitioned.ROW_COLUMN: keys}))
    whole = {}
    for node in NODES:
        frame = pd.concat([piece for piece in pieces[node] if len(piece)] or pieces[node][:1], ignore_index=True)
        whole[node] = frame.sort_values(partitioned.ROW_COLUMN, kind="stable").drop(columns=[partitioned.ROW_COLUMN])
        whole[node] = whole[node].reset_index(drop=True)
    return whole


def evaluate(folder: Path, client: Client) -> dict[str, dict[str, float]]:
    """What the benchmark times: the cluster's ``calculate_metrics`` of a partitioned folder."""
    import evalframe.dask

    return evalframe.dask.load(folder, client=client).calculate_metrics()


def largest_difference(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> float:
    """The largest absolute difference of two ``calculate_metrics`` dicts (inf when their keys differ; NaN == NaN)."""
    if a.keys() != b.keys() or any(a[node].keys() != b[node].keys() for node in a):
        return math.inf
    diffs = [0.0 if (math.isnan(a[n][m]) and math.isnan(b[n][m])) else abs(a[n][m] - b[n][m]) for n in a for m in a[n]]
    return max(diffs, default=0.0)


class Measured:
    """The figures of one size."""

    def __init__(self, rows: int, queries: int, partitions: int) -> None:
        self.rows, self.queries, self.partitions = rows, queries, partitions
        self.generated: Generated | None = None  # None: an existing folder was reused
        self.folder_mb = math.nan
        self.seconds = math.nan  # calculate_metrics wall
        self.worker_cpu = math.nan  # the workers' user + system CPU during calculate_metrics
        self.client_cpu = math.nan
        self.workers: dict[str, tuple[int, float, float]] = {}  # worker -> (pid, peak RSS MB, CPU s) after it
        self.restarted = False  # a worker process was replaced during calculate_metrics
        self.difference: float | None = None  # vs the in-memory path; None: not compared


def reusable(folder: Path, rows: int, partitions: int) -> bool:
    import json

    try:
        manifest = json.loads((folder / "evalframe.json").read_text())
    except (OSError, ValueError):
        return False
    return (manifest.get("partitioned", {}).get("partitions") == partitions
            and sum(node["rows"] for node in manifest.get("nodes", {}).values()) == rows)


def bench(rows: int, work: Path, rows_per_partition: int, memory_limit: str, compare_max: int, reuse: bool,
          seed: int = 0, generate_only: bool = False) -> Measured:
    n_queries = rows // ROWS_PER_QUERY
    partitions = max(1, round(rows / rows_per_partition))
    folder = work / f"rows-{label(rows)}"
    out = Measured(n_queries * ROWS_PER_QUERY, n_queries, partitions)
    if not (reuse and reusable(folder, out.rows, partitions)):
        with local_cluster(memory_limit) as client:
            out.generated = generate(folder, n_queries, partitions, client, seed)
            out.generated.workers = worker_stats(client)
    out.folder_mb = sum(path.stat().st_size for path in folder.iterdir()) / 2**20
    if generate_only:
        return out
    with local_cluster(memory_limit) as client:  # fresh: the workers' peaks are those of calculate_metrics alone
        before = worker_stats(client)
        client_cpu, start = time.process_time(), time.perf_counter()
        metrics = evaluate(folder, client)
        out.seconds = time.perf_counter() - start
        out.client_cpu = time.process_time() - client_cpu
        out.workers = worker_stats(client)
    out.restarted = sorted(pid for pid, _, _ in before.values()) != sorted(pid for pid, _, _ in out.workers.values())
    out.worker_cpu = sum(cpu for _, _, cpu in out.workers.values()) - sum(cpu for _, _, cpu in before.values())
    if out.rows <= compare_max:
        whole = EvaluationResult.load(folder)
        out.difference = largest_difference(whole.calculate_metrics(), metrics)
        del whole
    return out


def print_size(m: Measured) -> None:
    print(f"\n{m.rows:,} rows ({m.queries:,} queries x {ROWS_PER_QUERY}), {m.partitions} partitions, "
          f"{m.folder_mb:,.0f} MB on disk")
    g = m.generated
    if g is None:
        print("  generate: reused the folder of an earlier run (--reuse)")
    else:
        peaks = ", ".join(f"{peak:,.0f}" for _, peak, _ in g.workers.values())
        print(f"  generate: {g.seconds:.1f} s wall (hashing the ids in the client {g.hash_seconds:.1f} s), "
              f"tasks' CPU {g.task_cpu:.1f} s; peak worker RSS MB: {peaks}")
    if not m.workers:
        return
    peaks = ", ".join(f"{peak:,.0f}" for _, peak, _ in m.workers.values())
    print(f"  calculate_metrics: {m.seconds:.1f} s wall, worker CPU {m.worker_cpu:.1f} s, client CPU {m.client_cpu:.1f} s; "
          f"peak worker RSS MB: {peaks}")
    if m.restarted:
        print("  a worker was restarted during calculate_metrics (over its memory limit?): its peak RSS is lost")
    if m.difference is not None:
        verdict = "equal to 1e-12" if m.difference <= 1e-12 else "DIFFERENT"
        print(f"  vs EvaluationResult.load(dir).calculate_metrics(): largest difference {m.difference:.3g} ({verdict})")


def print_table(measured: list[Measured]) -> None:
    print("\n| rows | partitions | generate s | generate task CPU s | calculate_metrics wall s | worker CPU s "
          "| peak worker RSS MB | largest diff vs in memory |")
    print("|---:|---:|---:|---:|---:|---:|---|---|")
    for m in measured:
        g = m.generated
        generate_s = f"{g.seconds:.1f}" if g else "reused"
        task_cpu = f"{g.task_cpu:.1f}" if g else "-"
        peaks = " / ".join(f"{peak:,.0f}" for _, peak, _ in m.workers.values()) + (" (restarted)" if m.restarted else "")
        diff = "-" if m.difference is None else f"{m.difference:.3g}"
        print(f"| {label(m.rows)} | {m.partitions} | {generate_s} | {task_cpu} | {m.seconds:.1f} | {m.worker_cpu:.1f} "
              f"| {peaks} | {diff} |")
    if len(measured) > 1 and measured[0].workers:
        first, last = measured[0], measured[-1]
        print(f"\ngrowth {label(first.rows)} -> {label(last.rows)} rows ({last.rows / first.rows:.0f}x the rows): "
              f"calculate_metrics wall {last.seconds / first.seconds:.1f}x, worker CPU {last.worker_cpu / first.worker_cpu:.1f}x "
              "(target: wall <= 12x for 10M -> 100M)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="1M", help="comma-separated sizes in rows: 10M,30M,100M (default 1M, a smoke run)")
    parser.add_argument("--rows-per-partition", type=parse_rows, default=500_000, help="rows of one partition (500k)")
    parser.add_argument("--memory-limit", default="3GB", help="each worker's memory_limit (3GB)")
    parser.add_argument("--compare-max", type=parse_rows, default=10_000_000,
                        help="compare with the in-memory path at sizes up to this many rows (10M: ~10 GB in memory)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_dask"), help="where the folders go (/tmp/bench_dask)")
    parser.add_argument("--keep", action="store_true", help="keep the generated folders (deleted by default)")
    parser.add_argument("--reuse", action="store_true", help="use a folder of the same size kept by an earlier run")
    parser.add_argument("--generate-only", action="store_true", help="only write the folders (kept, for --reuse)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--build", type=int, default=None, metavar="QUERIES",
                        help="time building QUERIES queries of bench_flatten on the cluster vs one process instead "
                             "(benchmarks/bench_dask_build.py; its options after --)")
    args, rest = parser.parse_known_args(argv)
    if args.build is not None:
        import bench_dask_build

        return bench_dask_build.main(["--queries", str(args.build), *[a for a in rest if a != "--"]])
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    sizes = [parse_rows(text) for text in args.rows.split(",")]
    # each generating task's query numbers travel in the graph (8 bytes a query: 40 MB at 100M rows), by design
    warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
    measured = []
    for rows in sizes:
        m = bench(rows, args.work, args.rows_per_partition, args.memory_limit, args.compare_max, args.reuse, args.seed,
                  args.generate_only)
        print_size(m)
        measured.append(m)
        if not (args.keep or args.generate_only):
            shutil.rmtree(args.work / f"rows-{label(rows)}", ignore_errors=True)
    print_table(measured)
    return 1 if any(m.difference is not None and not m.difference <= 1e-12 for m in measured) else 0


if __name__ == "__main__":
    sys.exit(main())
