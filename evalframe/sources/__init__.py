"""Every input becomes frames: runs files and labels, TREC files, other frameworks' outputs; each source returns what
it built (:class:`~evalframe.sources.assemble.Built`), listed once in :data:`SOURCES`
(:mod:`evalframe.sources.catalog`).

``SOURCES``, ``Source``, ``detect``, ``candidates`` and ``read_source`` are imported on first use (PEP 562), so that
``evalframe trec`` on plain TREC files (``sources/trec_stream.py``, ``sources/trec_arrow.py``) starts without pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded on first use by __getattr__ below; imported here for type checkers
    from .catalog import SOURCES, Source, candidates, detect, read_source

__all__ = ["SOURCES", "Source", "candidates", "detect", "read_source"]


if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise take any misspelt name for Any
    def __getattr__(name: str) -> Any:
        """A name of the table of sources, imported now (PEP 562) and kept in the package from then on."""
        if name not in __all__:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from . import catalog

        value = getattr(catalog, name)
        globals()[name] = value
        return value
