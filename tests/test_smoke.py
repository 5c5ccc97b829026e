"""The smoke subset (``python -m pytest -m smoke``, README.md): tests/conftest.py's ``SMOKE`` names tests that are
there, read from their files (a renamed or removed test would leave the subset short, silently)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import CLUSTER_SMOKE, SMOKE

ROOT = Path(__file__).resolve().parent.parent


def _missing(entries: tuple[str, ...]) -> list[str]:
    missing = []
    for entry in entries:
        path, _, name = entry.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        if name.split("[", 1)[0] not in functions:
            missing.append(entry)
    return missing


def test_the_smoke_list_names_tests_there_are():
    missing = _missing(SMOKE)
    assert not missing, f"tests/conftest.py SMOKE names tests that are not there: {missing}"
    assert len(set(SMOKE)) == len(SMOKE)
    stages = {entry.split("/")[1] for entry in SMOKE if entry.count("/") > 1}
    assert {"metrics", "frames", "sources", "analysis", "io", "evaluators", "report", "present"} <= stages


def test_the_cluster_tests_kept_are_tests_there_are():
    """CLUSTER_SMOKE (the cluster tests the README's command keeps) names tests that are there, one of each file of
    tests/dask/ that has cluster tests among them (a renamed test would drop its feature from the command silently)."""
    missing = _missing(CLUSTER_SMOKE)
    assert not missing, f"tests/conftest.py CLUSTER_SMOKE names tests that are not there: {missing}"
    assert len(set(CLUSTER_SMOKE)) == len(CLUSTER_SMOKE)
    kept = {entry.split("::")[0] for entry in CLUSTER_SMOKE}
    files = {"build", "cli", "compare_all_pairs", "compare_tests", "from_trec", "partition_checks", "power", "remote",
             "repeats", "result", "scores"}
    assert {f"tests/dask/test_{name}.py" for name in files} <= kept


def test_the_readme_and_ci_name_the_subsets():
    """README.md names the smoke subset's and the stress tests' commands; .ci/run runs the stress tests in full and its
    pandas 2.2 subset names paths that are there (a folded or moved test folder would leave it short, or fail CI)."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pytest -m smoke" in readme and "python -m pytest -m stress" in readme
    assert "python -m pytest -n 2 -m 'cluster and not stress'" in readme
    command = re.search(r"^pip install -e '\.\[test\]' && (python -m pytest.*)$", readme, re.MULTILINE)
    assert command is not None and command.group(1) == "python -m pytest -n 2"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI runs the README's command (two processes), then the stress tests in full
    assert re.search(r"^python -m pytest -q -p no:cacheprovider -n 2$", ci, re.MULTILINE)
    assert re.search(r"^python -m pytest -q -p no:cacheprovider -m stress\b", ci, re.MULTILINE)
    assert re.search(r"^python -m pytest -q -p no:cacheprovider -n 2 -m 'cluster and not stress'$", ci, re.MULTILINE)
    subset = re.search(r"^subset=\((.*?)\)", ci, re.MULTILINE | re.DOTALL)
    assert subset is not None
    paths = shlex.split(subset.group(1))
    assert len(paths) >= 5
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f".ci/run's pandas 2.2 subset names paths that are not there: {missing}"
