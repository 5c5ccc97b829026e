"""from_trec hands its query and document codes to the trec measures; an edit of the frame is never missed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.build.trec import trec_layout

RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}, "q3": {"d1": 1.0}}
QRELS = {"q1": {"d2": 1, "d9": 2}, "q2": {"d4": 1}, "q4": {"d1": 1}}
MEASURES = ["RR", "P@1", "AP", "nDCG"]


def fresh() -> EvaluationResult:
    return EvaluationResult.from_trec(RUN, QRELS, progress=False)


def rebuilt(result: EvaluationResult) -> pd.DataFrame:
    """The same measures on a copy of the frame (no layout: every id hashed)."""
    copy = EvaluationResult({"Retriever": result["Retriever"].copy()})
    assert trec_layout(copy["Retriever"]) is None
    return copy.trec_metrics(MEASURES, per_query=True, complete=True)


def test_the_layout_is_used_and_gives_the_same_numbers():
    result = fresh()
    frame = result["Retriever"]
    assert trec_layout(frame) is not None and trec_layout(frame).holds(frame)
    pd.testing.assert_frame_equal(result.trec_metrics(MEASURES, per_query=True, complete=True), rebuilt(result))


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
    before = result.trec_metrics(MEASURES, per_query=True, complete=True)
    edit(result["Retriever"])
    assert not trec_layout(result["Retriever"]).holds(result["Retriever"])
    after = result.trec_metrics(MEASURES, per_query=True, complete=True)
    pd.testing.assert_frame_equal(after, rebuilt(result))
    assert not after.equals(before)


def test_an_edit_before_the_first_call_is_seen():
    result = fresh()
    assert result["Retriever"].loc[0, "document_id"] == "d1"
    result["Retriever"].loc[0, "document_id"] = "d9"
    assert result.trec_metrics("P@2", per_query=True).loc["q1", "P@2"] == 1.0  # d9 and d2 both relevant


def test_an_equal_string_written_anew_still_gives_the_same_numbers():
    result = fresh()
    frame = result["Retriever"]
    frame.loc[0, "document_id"] = "".join(["d", "1"])  # a new object, equal text
    pd.testing.assert_frame_equal(result.trec_metrics(MEASURES, per_query=True, complete=True), rebuilt(result))


def test_the_layout_leaves_with_its_frame():
    result = fresh()
    frame = result["Retriever"]
    assert trec_layout(frame) is not None
    copy = frame.copy()
    assert trec_layout(copy) is None
    del result, frame
    import gc
    gc.collect()
    assert np.isfinite(copy["rank"]).all()


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
