"""The rules every importer (from_frame, from_ragas, from_haystack2, from_llamaindex) applies alike (issue 35, round
4): a document twice in one ranking (item 7), a row that cannot be a query (item 8), JSON the reader cannot hold
(item 13), a question asked twice under two ids (item 19)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

from evalframe import EvaluationResult, compare, compare_report
from evalframe.errors import EvalframeError, InvalidParameterError, LoadError
from evalframe.present.cli import main
from evalframe.schema import Skipped

NO_LABEL = "no label: no gold document and no gold answer"


def run(capsys, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(capsys, *argv: Any) -> str:
    """The CLI's one ``error:`` line (exit 1, no traceback)."""
    code, out, err = run(capsys, *argv)
    assert code == 1, (out, err)
    assert "Traceback" not in err + out
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    return errors[0]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ item 7: duplicates
# The review's example: q1 retrieves d1 twice (gold d1), q2 retrieves d2, d3 (gold d3).
# Each document once (duplicates="first": q1's ranking is [d1]):
#   map:  q1 AP = 1/1 = 1;  q2 AP = (1/2) / 1 = 0.5;                     mean (1 + 0.5) / 2 = 0.75
#   ndcg: q1 DCG = 1, IDCG = 1 -> 1;  q2 DCG = 1/log2(3) = 0.63093, IDCG 1;  mean (1 + 0.63093) / 2 = 0.81546
# Counted twice (the old reading): q1 AP = (1/1 + 2/2) / 1 = 2.0 and DCG = 1 + 1/log2(3) -> map 1.25, ndcg 1.1309.
MAP_ONCE = (1 + 0.5) / 2
NDCG_ONCE = (1 + 1 / math.log2(3)) / 2

RAGAS_ROWS = [
    {"user_input": "q1", "retrieved_contexts": ["A", "A"], "retrieved_context_ids": ["d1", "d1"],
     "reference_context_ids": ["d1"]},
    {"user_input": "q2", "retrieved_contexts": ["B", "C"], "retrieved_context_ids": ["d2", "d3"],
     "reference_context_ids": ["d3"]},
]
LLAMAINDEX_ROWS = [{"query": "q1", "expected_ids": ["d1"], "retrieved_ids": ["d1", "d1"]},
                   {"query": "q2", "expected_ids": ["d3"], "retrieved_ids": ["d2", "d3"]}]
HAYSTACK2_RUN = {"inputs": {"question": ["q1", "q2"],
                            "retrieved_documents": [[{"id": "d1", "content": "A"}, {"id": "d1", "content": "A"}],
                                                    [{"id": "d2", "content": "B"}, {"id": "d3", "content": "C"}]],
                            "ground_truth_document_ids": [["d1"], ["d3"]]},
                 "results": {}}
FRAME = pd.DataFrame({"q": ["q1", "q2"], "ids": [["d1", "d1"], ["d2", "d3"]], "gold": [["d1"], ["d3"]]})

BUILDERS: dict[str, tuple[Callable[..., EvaluationResult], str]] = {
    "ragas": (lambda **kw: EvaluationResult.from_ragas(RAGAS_ROWS, progress=False, **kw),
              r"^row 1: retrieved_contexts\[2\] is document 'd1' again \(first at retrieved_contexts\[1\]\); a document "
              r"twice in one ranking would be counted twice .*duplicates='first' \(--duplicates first\)"),
    "frame": (lambda **kw: EvaluationResult.from_frame(FRAME, question="q", retrieved_ids="ids", gold_ids="gold",
                                                      progress=False, **kw),
              r"^row 1: ids\[2\] is document 'd1' again \(first at ids\[1\]\)"),
    "llamaindex": (lambda **kw: EvaluationResult.from_llamaindex(LLAMAINDEX_ROWS, progress=False, **kw),
                   r"^results\[0\]: retrieved_ids\[2\] is document 'd1' again \(first at retrieved_ids\[1\]\)"),
    "haystack2": (lambda **kw: EvaluationResult.from_haystack2(HAYSTACK2_RUN, progress=False, **kw),
                  r"^inputs\[0\]: retrieved_documents\[2\] is document 'd1' again \(first at retrieved_documents\[1\]\)"),
}


