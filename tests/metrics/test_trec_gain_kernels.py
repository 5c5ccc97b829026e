"""The kernels of evalframe.metrics.trec_gain_kernels against their references, per query.

* pytrec_eval (trec_eval's C code): infAP, binG, G, ndcg, ndcg_rel, Rndcg on random runs (graded judgments, ties,
  unjudged documents, queries without a relevant document) and gains given by mapping the qrels' grades, as
  ir_measures' ``nDCG(gains=...)`` does. pytrec_eval-terrier hangs or corrupts memory on some negative grades, so its
  qrels hold grades >= 0; negative grades ("pooled, not judged": infAP, relstring, rbp_resid) are checked against
  the trec_eval 10.0 binary.
* the trec_eval 10.0 binary (built by benchmarks/setup_trec_eval.sh; ``TREC_EVAL`` overrides its path): rbp,
  rbp_resid, relstring and the gain parameters (``ndcg.1=3,2=9``), which pytrec_eval does not expose. The values it
  printed for the fixed example below are literals here, so those checks run without it; the random sweep against
  it is skipped when it is not built.
* ir_measures' gdeval provider (nDCG(dcg='exp-log2')@k, ERR@k; gdeval prints 5 decimals, so to 5e-6) and its
  cwl_eval provider (RBP(p=, rel=)), when installed.
* hand-worked values from the papers (ERR, RBP).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from evalframe.metrics import trec_gain_kernels as gk
from evalframe.metrics.trec_kernels import UNJUDGED, RankedRows, ap_table

pytrec_eval = pytest.importorskip("pytrec_eval")

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]
TREC_EVAL = Path(os.environ.get("TREC_EVAL", Path.home() / ".cache" / "evalframe-bench" / "trec_eval-10.0" / "trec_eval"))
COMPARED = {"pytrec_eval": 0, "trec_eval": 0, "ir_measures": 0, "hand": 0}


def trec_order(docs: Mapping[str, float]) -> list[str]:
    """A query's documents in trec_eval's order: score descending, ties by docid descending."""
    return [d for d, _ in sorted(sorted(docs.items(), reverse=True), key=lambda item: -item[1])]


def rows_of(run: Run, qrels: Qrels) -> tuple[RankedRows, list[str]]:
    """The RankedRows of the queries in both the run and the qrels (trec_eval's evaluated queries), every row kept."""
    qids = [q for q in run if q in qrels]
    row_query, position, grade, judged_query, judged_grade = [], [], [], [], []
    for code, qid in enumerate(qids):
        for i, doc in enumerate(trec_order(run[qid])):
            row_query.append(code)
            position.append(i)
            grade.append(qrels[qid].get(doc, UNJUDGED))
        for g in sorted(qrels[qid].values(), reverse=True):
            judged_query.append(code)
            judged_grade.append(g)
    def as_int(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return RankedRows(as_int(row_query), as_int(position), as_int(grade), as_int(judged_query), as_int(judged_grade),
                      len(qids)), qids


def random_case(rng: np.random.Generator, *, negatives: bool, n_queries: int = 6) -> tuple[dict, dict]:
    """A random run and qrels: ties, unjudged documents, graded (and negative) judgments, queries without a relevant
    document, queries in only one of the two."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    docs = [f"d{i}" for i in range(12)]
    low = -1 if negatives else 0
    for q in range(n_queries):
        qid = f"q{q}"
        if rng.random() < 0.9:
            chosen = rng.choice(docs, size=rng.integers(1, 10), replace=False)
            run[qid] = {str(d): float(rng.integers(0, 5)) for d in chosen}
        if rng.random() < 0.9:
            chosen = rng.choice(docs, size=rng.integers(1, 10), replace=False)
            top = int(rng.integers(0, 5))
            qrels[qid] = {str(d): int(rng.integers(low, top + 1)) for d in chosen}
    return run, qrels


def pytrec(run: Run, qrels: Qrels, measure: str, key: str, qids: list[str], level: int = 1) -> np.ndarray:
    values = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=level).evaluate(run)
    return np.array([values[q][key] for q in qids])


def mapped(qrels: Qrels, gains: Mapping[int, int]) -> dict[str, dict[str, int]]:
    return {q: {d: gains.get(g, g) for d, g in judged.items()} for q, judged in qrels.items()}


def column(kernel, rows: RankedRows, level: int = 1, cutoffs=(), params=None) -> np.ndarray:
    return kernel(rows, level, list(cutoffs), params or {})[:, -1]


# ------------------------------------------------------------------------------------ pytrec_eval
KERNELS = {"infAP": gk.infap_table, "binG": gk.bing_table, "G": gk.g_table, "ndcg": gk.gain_ndcg_table,
           "ndcg_rel": gk.ndcg_rel_table, "Rndcg": gk.rndcg_table}


@pytest.mark.parametrize("seed", range(25))
def test_kernels_equal_pytrec_eval_on_random_runs(seed):
    rng = np.random.default_rng(seed)
    run, qrels = random_case(rng, negatives=False)
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    level = 1 + seed % 2
    for name, kernel in KERNELS.items():
        expected = pytrec(run, qrels, name, name, qids, level)
        np.testing.assert_allclose(column(kernel, rows, level), expected, rtol=0, atol=1e-12, err_msg=name)
        COMPARED["pytrec_eval"] += len(qids)


@pytest.mark.parametrize("seed", range(15))
def test_gain_mappings_equal_pytrec_eval_on_mapped_qrels(seed):
    """ir_measures' nDCG(gains=...) is pytrec_eval on qrels whose grades are mapped to the gains; trec_eval's
    ``ndcg.1=3,2=9`` is the same for integer gains >= 0 (G, ndcg_rel and Rndcg read their gains the same way)."""
    rng = np.random.default_rng(100 + seed)
    run, qrels = random_case(rng, negatives=False)
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    gains = {1: int(rng.integers(1, 6)), 2: int(rng.integers(1, 12)), 0: int(rng.integers(0, 2))}
    if gains[0]:  # a gain for grade 0 makes those documents relevant for Rndcg's num_rel check: keep grade 0 at 0
        gains[0] = 0
    params = {"gains": gains}
    for name in ("ndcg", "G", "ndcg_rel", "Rndcg"):
        expected = pytrec(run, mapped(qrels, gains), name, name, qids)
        np.testing.assert_allclose(column(KERNELS[name], rows, 1, (), params), expected, rtol=0, atol=1e-12,
                                   err_msg=f"{name} {gains}")
        COMPARED["pytrec_eval"] += len(qids)
    cut = pytrec(run, mapped(qrels, gains), "ndcg_cut.1,3,10", "ndcg_cut_3", qids)
    np.testing.assert_allclose(gk.gain_ndcg_table(rows, 1, [1, 3, 10], params)[:, 1], cut, rtol=0, atol=1e-12)
    COMPARED["pytrec_eval"] += len(qids)


@pytest.mark.parametrize("seed", range(10))
def test_ap_at_k_is_trec_eval_s_map_cut(seed):
    """AP@k (trec_kernels.ap_table) is map_cut.k: the relevant documents above k over all the relevant ones."""
    rng = np.random.default_rng(200 + seed)
    run, qrels = random_case(rng, negatives=False)
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    cutoffs = [1, 2, 5, 10]
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.1,2,5,10"}).evaluate(run)
    table = ap_table(rows, 1, cutoffs, {})
    for i, k in enumerate(cutoffs):
        np.testing.assert_allclose(table[:, i], [values[q][f"map_cut_{k}"] for q in qids], rtol=0, atol=1e-12)
        COMPARED["pytrec_eval"] += len(qids)


# ------------------------------------------------------------------------------------ trec_eval 10.0's binary
#: The example the binary was run on (``trec_eval -q -m ... qrels run`` of these lines): grades 3..0, a grade -1
#: ("pooled, not judged"), documents not in the qrels, a query whose top grade is 1.
EXAMPLE_QRELS = {"1": {"d1": 2, "d2": 0, "d3": 1, "d4": -1, "d5": 3}, "2": {"e1": 1, "e2": 0}}
EXAMPLE_RUN = {"1": {"d1": 10, "x1": 9, "d2": 8, "d4": 7, "d5": 6, "d3": 5}, "2": {"e2": 3, "z": 2, "e1": 1}}
#: what trec_eval 10.0 printed for them (4 decimals), per query 1, 2
PRINTED = {
    ("infAP", ()): (0.7037, 0.3333),
    ("rbp", ()): (0.1520, 0.0810),
    ("rbp.p=0.5", (("p", 0.5),)): (0.3698, 0.1250),
    ("rbp_resid", ()): (0.6943, 0.8190),
    ("ndcg.1=3,2=9", (("gains", ((1, 3), (2, 9))),)): (0.9061, 0.5000),
    ("G", ()): (0.4974, 0.5000),
    ("binG", ()): (0.6205, 0.5000),
    ("ndcg_rel", ()): (0.6896, 0.5000),
    ("Rndcg", ()): (0.5736, 0.2500),
}
PRINTED_RELSTRING_3 = ("2-0", "0-1")
BINARY_KERNELS = {"infAP": gk.infap_table, "rbp": gk.trec_rbp_table, "rbp_resid": gk.rbp_resid_table,
                  "ndcg": gk.gain_ndcg_table, "G": gk.g_table, "binG": gk.bing_table, "ndcg_rel": gk.ndcg_rel_table,
                  "Rndcg": gk.rndcg_table}


@pytest.mark.parametrize(("name", "params"), list(PRINTED))
def test_example_equals_what_trec_eval_10_printed(name, params):
    rows, qids = rows_of(EXAMPLE_RUN, EXAMPLE_QRELS)
    kernel = BINARY_KERNELS[name.split(".")[0]]
    values = column(kernel, rows, 1, (), dict(params))
    np.testing.assert_allclose(values, PRINTED[(name, params)], rtol=0, atol=5e-5)
    COMPARED["trec_eval"] += len(qids)


def test_relstring_equals_what_trec_eval_10_printed():
    rows, _ = rows_of(EXAMPLE_RUN, EXAMPLE_QRELS)
    assert tuple(gk.relstrings(rows, 3)) == PRINTED_RELSTRING_3
    assert tuple(gk.relstrings(rows)) == ("2-0.31", "0-1")  # relstring.10: d4 is pooled but not judged ('.')
    COMPARED["trec_eval"] += 4


def run_trec_eval(run: Run, qrels: Qrels, measures: list[str], tmp: Path) -> dict[tuple[str, str], str]:
    """trec_eval 10.0's per-query output ``{(key, qid): value}``."""
    (tmp / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()))
    (tmp / "run").write_text("".join(f"{q} Q0 {d} 1 {s} r\n" for q, docs in run.items() for d, s in docs.items()))
    args = [str(TREC_EVAL), "-q"] + [f"-m{m}" for m in measures] + [str(tmp / "qrels"), str(tmp / "run")]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        key, qid, value = line.split("\t")
        table[(key.strip(), qid)] = value
    return table


def assert_printed(values: np.ndarray, printed: list[str], measure: str) -> None:
    """Our values as trec_eval prints them (``%.4f``, halves rounded to even as C's printf does) equal its output."""
    assert [f"{v:.4f}" for v in values] == printed, measure


needs_binary = pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK),
                                  reason="trec_eval 10.0 is not built (benchmarks/setup_trec_eval.sh)")
