"""Partitioned folders written part by part (as Dask workers write them) and read one partition at a time."""

from __future__ import annotations

import json

import mmh3
import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, LoadError, SaveError
from evalframe.io import save_parts
from evalframe.io.partitioned import ROW_COLUMN, partition_of_ids, read_partition, write_part
from tests.fixtures import hand_result


def by_hand(key: str, partitions: int) -> int:
    return mmh3.hash(key.encode("utf-8"), 0, signed=False) % partitions


def test_partition_of_ids_is_the_documented_murmur3_rule():
    ids = ["q1", "q2", "q1", "ärger", "q3"]
    assert partition_of_ids(ids, 7).tolist() == [by_hand(key, 7) for key in ids]


def write_in_pieces(result: EvaluationResult, partitions: int, shuffle_keys: bool = False):
    """A writer as a cluster runs it: each (node, partition) written on its own, order keys not 0..n-1."""

    def write_parts(staging):
        written = {}
        for node, frame in result.node_results.items():
            parts = partition_of_ids(frame["multilabel_id"], partitions)
            keys = np.arange(len(frame), dtype=np.int64) * 1000 + 7  # unique, increasing, not positions
            entries = []
            for number in range(partitions):
                piece = frame[parts == number].copy()
                piece[ROW_COLUMN] = keys[parts == number]
                if shuffle_keys:
                    piece = piece.iloc[::-1]
                entries.append(write_part(staging, node, number, partitions, piece))
            written[node] = entries
        return written

    return write_parts


@pytest.mark.parametrize("partitions", [1, 3])
def test_a_folder_written_part_by_part_loads_whole_as_the_result(tmp_path, partitions):
    result = hand_result()
    out = save_parts(tmp_path / "out", partitions, write_in_pieces(result, partitions, shuffle_keys=True),
                     matching=result.matching)
    loaded = EvaluationResult.load(out, progress=False)
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], result[node].reset_index(drop=True))
    assert loaded.calculate_metrics() == result.calculate_metrics()


def test_read_partition_reads_one_partition_of_every_node_in_key_order(tmp_path):
    result = hand_result()
    out = result.save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    generation = json.loads((out / "evalframe.json").read_text())["partitioned"]["generation"]
    for number in range(3):
        part = read_partition(out, number, generation)
        for node, frame in result.node_results.items():
            mask = np.array([by_hand(key, 3) == number for key in frame["multilabel_id"]])
            assert part.keys[node].tolist() == np.flatnonzero(mask).tolist()
            pd.testing.assert_frame_equal(part.frames[node], frame[mask].reset_index(drop=True))
    only = read_partition(out, 0, generation, nodes=["Reader"])
    assert list(only.frames) == ["Reader"]


def test_a_folder_saved_again_is_refused_by_generation_not_mixed(tmp_path):
    result = hand_result()
    out = result.save(tmp_path / "out", format="parquet", partitions=3, progress=False)
    generation = json.loads((out / "evalframe.json").read_text())["partitioned"]["generation"]
    result.save(out, format="parquet", partitions=3, progress=False)
    with pytest.raises(LoadError, match=r"was saved again while it was being read .* load it again"):
        read_partition(out, 1, generation)


def test_read_partition_names_a_plain_folder_and_a_partition_out_of_range(tmp_path):
    result = hand_result()
    plain = result.save(tmp_path / "plain", format="parquet", progress=False)
    with pytest.raises(LoadError, match=r"is not a partitioned results folder; save it with .*partitions=N"):
        read_partition(plain, 0)
    out = result.save(tmp_path / "out", format="parquet", partitions=2, progress=False)
    with pytest.raises(LoadError, match=r"has 2 partitions; there is no partition 2"):
        read_partition(out, 2)


