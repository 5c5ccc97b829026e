"""The analyses of a result in memory and of the same result on Dask are one: the same signatures, the same values.

The demo result, saved as a partitioned folder, is analysed on each ``backend`` (tests/conftest.py): by
:class:`evalframe.EvaluationResult` and by :class:`evalframe.dask.DaskEvaluationResult` on the session's LocalCluster.
Each test checks numbers worked out by hand from the demo frames' per-row match columns (see each test), and each
analysis must give what the in-memory result of the same folder gives (``memory``: the same keys, index, columns and
dtypes; values equal to 1e-12, as Dask adds the partitions' sums in partition order).
"""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import evalframe
from evalframe import EvaluationResult, load_demo_result
from evalframe.analysis.protocol import ResultLike

pytestmark = pytest.mark.filterwarnings("ignore:document_scope=.* ignores answer_scope")

#: "How tall is Mount Everest?": its retriever returned no document (one row, document_id None), its reader one
#: wrong answer (f1 0): the only query missed by either.
MISSED = "c385ff700e6e9d9a78dc15ccad18f7d5"
#: "Who was the first person to walk on Mars?": no gold answer and no gold document (a no-answer query, found).
NO_ANSWER = "4bdfe51dff23e875d0650dcb79803799"
TOLERANCE = 1e-12
ANALYSES = ["calculate_metrics", "metrics_frame", "sliced_metrics", "query_metrics", "metrics_at_k", "trec_metrics",
            "wrong_examples", "query_examples", "headline_metric", "pipeline_order", "has_answers", "has_documents"]
#: Parameters only the Dask analyses have.
DASK_ONLY = {"query_metrics": {"compute"}}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return load_demo_result().save(tmp_path_factory.mktemp("same") / "demo", format="parquet", partitions=3,
                                   progress=False)


@pytest.fixture
def run(backend, folder):
    """The demo on the test's backend (loaded anew for each test: a test may change the registry)."""
    return backend(folder)


@pytest.fixture
def memory(folder):
    """The reference: the same folder in memory."""
    return EvaluationResult.load(folder, progress=False)


def assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", ANALYSES)
def test_each_analysis_has_the_facades_signature(name):
    DaskEvaluationResult = pytest.importorskip("evalframe.dask").DaskEvaluationResult
    memory = inspect.signature(getattr(EvaluationResult, name))
    dask = inspect.signature(getattr(DaskEvaluationResult, name))
    only = DASK_ONLY.get(name, set())
    assert [p for p in dask.parameters.values() if p.name not in only] == list(memory.parameters.values())
    assert set(dask.parameters) - set(memory.parameters) == only


def test_both_are_result_like(run, backend):
    assert isinstance(run, ResultLike)
    assert run.on_cluster is backend.on_cluster and isinstance(run, EvaluationResult) is not backend.on_cluster
    assert run.nodes == ["Retriever", "Reader"]
    assert run.pipeline_order() == ["Retriever", "Reader"]


def test_calculate_metrics_by_hand(run):
    metrics = run.calculate_metrics()
    # recall_single_hit (document_id_or_answer): every query but MISSED has a row matching by id or answer (the
    # no-answer query counts as found) -> 7/8; exact_match / f1: the best answer row per query, integrated, in
    # frame order: em 1,1,1,1,0,1,1,0 -> 6/8; f1 the same but 2/3 for the last (Paris) query -> (6 + 2/3) / 8
    assert metrics["Retriever"]["recall_single_hit"] == 7 / 8
    assert metrics["Reader"]["exact_match"] == 6 / 8
    assert metrics["Reader"]["f1"] == pytest.approx((6 + 2 / 3) / 8, abs=1e-15)
    assert metrics["Reader"]["num_examples_for_eval"] == 8.0
    # the reader's top 1 (rank-1 rows): em 1,0,1,1,0,0,1,0 -> 4/8
    assert run.calculate_metrics(simulated_top_k_reader=1)["Reader"]["exact_match"] == 4 / 8


