"""The evalframe command: outputs parsed back and compared with the library; error paths and exit codes."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from evalframe.metrics.registry import TREC_MEASURES

from evalframe import EvaluationResult
from evalframe.present import cli
from evalframe.present.cli import main
from evalframe.present.parsers import comma_list, command_parsers, judgments_path, path_or_url
from tests.fixtures import load_benchmark

DEMO = Path(__file__).parents[2] / "evalframe" / "data" / "demo_result"
RUNS = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_metrics_json_equals_the_library(capsys):
    code, out, err = run(capsys, "metrics", str(DEMO), "--format", "json", "--top-k-retriever", "2")
    assert code == 0 and err == ""
    expected = EvaluationResult.load(DEMO).calculate_metrics(simulated_top_k_retriever=2)
    assert json.loads(out) == expected


def test_metrics_by_query_csv_equals_query_metrics(capsys):
    code, out, _ = run(capsys, "metrics", str(DEMO), "--node", "Retriever", "--by-query", "--format", "csv",
                       "--document-scope", "document_id")
    assert code == 0
    parsed = pd.read_csv(io.StringIO(out), index_col="multilabel_id")
    expected = EvaluationResult.load(DEMO).query_metrics("Retriever", document_scope="document_id")
    pd.testing.assert_frame_equal(parsed, expected, check_exact=False, rtol=1e-12)


def test_metrics_table_and_markdown(capsys):
    # the demo result is Haystack 1.x's golden run: tests/data/haystack1/metrics.json (document_id_or_answer,
    # integrated, no top-k) gives recall_single_hit 0.875, exact_match 0.75, f1 0.8333, 8 examples
    code, out, _ = run(capsys, "metrics", str(DEMO))
    assert code == 0 and "recall_single_hit" in out and "Retriever" in out and "0.8750" in out
    code, out, _ = run(capsys, "metrics", str(DEMO), "--node", "Reader", "--format", "markdown")
    assert out.splitlines()[0] == "| node | exact_match | f1 | num_examples_for_eval |"
    assert out.splitlines()[2] == "| Reader | 0.7500 | 0.8333 | 8 |"  # a count prints as an integer


def test_worst_json_equals_wrong_examples(capsys):
    code, out, _ = run(capsys, "worst", str(DEMO), "--node", "Reader", "-n", "10", "--metric", "exact_match",
                       "--format", "json")
    assert code == 0
    expected = EvaluationResult.load(DEMO).wrong_examples("Reader", n=10, answer_metric="exact_match")
    parsed = json.loads(out)
    assert [e["multilabel_id"] for e in parsed] == [e["multilabel_id"] for e in expected]
    assert [e["metrics"] for e in parsed] == [e["metrics"] for e in expected]
    code, out, _ = run(capsys, "worst", str(DEMO), "--node", "Retriever")
    assert code == 0 and "How tall is Mount Everest?" in out


def test_flatten_then_convert_then_metrics(tmp_path, capsys):
    code, out, _ = run(capsys, "flatten", str(RUNS), "-o", str(tmp_path / "run"))
    assert code == 0 and out.startswith("wrote 4 queries")
    code, out, _ = run(capsys, "convert", str(tmp_path / "run"), str(tmp_path / "pq"), "--to", "parquet")
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "pq").iterdir()) == ["Reader.parquet", "Retriever.parquet", "evalframe.json"]
    code, out, _ = run(capsys, "metrics", str(tmp_path / "pq"), "--format", "json")
    # the hand-worked metrics of the example runs file (tests/test_flatten.py)
    assert json.loads(out)["Retriever"]["map"] == pytest.approx((0.5 + 1 + 1 + 0) / 4)
    assert json.loads(out)["Reader"]["exact_match"] == pytest.approx(2 / 4)


def test_list_metrics(capsys):
    code, out, _ = run(capsys, "list-metrics")
    assert code == 0 and "recall_multi_hit" in out and "exact_match" in out


def test_list_metrics_prints_level_headline_and_bounds_of_every_metric(capsys):
    code, out, _ = run(capsys, "list-metrics")
    haystack, trec = out.split("\ntrec_eval measures", 1)
    lines = {line.split()[0]: line.split() for line in haystack.splitlines() if line.startswith("  ")}
    assert code == 0 and out.splitlines()[0] == "answer metrics:" and "document metrics:" in out.splitlines()
    assert list(lines) == ["exact_match", "f1", "sas", "recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg"]
    assert [name for name, words in lines.items() if "headline" in words] == ["f1", "recall_single_hit"]
    assert [name for name, words in lines.items() if "unbounded" in words] == ["sas", "map", "ndcg"]
    assert lines["precision"][:3] == ["precision", "document", "[0,"] and lines["f1"][1] == "answer"
    assert "Reciprocal rank of the first relevant document." in out
    # then trec_eval's measures, each with its parameters, bounds, description and trec_eval's names
    measures = {line.split()[0]: line for line in trec.splitlines() if line.startswith("  ")}
    assert list(measures) == list(TREC_MEASURES)  # every entry, in the registry's order; today's first:
    assert list(measures)[:8] == ["AP", "nDCG", "P", "R", "RR", "Success", "Rprec", "Bpref"]
    assert measures["P"].split()[:5] == ["P", "document", "@k,", "rel", "[0,"]
    assert measures["nDCG"].split()[:3] == ["nDCG", "document", "[@k]"]
    assert measures["AP"].endswith("trec_eval: map, map_cut.k; also: MAP, map[@k].")  # ir_measures', ranx's
    assert measures["RR"].endswith("trec_eval: recip_rank; also: MRR, mrr[@k].")
    # which way each is better, after the bounds (the registry's direction): higher, lower, neither for a count
    assert lines["f1"][5] == "higher" and lines["mrr"][4] == "higher"  # [0, 1] is two words
    assert measures["unj"].split()[5] == "lower" and measures["rbp_resid"].split()[4] == "lower"
    assert measures["NumRet"].split()[3] == "neither" and measures["NumRelRet"].split()[4] == "higher"
    assert out.splitlines()[-1].startswith("the column after the bounds: which way is better, higher, lower, or neither")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["metrics", "{tmp}/nowhere"], r"error: results folder .*nowhere does not exist\."),
        (["metrics", "{tmp}/empty"], r"error: results folder .*empty holds no \.csv file"),
        (["metrics", "{tmp}/notes"], r"error: .*notes\.csv is not an evaluation frame"),
        (["metrics", str(DEMO), "--node", "Raeder"],
         r"error: --node 'Raeder' is not in this EvaluationResult.*Did you mean 'Reader'\?"),
        (["metrics", str(DEMO), "--by-query"], r"error: --by-query needs --node \(one of \['Retriever', 'Reader'\]\)"),
        (["metrics", str(DEMO), "--top-k-retriever", "0"], r"error: --top-k-retriever must be -1"),
        (["worst", str(DEMO), "--node", "Reader", "--metric", "f2"], r"error: --metric must be one of"),
        (["flatten", "{tmp}/missing.jsonl", "-o", "{tmp}/out"], r"error: runs file .*missing\.jsonl does not exist"),
    ],
)
def test_errors_print_one_line_and_exit_1(tmp_path, capsys, argv, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "notes.csv").write_text("a,b\n1,2\n")
    code, out, err = run(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["metrics", str(DEMO), "--format", "xml"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2


def test_demo_builds_reports_and_saves(tmp_path, capsys):
    code, out, err = run(capsys, "demo", "--out", str(tmp_path / "demo"))
    assert code == 0 and err == ""
    assert "113 questions" in out and "Pipeline funnel" in out and f"HTML report:    {tmp_path / 'demo' / 'report.html'}" in out
    result = EvaluationResult.load(tmp_path / "demo" / "results")
    metrics = result.calculate_metrics()
    # a real funnel: neither all 0 nor all 1, and the isolated reader (gold passages) beats the integrated one
    assert 0.5 < metrics["Retriever"]["recall_single_hit"] < 1.0
    assert 0.2 < metrics["Reader"]["exact_match"] < result.calculate_metrics(eval_mode="isolated")["Reader"]["exact_match"] < 1.0
    assert f"| exact_match        {metrics['Reader']['exact_match']:.4f}" in out
    assert (tmp_path / "demo" / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_metrics_by_slices_equal_the_library(capsys):
    code, out, _ = run(capsys, "metrics", str(DEMO), "--by", "no_answer", "--format", "csv")
    assert code == 0
    parsed = pd.read_csv(io.StringIO(out)).set_index(["node", "no_answer"])
    expected = EvaluationResult.load(DEMO).sliced_metrics("no_answer")
    pd.testing.assert_frame_equal(parsed, expected, check_exact=False, rtol=1e-12)
    code, out, _ = run(capsys, "metrics", str(DEMO), "--by", "no_answer", "--node", "Reader", "--format", "csv")
    assert out.splitlines()[0] == "node,no_answer,queries,exact_match,f1"


def test_compare_equals_the_library_and_names_the_runs(capsys, tmp_path):
    base = EvaluationResult.load(DEMO)
    variant = EvaluationResult.load(DEMO)
    reader = variant["Reader"].copy()
    reader.loc[reader["rank"] == 1, "f1"] = 0.0
    variant["Reader"] = reader
    base.save(tmp_path / "base")
    variant.save(tmp_path / "variant")
    code, out, err = run(capsys, "compare", str(tmp_path / "base"), str(tmp_path / "variant"), "--node", "Reader",
                         "--format", "json", "--rounds", "500")
    assert code == 0 and err == ""
    expected = __import__("evalframe").compare(base, variant, node="Reader", rounds=500)
    parsed = pd.DataFrame(json.loads(out)).set_index("metric")
    pd.testing.assert_frame_equal(parsed, expected, check_exact=False, rtol=1e-12, check_dtype=False)
    code, out, _ = run(capsys, "compare", str(tmp_path / "base"), str(tmp_path / "variant"), str(tmp_path / "base"),
                       "--node", "Reader", "--metrics", "f1", "--rounds", "200")
    assert code == 0 and "variant" in out and "base (3)" in out and "p_holm" in out


def test_compare_by_a_slice_key_and_the_family_flag(capsys, tmp_path):
    base = EvaluationResult.load(DEMO)
    variant = EvaluationResult.load(DEMO)
    reader = variant["Reader"].copy()
    reader.loc[reader["rank"] == 1, "f1"] = 0.0
    variant["Reader"] = reader
    base.save(tmp_path / "base")
    variant.save(tmp_path / "variant")
    runs = [str(tmp_path / "base"), str(tmp_path / "variant"), "--node", "Reader"]
    code, out, err = run(capsys, "compare", *runs, "--by", "no_answer", "--family", "slices,measures",
                         "--correction", "bonferroni", "--format", "json", "--rounds", "200")
    assert code == 0 and err == ""
    parsed = pd.DataFrame(json.loads(out))
    assert parsed[["slice", "metric"]].values.tolist() == [[False, "exact_match"], [False, "f1"], [True, "exact_match"],
                                                           [True, "f1"]]
    assert parsed["queries"].tolist() == [7, 7, 1, 1]  # the demo's one no-answer query: no test
    tested = parsed["p_value"].notna()
    assert tested.tolist() == [True, True, False, False]
    assert parsed.loc[tested, "p_bonferroni"].tolist() == pytest.approx((2 * parsed.loc[tested, "p_value"]).clip(
        upper=1).tolist(), abs=1e-9)  # Bonferroni over the 2 tested slices x measures (JSON: 10 digits)
    code, _, err = run(capsys, "compare", *runs, "--by", "meta.topic")
    assert code == 1 and err.startswith("error: by='meta.topic' reads column 'meta'")
    code, _, err = run(capsys, "compare", *runs, "--family", "slices")
    assert code == 1 and "spans the slices, which only a comparison per slice has" in err


def test_compare_errors(capsys, tmp_path):
    code, _, err = run(capsys, "compare", str(DEMO), str(DEMO))
    assert code == 1 and err.strip() == "error: --node is needed: the runs share the nodes ['Retriever', 'Reader']."
    code, _, err = run(capsys, "compare", str(DEMO))
    assert code == 1 and "two or more runs (results folders" in err
    code, _, err = run(capsys, "compare", str(DEMO), str(DEMO), "--node", "Reader", "--metrics", "mrr")
    assert code == 1 and "has no metric 'mrr'" in err


@pytest.mark.parametrize("command", [None, "demo", "metrics", "compare", "worst", "convert", "flatten", "report",
                                     "list-metrics"])
def test_help_of_every_command(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        main(([command] if command else []) + ["--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: evalframe")


def test_a_reader_that_stops_early_gets_no_error_message():
    import subprocess
    import sys

    script = ("from evalframe.present import cli\n"
              "cli.COMMANDS['list-metrics'] = lambda args: 'line\\n' * 200_000\n"
              "raise SystemExit(cli.main(['list-metrics']))\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"line\n"
    process.stdout.close()  # as `| head -1` does
    assert process.wait(timeout=60) == 1
    assert process.stderr.read() == b""


def test_a_node_without_rows_in_the_eval_mode_is_named(capsys):
    code, _, err = run(capsys, "metrics", str(DEMO), "--by", "no_answer", "--node", "Retriever", "--eval-mode", "isolated")
    assert code == 1 and "node 'Retriever' has no rows with eval_mode='isolated' to slice" in err


# ------------------------------------------------------------------ honest counts (issue 12)
def test_flatten_says_how_many_queries_were_written_and_dropped(tmp_path, capsys):
    # the example runs file has 4 queries; 2 more lines with empty gold lists are left out by from_runs
    lines = RUNS.read_text(encoding="utf-8").splitlines()
    empty = json.loads(lines[0])
    empty["gold"] = {"document_ids": [], "contexts": [], "answers": []}
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join([lines[0], json.dumps(empty), *lines[1:], json.dumps(empty)]) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "flatten", str(runs), "-o", str(tmp_path / "out"))
    assert code == 0 and err == ""
    assert out.startswith("wrote 4 of 6 queries (")
    assert out.splitlines()[1] == (
        f"dropped 2 queries without gold labels (empty 'gold' lists or 'labels'): {runs} lines 2, 6")
    assert EvaluationResult.load(tmp_path / "out")["Retriever"]["multilabel_id"].nunique() == 4
    # the file's lines, blank ones counted: a blank line before the first query moves them
    runs.write_text("\n" + runs.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(capsys, "flatten", str(runs), "-o", str(tmp_path / "out2"))
    assert out.splitlines()[1].endswith(f"{runs} lines 3, 7")


def test_report_refuses_n_0_instead_of_claiming_no_query_is_bad(capsys):
    # before: the report listed no query and said "no query scores f1 <= 0.5", which is false for the demo (2 of 8)
    with pytest.raises(SystemExit) as info:
        main(["report", str(DEMO), "-n", "0"])
    assert info.value.code == 2
    assert "error: argument -n: must be an int >= 1 (how many queries to list); got '0'" in capsys.readouterr().err


def test_counts_print_as_integers_in_table_and_markdown(capsys):
    code, out, _ = run(capsys, "compare", str(DEMO), str(DEMO), "--node", "Reader", "--format", "markdown",
                       "--rounds", "10")
    # 8 queries, all tied (the same run twice)
    assert out.splitlines()[2].endswith("| 0 | 8 | 0 | 8 | 0 | 0 |")
    code, out, _ = run(capsys, "metrics", str(DEMO), "--node", "Reader")
    assert out.splitlines()[-1].split() == ["Reader", "0.7500", "0.8333", "8"]


def test_an_unexpected_exception_is_one_error_line(monkeypatch, capsys):
    def broken(_args):
        raise KeyError("boom")

    monkeypatch.setitem(cli.COMMANDS, "list-metrics", broken)
    code, out, err = run(capsys, "list-metrics")
    assert code == 1 and out == ""
    assert err == ("error: internal error KeyError: 'boom' (set EVALFRAME_TRACEBACK=1 to see the traceback, and please "
                   "report it)\n")
    monkeypatch.setenv("EVALFRAME_TRACEBACK", "1")
    with pytest.raises(KeyError, match="boom"):
        main(["list-metrics"])


def test_compare_of_runs_without_a_shared_query_is_an_error(tmp_path, capsys):
    # disjoint queries: the first two and the last two lines of the example runs file
    lines = RUNS.read_text(encoding="utf-8").splitlines()
    for name, part in (("a", lines[:2]), ("b", lines[2:])):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(part) + "\n", encoding="utf-8")
        assert run(capsys, "flatten", str(tmp_path / f"{name}.jsonl"), "-o", str(tmp_path / name))[0] == 0
    code, out, err = run(capsys, "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--node", "Reader")
    assert code == 1 and out == "" and "no query (multilabel_id) in common" in err
    # shared query ids, but no query scored in both runs (every metric missing in b): not a table of NaN
    import numpy as np

    result = EvaluationResult.load(DEMO)
    result.save(tmp_path / "scored")
    result["Reader"]["exact_match"] = np.nan
    result["Reader"]["f1"] = np.nan
    result.save(tmp_path / "unscored")
    code, out, err = run(capsys, "compare", str(tmp_path / "scored"), str(tmp_path / "unscored"), "--node", "Reader")
    assert code == 1 and out == ""
    assert "error: the runs ['scored', 'unscored'] share no query that both scored" in err


# ------------------------------------------------------------------ warnings and line numbers (issue 14)
def test_a_warning_is_one_line_without_a_source_path(capsys):
    code, out, err = run(capsys, "metrics", str(DEMO), "--document-scope", "document_id", "--answer-scope", "context")
    assert code == 0 and "Retriever" in out
    assert err.splitlines() == [err.rstrip("\n")]  # one line
    assert err.startswith("warning: document_scope='document_id' ignores answer_scope='context'")
    assert ".py" not in err and "UserWarning" not in err
    # the same warning again in a second run of the command (not swallowed as "already shown")
    assert run(capsys, "metrics", str(DEMO), "--document-scope", "document_id", "--answer-scope", "context")[2] == err


def test_compare_notes_are_warning_lines(tmp_path, capsys):
    import numpy as np

    result = EvaluationResult.load(DEMO)
    result.save(tmp_path / "a")
    result["Reader"].loc[result["Reader"]["multilabel_id"] == result["Reader"]["multilabel_id"].iloc[0], "f1"] = np.nan
    result.save(tmp_path / "b")
    code, out, err = run(capsys, "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--node", "Reader", "--rounds", "50")
    assert code == 0
    assert err.splitlines() == ["warning: f1: 1 query is scored only in 'a' and 0 only in 'b'; the statistics use the 7 "
                                "queries both scored (see columns only_a / only_b)."]


def test_flatten_names_the_runs_file_line_of_a_query(tmp_path, capsys):
    # from_runs says labels[0] (0-based, of its list); after two blank lines that query is on line 3 of the file
    lines = RUNS.read_text(encoding="utf-8").splitlines()
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(["", " ", *lines]) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "flatten", str(runs), "-o", str(tmp_path / "out"), "--custom-document-id-field", "nope")
    assert code == 1 and out == ""
    assert err.startswith("error: --custom-document-id-field 'nope' is not a meta field of the document of label "
                          f"'line3-gold0' ({runs}:3)")
    assert "labels[" not in err


def test_table_and_markdown_state_the_scopes_json_and_csv_do_not(capsys):
    default = ("scopes: document_scope=document_id_or_answer, answer_scope=any, eval_mode=integrated, "
               "top-k retriever=all, top-k reader=all")
    code, out, _ = run(capsys, "metrics", str(DEMO))
    assert code == 0 and out.splitlines()[0] == default
    code, out, _ = run(capsys, "metrics", str(DEMO), "--document-scope", "document_id", "--answer-scope", "context",
                       "--eval-mode", "isolated", "--top-k-retriever", "3", "--top-k-reader", "1", "--format", "markdown")
    assert out.splitlines()[-2:] == ["", "scopes: document_scope=document_id, answer_scope=context, eval_mode=isolated, "
                                         "top-k retriever=3, top-k reader=1"]
    code, out, _ = run(capsys, "metrics", str(DEMO), "--node", "Retriever", "--by-query")
    assert out.splitlines()[0] == default
    code, out, _ = run(capsys, "metrics", str(DEMO), "--by", "no_answer")
    assert out.splitlines()[0] == default
    code, out, _ = run(capsys, "worst", str(DEMO), "--node", "Reader", "--top-k-reader", "2")
    assert code == 0 and out.splitlines()[0] == default.replace("reader=all", "reader=2")
    code, out, _ = run(capsys, "worst", str(DEMO), "--node", "Reader", "--threshold", "-1")
    assert out.splitlines() == [default, "no query of node 'Reader' scores f1 <= -1.0"]
    for argv in (["metrics", str(DEMO)], ["metrics", str(DEMO), "--node", "Reader", "--by-query"],
                 ["worst", str(DEMO), "--node", "Reader"]):
        for fmt in ("json", "csv"):
            code, out, _ = run(capsys, *argv, "--format", fmt)
            assert code == 0 and "scopes" not in out
    code, out, _ = run(capsys, "worst", str(DEMO), "--node", "Reader", "--format", "json")
    json.loads(out)  # still machine-readable


def test_folders_saved_by_excel_name_the_sep_and_encoding_to_pass(tmp_path, capsys):
    from tests.io.test_excel_csv import excel_copy

    saved = EvaluationResult.load(DEMO).save(tmp_path / "saved")
    excel = excel_copy(saved, tmp_path / "excel", sep=";", encoding="cp1252", manifest=False)
    code, out, err = run(capsys, "metrics", str(excel))
    assert code == 1 and out == ""
    assert re.fullmatch(r"error: .*excel[/\\]Re\w+\.csv looks like a CSV saved by a spreadsheet \(Excel\): .* "
                        r"\(evalframe command: --sep ';' --encoding cp1252\)\.\n", err)
    flags = ["--sep", ";", "--encoding", "cp1252"]
    code, out, err = run(capsys, "metrics", str(excel), "--format", "json", *flags)
    assert code == 0 and err == ""
    assert json.loads(out) == EvaluationResult.load(excel, sep=";", encoding="cp1252").calculate_metrics()
    for argv in (["worst", str(excel), "--node", "Reader"], ["compare", str(excel), str(excel), "--node", "Reader",
                 "--rounds", "10"], ["report", str(excel)], ["convert", str(excel), str(tmp_path / "pq"), "--to", "parquet"]):
        assert run(capsys, *argv)[0] == 1
        code, out, err = run(capsys, *argv, *flags)
        assert code == 0 and err == "", argv
    assert EvaluationResult.load(tmp_path / "pq").calculate_metrics() == json.loads(
        run(capsys, "metrics", str(excel), "--format", "json", *flags)[1])


# ------------------------------------------------------------------------------------------ every option's error
#: What each command needs besides the option under test ({demo}, {runs}, {run}, {qrels}, {file}, {tmp}: see
#: _fill); an option already in the list gets the bad value in place of its own.
BASES = {"demo": ["demo"], "metrics": ["metrics", "{demo}"], "compare": ["compare", "{demo}", "{demo}", "--node", "Retriever"],
         "worst": ["worst", "{demo}", "--node", "Reader"], "convert": ["convert", "{demo}", "{tmp}/out", "--to", "csv"],
         "flatten": ["flatten", "{runs}", "--out", "{tmp}/out"], "report": ["report", "{demo}"],
         "trec": ["trec", "{run}", "{qrels}"], "fuse": ["fuse", "{run}", "{run}", "-o", "{tmp}/fused.txt"],
         "gate": ["gate", "{demo}", "{demo}", "--node", "Retriever", "--no-drop", "mrr"],
         "history": ["history", "--store", "{store}"],
         "log": ["log", "{demo}", "--store", "{tmp}/store", "--name", "demo"],
         # evalframe serve: its checks come before it listens, on an address no machine has (TEST-NET-3): a check
         # missed is an error naming --host, never a server left running
         "serve": ["serve", "{demo}", "{demo}", "--host", "203.0.113.1", "--rounds", "10"]}
#: Options whose bad value needs another base (the direction of convert they apply to).
OTHER_BASES = {("convert", "--node"): ["convert", "{demo}", "{tmp}/run.txt", "--to", "trec"],
               ("trec", "--zscores"): ["trec", "{run}", "{qrels}", "--format", "trec_eval"],
               ("convert", "--tag"): ["convert", "{demo}", "{tmp}/run.txt", "--to", "trec"],
               ("convert", "--qrels"): ["convert", "{run}", "{tmp}/out", "--to", "csv"],
               ("convert", "--queries"): ["convert", "{run}", "{tmp}/out", "--to", "csv", "--qrels", "{qrels}"],
               **{("report", flag): ["report", "{demo}", "{demo}"] for flag in ("--names", "--metric", "--by", "--max-p")},
               ("compare", "--store"): ["compare", "@last", "@last", "--node", "Retriever"],
               ("gate", "--store"): ["gate", "@last", "@last", "--node", "Retriever", "--no-drop", "mrr"],
               **{("gate", flag): ["gate", "{run}", "{run}", "--no-drop", "RR"] for flag in ("--qrels",)}}
#: A value argparse lets through but the command refuses, per option (by its long flag).
BAD_VALUES = {
    "--out": "{file}", "--node": "Raeder", "--by": "qeury", "--top-k-reader": "0", "--top-k-retriever": "0",
    "--context-matching-threshold": "101", "--retriever-node": "Retreiver", "--sep": "", "--encoding": "utf-9",
    "--scheduler": "tcp://127.0.0.1:1", "--metrics": "mrx", "--names": "only-one", "--rounds": "0", "--seed": "-1",
    "--metric": "f2", "--threshold": "nan", "--qrels": "{tmp}/missing.qrels", "--queries": "{tmp}/missing.tsv",
    "--tag": "my run", "--context-matching-min-length": "-1", "--custom-document-id-field": "nope", "--sas-model": "",
    "--html": "{tmp}", "--node-order": "Retriever,Raeder", "--measure": "nDCG@x", "--digits": "18",
    "--zscores": "{tmp}/missing.zscores",
    "--max-p": "1.5", "--power": "1.5", "--family": "runs,slices", "--ci": "1.5",
    "--method": "combsun", "--weights": "1,2,3", "--norm": "minmax2", "-k": "-1", "--optimize": "nDGC@10",
    "--step": "0.3", "--ks": "10,x", "--score": "latency:fast",
    "--column": "question=q", "--id-column": "nope",
    "--no-drop": "nosuch", "--margin": "mrr=x", "--min": "mrr", "--markdown": "{tmp}", "--junit": "{tmp}",
    "--json": "{tmp}", "--store": "{tmp}/missing-store",
    "--name": "nope", "--plot": "{tmp}/trend.png",  # evalframe history (--plot without --measure)
    "--measures": "nosuch",  # evalframe history: a measure no run holds
    "--host": "203.0.113.1",  # evalframe serve: an address of no machine here (TEST-NET-3)
    "--port": "70000",
}
#: The exit status of a refused option: 1, but evalframe gate's 2 (it could not decide).
EXIT_OF_ERROR = {"gate": 2}
#: A bad value of an option that differs by command (by command and long flag).
COMMAND_BAD_VALUES = {("fuse", "--out"): "{tmp}", ("history", "--store"): "{file}",
                      ("log", "--store"): "{file}", ("log", "--name"): " ", ("log", "--tag"): ""}


def _valued_options(argparse_checks: bool) -> list[tuple[str, str]]:
    """(command, long flag) of every option that takes a value, from the parsers: those argparse itself refuses a
    value of (choices, or a type of the CLI's own such as -n's int >= 1), or the others."""
    pairs = []
    for name, command in command_parsers().items():
        for action in command.options:
            if action.nargs == 0:
                continue
            # a path or a URL (one fsspec reads); a comma-separated list refuses nothing
            own_type = action.type not in (None, int, float, str, Path, path_or_url, judgments_path, comma_list)
            if (bool(action.choices) or own_type) == argparse_checks:
                pairs.append((name, max(action.option_strings, key=len)))
    return pairs


def _fill(args: list[str], tmp_path: Path) -> list[str]:
    (tmp_path / "file.txt").write_text("not a folder\n")
    (tmp_path / "run.trec").write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n")
    (tmp_path / "qrels.trec").write_text("q1 0 d1 1\n")
    if args[:1] == ["history"]:  # evalframe history: a store of 3 runs (the benchmark's format)
        pytest.importorskip("evalframe.present.history")
        load_benchmark("bench_history.py").make_store(tmp_path / "store", 3, 5)
    places = {"demo": str(DEMO), "runs": str(RUNS), "run": str(tmp_path / "run.trec"),
              "qrels": str(tmp_path / "qrels.trec"), "file": str(tmp_path / "file.txt"), "tmp": str(tmp_path),
              "store": str(tmp_path / "store")}
    return [arg.format(**places) for arg in args]


def _python_names(command: str, flag: str) -> list[str]:
    """The Python names of the option's value: its dest and the library parameters the command passes it as."""
    dest = command_parsers()[command].flags
    name = next(d for d, f in dest.items() if f == flag)
    return [name, *(parameter for parameter, d in cli._PARAMETER_DESTS.items() if d == name)]


