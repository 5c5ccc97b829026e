"""Which way a measure is better, through every surface that reads it (issue 35, item 9): for each direction
(higher, lower, none) a measure of the registry (``P@4``, trec_eval's unjudged rate ``unj@4``, the count ``NumRet``)
and a declared score (``faith``, ``latency``, ``tokens``), through ``wrong_examples(metric=)``, ``compare``'s wins,
``worst_by_delta``, the report's worst list, the comparative report's arrows and marks, and the plots' axis labels,
titles and colours. ``wrong_examples``, ``compare`` and the comparative report run on each ``backend`` (in memory and
on Dask, tests/conftest.py).

Four queries, two runs, worked out by hand from the measures' definitions (``docs/metrics.md``); qrels::

    q1: d1=1 d2=1 d3=0    q2: d1=1 d2=0    q3: d1=0 d2=0 d3=1    q4: d1=1 d2=0

run A ranks q1: d1 d2 d3 x1, q2: d1 x1 x2 x3, q3: d1 d2, q4: d1 x1 x2; run B q1: d1 d2 d3, q2: d1 x1 x2 x3 x4,
q3: d3 x1 x2 x3, q4: d1 (x: unjudged). Per query (q1..q4):

* ``P@4`` (relevant in the top 4, over 4): A .5 .25 0 .25, B .5 .25 .25 .25;
* ``unj@4`` (unjudged in the top 4, over 4; a shorter ranking filled with judged documents): A .25 .75 0 .5,
  B 0 .75 .75 0;
* ``NumRet`` (documents retrieved): A 4 4 2 3, B 3 5 4 1.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalframe import (EvaluationResult, InvalidParameterError, compare, compare_report, direction_of, score_measure,
                       worst_by_delta)
from evalframe.analysis.compare import paired_statistics
from evalframe.metrics.registry import DIRECTIONS, REGISTRY, trec_measure
from evalframe.metrics import trec_set_kernels
from tests.metrics.test_common import NOT_HIGHER

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QRELS = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d1": 1, "d2": 0}, "q3": {"d1": 0, "d2": 0, "d3": 1},
         "q4": {"d1": 1, "d2": 0}}
RANKINGS = {"A": {"q1": ["d1", "d2", "d3", "x1"], "q2": ["d1", "x1", "x2", "x3"], "q3": ["d1", "d2"],
                  "q4": ["d1", "x1", "x2"]},
            "B": {"q1": ["d1", "d2", "d3"], "q2": ["d1", "x1", "x2", "x3", "x4"], "q3": ["d3", "x1", "x2", "x3"],
                  "q4": ["d1"]}}
IDS = ["q1", "q2", "q3", "q4"]
P4 = {"A": [0.5, 0.25, 0.0, 0.25], "B": [0.5, 0.25, 0.25, 0.25]}
UNJ4 = {"A": [0.25, 0.75, 0.0, 0.5], "B": [0.0, 0.75, 0.75, 0.0]}
NUM_RET = {"A": [4.0, 4.0, 2.0, 3.0], "B": [3.0, 5.0, 4.0, 1.0]}
# declared scores: higher, lower and no direction
FAITH = {"A": [0.9, 0.2, 0.6, 0.4], "B": [0.9, 0.5, 0.6, 0.4]}
LATENCY = {"A": [1.0, 3.0, 2.0, 0.5], "B": [0.5, 3.0, 4.0, 0.2]}
TOKENS = {"A": [10.0, 20.0, 30.0, 40.0], "B": [5.0, 25.0, 30.0, 10.0]}
MEASURES = ["P@4", "unj@4", "NumRet"]


def make(name: str) -> EvaluationResult:
    run = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in RANKINGS[name].items()}
    result = EvaluationResult.from_trec(run, QRELS)
    result.add_scores("Retriever", pd.DataFrame({"multilabel_id": IDS, "faith": FAITH[name], "latency": LATENCY[name],
                                                 "tokens": TOKENS[name]}),
                      direction={"latency": "lower", "tokens": "none"})
    return result


@pytest.fixture(scope="module")
def runs():
    return make("A"), make("B")


@pytest.fixture(scope="module")
def on_backend(runs, backend):
    """Runs A and B on the test's backend (Dask: partitioned folders of two partitions)."""
    return tuple(backend(run, partitions=2) for run in runs)


