"""Every surface that takes a path takes a URL (issue 38): each library surface and each command, on ``memory://`` and
on the local S3 server (moto's, the ``s3`` fixture), reads what a local file holds and writes what a local file gets.

Each case checks values: metrics of files read from a URL equal the hand-worked ones (and those of the same files
read locally); a file written to a URL is byte-equal to the same output written locally. The refusals: a URL whose
protocol fsspec does not know, one whose filesystem is not installed (the message names the install line), a
``Path`` made of a URL (pathlib collapsed its ``//``); each case runs in an empty working folder and checks that
nothing was made there (no folder named ``memory:`` or ``s3:``).

The result folders (save, load, ``dask.load``, ``dask.from_runs``' out_dir, the commands that load or save a folder
at a URL) are here too; their safety on object storage is tests/io/test_remote_save.py's.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evalframe
from evalframe import EvaluationResult, InvalidParameterError, LoadError
from evalframe.io.trec import write_qrels, write_run
from evalframe.present import cli, parsers
from evalframe.present.paper import comparison_table
from evalframe.sources.runs import read_runs

from .conftest import S3Bucket
from .fixtures import hand_result

pytest.importorskip("fsspec")


# ------------------------------------------------------------------------------------------ the files
#: Hand-worked: q1's relevant d2 at rank 2 (RR 1/2), q2's relevant d3 at rank 1 (RR 1): mean RR 0.75.
RUN_A = b"q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d3 1 2.0 a\nq2 Q0 d1 2 1.0 a\n"
#: q1's d2 at rank 1, q2's d3 at rank 2: mean RR 0.75 too, per query (1, 0.5).
RUN_B = b"q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d1 1 2.0 b\nq2 Q0 d3 2 1.0 b\n"
QRELS = b"q1 0 d2 1\nq2 0 d3 1\n"
SUBTOPIC_QRELS = b"q1 1 d2 1\nq1 2 d2 0\nq2 1 d3 1\n"
QUERIES = b"q1\tfirst question\nq2\tsecond question\n"
#: One query whose gold d1 is retrieved second: MRR 0.5.
RUNS_LINE = {"query": "Capital of Germany?", "gold": {"document_ids": ["d1"]},
             "nodes": {"Retriever": {"documents": [{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}]}}}
RAGAS = [{"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn.", "Berlin."],
          "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"], "reference": "Berlin"}]
LLAMAINDEX = [{"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
               "metric_dict": {"mrr": {"score": 0.5}}}]
HAYSTACK2 = {"inputs": {"question": ["Capital of Germany?"], "ground_truth_answer": ["Berlin"],
                        "predicted_answer": ["Berlin"]},
             "results": {"faithfulness": {"score": 0.75, "individual_scores": [0.75]}}}


def _parquet(rows: list[dict[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    pd.DataFrame(rows).to_parquet(buffer)
    return buffer.getvalue()


FILES: dict[str, bytes] = {
    "a.txt": RUN_A, "b.txt": RUN_B, "a.txt.gz": gzip.compress(RUN_A), "qrels.txt": QRELS,
    "qrels.txt.gz": gzip.compress(QRELS), "subtopics.txt": SUBTOPIC_QRELS, "queries.tsv": QUERIES,
    "bad.txt": b"q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 high a\n", "runs.jsonl": (json.dumps(RUNS_LINE) + "\n").encode(),
    "ragas.jsonl": "".join(json.dumps(row) + "\n" for row in RAGAS).encode(),
    "ragas.json": json.dumps(RAGAS).encode(), "ragas.csv": pd.DataFrame(RAGAS).to_csv(index=False).encode(),
    "ragas.parquet": _parquet(RAGAS), "llamaindex.jsonl": "".join(json.dumps(row) + "\n" for row in LLAMAINDEX).encode(),
    "haystack2.json": json.dumps(HAYSTACK2).encode(),
}


class Place:
    """Where a case's files are: a prefix on memory:// or on the S3 server's bucket, with the same files written
    locally (``local``) for the outputs and values to compare with; written once per module (the tests write their
    outputs under names of their own)."""

    def __init__(self, base: str, options: dict[str, Any] | None, fs: Any, root: str, local: Path) -> None:
        self.base, self.options, self.fs, self.root, self.local = base, options, fs, root, local
        local.mkdir(parents=True, exist_ok=True)
        for name, data in FILES.items():
            self.put(name, data)
            (local / name).write_bytes(data)

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def put(self, name: str, data: bytes) -> None:
        self.fs.pipe_file(f"{self.root}/{name}", data)

    def get(self, name: str) -> bytes:
        self.fs.invalidate_cache()
        return bytes(self.fs.cat_file(f"{self.root}/{name}"))

    @property
    def kw(self) -> dict[str, Any]:
        """The storage_options keyword of every call (None for memory://, which takes none)."""
        return {"storage_options": self.options}

    def flags(self) -> list[str]:
        """The --storage-option flags reaching the place."""
        return [part for key, value in (self.options or {}).items()
                for part in ("--storage-option", f"{key}={value}")]


@pytest.fixture
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _made(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture(scope="module")
def memory_place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    import fsspec

    prefix = uuid.uuid4().hex[:12]
    return Place(f"memory://{prefix}", None, fsspec.filesystem("memory"), f"/{prefix}",
                 tmp_path_factory.mktemp("memory-local"))


@pytest.fixture(scope="module")
def s3_place(s3_server: str, tmp_path_factory: pytest.TempPathFactory) -> Place:
    s3 = S3Bucket(s3_server, f"evalframe-{uuid.uuid4().hex[:12]}")
    return Place(f"{s3.url}/files", s3.storage_options, s3.fs, f"{s3.name}/files", tmp_path_factory.mktemp("s3-local"))


@pytest.fixture(params=["memory", "s3"])
def place(request: pytest.FixtureRequest, empty_cwd: Path) -> Any:
    yield request.getfixturevalue(f"{request.param}_place")
    assert _made(empty_cwd) == []  # nothing written locally: no folder named memory: or s3:


def _rr(result: EvaluationResult) -> float:
    return float(result.trec_metrics(["RR"])["RR"])


# ------------------------------------------------------------------------------------------ the library, reading
@pytest.mark.parametrize("run, qrels", [("a.txt", "qrels.txt"), ("a.txt.gz", "qrels.txt.gz")])
def test_from_trec_reads_run_qrels_and_queries_from_a_url(place, run, qrels):
    result = EvaluationResult.from_trec(place.url(run), place.url(qrels), queries=place.url("queries.tsv"),
                                        progress=False, **place.kw)
    assert _rr(result) == 0.75  # hand-worked (module doc)
    assert result["Retriever"]["query"].drop_duplicates().tolist() == ["first question", "second question"]
    local = EvaluationResult.from_trec(place.local / run, place.local / qrels, progress=False)
    pd.testing.assert_frame_equal(result.trec_query_metrics(["RR", "nDCG", "P@1"]),
                                  local.trec_query_metrics(["RR", "nDCG", "P@1"]))


def test_from_trec_subtopic_qrels_from_a_url(place):
    result = EvaluationResult.from_trec(place.url("a.txt"), place.url("subtopics.txt"), subtopics=True, progress=False,
                                        **place.kw)
    assert _rr(result) == 0.75  # each document's highest grade over the subtopics: the plain qrels


def test_a_bad_line_at_a_url_is_named_by_the_url_and_line(place):
    with pytest.raises(LoadError, match=rf"^{re.escape(place.url('bad.txt'))}:2: the score \(column 5\) must be a "
                                        "number"):
        EvaluationResult.from_trec(place.url("bad.txt"), place.url("qrels.txt"), progress=False, **place.kw)
    with pytest.raises(LoadError, match=rf"^run file {re.escape(place.url('none.txt'))} does not exist\.$"):
        EvaluationResult.from_trec(place.url("none.txt"), place.url("qrels.txt"), progress=False, **place.kw)


#: (case, how the result is built from the place's files, the node and measure, its hand-worked value: the one gold
#: document retrieved second, MRR 1/2; Haystack 2.x's judge score as the file gives it)
IMPORTERS: list[tuple[str, Callable[[Any], EvaluationResult], str, str, float]] = [
    ("from_source runs", lambda p: EvaluationResult.from_source("runs", p.url("runs.jsonl"), progress=False, **p.kw),
     "Retriever", "mrr", 0.5),
    *[(f"from_ragas {suffix}", lambda p, suffix=suffix: EvaluationResult.from_ragas(p.url(f"ragas.{suffix}"),
                                                                                    progress=False, **p.kw),
       "Retriever", "mrr", 0.5) for suffix in ("jsonl", "json", "csv", "parquet")],
    ("from_frame csv", lambda p: EvaluationResult.from_frame(p.url("ragas.csv"), question="user_input",
                                                             retrieved_ids="retrieved_context_ids",
                                                             gold_ids="reference_context_ids", meta=[], progress=False,
                                                             **p.kw), "Retriever", "mrr", 0.5),
    ("from_llamaindex", lambda p: EvaluationResult.from_llamaindex(p.url("llamaindex.jsonl"), progress=False, **p.kw),
     "Retriever", "mrr", 0.5),
    ("from_source detected", lambda p: EvaluationResult.from_source(None, p.url("ragas.jsonl"), progress=False, **p.kw),
     "Retriever", "mrr", 0.5),
    ("from_haystack2", lambda p: EvaluationResult.from_haystack2(p.url("haystack2.json"), progress=False, **p.kw),
     "Generator", "faithfulness", 0.75),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case, build, node, measure, value", IMPORTERS, ids=[case[0] for case in IMPORTERS])
def test_runs_files_and_the_importers_read_from_a_url(place, case, build, node, measure, value):
    assert build(place).calculate_metrics()[node][measure] == value


def test_read_runs_reads_a_url(place):
    labels, outputs = read_runs(place.url("runs.jsonl"), **place.kw)
    assert [label.query for label in labels] == ["Capital of Germany?"] and list(outputs) == ["Retriever"]


def test_an_importer_names_the_url_and_line_of_a_bad_record(place):
    place.put("broken.jsonl", b'{"query": 1}\n')
    with pytest.raises(LoadError, match=rf"^{re.escape(place.url('broken.jsonl'))}:1: 'query' must be a string"):
        read_runs(place.url("broken.jsonl"), **place.kw)


# ------------------------------------------------------------------------------------------ the library, writing
def test_trec_files_written_to_a_url_are_the_local_bytes(place):
    result = EvaluationResult.from_trec(place.url("a.txt"), place.url("qrels.txt"), progress=False, **place.kw)
    for name in ("run.txt", "run.txt.gz"):
        written = result.to_trec_run(place.url(name), tag="a", **place.kw)
        assert str(written) == place.url(name)
        assert place.get(name) == result.to_trec_run(place.local / name, tag="a").read_bytes()
    result.to_qrels(place.url("out-qrels.txt"), **place.kw)
    assert place.get("out-qrels.txt") == result.to_qrels(place.local / "out-qrels.txt").read_bytes() == QRELS
    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    write_run(run, place.url("w.txt"), tag="a", **place.kw)
    write_qrels({"q1": {"d2": 1}}, place.url("wq.txt.gz"), **place.kw)
    assert place.get("w.txt") == b"q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n"
    assert gzip.decompress(place.get("wq.txt.gz")) == b"q1 0 d2 1\n"


def test_fuse_and_optimize_fusion_read_and_write_urls(place):
    urls = [place.url("a.txt"), place.url("b.txt")]
    fused = evalframe.fuse(urls, output=place.url("fused.txt"), **place.kw)
    local = evalframe.fuse([place.local / "a.txt", place.local / "b.txt"], output=place.local / "fused.txt")
    pd.testing.assert_frame_equal(fused, local)
    assert place.get("fused.txt") == (place.local / "fused.txt").read_bytes()
    search = evalframe.optimize_fusion(urls, place.url("qrels.txt"), measure="RR", step=0.5,
                                       output=place.url("best.txt"), **place.kw)
    # hand-worked: a alone (w 1, 0) and b alone (0, 1) score 0.75; half and half ties q1's and q2's documents
    assert search.trials["RR"].tolist()[0] == 0.75 and search.trials["RR"].tolist()[2] == 0.75
    local_search = evalframe.optimize_fusion([place.local / "a.txt", place.local / "b.txt"], place.local / "qrels.txt",
                                             measure="RR", step=0.5, output=place.local / "best.txt")
    pd.testing.assert_frame_equal(search.trials, local_search.trials)
    assert place.get("best.txt") == (place.local / "best.txt").read_bytes()


def test_compare_of_trec_runs_at_urls_equals_the_local_files(place):
    table = evalframe.compare(place.url("a.txt"), place.url("b.txt"), qrels=place.url("qrels.txt"), metrics=["RR"],
                              rounds=200, **place.kw)
    local = evalframe.compare(place.local / "a.txt", place.local / "b.txt", qrels=place.local / "qrels.txt",
                              metrics=["RR"], rounds=200)
    assert table[["mean_a", "mean_b"]].to_numpy().tolist() == [[0.75, 0.75]]
    pd.testing.assert_frame_equal(table, local)
    paper = comparison_table([place.url("a.txt"), place.url("b.txt")], qrels=place.url("qrels.txt"), metrics=["RR"],
                             rounds=200, **place.kw)
    paper.save(place.url("table.md"), **place.kw)
    assert place.get("table.md") == paper.save(place.local / "table.md").read_bytes()


def test_reports_saved_to_a_url_are_the_local_bytes(place):
    result = EvaluationResult.from_trec(place.url("a.txt"), place.url("qrels.txt"), progress=False, **place.kw)
    report = result.report(n=1, charts=False)
    for name in ("report.md", "report.json"):
        assert str(report.save(place.url(name), **place.kw)) == place.url(name)
        assert place.get(name) == report.save(place.local / name).read_bytes()
    side = evalframe.compare_report([hand_result(), hand_result()], metrics=["mrr"], rounds=50)
    side.save(place.url("side.md"), **place.kw)
    assert place.get("side.md") == side.save(place.local / "side.md").read_bytes()


def test_result_folders_at_a_url(place):
    """The result folders' surfaces: save (csv, parquet, partitioned), load, compare_report of folders, dask.load."""
    result = hand_result()
    expected = result.calculate_metrics()
    for name, options in (("csv", {}), ("parquet", {"format": "parquet"}),
                          ("parts", {"format": "parquet", "partitions": 2})):
        result.save(place.url(name), progress=False, **options, **place.kw)
        loaded = EvaluationResult.load(place.url(name), progress=False, **place.kw)
        assert loaded.calculate_metrics() == expected
    report = evalframe.compare_report([place.url("csv"), place.url("parquet")], metrics=["mrr"], rounds=50, **place.kw)
    assert report.model.nodes[0].measures[0].deltas[0].delta == 0.0


def _shards(place: Place) -> str:
    """Two shards of one run under a prefix of their own; the glob pattern naming them."""
    prefix = uuid.uuid4().hex[:8]
    for shard, city in enumerate(["Berlin", "Paris"]):
        line = {"query": f"Capital city {shard}?", "gold": {"document_ids": [city]},
                "nodes": {"Retriever": {"documents": [{"id": "x", "content": "x"}, {"id": city, "content": city}]}}}
        place.put(f"{prefix}/{shard}.jsonl", (json.dumps(line) + "\n").encode())
    return place.url(f"{prefix}/*.jsonl")


def test_dask_from_runs_reads_shards_at_a_url(place, tmp_path):
    """On Dask's scheduler in this process (the workers' reads: the stress test below, on the LocalCluster)."""
    dask = pytest.importorskip("evalframe.dask")
    built = dask.from_runs(_shards(place), tmp_path / "out", partitions=2, **place.kw)
    assert (built.queries, built.rows) == (2, {"Retriever": 4})
    assert EvaluationResult.load(built.path).calculate_metrics()["Retriever"]["mrr"] == 0.5  # each gold second


@pytest.mark.stress
def test_dask_from_runs_reads_shards_at_a_url_on_the_workers(s3_place, tmp_path, empty_cwd, dask_client):
    """Workers are separate processes: memory:// is not theirs, the S3 server is (about 25 s: the cluster starts)."""
    dask = pytest.importorskip("evalframe.dask")
    built = dask.from_runs(_shards(s3_place), tmp_path / "out", partitions=2, client=dask_client, **s3_place.kw)
    assert (built.queries, built.rows) == (2, {"Retriever": 4})
    assert EvaluationResult.load(built.path).calculate_metrics()["Retriever"]["mrr"] == 0.5
    assert _made(empty_cwd) == []


@pytest.mark.stress
def test_dask_folders_at_a_url(s3, tmp_path, dask_client):
    dask = pytest.importorskip("evalframe.dask")
    line = {"query": "q?", "gold": {"document_ids": ["d1"]},
            "nodes": {"Retriever": {"documents": [{"id": "d1", "content": "a passage"}]}}}
    (tmp_path / "runs.jsonl").write_text(json.dumps(line) + "\n")
    dask.from_runs(str(tmp_path / "runs.jsonl"), f"{s3.url}/built", partitions=1, client=dask_client,
                   storage_options=s3.storage_options)
    loaded = dask.load(f"{s3.url}/built", client=dask_client, storage_options=s3.storage_options)
    assert loaded.calculate_metrics()["Retriever"]["mrr"] == 1.0


# ------------------------------------------------------------------------------------------ the library, refusals
def _missing_protocol() -> str:
    """A protocol fsspec knows whose package is not installed here (gcsfs, adlfs, ...)."""
    for protocol, module, package in (("gs", "gcsfs", "gcsfs"), ("az", "adlfs", "adlfs"), ("oci", "ocifs", "ocifs")):
        if importlib.util.find_spec(module) is None:
            return f"{protocol}|{package}"
    pytest.skip("every filesystem package is installed")


#: (surface, the parameter its message names, the call with the URL)
LIBRARY: list[tuple[str, str, Callable[[Any], Any]]] = [
    ("to_trec_run", "path", lambda url: hand_result().to_trec_run(url, node="Retriever", duplicates="first")),
    ("to_qrels", "path", lambda url: EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}},
                                                                progress=False).to_qrels(url)),
    ("from_trec run", "run", lambda url: EvaluationResult.from_trec(url, {"q1": {"d1": 1}}, progress=False)),
    ("from_trec qrels", "qrels", lambda url: EvaluationResult.from_trec({"q1": {"d1": 1.0}}, url, progress=False)),
    ("from_trec qrels, subtopics", "qrels", lambda url: EvaluationResult.from_trec({"q1": {"d1": 1.0}}, url,
                                                                                   subtopics=True, progress=False)),
    ("from_trec queries", "queries", lambda url: EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}},
                                                                            queries=url, progress=False)),
    ("read_runs", "path", lambda url: read_runs(url, progress=False)),
    ("from_source", "path", lambda url: EvaluationResult.from_source(None, url)),
    ("from_ragas", "dataset_or_path", lambda url: EvaluationResult.from_ragas(url)),
    ("from_frame", "df", lambda url: EvaluationResult.from_frame(url)),
    ("from_haystack2", "run_result", lambda url: EvaluationResult.from_haystack2(url)),
    ("from_llamaindex", "results", lambda url: EvaluationResult.from_llamaindex(url)),
    ("io.trec.write_run", "path", lambda url: write_run({"q1": {"d1": 1.0}}, url)),
    ("io.trec.write_qrels", "path", lambda url: write_qrels({"q1": {"d1": 1}}, url)),
    ("fuse runs", "runs", lambda url: evalframe.fuse([{"q1": {"d1": 1.0}}, url])),
    ("fuse output", "output", lambda url: evalframe.fuse([{"q1": {"d1": 1.0}}] * 2, output=url)),
    ("optimize_fusion qrels", "qrels", lambda url: evalframe.optimize_fusion([{"q1": {"d1": 1.0}}] * 2, url,
                                                                             measure="RR")),
    ("optimize_fusion output", "output", lambda url: evalframe.optimize_fusion([{"q1": {"d1": 1.0}}] * 2,
                                                                               {"q1": {"d1": 1}}, measure="RR",
                                                                               output=url)),
    ("compare TREC runs", "run", lambda url: evalframe.compare(url, {"q1": {"d1": 1.0}}, qrels={"q1": {"d1": 1}})),
    ("compare qrels", "qrels", lambda url: evalframe.compare({"q1": {"d1": 1.0}}, {"q1": {"d1": 1.0}}, qrels=url)),
    ("compare_report", "runs", lambda url: evalframe.compare_report([url, hand_result()])),
    ("report save", "path", lambda url: hand_result().report(n=1, charts=False).save(url)),
    ("comparison_table save", "path", lambda url: comparison_table(
        [{"q1": {"d1": 1.0}}, {"q1": {"d1": 2.0}}], qrels={"q1": {"d1": 1}}, metrics=["RR"], rounds=10).save(url)),
    ("dask.from_runs runs", "runs", lambda url: pytest.importorskip("evalframe.dask").from_runs(url, "out",
                                                                                                 partitions=1)),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("surface, parameter, call", LIBRARY, ids=[case[0] for case in LIBRARY])
