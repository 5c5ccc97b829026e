"""Throughput of EvaluationResult.from_runs: ``python benchmarks/bench_flatten.py [--queries 10000]``.

A SQuAD-shaped workload: a corpus of 200-600 character passages with about 5 questions each; every question
has 1-3 gold labels (annotators' answers on its passage; 20% also cite a second passage), a retriever returns
10 documents drawn from the passage's topical neighbourhood (so sibling questions share retrievals, as with
BM25), and a reader returns 5 answers whose context is the document they come from. Prints rows/s, the number of
distinct (gold context, candidate) pairs and the time per pair, which dominates.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from evalframe import Answer, Document, EvaluationResult, Label, MultiLabel

WORDS = ("the of and to in is was for on that with as by at from his it an were are which be this has had also "
         "its their first one after two new who have been they more other all when there time into most only over "
         "some such than many years may made being where these river city museum empire treaty army century church "
         "university population capital island mountain language music album season election company station bridge "
         "railway castle dynasty painting novel species battle harbour festival cathedral republic parliament").split()


def passage(rng: random.Random) -> str:
    target = rng.randint(200, 600)
    words = []
    while sum(len(w) + 1 for w in words) < target:
        words.append(rng.choice(WORDS) if rng.random() < 0.7
                     else "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 10))))
    return " ".join(words)[:target]


def workload(n_queries: int, seed: int = 0):
    rng = random.Random(seed)
    n_passages = max(20, n_queries // 5)
    corpus = [Document(passage(rng), id=f"p{i}") for i in range(n_passages)]
    labels, documents, answers = [], [], []
    for q in range(n_queries):
        home = q // 5 % n_passages
        gold_docs = [corpus[home]] * rng.randint(1, 3)
        if rng.random() < 0.2:
            gold_docs.append(corpus[(home + rng.randint(1, 50)) % n_passages])
        query = f"question {q} about passage {home}?"
        labels.append(MultiLabel([
            Label(query, doc, True, True, "gold-label", Answer(" ".join(doc.content.split()[j:j + 2])), id=f"l{q}-{j}",
                  created_at="2024-01-01 00:00:00")
            for j, doc in enumerate(gold_docs)
        ]))
        neighbourhood = [corpus[(home + k) % n_passages] for k in range(-7, 8)]
        retrieved = rng.sample(neighbourhood, 10)
        if rng.random() < 0.2:
            retrieved.remove(corpus[home]) if corpus[home] in retrieved else None
            retrieved = retrieved[:9] + [corpus[rng.randrange(n_passages)]]
        documents.append(retrieved)
        answers.append([
            Answer(" ".join(doc.content.split()[:2]), context=doc.content, document_ids=[doc.id], score=1 - r / 10)
            for r, doc in enumerate(retrieved[:5])
        ])
    return labels, {"Retriever": {"documents": documents}, "Reader": {"answers": answers}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=10_000)
    args = parser.parse_args(argv)
    labels, outputs = workload(args.queries)
    pairs = {(str(g), d.content) for ml, docs, ans in zip(labels, outputs["Retriever"]["documents"],
                                                        outputs["Reader"]["answers"])
             for g in ml.contexts for d in docs}
    start = time.perf_counter()
    result = EvaluationResult.from_runs(labels, outputs, progress=False)
    seconds = time.perf_counter() - start
    rows = sum(len(frame) for frame in result.node_results.values())
    print(f"from_runs: {args.queries} queries, {rows} rows in {seconds:.1f} s = {rows / seconds:,.0f} rows/s")
    per_pair = seconds / max(len(pairs), 1) * 1e3
    print(f"distinct (gold context, candidate) pairs: {len(pairs):,} ({per_pair:.2f} ms per pair, all work included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
