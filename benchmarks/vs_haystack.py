"""evalframe against Haystack 1.x on the same data, each in a fresh process: ``python benchmarks/vs_haystack.py``.

Needs the throwaway Haystack 1.x virtualenv (``benchmarks/setup_haystack1.sh`` builds it, default ``/tmp/haystack1``; a
development aid: evalframe never imports Haystack). Two comparisons, printed as tables with the ratio
Haystack / evalframe:

* **frames** (``--queries``, default 4,000): ``benchmarks/synthetic.make_result`` saved as a CSV folder; each tool in
  its own process loads it, computes ``calculate_metrics()`` (evalframe: cold, on the freshly loaded result),
  ``wrong_examples`` of both nodes and saves it. The metrics of both are printed side by side where their definitions
  agree (``docs/haystack-compat.md`` lists where evalframe deliberately differs).
* **build** (``--build-queries``, default 1,000): ``benchmarks/bench_flatten.workload`` built by Haystack's own
  builder (``Pipeline()._build_eval_dataframe`` per query and node, as ``Pipeline.eval`` does) and by
  ``EvaluationResult.from_runs``; for evalframe also the time of the exact context similarity alone over the
  distinct (gold context, candidate) pairs (``evalframe.sources.matching.context_similarity``) one after another, and the
  rest of the build measured directly (``from_runs`` with the similarity replaced by a constant).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HAYSTACK_ENV = {**os.environ, "HAYSTACK_TELEMETRY_ENABLED": "False", "TOKENIZERS_PARALLELISM": "false"}
NODES = ("Retriever", "Reader")
BUILD_PARAMS = {"custom_document_id_field": None, "context_matching_min_length": 100,
                "context_matching_boost_split_overlaps": True, "context_matching_threshold": 65.0}

# ------------------------------------------------------------------ code run inside each tool's process
#: The same steps in each tool's process: ``{module}`` is where EvaluationResult comes from; ``{cold}`` empties
#: evalframe's cache before wrong_examples, so it is timed cold too (Haystack 1.x keeps no cache).
FRAMES = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from {module} import EvaluationResult
folder, out = sys.argv[1], sys.argv[2]
t = {{}}
start = time.perf_counter(); result = EvaluationResult.load(folder); t["load CSV"] = time.perf_counter() - start
start = time.perf_counter(); metrics = result.calculate_metrics(); t["calculate_metrics()"] = time.perf_counter() - start
{cold}
start = time.perf_counter()
for node in ("Retriever", "Reader"):
    result.wrong_examples(node, n=10)
t["wrong_examples (both nodes, n=10)"] = time.perf_counter() - start
start = time.perf_counter(); result.save(out); t["save CSV"] = time.perf_counter() - start
print(json.dumps({{"times": t, "metrics": metrics}}, default=float))
"""
FRAMES_HAYSTACK = FRAMES.format(module="haystack.schema", cold="")
FRAMES_EVALFRAME = FRAMES.format(module="evalframe", cold="result.clear_cache()")

BUILD_HAYSTACK = """
import json, sys, time, warnings, logging
warnings.simplefilter("ignore"); logging.disable(logging.WARNING)
from haystack.pipelines import Pipeline
from haystack.schema import Answer, Document, EvaluationResult, Label, MultiLabel
data = json.load(open(sys.argv[1]))
params = data["params"]
queries = [(MultiLabel(labels=[Label.from_dict(l) for l in q["labels"]]), [Document.from_dict(d) for d in q["documents"]],
            [Answer.from_dict(a) for a in q["answers"]]) for q in data["queries"]]
pipeline = Pipeline()
start = time.perf_counter()
result = EvaluationResult()
for multilabel, documents, answers in queries:
    outputs = {"Retriever": {"documents": documents}, "Reader": {"answers": answers}}
    for node in ("Retriever", "Reader"):
        frame = pipeline._build_eval_dataframe(queries=[multilabel.query], query_labels_per_query=[multilabel],
                                               node_name=node, node_output=outputs[node], **params)
        result.append(node, frame)
result = pipeline._reorder_columns_in_eval_result(eval_result=result)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rows": sum(len(f) for f in result.node_results.values())}))
"""


