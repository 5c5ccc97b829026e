"""One rule for a score's value, whichever way it comes in (issue 35, items 4-6): numbers (a number's text is the
number), or a refusal naming the row and the column; no user text is ever a template; a Ragas column is a score or
the import says why not. Every expected value is worked out by hand in the test."""

from __future__ import annotations

import json
import math
import re
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, LoadError, read_runs, score_measure
from evalframe.errors import EvalframeError
from evalframe.frames import score_values as rule
from evalframe.frames.score_values import looks_like_scores, score_value, score_values

QUESTIONS = ["Capital of Germany?", "Capital of France?", "Capital of Italy?"]
GOLD = ["Berlin", "Paris", "Rome"]
ANSWERS = ["Berlin", "Lyon", "Rome"]  # exact_match (1 + 0 + 1) / 3


def runs_lines(scores: list[Any] | None = None, node: str = "Generator") -> list[dict[str, Any]]:
    lines = []
    for i, (question, gold, answer) in enumerate(zip(QUESTIONS, GOLD, ANSWERS)):
        line: dict[str, Any] = {"query": question, "gold": {"document_ids": [f"d{i}"], "answers": [gold]},
                                "nodes": {node: {"answers": [{"answer": answer, "type": "generative"}]}}}
        if scores is not None:
            line["scores"] = {node: {"judge": scores[i]}}
        lines.append(line)
    return lines


