"""Per-query meta on each ``backend`` (in memory and on Dask, tests/conftest.py): slices by ``meta.<field>`` and
``meta``, wrong_examples' ``meta``, the refusal of a field no query (no partition) has (the example runs file with a
``"meta"`` object on three of its four lines; tests/dask/test_meta.py: a sharded build keeps them).

Per-query values of docs/examples/runs.jsonl (tests/present/test_cli.py works them out): Retriever map
Germany 1/2 (berlin at rank 2), Everest 1, World Cup 1 (no gold document: 1.0), K2 0 (nothing retrieved);
Reader exact_match Germany 1, Everest 1, World Cup 0, K2 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, read_runs

RUNS = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"
META = [{"topic": "geography", "source": {"team": "support"}}, {"topic": "geography"}, {"topic": "sport"}, {}]


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    lines = [json.loads(text) for text in RUNS.read_text(encoding="utf-8").splitlines() if text.strip()]
    folder = tmp_path_factory.mktemp("meta")
    runs = folder / "runs.jsonl"
    runs.write_text("".join(json.dumps({**line, "meta": meta}) + "\n" for line, meta in zip(lines, META)),
                    encoding="utf-8")
    return EvaluationResult.from_runs(*read_runs(runs), progress=False)


@pytest.fixture(scope="module")
def result(memory, backend):
    return backend(memory)


def test_meta_slices_give_the_hand_values_and_equal_memory(result, memory, backend):
    tables = [memory.sliced_metrics("meta.topic"), result.sliced_metrics("meta.topic")]
    pd.testing.assert_frame_equal(tables[1], tables[0], check_exact=False, rtol=0, atol=1e-12)
    retriever, reader = tables[1].loc["Retriever"], tables[1].loc["Reader"]
    assert retriever.loc["geography", ["queries", "map"]].tolist() == [2, (1 / 2 + 1) / 2]
    assert retriever.loc["sport", ["queries", "map"]].tolist() == [1, 1.0]
    assert retriever[retriever.index.isna()][["queries", "map"]].values.tolist() == [[1, 0.0]]  # K2, meta {}
    assert reader.loc["geography", "exact_match"] == 1.0 and reader.loc["sport", "exact_match"] == 0.0
    assert result.sliced_metrics("meta.source.team").loc["Retriever"].loc["support", "queries"] == 1
    texts = [one.sliced_metrics("meta").loc["Retriever"] for one in (memory, result)]
    pd.testing.assert_frame_equal(texts[1], texts[0], check_exact=False, rtol=0, atol=1e-12)
    assert texts[1].loc["{}", "map"] == 0.0 and texts[1].loc['{"topic": "sport"}', "map"] == 1.0
    labelled = backend.query_metrics(result, "Retriever", by="meta.topic")
    assert labelled["meta.topic"].fillna("-").tolist() == ["geography", "geography", "sport", "-"]


def test_wrong_examples_carry_the_query_meta(result):
    worst = result.wrong_examples("Retriever", n=4, document_metric="map", document_metric_threshold=1.0)
    assert [(example["query"], example["meta"]) for example in worst] == [
        ("What is the second-highest mountain?", {}), ("What is the capital of Germany?", META[0]),
        ("How high is Mount Everest?", META[1]), ("Who won the 2030 World Cup?", META[2])]
    assert all("meta" not in row for example in worst for row in example["documents"])  # listed once, parsed
    reader = result.wrong_examples("Reader", n=1, answer_metric="exact_match")
    assert reader[0]["meta"] == META[2] and "meta" not in reader[0]["answers"][0]


def test_a_meta_field_no_query_has_is_refused(result, backend):
    refusal = (r"^by 'meta\.topci': no query of node 'Retriever' has 'meta\.topci' in its meta, so every query would "
               r"be in one slice; their fields are \['meta\.source', 'meta\.topic'\]\. Did you mean 'meta\.topic'\?$")
    with pytest.raises(InvalidParameterError, match=refusal):
        result.sliced_metrics("meta.topci")
    with pytest.raises(InvalidParameterError, match=refusal):
        backend.query_metrics(result, "Retriever", by="meta.topci")
