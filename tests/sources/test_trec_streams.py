"""TREC files read as a stream (evalframe/sources/trec_stream.py): standard input, gzip, devices and FIFOs are read a
block at a time, hostile inputs are refused at their first bad line with memory bounded, and no temporary file is
written (issue 35, items 1, 2 and 14). The long sweeps are in test_hostile_trec_streams.py (stress)."""

from __future__ import annotations

import gzip
import io
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evalframe.errors import LoadError
from evalframe.present import cli
from evalframe.result import EvaluationResult
from evalframe.sources.trec_files import read_qrels, read_run

ROOT = Path(__file__).resolve().parents[2]
#: The address space a child process may use: a 3 GiB gzip bomb expanded whole would not fit, one block does.
CAP = 1 << 30

# q1 ranks d1 d2 d3, judged d2 d3 relevant: AP = (1/2 + 2/3) / 2 = 7/12, P@1 = 0; q2 ranks d4 d5, judged d4 and d6
# (not retrieved) relevant: AP = (1/1) / 2 = 1/2, P@1 = 1. Means: AP 13/24 = 0.5417, P@1 0.5.
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d4 1 1.0 r\nq2 Q0 d5 2 0.5 r\n"
QRELS = "q1 0 d2 1\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d6 1\n"
PRINTED = "num_q\tall\t2\nAP   \tall\t0.5417\nP@1  \tall\t0.5000\n"
TREC_LINE = "one line `qid Q0 docid rank score tag` per retrieved document"


def _limited() -> None:  # in the child: an address-space cap
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "evalframe", "trec", *argv]


def _environment(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "EVALFRAME_TRACEBACK": ""}


def _capped(argv: list[str], tmp: Path, stdin: object = subprocess.DEVNULL, timeout: float = 60
            ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, stdin=stdin, capture_output=True, env=_environment(tmp), preexec_fn=_limited,
                          timeout=timeout, check=False)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


