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
