"""The kernels of evalframe.metrics.trec_set_kernels against the real tools, per query and aggregated.

References: pytrec_eval (trec_eval 9.x's C code, full precision), the trec_eval 10.0 binary (printed at 4 decimals;
its tests skip when it is not built: ``benchmarks/`` builds it in ``~/.cache/evalframe-bench``, or set
``EVALFRAME_TREC_EVAL``) and ir_measures. Runs are random and adversarial: graded, negative and missing judgments,
tied scores, queries without relevant documents, queries only in the qrels (``-c``), runs longer than 1000.

Two facts about the references shape the comparison:

* pytrec_eval-terrier hangs on a query whose grades are all negative (see tests/test_trec_vs_pytrec_eval.py): it is
  given the qrels without negative grades; the trec_eval binary reads them as they are.
* pytrec_eval is trec_eval 9.x: its ``iprec_at_recall`` and ``11pt_avg`` turn a recall point p into
  trunc(p * R + 0.9) relevant documents, trec_eval 10.0 into lround(p * R) ("Breaking fix" of its CHANGELOG), so
  ``version="9"`` is compared with pytrec_eval and the default with the binary.
"""

from __future__ import annotations

import math
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from evalframe.metrics import trec_set_kernels as k
from evalframe.metrics.registry import AGGREGATIONS, GEOMETRIC_MEAN_FLOOR
from evalframe.metrics.trec_kernels import UNJUDGED, RankedRows

pytrec_eval = pytest.importorskip("pytrec_eval")

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]
Kernel = Callable[..., np.ndarray]

TREC_EVAL = Path(os.environ.get("EVALFRAME_TREC_EVAL", Path.home() / ".cache" / "evalframe-bench" / "trec_eval-10.0"
                                / "trec_eval"))
needs_binary = pytest.mark.skipif(not TREC_EVAL.is_file(), reason=f"the trec_eval 10.0 binary is not built ({TREC_EVAL})")
COMPARED = {"pytrec_eval": 0, "trec_eval": 0, "ir_measures": 0}


# ----------------------------------------------------------------------------------------- inputs
def trec_order(docs: Mapping[str, float]) -> list[str]:
    """trec_eval's ranking: score descending, ties by docid descending."""
    return [d for d, _ in sorted(sorted(docs.items(), reverse=True), key=lambda item: -item[1])]


def rows_of(run: Run, qrels: Qrels, queries: Sequence[str]) -> RankedRows:
    """The flat arrays of the evaluated ``queries`` (a query without run lines has no row)."""
    row_query, position, grade, judged_query, judged_grade = [], [], [], [], []
    for code, qid in enumerate(queries):
        judged = qrels.get(qid, {})
        for rank, doc in enumerate(trec_order(run.get(qid, {}))):
            row_query.append(code)
            position.append(rank)
            grade.append(judged.get(doc, UNJUDGED))
        for g in sorted(judged.values(), reverse=True):
            judged_query.append(code)
            judged_grade.append(g)

    def array(values: list[int]) -> np.ndarray:
        return np.asarray(values, dtype=np.int64)

    return RankedRows(array(row_query), array(position), array(grade), array(judged_query), array(judged_grade),
                      len(queries))


def random_case(seed: int, *, negatives: bool = True, ties: bool = True, long_run: bool = False) -> tuple[dict, dict]:
    """A run and graded qrels: 1-6 queries, some only in the run or only in the qrels, with ties and unjudged docs."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(1500 if long_run else 14)]
    qids = [f"q{i}" for i in range(int(rng.integers(1, 7)))]
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    low = -1 if negatives else 0
    for qid in qids:
        kind = rng.random()
        if kind > 0.15:  # in the run
            n = int(rng.integers(1, len(docs) + 1)) if not long_run else int(rng.integers(900, 1500))
            chosen = rng.choice(len(docs), size=n, replace=False)
            scores = rng.integers(0, 4, size=n) if ties else rng.permutation(n)
            run[qid] = {docs[i]: float(s) for i, s in zip(chosen, scores, strict=True)}
        if kind < 0.9:  # in the qrels
            n = int(rng.integers(1, min(len(docs), 40) + 1))
            chosen = rng.choice(len(docs), size=n, replace=False)
            grades = rng.integers(low, 4, size=n)
            if rng.random() < 0.2:  # no relevant document
                grades = np.minimum(grades, 0)
            qrels[qid] = {docs[i]: int(g) for i, g in zip(chosen, grades, strict=True)}
    return run, qrels


def without_negatives(qrels: Qrels) -> dict[str, dict[str, int]]:
    kept = {q: {d: g for d, g in judged.items() if g >= 0} for q, judged in qrels.items()}
    return {q: judged for q, judged in kept.items() if judged}


def evaluated(run: Run, qrels: Qrels, complete: bool = False) -> list[str]:
    """trec_eval's evaluated queries: those of the qrels with run lines (all of them with -c), in qrels order."""
    return [q for q in qrels if q in run or complete]


