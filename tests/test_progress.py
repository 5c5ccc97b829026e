"""When progress bars show (evalframe._progress): where a person watches, unless progress=False."""

from __future__ import annotations

import io
import sys
import types

import pytest

from evalframe import EvaluationResult, InvalidParameterError, load_demo_runs
from evalframe import _progress
from tests.fixtures import hand_result


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def fake_ipython(monkeypatch: pytest.MonkeyPatch, shell: object) -> None:
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", module)


@pytest.fixture
def no_ipython(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)


def test_a_terminal_is_watched(monkeypatch, no_ipython):
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert _progress.watching() and _progress.enabled(None)
    assert not _progress.enabled(False)


def test_a_pipe_is_not_watched(monkeypatch, no_ipython):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not _progress.watching() and not _progress.enabled(None)
    assert _progress.enabled(True)
    monkeypatch.setattr(sys, "stderr", None)  # pythonw: no stderr at all
    assert not _progress.watching()


def test_a_jupyter_kernel_is_watched_a_plain_ipython_module_is_not(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    fake_ipython(monkeypatch, types.SimpleNamespace(kernel=object()))
    assert _progress.in_kernel() and _progress.enabled(None)
    fake_ipython(monkeypatch, None)  # IPython imported, but no shell running
    assert not _progress.in_kernel() and not _progress.enabled(None)
    fake_ipython(monkeypatch, types.SimpleNamespace(kernel=None))  # a terminal IPython shell: its stderr decides
    assert not _progress.enabled(None)


def test_progress_must_be_none_or_a_bool():
    with pytest.raises(InvalidParameterError, match="progress must be None, True or False; got 'yes'"):
        _progress.enabled("yes")
    with pytest.raises(InvalidParameterError, match="progress"):
        hand_result().save("unused", progress=1)


def test_progress_false_prints_nothing_even_in_a_terminal(monkeypatch, tmp_path, capfd, no_ipython):
    monkeypatch.setattr(_progress, "DELAY", 0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    result = EvaluationResult.from_runs(*load_demo_runs(top_k=3), progress=False)
    folder = result.save(tmp_path / "run", progress=False)
    EvaluationResult.load(folder, progress=False)
    assert terminal.getvalue() == ""
    assert capfd.readouterr().err == ""


def test_a_watched_build_save_and_load_show_bars(monkeypatch, tmp_path, no_ipython):
    monkeypatch.setattr(_progress, "DELAY", 0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    result = EvaluationResult.from_runs(*load_demo_runs(top_k=3))
    folder = result.save(tmp_path / "run")
    again = EvaluationResult.load(folder)
    shown = terminal.getvalue()
    for step in ("building frames", "scoring contexts", "saving", "loading"):
        assert f"evalframe: {step}" in shown
    assert again.calculate_metrics() == result.calculate_metrics()


def test_quick_steps_print_nothing(monkeypatch, tmp_path, no_ipython):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    hand_result().save(tmp_path / "run")  # watched, but done before DELAY
    assert _progress.DELAY > 0 and terminal.getvalue() == ""


def test_scoring_in_batches_gives_the_same_numbers(monkeypatch):
    monkeypatch.setattr("evalframe.sources.flatten.SCORING_BATCH", 7)
    runs = load_demo_runs(top_k=3)
    batched = EvaluationResult.from_runs(*runs, progress=True)
    whole = EvaluationResult.from_runs(*runs, progress=False)
    for node in whole:
        assert batched[node].equals(whole[node])


def test_reading_a_runs_file_shows_a_bar_only_when_asked(capsys):
    from pathlib import Path

    from evalframe import read_runs

    runs = Path(__file__).resolve().parents[1] / "docs" / "examples" / "runs.jsonl"
    quiet, _ = read_runs(runs, progress=False)
    assert capsys.readouterr().err == ""
    assert len(quiet) == len(read_runs(runs, progress=True)[0])  # the same labels with a bar (too quick to show)
