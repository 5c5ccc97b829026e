"""docs/ir-researchers.md: its worked example as literal tests, and its table of equal metrics checked on random runs.

Every number of the page's example is a literal here (written as the page's arithmetic): the Haystack side through
``from_runs`` + ``calculate_metrics``, the trec_eval side through ``from_trec`` + ``trec_metrics`` and, independently of
evalframe, against pytrec_eval. The page's tables are parsed and compared with these literals, every arithmetic
expression of the page (`` `expr = value` ``) is evaluated, and the run and qrels written in the page's code are the ones
tested here. The page's code itself runs as a doctest (``--doctest-glob='*.md'``).

pytrec_eval and ir_measures are test-only dependencies.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import random
import re
from pathlib import Path

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from evalframe import Answer, Document, EvaluationResult, Label  # noqa: E402
from tests.fixtures import SCRIPTS, load_benchmark  # noqa: E402

PAGE = Path(__file__).resolve().parents[1] / "docs" / "ir-researchers.md"
log2 = math.log2

# --- the example -------------------------------------------------------------------------------------------------
RUN = {"q1": {"d1": 6.0, "d2": 5.0, "d3": 5.0}, "q2": {"d6": 2.0, "d5": 1.0}}
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1}, "q2": {"d5": 0, "d6": 0}, "q3": {"d7": 1}}
RUN_FILE = "q1 Q0 d1 1 6.0 bm25\nq1 Q0 d2 2 5.0 bm25\nq1 Q0 d3 3 5.0 bm25\nq2 Q0 d6 1 2.0 bm25\nq2 Q0 d5 2 1.0 bm25\n"
QRELS_FILE = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d4 1\nq2 0 d5 0\nq2 0 d6 0\nq3 0 d7 1\n"
QIDS = ["q1", "q2", "q3"]
PIPELINE_ORDER = [["d1", "d2", "d3"], ["d6", "d5"], []]  # the retriever's own order: d2 before d3 (tied scores)
TREC_ORDER = [["d1", "d3", "d2"], ["d6", "d5"], []]  # score descending, ties by docid descending


def label(qid: str, docid: str, origin: str = "gold-label") -> Label:
    return Label(qid, Document(f"text of {docid}", id=docid), True, True, origin)


def no_relevant_document(qid: str) -> Label:
    return Label(qid, Document("", id=""), True, True, "gold-label", Answer(""))


def documents(order: list[list[str]]) -> list[list[Document]]:
    return [[Document(f"text of {docid}", id=docid) for docid in docids] for docids in order]


def haystack_result() -> EvaluationResult:
    """The page's Haystack side: q1's d1 labelled twice, q2 without a relevant document, q3 an empty retrieval."""
    labels = [[label("q1", "d1"), label("q1", "d1", origin="user-feedback"), label("q1", "d3"), label("q1", "d4")],
              [no_relevant_document("q2")], [label("q3", "d7")]]
    return EvaluationResult.from_runs(labels, {"Retriever": {"documents": documents(PIPELINE_ORDER)}}, progress=False)


# Haystack per query (q1, q2, q3), keyed by (metric, simulated_top_k_retriever); None is no cutoff
HAYSTACK = {
    ("mrr", None): [1 / 1, 1.0, 0.0],
    ("map", None): [(1 / 1 + 2 / 3) / 3, 1.0, 0.0],
    ("ndcg", None): [(1 / log2(2) + 1 / log2(4)) / (1 / log2(2) + 1 / log2(3) + 1 / log2(4)), 1.0, 0.0],
    ("precision", None): [2 / 3, 1.0, 0.0],
    ("recall_multi_hit", None): [3 / 4, 1.0, 0.0],
    ("recall_single_hit", None): [1 / 1, 1.0, 0.0],
    ("ndcg", 1): [(1 / log2(2)) / (1 / log2(2) + 1 / log2(3) + 1 / log2(4)), 1.0, 0.0],
    ("precision", 5): [2 / 3, 1.0, 0.0],
    ("recall_multi_hit", 5): [3 / 4, 1.0, 0.0],
    ("recall_single_hit", 5): [1 / 1, 1.0, 0.0],
}
# the page's doctest means (rounded there): calculate_metrics() and ndcg at k=1
HAYSTACK_MEANS = {"recall_multi_hit": 7 / 12, "recall_single_hit": 2 / 3, "precision": 5 / 9, "map": 14 / 27, "mrr": 2 / 3,
                  "ndcg": (HAYSTACK[("ndcg", None)][0] + 1) / 3}

# trec_eval per evaluated query (q3 is not in the run: skipped; with complete=True it scores 0)
NDCG_Q1 = (1 / log2(2) + 2 / log2(3)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4))
TREC = {
    "RR": {"q1": 1 / 1, "q2": 0.0},
    "AP": {"q1": (1 / 1 + 2 / 2) / 3, "q2": 0.0},
    "nDCG": {"q1": NDCG_Q1, "q2": 0.0},
    "nDCG@1": {"q1": (1 / log2(2)) / (2 / log2(2)), "q2": 0.0},
    "nDCG@10": {"q1": NDCG_Q1, "q2": 0.0},
    "P@5": {"q1": 2 / 5, "q2": 0.0},
    "R@5": {"q1": 2 / 3, "q2": 0.0},
    "Success@5": {"q1": 1 / 1, "q2": 0.0},
    "P(rel=2)@5": {"q1": 1 / 5, "q2": 0.0},
    "AP(rel=2)": {"q1": (1 / 2) / 1, "q2": 0.0},
}
# measure -> (pytrec_eval measure, its result key, relevance level)
PYTREC = {"RR": ("recip_rank", "recip_rank", 1), "AP": ("map", "map", 1), "nDCG": ("ndcg", "ndcg", 1),
          "nDCG@1": ("ndcg_cut.1", "ndcg_cut_1", 1), "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10", 1), "P@5": ("P.5", "P_5", 1),
          "R@5": ("recall.5", "recall_5", 1), "Success@5": ("success.5", "success_5", 1),
          "P(rel=2)@5": ("P.5", "P_5", 2), "AP(rel=2)": ("map", "map", 2)}
# Haystack metric (k) beside trec_eval measure, as the page's tables pair them
PAIRS = [("mrr", None, "RR"), ("map", None, "AP"), ("ndcg", None, "nDCG"), ("ndcg", 1, "nDCG@1"),
         ("precision", 5, "P@5"), ("recall_multi_hit", 5, "R@5"), ("recall_single_hit", 5, "Success@5")]
# calculate_metrics on from_trec's result: Haystack definitions on trec_eval's order, one gold entry per document
SAME_FRAMES = {
    "mrr": [1 / 1, 1.0, 0.0],
    "map": [(1 / 1 + 2 / 2) / 3, 1.0, 0.0],
    "ndcg": [(1 / log2(2) + 1 / log2(3)) / (1 / log2(2) + 1 / log2(3) + 1 / log2(4)), 1.0, 0.0],
    "precision": [2 / 3, 1.0, 0.0],
    "recall_multi_hit": [2 / 3, 1.0, 0.0],
    "recall_single_hit": [1 / 1, 1.0, 0.0],
}
# q3 retrieved d7 twice (the page's repeated ids)
TWICE = {"recall_multi_hit": 1.0, "recall_single_hit": 1.0, "precision": 1.0, "map": (1 / 1 + 2 / 2) / 1, "mrr": 1.0,
         "ndcg": (1 / log2(2) + 1 / log2(3)) / (1 / log2(2))}


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def pytrec(measure: str, run: dict | None = None, qrels: dict | None = None) -> dict[str, float]:
    name, key, level = PYTREC[measure]
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS if qrels is None else qrels, {name}, relevance_level=level)
    return {qid: values[key] for qid, values in evaluator.evaluate(RUN if run is None else run).items()}


# --- the Haystack side: from_runs + calculate_metrics (run today) -----------------------------------------------------

@pytest.mark.parametrize(("metric", "k"), list(HAYSTACK))
def test_haystack_side_per_query(metric, k):
    table = haystack_result().query_metrics("Retriever", simulated_top_k_retriever=-1 if k is None else k,
                                            document_scope="document_id")
    assert table[metric].tolist() == pytest.approx(HAYSTACK[(metric, k)], abs=1e-12)


def test_haystack_side_means():
    result = haystack_result()
    means = result.calculate_metrics(document_scope="document_id")["Retriever"]
    assert means == pytest.approx(HAYSTACK_MEANS, abs=1e-12)
    for (metric, k), per_query in HAYSTACK.items():
        at_k = result.calculate_metrics(simulated_top_k_retriever=-1 if k is None else k, document_scope="document_id")
        assert at_k["Retriever"][metric] == pytest.approx(mean(per_query), abs=1e-12)


def test_haystack_side_is_the_default_scope_too():
    """The labels carry no answer, so the default document_id_or_answer scope gives the same numbers."""
    result = haystack_result()
    assert result.calculate_metrics()["Retriever"] == pytest.approx(HAYSTACK_MEANS, abs=1e-12)


def test_repeated_ids_haystack_side():
    twice = EvaluationResult.from_runs([[label("q3", "d7")]], {"Retriever": {"documents": [documents([["d7", "d7"]])[0]]}},
                                       progress=False)
    assert twice.calculate_metrics(document_scope="document_id")["Retriever"] == pytest.approx(TWICE, abs=1e-12)


def test_same_frames_numbers_from_runs_in_trec_order():
    """What calculate_metrics gives on from_trec's frames, built today with from_runs: trec_eval's order, one label per
    relevant document (grade > 0), no gold for q2, an empty retrieval for q3."""
    labels = [[label(qid, docid) for docid, grade in QRELS[qid].items() if grade > 0] or [no_relevant_document(qid)]
              for qid in QIDS]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": documents(TREC_ORDER)}}, progress=False)
    table = result.query_metrics("Retriever", document_scope="document_id")
    for metric, per_query in SAME_FRAMES.items():
        assert table[metric].tolist() == pytest.approx(per_query, abs=1e-12)


# --- the trec_eval side against pytrec_eval (run today) ---------------------------------------------------------------

@pytest.mark.parametrize("measure", list(TREC))
def test_trec_side_literals_are_pytrec_evals(measure):
    values = pytrec(measure)
    assert sorted(values) == ["q1", "q2"]  # q3 is not in the run: skipped
    assert values == pytest.approx(TREC[measure], abs=1e-12)
    complete = pytrec(measure, run={**RUN, "q3": {}})  # trec_eval -c: the missing query with an empty ranking
    assert complete == pytest.approx({**TREC[measure], "q3": 0.0}, abs=1e-12)


def test_trec_side_deduplicated_twice_is_pytrec_evals():
    values = pytrec_eval.RelevanceEvaluator({"q3": {"d7": 1}}, {"map", "ndcg"}).evaluate({"q3": {"d7": 1.0}})
    assert values == {"q3": {"map": 1.0, "ndcg": 1.0}}


def test_trec_order_is_pytrec_evals_order():
    """The tie d2 / d3 at 5.0: trec_eval ranks d3 second (RR@2 of d3 alone = 1/2), the rank column is ignored."""
    qrels = {"q1": {"d3": 1}}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    assert evaluator.evaluate({"q1": RUN["q1"]})["q1"]["recip_rank"] == 1 / 2
    assert sorted(RUN["q1"], key=lambda d: (-RUN["q1"][d], [-ord(c) for c in d])) == TREC_ORDER[0]


def test_ir_measures_rr_at_k_breaks_ties_otherwise():
    """The page's note: ir_measures' RR@k (msmarco provider) does not use trec_eval's tie-break."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel("q", "a", 1)]
    run = [ir_measures.ScoredDoc("q", "a", 1.0), ir_measures.ScoredDoc("q", "b", 1.0), ir_measures.ScoredDoc("q", "c", 2.0)]
    rr2 = ir_measures.calc_aggregate([ir_measures.RR @ 2], qrels, run)[ir_measures.RR @ 2]
    # trec_eval's order c, b, a puts a at rank 3: RR@2 = 0 (recip_rank on the top 2 after trec_eval's sort)
    top2 = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"}).evaluate({"q": {"c": 2.0, "b": 1.0}})
    assert top2["q"]["recip_rank"] == 0.0 and rr2 == 0.5


