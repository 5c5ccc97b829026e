"""``evalframe compare ... --paper`` / ``--format latex|html``: the paper table (evalframe.comparison_table) of TREC run
files with --qrels and of results folders, and its formats' names agreeing with report.paper.PAPER_FORMATS."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalframe import comparison_table
from evalframe.present import parsers
from evalframe.present.cli import main
from evalframe.present.formats import TABLE_FORMATS
from evalframe.report.paper import PAPER_FORMATS

DEMO = Path(__file__).resolve().parents[2] / "evalframe" / "data" / "demo_result"
# Three runs of three queries, one relevant document each (the runs of evalframe.comparison_table's example).
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
RUNS = {"bm25_k1&b": {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0}, "q3": {"d9": 2.0, "d3": 1.0}},
        "dense": {"q1": {"d9": 2.0}, "q2": {"d2": 2.0, "d9": 1.0}, "q3": {"d9": 2.0, "d3": 1.0}},
        "hybrid": {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d9": 2.0, "d2": 1.0}, "q3": {"d3": 2.0}}}


def _files(tmp_path: Path) -> tuple[list[str], str]:
    paths = []
    for name, run in RUNS.items():
        path = tmp_path / name
        path.write_text("".join(f"{qid} Q0 {docid} {rank} {score} {name}\n" for qid, scores in run.items()
                                for rank, (docid, score) in enumerate(sorted(scores.items(), key=lambda x: -x[1]), 1)),
                        encoding="utf-8")
        paths.append(str(path))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{qid} 0 {docid} {grade}\n" for qid, grades in QRELS.items()
                             for docid, grade in grades.items()), encoding="utf-8")
    return paths, str(qrels)


@pytest.mark.parametrize("flags, fmt", [(["--format", "latex"], "latex"), (["--format", "html"], "html"),
                                        (["--paper"], "markdown")])
def test_the_command_prints_the_apis_paper_table(tmp_path, capsys, flags, fmt):
    paths, qrels = _files(tmp_path)
    assert main(["compare", *paths, "--qrels", qrels, "-m", "RR", "-m", "P@1", "--test", "t-test", "--max-p", "0.5",
                 "--rounds", "100", *flags]) == 0
    out = capsys.readouterr().out
    table = comparison_table(RUNS, qrels=QRELS, metrics=["RR", "P@1"], test="t-test", max_p=0.5, rounds=100)
    assert out == PAPER_FORMATS[fmt].render(table) + "\n"
    if fmt == "markdown":  # worked out by hand: RR 0.5, 0.5, 2/3; P@1 1/3 each
        assert out.splitlines()[2:5] == ["| a | bm25_k1\\&b | 0.5000 | **0.3333** |",
                                         "| b | dense | 0.5000 | **0.3333** |",
                                         "| c | hybrid | **0.6667** | **0.3333** |"]


def test_the_paper_table_of_results_folders(capsys):
    assert main(["compare", str(DEMO), str(DEMO), "--node", "Reader", "--names", "x_1,y", "--format", "latex",
                 "--rounds", "100", "--metrics", "exact_match"]) == 0
    out = capsys.readouterr().out
    assert "x\\_1" in out and "\\toprule" in out and "over 8 queries" in out


def test_the_paper_table_refuses_the_formats_it_has_not(tmp_path, capsys):
    paths, qrels = _files(tmp_path)
    assert main(["compare", *paths, "--qrels", qrels, "--paper", "--format", "json"]) == 1
    assert capsys.readouterr().err == ("error: --paper prints the paper table in --format latex, markdown, html (or "
                                       "the default table format, as markdown); got --format json.\n")
    assert main(["compare", *paths, "--format", "latex"]) == 1  # TREC runs need their qrels, as without --paper
    assert "to compare TREC run files, give their judgments" in capsys.readouterr().err


def test_the_format_names_agree():
    assert parsers.PAPER_FORMAT_NAMES == tuple(PAPER_FORMATS)
    assert parsers.COMPARE_FORMAT_NAMES == (*TABLE_FORMATS, *(f for f in PAPER_FORMATS if f not in TABLE_FORMATS))
