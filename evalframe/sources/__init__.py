"""Every input becomes frames: runs files and labels, TREC files, other frameworks' outputs; each source returns what
it built (:class:`~evalframe.sources.assemble.Built`), listed once in :data:`evalframe.sources.catalog.SOURCES`.

Nothing is imported here, so that ``evalframe trec`` on plain TREC files (``sources/trec_stream.py``) starts without
pandas; import each name from its module (``from evalframe.sources.catalog import SOURCES, detect``).
"""
