"""Scores from elsewhere as measures (issue 28): declaring them, attaching them (add_scores, from_runs, a runs file's
``scores`` key) and their per-query values and means, against values worked out by hand in each test."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, LoadError, SchemaError, direction_of, read_runs, score_measure

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QUERIES = ["q1", "q2", "q3", "q4"]


def runs_lines() -> list[dict]:
    """4 queries; the retriever returns 3 documents each, the gold one at rank i + 1 (q4: not at all); the generator
    answers right on q1 and q3 only."""
    lines = []
    for i, query in enumerate(QUERIES):
        docs = [{"id": f"{query}-x{j}", "content": f"other text {query} {j}"} for j in range(3)]
        if i < 3:
            docs[i] = {"id": f"{query}-gold", "content": f"gold text {query}"}
        answer = f"answer {query}" if i in (0, 2) else "wrong"
        lines.append({"query": query, "gold": {"document_ids": [f"{query}-gold"], "contexts": [f"gold text {query}"],
                                               "answers": [f"answer {query}"]},
                      "nodes": {"Retriever": {"documents": docs}, "Generator": {"answers": [{"answer": answer}]}}})
    return lines


def build(lines: list[dict] | None = None) -> EvaluationResult:
    labels, outputs = read_runs_of(lines or runs_lines())
    return EvaluationResult.from_runs(labels, outputs)


def read_runs_of(lines, tmp=None):
    import pathlib
    import tempfile

    path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return read_runs(path)


@pytest.fixture
def result() -> EvaluationResult:
    return build()


def ids_of(result: EvaluationResult, node: str = "Generator") -> list[str]:
    table = result.query_metrics(node, with_query=True)
    return [table.index[table["query"] == q][0] for q in QUERIES]


# ------------------------------------------------------------------ declaring
def test_score_measure_declares_a_score_of_the_registry_family():
    latency = score_measure("latency_ms", direction="lower", bounds=(0, 1e4), description="time to answer")
    assert (latency.family, latency.direction, latency.bounds, latency.level) == ("score", "lower", (0.0, 1e4), "query")
    assert score_measure("rating", level="row").level == "row"
    assert score_measure("faithfulness").direction == "higher" and score_measure("faithfulness").bounds is None


@pytest.mark.parametrize("name", ["mrr", "MRR", "AP", "nDCG", "ndcg_cut", "P_5", "recip_rank", "f1", "query", "rank",
                                  "gold_answers", "meta", "nDCG@10", "a b", "x(y)", "1st", ""])
def test_a_score_name_of_the_registry_or_a_column_or_unparseable_is_refused(name):
    with pytest.raises(InvalidParameterError, match="rename"):
        score_measure(name)


@pytest.mark.parametrize(("kwargs", "message"), [({"direction": "up"}, "direction"), ({"level": "answer"}, "level"),
                                                 ({"bounds": (1, 0)}, "low <= high"), ({"bounds": "ab"}, "bounds")])
def test_score_measure_refuses_bad_declarations(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        score_measure("judge", **kwargs)


def test_direction_of_any_column():
    scores = {"latency": score_measure("latency", direction="lower"), "faith": score_measure("faith"),
              "tokens": score_measure("tokens", direction="none")}
    assert [direction_of(m, scores) for m in ("latency", "faith", "tokens", "mrr", "nDCG@10", "AP")] == \
        ["lower", "higher", "none", "higher", "higher", "higher"]
    # a name that is no measure of the registry and no declared score: its direction is not known (was "higher")
    with pytest.raises(InvalidParameterError, match=r"which way 'unknown' is better is not known.*score_measure"):
        direction_of("unknown", scores)
    with pytest.raises(InvalidParameterError, match=r"which way 'latency' is better is not known"):
        direction_of("latency")  # undeclared


# ------------------------------------------------------------------ attaching per query
def test_add_scores_by_multilabel_id_mean_leaves_out_the_query_without_a_value(result):
    ids = ids_of(result)
    result.add_scores("Generator", pd.DataFrame({"multilabel_id": ids, "faithfulness": [0.9, 0.2, np.nan, 0.6]}))
    # worked by hand: (0.9 + 0.2 + 0.6) / 3
    assert result.calculate_metrics()["Generator"]["faithfulness"] == pytest.approx(0.5666666666666667, abs=1e-15)
    assert "faithfulness" not in result.calculate_metrics()["Retriever"]
    table = result.query_metrics("Generator")
    assert table.loc[ids, "faithfulness"].tolist()[:2] == [0.9, 0.2] and math.isnan(table.loc[ids[2], "faithfulness"])
    assert result.metrics_frame().loc["Generator", "faithfulness"] == pytest.approx(1.7 / 3, abs=1e-15)
    assert result["Generator"]["scores.faithfulness"].dtype == np.float64
    assert result.scores["faithfulness"].direction == "higher"


def test_add_scores_by_query_text_and_as_a_dict(result):
    result.add_scores("Generator", pd.DataFrame({"query": ["q2", "q4"], "latency": [3.0, 5.0]}), direction="lower",
                      bounds=(0, 60), description="seconds")
    assert result.calculate_metrics()["Generator"]["latency"] == 4.0  # (3 + 5) / 2, q1 and q3 without a value
    assert result.scores["latency"].direction == "lower" and result.scores["latency"].bounds == (0.0, 60.0)
    result.add_scores("Generator", {"latency": {"q1": 1.0, "q2": 2.0}})  # re-adding replaces column and declaration
    assert result.calculate_metrics()["Generator"]["latency"] == 1.5
    assert result.scores["latency"].direction == "higher"
    result.add_scores("Generator", {"rating": dict(zip(ids_of(result), [1, 2, 3, 4]))})  # keyed by multilabel_id
    assert result.calculate_metrics()["Generator"]["rating"] == 2.5


def test_sliced_metrics_average_a_score_per_slice(result):
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "faithfulness": [0.9, 0.2, 0.4, 0.6]}))
    right = dict(zip(ids_of(result), [True, False, True, False]))
    table = result.sliced_metrics(right).loc["Generator"]
    # q1, q3 answered right (exact_match 1): (0.9 + 0.4) / 2; q2, q4: (0.2 + 0.6) / 2
    assert table.loc[True, "faithfulness"] == pytest.approx(0.65) and table.loc[False, "faithfulness"] == pytest.approx(0.4)


# ------------------------------------------------------------------ attaching per row
def test_row_scores_average_the_rows_the_simulated_top_k_keeps(result):
    rows = pd.DataFrame({"query": [q for q in QUERIES for _ in range(3)], "rank": [1, 2, 3] * 4,
                         "relevance": [1.0, 0.5, 0.0, 0.8, np.nan, 0.2, 0.3, 0.3, 0.9, 0.0, 0.0, 0.0]})
    result.add_scores("Retriever", rows)
    assert result.scores["relevance"].level == "row"
    # per query over all rows: q1 0.5, q2 (0.8 + 0.2) / 2 = 0.5, q3 0.5, q4 0.0 -> mean 0.375
    assert result.calculate_metrics()["Retriever"]["relevance"] == pytest.approx(0.375)
    # top 1: q1 1.0, q2 0.8, q3 0.3, q4 0.0 -> 0.525; top 2: q1 0.75, q2 0.8 (NaN ignored), q3 0.3, q4 0.0 -> 0.4625
    assert result.calculate_metrics(simulated_top_k_retriever=1)["Retriever"]["relevance"] == pytest.approx(0.525)
    at_k = result.metrics_at_k(ks=(1, 2), node="Retriever")
    got = at_k[at_k["metric"] == "relevance"].set_index("k")["value"]
    assert got.to_dict() == pytest.approx({1: 0.525, 2: 0.4625})


def test_metrics_at_k_leaves_query_scores_out(result):
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "faithfulness": [0.9, 0.2, 0.4, 0.6]}))
    assert "faithfulness" not in set(result.metrics_at_k(ks=(1,))["metric"])


# ------------------------------------------------------------------ errors
def test_add_scores_errors_name_what_was_wrong(result):
    with pytest.raises(InvalidParameterError, match="Reader"):
        result.add_scores("Reader", pd.DataFrame({"query": ["q1"], "s": [1.0]}))
    with pytest.raises(InvalidParameterError, match="no query with query 'q9'"):
        result.add_scores("Generator", pd.DataFrame({"query": ["q1", "q9"], "s": [1.0, 2.0]}))
    with pytest.raises(InvalidParameterError, match=r"table row 2 \(index 1\), column 's' must be a number .*; got 'high', text"):
        result.add_scores("Generator", pd.DataFrame({"query": ["q1", "q2"], "s": [1.0, "high"]}))
    with pytest.raises(InvalidParameterError, match=r"table row 2 .*column 's': 7.0 lies outside the bounds \[0, 1\]"):
        result.add_scores("Generator", pd.DataFrame({"query": ["q1", "q2"], "s": [1.0, 7.0]}), bounds=(0, 1))
    with pytest.raises(InvalidParameterError, match="'mrr' is a haystack metric"):
        result.add_scores("Generator", pd.DataFrame({"query": ["q1"], "mrr": [1.0]}))
    with pytest.raises(InvalidParameterError, match="no row with multilabel_id"):
        result.add_scores("Retriever", pd.DataFrame({"query": ["q1"], "rank": [9], "s": [1.0]}))
    assert "s" not in result.scores and "scores.s" not in result["Generator"].columns  # nothing attached


def test_a_query_text_naming_two_queries_is_refused(tmp_path):
    lines = runs_lines()
    lines[1] = {**lines[1], "query": "q1", "filters": {"lang": ["de"]}}
    result = build(lines)
    with pytest.raises(InvalidParameterError, match="names 2 queries .*multilabel_id '[0-9a-f]+' and '[0-9a-f]+'"):
        result.add_scores("Generator", pd.DataFrame({"query": ["q1"], "s": [1.0]}))


def test_an_undeclared_score_column_is_refused(result):
    frame = result["Generator"].copy()
    frame["scores.judge"] = 1.0
    result["Generator"] = frame
    with pytest.raises(SchemaError, match=r"result.scores\['judge'\] = evalframe.score_measure"):
        result.calculate_metrics()
    result.scores["judge"] = score_measure("judge")
    assert result.calculate_metrics()["Generator"]["judge"] == 1.0


# ------------------------------------------------------------------ from_runs and runs files
def test_from_runs_takes_scores_per_label_entry():
    labels, outputs = read_runs_of(runs_lines())
    result = EvaluationResult.from_runs(
        labels, outputs, scores={"Generator": {"faithfulness": [0.9, 0.2, None, 0.6], "latency": [1, 2, 3, 6]}},
        score_measures={"latency": score_measure("latency", direction="lower")})
    means = result.calculate_metrics()["Generator"]
    assert means["faithfulness"] == pytest.approx(1.7 / 3) and means["latency"] == 3.0
    assert result.scores["latency"].direction == "lower" and result.scores["faithfulness"].direction == "higher"
    with pytest.raises(InvalidParameterError, match="one value .* per entry of labels"):
        EvaluationResult.from_runs(labels, outputs, scores={"Generator": {"f": [1.0]}})
    with pytest.raises(InvalidParameterError, match="node 'Reader'"):
        EvaluationResult.from_runs(labels, outputs, scores={"Reader": {"f": [1.0] * 4}})


def test_a_runs_file_line_holds_scores_per_node():
    lines = runs_lines()
    for line, value in zip(lines, [0.9, 0.2, None, 0.6]):
        line["scores"] = {"Generator": {"faithfulness": value}}
    assert build(lines).calculate_metrics()["Generator"]["faithfulness"] == pytest.approx(1.7 / 3)
    lines[2]["scores"] = {"Reader": {"faithfulness": 1.0}}
    with pytest.raises(LoadError, match=r"runs.jsonl:3: 'scores' names node 'Reader'"):
        read_runs_of(lines)
    lines[2]["scores"] = {"Generator": {"faithfulness": "good"}}
    with pytest.raises(LoadError, match=r"runs.jsonl:3: score 'faithfulness' of node 'Generator' must be a number"):
        read_runs_of(lines)


# ------------------------------------------------------------------ save and load
@pytest.mark.parametrize(("fmt", "options"), [("csv", {}), ("parquet", {}), ("parquet", {"partitions": 2})])
def test_save_load_keeps_scores_and_declarations_exactly(tmp_path, fmt, options):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    result = build()
    values = [0.1 + 0.2, 1 / 3, 1e-300, np.nan]
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "faith": values, "lat": [5.0, 1.0, 2.0, 3.0]}),
                      direction={"lat": "lower"}, bounds={"faith": (0, 1)}, description={"lat": "seconds"})
    folder = result.save(tmp_path / "run", format=fmt, progress=False, **options)
    manifest = json.loads((folder / "evalframe.json").read_text())
    assert manifest["scores"] == {"faith": {"direction": "higher", "bounds": [0.0, 1.0], "level": "query",
                                            "description": "a score computed elsewhere (higher is better)"},
                                  "lat": {"direction": "lower", "bounds": None, "level": "query", "description": "seconds"}}
    back = EvaluationResult.load(folder, progress=False)
    assert back.scores == result.scores
    got = back["Generator"].set_index("multilabel_id")["scores.faith"]
    assert got.dtype == np.float64
    by_query = dict(zip(back["Generator"]["query"], back["Generator"]["scores.faith"]))
    assert [by_query[q] for q in QUERIES[:3]] == [0.30000000000000004, 0.3333333333333333, 1e-300]  # bit for bit
    assert math.isnan(by_query["q4"])
    assert back.calculate_metrics()["Generator"]["faith"] == (0.1 + 0.2 + 1 / 3 + 1e-300) / 3


def test_a_folder_without_scores_has_no_scores_key(tmp_path):
    folder = build().save(tmp_path / "run", progress=False)
    assert "scores" not in json.loads((folder / "evalframe.json").read_text())
    assert EvaluationResult.load(folder, progress=False).scores == {}


# ------------------------------------------------------------------ worst queries
def test_wrong_examples_by_a_score_follow_its_direction(result):
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "faith": [0.9, 0.2, np.nan, 0.6],
                                                 "latency": [5.0, 1.0, 2.0, 3.0]}), direction={"latency": "lower"})
    listed = lambda **kw: [e["query"] for e in result.wrong_examples("Generator", **kw)]  # noqa: E731
    assert listed(n=4, metric="faith") == ["q2", "q4", "q1"]  # lowest first; q3 has no value
    assert listed(n=2, metric="latency") == ["q1", "q4"]  # lower is better: the largest latency is the worst
    assert listed(n=4, metric="latency", threshold=3) == ["q1", "q4"]  # at or worse than 3: >= 3
    assert listed(n=4, metric="faith", threshold=0.6) == ["q2", "q4"]  # <= 0.6
    example = result.wrong_examples("Generator", n=1, metric="latency")[0]
    assert example["metrics"] == {"exact_match": 1.0, "f1": 1.0, "faith": 0.9, "latency": 5.0} and example["answers"]
    # q4 misses its gold document (mrr 0), q3 has it at rank 3, q2 at 2
    assert [e["query"] for e in result.wrong_examples("Retriever", n=3, metric="mrr")] == ["q4", "q3", "q2"]
    assert [e["query"] for e in result.wrong_examples("Generator", n=3)] == ["q2", "q4"]  # the old arguments, unchanged
    with pytest.raises(InvalidParameterError, match="metric must be one of"):
        result.wrong_examples("Generator", metric="nope")


# ------------------------------------------------------------------ comparisons
def latency_runs() -> tuple[EvaluationResult, EvaluationResult]:
    a, b = build(), build()
    a.add_scores("Generator", pd.DataFrame({"query": QUERIES, "latency": [5.0, 1.0, 2.0, 3.0]}), direction="lower")
    b.add_scores("Generator", pd.DataFrame({"query": QUERIES, "latency": [4.0, 1.0, 1.0, 6.0]}), direction="lower")
    return a, b


def test_compare_counts_a_lower_score_falling_as_a_win():
    from evalframe import compare

    table = compare(*latency_runs(), node="Generator", metrics=["latency"], rounds=50)
    # per query b - a: -1, 0, -1, +3; mean_a 11/4, mean_b 12/4; b is better (lower) on q1 and q3, worse on q4
    assert table.loc["latency", ["mean_a", "mean_b", "delta"]].tolist() == [2.75, 3.0, 0.25]
    assert table.loc["latency", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]


def test_worst_by_delta_follows_the_direction_and_keeps_delta_b_minus_a():
    from evalframe import worst_by_delta

    a, b = latency_runs()
    assert [(e["query"], e["delta"]) for e in worst_by_delta(a, b, "Generator", "latency")] == [("q4", 3.0)]
    better = worst_by_delta(a, b, "Generator", "latency", direction="better")
    assert [(e["query"], e["delta"]) for e in better] == [("q1", -1.0), ("q3", -1.0)]
    assert better[0]["metrics"]["latency"] == 4.0 and better[0]["baseline"]["metrics"]["latency"] == 5.0


# ------------------------------------------------------------------ the command line
def test_flatten_declares_the_scores_of_a_runs_file(tmp_path, capsys):
    from evalframe.present.cli import main

    lines = runs_lines()
    for line, (faith, latency) in zip(lines, [(0.9, 5), (0.2, 1), (None, 2), (0.6, 3)]):
        line["scores"] = {"Generator": {"faithfulness": faith, "latency": latency}}
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["flatten", str(runs), "-o", str(tmp_path / "out"), "--score", "latency:lower:0:60",
                 "--score", "faithfulness:0:1"]) == 0
    back = EvaluationResult.load(tmp_path / "out", progress=False)
    assert (back.scores["latency"].direction, back.scores["latency"].bounds) == ("lower", (0.0, 60.0))
    assert back.scores["faithfulness"].bounds == (0.0, 1.0)
    assert back.calculate_metrics()["Generator"]["latency"] == 2.75  # (5 + 1 + 2 + 3) / 4
    capsys.readouterr()
    assert main(["flatten", str(runs), "-o", str(tmp_path / "bad"), "--score", "faithfulness:0:0.5"]) == 1
    err = capsys.readouterr().err
    assert f"{runs}:1: scores of node 'Generator', column 'faithfulness': 0.9 lies outside the bounds [0, 0.5]" in err


def test_plots_label_a_scores_direction_and_count_its_wins():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from evalframe.report.plots import plot_comparison, plot_metric_distribution

    a, b = latency_runs()
    ax = plot_metric_distribution(b, "Generator", metric="latency")
    assert ax.get_xlabel() == "latency (lower is better)"
    matplotlib.pyplot.close(ax.figure)
    ax = plot_comparison(a, b, "Generator", metric="latency")
    assert ax.get_xlabel() == "latency (lower is better) of A"
    assert "B wins 2, ties 1, loses 1" in ax.get_title()  # lower on q1 and q3, higher on q4
    matplotlib.pyplot.close(ax.figure)


# ------------------------------------------------------------------ the report
def test_the_report_shows_scores_in_the_funnel_and_ranks_by_one():
    result = build()
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES, "latency": [5.0, 1.0, 2.0, 3.0]}),
                      direction="lower", description="seconds to answer")
    report = result.report(n=2, charts=False, metric="latency")
    funnel = report.text[report.text.index("Pipeline funnel"):report.text.index("Output")]
    assert "latency            2.7500" in funnel and "above 1" not in funnel  # (5 + 1 + 2 + 3) / 4; no [!] for a score
    worst = report.text[report.text.index("Worst queries of Generator by latency"):]
    assert worst.index("query:  q1") < worst.index("query:  q4")  # 5.0 then 3.0: the slowest first
    assert "seconds to answer (a score from elsewhere; lower is better)" in report.text
    assert "latency" in report.html
    with pytest.raises(InvalidParameterError, match="no metric of the funnel"):
        result.report(charts=False, metric="nope")


def test_row_scores_of_an_answer_node_at_k_are_cut_by_the_readers_k_only():
    """Review finding: metrics_at_k cut an answer node's row scores by the retriever's k too. The demo Reader's rows
    numbered 0, 1, ... in frame order: the integrated rank-1 rows hold 0, 4, 9, 12, 15, 18, 21, 24, mean 103 / 8."""
    import numpy as np

    from evalframe import load_demo_result

    result = load_demo_result()
    table = result["Reader"][["multilabel_id", "rank", "type", "eval_mode"]].copy()
    table["rs"] = np.arange(len(table), dtype=float)
    result.add_scores("Reader", table)
    at_k = result.metrics_at_k((1, 2, 3), node="Reader")
    assert at_k[at_k["metric"] == "rs"]["value"].tolist() == pytest.approx([103 / 8, 13.3125, 13.375])
    assert [result.calculate_metrics(simulated_top_k_reader=k)["Reader"]["rs"] for k in (1, 2, 3)] == \
        pytest.approx([103 / 8, 13.3125, 13.375])


def test_a_declaration_naming_no_score_of_the_runs_is_refused(tmp_path, capsys):
    """Review finding: --score latncy:lower (a typo) left 'latency' declared higher-is-better without a word."""
    from evalframe.present.cli import main

    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"query": "a?", "gold": {"document_ids": ["d1"]}, "nodes": {"R": {"documents": [{"id": "d1", '
                    '"content": "x"}]}}, "scores": {"R": {"latency": 3}}}\n', encoding="utf-8")
    assert main(["flatten", str(runs), "-o", str(tmp_path / "out"), "--score", "latncy:lower"]) == 1
    assert "'latncy', which no entry's scores name (they name ['latency'])" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
