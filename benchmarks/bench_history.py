"""A history's listing and trend at scale: ``python benchmarks/bench_history.py --runs 1000 --queries 10000``.

Its set-up builds a store of ``--runs`` runs of ``--queries`` questions (one node, ``Retriever``, with the measures
of :data:`MEASURES`; the question set changes twice, at 40% and at 70% of the runs), each run one Parquet object in
the store's format (``<store>/runs/<id>.parquet``, its metadata under ``evalframe.run`` with each measure's mean and
95% t interval: docs/history.md), written here with pyarrow (the set-up is not timed). Then it times, each in a fresh
process (``python -m evalframe ...``: the interpreter's start and evalframe's imports included, as a CI job sees
it), the median of ``--repeat`` runs of:

- ``evalframe history --store S --measure nDCG@10 --plot trend.png``;
- ``evalframe history --store S --measure nDCG@10 --plot trend.html``;
- ``evalframe history --store S`` (the listing of every run, each measure's mean [low, high]);
- the floor: a process that imports pyarrow.parquet and reads every run's footer (what listing needs at least).

The target is under 2 s for the first two (issue 39). Exit status 1 when a timed command fails or misses
``--target``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

MEASURES = ("nDCG@10", "AP", "recall_single_hit", "mrr")
NODE = "Retriever"
MEASURE = "nDCG@10"

_FLOOR = """
import json, sys, pathlib, pyarrow.parquet as pq
paths = sorted(pathlib.Path(sys.argv[1]).glob("runs/*.parquet"))
metas = [json.loads(pq.read_schema(p).metadata[b"evalframe.run"]) for p in paths]
print(len(metas))
"""


def _fingerprint(ids: np.ndarray) -> str:
    return hashlib.sha256("\n".join(sorted(ids.tolist())).encode("utf-8")).hexdigest()


def make_store(store: Path, runs: int, queries: int, seed: int = 0) -> Path:
    """A store of ``runs`` runs x ``queries`` questions in the store's format, written with pyarrow; returns it."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from scipy import stats

    rng = np.random.default_rng(seed)
    folder = store / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    every = np.array([f"q{i:06d}" for i in range(queries + queries // 10)], dtype=object)
    # the question set: the first `queries` ids, then (at 40%) a tenth of them swapped for new ones, then (at 70%)
    # back to the first set
    sets = [every[:queries], np.concatenate([every[queries // 10:queries], every[queries:queries + queries // 10]])]
    fingerprints = [_fingerprint(ids) for ids in sets]
    difficulty = rng.beta(2, 3, size=len(every))
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    t_factor = float(stats.t.ppf(0.975, queries - 1))
    for position in range(runs):
        which = 1 if 0.4 * runs <= position < 0.7 * runs else 0
        ids = sets[which]
        codes = np.searchsorted(every, ids)  # every is sorted: its ids are zero-padded
        skill = np.clip(difficulty[codes] + 0.0001 * position + rng.normal(0, 0.15, size=queries), 0, 1)
        values = {name: np.clip(skill + rng.normal(0, 0.05, size=queries), 0, 1) for name in MEASURES}
        values["recall_single_hit"] = (values["recall_single_hit"] > 0.4).astype(np.float64)
        when = start + timedelta(hours=position)
        run_id = f"{when:%Y%m%dT%H%M%S%f}Z-{position:08x}"
        measures = {}
        for name, column in values.items():
            mean, half = float(column.mean()), t_factor * float(column.std(ddof=1)) / np.sqrt(queries)
            measures[name] = {"mean": mean, "low": mean - half, "high": mean + half, "n": queries,
                              "direction": "higher"}
        meta = {"format": 1, "id": run_id, "name": f"pipeline-{position % 3}", "time": when.isoformat(),
                "tags": [f"v{position // 100}"], "params": {"top_k": str(5 + position % 3)},
                "commit": hashlib.sha1(str(position).encode()).hexdigest(), "dirty": False, "source": "bench",
                "evalframe": "bench", "nodes": {NODE: {"queries": queries, "fingerprint": fingerprints[which],
                                                       "measures": measures}},
                "scores": {}}
        table = pa.table({"node": pa.array([NODE] * queries, pa.string()), "query": pa.array(ids, pa.string()),
                          "text": pa.nulls(queries, pa.string()), **{name: values[name] for name in MEASURES}})
        table = table.replace_schema_metadata({b"evalframe.run": json.dumps(meta).encode("utf-8")})
        pq.write_table(table, folder / f"{run_id}.parquet")
    return store


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], repeat: int) -> tuple[float, float, str]:
    """The median wall-clock and CPU seconds (the child's, all its threads: on a shared machine the wall-clock time
    grows with the others' load, the CPU time much less) of ``repeat`` fresh processes, and the last one's output."""
    times, cpus, out = [], [], ""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _cpu()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
        out = done.stdout
    return statistics.median(times), statistics.median(cpus), out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", type=float, default=2.0, help="seconds the trend commands must stay under")
    parser.add_argument("--store", type=Path, default=None, help="build the store here (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="time the store --store already holds (no set-up)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-history-"))
    store = args.store or work / "store"
    start = time.perf_counter()
    if not (args.reuse and args.store is not None and (store / "runs").is_dir()):
        make_store(store, args.runs, args.queries)
    built = time.perf_counter() - start
    size = sum(path.stat().st_size for path in (store / "runs").iterdir()) / 1e6
    how = "reused" if built < 0.5 else f"built in {built:.1f} s"
    print(f"a store of {args.runs:,} runs x {args.queries:,} questions x {len(MEASURES)} measures ({size:,.0f} MB, "
          f"{how}, not timed); median of {args.repeat}, each in a fresh process")
    print("| case | seconds | CPU seconds |")
    print("|---|---:|---:|")
    evalframe = [sys.executable, "-m", "evalframe", "history", "--store", str(store)]
    failed = False
    for suffix in ("png", "html"):
        plot = work / f"trend.{suffix}"
        seconds, cpu, out = _timed([*evalframe, "--measure", MEASURE, "--plot", str(plot)], args.repeat)
        if not plot.is_file() or f"over {args.runs} runs drawn to" not in out:
            raise SystemExit(f"the trend was not drawn to {plot}: {out[-300:]}")
        failed |= seconds >= args.target
        print(f"| evalframe history --measure {MEASURE} --plot trend.{suffix} | {seconds:.3f} | {cpu:.3f} |")
    seconds, cpu, out = _timed(evalframe, args.repeat)
    if len(out.splitlines()) < args.runs:
        raise SystemExit(f"the listing shows fewer than {args.runs} runs")
    print(f"| evalframe history (the listing) | {seconds:.3f} | {cpu:.3f} |")
    seconds, cpu, out = _timed([sys.executable, "-c", _FLOOR, str(store)], args.repeat)
    assert int(out) == args.runs
    print(f"| floor: import pyarrow.parquet, read {args.runs:,} footers | {seconds:.3f} | {cpu:.3f} |")
    print(f"target: under {args.target:g} s for the trend commands: {'missed' if failed else 'met'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
