"""EvaluationResult.from_frame: a column mapping over a DataFrame or a table file; metrics by hand and equal to
from_runs' on the same data written by hand as a runs file; errors naming the row and the column."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, read_runs
from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.sources.frame import list_cell, number_cell, read_table

BERLIN = "Berlin is the capital of Germany."
BONN = "Bonn was the capital of West Germany."
PARIS = "Paris is the capital of France."
LYON = "Lyon is a city in France."

COLUMNS = {"question": "q", "retrieved_ids": "ids", "retrieved_texts": "texts", "answer": "reply",
           "gold_ids": "gold", "gold_answers": "truth"}


def table() -> pd.DataFrame:
    return pd.DataFrame({
        "q": ["Capital of Germany?", "Capital of France?", "Who won the 2030 World Cup?"],
        "ids": [["bonn", "berlin"], ["paris", "lyon"], ["paris"]],
        "texts": [[BONN, BERLIN], [PARIS, LYON], [PARIS]],
        "reply": ["Berlin", "Lyon", ""],
        "gold": [["berlin"], ["paris"], []],
        "truth": [["Berlin"], ["Paris"], []],
        "judge": [0.9, 0.25, None],
        "topic": ["geography", "geography", "sport"],
    })


RUNS_LINES = [
    {"query": "Capital of Germany?", "gold": {"document_ids": ["berlin"], "answers": ["Berlin"]},
     "nodes": {"Retriever": {"documents": [{"id": "bonn", "content": BONN}, {"id": "berlin", "content": BERLIN}]},
               "Generator": {"answers": [{"answer": "Berlin", "type": "generative", "document_ids": ["bonn", "berlin"]}]}}},
    {"query": "Capital of France?", "gold": {"document_ids": ["paris"], "answers": ["Paris"]},
     "nodes": {"Retriever": {"documents": [{"id": "paris", "content": PARIS}, {"id": "lyon", "content": LYON}]},
               "Generator": {"answers": [{"answer": "Lyon", "type": "generative", "document_ids": ["paris", "lyon"]}]}}},
    {"query": "Who won the 2030 World Cup?", "gold": {"answers": [""]},
     "nodes": {"Retriever": {"documents": [{"id": "paris", "content": PARIS}]},
               "Generator": {"answers": [{"answer": "", "type": "generative", "document_ids": ["paris"]}]}}},
]


def from_frame(df: Any, **options: Any) -> EvaluationResult:
    return EvaluationResult.from_frame(df, progress=False, **{**COLUMNS, **options})


def from_runs(tmp_path: Path, lines: list[dict], **options: Any) -> EvaluationResult:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    labels, outputs = read_runs(path)
    return EvaluationResult.from_runs(labels, outputs, progress=False, **options)


def files(tmp_path: Path) -> dict[str, Any]:
    """The table in every form from_frame reads: lists, numpy arrays, CSV (lists as Python literals), Parquet, JSON."""
    df = table()
    arrays = df.copy()
    for column in ("ids", "texts", "gold", "truth"):
        arrays[column] = [np.array(cell, dtype=object) for cell in df[column]]
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_parquet(tmp_path / "t.parquet", index=False)
    df.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    df.to_json(tmp_path / "t.json", orient="records")
    return {"lists": df, "arrays": arrays, "records": df.to_dict("records"), "csv": tmp_path / "t.csv",
            "parquet": tmp_path / "t.parquet", "jsonl": tmp_path / "t.jsonl", "json": tmp_path / "t.json"}


@pytest.mark.parametrize("form", ["lists", "arrays", "records", "csv", "parquet", "jsonl", "json"])
def test_hand_worked_metrics_and_equal_to_from_runs(tmp_path, form):
    # the extra columns no parameter names follow the rule of every source: judge (numbers) a score of the generator,
    # topic (texts) a meta field, said in one warning
    with pytest.warns(UserWarning, match=r"columns that give no score: 'topic' \(a meta field: texts, not numbers\)\. "):
        result = from_frame(files(tmp_path)[form])
    metrics = result.calculate_metrics()
    # Germany: gold at rank 2 of 2; France: rank 1 of 2 (Lyon's text lacks "Paris"); the no-answer question: 1.0
    assert metrics["Retriever"]["mrr"] == (1 / 2 + 1 + 1) / 3
    assert metrics["Retriever"]["precision"] == (1 / 2 + 1 / 2 + 1) / 3
    assert metrics["Generator"]["exact_match"] == (1 + 0 + 1) / 3
    assert metrics["Generator"]["judge"] == (0.9 + 0.25) / 2  # the third row has no judge score
    judged = [{**line, "meta": {"topic": topic}, **({"scores": {"Generator": {"judge": judge}}} if judge else {})}
              for line, topic, judge in zip(RUNS_LINES, ["geography", "geography", "sport"], [0.9, 0.25, None])]
    expected = from_runs(tmp_path, judged)
    for node in ("Retriever", "Generator"):
        pd.testing.assert_frame_equal(result[node], expected[node])


def test_texts_only_are_matched_by_their_text(tmp_path):
    # no ids: a retrieved text is relevant when it matches a gold context (context similarity > 65, for texts of at
    # least 100 characters) or holds the gold answer
    long_berlin = "Berlin is the capital of Germany. " * 4
    long_bonn = "Quantum chromodynamics describes the strong interaction between quarks and gluons. " * 2
    df = pd.DataFrame({"question": ["Capital of Germany?"], "contexts": [[long_bonn, long_berlin]],
                       "reference": [[long_berlin]]})
    result = EvaluationResult.from_frame(df, retrieved_texts="contexts", gold_contexts="reference", progress=False)
    assert result.calculate_metrics(document_scope="context")["Retriever"]["mrr"] == 1 / 2
    expected = from_runs(tmp_path, [{"query": "Capital of Germany?", "gold": {"contexts": [long_berlin]},
                                     "nodes": {"Retriever": {"documents": [{"content": long_bonn},
                                                                           {"content": long_berlin}]}}}])
    pd.testing.assert_frame_equal(result["Retriever"], expected["Retriever"])


def test_scores_meta_and_document_objects():
    df = table()
    df["scores"] = [[0.5, 0.25], [2, 1], [3]]
    df["docs"] = [[{"page_content": BONN, "metadata": {"id": "bonn"}}, {"page_content": BERLIN, "metadata": {"id": "berlin"}}],
                  [{"id": "paris", "content": PARIS}, {"id": "lyon", "content": LYON}], [{"id": "paris", "content": PARIS}]]
    df["info"] = [{"source": "faq"}, None, '{"source": "chat"}']
    result = from_frame(df, retrieved_ids=None, retrieved_texts="docs", retrieved_scores="scores", meta="info")
    frame = result["Retriever"]
    assert frame["document_id"].tolist() == ["bonn", "berlin", "paris", "lyon", "paris"]
    assert frame["score"].tolist() == [0.5, 0.25, 2.0, 1.0, 3.0]
    assert result["Generator"]["meta"].tolist() == ['{"source": "faq"}', None, '{"source": "chat"}']
    assert result.calculate_metrics()["Retriever"]["mrr"] == (1 / 2 + 1 + 1) / 3
    by_columns = from_frame(df, meta=["topic", "judge"])["Retriever"]["meta"].drop_duplicates().tolist()
    assert by_columns == ['{"judge": 0.9, "topic": "geography"}', '{"judge": 0.25, "topic": "geography"}',
                          '{"topic": "sport"}']  # a missing value is no field


def test_gold_answers_as_a_text_column_and_one_document_with_several_answers(tmp_path):
    df = pd.DataFrame({"q": ["Capital of Germany?"], "ids": [["berlin"]], "gold": [["berlin"]],
                       "truth": ['["Berlin", "the city of Berlin"]'], "reply": ["the city of Berlin"]})
    result = EvaluationResult.from_frame(df, question="q", retrieved_ids="ids", gold_ids="gold", gold_answers="truth",
                                         answer="reply", progress=False)
    expected = from_runs(tmp_path, [{"query": "Capital of Germany?",
                                     "gold": {"document_ids": ["berlin", "berlin"], "answers": ["Berlin", "the city of Berlin"]},
                                     "nodes": {"Retriever": {"documents": [{"id": "berlin", "content": ""}]},
                                               "Generator": {"answers": [{"answer": "the city of Berlin", "type": "generative",
                                                                          "document_ids": ["berlin"]}]}}}])
    for node in ("Retriever", "Generator"):
        pd.testing.assert_frame_equal(result[node], expected[node])
    assert result.calculate_metrics()["Generator"]["exact_match"] == 1.0
    df["truth"] = ["Berlin"]  # a plain text: one answer
    single = EvaluationResult.from_frame(df, question="q", answer="reply", gold_answers="truth", progress=False)
    assert single["Generator"]["gold_answers"].tolist() == [["Berlin"]]


@pytest.mark.parametrize("options, error, message", [
    ({"question": "query"}, InvalidParameterError, r"question='query' names no column of df; its columns are \['q', .*"
                                                   r"'truth', 'judge', 'topic'\]\.$"),
    ({"answer": "replies"}, InvalidParameterError, r"answer='replies' names no column of df.*Did you mean 'reply'\?"),
    ({"gold_ids": 3}, InvalidParameterError, r"gold_ids must be a column name \(a non-empty str\); got 3"),
    ({"retrieved_ids": None, "retrieved_texts": None, "retrieved_scores": "judge"}, InvalidParameterError,
     r"retrieved_scores needs retrieved_ids or retrieved_texts"),
    ({"meta": ["topic", "nope"]}, InvalidParameterError, r"meta='nope' names no column of df"),
    ({"meta": "topic"}, EvalframeError, r"row 1: column 'topic' must hold an object \(a dict, or its JSON text\); got "
                                        r"'geography'"),
    # a text where a ranking belongs (outside CSV) is refused: it is often a joined list, never a ranking's scores
    ({"retrieved_scores": "reply"}, EvalframeError, r"row 1: reply must be a list \(one entry per document\); got a "
                                                    r"string 'Berlin'"),
    ({"gold_ids": "judge"}, EvalframeError, r"row 1: column 'judge' must hold a list \(or its JSON text\); got 0\.9"),
    ({"answer": "ids"}, EvalframeError, r"row 1: column 'ids' must hold text; got \['bonn', 'berlin'\]"),
])
def test_errors_name_the_parameter_or_the_row_and_the_column(options, error, message):
    with pytest.raises(error, match=message):
        from_frame(table(), **options)


def test_a_bad_cell_of_a_file_is_named_by_its_line(tmp_path):
    df = table()
    df.loc[1, "q"] = "Capital\nof France?"  # a quoted line break: the third row starts on line 5
    df["ids"] = df["ids"].astype(object)
    df.at[2, "ids"] = "['paris'"
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(EvalframeError, match=r"t\.csv:5: column 'ids' holds \"\['paris'\", which starts like a list"):
        from_frame(tmp_path / "t.csv")
    df = table()
    df.at[1, "q"] = None
    df.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    with pytest.raises(EvalframeError, match=r"t\.jsonl:2: column 'q' is empty; every row needs its q"):
        from_frame(tmp_path / "t.jsonl")
    df.to_parquet(tmp_path / "t.parquet")
    with pytest.raises(EvalframeError, match=r"t\.parquet, row 2: column 'q' is empty"):
        from_frame(tmp_path / "t.parquet")


def test_a_question_twice_is_refused_naming_both_rows():
    df = table()
    df.loc[2, "q"] = "Capital of Germany?"
    with pytest.raises(EvalframeError, match=r"row 1 and row 3 hold the same question 'Capital of Germany\?'"):
        from_frame(df)


@pytest.mark.parametrize("cell, expected", [
    ("['a', 'b']", ["a", "b"]), ('["a"]', ["a"]), ("a", ["a"]), ("", []), ("[]", []), (None, None), (math.nan, None),
    (("a",), ["a"]), (np.array(["a", "b"]), ["a", "b"]), ("[1, 2]", [1, 2]),
])
def test_list_cells(cell, expected):
    assert list_cell(cell, "row 1", "c") == expected


def test_number_cells():
    assert [number_cell(v, "row 1", "c") for v in (1, 0.5, "0.25", "", None, math.nan, np.float32(2))] == \
        [1.0, 0.5, 0.25, None, None, None, 2.0]
    with pytest.raises(EvalframeError, match=r"row 1: column 'c' must hold a number; got 'high'"):
        number_cell("high", "row 1", "c")
    with pytest.raises(EvalframeError, match=r"row 1: column 'c' must hold a number; got True"):
        number_cell(True, "row 1", "c")


def test_read_table_refuses_repeated_columns(tmp_path):
    (tmp_path / "t.csv").write_text("q,q\na,b\n", encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"t\.csv:1: the column\(s\) \['q'\] appear twice in the header"):
        read_table(tmp_path / "t.csv")
    (tmp_path / "t.csv").write_text("q,a\nx\n", encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"t\.csv:2: 1 cells, but the header names 2 columns"):
        read_table(tmp_path / "t.csv")


def test_meta_times_are_iso_text_and_other_objects_are_named():
    df = table()
    df["when"] = pd.to_datetime(["2026-01-01 00:00", "2026-01-02 10:30", None])
    meta = from_frame(df, meta=["when"])["Generator"]["meta"].tolist()
    assert meta == ['{"when": "2026-01-01T00:00:00"}', '{"when": "2026-01-02T10:30:00"}', None]  # NaT: no field
    df["info"] = [{"tags": {"a"}}, None, None]
    with pytest.raises(EvalframeError, match=r"row 1, meta must be JSON data .*Object of type set is not JSON serializable"):
        from_frame(df, meta="info")


def test_an_empty_table_is_refused(tmp_path):
    (tmp_path / "t.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"t\.jsonl holds no row"):
        EvaluationResult.from_frame(tmp_path / "t.jsonl")
    with pytest.raises(EvalframeError, match=r"^df holds no row"):
        EvaluationResult.from_frame(table().iloc[:0], **COLUMNS)
    (tmp_path / "t.csv").write_text("", encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"t\.csv is empty; a CSV table needs a header line and rows"):
        EvaluationResult.from_frame(tmp_path / "t.csv")
    with pytest.raises(EvalframeError, match=r"holds no sample"):
        EvaluationResult.from_ragas([])


# ------------------------------------------------------------------------------------ the extra columns (issue 36)
def extras_table() -> pd.DataFrame:
    """Two questions, the first's gold at rank 1, the second's not retrieved; three columns no parameter names."""
    return pd.DataFrame({"q": ["Capital of Germany?", "Capital of France?"], "ids": [["berlin"], ["lyon"]],
                         "gold": [["berlin"], ["paris"]], "topic": ["geography", "travel"], "judge": [0.5, 1.0],
                         "sample_id": [101, 102]})


EXTRAS = {"question": "q", "retrieved_ids": "ids", "gold_ids": "gold"}
RULE = ("A score column holds numbers (or their text) in at least half of its rows and is not named like an id ('id', "
        "'..._id', 'sku', 'year', ...); name a column in scores=[...] to read it as a score (a cell that is no number "
        "is then refused, named), or the meta fields in meta=[...] (then no warning).")


def read_warned(df: Any, **options: Any) -> tuple[EvaluationResult, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = EvaluationResult.from_frame(df, progress=False, **{**EXTRAS, **options})
    return result, [str(warning.message) for warning in caught]


def test_the_extra_columns_follow_the_rule_of_every_source():
    result, told = read_warned(extras_table())
    assert list(result.scores) == ["judge"]
    assert result.calculate_metrics()["Retriever"]["judge"] == 0.75  # (0.5 + 1.0) / 2, the retriever's: no answers
    assert result["Retriever"]["meta"].drop_duplicates().tolist() == ['{"sample_id": 101, "topic": "geography"}',
                                                                      '{"sample_id": 102, "topic": "travel"}']
    sliced = result.sliced_metrics(by="meta.topic")
    assert sliced.loc[("Retriever", "geography"), "mrr"] == 1.0 and sliced.loc[("Retriever", "travel"), "mrr"] == 0.0
    assert sliced.loc[("Retriever", "travel"), "judge"] == 1.0
    assert told == ["from_frame: columns that give no score: 'topic' (a meta field: texts, not numbers), 'sample_id' "
                    "(a meta field: an id's name: its numbers are no score). " + RULE]


def test_a_file_s_extra_columns_are_named_by_its_path(tmp_path):
    extras_table().to_csv(tmp_path / "t.csv", index=False)  # every cell text: "0.5", "101"
    result, told = read_warned(tmp_path / "t.csv")
    assert result.calculate_metrics()["Retriever"]["judge"] == 0.75
    assert result["Retriever"]["meta"].iloc[0] == '{"sample_id": "101", "topic": "geography"}'
    assert told == [f"{tmp_path / 't.csv'}: columns that give no score: 'topic' (a meta field: texts, not numbers), "
                    "'sample_id' (a meta field: an id's name: its numbers are no score). " + RULE]


def test_named_meta_or_scores_choose_as_from_ragas_does():
    # meta=[...]: only those are meta fields; the other extra columns of numbers are still scores, and the warning
    # names what is left out
    result, told = read_warned(extras_table(), meta=["topic"])
    assert list(result.scores) == ["judge"] and result.calculate_metrics()["Retriever"]["judge"] == 0.75
    assert result["Retriever"]["meta"].tolist() == ['{"topic": "geography"}', '{"topic": "travel"}']
    assert told == ["from_frame: columns that give no score: 'sample_id' (left out: an id's name: its numbers are no "
                    "score). " + RULE]
    # scores=[...]: only those are scores; the other extra columns are still meta fields by the rule; no warning
    result, told = read_warned(extras_table().assign(latency=[3.0, 4.0]), scores=["judge"])
    assert list(result.scores) == ["judge"] and told == []
    assert result["Retriever"]["meta"].iloc[0] == '{"sample_id": 101, "topic": "geography"}'  # latency: a number
    # both named: only those; none: nothing, with no warning
    result, told = read_warned(extras_table(), scores=[], meta=[])
    assert result.scores == {} and "meta" not in result["Retriever"] and told == []
    # meta= a column of dicts: the meta; the other columns of numbers are still scores
    result, told = read_warned(extras_table().assign(info=[{"source": "faq"}, {"source": "chat"}]), meta="info")
    assert list(result.scores) == ["judge"]
    assert result["Retriever"]["meta"].tolist() == ['{"source": "faq"}', '{"source": "chat"}']
    assert told == ["from_frame: columns that give no score: 'topic' (left out: texts, not numbers), 'sample_id' "
                    "(left out: an id's name: its numbers are no score). " + RULE]


def test_from_ragas_reads_the_same_extra_columns_the_same_way():
    df = extras_table()
    ragas = df.rename(columns={"q": "user_input", "ids": "retrieved_context_ids", "gold": "reference_context_ids"})
    for options in ({}, {"meta": ["topic"]}, {"scores": ["judge"]}):
        framed, told = read_warned(df, **options)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from_ragas = EvaluationResult.from_ragas(ragas, progress=False, **options)
        assert list(framed.scores) == list(from_ragas.scores) == ["judge"]
        assert framed["Retriever"]["meta"].tolist() == from_ragas["Retriever"]["meta"].tolist()
        assert told == [str(w.message).replace("from_ragas", "from_frame", 1) for w in caught]


def test_an_extra_score_column_whose_name_names_no_score_is_refused():
    with pytest.raises(InvalidParameterError, match=r"^from_frame, column 'my score': read as a score, but .*; or name "
                                                    r"it in meta=\[\.\.\.\] to keep it as a meta field"):
        read_warned(extras_table().rename(columns={"judge": "my score"}))
    result, _ = read_warned(extras_table().rename(columns={"judge": "my score"}), meta=["my score"])
    assert result.scores == {} and result["Retriever"]["meta"].iloc[0] == '{"my score": 0.5}'
