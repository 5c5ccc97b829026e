"""Every measure of the registry on Dask: the same numbers as in memory (tests/test_every_measure_everywhere.py checks
the in-memory surfaces against the per-query values)."""

from __future__ import annotations

import pytest

import evalframe.dask
from tests.test_every_measure_everywhere import NAMES, make_run  # noqa: F401

from evalframe import EvaluationResult

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_dask_takes_every_measure(tmp_path, client):
    run, qrels = make_run(1)
    result = EvaluationResult.from_trec(run, qrels)
    folder = result.save(tmp_path / "saved", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client).trec_metrics(NAMES)
    in_memory = result.trec_metrics(NAMES)
    assert list(on_dask) == list(in_memory) == NAMES
    for name in NAMES:
        assert on_dask[name] == pytest.approx(in_memory[name], rel=1e-12, abs=1e-12), name


def test_dask_takes_every_tools_spelling(tmp_path, client):
    """ranx's names, other letter cases and ir_measures' measure objects on Dask (tests/test_names_everywhere.py in
    memory): trec_metrics, query_metrics(measures=), wrong_examples(metric=) and compare."""
    from tests.test_names_everywhere import every_spelling

    written = every_spelling()
    canonical = list(dict.fromkeys(written.values()))
    result = EvaluationResult.from_trec(*make_run(3))
    folder = result.save(tmp_path / "saved", format="parquet", partitions=3, progress=False)
    on_dask = evalframe.dask.load(folder, client=client)
    means = on_dask.trec_metrics(list(written))
    assert list(means) == canonical
    for name, value in result.trec_metrics(canonical).items():
        assert means[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    node = on_dask.nodes[0]
    table = on_dask.query_metrics(node, measures=list(written), compute=True)
    assert set(canonical) <= set(table.columns)
    ir = pytest.importorskip("ir_measures")
    worst = [e["multilabel_id"] for e in on_dask.wrong_examples(node, n=4, metric=ir.nDCG @ 10)]
    assert worst == [e["multilabel_id"] for e in result.wrong_examples(node, n=4, metric="nDCG@10")]
    compared = evalframe.dask.compare(on_dask, on_dask, node=node, metrics=["hit_rate@10", ir.P(rel=2) @ 5], rounds=50)
    assert list(compared.index) == ["Success@10", "P(rel=2)@5"]