def _gzip_bomb(path: Path, expanded: int = 3 << 30, byte: bytes = b"\0") -> Path:
    """A gzip file of ``expanded`` bytes ``byte`` (some 1000 times smaller): one member of 16 MiB, repeated (a file
    of several members is one gzip file, read member after member)."""
    member = gzip.compress(byte * (16 << 20), compresslevel=9, mtime=0)
    with path.open("wb") as out:
        for _ in range(expanded // (16 << 20)):
            out.write(member)
    return path


def test_nul_bytes_on_standard_input_are_refused_at_line_1_in_bounded_memory_and_no_file_is_written(tmp_path):
    """/dev/zero on standard input: refused once line 1 passes 1 MiB (the old copy to a temporary file ran without
    limit: 11 GB in 60 s), under a 1 GiB address-space cap, and nothing is left in TMPDIR."""
    _, qrels = _files(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    with open("/dev/zero", "rb") as zeros:
        done = _capped(_command("-", str(qrels)), temp, stdin=zeros, timeout=30)
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode() == ("error: standard input:1: a line of more than 1,048,576 bytes, all NUL bytes (binary "
                                    f"data, not text): not a TREC run file (text, {TREC_LINE}).\n")
    assert list(temp.iterdir()) == []


def _feed(process: subprocess.Popen[bytes], piece: bytes) -> threading.Thread:
    """Write ``piece`` to the child's standard input again and again, until it stops reading."""
    def write() -> None:
        try:
            while True:
                process.stdin.write(piece)  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError, OSError):
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_an_endless_line_on_standard_input_is_refused_once_it_passes_1_mib(tmp_path):
    """An endless line without a line end (not NUL bytes) on standard input, which is never closed."""
    piece = b"q1 Q0 " + b"d" * (1 << 20)
    message = f"standard input:1: a line of more than 1,048,576 bytes, no line end: not a TREC run file (text, {TREC_LINE})."
    _, qrels = _files(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    process = subprocess.Popen(_command("-", str(qrels)), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=_environment(temp), preexec_fn=_limited)
    _feed(process, piece)  # never closed: communicate() would close it, an end of the input
    try:
        process.wait(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 1
    assert process.stderr is not None and process.stderr.read().decode() == f"error: {message}\n"
    assert list(temp.iterdir()) == []


def _distinct_lines() -> bytes:
    """1 MiB of run lines, each docid new (a run with no repeat, however often it is called)."""
    _distinct_lines.calls = getattr(_distinct_lines, "calls", 0) + 1  # type: ignore[attr-defined]
    start = _distinct_lines.calls * 100_000  # type: ignore[attr-defined]
    return b"".join(b"q1 Q0 d%d 1 1.0 r\n" % i for i in range(start, start + 50_000))


def test_standard_input_leaves_no_file_when_the_process_is_killed(tmp_path):
    """While the run is still coming in on standard input, SIGKILL once the child has read some 4 MiB of it (the
    writes into the pipe, of 64 KiB, go through only as the child reads): no file in TMPDIR, none is ever written.
    (Waiting a second instead passed on the old copy to a temporary file: the child had not started reading.)"""
    _, qrels = _files(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    process = subprocess.Popen(_command("-", str(qrels)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=_environment(temp))
    assert process.stdin is not None
    written = [0]

    def write() -> None:
        try:
            while True:
                piece = _distinct_lines()
                process.stdin.write(piece)  # type: ignore[union-attr]
                process.stdin.flush()  # type: ignore[union-attr]
                written[0] += len(piece)
        except (BrokenPipeError, ValueError, OSError):
            pass

    threading.Thread(target=write, daemon=True).start()
    deadline = time.monotonic() + 60
    while written[0] < 4 << 20 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    try:
        assert written[0] >= 4 << 20, "the child did not read its standard input"
        assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process.kill()
    assert list(temp.iterdir()) == []


def _peak_rss(argv: list[str], stdin: bytes, tmp: Path) -> tuple[int, bytes, int]:
    """(exit status, stderr, peak RSS in bytes) of a child reading ``stdin``: a fresh interpreter starts it and
    reports its children's peak (getrusage), so no earlier child of the test process counts."""
    script = ("import resource, subprocess, sys\n"
              f"done = subprocess.run({argv!r}, stdin=sys.stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
              "sys.stderr.buffer.write(done.stderr)\n"
              "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", script], input=stdin, capture_output=True, env=_environment(tmp),
                          timeout=120, check=True)
    status, peak = done.stdout.split()
    return int(status), done.stderr, int(peak) * 1024


NO_LINE = ("error: run file standard input holds no line other than comments and blank lines; a TREC run file has one "
           "line `qid Q0 docid rank score tag` per retrieved document.\n")


def test_blank_and_comment_lines_on_standard_input_are_read_in_bounded_memory(tmp_path):
    """48 MiB of blank and comment lines on standard input (three batches): refused as a file of no line, the
    process's peak some 60 MB above that of a one-line input (the batch and its copy without blanks); the old reader
    kept an array per line (+260 MB), and grew without end on ``yes '' |`` (MemoryError under a 1 GiB cap)."""
    _, qrels = _files(tmp_path)
    argv = _command("-", str(qrels))
    lines = (b"\n" * 15 + b"# a comment line\n" + b"  \t\n" + b"#\n") * ((48 << 20) // 36)
    base_status, base_error, base = _peak_rss(argv, b"# a comment\n", tmp_path)
    status, error, peak = _peak_rss(argv, lines, tmp_path)
    assert (base_status, base_error.decode()) == (status, error.decode()) == (1, NO_LINE)
    assert peak - base < 96 << 20, (peak - base) >> 20


@pytest.mark.stress
def test_an_endless_stream_of_blank_lines_is_read_in_bounded_memory(tmp_path):
    """``yes '' | evalframe trec - QRELS`` under a 1 GiB address-space cap: 1.5 GiB of blank lines read, the child
    still running (the old reader hit MemoryError at some 700 MB), its memory flat; then the end of the input: a file
    of no line."""
    _, qrels = _files(tmp_path)
    process = subprocess.Popen(_command("-", str(qrels)), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=_environment(tmp_path), preexec_fn=_limited)
    assert process.stdin is not None and process.stderr is not None
    piece, written, samples = b"\n" * (1 << 20), 0, []
    try:
        while written < 3 << 29:
            process.stdin.write(piece)
            written += len(piece)
            if written % (128 << 20) == 0:
                status = Path(f"/proc/{process.pid}/status").read_text()
                samples.append(int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]))
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 1
    assert process.stderr.read().decode() == NO_LINE.replace(" other than comments and blank lines", "")
    assert max(samples) < 300_000, samples  # kB


@pytest.mark.stress
def test_comment_lines_are_read_fast(tmp_path):
    """256 MiB of comment and blank lines: read in seconds (the old reader took 5.5 MB/s, a Python step per line:
    some 45 s here), and said to hold no line."""
    path = tmp_path / "comments.txt"
    path.write_bytes((b"# a comment line\n" + b"\n" + b"#\n") * ((256 << 20) // 20))
    start = time.perf_counter()
    with pytest.raises(LoadError, match="holds no line other than comments and blank lines"):
        read_run(path)
    assert time.perf_counter() - start < 15


def test_a_zscores_device_of_nul_bytes_is_refused_at_line_1_in_bounded_memory(tmp_path):
    """``-Z /dev/zero``: read a block at a time, refused at line 1 once it passes 1 MiB (it was read whole: a
    MemoryError under the cap); a bad line of a z-score file is named as before."""
    run, qrels = _files(tmp_path)
    done = _capped(_command(str(run), str(qrels), "--format", "trec_eval", "-Z", "/dev/zero"), tmp_path)
    assert (done.returncode, done.stderr.decode()) == (
        1, "error: /dev/zero:1: a line of more than 1,048,576 bytes, all NUL bytes (binary data, not text): not a TREC "
           "z-score file (text, one line `qid measure mean stddev` per query and measure).\n")
    zscores = tmp_path / "z.txt"
    zscores.write_text("q1 map 0.5 0.1\n\nq2 map 0.5\n")
    done = _capped(_command(str(run), str(qrels), "--format", "trec_eval", "-Z", str(zscores)), tmp_path)
    assert (done.returncode, done.stderr.decode()) == (
        1, f"error: {zscores}:3: a z-score line is 'qid measure mean stddev' (four fields, two numbers); got "
           "'q2 map 0.5'.\n")


def test_a_gzip_bomb_is_refused_at_line_1_in_bounded_memory(tmp_path):
    """3 MB of gzip (3 GiB of NUL bytes): the old reader decompressed it whole (2.8-3.1 GB, then MemoryError); now
    refused at line 1 under a 1 GiB cap."""
    run, qrels = _files(tmp_path)
    bomb = _gzip_bomb(tmp_path / "bomb.gz")
    assert bomb.stat().st_size < 4 << 20
    done = _capped(_command(str(bomb), str(qrels)), tmp_path)  # as the qrels: test_hostile_trec_streams.py
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode() == (f"error: {bomb}:1: a line of more than 1,048,576 bytes, all NUL bytes (binary data, "
                                    f"not text): not a TREC run file (text, {TREC_LINE}).\n")


def test_a_gzip_bomb_is_refused_by_the_library_readers(tmp_path):
    """read_run, read_qrels and from_trec read the same stream (a block at a time): the bomb is refused at line 1."""
    run, qrels = _files(tmp_path)
    bomb = _gzip_bomb(tmp_path / "bomb.gz", expanded=64 << 20)
    with pytest.raises(LoadError, match=r"bomb\.gz:1: a line of more than 1,048,576 bytes, all NUL bytes"):
        read_run(bomb)
    with pytest.raises(LoadError, match=r"bomb\.gz:1: a line of more than 1,048,576 bytes, all NUL bytes .* TREC qrels"):
        read_qrels(bomb)
    with pytest.raises(LoadError, match=r"bomb\.gz:1: a line of more than 1,048,576 bytes, all NUL bytes .* TREC qrels"):
        EvaluationResult.from_trec(run, bomb, progress=False)


def _cycle_bomb(path: Path, lines: bytes, expanded: int = 1 << 30) -> Path:
    """A gzip file of ``lines`` repeated (``expanded`` bytes; some 1000 times smaller): one member of 16 MiB, again."""
    member = gzip.compress(lines * ((16 << 20) // len(lines)), compresslevel=9, mtime=0)
    with path.open("wb") as out:
        for _ in range(expanded // (16 << 20)):
            out.write(member)
    return path


CYCLE = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
CYCLED = ("document 'd1' appears twice in query 'q1' (first on line 1); trec_eval refuses a run with duplicate documents "
          "(\"duplicate docs\"). Keep one of the lines.")


def test_a_gzip_bomb_of_two_lines_cycled_is_refused_at_line_3_in_bounded_memory(tmp_path):
    """Two distinct lines repeated (1 GiB expanded, 63M lines): no line repeats the pair of the line before it, so the
    old reader expanded it into columns before its whole-file check (MemoryError under the cap); each batch is
    checked as it is read now: refused at line 3, under a 1 GiB address-space cap."""
    _, qrels = _files(tmp_path)
    bomb = _cycle_bomb(tmp_path / "cycle.gz", CYCLE)
    assert bomb.stat().st_size < 4 << 20
    done = _capped(_command(str(bomb), str(qrels)), tmp_path)
    assert (done.returncode, done.stderr.decode()) == (1, f"error: {bomb}:3: {CYCLED}\n")


@pytest.mark.stress
def test_a_gzip_bomb_of_two_lines_cycled_on_standard_input_and_to_from_trec_is_refused_at_line_3(tmp_path):
    """The bomb above on standard input and read by from_trec, under the cap: refused at line 3 each time."""
    _, qrels = _files(tmp_path)
    bomb = _cycle_bomb(tmp_path / "cycle.gz", CYCLE)
    with bomb.open("rb") as stdin:
        done = _capped(_command("-", str(qrels)), tmp_path, stdin=stdin)
    assert (done.returncode, done.stderr.decode()) == (1, f"error: standard input:3: {CYCLED}\n")
    script = ("import sys\nfrom evalframe import EvaluationResult\nfrom evalframe.errors import LoadError\ntry:\n"
              f"    EvaluationResult.from_trec({str(bomb)!r}, {str(qrels)!r}, progress=False)\nexcept LoadError as error:\n"
              "    print(error)\n    sys.exit(3)\n")
    done = _capped([sys.executable, "-c", script], tmp_path)
    assert (done.returncode, done.stdout.decode()) == (3, f"{bomb}:3: {CYCLED}\n"), done.stderr.decode()


@pytest.mark.stress
def test_a_bomb_of_distinct_lines_then_a_cycle_stops_in_the_batch_of_the_cycle(tmp_path):
    """A first batch of distinct lines, then three lines cycled: the repeat is in the second batch (16 MiB on), named
    there, no later batch read (under the cap)."""
    _, qrels = _files(tmp_path)
    head = b"".join(b"q1 Q0 e%d 1 1.0 r\n" % i for i in range(1_100_000))  # 19 MB: more than a batch
    lines = b"q2 Q0 d1 1 2.0 r\nq2 Q0 d2 2 1.0 r\nq2 Q0 d3 3 0.5 r\n"
    bomb = tmp_path / "late.gz"
    with bomb.open("wb") as out:
        out.write(gzip.compress(head, compresslevel=1, mtime=0))
        member = gzip.compress(lines * ((16 << 20) // len(lines)), compresslevel=9, mtime=0)
        for _ in range(64):
            out.write(member)
    done = _capped(_command(str(bomb), str(qrels)), tmp_path)
    first = len(head.splitlines()) + 1
    assert (done.returncode, done.stderr.decode()) == (
        1, f"error: {bomb}:{first + 3}: document 'd1' appears twice in query 'q2' (first on line {first}); trec_eval "
           "refuses a run with duplicate documents (\"duplicate docs\"). Keep one of the lines.\n")


def _printed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main(["trec", *argv, "-m", "AP", "-m", "P@1"]) == 0
    return capsys.readouterr().out


def test_gzip_runs_and_qrels_give_the_numbers_of_the_plain_files(tmp_path, capsys):
    """AP 13/24 and P@1 1/2, by hand (above), for plain, gzip and two-member gzip files, on the command's columnar path,
    through from_trec and as pytrec_eval computes them."""
    run, qrels = _files(tmp_path)
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN.encode()))
    (tmp_path / "qrels.gz").write_bytes(gzip.compress(QRELS.encode()))
    half = RUN.index("q2")  # two gzip members: the first query, then the second
    (tmp_path / "members.gz").write_bytes(gzip.compress(RUN[:half].encode()) + gzip.compress(RUN[half:].encode()))
    for pair in ((run, qrels), ("run.gz", "qrels.gz"), ("members.gz", qrels), (run, "qrels.gz")):
        paths = [str(tmp_path / name) for name in pair]
        assert _printed(capsys, *paths) == PRINTED
        values = EvaluationResult.from_trec(*paths, progress=False).trec_metrics(["AP", "P@1"])
        assert values == pytest.approx({"AP": 13 / 24, "P@1": 0.5}, abs=1e-12)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator({"q1": {"d2": 1, "d3": 1}, "q2": {"d4": 1, "d6": 1}}, {"map", "P_1"}).evaluate(
        {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}})
    assert sum(query["map"] for query in theirs.values()) / 2 == pytest.approx(13 / 24, abs=1e-12)


def test_a_gzip_run_on_standard_input_gives_the_numbers_of_the_file(tmp_path, monkeypatch, capsys):
    """`zcat`-less: gzip bytes on standard input are decompressed as they are read."""
    _, qrels = _files(tmp_path)
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(RUN.encode()))))
    assert _printed(capsys, "-", str(qrels)) == PRINTED


def test_standard_input_with_tabs_is_read_once_and_its_bad_line_named(tmp_path, monkeypatch, capsys):
    """A run with tabs (Arrow's string kernels read it, as they arrive), good, then bad at line 3: named as standard
    input's line 3 (the batch alone read again line by line, from memory); the good one gives the numbers."""
    _, qrels = _files(tmp_path)
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(RUN.replace(" ", "\t").encode())))
    assert _printed(capsys, "-", str(qrels)) == PRINTED
    bad = RUN.replace(" ", "\t").replace("q1\tQ0\td3\t3\t1.0\tr", "q1\tQ0\td3\t3\tlots\tr")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(bad.encode())))
    assert cli.main(["trec", "-", str(qrels)]) == 1
    assert capsys.readouterr().err == "error: standard input:3: the score (column 5) must be a number; got 'lots'.\n"


