"""Every tool's spelling of a measure (ranx's, trec_eval's, pytrec_eval's, ir_measures' strings and measure objects, in
any letter case) through every surface that takes measures: the API (trec_metrics, trec_query_metrics,
query_metrics(measures=), compare(metrics=) in memory and on TREC files, report(measures=), wrong_examples(metric=),
direction_of) and the commands (evalframe trec -m, evalframe compare -m): each gives what the canonical name gives
(the values themselves are checked against each tool in tests/metrics/test_tool_names.py)."""

from __future__ import annotations

import numpy as np
import pytest

from evalframe import EvaluationResult, compare, direction_of
from evalframe.errors import InvalidParameterError
from evalframe.metrics.registry import METRICS
from tests.test_every_measure_everywhere import make_run, write_runs

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: spelling -> the canonical name the tables use
SPELLINGS = {"ndcg@10": "nDCG@10", "mrr": "RR", "precision@5": "P@5", "recall@100": "R@100", "map@100": "AP@100",
             "hit_rate@10": "Success@10", "r-precision": "Rprec", "ndcg_burges@10": "nDCG(dcg='exp-log2')@10",
             "precision@5-l2": "P(rel=2)@5", "Ndcg_Cut_5": "nDCG@5", "P_10": "P@10", "RECIP_RANK": "RR",
             "insq(T=2,max_rel=3)": "INSQ(T=2,max_rel=3)"}


