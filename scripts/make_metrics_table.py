"""Rewrite the tables generated from the registry: ``python scripts/make_metrics_table.py [path]``.

docs/metrics.md's table of metrics is :func:`evalframe.metrics.registry.metrics_table_markdown`, docs/ir-researchers.md's
table of measures :func:`evalframe.metrics.registry.measures_table_markdown`; tests/metrics/test_docs_table.py fails when
either page holds another one. With a path, only that page's metrics table is rewritten.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalframe.metrics.registry import update_measures_table, update_metrics_table

DOCS = Path(__file__).resolve().parent.parent / "docs" / "metrics.md"
IR_RESEARCHERS = DOCS.parent / "ir-researchers.md"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DOCS
    text = path.read_text(encoding="utf-8")
    updated = update_metrics_table(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    print(f"{path}: metrics table {'rewritten' if updated != text else 'up to date'}")
    if not argv:
        text = IR_RESEARCHERS.read_text(encoding="utf-8")
        updated = update_measures_table(text)
        if updated != text:
            IR_RESEARCHERS.write_text(updated, encoding="utf-8")
        print(f"{IR_RESEARCHERS}: measures table {'rewritten' if updated != text else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
