"""Start-up time (issue 26): ``python benchmarks/startup.py [--repeat 7] [--baseline DIR]``.

Each case runs in a fresh interpreter (``sys.executable``, this repository first on ``PYTHONPATH``), ``--repeat``
times; the wall time of each process is taken around it by this script, and the median (and the fastest) printed:

* ``python``: the bare interpreter (``-c pass``), the floor of every case;
* ``import pyarrow`` and ``import evalframe``; ``import evalframe`` beyond ``import pyarrow`` is the target's figure
  (issue 26: under 0.3 s);
* ``evalframe.EvaluationResult``: ``import evalframe`` and the first use of the result class (pandas then loads);
* ``evalframe --help``, ``evalframe list-metrics`` and ``evalframe trec RUN QRELS`` on a run of 20 queries x
  10 documents: what the console script runs (``from evalframe.present.cli import main; sys.exit(main())``), without
  the launcher a virtualenv or pyenv puts in front of it (issue 26: ``--help`` under 0.5 s).

One more process per case, not timed, lists the heavy modules it left in ``sys.modules`` at exit (numpy, pyarrow,
pandas, matplotlib, scipy, rapidfuzz, dask, distributed, tqdm, mmh3). With ``--baseline DIR`` (another checkout,
e.g. ``git worktree add /tmp/before <commit>``) every case is also run against DIR, the two interleaved run by run so
that both see the same machine, and the ratio baseline / this checkout is printed. The parent process imports
neither evalframe nor pandas: it only starts processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The modules whose loading the issue is about (and numpy, pyarrow and mmh3, for the record).
HEAVY = ("numpy", "pyarrow", "pandas", "matplotlib", "scipy", "rapidfuzz", "dask", "distributed", "tqdm", "mmh3")
#: What the ``evalframe`` console script runs (pip's generated script, without its launcher).
CONSOLE = "import sys; from evalframe.present.cli import main; sys.argv[0] = 'evalframe'; sys.exit(main())"


def write_trec(folder: Path, queries: int = 20, depth: int = 10) -> tuple[Path, Path]:
    """A TREC run of ``queries`` x ``depth`` documents and qrels judging 3 documents a query (one not retrieved)."""
    run, qrels = folder / "run.trec", folder / "qrels.trec"
    run.write_text("".join(f"q{q} Q0 d{q}_{r} {r} {depth - r + 0.5} bench\n" for q in range(queries)
                           for r in range(1, depth + 1)))
    qrels.write_text("".join(f"q{q} 0 d{q}_{r} {grade}\n" for q in range(queries)
                             for r, grade in ((1 + q % 2, 2), (3 + q % 5, 1), (depth + 1, 1))))
    return run, qrels


def cases(run: Path, qrels: Path) -> dict[str, list[str]]:
    """Each case's interpreter arguments."""
    return {
        "python": ["-c", "pass"],
        "import pyarrow": ["-c", "import pyarrow"],
        "import evalframe": ["-c", "import evalframe"],
        "evalframe.EvaluationResult": ["-c", "import evalframe; evalframe.EvaluationResult"],
        "evalframe --help": ["-c", CONSOLE, "--help"],
        "evalframe list-metrics": ["-c", CONSOLE, "list-metrics"],
        "evalframe trec RUN QRELS": ["-c", CONSOLE, "trec", str(run), str(qrels)],
    }


def environment(source: Path) -> dict[str, str]:
    """This environment with ``source`` first on PYTHONPATH (the processes run in a folder of their own: ``-c`` puts
    the working folder before PYTHONPATH)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONSTARTUP", None)
    return env


def timed(arguments: list[str], env: dict[str, str], cwd: Path) -> float:
    """The wall time of one fresh process running ``arguments`` (its output discarded; a failure stops the run)."""
    start = time.perf_counter()
    process = subprocess.run([sys.executable, *arguments], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"error: {' '.join(arguments[:2])} ... exited {process.returncode}: {process.stderr.decode()[-500:]}")
    return elapsed


def loaded(arguments: list[str], env: dict[str, str], cwd: Path) -> list[str]:
    """The heavy modules in ``sys.modules`` when the process running ``arguments`` exits (one untimed process)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        hook = (f"import atexit, json, sys\n"
                f"atexit.register(lambda: open({out.name!r}, 'w').write(json.dumps("
                f"[m for m in {HEAVY!r} if m in sys.modules])))\n")
        code = arguments[1]
        subprocess.run([sys.executable, "-c", hook + code, *arguments[2:]], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return json.loads(out.read() or "[]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh processes per case (default 7; the median is shown)")
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="another checkout to measure the same way, interleaved with this one (e.g. the commit before)")
    args = parser.parse_args(argv)
    sources = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = write_trec(Path(tmp))
        table = cases(run, qrels)
        times: dict[tuple[str, str], list[float]] = {(name, case): [] for name in sources for case in table}
        for _ in range(args.repeat):  # round-robin: every case and checkout once per round
            for case, arguments in table.items():
                for name, source in sources.items():
                    times[name, case].append(timed(arguments, environment(source), Path(tmp)))
        modules = {(name, case): loaded(arguments, environment(source), Path(tmp))
                   for name, source in sources.items() for case, arguments in table.items()}
    median = {key: statistics.median(values) for key, values in times.items()}
    print(f"start-up, {args.repeat} fresh processes per case (median; fastest), python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.2f}")
    for name, source in sources.items():
        print(f"\n{name}: {source}")
        print("| case | median s | fastest s | heavy modules loaded |\n|---|---|---|---|")
        for case in table:
            print(f"| {case} | {median[name, case]:.3f} | {min(times[name, case]):.3f} | "
                  f"{', '.join(modules[name, case]) or '-'} |")
        beyond = median[name, "import evalframe"] - median[name, "import pyarrow"]
        print(f"import evalframe beyond import pyarrow: {beyond:.3f} s (target < 0.3 s); "
              f"evalframe --help: {median[name, 'evalframe --help']:.3f} s (target < 0.5 s)")
    if args.baseline:
        print("\n| case | baseline s | this s | baseline / this |\n|---|---|---|---|")
        for case in table:
            before, after = median["baseline", case], median["this", case]
            print(f"| {case} | {before:.3f} | {after:.3f} | {before / after:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
