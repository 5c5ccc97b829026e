"""Run fusion (evalframe.analysis.fusion) on a tiny case whose every number is worked out by hand.

The case: run A ranks a (4.0), b (2.0), c (1.0) for q1 and x (1.0) for q2; run B ranks b (10.0), d (5.0), a (0.0)
for q1 and has no q2. c is A's alone, d is B's alone, q2 is A's alone.

Min-max per (run, query): A q1 (range 3): a 1, b 1/3, c 0; A q2 (one document: no range) x 0; B q1 (range 10):
b 1, d 0.5, a 0. RRF (k=60) ranks: A a1 b2 c3 x1, B b1 d2 a3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalframe.analysis.fusion import (FUSION_METHODS, RunGrid, check_fusion, check_grid, fuse_runs, fusion_method,
                                       fusion_norm, read_fusion_runs, weight_grid)
from evalframe.errors import InvalidParameterError

A = {"q1": {"a": 4.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"b": 10.0, "d": 5.0, "a": 0.0}}


def fused(method, runs=(A, B), **kwargs):
    """{qid: [(docid, score), ...]} in the fused run's order."""
    read, _ = read_fusion_runs(list(runs))
    frame = fuse_runs(read, check_fusion(len(runs), method=method, **kwargs))
    out: dict[str, list] = {}
    for qid, docid, score in zip(frame["qid"], frame["docid"], frame["score"]):
        out.setdefault(qid, []).append((docid, score))
    return out


def check(result, expected):
    assert list(result) == list(expected)
    for qid in expected:
        assert [d for d, _ in result[qid]] == [d for d, _ in expected[qid]], qid
        assert [s for _, s in result[qid]] == pytest.approx([s for _, s in expected[qid]], abs=1e-12), qid


def test_combsum_min_max():
    # a 1 + 0, b 1/3 + 1, c 0 (A alone), d 0.5 (B alone); x: one document in its query -> 0
    check(fused("combsum"), {"q1": [("b", 4 / 3), ("a", 1.0), ("d", 0.5), ("c", 0.0)], "q2": [("x", 0.0)]})


def test_weighted_sum_is_combsum_with_weights():
    # a .3*1 + .7*0, b .3/3 + .7*1, c .3*0, d .7*.5
    expected = {"q1": [("b", 0.1 + 0.7), ("d", 0.35), ("a", 0.3), ("c", 0.0)], "q2": [("x", 0.0)]}
    check(fused("wsum", weights=[0.3, 0.7]), expected)
    check(fused("CombSUM", weights=[0.3, 0.7]), expected)


def test_combmnz_counts_a_document_of_one_run_once():
    # a 1 * 2, b 4/3 * 2, c 0 * 1, d 0.5 * 1
    check(fused("combmnz"), {"q1": [("b", 8 / 3), ("a", 2.0), ("d", 0.5), ("c", 0.0)], "q2": [("x", 0.0)]})


def test_combmax_ties_go_to_the_larger_docid():
    # a max(1, 0) = 1 and b max(1/3, 1) = 1 tie: b first (trec_eval: docid descending)
    check(fused("combmax"), {"q1": [("b", 1.0), ("a", 1.0), ("d", 0.5), ("c", 0.0)], "q2": [("x", 0.0)]})


def test_combmin_takes_the_present_scores_only():
    # a min(1, 0) = 0, b min(1/3, 1), c 0 (A alone), d 0.5 (B alone); a and c tie at 0: c first
    check(fused("combmin"), {"q1": [("d", 0.5), ("b", 1 / 3), ("c", 0.0), ("a", 0.0)], "q2": [("x", 0.0)]})


def test_combanz_divides_by_the_runs_that_retrieved():
    # a (1 + 0) / 2, b (1/3 + 1) / 2, c 0 / 1, d 0.5 / 1; a and d tie at 0.5: d first
    check(fused("combanz"), {"q1": [("b", 2 / 3), ("d", 0.5), ("a", 0.5), ("c", 0.0)], "q2": [("x", 0.0)]})


