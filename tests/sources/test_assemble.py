"""sources/assemble.py: what a source built (Built), never a result; messages naming each entry as its source does,
handed in (no message rewritten afterwards); lone surrogates refused or accepted cleanly; from_runs' own left-out
entries recorded in result.skipped as the importers' are (issue 36)."""

from __future__ import annotations

import hashlib
import inspect
import json
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evalframe import Answer, Document, EvaluationResult, Label, MultiLabel, read_runs
from evalframe.errors import EvalframeError, InvalidParameterError
from evalframe.present.cli import main
from evalframe.schema import Skipped
from evalframe.sources.assemble import Built, assemble
from evalframe.sources.records import Record, Retrieved, build

NO_LABEL = "no label: no gold document and no gold answer"
BERLIN = Document("Berlin is the capital of Germany.", id="d1")
BONN = Document("Bonn was the capital.", id="d2")


def label(query: str = "Capital of Germany?") -> Label:
    return Label(query, BERLIN, True, True, "gold-label", Answer("Berlin"))


def quietly(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ------------------------------------------------------------------------------------------------ Built
def test_a_source_returns_what_it_built_and_the_result_is_made_of_it():
    built = assemble([[label()]], {"Retriever": {"documents": [[BONN, BERLIN]]}},
                     scores={"Retriever": {"judge": [0.25]}}, progress=False)
    assert isinstance(built, Built) and list(built.frames) == ["Retriever"]
    assert list(built.scores) == ["judge"] and built.matching["sas_model"] is None and built.skipped == ()
    result = EvaluationResult(built)
    # d1 at rank 2: mrr 1/2; the judge's 0.25 on the one query
    assert result.calculate_metrics()["Retriever"]["mrr"] == 0.5
    assert result.calculate_metrics()["Retriever"]["judge"] == 0.25
    assert result.scores == dict(built.scores) and result.matching == dict(built.matching)


def test_a_result_of_what_a_source_built_takes_nothing_beside_it():
    built = assemble([[label()]], {"Retriever": {"documents": [[BERLIN]]}}, progress=False)
    with pytest.raises(InvalidParameterError, match=r"EvaluationResult\(built\) takes the skipped the source built"):
        EvaluationResult(built, skipped=[Skipped("row 1", "x")])


def test_from_runs_is_assemble_with_its_signature_documentation_and_positional_order():
    assert list(inspect.signature(EvaluationResult.from_runs).parameters) == list(inspect.signature(assemble).parameters)
    assert inspect.signature(EvaluationResult.from_runs).return_annotation == "EvaluationResult"
    assert "Returns\n    -------\n    EvaluationResult\n" in EvaluationResult.from_runs.__doc__
    result = EvaluationResult.from_runs([[label()]], {"Retriever": {"documents": [[BONN, BERLIN]]}}, progress=False)
    assert isinstance(result, EvaluationResult) and result.calculate_metrics()["Retriever"]["mrr"] == 0.5


# ------------------------------------------------------------------------------------------------ names
def test_messages_name_the_records_and_leave_the_user_s_text_alone():
    # a field named like an entry of labels: the regex that rewrote from_runs' messages turned it into 'row 1' too
    records = [Record("row 1", "Capital of Germany?", [Retrieved("d1", "Berlin.")], gold_ids=["d1"])]
    with pytest.raises(EvalframeError) as caught:
        quietly(lambda: build(records, progress=False, custom_document_id_field="labels[0]"))
    message = str(caught.value)
    assert message.startswith("custom_document_id_field 'labels[0]' is not a meta field of the document of label "
                              "'record0-gold0' (row 1)"), message


def test_a_node_named_like_a_query_is_left_as_it_is():
    # "query 0" in a node name: a message naming the node's outputs kept it (the old rewrite made it 'row 1')
    rows = [{"user_input": "q1", "retrieved_contexts": ["A"], "retrieved_context_ids": ["d1"],
             "reference_context_ids": ["d1"], "response": "a", "reference": "a"}]
    result = EvaluationResult.from_ragas(rows, retriever="query 0", score_node=None, progress=False)
    assert sorted(result) == ["Generator", "query 0"]
    with pytest.raises(InvalidParameterError, match=r"score_node must be one of the nodes built, \['query 0', 'Generator'\]"):
        EvaluationResult.from_ragas(rows, retriever="query 0", score_node="labels[0]", progress=False)


def test_names_name_the_entries_of_from_runs():
    outputs = {"Retriever": {"documents": [[BERLIN], [BERLIN]]}}
    with pytest.raises(EvalframeError, match=r"^runs\.jsonl:1 and runs\.jsonl:4 are one query"):
        EvaluationResult.from_runs([[label()], [Label("Capital of Germany?", BONN, True, True, "gold-label")]],
                                   outputs, names=["runs.jsonl:1", "runs.jsonl:4"], progress=False)
    with pytest.raises(InvalidParameterError, match=r"names must be a list with one non-empty text per entry of labels "
                                                    r"\(2\); got \['a'\]"):
        EvaluationResult.from_runs([[label()], [label("other")]], outputs, names=["a"], progress=False)


# ------------------------------------------------------------------------------------------------ skipped
def test_from_runs_records_the_entries_it_leaves_out():
    outputs = {"Retriever": {"documents": [[BERLIN], [BONN], [BERLIN]]}}
    with pytest.warns(UserWarning, match=r"labels\[1\] has no label; the query is left out"):
        result = EvaluationResult.from_runs([[label()], [], [label("other")]], outputs, progress=False)
    assert result.skipped == (Skipped("labels[1]", NO_LABEL),)
    with pytest.warns(UserWarning, match=r"^a:9 has no label"):
        named = EvaluationResult.from_runs([[label()], None, [label("other")]], outputs, names=["a:1", "a:9", "a:12"],
                                           skipped=[Skipped("before", "left out by the caller")], progress=False)
    assert named.skipped == (Skipped("before", "left out by the caller"), Skipped("a:9", NO_LABEL))


def write_runs(path: Path, gold: list[dict[str, Any] | None]) -> Path:
    lines = []
    for i, given in enumerate(gold):
        line = {"query": f"q{i}", "nodes": {"Retriever": {"documents": [{"id": "d1", "content": "Berlin."}]}}}
        line.update({"gold": given} if given is not None else {"labels": []})
        lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_runs_file_names_its_left_out_lines_in_the_api_and_the_command(tmp_path, capsys):
    runs = write_runs(tmp_path / "runs.jsonl", [{"document_ids": ["d1"]}, None, {"document_ids": ["d1"]}, None])
    with pytest.warns(UserWarning, match=r"runs\.jsonl:[24] has no label"):
        result = EvaluationResult.from_source("runs", runs, progress=False)
    assert result.skipped == (Skipped(f"{runs}:2", NO_LABEL), Skipped(f"{runs}:4", NO_LABEL))
    assert main(["flatten", str(runs), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == f"dropped 2 queries without gold labels (empty 'gold' lists or 'labels'): {runs} lines 2, 4"
    manifest = json.loads((tmp_path / "out" / "evalframe.json").read_text(encoding="utf-8"))
    assert manifest["skipped"] == [{"where": f"{runs}:2", "reason": NO_LABEL}, {"where": f"{runs}:4", "reason": NO_LABEL}]
    assert EvaluationResult.load(tmp_path / "out").skipped == result.skipped


# ------------------------------------------------------------------------------------------------ lone surrogates
def test_a_query_with_a_lone_surrogate_is_a_query():
    # its id: the MD5 of the query and its filters' JSON as UTF-8 bytes, the surrogate kept (surrogatepass), as for
    # every other text (whose bytes are unchanged by it)
    query = "Capital of Germany\ud800?"
    result = EvaluationResult.from_runs([[label(query)]], {"Retriever": {"documents": [[BONN, BERLIN]]}}, progress=False)
    expected = hashlib.md5(b"Capital of Germany\xed\xa0\x80?null").hexdigest()
    assert result["Retriever"]["multilabel_id"].tolist() == [expected, expected]
    assert result.calculate_metrics()["Retriever"]["mrr"] == 0.5
    assert MultiLabel([label()]).id == hashlib.md5(b"Capital of Germany?null").hexdigest()  # unchanged


def test_lone_surrogates_in_node_names_and_meta_build(tmp_path):
    node = "Retriever\ud800"
    result = EvaluationResult.from_runs([[label()]], {node: {"documents": [[BERLIN]]}},
                                        meta=[{"k\udc00": "v\ud800"}], progress=False)
    assert list(result) == [node] and result.calculate_metrics()[node]["mrr"] == 1.0
    assert result[node]["meta"].tolist() == ['{"k\\udc00": "v\\ud800"}']  # JSON's escapes
    ragas = tmp_path / "r.jsonl"  # the hostile importers' file: from_ragas said "expected Label objects or Label dicts"
    ragas.write_bytes(b'{"user_input": "q\\ud800", "retrieved_contexts": ["a\\udfff"], "reference": "a"}\n')
    built = EvaluationResult.from_ragas(ragas, progress=False)
    assert built["Retriever"]["query"].tolist() == ["q\ud800"]


def test_a_score_named_with_a_lone_surrogate_is_refused_by_the_rule_of_score_names():
    with pytest.raises(InvalidParameterError, match=r"score name 'judge\\ud800': a score's name starts with a letter"):
        EvaluationResult.from_runs([[label()]], {"Retriever": {"documents": [[BERLIN]]}},
                                   scores={"Retriever": {"judge\ud800": [0.5]}}, progress=False)
    result = EvaluationResult.from_runs([[label()]], {"Retriever": {"documents": [[BERLIN]]}}, progress=False)
    query = result["Retriever"]["multilabel_id"].iloc[0]
    with pytest.raises(InvalidParameterError, match=r"score name 'judge\\ud800'"):
        result.add_scores("Retriever", {"judge\ud800": {query: 0.5}})
    table = pd.DataFrame({"multilabel_id": [query], "x": [0.5]}).set_axis(pd.Index(["multilabel_id", "j\ud800"],
                                                                                    dtype=object), axis=1)
    with pytest.raises(InvalidParameterError, match=r"score name 'j\\ud800'"):
        result.add_scores("Retriever", table)


def test_a_runs_file_with_a_lone_surrogate_in_its_query_builds(tmp_path):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"query": "q\ud800", "gold": {"document_ids": ["d1"]},
                                "nodes": {"R": {"documents": [{"id": "d1", "content": "x"}]}}}) + "\n", encoding="utf-8")
    labels, outputs = read_runs(runs)  # was: 'labels' must hold Label dicts ... surrogates not allowed
    assert EvaluationResult.from_runs(labels, outputs, progress=False).calculate_metrics()["R"]["mrr"] == 1.0


def test_the_dask_build_names_a_shard_s_line_and_leaves_the_user_s_text_alone(tmp_path):
    pytest.importorskip("distributed")
    from evalframe.dask import from_runs

    shard = tmp_path / "runs-0.jsonl"
    shard.write_text("\n" + json.dumps({"query": "q", "gold": {"document_ids": ["d1"]},
                                        "nodes": {"R": {"documents": [{"id": "d1", "content": "x"}]}}}) + "\n",
                     encoding="utf-8")
    with pytest.raises(EvalframeError) as caught:  # Dask's scheduler in this process
        from_runs([shard], tmp_path / "out", partitions=1, custom_document_id_field="labels[0]")
    assert str(caught.value).startswith("custom_document_id_field 'labels[0]' is not a meta field of the document of "
                                        f"label 'line2-gold0' ({shard}:2)"), str(caught.value)
