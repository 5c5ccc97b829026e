"""Per-query meta on Dask: slices by ``meta.<field>`` and ``meta``, wrong_examples' ``meta``, the refusal of a field
no partition has, as in memory (the example runs file with a ``"meta"`` object on three of its four lines).

Per-query values of docs/examples/runs.jsonl (tests/present/test_cli.py works them out): Retriever map
Germany 1/2 (berlin at rank 2), Everest 1, World Cup 1 (no gold document: 1.0), K2 0 (nothing retrieved);
Reader exact_match Germany 1, Everest 1, World Cup 0, K2 0.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd
import pytest

import evalframe.dask
from evalframe import EvaluationResult, InvalidParameterError, read_runs

RUNS = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"
META = [{"topic": "geography", "source": {"team": "support"}}, {"topic": "geography"}, {"topic": "sport"}, {}]


@pytest.fixture(scope="module")
def pair(tmp_path_factory, client):
    lines = [json.loads(text) for text in RUNS.read_text(encoding="utf-8").splitlines() if text.strip()]
    folder = tmp_path_factory.mktemp("meta")
    runs = folder / "runs.jsonl"
    runs.write_text("".join(json.dumps({**line, "meta": meta}) + "\n" for line, meta in zip(lines, META)),
                    encoding="utf-8")
    memory = EvaluationResult.from_runs(*read_runs(runs), progress=False)
    saved = memory.save(folder / "result", format="parquet", partitions=3, progress=False)
    return memory, evalframe.dask.load(saved, client=client)


def test_meta_slices_on_dask_equal_memory_and_the_hand_values(pair):
    memory, dask = pair
    tables = [result.sliced_metrics("meta.topic") for result in pair]
    pd.testing.assert_frame_equal(tables[1], tables[0], check_exact=False, rtol=0, atol=1e-12)
    retriever, reader = tables[0].loc["Retriever"], tables[0].loc["Reader"]
    assert retriever.loc["geography", ["queries", "map"]].tolist() == [2, (1 / 2 + 1) / 2]
    assert retriever.loc["sport", ["queries", "map"]].tolist() == [1, 1.0]
    assert retriever[retriever.index.isna()][["queries", "map"]].values.tolist() == [[1, 0.0]]  # K2, meta {}
    assert reader.loc["geography", "exact_match"] == 1.0 and reader.loc["sport", "exact_match"] == 0.0
    nested = [result.sliced_metrics("meta.source.team").loc["Retriever"] for result in pair]
    assert [table.loc["support", "queries"] for table in nested] == [1, 1]
    texts = [result.sliced_metrics("meta").loc["Retriever"] for result in pair]
    pd.testing.assert_frame_equal(texts[1], texts[0], check_exact=False, rtol=0, atol=1e-12)
    assert texts[0].loc["{}", "map"] == 0.0 and texts[0].loc['{"topic": "sport"}', "map"] == 1.0
    on_dask = dask.query_metrics("Retriever", by="meta.topic", compute=True)
    assert on_dask["meta.topic"].fillna("-").tolist() == ["geography", "geography", "sport", "-"]


def test_wrong_examples_carry_the_query_meta_on_dask_as_in_memory(pair):
    for result in pair:
        worst = result.wrong_examples("Retriever", n=4, document_metric="map", document_metric_threshold=1.0)
        assert [(example["query"], example["meta"]) for example in worst] == [
            ("What is the second-highest mountain?", {}), ("What is the capital of Germany?", META[0]),
            ("How high is Mount Everest?", META[1]), ("Who won the 2030 World Cup?", META[2])]
        assert all("meta" not in row for example in worst for row in example["documents"])  # listed once, parsed
        reader = result.wrong_examples("Reader", n=1, answer_metric="exact_match")
        assert reader[0]["meta"] == META[2] and "meta" not in reader[0]["answers"][0]


def test_a_meta_field_no_partition_has_is_refused_on_dask_as_in_memory(pair):
    memory, dask = pair
    refusal = (r"^by 'meta\.topci': no query of node 'Retriever' has 'meta\.topci' in its meta, so every query would "
               r"be in one slice; their fields are \['meta\.source', 'meta\.topic'\]\. Did you mean 'meta\.topic'\?$")
    for call in (memory.sliced_metrics, dask.sliced_metrics):
        with pytest.raises(InvalidParameterError, match=refusal):
            call("meta.topci")
    for call in (memory.query_metrics, functools.partial(dask.query_metrics, compute=True)):
        with pytest.raises(InvalidParameterError, match=refusal):
            call("Retriever", by="meta.topci")


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
