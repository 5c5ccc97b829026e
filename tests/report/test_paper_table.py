"""The paper table (evalframe.comparison_table, issue 37): superscripts worked out by hand and checked against scipy's
t-test and ranx's compare, the bold best, the caption, the user's text escaped in LaTeX, Markdown and HTML, and the
LaTeX compiled by pdflatex (Debian's texlive-latex-base and texlive-latex-recommended, whose booktabs.sty it needs;
skipped without pdflatex unless EVALFRAME_REQUIRE_LATEX is set, as .ci/run does), its numbers read back."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalframe
from evalframe import ComparisonTable, InvalidParameterError, comparison_table
from evalframe.report.paper import PAPER_FORMATS, latex, table_of_pairs

QUERIES = pd.Index([f"q{i}" for i in range(1, 7)], name="multilabel_id")
# Per-query tables of three runs: on RR A > C > B on every query; on unj@5 (lower is better) A < C < B on every
# query but one; num_ret is a count (direction "none"): no superscript, no bold, however different.
RUN_A = pd.DataFrame({"RR": [1.0, 0.9, 0.8, 1.0, 0.7, 0.9], "unj@5": [0.0, 0.2, 0.0, 0.2, 0.0, 0.2],
                      "num_ret": [10, 10, 10, 10, 10, 10]}, index=QUERIES)
RUN_B = pd.DataFrame({"RR": [0.1, 0.2, 0.0, 0.1, 0.3, 0.2], "unj@5": [0.8, 0.6, 1.0, 0.8, 0.6, 0.8],
                      "num_ret": [5, 6, 5, 6, 5, 6]}, index=QUERIES)
RUN_C = pd.DataFrame({"RR": [0.5, 0.4, 0.6, 0.5, 0.4, 0.5], "unj@5": [0.4, 0.6, 0.4, 0.4, 0.2, 0.4],
                      "num_ret": [20, 20, 20, 20, 20, 20]}, index=QUERIES)
RUNS = {"A": RUN_A, "B": RUN_B, "C": RUN_C}
#: Run names LaTeX, Markdown and HTML would read as markup.
HOSTILE = ["bm25_k1 & 50% $x$ #1", "{dense} ~a^b \\relax", "<b>x|y</b> *z*"]


def test_superscripts_name_the_runs_each_beats_by_the_measures_direction():
    table = comparison_table(RUNS, test="t-test", rounds=100)
    # independently: scipy's paired t-test of every pair is below 0.05 / 3 (so Holm's correction keeps them all)
    for first, second in (("A", "B"), ("A", "C"), ("B", "C")):
        for metric in ("RR", "unj@5"):
            assert stats.ttest_rel(RUNS[first][metric], RUNS[second][metric]).pvalue < 0.05 / 3
    assert table.superscripts().to_dict() == {"RR": {"A": "bc", "B": "", "C": "b"},
                                              "unj@5": {"A": "bc", "B": "", "C": "b"},
                                              "num_ret": {"A": "", "B": "", "C": ""}}
    assert table.better_than.loc["A", "RR"] == ("B", "C") and table.better_than.loc["C", "unj@5"] == ("B",)
    assert table.frame["letter"].tolist() == ["a", "b", "c"]
    # the means: RR A 5.3/6, unj@5 C 2.4/6; num_ret is a sum (trec_eval's aggregation of a count)
    assert table.means.loc["A", "RR"] == pytest.approx(5.3 / 6, abs=1e-12)
    assert table.means.loc["C", "unj@5"] == pytest.approx(2.4 / 6, abs=1e-12)
    assert table.means["num_ret"].tolist() == [60.0, 33.0, 120.0]
    assert table.best() == {"RR": ["A"], "unj@5": ["A"], "num_ret": []}  # the lowest unj@5 is the best
    assert table.markdown.splitlines()[:5] == [
        "| # | Run | RR | unj@5 | num_ret |",
        "|---|---|---:|---:|---:|",
        "| a | A | **0.8833**<sup>bc</sup> | **0.1000**<sup>bc</sup> | 60.0000 |",
        "| b | B | 0.1500 | 0.7667 | 33.0000 |",
        "| c | C | 0.4833<sup>b</sup> | 0.4000<sup>b</sup> | 120.0000 |"]


LATENCY = {"A": [1.0, 1.1, 0.9, 1.2], "B": [2.0, 2.2, 2.1, 2.3], "C": [0.5, 0.4, 0.6, 0.5]}


def test_results_with_a_declared_lower_is_better_score():
    results = {}
    for name, latency in LATENCY.items():
        result = evalframe.load_demo_result()
        queries = result.query_metrics("Reader", with_query=True)["query"].tolist()[:4]
        result.add_scores("Reader", pd.DataFrame({"query": queries, "latency": latency}), direction="lower")
        results[name] = result
    for first, second in (("A", "B"), ("A", "C"), ("B", "C")):  # scipy: every pair differs at 0.05
        assert stats.ttest_rel(LATENCY[first], LATENCY[second]).pvalue < 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the demo's other queries have no latency: compare says so
        table = comparison_table(results, node="Reader", metrics="latency", test="t-test", correction="none",
                                 rounds=100)
    assert table.superscripts()["latency"].to_dict() == {"A": "b", "B": "", "C": "ab"}  # the fastest beats both
    assert table.best() == {"latency": ["C"]} and table.means["latency"].round(12).tolist() == [1.05, 2.15, 0.5]
    assert "over 4 queries" in table.caption


def test_a_difference_that_is_not_significant_carries_no_letter():
    # max_p below the t-test's B-C p-values (0.0055 and 0.0060, scipy) and above the others' Holm-corrected ones
    p_rr = stats.ttest_rel(RUN_B["RR"], RUN_C["RR"]).pvalue
    assert 0.005 < p_rr < 0.006
    table = comparison_table(RUNS, test="t-test", rounds=100, max_p=0.005)
    assert table.superscripts()["RR"].tolist() == ["bc", "", ""]


def test_the_best_is_bold_at_the_digits_shown_and_ties_are_all_bold():
    pairs = pd.DataFrame(
        {"mean_a": [0.50004, 0.50004, 0.50001, 0.3, 0.3, 0.2], "mean_b": [0.50001, 0.1, 0.1, 0.2, 0.1, 0.1],
         "significant": [False] * 6, "queries": [4] * 6},
        index=pd.MultiIndex.from_tuples([("x", "y", "P@5"), ("x", "z", "P@5"), ("y", "z", "P@5"),
                                         ("x", "y", "gm_map"), ("x", "z", "gm_map"), ("y", "z", "gm_map")],
                                        names=["run_a", "run_b", "metric"]))
    table = table_of_pairs(pairs, ["x", "y", "z"], {"P@5": "higher", "gm_map": "lower"}, caption="c", digits=4)
    assert table.best() == {"P@5": ["x", "y"], "gm_map": ["z"]}  # 0.5000 twice at 4 digits
    assert table_of_pairs(pairs, ["x", "y", "z"], {"P@5": "higher", "gm_map": "lower"}, caption="c",
                          digits=5).best()["P@5"] == ["x"]
    assert table.latex.splitlines()[10] == "c & z & 0.1000\\hphantom{$^{ab}$} & \\textbf{0.1000}\\hphantom{$^{ab}$} \\\\"


def test_the_caption_states_test_correction_family_max_p_and_queries():
    table = comparison_table(RUNS, test="randomization", rounds=500, seed=7, max_p=0.01)
    assert table.caption == (
        "Mean of each measure over 6 queries; the best of each measure in bold. A superscript names the runs (by "
        "letter) that a run is significantly better than: the two-sided paired randomization test (500 rounds, seed "
        "7), p ≤ 0.01, Holm's correction over the 3 pairs of runs of each measure.")
    both = comparison_table(RUNS, test="t-test", rounds=100, correction="bonferroni", family=["runs", "measures"])
    assert both.caption.endswith("the two-sided paired t-test, p ≤ 0.05, Bonferroni's correction over all 9 "
                                 "comparisons of the table.")
    measures = comparison_table(RUNS, test="wilcoxon", rounds=100, correction="fdr_bh", family="measures")
    assert measures.caption.endswith("the Wilcoxon signed-rank test (zero differences: wilcox), p ≤ 0.05, the "
                                     "Benjamini-Hochberg correction over the 3 measures of each pair of runs.")
    assert comparison_table(RUNS, test="t-test", rounds=100, correction="none").caption.endswith(
        "p ≤ 0.05, no correction for multiple comparisons.")
    two = comparison_table({"A": RUN_A, "B": RUN_B}, test="sign", rounds=100)  # one pair per measure: nothing to correct
    assert two.caption.endswith("the sign test, p ≤ 0.05, no correction (each family holds one comparison).")
    assert "\\caption{" in table.latex and "$p \\leq 0.01$" in table.latex
    assert f"<caption>{table.caption.replace(chr(39), '&#x27;')}</caption>" in table.html


def test_the_users_text_is_escaped_in_every_format():
    assert latex("a_b & c% $d$ #e {f} ~g ^h \\i <j> |k") == (
        "a\\_b \\& c\\% \\$d\\$ \\#e \\{f\\} \\textasciitilde{}g \\textasciicircum{}h \\textbackslash{}i "
        "\\textless{}j\\textgreater{} \\textbar{}k")
    assert latex("nul\x00 esc\x1b line\nbreak") == "nul\\textasciicircum{}@ esc\\textasciicircum{}[ line break"
    table = comparison_table(dict(zip(HOSTILE, RUNS.values())), test="t-test", rounds=100)
    rows = table.latex.splitlines()
    assert rows[8].startswith("a & bm25\\_k1 \\& 50\\% \\$x\\$ \\#1 & ")
    assert rows[9].startswith("b & \\{dense\\} \\textasciitilde{}a\\textasciicircum{}b \\textbackslash{}relax & ")
    assert "| c | \\<b\\>x\\|y\\</b\\> \\*z\\* | 0.4833<sup>b</sup> |" in table.markdown
    assert "<td>&lt;b&gt;x|y&lt;/b&gt; *z*</td>" in table.html and "<b>x" not in table.html


def _found(package: str) -> bool:
    """Whether TeX finds ``package`` (kpsewhich, installed with pdflatex)."""
    done = subprocess.run(["kpsewhich", package], capture_output=True, text=True, timeout=30)
    return done.returncode == 0 and bool(done.stdout.strip())


def _compiles(source: str, tmp_path) -> str:
    document = tmp_path / "table.tex"
    document.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + source
                        + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", document.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "table.pdf").stat().st_size > 0
    return done.stdout


def test_the_latex_compiles_and_its_numbers_are_the_apis(tmp_path):
    missing = ("pdflatex is not installed" if shutil.which("pdflatex") is None else
               "booktabs.sty is not installed" if not _found("booktabs.sty") else None)
    if missing:
        install = f"{missing} (apt-get install texlive-latex-base texlive-latex-recommended)"
        if os.environ.get("EVALFRAME_REQUIRE_LATEX"):  # set by .ci/run, which installs Debian's TeX
            pytest.fail(f"EVALFRAME_REQUIRE_LATEX is set but {install}")
        pytest.skip(install)
    table = comparison_table(dict(zip(HOSTILE, RUNS.values())), test="t-test", rounds=100, digits=3)
    _compiles(table.latex, tmp_path)
    body = table.latex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    cell = re.compile(r"^(\\textbf\{)?(-?\d+\.\d{3})\}?(?:\$\^\{([a-z]*)\}\$)?(?:\\hphantom\{\$\^\{[a-z]*\}\$\})?$")
    for row, (name, means) in zip(body, table.means.iterrows()):
        cells = row.removesuffix(" \\\\").split(" & ")[-3:]
        parsed = [cell.match(text) for text in cells]
        assert all(parsed), cells
        assert [float(match.group(2)) for match in parsed] == [round(float(v), 3) for v in means]
        assert [match.group(3) or "" for match in parsed] == table.superscripts().loc[name].tolist()
        assert [bool(match.group(1)) for match in parsed] == [name in table.best()[m] for m in table.metrics]


def test_errors_name_the_parameter():
    with pytest.raises(InvalidParameterError, match=r"got a dict whose values are not runs \(one TREC run\?"):
        comparison_table({"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, qrels={"q1": {"d1": 1}})
    with pytest.raises(InvalidParameterError, match=r"runs must hold two or more runs; got 1"):
        comparison_table([RUN_A])
    with pytest.raises(InvalidParameterError, match=r"names= names the runs of a list"):
        comparison_table(RUNS, names=["x", "y", "z"])
    with pytest.raises(InvalidParameterError, match=r"digits must be an int from 0 to 15 .*; got -1"):
        comparison_table(RUNS, digits=-1)
    with pytest.raises(InvalidParameterError, match=r"compares every pair of runs \(pairs='all'\); leave pairs out"):
        comparison_table(RUNS, pairs="first")
    many = {f"r{i}": RUN_A for i in range(27)}
    with pytest.raises(InvalidParameterError, match=r"letters a to z: at most 26 runs; got 27"):
        comparison_table(many)
    with pytest.raises(InvalidParameterError, match=r"format must be one of \['latex', 'markdown', 'html'\]; got 'csv'"):
        comparison_table(RUNS, test="t-test", rounds=100).render("csv")


def test_a_list_of_runs_is_named_like_compares_and_saved_by_suffix(tmp_path):
    table = comparison_table([RUN_A, RUN_B, RUN_C], test="t-test", rounds=100, metrics=["RR"])
    assert isinstance(table, ComparisonTable) and table.names == ["A", "B", "C"]
    assert str(table) == table.markdown
    for suffix, fmt in ((".tex", "latex"), (".md", "markdown"), (".html", "html")):
        path = table.save(tmp_path / f"t{suffix}")
        assert path.read_text(encoding="utf-8") == PAPER_FORMATS[fmt].render(table) + "\n"
    with pytest.raises(InvalidParameterError, match=r"the suffix '\.pdf' names no format of the paper table"):
        table.save(tmp_path / "t.pdf")


def _ranked_runs(seed: int) -> tuple[dict, dict]:
    """Graded qrels of 30 queries and four runs of distinct scores over every judged document, of growing quality."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.choice(3, p=[0.6, 0.25, 0.15])) for d in range(12)} for q in range(30)}
    for grades in qrels.values():
        grades["d0"] = max(grades["d0"], 1)
    runs = {name: {qid: {docid: float(rng.random() + bias * grade) for docid, grade in grades.items()}
                   for qid, grades in qrels.items()}
            for name, bias in (("bm25", 0.0), ("dense", 0.3), ("hybrid", 0.45), ("random", -0.2))}
    return qrels, runs