# --- the trec_eval side through evalframe (from_trec, trec_metrics: needs the issue-15 branches merged) ---------------

def trec_result() -> EvaluationResult:
    return EvaluationResult.from_trec(RUN, QRELS)


def test_trec_metrics_per_query():
    table = trec_result().trec_query_metrics(list(TREC))
    assert table.index.tolist() == ["q1", "q2"]
    for measure, values in TREC.items():
        assert table[measure].to_dict() == pytest.approx(values, abs=1e-12)
        assert table[measure].to_dict() == pytest.approx(pytrec(measure), abs=1e-12)


def test_trec_metrics_means_and_complete():
    result = trec_result()
    means = result.trec_metrics(list(TREC))
    assert list(means) == list(TREC)
    assert means == pytest.approx({m: mean(v.values()) for m, v in TREC.items()}, abs=1e-12)
    complete = result.trec_metrics(list(TREC), complete=True)
    assert complete == pytest.approx({m: sum(v.values()) / 3 for m, v in TREC.items()}, abs=1e-12)
    table = result.trec_query_metrics("AP", complete=True)
    assert table["AP"].to_dict() == pytest.approx({"q1": 2 / 3, "q2": 0.0, "q3": 0.0}, abs=1e-12)


def test_from_trec_files_equal_dicts(tmp_path):
    (tmp_path / "run.txt").write_text(RUN_FILE, encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(QRELS_FILE, encoding="utf-8")
    from_files = EvaluationResult.from_trec(str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"))
    assert from_files.trec_metrics(list(TREC)) == trec_result().trec_metrics(list(TREC))


def test_from_trec_frame_follows_trec_evals_order():
    frame = trec_result()["Retriever"]
    q1 = frame[frame["multilabel_id"] == "q1"]
    assert q1[["rank", "document_id", "score"]].to_dict("list") == {"rank": [1, 2, 3], "document_id": ["d1", "d3", "d2"],
                                                                    "score": [6.0, 5.0, 5.0]}
    first = q1.iloc[0]
    assert list(first["gold_document_ids"]) == ["d1", "d3", "d4"] and list(first["gold_document_relevance"]) == [1, 2, 1]
    q3 = frame[frame["multilabel_id"] == "q3"]
    assert q3["document_id"].tolist() == [""] and math.isnan(q3["score"].iloc[0])


def test_calculate_metrics_on_from_trec():
    table = trec_result().query_metrics("Retriever", document_scope="document_id")
    for metric, per_query in SAME_FRAMES.items():
        assert table[metric].tolist() == pytest.approx(per_query, abs=1e-12)


def test_repeated_ids_trec_side():
    from evalframe import SchemaError

    twice = EvaluationResult.from_runs([[label("q3", "d7")]], {"Retriever": {"documents": [documents([["d7", "d7"]])[0]]}},
                                       progress=False)
    with pytest.raises(SchemaError, match="d7"):
        twice.trec_metrics("AP")
    assert twice.trec_metrics(["AP", "nDCG"], duplicates="first") == {"AP": 1.0, "nDCG": 1.0}


def test_written_run_and_qrels_read_by_pytrec_eval(tmp_path):
    result = trec_result()
    result.to_trec_run(str(tmp_path / "out.run"), tag="evalframe")
    result.to_qrels(str(tmp_path / "out.qrels"))
    with open(tmp_path / "out.run", encoding="utf-8") as run_file, open(tmp_path / "out.qrels", encoding="utf-8") as qrels_file:
        run, qrels = pytrec_eval.parse_run(run_file), pytrec_eval.parse_qrel(qrels_file)
    for measure in TREC:
        assert pytrec(measure, run=run, qrels=qrels) == pytest.approx(TREC[measure], abs=1e-12)
    again = EvaluationResult.from_trec(str(tmp_path / "out.run"), str(tmp_path / "out.qrels"))
    assert again.trec_metrics(list(TREC)) == result.trec_metrics(list(TREC))


def numbers_in(value) -> list[float]:
    if isinstance(value, dict):
        return [n for item in value.values() for n in numbers_in(item)]
    if isinstance(value, list):
        return [n for item in value for n in numbers_in(item)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, str):
        try:
            return [float(value)]
        except ValueError:
            return []
    return []


def test_command_line_gives_the_same_numbers(tmp_path, capsys):
    from evalframe.present.cli import main

    (tmp_path / "run.txt").write_text(RUN_FILE, encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(QRELS_FILE, encoding="utf-8")
    args = ["trec", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), "-m", "nDCG@10", "-m", "AP"]
    assert main([*args, "--format", "json"]) == 0
    printed = numbers_in(json.loads(capsys.readouterr().out))
    for expected in (mean(TREC["nDCG@10"].values()), mean(TREC["AP"].values())):
        assert any(abs(n - expected) < 1e-4 for n in printed), (expected, printed)
    assert main([*args, "-q", "--format", "json"]) == 0
    printed = numbers_in(json.loads(capsys.readouterr().out))
    assert any(abs(n - TREC["nDCG@10"]["q1"]) < 1e-4 for n in printed)
    for fmt in ("tsv", "markdown"):
        assert main([*args, "--format", fmt]) == 0
        assert "0.3612" in capsys.readouterr().out  # mean nDCG@10 (0.36121...), however many digits are printed


# --- the page and these literals agree --------------------------------------------------------------------------------

OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def evaluate(expression: str) -> float:
    """The page's arithmetic: numbers, + - * /, parentheses and log2(x); nothing else."""
    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            return OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "log2" and len(node.args) == 1:
            return log2(value(node.args[0]))
        raise ValueError(f"not page arithmetic: {ast.dump(node)}")
    return value(ast.parse(expression, mode="eval").body)


ARITHMETIC = re.compile(r"`([0-9 ()+\-*/.log]+?) = (-?\d+(?:\.\d+)?)`")


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def table_rows(marker: str) -> list[list[str]]:
    text = page()
    body = text.split(f"<!-- {marker}:start -->", 1)[1].split(f"<!-- {marker}:end -->", 1)[0]
    lines = [line for line in body.strip().splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]


def stated(cell: str) -> float:
    """The value a cell states: `expr = value` or `value`."""
    found = re.fullmatch(r"`(?:.* = )?(-?\d+(?:\.\d+)?)`", cell)
    assert found, f"no value in {cell!r}"
    return float(found.group(1))


def haystack_key(cell: str) -> tuple[str, int | None]:
    found = re.fullmatch(r"`(\w+)`(?: \(k=(\d+)\))?", cell)
    assert found, f"no Haystack metric in {cell!r}"
    return found.group(1), int(found.group(2)) if found.group(2) else None


def test_every_arithmetic_expression_of_the_page_gives_its_value():
    found = ARITHMETIC.findall(page())
    assert len(found) >= 40
    for expression, value in found:
        assert round(evaluate(expression), 4) == float(value), f"`{expression} = {value}`"


def test_the_per_query_table_is_the_literals():
    rows = table_rows("ir-example-queries")
    assert len(rows) == 9
    pairs = []
    for query, metric, haystack_cell, measure, trec_cell, _ in rows:
        position = QIDS.index(query)
        if metric == "every metric":
            assert {values[position] for values in HAYSTACK.values()} == {stated(haystack_cell)}
            if query == "q2":
                assert {values[query] for values in TREC.values()} == {stated(trec_cell)}
            else:  # q3: skipped, 0.0 with complete=True
                assert trec_cell.startswith("skipped") and all(query not in values for values in TREC.values())
                assert stated(re.search(r"`[^`]*`", trec_cell).group(0)) == 0.0
            continue
        key = haystack_key(metric)
        assert round(HAYSTACK[key][position], 4) == stated(haystack_cell), (query, metric)
        assert round(TREC[measure.strip("`")][query], 4) == stated(trec_cell), (query, measure)
        pairs.append((*key, measure.strip("`")))
    assert pairs == PAIRS


def test_the_means_table_is_the_literals():
    rows = table_rows("ir-example-means")
    assert [(*haystack_key(row[0]), row[2].strip("`")) for row in rows] == PAIRS
    for metric, haystack_cell, measure, trec_cell, complete_cell in rows:
        key, name = haystack_key(metric), measure.strip("`")
        assert round(mean(HAYSTACK[key]), 4) == stated(haystack_cell), metric
        assert round(mean(TREC[name].values()), 4) == stated(trec_cell), name
        assert round(sum(TREC[name].values()) / 3, 4) == stated(complete_cell), name


def code_line(prefix: str) -> str:
    lines = [line for line in page().splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, prefix
    return lines[0][len(prefix):]


def test_the_page_code_uses_these_run_and_qrels():
    assert ast.literal_eval(code_line(">>> run = ")) == RUN
    assert ast.literal_eval(code_line(">>> qrels = ")) == QRELS
    text = page()
    files = re.findall(r'^\.\.\.     "([^"]*)\\n"', text, flags=re.MULTILINE)
    written = "\n".join(chunk.replace("\\n", "\n") for chunk in files) + "\n"
    assert sorted(written.split("\n")) == sorted((RUN_FILE + QRELS_FILE).split("\n"))
    assert ast.literal_eval(code_line(">>> ranked = ")) == PIPELINE_ORDER
    # the CLI examples of the page run on these files too (scripts/make_cli_docs.py writes its own copy of them)
    script = load_benchmark("make_cli_docs.py", SCRIPTS)
    assert (script.IR_RUN, script.IR_QRELS) == (RUN_FILE, QRELS_FILE)


def test_the_page_doctest_means_are_the_literals():
    text = page()
    haystack_means = ast.literal_eval(re.search(r"^(\{'recall_multi_hit': 0\.5833.*\})$", text, flags=re.MULTILINE).group(1))
    assert haystack_means == {metric: round(value, 4) for metric, value in HAYSTACK_MEANS.items()}
    trec_means = ast.literal_eval(re.search(r"^(\{'RR': 0\.5, .*\})$", text, flags=re.MULTILINE).group(1))
    assert trec_means == {m: round(mean(TREC[m].values()), 4) for m in trec_means}
    same = ast.literal_eval(re.search(r"^(\{'recall_multi_hit': 0\.5556.*\})$", text, flags=re.MULTILINE).group(1))
    assert same == {metric: round(mean(values), 4) for metric, values in SAME_FRAMES.items() if metric in same} and len(same) == 6
    twice = ast.literal_eval(re.search(r"^(\{'recall_multi_hit': 1\.0.*'map': 2\.0.*\})$", text, flags=re.MULTILINE).group(1))
    assert twice == {metric: round(value, 4) for metric, value in TWICE.items()}


# --- the table of equal metrics, on random runs (run today) -----------------------------------------------------------

def trec_sorted(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda docid: (-scores[docid], [-ord(c) for c in docid]))


def random_runs(seed: int, queries: int = 150) -> tuple[dict, dict]:
    """Runs with ties and 1-7 documents, graded qrels (-1..2) with 1-4 relevant documents per query."""
    rng = random.Random(seed)
    run, qrels = {}, {}
    for i in range(queries):
        qid, pool = f"q{i}", [f"d{j}" for j in range(10)]
        run[qid] = {docid: float(rng.randint(0, 4)) for docid in rng.sample(pool, rng.randint(1, 7))}
        qrels[qid] = {docid: rng.choice([1, 1, 2]) for docid in rng.sample(pool, rng.randint(1, 4))}
        for docid in rng.sample(pool, 3):
            qrels[qid].setdefault(docid, rng.choice([-1, 0]))
    return run, qrels


def haystack_tables(run: dict, qrels: dict, ks) -> dict:
    """Haystack metrics per query (in qrels order) built with from_runs in trec_eval's order, one label per relevant doc."""
    labels = [[label(qid, docid) for docid, grade in judged.items() if grade > 0] for qid, judged in qrels.items()]
    ranked = [[Document(docid, id=docid) for docid in trec_sorted(run[qid])] for qid in qrels]
    result = EvaluationResult.from_runs(labels, {"Retriever": {"documents": ranked}}, progress=False)
    return {k: result.query_metrics("Retriever", simulated_top_k_retriever=k, document_scope="document_id").reset_index(drop=True)
            for k in ks}


def test_the_table_of_equal_metrics():
    run, qrels = random_runs(seed=15)
    ks = (1, 2, 3, 5)
    haystack = haystack_tables(run, qrels, (-1, *ks))
    names = {"recip_rank", "map", "ndcg"} | {f"{m}.{k}" for m in ("ndcg_cut", "P", "recall", "success", "map_cut") for k in ks}
    trec = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    rr_at = {k: pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(
        {qid: {d: run[qid][d] for d in trec_sorted(run[qid])[:k]} for qid in run}) for k in ks}
    held, broke = {}, {}
    for row, qid in enumerate(qrels):
        n = len(run[qid])
        relevant = [grade for grade in qrels[qid].values() if grade > 0]
        binary = all(grade == 1 for grade in relevant)
        claims = [("mrr", -1, trec[qid]["recip_rank"], True), ("map", -1, trec[qid]["map"], True),
                  ("ndcg", -1, trec[qid]["ndcg"], binary),
                  ("precision", -1, pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, {f"P.{n}"}).evaluate(
                      {qid: run[qid]})[qid][f"P_{n}"], True)]
        for k in ks:
            claims += [("mrr", k, rr_at[k][qid]["recip_rank"], True), ("map", k, trec[qid][f"map_cut_{k}"], True),
                       ("ndcg", k, trec[qid][f"ndcg_cut_{k}"], binary and len(relevant) <= k),
                       ("precision", k, trec[qid][f"P_{k}"], n >= k),
                       ("recall_multi_hit", k, trec[qid][f"recall_{k}"], True),
                       ("recall_single_hit", k, trec[qid][f"success_{k}"], True)]
        for metric, k, expected, condition in claims:
            equal = abs(haystack[k].loc[row, metric] - expected) <= 1e-12
            name = (metric, "cut" if k > 0 else "all")
            if condition:
                assert equal, (qid, metric, k, haystack[k].loc[row, metric], expected)
                held[name] = held.get(name, 0) + 1
            elif not equal:
                broke[name] = broke.get(name, 0) + 1
    assert all(count >= 20 for count in held.values()) and len(held) == 10
    # each condition of the table is needed: the same runs differ where it fails
    assert set(broke) == {("ndcg", "all"), ("ndcg", "cut"), ("precision", "cut")}
    # with every query in the qrels (with a relevant document) and in the run, the means agree too
    assert haystack[-1]["mrr"].mean() == pytest.approx(mean(v["recip_rank"] for v in trec.values()), abs=1e-12)
    assert haystack[-1]["map"].mean() == pytest.approx(mean(v["map"] for v in trec.values()), abs=1e-12)


def anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces as -."""
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_the_page_links_resolve_and_the_docs_link_to_it():
    docs = PAGE.parent
    for target in re.findall(r"\]\(([^)\s]+)\)", page()):
        if "://" in target:  # a page elsewhere (ir_datasets' site): not a file of docs/
            continue
        path, _, anchor = target.partition("#")
        text = (docs / path).read_text(encoding="utf-8") if path else page()
        assert not anchor or anchor in anchors(text), target
    assert "(docs/ir-researchers.md)" in (docs.parent / "README.md").read_text(encoding="utf-8")
    assert "(ir-researchers.md)" in (docs / "metrics.md").read_text(encoding="utf-8")


def test_the_page_command_output_is_the_commands(tmp_path, capsys):
    from evalframe.present.cli import main

    block = page().split("```console\n", 1)[1].split("```", 1)[0]
    command, *printed = block.split("\n$ ")[0].splitlines()
    args = command.removeprefix("$ evalframe ").split()
    assert args[:3] == ["trec", "run.txt", "qrels.txt"]
    (tmp_path / "run.txt").write_text(RUN_FILE, encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(QRELS_FILE, encoding="utf-8")
    assert main(["trec", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), *args[3:]]) == 0
    assert [line.split() for line in capsys.readouterr().out.strip().splitlines()] == [line.split() for line in printed]
    means = {line.split()[0]: float(line.split()[2]) for line in printed[1:]}
    assert means == {m: round(mean(TREC[m].values()), 4) for m in means} and len(means) == 4
