"""Benchmark runner: ``python benchmarks/run.py --queries 1000,10000,100000``.

Prints, per query count, the median of 3 runs of each operation on a synthetic result
(benchmarks/synthetic.py): 10 documents and 5 + 5 answers per query.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_result  # noqa: E402

from evalframe import EvaluationResult  # noqa: E402


def timed(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(n_queries: int, repeat: int) -> list[tuple[str, float]]:
    result = make_result(n_queries)
    folder = Path(tempfile.mkdtemp()) / "result"
    rows = []
    rows.append(("calculate_metrics()", timed(result.calculate_metrics, repeat)))
    rows.append(("calculate_metrics(simulated_top_k_retriever=3)",
                 timed(lambda: result.calculate_metrics(simulated_top_k_retriever=3), repeat)))
    rows.append(('calculate_metrics(document_scope="context", answer_scope="context")',
                 timed(lambda: result.calculate_metrics(document_scope="context", answer_scope="context"), repeat)))
    rows.append(('query_metrics("Retriever")', timed(lambda: result.query_metrics("Retriever"), repeat)))
    rows.append(('wrong_examples("Reader", n=10)', timed(lambda: result.wrong_examples("Reader", n=10), repeat)))
    rows.append(("save CSV", timed(lambda: result.save(folder), repeat)))
    rows.append(("load CSV", timed(lambda: EvaluationResult.load(folder), repeat)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", default="1000,10000", help="comma-separated query counts")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    for n in [int(x) for x in args.queries.split(",")]:
        rows = run(n, args.repeat)
        result_rows = n * 20
        print(f"\n{n} queries ({result_rows} rows), median of {args.repeat}")
        for name, seconds in rows:
            print(f"  {name:<72} {seconds:8.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
