"""evalframe.dask: every analysis of a partitioned folder, computed per partition on a LocalCluster, equals the
in-memory analysis of the same result (values to 1e-12, types, order), whatever the partition count."""

from __future__ import annotations

import functools

import json
import math
import multiprocessing
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dask
import evalframe.dask
import evalframe.dask.result as dask_result
from benchmarks.synthetic import make_result
import evalframe
from evalframe import EvaluationResult, InvalidParameterError, LoadError, SchemaError
from evalframe.frames.codings import Codings
from evalframe.io.partitioned import read_partition
from tests.fixtures import answer_row, doc_row, hand_result

dd = pytest.importorskip("dask.dataframe")
pytestmark = pytest.mark.filterwarnings("ignore:document_scope=.* ignores answer_scope")
TOLERANCE = 1e-12


def close(a, b) -> bool:
    """Nested dicts / floats equal to 1e-12 (NaN equals NaN)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= TOLERANCE


def assert_frames_close(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=TOLERANCE)


def ids(examples) -> list:
    return [(e["multilabel_id"], e["metrics"]) for e in examples]


def both(result: EvaluationResult, tmp_path, partitions: int, client):
    folder = result.save(tmp_path / f"p{partitions}", format="parquet", partitions=partitions, progress=False)

    return EvaluationResult.load(folder, progress=False), evalframe.dask.load(folder, client=client)


OPTIONS = [{}, {"simulated_top_k_retriever": 2}, {"simulated_top_k_reader": 1, "simulated_top_k_retriever": 3},
           {"document_scope": "context", "answer_scope": "document_id"}, {"eval_mode": "isolated"},
           {"document_scope": "document_id_or_answer", "simulated_top_k_retriever": 1}]


# seven partitions on the cluster go behind the stress marker (.ci/run runs it in full): the suite stays under 5 minutes
@pytest.mark.parametrize("partitions", [1, pytest.param(7, marks=pytest.mark.stress)])
def test_every_analysis_equals_the_in_memory_one_on_synthetic_results(tmp_path, client, partitions):
    memory, cluster = both(make_result(80, seed=3), tmp_path, partitions, client)
    for options in OPTIONS[:4]:
        assert close(cluster.calculate_metrics(**options), memory.calculate_metrics(**options)), options
    assert_frames_close(cluster.metrics_at_k((1, 3, 10)), memory.metrics_at_k((1, 3, 10)))
    assert_frames_close(cluster.metrics_at_k((2, 5), node="Retriever", measures=["nDCG", "P"], duplicates="first"),
                        memory.metrics_at_k((2, 5), node="Retriever", measures=["nDCG", "P"], duplicates="first"))
    measures = ["AP", "nDCG@10", "P@5", "RR", "R@3", "Rprec", "Bpref", "Success@1"]
    for complete in (False, True):
        assert close(cluster.trec_metrics(measures, complete=complete, duplicates="first"),
                     memory.trec_metrics(measures, complete=complete, duplicates="first"))
    lazy = cluster.trec_query_metrics(measures, duplicates="first")
    assert isinstance(lazy, dd.DataFrame)
    # values equal; Dask hands the object index of query ids back as pandas' str dtype (documented in docs/cluster.md)
    pd.testing.assert_frame_equal(lazy.compute().sort_index(), memory.trec_query_metrics(measures,
                                  duplicates="first").sort_index(), check_index_type=False, rtol=0, atol=TOLERANCE)
    assert_frames_close(cluster.metrics_frame(simulated_top_k_reader=2), memory.metrics_frame(simulated_top_k_reader=2))
    for node in ("Retriever", "Reader"):
        assert_frames_close(cluster.query_metrics(node, compute=True), memory.query_metrics(node))
        lazy = cluster.query_metrics(node, simulated_top_k_retriever=3)
        assert isinstance(lazy, dd.DataFrame)
        assert_frames_close(lazy.compute().sort_index(), memory.query_metrics(node, simulated_top_k_retriever=3).sort_index())
    assert_frames_close(cluster.sliced_metrics("no_answer"), memory.sliced_metrics("no_answer"))
    assert_frames_close(cluster.sliced_metrics(["no_answer", "filters"], measures="nDCG@5", duplicates="first"),
                        memory.sliced_metrics(["no_answer", "filters"], measures="nDCG@5", duplicates="first"))
    for n in (1, 40):
        assert ids(cluster.wrong_examples("Reader", n=n)) == ids(memory.wrong_examples("Reader", n=n))
        assert cluster.wrong_examples("Retriever", n=n, document_metric="mrr", document_metric_threshold=1.0) == \
            memory.wrong_examples("Retriever", n=n, document_metric="mrr", document_metric_threshold=1.0)
        assert ids(cluster.wrong_examples("Retriever", n=n, document_metric="nDCG@3", duplicates="first")) == \
            ids(memory.wrong_examples("Retriever", n=n, document_metric="nDCG@3", duplicates="first"))


@pytest.mark.stress  # (was tests/dask/test_same_analyses.py) the demo's analyses, on a synthetic result
@pytest.mark.parametrize("partitions", [2, 9])
def test_the_mean_analyses_agree_on_synthetic_results(tmp_path, client, partitions):
    memory, cluster = both(make_result(300, seed=13), tmp_path, partitions, client)
    for options in ({}, {"simulated_top_k_retriever": 2, "simulated_top_k_reader": 1}, {"eval_mode": "isolated"}):
        assert_frames_close(cluster.metrics_frame(**options), memory.metrics_frame(**options))
        assert_frames_close(cluster.sliced_metrics("no_answer", **options), memory.sliced_metrics("no_answer", **options))
        for node in memory.nodes:
            assert_frames_close(cluster.query_metrics(node, compute=True, **options), memory.query_metrics(node, **options))
            assert cluster.wrong_examples(node, n=4, **options) == memory.wrong_examples(node, n=4, **options)
    assert_frames_close(cluster.metrics_at_k((1, 2, 4)), memory.metrics_at_k((1, 2, 4)))


POOL = ["d1", "d2", "d3", "d4"]


@st.composite
def results(draw):
    """Queries whose rows interleave (so first appearance matters), in both eval modes, with ties in the metrics."""
    docs, answers = [], []
    n_queries = draw(st.integers(1, 8))
    golds = [POOL[:draw(st.integers(0, 2))] for _ in range(n_queries)]  # one gold list per query, on all its rows
    for _ in range(draw(st.integers(1, 25))):
        q = draw(st.integers(0, n_queries - 1))
        qid = f"q{q}"
        mode = draw(st.sampled_from(["integrated", "integrated", "isolated"]))
        if draw(st.booleans()):
            gold = golds[q]
            doc = draw(st.sampled_from(POOL))
            docs.append(doc_row(qid, draw(st.integers(1, 4)), doc, gold, [float(g == doc) for g in gold],
                                [float(draw(st.integers(0, 100))) for _ in gold], [float(draw(st.booleans())) for _ in gold],
                                eval_mode=mode))
        else:
            em = float(draw(st.booleans()))
            answers.append(answer_row(qid, draw(st.integers(1, 3)), "a", em, max(em, draw(st.sampled_from([0.0, 0.5]))),
                                      draw(st.lists(st.sampled_from(POOL), max_size=2)), eval_mode=mode))
    frames = {}
    if docs:
        frames["Retriever"] = pd.DataFrame(docs)
    if answers:
        frames["Reader"] = pd.DataFrame(answers)
    if not frames:
        frames["Reader"] = pd.DataFrame([answer_row("q0", 1, "a", 1.0, 1.0, ["d1"])])
    return EvaluationResult(frames)


@pytest.mark.stress  # a generated sweep on the cluster: .ci/run runs it with -m stress (the suite stays under 5 minutes)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(result=results(), partitions=st.integers(1, 5), options=st.sampled_from(OPTIONS),
       n=st.integers(1, 6))
def test_generated_results_computed_both_ways_agree(tmp_path_factory, result, partitions, options, n):
    # Dask's synchronous scheduler: the same tasks and merges as on the cluster (which the other tests use), fast
    with dask.config.set(scheduler="synchronous"):
        _both_ways(tmp_path_factory, result, partitions, options, n)


def test_a_top_k_that_keeps_no_query_gives_the_empty_table_of_memory(tmp_path):
    # found by hypothesis: the one retriever row has rank 3, so top-k 2 keeps no query; the gathered empty table had
    # an object index where memory's has the ids' dtype (partition 0 held no ids of the node)
    retriever = pd.DataFrame([doc_row("q0", 3, "d1", ["d1"], [1], [100], [1])]).assign(node="Retriever")
    reader = pd.DataFrame([answer_row("q0", 1, "a", 0.0, 0.0, ["d1"])] * 3).assign(node="Reader")
    memory, cluster = both(EvaluationResult({"Retriever": retriever, "Reader": reader}), tmp_path, 3, None)
    with dask.config.set(scheduler="synchronous"):
        got = cluster.query_metrics("Retriever", compute=True, simulated_top_k_retriever=2)
    expected = memory.query_metrics("Retriever", simulated_top_k_retriever=2)
    assert len(expected) == 0
    assert_frames_close(got, expected)


def _both_ways(tmp_path_factory, result, partitions, options, n):
    client = None
    if "Retriever" not in result and "simulated_top_k_retriever" in options and "Reader" in result:
        options = {k: v for k, v in options.items() if k != "simulated_top_k_retriever"}
    memory, cluster = both(result, tmp_path_factory.mktemp("generated"), partitions, client)
    try:
        cluster.calculate_metrics(**options)
    except InvalidParameterError as exc:  # a partition's answers without the retriever rows that cut them: refused
        assert "holds answers but no document rows of node 'Retriever'" in str(exc)
        options = {k: v for k, v in options.items() if k != "simulated_top_k_retriever"}
    assert close(cluster.calculate_metrics(**options), memory.calculate_metrics(**options))
    for node in memory:
        assert_frames_close(cluster.query_metrics(node, compute=True, **options), memory.query_metrics(node, **options))
        assert ids(cluster.wrong_examples(node, n=n, document_metric_threshold=1.0, answer_metric_threshold=1.0,
                                          **options)) == \
            ids(memory.wrong_examples(node, n=n, document_metric_threshold=1.0, answer_metric_threshold=1.0, **options))
    assert_frames_close(cluster.sliced_metrics("no_answer", **options), memory.sliced_metrics("no_answer", **options))
    assert_frames_close(cluster.metrics_at_k((1, 2), **{k: v for k, v in options.items() if "top_k" not in k}),
                        memory.metrics_at_k((1, 2), **{k: v for k, v in options.items() if "top_k" not in k}))


def _kill_first_task(marker: str) -> None:
    """On a worker: partition 1's first read kills the worker process (read_partition, which each task calls, wrapped)."""
    def reading(path, number, *args, **kwargs):
        if number == 1 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the worker process dies mid-computation; its nanny starts a fresh one
        return read_partition(path, number, *args, **kwargs)

    dask_result.read_partition = reading


