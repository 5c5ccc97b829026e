"""``evalframe trec`` on columns (evalframe.present.trec_command) prints what the path through from_trec printed.

The reference is the old code path, unchanged: ``EvaluationResult.from_trec`` + ``trec_query_metrics`` + the means
of ``evalframe.analysis.aggregate``, rendered by the renderers ``evalframe/present/formats.py`` had before the
columnar path (copied below as they were), on random and adversarial files; the errors are compared with the
command run through from_trec. pytrec_eval checks the values independently.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest

from evalframe import EvaluationResult
from evalframe.analysis import aggregate
from evalframe.present import cli, trec_command

COLUMNAR = trec_command.trec_columnar
MEASURES = ["RR", "AP", "nDCG", "nDCG@3", "P@2", "R@5", "Success@1", "Rprec", "Bpref", "P(rel=2)@3", "map_cut.4"]


# ---------------------------------------------------------------------- the old renderers (formats.py before)
def _old_markdown_table(frame: pd.DataFrame) -> str:
    header = [cast(str, frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for index, row in frame.iterrows():
        lines.append("| " + " | ".join([str(index)] + [_old_cell_text(v) for v in row.tolist()]) + " |")
    return "\n".join(lines)


def _old_cell_text(value: Any) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _old_json(table: pd.DataFrame, means: dict[str, float], args: argparse.Namespace) -> str:
    record: dict[str, Any] = {"measures": means, "queries": len(table)}
    if args.per_query:
        values = table.astype("float64").to_dict("records")
        record["per_query"] = dict(zip(map(str, table.index), values))
    return json.dumps(record, indent=1, ensure_ascii=False)


def _old_markdown(table: pd.DataFrame, means: dict[str, float], args: argparse.Namespace) -> str:
    shown = table if args.per_query else table.iloc[:0]
    frame = pd.concat([shown, pd.DataFrame([means], index=pd.Index(["all"]))]).rename_axis("query")
    frame.index = [_old_cell_text(str(qid)) for qid in frame.index]
    frame.index.name = "query"
    return _old_markdown_table(frame.map(lambda v: f"{v:.{args.digits}f}"))


def _old_tsv(table: pd.DataFrame, means: dict[str, float], args: argparse.Namespace) -> str:
    width = max(len(m) for m in [*table.columns, "num_q"])
    lines = []
    if args.per_query:
        for qid, row in zip(table.index, table.to_numpy()):
            lines += [f"{column:<{width}}\t{qid}\t{value:.{args.digits}f}" for column, value in zip(table.columns, row)]
    lines.append(f"{'num_q':<{width}}\tall\t{len(table)}")
    lines += [f"{column:<{width}}\tall\t{value:.{args.digits}f}" for column, value in means.items()]
    return "\n".join(lines)


OLD_FORMATS = {"tsv": _old_tsv, "json": _old_json, "markdown": _old_markdown}


def reference(run, qrels, measures, *, per_query=False, complete=False, fmt="tsv", digits=4) -> str:
    """What the command printed before the columnar path (the old code path, warnings aside)."""
    result = EvaluationResult.from_trec(run, qrels, progress=False)
    table = result.trec_query_metrics(list(dict.fromkeys(measures)), complete=complete)
    means = aggregate.means(aggregate.partial(table)) if len(table) else {column: 0.0 for column in table.columns}
    args = argparse.Namespace(per_query=per_query, digits=digits)
    return OLD_FORMATS[fmt](table, means, args) + "\n"


def argv(run, qrels, measures, *, per_query=False, complete=False, fmt="tsv", digits=4) -> list[str]:
    return (["trec", str(run), str(qrels), *[f"-m{m}" for m in measures], "--format", fmt, "--digits", str(digits)]
            + (["-q"] if per_query else []) + (["-c"] if complete else []))


def columnar(capsys, monkeypatch, args: list[str]) -> tuple[int, str, str]:
    """The command's status, stdout and stderr, checking that the columnar path answered."""
    answered = []

    def spy(parsed):
        shown = COLUMNAR(parsed)
        answered.append(shown is not None)
        return shown

    monkeypatch.setattr(trec_command, "trec_columnar", spy)
    status = cli.main(args)
    out, err = capsys.readouterr()
    assert answered == [True]
    return status, out, err


