"""Every aggregation of the registry goes through partials: a table summed up whole, or in parts added up (as Dask adds
up partitions), gives the number worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalframe.analysis import aggregate
from evalframe.metrics.registry import AGGREGATIONS
from evalframe.metrics.trec import aggregation_of

VALUES = [0.25, 1.0, 0.0, float("nan")]  # NaN: a query without a value
#: by hand: mean (0.25 + 1 + 0) / 3; sum 1.25; geometric mean with trec_eval's floor 1e-5 for the 0
EXPECTED = {"mean": 1.25 / 3, "sum": 1.25, "geometric_mean": (0.25 * 1.0 * 1e-5) ** (1 / 3)}


@pytest.fixture(params=sorted(AGGREGATIONS))
def kind(request, monkeypatch):
    """Column ``g`` aggregated by each kind (no registry entry declares the geometric mean or the sum yet)."""
    monkeypatch.setattr(aggregate, "aggregation_of", lambda column: AGGREGATIONS[request.param] if column == "g"
                        else aggregation_of(column))
    return request.param


def test_a_whole_table_and_its_parts_give_the_hand_worked_number(kind):
    table = pd.DataFrame({"g": VALUES, "f1": [1.0, 0.0, 0.5, 0.5]}, index=["q1", "q2", "q3", "q4"])
    whole = aggregate.means(aggregate.partial(table))
    parts = aggregate.merge([{"n": aggregate.partial(table.iloc[:1])}, {"n": aggregate.partial(table.iloc[1:])}])["n"]
    assert whole["g"] == pytest.approx(EXPECTED[kind], rel=1e-12)
    assert aggregate.means(parts)["g"] == pytest.approx(EXPECTED[kind], rel=1e-12)
    assert whole["f1"] == 0.5 and parts.queries == 4  # f1 is a mean whatever g is
    assert AGGREGATIONS[kind](np.array(VALUES)) == pytest.approx(EXPECTED[kind], rel=1e-12)


def test_slices_finish_each_metric_by_its_aggregation(kind):
    table = pd.DataFrame({"g": VALUES + [0.5]}, index=[f"q{i}" for i in range(5)])
    labels = pd.DataFrame({"side": ["a", "a", "a", "a", "b"]}, index=table.index)
    pieces = [aggregate.slice_partial(table.iloc[:2], labels.iloc[:2]),
              aggregate.slice_partial(table.iloc[2:], labels.iloc[2:])]
    sliced = aggregate.merge_slices(["side"], pieces)
    assert sliced.loc["a", "g"] == pytest.approx(EXPECTED[kind], rel=1e-12)
    assert sliced.loc["b", "g"] == pytest.approx(0.5, rel=1e-12)  # one value: its mean, sum and geometric mean
    assert sliced["queries"].tolist() == [4, 1]


def test_no_value_gives_nan_for_a_mean_and_zero_for_a_sum():
    empty = np.array([float("nan")])
    assert math.isnan(AGGREGATIONS["mean"](empty)) and math.isnan(AGGREGATIONS["geometric_mean"](empty))
    assert AGGREGATIONS["sum"](empty) == 0.0


def test_the_aggregation_of_a_column_is_its_registry_entrys():
    assert aggregation_of("f1") is AGGREGATIONS["mean"]
    assert aggregation_of("nDCG@10") is AGGREGATIONS["mean"]  # a trec_eval measure's entry
    assert aggregation_of("latency_ms") is AGGREGATIONS["mean"]  # a column no entry names