BINARY_MEASURES = {  # trec_eval's -m, its printed key, our kernel, its params
    "infAP": ("infAP", gk.infap_table, {}),
    "rbp": ("rbp", gk.trec_rbp_table, {}),
    "rbp.p=0.6": ("rbp_p=0.6", gk.trec_rbp_table, {"p": 0.6}),
    "rbp.p=0.7,1=2,2=5": ("rbp_p=0.7,1=2,2=5", gk.trec_rbp_table, {"p": 0.7, "gains": {1: 2, 2: 5}}),
    "rbp_resid": ("rbp_resid", gk.rbp_resid_table, {}),
    "rbp_resid.p=0.5": ("rbp_resid_p=0.5", gk.rbp_resid_table, {"p": 0.5}),
    "ndcg.1=3,2=9": ("ndcg_1=3,2=9", gk.gain_ndcg_table, {"gains": {1: 3, 2: 9}}),
    "ndcg.0=1,2=-1": ("ndcg_0=1,2=-1", gk.gain_ndcg_table, {"gains": {0: 1, 2: -1}}),
    "G.1=2,3=7": ("G_1=2,3=7", gk.g_table, {"gains": {1: 2, 3: 7}}),
    "ndcg_rel.1=4,2=1": ("ndcg_rel_1=4,2=1", gk.ndcg_rel_table, {"gains": {1: 4, 2: 1}}),
    "Rndcg.1=2,2=2": ("Rndcg_1=2,2=2", gk.rndcg_table, {"gains": {1: 2, 2: 2}}),
    "binG": ("binG", gk.bing_table, {}),
    "G": ("G", gk.g_table, {}),
    "ndcg_rel": ("ndcg_rel", gk.ndcg_rel_table, {}),
    "Rndcg": ("Rndcg", gk.rndcg_table, {}),
}


