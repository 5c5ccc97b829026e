"""Result folders on URLs (memory:// and the tests' S3 server): round trips, and safe saves where nothing can be renamed.

The fault sweeps replace the step marker ``evalframe.io.atomic.step`` (called before every write of a save, each PUT
of a remote one too) to fail, or to end a subprocess, at each step in turn; the URL must then load as exactly the
old or the new result (every node of one of them: a "mixed" read would be a node of each).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import LoadError, SaveError
from evalframe.io import atomic, remote
from tests.fixtures import hand_result

pytest.importorskip("fsspec")

NO_FAULT = atomic.step
FORMATS = [("csv", None), ("parquet", None), ("parquet", 3)]
FORMAT_IDS = ["csv", "parquet", "partitioned"]


def memory_url() -> str:
    return f"memory://{uuid.uuid4().hex}/out"


def old_result() -> EvaluationResult:
    return hand_result()


def new_result() -> EvaluationResult:
    """The hand result with other values in both nodes: a read mixing nodes of the two saves is told apart."""
    result = hand_result()
    result["Reader"]["f1"] = 1.0 - result["Reader"]["f1"]
    retriever = result["Retriever"].copy()
    retriever["document_id"] = retriever["document_id"] + "-new"
    result["Retriever"] = retriever
    return result


def which(loaded: EvaluationResult, old: EvaluationResult, new: EvaluationResult) -> str:
    """"old", "new", or "mixed" (the nodes come from different saves, or equal neither)."""
    found = set()
    for node in ("Retriever", "Reader"):
        for name, result in (("old", old), ("new", new)):
            try:
                pd.testing.assert_frame_equal(loaded[node], result[node], check_exact=True)
            except AssertionError:
                continue
            found.add((node, name))
    for name in ("old", "new"):
        if found == {("Retriever", name), ("Reader", name)}:
            return name
    return "mixed"


def save(result: EvaluationResult, url: str, options: dict[str, Any] | None, fmt: str, partitions: int | None) -> Any:
    return result.save(url, format=fmt, partitions=partitions, progress=False, storage_options=options)


def load(url: str, options: dict[str, Any] | None = None) -> EvaluationResult:
    return EvaluationResult.load(url, progress=False, storage_options=options)


def generations(url: str, options: dict[str, Any] | None = None) -> list[str]:
    where = remote.resolve(url, name="url", storage_options=options)
    assert not isinstance(where, Path)
    where.fs.invalidate_cache()
    return sorted(name for name in (entry.rstrip("/").rsplit("/", 1)[-1] for entry in where.fs.ls(where.path, detail=False))
                  if name.startswith("gen-"))


# ------------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize(("fmt", "partitions"), FORMATS, ids=FORMAT_IDS)
def test_a_result_saved_to_memory_loads_as_the_local_save_does(tmp_path, fmt, partitions):
    result = hand_result()
    url = memory_url()
    written = save(result, url, None, fmt, partitions)
    assert str(written) == url
    local = EvaluationResult.load(result.save(tmp_path / "out", format=fmt, partitions=partitions, progress=False),
                                  progress=False)
    loaded = load(url)
    assert list(loaded) == list(local) == ["Retriever", "Reader"]
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], local[node], check_exact=True)
    metrics = loaded.calculate_metrics()  # the hand-worked values of tests/test_result.py
    assert metrics["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)
    assert metrics["Retriever"]["recall_multi_hit"] == pytest.approx((1 + 1 + 1 + 1 + 0 + 0.5) / 6, abs=1e-12)
    assert metrics["Retriever"]["mrr"] == pytest.approx((1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6, abs=1e-12)
    # one generation, named by evalframe.json; saved again, the old generation is gone and the new one read
    first = generations(url)
    assert len(first) == 1
    save(new_result(), url, None, fmt, partitions)
    second = generations(url)
    assert len(second) == 1 and second != first
    assert which(load(url), result, new_result()) == "new"


S3_FORMATS = [pytest.param(*FORMATS[0], marks=pytest.mark.stress), FORMATS[1],
              pytest.param(*FORMATS[2], marks=pytest.mark.stress)]  # the slower two in the stress runs


@pytest.mark.parametrize(("fmt", "partitions"), S3_FORMATS, ids=FORMAT_IDS)
def test_a_result_saved_to_the_s3_server_loads_as_the_local_save_does(s3, tmp_path, fmt, partitions):
    result = hand_result()
    url = f"{s3.url}/results/run1"
    save(result, url, s3.storage_options, fmt, partitions)
    keys = s3.keys("results/run1")
    assert "results/run1/evalframe.json" in keys
    generation = json.loads(s3.fs.cat_file(f"{s3.name}/results/run1/evalframe.json"))["generation"]
    assert all(key == "results/run1/evalframe.json" or key.startswith(f"results/run1/{generation}/") for key in keys)
    local = EvaluationResult.load(result.save(tmp_path / "out", format=fmt, partitions=partitions, progress=False),
                                  progress=False)
    loaded = load(url, s3.storage_options)
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], local[node], check_exact=True)
    assert loaded.calculate_metrics()["Retriever"]["precision"] == pytest.approx((0.8 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6,
                                                                                 abs=1e-12)
    save(new_result(), url, s3.storage_options, fmt, partitions)
    assert not any(key.startswith(f"results/run1/{generation}/") for key in s3.keys("results/run1"))
    assert which(load(url, s3.storage_options), result, new_result()) == "new"


def test_a_local_save_uploaded_as_it_is_and_a_haystack_folder_are_read_from_the_url(tmp_path):
    result = hand_result()
    folder = result.save(tmp_path / "local", progress=False)
    where = remote.resolve(memory_url(), name="url")
    assert not isinstance(where, Path)
    for file in folder.iterdir():  # copied as it is: evalframe.json naming no generation, the files beside it
        where.fs.pipe_file((where / file.name).path, file.read_bytes())
    loaded = load(where.url)
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], EvaluationResult.load(folder, progress=False)[node], check_exact=True)
    # saved over, the copied files are replaced by a generation (and removed once it is published)
    save(new_result(), where.url, None, "csv", None)
    where.fs.invalidate_cache()
    names = sorted(entry.rsplit("/", 1)[-1] for entry in where.fs.ls(where.path, detail=False))
    assert len(names) == 2 and names[0] == "evalframe.json" and names[1].startswith("gen-")
    assert which(load(where.url), result, new_result()) == "new"
    # a Haystack 1.x folder: only <node>.csv files
    haystack = remote.resolve(memory_url(), name="url")
    assert not isinstance(haystack, Path)
    for node in ("Retriever", "Reader"):
        haystack.fs.pipe_file((haystack / f"{node}.csv").path, (folder / f"{node}.csv").read_bytes())
    from_haystack = load(haystack.url)
    assert from_haystack.calculate_metrics()["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)


def test_urls_are_refused_clearly(tmp_path):
    url = memory_url()
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    where.fs.pipe_file((where / "notes.txt").path, b"mine")
    with pytest.raises(SaveError, match=r"holds files evalframe did not write \(\['notes.txt'\]; it holds no readable "):
        hand_result().save(url, progress=False)
    assert where.fs.cat_file((where / "notes.txt").path) == b"mine"
    with pytest.raises(LoadError, match=r"results folder memory://.*/missing does not exist"):
        load(memory_url().replace("/out", "/missing"))
    file_url = memory_url()
    remote.resolve(file_url, name="u").fs.pipe_file(file_url.split("://")[1], b"x")  # type: ignore[union-attr]
    with pytest.raises(SaveError, match="exists and is not a folder"):
        hand_result().save(file_url, progress=False)
    with pytest.raises(Exception, match="storage_options must be a dict"):
        hand_result().save(memory_url(), storage_options=["anon"])  # type: ignore[arg-type]


def test_a_loaded_remote_result_reads_no_object_later():
    url = memory_url()
    save(hand_result(), url, None, "parquet", 2)
    loaded = load(url)  # its nodes stay pending: their columns are made when first read
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    where.fs.rm(where.path, recursive=True)  # every object gone
    assert loaded.calculate_metrics()["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)


def test_a_file_missing_from_the_current_generation_is_named():
    url = memory_url()
    save(hand_result(), url, None, "csv", None)
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    (generation,) = generations(url)
    where.fs.rm_file((where / generation / "Reader.csv").path)
    with pytest.raises(LoadError, match=rf"{generation}/Reader.csv is missing: .*evalframe.json lists it"):
        load(url)


# ------------------------------------------------------------------------------------------ faults
def steps_of_save(url: str, options: dict[str, Any] | None, fmt: str, partitions: int | None) -> list[str]:
    save(old_result(), url, options, fmt, partitions)
    steps: list[str] = []
    atomic.step = steps.append
    try:
        save(new_result(), url, options, fmt, partitions)
    finally:
        atomic.step = NO_FAULT
    return steps


def sweep(base: str, options: dict[str, Any] | None, fmt: str, partitions: int | None, monkeypatch: Any,
          remote_only: bool = False) -> dict[str, int]:
    """A failure before each step of a save over an old result, in turn; what every URL then loads as.

    ``remote_only``: only the steps that write or remove objects (not the local staging of the files)."""
    steps = steps_of_save(f"{base}/steps", options, fmt, partitions)
    assert [step for step in steps if step.startswith("put ")][-1] == "put evalframe.json"
    published_at = steps.index("put evalframe.json")
    old, new = old_result(), new_result()
    seen = {"old": 0, "new": 0, "mixed": 0}
    for k in range(len(steps)):
        if remote_only and not steps[k].startswith(("put ", "remove ")):
            continue
        url = f"{base}/k{k}"
        save(old, url, options, fmt, partitions)
        calls: list[str] = []

        def hook(step: str, calls: list[str] = calls, k: int = k) -> None:
            calls.append(step)
            if len(calls) == k + 1:
                raise OSError(errno.EIO, os.strerror(errno.EIO), step)

        monkeypatch.setattr(atomic, "step", hook)
        try:
            save(new, url, options, fmt, partitions)
        except SaveError as exc:
            assert k <= published_at and "the previous result, if any, is unchanged" in str(exc)
        monkeypatch.setattr(atomic, "step", NO_FAULT)
        got = which(load(url, options), old, new)
        seen[got] += 1
        assert got == ("old" if k <= published_at else "new"), (k, steps[k])
        assert len(generations(url, options)) <= 2  # the current one, and at most the one a fault left
        if not remote_only:  # (the stress runs) the next save cleans up, and the URL loads as it
            save(new, url, options, fmt, partitions)
            assert which(load(url, options), old, new) == "new"
    return seen


def test_a_failure_at_any_step_of_a_csv_save_to_memory_leaves_the_old_or_the_new_result(monkeypatch):
    seen = sweep(memory_url(), None, "csv", None, monkeypatch, remote_only=True)
    assert seen["mixed"] == 0 and seen["old"] > 0 and seen["new"] > 0


@pytest.mark.stress
@pytest.mark.parametrize(("fmt", "partitions"), FORMATS, ids=FORMAT_IDS)
@pytest.mark.parametrize("where", ["memory", "s3"])
def test_a_failure_at_any_step_leaves_the_old_or_the_new_result(request, monkeypatch, where, fmt, partitions):
    if where == "s3":
        s3 = request.getfixturevalue("s3")
        base, options = f"{s3.url}/sweep", s3.storage_options
    else:
        base, options = memory_url(), None
    seen = sweep(base, options, fmt, partitions, monkeypatch)
    assert seen["mixed"] == 0 and seen["old"] > 0 and seen["new"] > 0


KILLED_SAVE = textwrap.dedent("""
    import json, os, sys
    from evalframe.io import atomic
    from tests.io.test_remote_save import new_result
    url, options, fmt = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    partitions, k = json.loads(sys.argv[4]), int(sys.argv[5])
    calls = []
    def hook(step):
        calls.append(step)
        if len(calls) == k + 1:
            os._exit(9)  # killed: nothing after this step runs, no cleanup
    atomic.step = hook
    new_result().save(url, format=fmt, partitions=partitions, progress=False, storage_options=options)
