"""SQuAD normalisation, exact match, F1 and context similarity (docs/runs-format.md#the-text-helpers)."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, strategies as st
from rapidfuzz import fuzz

from evalframe.sources.matching import context_similarities, context_similarity, exact_match, f1, normalize_answer


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Eiffel Tower", "eiffel tower"),
        ("  An apple,  a DAY!  ", "apple day"),
        ("theater anthem", "theater anthem"),  # articles only as whole words
        ("U.S.A.", "usa"),
        ("a-b_c", "abc"),
        ("", ""),
        ("\tthe\nthe ", ""),
    ],
)
def test_normalize_answer(text, normalized):
    assert normalize_answer(text) == normalized


@pytest.mark.parametrize(
    ("gold", "prediction", "em", "expected_f1"),
    [
        ("the Eiffel Tower", "Eiffel tower.", 1, 1.0),
        ("Eiffel Tower in Paris", "the tower", 0, 2 * 1 * 0.25 / 1.25),  # P 1/1, R 1/4
        ("1 2 2 3", "2 2 2", 0, 2 * (2 / 3) * (2 / 4) / ((2 / 3) + (2 / 4))),  # multiset overlap is 2
        ("Berlin", "Bonn", 0, 0),
        ("", "", 1, 1),  # both without tokens
        ("", "Berlin", 0, 0),
        ("the", "a", 1, 1),  # both normalise to no tokens
    ],
)
def test_exact_match_and_f1(gold, prediction, em, expected_f1):
    assert exact_match(gold, prediction) == em and type(exact_match(gold, prediction)) is int
    assert f1(gold, prediction) == pytest.approx(expected_f1)


PASSAGE = ("Berlin is the capital and largest city of Germany by both area and population. "
           "Its more than 3.85 million inhabitants make it the most populous city of the European Union.")


def test_context_similarity_short_identical_and_contained():
    assert context_similarity(PASSAGE, PASSAGE) == 100.0
    assert context_similarity(PASSAGE, "  " + PASSAGE.upper().replace(" ", "\n  ")) == 100.0  # whitespace and case
    assert context_similarity(PASSAGE, PASSAGE + " And much more text follows here.") == 100.0  # contained
    assert context_similarity("Berlin", "Berlin") == 0.0  # shorter than min_length
    assert context_similarity("Berlin", "Berlin", min_length=3) == 100.0
    assert context_similarity(PASSAGE[:99], PASSAGE) == 0.0


def test_context_similarity_without_boost_is_rapidfuzz_partial_ratio_of_shorter_in_longer():
    other = ("Paris is the capital and most populous city of France, with an estimated population of 2,102,650 "
             "residents in January 2023.")
    shorter, longer = sorted([PASSAGE.lower(), other.lower()], key=len)
    expected = fuzz.partial_ratio_alignment(shorter, longer).score
    assert context_similarity(PASSAGE, other, boost_split_overlaps=False) == expected
    assert context_similarity(other, PASSAGE, boost_split_overlaps=False) == expected


def test_split_overlap_boost():
    # shorter = B + A, longer = A + C with A about 38% of the shorter text: the best alignment starts at the
    # start of the longer text and scores 2f / (1 + f) ~ 55 (the 40-65 band), so the shorter text's left half
    # is cut and the score becomes the mean of both scores (docs/runs-format.md#the-text-helpers)
    a = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
    b = ("0123456789 " * 10)[:100]
    c = ("#$%&*+=<>? " * 20)[:200]
    shorter, longer = b + " " + a, a + " " + c
    alignment = fuzz.partial_ratio_alignment(shorter, longer)
    assert 40 <= alignment.score < 65 and alignment.dest_start == 0 and alignment.dest_end < len(longer)
    cut = fuzz.partial_ratio(shorter[len(shorter) // 2:], longer)
    assert cut > alignment.score
    assert context_similarity(shorter, longer) == pytest.approx((alignment.score + cut) / 2)
    assert context_similarity(shorter, longer, boost_split_overlaps=False) == alignment.score
    # the mirror case: A at the end of both texts -> the right half is cut
    shorter, longer = a + " " + b, c + " " + a
    alignment = fuzz.partial_ratio_alignment(shorter, longer)
    assert 40 <= alignment.score < 65 and alignment.dest_end == len(longer) and alignment.dest_start > 0
    cut = fuzz.partial_ratio(shorter[: -(len(shorter) // 2)], longer)
    assert context_similarity(shorter, longer) == pytest.approx((alignment.score + cut) / 2)


def test_batch_equals_single_on_random_texts():
    rng = random.Random(7)
    pairs = []
    for _ in range(400):
        alphabet = rng.choice(["ab ", "abcd \n", string.ascii_letters + " "])
        x = "".join(rng.choices(alphabet, k=rng.randint(90, 220)))
        y = "".join(rng.choices(alphabet, k=rng.randint(90, 220))) if rng.random() < 0.6 else x[len(x) // 2:] + x[:40]
        pairs.append((x, y))
    pairs += pairs[:50]  # repeated pairs
    assert context_similarities(pairs) == [context_similarity(x, y) for x, y in pairs]
    assert context_similarities(pairs, min_length=50, boost_split_overlaps=False) == [
        context_similarity(x, y, min_length=50, boost_split_overlaps=False) for x, y in pairs]


def test_batch_in_worker_processes_equals_single(monkeypatch):
    import evalframe.sources.matching as matching

    monkeypatch.setattr(matching, "PARALLEL_MIN_PAIRS", 10)
    rng = random.Random(11)
    pairs = [("".join(rng.choices("abc de", k=rng.randint(100, 180))), "".join(rng.choices("abc de", k=150)))
             for _ in range(60)]
    assert matching.context_similarities(pairs, workers=2) == [context_similarity(x, y) for x, y in pairs]


@given(st.text(alphabet=st.sampled_from(list(string.punctuation + string.ascii_letters + " \t\n" + "éß€“”…")), max_size=40))
def test_normalize_answer_drops_exactly_the_ascii_punctuation(text):
    # the definition in SQuAD's evaluation script, written out: lower, drop punctuation, drop articles, fix spaces
    lowered = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    expected = " ".join(re.sub(r"\b(a|an|the)\b", " ", lowered).split())
    assert normalize_answer(text) == expected
