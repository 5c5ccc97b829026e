"""``python -m evalframe``: the ``evalframe`` command (see ``evalframe --help`` and docs/cli.md)."""

from __future__ import annotations

import sys

from .present.cli import main

if __name__ == "__main__":
    sys.exit(main())
