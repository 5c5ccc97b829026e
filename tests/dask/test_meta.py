"""Per-query meta built on Dask: a sharded build keeps the ``"meta"`` object of each line (tests/analysis/test_meta.py
analyses the same runs file's meta on both backends)."""

from __future__ import annotations

import json

import pandas as pd

from evalframe import EvaluationResult, read_runs
from tests.analysis.test_meta import META, RUNS


def test_a_sharded_build_keeps_the_meta_of_each_line(tmp_path):
    from evalframe.dask.build import from_runs

    lines = [json.loads(text) for text in RUNS.read_text(encoding="utf-8").splitlines() if text.strip()]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps({**line, "meta": meta}) + "\n" for line, meta in zip(lines[:2], META)),
                     encoding="utf-8")
    second.write_text("".join(json.dumps(line) + "\n" for line in lines[2:]), encoding="utf-8")  # no meta at all
    folder = from_runs([first, second], tmp_path / "built", partitions=2)
    whole = tmp_path / "whole.jsonl"
    whole.write_text(first.read_text(encoding="utf-8") + second.read_text(encoding="utf-8"), encoding="utf-8")
    expected = EvaluationResult.from_runs(*read_runs(whole), progress=False)
    loaded = EvaluationResult.load(folder.path)
    for node in expected:
        by_query = loaded[node].drop_duplicates("multilabel_id").set_index("query")["meta"]
        texts = [None if pd.isna(text) else text for text in by_query.reindex([line["query"] for line in lines])]
        assert texts == ['{"source": {"team": "support"}, "topic": "geography"}', '{"topic": "geography"}', None, None]
    pd.testing.assert_frame_equal(loaded.sliced_metrics("meta.topic"), expected.sliced_metrics("meta.topic"))
