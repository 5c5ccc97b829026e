"""The pyarrow path of read_run / read_qrels gives what the pandas path gives: the same frame, or the same error."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalframe.errors import LoadError
from evalframe.sources import trec_files as trec
from evalframe.sources.trec_files import read_qrels, read_run

pytest.importorskip("pyarrow")


def both(reader, path, monkeypatch):
    """(fast result, pandas-path result); each a frame or the LoadError's message."""
    def attempt():
        try:
            return reader(path)
        except LoadError as exc:
            return str(exc)

    fast = attempt()
    with monkeypatch.context() as patched:
        patched.setattr(trec, "_read_arrow", lambda path, fmt: None)
        slow = attempt()
    return fast, slow


def assert_same(fast, slow):
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
    else:
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        for column in ("qid", "docid"):
            assert fast[column].dtype == object and all(type(v) is str for v in fast[column])


SCORES = ["1.5", "+1.5", "-1.5", ".5", "5.", "1e5", "1E+5", "1e-320", "1e400", "-1e400", "inf", "-inf", "Infinity", "INF",
          "+inf", "nan", "NaN", "-0", "0", "-0.0", "0.1234567891", "0.1234567890", "1_0", "0x10", "1.5e", "1,5", "١",
          "3.4028235e38", "3.4028236e38", "17976931348623157e292", "0.30000000000000004", "2.2250738585072011e-308", "abc"]
GRADES = ["0", "1", "-1", "+2", "007", "1.0", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "x",
          "１"]


@pytest.mark.parametrize("score", SCORES)
def test_scores_read_alike(tmp_path, monkeypatch, score):
    path = tmp_path / "run"
    path.write_text(f"q1 Q0 d1 1 {score} t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 2 t\n", encoding="utf-8")
    assert_same(*both(read_run, path, monkeypatch))


@pytest.mark.parametrize("grade", GRADES)
def test_grades_read_alike(tmp_path, monkeypatch, grade):
    path = tmp_path / "qrels"
    path.write_text(f"q1 0 d1 {grade}\nq1 0 d2 1\nq2 0 d1 0\n", encoding="utf-8")
    assert_same(*both(read_qrels, path, monkeypatch))


LINES = [
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.0 t\n",
    b"\xef\xbb\xbfq1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 1.0 t\r\n",  # a byte-order mark, CRLF
    b"q1 Q0 d1 1 1.5 t\n\n\nq2 Q0 d2 2 1.0 t",  # empty lines, no final line end
    b"q1 Q0 d1 1 1.5 t\rq2 Q0 d2 2 1.0 t\r",  # lone CR
    b"q1  d1 1 1.5 t\n",  # a column missing, two spaces
    b" q1 Q0 d1 1 1.5 t\n",  # a leading space
    b"q1 Q0 d1 1 1.5 t \n",  # a trailing space
    b"q1\tQ0\td1\t1\t1.5\tt\n",  # tabs
    b"q1 Q0 d1 1 1.5 t x\n",  # a seventh column
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.0\n",  # a line with five
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d1 2 1.0 t\n",  # a duplicate
    b"q1 Q0 d\xc2\xa01 1 1.5 t\nq\x0c1 Q0 d2 2 1.0 t\n",  # NBSP and form feed belong to ids
    b"q1 Q0 d\xff 1 1.5 t\n",  # not UTF-8
    b"q1 Q0 \"d1 1 1.5 t\nq1 Q0 'd2 2 1.0 t\nNA Q0 null 1 2 t\n",  # quotes, NA and null are ids
    b"   \n",
    b"",
    b"q1 Q0 d1 1 1.5 t\n \nq1 Q0 d2 2 1.0 t\n",  # a line of one space
]


@pytest.mark.filterwarnings("ignore::pandas.errors.ParserWarning")  # six columns in a qrels: the pandas path warns
@pytest.mark.parametrize("content", LINES)
@pytest.mark.parametrize("compressed", [False, True])
def test_files_read_alike(tmp_path, monkeypatch, content, compressed):
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(content) if compressed else content)
    assert_same(*both(read_run, path, monkeypatch))
    qrels = tmp_path / "qrels"
    qrels.write_bytes(content.replace(b" Q0 ", b" 0 ").replace(b" 1.5 t", b"").replace(b" 1.0 t", b""))
    assert_same(*both(read_qrels, qrels, monkeypatch))


