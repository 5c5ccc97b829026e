"""The modules split out of io/codecs.py, io/csv.py and frames/arrays.py: the literal parser's limit and the steps of
the Arrow string keys, on values worked out by hand (the old import paths are gone: tests/test_removed_forms.py)."""

from __future__ import annotations


import numpy as np

from evalframe.frames import hashing


def test_the_literal_cell_limit_is_one_mebibyte():
    from evalframe.io.literals import LITERAL_CELL_LIMIT

    assert LITERAL_CELL_LIMIT == 1024 * 1024


def _words(data: bytes) -> tuple[np.ndarray, int]:
    """The 8 bytes from each byte on as little-endian words, and the last byte such a word may start at."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    last = len(data) - 8
    return np.ndarray(shape=(last + 1,), dtype="<u8", buffer=buffer, strides=(1,)), last


def test_a_word_read_past_the_end_starts_earlier_and_is_shifted_down():
    words, last = _words(b"abcdefghij")  # 10 bytes: a read may start at byte 0, 1 or 2
    assert last == 2
    starts = np.array([0, 1, 5], dtype=np.int64)
    got, idx = np.empty(3, dtype=np.uint64), np.empty(3, dtype=np.int64)
    hashing._read_words(words, last, starts, 0, idx, got, every=True)
    # byte 5 on holds only "fghij": read from byte 2 ("cdefghij") and shifted down by 3 bytes
    assert got.tolist() == [int.from_bytes(b"abcdefgh", "little"), int.from_bytes(b"bcdefghi", "little"),
                            int.from_bytes(b"fghij", "little")]
    rows = np.array([2, 0], dtype=np.int64)  # a few rows, in any order
    hashing._read_words(words, last, starts[rows], 1, idx[:2], got[:2], every=False)
    assert got[:2].tolist() == [int.from_bytes(b"ghij", "little"), int.from_bytes(b"bcdefghi", "little")]


def test_a_word_keeps_only_the_bytes_of_its_own_value():
    got = np.array([int.from_bytes(b"abcdefgh", "little")] * 3, dtype=np.uint64)
    lengths = np.array([3, 8, 11], dtype=np.int64)  # from byte 0: 3 own bytes, 8, all 8 of the first word
    hashing._keep_own_bytes(got, lengths, 0, np.empty(3, dtype=np.int64), np.empty(3, dtype=np.uint64))
    assert got.tolist() == [int.from_bytes(b"abc", "little"), int.from_bytes(b"abcdefgh", "little"),
                            int.from_bytes(b"abcdefgh", "little")]


def test_only_the_rows_with_bytes_left_are_read_once_few_are():
    lengths = np.array([1, 2, 30, 3, 40, 2, 1, 2, 1, 2], dtype=np.int64)  # 2 of 10 values go on past byte 8
    assert hashing._rows_left(lengths, 0, 1, None) is None  # every row still reads its first word
    assert hashing._rows_left(lengths, 8, 1, None).tolist() == [2, 4]  # 4 * 2 < 10: only theirs
    assert hashing._rows_left(lengths, 32, 1, np.array([2, 4])).tolist() == [4]
    assert hashing._rows_left(np.array([9, 9, 1, 1, 1, 1, 1, 1], dtype=np.int64), 8, 1, None) is None  # 4 * 2 = 8