def test_a_worker_killed_mid_computation_does_not_change_the_answer(tmp_path, client):
    memory, cluster = both(make_result(200, seed=5), tmp_path, 4, client)
    marker = str(tmp_path / "killed")
    client.run(_kill_first_task, marker)
    try:
        assert close(cluster.calculate_metrics(), memory.calculate_metrics())
    finally:
        client.run(lambda: setattr(dask_result, "read_partition", read_partition))
    assert os.path.exists(marker)  # a worker really died, and Dask ran its task again


def test_a_folder_saved_again_is_refused_not_mixed(tmp_path, client):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    cluster = evalframe.dask.load(folder, client=client)
    make_result(20).save(folder, format="parquet", partitions=3, progress=False)
    with pytest.raises(LoadError, match=r"was saved again while it was being read .* load it again"):
        cluster.calculate_metrics()
    assert close(evalframe.dask.load(folder, client=client).calculate_metrics(), make_result(20).calculate_metrics())


def _saver(folder: str, rounds: int) -> None:
    first, second = hand_result(), make_result(30, seed=1)
    for i in range(rounds):
        (first if i % 2 else second).save(folder, format="parquet", partitions=3 + i % 2, progress=False)


def test_a_reader_on_the_cluster_sees_one_save_whole_or_is_told_to_load_again(tmp_path, client):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    expected = [hand_result().calculate_metrics(), make_result(30, seed=1).calculate_metrics()]
    saver = multiprocessing.get_context("fork").Process(target=_saver, args=(str(folder), 8))
    saver.start()
    seen, refused = 0, 0
    try:
        while saver.is_alive() or seen == 0:
            try:
                metrics = evalframe.dask.load(folder, client=client).calculate_metrics()
            except LoadError as exc:
                assert "saved again while it was being read" in str(exc) or "kept changing" in str(exc), exc
                refused += 1
                continue
            assert any(close(metrics, e) for e in expected), metrics
            seen += 1
    finally:
        saver.join(120)
    assert saver.exitcode == 0 and seen >= 1