TOKEN = st.text(alphabet=st.sampled_from("ab1. \t\r\n\x0c\xa0é"), min_size=0, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TOKEN, TOKEN, st.sampled_from(["1", "2.5", "-0", "x", "1e3", ""])), min_size=1, max_size=6))
def test_any_lines_read_alike(tmp_path_factory, lines):
    folder = tmp_path_factory.mktemp("runs")
    path = folder / "run"
    path.write_bytes("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in lines).encode("utf-8"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_same(*both(read_run, path, monkeypatch))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "é", "q\xa0"]), st.sampled_from(["d1", "d2", "d3", "ü", "d\x0c"]),
                          st.sampled_from([0.0, -0.0, 1.5, 1 / 3, 1e300, -1e-300, 2.0**-1074, float("inf"), 7.0])),
                min_size=1, max_size=12))
def test_written_files_are_the_same_with_and_without_pyarrow(tmp_path_factory, rows):
    import sys

    from evalframe.io.trec import write_qrels, write_run

    run = pd.DataFrame(rows, columns=["qid", "docid", "score"]).drop_duplicates(["qid", "docid"])
    qrels = run.assign(relevance=(run["score"] > 1).astype("int64") - (run["score"] < 0).astype("int64"))
    folder = tmp_path_factory.mktemp("written")
    fast = write_run(run, folder / "fast.run").read_bytes(), write_qrels(qrels, folder / "fast.qrels").read_bytes()
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
        slow = write_run(run, folder / "slow.run").read_bytes(), write_qrels(qrels, folder / "slow.qrels").read_bytes()
        assert read_run(folder / "slow.run").equals(read_run(folder / "fast.run"))
    assert fast == slow
    expected = "".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(qrels["qid"], qrels["docid"], qrels["relevance"]))
    assert fast[1].decode("utf-8") == expected


def test_trec_frame_takes_the_readers_codes_and_sees_an_edit(tmp_path):
    from evalframe.sources.trec import trec_frame, trec_frame_coded
    from evalframe.sources.trec_files import read_qrels_coded, read_run_coded

    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 1.0 t\n", encoding="utf-8")
    (run, run_codes), (qrels, qrels_codes) = read_run_coded(path), read_qrels_coded({"q1": {"d2": 1}, "q3": {"d1": 2}})
    assert run_codes.column(run, "docid") is not None and qrels_codes.column(qrels, "qid") is not None
    coded = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes)
    pd.testing.assert_frame_equal(coded.frame, trec_frame(run.copy(), qrels.copy()))
    run.loc[0, "docid"] = "d2x"
    qrels.loc[1, "qid"] = "q2"
    assert run_codes.column(run, "docid") is None and qrels_codes.column(qrels, "qid") is None
    assert run_codes.column(run, "qid") is not None  # the other column is untouched
    frame = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes).frame
    pd.testing.assert_frame_equal(frame, trec_frame(run.copy(), qrels.copy()))
    assert "d2x" in frame["document_id"].tolist() and "q3" not in frame["multilabel_id"].tolist()


def test_a_file_of_many_arrow_blocks_reads_alike(tmp_path, monkeypatch):
    """Several MB: pyarrow parses it in many blocks, encoded chunk by chunk with one dictionary; the same frames as
    the pandas path, and trec_frame from the readers' Arrow dictionaries equals trec_frame from copies."""
    import numpy as np

    from evalframe.sources.trec import trec_frame, trec_frame_coded
    from evalframe.sources.trec_files import read_qrels_coded, read_run_coded

    rng = np.random.default_rng(1)
    n = 120_000
    qids = np.repeat([f"q{i}" for i in rng.permutation(3000)], n // 3000)
    docids = [f"doc{d}" for d in rng.integers(0, 200_000, n)]
    lines = {(q, d): f"{q} Q0 {d} 1 {s:.3f} t\n" for q, d, s in zip(qids.tolist(), docids, rng.random(n).tolist())}
    (tmp_path / "run").write_text("".join(lines.values()), encoding="utf-8")
    judged = list(lines)[::7]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {i % 3}\n" for i, (q, d) in enumerate(judged)) + "qx 0 new 1\n",
                                    encoding="utf-8")
    assert (tmp_path / "run").stat().st_size > 3_000_000  # pyarrow reads blocks of 1 MB
    for reader, name in ((read_run, "run"), (read_qrels, "qrels")):
        fast, slow = both(reader, tmp_path / name, monkeypatch)
        assert_same(fast, slow)
    (run, run_codes), (qrels, qrels_codes) = read_run_coded(tmp_path / "run"), read_qrels_coded(tmp_path / "qrels")
    assert run_codes.arrow_values("docid") is not None and qrels_codes.arrow_values("docid") is not None
    coded = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes).frame
    pd.testing.assert_frame_equal(coded, trec_frame(run.copy(), qrels.copy()))
