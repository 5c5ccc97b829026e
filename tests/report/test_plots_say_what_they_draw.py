"""The plots as a new user reads them: no legend entry or label for what was not drawn, no flat curve for a node that
has no k to cut, the runs named and the marker size explained. Asserted on the matplotlib artists.

The Ragas fixture (tests/report/test_one_answer_funnel.py, worked out there): the Retriever finds each query's gold
document (q1's d1 at rank 1, q2's d4 at rank 2): recall_single_hit 1.0; the Generator gives one answer per query:
exact_match 0.5, f1 0.8333. No node of a Ragas result is run isolated.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from tests.fixtures import LazyModule, hand_result
from tests.report.test_one_answer_funnel import RECORDS

plt = LazyModule("matplotlib.pyplot")


@pytest.fixture(scope="module", autouse=True)
def agg() -> None:
    pytest.importorskip("matplotlib").use("Agg")
    plt.load()


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture()
def ragas(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return EvaluationResult.from_ragas(path)


def _legend_texts(ax):
    legend = ax.get_legend()
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def test_funnel_without_an_isolated_run_has_no_isolated_entry_and_no_na(ragas):
    from evalframe.report.plots import plot_funnel

    ax = plot_funnel(ragas)
    assert "isolated" not in _legend_texts(ax)  # no legend entry for bars never drawn
    assert [text.get_text() for text in ax.texts] == ["1.000", "0.833"]
    assert not any("n/a" in text.get_text() for text in ax.texts)
    assert [patch.get_height() for patch in ax.patches] == pytest.approx([1.0, (1 + 2 / 3) / 2])
    assert ax.get_title() == "pipeline funnel: integrated evaluation (no node was run isolated)"


def test_funnel_with_an_isolated_run_keeps_both_and_names_the_node_without_one():
    from evalframe.report.plots import plot_funnel

    ax = plot_funnel(hand_result())  # its Reader is run isolated, its Retriever not
    assert _legend_texts(ax) == ["integrated", "isolated"]
    assert not any("n/a" in text.get_text() for text in ax.texts)
    assert "not run isolated:\nRetriever" in [text.get_text() for text in ax.texts]


def test_metrics_at_k_draws_no_flat_curve_for_a_node_of_one_answer(ragas):
    from evalframe.report.plots import plot_metrics_at_k

    documents = plot_metrics_at_k(ragas, ks=(1, 2))
    answers = documents.figure.axes[1]
    assert documents.lines  # the Retriever's curves
    assert len(answers.lines) == 0  # nothing for top-k to cut: no curve at all
    said = "\n".join(text.get_text() for text in answers.texts)
    assert "Generator gives one answer per query" in said.replace("\n", " ")
    assert "exact_match 0.5000, f1 0.8333" in said.replace("\n", " ")
    assert list(answers.get_xticks()) == [] and answers.get_legend() is None
    alone = plot_metrics_at_k(ragas, node="Generator")
    assert len(alone.lines) == 0 and "exact_match 0.5000, f1 0.8333" in " ".join(t.get_text() for t in alone.texts).replace(
        "\n", " ")


def test_metrics_at_k_keeps_the_curves_of_a_reader_of_several_answers():
    from evalframe.report.plots import plot_metrics_at_k

    ax = plot_metrics_at_k(hand_result(), ks=(1, 3), node="Reader")
    assert [line.get_label() for line in ax.lines] == ["exact_match", "f1"]
    assert not ax.texts


@pytest.fixture()
def pair():
    index = pd.Index(["q1", "q2", "q3", "q4"], name="multilabel_id")
    return (pd.DataFrame({"f1": [0.0, 0.0, 1.0, 1.0]}, index=index),
            pd.DataFrame({"f1": [1.0, 1.0, 1.0, 0.0]}, index=index))


def test_comparison_names_the_runs_by_the_dict_keys(pair):
    from evalframe.report.plots import plot_comparison

    ax = plot_comparison({"bm25": pair[0], "hybrid": pair[1]}, metric="f1")
    assert ax.get_xlabel() == "f1 of bm25" and ax.get_ylabel() == "f1 of hybrid"
    assert ax.get_title() == "f1 per query: hybrid wins 2, ties 1, loses 1"
    assert "A" not in ax.get_xlabel().split() and "B" not in ax.get_title().split()


def test_comparison_names_stored_runs_by_their_own_names(pair):
    from evalframe.analysis.protocol import QueryTable
    from evalframe.report.plots import plot_comparison

    ax = plot_comparison(QueryTable(pair[0], name="main@1"), QueryTable(pair[1], name="main@2"), metric="f1")
    assert ax.get_xlabel() == "f1 of main@1" and ax.get_ylabel() == "f1 of main@2"


def test_comparison_has_a_legend_of_colour_and_marker_size(pair):
    from evalframe.report.plots import plot_comparison

    ax = plot_comparison(*pair, metric="f1", names=["old", "new"])
    # pairs (0, 1) twice: new better; (1, 1) once: the same; (1, 0) once: old better
    assert _legend_texts(ax) == ["new better", "old better", "the same", "1 query", "2 queries"]
    assert ax.get_legend().get_title().get_text() == "colour: the better run\narea: queries at the point"
    # a point's area 20 + 280 sqrt(queries / most): 300 for the 2 queries at (0, 1), 20 + 280 sqrt(1/2) for 1
    sizes = dict(zip(map(tuple, ax.collections[0].get_offsets().tolist()), ax.collections[0].get_sizes()))
    assert sizes[(0.0, 1.0)] == pytest.approx(300.0) and sizes[(1.0, 1.0)] == pytest.approx(20 + 280 * np.sqrt(0.5))
    handles = ax.get_legend().legend_handles
    # a legend marker's size is its diameter: its square is the area of the points it stands for
    assert handles[-1].get_markersize() ** 2 == pytest.approx(300.0)
    assert handles[-2].get_markersize() ** 2 == pytest.approx(20 + 280 * np.sqrt(0.5))


def test_comparison_refuses_a_dict_of_other_than_two_runs(pair):
    from evalframe import InvalidParameterError
    from evalframe.report.plots import plot_comparison

    with pytest.raises(InvalidParameterError, match=r"a dict of runs must hold two runs .*got 1: \['x'\]"):
        plot_comparison({"x": pair[0]}, metric="f1")
    with pytest.raises(InvalidParameterError, match="or one dict {name: run} of two runs as a; got a dict and b"):
        plot_comparison({"x": pair[0], "y": pair[1]}, pair[1], metric="f1")
    with pytest.raises(InvalidParameterError, match="plot_comparison needs two runs"):
        plot_comparison(pair[0], metric="f1")