@pytest.mark.parametrize(("command", "flag"), _valued_options(argparse_checks=False))
def test_every_option_error_names_the_flag_not_the_python_parameter(tmp_path, capsys, command, flag):
    assert flag in BAD_VALUES, f"evalframe {command} {flag} is new: add a value it refuses to BAD_VALUES"
    args = list(OTHER_BASES.get((command, flag), BASES[command]))
    bad = COMMAND_BAD_VALUES.get((command, flag), BAD_VALUES[flag])
    if flag in args:
        args[args.index(flag) + 1] = bad
    else:
        args += [flag, bad]
    if flag == "--store":  # the history store's module reads @ref runs
        pytest.importorskip("evalframe.present.history")
    code, out, err = run(capsys, *_fill(args, tmp_path))
    assert code == EXIT_OF_ERROR.get(command, 1) and out == "", err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", err), err
    word = flag.lstrip("-").replace("-", "_")
    for name in _python_names(command, flag):
        if name == word:  # --node's parameter is node: the same word
            continue
        if "_" in name:  # simulated_top_k_retriever is nobody's English
            assert not re.search(rf"(?<![\w-]){name}(?![\w-])", err), err
        else:  # 'measures' may be English in the message; as a parameter it is named 'measures=' or 'measures must'
            assert not re.search(rf"(?<![\w-]){name}(=|\s+must\b)", err) and not err.startswith(f"error: {name} "), err


