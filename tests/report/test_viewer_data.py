"""The comparison's columnar data (evalframe.report.drill / viewer_data): each node's Grid and the model's Detail, and
the viewers' payloads, against hand-worked values on two small runs.

Four queries, gold document g<i> (text "passage g<i> holds <answer>") and gold answer alpha / gamma / delta / zeta;
x<i> are unrelated passages, x2's text is hostile. Run B lacks q4.

=====  ==========================  ===========================  =====  =====
query  run A: documents, answer     run B: documents, answer     mrr A  mrr B
=====  ==========================  ===========================  =====  =====
q1     [g1, x1], "alpha" ([g1])     [x1, g1], "alpha" ([x1, g1])  1      1/2
q2     [x2], "beta" ([x2])          [g2], "gamma" ([g2])          0      1
q3     [g3], "delta" ([g3])         [x3], "epsilon" ([x3])        1      0
q4     [g4], "zeta" ([])            (not run)                     1      NaN
=====  ==========================  ===========================  =====  =====

q4 has two gold labels, g4 and g5, of one answer (the drill-down lists it once).

recall_single_hit B - A: q1 0, q2 +1, q3 -1, q4 NaN, so the default order (worst change first, stable) is q3, q1, q2,
q4; the Reader's f1 (its order metric) moves the same way. Over the three paired queries mrr is A (1 + 0 + 1) / 3 =
2/3, B (1/2 + 1 + 0) / 3 = 1/2, delta -1/6.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import evalframe
from evalframe import EvaluationResult
from evalframe.analysis.compare import TESTS
from evalframe.errors import InvalidParameterError
from evalframe.report import json as json_report
from evalframe.report import markdown, text
from evalframe.report.model import build_comparison_model
from evalframe.report.drill import Detail, Grid
from evalframe.report.viewer_data import viewer_payload
from evalframe.sources.runs import read_runs

HOSTILE = "</script><img src=x onerror=alert(1)> \u202eevil\u202c \x00nul & <b>"
QUERIES = ["where is g1?", "what is " + HOSTILE, "where is g3?", "where is g4?"]
GOLD = [("g1", "passage g1 holds alpha", "alpha"), ("g2", "passage g2 holds gamma", "gamma"),
        ("g3", "passage g3 holds delta", "delta"), ("g4", "passage g4 holds zeta", "zeta")]
TEXTS = {"g1": "passage g1 holds alpha", "g2": "passage g2 holds gamma", "g3": "passage g3 holds delta",
         "g4": "passage g4 holds zeta", "x1": "noise one", "x2": HOSTILE, "x3": "noise three"}
RUNS = {"A": [(["g1", "x1"], "alpha", ["g1"]), (["x2"], "beta", ["x2"]), (["g3"], "delta", ["g3"]),
              (["g4"], "zeta", [])],
        "B": [(["x1", "g1"], "alpha", ["x1", "g1"]), (["g2"], "gamma", ["g2"]), (["x3"], "epsilon", ["x3"])]}
META = [{"topic": "x", "source": "<i>web</i>"}, {"topic": "x", "source": HOSTILE}, {"topic": "y"}, {"topic": "y"}]
NAN = float("nan")


def _lines(run: str) -> list[dict]:
    lines = []
    for i, (documents, answer, ids) in enumerate(RUNS[run]):
        gold_id, context, gold_answer = GOLD[i]
        golds, contexts = ([gold_id, "g5"], [context, "passage g5 holds zeta"]) if i == 3 else ([gold_id], [context])
        lines.append({"query": QUERIES[i], "gold": {"document_ids": golds, "contexts": contexts,
                                                    "answers": [gold_answer] * len(golds)},
                      "nodes": {"Retriever": {"documents": [{"id": d, "content": TEXTS[d]} for d in documents]},
                                "Reader": {"answers": [{"answer": answer, "document_ids": ids}]}}})
    return lines


def _result(run: str, folder) -> EvaluationResult:
    path = folder / f"{run}.jsonl"
    lines = _lines(run)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    labels, outputs = read_runs(path, progress=False)
    return EvaluationResult.from_runs(labels, outputs, meta=META[:len(lines)], progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer")
    return {"A": _result("A", folder), "B": _result("B", folder)}


@pytest.fixture(scope="module")
def model(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # q4 is scored in A only: compare says so
        return build_comparison_model(runs, rounds=200)


def _node(model, name):
    return next(node for node in model.nodes if node.node == name)


def _row_of(model, query):
    """The Detail row of the query with this text (by hand: q3, q1, q2, q4 is the first node's grid order)."""
    return [1, 2, 0, 3][QUERIES.index(query)]


def test_the_grid_holds_each_query_in_the_default_order_with_every_runs_values(model):
    grid = _node(model, "Retriever").grid
    assert isinstance(grid, Grid) and grid.node == "Retriever" and len(grid) == 4
    assert grid.query.tolist() == [QUERIES[2], QUERIES[0], QUERIES[1], QUERIES[3]]  # q3 fell; q4 is not in B
    assert list(grid.values) == [m.metric for m in _node(model, "Retriever").measures]
    np.testing.assert_array_equal(grid.values["mrr"], [[1, 0], [1, 0.5], [0, 1], [1, NAN]])
    np.testing.assert_array_equal(grid.values["recall_single_hit"], [[1, 0], [1, 1], [0, 1], [1, NAN]])
    np.testing.assert_array_equal(grid.values["precision"], [[1, 0], [0.5, 0.5], [0, 1], [1, NAN]])
    np.testing.assert_allclose(grid.values["ndcg"][1], [1, 1 / np.log2(3)])  # g1 at rank 2 in B
    assert grid.values["mrr"].dtype == np.float64
    assert grid.signs == {m: 1.0 for m in grid.values}
    assert grid.slices == {}
    reader = _node(model, "Reader").grid
    assert reader.query.tolist() == grid.query.tolist()
    np.testing.assert_array_equal(reader.values["f1"], [[1, 0], [1, 1], [0, 1], [1, NAN]])


def test_the_grid_ids_are_the_multilabel_ids_and_point_at_their_detail_rows(model, runs):
    grid = _node(model, "Retriever").grid
    by_text = dict(zip(runs["A"].query_metrics("Retriever", with_query=True)["query"],
                       runs["A"].query_metrics("Retriever").index))
    assert grid.ids.tolist() == [by_text[q] for q in grid.query]
    assert grid.detail.dtype == np.int64 and grid.detail.tolist() == [0, 1, 2, 3]
    assert model.detail.ids[grid.detail].tolist() == grid.ids.tolist()
    assert _node(model, "Reader").grid.detail.tolist() == [0, 1, 2, 3]


def test_the_grid_holds_each_querys_slice_labels(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build_comparison_model(runs, by="meta.topic", metrics=["mrr"], rounds=50)
    grid = model.nodes[0].grid
    assert list(grid.slices) == ["meta.topic"] and grid.slices["meta.topic"].tolist() == ["y", "x", "x", "y"]
    assert set(grid.values) == {"mrr"}


def test_a_measure_where_lower_is_better_has_sign_minus_one_and_a_count_zero(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build_comparison_model(runs, nodes=["Retriever"], metrics=["unj@10", "NumRet", "mrr"], rounds=50)
    signs = model.nodes[0].grid.signs
    assert signs["unj@10"] == -1.0 and signs["NumRet"] == 0.0 and signs["mrr"] == 1.0


def test_detail_query_gives_the_gold_and_every_runs_answers_and_documents(model):
    detail = model.detail
    assert isinstance(detail, Detail) and len(detail) == 4 and detail.names == ("A", "B")
    q1 = detail.query(_row_of(model, QUERIES[0]))
    assert q1["row"] == 1 and q1["query"] == "where is g1?"
    assert q1["gold_answers"] == ["alpha"]
    assert q1["gold_documents"] == [{"id": "g1", "text": "passage g1 holds alpha", "length": 22}]
    assert q1["meta"] == {"topic": "x", "source": "<i>web</i>"}
    a, b = q1["runs"]
    assert a["name"] == "A" and b["name"] == "B"
    assert [{k: v for k, v in answer.items() if k != "marks"} for answer in b["answers"]] == [
        {"rank": 1, "text": "alpha", "length": 5, "correct": True, "document_ids": ["x1", "g1"]}]
    assert b["answers"][0]["marks"] == {"exact_match": 1.0, "f1": 1.0}
    documents = [(d["rank"], d["id"], d["text"], d["length"], d["correct"]) for d in b["documents"]]
    assert documents == [(1, "x1", "noise one", 9, False), (2, "g1", "passage g1 holds alpha", 22, True)]
    marks = [d["marks"] for d in b["documents"]]
    assert sorted(marks[0]) == ["answer_match", "context_match", "gold_id_match"]
    assert (marks[0]["gold_id_match"], marks[0]["answer_match"]) == (0.0, 0.0)  # x1: another id, no "alpha"
    assert (marks[1]["gold_id_match"], marks[1]["answer_match"]) == (1.0, 1.0)  # g1: the gold id, holds "alpha"
    q3 = detail.query(_row_of(model, QUERIES[2]))
    (wrong,) = q3["runs"][1]["answers"]
    assert (wrong["text"], wrong["correct"], wrong["document_ids"], wrong["marks"]) == \
        ("epsilon", False, ["x3"], {"exact_match": 0.0, "f1": 0.0})
    q4 = detail.query(_row_of(model, QUERIES[3]))
    assert q4["gold_answers"] == ["zeta"]  # two gold labels of one answer: listed once
    assert q4["gold_documents"] == [{"id": "g4", "text": "passage g4 holds zeta", "length": 21},
                                    {"id": "g5", "text": "passage g5 holds zeta", "length": 21}]
    assert q4["runs"][0]["answers"][0]["document_ids"] == []  # an answer citing no document
    assert q4["runs"][1] == {"name": "B", "answers": [], "documents": []}  # B did not run q4


def test_texts_are_cut_to_characters_with_their_whole_length_kept(model):
    q1 = model.detail.query(1, characters=5)
    assert q1["gold_documents"] == [{"id": "g1", "text": "passa", "length": 22}]
    assert [(d["text"], d["length"]) for d in q1["runs"][1]["documents"]] == [("noise", 9), ("passa", 22)]
    q3 = model.detail.query(0, characters=5)
    assert (q3["runs"][1]["answers"][0]["text"], q3["runs"][1]["answers"][0]["length"]) == ("epsil", 7)
    assert q3["query"] == QUERIES[2] and model.detail.query(1, characters=0)["runs"][0]["documents"][0]["text"] == ""


def test_a_hostile_text_is_kept_as_data(model):
    row = _row_of(model, QUERIES[1])
    q2 = model.detail.query(row)
    assert q2["query"] == "what is " + HOSTILE and q2["meta"]["source"] == HOSTILE
    assert q2["runs"][0]["documents"][0]["text"] == HOSTILE
    assert q2["runs"][0]["documents"][0]["length"] == len(HOSTILE) == 55
    assert _node(model, "Retriever").grid.query[2] == "what is " + HOSTILE
    grid_payload, detail_payload = viewer_payload(model, characters=None)
    strings = detail_payload["strings"]
    assert HOSTILE in strings and "what is " + HOSTILE in strings
    assert grid_payload["grids"][0]["query"][2] == "what is " + HOSTILE
    back = json.loads(json.dumps(detail_payload, allow_nan=False))
    assert back["strings"] == strings  # NUL, RTL marks and markup survive JSON as they are


def test_the_detail_payload_interns_every_string_once_and_marks_missing_with_minus_one(model):
    _, payload = viewer_payload(model, characters=5)
    strings = payload["strings"]
    assert len(strings) == len(set(strings))
    assert payload["n"] == 4 and payload["names"] == ["A", "B"] and payload["characters"] == 5
    g1 = strings.index("g1")
    a, b = payload["runs"]
    # "g1" is a gold document id, a document id of both runs and an answer's document id: one string
    assert payload["gold_documents"]["id"][1] == g1
    assert a["documents"]["id"][a["documents"]["offsets"][1]] == g1
    assert b["documents"]["id"][b["documents"]["offsets"][1] + 1] == g1
    assert b["answers"]["document_ids"]["id"] .count(g1) == 1
    assert [strings[i] for i in payload["query"]] == [QUERIES[2], QUERIES[0], QUERIES[1], QUERIES[3]]
    assert payload["gold_answers"] == {"offsets": [0, 1, 2, 3, 4],
                                       "text": [strings.index(t) for t in ("delta", "alpha", "gamma", "zeta")]}
    assert payload["gold_documents"]["offsets"] == [0, 1, 2, 3, 5] and payload["gold_documents"]["length"] == [22, 22, 22, 21, 21]
    assert [strings[i] for i in payload["gold_documents"]["text"]] == ["passa"] * 5
    meta = payload["meta"]
    assert meta["keys"] == ["topic", "source"]
    topic, source = meta["values"]
    assert [strings[i] for i in topic] == ["y", "x", "x", "y"]
    assert source[0] == -1 and source[3] == -1 and strings[source[1]] == "<i>web</i>" and strings[source[2]] == HOSTILE
    assert b["documents"]["offsets"] == [0, 1, 3, 4, 4] and a["documents"]["offsets"] == [0, 1, 3, 4, 5]
    assert b["documents"]["rank"] == [1, 1, 2, 1] and b["documents"]["correct"] == [0, 0, 1, 1]
    assert b["documents"]["length"] == [11, 9, 22, 22]
    assert b["answers"]["node"] == "Reader" and b["documents"]["node"] == "Retriever"
    assert b["answers"]["correct"] == [0, 1, 1] and b["answers"]["marks"]["f1"] == [0.0, 1.0, 1.0]
    assert [strings[i] for i in b["answers"]["text"]] == ["epsil", "alpha", "gamma"]
    assert b["answers"]["length"] == [7, 5, 5]
    assert a["answers"]["document_ids"]["offsets"] == [0, 1, 2, 3, 3]  # q4's answer cites nothing


def _decoded(payload, row):
    """The DETAIL shape of one row, read from the DETAIL PAYLOAD as a viewer's script reads it."""
    strings = payload["strings"]

    def s(i):
        return None if i == -1 else strings[i]

    def span(offsets):
        return range(offsets[row], offsets[row + 1])

    runs = []
    for name, run in zip(payload["names"], payload["runs"]):
        answers, documents = run["answers"], run["documents"]
        runs.append({"name": name, "answers": [
            {"rank": answers["rank"][i], "text": s(answers["text"][i]), "length": answers["length"][i],
             "correct": None if answers["correct"][i] is None else bool(answers["correct"][i]),
             "document_ids": [s(answers["document_ids"]["id"][j]) for j in
                              range(answers["document_ids"]["offsets"][i], answers["document_ids"]["offsets"][i + 1])],
             "marks": {k: v[i] for k, v in answers["marks"].items() if v[i] is not None}}
            for i in span(answers["offsets"])], "documents": [
            {"rank": documents["rank"][i], "id": s(documents["id"][i]), "text": s(documents["text"][i]),
             "length": documents["length"][i],
             "correct": None if documents["correct"][i] is None else bool(documents["correct"][i]),
             "marks": {k: v[i] for k, v in documents["marks"].items() if v[i] is not None}}
            for i in span(documents["offsets"])]})
    gold = payload["gold_documents"]
    return {"row": row, "id": s(payload["id"][row]), "query": s(payload["query"][row]),
            "gold_answers": [s(payload["gold_answers"]["text"][i]) for i in span(payload["gold_answers"]["offsets"])],
            "gold_documents": [{"id": s(gold["id"][i]), "text": s(gold["text"][i]), "length": gold["length"][i]}
                               for i in span(gold["offsets"])],
            "meta": {key: s(values[row]) for key, values in zip(payload["meta"]["keys"], payload["meta"]["values"])
                     if values[row] != -1},
            "runs": runs}


@pytest.mark.parametrize("characters", [None, 5])
def test_the_detail_payload_decodes_to_detail_query_for_every_row(model, characters):
    payload = model.detail.columns(characters=characters)
    for row in range(len(model.detail)):
        assert _decoded(payload, row) == model.detail.query(row, characters=characters)


def test_the_payloads_are_json_with_none_for_nan(model):
    grid_payload, detail_payload = viewer_payload(model)
    text_form = json.dumps([grid_payload, detail_payload], allow_nan=False)
    assert "NaN" not in text_form
    retriever = grid_payload["grids"][0]
    assert retriever["values"]["mrr"] == [[1.0, 1.0, 0.0, 1.0], [0.0, 0.5, 1.0, None]]
    assert retriever["signs"]["mrr"] == 1 and retriever["n"] == 4 and retriever["detail"] == [0, 1, 2, 3]
    assert retriever["id"] == _node(model, "Retriever").grid.ids.tolist() and retriever["slices"] == []
    assert grid_payload["format"] == "evalframe-comparison" and grid_payload["version"] == 1
    assert grid_payload["evalframe"] == evalframe.__version__
    summary = grid_payload["summary"]
    assert summary["names"] == ["A", "B"] and [n["node"] for n in summary["nodes"]] == ["Retriever", "Reader"]
    assert summary["nodes"][0]["order_metric"] == "recall_single_hit" and summary["nodes"][0]["slice_note"] == ""
    mrr = next(m for m in summary["nodes"][0]["measures"] if m["metric"] == "mrr")
    assert mrr["values"] == pytest.approx([2 / 3, 0.5]) and mrr["queries"] == 3
    assert mrr["deltas"][0]["delta"] == pytest.approx(-1 / 6) and mrr["direction"] == "higher"


def test_the_payload_numbers_are_those_of_compare(model, runs):
    grid_payload, _ = viewer_payload(model)
    for node, grid in zip(grid_payload["summary"]["nodes"], grid_payload["grids"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = evalframe.compare(runs["A"], runs["B"], node=node["node"], rounds=200)
        for measure in node["measures"]:
            row = table.loc[measure["metric"]]
            assert measure["values"] == [row["mean_a"], row["mean_b"]]  # the very float64 values
            assert measure["deltas"][0]["delta"] == row["delta"]
            assert measure["deltas"][0]["ci_low"] == row["ci_low"] and measure["deltas"][0]["ci_high"] == row["ci_high"]
            assert measure["deltas"][0]["p_value"] == row[TESTS["t-test"]]  # the report's test
            values = np.array([[np.nan if v is None else v for v in run] for run in grid["values"][measure["metric"]]])
            paired = ~np.isnan(values).any(axis=0)
            assert values[:, paired].mean(axis=1) == pytest.approx([row["mean_a"], row["mean_b"]], abs=1e-15)
    mrr = next(m for m in grid_payload["summary"]["nodes"][0]["measures"] if m["metric"] == "mrr")
    assert mrr["values"] == pytest.approx([2 / 3, 1 / 2]) and mrr["deltas"][0]["delta"] == pytest.approx(-1 / 6)


def test_the_json_reports_rows_come_from_the_columns(model):
    report = json_report.comparison_to_dict(model)
    retriever = report["nodes"][0]["queries"]
    q1 = retriever[1]
    assert q1["query"] == QUERIES[0] and q1["worst"] == 0.0
    assert [(r["kind"], r["rank"], r["correct"], r["fields"]) for r in q1["rows"]["B"]] == [
        ("document", 1, False, {"document_id": "x1", "context": "noise one"}),
        ("document", 2, True, {"document_id": "g1", "context": "passage g1 holds alpha"})]
    assert retriever[3]["rows"]["B"] == [] and retriever[0]["worst"] == -1.0
    reader = report["nodes"][1]["queries"]
    assert [(r["kind"], r["fields"], r["marks"]) for r in reader[3]["rows"]["A"]] == [
        ("answer", {"answer": "zeta", "document_id": "(none)"}, {"exact_match": 1.0, "f1": 1.0})]
    assert reader[1]["rows"]["B"][0]["fields"] == {"answer": "alpha", "document_id": "x1 | g1"}


def test_the_model_lists_no_query_by_query_examples_and_builds_the_tuples_only_when_read(runs, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("query_examples was called")

    monkeypatch.setattr(EvaluationResult, "query_examples", refused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build_comparison_model(runs, rounds=50)
    node = model.nodes[0]
    assert "queries" not in node.__dict__  # no GridQuery built yet
    assert "4 queries in all" in text.render_comparison(model) and "4 queries in all" in markdown.render_comparison(model)
    assert "queries" not in node.__dict__  # the text and Markdown reports read the grid
    assert node.worse_count == 1 and [w.query.query for w in node.got_worse(5)] == [QUERIES[2]]
    assert [w.delta for w in node.got_worse(5)] == [-1.0]
    assert len(node.queries) == 4 and node.queries[0].rows[1][0].fields == (("document_id", "x3"),
                                                                           ("context", "noise three"))


def test_detail_refuses_a_row_outside_it_and_a_bad_cut(model):
    with pytest.raises(InvalidParameterError, match=r"row must be a query's row of the detail, 0 to 3; got 4"):
        model.detail.query(4)
    with pytest.raises(InvalidParameterError, match="got '1'"):
        model.detail.query("1")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"characters must be a whole number of characters, 0 or more .*got -1"):
        model.detail.query(0, characters=-1)
    with pytest.raises(InvalidParameterError, match="characters must be .*got 2.5"):
        viewer_payload(model, characters=2.5)  # type: ignore[arg-type]


@pytest.mark.stress  # a local Dask cluster: seconds (tests/present/test_compare_report.py checks the JSON on Dask)
def test_a_run_on_dask_gives_the_same_grid_and_detail(runs, tmp_path):
    on_cluster = pytest.importorskip("evalframe.dask")
    folders = [runs[name].save(tmp_path / name, format="parquet", partitions=2, progress=False) for name in "AB"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = build_comparison_model({name: on_cluster.load(folder) for name, folder in zip("AB", folders)},
                                         compare_function=on_cluster.compare, rounds=50)
        in_memory = build_comparison_model(runs, rounds=50)
    assert viewer_payload(on_dask) == viewer_payload(in_memory)
    assert [on_dask.detail.query(r) for r in range(4)] == [in_memory.detail.query(r) for r in range(4)]


def test_three_runs_each_run_is_a_column_of_the_grid_and_the_detail(tmp_path):
    """tests/present/compare_fixtures.py's runs A, B, C (its docstring's table): mrr per query A [1, 1/2, 1, 0],
    B [1/2, 1, 1, 1], C [1, 1/2, 1/3, 0]; recall_single_hit moves in B only (q4 found), so no query got worse by it
    and the grid keeps A's order."""
    from tests.present.compare_fixtures import QUERIES as FIXTURE_QUERIES
    from tests.present.compare_fixtures import run_result

    runs = {name: run_result(name, tmp_path) for name in "ABC"}
    model = build_comparison_model(runs, rounds=50)
    grid = model.nodes[0].grid
    assert model.nodes[0].order_metric == "recall_single_hit" and grid.query.tolist() == FIXTURE_QUERIES
    np.testing.assert_allclose(grid.values["mrr"], [[1, 0.5, 1], [0.5, 1, 0.5], [1, 1, 1 / 3], [0, 1, 0]])
    assert model.detail.names == ("A", "B", "C")
    q3 = model.detail.query(2)
    assert [[d["id"] for d in run["documents"]] for run in q3["runs"]] == [["g3"], ["g3"], ["x3", "y3", "g3"]]
    assert [run["answers"] for run in q3["runs"]] == [[], [], []]  # a retriever only
    again = build_comparison_model(runs, rounds=50)
    assert again.nodes[0].grid == grid and again.nodes[0] == model.nodes[0]  # equal columns, not the same arrays
    grid_payload, detail_payload = viewer_payload(model)
    assert len(grid_payload["grids"][0]["values"]["mrr"]) == 3 and len(detail_payload["runs"]) == 3
    assert detail_payload["runs"][0]["answers"]["node"] is None and detail_payload["runs"][0]["answers"]["offsets"] == [0] * 5
