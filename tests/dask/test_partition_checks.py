"""Issue 24: every integrity check a whole load makes on a partitioned folder, evalframe.dask makes too (one rule,
:func:`evalframe.io.partitioned.check_part`, in both readers); a part file of another save is refused by both.

A tampered folder is consistent everywhere but for the one thing tampered (evalframe.json's row counts follow the
files), so only the check under test can refuse it.
"""

from __future__ import annotations

import json
from pathlib import Path

import mmh3
import numpy as np
import pytest

import evalframe.dask
from evalframe import EvaluationResult, InvalidParameterError, LoadError
from evalframe.io import save_parts
from evalframe.io.partitioned import read_partition
from tests.fixtures import hand_result

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ROW = "__evalframe_row__"
N = 3
# tests/fixtures.py, worked out in tests/metrics/test_document_metrics.py (default scope document_id_or_answer): the
# Retriever's reciprocal ranks of q1..q6
HAND_MRR = (1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6


def part_name(node: str, part: int) -> str:
    return f"{node}.part-{part:05d}-of-{N:05d}.parquet"


def partition_of(query: str) -> int:
    """The documented rule, written out here: MurmurHash3 x86_32 of the UTF-8 id, seed 0, unsigned, modulo N."""
    return mmh3.hash(query.encode("utf-8"), 0, signed=False) % N


def generation(folder: Path) -> str:
    return json.loads((folder / "evalframe.json").read_text())["partitioned"]["generation"]


def edit_manifest(folder: Path, edit) -> None:
    manifest = json.loads((folder / "evalframe.json").read_text())
    edit(manifest)
    (folder / "evalframe.json").write_text(json.dumps(manifest))


def both_refuse(folder: Path, message: str, client=None) -> None:
    with pytest.raises(LoadError, match=message):
        EvaluationResult.load(folder, progress=False)
    with pytest.raises(LoadError, match=message):
        evalframe.dask.load(folder, client=client).calculate_metrics()


def move_a_row(folder: Path) -> tuple[int, int]:
    """Move q1's last Retriever row from its partition's file into the next partition's file (kept in key order, the
    file's metadata kept) and fix the two parts' row counts in evalframe.json; the two partition numbers."""
    home = partition_of("q1")
    other = (home + 1) % N
    source, target = pq.read_table(folder / part_name("Retriever", home)), pq.read_table(folder / part_name("Retriever", other))
    last = max(i for i, query in enumerate(source.column("multilabel_id").to_pylist()) if query == "q1")
    moved = pa.concat_tables([target, source.slice(last, 1).cast(target.schema)])
    moved = moved.take(pa.compute.sort_indices(moved.column(ROW)))
    pq.write_table(pa.concat_tables([source.slice(0, last), source.slice(last + 1)]), folder / part_name("Retriever", home))
    pq.write_table(moved, folder / part_name("Retriever", other))

    def counts(manifest):
        parts = manifest["nodes"]["Retriever"]["parts"]
        parts[home]["rows"] -= 1
        parts[other]["rows"] += 1

    edit_manifest(folder, counts)
    return home, other


def test_a_row_moved_into_another_partition_is_refused_by_both_readers(tmp_path, client):
    # was: evalframe.dask evaluated q1 in two partitions (its moved row on its own) with no error
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=N, progress=False)
    assert evalframe.dask.load(folder, client=client).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(HAND_MRR,
                                                                                                             abs=1e-12)
    assert EvaluationResult.load(folder, progress=False).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(HAND_MRR)
    home, other = move_a_row(folder)
    both_refuse(folder, rf"Retriever.part-0000{other}-of-00003.parquet: query 'q1' \(row \d of the file\) lies in "
                        rf"partition {other}, but its multilabel_id belongs to partition {home} of 3 by the hash rule",
                client)


def test_order_keys_repeated_across_part_files_are_refused_by_both_readers(tmp_path):
    clean = hand_result().save(tmp_path / "clean", format="parquet", partitions=N, progress=False)
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=N, progress=False)
    keys = {p: pq.read_table(folder / part_name("Reader", p)).column(ROW).to_pylist() for p in range(N)}
    assert sorted(k for part in keys.values() for k in part) == list(range(8))  # the Reader's 8 row positions
    # a key of another file that fits between two keys of this one (neither 0 nor 7: the range stays 0..7)
    part, row, value = next((p, i, v) for p in range(N) for i in range(1, len(keys[p]) - 1) for q in range(N) if q != p
                            for v in keys[q] if keys[p][i - 1] < v < keys[p][i + 1] and v not in (0, 7))
    table = pq.read_table(folder / part_name("Reader", part))
    changed = keys[part][:row] + [value] + keys[part][row + 1:]
    pq.write_table(table.set_column(table.column_names.index(ROW), ROW, pa.array(changed, pa.int64())),
                   folder / part_name("Reader", part))
    with pytest.raises(LoadError, match=r"the partition files of node 'Reader' hold 8 rows whose '__evalframe_row__' order "
                                        r"keys are not 8 distinct values"):
        EvaluationResult.load(folder, progress=False)
    message = r"out: the '__evalframe_row__' order keys of node 'Reader' are not the 8 distinct row positions 0..7 "
    with pytest.raises(LoadError, match=message):
        evalframe.dask.load(folder).calculate_metrics()
    with pytest.raises(LoadError, match=message):  # compare's tasks check the keys of both runs
        evalframe.dask.compare(evalframe.dask.load(clean), evalframe.dask.load(folder), node="Reader", metrics="f1")