@pytest.mark.parametrize("source", list(BUILDERS))
def test_a_document_twice_in_a_ranking_is_refused_naming_the_row_and_the_id(source):
    build, message = BUILDERS[source]
    with pytest.raises(EvalframeError, match=message):
        build()


@pytest.mark.parametrize("source", list(BUILDERS))
def test_duplicates_first_keeps_each_document_once_and_gives_the_hand_worked_map_and_ndcg(source):
    build, _ = BUILDERS[source]
    result = build(duplicates="first")
    metrics = result.calculate_metrics()["Retriever"]
    assert metrics["map"] == pytest.approx(MAP_ONCE)  # 0.75 (counted twice: 1.25)
    assert metrics["ndcg"] == pytest.approx(NDCG_ONCE)  # 0.8155 (counted twice: 1.1309)
    frame = result["Retriever"]
    assert frame["document_id"].tolist() == ["d1", "d2", "d3"]
    assert frame["rank"].tolist() == [1, 1, 2]


def test_duplicates_first_renumbers_the_ranks_below_as_to_trec_run_does():
    rows = [{"user_input": "q", "retrieved_contexts": ["A", "B", "A", "C"], "retrieved_context_ids": ["a", "b", "a", "c"],
             "reference_context_ids": ["c"]}]
    frame = EvaluationResult.from_ragas(rows, duplicates="first", progress=False)["Retriever"]
    assert frame["document_id"].tolist() == ["a", "b", "c"]
    assert frame["rank"].tolist() == [1, 2, 3]
    # c is relevant at rank 3 once the repeat is gone (it was at rank 4): mrr 1/3
    assert EvaluationResult.from_ragas(rows, duplicates="first", progress=False).calculate_metrics()[
        "Retriever"]["mrr"] == pytest.approx(1 / 3)


def test_the_same_passage_twice_without_ids_is_a_duplicate_too():
    # without ids a context is named by its text (its hash is its id): the same text twice is one document twice
    rows = [{"user_input": "q", "retrieved_contexts": ["Berlin.", "Bonn.", "Berlin."], "reference": "Berlin"}]
    with pytest.raises(EvalframeError, match=r"^row 1: retrieved_contexts\[3\] holds the same text as "
                                             r"retrieved_contexts\[1\], 'Berlin\.' \(a document without an id is named "
                                             r"by its text\)"):
        EvaluationResult.from_ragas(rows, progress=False)
    frame = EvaluationResult.from_ragas(rows, duplicates="first", progress=False)["Retriever"]
    assert frame["context"].tolist() == ["Berlin.", "Bonn."]


def test_haystack2_compares_by_its_comparison_field_so_two_chunks_of_one_file_are_one_document_twice():
    run = {"inputs": {"question": ["q"], "retrieved_documents": [[
        {"id": "c1", "content": "part one", "meta": {"file": "f1"}},
        {"id": "c2", "content": "part two", "meta": {"file": "f1"}}]],
        "ground_truth_documents": [[{"id": "g", "content": "gold", "meta": {"file": "f1"}}]]}, "results": {}}
    with pytest.raises(EvalframeError, match=r"^inputs\[0\]: retrieved_documents\[2\] is document 'f1' again"):
        EvaluationResult.from_haystack2(run, document_comparison_field="meta.file", progress=False)
    # once: recall 1, map 1 (counted twice, map was 2.0)
    metrics = EvaluationResult.from_haystack2(run, document_comparison_field="meta.file", duplicates="first",
                                              progress=False).calculate_metrics()["Retriever"]
    assert metrics["map"] == 1.0


