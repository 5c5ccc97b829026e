"""The layout rules read imports as Python runs them: relative imports, ``if TYPE_CHECKING:`` blocks, lazy imports
(by statement and by a literal name, under any alias), a package's ``__getattr__``."""

from __future__ import annotations

import ast

from tests.test_layout import refused_lazy_imports

from .graph import MODULES, Module, import_edges, is_private, lazy_imports, parse_source, resolve_from, runtime_nodes


def import_from(source: str) -> ast.ImportFrom:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ImportFrom)
    return node


def test_the_rules_read_imports_as_python_runs_them():
    assert "evalframe.result" in MODULES and "evalframe.io.csv" in MODULES
    assert resolve_from("evalframe.io.csv", import_from("from ..frames import arrays")) == "evalframe.frames"
    assert resolve_from("evalframe.io.csv", import_from("from . import atomic")) == "evalframe.io"
    assert resolve_from("evalframe.io", import_from("from .csv import x")) == "evalframe.io.csv"
    assert resolve_from("evalframe", import_from("from . import _version")) == "evalframe"
    tree = ast.parse("if TYPE_CHECKING:\n    import a\nelse:\n    import b\ndef f():\n    import c\n")
    imported = [n.names[0].name for n in runtime_nodes(tree) if isinstance(n, ast.Import)]
    assert imported == ["b", "c"]
    assert is_private("_x") and not is_private("__version__") and not is_private("_repr_html_")



def test_only_a_package_getattr_imports_on_first_use():
    source = ("def __getattr__(name):\n"
              "    if name == 'EvaluationResult':\n"
              "        from .result import EvaluationResult\n"
              "        return EvaluationResult\n"
              "    raise AttributeError(name)\n"
              "def load():\n"
              "    from .result import EvaluationResult\n"
              "class Lazy:\n"
              "    def __getattr__(self, name):\n"
              "        from . import schema\n")
    package = Module("evalframe", ast.parse(source))
    assert {target for _, target in lazy_imports(package)} == {"evalframe.result", "evalframe.schema"}
    # the package's __getattr__ passes; another function and a class's __getattr__ do not
    assert [line.split(": ")[0] for line in refused_lazy_imports([package])] == ["evalframe/__init__.py:10",
                                                                                "evalframe/__init__.py:7"]
    plain = Module("evalframe.options", ast.parse(source.replace("from .result", "from . import errors #")))
    assert len(refused_lazy_imports([plain])) == 3  # a plain module's __getattr__ is a lazy import like any other


def test_the_layout_rules_see_type_checking_and_lazy_imports():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .result import EvaluationResult\n"
                     "def f():\n    import pyarrow\n    from . import errors\n")
    module = Module("evalframe.options", tree)
    assert [edge.target for stmt in tree.body for edge in import_edges("evalframe.options", stmt)
            if isinstance(stmt, ast.If)] == ["evalframe.result"]
    assert [target for _, target in lazy_imports(module)] == ["pyarrow", "evalframe.errors"]
    # an import by name inside a function is a lazy import too (the review's way around the rule)
    dynamic = ast.parse("import importlib\nfrom importlib import import_module\n"
                        "def g(name):\n"
                        "    importlib.import_module('evalframe.result')\n"
                        "    __import__('evalframe.io.atomic')\n"
                        "    import_module('.frames', package='evalframe')\n"
                        "    importlib.import_module('..schema', __package__)\n"
                        "    importlib.import_module(name)\n"  # not a literal: not known here
                        "    return lambda: importlib.import_module('pyarrow')\n"
                        "importlib.import_module('evalframe.errors')\n")  # at module level: an edge, not lazy
    lazy = sorted((node.lineno, target) for node, target in lazy_imports(Module("evalframe.io.csv", dynamic)))
    assert lazy == [(4, "evalframe.result"), (5, "evalframe.io.atomic"), (6, "evalframe.frames"), (7, "evalframe.schema"),
                    (9, "pyarrow")]
    assert [edge.target for edge in parse_source("evalframe.io.csv", dynamic).edges] == [
        "evalframe.result", "evalframe.io.atomic", "evalframe.frames", "evalframe.schema", "evalframe.errors"]
    # the import functions by another name, or fetched by getattr (the third review's ways around the rule)
    renamed = ast.parse("import builtins, importlib\nfrom importlib import import_module as im\n"
                        "def g():\n"
                        "    im('evalframe.result')\n"
                        "    getattr(importlib, 'import_module')('evalframe.io.atomic')\n"
                        "    from importlib import import_module as load\n"  # itself a (standard library) lazy import
                        "    load('..frames', __package__)\n"
                        "    imp = importlib.import_module\n"
                        "    imp('evalframe.schema')\n"
                        "    getattr(builtins, '__import__')('evalframe.errors')\n"
                        "    importlib.import_module('evalframe.' + 'x')\n"  # a computed name: not known here
                        "im('evalframe.options')\n")  # at module level: an edge
    lazy = sorted((node.lineno, target) for node, target in lazy_imports(Module("evalframe.io.csv", renamed)))
    assert lazy == [(4, "evalframe.result"), (5, "evalframe.io.atomic"), (6, "importlib"), (7, "evalframe.frames"),
                    (9, "evalframe.schema"), (10, "evalframe.errors")]
    assert [edge.target for edge in parse_source("evalframe.io.csv", renamed).edges] == [
        "evalframe.result", "evalframe.io.atomic", "evalframe.frames", "evalframe.schema", "evalframe.errors",
        "evalframe.options"]