def flipped() -> EvaluationResult:
    """The hand result with each query's retrieved documents in reverse rank order: the same shape, other numbers."""
    frames = dict(hand_result().node_results)
    ranks = frames["Retriever"]["rank"]
    frames["Retriever"] = frames["Retriever"].assign(
        rank=ranks.groupby(frames["Retriever"]["multilabel_id"]).transform("max") + 1 - ranks)
    return EvaluationResult(frames)


def test_a_part_file_copied_from_another_save_is_refused_by_both_readers(tmp_path):
    # was: both readers took the copied part, and gave the numbers of neither save
    a = hand_result().save(tmp_path / "a", format="parquet", partitions=N, progress=False)
    b = flipped().save(tmp_path / "b", format="parquet", partitions=N, progress=False)
    # reversed, the first relevant document of q1 (d1 again, was d3), q3 (d6, was rank 3) and q6 (d12, was rank 2) is
    # at rank 1; q2 and q4 keep 1, q5 keeps 0
    assert EvaluationResult.load(b, progress=False).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(
        (1 + 1 + 1 + 1 + 0 + 1) / 6)
    name = part_name("Retriever", partition_of("q1"))
    assert pq.read_metadata(a / name).num_rows == pq.read_metadata(b / name).num_rows  # same shape: only the save differs
    (a / name).write_bytes((b / name).read_bytes())
    both_refuse(a, rf"{name}: this part file was written by the save of generation '{generation(b)}', but the folder "
                   rf"is the save of generation '{generation(a)}' \(evalframe.json\); it was copied in from another save")


def strip_generations(folder: Path) -> None:
    """The folder as evalframe wrote it before part files recorded their generation."""
    for path in folder.glob("*.parquet"):
        pq.write_table(pq.read_table(path).replace_schema_metadata(None), path)


def test_a_folder_written_before_parts_recorded_their_generation_still_loads(tmp_path):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=N, progress=False)
    assert {pq.read_schema(p).metadata[b"evalframe.generation"].decode() for p in folder.glob("*.parquet")} == \
        {generation(folder)}
    strip_generations(folder)
    edit_manifest(folder, lambda manifest: manifest["partitioned"].pop("generation_in_parts"))
    assert EvaluationResult.load(folder, progress=False).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(HAND_MRR)
    assert evalframe.dask.load(folder).calculate_metrics()["Retriever"]["mrr"] == pytest.approx(HAND_MRR, abs=1e-12)


def test_a_part_without_a_generation_in_a_folder_whose_parts_record_it_is_refused(tmp_path):
    folder = hand_result().save(tmp_path / "out", format="parquet", partitions=N, progress=False)
    name = part_name("Reader", partition_of("q1"))
    pq.write_table(pq.read_table(folder / name).replace_schema_metadata(None), folder / name)
    both_refuse(folder, rf"{name}: this part file records no generation, but every part file of the save of this "
                        rf"folder does \(generation '{generation(folder)}', evalframe.json\)")


def test_a_folder_built_part_by_part_records_its_generation_in_every_part(tmp_path):
    from evalframe.io import save_parts
    from evalframe.io.partitioned import partition_of_ids, write_part

    result = hand_result()

    def write_parts(staging):
        written = {}
        for node, frame in result.node_results.items():
            numbers = partition_of_ids(frame["multilabel_id"], N)
            written[node] = [write_part(staging, node, p, N, frame[numbers == p].assign(**{ROW: np.flatnonzero(numbers == p)}))
                             for p in range(N)]
        return written

    folder = save_parts(tmp_path / "out", N, write_parts)
    assert sorted(p.name for p in folder.iterdir()) == sorted([part_name(node, p) for node in result for p in range(N)]
                                                              + ["evalframe.json"])  # the staging marker is gone
    assert {pq.read_schema(p).metadata[b"evalframe.generation"].decode() for p in folder.glob("*.parquet")} == \
        {generation(folder)}


@pytest.mark.parametrize("bad", [None, 3, b"/tmp/out", ""])
def test_load_names_a_load_dir_that_is_not_a_path(bad):
    with pytest.raises(InvalidParameterError, match=r"load_dir must be the path of a partitioned results folder \(a str "
                                                    r"or a pathlib.Path\); got "):
        evalframe.dask.load(bad)


@pytest.mark.parametrize("call, parameter", [
    (lambda path: evalframe.dask.load(path), "load_dir"),
    (lambda path: read_partition(path, 0), "path"),
    (lambda path: evalframe.dask.from_runs(["runs.jsonl"], path, partitions=2), "out_dir"),
    (lambda path: save_parts(path, 2, lambda staging: {}), "out_dir"),
], ids=["dask.load", "read_partition", "dask.from_runs", "save_parts"])
def test_a_path_with_a_nul_character_is_named_before_any_work(tmp_path, call, parameter):
    # was: the os module's bare ValueError ('embedded null byte')
    with pytest.raises(InvalidParameterError, match=rf"^{parameter} must be a path without a NUL character"):
        call(str(tmp_path / "a\x00b"))
    assert list(tmp_path.iterdir()) == []
