"""The package's layering rules, read from the source of every module under evalframe/ (nothing is imported).

* the import graph of evalframe's modules has no cycle (imports at module level, inside functions and in
  ``if TYPE_CHECKING:`` blocks all count: a type-only import back is a circle too);
* a module imports only from its own stage and the stages before it (docs/architecture.md), with no exception;
* no function imports an evalframe module, by an import statement or by a literal name
  (``importlib.import_module("evalframe.x")``, ``__import__``, under any name): a lazy import is for an optional third-party
  dependency only (``LAZY_ALLOWED``);
* no module uses another module's private names: no ``from .x import _name``, no ``module._name``, no
  ``obj._method`` of an object whose class lives in another module (``_version`` / ``__version__`` and the
  package's private *modules*, such as ``_validation``, are fine);
* every module is reached from an entry point (the package, the ``__main__`` modules and the console scripts);
* a module imports only from its stage of the data path and earlier ones (:data:`STAGES`);
* no module keeps a registry keyed by ``id()``, nor changes a module- or class-level dict, list, set or deque
  from a function (:func:`id_registries`): what is known of an object travels with it;
* no module keeps a hook for tests (:func:`hooks_for_tests`): a test replaces the function it needs.

Edges: ``import evalframe.a.b`` and ``from evalframe.a import b`` (b a submodule) point at ``evalframe.a.b``;
``from evalframe.a import name`` points at ``evalframe.a`` (its ``__init__``), whose own imports are its edges;
``importlib.import_module("evalframe.a.b")`` points at ``evalframe.a.b``.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evalframe"
ALLOWED_PRIVATE_NAMES = {"__version__"}
# names with a leading underscore that are public protocols, not private members
PROTOCOL_NAMES = {"_asdict", "_replace", "_fields", "_make", "_field_defaults", "_missing_", "_generate_next_value_"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


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


def call_name(call: ast.Call) -> str | None:
    """The name a call calls: ``f`` of ``f(...)`` and of ``a.b.f(...)``."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


IMPORTERS = ("import_module", "__import__")