def test_combmed_of_three_runs():
    c = {"q1": {"a": 3.0, "b": 1.0}}  # min-max: a 1, b 0
    # a median(1, 0, 1) = 1, b median(1/3, 1, 0) = 1/3, c median(0) = 0, d median(0.5) = 0.5
    check(fused("combmed", runs=(A, B, c)), {"q1": [("a", 1.0), ("d", 0.5), ("b", 1 / 3), ("c", 0.0)],
                                               "q2": [("x", 0.0)]})
    # two runs: the median of two scores is their mean
    check(fused("combmed"), fused("combanz"))


def test_rrf_reads_the_ranks():
    expected = {"q1": [("b", 1 / 62 + 1 / 61), ("a", 1 / 61 + 1 / 63), ("d", 1 / 62), ("c", 1 / 63)],
                "q2": [("x", 1 / 61)]}
    check(fused("rrf"), expected)
    # k = 0 and weights (2, 1): a 2/1 + 1/3, b 2/2 + 1/1, c 2/3, d 1/2
    check(fused("rrf", k=0, weights=[2, 1]), {"q1": [("a", 7 / 3), ("b", 2.0), ("c", 2 / 3), ("d", 0.5)],
                                               "q2": [("x", 2.0)]})


def test_rrf_ranks_ties_as_trec_eval():
    # run A ties b and c at 2.0: trec_eval ranks c (larger docid) 2nd, b 3rd
    tied = {"q": {"a": 3.0, "b": 2.0, "c": 2.0}}
    other = {"q": {"z": 1.0}}
    check(fused("rrf", runs=(tied, other), k=0), {"q": [("z", 1.0), ("a", 1.0), ("c", 0.5), ("b", 1 / 3)]})


@pytest.mark.parametrize(("norm", "a_scores"), [
    ("min-max", [1.0, 1 / 3, 0.0]),
    ("sum", [3 / 4, 1 / 4, 0.0]),  # (s - 1) / (3 + 1 + 0)
    ("max", [1.0, 0.5, 0.25]),
    ("rank", [1.0, 2 / 3, 1 / 3]),
    ("zmuv", [5 / math.sqrt(14), -1 / math.sqrt(14), -4 / math.sqrt(14)]),  # mean 7/3, population std sqrt(14)/3
    ("none", [4.0, 2.0, 1.0]),
])
def test_normalisations_per_run_and_query(norm, a_scores):
    grid = RunGrid.of_runs(read_fusion_runs([A, B])[0])
    normalised = grid.normalised(norm)
    rows = {(grid.qids[q], grid.docids[d]): i for i, (q, d) in enumerate(zip(grid.query, grid.doc))}
    got = [normalised[rows[("q1", doc)], 0] for doc in ("a", "b", "c")]
    assert got == pytest.approx(a_scores, abs=1e-12)
    assert math.isnan(normalised[rows[("q1", "d")], 0])  # d is not A's


@pytest.mark.parametrize("norm", ["min-max", "zmuv", "sum"])
def test_equal_scores_normalise_to_zero(norm):
    constant = {"q": {"a": 0.1, "b": 0.1, "c": 0.1}}  # the mean of three 0.1 is not 0.1 in floats: still 0
    grid = RunGrid.of_runs(read_fusion_runs([constant, {"q": {"a": 1.0}}])[0])
    assert grid.normalised(norm)[:, 0].tolist() == [0.0, 0.0, 0.0]


def test_max_norm_of_a_query_without_positive_score_is_zero():
    grid = RunGrid.of_runs(read_fusion_runs([{"q": {"a": -1.0, "b": -2.0}, "p": {"a": 2.0, "b": 0.0}},
                                             {"q": {"a": 1.0}}])[0])
    by_pair = dict(zip(zip(grid.qids[grid.query], grid.docids[grid.doc]), grid.normalised("max")[:, 0].tolist()))
    assert by_pair == {("q", "a"): 0.0, ("q", "b"): 0.0, ("p", "a"): 1.0, ("p", "b"): 0.0}


