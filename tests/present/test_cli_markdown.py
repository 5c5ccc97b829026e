"""The command line's Markdown tables (``--format markdown`` of metrics, worst, compare and trec) write the user's
text as text, as the reports do: its HTML and Markdown syntax escaped by the one Markdown escaping
(evalframe.report.escape.md), the index's ``|`` too, so that a query or id holding ``</script><b>`` or ``a|b`` is shown,
not rendered, and ends no cell."""

from __future__ import annotations

import pandas as pd

from evalframe.present.cli import main
from evalframe.present.formats import markdown_table
from evalframe.present.trec_formats import cell_text
from tests.present.compare_fixtures import run_result


def test_markdown_table_escapes_the_index_the_header_and_the_cells():
    frame = pd.DataFrame({"<i>col</i>": ["<b>x</b>", "a|b"], "f1": [0.5, float("nan")]},
                         index=pd.Index(["q|1", "<script>"], name="multilabel_id"))
    assert markdown_table(frame).splitlines() == [
        "| multilabel_id | \\<i\\>col\\</i\\> | f1 |",
        "|---|---|---|",
        "| q\\|1 | \\<b\\>x\\</b\\> | 0.5000 |",
        "| \\<script\\> | a\\|b |  |",
    ]


def test_a_cell_is_on_one_line_with_its_syntax_escaped():
    assert cell_text("line\nbreak *not bold* [link](x) snake_case") == \
        "line break \\*not bold\\* \\[link\\](x) snake_case"
    assert cell_text(0.25) == "0.2500" and cell_text(float("nan")) == ""


def test_evalframe_worst_markdown_shows_a_hostile_query_as_text(tmp_path, capsys):
    # run A of compare_fixtures misses q4 ("what breaks </script><b>& a page?"): its worst query by recall_single_hit
    folder = run_result("A", tmp_path).save(tmp_path / "A", progress=False)
    assert main(["worst", str(folder), "--node", "Retriever", "--format", "markdown"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "| multilabel_id | query | recall_single_hit | gold | rank 1 |"
    assert rows[2].endswith(" | what breaks \\</script\\>\\<b\\>\\& a page? | 0.0000 | \\['g4'\\] | x4 |")


def test_evalframe_trec_markdown_shows_a_hostile_query_id_as_text(tmp_path, capsys):
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run.write_text("<b>q1</b> Q0 d1 1 2.0 bm25\nq|2 Q0 d2 1 1.0 bm25\n")
    qrels.write_text("<b>q1</b> 0 d1 1\nq|2 0 d2 0\n")
    assert main(["trec", str(run), str(qrels), "-m", "P@1", "-q", "--format", "markdown"]) == 0
    # P@1: q1 ranks its relevant d1 first (1), q2's only document is judged 0; the mean 1/2
    assert capsys.readouterr().out.splitlines() == [
        "| query | P@1 |", "|---|---|", "| \\<b\\>q1\\</b\\> | 1.0000 |", "| q\\|2 | 0.0000 |", "| all | 0.5000 |"]
