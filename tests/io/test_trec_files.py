"""TREC run and qrels files (sources.trec_files, io.trec): trec_eval's reading rules, errors naming file and line, atomic writes.

Expected values are worked out by hand from the texts below (and the tie order is confirmed with pytrec_eval).
"""

from __future__ import annotations

import gzip
import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalframe import InvalidParameterError, LoadError, SaveError
from evalframe.io import atomic
from evalframe.io.trec import write_qrels, write_run
from evalframe.sources.trec_files import read_qrels, read_queries, read_run

# q2 comes first in the file, so it is the first query; q1's four documents scored 2 tie: docid descending
# (code points: 'c' > 'b' > 'a' > 'B'); the file's rank column (1..5 in file order) is ignored. Tabs and runs of
# spaces separate columns too, and a blank line is skipped.
RUN_TEXT = (
    "q2 Q0 d3 1 0.5 tagA\n"
    "q1 Q0 a 1 2 tagA\n"
    "q1 Q0 c 2 2 tagA\n"
    "\n"
    "q1 Q0 b 3 2.0 tagA\n"
    "q1   Q0 z 4 3.5 tagA\n"
    "q1 Q0 B 5 2e0 tagA\n"
    "q2\tQ0\td1\t2\t-1e3\ttagA\n"
)
RUN_EXPECTED = pd.DataFrame({
    "qid": pd.Series(["q2", "q2", "q1", "q1", "q1", "q1", "q1"], dtype=object),
    "docid": pd.Series(["d3", "d1", "z", "c", "b", "a", "B"], dtype=object),
    "score": [0.5, -1000.0, 3.5, 2.0, 2.0, 2.0, 2.0],
    "rank": np.array([1, 2, 1, 2, 3, 4, 5], dtype=np.int64),
})
# judgments of a query keep their file order; queries in order of first appearance (q1's lines are not contiguous)
QRELS_TEXT = "q1 0 b 1\nq2 0 d1 0\nq1 0 zz 2\nq1 Q0 a -1\n"
QRELS_EXPECTED = pd.DataFrame({
    "qid": pd.Series(["q1", "q1", "q1", "q2"], dtype=object),
    "docid": pd.Series(["b", "zz", "a", "d1"], dtype=object),
    "relevance": np.array([1, 2, -1, 0], dtype=np.int64),
})


def write(path, text: str | bytes):
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# ------------------------------------------------------------------ reading
def test_read_run_ranks_by_score_then_docid_descending(tmp_path):
    pd.testing.assert_frame_equal(read_run(write(tmp_path / "run.txt", RUN_TEXT)), RUN_EXPECTED)


def test_read_qrels_keeps_file_order_within_a_query(tmp_path):
    pd.testing.assert_frame_equal(read_qrels(write(tmp_path / "qrels.txt", QRELS_TEXT)), QRELS_EXPECTED)


def test_the_dict_forms_read_like_the_files():
    run = {"q2": {"d1": -1000, "d3": 0.5}, "q1": {"a": 2, "c": 2.0, "b": 2, "z": 3.5, "B": 2}}
    pd.testing.assert_frame_equal(read_run(run), RUN_EXPECTED)
    qrels = {"q1": {"b": 1, "zz": 2, "a": np.int64(-1)}, "q2": {"d1": 0}}
    pd.testing.assert_frame_equal(read_qrels(qrels), QRELS_EXPECTED)
    assert read_qrels({}).empty and list(read_qrels({}).columns) == ["qid", "docid", "relevance"]


def test_the_tie_order_is_trec_evals():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q1": {"a": 2.0, "c": 2.0, "b": 2.0, "z": 3.5, "B": 2.0}}
    for relevant, rank in (("B", 5), ("c", 2), ("a", 4)):
        evaluator = pytrec_eval.RelevanceEvaluator({"q1": {relevant: 1}}, {"recip_rank"})
        assert evaluator.evaluate(run)["q1"]["recip_rank"] == 1 / rank
        frame = read_run(run)
        assert int(frame.loc[frame["docid"] == relevant, "rank"].iloc[0]) == rank


