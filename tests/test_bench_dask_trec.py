"""benchmarks/bench_dask_trec.py: its data (queries cut by the files, docids distinct in a query) and a smoke run."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("moto.server")
pytest.importorskip("s3fs")

from evalframe.sources.trec_files import read_qrels, read_run  # noqa: E402
from tests.fixtures import load_benchmark  # noqa: E402


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench_dask_trec.py")


def test_the_files_cut_queries_and_the_docids_are_distinct_in_a_query(bench, tmp_path):
    bounds = bench.file_bounds(3000, 3, 100)
    assert bounds.tolist() == [0, 1033, 2033, 3000]  # each inner cut a third of a 100-line query on
    first, second = bench.run_table(0, 1033, 100, 0), bench.run_table(1033, 2033, 100, 0)
    assert first.column("query_id")[-1].as_py() == second.column("query_id")[0].as_py() == "q10"
    path = tmp_path / "run.txt"
    path.write_bytes(bench.trec_text(first) + bench.trec_text(second))
    run = read_run(path)  # refuses a docid twice in a query
    assert len(run) == 2033 and run["qid"].nunique() == 21
    (tmp_path / "qrels.txt").write_bytes(bench.qrels_text(21, 100, 0))
    qrels = read_qrels(tmp_path / "qrels.txt")
    assert set(qrels["qid"]) == {f"q{i}" for i in range(21)}
    assert (qrels.groupby("qid")["relevance"].max() >= 1).all()


def test_counts_parse(bench):
    assert [bench.parse_count(t) for t in ("100M", "10k", "2000", "1.5M")] == [100_000_000, 10_000, 2000, 1_500_000]


@pytest.mark.benchmark
def test_a_smoke_run_agrees_with_evalframe_trec(bench, dask_client, tmp_path, capsys):
    assert bench.main(["--lines", "10k", "--docs", "100", "--compare-lines", "5k", "--work", str(tmp_path)],
                      client=dask_client) == 0
    out = capsys.readouterr().out
    assert "10,000 run lines (100 queries x 100) in 4 Parquet files" in out
    assert "largest difference of the means vs `evalframe trec`" in out and "(equal to 1e-12)" in out
    assert np.all([not p.exists() for p in tmp_path.iterdir()])  # the work folder removed
