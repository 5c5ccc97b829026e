"""What the TREC readers accept and refuse, against the trec_eval 10.0 binary (differential tests).

For every variant of a run or qrels file the readers accept (comment lines, columns after a run's sixth, tabs and
runs of blanks, exponent scores, CRLF line ends, gzip, blank lines, the iteration column, negative grades, ``#`` in
a docid), evalframe's numbers (``from_trec`` + ``trec_query_metrics``, and ``evalframe trec``, whose columnar path
takes the common variants itself) equal what the trec_eval binary prints for the same files (gzip: for the file
decompressed, trec_eval reads no gzip), at its printed precision. For every variant refused, trec_eval refuses it
too (exit code != 0), or docs/ir-researchers.md ("Reading TREC files") says why evalframe differs: those are
checked here as documented.

The binary is benchmarks/setup_trec_eval.sh's (``~/.cache/evalframe-bench/trec_eval-10.0/trec_eval``, what
benchmarks/vs_peers.py runs): found there, else built by that script; without a C compiler (or without the
script's download) these tests skip, saying why. The files are small ones written here; trec_eval's own test files
are not part of the repository (their licence is unclear), but when the built source tree has them
(``trec_eval-10.0/test``), the last test reads them too.
"""

from __future__ import annotations

import argparse
import gzip
import io
import shutil
import subprocess
from pathlib import Path

import pytest

from evalframe import EvaluationResult
from evalframe.errors import InvalidParameterError, LoadError, SchemaError
from evalframe.metrics.trec import parse_measures
from evalframe.present import cli
from evalframe.present.trec_command import trec_columnar

ROOT = Path(__file__).resolve().parents[2]
#: where benchmarks/setup_trec_eval.sh builds trec_eval by default (benchmarks/vs_peers.py's TREC_EVAL_DEFAULT)
TREC_EVAL = Path.home() / ".cache" / "evalframe-bench" / "trec_eval-10.0" / "trec_eval"
#: trec_eval's -m arguments, the names it prints and evalframe's names of the same measures
TREC_EVAL_M = ["map", "ndcg", "P.5", "recip_rank", "Rprec", "bpref", "recall.10", "num_q"]
NAMES = {"map": "AP", "ndcg": "nDCG", "P_5": "P@5", "recip_rank": "RR", "Rprec": "Rprec", "bpref": "Bpref",
         "recall_10": "R@10"}
PRINTED = 0.5e-4 + 1e-12  # trec_eval prints 4 decimals


def _canonical(name: str) -> str | None:
    try:
        return str(parse_measures([name])[0])
    except InvalidParameterError:
        return None


#: trec_eval's counts of the lines read (retrieved, judged relevant, both, per query), compared too once the registry
#: has them (issue 27 adds them): a line read or dropped by mistake shows there first
for _name in ("num_ret", "num_rel", "num_rel_ret"):
    if _canonical(_name) is not None:
        TREC_EVAL_M.insert(-1, _name)
        NAMES[_name] = str(_canonical(_name))


@pytest.fixture(scope="session")
def trec_eval() -> Path:
    """The trec_eval 10.0 binary: found where benchmarks/setup_trec_eval.sh puts it, else built by that script."""
    if _is_trec_eval_10(TREC_EVAL):
        return TREC_EVAL
    if shutil.which("cc") is None or shutil.which("make") is None:
        pytest.skip("trec_eval 10.0 is not built and there is no C compiler (cc) and make to build it with "
                    "benchmarks/setup_trec_eval.sh (Debian: apt-get install build-essential)")
    built = subprocess.run(["bash", str(ROOT / "benchmarks" / "setup_trec_eval.sh")], capture_output=True, text=True,
                           timeout=600, check=False)
    if built.returncode != 0 or not _is_trec_eval_10(TREC_EVAL):
        reason = (built.stderr.strip().splitlines() or ["no message"])[-1]
        pytest.skip(f"benchmarks/setup_trec_eval.sh could not build trec_eval 10.0: {reason}")
    return TREC_EVAL


def _is_trec_eval_10(path: Path) -> bool:
    if not path.is_file():
        return False
    shown = subprocess.run([str(path), "-v"], capture_output=True, text=True, check=False)
    return "trec_eval version 10.0" in shown.stdout + shown.stderr


