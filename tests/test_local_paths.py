"""A path given as a URL is refused at every entry point that takes a path (issue 35, item 12).

``result.save("memory://x/out")`` returned ``PosixPath('memory:/x/out')`` and wrote a local folder named ``memory:``;
``evalframe metrics s3://bucket/results`` looked for a local ``s3:/bucket/results``. No reader takes URLs yet: each
surface refuses one, naming its parameter or flag, before anything is read or written (one check,
``evalframe._validation.url_problem``, which the issue that reads URLs replaces). Each case runs in an empty working
folder and checks that nothing was made there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evalframe
from evalframe import EvaluationResult, InvalidParameterError
from evalframe.io.trec import write_qrels, write_run
from evalframe.present import cli, parsers
from evalframe.sources.runs import read_runs

from .fixtures import hand_result

URLS = ["memory://x/out", "s3://bucket/results", "file:///tmp/evalframe-url-test"]
RUN = {"q1": {"d1": 2.0, "d2": 1.0}}
QRELS = {"q1": {"d1": 1}}


def _result() -> EvaluationResult:
    return EvaluationResult.from_trec(RUN, QRELS, progress=False)


def _dask(function: str) -> Callable[..., Any]:
    dask = pytest.importorskip("evalframe.dask")
    return getattr(dask, function)  # type: ignore[no-any-return]


#: (surface, the parameter its message names, the call with the URL); save, load, dask.load and dask.from_runs' out_dir
#: take URLs (tests/io/test_remote_save.py, tests/dask/test_remote.py)
LIBRARY: list[tuple[str, str, Callable[[str], Any]]] = [
    ("to_trec_run", "path", lambda url: hand_result().to_trec_run(url, node="Retriever", duplicates="first")),
    ("to_qrels", "path", lambda url: _result().to_qrels(url)),
    ("from_trec run", "run", lambda url: EvaluationResult.from_trec(url, QRELS, progress=False)),
    ("from_trec qrels", "qrels", lambda url: EvaluationResult.from_trec(RUN, url, progress=False)),
    ("from_trec qrels, subtopics", "qrels", lambda url: EvaluationResult.from_trec(RUN, url, subtopics=True,
                                                                                   progress=False)),
    ("from_trec queries", "queries", lambda url: EvaluationResult.from_trec(RUN, QRELS, queries=url, progress=False)),
    ("read_runs", "path", lambda url: read_runs(url, progress=False)),
    ("from_ragas", "dataset_or_path", lambda url: EvaluationResult.from_ragas(url)),
    ("from_frame", "df", lambda url: EvaluationResult.from_frame(url)),
    ("from_haystack2", "run_result", lambda url: EvaluationResult.from_haystack2(url)),
    ("from_llamaindex", "results", lambda url: EvaluationResult.from_llamaindex(url)),
    ("io.trec.write_run", "path", lambda url: write_run(RUN, url)),
    ("io.trec.write_qrels", "path", lambda url: write_qrels(QRELS, url)),
    ("fuse runs", "runs", lambda url: evalframe.fuse([RUN, url])),
    ("fuse output", "output", lambda url: evalframe.fuse([RUN, RUN], output=url)),
    ("optimize_fusion qrels", "qrels", lambda url: evalframe.optimize_fusion([RUN, RUN], url, measure="RR")),
    ("optimize_fusion output", "output", lambda url: evalframe.optimize_fusion([RUN, RUN], QRELS, measure="RR",
                                                                               output=url)),
    ("compare TREC runs", "run", lambda url: evalframe.compare(url, RUN, qrels=QRELS)),
    ("compare qrels", "qrels", lambda url: evalframe.compare(RUN, RUN, qrels=url)),
    ("compare_report", "runs", lambda url: evalframe.compare_report([url, hand_result()])),
    ("dask.from_runs runs", "runs", lambda url: _dask("from_runs")(url, "out", partitions=1)),
]


class _PathText(os.PathLike[str]):
    """An os.PathLike whose path is a URL's text (as fsspec's paths render)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __fspath__(self) -> str:
        return self.text


