"""Three small retriever runs over four queries, for the comparative report's tests (hand-worked values below).

Each query has one gold document g<i>; x<i> / y<i> are unrelated. The reciprocal rank (mrr) per query:

=====  ===============  ===============  ===================
query  run A            run B            run C
=====  ===============  ===============  ===================
q1     [g1] 1           [x1, g1] 1/2     [g1] 1
q2     [x2, g2] 1/2     [g2] 1           [x2, g2] 1/2
q3     [g3] 1           [g3] 1           [x3, y3, g3] 1/3
q4     [x4] 0           [g4] 1           [x4] 0
=====  ===============  ===============  ===================

mrr: A 2.5/4 = 0.625, B 3.5/4 = 0.875, C (1 + 1/2 + 1/3) / 4 = 0.458333...; B - A per query [-1/2, 1/2, 0, 1]
(mean 1/4; q1 regressed, q2 and q4 improved), C - A [0, 0, -2/3, 0] (mean -1/6; q3 regressed).
q4's text holds ``</script><b>&`` (every text of the page is escaped); meta.topic: q1, q2 "x", q3, q4 "y".
"""

from __future__ import annotations

import json
from pathlib import Path

from evalframe import EvaluationResult
from evalframe.sources.runs import read_runs

QUERIES = ["where is g1?", "where is g2?", "where is g3?", "what breaks </script><b>& a page?"]
RANKINGS = {"A": [["g1"], ["x2", "g2"], ["g3"], ["x4"]],
            "B": [["x1", "g1"], ["g2"], ["g3"], ["g4"]],
            "C": [["g1"], ["x2", "g2"], ["x3", "y3", "g3"], ["x4"]]}


def run_lines(run: str) -> list[dict]:
    lines = []
    for i, (query, ranking) in enumerate(zip(QUERIES, RANKINGS[run]), start=1):
        documents = [{"id": d, "content": f"passage {d} with word{d}"} for d in ranking]
        lines.append({"query": query, "meta": {"topic": "x" if i <= 2 else "y"},
                      "gold": {"document_ids": [f"g{i}"], "contexts": [f"passage g{i} with wordg{i}"],
                               "answers": [f"answer{i}"]},
                      "nodes": {"Retriever": {"documents": documents}}})
    return lines


def run_result(run: str, folder: Path) -> EvaluationResult:
    path = folder / f"run{run}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in run_lines(run)), encoding="utf-8")
    labels, outputs = read_runs(path, progress=False)
    meta = [line["meta"] for line in run_lines(run)]
    return EvaluationResult.from_runs(labels, outputs, meta=meta, progress=False)