def test_a_partition_is_opened_as_pending_nodes_with_the_metrics_of_its_frames(tmp_path):
    # the reference: the same partition read as DataFrames indexed by their saved row numbers (read_partition's
    # default: the path open_partition took before it held its nodes pending), evaluated in memory
    folder = hand_result().save(tmp_path / "parts", format="parquet", partitions=3, progress=False)
    generation = json.loads((folder / "evalframe.json").read_text())["partitioned"]["generation"]
    for number in range(3):
        result, keys = dask_result.open_partition(str(folder), number, generation)
        built = read_partition(folder, number, generation)
        for node, frame in built.frames.items():
            frame.index = pd.Index(built.keys[node])
        reference = EvaluationResult(built.frames, matching=built.matching, codings=Codings.of_lists(built.codings))
        assert list(result.node_results) == ["Retriever", "Reader"]
        for options in OPTIONS:
            pd.testing.assert_frame_equal(result.metrics_frame(**options), reference.metrics_frame(**options),
                                          check_exact=True)
            for node in ("Retriever", "Reader"):
                pd.testing.assert_frame_equal(result.query_metrics(node, **options),
                                              reference.query_metrics(node, **options), check_exact=True)
        assert not any(result.node_results.is_built(node) for node in result.node_results)  # analysed as columns
        for node in ("Retriever", "Reader"):
            assert (keys[node] == built.keys[node]).all()
            pd.testing.assert_frame_equal(result[node], reference[node], check_exact=True)  # index: saved row numbers
            assert result.node_results.is_built(node)
    # with a retriever to cut the answers by (a top-k over the whole folder): its check reads the nodes' columns only
    for number in range(3):
        result, _ = dask_result.open_partition(str(folder), number, generation, ["Reader"],
                                               ("Retriever", "integrated", "integrated"))
        found = dask_result.partition_retriever(str(folder), number, result, ("Retriever", "integrated", "integrated"))
        answers = (read_partition(folder, number, generation).frames["Reader"]["type"] == "answer").any()
        assert found == dask_result.Retriever("Retriever" if answers else None)
        assert not any(result.node_results.is_built(node) for node in result.node_results)


