"""Every notebook under notebooks/ is committed without outputs and runs top to bottom in a Jupyter kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"getting-started.ipynb", "quickstart.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None, \
                f"{path.name}: commit notebooks without outputs"
    monkeypatch.setenv("MPLBACKEND", "Agg")  # the kernel inherits it: no display needed
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    if path.name == "quickstart.ipynb":  # its last cell reloads the saved result and compares the metrics
        last = [c for c in notebook.cells if c.cell_type == "code"][-1]
        assert last.outputs[0]["data"]["text/plain"] == "True"
