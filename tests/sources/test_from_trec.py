"""EvaluationResult.from_trec / to_trec_run / to_qrels, from_runs(keep_scores=True) and `evalframe convert` with TREC files.

Expected frames are written out by hand from the texts below; the mirror test builds the same queries with
from_runs (labels that carry only a document id) and asks for the same frame.
"""

from __future__ import annotations

import gzip
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalframe import (Answer, Document, EvaluationResult, InvalidParameterError, Label, LoadError, SaveError,
                       SchemaError, UnknownNodeError, load_demo_result)
from evalframe.present.cli import main

# q1: d7 and d1 tie at 1.25, so d7 (the larger docid) ranks 2nd. q2 has no relevant document (d8 is -1: in the pool,
# unjudged). q3 is only in the qrels: one placeholder row, after q2 (it follows q2 in the qrels). q9 has no judgment.
RUN_TEXT = "q1 Q0 d2 1 3.5 bm25\nq1 Q0 d1 2 1.25 bm25\nq1 Q0 d7 3 1.25 bm25\nq2 Q0 d3 1 0.5 bm25\nq9 Q0 d4 1 2 bm25\n"
QRELS_TEXT = "q1 0 d1 2\nq1 0 d5 0\nq1 0 d2 1\nq2 0 d8 -1\nq3 0 d6 1\n"