def importer_aliases(tree: ast.AST) -> dict[str, str]:
    """Other names a module gives ``import_module`` / ``__import__`` (anywhere in it, at module level or in a
    function): ``from importlib import import_module as im``, ``im = importlib.import_module``,
    ``im = getattr(importlib, "import_module")``, and names bound to those in turn; each with the importer it is.

    Examples
    --------
    >>> importer_aliases(ast.parse("from importlib import import_module as im\\nload = im\\nf = builtins.__import__"))
    {'im': 'import_module', 'load': 'import_module', 'f': '__import__'}
    """
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib", "builtins"):
            aliases.update((alias.asname, alias.name) for alias in node.names if alias.name in IMPORTERS and alias.asname)
    assignments = [(target.id, node.value) for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
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
    path = MODULES[name]
    return parse_source(name, ast.parse(path.read_text(), filename=str(path)))


def parse_source(name: str, tree: ast.Module) -> Module:
    """The imports of module ``name`` whose source is ``tree``: its edges, type-only edges and aliases."""
    module = Module(name, tree)
    importers = importer_aliases(tree)
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
        elif dynamic_import(name, node, importers) in MODULES:  # importlib.import_module("evalframe.x"): an import too
            module.edges.append(Edge(name, str(dynamic_import(name, node, importers)), node.lineno))
    unique = {(edge.target, edge.line): edge for edge in module.edges}  # ``from x import a, b``: one edge
    module.edges = list(unique.values())
    module.typing_edges = [edge for node in ast.walk(module.tree) if isinstance(node, ast.If) and is_type_checking(node.test)
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


PARSED = {name: parse(name) for name in MODULES}


# ---------------------------------------------------------------------------- (a) no import cycles
_COMPONENTS: list[list[str]] = []


def scc_of(name: str) -> set[str]:
    return next((set(c) for c in _COMPONENTS if name in c), {name})


def cycles() -> list[list[Edge]]:
    """One cycle per strongly connected component of the import graph (Tarjan), as the edges that close it."""
    graph: dict[str, list[Edge]] = {name: [] for name in MODULES}
    for module in PARSED.values():
        seen = set()
        for edge in module.edges + module.typing_edges:
            if edge.target != edge.source and edge.target not in seen:
                seen.add(edge.target)
                graph[edge.source].append(edge)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for edge in graph[v]:
            w = edge.target
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for name in MODULES:
        if name not in index:
            visit(name)

    _COMPONENTS[:] = components
    found = []
    for component in components:
        members = set(component)
        start = component[0]
        # shortest path back to start inside the component (breadth first)
        parents: dict[str, Edge] = {}
        frontier = [start]
        closing: Edge | None = None
        while frontier and closing is None:
            following = []
            for v in frontier:
                for edge in graph[v]:
                    if edge.target not in members:
                        continue
                    if edge.target == start:
                        closing = edge
                        break
                    if edge.target not in parents:
                        parents[edge.target] = edge
                        following.append(edge.target)
                if closing:
                    break
            frontier = following
        assert closing is not None  # a component of two or more modules holds a cycle through each of them
        path = [closing]
        while path[0].source != start:
            path.insert(0, parents[path[0].source])
        found.append(path)
    return found


def test_import_graph_has_no_cycles():
    found = cycles()
    message = []
    for path in found:
        members = {edge.source for edge in path}
        message.append("cycle: " + " -> ".join([path[0].source] + [edge.target for edge in path]))
        group = sorted(set().union(*(scc_of(member) for member in members)))
        message.append(f"  every import between the {len(group)} modules of its group ({', '.join(group)}):")
        message.extend(f"    {where(edge.source, ast.Pass(lineno=edge.line))}: {edge.source} imports {edge.target}"
                       for name in group for edge in PARSED[name].edges + PARSED[name].typing_edges
                       if edge.target in group and edge.target != name)
    assert not found, f"{len(found)} import cycle(s) between evalframe modules:\n" + "\n".join(message)


# ---------------------------------------------------------------------------- (b) no private names of other modules
def private_members() -> dict[str, set[str]]:
    """Private method and attribute names of each module's classes (``def _x`` in a class body, ``self._x = ...``)."""
    members: dict[str, set[str]] = {}
    for name, module in PARSED.items():
        names = members.setdefault(name, set())
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                for item in ast.walk(node):
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_private(item.name):
                        names.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        for target in targets:
                            if isinstance(target, ast.Name) and is_private(target.id):
                                names.add(target.id)
                            elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                  and target.value.id in ("self", "cls") and is_private(target.attr)):
                                names.add(target.attr)
    return members


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


def private_use() -> list[str]:
    members = private_members()
    violations = []
    for name, module in PARSED.items():
        others = set().union(*(names for other, names in members.items() if other != name)) - members[name]
        for node in runtime_nodes(module.tree):
            if isinstance(node, ast.ImportFrom):
                base = resolve_from(name, node)
                if base not in MODULES:
                    continue
                for alias in node.names:
                    submodule = f"{base}.{alias.name}" in MODULES
                    if is_private(alias.name) and not submodule and alias.name not in ALLOWED_PRIVATE_NAMES:
                        violations.append(f"{where(name, node)}: from {base} import {alias.name}")
            elif isinstance(node, ast.Attribute) and is_private(node.attr):
                chain = dotted(node)
                if chain and chain[0] in module.aliases:
                    # a module reached through an import: follow the chain of submodules
                    target: str | None = module.aliases[chain[0]]
                    for part in chain[1:-1]:
                        if f"{target}.{part}" not in MODULES:
                            target = None
                            break
                        target = f"{target}.{part}"
                    if target and target != name and f"{target}.{node.attr}" not in MODULES:
                        violations.append(f"{where(name, node)}: {'.'.join(chain)} (private name of {target})")
                    continue
                if chain and chain[0] in ("self", "cls") and len(chain) == 2:
                    continue  # the object's own members
                result_like = chain is not None and len(chain) >= 2 and chain[-2] == "result" and name != "evalframe.result"
                if node.attr in others or result_like:
                    owners = sorted(other for other, names in members.items() if node.attr in names and other != name)
                    shown = ".".join(chain) if chain else f"<expression>.{node.attr}"
                    owner = ", ".join(owners) or "EvaluationResult"
                    violations.append(f"{where(name, node)}: {shown} (private member of {owner})")
    return sorted(set(violations), key=lambda v: (v.split(":")[0], int(v.split(":")[1])))


def test_no_module_uses_another_modules_private_names():
    violations = private_use()
    assert not violations, f"{len(violations)} use(s) of another module's private names:\n" + "\n".join(violations)


# ---------------------------------------------------------------------------- (c) every module is used
def entry_points() -> set[str]:
    points = {"evalframe"} | {name for name in MODULES if name.endswith(".__main__")}  # python -m evalframe[.x]
    points |= set(ALIASES)  # the deprecated aliases of moved modules are imported by users only
    points.add("evalframe.dask")  # the optional extra: imported by its users (import evalframe.dask), never by evalframe
    # the console scripts: ``name = "module:function"`` lines of pyproject.toml's [project.scripts] (tomllib is 3.11+)
    section = re.search(r"^\[project\.scripts\]\n(.*?)(?:^\[|\Z)", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    points.update(re.findall(r'^\S+\s*=\s*"([\w.]+):', section.group(1) if section else "", re.M))
    return points


def unreached() -> list[str]:
    reached: set[str] = set()
    todo = [point for point in entry_points() if point in MODULES]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo.extend(edge.target for edge in PARSED[name].edges)
        parts = name.split(".")  # importing a.b.c runs a/__init__ and a/b/__init__ first
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
    return [f"{MODULES[name].relative_to(ROOT)}:1: {name} is imported by no evalframe module and is no entry point"
            for name in MODULES if name not in reached]


def test_every_module_is_reached_from_an_entry_point():
    missing = unreached()
    assert not missing, f"{len(missing)} module(s) never imported:\n" + "\n".join(missing)


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


# ---------------------------------------------------------------------------- (d) the stages of the data path
#: docs/architecture.md's stages, in order: a module imports only from its own stage and the stages before it.
STAGES = (
    ("vocabulary", ("evalframe.errors", "evalframe._validation", "evalframe._addresses", "evalframe._version",
                    "evalframe.columns", "evalframe.schema", "evalframe.options", "evalframe._progress", "evalframe._moved")),
    ("metrics", ("evalframe.metrics",)),
    ("frames", ("evalframe.frames",)),
    ("sources", ("evalframe.sources",)),
    ("analysis", ("evalframe.analysis",)),
    ("io", ("evalframe.io",)),
    ("evaluators", ("evalframe.evaluators",)),
    ("report", ("evalframe.report",)),
    ("facade", ("evalframe.result", "evalframe.trec_compare")),
    ("cluster", ("evalframe.dask",)),
    ("present", ("evalframe.present",)),
    ("package", ("evalframe", "evalframe.__main__")),
)
#: Deprecated aliases of moved modules (``evalframe.plots`` -> ``evalframe.present.plots``, ...).
ALIASES = {name for name, path in MODULES.items()
           if (ast.get_docstring(ast.parse(path.read_text())) or "").startswith("Deprecated alias")}


def stage_of(module: str) -> int:
    if module in ALIASES:
        return len(STAGES) - 1
    for number, (_, prefixes) in enumerate(STAGES):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes if prefix != "evalframe"):
            return number
    if module == "evalframe":
        return len(STAGES) - 1
    raise AssertionError(f"{module} is in no stage of docs/architecture.md; add it to STAGES")


def test_every_module_imports_only_from_its_stage_and_earlier_ones():
    upward = [f"{MODULES[edge.source].relative_to(ROOT)}:{edge.line}: {edge.source} ({STAGES[stage_of(edge.source)][0]}) "
              f"imports {edge.target} ({STAGES[stage_of(edge.target)][0]})"
              for module in PARSED.values() for edge in module.edges + module.typing_edges
              if stage_of(edge.target) > stage_of(edge.source)]
    assert not upward, f"{len(upward)} import(s) from a later stage:\n" + "\n".join(upward)


# ---------------------------------------------------------------------------- (e) no registry keyed by id()
#: Methods that change a dict, list, set or deque in place (called, or handed on as a bound method).
MUTATING_METHODS = {"pop", "popitem", "setdefault", "update", "clear", "__setitem__", "__delitem__", "append",
                    "appendleft", "extend", "extendleft", "insert", "remove", "discard", "add", "popleft", "sort",
                    "reverse", "rotate", "__iadd__", "__ior__", "difference_update", "intersection_update",
                    "symmetric_difference_update"}
#: Functions that change the container passed as their first argument (``operator.setitem``, ``heapq``, ``bisect``).
MUTATING_FUNCTIONS = {"setitem", "delitem", "heappush", "heappop", "heapify", "heapreplace", "heappushpop", "insort",
                      "insort_left", "insort_right"}
#: Lookups that, given an ``id()``, key any module-level name by it (a container's every method does).
KEYED_METHODS = MUTATING_METHODS | {"get", "__getitem__", "__contains__", "count", "index"}
#: What builds a mutable container: mappings, lists, sets and deques (literals and comprehensions count too).
CONTAINER_FACTORIES = {"dict", "defaultdict", "OrderedDict", "Counter", "ChainMap", "WeakKeyDictionary",
                       "WeakValueDictionary", "list", "set", "deque", "WeakSet"}
#: Lookups through which a nested container still belongs to its table (``T[k].append``, ``T.setdefault(k, []).add``).
LOOKUPS = {"get", "setdefault", "__getitem__"}
#: Module-level tables a function may change, each with its reason (keyed by value, never by id()).
ALLOWED_REGISTRIES = {
    ("evalframe.dask.client", "_connected"): "one Dask client per scheduler address and process, keyed by the address",
}


def is_container_value(value: ast.expr | None) -> bool:
    """``{}``, ``[]``, ``{1, 2}``, a comprehension, or ``dict()`` / ``list()`` / ``set()`` / ``collections.deque()`` /
    ``defaultdict(...)`` / ``weakref.Weak*()``: a new mutable container."""
    if isinstance(value, (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Set, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and call_name(value) in CONTAINER_FACTORIES


def block_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module or class body, with those of its ``if`` / ``try`` / ``with`` / ``for`` / ``while`` /
    ``match`` blocks at any depth (not those of a ``def`` or a nested ``class``)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            yield from block_statements(getattr(statement, name, []))
        for handler in getattr(statement, "handlers", []):
            yield from block_statements(handler.body)
        for case in getattr(statement, "cases", []):
            yield from block_statements(case.body)


def bindings(statement: ast.stmt) -> Iterator[tuple[str, ast.expr | None]]:
    """The names an assignment binds, each with the value bound to it (None when not known)."""
    if isinstance(statement, ast.Assign):
        pairs = [(target, statement.value) for target in statement.targets]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        pairs = [(statement.target, statement.value)]
    else:
        return
    while pairs:
        target, value = pairs.pop()
        if isinstance(target, ast.Name):
            yield target.id, value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values: list[ast.expr | None] = list(value.elts) if (
                isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
                and not any(isinstance(v, ast.Starred) for v in value.elts)) else [None] * len(target.elts)
            pairs.extend(zip(target.elts, values))


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one scope: ``node``'s body without the bodies of the functions and classes defined in it."""
    stack = list(node.body) if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
        else [node.body] if isinstance(node, ast.Lambda) else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):  # defaults run in the enclosing scope,
        stack.extend(ast.iter_child_nodes(node.args))  # but a default keyed by id() is still found once
    while stack:
        child = stack.pop()
        yield child
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(child))


@dataclass
class Tables:
    """What a module keeps beyond one call: its module-level names and containers, and its classes' containers."""
    names: set[str] = field(default_factory=set)  # every name an assignment binds at module level
    module: set[str] = field(default_factory=set)  # those bound (somewhere) to a new mutable container
    classes: dict[str, set[str]] = field(default_factory=dict)  # class -> the containers its body binds
    instance: dict[str, set[str]] = field(default_factory=dict)  # class -> the ``self.x`` its methods bind


def module_tables(tree: ast.Module) -> Tables:
    tables = Tables()
    for statement in block_statements(tree.body):
        for name, value in bindings(statement):
            tables.names.add(name)
            if is_container_value(value):
                tables.module.add(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            tables.classes.setdefault(node.name, set()).update(
                name for statement in block_statements(node.body) for name, value in bindings(statement)
                if is_container_value(value))
            tables.instance.setdefault(node.name, set()).update(
                target.attr for target in ast.walk(node) if isinstance(target, ast.Attribute)
                and isinstance(target.ctx, ast.Store) and isinstance(target.value, ast.Name) and target.value.id == "self")
    return tables


@dataclass
class Scope:
    """One function (or the module, or a class body) as the registry rule reads it."""
    kind: str  # "module", "class" or "function"
    cls: str | None = None  # the class whose method this is
    local: set[str] = field(default_factory=set)  # names bound in the function (not declared global)
    declared_global: set[str] = field(default_factory=set)
    from_id: set[str] = field(default_factory=set)  # names holding an id() (or a value built from one)
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> the table it is bound to
    foreign: set[str] = field(default_factory=set)  # local names bound to what the function did not build (below)


def root_of(node: ast.AST) -> ast.AST:
    """What a container expression starts from: ``a`` of ``a.b[k].c``, of ``a.setdefault(k, {})[j]`` and of
    ``a.get(k)``; ``globals()`` of ``globals()["T"]`` (a call of a plain name is a root).

    Examples
    --------
    >>> ast.unparse(root_of(ast.parse("_STATE.reg.setdefault('k', {})[0]").body[0].value))
    '_STATE'
    """
    while True:
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return node


def id_registries(tree: ast.Module, filename: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Module- and class-level state looked up by object identity, or changed from inside functions.

    A frame's codes must travel with it (returned, passed as arguments), never be parked in a module-level
    table and found again by ``id(frame)``: such a table is hidden global state, keeps entries of dead objects
    unless weakref callbacks clean up, and an id is reused once its object is gone. Two rules, read from the
    source:

    * ``id(...)`` -- or a name assigned from an expression holding ``id(...)`` -- is never the key of a module-level
      name or a class-level table, nor stored in one: not ``NAME[id(x)]``, not ``id(x) in NAME``, not
      ``NAME.get(id(x))`` / ``.pop`` / ``.setdefault``, not ``TABLE.append((id(x), v))`` / ``.add`` / ``.insert`` /
      any other method of a container, not ``operator.setitem(TABLE, id(x), v)``; and inside a function, an
      ``id(...)`` keys (in the same ways) no state the function did not build: no container whose root is
      ``self`` / ``cls``, a name neither bound nor a parameter in the function (a module-level name, a closure
      variable), a ``global`` / ``nonlocal`` name, an attribute chain from any of these (``remember.table``,
      ``_STATE.reg``), a call (``globals()``; a new ``dict()`` is the function's own), or a local bound to one of
      these. Keyed by id(), a dict the function built (``first = {}``) or was handed as a parameter is allowed;
    * a mutable container bound at module level -- at any depth of ``if`` / ``try`` / ``with`` blocks, not in a
      ``def`` -- (``{}``, ``[]``, ``{1, 2}``, ``dict()``, ``list()``, ``set()``, ``collections.deque()``,
      ``defaultdict()``, ``weakref.Weak*()``), or in a class body (``class C: table = {}``), is not changed inside
      a function or lambda: not ``NAME[k] = v``, ``del NAME[k]``, ``NAME.append(...)`` / ``.add`` / ``.pop`` (or
      that bound method handed on), ``C.table[k] = v``, ``cls.table.update(...)``, ``heapq.heappush(NAME, x)``, nor
      a ``global NAME`` rebound. A local name bound to such a table is that table. Module- and class-level tables are
      constants, built once at import (``allowed``: module-level names exempt from this rule, each listed with its
      reason in :data:`ALLOWED_REGISTRIES`).

    Examples
    --------
    >>> id_registries(ast.parse("_SEEN = []\\ndef f(x):\\n    _SEEN.append(id(x))\\n"), "m.py")  # doctest: +NORMALIZE_WHITESPACE
    ['m.py:3: _SEEN.append (a module-level table changed in a function)',
     'm.py:3: _SEEN.append(id(x)) (a module-level name keyed by id())']
    """
    tables = module_tables(tree)
    found: set[str] = set()

    def table_of(node: ast.AST, scope: Scope) -> tuple[str, str] | None:
        """The module- or class-level table ``node`` is (or is part of): ("module" / "class", its name)."""
        while True:
            if isinstance(node, ast.Subscript):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LOOKUPS:
                node = node.func.value
            else:
                break
        if isinstance(node, ast.Name):
            if node.id in scope.aliases:
                return scope.aliases[node.id]
            if node.id in tables.module and node.id not in scope.local:
                return "module", node.id
            return None
        if not isinstance(node, ast.Attribute):
            return None
        owner = node.value
        if isinstance(owner, ast.Name) and node.attr in tables.classes.get(owner.id, ()) and owner.id not in scope.local:
            return "class", f"{owner.id}.{node.attr}"
        if scope.cls is None or node.attr not in tables.classes.get(scope.cls, ()):
            return None
        mine = (isinstance(owner, ast.Name) and (owner.id == "cls" or (owner.id == "self"
                                                                        and node.attr not in tables.instance[scope.cls])))
        mine |= isinstance(owner, ast.Call) and call_name(owner) == "type"  # type(self).table
        mine |= isinstance(owner, ast.Attribute) and owner.attr == "__class__"  # self.__class__.table
        return ("class", f"{scope.cls}.{node.attr}") if mine else None

    def keyed(node: ast.AST, scope: Scope, method: str | None = None) -> str | None:
        """What ``node`` is when an id() keys it: a table, or any module-level name (looked up by ``method``)."""
        table = table_of(node, scope)
        if table is not None:
            return f"{table[0]}-level {'name' if table[0] == 'module' else 'table'}"
        while isinstance(node, ast.Subscript):
            node = node.value
        if (isinstance(node, ast.Name) and node.id in tables.names and node.id not in scope.local
                and (method is None or method in KEYED_METHODS)):
            return "module-level name"
        return None

    def foreign(node: ast.AST, scope: Scope) -> bool:
        """Whether a container expression in a function reaches state the function did not build: its root is
        ``self`` / ``cls``, a name neither bound nor a parameter in the function (a module-level name, a closure
        variable, a builtin), a ``global`` / ``nonlocal`` name, a local bound to such an expression, or a call
        (``globals()``, ``make()``) other than a new container (``dict()``)."""
        root = root_of(node)
        if isinstance(root, ast.Name):
            return (root.id in ("self", "cls") or root.id not in scope.local or root.id in scope.foreign
                    or root.id in scope.declared_global)
        return isinstance(root, ast.Call) and not is_container_value(root)

    def elsewhere(node: ast.AST, scope: Scope) -> str | None:
        """What an id() keys in a function when it is no table of the module or a class: state the function did
        not build (:func:`foreign`), kept beyond the call."""
        return OUTSIDE if scope.kind == "function" and foreign(node, scope) else None

    def holds_id(node: ast.AST | None, scope: Scope) -> bool:
        return node is not None and any(is_id_call(child) or (isinstance(child, ast.Name) and child.id in scope.from_id)
                                        for child in ast.walk(node))

    def report(node: ast.AST, what: str) -> None:
        found.add(f"{filename}:{getattr(node, 'lineno', 0)}: {ast.unparse(node).splitlines()[0]} ({what})")

    def check(owner: ast.AST, scope: Scope) -> None:
        nodes = list(own_nodes(owner))
        in_function = scope.kind == "function"
        for node in nodes if in_function else []:  # a function's own names (at module level the names are the tables)
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                scope.declared_global.update(node.names)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                scope.local.add(node.id)
            elif isinstance(node, ast.arg):
                scope.local.add(node.arg)
        if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            scope.local.update(a.arg for a in owner.args.posonlyargs + owner.args.args + owner.args.kwonlyargs
                               + [owner.args.vararg, owner.args.kwarg] if a is not None)
        scope.local -= scope.declared_global
        scope.from_id -= scope.local
        for name in scope.local:
            scope.aliases.pop(name, None)
        scope.foreign.clear()
        assignments = [node for node in nodes if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))]
        for _ in range(len(assignments) + 1):  # until no new name holds an id()
            before = len(scope.from_id), len(scope.aliases), len(scope.foreign)
            for node in assignments:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if not isinstance(target, ast.Name) or target.id in scope.declared_global or node.value is None:
                        continue
                    if holds_id(node.value, scope):
                        scope.from_id.add(target.id)
                    table = table_of(node.value, scope)
                    if table is not None:
                        scope.aliases[target.id] = table
                    if in_function and not is_container_value(node.value) and foreign(node.value, scope):
                        scope.foreign.add(target.id)  # ``reg = _STATE.reg``: the local is that state
            if (len(scope.from_id), len(scope.aliases), len(scope.foreign)) == before:
                break
        for node in nodes:
            # rule 1: an id() as a key of, or a value stored in, module- or class-level state
            if isinstance(node, ast.Subscript) and holds_id(node.slice, scope):
                what = keyed(node.value, scope) or elsewhere(node.value, scope)
                if what:
                    report(node, f"a {what} keyed by id()")
            elif isinstance(node, ast.Call):
                arguments = list(node.args) + [keyword.value for keyword in node.keywords]
                if isinstance(node.func, ast.Attribute) and any(holds_id(a, scope) for a in arguments):
                    what = keyed(node.func.value, scope, node.func.attr) or (
                        elsewhere(node.func.value, scope) if node.func.attr in KEYED_METHODS else None)
                    if what:
                        report(node, f"a {what} keyed by id()")
                if node.args and (call_name(node) in MUTATING_FUNCTIONS | MUTATING_METHODS | {"getitem", "contains"}):
                    table = table_of(node.args[0], scope)  # operator.setitem(T, ...), dict.__setitem__(T, ...)
                    if any(holds_id(a, scope) for a in arguments[1:]):
                        what = (f"{table[0]}-level {'name' if table[0] == 'module' else 'table'}" if table is not None
                                else elsewhere(node.args[0], scope))
                        if what:
                            report(node, f"a {what} keyed by id()")
                    if table is not None and in_function and table[1] not in allowed:
                        report(node, f"a {table[0]}-level table changed in a function")
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for left, op, right in zip(operands, node.ops, operands[1:]):
                    what = keyed(right, scope) or elsewhere(right, scope)
                    if isinstance(op, (ast.In, ast.NotIn)) and holds_id(left, scope) and what:
                        report(node, f"a {what} keyed by id()")
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and in_function:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:  # a global rebound: the module-level name is changed (and keyed, with an id())
                    if isinstance(target, ast.Name) and target.id in scope.declared_global:
                        if target.id in tables.names and holds_id(node.value, scope):
                            report(node, "a module-level name keyed by id()")
                        if target.id in tables.module and target.id not in allowed:
                            report(node, "a module-level table changed in a function")
            if not in_function:
                continue
            # rule 2: a module- or class-level table changed in a function
            targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                if isinstance(target, (ast.Subscript, ast.Attribute)):
                    table = table_of(target, scope)
                    if table is not None and table[1] not in allowed:
                        report(node, f"a {table[0]}-level table changed in a function")
            if isinstance(node, ast.Attribute) and node.attr in MUTATING_METHODS:
                table = table_of(node.value, scope)
                if table is not None and table[1] not in allowed:
                    report(node, f"a {table[0]}-level table changed in a function")

    def visit(owner: ast.AST, scope: Scope) -> None:
        check(owner, scope)
        for node in own_nodes(owner):
            if isinstance(node, ast.ClassDef):
                visit(node, Scope("class", cls=node.name))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                method_of = owner.name if isinstance(owner, ast.ClassDef) else scope.cls
                inherits = scope.kind != "class"  # a function sees the names of the module and of enclosing functions
                visit(node, Scope("function", cls=method_of, from_id=set(scope.from_id) if inherits else set(),
                                  aliases=dict(scope.aliases) if inherits else {}))

    visit(tree, Scope("module"))
    return sorted(found, key=lambda problem: (int(problem.split(":")[1]), problem))


#: What the registry rule calls state a function did not build (see ``foreign`` in id_registries).
OUTSIDE = "state from outside the function"


def is_id_call(node: ast.AST | None) -> bool:
    """``id(x)`` or ``builtins.id(x)``."""
    return (isinstance(node, ast.Call) and len(node.args) == 1 and (
        (isinstance(node.func, ast.Name) and node.func.id == "id")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "id" and dotted(node.func) == ["builtins", "id"])))


def test_no_module_keeps_a_registry_keyed_by_id():
    found = [problem for name, module in PARSED.items()
             for problem in id_registries(module.tree, str(MODULES[name].relative_to(ROOT)),
                                          frozenset(table for owner, table in ALLOWED_REGISTRIES if owner == name))]
    assert not found, (f"{len(found)} module- or class-level registr(y/ies) (hand the value over with the object "
                       "instead; see id_registries):\n" + "\n".join(found))
    assert all(reason for reason in ALLOWED_REGISTRIES.values())
    for owner, table in ALLOWED_REGISTRIES:  # an allowance names a table that is there and changed
        assert table in module_tables(PARSED[owner].tree).module, (owner, table)
        assert id_registries(PARSED[owner].tree, owner), f"{owner}.{table} is no longer changed: remove its allowance"


def findings(source: str) -> set[tuple[int, str]]:
    """The rule's findings on ``source``: (line, what)."""
    return {(int(problem.split(":")[1]), problem.rpartition(" (a ")[2].removesuffix(")"))
            for problem in id_registries(ast.parse(source), "old.py")}


KEYED, CLASS_KEYED = "module-level name keyed by id()", "class-level table keyed by id()"
CHANGED, CLASS_CHANGED = "module-level table changed in a function", "class-level table changed in a function"
ELSEWHERE = f"{OUTSIDE} keyed by id()"


def test_the_registry_rule_finds_an_id_keyed_registry():
    """The rule on the registries sources/trec.py kept before issue 25, on the ways around the first rule a review
    found (a list, a table bound in a ``try:`` block, a class-level table), and on what stays allowed."""
    old = '''
import weakref
_LAYOUTS: dict[int, tuple] = {}
_CACHE = dict()

def _remember(frame, layout):
    key = id(frame)
    _LAYOUTS[key] = (weakref.ref(frame, lambda _: _LAYOUTS.pop(key, None)), layout)

def trec_layout(frame):
    entry = _LAYOUTS.get(id(frame))
    return entry[1] if entry is not None and entry[0]() is frame else None

def cached(x):
    if id(x) in _CACHE:
        return _CACHE[id(x)]
'''
    assert findings(old) == {(8, KEYED), (8, CHANGED), (11, KEYED), (15, KEYED), (16, KEYED)}
    dodges = '''
import collections
import operator
import weakref

_SEEN = []
try:
    _BY_ID = {}
except ImportError:
    _BY_ID = None
if True:
    with open(__file__):
        _QUEUE = collections.deque()
_MARKS, _OTHER = {1, 2}, list()

class _Holder:
    table = {}

    @classmethod
    def remember(cls, frame, codes):
        cls.table.__setitem__(id(frame), codes)

    def forget(self, frame):
        del type(self).table[id(frame)]

def seen(frame, codes):
    _SEEN.append((id(frame), codes))

def by_id(frame, codes):
    _BY_ID[id(frame)] = codes

def holder(frame, codes):
    _Holder.table[id(frame)] = codes

def queued(frame):
    key = (id(frame), 0)
    queue = _QUEUE
    queue.insert(0, key)
    operator.setitem(_BY_ID, key, None)

def changed(frame):
    _MARKS.add(1)
    _OTHER.extend([2])
    _Holder.table.update(a=1)
    weakref.finalize(frame, _SEEN.clear)
    return _Holder.table.get(id(frame))
'''
    assert findings(dodges) == {
        (21, CLASS_KEYED), (21, CLASS_CHANGED),  # cls.table.__setitem__(id(frame), codes)
        (24, CLASS_KEYED), (24, CLASS_CHANGED),  # del type(self).table[id(frame)]
        (27, KEYED), (27, CHANGED),  # _SEEN.append((id(frame), codes))
        (30, KEYED), (30, CHANGED),  # _BY_ID[id(frame)] = codes, _BY_ID bound in a try: block
        (33, CLASS_KEYED), (33, CLASS_CHANGED),  # _Holder.table[id(frame)] = codes
        (38, KEYED), (38, CHANGED),  # queue.insert(0, key): queue is _QUEUE, bound in a with: inside an if:
        (39, KEYED), (39, CHANGED),  # operator.setitem(_BY_ID, key, None)
        (42, CHANGED), (43, CHANGED), (44, CLASS_CHANGED), (45, CHANGED),  # add, extend, update, a bound clear handed on
        (46, CLASS_KEYED),  # _Holder.table.get(id(frame))
    }
    allowed = '''
TABLE = {"a": 1}
NAMES = ["a", "b"]
for name in NAMES:
    TABLE[name] = len(name)  # built once, at import

class Cache:
    known = {"x": 1}

    def __init__(self):
        self.seen = {}

    def remember(self, cell):
        self.seen[cell.name] = cell  # keyed by value, not by id()
        return self.known.get("x")

def local(cells):
    first = {}
    for cell in cells:
        first.setdefault(id(cell), cell)
    NAMES = []
    NAMES.append(id(cells))  # a local list of that name
    return TABLE["a"], TABLE.get("b"), id(None) in [id(c) for c in cells], NAMES.index("a")

def texts(distinct, known):
    ids = list(map(id, distinct))  # as io/codecs.py does: a list the function built
    return ids.index(id(None)) if id(None) in ids else sum(id(c) in known for c in distinct)  # a parameter: the caller's
'''
    assert findings(allowed) == set()
    # the ways around the rules above a third review found: state reached through a function attribute, a closure,
    # an attribute of a module-level object, globals() and self; each is state the function did not build
    elsewhere = '''
import types
_STATE = types.SimpleNamespace(reg={})

def remember(frame, v):
    remember.table[id(frame)] = v
remember.table = {}

def _make():
    reg = {}
    def put(frame, v):
        reg[id(frame)] = v
    def get(frame):
        return reg.get(id(frame))
    return put, get
put, get = _make()

def keep(frame, v):
    _STATE.reg[id(frame)] = v
    state = _STATE.reg
    key = id(frame)
    return key in state

def put_global(frame, v):
    globals().setdefault("_REG", {})[id(frame)] = v

class _Reg:
    def __init__(self):
        self.d = {}

    def put(self, frame, v):
        self.d[id(frame)] = v
        self.d.setdefault(id(frame), v)
_R = _Reg()
'''
    assert findings(elsewhere) == {
        (6, ELSEWHERE),  # remember.table[id(frame)] = v: an attribute of the module-level function
        (12, ELSEWHERE), (14, ELSEWHERE),  # reg[id(frame)] = v, reg.get(id(frame)): reg is _make's, not put's or get's
        (19, ELSEWHERE),  # _STATE.reg[id(frame)] = v: an attribute of a module-level object
        (22, ELSEWHERE),  # key in state: key holds an id(), state is _STATE.reg
        (25, ELSEWHERE),  # globals().setdefault("_REG", {})[id(frame)] = v
        (32, ELSEWHERE), (33, ELSEWHERE),  # self.d[id(frame)] = v, self.d.setdefault(id(frame), v): _R keeps them
    }


# ---------------------------------------------------------------------------- (f) lazy imports: optional dependencies only
#: The third-party packages a function may import: the optional extras (and the standard library, always there).
LAZY_ALLOWED = {"matplotlib", "scipy", "pyarrow", "dask", "distributed", "rapidfuzz", "tqdm", "sentence_transformers",
                "transformers"}
#: evalframe modules that need an optional extra to import (``import evalframe.dask`` needs dask and distributed):
#: importing them is importing that extra.
OPTIONAL_MODULES = {"evalframe.dask"}
#: The lazy evalframe imports kept for start-up time only (none breaks a cycle), each with its reason; a pair no
#: longer found must be removed from here. A package's ``__getattr__`` (PEP 562, :func:`first_use_imports`) needs no
#: entry: ``evalframe/__init__.py`` imports the public names built on pandas on first use that way.
START_UP = {
    # start-up: import evalframe does not load the io stage (about 45 ms) until a result is saved or loaded, or TREC
    # files are read or written
    ("evalframe.result", "evalframe.io"),  # save() and load()
    ("evalframe.result", "evalframe.io.trec"),  # to_trec_run(), to_trec_qrels()
    # start-up: --scheduler asks whether the folder is partitioned, and only then
    ("evalframe.present.inputs", "evalframe.io.manifest"),
    # start-up: the parsers (evalframe --help) and list-metrics run without pandas; a command that reads or writes
    # results imports its implementation, and pandas, when it runs (issue 26)
    ("evalframe.present.cli", "evalframe.present.commands"),
    # start-up: evalframe trec on TREC files runs on columns, without pandas, when it runs (issue 26)
    ("evalframe.present.cli", "evalframe.present.trec_command"),
}


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
    """Every import inside a function (or lambda) of ``module``, with the module it imports (``evalframe.x`` for a
    relative import): import statements, and ``importlib.import_module`` / ``__import__`` of a literal name (also
    called by another name, :func:`importer_aliases`, or as ``getattr(importlib, "import_module")``). An import by
    a computed name (``import_module("evalframe." + x)``, ``exec``) cannot be read from the source and is not seen."""
    importers = importer_aliases(module.tree)
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


def refused_lazy_imports(modules: list[Module] | None = None) -> list[str]:
    refused = []
    for module in PARSED.values() if modules is None else modules:
        on_first_use = first_use_imports(module)
        for node, target in lazy_imports(module):
            top = target.partition(".")[0]
            if top == "evalframe":
                optional = any(target == name or target.startswith(name + ".") for name in OPTIONAL_MODULES)
                if not optional and (module.name, target) not in START_UP and node not in on_first_use:
                    refused.append(f"{where(module.name, node)}: imports {target} inside a function (import it at "
                                   "module level; a cycle is fixed by moving code)")
            elif top not in LAZY_ALLOWED and top not in sys.stdlib_module_names:
                refused.append(f"{where(module.name, node)}: imports {target} inside a function (only the optional "
                               f"dependencies {sorted(LAZY_ALLOWED)} may be imported there)")
    return sorted(set(refused))


def test_functions_import_only_optional_dependencies():
    refused = refused_lazy_imports()
    assert not refused, f"{len(refused)} lazy import(s):\n" + "\n".join(refused)
    found = {(module.name, target) for module in PARSED.values() for _, target in lazy_imports(module)}
    assert START_UP <= found, f"START_UP lists lazy imports no longer made: {sorted(START_UP - found)}"


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


# ---------------------------------------------------------------------------- (g) docs/architecture.md draws the package
def drawn_layout() -> dict[str, set[str]]:
    """The layout block of docs/architecture.md: folder (or "" for the package's own files) -> the files it names."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("```\nevalframe/\n", 1)[1].split("```", 1)[0]
    drawn: dict[str, set[str]] = {}
    folder = ""
    for line in block.splitlines():
        code = line[:66].strip()  # the names; the description starts at column 66
        if not code:
            continue
        first = code.split()[0]
        if first.endswith("/"):
            folder, code = first[:-1], code[len(first):]
        elif line.startswith("  ") and not line.startswith("    "):
            folder = ""
        drawn.setdefault(folder, set()).update(name for name in code.split() if name.endswith(".py"))
    return drawn


def test_the_architecture_page_draws_every_module_in_stage_order():
    drawn = drawn_layout()
    folders = [path for path in sorted(PACKAGE.iterdir()) if path.is_dir() and any(path.glob("*.py"))]
    for path in folders:
        files = {p.name for p in path.glob("*.py") if p.name != "__init__.py" and module_name(p) not in ALIASES}
        assert drawn.get(path.name) == files, (f"docs/architecture.md draws {path.name}/ as "
                                               f"{sorted(drawn.get(path.name, []))}; it holds {sorted(files)}")
    own = {p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py", "_version.py")
           and f"evalframe.{p.stem}" not in ALIASES}
    assert drawn[""] == own, f"docs/architecture.md draws {sorted(drawn[''])} at the top; the package holds {sorted(own)}"
    text = (ROOT / "docs" / "architecture.md").read_text()
    order = [name for name, _ in STAGES if name not in ("vocabulary", "facade", "package", "cluster")]
    positions = [text.index(f"  {name}/") for name in order]
    assert positions == sorted(positions), f"docs/architecture.md draws the stages out of order: {order}"


# ---------------------------------------------------------------------------- (h) no test hook in production code
#: The last version of evalframe/io/atomic.py with its test hook (``step_hook``), which the hook rule must find.
OLD_ATOMIC = ("c9092f84726c860fa29eeca970a730f8032aa8c1", "evalframe/io/atomic.py")


def comments_by_line(source: str) -> dict[int, str]:
    """The comment on each line of ``source`` (tokenized: a ``#`` inside a string is no comment)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string for token in tokens if token.type == tokenize.COMMENT}


def hooks_for_tests(source: str, filename: str) -> list[str]:
    """Module-level names that exist for tests: production code is tested as it runs, with no hook of its own.

    Two rules, read from the source (at module level, any depth of ``if`` / ``try`` / ``with`` blocks included):

    * no name bound to None whose name ends in ``_hook`` (``step_hook = None``, ``on_save_hook: ... = None``);
    * no name -- assigned, or a ``def`` / ``class`` -- whose comment (the ``#`` lines right above it, or the one
      after it) or docstring (a function's or class's, or the string right after an assignment) says "test hook".

    A test replaces the function it needs (``monkeypatch.setattr(atomic, "step", ...)``): see
    :func:`evalframe.io.atomic.step`, a no-op marker the code looks up when it runs.

    What it cannot see: the rule reads names and words, not intent. A hook under another name with no such comment
    (``_on_step = None``, then ``if _on_step is not None: _on_step(name)``), or one whose comment says it otherwise
    ("injected by tests", "for testing"), passes; so does a hook kept in a dict, an attribute or a default argument.
    It is a tripwire for the form atomic.py had (:data:`OLD_ATOMIC`), not a proof that no hook is left: review
    still decides whether a module-level ``None`` exists only for tests.

    Examples
    --------
    >>> hooks_for_tests("#: Test hook (None outside tests).\\nsave_hook = None\\n", "m.py")  # doctest: +NORMALIZE_WHITESPACE
    ['m.py:2: save_hook (a *_hook name bound to None at module level)',
     'm.py:2: save_hook (its comment or docstring says it is a test hook)']
    """
    tree = ast.parse(source)
    lines = source.splitlines()
    comments = comments_by_line(source)
    found = []
    statements = list(block_statements(tree.body))
    following = {id(a): b for a, b in zip(statements, statements[1:])}
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            named = [(statement.name, None)]
            docstring = ast.get_docstring(statement) or ""
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            named = list(bindings(statement)) or [
                (target.id, None) for target in [getattr(statement, "target", None)] if isinstance(target, ast.Name)]
            after = following.get(id(statement))
            docstring = (after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                         and isinstance(after.value.value, str) else "")
        else:
            continue
        first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
        said = [docstring] + [comments.get(line, "") for line in range(first, (statement.end_lineno or first) + 1)
                              if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                              or line < statement.body[0].lineno]
        above = first - 1
        while above >= 1 and lines[above - 1].strip().startswith("#"):
            said.append(lines[above - 1])
            above -= 1
        for name, value in named:
            at = f"{filename}:{statement.lineno}: {name}"
            if name.endswith("_hook") and isinstance(value, ast.Constant) and value.value is None:
                found.append(f"{at} (a *_hook name bound to None at module level)")
            if re.search(r"\btest[-_ ]?hooks?\b", " ".join(said), re.IGNORECASE):
                found.append(f"{at} (its comment or docstring says it is a test hook)")
    return sorted(found, key=lambda problem: (int(problem.split(":")[1]), problem))


def test_production_code_has_no_test_hook():
    found = [problem for name, path in MODULES.items()
             for problem in hooks_for_tests(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, (f"{len(found)} test hook(s) in evalframe (let the test replace the function it needs, looked up "
                       "when it runs; see hooks_for_tests):\n" + "\n".join(found))
    # the step marker the fault sweeps replace is looked up when it runs (atomic.step), never bound at import
    bound = [where(name, node) for name, module in PARSED.items() for node in ast.walk(module.tree)
             if isinstance(node, ast.ImportFrom) and resolve_from(name, node) == "evalframe.io.atomic"
             and any(alias.name == "step" for alias in node.names)]
    assert not bound, f"atomic.step bound at import (a test replacing it would not reach these): {bound}"


def test_the_hook_rule_finds_a_test_hook():
    """The rule on the hook evalframe/io/atomic.py had before this round's review, on other ways to write one, and on
    what stays allowed."""
    hooks = '''
import contextlib

#: Test hook: called with the name of every step (None outside tests).
step_hook = None
try:
    import fcntl
except ImportError:
    with contextlib.suppress(Exception):
        fault_hook: object = None
on_write = print
"""A test hook: the tests raise here."""

@contextlib.contextmanager
def injected():
    """Test-hook: replaced by the fault sweeps."""
    yield

class Faults:  # test hook
    pass

counter = 0  # test hooks count calls here
'''
    found = hooks_for_tests(hooks, "hooks.py")
    assert {(int(problem.split(":")[1]), problem.split(": ")[1].split(" (")[0], problem.rpartition(" (")[2])
            for problem in found} == {
        (5, "step_hook", "a *_hook name bound to None at module level)"),
        (5, "step_hook", "its comment or docstring says it is a test hook)"),
        (10, "fault_hook", "a *_hook name bound to None at module level)"),
        (11, "on_write", "its comment or docstring says it is a test hook)"),
        (15, "injected", "its comment or docstring says it is a test hook)"),
        (19, "Faults", "its comment or docstring says it is a test hook)"),
        (22, "counter", "its comment or docstring says it is a test hook)"),
    }, found
    allowed = '''
import logging

#: The hook a user registers to see every step (None: none).
save_callback = None
webhook = None  # a URL, not a hook of the tests

def run(step_hook=None):
    """Run every step; the tests check each."""
    local_hook = None
    return step_hook, local_hook

class Progress:
    bar_hook = None  # class level, set per instance
'''
    assert hooks_for_tests(allowed, "allowed.py") == []


def test_the_hook_rule_finds_the_hook_atomic_py_had():
    """Read from git: the version of evalframe/io/atomic.py with ``step_hook`` (skipped where the history is absent,
    such as an unpacked sdist)."""
    commit, path = OLD_ATOMIC
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True,
                           check=False)
    if shown.returncode != 0:
        pytest.skip(f"git cannot show {commit}:{path} here: {shown.stderr.strip()[:200]}")
    assert "step_hook: Callable[[str], None] | None = None" in shown.stdout.splitlines()[45]
    assert hooks_for_tests(shown.stdout, path) == [
        "evalframe/io/atomic.py:46: step_hook (a *_hook name bound to None at module level)",
        "evalframe/io/atomic.py:46: step_hook (its comment or docstring says it is a test hook)",
    ]
