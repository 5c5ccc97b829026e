"""Every notebook under notebooks/ runs top to bottom (code cells executed in one namespace)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    namespace: dict = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs"), f"{path.name}: commit notebooks without outputs"
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)  # noqa: S102
