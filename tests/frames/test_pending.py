"""Nodes held as columns until a frame is asked for (evalframe/frames/pending.py), through the result's analyses."""

from __future__ import annotations

import copy
import pickle

import pandas as pd
import pytest

from evalframe import EvaluationResult, load_demo_result
from evalframe.frames.pending import NodeFrames, PendingFrame


class FrameColumns:
    """A column source over a frame (copies, so nothing is shared with it), counting the columns made."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.names = list(frame.columns)
        self.made: list[str] = []

    def column(self, name: str) -> pd.Series:
        self.made.append(name)
        return self.frame[name].copy().reset_index(drop=True)


def pending_demo() -> tuple[EvaluationResult, dict[str, FrameColumns]]:
    demo = load_demo_result()
    sources = {node: FrameColumns(demo[node]) for node in demo}
    result = EvaluationResult({node: PendingFrame(len(demo[node]), source) for node, source in sources.items()},
                              matching=demo.matching)
    return result, sources


def test_metrics_of_a_pending_node_need_no_frame_and_equal_the_built_ones() -> None:
    result, sources = pending_demo()
    metrics = result.calculate_metrics()
    assert round(metrics["Retriever"]["recall_single_hit"], 4) == 0.875  # the demo's figure (docstring of the facade)
    assert not result.node_results.is_built("Retriever") and not result.node_results.is_built("Reader")
    assert "query" not in sources["Retriever"].made  # only the columns the metrics read
    assert metrics == load_demo_result().calculate_metrics()
    assert repr(result) == "<EvaluationResult: 2 node(s) (Retriever: 24 rows, Reader: 27 rows)>"
    assert not result.node_results.is_built("Retriever")


def test_the_built_frame_is_the_content_and_an_edit_of_it_is_seen() -> None:
    result, _ = pending_demo()
    before = result.calculate_metrics()["Retriever"]["recall_single_hit"]
    frame = result["Retriever"]
    assert result.node_results.is_built("Retriever")
    pd.testing.assert_frame_equal(frame, load_demo_result()["Retriever"])
    assert result.calculate_metrics()["Retriever"]["recall_single_hit"] == before
    # every gold match removed: recall drops to what the no-match rows give (0 for every query with gold documents)
    for column in ("gold_id_match", "context_match", "answer_match", "gold_id_or_answer_match",
                   "gold_id_and_answer_match", "gold_id_or_context_match", "gold_id_and_context_match"):
        if column in frame.columns:
            frame[column] = 0.0
    frame["gold_documents_id_match"] = [[0.0] * len(cell) for cell in frame["gold_documents_id_match"]]
    edited = result.calculate_metrics()["Retriever"]["recall_single_hit"]
    reference = load_demo_result()
    reference["Retriever"] = frame.copy()
    assert edited == reference.calculate_metrics()["Retriever"]["recall_single_hit"] != before


def test_iteration_over_names_does_not_build_but_values_do() -> None:
    result, _ = pending_demo()
    assert list(result) == ["Retriever", "Reader"] and "Reader" in result and len(result) == 2
    assert result.has_documents("Retriever") and not result.has_answers("Retriever")
    assert not any(result.node_results.is_built(node) for node in result)
    frames = dict(result.node_results)
    assert all(result.node_results.is_built(node) for node in result)
    pd.testing.assert_frame_equal(frames["Reader"], load_demo_result()["Reader"])


@pytest.mark.parametrize("duplicate", [pickle.loads, copy.deepcopy])
def test_a_result_with_pending_nodes_pickles_with_them_built(duplicate: object) -> None:
    result, _ = pending_demo()
    result.calculate_metrics()
    copied = duplicate(pickle.dumps(result)) if duplicate is pickle.loads else duplicate(result)  # type: ignore[operator]
    assert all(copied.node_results.is_built(node) for node in copied)
    assert copied.calculate_metrics() == load_demo_result().calculate_metrics()


def test_node_frames_replace_and_delete() -> None:
    frames = NodeFrames()
    source = FrameColumns(pd.DataFrame({"a": [1, 2]}))
    frames["n"] = PendingFrame(2, source)
    assert frames.n_rows("n") == 2 and frames.pending("n") is not None
    frames["n"] = pd.DataFrame({"a": [3]})
    assert frames.is_built("n") and frames.view("n")["a"].tolist() == [3] and source.made == []
    del frames["n"]
    assert "n" not in frames and len(frames) == 0


@pytest.mark.parametrize("fmt", ["csv", "parquet", "partitions"])
def test_an_edit_of_a_metric_column_after_metrics_on_the_columns_is_seen(tmp_path: object, fmt: str) -> None:
    """Metrics computed while the nodes were columns, then the built frames' metric columns edited (review of issue
    26: the prepared rows kept reading the columns they were made from)."""
    options = {"partitions": 3, "format": "parquet"} if fmt == "partitions" else {"format": fmt}
    saved = load_demo_result().save(tmp_path / "r", **options)  # type: ignore[operator, arg-type]
    result = EvaluationResult.load(saved)
    result.calculate_metrics(document_scope="context")
    result._repr_html_()  # a notebook's display computes the metrics first too
    result["Reader"]["f1"] = 0.0
    result["Retriever"]["context_match"] = 0.0
    metrics = result.calculate_metrics(document_scope="context")
    assert metrics["Reader"]["f1"] == 0.0  # every row's f1 is 0 now
    reference = EvaluationResult({node: result[node].copy() for node in result}, matching=result.matching)
    assert metrics == reference.calculate_metrics(document_scope="context")
    del result["Reader"]["exact_match"]
    assert "exact_match" not in result.calculate_metrics()["Reader"]
