"""evalframe.sources.trec_arrow, the one TREC reader: the scores a run file spells are the numbers the text says (worked
out by hand), every other spelling is refused naming the line; single-space lines (pyarrow's CSV reader) and irregular
ones (Arrow's string kernels) give the same columns; a docid twice in a query is refused in the batch it is in, or,
across batches, once the file is read, naming both lines; the shared Arrow ranking helper."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

from evalframe.errors import LoadError
from evalframe.sources import trec_arrow
from evalframe.sources.trec_arrow import (QRELS_FORMAT, RUN_FORMAT, arrow_trec_order, memory_pool, read_arrow,
                                          string_array)

TAKEN = [("2.5", 2.5), ("1e5", 100000.0), ("1E5", 100000.0), ("+1", 1.0), ("-1", -1.0), (".5", 0.5), ("1.", 1.0),
         ("-.5", -0.5), ("+.5", 0.5), ("00012", 12.0), ("1.5e+3", 1500.0), ("-0", -0.0), ("inf", math.inf),
         ("-inf", -math.inf), ("+inf", math.inf), ("Inf", math.inf), ("INF", math.inf), ("infinity", math.inf),
         ("-Infinity", -math.inf), ("1e400", math.inf), ("0.1e-400", 0.0), ("0.30000000000000004", 0.1 + 0.2),
         ("4.9e-324", 5e-324)]
#: not numbers, or NaN: refused ('NA', 'NULL', 'N/A', '#N/A' are not read as missing values either)
REFUSED = ["nan", "NaN", "NAN", "-nan", "nan(1)", "0x10", "0X1", "0x1p3", "1e", "e5", "1e+", "1_0", "1,5", "1d", "1f",
           "١", "−1", "-", "+", "1.0.0", "true", "NULL", "null", "N/A", "NA", "#N/A"]


@pytest.mark.parametrize(("text", "value"), TAKEN)
@pytest.mark.parametrize("separator", [" ", "\t"], ids=["csv reader", "string kernels"])
def test_a_score_spelling_is_read_as_the_number_it_spells(tmp_path, text: str, value: float, separator: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 d1 1 {text}{separator}tag\nq1 Q0 d2 2 7 tag\n")
    columns = read_arrow(path, RUN_FORMAT)
    assert columns.values.dtype == np.float64
    read = float(columns.values[0])
    assert read == value and math.copysign(1.0, read) == math.copysign(1.0, value)
    assert columns.values[1] == 7.0


@pytest.mark.parametrize("text", REFUSED)
@pytest.mark.parametrize("separator", [" ", "\t"], ids=["csv reader", "string kernels"])
def test_a_score_that_is_no_number_or_nan_is_refused_naming_the_line(tmp_path, text: str, separator: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 d2 1 7 tag\nq1 Q0 d1 2 {text}{separator}tag\n")
    with pytest.raises(LoadError) as caught:
        read_arrow(path, RUN_FORMAT)
    assert str(caught.value) == f"{path}:2: the score (column 5) must be a number; got {text!r}."


def test_an_empty_score_is_a_missing_column(tmp_path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d2 1 7 tag\nq1 Q0 d1 2  tag\n")
    with pytest.raises(LoadError, match=r"run\.txt:2: a TREC run line has 6 whitespace-separated columns `qid Q0 docid "
                                        r"rank score tag`; this one has 5: 'q1 Q0 d1 2  tag'\.$"):
        read_arrow(path, RUN_FORMAT)


@pytest.mark.parametrize("line", [b"q1 Q0 d1 2 1.5 \n", b" q1 Q0 d1 1.5 tag\n", b"q1 Q0 d1 2 1.5 \r\n"],
                         ids=["a trailing space for the tag", "a leading space", "a trailing space, CRLF"])
def test_a_line_of_five_columns_and_a_space_is_refused_whatever_the_rest_of_the_file(tmp_path, line: bytes) -> None:
    """Five columns and a space at an end: pyarrow's CSV reader would read six (one empty); refused alike in a file
    of single spaces and in a file with a tab (the old Arrow path took the first, the pandas path refused the second)."""
    for rest in (b"q1 Q0 d2 2 1.0 tag\n", b"q1\tQ0 d2 2 1.0 tag\n"):
        path = tmp_path / "run.txt"
        path.write_bytes(line + rest)
        with pytest.raises(LoadError, match=r"run\.txt:1: a TREC run line has 6 whitespace-separated columns .*; this "
                                            r"one has 5: "):
            read_arrow(path, RUN_FORMAT)


GRADES = [("0", 0), ("-1", -1), ("+2", 2), ("007", 7), ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -2**63)]


@pytest.mark.parametrize(("text", "value"), GRADES)
@pytest.mark.parametrize("separator", [" ", "\t"], ids=["csv reader", "string kernels"])
def test_a_grade_is_the_integer_it_spells(tmp_path, text: str, value: int, separator: str) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 d1{separator}{text}\nq1 0 d2 1\n")
    columns = read_arrow(path, QRELS_FORMAT)
    assert columns.values.dtype == np.int64 and columns.values.tolist() == [value, 1]


@pytest.mark.parametrize(("text", "message"), [
    ("1.5", "the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 for unjudged); got '1.5'. If these "
            "are preference judgments"),
    ("0x1", "the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 for unjudged); got '0x1'."),
    ("9223372036854775808", "the relevance grade '9223372036854775808' is too large (64-bit integers)."),
])
def test_a_grade_that_is_no_64_bit_integer_is_refused_naming_the_line(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 d2 1\nq1 0 d1 {text}\n")
    with pytest.raises(LoadError) as caught:
        read_arrow(path, QRELS_FORMAT)
    assert str(caught.value).startswith(f"{path}:2: {message}")


def test_single_space_lines_and_irregular_ones_give_the_same_columns(tmp_path) -> None:
    """The same run written with single spaces (pyarrow's CSV reader) and with tabs, runs of blanks, indented and
    trailing blanks, CRLF and a seventh column (Arrow's string kernels): the same columns, by hand."""
    lines = [("q2", "d9", "3.5"), ("q2", "d1", "2"), ("q1", "d9", "1e-3"), ("q2", "d3", "-inf")]
    plain = "".join(f"{q} Q0 {d} 1 {s} tag\n" for q, d, s in lines)
    irregular = "".join(f"  {q}\t Q0  {d}\t1 {s} tag  extra \t\r\n" for q, d, s in lines)
    for text in (plain, irregular):
        (tmp_path / "run").write_text(text, newline="")
        columns = read_arrow(tmp_path / "run", RUN_FORMAT)
        assert columns.qids.to_pylist() == ["q2", "q1"] and columns.qid_codes.tolist() == [0, 0, 1, 0]
        assert columns.docids.to_pylist() == ["d9", "d1", "d3"] and columns.docid_codes.tolist() == [0, 1, 0, 2]
        assert columns.values.tolist() == [3.5, 2.0, 0.001, -math.inf]


def _small_batches(monkeypatch, size: int = 64) -> None:
    monkeypatch.setattr(trec_arrow, "_BATCH", size)
    monkeypatch.setattr(trec_arrow, "_PIECE", size // 2)


@pytest.mark.parametrize("tabs", [False, True], ids=["csv reader", "string kernels"])
def test_a_docid_twice_in_a_batch_or_across_batches_names_both_lines(tmp_path, monkeypatch, tabs: bool) -> None:
    """Batches of about 64 bytes (three lines of 18): a repeat within a batch, across batches of one query, and a
    docid in several queries (no repeat); the line of the repeat and of its first appearance, by hand."""
    _small_batches(monkeypatch)
    def write(lines: list[str]) -> None:
        text = "".join(f"{line}\n" for line in lines)
        (tmp_path / "run").write_text(text.replace(" ", "\t") if tabs else text)

    base = [f"q{q} Q0 d{d} 1 1.0 r" for q, d in ((1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (3, 1))]
    write(base)
    assert read_arrow(tmp_path / "run", RUN_FORMAT).docid_codes.tolist() == [0, 1, 2, 3, 0, 1, 2, 0]
    for at, (q, d), first in ((2, (1, 1), 1), (5, (1, 2), 2), (9, (2, 1), 5)):
        lines = list(base)
        lines.insert(at - 1, f"q{q} Q0 d{d} 9 0.5 r")
        write(lines)
        with pytest.raises(LoadError) as caught:
            read_arrow(tmp_path / "run", RUN_FORMAT)
        assert str(caught.value) == (f"{tmp_path / 'run'}:{at}: document 'd{d}' appears twice in query 'q{q}' (first on "
                                     f"line {first}); trec_eval refuses a run with duplicate documents (\"duplicate docs\")."
                                     " Keep one of the lines.")


def test_a_docid_repeated_before_a_bad_line_of_a_later_batch_is_named_first(tmp_path, monkeypatch) -> None:
    """The first problem in file order: a repeat across batches (line 5 repeats line 1) before a bad score (line 8)."""
    _small_batches(monkeypatch)
    lines = ["q1 Q0 d1 1 1.0 r", "q1 Q0 d2 1 1.0 r", "q1 Q0 d3 1 1.0 r", "q1 Q0 d4 1 1.0 r", "q1 Q0 d1 1 1.0 r",
             "q1 Q0 d6 1 1.0 r", "q1 Q0 d7 1 1.0 r", "q1 Q0 d8 1 x r"]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    with pytest.raises(LoadError, match=r"run:5: document 'd1' appears twice in query 'q1' \(first on line 1\)"):
        read_arrow(tmp_path / "run", RUN_FORMAT)
    lines[4] = "q1 Q0 d5 1 1.0 r"
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    with pytest.raises(LoadError, match=r"run:8: the score \(column 5\) must be a number; got 'x'\.$"):
        read_arrow(tmp_path / "run", RUN_FORMAT)


def test_long_docids_that_share_their_fingerprint_are_compared_exactly(tmp_path) -> None:
    """Docids of 27 bytes differing only at byte 8 (between the pieces a fingerprint reads): no repeat; the same docid
    twice among them is one, named."""
    docids = [f"clueweb1{c}2-0000tw-00-000000" for c in "abcdefgh"]
    assert len({len(docid) for docid in docids}) == 1 and len(docids[0]) == 27
    path = tmp_path / "run"
    path.write_text("".join(f"q1 Q0 {docid} {i} 1.0 r\n" for i, docid in enumerate(docids, start=1)))
    assert read_arrow(path, RUN_FORMAT).docids.to_pylist() == docids
    prints = trec_arrow._fingerprints(string_array(docids))
    assert len(set(prints.tolist())) == 1  # one fingerprint: compared exactly
    path.write_text("".join(f"q1 Q0 {docid} {i} 1.0 r\n" for i, docid in enumerate(docids + [docids[3]], start=1)))
    with pytest.raises(LoadError, match=r"run:9: document 'clueweb1d2-0000tw-00-000000' appears twice in query 'q1' "
                                        r"\(first on line 4\)"):
        read_arrow(path, RUN_FORMAT)


def test_a_run_of_two_lines_cycled_stops_at_its_first_batch(tmp_path, monkeypatch) -> None:
    """Two distinct lines repeated: no line repeats the one before it, the pair repeats at line 3; the read stops in
    its first batch (no later batch is asked for)."""
    asked = []
    original = trec_arrow.batches

    def counted(source, size):
        for batch in original(source, size):
            asked.append(batch.line)
            yield batch

    monkeypatch.setattr(trec_arrow, "batches", counted)
    path = tmp_path / "cycle.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n" * 3_000_000))  # 96 MB expanded
    with pytest.raises(LoadError, match=r"cycle\.gz:3: document 'd1' appears twice in query 'q1' \(first on line 1\)"):
        read_arrow(path, RUN_FORMAT)
    assert asked == [1]


def test_subtopic_qrels_judge_a_document_once_per_subtopic(tmp_path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 1 d2 1\n")
    columns = read_arrow(path, QRELS_FORMAT, subtopics=True)
    assert columns.subtopics.to_pylist() == ["1", "2"] and columns.subtopic_codes.tolist() == [0, 1, 0]
    path.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 1 d1 2\n")
    with pytest.raises(LoadError, match=r"qrels:3: document 'd1' is judged twice for subtopic '1' of query 'q1' \(first "
                                        r"on line 1\); keep one of the lines\.$"):
        read_arrow(path, QRELS_FORMAT, subtopics=True)
    path.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 2 d2 1.5\n")  # a bad grade: named, not line 2 as a plain qrels repeat
    with pytest.raises(LoadError, match=r"qrels:3: the relevance grade \(column 4\) must be an integer"):
        read_arrow(path, QRELS_FORMAT, subtopics=True)


def test_a_stream_is_read_once_and_its_columns_kept_only_when_asked(tmp_path) -> None:
    import io

    from evalframe.sources.trec_stream import standard_input

    source = standard_input("run", io.BytesIO(b"q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n"))
    kept = read_arrow(source, RUN_FORMAT, encode_docids=False, keep=True)
    assert source.memo["tag"] == b"bm25"
    again = read_arrow(source, RUN_FORMAT)  # the kept columns, the docids coded now
    assert again.qid_codes is kept.qid_codes and again.docids.to_pylist() == ["d1", "d2"]
    with pytest.raises(LoadError, match=r"^run file standard input was read already: a stream \(standard input, a FIFO, "
                                        r"a device\) is read once\.$"):
        read_arrow(source, RUN_FORMAT)


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
