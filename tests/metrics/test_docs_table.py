"""docs/metrics.md's table of metrics is the one the registry generates.

Rewrite it with `python scripts/make_metrics_table.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalframe import InvalidParameterError
from evalframe.metrics.registry import (
    ANSWER_METRICS,
    DOCUMENT_METRICS,
    EVALUATOR_METRICS,
    MEASURES_TABLE_END,
    MEASURES_TABLE_START,
    TABLE_END,
    TABLE_START,
    TREC_MEASURES,
    measures_table_markdown,
    metrics_table_markdown,
    update_measures_table,
    update_metrics_table,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "metrics.md"


def test_the_docs_table_is_the_generated_one():
    text = DOCS.read_text(encoding="utf-8")
    assert text.count(TABLE_START) == 1 and text.count(TABLE_END) == 1
    between = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip("\n")
    assert between == metrics_table_markdown(), "docs/metrics.md is stale: run `python scripts/make_metrics_table.py`"


def test_the_table_has_one_row_per_registered_metric():
    rows = metrics_table_markdown().splitlines()[2:]
    names = [row.split("|")[1].strip().strip("`") for row in rows]
    assert names == [*ANSWER_METRICS, *DOCUMENT_METRICS, *EVALUATOR_METRICS, *TREC_MEASURES]
    # a trec measure's row says its parameters and its names in trec_eval's form
    row = dict(zip(names, rows))
    assert row["AP"].endswith("| [@k], rel; `map`, `map_cut.k`, `MAP`, `map[@k]` |")  # trec_eval, ir_measures, ranx
    assert row["P"].endswith("| @k, rel; `P.k`, `Precision`, `precision@k` |")
    assert row["SetP"].endswith("`SetRelP`, `precision` |")  # ranx's precision without @k: the whole ranking's
    # the "better" column: the direction of each entry (higher, lower, neither for a count)
    better = {name: r.split("|")[-4].strip() for name, r in row.items()}  # from the end: a formula may hold \\|
    assert (better["f1"], better["AP"], better["unj"], better["rbp_resid"], better["NumRet"], better["NumRelRet"]) == \
        ("higher", "higher", "lower", "lower", "neither", "higher")


def test_update_replaces_only_the_marked_table():
    text = f"intro\n\n{TABLE_START}\n| old |\n{TABLE_END}\n\noutro\n"
    updated = update_metrics_table(text)
    assert updated == f"intro\n\n{TABLE_START}\n{metrics_table_markdown()}\n{TABLE_END}\n\noutro\n"
    assert update_metrics_table(updated) == updated


def test_update_without_markers_says_what_to_add():
    with pytest.raises(InvalidParameterError, match="add the two markers"):
        update_metrics_table("no table here")


def test_the_script_rewrites_a_stale_table(tmp_path):
    stale = tmp_path / "metrics.md"
    stale.write_text(f"# Metrics\n{TABLE_START}\n| stale |\n{TABLE_END}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_metrics_table.py"), str(stale)],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    assert "rewritten" in done.stdout
    assert stale.read_text(encoding="utf-8") == f"# Metrics\n{TABLE_START}\n{metrics_table_markdown()}\n{TABLE_END}\n"


def test_the_ir_researchers_measures_table_is_the_generated_one():
    text = (Path(__file__).resolve().parents[2] / "docs" / "ir-researchers.md").read_text(encoding="utf-8")
    assert text.count(MEASURES_TABLE_START) == 1 and text.count(MEASURES_TABLE_END) == 1
    between = text.split(MEASURES_TABLE_START, 1)[1].split(MEASURES_TABLE_END, 1)[0].strip("\n")
    assert between == measures_table_markdown(), "docs/ir-researchers.md is stale: run `python scripts/make_metrics_table.py`"
    rows = measures_table_markdown().splitlines()[2:]
    assert len(rows) == len(TREC_MEASURES)  # one row per measure, each with its three spellings
    ap = next(row for row in rows if row.startswith("| `AP("))
    assert "`map`, `map_cut.k`" in ap and "`map`, `map_cut_k`" in ap and "`MAP`" in ap
    assert ap.endswith("| mean | higher | pytrec_eval |")
    # which way each is better, as the registry says: a count neither, trec_eval's unjudged rate lower
    num_ret = next(row for row in rows if row.startswith("| `NumRet("))
    unj = next(row for row in rows if row.startswith("| `unj("))
    assert num_ret.endswith("| sum | neither | pytrec_eval |") and unj.endswith("| mean | lower | trec_eval |")
    with pytest.raises(InvalidParameterError, match="no measures table"):
        update_measures_table("no markers here")
