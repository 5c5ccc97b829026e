"""A stored run given to compare as a QueryTable: its table, with its judge scores' directions declared."""

import pandas as pd
import pytest

from evalframe import compare, score_measure
from evalframe.analysis.protocol import QueryTable
from evalframe.errors import InvalidParameterError


def _table(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(values, index=pd.Index(["q1", "q2", "q3", "q4"], name="multilabel_id"))


def test_a_lower_is_better_score_counts_a_fall_as_a_win():
    # latency falls on 3 queries (by 1, 2, 3) and rises on one (by 2): wins 3, losses 1, delta -1.0 = (-1-2-3+2)/4
    a = _table({"latency": [10.0, 10.0, 10.0, 10.0]})
    b = _table({"latency": [9.0, 8.0, 7.0, 12.0]})
    latency = {"latency": score_measure("latency", direction="lower")}
    row = compare(QueryTable(a, latency), QueryTable(b, latency)).loc["latency"]
    assert (row["mean_a"], row["mean_b"], row["delta"]) == (10.0, 9.0, -1.0)
    assert (row["wins"], row["losses"], row["ties"]) == (3, 1, 0)


def test_an_undeclared_score_in_a_plain_table_is_still_refused():
    a, b = _table({"latency": [1.0, 2.0, 3.0, 4.0]}), _table({"latency": [1.0, 2.0, 3.0, 5.0]})
    with pytest.raises(InvalidParameterError, match="'latency' .* no declared score"):
        compare(a, b)
    assert compare(QueryTable(a, {"latency": score_measure("latency")}), QueryTable(b, {}))["wins"].iloc[0] == 1


def test_something_else_is_refused_naming_the_query_table():
    with pytest.raises(InvalidParameterError, match="QueryTable"):
        compare(_table({"mrr": [1.0] * 4}), [1, 2])