def test_a_url_fsspec_cannot_read_is_refused_naming_the_parameter(empty_cwd, surface, parameter, call):
    with pytest.raises(InvalidParameterError, match=rf"^{parameter} is the URL 'nosuch://bucket/x\.txt', whose "
                                                    r"protocol 'nosuch' no fsspec filesystem reads") as caught:
        call("nosuch://bucket/x.txt")
    assert caught.value.parameter == parameter
    protocol, package = _missing_protocol().split("|")
    with pytest.raises(InvalidParameterError, match=rf"^{parameter} is the URL '{protocol}://bucket/x\.txt', and "
                                                    rf"{protocol}:// needs a filesystem that is not installed: install "
                                                    rf"{package} \(pip install {package}\)\.$"):
        call(f"{protocol}://bucket/x.txt")
    with pytest.raises(InvalidParameterError, match=rf"^{parameter}(\S*| \S+) is 'memory:/x/x\.txt', the URL "
                                                    r"'memory://x/x\.txt' whose '//' pathlib collapsed; pass the URL "
                                                    "as a str"):
        call(Path("memory://x/x.txt"))
    assert _made(empty_cwd) == []  # no folder named memory:, gs: or nosuch:


@pytest.mark.parametrize("call", [lambda url: hand_result().save(url, progress=False),
                                  lambda url: EvaluationResult.load(url, progress=False)], ids=["save", "load"])
