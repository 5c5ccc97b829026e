"""The old import paths of the folder ``evalframe.build``, renamed :mod:`evalframe.sources` (deprecated aliases).

``import evalframe.build.runs`` (or ``from evalframe.build.trec import trec_frame``) still works for a while: a finder on
``sys.meta_path`` answers every ``evalframe.build[.x]`` with a module holding the names of ``evalframe.sources[.x]``
(the same objects: a function imported from either path is the same function), after a FutureWarning at the
importing line. The renamed module itself is left untouched (its ``__name__`` stays ``evalframe.sources.x``).
No folder named ``build`` is left in the package, the name packaging and analysis tools skip as build output.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

from .errors import warn

OLD, NEW = "evalframe.build", "evalframe.sources"
#: Modules split after the rename: the old path gives the names of the parts too (``evalframe.build.trec.trec_order``).
SPLIT = {"evalframe.sources.trec": ("evalframe.frames.trec_codes", "evalframe.frames.trec_layout")}


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # a plain module

    def exec_module(self, module: ModuleType) -> None:
        warn(f"{module.__name__} moved to {self.target}; import it from there (this alias will be removed).", FutureWarning)
        names: list[str] = []
        for part in (self.target, *SPLIT.get(self.target, ())):
            renamed = importlib.import_module(part)
            for name, value in vars(renamed).items():
                if not (name.startswith("__") and name.endswith("__")) and name not in module.__dict__:
                    module.__dict__[name] = value
            names += [name for name in getattr(renamed, "__all__", ()) if name not in names]
            module.__dict__.setdefault("__doc__", renamed.__doc__)
        module.__dict__["__all__"] = names


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds ``evalframe.build[.x]`` as ``evalframe.sources[.x]``."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != OLD and not fullname.startswith(OLD + "."):
            return None
        renamed = NEW + fullname[len(OLD):]
        if importlib.util.find_spec(renamed) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(renamed), is_package=fullname == OLD)


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (importing evalframe twice, or reloading it, adds no second one)."""
    if not any(type(finder).__name__ == MovedFinder.__name__ and type(finder).__module__ == __name__
               for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
