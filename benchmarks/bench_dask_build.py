"""Building a result on a Dask cluster vs in one process: ``python benchmarks/bench_dask_build.py [--queries 100000]``.

The workload is ``bench_flatten``'s (SQuAD-shaped: 10 retrieved documents and 5 answers per query), written as
``--shards`` JSON Lines runs files. Two ways to the same partitioned folder are timed, alternately:

* one process: ``read_runs`` of the whole file, ``EvaluationResult.from_runs``, ``save(format="parquet",
  partitions=N)``;
* the cluster: ``evalframe.dask.from_runs`` of the shards on a ``LocalCluster`` of ``--workers`` worker processes
  (one thread each, ``--memory-limit`` each).

Prints wall and CPU seconds (the client process's, and the workers' summed from their own clocks) and peak memory
(the process's high-water mark; the workers' largest resident size, sampled), and checks that both folders load
to equal frames.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_flatten import workload  # noqa: E402
from process_usage import cpu_seconds, peak_rss_mb  # noqa: E402


def runs_lines(n_queries: int, seed: int = 0) -> list[str]:
    """bench_flatten's workload as runs file lines (docs/runs-format.md), one query per line."""
    labels, outputs = workload(n_queries, seed)
    documents, answers = outputs["Retriever"]["documents"], outputs["Reader"]["answers"]
    return [json.dumps({"query": ml.query, "labels": [label.to_dict() for label in ml.labels],
                        "nodes": {"Retriever": {"documents": [d.to_dict() for d in documents[i]]},
                                  "Reader": {"answers": [a.to_dict() for a in answers[i]]}}})
            for i, ml in enumerate(labels)]


def write_shards(n_queries: int, folder: Path, shards: int, seed: int = 0) -> tuple[Path, list[Path]]:
    """Write the workload as one runs file (``all.jsonl``) and as ``shards`` consecutive pieces of it."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = runs_lines(n_queries, seed)
    whole = folder / "all.jsonl"
    whole.write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths = []
    size = -(-len(lines) // shards)
    for shard in range(shards):
        path = folder / f"runs-{shard:04d}.jsonl"
        path.write_text("".join(line + "\n" for line in lines[shard * size:(shard + 1) * size]), encoding="utf-8")
        paths.append(path)
    return whole, paths


def in_one_process(whole: Path, out: Path, partitions: int) -> dict[str, float]:
    from evalframe import EvaluationResult
    from evalframe.sources.runs import read_runs

    start, cpu = time.perf_counter(), cpu_seconds()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = EvaluationResult.from_runs(*read_runs(whole, progress=False), progress=False)
    result.save(out, format="parquet", partitions=partitions)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the scoring pool's processes
    pool = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    return {"wall": time.perf_counter() - start, "cpu": cpu_seconds() - cpu + pool,
            "peak_mb": peak_rss_mb()}


def on_cluster(client: Any, shards: list[Path], out: Path, partitions: int) -> dict[str, float]:
    from evalframe.dask import from_runs

    peak: dict[str, float] = {}
    done = threading.Event()

    def sample() -> None:  # the workers' resident memory, every 0.2 s
        while not done.is_set():
            for worker, info in client.scheduler_info()["workers"].items():
                peak[worker] = max(peak.get(worker, 0.0), info["metrics"]["memory"] / 2**20)
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    worker_cpu = client.run(cpu_seconds)
    start, cpu = time.perf_counter(), cpu_seconds()
    sampler.start()
    try:
        from_runs([str(p) for p in shards], out, partitions=partitions, client=client)
    finally:
        done.set()
        sampler.join()
    wall = time.perf_counter() - start
    used = sum(client.run(cpu_seconds)[w] - worker_cpu[w] for w in worker_cpu)
    return {"wall": wall, "cpu": cpu_seconds() - cpu + used, "client_cpu": cpu_seconds() - cpu,
            "peak_mb": max(peak.values(), default=0.0),
            "client_peak_mb": peak_rss_mb()}


def _phase(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    """One measurement, in this (fresh) process, so that its peak memory is its own."""
    import distributed

    if args.phase == "one":
        return in_one_process(folder / "runs" / "all.jsonl", folder / "one", args.partitions)
    shards = sorted((folder / "runs").glob("runs-*.jsonl"))
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  memory_limit=args.memory_limit, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        return on_cluster(client, shards, folder / "cluster", args.partitions)


def main(argv: list[str] | None = None) -> int:
    import subprocess

    import pandas as pd

    from evalframe import EvaluationResult

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--folder", type=Path, default=None, help="where to write (default: a temporary folder)")
    parser.add_argument("--skip-one-process", action="store_true", help="time the cluster only")
    parser.add_argument("--reuse-runs", action="store_true", help="keep the runs files already in --folder")
    parser.add_argument("--phase", choices=("cluster", "one"), default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench_dask_build-"))
    if args.phase is not None:
        print(json.dumps(_phase(args, folder)))
        return 0
    start = time.perf_counter()
    if not (args.reuse_runs and (folder / "runs" / "all.jsonl").exists()):
        write_shards(args.queries, folder / "runs", args.shards)
    print(f"{args.queries:,} queries of bench_flatten in {args.shards} runs files ({time.perf_counter() - start:.1f} s to "
          f"write); {args.partitions} partitions; {os.cpu_count()} cores")
    figures = {}
    for phase in ("cluster",) + (() if args.skip_one_process else ("one",)):
        command = [sys.executable, __file__, "--phase", phase, "--folder", str(folder), "--partitions",
                   str(args.partitions), "--workers", str(args.workers), "--memory-limit", args.memory_limit]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        figures[phase] = f = json.loads(done.stdout.strip().splitlines()[-1])
        if phase == "cluster":
            print(f"cluster ({args.workers} workers x 1 thread, {args.memory_limit} each): {f['wall']:.1f} s wall, "
                  f"{f['cpu']:.1f} s CPU (client {f['client_cpu']:.1f} s), peak worker {f['peak_mb']:,.0f} MB, client "
                  f"peak {f['client_peak_mb']:,.0f} MB", flush=True)
        else:
            print(f"one process (from_runs + save(partitions={args.partitions})): {f['wall']:.1f} s wall, "
                  f"{f['cpu']:.1f} s CPU (scoring pool included), peak {f['peak_mb']:,.0f} MB", flush=True)
    if "one" in figures:
        a, b = EvaluationResult.load(folder / "cluster"), EvaluationResult.load(folder / "one")
        for node in b:
            pd.testing.assert_frame_equal(a[node], b[node])
        print("the two folders load to equal frames")
    if args.folder is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
