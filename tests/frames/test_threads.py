"""One result read by several threads at once (issue 35, item 10, and the thread sweep).

A node held as columns (a load of a folder evalframe wrote, ``from_trec``) is built on first read. Two threads reading
it once both built it: the second raised a bare ``KeyError(node)`` (43 of 240 calls of 8 threads on fresh loads), and
the callers got two frame objects, so an edit of the one not kept was lost. Now a node is built once, under the
result's lock, and every caller gets the frame kept; the analyses (which share the prepared arrays) run one at a time.

The sweep: 8 threads on one freshly made result (CSV, Parquet, a partitioned folder, ``from_trec``, ``from_runs``)
call the analyses and ``result[node]`` at once, each in its own order: no exception, one frame object per node, and
every value equal to the one a fresh result gives when called alone (two repetitions here, 30 in the stress suite).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.frames.pending import ColumnView, NodeFrames, PendingFrame

from ..fixtures import hand_result, ten_query_result

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

THREADS = 8
SOURCES = ["csv", "parquet", "partitioned", "from_trec", "from_runs"]
#: The TREC pair of from_trec (q3 is judged only: one placeholder row).
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.5, "d1": 0.5}, "q4": {"d9": 1.0}}
QRELS = {"q1": {"d2": 1, "d3": 2}, "q2": {"d4": 1, "d7": 0}, "q3": {"d5": 1}, "q4": {"d8": 1}}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("threads")
    return {"csv": hand_result().save(base / "csv", progress=False),
            "parquet": hand_result().save(base / "parquet", format="parquet", progress=False),
            "partitioned": hand_result().save(base / "parts", format="parquet", partitions=2, progress=False)}


def fresh(source: str, folders: dict[str, Path]) -> EvaluationResult:
    if source == "from_trec":
        return EvaluationResult.from_trec(RUN, QRELS, progress=False)
    if source == "from_runs":
        return ten_query_result()
    return EvaluationResult.load(folders[source], progress=False)


def calls(nodes: list[str]) -> list[tuple[str, Callable[[EvaluationResult], Any]]]:
    """What the threads call: each node's frame, every frame, and the analyses (all of them read the store)."""
    named: list[tuple[str, Callable[[EvaluationResult], Any]]] = []
    for node in nodes:
        named.append((f"frame {node}", lambda r, node=node: r[node]))
        named.append((f"query_metrics {node}", lambda r, node=node: r.query_metrics(node)))
        named.append((f"wrong_examples {node}", lambda r, node=node: r.wrong_examples(node, n=2)))
    named += [
        ("values", lambda r: list(r.node_results.values())),
        ("calculate_metrics", lambda r: r.calculate_metrics()),
        ("calculate_metrics top-k 2", lambda r: r.calculate_metrics(simulated_top_k_retriever=2)),
        ("calculate_metrics document_id", lambda r: r.calculate_metrics(document_scope="document_id")),
        ("metrics_at_k", lambda r: r.metrics_at_k([1, 3])),
        ("trec_metrics", lambda r: r.trec_metrics(["AP", "nDCG@10", "P@5"], node="Retriever", duplicates="first")),
        ("trec_query_metrics", lambda r: r.trec_query_metrics(["AP", "RR"], node="Retriever", duplicates="first")),
        ("has_documents", lambda r: [r.has_documents(node) for node in nodes]),
    ]
    return named


def same(ours: Any, theirs: Any, where: str) -> None:
    """Equal values: frames with assert_frame_equal, floats exactly (NaN equal to NaN), containers item by item."""
    if isinstance(theirs, pd.DataFrame):
        pd.testing.assert_frame_equal(ours, theirs, check_exact=True, obj=where)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), where
        for key in theirs:
            same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, (float, np.floating)) and math.isnan(theirs):
        assert isinstance(ours, (float, np.floating)) and math.isnan(ours), where
    else:
        assert ours == theirs, where


def _work(result: EvaluationResult, order: list[tuple[str, Callable[[EvaluationResult], Any]]], count: int | None,
          start: threading.Barrier, outcome: list[tuple[str, Any]]) -> None:
    start.wait()
    for name, call in order[:count]:
        try:
            outcome.append((name, call(result)))
        except Exception as exc:  # noqa: BLE001  the sweep reports every failure, with its call
            outcome.append((name, exc))