# ----------------------------------------------------------------------------------------- pytrec_eval
def trec_eval_nan_as_zero(name: str, mine: np.ndarray, theirs: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """``theirs`` with trec_eval's documented quirk replaced by evalframe's value: an interpolated precision (IPrec,
    11pt_avg) of a ranking left with no document (``-J``, judged_only: no judged document retrieved) is trec_eval's
    (pytrec_eval's, ir_measures') 0 / 0, NaN; evalframe's is 0, one number for one measure however the ranking was
    emptied (``--format trec_eval`` prints trec_eval's ``-nan``). Each such NaN is checked to be one: the measure's,
    a query whose ranking is empty (``empty``, per query), where evalframe has 0."""
    theirs = np.array(theirs, dtype=np.float64)
    mine = np.asarray(mine, dtype=np.float64)
    quirk = np.isnan(theirs) & ~np.isnan(mine)
    if quirk.any():
        assert any(part in name for part in ("iprec", "IPrec", "11pt")), name
        assert np.all(np.asarray(empty)[quirk if quirk.ndim == 1 else quirk.any(axis=1)]), name
        assert np.all(mine[quirk] == 0.0), name
    theirs[quirk] = 0.0
    return theirs


def emptied(run: Run, qrels: Qrels, queries: Sequence[str]) -> np.ndarray:
    """Per query, whether judged_only leaves its ranking empty (no document of it with a grade >= 0)."""
    return np.array([not any(qrels.get(q, {}).get(d, -1) >= 0 for d in run.get(q, {})) for q in queries])


def fmt(value: float) -> str:
    return f"{value:.2f}"


#: id -> (kernel, cutoffs, params, pytrec_eval's measure, its result keys (one per column), per-query transform)
IDENTITY: Callable[[np.ndarray], np.ndarray] = lambda v: v  # noqa: E731


def floored_log(values: np.ndarray) -> np.ndarray:
    """pytrec_eval's per-query gm_map / gm_bpref: log(max(value, MIN_GEO_MEAN))."""
    return np.log(np.maximum(values, GEOMETRIC_MEAN_FLOOR))


V9 = {"version": "9"}
MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
REL_P = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
PYTREC_CASES: dict[str, tuple] = {
    "num_q": (k.num_q_table, [], {}, "num_q", ["num_q"], IDENTITY),
    "num_ret": (k.num_ret_table, [], {}, "num_ret", ["num_ret"], IDENTITY),
    "num_rel": (k.num_rel_table, [], {}, "num_rel", ["num_rel"], IDENTITY),
    "num_rel_ret": (k.num_rel_ret_table, [], {}, "num_rel_ret", ["num_rel_ret"], IDENTITY),
    "num_nonrel_judged_ret": (k.num_nonrel_judged_ret_table, [], {}, "num_nonrel_judged_ret",
                              ["num_nonrel_judged_ret"], IDENTITY),
    "gm_map": (k.gm_map_table, [], {}, "gm_map", ["gm_map"], floored_log),
    "gm_bpref": (k.gm_bpref_table, [], {}, "gm_bpref", ["gm_bpref"], floored_log),
    "iprec_at_recall": (k.iprec_table, list(k.IPREC_RECALLS), V9, "iprec_at_recall",
                        [f"iprec_at_recall_{fmt(p)}" for p in k.IPREC_RECALLS], IDENTITY),
    "iprec_at_recall.0.05,0.15,0.33": (k.iprec_table, [0.05, 0.15, 0.33], V9, "iprec_at_recall.0.05,0.15,0.33",
                                       ["iprec_at_recall_0.05", "iprec_at_recall_0.15", "iprec_at_recall_0.33"],
                                       IDENTITY),
    "11pt_avg": (k.eleven_point_table, [], V9, "11pt_avg", ["11pt_avg"], IDENTITY),
    "11pt_avg.0.2,0.5,0.8": (k.eleven_point_table, [], {**V9, "recalls": (0.2, 0.5, 0.8)}, "11pt_avg.0.2,0.5,0.8",
                             ["11pt_avg"], IDENTITY),
    "Rprec_mult": (k.rprec_mult_table, list(MULTS), {}, "Rprec_mult", [f"Rprec_mult_{fmt(m)}" for m in MULTS],
                   IDENTITY),
    "Rprec_mult.0.1,0.5,3": (k.rprec_mult_table, [0.1, 0.5, 3.0], {}, "Rprec_mult.0.1,0.5,3",
                             ["Rprec_mult_0.10", "Rprec_mult_0.50", "Rprec_mult_3.00"], IDENTITY),
    "relative_P": (k.relative_p_table, list(REL_P), {}, "relative_P", [f"relative_P_{c}" for c in REL_P], IDENTITY),
    "relative_P.1,2,3,7": (k.relative_p_table, [1, 2, 3, 7], {}, "relative_P.1,2,3,7",
                           ["relative_P_1", "relative_P_2", "relative_P_3", "relative_P_7"], IDENTITY),
    "set_P": (k.set_p_table, [], {}, "set_P", ["set_P"], IDENTITY),
    "set_relative_P": (k.set_p_table, [], {"relative": True}, "set_relative_P", ["set_relative_P"], IDENTITY),
    "set_recall": (k.set_recall_table, [], {}, "set_recall", ["set_recall"], IDENTITY),
    "set_map": (k.set_map_table, [], {}, "set_map", ["set_map"], IDENTITY),
    "set_F": (k.set_f_table, [], {}, "set_F", ["set_F"], IDENTITY),
    "set_F.0.5": (k.set_f_table, [], {"beta": 0.5}, "set_F.0.5", ["set_F"], IDENTITY),
    "set_F.2": (k.set_f_table, [], {"beta": 2.0}, "set_F.2", ["set_F"], IDENTITY),
    "utility": (k.utility_table, [], {}, "utility", ["utility"], IDENTITY),
}
#: How trec_eval sums each up over queries (meas_acc.c, meas_avg.c and the measures' own calc_avg).
AGGREGATION = {"num_q": "sum", "num_ret": "sum", "num_rel": "sum", "num_rel_ret": "sum", "num_nonrel_judged_ret": "sum",
               "gm_map": "geometric_mean", "gm_bpref": "geometric_mean"}


def ours(case: str, rows: RankedRows, level: int, judged_only: bool) -> np.ndarray:
    kernel, cutoffs, params, _, keys, _ = PYTREC_CASES[case]
    table = kernel(rows, level, cutoffs, {**params, "judged_only": judged_only})
    assert table.shape == (rows.n_queries, len(cutoffs) + 1) and table.dtype == np.float64
    return table[:, : len(keys)] if cutoffs else table[:, -1:]


def pytrec(case: str, run: Run, qrels: Qrels, queries: Sequence[str], level: int, judged_only: bool) -> np.ndarray:
    _, _, _, request, keys, _ = PYTREC_CASES[case]
    evaluator = pytrec_eval.RelevanceEvaluator(without_negatives(qrels), {request}, relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    values = evaluator.evaluate({q: dict(run[q]) for q in queries})
    return np.array([[values[q][key] for key in keys] for q in queries], dtype=np.float64).reshape(len(queries), -1)


def check_pytrec(run: Run, qrels: Qrels, level: int, judged_only: bool) -> None:
    qrels = without_negatives(qrels)
    queries = evaluated(run, qrels)
    if not queries:
        return
    rows = rows_of(run, qrels, queries)
    for case, (_, _, _, _, _, transform) in PYTREC_CASES.items():
        mine = ours(case, rows, level, judged_only)
        theirs = pytrec(case, run, qrels, queries, level, judged_only)
        empty = (rows.judged_ranking if judged_only else rows).num_ret == 0
        np.testing.assert_allclose(transform(mine), trec_eval_nan_as_zero(case, transform(mine), theirs, empty),
                                   rtol=0, atol=1e-12, equal_nan=True, err_msg=case)
        COMPARED["pytrec_eval"] += theirs.size
        # trec_eval's aggregate of pytrec_eval's per-query values, by its C formula, against evalframe's aggregation
        aggregation = AGGREGATION.get(case, "mean")
        for column in range(theirs.shape[1]):
            if np.isnan(theirs[:, column]).any():
                continue  # trec_eval's sum is NaN; evalframe skips a query without a value
            if aggregation == "geometric_mean":
                expected = math.exp(float(np.sum(theirs[:, column])) / len(queries))
            elif aggregation == "sum":
                expected = float(np.sum(theirs[:, column]))
            else:
                expected = float(np.sum(theirs[:, column])) / len(queries)
            assert AGGREGATIONS[aggregation](mine[:, column]) == pytest.approx(expected, rel=1e-12, abs=1e-12), case


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level, judged_only", [(1, False), (2, False), (1, True), (2, True)])
def test_kernels_equal_pytrec_eval_per_query_and_aggregated(seed, level, judged_only):
    run, qrels = random_case(seed)
    check_pytrec(run, qrels, level, judged_only)


@pytest.mark.stress
@pytest.mark.parametrize("seed", range(12, 400))
@pytest.mark.parametrize("level, judged_only", [(1, False), (2, False), (3, True), (1, True)])
def test_kernels_equal_pytrec_eval_sweep(seed, level, judged_only):
    run, qrels = random_case(seed)
    check_pytrec(run, qrels, level, judged_only)


@pytest.mark.parametrize("judged_only", [False, True])
def test_runs_longer_than_1000_equal_pytrec_eval(judged_only):
    run, qrels = random_case(7, long_run=True)
    check_pytrec(run, qrels, 1, judged_only)


ADVERSARIAL = {
    # every retrieved document relevant; nothing relevant retrieved; ties everywhere; one document
    "all relevant": ({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 1, "b": 2, "c": 1}}),
    "no relevant retrieved": ({"q": {"a": 3.0, "b": 2.0}}, {"q": {"c": 1, "a": 0}}),
    "no relevant judgment": ({"q": {"a": 3.0, "b": 2.0}}, {"q": {"a": 0, "b": 0}}),
    "ties": ({"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}, {"q": {"a": 1, "b": 0, "d": 2}}),
    "one document": ({"q": {"a": 1.0}}, {"q": {"a": 1}}),
    "only unjudged retrieved": ({"q": {"x": 1.0, "y": 0.5}}, {"q": {"a": 1, "b": 0}}),
    "recall points on halves": ({"q": {f"d{i}": float(-i) for i in range(12)}},
                                {"q": {"d0": 1, "d3": 1, "d7": 1, "d11": 1, "z": 1, "y": 1}}),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL))
@pytest.mark.parametrize("level, judged_only", [(1, False), (2, False), (1, True)])
def test_adversarial_runs_equal_pytrec_eval(case, level, judged_only):
    run, qrels = ADVERSARIAL[case]
    check_pytrec(run, qrels, level, judged_only)


# ----------------------------------------------------------------------------------------- hand-worked values
def test_hand_worked_values():
    # ranking: rel(1) nonrel(0) unjudged rel(2) judged(-1): R = 3 (one relevant document is not retrieved)
    rows = rows_of({"q": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "n": 1.0}},
                   {"q": {"a": 1, "b": 0, "c": 2, "n": -1, "z": 1}}, ["q"])
    assert k.set_p_table(rows, 1, [], {})[0, -1] == 2 / 5
    assert k.set_p_table(rows, 1, [], {"judged_only": True})[0, -1] == 2 / 3  # a b c: n (-1) is dropped by -J
    assert k.set_p_table(rows, 1, [], {"relative": True})[0, -1] == 2 / 3  # over min(5, 3)
    assert k.set_recall_table(rows, 1, [], {})[0, -1] == 2 / 3
    assert k.set_map_table(rows, 1, [], {})[0, -1] == 4 / 15
    p, r = 2 / 5, 2 / 3
    assert k.set_f_table(rows, 1, [], {"beta": 0.5})[0, -1] == pytest.approx(1.5 * p * r / (0.5 * p + r), abs=1e-15)
    assert k.utility_table(rows, 1, [], {})[0, -1] == 2 - 3  # 2 relevant retrieved, 3 others
    assert k.utility_table(rows, 1, [], {"rel_unret": -2.0, "nonrel_unret": 0.5, "num_docs": 10})[0, -1] == (
        2 - 3 - 2 * 1 + 0.5 * (10 + 2 - 5 - 3))
    assert k.num_nonrel_judged_ret_table(rows, 1, [], {})[0, -1] == 1  # b; n (-1) is not judged for trec_eval
    assert k.unj_table(rows, 1, [2, 3, 10], {}).tolist() == [[0.0, 1 / 3, 2 / 10, 2 / 5]]  # x and n
    assert k.judged_table(rows, 1, [2, 3, 10], {}).tolist() == [[1.0, 2 / 3, 4 / 5, 4 / 5]]  # n is in the qrels
    # precision at the hits: 1/1 (a), 2/4 (c); 10.0: lround(p * 3) hits, 9.x: trunc(p * 3 + 0.9); above 2: 0.0
    points = [0.0, 0.1, 0.4, 0.5, 0.8, 1.0]
    assert k.iprec_table(rows, 1, points, {})[0, :-1].tolist() == [1.0, 1.0, 1.0, 0.5, 0.5, 0.0]  # 0 0 1 2 2 3
    assert k.iprec_table(rows, 1, points, V9)[0, :-1].tolist() == [1.0, 1.0, 0.5, 0.5, 0.0, 0.0]  # 0 1 2 2 3 3
    assert k.rprec_mult_table(rows, 1, [0.2, 1.0, 2.0], {})[0, :-1].tolist() == [1.0, 1 / 3, 2 / 6]  # k = 1, 3, 6
    assert k.relative_p_table(rows, 1, [1, 2, 4, 10], {})[0, :-1].tolist() == [1.0, 0.5, 2 / 3, 2 / 3]


# ----------------------------------------------------------------------------------------- the trec_eval binary
def write_files(tmp_path: Path, run: Run, qrels: Qrels) -> tuple[Path, Path]:
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()))
    run_file.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} r\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    return qrels_file, run_file


