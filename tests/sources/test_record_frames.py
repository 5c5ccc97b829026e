"""The frames a few records build, worked out by hand (issue 40: the records -> frames path built column-wise).

Every expected value below follows from docs/metrics.md's definitions of the columns, not from running the code:
ids given and not given, several contexts per sample, a repeated passage kept once (duplicates="first"), a
no-answer sample, a sample without retrieved contexts, gold answers as one text and as a list, a context holding
the gold answer, and the whitespace / case normalisation of the matching.
"""

from __future__ import annotations

import hashlib
import re
import string

import numpy as np
import pytest

from evalframe import EvaluationResult
from evalframe.sources.matching import AnswerMatcher, normalize_answer, normalize_context
from evalframe.sources.records import Record, Retrieved, build


def md5(query: str) -> str:  # Haystack's multilabel_id: the MD5 of the query and its filters (none: "null")
    return hashlib.md5((query + "null").encode()).hexdigest()


RETRIEVER_COLUMNS = [
    "multilabel_id", "query", "filters", "gold_answers", "context", "gold_contexts", "gold_id_match", "context_match",
    "answer_match", "gold_id_or_answer_match", "gold_id_and_answer_match", "gold_id_or_context_match",
    "gold_id_and_context_match", "gold_id_and_context_and_answer_match", "context_and_answer_match", "rank",
    "document_id", "gold_document_ids", "gold_documents_id_match", "gold_contexts_similarity", "gold_answers_match",
    "type", "node", "eval_mode", "index"]
GENERATOR_COLUMNS = [
    "multilabel_id", "query", "filters", "gold_answers", "answer", "context", "exact_match", "f1",
    "exact_match_context_scope", "f1_context_scope", "exact_match_document_id_scope", "f1_document_id_scope",
    "exact_match_document_id_and_context_scope", "f1_document_id_and_context_scope", "gold_contexts", "rank",
    "document_ids", "gold_document_ids", "offsets_in_document", "gold_offsets_in_documents", "offsets_in_context",
    "gold_offsets_in_contexts", "gold_answers_exact_match", "gold_answers_f1", "gold_documents_id_match",
    "gold_contexts_similarity", "type", "node", "eval_mode", "index", "prompt"]

SAMPLES_WITH_IDS = [
    {"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn was the capital.", "Berlin is the capital of Germany."],
     "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"], "response": "Berlin", "reference": "Berlin"},
    {"user_input": "Which city?", "retrieved_contexts": ["Paris is in France.", "Paris is in France.", "Lyon is in France."],
     "retrieved_context_ids": ["d3", "d3", "d4"], "reference_context_ids": ["d4"], "response": "Lyon!", "reference": "lyon"},
    {"user_input": "Who won the 2030 cup?", "retrieved_contexts": ["Nothing here."], "retrieved_context_ids": ["d5"],
     "reference_context_ids": [], "response": "", "reference": ""},
    {"user_input": "Capital of Italy?", "retrieved_contexts": [], "retrieved_context_ids": [],
     "reference_context_ids": ["d6"], "response": "It is Rome", "reference": "Rome"},
]


