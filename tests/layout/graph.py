"""What the layout rules of tests/test_layout.py read: every module under evalframe/, parsed (nothing is imported),
with its import edges, type-only edges, aliases and lazy imports.

Edges: ``import evalframe.a.b`` and ``from evalframe.a import b`` (b a submodule) point at ``evalframe.a.b``;
``from evalframe.a import name`` points at ``evalframe.a`` (its ``__init__``), whose own imports are its edges;
``importlib.import_module("evalframe.a.b")`` points at ``evalframe.a.b``.
"""

from __future__ import annotations

import ast
import functools
import gc
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalframe"
# names with a leading underscore that are public protocols, not private members
PROTOCOL_NAMES = {"_asdict", "_replace", "_fields", "_make", "_field_defaults", "_missing_", "_generate_next_value_"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def package_sources() -> dict[Path, tuple[str, ast.Module]]:
    """The source and the tree of every file under evalframe/, read and parsed once per test process: the layout
    rules (tests/test_layout.py), tests/test_written_once.py and tests/test_dependencies.py all read these. The
    trees are shared: a reader never changes one.

    The trees (about a million objects) live for the rest of the session, so once parsed they are moved out of the
    garbage collector's sight (``gc.freeze``, as tests/conftest.py does with what collection made): every full
    collection in the process would otherwise walk them again."""
    sources = {path: path.read_text(encoding="utf-8") for path in MODULES.values()}
    parsed = {path: (source, ast.parse(source, filename=str(path))) for path, source in sources.items()}
    gc.collect()
    gc.freeze()
    return parsed


def tree_of(path: Path) -> ast.Module:
    """The tree of a file under evalframe/, parsed once (:func:`package_sources`)."""
    return package_sources()[path][1]


@functools.cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a file under evalframe/, in :func:`ast.walk`'s order, walked once."""
    return tuple(ast.walk(tree_of(path)))


def where(module: str, node: ast.AST) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def is_private(name: str) -> bool:
    """A single-underscore name (not a dunder, not a ``_sunder_`` protocol name such as ``_repr_html_``)."""
    return name.startswith("_") and not name.endswith("_") and name not in PROTOCOL_NAMES


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of the tree except those inside ``if TYPE_CHECKING:`` (the ``else:`` branch still runs)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(reversed(node.orelse))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def package_of(module: str) -> str:
    """The package a module's relative imports start from."""
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def resolve_from(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = package_of(module)
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


@dataclass
class Edge:
    source: str
    target: str
    line: int


@dataclass
class Module:
    name: str
    tree: ast.Module
    edges: list[Edge] = field(default_factory=list)
    typing_edges: list[Edge] = field(default_factory=list)  # the imports inside ``if TYPE_CHECKING:`` blocks
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> evalframe module it is bound to
    walked: tuple[ast.AST, ...] | None = field(default=None, repr=False)  # the tree's nodes, once walked

    @property
    def nodes(self) -> tuple[ast.AST, ...]:
        """Every node of the tree, in :func:`ast.walk`'s order (walked once: the rules read it many times)."""
        if self.walked is None:
            self.walked = tuple(ast.walk(self.tree))
        return self.walked

    @functools.cached_property
    def importers(self) -> dict[str, str]:
        """:func:`importer_aliases` of the tree (found once)."""
        return importer_aliases(self.tree, self.nodes)

    @functools.cached_property
    def lazy(self) -> tuple[tuple[ast.AST, str], ...]:
        """:func:`lazy_imports` of the module (found once)."""
        return tuple(_lazy_imports(self))


def call_name(call: ast.Call) -> str | None:
    """The name a call calls: ``f`` of ``f(...)`` and of ``a.b.f(...)``."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


IMPORTERS = ("import_module", "__import__")


def importer_aliases(tree: ast.AST, nodes: tuple[ast.AST, ...] | None = None) -> dict[str, str]:
    """Other names a module gives ``import_module`` / ``__import__`` (anywhere in it, at module level or in a
    function): ``from importlib import import_module as im``, ``im = importlib.import_module``,
    ``im = getattr(importlib, "import_module")``, and names bound to those in turn; each with the importer it is.

    Examples
    --------
    >>> importer_aliases(ast.parse("from importlib import import_module as im\\nload = im\\nf = builtins.__import__"))
    {'im': 'import_module', 'load': 'import_module', 'f': '__import__'}
    """
    aliases: dict[str, str] = {}
    nodes = tuple(ast.walk(tree)) if nodes is None else nodes  # ``nodes``: the tree's, walked already
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib", "builtins"):
            aliases.update((alias.asname, alias.name) for alias in node.names if alias.name in IMPORTERS and alias.asname)
    assignments = [(target.id, node.value) for node in nodes if isinstance(node, (ast.Assign, ast.AnnAssign))
                   and node.value is not None
                   for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                   if isinstance(target, ast.Name)]
    for _ in range(len(assignments) + 1):  # until no new name is found
        before = len(aliases)
        for name, value in assignments:
            importer = importer_named(value, aliases)
            if importer is not None:
                aliases.setdefault(name, importer)
        if len(aliases) == before:
            break
    return aliases


def importer_named(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The importer an expression is: ``import_module`` / ``__import__`` (a name or any ``x.import_module``), one
    of their ``aliases``, or ``getattr(x, "import_module")`` with a literal name; None otherwise."""
    if isinstance(node, ast.Name):
        return node.id if node.id in IMPORTERS else aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        return node.attr if node.attr in IMPORTERS else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in IMPORTERS):
        return str(node.args[1].value)
    return None


def dynamic_import(module: str, node: ast.AST, aliases: dict[str, str] | None = None) -> str | None:
    """The module a call imports by a literal name: ``importlib.import_module("evalframe.x")`` (or ``(".x",
    __package__)`` / ``package="evalframe"``), ``__import__("evalframe.x")``, through another name for either
    (``aliases``, from :func:`importer_aliases`) or ``getattr(importlib, "import_module")``; None for any other node.

    Examples
    --------
    >>> call = ast.parse("importlib.import_module('..errors', __package__)").body[0].value
    >>> dynamic_import("evalframe.io.atomic", call)
    'evalframe.errors'
    >>> dynamic_import("evalframe.io.atomic", ast.parse("im('evalframe.result')").body[0].value, {"im": "import_module"})
    'evalframe.result'
    """
    if not isinstance(node, ast.Call) or not node.args:
        return None
    importer = importer_named(node.func, aliases or {})
    if importer is None:
        return None
    name = node.args[0]
    if not isinstance(name, ast.Constant) or not isinstance(name.value, str):
        return None
    target = name.value
    if not target.startswith(".") or importer != "import_module":
        return target
    package = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "package"), None)
    if isinstance(package, ast.Constant) and isinstance(package.value, str):
        base = package.value
    elif isinstance(package, ast.Name) and package.id == "__package__":
        base = package_of(module)
    else:
        return None
    dots = len(target) - len(target.lstrip("."))
    for _ in range(dots - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{target[dots:]}" if target[dots:] else base


def parse(name: str) -> Module:
    return parse_source(name, tree_of(MODULES[name]), nodes_of(MODULES[name]))


def parse_source(name: str, tree: ast.Module, nodes: tuple[ast.AST, ...] | None = None) -> Module:
    """The imports of module ``name`` whose source is ``tree``: its edges, type-only edges and aliases (``nodes``:
    the tree's, walked already)."""
    module = Module(name, tree, walked=nodes)
    importers = module.importers
    for node in runtime_nodes(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    module.edges.append(Edge(name, alias.name, node.lineno))
                    if alias.asname:
                        module.aliases[alias.asname] = alias.name
                    else:  # ``import evalframe.a.b`` binds ``evalframe``
                        module.aliases[alias.name.partition(".")[0]] = alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = resolve_from(name, node)
            if base not in MODULES:
                continue
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in MODULES:
                    module.edges.append(Edge(name, target, node.lineno))
                    module.aliases[alias.asname or alias.name] = target
                else:
                    module.edges.append(Edge(name, base, node.lineno))
        elif (target := dynamic_import(name, node, importers)) in MODULES:  # import_module("evalframe.x"): an import too
            module.edges.append(Edge(name, str(target), node.lineno))
    unique = {(edge.target, edge.line): edge for edge in module.edges}  # ``from x import a, b``: one edge
    module.edges = list(unique.values())
    module.typing_edges = [edge for node in module.nodes if isinstance(node, ast.If) and is_type_checking(node.test)
                           for statement in node.body for edge in import_edges(name, statement)]
    return module


def import_edges(name: str, statement: ast.stmt) -> list[Edge]:
    """The evalframe modules one statement (and the statements nested in it) imports."""
    edges = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Import):
            edges += [Edge(name, alias.name, node.lineno) for alias in node.names if alias.name in MODULES]
        elif isinstance(node, ast.ImportFrom):
            base = resolve_from(name, node)
            if base in MODULES:
                edges += [Edge(name, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base, node.lineno)
                          for alias in node.names]
    return edges


class _Parsed(Mapping[str, Module]):
    """Every module of MODULES parsed (:func:`parse`), parsed on first use: a test process that runs none of the
    layout tests does not spend the seconds of parsing the package at collection (the trees are
    :func:`package_sources`', parsed once and shared with the other readers of the package's source)."""

    def __init__(self) -> None:
        self._modules: dict[str, Module] | None = None

    def _all(self) -> dict[str, Module]:
        if self._modules is None:
            self._modules = {name: parse(name) for name in MODULES}
        return self._modules

    def __getitem__(self, name: str) -> Module:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


PARSED: Mapping[str, Module] = _Parsed()


def dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything that is not a chain of names."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def first_use_imports(module: Module) -> set[ast.AST]:
    """The nodes of a package ``__init__``'s module-level ``def __getattr__`` (PEP 562): the public names it imports
    there load on first use, the module's way of keeping ``import evalframe`` light. Any other function's import of an
    evalframe module (one of a plain module's ``__getattr__`` too) is a lazy import START_UP must list."""
    if module.name not in MODULES or MODULES[module.name].name != "__init__.py":
        return set()
    hidden = [statement for block in module.tree.body  # ``if not TYPE_CHECKING:`` hides it from type checkers
              if isinstance(block, ast.If) and isinstance(block.test, ast.UnaryOp) and isinstance(block.test.op, ast.Not)
              and is_type_checking(block.test.operand) for statement in block.body]
    return {node for statement in [*module.tree.body, *hidden]
            if isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__" for node in ast.walk(statement)}


def lazy_imports(module: Module) -> Iterator[tuple[ast.AST, str]]:
    """Every import inside a function (or lambda) of ``module`` (:func:`_lazy_imports`, found once per module)."""
    return iter(module.lazy)


def _lazy_imports(module: Module) -> Iterator[tuple[ast.AST, str]]:
    """Every import inside a function (or lambda) of ``module``, with the module it imports (``evalframe.x`` for a
    relative import): import statements, and ``importlib.import_module`` / ``__import__`` of a literal name (also
    called by another name, :func:`importer_aliases`, or as ``getattr(importlib, "import_module")``). An import by
    a computed name (``import_module("evalframe." + x)``, ``exec``) cannot be read from the source and is not seen."""
    importers = module.importers
    stack: list[tuple[ast.AST, bool]] = [(module.tree, False)]
    while stack:  # each node once, knowing whether a function (or lambda) holds it
        node, lazy = stack.pop()
        lazy |= isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, lazy) for child in reversed(list(ast.iter_child_nodes(node))))
        if not lazy:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = resolve_from(module.name, node)
            for alias in node.names:
                yield node, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
        elif (target := dynamic_import(module.name, node, importers)) is not None:
            yield node, target
