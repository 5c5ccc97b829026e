"""read_run / read_qrels (the one TREC reader, pyarrow's) against a slow, obviously-correct reader written here from
the rules (trec_eval 10.0's reading: columns split on spaces and tabs, blank and comment lines skipped, a run's
columns after the sixth ignored, scores as atof reads them, integer grades; ``bytes.splitlines`` numbers the lines of
the messages): the same frame, or the same error, for hand-picked spellings and for random lines. The reader used to
have a pyarrow path and a pandas path compared with each other here; there is one path now."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalframe.errors import LoadError
from evalframe.sources import trec_arrow
from evalframe.sources.trec_files import read_qrels, read_run

NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.IGNORECASE)
INTEGER = re.compile(r"[+-]?[0-9]+")
PREFERENCES = (" If these are preference judgments (trec_eval -R prefs: `qid jg jsg docid level`, the level a real "
               "number): evalframe does not evaluate them; it reads graded qrels `qid iter docid relevance`, integer "
               "grades.")


def reference(path, kind: str) -> pd.DataFrame | str:
    """The frame read_run / read_qrels should return for the file, or the message of its LoadError, line by line."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    width, layout = (6, "qid Q0 docid rank score tag") if kind == "run" else (4, "qid iter docid relevance")
    # a comment line: its first character other than a space or a tab is "#"; it runs to the next "\n" (trec_eval
    # reads lines up to "\n"), a "\r" in it included; lines are numbered as bytes.splitlines splits them
    comment_spans, offset = [], 0
    for segment in data.split(b"\n"):
        if segment.lstrip(b" \t").startswith(b"#"):
            comment_spans.append((offset, offset + len(segment)))
        offset += len(segment) + 1
    rows, seen, comments, offset = [], {}, bool(comment_spans), 0
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        begin, offset = offset, offset + len(raw)
        raw = raw.rstrip(b"\r\n")  # its line end (a line holds no "\r" or "\n")
        if any(start <= begin <= end for start, end in comment_spans):
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return (f"{path}:{number}: not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason}); TREC files are "
                    "plain (ASCII or UTF-8) text.")
        fields = [field for field in re.split(r"[ \t]+", line) if field]
        if not fields:
            continue
        if len(fields) < width or (kind == "qrels" and len(fields) > width):
            return (f"{path}:{number}: a TREC {kind} line has {width} whitespace-separated columns `{layout}`; this one "
                    f"has {len(fields)}: {line.strip()!r:.100}." + (PREFERENCES if kind == "qrels" and len(fields) == 5
                                                                    else ""))
        value = fields[4 if kind == "run" else 3]
        if kind == "run" and not NUMBER.fullmatch(value):
            return f"{path}:{number}: the score (column 5) must be a number; got {value!r:.40}."
        if kind == "qrels" and not INTEGER.fullmatch(value):
            return (f"{path}:{number}: the relevance grade (column 4) must be an integer (e.g. 0, 1, 2, or -1 for "
                    f"unjudged); got {value!r:.40}." + (PREFERENCES if NUMBER.fullmatch(value) else ""))
        if kind == "qrels" and not -2**63 <= int(value) < 2**63:
            return f"{path}:{number}: the relevance grade {value!r:.40} is too large (64-bit integers)."
        key = (fields[0], fields[2])
        if key in seen:
            first, group = seen[key]
            groups = (f" The second column differs ({group!r:.20} on line {first}, {fields[1]!r:.20} here): if it names "
                      "judgment groups, this is trec_eval's qrels_jg format (trec_eval -R qrels_jg, a judgment per "
                      "judge), which evalframe does not evaluate." if kind == "qrels" and group != fields[1] else "")
            return (f"{path}:{number}: document {fields[2]!r} appears twice in query {fields[0]!r} (first on line "
                    f"{first}); trec_eval refuses {'a run' if kind == 'run' else 'qrels'} with duplicate documents "
                    "(\"duplicate docs\"). Keep one of the lines." + groups)
        seen[key] = (number, fields[1])
        rows.append((fields[0], fields[2], float(value) if kind == "run" else int(value)))
    if not rows:
        held = " other than comments and blank lines" if comments else ""
        return (f"{kind} file {path} holds no line{held}; a TREC {kind} file has one line `{layout}` per "
                f"{'retrieved document' if kind == 'run' else 'judgment'}.")
    queries = {qid: i for i, qid in enumerate(dict.fromkeys(qid for qid, _, _ in rows))}
    if kind == "qrels":  # grouped by query (in order of first appearance), file order within
        rows = sorted(rows, key=lambda row: queries[row[0]])
        return pd.DataFrame({"qid": pd.Series([r[0] for r in rows], dtype=object),
                             "docid": pd.Series([r[1] for r in rows], dtype=object),
                             "relevance": np.array([r[2] for r in rows], dtype=np.int64)})
    # trec_eval's ranking: score as a 32-bit float descending, ties by docid descending (code point order)
    rows = sorted(rows, key=lambda row: row[1], reverse=True)
    with np.errstate(over="ignore"):
        rows = sorted(rows, key=lambda row: (queries[row[0]], -float(np.float32(row[2]))))
    counted: dict[str, int] = {}
    ranks = [counted.__setitem__(row[0], counted.get(row[0], 0) + 1) or counted[row[0]] for row in rows]
    return pd.DataFrame({"qid": pd.Series([r[0] for r in rows], dtype=object),
                         "docid": pd.Series([r[1] for r in rows], dtype=object),
                         "score": np.array([r[2] for r in rows], dtype=np.float64),
                         "rank": np.array(ranks, dtype=np.int64)})


