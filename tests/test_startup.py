"""Start-up (issue 26): which modules ``import evalframe`` and the command's parsers load, each in a fresh interpreter.

Behaviour, not time (the times are benchmarks/startup.py's): pandas, matplotlib, scipy, rapidfuzz and Dask load
only when a feature uses them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The third-party modules a feature loads when it needs them, never at start-up.
ON_USE = ("pandas", "matplotlib", "scipy", "rapidfuzz", "dask", "distributed", "tqdm")
#: What the console script ``evalframe`` runs.
CONSOLE = "import sys; from evalframe.present.cli import main; sys.argv[0] = 'evalframe'; sys.exit(main())"


def loaded(code: str, *argv: str) -> tuple[int, list[str]]:
    """The exit status of a fresh interpreter running ``code`` and the modules of ON_USE it had loaded at exit."""
    return loaded_each([(code, *argv)])[0]


def loaded_each(calls: list[tuple[str, ...]]) -> list[tuple[int, list[str]]]:
    """:func:`loaded` of each ``(code, *argv)``, the interpreters run at once (each its own process: on two cores
    two at a time), in the order given."""
    report = ("import atexit, json, sys\n"
              f"atexit.register(lambda: sys.__stderr__.write('\\nLOADED ' + json.dumps([m for m in {ON_USE!r} "
              "if m in sys.modules]) + '\\n'))\n")
    processes = [subprocess.Popen([sys.executable, "-c", report + code, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for code, *argv in calls]
    outcomes = []
    for process in processes:
        _, stderr = process.communicate(timeout=300)
        line = next(line for line in stderr.splitlines() if line.startswith("LOADED "))
        outcomes.append((process.returncode, json.loads(line.removeprefix("LOADED "))))
    return outcomes


def loaded_in_turn(argvs: list[list[str]]) -> list[tuple[int, list[str]]]:
    """The console script's exit status for each argv, run in turn by one fresh interpreter, with the modules of
    ON_USE loaded by then (by it and the commands before it; after the last, those loaded at exit).

    For a check that each command loads none of them this is a check of each in a fresh interpreter, at the cost of
    one start-up instead of one per command: a module once imported stays in ``sys.modules``, so what the commands
    loaded by the end is the union of what each loads alone, and an empty union means each loaded none (a command
    that needs a module loads it whatever the commands before it imported). A command expected to load one must run
    alone (:func:`loaded_each`)."""
    code = ("import json, sys\n"
            "from evalframe.present.cli import main\n"
            "outcomes = []\n"
            f"for argv in json.loads({json.dumps(json.dumps(argvs))}):\n"
            "    sys.argv[:] = ['evalframe', *argv]\n"
            "    try:\n"
            "        status = main()  # sys.exit(main()): the console script\n"
            "    except SystemExit as stop:  # argparse's exit (--help, --version, a usage error)\n"
            "        status = stop.code\n"
            "    status = 0 if status is None else status if isinstance(status, int) else 1\n"
            f"    outcomes.append((status, [m for m in {ON_USE!r} if m in sys.modules]))\n"
            "print('\\nOUTCOMES ' + json.dumps(outcomes), file=sys.__stderr__)\n")
    report = ("import atexit, json, sys\n"
              f"atexit.register(lambda: sys.__stderr__.write('\\nLOADED ' + json.dumps([m for m in {ON_USE!r} "
              "if m in sys.modules]) + '\\n'))\n")
    process = subprocess.run([sys.executable, "-c", report + code], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
    lines = process.stderr.splitlines()
    assert process.returncode == 0, process.stderr
    outcomes = [(status, modules) for status, modules in
                json.loads(next(line for line in lines if line.startswith("OUTCOMES ")).removeprefix("OUTCOMES "))]
    at_exit = json.loads(next(line for line in lines if line.startswith("LOADED ")).removeprefix("LOADED "))
    assert len(outcomes) == len(argvs), outcomes
    return outcomes[:-1] + [(outcomes[-1][0], at_exit)]


def test_import_evalframe_loads_none_of_them():
    assert loaded("import evalframe") == (0, [])


def test_the_command_line_parsers_and_list_metrics_load_none_of_them():
    argvs = [["--help"], ["list-metrics"], ["--version"], ["trec", "--help"], ["metrics", "--help"]]
    outcomes = loaded_in_turn(argvs)  # in one interpreter: each loads none (see loaded_in_turn)
    assert dict(zip(map(tuple, argvs), outcomes)) == {tuple(argv): (0, []) for argv in argvs}


def test_python_m_evalframe_help_loads_none_of_them():
    assert loaded("import runpy, sys; sys.argv[1:] = ['--help']; runpy.run_module('evalframe', run_name='__main__')") == (
        0, [])


def test_a_public_name_built_on_pandas_loads_it_on_first_use():
    code = ("import sys, evalframe\n"
            "assert 'pandas' not in sys.modules\n"
            "from evalframe import EvaluationResult\n"
            "assert evalframe.EvaluationResult is EvaluationResult is sys.modules['evalframe.result'].EvaluationResult\n"
            "assert 'EvaluationResult' in vars(evalframe)  # kept: the next lookup does not import again\n")
    assert loaded(code) == (0, ["pandas"])


def test_evalframe_trec_on_plain_trec_files_loads_none_of_them(tmp_path):
    """The columnar path (evalframe.present.trec_command): pyarrow reads the files, no pandas (issue 26)."""
    pytest.importorskip("pyarrow")
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run.write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\nq2 Q0 d2 1 1.0 bm25\nq2 Q0 d1 2 1.0 bm25\n")
    qrels.write_text("q1 0 d1 1\nq3 0 d1 1\n")
    extras = ([], ["-q"], ["-c", "--format", "json"], ["--format", "markdown", "-q"],
              ["--format", "trec_eval", "-q", "-M1", "-J", "-l", "1", "-m", "P.1,2", "-m", "official"])
    outcomes = loaded_in_turn([["trec", str(run), str(qrels), "-m", "P@1", "-m", "nDCG", *extra] for extra in extras])
    assert dict(zip(map(tuple, extras), outcomes)) == {tuple(extra): (0, []) for extra in extras}


def test_a_command_that_reads_results_loads_pandas_when_it_runs(tmp_path):
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run.write_text("q1\tQ0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n")  # a tab: the one TREC reader's too, on columns
    qrels.write_text("q1 0 d1 1\n")
    assert loaded(CONSOLE, "trec", str(run), str(qrels), "-m", "P@1") == (0, [])
    qrels.write_text("q1 0 d1 1\nq1 0 00 1\n")  # a judged "00" (no document): from_trec's rule, and its warning
    (status, modules), (converted, converting) = loaded_each([
        (CONSOLE, "trec", str(run), str(qrels), "-m", "P@1"),
        (CONSOLE, "convert", str(run), str(tmp_path / "out"), "--qrels", str(qrels), "--to", "csv")])
    assert status == 0 and "pandas" in modules
    assert not {"matplotlib", "scipy", "rapidfuzz", "dask", "distributed"} & set(modules)
    assert converted == 0 and "pandas" in converting


def test_every_public_name_is_there_on_first_use():
    code = ("import evalframe\n"
            "names = {}\n"
            "exec('from evalframe import *', names)\n"
            "missing = sorted(set(evalframe.__all__) - set(names))\n"
            "assert not missing, missing\n"
            "assert set(evalframe.__all__) <= set(dir(evalframe))\n"
            "try:\n"
            "    evalframe.no_such_name\n"
            "except AttributeError as error:\n"
            "    assert str(error) == \"module 'evalframe' has no attribute 'no_such_name'\", error\n"
            "else:\n"
            "    raise AssertionError('no AttributeError')\n")
    status, modules = loaded(code)
    assert status == 0 and "pandas" in modules and "rapidfuzz" not in modules  # rapidfuzz: when a text is matched


def test_a_misspelt_name_is_still_an_error_for_type_checkers(tmp_path, monkeypatch):
    """The package's lazy ``__getattr__`` is hidden from type checkers: a typo is reported, a real name typed.

    mypy reads evalframe from this checkout and none of the installed packages (pandas' and numpy's stubs are most of
    a full check's time: their types are Any here, which the names of evalframe's own do not need), with no
    configuration but these flags, and reports the user's script only: the typo is its one error.
    """
    api = pytest.importorskip("mypy.api")
    script = tmp_path / "user.py"
    script.write_text("import evalframe\nfrom evalframe import EvaluationResult\n"
                      "reveal_type(evalframe.EvaluationResult)\nevalframe.EvaluationResul\n")
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    empty = tmp_path / "mypy.ini"
    empty.write_text("[mypy]\n")
    out, _, status = api.run([str(script), "--no-incremental", "--ignore-missing-imports", "--no-site-packages",
                              "--follow-imports=silent", "--config-file", str(empty)])
    assert status == 1
    assert 'user.py:4: error: Module has no attribute "EvaluationResul"' in out
    assert "Found 1 error in 1 file" in out
    assert "evalframe.result.EvaluationResult" in out  # the real name keeps its type


def test_subpackages_are_attributes_of_the_package_and_dir_lists_public_names():
    code = ("import evalframe, sys; print(evalframe.analysis.__name__, evalframe.sources.__name__); "
            "d = dir(evalframe); print('EvaluationResult' in d, 'report' in d, 'Any' in d, 'importlib' in d)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["evalframe.analysis", "evalframe.sources", "True", "True", "False", "False"]
