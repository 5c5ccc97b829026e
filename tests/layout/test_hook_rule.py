"""The hook rule (tests/layout/hooks.py) finds the hook evalframe/io/atomic.py had and other ways to write one; what
stays allowed passes."""

from __future__ import annotations

import subprocess

import pytest

from .graph import ROOT
from .hooks import OLD_ATOMIC, hooks_for_tests


def test_the_hook_rule_finds_a_test_hook():
    """The rule on the hook evalframe/io/atomic.py had before this round's review, on other ways to write one, and on
    what stays allowed."""
    hooks = '''
import contextlib

#: Test hook: called with the name of every step (None outside tests).
step_hook = None
try:
    import fcntl
except ImportError:
    with contextlib.suppress(Exception):
        fault_hook: object = None
on_write = print
"""A test hook: the tests raise here."""

@contextlib.contextmanager
def injected():
    """Test-hook: replaced by the fault sweeps."""
    yield

class Faults:  # test hook
    pass

counter = 0  # test hooks count calls here
'''
    found = hooks_for_tests(hooks, "hooks.py")
    assert {(int(problem.split(":")[1]), problem.split(": ")[1].split(" (")[0], problem.rpartition(" (")[2])
            for problem in found} == {
        (5, "step_hook", "a *_hook name bound to None at module level)"),
        (5, "step_hook", "its comment or docstring says it is a test hook)"),
        (10, "fault_hook", "a *_hook name bound to None at module level)"),
        (11, "on_write", "its comment or docstring says it is a test hook)"),
        (15, "injected", "its comment or docstring says it is a test hook)"),
        (19, "Faults", "its comment or docstring says it is a test hook)"),
        (22, "counter", "its comment or docstring says it is a test hook)"),
    }, found
    allowed = '''
import logging

#: The hook a user registers to see every step (None: none).
save_callback = None
webhook = None  # a URL, not a hook of the tests

def run(step_hook=None):
    """Run every step; the tests check each."""
    local_hook = None
    return step_hook, local_hook

class Progress:
    bar_hook = None  # class level, set per instance
'''
    assert hooks_for_tests(allowed, "allowed.py") == []


def test_the_hook_rule_finds_the_hook_atomic_py_had():
    """Read from git: the version of evalframe/io/atomic.py with ``step_hook`` (skipped where the history is absent,
    such as an unpacked sdist)."""
    commit, path = OLD_ATOMIC
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True,
                           check=False)
    if shown.returncode != 0:
        pytest.skip(f"git cannot show {commit}:{path} here: {shown.stderr.strip()[:200]}")
    assert "step_hook: Callable[[str], None] | None = None" in shown.stdout.splitlines()[45]
    assert hooks_for_tests(shown.stdout, path) == [
        "evalframe/io/atomic.py:46: step_hook (a *_hook name bound to None at module level)",
        "evalframe/io/atomic.py:46: step_hook (its comment or docstring says it is a test hook)",
    ]
