"""Repeated judge runs (issue 37): a score given k times per query kept as its k values by each way in (a runs line's
list, Ragas columns per repetition, add_scores with a repetition column), saved and loaded, its per-query mean read
by every analysis; judge noise against query variance and pass@k / pass^k against values worked out by hand."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, LoadError, SchemaError, compare, read_runs
from evalframe.errors import EvalframeError
from evalframe.sources.runs import read_runs_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QUERIES = ["q1", "q2", "q3", "q4"]
#: Each query's repetitions as given (None / NaN: no value) and what is kept of them.
GIVEN = [[0.5, 1.0, 0.0], [0.2, None, math.nan], [0.9], None]
KEPT = [[0.5, 1.0, 0.0], [0.2], [0.9], None]
MEANS = [0.5, 0.2, 0.9, math.nan]  # worked by hand: (0.5 + 1 + 0) / 3, 0.2, 0.9; q4: none


def samples(**extra_columns: list) -> list[dict]:
    """One Ragas sample per query; the generator answers right on q1 and q3."""
    rows = []
    for i, query in enumerate(QUERIES):
        row = {"user_input": query, "retrieved_contexts": [f"gold text {query}", "other"],
               "response": f"answer {query}" if i in (0, 2) else "wrong", "reference": f"answer {query}"}
        row.update({column: values[i] for column, values in extra_columns.items()})
        rows.append(row)
    return rows


def ragas_columns() -> dict[str, list]:
    """GIVEN as three columns judge_1..judge_3 (a short list padded with None)."""
    padded = [(cell or []) + [None] * (3 - len(cell or [])) for cell in GIVEN]
    return {f"judge_{j + 1}": [row[j] for row in padded] for j in range(3)}


def from_ragas(**extra: list) -> EvaluationResult:
    columns = ragas_columns()
    return EvaluationResult.from_ragas(samples(**columns), repeats={"judge": list(columns)}, progress=False, **extra)


def runs_file(tmp_path, scores: list) -> str:
    lines = []
    for i, query in enumerate(QUERIES):
        line = {"query": query, "gold": {"contexts": [f"gold text {query}"], "answers": [f"answer {query}"]},
                "nodes": {"Retriever": {"documents": [{"id": f"{query}-d", "content": f"gold text {query}"}]},
                          "Generator": {"answers": [{"answer": "wrong"}]}}}
        if scores[i] is not None:
            line["scores"] = {"Generator": {"judge": scores[i]}}
        lines.append(json.dumps(line, allow_nan=True).replace("NaN", "null"))
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def per_query(result: EvaluationResult, node: str = "Generator") -> tuple[list, list]:
    """The repetitions and the mean of each query of QUERIES, by query text."""
    frame = result[node].drop_duplicates("multilabel_id").set_index("query").loc[QUERIES]
    lists = [None if cell is None else list(cell) for cell in frame["repeats.judge"]]
    return lists, frame["scores.judge"].tolist()


def long_table() -> pd.DataFrame:
    rows = [(query, j, value) for query, cell in zip(QUERIES, GIVEN) for j, value in enumerate(cell or [], start=1)]
    return pd.DataFrame(rows, columns=["query", "rep", "judge"])


def test_each_way_in_keeps_the_same_repetitions_and_means(tmp_path):
    by_ragas = from_ragas()
    labels, outputs = read_runs(runs_file(tmp_path, GIVEN))
    by_runs = EvaluationResult.from_runs(labels, outputs, progress=False)
    by_table = EvaluationResult.from_ragas(samples(), progress=False)
    by_table.add_scores("Generator", long_table(), repetition="rep")
    for result in (by_ragas, by_runs, by_table):
        lists, means = per_query(result)
        assert lists == KEPT
        assert means == pytest.approx(MEANS, nan_ok=True, abs=1e-15)
        assert result.calculate_metrics()["Generator"]["judge"] == pytest.approx((0.5 + 0.2 + 0.9) / 3, abs=1e-15)
        assert result.query_metrics("Generator", with_query=True).set_index("query").loc[QUERIES, "judge"].tolist() \
            == pytest.approx(MEANS, nan_ok=True, abs=1e-15)


@pytest.mark.parametrize("fmt, partitions", [("csv", None), ("parquet", None), ("parquet", 2)])
def test_save_and_load_keep_the_repetitions(tmp_path, fmt, partitions):
    result = from_ragas()
    loaded = EvaluationResult.load(result.save(tmp_path / "out", format=fmt, partitions=partitions))
    lists, means = per_query(loaded)
    assert lists == KEPT
    assert means == pytest.approx(MEANS, nan_ok=True, abs=1e-15)
    assert loaded.judge_noise("Generator").loc["judge", "repetitions"] == 5


def test_the_mean_always_reflects_the_repetitions():
    result = from_ragas()
    frame = result["Generator"].copy()
    first = frame["query"] == "q2"
    frame.loc[first, "repeats.judge"] = pd.Series([[0.2, 0.4]] * int(first.sum()), index=frame.index[first])
    result["Generator"] = frame
    with pytest.raises(SchemaError, match=r"column 'scores.judge', row \d+ of its frame, holds 0.2, which is not the "
                                          r"mean \(0.30000000000000004\) of the repetitions in column 'repeats.judge'"):
        result.calculate_metrics()
    frame.loc[first, "scores.judge"] = 0.3
    result["Generator"] = frame
    assert result.calculate_metrics()["Generator"]["judge"] == pytest.approx((0.5 + 0.3 + 0.9) / 3, abs=1e-15)


def test_adding_the_score_again_without_repetitions_drops_them():
    result = from_ragas()
    result.add_scores("Generator", pd.DataFrame({"query": QUERIES[:2], "judge": [0.1, 0.3]}))
    assert "repeats.judge" not in result["Generator"].columns
    assert result.calculate_metrics()["Generator"]["judge"] == pytest.approx(0.2, abs=1e-15)


def test_compare_tests_the_per_query_means():
    from scipy import stats

    a = from_ragas()
    b = EvaluationResult.from_ragas(samples(), progress=False)
    table = pd.DataFrame({"query": ["q1", "q1", "q2", "q2", "q3", "q3"], "rep": [1, 2] * 3,
                          "judge": [1.0, 1.0, 0.3, 0.5, 0.4, 0.8]})  # means 1.0, 0.4, 0.6
    b.add_scores("Generator", table, repetition="rep")
    row = compare(a, b, node="Generator", metrics="judge", rounds=200).loc["judge"]
    assert row["delta"] == pytest.approx((0.5 + 0.2 - 0.3) / 3, abs=1e-15)
    assert row["queries"] == 3
    assert row["p_ttest"] == pytest.approx(stats.ttest_rel([1.0, 0.4, 0.6], [0.5, 0.2, 0.9]).pvalue, abs=1e-12)
    assert (row["wins"], row["losses"]) == (2, 1)


def repeated(values: list[list[float]], direction: str = "higher") -> EvaluationResult:
    result = EvaluationResult.from_ragas(samples(), progress=False)
    rows = [(query, j, v) for query, cell in zip(QUERIES, values) for j, v in enumerate(cell)]
    result.add_scores("Generator", pd.DataFrame(rows, columns=["query", "rep", "judge"]), repetition="rep",
                      direction=direction)
    return result


def enumerated(cells: list[list[float]], passes, k: int) -> tuple[float, float]:
    """pass@k and pass^k by drawing every k of each query's repetitions (no formula)."""
    at, every = [], []
    for cell in cells:
        draws = list(itertools.combinations(cell, k))
        at.append(sum(any(map(passes, d)) for d in draws) / len(draws))
        every.append(sum(all(map(passes, d)) for d in draws) / len(draws))
    return sum(at) / len(at), sum(every) / len(every)


