"""evalframe.compare and ``evalframe compare --qrels`` on TREC runs (issue 27): hand-worked values on three queries,
the paired t-test against scipy.stats.ttest_rel on pytrec_eval's per-query values, and ranx's compare."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from evalframe import EvaluationResult, InvalidParameterError, LoadError, compare
from evalframe.present.cli import main
from evalframe.present.parsers import TREC_DEFAULT_MEASURES
from evalframe.trec_compare import TREC_MEASURES

# The two runs of docs/ir-researchers.md#the-analyses-take-the-measures-too, worked out by hand:
#   AP  A: q1 (1/1 + 2/2)/2 = 1, q2 (1/2)/1 = 0.5, q3 0        B: q1 (1/2 + 2/3)/2 = 7/12, q2 1, q3 1
#   P@1 A: 1, 0, 0                                             B: 0, 1, 1
QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}, "q3": {"d5": 1}}
RUN_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d9": 1.0, "d4": 0.5}, "q3": {"d6": 1.0}}
RUN_B = {"q1": {"d3": 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d4": 1.0}, "q3": {"d5": 1.0}}
#: Run C has no line for q3: AP q1 1, q2 1.
RUN_C = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d4": 1.0}}


def write_run(path: Path, run: dict[str, dict[str, float]], tag: str = "run") -> str:
    lines = [f"{qid} Q0 {docid} {rank} {score} {tag}"
             for qid, scores in run.items()
             for rank, (docid, score) in enumerate(sorted(scores.items(), key=lambda item: -item[1]), start=1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def write_qrels(path: Path, qrels: dict[str, dict[str, int]]) -> str:
    path.write_text("".join(f"{qid} 0 {docid} {grade}\n" for qid, grades in qrels.items()
                            for docid, grade in grades.items()), encoding="utf-8")
    return str(path)


def test_hand_worked_means_deltas_and_p_values():
    table = compare(RUN_A, RUN_B, qrels=QRELS, metrics=["AP", "P_1"], rounds=20_000)
    assert list(table.index) == ["AP", "P@1"]  # pytrec_eval's P_1 named canonically
    ap, p1 = table.loc["AP"], table.loc["P@1"]
    assert ap["mean_a"] == pytest.approx(0.5) and ap["mean_b"] == pytest.approx(31 / 36)
    assert ap["delta"] == pytest.approx(13 / 36)
    assert (ap["wins"], ap["ties"], ap["losses"], ap["queries"]) == (2, 0, 1, 3)
    # d = (-15, 18, 36) / 36: t = (13/36) / (sd / sqrt 3) = 13 / sqrt(223); with 2 degrees of freedom
    # P(|T| >= t) = 1 - t / sqrt(2 + t^2) = 1 - 13 / sqrt(615)
    assert ap["t"] == pytest.approx(13 / math.sqrt(223), abs=1e-12)
    assert ap["p_ttest"] == pytest.approx(1 - 13 / math.sqrt(615), abs=1e-12)
    # the 8 sign flips of (-15, 18, 36) sum to +-69, +-39, +-33, +-3: 4 of 8 reach |39|, p = 0.5 (sampled)
    assert ap["p_value"] == pytest.approx(0.5, abs=0.02)
    # P@1: d = (-1, 1, 1): t = (1/3) / ((2 / sqrt 3) / sqrt 3) = 0.5, p = 1 - 0.5 / sqrt(2.25) = 2/3; every flip
    # reaches |1|, so the randomization p-value is 1
    assert (p1["mean_a"], p1["mean_b"]) == pytest.approx((1 / 3, 2 / 3))
    assert (p1["t"], p1["p_ttest"], p1["p_value"]) == pytest.approx((0.5, 2 / 3, 1.0), abs=1e-12)
    assert not table["significant"].any()  # default max_p 0.05
    marked = compare(RUN_A, RUN_B, qrels=QRELS, metrics=["AP", "P@1"], test="student", max_p=0.5)
    assert marked["significant"].tolist() == [True, False]  # 0.4758 <= 0.5 < 0.6667


def test_files_dicts_and_from_trec_results_give_one_table(tmp_path):
    qrels = write_qrels(tmp_path / "qrels.txt", QRELS)
    run_a, run_b = write_run(tmp_path / "a.run", RUN_A), write_run(tmp_path / "b.run", RUN_B)
    kwargs = {"metrics": ["map", "ndcg_cut.10", "P@1"], "rounds": 500}
    from_dicts = compare(RUN_A, RUN_B, qrels=QRELS, **kwargs)
    from_files = compare(run_a, Path(run_b), qrels=qrels, **kwargs)
    result_b = EvaluationResult.from_trec(run_b, qrels, progress=False)
    mixed = compare(run_a, result_b, qrels=qrels, **kwargs)
    assert list(from_dicts.index) == ["AP", "nDCG@10", "P@1"]
    assert from_files.equals(from_dicts) and mixed.equals(from_dicts)


def test_a_qrels_query_missing_from_a_run_is_left_out_of_every_run_or_scores_zero_with_complete():
    # without complete: C is not evaluated on q3 (trec_eval 9.x, pytrec_eval), so A and B are compared on q1, q2 too
    with pytest.warns(UserWarning, match=r"run 'C' is not evaluated on 1 query \(q3\).*the same 2 queries.*-c"):
        table = compare(RUN_A, RUN_B, RUN_C, qrels=QRELS, metrics="AP", rounds=500)
    assert table["queries"].tolist() == [2, 2]
    assert table.loc[("B", "AP"), ["mean_a", "mean_b"]].tolist() == pytest.approx([0.75, (7 / 12 + 1) / 2])
    assert table.loc[("C", "AP"), "mean_b"] == pytest.approx(1.0)
    # complete=True (trec_eval -c): q3 scores 0 for C, every run on the three queries of the qrels
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        complete = compare(RUN_A, RUN_B, RUN_C, qrels=QRELS, metrics="AP", rounds=500, complete=True)
    assert complete["queries"].tolist() == [3, 3]
    assert complete.loc[("C", "AP"), ["mean_a", "mean_b", "wins", "ties", "losses"]].tolist() == pytest.approx(
        [0.5, 2 / 3, 1, 2, 0])  # C: 1, 1, 0 against A's 1, 0.5, 0


def test_holm_corrects_the_chosen_test_over_the_runs_of_each_measure():
    table = compare(RUN_A, RUN_B, RUN_B, qrels=QRELS, metrics=["AP"], test="t-test", rounds=500)
    p = 1 - 13 / math.sqrt(615)  # both comparisons are A against B: Holm gives min(1, 2p), then max(that, p)
    assert table["p_ttest"].tolist() == pytest.approx([p, p], abs=1e-12)
    assert table["p_holm"].tolist() == pytest.approx([min(1.0, 2 * p)] * 2, abs=1e-12)
    assert not table["significant"].any()
    randomization = compare(RUN_A, RUN_B, RUN_B, qrels=QRELS, metrics=["AP"], rounds=500)
    assert randomization["p_holm"].tolist() == pytest.approx([min(1.0, 2 * randomization["p_value"].iloc[0])] * 2)


def test_results_and_tables_keep_their_table_unless_max_p_is_given():
    a = EvaluationResult.from_trec(RUN_A, QRELS, progress=False)
    b = EvaluationResult.from_trec(RUN_B, QRELS, progress=False)
    plain = compare(a, b, metrics=["AP"], rounds=500)
    assert "significant" not in plain.columns
    marked = compare(a, b, metrics=["AP"], rounds=500, max_p=0.6, test="t-test")
    assert marked["significant"].tolist() == [True]


def test_default_measures_are_evalframe_trecs():
    assert TREC_MEASURES == TREC_DEFAULT_MEASURES
    table = compare(RUN_A, RUN_B, qrels=QRELS, rounds=200)
    assert list(table.index) == list(TREC_DEFAULT_MEASURES)


@pytest.mark.parametrize(("call", "error", "pattern"), [
    (lambda: compare(RUN_A, RUN_B), InvalidParameterError, r"run 'A' must be .* a TREC run .*with qrels=.*got dict"),
    (lambda: compare("a.run", "b.run"), InvalidParameterError, r"run 'A' .*got str 'a.run' without qrels"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, metrics=["nDCG@x"]), InvalidParameterError, r"nDCG@x"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, metrics=["mpa"]), InvalidParameterError, r"mpa.*Did you mean"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, metrics=[]), InvalidParameterError, r"at least one measure"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, test="anova"), InvalidParameterError,
     r"test must be one of \['randomization', 't-test', 'wilcoxon', 'sign', 'bootstrap', 'tukey', 'randomized-tukey'\]; "
     r"got 'anova'"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, max_p=1.5), InvalidParameterError, r"max_p must lie strictly between"),
    (lambda: compare(RUN_A, RUN_B, qrels=QRELS, simulated_top_k_retriever=3), InvalidParameterError,
     r"simulated_top_k_retriever.*trec_eval's measures"),
    (lambda: compare(RUN_A, {"q1": {"d1": "high"}}, qrels=QRELS), InvalidParameterError, r"run 'B': .*q1"),
    (lambda: compare({"q9": {"d1": 1.0}}, RUN_B, qrels=QRELS), InvalidParameterError,
     r"no evaluated query in common.*complete=True"),
])
def test_bad_calls_say_what_to_change(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_a_bad_run_line_is_named_by_file_and_line(tmp_path):
    qrels = write_qrels(tmp_path / "qrels.txt", QRELS)
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 3.0 x\nq1 Q0 d2 2 high x\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"bad.run:2"):
        compare(write_run(tmp_path / "a.run", RUN_A), str(bad), qrels=qrels)


# ------------------------------------------------------------------------------------------ the references
def _random_runs(seed: int, queries: int = 25, runs: int = 3) -> tuple[dict, list[dict]]:
    """Graded qrels (every query with a relevant document) and runs with distinct scores, each missing a few queries."""
    rng = np.random.default_rng(seed)
    qrels, found = {}, []
    for q in range(queries):
        docs = rng.choice(60, size=int(rng.integers(3, 15)), replace=False)
        grades = rng.integers(0, 3, size=len(docs))
        grades[0] = max(grades[0], 1)
        qrels[f"q{q}"] = {f"d{d}": int(g) for d, g in zip(docs, grades)}
    for _ in range(runs):
        run = {}
        for q in range(queries):
            if rng.random() < 0.1:
                continue  # a query of the qrels without run lines
            docs = rng.choice(60, size=int(rng.integers(1, 30)), replace=False)
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, rng.permutation(len(docs)) + rng.random())}
        found.append(run)
    return qrels, found


#: evalframe's measures and pytrec_eval's keys for them.
PYTREC = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank", "nDCG": "ndcg", "R@100": "recall_100"}


@pytest.mark.parametrize("complete", [False, True])
def test_t_test_p_values_are_scipys_on_pytrec_evals_per_query_values(complete):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    stats = pytest.importorskip("scipy.stats")
    qrels, runs = _random_runs(7)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recip_rank", "ndcg", "recall.100"})
    per_query = [evaluator.evaluate(run) for run in runs]
    if complete:  # trec_eval -c: a query of the qrels without run lines scores 0 in every measure
        per_query = [{qid: found.get(qid, dict.fromkeys(PYTREC.values(), 0.0)) for qid in qrels} for found in per_query]
    queries = [qid for qid in per_query[0] if all(qid in found for found in per_query)]
    assert complete or len(queries) < len(qrels)  # some query is left out, for the test to mean something
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare(*runs, qrels=qrels, metrics=list(PYTREC), complete=complete, test="t-test", rounds=200)
    for position, name in ((1, "B"), (2, "C")):
        for measure, key in PYTREC.items():
            a = np.array([per_query[0][qid][key] for qid in queries])
            b = np.array([per_query[position][qid][key] for qid in queries])
            row = table.loc[(name, measure)]
            reference = stats.ttest_rel(b, a)
            assert row["queries"] == len(queries)
            assert (row["mean_a"], row["mean_b"]) == pytest.approx((a.mean(), b.mean()), abs=1e-12)
            assert row["t"] == pytest.approx(reference.statistic, abs=1e-9)
            assert row["p_ttest"] == pytest.approx(reference.pvalue, abs=1e-9)
            assert (row["wins"], row["ties"], row["losses"]) == (
                int((b > a).sum()), int((b == a).sum()), int((b < a).sum()))


#: evalframe's measures and ranx's names for them.
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "RR": "mrr", "R@100": "recall@100"}


@pytest.mark.stress  # numba compiles ranx's kernels on first use: 15 to 40 s on a 2-core machine, too long for the suite
def test_ranx_compare_gives_the_same_means_and_t_test_p_values():
    ranx = pytest.importorskip("ranx")
    qrels, runs = _random_runs(11, queries=20)
    names = ["bm25", "dense", "hybrid"]
    ranx_runs = []
    for name, run in zip(names, runs):
        ranx_run = ranx.Run.from_dict({qid: dict(scores) for qid, scores in run.items()})
        ranx_run.name = name
        ranx_runs.append(ranx_run)
    # ranx compares every qrels query, a run's missing one scored 0 (make_comparable): evalframe's complete=True
    report = ranx.compare(ranx.Qrels.from_dict(qrels), ranx_runs, metrics=list(RANX.values()), stat_test="student",
                          max_p=0.05, make_comparable=True, rounding_digits=12)
    table = compare(*runs, qrels=qrels, metrics=list(RANX), names=names, complete=True, test="t-test", rounds=200)
    for name in names[1:]:
        for measure, key in RANX.items():
            row = table.loc[(name, measure)]
            assert row["mean_a"] == pytest.approx(report.results[names[0]][key], abs=1e-9)
            assert row["mean_b"] == pytest.approx(report.results[name][key], abs=1e-9)
            p_value = report.comparisons[names[0], name][key]["p_value"]
            assert row["p_ttest"] == pytest.approx(p_value, abs=1e-9)


# ------------------------------------------------------------------------------------------ the command
def test_the_command_compares_run_files(tmp_path, capsys):
    qrels = write_qrels(tmp_path / "qrels.txt", QRELS)
    run_a, run_b = write_run(tmp_path / "a.run", RUN_A), write_run(tmp_path / "b.run", RUN_B)
    run_c = write_run(tmp_path / "c.run", RUN_C)
    assert main(["compare", run_a, run_b, "--qrels", qrels, "-m", "AP", "-m", "P_1", "--test", "t-test",
                 "--max-p", "0.5", "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("metric,mean_a,mean_b,delta,")
    assert out[1].startswith("AP,0.5,0.86111") and out[1].endswith(",True")
    assert out[2].startswith("P@1,0.33333") and out[2].endswith(",False")
    assert main(["compare", run_a, run_b, run_c, "--qrels", qrels, "--metrics", "AP", "--rounds", "200"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == ("baseline: a.run; 2 queries; significant: p_holm (randomization, "
                                            "Holm-corrected) <= 0.05")
    assert "warning: run 'c.run' is not evaluated on 1 query (q3)" in captured.err
    assert main(["compare", run_a, run_c, "--qrels", qrels, "-m", "AP", "-c", "--rounds", "200"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("baseline: a.run; 3 queries (-c);")


@pytest.mark.parametrize(("extra", "pattern"), [
    ([], r"^error: .*a.run is a file, not a results folder; to compare TREC run files, give their judgments: "
         r"evalframe compare .* --qrels QRELS$"),
    (["--qrels", "{qrels}", "--node", "Retriever"], r"^error: --node does not apply to TREC run files \(--qrels\)"),
    (["--qrels", "{qrels}", "--top-k-retriever", "3"], r"^error: --top-k-retriever does not apply"),
    (["--qrels", "{qrels}", "-m", "mpa"], r"^error: .*-m.*Did you mean"),
    (["--qrels", "{bad}"], r"^error: .*bad.qrels:1"),
])
def test_the_command_refuses_with_one_line(tmp_path, capsys, extra, pattern):
    qrels = write_qrels(tmp_path / "qrels.txt", QRELS)
    (tmp_path / "bad.qrels").write_text("q1 0 d1\n", encoding="utf-8")
    run_a, run_b = write_run(tmp_path / "a.run", RUN_A), write_run(tmp_path / "b.run", RUN_B)
    argv = ["compare", run_a, run_b, *[arg.format(qrels=qrels, bad=tmp_path / "bad.qrels") for arg in extra]]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.search(pattern, err.strip()), err



def test_the_docs_second_run_is_the_one_the_console_examples_read():
    from tests.fixtures import SCRIPTS, load_benchmark

    script = load_benchmark("make_cli_docs.py", SCRIPTS)
    page = (Path(__file__).resolve().parents[1] / "docs" / "ir-researchers.md").read_text(encoding="utf-8")
    written = re.search(r'^>>> _ = pathlib\.Path\(run_b_path\)\.write_text\("([^"]*)"', page, flags=re.MULTILINE)
    assert written is not None and written.group(1).replace("\\n", "\n") == script.IR_RUN_B


def test_every_spelling_of_a_measure_and_several_cutoffs_at_once():
    # P.1,2 is trec_eval's P at two cutoffs, MAP ir_measures' synonym of AP; P@2 by hand: A 2/2, 1/2, 0/2 and
    # B 1/2, 1/2, 1/2, both 0.5
    table = compare(RUN_A, RUN_B, qrels=QRELS, metrics=["P.1,2", "MAP"], rounds=200)
    assert list(table.index) == ["P@1", "P@2", "AP"]
    assert table.loc["P@2", ["mean_a", "mean_b", "delta", "wins", "ties", "losses"]].tolist() == pytest.approx(
        [0.5, 0.5, 0.0, 1, 1, 1])


def test_the_bootstrap_test_and_the_effect_sizes_on_run_files(tmp_path, capsys):
    qrels = write_qrels(tmp_path / "qrels.txt", QRELS)
    run_a, run_b = write_run(tmp_path / "a.run", RUN_A), write_run(tmp_path / "b.run", RUN_B)
    table = compare(run_a, run_b, qrels=qrels, metrics=["AP", "P@1"], test="bootstrap")
    # AP: d = 7/12 - 1, 1 - 1/2, 1 - 0; the bootstrap test's exact value over all 3**3 resamples of d - mean(d)
    d = np.array([7 / 12 - 1, 0.5, 1.0])
    means = d[np.array(np.meshgrid(*[range(3)] * 3)).reshape(3, -1).T].mean(axis=1)
    exact = np.mean(np.abs(means - d.mean()) >= abs(d.mean()) - 1e-12)
    se = math.sqrt(exact * (1 - exact) / 10_000)
    assert abs(table.loc["AP", "p_bootstrap"] - exact) <= 4 * se + 1 / 10_001
    assert table.loc["AP", "significant"] == (table.loc["AP", "p_bootstrap"] <= 0.05)
    # d_z by hand: mean 13/36, sd sqrt(sum of squared deviations / 2); 2 of 3 queries improved
    deviations = d - 13 / 36
    assert table.loc["AP", "d_z"] == pytest.approx((13 / 36) / math.sqrt((deviations ** 2).sum() / 2), rel=1e-12)
    assert table.loc["AP", "improved"] == pytest.approx(2 / 3, rel=1e-15)
    assert table.loc["P@1", "improved"] == pytest.approx(2 / 3, rel=1e-15)  # P@1: 1, 0, 0 -> 0, 1, 1
    assert main(["compare", run_a, run_b, "--qrels", qrels, "-m", "AP", "--test", "bootstrap", "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[0].split(",")
    assert "p_bootstrap" in header and "d_z" in header and "improved" in header
    assert float(out[1].split(",")[header.index("p_bootstrap")]) == pytest.approx(table.loc["AP", "p_bootstrap"],
                                                                                  rel=1e-4)
