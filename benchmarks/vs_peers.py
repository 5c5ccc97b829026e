"""evalframe beside trec_eval, pytrec_eval, ir_measures and ranx on the same TREC files: ``python benchmarks/vs_peers.py``.

Writes a random run (``--queries`` queries x each of ``--depth`` documents; by default 10,000 x 10, 100 and 1,000,
i.e. 0.1M, 1M and 10M rows) and its qrels twice, binary (grades 0/1) and graded (0..3) on the same judged
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

* the whole process (issue 26): the job as a user runs it, in a fresh process timed from its start to its exit
  (start-up and imports included), with its peak RSS (GNU time's ``%M`` when ``/usr/bin/time`` is there). evalframe
  twice: ``python -c`` with ``from_trec`` + ``trec_metrics``, and the CLI ``evalframe trec RUN QRELS -m ...``;
  trec_eval 10.0's binary (``trec_eval -m ... qrels run``; build it with ``benchmarks/setup_trec_eval.sh``, or point
  ``--trec-eval`` at one); pytrec_eval, ir_measures (``calc_aggregate``) and ranx as ``python -c`` scripts.
* the floor: pyarrow's CSV reader putting the run file into typed columns (space-delimited, as evalframe's reader
  reads it), plus evalframe's evaluation time; its whole process is that reading process plus the evaluation.

``--repeat N`` runs N fresh processes per tool and case, the tools in turns, and prints the median of each figure
(the machine's speed drifts, and other processes may share its CPUs: the load average is printed). It prints a table
per case, the ratios evalframe / peer (below 1: evalframe is faster or smaller), the growth of
each tool's times from the smallest to the largest depth, and how far the tools' values are apart: the means and
every per-query value (pytrec_eval must agree to 1e-12, or the script exits 1; trec_eval's printed means, and those
``evalframe trec`` prints, must agree with evalframe's at trec_eval's 4 decimals, or it exits 1; ir_measures and ranx
are compared to 1e-9 and any difference is reported with its size: ranx orders tied scores its own way, trec_eval
by document id descending). Then the issue-26 table per case: whole process, load / evaluate and peak RSS of every
tool, and the ratios evalframe / each (and / the floor).

Scores have 4 decimals (ties happen, about 1.7 tied pairs per query at 1,000 documents); document ids are drawn
from a corpus of 8.8M documents (MS MARCO passage's size), distinct within a query; every query has 20 judged
documents, 10 of them retrieved at random ranks. ranx, pytrec_eval and ir_measures are benchmark-only dependencies
(``pip install -e '.[bench]'``); by default every one installed is run (and trec_eval when built); ``--tools`` names
the ones to run.
"""

from __future__ import annotations

import argparse
import ast
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
TOOLS = ("evalframe", "trec_eval", "pytrec_eval", "ir_measures", "ranx")
#: the Python packages among TOOLS (trec_eval is a program: --trec-eval)
PACKAGES = ("evalframe", "pytrec_eval", "ir_measures", "ranx")
MEASURES = ("RR", "AP", "nDCG", "P@10", "R@100", "Success@10")
#: each tool's name of each measure, in MEASURES order
NAMES = {
    "evalframe": MEASURES,
    "ranx": ("mrr", "map", "ndcg", "precision@10", "recall@100", "hit_rate@10"),
    "pytrec_eval": ("recip_rank", "map", "ndcg", "P_10", "recall_100", "success_10"),
    "ir_measures": MEASURES,
    "trec_eval": ("recip_rank", "map", "ndcg", "P_10", "recall_100", "success_10"),
}
#: trec_eval's -m arguments for MEASURES (it prints them as NAMES["trec_eval"])
TREC_EVAL_M = ("recip_rank", "map", "ndcg", "P.10", "recall.100", "success.10")
#: where benchmarks/setup_trec_eval.sh builds trec_eval by default
TREC_EVAL_DEFAULT = Path.home() / ".cache" / "evalframe-bench" / "trec_eval-10.0" / "trec_eval"
CORPUS = 8_841_823
JUDGED_RETRIEVED = 10
JUDGED_OTHER = 10
TOLERANCE = {"pytrec_eval": 1e-12, "ranx": 1e-9, "ir_measures": 1e-9}
#: trec_eval prints 4 decimals: a mean agrees when it rounds to the printed value (half a unit of the last digit)
TREC_EVAL_PRINTED = 0.5e-4 + 1e-12


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


