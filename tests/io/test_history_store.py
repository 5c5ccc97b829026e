"""The store of runs (evalframe/io/history.py): one immutable object per run, atomic writes, footers-only listing,
stale temporary files, references, concurrent writers and killed writers."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from evalframe.errors import InvalidParameterError, LoadError, SaveError
from evalframe.io import history as store_module
from evalframe.io.history import (META_KEY, list_runs, new_run_id, read_run, resolve, write_run)

ROOT = Path(__file__).resolve().parents[2]


def _table(value: float, queries: int = 3) -> pd.DataFrame:
    return pd.DataFrame({"node": ["Retriever"] * queries, "query": [f"q{i}" for i in range(queries)],
                         "text": [f"question {i}" if i else None for i in range(queries)],
                         "mrr": [value + i / 8 for i in range(queries)], "ndcg": [np.nan] + [0.1] * (queries - 1)})


def _meta(name: str = "run", **more: object) -> dict:
    return {"format": 1, "name": name, "tags": [], **more}


def _memory_store() -> str:
    return f"memory://evalframe-tests/history-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------------------------------ the object
def test_one_parquet_object_per_run_with_the_metadata_in_its_footer(tmp_path: Path) -> None:
    run_id = write_run(tmp_path / "store", _table(0.5), _meta("base", params={"k": 5}))
    assert re.fullmatch(r"\d{8}T\d{12}Z-[0-9a-f]{8}", run_id)
    assert sorted(p.name for p in (tmp_path / "store" / "runs").iterdir()) == [f"{run_id}.parquet"]
    schema = pq.read_schema(tmp_path / "store" / "runs" / f"{run_id}.parquet")
    assert schema.names == ["node", "query", "text", "mrr", "ndcg"]
    assert [str(schema.field(n).type) for n in schema.names] == ["string", "string", "string", "double", "double"]
    assert json.loads(schema.metadata[META_KEY]) == {"format": 1, "name": "base", "tags": [], "params": {"k": 5},
                                                     "id": run_id}


@pytest.mark.parametrize("where", ["local", "memory"])
def test_read_run_gives_back_every_value_exactly(tmp_path: Path, where: str) -> None:
    store = tmp_path / "s" if where == "local" else _memory_store()
    values = np.array([1 / 3, 0.1 + 0.2, 5e-324])
    table = _table(0.0).assign(mrr=values)
    run_id = write_run(store, table, _meta())
    meta, back = read_run(store, run_id)
    assert meta["id"] == run_id
    assert back["mrr"].to_numpy().tobytes() == values.tobytes()  # bit for bit
    assert back["text"].tolist() == [None, "question 1", "question 2"]
    assert np.isnan(back["ndcg"].iloc[0])


def test_ids_sort_by_time() -> None:
    assert new_run_id(1.0) < new_run_id(1.000001) < new_run_id(2.0)
    assert new_run_id(1767225600.25).startswith("20260101T000000250000Z-")


def test_read_run_errors(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match=r"holds no run 20260101T000000000000Z-0123abcd"):
        read_run(tmp_path, "20260101T000000000000Z-0123abcd")
    with pytest.raises(InvalidParameterError, match="run_id must be a run id"):
        read_run(tmp_path, "../etc/passwd")
    with pytest.raises(InvalidParameterError, match=r"store must name a folder or a URL.*EVALFRAME_STORE"):
        list_runs("")


# ------------------------------------------------------------------------------------------ listing
def test_listing_reads_runs_only_by_time_and_skips_what_is_no_run(tmp_path: Path) -> None:
    assert list_runs(tmp_path / "nothing-yet") == []
    ids = [write_run(tmp_path, _table(i), _meta(f"r{i}")) for i in range(3)]
    runs = tmp_path / "runs"
    (runs / ".tmp-20260101T000000000000Z-0123abcd-aaaa").write_bytes(b"PAR1 half")  # a write under way
    (runs / "notes.parquet").write_bytes(b"x")  # not a run's name
    (runs / "20200101T000000000000Z-deadbeef.parquet").write_bytes(b"PAR1 damaged")  # a run's name, not a run
    with pytest.warns(UserWarning, match=r"20200101T000000000000Z-deadbeef.parquet is not a run of an evalframe store"):
        metas = list_runs(tmp_path)
    assert [m["id"] for m in metas] == ids
    assert [m["name"] for m in metas] == ["r0", "r1", "r2"]


def test_listing_reads_only_the_footers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_run(tmp_path, _table(0.5, queries=2000), _meta())
    monkeypatch.setattr(pq, "read_table", lambda *a, **k: pytest.fail("listing read a whole table"))
    assert len(list_runs(tmp_path)) == 1


# ------------------------------------------------------------------------------------------ temporary files
def test_a_stale_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    stale, fresh = runs / ".tmp-old-1", runs / ".tmp-new-2"
    stale.write_bytes(b"killed")
    fresh.write_bytes(b"being written")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    write_run(tmp_path, _table(0.5), _meta())
    assert not stale.exists()
    assert fresh.exists()  # another writer's, younger than an hour


STEPS = ["_write_temp", "_publish"]


def test_a_fault_removing_stale_files_does_not_stop_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> None:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(store_module, "_remove_stale", fail)
    write_run(tmp_path, _table(0.5), _meta("written"))
    assert [m["name"] for m in list_runs(tmp_path)] == ["written"]


@pytest.mark.parametrize("step", STEPS)
def test_a_fault_at_any_step_before_publishing_leaves_no_run_and_no_temp(tmp_path: Path, step: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_run(tmp_path, _table(0.5), _meta("kept"))
    original = getattr(store_module, step)

    def fail(*args: object) -> None:
        if step == "_write_temp":  # half the bytes are written, then the disk fails
            path, data = args
            Path(str(path)).write_bytes(bytes(data)[:10])  # type: ignore[arg-type]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module, step, fail)
    with pytest.raises(SaveError, match="No space left on device"):
        write_run(tmp_path, _table(0.7), _meta("lost"))
    monkeypatch.setattr(store_module, step, original)
    assert [m["name"] for m in list_runs(tmp_path)] == ["kept"]
    assert read_run(tmp_path, first)[1]["mrr"].iloc[0] == 0.5
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [f"{first}.parquet"]


def test_a_fault_syncing_the_folder_after_publishing_says_the_run_is_in_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(folder: Path) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(store_module, "_sync_folder", fail)
    with pytest.raises(SaveError, match=r"is in the store, whole, but its folder could not be synced"):
        write_run(tmp_path, _table(0.7), _meta("whole"))
    (meta,) = list_runs(tmp_path)
    assert read_run(tmp_path, meta["id"])[1]["mrr"].tolist() == [0.7, 0.825, 0.95]


def test_a_fault_serialising_or_putting_on_a_url_leaves_no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    store = _memory_store()
    write_run(store, _table(0.5), _meta("kept"))

    def fail(*args: object, **kwargs: object) -> None:
        raise SaveError("cannot write run memory://x (connection reset)")

    monkeypatch.setattr(store_module, "write_bytes", fail)
    with pytest.raises(SaveError, match="connection reset"):
        write_run(store, _table(0.7), _meta("lost"))
    monkeypatch.setattr(store_module, "run_bytes", lambda *a: (_ for _ in ()).throw(ValueError("bad table")))
    with pytest.raises(ValueError, match="bad table"):
        write_run(store, _table(0.7), _meta("lost"))
    assert [m["name"] for m in list_runs(store)] == ["kept"]


#: A write killed (SIGKILL) at each point: the script patches the step to kill its own process there.
KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from evalframe.io import history
    point = sys.argv[2]
    original_write, original_publish, original_sync = history._write_temp, history._publish, history._sync_folder
    def die():
        os.kill(os.getpid(), signal.SIGKILL)
    def write_temp(path, data):
        if point == "before-temp":
            die()
        if point == "half-temp":
            with open(path, "xb") as handle:
                handle.write(data[: len(data) // 2]); handle.flush(); os.fsync(handle.fileno())
            die()
        original_write(path, data)
        if point == "before-link":
            die()
    def publish(temp, final):
        original_publish(temp, final)
        if point == "after-link":
            die()
    history._write_temp, history._publish = write_temp, publish
    from evalframe.present.cli import main
    main(["log", sys.argv[3], "--qrels", sys.argv[4], "--store", sys.argv[1], "--name", "killed"])
""")


