"""Hostile TREC inputs on standard input and in gzip files, swept (stress: .ci/run runs them with -m stress): every
one is refused with one line naming the file (``standard input`` for ``-``) and, where a line is to blame, the line,
exit status 1, under a 1 GiB address-space cap, with no file left in TMPDIR; the valid ones give the numbers of the
plain file (worked out by hand in test_trec_streams.py). Issue 35, items 1, 2 and 14."""

from __future__ import annotations

import gzip
import random
import re
import subprocess
import sys

import pytest

from .test_trec_streams import PRINTED, QRELS, RUN, _capped, _command, _feed, _files, _gzip_bomb, _limited, \
    _environment

pytestmark = pytest.mark.stress

LONG = "a line of more than 1,048,576 bytes"
QRELS_LINE = "one line `qid iter docid relevance` per judgment"


def _noise(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


#: What goes on standard input (made when its test runs: hundreds of MB, never at collection), and the error it gets
#: (a regular expression of the line after ``error: ``).
HOSTILE_STDIN = [
    ("nul bytes with line ends", lambda: b"\0\0\0\n" * (4 << 20),
     r"standard input:1: a TREC run line has 6 whitespace-separated columns .*; this one has 1: .*"),
    ("one 100 MB line", lambda: b"q1 Q0 " + b"d" * (100 << 20),
     rf"standard input:1: {LONG}, no line end: not a TREC run file .*"),
    ("a 100 MB line after good ones", lambda: RUN.encode() + b"x" * (100 << 20) + b"\n",
     rf"standard input:6: {LONG}, no line end: not a TREC run file .*"),
    ("100 MB of NUL bytes", lambda: b"\0" * (100 << 20),
     rf"standard input:1: {LONG}, all NUL bytes \(binary data, not text\): .*"),
    *[(f"binary noise {seed}", lambda seed=seed: _noise(32 << 20, seed), r"standard input:[0-9]+: .*")
      for seed in range(3)],
    ("gzip noise", lambda: _gz(_noise(8 << 20, 7)), r"standard input:[0-9]+: .*"),
    ("empty", lambda: b"", "run file standard input holds no line; a TREC run file has one line .*"),
    ("comments only", lambda: b"# a run\n" * 1000,
     "run file standard input holds no line other than comments and blank lines; .*"),
    ("cut gzip", lambda: _gz(RUN.encode() * 1000)[:-100],
     r"run file standard input cannot be read \(EOFError: .*\): the gzip file is damaged or cut short\."),
    ("gzip and garbage", lambda: _gz(RUN.encode()) + b"garbage",
     r"run file standard input cannot be read \(BadGzipFile: .*\): the gzip file is damaged or cut short\."),
    ("gzip bomb", lambda: _gz(b"\0" * (512 << 20)), rf"standard input:1: {LONG}, all NUL bytes .*"),
    ("a bad line after a tab", lambda: RUN.replace(" ", "\t").encode() + b"q3\tQ0\td1\t1\tx\tr\n",
     r"standard input:6: the score \(column 5\) must be a number; got 'x'\."),
]


@pytest.mark.parametrize(("data", "message"), [case[1:] for case in HOSTILE_STDIN], ids=[case[0] for case in HOSTILE_STDIN])
def test_hostile_standard_input_is_refused_in_bounded_memory(tmp_path, data, message):
    _, qrels = _files(tmp_path)
    source = tmp_path / "input"
    source.write_bytes(data())
    temp = tmp_path / "tmp"
    temp.mkdir()
    with source.open("rb") as stdin:
        done = _capped(_command("-", str(qrels)), temp, stdin=stdin, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert re.fullmatch(f"error: {message}\n", err, flags=re.DOTALL), err
    assert list(temp.iterdir()) == []


#: gzip files of hostile bytes, as the run and as the qrels.
HOSTILE_GZIP = [
    ("NUL bomb", lambda path: _gzip_bomb(path), rf"{{path}}:1: {LONG}, all NUL bytes \(binary data, not text\): .*"),
    ("blank line bomb", lambda path: _gzip_bomb(path, 256 << 20, b"\n"), "{kind} file {path} holds no line; .*"),
    ("one line bomb", lambda path: _gzip_bomb(path, 1 << 30, b"x"), rf"{{path}}:1: {LONG}, no line end: .*"),
    ("cut", lambda path: path.write_bytes(_gz((RUN if "run" in path.name else QRELS).encode() * 20000)[:-1000]),
     r"{kind} file {path} cannot be read \(EOFError: .*\): the gzip file is damaged or cut short\."),
    ("garbage", lambda path: path.write_bytes(_gz((RUN if "run" in path.name else QRELS).encode()) + b"\x1f\x8bxx"),
     r"{kind} file {path} cannot be read \((BadGzipFile|EOFError|error): .*\): the gzip file is damaged or cut short\."),
    ("noise", lambda path: path.write_bytes(_gz(_noise(4 << 20, 3))), "{path}:[0-9]+: .*"),
]


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize(("make", "message"), [case[1:] for case in HOSTILE_GZIP], ids=[case[0] for case in HOSTILE_GZIP])
def test_hostile_gzip_files_are_refused_in_bounded_memory(tmp_path, kind, make, message):
    run, qrels = _files(tmp_path)
    bad = tmp_path / f"bad-{kind}.gz"
    make(bad)
    argv = [str(bad), str(qrels)] if kind == "run" else [str(run), str(bad)]
    done = _capped(_command(*argv), tmp_path, timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert re.fullmatch("error: " + message.format(kind=kind, path=re.escape(str(bad))) + "\n", err, flags=re.DOTALL), err


def test_a_gzip_bomb_is_refused_by_every_command_and_the_library(tmp_path):
    """compare, convert and fuse read TREC runs as evalframe trec does; so does from_trec in a capped process."""
    run, qrels = _files(tmp_path)
    bomb = _gzip_bomb(tmp_path / "bomb.gz")
    expected = re.escape(f"{bomb}:1: {LONG}, all NUL bytes (binary data, not text): not a TREC ")
    for argv in (["compare", str(run), str(bomb), "--qrels", str(qrels)], ["compare", str(run), str(run), "--qrels", str(bomb)],
                 ["convert", str(bomb), str(tmp_path / "out"), "--qrels", str(qrels), "--to", "csv"],
                 ["fuse", str(run), str(bomb), "-o", str(tmp_path / "fused.txt")]):
        done = _capped([sys.executable, "-m", "evalframe", *argv], tmp_path, timeout=300)
        err = done.stderr.decode()
        assert done.returncode == 1, err
        assert re.fullmatch(f"error: {expected}.*\n", err, flags=re.DOTALL), (argv, err)
    script = ("import sys\nfrom evalframe import EvaluationResult\nfrom evalframe.errors import LoadError\ntry:\n"
              f"    EvaluationResult.from_trec({str(run)!r}, {str(bomb)!r}, progress=False)\nexcept LoadError as error:\n"
              "    print(error)\n    sys.exit(3)\n")
    done = _capped([sys.executable, "-c", script], tmp_path, timeout=300)
    assert done.returncode == 3, done.stderr.decode()
    assert re.fullmatch(f"{expected}qrels file .*\n", done.stdout.decode()), done.stdout.decode()


def test_an_endless_repeated_line_on_standard_input_is_refused_at_line_2(tmp_path):
    """`yes 'q1 Q0 d1 1 1.0 r' | evalframe trec - QRELS`: a docid twice in a query at line 2, not an endless read."""
    _, qrels = _files(tmp_path)
    process = subprocess.Popen(_command("-", str(qrels)), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=_environment(tmp_path), preexec_fn=_limited)
    _feed(process, b"q1 Q0 d1 1 1.0 r\n" * 4096)
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 1
    assert process.stderr is not None
    assert process.stderr.read().decode().startswith("error: standard input:2: document 'd1' appears twice in query 'q1'")


def test_a_gzip_bomb_of_one_line_repeated_is_refused_at_line_2(tmp_path):
    """A gzip file of one valid line repeated (1 GiB expanded): a docid twice in a query, named at line 2 before the
    rest is read (no 60M rows of columns)."""
    _, qrels = _files(tmp_path)
    line = b"q1 Q0 d1 1 1.0 r\n"
    member = gzip.compress(line * ((16 << 20) // len(line)), compresslevel=9, mtime=0)
    bomb = tmp_path / "lines.gz"
    bomb.write_bytes(member * 64)
    done = _capped(_command(str(bomb), str(qrels)), tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode().startswith(f"error: {bomb}:2: document 'd1' appears twice in query 'q1' (first on line 1)")


#: Valid inputs in gzip forms: the numbers of the plain files.
VALID_GZIP = [
    ("one member", lambda text: _gz(text)),
    ("two members", lambda text: _gz(text[:len(text) // 2]) + _gz(text[len(text) // 2:])),
    ("a member per line", lambda text: b"".join(_gz(line) for line in text.splitlines(keepends=True))),
    ("an empty member first", lambda text: _gz(b"") + _gz(text)),
    ("zero padding", lambda text: _gz(text) + b"\0" * 1024),
]


@pytest.mark.parametrize("make", [case[1] for case in VALID_GZIP], ids=[case[0] for case in VALID_GZIP])
def test_valid_gzip_forms_give_the_numbers_of_the_plain_files(tmp_path, make):
    run, qrels = (tmp_path / "run.gz", tmp_path / "qrels.gz")
    run.write_bytes(make(RUN.encode()))
    qrels.write_bytes(make(QRELS.encode()))
    for argv, stdin in (([str(run), str(qrels)], None), (["-", str(qrels)], run)):
        with (stdin.open("rb") if stdin else open("/dev/null", "rb")) as handle:
            done = _capped(_command(*argv, "-m", "AP", "-m", "P@1"), tmp_path, stdin=handle)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode() == PRINTED


def test_a_huge_valid_looking_gzip_run_of_distinct_lines_is_read_block_by_block(tmp_path):
    """A gzip run of 2M distinct lines (about 50 MB expanded) under the cap: read, the numbers of its two queries."""
    _, qrels = _files(tmp_path)
    lines = [f"q1 Q0 x{i} {i + 4} {-i}.0 r\n" for i in range(1_000_000)] + [f"q2 Q0 y{i} {i + 3} {-i}.0 r\n"
                                                                          for i in range(1_000_000)]
    run = tmp_path / "big.gz"
    run.write_bytes(_gz(RUN.encode() + "".join(lines).encode()))
    done = _capped(_command(str(run), str(qrels), "-m", "AP", "-m", "P@1"), tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == PRINTED  # the extra documents rank below the judged ones and are not relevant
