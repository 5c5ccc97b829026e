"""Every name is written once, read from the source of the modules (nothing is imported):

* a module's ``__all__`` lists only names the module defines, and every ``from evalframe.x import name`` (in the
  package, the tests, the benchmarks and the scripts) imports a name module ``x`` defines, or a submodule of it: no
  re-exports, except the packages whose ``__init__`` is a public API (:data:`PUBLIC_PACKAGES`, each with its reason);
* an option set of the vocabulary (``DocumentScope`` and ``DOCUMENT_SCOPES``, ...) is written once: the tuple of its
  values is derived from its ``Literal``, not restated beside it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.layout.graph import nodes_of, package_sources

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evalframe"

#: The package ``__init__`` files whose job is the public API: they list names their modules define.
PUBLIC_PACKAGES = {
    "evalframe/__init__.py": "the package's API (evalframe.EvaluationResult, ...), imported on first use (PEP 562)",
    "evalframe/dask/__init__.py": "evalframe.dask.load / from_runs / compare (docs/cluster.md)",
    "evalframe/evaluators/__init__.py": "the components' import path, which their to_dict() names as 'type' "
                                        "(evalframe.evaluators.DocumentRecallEvaluator)",
    "evalframe/io/__init__.py": "evalframe.io.save_parts, save_result, load_result (docs/persistence.md)",
    "evalframe/metrics/__init__.py": "evalframe.metrics.ZERO_EDGE_POLICY, HAYSTACK_EDGE_POLICY, headline_metric "
                                     "(docs/evaluators.md, docs/metrics.md)",
    "evalframe/report/__init__.py": "the report formats: FORMATS and Format (pandas-free, read by the command parsers)",
}
#: The vocabulary modules that define option sets.
VOCABULARY = ("evalframe/columns.py", "evalframe/options.py")


@functools.cache
def _sources() -> dict[str, str]:
    """The package's sources (read and parsed once per process, tests/layout/graph.py), by their paths as written."""
    return {str(path.relative_to(ROOT)): source for path, (source, _) in sorted(package_sources().items())}


@functools.cache
def _trees() -> dict[str, ast.Module]:
    return {str(path.relative_to(ROOT)): tree for path, (_, tree) in sorted(package_sources().items())}


def module_name(path: str) -> str:
    """``evalframe/io/__init__.py`` -> ``evalframe.io``."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: its body, and the bodies of its ``if`` / ``try`` / ``with``
    / ``for`` blocks (not those of its functions and classes)."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody"):
            yield from _top_level([n for n in getattr(node, block, []) if isinstance(n, ast.stmt)])
        for handler in getattr(node, "handlers", []):
            yield from _top_level(handler.body)


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module binds itself: functions, classes and assignment targets (not its imports).

    >>> sorted(defined_names(ast.parse("from x import a\\nb = 1\\ndef c(): d = 2\\nif b:\\n    class E: pass")))
    ['E', 'b', 'c']
    """
    names: set[str] = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [item.optional_vars for item in node.items if item.optional_vars] if isinstance(node, ast.With)
                       else [node.target])
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def listed_names(tree: ast.Module) -> list[str] | None:
    """The names of the module's ``__all__ = [...]`` (None without one)."""
    for node in _top_level(tree.body):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return None


def reexports() -> list[str]:
    found = []
    for path, source in _sources().items():
        if path in PUBLIC_PACKAGES or "__all__" not in source:
            continue
        tree = _trees()[path]
        listed = listed_names(tree) or []
        defined = defined_names(tree)
        found += [f"{path}: __all__ lists {name!r}, which it only imports" for name in listed if name not in defined]
    return found


def test_no_module_lists_in_all_a_name_it_only_imports():
    found = reexports()
    assert not found, "import each name from the module that defines it:\n" + "\n".join(found)