def write_runs(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def base(tmp_path: Path) -> EvaluationResult:
    return EvaluationResult.from_runs(*read_runs(write_runs(tmp_path, runs_lines())), progress=False)


def ragas_rows(column: str, values: list[Any]) -> list[dict[str, Any]]:
    return [{"user_input": q, "response": a, "reference": g, column: v}
            for q, a, g, v in zip(QUESTIONS, ANSWERS, GOLD, values)]


# ---------------------------------------------------------------------- every way a score comes in
def add_scores_frame(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    result = base(tmp_path)
    result.add_scores("Generator", pd.DataFrame({"query": QUESTIONS, "judge": values}))
    return result


def add_scores_dict(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    result = base(tmp_path)
    result.add_scores("Generator", {"judge": dict(zip(QUESTIONS, values))})
    return result


def from_runs_scores(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    labels, outputs = read_runs(write_runs(tmp_path, runs_lines()))
    return EvaluationResult.from_runs(labels, outputs, scores={"Generator": {"judge": values}}, progress=False)


def runs_file(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    return EvaluationResult.from_runs(*read_runs(write_runs(tmp_path, runs_lines(values))), progress=False)


def from_frame(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    df = pd.DataFrame({"question": QUESTIONS, "answer": ANSWERS, "gold": GOLD, "judge": values})
    return EvaluationResult.from_frame(df, answer="answer", gold_answers="gold", scores=["judge"], progress=False)


def from_ragas(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    return EvaluationResult.from_ragas(pd.DataFrame(ragas_rows("judge", values)), progress=False)


def from_ragas_file(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ragas_rows("judge", values)), encoding="utf-8")
    return EvaluationResult.from_ragas(path, progress=False)


def from_haystack2(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    run = {"inputs": {"question": QUESTIONS, "ground_truth_answer": GOLD, "predicted_answer": ANSWERS},
           "results": {"judge": {"score": 0.2, "individual_scores": values}}}
    return EvaluationResult.from_haystack2(run, progress=False)


def from_haystack2_report(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    report = {"question": QUESTIONS, "ground_truth_answer": GOLD, "predicted_answer": ANSWERS, "judge": values}
    return EvaluationResult.from_haystack2(report, progress=False)


def from_llamaindex(tmp_path: Path, values: list[Any]) -> EvaluationResult:
    results = [{"query": q, "expected_ids": [f"d{i}"], "retrieved_ids": [f"d{i}", "x"],
                "metric_dict": {"judge": {"score": v}}} for i, (q, v) in enumerate(zip(QUESTIONS, values))]
    return EvaluationResult.from_llamaindex(results, progress=False)


#: Each way in, with the node its score lands on and how it names the second row's cell.
WAYS: dict[str, tuple[Callable[[Path, list[Any]], EvaluationResult], str, str]] = {
    "add_scores DataFrame": (add_scores_frame, "Generator", "add_scores: table row 2 (index 1), column 'judge'"),
    "add_scores dict": (add_scores_dict, "Generator", "add_scores: table row 2 (index 'Capital of France?'), column 'judge'"),
    "from_runs scores=": (from_runs_scores, "Generator", "scores['Generator']['judge'][1]"),
    "runs file": (runs_file, "Generator", "runs.jsonl:2: score 'judge' of node 'Generator'"),
    "from_frame": (from_frame, "Generator", "row 2, column 'judge'"),
    "from_ragas": (from_ragas, "Generator", "row 2, column 'judge'"),
    "from_ragas JSONL": (from_ragas_file, "Generator", "ragas.jsonl:2, column 'judge'"),
    "from_haystack2": (from_haystack2, "Generator", "results['judge']['individual_scores'][1]"),
    "haystack2 detailed report": (from_haystack2_report, "Generator", "results['judge']['individual_scores'][1]"),
    "from_llamaindex": (from_llamaindex, "Retriever", "results[1]: metric_dict['judge'].score"),
}
#: The ways whose values pass through JSON (a runs file, a JSON Lines file): no complex number there.
JSON_WAYS = {"runs file", "from_ragas JSONL"}
#: The ways where a list of numbers is a score's repetitions (repeated judge runs), refused among single values.
REPEATS_WAYS = {"from_runs scores=", "runs file"}


@pytest.mark.parametrize("way", WAYS)
def test_a_number_written_as_text_is_that_number_in_every_way_in(tmp_path, way):
    """Review: add_scores gave the mean of [0.1, "0.2", 0.3] as NaN or refused it, from_frame read it as 0.2, Ragas
    made the column a meta field. Now every way reads it: (0.1 + 0.2 + 0.3) / 3 = 0.2; (0.25 + 0.5 + 0.75) / 3 = 0.5
    exactly in binary floating point."""
    build, node, _ = WAYS[way]
    assert build(tmp_path, [0.1, "0.2", 0.3]).calculate_metrics()[node]["judge"] == pytest.approx(0.2, rel=1e-15)
    result = build(tmp_path, [0.25, " 0.5 ", 0.75])
    assert result.calculate_metrics()[node]["judge"] == 0.5
    assert result.query_metrics(node)["judge"].tolist() == [0.25, 0.5, 0.75]
    assert build(tmp_path, ["2.5e-1", None, "7.5E-1"]).calculate_metrics()[node]["judge"] == 0.5  # None: no value


BAD = {  # value, how the message shows it, why it is no number
    "text": ("abc", "'abc'", "text that is not a number"),
    "a missing marker": ("n/a", "'n/a'", "text that is not a number"),
    "complex": (0.2j, "0.2j", "a complex number"),
    "list of one number": ([0.2], r"\[0.2\]", r"a list: a score is one number per query \(give the number itself\)"),
    "dict": ({"x": 1}, r"\{'x': 1\}", "a dict"),
    "bool": (True, "True", r"a bool: True / False is a verdict, not a score \(give 1.0 / 0.0 to average it as a rate\)"),
    "integer beyond float": (10**400, "1000.*000", "an integer beyond the range of a float"),
    # review R5: the text of such an integer (a CSV cell of 5,001 digits) was called "text that is not a number"
    "integer's text beyond float": ("-" + "9" * 5001, r"'-99+\.\.\.99+'", r"an integer beyond the range of a float \(as a "
                                    r"float it would be infinite\)"),
}


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("way", WAYS)
def test_a_cell_that_is_no_number_is_refused_alike_in_every_way_in(tmp_path, way, bad):
    build, _, where = WAYS[way]
    value, shown, why = BAD[bad]
    if way in JSON_WAYS and bad == "complex":
        pytest.skip("JSON holds no complex number")
    if bad == "list of one number" and way in REPEATS_WAYS:  # a list there is the score's repetitions (issue 37)
        with pytest.raises(EvalframeError, match=r"\[1\]\S* gives a list of repetitions \(\[0.2\]\) and .* one value"):
            build(tmp_path, [0.1, value, 0.3])
        return
    error = LoadError if way == "runs file" else EvalframeError
    with pytest.raises(error, match=re.escape(where) + r" must be a number \(None, NaN or empty: no value\); got "
                       + shown + ", " + why):
        build(tmp_path, [0.1, value, 0.3])


def test_a_csv_cell_of_an_integer_beyond_the_float_range_is_named_so(tmp_path):
    """Review R5: a Ragas CSV file's score cell of 5,001 digits was "text that is not a number"; the text of a
    number written with an exponent beyond the range ("1e400") is infinity, refused by the bounds as before."""
    path = tmp_path / "ragas.csv"
    pd.DataFrame(ragas_rows("faithfulness", ["0.5", "1" * 5001, "0.25"])).to_csv(path, index=False)
    with pytest.raises(EvalframeError, match=rf"^{re.escape(str(path))}:3, column 'faithfulness' must be a number "
                                             r"\(None, NaN or empty: no value\); got '11+\.\.\.11+', an integer beyond the "
                                             r"range of a float \(as a float it would be infinite\)\.?$"):
        ragas(path)
    assert score_values(["1e400", " 12 ", "1" * 300], where=str).tolist() == [math.inf, 12.0, float("1" * 300)]


def test_an_empty_table_to_add_scores_is_refused_clearly(tmp_path):
    """Review: an empty table raised a raw IndexError. Nothing to attach is refused, naming the node and score."""
    result = base(tmp_path)
    message = r"add_scores: the table holds no row, so no query of node 'Generator' gets a value of 'judge'"
    with pytest.raises(InvalidParameterError, match=message):
        result.add_scores("Generator", pd.DataFrame({"query": [], "judge": []}))
    with pytest.raises(InvalidParameterError, match=message):
        result.add_scores("Generator", {"judge": {}})
    assert "judge" not in result.scores and "scores.judge" not in result["Generator"].columns


def test_a_scores_column_set_by_hand_is_read_by_the_same_rule(tmp_path):
    result = base(tmp_path)
    frame = result["Generator"].copy()
    frame["scores.judge"] = pd.Series(["0.25", 0.5, None], dtype=object).to_numpy()
    result["Generator"] = frame
    result.scores["judge"] = score_measure("judge")
    assert result.calculate_metrics()["Generator"]["judge"] == (0.25 + 0.5) / 2
    frame["scores.judge"] = pd.Series([0.25, [0.5], None], dtype=object).to_numpy()
    result["Generator"] = frame
    with pytest.raises(EvalframeError, match=r"node 'Generator': column 'scores.judge', row 1 of its frame must be a "
                                             r"number .*; got \[0.5\], a list"):
        result.calculate_metrics()


# ---------------------------------------------------------------------- the rule itself
def test_the_rule_cell_by_cell():
    where = "row 1, column 'f'"
    assert [score_value(v, where=where) for v in (1, 0.5, np.float32(0.25), np.int64(3), "0.8", " 1e-3 ", "-2",
                                                   "+.5", "5.")] == [1.0, 0.5, 0.25, 3.0, 0.8, 0.001, -2.0, 0.5, 5.0]
    assert score_value("inf", where=where) == float("inf")  # a number; check_bounds refuses it (a score is finite)
    assert all(np.isnan(score_value(v, where=where)) for v in (None, float("nan"), pd.NA, "", "  ", "nan", "NaN"))
    for text in ("1_0", "0x10", "1,5", "high", "null", "١٢"):
        with pytest.raises(InvalidParameterError, match="text that is not a number"):
            score_value(text, where=where)


def test_the_rule_over_a_column_names_the_first_bad_cell():
    def where(i: int) -> str:
        return f"row {i + 1}, column 'f'"

    assert score_values(pd.Series([1, None], dtype="Int64"), where=where).tolist()[0] == 1.0
    assert np.isnan(score_values(pd.Series([1, None], dtype="Int64"), where=where)[1])
    assert score_values(np.array([1, 2], dtype=np.int64), where=where).dtype == np.float64
    assert score_values([], where=where).tolist() == []
    with pytest.raises(InvalidParameterError, match=r"row 3, column 'f' must be a number .*; got 'x', text"):
        score_values(["0.5", "", "x"], where=where)
    with pytest.raises(InvalidParameterError, match=r"row 1, column 'f' .*got True, a bool"):
        score_values(np.array([True, False]), where=where)
    # a complex column (pandas makes [0.1, 0.2j] complex): the cell named is the one that shows why
    with pytest.raises(InvalidParameterError, match=r"row 2, column 'f' .*got 0.2j, a complex number"):
        score_values(pd.Series([0.1, 0.2j]), where=where)


def test_a_column_of_numbers_or_of_texts_is_read_whole_not_cell_by_cell(monkeypatch):
    """Vectorised: the common columns never reach the cell-by-cell reading."""
    def no_cell(value: Any) -> float:
        raise AssertionError("read cell by cell")

    monkeypatch.setattr(rule, "_one", no_cell)
    n = 100_000
    numbers = np.arange(n, dtype=object) / 4
    assert score_values(numbers, where=str).sum() == (n - 1) * n / 2 / 4
    texts = pd.Series(np.arange(n) / 4).astype(str).astype(object)
    texts.iloc[7] = None
    out = score_values(texts, where=str)
    assert np.isnan(out[7]) and out[8] == 2.0 and np.nansum(out) == (n - 1) * n / 2 / 4 - 7 / 4
    assert score_values(pd.Series([0.5, np.nan]), where=str).tolist()[0] == 0.5


def test_which_columns_look_like_scores():
    assert looks_like_scores([0.5, None]) and looks_like_scores(["0.5", "n/a"]) and looks_like_scores([None, [0.5]])
    assert not looks_like_scores(["geography", "history"]) and not looks_like_scores([True, False])
    assert not looks_like_scores([[0.1, 0.2], [0.3, 0.4]]) and not looks_like_scores([None, ""])


# ---------------------------------------------------------------------- item 4: a node name is never a template
NAMES = ["G{row:>400000000}", '{"x": 1}', "${alert(1)}", "G{0}", "%s%n"]


@pytest.mark.parametrize("name", NAMES)
def test_a_node_name_with_braces_or_percent_signs_is_named_as_it_is(name):
    """Review: the name was the template of each table row's name: G{row:>400000000} took 882 MB for 2 rows, a name
    with braces raised a raw KeyError / IndexError."""
    df = pd.DataFrame({"question": QUESTIONS, "answer": ANSWERS, "gold": GOLD, "judge": [0.5, 0.3, 0.1]})
    tracemalloc.start()
    try:
        result = EvaluationResult.from_frame(df, answer="answer", gold_answers="gold", scores=["judge"],
                                             generator=name, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20  # the old template made a 400 MB string per row
    assert result.calculate_metrics()[name]["judge"] == pytest.approx((0.5 + 0.3 + 0.1) / 3)
    assert list(result.metrics_frame().index) == [name]
    with pytest.raises(EvalframeError, match=re.escape(f"row 2: scores of node {name!r}, column 'judge': 7.0 lies "
                                                       "outside the bounds [0, 1]")):
        EvaluationResult.from_frame(df.assign(judge=[0.5, 7.0, 0.1]), answer="answer", gold_answers="gold",
                                    scores={"judge": score_measure("judge", bounds=(0, 1))}, generator=name,
                                    progress=False)
    with pytest.raises(InvalidParameterError, match=re.escape(f"add_scores: table row 2 (index 1): node {name!r} has "
                                                              "no query with query 'Capital of Spain?'")):
        result.add_scores(name, pd.DataFrame({"query": ["Capital of Italy?", "Capital of Spain?"], "f": [1.0, 0.5]}))
    with pytest.raises(InvalidParameterError, match=re.escape(f"scores[{name!r}]['f'][1] must be a number")):
        EvaluationResult.from_runs(*read_runs_of(runs_lines(node=name)), scores={name: {"f": [0.1, "x", 0.3]}},
                                   progress=False)


def read_runs_of(lines: list[dict[str, Any]]) -> Any:
    import tempfile

    return read_runs(write_runs(Path(tempfile.mkdtemp()), lines))


def test_a_query_index_with_braces_names_its_row_as_it_is(tmp_path):
    result = base(tmp_path)
    table = pd.DataFrame({"judge": [0.5, 0.5]}, index=["Capital of Italy?", "{row:>9999999}"])
    with pytest.raises(InvalidParameterError, match=re.escape("add_scores: table row 2 (index '{row:>9999999}'): node "
                                                              "'Generator' has no query with query '{row:>9999999}'")):
        result.add_scores("Generator", table)


# ---------------------------------------------------------------------- item 6: a Ragas column is a score or says why not
def ragas(source: Any, **options: Any) -> EvaluationResult:
    return EvaluationResult.from_ragas(source, progress=False, **options)


def test_a_ragas_score_with_one_list_cell_is_refused_naming_row_and_column():
    """Review: one [0.5] cell made faithfulness vanish from result.scores and from every table."""
    with pytest.raises(EvalframeError, match=r"row 2, column 'faithfulness' must be a number .*; got \[0.5\], a list"):
        ragas(ragas_rows("faithfulness", [0.9, [0.5], 0.6]))
    with pytest.raises(EvalframeError, match=r"row 1, column 'faithfulness' .*got \[0.9\], a list"):
        ragas(ragas_rows("faithfulness", [[0.9], [0.5], [0.6]]))  # every cell a list of one number: a score, refused


def test_a_judge_column_stored_as_text_is_a_score(tmp_path):
    """Review: "0.8" made the column a meta field; now its numbers are the score's values."""
    path = tmp_path / "ragas.jsonl"
    rows = ragas_rows("faithfulness", ["0.9", "0.2", ""])
    for row, value in zip(rows, ["0.5", "1", "0"]):
        row["judge"] = value
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = ragas(path)
    assert sorted(result.scores) == ["faithfulness", "judge"]
    metrics = result.calculate_metrics()["Generator"]
    assert metrics["faithfulness"] == pytest.approx((0.9 + 0.2) / 2)  # "" is no value
    assert metrics["judge"] == 0.5
    assert "meta" not in result["Generator"].columns


def test_a_known_ragas_score_holding_no_number_is_refused_not_read_as_meta():
    with pytest.raises(EvalframeError, match=r"row 1, column 'answer_relevancy' .*got 'high', text that is not a number"):
        ragas(ragas_rows("answer_relevancy", ["high", "low", "high"]))
    with pytest.raises(EvalframeError, match=r"row 2, column 'factual_correctness\(mode=f1\)' .*got True, a bool"):
        ragas(ragas_rows("factual_correctness(mode=f1)", [1.0, True, 0.0]))


def test_the_import_says_which_columns_give_no_score_and_why():
    rows = ragas_rows("topic", ["geo", "geo", "art"])
    for row, flag, vector in zip(rows, [True, False, True], [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]):
        row.update(flag=flag, embedding=vector, faithfulness=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ragas(rows)
    told = [str(w.message) for w in caught if "give no score" in str(w.message)]
    assert len(told) == 1
    # every column that became a meta field is named, texts too (review R6: the import says which became meta)
    assert ("'topic' (a meta field: texts, not numbers), 'flag' (a meta field: True / False, not numbers), "
            "'embedding' (left out: lists, not numbers), "
            "'faithfulness' (a score without a value in any row: no 'faithfulness' in result.scores)") in told[0]
    assert sorted(result.sliced_metrics("meta.topic").loc["Generator"].index) == ["art", "geo"]
    assert result.scores == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a caller who names the columns is not told
        ragas(rows, scores=[], meta=["topic", "flag"])


def test_a_numeric_column_named_in_meta_is_a_meta_field_not_a_score():
    rows = ragas_rows("year", [2020, 2021, 2020])
    for row, value in zip(rows, [0.25, 0.5, 0.75]):
        row["faithfulness"] = value
    result = ragas(rows, meta=["year"])
    assert sorted(result.scores) == ["faithfulness"]
    sliced = result.sliced_metrics("meta.year").loc["Generator"]
    assert sliced.loc[2020, "faithfulness"] == (0.25 + 0.75) / 2 and sliced.loc[2021, "faithfulness"] == 0.5


def test_a_ragas_column_mostly_numbers_with_one_text_is_still_refused(tmp_path):
    path = tmp_path / "ragas.csv"
    pd.DataFrame(ragas_rows("judge", [0.5, "n/a", 0.25])).to_csv(path, index=False)
    with pytest.raises(EvalframeError, match=r"ragas\.csv:3, column 'judge' must be a number .*got 'n/a'"):
        ragas(path)


def test_a_text_is_read_alike_whole_and_cell_by_cell():
    """The texts of a column are read by pandas at once, a lone text (a runs file's) by NUMBER_TEXT: one grammar."""
    random = np.random.default_rng(35)
    alphabet = list("0123456789.eE+-infatyINFATYxX _,") + ["\t", "\n", "\xa0", "\u0662"]
    texts = sorted({"".join(random.choice(alphabet, size=random.integers(1, 6))) for _ in range(20_000)})
    read = rule._texts(np.array(texts, dtype=object), np.zeros(len(texts), dtype=bool))
    assert read is not None
    whole = ["refused" if bad else value for value, bad in zip(read[0].tolist(), read[1].tolist())]
    one = []
    for text in texts:
        try:
            one.append(score_value(text, where="x"))
        except InvalidParameterError:
            one.append("refused")
    differ = [(t, w, o) for t, w, o in zip(texts, whole, one) if not (w == o or (w != w and o != o))]
    assert not differ, differ[:5]
    assert sum(v != "refused" for v in one) > 300  # the sample holds numbers, not only refusals
