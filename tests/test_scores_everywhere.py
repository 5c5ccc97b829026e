"""One set of declared scores through every surface that takes measures: ``calculate_metrics``, ``metrics_frame``,
``query_metrics``, ``sliced_metrics``, ``metrics_at_k``, ``wrong_examples(metric=)`` and ``compare`` on each
``backend`` (in memory and on Dask, tests/conftest.py), and ``worst_by_delta``, a plot, the report, ``save``/``load``
(CSV, Parquet) and ``evalframe metrics`` in memory (tests/dask/test_scores.py: a sharded build on the cluster). The
reference is the values attached, aggregated by the formulas written out below (not by evalframe's aggregation code).

Six queries; the Generator holds ``faithfulness`` (higher is better, one value missing) and ``latency`` (lower is
better) per query, the Retriever ``relevance`` per row (3 rows per query, one value missing).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, read_runs, worst_by_delta

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QUERIES = [f"q{i}" for i in range(1, 7)]
FAITH = {"A": [0.9, 0.2, math.nan, 0.6, 0.4, 1.0], "B": [0.95, 0.1, 0.5, 0.7, 0.4, 0.9]}
LATENCY = {"A": [5.0, 1.0, 2.0, 3.0, 8.0, 2.5], "B": [4.0, 1.5, 2.0, 2.0, 9.0, 1.0]}
RELEVANCE = [[1.0, 0.5, 0.0], [0.8, math.nan, 0.2], [0.3, 0.3, 0.9], [0.0, 0.0, 0.0], [0.6, 0.2, 0.1], [1.0, 1.0, 0.4]]


def mean(values) -> float:
    """The mean of the values that are not NaN, written out."""
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def lines() -> list[dict]:
    out = []
    for i, query in enumerate(QUERIES):
        docs = [{"id": f"{query}-{j}", "content": f"text {query} {j}"} for j in range(3)]
        out.append({"query": query, "gold": {"document_ids": [f"{query}-0"], "contexts": [f"text {query} 0"],
                                             "answers": [f"answer {query}"]},
                    "nodes": {"Retriever": {"documents": docs},
                              "Generator": {"answers": [{"answer": f"answer {query}" if i % 2 else "wrong"}]}}})
    return out


def make(name: str, tmp_path) -> EvaluationResult:
    runs = tmp_path / f"{name}.jsonl"
    runs.write_text("".join(json.dumps(line) + "\n" for line in lines()))
    result = EvaluationResult.from_runs(*read_runs(runs), progress=False)
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "faithfulness": FAITH[name],
                                                 "latency": LATENCY[name]}),
                      direction={"latency": "lower"}, bounds={"faithfulness": (0, 1)})
    result.add_scores("Retriever", pd.DataFrame({"query": [q for q in QUERIES for _ in range(3)],
                                                 "rank": [1, 2, 3] * 6,
                                                 "relevance": [v for row in RELEVANCE for v in row]}))
    return result


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Runs A and B in memory."""
    folder = tmp_path_factory.mktemp("scores")
    return make("A", folder), make("B", folder)


@pytest.fixture(scope="module")
def runs(made, backend):
    """Runs A and B on the test's backend."""
    return tuple(backend(run) for run in made)


def relevance_at(k: int) -> float:
    return mean([mean(row[:k]) for row in RELEVANCE])


def test_means_and_per_query_values(runs, made, backend):
    a, _ = runs
    assert a.scores == made[0].scores and a.scores["latency"].direction == "lower"
    means = a.calculate_metrics()
    tolerance = 1e-12 if backend.on_cluster else 1e-15  # Dask adds the partitions' sums in partition order
    assert means["Generator"]["faithfulness"] == pytest.approx(mean(FAITH["A"]), abs=tolerance)  # 3.1 / 5
    assert means["Generator"]["latency"] == pytest.approx(mean(LATENCY["A"]), abs=tolerance)
    assert means["Retriever"]["relevance"] == pytest.approx(relevance_at(3), abs=tolerance)
    assert a.calculate_metrics(simulated_top_k_retriever=1)["Retriever"]["relevance"] == pytest.approx(relevance_at(1))
    frame = a.metrics_frame()
    assert frame.loc["Generator", "latency"] == pytest.approx(mean(LATENCY["A"]))
    table = backend.query_metrics(a, "Generator", with_query=True).set_index("query")
    np.testing.assert_array_equal(table.loc[QUERIES, "faithfulness"].to_numpy(), FAITH["A"])
    np.testing.assert_array_equal(table.loc[QUERIES, "latency"].to_numpy(), LATENCY["A"])


