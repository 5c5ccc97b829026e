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
    AGGREGATIONS,
    ANSWER_METRICS,
    DOCUMENT_METRICS,
    EVALUATOR_METRICS,
    LEVELS,
    METRICS,
    REGISTRY,
    TREC_MEASURES,
    headline_metric,
)
from evalframe.metrics.diversity_kernels import Subtopics
from evalframe.metrics.trec import Measure, entry_of, evaluate, parse_measure
from evalframe.metrics.trec_kernels import UNJUDGED
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
    assert imported(package / "trec_kernels.py") <= {"__future__", "collections.abc", "dataclasses", "functools", "numpy",
                                                      "typing"}
    assert imported(package / "cwl_kernels.py") <= {"__future__", "collections.abc", "numpy", "typing", ".trec_kernels"}
    registry = imported(package / "registry.py")
    # `from . import kernels`, the package's error family and its column names (a score may not take one)
    assert {name for name in registry if name.startswith(".")} <= {".", ".kernels", "..errors", "..columns"}
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


# ------------------------------------------------------------------------------------- every entry
def test_every_entry_has_an_aggregation_and_one_name():
    assert all(m.aggregation in AGGREGATIONS for m in REGISTRY)
    names = [(m.family, m.name) for m in REGISTRY]
    assert len(names) == len(set(names))
    assert [m.name for m in REGISTRY if m.family == "trec"] == list(TREC_MEASURES)
    values = np.array([0.25, 1.0, 0.0])
    assert AGGREGATIONS["mean"](values) == 1.25 / 3 and AGGREGATIONS["sum"](values) == 1.25
    # trec_eval's gm_map: each value floored at 1e-5, then exp(mean(log))
    assert AGGREGATIONS["geometric_mean"](values) == pytest.approx((0.25 * 1.0 * 1e-5) ** (1 / 3), rel=1e-12)
    assert AGGREGATIONS["mean"](pd.Series([0.5, np.nan, 1.0])) == 0.75  # NaN: no value, skipped


# ------------------------------------------------------------------------------------- trec_eval measures
# Two queries, worked out by hand (relevance level 1):
#   query 0: ranks 1, 2, 3 grades 0, 1, unjudged; judged grades 1, 1, 0 (one relevant document not retrieved):
#            num_rel 2, num_nonrel 1
#   query 1: ranks 1, 2 grades 1, 0; judged grades 1, 0: num_rel 1, num_nonrel 1
TINY = {"row_query": [0, 0, 0, 1, 1], "position": [0, 1, 2, 0, 1], "grade": [0, 1, UNJUDGED, 1, 0],
        "judged_query": [0, 0, 0, 1, 1], "judged_grade": [1, 1, 0, 1, 0]}