def ids(examples) -> list[str]:
    return [e["multilabel_id"] for e in examples]


def test_the_fixture_is_the_hand_worked_one(runs):
    for name, result in zip("AB", runs):
        table = result.trec_query_metrics(MEASURES).loc[IDS]
        assert table["P@4"].tolist() == P4[name] and table["unj@4"].tolist() == UNJ4[name]
        assert table["NumRet"].tolist() == NUM_RET[name]


# ---------------------------------------------------------------------------- the registry: every entry says it
def test_every_registry_entry_declares_its_direction():
    assert DIRECTIONS == ("higher", "lower", "none")
    assert all(entry.direction in DIRECTIONS for entry in REGISTRY)
    by_name = {entry.name: entry.direction for entry in REGISTRY}
    # which entries are lower or none is written once, beside each entry's hand-worked values (tests/metrics/test_common.py)
    assert {name for name, d in by_name.items() if d == "lower"} == {n for n, d in NOT_HIGHER.items() if d == "lower"}
    assert {name for name, d in by_name.items() if d == "none"} == {n for n, d in NOT_HIGHER.items() if d == "none"}
    assert {"unj", "rbp_resid", "NumRet"} <= set(NOT_HIGHER)
    assert by_name["NumRelRet"] == by_name["Judged"] == by_name["utility"] == "higher"
    # a newcomer's entry without a direction is refused where it is written (no silent "higher")
    with pytest.raises(TypeError, match="direction"):
        trec_measure("Missed", "relevant documents not in the top k", "num_rel - |relevant d in the top k|",  # type: ignore[call-arg]
                     kernel=trec_set_kernels.num_ret_table, cutoff="required")
    with pytest.raises(InvalidParameterError, match=r"direction must be one of \['higher', 'lower', 'none'\]"):
        trec_measure("Missed", "x", "x", kernel=trec_set_kernels.num_ret_table, direction="down")


@pytest.mark.parametrize(("name", "direction"), [
    ("P@5", "higher"), ("nDCG@10", "higher"), ("ndcg_cut_10", "higher"), ("map", "higher"), ("mrr", "higher"),
    ("unj@10", "lower"), ("unj.10", "lower"), ("unj_5", "lower"), ("rbp_resid", "lower"), ("Judged@10", "higher"),
    ("NumRet", "none"), ("num_ret", "none"), ("num_rel", "none"), ("NumQ", "none"), ("num_nonrel_judged_ret", "none"),
    ("NumRet(rel=2)", "higher"), ("num_rel_ret", "higher"),  # ir_measures' NumRet(rel=N) is num_rel_ret
])
def test_direction_of_reads_the_registry_under_every_spelling(name, direction):
    assert direction_of(name) == direction


def test_a_score_may_be_declared_without_a_direction():
    tokens = score_measure("tokens", direction="none")
    assert tokens.direction == "none" and "neither higher nor lower is better" in tokens.description
    assert direction_of("tokens", {"tokens": tokens}) == "none"


# ---------------------------------------------------------------------------- wrong_examples(metric=)
@pytest.mark.parametrize(("metric", "worst", "values"), [
    ("P@4", ["q3", "q2"], [0.0, 0.25]),       # higher is better: the lowest first (q2, q4 tie: table order)
    ("unj@4", ["q2", "q4"], [0.75, 0.5]),     # lower is better: the highest first (was q3, q1: the lowest)
    ("faith", ["q2", "q4"], [0.2, 0.4]),      # a score declared higher
    ("latency", ["q2", "q3"], [3.0, 2.0]),    # a score declared lower
])
def test_wrong_examples_ranks_worst_first_by_the_direction(on_backend, metric, worst, values):
    listed = on_backend[0].wrong_examples("Retriever", n=2, metric=metric)
    assert ids(listed) == worst and [e["metrics"][metric] for e in listed] == values