def test_calculate_metrics_and_metrics_frame_are_identical(run, memory):
    for options in ({}, {"simulated_top_k_retriever": 2}, {"simulated_top_k_reader": 1, "eval_mode": "isolated"}):
        got, expected = run.calculate_metrics(**options), memory.calculate_metrics(**options)
        assert got.keys() == expected.keys() and all(got[n].keys() == expected[n].keys() for n in got)
        assert all(got[n][m] == pytest.approx(expected[n][m], abs=TOLERANCE, nan_ok=True) for n in got for m in got[n])
        assert_same(run.metrics_frame(**options), memory.metrics_frame(**options))


def test_intervals_identical(run, memory):
    """ci=: the partitions' samples merged are the whole table's, so the intervals are equal (both methods read them)."""
    def numbers(metrics):
        return [x for values in metrics.values() for v in values.values()
                for x in ((float(v), v.low, v.high, v.n) if hasattr(v, "low") else (float(v),))]

    got, expected = (r.calculate_metrics(ci=0.95, rounds=2000) for r in (run, memory))
    assert got.keys() == expected.keys() and numbers(got) == pytest.approx(numbers(expected), abs=TOLERANCE)
    assert_same(run.metrics_frame(ci=0.9, ci_method="t"), memory.metrics_frame(ci=0.9, ci_method="t"))
    names = ["AP", "gm_map", "num_ret"]
    got, expected = (r.trec_metrics(names, duplicates="first", ci=0.9, rounds=2000) for r in (run, memory))
    assert numbers({0: got}) == pytest.approx(numbers({0: expected}), abs=TOLERANCE)


def test_sliced_metrics(run, memory):
    tables = [result.sliced_metrics("no_answer") for result in (memory, run)]
    assert_same(tables[1], tables[0])
    # 7 queries with an answer, 6 of them found (MISSED is not); the no-answer query is found
    assert tables[1].loc[("Retriever", False), "queries"] == 7
    assert tables[1].loc[("Retriever", False), "recall_single_hit"] == 6 / 7
    assert tables[1].loc[("Retriever", True), "recall_single_hit"] == 1.0


def test_query_metrics(run, memory, backend):
    for node in memory.nodes:
        assert_same(backend.query_metrics(run, node), memory.query_metrics(node))
    assert backend.query_metrics(run, "Retriever").loc[MISSED, "recall_single_hit"] == 0.0
    assert backend.query_metrics(run, "Retriever").loc[NO_ANSWER, "recall_single_hit"] == 1.0


def test_metrics_at_k(run, memory):
    tables = [result.metrics_at_k(ks=(1, 3), measures=["RR"], duplicates="first") for result in (memory, run)]
    assert_same(tables[1], tables[0])
    for table in tables:
        recall = table[(table["metric"] == "recall_single_hit")]["value"].tolist()
        # rank-1 rows match (id or answer) for Berlin, Moon (answer), Python, Rhine (answer) and the no-answer query;
        # by rank 3 also the Amazon and Paris ones: 7 (MISSED never)
        assert recall == [5 / 8, 7 / 8]


def test_trec_metrics(run):
    # RR over the 6 queries trec_eval evaluates (NO_ANSWER has no judgment, MISSED no retrieved document): the first
    # gold id at rank 2 (Berlin), 3 (Amazon), 3 (Moon), 1 (Python), 3 (Rhine), 3 (Paris) -> (1/2 + 1 + 4/3) / 6
    values = run.trec_metrics(["RR"], duplicates="first")
    assert values["RR"] == pytest.approx((1 / 2 + 1 + 4 / 3) / 6, abs=1e-15)


