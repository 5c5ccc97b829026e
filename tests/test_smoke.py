"""The smoke subset (``python -m pytest -m smoke``, README.md): tests/conftest.py's ``SMOKE`` names tests that are
there, read from their files (a renamed or removed test would leave the subset short, silently)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import SMOKE

ROOT = Path(__file__).resolve().parent.parent


def test_the_smoke_list_names_tests_there_are():
    missing = []
    for entry in SMOKE:
        path, _, name = entry.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        if name.split("[", 1)[0] not in functions:
            missing.append(entry)
    assert not missing, f"tests/conftest.py SMOKE names tests that are not there: {missing}"
    assert len(set(SMOKE)) == len(SMOKE)
    stages = {entry.split("/")[1] for entry in SMOKE if entry.count("/") > 1}
    assert {"metrics", "frames", "sources", "analysis", "io", "evaluators", "report", "present"} <= stages


def test_the_readme_and_ci_name_the_subsets():
    """README.md names the smoke subset's and the stress tests' commands; .ci/run runs the stress tests in full and its
    pandas 2.2 subset names paths that are there (a folded or moved test folder would leave it short, or fail CI)."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pytest -m smoke" in readme and "python -m pytest -m stress" in readme
    command = re.search(r"^pip install -e '\.\[test\]' && (python -m pytest.*)$", readme, re.MULTILINE)
    assert command is not None and command.group(1) == "python -m pytest -n 2"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI runs the README's command (two processes), then the stress tests in full
    assert re.search(r"^python -m pytest -q -p no:cacheprovider -n 2$", ci, re.MULTILINE)
    assert re.search(r"^python -m pytest -q -p no:cacheprovider -m stress\b", ci, re.MULTILINE)
    subset = re.search(r"^subset=\((.*?)\)", ci, re.MULTILINE | re.DOTALL)
    assert subset is not None
    paths = shlex.split(subset.group(1))
    assert len(paths) >= 5
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f".ci/run's pandas 2.2 subset names paths that are not there: {missing}"