EXPECTED = {
    "multilabel_id": ["q1", "q1", "q1", "q2", "q3", "q9"],
    "query": ["q1", "q1", "q1", "q2", "q3", "q9"],
    "filters": [None] * 6,
    "gold_answers": [[], [], [], [], [], []],
    "context": [""] * 6,
    "gold_contexts": [["", ""], ["", ""], ["", ""], [], [""], []],
    "gold_id_match": [1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    "context_match": [0.0] * 6,
    "answer_match": [0.0] * 6,
    "gold_id_or_answer_match": [1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    "gold_id_and_answer_match": [0.0] * 6,
    "gold_id_or_context_match": [1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    "gold_id_and_context_match": [0.0] * 6,
    "gold_id_and_context_and_answer_match": [0.0] * 6,
    "context_and_answer_match": [0.0] * 6,
    "rank": [1, 2, 3, 1, 1, 1],
    "document_id": ["d2", "d7", "d1", "d3", "", "d4"],
    "gold_document_ids": [["d1", "d2"]] * 3 + [[], ["d6"], []],
    "gold_documents_id_match": [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [], [0.0], []],
    "gold_contexts_similarity": [[0.0, 0.0]] * 3 + [[], [0.0], []],
    "gold_answers_match": [[], [], [], [], [], []],
    "type": ["document"] * 6,
    "node": ["Retriever"] * 6,
    "eval_mode": ["integrated"] * 6,
    "index": [0, 1, 2, 0, 0, 0],  # Haystack 1.x's row number within the query
    "score": [3.5, 1.25, 1.25, 0.5, math.nan, 2.0],
    "gold_document_relevance": [[2, 1]] * 3 + [[], [1], []],
    "nonrelevant_document_ids": [["d5"]] * 3 + [["d8"], [], []],
    "nonrelevant_document_relevance": [[0]] * 3 + [[-1], [], []],
}
FLOATS = [name for name, values in EXPECTED.items() if name.endswith("_match") and not isinstance(values[0], list)]
CANONICAL_RUN = "q1 Q0 d2 1 3.5 bm25\nq1 Q0 d7 2 1.25 bm25\nq1 Q0 d1 3 1.25 bm25\nq2 Q0 d3 1 0.5 bm25\nq9 Q0 d4 1 2.0 bm25\n"
CANONICAL_QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d5 0\nq2 0 d8 -1\nq3 0 d6 1\n"


def expected_frame() -> pd.DataFrame:
    columns = {}
    for name, values in EXPECTED.items():
        dtype = np.int64 if name in ("rank", "index") else np.float64 if name in FLOATS or name == "score" else object
        columns[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(columns)


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN_TEXT)
    qrels.write_text(QRELS_TEXT)
    return run, qrels


def normalised(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip()]


# ------------------------------------------------------------------ the frame
def test_from_trec_builds_the_hand_worked_frame(files):
    result = EvaluationResult.from_trec(*files, progress=False)
    assert list(result) == ["Retriever"]
    pd.testing.assert_frame_equal(result["Retriever"], expected_frame())


def test_the_dict_forms_build_the_same_frame():
    run = {"q1": {"d2": 3.5, "d1": 1.25, "d7": 1.25}, "q2": {"d3": 0.5}, "q9": {"d4": 2.0}}
    qrels = {"q1": {"d1": 2, "d5": 0, "d2": 1}, "q2": {"d8": -1}, "q3": {"d6": 1}}
    pd.testing.assert_frame_equal(EvaluationResult.from_trec(run, qrels, progress=False)["Retriever"], expected_frame())


def test_query_order_follows_the_run_and_places_qrels_only_queries_after_their_predecessor():
    run = {"b": {"x": 1.0}, "d": {"x": 1.0}}
    qrels = {"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}, "d": {"x": 1}, "e": {"x": 1}}
    frame = EvaluationResult.from_trec(run, qrels, progress=False)["Retriever"]
    assert frame["multilabel_id"].tolist() == ["a", "b", "c", "d", "e"]
    assert frame["document_id"].tolist() == ["", "x", "", "x", ""]


def test_it_mirrors_from_runs_for_labels_that_carry_only_document_ids(files):
    """The same two queries through from_runs: every column, type and cell equal (multilabel_id aside)."""
    def label(query: str, docid: str) -> Label:
        return Label(query, Document("", id=docid), True, True, "gold-label")

    labels = [[label("q1", "d1"), label("q1", "d2")], [label("q3", "d6")]]
    documents = [[Document("", id="d2"), Document("", id="d7"), Document("", id="d1")], []]
    built = EvaluationResult.from_runs(labels, {"Retriever": {"documents": documents}}, progress=False)["Retriever"]
    trec = EvaluationResult.from_trec(*files, progress=False)["Retriever"]
    trec = trec.loc[trec["multilabel_id"].isin(["q1", "q3"])].reset_index(drop=True)
    assert list(trec.columns) == list(built.columns) + ["score", "gold_document_relevance", "nonrelevant_document_ids",
                                                        "nonrelevant_document_relevance"]
    pd.testing.assert_frame_equal(trec[built.columns].drop(columns="multilabel_id"), built.drop(columns="multilabel_id"))
    # and the Haystack metrics read it the same way
    by_trec = EvaluationResult({"Retriever": trec}).calculate_metrics()
    assert by_trec == EvaluationResult({"Retriever": built}).calculate_metrics()


def test_haystack_metrics_and_examples_work_on_it(files):
    result = EvaluationResult.from_trec(*files, progress=False)
    table = result.query_metrics("Retriever")
    # q1: relevant at ranks 1 and 3 -> rr 1, precision 2/3; q3 (placeholder) retrieved nothing relevant
    assert table.loc["q1", "mrr"] == 1.0 and table.loc["q1", "precision"] == pytest.approx(2 / 3)
    assert table.loc["q3", "mrr"] == 0.0 and table.loc["q3", "recall_single_hit"] == 0.0
    assert set(result.calculate_metrics()["Retriever"]) == {"recall_multi_hit", "recall_single_hit", "precision", "map",
                                                           "mrr", "ndcg"}
    assert [e["multilabel_id"] for e in result.wrong_examples("Retriever", n=10)][:1] == ["q3"]
    assert "Retriever" in result.report().text


def test_queries_give_the_query_text(files, tmp_path):
    tsv = tmp_path / "topics.tsv"
    tsv.write_text("q1\tcapital of peru\nq2\twho wrote hamlet\nq3\tthree\nq9\tnine\nq100\tunused\n")
    frame = EvaluationResult.from_trec(*files, queries=tsv, progress=False)["Retriever"]
    assert frame["query"].tolist() == ["capital of peru"] * 3 + ["who wrote hamlet", "three", "nine"]
    with pytest.warns(UserWarning, match=r"3 of 4 queries have no text in queries= \(e.g. \['q2', 'q3', 'q9'\]\)"):
        frame = EvaluationResult.from_trec(*files, queries={"q1": "capital of peru"}, progress=False)["Retriever"]
    assert frame["query"].tolist() == ["capital of peru"] * 3 + ["q2", "q3", "q9"]


def test_the_no_answer_id_is_named_when_judged():
    with pytest.warns(UserWarning, match="judge a document with id '00' \\(query 'q2' and 1 more\\): that id is Haystack's "
                                         "no-answer id"):
        result = EvaluationResult.from_trec({"q1": {"00": 1.0}}, {"q2": {"00": 1}, "q3": {"00": 0}}, progress=False)
    frame = result["Retriever"]  # q2 and q3 precede every run query in the qrels, so they come first
    assert frame["multilabel_id"].tolist() == ["q2", "q3", "q1"]
    assert frame["gold_document_ids"].tolist() == [["00"], [], []]


def test_empty_qrels_dict_gives_empty_gold_lists(tmp_path):
    result = EvaluationResult.from_trec({"q1": {"a": 1.0}}, {}, progress=False)
    assert result["Retriever"]["gold_document_ids"].tolist() == [[]]
    assert result.to_trec_run(tmp_path / "run").read_text() == "q1 Q0 a 1 1.0 evalframe\n"
    with pytest.raises(SaveError, match="the qrels holds no judgment"):
        result.to_qrels(tmp_path / "qrels")
    only_judged = EvaluationResult.from_trec({"q1": {"a": 1.0}}, {"q2": {"a": 1}}, progress=False)
    only_judged["Retriever"] = only_judged["Retriever"].iloc[:1]  # the placeholder of q2 alone
    with pytest.raises(SaveError, match="the run holds no retrieved document"):
        only_judged.to_trec_run(tmp_path / "run")


def test_trec_frame_refuses_duplicate_documents():
    from evalframe.sources.trec import trec_frame

    run = pd.DataFrame({"qid": ["q", "q"], "docid": ["a", "a"], "score": [2.0, 1.0], "rank": [1, 2]})
    qrels = pd.DataFrame({"qid": ["q"], "docid": ["a"], "relevance": [1]})
    with pytest.raises(InvalidParameterError, match="the run lists document 'a' twice in query 'q'"):
        trec_frame(run, qrels)
    with pytest.raises(InvalidParameterError, match="the qrels lists document 'a' twice in query 'q'"):
        trec_frame(run.iloc[:1], pd.concat([qrels, qrels]))


def test_from_trec_errors(files, tmp_path):
    run, qrels = files
    with pytest.raises(InvalidParameterError, match="node must be a non-empty string"):
        EvaluationResult.from_trec(run, qrels, node="", progress=False)
    with pytest.raises(LoadError, match=f"qrels file {tmp_path / 'nope'} does not exist"):
        EvaluationResult.from_trec(run, tmp_path / "nope", progress=False)
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n")
    with pytest.raises(LoadError, match=r"bad.run:2: document 'd1' appears twice in query 'q1'"):
        EvaluationResult.from_trec(bad, qrels, progress=False)
    with pytest.raises(InvalidParameterError, match="progress must be None, True or False"):
        EvaluationResult.from_trec(run, qrels, progress="yes")


# ------------------------------------------------------------------ back to TREC files
def test_canonical_files_round_trip(tmp_path):
    # the same files with other whitespace: tabs, runs of spaces
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(CANONICAL_RUN.replace(" Q0 ", "\tQ0  "))
    qrels.write_text(CANONICAL_QRELS.replace(" 0 ", "  0\t"))
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    assert result.to_trec_run(tmp_path / "again.run", tag="bm25").read_text() == CANONICAL_RUN
    assert result.to_qrels(tmp_path / "again.qrels").read_text() == CANONICAL_QRELS
    assert normalised(run.read_text()) == normalised(CANONICAL_RUN)


def test_any_run_and_qrels_are_written_canonically(files, tmp_path):
    result = EvaluationResult.from_trec(*files, progress=False)
    assert result.to_trec_run(tmp_path / "run.gz", tag="bm25").read_bytes()[:2] == b"\x1f\x8b"
    assert result.to_trec_run(tmp_path / "run", node="Retriever", tag="bm25").read_text() == CANONICAL_RUN
    assert result.to_qrels(tmp_path / "qrels").read_text() == CANONICAL_QRELS


qids = st.text(alphabet="abcAB019_-.", min_size=1, max_size=3)
docids = st.text(alphabet="abcdAB0129_:/é", min_size=1, max_size=3).filter(lambda d: d != "00")  # Haystack's no-answer id
scores = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 2.5]), st.floats(allow_nan=False, width=64))


def _as_float32(value: float) -> float:
    """``value`` rounded to a C float, as trec_eval stores a run's score (beyond its range: inf)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


@st.composite
def trec_files(draw):
    """A run and qrels that list their queries in one common order, written canonically by this test's own code."""
    order = draw(st.lists(qids, min_size=1, max_size=5, unique=True))
    in_run = draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    in_qrels = draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order)))
    if not any(in_run):
        in_run[0] = True
    if not any(in_qrels):
        in_qrels[-1] = True
    run_lines, qrels_lines = [], []
    for qid, retrieved, judged in zip(order, in_run, in_qrels):
        if retrieved:
            docs = draw(st.dictionaries(docids, scores, min_size=1, max_size=6))
            # score (as trec_eval's 32-bit float sim), then docid, both descending
            ranked = sorted(docs.items(), key=lambda item: (_as_float32(item[1]), item[0]), reverse=True)
            run_lines += [f"{qid} Q0 {d} {r} {s!r} tag" for r, (d, s) in enumerate(ranked, start=1)]
        if judged:
            grades = draw(st.dictionaries(docids, st.integers(-2, 3), min_size=1, max_size=6))
            qrels_lines += [f"{qid} 0 {d} {g}" for d, g in sorted(grades.items())]
    return "\n".join(run_lines) + "\n", "\n".join(qrels_lines) + "\n"


