"""The Wilcoxon signed-rank test, the sign test and the corrections of compare (issue 37): against scipy and
statsmodels on generated paired data to 1e-12, and by hand."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

import evalframe
from evalframe import InvalidParameterError
from evalframe.analysis.compare import COLUMNS
from evalframe.analysis.stats import CORRECTIONS, adjust_p_values, sign_test_p_value, wilcoxon_p_value
from evalframe.present.cli import main


def scipy_wilcoxon(d: np.ndarray, zero_method: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's small-sample notes
        return float(scipy_stats.wilcoxon(d, zero_method=zero_method).pvalue)


def generated(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "continuous":  # no ties, no zeros: the exact distribution up to 50
        return rng.normal(0.2, 1.0, n)
    if kind == "grades":  # few distinct values: ties and zeros (recall, exact match)
        return rng.integers(-2, 3, n) / 2.0
    return np.round(rng.normal(0.1, 1.0, n), 1)  # some ties, a few zeros


# scipy enumerates the 2**13 sign patterns of n = 13 (ties or zeros) one apply_along_axis call each: 1.5 s a case.
# n = 13 (the last size of every sign pattern) runs in the normal suite for the continuous kind (scipy's exact
# distribution, fast), for grades-pratt and for rounded-zsplit; for the four other cases with ties it runs under the
# stress marker (.ci/run runs it in full); every other n runs in every case
SLOW_AT_13 = {("grades", "wilcox"), ("grades", "zsplit"), ("rounded", "wilcox"), ("rounded", "pratt")}


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("kind", ["continuous", "grades", "rounded"])
def test_wilcoxon_equals_scipy_on_generated_differences(kind, zero_method):
    _wilcoxon_sweep(kind, zero_method, at_13=(kind, zero_method) not in SLOW_AT_13)


@pytest.mark.stress
@pytest.mark.parametrize(("kind", "zero_method"), sorted(SLOW_AT_13))
def test_wilcoxon_equals_scipy_at_13_with_ties(kind, zero_method):
    _wilcoxon_sweep(kind, zero_method, at_13=True)


def _wilcoxon_sweep(kind: str, zero_method: str, at_13: bool) -> None:
    # n from 1 to 120 crosses scipy's switches: exact (<= 50, no ties or zeros), every sign pattern (<= 13 with ties
    # or zeros), normal approximation with the tie correction
    rng = np.random.default_rng(37)
    checked = 0
    for n in [1, 2, 3, 4, 6, 9, 13, 14, 15, 20, 29, 45, 50, 51, 80, 120, 400]:
        d = generated(kind, n, rng)  # drawn at every n, so each case sees the same differences with or without 13
        if (d == 0).all() or (n == 13 and not at_13):
            continue
        expected = scipy_wilcoxon(d, zero_method)
        assert wilcoxon_p_value(d, zero_method=zero_method) == pytest.approx(expected, rel=1e-12, abs=0), (n, d)
        checked += 1
    assert checked >= 16 + at_13  # no size was all zeros


def test_wilcoxon_by_hand():
    # exact: ranks 1..3 all positive, 1 sign pattern of 8 as extreme each side: 2/8
    assert wilcoxon_p_value(np.array([1.0, 2.0, 3.0])) == 0.25
    # ranks 1, 2, 3, 4 with 2 negative: R+ = 8; subsets of {1,2,3,4} summing to >= 8: {1,3,4} {2,3,4} {1,2,3,4}: 2*3/16
    assert wilcoxon_p_value(np.array([1.0, -2.0, 3.0, 4.0])) == 0.375
    # a zero is dropped (wilcox): the three others, all positive, as above; a tie: ranks 1.5 1.5 3, R+ 6 = the maximum
    assert wilcoxon_p_value(np.array([0.0, 1.0, 2.0, 3.0])) == 0.25
    assert wilcoxon_p_value(np.array([1.0, 1.0, 2.0])) == 0.25
    # identical runs: 1, as the randomization test; nothing paired: NaN
    assert wilcoxon_p_value(np.zeros(60)) == 1.0
    assert np.isnan(wilcoxon_p_value(np.array([])))
    with pytest.raises(InvalidParameterError, match=r"zero_method must be one of \['wilcox', 'pratt', 'zsplit'\]; "
                                                    r"got 'drop'"):
        wilcoxon_p_value(np.ones(3), zero_method="drop")


def test_sign_test_equals_scipy_binomtest():
    rng = np.random.default_rng(5)
    for n in [*range(1, 40), 99, 100, 1000, 5000]:
        d = rng.integers(-1, 2, n).astype(float)  # wins, ties, losses
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        if wins + losses == 0:
            continue
        expected = scipy_stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert sign_test_p_value(d) == pytest.approx(expected, rel=1e-12, abs=0), (wins, losses)
    # far in the tail (5000 against 4000 of 9000)
    d = np.concatenate([np.ones(5000), -np.ones(4000)])
    assert sign_test_p_value(d) == pytest.approx(scipy_stats.binomtest(5000, 9000).pvalue, rel=1e-12)


def test_sign_test_by_hand():
    assert sign_test_p_value(np.array([0.5, 0.25, 0.0, 1.0])) == 0.25  # 3 of 3 up, the tie dropped: 2 / 2**3
    assert sign_test_p_value(np.array([1.0, -1, -1, -1, -1])) == 0.375  # 1 of 5: 2 (1 + 5) / 32
    assert sign_test_p_value(np.array([1.0, -2.0])) == 1.0  # as many up as down
    assert sign_test_p_value(np.zeros(4)) == 1.0 and np.isnan(sign_test_p_value(np.array([])))


@pytest.mark.parametrize("correction", [c for c in CORRECTIONS if c != "none"])
def test_corrections_equal_statsmodels_multipletests(correction):
    rng = np.random.default_rng(11)
    warnings.simplefilter("ignore", RuntimeWarning)  # statsmodels' log1p(-1) of a p-value 1
    for m in [1, 2, 3, 5, 10, 40]:
        p = rng.uniform(0, 1, m) ** 3
        p[: m // 3] = p[0]  # tied p-values
        expected = multipletests(p, method=correction)[1]
        np.testing.assert_allclose(adjust_p_values(p, correction), expected, rtol=1e-12, atol=0)
    # NaN (a comparison without paired queries) is no test: the others are corrected as a family of 3
    with_nan = np.array([0.01, np.nan, 0.04, 0.03])
    got = adjust_p_values(with_nan, correction)
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], multipletests(with_nan[[0, 2, 3]], method=correction)[1], rtol=1e-12)


def test_corrections_by_hand():
    p = np.array([0.01, 0.04, 0.03])  # sorted .01 .03 .04
    assert adjust_p_values(p, "bonferroni").tolist() == pytest.approx([0.03, 0.12, 0.09], rel=1e-12)
    assert adjust_p_values(p, "holm").tolist() == pytest.approx([0.03, 0.06, 0.06], rel=1e-12)
    # 1 - .99^3, 1 - .97^2, 1 - .96^1 = .029701 .0591 .04, then the running maximum
    assert adjust_p_values(p, "holm-sidak").tolist() == pytest.approx([0.029701, 0.0591, 0.0591], rel=1e-12)
    # .01*3/1 .03*3/2 .04*3/3 = .03 .045 .04, then the running minimum from the top
    assert adjust_p_values(p, "fdr_bh").tolist() == pytest.approx([0.03, 0.04, 0.04], rel=1e-12)
    # BH times 1 + 1/2 + 1/3 = 11/6
    assert adjust_p_values(p, "fdr_by").tolist() == pytest.approx([0.055, 0.04 * 11 / 6, 0.04 * 11 / 6], rel=1e-12)
    assert adjust_p_values(p, "none").tolist() == p.tolist()
    assert adjust_p_values(np.array([0.6, 0.9]), "bonferroni").tolist() == [1.0, 1.0]
    with pytest.raises(InvalidParameterError, match=r"correction must be one of \['holm', .*'none'\]; got 'bh'"):
        adjust_p_values(p, "bh")


def runs(count: int, n: int = 40, seed: int = 3) -> list[pd.DataFrame]:
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n)], name="multilabel_id")
    # f1 continuous; exact_match 0/1 (ties and zeros)
    return [pd.DataFrame({"f1": rng.uniform(0, 1, n), "exact_match": rng.integers(0, 2, n).astype(float)}, index=index)
            for _ in range(count)]


def test_compare_adds_the_chosen_tests_column_and_keeps_the_others():
    a, b = runs(2)
    default = evalframe.compare(a, b, rounds=200)
    assert list(default.columns) == list(COLUMNS)
    for test, column in (("wilcoxon", "p_wilcoxon"), ("sign", "p_sign")):
        table = evalframe.compare(a, b, rounds=200, test=test, max_p=0.05)
        after = COLUMNS.index("p_ttest") + 1
        assert list(table.columns) == [*COLUMNS[:after], column, *COLUMNS[after:], "significant"]
        pd.testing.assert_frame_equal(table[list(COLUMNS)], default)  # every other number as before
        for metric in ("f1", "exact_match"):
            d = b[metric] - a[metric]
            expected = (scipy_wilcoxon(d.to_numpy(), "wilcox") if test == "wilcoxon" else
                        scipy_stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue)
            assert table.loc[metric, column] == pytest.approx(expected, rel=1e-12)
            assert table.loc[metric, "significant"] == (expected <= 0.05)


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_compare_corrects_over_the_runs_of_each_metric(correction):
    a, b, c, d = runs(4)
    table = evalframe.compare(a, b, c, d, rounds=200, test="wilcoxon", correction=correction, max_p=0.5)
    column = {"holm": "p_holm", "bonferroni": "p_bonferroni", "holm-sidak": "p_holm_sidak", "fdr_bh": "p_fdr_bh",
              "fdr_by": "p_fdr_by", "none": "p_wilcoxon"}[correction]
    added = [c for c in table.columns if c not in (*COLUMNS, "p_wilcoxon", "significant")]
    assert added == ([] if correction == "none" else [column])
    for metric in ("f1", "exact_match"):
        raw = [scipy_wilcoxon((run[metric] - a[metric]).to_numpy(), "wilcox") for run in (b, c, d)]
        rows = table.xs(metric, level="metric")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # statsmodels' log1p(-1) of a p-value 1
            expected = raw if correction == "none" else multipletests(raw, method=correction)[1]
        np.testing.assert_allclose(rows[column].to_numpy(), expected, rtol=1e-12)
        assert rows["significant"].tolist() == [p <= 0.5 for p in expected]
    if correction == "holm":  # the default: today's table
        pd.testing.assert_frame_equal(table.drop(columns="p_wilcoxon"),
                                      evalframe.compare(a, b, c, d, rounds=200, test="wilcoxon", max_p=0.5)
                                      .drop(columns="p_wilcoxon"))


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_compare_treats_zero_differences_as_zero_method_says(zero_method):
    a, b = runs(2)  # exact_match: about half the differences are 0
    table = evalframe.compare(a, b, rounds=10, test="wilcoxon", zero_method=zero_method)
    for metric in ("f1", "exact_match"):
        d = (b[metric] - a[metric]).to_numpy()
        assert table.loc[metric, "p_wilcoxon"] == pytest.approx(scipy_wilcoxon(d, zero_method), rel=1e-12)
    with pytest.raises(InvalidParameterError, match=r"zero_method must be one of \['wilcox', 'pratt', 'zsplit'\]; "
                                                    r"got 'drop'"):
        evalframe.compare(a, b, test="wilcoxon", zero_method="drop")


def test_compare_refuses_an_unknown_test_or_correction():
    a, b = runs(2)
    with pytest.raises(InvalidParameterError, match=r"test must be one of \['randomization', 't-test', 'wilcoxon', "
                                                    r"'sign', 'bootstrap', 'tukey', 'randomized-tukey'\]; got 'anova'"):
        evalframe.compare(a, b, test="anova")
    with pytest.raises(InvalidParameterError, match=r"correction must be one of .*; got 'fdr'. Did you mean"):
        evalframe.compare(a, b, correction="fdr")
    # other spellings of the names
    table = evalframe.compare(a, b, a, rounds=10, correction="FDR-BH", test="Wilcoxon")
    assert "p_fdr_bh" in table.columns


QRELS = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}, "q4": {"d5": 1}, "q5": {"d6": 1}}


def trec_runs() -> list[dict[str, dict[str, float]]]:
    # RR per query: A finds every relevant document first; B and C second or not at all (hand-checked below)
    a = {q: {doc: 2.0 for doc in docs} | {"x": 1.0} for q, docs in QRELS.items()}
    b = {q: {"x": 2.0, next(iter(docs)): 1.0} for q, docs in QRELS.items()}
    c = {"q1": {"x": 2.0}, "q2": {"d3": 2.0}, "q3": {"x": 2.0}, "q4": {"x": 2.0}, "q5": {"x": 2.0}}
    return [a, b, c]


def test_trec_runs_take_the_tests_and_corrections():
    table = evalframe.compare(*trec_runs(), qrels=QRELS, metrics=["RR"], test="sign", correction="bonferroni",
                              rounds=100)
    # B loses every query (RR 1 -> 0.5): sign test 2 / 2**5; C loses four of five (RR 1 -> 0) and ties q2: 2 / 2**4
    assert table.loc[("B", "RR"), "losses"] == 5 and table.loc[("C", "RR"), "losses"] == 4
    assert table["p_sign"].tolist() == pytest.approx([2 / 32, 2 / 16], rel=1e-12)
    assert table["p_bonferroni"].tolist() == pytest.approx([4 / 32, 4 / 16], rel=1e-12)
    assert table["significant"].tolist() == [False, False]  # at trec compare's 0.05
    # Wilcoxon: B's five tied -0.5 (ranks 3 each, R+ 0: 1 of 32 sign patterns each side), C's four -1 (q2's zero
    # dropped: 1 of 16); Benjamini-Hochberg: 1/16 * 2/1 and 1/8 * 2/2, then the minimum from the top: 1/8, 1/8
    table = evalframe.compare(*trec_runs(), qrels=QRELS, metrics=["RR"], test="wilcoxon", correction="fdr_bh",
                              rounds=100)
    assert table["p_wilcoxon"].tolist() == pytest.approx([1 / 16, 1 / 8], rel=1e-12)
    assert table["p_fdr_bh"].tolist() == pytest.approx([1 / 8, 1 / 8], rel=1e-12)


def test_the_command_takes_test_and_correction(tmp_path, capsys):
    files = []
    for name, run in zip("abc", trec_runs()):
        lines = [f"{q} Q0 {doc} {rank} {score} {name}" for q, docs in run.items()
                 for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda item: -item[1]), start=1)]
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {doc} {g}\n" for q, docs in QRELS.items() for doc, g in docs.items()),
                     encoding="utf-8")
    assert main(["compare", *files, "--qrels", str(qrels), "-m", "RR", "--test", "wilcoxon", "--correction", "fdr_bh",
                 "--zero-method", "pratt", "--rounds", "100", "--format", "json"]) == 0
    out = capsys.readouterr().out
    rows = json.loads(out)
    # pratt: C's zero (q2) ranked first then dropped: ranks 3.5 (four tied, 2..5), R+ 0, every sign pattern of the 4
    # non-zero ones: 2/16 again; B as wilcox (no zero): 2/32; BH: 1/8, 1/8
    assert [row["p_wilcoxon"] for row in rows] == pytest.approx([1 / 16, 1 / 8], rel=1e-12)
    assert [row["p_fdr_bh"] for row in rows] == pytest.approx([1 / 8, 1 / 8], rel=1e-12)
    assert main(["compare", *files, "--qrels", str(qrels), "-m", "RR", "--test", "wilcoxon", "--correction", "fdr_bh",
                 "--rounds", "100"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("baseline: a.txt; 5 queries; significant: p_fdr_bh (wilcoxon, "
                                   "Benjamini-Hochberg-corrected) <= 0.05")
    # B: five differences of -0.5, tied: every sign pattern, 2/32; C: four of -1 (q2 tied): 2/16; BH: 2/16, 2/16
    assert "p_wilcoxon" in out and "p_fdr_bh" in out
    with pytest.raises(SystemExit) as usage:
        main(["compare", *files, "--qrels", str(qrels), "-m", "RR", "--correction", "fdr"])
    assert usage.value.code == 2 and "argument --correction: invalid choice: 'fdr'" in capsys.readouterr().err


def test_the_comparative_report_reads_the_wilcoxon_p_values():
    from evalframe import compare_report, load_demo_result

    result = load_demo_result()
    report = compare_report([result, result], test="wilcoxon", rounds=10, metrics=["mrr"])
    text = report.render("text")
    assert "p: the Wilcoxon signed-rank test's p-value, * when at most 0.05" in text
    assert "p=1" in text  # a run against itself: every difference 0
