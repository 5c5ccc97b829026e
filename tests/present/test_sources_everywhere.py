"""Every source in every command (issue 36): each source of ``SOURCES`` through metrics, worst, compare, report,
flatten and convert gives the library's numbers for the same file (``EvaluationResult.from_source``), by ``--from``
or detected from the file; a source added to the table is offered by every command with no other edit."""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from evalframe import EvaluationResult
from evalframe.options import THRESHOLD
from evalframe.present.cli import main
from evalframe.present.parsers import SUBCOMMANDS, command_parsers
from evalframe.sources.assemble import Built
from evalframe.sources.catalog import SOURCES, Source
from evalframe.trec_compare import compare as compare_runs
from evalframe.analysis.compare import compare

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rag"
RUN = "q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\nq2 Q0 d3 1 1.0 bm25\nq2 Q0 d1 2 0.5 bm25\nq3 Q0 d4 1 3.0 bm25\n"
QRELS = "q1 0 d2 1\nq1 0 d1 0\nq2 0 d1 2\nq3 0 d4 1\nq3 0 d5 1\n"
#: from_frame's columns of the Ragas sample (any table: its columns named).
FRAME_COLUMNS = {"question": "user_input", "retrieved_ids": "retrieved_context_ids", "gold_ids": "reference_context_ids",
                 "answer": "response", "gold_answers": "reference"}
#: The commands that take a result.
COMMANDS = ("metrics", "worst", "compare", "report", "flatten", "convert")


