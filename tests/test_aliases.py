"""The modules that moved in the redesign stay importable from their old paths for a while, with a FutureWarning."""

from __future__ import annotations

import importlib
import importlib.resources
import sys

import pytest


@pytest.mark.parametrize(("old", "new", "name"), [
    ("evalframe.plots", "evalframe.present.plots", "plot_funnel"),
    ("evalframe.stats", "evalframe.analysis.stats", "holm"),
    ("evalframe.matching", "evalframe.sources.matching", "context_similarity"),
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


@pytest.mark.parametrize(("old", "new", "name"), [
    ("evalframe.build.runs", "evalframe.sources.runs", "read_runs"),
    ("evalframe.build.trec", "evalframe.sources.trec", "trec_frame"),
    ("evalframe.build.matching", "evalframe.sources.matching", "exact_match"),
    ("evalframe.build.trec", "evalframe.sources.trec", "run_from_frame"),
])
def test_the_build_folder_renamed_sources_still_imports_and_says_where_it_moved(old, new, name):
    for module in [m for m in sys.modules if m == "evalframe.build" or m.startswith("evalframe.build.")]:
        sys.modules.pop(module)
    with pytest.warns(FutureWarning, match=r"evalframe\.build\S* moved to evalframe\.sources") as caught:
        namespace: dict = {}
        exec(compile(f"import {old} as alias", __file__, "exec"), namespace)  # an import line of this file
        alias = namespace["alias"]
    assert [str(w.message) for w in caught] == [  # the package, then the module
        "evalframe.build moved to evalframe.sources; import it from there (this alias will be removed).",
        f"{old} moved to {new}; import it from there (this alias will be removed)."]
    assert getattr(alias, name) is getattr(importlib.import_module(new), name)
    assert importlib.import_module(new).__name__ == new  # the renamed module is left as it is
    assert all(warning.filename == __file__ for warning in caught)


def test_no_package_folder_is_named_build():
    import evalframe

    root = importlib.resources.files(evalframe)
    assert not (root / "build").is_dir()


@pytest.mark.parametrize("name", ["read_run", "read_qrels", "read_queries"])
def test_the_trec_readers_moved_to_sources_and_still_import_from_io(name):
    import evalframe.io.trec as old
    from evalframe.sources import trec_files

    with pytest.warns(FutureWarning, match=rf"evalframe.io.trec.{name} moved to evalframe.sources.trec_files.{name}"):
        assert getattr(old, name) is getattr(trec_files, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        old.nothing  # noqa: B018


@pytest.mark.parametrize(("name", "part"), [("trec_order", "frames.trec_codes"), ("repeated_pairs", "frames.trec_codes"),
                                            ("TrecLayout", "frames.trec_layout"), ("trec_frame", "sources.trec")])
def test_the_old_trec_path_gives_the_names_of_the_modules_split_from_it(name, part):
    for module in [m for m in sys.modules if m == "evalframe.build" or m.startswith("evalframe.build.")]:
        sys.modules.pop(module)
    with pytest.warns(FutureWarning, match="evalframe.build"):
        alias = importlib.import_module("evalframe.build.trec")
    assert getattr(alias, name) is getattr(importlib.import_module(f"evalframe.{part}"), name)
    assert name in alias.__all__
