"""Persistence: result folders (CSV or Parquet, atomic), and Haystack 1.x folders."""

from .csv import load_result, save_result

__all__ = ["load_result", "save_result"]