@pytest.fixture(scope="module")
def trec_files(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("trec")
    (folder / "bm25.run").write_text(RUN, encoding="utf-8")
    (folder / "judged.qrels").write_text(QRELS, encoding="utf-8")
    return folder / "bm25.run", folder / "judged.qrels"


def sample(source: str, trec: tuple[Path, Path]) -> tuple[Path, dict[str, Any], list[str]]:
    """A small file of ``source``, its options for from_source and the flags that give them (beside --from)."""
    if source == "trec":
        return trec[0], {"qrels": trec[1]}, ["--qrels", str(trec[1])]
    if source == "frame":
        return (DATA / "ragas" / "dataset.csv", FRAME_COLUMNS,
                [flag for field, column in FRAME_COLUMNS.items() for flag in ("--column", f"{field}={column}")])
    files = {"runs": ROOT / "docs" / "examples" / "runs.jsonl", "ragas": DATA / "ragas" / "results.jsonl",
             "haystack2": DATA / "haystack2" / "run_result.json",
             "llamaindex": DATA / "llamaindex" / "retrieval_results.jsonl"}
    return files[source], {}, []


@functools.cache
def library(source: str, path: Path, options: tuple[tuple[str, Any], ...]) -> EvaluationResult:
    return EvaluationResult.from_source(source, path, progress=False, **dict(options))


def cli(capsys, *argv: Any) -> str:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def same(a: Any, b: Any) -> bool:
    """Equal, floats to 1e-12 and NaN equal to NaN or to null (JSON)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        missing = [x is None or (isinstance(x, float) and math.isnan(x)) for x in (a, b)]
        return all(missing) or (not any(missing) and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12))
    return a == b


#: How each source's sample reaches the commands: by --from, or (all but frame, which reads any table) detected.
CASES = [(source, by) for source in SOURCES for by in ("--from", "detected") if by == "--from" or source != "frame"]


def _matrix() -> list[Any]:
    cases = []
    for source, by in CASES:
        for command in COMMANDS:
            fast = by == "--from" or command in ("metrics", "worst")  # the rest of the matrix: stress
            cases.append(pytest.param(source, by, command, marks=() if fast else pytest.mark.stress,
                                      id=f"{source}-{by.strip('-')}-{command}"))
    return cases


@pytest.mark.parametrize(("source", "by", "command"), _matrix())
def test_every_source_in_every_command_gives_the_library_s_numbers(tmp_path, capsys, trec_files, source, by, command):
    path, options, flags = sample(source, trec_files)
    flags = [*(["--from", source] if by == "--from" else []), *flags]
    result = library(source, path, tuple(options.items()))
    node = next(iter(result))
    if command == "metrics":
        assert same(json.loads(cli(capsys, "metrics", path, *flags, "--format", "json")), result.calculate_metrics())
    elif command == "worst":
        shown = json.loads(cli(capsys, "worst", path, "--node", node, *flags, "--format", "json"))
        expected = result.wrong_examples(node, n=5, document_metric_threshold=THRESHOLD,
                                         answer_metric_threshold=THRESHOLD)
        assert [(e["multilabel_id"], e["metrics"]) for e in shown] == [
            (e["multilabel_id"], json.loads(json.dumps(e["metrics"]))) for e in expected]
    elif command == "compare":
        nodes = ["--node", node] if source != "trec" else []  # TREC runs: one node, compared on trec_eval's measures
        shown = json.loads(cli(capsys, "compare", path, path, *nodes, *flags, "--format", "json", "--rounds", "100"))
        if source == "trec":  # TREC run files are compared on trec_eval's measures (evalframe compare --qrels)
            table = compare_runs(str(path), str(path), qrels=str(options["qrels"]), rounds=100)
        else:
            table = compare(result, result, node=node, rounds=100)
        expected = json.loads(table.reset_index().to_json(orient="records"))
        assert same([{k: row[k] for k in ("mean_a", "mean_b", "delta", "queries")} for row in shown],
                    [{k: row[k] for k in ("mean_a", "mean_b", "delta", "queries")} for row in expected])
        assert [row["metric"] for row in shown] == [row["metric"] for row in expected]
    elif command == "report":
        shown = json.loads(cli(capsys, "report", path, *flags, "--format", "json"))
        assert same(shown, json.loads(result.report(charts=False).render("json")))
    else:
        out = tmp_path / "out"
        if command == "flatten":
            cli(capsys, "flatten", path, "-o", out, *flags)
        else:
            cli(capsys, "convert", path, out, "--to", "parquet", *flags)
        assert same(EvaluationResult.load(out).calculate_metrics(), result.calculate_metrics())


# ------------------------------------------------------------------------------------------ what a new user types
def test_a_file_needs_no_from_when_its_source_is_plain(tmp_path, capsys):
    """`evalframe worst bm25.jsonl`, `metrics bm25.jsonl`, `compare a.jsonl b.jsonl` answered 'is not a folder'."""
    runs = ROOT / "docs" / "examples" / "runs.jsonl"
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(runs.read_bytes())
    lines = runs.read_text(encoding="utf-8").splitlines()
    b.write_text("\n".join([lines[1], lines[0], *lines[2:]]) + "\n", encoding="utf-8")  # the same queries
    # docs/examples/runs.jsonl by hand: Retriever mrr = (1/2 + 1 + 0 + 1) / 4 (its no-answer query scores 1.0)
    metrics = json.loads(cli(capsys, "metrics", a, "--format", "json"))
    assert metrics["Retriever"]["mrr"] == pytest.approx((0.5 + 1 + 0 + 1) / 4)
    worst = json.loads(cli(capsys, "worst", a, "--node", "Retriever", "--format", "json"))
    assert [example["metrics"]["recall_single_hit"] for example in worst] == [0.0]
    shown = json.loads(cli(capsys, "compare", a, b, "--node", "Retriever", "--format", "json"))
    assert {row["metric"]: row["delta"] for row in shown}["mrr"] == 0.0


def test_a_file_no_source_claims_or_several_do_is_refused_naming_from(tmp_path, capsys):
    unknown = tmp_path / "notes.jsonl"
    unknown.write_text('{"text": "hello"}\n', encoding="utf-8")
    for argv in (["metrics", unknown], ["worst", unknown, "--node", "Retriever"], ["compare", unknown, unknown],
                 ["report", unknown]):
        assert main([str(arg) for arg in argv]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"error: {unknown} is a file, not a results folder, and no source claims it"), err
        assert "--from SOURCE, one of folder, runs, ragas, haystack2, llamaindex, frame, trec" in err, err
    # convert reads a file no source claims as a TREC run (its default), whose reader names the line
    assert main(["convert", str(unknown), str(tmp_path / "out"), "--to", "csv", "--qrels", str(unknown)]) == 1
    assert capsys.readouterr().err.startswith(f"error: {unknown}:1: a TREC run line has 6 whitespace-separated columns")
    both = tmp_path / "both.jsonl"  # a runs line that is also LlamaIndex's
    both.write_text(json.dumps({"query": "q", "gold": {"document_ids": ["d1"]}, "nodes": {}, "expected_ids": ["d1"],
                                "retrieved_ids": ["d1"]}) + "\n", encoding="utf-8")
    assert main(["metrics", str(both)]) == 1
    assert capsys.readouterr().err == (f"error: {both} could be read as runs or llamaindex: name its source with --from "
                                       "runs (the sources: folder, runs, ragas, haystack2, llamaindex, frame, trec).\n")


def test_a_folder_only_message_names_from_when_the_path_is_a_file(tmp_path, capsys):
    runs = ROOT / "docs" / "examples" / "runs.jsonl"
    assert main(["metrics", "--from", "folder", str(runs)]) == 1
    assert capsys.readouterr().err == (
        f"error: {runs} is not a folder (--from folder reads a results folder); name the file's source with --from "
        "SOURCE, one of runs, ragas, haystack2, llamaindex, frame, trec, or leave --from out to find it by its suffix "
        "and content.\n")
    assert main(["metrics", "--from", "ragas", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith(f"error: --from ragas reads files, and {tmp_path} is a folder")
    with pytest.raises(SystemExit) as exit_:
        main(["worst", "--from", "ragaz", str(runs), "--node", "Retriever"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "evalframe worst: error: argument --from: unknown source 'ragaz'; did you mean 'ragas'? (the sources: folder, "
        "runs, ragas, haystack2, llamaindex, frame, trec)")


def test_a_flag_the_source_does_not_take_is_refused_naming_it(tmp_path, capsys, trec_files):
    llama = DATA / "llamaindex" / "retrieval_results.jsonl"
    assert main(["metrics", str(llama), "--id-column", "id"]) == 1
    assert capsys.readouterr().err == "error: --id-column is for the files of --from ragas or frame, not for --from llamaindex.\n"
    assert main(["metrics", str(trec_files[0])]) == 1
    assert capsys.readouterr().err == f"error: reading the TREC run {trec_files[0]} needs its judgments: add --qrels QRELS.\n"
    assert main(["metrics", str(llama), "--sep", ";"]) == 1
    assert capsys.readouterr().err.startswith(f"error: --sep is for a results folder, and {llama} is read as a file")


# ------------------------------------------------------------------------------------------ one table
def read_fake(path: Any, *, progress: bool | None = None) -> Built:
    """A source the table did not have: a Ragas sample under another suffix."""
    return SOURCES["ragas"].read(DATA / "ragas" / "results.jsonl", progress=progress)


def test_a_source_added_to_the_table_is_in_every_command_with_no_other_edit(tmp_path, capsys, monkeypatch):
    fake = Source("fake", read_fake, (".fake",), "a fake evaluation file of the test", lambda path: True)
    monkeypatch.setitem(SOURCES, "fake", fake)
    for command in COMMANDS:
        help_text = " ".join(command_parsers()[command].format_help().split())
        for name, source in SOURCES.items():
            assert f"{name} ({' '.join(source.needs.split())})" in help_text, (command, name)
    file = tmp_path / "sample.fake"
    file.write_text("anything\n", encoding="utf-8")
    expected = EvaluationResult.from_ragas(DATA / "ragas" / "results.jsonl", progress=False).calculate_metrics()
    for flags in (["--from", "fake"], []):  # named, and detected (its suffix and its sniff)
        assert same(json.loads(cli(capsys, "metrics", file, *flags, "--format", "json")), expected)
        cli(capsys, "flatten", file, "-o", tmp_path / "out", *flags)
        assert same(EvaluationResult.load(tmp_path / "out").calculate_metrics(), expected)
        cli(capsys, "worst", file, "--node", "Retriever", *flags)
        cli(capsys, "report", file, file, *flags, "--format", "json")
        cli(capsys, "convert", file, tmp_path / "converted", "--to", "csv", *flags)


def test_the_parsers_are_one_small_function_per_sub_command():
    import ast

    tree = ast.parse((ROOT / "evalframe" / "present" / "parsers.py").read_text(encoding="utf-8"))
    long = [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60]
    assert long == []
    assert [name for name, _, _ in SUBCOMMANDS] == list(command_parsers())


# ------------------------------------------------------------------------------------------ did you mean
def _typo(flag: str) -> str:
    """``flag`` with two letters of its name swapped (``--top-k-retriever``: ``--top-k-retreiver``)."""
    i = len(flag) // 2 + 1
    return flag[:i] + flag[i + 1] + flag[i] + flag[i + 2:]


def _long_flags() -> list[tuple[str, str]]:
    pairs = []
    for name, parser in command_parsers().items():
        flags = [flag for action in parser._actions for flag in action.option_strings]
        for flag in flags:
            typo = _typo(flag) if flag.startswith("--") and len(flag) > 4 else None
            if typo and typo != flag and not any(other.startswith(typo) for other in flags):
                pairs.append((name, flag))
    return pairs


@pytest.mark.parametrize(("command", "flag"), _long_flags())
def test_a_mistyped_flag_of_any_sub_command_names_the_flag_meant(capsys, command, flag):
    with pytest.raises(SystemExit) as exit_:
        main([command, _typo(flag), "1", "x"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(rf"evalframe {command}: error: unrecognized argument {re.escape(_typo(flag))}; did you mean "
                        rf"(\S+ or )?{re.escape(flag)}( or \S+)?\?", last), last


def test_the_issue_s_typos(capsys):
    for argv, last in (
            (["metrics", "--top-k-retreiver", "5", "X"],
             "evalframe metrics: error: unrecognized argument --top-k-retreiver; did you mean --top-k-retriever?"),
            (["metrics", "-Q", "X"], "evalframe metrics: error: unrecognized argument -Q (evalframe metrics has no short "
                                     "flag but -h)"),
            (["trec", "-Q", "run", "qrels"], "evalframe trec: error: unrecognized argument -Q; did you mean -q? (the short "
                                             "flags of evalframe trec are -c, -h, -J, -l, -M, -m, -N, -n, -q, -Z)"),
            (["compare", "-C", "a", "b"], "evalframe compare: error: unrecognized argument -C; did you mean -c? (the "
                                          "short flags of evalframe compare are -c, -h, -m)"),
            (["worst", "X", "--nodes", "Reader"],
             "evalframe worst: error: unrecognized argument --nodes; did you mean --node?"),
            (["metrix", "X"], "evalframe: error: argument COMMAND: invalid choice: 'metrix'; did you mean 'metrics'? "
                              "(choose from 'demo', 'metrics', 'compare', 'worst', 'convert', 'flatten', 'report', "
                              "'trec', 'fuse', 'gate', 'log', 'history', 'serve', 'list-metrics')"),
            (["--verison"], "evalframe: error: unrecognized argument --verison; did you mean --version?"),
            (["list-metrics", "x"], "evalframe list-metrics: error: unrecognized arguments: x"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2, argv
        assert capsys.readouterr().err.splitlines()[-1] == last


def test_values_that_start_with_a_dash_are_not_flags(capsys, trec_files):
    run, qrels = trec_files
    # a negative number, standard input '-', and what follows '--'
    assert main(["worst", str(ROOT / "docs" / "examples" / "runs.jsonl"), "--node", "Retriever", "--threshold", "-1"]) == 0
    assert "no query of node 'Retriever' scores recall_single_hit <= -1.0" in capsys.readouterr().out
    assert main(["trec", "-qc", "-m", "P_1", str(run), str(qrels)]) == 0  # short flags together
    assert capsys.readouterr().out.startswith("P@1")


# ------------------------------------------------------------------------------------------ trec's order
def test_evalframe_trec_says_when_its_files_look_swapped(capsys, trec_files):
    run, qrels = trec_files
    assert main(["trec", str(qrels), str(run)]) == 1  # trec_eval's order
    err = capsys.readouterr().err
    assert err.startswith("error: these look swapped: evalframe trec takes RUN QRELS (trec_eval takes QRELS RUN); "
                          f"{qrels} reads as a qrels file (qid iter docid relevance) and {run} as a run (qid Q0 docid "
                          f"rank score tag): evalframe trec {run} {qrels} (the error was: {qrels}:1: a TREC run line "
                          "has 6 whitespace-separated columns"), err
    assert main(["trec", str(qrels), str(qrels)]) == 1  # the qrels twice: not swapped, the reader's message
    assert capsys.readouterr().err.startswith(f"error: {qrels}:1: a TREC run line has 6 whitespace-separated columns")
    assert main(["trec", "-m", "P_1", str(run), str(qrels)]) == 0  # the right order: P@1 = (0 + 0 + 1) / 3
    assert re.search(r"^P@1 *\tall\t0\.3333$", capsys.readouterr().out, re.M)