def test_pass_at_k_and_pass_hat_k_hand_values():
    cells = [[1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 0.2, 1.0]]  # n=5, c=3; n=3, c=1 (threshold 1)
    result = repeated(cells)
    got = result.pass_at_k("Generator", "judge", threshold=1.0, k=2)
    # q1: 1 - C(2,2)/C(5,2) = 0.9, C(3,2)/C(5,2) = 0.3; q2: 1 - C(2,2)/C(3,2) = 2/3, C(1,2) = 0
    assert got["k"] == 2 and got["queries"] == 2
    assert got["pass@k"] == pytest.approx((0.9 + 2 / 3) / 2, abs=1e-12)
    assert got["pass^k"] == pytest.approx(0.3 / 2, abs=1e-12)
    assert (got["pass@k"], got["pass^k"]) == pytest.approx(enumerated(cells, lambda v: v >= 1.0, 2), abs=1e-12)
    default = result.pass_at_k("Generator", "judge", threshold=0.2)  # k: the fewest repetitions, 3
    assert default["k"] == 3
    assert (default["pass@k"], default["pass^k"]) == pytest.approx(enumerated(cells, lambda v: v >= 0.2, 3), abs=1e-12)
    one = result.pass_at_k("Generator", "judge", threshold=1.0, k=1)  # pass@1 = pass^1 = c / n
    assert one["pass@k"] == one["pass^k"] == pytest.approx((3 / 5 + 1 / 3) / 2, abs=1e-12)
    lower = repeated(cells, direction="lower").pass_at_k("Generator", "judge", threshold=0.0, k=2)  # v <= 0 passes
    assert (lower["pass@k"], lower["pass^k"]) == pytest.approx(enumerated(cells, lambda v: v <= 0.0, 2), abs=1e-12)