#: ``from evalframe.x import a, b as c`` (one line, or in parentheses over several), in a test, benchmark or script.
_IMPORT_FROM = re.compile(r"^[ \t]*from[ \t]+(evalframe[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)


def _imports(path: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, names) of the ``from <evalframe module> import names`` of a file: the package's read with ast
    (relative imports resolved), the others' with :data:`_IMPORT_FROM` (they are many; only these lines matter)."""
    if path in _sources():
        here = module_name(path).split(".")
        for node in nodes_of(ROOT / path):
            if isinstance(node, ast.ImportFrom):
                base = here if path.endswith("__init__.py") else here[:-1]  # a package's __init__ is its package
                target = (".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
                          if node.level else node.module or "")
                yield node.lineno, target, [alias.name for alias in node.names]
        return
    source = (ROOT / path).read_text(encoding="utf-8")
    for match in _IMPORT_FROM.finditer(source):
        names = re.sub(r"#[^\n]*", "", match.group(2)).strip("() \n").split(",")
        yield (source.count("\n", 0, match.start()) + 1, match.group(1),
               [name.split()[0] for name in names if name.strip()])


def imported_from_elsewhere() -> list[str]:
    """``from evalframe.x import name`` lines whose module ``x`` (a module of this tree, read from its files: an
    installed copy of another checkout may answer an import of a module this one lacks) neither defines ``name`` nor
    has it as a submodule."""
    modules = {module_name(path) for path in _sources()}
    defined = {module_name(path): defined_names(tree) for path, tree in _trees().items()}
    public = {module_name(path) for path in PUBLIC_PACKAGES}
    files = [*_sources(), *(str(p.relative_to(ROOT)) for folder in ("tests", "benchmarks", "scripts")
                            for p in sorted((ROOT / folder).rglob("*.py")) if "data" not in p.relative_to(ROOT).parts)]
    found = []
    for path in files:
        for line, target, names in _imports(path):
            if not target.startswith("evalframe") or target in public:
                continue
            if target not in modules:
                found.append(f"{path}:{line}: from {target} import ...: there is no module {target}")
                continue
            found += [f"{path}:{line}: from {target} import {name}" for name in names
                      if name != "*" and name not in defined[target] and f"{target}.{name}" not in modules]
    return found


def test_every_import_names_a_name_its_module_defines():
    found = imported_from_elsewhere()
    assert not found, "import each name from the module that defines it:\n" + "\n".join(found)


def test_the_public_packages_are_packages_with_an_all():
    for path in PUBLIC_PACKAGES:
        assert path.endswith("/__init__.py") and listed_names(ast.parse((ROOT / path).read_text(encoding="utf-8")))


def test_a_re_export_is_found():
    tree = ast.parse("from .kernels import ndcg, UNJUDGED\n__all__ = ['evaluate', 'ndcg']\ndef evaluate(): pass\n")
    assert [name for name in listed_names(tree) or [] if name not in defined_names(tree)] == ["ndcg"]


def _literal_sets(tree: ast.Module) -> tuple[list[frozenset[str]], list[tuple[int, frozenset[str]]]]:
    """The value sets of the module's ``Literal[...]`` types, and its other tuples, lists and sets of two or more
    strings (with their lines)."""
    literals, inside = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values):
                literals.append(frozenset(v.value for v in values))
                inside.add(id(node.slice))
    collections = [(node.lineno, frozenset(e.value for e in node.elts)) for node in ast.walk(tree)
                   if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and id(node) not in inside and len(node.elts) > 1
                   and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)]
    return literals, collections


@pytest.mark.parametrize("path", VOCABULARY)
def test_no_option_set_is_written_as_a_literal_and_again_as_a_tuple(path):
    literals, collections = _literal_sets(ast.parse((ROOT / path).read_text(encoding="utf-8")))
    assert literals or path != "evalframe/columns.py"  # DocumentScope, AnswerScope, EvalMode
    twice = [f"{path}:{line}: {sorted(values)}" for line, values in collections if values in literals]
    assert not twice, "derive the values from the Literal (typing.get_args):\n" + "\n".join(twice)


def test_an_option_set_written_twice_is_found():
    tree = ast.parse("Mode = Literal['a', 'b']\nMODES = ('a', 'b')\nOTHER = ('a', 'c')\n")
    literals, collections = _literal_sets(tree)
    assert [line for line, values in collections if values in literals] == [2]


def test_the_option_sets_are_the_literals_values():
    from typing import get_args

    from evalframe.columns import ANSWER_SCOPES, DOCUMENT_SCOPES, EVAL_MODES, AnswerScope, DocumentScope, EvalMode

    assert DOCUMENT_SCOPES == get_args(DocumentScope) == ("document_id", "context", "document_id_and_context",
                                                          "document_id_or_context", "answer", "document_id_or_answer")
    assert ANSWER_SCOPES == get_args(AnswerScope) == ("any", "context", "document_id", "document_id_and_context")
    assert EVAL_MODES == get_args(EvalMode) == ("integrated", "isolated")
