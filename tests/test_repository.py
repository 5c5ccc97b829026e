"""What the repository holds besides the package: no third-party build output, each requirement written once.

Read from the files (git's list of tracked files when git is there, the tree otherwise); nothing is imported.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tracked_files() -> list[str]:
    """The repository's files, as git lists them (the tree under ROOT when this is no git checkout)."""
    if shutil.which("git"):
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=False)
        if listed.returncode == 0:
            return [name for name in listed.stdout.decode().split("\0") if name]
    return [str(path.relative_to(ROOT)) for path in ROOT.rglob("*") if path.is_file() and ".git" not in path.parts]


def test_no_wheel_or_archive_of_a_package_is_committed():
    built = [name for name in tracked_files() if re.search(r"\.(whl|egg|tar\.gz|zip)$", name)]
    assert not built, f"build output committed: {built}"


def test_no_folder_of_an_evalframe_run_is_committed_at_the_root():
    # a report and a saved result written into the working folder by hand (0/report.html, 0/results/...)
    outputs = sorted({name.split("/")[0] for name in tracked_files()
                      if name.endswith(("/report.html", "/evalframe.json")) and name.count("/") <= 2
                      and not name.startswith(("tests/", "evalframe/", "docs/", "notebooks/", "benchmarks/"))})
    assert not outputs, f"run output committed at the root: {outputs}"


def _project(requirement: str) -> str:
    """The project a requirement names, normalised as PEP 503 does (``pytrec_eval-terrier>=0.5`` -> ``pytrec-eval-terrier``)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def test_each_extra_names_a_project_once():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    twice = {extra: sorted({p for p in projects if projects.count(p) > 1})
             for extra, projects in ((extra, [_project(r) for r in requirements]) for extra, requirements in extras.items())
             if len(set(projects)) < len(projects)}
    assert "test" in extras and not twice, f"an extra names a project twice: {twice}"


def test_the_project_name_rule_is_pep_503s():
    assert _project("pytrec_eval-terrier>=0.5.6") == "pytrec-eval-terrier"
    assert _project("dask[dataframe]>=2024.8") == "dask"
    assert _project("ranx>=0.3.21") == _project("Ranx") == "ranx"
