"""The old import paths and call forms of the development layouts are gone (CHANGELOG.md, "Unreleased"): the package
was never released, so none is kept as an alias, and each fails the way Python (or evalframe, for an unknown option)
says so."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.resources
import sys
from pathlib import Path

import pytest

from evalframe import EvaluationResult
from evalframe.errors import UnknownArgumentError
from tests.fixtures import hand_result

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evalframe"
#: FutureWarnings still raised, each by a module another engineer rewrites in issue 36: Report(text, html)
PENDING_FUTURE_WARNINGS: set[str] = set()


def _in_package(name: str) -> bool:
    """Whether module ``name`` (``evalframe.x.y``) is a file of this package (an editable install of another checkout
    may answer an import of a module this one lacks, so the files are read, not imported)."""
    path = PACKAGE.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@pytest.mark.parametrize(("old", "new"), [
    ("evalframe.plots", "evalframe.report.plots"), ("evalframe.present.plots", "evalframe.report.plots"),
    ("evalframe.stats", "evalframe.analysis.stats"), ("evalframe.matching", "evalframe.sources.matching"),
    ("evalframe.slices", "evalframe.analysis.slices"), ("evalframe.present.report", "evalframe.report"),
    ("evalframe._moved", None), ("evalframe.build", "evalframe.sources"),
])
def test_an_old_module_is_no_module_of_the_package(old, new):
    assert not _in_package(old)
    assert new is None or _in_package(new)


@pytest.mark.parametrize("old", ["evalframe.build", "evalframe.build.runs", "evalframe.build.trec"])
def test_the_folder_renamed_sources_does_not_import_under_its_old_name(old):
    # a finder on sys.meta_path answered evalframe.build[.x] with evalframe.sources[.x]
    for name in [m for m in sys.modules if m == "evalframe.build" or m.startswith("evalframe.build.")]:
        sys.modules.pop(name)
    with pytest.raises(ModuleNotFoundError, match=r"^No module named 'evalframe\.build'$"):
        importlib.import_module(old)


def test_no_finder_of_evalframe_is_on_the_import_path():
    import evalframe  # noqa: F401

    assert [type(f).__module__ for f in sys.meta_path if type(f).__module__.startswith("evalframe")] == []


@pytest.mark.parametrize(("old", "name"), [
    ("evalframe.io.trec", "read_run"), ("evalframe.io.trec", "read_qrels"), ("evalframe.io.trec", "read_queries"),
    ("evalframe.io.trec", "RUN_COLUMNS"), ("evalframe.io.trec", "QRELS_COLUMNS"),
    ("evalframe.io.codecs", "LiteralParser"), ("evalframe.io.codecs", "literal_eval"),
    ("evalframe.io.codecs", "string_list"), ("evalframe.io.codecs", "LITERAL_CELL_LIMIT"),
    ("evalframe.io.csv", "save_options"), ("evalframe.io.csv", "separator_problem"),
])
def test_a_name_that_moved_is_no_attribute_of_its_old_module(old, name):
    module = importlib.import_module(old)
    with pytest.raises(AttributeError, match=rf"module '{old}' has no attribute '{name}'"):
        getattr(module, name)
    with pytest.raises(ImportError, match=rf"cannot import name '{name}' from '{old}'"):
        exec(f"from {old} import {name}", {})


def test_trec_metrics_takes_no_per_query():
    result = EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, progress=False)
    with pytest.raises(UnknownArgumentError, match=r"unknown argument\(s\) \['per_query'\]; trec_metrics takes measures, "
                                                   r"node, .* rel and these interval options: \['ci', "):
        result.trec_metrics(["AP"], per_query=True)  # type: ignore[call-arg]
    assert result.trec_metrics(["AP"]) == {"AP": 1.0}  # one query, its one judged document at rank 1


def test_calculate_metrics_takes_no_by():
    with pytest.raises(UnknownArgumentError, match=r"unknown argument\(s\) \['by'\]; calculate_metrics takes these "
                                                   r"options \(for slices: sliced_metrics\)"):
        hand_result().calculate_metrics(by="no_answer")


def test_evaluation_result_takes_no_list_codings():
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'list_codings'"):
        EvaluationResult({}, list_codings={})  # type: ignore[call-arg]


def test_no_package_folder_is_named_build():
    import evalframe

    assert not (importlib.resources.files(evalframe) / "build").is_dir()  # packaging tools skip folders named build


@functools.cache
def _modules(*words: str) -> dict[str, ast.Module]:
    """The package's modules whose source holds one of ``words`` (only those are parsed), by path."""
    sources = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}
    return {path: ast.parse(text) for path, text in sources.items() if any(word in text for word in words)}


def test_no_module_is_an_alias_or_answers_names_it_lacks():
    # evalframe/__init__.py's __getattr__ is the lazy import of the public names (PEP 562; start-up without pandas);
    # evalframe/sources/__init__.py's imports a module of the package on first use, nothing else (the table of
    # sources names each reader by its module, so that listing the sources loads no reader: test below)
    found = [f"{path}:{node.lineno}: module __getattr__" for path, tree in _modules("__getattr__").items()
             if path not in ("evalframe/__init__.py", "evalframe/sources/__init__.py") for node in tree.body
             if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"]
    found += [f"{path}:1: an alias module" for path, tree in _modules("Deprecated alias").items()
              if (ast.get_docstring(tree) or "").startswith("Deprecated alias")]
    assert not found, "\n".join(found)


def test_no_module_warns_of_a_deprecation():
    found = [f"{path}:{node.lineno}" for path, tree in _modules("FutureWarning", "DeprecationWarning").items()
             if path not in PENDING_FUTURE_WARNINGS
             for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in ("FutureWarning", "DeprecationWarning")]
    assert not found, "a module warns of a deprecation (the package was never released: remove the old form):\n" + \
        "\n".join(found)


def test_the_changelog_names_each_removed_path_and_what_to_call_instead():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and "never been released" in changelog
    for old, new in [("`evalframe.plots`", "`evalframe.report.plots`"), ("`evalframe.present.report`", "`evalframe.report`"),
                     ("calculate_metrics(by=...)", "sliced_metrics(by, ...)"),
                     ("trec_metrics(measures, per_query=True)", "trec_query_metrics(measures)"),
                     ("list_codings=...", "codings=Codings.of_lists(list_codings)")]:
        row = next((line for line in changelog.splitlines() if old in line), "")
        assert new in row, (old, row)
    assert "Upgrading from the flat layout" not in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_the_sources_package_answers_only_its_own_modules():
    import evalframe.sources as sources
    from evalframe.sources import ragas

    assert sources.ragas is ragas  # a module of the package, the one Python imports
    for name in ("SOURCES", "read_ragas", "_private", "nosuchmodule", "catalog.SOURCES"):
        with pytest.raises(AttributeError, match="has no attribute"):
            getattr(sources, name)
