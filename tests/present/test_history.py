"""evalframe.History (evalframe/present/history.py) and `evalframe log`: what is logged comes back exactly, the means
and intervals of the footer, fingerprints, runs() / trend() and the question-set change, git, refs, the command."""

from __future__ import annotations

import hashlib
import json
import subprocess
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalframe
from evalframe import EvaluationResult, History, load_demo_result
from evalframe.analysis.protocol import QueryTable
from evalframe.errors import InvalidParameterError, LoadError
from evalframe.present.cli import main
from evalframe.io.history import read_run
from evalframe.present.history import TREND_COLUMNS, StoredRun

TREC_EVAL = Path("/root/.cache/evalframe-bench/trec_eval-10.0/trec_eval")
ROOT = Path(__file__).resolve().parents[2]
RUN = "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d5 3 1.0 t\nq2 Q0 d3 1 1.0 t\nq3 Q0 d9 1 4.0 t\nq3 Q0 d7 2 3.0 t\n"
QRELS = "q1 0 d2 1\nq1 0 d5 2\nq1 0 d6 0\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d7 1\n"


def _store() -> str:
    return f"memory://evalframe-tests/history-{uuid.uuid4().hex[:8]}"


def _trec(tmp_path: Path, run: str = RUN, qrels: str = QRELS) -> tuple[Path, Path]:
    run_path, qrels_path = tmp_path / f"run-{uuid.uuid4().hex[:6]}.txt", tmp_path / f"qrels-{uuid.uuid4().hex[:6]}.txt"
    run_path.write_text(run)
    qrels_path.write_text(qrels)
    return run_path, qrels_path


def _t_interval(values: np.ndarray) -> tuple[float, float, float]:
    values = values[~np.isnan(values)]
    mean = float(values.mean())
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return mean, mean - half, mean + half


# ------------------------------------------------------------------------------------------ values back
def test_log_then_get_gives_back_the_demo_per_query_values_exactly() -> None:
    result = load_demo_result()
    history = History(_store())
    history.log(result, name="demo", commit=None)
    stored = history.get("@last")
    assert stored.nodes == ["Retriever", "Reader"]
    for node in result.nodes:
        expected = result.query_metrics(node)
        pd.testing.assert_frame_equal(stored.table(node), expected, check_exact=True)
        texts = result.query_metrics(node, with_query=True)["query"]
        assert stored.texts(node).tolist() == texts.tolist()
    run = stored.run("Reader")
    assert isinstance(run, QueryTable) and run.name == "demo" and run.scores == {}


