"""evalframe.fuse / evalframe.optimize_fusion / ``evalframe fuse``: inputs, the file written, the grid search, and
ranx's fusion (a test-only dependency) equal to 1e-9 on random runs (behind the stress marker: importing ranx and
loading numba's compiled code takes 10-20 s, too long for the README's suite; .ci/run runs them).

The grid search's case is built so that one candidate alone ranks every relevant document first (worked out in
:func:`test_the_grid_search_finds_the_known_best_weights`); RRF's k search on a case whose order flips at k = 2.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

import evalframe
from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError, LoadError
from evalframe.present.cli import main
from evalframe.present.fusion import run_dict

A = {"q1": {"a": 4.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"b": 10.0, "d": 5.0, "a": 0.0}}
A_FILE = "q1 Q0 a 1 4.0 A\nq1 Q0 b 2 2.0 A\nq1 Q0 c 3 1.0 A\nq2 Q0 x 1 1.0 A\n"
B_FILE = "q1 Q0 b 1 10.0 B\nq1 Q0 d 2 5.0 B\nq1 Q0 a 3 0.0 B\n"
# RRF, k = 60: b 1/62 + 1/61, a 1/61 + 1/63, d 1/62, c 1/63; x 1/61
RRF_LINES = [f"q1 Q0 b 1 {1 / 62 + 1 / 61!r} fused-rrf", f"q1 Q0 a 2 {1 / 61 + 1 / 63!r} fused-rrf",
             f"q1 Q0 d 3 {1 / 62!r} fused-rrf", f"q1 Q0 c 4 {1 / 63!r} fused-rrf", f"q2 Q0 x 1 {1 / 61!r} fused-rrf"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_text(A_FILE)
    (tmp_path / "b.txt").write_text(B_FILE)
    return tmp_path


def test_fuse_files_writes_a_trec_run_atomically(files):
    out = files / "fused.txt"
    out.write_text("an older file\n")
    frame = evalframe.fuse([files / "a.txt", str(files / "b.txt")], output=out)
    assert out.read_text().splitlines() == RRF_LINES
    assert sorted(p.name for p in files.iterdir()) == ["a.txt", "b.txt", "fused.txt"]  # no temporary file left
    assert list(frame.columns) == ["qid", "docid", "score", "rank"]
    assert frame["rank"].tolist() == [1, 2, 3, 4, 1]
    assert run_dict(frame) == {"q1": {"b": 1 / 62 + 1 / 61, "a": 1 / 61 + 1 / 63, "d": 1 / 62, "c": 1 / 63},
                               "q2": {"x": 1 / 61}}


def test_the_fused_file_reads_back_as_written(files):
    out = files / "fused.txt.gz"
    frame = evalframe.fuse([files / "a.txt", files / "b.txt"], method="combmnz", output=out, tag="mnz")
    back = evalframe.sources.trec_files.read_run(out)
    assert back["docid"].tolist() == frame["docid"].tolist() and back["score"].tolist() == frame["score"].tolist()


def test_dicts_files_and_results_fuse_alike(files):
    result = EvaluationResult.from_trec(files / "b.txt", {"q1": {"a": 1}}, progress=False)
    from_files = evalframe.fuse([files / "a.txt", files / "b.txt"], method="combsum", norm="zmuv")
    from_dicts = evalframe.fuse([A, B], method="combsum", norm="zmuv")
    from_result = evalframe.fuse([A, result], method="combsum", norm="zmuv")
    pd.testing.assert_frame_equal(from_files, from_dicts)
    pd.testing.assert_frame_equal(from_result, from_dicts)


def test_a_bad_run_file_is_named_with_its_line(files):
    (files / "bad.txt").write_text("q1 Q0 a 1 4.0 A\nq1 Q0 b 2 high A\n")
    with pytest.raises(LoadError, match=r"bad\.txt:2: the score \(column 5\) must be a number; got 'high'"):
        evalframe.fuse([files / "a.txt", files / "bad.txt"])


def test_fuse_arguments_are_checked_before_reading(files):
    missing = files / "missing.txt"
    with pytest.raises(InvalidParameterError, match=r"one number per run: 2 runs, 3 weights"):
        evalframe.fuse([files / "a.txt", missing], method="wsum", weights=[0.2, 0.3, 0.5])
    with pytest.raises(InvalidParameterError, match=r"tag must be a non-empty string without whitespace"):
        evalframe.fuse([files / "a.txt", missing], tag="my run")
    with pytest.raises(InvalidParameterError, match=r"two runs or more; got 1"):
        evalframe.fuse([files / "a.txt"])


# ---------------------------------------------------------------------------------------------- the grid search
def test_the_grid_search_finds_the_known_best_weights():
    """Three runs, weights (w_A, w_B, w_C) summing to 1, raw scores (norm="none"), measure RR; r is each query's one
    relevant document, z the other. q1: r - z = 0.35 w_A - 0.65 w_B - 10 w_C; q2: r - z = -0.25 w_A + 0.75 w_B
    - 10 w_C; q3: r - z = w_A + w_B - 10 w_C. r first in all three (RR 1, else 1/2): w_C = 0 (q3 on the 0.1 grid)
    and then 0.65 < w_A < 0.75 (ties go to z, the larger docid): w = (0.7, 0.3, 0.0) alone scores 1."""
    run_a = {"q1": {"r": 0.35, "z": 0.0}, "q2": {"r": 0.0, "z": 0.25}, "q3": {"r": 1.0, "z": 0.0}}
    run_b = {"q1": {"r": 0.0, "z": 0.65}, "q2": {"r": 0.75, "z": 0.0}, "q3": {"r": 1.0, "z": 0.0}}
    run_c = {q: {"r": 0.0, "z": 10.0} for q in ("q1", "q2", "q3")}
    qrels = {q: {"r": 1, "z": 0} for q in ("q1", "q2", "q3")}
    search = evalframe.optimize_fusion([run_a, run_b, run_c], qrels, measure="RR", method="wsum", norm="none", step=0.1)
    assert search.weights == (0.7, 0.3, 0.0) and search.score == 1.0
    assert len(search.trials) == 66 and list(search.trials.columns) == ["w1", "w2", "w3", "RR"]
    assert (search.trials["RR"] == 1.0).sum() == 1
    assert search.fused.groupby("qid").head(1)["docid"].tolist() == ["r", "r", "r"]
    # trec_eval's name of the measure works too, reported by its canonical name
    assert evalframe.optimize_fusion([run_a, run_b, run_c], qrels, measure="recip_rank", method="wsum", norm="none",
                                     step=0.1).measure == "RR"


@pytest.mark.stress  # ranx's import takes seconds
def test_ranx_optimize_fusion_finds_the_same_weights():
    import warnings

    import ranx

    run_a = {"q1": {"r": 0.35, "z": 0.0}, "q2": {"r": 0.0, "z": 0.25}, "q3": {"r": 1.0, "z": 0.0}}
    run_b = {"q1": {"r": 0.0, "z": 0.65}, "q2": {"r": 0.75, "z": 0.0}, "q3": {"r": 1.0, "z": 0.0}}
    run_c = {q: {"r": 0.0, "z": 10.0} for q in ("q1", "q2", "q3")}
    qrels = {q: {"r": 1, "z": 0} for q in ("q1", "q2", "q3")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.optimize_fusion(ranx.Qrels(qrels), [ranx.Run(run) for run in (run_a, run_b, run_c)], norm=None,
                                      method="wsum", metric="mrr", step=0.1, show_progress=False)
    ours = evalframe.optimize_fusion([run_a, run_b, run_c], qrels, measure="RR", method="wsum", norm="none", step=0.1)
    assert tuple(float(w) for w in theirs["weights"]) == ours.weights == (0.7, 0.3, 0.0)


@pytest.mark.parametrize(("relevant", "best_k"), [("x", 1.0), ("y", 10.0)])
def test_rrf_k_search(relevant, best_k, tmp_path):
    """x: rank 1 in A, 4 in B; y: rank 2 in both. 1/(k+1) + 1/(k+4) > 2/(k+2) exactly when k < 2."""
    run_a = {"q": {"x": 4.0, "y": 3.0, "p": 2.0, "s": 1.0}}
    run_b = {"q": {"t": 4.0, "y": 3.0, "u": 2.0, "x": 1.0}}
    out = tmp_path / "best.txt"
    search = evalframe.optimize_fusion([run_a, run_b], {"q": {relevant: 1}}, measure="P@1", method="rrf",
                                       weights=[1, 1], ks=[10, 1], output=out)
    assert search.k == best_k and search.weights == (1.0, 1.0) and search.score == 1.0
    assert search.trials[["k", "P@1"]].values.tolist() == [[1.0, relevant == "x"], [10.0, relevant == "y"]]
    assert out.read_text().splitlines()[0].split()[2] == relevant


def test_grid_search_arguments():
    with pytest.raises(InvalidParameterError, match=r"step must divide 1"):
        evalframe.optimize_fusion([A, B], {"q1": {"a": 1}}, step=0.3)
    with pytest.raises(InvalidParameterError, match=r"ks must be a non-empty list"):
        evalframe.optimize_fusion([A, B], {"q1": {"a": 1}}, method="rrf", ks=[])
    with pytest.raises(InvalidParameterError, match=r"qrels must be a TREC qrels file"):
        evalframe.optimize_fusion([A, B], None)
    with pytest.raises(InvalidParameterError, match=r"unknown measure"):
        evalframe.optimize_fusion([A, B], {"q1": {"a": 1}}, measure="nDGC@10", step=0.5)


def test_a_grid_search_too_large_is_refused_before_allocating(tmp_path):
    """step=1e-9 laid out 1,000,000,001 vectors: a MemoryError under a 2 GB cap (OOM-killed at 20.6 GB without one).
    Now refused at once with the count and a step that fits, by the API and the command, in a child process under
    the cap."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "a.txt").write_text(A_FILE)
    (tmp_path / "b.txt").write_text(B_FILE)
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\n")
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "import evalframe\n"
        "from evalframe.present.cli import main\n"
        "try:\n"
        "    evalframe.optimize_fusion(['a.txt', 'b.txt'], 'qrels.txt', step=1e-9)\n"
        "except evalframe.errors.InvalidParameterError as error:\n"
        "    print('api:', error)\n"
        "code = main(['fuse', 'a.txt', 'b.txt', '-o', 'f.txt', '--method', 'wsum', '--optimize', 'AP', '--qrels',\n"
        "             'qrels.txt', '--step', '1e-9'])\n"
        "print('code:', code)\n")
    root = str(Path(evalframe.__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": root})
    expected = ("gives 1,000,000,001 weight vectors for 2 runs (multiples of step summing to 1); optimize_fusion tries "
                "at most 1,000,000 trials (each one fused and evaluated). The smallest step that fits for 2 runs is "
                "1/999999 = 1.000001000001e-06 (a round one: 2e-06).")
    assert done.stdout.splitlines() == [f"api: step=1e-09 {expected}", "code: 1"], done.stderr
    assert done.stderr == f"error: --step 1e-09 {expected}\n"
    assert not (tmp_path / "f.txt").exists()


def test_rrf_ks_count_in_the_grid_size():
    with pytest.raises(InvalidParameterError, match=r"1,000,001 weight vectors for 2 runs .*2 runs and 10 k values is "
                                                    r"1/99999"):
        evalframe.optimize_fusion([A, B], {"q1": {"a": 1}}, method="rrf", step=1e-6)
    with pytest.raises(InvalidParameterError, match=r"^ks holds 1,000,001 k values; optimize_fusion tries at most "
                                                    r"1,000,000 for 2 runs"):
        evalframe.optimize_fusion([A, B], {"q1": {"a": 1}}, method="rrf", weights=[1, 1], ks=list(range(1_000_001)))


# ---------------------------------------------------------------------------------------------- the command
def test_cli_fuse(files, capsys):
    out = files / "fused.txt"
    assert main(["fuse", str(files / "a.txt"), str(files / "b.txt"), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}: 2 queries, 5 lines (rrf, k=60, weights 1, 1)"
    assert out.read_text().splitlines() == RRF_LINES


def test_cli_fuse_optimize(files, capsys):
    qrels = files / "qrels.txt"
    qrels.write_text("q1 0 d 1\nq1 0 a 0\n")
    out = files / "fused.txt"
    assert main(["fuse", str(files / "a.txt"), str(files / "b.txt"), "-o", str(out), "--method", "combsum",
                 "--optimize", "RR", "--qrels", str(qrels), "--step", "0.5"]) == 0
    printed = capsys.readouterr().out
    # d (B alone, min-max 0.5) first only when A weighs 0: (0, 1) gives d 0.5 vs b 1, a 0: RR 1/2; (0.5, 0.5): b 2/3,
    # a 1/2, d 1/4: RR 1/3; (1, 0): a, b, then d and c tie at 0 (d first): RR 1/3
    assert "best RR on" in printed and ": 0.5000 of 3 trials" in printed
    assert out.read_text().splitlines()[0].split()[2] == "b"


def test_cli_fuse_optimize_help_says_the_search_follows_the_direction(capsys):
    # the help said "maximise this measure" though optimize_fusion keeps the lowest mean of unj@10
    # (tests/test_directions.py: test_optimize_fusion_keeps_the_best_by_the_direction)
    with pytest.raises(SystemExit):
        main(["fuse", "--help"])
    printed = " ".join(capsys.readouterr().out.split())
    assert ("--optimize MEASURE search the weights (and rrf's k) that score best by this measure on --qrels: maximises "
            "a higher-is-better measure (nDCG@10), minimises a lower-is-better one (unj@10)") in printed
    assert "maximise this measure" not in printed


@pytest.mark.parametrize(("argv", "message"), [
    (["--method", "combsun"], "error: --method must be one of"),
    (["--weights", "1,x"], "error: --weights must be comma-separated numbers"),
    (["--optimize", "AP"], "error: --optimize needs --qrels QRELS"),
    (["--qrels", "q.txt"], "error: --qrels goes with --optimize MEASURE"),
    (["--step", "0.5"], "error: --step goes with --optimize MEASURE"),
    (["-o", "."], "error: -o '.' is a folder"),
    (["--method", "rrf", "--norm", "zmuv"], "error: --norm 'zmuv' does not apply to method 'rrf'"),
])
def test_cli_fuse_errors(files, capsys, argv, message):
    assert main(["fuse", str(files / "a.txt"), str(files / "b.txt"), "-o", str(files / "f.txt"), *argv]) == 1
    assert capsys.readouterr().err.startswith(message)
    assert not (files / "f.txt").exists()


# ---------------------------------------------------------------------------------------------- ranx
def random_runs(seed: int, n_runs: int, n_queries: int = 4) -> list[dict[str, dict[str, float]]]:
    """Runs over the same queries (ranx requires it), documents drawn from a shared pool (overlapping, some in one
    run only, a query of one document now and then), scores positive and distinct as 32-bit floats (no ties)."""
    rng = random.Random(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            size = rng.choice([1, 3, 5, 8])
            docs = rng.sample([f"d{i}" for i in range(12)], size)
            scores = rng.sample(range(1, 10_000), size)
            run[f"q{q}"] = {doc: score / 97.0 for doc, score in zip(docs, scores)}
        runs.append(run)
    return runs


def assert_as_ranx(ours: pd.DataFrame, theirs: dict) -> None:
    mine = run_dict(ours)
    assert set(mine) == {q for q, docs in theirs.items() if docs}
    for qid, docs in mine.items():
        assert set(docs) == set(theirs[qid]), qid
        for docid, score in docs.items():
            assert score == pytest.approx(theirs[qid][docid], abs=1e-9, rel=0), (qid, docid)


RANX_METHODS = [("rrf", "rrf"), ("sum", "combsum"), ("mnz", "combmnz"), ("max", "combmax"), ("min", "combmin"),
                ("anz", "combanz"), ("med", "combmed"), ("wsum", "combsum")]


def ranx_fuse(runs, ranx_method, norm, weights):
    import warnings

    import ranx  # the test extra's; imported here, not with the module: it takes seconds (numba)

    params = {"weights": weights} if ranx_method == "wsum" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings
        return ranx.fuse([ranx.Run(run) for run in runs], norm=None if ranx_method == "rrf" else norm,
                         method=ranx_method, params=params).to_dict()


@pytest.mark.stress  # importing ranx and loading numba's compiled functions takes 10-20 s: CI's full run only
@pytest.mark.parametrize(("ranx_method", "method"), RANX_METHODS)
def test_as_ranx_fuses(ranx_method, method):
    runs = random_runs(7, 3)
    weights = [0.2, 0.5, 0.3] if ranx_method == "wsum" else None
    norm = None if method == "rrf" else "min-max"
    assert_as_ranx(evalframe.fuse(runs, method=method, norm=norm, weights=weights),
                   ranx_fuse(runs, ranx_method, "min-max", weights))


@pytest.mark.stress
@pytest.mark.parametrize("norm", ["min-max", "zmuv", "sum", "max", "rank"])
@pytest.mark.parametrize(("ranx_method", "method"), RANX_METHODS)
def test_as_ranx_fuses_every_norm_on_random_runs(ranx_method, method, norm):
    if method == "rrf" and norm != "min-max":
        pytest.skip("RRF reads ranks: no norm")
    for seed in range(5):
        runs = random_runs(seed, 2 + seed % 3, n_queries=10)
        weights = list(np.random.default_rng(seed).dirichlet(np.ones(len(runs)))) if ranx_method == "wsum" else None
        assert_as_ranx(evalframe.fuse(runs, method=method, norm=None if method == "rrf" else norm, weights=weights),
                       ranx_fuse(runs, ranx_method, norm, weights))


@pytest.mark.parametrize("measure", ["nDCG@10", "ndcg_cut_10", "ndcg_cut.10"])
def test_the_searched_score_is_pytrec_evals(measure):
    """The measure by ir_measures', pytrec_eval's or trec_eval's name; the best fused run's mean is pytrec_eval's."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs = random_runs(3, 3, n_queries=6)
    qrels = {f"q{q}": {f"d{d}": (q + d) % 3 for d in range(0, 12, 2)} for q in range(6)}
    search = evalframe.optimize_fusion(runs, qrels, measure=measure, method="combmnz", norm="zmuv", step=0.25)
    assert search.measure == "nDCG@10" and len(search.trials) == 15
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run_dict(search.fused))
    assert search.score == pytest.approx(np.mean([v["ndcg_cut_10"] for v in per_query.values()]), abs=1e-9)
    assert search.score == search.trials["nDCG@10"].max()


def test_results_of_several_nodes_and_duplicates():
    demo = evalframe.load_demo_result()  # Retriever ranks documents, with a document twice in a query
    with pytest.raises(evalframe.SchemaError, match=r"run 1: node 'Retriever', query '\w+': document 'doc-python' is "
                                                   r"retrieved twice; .*to_trec_run\(path, node='Retriever', "
                                                   r"duplicates='first'\) and fuse that file"):
        evalframe.fuse([demo, A])
    with pytest.raises(InvalidParameterError, match=r"node 'Retreiver' is not in run 1 .*Did you mean 'Retriever'\?"):
        evalframe.fuse([demo, A], node="Retreiver")


def test_an_empty_fused_run_is_not_written(tmp_path):
    assert len(evalframe.fuse([{}, {"q1": {}}])) == 0
    with pytest.raises(evalframe.SaveError, match=r"holds no retrieved document"):
        evalframe.fuse([{}, {"q1": {}}], output=tmp_path / "fused.txt")
    assert not list(tmp_path.iterdir())
