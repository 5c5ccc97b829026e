"""pyarrow is a core dependency (issue 36): ``pip install .`` brings it, and no module keeps a lazy import of it beside
a fallback for when it is missing (the one lazy import left: pyarrow.parquet in the source sniffer, for start-up)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from tests.layout.graph import nodes_of, package_sources

ROOT = Path(__file__).resolve().parent.parent
#: The lazy pyarrow imports kept, and why: (module, imported name).
KEPT_LAZY = {("evalframe/sources/catalog.py", "pyarrow.parquet")}  # 0.2 s, for a .parquet file only


def _modules() -> list[tuple[str, Path]]:
    """Every module under evalframe/ (its path as written, and its file: parsed once, tests/layout/graph.py)."""
    return [(path.relative_to(ROOT).as_posix(), path) for path in package_sources()]


def _lazy_pyarrow() -> set[tuple[str, str]]:
    found = set()
    for name_of_path, path in _modules():
        stack: list[tuple[ast.AST, bool]] = [(package_sources()[path][1], False)]
        while stack:  # each node once, knowing whether a function holds it
            node, inside = stack.pop()
            inside |= isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            stack.extend((child, inside) for child in ast.iter_child_nodes(node))
            if not inside:
                continue
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found |= {(name_of_path, name) for name in names if name == "pyarrow" or name.startswith("pyarrow.")}
    return found


def test_pyarrow_is_a_core_dependency():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib")
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0] for requirement in project["dependencies"]}
    assert "pyarrow" in core
    extras = {name: [r for r in requirements if r.startswith("pyarrow")]
              for name, requirements in project["optional-dependencies"].items()}
    assert not any(extras.values()), extras  # not restated in an extra


def test_no_module_imports_pyarrow_lazily_but_the_source_sniffer():
    assert _lazy_pyarrow() == KEPT_LAZY


def test_no_module_falls_back_when_pyarrow_is_missing():
    """No ``except ImportError`` around a pyarrow import (the twins' switch)."""
    guarded = []
    for name_of_path, path in _modules():
        for node in nodes_of(path):
            if isinstance(node, ast.Try) and any(
                    isinstance(handler.type, ast.Name) and handler.type.id in ("ImportError", "ModuleNotFoundError")
                    for handler in node.handlers):
                imported = [alias.name for statement in node.body if isinstance(statement, ast.Import)
                            for alias in statement.names]
                imported += [statement.module or "" for statement in node.body if isinstance(statement, ast.ImportFrom)]
                if any(name.startswith("pyarrow") for name in imported):
                    guarded.append(name_of_path)
    assert guarded == []
