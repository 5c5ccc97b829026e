"""The sources' score columns (from_frame's scores=, Ragas' metric columns): scores of a node, declared, equal to
from_runs' with a runs file's "scores" key."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.metrics.trec import direction_of

from .test_frame import RUNS_LINES as FRAME_LINES
from .test_frame import from_frame, table
from .test_frame import from_runs as frame_runs
from .test_ragas import GOLDENS, RUNS_LINES, from_runs, ragas

def test_score_columns_are_scores_of_the_generator_and_equal_from_runs(tmp_path):
    result = from_frame(table(), scores=["judge"])
    assert result.calculate_metrics()["Generator"]["judge"] == (0.9 + 0.25) / 2  # the no-answer question has none
    lines = [{**line, "scores": {"Generator": {"judge": value}}} for line, value in zip(FRAME_LINES[:2], [0.9, 0.25])]
    expected = frame_runs(tmp_path, lines + FRAME_LINES[2:])
    pd.testing.assert_frame_equal(result.query_metrics("Generator"), expected.query_metrics("Generator"))
    with pytest.raises(EvalframeError, match=r"row 1, column 'topic' must be a number .*; got 'geography', text"):
        from_frame(table(), scores=["topic"])
    with pytest.raises(InvalidParameterError, match=r"scores='jugde' names no column of df.*Did you mean 'judge'\?"):
        from_frame(table(), scores=["jugde"])


def test_a_declared_lower_is_better_score():
    from evalframe import score_measure

    df = table()
    df["latency"] = [120.0, 480.0, 95.0]
    result = from_frame(df, scores={"latency": score_measure("latency", direction="lower")}, score_node="Retriever")
    assert result.scores["latency"].direction == "lower"
    assert result.calculate_metrics()["Retriever"]["latency"] == (120 + 480 + 95) / 3
    assert result.query_metrics("Retriever")["latency"].tolist() == [120.0, 480.0, 95.0]
    assert direction_of("latency", result.scores) == "lower"
    worst = result.wrong_examples("Retriever", n=1, metric="latency")
    assert [example["query"] for example in worst] == ["Capital of France?"]  # lower is better: 480 ms is the worst


def test_the_metric_columns_of_an_evaluation_are_scores_of_the_generator():
    for name in ("results.jsonl", "results.csv", "results.parquet"):
        result = ragas(GOLDENS / name)
        metrics = result.calculate_metrics()["Generator"]
        assert metrics["faithfulness"] == pytest.approx((0.9 + 0.2 + 0.6) / 3)  # the judge gave Faust no value
        assert metrics["id_based_context_recall"] == pytest.approx((1 + 1 + 0) / 3)  # Ragas: no value without gold ids
        assert metrics["id_based_context_precision"] == (0.5 + 1 + 0 + 0) / 4
        assert metrics["ragas_exact_match"] == (1 + 0 + 0 + 1) / 4  # Ragas' exact_match, renamed beside evalframe's
        assert metrics["string_present"] == (1 + 0 + 0 + 1) / 4
        assert metrics["exact_match"] == (1 + 0 + 0 + 1) / 4  # evalframe's own
        assert "faithfulness" not in result.calculate_metrics()["Retriever"]
        table = result.query_metrics("Generator")
        assert table["faithfulness"].tolist()[:2] == [0.9, 0.2] and math.isnan(table["faithfulness"].tolist()[2])


def test_scores_go_to_the_node_asked_and_are_declared(tmp_path):
    from evalframe import score_measure

    result = ragas(GOLDENS / "results.csv", scores={"faithfulness": score_measure("faithfulness", bounds=(0, 1))},
                   score_node="Retriever")
    assert list(result.scores) == ["faithfulness"]
    assert result.calculate_metrics()["Retriever"]["faithfulness"] == pytest.approx((0.9 + 0.2 + 0.6) / 3)
    assert "faithfulness" not in result.calculate_metrics()["Generator"]
    lines = [{**line, "scores": {"Retriever": {"faithfulness": value}}} if not math.isnan(value) else line
             for line, value in zip(RUNS_LINES, [0.9, 0.2, math.nan, 0.6])]
    expected = from_runs(tmp_path, lines)
    pd.testing.assert_frame_equal(result.query_metrics("Retriever"), expected.query_metrics("Retriever"))
    with pytest.raises(InvalidParameterError, match=r"scores names 'faith', which is no column of .*results\.csv"):
        ragas(GOLDENS / "results.csv", scores=["faith"])


def test_a_declaration_of_no_score_of_the_source_is_refused():
    from evalframe import score_measure

    with pytest.raises(InvalidParameterError, match=r"score_measures declares 'jugde', which is no score of the source; "
                                                    r"its scores are \['judge'\]\. Did you mean 'judge'\?"):
        from_frame(table(), scores=["judge"], score_measures={"jugde": score_measure("jugde")})
