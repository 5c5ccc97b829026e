"""Which extra columns of a Ragas table, a Haystack 2.x run's inputs, a LlamaIndex result's fields and a table read
by from_frame (issue 36) are scores (review of issue 35, R6; the rule: evalframe/sources/extras.py,
docs/rag.md#which-columns-are-scores).

Two or three questions, one retrieved document each, its gold: mrr 1 for each; the values of the extra columns are
the test's own, their means worked out by hand.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.frames.score_values import column_kind
from evalframe.sources.extras import id_like

QUESTIONS = ["Capital of Germany?", "Capital of France?", "Capital of Italy?"]


def ragas_rows(**columns: list[Any]) -> list[dict[str, Any]]:
    n = len(next(iter(columns.values())))
    return [{"user_input": QUESTIONS[i], "retrieved_contexts": [f"text {i}"], "retrieved_context_ids": [f"d{i}"],
             "reference_context_ids": [f"d{i}"], **{name: values[i] for name, values in columns.items()}}
            for i in range(n)]


def haystack_run(**columns: list[Any]) -> dict[str, Any]:
    n = len(next(iter(columns.values())))
    return {"inputs": {"question": QUESTIONS[:n],
                       "retrieved_documents": [[{"id": f"d{i}", "content": f"text {i}"}] for i in range(n)],
                       "ground_truth_document_ids": [[f"d{i}"] for i in range(n)], **columns},
            "results": {}}


def llama_rows(**columns: list[Any]) -> list[dict[str, Any]]:
    return [{"query": row["user_input"], "expected_ids": row["reference_context_ids"],
             "retrieved_ids": row["retrieved_context_ids"], "retrieved_texts": row["retrieved_contexts"],
             **{name: values[i] for name, values in columns.items()}} for i, row in enumerate(ragas_rows(**columns))]


SOURCES = {"ragas": (lambda **c: EvaluationResult.from_ragas(ragas_rows(**c), progress=False), "columns", "column"),
           "haystack2": (lambda **c: EvaluationResult.from_haystack2(haystack_run(**c), progress=False), "inputs",
                         "input"),
           "llamaindex": (lambda **c: EvaluationResult.from_llamaindex(llama_rows(**c), progress=False), "fields",
                          "field"),
           # issue 36: from_frame's columns that no column parameter names follow the same rule
           "frame": (lambda **c: EvaluationResult.from_frame(ragas_rows(**c), question="user_input",
                                                             retrieved_ids="retrieved_context_ids",
                                                             retrieved_texts="retrieved_contexts",
                                                             gold_ids="reference_context_ids", progress=False),
                     "columns", "column")}


def built(source: str, **columns: list[Any]) -> tuple[EvaluationResult, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = SOURCES[source][0](**columns)
    return result, [str(w.message) for w in caught if "give no score" in str(w.message)]


def meta_of(result: EvaluationResult) -> list[dict[str, Any]]:
    frame = result["Retriever"].drop_duplicates("multilabel_id")
    return [json.loads(text) for text in frame["meta"]]


@pytest.mark.parametrize("source", list(SOURCES))
def test_codes_among_texts_are_a_meta_field_not_a_refused_score(source):
    """Review R6: sku ["1001", "X-2", "1003"] made the whole import fail ('X-2' is no number), as its first cell is
    a number's text; integers among texts that are no number are codes: a meta field, named in the warning."""
    result, told = built(source, product_code=["1001", "X-2", "1003"])
    assert "product_code" not in result.scores
    assert [m["product_code"] for m in meta_of(result)] == ["1001", "X-2", "1003"]
    noun = SOURCES[source][1]
    assert len(told) == 1 and told[0].startswith(
        f"from_{source}: {noun} that give no score: 'product_code' (a meta field: texts, not numbers ('X-2' is none)).")
    assert result.calculate_metrics()["Retriever"]["mrr"] == 1.0


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_column_named_like_an_id_is_a_meta_field_and_the_warning_says_why(source):
    """Review R6: year ["2020", "2021", "2022"] and an id column [101, 102, 103] silently became scores (means
    2021.0 and 102.0 in every table); a name that is an id's, a code's or a year's makes a meta field."""
    result, told = built(source, year=["2020", "2021", "2022"], sample_id=[101, 102, 103], sku=[7, 8, 9],
                         topic=["de", "fr", "it"], judge=[0.5, 1.0, 0.0])
    assert sorted(result.scores) == ["judge"]
    assert result.calculate_metrics()["Retriever"]["judge"] == 0.5  # (0.5 + 1 + 0) / 3
    assert meta_of(result)[1] == {"year": "2021", "sample_id": 102, "sku": 8, "topic": "fr"}
    kind = SOURCES[source][2]
    # one message, each column that became a meta field named with why it is no score
    assert len(told) == 1
    assert ("that give no score: 'year' (a meta field: an id's name: its numbers are no score), 'sample_id' (a meta "
            "field: an id's name: its numbers are no score), 'sku' (a meta field: an id's name: its numbers are no "
            "score), 'topic' (a meta field: texts, not numbers). ") in told[0]
    assert (f"A score {kind} holds numbers (or their text) in at least half of its rows and is not named like an id "
            "('id', '..._id', 'sku', 'year', ...)") in told[0]


