"""Every input becomes frames: runs files and labels, TREC files, other frameworks' outputs; each source returns what
it built (:class:`~evalframe.sources.assemble.Built`), listed once in :data:`evalframe.sources.catalog.SOURCES`.

Nothing is imported here, so that ``evalframe trec`` on plain TREC files (``sources/trec_stream.py``) starts without
pandas; import each name from its module (``from evalframe.sources.catalog import SOURCES, detect``). A module is
also an attribute of the package on first use (``evalframe.sources.ragas``): the table of sources names each reader
by its module, and reads it when a file is read, so that listing the sources (``evalframe metrics --help``) loads no
reader, and no pandas.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType


def __getattr__(name: str) -> ModuleType:
    """A module of this package, imported on first use (PEP 562)."""
    if name.startswith("_") or not (Path(__file__).parent / f"{name}.py").is_file():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
