"""Distinct list cells: per-cell work once per distinct cell, spread to the rows (evalframe.frames.arrays)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, SchemaError
from evalframe.frames.arrays import DistinctLists, select_lists
from evalframe.frames.codings import Codings
from tests.fixtures import hand_result, reader_frame, retriever_frame


def _shared(series: pd.Series) -> DistinctLists:
    """Code equal lists (by their repr) as one cell, as a loader does."""
    codes, uniques = pd.factorize(series.map(repr))
    first = [series.iloc[int(np.argmax(codes == c))] for c in range(len(uniques))]
    cells = np.empty(len(first), dtype=object)
    cells[:] = first
    return DistinctLists(codes.astype(np.int64), cells)


def test_selected_lists_lengths_values_and_elements():
    series = pd.Series([[1.0, 0.0], [], [1.0, 0.0], [0.5], None], dtype=object)
    lists = _shared(series)
    assert len(lists.cells) == 4
    selected = select_lists(lists, np.array([3, 0, 2, 1]), series.index, column="c", where="w")
    assert selected.row_lengths().tolist() == [1, 2, 2, 0]
    assert len(selected.cells) == 3  # the None cell is not selected, so it is not checked
    owner, element = selected.row_elements()
    assert owner.tolist() == [0, 1, 1, 2, 2]
    assert selected.flat_floats()[element].tolist() == [0.5, 1.0, 0.0, 1.0, 0.0]


def test_selected_lists_name_the_row_of_a_bad_cell():
    series = pd.Series([[1.0], "[1.0]", [1.0], "[1.0]"], dtype=object)
    lists = _shared(series)
    with pytest.raises(SchemaError, match=r"w: column 'c' must hold a list in every row; row 'b' holds '\[1.0\]' \(str\)"):
        select_lists(lists, np.array([1, 2, 3]), pd.Index(["a", "b", "c", "d"]), column="c", where="w")
    with pytest.raises(SchemaError, match=r"column 'c' must hold lists of numbers; row 'd' holds \['x'\]"):
        bad = _shared(pd.Series([[1.0], [1.0], [2.0], ["x"]], dtype=object))
        select_lists(bad, np.array([0, 3]), pd.Index(["a", "b", "c", "d"]), column="c", where="w").flat_floats()


def test_missing_cells_as_empty_do_not_touch_the_shared_cells():
    lists = DistinctLists.of_rows(pd.Series([None, ["d1"]], dtype=object))
    selected = select_lists(lists, np.array([0, 1]), pd.RangeIndex(2), column="c", where="w", missing_as_empty=True)
    assert selected.row_lengths().tolist() == [0, 1]
    assert lists.cells[0] is None


def _coded(result: EvaluationResult) -> EvaluationResult:
    """The same result with every list column coded by value, as the loaders hand it over."""
    columns = ("gold_document_ids", "document_ids", "gold_documents_id_match", "gold_contexts_similarity",
               "gold_answers_match")
    codings = {node: {column: _shared(frame[column]) for column in columns if column in frame.columns}
               for node, frame in result.node_results.items()}
    return EvaluationResult(dict(result.node_results), matching=result.matching, codings=Codings.of_lists(codings))


@pytest.mark.parametrize("kwargs", [{}, {"simulated_top_k_retriever": 2}, {"document_scope": "context"},
                                    {"document_scope": "document_id_and_context", "simulated_top_k_reader": 1}])
def test_coded_lists_give_the_same_metrics(kwargs):
    result = hand_result()
    assert _coded(result).calculate_metrics(**kwargs) == result.calculate_metrics(**kwargs)


def test_replacing_a_frame_or_clearing_the_cache_drops_the_coding():
    result = _coded(hand_result())
    before = result.calculate_metrics()
    frame = retriever_frame()
    frame["gold_documents_id_match"] = [[0.0] * len(v) for v in frame["gold_documents_id_match"]]
    frame["gold_answers_match"] = [[0.0] * len(v) for v in frame["gold_answers_match"]]
    result["Retriever"] = frame
    assert result.calculate_metrics()["Retriever"]["recall_multi_hit"] < before["Retriever"]["recall_multi_hit"]

    result = _coded(hand_result())
    result.calculate_metrics()
    result["Reader"]["document_ids"] = [["nowhere"]] * len(result["Reader"])  # an in-place edit of a key column
    result.clear_cache()
    fresh = EvaluationResult({"Retriever": retriever_frame(), "Reader": reader_frame()})
    fresh["Reader"]["document_ids"] = [["nowhere"]] * len(fresh["Reader"])
    assert result.calculate_metrics(simulated_top_k_retriever=2) == fresh.calculate_metrics(simulated_top_k_retriever=2)
