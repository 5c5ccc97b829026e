"""render_verdict: the gate's verdict in text, markdown, junit and json, per rule status (pass, fail, undecided).

The numbers asserted are worked out independently: the p-values with scipy.stats.ttest_rel(alternative='less'), the
bounds with scipy.stats.t.ppf, the means by hand.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalframe.analysis.gate import decide, rules_of
from evalframe.errors import InvalidParameterError
from evalframe.report.verdict import VERDICT_FORMATS, render_verdict

HOSTILE_QUERY = "Who | wins *now* <img src=x onerror=alert(1)> `x` \x1b[2J?"
IDS = ["q|1", "q2", "q3", "q4", "q5", "q6"]
BASE = np.array([1.0, 0.5, 1.0, 0.5, 1.0, 0.25])
CAND = np.array([0.5, 0.5, 0.5, 0.25, 1.0, 0.25])  # gains -0.5, 0, -0.5, -0.25, 0, 0


def _tables(ids=IDS, base=BASE, cand=CAND):
    index = pd.Index(ids, name="multilabel_id")
    return pd.DataFrame({"mrr": base}, index=index), pd.DataFrame({"mrr": cand}, index=index)


def _texts():
    return pd.Series([HOSTILE_QUERY] + [f"question {i}" for i in range(2, 7)], index=IDS)


@pytest.fixture
def failing():
    base, cand = _tables()
    return decide(base, cand, rules_of(no_drop="mrr", margin={"mrr": 0.5}, minimum={"mrr": 0.9}),
                  names=("main|<b>", "feature*x*"), texts=_texts())


@pytest.fixture
def passing():
    base, cand = _tables()
    return decide(base, cand, rules_of(margin={"mrr": 0.5}, minimum={"mrr": 0.4}), names=("main", "feature"))


@pytest.fixture
def undecided():
    base, cand = _tables()
    return decide(base, cand.iloc[:5], rules_of(no_drop="mrr"), names=("main", "feature"))


P_DROP = stats.ttest_rel(CAND, BASE, alternative="less").pvalue  # 0.04626
SE = np.std(CAND - BASE, ddof=1) / math.sqrt(6)
LOWER = (CAND - BASE).mean() - stats.t.ppf(0.95, 5) * SE  # -0.4105


def test_text_fail_lists_each_rule_the_worst_queries_and_ends_with_the_exit_code(failing):
    text = render_verdict(failing, "text")
    lines = text.splitlines()
    assert lines[0] == "evalframe gate: candidate 'feature*x*' against baseline 'main|<b>'"
    assert "questions: baseline 6, candidate 6, common 6; alpha 0.05, t-test, correction holm" in lines[1]
    rule_lines = [line for line in lines if line.startswith("  --")]
    assert [line.split()[0:3] for line in rule_lines] == [["--no-drop", "mrr", "FAIL"], ["--margin", "mrr=0.5", "PASS"],
                                                          ["--min", "mrr=0.9", "FAIL"]]
    assert f"p {P_DROP:.4g}" in rule_lines[0] and "delta -0.2083" in rule_lines[0]
    assert f"[{LOWER:.4f}," in rule_lines[1]
    assert "candidate 0.5000" in rule_lines[2]
    assert "worst regressed queries:" in lines
    worst = lines[lines.index("worst regressed queries:") + 2:-1]
    assert [line.split()[1] for line in worst] == ["q|1", "q3", "q4"]  # drops 0.5, 0.5, 0.25, in baseline order
    assert "\x1b" not in text and "␛[2J" in text  # a control character shown as its picture
    assert lines[-1] == "verdict: FAIL (exit 1): 2 of 3 rules failed"


def test_text_pass_and_undecided(passing, undecided):
    assert render_verdict(passing).splitlines()[-1] == "verdict: PASS (exit 0): 2 of 2 rules passed"
    text = render_verdict(undecided)
    assert "cannot decide: 1 questions differ" in text or "cannot decide: 1 question differs" in text
    assert "UNDECIDED" in text
    assert text.splitlines()[-1] == "verdict: UNDECIDED (exit 2): the gate could not decide"


def test_markdown_escapes_run_names_query_ids_and_texts(failing):
    text = render_verdict(failing, "markdown")
    assert text.startswith("### evalframe gate: FAIL (exit 1): 2 of 3 rules failed\n")
    assert "**main\\|\\<b\\>**" in text and "**feature\\*x\\*\\***" not in text and "feature\\*x\\*" in text
    assert "\\<img src=x onerror=alert(1)\\>" in text and "<img" not in text.replace("\\<img", "")
    assert "\x1b" not in text
    assert "| q\\|1 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| --")]
    assert len(rows) == 3
    for row in rows:  # every row of the rules' table has the header's 10 cells: no | of the user's ends one early
        assert len([cell for cell in row.replace("\\|", "").split("|")[1:-1]]) == 10
    assert "❌ fail" in rows[0] and "✅ pass" in rows[1] and "❌ fail" in rows[2]
    assert f"| {P_DROP:.4g} |" in rows[0]


def test_markdown_undecided_says_why(undecided):
    text = render_verdict(undecided, "markdown")
    assert "**Cannot decide:**" in text and "⚠️ undecided" in text and "--on-common" in text


def test_junit_is_valid_xml_with_a_case_per_rule(failing, passing, undecided):
    suite = ET.fromstring(render_verdict(failing, "junit").encode("utf-8"))
    assert suite.tag == "testsuite" and suite.get("name") == "evalframe gate"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("3", "2", "0", "0")
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == ["--no-drop mrr", "--margin mrr=0.5", "--min mrr=0.9"]
    assert {case.get("classname") for case in cases} == {"evalframe.gate"}
    assert [case.find("failure") is not None for case in cases] == [True, False, True]
    assert "p 0.0463 <= alpha 0.05" in cases[0].find("failure").get("message")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["baseline"] == "main|<b>" and properties["exit_code"] == "1"

    suite = ET.fromstring(render_verdict(passing, "junit"))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")
    assert all(case.find("failure") is None and case.find("error") is None for case in suite.findall("testcase"))

    suite = ET.fromstring(render_verdict(undecided, "junit"))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "1")
    error = suite.find("testcase").find("error")
    assert error is not None and "questions differ" in error.get("message")


def test_junit_control_characters_of_names_stay_valid_xml():
    base, cand = _tables()
    verdict = decide(base, cand, rules_of(no_drop="mrr"), names=("a\x00b", "c\x1bd"))
    suite = ET.fromstring(render_verdict(verdict, "junit"))
    assert {p.get("name"): p.get("value") for p in suite.find("properties")}["baseline"] == "a␀b"


def test_json_holds_the_numbers_nan_as_null(failing, undecided):
    data = json.loads(render_verdict(failing, "json"))
    assert (data["status"], data["exit_code"], data["baseline"], data["candidate"]) == ("fail", 1, "main|<b>", "feature*x*")
    assert data["questions"] == {"baseline": 6, "candidate": 6, "common": 6, "differ": 0, "on_common": False}
    drop, margin, floor = data["rules"]
    assert drop["rule"] == "--no-drop mrr" and drop["kind"] == "no-drop" and drop["value"] is None
    assert drop["p_value"] == pytest.approx(P_DROP, rel=1e-9) and drop["p_adjusted"] == pytest.approx(P_DROP, rel=1e-9)
    assert drop["delta"] == pytest.approx(-1.25 / 6) and drop["queries"] == 6
    assert margin["status"] == "pass" and margin["low"] == pytest.approx(LOWER)
    assert floor["status"] == "fail" and floor["p_value"] is None and floor["baseline"] is None
    assert floor["candidate"] == pytest.approx(0.5)
    assert [row["query"] for row in data["worst"]] == ["q|1", "q3", "q4"]
    assert data["worst"][0]["text"] == HOSTILE_QUERY and data["worst"][0]["delta"] == -0.5
    data = json.loads(render_verdict(undecided, "json"))
    assert data["status"] == "undecided" and data["exit_code"] == 2 and data["questions"]["differ"] == 1
    assert data["message"]


def test_every_format_is_rendered_and_an_unknown_one_refused(passing):
    assert all(render_verdict(passing, fmt) for fmt in VERDICT_FORMATS)
    with pytest.raises(InvalidParameterError, match=r"fmt must be one of \['text', 'markdown', 'junit', 'json'\]; got 'xml'"):
        render_verdict(passing, "xml")
