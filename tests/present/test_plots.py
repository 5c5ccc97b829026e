"""Plots draw the numbers of the library's tables (Agg backend, written to files)."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from evalframe import InvalidParameterError
from evalframe.report.plots import plot_comparison, plot_funnel, plot_metric_distribution, plot_metrics_at_k
from tests.fixtures import LazyModule, hand_result

# pyplot, imported by the first test of a process that runs this module's tests (not at collection), on Agg
plt = LazyModule("matplotlib.pyplot")


@pytest.fixture(scope="module", autouse=True)
def agg() -> None:
    """The module is skipped without matplotlib, as a module-level importorskip would; pyplot loads on Agg."""
    pytest.importorskip("matplotlib").use("Agg")
    plt.load()


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def saved(ax, tmp_path, name):
    path = tmp_path / f"{name}.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 1000
    return ax


def test_metrics_at_k_lines(tmp_path):
    ax = saved(plot_metrics_at_k(hand_result(), ks=(1, 2, 3), node="Retriever", metrics=["recall_single_hit"]),
               tmp_path, "at_k")
    # recall_single_hit at k: q1 1, q2 1, q4 1 at k=1; q6 joins at 2, q3 at 3; q5 never (placeholder row)
    assert ax.lines[0].get_xdata().tolist() == [1, 2, 3]
    assert ax.lines[0].get_ydata().tolist() == pytest.approx([3 / 6, 4 / 6, 5 / 6])
    both = plot_metrics_at_k(hand_result(), ks=(1, 3))
    labels = [line.get_label() for axes in both.figure.axes for line in axes.lines]  # one axes per kind of k
    assert "Retriever: recall_single_hit" in labels and "Reader: f1" in labels


def test_metrics_at_k_never_mixes_the_readers_k_with_the_retrievers(tmp_path):
    both = saved(plot_metrics_at_k(hand_result(), ks=(1, 3)), tmp_path, "both")
    documents, answers = both.figure.axes
    assert documents is both
    assert documents.get_xlabel() == "retriever's simulated top-k (documents kept)"
    assert answers.get_xlabel() == "reader's simulated top-k (answers kept)"
    assert {line.get_label().split(": ")[1] for line in documents.lines} == {"recall_single_hit", "recall_multi_hit",
                                                                             "mrr", "ndcg"}
    assert {line.get_label().split(": ")[1] for line in answers.lines} == {"exact_match", "f1"}
    _, given = plt.subplots()
    with pytest.raises(InvalidParameterError, match=r"need two axes: leave out ax="):
        plot_metrics_at_k(hand_result(), ks=(1, 3), ax=given)
    one_kind = plot_metrics_at_k(hand_result(), ks=(1, 3), metrics=["f1"], ax=given)
    assert one_kind is given and one_kind.get_xlabel() == "reader's simulated top-k (answers kept)"


def _inside(legend, ax):
    """Whether a legend's box overlaps the axes' data area (drawn figure, display coordinates)."""
    ax.figure.canvas.draw()
    return legend.get_window_extent().overlaps(ax.get_window_extent())


@pytest.mark.parametrize("draw", [
    lambda: plot_metrics_at_k(hand_result(), ks=(1, 2, 3), node="Retriever"),
    lambda: plot_funnel(hand_result()),
    lambda: plot_metric_distribution(hand_result(), node="Reader", kind="ecdf"),
    lambda: plot_metric_distribution(hand_result(), node="Reader", kind="hist"),
])
def test_legends_sit_outside_the_data(draw):
    ax = draw()
    legend = ax.get_legend()
    assert legend is not None and not _inside(legend, ax)


def test_funnel_value_labels_are_not_covered_by_the_legend():
    ax = plot_funnel(hand_result())
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    labels = [text.get_window_extent() for text in ax.texts]
    assert labels and not any(legend.overlaps(label) for label in labels)


def test_distribution_hist_and_ecdf(tmp_path):
    ax = saved(plot_metric_distribution(hand_result(), node="Reader", bins=10), tmp_path, "hist")
    heights = [patch.get_height() for patch in ax.patches]
    # f1 per query 1, 1, 1, .4: bin [.4, .5) holds 1, the last bin [.9, 1] holds 3
    assert heights[4] == 1 and heights[9] == 3 and sum(heights) == 4
    assert ax.get_xlabel() == "f1"
    ecdf = saved(plot_metric_distribution(hand_result(), node="Retriever", metric="mrr", kind="ecdf"), tmp_path, "ecdf")
    # mrr per query 1, 1, 1/3, 1, 0, 1/2
    step = ecdf.lines[0]
    assert step.get_xdata().tolist() == pytest.approx([0, 0, 1 / 3, 1 / 2, 1, 1, 1])
    assert step.get_ydata().tolist() == pytest.approx([0, 1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])


def test_funnel_bars(tmp_path):
    ax = saved(plot_funnel(hand_result()), tmp_path, "funnel")
    heights = [patch.get_height() for patch in ax.patches]
    # integrated: Retriever recall_single_hit 5/6, Reader f1 (1 + 1 + 1 + .4) / 4; isolated: no Retriever rows
    # (no bar, said once beside the legend, no "n/a" on an empty bar), Reader q1 only (f1 1)
    assert heights == pytest.approx([5 / 6, 0.85, 1.0])
    assert [t.get_text() for t in ax.texts] == ["0.833", "0.850", "1.000", "not run isolated:\nRetriever"]


def test_comparison_scatter(tmp_path):
    index = pd.Index(["q1", "q2", "q3", "q4"], name="multilabel_id")
    a = pd.DataFrame({"f1": [0.0, 0.0, 1.0, 1.0]}, index=index)
    b = pd.DataFrame({"f1": [1.0, 1.0, 1.0, 0.0]}, index=index)
    ax = saved(plot_comparison(a, b, metric="f1", names=["old", "new"]), tmp_path, "scatter")
    points = ax.collections[0].get_offsets().tolist()
    assert sorted(map(tuple, points)) == [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]
    assert ax.get_title() == "f1 per query: new wins 2, ties 1, loses 1"
    assert ax.get_xlabel() == "f1 of old"


def test_plot_errors():
    with pytest.raises(InvalidParameterError, match="kind must be one of"):
        plot_metric_distribution(hand_result(), node="Reader", kind="violin")
    with pytest.raises(InvalidParameterError, match="leave out eval_mode"):
        plot_funnel(hand_result(), eval_mode="isolated")
    with pytest.raises(InvalidParameterError, match="node 'Reader' has no metric 'mrr'"):
        plot_funnel(hand_result(), metrics="mrr")
    with pytest.raises(InvalidParameterError, match="metrics must be one of"):
        plot_metrics_at_k(hand_result(), node="Reader", metrics=["recall"])


def test_missing_matplotlib_names_the_install_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "evalframe\[plots\]"'):
        plot_funnel(hand_result())


def test_values_above_one_stay_on_the_plot():
    from evalframe import load_demo_result

    result = load_demo_result()  # map 2.0 and ndcg 1.63 for a query with a duplicate document (docs/metrics.md#per-query)
    ax = plot_metric_distribution(result, node="Retriever", metric="ndcg")
    assert sum(patch.get_height() for patch in ax.patches) == 8
    scatter = plot_comparison(result, result, node="Retriever", metric="map")
    assert scatter.get_xlim()[1] >= 2.0 and scatter.get_ylim()[1] >= 2.0


def test_unknown_keywords_are_named():
    with pytest.raises(InvalidParameterError, match=r"unknown argument\(s\) \['foo'\]"):
        plot_metrics_at_k(hand_result(), foo=1)
    with pytest.raises(InvalidParameterError, match=r"unknown argument\(s\) \['top_k'\]"):
        plot_funnel(hand_result(), top_k=1)


def test_report_chart_leaves_the_pyplot_backend_alone(monkeypatch):
    def switch(*args, **kwargs):
        raise AssertionError("the report must not switch a notebook's matplotlib backend")

    monkeypatch.setattr(sys.modules["matplotlib"], "use", switch)
    monkeypatch.setattr(plt.load(), "switch_backend", switch)  # the module itself, not its LazyModule
    assert "recall@k" in hand_result().report(n=1).html


def test_funnel_puts_retrievers_first_without_a_recorded_order(tmp_path):
    from evalframe import EvaluationResult

    result = hand_result()
    reversed_result = EvaluationResult({"Reader": result["Reader"], "Retriever": result["Retriever"]})
    ax = saved(plot_funnel(reversed_result), tmp_path, "funnel_reversed")
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Retriever\nrecall_single_hit", "Reader\nf1"]
    ax = saved(plot_funnel(reversed_result, node_order=["Reader", "Retriever"]), tmp_path, "funnel_given")
    assert [label.get_text() for label in ax.get_xticklabels()] == ["Reader\nf1", "Retriever\nrecall_single_hit"]


def _texts_drawn_literally(ax, expected):
    """Draw the figure (a mathtext parse error raises here) and check every text of it is plain text, not mathtext,
    and reads, as drawn, each of ``expected``."""
    from matplotlib.cbook import is_math_text
    from matplotlib.text import Text

    ax.figure.canvas.draw()
    texts = [t.get_text() for t in ax.figure.findobj(Text) if t.get_text()]
    assert [t for t in texts if is_math_text(t)] == []
    drawn = "\n".join(t.replace("\\$", "$") for t in texts)  # what matplotlib draws of a text that is not mathtext
    for text in expected:
        assert text in drawn


def _dollar_result():
    from evalframe import EvaluationResult
    from tests.fixtures import reader_frame, retriever_frame

    return EvaluationResult({"G$1$": retriever_frame(), "a$^$b": reader_frame()})


def test_names_holding_a_dollar_are_never_mathtext():
    # "a$^$b" once raised matplotlib's ValueError (ParseSyntaxException) on drawing, "G$1$" was drawn as a math 1
    result = _dollar_result()
    _texts_drawn_literally(plot_metrics_at_k(result, ks=(1, 2), node="G$1$"), ["document metrics@k of G$1$"])
    both = plot_metrics_at_k(result, ks=(1, 2))
    _texts_drawn_literally(both.figure.axes[1], ["a$^$b: f1", "G$1$: mrr"])
    _texts_drawn_literally(plot_funnel(result), ["G$1$\nrecall_single_hit", "a$^$b\nf1"])
    _texts_drawn_literally(plot_metric_distribution(result, node="a$^$b"), ["f1 per query (a$^$b, 4 queries)"])
    # run names, and a column of a per-query table or of a metrics@k table (a score's name holds no "$")
    index = pd.Index(["q1", "q2"], name="multilabel_id")
    a, b = pd.DataFrame({"f1": [0.0, 1.0]}, index=index), pd.DataFrame({"f1": [1.0, 1.0]}, index=index)
    _texts_drawn_literally(plot_comparison(a, b, names=["$x$", "y$^$"], metric="f1"),
                           ["f1 of $x$", "f1 of y$^$", "f1 per query: y$^$ wins 1, ties 1, loses 0"])
    table = pd.DataFrame({"c$^$t": [0.0, 1.0]}, index=index)
    _texts_drawn_literally(plot_metric_distribution(table, metric="c$^$t", kind="ecdf"), ["c$^$t per query (2 queries)"])
    at_k = pd.DataFrame({"node": "n$^$", "k": [1, 2], "metric": "c$^$t", "value": [0.5, 1.0]})
    _texts_drawn_literally(plot_metrics_at_k(at_k, metrics=["c$^$t"]), ["c$^$t", "document metrics@k of n$^$"])
