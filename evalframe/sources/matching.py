"""Text matching used to build node frames: SQuAD normalisation, exact match, F1, context similarity.

See ``docs/runs-format.md#the-text-helpers``.

The return types follow Haystack 1.x (and the SQuAD script it copied): ``exact_match`` is an int 0/1,
``f1`` an int for the degenerate cases and a float otherwise, so frames built by evalframe hold the
same values (and CSV text) as Haystack's.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import string
from concurrent.futures import ProcessPoolExecutor
from collections import Counter
from collections.abc import Iterable

from ..options import MatchingOptions

_DEFAULTS = MatchingOptions()  # the defaults of from_runs, which these functions share

__all__ = [
    "normalize_answer", "exact_match", "f1", "normalize_context", "context_similarity", "context_similarities",
    "is_chunk_from_original", "AnswerMatcher",
]

_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)  # one C pass, not a generator step per character
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION_BYTES = string.punctuation.encode("ascii")
#: In a text of ASCII letters and digits between spaces, ``_ARTICLES`` matches exactly the words that are these.
_ARTICLE_WORDS = frozenset({"a", "an", "the"})


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower-case, drop punctuation, drop the articles a/an/the, collapse whitespace.

    Examples
    --------
    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    text = text.lower()
    if text.isascii():  # bytes.translate: one table look-up per byte, several times faster than str.translate
        text = text.encode("ascii").translate(None, _PUNCTUATION_BYTES).decode("ascii")
        if text.replace(" ", "").isalnum():  # letters and digits between single spaces: the words are the tokens
            return " ".join([word for word in text.split(" ") if word and word not in _ARTICLE_WORDS])
    else:
        text = text.translate(_DROP_PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _tokens(text: str) -> list[str]:
    return normalize_answer(text).split() if text else []


def exact_match(gold: str, prediction: str) -> int:
    """1 if both answers are equal after :func:`normalize_answer`, else 0.

    Examples
    --------
    >>> exact_match("the Eiffel Tower", "Eiffel tower.")
    1
    """
    return int(normalize_answer(gold) == normalize_answer(prediction))


def f1(gold: str, prediction: str) -> float:
    """Token-overlap F1 of the normalised answers (SQuAD); 1 if both have no tokens, 0 if only one has none.

    Examples
    --------
    >>> f1("Eiffel Tower in Paris", "the tower")  # P = 1/1, R = 1/4
    0.4
    """
    gold_tokens = _tokens(gold)
    predicted_tokens = _tokens(prediction)
    if not gold_tokens or not predicted_tokens:
        return int(gold_tokens == predicted_tokens)
    overlap = sum((Counter(gold_tokens) & Counter(predicted_tokens)).values())
    if overlap == 0:
        return 0
    precision = overlap / len(predicted_tokens)
    recall = overlap / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


class AnswerMatcher:
    """:func:`exact_match` and :func:`f1` of many (gold, prediction) pairs, each distinct text normalised once.

    Examples
    --------
    >>> matcher = AnswerMatcher()
    >>> matcher.scores(["Eiffel Tower in Paris", "the tower"], "the Tower.")
    ([0, 1], [0.4, 1.0])
    """

    def __init__(self) -> None:
        # per text: its normalised form, its tokens, and their set when no token repeats (else None)
        self._seen: dict[str, tuple[str, list[str], frozenset[str] | None]] = {}

    def _of(self, text: str) -> tuple[str, list[str], frozenset[str] | None]:
        found = self._seen.get(text)
        if found is None:
            normalized = normalize_answer(text)
            tokens = normalized.split() if text else []
            distinct = frozenset(tokens)
            found = self._seen[text] = (normalized, tokens, distinct if len(distinct) == len(tokens) else None)
        return found

    def scores(self, golds: Iterable[str], prediction: str) -> tuple[list[int], list[float]]:
        """(exact_match per gold, f1 per gold) of ``prediction``: the values (and types) of the two functions."""
        predicted, predicted_tokens, predicted_set = self._of(prediction)
        exact: list[int] = []
        overlaps: list[float] = []
        for gold in golds:
            normalized, gold_tokens, gold_set = self._of(gold)
            exact.append(int(normalized == predicted))
            if not gold_tokens or not predicted_tokens:
                overlaps.append(int(gold_tokens == predicted_tokens))
                continue
            # the common tokens counted as often as both hold them: with one side's tokens all distinct, the tokens
            # of that side the other holds
            if gold_set is not None:
                overlap = len(gold_set.intersection(predicted_tokens))
            elif predicted_set is not None:
                overlap = len(predicted_set.intersection(gold_tokens))
            else:
                overlap = sum((Counter(gold_tokens) & Counter(predicted_tokens)).values())
            if overlap == 0:
                overlaps.append(0)
                continue
            precision = overlap / len(predicted_tokens)
            recall = overlap / len(gold_tokens)
            overlaps.append((2 * precision * recall) / (precision + recall))
        return exact, overlaps


def is_chunk_from_original(chunk: str, original: str) -> bool:
    """Whether a retrieved ``chunk`` comes from the gold text ``original`` (REMem-style memory evaluation).

    A leading ``Date: ...`` line of the chunk is ignored. A conversation turn (``user: ...`` /
    ``assistant: ...``) matches when its text occurs in ``original``, as is or JSON-escaped; as in the
    reference implementation, the turn's text ends at its next ``": "``. Any other chunk matches when
    it occurs in ``original`` as is, or as a JSON string (quotes included), for originals stored as JSON.

    Examples
    --------
    >>> is_chunk_from_original("Date: 2024-05-01\\nuser: I moved to Lisbon", '[{"role": "user", "content": "I moved to Lisbon"}]')
    True
    >>> is_chunk_from_original('say "hi"', '{"text": "say \\\\"hi\\\\""}')
    True
    >>> is_chunk_from_original("Berlin", "Bonn")
    False
    """
    if chunk.startswith("Date: "):
        _, _, chunk = chunk.partition("\n")
    if chunk.startswith(("user: ", "assistant: ")):
        turn = chunk.split(": ", 2)[1]
        escaped_turn = json.dumps(chunk).split(": ", 2)[1]
        return turn in original or escaped_turn in original
    return chunk in original or json.dumps(chunk) in original


def normalize_context(text: str) -> str:
    """Collapse whitespace runs to one space, lower-case, strip (the form context similarity compares).

    ``str.split()`` splits at the characters regex ``\\s`` matches (both use Python's one test of Unicode whitespace),
    and lower-casing neither makes nor removes whitespace, so this is ``re.sub(r"\\s+", " ", text).lower().strip()``
    in a single C pass per step, without building the regex's result.

    Examples
    --------
    >>> normalize_context("  Berlin\\u00a0IS\\n\\tthe capital ")
    'berlin is the capital'
    """
    return " ".join(text.split()).lower()


def context_similarity(context: str, candidate: str, min_length: int = _DEFAULTS.context_matching_min_length,
                       boost_split_overlaps: bool = _DEFAULTS.context_matching_boost_split_overlaps) -> float:
    """How well ``candidate`` covers ``context``, in [0, 100] (Haystack 1.x's context matching).

    Both texts are normalised with :func:`normalize_context`; either shorter than ``min_length`` gives 0.0.
    The score is rapidfuzz's ``partial_ratio_alignment`` of the shorter text (the candidate on equal
    length) within the longer. With ``boost_split_overlaps``, a score in [40, 65) whose best alignment
    touches the start (or end) of the longer text is averaged with the score of the shorter text cut
    in half on that side, when that is higher: passages split with different overlaps ([AB] vs [BC])
    then score about 75 instead of 50.

    Examples
    --------
    >>> passage = "Berlin is the capital and largest city of Germany by both area and population. " * 2
    >>> context_similarity(passage, passage.upper())
    100.0
    >>> context_similarity("short", "short")
    0.0
    """
    context = normalize_context(context)
    candidate = normalize_context(candidate)
    if len(candidate) < min_length or len(context) < min_length:
        return 0.0
    shorter, longer = _order(context, candidate)
    from rapidfuzz import fuzz  # when a text is matched: import evalframe loads no rapidfuzz (issue 26)

    alignment = fuzz.partial_ratio_alignment(shorter, longer, processor=None)
    assert alignment is not None  # rapidfuzz gives None only for a None/NaN text or a score below score_cutoff (unset)
    return _boosted(shorter, longer, alignment.score, alignment) if boost_split_overlaps else alignment.score


def _order(context: str, candidate: str) -> tuple[str, str]:
    """(shorter, longer); on equal length the candidate counts as the shorter."""
    return (context, candidate) if len(context) < len(candidate) else (candidate, context)


def _boosted(shorter: str, longer: str, score: float, alignment: object | None = None) -> float:
    """Apply the split-overlap boost to a partial_ratio score of ``shorter`` within ``longer``."""
    if not 40 <= score < 65:
        return score
    from rapidfuzz import fuzz

    if alignment is None:
        alignment = fuzz.partial_ratio_alignment(shorter, longer, processor=None)
    cut = len(shorter) // 2
    if alignment.dest_start == 0:  # type: ignore[attr-defined]
        cut_score = fuzz.partial_ratio(shorter[cut:], longer, processor=None)
        if cut_score > score:
            score = (score + cut_score) / 2
    if alignment.dest_end == len(longer):  # type: ignore[attr-defined]
        cut_score = fuzz.partial_ratio(shorter[:-cut], longer, processor=None)
        if cut_score > score:
            score = (score + cut_score) / 2
    return score


def _normalized_similarity(pair: tuple[str, str], min_length: int, boost: bool) -> float:
    """context_similarity of an already normalised (context, candidate) pair."""
    context, candidate = pair
    if len(candidate) < min_length or len(context) < min_length:
        return 0.0
    shorter, longer = _order(context, candidate)
    if shorter and shorter in longer:  # exact containment: partial_ratio is 100, no fuzzy search needed
        return 100.0
    from rapidfuzz import fuzz

    alignment = fuzz.partial_ratio_alignment(shorter, longer, processor=None)
    assert alignment is not None  # rapidfuzz gives None only for a None/NaN text or a score below score_cutoff (unset)
    return _boosted(shorter, longer, alignment.score, alignment) if boost else alignment.score


def _score_chunk(args: tuple[list[tuple[str, str]], int, bool]) -> list[float]:
    pairs, min_length, boost = args
    return [_normalized_similarity(pair, min_length, boost) for pair in pairs]


#: Below this many pairs to score, a process pool costs more than it saves.
PARALLEL_MIN_PAIRS = 2000


def context_similarities(
    pairs: Iterable[tuple[str, str]],
    min_length: int = _DEFAULTS.context_matching_min_length,
    boost_split_overlaps: bool = _DEFAULTS.context_matching_boost_split_overlaps,
    workers: int = -1,
) -> list[float]:
    """:func:`context_similarity` of many ``(context, candidate)`` pairs, each distinct pair computed once.

    Equal to calling :func:`context_similarity` on every pair, but texts are normalised once, each
    distinct normalised pair is scored once, and large batches are spread over ``workers`` processes
    (-1: one per core), since rapidfuzz holds the GIL for single comparisons. A daemonic process (a Dask worker
    process, a multiprocessing pool's worker), which may not start processes, scores them itself.

    Examples
    --------
    >>> passage = "Berlin is the capital and largest city of Germany by both area and population. " * 2
    >>> context_similarities([(passage, passage), (passage, "too short")])
    [100.0, 0.0]
    """
    normalized: dict[str, str] = {}

    def norm(text: str) -> str:
        value = normalized.get(text)
        if value is None:
            value = normalized[text] = normalize_context(text)
        return value

    # a pair with a text shorter than min_length scores 0.0 (its other text is not even normalised), one whose shorter
    # text lies within the longer 100.0; only the others need rapidfuzz (and perhaps a process pool)
    keys: list[tuple[str, str] | None] = []
    for context, candidate in pairs:
        gold = norm(context)
        if len(gold) < min_length:
            keys.append(None)
            continue
        other = norm(candidate)
        keys.append(None if len(other) < min_length else (gold, other))
    by_pair: dict[tuple[str, str] | None, float] = {None: 0.0}
    fuzzy = []
    for key in dict.fromkeys(keys):
        if key is None:
            continue
        shorter, longer = _order(*key)
        if shorter and shorter in longer:
            by_pair[key] = 100.0
        else:
            fuzzy.append(key)
    n_workers = (os.cpu_count() or 1) if workers == -1 else max(1, workers)
    if multiprocessing.current_process().daemon:  # a Dask worker or a pool's process may not start processes: score here
        n_workers = 1
    if n_workers > 1 and len(fuzzy) >= PARALLEL_MIN_PAIRS:
        size = -(-len(fuzzy) // (n_workers * 8))
        chunks = [(fuzzy[i:i + size], min_length, boost_split_overlaps) for i in range(0, len(fuzzy), size)]
        with ProcessPoolExecutor(max_workers=n_workers) as pool:
            scores = [score for chunk in pool.map(_score_chunk, chunks) for score in chunk]
    else:
        scores = _score_chunk((fuzzy, min_length, boost_split_overlaps))
    by_pair.update(zip(fuzzy, scores))
    return [by_pair[key] for key in keys]