def read(reader, path) -> pd.DataFrame | str:
    try:
        return reader(path)
    except LoadError as exc:
        return str(exc)


def assert_reads_as_the_rules_say(path) -> None:
    for reader, kind in ((read_run, "run"), (read_qrels, "qrels")):
        ours, expected = read(reader, path), reference(path, kind)
        if isinstance(expected, str) or isinstance(ours, str):
            assert ours == expected, (kind, path.read_bytes()[:200])
        else:
            pd.testing.assert_frame_equal(ours, expected, check_exact=True)
            for column in ("qid", "docid"):
                assert ours[column].dtype == object and all(type(v) is str for v in ours[column])


SCORES = ["1.5", "+1.5", "-1.5", ".5", "5.", "1e5", "1E+5", "1e-320", "1e400", "-1e400", "inf", "-inf", "Infinity", "INF",
          "+inf", "nan", "NaN", "-0", "0", "-0.0", "0.1234567891", "0.1234567890", "1_0", "0x10", "1.5e", "1,5", "١",
          "3.4028235e38", "3.4028236e38", "17976931348623157e292", "0.30000000000000004", "2.2250738585072011e-308", "abc"]
GRADES = ["0", "1", "-1", "+2", "007", "1.0", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "x",
          "１"]


@pytest.mark.parametrize("score", SCORES)
def test_scores_read_as_the_rules_say(tmp_path, score):
    path = tmp_path / "run"
    path.write_text(f"q1 Q0 d1 1 {score} t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 2 t\n", encoding="utf-8")
    assert_reads_as_the_rules_say(path)


@pytest.mark.parametrize("grade", GRADES)
def test_grades_read_as_the_rules_say(tmp_path, grade):
    path = tmp_path / "qrels"
    path.write_text(f"q1 0 d1 {grade}\nq1 0 d2 1\nq2 0 d1 0\n", encoding="utf-8")
    assert_reads_as_the_rules_say(path)