#: evalframe's measures and ranx's names for them.
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "P@5": "precision@5", "RR": "mrr"}


@pytest.mark.stress  # numba compiles ranx's kernels on first use: 15 to 40 s on a 2-core machine, too long for the suite
def test_superscripts_and_means_are_ranxs():
    ranx = pytest.importorskip("ranx")
    qrels, runs = _ranked_runs(5)
    ranx_runs = []
    for name, run in runs.items():
        ranx_run = ranx.Run.from_dict(run)
        ranx_run.name = name
        ranx_runs.append(ranx_run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's
        report = ranx.compare(ranx.Qrels.from_dict(qrels), ranx_runs, metrics=list(RANX.values()), stat_test="student",
                              max_p=0.05)
    # ranx corrects nothing: its "significant" is the t-test's p-value <= max_p
    table = comparison_table(runs, qrels=qrels, metrics=list(RANX), test="t-test", rounds=100, correction="none", max_p=0.05)
    names = list(runs)
    letters = dict(zip(names, "abcd"))
    marks = table.superscripts()
    found = 0
    for name in names:
        for measure, key in RANX.items():
            assert table.means.loc[name, measure] == pytest.approx(report.results[name][key], abs=1e-12)
            theirs = {letters[other] for other in names if other != name
                      and report.comparisons[name, other][key]["significant"]
                      and report.results[name][key] > report.results[other][key]}
            assert set(marks.loc[name, measure]) == theirs, (name, measure)
            found += len(theirs)
    assert found >= 8  # the runs differ enough for the check to mean something
    # the superscripts of ranx's own LaTeX table are ours too
    ranx_rows = report.to_latex().split("\\midrule")[1].split("\\bottomrule")[0]
    score = re.compile(r"^(?:\\textbf\{)?\d+\.\d+\}?(?:\$\^\{([a-z]+)\}\$)?")
    ranx_marks = [match.group(1) or "" for match in map(score.match, ranx_rows.splitlines()) if match]
    assert ranx_marks == [marks.loc[name, measure] for name in names for measure in RANX]


def test_the_package_exports_it():
    assert evalframe.comparison_table is comparison_table and "comparison_table" in evalframe.__all__


@pytest.mark.parametrize("test, words", [("tukey", "Tukey's HSD test"),
                                         ("randomized-tukey", "the randomized Tukey HSD test")])
def test_the_caption_of_a_test_of_all_pairs_says_it_adjusts_over_the_pairs(test, words):
    """Tukey's tests adjust their p-values over the pairs of runs themselves: the caption says so (it said "no
    correction (each family holds one comparison)" of three pairs)."""
    q = [f"q{i}" for i in range(10)]
    runs = {name: pd.DataFrame({"RR": np.linspace(0.1, 0.9, 10) + shift}, index=q)
            for name, shift in (("x", 0.0), ("y", 0.05), ("z", 0.1))}
    table = comparison_table(runs, test=test, rounds=200)
    assert table.caption == ("Mean of each measure over 10 queries; the best of each measure in bold. A superscript "
                             f"names the runs (by letter) that a run is significantly better than: {words}, p ≤ 0.05, "
                             "adjusted over the 3 pairs of runs of each measure by the test, no further correction.")


def test_per_query_tables_with_declared_scores_are_marked_by_their_direction():
    # a judge score declared lower-is-better on per-query tables (evalframe serve's stored runs): b's latencies are
    # 5-7 against a's 10-13 on every query, so b (mean 45 / 8 = 5.625; a: 91 / 8 = 11.375) is the better, marked
    # over a; before, the table refused the column as unknown
    from evalframe.analysis.protocol import QueryTable
    from evalframe import score_measure

    index = [f"q{i}" for i in range(8)]
    a = pd.DataFrame({"latency": [10.0, 12, 11, 13, 12, 11, 10, 12]}, index=index)
    b = pd.DataFrame({"latency": [5.0, 6, 5, 7, 6, 5, 6, 5]}, index=index)
    lower = {"latency": score_measure("latency", direction="lower")}
    markdown = comparison_table({"a": QueryTable(a, lower), "b": QueryTable(b, lower)}, test="t").markdown
    assert "| a | a | 11.3750 |" in markdown and "| b | b | **5.6250**<sup>a</sup> |" in markdown
