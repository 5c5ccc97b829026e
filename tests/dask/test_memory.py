"""evalframe.dask's memory per task: a task's partition is freed when the task ends (by reference counting, not at
the cyclic garbage collector's next run), so a worker holds one partition at a time however many tasks it runs.

Two reference cycles once kept every partition a worker had evaluated until its collector ran (the store and the
NodeFrames holding each other; a Parquet node's save maker holding its LoadedColumns): the 10M benchmark's peak
worker RSS went from 750 to 1,209 MB (benchmarks/bench_dask.py, docs/performance.md#evaluation-on-dask).
"""

from __future__ import annotations

import logging
import weakref
from pathlib import Path
from typing import Any

import pytest

import dask
import evalframe.dask
import evalframe.dask.result as dask_result
from benchmarks.synthetic import make_result
from tests.fixtures import without_cyclic_gc

distributed = pytest.importorskip("distributed")


def test_a_task_frees_its_partition_when_it_ends(tmp_path: Path) -> None:
    folder = make_result(60, seed=2).save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    alive: list[weakref.ref[Any]] = []

    def evaluate(result: Any, keys: Any) -> dict[str, dict[str, float]]:
        frames = result.node_results
        sources = [frames.pending(node).source for node in frames if not frames.is_built(node)]
        # a part file's columns (io/partitioned.py) and the Parquet file's LoadedColumns they are made by
        alive.extend(weakref.ref(held) for held in [result, frames, *sources, *(part.source for part in sources)])
        metrics = result.calculate_metrics()
        result["Reader"]  # a node built as well
        return metrics

    with without_cyclic_gc():  # in this process, on Dask's default scheduler
        metrics = evalframe.dask.load(folder).map_partitions(evaluate)
        assert len(metrics) == 3 and all(set(part) == {"Retriever", "Reader"} for part in metrics)
        assert len(alive) == 3 * 6  # each partition: its result, its NodeFrames, its two pending nodes' sources (x2)
        assert [ref() is None for ref in alive] == [True] * len(alive)


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/self/status")


@pytest.mark.stress  # a fresh cluster and a 400k-row folder: 1-2 minutes
def test_a_worker_running_many_tasks_peaks_at_about_one_partition(tmp_path: Path) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("VmHWM is read from /proc (Linux)")
    partitions = 6
    folder = make_result(20_000).save(tmp_path / "out", format="parquet", partitions=partitions, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, memory_limit="3GB",
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        result = evalframe.dask.load(folder, client=client)
        used, retriever = result.retriever_of({})

        def task(number: int) -> Any:  # calculate_metrics' task on partition ``number``
            return dask.delayed(dask_result._on_partition, pure=False)(
                str(folder), number, result.generation, None, dask_result._metric_totals,
                (result.nodes, [used], False, (), False), retriever)

        start = next(iter(client.run(_peak_mb).values()))
        client.gather(client.compute(task(0)))
        one = next(iter(client.run(_peak_mb).values()))
        for number in range(1, partitions):  # one after the other, as a worker with one thread runs them
            client.gather(client.compute(task(number)))
        every = next(iter(client.run(_peak_mb).values()))
    # measured 2026-12-02: start-up 148 MB, +104 MB for the first task, then +10 MB over the five others; with the
    # cycles, +124 MB over the five others (each task's partition kept until the worker's cyclic GC ran)
    assert every - one < 0.5 * (one - start), (start, one, every)
