"""The registry rule of tests/test_layout.py: no module keeps state keyed by ``id()``, nor changes a module- or
class-level table from a function (:func:`id_registries`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from .graph import call_name, dotted

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


def module_tables(tree: ast.Module, nodes: tuple[ast.AST, ...] | None = None) -> Tables:
    """``nodes``: the tree's, walked already (:func:`ast.walk`)."""
    tables = Tables()
    for statement in block_statements(tree.body):
        for name, value in bindings(statement):
            tables.names.add(name)
            if is_container_value(value):
                tables.module.add(name)
    for node in ast.walk(tree) if nodes is None else nodes:
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


def id_registries(tree: ast.Module, filename: str, allowed: frozenset[str] = frozenset(),
                  nodes: tuple[ast.AST, ...] | None = None) -> list[str]:
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
      reason in tests/test_layout.py's ``ALLOWED_REGISTRIES``).

    Examples
    --------
    >>> id_registries(ast.parse("_SEEN = []\\ndef f(x):\\n    _SEEN.append(id(x))\\n"), "m.py")  # doctest: +NORMALIZE_WHITESPACE
    ['m.py:3: _SEEN.append (a module-level table changed in a function)',
     'm.py:3: _SEEN.append(id(x)) (a module-level name keyed by id())']
    """
    nodes = tuple(ast.walk(tree)) if nodes is None else nodes  # ``nodes``: the tree's, walked already
    tables = module_tables(tree, nodes)
    found: set[str] = set()
    # a name holds an id() only when assigned from an expression holding one: with no id(...) call in the module, no
    # expression holds one, and rule 1 has nothing to find (rule 2 is still read)
    any_id = any(is_id_call(node) for node in nodes)

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
        return any_id and node is not None and any(
            is_id_call(child) or (isinstance(child, ast.Name) and child.id in scope.from_id) for child in ast.walk(node))

    def report(node: ast.AST, what: str) -> None:
        found.add(f"{filename}:{getattr(node, 'lineno', 0)}: {ast.unparse(node).splitlines()[0]} ({what})")

    def check(owner: ast.AST, scope: Scope) -> list[ast.AST]:
        """Both rules in one scope; its nodes (:func:`own_nodes`), which :func:`visit` reads on."""
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
        return nodes

    def visit(owner: ast.AST, scope: Scope) -> None:
        for node in check(owner, scope):
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
