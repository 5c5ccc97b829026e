"""A TREC run at MS MARCO scale on Dask: ``python benchmarks/bench_dask_trec.py --lines 100M``.

1. Starts moto's S3 server on 127.0.0.1 (``moto.server.ThreadedMotoServer``, as the tests' ``s3_server`` fixture) and
   writes the run to it as ``--files`` Parquet files (columns ``query_id``, ``doc_id``, ``score``; row groups of
   ``--row-group`` rows), made with numpy and pyarrow in this process, one file at a time: ``--lines`` lines,
   ``--docs`` documents per query (100M = 100k queries x 1,000), scores with ties. The files are cut off the
   queries' boundaries (each file's first lines end the query of the file before), so queries straddle files and
   row groups. The qrels (three judgments per query: two retrieved documents, one relevant, one not, and a relevant
   one not retrieved) go to the bucket as a TREC text file.
2. On a ``distributed.LocalCluster`` of 2 worker processes (1 thread each, ``--memory-limit`` each), times
   ``evalframe.dask.from_trec("s3://.../*.parquet", "s3://.../qrels.txt", partitions=...)`` (the workers read the
   files from the server with s3fs and write the partitioned result to ``--work``) and ``trec_metrics`` of
   :data:`MEASURES` on it. Memory is each worker's RSS, sampled every 0.2 s with ``client.run`` during both, and its
   peak (VmHWM of ``/proc/self/status``, as bench_dask.py reads it) at the end.
3. The first files, ``--compare-lines`` lines (10M at full size), evaluated the same way on the cluster, then
   written as one TREC text file and evaluated by ``evalframe trec`` (a subprocess, in memory): the largest
   difference of the means must be <= 1e-12.

Other work on the machine slows the wall times; the CPU times of the workers are printed beside them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

#: What is timed: the measures of MS MARCO's leaderboards and trec_eval's usual ones.
MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "R@100", "R@1000", "RR@10", "Rprec", "Bpref"]
COLLECTION = 8_841_823  # MS MARCO's passages: the docids are D0..D8841822


def parse_count(text: str) -> int:
    """``"100M"`` -> 100_000_000, ``"10k"`` -> 10_000."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"a count such as 100M, 10k or 2000; got {text!r}")
    return int(float(match.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()])


