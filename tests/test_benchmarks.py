"""The benchmark runner runs end to end at a small size (a smoke test, not a timing assertion)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from tests.fixtures import load_benchmark


@pytest.mark.stress  # a whole benchmark run end to end: .ci/run runs it with -m stress (the suite stays < 5 min)
@pytest.mark.benchmark
@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="the runner measures Parquet too")
def test_benchmark_runner_smoke(capsys):
    runner = load_benchmark("run.py")
    assert runner.main(["--queries", "2000", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "2,000 queries (40,000 rows)" in out
    for row in ("calculate_metrics() (cold)", "load CSV (read_csv + literal_eval)", "save Parquet", "load Parquet"):
        assert row in out
    assert "agree to 1e-12" in out


@pytest.mark.benchmark
def test_trec_benchmark_agrees_with_pytrec_eval(capsys):
    pytest.importorskip("pytrec_eval")
    bench = load_benchmark("bench_trec.py")
    assert bench.main(["--queries", "400", "--depth", "30"]) == 0  # exit 1 when any value differs from pytrec_eval's
    out = capsys.readouterr().out
    assert "per-query values equal to pytrec_eval to 1e-12: 5,760 of 5,760" in out  # 360 queries in both x 16 measures


@pytest.mark.stress  # a whole benchmark run end to end: .ci/run runs it with -m stress (the suite stays < 5 min)
@pytest.mark.benchmark
def test_vs_peers_smoke(capsys, tmp_path):
    pytest.importorskip("pytrec_eval")
    bench = load_benchmark("vs_peers.py")
    # ranx left out: its numba compile alone takes about 40 s; exit 1 when a value differs from pytrec_eval's
    assert bench.main(["--queries", "200", "--depth", "20", "--tools", "evalframe,pytrec_eval", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for kind in ("binary", "graded"):
        assert f"200 queries x 20 documents (4,000 rows), {kind} qrels" in out
    assert "| tool | import s | JIT compile s | (a) load s | (b) evaluate s | first call s | (a)+(b) s |" in out
    assert "| evalframe | " in out and "| pytrec_eval | " in out and "| / pytrec_eval | " in out
    # 200 queries x 6 measures, in both cases
    assert out.count("pytrec_eval vs evalframe (tolerance 1e-12): means agree") == 2
    assert out.count("per-query values 1,200 of 1,200 agree") == 2
    # the whole process of each (both of evalframe's ways) and the floor, with the ratios, in each case
    assert out.count("| rows | | evalframe from_trec | evalframe trec | pytrec_eval | floor |") == 2
    assert out.count("| 0.004M | whole process, s | ") == 2
    assert out.count("| whole process | / pytrec_eval | / floor |") == 2
    assert out.count("| evalframe trec, time | ") == 2


@pytest.mark.benchmark
# under the stress marker (which .ci/run runs in full), as the other benchmarks that start processes: 40 and 100 queries
@pytest.mark.parametrize("queries", [pytest.param(40, marks=pytest.mark.stress), pytest.param(100, marks=pytest.mark.stress)])
def test_vs_peers_trec_eval_and_ir_measures(capsys, tmp_path, queries):
    """trec_eval (when benchmarks/setup_trec_eval.sh has built it) and ir_measures agree with evalframe."""
    pytest.importorskip("ir_measures")
    bench = load_benchmark("vs_peers.py")
    tools = "evalframe,ir_measures" + (",trec_eval" if bench.TREC_EVAL_DEFAULT.is_file() else "")
    assert bench.main(["--queries", str(queries), "--depth", "15", "--qrels", "graded", "--tools", tools, "--no-floor",
                       "--out", str(tmp_path)]) == 0  # exit 1 when trec_eval's printed means differ from evalframe's
    out = capsys.readouterr().out
    assert "ir_measures vs evalframe (tolerance 1e-09): means agree" in out
    assert f"per-query values {6 * queries} of {6 * queries} agree" in out  # queries x 6 measures
    if "trec_eval" in tools:
        assert "trec_eval vs evalframe (its printed precision, 4 decimals): means agree" in out
        assert "trec_eval vs evalframe trec (both printed to 4 decimals): agree" in out
        assert "| rows | | evalframe from_trec | evalframe trec | ir_measures | trec_eval |" in out


def test_vs_peers_reads_trec_eval_output():
    bench = load_benchmark("vs_peers.py")
    output = "runid\tall\tbench\nnum_q\tall\t2\nmap\tall\t0.2500\nP_10  \tall\t0.1000\nmap\tq1\t0.5\n"
    assert bench._printed_means(output, ("P_10", "map")) == [0.1, 0.25]
    with pytest.raises(SystemExit, match="no 'all' line for ndcg"):
        bench._printed_means(output, ("map", "ndcg"))


def test_vs_peers_names_a_missing_trec_eval(capsys, tmp_path):
    bench = load_benchmark("vs_peers.py")
    missing = tmp_path / "no-trec_eval"
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--queries", "20", "--depth", "5", "--tools", "evalframe,trec_eval", "--trec-eval", str(missing),
                    "--out", str(tmp_path / "files")])
    assert exit_.value.code == 2
    assert (f"no trec_eval binary at {missing} (--trec-eval); build it with benchmarks/setup_trec_eval.sh, or leave "
            f"trec_eval out" in capsys.readouterr().err)
    assert not (tmp_path / "files").exists()
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "setup_trec_eval.sh"
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0  # the set-up it names parses


def test_vs_peers_names_a_missing_peer_before_writing_anything(capsys, tmp_path, monkeypatch):
    bench = load_benchmark("vs_peers.py")
    monkeypatch.setattr(bench, "find_spec", lambda name: None if name == "ranx" else importlib.util.find_spec(name))
    out = tmp_path / "files"
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--queries", "20", "--depth", "5", "--tools", "evalframe,ranx", "--out", str(out)])
    assert exit_.value.code == 2
    assert ("error: --tools evalframe,ranx: ranx not installed in this Python. Install the benchmark's peers with "
            "pip install -e '.[bench]' (ranx, pytrec_eval-terrier, ir_measures), or leave them out: --tools evalframe"
            in capsys.readouterr().err)
    assert not out.exists()


def test_vs_haystack_says_how_to_build_the_haystack_environment(tmp_path):
    bench = load_benchmark("vs_haystack.py")
    missing = tmp_path / "no-haystack"
    with pytest.raises(SystemExit, match=re.escape(f"no Haystack 1.x virtualenv at {missing} (--haystack): build it "
                                                   f"first with benchmarks/setup_haystack1.sh {missing}")):
        bench.main(["--haystack", str(missing)])
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "setup_haystack1.sh"
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0  # the set-up it names parses


@pytest.mark.stress  # a whole benchmark run: .ci/run runs it with -m stress (the suite stays under 5 minutes)
@pytest.mark.benchmark
def test_startup_benchmark_smoke(capsys):
    bench = load_benchmark("startup.py")
    assert bench.main(["--repeat", "1"]) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].lstrip("| "): line.rstrip(" |").split(" | ")[-1] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| case")}
    # what each case loads, as tests/test_startup.py states it: no pandas until a result is used
    assert rows["python"] == "-" and rows["import pyarrow"] == "numpy, pyarrow"
    assert rows["import evalframe"] == rows["evalframe --help"] == rows["evalframe list-metrics"] == "numpy"
    assert "pandas" in rows["evalframe.EvaluationResult"]
    assert rows["evalframe trec RUN QRELS"] == "numpy, pyarrow"  # the columnar path (present/trec_command.py)
    assert "import evalframe beyond import pyarrow: " in out


@pytest.mark.stress  # seven fresh processes, each importing evalframe: .ci/run runs it with -m stress
@pytest.mark.benchmark
def test_compare_benchmark_smoke(capsys):
    bench = load_benchmark("bench_compare.py")
    assert bench.main(["--queries", "60", "--runs", "3", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 runs x 10 measures x 60 queries, 10,000 rounds" in out
    for correction in ("holm", "bonferroni", "holm-sidak", "fdr_bh", "fdr_by", "none"):
        assert f"| compare(pairs='first', correction={correction!r}, test='randomization') | 20 | " in out
        assert f"| compare(pairs='all', correction={correction!r}, test='randomization') | 30 | " in out
    for test in ("tukey", "randomized-tukey"):
        assert f"| compare(pairs='all', correction='holm', test={test!r}) | 30 | " in out
    assert "| engine (paired_statistics_many), all pairs | 30 | " in out
    assert "slowest compare over the corrections: " in out and "s (each run with the first), " in out


@pytest.mark.stress  # fresh processes, each importing evalframe: .ci/run runs it with -m stress
@pytest.mark.benchmark
def test_history_benchmark_smoke(capsys):
    pytest.importorskip("evalframe.present.history")  # the command reads the store through History (H1)
    bench = load_benchmark("bench_history.py")
    assert bench.main(["--runs", "12", "--queries", "50", "--repeat", "1", "--target", "60"]) == 0
    out = capsys.readouterr().out
    assert "a store of 12 runs x 50 questions x 4 measures" in out
    assert "| case | seconds | CPU seconds |" in out
    for case in ("--plot trend.png", "--plot trend.html"):
        assert f"| evalframe history --measure nDCG@10 {case} | " in out
    assert "| evalframe history (the listing) | " in out and "| floor: import pyarrow.parquet, read 12 footers | " in out
    assert "target: under 60 s for the trend commands: met" in out


@pytest.mark.stress  # fresh processes, each importing evalframe: .ci/run runs it with -m stress
@pytest.mark.benchmark
def test_sources_benchmark_smoke(capsys):
    bench = load_benchmark("bench_sources.py")
    assert bench.main(["--samples", "20,40", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "EvaluationResult.from_ragas(path), JSON parse included, in fresh processes; median of 1" in out
    # per sample: 5 retrieved passages (the Retriever's rows) and one response (the Generator's row)
    assert "| 20 | this checkout | 120 | " in out and "| 40 | this checkout | 240 | " in out
@pytest.mark.stress  # fresh processes and a browser: .ci/run runs it with -m stress
@pytest.mark.benchmark
def test_page_benchmark_smoke(capsys):
    pytest.importorskip("playwright.sync_api")
    bench = load_benchmark("bench_page.py")
    assert bench.main(["--queries", "40", "--big", "30x3", "--big-loaded"]) == 0  # exit 1 when the page logs an error
    out = capsys.readouterr().out
    assert "### 40 questions x 2 runs (synthetic Ragas)" in out and "### 30 questions x 3 runs (synthetic Ragas)" in out
    for row in ("| build: evalframe report --from ragas ... --html (whole process) | ",
                "| build from loaded results: compare_report(runs).save | ", "| page size | ",
                "| usable: first rows drawn after navigation + a click opening its drill-down | ",
                "| measure select (sort by its gain) (slowest) | ", "| show regressions (slowest) | ",
                "| header sort (slowest) | "):
        assert out.count(row) == 2, row
    assert "machine load before: " in out and "errors in the page" not in out


@pytest.mark.benchmark
def test_serve_benchmark_smoke(capsys):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    bench = load_benchmark("bench_serve.py")
    assert bench.main(["--queries", "500"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bench_serve: 500 queries x 2 runs, grid built from arrays in ")
    assert "cold: the slowest page " in out and "warm: the slowest page " in out
    # the pages' totals, counted on the generator's columns: every row, one topic's, the rows mrr got better in
    grid = bench.make_grid(500)
    assert "      500 rows  {\"sort\": \"\"}" in out
    flood = int((grid.slices["topic"] == "flood").sum())
    assert f"{flood:>9,} rows  {{\"slice.topic\": \"flood\"}}" in out
    assert f"{int(((grid.values['mrr'][:, 1] > grid.values['mrr'][:, 0])).sum()):>9,} rows  " \
           f"{{\"show\": \"better\", \"measure\": \"mrr\"}}" in out