def test_a_character_device_is_not_called_missing(tmp_path, capsys):
    """`evalframe trec /dev/zero QRELS` says what is wrong with /dev/zero (it said "does not exist")."""
    run, qrels = _files(tmp_path)
    assert cli.main(["trec", "/dev/zero", str(qrels)]) == 1
    assert capsys.readouterr().err == ("error: /dev/zero:1: a line of more than 1,048,576 bytes, all NUL bytes (binary "
                                       f"data, not text): not a TREC run file (text, {TREC_LINE}).\n")
    assert cli.main(["trec", str(run), "/dev/null"]) == 1
    assert capsys.readouterr().err == ("error: qrels file /dev/null holds no line; a TREC qrels file has one line "
                                       "`qid iter docid relevance` per judgment.\n")


def test_a_fifo_is_read_once(tmp_path, capsys):
    """A FIFO (`<(zcat run.gz)`) is read once, as its bytes arrive: a run with tabs gives the numbers."""
    _, qrels = _files(tmp_path)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as out:
            out.write(RUN.replace(" ", "\t").encode())

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert _printed(capsys, str(fifo), str(qrels)) == PRINTED
    writer.join(timeout=10)


def test_run_and_qrels_cannot_both_be_standard_input(tmp_path, capsys):
    """`evalframe trec - -` names both arguments (it said "qrels file - does not exist")."""
    assert cli.main(["trec", "-", "-"]) == 1
    assert capsys.readouterr().err == ("error: run and qrels cannot both be standard input (-): standard input is read "
                                       "once; give one of them as a file (evalframe trec - QRELS, or evalframe trec "
                                       "RUN -).\n")