TINY_VALUES = {  # every trec entry: a measure of it and its values per query
    "AP": ("AP", [(1 / 2) / 2, (1 / 1) / 1]),
    "nDCG": ("nDCG", [(1 / np.log2(3)) / (1 + 1 / np.log2(3)), 1.0]),
    "P": ("P@2", [1 / 2, 1 / 2]),
    "R": ("R@2", [1 / 2, 1 / 1]),
    "RR": ("RR", [1 / 2, 1 / 1]),
    "Success": ("Success@1", [0.0, 1.0]),
    "Rprec": ("Rprec", [1 / 2, 1 / 1]),
    # query 0: its relevant document has one judged non-relevant above: 1 - min(1, 2) / min(1, 2) = 0
    "Bpref": ("Bpref", [0.0, 1.0]),
    # TINY_SUBTOPICS (alpha 0.5): query 0's rank 2 (B) is relevant to its subtopics s1 and s2, gain 2; the
    # unretrieved D to s2; S = 2. Greedy ideal: B (gain 2), then D (s2 seen once: 0.5). Query 1: E (rank 1) to s1, S = 1
    "alpha_nDCG": ("alpha_nDCG@2", [(2 / np.log2(3)) / (2 + 0.5 / np.log2(3)), 1.0]),
    "alpha_DCG": ("alpha_DCG@2", [(2 / np.log2(3)) / (2 * (1 + 0.5 / np.log2(3))), 1 / (1 + 0.5 / np.log2(3))]),
    "ERR_IA": ("ERR_IA@2", [(2 / 2) / (2 * (1 + 0.5 / 2)), 1 / (1 + 0.5 / 2)]),
    "nERR_IA": ("nERR_IA@2", [(2 / 2) / (2 + 0.5 / 2), 1.0]),
    "P_IA": ("P_IA@2", [2 / (2 * 2), 1 / (2 * 1)]),
    "AP_IA": ("AP_IA", [((1 / 2) / 1 + (1 / 2) / 2) / 2, 1.0]),  # query 0: s1 (B of 1), s2 (B of 2: D missed)
    "StRecall": ("StRecall@1", [0.0, 1.0]),
    # NRBP (alpha = beta = 0.5): query 0 gains 2 at rank 2 (beta^1), query 1 gains 1 at rank 1; times (1 - 0.25) / S.
    # nNRBP: over the greedy ideal's B (2) then D (0.5 at beta^1)
    "NRBP": ("NRBP", [0.75 / 2 * (2 * 0.5), 0.75 / 1 * 1]),
    "nNRBP": ("nNRBP", [(2 * 0.5) / (2 + 0.5 * 0.5), 1.0]),
    # RBO (p 0.95) of ranking A B C with the ideal B D, over that of B D with itself; query 1: E F with E, the same
    "Compat": ("Compat", [(0.95 * (1 / 2) + 0.95**2 * (1 / 3)) / (1 + 0.95 + 0.95**2 * (2 / 3)), 1.0]),
    # tegains (issue 27): query 0 ranks grades 0, 1, unjudged (judged 1, 1, 0); query 1 ranks 1, 0 (judged 1, 0).
    # infAP: q0's relevant document at j = 1 has 1 judged non-relevant above: 1/2 + (1/2)(1/1)(ε/(1 + 2ε)), over 2
    "infAP": ("infAP", [(1 / 2 + (1 / 2) * (1e-5 / (1 + 2e-5))) / 2, 1.0]),
    # binG: 1 / log2(2 + non-relevant above), over num_rel
    "binG": ("binG", [(1 / np.log2(3)) / 2, 1.0]),
    # G: q0's gain 1 at rank 2: cost max(1,1) + max(1,1) = 2, gained 1: 1 / log2(2 + 2 - 1), over the ideal gain 2
    "G": ("G", [(1 / np.log2(3)) / 2, 1.0]),
    # ndcg_rel: q0's one relevant retrieved (DCG@2 / IDCG@2) and one not retrieved (DCG / IDCG, the same), over 2
    "ndcg_rel": ("ndcg_rel", [(1 / np.log2(3)) / (1 + 1 / np.log2(3)), 1.0]),
    # Rndcg: the ideal gains (1, 1) change once, after rank 2; q0 retrieved 3 = L + 1 documents: no final term
    "Rndcg": ("Rndcg", [(1 / np.log2(3)) / (1 + 1 / np.log2(3)), 1.0]),
    # rbp (p 0.9, grades within [0, 1] so not rescaled): (1 - p) p^(rank - 1)
    "rbp": ("rbp", [0.1 * 0.9, 0.1]),
    # rbp_resid: q0's unjudged document at rank 3: p^3 + (1 - p) p^2; q1 has none: 0
    "rbp_resid": ("rbp_resid", [0.9**3 + 0.1 * 0.9**2, 0.0]),
    # RBP (p 0.8): (1 - p) p^(rank - 1)
    "RBP": ("RBP(rel=1)", [0.2 * 0.8, 0.2]),
    # ERR: grade 1 stops with chance (2^1 - 1) / 16, at rank 2 (q0) or 1 (q1)
    "ERR": ("ERR", [(1 / 16) / 2, 1 / 16]),
    # counts (summed over queries): queries, retrieved, relevant retrieved, relevant, judged non-relevant retrieved
    "NumQ": ("NumQ", [1.0, 1.0]),
    "NumRet": ("NumRet", [3.0, 2.0]),
    "NumRelRet": ("NumRelRet", [1.0, 1.0]),
    "NumRel": ("NumRel", [2.0, 1.0]),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", [1.0, 1.0]),
    "gm_map": ("gm_map", [(1 / 2) / 2, 1.0]),  # AP per query (geometric mean over queries)
    "gm_bpref": ("gm_bpref", [0.0, 1.0]),
    # recall 0.5: round(0.5 * 2) = 1 relevant (precision 1/2 at rank 2); round(0.5 * 1) = 1 (halves away from 0)
    "IPrec": ("IPrec@0.5", [1 / 2, 1.0]),
    # query 0: round(r * 2) is 0 or 1 for r = 0.0 .. 0.7 (precision 1/2), 2 from 0.8 on (never reached: 0)
    "11pt_avg": ("11pt_avg", [8 * 0.5 / 11, 1.0]),
    "Rprec_mult": ("Rprec_mult@1.0", [1 / 2, 1 / 1]),  # k = trunc(1.0 * R + 0.9) = R
    "relative_P": ("relative_P@2", [1 / min(2, 2), 1 / min(2, 1)]),
    "SetP": ("SetP", [1 / 3, 1 / 2]),
    "SetR": ("SetR", [1 / 2, 1 / 1]),
    "SetAP": ("SetAP", [1 / (3 * 2), 1 / (2 * 1)]),
    "SetF": ("SetF", [2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2), 2 * (1 / 2) * 1 / (1 / 2 + 1)]),
    "utility": ("utility", [1 - 2, 1 - 1]),  # relevant retrieved - others retrieved
    "unj": ("unj@3", [1 / 3, 0 / 3]),
    "Judged": ("Judged@3", [2 / 3, 2 / 2]),  # over min(k, retrieved)
    # cwl_eval's C/W/L measures (max_rel=1: the grades are the gains; max_rel=2: grade 1 gains 1/2): the weight of rank
    # i is P(i) = Π_{j<i} C(j), over their sum to depth 1000; q0 gains at rank 2 only, q1 at rank 1 only.
    # INSQ (T 1): C(j) = ((j + 1) / (j + 2))², so P(i) = (2 / (i + 1))²
    "INSQ": ("INSQ(max_rel=1)", [(4 / 9) / sum(4 / (i + 1) ** 2 for i in range(1, 1001)),
                                 1 / sum(4 / (i + 1) ** 2 for i in range(1, 1001))]),
    # INST (T 1): C(j) = ((j + 1 + T_j - 1) / (j + 1 + T_j))², T_j = 1 - the gain of the top j. q0: C(1) = (2/3)², C(2)
    # = (2/3)², then (j / (j + 1))²: P = 1, 4/9, then 16 / (9 i²). q1: C(1) = 1/4, then (j / (j + 1))²: P(i) = 1 / i²
    "INST": ("INST(max_rel=1)", [(4 / 9) / (1 + 4 / 9 + sum(16 / (9 * i**2) for i in range(3, 1001))),
                                 1 / sum(1 / i**2 for i in range(1, 1001))]),
    # SDCG@2: C(1) = log2(2) / log2(3), C(j >= 2) = 0: P = 1, 1 / log2(3)
    "SDCG": ("SDCG(max_rel=1)@2", [(1 / np.log2(3)) / (1 + 1 / np.log2(3)), 1 / (1 + 1 / np.log2(3))]),
    # NERR8@2 with max_rel 2 (gains 1/2): C(1) = 1 - g(1), then 0. q0: P = 1, 1: (0 + 1/2) / 2; q1: C(1) = 1/2, P = 1,
    # 1/2: (1/2) / (3/2)
    "NERR8": ("NERR8(max_rel=2)@2", [(1 / 2) / 2, (1 / 2) / (3 / 2)]),
    # NERR9@2: C(1) = (1/2) (1 - g(1)). q0: P = 1, 1/2: (1/2) / (3/2); q1: C(1) = 0
    "NERR9": ("NERR9(max_rel=1)@2", [(1 / 2) / (3 / 2), 1.0]),
    # NERR10 (p 0.9): C(j) = 0.9 (1 - g(j)). q0: P = 1, 0.9, then 0; q1: C(1) = 0
    "NERR10": ("NERR10(max_rel=1)", [0.9 / 1.9, 1.0]),
    # NERR11 (T 1): C(j) = ((j + 1) / (j + 2))² (1 - g(j)). q0: P = 1, 4/9, then 0; q1: C(1) = 0
    "NERR11": ("NERR11(max_rel=1)", [(4 / 9) / (13 / 9), 1.0]),
    # BPM (T 1) @3: C(j) = 1 while the gain of the top j is below 1 and j < 3. q0: C(1) = 1, C(2) = 0: the mean gain
    # of ranks 1 and 2; q1: C(1) = 0
    "BPM": ("BPM(max_rel=1)@3", [1 / 2, 1.0]),
}
# TINY's documents: query 0 ranks A (grade 0), B (1), an unjudged one, and D (1) is not retrieved; query 1 ranks E (1),
# F (0). Their subtopic judgments (documents A B D E F, subtopics s1 s2 of query 0 and s1 of query 1), each document's
# grade the highest of its subtopics'
TINY_SUBTOPICS = Subtopics(
    doc_query=np.array([0, 0, 0, 1, 1]), subtopic_query=np.array([0, 0, 1]),
    judged_doc=np.array([0, 1, 1, 2, 3, 4]), judged_subtopic=np.array([0, 0, 1, 1, 2, 2]),
    judged_grade=np.array([0, 1, 1, 1, 1, 0]),
    row_query=np.array([0, 0, 0, 1, 1]), row_position=np.array([0, 1, 1, 0, 1]), row_subtopic=np.array([0, 0, 1, 2, 2]),
    row_grade=np.array([0, 1, 1, 1, 0]))


