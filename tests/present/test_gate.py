"""evalframe.gate on every kind of run, evalframe.testing.assert_no_regression, and the ``evalframe gate`` command
(exit codes, the four outputs, bad input) and ``evalframe compare @ref --store``.

Expected numbers are worked out by hand or with scipy (ttest_rel(..., alternative='less'), t.ppf); the TREC ones
also with the trec_eval binary where it is built.
"""

from __future__ import annotations

import json
import math
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalframe
from evalframe import load_demo_result, score_measure
from evalframe.analysis.protocol import QueryTable
from evalframe.errors import InvalidParameterError
from evalframe.present.cli import main
from evalframe.testing import assert_no_regression

TREC_EVAL = Path("/root/.cache/evalframe-bench/trec_eval-10.0/trec_eval")


# ------------------------------------------------------------------------------------------ the API
def test_demo_at_two_top_k_the_gate_reads_the_deltas_compare_shows():
    result = load_demo_result()
    top5 = result.query_metrics("Retriever", simulated_top_k_retriever=5)
    top1 = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    # by hand (compare's docstring): 2 of 8 queries lose their hit going from top-5 to top-1: recall 0.875 -> 0.625
    verdict = evalframe.gate(top5, top1, no_drop=["recall_single_hit", "mrr"], names=("top5", "top1"))
    drop = verdict.outcomes[0]
    assert (drop.baseline, drop.candidate, drop.delta, drop.queries) == (0.875, 0.625, -0.25, 8)
    expected = stats.ttest_rel(top1["recall_single_hit"], top5["recall_single_hit"], alternative="less").pvalue
    assert drop.p_value == pytest.approx(expected, rel=1e-9)  # t = -0.25 / (0.4629 / sqrt 8) = -1.528 on 7 df
    table = evalframe.compare(top5, top1, metrics=["recall_single_hit", "mrr"])
    assert [o.delta for o in verdict.outcomes] == pytest.approx(table["delta"].tolist())
    # mrr can only fall at a lower cutoff; both p-values Holm-corrected over the 2 no-drop rules
    p_mrr = stats.ttest_rel(top1["mrr"], top5["mrr"], alternative="less").pvalue
    low, high = sorted([drop.p_value, p_mrr])
    assert sorted(o.p_adjusted for o in verdict.outcomes) == pytest.approx([2 * low, max(2 * low, high)])
    assert verdict.status == ("fail" if min(2 * low, 1) <= 0.05 else "pass")


def test_a_result_with_metric_options_is_read_as_query_metrics_reads_it():
    result = load_demo_result()
    verdict = evalframe.gate(result, result, margin={"recall_single_hit": 0.3}, node="Retriever",
                             simulated_top_k_retriever=1)
    outcome = verdict.outcomes[0]
    assert (outcome.baseline, outcome.candidate, outcome.delta) == (0.625, 0.625, 0.0)
    assert verdict.status == "pass" and verdict.node == "Retriever"
    with pytest.raises(InvalidParameterError, match="node"):
        evalframe.gate(result, result, no_drop="mrr")  # two nodes: which one


def test_per_query_frames_margin_and_floor_by_hand():
    index = pd.Index([f"q{i}" for i in range(6)], name="multilabel_id")
    base = pd.DataFrame({"mrr": [1.0, 0.5, 1.0, 0.5, 1.0, 0.25]}, index=index)
    cand = pd.DataFrame({"mrr": [0.5, 0.5, 0.5, 0.25, 1.0, 0.25]}, index=index)
    gains = cand["mrr"] - base["mrr"]
    lower = gains.mean() - stats.t.ppf(0.95, 5) * gains.std(ddof=1) / math.sqrt(6)  # -0.4105
    verdict = evalframe.gate(base, cand, margin={"mrr": 0.5}, minimum=["mrr=0.6"])
    margin, floor = verdict.outcomes
    assert margin.status == "pass" and margin.low == pytest.approx(lower)
    assert floor.status == "fail" and floor.candidate == 0.5 and verdict.exit_code == 1
    assert evalframe.gate(base, cand, margin={"mrr": 0.4}).status == "fail"  # -0.4105 <= -0.4


def test_different_question_sets_are_undecided_unless_on_common():
    result = load_demo_result()
    table = result.query_metrics("Retriever")
    verdict = evalframe.gate(table, table.iloc[:6], no_drop="mrr")
    assert verdict.status == "undecided" and verdict.exit_code == 2 and verdict.questions.differ == 2
    assert "--on-common" in verdict.message
    verdict = evalframe.gate(table, table.iloc[:6], no_drop="mrr", on_common=True)
    assert verdict.status == "pass" and verdict.outcomes[0].queries == 6


