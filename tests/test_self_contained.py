"""The repository needs nothing outside itself: no file refers to a path of the machine it was developed on.

A set-up a benchmark or script needs (the Haystack 1.x reference environment included) ships in the repository
(``benchmarks/setup_haystack1.sh``); a reference to the development machine's folder beside the checkout, or to an
absolute path of that machine, would be dead in any other checkout, in an sdist and after ``pip install``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The development machine's folder beside the checkout and its root folder, spelt from parts so that this file
#: names neither and is searched like every other (its examples below are built from these).
SIBLING, MACHINE_ROOT = "/".join(["..", "shared"]), "/" + "work" + "/"
OUTSIDE = re.compile(rf"\.\./+{SIBLING[3:]}\b|{MACHINE_ROOT}")
SKIPPED_FOLDERS = {".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".venv", "venv", "build",
                   "dist", "node_modules", ".ipynb_checkpoints"}


def repository_files() -> list[Path]:
    """The files git tracks (or, outside a git checkout, every file below the root but caches and builds)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True).stdout.decode()
        return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [path for path in ROOT.rglob("*") if path.is_file()
                and not SKIPPED_FOLDERS.intersection(path.relative_to(ROOT).parts)
                and not any(part.endswith(".egg-info") for part in path.relative_to(ROOT).parts)]


def references_outside(text: str) -> list[tuple[int, str]]:
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]


def test_the_pattern_finds_the_references_it_is_for():
    setup, spec = f"run {SIBLING}/tools/haystack1-venv.sh first", f"see {MACHINE_ROOT}{SIBLING[3:]}/SPEC.md"
    assert references_outside(f"{setup}\nfine\n{spec}") == [(1, setup), (3, spec)]
    assert references_outside("benchmarks/setup_haystack1.sh; shared_nodes(runs); ../notebooks/x.ipynb") == []


def test_no_file_of_the_repository_refers_outside_it():
    files = repository_files()
    assert any(path.name == "setup_haystack1.sh" for path in files)  # the listing works and holds the set-up
    found = []
    for path in files:
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # images, Parquet files: not text
        found += [f"{path.relative_to(ROOT)}:{number}: {line}"
                  for number, line in references_outside(data.decode("utf-8", errors="replace"))]
    assert not found, "files refer to paths outside the repository (ship what they need instead):\n" + "\n".join(found)