def test_wrong_examples_threshold_keeps_those_at_or_worse_by_the_direction(on_backend):
    # unj@4 of A: .25 .75 0 .5; worse than or at .5 means >= .5 when lower is better
    assert ids(on_backend[0].wrong_examples("Retriever", n=4, metric="unj@4", threshold=0.5)) == ["q2", "q4"]
    # the Haystack signature's document_metric reads the direction too (threshold 0.5 by default)
    assert ids(on_backend[0].wrong_examples("Retriever", n=4, document_metric="unj@4")) == ["q2", "q4"]


@pytest.mark.parametrize(("metric", "message"), [
    ("NumRet", r"NumRet is a count \(neither higher nor lower is better\): it has no worst queries; pick a measure "
               r"with a direction"),
    ("num_ret", r"NumRet is a count"),
    ("tokens", r"tokens is declared with direction 'none'.*: it has no worst queries"),
])
def test_wrong_examples_refuses_a_measure_without_direction(on_backend, metric, message):
    with pytest.raises(InvalidParameterError, match=message):
        on_backend[0].wrong_examples("Retriever", metric=metric)


@pytest.mark.parametrize("name", ["NumRet", "num_ret"])
def test_wrong_examples_document_metric_refuses_a_count(on_backend, name):
    with pytest.raises(InvalidParameterError, match=r"NumRet is a count.*no worst queries"):
        on_backend[0].wrong_examples("Retriever", document_metric=name)


# ---------------------------------------------------------------------------- compare: wins by direction
def test_compare_counts_wins_by_the_direction(on_backend, backend):
    table = backend.compare(*on_backend, node="Retriever", metrics=[*MEASURES, "faith", "latency", "tokens"], rounds=50)
    counts = table[["wins", "ties", "losses"]]
    # B - A per query: P@4 0 0 +.25 0; unj@4 -.25 0 +.75 -.5 (a fall is a win); faith 0 +.3 0 0;
    # latency -.5 0 +2 -.3
    assert counts.loc["P@4"].tolist() == [1, 3, 0]
    assert counts.loc["unj@4"].tolist() == [2, 1, 1]  # was 1 win, 2 losses
    assert counts.loc["faith"].tolist() == [1, 3, 0]
    assert counts.loc["latency"].tolist() == [2, 1, 1]
    # a count: no wins, no losses (NaN); its ties still counted. NumRet B - A: -1 +1 +2 -2; tokens -5 +5 0 -30
    for metric, ties in (("NumRet", 0), ("tokens", 1)):
        assert math.isnan(counts.loc[metric, "wins"]) and math.isnan(counts.loc[metric, "losses"])
        assert counts.loc[metric, "ties"] == ties
    # delta stays b - a whatever the direction
    assert table.loc["unj@4", "delta"] == pytest.approx((0.0 + 0.75 + 0.75 + 0.0 - 1.5) / 4, abs=1e-15)


def test_compare_of_per_query_tables_reads_the_registry_and_refuses_an_unknown_column(runs):
    a, b = (run.trec_query_metrics(["unj@4"]) for run in runs)
    assert compare(a, b, rounds=50).loc["unj@4", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]
    bleu = [t.rename(columns={"unj@4": "bleu"}) for t in (a, b)]
    with pytest.raises(InvalidParameterError, match=r"metrics: column 'bleu' .* which way it is better .* not known"):
        compare(*bleu, rounds=50)


def test_paired_statistics_without_direction_has_no_wins():
    row = paired_statistics(np.array([1.0, 0.0, -2.0]), 1.0, 0.5, 0, 0, rng=np.random.default_rng(0), rounds=10,
                            confidence=0.9, direction="none")
    assert math.isnan(row["wins"]) and math.isnan(row["losses"]) and row["ties"] == 1