def test_errors_name_the_folder_the_node_and_the_saved_row(tmp_path, client):
    plain = hand_result().save(tmp_path / "plain", format="parquet", progress=False)
    with pytest.raises(LoadError, match=r"is not a partitioned results folder.*partitions=N.*EvaluationResult.load"):
        evalframe.dask.load(plain)
    folder = hand_result().save(tmp_path / "parts", format="parquet", partitions=2, progress=False)
    cluster = evalframe.dask.load(folder, client=client)
    with pytest.raises(InvalidParameterError, match="Nowhere"):
        cluster.query_metrics("Nowhere")
    with pytest.raises(InvalidParameterError, match=r"client must be a distributed.Client or a scheduler address"):
        evalframe.dask.load(folder, client=42)
    with pytest.raises(InvalidParameterError, match=r"document_scope must be one of .*got 'everything'"):
        cluster.calculate_metrics(document_scope="everything")
    # a run with a document twice in one query: the error names the row of the saved frame, as in memory
    frame = hand_result()["Retriever"].drop_duplicates(["multilabel_id", "document_id"])
    twice = pd.concat([frame, frame.iloc[[len(frame) - 1]]], ignore_index=True)  # one repeat: one error to name
    memory = EvaluationResult({"Retriever": twice})
    with pytest.raises(SchemaError) as in_memory:
        memory.trec_metrics("AP")
    folder = memory.save(tmp_path / "twice", format="parquet", partitions=3, progress=False)
    with pytest.raises(SchemaError) as on_cluster:
        evalframe.dask.load(folder, client=client).trec_metrics("AP")
    assert str(on_cluster.value) == str(in_memory.value)
    assert f"(row {len(twice) - 1})" in str(on_cluster.value)  # the repeat: the saved frame's last row


