"""``evalframe flatten --from haystack2|llamaindex FILE``: the folder holds the frames from_haystack2 / from_llamaindex
build from the same file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from evalframe import EvaluationResult
from evalframe.present.cli import main

DATA = Path(__file__).parents[1] / "data" / "rag"


def _flatten(capsys, source: str, path: Path, out: Path) -> str:
    code = main(["flatten", "--from", source, str(path), "-o", str(out), "--format", "parquet"])
    printed, err = capsys.readouterr()
    assert code == 0, err
    return printed


def test_from_haystack2(tmp_path, capsys):
    path = DATA / "haystack2" / "run_result.json"
    printed = _flatten(capsys, "haystack2", path, tmp_path / "run")
    assert printed.startswith("wrote 5 queries (Retriever: 11 rows, Generator: 5 rows) from ")
    loaded, built = EvaluationResult.load(tmp_path / "run"), EvaluationResult.from_haystack2(path, progress=False)
    for node in ("Retriever", "Generator"):
        pd.testing.assert_frame_equal(loaded[node], built[node])
    assert loaded["Generator"]["scores.faithfulness"].tolist() == [1.0, 0.0, 1.0, 0.5, 0.0]
    assert loaded.scores == built.scores
    code = main(["metrics", str(tmp_path / "run"), "--format", "json"])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(printed) == built.calculate_metrics()


def test_from_llamaindex(tmp_path, capsys):
    path = DATA / "llamaindex" / "retrieval_results.jsonl"
    printed = _flatten(capsys, "llamaindex", path, tmp_path / "run")
    assert printed.startswith("wrote 4 queries (Retriever: 10 rows) from ")
    loaded, built = EvaluationResult.load(tmp_path / "run"), EvaluationResult.from_llamaindex(path, progress=False)
    pd.testing.assert_frame_equal(loaded["Retriever"], built["Retriever"])
    assert loaded["Retriever"].drop_duplicates("query")["scores.llamaindex_mrr"].tolist() == [1 / 2, 1 / 3, 1.0, 0.0]
    assert loaded.scores["llamaindex_mrr"].bounds == (0.0, 1.0) and loaded.scores == built.scores


def test_a_bad_file_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text('{"inputs": {"question": ["q"]}, "results": {}}')
    assert main(["flatten", "--from", "haystack2", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: the run result has no gold input") and err.count("\n") == 1  # names it
    path.write_text('[{"query": "q", "expected_ids": "d1", "retrieved_ids": []}]')
    assert main(["flatten", "--from", "llamaindex", str(path), "-o", str(tmp_path / "out")]) == 1
    assert "run.json: results[0]: expected_ids must be a list of strings" in capsys.readouterr().err
