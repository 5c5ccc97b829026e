"""evalframe.dask.from_trec: TREC runs read in blocks on the workers, shuffled by query, evaluated as from_trec does.

Every value is checked against the in-memory ``EvaluationResult.from_trec`` of the same lines as one file (their
``cat``), and the main measures against the trec_eval 10.0 binary on that file. The runs are generated with ties,
graded judgments, queries without judgments and judged queries without run lines, and cut so that queries straddle
the blocks and the files.
"""

from __future__ import annotations

import gzip
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError, LoadError

pytest.importorskip("distributed")
from evalframe.dask import DaskEvaluationResult, from_trec  # noqa: E402

#: every trec measure that needs no subtopic qrels nor a parameter without default
MEASURES = ["AP", "nDCG", "nDCG@10", "P@5", "R@10", "RR", "RR@10", "Success@1", "Rprec", "Bpref", "infAP", "binG",
            "G", "Rndcg", "ERR@10", "NumRet", "NumRelRet", "NumRel", "gm_map", "gm_bpref", "IPrec@0.5", "11pt_avg",
            "SetP", "SetR", "SetF", "Judged@10", "AP@10", "P(rel=2)@5", "utility", "unj@5", "ndcg_rel", "rbp",
            "Compat", "relative_P@5", "Rprec_mult@1.0", "num_nonrel_judged_ret", "SetAP", "RBP(rel=1)"]
TREC_EVAL = Path.home() / ".cache" / "evalframe-bench" / "trec_eval-10.0" / "trec_eval"
#: trec_eval's names and evalframe's of the same measures
TREC_EVAL_NAMES = {"map": "AP", "ndcg": "nDCG", "P_5": "P@5", "recip_rank": "RR", "Rprec": "Rprec", "bpref": "Bpref",
                   "recall_10": "R@10", "ndcg_cut_10": "nDCG@10", "success_1": "Success@1"}