def test_samples_with_ids_build_the_hand_worked_frames():
    result = EvaluationResult.from_ragas(SAMPLES_WITH_IDS, duplicates="first", progress=False)
    retriever, generator = result["Retriever"], result["Generator"]
    assert list(retriever.columns) == RETRIEVER_COLUMNS and list(generator.columns) == GENERATOR_COLUMNS
    queries = [sample["user_input"] for sample in SAMPLES_WITH_IDS]
    # the repeated d3 kept once at rank 1 (d4 moves up to 2); a sample without passages keeps one empty row
    assert retriever["multilabel_id"].tolist() == [md5(q) for q in (queries[0], queries[0], queries[1], queries[1],
                                                                     queries[2], queries[3])]
    assert retriever["document_id"].tolist() == ["d2", "d1", "d3", "d4", "d5", ""]
    assert retriever["rank"].tolist() == [1, 2, 1, 2, 1, 1] and retriever["index"].tolist() == [0, 1, 0, 1, 0, 0]
    assert retriever["gold_document_ids"].tolist() == [["d1"], ["d1"], ["d4"], ["d4"], [], ["d6"]]
    assert retriever["gold_documents_id_match"].tolist() == [[0.0], [1.0], [0.0], [1.0], [], [0.0]]
    assert retriever["gold_id_match"].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    # "Berlin" is in d1's text; "lyon" is not in "Lyon is in France." (the substring test is case-sensitive); the
    # no-answer gold "" is in no text
    assert retriever["gold_answers_match"].tolist() == [[0.0], [1.0], [0.0], [0.0], [0.0], [0.0]]
    assert retriever["answer_match"].tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert retriever["gold_id_or_answer_match"].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    # no reference_contexts: each gold document's text is "", shorter than context_matching_min_length (100)
    assert retriever["gold_contexts"].tolist() == [[""], [""], [""], [""], [], [""]]
    assert retriever["gold_contexts_similarity"].tolist() == [[0.0], [0.0], [0.0], [0.0], [], [0.0]]
    assert retriever["context_match"].tolist() == [0.0] * 6
    assert str(retriever["rank"].dtype) == "int64" and str(retriever["gold_id_match"].dtype) == "float64"

    assert generator["answer"].tolist() == ["Berlin", "Lyon!", "", "It is Rome"]
    assert generator["document_ids"].tolist() == [["d2", "d1"], ["d3", "d4"], ["d5"], None]
    assert generator["gold_answers"].tolist() == [["Berlin"], ["lyon"], [""], ["Rome"]]
    # "Lyon!" and "lyon" are one answer after SQuAD normalisation; "" against the no-answer gold "" is exact, and F1
    # of two empty token lists is 1; "it is rome" against "rome": P = 1/3, R = 1, F1 = 2PR / (P + R) = 1/2
    assert generator["gold_answers_exact_match"].tolist() == [[1], [1], [1], [0]]
    assert generator["gold_answers_f1"].tolist() == [[1.0], [1.0], [1], [0.5]]
    assert generator["exact_match"].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert generator["f1"].tolist() == [1.0, 1.0, 1.0, 0.5]
    # the answer cites every retrieved document; the gold id among them scopes its value in
    assert generator["gold_documents_id_match"].tolist() == [[1.0], [1.0], [], [0.0]]
    assert generator["f1_document_id_scope"].tolist() == [1.0, 1.0, 1.0, 0.0]
    # context scope: the answer has no context (similarity 0 to each gold text), so only the sentinel pair
    # (0.0, 100) of a query without a gold document's value counts: the no-answer query's 1
    assert generator["f1_context_scope"].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert generator["exact_match_document_id_and_context_scope"].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert generator["prompt"].tolist() == [None] * 4 and generator["type"].tolist() == ["answer"] * 4


GOLD = ("The Eiffel Tower stands in Paris, the capital of France, on the Champ de Mars, and was finished in 1889 "
        "for the world's fair.")


