"""Building a partitioned result from sharded runs files on a Dask cluster (evalframe.dask.from_runs, flatten).

``client`` is the session's LocalCluster of two worker processes (tests/dask/conftest.py).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from evalframe import EvaluationResult, InvalidParameterError, LoadError  # noqa: E402
from evalframe.sources.runs import read_runs  # noqa: E402
from evalframe.dask import from_runs  # noqa: E402
from evalframe.present.cli import main  # noqa: E402
from tests.fixtures import load_benchmark  # noqa: E402


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench_dask_build.py")


def in_memory(*paths: Path) -> EvaluationResult:
    """from_runs of the shards read one after another, as one runs file."""
    whole = paths[0].parent / "whole.jsonl.txt"
    whole.write_text("".join(p.read_text(encoding="utf-8") for p in paths), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EvaluationResult.from_runs(*read_runs(whole))


def assert_same(folder: Path, expected: EvaluationResult) -> None:
    got = EvaluationResult.load(folder)
    assert list(got) == list(expected)
    for node in expected:
        pd.testing.assert_frame_equal(got[node], expected[node])
    assert got.calculate_metrics() == expected.calculate_metrics()
    assert got.calculate_metrics(document_scope="context", eval_mode="isolated") == \
        expected.calculate_metrics(document_scope="context", eval_mode="isolated")


def line(query: str, gold_ids: list[str], contexts: list[str], answers: list[str], documents: list[tuple[str, str]],
         predicted: list[str], both_answers: bool) -> str:
    """A runs file line; node Both returns answers in some shards and documents in others."""
    docs = [{"id": i, "content": c} for i, c in documents]
    answer_dicts = [{"answer": a, "document_ids": [documents[0][0]] if documents else [],
                     "context": documents[0][1] if documents else None} for a in predicted]
    return json.dumps({
        "query": query, "gold": {"document_ids": gold_ids, "contexts": contexts, "answers": answers},
        "nodes": {"Retriever": {"documents": docs}, "Reader": {"answers": answer_dicts},
                  "Both": {"answers": answer_dicts if both_answers else [], "documents": [] if both_answers else docs}}})


BERLIN = "Berlin is the capital and largest city of Germany by both area and population, on the Spree."
BONN = "Bonn was the seat of government of West Germany until 1990, on the banks of the river Rhine."
PARIS = "Paris is the capital and most populous city of France, on the river Seine in the north."


@pytest.fixture
def hand_shards(tmp_path):
    """Three shards: a query split over shards 0 and 1 (one multilabel_id), a line without gold, an empty shard."""
    shard0 = [
        line("Capital of Germany?", ["d1"], [BERLIN], ["Berlin"], [("d2", BONN), ("d1", BERLIN)], ["Berlin", "Bonn"], True),
        json.dumps({"query": "no gold", "gold": {"answers": [], "document_ids": [], "contexts": []},
                    "nodes": {"Retriever": {"documents": []}, "Reader": {"answers": []},
                              "Both": {"answers": [], "documents": []}}}),
        line("Capital of France?", ["d3"], [PARIS], ["Paris"], [("d3", PARIS.upper())], ["paris"], True),
    ]
    shard1 = [
        line("Capital of France?", ["d3"], [PARIS], ["Paris"], [("d1", BERLIN), ("d3", PARIS)], ["Berlin"], False),
        line("Old capital?", ["d2"], [BONN], ["Bonn"], [("d2", BONN[:60])], [], False),
    ]
    paths = []
    for number, lines in enumerate([shard0, shard1, []]):
        path = tmp_path / f"runs-{number}.jsonl"
        path.write_text("".join(text + "\n" for text in lines), encoding="utf-8")
        paths.append(path)
    return paths


def test_hand_case_equals_the_in_memory_build(client, hand_shards, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = from_runs(hand_shards, tmp_path / "out", partitions=3, client=client)
    assert built.queries == 4 and built.dropped == [f"{hand_shards[0]}:2"]
    assert any(f"{hand_shards[0]}:2" in str(w.message) for w in caught)
    expected = in_memory(*hand_shards)
    assert built.rows == {node: len(frame) for node, frame in expected.items()}
    assert_same(tmp_path / "out", expected)
    # the query of shards 0 and 1: all its rows in one partition file of each node
    manifest = json.loads((tmp_path / "out" / "evalframe.json").read_text())
    assert manifest["partitioned"]["partitions"] == 3 and set(manifest["nodes"]) == {"Retriever", "Reader", "Both"}
    both = EvaluationResult.load(tmp_path / "out")["Both"]
    assert set(both["type"]) == {"answer", "document"}  # answer rows from shard 0, document rows from shard 1


def test_the_lines_left_out_are_recorded_in_the_folder_as_a_save_records_them(client, hand_shards, tmp_path):
    # the folder once had no "skipped": built.dropped was the only record, lost once the folder was loaded
    import evalframe.dask
    from evalframe.schema import Skipped

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = from_runs(hand_shards, tmp_path / "out", partitions=2, client=client)
        memory = EvaluationResult.from_source("runs", hand_shards[0])  # the shard of the line without gold, saved
        saved = json.loads((memory.save(tmp_path / "saved", format="parquet", partitions=2, progress=False)
                            / "evalframe.json").read_text())["skipped"]
    reason = "no label: no gold document and no gold answer"
    manifest = json.loads((built.path / "evalframe.json").read_text())
    assert manifest["skipped"] == saved == [{"where": f"{hand_shards[0]}:2", "reason": reason}]
    expected = (Skipped(f"{hand_shards[0]}:2", reason),)
    assert EvaluationResult.load(built.path).skipped == evalframe.dask.load(built.path, client=client).skipped == expected
    assert f"{hand_shards[0]}:2" in EvaluationResult.load(built.path).report(charts=False).text


def test_documents_without_ids_are_warned_about_on_the_client(client, tmp_path):
    """read_runs warns on the worker: the warning comes back with the shard, naming its file and line."""
    documents = [{"content": BERLIN}, {"content": BONN}]
    text = json.dumps({"query": "Capital of Germany?", "gold": {"document_ids": ["d1"]},
                       "nodes": {"Retriever": {"documents": documents}}}) + "\n"
    shard = tmp_path / "runs-0.jsonl"
    shard.write_text(text, encoding="utf-8")
    with pytest.warns(UserWarning, match=rf"2 of 2 retrieved documents have no 'id' or an empty one \(the first: {shard}:1, node "
                                         r"'Retriever', 'documents', document 1\)") as caught:
        from_runs([shard], tmp_path / "out", partitions=1, client=client)
    assert sum("have no 'id'" in str(w.message) for w in caught) == 1
    assert EvaluationResult.load(tmp_path / "out")["Retriever"]["index"].tolist() == [0, 1]


def test_documents_without_ids_in_several_shards_are_one_warning_with_the_total(tmp_path):
    # was: one warning per shard ("2 of 2 ..." for each file), and no total
    documents = [{"content": BERLIN}, {"id": "d1", "content": BONN}]
    shards = []
    for number in range(3):
        shard = tmp_path / f"runs-{number}.jsonl"
        shard.write_text(json.dumps({"query": f"Capital {number}?", "gold": {"document_ids": ["d1"]},
                                     "nodes": {"Retriever": {"documents": documents}}}) + "\n", encoding="utf-8")
        shards.append(shard)
    with pytest.warns(UserWarning, match=rf"^3 of 6 retrieved documents have no 'id' or an empty one \(the first: "
                                         rf"{shards[0]}:1, node 'Retriever', 'documents', document 1\)") as caught:
        from_runs(shards, tmp_path / "out", partitions=2)
    assert sum("have no 'id'" in str(w.message) for w in caught) == 1


# the hand case's four queries in 1 and 6 partitions here, in 16 under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize("counts", [(1, 6), pytest.param((16,), marks=pytest.mark.stress)], ids=["1-6", "16"])
def test_partitions_one_and_more_partitions_than_queries(client, hand_shards, tmp_path, counts):
    expected = in_memory(*hand_shards)
    for partitions in counts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from_runs([str(p) for p in hand_shards], tmp_path / f"out{partitions}", partitions=partitions, client=client)
        assert_same(tmp_path / f"out{partitions}", expected)


# 80 queries in five shards here, 240 under the stress marker (which .ci/run runs in full)
@pytest.mark.parametrize("queries", [80, pytest.param(240, marks=pytest.mark.stress)])
def test_bench_flatten_data_in_several_files_equals_the_in_memory_build(client, bench, tmp_path, queries):
    whole, shards = bench.write_shards(queries, tmp_path / "runs", 5)
    built = from_runs(str(tmp_path / "runs" / "runs-*.jsonl"), tmp_path / "out", partitions=4, client=client,
                      context_matching_threshold=60.0)
    assert built.queries == queries
    expected = EvaluationResult.from_runs(*read_runs(whole), context_matching_threshold=60.0)
    assert_same(tmp_path / "out", expected)
    assert EvaluationResult.load(tmp_path / "out").matching == expected.matching


def test_the_cli_builds_on_the_cluster(client, bench, tmp_path, capsys):
    whole, shards = bench.write_shards(60, tmp_path / "runs", 3)
    address = client.scheduler.address
    assert main(["flatten", *map(str, shards), "-o", str(tmp_path / "out"), "--partitions", "3",
                 "--scheduler", address]) == 0
    assert "wrote 60 queries (Retriever: 600 rows, Reader: 300 rows)" in capsys.readouterr().out
    expected = EvaluationResult.from_runs(*read_runs(whole))
    assert_same(tmp_path / "out", expected)
    # one file with --partitions and no cluster: the in-memory build, saved partitioned
    assert main(["flatten", str(whole), "-o", str(tmp_path / "one"), "--partitions", "2"]) == 0
    assert json.loads((tmp_path / "one" / "evalframe.json").read_text())["partitioned"]["partitions"] == 2
    assert_same(tmp_path / "one", expected)


def test_cli_refusals(tmp_path, hand_shards, capsys):
    out = str(tmp_path / "out")
    assert main(["flatten", str(hand_shards[0]), "-o", out, "--partitions", "2", "--format", "csv"]) == 1
    assert "--partitions 2 writes a partitioned Parquet folder" in capsys.readouterr().err
    assert main(["flatten", *map(str, hand_shards[:2]), "-o", out]) == 1
    assert "2 runs files build a partitioned folder shard by shard: add --partitions N" in capsys.readouterr().err
    assert main(["flatten", str(hand_shards[0]), "-o", out, "--scheduler", "tcp://127.0.0.1:1"]) == 1
    assert "--scheduler builds a partitioned folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["flatten", str(hand_shards[0]), "-o", out, "--partitions", "0"])
    assert "must be an int >= 1" in capsys.readouterr().err
    assert main(["convert", str(hand_shards[0]), out, "--to", "csv", "--partitions", "2", "--qrels", "q"]) == 1
    assert "use --to parquet, or drop --partitions" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_bad_inputs_are_refused_before_any_task(tmp_path, hand_shards):
    with pytest.raises(InvalidParameterError, match=r"partitions must be an int >= 1 .* got 0"):
        from_runs(hand_shards, tmp_path / "out", partitions=0)
    with pytest.raises(InvalidParameterError, match=r"partitions must be an int >= 1 .* got True"):
        from_runs(hand_shards, tmp_path / "out", partitions=True)
    with pytest.raises(InvalidParameterError, match=r"partitions must be at most 99,999 \(part files are numbered with "
                                                    r"five digits\); got 1,099,511,627,776"):
        from_runs(hand_shards, tmp_path / "out", partitions=2**40)
    missing = tmp_path / "runs-9.jsonl"
    with pytest.raises(LoadError, match=rf"runs file {missing} does not exist \(shard 3 of 4\)"):
        from_runs([*hand_shards, missing], tmp_path / "out", partitions=2)
    with pytest.raises(LoadError, match=r"no runs file matches"):
        from_runs(str(tmp_path / "nothing-*.jsonl"), tmp_path / "out", partitions=2)
    with pytest.raises(InvalidParameterError, match=r"context_matching_threshold"):
        from_runs(hand_shards, tmp_path / "out", partitions=2, context_matching_threshold=200)
    assert not (tmp_path / "out").exists()


def test_shards_naming_other_nodes_are_refused_naming_both(client, hand_shards, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"query": "q", "gold": {"document_ids": ["d1"]},
                                 "nodes": {"Retriever": {"documents": []}}}) + "\n", encoding="utf-8")
    with pytest.raises(LoadError, match=rf"runs file {other} names nodes and outputs .* but {hand_shards[0]} names"):
        from_runs([*hand_shards, other], tmp_path / "out", partitions=2, client=client)


def test_a_task_failing_mid_build_leaves_the_old_folder(client, hand_shards, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_runs(hand_shards, tmp_path / "out", partitions=2, client=client)
    broken = tmp_path / "runs-3.jsonl"
    broken.write_text(hand_shards[1].read_text() + "{not json\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(LoadError, match=rf"{broken}:3: not valid JSON"):  # raised on a worker, other shards done
        from_runs([*hand_shards, broken], tmp_path / "out", partitions=5, client=client)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no staging folder or pieces left behind
    assert_same(tmp_path / "out", in_memory(*hand_shards))
    assert json.loads((tmp_path / "out" / "evalframe.json").read_text())["partitioned"]["partitions"] == 2


def test_convert_writes_a_partitioned_folder(tmp_path, capsys):
    demo = Path(__file__).parent.parent.parent / "evalframe" / "data" / "demo_result"
    assert main(["convert", str(demo), str(tmp_path / "parts"), "--to", "parquet", "--partitions", "3"]) == 0
    assert "wrote 2 node(s) as parquet" in capsys.readouterr().out
    assert json.loads((tmp_path / "parts" / "evalframe.json").read_text())["partitioned"]["partitions"] == 3
    expected = EvaluationResult.load(demo)
    assert_same(tmp_path / "parts", expected)


def test_one_file_and_a_quoted_pattern(hand_shards, tmp_path, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = from_runs(hand_shards[1], tmp_path / "one", partitions=2)
        assert_same(built.path, in_memory(hand_shards[1]))
        built = from_runs(str(tmp_path / "runs-?.jsonl"), tmp_path / "all", partitions=2)
    assert_same(built.path, in_memory(*hand_shards))


class ExitOnce:
    """A SAS model whose first call, in whichever process, kills that process (a worker dying mid-task)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, predictions: list[str], golds: list[str]) -> list[float]:
        if not os.path.exists(self.marker):
            Path(self.marker).touch()
            os._exit(1)
        return [len(set(p.split()) & set(g.split())) / 3 for p, g in zip(predictions, golds)]


def test_a_worker_killed_mid_build_does_not_change_the_result(client, hand_shards, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_runs(hand_shards, tmp_path / "out", partitions=2, client=client, sas_model=ExitOnce(str(tmp_path / "died")))
        assert (tmp_path / "died").exists()  # a worker died; Dask ran its task again on a new one
        (tmp_path / "alive").touch()
        whole = tmp_path / "whole.jsonl.txt"
        whole.write_text("".join(p.read_text(encoding="utf-8") for p in hand_shards), encoding="utf-8")
        expected = EvaluationResult.from_runs(*read_runs(whole), sas_model=ExitOnce(str(tmp_path / "alive")))
    assert "sas" in expected["Reader"].columns
    assert_same(tmp_path / "out", expected)
