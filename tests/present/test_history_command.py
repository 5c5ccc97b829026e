"""``evalframe history`` on a small store written by hand in the store's format (docs/history.md): the listing (each
run with its measures' means and intervals, in time order, the change of question set said), ``--measure``'s trend
and its ``--plot`` (PNG, HTML), the formats, the filters, and the errors (one ``error:`` line, exit 1)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("evalframe.present.history")  # H1's History: the command reads the store through it

from evalframe.present.cli import main  # noqa: E402
from tests.report.test_trend import parse  # noqa: E402

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

#: (id, name, time, tags, commit, query ids, {measure: (mean, low, high)}): the numbers are the footers', shown as
#: they are; the third run's question set differs (q4 for q3), the fourth's is the first's again.
RUNS = [
    ("20260102T090000000000Z-0000000b", "dense", "2026-01-02T09:00:00+00:00", ["v2"], "bbbbbbbbbbbbbbbb",
     ["q1", "q2", "q3"], {"nDCG@10": (0.62, 0.55, 0.69), "recall": (0.9, 0.8, 1.0)}),
    ("20260101T090000000000Z-0000000a", "bm25", "2026-01-01T09:00:00+00:00", [], "aaaaaaaaaaaaaaaa",
     ["q1", "q2", "q3"], {"nDCG@10": (0.5, 0.4, 0.6), "recall": (0.7, 0.6, 0.8)}),
    ("20260103T090000000000Z-0000000c", "dense", "2026-01-03T09:00:00+00:00", ["v3", "rc"], None,
     ["q1", "q2", "q4"], {"nDCG@10": (0.66, 0.6, 0.72), "recall": (0.95, 0.9, 1.0)}),
    ("20260104T090000000000Z-0000000d", "dense", "2026-01-04T09:00:00+00:00", ["v3"], "dddddddddddddddd",
     ["q1", "q2", "q3"], {"nDCG@10": (0.64, 0.58, 0.70), "recall": (0.93, 0.86, 1.0)}),
]


def write_store(store: Path) -> Path:
    (store / "runs").mkdir(parents=True)
    for run_id, name, time, tags, commit, queries, measures in RUNS:
        fingerprint = hashlib.sha256("\n".join(sorted(queries)).encode()).hexdigest()
        meta = {"format": 1, "id": run_id, "name": name, "time": time, "tags": tags, "params": {}, "commit": commit,
                "dirty": None, "source": "test", "evalframe": "test",
                "nodes": {"Retriever": {"queries": len(queries), "fingerprint": fingerprint, "measures": {
                    measure: {"mean": mean, "low": low, "high": high, "n": len(queries), "direction": "higher"}
                    for measure, (mean, low, high) in measures.items()}}},
                "scores": {}}
        table = pa.table({"node": ["Retriever"] * len(queries), "query": queries, "text": [None] * len(queries),
                          **{measure: [mean] * len(queries) for measure, (mean, _, _) in measures.items()}})
        pq.write_table(table.replace_schema_metadata({b"evalframe.run": json.dumps(meta).encode()}),
                       store / "runs" / f"{run_id}.parquet")
    return store


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    return write_store(tmp_path / "store")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_listing_shows_every_run_in_time_order_with_its_means_and_intervals(store, capsys):
    code, out, err = run(capsys, "--store", str(store), "--all")
    assert code == 0 and err == ""
    lines = [line for line in out.splitlines() if line.startswith("2026")]
    assert [line.split()[0][-1] for line in lines] == ["a", "b", "c", "d"]  # by time, not by the order written
    first, second, third, fourth = lines
    assert "bm25" in first and "aaaaaaaaaa" in first and "0.5000 [0.4000, 0.6000]" in first
    assert "0.7000 [0.6000, 0.8000]" in first and "changed" not in first
    assert "dense" in second and "v2" in second and "0.6200 [0.5500, 0.6900]" in second
    assert "v3, rc" in third and "changed" in third  # q4 for q3
    assert "changed" in fourth  # back to the first set: changed again from the run before
    assert "nDCG@10" in out.splitlines()[0] and "recall" in out.splitlines()[0] and "question set" in out


def test_the_trend_of_a_measure_and_its_filters(store, capsys):
    code, out, _ = run(capsys, "--store", str(store), "--measure", "nDCG@10")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("2026")]
    assert [line.split()[0][-1] for line in lines] == ["a", "b", "c", "d"]
    assert "0.6600 [0.6000, 0.7200]" in lines[2] and lines[2].rstrip().endswith("changed")
    assert "recall" not in out
    code, out, _ = run(capsys, "--store", str(store), "--measure", "nDCG@10", "--name", "dense", "--format", "json")
    rows = json.loads(out)
    assert list(rows) == [RUNS[0][0], RUNS[2][0], RUNS[3][0]]
    assert [rows[key]["mean"] for key in rows] == [0.62, 0.66, 0.64]
    assert [rows[key]["question_set_changed"] for key in rows] == [False, True, True]
    code, out, _ = run(capsys, "--store", str(store), "--tag", "v3", "--format", "csv")
    header, *rows_ = out.splitlines()
    assert code == 0 and [row.split(",")[0] for row in rows_] == [RUNS[2][0], RUNS[3][0]]
    assert header.split(",")[-6:] == ["nDCG@10", "nDCG@10 low", "nDCG@10 high", "recall", "recall low", "recall high"]
    assert rows_[1].split(",")[-6:] == ["0.64", "0.58", "0.7", "0.93", "0.86", "1.0"]


def test_the_plot_as_an_html_page_and_as_a_png(store, capsys, tmp_path):
    page = tmp_path / "out" / "trend.html"
    code, out, _ = run(capsys, "--store", str(store), "--measure", "nDCG@10", "--plot", str(page))
    assert code == 0 and f"trend of nDCG@10 over 4 runs drawn to {page} (2 changes of question set marked)" in out
    shapes = parse(page.read_text(encoding="utf-8"))
    assert len(shapes.of_class("mean")) == len(shapes.of_class("interval")) == 4
    assert len(shapes.of_class("changed")) == 2
    image = pytest.importorskip("PIL.Image")
    png = tmp_path / "trend.png"
    assert run(capsys, "--store", str(store), "--measure", "nDCG@10", "--plot", str(png))[0] == 0
    with image.open(png) as drawn:
        assert drawn.format == "PNG" and drawn.size == (1000, 480)


def test_the_listing_of_one_node_counts_its_queries(tmp_path, capsys, monkeypatch):
    store = write_store(tmp_path / "store")
    for path in (store / "runs").iterdir():  # a second node, Reader, with 7 queries in every run
        table = pq.read_table(path)
        meta = json.loads(table.schema.metadata[b"evalframe.run"])
        meta["nodes"]["Reader"] = {"queries": 7, "fingerprint": "r", "measures": {
            "f1": {"mean": 0.25, "low": 0.125, "high": 0.375, "n": 7, "direction": "higher"}}}
        pq.write_table(table.replace_schema_metadata({b"evalframe.run": json.dumps(meta).encode()}), path)
    code, out, _ = run(capsys, "--store", str(store), "--node", "Reader", "--format", "csv")
    header, *rows = csv.reader(io.StringIO(out))
    assert code == 0 and header[5] == "queries" and header[-3:] == ["f1", "f1 low", "f1 high"]
    assert [row[5] for row in rows] == ["7"] * 4 and "nDCG@10" not in header
    code, out, _ = run(capsys, "--store", str(store))
    assert "Reader/f1" in out and "Retriever/nDCG@10" in out and "0.2500 [0.1250, 0.3750]" in out


def test_the_store_from_the_environment(store, capsys, monkeypatch):
    monkeypatch.setenv("EVALFRAME_STORE", str(store))
    code, out, _ = run(capsys, "--measure", "recall")
    assert code == 0 and "0.9500 [0.9000, 1.0000]" in out


@pytest.mark.parametrize(("argv", "message"), [
    ([], "error: no store given: pass --store STORE (a folder or a URL), or set $EVALFRAME_STORE."),
    (["--store", "{store}", "--plot", "x.png"], "error: --plot draws one measure's trend: give --measure M too."),
    (["--store", "{store}", "--measure", "nDCG@10", "--plot", "{tmp}/x.svg"],
     "error: --plot must end in .png or .html (the trend as an image or a page); got '{tmp}/x.svg'."),
    (["--store", "{store}", "--measure", "nDCG@10", "--plot", "{tmp}/dir.png"], "error: --plot '{tmp}/dir.png' is a folder"),
    (["--store", "{store}", "--measure", "MAP"], "error: --measure: no run holds the measure 'MAP'; the runs hold "),
    (["--store", "{store}", "--measure", "nDCG@10", "--name", "nope"],
     "error: --measure 'nDCG@10': no run in {store} (--name nope) holds it"),
    (["--store", "{store}", "--node", "Reader"], "error: --node 'Reader': no run in {store} has that node."),
])
def test_bad_input_is_one_error_line(store, capsys, tmp_path, argv, message):
    (tmp_path / "dir.png").mkdir()
    argv = [arg.format(store=store, tmp=tmp_path) for arg in argv]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith(message.format(store=store, tmp=tmp_path)) and err.count("\n") == 1


def test_an_empty_store_says_so(tmp_path, capsys, monkeypatch):
    (tmp_path / "empty" / "runs").mkdir(parents=True)
    code, out, _ = run(capsys, "--store", str(tmp_path / "empty"), "--tag", "v1")
    assert code == 0 and out.strip() == f"no runs in {tmp_path / 'empty'}"


def test_a_filter_no_run_matches_names_what_there_is(store, capsys):
    code, out, err = run(capsys, "--store", str(store), "--name", "dnese")
    assert code == 1 and out == ""
    assert err == (f"error: --name 'dnese': none of the 4 runs in {store} matches; their names are ['bm25', 'dense'], "
                   "their tags ['rc', 'v2', 'v3'].\n")
    code, _, err = run(capsys, "--store", str(store), "--name", "dense", "--tag", "v1")
    assert code == 1 and err.startswith("error: --name 'dense' --tag 'v1': none of the 4 runs")


def test_a_file_as_the_store_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    (tmp_path / "file.txt").write_text("x")
    code, _, err = run(capsys, "--store", str(tmp_path / "file.txt"))
    assert code == 1 and err == (f"error: --store '{tmp_path / 'file.txt'}' is a file; a store is a folder (or a URL) "
                                 "that evalframe log writes runs into.\n")


# ------------------------------------------------------------------------------------------ review of issue 39
RUN_TEXT = "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq2 Q0 d3 1 1.0 t\nq3 Q0 d7 1 3.0 t\n"
QRELS_TEXT = "q1 0 d2 1\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d7 1\n"


@pytest.fixture
def trec_store(tmp_path, monkeypatch, capsys):
    """A store of two logged TREC runs (about 40 measures each)."""
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    (tmp_path / "run.txt").write_text(RUN_TEXT)
    (tmp_path / "qrels.txt").write_text(QRELS_TEXT)
    store = tmp_path / "store"
    for name in ("bm25", "dense"):
        assert main(["log", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"), "--store", str(store),
                     "--name", name]) == 0
    capsys.readouterr()
    return store


@pytest.mark.filterwarnings("error")
def test_the_listing_of_a_trec_store_shows_the_headline_measures_without_a_warning(trec_store, capsys):
    code, out, err = run(capsys, "--store", str(trec_store))
    assert code == 0 and err == ""
    header = out.splitlines()[0].split()
    shown = [column for column in header if column not in ("time", "name", "tags", "commit", "queries", "question",
                                                          "set")]
    assert sorted(shown) == sorted(["mrr", "ndcg", "recall_single_hit", "AP", "RR", "P@10", "nDCG@10"])
    assert max(len(line) for line in out.splitlines()) < 300  # was about 1,000 characters wide
    code, out, _ = run(capsys, "--store", str(trec_store), "--measures", "nDCG@10,R@100")
    assert code == 0 and out.splitlines()[0].split()[-2:] == ["nDCG@10", "R@100"] and "AP" not in out.splitlines()[0]
    code, out, _ = run(capsys, "--store", str(trec_store), "--all")
    assert code == 0 and {"R@1000", "IPrec@0.5", "gm_map", "nDCG@20"} <= set(out.splitlines()[0].split())
    code, out, _ = run(capsys, "--store", str(trec_store), "--format", "csv")  # csv and json: every measure
    header = next(csv.reader(io.StringIO(out)))
    assert code == 0 and {"R@1000", "R@1000 low", "R@1000 high", "IPrec@0.5", "nDCG@10"} <= set(header)


def test_the_default_listing_leaves_out_measures_that_are_not_headline(store, capsys):
    code, out, _ = run(capsys, "--store", str(store))
    assert code == 0 and "nDCG@10" in out.splitlines()[0] and "recall" not in out
    assert "0.5000 [0.4000, 0.6000]" in out and "0.7000 [0.6000, 0.8000]" not in out
    code, out, _ = run(capsys, "--store", str(store), "--measures", "recall")
    assert code == 0 and "0.7000 [0.6000, 0.8000]" in out and "nDCG@10" not in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--measures", "recall,MAP"], "error: --measures 'recall,MAP': no run holds 'MAP'; the runs hold nDCG@10, recall."),
    (["--measure", "recall", "--all"], "error: --measures and --all choose the listing's columns; --measure shows one"),
])
def test_bad_measures_are_one_error_line(store, capsys, argv, message):
    code, out, err = run(capsys, "--store", str(store), *argv)
    assert code == 1 and out == "" and err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize("argv", [[], ["--measure", "nDCG@10"], ["--tag", "v1"]])
def test_a_store_folder_that_does_not_exist_is_an_error(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    code, out, err = run(capsys, "--store", "nowhere", *argv)
    assert code == 1 and out == ""
    assert err == (f"error: --store nowhere: no such store folder ({tmp_path / 'nowhere'} does not exist); "
                   "`evalframe log` writes runs into a new store.\n")
    assert not (tmp_path / "nowhere").exists()


def test_the_listing_reads_each_run_s_footer_once(store, capsys, monkeypatch):
    import evalframe.io.history as store_format
    reads = []
    footer = store_format._footer
    monkeypatch.setattr(store_format, "_footer", lambda *args: reads.append(args[1]) or footer(*args))
    code, _, _ = run(capsys, "--store", str(store))
    assert code == 0 and len(reads) == len(RUNS) == len(set(reads))
