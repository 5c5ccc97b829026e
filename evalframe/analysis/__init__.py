"""Analyses over per-query tables: slices, run comparisons and their statistics (public API only)."""
