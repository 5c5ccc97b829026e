"""Properties every registered metric must have, run over the registry (as scikit-learn's test_common runs over its metrics).

Document metrics are computed the way ``EvaluationResult`` computes them: node frames (rows made by
:func:`tests.fixtures.doc_row`) -> :func:`evalframe.frames.prepared.prepare_document_rows` ->
:func:`evalframe.frames.tables.document_counts` (which calls :func:`evalframe.metrics.kernels.document_counts`)
-> each spec's kernel and edge policy. Random frames come from a seeded numpy RNG; the expected values
(query count, bounds, 1.0 for a perfect ranking, the policies' values) follow from how the frames are built.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.columns import CRITERIA, relevance_column
from evalframe.frames.prepared import DocumentRows, prepare_document_rows
from evalframe.frames.tables import document_counts
from evalframe.frames.topk import document_rows_kept
from evalframe.options import MatchingOptions
from evalframe.metrics import kernels
from evalframe.metrics.kernels import DocumentCounts, EdgePolicy
from evalframe.metrics.registry import (
    ANSWER_METRICS,
    DOCUMENT_METRICS,
    EVALUATOR_METRICS,
    LEVELS,
    METRICS,
    headline_metric,
)
from tests.fixtures import doc_row

ALL_DOCUMENT = {**DOCUMENT_METRICS, **EVALUATOR_METRICS}
BOUNDED = [name for name, m in ALL_DOCUMENT.items() if m.bounds is not None]
RECALLS = [name for name in ALL_DOCUMENT if name.startswith("recall")]
N_FRAMES = 40
THRESHOLD = MatchingOptions.context_matching_threshold
SEEDS = range(N_FRAMES)


# ------------------------------------------------------------------------------------- inputs
def random_frame(seed: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """A node frame of 1..6 queries; per query 0..4 gold ids, 1..8 retrieved rows (duplicates, ties, misses).

    Returns the frame and L per query. No "00" gold entries and ranks >= 1, so every spec's bounds hold.
    """
    rng = np.random.default_rng(seed)
    rows, n_gold = [], {}
    for q in range(int(rng.integers(1, 7))):
        qid = f"q{seed}_{q}"
        gold = [f"g{q}_{i}" for i in range(int(rng.integers(0, 5)))]
        n_gold[qid] = len(gold)
        pool = gold + [f"x{q}_{i}" for i in range(3)]
        n_rows = int(rng.integers(1, 9))
        ranks = np.sort(rng.integers(1, n_rows + 1, n_rows)) if rng.random() < 0.3 else np.arange(1, n_rows + 1)
        for rank in ranks:
            doc = pool[int(rng.integers(len(pool)))]
            id_match = [1 if doc == g else 0 for g in gold]
            sims = [float(rng.choice([100.0, 80.0, 40.0, 0.0])) if doc == g or rng.random() < 0.2 else 0.0 for g in gold]
            ans = [1 if (doc == g and rng.random() < 0.8) or rng.random() < 0.1 else 0 for g in gold]
            rows.append(doc_row(qid, int(rank), doc, gold, id_match, sims, ans, gold_answers=[f"a{q}"] if gold else [""]))
    return pd.DataFrame(rows), n_gold


def perfect_frame(n_gold: list[int], extra: int = 0) -> pd.DataFrame:
    """Per query every gold document at ranks 1..L, each matching its own gold index, then ``extra`` irrelevant rows."""
    rows = []
    for q, length in enumerate(n_gold):
        gold = [f"g{q}_{i}" for i in range(length)]
        one_hot = [[1 if i == j else 0 for j in range(length)] for i in range(length)]
        for i in range(length):
            rows.append(doc_row(f"q{q}", i + 1, gold[i], gold, one_hot[i], [100.0 * v for v in one_hot[i]], one_hot[i]))
        for e in range(extra):
            rows.append(doc_row(f"q{q}", length + e + 1, f"x{q}_{e}", gold, [0] * length, [0.0] * length, [0] * length))
    return pd.DataFrame(rows)


def counts_of(frame: pd.DataFrame, criterion: str, top_k: int = -1) -> DocumentCounts:
    rows = prepared(frame)
    return document_counts(rows, criterion=criterion, kept=document_rows_kept(rows, top_k), context_threshold=THRESHOLD)


def prepared(frame: pd.DataFrame) -> DocumentRows:
    return prepare_document_rows(frame, np.arange(len(frame)), where="test frame")


def criterion_of(seed: int) -> str:
    return list(CRITERIA)[seed % len(CRITERIA)]


# ------------------------------------------------------------------------------------- the registry
def test_every_level_has_one_headline_metric():
    for level in LEVELS:
        headlines = [m.name for m in METRICS.values() if m.level == level and m.headline]
        assert headlines == [headline_metric(level)]
    assert (headline_metric("answer"), headline_metric("document")) == ("f1", "recall_single_hit")
    with pytest.raises(ValueError, match="level must be one of"):
        headline_metric("documents")


def test_every_spec_is_complete():
    fields = set(DocumentCounts.__dataclass_fields__)
    for name, metric in {**METRICS, **EVALUATOR_METRICS}.items():
        assert metric.name == name and metric.level in LEVELS
        assert metric.description and metric.formula and metric.edge
        assert metric.bounds is None or metric.bounds[0] <= metric.bounds[1]
        assert metric.bounds is not None or metric.bounds_note, f"{name}: say why it is not bounded"
        if metric.level == "document":
            assert metric.inputs and set(metric.inputs) <= fields and metric.policy is not None
    assert {"map", "ndcg", "sas"} == {name for name, m in METRICS.items() if m.bounds is None}


def test_kernels_use_numpy_only_and_the_registry_does_not_reach_frames():
    package = Path(__file__).resolve().parents[2] / "evalframe" / "metrics"

    def imported(path: Path) -> set[str]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                names.add("." * node.level + (node.module or ""))
        return names

    assert imported(package / "kernels.py") <= {"__future__", "dataclasses", "numpy"}
    registry = imported(package / "registry.py")
    # `from . import kernels`, and the package's error family
    assert {name for name in registry if name.startswith(".")} <= {".", ".kernels", "..errors"}
    assert not any("pandas" in name or "frames" in name for name in registry)


# ------------------------------------------------------------------------------------- document metrics
@pytest.mark.parametrize("seed", SEEDS)
def test_one_value_per_query_within_bounds(seed):
    frame, n_gold = random_frame(seed)
    counts = counts_of(frame, criterion_of(seed))
    for name, metric in ALL_DOCUMENT.items():
        values = metric.values(counts)
        assert values.shape == (len(n_gold),), name
        if metric.bounds is not None:
            low, high = metric.bounds
            assert np.all((values >= low) & (values <= high)), (name, values)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_edge_policies(seed):
    frame, n_gold = random_frame(seed)
    criterion = criterion_of(seed)
    counts = counts_of(frame, criterion)
    no_gold = np.array([n_gold[q] == 0 for q in n_gold])
    relevant_rows = frame.groupby("multilabel_id", sort=False)[relevance_column(criterion)].max().reindex(list(n_gold))
    no_hit = ~no_gold & (relevant_rows.to_numpy() != 1.0)
    odd = EdgePolicy(no_gold=0.25, no_hit=0.75)
    for name, metric in ALL_DOCUMENT.items():
        values = metric.values(counts)
        assert np.all(values[no_gold] == metric.policy.no_gold), name
        assert np.all(values[no_hit] == metric.policy.no_hit), name
        other = metric.values(counts, odd)
        assert np.all(other[no_gold] == 0.25) and np.all(other[no_hit] == 0.75), name
        assert np.array_equal(other[~no_gold & ~no_hit], values[~no_gold & ~no_hit]), name


@pytest.mark.parametrize("seed", SEEDS)
def test_recall_never_drops_as_k_grows(seed):
    frame, _ = random_frame(seed)
    criterion = criterion_of(seed)
    rows = prepared(frame)
    counts = [document_counts(rows, criterion=criterion, kept=document_rows_kept(rows, k), context_threshold=THRESHOLD)
              for k in range(1, int(frame["rank"].max()) + 1)]
    counts.append(document_counts(rows, criterion=criterion, kept=document_rows_kept(rows, -1),  # no cut
                                  context_threshold=THRESHOLD))
    for name in RECALLS:
        at_k = [ALL_DOCUMENT[name].values(c) for c in counts]
        assert all(np.all(later >= earlier) for earlier, later in itertools.pairwise(at_k)), (name, at_k)


@pytest.mark.parametrize("criterion", list(CRITERIA))
def test_a_perfect_ranking_scores_one(criterion):
    frame = perfect_frame([1, 2, 3, 4])
    counts = counts_of(frame, criterion)
    for name, metric in ALL_DOCUMENT.items():
        assert metric.values(counts).tolist() == [1.0] * 4, name


@pytest.mark.parametrize("criterion", list(CRITERIA))
def test_a_perfect_ranking_then_misses_scores_one_but_for_precision(criterion):
    frame = perfect_frame([1, 2, 3], extra=2)
    counts = counts_of(frame, criterion)
    for name, metric in ALL_DOCUMENT.items():
        expected = [1 / 3, 2 / 4, 3 / 5] if name == "precision" else [1.0] * 3
        assert metric.values(counts).tolist() == pytest.approx(expected), name


def test_the_public_path_gives_the_same_perfect_scores():
    result = EvaluationResult({"Retriever": perfect_frame([1, 2, 3], extra=2)})
    for top_k, precision in ((-1, [1 / 3, 2 / 4, 3 / 5]), (3, [1 / 3, 2 / 3, 1.0])):
        table = result.query_metrics("Retriever", simulated_top_k_retriever=top_k, document_scope="document_id")
        assert list(table.columns) == list(DOCUMENT_METRICS)
        for name in DOCUMENT_METRICS:
            expected = precision if name == "precision" else [1.0] * 3
            assert table[name].tolist() == pytest.approx(expected), (top_k, name)


# ------------------------------------------------------------------------------------- answer metrics
@pytest.mark.parametrize("seed", SEEDS)
def test_answer_kernel_best_kept_value(seed):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 6))
    row_query = np.sort(np.r_[np.arange(n_queries), rng.integers(0, n_queries, int(rng.integers(0, 12)))])
    values = rng.random(len(row_query))
    kept = rng.random(len(row_query)) < 0.6
    perfect = rng.integers(0, n_queries)  # this query gets a kept row scoring 1.0
    first = int(np.flatnonzero(row_query == perfect)[0])
    values[first], kept[first] = 1.0, True
    starts = np.searchsorted(row_query, np.arange(n_queries))
    for name, metric in ANSWER_METRICS.items():
        best = metric.kernel(values, kept, row_query=row_query, by_query=np.arange(len(row_query)), starts=starts)
        assert best.shape == (n_queries,), name
        assert best[perfect] == 1.0
        for q in range(n_queries):
            mine = values[(row_query == q) & kept]
            assert best[q] == (mine.max() if len(mine) else 0.0), (name, q)  # no kept row: 0.0
        if metric.bounds is not None:
            assert np.all((best >= metric.bounds[0]) & (best <= metric.bounds[1]))


def test_answer_kernel_every_kept_value_missing_is_nan():
    best = kernels.best_per_query(np.array([np.nan, 0.3, np.nan]), np.array([True, False, False]),
                                  row_query=np.array([0, 0, 1]), by_query=np.arange(3), starts=np.array([0, 2]))
    assert np.isnan(best[0]) and best[1] == 0.0
