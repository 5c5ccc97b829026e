"""Synthetic Ragas datasets of insurance questions, as a Ragas user writes them (``to_jsonl``): per sample the
question, its retrieved passages with their ids, the reference passages' ids, the response, the reference answer,
a topic and four judge scores. Two runs from one seed share their questions and gold; the second retrieves and
answers differently (some queries better, some worse), as a changed pipeline does.

Run ``python benchmarks/synthetic_ragas.py N FOLDER`` to write ``FOLDER/a.jsonl`` and ``FOLDER/b.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

TOPICS = ("claims", "billing", "coverage", "policy changes", "cancellation", "roadside assistance")
_WORDS = ("policy premium deductible claim coverage adjuster vehicle home flood storm theft liability collision "
          "windshield rental renewal invoice payment refund cancellation beneficiary rider endorsement exclusion "
          "limit period notice form agent broker inspection estimate repair damage injury medical dental travel "
          "luggage delay baggage pet accident fire water mold roof basement contents jewelry bicycle phone").split()


def _text(rng: np.random.Generator, words: int) -> str:
    return " ".join(rng.choice(_WORDS, size=words)).capitalize() + "."


def samples(n: int, run: int, seed: int = 0) -> list[dict]:
    """``n`` samples of run ``run`` (0, 1, 2, ...): the same questions, gold and topics for every run of a seed."""
    shared = np.random.default_rng(seed)
    mine = np.random.default_rng(seed * 1000 + run + 1)
    rows = []
    for i in range(n):
        gold = [f"doc-{i}-{g}" for g in range(int(shared.integers(1, 3)))]
        question = f"Q{i}: " + _text(shared, int(shared.integers(8, 16)))[:-1] + "?"
        reference = _text(shared, int(shared.integers(10, 30)))
        topic = TOPICS[int(shared.integers(0, len(TOPICS)))]
        found = [g for g in gold if mine.random() < 0.7]
        ids = found + [f"doc-{i}-{k}" for k in mine.choice(np.arange(2, 40), 5 - len(found), replace=False)]
        mine.shuffle(ids)
        contexts = [_text(mine, int(mine.integers(40, 90))) for _ in ids]
        rows.append({"user_input": question, "retrieved_contexts": contexts, "retrieved_context_ids": ids,
                     "reference_context_ids": gold, "response": _text(mine, int(mine.integers(10, 40))),
                     "reference": reference, "topic": topic,
                     "faithfulness": round(float(mine.beta(5, 2)), 4),
                     "answer_relevancy": round(float(mine.beta(6, 2)), 4),
                     "context_precision": round(float(mine.beta(4, 2)), 4),
                     "context_recall": round(float(mine.beta(4, 3)), 4)})
    return rows


def write(n: int, folder: Path, runs: int = 2, seed: int = 0) -> list[Path]:
    """Write ``runs`` datasets of ``n`` samples to ``folder`` (a.jsonl, b.jsonl, ...) and return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for run in range(runs):
        path = folder / f"{'abcdefgh'[run]}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in samples(n, run, seed)), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write(int(sys.argv[1]), Path(sys.argv[2]), runs=int(sys.argv[3]) if len(sys.argv) > 3 else 2):
        print(written)
