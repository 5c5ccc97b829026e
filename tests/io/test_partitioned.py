"""Partitioned result folders (docs/persistence.md#partitioned-results): save(format="parquet", partitions=N).

Every row of one query, in every node, lies in partition ``mmh3.hash(multilabel_id, 0, signed=False) % N``; a whole
load gives back the saved frames exactly; the save guarantees of docs/persistence.md#safe-writes hold; a damaged
folder is refused with an error naming the file.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import re
import shutil
from pathlib import Path

import mmh3
import numpy as np
import pandas as pd
import pytest

from benchmarks.synthetic import make_result
from evalframe import EvaluationResult, LoadError, SaveError
from evalframe.io import atomic as _atomic
from tests.fixtures import hand_result

#: The no-op step marker, put back once a sweep's fault has run.
NO_FAULT = _atomic.step

pq = pytest.importorskip("pyarrow.parquet")
FORK = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
ROW = "__evalframe_row__"


def assert_result_equal(loaded: EvaluationResult, expected: EvaluationResult) -> None:
    assert list(loaded) == list(expected)
    for node in expected:
        pd.testing.assert_frame_equal(loaded[node], expected[node], check_exact=True)


def part_name(node: str, part: int, n: int) -> str:
    return f"{node}.part-{part:05d}-of-{n:05d}.parquet"


def expected_names(result: EvaluationResult, n: int) -> list[str]:
    return sorted([part_name(node, p, n) for node in result for p in range(n)] + ["evalframe.json"])


def siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if ".evalframe-" in p.name)


def partition_of(query_id: str, n: int) -> int:
    """The rule written out independently of evalframe: MurmurHash3 x86_32 of the UTF-8 id, seed 0, unsigned."""
    return mmh3.hash(query_id.encode("utf-8"), 0, signed=False) % n


@pytest.fixture(scope="module")
def synthetic() -> EvaluationResult:
    return make_result(300)


# ------------------------------------------------------------------------ round trips
#: 64 partitions (about five queries each of the synthetic result's 300) under the stress marker, which .ci/run runs in full
MANY = pytest.param(64, marks=pytest.mark.stress)


@pytest.mark.parametrize("n", [1, 2, 7, MANY])
@pytest.mark.parametrize("which", ["hand", "synthetic"])
def test_the_round_trip_gives_the_saved_frames_and_metrics(tmp_path, n, which, synthetic):
    result = hand_result() if which == "hand" else synthetic
    folder = result.save(tmp_path / "out", format="parquet", partitions=n, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == expected_names(result, n)
    loaded = EvaluationResult.load(folder, progress=False)
    assert_result_equal(loaded, result)
    assert loaded.matching == result.matching
    assert loaded.calculate_metrics() == result.calculate_metrics()
    pd.testing.assert_frame_equal(loaded.query_metrics("Retriever"), result.query_metrics("Retriever"), check_exact=True)


def test_the_mmh3_rule_matches_the_published_test_vector():
    # MurmurHash3 x86_32 of "foo", seed 0 (the reference implementation's value, 0xf6a5c420)
    assert mmh3.hash("foo", 0, signed=False) == 4138058784 == 0xF6A5C420


@pytest.mark.parametrize("n", [2, 7, MANY])
def test_every_query_lies_in_its_hashed_partition_in_every_node(tmp_path, n, synthetic):
    folder = synthetic.save(tmp_path / "out", format="parquet", partitions=n, progress=False)
    found: dict[str, set[int]] = {}
    for node in synthetic:
        for part in range(n):
            table = pq.read_table(folder / part_name(node, part, n))
            rows = table.column(ROW).to_numpy()
            assert np.all(np.diff(rows) > 0), "rows keep their original order inside a partition"
            for query in set(table.column("multilabel_id").to_pylist()):
                found.setdefault(query, set()).add(part)
    assert all(len(parts) == 1 for parts in found.values())
    assert set(found) == set(synthetic["Retriever"]["multilabel_id"])
    for query in sorted(found)[:5]:  # hand-picked: the first few ids, hashed here
        assert found[query] == {partition_of(query, n)}


def test_hand_picked_ids_land_in_their_worked_out_partition(tmp_path):
    result = hand_result()
    folder = result.save(tmp_path / "out", format="parquet", partitions=8, progress=False)
    manifest = json.loads((folder / "evalframe.json").read_text())
    for query in ("q1", "q3", "q6"):
        number = mmh3.hash(query, 0, signed=False) % 8
        part = manifest["nodes"]["Retriever"]["parts"][number]
        ids = pq.read_table(folder / part["file"]).column("multilabel_id").to_pylist()
        assert query in ids
        assert ids.count(query) == (result["Retriever"]["multilabel_id"] == query).sum()


def test_evalframe_json_records_the_layout(tmp_path, synthetic):
    folder = synthetic.save(tmp_path / "out", format="parquet", partitions=7, progress=False)
    manifest = json.loads((folder / "evalframe.json").read_text())
    assert manifest["format_version"] == 2
    layout = manifest["partitioned"]
    assert layout["partitions"] == 7 and layout["key"] == "multilabel_id" and layout["row_column"] == ROW
    assert "mmh3.hash" in layout["hash"] and "seed=0" in layout["hash"] and "signed=False" in layout["hash"]
    for node, frame in synthetic.node_results.items():
        entry = manifest["nodes"][node]
        assert entry["rows"] == len(frame)
        assert [part["file"] for part in entry["parts"]] == [part_name(node, p, 7) for p in range(7)]
        assert [part["rows"] for part in entry["parts"]] == [pq.read_metadata(folder / part["file"]).num_rows
                                                            for part in entry["parts"]]
        assert sum(part["rows"] for part in entry["parts"]) == len(frame)
        assert all(part["columns"][-1] == {"name": ROW, "dtype": "int64", "codec": "native"} for part in entry["parts"])


def test_an_empty_partition_is_a_file_of_zero_rows_with_every_column(tmp_path):
    result = hand_result()
    folder = result.save(tmp_path / "out", format="parquet", partitions=64, progress=False)
    empty = [p for p in range(64) if pq.read_metadata(folder / part_name("Reader", p, 64)).num_rows == 0]
    assert empty  # 4 queries in 64 partitions
    names = pq.read_schema(folder / part_name("Reader", empty[0], 64)).names
    assert names == [*result["Reader"].columns, ROW]


def test_a_plain_folder_and_a_partitioned_one_replace_each_other(tmp_path, synthetic):
    result = hand_result()
    folder = result.save(tmp_path / "out", format="parquet", partitions=7, progress=False)
    synthetic.save(folder, format="parquet", partitions=3, progress=False)  # the old parts are all evalframe's
    assert sorted(p.name for p in folder.iterdir()) == expected_names(synthetic, 3)
    result.save(folder, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == ["Reader.csv", "Retriever.csv", "evalframe.json"]
    assert_result_equal(EvaluationResult.load(folder, progress=False), result)
    result.save(folder, format="parquet", partitions=2, progress=False)
    assert_result_equal(EvaluationResult.load(folder, progress=False), result)
    assert siblings(folder) == []


def test_a_partitioned_folder_is_refused_by_a_reader_of_version_1(tmp_path):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=2, progress=False)
    manifest = json.loads((folder / "evalframe.json").read_text())
    manifest["format_version"] = 1  # as written, a reader of version 1 only would refuse "format_version 2"
    (folder / "evalframe.json").write_text(json.dumps(manifest))
    with pytest.raises(LoadError, match=r"'partitioned' is the layout of format_version 2 folders"):
        EvaluationResult.load(folder, progress=False)


# ------------------------------------------------------------------------ the call
@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_partitions_must_be_a_positive_int(tmp_path, bad):
    with pytest.raises(SaveError, match=r"partitions must be an int >= 1 \(or None for one file per node\); got "):
        hand_result().save(tmp_path / "out", format="parquet", partitions=bad)
    assert not (tmp_path / "out").exists()


def test_an_absurd_partition_count_is_refused_before_any_work(tmp_path, monkeypatch):
    # was: partitions=2**40 went on to allocate a bound per partition (8 TiB) and failed with a MemoryError
    monkeypatch.setattr(np, "searchsorted", lambda *a, **k: pytest.fail("the save went on to split the rows"))
    with pytest.raises(SaveError, match=r"partitions must be at most 99,999 \(part files are numbered with five digits\); "
                                        r"got 1,099,511,627,776\. Choose a few partitions per worker"):
        hand_result().save(tmp_path / "out", format="parquet", partitions=2**40)
    assert not (tmp_path / "out").exists()
    from evalframe.io.partitioned import check_partitions

    assert check_partitions(99_999, "parquet") == 99_999  # the bound itself is a valid count (saving it: 200,000 files)


def test_partitions_are_refused_with_csv_and_the_message_gives_the_call(tmp_path):
    with pytest.raises(SaveError, match=r"partitions=4 needs format='parquet' .*call save\(out_dir, format='parquet', "
                                        r"partitions=4\)"):
        hand_result().save(tmp_path / "out", partitions=4)
    assert not (tmp_path / "out").exists()


def test_a_node_without_query_ids_or_with_the_reserved_column_is_refused(tmp_path):
    frames = dict(hand_result().node_results)
    with pytest.raises(SaveError, match=r"node 'Reader' has no 'multilabel_id' column, which decides a row's partition"):
        EvaluationResult({**frames, "Reader": frames["Reader"].drop(columns="multilabel_id")}).save(
            tmp_path / "out", format="parquet", partitions=2)
    with pytest.raises(SaveError, match=r"node 'Reader' has a column named '__evalframe_row__', .* rename it"):
        EvaluationResult({**frames, "Reader": frames["Reader"].assign(__evalframe_row__=1)}).save(
            tmp_path / "out", format="parquet", partitions=2)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------ damaged folders
@pytest.fixture
def saved(tmp_path) -> Path:
    return hand_result().save(tmp_path / "out", format="parquet", partitions=3, progress=False)


def edit_manifest(folder: Path, edit) -> None:
    manifest = json.loads((folder / "evalframe.json").read_text())
    edit(manifest)
    (folder / "evalframe.json").write_text(json.dumps(manifest))


def nonempty_parts(folder: Path, node: str) -> list[int]:
    manifest = json.loads((folder / "evalframe.json").read_text())
    return [p for p, part in enumerate(manifest["nodes"][node]["parts"]) if part["rows"]]


def test_a_missing_part_file_is_named(saved):
    (saved / part_name("Reader", 1, 3)).unlink()
    with pytest.raises(LoadError, match=r"Reader.part-00001-of-00003.parquet is missing: evalframe.json lists it as "
                                        r"a partition of node 'Reader'"):
        EvaluationResult.load(saved, progress=False)


def test_a_part_whose_row_count_differs_from_evalframe_json_is_named(saved):
    part = nonempty_parts(saved, "Retriever")[0]

    def edit(manifest):
        manifest["nodes"]["Retriever"]["parts"][part]["rows"] += 1

    edit_manifest(saved, edit)
    with pytest.raises(LoadError, match=rf"Retriever.part-0000{part}-of-00003.parquet: its columns or row count differ "
                                        r"from those evalframe.json records"):
        EvaluationResult.load(saved, progress=False)


def test_a_node_row_count_that_differs_from_its_parts_is_named(saved):
    edit_manifest(saved, lambda manifest: manifest["nodes"]["Reader"].update(rows=99))
    with pytest.raises(LoadError, match=r"the partition files of node 'Reader' hold 8 rows whose '__evalframe_row__' "
                                        r"order keys are not 99 distinct values as evalframe.json records"):
        EvaluationResult.load(saved, progress=False)


def test_a_query_found_in_two_partitions_is_named(saved):
    a, b = nonempty_parts(saved, "Reader")[:2]
    # the Reader's parts a and b trade places (files and entries): the folder is consistent but for the hash rule
    first, second = saved / part_name("Reader", a, 3), saved / part_name("Reader", b, 3)
    shutil.move(first, saved / "swap")
    shutil.move(second, first)
    shutil.move(saved / "swap", second)

    def edit(manifest):
        parts = manifest["nodes"]["Reader"]["parts"]
        parts[a], parts[b] = {**parts[b], "file": parts[a]["file"]}, {**parts[a], "file": parts[b]["file"]}

    edit_manifest(saved, edit)
    with pytest.raises(LoadError, match=r"Reader.part-0000\d-of-00003.parquet: query 'q\d' \(row \d of the file\) lies "
                                        r"in partition \d, but its multilabel_id belongs to partition \d of 3"):
        EvaluationResult.load(saved, progress=False)


@pytest.mark.parametrize("partitioned", [False, True], ids=["plain", "partitioned"])
@pytest.mark.parametrize(("column", "codec", "dtype", "holds"), [
    ("gold_answers", "literal", "object", r"list<element: string>"),  # the case of the issue
    ("gold_answers", "native", "float64", r"list<element: string>"),
    ("multilabel_id", "native", "float64", r"(large_)?string"),
    ("rank", "text", "object", r"int64"),
])
def test_a_codec_that_does_not_match_the_files_column_is_named(tmp_path, partitioned, column, codec, dtype, holds):
    # was: TypeError: unhashable type: 'list' (literal), ValueError: setting an array element with a sequence (native)
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=2 if partitioned else None,
                                progress=False)

    def edit(manifest):
        node = manifest["nodes"]["Retriever"]
        for entry in node["parts"] if partitioned else [node]:
            for spec in entry["columns"]:
                if spec["name"] == column:
                    spec.update(codec=codec, dtype=dtype)
                    spec.pop("empty", None)

    edit_manifest(folder, edit)
    with pytest.raises(LoadError, match=rf"Retriever(.part-0000\d-of-00002)?.parquet: column '{column}' holds {holds} "
                                        rf"values, but evalframe.json records it with codec '{codec}', which stores "):
        EvaluationResult.load(folder, progress=False)


@pytest.mark.parametrize("partitioned", [False, True], ids=["plain", "partitioned"])
@pytest.mark.parametrize("column, dtype, holds, writes", [
    ("rank", "bool", "int64", "bool"),            # was: ranks read as True, mrr 0.6389 -> 0.8333, no error
    ("rank", "int8", "int64", "int8"),            # was: a raw OverflowError past 127, a silent cast below it
    ("rank", "boolean", "int64", "bool"),         # was: TypeError: Need to pass bool-like values
    ("gold_id_match", "int64", "double", "int64"),  # a float column read as ints
])
def test_a_number_dtype_that_does_not_match_the_files_column_is_named(tmp_path, partitioned, column, dtype, holds,
                                                                      writes):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=2 if partitioned else None,
                                progress=False)
    assert EvaluationResult.load(folder, progress=False).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(
        (1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6)  # the hand-worked mrr of the saved result

    def edit(manifest):
        node = manifest["nodes"]["Retriever"]
        for entry in node["parts"] if partitioned else [node]:
            for spec in entry["columns"]:
                if spec["name"] == column:
                    spec["dtype"] = dtype

    edit_manifest(folder, edit)
    with pytest.raises(LoadError, match=rf"Retriever(.part-0000\d-of-00002)?.parquet: column '{column}' holds {holds} "
                                        rf"values, but evalframe.json records its dtype as '{dtype}', which save "
                                        rf"writes as {writes}; .*save the result again"):
        EvaluationResult.load(folder, progress=False)


@pytest.mark.parametrize("dtype", ["float128", "Sparse[int64]"])
def test_a_number_dtype_save_never_writes_to_parquet_is_named(tmp_path, dtype):
    # was: a raw ArrowNotImplementedError / TypeError from the check of the column's Arrow type
    folder = hand_result().save(tmp_path / "out", format="parquet", progress=False)

    def edit(manifest):
        for spec in manifest["nodes"]["Retriever"]["columns"]:
            if spec["name"] == "rank":
                spec["dtype"] = dtype

    edit_manifest(folder, edit)
    with pytest.raises(LoadError, match=rf"Retriever\.parquet: column 'rank': evalframe\.json records dtype "
                                        rf"'{re.escape(dtype)}', which save never writes to Parquet"):
        EvaluationResult.load(folder, progress=False)


def test_a_parts_list_of_the_wrong_length_is_named(saved):
    edit_manifest(saved, lambda manifest: manifest["nodes"]["Reader"]["parts"].pop())
    with pytest.raises(LoadError, match=r"evalframe.json: nodes\['Reader'\].parts must be a list of one entry per "
                                        r"partition \(3, .*got a list of 2 entries"):
        EvaluationResult.load(saved, progress=False)


# ------------------------------------------------------------------------ the save guarantees
def new_result() -> EvaluationResult:
    frames = {node: frame.iloc[:-1].reset_index(drop=True) for node, frame in hand_result().node_results.items()}
    frames["Reader"]["answer"] = [f"new {i}" for i in range(len(frames["Reader"]))]
    return EvaluationResult(frames)


def save_steps(tmp_path: Path) -> list[str]:
    folder = hand_result().save(tmp_path / "probe", format="parquet", partitions=3, progress=False)
    steps: list[str] = []
    _atomic.step = steps.append
    try:
        new_result().save(folder, format="parquet", partitions=3, progress=False)
    finally:
        _atomic.step = NO_FAULT
    return steps


@pytest.mark.stress  # a fault sweep (every step of the save): .ci/run runs it with -m stress
@pytest.mark.parametrize("fault", ["ENOSPC", "interrupt"])
@pytest.mark.parametrize("fallback", [False, True], ids=["exchange", "rename-fallback"])
def test_a_fault_at_any_step_leaves_the_old_or_the_new_result(tmp_path, monkeypatch, fault, fallback):
    if fallback:
        monkeypatch.setattr(_atomic, "_exchange", lambda a, b: False)
    steps = save_steps(tmp_path)
    assert sum(step.startswith("write ") and ".part-" in step for step in steps) == 6
    swapped_at = steps.index("rename new into place" if fallback else "exchange")
    old, new = hand_result(), new_result()
    for k in range(len(steps)):
        folder = old.save(tmp_path / f"out{k}", format="parquet", partitions=3, progress=False)
        calls: list[str] = []

        def hook(step, k=k, calls=calls):
            calls.append(step)
            if len(calls) == k + 1:
                if fault == "interrupt":
                    raise KeyboardInterrupt
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), step)

        monkeypatch.setattr(_atomic, "step", hook)
        try:
            new.save(folder, format="parquet", partitions=3, progress=False)
        except (SaveError, KeyboardInterrupt):
            pass
        monkeypatch.setattr(_atomic, "step", NO_FAULT)
        assert_result_equal(EvaluationResult.load(folder, progress=False), old if k <= swapped_at else new)
        assert sorted(p.name for p in folder.iterdir()) == expected_names(old, 3)
        if k <= swapped_at:
            assert siblings(folder) == [], (k, steps[k])  # a failed save leaves no leftovers
        new.save(folder, format="parquet", partitions=3, progress=False)
        assert siblings(folder) == [], (k, steps[k])


def _save_and_die_at(folder: str, k: int) -> None:
    calls = []

    def hook(step):
        calls.append(step)
        if len(calls) == k + 1:
            os._exit(1)

    _atomic.step = hook
    new_result().save(Path(folder), format="parquet", partitions=3, progress=False)
    os._exit(0)


@pytest.mark.stress  # a fault sweep (a kill at every step): .ci/run runs it with -m stress
@pytest.mark.skipif(FORK is None, reason="needs the fork start method")
def test_a_kill_at_any_step_leaves_the_old_or_the_new_result_whole(tmp_path):
    steps = save_steps(tmp_path)
    for k in range(len(steps)):
        folder = hand_result().save(tmp_path / f"out{k}", format="parquet", partitions=3, progress=False)
        child = FORK.Process(target=_save_and_die_at, args=(str(folder), k))
        child.start()
        child.join(60)
        assert child.exitcode == 1, (k, steps[k])
        loaded = EvaluationResult.load(_atomic.resolve_for_reading(folder), progress=False)
        expected = [hand_result(), new_result()]
        assert any(all(loaded[node].equals(r[node]) for node in r) and len(loaded["Reader"]) == len(r["Reader"])
                   for r in expected), (k, steps[k])
        new_result().save(folder, format="parquet", partitions=3, progress=False)
        assert siblings(folder) == [], (k, steps[k])


def test_a_refused_cell_is_named_by_its_row_in_the_node_frame_not_in_its_part(tmp_path):
    frames = dict(hand_result().node_results)
    reader = frames["Reader"].copy()
    reader["answer"] = reader["answer"].astype(object)
    reader.loc[5, "answer"] = pd.NA
    with pytest.raises(SaveError, match=r"node 'Reader', column 'answer', row 6: <NA> \(NAType\) cannot be written"):
        EvaluationResult({**frames, "Reader": reader}).save(tmp_path / "out", format="parquet", partitions=3)
    assert not (tmp_path / "out").exists() and siblings(tmp_path / "out") == []


def test_a_custom_index_warns_as_in_a_plain_save_and_an_empty_node_round_trips(tmp_path):
    frames = dict(hand_result().node_results)
    with pytest.warns(UserWarning, match=r"node 'Reader': the frame's index is not a default RangeIndex"):
        EvaluationResult({**frames, "Reader": frames["Reader"].set_axis(range(10, 10 + len(frames["Reader"])))}).save(
            tmp_path / "indexed", format="parquet", partitions=2, progress=False)
    empty = EvaluationResult({**frames, "Reader": frames["Reader"].iloc[:0]})
    folder = empty.save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    assert_result_equal(EvaluationResult.load(folder, progress=False), empty)


def fingerprint(result: EvaluationResult) -> str:
    return str(sorted((node, frame.to_json()) for node, frame in result.node_results.items()))


def _saver(folder: str, which: str, partitions: int, rounds: int) -> None:
    result = hand_result() if which == "old" else new_result()
    for _ in range(rounds):
        result.save(Path(folder), format="parquet", partitions=partitions, progress=False)


def _reader(folder: str, seconds: float, out) -> None:
    import time

    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            seen.append(fingerprint(EvaluationResult.load(Path(folder), progress=False)))
        except Exception as exc:  # noqa: BLE001 - recorded, and the test fails on it
            seen.append(f"error {type(exc).__name__}: {exc}")
    out.put(seen)


@pytest.mark.stress  # a stress loop / scaling check: .ci/run runs it with -m stress
@pytest.mark.skipif(FORK is None, reason="needs the fork start method")
def test_a_reader_never_sees_a_partitioned_folder_half_written(tmp_path):
    # the two savers write different partition counts, so a mix of generations would also mix file sets
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    queue = FORK.Queue()
    savers = [FORK.Process(target=_saver, args=(str(folder), which, n, 10)) for which, n in (("old", 3), ("new", 5))]
    readers = [FORK.Process(target=_reader, args=(str(folder), 3.0, queue)) for _ in range(2)]
    for process in savers + readers:
        process.start()
    seen = [item for _ in readers for item in queue.get(timeout=300)]
    for process in savers + readers:
        process.join(300)
        assert process.exitcode == 0, (process, process.exitcode)
    whole = {fingerprint(hand_result()), fingerprint(new_result())}
    assert seen and set(seen) <= whole, [s for s in seen if s not in whole][:3]
    assert siblings(folder) == []