def test_queries_of_any_run_in_order_of_first_appearance_and_empty_queries_left_out():
    first = {"q2": {"a": 1.0}, "q9": {}}  # q9: no document in either run
    second = {"q1": {"b": 1.0}, "q2": {"b": 2.0}, "q9": {}}
    assert list(fused("rrf", runs=(first, second))) == ["q2", "q1"]


def test_depth_keeps_the_first_documents():
    check(fused("rrf", depth=2), {"q1": [("b", 1 / 62 + 1 / 61), ("a", 1 / 61 + 1 / 63)], "q2": [("x", 1 / 61)]})


def test_frames_and_dicts_fuse_alike():
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q1", "q1", "q1"], "docid": ["a", "d", "b"], "score": [0.0, 5.0, 10.0]})
    assert fused("combmnz", runs=(A, frame)) == fused("combmnz")


def test_method_and_norm_names():
    assert [fusion_method(m) for m in ("RRF", "comb_sum", "wsum", "mnz", "CombMAX", "comb-min", "anz", "med")] == \
        ["rrf", "combsum", "combsum", "combmnz", "combmax", "combmin", "combanz", "combmed"]
    assert set(FUSION_METHODS) == {"rrf", "combsum", "combmnz", "combmax", "combmin", "combanz", "combmed"}
    assert fusion_norm("MinMax", "combsum") == "min-max" and fusion_norm("z", "combmnz") == "zmuv"
    with pytest.raises(InvalidParameterError, match=r"method must be one of .*got 'combsun'\. Did you mean 'combsum'\?"):
        fusion_method("combsun")
    with pytest.raises(InvalidParameterError, match=r"norm must be one of .*got 'minmax2'"):
        fusion_norm("minmax2", "combsum")
    with pytest.raises(InvalidParameterError, match=r"norm='zmuv' does not apply to method 'rrf'"):
        fusion_norm("zmuv", "rrf")


@pytest.mark.parametrize(("weights", "message"), [
    ([1.0], r"one number per run: 2 runs, 1 weights"),
    ([1.0, 2.0, 3.0], r"one number per run: 2 runs, 3 weights"),
    ([1.0, -0.5], r"finite numbers >= 0; got -0.5"),
    ([1.0, float("nan")], r"finite numbers >= 0; got nan"),
    ([0, 0.0], r"must not all be 0"),
    ("0.3,0.7", r"must be a list of numbers"),
])
def test_weights_that_do_not_match_the_runs(weights, message):
    with pytest.raises(InvalidParameterError, match=message):
        check_fusion(2, method="combsum", weights=weights)


def test_other_arguments_checked():
    with pytest.raises(InvalidParameterError, match=r"two runs or more; got 1"):
        check_fusion(1)
    with pytest.raises(InvalidParameterError, match=r"k \(RRF's constant\) must be a finite number >= 0; got -1"):
        check_fusion(2, k=-1)
    with pytest.raises(InvalidParameterError, match=r"depth must be an int >= 1"):
        check_fusion(2, depth=0)
    with pytest.raises(InvalidParameterError, match=r"runs must be a list of runs"):
        read_fusion_runs("run.txt")
    with pytest.raises(InvalidParameterError, match=r"run 2: .*score must be a number"):
        read_fusion_runs([A, {"q1": {"a": "high"}}])


def test_weight_grid():
    grid = weight_grid(3, 0.1)
    assert grid.shape == (66, 3)  # C(12, 2): ranx's 66 candidates for three runs
    assert np.allclose(grid.sum(axis=1), 1.0) and (grid >= 0).all()
    assert grid[0].tolist() == [0.0, 0.0, 1.0] and grid[-1].tolist() == [1.0, 0.0, 0.0]
    assert len({tuple(row) for row in grid.tolist()}) == 66
    with pytest.raises(InvalidParameterError, match=r"step must divide 1"):
        weight_grid(2, 0.3)


def test_weight_grid_equals_the_plain_enumeration():
    """Every n-tuple of 0..parts summing to parts, by itertools.product, sorted: the grid's rows, in its order."""
    import itertools

    for n_runs, step, parts in [(2, 1, 1), (2, 0.5, 2), (3, 0.25, 4), (4, 0.2, 5), (5, 0.5, 2)]:
        plain = sorted(t for t in itertools.product(range(parts + 1), repeat=n_runs) if sum(t) == parts)
        assert (weight_grid(n_runs, step) * parts).round().astype(int).tolist() == [list(t) for t in plain]