def test_gzip_files_are_recognised_by_their_first_bytes(tmp_path):
    pd.testing.assert_frame_equal(read_run(write(tmp_path / "run.gz", gzip.compress(RUN_TEXT.encode()))), RUN_EXPECTED)
    pd.testing.assert_frame_equal(read_run(write(tmp_path / "run-no-suffix", gzip.compress(RUN_TEXT.encode()))),
                                  RUN_EXPECTED)
    pd.testing.assert_frame_equal(read_qrels(write(tmp_path / "qrels.txt.gz", gzip.compress(QRELS_TEXT.encode()))),
                                  QRELS_EXPECTED)
    pd.testing.assert_frame_equal(read_run(write(tmp_path / "plain.gz", RUN_TEXT)), RUN_EXPECTED)  # not gzip inside


def test_ids_stay_text_and_special_scores_read(tmp_path):
    # 'NA', 'null', 'nan', '007', quotes: ids as written; infinite scores are numbers (NaN is not)
    frame = read_run(write(tmp_path / "run", 'NA Q0 null 1 inf t\nNA Q0 "x 2 -Infinity t\n007 Q0 nan 1 1E2 t\n'))
    assert frame.to_dict("list") == {"qid": ["NA", "NA", "007"], "docid": ["null", '"x', "nan"],
                                     "score": [math.inf, -math.inf, 100.0], "rank": [1, 2, 1]}


def test_windows_line_ends_and_a_byte_order_mark(tmp_path):
    frame = read_qrels(write(tmp_path / "qrels", b"\xef\xbb\xbfq1 0 d1 1\r\nq1 0 d2 +2\r\n"))
    assert frame.to_dict("list") == {"qid": ["q1", "q1"], "docid": ["d1", "d2"], "relevance": [1, 2]}


# ------------------------------------------------------------------ errors name the file and the line
@pytest.mark.parametrize("text, line, words", [
    ("q1 Q0 d1 1 2 t\n\nq1 Q0 d2 2 3\n", 3, "has 6 whitespace-separated columns `qid Q0 docid rank score tag`; this one has 5"),
    ("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 high t\n", 2, "the score (column 5) must be a number; got 'high'"),
    ("q1 Q0 d1 1 nan t\n", 1, "must be a number; got 'nan'"),
    ("q1 Q0 d1 1 1_0 t\n", 1, "must be a number; got '1_0'"),
    ("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d1 3 1 t\n", 3,
     "document 'd1' appears twice in query 'q1' (first on line 1); trec_eval refuses a run with duplicate documents "
     "(\"duplicate docs\")"),
    ("q1 Q0 d1 1 2 t\nq1 Q0 d\xe9 2 1 t\n".encode("latin-1"), 2, "not UTF-8 text"),
    # a comment line is skipped whatever its bytes: the line named is the one with too few columns
    ("# \xe9t\xe9 2026\nq1 Q0 d1 1 2 t\n  # r\xe9sum\xe9\nq1 Q0 d2 2\n".encode("latin-1"), 4, "this one has 4"),
])
def test_run_errors_name_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path / "run.txt", text)
    with pytest.raises(LoadError) as caught:
        read_run(path)
    assert str(caught.value).startswith(f"{path}:{line}: ") and words in str(caught.value)


@pytest.mark.parametrize("text, line, words", [
    ("q1 0 d1 1\nq1 0 d2\n", 2, "has 4 whitespace-separated columns `qid iter docid relevance`; this one has 3"),
    ("q1 0 d1 1 x\n", 1, "this one has 5"),
    ("q1 0 d1 1 0\nq1 0 d2 0 0\n", 1, "this one has 5"),  # a numeric fifth column on every line is refused too
    ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "the relevance grade (column 4) must be an integer"),
    ("q1 0 d1 1.0\n", 1, "must be an integer"),
    ("q1 0 d1 1e3\n", 1, "must be an integer"),
    ("q1 0 d1 yes\n", 1, "must be an integer"),
    ("q1 0 d1 99999999999999999999\n", 1, "too large"),
    ("q1 0 d1 1\nq1 0 d2 0\nq1 1 d1 2\n", 3, "document 'd1' appears twice in query 'q1' (first on line 1); trec_eval "
     "refuses qrels with duplicate documents"),
])
def test_qrels_errors_name_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path / "qrels.txt", text)
    with pytest.raises(LoadError) as caught:
        read_qrels(path)
    assert str(caught.value).startswith(f"{path}:{line}: ") and words in str(caught.value)