def test_missing_queries_error_refuses_the_judged_query_without_documents(run):
    # MISSED has judgments and no retrieved document: skipped by default (trec_eval 9.x), refused with
    # missing_queries="error" (trec_eval 10.0 without -c), 0 in the mean with complete=True (-c)
    kind, text = raised(lambda: run.trec_metrics(["RR"], duplicates="first", missing_queries="error"))
    assert kind is evalframe.SchemaError
    assert text.startswith(f"query {MISSED!r} of the qrels has no document in the run (no ranked row); with "
                           "missing_queries='error'")
    values = run.trec_metrics(["RR"], duplicates="first", missing_queries="error", complete=True)
    assert values["RR"] == pytest.approx((1 / 2 + 1 + 4 / 3) / 7, abs=1e-15)


def test_trec_metrics_identical(run, memory):
    got, expected = (r.trec_metrics(["RR", "P@3", "nDCG@3"], duplicates="first") for r in (run, memory))
    assert list(got) == list(expected) == ["RR", "P@3", "nDCG@3"]
    assert all(got[m] == pytest.approx(expected[m], abs=TOLERANCE) for m in got)


def test_trec_metrics_with_trec_evals_flags_identical(run, memory, backend):
    """max_docs, judged_only and rel (trec_eval -M, -J, -l) reach every partition, and the per-query tables too."""
    keywords = {"duplicates": "first", "max_docs": 2, "judged_only": True, "rel": 1}
    got, expected = (r.trec_metrics(["RR", "P@3", "nDCG@3"], **keywords) for r in (run, memory))
    assert list(got) == list(expected) == ["RR", "P@3", "nDCG@3"]
    assert all(got[m] == pytest.approx(expected[m], abs=TOLERANCE) for m in got)
    assert got != run.trec_metrics(["RR", "P@3", "nDCG@3"], duplicates="first")  # the flags changed something
    table = backend.trec_query_metrics(run, ["RR"], **keywords).sort_index()
    # Dask hands the object index of query ids back as pandas' str dtype (docs/cluster.md)
    pd.testing.assert_frame_equal(table, memory.trec_query_metrics(["RR"], **keywords).sort_index(),
                                  check_index_type=False, rtol=0, atol=TOLERANCE)


def test_trec_counts_set_measures_and_geometric_means_identical(run, memory):
    # sums (num_ret, num_rel, num_q) and geometric means (gm_map) merged from the partitions as from one table
    names = ["num_q", "num_ret", "num_rel", "num_rel_ret", "gm_map", "gm_bpref", "IPrec@0.5", "11pt_avg", "SetP",
             "SetF(beta=0.5)", "utility", "unj@5", "Judged@3", "Rprec_mult@0.6", "relative_P@2"]
    got, expected = (r.trec_metrics(names, duplicates="first") for r in (run, memory))
    assert list(got) == list(expected)
    assert all(got[m] == pytest.approx(expected[m], abs=TOLERANCE) for m in got)
    assert got["NumQ"] == expected["NumQ"] == 6  # the 6 queries trec_eval evaluates (test_trec_metrics)


def test_wrong_examples(run):
    assert [e["multilabel_id"] for e in run.wrong_examples("Retriever", n=3)] == [MISSED]
    assert [e["multilabel_id"] for e in run.wrong_examples("Reader", n=3)] == [MISSED]


def test_wrong_examples_identical(run, memory):
    for node in memory.nodes:
        kwargs = {"n": 5, "document_metric_threshold": 1.0, "answer_metric_threshold": 1.0}
        assert run.wrong_examples(node, **kwargs) == memory.wrong_examples(node, **kwargs)


def test_query_examples_identical(run, memory):
    table = memory.query_metrics("Reader").iloc[::-1]
    assert run.query_examples("Reader", table, metric="f1") == memory.query_examples("Reader", table, metric="f1")


def test_compare(run, memory, backend):
    tables = [evalframe.compare(memory, memory, node="Retriever", metrics="mrr"),
              backend.compare(run, run, node="Retriever", metrics="mrr")]
    assert_same(tables[1], tables[0])
    # first relevant (id or answer) row per query: rank 1 (Berlin), 3 (Amazon), 1 (Moon), NO_ANSWER 1, MISSED none,
    # 1 (Python), 1 (Rhine), 2 (Paris) -> (5 + 1/3 + 1/2) / 8
    for table in tables:
        assert table.loc["mrr", "mean_a"] == pytest.approx((5 + 1 / 3 + 1 / 2) / 8, abs=1e-15)
        assert table.loc["mrr", "ties"] == 8