def test_a_folder_url_fsspec_cannot_read_is_refused(empty_cwd, call):
    with pytest.raises(InvalidParameterError, match=r"is the URL 'nosuch://bucket/x', whose protocol 'nosuch'"):
        call("nosuch://bucket/x")
    assert _made(empty_cwd) == []


def test_alocal_path_that_only_looks_like_a_scheme_is_taken(empty_cwd):
    """A file named 'x:y', or a folder 'memory:' written './memory:', is a local path."""
    folder = hand_result().save("./memory:/out", progress=False)
    assert folder == Path("memory:/out") and EvaluationResult.load("./memory:/out", progress=False).nodes == [
        "Retriever", "Reader"]
    assert json.loads((empty_cwd / "memory:" / "out" / "evalframe.json").read_text())["nodes"]
    assert hand_result().save("x:y", progress=False) == Path("x:y")
    write_run({"q1": {"d1": 1.0}}, "./memory:/run.txt")
    assert (empty_cwd / "memory:" / "run.txt").read_bytes() == b"q1 Q0 d1 1 1.0 evalframe\n"


# ------------------------------------------------------------------------------------------ the command line
def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _url_and_local(place: Place) -> tuple[Callable[[str], str], Callable[[str], str]]:
    return place.url, (lambda name: str(place.local / name))