def test_errors_in_gzip_files_name_the_line_too(tmp_path):
    path = write(tmp_path / "run.gz", gzip.compress(b"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 x t\n"))
    with pytest.raises(LoadError, match=r"run.gz:2: the score"):
        read_run(path)
    damaged = write(tmp_path / "cut.gz", gzip.compress(RUN_TEXT.encode())[:30])
    with pytest.raises(LoadError, match="cut.gz cannot be read .*the gzip file is damaged or cut short"):
        read_run(damaged)


@pytest.mark.parametrize("reader, kind", [(read_run, "run"), (read_qrels, "qrels")])
def test_empty_missing_and_folder_paths(tmp_path, reader, kind):
    for text in ("", "\n  \n"):
        path = write(tmp_path / "empty", text)
        with pytest.raises(LoadError, match=f"{kind} file {path} holds no line"):
            reader(path)
    with pytest.raises(LoadError, match=f"{kind} file {tmp_path / 'missing'} does not exist"):
        reader(tmp_path / "missing")
    with pytest.raises(LoadError, match="is a folder"):
        reader(tmp_path)
    with pytest.raises(InvalidParameterError, match=f"{kind} must be a path to a TREC {kind} file or a dict"):
        reader(3)


@pytest.mark.parametrize("run, words", [
    ({1: {"d1": 1.0}}, "run: query id 1 must be a string"),
    ({"q1": {"d 1": 1.0}}, "run['q1']: document id 'd 1' must be a non-empty string without spaces, tabs or line ends"),
    ({"q1": {"": 1.0}}, "document id '' must be a non-empty string"),
    ({"q1": {"d1": math.nan}}, "run['q1']['d1']: the score must be a number (not NaN)"),
    ({"q1": {"d1": "1.5"}}, "run['q1']['d1']: the score must be a number"),
    ({"q1": {"d1": True}}, "the score must be a number"),
    ({"q1": ["d1"]}, "run['q1'] must be a dict {docid: score}"),
])
def test_run_dict_errors_name_qid_and_docid(run, words):
    with pytest.raises(InvalidParameterError) as caught:
        read_run(run)
    assert words in str(caught.value)


@pytest.mark.parametrize("qrels, words", [
    ({"q1": {"d1": 1.0}}, "qrels['q1']['d1']: the relevance grade must be an int; got 1.0"),
    ({"q1": {"d1": False}}, "must be an int"),
    ({"q 1": {"d1": 1}}, "qrels: query id 'q 1' must be a non-empty string without spaces, tabs or line ends"),
])
def test_qrels_dict_errors_name_qid_and_docid(qrels, words):
    with pytest.raises(InvalidParameterError) as caught:
        read_qrels(qrels)
    assert words in str(caught.value)


def test_read_queries(tmp_path):
    path = write(tmp_path / "queries.tsv", "q1\twho wrote hamlet?\r\n\nq2\ttabs\tinside\n")
    assert read_queries(path) == {"q1": "who wrote hamlet?", "q2": "tabs\tinside"}
    assert read_queries({"q1": "text"}) == {"q1": "text"}
    with pytest.raises(LoadError, match=r"queries.tsv:3: query 'q1' appears twice \(first on line 1\)"):
        read_queries(write(tmp_path / "queries.tsv", "q1\ta\n\nq1\tb\n"))
    with pytest.raises(LoadError, match=r"queries.tsv:1: a queries line is `qid<TAB>text`; this one has no tab"):
        read_queries(write(tmp_path / "queries.tsv", "q1 no tab\n"))
    with pytest.raises(InvalidParameterError, match="queries must map query ids"):
        read_queries({"q1": 3})


# ------------------------------------------------------------------ writing
def test_write_run_writes_trec_order_ranks_and_repr_scores(tmp_path):
    path = write_run(RUN_EXPECTED, tmp_path / "out.run", tag="mine")
    assert path.read_text() == (
        "q2 Q0 d3 1 0.5 mine\nq2 Q0 d1 2 -1000.0 mine\n"
        "q1 Q0 z 1 3.5 mine\nq1 Q0 c 2 2.0 mine\nq1 Q0 b 3 2.0 mine\nq1 Q0 a 4 2.0 mine\nq1 Q0 B 5 2.0 mine\n")
    # rows in any order (and a rank column that disagrees) are written in trec_eval's order, queries as they first appear
    shuffled = RUN_EXPECTED.iloc[[6, 1, 3, 0, 5, 2, 4]].assign(rank=[9, 9, 9, 9, 9, 9, 9])
    lines = write_run(shuffled, tmp_path / "shuffled.run", tag="mine").read_text().splitlines()
    assert lines == ["q1 Q0 z 1 3.5 mine", "q1 Q0 c 2 2.0 mine", "q1 Q0 b 3 2.0 mine", "q1 Q0 a 4 2.0 mine",
                     "q1 Q0 B 5 2.0 mine", "q2 Q0 d3 1 0.5 mine", "q2 Q0 d1 2 -1000.0 mine"]