def objects() -> dict:
    ir = pytest.importorskip("ir_measures")
    return {ir.nDCG @ 10: "nDCG@10", ir.P(rel=2) @ 5: "P(rel=2)@5", ir.MRR: "RR", ir.NERR8(max_rel=3) @ 5: "NERR8(max_rel=3)@5"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_runs(tmp_path_factory.mktemp("names"), 3, 4)


@pytest.fixture(scope="module")
def results(files):
    return (EvaluationResult.from_trec(files / "a.txt", files / "qrels.txt"),
            EvaluationResult.from_trec(files / "b.txt", files / "qrels.txt"))


def every_spelling() -> dict:
    return {**SPELLINGS, **objects()}


def test_trec_metrics_and_trec_query_metrics(results):
    written = every_spelling()
    canonical = list(dict.fromkeys(written.values()))
    table = results[0].trec_query_metrics(list(written))
    assert list(table.columns) == canonical
    expected = results[0].trec_query_metrics(canonical)
    np.testing.assert_array_equal(table.to_numpy(), expected.to_numpy())
    assert results[0].trec_metrics(list(written)) == results[0].trec_metrics(canonical)
    for spelling, name in written.items():  # one name alone (an ir_measures object too)
        assert list(results[0].trec_metrics(spelling)) == [name]


def test_query_metrics_takes_the_spellings(results):
    written = every_spelling()
    node = next(iter(results[0].node_results))
    table = results[0].query_metrics(node, measures=list(written))
    expected = results[0].query_metrics(node, measures=list(dict.fromkeys(written.values())))
    assert table.equals(expected)


def test_compare_of_results_and_of_trec_files_takes_the_spellings(results, files):
    written = {spelling: name for spelling, name in every_spelling().items() if spelling not in METRICS}
    canonical = list(dict.fromkeys(written.values()))
    table = compare(*results, metrics=list(written), rounds=100)
    assert table.equals(compare(*results, metrics=canonical, rounds=100))
    # TREC files are compared on trec_eval's measures only: mrr is ranx's (RR) there
    on_files = compare(files / "a.txt", files / "b.txt", qrels=files / "qrels.txt", metrics=["mrr", *written],
                       rounds=100)
    assert list(on_files.index) == list(dict.fromkeys(["RR", *canonical]))
    np.testing.assert_allclose(on_files.loc[canonical, "mean_a"].to_numpy(), table["mean_a"].to_numpy(), rtol=0,
                               atol=1e-15)
    # where Haystack's metrics are compared too, a Haystack metric's name is that metric (docs/ir-researchers.md);
    # in another letter case, where it is a measure's only in that other case, it is refused, naming both
    assert list(compare(*results, metrics=["mrr", "MRR"], rounds=100).index) == ["mrr", "RR"]
    with pytest.raises(InvalidParameterError, match=r"'F1' is Haystack's metric 'f1' and the measure SetF in other "
                                                    r"letter cases.*Did you mean 'f1' \(Haystack's\) or 'SetF'\?"):
        compare(*results, metrics=["F1"])
    ir = pytest.importorskip("ir_measures")
    assert list(compare(*results, metrics=ir.nDCG @ 10, rounds=100).index) == ["nDCG@10"]  # one object


def test_report_and_wrong_examples_and_direction_of_take_the_spellings(results):
    ir = pytest.importorskip("ir_measures")
    text = results[0].report(measures=["ndcg@10", ir.P(rel=2) @ 5, "hit_rate@10"], charts=False, n=1).text
    for name in ("nDCG@10", "P(rel=2)@5", "Success@10"):
        assert name in text
    node = next(iter(results[0].node_results))
    expected = [e["multilabel_id"] for e in results[0].wrong_examples(node, n=5, metric="nDCG@10")]
    for spelling in ("ndcg@10", "NDCG_CUT_10", ir.nDCG @ 10):
        assert [e["multilabel_id"] for e in results[0].wrong_examples(node, n=5, metric=spelling)] == expected
        assert [e["multilabel_id"] for e in results[0].wrong_examples(node, n=5, document_metric=spelling)] == \
            [e["multilabel_id"] for e in results[0].wrong_examples(node, n=5, document_metric="nDCG@10")]
    assert [direction_of(s) for s in ("hit_rate@10", "r-precision", ir.nDCG @ 10, "INSQ(max_rel=2)")] == ["higher"] * 4


def test_the_commands_take_the_spellings(files, results, capsys):
    from evalframe.present.cli import main

    code = main(["trec", str(files / "a.txt"), str(files / "qrels.txt"), *(f"-m{name}" for name in SPELLINGS),
                 "--format", "tsv", "--digits", "12"])
    out = capsys.readouterr().out
    assert code == 0, out
    printed = {measure.strip(): float(value) for measure, query, value in (line.split("\t") for line in out.splitlines())
               if query == "all" and measure.strip() != "num_q"}
    means = results[0].trec_metrics(list(dict.fromkeys(SPELLINGS.values())))
    assert list(printed) == list(means)
    for name, value in means.items():
        assert printed[name] == pytest.approx(value, abs=1e-11), name
    code = main(["compare", str(files / "a.txt"), str(files / "b.txt"), "--qrels", str(files / "qrels.txt"),
                 "-m", "ndcg@10", "-m", "mrr", "-m", "hit_rate@10", "--rounds", "100"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["nDCG@10", "RR", "Success@10"]


def test_the_commands_on_a_results_folder_take_the_spellings(results, tmp_path, capsys):
    """evalframe worst --metric, report -m and compare --metrics of a results folder, ranx's names and others'."""
    from evalframe.present.cli import main

    folder = results[0].save(tmp_path / "a", format="csv", progress=False)
    node = next(iter(results[0].node_results))
    assert main(["worst", str(folder), "--node", node, "--metric", "ndcg@10", "-n", "2"]) == 0
    worst = capsys.readouterr().out
    assert main(["worst", str(folder), "--node", node, "--metric", "nDCG@10", "-n", "2"]) == 0
    assert worst == capsys.readouterr().out and "nDCG@10" in worst
    assert main(["report", str(folder), "-m", "hit_rate@10", "-m", "Ndcg_Cut_5", "-n", "1"]) == 0
    report = capsys.readouterr().out
    assert "Success@10" in report and "nDCG@5" in report
    assert main(["compare", str(folder), str(folder), "--node", node, "--metrics", "r-precision,map@100",
                 "--rounds", "10"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[3:]] == ["Rprec", "AP@100"]


def test_every_backend_takes_every_tools_spelling(backend):
    """ranx's names, other letter cases and ir_measures' measure objects on each backend (tests/conftest.py; on Dask
    the numbers are the in-memory result's): trec_metrics, query_metrics(measures=), wrong_examples(metric=) and
    compare."""
    written = every_spelling()
    canonical = list(dict.fromkeys(written.values()))
    result = EvaluationResult.from_trec(*make_run(3))
    on = backend(result)
    means = on.trec_metrics(list(written))
    assert list(means) == canonical
    for name, value in result.trec_metrics(canonical).items():
        assert means[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    node = on.nodes[0]
    table = backend.query_metrics(on, node, measures=list(written))
    assert set(canonical) <= set(table.columns)
    ir = pytest.importorskip("ir_measures")
    worst = [e["multilabel_id"] for e in on.wrong_examples(node, n=4, metric=ir.nDCG @ 10)]
    assert worst == [e["multilabel_id"] for e in result.wrong_examples(node, n=4, metric="nDCG@10")]
    compared = backend.compare(on, on, node=node, metrics=["hit_rate@10", ir.P(rel=2) @ 5], rounds=50)
    assert list(compared.index) == ["Success@10", "P(rel=2)@5"]