def _work_ir_measures(run_path: str, qrels_path: str, out: str) -> dict:
    start = time.perf_counter()
    import ir_measures
    imported = time.perf_counter()
    rss_imported = _rss_mb()
    measures = [ir_measures.parse_measure(name) for name in NAMES["ir_measures"]]
    cpu_start = time.process_time()
    # its readers are generators of named tuples: read into lists, then the evaluator (which indexes the qrels)
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    evaluator = ir_measures.evaluator(measures, qrels)
    loaded, cpu_loaded = time.perf_counter(), time.process_time()
    per_query: dict[str, dict[str, float]] = {}
    for metric in evaluator.iter_calc(run):
        per_query.setdefault(str(metric.query_id), {})[str(metric.measure)] = float(metric.value)
    means = [sum(values[name] for values in per_query.values()) / len(per_query) for name in NAMES["ir_measures"]]
    evaluated, cpu_evaluated = time.perf_counter(), time.process_time()
    peak = _peak_rss_mb()
    return {"import": imported - start, "rss_imported": rss_imported, "load": loaded - imported,
            "evaluate": evaluated - loaded, "load_cpu": cpu_loaded - cpu_start, "evaluate_cpu": cpu_evaluated - cpu_loaded,
            "peak_rss": peak, "means": means,
            "per_query": {q: [values[name] for name in NAMES["ir_measures"]] for q, values in per_query.items()}}


WORKERS = {"evalframe": _work_evalframe, "ranx": _work_ranx, "pytrec_eval": _work_pytrec_eval,
           "ir_measures": _work_ir_measures}


# -- the whole process: a fresh interpreter (or trec_eval's binary) from its start to its exit ---------------------------

#: the job as a user's script does it, run by ``python -c SCRIPT RUN QRELS MEASURE...`` (start-up included); each
#: prints its means, so no tool can skip work nobody reads
WHOLE_SCRIPTS = {
    "evalframe": """import sys
from evalframe import EvaluationResult
result = EvaluationResult.from_trec(sys.argv[1], sys.argv[2], progress=False)
print(result.trec_metrics(sys.argv[3:]))
""",
    "pytrec_eval": """import sys
import pytrec_eval
with open(sys.argv[2]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[1]) as f:
    run = pytrec_eval.parse_run(f)
per_query = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3:])).evaluate(run)
print({m: sum(v[m] for v in per_query.values()) / len(per_query) for m in sys.argv[3:]})
""",
    "ir_measures": """import sys
import ir_measures
measures = [ir_measures.parse_measure(m) for m in sys.argv[3:]]
qrels, run = ir_measures.read_trec_qrels(sys.argv[2]), ir_measures.read_trec_run(sys.argv[1])
print(ir_measures.calc_aggregate(measures, qrels, run))
""",
    "ranx": """import sys, warnings
from numba.core.errors import NumbaTypeSafetyWarning
warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
from ranx import Qrels, Run, evaluate
print(evaluate(Qrels.from_file(sys.argv[2], kind="trec"), Run.from_file(sys.argv[1], kind="trec"), sys.argv[3:]))
""",
    # the floor: pyarrow's CSV reader puts the run file into typed columns, space-delimited as evalframe's reader
    # reads it (query and document ids as strings, the score as float64); it prints its read time
    "floor": """import sys, time
start = time.perf_counter()
import pyarrow as pa, pyarrow.csv as csv
imported = time.perf_counter()
names = ["query", "q0", "doc", "rank", "score", "tag"]
types = {"query": pa.string(), "doc": pa.string(), "score": pa.float64()}
table = csv.read_csv(sys.argv[1], read_options=csv.ReadOptions(column_names=names),
                     parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
                     convert_options=csv.ConvertOptions(include_columns=list(types), column_types=types))
print({"import": imported - start, "read": time.perf_counter() - imported, "rows": table.num_rows})
""",
}