def test_duplicates_takes_error_or_first():
    with pytest.raises(InvalidParameterError, match=r"duplicates must be one of \['error', 'first'\]; got 'last'"):
        EvaluationResult.from_ragas(RAGAS_ROWS, duplicates="last", progress=False)


# ------------------------------------------------------------------------------------------------ item 8: invalid rows
def test_a_ragas_row_with_a_string_for_retrieved_contexts_is_refused_naming_the_line(tmp_path):
    path = write_jsonl(tmp_path / "ragas.jsonl", [
        {"user_input": "q2", "retrieved_contexts": ["b"], "reference": "b"},
        {"user_input": "q1", "retrieved_contexts": "one whole passage", "response": "x"}])
    with pytest.raises(EvalframeError, match=r"ragas\.jsonl:2: retrieved_contexts must be a list \(one entry per "
                                             r"document\); got a string 'one whole passage'"):
        EvaluationResult.from_ragas(path, progress=False)


def test_a_csv_file_has_no_lists_so_a_plain_text_there_is_still_one_context(tmp_path):
    path = tmp_path / "ragas.csv"
    path.write_text('user_input,retrieved_contexts,reference\nq,Berlin is the capital.,Berlin\n', encoding="utf-8")
    frame = EvaluationResult.from_ragas(path, progress=False)["Retriever"]
    assert frame["context"].tolist() == ["Berlin is the capital."]


def no_label_file(tmp_path: Path) -> Path:
    # line 2 has neither a reference nor reference contexts; lines 1 and 3: the gold at rank 1 and at rank 2
    return write_jsonl(tmp_path / "ragas.jsonl", [
        {"user_input": "q1", "retrieved_contexts": ["Berlin."], "reference": "Berlin"},
        {"user_input": "q2", "retrieved_contexts": ["Paris."], "response": "Paris"},
        {"user_input": "q3", "retrieved_contexts": ["Rome.", "Bonn."], "reference": "Bonn"}])


def test_a_row_without_any_gold_is_refused_naming_the_line(tmp_path):
    path = no_label_file(tmp_path)
    with pytest.raises(EvalframeError, match=r"ragas\.jsonl:2 has no label: no reference_context_ids, "
                                             r"reference_contexts or reference\. .*on_invalid='skip' \(--skip-invalid\)"):
        EvaluationResult.from_ragas(path, progress=False)


def test_skipped_rows_are_recorded_kept_by_save_and_load_and_every_mean_is_over_the_others(tmp_path):
    path = no_label_file(tmp_path)
    result = EvaluationResult.from_ragas(path, on_invalid="skip", progress=False)
    assert result.skipped == (Skipped(f"{path}:2", NO_LABEL),)
    assert result.calculate_metrics()["Retriever"]["mrr"] == (1 + 1 / 2) / 2  # q1 rank 1, q3 rank 2
    for storage in ("csv", "parquet"):
        loaded = EvaluationResult.load(result.save(tmp_path / storage, format=storage))
        assert loaded.skipped == result.skipped
    partitioned = EvaluationResult.load(result.save(tmp_path / "parts", format="parquet", partitions=2))
    assert partitioned.skipped == result.skipped
    assert json.loads((tmp_path / "csv" / "evalframe.json").read_text())["skipped"] == [
        {"where": f"{path}:2", "reason": NO_LABEL}]


