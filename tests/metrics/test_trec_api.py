"""trec_metrics (the means, always a dict), trec_query_metrics (the per-query table) and trec_eval's names.

The frame, worked out by hand (node "Retriever", relevance level 1):
  qA  ranks: 1 d3 (grade 2), 2 d1 (not judged), 3 d2 (grade 0)     judged: d3 2, d9 1, d2 0     R = 2, N = 1
  qB  ranks: 1 d5 (not judged), 2 d4 (grade 1)                      judged: d4 1                 R = 1, N = 0
"""

from __future__ import annotations

from math import log2

import pandas as pd
import pytest

from evalframe import EvaluationResult

HAND = {  # measure typed as trec_eval / pytrec_eval name it -> (canonical name, [qA, qB])
    "map": ("AP", [(1 / 1) / 2, (1 / 2) / 1]),
    "map_cut.1": ("AP@1", [(1 / 1) / 2, 0.0]),
    "ndcg": ("nDCG", [2 / (2 + 1 / log2(3)), (1 / log2(3)) / 1]),  # gains: qA 2 at rank 1; qB 1 at rank 2
    "ndcg_cut_1": ("nDCG@1", [2 / 2, 0.0]),
    "ndcg_cut.1": ("nDCG@1", [2 / 2, 0.0]),
    "P_1": ("P@1", [1.0, 0.0]),
    "P.3": ("P@3", [1 / 3, 1 / 3]),
    "recall_3": ("R@3", [1 / 2, 1 / 1]),
    "recall.1": ("R@1", [1 / 2, 0.0]),
    "recip_rank": ("RR", [1 / 1, 1 / 2]),
    "success_1": ("Success@1", [1.0, 0.0]),
    "success.3": ("Success@3", [1.0, 1.0]),
    "Rprec": ("Rprec", [1 / 2, 0 / 1]),  # qA's top 2: d3, d1; qB's top 1: d5
    "bpref": ("Bpref", [1 / 2, 1 / 1]),  # no judged non-relevant document above d3, nor above d4 (d5 is unjudged)
}


def _row(qid, rank, doc, gold, grades, other=(), other_grades=()):
    return {"multilabel_id": qid, "type": "document", "eval_mode": "integrated", "rank": rank, "document_id": doc,
            "gold_document_ids": list(gold), "gold_document_relevance": list(grades),
            "nonrelevant_document_ids": list(other), "nonrelevant_document_relevance": list(other_grades)}


def _result() -> EvaluationResult:
    a = (["d3", "d9"], [2, 1], ["d2"], [0])
    return EvaluationResult({"Retriever": pd.DataFrame([
        _row("qA", 1, "d3", *a), _row("qA", 2, "d1", *a), _row("qA", 3, "d2", *a),
        _row("qB", 1, "d5", ["d4"], [1]), _row("qB", 2, "d4", ["d4"], [1]),
    ])})


@pytest.mark.parametrize("name", list(HAND))
def test_trec_eval_names_mean_what_trec_eval_means(name):
    canonical, values = HAND[name]
    table = _result().trec_query_metrics(name)
    assert list(table.columns) == [canonical]
    assert table[canonical].tolist() == pytest.approx(values, abs=1e-15)
    assert _result().trec_metrics(name) == pytest.approx({canonical: sum(values) / 2}, abs=1e-15)


def test_trec_eval_names_equal_the_canonical_ones_in_one_call():
    result = _result()
    named = result.trec_query_metrics(list(HAND))
    canonical = result.trec_query_metrics([canonical for canonical, _ in HAND.values()])
    pd.testing.assert_frame_equal(named, canonical)
    assert list(named.columns) == list(dict.fromkeys(canonical for canonical, _ in HAND.values()))  # repeats dropped


def test_trec_metrics_is_the_means_of_trec_query_metrics():
    result = _result()
    means = result.trec_metrics(["AP", "P@3", "RR"])
    assert isinstance(means, dict)
    assert means == pytest.approx({"AP": 0.5, "P@3": 1 / 3, "RR": 0.75}, abs=1e-15)
    table = result.trec_query_metrics(["AP", "P@3", "RR"])
    assert table.index.name == "multilabel_id" and list(table.index) == ["qA", "qB"]
    assert {name: float(table[name].mean()) for name in table.columns} == means


def test_dask_trec_query_metrics_and_trec_metrics(tmp_path):
    pytest.importorskip("dask.dataframe")
    import evalframe.dask

    folder = _result().save(tmp_path / "p", format="parquet", partitions=2, progress=False)
    cluster = evalframe.dask.load(folder)
    expected = {"qA": {"AP": 0.5, "RR": 1.0}, "qB": {"AP": 0.5, "RR": 0.5}}
    lazy = cluster.trec_query_metrics(["map", "recip_rank"])
    assert lazy.compute().sort_index().to_dict("index") == expected
    assert cluster.trec_metrics(["map", "recip_rank"]) == pytest.approx({"AP": 0.5, "RR": 0.75}, abs=1e-15)


def test_metrics_at_k_takes_trec_eval_stems():
    # the same rankings and judgments as TREC run and qrels (scores give the ranks)
    result = EvaluationResult.from_trec({"qA": {"d3": 3.0, "d1": 2.0, "d2": 1.0}, "qB": {"d5": 2.0, "d4": 1.0}},
                                        {"qA": {"d3": 2, "d9": 1, "d2": 0}, "qB": {"d4": 1}})
    table = result.metrics_at_k((1, 3), measures=["ndcg_cut", "recall"], document_scope="document_id")
    rows = table[table["metric"].isin(["nDCG", "R"])]
    assert rows[["metric", "k"]].values.tolist() == [["nDCG", 1], ["nDCG", 3], ["R", 1], ["R", 3]]
    # nDCG@1: qA 1, qB 0; nDCG@3: qA 2 / (2 + 1/log2 3), qB 1/log2 3; R@1: 1/2, 0; R@3: 1/2, 1
    assert rows["value"].tolist() == pytest.approx([0.5, (2 / (2 + 1 / log2(3)) + 1 / log2(3)) / 2, 0.25, 0.75],
                                                   abs=1e-15)
