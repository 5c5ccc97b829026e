"""Score names written with a metric's parameters (issue 35): Ragas 0.2+ names the column of a metric run with a mode
``<metric>(mode=<mode>)`` (ragas/evaluation.py: ``key = f"{m.name}(mode={m.mode})"`` for every ``ModeMetric``:
FactualCorrectness, NoiseSensitivity, RougeScore, DataCompyScore), a name no score may hold (measure names read
``(``, ``=``, ``)`` as parameters: ``P(rel=2)@5``), so such a file could not be imported at all. Such a column is kept
under its name mended (every run of characters other than letters, digits, ``_`` and ``-`` as ``_``, stripped at the
ends), the import's warning says so, and ``scores=[...]`` takes either name.

Two or three questions, one retrieved document each, its gold; the scores are the test's own, their means worked out
by hand.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult, score_measure
from evalframe.errors import InvalidParameterError

from .test_extra_columns import haystack_run, llama_rows, ragas_rows

F1 = "factual_correctness(mode=f1)"
PRECISION = "factual_correctness(mode=precision)"
NOISE = "noise_sensitivity(mode=relevant)"
ROUGE = "rouge_score(mode=fmeasure)"

RAGAS_SCORES = {F1: [0.5, 1.0, 0.0], PRECISION: [0.25, 0.75, 1.0], NOISE: [0.0, 0.5, 0.25]}
#: Ragas' columns, each as its score is named, with its mean by hand.
MEANS = {"factual_correctness_mode_f1": 0.5,  # (0.5 + 1 + 0) / 3
         "factual_correctness_mode_precision": 2 / 3,  # (0.25 + 0.75 + 1) / 3
         "noise_sensitivity_mode_relevant": 0.25}  # (0 + 0.5 + 0.25) / 3
TOLD = ("score 'factual_correctness(mode=f1)' is named 'factual_correctness_mode_f1', score "
        "'factual_correctness(mode=precision)' is named 'factual_correctness_mode_precision', score "
        "'noise_sensitivity(mode=relevant)' is named 'noise_sensitivity_mode_relevant' (a score's name holds letters, "
        "digits, '_' and '-' only; scores=[...] takes either name).")


def mended_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "is named" in str(w.message)]


def built(read: Any, *args: Any, **kwargs: Any) -> tuple[EvaluationResult, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = read(*args, progress=False, **kwargs)
    return result, mended_warnings(caught)


def write(path, rows: list[dict[str, Any]]) -> None:
    if path.suffix == ".csv":
        frame = pd.DataFrame(rows)
        for column in ("retrieved_contexts", "retrieved_context_ids", "reference_context_ids"):
            frame[column] = frame[column].map(str)  # as Ragas' to_csv writes a list: its Python text
        frame.to_csv(path, index=False)
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_ragas_file_with_mode_columns_imports_under_mended_names(tmp_path, suffix):
    """It raised "column 'factual_correctness(mode=f1)': read as a score, but a score's name starts with a letter
    ..." for every Ragas 0.2+ result of a metric with a mode: the file could not be read at all."""
    path = tmp_path / f"results{suffix}"
    write(path, ragas_rows(**RAGAS_SCORES))
    result, told = built(EvaluationResult.from_ragas, path)
    assert told == [f"{path}: {TOLD}"]
    assert sorted(result.scores) == sorted(MEANS)
    metrics = result.calculate_metrics()["Retriever"]
    for name, mean in MEANS.items():
        assert metrics[name] == pytest.approx(mean)
    assert metrics["mrr"] == 1.0  # each question's one document is its gold
    table = result.query_metrics("Retriever")
    assert list(table.columns[-3:]) == list(MEANS)
    assert sorted(table["factual_correctness_mode_f1"].tolist()) == [0.0, 0.5, 1.0]


def test_the_warning_is_exact_for_a_frame_and_names_only_mended_scores():
    rows = ragas_rows(**{ROUGE: [0.2, 0.4, 0.9], "faithfulness": [1.0, 0.5, 0.0], "exact_match": [1, 0, 1]})
    result, told = built(EvaluationResult.from_ragas, rows)
    assert told == ["from_ragas: score 'rouge_score(mode=fmeasure)' is named 'rouge_score_mode_fmeasure' (a score's "
                    "name holds letters, digits, '_' and '-' only; scores=[...] takes either name)."]
    assert sorted(result.scores) == ["faithfulness", "ragas_exact_match", "rouge_score_mode_fmeasure"]
    metrics = result.calculate_metrics()["Retriever"]
    assert metrics["rouge_score_mode_fmeasure"] == pytest.approx(0.5)  # (0.2 + 0.4 + 0.9) / 3
    assert metrics["ragas_exact_match"] == pytest.approx(2 / 3)  # (1 + 0 + 1) / 3: the prefix as before


@pytest.mark.parametrize("chosen", [F1, "factual_correctness_mode_f1"])
def test_scores_takes_the_file_s_name_or_the_mended_one(chosen):
    rows = ragas_rows(**RAGAS_SCORES)
    result, told = built(EvaluationResult.from_ragas, rows, scores=[chosen], meta=[])
    assert list(result.scores) == ["factual_correctness_mode_f1"]
    assert result.calculate_metrics()["Retriever"]["factual_correctness_mode_f1"] == 0.5
    assert told == ["from_ragas: score 'factual_correctness(mode=f1)' is named 'factual_correctness_mode_f1' (a "
                    "score's name holds letters, digits, '_' and '-' only; scores=[...] takes either name)."]


