"""Runs and qrels given as frames (pandas, pyarrow, polars) give the numbers of the same runs read from TREC files.

Every trec measure of the registry (``trec_query_metrics``) is compared with the result of the same run and qrels as
files (whose readers tests/sources/test_trec_arrow.py and tests/test_trec_vs_pytrec_eval.py check); a small case by
hand (ties broken by docid descending); a generated run against pytrec_eval; evalframe.compare and fuse; and each
bad frame refused with the column and the row named.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import evalframe
from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from tests.test_every_measure_everywhere import NAMES, make_run, write_runs

pl = pytest.importorskip("polars")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the generated qrels judge a few queries no run has

#: Per kind of frame, the column names its users give (ir_measures', PyTerrier's, ranx's / evalframe's own).
KINDS = {
    "pandas": (("query_id", "doc_id", "score"), ("query_id", "doc_id", "relevance")),
    "arrow": (("qid", "docno", "score"), ("qid", "docno", "label")),
    "polars": (("q_id", "docid", "score"), ("q_id", "doc_id", "score")),  # ranx's qrels frame: the grade is "score"
}


def rows(mapping: dict) -> list[tuple]:
    return [(q, d, v) for q, documents in mapping.items() for d, v in documents.items()]


def as_frame(mapping: dict, names: tuple[str, ...], kind: str):
    frame = pd.DataFrame(rows(mapping), columns=list(names))
    if kind == "pandas":
        return frame
    if kind == "arrow":
        return pa.Table.from_pandas(frame, preserve_index=False)
    return pl.from_pandas(frame)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_runs(tmp_path_factory.mktemp("frames"), 1, 2)


@pytest.fixture(scope="module")
def from_files(files):
    return EvaluationResult.from_trec(files / "a.txt", files / "qrels.txt", progress=False).trec_query_metrics(NAMES)


@pytest.mark.parametrize("kind", KINDS)
def test_every_measure_of_a_run_frame_equals_the_run_file(kind, from_files):
    run, qrels = make_run(1)  # the run and qrels write_runs wrote as a.txt and qrels.txt
    run_names, qrels_names = KINDS[kind]
    result = EvaluationResult.from_trec(as_frame(run, run_names, kind), as_frame(qrels, qrels_names, kind),
                                        progress=False)
    ours = result.trec_query_metrics(NAMES)
    assert len(from_files) > 20 and list(ours.columns) == NAMES
    pd.testing.assert_frame_equal(ours, from_files, check_exact=True)


def test_a_frame_beside_a_file_and_shuffled_rows_give_the_same_numbers(files, from_files):
    run, _ = make_run(1)
    frame = pd.DataFrame(rows(run), columns=["qid", "docno", "score"]).sample(frac=1.0, random_state=7)
    ours = EvaluationResult.from_trec(frame, files / "qrels.txt", progress=False).trec_query_metrics(NAMES)
    assert sorted(ours.index) == sorted(from_files.index)  # the queries in the frame's order of first appearance
    pd.testing.assert_frame_equal(ours.loc[from_files.index], from_files, check_exact=True)


def test_hand_worked_values_and_ranking_of_a_frame():
    # q1: d2 and d3 tie at 2.0: trec_eval ranks the larger docid first, d3, d2, then d1; d1 and d2 are relevant:
    # RR = 1/2, P@1 = 0, AP = (1/2 + 2/3) / 2 = 7/12. q2 retrieves no relevant document: 0. q3 (qrels only): skipped.
    run = pa.table({"qid": ["q1", "q1", "q1", "q2"], "docno": ["d1", "d2", "d3", "d4"], "score": [1.0, 2.0, 2.0, 0.5],
                    "rank": [1, 2, 3, 1]})  # the rank column is not read, as trec_eval ignores a file's
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["d1", "d2", "d9", "d5"],
                          "relevance": [1, 2, 1, 1]})
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    table = result.trec_query_metrics(["RR", "P@1", "AP", "R@2"])
    assert table.to_dict("index") == {"q1": {"RR": 0.5, "P@1": 0.0, "AP": pytest.approx(7 / 12, abs=1e-15), "R@2": 0.5},
                                      "q2": {"RR": 0.0, "P@1": 0.0, "AP": 0.0, "R@2": 0.0}}
    frame = result["Retriever"]
    assert frame["document_id"].tolist() == ["d3", "d2", "d1", "d4", ""]  # q3: the placeholder row of a qrels query
    assert frame["rank"].tolist() == [1, 2, 3, 1, 1]


def test_integer_ids_are_read_as_their_text_as_a_file_holds_them():
    run = pd.DataFrame({"qid": [301, 301, 302], "docno": [7, 12, 7], "score": [2.0, 1.0, 3.0]})
    qrels = {"301": {"12": 1}, "302": {"7": 2}}  # the same ids as a file or a dict: text
    table = EvaluationResult.from_trec(run, qrels, progress=False).trec_query_metrics(["RR"])
    assert table.index.tolist() == ["301", "302"] and table["RR"].tolist() == [0.5, 1.0]


def test_a_generated_run_frame_equals_pytrec_eval():
    pytest.importorskip("pytrec_eval")
    from tests.test_trec_vs_pytrec_eval import MEASURES, assert_same, reference

    rng = np.random.default_rng(5)
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in rng.choice(30, 12, replace=False)} for q in range(40)}
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(30, 8, replace=False)} for q in range(40)}
    result = EvaluationResult.from_trec(as_frame(run, KINDS["polars"][0], "polars"),
                                        as_frame(qrels, KINDS["arrow"][1], "arrow"), progress=False)
    assert_same(result.trec_query_metrics(MEASURES), reference(run, qrels, MEASURES, level=1, complete=False))


def test_compare_and_fuse_take_run_frames():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    a = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0}}
    b = {"q1": {"d9": 2.0}, "q2": {"d2": 2.0, "d9": 1.0}}
    expected = evalframe.compare(a, b, qrels=qrels, metrics=["RR", "P@1"], rounds=200)
    table = evalframe.compare(as_frame(a, KINDS["pandas"][0], "pandas"), as_frame(b, KINDS["polars"][0], "polars"),
                              qrels=as_frame(qrels, KINDS["arrow"][1], "arrow"), metrics=["RR", "P@1"], rounds=200)
    pd.testing.assert_frame_equal(table, expected)
    assert table.loc["RR", "mean_a"] == 0.5  # A: q1 at rank 1, q2 missed
    fused = evalframe.fuse([as_frame(a, KINDS["arrow"][0], "arrow"), as_frame(b, KINDS["pandas"][0], "pandas")])
    pd.testing.assert_frame_equal(fused, evalframe.fuse([a, b]))
    # RRF, k=60: q1's d9 is 2nd in A and 1st in B: 1/62 + 1/61; d1 1st in A only: 1/61
    assert fused["docid"].tolist()[:2] == ["d9", "d1"]
    assert fused["score"].tolist()[:2] == pytest.approx([1 / 62 + 1 / 61, 1 / 61])
    search = evalframe.optimize_fusion([a, pl.from_pandas(pd.DataFrame(rows(b), columns=["qid", "docid", "score"]))],
                                       pd.DataFrame(rows(qrels), columns=["qid", "docid", "label"]), measure="RR",
                                       step=0.5)
    assert search.trials["RR"].tolist() == evalframe.optimize_fusion([a, b], qrels, measure="RR", step=0.5).trials[
        "RR"].tolist()


RUN = {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d1"], "score": [1.0, 2.0, 3.0]}


@pytest.mark.parametrize("run, match", [
    (pd.DataFrame({"qid": ["q1"], "score": [1.0]}),
     r"^the run frame has no document id column: name it 'doc_id' or 'docno' or 'docid'; its columns are \['qid', "
     r"'score'\]"),
    (pd.DataFrame({**RUN, "query_id": ["q1", "q1", "q2"]}),
     r"^the run frame has the columns \['query_id', 'qid'\], which all name the query id; keep one"),
    (pd.DataFrame(RUN).set_index("qid"), r"no query id column: .*\(it is the frame's index: reset_index\(\) first\)"),
    (pd.DataFrame({**RUN, "qid": ["q1", None, "q2"]}), r"column 'qid', row 1: no id \(None or NaN\)"),
    (pd.DataFrame({**RUN, "score": [1.0, 2.0, np.nan]}), r"column 'score', row 2: no score \(NaN or missing\); trec_eval"),
    (pa.table({**RUN, "score": [1.0, float("nan"), 2.0]}), r"column 'score', row 1: no score \(NaN or missing\)"),
    (pd.DataFrame({**RUN, "qid": [1.0, 1.0, 2.0]}), r"column 'qid' holds double; ids are text \(str\), or integers .*"
                                                    r"becomes float64"),
    (pd.DataFrame({**RUN, "docno": ["d1", 2, "d3"]}), r"column 'docno' mixes types: row 1 holds 2 \(int\), row 0 str"),
    (pd.DataFrame({**RUN, "docno": ["d1", "d 2", "d1"]}), r"column 'docno', row 1: the id 'd 2' must be a non-empty "
                                                         r"string without spaces"),
    (pd.DataFrame({**RUN, "docno": ["d1", "", "d3"]}), r"column 'docno', row 1: the id '' must be a non-empty"),
    (pd.DataFrame({**RUN, "docno": ["d1", "d2", "d\ud800"]}, dtype=object),
     r"column 'docno', row 2: the id 'd\\ud800' is not valid Unicode text \(a lone surrogate\)"),
    (pd.DataFrame({**RUN, "score": ["1", "2", "3"]}), r"column 'score' holds .*string; a score is a number"),
    (pd.DataFrame({**RUN, "docno": ["d1", "d2", "d2"], "qid": ["q1", "q2", "q2"]}),
     r"^the run frame lists document 'd2' twice in query 'q2' \(rows 1 and 2\); trec_eval refuses duplicate documents"),
])
def test_a_bad_run_frame_is_refused_naming_the_column_and_row(run, match):
    with pytest.raises(InvalidParameterError, match=match):
        EvaluationResult.from_trec(run, {"q1": {"d1": 1}}, progress=False)


@pytest.mark.parametrize("qrels, match", [
    (pd.DataFrame({"qid": ["q1"], "docno": ["d1"]}), r"^the qrels frame has no relevance grade column: name it "
                                                     r"'relevance' or 'label'"),
    (pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "relevance": [1], "label": [1]}),
     r"the columns \['relevance', 'label'\], which all name the relevance grade"),
    (pd.DataFrame({"qid": ["q1", "q2"], "docno": ["d1", "d1"], "label": [1.0, 1.5]}),
     r"column 'label', row 1: the relevance grade 1.5 is not an integer"),
    (pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "label": [True]}), r"column 'label' holds bool; a relevance grade "
                                                                      r"is a number"),
    (pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d1"], "label": [1, 0]}),
     r"^the qrels frame lists document 'd1' twice in query 'q1' \(rows 0 and 1\)"),
])
def test_a_bad_qrels_frame_is_refused_naming_the_column_and_row(qrels, match):
    with pytest.raises(InvalidParameterError, match=match):
        EvaluationResult.from_trec(pd.DataFrame(RUN), qrels, progress=False)


@pytest.mark.parametrize("make", [
    lambda: pd.DataFrame(RUN).astype({"qid": "category", "docno": "category"}),  # pandas categoricals
    lambda: pd.DataFrame({**RUN, "score": pd.array([1, 2, 3], dtype="Int64")}),  # nullable integers, none missing
    lambda: pd.DataFrame(RUN).astype({"qid": "string[pyarrow]"}),
    lambda: pl.DataFrame(RUN).with_columns(pl.col("qid").cast(pl.Categorical), pl.col("score").cast(pl.Float32)),
    lambda: pa.RecordBatch.from_pydict(RUN),
    lambda: pa.concat_tables([pa.table(RUN).slice(0, 2), pa.table(RUN).slice(2)]),  # two chunks
], ids=["category", "Int64", "arrow-string", "polars-categorical", "record-batch", "chunked"])
def test_the_column_types_frames_hold_give_the_same_numbers(make):
    # q1 ranks d2 (2.0) before d1 (1.0): RR 1/2 with d1 relevant; q2 retrieves d1 at rank 1: RR 1
    table = EvaluationResult.from_trec(make(), {"q1": {"d1": 1}, "q2": {"d1": 1}}, progress=False).trec_query_metrics(
        ["RR"])
    assert table["RR"].to_dict() == {"q1": 0.5, "q2": 1.0}


def test_integral_float_grades_are_read_as_integers():
    qrels = pd.DataFrame({"qid": ["q1", "q2"], "docno": ["d2", "d1"], "label": [2.0, 1.0]})
    table = EvaluationResult.from_trec(pd.DataFrame(RUN), qrels, progress=False).trec_query_metrics(["RR"])
    assert table["RR"].tolist() == [1.0, 1.0]


def test_other_refusals_name_what_to_do():
    with pytest.raises(InvalidParameterError, match=r"the run is a polars LazyFrame; pass the frame itself: "
                                                    r"run.collect\(\)"):
        EvaluationResult.from_trec(pl.DataFrame(RUN).lazy(), {"q1": {"d1": 1}}, progress=False)
    with pytest.raises(InvalidParameterError, match=r"subtopics=True reads subtopic qrels from a file or a dict"):
        EvaluationResult.from_trec(pd.DataFrame(RUN), pd.DataFrame({"qid": ["q1"], "docno": ["d1"],
                                                                            "label": [1]}), subtopics=True)
    with pytest.raises(InvalidParameterError, match=r"^run 'B': the run frame has no document id column"):
        evalframe.compare(pd.DataFrame(RUN), pa.table({"qid": ["q1"], "score": [1.0]}), qrels={"q1": {"d1": 1}})
    with pytest.raises(InvalidParameterError, match=r"^run 2: the run frame has no score column"):
        evalframe.fuse([pd.DataFrame(RUN), pd.DataFrame({"qid": ["q1"], "docno": ["d1"]})])
    with pytest.raises(InvalidParameterError, match=r"run must be a path to a TREC run file or a dict .* or a frame "
                                                    r"\(pandas, pyarrow, polars\)"):
        EvaluationResult.from_trec(3, {"q1": {"d1": 1}}, progress=False)


def test_polars_is_needed_only_for_a_polars_frame(monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # polars not installed: an import of it fails
    run = pa.table(RUN)
    table = EvaluationResult.from_trec(run, {"q1": {"d2": 1}}, progress=False).trec_query_metrics(["RR"])
    assert table["RR"].tolist() == [1.0]
