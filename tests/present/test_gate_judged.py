"""The gate on TREC runs that lost queries (scored as ``trec_eval -c`` does) and on stored runs judged by different
qrels (undecided). Expected numbers by hand and with scipy; the TREC ones also with the trec_eval binary if built."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from scipy import stats

import evalframe
from evalframe import EvaluationResult
from evalframe.present.cli import main

TREC_EVAL = Path("/root/.cache/evalframe-bench/trec_eval-10.0/trec_eval")
QUERIES = [f"q{i}" for i in range(1, 11)]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def lost(tmp_path):
    """10 queries, one relevant document each; the baseline finds each at rank 1, the candidate returns only q1-q4."""
    qrels = _write(tmp_path / "qrels.txt", [f"{q} 0 d{q} 1" for q in QUERIES])
    full = _write(tmp_path / "full.txt", [f"{q} Q0 d{q} 1 1 full" for q in QUERIES])
    short = _write(tmp_path / "short.txt", [f"{q} Q0 d{q} 1 1 short" for q in QUERIES[:4]])
    return qrels, full, short


# nDCG@10 by hand: the baseline 1 on every query; the candidate 1 on q1-q4, 0 on q5-q10 (trec_eval -c: not
# retrieved, scored 0). Gains 0 x 4, -1 x 6: mean -0.6, sd sqrt((4 * 0.36 + 6 * 0.16) / 9) = 0.5164, se 0.1633,
# t = -3.6742 with 9 df.
T_LOST = -0.6 / ((2.4 / 9) ** 0.5 / 10 ** 0.5)


def test_a_trec_candidate_that_lost_queries_fails_no_drop(lost):
    qrels, full, short = lost
    if TREC_EVAL.exists():
        out = subprocess.run([str(TREC_EVAL), "-q", "-c", "-m", "ndcg_cut.10", str(qrels), str(short)],
                             capture_output=True, text=True, check=True).stdout.split("\n")
        values = {line.split()[1]: float(line.split()[2]) for line in out if line and line.split()[1] != "all"}
        assert [values[q] for q in QUERIES] == [1.0] * 4 + [0.0] * 6
    verdict = evalframe.gate(full, short, qrels=qrels, no_drop="nDCG@10")
    drop = verdict.outcomes[0]
    assert (drop.queries, drop.baseline, drop.candidate) == (10, 1.0, 0.4)
    assert drop.delta == pytest.approx(-0.6)
    assert T_LOST == pytest.approx(-3.6742, abs=1e-4)
    assert drop.p_value == pytest.approx(stats.t.cdf(T_LOST, 9), rel=1e-9)  # 0.0026
    assert drop.status == "fail" and verdict.exit_code == 1
    assert "unscored" not in drop.reason


def test_without_complete_the_lost_queries_are_named_not_silently_dropped(lost):
    qrels, full, short = lost
    verdict = evalframe.gate(full, short, qrels=qrels, no_drop="nDCG@10", complete=False)
    drop = verdict.outcomes[0]
    assert verdict.questions.common == 10 and verdict.message == ""  # the 6 queries are there, unscored (NaN)
    assert drop.queries == 4
    assert drop.reason.endswith("(6 queries unscored in the candidate 'short.txt': not paired)")
    assert drop.reason in str(verdict)
    assert drop.status == "pass"  # every paired gain 0: p = 1, as trec_eval without -c sees it


def test_complete_must_be_a_bool(lost):
    qrels, full, short = lost
    with pytest.raises(evalframe.errors.InvalidParameterError, match="complete"):
        evalframe.gate(full, short, qrels=qrels, no_drop="nDCG@10", complete="yes")


def test_stored_runs_judged_by_different_qrels_are_undecided(tmp_path, capsys):
    history = pytest.importorskip("evalframe.present.history")
    qrels = _write(tmp_path / "qrels.txt", [f"{q} 0 d{q} 1" for q in QUERIES])
    other = _write(tmp_path / "other.txt", [f"{q} 0 d{q} {0 if q == 'q3' else 1}" for q in QUERIES])  # q3 judged 0
    run = _write(tmp_path / "run.txt", [f"{q} Q0 d{q} 1 1 run" for q in QUERIES])
    store = tmp_path / "store"
    runs = history.History(store)
    for judged in (qrels, other):
        runs.log(EvaluationResult.from_source("trec", run, qrels=judged), name="run")
    for on_common in (False, True):
        verdict = evalframe.gate("@last~1", "@last", no_drop="AP", store=store, on_common=on_common)
        assert verdict.exit_code == 2 and verdict.status == "undecided"
        assert verdict.message.startswith("the judgments (question set) differ: '@last~1' and '@last' have the "
                                          "same 10 query ids")
    code = main(["gate", "@last~1", "@last", "--store", str(store), "--no-drop", "AP"])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert "the judgments (question set) differ" in out and "@last~1" in out
    named = evalframe.gate("@last~1", "@last", no_drop="AP", store=store, names=("old", "new"))
    assert "'old' (@last~1) and 'new' (@last)" in named.message
    same = evalframe.gate("@last", "@last", no_drop="AP", store=store, names=("a", "b"))
    assert same.message == "" and same.exit_code == 0  # one run, one fingerprint
