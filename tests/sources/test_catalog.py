"""sources.SOURCES, the one table of sources: the facade's from_source and from_<x> delegates read it, detect names a
file's source by its suffix and content (issue 36)."""

from __future__ import annotations

import gzip
import inspect
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError
from evalframe.sources.catalog import SOURCES, candidates, detect
from evalframe.sources.assemble import Built

DATA = Path(__file__).resolve().parents[1] / "data" / "rag"
RAGAS_ROW = {"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn.", "Berlin."],
             "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"], "reference": "Berlin"}
RUNS_LINE = {"query": "Capital of Germany?", "gold": {"document_ids": ["d1"]},
             "nodes": {"Retriever": {"documents": [{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}]}}}
LLAMA = {"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
         "retrieved_texts": ["Bonn.", "Berlin."]}
HAYSTACK = {"inputs": {"question": ["Capital of Germany?"], "retrieved_documents": [[{"id": "d2", "content": "Bonn."},
                                                                                     {"id": "d1", "content": "Berlin."}]],
                       "ground_truth_document_ids": [["d1"]]}, "results": {}}


def jsonl(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_the_table_names_every_source_the_command_offers_and_each_reads_into_a_built():
    assert list(SOURCES) == ["runs", "ragas", "haystack2", "llamaindex", "frame", "trec"]
    for name, source in SOURCES.items():
        assert source.name == name and source.needs
        assert inspect.signature(source.read).return_annotation in ("Built", Built), name
        assert "Examples\n    --------\n" in source.read.__doc__, name  # the example lives in the source's module


def test_each_source_lists_the_options_of_its_reader():
    assert SOURCES["ragas"].options == ("scores", "meta", "repeats", "retriever", "generator", "score_node", "score_measures",
                                        "id_column", "duplicates", "on_invalid")
    assert SOURCES["trec"].options == ("qrels", "node", "queries", "subtopics")
    assert SOURCES["runs"].options == ("keep_scores", "score_measures")


@pytest.mark.parametrize("name, reader", [("from_runs", "assemble"), ("from_frame", "read_frame"),
                                          ("from_ragas", "read_ragas"), ("from_haystack2", "read_haystack2"),
                                          ("from_llamaindex", "read_llamaindex"), ("from_trec", "read_trec"),
                                          ("from_source", "read_source")])
def test_each_classmethod_has_its_reader_s_signature_and_documentation(name, reader):
    method = getattr(EvaluationResult, name)
    read = method.__wrapped__
    assert read.__name__ == reader and method.__name__ == name
    ours, theirs = inspect.signature(method), inspect.signature(read)
    assert list(ours.parameters.values()) == list(theirs.parameters.values())
    assert ours.return_annotation == "EvaluationResult"
    doc = method.__doc__
    assert doc.replace("    EvaluationResult\n", "") in read.__doc__.replace(re.search(
        r"    Built\n(        .*\n)+", read.__doc__).group(0), "")  # the reader's text, but for what it returns
    assert re.search(r"Returns\n    -------\n    EvaluationResult\n", doc)


def test_the_classmethods_keep_their_positional_order():
    result = EvaluationResult.from_trec({"q1": {"d1": 1.0, "d2": 2.0}}, {"q1": {"d1": 1}}, progress=False)
    assert result.calculate_metrics()["Retriever"]["mrr"] == 0.5  # d2 (2.0) ranked above d1
    assert EvaluationResult.from_ragas([RAGAS_ROW], progress=False).calculate_metrics()["Retriever"]["mrr"] == 0.5


def test_from_source_reads_each_source_by_its_name(tmp_path):
    files = {"runs": jsonl(tmp_path / "runs.jsonl", RUNS_LINE), "ragas": jsonl(tmp_path / "ragas.jsonl", RAGAS_ROW),
             "llamaindex": jsonl(tmp_path / "li.jsonl", LLAMA), "haystack2": tmp_path / "run.json"}
    files["haystack2"].write_text(json.dumps(HAYSTACK), encoding="utf-8")
    for name, path in files.items():
        # every source: d1 at rank 2 of one query, mrr 1/2
        assert EvaluationResult.from_source(name, path, progress=False).calculate_metrics()["Retriever"]["mrr"] == 0.5
    frame = pd.DataFrame({"q": ["Capital of Germany?"], "ids": [["d2", "d1"]], "gold": [["d1"]]})
    built = EvaluationResult.from_source("frame", frame, question="q", retrieved_ids="ids", gold_ids="gold",
                                         progress=False)
    assert built.calculate_metrics()["Retriever"]["mrr"] == 0.5
    (tmp_path / "run.txt").write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    trec = EvaluationResult.from_source("trec", tmp_path / "run.txt", qrels=tmp_path / "qrels.txt", progress=False)
    assert trec.calculate_metrics()["Retriever"]["mrr"] == 0.5
    with pytest.raises(InvalidParameterError, match=r"source must be one of \['runs', 'ragas', 'haystack2', "
                                                    r"'llamaindex', 'frame', 'trec'\]; got 'ragaz'\. Did you mean"):
        EvaluationResult.from_source("ragaz", files["ragas"])


# ------------------------------------------------------------------------------------------------ detect
def test_a_file_s_content_names_its_source_where_its_suffix_does_not(tmp_path):
    assert detect(jsonl(tmp_path / "a.jsonl", RUNS_LINE)) == "runs"
    assert detect(jsonl(tmp_path / "b.jsonl", RAGAS_ROW)) == "ragas"
    assert detect(jsonl(tmp_path / "c.jsonl", LLAMA)) == "llamaindex"
    (tmp_path / "d.json").write_text(json.dumps([RAGAS_ROW]), encoding="utf-8")
    (tmp_path / "e.json").write_text(json.dumps([LLAMA]), encoding="utf-8")
    (tmp_path / "f.json").write_text(json.dumps(HAYSTACK), encoding="utf-8")
    (tmp_path / "g.json").write_text(json.dumps({"results": [LLAMA]}), encoding="utf-8")
    assert [detect(tmp_path / name) for name in ("d.json", "e.json", "f.json", "g.json")] == [
        "ragas", "llamaindex", "haystack2", "llamaindex"]
    pd.DataFrame([RAGAS_ROW]).to_csv(tmp_path / "h.csv", index=False)
    assert detect(tmp_path / "h.csv") == "ragas"


def test_the_framework_goldens_are_detected():
    assert detect(DATA / "ragas" / "dataset.jsonl") == "ragas"
    assert detect(DATA / "ragas" / "results.csv") == "ragas"
    assert detect(DATA / "ragas" / "dataset.parquet") == "ragas"
    assert detect(DATA / "haystack2" / "run_result.json") == "haystack2"
    assert detect(DATA / "haystack2" / "detailed_report.json") == "haystack2"
    assert detect(DATA / "llamaindex" / "retrieval_results.json") == "llamaindex"
    assert detect(DATA / "llamaindex" / "retrieval_results.jsonl") == "llamaindex"


def test_a_trec_run_is_detected_plain_or_gzip_and_qrels_alone_are_not(tmp_path):
    (tmp_path / "bm25.run").write_text("# a comment\nq1 Q0 d1 1 2.5 bm25\n", encoding="utf-8")
    with gzip.open(tmp_path / "bm25.txt.gz", "wt") as handle:
        handle.write("q1 Q0 d1 1 2.5 bm25\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    assert detect(tmp_path / "bm25.run") == "trec" and detect(tmp_path / "bm25.txt.gz") == "trec"
    assert detect(tmp_path / "qrels.txt") is None


def test_a_first_line_longer_than_the_sniff_reads_is_still_named_by_its_first_keys(tmp_path):
    row = {"user_input": "q", "retrieved_contexts": ["x" * 3_000_000], "reference": "a"}
    assert detect(jsonl(tmp_path / "long.jsonl", row)) == "ragas"


def test_a_file_two_sources_could_read_is_named_by_neither(tmp_path):
    both = jsonl(tmp_path / "both.jsonl", {**RAGAS_ROW, "expected_ids": ["d1"]})
    assert candidates(both) == ("ragas", "llamaindex") and detect(both) is None
    with pytest.raises(InvalidParameterError, match=re.escape(f"{both} could be read as ragas or llamaindex: name its "
                                                              "source (source='ragas', or --from ragas).")):
        EvaluationResult.from_source(None, both)
    assert detect(both, among=("ragas", "runs")) == "ragas"


def test_a_file_no_source_claims_is_named_by_none(tmp_path):
    (tmp_path / "notes.txt").write_text("some notes\n", encoding="utf-8")
    pd.DataFrame({"q": ["a"], "ids": ["[]"]}).to_csv(tmp_path / "table.csv", index=False)  # frame: never claimed
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "noise.jsonl").write_bytes(b"\x00\xff\xfe garbage")
    for name in ("notes.txt", "table.csv", "bad.json", "empty.jsonl", "noise.jsonl", "missing.jsonl"):
        assert detect(tmp_path / name) is None, name
    assert detect(tmp_path) is None  # a folder: no file of a source
    with pytest.raises(InvalidParameterError, match=r"no source claims .*table\.csv by its suffix and content; name its "
                                                    r"source, one of \['runs', 'ragas', 'haystack2', 'llamaindex', "
                                                    r"'frame', 'trec'\]"):
        EvaluationResult.from_source(None, tmp_path / "table.csv")


def test_from_source_without_a_name_reads_the_file_its_content_names(tmp_path):
    path = jsonl(tmp_path / "eval.jsonl", RAGAS_ROW)
    assert EvaluationResult.from_source(None, path, progress=False).calculate_metrics()["Retriever"]["mrr"] == 0.5
    with pytest.raises(InvalidParameterError, match=r"source=None finds the source of a file .* got list"):
        EvaluationResult.from_source(None, [RAGAS_ROW])
