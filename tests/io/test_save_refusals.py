"""What load would refuse, save refuses first (issue 24, item 5).

Every refusal is checked to leave no folder behind (nor the parent folders it would have made) and an old folder
byte for byte as it was.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvaluationResult, LoadError, SaveError
from evalframe.io.codecs import LITERAL_CELL_LIMIT


def _texts_and_floats() -> pd.DataFrame:
    """Only text, literal and float64 columns, so pyarrow's reader takes the file (when it takes the separator)."""
    return pd.DataFrame({
        "multilabel_id": ["q1", "q,2", "q;3"],
        "context": ['a "quoted" text,\r\nwith; tabs\t|pipes|', "é ü \u2028 \x85 \ufeff 😀 0.5 nan", ""],
        "score": [0.5, math.nan, -0.0],
        "gold_document_ids": [["d1"], [], ["d'2", 'd"3', "e,f"]],
        "answer": ["x", None, "y"],
    })


def _with_ints() -> pd.DataFrame:
    """An int64 and a bool column besides: pandas' reader reads the file."""
    return _texts_and_floats().assign(rank=[1, 2, 3], flag=[True, False, True])


def _assert_refused_without_writing(tmp_path: Path, save, error, message: str) -> None:
    """``save(folder)`` raises ``error`` matching ``message`` for a new folder (none is made, nor its parent) and
    for an existing one (left byte for byte as it was)."""
    with pytest.raises(error, match=message):
        save(tmp_path / "parent" / "new")
    assert not (tmp_path / "parent").exists()
    old = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "old")
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    with pytest.raises(error, match=message):
        save(old)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # no staging folder left beside it


# ------------------------------------------------------------------------------ item 5 (a): long literal cells
_LONG = "x" * (LITERAL_CELL_LIMIT + 10)


@pytest.mark.parametrize("format", ["csv", "parquet"])
@pytest.mark.parametrize("column, cells, row, fix", [
    # None and "" in one text column: its cells are written as literals, a long text as one long string literal
    ("context", ["short", None, _LONG, ""], 3, "give the column one kind of missing value"),
    ("context", ["a\x00" + _LONG], 1, "no NUL character"),
    ("meta", [None, {"text": _LONG}], 2, "store it as a list of strings or of numbers"),
    ("flags", [[True, False] * (LITERAL_CELL_LIMIT // 10)], 1, "store it as a list of strings or of numbers"),
])
def test_a_long_literal_cell_load_would_refuse_is_refused_by_save(tmp_path, format, column, cells, row, fix):
    frame = pd.DataFrame({column: pd.Series(cells, dtype=object)})
    length = len(repr(cells[row - 1]))
    assert length > LITERAL_CELL_LIMIT
    message = (rf"node 'N', column '{column}', row {row}: the cell is written as a Python literal of {length:,} "
               rf"characters, and load reads literals over 1,048,576 characters \(1 MiB\) only when .*{fix}")
    if format == "parquet" and column == "flags":  # a list of bools is stored as a Parquet list: no literal
        folder = EvaluationResult({"N": frame}).save(tmp_path / "out", format=format)
        pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)
        return
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": frame}).save(folder, format=format), SaveError, message)


def test_a_long_literal_cell_is_refused_in_a_partitioned_save_naming_the_nodes_row(tmp_path):
    frame = pd.DataFrame({"multilabel_id": ["q1", "q2", "q3"], "meta": pd.Series([None, None, {"t": _LONG}])})
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": frame}).save(folder, format="parquet", partitions=2),
        SaveError, r"node 'N', column 'meta', row 3: the cell is written as a Python literal")


@pytest.mark.parametrize("format", ["csv", "parquet"])
def test_long_literal_cells_load_reads_are_saved_and_load_back(tmp_path, format):
    strings = [_LONG, "it's", 'say "hi"\n']  # a list of strings: read string by string
    numbers = [[i, i + 0.5] for i in range(100_000)]  # numbers and lists: read as JSON
    frame = pd.DataFrame({"gold_contexts": pd.Series([strings, None, strings]),
                          "nested": pd.Series([numbers, [], None])})
    assert len(repr(strings)) > LITERAL_CELL_LIMIT and len(repr(numbers)) > LITERAL_CELL_LIMIT
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out", format=format)
    loaded = EvaluationResult.load(folder)["N"]
    assert loaded["gold_contexts"][0] == strings and loaded["nested"][0] == numbers
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)


def test_loads_refusal_of_a_long_literal_is_worded_once(tmp_path):
    # the refusal (a LoadError, so a ValueError) was caught again as a parse error and wrapped in a second message
    frame = pd.DataFrame({"meta": pd.Series([{"k": "short"}])})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    path = folder / "N.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("'short'", "'" + "y" * LITERAL_CELL_LIMIT + "'"),
                    encoding="utf-8")
    with pytest.raises(LoadError) as caught:
        EvaluationResult.load(folder)
    cell = "{'k': '" + "y" * LITERAL_CELL_LIMIT + "'}"
    assert str(caught.value).startswith(f"{path}: data row 1, column 'meta': the cell holds {len(cell)} characters; ")
    assert "cannot parse" not in str(caught.value) and str(caught.value).count(str(path)) == 1