def through_from_trec(capsys, monkeypatch, args: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr(trec_command, "trec_columnar", lambda parsed: None)
    status = cli.main(args)
    out, err = capsys.readouterr()
    return status, out, err


# ---------------------------------------------------------------------- files
def write_random(folder, seed, *, shuffle=True, n_queries=30):
    """A run with ties on score (and on float32 scores), docids whose code point order differs from their length's
    order, grades -1..3, queries only in the run and only in the qrels; lines shuffled (not in trec_eval's order)."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(60)] + ["é", "Z", "a|b", "😀", "D10", "d1x"]
    lines = []
    for q in range(n_queries):
        if q % 7 == 3:
            continue  # only in the qrels
        chosen = rng.choice(len(docs), rng.integers(1, 25), replace=False)
        for rank, d in enumerate(chosen, start=1):
            score = [round(float(rng.random()), 1), 0.1234567891 if rng.random() < 0.5 else 0.1234567890,
                     -float(rng.integers(0, 3)), 1e300][int(rng.integers(0, 4)) if rng.random() < 0.3 else 0]
            lines.append(f"q{q} Q0 {docs[d]} {rank} {score!r} run")
    if shuffle:
        lines = [lines[i] for i in rng.permutation(len(lines))]
    judged = []
    for q in range(n_queries + 5):
        if q % 5 == 1:
            continue  # only in the run
        for d in rng.choice(len(docs), rng.integers(1, 12), replace=False):
            judged.append(f"q{q} 0 {docs[d]} {int(rng.integers(-1, 4))}")
    qrels_lines = [judged[i] for i in rng.permutation(len(judged))] if shuffle else judged
    run, qrels = folder / f"run{seed}.txt", folder / f"qrels{seed}.txt"
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    qrels.write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")
    return run, qrels


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fmt", ["tsv", "json", "markdown"])
def test_byte_identical_to_the_old_path_on_random_runs(tmp_path, capsys, monkeypatch, seed, fmt):
    run, qrels = write_random(tmp_path, seed, shuffle=seed % 2 == 0)
    for per_query in (False, True):
        for complete in (False, True):
            options = {"per_query": per_query, "complete": complete, "fmt": fmt, "digits": 4 + seed % 3 * 6}
            status, out, err = columnar(capsys, monkeypatch, argv(run, qrels, MEASURES, **options))
            assert (status, err) == (0, "")
            assert out == reference(run, qrels, MEASURES, **options)


def test_a_run_in_trec_evals_order_already_and_gzip(tmp_path, capsys, monkeypatch):
    """A file written in trec_eval's order (the sort skipped), ties by docid descending; and the same gzipped."""
    import gzip

    rng = np.random.default_rng(3)
    lines = []
    for q in range(20):
        rows = sorted(((float(rng.integers(0, 3)), f"d{int(d)}") for d in rng.choice(50, 15, replace=False)), reverse=True)
        lines += [f"q{q} Q0 {doc} {i} {score} run" for i, (score, doc) in enumerate(rows, start=1)]
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("\n".join(f"q{q} 0 d{d} {d % 4}" for q in range(0, 24, 2) for d in range(0, 50, 3)) + "\n")
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    for source in (run, packed):
        status, out, _ = columnar(capsys, monkeypatch, argv(source, qrels, MEASURES, per_query=True))
        assert out == reference(run, qrels, MEASURES, per_query=True)


def test_ties_many_enough_to_rank_every_docid_in_arrow(tmp_path, capsys, monkeypatch):
    """Every score equal: all rows tie, the docids' code point ranks come from Arrow's sort of the dictionary."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    docs = ["b", "a", "é", "Z", "aa", "😀", "a0", "B"]
    run.write_text("".join(f"q{q} Q0 {d}{q % 2} 1 1.0 run\n" for q in range(6) for d in docs))
    qrels.write_text("".join(f"q{q} 0 {d}{q % 2} {i % 3}\n" for q in range(6) for i, d in enumerate(docs[::2])))
    status, out, _ = columnar(capsys, monkeypatch, argv(run, qrels, MEASURES, per_query=True, fmt="json"))
    assert out == reference(run, qrels, MEASURES, per_query=True, fmt="json")


def test_no_query_evaluated_warns_as_before(tmp_path, capsys, monkeypatch):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 1.0 run\n")
    qrels.write_text("q2 0 d1 1\n")
    for fmt in ("tsv", "json", "markdown"):
        new = columnar(capsys, monkeypatch, argv(run, qrels, ["AP", "P@5"], fmt=fmt, per_query=True))
        old = through_from_trec(capsys, monkeypatch, argv(run, qrels, ["AP", "P@5"], fmt=fmt, per_query=True))
        assert new == old and "warning: no query of" in new[2]
        assert new[1] == reference(run, qrels, ["AP", "P@5"], fmt=fmt, per_query=True)


@pytest.mark.parametrize("case", ["run duplicate", "qrels duplicate", "empty run", "tab", "double space", "bad score",
                                  "bad grade", "judged 00", "missing file", "bad measure", "bad digits", "nan score"])
def test_inputs_it_does_not_take_give_the_old_messages(tmp_path, capsys, monkeypatch, case):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_text, qrels_text = "q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 1.0 run\n", "q1 0 d1 1\nq1 0 d3 0\n"
    measures, digits = ["AP"], 4
    if case == "run duplicate":
        run_text += "q1 Q0 d1 3 0.5 run\n"
    elif case == "qrels duplicate":
        qrels_text += "q1 0 d1 2\n"
    elif case == "empty run":
        run_text = ""
    elif case == "tab":
        run_text = run_text.replace(" Q0", "\tQ0", 1)
    elif case == "double space":
        qrels_text = qrels_text.replace(" 0 ", "  0 ", 1)
    elif case == "bad score":
        run_text += "q1 Q0 d5 3 x1 run\n"
    elif case == "nan score":
        run_text += "q1 Q0 d5 3 nan run\n"
    elif case == "bad grade":
        qrels_text += "q1 0 d4 1.5\n"
    elif case == "judged 00":
        qrels_text += "q1 0 00 1\n"
    elif case == "bad measure":
        measures = ["AP", "nDGC@10"]
    elif case == "bad digits":
        digits = 20
    run.write_text(run_text)
    qrels.write_text(qrels_text)
    args = argv(tmp_path / "nothing.txt" if case == "missing file" else run, qrels, measures, digits=digits)
    new = cli.main(args), *capsys.readouterr()
    old = through_from_trec(capsys, monkeypatch, args)
    assert new == old
    if case not in ("judged 00", "nan score", "tab", "double space"):  # those are read, by pandas' parser
        assert new[0] == 1 and new[2].startswith("error: ")
    if case in ("run duplicate", "qrels duplicate", "bad score", "bad grade"):
        assert f"{run if case in ('run duplicate', 'bad score') else qrels}:3" in new[2]  # file:line


def test_the_values_are_pytrec_evals(tmp_path):
    """pytrec_eval, the independent reference: every measure of a random case to 1e-12."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = write_random(tmp_path, 11, n_queries=60)
    names = {"RR": "recip_rank", "AP": "map", "nDCG": "ndcg", "P@5": "P_5", "R@10": "recall_10", "Success@1": "success_1",
             "Rprec": "Rprec", "Bpref": "bpref", "nDCG@3": "ndcg_cut_3"}
    args = argparse.Namespace(run=run, qrels=qrels, measures=list(names), per_query=True, complete=False, format="json",
                              digits=4)
    shown = json.loads(COLUMNAR(args))
    with run.open() as r, qrels.open() as q:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(q), {
            "recip_rank", "map", "ndcg", "P.5", "recall.10", "success.1", "Rprec", "bpref", "ndcg_cut.3"})
        expected = evaluator.evaluate(pytrec_eval.parse_run(r))
    assert set(shown["per_query"]) == set(expected)
    for qid, values in shown["per_query"].items():
        for name, trec_name in names.items():
            assert values[name] == pytest.approx(expected[qid][trec_name], abs=1e-12), (qid, name)