def test_the_qrels_may_be_standard_input(tmp_path, capsys, monkeypatch):
    """`evalframe trec RUN -` reads the qrels from standard input (it said "qrels file - does not exist")."""
    run, qrels = _files(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(qrels.read_bytes())))
    assert cli.main(["trec", str(run), "-", "-m", "AP", "-m", "P@1"]) == 0
    assert capsys.readouterr().out == "num_q\tall\t2\nAP   \tall\t0.5417\nP@1  \tall\t0.5000\n"


def test_a_cut_gzip_file_is_named(tmp_path, capsys):
    """A gzip file cut short: the file named, not a raw EOFError (standard input too)."""
    _, qrels = _files(tmp_path)
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(RUN.encode() * 50)[:-30])
    assert cli.main(["trec", str(cut), str(qrels)]) == 1
    assert capsys.readouterr().err == (f"error: run file {cut} cannot be read (EOFError: Compressed file ended before the "
                                       "end-of-stream marker was reached): the gzip file is damaged or cut short.\n")
    with pytest.raises(LoadError, match=r"^qrels file .*cut\.gz cannot be read \(EOFError: .*\): the gzip file is "
                                        r"damaged or cut short\.$"):
        read_qrels(cut)


@pytest.mark.parametrize("size", [1 << 20, 3 << 19, 16 << 20])
@pytest.mark.parametrize(("before", "after", "line"), [(b"", b"\nq1 0 d1 1\n", 1), (b"q1 0 d1 1\n", b"\nq1 0 d2 1\n", 2),
                                                        (b"q1 0 d1 1\nq1 0 d2 1\n", b"", 3)],
                         ids=["first", "inside", "last"])
def test_a_line_of_1_mib_is_read_and_one_byte_more_is_refused_wherever_it_is(size, before, after, line):
    """The stated maximum, exactly, whatever the bytes read at a time: 1,048,576 bytes before the line end."""
    import io

    from evalframe.sources.trec_stream import MAX_LINE, blocks, standard_input

    fits = before + b"x" * MAX_LINE + after
    assert b"".join(block.data for block in blocks(standard_input("qrels", io.BytesIO(fits)), size)) == fits
    with pytest.raises(LoadError, match=rf"^standard input:{line}: a line of more than 1,048,576 bytes, no line end: "
                                        r"not a TREC qrels file \(text, one line `qid iter docid relevance` per "
                                        r"judgment\)\.$"):
        list(blocks(standard_input("qrels", io.BytesIO(before + b"x" * (MAX_LINE + 1) + after)), size))
