"""The comparative report (evalframe.compare_report): its model against hand-worked values (tests/present/
compare_fixtures.py), the p-values against scipy's paired t-test and Holm's formula, and its renderings."""

from __future__ import annotations

import base64
import gzip
import json
import math
import re

import pytest
from scipy import stats

import evalframe
from evalframe import compare_report, worst_by_delta
from evalframe.errors import InvalidParameterError, UnknownArgumentError
from evalframe.present.cli import main
from tests.present.compare_fixtures import QUERIES, run_result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    return {name: run_result(name, folder) for name in "ABC"}


def _measure(report, metric="mrr", node="Retriever"):
    compared = next(n for n in report.model.nodes if n.node == node)
    return compared, next(m for m in compared.measures if m.metric == metric)


def test_two_runs_values_deltas_and_the_regressed_query(runs):
    report = compare_report([runs["A"], runs["B"]], metrics=["mrr"], rounds=200)
    node, mrr = _measure(report)
    assert mrr.values == pytest.approx((0.625, 0.875))
    (delta,) = mrr.deltas
    assert delta.delta == pytest.approx(0.25)
    assert delta.p_value == pytest.approx(stats.ttest_rel([0.5, 1, 1, 1], [1, 0.5, 1, 0]).pvalue)
    assert not delta.significant and delta.change == "" and mrr.direction == "higher"
    assert delta.ci_low <= 0.25 <= delta.ci_high
    # worst by delta first: q1 (-1/2), then the others in A's order; q1 regressed, q2 and q4 improved
    assert [q.query for q in node.queries] == QUERIES
    assert [q.worst for q in node.queries] == [-0.5, 0.0, 0.0, 0.0]
    assert [q.changes[0] for q in node.queries] == [("worse",), ("better",), ("",), ("better",)]
    assert [q.deltas[0][0] for q in node.queries] == [-0.5, 0.5, 0.0, 1.0]
    regressed = worst_by_delta(runs["A"], runs["B"], "Retriever", "mrr")
    assert [e["query"] for e in regressed] == [q.query for q in node.queries if q.worst < 0]


def test_three_runs_holm(runs):
    report = compare_report(runs, metrics="mrr", rounds=200)
    _, mrr = _measure(report)
    assert mrr.values == pytest.approx((0.625, 0.875, (1 + 0.5 + 1 / 3) / 4))
    assert [d.delta for d in mrr.deltas] == pytest.approx([0.25, -1 / 6])
    p_b = stats.ttest_rel([0.5, 1, 1, 1], [1, 0.5, 1, 0]).pvalue
    p_c = stats.ttest_rel([1, 0.5, 1 / 3, 0], [1, 0.5, 1, 0]).pvalue
    low, high = sorted([p_b, p_c])
    holm = {low: min(1.0, 2 * low), high: max(min(1.0, 2 * low), high)}  # Holm's step-down over two comparisons
    assert [d.p_value for d in mrr.deltas] == pytest.approx([holm[p_b], holm[p_c]])
    assert report.model.holm and "Holm-corrected" in report.text
    node = report.model.nodes[0]
    assert node.queries[0].query == QUERIES[2]  # C's -2/3 on q3 is the largest drop
    assert node.queries[0].worst == pytest.approx(-2 / 3)


def test_a_significant_change_is_marked_by_direction(runs):
    a = runs["A"]
    b = runs["B"]
    report = compare_report({"A": a, "B": b}, metrics=["mrr"], max_p=0.5, rounds=200)
    (delta,) = _measure(report)[1].deltas
    assert delta.significant and delta.change == "better"  # p = 0.495 <= 0.5, B higher on a higher-is-better measure
    assert "+0.2500" in report.markdown and "▲" in report.markdown


def test_drill_down_rows_carry_gold_matches(runs):
    node, _ = _measure(compare_report([runs["A"], runs["B"]], metrics=["mrr"], rounds=50))
    q1 = next(q for q in node.queries if q.query == QUERIES[0])
    in_a, in_b = q1.rows
    assert [(r.rank, dict(r.fields)["document_id"], r.correct) for r in in_a] == [(1, "g1", True)]
    assert [(r.rank, dict(r.fields)["document_id"], r.correct) for r in in_b] == [(1, "x1", False), (2, "g1", True)]
    # g1's text is its gold context, but shorter than context_matching_min_length (100, Haystack's): no context match
    assert dict(in_b[1].marks) == {"gold_id_match": 1.0, "context_match": 0.0, "answer_match": 0.0}


def test_slices_by_meta(runs):
    node, _ = _measure(compare_report([runs["A"], runs["B"]], metrics=["mrr"], by="meta.topic", rounds=50))
    assert node.slice_keys == ("meta.topic",)
    assert [dict(q.slices)["meta.topic"] for q in node.queries] == ["x", "x", "y", "y"]