def test_the_layout_is_recorded_and_the_repr_names_it(tmp_path, client):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=5, progress=False)
    cluster = evalframe.dask.load(folder, client=client)
    layout = json.loads((folder / "evalframe.json").read_text())["partitioned"]
    assert cluster.partitions == 5 and cluster.generation == layout["generation"]
    assert repr(cluster) == f"DaskEvaluationResult(nodes=['Retriever', 'Reader'], partitions=5, rows={cluster.rows})"
    assert sum(cluster.map_partitions(lambda result, keys: len(result["Reader"]))) == len(hand_result()["Reader"])
    assert np.array_equal(np.sort(np.concatenate(cluster.map_partitions(lambda result, keys: keys["Reader"]))),
                          np.arange(len(hand_result()["Reader"])))


# 50 queries and 200 rounds here, 150 queries and 500 rounds under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize(("queries", "rounds"), [(50, 200), pytest.param(150, 500, marks=pytest.mark.stress)])
def test_compare_equals_the_in_memory_compare(tmp_path, client, queries, rounds):
    # two runs that differ on some queries: recall takes few distinct differences (counts suffice), ndcg and f1 many
    # (the differences come back in A's order); three runs give p_holm too
    base = make_result(queries, seed=7)
    other = make_result(queries, seed=7)
    retriever = other["Retriever"]
    retriever["rank"] = retriever.groupby("multilabel_id", sort=False)["rank"].transform(lambda r: r[::-1].to_numpy())
    reader = other["Reader"]
    reader["f1"] = reader["f1"].to_numpy()[::-1]
    third = make_result(queries, seed=7)
    third["Reader"]["exact_match"] = 1.0 - third["Reader"]["exact_match"]
    memory, cluster = [], []
    for i, result in enumerate((base, other, third)):
        folder = result.save(tmp_path / f"run{i}", format="parquet", partitions=5, progress=False)
        memory.append(EvaluationResult.load(folder, progress=False))
        cluster.append(evalframe.dask.load(folder, client=client))
    for node, metrics in (("Retriever", ["recall_single_hit", "mrr", "ndcg", "nDCG@5"]), ("Reader", None)):
        expected = evalframe.compare(*memory[:2], node=node, metrics=metrics, rounds=rounds, duplicates="first")
        got = evalframe.dask.compare(*cluster[:2], node=node, metrics=metrics, rounds=rounds, duplicates="first")
        assert_frames_close(got, expected)
    expected = evalframe.compare(*memory, node="Reader", rounds=300, simulated_top_k_retriever=3)
    got = evalframe.dask.compare(*cluster, node="Reader", rounds=300, simulated_top_k_retriever=3)
    assert_frames_close(got, expected)
    assert (got["wins"] + got["ties"] + got["losses"] > 0).all()


def test_compare_needs_the_same_partition_count(tmp_path, client):
    runs = [evalframe.dask.load(hand_result().save(tmp_path / f"r{n}", format="parquet", partitions=n, progress=False),
                                client=client) for n in (2, 3)]
    with pytest.raises(InvalidParameterError, match=r"run 'B' has 3 partitions and run 'A' 2; .*partitions=2"):
        evalframe.dask.compare(*runs, node="Reader")


