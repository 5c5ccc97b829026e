"""The diversity measures (subtopic qrels) and Compat, through ``EvaluationResult.from_trec(..., subtopics=True)`` and
``evalframe trec --subtopics``.

References: ir_measures (ndeval's C code through pyndeval; its compat provider) to 1e-9 on random and adversarial
runs (a query of the qrels missing from the run scores 0 there, as with ``complete=True``, trec_eval's -c); Clarke
et al. 2008's alpha-nDCG worked by hand; beyond ndeval's depth of 20 ranks, a slow port of ndeval's
loops written here (itself checked against ir_measures up to 20).

ir_measures ranks a run by score, ties by docid *ascending* (pyndeval's sort; its compat provider's too), where
evalframe keeps trec_eval's order (ties by docid descending); the reference is handed evalframe's ranking (trec_eval's
order, computed here) as distinct scores, so both rank alike. ir_measures 0.4.3 fails on ``judged_only=True`` with the
pyndeval provider (a TypeError in its filter); its intended definition, the run's unjudged documents removed first,
is the reference: the run is filtered here before ir_measures sees it, of its documents not judged (absent from the
qrels, or of grade < 0 there: trec_eval -J's rule, which ``judged_only`` follows for every measure).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP_IA, ERR_IA, NRBP, P_IA, Compat, StRecall, alpha_DCG, alpha_nDCG, nERR_IA, nNRBP

from evalframe import EvaluationResult, compare
from evalframe.errors import InvalidParameterError, LoadError
from evalframe.present.cli import main
from evalframe.sources.trec_files import read_qrels, read_subtopic_qrels

Qrels = list[tuple[str, str, str, int]]  # (qid, subtopic, docid, grade)
Run = dict[str, dict[str, float]]


# ---------------------------------------------------------------------------------------------- helpers
def write(tmp_path: Path, qrels: Qrels, run: Run) -> tuple[Path, Path]:
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {score!r} tag\n" for q, docs in run.items()
                                for i, (d, score) in enumerate(docs.items())))
    return run_path, qrels_path


def trec_ranking(docs: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, ties by docid descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def reference(measure: object, qrels: Qrels, run: Run, judged_only: bool = False) -> dict[str, float]:
    """ir_measures' per-query values on the run as trec_eval ranks it (scores n, n-1, ...: no tie left to break)."""
    # judged: in the qrels with a grade >= 0 (its highest over the subtopics), as trec_eval -J, which judged_only
    # follows for every measure: a grade < 0 is pooled but not judged
    best: dict[tuple[str, str], int] = {}
    for q, _, d, grade in qrels:
        best[q, d] = max(grade, best.get((q, d), grade))
    judged = {key for key, grade in best.items() if grade >= 0}
    rows = []
    for q, docs in run.items():
        ranking = [d for d in trec_ranking(docs) if not judged_only or (q, d) in judged]
        rows += [(q, d, float(len(ranking) - i)) for i, d in enumerate(ranking)]
    run_frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    if getattr(measure, "NAME", "") == "Compat":  # the ordinary qrels: each document at its highest grade
        best: dict[tuple[str, str], int] = {}
        for q, _, d, g in qrels:
            best[(q, d)] = max(best.get((q, d), g), g)
        qrels_frame = pd.DataFrame([(q, d, g) for (q, d), g in best.items()], columns=["query_id", "doc_id", "relevance"])
    else:
        qrels_frame = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    with contextlib.redirect_stderr(io.StringIO()):  # pyndeval's warning about single-subtopic queries
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels_frame, run_frame)}


def random_case(rng: random.Random) -> tuple[Qrels, Run]:
    """Adversarial by construction: tied scores, negative and zero grades, documents judged for several subtopics,
    subtopics without a relevant document, unjudged documents ranked, queries only in the run or only in the qrels,
    docids whose text order is not their number's (d10 < d9)."""
    qrels: Qrels = []
    run: Run = {}
    for qi in range(rng.randint(1, 4)):
        q = f"q{qi}"
        n_subtopics = rng.randint(1, 4)
        seen = set()
        if rng.random() < 0.9:  # else a query only in the run
            for d in {f"d{rng.randint(0, 14)}" for _ in range(rng.randint(1, 12))}:
                for s in range(1, n_subtopics + 1):
                    if rng.random() < 0.55 and (s, d) not in seen:
                        seen.add((s, d))
                        qrels.append((q, str(s), d, rng.choice([-1, 0, 0, 1, 1, 1, 2])))
        if rng.random() < 0.85:  # else a query only in the qrels
            scores = [float(rng.randint(0, 6)) if rng.random() < 0.5 else rng.random() for _ in range(25)]
            docs = {f"d{rng.randint(0, 18)}": score for score in scores[:rng.randint(1, 25)]}
            run[q] = docs
    if not qrels:
        qrels.append(("q0", "1", "d1", 1))
    if not run:
        run["q0"] = {"d1": 1.0}
    return qrels, run


