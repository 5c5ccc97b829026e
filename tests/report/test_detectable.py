"""The comparative report's line per measure (issue 37): which change a two-run comparison's queries detect, from
evalframe.power on the per-query differences, in every format and on the command line. Hand-worked on runs A and B of
tests/present/compare_fixtures.py: mrr B - A per query [-1/2, 1/2, 0, 1], sd sqrt(5/12), 4 queries; the detectable
change is the effect size whose power (statsmodels' TTestPower().power, or the noncentral t integrated from its
definition where that is NaN: tests/analysis/test_power.py) is the asked one, times that sd. (statsmodels'
solve_power is off on 4 queries: 4.01 for the root 4.338 at alpha 0.01, power 0.9.)"""

from __future__ import annotations

import functools
import json
import math

import pytest
from scipy import optimize

from evalframe import compare_report
from evalframe.errors import InvalidParameterError
from evalframe.present.cli import main
from tests.analysis.test_power import reference_power
from tests.present.compare_fixtures import run_result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    return {name: run_result(name, folder) for name in "ABC"}


@functools.lru_cache
def detectable(n: int, alpha: float, power: float, sd: float) -> float:
    return optimize.brentq(lambda effect: reference_power(effect, n, alpha) - power, 1.0, 6.0, xtol=1e-13) * sd


SD = math.sqrt(5 / 12)


def test_the_line_in_text_markdown_html_and_json(runs):
    report = compare_report({"A": runs["A"], "B": runs["B"]}, metrics="mrr", rounds=50)
    mde = detectable(4, 0.05, 0.8, SD)
    line = (f"with 4 questions a change of {mde:.3g} in mrr would be detected 80% of the time (paired t-test, "
            "alpha 0.05)")
    assert f"  {line}" in report.text.splitlines()
    assert f"- {line}" in report.markdown.splitlines()
    assert f"<li>{line}</li>" in report.html
    measures = json.loads(report.to_json())["nodes"][0]["measures"]
    assert measures[0]["detectable"]["queries"] == 4 and measures[0]["detectable"]["power"] == 0.8
    assert measures[0]["detectable"]["mde"] == pytest.approx(mde, rel=1e-9)
    # a run against itself: every difference 0, said so
    same = compare_report({"A": runs["A"], "again": runs["A"]}, metrics="mrr", rounds=50)
    assert ("  mrr: no detectable change estimated (paired t-test, alpha 0.05; every paired query's difference is 0: "
            "sd 0, no spread to plan from)") in same.text.splitlines()
    assert json.loads(same.to_json())["nodes"][0]["measures"][0]["detectable"]["mde"] is None


def test_power_and_max_p_of_the_line(runs):
    report = compare_report([runs["A"], runs["B"]], metrics="mrr", power=0.9, max_p=0.01, rounds=50)
    mde = detectable(4, 0.01, 0.9, SD)
    assert (f"with 4 questions a change of {mde:.3g} in mrr would be detected 90% of the time (paired t-test, "
            "alpha 0.01)") in report.text
    three = compare_report([runs["A"], runs["B"], runs["C"]], metrics="mrr", rounds=50)
    assert "would be detected" not in three.text and three.model.nodes[0].measures[0].detectable is None


@pytest.mark.parametrize("power, match", [(1.5, r"power must be a probability in \(max_p, 1\) = \(0.05, 1\)"),
                                          (0.01, r"power must be a probability in \(max_p, 1\)"),
                                          ("0.8", r"got '0.8'")])
def test_bad_power_named(runs, power, match):
    with pytest.raises(InvalidParameterError, match=match) as caught:
        compare_report([runs["A"], runs["B"]], metrics="mrr", power=power)
    assert caught.value.parameter == "power"


def test_the_command_takes_power(runs, tmp_path, capsys):
    folders = [str(runs[name].save(tmp_path / name)) for name in "AB"]
    assert main(["report", *folders, "--metric", "mrr", "--power", "0.95"]) == 0
    mde = detectable(4, 0.05, 0.95, SD)
    assert f"a change of {mde:.3g} in mrr would be detected 95% of the time" in capsys.readouterr().out
    assert main(["report", folders[0], "--power", "0.9"]) == 1
    assert "--power is for a comparison of two runs or more" in capsys.readouterr().err
