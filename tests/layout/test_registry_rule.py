"""The registry rule (tests/layout/registries.py) finds the registries evalframe once kept, and the ways around it
that reviews found; what stays allowed passes."""

from __future__ import annotations

import ast

from .registries import OUTSIDE, id_registries


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
