"""evalframe.dask on URLs: from_runs(out_dir=url) written by the workers, and evalframe.dask.load(url) read by them.

The workers are separate processes (the session's LocalCluster), where memory:// is another filesystem: these tests
use the tests' S3 server on 127.0.0.1, which the workers reach with the same storage options.
"""

from __future__ import annotations

import errno
import json
import os
import warnings

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import evalframe.dask  # noqa: E402
from evalframe import EvaluationResult  # noqa: E402
from evalframe.errors import SaveError  # noqa: E402
from evalframe.io import atomic  # noqa: E402
from tests.dask.test_build import hand_shards, in_memory  # noqa: E402,F401 - the fixture, used by name
from tests.fixtures import hand_result  # noqa: E402


def test_from_runs_to_the_s3_server_equals_the_in_memory_build(client, hand_shards, s3):  # noqa: F811
    url = f"{s3.url}/built"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the line without gold (tests/dask/test_build.py checks the warning)
        built = evalframe.dask.from_runs(hand_shards, url, partitions=3, client=client,
                                         storage_options=s3.storage_options)
        expected = in_memory(*hand_shards)
    assert str(built.path) == url and built.queries == 4
    keys = s3.keys("built")
    generation = json.loads(s3.fs.cat_file(f"{s3.name}/built/evalframe.json"))["generation"]
    # the part files of every node under the generation, nothing else (the shards' scratch pieces removed)
    assert sorted(keys) == sorted(["built/evalframe.json"] + [f"built/{generation}/{node}.part-{n:05d}-of-00003.parquet"
                                                              for node in ("Retriever", "Reader", "Both") for n in range(3)])
    got = EvaluationResult.load(url, storage_options=s3.storage_options, progress=False)
    for node in expected:
        pd.testing.assert_frame_equal(got[node], expected[node])
    on_dask = evalframe.dask.load(url, client=client, storage_options=s3.storage_options)
    metrics, wanted = on_dask.calculate_metrics(), expected.calculate_metrics()
    assert {node: pytest.approx(values) for node, values in metrics.items()} == wanted


def test_dask_load_of_a_url_reads_the_partitions_on_the_workers(client, s3):
    url = f"{s3.url}/saved"
    hand_result().save(url, format="parquet", partitions=3, progress=False, storage_options=s3.storage_options)
    result = evalframe.dask.load(url, client=client, storage_options=s3.storage_options)
    assert result.rows == {"Retriever": 13, "Reader": 8}
    metrics = result.calculate_metrics()  # the hand-worked values of tests/test_result.py
    assert metrics["Reader"]["exact_match"] == pytest.approx(3 / 4, abs=1e-12)
    assert metrics["Retriever"]["recall_multi_hit"] == pytest.approx((1 + 1 + 1 + 1 + 0 + 0.5) / 6, abs=1e-12)
    assert metrics["Retriever"]["mrr"] == pytest.approx((1 + 1 + 1 / 3 + 1 + 0 + 0.5) / 6, abs=1e-12)
    # the workers read the parts: a partition per task, from the URL with the storage options
    sizes = result.map_partitions(lambda part, keys: len(part["Reader"]))
    assert sum(sizes) == 8 and len(sizes) == 3
    whole = result.compute()
    pd.testing.assert_frame_equal(whole["Reader"], EvaluationResult.load(url, storage_options=s3.storage_options,
                                                                         progress=False)["Reader"])


def test_a_failed_from_runs_to_a_url_leaves_the_old_result(client, hand_shards, s3, monkeypatch):  # noqa: F811
    url = f"{s3.url}/kept"
    hand_result().save(url, format="parquet", partitions=2, progress=False, storage_options=s3.storage_options)
    before = s3.keys("kept")

    def fail(step: str) -> None:
        if step == "put evalframe.json":  # everything written by the workers, the manifest not yet
            raise OSError(errno.EIO, os.strerror(errno.EIO), step)

    monkeypatch.setattr(atomic, "step", fail)
    with warnings.catch_warnings(), pytest.raises(SaveError, match="the previous result, if any, is unchanged"):
        warnings.simplefilter("ignore")
        evalframe.dask.from_runs(hand_shards, url, partitions=3, client=client, storage_options=s3.storage_options)
    assert s3.keys("kept") == before  # the new generation's parts removed, the old result as it was
    loaded = evalframe.dask.load(url, client=client, storage_options=s3.storage_options)
    assert loaded.partitions == 2 and loaded.rows == {"Retriever": 13, "Reader": 8}