def test_write_run_scores_read_back_to_the_same_floats(tmp_path):
    scores = [0.1, 1 / 3, 2.0 ** -1074, 1.7976931348623157e308, -0.0, 123456789.123456789, math.inf, -math.inf]
    run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
    again = read_run(write_run(run, tmp_path / "run"))
    assert dict(zip(again["docid"], again["score"])) == run["q"]
    assert repr(1 / 3) in (tmp_path / "run").read_text()


def test_write_qrels_in_row_order(tmp_path):
    path = write_qrels(QRELS_EXPECTED, tmp_path / "qrels")
    assert path.read_text() == "q1 0 b 1\nq1 0 zz 2\nq1 0 a -1\nq2 0 d1 0\n"


def test_gz_names_are_written_gzip_and_deterministic(tmp_path):
    first = write_run(RUN_EXPECTED, tmp_path / "a.run.gz").read_bytes()
    assert first[:2] == b"\x1f\x8b"
    assert gzip.decompress(first).decode() == write_run(RUN_EXPECTED, tmp_path / "a.run").read_text()
    assert write_run(RUN_EXPECTED, tmp_path / "b.run.gz").read_bytes() == first
    pd.testing.assert_frame_equal(read_qrels(write_qrels(QRELS_EXPECTED, tmp_path / "q.gz")), QRELS_EXPECTED)


@pytest.mark.parametrize("frame, words", [
    (pd.DataFrame({"qid": ["q"], "docid": ["d 1"], "score": [1.0]}), "row 1: its docid 'd 1' is not a non-empty string"),
    (pd.DataFrame({"qid": pd.Series(["q", None], dtype=object), "docid": ["d", "e"], "score": [1.0, 2.0]}),
     "row 2: its qid None"),
    (pd.DataFrame({"qid": ["q", "q"], "docid": ["d", "d"], "score": [1.0, 2.0]}), "document 'd' appears twice in query 'q'"),
    (pd.DataFrame({"qid": ["q"], "docid": ["d"], "score": [math.nan]}), "query 'q', document 'd' has no score (NaN)"),
])
def test_write_run_refuses_what_trec_eval_cannot_read(tmp_path, frame, words):
    with pytest.raises(SaveError) as caught:
        write_run(frame, tmp_path / "run")
    assert words in str(caught.value)
    assert not (tmp_path / "run").exists()


def test_nothing_to_write_is_refused_as_an_empty_file_is_on_reading(tmp_path):
    with pytest.raises(SaveError, match="the run holds no retrieved document, so there is no line to write"):
        write_run(RUN_EXPECTED.iloc[:0], tmp_path / "run")
    with pytest.raises(SaveError, match="the qrels holds no judgment"):
        write_qrels({}, tmp_path / "qrels")
    assert os.listdir(tmp_path) == []


def test_write_argument_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="tag must be a non-empty string without whitespace"):
        write_run(RUN_EXPECTED, tmp_path / "run", tag="two words")
    with pytest.raises(InvalidParameterError, match=r"lacks the column\(s\) \['score'\]"):
        write_run(RUN_EXPECTED.drop(columns="score"), tmp_path / "run")
    with pytest.raises(InvalidParameterError, match="relevance column must hold integers"):
        write_qrels(QRELS_EXPECTED.astype({"relevance": float}), tmp_path / "qrels")
    with pytest.raises(SaveError, match="is a folder"):
        write_run(RUN_EXPECTED, tmp_path)
    with pytest.raises(SaveError, match="does not exist"):
        write_run(RUN_EXPECTED, tmp_path / "no" / "run")