def test_partitions_holding_one_row_type_of_a_node_give_the_whole_tables_columns(tmp_path, client):
    # node "Mixed" has answer rows for q0..q4 and document rows for q5..q9: with 8 partitions some hold only one type,
    # and the per-query table of the whole node has both sets of columns (NaN where a query lacks the type)
    answers = [answer_row(f"q{i}", 1, "a", i % 2, 0.5 + i % 2 / 2, ["d1"]) for i in range(5)]
    documents = [doc_row(f"q{i}", 1, "d1", ["d1"], [1], [0], [0]) for i in range(5, 10)]
    frame = pd.DataFrame(answers + documents)
    frame["node"] = "Mixed"
    memory, cluster = both(EvaluationResult({"Mixed": frame}), tmp_path, 8, client)
    expected = memory.query_metrics("Mixed")
    assert_frames_close(cluster.query_metrics("Mixed", compute=True), expected)
    pd.testing.assert_frame_equal(cluster.query_metrics("Mixed").compute().sort_index(), expected.sort_index(),
                                  check_index_type=False)
    # a top-k that keeps no row: the whole table is empty, with the columns of the types the node has
    empty = memory.query_metrics("Mixed", simulated_top_k_retriever=1, simulated_top_k_reader=1, eval_mode="isolated")
    assert_frames_close(cluster.query_metrics("Mixed", compute=True, simulated_top_k_retriever=1, simulated_top_k_reader=1,
                                              eval_mode="isolated"), empty)


QUERY_IDS = ["q1", "q2", "q3", "q4", "q5", "q6"]  # hand_result's


def test_review_findings_stay_fixed(tmp_path, client):
    """The cases an independent review broke: each is now equal to memory (or refused before anything is written)."""
    with dask.config.set(scheduler="synchronous"):
        # 1. a query of run A whose partition holds no rows of run B is counted in only_a, not dropped
        a = hand_result()
        b = EvaluationResult({n: f[f["multilabel_id"] != "q6"].reset_index(drop=True) for n, f in a.node_results.items()})
        from evalframe.io.partitioned import partition_of_ids

        where = dict(zip(QUERY_IDS, partition_of_ids(np.array(QUERY_IDS, dtype=object), 6)))
        assert [q for q in QUERY_IDS if where[q] == where["q6"]] == ["q6"]  # q6's partition holds nothing of run B
        assert len(set(where.values())) < 6  # and some partitions hold no rows at all
        (ma, ca), (mb, cb) = both(a, tmp_path / "a", 6, None), both(b, tmp_path / "b", 6, None)
        columns = ["mean_a", "mean_b", "queries", "only_a", "only_b"]
        with pytest.warns(UserWarning, match="1 query is scored only in 'A' and 0 only in 'B'"):
            got = evalframe.dask.compare(ca, cb, node="Retriever", metrics="mrr")[columns]
        with pytest.warns(UserWarning):
            assert_frames_close(got, evalframe.compare(ma, mb, node="Retriever", metrics="mrr")[columns])
        # 2. trec measures when most partitions hold no document rows
        assert_frames_close(ca.query_metrics("Retriever", measures=["AP"], duplicates="first", compute=True),
                            ma.query_metrics("Retriever", measures=["AP"], duplicates="first"))
        # 3. a node with answer rows is ranked by its answer metric, even where a partition has document rows only
        answers = [answer_row("q0", 1, "a", 1.0, 1.0, ["d1"])]
        documents = [doc_row("q1", 1, "d9", ["d1"], [0], [0], [0])]
        mixed = EvaluationResult({"Mixed": pd.DataFrame(answers + documents).assign(node="Mixed")})
        mm, cm = both(mixed, tmp_path / "mixed", 8, None)
        assert ids(cm.wrong_examples("Mixed")) == ids(mm.wrong_examples("Mixed")) == []
    # 5. a node name that is not a file name is refused before anything is written
    from evalframe.io.partitioned import write_part

    victim = tmp_path / "victim.part-00000-of-00001.parquet"
    victim.write_bytes(b"a user's file")
    frame = hand_result()["Reader"].assign(__evalframe_row__=range(len(hand_result()["Reader"])))
    with pytest.raises(Exception, match="cannot be a file name"):
        write_part(tmp_path / "staging" / "deeper", "../../victim", 0, 1, frame)
    assert victim.read_bytes() == b"a user's file"
    # 9. compute() refuses a folder saved again since it was loaded
    folder = hand_result().save(tmp_path / "again", format="parquet", partitions=2, progress=False)
    opened = evalframe.dask.load(folder, client=client)
    make_result(10).save(folder, format="parquet", partitions=2, progress=False)
    with pytest.raises(LoadError, match="saved again since it was loaded"):
        opened.compute()


