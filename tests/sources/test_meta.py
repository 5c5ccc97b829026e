"""Per-query metadata (docs/runs-format.md#per-query-metadata): a runs line's ``"meta"``, ``from_runs(meta=...)``,
the ``meta`` column (JSON text with sorted keys on every row of the query, never part of ``multilabel_id``), save and
load."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from evalframe import Document, EvaluationResult, Label, LoadError, MultiLabel, read_runs
from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.present.cli import main

RUNS = Path(__file__).parents[2] / "docs" / "examples" / "runs.jsonl"


def records() -> list[dict]:
    return [json.loads(text) for text in RUNS.read_text(encoding="utf-8").splitlines() if text.strip()]


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def with_meta(tmp_path: Path) -> Path:
    lines = records()
    lines[0]["meta"] = {"topic": "geography", "source": {"team": "support", "year": 2024}}
    lines[2]["meta"] = {"topic": "sport"}
    lines[3]["meta"] = {}
    return write(tmp_path / "runs.jsonl", lines)


def test_a_runs_line_meta_is_kept_on_every_row_of_its_query_as_sorted_json_text(tmp_path):
    result = EvaluationResult.from_runs(*read_runs(with_meta(tmp_path)), progress=False)
    plain = EvaluationResult.from_runs(*read_runs(RUNS), progress=False)
    queries = [line["query"] for line in records()]
    expected = ['{"source": {"team": "support", "year": 2024}, "topic": "geography"}', None, '{"topic": "sport"}', "{}"]
    for node in ("Retriever", "Reader"):
        frame = result[node]
        assert frame["meta"].dtype == object
        for query, text in zip(queries, expected):
            cells = frame.loc[frame["query"] == query, "meta"].tolist()
            assert len(cells) >= 1 and cells == [text] * len(cells)  # every row of the query, both eval modes
        # meta never enters multilabel_id: md5(query + json.dumps(filters, sort_keys=True)), as without meta
        assert frame["multilabel_id"].tolist() == plain[node]["multilabel_id"].tolist()
        first = records()[0]
        md5 = hashlib.md5((first["query"] + json.dumps(first["filters"], sort_keys=True)).encode()).hexdigest()
        assert frame["multilabel_id"].iloc[0] == md5
        # every other column is as without meta
        pd.testing.assert_frame_equal(frame.drop(columns="meta"), plain[node])


def test_without_meta_the_frames_have_no_meta_column():
    result = EvaluationResult.from_runs(*read_runs(RUNS), progress=False)
    assert all("meta" not in frame.columns for frame in result.values())


def test_read_runs_gives_each_query_its_meta(tmp_path):
    labels, _ = read_runs(with_meta(tmp_path))
    assert [label.meta for label in labels] == [{"topic": "geography", "source": {"team": "support", "year": 2024}},
                                                None, {"topic": "sport"}, {}]


@pytest.mark.parametrize("meta, kind", [([1, 2], "an array"), ("billing", "a string"), (3, "a number"),
                                        (True, "a boolean")])
def test_a_meta_that_is_not_an_object_is_named_by_file_and_line(tmp_path, meta, kind):
    lines = records()
    lines[1]["meta"] = meta
    path = write(tmp_path / "runs.jsonl", lines)
    with pytest.raises(LoadError, match=rf"runs\.jsonl:2: 'meta' must be a JSON object .* or null; got {kind}, "
                                        + json.dumps(meta).replace("[", r"\[").replace("]", r"\]")):
        read_runs(path)


def test_meta_null_is_no_meta(tmp_path):
    lines = records()
    lines[1]["meta"] = None
    labels, _ = read_runs(write(tmp_path / "runs.jsonl", lines))
    assert labels[1].meta is None


def test_one_query_on_two_lines_with_different_meta_is_refused_naming_both_lines(tmp_path, capsys):
    lines = records()
    twice = dict(lines[0], meta={"topic": "geography"})
    other = dict(lines[0], meta={"topic": "history"})
    path = write(tmp_path / "runs.jsonl", [twice, lines[1], other])
    assert main(["flatten", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:1 and {path}:3 are one query (multilabel_id ")
    assert ('with different meta (\'{"topic": "geography"}\' and \'{"topic": "history"}\'); meta belongs to the '
            "query and is not part of its multilabel_id") in err
    # the same meta on both lines: one query whose outputs come in two parts, as sharded files may give them
    write(path, [twice, lines[1], twice])
    assert main(["flatten", str(path), "-o", str(tmp_path / "out")]) == 0
    # meta on one line only differs too
    write(path, [twice, lines[1], lines[0]])
    assert main(["flatten", str(path), "-o", str(tmp_path / "out2")]) == 1
    assert "with different meta ('{\"topic\": \"geography\"}' and None)" in capsys.readouterr().err


# ------------------------------------------------------------------ from_runs(meta=...)
def tiny(meta=None, **options):
    doc = Document("Berlin is the capital of Germany.", id="d1")
    labels = [[Label(q, doc, True, True, "gold-label")] for q in ("q1", "q2", "q3")]
    outputs = {"Retriever": {"documents": [[doc], [Document("x", id="d2"), doc], []]}}
    return EvaluationResult.from_runs(labels, outputs, meta=meta, progress=False, **options)


def test_from_runs_meta_one_dict_per_label_entry():
    result = tiny([{"b": 1, "a": [1, "x"]}, None, {"lang": "de"}])
    assert result["Retriever"]["query"].tolist() == ["q1", "q2", "q2", "q3"]  # q3's empty retrieval: one row
    assert result["Retriever"]["meta"].tolist() == ['{"a": [1, "x"], "b": 1}', None, None, '{"lang": "de"}']


def test_from_runs_meta_given_replaces_the_multilabels_own():
    doc = Document("text", id="d1")
    labels = [MultiLabel([Label("q", doc, True, True, "gold-label")], meta={"own": 1})]
    outputs = {"Retriever": {"documents": [[doc]]}}
    assert EvaluationResult.from_runs(labels, outputs)["Retriever"]["meta"].tolist() == ['{"own": 1}']
    given = EvaluationResult.from_runs(labels, outputs, meta=[{"given": 2}])
    assert given["Retriever"]["meta"].tolist() == ['{"given": 2}']
    # a MultiLabel dict's "meta" is read like a MultiLabel's
    as_dict = EvaluationResult.from_runs([labels[0].to_dict()], outputs)
    assert as_dict["Retriever"]["meta"].tolist() == ['{"own": 1}']


@pytest.mark.parametrize("meta, message", [
    ({"a": 1}, r"meta must be a list with one dict \(or None\) per entry of labels; got dict"),
    ([{"a": 1}], r"meta holds 1 entries but there are 3 labels"),
    ([{"a": 1}, ["x"], None], r"meta\[1\] must be a dict \(a JSON object\) or None; got list \['x'\]"),
    ([{"a": {1, 2}}, None, None], r"meta\[0\] must be JSON data .*set is not JSON serializable"),
    ([{1: "a", "b": 2}, None, None], r"meta\[0\] must be JSON data"),
])
def test_from_runs_refuses_a_bad_meta_naming_the_entry(meta, message):
    with pytest.raises(InvalidParameterError, match=message):
        tiny(meta)


def test_a_multilabel_meta_must_be_a_dict():
    doc = Document("text", id="d1")
    with pytest.raises(EvalframeError, match=r"MultiLabel meta must be a dict \(a JSON object\) or None; got str"):
        MultiLabel([Label("q", doc, True, True, "gold-label")], meta="topic")


# ------------------------------------------------------------------ save and load
@pytest.mark.parametrize("storage", [{"format": "csv"}, {"format": "parquet"}, {"format": "parquet", "partitions": 3}],
                         ids=["csv", "parquet", "partitioned"])
def test_meta_survives_save_and_load(tmp_path, storage):
    pytest.importorskip("pyarrow") if storage["format"] == "parquet" else None
    lines = records()
    lines[0]["meta"] = {"text": 'quotes " and, commas\nand a newline', "n": 1.5, "none": None, "é": "ü"}
    lines[1]["meta"] = {}
    result = EvaluationResult.from_runs(*read_runs(write(tmp_path / "runs.jsonl", lines)), progress=False)
    folder = result.save(tmp_path / "out", progress=False, **storage)
    loaded = EvaluationResult.load(folder)
    for node in result:
        pd.testing.assert_frame_equal(loaded[node], result[node])
        parsed = [json.loads(text) if text is not None else None for text in loaded[node]["meta"].drop_duplicates()]
        assert parsed == [lines[0]["meta"], {}, None]