def test_the_grid_size_is_counted_without_building_it():
    # two runs at 0.1: w1 = 0, 0.1, ..., 1 and w2 = 1 - w1: 11; three: w1 = i/10 leaves 11 - i choices of w2: 66
    assert check_grid(2, 0.1) == 11 and check_grid(3, 0.1) == 66
    assert check_grid(4, 0.5) == 10  # the ten arrangements of two halves over four runs: 4 (both on one) + 6 (pairs)
    assert check_grid(2, 1 / 999_999) == 1_000_000  # the limit itself fits
    assert check_grid(2, 1, n_ks=10) == 2


@pytest.mark.parametrize(("n_runs", "step", "n_ks", "message"), [
    # two runs: 1/step + 1 vectors; the largest 1/step with 1/step + 1 <= 1,000,000 is 999,999; the round 2e-06 gives
    # 500,001 (1e-06 would give 1,000,001)
    (2, 1e-9, 1, r"^step=1e-09 gives 1,000,000,001 weight vectors for 2 runs .* at most 1,000,000 trials .*The smallest "
                 r"step that fits for 2 runs is 1/999999 = 1.000001000001e-06 \(a round one: 2e-06\)\.$"),
    # three runs: C(P + 2, 2) <= 10^6: C(1414, 2) = 998,991 fits, C(1415, 2) = 1,000,405 does not: P = 1412
    (3, 1e-9, 1, r"gives 500,000,001,500,000,001 weight vectors for 3 runs .*is 1/1412 = .* \(a round one: 0\.001\)"),
    # with RRF's ten k values, two runs: (P + 1) x 10 <= 10^6: P = 99,999
    (2, 1e-9, 10, r"trials \(weight vectors x k values, .*fits for 2 runs and 10 k values is 1/99999 = .*2e-05"),
    # 1000 runs at 0.5: C(1001, 2) = 500,500 vectors x 1000 weights > 10^7; at step 1: 1000 x 1000 = 10^6 weights fit
    (1000, 0.5, 1, r"gives 500,500 weight vectors .*and 10,000,000 weights \(trials x runs\)\. The smallest step that "
                   r"fits for 1000 runs is 1\.$"),
    (2, 1e-300, 1, r"gives about 10\^300 weight vectors"),
])
def test_a_grid_too_large_is_refused_naming_its_size_and_a_step_that_fits(n_runs, step, n_ks, message):
    with pytest.raises(InvalidParameterError, match=message) as info:
        check_grid(n_runs, step, n_ks)
    assert info.value.parameter == "step"


@pytest.mark.parametrize(("step", "message"), [
    (0, r"step must be a number in \(0, 1\]"), (-0.1, r"in \(0, 1\]"), (1.5, r"in \(0, 1\]"),
    (float("nan"), r"in \(0, 1\].*got nan"), (float("inf"), r"in \(0, 1\]"), (True, r"in \(0, 1\]"),
    ("0.1", r"in \(0, 1\]"), (0.3, r"step must divide 1"), (5e-324, r"too small to divide 1"),
])
def test_a_bad_step_is_refused(step, message):
    with pytest.raises(InvalidParameterError, match=message):
        check_grid(2, step)