@pytest.mark.parametrize("failing", ["write run", "fsync .run.", "rename run"])
def test_a_failed_write_leaves_the_old_file_and_no_leftover(tmp_path, monkeypatch, failing):
    path = write(tmp_path / "run", "old content\n")

    def hook(name: str) -> None:
        if name.startswith(failing):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "step", hook)
    with pytest.raises(SaveError, match="No space left on device.*the previous file .* is unchanged"):
        write_run(RUN_EXPECTED, path)
    assert path.read_text() == "old content\n"
    assert os.listdir(tmp_path) == ["run"]


def test_a_symlink_keeps_pointing_at_the_replaced_file(tmp_path):
    target = write(tmp_path / "real.run", "old\n")
    link = tmp_path / "link.run"
    link.symlink_to(target)
    write_run(RUN_EXPECTED, link)
    assert link.is_symlink() and read_run(target).equals(RUN_EXPECTED)


# ------------------------------------------------------------------ other tools read what evalframe writes
def test_ir_measures_reads_the_written_files_as_the_same_dicts(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    run = {"q2": {"d1": -1000.0, "d3": 0.5}, "q1": {"a": 2.0, "c": 2.0, "b": 1 / 3, "z": 3.5}}
    qrels = {"q1": {"b": 1, "zz": 2, "a": -1}, "q2": {"d1": 0}}
    read_back_run: dict[str, dict[str, float]] = {}
    for doc in ir_measures.read_trec_run(str(write_run(run, tmp_path / "run.txt"))):
        read_back_run.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    read_back_qrels: dict[str, dict[str, int]] = {}
    for qrel in ir_measures.read_trec_qrels(str(write_qrels(qrels, tmp_path / "qrels.txt"))):
        read_back_qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    assert read_back_run == run and read_back_qrels == qrels


def test_pytrec_eval_scores_the_written_run_as_the_dict(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q1": {"a": 2.0, "c": 2.0, "b": 1 / 3, "z": 3.5}, "q2": {"d1": 1.0, "d2": 1.0}}
    qrels = {"q1": {"b": 1, "a": 2, "c": 0}, "q2": {"d1": 1}}
    frame = read_run(write_run(run, tmp_path / "run.txt"))
    again = {q: dict(zip(g["docid"], g["score"])) for q, g in frame.groupby("qid", sort=False)}
    measures = {"ndcg", "map", "recip_rank", "P_1"}
    assert pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(again) == \
        pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


# ------------------------------------------------------------------ trec_eval's ranking, against a plain Python sort
RUNS = st.dictionaries(st.text(alphabet="qQ1_", min_size=1, max_size=2),
                       st.dictionaries(st.text(alphabet="abAB9é", min_size=1, max_size=3),
                                       st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, math.inf]), min_size=1, max_size=8),
                       min_size=1, max_size=4)


# 40 examples here; the long sweep (150) under the stress marker, which .ci/run runs in full
@settings(max_examples=40, deadline=None)
@given(run=RUNS)
def test_read_run_ranks_as_a_python_sort_in_any_input_order(run):
    expected = [(qid, docid, score, rank) for qid, docs in run.items()
                for rank, (docid, score) in enumerate(sorted(docs.items(), key=lambda d: (d[1], d[0]), reverse=True), 1)]
    assert list(read_run(run).itertuples(index=False, name=None)) == expected
    # the same run given already ranked (no sort needed) ranks the same
    ranked = {qid: {d: s for q, d, s, _ in expected if q == qid} for qid in run}
    assert list(read_run(ranked).itertuples(index=False, name=None)) == expected


@pytest.mark.stress
@settings(max_examples=150, deadline=None)
@given(run=RUNS)
def test_read_run_ranks_as_a_python_sort_in_any_input_order_many_runs(run):
    test_read_run_ranks_as_a_python_sort_in_any_input_order.hypothesis.inner_test(run)