def test_a_filters_field_is_refused_only_when_no_partition_has_it(tmp_path):
    # only q1 has filters.source.name: partitions without q1 must not refuse it; a typo is refused as in memory
    frames = {"Retriever": hand_result()["Retriever"].copy()}
    frames["Retriever"]["filters"] = frames["Retriever"]["multilabel_id"].map(
        lambda q: '{"source": {"name": "wiki"}}' if q == "q1" else None)
    memory = EvaluationResult(frames)
    folder = memory.save(tmp_path / "p", format="parquet", partitions=3, progress=False)
    cluster = evalframe.dask.load(folder)  # Dask's scheduler in this process
    assert_frames_close(cluster.sliced_metrics("filters.source.name"), memory.sliced_metrics("filters.source.name"))
    on_dask = cluster.query_metrics("Retriever", by="filters.source.name", compute=True)
    in_memory = memory.query_metrics("Retriever", by="filters.source.name")
    assert_frames_close(on_dask.iloc[:, 1:], in_memory.iloc[:, 1:])
    # the labels: 'wiki' for q1, missing for the others (None or NaN on Dask, NaN in memory's str column)
    assert on_dask.iloc[:, 0].fillna("-").tolist() == in_memory.iloc[:, 0].fillna("-").tolist() == ["wiki"] + ["-"] * 5
    # the refusal of memory, word for word: the fields the queries have and the close one (was: neither, on Dask)
    refusal = (r"^by 'filters\.source\.nmae': no query of node 'Retriever' has 'filters\.source\.nmae' in its filters, so "
               r"every query would be in one slice; their fields are \['filters\.source\.name'\]\. Did you mean "
               r"'filters\.source\.name'\?")
    for call in (memory.sliced_metrics, cluster.sliced_metrics):
        with pytest.raises(InvalidParameterError, match=refusal):
            call("filters.source.nmae")
    for call in (memory.query_metrics, functools.partial(cluster.query_metrics, compute=True)):
        with pytest.raises(InvalidParameterError, match=refusal):
            call("Retriever", by="filters.source.nmae")
    # an in-process Dask computation leaves the in-memory check on (the partitions' leniency is scoped to them)
    with pytest.raises(InvalidParameterError, match=r"their fields are \['filters\.source\.name'\]"):
        memory.sliced_metrics("filters.source.nmae")


def test_the_fields_a_refusal_lists_do_not_depend_on_the_partitions(tmp_path):
    # was: memory listed the fields in order of first appearance, Dask in partition order
    frames = {"Retriever": hand_result()["Retriever"].copy()}
    frames["Retriever"]["filters"] = frames["Retriever"]["multilabel_id"].map(
        lambda q: json.dumps({"year": 1} if q == "q1" else {"lang": "en"}))
    memory = EvaluationResult(frames)
    cluster = evalframe.dask.load(memory.save(tmp_path / "p", format="parquet", partitions=3, progress=False))
    for call in (memory.sliced_metrics, cluster.sliced_metrics):
        with pytest.raises(InvalidParameterError, match=r"their fields are \['filters\.lang', 'filters\.year'\]\. Did you "
                                                        r"mean 'filters\.year'\?$"):
            call("filters.yaer")


def test_a_filters_field_every_query_holds_as_null_is_one_slice_on_dask_as_in_memory(tmp_path):
    # was: memory gave one slice of all 6 queries, Dask refused it ("no query ... has 'filters.category'")
    frames = {"Retriever": hand_result()["Retriever"].copy()}
    frames["Retriever"]["filters"] = '{"category": null, "lang": "en"}'
    memory = EvaluationResult(frames)
    cluster = evalframe.dask.load(memory.save(tmp_path / "p", format="parquet", partitions=3, progress=False))
    expected = memory.sliced_metrics("filters.category")
    assert expected["queries"].tolist() == [6]
    assert_frames_close(cluster.sliced_metrics("filters.category"), expected)
    on_dask = cluster.query_metrics("Retriever", by="filters.category", compute=True)
    assert len(on_dask) == 6 and on_dask["filters.category"].isna().all()
