"""The package's layering rules, read from the source of every module under evalframe/ (nothing is imported).

* the import graph of evalframe's modules has no cycle (imports at module level, inside functions and in
  ``if TYPE_CHECKING:`` blocks all count: a type-only import back is a circle too);
* a module imports only from its own stage and the stages before it (docs/architecture.md), with no exception;
* no function imports an evalframe module (a lazy import is for an optional third-party dependency only:
  ``LAZY_ALLOWED``);
* no module uses another module's private names: no ``from .x import _name``, no ``module._name``, no
  ``obj._method`` of an object whose class lives in another module (``_version`` / ``__version__`` and the
  package's private *modules*, such as ``_validation``, are fine);
* every module is reached from an entry point (the package, the ``__main__`` modules and the console scripts);
* a module imports only from its stage of the data path and earlier ones (:data:`STAGES`);
* no module keeps a registry keyed by ``id()``, nor changes a module-level dict from a function
  (:func:`id_registries`): what is known of an object travels with it.

Edges: ``import evalframe.a.b`` and ``from evalframe.a import b`` (b a submodule) point at ``evalframe.a.b``;
``from evalframe.a import name`` points at ``evalframe.a`` (its ``__init__``), whose own imports are its edges.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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


def parse(name: str) -> Module:
    path = MODULES[name]
    module = Module(name, ast.parse(path.read_text(), filename=str(path)))
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
    ("sources", ("evalframe.sources",)),
    ("metrics", ("evalframe.metrics",)),
    ("frames", ("evalframe.frames",)),
    ("analysis", ("evalframe.analysis",)),
    ("io", ("evalframe.io",)),
    ("evaluators", ("evalframe.evaluators",)),
    ("report", ("evalframe.report",)),
    ("facade", ("evalframe.result",)),
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
#: Calls that change a dict in place.
MUTATING_METHODS = {"pop", "popitem", "setdefault", "update", "clear", "__setitem__", "__delitem__"}
#: What builds a mutable mapping at module level.
MAPPING_FACTORIES = {"dict", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary"}
#: Module-level tables a function may change, each with its reason (keyed by value, never by id()).
ALLOWED_REGISTRIES = {
    ("evalframe.dask.client", "_connected"): "one Dask client per scheduler address and process, keyed by the address",
}


def is_mapping_value(value: ast.expr | None) -> bool:
    """``{}``, ``{...: ...}``, a dict comprehension or ``dict()`` / ``defaultdict(...)`` / ``weakref.Weak*Dictionary()``."""
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    if isinstance(value, ast.Call):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", None)
        return name in MAPPING_FACTORIES
    return False


def module_mappings(tree: ast.Module) -> set[str]:
    """The names a module binds, at module level, to a new mutable mapping."""
    names = set()
    for statement in tree.body:
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, ast.AnnAssign) else [])
        if is_mapping_value(getattr(statement, "value", None)):
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return names


def id_registries(tree: ast.Module, filename: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Module-level state looked up by object identity, or changed from inside functions.

    A frame's codes must travel with it (returned, passed as arguments), never be parked in a module-level
    table and found again by ``id(frame)``: such a table is hidden global state, keeps entries of dead objects
    unless weakref callbacks clean up, and an id is reused once its object is gone. Two rules, read from the
    source:

    * ``id(...)`` -- or a local name assigned from ``id(...)`` -- is never the key of a module-level name:
      not ``NAME[id(x)]``, not ``NAME.get(id(x))`` / ``.pop`` / ``.setdefault``, not ``id(x) in NAME``;
    * a mutable mapping bound at module level (``{}``, ``dict()``, ``defaultdict()``, ``weakref.Weak*Dictionary()``)
      is not changed inside a function or lambda (``NAME[k] = v``, ``del NAME[k]``, ``NAME.pop(...)``, ...):
      module-level tables are constants, built once at import (``allowed``: names exempt from this rule, each
      listed with its reason in :data:`ALLOWED_REGISTRIES`).
    """
    found = []
    registries = module_mappings(tree) - allowed
    module_names = {target.id for statement in tree.body for target in ast.walk(statement)
                    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name)}
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        body = function.body if isinstance(function.body, list) else [function.body]
        nodes = [node for statement in body for node in ast.walk(statement)]
        from_id = {target.id for node in nodes if isinstance(node, ast.Assign) and is_id_call(node.value)
                   for target in node.targets if isinstance(target, ast.Name)}

        def is_id(node: ast.AST, from_id: set[str] = from_id) -> bool:
            return is_id_call(node) or (isinstance(node, ast.Name) and node.id in from_id)

        for node in nodes:
            line = f"{filename}:{getattr(node, 'lineno', function.lineno)}"
            if isinstance(node, ast.Subscript) and is_one_of(node.value, module_names) and is_id(node.slice):
                found.append(f"{line}: {ast.unparse(node)} (a module-level name keyed by id())")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                  and is_one_of(node.func.value, module_names) and node.func.attr in ("get", "pop", "setdefault")
                  and is_id(node.args[0])):
                found.append(f"{line}: {ast.unparse(node)} (a module-level name keyed by id())")
            elif (isinstance(node, ast.Compare) and is_id(node.left) and isinstance(node.ops[0], (ast.In, ast.NotIn))
                  and is_one_of(node.comparators[0], module_names)):
                found.append(f"{line}: {ast.unparse(node)} (a module-level name keyed by id())")
            targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                       else [node.target] if isinstance(node, ast.AugAssign) else [])
            if any(isinstance(t, ast.Subscript) and is_one_of(t.value, registries) for t in targets):
                found.append(f"{line}: {ast.unparse(node).splitlines()[0]} (a module-level dict changed in a function)")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS
                    and is_one_of(node.func.value, registries)):
                found.append(f"{line}: {ast.unparse(node)} (a module-level dict changed in a function)")
    return sorted(set(found))