def test_the_slice_view_tests_each_slice_corrected_over_the_slices_and_runs(runs):
    """Per slice, mrr minus A's: B x [-1/2, 1/2], y [0, 1]; C x [0, 0], y [-2/3, 0]; each slice's paired t-test
    (scipy's; a difference of 0 throughout: p = 1), Holm-corrected over the 2 slices x 2 runs of mrr."""
    from statsmodels.stats.multitest import multipletests

    report = compare_report(runs, metrics="mrr", by="meta.topic", rounds=200)
    node = report.model.nodes[0]
    assert [(s.slice, s.metric, s.queries) for s in node.slices] == [("x", "mrr", 2), ("y", "mrr", 2)]
    x, y = node.slices
    assert x.values == pytest.approx((0.75, 0.75, 0.75)) and y.values == pytest.approx((0.5, 1.0, 1 / 6))
    assert [d.delta for d in x.deltas + y.deltas] == pytest.approx([0.0, 0.0, 0.5, -1 / 3], abs=1e-12)
    raw = [stats.ttest_rel([0.5, 1], [1, 0.5]).pvalue, 1.0, stats.ttest_rel([1, 1], [0, 1]).pvalue,
           stats.ttest_rel([1 / 3, 0], [1, 0]).pvalue]
    expected = multipletests(raw, method="holm")[1]
    assert [d.p_value for d in x.deltas + y.deltas] == pytest.approx(list(expected), abs=1e-12)
    assert not any(d.significant for d in x.deltas + y.deltas)
    note = "Holm-corrected over the slices and the runs of each measure"
    text = report.text.splitlines()
    assert any(note in line for line in text)
    assert any(line.startswith("y      mrr ↑   2        0.5000  1.0000  0.1667  +0.5000 [+0.0000, +1.0000] p=1.0000  "
                               "-0.3333 [") for line in text)
    assert ("| y | mrr ↑ | 2 | 0.5000 | 1.0000 | 0.1667 | +0.5000 [+0.0000, +1.0000] p=1.0000 | -0.3333 ["
            in report.markdown)
    data = report.to_dict()["nodes"][0]
    assert note in data["slice_note"]
    assert data["slice_view"][1]["slice"] == "y" and data["slice_view"][1]["values"] == pytest.approx(
        {"A": 0.5, "B": 1.0, "C": 1 / 6})
    assert [d["p_value"] for d in data["slice_view"][1]["deltas"]] == pytest.approx(list(expected[2:]), abs=1e-12)
    assert compare_report(runs, metrics="mrr", rounds=50).model.nodes[0].slices == ()  # no by: no slice view


def test_every_text_of_the_page_is_escaped_and_nothing_is_fetched(runs):
    page = compare_report([runs["A"], runs["B"]], metrics=["mrr"], rounds=50).html
    assert "</script><b>&" not in page and "what breaks" not in page  # the queries travel packed (gzip, base64)
    packed = re.search(r"id='evalframe-grid'>([A-Za-z0-9+/=]+)</script>", page).group(1)
    assert "what breaks </script><b>& a page?" in json.loads(gzip.decompress(base64.b64decode(packed)))["grids"][0]["query"]
    assert page.count("</script>") == 4  # the two packed payloads and the page's two constant scripts
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", page)


def test_markdown_and_json(runs):
    report = compare_report([runs["A"], runs["B"]], names=["bm25", "hybrid"], metrics=["mrr"], rounds=50)
    lines = report.markdown.splitlines()
    assert lines[0] == "# Comparative report"
    assert "| mrr ↑ | 0.6250 | 0.8750 | +0.2500 " in report.markdown and "<" not in report.markdown.replace("</script>", "")
    data = report.to_dict()
    assert data["runs"] == ["bm25", "hybrid"]
    assert data["nodes"][0]["measures"][0]["values"] == {"bm25": 0.625, "hybrid": 0.875}
    assert math.isclose(data["nodes"][0]["measures"][0]["deltas"][0]["delta"], 0.25)
    # per-query deltas -1/2, 1/2, 0, 1: d_z = mean .25 / sd (ddof 1) sqrt(1.25 / 3); 2 of 4 queries improved
    assert math.isclose(data["nodes"][0]["measures"][0]["deltas"][0]["d_z"], 0.25 / math.sqrt(1.25 / 3), rel_tol=1e-12)
    assert data["nodes"][0]["measures"][0]["deltas"][0]["improved"] == 0.5


def test_save_is_by_suffix_and_leaves_no_temporary_file(runs, tmp_path):
    report = compare_report([runs["A"], runs["B"]], metrics=["mrr"], rounds=50)
    assert report.save(tmp_path / "out.html").read_text(encoding="utf-8") == report.html
    assert json.loads((report.save(tmp_path / "out.json")).read_text(encoding="utf-8"))["kind"] == "comparison"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.html", "out.json"]
    with pytest.raises(InvalidParameterError, match="suffix '.pdf'"):
        report.save(tmp_path / "out.pdf")