def test_compare_marks_significance_the_same_way(run, memory, backend):
    kwargs = {"node": "Retriever", "metrics": ["mrr", "map"], "test": "t-test", "max_p": 0.05, "rounds": 500}
    tables = [evalframe.compare(memory, memory, memory, **kwargs), backend.compare(run, run, run, **kwargs)]
    assert_same(tables[1], tables[0])
    # identical runs: every p-value is 1, nothing significant
    assert tables[1]["p_holm"].tolist() == [1.0] * 4 and not tables[1]["significant"].any()


def test_the_generated_signatures_work_on_both(run):
    # Haystack 1.x's positions: calculate_metrics(simulated_top_k_reader, simulated_top_k_retriever, ...); at the
    # retriever's top 1, 5 of 8 queries are found (see test_metrics_at_k)
    assert run.calculate_metrics(-1, 1)["Retriever"]["recall_single_hit"] == 5 / 8
    sliced = run.sliced_metrics("no_answer")
    assert sliced.loc[("Retriever", True), "queries"] == 1  # NO_ANSWER
    assert [e["multilabel_id"] for e in run.wrong_examples("Reader", 3)] == [MISSED]


# ---------------------------------------------------------------------- the same errors, in memory and on Dask
@pytest.fixture(scope="module")
def two_folder(tmp_path_factory):
    """The demo with a second retriever ("Other", the Retriever's rows again): two nodes with document rows."""
    demo = load_demo_result()
    two = EvaluationResult({"Retriever": demo["Retriever"], "Other": demo["Retriever"].copy(), "Reader": demo["Reader"]},
                           matching=demo.matching)
    return two.save(tmp_path_factory.mktemp("two") / "two", format="parquet", partitions=3, progress=False)


@pytest.fixture
def two_run(backend, two_folder):
    return backend(two_folder)


def raised(call) -> tuple[type, str]:
    with pytest.raises(evalframe.EvalframeError) as caught:
        call()
    return type(caught.value), str(caught.value)


#: The old texts (evalframe before the analyses were written once), typed out. The unknown-measure message lists every
#: measure of the registry: its start is checked (the measures of today, in the registry's order), so a new measure
#: does not change this test.
MEASURES = "name a measure as ir_measures ('nDCG@10', 'P(rel=2)@5'), trec_eval"
NOT_A_RETRIEVER = ("retriever_node must name a node with document rows; 'Reader' has none. "
                   "Nodes with document rows: ['Retriever'].")


@pytest.mark.parametrize("call, error, message", [
    (lambda r: r.calculate_metrics(simulated_top_k_retriever=1, retriever_node="Reader"),
     evalframe.InvalidParameterError, NOT_A_RETRIEVER),
    (lambda r: r.calculate_metrics(retriever_node="Reader"), evalframe.InvalidParameterError, NOT_A_RETRIEVER),
    (lambda r: r.query_metrics("Reader", simulated_top_k_retriever=2, retriever_node="Reader"),
     evalframe.InvalidParameterError, NOT_A_RETRIEVER),
    (lambda r: r.calculate_metrics(simulated_top_k_retriever=1, retriever_node="Nowhere"), evalframe.UnknownNodeError,
     "retriever_node 'Nowhere' is not in this EvaluationResult; it holds ['Retriever', 'Reader']."),
    (lambda r: r.query_metrics("Nowhere"), evalframe.UnknownNodeError,
     "node 'Nowhere' is not in this EvaluationResult; it holds ['Retriever', 'Reader']."),
    (lambda r: r.trec_metrics(["RR"], node="Nowhere"), evalframe.UnknownNodeError,
     "node 'Nowhere' is not in this EvaluationResult; it holds ['Retriever', 'Reader']."),
    (lambda r: r.trec_metrics(["RR", "nope"]), evalframe.InvalidParameterError,
     f"unknown measure 'nope'; {MEASURES}"),
    (lambda r: r.metrics_at_k((1, 2), measures=["nope"]), evalframe.InvalidParameterError,
     f"unknown measure 'nope@1'; {MEASURES}"),  # named at the first k
])
def test_the_same_error_in_memory_and_on_dask(run, call, error, message):
    kind, text = raised(lambda: call(run))
    assert kind is error
    assert text.startswith(message) if message.startswith("unknown measure") else text == message