def trec_eval(tmp_path: Path, run: Run, qrels: Qrels, measures: Sequence[str], flags: Sequence[str]
              ) -> dict[tuple[str, str], float]:
    """``{(printed measure, qid or 'all'): value}`` from the binary's ``-q`` output."""
    qrels_file, run_file = write_files(tmp_path, run, qrels)
    args = [str(TREC_EVAL), "-q", *flags, *(x for m in measures for x in ("-m", m)), str(qrels_file), str(run_file)]
    output = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    values = {}
    for line in output.splitlines():
        name, qid, value = line.split()
        values[name, qid] = float(value)
    return values


#: the binary's measure -> (kernel, cutoffs, params, printed names per column, aggregation)
BINARY_CASES: dict[str, tuple] = {
    "num_q": (k.num_q_table, [], {}, ["num_q"], "sum"),
    "num_ret": (k.num_ret_table, [], {}, ["num_ret"], "sum"),
    "num_rel": (k.num_rel_table, [], {}, ["num_rel"], "sum"),
    "num_rel_ret": (k.num_rel_ret_table, [], {}, ["num_rel_ret"], "sum"),
    "num_nonrel_judged_ret": (k.num_nonrel_judged_ret_table, [], {}, ["num_nonrel_judged_ret"], "sum"),
    "gm_map": (k.gm_map_table, [], {}, ["gm_map"], "geometric_mean"),
    "gm_bpref": (k.gm_bpref_table, [], {}, ["gm_bpref"], "geometric_mean"),
    "iprec_at_recall": (k.iprec_table, list(k.IPREC_RECALLS), {},
                        [f"iprec_at_recall_{fmt(p)}" for p in k.IPREC_RECALLS], "mean"),
    "11pt_avg": (k.eleven_point_table, [], {}, ["11pt_avg"], "mean"),
    "11pt_avg.0.2,0.5,0.8": (k.eleven_point_table, [], {"recalls": (0.2, 0.5, 0.8)}, ["11pt_avg_0.2,0.5,0.8"],
                             "mean"),
    "Rprec_mult": (k.rprec_mult_table, list(MULTS), {}, [f"Rprec_mult_{fmt(m)}" for m in MULTS], "mean"),
    "relative_P": (k.relative_p_table, list(REL_P), {}, [f"relative_P_{c}" for c in REL_P], "mean"),
    "set_P": (k.set_p_table, [], {}, ["set_P"], "mean"),
    "set_relative_P": (k.set_p_table, [], {"relative": True}, ["set_relative_P"], "mean"),
    "set_recall": (k.set_recall_table, [], {}, ["set_recall"], "mean"),
    "set_map": (k.set_map_table, [], {}, ["set_map"], "mean"),
    "set_F.0.5": (k.set_f_table, [], {"beta": 0.5}, ["set_F_0.5"], "mean"),
    "utility": (k.utility_table, [], {}, ["utility"], "mean"),
    "unj.5,10,20,1000": (k.unj_table, [5, 10, 20, 1000], {}, ["unj_5", "unj_10", "unj_20", "unj_1000"], "mean"),
}
#: printed per query ("num_q", "gm_map" and "gm_bpref" only in the summary)
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}
PRINTED = 5.01e-5  # the binary prints 4 decimals