@pytest.mark.parametrize(("command", "flag"), _valued_options(argparse_checks=True))
def test_options_argparse_checks_are_usage_errors_naming_the_flag(tmp_path, capsys, command, flag):
    action = next(a for a in command_parsers()[command].options if flag in a.option_strings)
    # the CLI's own types count things (an int >= 1; trec's -M and -N an int >= 0, as trec_eval's; the comparative
    # page's --page-characters an int >= 0)
    bad = "nope" if action.choices else "-1" if flag in ("--max-docs", "--num-docs", "--worst",
                                                          "--page-characters") else "0"
    args = list(BASES[command])
    if flag in args:
        args[args.index(flag) + 1] = bad
    else:
        args += [flag, bad]
    with pytest.raises(SystemExit) as exit_info:
        main(_fill(args, tmp_path))
    assert exit_info.value.code == 2
    assert f"argument {'/'.join(action.option_strings)}: " in capsys.readouterr().err


def test_an_error_names_the_flag_as_typed(capsys, tmp_path):
    args = _fill(["trec", "{run}", "{qrels}"], tmp_path)
    code, _, err = run(capsys, *args, "-m", "ndgc@x")
    assert code == 1 and err.startswith("error: -m: unknown measure 'ndgc@x'")
    code, _, err = run(capsys, *args, "--measure=ndcg@x")  # ranx's ndcg, with a mistake in its cutoff
    assert code == 1 and err.startswith("error: --measure: the cutoff of 'ndcg@x' must be a positive int")