@pytest.mark.parametrize("source, build", [
    ("frame", lambda **kw: EvaluationResult.from_frame(
        [{"q": "a", "ids": ["d1"], "gold": ["d1"]}, {"q": "b", "ids": ["d1"], "gold": None}], question="q",
        retrieved_ids="ids", gold_ids="gold", progress=False, **kw)),
    ("llamaindex", lambda **kw: EvaluationResult.from_llamaindex(
        [{"query": "a", "expected_ids": ["d1"], "retrieved_ids": ["d1"]},
         {"query": "b", "expected_ids": [], "retrieved_ids": ["d1"]}], progress=False, **kw)),
    ("haystack2", lambda **kw: EvaluationResult.from_haystack2(
        {"inputs": {"question": ["a", "b"], "retrieved_documents": [[{"id": "d1", "content": "x"}]] * 2,
                    "ground_truth_document_ids": [["d1"], None]}, "results": {}}, progress=False, **kw)),
])
def test_every_importer_refuses_or_skips_a_row_without_gold(source, build):
    where = {"frame": "row 2", "llamaindex": r"results\[1\]", "haystack2": r"inputs\[1\]"}[source]
    with pytest.raises(EvalframeError, match=rf"^{where} has no label"):
        build()
    result = build(on_invalid="skip")
    assert [s.reason for s in result.skipped] == [NO_LABEL]
    assert result["Retriever"]["query"].tolist() == ["a"]


def test_on_invalid_takes_raise_or_skip_and_a_source_of_only_invalid_rows_is_refused():
    with pytest.raises(InvalidParameterError, match=r"on_invalid must be one of \['raise', 'skip'\]; got 'warn'"):
        EvaluationResult.from_ragas(RAGAS_ROWS, on_invalid="warn", progress=False)
    with pytest.raises(EvalframeError, match=r"no record of dataset_or_path has a label"):
        EvaluationResult.from_ragas([{"user_input": "q", "retrieved_contexts": ["x"]}], on_invalid="skip",
                                    progress=False)


def test_the_reports_say_how_many_queries_were_left_out_and_why(tmp_path):
    path = no_label_file(tmp_path)
    result = EvaluationResult.from_ragas(path, on_invalid="skip", progress=False)
    sentence = (f"1 query of the source was left out of the result (each mean is over the others): 1 with {NO_LABEL} "
                f"({path}:2).")
    report = result.report(charts=False)
    assert f"[left out] {sentence}" in report.text
    assert sentence in report.render("markdown")
    assert sentence in report.html
    assert json.loads(report.render("json"))["skipped"] == sentence
    clean = EvaluationResult.from_ragas(path, on_invalid="skip", progress=False)
    clean.skipped = ()
    assert "left out" not in clean.report(charts=False).text
    both = compare_report({"a": result, "b": clean})
    assert f"a: {sentence}" in both.model.includes
    assert not any(line.startswith("b: ") for line in both.model.includes)
    assert f"a: {sentence}" in both.text and f"a: {sentence}" in both.markdown


def test_flatten_and_report_from_a_file_skip_only_when_asked(tmp_path, capsys):
    path = no_label_file(tmp_path)
    line = one_error_line(capsys, "flatten", "--from", "ragas", path, "-o", tmp_path / "out")
    assert re.match(rf"error: {re.escape(str(path))}:2 has no label", line), line
    code, out, err = run(capsys, "flatten", "--from", "ragas", path, "-o", tmp_path / "out", "--skip-invalid")
    assert code == 0, err
    assert out.splitlines()[1] == (f"1 query of the source was left out of the result (each mean is over the others): "
                                   f"1 with {NO_LABEL} ({path}:2).")
    code, out, _ = run(capsys, "report", tmp_path / "out")
    assert code == 0 and "[left out] 1 query of the source was left out" in out
    code, out, _ = run(capsys, "report", "--from", "ragas", path, path, "--skip-invalid", "--names", "a,b")
    assert code == 0 and "[includes] b: 1 query of the source was left out" in out
    code, out, err = run(capsys, "flatten", path, "-o", tmp_path / "detected", "--skip-invalid")  # a Ragas file: found
    assert code == 0 and out.startswith(f"wrote 2 queries (Retriever: 3 rows, Generator: 2 rows) from {path} (ragas)"), err
    line = one_error_line(capsys, "flatten", "--from", "runs", path, "-o", tmp_path / "runs", "--skip-invalid")
    assert line == "error: --skip-invalid is for the files of --from ragas, haystack2, llamaindex or frame, not for --from runs."