def check_binary(tmp_path: Path, run: Run, qrels: Qrels, level: int, judged_only: bool, complete: bool,
                 cases: Mapping[str, tuple] = BINARY_CASES, flags: Sequence[str] = ()) -> None:
    if not complete:  # trec_eval 10.0 stops on a qrels query without run lines unless -c
        qrels = {q: judged for q, judged in qrels.items() if q in run}
    # and it cannot evaluate a query whose grades are all negative ("Can't calculate measure": form_res_rels.c
    # allocates max_rel + 1 = 0 levels)
    qrels = {q: judged for q, judged in qrels.items() if max(judged.values()) >= 0}
    queries = evaluated(run, qrels, complete)
    if not queries or not run:
        return
    rows = rows_of(run, qrels, queries)
    all_flags = [*flags, "-l", str(level)] + (["-J"] if judged_only else []) + (["-c"] if complete else [])
    for case, (kernel, cutoffs, params, names, aggregation) in cases.items():
        # one call per measure: trec_eval keeps the first parameters of a measure named twice (11pt_avg, set_F)
        printed = trec_eval(tmp_path, run, qrels, [case], all_flags)
        table = kernel(rows, level, cutoffs, {**params, "judged_only": judged_only})
        mine = table[:, : len(names)] if cutoffs else table[:, -1:]
        for column, name in enumerate(names):
            if name not in SUMMARY_ONLY:
                theirs = np.array([printed[name, q] for q in queries])
                empty = (rows.judged_ranking if judged_only else rows).num_ret == 0
                np.testing.assert_allclose(mine[:, column], trec_eval_nan_as_zero(name, mine[:, column], theirs, empty),
                                           rtol=0, atol=PRINTED, equal_nan=True, err_msg=f"{case} {name}")
                COMPARED["trec_eval"] += len(queries)
            if complete and level > 1 and name == "num_rel":
                continue  # test_num_rel_under_c_counts_every_positive_grade: trec_eval's own rule
            if np.isnan(mine[:, column]).any() or math.isnan(printed[name, "all"]):
                continue  # a query's NaN makes trec_eval's mean NaN (evalframe's skips a NaN, and has 0 for 0 / 0)
            summary = AGGREGATIONS[aggregation](mine[:, column])
            assert summary == pytest.approx(printed[name, "all"], abs=PRINTED), f"{case} {name} all"
            COMPARED["trec_eval"] += 1