#: The measures whose weights are a product over cwl_eval's 1000 ranks, every one of them read (INSQ, INST).
CWL_DEPTH_PRODUCTS = {"INSQ", "INST"}


#: The entries that are not higher-is-better, and their direction (lower: a residual, the unjudged share; none: a count,
#: which has no wins and no worst queries): a new entry that is not higher-is-better is added here, beside its values
NOT_HIGHER = {"unj": "lower", "rbp_resid": "lower", "NumQ": "none", "NumRet": "none", "NumRel": "none",
              "num_nonrel_judged_ret": "none"}


def test_every_entry_s_direction_is_the_one_written_here():
    assert {entry.name: entry.direction for entry in REGISTRY if entry.direction != "higher"} == NOT_HIGHER


def _evaluate(names, arrays, n_queries, subtopics=None):
    return evaluate([parse_measure(n) for n in names], n_queries=n_queries, subtopics=subtopics,
                    **{key: np.asarray(value, dtype=np.int64) for key, value in arrays.items()})


def test_every_trec_measure_has_a_hand_worked_case():
    assert set(TINY_VALUES) == set(TREC_MEASURES), "add the new measure's values on TINY"
    values = _evaluate([name for name, _ in TINY_VALUES.values()], TINY, 2, TINY_SUBTOPICS)
    for entry, (name, expected) in TINY_VALUES.items():
        assert entry_of(name) is TREC_MEASURES[entry]
        # cwl_eval's weights are a running product over 1000 ranks (as cwl_eval computes them): 1000 roundings
        atol = 1e-13 if entry in CWL_DEPTH_PRODUCTS else 1e-15
        np.testing.assert_allclose(values[name], expected, rtol=0, atol=atol, err_msg=name)