def test_a_declaration_under_the_mended_name_is_kept():
    rows = ragas_rows(**RAGAS_SCORES)
    declared = {"factual_correctness_mode_f1": score_measure("factual_correctness_mode_f1", bounds=(0, 1)),
                NOISE: score_measure("noise_sensitivity_mode_relevant", direction="lower")}
    result, told = built(EvaluationResult.from_ragas, rows, scores=declared, meta=[])
    assert result.scores["factual_correctness_mode_f1"].bounds == (0.0, 1.0)
    assert result.scores["noise_sensitivity_mode_relevant"].direction == "lower"
    assert result.calculate_metrics()["Retriever"]["noise_sensitivity_mode_relevant"] == 0.25
    assert told == []  # the caller named both scores


def test_two_columns_mending_to_one_name_are_refused_naming_both():
    rows = ragas_rows(**{F1: [0.5, 1.0], "factual_correctness_mode_f1": [0.0, 1.0]})
    with pytest.raises(InvalidParameterError, match=re.escape(
            "scores: two columns, 'factual_correctness(mode=f1)' and 'factual_correctness_mode_f1', would both be "
            "named 'factual_correctness_mode_f1' (a score's name holds letters, digits, '_' and '-' only; a run of "
            "other characters becomes '_'); name them apart (keep one in scores=[...], or name the other in "
            "meta=[...]).")):
        EvaluationResult.from_ragas(rows, progress=False)
    rows = ragas_rows(**{F1: [0.5, 1.0], "factual_correctness(mode = f1)": [0.0, 1.0]})
    with pytest.raises(InvalidParameterError, match=r"two columns, 'factual_correctness\(mode=f1\)' and "
                                                    r"'factual_correctness\(mode = f1\)', would both be named "):
        EvaluationResult.from_ragas(rows, progress=False)
    # the way out it names: the other one a meta field
    kept, _ = built(EvaluationResult.from_ragas, rows, meta=["factual_correctness(mode = f1)"])
    assert kept.calculate_metrics()["Retriever"]["factual_correctness_mode_f1"] == 0.75  # (0.5 + 1) / 2


def test_other_names_that_cannot_name_a_score_are_refused_as_before():
    # no '(', '=' or ')': not a metric's parameters, refused naming the column (test_extra_columns: 'my score')
    with pytest.raises(InvalidParameterError, match=r"^from_ragas, column 'mrr@5': read as a score, but a score's "
                                                    r"name starts with a letter"):
        EvaluationResult.from_ragas(ragas_rows(**{"mrr@5": [0.5, 1.0]}), progress=False)
    # mended, the name would start with a digit: refused under the file's name
    with pytest.raises(InvalidParameterError, match=r"^from_ragas, column '2\(mode=f1\)': read as a score, but a "
                                                    r"score's name starts with a letter"):
        EvaluationResult.from_ragas(ragas_rows(**{"2(mode=f1)": [0.5, 1.0]}), progress=False)


def test_a_haystack2_run_s_result_and_input_names_are_mended_the_same_way():
    run = haystack_run(**{"judge(model=gpt-4o)": [0.5, 1.0, 0.0]})
    run["results"] = {F1: {"score": 0.5, "individual_scores": [0.25, 0.75, 0.5]}}
    result, told = built(EvaluationResult.from_haystack2, run)
    assert told == ["from_haystack2: score 'factual_correctness(mode=f1)' is named 'factual_correctness_mode_f1', "
                    "score 'judge(model=gpt-4o)' is named 'judge_model_gpt-4o' (a score's name holds letters, digits, "
                    "'_' and '-' only; scores=[...] takes either name)."]
    metrics = result.calculate_metrics()["Retriever"]
    assert metrics["factual_correctness_mode_f1"] == 0.5  # (0.25 + 0.75 + 0.5) / 3
    assert metrics["judge_model_gpt-4o"] == 0.5  # (0.5 + 1 + 0) / 3
    chosen, _ = built(EvaluationResult.from_haystack2, run, scores=["factual_correctness_mode_f1"])
    assert list(chosen.scores) == ["factual_correctness_mode_f1"]


def test_a_llamaindex_result_s_field_is_mended_the_same_way(tmp_path):
    path = tmp_path / "llama.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in llama_rows(**{PRECISION: [1.0, 0.5, 0.0]})))
    result, told = built(EvaluationResult.from_llamaindex, path)
    assert told == [f"{path}: score 'factual_correctness(mode=precision)' is named "
                    "'factual_correctness_mode_precision' (a score's name holds letters, digits, '_' and '-' only; "
                    "scores=[...] takes either name)."]
    assert result.query_metrics("Retriever")["factual_correctness_mode_precision"].sum() == 1.5
    assert result.calculate_metrics()["Retriever"]["factual_correctness_mode_precision"] == 0.5  # 1.5 / 3


def test_the_cli_flattens_a_ragas_file_with_mode_columns_and_reports_the_mended_name(tmp_path, capsys):
    from evalframe.present.cli import main

    path = tmp_path / "results.jsonl"
    write(path, ragas_rows(**{F1: [0.5, 1.0, 0.0]}))
    code = main(["flatten", "--from", "ragas", str(path), "-o", str(tmp_path / "run"),
                 "--score", "factual_correctness_mode_f1:higher:0:1"])
    _, err = capsys.readouterr()
    assert code == 0
    assert (f"warning: {path}: score 'factual_correctness(mode=f1)' is named 'factual_correctness_mode_f1' (a score's "
            "name holds letters, digits, '_' and '-' only; scores=[...] takes either name).") in err
    assert main(["metrics", str(tmp_path / "run"), "--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["Retriever"]["factual_correctness_mode_f1"] == 0.5  # (0.5 + 1 + 0) / 3
