"""Every notebook under notebooks/ is stored executed (its outputs readable on a repository page), runs top to bottom
in a Jupyter kernel, and its stored text outputs are what the code prints now (``python scripts/make_quickstart.py``
stores them again)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
REGENERATE = "run `python scripts/make_quickstart.py` to store the notebooks executed again"


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"getting-started.ipynb", "quickstart.ipynb"}


#: A progress bar's text (tqdm's: ``desc:  50%|#####     | 1/2 [00:00<00:00, ...]``, redrawn after a carriage return)
_BAR = re.compile(r"\r|\d+%\|.*\| *\d+/\d+ \[")


def is_bar(output) -> bool:
    """Whether an output is a progress bar on stderr: one appears once a step has taken 0.5 s, which a loaded machine
    (the suite's other process) may reach; it is no warning, and no output the notebook stores."""
    return output.output_type == "stream" and output.name == "stderr" and _BAR.search(output.text) is not None


def texts(notebook) -> list[list[str]]:
    """Per code cell, its outputs' plain text (images and HTML left out: their bytes vary with library versions;
    progress bars too)."""
    return [[output.get("text") or output.get("data", {}).get("text/plain", "") for output in cell.outputs
             if not is_bar(output)] for cell in notebook.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch, tmp_path):
    stored = nbformat.read(path, as_version=4)
    code = [cell for cell in stored.cells if cell.cell_type == "code"]
    assert [cell.get("execution_count") for cell in code] == list(range(1, len(code) + 1)), \
        f"{path.name}: store the notebook executed top to bottom; {REGENERATE}"
    assert any(cell.outputs for cell in code), f"{path.name}: stored without outputs; {REGENERATE}"
    monkeypatch.setenv("MPLBACKEND", "Agg")  # the kernel inherits it: no display needed
    notebook = copy.deepcopy(stored)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    streams = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
               if o.output_type == "stream" and o.name == "stderr" and not is_bar(o)]
    assert not streams, f"{path.name} writes to stderr (a warning): {streams[0].text[:200]}"
    if path.name == "quickstart.ipynb":  # its last cell reloads the saved result and compares the metrics
        last = [c for c in notebook.cells if c.cell_type == "code"][-1]
        assert last.outputs[0]["data"]["text/plain"] == "True"
    fresh = [[text for text in cell if not text.startswith("<Figure")] for cell in texts(notebook)]
    kept = [[text for text in cell if not text.startswith("<Figure")] for cell in texts(stored)]
    assert kept == fresh, f"{path.name}: the stored outputs are out of date; {REGENERATE}"