@pytest.fixture
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _made(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("surface, parameter, call", LIBRARY, ids=[case[0] for case in LIBRARY])
def test_a_url_is_refused_naming_the_parameter_and_nothing_is_written(empty_cwd, surface, parameter, call, url):
    with pytest.raises(InvalidParameterError, match=rf"^{parameter}\b.* must be a local path: URLs are not read yet; "
                                                    rf"got '{url}'\.$") as caught:
        call(url)
    assert caught.value.parameter == parameter
    assert _made(empty_cwd) == []  # no folder named memory:, s3: or file:


def test_a_report_saved_to_a_url_is_refused(empty_cwd):
    report = evalframe.compare_report([hand_result(), hand_result()])
    with pytest.raises(InvalidParameterError, match="^path must be a local path: URLs are not read yet"):
        report.save("memory://x/report.html")
    assert _made(empty_cwd) == []


#: (command line with URL in one path argument, the argument as argparse names it)
COMMANDS = [
    (["demo", "--out", "{url}"], "--out"),
    (["metrics", "{url}"], "folder"),
    (["worst", "{url}"], "folder"),
    (["compare", "{url}", "b"], "RUN"),
    (["compare", "a", "b", "--qrels", "{url}"], "--qrels"),
    (["convert", "{url}", "out"], "IN"),
    (["convert", "in", "{url}"], "OUT"),
    (["convert", "run.txt", "out", "--qrels", "{url}"], "--qrels"),
    (["convert", "run.txt", "out", "--qrels", "q.txt", "--queries", "{url}"], "--queries"),
    (["flatten", "{url}", "-o", "out"], "runs"),
    (["flatten", "runs.jsonl", "-o", "{url}"], "-o/--out"),
    (["metrics", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["worst", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["flatten", "run.txt", "-o", "out", "--qrels", "{url}"], "--qrels"),
    (["report", "run.txt", "--qrels", "{url}"], "--qrels"),
    (["report", "{url}"], "RUN"),
    (["report", "a", "--html", "{url}"], "--html"),
    (["trec", "{url}", "qrels.txt"], "run"),
    (["trec", "run.txt", "{url}"], "qrels"),
    (["trec", "run.txt", "qrels.txt", "-Z", "{url}"], "-Z/--zscores"),
    (["fuse", "{url}", "b", "-o", "out.txt"], "RUN"),
    (["fuse", "a", "b", "-o", "{url}"], "-o/--out"),
    (["fuse", "a", "b", "-o", "out.txt", "--optimize", "RR", "--qrels", "{url}"], "--qrels"),
]


@pytest.mark.parametrize("url", URLS[:2])
@pytest.mark.parametrize("argv, argument", COMMANDS, ids=[" ".join(case[0]) for case in COMMANDS])
def test_a_url_on_the_command_line_is_a_usage_error_naming_the_argument(empty_cwd, capsys, argv, argument, url):
    with pytest.raises(SystemExit) as caught:
        cli.main([part.format(url=url) for part in argv])
    assert caught.value.code == 2  # a usage error: argparse's, before the command runs
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"evalframe {argv[0]}: error: argument {argument}: must be a local path: URLs are not read yet; "
                    f"got '{url}'")
    assert _made(empty_cwd) == []


def test_every_path_argument_of_the_command_line_is_in_the_sweep():
    """A path argument added later is checked too: each parser's arguments of the local-path type are listed above."""
    swept = {(argv[0], argument) for argv, argument in COMMANDS}
    typed = set()
    for name, parser in parsers.command_parsers().items():
        for action in parser._actions:
            if getattr(action.type, "__name__", "") == "local_path":
                shown = "/".join(action.option_strings) if action.option_strings else (
                    action.metavar if isinstance(action.metavar, str) else action.dest)
                typed.add((name, shown))
    assert typed == swept


def test_alocal_path_that_only_looks_like_a_scheme_is_taken(empty_cwd):
    """A file named 'x:y', or a folder 'memory:' written './memory:', is a local path."""
    folder = hand_result().save("./memory:/out", progress=False)
    assert folder == Path("memory:/out") and EvaluationResult.load("./memory:/out", progress=False).nodes == [
        "Retriever", "Reader"]
    assert json.loads((empty_cwd / "memory:" / "out" / "evalframe.json").read_text())["nodes"]
    assert hand_result().save("x:y", progress=False) == Path("x:y")


@pytest.mark.parametrize("path", [Path("memory://x/out"), Path("s3://bucket/results"), "memory:/x/out", "S3:/b/r"])
def test_a_url_whose_slashes_pathlib_collapsed_is_refused(empty_cwd, path):
    """Path('memory://x/out') is already PosixPath('memory:/x/out'): saved, it made a local folder 'memory:'."""
    with pytest.raises(InvalidParameterError, match=r"^out_dir must be a local path: URLs are not read yet; got "
                                                    r"'\w+:/[^']+', the URL '\w+://[^']+' whose '//' pathlib collapsed"):
        hand_result().save(path, progress=False)
    assert _made(empty_cwd) == []