def test_the_footer_holds_means_and_t_intervals_worked_out_by_hand() -> None:
    result = load_demo_result()
    stored = History(_store()).log(result, name="demo", commit=None)
    f1 = result.query_metrics("Reader")["f1"].to_numpy()
    mean, low, high = _t_interval(f1)
    found = stored.meta["nodes"]["Reader"]["measures"]["f1"]
    assert found["n"] == 8 and found["direction"] == "higher"
    assert found["mean"] == pytest.approx(mean, abs=1e-12)
    assert (found["low"], found["high"]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def _trec_eval_q(run: Path, qrels: Path) -> dict[tuple[str, str], float]:
    out = subprocess.run([str(TREC_EVAL), "-q", "-m", "official", str(qrels), str(run)], capture_output=True,
                         text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        measure, query, value = line.split()
        if query != "all":
            values[(measure, query)] = float(value)
    return values


def test_a_trec_run_with_qrels_comes_back_with_trec_eval_q_values(tmp_path: Path) -> None:
    if not TREC_EVAL.exists():
        pytest.skip("trec_eval 10.0 is not built")
    run, qrels = _trec(tmp_path)
    history = History(tmp_path / "store")
    history.log(EvaluationResult.from_trec(run, qrels), name="bm25", commit=None)
    table = history.get("@last").table()
    reference = _trec_eval_q(run, qrels)
    names = {"map": "AP", "recip_rank": "RR", "bpref": "Bpref", "Rprec": "Rprec", "P_5": "P@5", "P_10": "P@10",
             "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "iprec_at_recall_0.50": "IPrec@0.5"}
    for trec_name, ours in names.items():
        for query in ("q1", "q2", "q3"):
            assert table.loc[query, ours] == pytest.approx(reference[(trec_name, query)], abs=5e-5), (ours, query)
    # by hand: q1 ranks d1 (unjudged), d2 (rel 1), d5 (rel 2): AP = (1/2 + 2/3) / 2; q3: d7 at rank 2: RR 1/2
    assert table.loc["q1", "AP"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-12)
    assert table.loc["q3", "RR"] == 0.5
    assert "ndcg" in table.columns  # the Haystack metrics of the node too


def test_ragas_judge_scores_come_back_with_their_directions() -> None:
    result = EvaluationResult.from_ragas(ROOT / "tests/data/rag/ragas/results.jsonl", progress=False)
    history = History(_store())
    history.log(result, name="rag", commit=None)
    stored = history.get("@last:rag")
    pd.testing.assert_frame_equal(stored.table("Generator"), result.query_metrics("Generator"), check_exact=True)
    run = stored.run("Generator")
    assert {name: metric.direction for name, metric in run.scores.items()} == {
        "id_based_context_precision": "higher", "id_based_context_recall": "higher", "ragas_exact_match": "higher",
        "string_present": "higher", "faithfulness": "higher"}
    assert stored.meta["nodes"]["Generator"]["measures"]["faithfulness"]["n"] == 3  # one query has no score
    assert stored.meta["nodes"]["Generator"]["measures"]["faithfulness"]["mean"] == pytest.approx((0.9 + 0.2 + 0.6) / 3)


def test_a_lower_is_better_score_keeps_its_direction_and_best_follows_it() -> None:
    history = History(_store())
    for latency in (2.0, 1.0, 3.0):
        result = load_demo_result()
        ids = result.query_metrics("Reader").index
        result.add_scores("Reader", pd.DataFrame({"latency": latency}, index=ids), direction="lower", bounds=(0, 60))
        history.log(result, name="demo", params={"latency": latency}, commit=None)
    best = history.get("@best:latency")
    assert best.meta["params"] == {"latency": 1.0}
    assert best.run("Reader").scores["latency"].direction == "lower"
    assert best.run("Reader").scores["latency"].bounds == (0, 60)


# ------------------------------------------------------------------------------------------ fingerprints
def test_the_fingerprint_is_the_sha256_of_the_sorted_query_ids() -> None:
    result = load_demo_result()
    stored = History(_store()).log(result, name="demo", commit=None)
    ids = sorted(result.query_metrics("Reader").index)
    assert stored.meta["nodes"]["Reader"]["fingerprint"] == hashlib.sha256("\n".join(ids).encode()).hexdigest()


def test_a_trec_fingerprint_covers_the_judgments(tmp_path: Path) -> None:
    history = History(tmp_path / "store")
    run, qrels = _trec(tmp_path)
    first = history.log(EvaluationResult.from_trec(run, qrels), name="a", commit=None)
    lines = sorted(line.split()[0] + "\t" + line.split()[2] + "\t" + line.split()[3] for line in QRELS.splitlines())
    expected = hashlib.sha256(b"q1\nq2\nq3" + b"\n\x00judgments\n" + "\n".join(lines).encode()).hexdigest()
    assert first.meta["nodes"]["Retriever"]["fingerprint"] == expected
    same = history.log(EvaluationResult.from_trec(*_trec(tmp_path)), name="b", commit=None)
    other = history.log(EvaluationResult.from_trec(*_trec(tmp_path, qrels=QRELS.replace("q2 0 d4 1", "q2 0 d4 2"))),
                        name="c", commit=None)
    fingerprints = [r.meta["nodes"]["Retriever"]["fingerprint"] for r in (first, same, other)]
    assert fingerprints[0] == fingerprints[1] != fingerprints[2]


# ------------------------------------------------------------------------------------------ runs and trend
def test_runs_columns_and_values() -> None:
    history = History(_store())
    first = history.log(load_demo_result(), name="demo", tags=["v1", "main"], params={"top_k": 5}, commit="abc123")
    history.log(load_demo_result(), name="other", commit=None)
    runs = history.runs()
    assert runs.index.name == "id" and list(runs.columns) == ["name", "time", "tags", "commit", "params", "nodes",
                                                              "queries"]
    assert runs.index[0] == first.id and list(runs["name"]) == ["demo", "other"]
    assert runs["tags"].iloc[0] == ["v1", "main"] and runs["params"].iloc[0] == {"top_k": 5}
    assert runs["commit"].tolist() == ["abc123", None] and runs["queries"].tolist() == [8, 8]
    assert str(runs["time"].dtype) == "datetime64[us, UTC]" or str(runs["time"].dt.tz) == "UTC"
    assert list(history.runs(name="other")["name"]) == ["other"]
    assert list(history.runs(tag="v1")["name"]) == ["demo"]


def test_trend_columns_and_the_question_set_change() -> None:
    history = History(_store())
    full = load_demo_result()
    history.log(full, name="demo", commit=None)
    history.log(full, name="demo", commit=None)
    fewer = load_demo_result()
    for node in fewer.nodes:  # two questions fewer
        frame = fewer[node]
        keep = frame["multilabel_id"].isin(frame["multilabel_id"].unique()[:6])
        fewer[node] = frame[keep].reset_index(drop=True)
    history.log(fewer, name="demo", commit=None)
    history.log(full, name="demo", commit=None)
    trend = history.trend("f1")
    assert tuple(trend.columns) == TREND_COLUMNS
    assert trend["question_set_changed"].tolist() == [False, False, True, True]
    assert trend["queries"].tolist() == [8, 8, 6, 8] and set(trend["node"]) == {"Reader"}
    f1 = full.query_metrics("Reader")["f1"].to_numpy()
    mean, low, high = _t_interval(f1)
    assert trend["mean"].iloc[0] == pytest.approx(mean) and trend["low"].iloc[0] == pytest.approx(low)
    assert trend["high"].iloc[0] == pytest.approx(high) and trend["direction"].iloc[0] == "higher"
    assert trend["mean"].iloc[2] == pytest.approx(fewer.query_metrics("Reader")["f1"].mean())
    assert trend["time"].is_monotonic_increasing


def test_trend_errors() -> None:
    history = History(_store())
    history.log(load_demo_result(), name="demo", commit=None)
    with pytest.raises(InvalidParameterError, match=r"no run holds the measure 'exact_mach'; the runs hold exact_match, "
                                                    r"f1, .*Did you mean 'exact_match'\?"):
        history.trend("exact_mach")
    with pytest.raises(InvalidParameterError, match=r"no run holds the measure 'f1' in node 'Retriever'"):
        history.trend("f1", node="Retriever")
    assert len(history.trend("f1", name="nobody")) == 0


def test_an_empty_store() -> None:
    history = History(_store())
    assert len(history.runs()) == 0 and list(history.trend("f1").columns) == list(TREND_COLUMNS)
    with pytest.raises(InvalidParameterError, match=r"holds no run"):
        history.get("@last")


# ------------------------------------------------------------------------------------------ git
def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()


def test_the_git_commit_and_dirty_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("a")
    _git(repo, "add", "a.txt")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one")
    monkeypatch.chdir(repo)
    history = History(tmp_path / "store")
    clean = history.log(load_demo_result(), name="demo")
    assert clean.meta["commit"] == _git(repo, "rev-parse", "HEAD") and clean.meta["dirty"] is False
    (repo / "b.txt").write_text("b")
    assert history.log(load_demo_result(), name="demo").meta["dirty"] is True
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    nowhere = history.log(load_demo_result(), name="demo")
    assert (nowhere.meta["commit"], nowhere.meta["dirty"]) == (None, None)


# ------------------------------------------------------------------------------------------ refs and errors
def test_refs_through_history() -> None:
    history = History(_store())
    a = history.log(load_demo_result(), name="a", tags="v3", commit=None)
    b = history.log(load_demo_result(), name="b", commit=None)
    assert history.get("@last").id == b.id and history.get("@last~1").id == a.id
    assert history.get("@tag:v3").id == a.id and history.get("@last:a").id == a.id
    assert history.get("@" + a.id[:-2]).id == a.id and history.get("@" + a.id).id == a.id
    with pytest.raises(LoadError, match=r"holds no run 20200101T000000000000Z-00000000"):
        history.get("@20200101T000000000000Z-00000000")
    assert history.get("@best:f1").id == b.id  # equal means: the latest
    with pytest.raises(InvalidParameterError, match=r"no run has the tag 'v4': the store memory://.* holds 2 runs; "
                                                    r"names: a, b; tags: v3"):
        history.get("@tag:v4")
    with pytest.raises(InvalidParameterError, match="a run reference must be one of"):
        history.get("last")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"name": ""}, "name must be a non-empty str"),
    ({"name": "x", "tags": [""]}, "tags must be a str or a list of non-empty str"),
    ({"name": "x", "params": {"k": [1]}}, r"params\['k'\] must be a str, number, bool or None"),
    ({"name": "x", "params": {"k": float("nan")}}, r"params\['k'\] must be a finite number"),
    ({"name": "x", "commit": 3}, "commit must be 'auto', None or a commit's id"),
    ({"name": "x", "node": "Retriver"}, "Retriver"),
])
def test_log_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        History(_store()).log(load_demo_result(), **kwargs)