@needs_binary
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level, judged_only, complete", [(1, False, False), (2, False, True), (1, True, False),
                                                          (1, False, True)])
def test_kernels_equal_the_trec_eval_10_binary(tmp_path, seed, level, judged_only, complete):
    run, qrels = random_case(100 + seed)
    check_binary(tmp_path, run, qrels, level, judged_only, complete)


@needs_binary
@pytest.mark.stress
@pytest.mark.parametrize("seed", range(6, 150))
@pytest.mark.parametrize("level, judged_only, complete", [(1, False, False), (2, True, True), (3, False, True)])
def test_kernels_equal_the_trec_eval_10_binary_sweep(tmp_path, seed, level, judged_only, complete):
    run, qrels = random_case(100 + seed)
    check_binary(tmp_path, run, qrels, level, judged_only, complete)


@needs_binary
@pytest.mark.parametrize("case", list(ADVERSARIAL))
def test_adversarial_runs_equal_the_binary(tmp_path, case):
    run, qrels = ADVERSARIAL[case]
    check_binary(tmp_path, run, qrels, 1, False, False)


@needs_binary
def test_utility_with_its_four_parameters_and_num_docs_equals_the_binary(tmp_path):
    cases = {"utility.2,-1,-3,0.5": (k.utility_table, [], {"rel_ret": 2.0, "nonrel_ret": -1.0, "rel_unret": -3.0,
                                                           "nonrel_unret": 0.5, "num_docs": 100},
                                     ["utility_2,-1,-3,0.5"], "mean")}
    for seed in range(4):
        run, qrels = random_case(300 + seed)
        check_binary(tmp_path, run, qrels, 1, False, False, cases, flags=["-N", "100"])


@needs_binary
def test_num_rel_under_c_counts_every_positive_grade(tmp_path):
    """trec_eval's num_rel summary with -c is every grade > 0 of the qrels whatever -l says (m_num_rel.c's calc_avg);
    evalframe sums the per-query num_rel at the level, which is the binary's summary without -c."""
    run, qrels = {"q1": {"a": 1.0}}, {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    printed = trec_eval(tmp_path, run, qrels, ["num_rel"], ["-c", "-l", "2"])
    assert printed["num_rel", "all"] == 3  # a, b, c
    rows = rows_of(run, qrels, ["q1", "q2"])
    assert AGGREGATIONS["sum"](k.num_rel_table(rows, 2, [], {})[:, -1]) == 1  # a


# ----------------------------------------------------------------------------------------- ir_measures
def test_judged_at_k_equals_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.parse_measure(name) for name in ("Judged@1", "Judged@3", "Judged@10", "Judged@5000",
                                                              "Judged")]
    for seed in range(20):
        run, qrels = random_case(500 + seed, ties=False)  # ir_measures' Judged breaks ties by docid ascending
        queries = [q for q in qrels if q in run]
        if not queries:
            continue
        rows = rows_of(run, qrels, queries)
        table = k.judged_table(rows, 1, [1, 3, 10, 5000], {})
        theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
        for column, measure in enumerate(measures):
            expected = [theirs[q, str(measure)] for q in queries]
            np.testing.assert_allclose(table[:, column], expected, rtol=0, atol=1e-12)
            COMPARED["ir_measures"] += len(queries)
        # its mean counts the qrels queries without run lines as 0: evalframe's complete=True (trec_eval -c)
        every = k.judged_table(rows_of(run, qrels, evaluated(run, qrels, complete=True)), 1, [1, 3, 10, 5000], {})
        aggregate = ir_measures.calc_aggregate(measures, qrels, run)
        for column, measure in enumerate(measures):
            assert AGGREGATIONS["mean"](every[:, column]) == pytest.approx(aggregate[measure], abs=1e-12)
            COMPARED["ir_measures"] += 1