def _evalframe_cli() -> list[str]:
    """The ``evalframe`` console script of this Python (not a version manager's shim), else ``python -m evalframe``."""
    script = Path(sys.executable).parent / "evalframe"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "evalframe"]


def _whole_commands(tool: str, run_path: Path, qrels_path: Path, trec_eval: Path | None) -> dict[str, list[str]]:
    """The whole-process command lines of a tool, by the row they are printed under."""
    if tool == "trec_eval":
        assert trec_eval is not None
        return {"trec_eval": [str(trec_eval)] + [f"-m{m}" for m in TREC_EVAL_M] + [str(qrels_path), str(run_path)]}
    names = list(NAMES.get(tool, ()))
    commands = {tool: [sys.executable, "-c", WHOLE_SCRIPTS[tool], str(run_path), str(qrels_path), *names]}
    if tool == "evalframe":
        commands = {"evalframe from_trec": commands["evalframe"],
                    "evalframe trec": [*_evalframe_cli(), "trec", str(run_path), str(qrels_path),
                                       *(arg for m in MEASURES for arg in ("-m", m))]}
    return commands


#: GNU time: its %M is the child's ru_maxrss, which on Linux starts at the high-water mark of the process that
#: exec'd it (the process it was started from): a small C program's (about 2 MB), not this Python's (about 30 MB)
GNU_TIME = Path("/usr/bin/time")


def _measure(argv: list[str], out: str) -> int:
    """(launcher mode) Run ``argv`` with its output to ``out``.out; write its wall time from start to exit and its
    peak RSS to ``out``. The RSS: GNU time's %M when /usr/bin/time is there (see GNU_TIME), else wait4's
    ``ru_maxrss`` of the child, which counts this launcher's own high-water mark (printed as launcher_rss)."""
    rss_file = out + ".rss"
    timed = [str(GNU_TIME), "-f", "%M", "-o", rss_file, *argv] if GNU_TIME.is_file() else argv
    with open(out + ".out", "wb") as stdout:
        start = time.perf_counter()
        child = subprocess.Popen(timed, stdout=stdout)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    rss = usage.ru_maxrss / 1024
    if GNU_TIME.is_file():
        rss = int(Path(rss_file).read_text().split()[-1]) / 1024  # the last line: a failed command has one before it
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"whole": wall, "whole_rss": rss, "status": os.waitstatus_to_exitcode(status),
                   "launcher_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, f)
    return 0


def _run_whole(argv: list[str], env: dict[str, str], out: Path) -> dict:
    """One whole-process run through the launcher; its figures and its printed output."""
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", str(out), "--", *argv], check=True,
                   env=env)
    with open(out, encoding="utf-8") as f:
        figures = json.load(f)
    figures["output"] = Path(str(out) + ".out").read_text(encoding="utf-8")
    if figures["status"] != 0:
        raise SystemExit(f"{argv[0]} exited with {figures['status']}: {figures['output'][-2000:]}")
    return figures


def _printed_means(output: str, names: tuple[str, ...]) -> list[float]:
    """The ``measure<TAB>all<TAB>value`` lines of trec_eval's (or ``evalframe trec``'s) output, in ``names`` order."""
    found = {}
    for line in output.splitlines():
        parts = [part.strip() for part in line.split("\t")]
        if len(parts) == 3 and parts[1] == "all":
            found[parts[0]] = parts[2]
    missing = [name for name in names if name not in found]
    if missing:
        raise SystemExit(f"no 'all' line for {', '.join(missing)} in the output:\n{output[-2000:]}")
    return [float(found[name]) for name in names]