""")


@pytest.mark.stress
@pytest.mark.parametrize(("fmt", "partitions"), FORMATS, ids=FORMAT_IDS)
def test_a_save_killed_at_any_step_on_the_s3_server_leaves_the_old_or_the_new_result(s3, fmt, partitions):
    steps = steps_of_save(f"{s3.url}/steps", s3.storage_options, fmt, partitions)
    published_at = steps.index("put evalframe.json")
    old, new = old_result(), new_result()
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    for k in range(len(steps)):
        if not steps[k].startswith(("put ", "remove ")):  # the local staging's steps: the failure sweep has them
            continue
        url = f"{s3.url}/killed/k{k}"
        save(old, url, s3.storage_options, fmt, partitions)
        run = subprocess.run([sys.executable, "-c", KILLED_SAVE, url, json.dumps(s3.storage_options), fmt,
                              json.dumps(partitions), str(k)], env=environment, capture_output=True, timeout=120)
        assert run.returncode == 9, run.stderr.decode()
        assert which(load(url, s3.storage_options), old, new) == ("old" if k <= published_at else "new"), steps[k]
        save(new, url, s3.storage_options, fmt, partitions)  # a killed save's generation is within the grace period
        assert which(load(url, s3.storage_options), old, new) == "new"


def test_generations_older_than_the_grace_period_are_removed_and_the_current_one_never(monkeypatch):
    url = memory_url()
    save(old_result(), url, None, "csv", None)
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    stale = "gen-20200101T000000.000000Z-0123456789ab"  # a killed save's of long ago
    recent = remote.new_generation()  # a save still writing (or killed a moment ago)
    for name in (stale, recent):
        where.fs.pipe_file((where / name / "Reader.csv").path, b"half")
    save(new_result(), url, None, "csv", None)
    left = generations(url)
    assert stale not in left and recent in left and len(left) == 2
    monkeypatch.setattr(remote, "GRACE_SECONDS", -1.0)  # every generation is past its grace: still not the current
    save(old_result(), url, None, "csv", None)
    assert len(generations(url)) == 1
    assert which(load(url), old_result(), new_result()) == "old"


# ------------------------------------------------------------------------------------------ races
def race_savers(url: str, options: dict[str, Any] | None) -> str:
    old, new = old_result(), new_result()
    save(old, url, options, "parquet", None)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def saver(result: EvaluationResult) -> None:
        try:
            barrier.wait()
            save(result, url, options, "parquet", None)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=(result,)) for result in (new_result(), old_result())]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    got = which(load(url, options), old, new)
    assert got in ("old", "new")
    current = remote.current_generation(remote.resolve(url, name="url", storage_options=options))  # type: ignore[arg-type]
    assert current in generations(url, options)
    return got


def test_two_savers_racing_leave_one_whole_result():
    assert race_savers(memory_url(), None) in ("old", "new")


def race_reader(url: str, options: dict[str, Any] | None, rounds: int) -> dict[str, int]:
    """A reader loading again and again while a saver saves the two results in turn: what each load gave."""
    old, new = old_result(), new_result()
    save(old, url, options, "csv", None)
    done = threading.Event()
    seen = {"old": 0, "new": 0, "mixed": 0, "saved again": 0}

    def saver() -> None:
        try:
            for number in range(rounds):
                save(new if number % 2 == 0 else old, url, options, "csv", None)
        finally:
            done.set()

    thread = threading.Thread(target=saver)
    thread.start()
    while not done.is_set():
        try:
            seen[which(load(url, options), old, new)] += 1
        except LoadError as exc:
            assert "saved again while being read" in str(exc)
            seen["saved again"] += 1
    thread.join()
    return seen


def test_a_reader_racing_a_saver_gets_a_whole_result(monkeypatch):
    monkeypatch.setattr(remote, "MAX_ATTEMPTS", 2)  # give up soon: the "saved again" error is met too
    seen = race_reader(memory_url(), None, rounds=6)
    assert seen["mixed"] == 0 and seen["old"] + seen["new"] + seen["saved again"] > 0


@pytest.mark.stress
@pytest.mark.parametrize("where", ["memory", "s3"])
def test_readers_racing_savers_repeatedly(request, where):
    if where == "s3":
        s3 = request.getfixturevalue("s3")
        base, options = f"{s3.url}/race", s3.storage_options
    else:
        base, options = memory_url(), None
    total = {"old": 0, "new": 0, "mixed": 0, "saved again": 0}
    for number in range(5):
        for key, count in race_reader(f"{base}/r{number}", options, rounds=10).items():
            total[key] += count
        assert race_savers(f"{base}/s{number}", options) in ("old", "new")
    assert total["mixed"] == 0 and total["old"] + total["new"] > 0


def test_a_damaged_manifest_at_a_url_is_refused_naming_it():
    url = memory_url()
    save(hand_result(), url, None, "csv", None)
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    path = (where / "evalframe.json").path
    manifest = json.loads(where.fs.cat_file(path))
    where.fs.pipe_file(path, json.dumps({**manifest, "scores": 3}).encode())
    with pytest.raises(LoadError, match=rf"^{url}/gen-[^/]+/evalframe.json: 'scores' must map score names"):
        load(url)
    where.fs.pipe_file(path, json.dumps({**manifest, "generation": "../elsewhere"}).encode())
    with pytest.raises(LoadError, match=rf"^{url}/evalframe.json: 'generation' must name the generation a save wrote"):
        load(url)


def test_a_url_holding_only_an_unpublished_generation_is_no_result():
    url = memory_url()
    where = remote.resolve(url, name="url")
    assert not isinstance(where, Path)
    where.fs.pipe_file((where / remote.new_generation() / "Reader.csv").path, b"half")  # a first save, killed
    with pytest.raises(LoadError, match=r"holds no evalframe.json and no .csv file \(a save to it was never published"):
        load(url)
    save(hand_result(), url, None, "csv", None)  # a save over it is allowed (the generation is its own kind)
    assert load(url).calculate_metrics()["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)


def test_a_save_published_over_by_another_removes_its_own_generation(monkeypatch):
    url = memory_url()
    save(old_result(), url, None, "csv", None)
    put = remote.write_bytes
    held: list[tuple[Any, bytes]] = []  # this save's manifest PUT, held back until the other save publishes

    def interleaved(where: Any, data: bytes, *, what: str = "file") -> None:
        if where.name != "evalframe.json":
            put(where, data, what=what)
        elif not held:  # this save's manifest: the other save runs first, up to its own manifest PUT
            held.append((where, data))
            save(old_result(), url, None, "csv", None)
        else:  # the other save's manifest (it read the one this save replaces): this one lands first, then it
            put(*held[0], what=what)
            put(where, data, what=what)

    monkeypatch.setattr(remote, "write_bytes", interleaved)
    save(new_result(), url, None, "csv", None)
    monkeypatch.setattr(remote, "write_bytes", put)
    # the other save is the result; this one's generation, no longer named, is removed by this save itself (the other
    # one removed the generation it read as replaced, the first one)
    assert which(load(url), old_result(), new_result()) == "old"
    mine = json.loads(held[0][1])["generation"]
    left = generations(url)
    assert len(left) == 1 and mine not in left
