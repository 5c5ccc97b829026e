"""Synthetic Ragas datasets of insurance questions, as a Ragas user writes them (``to_jsonl``): per sample the
question, its retrieved passages with their ids, the reference passages' ids, the response, the reference answer,
a topic and four judge scores. Two runs from one seed share their questions and gold; the second retrieves and
answers differently (some queries better, some worse), as a changed pipeline does.

Run ``python benchmarks/synthetic_ragas.py N FOLDER`` to write ``FOLDER/a.jsonl`` and ``FOLDER/b.jsonl``.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import numpy as np

TOPICS = ("claims", "billing", "coverage", "policy changes", "cancellation", "roadside assistance")
_SYLLABLES = ("po", "li", "cy", "pre", "mi", "um", "de", "duc", "ti", "ble", "claim", "cov", "er", "age", "ad", "jus",
              "tor", "ve", "hi", "cle", "home", "flood", "storm", "theft", "lia", "bil", "ty", "col", "sion", "wind",
              "shield", "ren", "tal", "in", "voice", "pay", "ment", "re", "fund", "can", "cel", "la", "tion", "ben",
              "fi", "ci", "ar", "ri", "dor", "ex", "clu", "lim", "it", "pe", "od", "no", "tice", "form", "a", "gent")
#: A vocabulary of 12,000 words drawn by a Zipf-like law, so that the passages compress about as English prose does
#: (3.3x with gzip; English prose 2.8-3x), not as a handful of repeated words would (8x).
_VOCABULARY = np.random.default_rng(0).permutation(sorted(
    {"".join(np.random.default_rng(k).choice(_SYLLABLES, size=2 + k % 3)) for k in range(30000)}))[:12000]
_WEIGHTS = 1.0 / np.arange(1, len(_VOCABULARY) + 1) ** 0.8
_CUMULATIVE = np.cumsum(_WEIGHTS) / _WEIGHTS.sum()


def _text(rng: np.random.Generator, words: int) -> str:
    drawn = np.minimum(np.searchsorted(_CUMULATIVE, rng.random(words)), len(_VOCABULARY) - 1)
    return " ".join(_VOCABULARY[drawn]).capitalize() + "."


def _passage(document: str) -> str:
    """The text of a document of the corpus: the same for every run that retrieves it."""
    rng = np.random.default_rng(zlib.crc32(document.encode()))
    return _text(rng, int(rng.integers(40, 90)))


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
        contexts = [_passage(document) for document in ids]
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