def test_samples_without_ids_match_by_normalised_text_and_by_the_answer_they_hold():
    assert len(GOLD) >= 100  # context matching compares texts of at least context_matching_min_length characters
    # the gold text in capitals, with no-break spaces, a line break and doubled spaces: equal once normalised
    shouted = GOLD.upper().replace(" ", "\u00a0", 3).replace(", ", ",\n  ")
    assert normalize_context(shouted) == normalize_context(GOLD) == " ".join(GOLD.lower().split())
    samples = [
        {"user_input": "Where is the Eiffel Tower?", "retrieved_contexts": [shouted, "Paris is where it is."],
         "reference_contexts": [GOLD], "response": "in PARIS.", "reference": "Paris"},
        {"user_input": "Which passage?", "retrieved_contexts": ["Same passage.", "Same passage.", "Another one."],
         "reference_contexts": ["Another one."], "response": "x", "reference": "y"},
    ]
    result = EvaluationResult.from_ragas(samples, duplicates="first", progress=False)
    retriever, generator = result["Retriever"], result["Generator"]
    assert list(retriever.columns) == RETRIEVER_COLUMNS
    assert retriever["context"].tolist() == [shouted, "Paris is where it is.", "Same passage.", "Another one."]
    assert retriever["rank"].tolist() == [1, 2, 1, 2]
    # equal after normalisation: 100; the short passages are below min_length: 0
    assert retriever["gold_contexts_similarity"].tolist() == [[100.0], [0.0], [0.0], [0.0]]
    assert retriever["context_match"].tolist() == [1.0, 0.0, 0.0, 0.0]
    # "Paris" is in the second passage (not in the capitals of the first): a context holding the gold answer
    assert retriever["answer_match"].tolist() == [0.0, 1.0, 0.0, 0.0]
    # no ids given: every document's id is its text's hash, so "Another one." is the gold document by id too
    assert retriever["gold_id_match"].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert retriever["gold_id_or_context_match"].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert retriever["document_id"].iloc[3] == retriever["gold_document_ids"].iloc[3][0]
    assert retriever["context_and_answer_match"].tolist() == [0.0, 0.0, 0.0, 0.0]
    # "in PARIS." -> "in paris" against "paris": P = 1/2, R = 1, F1 = 2/3
    assert generator["gold_answers_f1"].tolist()[0] == [pytest.approx(2 / 3, abs=1e-15)]
    assert generator["exact_match"].tolist() == [0.0, 0.0]


def test_a_record_with_a_list_of_gold_answers_scores_each():
    records = [Record("row 1", "Who wrote Hamlet?", [Retrieved("h1", "Hamlet was written by William Shakespeare.")],
                      answer="Shakespeare", gold_ids=["h1"], gold_answers=["William Shakespeare", "Shakespeare"]),
               Record("row 2", "Who wrote Faust?", [Retrieved("f1", "Goethe wrote it."), Retrieved("h1", "Hamlet.")],
                      answer="Goethe", gold_ids=["f1"], gold_answers=["Goethe"])]
    result = EvaluationResult(build(records, progress=False))
    retriever, generator = result["Retriever"], result["Generator"]
    # one gold document beside two answers: one label each, the document named twice
    assert retriever["gold_document_ids"].tolist() == [["h1", "h1"], ["f1"], ["f1"]]
    assert retriever["gold_documents_id_match"].tolist() == [[1.0, 1.0], [1.0], [0.0]]
    assert retriever["gold_answers_match"].tolist() == [[1.0, 1.0], [1.0], [0.0]]
    assert retriever["gold_id_and_answer_match"].tolist() == [1.0, 1.0, 0.0]
    # "shakespeare" against "william shakespeare": P = 1, R = 1/2, F1 = 2/3; against "shakespeare": 1
    assert generator["gold_answers_exact_match"].tolist() == [[0, 1], [1]]
    assert generator["gold_answers_f1"].tolist()[0] == [pytest.approx(2 / 3, abs=1e-15), 1.0]
    assert generator["exact_match"].tolist() == [1.0, 1.0] and generator["f1"].tolist() == [1.0, 1.0]
    assert np.array_equal(generator["index"].to_numpy(), [0, 0])


@pytest.mark.parametrize("text, normalized", [
    ("The cat and a dog ate  an apple", "cat and dog ate apple"),  # the articles as words, doubled spaces
    ("theater anna thee", "theater anna thee"),  # an article inside a word stays
    ("A-the an_b", "athe anb"),  # punctuation dropped first, then no article is a word of its own
    ("Ünïcode\u00a0the — a", "ünïcode —"),  # non-ASCII: the regex path, a dash is a word boundary
    ("x\tthe\ny", "x y"),  # tabs and line breaks: the regex path too
])
def test_normalize_answer_as_squad_defines_it(text, normalized):
    assert normalize_answer(text) == normalized
    expected = text.lower().translate(str.maketrans("", "", string.punctuation))
    assert normalize_answer(text) == " ".join(re.sub(r"\b(a|an|the)\b", " ", expected).split())