def is_one_of(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` is the name of one of ``names``."""
    return isinstance(node, ast.Name) and node.id in names


def is_id_call(node: ast.AST | None) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"
            and len(node.args) == 1)


def test_no_module_keeps_a_registry_keyed_by_id():
    found = [problem for name, module in PARSED.items()
             for problem in id_registries(module.tree, str(MODULES[name].relative_to(ROOT)),
                                          frozenset(table for owner, table in ALLOWED_REGISTRIES if owner == name))]
    assert not found, (f"{len(found)} module-level registr(y/ies) (hand the value over with the object instead; "
                       "see id_registries):\n" + "\n".join(found))


def test_the_registry_rule_finds_an_id_keyed_registry():
    """The rule on the registries sources/trec.py kept before issue 25, and on what stays allowed."""
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
    found = id_registries(ast.parse(old), "old.py")
    by_line = {(int(problem.split(":")[1]), problem.rpartition(" (a ")[2]) for problem in found}
    assert by_line == {(8, "module-level name keyed by id())"), (8, "module-level dict changed in a function)"),
                       (11, "module-level name keyed by id())"), (15, "module-level name keyed by id())"),
                       (16, "module-level name keyed by id())")}, found
    allowed = '''
TABLE = {"a": 1}

def local(cells):
    first = {}
    for cell in cells:
        first.setdefault(id(cell), cell)
    return TABLE["a"], TABLE.get("b"), id(None) in [id(c) for c in cells]
'''
    assert id_registries(ast.parse(allowed), "new.py") == []


# ---------------------------------------------------------------------------- (f) lazy imports: optional dependencies only
#: The third-party packages a function may import: the optional extras (and the standard library, always there).
LAZY_ALLOWED = {"matplotlib", "scipy", "pyarrow", "dask", "distributed", "rapidfuzz", "tqdm", "sentence_transformers",
                "transformers"}
#: evalframe modules that need an optional extra to import (``import evalframe.dask`` needs dask and distributed):
#: importing them is importing that extra.
OPTIONAL_MODULES = {"evalframe.dask"}
#: The lazy evalframe imports kept for start-up time only (none breaks a cycle): ``import evalframe`` does not load
#: the io stage (about 45 ms) until a result is saved or loaded, or TREC files are read or written. Issue 26 (lazy
#: pandas / matplotlib) decides their fate; a pair no longer found must be removed from here.
START_UP = {
    ("evalframe.result", "evalframe.io"),  # save() and load()
    ("evalframe.result", "evalframe.io.trec"),  # to_trec_run(), to_trec_qrels()
    ("evalframe.result", "evalframe.sources.trec_files"),  # from_trec()
    ("evalframe.present.cli", "evalframe.io.manifest"),  # --scheduler: is the folder partitioned?
}


def lazy_imports(module: Module) -> Iterator[tuple[ast.stmt, str]]:
    """Every import statement inside a function of ``module``, with the module it imports (``evalframe.x`` for a
    relative import)."""
    for function in ast.walk(module.tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield node, alias.name
            elif isinstance(node, ast.ImportFrom):
                base = resolve_from(module.name, node)
                for alias in node.names:
                    yield node, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base


def refused_lazy_imports() -> list[str]:
    refused = []
    for module in PARSED.values():
        for node, target in lazy_imports(module):
            top = target.partition(".")[0]
            if top == "evalframe":
                optional = any(target == name or target.startswith(name + ".") for name in OPTIONAL_MODULES)
                if not optional and (module.name, target) not in START_UP:
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


def test_the_layout_rules_see_type_checking_and_lazy_imports():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .result import EvaluationResult\n"
                     "def f():\n    import pyarrow\n    from . import errors\n")
    module = Module("evalframe.options", tree)
    assert [edge.target for stmt in tree.body for edge in import_edges("evalframe.options", stmt)
            if isinstance(stmt, ast.If)] == ["evalframe.result"]
    assert [target for _, target in lazy_imports(module)] == ["pyarrow", "evalframe.errors"]


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
