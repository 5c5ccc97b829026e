"""Qrels and query texts from ir_datasets (evalframe.sources.irds; docs/storage.md#ir_datasets).

The datasets are ir_datasets' own: built from local files with its format classes (``TrecQrels``, ``TrecSubQrels``,
``TsvQueries``, ``TrecQueries`` over ``LocalDownload``), combined by ``ir_datasets.datasets.base.Dataset`` and
registered under a test id in ``ir_datasets.registry`` (removed after), so ``ir_datasets.load`` finds them: no
download. The reference is the same qrels given as a file (whose numbers are checked against trec_eval elsewhere)
and a hand-worked case.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, compare, optimize_fusion
from evalframe.errors import InvalidParameterError, LoadError
from evalframe.metrics.registry import TREC_MEASURES
from evalframe.metrics.trec import example_measure, parse_measure
from evalframe.present.cli import main
from evalframe.sources.irds import IRDS_PREFIX, irds_qrels, irds_queries
from evalframe.sources.trec_files import read_qrels, read_queries
from tests.test_every_measure_everywhere import NAMES, needs_subtopics, write_runs

ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import TrecQrels, TrecQueries, TrecSubQrels, TsvQueries  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

HAND_RUN = "q1 Q0 d2 1 2.0 a\nq1 Q0 d1 2 1.0 a\nq2 Q0 d3 1 1.0 a\n"
HAND_QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n"
HAND_QUERIES = "q1\twho wrote hamlet\nq2\tcapital of peru\n"


class Registered:
    """Datasets registered in ir_datasets' registry under fresh test ids, removed when the test ends."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def __call__(self, *components: Any) -> str:
        dataset_id = f"evalframe-tests/{uuid.uuid4().hex[:8]}"
        ir_datasets.registry.register(dataset_id, Dataset(*components))
        self.ids.append(dataset_id)
        return dataset_id

    def remove(self) -> None:
        for dataset_id in self.ids:
            ir_datasets.registry._registered.pop(dataset_id, None)  # the registry has no public removal


@pytest.fixture
def register():
    registered = Registered()
    yield registered
    registered.remove()