def test_a_saved_report_gets_the_permissions_of_a_new_file_or_keeps_the_replaced_ones(runs, tmp_path):
    import os
    import stat

    report = compare_report([runs["A"], runs["B"]], metrics=["mrr"], rounds=50)
    old = os.umask(0o027)
    try:
        fresh = report.save(tmp_path / "fresh.html")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640  # 0o666 less the umask, as open(path, "w") gives
        kept = tmp_path / "kept.html"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o604)
        assert stat.S_IMODE(report.save(kept).stat().st_mode) == 0o604 and kept.read_text(encoding="utf-8") == report.html
    finally:
        os.umask(old)


def test_bad_input_is_named(runs):
    with pytest.raises(InvalidParameterError, match="two runs or more"):
        compare_report([runs["A"]])
    with pytest.raises(InvalidParameterError, match="run 'B' must be"):
        compare_report([runs["A"], 3])
    with pytest.raises(InvalidParameterError, match="nodes names \\['Reader'\\]"):
        compare_report([runs["A"], runs["B"]], nodes=["Reader"])


def test_the_command_compares_folders(runs, tmp_path, capsys):
    folders = [str(runs[name].save(tmp_path / name)) for name in "AB"]
    out = tmp_path / "compare.html"
    assert main(["report", *folders, "--html", str(out), "--names", "bm25,hybrid", "--metric", "mrr",
                 "--by", "meta.topic"]) == 0
    printed = capsys.readouterr().out
    assert "bm25    hybrid" in printed and f"HTML report: {out}" in printed
    assert "evalframe-grid" in out.read_text(encoding="utf-8")
    assert main(["report", *folders, "--format", "markdown", "--metric", "mrr"]) == 0
    assert capsys.readouterr().out.startswith("# Comparative report")


def test_public_names():
    assert evalframe.compare_report is compare_report and "compare_report" in evalframe.__all__


def test_a_comparison_flag_with_one_folder_is_refused(runs, tmp_path, capsys):
    folder = str(runs["A"].save(tmp_path / "A"))
    assert main(["report", folder, "--names", "bm25"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --names is for a comparison of two runs or more")


def test_results_on_dask_give_the_same_report(runs, tmp_path):
    on_cluster = pytest.importorskip("evalframe.dask")
    folders = [runs[name].save(tmp_path / name, format="parquet", partitions=2, progress=False) for name in "AB"]
    on_dask = compare_report([on_cluster.load(folder) for folder in folders], metrics=["mrr"], by="meta.topic",
                             rounds=200)
    in_memory = compare_report([runs["A"], runs["B"]], metrics=["mrr"], by="meta.topic", rounds=200)
    assert on_dask.to_dict() == in_memory.to_dict()
    with pytest.raises(InvalidParameterError, match="on Dask and the others in memory"):
        compare_report([on_cluster.load(folders[0]), runs["B"]])


def test_a_lower_is_better_measure_flips_regressions(runs, monkeypatch):
    from evalframe.report import model

    monkeypatch.setattr(model, "measure_direction", lambda metric, scores=None: "lower")  # the one place directions are read
    node, mrr = _measure(compare_report([runs["A"], runs["B"]], metrics=["mrr"], max_p=0.5, rounds=200))
    assert mrr.direction == "lower" and mrr.deltas[0].change == "worse"  # +1/4 on a lower-is-better measure
    # q2 and q4 rose (+1/2, +1): now the regressions, q4's the larger; q1 fell by 1/2: an improvement
    assert [q.query for q in node.queries[:2]] == [QUERIES[3], QUERIES[1]]
    assert [q.changes[0][0] for q in node.queries] == ["worse", "worse", "better", ""]


@pytest.mark.parametrize(("keyword", "close"), [("node", "nodes"), ("metrcs", "metrics"), ("simulated_top_k_retrievr",
                                                                                          "simulated_top_k_retriever")])
def test_an_unknown_keyword_is_named_as_written_with_a_close_match(runs, keyword, close):
    # node= once reached query_metrics beside its own node argument: a raw TypeError ("multiple values for 'node'")
    with pytest.raises(UnknownArgumentError,
                       match=rf"unknown argument\(s\) \['{keyword}'\]; compare_report takes these options: "
                             rf"\[.*'nodes'.*'eval_mode'.*\]\. Did you mean '{close}'\?"):
        compare_report([runs["A"], runs["B"]], **{keyword: "Retriever"})


def test_a_bad_option_is_refused_before_a_folder_is_loaded(tmp_path):
    missing = tmp_path / "no such folder"
    with pytest.raises(UnknownArgumentError, match=r"\['node'\]; compare_report takes"):
        compare_report([missing, missing], node="X")
    with pytest.raises(InvalidParameterError, match=r"eval_mode must be one of \['integrated', 'isolated'\]; got 'bad'"):
        compare_report([missing, missing], eval_mode="bad")
