"""``evalframe flatten --from ragas|haystack2|llamaindex|frame``: a source's file to a results folder."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from evalframe import EvaluationResult
from evalframe.present.cli import main
from evalframe.present.parsers import FRAME_FIELDS

RAGAS = Path(__file__).parents[1] / "data" / "rag" / "ragas"
RAG = RAGAS.parent


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_from_ragas_writes_the_folder_from_ragas_reads(tmp_path, capsys):
    code, out, err = run(capsys, "flatten", "--from", "ragas", RAGAS / "dataset.csv", "-o", tmp_path / "run")
    assert code == 0, err
    assert out.startswith("wrote 4 queries (Retriever: 6 rows, Generator: 4 rows) from ")
    code, out, _ = run(capsys, "metrics", tmp_path / "run", "--format", "json")
    metrics = json.loads(out)
    assert metrics["Retriever"]["mrr"] == (1 / 2 + 1 + 0 + 1) / 4  # by hand: tests/sources/test_ragas.py
    assert metrics == EvaluationResult.from_ragas(RAGAS / "dataset.csv", scores=[], progress=False).calculate_metrics()


def test_from_frame_with_columns(tmp_path, capsys):
    code, out, err = run(capsys, "flatten", "--from", "frame", RAGAS / "dataset.jsonl", "-o", tmp_path / "run",
                         "--column", "question=user_input", "--column", "retrieved_ids=retrieved_context_ids",
                         "--column", "retrieved_texts=retrieved_contexts", "--column", "gold_ids=reference_context_ids",
                         "--column", "answer=response", "--column", "gold_answers=reference", "--format", "parquet")
    assert code == 0, err
    loaded = EvaluationResult.load(tmp_path / "run")
    assert loaded.calculate_metrics()["Generator"]["exact_match"] == (1 + 0 + 0 + 1) / 4


@pytest.mark.parametrize("argv, message", [
    (["--from", "frame", "--column", "questio=user_input"],
     r"error: --column 'questio=user_input': unknown field 'questio'; the fields are \[.*\]\. Did you mean 'question'\?"),
    (["--from", "frame", "--column", "question"], r"error: --column must be FIELD=COLUMN, e.g\. question=q; got 'question'"),
    (["--from", "frame", "--column", "answer=a", "--column", "answer=b"], r"error: --column names the field 'answer' twice"),
    (["--from", "ragas", "--column", "question=q"], r"error: --column names the columns of --from frame; --from ragas "),
    (["--from", "runs", "--column", "question=q"], r"error: --column names the columns of --from frame; --from runs "
                                                   r"reads its own columns"),
    (["--from", "ragas", "--scheduler", "tcp://x:1"], r"error: --scheduler builds runs files on Dask"),
    (["--from", "frame"], r"error: \S*dataset\.jsonl has no column 'question' \(the default\): name it with --column "
                          r"question=COLUMN; its columns are \['user_input', "),
    (["--from", "frame", "--column", "question=query"], r"error: --column question=query names no column of "
                                                        r"\S*dataset\.jsonl; its columns are \['user_input', "),
    (["--from", "frame", "--column", "question=user_input", "--column", "meta=response,nope"],
     r"error: --column meta=response,nope: 'nope' names no column of \S*dataset\.jsonl; its columns are \["),
])
def test_errors(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, "flatten", RAGAS / "dataset.jsonl", "-o", tmp_path / "run", *argv)
    assert code == 1
    assert re.search(message, err), err


def test_two_files_need_runs(tmp_path, capsys):
    code, _, err = run(capsys, "flatten", "--from", "ragas", RAGAS / "dataset.csv", RAGAS / "dataset.jsonl",
                       "-o", tmp_path / "run")
    assert code == 1 and "error: --from ragas reads one file; got 2." in err


def test_the_frame_fields_are_from_frame_s_column_parameters():
    parameters = inspect.signature(EvaluationResult.from_frame).parameters
    columns = [name for name in parameters if name != "df"][:len(FRAME_FIELDS)]
    assert tuple(columns) == FRAME_FIELDS


def test_the_metric_columns_of_a_ragas_evaluation_reach_the_folder(tmp_path, capsys):
    code, _, err = run(capsys, "flatten", "--from", "ragas", RAGAS / "results.csv", "-o", tmp_path / "run",
                       "--format", "parquet")
    assert code == 0, err
    code, out, err = run(capsys, "metrics", tmp_path / "run", "--format", "json")
    generator = json.loads(out)["Generator"]
    assert generator["faithfulness"] == pytest.approx((0.9 + 0.2 + 0.6) / 3)  # by hand: the judge gave Faust none
    assert generator["ragas_exact_match"] == (1 + 0 + 0 + 1) / 4  # Ragas' exact_match beside evalframe's
    assert EvaluationResult.load(tmp_path / "run").scores.keys() == {
        "id_based_context_precision", "id_based_context_recall", "ragas_exact_match", "string_present", "faithfulness"}


def test_from_frame_score_columns(tmp_path, capsys):
    code, _, err = run(capsys, "flatten", "--from", "frame", RAGAS / "results.jsonl", "-o", tmp_path / "run",
                       "--column", "question=user_input", "--column", "answer=response", "--column", "gold_answers=reference",
                       "--column", "scores=faithfulness,string_present")
    assert code == 0, err
    loaded = EvaluationResult.load(tmp_path / "run")
    assert list(loaded.scores) == ["faithfulness", "string_present"]
    assert loaded.calculate_metrics()["Generator"]["string_present"] == (1 + 0 + 0 + 1) / 4


def test_score_declares_the_direction_and_bounds_of_a_source_s_scores(tmp_path, capsys):
    code, _, err = run(capsys, "flatten", "--from", "ragas", RAGAS / "results.csv", "-o", tmp_path / "run",
                       "--score", "faithfulness:0:1", "--score", "string_present:lower")
    assert code == 0, err
    scores = EvaluationResult.load(tmp_path / "run").scores
    assert (scores["faithfulness"].direction, scores["faithfulness"].bounds) == ("higher", (0.0, 1.0))
    assert (scores["string_present"].direction, scores["string_present"].bounds) == ("lower", None)
    assert scores["id_based_context_recall"].direction == "higher"  # undeclared: higher is better, unbounded
    code, _, err = run(capsys, "flatten", "--from", "ragas", RAGAS / "results.csv", "-o", tmp_path / "other",
                       "--score", "faithfulnes:lower")
    assert code == 1
    assert re.search(r"error: --score declares 'faithfulnes', which is no score of the source; its scores are \[.*\]\. "
                     r"Did you mean 'faithfulness'\?", err), err


@pytest.mark.parametrize("source, name, build", [
    ("haystack2", "haystack2/run_result.json", EvaluationResult.from_haystack2),
    ("llamaindex", "llamaindex/retrieval_results.json", EvaluationResult.from_llamaindex),
    ("llamaindex", "llamaindex/retrieval_results.jsonl", EvaluationResult.from_llamaindex),
])
def test_from_haystack2_and_llamaindex_files(tmp_path, capsys, source, name, build):
    code, out, err = run(capsys, "flatten", "--from", source, RAG / name, "-o", tmp_path / "run")
    assert code == 0, err
    code, out, _ = run(capsys, "metrics", tmp_path / "run", "--format", "json")
    # the numbers by hand are tests/sources/test_haystack2.py's and test_llamaindex.py's; the command writes the same
    assert json.loads(out) == build(RAG / name, progress=False).calculate_metrics()


def test_from_frame_reads_the_extra_columns_by_the_rule(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("q,ids,gold,topic,judge,sample_id\n"
                                    "Capital of Germany?,berlin,berlin,geography,0.5,101\n"
                                    "Capital of France?,lyon,paris,travel,1.0,102\n", encoding="utf-8")
    code, out, err = run(capsys, "metrics", tmp_path / "t.csv", "--from", "frame", "--column", "question=q",
                         "--column", "retrieved_ids=ids", "--column", "gold_ids=gold", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["Retriever"] == {"recall_multi_hit": 0.5, "recall_single_hit": 0.5, "precision": 0.5,
                                            "map": 0.5, "mrr": 0.5, "ndcg": 0.5, "judge": 0.75}  # (0.5 + 1.0) / 2
    assert err == (f"warning: {tmp_path / 't.csv'}: columns that give no score: 'topic' (a meta field: texts, not "
                   "numbers), 'sample_id' (a meta field: an id's name: its numbers are no score). A score column holds "
                   "numbers (or their text) in at least half of its rows and is not named like an id ('id', '..._id', "
                   "'sku', 'year', ...); name a column in scores=[...] to read it as a score (a cell that is no number "
                   "is then refused, named), or the meta fields in meta=[...] (then no warning).\n")
    code, out, err = run(capsys, "metrics", tmp_path / "t.csv", "--from", "frame", "--column", "question=q",
                         "--column", "retrieved_ids=ids", "--column", "gold_ids=gold", "--column", "scores=judge",
                         "--format", "json")
    assert code == 0 and err == ""  # scores named: no warning (topic and sample_id still meta fields)
    assert json.loads(out)["Retriever"]["judge"] == 0.75