def _median(runs: list[dict]) -> dict:
    """The median of each figure over fresh processes of one tool; the values (identical in each) from the first."""
    for run in runs:
        if "load" in run:
            run["total"] = run["load"] + run["evaluate"]
    figures = dict(runs[0])
    for key in ("import", "rss_imported", "jit", "load", "first_evaluate", "evaluate", "total", "peak_rss", "load_cpu",
                "evaluate_cpu"):
        if key in figures:
            figures[key] = float(np.median([run[key] for run in runs]))
    figures["whole"] = {label: {key: float(np.median([run["whole"][label][key] for run in runs]))
                                for key in ("whole", "whole_rss")} | {"output": whole["output"]}
                        for label, whole in runs[0]["whole"].items()}
    if any(run.get("means") != figures.get("means") for run in runs):
        raise SystemExit("a tool gave different means in two processes on the same files")
    return figures


def _env(tool: str, out: Path, ranx_jit: str) -> tuple[dict[str, str], str | None]:
    """The environment of a tool's process (this checkout first on the path; ranx's numba cache) and a temporary
    cache folder to remove afterwards."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    cache = None
    if tool == "ranx" and ranx_jit == "cold":
        cache = tempfile.mkdtemp(prefix="numba-cache-")  # empty: the first call compiles
        env["NUMBA_CACHE_DIR"] = cache
    elif tool == "ranx":
        env["NUMBA_CACHE_DIR"] = str(out.parent / "numba-cache")  # kept: only the script's first ranx process compiles
    return env, cache


def _run_tool(tool: str, run_path: Path, qrels_path: Path, out: Path, ranx_jit: str, trec_eval: Path | None) -> dict:
    """One tool's figures: its worker process (load, evaluate, values; not for trec_eval, a program), then each of its
    whole-process command lines, every one in a fresh process."""
    figures: dict = {}
    if tool in WORKERS:
        figures = _run_worker(tool, run_path, qrels_path, out, ranx_jit)
    figures["whole"] = {}
    for label, argv in _whole_commands(tool, run_path, qrels_path, trec_eval).items():
        env, cache = _env(tool, out, ranx_jit)
        try:
            figures["whole"][label] = _run_whole(argv, env, out.with_suffix(f".{label.replace(' ', '-')}.whole.json"))
        finally:
            if cache is not None:
                subprocess.run(["rm", "-rf", cache], check=False)
    if tool == "trec_eval":
        figures["means"] = _printed_means(figures["whole"]["trec_eval"]["output"], NAMES["trec_eval"])
    if tool == "floor":
        read = ast.literal_eval(figures["whole"]["floor"]["output"].strip())
        figures.update(load=read["read"], evaluate=0.0, rows=read["rows"])
    return figures


def _run_worker(tool: str, run_path: Path, qrels_path: Path, out: Path, ranx_jit: str) -> dict:
    """Run one tool in a fresh process; its figures come back through a JSON file."""
    env, cache = _env(tool, out, ranx_jit)
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
    figures = {tool: f for tool, f in figures.items() if tool in WORKERS}  # the in-process figures
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
        if tool == "trec_eval":
            ok = _trec_eval_agreement(ours, f) and ok
        if tool not in TOLERANCE:
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


def _trec_eval_agreement(ours: dict, f: dict) -> bool:
    """trec_eval's printed means (4 decimals) against evalframe's, and ``evalframe trec``'s printed ones too."""
    gaps = {m: abs(a - b) for m, a, b in zip(MEASURES, ours["means"], f["means"])}
    ok = all(gap <= TREC_EVAL_PRINTED for gap in gaps.values())
    print(f"\ntrec_eval vs evalframe (its printed precision, 4 decimals): means {'agree' if ok else 'DIFFER'} "
          f"(largest gap {max(gaps.values()):.1e})")
    for m, gap in gaps.items():
        if gap > TREC_EVAL_PRINTED:
            print(f"  {m}: trec_eval {f['means'][MEASURES.index(m)]:.4f}, evalframe {ours['means'][MEASURES.index(m)]:.6f}")
    cli = _printed_means(ours["whole"]["evalframe trec"]["output"], MEASURES)
    # both print 4 decimals of one mean summed in another order: the digits are the same, unless the mean lies on a
    # rounding boundary (within the sums' float error), where the two may round apart by one unit of the last digit
    cli_ok = all(a == b or (abs(a - b) <= 1e-4 + 1e-12 and abs(exact - (a + b) / 2) <= 1e-9)
                 for a, b, exact in zip(cli, f["means"], ours["means"]))
    print(f"trec_eval vs evalframe trec (both printed to 4 decimals): {'agree' if cli_ok else 'DIFFER'}")
    return ok and cli_ok


