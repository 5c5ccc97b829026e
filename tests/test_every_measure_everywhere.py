"""Every measure of the registry, by its canonical name, through every analysis that takes measures: the same
per-query values and the same number (each measure's own aggregation: the mean, trec_eval's geometric mean, or the
sum) from ``trec_metrics``, ``trec_query_metrics``, ``query_metrics(measures=)``, ``sliced_metrics``,
``metrics_at_k``, ``compare``, the report, a plot and the ``evalframe trec`` CLI; ``trec_metrics`` on each
``backend`` (in memory and on Dask, tests/conftest.py).

The values themselves are checked against their reference tools elsewhere (``checked against`` in
docs/ir-researchers.md's table of measures); here the reference is the per-query table, and each surface must
agree with it, aggregated by the formulas written out below (not by evalframe's aggregation code).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, compare
from evalframe.metrics.registry import TREC_MEASURES
from evalframe.metrics.trec import example_measure, parse_measure

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def needs_subtopics(name: str) -> bool:
    return "subtopic" in TREC_MEASURES[name].description.lower()


def example_names() -> list[str]:
    """One name per measure (with a cutoff where it takes one), and a second at another cutoff where it is optional."""
    names = []
    for name, entry in TREC_MEASURES.items():
        if needs_subtopics(name):
            continue
        k = 0.3 if entry.cutoff_kind == "float" else 3
        names.append(example_measure(name, k if entry.cutoff == "required" else None))  # RBP's rel, INSQ's max_rel
        if entry.cutoff == "optional":
            names.append(example_measure(name, k))
    return [str(parse_measure(name)) for name in names]


NAMES = example_names()


def aggregate(name: str, values: np.ndarray) -> float:
    """trec_eval's aggregation of a measure's per-query values, written out: the mean, the geometric mean of the values
    floored at 1e-5 (gm_map, gm_bpref), or the sum (the counts)."""
    values = values[~np.isnan(values)]
    kind = TREC_MEASURES[parse_measure(name).name].aggregation
    if kind == "sum":
        return float(sum(values))
    if not len(values):
        return math.nan
    if kind == "geometric_mean":
        return math.exp(sum(math.log(max(v, 1e-5)) for v in values) / len(values))
    return float(sum(values) / len(values))


def make_run(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(40, int(rng.integers(1, 20)), replace=False)}
           for q in range(30)}
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1, 4)) for d in rng.choice(40, int(rng.integers(1, 12)), replace=False)}
             for q in range(2, 32)}
    return run, qrels


def write_runs(folder, seed_a: int, seed_b: int):
    """``folder`` holding a.txt and b.txt, the TREC runs of :func:`make_run` with the two seeds, and the first's
    qrels.txt."""
    (run_a, qrels), (run_b, _) = make_run(seed_a), make_run(seed_b)
    for name, run in (("a.txt", run_a), ("b.txt", run_b)):
        (folder / name).write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, docs in run.items() for d, s in docs.items()))
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return folder


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_runs(tmp_path_factory.mktemp("every"), 1, 2)


@pytest.fixture(scope="module")
def results(files):
    return (EvaluationResult.from_trec(files / "a.txt", files / "qrels.txt"),
            EvaluationResult.from_trec(files / "b.txt", files / "qrels.txt"))


@pytest.fixture(scope="module")
def per_query(results):
    return results[0].trec_query_metrics(NAMES)


def test_trec_metrics_is_each_measures_aggregation_of_the_per_query_values(results, per_query, backend):
    assert list(per_query.columns) == NAMES and len(per_query) > 20
    means = backend(results[0]).trec_metrics(NAMES)
    assert list(means) == NAMES
    for name in NAMES:
        assert means[name] == pytest.approx(aggregate(name, per_query[name].to_numpy()), rel=1e-12, abs=1e-12), name


def test_query_metrics_takes_every_measure(results, per_query):
    node = next(iter(results[0].node_results))
    table = results[0].query_metrics(node, measures=NAMES)
    got = table.loc[per_query.index, NAMES]
    np.testing.assert_allclose(got.to_numpy(), per_query.to_numpy(), rtol=0, atol=1e-15)


def test_sliced_metrics_takes_every_measure(results, per_query):
    # one slice per query text (from_trec's query is its id): each slice's value is its one query's, aggregated
    # (a geometric mean of one value floors it at 1e-5, as trec_eval's gm_map of one query)
    table = results[0].sliced_metrics("query", measures=NAMES).droplevel("node")
    for name in NAMES:
        got = table[name].reindex(per_query.index)
        expected = [aggregate(name, np.array([value])) for value in per_query[name].to_numpy()]
        np.testing.assert_allclose(got.to_numpy(), expected, rtol=0, atol=1e-15, err_msg=name)


def test_metrics_at_k_takes_every_measure_with_a_cutoff(results, per_query):
    # each measure named without its cutoff (RBP with the rel its name must give)
    swept = sorted({str(parse_measure(n)).rsplit("@", 1)[0] for n in NAMES
                    if TREC_MEASURES[parse_measure(n).name].cutoff != "none"
                    and TREC_MEASURES[parse_measure(n).name].cutoff_kind == "int"})
    table = results[0].metrics_at_k(ks=(3,), measures=swept)
    for name in swept:
        measure = f"{name}@3"
        row = table[(table["metric"] == name) & (table["k"] == 3)]
        assert len(row) == 1, measure
        assert row["value"].iloc[0] == pytest.approx(aggregate(measure, per_query[measure].to_numpy()), abs=1e-12)


def test_compare_takes_every_measure(results):
    table = compare(*results, metrics=NAMES, rounds=200)
    for name in NAMES:
        both = pd.concat([r.trec_query_metrics([name])[name] for r in results], axis=1, join="inner").to_numpy()
        assert table.loc[name, "mean_a"] == pytest.approx(aggregate(name, both[:, 0]), abs=1e-12), name
        assert table.loc[name, "mean_b"] == pytest.approx(aggregate(name, both[:, 1]), abs=1e-12), name


def test_the_report_shows_every_measure(results, per_query):
    text = results[0].report(measures=NAMES, charts=False).text
    for name in NAMES:
        assert name in text, name


def test_a_plot_takes_every_measure(results, per_query):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from evalframe.report.plots import plot_metric_distribution

    for name in NAMES[:: max(1, len(NAMES) // 8)]:
        ax = plot_metric_distribution(per_query, metric=name)
        assert ax.get_xlabel() or ax.get_title()
        matplotlib.pyplot.close(ax.figure)


def test_the_cli_prints_every_measure(files, results, capsys):
    from evalframe.present.cli import main

    code = main(["trec", str(files / "a.txt"), str(files / "qrels.txt"), *(f"-m{name}" for name in NAMES),
                 "--format", "tsv", "--digits", "12"])
    out = capsys.readouterr().out
    assert code == 0, out
    printed = {measure.strip(): value for measure, query, value in (line.split("\t") for line in out.splitlines())
               if query == "all"}
    means = results[0].trec_metrics(NAMES)
    for name in NAMES:
        assert float(printed[name]) == pytest.approx(means[name], abs=1e-11), name


