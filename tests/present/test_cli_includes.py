"""``evalframe metrics`` says what each document-metric mean includes (below the table and markdown tables; json and
csv stay the numbers): the no-answer queries with the answerable-only means, and what the default scope credits.
On the ten queries of tests/fixtures.py (``ten_query_lines``, worked out by hand there)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from evalframe.present.cli import main
from tests.fixtures import ten_query_result

NO_ANSWER = ("note: Retriever: 2 of 10 queries are no-answer queries (no gold answer, no gold document); every document "
             "metric scores them 1.0 (Haystack's definition) and each mean counts them; 'answerable only' is the mean "
             "over the other 8. Answerable only: recall_multi_hit 0.7500, recall_single_hit 0.7500, precision 0.6875, "
             "map 0.6875, mrr 0.6875, ndcg 0.7039 (--by no_answer slices them).")
SCOPE = ("note: document_scope='document_id_or_answer' (the default) counts a retrieved document as relevant when its id "
         "is a gold document id or when its text contains a gold answer string: a chunk holding the answer counts even "
         "under another document id. With document_scope='document_id' (gold ids only): Retriever recall_single_hit "
         "0.7000 (0.8000 here).")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return ten_query_result().save(tmp_path_factory.mktemp("ten") / "run", progress=False)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_table_is_followed_by_the_notes(folder, capsys):
    # precision: q1-q5 1, q6 1/2 (two rows, one relevant), q7 q8 0 -> 5.5 / 8 answerable
    code, out, err = run(capsys, "metrics", str(folder))
    assert code == 0 and err == ""
    assert out.splitlines()[-2:] == [NO_ANSWER, SCOPE]
    code, out, _ = run(capsys, "metrics", str(folder), "--format", "markdown")
    assert out.rstrip("\n").split("\n\n")[-2:] == [NO_ANSWER, SCOPE]


def test_gold_ids_only_and_a_top_k_change_the_numbers_and_drop_the_scope_note(folder, capsys):
    code, out, _ = run(capsys, "metrics", str(folder), "--document-scope", "document_id")
    assert code == 0 and out.splitlines()[-1].startswith("note: Retriever: 2 of 10 queries are no-answer queries")
    assert "recall_single_hit 0.6250" in out.splitlines()[-1] and "document_scope='document_id_or_answer'" not in out
    code, out, _ = run(capsys, "metrics", str(folder), "--top-k-retriever", "1")
    assert "recall_single_hit 0.6250" in out.splitlines()[-2]  # q6's chunk at rank 2 is cut
    assert out.splitlines()[-1].endswith("Retriever recall_single_hit 0.7000 (0.7000 here).")


def test_json_and_csv_stay_the_numbers_and_an_answer_node_has_no_note(folder, capsys):
    code, out, _ = run(capsys, "metrics", str(folder), "--format", "json")
    assert json.loads(out)["Retriever"]["recall_single_hit"] == pytest.approx(0.8) and "note" not in out
    code, out, _ = run(capsys, "metrics", str(folder), "--format", "csv")
    assert pd.read_csv(io.StringIO(out), index_col="node").loc["Retriever", "mrr"] == pytest.approx(0.75)
    frame = ten_query_result()["Retriever"]
    answered = frame[~frame["query"].isin(["question 9?", "question 10?"])].reset_index(drop=True)
    from evalframe import EvaluationResult

    other = EvaluationResult({"Retriever": answered}).save(folder.parent / "answered", progress=False)
    code, out, _ = run(capsys, "metrics", str(other), "--document-scope", "document_id")
    assert "note" not in out  # no no-answer query, a scope of gold ids: nothing to say