def test_the_answer_matcher_gives_the_squad_values_and_types():
    matcher = AnswerMatcher()
    # int 0/1 for exact match; F1 an int in the degenerate cases (no tokens, no overlap), else a float
    assert matcher.scores(["", "The Café!", "tea"], "café") == ([0, 1, 0], [0, 1.0, 0])
    assert matcher.scores([""], "") == ([1], [1])
    assert [type(v) for v in matcher.scores(["a b", "c"], "b")[1]] == [float, int]
    # repeated tokens count as often as both sides hold them: "x y y z" / "y y y x" share x once and y twice,
    # P = R = 3/4; "x y z" / "y y y x" share x and y, P = 2/4, R = 2/3, F1 = 4/7; "x y z" / "y y q" share y once,
    # P = R = 1/3
    assert matcher.scores(["x y y z", "x y z"], "y y y x")[1] == [0.75, pytest.approx(4 / 7, abs=1e-15)]
    assert matcher.scores(["x y z"], "y y q")[1] == [pytest.approx(1 / 3, abs=1e-15)]


def test_normalize_context_is_the_regex_definition_on_every_whitespace_character():
    whitespace = "".join(chr(c) for c in range(0x110000) if re.fullmatch(r"\s", chr(c)))
    assert whitespace == "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    text = f"{whitespace}A{whitespace}ΣΑΣ b\u00a0\u00a0Ⅻ {whitespace}"
    assert normalize_context(text) == re.sub(r"\s+", " ", text).lower().strip() == "a σας b ⅻ"


def test_a_source_s_warning_names_the_user_s_line_and_the_collector_is_restored():
    import gc

    samples = [dict(SAMPLES_WITH_IDS[0], topic="geography")]
    with pytest.warns(UserWarning, match="columns that give no score: 'topic'") as caught:
        EvaluationResult.from_ragas(samples, progress=False)
    assert [w.filename for w in caught] == [__file__] and gc.isenabled()
    with pytest.raises(Exception, match="has no column 'user_input'"):
        EvaluationResult.from_ragas([{"question_text": "q"}], progress=False)
    assert gc.isenabled()


class CountedLength(list):
    """A list that counts how often its length is asked: a list of n made per value would ask it per value."""

    asked = 0

    def __len__(self) -> int:
        type(self).asked += 1
        return super().__len__()


def test_the_scores_of_n_records_are_collected_in_linear_time():
    # was: columns.setdefault(name, [nan] * len(records)) made a list of n for every value, n^2 in all (7.8 s of the
    # 19 s of a 50,000-sample Ragas file)
    records = CountedLength(Record(f"row {i}", f"question {i}?", answer="a", gold_answers=["a"],
                                   scores={"faithfulness": 0.5, "relevance": 1.0}) for i in range(500))
    CountedLength.asked = 0
    result = EvaluationResult(build(records, progress=False))
    assert CountedLength.asked < 50  # a few per build, not one per value (1,000)
    assert result["Generator"]["scores.faithfulness"].tolist() == [0.5] * 500


def test_the_own_scores_of_n_multilabels_are_collected_in_linear_time():
    from evalframe import Answer, Document, Label, MultiLabel
    from evalframe.sources.flatten import entry_scores

    label = Label("q", Document("text", id="d"), True, True, "gold-label", Answer("a"))
    labels = CountedLength(MultiLabel([label], scores={"Reader": {"judge": float(i)}}) for i in range(300))
    CountedLength.asked = 0
    assert entry_scores(labels) == {"Reader": {"judge": [float(i) for i in range(300)]}}
    assert CountedLength.asked < 5
