"""Rewrite the table of metrics in docs/metrics.md from the registry: ``python scripts/make_metrics_table.py [path]``.

The table is :func:`evalframe.metrics.registry.metrics_table_markdown`; tests/metrics/test_docs_table.py fails when
docs/metrics.md holds another one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalframe.metrics.registry import update_metrics_table

DOCS = Path(__file__).resolve().parent.parent / "docs" / "metrics.md"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DOCS
    text = path.read_text(encoding="utf-8")
    updated = update_metrics_table(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    print(f"{path}: metrics table {'rewritten' if updated != text else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
