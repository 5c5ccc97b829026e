"""Measure the shape of an evalframe tree: the figures a design review compares before and after a change.

    python scripts/measure_layout.py [TREE]        (TREE: a checkout, default this one)

Prints, for TREE's ``evalframe/`` package: modules and lines, modules over 500 lines, functions over 60 lines (the
longest named), ``result.py``'s lines, callables handed into ``sources/`` by the stages after it, lazy ``import
pyarrow`` statements (inside a function), and the trace of reading one TREC run and qrels with ``from_trec`` and of
``trec_query_metrics``: the evalframe files visited and the stays (a run of consecutive calls in one file; "of
calls": a generator's resumption, a block handed on by a stream, not counted as a call).
The trace imports TREE's package in a child process, so two trees are measured with one script.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
from pathlib import Path

TRACE = r"""
import json, sys, tempfile, os
sys.path.insert(0, sys.argv[1])
from pathlib import Path
import evalframe
from evalframe import EvaluationResult
package = str(Path(evalframe.__file__).parent)
folder = Path(tempfile.mkdtemp())
run, qrels = folder / "run.txt", folder / "qrels.txt"
run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {10 - d}.5 tag\n" for q in range(3) for d in range(5)))
qrels.write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in range(3) for d in range(5)))

def traced(call):
    files, stays, called = [], [], []
    def profile(frame, event, arg):
        if event != "call":
            return
        name = frame.f_code.co_filename
        if name.startswith(package):
            short = os.path.relpath(name, package)
            files.append(short)
            if not stays or stays[-1] != short:
                stays.append(short)
            resumed = frame.f_code.co_flags & 0x20 and frame.f_lasti > 0  # a generator resumed, not called anew
            if not resumed and (not called or called[-1] != short):
                called.append(short)
    sys.setprofile(profile)
    try:
        value = call()
    finally:
        sys.setprofile(None)
    return value, {"files": len(set(files)), "stays": len(stays), "stays of calls": len(called)}

result, read = traced(lambda: EvaluationResult.from_trec(str(run), str(qrels)))
_, metrics = traced(lambda: result.trec_query_metrics(["nDCG@10", "AP"]))
print(json.dumps({"trec_read": read, "trec_query_metrics": metrics}))
"""


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _lazy_pyarrow(tree: ast.AST) -> int:
    count = 0
    for function in _functions(tree):
        for node in ast.walk(function):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            count += any(name == "pyarrow" or name.startswith("pyarrow.") for name in names)
    return count


def _callables_into_sources(path: Path, tree: ast.AST) -> int:
    """Arguments that hand a function or method (a name, ``cls.x``, ``self.x``) to a function of ``sources/``."""
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evalframe.sources"):
            imported.update(alias.asname or alias.name for alias in node.names)
        if isinstance(node, ast.ImportFrom) and node.level and (node.module or "").startswith("sources"):
            imported.update(alias.asname or alias.name for alias in node.names)
    functions = {function.name for function in _functions(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            functions.update(alias.asname or alias.name for alias in node.names
                             if (alias.asname or alias.name)[:1].islower())
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        target = func.id if isinstance(func, ast.Name) else func.value.id if (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) else None
        if target not in imported:
            continue
        for value in [*node.args, *(keyword.value for keyword in node.keywords)]:
            handed = (isinstance(value, ast.Name) and value.id in functions and value.id not in imported) or (
                isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id in ("cls", "self"))
            count += handed
    return count


def measure(tree_root: Path) -> dict[str, object]:
    package = tree_root / "evalframe"
    modules = sorted(package.rglob("*.py"))
    lines = {path: len(path.read_text().splitlines()) for path in modules}
    long_functions: list[tuple[int, str]] = []
    lazy = handed = 0
    for path in modules:
        tree = ast.parse(path.read_text())
        relative = path.relative_to(package)
        for function in _functions(tree):
            length = (function.end_lineno or function.lineno) - function.lineno + 1
            if length > 60:
                long_functions.append((length, f"{relative}:{function.name}"))
        lazy += _lazy_pyarrow(tree)
        if relative.parts[0] != "sources":
            handed += _callables_into_sources(path, tree)
    long_functions.sort(reverse=True)
    with tempfile.TemporaryDirectory() as scratch:
        traced = subprocess.run([sys.executable, "-c", TRACE, str(tree_root)], capture_output=True, text=True,
                                cwd=scratch, check=True)
    return {
        "modules": len(modules),
        "lines": sum(lines.values()),
        "modules over 500 lines": sum(n > 500 for n in lines.values()),
        "functions over 60 lines": len(long_functions),
        "longest function": f"{long_functions[0][1]} ({long_functions[0][0]} lines)" if long_functions else "-",
        "result.py lines": lines.get(package / "result.py", 0),
        "callables handed into sources": handed,
        "lazy pyarrow imports": lazy,
        **{f"{call}: {key}": value for call, found in json.loads(traced.stdout).items() for key, value in found.items()},
    }


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    for key, value in measure(root).items():
        print(f"{key:40} {value}")


if __name__ == "__main__":
    main()