def test_the_retriever_must_be_named_when_two_nodes_have_document_rows(two_run):
    # the same error whether the retriever's top-k or trec_metrics needs the one node with document rows
    several = ("simulated_top_k_retriever needs the node whose documents simulate the retriever, and several nodes have "
               "document rows (candidates: ['Retriever', 'Other']). Pass retriever_node=<name>.")
    assert raised(lambda: two_run.calculate_metrics(simulated_top_k_retriever=1)) == (evalframe.InvalidParameterError,
                                                                                      several)
    # named, the other retriever simulates the top-k: its rows are the Retriever's, so the numbers are the demo's
    # (at the retriever's top 1, 5 of 8 queries are found; see test_metrics_at_k)
    assert two_run.calculate_metrics(simulated_top_k_retriever=1, retriever_node="Other")["Other"][
        "recall_single_hit"] == 5 / 8


def test_trec_metrics_needs_node_when_two_nodes_have_document_rows(two_run):
    error, message = raised(lambda: two_run.trec_metrics(["RR"], duplicates="first"))
    assert error is evalframe.InvalidParameterError
    # the old texts: in memory the nodes held are listed too; on Dask (a partition's nodes) they were not
    both = "trec_metrics needs node= when 2 nodes have document rows: ['Retriever', 'Other']"
    assert message == (both + "." if two_run.on_cluster else both + " (all nodes: ['Retriever', 'Other', 'Reader']).")
    # RR of the demo's Retriever, as in test_trec_metrics
    assert two_run.trec_metrics(["RR"], node="Other", duplicates="first")["RR"] == pytest.approx((1 / 2 + 1 + 4 / 3) / 6,
                                                                                                  abs=1e-15)


def test_a_metrics_declared_aggregation_holds_in_every_analysis_in_memory_and_on_dask(run, monkeypatch):
    """f1 declared a sum (as trec_eval sums num_ret): every path that makes one number of it says the sum.

    By hand from the demo's Reader: f1 is 1 for six queries, 2/3 for one and 0 for the missed one, so the sum is
    6 + 2/3 (the mean, (6 + 2/3) / 8, is checked above); the no-answer query is one of the six (its slice sums to 1).
    At the reader's top 1 the sum is 8 times the mean the same call gave before f1 was declared a sum.
    """
    import dataclasses

    from evalframe.metrics import registry

    mean_at_1 = run.calculate_metrics(simulated_top_k_reader=1)["Reader"]["f1"]  # before: a mean over the 8 queries
    monkeypatch.setitem(registry.METRICS, "f1", dataclasses.replace(registry.METRICS["f1"], aggregation="sum"))
    assert run.calculate_metrics()["Reader"]["f1"] == pytest.approx(6 + 2 / 3, abs=TOLERANCE)
    assert run.metrics_frame().loc["Reader", "f1"] == pytest.approx(6 + 2 / 3, abs=TOLERANCE)
    sliced = run.sliced_metrics("no_answer").loc["Reader", "f1"]
    assert sliced.loc[False] == pytest.approx(5 + 2 / 3, abs=TOLERANCE) and sliced.loc[True] == pytest.approx(1.0)
    at_k = run.metrics_at_k((1,), node="Reader")
    assert at_k.loc[at_k["metric"] == "f1", "value"].item() == pytest.approx(8 * mean_at_1, abs=TOLERANCE)
    assert run.calculate_metrics()["Reader"]["exact_match"] == pytest.approx(6 / 8)  # the others stay means