def test_every_command_on_a_folder_with_left_out_queries_says_so(tmp_path, capsys):
    """The review of item 8: evalframe metrics, worst and compare printed means over fewer queries without a word."""
    path = no_label_file(tmp_path)
    assert run(capsys, "flatten", "--from", "ragas", path, "-o", tmp_path / "out", "--skip-invalid")[0] == 0
    said = (f"warning: 1 query of the source was left out of the result (each mean is over the others): 1 with "
            f"{NO_LABEL} ({path}:2).")
    for argv in (["metrics", tmp_path / "out"], ["worst", tmp_path / "out", "--node", "Retriever"],
                 ["compare", tmp_path / "out", tmp_path / "out", "--node", "Retriever"],
                 ["metrics", tmp_path / "out", "--format", "json"]):
        code, out, err = run(capsys, *argv)
        assert code == 0 and said in err.splitlines(), (argv, err)


def test_a_damaged_skipped_entry_in_the_manifest_is_named_at_load(tmp_path):
    result = EvaluationResult.from_ragas(no_label_file(tmp_path), on_invalid="skip", progress=False)
    folder = result.save(tmp_path / "out")
    manifest = json.loads((folder / "evalframe.json").read_text())
    manifest["skipped"] = [{"where": 3}]
    (folder / "evalframe.json").write_text(json.dumps(manifest))
    with pytest.raises(LoadError, match=r"'skipped'\[0\] must be an object with the strings 'where' and 'reason'"):
        EvaluationResult.load(folder)


# ------------------------------------------------------------------------------------------------ item 13: JSON
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5001
GOOD_RAGAS = {"user_input": "q", "retrieved_contexts": ["a"], "reference": "a", "response": "a"}


def _line_with(value: str) -> str:
    return json.dumps(GOOD_RAGAS)[:-1] + ', "x": ' + value + "}"


FILES = [
    # (source, file name, text, the message, checked from its start)
    ("ragas", "r.jsonl", json.dumps(GOOD_RAGAS) + "\n" + _line_with(DEEP) + "\n",
     r"r\.jsonl:2: JSON nested too deeply to read \(100,001 levels"),
    ("ragas", "r.jsonl", _line_with(HUGE) + "\n", r"r\.jsonl:1: field \.x holds an integer of 5,001 digits, longer than "
                                                   r"the 4,300 digits Python converts"),
    ("ragas", "r.json", "[\n" + _line_with(DEEP) + "]", r"r\.json:2: JSON nested too deeply to read"),
    ("ragas", "r.json", "[\n" + _line_with(HUGE) + "]", r"r\.json:2: field \[0\]\.x holds an integer of 5,001 digits"),
    ("frame", "r.jsonl", _line_with(DEEP) + "\n", r"r\.jsonl:1: JSON nested too deeply to read"),
    ("haystack2", "h.json", '{"inputs":\n' + DEEP + "}", r"h\.json:2: JSON nested too deeply to read"),
    ("haystack2", "h.json", '{"inputs": {"question": [' + HUGE + "]}}",
     r"h\.json:1: field \.inputs\.question\[0\] holds an integer of 5,001 digits"),
    ("llamaindex", "l.jsonl", DEEP + "\n", r"l\.jsonl:1: JSON nested too deeply to read \(100,000 levels"),
    ("llamaindex", "l.json", '[{"query": ' + HUGE + "}]", r"l\.json:1: field \[0\]\.query holds an integer of 5,001"),
]