def test_sliced_metrics_and_metrics_at_k(runs, made, backend):
    a, _ = runs
    ids = backend.query_metrics(a, "Generator", with_query=True)["query"]
    halves = {qid: QUERIES.index(query) < 3 for qid, query in ids.items()}
    pd.testing.assert_frame_equal(a.sliced_metrics(halves), made[0].sliced_metrics(halves), rtol=0, atol=1e-12)
    table = a.sliced_metrics(halves).loc["Generator"]
    assert table.loc[True, "faithfulness"] == pytest.approx(mean(FAITH["A"][:3]))
    assert table.loc[False, "latency"] == pytest.approx(mean(LATENCY["A"][3:]))
    at_k = a.metrics_at_k(ks=(1, 2, 3))
    got = at_k[at_k["metric"] == "relevance"].set_index("k")["value"].to_dict()
    assert got == pytest.approx({k: relevance_at(k) for k in (1, 2, 3)})
    assert not {"faithfulness", "latency"} & set(at_k["metric"])  # query-level scores do not depend on k


def test_wrong_examples_worst_first_by_direction(runs):
    a, _ = runs
    order = lambda values, lower: [QUERIES[i] for i in sorted(  # noqa: E731
        (i for i in range(6) if not math.isnan(values[i])), key=lambda i: -values[i] if lower else values[i])]
    assert [e["query"] for e in a.wrong_examples("Generator", n=6, metric="faithfulness")] == order(FAITH["A"], False)
    assert [e["query"] for e in a.wrong_examples("Generator", n=3, metric="latency")] == order(LATENCY["A"], True)[:3]
    retriever = [mean(row) for row in RELEVANCE]
    assert [e["query"] for e in a.wrong_examples("Retriever", n=2, metric="relevance")] == order(retriever, False)[:2]


def test_compare(runs, backend):
    a, b = runs
    table = backend.compare(a, b, node="Generator", metrics=["faithfulness", "latency"], rounds=100)
    pairs = [(x, y) for x, y in zip(FAITH["A"], FAITH["B"]) if not math.isnan(x)]
    assert table.loc["faithfulness", "mean_a"] == pytest.approx(mean([x for x, _ in pairs]))
    assert table.loc["faithfulness", "mean_b"] == pytest.approx(mean([y for _, y in pairs]))
    assert table.loc["faithfulness", "wins"] == sum(y > x for x, y in pairs)
    wins = sum(y < x for x, y in zip(LATENCY["A"], LATENCY["B"]))  # lower is better
    losses = sum(y > x for x, y in zip(LATENCY["A"], LATENCY["B"]))
    assert table.loc["latency", ["wins", "losses"]].tolist() == [wins, losses]
    assert table.loc["latency", "delta"] == pytest.approx(mean(LATENCY["B"]) - mean(LATENCY["A"]))


def test_worst_by_delta(made):
    a, b = made
    worse = [e["query"] for e in worst_by_delta(a, b, "Generator", "latency")]
    expected = sorted((i for i in range(6) if LATENCY["B"][i] > LATENCY["A"][i]),
                      key=lambda i: -(LATENCY["B"][i] - LATENCY["A"][i]))
    assert worse == [QUERIES[i] for i in expected]


def test_plot_and_report(made):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from evalframe.report.plots import plot_metric_distribution

    a, _ = made
    ax = plot_metric_distribution(a, "Generator", metric="latency")
    assert ax.get_xlabel() == "latency (lower is better)" and f"mean {mean(LATENCY['A']):.3f}" in \
        ax.get_legend_handles_labels()[1][0]
    matplotlib.pyplot.close(ax.figure)
    text = a.report(charts=False, metric="latency").text
    assert f"faithfulness       {mean(FAITH['A']):.4f}" in text and f"relevance          {relevance_at(3):.4f}" in text
    assert "Worst queries of Generator by latency" in text


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_save_load_and_the_cli(made, tmp_path, fmt, capsys):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    from evalframe.present.cli import main

    a, _ = made
    folder = a.save(tmp_path / f"saved-{fmt}", format=fmt, progress=False)
    back = EvaluationResult.load(folder, progress=False)
    assert back.scores == a.scores
    assert back.calculate_metrics() == a.calculate_metrics()
    assert main(["metrics", str(folder), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["Generator"]["latency"] == pytest.approx(mean(LATENCY["A"]))
    assert printed["Retriever"]["relevance"] == pytest.approx(relevance_at(3))