def test_judge_noise_hand_values_unbalanced():
    from scipy import stats

    cells = [[1.0, 2.0, 3.0], [4.0, 6.0], [5.0]]
    got = repeated(cells).judge_noise("Generator", "judge").loc["judge"]
    # a = 3, N = 6; means 2, 5, 5, grand mean 3.5; SSB = 13.5, MSB = 27/4; SSW = 4, MSW = 4/3; n0 = (6 - 14/6) / 2
    msb, msw, n0 = Fraction(27, 4), Fraction(4, 3), Fraction(11, 6)
    between = (msb - msw) / n0  # 65/22
    assert (got["queries"], got["repetitions"], got["k_min"], got["k_max"]) == (3, 6, 1, 3)
    assert got["mean"] == pytest.approx(4.0, abs=1e-12)  # (2 + 5 + 5) / 3
    assert got["between_variance"] == pytest.approx(float(between), abs=1e-12)
    assert got["within_variance"] == pytest.approx(float(msw), abs=1e-12)
    assert got["noise_share"] == pytest.approx(float(msw / (between + msw)), abs=1e-12)  # 88/283
    assert got["icc"] == pytest.approx(float((msb - msw) / (msb + (n0 - 1) * msw)), abs=1e-12)  # 195/283
    assert got["judge_se"] == pytest.approx(math.sqrt(float(msw) * (1 / 3 + 1 / 2 + 1) / 9), abs=1e-12)
    assert float(msb / msw) == pytest.approx(stats.f_oneway(*cells).statistic, abs=1e-12)  # scipy's F = MSB / MSW


def test_judge_noise_of_a_score_without_repetitions():
    result = EvaluationResult.from_ragas(samples(judge=[0.1, 0.5, None, 0.9]), progress=False)
    got = result.judge_noise("Generator").loc["judge"]
    assert (got["queries"], got["k_max"]) == (3, 1)
    assert math.isnan(got["within_variance"]) and math.isnan(got["noise_share"])