@pytest.mark.stress  # the long sweep (60 pairs of files): .ci/run runs it with -m stress; the suite runs 20 below
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=trec_files(), separator=st.sampled_from([" ", "\t", "  "]))
def test_hypothesis_round_trip_of_many_files_is_byte_equal_after_normalising_whitespace(tmp_path, texts, separator):
    test_hypothesis_round_trip_is_byte_equal_after_normalising_whitespace.hypothesis.inner_test(tmp_path, texts, separator)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=trec_files(), separator=st.sampled_from([" ", "\t", "  "]))
def test_hypothesis_round_trip_is_byte_equal_after_normalising_whitespace(tmp_path, texts, separator):
    run_text, qrels_text = texts
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(run_text.replace(" ", separator), encoding="utf-8")
    qrels.write_text(qrels_text.replace(" ", separator), encoding="utf-8")
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    assert result.to_trec_run(tmp_path / "out.run", tag="tag").read_text(encoding="utf-8") == run_text
    assert result.to_qrels(tmp_path / "out.qrels").read_text(encoding="utf-8") == qrels_text


def test_ir_measures_reads_the_written_files_as_the_input_dicts(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    run = {"q1": {"d2": 3.5, "d1": 1.25, "d7": 1.25}, "q2": {"d3": 1 / 3}}
    qrels = {"q1": {"d1": 2, "d5": 0, "d2": 1}, "q2": {"d8": -1}, "q3": {"d6": 1}}
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    read_run: dict[str, dict[str, float]] = {}
    for doc in ir_measures.read_trec_run(str(result.to_trec_run(tmp_path / "run"))):
        read_run.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    read_qrels: dict[str, dict[str, int]] = {}
    for qrel in ir_measures.read_trec_qrels(str(result.to_qrels(tmp_path / "qrels"))):
        read_qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    assert read_run == run and read_qrels == qrels


@pytest.mark.parametrize("storage", ["csv", "parquet"])
def test_a_saved_and_loaded_result_keeps_the_trec_columns(files, tmp_path, storage):
    result = EvaluationResult.from_trec(*files, progress=False)
    loaded = EvaluationResult.load(result.save(tmp_path / "saved", format=storage, progress=False), progress=False)
    pd.testing.assert_frame_equal(loaded["Retriever"], expected_frame())
    assert loaded.to_trec_run(tmp_path / "run", tag="bm25").read_text() == CANONICAL_RUN
    assert loaded.to_qrels(tmp_path / "qrels").read_text() == CANONICAL_QRELS
    assert loaded.calculate_metrics() == result.calculate_metrics()


def test_scores_must_agree_with_the_ranks(files, tmp_path):
    result = EvaluationResult.from_trec(*files, progress=False)
    frame = result["Retriever"]
    result["Retriever"] = frame.assign(score=[1.0, 2.0, 0.5, 0.5, math.nan, 2.0])  # d7 (rank 2) outscores d2 (rank 1)
    with pytest.raises(SchemaError, match=r"node 'Retriever', query 'q1': the scores disagree with the ranks: document "
                                          r"'d2' at rank 1 has score 1.0, document 'd7' at rank 2 has score 2.0.*"
                                          r"pass scores='rank'"):
        result.to_trec_run(tmp_path / "run")
    # equal scores must follow trec_eval's tie-break (larger docid first): d2 before d7 at equal scores is not
    result["Retriever"] = frame.assign(score=[1.0, 1.0, 0.5, 0.5, math.nan, 2.0])
    with pytest.raises(SchemaError, match="'d2' at rank 1 has score 1.0, document 'd7' at rank 2 has score 1.0"):
        result.to_trec_run(tmp_path / "run")
    assert not (tmp_path / "run").exists()
    # scores="rank": n - rank + 1 per query, so the order is the frame's
    text = result.to_trec_run(tmp_path / "run", scores="rank").read_text()
    assert text == ("q1 Q0 d2 1 3.0 evalframe\nq1 Q0 d7 2 2.0 evalframe\nq1 Q0 d1 3 1.0 evalframe\n"
                    "q2 Q0 d3 1 1.0 evalframe\nq9 Q0 d4 1 1.0 evalframe\n")
    result["Retriever"] = frame.assign(score=[3.0, 2.0, math.nan, 0.5, math.nan, 2.0])
    with pytest.raises(SchemaError, match=r"query 'q1': document 'd1' \(rank 3\) has no score \(NaN\).*scores='rank'"):
        result.to_trec_run(tmp_path / "run")
    with pytest.raises(InvalidParameterError, match=r"scores must be one of \['score', 'rank'\]"):
        result.to_trec_run(tmp_path / "run", scores="ranks")


def test_scores_from_ranks_by_hand(tmp_path):
    labels = [[Label("q", Document("", id="g"), True, True, "gold-label")]]
    docs = [[Document("", id="b"), Document("", id="g"), Document("", id="a")]]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": docs}}, progress=False)
    qid = result["Retriever"]["multilabel_id"].iloc[0]
    assert result.to_trec_run(tmp_path / "run").read_text() == (
        f"{qid} Q0 b 1 3.0 evalframe\n{qid} Q0 g 2 2.0 evalframe\n{qid} Q0 a 3 1.0 evalframe\n")
    assert result.to_qrels(tmp_path / "qrels").read_text() == f"{qid} 0 g 1\n"


def test_to_trec_run_refuses_duplicates_and_picks_the_document_node(tmp_path):
    labels = [[Label("q", Document("", id="g"), True, True, "gold-label"),
               Label("q", Document("", id="g"), True, True, "gold-label")]]  # two labels, one document
    docs = [[Document("", id="g"), Document("", id="g")]]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": docs},
                                                 "Reader": {"answers": [[Answer("x", document_ids=["g"])]]}},
                                        progress=False)
    with pytest.raises(SchemaError, match=r"node 'Retriever', query '.*': document 'g' is retrieved twice; trec_eval "
                                          "refuses a run with duplicate documents"):
        result.to_trec_run(tmp_path / "run")
    qid = result["Retriever"]["multilabel_id"].iloc[0]
    assert result.to_trec_run(tmp_path / "run", duplicates="first").read_text() == f"{qid} Q0 g 1 1.0 evalframe\n"
    with pytest.raises(InvalidParameterError, match=r"duplicates must be one of \['error', 'first'\]"):
        result.to_trec_run(tmp_path / "run", duplicates="last")
    assert result.to_qrels(tmp_path / "qrels").read_text() == f"{qid} 0 g 1\n"  # listed twice: one judgment
    with pytest.raises(SchemaError, match="node 'Reader' has no document rows"):
        result.to_trec_run(tmp_path / "run", node="Reader")
    with pytest.raises(UnknownNodeError):
        result.to_trec_run(tmp_path / "run", node="Retriver")
    two = EvaluationResult({"A": result["Retriever"], "B": result["Retriever"]})
    with pytest.raises(InvalidParameterError, match=r"this result has 2 \(\['A', 'B'\]\).*pass node='<name>'"):
        two.to_qrels(tmp_path / "qrels")


