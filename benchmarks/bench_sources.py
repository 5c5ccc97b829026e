"""Loading a Ragas file (issue 40): ``python benchmarks/bench_sources.py [--samples 5000,50000] [--repeat 3]``.

``EvaluationResult.from_ragas(path)`` on a synthetic Ragas dataset of insurance questions
(``benchmarks/synthetic_ragas.py``: per sample the question, 5 retrieved passages with their ids, the reference
passages' ids, a response, a reference answer, a topic and four judge scores), each time in a fresh interpreter
(``sys.executable``, this repository first on ``PYTHONPATH``), ``--repeat`` times per size. The child imports
evalframe and the result class first (not timed: ``benchmarks/startup.py`` measures that), then times the call,
JSON parse included; it prints its wall time, its CPU time (user + system, with that of the worker processes it
starts: the old builds scored contexts in a process pool) and its peak resident memory. The median
and the fastest wall time are printed. With ``--baseline DIR`` (another checkout, e.g. ``git worktree add
/tmp/before <commit>``) each size is also run against DIR, the two interleaved run by run so both see the same
machine, and the ratio baseline / this checkout printed. The parent imports neither evalframe nor pandas.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What each child runs: the path is its first argument; it prints one JSON object.
CHILD = """
import json, sys, time, warnings
sys.path.insert(0, sys.argv[2])
import resource
from process_usage import cpu_seconds, peak_rss_mb
def cpu_all():  # with the worker processes the call starts (and ends): a pool scoring the contexts
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return cpu_seconds() + children.ru_utime + children.ru_stime
import evalframe
evalframe.EvaluationResult
warnings.simplefilter("ignore")  # the file's topic column is a meta field, said once per load
start, cpu = time.perf_counter(), cpu_all()
result = evalframe.EvaluationResult.from_ragas(sys.argv[1], progress=False)
wall, cpu = time.perf_counter() - start, cpu_all() - cpu
rows = sum(len(result[node]) for node in result)
print(json.dumps({"wall": wall, "cpu": cpu, "rss": peak_rss_mb(), "rows": rows, "module": evalframe.__file__}))
"""


def run_child(path: Path, checkout: Path) -> dict[str, float]:
    """One fresh process loading ``path`` with ``checkout``'s evalframe."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")]))
    # run in the checkout: ``python -c`` puts the working directory first on sys.path, before PYTHONPATH
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(ROOT / "benchmarks")], env=env, cwd=checkout,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the child failed ({checkout}):\n{done.stderr[-2000:]}")
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(measured.pop("module")).is_relative_to(checkout):
        raise SystemExit(f"the child imported evalframe from outside {checkout}")
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default="5000,50000", help="comma-separated dataset sizes (default 5000,50000)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per size (default 3)")
    parser.add_argument("--baseline", type=Path, help="another checkout to run beside this one")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.samples.split(",")]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic_ragas import write

    checkouts = [("this checkout", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    print(f"EvaluationResult.from_ragas(path), JSON parse included, in fresh processes; median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    print("| samples | checkout | rows | wall s (median) | wall s (fastest) | CPU s (median) | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = write(size, Path(tmp) / str(size), runs=1)[0]
            runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in checkouts}
            for _ in range(args.repeat):
                for name, checkout in checkouts:
                    runs[name].append(run_child(path, checkout))
            medians = {}
            for name, _ in checkouts:
                measured = runs[name]
                medians[name] = statistics.median(m["wall"] for m in measured)
                print(f"| {size:,} | {name} | {int(measured[0]['rows']):,} | {medians[name]:.3f} | "
                      f"{min(m['wall'] for m in measured):.3f} | {statistics.median(m['cpu'] for m in measured):.3f} | "
                      f"{max(m['rss'] for m in measured):.0f} |")
            if args.baseline:
                print(f"| {size:,} | baseline / this checkout | | {medians['baseline'] / medians['this checkout']:.1f}x "
                      "| | | |")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
