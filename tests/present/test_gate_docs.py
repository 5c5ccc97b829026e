"""docs/ci.md's GitHub Actions workflow: valid YAML, and every evalframe command in it parses with the command's
parser (``log`` and ``history`` once their commands are there), the gate's with the flags the page describes."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from evalframe.present.parsers import build

yaml = pytest.importorskip("yaml")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def _workflow() -> dict:
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"## In a GitHub Actions workflow.*?```yaml\n(.*?)```", text, re.S)
    assert block is not None, "docs/ci.md has no yaml block in its workflow section"
    return yaml.safe_load(block.group(1))


def _commands() -> list[list[str]]:
    steps = [step for job in _workflow()["jobs"].values() for step in job["steps"]]
    found = []
    for step in steps:
        run = step.get("run")
        if not run:
            continue
        tokens = shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "x", run), comments=True)
        if tokens and tokens[0] == "evalframe":
            found.append(tokens[1:])
    return found


def test_the_workflow_is_yaml_with_the_steps_the_page_describes():
    workflow = _workflow()
    steps = workflow["jobs"]["evaluate"]["steps"]
    assert [step.get("name") for step in steps if step.get("name")] == [
        "evaluate", "gate against main's last run", "log the run", "keep the verdict"]  # gated before it is logged
    assert steps[-1]["uses"].startswith("actions/upload-artifact") and steps[-1]["if"] == "always()"
    assert workflow["jobs"]["evaluate"]["env"]["EVALFRAME_STORE"].startswith("s3://")


def test_its_evalframe_commands_parse():
    parser, commands = build()
    found = _commands()
    assert [argv[0] for argv in found] == ["gate", "log"]
    parsed = 0
    for argv in found:
        if argv[0] not in commands:  # evalframe log: the history store's command, parsed once it is there
            assert argv[0] in ("log", "history")
            continue
        args = parser.parse_args(argv)
        parsed += 1
        if argv[0] == "gate":
            assert args.baseline == "@last:main" and str(args.candidate) == "results"
            assert args.no_drop == ["ndcg", "recall_single_hit"] and args.margin == ["mrr=0.02"]
            assert args.minimum == ["recall_single_hit=0.8"] and args.github_summary
            assert [str(args.markdown), str(args.junit), str(args.json)] == ["gate.md", "gate.xml", "gate.json"]
    assert parsed >= 1


def test_the_parsers_names_agree_with_the_library():
    from evalframe.analysis.gate import GATE_TESTS
    from evalframe.present.parsers import GATE_FORMAT_NAMES, GATE_TEST_NAMES
    from evalframe.report.verdict import VERDICT_FORMATS

    assert GATE_FORMAT_NAMES == VERDICT_FORMATS and GATE_TEST_NAMES == GATE_TESTS


def test_the_workflows_gate_runs_against_a_store(tmp_path, monkeypatch, capsys):
    history = pytest.importorskip("evalframe.present.history")
    from evalframe import load_demo_result
    from evalframe.present.cli import main

    result = load_demo_result()
    history.History(tmp_path / "store").log(result, name="main")
    result.save(tmp_path / "results", progress=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVALFRAME_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    gate = next(argv for argv in _commands() if argv[0] == "gate")
    code = main(gate)
    out, err = capsys.readouterr()
    assert code == 0, err  # the demo against itself: no drop, within the margin, recall 0.875 above 0.8
    assert out.splitlines()[-1] == "verdict: PASS (exit 0): 4 of 4 rules passed"
    assert all((tmp_path / name).is_file() for name in ("gate.md", "gate.xml", "gate.json", "summary.md"))


def test_the_workflow_installs_extras_there_are():
    import tomllib

    extras = tomllib.loads((PAGE.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]
    installs = [step["run"] for step in _workflow()["jobs"]["evaluate"]["steps"] if "pip install" in step.get("run", "")]
    named = [extra for run in installs for group in re.findall(r"evalframe\[([^\]]*)\]", run) for extra in group.split(",")]
    assert named and all(extra in extras for extra in named), (named, sorted(extras))
    assert "cloud" in named  # the store is an s3:// URL: s3fs
