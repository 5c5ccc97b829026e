"""TREC run + qrels -> trec_eval's numbers: ``python benchmarks/bench_trec.py --queries 10000 --depth 100``.

Writes a random run (scores with ties) and graded qrels (grades 0..3, some judged documents not retrieved, some
queries only in the qrels and some only in the run) to a temporary folder, then times, each in this process:
``EvaluationResult.from_trec`` on the files, ``trec_metrics`` of eight measures and of a four-cutoff sweep (cold and
warm), ``to_trec_run`` / ``to_qrels``; and, when pytrec_eval is installed (a test-only dependency), pytrec_eval's own
parsing of the files (``parse_run`` / ``parse_qrel``) and its evaluation of the same measures on its dict form. The
peak RSS of the process is printed after each step (``--only-evalframe`` stops before pytrec_eval, so the peak is
evalframe's; ``--skip-write`` leaves out ``to_trec_run`` / ``to_qrels``). Every per-query value is compared with
pytrec_eval's (RR@k: its ``recip_rank`` on the run cut to the top k) and the number that agree to 1e-12 is printed.
The side-by-side with ranx and with loading in each tool's own form is ``benchmarks/vs_peers.py`` (issue 16).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from evalframe import EvaluationResult

MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec", "Bpref"]
SWEEP = ["P@1", "P@5", "P@10", "P@20", "nDCG@1", "nDCG@5", "nDCG@10", "nDCG@20", "RR@10", "Success@10"]
#: pytrec_eval's name of each measure (RR@10: recip_rank on the cut run, below).
PYTREC = {"AP": "map", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "R@100": "recall_100",
          "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref", "P@1": "P_1", "P@5": "P_5", "P@20": "P_20",
          "nDCG@1": "ndcg_cut_1", "nDCG@5": "ndcg_cut_5", "nDCG@20": "ndcg_cut_20", "Success@10": "success_10"}


def write_files(folder: Path, n_queries: int, depth: int, seed: int = 0) -> tuple[Path, Path]:
    """A run of ``n_queries - n/20`` queries x ``depth`` documents and qrels of ``n_queries - n/20`` queries."""
    rng = np.random.default_rng(seed)
    run_queries = np.arange(n_queries - n_queries // 20)
    qid = np.repeat(run_queries, depth)
    # documents per query distinct: draw from 5*depth without replacement by sorting random keys
    keys = rng.random((len(run_queries), 5 * depth)).argsort(axis=1)[:, :depth]
    docid = keys.ravel()
    score = np.round(rng.random(len(qid)) * 20, 1)  # one decimal: ties within a query are common
    run = pd.DataFrame({"qid": "q" + pd.Series(qid).astype(str), "q0": "Q0", "docid": "d" + pd.Series(docid).astype(str),
                        "rank": np.tile(np.arange(1, depth + 1), len(run_queries)), "score": score, "tag": "bench"})
    judged_queries = np.arange(n_queries // 20, n_queries)  # the first n/20 only in the run, the last n/20 only in the qrels
    per_query = 20
    jq = np.repeat(judged_queries, per_query)
    jd = rng.random((len(judged_queries), 5 * depth)).argsort(axis=1)[:, :per_query].ravel()
    grade = rng.choice([0, 0, 1, 1, 2, 3], size=len(jq))
    qrels = pd.DataFrame({"qid": "q" + pd.Series(jq).astype(str), "iter": 0, "docid": "d" + pd.Series(jd).astype(str),
                          "rel": grade})
    run_path, qrels_path = folder / "bench.run", folder / "bench.qrels"
    run.to_csv(run_path, sep=" ", header=False, index=False)
    qrels.to_csv(qrels_path, sep=" ", header=False, index=False)
    return run_path, qrels_path


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def peak_mb() -> float:
    """The process's peak resident set size so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--folder", type=Path, default=None, help="write (or reuse) the files there")
    parser.add_argument("--only-evalframe", action="store_true", help="stop before pytrec_eval (evalframe's peak RSS)")
    parser.add_argument("--skip-write", action="store_true", help="leave out to_trec_run and to_qrels")
    args = parser.parse_args(argv)
    folder = args.folder or Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = folder / "bench.run", folder / "bench.qrels"
    if not (run_path.exists() and qrels_path.exists()):
        run_path, qrels_path = write_files(folder, args.queries, args.depth)
    start_mb = peak_mb()
    rows = []
    seconds, result = timed(lambda: EvaluationResult.from_trec(str(run_path), str(qrels_path), progress=False))
    rows.append(("(a) from_trec(run, qrels) (files)", seconds, peak_mb()))
    seconds, table = timed(lambda: result.trec_query_metrics(MEASURES))
    rows.append((f"(b) trec_metrics({len(MEASURES)} measures) (cold)", seconds, peak_mb()))
    rows.append(("(a)+(b)", rows[0][1] + rows[1][1], peak_mb()))
    seconds, _ = timed(lambda: result.trec_metrics(MEASURES))
    rows.append((f"trec_metrics({len(MEASURES)} measures) (warm)", seconds, peak_mb()))
    seconds, sweep = timed(lambda: result.trec_query_metrics(SWEEP))
    rows.append((f"trec_metrics({len(SWEEP)} cutoff measures) (warm)", seconds, peak_mb()))
    if not args.skip_write:
        seconds, _ = timed(lambda: result.to_trec_run(str(folder / "out.run")))
        rows.append(("to_trec_run", seconds, peak_mb()))
        seconds, _ = timed(lambda: result.to_qrels(str(folder / "out.qrels")))
        rows.append(("to_qrels", seconds, peak_mb()))

    frame = result["Retriever"]
    print(f"{args.queries:,} queries x {args.depth} documents ({len(frame):,} rows); peak RSS before: {start_mb:,.0f} MB")
    print(f"  {'operation':<50} {'seconds':>9} {'peak RSS MB':>12}")
    for name, value, mb in rows:
        print(f"  {name:<50} {value:>9.3f} {mb:>12,.0f}")
    if args.only_evalframe:
        return 0
    try:
        import pytrec_eval  # test- and benchmark-only
    except ImportError:
        print("  (pytrec_eval not installed: no comparison)")
        return 0

    def parse() -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
        with open(run_path) as run_file, open(qrels_path) as qrels_file:
            return pytrec_eval.parse_run(run_file), pytrec_eval.parse_qrel(qrels_file)

    parse_seconds, (run_dict, qrels_dict) = timed(parse)
    print(f"  {'pytrec_eval (a) parse_run + parse_qrel (files)':<50} {parse_seconds:>9.3f} {peak_mb():>12,.0f}")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "ndcg", "ndcg_cut.1,5,10,20", "P.1,5,10,20",
                                                            "recall.100", "recip_rank", "Rprec", "bpref", "success.10"})
    seconds, reference = timed(lambda: evaluator.evaluate(run_dict))
    print(f"  {'pytrec_eval (b) evaluate (its dict form, same measures)':<50} {seconds:>9.3f} {peak_mb():>12,.0f}")
    print(f"  {'pytrec_eval (a)+(b)':<50} {parse_seconds + seconds:>9.3f}")

    def top(docs: dict[str, float], k: int) -> dict[str, float]:  # trec_eval's order: score desc, then docid desc
        by_id = sorted(docs.items(), key=lambda item: item[0], reverse=True)
        return dict(sorted(by_id, key=lambda item: -item[1])[:k])

    cut = {q: top(docs, 10) for q, docs in run_dict.items()}
    rr10 = pytrec_eval.RelevanceEvaluator(qrels_dict, {"recip_rank"}).evaluate(cut)
    both = table.join(sweep.drop(columns=[c for c in sweep.columns if c in table.columns]))
    compared = agree = 0
    worst = 0.0
    for qid, values in both.iterrows():
        for measure, value in values.items():
            expected = rr10[qid]["recip_rank"] if measure == "RR@10" else reference[qid][PYTREC[measure]]
            compared += 1
            difference = abs(value - expected)
            worst = max(worst, difference)
            agree += difference <= 1e-12
    if set(reference) != set(both.index):
        raise SystemExit("evalframe and pytrec_eval evaluated different queries")
    print(f"  per-query values equal to pytrec_eval to 1e-12: {agree:,} of {compared:,} (largest difference {worst:.1e}); "
          f"{len(both):,} queries evaluated by both, {len(both.columns)} measures")
    return 0 if agree == compared else 1


if __name__ == "__main__":
    sys.exit(main())