def test_bad_ragas_repetitions_are_named():
    columns = ragas_columns()
    with pytest.raises(InvalidParameterError, match=r"repeats\['judge'\] names column 'judge_4', which is no column"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge": ["judge_1", "judge_4"]}, progress=False)
    with pytest.raises(InvalidParameterError, match=r"repeats\['judge'\] names column 'judge_1', named before by "
                                                    r"repeats\['judge'\]"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge": ["judge_1", "judge_1"]}, progress=False)
    with pytest.raises(InvalidParameterError, match=r"repeats\['judge'\] names no column: .* k >= 1"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge": []}, progress=False)
    with pytest.raises(InvalidParameterError, match=r"repeats\['other'\] names column 'judge_2', named before by "
                                                    r"repeats\['judge'\]"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge": ["judge_1", "judge_2"], "other": ["judge_2"]},
                                    progress=False)
    with pytest.raises(InvalidParameterError, match=r"repeats names score 'judge_3', which is also a column"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge_3": ["judge_1", "judge_2"]}, progress=False)
    columns["judge_2"][1] = "high"
    with pytest.raises(EvalframeError, match=r"row 2, column 'judge_2' must be a number .*got 'high'"):
        EvaluationResult.from_ragas(samples(**columns), repeats={"judge": list(columns)}, progress=False)


def test_bad_repetition_tables_are_named():
    result = EvaluationResult.from_ragas(samples(), progress=False)
    table = long_table()
    with pytest.raises(InvalidParameterError, match=r"repetition='run' names no column of the table"):
        result.add_scores("Generator", table, repetition="run")
    twice = table.assign(rep=[1, 1, 3, 1, 2, 3, 1][: len(table)])
    with pytest.raises(InvalidParameterError, match=r"table row 1 \(index 0\) and add_scores: table row 2 \(index 1\) "
                                                    r"give repetition 1 of one query \(query 'q1'\)"):
        result.add_scores("Generator", twice, repetition="rep")
    with pytest.raises(InvalidParameterError, match=r"table row 3 \(index 2\), column 'judge' must be a number"):
        result.add_scores("Generator", table.assign(judge=[0.5, 1.0, "x"] + [0.2] * (len(table) - 3)),
                          repetition="rep")
    with pytest.raises(InvalidParameterError, match=r"table row 2 \(index 1\), column 'rep': no repetition given"):
        result.add_scores("Generator", table.assign(rep=[1, None] + [3] * (len(table) - 2)), repetition="rep")


def test_bad_runs_repetitions_are_named(tmp_path):
    with pytest.raises(LoadError, match=r"runs.jsonl:1: score 'judge' of node 'Generator', repetition 2 must be a "
                                        r"number .*got 'high'"):
        read_runs(runs_file(tmp_path, [[0.5, "high"], None, None, None]))
    labels, outputs = read_runs(runs_file(tmp_path, [[0.5, 0.7], 0.4, None, None]))
    with pytest.raises(InvalidParameterError, match=r"labels\[0\].scores\['Generator'\]\['judge'\] gives a list of "
                                                    r"repetitions \(\[0.5, 0.7\]\) and labels\[1\].scores\['Generator'\]"
                                                    r"\['judge'\] one value \(0.4\)"):
        EvaluationResult.from_runs(labels, outputs, progress=False)
    with pytest.raises(InvalidParameterError, match=r"runs.jsonl:1.* gives a list of repetitions .*runs.jsonl:2"):
        read_runs_file(runs_file(tmp_path, [[0.5, 0.7], 0.4, None, None]), progress=False)


def test_bad_pass_at_k_parameters_are_named():
    result = repeated([[1.0, 0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(InvalidParameterError, match=r"k must be an integer >= 1 .*got 0"):
        result.pass_at_k("Generator", "judge", threshold=1.0, k=0)
    with pytest.raises(InvalidParameterError, match=r"threshold must be a finite number .*got nan"):
        result.pass_at_k("Generator", "judge", threshold=float("nan"))
    with pytest.raises(InvalidParameterError, match=r"k=3 exceeds the 2 repetition\(s\) of score 'judge' of query "
                                                    r"'.*' .*k can be at most 2"):
        result.pass_at_k("Generator", "judge", threshold=1.0, k=3)
    with pytest.raises(InvalidParameterError, match=r"score 'jduge' is no score of node 'Generator'"):
        result.pass_at_k("Generator", "jduge", threshold=1.0)
    counted = repeated([[1.0], [2.0]], direction="none")
    with pytest.raises(InvalidParameterError, match=r"declared direction='none': neither way is better"):
        counted.pass_at_k("Generator", "judge", threshold=1.0)


def test_the_report_says_the_judge_noise_of_a_score_with_repetitions():
    result = repeated([[1.0, 2.0, 3.0], [4.0, 6.0], [5.0]])  # the unbalanced case above: 88/283 noise, ICC 195/283
    report = result.report(charts=False)
    line = ("judge of Generator: the mean of 1 to 3 judge runs per query (6 values); the judge's noise is 31.1% of a "
            "judgement's variance (ICC(1) 0.689), a standard error of 0.5212 on the mean.")
    assert f"[judge runs] {line}" in report.text
    assert line in report.markdown and line.replace("'", "&#x27;") in report.html
    assert report.to_dict()["repeats"] == line
    assert repeated([[1.0], [2.0]]).report(charts=False).to_dict()["repeats"] == ""  # one run each: nothing to say


def test_numbered_score_columns_without_repeats_are_warned_about_not_guessed():
    columns = ragas_columns()
    with pytest.warns(UserWarning, match=r"the score columns 'judge_1', 'judge_2', 'judge_3' are numbered alike: each "
                                         r"is read as a score of its own; .*repeats=\{'judge': \['judge_1', 'judge_2', "
                                         r"'judge_3'\]\}"):
        result = EvaluationResult.from_ragas(samples(**columns), progress=False)
    assert {"judge_1", "judge_2", "judge_3"} <= set(result.scores) and "judge" not in result.scores


@pytest.mark.stress
def test_the_noise_decomposition_equals_statsmodels_anova_on_random_unbalanced_designs():
    import numpy as np
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    from evalframe.analysis.repeats import noise_decomposition

    rng = np.random.default_rng(37)
    for _ in range(100):
        lengths = rng.integers(1, 6, rng.integers(3, 12))
        values = np.repeat(rng.normal(0, 1, len(lengths)), lengths) + rng.normal(0, 0.5, lengths.sum())
        if lengths.sum() == len(lengths):
            continue
        frame = pd.DataFrame({"y": values, "q": np.repeat(np.arange(len(lengths)), lengths).astype(str)})
        table = anova_lm(smf.ols("y ~ C(q)", data=frame).fit())
        msb, msw = table.loc["C(q)", "mean_sq"], table.loc["Residual", "mean_sq"]
        n, a = lengths.sum(), len(lengths)
        n0 = (n - (lengths ** 2).sum() / n) / (a - 1)
        got = noise_decomposition(values, lengths)
        assert got["within_variance"] == pytest.approx(msw, rel=1e-9)
        assert got["between_variance"] == pytest.approx(max((msb - msw) / n0, 0.0), rel=1e-9, abs=1e-12)
        assert got["icc"] == pytest.approx((msb - msw) / (msb + (n0 - 1) * msw), rel=1e-9)


@pytest.mark.parametrize("label, shown", [([1], r"list \[1\]"), ((1, [2]), r"tuple \(1, \[2\]\)")])
def test_a_repetition_labelled_by_a_list_is_refused_naming_row_and_column(label, shown):
    from evalframe import load_demo_result

    result = load_demo_result()
    first = result.query_metrics("Reader").index[0]
    table = pd.DataFrame({"multilabel_id": [first], "run": [label], "judge": [0.5]})
    with pytest.raises(InvalidParameterError, match=r"add_scores: table row 1 .*column 'run': a repetition is labelled "
                                                    rf"by a number or a text; got {shown}"):
        result.add_scores("Reader", table, repetition="run")