def test_a_results_folder_and_its_query_texts(tmp_path):
    result = load_demo_result()
    folder = result.save(tmp_path / "demo", progress=False)
    verdict = evalframe.gate(folder, str(folder), no_drop="recall_single_hit", node="Retriever",
                             names=("before", "after"))
    assert verdict.status == "pass" and (verdict.baseline_name, verdict.candidate_name) == ("before", "after")
    frame = result["Retriever"]
    worse = result.query_metrics("Retriever", simulated_top_k_retriever=1)
    verdict = evalframe.gate(folder, worse, no_drop="recall_single_hit", node="Retriever")
    texts = frame.drop_duplicates("multilabel_id").set_index("multilabel_id")["query"]
    assert len(verdict.worst) == 2  # the two queries that lost their hit
    assert verdict.worst["text"].tolist() == texts.loc[verdict.worst["query"]].tolist()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def trec_files(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 d1 1", "q2 0 d2 1", "q3 0 d3 1", "q4 0 d4 1"])
    good = _write(tmp_path / "good.txt", ["q1 Q0 d1 1 3 good", "q2 Q0 d2 1 3 good", "q3 Q0 d3 1 3 good",
                                          "q4 Q0 d9 1 3 good", "q4 Q0 d4 2 2 good"])
    bad = _write(tmp_path / "bad.txt", ["q1 Q0 d9 1 3 bad", "q1 Q0 d1 2 2 bad", "q2 Q0 d9 1 3 bad",
                                        "q2 Q0 d8 2 2 bad", "q2 Q0 d2 3 1 bad", "q3 Q0 d3 1 3 bad",
                                        "q4 Q0 d8 1 3 bad", "q4 Q0 d4 2 2 bad"])
    return qrels, good, bad


# reciprocal ranks by hand: good 1, 1, 1, 1/2; bad 1/2, 1/3, 1, 1/2
RR_GOOD = np.array([1.0, 1.0, 1.0, 0.5])
RR_BAD = np.array([0.5, 1 / 3, 1.0, 0.5])


def test_trec_runs_with_qrels(trec_files):
    qrels, good, bad = trec_files
    if TREC_EVAL.exists():  # the hand-worked values are trec_eval's
        out = subprocess.run([str(TREC_EVAL), "-q", "-m", "recip_rank", str(qrels), str(bad)], capture_output=True,
                             text=True, check=True).stdout.split("\n")
        values = {line.split()[1]: float(line.split()[2]) for line in out if line and line.split()[1] != "all"}
        assert [values[q] for q in ("q1", "q2", "q3", "q4")] == pytest.approx(RR_BAD, abs=1e-4)
    verdict = evalframe.gate(good, bad, qrels=qrels, no_drop="RR", minimum={"RR": 0.5})
    drop, floor = verdict.outcomes
    assert drop.delta == pytest.approx((RR_BAD - RR_GOOD).mean())
    assert drop.p_value == pytest.approx(stats.ttest_rel(RR_BAD, RR_GOOD, alternative="less").pvalue, rel=1e-9)
    assert drop.status == ("fail" if drop.p_value <= 0.05 else "pass")
    assert floor.candidate == pytest.approx(RR_BAD.mean()) and floor.status == "pass"
    assert (verdict.baseline_name, verdict.candidate_name) == ("good.txt", "bad.txt")


def _ragas(path: Path, faithfulness: list[float]) -> Path:
    rows = [{"user_input": f"Question {i}?", "retrieved_contexts": [f"ctx {i}"], "response": f"a{i}",
             "reference": f"a{i}", "faithfulness": value} for i, value in enumerate(faithfulness)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


BASE_FAITH = [0.9, 0.8, 1.0, 0.7, 0.95, 0.85]
DROP_FAITH = [0.6, 0.5, 0.9, 0.4, 0.7, 0.6]


def test_judge_scores_of_a_ragas_file(tmp_path):
    base = _ragas(tmp_path / "base.jsonl", BASE_FAITH)
    cand = _ragas(tmp_path / "cand.jsonl", DROP_FAITH)
    verdict = evalframe.gate(base, cand, no_drop="faithfulness", node="Generator")
    outcome = verdict.outcomes[0]
    assert outcome.direction == "higher" and outcome.status == "fail"
    assert outcome.p_value == pytest.approx(stats.ttest_rel(DROP_FAITH, BASE_FAITH, alternative="less").pvalue)
    # drops 0.3, 0.3, 0.1, 0.3, 0.25, 0.25: the three of 0.3 first (in the baseline's order), then the 0.25s
    assert verdict.worst["text"].tolist() == ["Question 0?", "Question 1?", "Question 3?", "Question 4?", "Question 5?"]
    # a score declared lower-is-better: the same values are an improvement
    table_b = pd.DataFrame({"latency": BASE_FAITH}, index=[f"q{i}" for i in range(6)])
    table_c = pd.DataFrame({"latency": DROP_FAITH}, index=table_b.index)
    lower = {"latency": score_measure("latency", direction="lower")}
    verdict = evalframe.gate(QueryTable(table_b, lower), QueryTable(table_c, lower), no_drop="latency")
    assert verdict.outcomes[0].direction == "lower" and verdict.status == "pass"


def test_assert_no_regression_takes_the_candidate_first():
    index = pd.Index([f"q{i}" for i in range(6)])
    base = pd.DataFrame({"faith": BASE_FAITH}, index=index)
    drop = pd.DataFrame({"faith": DROP_FAITH}, index=index)
    judge = {"faith": score_measure("faith", direction="higher")}
    verdict = assert_no_regression(QueryTable(base, judge), QueryTable(drop, judge), no_drop="faith")
    assert verdict.passed  # the baseline is better than the "candidate" given second: no regression
    with pytest.raises(AssertionError, match=r"(?s)--no-drop faith\s+FAIL.*verdict: FAIL \(exit 1\)"):
        assert_no_regression(QueryTable(drop, judge), QueryTable(base, judge), no_drop="faith")
    with pytest.raises(AssertionError, match=r"verdict: UNDECIDED \(exit 2\)"):
        assert_no_regression(QueryTable(drop.iloc[:5], judge), QueryTable(base, judge), no_drop="faith")


def test_bad_runs_and_refs_are_refused(monkeypatch):
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    table = load_demo_result().query_metrics("Retriever")
    with pytest.raises(InvalidParameterError, match="no history store is given"):
        evalframe.gate("@last", table, no_drop="mrr")
    with pytest.raises(InvalidParameterError, match="must be an EvaluationResult, a per-query DataFrame"):
        evalframe.gate(42, table, no_drop="mrr")
    with pytest.raises(InvalidParameterError, match="give at least one rule"):
        evalframe.gate(table, table)
    with pytest.raises(InvalidParameterError, match="names must be two distinct names"):
        evalframe.gate(table, table, no_drop="mrr", names=("a", "a"))


# ------------------------------------------------------------------------------------------ the command
@pytest.fixture
def ragas_runs(tmp_path):
    return (_ragas(tmp_path / "base.jsonl", BASE_FAITH), _ragas(tmp_path / "drop.jsonl", DROP_FAITH),
            _ragas(tmp_path / "short.jsonl", BASE_FAITH[:5]))


def _gate(argv, capsys):
    code = main(["gate", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("rule, expected", [
    (["--no-drop", "faithfulness"], 1),
    (["--margin", "faithfulness=0.01"], 1),
    (["--min", "faithfulness=0.9"], 1),
    (["--min", "faithfulness=0.5"], 0),
    (["--margin", "faithfulness=0.5"], 0),
])
def test_exit_code_per_rule_and_the_four_outputs(ragas_runs, tmp_path, capsys, monkeypatch, rule, expected):
    base, drop, _ = ragas_runs
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    outs = {fmt: tmp_path / f"verdict.{fmt}" for fmt in ("markdown", "junit", "json")}
    code, out, err = _gate([base, drop, "--node", "Generator", *rule, "--markdown", outs["markdown"],
                            "--junit", outs["junit"], "--json", outs["json"], "--github-summary"], capsys)
    assert code == expected, err
    status = "FAIL" if expected else "PASS"
    assert out.splitlines()[-1].startswith(f"verdict: {status} (exit {expected})")
    data = json.loads(outs["json"].read_text())
    assert data["exit_code"] == expected and data["rules"][0]["rule"] == " ".join(rule)
    suite = ET.parse(outs["junit"]).getroot()
    assert suite.get("failures") == str(int(expected == 1)) and suite.find("testcase").get("name") == " ".join(rule)
    markdown = outs["markdown"].read_text()
    assert markdown.startswith(f"### evalframe gate: {status} (exit {expected})")
    assert summary.read_text() == "earlier step\n" + markdown + "\n"
    assert not list(tmp_path.glob(".verdict*"))  # no temporary file left beside the outputs


@pytest.mark.parametrize("fmt", ["text", "markdown", "junit", "json"])
def test_format_prints_the_verdict(ragas_runs, capsys, fmt):
    base, drop, _ = ragas_runs
    code, out, _ = _gate([base, drop, "--node", "Generator", "--no-drop", "faithfulness", "--format", fmt], capsys)
    assert code == 1
    if fmt == "json":
        assert json.loads(out)["status"] == "fail"
    elif fmt == "junit":
        assert ET.fromstring(out.encode()).get("failures") == "1"
    elif fmt == "markdown":
        assert out.startswith("### evalframe gate: FAIL (exit 1)")
    else:
        assert "worst regressed queries:" in out


def test_different_question_sets_exit_2_and_on_common_decides(ragas_runs, capsys):
    base, _, short = ragas_runs
    code, out, err = _gate([base, short, "--node", "Generator", "--no-drop", "faithfulness"], capsys)
    assert code == 2 and ("1 questions differ" in out or "1 question differs" in out)
    code, out, err = _gate([base, short, "--node", "Generator", "--no-drop", "faithfulness", "--on-common"], capsys)
    assert code == 0, err


def test_trec_runs_on_the_command_line(trec_files, capsys):
    qrels, good, bad = trec_files
    code, out, err = _gate([good, bad, "--qrels", qrels, "--min", "RR=0.7", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["rules"][0]["candidate"] == pytest.approx(RR_BAD.mean())  # 0.5833 < 0.7


@pytest.mark.parametrize("argv, flag", [
    (["--margin", "faithfulness=x"], "--margin"),
    (["--min", "faithfulness"], "--min"),
    (["--margin", "faithfulness=-1"], "--margin"),
    (["--no-drop", "nosuch"], "nosuch"),
    (["--no-drop", "faithfulness", "--names", "a,b,c"], "--names"),
    ([], "--no-drop"),
])
def test_bad_input_exits_2_with_one_error_line(ragas_runs, capsys, argv, flag):
    base, drop, _ = ragas_runs
    code, out, err = _gate([base, drop, "--node", "Generator", *argv], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and flag in err


def test_github_summary_unset_and_a_missing_run_exit_2(ragas_runs, capsys, monkeypatch, tmp_path):
    base, drop, _ = ragas_runs
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code, _, err = _gate([base, drop, "--node", "Generator", "--no-drop", "faithfulness", "--github-summary"], capsys)
    assert code == 2 and "GITHUB_STEP_SUMMARY" in err and len(err.splitlines()) == 1
    code, _, err = _gate([tmp_path / "nothing", drop, "--no-drop", "faithfulness"], capsys)
    assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
    with pytest.raises(SystemExit) as exit_:  # argparse's usage error: exit 2 too
        main(["gate", str(base), str(drop), "--no-drop", "faithfulness", "--alpha", "0.7"])
    assert exit_.value.code == 2 and "--alpha" in capsys.readouterr().err


def test_the_command_in_a_subprocess(ragas_runs, tmp_path):
    base, drop, _ = ragas_runs
    done = subprocess.run(["python", "-m", "evalframe", "gate", str(base), str(drop), "--node", "Generator",
                           "--no-drop", "faithfulness", "--junit", str(tmp_path / "gate.xml")],
                          capture_output=True, text=True, env={**__import__("os").environ})
    assert done.returncode == 1 and ET.parse(tmp_path / "gate.xml").getroot().get("failures") == "1"


def test_an_output_url_is_written_through_the_storage_layer(ragas_runs, capsys):
    fsspec = pytest.importorskip("fsspec")
    base, drop, _ = ragas_runs
    code, _, err = _gate([base, drop, "--node", "Generator", "--no-drop", "faithfulness",
                          "--json", "memory://gate-test/verdict.json"], capsys)
    assert code == 1, err
    with fsspec.open("memory://gate-test/verdict.json", "r") as file:
        assert json.load(file)["status"] == "fail"


# ------------------------------------------------------------------------------------------ stored runs (@ref)
def test_refs_of_a_history_store_in_gate_and_compare(tmp_path, capsys, monkeypatch):
    history = pytest.importorskip("evalframe.present.history")
    store = tmp_path / "store"
    result = load_demo_result()
    runs = history.History(store)
    runs.log(result, name="main", tags=["v3"])
    runs.log(result, name="branch")
    verdict = evalframe.gate("@tag:v3", "@last", no_drop="mrr", store=store, node="Retriever")
    assert verdict.status == "pass" and verdict.outcomes[0].queries == 8
    assert verdict.outcomes[0].delta == 0.0
    monkeypatch.setenv("EVALFRAME_STORE", str(store))
    code, out, err = _gate(["@tag:v3", "@last", "--node", "Retriever", "--no-drop", "mrr"], capsys)
    assert code == 0, err
    code = main(["compare", "@tag:v3", "@last", "--node", "Retriever", "--metrics", "mrr", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out.split("\n", 1)[1] if not out.startswith("[") else out)[0]["delta"] == 0.0