def test_a_row_in_the_wrong_partition_is_refused_and_the_target_kept(tmp_path):
    result = hand_result()
    old = result.save(tmp_path / "out", format="parquet", partitions=2, progress=False)
    before = sorted(p.name for p in old.iterdir())

    def write_parts(staging):
        frame = result["Reader"].copy()
        frame[ROW_COLUMN] = np.arange(len(frame))
        return {"Reader": [write_part(staging, "Reader", 0, 2, frame), write_part(staging, "Reader", 1, 2, frame)]}

    wrong = next(key for key in result["Reader"]["multilabel_id"] if by_hand(key, 2) != 0)
    with pytest.raises(SaveError, match=rf"query '{wrong}' belongs to partition 1 of 2, not 0"):
        save_parts(old, 2, write_parts)
    assert sorted(p.name for p in old.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_missing_partition_or_a_failing_worker_leaves_the_target_as_it_was(tmp_path):
    result = hand_result()
    old = result.save(tmp_path / "out", format="parquet", partitions=2, progress=False)
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    one_part = write_in_pieces(result, 2)

    def too_few(staging):
        return {node: parts[:1] for node, parts in one_part(staging).items()}

    with pytest.raises(SaveError, match=r"node 'Retriever': 1 partition files were written, not 2"):
        save_parts(old, 2, too_few)

    def worker_fails(staging):
        one_part(staging)
        raise RuntimeError("a worker died")

    with pytest.raises(RuntimeError, match="a worker died"):
        save_parts(old, 2, worker_fails)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("where", ["one file", "two files"])
def test_duplicate_order_keys_are_a_damaged_folder(tmp_path, where):
    result = hand_result()

    def write_parts(staging):
        written = {}
        for node, frame in result.node_results.items():
            parts = partition_of_ids(frame["multilabel_id"], 2)
            entries = []
            for number in range(2):
                piece = frame[parts == number].copy()
                keys = np.flatnonzero(parts == number)
                if node == "Reader":  # 0 on every row of a file, or 0, 1, ... in each file
                    keys = np.zeros(len(piece), np.int64) if where == "one file" else np.arange(len(piece))
                piece[ROW_COLUMN] = keys
                entries.append(write_part(staging, node, number, 2, piece))
            written[node] = entries
        return written

    out = save_parts(tmp_path / "out", 2, write_parts)
    message = (r"Reader.part-0000\d-of-00002.parquet: the order keys \('__evalframe_row__'\) must be distinct and "
               r"increasing; row 2 of the file holds 0 after 0" if where == "one file" else
               r"node 'Reader' hold \d+ rows whose '__evalframe_row__' order keys are not \d+ distinct values")
    with pytest.raises(LoadError, match=message):
        EvaluationResult.load(out, progress=False)


def test_missing_cells_keep_their_kind_across_partitions(tmp_path):
    # a partition whose object column is all missing: pandas 2.2's concat turned its NaN into None on a whole load
    frame = pd.DataFrame({"multilabel_id": [f"q{i}" for i in range(12)], "type": "answer", "eval_mode": "integrated",
                          "rank": 1, "notes": pd.Series([None if i % 3 == 0 else np.nan for i in range(11)] + [[{"a": 1}]],
                                                        dtype=object)})
    loaded = EvaluationResult.load(EvaluationResult({"R": frame}).save(tmp_path / "out", format="parquet", partitions=7,
                                                                       progress=False), progress=False)
    assert [repr(v) for v in loaded["R"]["notes"]] == [repr(v) for v in frame["notes"]]


@pytest.mark.parametrize("generation", [5, ""])
def test_a_generation_that_is_not_a_non_empty_text_is_refused_before_writing(tmp_path, generation):
    # was: pyarrow's bare TypeError for 5; "" wrote a part every load then refused as copied from another save
    with pytest.raises(InvalidParameterError, match=r"^generation must be None or a non-empty str"):
        write_part(tmp_path, "Reader", 0, 2, pd.DataFrame(), generation=generation)
    assert list(tmp_path.iterdir()) == []
