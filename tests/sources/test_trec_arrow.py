"""evalframe.sources.trec_arrow: the scores a run file spells, read by pyarrow's CSV reader as float64, are the numbers
the text says (worked out by hand), and every spelling the earlier text-then-cast reading refused is still refused
(None: the pandas path then reads the file and names the line); the shared Arrow ranking helper."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalframe.sources.trec_arrow import RUN_FORMAT, arrow_trec_order, memory_pool, read_arrow, string_array

TAKEN = [("2.5", 2.5), ("1e5", 100000.0), ("1E5", 100000.0), ("+1", 1.0), ("-1", -1.0), (".5", 0.5), ("1.", 1.0),
         ("-.5", -0.5), ("+.5", 0.5), ("00012", 12.0), ("1.5e+3", 1500.0), ("-0", -0.0), ("inf", math.inf),
         ("-inf", -math.inf), ("+inf", math.inf), ("Inf", math.inf), ("INF", math.inf), ("infinity", math.inf),
         ("-Infinity", -math.inf), ("1e400", math.inf), ("0.1e-400", 0.0), ("0.30000000000000004", 0.1 + 0.2),
         ("4.9e-324", 5e-324)]
#: not numbers, or NaN: refused as before ('NA', 'NULL', 'N/A', '#N/A' are not read as missing values either)
REFUSED = ["nan", "NaN", "NAN", "-nan", "nan(1)", "0x10", "0X1", "0x1p3", "1e", "e5", "1e+", "1_0", "1,5", "1d", "1f",
           "١", "−1", "-", "+", "1.0.0", "true", "NULL", "null", "N/A", "NA", "#N/A"]


@pytest.mark.parametrize(("text", "value"), TAKEN)
def test_a_score_spelling_is_read_as_the_number_it_spells(tmp_path, text: str, value: float) -> None:
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 d1 1 {text} tag\nq1 Q0 d2 2 7 tag\n")
    columns = read_arrow(path, RUN_FORMAT)
    assert columns is not None
    assert columns.values.dtype == np.float64
    read = float(columns.values[0])
    assert read == value and math.copysign(1.0, read) == math.copysign(1.0, value)
    assert columns.values[1] == 7.0


@pytest.mark.parametrize("text", REFUSED)
def test_a_score_that_is_no_number_or_nan_leaves_the_file_to_the_pandas_path(tmp_path, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 d2 1 7 tag\nq1 Q0 d1 2 {text} tag\n")
    assert read_arrow(path, RUN_FORMAT) is None


def test_an_empty_score_leaves_the_file_to_the_pandas_path(tmp_path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d2 1 7 tag\nq1 Q0 d1 2  tag\n")
    assert read_arrow(path, RUN_FORMAT) is None


def test_the_readers_allocate_from_the_system_pool() -> None:
    assert memory_pool().backend_name == "system"


def test_the_arrow_ranking_sorts_ties_by_docid_descending_through_codes_or_lines() -> None:
    # q0: 3.0 d1, then 2.0 tied between "b" and "ab" and "c" -> c, b, ab; q1: one line
    docids = string_array(["ab", "c", "d1", "b", "x"])
    query, scores = np.array([0, 0, 0, 0, 1]), np.array([2.0, 2.0, 3.0, 2.0, 1.0])
    assert arrow_trec_order(query, scores, docids).tolist() == [2, 1, 3, 0, 4]
    doc = np.array([4, 3, 2, 1, 0])  # line i's docid at doc[i]: x, b, d1, c, ab -> 3.0 d1, then x, c, b
    assert arrow_trec_order(query, scores, docids, doc).tolist() == [2, 0, 3, 1, 4]
    assert arrow_trec_order(np.array([0, 0, 1]), np.array([2.0, 1.0, 5.0]), docids) is None