@pytest.fixture
def hand(tmp_path, register):
    """The hand-worked case as files and as a registered dataset (qrels and TSV queries): (id, folder)."""
    (tmp_path / "run").write_text(HAND_RUN)
    (tmp_path / "qrels").write_text(HAND_QRELS)
    (tmp_path / "queries.tsv").write_text(HAND_QUERIES)
    dataset_id = register(TrecQrels(LocalDownload(tmp_path / "qrels"), {}),
                          TsvQueries(LocalDownload(tmp_path / "queries.tsv")))
    return dataset_id, tmp_path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two random runs of 30 queries and their qrels (grades -1..3), as the every-measure test writes them."""
    return write_runs(tmp_path_factory.mktemp("irds"), 1, 2)


@pytest.fixture
def random_id(files, register):
    return register(TrecQrels(LocalDownload(files / "qrels.txt"), {}))


# ---------------------------------------------------------------------------------------------- values
def test_the_hand_worked_case(hand):
    """q1 ranks d2 (grade 0) then d1 (grade 2): AP 1/2, RR 1/2, P@1 0; q2 ranks d3 (grade 1) first: 1, 1, 1."""
    dataset_id, folder = hand
    result = EvaluationResult.from_trec(folder / "run", IRDS_PREFIX + dataset_id, queries=IRDS_PREFIX + dataset_id,
                                        progress=False)
    table = result.trec_query_metrics(["AP", "RR", "P@1"])
    assert table.to_dict("index") == {"q1": {"AP": 0.5, "RR": 0.5, "P@1": 0.0}, "q2": {"AP": 1.0, "RR": 1.0, "P@1": 1.0}}
    assert result.trec_metrics(["AP"]) == {"AP": 0.75}
    frame = result["Retriever"]
    assert frame["query"].tolist() == ["who wrote hamlet", "who wrote hamlet", "capital of peru"]
    assert frame["gold_document_ids"].tolist() == [["d1"], ["d1"], ["d3"]]
    assert frame["nonrelevant_document_ids"].tolist() == [["d2"], ["d2"], []]


def test_the_dataset_object_reads_as_its_id(hand):
    dataset_id, folder = hand
    by_object = EvaluationResult.from_trec(folder / "run", ir_datasets.load(dataset_id), progress=False)
    assert by_object.trec_metrics(["AP", "RR"]) == {"AP": 0.75, "RR": 0.75}


def test_every_trec_measure_equals_the_same_qrels_as_a_file(files, random_id):
    from_file = EvaluationResult.from_trec(files / "a.txt", files / "qrels.txt", progress=False)
    for qrels in (IRDS_PREFIX + random_id, ir_datasets.load(random_id)):
        from_irds = EvaluationResult.from_trec(files / "a.txt", qrels, progress=False)
        expected = from_file.trec_query_metrics(NAMES)
        assert len(expected) == 28 and expected.notna().any().all()  # the queries of both
        pd.testing.assert_frame_equal(from_irds.trec_query_metrics(NAMES, complete=True),
                                      from_file.trec_query_metrics(NAMES, complete=True), check_exact=True)
        pd.testing.assert_frame_equal(from_irds.trec_query_metrics(NAMES), expected, check_exact=True)
        assert from_irds.trec_metrics(NAMES) == from_file.trec_metrics(NAMES)
        assert from_irds.calculate_metrics() == from_file.calculate_metrics()
        pd.testing.assert_frame_equal(from_irds["Retriever"], from_file["Retriever"])


def test_the_readers_give_the_file_readers_structures(files, random_id):
    pd.testing.assert_frame_equal(read_qrels(IRDS_PREFIX + random_id), read_qrels(files / "qrels.txt"))
    pd.testing.assert_frame_equal(read_qrels(IRDS_PREFIX + random_id, subtopics=True),
                                  read_qrels(files / "qrels.txt", subtopics=True))  # the iteration column: "0"


def test_subtopic_qrels_read_the_subtopic_field_as_the_file_reader_reads_the_second_column(tmp_path, register):
    lines = ["q1 1 d1 1", "q1 2 d1 1", "q1 2 d2 1", "q1 3 d4 1", "q1 1 d9 0", "q2 1 d3 1", "q2 2 d5 2", "q3 1 d7 1"]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 5 a\nq1 Q0 d2 2 4 a\nq1 Q0 d3 3 3 a\nq1 Q0 d4 4 2 a\n"
                                  "q2 Q0 d5 1 3 a\nq2 Q0 d3 2 2 a\nq3 Q0 d8 1 1 a\n")
    names = [str(parse_measure(example_measure(name, 3 if TREC_MEASURES[name].cutoff != "none" else None)))
             for name in TREC_MEASURES if needs_subtopics(name)] + ["AP", "nDCG@3"]
    assert len(names) >= 7
    for component in (TrecSubQrels, lambda dlc, defs: TrecQrels(dlc, defs)):  # subtopic_id, and iteration
        dataset_id = register(component(LocalDownload(tmp_path / "qrels"), {}))
        from_irds = EvaluationResult.from_trec(tmp_path / "run", IRDS_PREFIX + dataset_id, subtopics=True, progress=False)
        from_file = EvaluationResult.from_trec(tmp_path / "run", tmp_path / "qrels", subtopics=True, progress=False)
        pd.testing.assert_frame_equal(from_irds.trec_query_metrics(names), from_file.trec_query_metrics(names),
                                      check_exact=True)
    # hand-worked: q1's subtopics 1, 2, 3 first covered at ranks 1, 1, 4: StRecall@3 = 2/3; q2's at 2, 1: 1
    assert from_irds.trec_query_metrics(["StRecall@3"])["StRecall@3"].round(12).to_dict() == {
        "q1": round(2 / 3, 12), "q2": 1.0, "q3": 0.0}


def test_queries_are_the_text_field_else_the_first_str_field(tmp_path, register):
    (tmp_path / "topics").write_text(
        "<top>\n<num> Number: 301\n<title> foreign minorities\n<desc> Description:\nminorities abroad\n"
        "<narr> Narrative:\nrelevant documents\n</top>\n\n"
        "<top>\n<num> Number: 302\n<title> polio\n<desc> Description:\npolio cases\n<narr> Narrative:\nany\n</top>\n")
    (tmp_path / "queries.tsv").write_text(HAND_QUERIES)
    topics = register(TrecQueries(LocalDownload(tmp_path / "topics")))
    tsv = register(TsvQueries(LocalDownload(tmp_path / "queries.tsv")))
    assert irds_queries(IRDS_PREFIX + topics) == {"301": "foreign minorities", "302": "polio"}  # TrecQuery: title
    assert read_queries(IRDS_PREFIX + tsv) == read_queries(tmp_path / "queries.tsv")  # GenericQuery: text


def test_compare_reads_the_dataset_once_and_equals_the_file(files, random_id):
    counted = Counted(ir_datasets.load(random_id))
    by_file = compare(files / "a.txt", files / "b.txt", files / "a.txt", qrels=files / "qrels.txt",
                      metrics=["AP", "nDCG@10"], rounds=200, seed=1)
    by_irds = compare(files / "a.txt", files / "b.txt", files / "a.txt", qrels=counted, metrics=["AP", "nDCG@10"],
                      rounds=200, seed=1)
    pd.testing.assert_frame_equal(by_irds, by_file)
    assert counted.calls == 1  # read once for the three runs
    by_id = compare(files / "a.txt", files / "b.txt", qrels=IRDS_PREFIX + random_id, metrics=["AP"], rounds=200, seed=1)
    pd.testing.assert_frame_equal(by_id, compare(files / "a.txt", files / "b.txt", qrels=files / "qrels.txt",
                                                 metrics=["AP"], rounds=200, seed=1))


def test_optimize_fusion_reads_the_dataset_once_and_equals_the_file(files, random_id):
    counted = Counted(ir_datasets.load(random_id))
    runs = [files / "a.txt", files / "b.txt"]
    by_irds = optimize_fusion(runs, counted, measure="AP", method="combsum", step=0.25)
    by_file = optimize_fusion(runs, files / "qrels.txt", measure="AP", method="combsum", step=0.25)
    pd.testing.assert_frame_equal(by_irds.trials, by_file.trials)
    assert (by_irds.weights, by_irds.score) == (by_file.weights, by_file.score)
    assert counted.calls == 1  # 5 trials, one read


class Counted:
    """A dataset object whose qrels_iter() calls are counted (anything with qrels_iter() is a dataset)."""

    def __init__(self, dataset: Any) -> None:
        self.dataset, self.calls = dataset, 0

    def qrels_iter(self):
        self.calls += 1
        return self.dataset.qrels_iter()


# ---------------------------------------------------------------------------------------------- the commands
def test_evalframe_trec_prints_the_same_bytes_as_with_the_file(files, random_id, capsys):
    outputs = []
    for qrels in (str(files / "qrels.txt"), IRDS_PREFIX + random_id):
        for extra in ([], ["--subtopics"], ["--format", "trec_eval", "-m", "official"]):
            assert main(["trec", str(files / "a.txt"), qrels, "-q", "-m", "AP", "-m", "nDCG@10", *extra]) == 0
            outputs.append(capsys.readouterr().out)
    assert outputs[:3] == outputs[3:] and "num_q  \tall\t28\n" in outputs[0]


def test_the_commands_take_qrels_and_queries_irds(hand, capsys):
    dataset_id, folder = hand
    irds = IRDS_PREFIX + dataset_id
    (folder / "run2").write_text("q1 Q0 d1 1 2.0 b\nq1 Q0 d2 2 1.0 b\nq2 Q0 d4 1 1.0 b\n")
    assert main(["trec", str(folder / "run"), irds, "-m", "AP", "-m", "RR"]) == 0
    assert capsys.readouterr().out == "num_q\tall\t2\nAP   \tall\t0.7500\nRR   \tall\t0.7500\n"
    assert main(["compare", str(folder / "run"), str(folder / "run2"), "--qrels", irds, "-m", "AP", "--format",
                 "json"]) == 0
    assert '"mean_a": 0.75,\n  "mean_b": 0.5,' in capsys.readouterr().out  # run2: q1 1.0 (d1 first), q2 0.0 (d3 not retrieved)
    assert main(["fuse", str(folder / "run"), str(folder / "run2"), "-o", str(folder / "fused"), "--optimize", "AP",
                 "--qrels", irds, "--method", "combsum", "--step", "0.5"]) == 0
    # weights (0, 1): run2's q1 (d1 first: AP 1), q2's d3 and d4 tie at 0 (a lone document's min-max), d4 first:
    # AP 1/2; (1/2, 1/2) and (1, 0): q1's d1 and d2 tie, d2 first, 1/2; q2 1/2
    assert f"best AP on {irds}: 0.7500 of 3 trials" in capsys.readouterr().out
    assert main(["convert", str(folder / "run"), str(folder / "out"), "--to", "csv", "--qrels", irds, "--queries",
                 irds]) == 0
    capsys.readouterr()
    loaded = EvaluationResult.load(folder / "out")
    assert loaded["Retriever"]["query"].tolist() == ["who wrote hamlet", "who wrote hamlet", "capital of peru"]
    assert loaded.trec_metrics(["AP"]) == {"AP": 0.75}
    assert main(["metrics", str(folder / "run"), "--from", "trec", "--qrels", irds, "--document-scope",
                 "document_id", "--format", "json"]) == 0
    assert '"precision": 0.75,\n  "map": 0.75,\n  "mrr": 0.75,' in capsys.readouterr().out  # q1: d1 at rank 2 of 2; q2: rank 1


def test_convert_refuses_to_write_qrels_to_a_dataset(hand, capsys):
    dataset_id, folder = hand
    EvaluationResult.from_trec(folder / "run", folder / "qrels", progress=False).save(folder / "result")
    assert main(["convert", str(folder / "result"), str(folder / "run.out"), "--to", "trec", "--qrels",
                 IRDS_PREFIX + dataset_id]) == 1
    assert capsys.readouterr().err == (f"error: --qrels irds:{dataset_id} names an ir_datasets dataset, which is read, "
                                       "not written: with --to trec, --qrels is the qrels file to write.\n")
    assert not (folder / "run.out").exists()


@pytest.mark.stress  # a fresh interpreter importing ir_datasets: seconds
def test_evalframe_trec_on_a_dataset_loads_no_pandas(hand):
    dataset_id, folder = hand
    code = ("import sys, ir_datasets\n"
            "from ir_datasets.formats import TrecQrels\n"
            "from ir_datasets.util import LocalDownload\n"
            "from ir_datasets.datasets.base import Dataset\n"
            f"ir_datasets.registry.register({dataset_id!r}, Dataset(TrecQrels(LocalDownload({str(folder / 'qrels')!r}), {{}})))\n"
            "from evalframe.present.cli import main\n"
            f"status = main(['trec', {str(folder / 'run')!r}, 'irds:{dataset_id}', '-m', 'AP'])\n"
            "print(status, [m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2],
                          timeout=120)
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr


def test_the_parsers_prefix_is_the_readers():
    from evalframe.present import parsers

    assert parsers.IRDS_PREFIX == IRDS_PREFIX


# ---------------------------------------------------------------------------------------------- refusals
def test_without_ir_datasets_the_install_line(hand, monkeypatch, capsys):
    dataset_id, folder = hand
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # `import ir_datasets` raises ImportError
    with pytest.raises(InvalidParameterError, match=r"^qrels 'irds:evalframe-tests/\w+' is read through ir_datasets, "
                                                    r"which is not installed: pip install ir_datasets\.$"):
        EvaluationResult.from_trec(folder / "run", IRDS_PREFIX + dataset_id, progress=False)
    with pytest.raises(InvalidParameterError, match=r"^queries 'irds:x' is read through ir_datasets.*pip install ir_datasets"):
        EvaluationResult.from_trec(folder / "run", folder / "qrels", queries="irds:x", progress=False)
    with pytest.raises(InvalidParameterError, match="pip install ir_datasets"):
        compare(folder / "run", folder / "run", qrels="irds:x")
    assert main(["trec", str(folder / "run"), "irds:x"]) == 1
    assert capsys.readouterr().err == ("error: qrels 'irds:x' is read through ir_datasets, which is not installed: pip "
                                       "install ir_datasets.\n")
    assert main(["compare", str(folder / "run"), str(folder / "run"), "--qrels", "irds:x"]) == 1
    assert "error: --qrels 'irds:x' is read through ir_datasets, which is not installed: pip install ir_datasets." in \
        capsys.readouterr().err


def test_an_unknown_id_is_named_with_the_close_ones(hand, capsys):
    dataset_id, folder = hand
    typo = dataset_id[:-1]
    with pytest.raises(InvalidParameterError, match=rf"^qrels 'irds:{typo}': ir_datasets has no dataset '{typo}' "
                                                    rf"\(.*\)\. Did you mean 'irds:{dataset_id}'\?$"):
        EvaluationResult.from_trec(folder / "run", IRDS_PREFIX + typo, progress=False)
    with pytest.raises(InvalidParameterError, match=r"Did you mean 'irds:msmarco-passage/dev/small'\?"):
        irds_qrels("irds:msmarco-passage/dev/smal")
    with pytest.raises(InvalidParameterError, match=r"^qrels 'irds:' names no dataset: write irds:<id>"):
        irds_qrels("irds:")
    assert main(["trec", str(folder / "run"), "irds:evalframe-tests/none"]) == 1
    assert capsys.readouterr().err.startswith("error: qrels 'irds:evalframe-tests/none': ir_datasets has no dataset")


def test_a_dataset_without_qrels_or_queries(tmp_path, register):
    (tmp_path / "queries.tsv").write_text(HAND_QUERIES)
    (tmp_path / "qrels").write_text(HAND_QRELS)
    (tmp_path / "run").write_text(HAND_RUN)
    only_queries = register(TsvQueries(LocalDownload(tmp_path / "queries.tsv")))
    with pytest.raises(InvalidParameterError, match=rf"^qrels irds:{only_queries}: the dataset has no qrels \(it gives "
                                                    r"queries\); name a dataset with judgments"):
        EvaluationResult.from_trec(tmp_path / "run", IRDS_PREFIX + only_queries, progress=False)
    with pytest.raises(InvalidParameterError, match=r"^qrels irds:msmarco-passage: the dataset has no qrels \(it gives "
                                                    r"docs\); its subsets with qrels: irds:msmarco-passage/dev, "):
        irds_qrels("irds:msmarco-passage")  # its subsets named (nothing is downloaded to say so)
    only_qrels = register(TrecQrels(LocalDownload(tmp_path / "qrels"), {}))
    with pytest.raises(InvalidParameterError, match=rf"^queries irds:{only_qrels}: the dataset has no queries \(it "
                                                    r"gives qrels\)\.$"):
        EvaluationResult.from_trec(tmp_path / "run", IRDS_PREFIX + only_qrels, queries=IRDS_PREFIX + only_qrels,
                                   progress=False)


class Qrel(NamedTuple):
    query_id: Any
    doc_id: Any
    relevance: Any
    iteration: str = "0"


class Judgments:
    """A dataset object of the given records (anything with qrels_iter() is read as one)."""

    def __init__(self, *records: Any) -> None:
        self.records = records

    def qrels_iter(self):
        return iter(self.records)


@pytest.mark.parametrize(("records", "message"), [
    ((Qrel("q1", "d1", 1), Qrel("q2", "d1", 0), Qrel("q1", "d1", 2)),
     r"record 3 judges document 'd1' again in query 'q1' \(first in record 1\); trec_eval refuses a document judged "
     r"twice\.$"),
    ((Qrel("q1", "d1", 1), Qrel("q1", "d2", 1.5)), r"record 2: the relevance grade must be an int; got float 1\.5\.$"),
    ((Qrel("q1", "d1", True),), r"record 1: the relevance grade must be an int; got bool True\.$"),
    ((Qrel("q1", "d1", "1"),), r"record 1: the relevance grade must be an int; got str '1'\.$"),
    ((Qrel("q1", "d1", 1), Qrel(7, "d1", 1)), r"record 2: the query id must be a str; got int 7\.$"),
    ((Qrel("q1", "d 1", 1),), r"record 1: the document id 'd 1' must be a non-empty string without spaces"),
    ((Qrel("q1", "d1", 1), Qrel("", "d1", 1)), r"record 2: the query id '' must be a non-empty string"),
    ((Qrel("q1", "d1", 1), ("q1", "d2", 1)), r"record 2 \(\('q1', 'd2', 1\)\) has no field 'query_id'\.$"),
    ((), r"ir_datasets gives no judgment \(qrels_iter\(\) is empty\)\.$"),
])
def test_bad_judgments_are_refused_naming_the_record(records, message):
    with pytest.raises(LoadError, match=r"^qrels the dataset .*: " + message):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, Judgments(*records), progress=False)


def test_a_judgment_repeated_in_a_subtopic(tmp_path):
    judgments = Judgments(Qrel("q1", "d1", 1, "1"), Qrel("q1", "d1", 1, "2"), Qrel("q1", "d1", 0, "2"))
    with pytest.raises(LoadError, match=r"record 3 judges document 'd1' again in subtopic '2' of query 'q1' \(first in "
                                        r"record 2\)"):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, judgments, subtopics=True, progress=False)
    # without subtopics the second column is not read, and d1 is judged three times in q1
    with pytest.raises(LoadError, match=r"record 2 judges document 'd1' again in query 'q1' \(first in record 1\)"):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, judgments, progress=False)


def test_what_ir_datasets_raises_while_reading_is_named(tmp_path, register):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 d2 1\n")  # ir_datasets' TrecQrels: a RuntimeError
    broken = register(TrecQrels(LocalDownload(tmp_path / "qrels"), {}))
    with pytest.raises(LoadError, match=rf"^qrels irds:{broken}: ir_datasets could not read them \(RuntimeError: "
                                        r"expected 4 columns, got 3\)\.$"):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, IRDS_PREFIX + broken, progress=False)
    missing = register(TrecQrels(LocalDownload(tmp_path / "absent" / "qrels"), {}))
    with pytest.raises(LoadError, match=rf"^qrels irds:{missing}: ir_datasets could not read them "
                                        r"\(FileNotFoundError: .*absent/qrels\)\.$"):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, IRDS_PREFIX + missing, progress=False)


def test_a_query_twice_or_without_text(tmp_path):
    class Query(NamedTuple):
        query_id: Any
        text: Any

    class Queries:
        def __init__(self, *records: Any) -> None:
            self.records = records

        def queries_iter(self):
            return iter(self.records)

    with pytest.raises(LoadError, match=r"query 'q1' appears twice \(records 1 and 3\)"):
        irds_queries(Queries(Query("q1", "a"), Query("q2", "b"), Query("q1", "c")))
    with pytest.raises(LoadError, match=r"record 2: the text \(text\) must be a str; got NoneType None\."):
        irds_queries(Queries(Query("q1", "a"), Query("q2", None)))

    class Numbered(NamedTuple):
        query_id: str
        number: int

    with pytest.raises(LoadError, match=r"Numbered records \(fields query_id, number\) hold no text besides query_id"):
        irds_queries(Queries(Numbered("q1", 1)))


def test_a_dataset_is_read_in_blocks(monkeypatch):
    """Many judgments, read in blocks of a few records: the same columns as one block."""
    import evalframe.sources.irds as irds

    rng = np.random.default_rng(3)
    pairs = {(f"q{q}", f"d{d}") for q, d in zip(rng.integers(0, 50, 3000), rng.integers(0, 400, 3000))}
    records = [Qrel(q, d, int(g)) for (q, d), g in zip(sorted(pairs), rng.integers(-1, 4, len(pairs)))]
    whole = irds_qrels(Judgments(*records))
    monkeypatch.setattr(irds, "_BLOCK", 7)
    blocked = irds_qrels(Judgments(*records))
    assert blocked.qid_codes.tolist() == whole.qid_codes.tolist() and blocked.qids.equals(whole.qids)
    assert blocked.docid_codes.tolist() == whole.docid_codes.tolist() and blocked.docids.equals(whole.docids)
    assert blocked.values.tolist() == whole.values.tolist() == [record.relevance for record in records]
    assert [whole.qids[c].as_py() for c in whole.qid_codes[:3]] == [record.query_id for record in records[:3]]


def test_the_columns_are_the_file_readers_in_blocks_and_beyond_ascii(tmp_path, register, monkeypatch):
    """Ids with non-ASCII characters (their bytes are not their characters), read a few records at a time: the file
    reader's columns exactly. (A no-break space, part of an id in a file, is a separator to ir_datasets' TrecQrels,
    which splits lines with str.split().)"""
    import evalframe.sources.irds as irds
    from evalframe.sources.trec_arrow import QRELS_FORMAT, read_arrow

    rng = np.random.default_rng(5)
    names = ["d1", "dé2", "d·3", "文書4", "d5", "Ω6"]
    lines = sorted({f"q{q}{'ü' * int(q % 3 == 0)} 0 {names[d % 6]}{d} {g}"
                    for q, d, g in zip(rng.integers(0, 30, 400), rng.integers(0, 60, 400), rng.integers(-1, 4, 400))})
    lines = list({line.rsplit(" ", 1)[0]: line for line in lines}.values())  # one grade per (query, document)
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n", encoding="utf-8")
    dataset_id = register(TrecQrels(LocalDownload(tmp_path / "qrels"), {}))
    monkeypatch.setattr(irds, "_BLOCK", 7)
    got, expected = irds_qrels(IRDS_PREFIX + dataset_id), read_arrow(tmp_path / "qrels", QRELS_FORMAT)
    assert got.qids.equals(expected.qids) and got.docids.equals(expected.docids)
    assert got.qid_codes.tolist() == expected.qid_codes.tolist()
    assert got.docid_codes.tolist() == expected.docid_codes.tolist()
    assert got.values.tolist() == expected.values.tolist()
    assert "d·3" in "".join(got.docids.to_pylist()) and "文書4" in "".join(got.docids.to_pylist())
