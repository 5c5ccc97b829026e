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

The modules are parsed by tests/layout/graph.py (its docstring says what an edge is); the registry and hook rules'
readers are tests/layout/registries.py and tests/layout/hooks.py; tests/layout/test_*.py check those readers on
sample sources.
"""

from __future__ import annotations

import ast
import re
import sys

from tests.layout.graph import (MODULES, PACKAGE, PARSED, ROOT, Edge, Module, dotted, first_use_imports, is_private,
                                lazy_imports, module_name, package_sources, resolve_from, runtime_nodes, tree_of, where)
from tests.layout.hooks import hooks_for_tests
from tests.layout.registries import id_registries, module_tables

ALLOWED_PRIVATE_NAMES = {"__version__"}


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
        for node in module.nodes:
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
    points.add("evalframe.testing")  # the helpers of the users' tests (assert_no_regression), imported by them only
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


# ---------------------------------------------------------------------------- (d) the stages of the data path
#: docs/architecture.md's stages, in order: a module imports only from its own stage and the stages before it.
STAGES = (
    ("vocabulary", ("evalframe.errors", "evalframe._validation", "evalframe._addresses", "evalframe._locations",
                    "evalframe._version", "evalframe.columns", "evalframe.schema", "evalframe.options", "evalframe._progress")),
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
    ("package", ("evalframe", "evalframe.__main__", "evalframe.testing")),
)
#: Deprecated aliases of moved modules (``evalframe.plots`` -> ``evalframe.present.plots``, ...).
ALIASES = {name for name, path in MODULES.items()
           if (ast.get_docstring(tree_of(path)) or "").startswith("Deprecated alias")}


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
#: Module-level tables a function may change, each with its reason (keyed by value, never by id()).
ALLOWED_REGISTRIES = {
    ("evalframe.dask.client", "_connected"): "one Dask client per scheduler address and process, keyed by the address",
}



def test_no_module_keeps_a_registry_keyed_by_id():
    found = [problem for name, module in PARSED.items()
             for problem in id_registries(module.tree, str(MODULES[name].relative_to(ROOT)),
                                          frozenset(table for owner, table in ALLOWED_REGISTRIES if owner == name),
                                          module.nodes)]
    assert not found, (f"{len(found)} module- or class-level registr(y/ies) (hand the value over with the object "
                       "instead; see id_registries):\n" + "\n".join(found))
    assert all(reason for reason in ALLOWED_REGISTRIES.values())
    for owner, table in ALLOWED_REGISTRIES:  # an allowance names a table that is there and changed
        assert table in module_tables(PARSED[owner].tree, PARSED[owner].nodes).module, (owner, table)
        assert id_registries(PARSED[owner].tree, owner, nodes=PARSED[owner].nodes), (
            f"{owner}.{table} is no longer changed: remove its allowance")



# ---------------------------------------------------------------------------- (f) lazy imports: optional dependencies only
#: The third-party packages a function may import: the optional extras (and the standard library, always there).
LAZY_ALLOWED = {"matplotlib", "scipy", "pyarrow", "dask", "distributed", "rapidfuzz", "tqdm", "sentence_transformers", "fsspec",
                "polars", "ir_datasets",
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
    # a gate or a comparison reads the history store only for a run given as @ref (evalframe.History)
    ("evalframe.present.gate", "evalframe.present.history"),
    # start-up: evalframe history lists a store's runs and draws a trend without the other commands' implementations
    ("evalframe.present.cli", "evalframe.present.history_command"),
    # evalframe serve needs the serve extra (Starlette, uvicorn): its implementation is imported when it runs, and a
    # missing extra is said in one line
    ("evalframe.present.cli", "evalframe.present.serve.command"),
}




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
def test_production_code_has_no_test_hook():
    found = [problem for path, (source, tree) in package_sources().items()
             for problem in hooks_for_tests(source, str(path.relative_to(ROOT)), tree)]
    assert not found, (f"{len(found)} test hook(s) in evalframe (let the test replace the function it needs, looked up "
                       "when it runs; see hooks_for_tests):\n" + "\n".join(found))
    # the step marker the fault sweeps replace is looked up when it runs (atomic.step), never bound at import
    bound = [where(name, node) for name, module in PARSED.items() for node in module.nodes
             if isinstance(node, ast.ImportFrom) and resolve_from(name, node) == "evalframe.io.atomic"
             and any(alias.name == "step" for alias in node.names)]
    assert not bound, f"atomic.step bound at import (a test replacing it would not reach these): {bound}"