def test_ids_split_on_spaces_and_tabs_only_as_trec_eval_does(tmp_path):
    # a non-breaking space belongs to the id (pandas' and trec_eval's split): read, written and read back the same
    run = read_run({"q1\xa0x": {"d\xa0": 1.0}})
    path = write_run(run, tmp_path / "nbsp.run")
    assert read_run(path)[["qid", "docid"]].values.tolist() == [["q1\xa0x", "d\xa0"]]
    # a form feed is part of the id too, so this line has five columns, named with its line number
    (tmp_path / "ff.run").write_text("q1\fQ0 d1 1 1.0 t\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"ff.run:1: .* this one has 5"):
        read_run(tmp_path / "ff.run")


def test_a_lone_surrogate_id_is_refused_by_name():
    with pytest.raises(InvalidParameterError, match=r"document id 'd\\ud800' is not valid Unicode text"):
        read_run({"q": {"d\ud800": 1.0}})


def test_a_qrels_line_with_several_extra_columns_is_refused_without_a_pandas_warning(tmp_path):
    path = tmp_path / "file.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 0 x y z\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' ParserWarning about dropped columns must not reach the user
        with pytest.raises(LoadError, match=r"file.txt:2: .* this one has"):
            read_qrels(path)


@pytest.mark.parametrize("text", ["q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag x y\n",  # more columns than the first line
                                  "q1 Q0 d1 1 2.0 tag x y\nq1 Q0 d2 2 1.0 tag\n",
                                  "q1 Q0 d1 1 2.0 tag 9\nq1 Q0 d2 2 1.0 tag 8\n"])  # on every line: not an index
def test_a_run_lines_columns_after_the_sixth_are_ignored_without_a_pandas_warning(tmp_path, text):
    path = tmp_path / "file.txt"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' ParserWarning about dropped columns must not reach the user
        assert read_run(path).to_dict("list") == {"qid": ["q1", "q1"], "docid": ["d1", "d2"], "score": [2.0, 1.0],
                                                  "rank": [1, 2]}


def test_a_node_frame_is_written_as_a_run_and_its_qrels_through_io(tmp_path):
    """What to_trec_run / to_qrels delegate to (io.trec): the checks before the run is built, in the order of the
    parameters, then the frame's document rows in its ranking (rank, ties by document_id descending)."""
    from evalframe.io.trec import check_run_arguments, write_node_qrels, write_node_run

    frame = pd.DataFrame({"multilabel_id": ["q1", "q1", "q1", "q2"], "type": "document", "eval_mode": "integrated",
                          "rank": [2, 1, 3, 1], "document_id": ["a", "b", "", "c"], "score": [1.5, 2.5, 0.0, 9.0],
                          "gold_document_ids": [["b", "a", "00"]] * 3 + [["c"]],
                          "gold_document_relevance": [[2, 1, 1]] * 3 + [[3]]})
    path = write_node_run(frame, tmp_path / "run.txt", node="R", tag="bm25", scores="score", eval_mode="integrated",
                          duplicates="error")
    # the placeholder row (document_id "") left out; q1: b (rank 1), a (rank 2)
    assert path.read_text() == "q1 Q0 b 1 2.5 bm25\nq1 Q0 a 2 1.5 bm25\nq2 Q0 c 1 9.0 bm25\n"
    ranks = write_node_run(frame, tmp_path / "ranks.txt", node="R", tag="x", scores="rank", eval_mode="integrated",
                           duplicates="error")
    assert ranks.read_text() == "q1 Q0 b 1 2.0 x\nq1 Q0 a 2 1.0 x\nq2 Q0 c 1 1.0 x\n"
    # "00" is no document; the documents of a query sorted by docid
    assert write_node_qrels(frame, tmp_path / "qrels.txt", node="R").read_text() == "q1 0 a 1\nq1 0 b 2\nq2 0 c 3\n"

    check_run_arguments(tmp_path / "run.txt", "bm25", "score", "isolated", "first")
    with pytest.raises(InvalidParameterError, match="^path is the URL 'nosuch://bucket/run.txt', whose protocol"):
        check_run_arguments("nosuch://bucket/run.txt", "bad tag", "ranks", "integrated", "error")
    with pytest.raises(InvalidParameterError, match="tag must be a non-empty string without whitespace"):
        check_run_arguments("run.txt", "bad tag", "ranks", "integrated", "error")
    with pytest.raises(InvalidParameterError, match=r"scores must be one of \['score', 'rank'\]"):
        check_run_arguments("run.txt", "bm25", "ranks", "integrated", "error")
    with pytest.raises(InvalidParameterError, match="eval_mode must be one of"):
        check_run_arguments("run.txt", "bm25", "rank", "isolate", "error")
    with pytest.raises(InvalidParameterError, match=r"duplicates must be one of \['error', 'first'\]"):
        check_run_arguments("run.txt", "bm25", "rank", "isolated", "last")
