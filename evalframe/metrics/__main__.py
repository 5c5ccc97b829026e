"""``python -m evalframe.metrics [docs/metrics.md]``: rewrite the table of metrics in docs/metrics.md from the registry."""

from __future__ import annotations

import sys
from pathlib import Path

from .registry import default_docs_path, write_metrics_table


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else default_docs_path()
    changed = write_metrics_table(path)
    print(f"{path}: metrics table {'rewritten' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