def test_trec_command_reads_urls(place, capsys):
    url, local = _url_and_local(place)
    trec = _run(["trec", url("a.txt.gz"), url("qrels.txt"), "-m", "RR", *place.flags()], capsys)
    assert trec == "num_q\tall\t2\nRR   \tall\t0.7500\n"  # hand-worked
    zscores = b"q1 recip_rank 0.5 0.25\nq2 recip_rank 0.5 0.25\n"
    place.put("z.txt", zscores)
    (place.local / "z.txt").write_bytes(zscores)
    z_flags = ["-m", "RR", "--format", "trec_eval", "-Z"]
    with_z = _run(["trec", url("a.txt"), url("qrels.txt"), *z_flags, url("z.txt"), *place.flags()], capsys)
    assert with_z == _run(["trec", local("a.txt"), local("qrels.txt"), *z_flags, local("z.txt")], capsys)
    assert "recip_rank" in with_z


def test_compare_command_reads_urls(place, capsys):
    url, local = _url_and_local(place)
    given = ["-m", "RR", "--rounds", "200"]
    assert (_run(["compare", url("a.txt"), url("b.txt"), "--qrels", url("qrels.txt"), *given, *place.flags()], capsys)
            == _run(["compare", local("a.txt"), local("b.txt"), "--qrels", local("qrels.txt"), *given], capsys))