def test_every_trec_spec_is_complete_and_its_names_resolve_to_it():
    seen: dict[tuple[str, str], str] = {}
    for name, entry in TREC_MEASURES.items():
        assert entry.family == "trec" and entry.level == "document" and entry.name == name
        assert entry.description and entry.formula and entry.edge and entry.finish
        assert entry.reference in ("pytrec_eval", "ir_measures", "trec_eval", "hand"), name
        assert entry.bounds is None or entry.bounds[0] <= entry.bounds[1]
        cutoff = (0.5 if entry.cutoff_kind == "float" else 7) if entry.cutoff == "required" else None
        required = tuple((p.name, p.default) for p in entry.params if p.required)  # RBP's rel, INSQ's max_rel
        written = f"{name}({','.join(f'{key}={value}' for key, value in required)})" if required else name
        canonical = f"{written}@{cutoff}" if cutoff is not None else written
        assert parse_measure(canonical) == Measure(name, cutoff, params=required)
        for synonym in entry.synonyms:  # ir_measures' other names: MAP is AP
            text = synonym.text + (f"({','.join(f'{key}={value}' for key, value in required)})" if required else "")
            assert parse_measure(text if cutoff is None else f"{text}@{cutoff}") == \
                Measure(name, cutoff, params=(*synonym.implies, *required)), synonym
        for te in entry.trec_eval:
            assert seen.setdefault((te.stem, te.params), name) == name, f"{te.stem} names one measure"
            implied = Measure(name, params=te.implies)
            if te.params == "cutoffs":  # trec_eval's stem with a cutoff: P.7 and P_7 are P@7
                k = 0.5 if entry.cutoff_kind == "float" else 7
                for text in (f"{te.stem}.{k}", te.key(k)):
                    assert parse_measure(text) == Measure(name, k, params=te.implies), text
            elif te.params == "none":
                assert parse_measure(te.stem) == implied, te.stem


