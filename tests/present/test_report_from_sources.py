"""The comparative report says what its document means include, and ``evalframe report --from SOURCE FILE...`` builds
the runs from their files (a Ragas JSONL file to a comparative HTML page in one command).

Run A is the ten queries of tests/fixtures.py (``ten_query_lines``, worked out by hand there: 2 no-answer queries;
recall_single_hit 0.8 by default, 0.75 answerable only, 0.7 with gold ids only). Run B retrieves q7's gold document
g7 instead of x7: recall_single_hit (5 + 1 + 1 + 0 + 2) / 10 = 0.9 by default, (5 + 1 + 1) / 8 = 0.875 answerable
only, (6 + 2) / 10 = 0.8 with gold ids only.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from evalframe import EvaluationResult, compare_report
from evalframe.present.cli import main
from evalframe.sources.runs import read_runs
from tests.fixtures import ten_query_lines

RAG = Path(__file__).resolve().parents[2] / "docs" / "examples" / "rag"


def _runs_files(folder: Path) -> tuple[Path, Path]:
    a = ten_query_lines()
    b = copy.deepcopy(a)
    b[6]["nodes"]["Retriever"]["documents"] = [{"id": "g7", "content": "gold passage with answer7."}]
    paths = folder / "a.jsonl", folder / "b.jsonl"
    for path, lines in zip(paths, (a, b)):
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return paths


def test_the_comparison_states_the_no_answer_queries_and_the_scope_credit(tmp_path):
    a, b = (EvaluationResult.from_runs(*read_runs(path), progress=False) for path in _runs_files(tmp_path))
    report = compare_report({"A": a, "B": b}, metrics=["recall_single_hit"], rounds=100)
    assert report.model.nodes[0].measures[0].values == pytest.approx((0.8, 0.9))
    no_answer, scope = report.model.includes
    assert no_answer.startswith("Retriever: 2 of 10 queries are no-answer queries")
    assert no_answer.endswith("Answerable only, recall_single_hit: A 0.7500, B 0.8750.")
    assert scope.startswith("document_scope='document_id_or_answer' (the default) counts a retrieved document")
    assert scope.endswith("Retriever recall_single_hit: A 0.7000 (0.8000 here), B 0.8000 (0.9000 here).")
    assert f"[includes] {no_answer}" in report.text
    assert f"> {no_answer}" in report.markdown
    assert report.to_dict()["includes"] == [no_answer, scope]
    assert "Answerable only, recall_single_hit: A 0.7500, B 0.8750." in report.html
    # gold ids only: nothing credited beyond them, the no-answer count stays
    by_id = compare_report({"A": a, "B": b}, metrics=["recall_single_hit"], rounds=100, document_scope="document_id")
    assert by_id.model.includes == (no_answer.replace("A 0.7500, B 0.8750", "A 0.6250, B 0.7500"),)


def test_report_from_runs_files_names_the_runs_by_their_stems(tmp_path, capsys):
    a, b = _runs_files(tmp_path)
    assert main(["report", "--from", "runs", str(a), str(b), "--metric", "recall_single_hit"]) == 0
    printed = capsys.readouterr().out
    assert "recall_single_hit ↑  0.8000  0.9000  +0.1000" in printed
    assert "Answerable only, recall_single_hit: a 0.7500, b 0.8750." in printed


def test_report_from_ragas_files_to_a_comparative_page(tmp_path, capsys):
    out = tmp_path / "compare.html"
    assert main(["report", "--from", "ragas", str(RAG / "bm25.jsonl"), str(RAG / "hybrid.jsonl"),
                 "--score", "latency_ms:lower", "--by", "meta.topic", "--html", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Runs: bm25, hybrid (baseline 'bm25')" in printed and f"HTML report: {out}" in printed
    assert "latency_ms ↓" in printed and "faithfulness ↑" in printed
    assert "Retriever: 20 of 200 queries are no-answer queries" in printed
    page = out.read_text(encoding="utf-8")
    assert "evalframe-grid" in page and "meta.topic" in page


def test_report_from_refuses_a_folder_and_score_needs_from(tmp_path, capsys):
    folder = EvaluationResult.from_runs(*read_runs(_runs_files(tmp_path)[0]), progress=False).save(tmp_path / "A")
    assert main(["report", "--from", "ragas", str(folder), str(folder)]) == 1
    assert "--from ragas reads files, and" in capsys.readouterr().err
    assert main(["report", str(folder), str(folder), "--score", "latency:lower"]) == 1
    assert capsys.readouterr().err.startswith("error: --score declares the scores of files read with --from")


def test_a_page_short_of_passages_names_the_serve_command_of_its_own_inputs(tmp_path, monkeypatch, capsys):
    # a text budget that leaves the passages nothing: the page says the viewer shows them, with the very command
    # that serves these two files (not "evalframe serve RUN...")
    from evalframe.report import html
    from tests.fixtures import load_benchmark

    a, b = load_benchmark("synthetic_ragas.py").write(12, tmp_path)
    monkeypatch.setattr(html, "TEXT_BUDGET", 1)
    page = tmp_path / "page.html"
    assert main(["report", "--from", "ragas", str(a), str(b), "--html", str(page)]) == 0
    capsys.readouterr()
    text = page.read_text(encoding="utf-8")
    assert f"<code>evalframe serve --from ragas {a} {b}</code> is the better tool" in text
    # a path with a space is quoted for the shell, and the slices and names given are passed on
    spaced = tmp_path / "with space"
    spaced.mkdir()
    a.rename(spaced / "a.jsonl")
    assert main(["report", "--from", "ragas", str(spaced / "a.jsonl"), str(b), "--by", "meta.topic",
                 "--names", "x,y", "--html", str(page)]) == 0
    capsys.readouterr()
    quoted = f"evalframe serve --from ragas &#x27;{spaced / 'a.jsonl'}&#x27; {b} --by meta.topic --names x,y"
    assert f"<code>{quoted}</code>" in page.read_text(encoding="utf-8")