def test_fuse_command_reads_and_writes_urls(place, capsys):
    url, local = _url_and_local(place)
    _run(["fuse", url("a.txt"), url("b.txt"), "-o", url("cli-fused.txt"), *place.flags()], capsys)
    _run(["fuse", local("a.txt"), local("b.txt"), "-o", local("cli-fused.txt")], capsys)
    assert place.get("cli-fused.txt") == (place.local / "cli-fused.txt").read_bytes()
    optimize = ["--optimize", "RR", "--step", "0.5", "--qrels"]
    _run(["fuse", url("a.txt"), url("b.txt"), "-o", url("cli-best.txt"), *optimize, url("qrels.txt"), *place.flags()],
         capsys)
    _run(["fuse", local("a.txt"), local("b.txt"), "-o", local("cli-best.txt"), *optimize, local("qrels.txt")], capsys)
    assert place.get("cli-best.txt") == (place.local / "cli-best.txt").read_bytes()


@pytest.mark.parametrize("command, node", [("metrics", []), ("worst", ["--node", "Retriever"])])
def test_metrics_and_worst_commands_read_urls(place, capsys, command, node):
    url, local = _url_and_local(place)
    assert (_run([command, url("a.txt"), "--from", "trec", "--qrels", url("qrels.txt"), *node, *place.flags()], capsys)
            == _run([command, local("a.txt"), "--from", "trec", "--qrels", local("qrels.txt"), *node], capsys))
    if command == "metrics":  # the source found by its content
        shown = _run(["metrics", url("ragas.jsonl"), *place.flags()], capsys)
        assert re.search(r"Retriever .* 0\.5000 ", shown)  # mrr 1/2: recall and mrr of the one query