LINES = [
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.0 t\n",
    b"\xef\xbb\xbfq1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 1.0 t\r\n",  # a byte-order mark, CRLF
    b"q1 Q0 d1 1 1.5 t\n\n\nq2 Q0 d2 2 1.0 t",  # empty lines, no final line end
    b"q1 Q0 d1 1 1.5 t\rq2 Q0 d2 2 1.0 t\r",  # lone CR
    b"q1  d1 1 1.5 t\n",  # a column missing, two spaces
    b" q1 Q0 d1 1 1.5 t\n",  # a leading space
    b"q1 Q0 d1 1 1.5 t \n",  # a trailing space
    b"q1 Q0 d1 1 1.5 \n",  # a trailing space where the tag would be: five columns
    b"q1\tQ0\td1\t1\t1.5\tt\n",  # tabs
    b"q1 Q0 d1 1 1.5 t x\n",  # a seventh column
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.0\n",  # a line with five
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d1 2 1.0 t\n",  # a duplicate
    b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d1 3 1.0 t\n",  # a duplicate, not of the line before
    b"q1 Q0 d\xc2\xa01 1 1.5 t\nq\x0c1 Q0 d2 2 1.0 t\n",  # NBSP and form feed belong to ids
    b"q1 Q0 d\xff 1 1.5 t\n",  # not UTF-8
    b"q1 Q0 \"d1 1 1.5 t\nq1 Q0 'd2 2 1.0 t\nNA Q0 null 1 2 t\n",  # quotes, NA and null are ids
    b"   \n",
    b"",
    b"# only a comment\n\n",
    b"q1 Q0 d1 1 1.5 t\n \nq1 Q0 d2 2 1.0 t\n",  # a line of one space
    b"q1 Q0 d1 1 1.5 t\n# a comment\n  # indented\nq1 Q0 d2 2 1.0 t\n",
]


@pytest.mark.parametrize("content", LINES)
@pytest.mark.parametrize("compressed", [False, True])
def test_files_read_as_the_rules_say(tmp_path, content, compressed):
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(content) if compressed else content)
    assert_reads_as_the_rules_say(path)
    qrels = tmp_path / "qrels"
    qrels.write_bytes(content.replace(b" Q0 ", b" 0 ").replace(b" 1.5 t", b"").replace(b" 1.0 t", b""))
    assert_reads_as_the_rules_say(qrels)


TOKEN = st.text(alphabet=st.sampled_from("ab1. \t\r\n\x0c\xa0é#"), min_size=0, max_size=4)


LINES = st.lists(st.tuples(TOKEN, TOKEN, st.sampled_from(["1", "2.5", "-0", "x", "1e3", ""])), min_size=1, max_size=6)


# 60 examples here; the long sweep (200) under the stress marker, which .ci/run runs in full
@settings(max_examples=60, deadline=None)
@given(LINES)
def test_any_lines_read_as_the_rules_say(tmp_path_factory, lines):
    folder = tmp_path_factory.mktemp("runs")
    path = folder / "run"
    path.write_bytes("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in lines).encode("utf-8"))
    assert_reads_as_the_rules_say(path)


@pytest.mark.stress
@settings(max_examples=200, deadline=None)
@given(LINES)
def test_many_lines_read_as_the_rules_say(tmp_path_factory, lines):
    test_any_lines_read_as_the_rules_say.hypothesis.inner_test(tmp_path_factory, lines)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["d1", "d2", "d3", "d4"]),
                          st.sampled_from(["0", "1", "2", "1.5"]), st.sampled_from([" ", "\t", "  "])),
                min_size=1, max_size=24))
def test_lines_across_batches_read_as_the_rules_say(tmp_path_factory, lines):
    """Batches of 48 bytes: every problem, a repeat across batches too, named at its line as in one batch."""
    folder = tmp_path_factory.mktemp("qrels")
    path = folder / "qrels"
    path.write_bytes("".join(f"{q} 0{sep}{d} {g}\n" for q, d, g, sep in lines).encode("utf-8"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(trec_arrow, "_BATCH", 48)
        monkeypatch.setattr(trec_arrow, "_PIECE", 20)
        assert_reads_as_the_rules_say(path)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "é", "q\xa0"]), st.sampled_from(["d1", "d2", "d3", "ü", "d\x0c"]),
                          st.sampled_from([0.0, -0.0, 1.5, 1 / 3, 1e300, -1e-300, 2.0**-1074, float("inf"), 7.0])),
                min_size=1, max_size=12))
