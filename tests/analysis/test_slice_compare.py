"""compare(..., by=...): significance per slice of the queries (evalframe/analysis/slice_compare.py).

The definition: a slice's row is compare() run on that slice's queries alone (the same seed, so the same resampling);
the t-test of one slice is checked by hand against scipy.stats.ttest_rel, and the corrections against statsmodels'
multipletests over exactly the family (the slices, or the slices and measures) to 1e-12.
"""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evalframe import EvaluationResult, InvalidParameterError, compare, read_runs

METRICS = ["mrr", "map"]
ROUNDS = 200


def _tables(seed: int = 7, queries: int = 30) -> tuple[list[pd.DataFrame], pd.Series]:
    """Three runs' per-query tables (a few values missing in one run) and a topic per query: slices "a" (14
    queries), "b" (10), "c" (5) and "d" (1: untested)."""
    rng = np.random.default_rng(seed)
    ids = [f"q{i:02d}" for i in range(queries)]
    topics = pd.Series(["a"] * 14 + ["b"] * 10 + ["c"] * 5 + ["d"], index=ids)
    topics = topics.sample(frac=1.0, random_state=seed)  # the slices interleaved in the runs' query order
    tables = []
    for shift in (0.0, 0.1, -0.05):
        values = np.clip(rng.random((queries, 2)) * 0.8 + shift + (np.arange(queries)[:, None] % 3) * 0.05, 0, 1)
        table = pd.DataFrame(values, index=pd.Index(ids, name="multilabel_id"), columns=METRICS)
        tables.append(table)
    tables[1].iloc[3, 0] = np.nan  # mrr: one query scored by A only
    tables[2].iloc[5, 1] = np.nan
    return tables, topics


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_each_slice_row_is_compare_on_the_slice_queries_alone():
    tables, topics = _tables()
    table = _quiet(compare, *tables, by=topics, rounds=ROUNDS, test="t-test", family="runs")
    assert table.index.names == ["slice", "run", "metric"]
    assert list(dict.fromkeys(table.index.get_level_values("slice"))) == ["a", "b", "c", "d"]
    for topic in ["a", "b", "c"]:
        ids = topics.index[topics == topic]
        alone = _quiet(compare, *[t.loc[t.index.intersection(ids)] for t in tables], rounds=ROUNDS, test="t-test")
        pd.testing.assert_frame_equal(table.loc[topic], alone, check_exact=False, rtol=0, atol=1e-12)
    # the slice of one query: its means and delta, but no test and no interval
    one = table.loc["d"]
    assert (one["queries"] == 1).all()
    assert one[["ci_low", "ci_high", "p_value", "t", "p_ttest", "p_holm"]].isna().all().all()
    q = topics.index[topics == "d"][0]
    assert one.loc[("B", "mrr"), "delta"] == pytest.approx(tables[1].loc[q, "mrr"] - tables[0].loc[q, "mrr"], abs=1e-12)