def test_report_command_reads_and_writes_urls(place, capsys):
    url = place.url
    _run(["report", url("a.txt"), "--from", "trec", "--qrels", url("qrels.txt"), "--format", "markdown", "--html",
          url("report.html"), *place.flags()], capsys)
    assert place.get("report.html").startswith(b"<!DOCTYPE html>")


def test_convert_command_reads_and_writes_urls(place, capsys, tmp_path):
    url, local = _url_and_local(place)
    # a TREC run, its qrels and queries read from URLs into a local folder; back to TREC files at URLs
    _run(["convert", url("a.txt"), str(tmp_path / "folder"), "--to", "csv", "--qrels", url("qrels.txt"), "--queries",
          url("queries.tsv"), *place.flags()], capsys)
    folder = EvaluationResult.load(tmp_path / "folder", progress=False)
    assert folder["Retriever"]["query"].iloc[0] == "first question"
    assert folder.calculate_metrics()["Retriever"]["mrr"] == 0.75
    _run(["convert", str(tmp_path / "folder"), url("out.txt"), "--to", "trec", "--qrels", url("out-qrels.txt"),
          *place.flags()], capsys)
    _run(["convert", str(tmp_path / "folder"), local("out.txt"), "--to", "trec", "--qrels", local("out-qrels.txt")],
         capsys)
    assert place.get("out.txt") == (place.local / "out.txt").read_bytes()
    assert place.get("out-qrels.txt") == (place.local / "out-qrels.txt").read_bytes() == QRELS


