"""metrics_at_k equals the one-k calls of calculate_metrics, on the hand-made result and on random frames."""

from __future__ import annotations

import numpy as np
import pytest

from evalframe import InvalidParameterError
from tests.fixtures import hand_result
from tests.test_reference import random_result


def _check(result, ks, **scopes):
    table = result.metrics_at_k(ks=ks, **scopes)
    one_k = {}  # calculate_metrics once per (level, k): every row of that k reads the same call
    for (node, k, metric), value in table.set_index(["node", "k", "metric"])["value"].items():
        document_metrics = ("recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg")
        level = "retriever" if metric in document_metrics else "reader"
        if (level, k) not in one_k:
            one_k[level, k] = result.calculate_metrics(**{f"simulated_top_k_{level}": k}, **scopes)
        expected = one_k[level, k][node][metric]
        assert value == pytest.approx(expected, abs=1e-12, nan_ok=True), (node, k, metric)
    return table


def test_hand_result_at_k(storage):
    table = _check(storage(hand_result()), (3, 1, 2))
    assert sorted(table["k"].unique()) == [1, 2, 3]
    retriever = table[(table["node"] == "Retriever") & (table["metric"] == "recall_single_hit")]
    assert retriever["value"].tolist() == pytest.approx([3 / 6, 4 / 6, 5 / 6])  # worked out in test_document_metrics


@pytest.mark.filterwarnings("ignore:document_scope=.* ignores answer_scope")
# seeds 0-14 here, 15-39 under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize("seeds", [range(15), pytest.param(range(15, 40), marks=pytest.mark.stress)], ids=["0-14", "15-39"])
def test_random_frames_at_k(seeds):
    for seed in seeds:
        result, params = random_result(seed)
        with np.errstate(all="ignore"):
            _check(result, (1, 2, 4), document_scope=params["document_scope"], answer_scope=params["answer_scope"],
                   eval_mode=params["eval_mode"])


def test_recall_at_k_never_decreases_with_k(storage):
    table = storage(hand_result()).metrics_at_k(ks=range(1, 6), node="Retriever")
    recall = table[table["metric"] == "recall_single_hit"]["value"].to_numpy()
    assert (np.diff(recall) >= 0).all()


@pytest.mark.parametrize("ks", [(), (0, 1), (1.5,), 3])
def test_bad_ks(ks):
    with pytest.raises(InvalidParameterError, match="ks"):
        hand_result().metrics_at_k(ks=ks)


@pytest.mark.parametrize("ks", [None, 3.0, np.int64(3), [], "1,3"])
def test_ks_that_are_not_a_list_of_ints_are_refused(ks):
    from evalframe import load_demo_result

    with pytest.raises(InvalidParameterError, match="ks must be a non-empty list of positive ints"):
        load_demo_result().metrics_at_k(ks=ks)