def test_one_slice_t_test_is_scipys_ttest_rel():
    tables, topics = _tables()
    table = _quiet(compare, tables[0], tables[1], by=topics, rounds=ROUNDS)
    ids = topics.index[topics == "b"]
    a, b = tables[0].loc[ids, "map"], tables[1].loc[ids, "map"]
    expected = stats.ttest_rel(b.to_numpy(), a.to_numpy())
    row = table.loc[("b", "map")]
    assert row["t"] == pytest.approx(expected.statistic, rel=1e-12)
    assert row["p_ttest"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert row["queries"] == 10 and row["delta"] == pytest.approx(b.mean() - a.mean(), abs=1e-12)


@pytest.mark.parametrize("correction", ["holm", "fdr_bh"])
def test_the_correction_spans_the_slices_by_default_as_multipletests(correction):
    tables, topics = _tables()
    table = _quiet(compare, tables[0], tables[1], by=topics, rounds=ROUNDS, test="t-test", correction=correction)
    column = {"holm": "p_holm", "fdr_bh": "p_fdr_bh"}[correction]
    for metric in METRICS:  # the default family with by= and two runs: the slices of each metric
        rows = table.xs(metric, level="metric")
        tested = rows["p_ttest"].notna().to_numpy()
        assert tested.sum() == 3  # slice d (one query) is no test and is not counted
        expected = multipletests(rows["p_ttest"].to_numpy()[tested], method=correction)[1]
        np.testing.assert_allclose(rows[column].to_numpy()[tested], expected, rtol=0, atol=1e-12)
        assert np.isnan(rows[column].to_numpy()[~tested]).all()


def test_the_family_of_slices_and_measures_and_of_runs_slices_measures_is_multipletests():
    tables, topics = _tables()
    table = _quiet(compare, *tables, by=topics, rounds=ROUNDS, family="slices,measures", correction="bonferroni",
                   max_p=0.05)
    for run in ["B", "C"]:  # one family per run compared with the first: its slices x measures
        rows = table.xs(run, level="run")
        tested = rows["p_value"].notna().to_numpy()
        assert tested.sum() == 6
        expected = multipletests(rows["p_value"].to_numpy()[tested], method="bonferroni")[1]
        np.testing.assert_allclose(rows["p_bonferroni"].to_numpy()[tested], expected, rtol=0, atol=1e-12)
    assert table["significant"].tolist() == (table["p_bonferroni"] <= 0.05).tolist()
    everything = _quiet(compare, *tables, by=topics, rounds=ROUNDS, family=["runs", "slices", "measures"],
                        correction="holm-sidak")
    tested = everything["p_value"].notna().to_numpy()
    expected = multipletests(everything["p_value"].to_numpy()[tested], method="holm-sidak")[1]
    np.testing.assert_allclose(everything["p_holm_sidak"].to_numpy()[tested], expected, rtol=0, atol=1e-12)


def test_all_pairs_per_slice_index_and_one_warning_per_comparison():
    tables, topics = _tables()
    with pytest.warns(UserWarning) as caught:
        table = compare(*tables, by=topics, rounds=ROUNDS, pairs="all")
    assert table.index.names == ["slice", "run_a", "run_b", "metric"]
    assert len(table) == 4 * 3 * 2
    messages = [str(w.message) for w in caught if "scored only" in str(w.message)]
    assert len(messages) == 4  # A-B mrr, A-C map, B-C mrr, B-C map: once each, not once per slice
    assert table["only_a"].sum() + table["only_b"].sum() == 4


def test_several_keys_label_a_slice_by_a_tuple():
    tables, topics = _tables()
    long = pd.Series(np.where(np.arange(30) % 2 == 0, "even", "odd"), index=tables[0].index)
    table = _quiet(compare, tables[0], tables[1], by=[topics, long.rename("parity")], rounds=ROUNDS)
    labels = list(dict.fromkeys(table.index.get_level_values("slice")))
    assert ("a", "even") in labels and all(isinstance(label, tuple) and len(label) == 2 for label in labels)
    ids = topics.index[(topics == "a") & (long.reindex(topics.index) == "even")]
    # a tuple label read by a mask: pandas 2.2 takes a tuple inside a .loc key for several labels
    row = (np.array([label == ("a", "even") for label in table.index.get_level_values("slice")])
           & (table.index.get_level_values("metric") == "mrr"))
    assert table.loc[row, "queries"].tolist() == [len(ids)]


def test_a_label_column_of_the_tables_slices_them_and_is_no_metric():
    tables, topics = _tables()
    labelled = [t.assign(topic=topics.reindex(t.index)) for t in tables[:2]]
    table = _quiet(compare, *labelled, by="topic", rounds=ROUNDS)
    expected = _quiet(compare, *tables[:2], by=topics, rounds=ROUNDS)
    pd.testing.assert_frame_equal(table, expected)


def test_slices_without_by_are_refused():
    tables, topics = _tables()
    with pytest.raises(InvalidParameterError, match=r"family \['slices'\] spans the slices.*pass by="):
        compare(tables[0], tables[1], family="slices")


def test_a_query_the_runs_label_differently_is_in_the_first_runs_slice_with_a_warning():
    tables, topics = _tables()
    a = tables[0].assign(topic=topics.reindex(tables[0].index))
    b = tables[1].assign(topic=topics.reindex(tables[1].index))
    first = a.loc["q00", "topic"]
    b.loc["q00", "topic"] = "z"
    with pytest.warns(UserWarning, match=rf"label 1 query differently \(e.g. 'q00': run 'A' '{first}', run 'B' 'z'\)"):
        table = compare(a, b, by="topic", rounds=ROUNDS)
    expected = _quiet(compare, *tables[:2], by=topics, rounds=ROUNDS)  # A's labels
    pd.testing.assert_frame_equal(table, expected)
    assert "z" not in table.index.get_level_values("slice")


# ---------------------------------------------------------------------------------------------- results with meta
def _runs_file(folder, name: str, hits: list[int | None]) -> str:
    """A runs file of 12 queries, topics billing / shipping / returns (4 each): query i's gold document g<i> is
    retrieved at rank ``hits[i]`` (None: not retrieved), after filler documents."""
    lines = []
    for i, hit in enumerate(hits):
        documents = [{"id": f"x{i}-{r}", "content": f"filler {i} {r}."} for r in range(3)]
        if hit is not None:
            documents.insert(hit - 1, {"id": f"g{i}", "content": f"gold passage {i}."})
        lines.append({"query": f"question {i}?", "meta": {"topic": ["billing", "shipping", "returns"][i % 3]},
                      "gold": {"document_ids": [f"g{i}"], "contexts": [f"gold passage {i}."],
                               "answers": [f"answer{i}"]},
                      "nodes": {"Retriever": {"documents": documents}}})
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


HITS_A = [1, 2, None, 3, 1, None, 2, 2, 1, None, 3, 1]
HITS_B = [1, 1, 2, 1, 1, None, 1, 2, 1, 1, 1, 1]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slices")
    return [EvaluationResult.from_runs(*read_runs(_runs_file(folder, name, hits)), progress=False)
            for name, hits in (("a", HITS_A), ("b", HITS_B))]


def test_results_slice_by_meta_with_hand_worked_means(results):
    table = compare(*results, by="meta.topic", metrics="mrr", rounds=ROUNDS)
    # billing: queries 0, 3, 6, 9; A's mrr 1, 1/3, 1/2, 0; B's 1, 1, 1, 1
    billing = table.loc[("billing", "mrr")]
    assert billing[["mean_a", "mean_b"]].tolist() == pytest.approx([(1 + 1 / 3 + 1 / 2) / 4, 1.0], abs=1e-12)
    assert billing[["wins", "ties", "losses", "queries"]].tolist() == [3, 1, 0, 4]
    # returns: 2, 5, 8, 11; A 0, 0, 1, 1; B 1/2, 0, 1, 1
    assert table.loc[("returns", "mrr"), "delta"] == pytest.approx(0.5 / 4, abs=1e-12)
    assert list(table.index.get_level_values("slice")) == ["billing", "returns", "shipping"]


def test_a_bad_slice_key_is_refused_naming_it(results):
    with pytest.raises(InvalidParameterError, match=r"by 'meta.topc'.*Did you mean 'meta.topic'"):
        compare(*results, by="meta.topc")
    with pytest.raises(InvalidParameterError, match=r"by 'topic' is not a column of node 'Retriever'"):
        compare(*results, by="topic")


@pytest.mark.stress
def test_a_thousand_slices_stay_fast():
    rng = np.random.default_rng(3)
    ids = pd.Index([f"q{i}" for i in range(20_000)], name="multilabel_id")
    a = pd.DataFrame(rng.random((len(ids), 2)), index=ids, columns=METRICS)
    b = pd.DataFrame(rng.random((len(ids), 2)), index=ids, columns=METRICS)
    labels = pd.Series(rng.integers(0, 1000, len(ids)), index=ids)
    started = time.perf_counter()
    table = compare(a, b, by=labels, rounds=1000)
    elapsed = time.perf_counter() - started
    assert len(table) == 2000 and table["queries"].sum() == 2 * len(ids)
    assert elapsed < 30, elapsed


# ---------------------------------------------------------------------------------------------- TREC runs
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}}
RUN_A = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0, "d2": 1.0}, "q3": {"d9": 2.0}, "q4": {"d4": 1.0}}
RUN_B = {"q1": {"d1": 2.0}, "q2": {"d2": 2.0, "d9": 1.0}, "q3": {"d9": 2.0, "d3": 1.0}, "q4": {"d9": 2.0}}


def test_trec_runs_slice_by_a_label_per_query_id_and_refuse_a_meta_key():
    # RR per query: A 1, 1/2, 0, 1; B 1, 1, 1/2, 0
    table = compare(RUN_A, RUN_B, qrels=QRELS, metrics="RR", by={"q1": "easy", "q2": "easy", "q3": "hard",
                                                                   "q4": "hard"}, rounds=ROUNDS)
    assert table.loc[("easy", "RR"), ["mean_a", "mean_b", "delta"]].tolist() == pytest.approx([0.75, 1.0, 0.25])
    assert table.loc[("hard", "RR"), ["mean_a", "mean_b", "queries"]].tolist() == pytest.approx([0.5, 0.25, 2])
    assert "p_holm" in table.columns and "significant" in table.columns  # corrected over the 2 slices
    with pytest.raises(InvalidParameterError, match=r"by='meta.topic': TREC runs carry no per-query meta"):
        compare(RUN_A, RUN_B, qrels=QRELS, by="meta.topic")