def _run_trec_eval(binary: Path, qrels: Path, run: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    measures = [word for name in TREC_EVAL_M for word in ("-m", name)]
    return subprocess.run([str(binary), "-q", *flags, *measures, str(qrels), str(run)], capture_output=True,
                          text=True, timeout=60, check=False)


def _trec_eval_values(output: str) -> dict[str, dict[str, float]]:
    """trec_eval's lines ``measure qid value`` as {qid or "all": {evalframe's name: value}} (num_q as "num_q")."""
    values: dict[str, dict[str, float]] = {}
    for line in output.splitlines():
        name, qid, value = line.split()
        values.setdefault(qid, {})[NAMES.get(name, name)] = float(value)
    return values


def _evalframe_values(run: Path, qrels: Path, *, complete: bool = False) -> dict[str, dict[str, float]]:
    """from_trec's per-query values and means, and num_q, as _trec_eval_values gives them."""
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    measures = list(NAMES.values())
    table = result.trec_query_metrics(measures, complete=complete)
    values = {str(qid): {name: float(value) for name, value in row.items()} for qid, row in table.iterrows()}
    values["all"] = {**result.trec_metrics(measures, complete=complete), "num_q": float(len(table))}
    return values


def _cli_values(run: Path, qrels: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, dict[str, float]]:
    measures = [word for name in NAMES.values() for word in ("-m", name)]
    assert cli.main(["trec", str(run), str(qrels), "-q", *flags, *measures]) == 0
    return _trec_eval_values(capsys.readouterr().out)


def _assert_agree(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> None:
    assert sorted(ours) == sorted(theirs)
    for qid, values in theirs.items():
        for name, value in values.items():
            assert abs(ours[qid][name] - value) <= PRINTED, (qid, name, ours[qid][name], value)


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


RUN = ("q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\nq1 Q0 d3 3 1.5 run\nq1 Q0 d4 4 0.25 run\n"
       "q2 Q0 d1 1 9 run\nq2 Q0 d5 2 3 run\nq2 Q0 d6 3 1 run\nq3 Q0 d7 1 1 run\n")
QRELS = "q1 0 d2 1\nq1 0 d4 2\nq1 0 d9 0\nq2 0 d5 1\nq2 0 d1 0\nq4 0 d1 1\n"

#: (name, run text, qrels text): each one a way to write RUN and QRELS that trec_eval 10.0 reads
ACCEPTED = [
    ("plain", RUN, QRELS),
    ("comment lines", "# a run\nq1 Q0 d1 1 2.5 run\n  # indented, runs only\nq1 Q0 d2 2 1.5 run\n#\n"
     + RUN.split("\n", 2)[2] + "# the end, no line end",
     "# judged by hand\nq1 0 d2 1\nq1 0 d4 2\n# one line at a time in qrels\nq1 0 d9 0\nq2 0 d5 1\nq2 0 d1 0\n"
     "q4 0 d1 1\n"),
    ("columns after the sixth", RUN.replace(" run\n", " run trec_eval ignores  the rest\n", 3), QRELS),
    ("tabs and runs of blanks", RUN.replace(" ", "\t", 5).replace("Q0", "  Q0 \t"), QRELS.replace(" ", "\t ")),
    ("exponent scores", RUN.replace("2.5", "2.5e0").replace(" 9 ", " 9E+0 ").replace("0.25", "25e-2")
     .replace(" 3 run", " 3.0E0 run"), QRELS),
    ("CRLF line ends", RUN.replace("\n", "\r\n"), QRELS.replace("\n", "\r\n")),
    ("blank lines in a run", "\n" + RUN.replace("\nq2", "\n\n  \t\nq2"), QRELS),
    ("the iteration column", RUN.replace("Q0", "iter7"), QRELS.replace(" 0 d", " Q0 d")),
    ("negative grades and # in docids", RUN.replace("d3", "d#3"), QRELS + "q1 0 d#3 -1\nq2 0 d6 -2\n"),
    ("no line end at the end", RUN.rstrip("\n"), QRELS.rstrip("\n")),
]


@pytest.mark.parametrize("name, run_text, qrels_text", ACCEPTED, ids=[case[0] for case in ACCEPTED])
def test_accepted_variants_give_trec_evals_numbers(trec_eval, tmp_path, capsys, name, run_text, qrels_text):
    run, qrels = _write(tmp_path / "run.txt", run_text), _write(tmp_path / "qrels.txt", qrels_text)
    printed = _run_trec_eval(trec_eval, qrels, run, "-c")  # q4: judged, not retrieved (10.0 refuses it without -c)
    assert printed.returncode == 0, printed.stderr
    theirs = _trec_eval_values(printed.stdout)
    _assert_agree(_evalframe_values(run, qrels, complete=True), theirs)
    _assert_agree(_cli_values(run, qrels, capsys, "-c"), theirs)


#: the variants the columnar path of ``evalframe trec`` takes itself (anything else falls back to from_trec's path)
FAST = ["plain", "comment lines without indentation", "exponent scores", "CRLF line ends", "gzip", "gzip, no suffix",
        "empty lines", "negative grades and # in docids", "no line end at the end", "a header of comment lines"]


@pytest.mark.parametrize("name", FAST)
def test_the_columnar_path_takes_the_common_variants(trec_eval, tmp_path, name):
    texts = {case[0]: case[1:] for case in ACCEPTED}
    run_text, qrels_text = texts.get(name, (RUN, QRELS))
    if name == "comment lines without indentation":
        run_text = "# a run\n" + RUN.replace("\nq2", "\n#q2 Q0 d0 1 9 run: a comment too\nq2") + "# the end"
        qrels_text = "# judged by hand\n" + QRELS.replace("\nq2", "\n# a comment\nq2")
    if name == "a header of comment lines":  # read from a view of the file's bytes after them (no copy)
        run_text, qrels_text = "# a run\n#\n# by bm25\n" + RUN, "# judged by hand\n" + QRELS
    if name == "empty lines":  # in a run (trec_eval refuses them in qrels; evalframe reads them)
        run_text = "\n" + RUN.replace("\nq2", "\n\n\nq2")
    plain = _write(tmp_path / "run.txt", run_text), _write(tmp_path / "qrels.txt", qrels_text)
    run, qrels = plain
    if name.startswith("gzip"):  # decided by the magic bytes, not by the suffix
        suffix = ".gz" if name == "gzip" else ""
        run = _write(tmp_path / f"run.bin{suffix}", gzip.compress(plain[0].read_bytes()))
        qrels = _write(tmp_path / f"qrels.bin{suffix}", gzip.compress(plain[1].read_bytes()))
    args = argparse.Namespace(run=run, qrels=qrels, measures=list(NAMES.values()), per_query=True, complete=True,
                              missing_queries="skip", format="tsv", digits=4)
    shown = trec_columnar(args)
    assert shown is not None  # not handed over to the pandas path
    printed = _run_trec_eval(trec_eval, plain[1], plain[0], "-c")
    assert printed.returncode == 0, printed.stderr
    _assert_agree(_trec_eval_values(shown), _trec_eval_values(printed.stdout))


#: (name, run text, qrels text, evalframe's message): refused by both
REFUSED = [
    ("run line with 5 columns", RUN.replace("d2 2 1.5 run", "d2 2 1.5"), QRELS,
     "run.txt:2: a TREC run line has 6 whitespace-separated columns `qid Q0 docid rank score tag`; this one has 5"),
    ("qrels line with 3 columns", RUN, QRELS.replace("d4 2", "d4"),
     "qrels.txt:2: a TREC qrels line has 4 whitespace-separated columns `qid iter docid relevance`; this one has 3"),
    ("qrels line with 5 columns (preferences?)", RUN, QRELS.replace("q2 0 d5 1", "q2 0 sub1 d5 1"),
     "qrels.txt:4: a TREC qrels line has 4 whitespace-separated columns `qid iter docid relevance`; this one has 5: "
     "'q2 0 sub1 d5 1'. If these are preference judgments (trec_eval -R prefs"),
    ("a docid twice in a run query", RUN.replace("d3 3", "d1 3"), QRELS,
     "run.txt:3: document 'd1' appears twice in query 'q1' (first on line 1); trec_eval refuses a run with duplicate "
     "documents (\"duplicate docs\")"),
    ("a docid twice in a qrels query", RUN, QRELS + "q1 0 d2 0\n",
     "qrels.txt:7: document 'd2' appears twice in query 'q1' (first on line 1); trec_eval refuses qrels with duplicate "
     "documents (\"duplicate docs\"). Keep one of the lines."),
    ("judgment groups (qrels_jg)", RUN, QRELS + "q1 judge2 d2 0\n",
     "qrels.txt:7: document 'd2' appears twice in query 'q1' (first on line 1); trec_eval refuses qrels with "
     "duplicate documents (\"duplicate docs\"). Keep one of the lines. The second column differs ('0' on line 1, "
     "'judge2' here): if it names judgment groups, this is trec_eval's qrels_jg format"),
    ("an empty run file", "", QRELS, "run file {run} holds no line; a TREC run file has one line"),
    ("an empty qrels file", RUN, "", "qrels file {qrels} holds no line; a TREC qrels file has one line"),
    ("an empty run and an empty qrels file", "", "", "run file {run} holds no line; a TREC run file has one line"),
]


@pytest.mark.parametrize("name, run_text, qrels_text, message", REFUSED, ids=[case[0] for case in REFUSED])
def test_refused_variants_are_refused_by_trec_eval_too(trec_eval, tmp_path, capsys, name, run_text, qrels_text,
                                                       message):
    run, qrels = _write(tmp_path / "run.txt", run_text), _write(tmp_path / "qrels.txt", qrels_text)
    assert _run_trec_eval(trec_eval, qrels, run, "-c").returncode != 0
    expected = message.format(run=run, qrels=qrels)
    with pytest.raises(LoadError) as caught:
        EvaluationResult.from_trec(run, qrels, progress=False)
    assert expected in str(caught.value)
    assert cli.main(["trec", str(run), str(qrels), "-c"]) == 1  # both ways of the command: the same message
    assert expected in capsys.readouterr().err


#: (name, run text, qrels text, evalframe's message): trec_eval reads these silently as something else (atof / atol
#: of a word is 0, of "1.5" is 1; a run of comments only retrieves nothing: with -c every qrels query scores 0);
#: evalframe refuses them (docs/ir-researchers.md, "Reading TREC files")
REFUSED_ONLY_BY_EVALFRAME = [
    ("a score that is no number", RUN.replace("1.5 run", "high run", 1), QRELS,
     "run.txt:2: the score (column 5) must be a number; got 'high'."),
    ("a NaN score", RUN.replace("1.5 run", "nan run", 1), QRELS, "run.txt:2: the score (column 5) must be a number"),
    ("a grade with a fraction", RUN, QRELS.replace("d4 2", "d4 1.5"),
     "qrels.txt:2: the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 for unjudged); got '1.5'. "
     "If these are preference judgments"),
    ("a grade that is no number", RUN, QRELS.replace("d4 2", "d4 high"), "qrels.txt:2: the relevance grade (column 4) "
     "must be an integer"),
    ("a run of comments only", "# nothing retrieved\n\n", QRELS,
     "run file {run} holds no line other than comments and blank lines; a TREC run file has one line"),
]


@pytest.mark.parametrize("name, run_text, qrels_text, message", REFUSED_ONLY_BY_EVALFRAME,
                         ids=[case[0] for case in REFUSED_ONLY_BY_EVALFRAME])
def test_what_trec_eval_misreads_silently_is_refused(trec_eval, tmp_path, name, run_text, qrels_text, message):
    run, qrels = _write(tmp_path / "run.txt", run_text), _write(tmp_path / "qrels.txt", qrels_text)
    assert _run_trec_eval(trec_eval, qrels, run, "-c").returncode == 0  # trec_eval reads it, as a number it makes up
    with pytest.raises(LoadError) as caught:
        EvaluationResult.from_trec(run, qrels, progress=False)
    assert message.format(run=run) in str(caught.value)


#: (name, qrels text, what trec_eval 10.0 does): its qrels reader refuses these ("Malformed line"), crashes on them,
#: or reads an indented comment as a judgment of query "#", where its run reader skips the same lines; evalframe reads
#: qrels by the run reader's rule (docs/ir-researchers.md, "Reading TREC files")
QRELS_READ_AS_RUNS_ARE = [
    ("a blank line", QRELS.replace("\nq2", "\n\nq2"), "refuses"),
    ("a blank line at the end", QRELS + "\n", "refuses"),
    ("two comment lines in a row", "# judged by hand\n# in 2026\n" + QRELS, "refuses"),
    ("a comment line at the end", QRELS + "# the end\n", "refuses"),
    ("an indented comment line", "  # judged by hand\n" + QRELS, "query '#'"),
]


@pytest.mark.parametrize("name, qrels_text, theirs", QRELS_READ_AS_RUNS_ARE,
                         ids=[case[0] for case in QRELS_READ_AS_RUNS_ARE])
def test_qrels_lines_trec_eval_refuses_but_reads_in_runs_are_read(trec_eval, tmp_path, name, qrels_text, theirs):
    run, qrels = _write(tmp_path / "run.txt", RUN), _write(tmp_path / "qrels.txt", qrels_text)
    printed = _run_trec_eval(trec_eval, qrels, run, "-c")
    if theirs == "refuses":
        assert printed.returncode != 0
    else:  # a judgment of query "#" (grade atol("hand") = 0), which -c evaluates
        assert printed.returncode == 0 and "#" in _trec_eval_values(printed.stdout)
    printed = _run_trec_eval(trec_eval, _write(tmp_path / "clean.txt", QRELS), run, "-c")
    _assert_agree(_evalframe_values(run, qrels, complete=True), _trec_eval_values(printed.stdout))


def test_a_qrels_query_missing_from_the_run_follows_either_version(trec_eval, tmp_path, capsys):
    """trec_eval 10.0 exits without -c (missing_queries="error"); 9.x and pytrec_eval skip it (the default)."""
    run, qrels = _write(tmp_path / "run.txt", RUN), _write(tmp_path / "qrels.txt", QRELS)  # q4: judged only
    refused = _run_trec_eval(trec_eval, qrels, run)
    assert refused.returncode != 0 and "'q4'" in refused.stderr
    message = "query 'q4' of the qrels has no document in the run"
    with pytest.raises(SchemaError, match=message):
        EvaluationResult.from_trec(run, qrels, progress=False).trec_metrics(["AP"], missing_queries="error")
    assert cli.main(["trec", str(run), str(qrels), "--missing-queries", "error"]) == 1
    assert message in capsys.readouterr().err
    with pytest.raises(SchemaError, match=message):  # the pandas path of the command says the same
        run_tabs = _write(tmp_path / "run-tabs.txt", RUN.replace(" ", "\t"))
        EvaluationResult.from_trec(run_tabs, qrels, progress=False).trec_query_metrics(["AP"], missing_queries="error")
    assert cli.main(["trec", str(run_tabs), str(qrels), "--missing-queries", "error"]) == 1
    assert message in capsys.readouterr().err
    # with -c, 10.0 evaluates it (all 0), and so does missing_queries="error" with complete=True
    theirs = _trec_eval_values(_run_trec_eval(trec_eval, qrels, run, "-c").stdout)
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    assert result.trec_query_metrics(["AP"], complete=True, missing_queries="error")["AP"].to_dict() == pytest.approx(
        {qid: values["AP"] for qid, values in theirs.items() if qid != "all"}, abs=PRINTED)
    # skipped (9.x): the means of trec_eval 10.0 on the qrels without q4
    theirs = _trec_eval_values(_run_trec_eval(trec_eval, _write(tmp_path / "q123.txt", QRELS.replace("q4 0 d1 1\n", "")),
                                              run).stdout)
    _assert_agree(_evalframe_values(run, qrels), theirs)


def test_trec_evals_own_test_files_when_the_source_tree_has_them(trec_eval, capsys):
    """trec_eval's test/ folder (not in this repository): its comment, truncated-run and plain files read alike."""
    folder = trec_eval.parent / "test"
    pairs = [("results.test", "qrels.test"), ("results.trunc", "qrels.test"),
             ("results.test", "qrels.test.with-comments"),
             ("results.comment.test", "qrels.comment.test")]
    pairs = [(folder / run, folder / qrels) for run, qrels in pairs if (folder / run).is_file() and (folder / qrels).is_file()]
    if not pairs:
        pytest.skip(f"trec_eval's test files are not in {folder}")
    for run, qrels in pairs:
        printed = _run_trec_eval(trec_eval, qrels, run, "-c")
        assert printed.returncode == 0, printed.stderr
        theirs = _trec_eval_values(printed.stdout)
        _assert_agree(_evalframe_values(run, qrels, complete=True), theirs)
        _assert_agree(_cli_values(run, qrels, capsys, "-c"), theirs)


def test_a_run_from_standard_input_as_trec_eval_10_reads_it(trec_eval, tmp_path, capsys, monkeypatch):
    """``evalframe trec - QRELS`` reads the run from standard input (trec_eval 10.0: ``trec_eval QRELS -``)."""
    qrels = _write(tmp_path / "qrels.txt", QRELS)
    text = "# a run on stdin\n" + RUN.replace("\n", "\r\n")
    measures = [word for name in TREC_EVAL_M for word in ("-m", name)]
    printed = subprocess.run([str(trec_eval), "-q", "-c", *measures, str(qrels), "-"], input=text, capture_output=True,
                             text=True, timeout=60, check=False)
    assert printed.returncode == 0, printed.stderr
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    _assert_agree(_cli_values(Path("-"), qrels, capsys, "-c"), _trec_eval_values(printed.stdout))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 d1 1 2.5\n")))
    assert cli.main(["trec", "-", str(qrels)]) == 1
    assert capsys.readouterr().err == ("error: standard input:1: a TREC run line has 6 whitespace-separated columns `qid Q0 "
                                       "docid rank score tag`; this one has 5: 'q1 Q0 d1 1 2.5'.\n")