def run_json(python: str, code: str, *args: str, env: dict | None = None) -> dict:
    done = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"{python} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def frames(haystack_python: str, n_queries: int, work: Path) -> None:
    sys.path.insert(0, str(HERE))
    from synthetic import make_result

    folder = work / "result"
    make_result(n_queries).save(folder)
    hay = run_json(haystack_python, FRAMES_HAYSTACK, str(folder), str(work / "hay_out"), env=HAYSTACK_ENV)
    ours = run_json(sys.executable, FRAMES_EVALFRAME, str(folder), str(work / "ef_out"))
    rows = sum(1 for _ in open(folder / "Retriever.csv", "rb")) + sum(1 for _ in open(folder / "Reader.csv", "rb")) - 2
    print(f"\nframes: {n_queries:,} queries ({rows:,} rows), each tool in a fresh process, seconds")
    print(f"  {'operation':<40} {'Haystack 1.x':>13} {'evalframe':>10} {'speed-up':>9}")
    for name, seconds in hay["times"].items():
        mine = ours["times"][name]
        print(f"  {name:<40} {seconds:>13.3f} {mine:>10.3f} {seconds / mine:>8.0f}x")
    print("  metrics (Haystack 1.x | evalframe):")
    for node in NODES:
        for metric, value in hay["metrics"].get(node, {}).items():
            other = ours["metrics"].get(node, {}).get(metric)
            mark = "" if other is not None and abs(other - value) <= 1e-12 else "   (differs: docs/haystack-compat.md)"
            print(f"    {node:<10} {metric:<22} {value:.6f} | {other if other is None else f'{other:.6f}'}{mark}")


def build(haystack_python: str, n_queries: int, work: Path) -> None:
    sys.path.insert(0, str(HERE))
    from bench_flatten import workload

    from evalframe import EvaluationResult
    from evalframe.sources.matching import context_similarity

    labels, outputs = workload(n_queries)
    queries = [{"labels": [label.to_dict() for label in multilabel.labels],
                "documents": [d.to_dict() for d in documents], "answers": [a.to_dict() for a in answers]}
               for multilabel, documents, answers in zip(labels, outputs["Retriever"]["documents"],
                                                         outputs["Reader"]["answers"])]
    path = work / "build.json"
    path.write_text(json.dumps({"params": BUILD_PARAMS, "queries": queries}, default=str))
    hay = run_json(haystack_python, BUILD_HAYSTACK, str(path), env=HAYSTACK_ENV)

    start = time.perf_counter()
    result = EvaluationResult.from_runs(labels, outputs, progress=False)
    ours = time.perf_counter() - start
    # the rest of the build, measured directly: the same build with every similarity a constant (no scoring at all)
    import evalframe.sources.flatten as flatten

    scorer = flatten.context_similarities
    flatten.context_similarities = lambda pairs, **options: [0.0] * len(list(pairs))
    try:
        start = time.perf_counter()
        EvaluationResult.from_runs(labels, outputs, progress=False)
        rest = time.perf_counter() - start
    finally:
        flatten.context_similarities = scorer
    pairs = {(str(g), candidate) for ml, docs, answers in zip(labels, outputs["Retriever"]["documents"],
                                                              outputs["Reader"]["answers"])
             for g in ml.contexts
             for candidate in [*(d.content for d in docs), *(a.context for a in answers if a.context)]}
    start = time.perf_counter()
    for gold, candidate in pairs:
        context_similarity(gold, candidate)
    floor = time.perf_counter() - start
    rows = sum(len(f) for f in result.node_results.values())
    print(f"\nbuild: {n_queries:,} queries of bench_flatten ({rows:,} rows; Haystack built {hay['rows']:,}), seconds")
    print(f"  Haystack 1.x Pipeline()._build_eval_dataframe per query and node   {hay['seconds']:>9.2f}")
    print(f"  evalframe EvaluationResult.from_runs                               {ours:>9.2f}"
          f"   ({hay['seconds'] / ours:.0f}x faster)")
    print(f"  context_similarity of the {len(pairs):,} distinct (gold context, document) pairs, one after another "
          f"on one core: {floor:.2f} s (from_runs spreads them over one process per core)")
    print(f"  the rest of the build (from_runs with every similarity a constant): {rest:.2f} s = {rest / ours:.0%} of "
          f"from_runs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--haystack", default="/tmp/haystack1", help="the Haystack 1.x virtualenv (default /tmp/haystack1)")
    parser.add_argument("--queries", type=int, default=4000, help="queries of the frames comparison (default 4,000)")
    parser.add_argument("--build-queries", type=int, default=1000, help="queries of the build comparison (default 1,000)")
    parser.add_argument("--only", choices=("frames", "build"), default=None)
    args = parser.parse_args(argv)
    python = str(Path(args.haystack) / "bin" / "python")
    if not Path(python).exists():
        raise SystemExit(f"no Haystack 1.x virtualenv at {args.haystack} (--haystack): build it first with "
                         f"benchmarks/setup_haystack1.sh {args.haystack}")
    with tempfile.TemporaryDirectory() as work:
        if args.only in (None, "frames"):
            frames(python, args.queries, Path(work))
        if args.only in (None, "build"):
            build(python, args.build_queries, Path(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