# ---------------------------------------------------------------------------- worst_by_delta
@pytest.mark.parametrize(("metric", "way", "expected", "deltas"), [
    ("P@4", "worse", [], []),
    ("P@4", "better", ["q3"], [0.25]),
    ("unj@4", "worse", ["q3"], [0.75]),              # a rise of the unjudged rate is worse (was q4, q1)
    ("unj@4", "better", ["q4", "q1"], [-0.5, -0.25]),  # the largest fall first (was q3)
    ("faith", "better", ["q2"], [0.3]),
    ("latency", "worse", ["q3"], [2.0]),
    ("latency", "better", ["q1", "q4"], [-0.5, -0.3]),
])
def test_worst_by_delta_follows_the_direction(runs, metric, way, expected, deltas):
    listed = worst_by_delta(*runs, "Retriever", metric, direction=way)
    assert ids(listed) == expected
    assert [e["delta"] for e in listed] == pytest.approx(deltas, abs=1e-12)


@pytest.mark.parametrize(("metric", "message"), [("NumRet", r"NumRet is a count.*no worse or better queries"),
                                                 ("tokens", r"tokens is declared with direction 'none'")])
def test_worst_by_delta_refuses_a_measure_without_direction(runs, metric, message):
    with pytest.raises(InvalidParameterError, match=message):
        worst_by_delta(*runs, "Retriever", metric)


# ---------------------------------------------------------------------------- the report's worst list
def test_the_report_lists_the_worst_by_the_first_measure_with_a_direction(runs):
    # measures NumRet (a count: no worst), unj@4, P@4: the worst queries by unj@4, the highest first, those >= 0.5
    model = runs[0].report(measures=["NumRet", "unj@4", "P@4"], charts=False).model
    section = model.sections[0]
    assert (section.metric, section.direction) == ("unj@4", "lower")
    assert [q.value for q in section.queries] == [0.75, 0.5]
    only_counts = runs[0].report(measures=["NumRet"], charts=False).model.sections[0]
    assert only_counts.metric == "recall_single_hit"  # the node's headline metric, no measure having a direction


def test_the_report_by_metric_follows_a_scores_direction(runs):
    section = runs[0].report(metric="latency", charts=False).model.sections[0]
    assert section.direction == "lower" and [q.value for q in section.queries] == [3.0, 2.0, 1.0]
    with pytest.raises(InvalidParameterError, match=r"tokens is declared with direction 'none'"):
        runs[0].report(metric="tokens", charts=False)


def test_the_report_says_at_least_for_a_lower_is_better_measure_without_worst_queries():
    # B's rankings of q1 and q4 retrieve judged documents only: unj@4 0 and 0, no query scores unj@4 >= 0.5
    judged = {q: {d: float(3 - i) for i, d in enumerate(RANKINGS["B"][q])} for q in ("q1", "q4")}
    report = EvaluationResult.from_trec(judged, QRELS).report(measures=["unj@4"], charts=False)
    assert report.model.sections[0].queries == ()
    assert "no query scores unj@4 >= 0.5" in report.text
    assert "No query scores unj@4 \\>= 0.5." in report.to_markdown()  # Markdown escapes '>' (GitHub shows >=)
    assert "No query scores <bdi>unj@4</bdi> &ge; 0.5." in report.html  # user text isolated (bidi)