# ----------------------------------------------------------------------------------------- through the public API
#: every name a researcher types (trec_eval's, pytrec_eval's key, ir_measures') -> (canonical name, pytrec_eval's
#: measure to request, its key, per-query transform of ours). IPrec and 11pt_avg follow trec_eval 10.0 by default:
#: pytrec_eval (9.x) is compared with version='9'; the default forms against the binary below.
API_NAMES: dict[str, tuple[str, str, str, Callable[[np.ndarray], np.ndarray]]] = {
    "num_q": ("NumQ", "num_q", "num_q", IDENTITY),
    "NumQ": ("NumQ", "num_q", "num_q", IDENTITY),
    "num_ret": ("NumRet", "num_ret", "num_ret", IDENTITY),
    "NumRet": ("NumRet", "num_ret", "num_ret", IDENTITY),
    "num_rel_ret": ("NumRelRet", "num_rel_ret", "num_rel_ret", IDENTITY),
    "NumRelRet": ("NumRelRet", "num_rel_ret", "num_rel_ret", IDENTITY),
    "num_rel": ("NumRel", "num_rel", "num_rel", IDENTITY),
    "NumRel": ("NumRel", "num_rel", "num_rel", IDENTITY),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", "num_nonrel_judged_ret", "num_nonrel_judged_ret", IDENTITY),
    "gm_map": ("gm_map", "gm_map", "gm_map", floored_log),
    "gm_bpref": ("gm_bpref", "gm_bpref", "gm_bpref", floored_log),
    "IPrec(version='9')@0.1": ("IPrec(version='9')@0.1", "iprec_at_recall", "iprec_at_recall_0.10", IDENTITY),
    "IPrec(version='9')@0.75": ("IPrec(version='9')@0.75", "iprec_at_recall.0.75", "iprec_at_recall_0.75", IDENTITY),
    "11pt_avg(version='9')": ("11pt_avg(version='9')", "11pt_avg", "11pt_avg", IDENTITY),
    "Rprec_mult_0.20": ("Rprec_mult@0.2", "Rprec_mult", "Rprec_mult_0.20", IDENTITY),
    "Rprec_mult.1.4": ("Rprec_mult@1.4", "Rprec_mult", "Rprec_mult_1.40", IDENTITY),
    "Rprec_mult@2.0": ("Rprec_mult@2.0", "Rprec_mult", "Rprec_mult_2.00", IDENTITY),
    "relative_P_5": ("relative_P@5", "relative_P", "relative_P_5", IDENTITY),
    "relative_P.10": ("relative_P@10", "relative_P", "relative_P_10", IDENTITY),
    "relative_P@3": ("relative_P@3", "relative_P.3", "relative_P_3", IDENTITY),
    "set_P": ("SetP", "set_P", "set_P", IDENTITY),
    "SetP": ("SetP", "set_P", "set_P", IDENTITY),
    "set_relative_P": ("SetP(relative=True)", "set_relative_P", "set_relative_P", IDENTITY),
    "SetRelP": ("SetP(relative=True)", "set_relative_P", "set_relative_P", IDENTITY),
    "SetP(relative=True)": ("SetP(relative=True)", "set_relative_P", "set_relative_P", IDENTITY),
    "set_recall": ("SetR", "set_recall", "set_recall", IDENTITY),
    "SetR": ("SetR", "set_recall", "set_recall", IDENTITY),
    "set_map": ("SetAP", "set_map", "set_map", IDENTITY),
    "SetAP": ("SetAP", "set_map", "set_map", IDENTITY),
    "set_F": ("SetF", "set_F", "set_F", IDENTITY),
    "SetF": ("SetF", "set_F", "set_F", IDENTITY),
    "set_F.0.5": ("SetF(beta=0.5)", "set_F.0.5", "set_F", IDENTITY),
    "SetF(beta=0.5)": ("SetF(beta=0.5)", "set_F.0.5", "set_F", IDENTITY),
    "utility": ("utility", "utility", "utility", IDENTITY),
    "utility.1,-1,0,0": ("utility", "utility", "utility", IDENTITY),
}
#: ir_measures' parameters judged_only (pytrec_eval's judged_docs_only_flag) and rel (relevance_level)
API_JUDGED_ONLY = {"SetP(judged_only=True)": ("set_P", "set_P"), "SetAP(judged_only=True)": ("set_map", "set_map"),
                   "SetF(judged_only=True)": ("set_F", "set_F"), "NumRet(judged_only=True)": ("num_ret", "num_ret"),
                   "IPrec(judged_only=True,version='9')@0.3": ("iprec_at_recall", "iprec_at_recall_0.30"),
                   "Rprec_mult(judged_only=True)@0.6": ("Rprec_mult", "Rprec_mult_0.60"),
                   "relative_P(judged_only=True)@5": ("relative_P", "relative_P_5"),
                   "gm_map(judged_only=True)": ("gm_map", "gm_map"),
                   "utility(judged_only=True)": ("utility", "utility")}
API_LEVEL_2 = {"SetP(rel=2)": ("set_P", "set_P"), "SetR(rel=2)": ("set_recall", "set_recall"),
               "NumRel(rel=2)": ("num_rel", "num_rel"), "NumRelRet(rel=2)": ("num_rel_ret", "num_rel_ret"),
               "SetF(beta=2,rel=2)": ("set_F.2", "set_F"), "relative_P(rel=2)@2": ("relative_P.2", "relative_P_2"),
               "gm_bpref(rel=2)": ("gm_bpref", "gm_bpref"), "utility(rel=2)": ("utility", "utility")}


def api_case(seed: int) -> tuple[dict, dict]:
    run, qrels = random_case(900 + seed)
    return run, without_negatives(qrels)


def pytrec_per_query(run: Run, qrels: Qrels, request: str, key: str, level: int = 1, judged_only: bool = False
                     ) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {request}, relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    return {q: v[key] for q, v in evaluator.evaluate(run).items()}