def test_log_refuses_what_is_no_result() -> None:
    with pytest.raises(InvalidParameterError, match="result must be an EvaluationResult; got dict"):
        History(_store()).log({}, name="x")


def test_stored_run_node_errors() -> None:
    stored = History(_store()).log(load_demo_result(), name="x", commit=None)
    with pytest.raises(InvalidParameterError, match=r"node is needed: the run .* holds the nodes \['Retriever', 'Reader'\]"):
        stored.table()
    with pytest.raises(InvalidParameterError, match=r"Did you mean 'Reader'\?"):
        stored.table("Raeder")


def test_history_is_a_public_name() -> None:
    assert evalframe.History is History and "History" in evalframe.__all__


# ------------------------------------------------------------------------------------------ the command
def test_evalframe_log_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    load_demo_result().save(tmp_path / "demo")
    store = tmp_path / "store"
    code = main(["log", str(tmp_path / "demo"), "--store", str(store), "--name", "demo", "--tag", "v1", "--tag", "main",
                 "--param", "top_k=5", "--param", "model=bm25", "--param", "rerank=true"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    stored = History(store).get("@last")
    assert out[0] == stored.id
    assert out[1].startswith(f"logged 'demo' into {store}: Retriever: 8 queries, ndcg ")
    assert stored.meta["tags"] == ["v1", "main"] and stored.meta["params"] == {"top_k": 5, "model": "bm25",
                                                                               "rerank": True}
    assert stored.meta["source"] == str(tmp_path / "demo")
    pd.testing.assert_frame_equal(stored.table("Reader"), load_demo_result().query_metrics("Reader"), check_exact=True)


def test_evalframe_log_a_trec_run_with_qrels_into_the_env_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    store = _store()
    monkeypatch.setenv("EVALFRAME_STORE", store)
    run, qrels = _trec(tmp_path)
    assert main(["log", str(run), "--qrels", str(qrels), "--name", "bm25", "--node", "Retriever"]) == 0
    stored = History(store).get("@last:bm25")
    assert stored.table().loc["q1", "AP"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-12)


def test_evalframe_log_on_s3(tmp_path: Path, s3, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    load_demo_result().save(tmp_path / "demo")
    flags = [f"--storage-option=key={s3.storage_options['key']}", f"--storage-option=secret={s3.storage_options['secret']}",
             f"--storage-option=endpoint_url={s3.endpoint}"]
    assert main(["log", str(tmp_path / "demo"), "--store", f"{s3.url}/store", "--name", "demo", *flags]) == 0
    keys = s3.keys("store")
    assert len(keys) == 1 and keys[0].startswith("store/runs/") and keys[0].endswith(".parquet")
    stored = History(f"{s3.url}/store", storage_options=s3.storage_options).get("@last")
    pd.testing.assert_frame_equal(stored.table("Retriever"), load_demo_result().query_metrics("Retriever"),
                                  check_exact=True)


def test_evalframe_log_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    load_demo_result().save(tmp_path / "demo")
    assert main(["log", str(tmp_path / "demo"), "--name", "demo"]) == 1
    assert capsys.readouterr().err.strip() == ("error: no store given: pass --store STORE (a folder or a URL), "
                                                  "or set $EVALFRAME_STORE.")
    with pytest.raises(SystemExit) as exited:
        main(["log", str(tmp_path / "demo"), "--store", "s", "--name", "demo", "--param", "top_k"])
    assert exited.value.code == 2
    assert "must be KEY=VALUE (such as top_k=5 or model=bm25); got 'top_k'" in capsys.readouterr().err
    assert main(["log", str(tmp_path / "missing"), "--store", str(tmp_path / "s"), "--name", "demo"]) == 1
    assert capsys.readouterr().err.startswith("error: ")
    assert not (tmp_path / "s" / "runs").exists() or not list((tmp_path / "s" / "runs").iterdir())


# ------------------------------------------------------------------------------------------ concurrent logs
def _logger(store: str, process: int, runs: int, options: dict | None) -> None:
    history = History(store, storage_options=options)
    for index in range(runs):
        result = load_demo_result()
        ids = result.query_metrics("Reader").index
        result.add_scores("Reader", pd.DataFrame({"marker": float(process * 1000 + index)}, index=ids))
        history.log(result, name=f"p{process}", params={"process": process, "index": index}, commit=None)


def _concurrent_logs(store: str, processes: int, runs: int, options: dict | None, method: str) -> None:
    import multiprocessing

    context = multiprocessing.get_context(method)
    workers = [context.Process(target=_logger, args=(store, p, runs, options)) for p in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=1200)
        assert worker.exitcode == 0
    history = History(store, storage_options=options)
    runs_frame = history.runs()
    assert len(runs_frame) == processes * runs
    pairs = sorted((p["process"], p["index"]) for p in runs_frame["params"])
    assert pairs == [(p, i) for p in range(processes) for i in range(runs)]
    f1 = load_demo_result().query_metrics("Reader")["f1"]
    for run_id in runs_frame.index:  # each whole, holding what its process logged (read by id: one listing)
        stored = StoredRun(*read_run(store, run_id, storage_options=options))
        expected = stored.meta["params"]["process"] * 1000 + stored.meta["params"]["index"]
        table = stored.table("Reader")
        assert (table["marker"] == expected).all()
        pd.testing.assert_series_equal(table["f1"], f1, check_exact=True)


def test_concurrent_logs_small(tmp_path: Path) -> None:
    _concurrent_logs(str(tmp_path / "store"), 2, 3, None, "fork")


@pytest.mark.stress
def test_concurrent_logs_8_x_50_local(tmp_path: Path) -> None:
    _concurrent_logs(str(tmp_path / "store"), 8, 50, None, "fork")


@pytest.mark.stress
def test_concurrent_logs_8_x_50_s3(s3) -> None:  # type: ignore[no-untyped-def]
    _concurrent_logs(f"{s3.url}/store", 8, 50, s3.storage_options, "spawn")


# ------------------------------------------------------------------------------------------ review of issue 39
def test_a_trec_run_logs_the_measures_gated_on_with_trec_eval_cut_off_values(tmp_path: Path) -> None:
    """nDCG@10 and the other cut-off measures gated on are logged (the default set alone has no nDCG@10): as
    trec_eval -q -m ndcg_cut.10 (etc.) gives them, and by hand for nDCG@10 (linear gains, log2 discount)."""
    if not TREC_EVAL.exists():
        pytest.skip("trec_eval 10.0 is not built")
    run, qrels = _trec(tmp_path)
    history = History(tmp_path / "store")
    history.log(EvaluationResult.from_trec(run, qrels), name="bm25", commit=None)
    table = history.get("@best:nDCG@10").table()
    out = subprocess.run([str(TREC_EVAL), "-q", "-m", "ndcg_cut.5,10,20", "-m", "recall.5,10,20,100,1000", "-m",
                          "P.5,10,20", str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
    names = {"ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "ndcg_cut_20": "nDCG@20", "recall_5": "R@5",
             "recall_10": "R@10", "recall_20": "R@20", "recall_100": "R@100", "recall_1000": "R@1000", "P_5": "P@5",
             "P_10": "P@10", "P_20": "P@20"}
    checked = 0
    for line in out.splitlines():
        measure, query, value = line.split()
        if query != "all":
            assert table.loc[query, names[measure]] == pytest.approx(float(value), abs=5e-5), (measure, query)
            checked += 1
    assert checked == 3 * len(names)
    log2 = np.log2
    # q1: d2 (1) at rank 2, d5 (2) at rank 3; ideal d5, d2. q2: d3 (2) at rank 1; ideal d3 (2), d4 (1). q3: d7 at 2
    ideal_q1 = 2 + 1 / log2(3)
    assert table.loc["q1", "nDCG@10"] == pytest.approx((1 / log2(3) + 2 / log2(4)) / ideal_q1, abs=1e-12)
    assert table.loc["q2", "nDCG@10"] == pytest.approx(2 / ideal_q1, abs=1e-12)
    assert table.loc["q3", "nDCG@10"] == pytest.approx(1 / log2(3), abs=1e-12)
    # RR@10 and AP@100 by hand: the first relevant at ranks 2, 1, 2; AP as AP here (every run is shorter than 100)
    assert table["RR@10"].tolist() == [0.5, 1.0, 0.5]
    assert table["AP@100"].tolist() == pytest.approx(table["AP"].tolist(), abs=1e-12)
    trend = history.trend("nDCG@10")
    assert trend["mean"].iloc[0] == pytest.approx(table["nDCG@10"].mean(), abs=1e-12)


def test_history_measure_ndcg_at_10_of_a_logged_trec_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    run, qrels = _trec(tmp_path)
    store = str(tmp_path / "store")
    assert main(["log", str(run), "--qrels", str(qrels), "--store", store, "--name", "bm25"]) == 0
    capsys.readouterr()
    assert main(["history", "--store", store, "--measure", "nDCG@10", "--format", "json"]) == 0
    rows = list(json.loads(capsys.readouterr().out).values())
    ideal_q1 = 2 + 1 / np.log2(3)
    by_hand = ((1 / np.log2(3) + 1) / ideal_q1 + 2 / ideal_q1 + 1 / np.log2(3)) / 3
    assert len(rows) == 1 and rows[0]["mean"] == pytest.approx(by_hand, abs=1e-9)  # JSON: 10 digits


def test_reading_a_missing_local_store_is_an_error_naming_it_and_log_creates_one(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    history = History(missing)
    for read in (history.metas, history.runs, lambda: history.get("@last"), lambda: history.trend("mrr"),
                 lambda: history.get("@20260101T090000000000Z-0000000a")):
        with pytest.raises(InvalidParameterError, match=r"^store .*nowhere: no such store folder \(.*nowhere does not "
                                                        r"exist\); `evalframe log` writes runs into a new store"):
            read()
    assert not missing.exists()
    history.log(load_demo_result(), name="demo", commit=None)
    assert history.runs()["name"].tolist() == ["demo"]


def test_store_from_reads_the_flag_then_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalframe.present.history import store_from
    monkeypatch.setenv("EVALFRAME_STORE", "from-env")
    assert store_from("given") == "given" and store_from(None) == "from-env"
    monkeypatch.delenv("EVALFRAME_STORE")
    with pytest.raises(InvalidParameterError, match=r"^no store given: pass --store STORE \(a folder or a URL\), or "
                                                    r"set \$EVALFRAME_STORE\.$"):
        store_from(None)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParameterError, match=r"^store '.*file' is a file; a store is a folder"):
        store_from(str(tmp_path / "file"))


def test_the_gate_reads_ndcg_at_10_of_logged_trec_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`evalframe gate @best:nDCG@10 @last --store S --no-drop nDCG@10` on TREC runs (it said "no run holds the
    measure" when only the default set was logged): the second run ranks q1's d5 (rel 2) first, so it is the best."""
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    run, qrels = _trec(tmp_path)
    better, _ = _trec(tmp_path, run=RUN.replace("q1 Q0 d5 3 1.0 t", "q1 Q0 d5 0 9.0 t"))
    store = str(tmp_path / "store")
    for path, name in ((run, "bm25"), (better, "bm25-better"), (run, "bm25")):
        assert main(["log", str(path), "--qrels", str(qrels), "--store", store, "--name", name]) == 0
    history = History(store)
    assert history.get("@best:nDCG@10").name == "bm25-better"
    # q1 with d5 (2) first, d1, then d2 (1) at rank 3: (2 + 1/2) / (2 + 1/log2(3)); q2, q3 as before
    assert history.get("@best:nDCG@10").table().loc["q1", "nDCG@10"] == pytest.approx(
        2.5 / (2 + 1 / np.log2(3)), abs=1e-12)
    capsys.readouterr()
    code = main(["gate", "@best:nDCG@10", "@last", "--store", store, "--no-drop", "nDCG@10", "--format", "json"])
    out, err = capsys.readouterr()
    verdict = json.loads(out)
    assert code in (0, 1) and err == "" and [rule["measure"] for rule in verdict["rules"]] == ["nDCG@10"]
    assert verdict["rules"][0]["queries"] == 3
    assert verdict["rules"][0]["delta"] == pytest.approx(((1 / np.log2(3) + 1) - 2.5) / (2 + 1 / np.log2(3)) / 3,
                                                         abs=1e-9)