def test_metrics_by_a_filters_field_no_query_has_is_an_error(capsys):
    # the demo's filters have the fields name and year; a typo used to exit 0 with one NaN slice of every query
    code, out, err = run(capsys, "metrics", str(DEMO), "--by", "filters.categroy")
    assert code == 1 and out == ""
    assert err == ("error: --by 'filters.categroy': no query of node 'Retriever' has 'filters.categroy' in its filters, "
                   "so every query would be in one slice; their fields are ['filters.name', 'filters.year'].\n")
    code, _, err = run(capsys, "metrics", str(DEMO), "--by", "filters.yaer", "--node", "Reader")
    assert code == 1 and err.endswith("Did you mean 'filters.year'?\n")
    code, out, _ = run(capsys, "metrics", str(DEMO), "--by", "filters.year", "--format", "json")
    # one demo query has year 2023, the other 7 no year: a slice of their own (label null)
    assert code == 0 and {r["filters.year"]: r["queries"] for r in json.loads(out)
                          if r["node"] == "Retriever"} == {2023.0: 1, None: 7}


def test_an_error_about_a_positional_argument_names_it_as_the_usage_line_does(capsys, tmp_path):
    # save's out_dir is convert's OUT (evalframe convert [-h] ... IN OUT)
    (tmp_path / "file.txt").write_text("not a folder\n")
    code, out, err = run(capsys, "convert", str(DEMO), str(tmp_path / "file.txt"), "--to", "csv")
    assert code == 1 and out == ""
    assert err == f"error: OUT {tmp_path / 'file.txt'} exists and is not a folder; choose another.\n"