def test_the_means_of_many_queries_to_the_last_bit(tmp_path, capsys, monkeypatch):
    """Thousands of queries: the sums (numpy's pairwise summation) equal pandas' to the last bit (json: every digit)."""
    run, qrels = write_random(tmp_path, 21, n_queries=2500)
    for complete in (False, True):
        status, out, _ = columnar(capsys, monkeypatch, argv(run, qrels, MEASURES, fmt="json", complete=complete))
        assert out == reference(run, qrels, MEASURES, fmt="json", complete=complete)


@pytest.mark.parametrize("tie_order", ["descending", "ascending", "mixed"])
def test_a_run_sorted_by_score_with_its_ties_in_any_docid_order(tmp_path, capsys, monkeypatch, tie_order):
    """Lines grouped by query, scores descending, ties (float32 ties too) in the given docid order: only the tied
    lines are put in order (or none, when they are in trec_eval's order)."""
    rng = np.random.default_rng(5)
    lines = []
    for q in range(25):
        rows = [(float(rng.integers(0, 4)) if rng.random() < 0.8 else 0.1234567891, f"d{int(d)}")
                for d in rng.choice(200, 30, replace=False)]
        key = {"descending": lambda r: (-r[0], [-ord(c) for c in r[1]]), "ascending": lambda r: (-r[0], r[1]),
               "mixed": lambda r: (-r[0], hash(r[1]) % 7)}[tie_order]
        lines += [f"q{q} Q0 {doc} {i} {score!r} run" for i, (score, doc) in enumerate(sorted(rows, key=key), start=1)]
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 4 - 1}\n" for q in range(0, 28, 2) for d in range(0, 200, 9)))
    for fmt in ("json", "tsv"):
        status, out, _ = columnar(capsys, monkeypatch, argv(run, qrels, MEASURES, per_query=True, fmt=fmt))
        assert out == reference(run, qrels, MEASURES, per_query=True, fmt=fmt)