def sweep(source: str, folders: dict[str, Path], repetitions: int, per_thread: int | None = None) -> None:
    reference = fresh(source, folders)
    nodes = list(reference)
    named = calls(nodes)
    expected = {name: call(reference) for name, call in named}  # one thread, in order, on a result of its own
    for repetition in range(repetitions):
        result = fresh(source, folders)
        start = threading.Barrier(THREADS)
        outcomes: list[list[tuple[str, Any]]] = [[] for _ in range(THREADS)]
        threads = [threading.Thread(target=_work, args=(result, named[number % len(named):] + named[:number % len(named)],
                                                         per_thread, start, outcomes[number]))
                   for number in range(THREADS)]  # each thread its own order of the calls
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        failures = [(name, value) for outcome in outcomes for name, value in outcome if isinstance(value, Exception)]
        assert not failures, f"{source}, repetition {repetition}: {failures[:3]}"
        kept = {node: result[node] for node in nodes}
        for outcome in outcomes:
            for name, value in outcome:
                if name.startswith("frame "):
                    assert value is kept[name.removeprefix("frame ")], f"{source}: two frames of {name}"
                elif name == "values":
                    assert all(a is kept[node] for a, node in zip(value, nodes)), f"{source}: two frames in values()"
                same(value, expected[name], f"{source}, repetition {repetition}, {name}")


@pytest.mark.parametrize("source", SOURCES)
def test_eight_threads_on_a_fresh_result_get_one_frame_per_node_and_the_values_of_one_thread(source, folders):
    sweep(source, folders, repetitions=2, per_thread=4)


@pytest.mark.stress
@pytest.mark.parametrize("source", SOURCES)
def test_eight_threads_on_thirty_fresh_results(source, folders):
    sweep(source, folders, repetitions=30)


# ------------------------------------------------------------------------------ NodeFrames alone
class Slow:
    """A column source that yields the GIL while it makes a column (a real source reads Arrow, decodes text ...),
    counting the columns it makes."""

    names = ("multilabel_id", "rank")

    def __init__(self) -> None:
        self.made: list[str] = []

    def column(self, name: str) -> pd.Series:
        self.made.append(name)
        threading.Event().wait(0.002)
        return pd.Series(["q1", "q2"] if name == "multilabel_id" else np.array([1, 2]), name=name)


def test_a_node_read_by_eight_threads_at_once_is_built_once_for_all():
    frames, source, built = NodeFrames(), Slow(), []
    frames["R"] = PendingFrame(2, source)
    frames.on_build(lambda node, view, frame: built.append(node))
    start = threading.Barrier(THREADS)
    got: list[Any] = []

    def read() -> None:
        start.wait()
        try:
            got.append(frames["R"])
        except Exception as exc:  # noqa: BLE001  was KeyError('R') for the threads that lost the race
            got.append(exc)

    threads = [threading.Thread(target=read) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [type(value) for value in got] == [pd.DataFrame] * THREADS
    assert all(value is got[0] for value in got) and got[0] is frames["R"]
    assert built == ["R"] and sorted(source.made) == ["multilabel_id", "rank"]  # one build, each column made once


def test_a_listener_that_reads_another_node_while_threads_build_both_does_not_deadlock():
    frames = NodeFrames()
    frames["A"], frames["B"] = PendingFrame(2, Slow()), PendingFrame(2, Slow())
    seen: list[tuple[str, int]] = []

    def listener(node: str, view: ColumnView, frame: pd.DataFrame) -> None:  # reads the other node (builds it)
        other = frames["B" if node == "A" else "A"]
        seen.append((node, len(other)))

    frames.on_build(listener)
    start = threading.Barrier(THREADS)
    got: list[Any] = []

    def read(node: str) -> None:
        start.wait()
        got.append((node, frames[node]))

    threads = [threading.Thread(target=read, args=("AB"[i % 2],), daemon=True) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert not any(thread.is_alive() for thread in threads), "deadlock"
    assert sorted(node for node, _ in seen) == ["A", "B"]  # each built once, its listener run once
    assert all(frame is frames[node] for node, frame in got) and len(got) == THREADS


def test_a_listener_that_reads_the_node_being_built_gets_that_frame():
    frames = NodeFrames()
    frames["A"] = PendingFrame(2, Slow())
    seen: list[Any] = []
    frames.on_build(lambda node, view, frame: seen.append(frames[node] is frame))
    frame = frames["A"]
    assert seen == [True] and frames["A"] is frame
