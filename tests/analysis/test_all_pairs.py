"""compare of all pairs of N runs (issue 37): pairs="all", the correction's family (family=), Tukey's HSD and the
randomized Tukey HSD, in memory, on TREC runs and on the command line; checked against scipy (ttest_rel, tukey_hsd),
statsmodels' multipletests, an exact enumeration of the permutations, and ranx's compare (stress: numba compiles)."""

from __future__ import annotations

import functools
import io
import itertools
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.multitest import multipletests

import evalframe
from evalframe import InvalidParameterError
from evalframe.analysis import all_pairs
from evalframe.analysis.all_pairs import randomized_tukey_p_values
from evalframe.present.cli import main
from tests.test_trec_compare import _random_runs, write_qrels, write_run

METRICS = ["mrr", "ndcg", "recall_multi_hit"]
#: statsmodels' names of compare's corrections, and their columns.
METHODS = {"holm": ("holm", "p_holm"), "bonferroni": ("bonferroni", "p_bonferroni"),
           "holm-sidak": ("holm-sidak", "p_holm_sidak"), "fdr_bh": ("fdr_bh", "p_fdr_bh"),
           "fdr_by": ("fdr_by", "p_fdr_by")}


def tables(runs: int = 4, n: int = 30, seed: int = 3) -> list[pd.DataFrame]:
    """Per-query tables of ``runs`` runs on ``n`` queries, each run better than the last by a little; the last run
    misses one query (the pairs with it use the others, Tukey's test the queries every run scored)."""
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n)], name="multilabel_id")
    made = []
    for position in range(runs):
        table = pd.DataFrame({"mrr": np.clip(rng.random(n) + 0.15 * position, 0, 1),
                              "ndcg": rng.random(n) ** (1 + 0.2 * position),
                              "recall_multi_hit": rng.integers(0, 3, n) / 2}, index=index)
        made.append(table)
    made[-1].loc["q0", :] = np.nan
    return made


