"""from_trec's node held as codes (TrecNodeSource in a PendingFrame): the trec measures from the codes, no column
made; the frame built on access equal to trec_frame's; edits of the built frame followed.

Expected measure values are worked out by hand on RUN / QRELS below; the pending node is also compared with the same
frame put in a result without any coding (the judged rows then come from hashing the frame's columns).
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, SaveError
from evalframe.sources.trec import TrecNodeSource, coded_tables, read_coded_tables, trec_frame
from evalframe.sources.trec_files import read_qrels, read_run

# q1 ranks d1, d2, d3 (relevant: d2, and d9, not retrieved); q2 ranks d4 (relevant, grade 2), d5 (unjudged); d6 is
# judged non-relevant. q3 is only in the qrels: not evaluated (complete=False).
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}}
QRELS = {"q1": {"d2": 1, "d9": 1}, "q2": {"d4": 2, "d6": 0}, "q3": {"d7": 1}}
MEASURES = ["RR", "P@2", "AP"]
# q1: RR 1/2, P@2 1/2, AP (1/2)/2; q2: RR 1, P@2 1/2, AP 1
EXPECTED = {"RR": 0.75, "P@2": 0.5, "AP": 0.625}


def pending() -> EvaluationResult:
    return EvaluationResult.from_trec(RUN, QRELS, progress=False)


def test_the_trec_measures_read_the_codes_and_make_no_column() -> None:
    result = pending()
    assert result.trec_metrics(MEASURES) == EXPECTED
    assert not result.node_results.is_built("Retriever")
    assert result._store.view("Retriever").made == {}  # not even the type column
    assert result.trec_query_metrics(MEASURES).to_dict("index") == {
        "q1": {"RR": 0.5, "P@2": 0.5, "AP": 0.25}, "q2": {"RR": 1.0, "P@2": 0.5, "AP": 1.0}}


def random_tables(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    run: dict = {}
    qrels: dict = {}
    for q in range(int(rng.integers(1, 25))):
        if rng.random() < 0.85:
            run[f"q{q}"] = {f"d{d}": float(rng.integers(0, 4)) / 2
                            for d in rng.choice(40, size=int(rng.integers(1, 15)), replace=False)}
        if rng.random() < 0.8:
            qrels[f"q{q}"] = {f"d{d}": int(rng.integers(-1, 4))
                              for d in rng.choice(45, size=int(rng.integers(0, 10)), replace=False)}
    if rng.random() < 0.3:
        qrels.setdefault("q0", {})["00"] = 1  # Haystack's no-answer id: in the cells, not counted
    return run or {"qx": {"d1": 1.0}}, qrels


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.filterwarnings("ignore:the qrels judge a document with id '00'")
def test_the_built_frame_is_trec_frames_and_the_measures_those_of_its_hashed_columns(seed: int) -> None:
    run, qrels = random_tables(seed)
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    measures = ["RR", "AP", "nDCG", "nDCG@5", "P@5", "R@10", "Success@3", "Rprec", "Bpref"]
    for complete in (False, True):
        codes = result.trec_query_metrics(measures, complete=complete)
        reference = EvaluationResult({"Retriever": trec_frame(read_run(run), read_qrels(qrels))})  # no coding: hashed
        pd.testing.assert_frame_equal(codes, reference.trec_query_metrics(measures, complete=complete), check_exact=True)
    assert not result.node_results.is_built("Retriever")
    built = result["Retriever"]
    pd.testing.assert_frame_equal(built, trec_frame(read_run(run), read_qrels(qrels)), check_exact=True)
    assert isinstance(built.index, pd.RangeIndex)
    assert result._store.trec_layout("Retriever") is not None  # the layout of the columns made, handed over on build


def test_a_column_read_before_the_build_is_the_built_frames() -> None:
    result = pending()
    assert result.calculate_metrics()["Retriever"]["mrr"] == pytest.approx((1 / 2 + 1) / 3)  # q3: no document found
    view = result._store.view("Retriever")
    made = dict(view.made)
    assert "document_id" in made and "query" not in made
    frame = result["Retriever"]
    assert all(frame[name] is series or frame[name].to_numpy() is series.to_numpy() or
               np.shares_memory(frame[name].to_numpy(), series.to_numpy()) for name, series in made.items())


def test_the_source_answers_each_column_alone() -> None:
    source = TrecNodeSource(*coded_tables(read_run(RUN), read_qrels(QRELS)))
    frame = trec_frame(read_run(RUN), read_qrels(QRELS))
    assert list(source.names) == list(frame.columns)
    for name in reversed(source.names):
        pd.testing.assert_series_equal(source.column(name), frame[name], check_exact=True)
    with pytest.raises(KeyError):
        source.column("answer")


def by_query(frame: pd.DataFrame, column: str, values: dict[str, object]) -> list[object]:
    return [values.get(q, cell) for q, cell in zip(frame["multilabel_id"], frame[column])]


def test_an_edit_of_document_id_after_the_build_is_followed() -> None:
    result = pending()
    assert result.trec_metrics(MEASURES) == EXPECTED
    frame = result["Retriever"]
    frame.loc[(frame["multilabel_id"] == "q1") & (frame["document_id"] == "d1"), "document_id"] = "d9"
    # q1 now ranks d9, d2, d3: both relevant documents first, RR 1, P@2 1, AP 1
    assert result.trec_metrics(MEASURES) == {"RR": 1.0, "P@2": 0.75, "AP": 1.0}


def test_an_edit_of_rank_after_the_build_is_followed() -> None:
    result = pending()
    assert result.trec_metrics(MEASURES) == EXPECTED
    frame = result["Retriever"]
    q1 = frame["multilabel_id"] == "q1"
    frame.loc[q1 & (frame["document_id"] == "d1"), "rank"] = 2
    frame.loc[q1 & (frame["document_id"] == "d2"), "rank"] = 1
    # q1 now ranks d2, d1, d3: RR 1, P@2 1/2, AP (1/1)/2
    assert result.trec_metrics(MEASURES) == {"RR": 1.0, "P@2": 0.5, "AP": 0.75}


def test_an_edit_of_a_gold_list_after_the_build_is_followed() -> None:
    result = pending()
    assert result.trec_metrics(MEASURES) == EXPECTED
    frame = result["Retriever"]
    frame["gold_document_ids"] = by_query(frame, "gold_document_ids", {"q2": ["d5"]})
    frame["gold_document_relevance"] = by_query(frame, "gold_document_relevance", {"q2": [1]})
    # q2 now has d5 relevant (rank 2), d4 unjudged: RR 1/2, P@2 1/2, AP 1/2
    assert result.trec_metrics(MEASURES) == {"RR": 0.5, "P@2": 0.5, "AP": 0.375}


def test_trec_files_copies_and_pickles_of_a_pending_node(tmp_path) -> None:
    eager = EvaluationResult({"Retriever": trec_frame(read_run(RUN), read_qrels(QRELS))})
    for make in (lambda: copy.deepcopy(pending()), lambda: pickle.loads(pickle.dumps(pending()))):
        pd.testing.assert_frame_equal(make()["Retriever"], eager["Retriever"], check_exact=True)
    for name, write in (("run.txt", lambda r, p: r.to_trec_run(p)), ("qrels.txt", lambda r, p: r.to_qrels(p))):
        assert write(pending(), tmp_path / f"pending-{name}").read_text() == write(eager, tmp_path / name).read_text()
    result = pending()
    for scores in ("score", "rank"):
        result.to_trec_run(tmp_path / "again.txt", scores=scores)
        assert (tmp_path / "again.txt").read_text() == eager.to_trec_run(tmp_path / "eager.txt", scores=scores).read_text()
    for holder in (result, eager):
        with pytest.raises(SaveError, match="the run holds no retrieved document"):  # no row of eval_mode isolated
            holder.to_trec_run(tmp_path / "isolated.txt", eval_mode="isolated")
    assert not result.node_results.is_built("Retriever")  # the run is written from the key columns, rank and score
    assert "gold_document_ids" not in result._store.view("Retriever").made
    assert pending().query_metrics("Retriever").equals(eager.query_metrics("Retriever"))


@pytest.mark.parametrize("sorted_scores", [True, False])
def test_files_read_as_arrow_columns_give_the_readers_ranking(tmp_path, sorted_scores: bool) -> None:
    """The files pyarrow reads stay Arrow columns (no docid made a str); their trec_eval order (ties: docid
    descending, in code point order) is read_run's, which ranks the pandas frame's docids."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        lines = []
        for q in range(int(rng.integers(1, 6))):
            n = int(rng.integers(1, 25))
            scores = rng.integers(0, 4, size=n) / 4
            scores = np.sort(scores)[::-1] if sorted_scores else scores  # a tool's ties broken otherwise, or no order
            lines += [f"q{q} Q0 {'é' if d % 5 == 0 else ''}d{d} 1 {s} tag\n"
                      for d, s in zip(rng.choice(50, size=n, replace=False), scores)]
        (tmp_path / "run").write_text("".join(lines), encoding="utf-8")
        (tmp_path / "qrels").write_text("q0 0 d1 1\n")
        run, _ = read_coded_tables(tmp_path / "run", tmp_path / "qrels")
        assert run.docids is None and run.docids_arrow is not None
        expected = read_run(tmp_path / "run")
        assert run.docid_objects()[run.docid_codes].tolist() == expected["docid"].tolist()
        assert run.qids[run.qid_codes].tolist() == expected["qid"].tolist()
        assert run.values.tolist() == expected["score"].tolist() and run.ranks.tolist() == expected["rank"].tolist()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_analysis_of_a_pending_node_equals_the_built_frames(tmp_path) -> None:
    """The same numbers read through the pending node's columns as from the frame trec_frame builds (no coding)."""
    from evalframe import compare

    run, qrels = random_tables(11)
    eager = EvaluationResult({"Retriever": trec_frame(read_run(run), read_qrels(qrels))})

    def both(ask, stays_pending=True):
        result = EvaluationResult.from_trec(run, qrels, progress=False)
        got = ask(result)
        assert result.node_results.is_built("Retriever") is not stays_pending
        return got, ask(eager)

    for ask in (lambda r: r.calculate_metrics(), lambda r: r.calculate_metrics(simulated_top_k_retriever=3),
                lambda r: r.trec_metrics(["AP", "nDCG@5"], complete=True)):
        got, expected = both(ask)
        assert got == expected
    for ask in (lambda r: r.query_metrics("Retriever"), lambda r: r.metrics_at_k((1, 5)),
                lambda r: compare(r, eager, metrics=["mrr", "recall_single_hit"], rounds=50)):
        got, expected = both(ask)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    got, expected = both(lambda r: r.wrong_examples("Retriever", n=2), False)  # the rows shown
    assert [str(example) for example in got] == [str(example) for example in expected]
    got, expected = both(lambda r: r.report(n=2).render("markdown"), False)
    assert got == expected
    saved = EvaluationResult.from_trec(run, qrels, progress=False).save(tmp_path / "pending")
    loaded = EvaluationResult.load(saved)
    pd.testing.assert_frame_equal(loaded["Retriever"], EvaluationResult.load(eager.save(tmp_path / "eager"))["Retriever"])