@needs_binary
@pytest.mark.parametrize("seed", range(12))
def test_kernels_equal_the_trec_eval_binary_with_negative_grades(seed, tmp_path):
    rng = np.random.default_rng(300 + seed)
    run, qrels = random_case(rng, negatives=True)
    # trec_eval 10.0 refuses a qrels query not in the run, and cannot calculate any measure of a query whose grades
    # are all < 0 ("Can't calculate measure"): both are left out
    qrels = {q: judged for q, judged in qrels.items() if q in run and max(judged.values()) >= 0}
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    for measure, (key, kernel, params) in BINARY_MEASURES.items():
        printed = run_trec_eval(run, qrels, [measure], tmp_path)  # one at a time: a repeated -m stem keeps the last
        assert_printed(column(kernel, rows, 1, (), params), [printed[(key, q)] for q in qids], measure)
        COMPARED["trec_eval"] += len(qids)
    printed = run_trec_eval(run, qrels, ["relstring.6"], tmp_path)
    assert list(gk.relstrings(rows, 6)) == [printed[("relstring_6", q)].strip("'") for q in qids]
    COMPARED["trec_eval"] += len(qids)


# ------------------------------------------------------------------------------------ ir_measures and the papers
def test_err_hand_worked_three_documents():
    """ERR (Chapelle et al. 2009, eq. 4, R = (2^g - 1) / 2^g_max, g_max = 4 as gdeval.pl) of grades 2, 0, 4:
    R = 3/16, 0, 15/16; ERR = (3/16)/1 + 0/2 + (15/16)/3 (1 - 3/16)(1 - 0) = 0.1875 + 0.25390625 = 0.44140625;
    ERR@2 = 0.1875."""
    rows, _ = rows_of({"1": {"a": 3, "b": 2, "c": 1}}, {"1": {"a": 2, "b": 0, "c": 4}})
    table = gk.err_table(rows, 1, [2], {})
    np.testing.assert_allclose(table, [[0.1875, 0.44140625]], rtol=0, atol=1e-15)
    # a grade above gdeval's 4 (which gdeval refuses) counts as 4: R = 15/16
    rows, _ = rows_of({"1": {"a": 1}}, {"1": {"a": 7}})
    assert gk.err_table(rows, 1, [], {}).tolist() == [[15 / 16]]
    COMPARED["hand"] += 3


