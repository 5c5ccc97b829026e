"""benchmarks/bench_dask.py: its generator writes a valid partitioned folder on a cluster, and the script runs end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("distributed")

from benchmarks.synthetic import make_frames, make_result, order_keys  # noqa: E402
from evalframe import EvaluationResult  # noqa: E402
from evalframe.io import partitioned  # noqa: E402
from tests.fixtures import load_benchmark  # noqa: E402


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench_dask.py")


@pytest.fixture(scope="module")
def client(bench, dask_client):
    """The session's cluster (tests/conftest.py), its workers importing from benchmarks/ as bench_dask's tasks do (the
    script puts it on its own sys.path, before its cluster starts)."""
    folder = str(Path(bench.__file__).resolve().parent)
    # each worker's own sys.path (sys.path.insert itself would be pickled with a copy of this process's list)
    dask_client.run(lambda: __import__("sys").path.insert(0, folder))
    yield dask_client
    dask_client.run(lambda: folder in __import__("sys").path and __import__("sys").path.remove(folder))


def test_make_frames_of_all_queries_is_make_result():
    whole = make_result(40, seed=3)
    frames = make_frames(np.random.default_rng(3), np.arange(40), 40)
    for node in ("Retriever", "Reader"):
        pd.testing.assert_frame_equal(frames[node], whole[node])
        assert order_keys(np.arange(40), 40)[node].tolist() == list(range(len(whole[node])))


def test_order_keys_place_a_subset_of_queries_where_the_whole_has_them():
    whole = make_result(30)
    chosen = np.array([2, 7, 29])
    for node, keys in order_keys(chosen, 30).items():
        ids = whole[node]["multilabel_id"].to_numpy()[keys]
        assert ids.tolist() == make_frames(np.random.default_rng(1), chosen, 30)[node]["multilabel_id"].tolist()


@pytest.mark.benchmark
@pytest.mark.parametrize("n_queries, partitions", [(300, 4), (3, 8)])  # (3, 8): empty partitions too
def test_the_generated_folder_loads_whole_as_its_partitions_made_in_one_process(tmp_path, bench, client, n_queries, partitions):
    folder = tmp_path / "out"
    generated = bench.generate(folder, n_queries, partitions, client)
    assert generated.task_cpu > 0
    loaded = EvaluationResult.load(folder)  # also checks no query lies in two partitions
    expected = bench.in_memory_frames(n_queries, partitions)
    assert list(loaded) == ["Retriever", "Reader"] and loaded.matching == {"context_matching_threshold": 65.0}
    for node, frame in expected.items():
        pd.testing.assert_frame_equal(loaded[node], frame)
        assert len(frame) == n_queries * 10  # 10 documents; 5 integrated + 5 isolated answers
    assert EvaluationResult(expected, matching=loaded.matching).calculate_metrics() == loaded.calculate_metrics()
    for number in range(partitions):  # every query in the partition its id hashes to, in every node
        part = partitioned.read_partition(folder, number)
        for frame in part.frames.values():
            assert (partitioned.partition_of_ids(frame["multilabel_id"], partitions) == number).all()


def test_row_counts_parse(bench):
    label, parse_rows = bench.label, bench.parse_rows
    assert [parse_rows(text) for text in ("10M", "500k", "2000", "1.5M")] == [10_000_000, 500_000, 2000, 1_500_000]
    assert [label(rows) for rows in (10_000_000, 500_000, 2000, 1234)] == ["10M", "500k", "2k", "1234"]


@pytest.mark.stress  # the benchmark on a cluster, end to end: .ci/run runs it with -m stress
@pytest.mark.benchmark
def test_the_benchmark_runs_end_to_end_and_agrees_with_the_in_memory_path(tmp_path, bench, capsys):
    import evalframe.dask

    if not hasattr(evalframe.dask, "load"):
        pytest.skip("evalframe.dask.load is not merged yet")
    assert bench.main(["--rows", "20k", "--rows-per-partition", "5k", "--work", str(tmp_path)]) == 0  # 1: a difference
    out = capsys.readouterr().out
    assert "20,000 rows (1,000 queries x 20), 4 partitions" in out
    assert "calculate_metrics(): largest difference" in out and "(equal to 1e-12)" in out
    assert "| rows | partitions | generate s |" in out and "| 20k | 4 |" in out
    assert not (tmp_path / "rows-20k").exists()  # deleted without --keep


def test_the_table_gives_the_time_growth_from_the_first_size_to_the_last(bench, capsys):
    sizes = []
    for rows, seconds in ((10_000_000, 10.0), (100_000_000, 95.0)):
        m = bench.Measured(rows, rows // 20, rows // 500_000)
        m.seconds, m.worker_cpu, m.workers = seconds, 2 * seconds, {"tcp://a": (1, 900.0, 2.0), "tcp://b": (2, 800.0, 3.0)}
        sizes.append(m)
    bench.print_table(sizes)
    out = capsys.readouterr().out
    assert "| 100M | 200 | reused | - | 95.0 | 190.0 | 900 / 800 | - |" in out
    assert "growth 10M -> 100M rows (10x the rows): calculate_metrics wall 9.5x, worker CPU 9.5x" in out