def paired_values(runs: list[pd.DataFrame], i: int, j: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
    both = runs[i][metric].notna() & runs[j][metric].notna()
    return runs[i][metric][both].to_numpy(), runs[j][metric][both].to_numpy()


def scipy_t_p(runs: list[pd.DataFrame], i: int, j: int, metric: str) -> float:
    a, b = paired_values(runs, i, j, metric)
    return float(scipy_stats.ttest_rel(b, a).pvalue)


def expected_corrected(index: pd.MultiIndex, p: np.ndarray, method: str, family: tuple[str, ...]) -> np.ndarray:
    """multipletests over each family, the comparisons sharing the levels the family does not span."""
    spanned = {"runs": {"run_a", "run_b", "run"}, "measures": {"metric"}}
    levels = {level for dimension in family for level in spanned[dimension]}
    held = [level for level in index.names if level not in levels]
    keys = [tuple(index.get_level_values(level)[k] for level in held) for k in range(len(index))]
    adjusted = np.full(len(p), np.nan)
    for key in dict.fromkeys(keys):
        members = [k for k in range(len(keys)) if keys[k] == key]
        adjusted[members] = multipletests(p[members], method=method)[1]
    return adjusted


def compared(*runs, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unpaired query of the last run is announced
        return evalframe.compare(*runs, **options)


# -------------------------------------------------------------------------- pairs="all" and the family
def test_all_pairs_index_and_t_test_p_values_are_scipys():
    runs = tables()
    table = compared(*runs, metrics=METRICS, pairs="all", test="t-test", rounds=50, correction="none")
    pairs = list(itertools.combinations("ABCD", 2))
    assert table.index.names == ["run_a", "run_b", "metric"]
    assert list(table.index) == [(a, b, metric) for a, b in pairs for metric in METRICS]
    assert "p_holm" not in table.columns and "significant" not in table.columns
    for (a, b), metric in itertools.product(pairs, METRICS):
        i, j = "ABCD".index(a), "ABCD".index(b)
        row = table.loc[(a, b, metric)]
        values_a, values_b = paired_values(runs, i, j, metric)
        assert row["queries"] == len(values_a) == (29 if b == "D" else 30)
        assert (row["mean_a"], row["mean_b"]) == pytest.approx((values_a.mean(), values_b.mean()), abs=1e-12)
        assert row["p_ttest"] == pytest.approx(scipy_t_p(runs, i, j, metric), abs=1e-12)


@pytest.mark.parametrize(("correction", "family"), [
    ("holm", ("runs",)), ("holm", ("measures",)), ("bonferroni", ("measures",)), ("holm-sidak", ("runs", "measures")),
    ("fdr_bh", ("runs", "measures")), ("fdr_by", ("runs",))])
def test_the_correction_is_multipletests_over_the_family(correction, family):
    runs = tables()
    table = compared(*runs, metrics=METRICS, pairs="all", test="t-test", rounds=20, correction=correction,
                     family=",".join(family), max_p=0.05)
    p = np.array([scipy_t_p(runs, "ABCD".index(a), "ABCD".index(b), metric) for a, b, metric in table.index])
    method, column = METHODS[correction]
    expected = expected_corrected(table.index, p, method, family)
    np.testing.assert_allclose(table[column].to_numpy(), expected, rtol=0, atol=1e-12)
    # significant reads the corrected column
    assert table["significant"].tolist() == (expected <= 0.05).tolist()
    assert (table[column] > table["p_ttest"]).any()  # the correction did something


def test_the_family_of_runs_compared_with_the_first():
    runs = tables()
    table = compared(*runs, metrics=METRICS, test="t-test", rounds=20, family="measures", correction="bonferroni")
    assert table.index.names == ["run", "metric"]  # pairs="first": each with A
    p = np.array([scipy_t_p(runs, 0, "ABCD".index(name), metric) for name, metric in table.index])
    # the family is the metrics of each run: 3 comparisons
    np.testing.assert_allclose(table["p_bonferroni"].to_numpy(), np.minimum(3 * p, 1), rtol=0, atol=1e-12)


@pytest.mark.parametrize(("family", "pattern"), [
    ("run", r"family must be one of \['runs', 'measures', 'slices'\].*got 'run'.*Did you mean 'runs'"),
    ("runs,runs", r"family names a dimension twice"),
    ("", r"family must be one of"),
    (3, r"family must be one of \['runs', 'measures', 'slices'\] or several of them"),
    (["measures", "slices"], r"family \['measures', 'slices'\] spans the slices, which only a comparison per slice has"),
])
def test_a_bad_family_is_refused_naming_the_parameter(family, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        compared(*tables(3), metrics=METRICS, pairs="all", family=family, rounds=20)


def test_bad_pairs_is_refused():
    with pytest.raises(InvalidParameterError, match=r"pairs must be one of \['first', 'all'\]; got 'every'"):
        compared(*tables(3), metrics=METRICS, pairs="every", rounds=20)


# -------------------------------------------------------------------------- Tukey's HSD
def common(runs: list[pd.DataFrame], metric: str) -> list[np.ndarray]:
    scored = pd.concat([run[metric] for run in runs], axis=1).dropna()
    return [scored.iloc[:, k].to_numpy() for k in range(len(runs))]


@functools.lru_cache(maxsize=None)
def scipy_tukey(runs: int, metric: str) -> np.ndarray:
    """scipy's Tukey HSD p-values of ``tables(runs)`` (its studentized range is integrated per value: slow)."""
    return scipy_stats.tukey_hsd(*common(tables(runs), metric)).pvalue


def test_tukey_is_scipys_tukey_hsd_on_the_queries_every_run_scored():
    runs = tables(3)
    table = compared(*runs, metrics=METRICS, test="tukey", rounds=20, max_p=0.05)
    assert table.index.names == ["run_a", "run_b", "metric"] and len(table) == 3 * 3  # all pairs, implied
    columns = list(table.columns)
    assert columns[columns.index("p_ttest") + 1] == "p_tukey"
    assert not {"p_holm", "p_bonferroni"} & set(columns)  # already adjusted over the pairs: no correction over runs
    for metric in METRICS:
        for a, b in itertools.combinations("ABC", 2):
            got = table.loc[(a, b, metric), "p_tukey"]
            assert got == pytest.approx(scipy_tukey(3, metric)["ABC".index(a), "ABC".index(b)], rel=1e-12, abs=1e-15)
    assert table["significant"].tolist() == (table["p_tukey"] <= 0.05).tolist()
    assert table["significant"].any() and not table["significant"].all()
    # two runs: the one pair, still indexed (run_a, run_b, metric)
    two = compared(runs[0], runs[1], metrics="mrr", test="tukey", rounds=20)
    assert list(two.index) == [("A", "B", "mrr")]
    assert two["p_tukey"].iloc[0] == pytest.approx(
        scipy_stats.tukey_hsd(*common(runs[:2], "mrr")).pvalue[0, 1], rel=1e-12)


def test_tukey_with_a_correction_over_the_measures():
    runs = tables(3)
    # the runs are the test's own family: "runs,measures" corrects over the measures of each pair, as "measures"
    table = compared(*runs, metrics=METRICS[:2], test="tukey", rounds=20, correction="holm", family="runs,measures")
    p = np.array([scipy_tukey(3, metric)["ABC".index(a), "ABC".index(b)] for a, b, metric in table.index])
    expected = expected_corrected(table.index, p, "holm", ("measures",))
    np.testing.assert_allclose(table["p_holm"].to_numpy(), expected, rtol=0, atol=1e-12)
    assert (table["p_holm"] > table["p_tukey"]).any()


def test_an_all_pairs_test_refuses_a_correction_over_runs():
    pattern = (r"test='tukey' adjusts its p-values over the pairs of runs of each metric itself, so "
               r"correction='fdr_bh' can only adjust them over the measures: pass family='measures'")
    with pytest.raises(InvalidParameterError, match=pattern):
        compared(*tables(3), metrics=METRICS, test="tukey", correction="fdr_bh")
    with pytest.raises(InvalidParameterError, match=r"test='randomized-tukey'.*correction='bonferroni'"):
        compared(*tables(3), metrics=METRICS, test="randomised-tukey", correction="bonferroni", family="runs")


def test_tukey_of_runs_without_spread_or_pairs():
    index = pd.Index(["q1", "q2", "q3"])
    same = pd.DataFrame({"mrr": [1.0, 1.0, 1.0]}, index=index)
    other = pd.DataFrame({"mrr": [0.5, 0.5, 0.5]}, index=index)
    table = compared(same, same, other, metrics="mrr", test="tukey", rounds=20)
    # no spread within a run: equal means 1, different means 0 (scipy divides by 0)
    assert table["p_tukey"].tolist() == [1.0, 0.0, 0.0]
    one = compared(same.iloc[:1], other.iloc[:1], metrics="mrr", test="tukey", rounds=20)
    assert np.isnan(one["p_tukey"].iloc[0])  # one query: no degrees of freedom


# -------------------------------------------------------------------------- the randomized Tukey HSD
#: A tiny case: N = 3 runs (columns) on n = 4 queries, enumerated exactly over its (3!)^4 = 1296 permutations.
TINY = np.array([[0.9, 0.2, 0.5], [0.7, 0.4, 0.4], [1.0, 0.3, 0.8], [0.6, 0.6, 0.1]])


def exact_randomized_tukey(values: np.ndarray) -> np.ndarray:
    n, runs = values.shape
    means = values.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    ranges = []
    for choice in itertools.product(itertools.permutations(range(runs)), repeat=n):
        permuted = np.array([values[q, list(order)] for q, order in enumerate(choice)]).mean(axis=0)
        ranges.append(permuted.max() - permuted.min())
    ranges_ = np.array(ranges)
    return np.array([[np.mean(ranges_ >= observed[i, j] - 1e-12) for j in range(runs)] for i in range(runs)])


def test_randomized_tukey_within_its_monte_carlo_error_of_the_exact_enumeration():
    exact = exact_randomized_tukey(TINY)
    rounds = 10_000
    got = randomized_tukey_p_values(TINY, rounds=rounds, rng=np.random.default_rng(1))
    error = np.sqrt(exact * (1 - exact) / rounds)
    assert (np.abs(got - exact) <= 4 * error + 1 / (rounds + 1)).all(), (got, exact)
    assert 0.01 < exact[0, 1] < 0.2  # a case in between, for the check to mean something
    assert np.diag(got).tolist() == [1.0, 1.0, 1.0]


def test_randomized_tukey_sorting_random_keys_in_small_blocks(monkeypatch):
    # the path of many runs (their N! orders too many to list), forced by a tiny block: 5 rounds a block here
    monkeypatch.setattr(all_pairs, "_BLOCK", 64)
    exact = exact_randomized_tukey(TINY)
    got = randomized_tukey_p_values(TINY, rounds=10_000, rng=np.random.default_rng(2))
    error = np.sqrt(exact * (1 - exact) / 10_000)
    assert (np.abs(got - exact) <= 4 * error + 1 / 10_001).all(), (got, exact)


def test_randomized_tukey_in_compare_seeded():
    runs = [pd.DataFrame({"mrr": TINY[:, k]}, index=[f"q{i}" for i in range(4)]) for k in range(3)]
    table = compared(*runs, metrics="mrr", test="randomized-tukey", rounds=10_000, seed=5, max_p=0.05)
    exact = exact_randomized_tukey(TINY)
    for a, b, _ in table.index:
        i, j = "ABC".index(a), "ABC".index(b)
        error = np.sqrt(exact[i, j] * (1 - exact[i, j]) / 10_000)
        assert abs(table.loc[(a, b, "mrr"), "p_randomized_tukey"] - exact[i, j]) <= 4 * error + 1e-4
    again = compared(*runs, metrics="mrr", test="randomized-tukey", rounds=10_000, seed=5, max_p=0.05)
    assert again["p_randomized_tukey"].tolist() == table["p_randomized_tukey"].tolist()  # same seed, same value
    other = compared(*runs, metrics="mrr", test="randomized-tukey", rounds=10_000, seed=6)
    assert other["p_randomized_tukey"].tolist() != table["p_randomized_tukey"].tolist()
    assert table["significant"].tolist() == (table["p_randomized_tukey"] <= 0.05).tolist()
    # identical runs: every round reaches a difference of 0
    same = compared(runs[0], runs[0], runs[0], metrics="mrr", test="randomized-tukey", rounds=100)
    assert same["p_randomized_tukey"].tolist() == [1.0, 1.0, 1.0]


def test_randomized_tukey_refuses_a_bad_generator():
    with pytest.raises(InvalidParameterError, match=r"rng must be a numpy.random.Generator"):
        randomized_tukey_p_values(TINY, rounds=10, rng=0)  # type: ignore[arg-type]


# -------------------------------------------------------------------------- TREC runs and the command
PYTREC = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}


def pytrec_values(qrels, runs):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10"})
    per_query = [evaluator.evaluate(run) for run in runs]
    queries = [qid for qid in per_query[0] if all(qid in found for found in per_query)]
    return {measure: [np.array([found[qid][key] for qid in queries]) for found in per_query]
            for measure, key in PYTREC.items()}


def test_trec_runs_all_pairs_family_and_tukey_against_pytrec_eval_and_scipy():
    qrels, runs = _random_runs(9, queries=20, runs=3)
    values = pytrec_values(qrels, runs)
    table = compared(*runs, qrels=qrels, metrics=list(PYTREC), pairs="all", family=["runs", "measures"],
                     correction="fdr_bh", test="t-test", rounds=20)
    assert list(table.index) == [(a, b, m) for a, b in itertools.combinations("ABC", 2) for m in PYTREC]
    p = np.array([scipy_stats.ttest_rel(values[m]["ABC".index(b)], values[m]["ABC".index(a)]).pvalue
                  for a, b, m in table.index])
    np.testing.assert_allclose(table["p_ttest"].to_numpy(), p, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table["p_fdr_bh"].to_numpy(), multipletests(p, method="fdr_bh")[1], rtol=0, atol=1e-12)
    assert table["significant"].tolist() == (multipletests(p, method="fdr_bh")[1] <= 0.05).tolist()
    tukey = compared(*runs, qrels=qrels, metrics=["AP", "P@10"], test="tukey", rounds=20)
    for a, b, m in tukey.index:
        reference = scipy_stats.tukey_hsd(*values[m]).pvalue["ABC".index(a), "ABC".index(b)]
        assert tukey.loc[(a, b, m), "p_tukey"] == pytest.approx(reference, rel=1e-12, abs=1e-15)


def test_the_command_compares_all_pairs(tmp_path, capsys):
    qrels, runs = _random_runs(9, queries=20, runs=3)
    values = pytrec_values(qrels, runs)
    qrels_file = write_qrels(tmp_path / "qrels.txt", qrels)
    files = [write_run(tmp_path / f"{name}.run", run) for name, run in zip("abc", runs)]
    argv = ["compare", *files, "--qrels", qrels_file, "-m", "AP", "-m", "P@10", "--pairs", "all", "--family",
            "runs,measures", "--correction", "fdr_bh", "--test", "t-test", "--rounds", "20", "--format", "csv"]
    assert main(argv) == 0
    shown = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(shown.columns[:3]) == ["run_a", "run_b", "metric"]
    assert list(zip(shown["run_a"], shown["run_b"])) == [(x, y) for x, y in itertools.combinations(
        ["a.run", "b.run", "c.run"], 2) for _ in range(2)]
    p = np.array([scipy_stats.ttest_rel(values[m]["abc".index(b[0])], values[m]["abc".index(a[0])]).pvalue
                  for a, b, m in zip(shown["run_a"], shown["run_b"], shown["metric"])])
    np.testing.assert_allclose(shown["p_fdr_bh"].to_numpy(), multipletests(p, method="fdr_bh")[1], rtol=1e-9)
    assert main(argv[:-2]) == 0  # the table format: its header line names the test and the correction
    assert capsys.readouterr().out.splitlines()[0] == (
        "all pairs of a.run, b.run, c.run; 13 queries; significant: p_fdr_bh (t-test, Benjamini-Hochberg-corrected "
        "over runs x measures) <= 0.05")
    tukey = ["compare", *files, "--qrels", qrels_file, "-m", "AP", "--test", "tukey", "--rounds", "20"]
    assert main(tukey) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "all pairs of a.run, b.run, c.run; 13 queries; significant: p_tukey (tukey, adjusted over the pairs of each "
        "measure) <= 0.05")
    assert main([*tukey, "-m", "P@10", "--family", "measures", "--correction", "bonferroni"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "all pairs of a.run, b.run, c.run; 13 queries; significant: p_bonferroni (tukey, adjusted over the pairs of "
        "each measure, Bonferroni-corrected over measures) <= 0.05")


@pytest.mark.parametrize(("extra", "pattern"), [
    (["--family", "run"], r"^error: --family must be one of \['runs', 'measures', 'slices'\].*got 'run'"),
    (["--test", "tukey", "--correction", "fdr_bh"], r"^error: --correction: test='tukey' adjusts its p-values.*"
                                                     r"pass family='measures' \(--family measures\)"),
])
def test_the_command_refuses_a_bad_family(tmp_path, capsys, extra, pattern):
    qrels, runs = _random_runs(9, queries=8, runs=3)
    files = [write_run(tmp_path / f"{name}.run", run) for name, run in zip("abc", runs)]
    assert main(["compare", *files, "--qrels", write_qrels(tmp_path / "q.txt", qrels), "-m", "AP", *extra]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(pattern, err), err


def test_all_pairs_pair_each_queries_as_two_runs_alone():
    """compare(pairs="all") matches the queries of every pair by one code per query id over all tables: each row
    equals compare of that pair alone (queries in another order, missing from a run, NaN in one)."""
    rng = np.random.default_rng(4)
    queries = [f"q{i}" for i in range(30)]
    runs = [pd.DataFrame({"ndcg": rng.random(30), "mrr": rng.random(30)}, index=queries).sample(frac=0.9, random_state=k)
            for k in range(3)]
    runs[1].iloc[2:5, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = evalframe.compare(*runs, names=["a", "b", "c"], pairs="all", rounds=300, correction="none")
        for (i, first), (j, second) in itertools.combinations(enumerate("abc"), 2):
            alone = evalframe.compare(runs[i], runs[j], rounds=300)
            got = table.loc[(first, second)]
            pd.testing.assert_frame_equal(got[alone.columns], alone, check_names=False)


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_a_per_query_table_without_a_query_id_is_refused(missing):
    """A missing id names no query: pairing it could only be by accident (it was paired with the last query id)."""
    a = pd.DataFrame({"f1": [1.0, 0.5, 0.2]}, index=pd.Index(["q1", missing, "q3"], dtype=object))
    b = pd.DataFrame({"f1": [0.0, 1.0]}, index=pd.Index(["q3", "q1"], dtype=object))
    with pytest.raises(InvalidParameterError, match=r"run 'A': the per-query table's index has no query id at "
                                                    r"position 1 \(1 missing in all\)"):
        evalframe.compare(a, b, rounds=100)


@pytest.mark.parametrize("test", ["tukey", "randomized-tukey"])
def test_a_test_of_all_pairs_is_refused_per_slice(test):
    """Tukey's tests read the queries every run scored at once: per slice (by=) they are refused, naming the paired
    tests that work per slice (they used to fail with a KeyError from deep inside the table's assembly)."""
    q = [f"q{i}" for i in range(12)]
    runs = [pd.DataFrame({"ndcg": np.linspace(0, 1, 12) ** (k + 1), "grp": ["a", "b"] * 6}, index=q) for k in range(3)]
    with pytest.raises(InvalidParameterError, match=rf"test='{test}' tests all pairs of runs at once .* not per slice; "
                                                    r"per slice, pass a paired test"):
        evalframe.compare(*runs, by="grp", metrics="ndcg", test=test)


# -------------------------------------------------------------------------- ranx
#: evalframe's measures and ranx's names for them.
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "RR": "mrr"}


@pytest.mark.stress  # numba compiles ranx's kernels on first use: 15 to 40 s on a 2-core machine
def test_the_all_pairs_table_is_ranxs():
    ranx = pytest.importorskip("ranx")
    qrels, runs = _random_runs(13, queries=15, runs=3)
    names = ["bm25", "dense", "hybrid"]
    ranx_runs = []
    for name, run in zip(names, runs):
        ranx_run = ranx.Run.from_dict({qid: dict(scores) for qid, scores in run.items()})
        ranx_run.name = name
        ranx_runs.append(ranx_run)
    # ranx rounds the report it prints (rounding_digits=3), not report.results nor report.comparisons: raw numbers
    reports = {test: ranx.compare(ranx.Qrels.from_dict(qrels), ranx_runs, metrics=list(RANX.values()),
                                  stat_test=test, max_p=0.05, make_comparable=True)
               for test in ("student", "tukey")}
    options = {"qrels": qrels, "metrics": list(RANX), "names": names, "complete": True, "rounds": 20, "max_p": 0.05}
    student = compared(*runs, pairs="all", test="t-test", correction="none", **options)
    tukey = compared(*runs, test="tukey", **options)
    for a, b in itertools.combinations(names, 2):
        for measure, key in RANX.items():
            row = student.loc[(a, b, measure)]
            results = reports["student"].results
            assert (row["mean_a"], row["mean_b"]) == pytest.approx((results[a][key], results[b][key]), abs=1e-12)
            assert row["p_ttest"] == pytest.approx(reports["student"].comparisons[a, b][key]["p_value"], abs=1e-12)
            assert tukey.loc[(a, b, measure), "p_tukey"] == pytest.approx(
                reports["tukey"].comparisons[a, b][key]["p_value"], rel=1e-12, abs=1e-15)
            # ranx's significance marks (its superscripts) are p <= max_p, as evalframe's significant
            for table, test in ((student, "student"), (tukey, "tukey")):
                assert bool(table.loc[(a, b, measure), "significant"]) == bool(
                    reports[test].comparisons[a, b][key]["significant"])
            # ranx's (control, treatment) wins are the control's: evalframe's wins of b over a are ranx's (b, a)
            counts = reports["student"].win_tie_loss[(b, a)][key]
            assert (row["wins"], row["ties"], row["losses"]) == (counts["W"], counts["T"], counts["L"])


def test_the_comparative_report_refuses_the_tests_of_all_pairs():
    result = evalframe.load_demo_result()
    with pytest.raises(InvalidParameterError,
                       match=r"^test must be one of \['randomization', 't-test', 'wilcoxon', 'sign', 'bootstrap'\]; got 'tukey'"):
        evalframe.compare_report([result, result], test="tukey")


@pytest.mark.stress  # 10,000 rounds on each of a dozen enumerated cases
@pytest.mark.parametrize("seed", range(4))
def test_randomized_tukey_on_enumerated_cases_within_monte_carlo_error(seed):
    rng = np.random.default_rng(seed)
    for runs, n in ((2, 8), (3, 3), (3, 4), (4, 3)):
        values = np.round(rng.random((n, runs)) + np.linspace(0, 0.6, runs), 1)  # ties and a spread of p-values
        exact = exact_randomized_tukey(values)
        got = randomized_tukey_p_values(values, rounds=10_000, rng=np.random.default_rng(seed))
        error = np.sqrt(exact * (1 - exact) / 10_000)
        assert (np.abs(got - exact) <= 4 * error + 1 / 10_001).all(), (values, got, exact)
        if runs == 2:  # two runs: permuting within a query flips its difference, the randomization test's 2^n flips
            d = values[:, 1] - values[:, 0]
            flips = np.array(list(itertools.product((-1, 1), repeat=n)))
            assert exact[0, 1] == pytest.approx(np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-12), abs=1e-12)