@pytest.mark.parametrize("name, source", [("runs.jsonl", []), ("ragas.csv", ["--from", "ragas"])])
def test_flatten_command_reads_urls(place, capsys, tmp_path, name, source):
    _run(["flatten", place.url(name), *source, "-o", str(tmp_path / "flat"), *place.flags()], capsys)
    assert EvaluationResult.load(tmp_path / "flat", progress=False).calculate_metrics()["Retriever"]["mrr"] == 0.5


def test_commands_loading_and_saving_folders_at_urls(place, capsys):
    flags = place.flags()
    _run(["demo", "--out", place.url("demo"), *flags], capsys)
    assert "mrr" in _run(["metrics", place.url("demo/results"), *flags], capsys)
    assert _run(["worst", place.url("demo/results"), "--node", "Retriever", *flags], capsys)
    _run(["flatten", place.url("runs.jsonl"), "-o", place.url("flat"), *flags], capsys)
    _run(["convert", place.url("flat"), place.url("flat-parquet"), "--to", "parquet", *flags], capsys)
    assert "mrr" in _run(["compare", place.url("flat"), place.url("flat-parquet"), *flags], capsys)
    assert _run(["report", place.url("flat"), place.url("flat-parquet"), *flags], capsys)


def test_storage_options_reach_the_filesystem(s3, capsys, empty_cwd):
    """The S3 server is reached through the options alone (its endpoint and credentials are in no environment)."""
    s3.fs.pipe_file(f"{s3.name}/a.txt", RUN_A)
    s3.fs.pipe_file(f"{s3.name}/qrels.txt", QRELS)
    flags = [part for key, value in s3.storage_options.items() for part in ("--storage-option", f"{key}={value}")]
    assert _run(["trec", f"{s3.url}/a.txt", f"{s3.url}/qrels.txt", "-m", "RR", *flags], capsys).endswith("0.7500\n")
    with pytest.raises(InvalidParameterError, match=r"^storage_options must be a dict of the filesystem's options"):
        EvaluationResult.from_trec(f"{s3.url}/a.txt", f"{s3.url}/qrels.txt", storage_options=["anon"])
    assert _made(empty_cwd) == []


