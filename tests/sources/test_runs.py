"""Reading runs files (evalframe.sources.runs): byte-order marks, JSON arrays, the no-answer gold forms."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from evalframe.sources.runs import query_lines, read_runs
from evalframe.errors import InvalidParameterError, LoadError

RUNS = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"


def records() -> list[dict]:
    return [json.loads(text) for text in RUNS.read_text(encoding="utf-8").splitlines() if text.strip()]


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + RUNS.read_bytes())
    labels, outputs = read_runs(path)
    expected_labels, expected_outputs = read_runs(RUNS)
    assert [label.query for label in labels] == [label.query for label in expected_labels]
    assert [label.answers for label in labels] == [label.answers for label in expected_labels]
    assert outputs == expected_outputs


@pytest.mark.parametrize("text", [
    json.dumps(records(), indent=2),  # "[" alone on the first line
    json.dumps(records(), indent=None).replace("}, {", "},\n{"),  # "[{..." over several lines
    "\n\n" + json.dumps(records(), indent=4),  # after blank lines
], ids=["indented", "wrapped", "after blank lines"])
def test_a_multi_line_json_array_is_named(tmp_path, text):
    path = tmp_path / "runs.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError, match=r"runs\.json:\d: the file is a JSON array, not JSON Lines: .*one JSON object per line"):
        read_runs(path)


def test_a_one_line_json_array_and_a_pretty_printed_object_are_named(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(records()), encoding="utf-8")
    with pytest.raises(LoadError, match=r"runs\.json:1: each line must be a JSON object; got a list\. The file is a JSON array, "
                                        r"not JSON Lines"):
        read_runs(path)
    path.write_text(json.dumps(records()[0], indent=2), encoding="utf-8")
    with pytest.raises(LoadError, match=r"runs\.json:1: the file is one JSON object over several lines, not JSON Lines"):
        read_runs(path)


# ------------------------------------------------------------------ a no-answer question without a gold document
def no_answer_line(gold: dict) -> dict:
    line = records()[2]  # "Who won the 2030 World Cup?", a no-answer question
    return {**line, "gold": gold}


def build(tmp_path, gold: dict):
    from evalframe import EvaluationResult

    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [records()[0], no_answer_line(gold)]) + "\n", encoding="utf-8")
    return EvaluationResult.from_runs(*read_runs(path), progress=False)


@pytest.mark.parametrize("gold", [{}, {"answers": []}, {"answers": [""]}, {"answers": None}, {"answers": [None]},
                                  {"document_ids": None, "answers": [""]}, {"document_ids": [], "answers": [""]},
                                  {"document_ids": [], "contexts": [], "answers": [""]}],
                         ids=["empty", "no answers", "one empty answer", "answers null", "answer null", "ids null",
                              "ids empty", "ids and contexts empty"])
def test_the_natural_no_answer_forms_build_what_the_explicit_one_builds(tmp_path, gold):
    import pandas as pd

    expected = build(tmp_path, {"document_ids": [""], "answers": [""]})
    result = build(tmp_path, gold)
    assert list(result) == list(expected)
    for node in expected:
        pd.testing.assert_frame_equal(result[node], expected[node])
    assert result.calculate_metrics() == expected.calculate_metrics()


def test_two_empty_answers_are_two_no_answer_labels(tmp_path):
    import pandas as pd

    expected = build(tmp_path, {"document_ids": ["", ""], "answers": ["", ""]})
    result = build(tmp_path, {"answers": ["", ""]})
    for node in expected:
        pd.testing.assert_frame_equal(result[node], expected[node])


def test_an_answer_with_text_still_needs_its_document(tmp_path):
    with pytest.raises(LoadError, match=r"runs\.jsonl:2: 'gold' needs 'document_ids' or 'contexts' .*'Brazil'.*"
                                        r"only a no-answer question may leave them out"):
        build(tmp_path, {"answers": ["Brazil"]})


def test_empty_gold_lists_are_still_a_query_without_gold(tmp_path):
    # unchanged: empty document lists mean "no gold label" (left out by from_runs with a warning), not a no-answer
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(no_answer_line({"document_ids": [], "answers": []})) + "\n", encoding="utf-8")
    labels, _ = read_runs(path)
    assert labels == [None]


# ------------------------------------------------------------------ numbers Python does not convert, bytes not UTF-8
def good_line(score: str = "0.5") -> bytes:
    return ('{"query": "q", "gold": {"document_ids": ["a"]}, "nodes": {"R": {"documents": '
            '[{"id": "a", "content": "x", "score": ' + score + '}]}}}\n').encode()


def test_an_integer_longer_than_python_converts_is_named_by_line_and_field(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(good_line() + good_line("-" + "7" * 5001))
    with pytest.raises(LoadError, match=r"runs\.jsonl:2: field \.nodes\.R\.documents\[0\]\.score holds an integer of "
                                        r"5,001 digits, longer than the 4,300 digits Python converts.*string"):
        read_runs(path)


def test_flatten_names_the_long_integer_instead_of_an_internal_error(tmp_path, capsys):
    from evalframe.present.cli import main

    path = tmp_path / "runs.jsonl"
    path.write_bytes(good_line("9" * 5001))
    assert main(["flatten", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert f"error: {path}:1: field .nodes.R.documents[0].score holds an integer of 5,001 digits" in err
    assert not (tmp_path / "out").exists()


def test_bytes_that_are_not_utf8_are_named_by_line_and_byte(tmp_path):
    first = good_line() * 2000  # beyond the text decoder's first block: its offsets are within a block
    bad = b'{"query": "caf\xe9"}\n'  # Latin-1
    path = tmp_path / "runs.jsonl"
    path.write_bytes(first + bad + good_line())
    column = bad.index(b"\xe9") + 1  # 14
    for read in (read_runs, query_lines):  # query_lines: the Dask build counts a shard's lines first
        with pytest.raises(LoadError, match=rf"runs\.jsonl:2001: not UTF-8 text: byte {column} of the line \(byte "
                                            rf"offset {len(first) + column - 1} in the file\), b'\\xe9'"):
            read(path)


# ------------------------------------------------------------------ documents without an id
def runs_line(n_documents: int, with_ids: bool, gold: dict | None = None) -> str:
    documents = [{"content": f"passage {j}", **({"id": f"d{j}"} if with_ids else {})} for j in range(n_documents)]
    return json.dumps({"query": f"q{n_documents}{with_ids}", "gold": gold or {"document_ids": ["d1"]},
                       "nodes": {"R": {"documents": documents}}}) + "\n"


def test_documents_without_ids_are_warned_about_once_with_the_first_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(runs_line(500, True) + runs_line(1000, False) + runs_line(1000, False), encoding="utf-8")
    pattern = (r"2,000 of 2,500 retrieved documents have no 'id' or an empty one \(the first: \S*runs\.jsonl:2, node 'R', "
               r"'documents', document 1\); one without an id gets the hash of its content as id, one with '' keeps it, "
               r"and neither equals a gold document id .*"
               r"document_id scopes .*Give every document its id .*document_scope='context'")
    with pytest.warns(UserWarning, match=pattern) as caught:
        read_runs(path)
    assert len(caught) == 1
    assert caught[0].filename == __file__  # the user's call, not evalframe's line


def test_no_warning_when_every_document_has_an_id_or_the_gold_has_none(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(runs_line(3, True) + runs_line(2, True), encoding="utf-8")
    # contexts only: the gold documents get content hashes too, so document ids compare the texts
    contexts = tmp_path / "contexts.jsonl"
    contexts.write_text(runs_line(3, False, gold={"contexts": ["passage 1"]}), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_runs(path)
        labels, outputs = read_runs(contexts)
    assert labels[0].document_ids == [outputs["R"]["documents"][0][1].id]  # the hash of "passage 1", both sides


@pytest.mark.parametrize("call", [read_runs, query_lines], ids=["read_runs", "query_lines"])
def test_a_runs_path_with_a_nul_character_is_named(call):
    # was: "runs file /tmp/r<NUL>.jsonl does not exist" (read_runs), a bare ValueError (query_lines)
    with pytest.raises(InvalidParameterError, match=r"^path must be a path without a NUL character") as caught:
        call("runs\x00.jsonl")
    assert caught.value.parameter == "path"