def diversity_measures(rng: random.Random) -> list[tuple[str, object, bool]]:
    """(evalframe's name, ir_measures' measure, judged_only) for a random choice of parameters."""
    rel = rng.choice([1, 1, 2])
    alpha = rng.choice([0.5, 0.5, 0.25, 0.8])
    judged = rng.random() < 0.3
    k = rng.choice([1, 2, 3, 5, 10, 20])
    beta = rng.choice([0.5, 0.5, 0.8, 0.95])
    rel_text = f"rel={rel}" if rel != 1 else ""

    def params(*parts: str, judged_only: bool = judged) -> str:
        given = [p for p in (*parts, rel_text, "judged_only=True" if judged_only else "") if p]
        return f"({','.join(given)})" if given else ""

    alpha_text = f"alpha={alpha}" if alpha != 0.5 else ""
    beta_text = f"beta={beta}" if beta != 0.5 else ""
    return [
        (f"alpha_nDCG{params(alpha_text)}@{k}", alpha_nDCG(alpha=alpha, rel=rel) @ k, judged),
        (f"alpha_DCG{params(alpha_text)}@{k}", alpha_DCG(alpha=alpha, rel=rel) @ k, judged),
        (f"ERR_IA{params()}@{k}", ERR_IA(rel=rel) @ k, judged),
        (f"nERR_IA{params()}@{k}", nERR_IA(rel=rel) @ k, judged),
        (f"P_IA{params()}@{k}", P_IA(rel=rel) @ k, judged),
        (f"AP_IA{params()}", AP_IA(rel=rel), judged),
        (f"StRecall{'(rel=2)' if rel == 2 else ''}@{k}", StRecall(rel=rel) @ k, False),
        (f"NRBP{params(alpha_text, beta_text, judged_only=False)}", NRBP(alpha=alpha, beta=beta, rel=rel), False),
        (f"nNRBP{params(alpha_text, beta_text, judged_only=False)}", nNRBP(alpha=alpha, beta=beta, rel=rel), False),
    ]


def compat_measures(rng: random.Random) -> list[tuple[str, object, bool]]:
    p = rng.choice([0.95, 0.95, 0.8, 0.5, 1.0])
    normalize = rng.random() < 0.7
    parts = [f"p={p}"] if p != 0.95 else []
    parts += [] if normalize else ["normalize=False"]
    return [(f"Compat({','.join(parts)})" if parts else "Compat", Compat(p=p, normalize=normalize), False)]


def agree(tmp_path: Path, seed: int, cases: int) -> dict[str, int]:
    """Random cases through from_trec against ir_measures; the number of per-query values compared, per family."""
    rng = random.Random(seed)
    compared: dict[str, int] = {}
    for case in range(cases):
        qrels, run = random_case(rng)
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        result = EvaluationResult.from_trec(*write(folder, qrels, run), subtopics=True, progress=False)
        measures = diversity_measures(rng) + compat_measures(rng)
        table = result.trec_query_metrics([name for name, _, _ in measures], complete=True)
        for (name, measure, judged_only), column in zip(measures, table.columns):
            expected = reference(measure, qrels, run, judged_only)
            assert set(table.index) == set(expected), (name, qrels, run)
            got = table[column].to_dict()
            for q, value in expected.items():
                if math.isnan(value):  # nNRBP of a ranked query without a relevant subtopic: ndeval's 0 / 0
                    assert math.isnan(got[q]), (name, q, qrels, run)
                    continue
                assert got[q] == pytest.approx(value, rel=0, abs=1e-9), (name, q, qrels, run)
            family = name.split("(")[0].split("@")[0]
            compared[family] = compared.get(family, 0) + len(expected)
    return compared


