"""``--ci`` on the command line and ``ci=`` in the report of a run: each mean with its interval, the method and seed
stated, the numbers scipy's (the t interval) or the library's; without it, the output as before."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from evalframe import load_demo_result
from evalframe.present.cli import main

DEMO = Path(__file__).parents[2] / "evalframe" / "data" / "demo_result"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def scipy_t(node: str, metric: str, confidence: float) -> tuple[float, float]:
    values = load_demo_result().query_metrics(node)[metric].dropna().to_numpy()
    low, high = scipy.stats.t.interval(confidence, len(values) - 1, loc=values.mean(), scale=scipy.stats.sem(values))
    return float(low), float(high)


def test_metrics_json_has_scipys_t_interval(capsys):
    code, out, _ = run(capsys, "metrics", str(DEMO), "--ci", "0.9", "--ci-method", "t", "--format", "json")
    assert code == 0
    found = json.loads(out)["Reader"]["f1"]
    assert (found["ci_low"], found["ci_high"]) == pytest.approx(scipy_t("Reader", "f1", 0.9), abs=1e-12)
    assert (found["n"], found["confidence"], found["method"]) == (8, 0.9, "t")
    assert found["mean"] == load_demo_result().calculate_metrics()["Reader"]["f1"]


def test_metrics_table_shows_each_interval_and_states_it(capsys):
    code, out, _ = run(capsys, "metrics", str(DEMO), "--ci", "0.95", "--seed", "3", "--rounds", "500")
    assert code == 0
    expected = load_demo_result().calculate_metrics(ci=0.95, seed=3, rounds=500)["Reader"]["exact_match"]
    assert f"0.7500 [{expected.low:.4f}, {expected.high:.4f}]" in out
    assert "note: [low, high]: 95% percentile bootstrap interval of each mean over its queries (500 rounds, seed 3)" in out


def test_metrics_csv_has_the_bounds_columns(capsys):
    code, out, _ = run(capsys, "metrics", str(DEMO), "--ci", "0.9", "--ci-method", "t", "--format", "csv")
    header, *rows = out.strip().splitlines()
    columns = header.split(",")
    assert columns[columns.index("f1"):columns.index("f1") + 3] == ["f1", "f1_ci_low", "f1_ci_high"]
    reader = dict(zip(columns, next(r for r in rows if r.startswith("Reader")).split(",")))
    assert (float(reader["f1_ci_low"]), float(reader["f1_ci_high"])) == pytest.approx(scipy_t("Reader", "f1", 0.9),
                                                                                          abs=1e-12)


def test_metrics_without_ci_prints_what_it_printed(capsys):
    _, out, _ = run(capsys, "metrics", str(DEMO))
    assert "[" not in out.splitlines()[1] and "interval" not in out
    _, out, _ = run(capsys, "metrics", str(DEMO), "--format", "json")
    assert json.loads(out) == load_demo_result().calculate_metrics()


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["--ci", "abc"], 2, r"argument --ci: invalid float value: 'abc'"),
    (["--ci", "1.5"], 1, r"^error: --ci must lie strictly between 0 and 1 \(the coverage, e.g. 0.95 for 95%\); got 1.5"),
    (["--ci", "0.9", "--ci-method", "z"], 2, r"argument --ci-method: invalid choice: 'z'"),
    (["--ci", "0.9", "--by", "no_answer"], 1, r"^error: --ci, --ci-method, --seed and --rounds give an interval .*--by"),
])
def test_bad_ci_flags_are_named(capsys, argv, code, message):
    if code == 2:
        with pytest.raises(SystemExit) as exit_:
            main(["metrics", str(DEMO), *argv])
        assert exit_.value.code == 2
        assert re.search(message, capsys.readouterr().err)
    else:
        found, _, err = run(capsys, "metrics", str(DEMO), *argv)
        assert found == 1 and re.search(message, err, re.M) and len(err.strip().splitlines()) == 1


def test_report_shows_the_intervals_in_every_format_and_states_them():
    report = load_demo_result().report(ci=0.9, ci_method="t", charts=False)
    low, high = scipy_t("Reader", "exact_match", 0.9)
    shown = f"0.7500 [{low:.4f}, {high:.4f}]"
    note = "90% Student's t interval of each mean over its queries"
    for fmt in ("text", "markdown", "html"):
        text = html.unescape(report.render(fmt)) if fmt == "html" else report.render(fmt).replace("\\", "")
        assert shown in text and note in text, fmt
    data = report.to_dict()
    row = next(r for n in data["funnel"] for r in n["metrics"] if n["node"] == "Reader" and r["metric"] == "exact_match")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert data["ci"]["ci_method"] == "t" and data["ci"]["ci"] == 0.9 and data["ci"]["seed"] == 0


def test_report_command_with_ci_and_without(capsys):
    code, out, _ = run(capsys, "report", str(DEMO), "--ci", "0.95", "--seed", "5", "--rounds", "800", "-n", "1")
    expected = load_demo_result().calculate_metrics(ci=0.95, seed=5, rounds=800)["Retriever"]["mrr"]
    assert code == 0 and f"{float(expected):.4f} [{expected.low:.4f}, {expected.high:.4f}]" in out
    assert "[interval] [low, high]: 95% percentile bootstrap interval of each mean over its queries (800 rounds, seed 5)" in out
    code, plain, _ = run(capsys, "report", str(DEMO), "-n", "1")
    assert code == 0 and "[interval]" not in plain and "0.7292   (answerable only" in plain
    code, _, err = run(capsys, "report", str(DEMO), str(DEMO), "--ci", "0.95")
    assert code == 1 and err.startswith("error: --ci is for the report of one run")


def test_report_of_a_trec_run_gives_its_measures_intervals_on_their_scale():
    from evalframe import EvaluationResult

    run = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d3": 2.0, "d4": 1.0}, "q3": {"d5": 1.0}, "q4": {"d6": 2.0, "d7": 1.0}}
    qrels = {"q1": {"d1": 1}, "q2": {"d4": 1}, "q3": {"d5": 1}, "q4": {"d9": 1}}
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    data = result.report(measures=["AP", "gm_map"], ci=0.9, ci_method="t", charts=False).to_dict()
    rows = {row["metric"]: row for row in data["funnel"][0]["metrics"]}
    ap = np.array([1.0, 0.5, 1.0, 0.0])  # q4 retrieves no relevant document
    low, high = scipy.stats.t.interval(0.9, 3, loc=ap.mean(), scale=scipy.stats.sem(ap))
    assert (rows["AP"]["integrated"], rows["AP"]["ci_low"], rows["AP"]["ci_high"]) == pytest.approx(
        (0.625, low, high), abs=1e-12)
    logs = np.log(np.maximum(ap, 1e-5))  # trec_eval's floor
    low, high = scipy.stats.t.interval(0.9, 3, loc=logs.mean(), scale=scipy.stats.sem(logs))
    assert (rows["gm_map"]["ci_low"], rows["gm_map"]["ci_high"]) == pytest.approx((np.exp(low), np.exp(high)),
                                                                                  rel=1e-12)
