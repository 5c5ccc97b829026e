"""A small hand-made evaluation result (the rows from_runs builds, docs/runs-format.md) with metrics worked out by hand.

The row-level 0/1 columns of document rows are derived from the per-gold lists with the rules
of from_runs (docs/runs-format.md; threshold 65) by :func:`doc_row`; the expected *metrics* in the tests are hand-worked.

Retriever (documents, integrated):
  q1  gold [d1, d2]   r1 d3 (ctx0, ans0) | r2 d1 (id0, ctx0, ans0) | r3 d2 (id1, ans1) | r4 d4 (none)
                      | r5 d1 again (id0, ctx0, ans0)
  q2  no-answer: gold []                          r1 d5
  q3  gold [d6]       r1 d7 | r2 d8 | r3 d6 (id0, ctx0, ans0)
  q4  gold ["00"]     r1 d9 (the "00" entry is not a gold document)
  q5  gold [d10, d11] empty retrieval: placeholder r1 ""
  q6  gold [d12, d13] r1 d14 (ctx 80 / 70) | r2 d12 (id0, ctx 100)
Reader (answers):
  q1  r1 em0 f1 .5 [d3] | r2 em1 f1 1 [d1] | r3 em0 f1 .2 []         isolated: r1 em1 f1 1 [d1]
  q2  no-answer placeholder "" em1 f1 1 []
  q3  r1 em0 f1 0 [d6] | r2 em1 f1 1 [d8, d6]
  q5  r1 em0 f1 .4 [d99]
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pandas as pd

from evalframe import EvaluationResult

T = 65.0


def doc_row(qid, rank, doc_id, gold_ids, id_match, sims, ans_match, *, gold_answers=None, eval_mode="integrated"):
    idm = [float(v) for v in id_match]
    sim = [float(v) for v in sims]
    ans = [float(v) for v in ans_match]
    gold_id = max(idm + [0.0])
    answer = max(ans + [0.0])
    context = 1.0 if any(s > T for s in sim) else 0.0
    id_and_ans = max(min(a, b) for a, b in zip(idm + [0.0], ans + [0.0]))
    id_and_ctx = max(min(a, 1.0 if s > T else 0.0) for a, s in zip(idm + [0.0], sim + [0.0]))
    id_ctx_ans = max(
        min(a, 1.0 if s > T else 0.0, b) for a, s, b in zip(idm + [0.0], sim + [0.0], ans + [0.0])
    )
    if any(ans) and any(sim):
        ctx_and_ans = max(min(1.0 if s > T else 0.0, b) for s, b in zip(sim, ans))
    else:
        ctx_and_ans = 0.0
    return {
        "multilabel_id": qid,
        "query": f"question {qid}",
        "filters": None,
        "gold_answers": gold_answers if gold_answers is not None else [f"answer {qid}"],
        "context": f"passage {doc_id}",
        "gold_contexts": [f"gold passage {g}" for g in gold_ids],
        "gold_id_match": gold_id,
        "context_match": context,
        "answer_match": answer,
        "gold_id_or_answer_match": max(gold_id, answer),
        "gold_id_and_answer_match": id_and_ans,
        "gold_id_or_context_match": max(gold_id, context),
        "gold_id_and_context_match": id_and_ctx,
        "gold_id_and_context_and_answer_match": id_ctx_ans,
        "context_and_answer_match": ctx_and_ans,
        "rank": rank,
        "document_id": doc_id,
        "gold_document_ids": list(gold_ids),
        "gold_documents_id_match": idm,
        "gold_contexts_similarity": sim,
        "gold_answers_match": ans,
        "type": "document",
        "node": "Retriever",
        "eval_mode": eval_mode,
    }


def answer_row(qid, rank, answer, em, f1, doc_ids, *, scoped=None, eval_mode="integrated", gold_answers=None):
    """``scoped`` maps answer_scope -> (em, f1) for the *_scope columns (default: same as any)."""
    scoped = scoped or {}
    row = {
        "multilabel_id": qid,
        "query": f"question {qid}",
        "filters": None,
        "gold_answers": gold_answers if gold_answers is not None else [f"answer {qid}"],
        "answer": answer,
        "context": f"context of {answer}",
        "exact_match": float(em),
        "f1": float(f1),
        "rank": rank,
        "document_ids": list(doc_ids),
        "gold_document_ids": ["g"],
        "type": "answer",
        "node": "Reader",
        "eval_mode": eval_mode,
    }
    for scope in ("context", "document_id", "document_id_and_context"):
        s_em, s_f1 = scoped.get(scope, (em, f1))
        row[f"exact_match_{scope}_scope"] = float(s_em)
        row[f"f1_{scope}_scope"] = float(s_f1)
    return row


def retriever_frame() -> pd.DataFrame:
    rows = [
        doc_row("q1", 1, "d3", ["d1", "d2"], [0, 0], [70, 10], [1, 0]),
        doc_row("q1", 2, "d1", ["d1", "d2"], [1, 0], [90, 20], [1, 0]),
        doc_row("q1", 3, "d2", ["d1", "d2"], [0, 1], [30, 50], [0, 1]),
        doc_row("q1", 4, "d4", ["d1", "d2"], [0, 0], [5, 5], [0, 0]),
        doc_row("q1", 5, "d1", ["d1", "d2"], [1, 0], [90, 20], [1, 0]),
        doc_row("q2", 1, "d5", [], [], [], [0], gold_answers=[""]),
        doc_row("q3", 1, "d7", ["d6"], [0], [10], [0]),
        doc_row("q3", 2, "d8", ["d6"], [0], [20], [0]),
        doc_row("q3", 3, "d6", ["d6"], [1], [100], [1]),
        doc_row("q4", 1, "d9", ["00"], [0], [0], [0]),
        doc_row("q5", 1, "", ["d10", "d11"], [0, 0], [0, 0], [0, 0]),
        doc_row("q6", 1, "d14", ["d12", "d13"], [0, 0], [80, 70], [0, 0]),
        doc_row("q6", 2, "d12", ["d12", "d13"], [1, 0], [100, 10], [0, 0]),
    ]
    return pd.DataFrame(rows)


def reader_frame() -> pd.DataFrame:
    docid = "document_id"
    rows = [
        answer_row("q1", 1, "Bonn", 0, 0.5, ["d3"], scoped={docid: (0, 0)}),
        answer_row("q1", 2, "Berlin", 1, 1, ["d1"]),
        answer_row("q1", 3, "Munich", 0, 0.2, [], scoped={docid: (0, 0)}),
        answer_row("q1", 1, "Berlin", 1, 1, ["d1"], eval_mode="isolated"),
        answer_row("q2", 1, "", 1, 1, [], scoped={docid: (0, 0)}, gold_answers=[""]),
        answer_row("q3", 1, "seven", 0, 0, ["d6"]),
        answer_row("q3", 2, "six", 1, 1, ["d8", "d6"]),
        answer_row("q5", 1, "a river", 0, 0.4, ["d99"], scoped={docid: (0, 0)}),
    ]
    return pd.DataFrame(rows)


def hand_result() -> EvaluationResult:
    return EvaluationResult({"Retriever": retriever_frame(), "Reader": reader_frame()})


BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
SCRIPTS = Path(__file__).parent.parent / "scripts"


def load_benchmark(script: str, folder: Path = BENCHMARKS) -> ModuleType:
    """A script of benchmarks/ (``"run.py"``, ...) or of another ``folder`` (``SCRIPTS``) imported as a module, under
    a name of its own."""
    spec = importlib.util.spec_from_file_location(f"evalframe_{folder.name}_{script.removesuffix('.py')}", folder / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------- ten queries, 2 no-answer
def ten_query_lines() -> list[dict]:
    """Runs file lines of 10 queries, 2 of them no-answer, for what the document metrics' means include (issue 28).

    Per query, the retriever's ranked documents and which count as relevant (r = relevant at that rank):

    ======  =================================  ===========================  ====================
    query   retrieved                          document_id_or_answer        document_id
    ======  =================================  ===========================  ====================
    q1-q5   g<i> (the gold document, holding   r at rank 1                  r at rank 1
            the answer)
    q6      x6 (unrelated), c6 (another id,    r at rank 2 (the chunk       none (c6 is not g6)
            holding the answer "answer6")      holds the answer string)
    q7, q8  x7 / x8 (unrelated)                none                         none
    q9,q10  x9 / x10; no gold document         no gold: 1.0                 no gold: 1.0
    ======  =================================  ===========================  ====================

    recall_single_hit: default (5 + 1 + 0 + 0 + 2) / 10 = 0.8, answerable (5 + 1) / 8 = 0.75;
    document_id (5 + 2) / 10 = 0.7, answerable 5 / 8 = 0.625. mrr: default (5 + 1/2 + 2) / 10 = 0.75, answerable
    5.5 / 8 = 0.6875; document_id 0.7 and 0.625 (as recall).
    """
    lines = []
    for i in range(1, 11):
        query = f"question {i}?"
        if i <= 5:
            gold = {"document_ids": [f"g{i}"], "contexts": [f"gold passage with answer{i}."], "answers": [f"answer{i}"]}
            documents = [{"id": f"g{i}", "content": f"gold passage with answer{i}."}]
        elif i <= 8:
            gold = {"document_ids": [f"g{i}"], "contexts": [f"gold passage with answer{i}."], "answers": [f"answer{i}"]}
            documents = [{"id": f"x{i}", "content": f"an unrelated passage {i}."}]
            if i == 6:
                documents.append({"id": "c6", "content": "another chunk that says answer6 too."})
        else:
            gold = {"answers": [""]}
            documents = [{"id": f"x{i}", "content": f"an unrelated passage {i}."}]
        lines.append({"query": query, "gold": gold, "nodes": {"Retriever": {"documents": documents}}})
    return lines


def ten_query_result() -> EvaluationResult:
    """:func:`ten_query_lines` built by from_runs (the lines as Python, not a file)."""
    from evalframe import Answer, Document, Label

    labels, documents = [], []
    for line in ten_query_lines():
        gold = line["gold"]
        if "document_ids" in gold:
            labels.append([Label(line["query"], Document(gold["contexts"][0], id=gold["document_ids"][0]), True, True,
                                 "gold-label", Answer(gold["answers"][0]))])
        else:  # a no-answer label: empty document and answer, as read_runs makes it
            labels.append([Label(line["query"], Document("", id=""), True, True, "gold-label", Answer(""))])
        documents.append(line["nodes"]["Retriever"]["documents"])
    return EvaluationResult.from_runs(labels, {"Retriever": {"documents": documents}}, progress=False)


@contextlib.contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off inside (restored after): what is freed inside is freed by reference
    counting alone, as soon as it is dropped. Objects in a reference cycle stay until the collector's next run, which
    in a long-lived process holding many objects (a Dask worker) may be many tasks later."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class LazyModule:
    """A reference library a test module uses, imported at its first use instead of when the module is collected.

    Every test process (``pytest -n 2``: each worker) collects every test module, and a reference imported at the top
    of one is paid by each of them, whether it runs a test of that module or not (scikit-learn and ppi_python: about
    0.75 s; matplotlib's pyplot: 0.6 s). ``load()`` imports it through ``pytest.importorskip`` (the test skips without
    it); a module-scoped autouse fixture calling it keeps the skip of a whole module that a module-level importorskip
    gave. Access to a public attribute loads it too: ``ppi_py = LazyModule("ppi_py")`` then ``ppi_py.ppi_mean_ci(...)``.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def load(self) -> ModuleType:
        if self._module is None:
            import pytest

            self._module = pytest.importorskip(self._name)
        return self._module

    def __getattr__(self, attribute: str) -> object:
        if attribute.startswith("_"):  # what collection looks up on a module's globals (__test__, __wrapped__, ...)
            raise AttributeError(attribute)
        return getattr(self.load(), attribute)

    def __repr__(self) -> str:
        return f"LazyModule({self._name!r}, loaded={self._module is not None})"


@contextlib.contextmanager
def launched_chromium() -> Iterator[object]:
    """Debian's Chromium started by playwright (scripts/screenshot_report.py finds it), closed at the end: the
    browser tests' one way to start it. A Chromium that does not start skips the test, or fails it when
    ``EVALFRAME_REQUIRE_BROWSER`` is set (.ci/run sets it, having installed Chromium)."""
    import os

    import pytest
    from playwright import sync_api

    executable = load_benchmark("screenshot_report.py", SCRIPTS).browser()
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except sync_api.Error as exc:
            if os.environ.get("EVALFRAME_REQUIRE_BROWSER"):
                pytest.fail(f"EVALFRAME_REQUIRE_BROWSER is set but no Chromium starts: {str(exc).splitlines()[0]}")
            pytest.skip(f"no Chromium: {str(exc).splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()
