"""Shared fixtures.

``storage`` runs a test once per way a user holds a result: in memory as built, and after a round trip through
each on-disk format (``result.save(...)`` then ``EvaluationResult.load``; see docs/persistence.md). The metric tests
take their result through it, so every hand-worked number is checked on what a loaded folder gives as well.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from evalframe import EvaluationResult

STORAGES = ("memory", "csv", "parquet")


def _through(storage: str, folder: Path) -> Callable[[EvaluationResult], EvaluationResult]:
    names = itertools.count()

    def through(result: EvaluationResult) -> EvaluationResult:
        if storage == "memory":
            return result
        path = folder / f"r{next(names)}"
        with warnings.catch_warnings():
            # a test frame cut from a bigger one has a non-default index, which is not saved: the metrics do not read it
            warnings.filterwarnings("ignore", message=r"node .*: the frame's index is not a default RangeIndex")
            if storage == "csv":
                result.save(path)
            else:
                result.save(path, format=storage)
        return EvaluationResult.load(path)

    return through


@pytest.fixture(params=STORAGES)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[EvaluationResult], EvaluationResult]:
    """``storage(result)``: the result as the user would have it (memory: as is; csv / parquet: saved and loaded back)."""
    return _through(request.param, tmp_path)


def pytest_configure(config: pytest.Config) -> None:
    """On CI the references are installed (the test extra): a missing one fails the run instead of skipping its tests."""
    import importlib.util
    import os

    if os.environ.get("CI"):
        missing = [name for name in ("pytrec_eval", "ir_measures", "ranx") if importlib.util.find_spec(name) is None]
        if missing:
            raise pytest.UsageError(f"CI needs the test extra's references {missing}: pip install -e '.[test]'")
