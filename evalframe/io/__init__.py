"""Persistence: result folders (CSV or Parquet, atomic), and Haystack 1.x folders (see docs/persistence.md).

Modules, each holding one thing:

``results``    the order of a save and of a load (:func:`save_result`, :func:`load_result`);
``manifest``   ``evalframe.json``: reading it and checking its fields;
``codecs``     column encodings shared by CSV and Parquet (the codec of each column, its cells as written);
``literals``   the literal parser: literal cells read back with ``ast.literal_eval``'s rules;
``csv``        evalframe's own CSV files (``csv_dialect``: the separators, encodings and quotings they may have;
               ``csv_render``: their texts made column-wide in Arrow; ``arrow_csv``: the pyarrow reader of them);
``parquet``    the Parquet files;
``partitioned`` partitioned Parquet folders: the partition rule, one partition's files written and read;
``haystack1``  folders Haystack 1.x wrote;
``folder``     reading one generation of a folder through a directory descriptor;
``atomic``     replacing a folder atomically (exchange, locks, cleanup of dead savers' leftovers);
``remote``     result folders at URLs: safe saves on object storage (generations, the manifest written last).
"""

from .remote import resolve
from .results import load_result, save_parts, save_result

__all__ = ["load_result", "resolve", "save_parts", "save_result"]