def test_the_trec_measures_of_files_make_no_python_str_per_docid(tmp_path) -> None:
    (tmp_path / "run").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\nq2 Q0 d4 1 2 t\nq2 Q0 d5 2 1 t\n")
    (tmp_path / "qrels").write_text("q1 0 d2 1\nq1 0 d9 1\nq2 0 d4 2\nq2 0 d6 0\nq3 0 d7 1\n")  # RUN and QRELS above
    result = EvaluationResult.from_trec(tmp_path / "run", tmp_path / "qrels", progress=False)
    assert result.trec_metrics(MEASURES) == EXPECTED
    pending_frame = result.node_results.pending("Retriever")
    assert pending_frame is not None
    source = pending_frame.source
    assert isinstance(source, TrecNodeSource) and source.ids._values is None  # the docids are still Arrow's
    pd.testing.assert_frame_equal(result["Retriever"], pending()["Retriever"], check_exact=True)


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_repeated_pair_is_parsed_by_arrow_once_and_named_by_its_line(tmp_path, monkeypatch, kind):
    """read_coded_tables (from_trec) reports a docid twice in a query with the message of the pandas readers (file,
    line, first line), without a second Arrow parse of the file."""
    from evalframe.sources import trec, trec_files
    from evalframe.sources.trec_arrow import read_arrow
    from evalframe.errors import LoadError

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\n" + ("q1 Q0 d1 3 1 t\n" if kind == "run" else ""))
    qrels.write_text("q1 0 d1 1\nq2 0 d2 0\n" + ("q1 1 d1 2\n" if kind == "qrels" else ""))
    parsed = []

    def counted(path, fmt, **options):
        parsed.append(Path(str(path)).name)  # a path, or the source read
        return read_arrow(path, fmt, **options)

    monkeypatch.setattr(trec, "read_arrow", counted)
    monkeypatch.setattr(trec_files, "read_arrow", counted)
    bad = run if kind == "run" else qrels
    refused = "a run" if kind == "run" else "qrels"
    with pytest.raises(LoadError) as caught:
        read_coded_tables(run, qrels)
    assert str(caught.value) == (f"{bad}:3: document 'd1' appears twice in query 'q1' (first on line 1); trec_eval "
                                 f"refuses {refused} with duplicate documents (\"duplicate docs\"). Keep one of the "
                                 "lines." + ("" if kind == "run" else  # a second column that differs: qrels_jg?
                                             " The second column differs ('0' on line 1, '1' here): if it names judgment "
                                             "groups, this is trec_eval's qrels_jg format (trec_eval -R qrels_jg, a "
                                             "judgment per judge), which evalframe does not evaluate."))
    assert parsed.count(bad.name) == 1