# ---------------------------------------------------------------------------- the comparative report
def test_the_comparative_report_marks_changes_by_the_direction(on_backend):
    metrics = ["NumRet", "unj@4", "P@4", "faith", "latency", "tokens"]
    report = compare_report({"A": on_backend[0], "B": on_backend[1]}, metrics=metrics, rounds=50)
    node = report.model.nodes[0]
    assert {m.metric: m.direction for m in node.measures} == {
        "NumRet": "none", "unj@4": "lower", "P@4": "higher", "faith": "higher", "latency": "lower", "tokens": "none"}
    by_query = {q.multilabel_id: q for q in node.queries}
    position = {m.metric: i for i, m in enumerate(node.measures)}
    changes = {m: [by_query[q].changes[position[m]][0] for q in IDS] for m in metrics}
    assert changes["unj@4"] == ["better", "", "worse", "better"]  # B - A: -.25 0 +.75 -.5
    assert changes["latency"] == ["better", "", "worse", "better"]
    assert changes["P@4"] == ["", "", "better", ""]
    assert changes["NumRet"] == changes["tokens"] == ["", "", "", ""]  # a count's change is neither
    # the grid is ordered by a measure with a direction (NumRet, listed first, moved but has none): unj@4's worst first
    assert node.order_metric == "unj@4" and node.queries[0].multilabel_id == "q3" and node.queries[0].worst == -0.75
    lines = {line.split()[0]: line for line in report.text.splitlines() if line.split()[:1] and line.split()[0] in metrics}
    assert lines["unj@4"].split()[1] == "↓" and lines["P@4"].split()[1] == "↑" and lines["latency"].split()[1] == "↓"
    assert lines["NumRet"].split()[1] != "↑" and "↓" not in lines["NumRet"] and "↑" not in lines["tokens"]
    assert "| NumRet  |" in report.markdown and "| unj@4 ↓ |" in report.markdown
    assert "Queries that got worse on unj@4" in report.text


# ---------------------------------------------------------------------------- the plots
GREEN, RED, GREY = "#55a868", "#c44e52", "#8c8c8c"


@pytest.fixture(scope="module")
def plots():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evalframe.report import plots as module

    yield module
    plt.close("all")


def colours(ax) -> list[str]:
    from matplotlib.colors import to_hex

    return [to_hex(c) for c in ax.collections[0].get_facecolors()]


def test_the_plot_labels_say_which_way_is_better(runs, plots):
    tables = [run.query_metrics("Retriever").join(run.trec_query_metrics(MEASURES)) for run in runs]
    scores = runs[0].scores
    assert [plots.metric_label(m, scores) for m in ("P@4", "unj@4", "NumRet", "faith", "latency", "tokens")] == [
        "P@4", "unj@4 (lower is better)", "NumRet", "faith (higher is better)", "latency (lower is better)", "tokens"]
    assert plots.plot_metric_distribution(tables[0], metric="unj@4").get_xlabel() == "unj@4 (lower is better)"
    assert plots.plot_metric_distribution(runs[0], "Retriever", metric="tokens").get_xlabel() == "tokens"


def test_plot_comparison_counts_wins_and_colours_by_the_direction(runs, plots):
    a, b = (run.trec_query_metrics(MEASURES) for run in runs)
    # unj@4 (a, b) pairs, sorted: (0, .75) q3 a loss, (.25, 0) q1 a win, (.5, 0) q4 a win, (.75, .75) q2 a tie
    ax = plots.plot_comparison(a, b, metric="unj@4", names=["A", "B"])
    assert ax.get_title() == "unj@4 per query: B wins 2, ties 1, loses 1"
    assert colours(ax) == [RED, GREEN, GREEN, GREY]
    assert ax.get_xlabel() == "unj@4 (lower is better) of A"
    # a count: every point grey, no wins in the title. NumRet pairs: (2, 4) (3, 1) (4, 3) (4, 5)
    ax = plots.plot_comparison(a, b, metric="NumRet", names=["A", "B"])
    assert ax.get_title() == "NumRet per query (a count, no wins): B higher on 2, the same on 0, lower on 2"
    assert colours(ax) == [GREY] * 4 and ax.get_xlabel() == "NumRet of A"
    # P@4 pairs: (0, .25) a win, (.25, .25) x2 a tie, (.5, .5) a tie
    ax = plots.plot_comparison(a, b, metric="P@4", names=["A", "B"])
    assert ax.get_title() == "P@4 per query: B wins 1, ties 3, loses 0" and colours(ax) == [GREEN, GREY, GREY]
    # declared scores: latency pairs (.5, .2) (1, .5) (2, 4) (3, 3); tokens all grey
    ax = plots.plot_comparison(*runs, "Retriever", metric="latency")
    assert ax.get_title() == "latency per query: B wins 2, ties 1, loses 1" and colours(ax) == [GREEN, GREEN, RED, GREY]
    ax = plots.plot_comparison(*runs, "Retriever", metric="tokens")
    assert colours(ax) == [GREY] * 4 and "no wins" in ax.get_title()