# one point in the README's command, every point under the stress marker (a fault sweep; .ci/run runs it in full)
@pytest.mark.parametrize("point", [pytest.param("before-temp", marks=pytest.mark.stress), "half-temp",
                                   pytest.param("before-link", marks=pytest.mark.stress),
                                   pytest.param("after-link", marks=pytest.mark.stress)])
def test_a_log_killed_at_any_point_leaves_no_partial_run(tmp_path: Path, point: str) -> None:
    store = tmp_path / "store"
    write_run(store, _table(0.5), _meta("kept"))
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    qrels.write_text("q1 0 d2 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(store), point, str(run), str(qrels)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr
    metas = list_runs(store)
    names = [m["name"] for m in metas]
    assert names == (["kept", "killed"] if point == "after-link" else ["kept"])
    for meta in metas:  # every run listed is whole
        assert len(read_run(store, meta["id"])[1]) >= 1
    temps = list((store / "runs").glob(".tmp-*"))
    assert len(temps) == (1 if point in ("half-temp", "before-link") else 0)
    for temp in temps:  # an hour later, the next write removes it
        os.utime(temp, (time.time() - 7200, time.time() - 7200))
    write_run(store, _table(0.9), _meta("later"))
    assert not list((store / "runs").glob(".tmp-*"))


# ------------------------------------------------------------------------------------------ references
def _metas() -> list[dict]:
    def run(day: int, name: str, tags: list[str], ndcg: float | None, unj: float | None = None) -> dict:
        measures = {}
        if ndcg is not None:
            measures["nDCG@10"] = {"mean": ndcg, "direction": "higher"}
        if unj is not None:
            measures["unj@10"] = {"mean": unj, "direction": "lower"}
        measures["NumRet"] = {"mean": 10.0, "direction": "none"}
        return {"id": f"202601{day:02d}T000000000000Z-{day:08x}", "name": name, "tags": tags,
                "nodes": {"Retriever": {"measures": measures}}}

    return [run(1, "bm25", ["v1"], 0.40, 0.3), run(2, "dense", ["v1", "main"], 0.55, 0.1),
            run(3, "bm25", [], 0.55, 0.2), run(4, "dense", ["v2"], 0.50, 0.1), run(5, "bm25", [], None)]


@pytest.mark.parametrize(("ref", "day"), [
    ("@last", 5), ("@last~0", 5), ("@last~1", 4), ("@last~4", 1), ("@last:dense", 4), ("@last:bm25", 5),
    ("@tag:v1", 2), ("@tag:v2", 4),
    ("@best:nDCG@10", 3),  # 0.55 twice: the latest of the tie
    ("@best:nDCG@10:dense", 2), ("@best:nDCG@10:bm25", 3),
    ("@best:unj@10", 4),  # lower is better: 0.1 twice, the latest
    ("@20260103", 3), ("@20260103T000000000000Z-00000003", 3),
])
def test_every_ref_form(ref: str, day: int) -> None:
    assert resolve(_metas(), ref)["id"].startswith(f"202601{day:02d}")


@pytest.mark.parametrize(("ref", "message"), [
    ("last", r"a run reference must be one of @last, @last~N, @last:NAME, @best:MEASURE, @best:MEASURE:NAME, "
             r"@tag:TAG, @<run id"),
    ("@", "a run reference must be one of"),
    ("@last~x", "a run reference must be one of"),
    ("@last~5", r"no run @last~5: the store s holds 5 runs; names: bm25, dense; tags: main, v1, v2"),
    ("@last:sparse", r"no run is named 'sparse': the store s holds 5 runs"),
    ("@last:", r"@last:NAME needs a name"),
    ("@tag:v9", r"no run has the tag 'v9': the store s holds 5 runs; names: bm25, dense; tags: main, v1, v2"),
    ("@tag:", "@tag:TAG needs a tag"),
    ("@best:", r"@best:MEASURE needs a measure"),
    ("@best:AP", r"no run holds the measure 'AP' \(the runs' measures: NumRet, nDCG@10, unj@10\)"),
    ("@best:nDCG@10:sparse", r"no run is named 'sparse'"),
    ("@best:NumRet", r"NumRet is a count \(direction 'none'\)"),
    ("@2026", r"a run id prefix must have at least 6 characters; got '@2026'"),
    ("@202601", r"@202601 is the prefix of 5 runs"),
    ("@209901", r"no run id starts with '209901'"),
    ("@a b", "a run reference must be one of"),
])
def test_ref_errors(ref: str, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        resolve(_metas(), ref, store="s")


def test_a_ref_into_an_empty_store() -> None:
    with pytest.raises(InvalidParameterError, match=r"the store s holds no run \(evalframe log RESULT"):
        resolve([], "@last", store="s")


# ------------------------------------------------------------------------------------------ concurrency
def _writer(store: str, process: int, runs: int, options: dict | None) -> None:
    for index in range(runs):
        table = _table(process * 1000 + index, queries=4)
        write_run(store, table, _meta(f"p{process}", process=process, index=index), storage_options=options)


def _concurrent(store: str, processes: int, runs: int, options: dict | None, method: str) -> None:
    context = multiprocessing.get_context(method)
    workers = [context.Process(target=_writer, args=(store, p, runs, options)) for p in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
        assert worker.exitcode == 0
    metas = list_runs(store, storage_options=options)
    assert len(metas) == processes * runs
    assert sorted((m["process"], m["index"]) for m in metas) == [(p, i) for p in range(processes) for i in range(runs)]
    for meta in metas:  # each whole, holding what its process logged
        _, table = read_run(store, meta["id"], storage_options=options)
        expected = meta["process"] * 1000 + meta["index"]
        assert table["mrr"].tolist() == [expected + i / 8 for i in range(4)]
        assert table["query"].tolist() == ["q0", "q1", "q2", "q3"]


def test_concurrent_writers_local_small(tmp_path: Path) -> None:
    _concurrent(str(tmp_path / "store"), 2, 5, None, "fork")


@pytest.mark.stress  # processes on the S3 server; the local small one stays in the README's command
def test_concurrent_writers_s3_small(s3) -> None:  # type: ignore[no-untyped-def]
    _concurrent(f"{s3.url}/store", 2, 5, s3.storage_options, "spawn")


@pytest.mark.stress
def test_concurrent_writers_local_8_x_50(tmp_path: Path) -> None:
    _concurrent(str(tmp_path / "store"), 8, 50, None, "fork")


@pytest.mark.stress
def test_concurrent_writers_s3_8_x_50(s3) -> None:  # type: ignore[no-untyped-def]
    _concurrent(f"{s3.url}/store", 8, 50, s3.storage_options, "spawn")
    assert not [key for key in s3.keys("store/runs") if not key.endswith(".parquet")]


def test_a_put_failing_on_s3_leaves_no_run(s3, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import fsspec

    store = f"{s3.url}/store"
    write_run(store, _table(0.5), _meta("kept"), storage_options=s3.storage_options)

    def fail(path, data, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(fsspec.filesystem("s3", **s3.storage_options), "pipe_file", fail)
    with pytest.raises(SaveError, match=r"cannot write run s3://.*/store/runs/.*\.parquet \(Input/output error\)"):
        write_run(store, _table(0.7), _meta("lost"), storage_options=s3.storage_options)
    monkeypatch.undo()
    assert [m["name"] for m in list_runs(store, storage_options=s3.storage_options)] == ["kept"]
    assert len(s3.keys("store/runs")) == 1


def test_a_file_given_as_the_store_is_refused_naming_it(tmp_path):
    (tmp_path / "notes.txt").write_text("a file\n")
    with pytest.raises(InvalidParameterError, match=r"store '.*notes\.txt': .*notes\.txt is a file; a store is a folder"):
        store_module.store_location(str(tmp_path / "notes.txt"))
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "runs").write_text("not a folder\n")
    with pytest.raises(InvalidParameterError, match=r"odd/runs is a file"):
        store_module.store_location(tmp_path / "odd")
    assert store_module.store_location(tmp_path / "new") == tmp_path / "new"  # a store yet to be made is fine