def test_the_demo_result_goes_to_trec_files(tmp_path):
    """A Haystack 1.x folder: an empty retrieval loads with document_id None, and one query retrieves a document twice."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    result = load_demo_result()
    with pytest.raises(SchemaError, match="document 'doc-python' is retrieved twice.*duplicates='first'"):
        result.to_trec_run(tmp_path / "demo.run")
    run = result.to_trec_run(tmp_path / "demo.run", duplicates="first")
    qrels = result.to_qrels(tmp_path / "demo.qrels")
    again = EvaluationResult.from_trec(run, qrels, progress=False)
    frame = result["Retriever"]
    # every query comes back; the one without judgments (a no-answer question) and the one without a retrieved
    # document (only in the run / only in the qrels) both sit between the same two queries: their order is the files'
    order = list(dict.fromkeys(frame["multilabel_id"]))
    back = list(dict.fromkeys(again["Retriever"]["multilabel_id"]))
    assert back == order[:3] + [order[4], order[3]] + order[5:]
    # pytrec_eval on dicts made here from the frame (each document at its best rank) and on the written files agree
    rows = frame.loc[frame["eval_mode"] == "integrated"].sort_values(["multilabel_id", "rank"], kind="stable")
    rows = rows.loc[rows["document_id"].notna() & (rows["document_id"] != "")].drop_duplicates(
        ["multilabel_id", "document_id"])
    run_dict = {q: {d: 1.0 / r for d, r in zip(g["document_id"], g["rank"])} for q, g in rows.groupby("multilabel_id")}
    qrels_dict = {q: {d: 1 for d in ids if d not in ("", "00")}
                  for q, ids in zip(frame["multilabel_id"], frame["gold_document_ids"])}
    qrels_dict = {q: d for q, d in qrels_dict.items() if d}
    measures = {"recip_rank", "P_3", "map"}
    expected = pytrec_eval.RelevanceEvaluator(qrels_dict, measures).evaluate(run_dict)
    read_back = {q: dict(zip(g["document_id"], g["score"])) for q, g in again["Retriever"].groupby("multilabel_id")
                 if (g["document_id"] != "").all()}
    assert pytrec_eval.RelevanceEvaluator(qrels_dict, measures).evaluate(read_back) == expected
    assert len(expected) >= 5


# ------------------------------------------------------------------ from_runs(keep_scores=True)
def test_keep_scores_adds_a_float_score_column_and_only_then(tmp_path):
    labels = [[Label("q1", Document("", id="g"), True, True, "gold-label")],
              [Label("q2", Document("", id="h"), True, True, "gold-label")]]
    outputs = {"Retriever": {"documents": [[Document("", id="a", score=0.25), Document("", id="g")], []]}}
    plain = EvaluationResult.from_runs(labels, outputs, progress=False)["Retriever"]
    kept = EvaluationResult.from_runs(labels, outputs, keep_scores=True, progress=False)["Retriever"]
    assert "score" not in plain.columns
    assert list(kept.columns) == list(plain.columns) + ["score"]
    pd.testing.assert_frame_equal(kept.drop(columns="score"), plain)
    assert kept["score"].dtype == np.float64
    np.testing.assert_array_equal(kept["score"].to_numpy(), [0.25, np.nan, np.nan])  # None, and the empty retrieval
    with pytest.raises(SchemaError, match="has no score"):
        EvaluationResult.from_runs(labels, outputs, keep_scores=True, progress=False).to_trec_run(tmp_path / "run")


def test_keep_scores_writes_the_documents_scores(tmp_path):
    labels = [[Label("q1", Document("", id="g"), True, True, "gold-label")]]
    docs = [[Document("", id="a", score=7), Document("", id="b", score=0.5), Document("", id="g", score=0.5)]]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": docs}}, keep_scores=True, progress=False)
    qid = result["Retriever"]["multilabel_id"].iloc[0]
    with pytest.raises(SchemaError, match="'b' at rank 2 has score 0.5, document 'g' at rank 3 has score 0.5"):
        result.to_trec_run(tmp_path / "run")  # trec_eval would put g (the larger docid) before b
    docs[0][1:] = [Document("", id="b", score=0.75), Document("", id="g", score=0.5)]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": docs}}, keep_scores=True, progress=False)
    assert result.to_trec_run(tmp_path / "run").read_text() == (
        f"{qid} Q0 a 1 7.0 evalframe\n{qid} Q0 b 2 0.75 evalframe\n{qid} Q0 g 3 0.5 evalframe\n")


def test_keep_scores_errors():
    labels = [[Label("q1", Document("", id="g"), True, True, "gold-label")]]
    with pytest.raises(InvalidParameterError, match="keep_scores must be True or False; got 'yes'"):
        EvaluationResult.from_runs(labels, {"Retriever": {"documents": [[]]}}, keep_scores="yes")
    with pytest.raises(ValueError, match=r"node 'Retriever', 'documents', query 0, document 1: field 'score' must be a "
                                         r"number or None"):
        EvaluationResult.from_runs(labels, {"Retriever": {"documents": [[Document("", id="a"),
                                                                         Document("", id="b", score="high")]]}},
                                   keep_scores=True, progress=False)


# ------------------------------------------------------------------ evalframe convert
def test_convert_trec_to_folder_and_back(files, tmp_path, capsys):
    run, qrels = files
    for storage in ("csv", "parquet"):
        folder = tmp_path / f"result-{storage}"
        assert main(["convert", str(run), str(folder), "--to", storage, "--qrels", str(qrels)]) == 0
        assert capsys.readouterr().out.startswith(f"wrote 4 queries (6 rows) as {storage} to ")
        pd.testing.assert_frame_equal(EvaluationResult.load(folder)["Retriever"], expected_frame())
        out_run, out_qrels = tmp_path / f"{storage}.run.gz", tmp_path / f"{storage}.qrels"
        assert main(["convert", str(folder), str(out_run), "--to", "trec", "--qrels", str(out_qrels), "--tag", "bm25"]) == 0
        assert capsys.readouterr().out.startswith("wrote the TREC run")
        assert gzip.decompress(out_run.read_bytes()).decode() == CANONICAL_RUN
        assert out_qrels.read_text() == CANONICAL_QRELS


def test_convert_options(files, tmp_path, capsys):
    run, qrels = files
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tfirst\nq2\tsecond\nq3\tthird\nq9\tninth\n")
    assert main(["convert", str(run), str(tmp_path / "r"), "--to", "csv", "--qrels", str(qrels), "--queries", str(topics),
                 "--node", "BM25"]) == 0
    capsys.readouterr()
    loaded = EvaluationResult.load(tmp_path / "r")
    assert list(loaded) == ["BM25"] and loaded["BM25"]["query"].iloc[0] == "first"
    assert main(["convert", str(tmp_path / "r"), str(tmp_path / "run"), "--to", "trec", "--scores", "rank"]) == 0
    assert (tmp_path / "run").read_text().splitlines()[0] == "q1 Q0 d2 1 3.0 evalframe"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for argv, words in (
            (["convert", str(run), str(tmp_path / "x"), "--to", "csv"], "needs its judgments: add --qrels QRELS"),
            (["convert", str(run), str(tmp_path / "x"), "--to", "trec"], "TREC to TREC is not a conversion"),
            (["convert", str(run), str(tmp_path / "x"), "--to", "csv", "--qrels", str(qrels), "--tag", "t"],
             "--tag does not apply when reading a TREC run"),
            (["convert", str(tmp_path / "r"), str(tmp_path / "x"), "--to", "parquet", "--qrels", str(qrels)],
             "--qrels does not apply when rewriting a results folder"),
            (["convert", str(tmp_path / "r"), str(tmp_path / "x"), "--to", "trec", "--queries", str(topics)],
             "--queries does not apply when writing TREC files"),
            (["convert", str(qrels), str(tmp_path / "x"), "--to", "csv", "--qrels", str(run)],
             "a TREC run line has 6 whitespace-separated columns"),
            (["convert", str(tmp_path / "missing"), str(tmp_path / "x"), "--to", "csv"],
             f"results folder {tmp_path / 'missing'} does not exist"),
            (["convert", str(tmp_path / "missing"), str(tmp_path / "x"), "--to", "csv", "--qrels", str(qrels)],
             f"run file {tmp_path / 'missing'} does not exist"),
            (["convert", str(run), str(tmp_path / "x"), "--to", "csv", "--from", "folder"], "is not a folder"),
        ):
            assert main(argv) == 1
            assert words in capsys.readouterr().err


# ------------------------------------------------------------------ one coding of two id sets; the readers' checked pairs
@pytest.mark.parametrize("first, second", [
    (["a", "b", "c"], ["c", "x", "a", "y"]),
    (["a", "é", "😀"], ["😀", "e"]),
    (["1", "2"], [1, "2"]),  # not all str: factorised as objects, 1 and "1" apart
    (["a", b"a"], ["a"]),  # bytes are not text
    (["a", None], [None, "b"]),  # a missing id is a value
    ([], ["a"]),
    (["a"], []),
])
def test_one_coding_is_the_factorisation_of_both(first, second):
    from evalframe.sources.trec import one_coding
    from evalframe.frames.trec_codes import factorized

    first_array, second_array = np.array(first + [0], dtype=object)[:-1], np.array(second + [0], dtype=object)[:-1]
    first_codes, second_codes, values = one_coding(first_array, second_array)
    codes, expected = factorized(np.concatenate([first_array, second_array]))
    assert values.dtype == object and list(map(repr, values)) == list(map(repr, expected))
    assert first_codes.tolist() == codes[:len(first)].tolist() and second_codes.tolist() == codes[len(first):].tolist()


def test_a_readers_frame_edited_into_a_duplicate_is_refused():
    from evalframe.sources.trec import trec_frame_coded
    from evalframe.sources.trec_files import read_qrels_coded, read_run_coded

    (run, run_codes), (qrels, qrels_codes) = read_run_coded({"q1": {"d1": 2.0, "d2": 1.0}}), read_qrels_coded({"q1": {"d1": 1}})
    assert run_codes.distinct_pairs(run, "qid", "docid") and qrels_codes.distinct_pairs(qrels, "qid", "docid")
    trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes)
    run.loc[1, "docid"] = "d1"
    assert not run_codes.distinct_pairs(run, "qid", "docid")
    with pytest.raises(InvalidParameterError, match="lists document 'd1' twice in query 'q1'"):
        trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes)


def test_one_coding_appends_the_extra_values_uncoded():
    from evalframe.sources.trec import one_coding

    for first, second in ((["a", "b"], ["c", "a"]), ([1, "b"], ["b", 2])):  # the Arrow path and the object path
        first_array, second_array = np.array(first, dtype=object), np.array(second, dtype=object)
        first_codes, second_codes, values = one_coding(first_array, second_array, extra=[""])
        plain = one_coding(first_array, second_array)
        assert values.tolist() == plain[2].tolist() + [""]
        assert first_codes.tolist() == plain[0].tolist() and second_codes.tolist() == plain[1].tolist()
