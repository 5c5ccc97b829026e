"""The modules that moved in the redesign stay importable from their old paths for a while, with a FutureWarning."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(("old", "new", "name"), [
    ("evalframe.plots", "evalframe.present.plots", "plot_funnel"),
    ("evalframe.stats", "evalframe.analysis.stats", "holm"),
    ("evalframe.matching", "evalframe.build.matching", "context_similarity"),
    ("evalframe.slices", "evalframe.analysis.slices", "query_attributes"),
])
def test_an_old_module_path_still_imports_and_says_where_it_moved(old, new, name):
    sys.modules.pop(old, None)
    with pytest.warns(FutureWarning, match=rf"{old} moved to {new}; import it from there") as caught:
        alias = __import__(old, fromlist=["*"])
    assert getattr(alias, name) is getattr(importlib.import_module(new), name)
    assert caught[0].filename == __file__  # the line that imported it


def test_the_stats_alias_keeps_every_public_function():
    sys.modules.pop("evalframe.stats", None)
    with pytest.warns(FutureWarning):
        from evalframe.stats import bootstrap_means, holm  # noqa: F401