def test_written_files_are_the_lines_trec_eval_reads(tmp_path_factory, rows):
    from evalframe.io.trec import write_qrels, write_run

    run = pd.DataFrame(rows, columns=["qid", "docid", "score"]).drop_duplicates(["qid", "docid"])
    qrels = run.assign(relevance=(run["score"] > 1).astype("int64") - (run["score"] < 0).astype("int64"))
    folder = tmp_path_factory.mktemp("written")
    written = write_run(run, folder / "run"), write_qrels(qrels, folder / "qrels")
    expected = "".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(qrels["qid"], qrels["docid"], qrels["relevance"]))
    assert written[1].read_text(encoding="utf-8") == expected
    ranked = reference(written[0], "run")  # the rules' ranking of the lines written
    assert not isinstance(ranked, str)
    lines = "".join(f"{q} Q0 {d} {r} {s!r} evalframe\n" for q, d, s, r in zip(ranked["qid"], ranked["docid"],
                                                                              ranked["score"], ranked["rank"]))
    assert written[0].read_text(encoding="utf-8") == lines
    pd.testing.assert_frame_equal(read_run(written[0]), ranked, check_exact=True)


def test_trec_frame_takes_the_readers_codes_and_sees_an_edit(tmp_path):
    from evalframe.sources.trec import trec_frame, trec_frame_coded
    from evalframe.sources.trec_files import read_qrels_coded, read_run_coded

    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 1.0 t\n", encoding="utf-8")
    (run, run_codes), (qrels, qrels_codes) = read_run_coded(path), read_qrels_coded({"q1": {"d2": 1}, "q3": {"d1": 2}})
    assert run_codes.column(run, "docid") is not None and qrels_codes.column(qrels, "qid") is not None
    coded = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes)
    pd.testing.assert_frame_equal(coded.frame, trec_frame(run.copy(), qrels.copy()))
    run.loc[0, "docid"] = "d2x"
    qrels.loc[1, "qid"] = "q2"
    assert run_codes.column(run, "docid") is None and qrels_codes.column(qrels, "qid") is None
    assert run_codes.column(run, "qid") is not None  # the other column is untouched
    frame = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes).frame
    pd.testing.assert_frame_equal(frame, trec_frame(run.copy(), qrels.copy()))
    assert "d2x" in frame["document_id"].tolist() and "q3" not in frame["multilabel_id"].tolist()


def test_a_file_of_many_batches_reads_as_the_rules_say(tmp_path):
    """Several MB: pyarrow parses it in many blocks, coded batch by batch and over the batches; the frames the rules
    give, and trec_frame from the readers' Arrow dictionaries equals trec_frame from copies."""
    from evalframe.sources.trec import trec_frame, trec_frame_coded
    from evalframe.sources.trec_files import read_qrels_coded, read_run_coded

    rng = np.random.default_rng(1)
    n = 120_000
    qids = np.repeat([f"q{i}" for i in rng.permutation(3000)], n // 3000)
    docids = [f"doc{d}" for d in rng.integers(0, 200_000, n)]
    lines = {(q, d): f"{q} Q0 {d} 1 {s:.3f} t\n" for q, d, s in zip(qids.tolist(), docids, rng.random(n).tolist())}
    (tmp_path / "run").write_text("".join(lines.values()), encoding="utf-8")
    judged = list(lines)[::7]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {i % 3}\n" for i, (q, d) in enumerate(judged)) + "qx 0 new 1\n",
                                    encoding="utf-8")
    assert (tmp_path / "run").stat().st_size > 3_000_000  # pyarrow reads blocks of 1 MB
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(trec_arrow, "_BATCH", 1 << 20)  # batches of 1 MB: queries across batches
        for reader, name in ((read_run, "run"), (read_qrels, "qrels")):
            pd.testing.assert_frame_equal(reader(tmp_path / name), reference(tmp_path / name, name), check_exact=True)
    (run, run_codes), (qrels, qrels_codes) = read_run_coded(tmp_path / "run"), read_qrels_coded(tmp_path / "qrels")
    assert run_codes.arrow_values("docid") is not None and qrels_codes.arrow_values("docid") is not None
    coded = trec_frame_coded(run, qrels, run_codes=run_codes, qrels_codes=qrels_codes).frame
    pd.testing.assert_frame_equal(coded, trec_frame(run.copy(), qrels.copy()))