def test_a_column_named_like_an_id_is_a_score_when_the_caller_names_it():
    rows = ragas_rows(year=["2020", "2021", "2022"], id=[101, 102, 103])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the caller named every column: nothing to say
        result = EvaluationResult.from_ragas(rows, scores=["year"], meta=["id"], progress=False)
    assert sorted(result.scores) == ["year"]
    assert result.calculate_metrics()["Retriever"]["year"] == 2021.0  # (2020 + 2021 + 2022) / 3
    assert [m["id"] for m in meta_of(result)] == [101, 102, 103]


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_judge_s_integer_scores_and_decimal_texts_stay_scores(source):
    """A judge's 1-5 scores are integers, as ids are; their name tells them apart. Texts of decimal numbers
    ("0.8", a judge writing its number as text) are read as the numbers."""
    result, told = built(source, rating=[1, 5, 3], judge=["0.8", "0.4", "0.3"])
    assert sorted(result.scores) == ["judge", "rating"]
    metrics = result.calculate_metrics()["Retriever"]
    assert metrics["rating"] == 3.0  # (1 + 5 + 3) / 3
    assert metrics["judge"] == pytest.approx(0.5)  # (0.8 + 0.4 + 0.3) / 3
    assert told == []


def test_a_csv_file_s_integer_scores_are_a_score_and_its_year_a_meta_field(tmp_path):
    """A CSV file's cells are all text: "1" ... "5" is a judge's score as 1 ... 5 in JSON is; a year is a meta field
    by its name (it was a score, mean 2021.0)."""
    path = tmp_path / "ragas.csv"
    frame = pd.DataFrame(ragas_rows(rating=["1", "5", "3"], year=["2020", "2021", "2022"]))
    frame.to_csv(path, index=False)
    with pytest.warns(UserWarning, match=rf"^{path}: columns that give no score: 'year' \(a meta field: an id's name: "
                                         r"its numbers are no score\)\. A score column"):
        result = EvaluationResult.from_ragas(path, progress=False)
    assert sorted(result.scores) == ["rating"]
    assert result.calculate_metrics()["Retriever"]["rating"] == 3.0
    assert [m["year"] for m in meta_of(result)] == ["2020", "2021", "2022"]


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_score_column_whose_name_cannot_name_a_score_is_refused_naming_source_and_column(source, tmp_path):
    """Review: the refusal said "score name 'my score': ... rename it", naming neither the file nor the column."""
    kind = SOURCES[source][2]
    with pytest.raises(InvalidParameterError, match=rf"^from_{source}, {kind} 'my score': read as a score, but a "
                                                    r"score's name starts with a letter .*; rename it; or name it in "
                                                    r"meta=\[\.\.\.\] to keep it as a meta field"):
        built(source, **{"my score": [0.5, 0.25]})
    if source == "ragas":  # a file by its path
        path = tmp_path / "a.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in ragas_rows(**{"my score": [0.5, 0.25]})))
        with pytest.raises(InvalidParameterError, match=rf"^{path}, column 'my score': read as a score"):
            EvaluationResult.from_ragas(path, progress=False)
        kept = EvaluationResult.from_ragas(path, meta=["my score"], progress=False)  # the way out it names
        assert [m["my score"] for m in meta_of(kept)] == [0.5, 0.25]


def test_an_id_column_with_a_missing_value_is_named_at_its_row():
    """Review R19: a DataFrame's id column [1, None, 2] holds 1.0, NaN, 2.0; the message named row 1 and the float
    1.0 instead of the missing value in row 2."""
    frame = pd.DataFrame(ragas_rows(sid=[1, None, 2]))
    with pytest.raises(EvalframeError, match=r"^row 2: column 'sid' \(id_column\) is empty \(nan\); every row needs "
                                             r"its query's id; a DataFrame's integer column with a missing value holds "
                                             r"floats"):
        EvaluationResult.from_ragas(frame, id_column="sid", progress=False)
    rows = ragas_rows(sid=["a", "b", " "])  # a blank text: the same, at its row
    with pytest.raises(EvalframeError, match=r"^row 3: column 'sid' \(id_column\) is empty \(' '\); every row needs "
                                             r"its query's id\.$"):
        EvaluationResult.from_ragas(rows, id_column="sid", progress=False)
    with pytest.raises(EvalframeError, match=r"^row 1: column 'sid' \(id_column\) must hold a text or an integer id; "
                                             r"got 1\.5 of type float"):
        EvaluationResult.from_ragas(pd.DataFrame(ragas_rows(sid=[1.5, 2.0, 3.0])), id_column="sid", progress=False)


def test_the_kinds_of_columns():
    assert column_kind(["1001", "X-2", "1003"]) == "texts"  # codes
    assert column_kind(["1", "n/a", "3"]) == "texts"
    assert column_kind(["0.8", "n/a"]) == "texts of numbers"  # a judge's, "n/a" refused when read
    assert column_kind([" 2 ", "5"]) == "texts of numbers"
    assert column_kind([0.9, "n/a", 0.7]) == "numbers and texts"
    assert column_kind([None, float("nan"), " "]) == "none"
    assert column_kind([[0.5], None]) == "numbers"
    assert column_kind([True, 0.5, False]) == "other"
    assert column_kind(pd.Series(["x"] * 3 + [None], dtype="str")) == "texts"
    assert [id_like(name) for name in ("ID", "query_id", "sampleId", "item-sku", "release_year", "qid")] == [True] * 6
    assert [id_like(name) for name in ("valid", "idle", "year_score", "skus", "")] == [False] * 5
