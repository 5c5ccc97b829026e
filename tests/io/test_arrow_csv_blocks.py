"""CSV text cells of hundreds of kilobytes load exactly on every load (issue 24, item 1).

Two causes, both in how evalframe used pyarrow's CSV reader (:mod:`evalframe.io.arrow_csv`):

* Arrow read the opened file object itself, and its read-ahead tasks kept calling ``read`` after the reader had
  raised (a row longer than two blocks: "straddling object straddles two block boundaries"); pandas, which reads
  the same handle next, lost blocks to them now and then: a refused load, or a cell cut short.
* Arrow drops the "\\n" that starts a block after a block ending with "\\r", even inside a quoted cell
  (apache/arrow#51368): a text with "\\r\\n" across a 1 MiB boundary came back one character short.
"""

from __future__ import annotations

import csv
import io
import pathlib

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.io import arrow_csv

_MIB = 1 << 20


class _CountingReader(io.BufferedReader):
    """A file opened for reading that counts the calls reading from it."""

    reads = 0

    def read(self, *args):  # type: ignore[override]
        self.reads += 1
        return super().read(*args)

    def read1(self, *args):  # type: ignore[override]
        self.reads += 1
        return super().read1(*args)

    def readinto(self, buffer):  # type: ignore[override]
        self.reads += 1
        return super().readinto(buffer)


def _text_specs(*names: str) -> list[dict[str, str]]:
    return [{"name": name, "codec": "text", "dtype": "object", "empty": "empty"} for name in names]


@pytest.mark.parametrize("cell_length, arrow_reads_it", [(500_000, True), (2_500_000, False)])
def test_arrow_never_reads_the_handle_pandas_falls_back_on(tmp_path, cell_length, arrow_reads_it):
    # a row longer than two of Arrow's 1 MiB blocks makes Arrow give up; its read-ahead must not have the handle
    path = tmp_path / "N.csv"
    cell = "x" * cell_length
    path.write_bytes(f'"context"\n"{cell}"\n"{cell}"\n'.encode())
    with _CountingReader(io.FileIO(path)) as source:
        frame = arrow_csv.read_csv(source, path, _text_specs("context"), {}, {})
        assert source.reads == 0
        assert (frame is not None) is arrow_reads_it
        source.seek(0)
        assert source.read() == path.read_bytes()  # the pandas reader's handle, whole
    if frame is not None:
        assert frame["context"].tolist() == [cell, cell]


def test_a_quoted_crlf_across_arrows_block_boundary_keeps_its_newline(tmp_path):
    # the file: '"context"\n' (10 bytes), '"' + first + '"\n', '"' + second + '"\n'; the "\r" of second's "\r\n"
    # is placed at byte 1 MiB - 1, the last byte of Arrow's first block
    first = "a" * 600_000
    before = _MIB - 1 - (10 + len(first) + 3 + 1)
    second = "b" * before + "\r\n" + "c" * 10
    frame = pd.DataFrame({"context": [first, second]}, dtype=object)
    folder = EvaluationResult({"N": frame}).save(tmp_path / "r")
    data = (folder / "N.csv").read_bytes()
    assert data[_MIB - 1:_MIB + 1] == b"\r\n" and data.count(b"\r\n") == 1
    loaded = EvaluationResult.load(folder)["N"]
    assert [len(text) for text in loaded["context"]] == [600_000, before + 12]
    assert loaded["context"][1][before:before + 2] == "\r\n"
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)


@pytest.mark.parametrize("sep", [",", ";", "\t"])
@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_NONNUMERIC, csv.QUOTE_ALL])
def test_line_breaks_on_every_block_boundary_read_exactly_with_small_blocks(monkeypatch, sep, quoting):
    # with 64-byte blocks, "\r\n" inside quotes (and QUOTE_MINIMAL's "\r\n" line ends) fall on the boundaries at
    # every offset: Arrow reads each file exactly, or leaves it to pandas (None), never one character short
    monkeypatch.setattr(arrow_csv, "_BLOCK_SIZE", 64)
    terminator = "\r\n" if quoting == csv.QUOTE_MINIMAL else "\n"
    read_by_arrow = 0
    for pad in range(70):
        rows = [["p" * pad, "q"], ["a\r\nb\r\n" * 3, "c\rd\ne"], ["\r\n", 'say "\r\n"' + sep]]
        text = io.StringIO()
        csv.writer(text, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator=terminator).writerow(["u", "v"])
        csv.writer(text, delimiter=sep, quoting=quoting, lineterminator=terminator).writerows(rows)
        data = text.getvalue().encode()
        frame = arrow_csv.read_csv(io.BytesIO(data), pathlib.Path("N.csv"), _text_specs("u", "v"), {"sep": sep}, {})
        if frame is not None:
            read_by_arrow += 1
            assert frame.astype(object).values.tolist() == rows, pad
    assert read_by_arrow > 30


def test_a_line_end_across_a_block_boundary_keeps_arrows_reader_and_a_quoted_crlf_does_not(monkeypatch):
    # QUOTE_MINIMAL ends every line with "\r\n": cuts on line ends are common in large files and harmless (Arrow
    # skips the "\n" of a line end rightly); only a cut inside quotes must move the blocks
    monkeypatch.setattr(arrow_csv, "_BLOCK_SIZE", 64)
    monkeypatch.setattr(arrow_csv, "_BLOCK_SIZES_TRIED", 1)
    line_end = b'"u"\r\n' + b"a" * 58 + b"\r\nb\r\n"  # the "\r" of the first row's line end is byte 63
    quoted = b'"u"\r\n"' + b"a" * 57 + b'\r\nb"\r\n'  # the "\r" of a quoted "\r\n" is byte 63
    for data, rows in ((line_end, ["a" * 58, "b"]), (quoted, ["a" * 57 + "\r\nb"])):
        assert data[63:65] == b"\r\n"
        frame = arrow_csv.read_csv(io.BytesIO(data), pathlib.Path("N.csv"), _text_specs("u"), {}, {})
        if data is quoted:
            assert frame is None  # the one size allowed cuts the quoted "\r\n": pandas reads the file
        else:
            assert frame is not None and frame["u"].tolist() == rows


@pytest.mark.stress
@pytest.mark.parametrize("sep", [",", ";", "\t"])
@pytest.mark.parametrize("quoting", [None, csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
def test_folders_of_long_text_cells_load_exactly_every_time(tmp_path, sep, quoting):
    # the folder (cells of 0.5 and 1 million characters: rows beyond Arrow's blocks) and cells of documents
    # with "\r\n" and quotes, loaded again and again: each load equals the saved frame
    big, half = "x" * 1_000_000, "x" * 500_000
    page = ('A "quoted" line, then CRLF\r\nand LF\nand CR\r' + sep) * 5_000
    frames = {
        "N": pd.DataFrame({"None": [big] * 5, "None_1": [half, half, big, big, big]}, dtype=object),
        "D": pd.DataFrame({"context": [page[:n] for n in (210_000, 250_001, 333_333, 180_007, 290_000)],
                           "score": [0.5, 0.25, 1.0, 0.0, -0.0]}),
    }
    options = {"sep": sep} if quoting is None else {"sep": sep, "quoting": quoting}
    folder = EvaluationResult(frames).save(tmp_path / "r", **options)
    for _ in range(8):
        loaded = EvaluationResult.load(folder)
        for node, frame in frames.items():
            pd.testing.assert_frame_equal(loaded[node], frame, check_exact=True)
