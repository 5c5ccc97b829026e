"""The repository needs nothing outside itself: no file refers to a path of the machine it was developed on.

A set-up a benchmark or script needs (the Haystack 1.x reference environment included) ships in the repository
(``benchmarks/setup_haystack1.sh``); a reference to a sibling folder such as ``../shared`` or to an absolute
``/work/...`` path would be dead in any other checkout, in an sdist and after ``pip install``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: A sibling "shared" folder, or the development machine's /work/ (this file, which names them, is not searched).
OUTSIDE = re.compile(r"\.\./+shared\b|/work/")
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
    assert references_outside("run ../shared/tools/haystack1-venv.sh first\nfine\nsee /work/shared/SPEC.md") == [
        (1, "run ../shared/tools/haystack1-venv.sh first"), (3, "see /work/shared/SPEC.md")]
    assert references_outside("benchmarks/setup_haystack1.sh; shared_nodes(runs); ../notebooks/x.ipynb") == []


def test_no_file_of_the_repository_refers_outside_it():
    files = repository_files()
    assert any(path.name == "setup_haystack1.sh" for path in files)  # the listing works and holds the set-up
    found = []
    for path in files:
        if path == Path(__file__).resolve():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # images, Parquet files: not text
        found += [f"{path.relative_to(ROOT)}:{number}: {line}"
                  for number, line in references_outside(data.decode("utf-8", errors="replace"))]
    assert not found, "files refer to paths outside the repository (ship what they need instead):\n" + "\n".join(found)
