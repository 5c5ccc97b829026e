"""Isolated mode with a simulated retriever top-k, and the argument checks around it (issue 12, items 1, 3, 4).

The small frame (worked out by hand):

Retriever, integrated rows only (as Haystack writes them: retrievers get no isolated rows)
  q1  r1 d3 | r2 d1
  q2  r1 d5
Reader, isolated rows
  q1  r1 "Berlin" em 1 f1 1.0 [d1] | r2 "Bonn" em 0 f1 0.5 [d3]
  q2  r1 "x"      em 0 f1 0.0 [d5]
  q3  no-answer placeholder em 1 f1 1.0, document_ids None (no retriever rows: it survives every top-k)

k = 1: the retriever keeps q1 {d3}, q2 {d5}: q1 keeps Bonn (0 / 0.5), q2 keeps x (0 / 0), q3 (1 / 1)
       -> exact_match 1/3, f1 (0.5 + 0 + 1) / 3 = 0.5
k = 2: q1 keeps both (1 / 1), q2 (0 / 0), q3 (1 / 1) -> exact_match 2/3, f1 2/3
Before the fix the isolated retriever rows (none) were used: q1 and q2 lost every answer and scored 0,
so f1 was 1/3 for every k.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError
from evalframe.present.cli import main

from ..fixtures import answer_row, doc_row


def _frames(retriever_isolated: bool = False) -> dict[str, pd.DataFrame]:
    docs = [
        doc_row("q1", 1, "d3", ["d1"], [0], [0], [0]),
        doc_row("q1", 2, "d1", ["d1"], [1], [100], [1]),
        doc_row("q2", 1, "d5", ["d9"], [0], [0], [0]),
    ]
    if retriever_isolated:  # the gold document first: the isolated top 1 differs from the integrated one
        docs += [
            doc_row("q1", 1, "d1", ["d1"], [1], [100], [1], eval_mode="isolated"),
            doc_row("q1", 2, "d3", ["d1"], [0], [0], [0], eval_mode="isolated"),
        ]
    answers = [
        answer_row("q1", 1, "Berlin", 1, 1.0, ["d1"], eval_mode="isolated"),
        answer_row("q1", 2, "Bonn", 0, 0.5, ["d3"], eval_mode="isolated"),
        answer_row("q2", 1, "x", 0, 0.0, ["d5"], eval_mode="isolated"),
        answer_row("q3", 1, "", 1, 1.0, [], eval_mode="isolated", gold_answers=[""]),
    ]
    answers[-1]["document_ids"] = None  # Haystack's placeholder answer
    return {"Retriever": pd.DataFrame(docs), "Reader": pd.DataFrame(answers)}


def _result(**kwargs) -> EvaluationResult:
    return EvaluationResult(_frames(**kwargs))


@pytest.mark.parametrize("k, exact_match, f1", [(1, 1 / 3, 0.5), (2, 2 / 3, 2 / 3), (5, 2 / 3, 2 / 3)])
def test_isolated_reader_uses_the_retrievers_integrated_documents(k, exact_match, f1):
    metrics = _result().calculate_metrics(eval_mode="isolated", simulated_top_k_retriever=k)
    assert metrics["Reader"]["exact_match"] == pytest.approx(exact_match, abs=1e-12)
    assert metrics["Reader"]["f1"] == pytest.approx(f1, abs=1e-12)
    assert metrics["Reader"]["num_examples_for_eval"] == 3.0
    assert metrics["Retriever"] == {}  # no isolated document rows: no retriever metrics in this mode


def test_query_metrics_and_wrong_examples_use_the_same_documents():
    result = _result()
    table = result.query_metrics("Reader", eval_mode="isolated", simulated_top_k_retriever=1)
    assert table["f1"].to_dict() == {"q1": 0.5, "q2": 0.0, "q3": 1.0}
    worst = result.wrong_examples("Reader", n=3, eval_mode="isolated", simulated_top_k_retriever=1)
    assert [(w["multilabel_id"], w["metrics"]["f1"]) for w in worst] == [("q2", 0.0), ("q1", 0.5)]


def test_a_retriever_with_rows_of_the_same_mode_uses_those():
    # isolated top 1: q1 {d1} -> Berlin (1 / 1); q2 has no isolated rows -> x drops out (0 / 0); q3 (1 / 1)
    metrics = _result(retriever_isolated=True).calculate_metrics(eval_mode="isolated", simulated_top_k_retriever=1)
    assert metrics["Reader"]["exact_match"] == pytest.approx(2 / 3, abs=1e-12)
    assert metrics["Reader"]["f1"] == pytest.approx(2 / 3, abs=1e-12)


def test_the_cli_gives_the_same_numbers(tmp_path, capsys):
    folder = _result().save(tmp_path / "run")
    code = main(["metrics", str(folder), "--format", "json", "--eval-mode", "isolated", "--top-k-retriever", "1"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["Reader"]["f1"] == pytest.approx(0.5, abs=1e-12)


def test_retriever_node_without_document_rows_is_refused():
    result = _result()
    with pytest.raises(InvalidParameterError, match=r"retriever_node .*'Reader' has none.*\['Retriever'\]"):
        result.calculate_metrics(simulated_top_k_retriever=1, retriever_node="Reader")
    with pytest.raises(InvalidParameterError, match=r"retriever_node .*'Reader' has none"):
        result.wrong_examples("Reader", simulated_top_k_retriever=1, retriever_node="Reader")
    with pytest.raises(InvalidParameterError, match=r"retriever_node .*'Reader' has none"):
        result.query_metrics("Reader", simulated_top_k_retriever=1, retriever_node="Reader")


@pytest.mark.parametrize("ks", [[0], [-1], [1, -1], [2, -3], [1.5], [True], ["3"]])
def test_metrics_at_k_asks_for_positive_ints_only(ks):
    with pytest.raises(InvalidParameterError, match=r"ks must hold positive ints only") as error:
        _result().metrics_at_k(ks=ks)
    assert "-1" not in str(error.value).split("; got")[0]  # -1 is never offered as a valid value


@pytest.mark.parametrize("mode", ["", None, "Integrated"])
def test_a_retriever_whose_rows_have_neither_mode_is_refused_not_an_empty_retriever(mode):
    # Before: every answer with a document id dropped out and the Reader scored only q3 (1/3), silently.
    frames = _frames()
    frames["Retriever"]["eval_mode"] = mode
    frames["Reader"]["eval_mode"] = "integrated"
    result = EvaluationResult(frames)
    message = (r"document rows of node 'Retriever' with eval_mode 'integrated' or "
               r"'isolated'; its document rows have eval_mode .*Fix the frame's 'eval_mode'")
    with pytest.raises(InvalidParameterError, match=message):
        result.calculate_metrics(simulated_top_k_retriever=1)


@pytest.mark.parametrize("threshold", [-5, 100.5, float("inf"), float("nan")])
def test_calculate_metrics_checks_the_context_threshold_as_from_runs_does(threshold):
    with pytest.raises(InvalidParameterError, match=r"context_matching_threshold must be a finite number in \[0, 100\]"):
        _result().calculate_metrics(document_scope="context", context_matching_threshold=threshold)
