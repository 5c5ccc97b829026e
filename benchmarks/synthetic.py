"""Realistic synthetic evaluation results for benchmarks.

``make_result(n_queries)`` gives a Retriever node (10 ranked documents per query, integrated) and a
Reader node (5 answers per query, integrated and isolated), 1-3 gold labels per query, ~10% no-answer
queries, with every list column filled the way the flattener fills it (docs/runs-format.md). Columns are built
with numpy; list cells are plain Python lists of floats / strings.

``make_frames(rng, numbers, n_queries)`` makes the rows of some of the queries of an ``n_queries``-query result
on their own (one partition of benchmarks/bench_dask.py's generator), and ``order_keys`` gives their rows'
positions in that whole result: ``make_result(n)`` is ``make_frames(default_rng(seed), arange(n), n)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalframe import EvaluationResult

DOCS_PER_QUERY = 10
ANSWERS_PER_QUERY = 5
T = 65.0


def _lists(values: np.ndarray, lengths: np.ndarray) -> list[list]:
    """Split a flat array into Python lists of the given lengths."""
    flat = values.tolist()
    out, start = [], 0
    for n in lengths.tolist():
        out.append(flat[start:start + n])
        start += n
    return out


def _query_frame(rng: np.random.Generator, numbers: np.ndarray, n_documents: int) -> dict[str, np.ndarray | list]:
    n_queries = len(numbers)
    n_gold = rng.integers(1, 4, size=n_queries)
    no_answer = rng.random(n_queries) < 0.1
    n_gold[no_answer] = 0
    gold_docs = rng.integers(0, n_documents, size=int(n_gold.sum()))
    gold_ids = _lists(np.char.add("doc-", gold_docs.astype(str)), n_gold)
    answers = _lists(np.char.add("answer ", rng.integers(0, 10_000, size=int(n_gold.sum())).astype(str)), n_gold)
    answers = [a if a else [""] for a in answers]
    contexts = [[f"gold passage for {g}" for g in ids] for ids in gold_ids]
    return {
        "multilabel_id": query_ids(numbers),
        "query": np.array([f"synthetic question number {i}?" for i in numbers.tolist()], dtype=object),
        "n_gold": n_gold, "gold_ids": gold_ids, "gold_answers": answers, "gold_contexts": contexts,
    }


def _retriever(rng: np.random.Generator, q: dict, n_documents: int) -> pd.DataFrame:
    n_queries = len(q["n_gold"])
    per = DOCS_PER_QUERY
    rows = n_queries * per
    query_of = np.repeat(np.arange(n_queries), per)
    rank = np.tile(np.arange(1, per + 1), n_queries)
    n_gold_rows = q["n_gold"][query_of]
    total_pairs = int(n_gold_rows.sum())
    row_of_pair = np.repeat(np.arange(rows), n_gold_rows)
    rank_of_pair = rank[row_of_pair]
    # pairs are (row, gold i); the gold i of a query is hit on the row whose rank equals its hit_rank
    pair_gold_index = np.arange(total_pairs) - np.repeat(np.cumsum(n_gold_rows) - n_gold_rows, n_gold_rows)
    query_pair_start = np.repeat(np.cumsum(q["n_gold"]) - q["n_gold"], per)[row_of_pair]
    # each gold label is found at one random rank with probability 0.6 (rank 0: not found)
    n_labels = int(q["n_gold"].sum())
    label_hit_rank = rng.integers(1, per + 1, size=n_labels) * (rng.random(n_labels) < 0.6)
    id_match = (label_hit_rank[query_pair_start + pair_gold_index] == rank_of_pair).astype(np.float64)
    similarity = np.where(id_match == 1.0, rng.uniform(66, 100, total_pairs), rng.uniform(0, 70, total_pairs)).round(2)
    answer_match = np.where(id_match == 1.0, rng.random(total_pairs) < 0.8, rng.random(total_pairs) < 0.05).astype(np.float64)
    gold_flat_ids = np.concatenate([np.array(ids, dtype=object) for ids in q["gold_ids"] if ids] or [np.array([], dtype=object)])
    doc_ids = np.char.add("doc-", rng.integers(0, n_documents, size=rows).astype(str)).astype(object)
    hit_rows = row_of_pair[id_match == 1.0]
    doc_ids[hit_rows] = gold_flat_ids[(query_pair_start + pair_gold_index)[id_match == 1.0]]

    def per_row_max(values: np.ndarray) -> np.ndarray:
        out = np.zeros(rows)
        np.maximum.at(out, row_of_pair, values)
        return out

    gold_id = per_row_max(id_match)
    context = per_row_max((similarity > T).astype(np.float64))
    answer = per_row_max(answer_match)
    both = lambda a, b: per_row_max(np.minimum(a, b))  # noqa: E731
    ctx_flag = (similarity > T).astype(np.float64)
    frame = pd.DataFrame({
        "multilabel_id": q["multilabel_id"][query_of],
        "query": q["query"][query_of],
        "filters": None,
        "gold_answers": [q["gold_answers"][i] for i in query_of],
        "context": np.char.add("retrieved passage text ", doc_ids.astype(str)).astype(object),
        "gold_contexts": [q["gold_contexts"][i] for i in query_of],
        "gold_id_match": gold_id,
        "context_match": context,
        "answer_match": answer,
        "gold_id_or_answer_match": np.maximum(gold_id, answer),
        "gold_id_and_answer_match": both(id_match, answer_match),
        "gold_id_or_context_match": np.maximum(gold_id, context),
        "gold_id_and_context_match": both(id_match, ctx_flag),
        "gold_id_and_context_and_answer_match": per_row_max(np.minimum(np.minimum(id_match, ctx_flag), answer_match)),
        "context_and_answer_match": both(ctx_flag, answer_match),
        "rank": rank.astype(np.float64),
        "document_id": doc_ids,
        "gold_document_ids": [q["gold_ids"][i] for i in query_of],
        "gold_documents_id_match": _lists(id_match, n_gold_rows),
        "gold_contexts_similarity": _lists(similarity, n_gold_rows),
        "gold_answers_match": _lists(answer_match, n_gold_rows),
        "type": "document",
        "node": "Retriever",
        "eval_mode": "integrated",
    })
    return frame


def _reader(rng: np.random.Generator, q: dict, retriever: pd.DataFrame) -> pd.DataFrame:
    n_queries = len(q["n_gold"])
    parts = []
    for mode in ("integrated", "isolated"):
        per = ANSWERS_PER_QUERY
        rows = n_queries * per
        query_of = np.repeat(np.arange(n_queries), per)
        rank = np.tile(np.arange(1, per + 1), n_queries)
        source_rank = rng.integers(1, DOCS_PER_QUERY + 1, size=rows)
        doc_ids = retriever["document_id"].to_numpy()[query_of * DOCS_PER_QUERY + source_rank - 1]
        em = (rng.random(rows) < 0.3).astype(np.float64)
        f1 = np.where(em == 1.0, 1.0, rng.choice([0.0, 0.25, 0.4, 0.5, 0.8], size=rows))
        frame = pd.DataFrame({
            "multilabel_id": q["multilabel_id"][query_of],
            "query": q["query"][query_of],
            "filters": None,
            "gold_answers": [q["gold_answers"][i] for i in query_of],
            "answer": np.char.add("answer ", rng.integers(0, 10_000, size=rows).astype(str)).astype(object),
            "context": np.char.add("answer context ", doc_ids.astype(str)).astype(object),
            "exact_match": em,
            "f1": f1,
            "exact_match_context_scope": em * (rng.random(rows) < 0.8),
            "f1_context_scope": f1 * (rng.random(rows) < 0.8),
            "exact_match_document_id_scope": em * (rng.random(rows) < 0.7),
            "f1_document_id_scope": f1 * (rng.random(rows) < 0.7),
            "exact_match_document_id_and_context_scope": em * (rng.random(rows) < 0.6),
            "f1_document_id_and_context_scope": f1 * (rng.random(rows) < 0.6),
            "gold_contexts": [q["gold_contexts"][i] for i in query_of],
            "rank": rank.astype(np.float64),
            "document_ids": [[d] for d in doc_ids.tolist()],
            "gold_document_ids": [q["gold_ids"][i] for i in query_of],
            "offsets_in_document": [[{"start": 0, "end": 10}]] * rows,
            "gold_offsets_in_documents": [[{"start": 0, "end": 10}]] * rows,
            "gold_answers_exact_match": [[e] * max(1, n) for e, n in zip(em.tolist(), q["n_gold"][query_of].tolist())],
            "gold_contexts_similarity": _lists(rng.uniform(0, 100, int(q["n_gold"][query_of].sum())).round(2),
                                               q["n_gold"][query_of]),
            "gold_documents_id_match": [[float(d == g) for g in q["gold_ids"][i]]
                                        for d, i in zip(doc_ids.tolist(), query_of.tolist())],
            "gold_answers_f1": [[f] * max(1, n) for f, n in zip(f1.tolist(), q["n_gold"][query_of].tolist())],
            "type": "answer",
            "node": "Reader",
            "eval_mode": mode,
        })
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def query_ids(numbers: np.ndarray) -> np.ndarray:
    """The ``multilabel_id`` of the queries numbered ``numbers`` (32 hex digits, as Haystack's ids look)."""
    return np.array([f"{i:032x}" for i in np.asarray(numbers).tolist()], dtype=object)


def make_frames(rng: np.random.Generator, numbers: np.ndarray, n_queries: int) -> dict[str, pd.DataFrame]:
    """The Retriever and Reader rows of the queries numbered ``numbers`` (ascending) of an ``n_queries``-query result.

    Document ids are drawn from the whole result's range (``5 * n_queries``), so a subset of the queries looks like
    a part of the whole; its rows are query-major as in :func:`make_result`, and :func:`order_keys` gives their
    positions in the whole result.
    """
    numbers = np.asarray(numbers, dtype=np.int64)
    q = _query_frame(rng, numbers, n_queries * 5)
    retriever = _retriever(rng, q, n_queries * 5)
    return {"Retriever": retriever, "Reader": _reader(rng, q, retriever)}


def order_keys(numbers: np.ndarray, n_queries: int) -> dict[str, np.ndarray]:
    """Per node, the positions (int64) in an ``n_queries``-query result of the rows :func:`make_frames` makes."""
    numbers = np.asarray(numbers, dtype=np.int64)
    documents = (numbers[:, None] * DOCS_PER_QUERY + np.arange(DOCS_PER_QUERY)).ravel()
    answers = (numbers[:, None] * ANSWERS_PER_QUERY + np.arange(ANSWERS_PER_QUERY)).ravel()
    # the Reader node holds all integrated rows, then all isolated rows
    return {"Retriever": documents, "Reader": np.concatenate([answers, answers + n_queries * ANSWERS_PER_QUERY])}


def make_result(n_queries: int, seed: int = 0) -> EvaluationResult:
    """A synthetic two-node result with ``n_queries`` queries (15 + 5 rows per query)."""
    frames = make_frames(np.random.default_rng(seed), np.arange(n_queries), n_queries)
    return EvaluationResult(frames, matching={"context_matching_threshold": T})