def test_the_parsers_name_the_formats_and_commands_the_implementations_have():
    # the parsers are built without pandas, so they name the formats themselves: the same names as the renderers'
    from evalframe.frames import judged_codes
    from evalframe.present import commands, formats, parsers, trec_formats
    from evalframe.report import FORMATS

    assert parsers.TABLE_FORMAT_NAMES == tuple(formats.TABLE_FORMATS) == formats.FORMATS
    assert parsers.TREC_FORMAT_NAMES == tuple(trec_formats.TREC_FORMATS)
    assert parsers.MISSING_QUERY_NAMES == judged_codes.MISSING_QUERY_RULES  # evalframe trec --missing-queries
    choices = {name: next(a.choices for a in parser.options if "--format" in a.option_strings)
               for name, parser in command_parsers().items() if name in ("metrics", "worst", "compare", "trec", "report")}
    # compare's: the table formats and the paper table's (tests/present/test_cli_paper.py checks COMPARE_FORMAT_NAMES)
    assert choices == {"metrics": formats.FORMATS, "worst": formats.FORMATS, "compare": parsers.COMPARE_FORMAT_NAMES,
                       "trec": tuple(trec_formats.TREC_FORMATS), "report": tuple(FORMATS)}
    # every command has an implementation: list-metrics here, the others in commands (loaded when one runs)
    # (history: its own module, evalframe/present/history_command.py; serve: evalframe/present/serve/command.py)
    assert set(cli.COMMANDS) == set(command_parsers()) == set(commands.COMMANDS) | {"list-metrics", "history", "serve"}