# ------------------------------------------------------------------------------------------ the data
def file_bounds(lines: int, files: int, docs: int) -> np.ndarray:
    """The first line of each file and the end: equal shares, the inner cuts moved a third of a query on (so a query
    straddles every cut)."""
    bounds = np.linspace(0, lines, files + 1).astype(np.int64)
    bounds[1:-1] = np.minimum(bounds[1:-1] + docs // 3, lines)
    return bounds


def docid_numbers(query: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The document of each (query, position): distinct within a query (position < 1000 < COLLECTION / 13)."""
    return (query * 7919 + position * 13) % COLLECTION


def run_table(start: int, stop: int, docs: int, seed: int) -> pa.Table:
    """Lines ``start``..``stop`` of the run: ``query_id`` (dictionary-encoded), ``doc_id``, ``score`` (ties)."""
    rows = np.arange(start, stop, dtype=np.int64)
    query, position = rows // docs, rows % docs
    first = int(query[0]) if len(rows) else 0
    local = (query - first).astype(np.int32)
    names = pa.array([f"q{q}" for q in range(first, first + int(local.max(initial=-1)) + 1)], type=pa.string())
    qids = pa.DictionaryArray.from_arrays(pa.array(local), names)
    docids = pc.binary_join_element_wise(pa.scalar("D"), pc.cast(pa.array(docid_numbers(query, position)),
                                                                 pa.string()), "")
    scores = np.round(np.random.default_rng([seed, start]).random(len(rows)) * 20, 2)  # about 50 ties a query
    return pa.table({"query_id": qids, "doc_id": docids, "score": scores})


def qrels_text(queries: int, docs: int, seed: int) -> bytes:
    """Three judgments per query: a retrieved document with grade 1 or 2, a retrieved one with 0, an unretrieved 1."""
    rng = np.random.default_rng([seed, 1])
    query = np.repeat(np.arange(queries, dtype=np.int64), 3)
    position = np.stack([rng.integers(0, docs, queries), rng.integers(0, docs, queries),
                         np.full(queries, docs)], axis=1).reshape(-1)
    grade = np.stack([rng.integers(1, 3, queries), np.zeros(queries, dtype=np.int64), np.ones(queries, dtype=np.int64)],
                     axis=1).reshape(-1)
    same = (position[0::3] == position[1::3])  # the nonrelevant one drawn at the relevant one's place: one judgment
    keep = np.ones(len(query), dtype=bool)
    keep[1::3] = ~same
    query, position, grade = query[keep], position[keep], grade[keep]
    qids = pc.binary_join_element_wise(pa.scalar("q"), pc.cast(pa.array(query), pa.string()), "")
    docids = pc.binary_join_element_wise(pa.scalar("D"), pc.cast(pa.array(docid_numbers(query, position)),
                                                                 pa.string()), "")
    table = pa.table({"qid": qids, "iter": pa.array(np.zeros(len(query), dtype=np.int64)), "docid": docids,
                      "relevance": pa.array(grade)})
    return _text(table)


def _text(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    return sink.getvalue()


def trec_text(table: pa.Table) -> bytes:
    """A run's rows as TREC lines ``qid Q0 docid 0 score bench`` (the rank column: trec_eval ignores it)."""
    n = table.num_rows
    return _text(pa.table({"qid": pc.cast(table.column("query_id"), pa.string()), "q0": pa.array(["Q0"] * 1).take(
        pa.array(np.zeros(n, dtype=np.int64))), "docid": table.column("doc_id"),
        "rank": pa.array(np.zeros(n, dtype=np.int64)), "score": table.column("score"),
        "tag": pa.array(["bench"]).take(pa.array(np.zeros(n, dtype=np.int64)))}))


class Generated:
    def __init__(self) -> None:
        self.seconds = math.nan
        self.megabytes = math.nan
        self.files: list[str] = []
        self.lines: list[int] = []  # per file


def generate(fs: Any, bucket: str, lines: int, files: int, docs: int, row_group: int, seed: int) -> Generated:
    out = Generated()
    start = time.perf_counter()
    bounds = file_bounds(lines, files, docs)
    size = 0
    for number in range(files):
        table = run_table(int(bounds[number]), int(bounds[number + 1]), docs, seed)
        sink = io.BytesIO()
        pq.write_table(table, sink, row_group_size=row_group)
        key = f"{bucket}/runs/run-{number:04d}.parquet"
        fs.pipe_file(key, sink.getvalue())
        size += sink.tell()
        out.files.append(f"s3://{key}")
        out.lines.append(table.num_rows)
    fs.pipe_file(f"{bucket}/qrels.txt", qrels_text(lines // docs, docs, seed))
    out.seconds = time.perf_counter() - start
    out.megabytes = size / 2**20
    return out


# ------------------------------------------------------------------------------------------ the cluster
@contextlib.contextmanager
def s3_server() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def _status_mb(field: str) -> float:
    """A field of /proc/self/status in MB (run on the workers: nothing but the standard library)."""
    import pathlib

    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb() -> float:
    return _status_mb("VmRSS")


def _stats() -> tuple[int, float, float]:
    """(pid, peak RSS MB: VmHWM as process_usage.peak_rss_mb reads it, user + system CPU s) of a worker."""
    import os as _os
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return _os.getpid(), _status_mb("VmHWM"), usage.ru_utime + usage.ru_stime


class Sampler:
    """Each worker's RSS, sampled every ``interval`` seconds with ``client.run`` on a thread: the largest seen."""

    def __init__(self, client: Any, interval: float = 0.2) -> None:
        self.client, self.interval = client, interval
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                for worker, rss in self.client.run(_rss_mb).items():
                    self.peaks[worker] = max(self.peaks.get(worker, 0.0), rss)
            self._stop.wait(self.interval)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Measured:
    def __init__(self) -> None:
        self.build_seconds = math.nan
        self.metrics_seconds = math.nan
        self.worker_cpu = math.nan
        self.sampled: dict[str, float] = {}
        self.peaks: dict[str, float] = {}
        self.restarted = False
        self.metrics: dict[str, float] = {}


def evaluate(client: Any, runs: list[str], qrels: str, partitions: int, out_dir: Path,
             storage_options: dict[str, Any]) -> Measured:
    from evalframe.dask import from_trec

    out = Measured()
    before = client.run(_stats)
    with Sampler(client) as sampler:
        start = time.perf_counter()
        result = from_trec(runs, qrels, partitions=partitions, out_dir=out_dir, storage_options=storage_options,
                           client=client)
        out.build_seconds = time.perf_counter() - start
        print(f"  from_trec done in {out.build_seconds:.1f} s; sampled worker RSS MB so far: {_peaks(sampler.peaks)}",
              flush=True)
        start = time.perf_counter()
        out.metrics = result.trec_metrics(MEASURES)
        out.metrics_seconds = time.perf_counter() - start
    after = client.run(_stats)
    out.sampled = sampler.peaks
    out.peaks = {worker: peak for worker, (_, peak, _) in after.items()}
    out.restarted = sorted(pid for pid, _, _ in before.values()) != sorted(pid for pid, _, _ in after.values())
    out.worker_cpu = sum(cpu for _, _, cpu in after.values()) - sum(cpu for _, _, cpu in before.values())
    return out


def evalframe_trec(run: Path, qrels: Path) -> tuple[dict[str, float], float, float]:
    """``evalframe trec RUN QRELS`` in a subprocess: its means, wall seconds and peak RSS MB."""
    command = [sys.executable, "-c", "import resource, sys; from evalframe.present.cli import main; code = main(sys.argv[1:]);"
               " print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)",
               "trec", str(run), str(qrels), *[w for m in MEASURES for w in ("-m", m)], "--format", "json",
               "--digits", "17"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"evalframe trec failed: {done.stderr.strip()[-500:]}")
    peak = int(done.stderr.strip().splitlines()[-1]) / 1024
    return json.loads(done.stdout)["measures"], seconds, peak


def largest_difference(first: dict[str, float], second: dict[str, float]) -> float:
    if set(first) != set(second):
        return math.inf
    return max(abs(first[name] - second[name]) for name in first)


def _peaks(values: dict[str, float]) -> str:
    return " / ".join(f"{value:,.0f}" for _, value in sorted(values.items()))


def print_whole(lines: int, whole: Measured) -> None:
    print(f"\nfrom_trec of {lines:,} lines: {whole.build_seconds:.1f} s wall, trec_metrics "
          f"{whole.metrics_seconds:.1f} s; workers' CPU {whole.worker_cpu:.1f} s")
    print(f"  peak worker RSS MB (VmHWM): {_peaks(whole.peaks)}; largest sampled RSS MB: {_peaks(whole.sampled)}"
          + ("; a worker was restarted (over its memory limit?)" if whole.restarted else ""))
    print("  " + ", ".join(f"{name} {value:.4f}" for name, value in whole.metrics.items()), flush=True)


def main(argv: list[str] | None = None, *, client: Any = None) -> int:
    """The benchmark; ``client``: a cluster to run on instead of a fresh LocalCluster (the smoke test's)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=parse_count, default=100_000_000, help="run lines (default 100M)")
    parser.add_argument("--docs", type=int, default=1000, help="documents per query (default 1000)")
    parser.add_argument("--files", type=int, default=None, help="Parquet files (default: one per 1M lines, at least 4)")
    parser.add_argument("--row-group", type=parse_count, default=262_144, help="rows per Parquet row group (262144)")
    parser.add_argument("--partitions", type=int, default=None,
                        help="partitions (default: one per 500k lines, at least 2)")
    parser.add_argument("--compare-lines", type=parse_count, default=10_000_000,
                        help="the lines of the first files compared with `evalframe trec` (default 10M)")
    parser.add_argument("--memory-limit", default="2.5GB", help="each worker's memory_limit (2.5GB)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_dask_trec"), help="where the results go")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import logging as _logging

    import s3fs
    from distributed import Client, LocalCluster

    files = args.files or max(4, round(args.lines / 1_000_000))
    partitions = args.partitions or max(2, round(args.lines / 500_000))
    work = args.work / uuid.uuid4().hex[:8]
    work.mkdir(parents=True)
    queries = args.lines // args.docs
    print(f"{args.lines:,} run lines ({queries:,} queries x {args.docs:,}) in {files} Parquet files on moto's S3 "
          f"server; {partitions} partitions; 2 workers x 1 thread, memory_limit {args.memory_limit}")
    try:
        with s3_server() as endpoint:
            options = {"key": "testing", "secret": "testing", "endpoint_url": endpoint}
            fs = s3fs.S3FileSystem(**options, skip_instance_cache=True, use_listings_cache=False)
            bucket = f"bench-{uuid.uuid4().hex[:8]}"
            fs.mkdir(bucket, region_name="eu-west-1")
            generated = generate(fs, bucket, args.lines, files, args.docs, args.row_group, args.seed)
            print(f"  generated and uploaded in {generated.seconds:.1f} s: {generated.megabytes:,.0f} MB of Parquet")
            with contextlib.ExitStack() as stack:
                if client is None:  # a fresh cluster: its workers' peaks are this run's
                    cluster = stack.enter_context(LocalCluster(
                        n_workers=2, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                        dashboard_address=":0", silence_logs=_logging.ERROR))
                    client = stack.enter_context(Client(cluster))
                whole = evaluate(client, [f"s3://{bucket}/runs/*.parquet"], f"s3://{bucket}/qrels.txt", partitions,
                                 work / "whole", options)
                shutil.rmtree(work / "whole", ignore_errors=True)
                print_whole(args.lines, whole)
                subset = int(np.searchsorted(np.cumsum(generated.lines), args.compare_lines) + 1)
                subset = min(subset, files)
                subset_lines = int(sum(generated.lines[:subset]))
                small = evaluate(client, generated.files[:subset], f"s3://{bucket}/qrels.txt",
                                 max(2, round(subset_lines / 500_000)), work / "subset", options)
            text = work / "subset.txt"
            with text.open("wb") as handle:
                for url in generated.files[:subset]:
                    handle.write(trec_text(pq.read_table(io.BytesIO(fs.cat_file(url)))))
            qrels = work / "qrels.txt"
            qrels.write_bytes(fs.cat_file(f"{bucket}/qrels.txt"))
        reference, reference_seconds, reference_peak = evalframe_trec(text, qrels)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    difference = largest_difference(reference, small.metrics)
    print(f"\nsubset: the first {subset} files, {subset_lines:,} lines: from_trec {small.build_seconds:.1f} s + "
          f"trec_metrics {small.metrics_seconds:.1f} s on the cluster; `evalframe trec` on the same lines as one text "
          f"file {reference_seconds:.1f} s, peak RSS {reference_peak:,.0f} MB")
    verdict = "equal to 1e-12" if difference <= 1e-12 else "DIFFERENT"
    print(f"  largest difference of the means vs `evalframe trec`: {difference:.3g} ({verdict})")
    print("\n| lines | files | partitions | from_trec s | trec_metrics s | worker CPU s | peak worker RSS MB "
          "| 10M subset vs evalframe trec |")
    print("|---:|---:|---:|---:|---:|---:|---|---|")
    print(f"| {args.lines:,} | {files} | {partitions} | {whole.build_seconds:.1f} | {whole.metrics_seconds:.1f} "
          f"| {whole.worker_cpu:.1f} | {_peaks(whole.peaks)} | {difference:.3g} ({subset_lines:,} lines) |")
    return 0 if difference <= 1e-12 else 1


if __name__ == "__main__":
    logging.getLogger("distributed").setLevel(logging.ERROR)
    sys.exit(main())
