"""A gzip-compressed file given to a reader of plain text (only TREC runs and qrels are read compressed) is named as
such, with the command that decompresses it, by every source and command that would otherwise call its bytes
"not UTF-8" or its suffix unknown."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from evalframe import EvaluationResult
from evalframe.errors import LoadError
from evalframe.present.cli import main

ROOT = Path(__file__).resolve().parents[2]
RAG = ROOT / "tests" / "data" / "rag"
FILES = {"runs": ROOT / "docs" / "examples" / "runs.jsonl", "ragas": RAG / "ragas" / "dataset.jsonl",
         "ragas csv": RAG / "ragas" / "dataset.csv", "haystack2": RAG / "haystack2" / "run_result.json",
         "llamaindex": RAG / "llamaindex" / "retrieval_results.jsonl"}
READERS = {"runs": lambda path, **options: EvaluationResult.from_source("runs", path, **options),
           "ragas": EvaluationResult.from_ragas,
           "ragas csv": EvaluationResult.from_ragas, "haystack2": EvaluationResult.from_haystack2,
           "llamaindex": EvaluationResult.from_llamaindex}


def compressed(tmp_path: Path, source: str) -> Path:
    plain = FILES[source]
    path = tmp_path / (plain.name + ".gz")
    path.write_bytes(gzip.compress(plain.read_bytes()))
    return path


def said(path: Path) -> str:
    return re.escape(f"{path} is gzip-compressed; only TREC runs and qrels are read compressed, this file is read as "
                     f"plain text: decompress it first: gunzip -k {path} writes {path.name[:-3]}.")


@pytest.mark.parametrize("source", sorted(FILES))
def test_every_reader_names_a_gzip_file_and_how_to_decompress_it(tmp_path, source):
    path = compressed(tmp_path, source)
    with pytest.raises(LoadError, match=said(path)):
        READERS[source](path, progress=False)


@pytest.mark.parametrize("source", ["runs", "ragas", "llamaindex"])
def test_a_command_names_a_gzip_file_whether_its_source_is_named_or_detected(tmp_path, capsys, source):
    path = compressed(tmp_path, source)
    for extra in ([], ["--from", source]):
        assert main(["metrics", str(path), *extra]) == 1
        assert capsys.readouterr().err.strip() == f"error: {path} is gzip-compressed; only TREC runs and qrels are " \
            f"read compressed, this file is read as plain text: decompress it first: gunzip -k {path} writes " \
            f"{path.name[:-3]}."


def test_a_plain_file_that_is_not_utf8_is_still_named_so(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"query": "caf\xe9"}\n')
    with pytest.raises(LoadError, match=r"runs.jsonl:1: not UTF-8 text"):
        EvaluationResult.from_source("runs", path, progress=False)


def test_a_call_that_does_not_fit_a_source_is_named_as_written():
    with pytest.raises(TypeError, match=r"^EvaluationResult\.from_runs\(\): missing a required argument: "
                                        r"'node_outputs'$"):
        EvaluationResult.from_runs([])
    with pytest.raises(TypeError, match=r"^EvaluationResult\.from_ragas\(\): got an unexpected keyword argument 'colums'$"):
        EvaluationResult.from_ragas([], colums={})