@pytest.mark.parametrize("duplicate_in", ["first query", "a later batch", "across batches", "none"])
def test_the_duplicate_check_in_batches(tmp_path, capsys, monkeypatch, duplicate_in):
    """The reader's batches of about 64 bytes (three or four lines): a docid twice in a query is found in any batch,
    and across two batches of one query, a docid in several queries is no duplicate; the message names the file and
    both lines (worked out below), through from_trec alike."""
    from evalframe.sources import trec_arrow

    monkeypatch.setattr(trec_arrow, "_BATCH", 64)
    lines = [f"q{q} Q0 d{(q * 3 + i) % 11} {i} {10 - i} run" for q in range(9) for i in range(1, 1 + q % 4 + 1)]
    expected = None  # (line of the repeat, docid, query, line of the first)
    if duplicate_in == "first query":
        lines.insert(1, "q0 Q0 d1 9 0.5 run")  # q0 ranks d1 on line 1
        expected = (2, "d1", "q0", 1)
    elif duplicate_in == "a later batch":
        lines.append("q8 Q0 d3 9 0.5 run")  # q8 ranks d3 on its first line already
        expected = (len(lines), "d3", "q8", lines.index("q8 Q0 d3 1 9 run") + 1)
    elif duplicate_in == "across batches":
        lines.insert(11, "q3 Q0 d0 9 0.5 run")  # after q4's line 11: q3 ranked d0 on line 8, batches before
        expected = (12, "d0", "q3", 8)
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("".join(f"q{q} 0 d{d} 1\n" for q in range(9) for d in range(0, 11, 3)))
    args = argv(run, qrels, MEASURES, per_query=True)
    new = cli.main(args), *capsys.readouterr()
    assert new == through_from_trec(capsys, monkeypatch, args)
    if expected is None:
        assert new[0] == 0 and new[1] == reference(run, qrels, MEASURES, per_query=True)
    else:
        line, docid, qid, first = expected
        assert new == (1, "", f"error: {run}:{line}: document {docid!r} appears twice in query {qid!r} (first on line "
                              f"{first}); trec_eval refuses a run with duplicate documents (\"duplicate docs\"). Keep "
                              "one of the lines.\n")