def check_api(run: Run, qrels: Qrels, names: Mapping[str, tuple], level: int = 1, judged_only: bool = False) -> None:
    from evalframe import EvaluationResult
    from evalframe.metrics.trec import aggregation_of, parse_measure

    queries = evaluated(run, qrels)
    if not queries:
        return
    result = EvaluationResult.from_trec(run, qrels)
    table = result.trec_query_metrics(list(names))
    means = result.trec_metrics(list(names))
    for name, spec in names.items():
        canonical = str(parse_measure(name))
        request, key = spec[-3:-1] if len(spec) == 4 else spec
        if len(spec) == 4:
            assert canonical == spec[0], name
        aggregation = aggregation_of(canonical).name
        transform = floored_log if aggregation == "geometric_mean" else IDENTITY  # pytrec_eval gives gm_*'s logs
        theirs = pytrec_per_query({q: dict(run[q]) for q in queries}, qrels, request, key, level, judged_only)
        expected = np.array([theirs[q] for q in table.index])
        assert sorted(table.index) == sorted(queries)
        mine = transform(table[canonical].to_numpy())
        expected = trec_eval_nan_as_zero(name, mine, expected, emptied(run, qrels, list(table.index)) if judged_only
                                         else np.zeros(len(mine), dtype=bool))
        np.testing.assert_allclose(mine, expected, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        COMPARED["pytrec_eval"] += len(expected)
        if np.isnan(expected).any():
            continue
        if aggregation == "geometric_mean":
            summary = math.exp(float(np.sum(expected)) / len(expected))
        elif aggregation == "sum":
            summary = float(np.sum(expected))
        else:
            summary = float(np.sum(expected)) / len(expected)
        assert means[canonical] == pytest.approx(summary, rel=1e-12, abs=1e-12), name
        COMPARED["pytrec_eval"] += 1


@pytest.mark.parametrize("seed", range(5))
def test_every_name_through_trec_metrics_equals_pytrec_eval(seed):
    run, qrels = api_case(seed)
    check_api(run, qrels, API_NAMES)


def test_a_run_longer_than_1000_through_trec_metrics_equals_pytrec_eval():
    run, qrels = random_case(8, long_run=True)
    check_api(run, without_negatives(qrels), API_NAMES)


@pytest.mark.parametrize("seed", range(3))
def test_judged_only_and_rel_through_trec_metrics_equal_pytrec_eval(seed):
    run, qrels = api_case(20 + seed)
    check_api(run, qrels, API_JUDGED_ONLY, judged_only=True)
    check_api(run, qrels, API_LEVEL_2, level=2)


def test_query_metrics_takes_the_measures():
    from evalframe import EvaluationResult

    run, qrels = api_case(3)
    result = EvaluationResult.from_trec(run, qrels)
    names = ["num_ret", "set_F.0.5", "Rprec_mult_0.20", "unj.5", "Judged@5"]
    table = result.query_metrics("Retriever", measures=names)
    trec = result.trec_query_metrics(names)
    for column in trec.columns:
        np.testing.assert_array_equal(table.loc[trec.index, column].to_numpy(), trec[column].to_numpy())


#: the binary's printed measure -> our names of it (trec_eval's, pytrec_eval's key, ir_measures')
BINARY_NAMES = {
    "iprec_at_recall_0.10": ["iprec_at_recall_0.10", "iprec_at_recall.0.1", "IPrec@0.1"],
    "iprec_at_recall_0.50": ["iprec_at_recall_0.50", "IPrec@0.5"],
    "11pt_avg": ["11pt_avg"],
    "unj_5": ["unj_5", "unj.5", "unj@5"],
    "unj_20": ["unj@20"],
    "num_nonrel_judged_ret": ["num_nonrel_judged_ret"],
    "gm_map": ["gm_map"],
    "num_rel": ["num_rel", "NumRel"],
    "num_q": ["num_q"],
    "set_P": ["set_P"],
}


@needs_binary
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("complete", [False, True])
def test_names_through_trec_metrics_equal_the_binary(tmp_path, seed, complete):
    """trec_eval 10.0's own values (its recall rounding, unj, negative grades, -c) through the public API."""
    from evalframe import EvaluationResult

    run, qrels = random_case(950 + seed)
    qrels = {q: j for q, j in qrels.items() if max(j.values()) >= 0 and (complete or q in run)}
    queries = evaluated(run, qrels, complete)
    if not queries or not run:
        return
    result = EvaluationResult.from_trec(run, qrels)
    names = [name for names in BINARY_NAMES.values() for name in names]
    table = result.trec_query_metrics(names, complete=complete)
    means = result.trec_metrics(names, complete=complete)
    printed = trec_eval(tmp_path, run, qrels, ["iprec_at_recall", "11pt_avg", "unj", "num_nonrel_judged_ret", "gm_map",
                                               "num_rel", "num_q", "set_P"], ["-c"] if complete else [])
    for key, ours_names in BINARY_NAMES.items():
        for name in ours_names:
            from evalframe.metrics.trec import parse_measure

            canonical = str(parse_measure(name))
            if key not in SUMMARY_ONLY:
                expected = [printed[key, q] for q in table.index]
                np.testing.assert_allclose(table[canonical].to_numpy(), expected, rtol=0, atol=PRINTED, err_msg=name)
                COMPARED["trec_eval"] += len(expected)
            assert means[canonical] == pytest.approx(printed[key, "all"], abs=PRINTED), name
            COMPARED["trec_eval"] += 1


#: ir_measures' families: its name -> ours (the same unless noted)
IR_MEASURES_NAMES = {"NumQ": "NumQ", "NumRet": "NumRet", "NumRel": "NumRel", "NumRelRet": "NumRelRet",
                     "NumRet(rel=2)": "NumRelRet(rel=2)", "SetP": "SetP", "SetRelP": "SetRelP",
                     "SetP(relative=True)": "SetP(relative=True)", "SetR": "SetR", "SetR(rel=2)": "SetR(rel=2)",
                     "SetF": "SetF", "SetF(beta=0.5)": "SetF(beta=0.5)", "SetAP": "SetAP",
                     "IPrec@0.1": "IPrec(version='9')@0.1", "IPrec@0.45": "IPrec(version='9')@0.45",
                     "SetP(judged_only=True)": "SetP(judged_only=True)", "SetAP(judged_only=True)": "SetAP(judged_only=True)",
                     "SetF(judged_only=True)": "SetF(judged_only=True)",
                     "IPrec(judged_only=True)@0.2": "IPrec(judged_only=True,version='9')@0.2",
                     "Judged@3": "Judged@3", "Judged@10": "Judged@10", "Judged": "Judged"}


@pytest.mark.parametrize("seed", range(6))
def test_ir_measures_families_equal_ir_measures(seed):
    """ir_measures.iter_calc per query and calc_aggregate (on runs ranking every judged query: ir_measures counts
    the others as 0, NumQ and NumRel too, where trec_eval -c counts 1 and their relevant documents)."""
    ir_measures = pytest.importorskip("ir_measures")
    from evalframe import EvaluationResult

    run, qrels = random_case(700 + seed, ties=False)  # ir_measures' Judged breaks ties by docid ascending
    qrels = without_negatives(qrels)
    queries = evaluated(run, qrels)
    if not queries:
        return
    theirs_measures = [ir_measures.parse_measure(name) for name in IR_MEASURES_NAMES]
    result = EvaluationResult.from_trec(run, qrels)
    table = result.trec_query_metrics(list(IR_MEASURES_NAMES.values()))
    means = result.trec_metrics(list(IR_MEASURES_NAMES.values()))
    # judged_only apart: ir_measures puts NumRet and NumQ in whichever pytrec_eval call comes first (its measures'
    # order varies with the process's hash seed), a judged_only one included, where num_ret counts judged documents
    groups = [[m for m in theirs_measures if m.params.get("judged_only") is True],
              [m for m in theirs_measures if m.params.get("judged_only") is not True]]
    theirs = {(m.query_id, str(m.measure)): m.value for group in groups for m in ir_measures.iter_calc(group, qrels, run)}
    from evalframe.metrics.trec import parse_measure

    for measure, ours_name in zip(theirs_measures, IR_MEASURES_NAMES.values(), strict=True):
        canonical = str(parse_measure(ours_name))
        expected = trec_eval_nan_as_zero(canonical, table[canonical].to_numpy(),
                                         [theirs[q, str(measure)] for q in table.index],
                                         emptied(run, qrels, list(table.index)))
        np.testing.assert_allclose(table[canonical].to_numpy(), expected, rtol=0, atol=1e-12, equal_nan=True,
                                   err_msg=str(measure))
        COMPARED["ir_measures"] += len(expected)
    if set(qrels) <= set(run):
        aggregate = {m: v for group in groups for m, v in ir_measures.calc_aggregate(group, qrels, run).items()}
        for measure, ours_name in zip(theirs_measures, IR_MEASURES_NAMES.values(), strict=True):
            if math.isnan(aggregate[measure]):
                continue  # ir_measures' mean of a NaN (IPrec judged_only, nothing judged retrieved); ours skips it
            assert means[str(parse_measure(ours_name))] == pytest.approx(aggregate[measure], abs=1e-12), str(measure)
            COMPARED["ir_measures"] += 1


#: trec_eval -J's printed key -> our name with judged_only (the measures of the core's entries too: -J drops every
#: document without a grade >= 0, negative grades included, before any measure)
JUDGED_ONLY_NAMES = {"map": "AP(judged_only=True)", "ndcg": "nDCG(judged_only=True)", "P_5": "P(judged_only=True)@5",
                     "recall_10": "R(judged_only=True)@10", "recip_rank": "RR(judged_only=True)",
                     "success_5": "Success(judged_only=True)@5", "Rprec": "Rprec(judged_only=True)",
                     "num_ret": "NumRet(judged_only=True)", "set_P": "SetP(judged_only=True)",
                     "set_map": "SetAP(judged_only=True)", "iprec_at_recall_0.50": "IPrec(judged_only=True)@0.5",
                     "Rprec_mult_1.00": "Rprec_mult(judged_only=True)@1.0",
                     "relative_P_5": "relative_P(judged_only=True)@5", "utility": "utility(judged_only=True)",
                     "11pt_avg": "11pt_avg(judged_only=True)", "gm_map": "gm_map(judged_only=True)"}


NEGATIVE_ON_TOP = ({"q1": {"d2": 10.0, "d9": 9.0, "d1": 8.0, "d3": 7.0}, "q2": {"a": 2.0, "b": 1.0, "c": 0.5}},
                   {"q1": {"d1": 1, "d2": -1, "d3": 1, "d4": 0}, "q2": {"a": -1, "b": 2, "c": 0}})


@needs_binary
@pytest.mark.parametrize("seed", [None, *range(6)])
def test_judged_only_drops_negative_grades_as_trec_eval_minus_j(tmp_path, seed):
    from evalframe import EvaluationResult
    from evalframe.metrics.trec import parse_measure

    # grades -1..3; None: a document judged -1 ranked first, above relevant ones
    run, qrels = NEGATIVE_ON_TOP if seed is None else random_case(1100 + seed)
    qrels = {q: j for q, j in qrels.items() if max(j.values()) >= 0 and q in run}
    if not qrels:
        return
    result = EvaluationResult.from_trec(run, qrels)
    names = list(JUDGED_ONLY_NAMES.values())
    table, means = result.trec_query_metrics(names), result.trec_metrics(names)
    printed = trec_eval(tmp_path, run, qrels, ["map", "ndcg", "P.5", "recall.10", "recip_rank", "success.5", "Rprec",
                                               "num_ret", "set_P", "set_map", "iprec_at_recall.0.5", "Rprec_mult.1.0",
                                               "relative_P.5", "utility", "11pt_avg", "gm_map"], ["-J"])
    for key, name in JUDGED_ONLY_NAMES.items():
        canonical = str(parse_measure(name))
        if key not in SUMMARY_ONLY:
            expected = trec_eval_nan_as_zero(key, table[canonical].to_numpy(), [printed[key, q] for q in table.index],
                                             emptied(run, qrels, list(table.index)))
            np.testing.assert_allclose(table[canonical].to_numpy(), expected, rtol=0, atol=PRINTED, equal_nan=True,
                                       err_msg=name)
            COMPARED["trec_eval"] += len(expected)
        if not math.isnan(printed[key, "all"]):  # a NaN query makes trec_eval's mean NaN; evalframe skips it
            assert means[canonical] == pytest.approx(printed[key, "all"], abs=PRINTED), name
            COMPARED["trec_eval"] += 1


def test_compared_counts_last(capsys):
    with capsys.disabled():
        print(f"\ntrec_set_kernels values compared: {COMPARED}")


def test_a_ranking_left_empty_has_one_value_however_it_was_emptied(tmp_path, capsys):
    """IPrec and 11pt_avg of a query whose judged ranking is empty: 0 whether judged_only is the measure's parameter
    or trec_query_metrics' (and -M 0), so one measure has one number (mean 0.5 here, not 1.0 with the query
    skipped); `evalframe trec --format trec_eval -J` prints trec_eval's 0 / 0, -nan, as trec_eval does."""
    from evalframe import EvaluationResult
    from evalframe.present import cli

    run = {"q1": {"u1": 2.0, "u2": 1.0}, "q2": {"a": 1.0}}  # q1 retrieves unjudged documents only
    qrels = {"q1": {"r": 1}, "q2": {"a": 1}}
    result = EvaluationResult.from_trec(run, qrels)
    own = result.trec_query_metrics(["IPrec(judged_only=True)@0", "11pt_avg(judged_only=True)"])
    flag = result.trec_query_metrics(["IPrec@0", "11pt_avg"], judged_only=True)
    cut = result.trec_query_metrics(["IPrec@0", "11pt_avg"], max_docs=0)
    assert own.to_numpy().tolist() == flag.to_numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert cut.to_numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert result.trec_metrics(["IPrec(judged_only=True)@0"]) == {"IPrec(judged_only=True)@0.0": 0.5}
    assert result.trec_metrics(["IPrec@0"], judged_only=True) == {"IPrec@0.0": 0.5}
    qrels_file, run_file = write_files(tmp_path, run, qrels)
    assert cli.main(["trec", str(run_file), str(qrels_file), "-J", "-m", "iprec_at_recall.0", "-q",
                     "--format", "trec_eval"]) == 0
    assert capsys.readouterr().out.splitlines() == ["iprec_at_recall_0.00  \tq1\t  -nan",
                                                    "iprec_at_recall_0.00  \tq2\t1.0000",
                                                    "iprec_at_recall_0.00  \tall\t  -nan"]