@pytest.mark.parametrize("source, name, text, message", FILES, ids=[f"{f[0]}-{f[1]}-{i}" for i, f in enumerate(FILES)])
def test_deep_json_and_huge_integers_are_named_by_file_and_line(tmp_path, capsys, source, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    build = {"ragas": EvaluationResult.from_ragas, "frame": EvaluationResult.from_frame,
             "haystack2": EvaluationResult.from_haystack2, "llamaindex": EvaluationResult.from_llamaindex}[source]
    with pytest.raises(LoadError, match=message):
        build(path, progress=False)
    line = one_error_line(capsys, "flatten", "--from", source, path, "-o", tmp_path / "out")
    assert re.search(message, line), line


def test_a_csv_cell_nested_too_deeply_is_named(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(f'user_input,retrieved_contexts,reference\nq,"{DEEP}",a\n', encoding="utf-8")
    with pytest.raises(EvalframeError, match=r"r\.csv:2: column 'retrieved_contexts' holds a value nested too deeply"):
        EvaluationResult.from_ragas(path, progress=False)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_objects_nested_too_deeply_in_memory_are_named_not_a_recursion_error():
    with pytest.raises(InvalidParameterError, match=r"^row 1, meta is nested too deeply to write as JSON"), \
            pytest.warns(UserWarning, match=r"columns that give no score: 'info' \(a meta field: objects"):
        EvaluationResult.from_ragas([{**GOOD_RAGAS, "info": nested(100_000)}], progress=False)
    answer: Any = "Berlin"
    for _ in range(100_000):
        answer = [answer]
    run = {"inputs": {"question": ["q"], "predicted_answer": [answer], "ground_truth_answer": ["Berlin"]}, "results": {}}
    with pytest.raises(EvalframeError, match=r"^inputs\[0\]: predicted_answer\[0\] must be an answer .* got a list "
                                             r"inside the list"):
        EvaluationResult.from_haystack2(run, progress=False)


# ------------------------------------------------------------------------------------------------ item 19: ids
def warranty_set(tmp_path: Path, name: str, contexts: tuple[list[str], list[str]], ids: bool = True) -> Path:
    """One question asked about two products: the same text, two ids, two gold documents."""
    rows = [{"id": "s-phone", "user_input": "How long is the warranty?", "retrieved_contexts": contexts[0],
             "retrieved_context_ids": contexts[0], "reference_context_ids": ["phone"], "reference": "two years",
             "response": "two years"},
            {"id": "s-laptop", "user_input": "How long is the warranty?", "retrieved_contexts": contexts[1],
             "retrieved_context_ids": contexts[1], "reference_context_ids": ["laptop"], "reference": "one year",
             "response": "two years"}]
    if not ids:
        rows = [{k: v for k, v in row.items() if k != "id"} for row in rows]
    return write_jsonl(tmp_path / name, rows)


def test_the_same_question_twice_is_refused_with_the_hint_naming_the_id_column(tmp_path, capsys):
    path = warranty_set(tmp_path, "a.jsonl", (["phone"], ["laptop"]))
    message = (r"a\.jsonl:1 and .*a\.jsonl:2 hold the same question 'How long is the warranty\?'.* or key the queries "
               r"by a column of ids \(id_column=, --id-column\): the table has a column 'id', id_column='id' "
               r"\(--id-column id\)")
    with pytest.raises(EvalframeError, match=message):
        EvaluationResult.from_ragas(path, progress=False)
    bare = warranty_set(tmp_path, "b.jsonl", (["phone"], ["laptop"]), ids=False)
    with pytest.raises(EvalframeError, match=r"or key the queries by a column of ids \(id_column=, --id-column\)\.$"):
        EvaluationResult.from_ragas(bare, progress=False)
    assert re.search(message, one_error_line(capsys, "flatten", "--from", "ragas", path, "-o", tmp_path / "out"))


def test_an_id_column_makes_two_queries_of_one_question_kept_through_save_and_load(tmp_path):
    path = warranty_set(tmp_path, "a.jsonl", (["laptop", "phone"], ["laptop"]))
    result = EvaluationResult.from_ragas(path, id_column="id", progress=False)
    table = result.query_metrics("Retriever")
    assert table["mrr"].to_dict() == {"s-phone": 0.5, "s-laptop": 1.0}  # phone at rank 2, laptop at rank 1
    assert "id" not in result["Generator"].get("meta", pd.Series(dtype=object)).dropna().str.cat()  # not a meta field
    assert result.calculate_metrics()["Generator"]["exact_match"] == 0.5  # "two years" right once
    loaded = EvaluationResult.load(result.save(tmp_path / "out"))
    assert loaded.query_metrics("Retriever")["mrr"].to_dict() == {"s-phone": 0.5, "s-laptop": 1.0}


def test_two_runs_keyed_by_id_are_paired_by_id(tmp_path):
    a = EvaluationResult.from_ragas(warranty_set(tmp_path, "a.jsonl", (["laptop", "phone"], ["laptop"])), id_column="id",
                                    progress=False)
    # run b lists the laptop question first: pairing by id, not by position or text
    rows = [json.loads(line) for line in warranty_set(tmp_path, "b.jsonl", (["phone"], ["x", "laptop"])).read_text()
            .splitlines()][::-1]
    b = EvaluationResult.from_ragas(write_jsonl(tmp_path / "b.jsonl", rows), id_column="id", progress=False)
    assert b.query_metrics("Retriever")["mrr"].to_dict() == {"s-laptop": 0.5, "s-phone": 1.0}
    table = compare(a, b, node="Retriever", metrics=["mrr"])
    # per query b - a: phone 1 - 0.5 = +0.5, laptop 0.5 - 1 = -0.5: mean delta 0, one win and one loss
    assert table.loc["mrr", "delta"] == 0.0
    assert (table.loc["mrr", "wins"], table.loc["mrr", "losses"]) == (1, 1)


def test_ids_are_checked(tmp_path, capsys):
    path = warranty_set(tmp_path, "a.jsonl", (["phone"], ["laptop"]))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    with pytest.raises(EvalframeError, match=r"row 1 and row 2 have the same id 's-phone'; an id names one query"):
        EvaluationResult.from_ragas([rows[0], {**rows[1], "id": "s-phone"}], id_column="id", progress=False)
    with pytest.raises(EvalframeError, match=r"row 2: column 'id' \(id_column\) is empty"):
        EvaluationResult.from_ragas([rows[0], {**rows[1], "id": None}], id_column="id", progress=False)
    with pytest.raises(EvalframeError, match=r"row 2: column 'id' \(id_column\) must hold a text or an integer id; got "
                                             r"1\.5"):
        EvaluationResult.from_ragas([rows[0], {**rows[1], "id": 1.5}], id_column="id", progress=False)
    with pytest.raises(InvalidParameterError, match=r"id_column='ids' names no column of .*Did you mean 'id'\?"):
        EvaluationResult.from_ragas(path, id_column="ids", progress=False)
    numbered = EvaluationResult.from_ragas([{**rows[0], "id": 7}, {**rows[1], "id": 8}], id_column="id", progress=False)
    assert sorted(numbered["Retriever"]["multilabel_id"].unique()) == ["7", "8"]
    line = one_error_line(capsys, "flatten", "--from", "llamaindex", path, "-o", tmp_path / "out", "--id-column", "id")
    assert line == "error: --id-column is for the files of --from ragas or frame, not for --from llamaindex."


def test_from_frame_and_the_command_take_an_id_column(tmp_path, capsys):
    path = warranty_set(tmp_path, "a.jsonl", (["laptop", "phone"], ["laptop"]))
    result = EvaluationResult.from_frame(path, question="user_input", retrieved_ids="retrieved_context_ids",
                                         gold_ids="reference_context_ids", id_column="id", progress=False)
    assert result.query_metrics("Retriever")["mrr"].to_dict() == {"s-phone": 0.5, "s-laptop": 1.0}
    code, out, err = run(capsys, "flatten", "--from", "ragas", path, "-o", tmp_path / "out", "--id-column", "id")
    assert code == 0, err
    assert out.startswith("wrote 2 queries ")
    loaded = EvaluationResult.load(tmp_path / "out")
    assert loaded.query_metrics("Retriever")["mrr"].to_dict() == {"s-phone": 0.5, "s-laptop": 1.0}
