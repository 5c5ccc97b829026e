"""evalframe.dask.compare on the measure's own scale, as in memory (tests/analysis/test_compare_scales.py): a count's
sum and a geometric mean, their delta, interval and tests the same numbers as evalframe.compare's."""

from __future__ import annotations

import pytest

import evalframe.dask
from evalframe import EvaluationResult, compare

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_dask_compares_counts_on_their_sum_and_geometric_means_on_their_ratio(tmp_path, client):
    # NumRet: a retrieves 3, 5, 2, 3 documents (sum 13, mean 3.25), b one more for each (17); q2's and q4's relevant
    # document is lower in b: their AP and gm_map change
    qrels = {f"q{q}": {"rel": 1, "other": 1} for q in range(1, 5)}
    first = {"a": {1: 0, 2: 0, 3: 0, 4: 0}, "b": {1: 0, 2: 3, 3: 0, 4: 1}}
    results = []
    for name, counts in (("a", [3, 5, 2, 3]), ("b", [4, 6, 3, 4])):
        run = {f"q{q}": {("rel" if i == first[name][q] else f"x{i}"): 10.0 - i for i in range(count)}
               for q, count in zip(range(1, 5), counts)}
        result = EvaluationResult.from_trec(run, qrels)
        folder = result.save(tmp_path / name, format="parquet", partitions=2, progress=False)
        results.append((result, evalframe.dask.load(folder, client=client)))
    metrics = ["num_ret", "gm_map", "AP"]
    in_memory = compare(results[0][0], results[1][0], metrics=metrics, rounds=300)
    on_dask = evalframe.dask.compare(results[0][1], results[1][1], metrics=metrics, rounds=300)
    assert (on_dask.loc["NumRet", "mean_a"], on_dask.loc["NumRet", "mean_b"]) == (13.0, 17.0)  # was 3.25 and 4.25
    assert (on_dask.loc["NumRet", "ci_low"], on_dask.loc["NumRet", "ci_high"]) == (4.0, 4.0)
    for metric in ("NumRet", "gm_map", "AP"):
        for column in ("mean_a", "mean_b", "delta", "ci_low", "ci_high", "t", "p_ttest", "p_value"):
            assert on_dask.loc[metric, column] == pytest.approx(in_memory.loc[metric, column], rel=1e-12, abs=1e-12), \
                (metric, column)
