"""The analyses take trec_eval measures where they take a Haystack metric (compare, worst_by_delta, slices,
metrics_at_k, wrong_examples, the report, the CLI). Every expected value is worked out by hand below.

qrels: q1 {d1: 2, d2: 1, d3: 0}, q2 {d4: 1}, q3 {d5: 1}
run A: q1 d1 > d2 > d3;      q2 d9 (unjudged) > d4;  q3 d6 (unjudged)
run B: q1 d3 > d1 > d2;      q2 d4;                  q3 d5

AP (relevant: grade >= 1)
  A: q1 (1/1 + 2/2) / 2 = 1        q2 (1/2) / 1 = 0.5       q3 0           mean 0.5
  B: q1 (1/2 + 2/3) / 2 = 7/12     q2 1                     q3 1           mean (7/12 + 2) / 3 = 31/36
P@1  A: 1, 0, 0 -> 1/3             P@2  A: 2/2, 1/2, 0/2 -> 0.5
nDCG@2 (gain = grade, discount log2(rank + 1))
  A q1: (2 + 1/log2 3) / (2 + 1/log2 3) = 1;  q2: (1/log2 3) / 1;  q3: 0
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalframe import EvaluationResult, compare, worst_by_delta
from evalframe.present.cli import main

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}, "q3": {"d5": 1}}
RUN_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d9": 1.0, "d4": 0.5}, "q3": {"d6": 1.0}}
RUN_B = {"q1": {"d3": 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d4": 1.0}, "q3": {"d5": 1.0}}
AP_A = {"q1": 1.0, "q2": 0.5, "q3": 0.0}
AP_B = {"q1": 7 / 12, "q2": 1.0, "q3": 1.0}


@pytest.fixture(scope="module")
def runs() -> tuple[EvaluationResult, EvaluationResult]:
    return EvaluationResult.from_trec(RUN_A, QRELS), EvaluationResult.from_trec(RUN_B, QRELS)


def test_query_metrics_puts_the_measures_beside_the_haystack_metrics(runs):
    table = runs[0].query_metrics("Retriever", measures=["AP", "nDCG@2"])
    assert table["AP"].to_dict() == pytest.approx(AP_A, abs=1e-12)
    assert table["nDCG@2"].to_dict() == pytest.approx({"q1": 1.0, "q2": 1 / math.log2(3), "q3": 0.0}, abs=1e-12)
    assert "mrr" in table.columns  # the Haystack family stays


def test_compare_takes_a_measure(runs):
    table = compare(*runs, metrics=["AP", "P(rel=1)@1"], rounds=200)
    assert list(table.index) == ["AP", "P@1"]  # canonical names
    assert table.loc["AP", "mean_a"] == pytest.approx(0.5, abs=1e-12)
    assert table.loc["AP", "mean_b"] == pytest.approx(31 / 36, abs=1e-12)
    assert (table.loc["AP", "wins"], table.loc["AP", "ties"], table.loc["AP", "losses"]) == (2, 0, 1)
    # P@1: A 1, 0, 0; B 0, 1, 1
    assert table.loc["P@1", "mean_a"] == pytest.approx(1 / 3) and table.loc["P@1", "mean_b"] == pytest.approx(2 / 3)


def test_worst_by_delta_takes_a_measure(runs):
    worse = worst_by_delta(*runs, "Retriever", "AP")
    assert [e["multilabel_id"] for e in worse] == ["q1"]
    assert worse[0]["delta"] == pytest.approx(7 / 12 - 1, abs=1e-12)
    assert worse[0]["metrics"]["AP"] == pytest.approx(7 / 12, abs=1e-12)
    better = worst_by_delta(*runs, "Retriever", "AP", direction="better")
    assert [e["multilabel_id"] for e in better] == ["q3", "q2"]  # +1 then +0.5


def test_wrong_examples_ranks_by_a_measure(runs):
    worst = runs[0].wrong_examples("Retriever", n=3, document_metric="AP")
    assert [e["multilabel_id"] for e in worst] == ["q3", "q2"]  # 0 and 0.5 are <= 0.5; q1 scores 1
    assert [e["metrics"]["AP"] for e in worst] == [0.0, 0.5]


def test_metrics_at_k_sweeps_measures_in_one_call(runs):
    table = runs[0].metrics_at_k(ks=(1, 2), node="Retriever", measures=["P", "nDCG"])
    p = table[table["metric"] == "P"].set_index("k")["value"]
    assert p.to_dict() == pytest.approx({1: 1 / 3, 2: 0.5}, abs=1e-12)
    ndcg = table[table["metric"] == "nDCG"].set_index("k")["value"]
    assert ndcg[2] == pytest.approx((1 + 1 / math.log2(3)) / 3, abs=1e-12)
    with pytest.raises(Exception, match="without one"):
        runs[0].metrics_at_k(ks=(1, 2), node="Retriever", measures=["P@5"])


def test_sliced_metrics_average_a_measure_per_slice(runs):
    table = runs[0].sliced_metrics({"q1": "x", "q2": "x", "q3": "y"}, measures="AP")
    assert table.loc[("Retriever", "x"), "AP"] == pytest.approx(0.75, abs=1e-12)
    assert table.loc[("Retriever", "y"), "AP"] == 0.0


def test_report_shows_the_measures_and_ranks_worst_queries_by_the_first(runs):
    text = runs[0].report(n=2, charts=False, measures=["AP", "nDCG@2"]).text
    assert "| AP                 0.5000" in text
    assert "Worst queries of Retriever by AP" in text


def test_a_name_of_neither_family_is_an_error_naming_both(runs):
    with pytest.raises(Exception, match="document_metric must be one of.*Nor is it a trec_eval measure"):
        runs[0].wrong_examples("Retriever", document_metric="mrrr")


def test_cli_trec_prints_trec_eval_lines(tmp_path, capsys):
    run = tmp_path / "run.txt"
    qrels = tmp_path / "qrels.txt"
    run.write_text("".join(f"{q} Q0 {d} 1 {s} tag\n" for q, docs in RUN_A.items() for d, s in docs.items()))
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    assert main(["trec", str(run), str(qrels), "-m", "AP", "-m", "P@2", "-q"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    cells = {(m.strip(), q): v for m, q, v in lines}
    assert cells[("AP", "all")] == "0.5000" and cells[("P@2", "all")] == "0.5000"
    assert cells[("AP", "q2")] == "0.5000" and cells[("num_q", "all")] == "3"
    assert main(["trec", str(run), str(qrels), "-m", "AP", "--format", "json"]) == 0
    assert pd.read_json(__import__("io").StringIO(capsys.readouterr().out), typ="series")["measures"]["AP"] == 0.5


def test_every_analysis_takes_duplicates_and_complete():
    # q1 ranks d1 twice (ranks 1 and 3): trec_eval refuses it; duplicates="first" keeps rank 1 (d1, d2: AP 1.0).
    # q3 is judged but not retrieved (a placeholder row): complete=True counts it as 0.
    frame = EvaluationResult.from_trec({"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d4": 1.0}},
                                       {"q1": {"d1": 1, "d2": 1}, "q2": {"d4": 1}, "q3": {"d5": 1}})["Retriever"]
    frame = pd.concat([frame, frame.iloc[[0]].assign(rank=3)], ignore_index=True)
    result = EvaluationResult({"Retriever": frame})
    with pytest.raises(Exception, match="duplicates='first'"):
        result.query_metrics("Retriever", measures="AP")
    kept = {"duplicates": "first", "complete": True}
    assert result.query_metrics("Retriever", measures="AP", **kept)["AP"].to_dict() == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    assert result.sliced_metrics({"q1": "x", "q2": "x", "q3": "x"}, measures="AP", **kept)["AP"].tolist() == [2 / 3]
    sweep = result.metrics_at_k(ks=(1,), node="Retriever", measures=["P"], **kept)
    assert sweep[sweep["metric"] == "P"]["value"].tolist() == [2 / 3]
    assert [e["multilabel_id"] for e in result.wrong_examples("Retriever", document_metric="AP", **kept)] == ["q3"]
    assert compare(result, result, metrics="AP", rounds=10, **kept).loc["AP", "queries"] == 3
    assert worst_by_delta(result, result, "Retriever", "AP", **kept) == []
    assert "means over the 3 queries trec_eval evaluates" in result.report(n=1, charts=False, measures="AP", **kept).text


def test_cli_trec_groups_per_query_lines_by_query_and_warns_when_nothing_is_evaluated(tmp_path, capsys):
    run, qrels, other = tmp_path / "run", tmp_path / "qrels", tmp_path / "other"
    run.write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d4 1 1.0 t\n")
    qrels.write_text("q1 0 d1 1\nq2 0 d4 0\n")
    other.write_text("zz 0 d1 1\n")
    assert main(["trec", str(run), str(qrels), "-m", "AP", "-m", "P@1", "-q"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [(m.strip(), q) for m, q, _ in lines[:4]] == [("AP", "q1"), ("P@1", "q1"), ("AP", "q2"), ("P@1", "q2")]
    assert main(["trec", str(run), str(other), "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert "num_q\tall\t0" in captured.out and "no query of" in captured.err