#: (command line with URL in one path argument, the argument as argparse names it)
COMMANDS = [
    (["demo", "--out", "{url}"], "--out"),
    (["metrics", "{url}"], "folder"),
    (["worst", "{url}"], "folder"),
    (["compare", "{url}", "b"], "RUN"),
    (["compare", "a", "b", "--qrels", "{url}"], "--qrels"),
    (["convert", "{url}", "out"], "IN"),
    (["convert", "in", "{url}"], "OUT"),
    (["convert", "run.txt", "out", "--qrels", "{url}"], "--qrels"),
    (["convert", "run.txt", "out", "--qrels", "q.txt", "--queries", "{url}"], "--queries"),
    (["flatten", "{url}", "-o", "out"], "runs"),
    (["flatten", "runs.jsonl", "-o", "{url}"], "-o/--out"),
    (["metrics", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["worst", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["flatten", "run.txt", "-o", "out", "--qrels", "{url}"], "--qrels"),
    (["report", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["report", "{url}"], "RUN"),
    (["report", "a", "--html", "{url}"], "--html"),
    (["trec", "{url}", "qrels.txt"], "run"),
    (["trec", "run.txt", "{url}"], "qrels"),
    (["trec", "run.txt", "qrels.txt", "-Z", "{url}"], "-Z/--zscores"),
    (["fuse", "{url}", "b", "-o", "out.txt"], "RUN"),
    (["fuse", "a", "b", "-o", "{url}"], "-o/--out"),
    (["fuse", "a", "b", "-o", "out.txt", "--optimize", "RR", "--qrels", "{url}"], "--qrels"),
    (["compare", "@last", "@last~1", "--store", "{url}"], "--store"),
    (["gate", "{url}", "b", "--no-drop", "mrr"], "BASELINE"),
    (["gate", "a", "{url}", "--no-drop", "mrr"], "CANDIDATE"),
    (["gate", "a", "b", "--no-drop", "RR", "--qrels", "{url}"], "--qrels"),
    (["gate", "@last~1", "@last", "--no-drop", "mrr", "--store", "{url}"], "--store"),
    *((["gate", "a", "b", "--no-drop", "mrr", flag, "{url}"], flag) for flag in ("--markdown", "--junit", "--json")),
    (["log", "{url}", "--store", "s", "--name", "n"], "RESULT"),
    (["log", "a", "--store", "{url}", "--name", "n"], "--store"),
    (["log", "run.txt", "--qrels", "{url}", "--store", "s", "--name", "n"], "--qrels"),
    (["history", "--store", "{url}"], "--store"),
    (["history", "--store", "s", "--measure", "mrr", "--plot", "{url}"], "--plot"),
    (["serve", "{url}"], "STORE | FOLDER | FILE"),
    (["serve", "--store", "{url}"], "--store"),
    (["serve", "run.txt", "--qrels", "{url}"], "--qrels"),
]


@pytest.mark.parametrize("argv, argument", COMMANDS, ids=[" ".join(case[0]) for case in COMMANDS])
def test_a_url_fsspec_cannot_read_on_the_command_line_is_a_usage_error(empty_cwd, capsys, argv, argument):
    protocol, package = _missing_protocol().split("|")
    for url, said in (("nosuch://b/x", "the URL 'nosuch://b/x', whose protocol 'nosuch' no fsspec filesystem reads"),
                      (f"{protocol}://b/x", f"the URL '{protocol}://b/x': {protocol}:// needs a filesystem that is not "
                                            f"installed: install {package} (pip install {package})"),
                      ("s3:/b/x", "'s3:/b/x', the URL 's3://b/x' whose '//' pathlib collapsed")):
        with pytest.raises(SystemExit) as caught:
            cli.main([part.format(url=url) for part in argv])
        assert caught.value.code == 2  # a usage error: argparse's, before the command runs
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith(f"evalframe {argv[0]}: error: argument {argument}: {said}"), last
    assert _made(empty_cwd) == []


def test_a_storage_option_that_is_no_key_value_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["trec", "run.txt", "qrels.txt", "--storage-option", "anon"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "evalframe trec: error: argument --storage-option: must be KEY=VALUE (such as anon=true or "
        "endpoint_url=http://127.0.0.1:9000); got 'anon'")


def test_every_command_takes_storage_options_and_every_path_argument_is_in_the_sweep():
    """A path argument added later is checked too: each parser's arguments of the path-or-URL type are listed above;
    every command but list-metrics (which reads nothing) has --storage-option."""
    swept = {(argv[0], argument) for argv, argument in COMMANDS}
    typed = set()
    for name, parser in parsers.command_parsers().items():
        assert any("--storage-option" in action.option_strings for action in parser._actions) == (
            name != "list-metrics"), name  # every command that reads or writes a file
        for action in parser._actions:
            if getattr(action.type, "__name__", "") in ("path_or_url", "judgments_path", "_run_or_ref"):  # or irds:<id>, or @ref
                shown = "/".join(action.option_strings) if action.option_strings else (
                    action.metavar if isinstance(action.metavar, str) else action.dest)
                typed.add((name, shown))
    assert typed == swept