def _cell(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _print_whole(rows: int, figures: dict[str, dict]) -> None:
    """The issue's table: the whole process of every tool (fresh process, start-up included), its load / evaluate
    and its peak RSS; the floor is pyarrow's read of the run file (whole: that process) plus evalframe's evaluation;
    then the ratios evalframe / each."""
    columns: list[tuple[str, dict, dict]] = []  # (name, whole-process figures, in-process figures)
    for f in figures.values():
        for label, whole in f["whole"].items():
            columns.append((label, whole, f))
    evaluate = figures["evalframe"]["evaluate"] if "evalframe" in figures else None
    print(f"\n#### {rows:,} rows: whole process (a fresh process from start to exit), load / evaluate, peak RSS\n")
    print("| rows | | " + " | ".join(name for name, _, _ in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    whole_s, load_eval, rss = [], [], []
    for name, whole, f in columns:
        seconds = whole["whole"] + (evaluate or 0.0) if name == "floor" else whole["whole"]
        whole_s.append(_cell(seconds))
        if name == "floor":
            load_eval.append(f"{_cell(f['load'])} / {_cell(evaluate)}")
        elif "load" in f and name != "evalframe trec":
            load_eval.append(f"{_cell(f['load'])} / {_cell(f['evaluate'])}")
        else:
            load_eval.append("–")
        rss.append(_cell(whole["whole_rss"], 0))
    print(f"| {rows / 1e6:g}M | whole process, s | " + " | ".join(whole_s) + " |")
    print("| | load / evaluate, s | " + " | ".join(load_eval) + " |")
    print("| | peak RSS, MB | " + " | ".join(rss) + " |")
    ours = [(name, whole) for name, whole, _ in columns if name.startswith("evalframe")]
    if not ours or len(columns) == len(ours):
        return
    print("\n| whole process | " + " | ".join(f"/ {name}" for name, _, _ in columns if not name.startswith("evalframe"))
          + " |")
    print("|---|" + "---|" * (len(columns) - len(ours)))
    for our_name, our in ours:
        cells, cells_rss = [], []
        for name, whole, _ in columns:
            if name.startswith("evalframe"):
                continue
            theirs = whole["whole"] + (evaluate or 0.0) if name == "floor" else whole["whole"]
            cells.append(_ratio(our["whole"], theirs))
            cells_rss.append(_ratio(our["whole_rss"], whole["whole_rss"]))
        print(f"| {our_name}, time | " + " | ".join(cells) + " |")
        print(f"| {our_name}, peak RSS | " + " | ".join(cells_rss) + " |")
    if "floor" in figures and "evalframe" in figures:
        total = figures["evalframe"]["load"] + figures["evalframe"]["evaluate"]
        floor = figures["floor"]["load"] + (evaluate or 0.0)
        print(f"\nin process: evalframe load + evaluate {total:.3f} s, the floor (pyarrow read {figures['floor']['load']:.3f} s "
              f"+ evalframe's evaluate) {floor:.3f} s: {_ratio(total, floor)}")


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
            if tool not in WORKERS:
                continue
            b = cases[(large, kind)][tool]
            print(f"| {tool} | {kind} | {_ratio(b['load'], a['load'])} | {_ratio(b['evaluate'], a['evaluate'])} "
                  f"| {_ratio(b['total'], a['total'])} | {_ratio(b['peak_rss'], a['peak_rss'])} |")


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--measure"]:  # launcher mode: --measure JSON -- COMMAND...
        return _measure(argv[3:], argv[1])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", default="10,100,1000",
                        help="documents per query, comma-separated (default 10,100,1000: 0.1M, 1M and 10M rows)")
    parser.add_argument("--qrels", default="binary,graded", help="binary, graded or both (default)")
    parser.add_argument("--tools", default=None,
                        help=f"comma-separated, of {', '.join(TOOLS)} (default: every one installed, trec_eval when "
                             f"built)")
    parser.add_argument("--trec-eval", type=Path, default=TREC_EVAL_DEFAULT,
                        help=f"trec_eval's binary (default {TREC_EVAL_DEFAULT}, where benchmarks/setup_trec_eval.sh "
                             f"builds it)")
    parser.add_argument("--no-floor", action="store_true", help="leave out the floor (pyarrow reading the run file)")
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
    trec_eval_built = args.trec_eval.is_file() and os.access(args.trec_eval, os.X_OK)
    left_out = []
    if args.tools is None:
        tools = [tool for tool in TOOLS if (trec_eval_built if tool == "trec_eval" else find_spec(tool) is not None)]
        left_out = [tool for tool in TOOLS if tool not in tools]
    else:
        tools = [t.strip() for t in args.tools.split(",")]
    for name, values, allowed in (("--qrels", kinds, ("binary", "graded")), ("--tools", tools, TOOLS)):
        if not values or any(v not in allowed for v in values):
            parser.error(f"{name} takes a comma-separated list of {', '.join(allowed)}; got {','.join(values)!r}")
    # each tool runs in a worker process: a missing one would fail there, with a traceback, after the files are written
    missing = [tool for tool in tools if tool in PACKAGES and find_spec(tool) is None]
    if missing:
        kept = ",".join(tool for tool in tools if tool not in missing) or "evalframe"
        parser.error(f"--tools {','.join(tools)}: {' and '.join(missing)} not installed in this Python. Install the "
                     f"benchmark's peers with pip install -e '.[bench]' (ranx, pytrec_eval-terrier, ir_measures), or leave them "
                     f"out: --tools {kept}")
    if "trec_eval" in tools and not trec_eval_built:
        parser.error(f"--tools {','.join(tools)}: no trec_eval binary at {args.trec_eval} (--trec-eval); build it with "
                     f"benchmarks/setup_trec_eval.sh, or leave trec_eval out")
    floor = not args.no_floor and "evalframe" in tools and find_spec("pyarrow") is not None
    folder = args.out or Path(tempfile.mkdtemp(prefix="vs-peers-"))
    print(f"evalframe vs {', '.join(t for t in tools if t != 'evalframe')}: {args.queries:,} queries x "
          f"{', '.join(map(str, depths))} documents, {', '.join(kinds)} qrels; files in {folder}; ranx JIT "
          f"{args.ranx_jit}; median of {args.repeat} fresh process(es) per tool"
          + (f"; left out (not installed / built): {', '.join(left_out)}" if left_out else ""))
    versions = {}
    for tool in tools + (["pyarrow"] if floor else []):
        try:
            if tool == "trec_eval":
                shown = subprocess.run([str(args.trec_eval), "-v"], capture_output=True, text=True, check=False)
                versions[tool] = (shown.stdout + shown.stderr).strip().split()[-1]
            else:
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
            runners = tools + (["floor"] if floor else [])
            repeats: dict[str, list[dict]] = {tool: [] for tool in runners}
            for i in range(args.repeat):  # the tools in turns, so a drift of the machine's speed touches each alike
                for tool in runners:
                    out = folder / f"{tool}-{depth}-{kind}-{i}.json"
                    repeats[tool].append(_run_tool(tool, run_path, qrels_path, out, args.ranx_jit, args.trec_eval))
            figures = {tool: _median(runs) for tool, runs in repeats.items()}
            cases[(depth, kind)] = figures
            _print_case(f"{args.queries:,} queries x {depth:,} documents ({args.queries * depth:,} rows), {kind} qrels", figures)
            _print_whole(args.queries * depth, figures)
            ok = _agreement(figures) and ok
    _print_growth(cases, depths, kinds)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