# ---------------------------------------------------------------------------------------------- against ir_measures
def test_random_and_adversarial_runs_agree_with_ir_measures(tmp_path):
    compared = agree(tmp_path, seed=27, cases=12)
    assert set(compared) == {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "P_IA", "AP_IA", "StRecall", "NRBP", "nNRBP",
                             "Compat"}


@pytest.mark.stress
def test_many_random_runs_agree_with_ir_measures(tmp_path):
    compared = agree(tmp_path, seed=2008, cases=300)
    assert sum(compared.values()) > 5000


def test_ties_are_ranked_as_trec_eval_ranks_them(tmp_path):
    """Tied scores: evalframe ranks d9 before d10 before d1 (docid descending); ir_measures, given the run as it is,
    ranks d1, d10, d9 (ascending): each agrees with ir_measures on the ranking it makes."""
    qrels = [("q1", "1", "d1", 1), ("q1", "2", "d10", 1), ("q1", "2", "d9", 1)]
    run = {"q1": {"d1": 1.0, "d10": 1.0, "d9": 1.0}}
    result = EvaluationResult.from_trec(*write(tmp_path, qrels, run), subtopics=True, progress=False)
    got = result.trec_query_metrics(["alpha_nDCG@2"])["alpha_nDCG@2"]["q1"]
    # evalframe: d9 (s2) then d10 (s2 again): 1 + 0.5 / log2(3). The ideal: d1, d10 and d9 tie at rank 1 (gain 1),
    # ndeval takes the greatest docid, d9 (as text); then d1 (s1 new, 1) before d10 (0.5): 1 + 1 / log2(3)
    assert got == pytest.approx((1 + 0.5 / math.log2(3)) / (1 + 1 / math.log2(3)), abs=1e-12)
    assert got == pytest.approx(reference(alpha_nDCG @ 2, qrels, run)["q1"], abs=1e-12)
    with contextlib.redirect_stderr(io.StringIO()):
        as_given = {m.query_id: m.value for m in ir_measures.iter_calc(
            [alpha_nDCG @ 2], pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"]),
            pd.DataFrame([("q1", d, s) for d, s in run["q1"].items()], columns=["query_id", "doc_id", "score"]))}
    assert as_given["q1"] == pytest.approx(1.0, abs=1e-12)  # d1 (s1), d10 (s2): ir_measures' own tie order