def random_ranking(seed: int) -> tuple[dict[str, np.ndarray], int]:
    """Queries of 0..8 judged documents (grades -1..3) and 0..10 retrieved ones (judged or not), as evaluate takes them."""
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 8))
    arrays: dict[str, list[int]] = {key: [] for key in TINY}
    for q in range(n_queries):
        judged = rng.integers(-1, 4, int(rng.integers(0, 9)))
        pool = list(judged) + [UNJUDGED] * int(rng.integers(0, 5))  # a grade per document of the query's pool
        ranking = rng.permutation(len(pool))[:int(rng.integers(0, 11))]
        arrays["row_query"] += [q] * len(ranking)
        arrays["position"] += list(range(len(ranking)))
        arrays["grade"] += [int(pool[i]) for i in ranking]
        arrays["judged_query"] += [q] * len(judged)
        arrays["judged_grade"] += sorted((int(g) for g in judged), reverse=True)
    return {key: np.asarray(value, dtype=np.int64) for key, value in arrays.items()}, n_queries


def random_subtopics(arrays: dict[str, np.ndarray], n_queries: int, seed: int) -> Subtopics:
    """Subtopic judgments of :func:`random_ranking`'s documents: each judged document relevant at its grade to one of
    its query's 1..3 subtopics and judged lower for some others (its grade the highest); a ranked row is the judged
    document of its grade not ranked yet."""
    rng = np.random.default_rng(seed + 1000)
    parts: dict[str, list[int]] = {key: [] for key in ("doc_query", "subtopic_query", "judged_doc", "judged_subtopic",
                                                       "judged_grade", "row_query", "row_position", "row_subtopic",
                                                       "row_grade")}
    for q in range(n_queries):
        first_subtopic = len(parts["subtopic_query"])
        n_subtopics = int(rng.integers(1, 4))
        parts["subtopic_query"] += [q] * n_subtopics
        free: dict[int, list[list[tuple[int, int]]]] = {}  # by grade: the unranked documents' judgments
        for grade in arrays["judged_grade"][arrays["judged_query"] == q].tolist():
            doc = len(parts["doc_query"])
            parts["doc_query"].append(q)
            own = [(first_subtopic + int(rng.integers(n_subtopics)), grade)]
            own += [(first_subtopic + j, int(rng.integers(-1, grade + 1))) for j in range(n_subtopics)
                    if j + first_subtopic != own[0][0] and rng.random() < 0.5]
            for subtopic, g in own:
                parts["judged_doc"].append(doc)
                parts["judged_subtopic"].append(subtopic)
                parts["judged_grade"].append(g)
            free.setdefault(grade, []).append(own)
        rows = arrays["row_query"] == q
        for position, grade in zip(arrays["position"][rows].tolist(), arrays["grade"][rows].tolist()):
            if grade == UNJUDGED:
                continue
            for subtopic, g in free[grade].pop():
                parts["row_query"].append(q)
                parts["row_position"].append(position)
                parts["row_subtopic"].append(subtopic)
                parts["row_grade"].append(g)
    return Subtopics(**{key: np.asarray(value, dtype=np.int64) for key, value in parts.items()})


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_measures_one_value_per_query_within_bounds_and_the_edge_policy(seed):
    arrays, n_queries = random_ranking(seed)
    rng = np.random.default_rng(seed)
    names = []
    for name, entry in TREC_MEASURES.items():
        cutoff = f"@{int(rng.integers(1, 12))}" if entry.cutoff == "required" or rng.random() < 0.5 else ""
        cutoff = "" if entry.cutoff == "none" else cutoff
        # what the name must give: RBP's rel, cwl_eval's max_rel (the grades here run to 3)
        required = {p.name: (int(rng.integers(1, 4)) if p.name == "rel" else 3) for p in entry.params if p.required}
        rel = int(rng.integers(1, 4)) if entry.rel else 1
        params = [f"{key}={value}" for key, value in required.items()] + ([f"rel={rel}"] if rel != 1 else [])
        names.append(name + (f"({','.join(params)})" if params else "") + cutoff)
    values = _evaluate(names, arrays, n_queries, random_subtopics(arrays, n_queries, seed))
    for name in names:
        measure, entry = parse_measure(name), entry_of(name)
        got = values[str(measure)]
        assert got.shape == (n_queries,) and got.dtype == np.float64, name
        low, high = entry.bounds if entry.bounds is not None else (-np.inf, np.inf)
        # NaN: no value, only where the entry says so (nNRBP of a ranked query without a relevant subtopic)
        value = ~np.isnan(got) if "NaN" in entry.bounds_note else np.ones(n_queries, dtype=bool)
        assert np.all((got[value] >= low) & (got[value] <= high)), (name, got)
        if entry.policy is None:  # the kernel's values are final: no edge policy to check
            continue
        relevant = arrays["grade"] >= measure.rel
        hits = np.bincount(arrays["row_query"], weights=relevant, minlength=n_queries)
        num_rel = np.bincount(arrays["judged_query"], weights=arrays["judged_grade"] >= measure.rel, minlength=n_queries)
        assert np.all(got[value & (hits == 0) & (num_rel == 0)] == entry.policy.no_gold), name
        assert np.all(got[value & (hits == 0) & (num_rel > 0)] == entry.policy.no_hit), name


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_recall_and_success_never_drop_as_k_grows(seed):
    arrays, n_queries = random_ranking(seed)
    for stem in ("R", "Success"):
        at_k = [_evaluate([f"{stem}@{k}"], arrays, n_queries)[f"{stem}@{k}"] for k in range(1, 12)]
        assert all(np.all(later >= earlier) for earlier, later in itertools.pairwise(at_k)), (stem, at_k)

