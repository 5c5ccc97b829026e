"""Arrow-backed columns (``pd.ArrowDtype`` lists and strings) are saved as their equivalent object columns:
the same bytes in every file (docs/persistence.md#the-csv-files), and they load back as those object columns."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import SaveError

pa = pytest.importorskip("pyarrow")

LIST_CELLS: dict[str, tuple[Any, list[Any]]] = {
    "gold_contexts_similarity": (pa.float64(), [[0.5, -0.0, 5e-324], None, [], [1.7976931348623157e308, 1e-05, 1e16]]),
    "gold_document_relevance": (pa.int64(), [[1, -2, 2**62], [], None, [0]]),
    "flags": (pa.bool_(), [[True, False], [], None, [False]]),
    "gold_answers": (pa.string(), [["it's", 'say "hi"', "back\\slash"], ["é 中 🎉", "new\nline", "nul \x00"], None, []]),
    "gold_document_ids": (pa.large_string(), [["d1", ""], [], ["d2"], None]),
    "gold_answers_f1": (pa.float32(), [[0.5, 0.25], [0.1], [], None]),
}
TEXTS = ["a", None, "b, 'c'", "d"]


def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(object columns, the same cells as Arrow columns)."""
    plain = {"multilabel_id": ["q1", "q1", "q2", "q3"], "rank": [1.0, 2.0, 1.0, 1.0], "note": pd.Series(TEXTS, dtype=object)}
    arrow = dict(plain, note=pd.Series(TEXTS, dtype=pd.ArrowDtype(pa.string())))
    for name, (kind, cells) in LIST_CELLS.items():
        array = pa.array(cells, type=pa.list_(kind))
        plain[name] = pd.Series(array.to_pylist(), dtype=object)  # float32 cells widen as Python floats
        arrow[name] = pd.Series(pd.arrays.ArrowExtensionArray(array))
    return pd.DataFrame(plain), pd.DataFrame(arrow)


@pytest.mark.parametrize("options", [{}, {"quoting": csv.QUOTE_ALL}, {"quoting": csv.QUOTE_MINIMAL}, {"sep": ";"}])
def test_arrow_columns_write_the_bytes_of_their_object_columns(tmp_path: Path, options: dict[str, Any]) -> None:
    plain, arrow = frames()
    assert isinstance(arrow["gold_answers"].dtype, pd.ArrowDtype)
    EvaluationResult({"N": plain}).save(tmp_path / "plain", progress=False, **options)
    EvaluationResult({"N": arrow}).save(tmp_path / "arrow", progress=False, **options)
    for name in ("N.csv", "evalframe.json"):
        assert (tmp_path / "arrow" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes()
    pd.testing.assert_frame_equal(EvaluationResult.load(tmp_path / "arrow", progress=False)["N"], plain)


def test_arrow_lists_with_missing_elements_write_as_their_object_columns(tmp_path: Path) -> None:
    cells = [[1.0, None], [None], []]
    plain = pd.DataFrame({"gold_answers_f1": pd.Series(cells, dtype=object)})
    arrow = pd.DataFrame({"gold_answers_f1": pd.Series(pd.arrays.ArrowExtensionArray(pa.array(cells, pa.list_(pa.float64()))))})
    EvaluationResult({"N": plain}).save(tmp_path / "plain", progress=False)
    EvaluationResult({"N": arrow}).save(tmp_path / "arrow", progress=False)
    assert (tmp_path / "arrow" / "N.csv").read_bytes() == (tmp_path / "plain" / "N.csv").read_bytes()


def test_a_non_finite_arrow_element_is_refused_as_in_an_object_column(tmp_path: Path) -> None:
    arrow = pd.DataFrame({"gold_answers_f1": pd.Series(pd.arrays.ArrowExtensionArray(
        pa.array([[1.0], [float("inf")]], pa.list_(pa.float64()))))})
    with pytest.raises(SaveError, match=r"column 'gold_answers_f1', row 2: \[inf\]"):
        EvaluationResult({"N": arrow}).save(tmp_path / "arrow", progress=False)


def test_arrow_columns_save_to_parquet_as_their_object_columns(tmp_path: Path) -> None:
    plain, arrow = frames()
    EvaluationResult({"N": arrow}).save(tmp_path / "arrow", format="parquet", progress=False)
    pd.testing.assert_frame_equal(EvaluationResult.load(tmp_path / "arrow", progress=False)["N"], plain)