# ---------------------------------------------------------------------------------------------- hand-worked
def test_alpha_ndcg_of_clarke_et_al_2008_worked_by_hand(tmp_path):
    """Clarke et al. 2008, alpha = 0.5: documents a, b, c; a relevant to subtopics s1 and s2, b to s1, c to s2; the run
    ranks b, c, a. Gains: b 1 (s1 new), c 1 (s2 new), a 0.5 + 0.5 (each seen once). DCG@1..3 = 1, 1 + 1/log2(3),
    1 + 1/log2(3) + 1/2. The (greedy) ideal ranks a (gain 2), then b or c (0.5: s1 or s2 seen once), then the other
    (0.5): ideal DCG@1..3 = 2, 2 + 0.5/log2(3), 2 + 0.5/log2(3) + 0.5/2."""
    qrels = [("q", "s1", "a", 1), ("q", "s2", "a", 1), ("q", "s1", "b", 1), ("q", "s2", "c", 1)]
    run = {"q": {"b": 3.0, "c": 2.0, "a": 1.0}}
    result = EvaluationResult.from_trec(*write(tmp_path, qrels, run), subtopics=True, progress=False)
    means = result.trec_metrics(["alpha_nDCG@1", "alpha_nDCG@2", "alpha_nDCG@3"])
    log3 = math.log2(3)
    assert means == pytest.approx({"alpha_nDCG@1": 1 / 2, "alpha_nDCG@2": (1 + 1 / log3) / (2 + 0.5 / log3),
                                   "alpha_nDCG@3": (1 + 1 / log3 + 1 / 2) / (2 + 0.5 / log3 + 0.5 / 2)}, abs=1e-15)
    # the other measures of the same example, by hand: S = 2 subtopics
    others = result.trec_metrics(["P_IA@2", "StRecall@1", "AP_IA", "ERR_IA@2"])
    assert others == pytest.approx({
        "P_IA@2": 2 / (2 * 2),  # b (s1) and c (s2) in the top 2
        "StRecall@1": 1 / 2,  # b covers s1
        "AP_IA": ((1 / 1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2,  # s1: b at 1, a at 3 of 2; s2: c at 2, a at 3 of 2
        "ERR_IA@2": (1 / 1 + 1 / 2) / (2 * (1 + 0.5 / 2)),  # ndeval's normaliser: S (1 + (1 - alpha) / 2)
    }, abs=1e-15)


def test_ndeval_leaves_the_first_rank_unnormalised(tmp_path):
    """ERR_IA@1 and alpha_DCG@1 are the first document's gain, not over S (ndeval's loop normalises from rank 2):
    a document relevant to both subtopics scores 2, as in ir_measures."""
    qrels = [("q", "1", "a", 1), ("q", "2", "a", 1)]
    run = {"q": {"a": 1.0}}
    result = EvaluationResult.from_trec(*write(tmp_path, qrels, run), subtopics=True, progress=False)
    means = result.trec_metrics(["ERR_IA@1", "alpha_DCG@1", "ERR_IA@2"])
    assert means == pytest.approx({"ERR_IA@1": 2.0, "alpha_DCG@1": 2.0, "ERR_IA@2": 2 / (2 * 1.25)}, abs=1e-15)
    assert reference(ERR_IA @ 1, qrels, run)["q"] == 2.0 and reference(alpha_DCG @ 1, qrels, run)["q"] == 2.0


# ---------------------------------------------------------------------------------------------- beyond 20 ranks
def slow_ndeval(qrels: Qrels, ranking: list[str], k: int, alpha: float = 0.5) -> float:
    """alpha-nDCG@k of one query as ndeval computes it, without its depth of 20: binary judgments (grade >= 1), a
    greedy ideal over the judged documents (ties to the greatest docid), 0 when the run gains nothing."""
    relevant: dict[str, set[str]] = {}
    for _, s, d, g in qrels:
        relevant.setdefault(d, set())
        if g >= 1:
            relevant[d].add(s)

    def dcg(order: list[str]) -> float:
        seen: dict[str, int] = {}
        total = 0.0
        for i, d in enumerate(order[:k]):
            gain = sum((1 - alpha) ** seen.get(s, 0) for s in sorted(relevant.get(d, ())))
            for s in relevant.get(d, ()):
                seen[s] = seen.get(s, 0) + 1
            total += gain / math.log2(i + 2)
        return total

    ideal: list[str] = []
    seen: dict[str, int] = {}
    left = sorted(relevant)
    while left:
        scores = {d: sum((1 - alpha) ** seen.get(s, 0) for s in relevant[d]) for d in left}
        best = max(left, key=lambda d: (scores[d], d))
        ideal.append(best)
        left.remove(best)
        for s in relevant[best]:
            seen[s] = seen.get(s, 0) + 1
    run_dcg = dcg(ranking)
    return run_dcg / dcg(ideal) if run_dcg else 0.0


def test_cutoffs_beyond_ndevals_20_follow_the_same_definition(tmp_path):
    rng = random.Random(5)
    for case in range(6):
        n_docs = 45
        qrels = [("q", str(s), f"d{d}", rng.choice([0, 1, 1])) for d in range(n_docs) for s in range(1, 5)
                 if rng.random() < 0.3]
        run = {"q": {f"d{d}": rng.random() for d in rng.sample(range(n_docs + 10), 40)}}
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        result = EvaluationResult.from_trec(*write(folder, qrels, run), subtopics=True, progress=False)
        ranking = trec_ranking(run["q"])
        got = result.trec_metrics(["alpha_nDCG@10", "alpha_nDCG@20", "alpha_nDCG@30", "alpha_nDCG@40"])
        assert slow_ndeval(qrels, ranking, 20) == pytest.approx(reference(alpha_nDCG @ 20, qrels, run)["q"], abs=1e-12)
        for k in (10, 20, 30, 40):
            assert got[f"alpha_nDCG@{k}"] == pytest.approx(slow_ndeval(qrels, ranking, k), abs=1e-12), k


# ---------------------------------------------------------------------------------------------- names and the CLI
NAMES = {  # every name a diversity measure is accepted by -> its canonical name and ir_measures' measure
    "alpha_nDCG@20": ("alpha_nDCG@20", alpha_nDCG @ 20),
    "alpha_nDCG(alpha=0.3)@10": ("alpha_nDCG(alpha=0.3)@10", alpha_nDCG(alpha=0.3) @ 10),
    "alpha_DCG@20": ("alpha_DCG@20", alpha_DCG @ 20),
    "ERR_IA@20": ("ERR_IA@20", ERR_IA @ 20),
    "nERR_IA@20": ("nERR_IA@20", nERR_IA @ 20),
    "P_IA@20": ("P_IA@20", P_IA @ 20),
    "AP_IA": ("AP_IA", AP_IA),
    "MAP_IA": ("AP_IA", AP_IA),
    "StRecall@20": ("StRecall@20", StRecall @ 20),
    "strec@20": ("StRecall@20", StRecall @ 20),  # ndeval's name
    "NRBP": ("NRBP", NRBP),
    "nNRBP(beta=0.8)": ("nNRBP(beta=0.8)", nNRBP(beta=0.8)),
    "Compat": ("Compat", Compat),
    "Compat(p=0.8,normalize=False)": ("Compat(normalize=False,p=0.8)", Compat(p=0.8, normalize=False)),
}

EXAMPLE_QRELS: Qrels = [("q1", "1", "d1", 1), ("q1", "2", "d1", 0), ("q1", "2", "d2", 2), ("q1", "3", "d4", 1),
                        ("q1", "1", "d5", 1), ("q2", "1", "d7", 1), ("q2", "2", "d8", 1), ("q3", "1", "d1", 1)]
EXAMPLE_RUN: Run = {"q1": {"d2": 3.0, "d3": 2.5, "d1": 2.0, "d4": 1.0}, "q2": {"d8": 2.0, "d9": 1.0, "d7": 0.5},
                    "q4": {"d1": 1.0}}


def test_every_name_through_the_api(tmp_path):
    result = EvaluationResult.from_trec(*write(tmp_path, EXAMPLE_QRELS, EXAMPLE_RUN), subtopics=True, progress=False)
    for name, (canonical, measure) in NAMES.items():
        expected = reference(measure, EXAMPLE_QRELS, EXAMPLE_RUN)
        means = result.trec_metrics([name], complete=True)
        assert list(means) == [canonical], name
        assert means[canonical] == pytest.approx(sum(expected.values()) / len(expected), abs=1e-9), name


def test_every_name_through_the_cli(tmp_path, capsys):
    run_path, qrels_path = write(tmp_path, EXAMPLE_QRELS, EXAMPLE_RUN)
    argv = ["trec", "--subtopics", str(run_path), str(qrels_path), "-q", "-c", "--format", "json"]
    for name in NAMES:
        argv += ["-m", name]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    for canonical, measure in NAMES.values():
        for q, value in reference(measure, EXAMPLE_QRELS, EXAMPLE_RUN).items():
            assert printed["per_query"][q][canonical] == pytest.approx(value, abs=1e-9), (canonical, q)


def test_a_diversity_measure_without_subtopics_is_refused_saying_how_to_pass_them(tmp_path, capsys):
    run_path, qrels_path = write(tmp_path, EXAMPLE_QRELS[:1], EXAMPLE_RUN)
    result = EvaluationResult.from_trec(run_path, qrels_path, progress=False)
    with pytest.raises(InvalidParameterError, match=r"alpha_nDCG is a diversity measure.*subtopics=True.*"
                                                    r"evalframe trec --subtopics"):
        result.trec_metrics(["AP", "alpha_nDCG@20"])
    assert main(["trec", str(run_path), str(qrels_path), "-m", "P_IA@5"]) == 1
    assert "P_IA is a diversity measure" in capsys.readouterr().err
    # Compat reads the ordinary grades: no subtopics needed
    assert result.trec_metrics(["Compat"], complete=True)["Compat"] == pytest.approx(
        np.mean(list(reference(Compat, EXAMPLE_QRELS[:1], EXAMPLE_RUN).values())), abs=1e-12)


def test_the_other_measures_read_each_document_at_its_highest_grade(tmp_path):
    """With subtopic qrels, AP, nDCG ... read each judged document once, at its highest grade over the subtopics:
    pytrec_eval on those qrels is the reference."""
    import pytrec_eval

    result = EvaluationResult.from_trec(*write(tmp_path, EXAMPLE_QRELS, EXAMPLE_RUN), subtopics=True, progress=False)
    best: dict[str, dict[str, int]] = {}
    for q, _, d, g in EXAMPLE_QRELS:
        documents = best.setdefault(q, {})
        documents[d] = max(documents.get(d, g), g)
    expected = pytrec_eval.RelevanceEvaluator(best, {"map", "ndcg", "P_5"}).evaluate(EXAMPLE_RUN)
    table = result.trec_query_metrics(["AP", "nDCG", "P@5"])
    for q, values in expected.items():
        assert table.loc[q].tolist() == pytest.approx([values["map"], values["ndcg"], values["P_5"]], abs=1e-12)


# ---------------------------------------------------------------------------------------------- reading the qrels
def test_the_subtopic_qrels_reader(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 1 d1 1\nq1 2 d1 0\n\nq2 1 d3 2\n")
    frame = read_qrels(path, subtopics=True)
    assert frame.to_dict("list") == {"qid": ["q1", "q1", "q2"], "subtopic": ["1", "2", "1"], "docid": ["d1", "d1", "d3"],
                                     "relevance": [1, 0, 2]}
    assert read_subtopic_qrels({"q1": {"1": {"d1": 1}, "2": {"d1": 0}}, "q2": {"1": {"d3": 2}}}).equals(frame)
    path.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 1 d1 2\n")
    with pytest.raises(LoadError, match=r"qrels.txt:3: document 'd1' is judged twice for subtopic '1' of query 'q1' "
                                        r"\(first on line 1\)"):
        read_qrels(path, subtopics=True)
    path.write_text("q1 1 d1 1\nq1 2 d1 x\n")
    with pytest.raises(LoadError, match=r"qrels.txt:2: the relevance grade \(column 4\) must be an integer"):
        read_qrels(path, subtopics=True)
    with pytest.raises(InvalidParameterError, match=r"subtopics must be True or False; got 'yes'"):
        read_qrels(path, subtopics="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"qrels\['q1'\]\['d1'\] must be a dict \{docid: grade\}"):
        EvaluationResult.from_trec({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, subtopics=True, progress=False)


def test_the_analyses_take_the_diversity_measures(tmp_path):
    """query_metrics(measures=), sliced_metrics, metrics_at_k, compare and the report: the per-query values of
    trec_query_metrics, and their means."""
    names = ["alpha_nDCG@3", "alpha_DCG@3", "ERR_IA@3", "nERR_IA@3", "P_IA@3", "AP_IA", "StRecall@3", "Compat"]
    first = tmp_path / "a"
    first.mkdir()
    run_a, qrels_path = write(first, EXAMPLE_QRELS, EXAMPLE_RUN)
    other = {q: {d: -score for d, score in docs.items()} for q, docs in EXAMPLE_RUN.items()}  # reversed rankings
    run_b, _ = write(tmp_path, EXAMPLE_QRELS, other)
    a, b = (EvaluationResult.from_trec(run, qrels_path, subtopics=True, progress=False) for run in (run_a, run_b))
    per_query = a.trec_query_metrics(names)
    assert len(per_query) == 2
    got = a.query_metrics("Retriever", measures=names).loc[per_query.index, names]
    np.testing.assert_allclose(got.to_numpy(), per_query.to_numpy(), rtol=0, atol=1e-15)
    sliced = a.sliced_metrics("query", measures=names).droplevel("node")
    np.testing.assert_allclose(sliced[names].reindex(per_query.index).to_numpy(), per_query.to_numpy(), rtol=0,
                               atol=1e-15)
    at_k = a.metrics_at_k(ks=(3,), measures=["alpha_nDCG", "P_IA", "StRecall"])
    for name in ("alpha_nDCG", "P_IA", "StRecall"):
        assert at_k[(at_k["metric"] == name) & (at_k["k"] == 3)]["value"].iloc[0] == pytest.approx(
            per_query[f"{name}@3"].mean(), abs=1e-12)
    table = compare(a, b, metrics=names, rounds=50)
    per_query_b = b.trec_query_metrics(names)
    for name in names:
        assert table.loc[name, "mean_a"] == pytest.approx(per_query[name].mean(), abs=1e-12), name
        assert table.loc[name, "mean_b"] == pytest.approx(per_query_b[name].mean(), abs=1e-12), name
    text = a.report(measures=names, charts=False).text
    assert all(name in text for name in names)