# ---------------------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def folders(runs, tmp_path_factory):
    folder = tmp_path_factory.mktemp("directions")
    return [str(run.save(folder / name, progress=False)) for name, run in zip("AB", runs)]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from evalframe.present.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_evalframe_worst_follows_the_direction(folders, capsys):
    code, out, _ = cli(capsys, "worst", folders[0], "--node", "Retriever", "--metric", "unj@4", "--format", "csv")
    assert code == 0 and [line.split(",")[0] for line in out.splitlines()[1:]] == ["q2", "q4"]  # >= 0.5, highest first
    code, out, _ = cli(capsys, "worst", folders[0], "--node", "Retriever", "--metric", "unj@4", "--threshold", "0.9")
    assert code == 0 and "no query of node 'Retriever' scores unj@4 >= 0.9" in out
    code, _, err = cli(capsys, "worst", folders[0], "--node", "Retriever", "--metric", "num_ret")
    assert code == 1 and err.startswith("error: --metric: NumRet is a count") and len(err.splitlines()) == 1


def test_evalframe_compare_shows_no_wins_for_a_count(folders, capsys):
    code, out, _ = cli(capsys, "compare", *folders, "--node", "Retriever", "-m", "NumRet", "-m", "unj@4", "--metrics",
                       "tokens", "--rounds", "50", "--format", "markdown")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[12:15]] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| metric")}
    assert rows == {"tokens": ["n/a", "1", "n/a"], "NumRet": ["n/a", "0", "n/a"], "unj@4": ["2", "1", "1"]}


# ---------------------------------------------------------------------------- fusion: the best by the direction
def test_optimize_fusion_keeps_the_best_by_the_direction():
    from evalframe import optimize_fusion

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 0}}
    unjudged = {"q1": {"x1": 3.0, "x2": 2.0}}
    judged = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    # unj@2 by hand, min-max normalised (x1 1, x2 0; d1 1, d2 .5, d3 0), ties by docid descending: weights (0, 1)
    # rank d1, d2 first, 0 / 2; (.5, .5) x1 and d1 (.5 each), 1 / 2; (1, 0) x1, then x2 of the zeros, 2 / 2.
    # The lowest wins (was (1, 0), 1.0)
    search = optimize_fusion([unjudged, judged], qrels, measure="unj@2", step=0.5)
    assert search.trials["unj@2"].tolist() == [0.0, 0.5, 1.0]
    assert (search.weights, search.score) == ((0.0, 1.0), 0.0)
    with pytest.raises(InvalidParameterError, match=r"NumRet is a count.*no best fusion"):
        optimize_fusion([unjudged, judged], qrels, measure="num_ret", step=0.5)


def test_every_column_of_a_metrics_table_has_a_direction():
    """Review R9: direction_of("num_examples_for_eval") was refused though calculate_metrics returns that column (a
    count of the queries evaluated: neither better higher nor lower), as was sliced_metrics' "queries"."""
    from tests.fixtures import hand_result

    result = hand_result()
    assert direction_of("num_examples_for_eval") == direction_of("queries") == "none"
    for node, values in result.calculate_metrics().items():
        directions = {metric: direction_of(metric, result.scores) for metric in values}
        assert directions.pop("num_examples_for_eval", "none") == "none", node
        assert set(directions.values()) == {"higher"}, node  # mrr, recall, f1, exact_match...: higher
    assert {direction_of(column) for column in result.sliced_metrics("no_answer").columns} == {"none", "higher"}
