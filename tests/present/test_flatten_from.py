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
    (["--column", "question=q"], r"error: --column names the columns of --from frame; a runs file has its own keys"),
    (["--from", "ragas", "--scheduler", "tcp://x:1"], r"error: --scheduler builds runs files on Dask"),
    (["--from", "frame"], r"error: question='question' names no column of .*dataset\.jsonl; its columns are "),
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
