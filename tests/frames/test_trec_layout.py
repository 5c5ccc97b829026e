"""from_trec hands its query and document codes to the trec measures; an edit of the frame is never missed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.frames.codings import Codings, NodeCoding
from evalframe.frames.trec_layout import TrecLayout

RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}, "q3": {"d1": 1.0}}
QRELS = {"q1": {"d2": 1, "d9": 2}, "q2": {"d4": 1}, "q4": {"d1": 1}}
MEASURES = ["RR", "P@1", "AP", "nDCG"]


def layout_of(result: EvaluationResult, node: str = "Retriever") -> TrecLayout | None:
    """The TREC layout the result holds for ``node`` and still uses (None: dropped, or never handed over)."""
    return result._store.trec_layout(node)


def coded(frame: pd.DataFrame, layout: TrecLayout) -> EvaluationResult:
    """A result of ``frame`` given its layout, as from_trec hands it over."""
    return EvaluationResult({"Retriever": frame}, codings=Codings({"Retriever": NodeCoding(trec=layout)}))


def fresh() -> EvaluationResult:
    return EvaluationResult.from_trec(RUN, QRELS, progress=False)


def rebuilt(result: EvaluationResult) -> pd.DataFrame:
    """The same measures on a copy of the frame (no layout: every id hashed)."""
    copy = EvaluationResult({"Retriever": result["Retriever"].copy()})
    assert layout_of(copy) is None
    return copy.trec_query_metrics(MEASURES, complete=True)


def test_the_layout_is_used_and_gives_the_same_numbers():
    result = fresh()
    frame = result["Retriever"]
    assert layout_of(result) is not None and layout_of(result).holds(frame)
    pd.testing.assert_frame_equal(result.trec_query_metrics(MEASURES, complete=True), rebuilt(result))


@pytest.mark.parametrize("edit", [
    lambda f: f.loc.__setitem__((1, "document_id"), "d9"),  # now the gold document at rank 2
    lambda f: f.loc.__setitem__((0, "multilabel_id"), "q4"),
    lambda f: f.__setitem__("document_id", f["document_id"].map(lambda d: {"d2": "d1", "d1": "d2"}.get(d, d))),
    lambda f: f.loc.__setitem__((0, "type"), "answer"),
    lambda f: f.loc.__setitem__((0, "eval_mode"), "isolated"),
    lambda f: f.iloc.__setitem__((slice(0, 2), f.columns.get_loc("document_id")), ["d2", "d1"]),
])
def test_an_edit_after_from_trec_gives_new_numbers(edit):
    result = fresh()
    before = result.trec_query_metrics(MEASURES, complete=True)
    edit(result["Retriever"])
    assert layout_of(result) is None  # an edited key column drops the layout
    after = result.trec_query_metrics(MEASURES, complete=True)
    pd.testing.assert_frame_equal(after, rebuilt(result))
    assert not after.equals(before)


def test_an_edit_before_the_first_call_is_seen():
    result = fresh()
    assert result["Retriever"].loc[0, "document_id"] == "d1"
    result["Retriever"].loc[0, "document_id"] = "d9"
    assert result.trec_query_metrics("P@2").loc["q1", "P@2"] == 1.0  # d9 and d2 both relevant


def test_an_equal_string_written_anew_still_gives_the_same_numbers():
    result = fresh()
    frame = result["Retriever"]
    frame.loc[0, "document_id"] = "".join(["d", "1"])  # a new object, equal text
    pd.testing.assert_frame_equal(result.trec_query_metrics(MEASURES, complete=True), rebuilt(result))


def test_the_layout_leaves_with_its_frame():
    result = fresh()
    frame = result["Retriever"]
    assert layout_of(result) is not None
    copy = frame.copy()
    assert layout_of(EvaluationResult({"Retriever": copy})) is None
    result["Retriever"] = copy  # a replaced frame starts afresh: no layout
    assert layout_of(result) is None
    del result, frame
    import gc
    gc.collect()
    assert np.isfinite(copy["rank"]).all()


def test_a_layout_that_does_not_hold_is_not_used():
    """A layout handed over with a frame edited before the result was made is refused on first use (checked)."""
    from evalframe.sources.trec import trec_frame_coded

    frame, layout = trec_frame_coded(pd.DataFrame({"qid": ["q1", "q1"], "docid": ["d1", "d2"], "score": [2.0, 1.0],
                                                   "rank": [1, 2]}),
                                     pd.DataFrame({"qid": ["q1"], "docid": ["d9"], "relevance": [1]}))
    assert layout_of(coded(frame, layout)) is not None
    assert coded(frame, layout).trec_query_metrics("RR").loc["q1", "RR"] == 0.0  # d9 not retrieved
    frame.loc[0, "document_id"] = "d9"  # the judged document, now at rank 1
    result = coded(frame, layout)
    assert layout_of(result) is None
    assert result.trec_query_metrics("RR").loc["q1", "RR"] == 1.0


@pytest.mark.parametrize("edit", [None, lambda f: f.loc.__setitem__((0, "document_id"), "d9"),
                                  lambda f: f.loc.__setitem__((0, "eval_mode"), "isolated")])
def test_to_trec_run_writes_what_the_frame_holds(tmp_path, edit):
    result = fresh()
    if edit is not None:
        edit(result["Retriever"])
    copy = EvaluationResult({"Retriever": result["Retriever"].copy()})
    written = result.to_trec_run(tmp_path / "run").read_text()
    assert written == copy.to_trec_run(tmp_path / "copy").read_text()
    assert written.startswith("q1 Q0 d9 1 3.0" if edit is not None and "d9" in written else "q1 Q0 d")


# ------------------------------------------------------------------ the judgments handed over as codes (issue 16)
GRADED_RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "00": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}, "q3": {"d1": 1.0}}
GRADED_QRELS = {"q1": {"d2": 3, "d9": 2, "d3": 0, "d1": -1, "00": 2}, "q2": {"d4": 1, "d5": -2}, "q4": {"d1": 1}}
ALL = ["RR", "P@1", "P@2", "AP", "nDCG", "nDCG@2", "R@2", "Success@1", "Rprec", "Bpref", "P(rel=2)@2"]


def graded() -> EvaluationResult:
    with pytest.warns(UserWarning, match="no-answer id"):
        return EvaluationResult.from_trec(GRADED_RUN, GRADED_QRELS, progress=False)


def test_the_judgments_are_taken_as_codes_and_give_the_hashed_numbers(monkeypatch):
    """Graded qrels, judged non-relevant and negative grades, the no-answer id, a qrels-only query: the codes of
    from_trec and the ids hashed anew (a copy of the frame) give the same values, and no id is hashed."""
    from evalframe.frames import judged

    result = graded()
    expected = rebuilt_with(result, ALL)

    def refuse(*args, **kwargs):
        raise AssertionError("the judgments were hashed, not taken from the layout")

    monkeypatch.setattr(judged, "_hashed_judgments", refuse)
    pd.testing.assert_frame_equal(result.trec_query_metrics(ALL, complete=True), expected)


def rebuilt_with(result: EvaluationResult, measures: list[str]) -> pd.DataFrame:
    copy = EvaluationResult({"Retriever": result["Retriever"].copy()})
    assert layout_of(copy) is None
    return copy.trec_query_metrics(measures, complete=True)


@pytest.mark.parametrize("edit, changes", [
    (lambda f: f.__setitem__("gold_document_ids", [["d3", "d9", "00"] if q == "q1" else ids
                                                   for q, ids in zip(f["multilabel_id"], f["gold_document_ids"])]), True),
    (lambda f: f.at.__setitem__((0, "gold_document_relevance"), [1, 1, 1]), True),
    (lambda f: f.at.__setitem__((0, "nonrelevant_document_ids"), ["d3", "d7"]), False),  # values may not move
    (lambda f: f.at.__setitem__((0, "nonrelevant_document_relevance"), [5, -1]), True),
    (lambda f: f.__setitem__("gold_document_relevance", f["gold_document_relevance"].map(lambda g: [2 * x for x in g])),
     True),
])
def test_an_edit_of_a_judgment_cell_gives_new_numbers(edit, changes, monkeypatch):
    from evalframe.frames import judged

    result = graded()
    before = result.trec_query_metrics(ALL, complete=True)
    edit(result["Retriever"])
    assert layout_of(result) is not None  # the key columns still hold
    hashed = []
    original = judged._hashed_judgments
    monkeypatch.setattr(judged, "_hashed_judgments", lambda *a, **k: hashed.append(1) or original(*a, **k))
    after = result.trec_query_metrics(ALL, complete=True)
    assert hashed
    pd.testing.assert_frame_equal(after, rebuilt_with(result, ALL))
    assert not changes or not after.equals(before)


def test_ids_that_are_not_all_text_are_hashed_as_text():
    """trec_frame on frames with int docids (not a reader's): the judged ids are compared as text, as before."""
    from evalframe.sources.trec import trec_frame_coded

    run = pd.DataFrame({"qid": ["q1"] * 3, "docid": pd.Series([1, 2, "3"], dtype=object), "score": [3.0, 2.0, 1.0],
                        "rank": [1, 2, 3]})
    qrels = pd.DataFrame({"qid": ["q1", "q1"], "docid": pd.Series(["2", 3], dtype=object), "relevance": [1, 1]})
    frame, layout = trec_frame_coded(run, qrels)
    assert not layout.text_ids
    result = coded(frame, layout)
    values = result.trec_query_metrics(["P@3", "RR"])
    assert values.loc["q1"].tolist() == [2 / 3, 0.5]
    pd.testing.assert_frame_equal(values, EvaluationResult({"Retriever": frame.copy()}).trec_query_metrics(["P@3", "RR"]))


def test_random_runs_coded_and_hashed_agree():
    """A differential test on random runs and graded qrels: from_trec's codes against the ids hashed anew."""
    rng = np.random.default_rng(16)
    run = {f"q{q}": {f"d{d}": float(np.round(rng.random(), 2)) for d in rng.choice(400, 30, replace=False)}
           for q in range(60)}
    qrels = {f"q{q}": {f"d{d}": int(g) for d, g in zip(rng.choice(400, 25, replace=False), rng.integers(-1, 4, 25))}
             for q in range(10, 70)}
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    pd.testing.assert_frame_equal(result.trec_query_metrics(ALL, complete=True), rebuilt_with(result, ALL))


def test_every_query_retrieved_no_placeholder_row():
    """Every judged query is in the run (no placeholder row): the rows are taken as they are; the same values."""
    rng = np.random.default_rng(17)
    run = {f"q{q}": {f"d{d}": float(np.round(rng.random(), 1)) for d in rng.choice(100, 20, replace=False)}
           for q in range(30)}
    qrels = {f"q{q}": {f"d{d}": int(g) for d, g in zip(rng.choice(100, 10, replace=False), rng.integers(0, 3, 10))}
             for q in range(30)}
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    assert (result["Retriever"]["document_id"] != "").all()
    pd.testing.assert_frame_equal(result.trec_query_metrics(ALL, complete=True), rebuilt_with(result, ALL))


def test_judged_ids_that_are_no_document_are_not_counted_on_either_path():
    """qrels frames (not a reader's) judging "" and "00": trec_frame's codes leave them out as the hashed path does."""
    from evalframe.sources.trec import trec_frame_coded

    run = pd.DataFrame({"qid": ["q1"] * 3 + ["q2"], "docid": ["d1", "00", "d2", "d3"], "score": [3.0, 2.0, 1.0, 1.0],
                        "rank": [1, 2, 3, 1]})
    qrels = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2"], "docid": ["00", "", "d2", "d3", "00"],
                          "relevance": [2, 1, 1, 0, 1]})
    with pytest.warns(UserWarning, match="no-answer id"):
        frame, layout = trec_frame_coded(run, qrels)
    assert layout.judgments.doc.size == 2  # d2 and d3
    result = coded(frame, layout)
    pd.testing.assert_frame_equal(result.trec_query_metrics(ALL, complete=True), rebuilt_with(result, ALL))