def test_a_run_ranking_docid_00_and_ids_with_markdown_bars(tmp_path, capsys, monkeypatch):
    """A run's docid "00" is a document like any other (only a judged "00" goes through from_trec, for its warning);
    a query id with a "|" is escaped in markdown cells, and printed as it is elsewhere."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q|1 Q0 00 1 2.0 run\nq|1 Q0 d2 2 1.0 run\nq2 Q0 00 1 1.0 run\n")
    qrels.write_text("q|1 0 d2 1\nq2 0 d9 2\n")
    for fmt in ("markdown", "tsv", "json"):
        status, out, err = columnar(capsys, monkeypatch, argv(run, qrels, MEASURES, per_query=True, fmt=fmt))
        assert (status, err) == (0, "") and out == reference(run, qrels, MEASURES, per_query=True, fmt=fmt)


def test_counts_print_as_integers_in_evalframes_own_format(tmp_path, capsys):
    """The counts (the measures the registry sums over queries: NumRet, NumRel, NumRelRet, num_nonrel_judged_ret) as
    integers, per query and for all, in the tsv and markdown formats; --format trec_eval keeps trec_eval's bytes."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 1.0 a\nq2 Q0 d4 1 2.0 a\nq2 Q0 d5 2 1.0 a\n")
    qrels.write_text("q1 0 d2 2\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d9 3\n")
    measures = ["-m", "num_ret", "-m", "num_rel", "-m", "NumRelRet(rel=2)", "-m", "num_nonrel_judged_ret", "-m", "RR"]
    assert cli.main(["trec", str(run), str(qrels), *measures, "-q"]) == 0
    # q1: 3 retrieved, 1 relevant (d2, grade 2), d3 judged 0 retrieved; q2: 2 retrieved, 2 relevant (d4, d9: grade 3)
    assert capsys.readouterr().out.splitlines() == [
        "NumRet               \tq1\t3", "NumRel               \tq1\t1", "NumRelRet(rel=2)     \tq1\t1",
        "num_nonrel_judged_ret\tq1\t1", "RR                   \tq1\t0.5000",
        "NumRet               \tq2\t2", "NumRel               \tq2\t2", "NumRelRet(rel=2)     \tq2\t0",
        "num_nonrel_judged_ret\tq2\t0", "RR                   \tq2\t1.0000",
        "num_q                \tall\t2", "NumRet               \tall\t5", "NumRel               \tall\t3",
        "NumRelRet(rel=2)     \tall\t1", "num_nonrel_judged_ret\tall\t1", "RR                   \tall\t0.7500"]
    assert cli.main(["trec", str(run), str(qrels), "-m", "num_ret", "-m", "RR", "-q", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == ["| q1 | 3 | 0.5000 |", "| q2 | 2 | 1.0000 |",
                                                        "| all | 5 | 0.7500 |"]
    assert cli.main(["trec", str(run), str(qrels), "-m", "num_ret", "-m", "recip_rank", "--format", "trec_eval"]) == 0
    assert capsys.readouterr().out == "num_ret               \tall\t5\nrecip_rank            \tall\t0.7500\n"


def test_ci_on_both_paths_with_scipys_t_interval(tmp_path, capsys, monkeypatch):
    """--ci: each mean's interval from the per-query values, the same bytes on columns and through from_trec."""
    import scipy.stats

    (tmp_path / "run").write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d3 1 2 r\nq2 Q0 d4 2 1 r\nq3 Q0 d5 1 1 r\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d4 1\nq3 0 d5 1\n")
    ap = np.array([1.0, 0.5, 1.0])
    low, high = scipy.stats.t.interval(0.9, 2, loc=ap.mean(), scale=scipy.stats.sem(ap))
    for fmt in ("tsv", "json", "markdown"):
        args = [*argv(tmp_path / "run", tmp_path / "qrels", ["AP", "num_ret"], fmt=fmt), "--ci", "0.9", "--ci-method", "t"]
        new = columnar(capsys, monkeypatch, args)
        assert new == through_from_trec(capsys, monkeypatch, args) and new[0] == 0
        if fmt == "json":
            found = json.loads(new[1])["ci"]
            assert (found["measures"]["AP"]["low"], found["measures"]["AP"]["high"]) == pytest.approx((low, high),
                                                                                                      abs=1e-12)
            assert (found["method"], found["confidence"], found["measures"]["NumRet"]["n"]) == ("t", 0.9, 3)
        if fmt == "tsv":
            lines = [line.split("\t") for line in new[1].splitlines()]
            assert [[name.strip(), query, value] for name, query, value in lines][1:4] == [
                ["AP", "all", "0.8333"], ["AP_ci_low", "all", f"{low:.4f}"], ["AP_ci_high", "all", f"{high:.4f}"]]
    plain = columnar(capsys, monkeypatch, argv(tmp_path / "run", tmp_path / "qrels", ["AP"]))[1]
    assert "_ci_" not in plain  # without --ci: as before
    for extra, message in ((["--ci", "0.9", "--format", "trec_eval"], "not with --format trec_eval"),
                           (["--ci", "2"], "--ci must lie strictly between 0 and 1"), (["--ci", "0.9", "-n"], "-n")):
        status = cli.main(["trec", str(tmp_path / "run"), str(tmp_path / "qrels"), "-mAP", *extra])
        assert status == 1 and message in capsys.readouterr().err