def _lines(seed: int = 7, queries: int = 40) -> tuple[list[str], list[str]]:
    """Run lines (queries in random order, each query's lines shuffled: the file's rank column is ignored) and qrels
    lines: scores rounded to give ties, grades 0..2, queries 0-2 unjudged, qrels-only queries q900..q902."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in rng.permutation(queries).tolist():
        n = int(rng.integers(1, 30))
        docs = rng.choice(200, size=n, replace=False)
        scores = np.round(rng.random(n) * 4, 1)  # ties within a query
        run += [f"q{q} Q0 D{d} 0 {s} tag" for d, s in zip(docs.tolist(), scores.tolist())]
        if q > 2:
            judged = rng.choice(200, size=int(rng.integers(1, 12)), replace=False)
            qrels += [f"q{q} 0 D{d} {int(g)}" for d, g in zip(judged.tolist(), rng.integers(0, 3, len(judged)).tolist())]
    qrels += [f"q{900 + i} 0 D{i} 1" for i in range(3)]
    # the first half's queries whole, the second half's lines scattered (over blocks and files)
    half = len(run) // 2
    return run[:half] + [run[half + i] for i in rng.permutation(len(run) - half)], qrels


def _split(lines: list[str], parts: int) -> list[list[str]]:
    """The lines cut into ``parts`` consecutive runs (queries straddle them)."""
    bounds = np.linspace(0, len(lines), parts + 1).astype(int)
    return [lines[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("from_trec")
    run, qrels = _lines()
    (folder / "all.txt").write_text("\n".join(run) + "\n")
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    return {"folder": folder, "all": folder / "all.txt", "qrels": folder / "qrels.txt"}


@pytest.fixture(scope="module")
def expected(files: dict[str, Path]) -> pd.DataFrame:
    """from_trec in memory of the whole run as one file: per-query values of every measure."""
    result = EvaluationResult.from_trec(files["all"], files["qrels"], progress=False)
    return result.trec_query_metrics(MEASURES)


def _write_text(folder: Path, name: str, parts: int, *, compress: bool = False) -> list[str]:
    run, _ = _lines()
    paths = []
    for i, part in enumerate(_split(run, parts)):
        text = ("\n".join(part) + "\n").encode()
        path = folder / f"{name}-{i}.txt{'.gz' if compress else ''}"
        path.write_bytes(gzip.compress(text) if compress else text)
        paths.append(str(path))
    return paths


def _same(result: DaskEvaluationResult, expected: pd.DataFrame) -> None:
    table = result.trec_query_metrics(MEASURES).compute().sort_index()
    expected = expected.sort_index()
    assert list(table.index) == list(expected.index)
    np.testing.assert_allclose(table[MEASURES].to_numpy(float), expected[MEASURES].to_numpy(float), rtol=0,
                               atol=1e-12)
    means = result.trec_metrics(MEASURES)
    assert set(means) == set(expected.columns)


def test_text_files_cut_in_small_blocks_give_from_trec_s_numbers(files, expected, dask_client, tmp_path):
    paths = _write_text(tmp_path, "run", 3)
    # 200-byte blocks: about 8 lines each, many a query's lines in several blocks and files
    result = from_trec(paths, files["qrels"], partitions=4, out_dir=tmp_path / "out", client=dask_client,
                       block_size=200)
    assert isinstance(result, DaskEvaluationResult)
    _same(result, expected)


def test_the_trec_eval_binary_agrees(files, dask_client, tmp_path):
    if not TREC_EVAL.is_file():
        pytest.skip("trec_eval 10.0 is not built (benchmarks/setup_trec_eval.sh)")
    paths = _write_text(tmp_path, "run", 2)
    result = from_trec(paths, files["qrels"], partitions=3, out_dir=tmp_path / "out", client=dask_client,
                       block_size=500)
    measures = [word for name in ("map", "ndcg", "P.5", "recip_rank", "Rprec", "bpref", "recall.10", "ndcg_cut.10",
                                  "success.1") for word in ("-m", name)]
    # -c: trec_eval 10.0 refuses judged queries the run lacks without it (they score 0 with it, complete=True)
    shown = subprocess.run([str(TREC_EVAL), "-q", "-c", *measures, str(files["qrels"]), str(files["all"])],
                           capture_output=True, text=True, check=True).stdout
    theirs: dict[str, dict[str, float]] = {}
    for line in shown.splitlines():
        name, qid, value = line.split()
        theirs.setdefault(qid, {})[TREC_EVAL_NAMES[name]] = float(value)
    names = list(TREC_EVAL_NAMES.values())
    table = result.trec_query_metrics(names, complete=True).compute()
    assert sorted(map(str, table.index)) == sorted(q for q in theirs if q != "all")
    for qid, row in table.iterrows():
        for name in names:
            assert abs(row[name] - theirs[str(qid)][name]) <= 0.5e-4 + 1e-12, (qid, name)
    for name, value in result.trec_metrics(names, complete=True).items():
        assert abs(value - theirs["all"][name]) <= 0.5e-4 + 1e-12, name


def test_gzip_files_give_the_same_numbers(files, expected, dask_client, tmp_path):
    paths = _write_text(tmp_path, "run", 3, compress=True)
    result = from_trec(paths, files["qrels"], partitions=2, out_dir=tmp_path / "out", client=dask_client)
    _same(result, expected)


def test_parquet_row_groups_give_the_same_numbers(files, expected, dask_client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    run, _ = _lines()
    paths = []
    for i, part in enumerate(_split(run, 2)):
        words = [line.split() for line in part]
        names = ("query_id", "doc_id") if i == 0 else ("qid", "docno")  # ranx's names, then the TREC ones
        table = pa.table({names[0]: [w[0] for w in words], names[1]: [w[2] for w in words],
                          "score": [float(w[4]) for w in words]})
        path = tmp_path / f"run-{i}.parquet"
        pq.write_table(table, path, row_group_size=37)
        paths.append(str(path))
    result = from_trec(str(tmp_path / "run-*.parquet"), files["qrels"], partitions=5, out_dir=tmp_path / "out",
                       client=dask_client)
    _same(result, expected)


def test_the_whole_frame_is_from_trec_s_rows_in_its_order(files, dask_client, tmp_path):
    paths = _write_text(tmp_path, "run", 3)
    result = from_trec(paths, files["qrels"], partitions=4, out_dir=tmp_path / "out", client=dask_client,
                       block_size=300)
    mine = result.compute()["Retriever"]
    theirs = EvaluationResult.from_trec(files["all"], files["qrels"], progress=False)["Retriever"]
    columns = ["multilabel_id", "rank", "document_id", "score", "gold_document_ids", "gold_document_relevance",
               "index", "nonrelevant_document_ids"]
    in_run = ~theirs["multilabel_id"].str.startswith("q90")
    # the run's queries in the order of their first lines, ranked as trec_eval ranks; then the qrels-only queries
    pd.testing.assert_frame_equal(mine[columns].iloc[:int(in_run.sum())].reset_index(drop=True),
                                  theirs.loc[in_run, columns].reset_index(drop=True))
    assert mine["multilabel_id"].iloc[int(in_run.sum()):].tolist() == ["q900", "q901", "q902"]


def test_runs_and_qrels_on_s3(files, expected, dask_client, tmp_path, s3):
    run, _ = _lines()
    urls = []
    for i, part in enumerate(_split(run, 3)):
        data = ("\n".join(part) + "\n").encode()
        key = f"{s3.name}/runs/run-{i}.txt" + (".gz" if i == 1 else "")
        s3.fs.pipe_file(key, gzip.compress(data) if i == 1 else data)
        urls.append(f"s3://{key}")
    s3.fs.pipe_file(f"{s3.name}/qrels.txt", files["qrels"].read_bytes())
    result = from_trec(f"{s3.url}/runs/run-*", f"{s3.url}/qrels.txt", partitions=3, out_dir=tmp_path / "out",
                       storage_options=s3.storage_options, client=dask_client, block_size=400)
    _same(result, expected)


def test_a_bad_line_in_a_later_block_is_named_by_its_line_in_the_file(files, dask_client, tmp_path):
    lines = [f"q{i % 7} Q0 D{i} 1 {i / 10} r" for i in range(300)]
    lines[211] = "q3 Q0 D211 1 high r"
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LoadError, match=re.escape(f"{path}:212: the score (column 5) must be a number; got 'high'")):
        from_trec(str(path), files["qrels"], partitions=2, out_dir=tmp_path / "out", client=dask_client,
                  block_size=1000)
    assert not (tmp_path / "out").exists()


def test_a_bad_line_in_a_gzip_file_is_named_by_its_line(files, dask_client, tmp_path):
    lines = [f"q{i % 5} Q0 D{i} 1 {i / 10} r" for i in range(400)]
    lines[349] = "q3 Q0 D349 1"
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(LoadError, match=re.escape(f"{path}:350: a TREC run line has 6 whitespace-separated columns")):
        from_trec([files["all"], path], files["qrels"], partitions=2, out_dir=tmp_path / "out", client=dask_client)


def test_partitions_without_run_lines_or_without_judged_queries(files, dask_client, tmp_path):
    (tmp_path / "run.txt").write_text("q1 Q0 D1 1 2.0 r\nq1 Q0 D2 2 1.0 r\n")
    (tmp_path / "qrels.txt").write_text("q1 0 D2 1\nq3 0 D1 1\n")
    # 6 partitions for 2 queries (by the mmh3 rule q1 in partition 1, q3 in 2): 4 empty, one with only a judgment
    result = from_trec(tmp_path / "run.txt", tmp_path / "qrels.txt", partitions=6, out_dir=tmp_path / "out",
                       client=dask_client)
    assert result.trec_metrics(["RR", "AP"]) == {"RR": 0.5, "AP": 0.5}
    assert result.trec_metrics(["RR"], complete=True) == {"RR": 0.25}  # q3 retrieved nothing: 0
    frame = result.compute()["Retriever"]
    assert frame[["multilabel_id", "document_id"]].values.tolist() == [["q1", "D1"], ["q1", "D2"], ["q3", ""]]


def test_a_document_twice_in_a_query_across_files_names_both_lines(files, dask_client, tmp_path):
    (tmp_path / "a.txt").write_text("q1 Q0 D1 1 2.0 r\nq1 Q0 D2 2 1.0 r\n")
    (tmp_path / "b.txt").write_text("q2 Q0 D1 1 2.0 r\nq1 Q0 D2 1 3.0 r\n")
    with pytest.raises(LoadError, match=re.escape(f"{tmp_path / 'b.txt'}:2: document 'D2' appears twice in query 'q1' "
                                                  f"(first on {tmp_path / 'a.txt'}:2)")):
        from_trec([tmp_path / "a.txt", tmp_path / "b.txt"], files["qrels"], partitions=3, out_dir=tmp_path / "out",
                  client=dask_client)


def test_a_parquet_row_without_a_score_is_named(files, dask_client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["D1", "D2", "D3"], "score": [1.0, None, 2.0]}),
                   tmp_path / "run.parquet", row_group_size=2)
    with pytest.raises(LoadError, match=re.escape(f"{tmp_path / 'run.parquet'}: row 2: column 'score' is missing")):
        from_trec(tmp_path / "run.parquet", files["qrels"], partitions=2, out_dir=tmp_path / "out", client=dask_client)
    pq.write_table(pa.table({"query": ["q1"], "doc_id": ["D1"], "score": [1.0]}), tmp_path / "other.parquet")
    with pytest.raises(LoadError, match=r"has no query id column \(one of \['query_id', 'qid'\]\); its columns: "
                                        r"\['query', 'doc_id', 'score'\]"):
        from_trec(tmp_path / "other.parquet", files["qrels"], partitions=2, client=dask_client)


def test_missing_files_and_bad_parameters_are_refused_before_any_task(files, tmp_path):
    with pytest.raises(LoadError, match=r"run file .*nope\.txt does not exist \(runs\[1\]\)"):
        from_trec([files["all"], tmp_path / "nope.txt"], files["qrels"], partitions=2)
    with pytest.raises(LoadError, match="no run file matches runs="):
        from_trec(str(tmp_path / "none-*.txt"), files["qrels"], partitions=2)
    with pytest.raises(InvalidParameterError, match="partitions must be an int >= 1"):
        from_trec(files["all"], files["qrels"], partitions=0)
    with pytest.raises(InvalidParameterError, match="block_size must be an int >= 1"):
        from_trec(files["all"], files["qrels"], partitions=2, block_size=0)


def test_without_out_dir_a_scratch_folder_is_written(files, expected, dask_client):
    result = from_trec(files["all"], files["qrels"], partitions=2, client=dask_client)
    assert result.path.name == "result" and result.path.parent.name.startswith("evalframe-from-trec-")
    _same(result, expected)


def test_qrels_as_a_frame_or_a_dict_give_the_file_s_numbers(files, expected, dask_client, tmp_path):
    """The qrels are read as from_trec reads them: a pandas frame (query_id, doc_id, relevance) and the dict of the
    same judgments give the numbers of the qrels file."""
    judged = pd.read_csv(files["qrels"], sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                         dtype={"query_id": str, "doc_id": str})
    as_dict: dict[str, dict[str, int]] = {}
    for qid, docid, grade in zip(judged["query_id"], judged["doc_id"], judged["relevance"]):
        as_dict.setdefault(qid, {})[docid] = int(grade)
    paths = _write_text(tmp_path, "run", 2)
    for number, qrels in enumerate([judged[["query_id", "doc_id", "relevance"]], as_dict]):
        _same(from_trec(paths, qrels, partitions=3, out_dir=tmp_path / f"out{number}", client=dask_client), expected)


def test_an_ir_datasets_id_is_read_through_ir_datasets_not_as_a_file(files, tmp_path):
    pytest.importorskip("ir_datasets")
    with pytest.raises(InvalidParameterError, match=r"ir_datasets has no dataset 'evalframe-no-such/dataset'"):
        from_trec(str(files["all"]), "irds:evalframe-no-such/dataset", partitions=2, out_dir=tmp_path / "out")


def test_the_folder_of_out_dir_none_outlives_the_result_until_exit_and_goes_after_a_failure(files, expected,
                                                                                           dask_client, tmp_path,
                                                                                           monkeypatch):
    import gc
    import tempfile

    import atexit

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    at_exit: list[tuple[object, tuple[object, ...], dict[str, object]]] = []
    monkeypatch.setattr(atexit, "register", lambda function, *args, **kwargs: at_exit.append((function, args, kwargs)))
    result = from_trec(str(files["all"]), files["qrels"], partitions=2, client=dask_client)
    made = list(tmp_path.glob("evalframe-from-trec-*"))
    assert len(made) == 1 and (made[0] / "result" / "evalframe.json").is_file()
    lazy = result.trec_query_metrics(MEASURES)
    del result
    gc.collect()  # the lazy frame still reads the folder
    table = lazy.compute().sort_index()
    np.testing.assert_allclose(table[MEASURES].to_numpy(float), expected.sort_index()[MEASURES].to_numpy(float),
                               rtol=0, atol=1e-12)
    assert len(at_exit) == 1
    function, args, kwargs = at_exit[0]
    function(*args, **kwargs)  # what the process's exit runs
    assert list(tmp_path.glob("evalframe-from-trec-*")) == []
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 high r\n")
    with pytest.raises(LoadError, match=r"bad\.txt:2"):
        from_trec(str(bad), files["qrels"], partitions=2, client=dask_client)
    assert list(tmp_path.glob("evalframe-from-trec-*")) == []


def test_a_url_out_dir_on_the_s3_server_holds_the_result_and_only_it(files, expected, dask_client, s3, tmp_path):
    """Pieces and part files on the S3 server (workers in other processes reach it); the published folder holds the
    manifest and the part files of one generation, the scratch pieces removed."""
    paths = _write_text(tmp_path, "run", 2)
    result = from_trec(paths, files["qrels"], partitions=3, out_dir=f"{s3.url}/out", client=dask_client,
                       storage_options=s3.storage_options, block_size=400)
    _same(result, expected)
    keys = s3.keys("out")
    assert "out/evalframe.json" in keys
    parts = [key for key in keys if key.endswith(".parquet")]
    assert len(parts) == 3 and len({key.split("/")[1] for key in parts}) == 1  # one generation
    assert not [key for key in keys if ".arrow" in key or "pieces" in key]