# ---------------------------------------------------------------------------------------------- a slow reference
def reference_fusion(runs, method, norm, weights, k, depth):
    """Every method and norm written plainly, one query and one document at a time, from the definitions (runs
    ranked by score descending as 32-bit floats, ties by docid descending; a degenerate norm gives 0)."""
    weights = weights or [1.0] * len(runs)
    fused = {}
    queries = list(dict.fromkeys(q for run in runs for q in run if run[q]))
    for qid in queries:
        terms: dict[str, list[float]] = {}
        for run, weight in zip(runs, weights):
            docs = run.get(qid, {})
            if not docs:
                continue
            ranked = sorted(docs, key=lambda d: (-float(np.float32(docs[d])), [-ord(c) for c in d]))
            low, high, n = min(docs.values()), max(docs.values()), len(docs)
            mean = sum(docs.values()) / n
            std = math.sqrt(sum((s - mean) ** 2 for s in docs.values()) / n)
            for rank, doc in enumerate(ranked, start=1):
                s = docs[doc]
                if method == "rrf":
                    value = 1 / (k + rank)
                elif norm == "min-max":
                    value = (s - low) / (high - low) if high > low else 0.0
                elif norm == "zmuv":
                    value = (s - mean) / std if high > low else 0.0
                elif norm == "sum":
                    total = sum(x - low for x in docs.values())
                    value = (s - low) / total if total > 0 else 0.0
                elif norm == "max":
                    value = s / high if high > 0 else 0.0
                elif norm == "rank":
                    value = 1 - (rank - 1) / n
                else:
                    value = s
                terms.setdefault(doc, []).append(weight * value)
        scores = {}
        for doc, values in terms.items():
            scores[doc] = {"rrf": sum(values), "combsum": sum(values), "combmnz": sum(values) * len(values),
                           "combanz": sum(values) / len(values), "combmax": max(values), "combmin": min(values),
                           "combmed": float(np.median(values))}[method]
        ranked = sorted(scores, key=lambda d: (-float(np.float32(scores[d])), [-ord(c) for c in d]))
        fused[qid] = [(doc, scores[doc]) for doc in ranked[:depth]]
    return fused


def random_runs(rng, n_runs):
    """Runs with different queries (one query some runs lack, one empty), scores with ties and negative values."""
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(5):
            if q == 4 and r % 2:
                continue  # q4: not in the odd runs
            size = int(rng.integers(0, 7)) if q != 3 else 0  # q3: empty everywhere
            docs = rng.choice([f"d{i}" for i in range(10)], size=size, replace=False)
            run[f"q{q}"] = {str(d): float(rng.integers(-3, 4)) / 2 for d in docs}  # few values: ties
        runs.append(run)
    return runs


@pytest.mark.parametrize("method", FUSION_METHODS)
@pytest.mark.parametrize("norm", ["min-max", "zmuv", "sum", "max", "rank", "none"])
def test_as_the_slow_reference_on_random_runs(method, norm):
    if method == "rrf" and norm != "none":
        pytest.skip("RRF reads ranks: no norm")
    rng = np.random.default_rng(abs(hash((method, norm))) % 2**32)
    for _ in range(5):
        n_runs = int(rng.integers(2, 5))
        runs = random_runs(rng, n_runs)
        if not any(docs for run in runs for docs in run.values()):
            continue
        weights = [float(w) for w in rng.integers(0, 4, n_runs)] if rng.random() < 0.5 else None
        if weights is not None and not any(weights):
            weights = None
        k = float(rng.choice([0, 1, 60]))
        depth = int(rng.integers(1, 8)) if rng.random() < 0.3 else None
        expected = reference_fusion(runs, method, norm, weights, k, depth)
        got = fused(method, runs=runs, norm=None if method == "rrf" else norm, weights=weights, k=k, depth=depth)
        check(got, expected)


def test_a_run_dict_without_documents_adds_nothing():
    # pytrec_eval's dicts may hold queries without documents; a file cannot be empty (the reader refuses it)
    check(fused("rrf", runs=(A, {"q1": {}})), {"q1": [("a", 1 / 61), ("b", 1 / 62), ("c", 1 / 63)], "q2": [("x", 1 / 61)]})
    assert fused("combsum", runs=({}, {"q1": {}})) == {}


def test_ranx_wmnz_is_refused_not_taken_for_another_formula():
    # ranx's wmnz: (Σ s_i) × (Σ of the weights of the runs holding the document); evalframe's weighted combmnz:
    # (Σ w_i s_i) × (number of runs holding it); on a: (1 + 0) × (0.2 + 0.8) = 1 vs (0.2 × 1) × 2 = 0.4
    with pytest.raises(InvalidParameterError, match=r"method 'wmnz' \(ranx's weighted CombMNZ.*method='combmnz'"):
        fusion_method("wmnz")