def test_rbp_hand_worked_three_documents():
    """RBP (Moffat & Zobel 2008, eq. 1: (1 - p) Σ r_i p^(i-1)) with p = 0.8 of relevances 1, 0, 1:
    0.2 (1 + 0.64) = 0.328; RBP@1 = 0.2. With rel=2 only the grade-2 document counts: 0.2 0.64 = 0.128."""
    rows, _ = rows_of({"1": {"a": 3, "b": 2, "c": 1}}, {"1": {"a": 1, "b": 0, "c": 2}})
    np.testing.assert_allclose(gk.rbp_table(rows, 1, [1], {}), [[0.2, 0.328]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(gk.rbp_table(rows, 2, [], {"p": 0.8}), [[0.128]], rtol=0, atol=1e-15)
    COMPARED["hand"] += 3


def ir_measures_case(rng: np.random.Generator, *, ties: bool = False) -> tuple[dict, dict]:
    """Numeric query ids (gdeval reads only those), grades 0..4 (gdeval's scale), distinct scores per query unless
    ``ties`` (gdeval breaks ties as trec_eval does: docid descending)."""
    run, qrels = random_case(rng, negatives=False, n_queries=8)
    step = 0.0 if ties else 0.01
    run = {q[1:]: {d: s + step * i for i, (d, s) in enumerate(docs.items())} for q, docs in run.items()}
    qrels = {q[1:]: judged for q, judged in qrels.items()}
    return run, qrels


@pytest.mark.parametrize("seed", range(6))
def test_gdeval_measures_equal_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    if shutil.which("perl") is None:
        pytest.skip("gdeval (ir_measures' provider of ERR and nDCG(dcg='exp-log2')) needs perl")
    rng = np.random.default_rng(400 + seed)
    run, qrels = ir_measures_case(rng, ties=seed % 2 == 1)
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    cutoffs = [3, 10]
    names = [f"ERR@{k}" for k in cutoffs] + [f"nDCG(dcg='exp-log2')@{k}" for k in cutoffs]
    measures = [ir_measures.parse_measure(n) for n in names]
    found = {(str(m.measure), m.query_id): m.value
             for m in ir_measures.gdeval.iter_calc(measures, qrels, run)}
    err = gk.err_table(rows, 1, cutoffs, {})
    ndcg = gk.gain_ndcg_table(rows, 1, cutoffs, {"dcg": "exp-log2"})
    for i, k in enumerate(cutoffs):
        for code, qid in enumerate(qids):
            if (f"ERR@{k}", qid) not in found:  # gdeval leaves out a query without a positive grade
                assert err[code, i] == 0.0 and ndcg[code, i] == 0.0
                continue
            assert err[code, i] == pytest.approx(found[(f"ERR@{k}", qid)], abs=5e-6)
            assert ndcg[code, i] == pytest.approx(found[(f"nDCG(dcg='exp-log2')@{k}", qid)], abs=5e-6)
            COMPARED["ir_measures"] += 2


@pytest.mark.parametrize("seed", range(6))
def test_rbp_equals_ir_measures_cwl_eval(seed):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    rng = np.random.default_rng(500 + seed)
    run, qrels = ir_measures_case(rng)
    rows, qids = rows_of(run, qrels)
    if not qids:
        return
    for p, rel in ((0.8, 1), (0.5, 2), (0.95, 1)):
        measure = ir_measures.RBP(p=p, rel=rel)
        found = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}
        values = column(gk.rbp_table, rows, rel, (), {"p": p})
        np.testing.assert_allclose(values, [found[q] for q in qids], rtol=0, atol=1e-9)
        COMPARED["ir_measures"] += len(qids)


def test_fractional_gains_rank_the_ideal_by_gain():
    """Grades 1, 2 ranked in that order, gains 1 -> 3.5, 2 -> 3: the ranking is the ideal one, nDCG 1 (by hand).
    trec_eval 10.0 prints 0.8140 for its example with these gains and 0 with gains all below 1: its sort of the
    gains compares their difference cast to int, so gains less than 1 apart keep the order they were given in, and
    its "ideal" ranking is not sorted by gain (ir_measures refuses gains that are not ints)."""
    rows, _ = rows_of({"1": {"a": 2, "b": 1}}, {"1": {"a": 1, "b": 2}})
    assert column(gk.gain_ndcg_table, rows, 1, (), {"gains": {1: 3.5, 2: 3}}).tolist() == [1.0]
    assert column(gk.gain_ndcg_table, rows, 1, (), {"gains": {1: 0.5, 2: 0.7}}).tolist() == [
        pytest.approx((0.5 + 0.7 / np.log2(3)) / (0.7 + 0.5 / np.log2(3)), abs=1e-15)]
    COMPARED["hand"] += 2


def test_infap_skips_pooled_unjudged_documents():
    """infAP by hand: grades 1, pooled-unjudged (-1), 1 with 2 relevant: (1 + [1/3 + (2/3)(2/2)((1+eps)/(1+2eps))]) / 2."""
    rows, _ = rows_of({"1": {"a": 3, "b": 2, "c": 1}}, {"1": {"a": 1, "b": -1, "c": 1}})
    eps = gk.INFAP_EPSILON
    second = 1 / 3 + (2 / 3) * (2 / 2) * ((1 + eps) / (1 + 2 * eps))
    assert column(gk.infap_table, rows).tolist() == pytest.approx([(1 + second) / 2], abs=1e-15)
    COMPARED["hand"] += 1


def test_comparison_counts():
    """Runs last in this module: how many per-query values each reference checked (``-s`` prints them)."""
    print(f"\nper-query values compared: {COMPARED}")
    assert COMPARED["pytrec_eval"] > 0 and COMPARED["hand"] > 0 and COMPARED["trec_eval"] > 0


@pytest.mark.stress
@pytest.mark.parametrize("seed", range(1000, 1040))
def test_stress_kernels_equal_pytrec_eval_and_the_binary(seed, tmp_path):
    """The sweeps above on more and larger random cases (``.ci/run`` runs the stress marker)."""
    rng = np.random.default_rng(seed)
    run, qrels = random_case(rng, negatives=False, n_queries=40)
    rows, qids = rows_of(run, qrels)
    for name, kernel in KERNELS.items():
        np.testing.assert_allclose(column(kernel, rows, 1 + seed % 3), pytrec(run, qrels, name, name, qids, 1 + seed % 3),
                                   rtol=0, atol=1e-12, err_msg=name)
    if os.access(TREC_EVAL, os.X_OK):
        run, qrels = random_case(rng, negatives=True, n_queries=40)
        qrels = {q: judged for q, judged in qrels.items() if q in run and max(judged.values()) >= 0}
        rows, qids = rows_of(run, qrels)
        for measure, (key, kernel, params) in BINARY_MEASURES.items():
            printed = run_trec_eval(run, qrels, [measure], tmp_path)
            assert_printed(column(kernel, rows, 1, (), params), [printed[(key, q)] for q in qids], measure)
