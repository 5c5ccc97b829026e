"""The recall evaluators of other frameworks, with their numbers (docs/evaluators.md).

* :class:`DocumentRecallEvaluator` / :class:`RecallMode` — Haystack 2.x's document recall;
* :class:`RetrieverRecall` — AdalFlow's context recall;
* :class:`RetrievalRecall`, :class:`RetrievalRecallAll`, :class:`RetrievalNDCGAny` — REMem-style
  recall@k / recall-all@k / NDCG_any@k over chunks (matched with :func:`~evalframe.sources.matching.is_chunk_from_original`).

They are adapters: each turns its inputs into per-query count arrays and applies the metric kernels of
:mod:`evalframe.metrics.kernels` (the same ``recall_multi_hit``, ``recall_single_hit`` and ``ndcg``
definitions EvaluationResult uses) with an edge policy of its own (``ZERO_EDGE_POLICY``: a query
without gold, or without a hit, scores 0.0).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any

import numpy as np

from .._validation import did_you_mean
from ..errors import InvalidParameterError, warn
from ..sources.matching import is_chunk_from_original
from ..metrics import kernels
from ..metrics.kernels import ZERO_EDGE_POLICY, any_discount, apply_edge_policy

__all__ = [
    "RecallMode",
    "DocumentRecallEvaluator",
    "RetrieverRecall",
    "RetrievalRecall",
    "RetrievalRecallAll",
    "RetrievalNDCGAny",
]

def _zero_edges(values: np.ndarray, n_gold: np.ndarray, n_hits: np.ndarray) -> np.ndarray:
    """A kernel's values with 0.0 for the queries without gold or without a hit (``ZERO_EDGE_POLICY``)."""
    return apply_edge_policy(values, n_gold=n_gold, n_hits=n_hits, policy=ZERO_EDGE_POLICY)


def _content(item: Any, where: str) -> str:
    """The text of a document: a str, or anything with ``.content`` (Haystack 1.x/2.x, evalframe), or a dict."""
    if isinstance(item, str):
        return item
    content = item.get("content") if isinstance(item, dict) else getattr(item, "content", None)
    if content is None:
        raise InvalidParameterError(
            f"{where}: a {type(item).__name__} has no content ({item!r:.60}); pass Documents with text "
            "(or dicts with 'content'), or strings."
        )
    return content if isinstance(content, str) else str(content)


def _is_list(value: Any) -> bool:
    # a str is a Sequence too, but scoring its characters as documents is never what was meant
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, Mapping))


def _per_query(value: Any, name: str, what: str, *, str_per_query: bool = False) -> Sequence[Any]:
    """``value`` checked to be a list with one list of ``what`` per query (a str per query when ``str_per_query``).

    Raises InvalidParameterError naming ``name`` and the 1-based query whose entry is not a list.
    """
    if not _is_list(value):
        raise InvalidParameterError(
            f"{name} must be a list with one list of {what} per query; got {type(value).__name__} {value!r:.60}."
        )
    for position, entry in enumerate(value, start=1):
        if _is_list(entry) or (str_per_query and isinstance(entry, str)):
            continue
        hint = f" Wrap it in a list: [{entry!r:.40}]." if isinstance(entry, str) else ""
        allowed = f"a str or a list of {what}" if str_per_query else f"a list of {what}"
        raise InvalidParameterError(
            f"{name}: query {position} (counting from 1) must give {allowed} (one entry per query); "
            f"got {type(entry).__name__} {entry!r:.60}.{hint}"
        )
    return value


def _texts(values: Sequence[Any], name: str, position: int) -> list[str]:
    """The strings of one query's list; anything else is refused, naming the query."""
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise InvalidParameterError(
            f"{name}: query {position} (counting from 1) must hold strings; got {type(bad[0]).__name__} {bad[0]!r:.60}."
        )
    return list(values)


def _same_length(name_a: str, a: Sequence[Any], name_b: str, b: Sequence[Any]) -> None:
    if len(a) != len(b):
        raise InvalidParameterError(
            f"{name_a} and {name_b} must hold one entry per query, but {name_a} has {len(a)} and {name_b} has {len(b)}."
        )


def _mean(scores: list[float]) -> float:
    return float(np.mean(scores)) if scores else 0.0


# ------------------------------------------------------------------------------------- Haystack 2.x
class RecallMode(Enum):
    """How DocumentRecallEvaluator scores a query: any hit (single_hit) or the share of gold found (multi_hit)."""

    SINGLE_HIT = "single_hit"
    MULTI_HIT = "multi_hit"

    def __str__(self) -> str:
        return self.value

    @staticmethod
    def from_str(value: str) -> RecallMode:
        """``RecallMode.from_str("multi_hit")``; an unknown name lists the valid ones.

        Examples
        --------
        >>> RecallMode.from_str("multi_hit")
        <RecallMode.MULTI_HIT: 'multi_hit'>
        """
        modes = {mode.value: mode for mode in RecallMode}
        if value not in modes:
            raise InvalidParameterError(
                f"mode must be one of {list(modes)}; got {value!r}.{did_you_mean(value, modes)}"
            )
        return modes[value]


class DocumentRecallEvaluator:
    """Haystack 2.x's ``DocumentRecallEvaluator``: recall of retrieved documents by unique content.

    Per query, the unique contents of the gold and the retrieved documents are compared:
    ``single_hit`` gives 1.0 when they share one, ``multi_hit`` the share of gold contents retrieved
    (0.0, with a warning, when either side is empty or holds only empty strings).

    Examples
    --------
    >>> evaluator = DocumentRecallEvaluator(mode="multi_hit")
    >>> evaluator.run(ground_truth_documents=[["Paris", "France"]], retrieved_documents=[["Paris", "Berlin"]])
    {'score': 0.5, 'individual_scores': [0.5]}
    """

    def __init__(self, mode: str | RecallMode = RecallMode.SINGLE_HIT) -> None:
        if isinstance(mode, str):
            mode = RecallMode.from_str(mode)
        if not isinstance(mode, RecallMode):
            raise InvalidParameterError(f"mode must be a RecallMode or one of {[m.value for m in RecallMode]}; got {mode!r}.")
        self.mode = mode

    def run(self, ground_truth_documents: Sequence[Sequence[Any]],
            retrieved_documents: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """Score every query; returns ``{"score": mean, "individual_scores": [...]}``.

        Raises
        ------
        InvalidParameterError
            When either argument is not a list with one list of documents per query (a str per query
            would be scored character by character), or their lengths differ.
        """
        _per_query(ground_truth_documents, "ground_truth_documents", "documents")
        _per_query(retrieved_documents, "retrieved_documents", "documents")
        _same_length("ground_truth_documents", ground_truth_documents, "retrieved_documents", retrieved_documents)
        n = len(ground_truth_documents)
        n_gold, matched, empty = np.zeros(n), np.zeros(n), np.zeros(n, dtype=bool)
        for i, (truths, retrieved) in enumerate(zip(ground_truth_documents, retrieved_documents)):
            gold = {_content(d, f"ground_truth_documents: query {i + 1} (counting from 1)") for d in truths}
            found = {_content(d, f"retrieved_documents: query {i + 1} (counting from 1)") for d in retrieved}
            n_gold[i], matched[i] = len(gold), len(gold & found)
            empty[i] = not gold or gold == {""} or not found or found == {""}
        if self.mode is RecallMode.SINGLE_HIT:
            scores = _zero_edges(kernels.recall_single_hit(n_gold), n_gold, matched)
        else:
            if empty.any():
                warn(
                    f"{int(empty.sum())} quer{'y has' if empty.sum() == 1 else 'ies have'} no ground truth or no retrieved "
                    "documents (or only empty contents); their multi_hit recall is 0.0.",
                )
            with np.errstate(divide="ignore", invalid="ignore"):
                recall = kernels.recall_multi_hit(matched, n_gold)
            scores = np.where(empty, 0.0, _zero_edges(recall, n_gold, matched))
        individual = [float(s) for s in scores]
        return {"score": _mean(individual), "individual_scores": individual}

    def to_dict(self) -> dict[str, Any]:
        return {"type": "evalframe.evaluators.DocumentRecallEvaluator", "init_parameters": {"mode": str(self.mode)}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentRecallEvaluator:
        """Accepts evalframe's and Haystack 2.x's serialised form."""
        if not isinstance(data, dict) or "init_parameters" not in data:
            raise InvalidParameterError("from_dict needs the output of to_dict(): {'type': ..., 'init_parameters': {...}}.")
        return cls(**_init_parameters(data, ("mode",)))

    def __repr__(self) -> str:
        return f"DocumentRecallEvaluator(mode={str(self.mode)!r})"


# ------------------------------------------------------------------------------------- AdalFlow
class RetrieverRecall:
    """AdalFlow's ``RetrieverRecall``: the share of ground-truth contexts found in the retrieved text.

    Per query, the retrieved contexts are joined with a space (when given as a list) and each
    ground-truth context counts as recalled when it occurs in that text (exact substring). A query
    without ground-truth contexts scores 0.0 (with a warning).

    Examples
    --------
    >>> retrieved = ["Apple is founded before Google.",
    ...              "Feburary has 28 days in common years. Feburary has 29 days in leap years. "
    ...              "Feburary is the second month of the year."]
    >>> gold = [["Apple is founded in 1976.", "Google is founded in 1998.", "Apple is founded before Google."],
    ...         ["Feburary has 28 days in common years", "Feburary has 29 days in leap years"]]
    >>> average, per_query = RetrieverRecall().compute(retrieved, gold)
    >>> round(average, 6), [round(v, 6) for v in per_query]
    (0.666667, [0.333333, 1.0])
    """

    def compute(self, retrieved_contexts: Sequence[str] | Sequence[Sequence[str]],
                gt_contexts: Sequence[Sequence[str]]) -> tuple[float, list[float]]:
        """Returns ``(average recall, per-query recalls)``.

        ``retrieved_contexts`` holds per query one string or a list of strings (joined with a space), as
        AdalFlow accepts; ``gt_contexts`` holds per query a list of strings (a str would be counted
        character by character in AdalFlow, so it is refused).

        Raises
        ------
        InvalidParameterError
            When an argument is not a list per query as above, holds non-strings, or the lengths differ.
        """
        _per_query(retrieved_contexts, "retrieved_contexts", "strings", str_per_query=True)
        _per_query(gt_contexts, "gt_contexts", "strings")
        _same_length("retrieved_contexts", retrieved_contexts, "gt_contexts", gt_contexts)
        n = len(gt_contexts)
        n_gold, matched = np.zeros(n), np.zeros(n)
        for i, (retrieved, golds) in enumerate(zip(retrieved_contexts, gt_contexts)):
            text = retrieved if isinstance(retrieved, str) else " ".join(_texts(retrieved, "retrieved_contexts", i + 1))
            golds = _texts(golds, "gt_contexts", i + 1)
            n_gold[i], matched[i] = len(golds), sum(gold in text for gold in golds)
        if (n_gold == 0).any():
            warn(f"{int((n_gold == 0).sum())} query(ies) have no ground-truth context; their recall is 0.0.")
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = kernels.recall_multi_hit(matched, n_gold)
        scores = [float(s) for s in _zero_edges(recall, n_gold, matched)]
        return _mean(scores), scores

    def to_dict(self) -> dict[str, Any]:
        return {"type": "evalframe.evaluators.RetrieverRecall", "init_parameters": {}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RetrieverRecall:
        _init_parameters(data, ())
        return cls()


# ------------------------------------------------------------------------------------- REMem @k
class _AtK:
    """Shared @k machinery: per (query, gold) the first rank whose chunk matches it, per chunk its relevance."""

    key: str = ""

    def __init__(self, matcher: Callable[[str, str], bool] = is_chunk_from_original, *,
                 round_pooled: int | None = 4) -> None:
        if not callable(matcher):
            raise InvalidParameterError(
                f"matcher must be a callable (chunk, gold) -> bool, e.g. is_chunk_from_original; got {matcher!r}."
            )
        if round_pooled is not None and (isinstance(round_pooled, bool) or not isinstance(round_pooled, numbers.Integral)
                                         or round_pooled < 0):
            raise InvalidParameterError(
                f"round_pooled must be None (exact means) or an int >= 0 (decimals, REMem uses 4); got {round_pooled!r}."
            )
        self.matcher = matcher
        self.round_pooled = round_pooled

    def _score(self, n_gold: np.ndarray, matched: np.ndarray, hits: np.ndarray, dcg: np.ndarray,
               ideal_dcg: np.ndarray) -> np.ndarray:
        """Per-query scores at one k from the counts at that k: golds matched, relevant chunks, DCG and ideal DCG."""
        raise NotImplementedError

    def calculate_metric_scores(
        self,
        gold_docs: Sequence[Sequence[str]],
        retrieved_docs: Sequence[Sequence[str]],
        k_list: Sequence[int] = (1, 5, 10, 20),
    ) -> tuple[dict[str, float], list[dict[str, float]]]:
        """Per-example and pooled (mean) scores at every k of ``k_list`` (sorted, duplicates dropped).

        Returns ``(pooled, per_example)`` with keys like ``"Recall@5"``. A k larger than a retrieved
        list uses the whole list (with a warning). Pooled means are rounded to ``round_pooled``
        decimals (4 by default, as REMem rounds them: ``round(sum / n, 4)``, Python's round);
        per-example values are not rounded. An empty retrieved list scores 0.0 (see below).

        Raises
        ------
        InvalidParameterError
            When ``gold_docs`` / ``retrieved_docs`` are not lists with one list of strings per query
            (a str per query would be matched character by character), their lengths differ, or
            ``k_list`` does not hold positive ints.
        """
        _per_query(gold_docs, "gold_docs", "strings")
        _per_query(retrieved_docs, "retrieved_docs", "strings")
        _same_length("gold_docs", gold_docs, "retrieved_docs", retrieved_docs)
        if not _is_list(k_list):
            raise InvalidParameterError(f"k_list must be a list of positive ints, e.g. [1, 5, 10]; got {k_list!r}.")
        bad_k = [k for k in k_list if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1]
        if not k_list or bad_k:
            raise InvalidParameterError(f"k_list must hold positive ints, e.g. [1, 5, 10]; got {list(k_list)}.")
        ks = sorted(set(int(k) for k in k_list))
        short = sum(len(retrieved) < ks[-1] for retrieved in retrieved_docs)
        if short:
            warn(f"{short} query(ies) retrieved fewer than {ks[-1]} chunks; their top-{ks[-1]} is the whole list.")
        n = len(gold_docs)
        first_hit: list[np.ndarray] = []  # per query: for each unique gold, the first 1-based rank that matches it (inf: none)
        relevance: list[np.ndarray] = []  # per query: 1 for every retrieved chunk that matches some gold
        for position, (golds, chunks) in enumerate(zip(gold_docs, retrieved_docs), start=1):
            unique = list(dict.fromkeys(_texts(golds, "gold_docs", position)))
            chunks = _texts(chunks, "retrieved_docs", position)
            matches = np.array([[self.matcher(chunk, gold) for gold in unique] for chunk in chunks],
                               dtype=bool).reshape(len(chunks), len(unique))
            # An empty retrieved list finds no gold: REMem's recall counts the golds found in the empty top k
            # (0 of them: 0.0), and its NDCG (the classic dcg_at_k: 0 for an empty relevance list, NDCG 0 when
            # the ideal DCG is 0) gives 0.0 too. argmax of an empty axis would fail, so it is not asked.
            found = matches.any(axis=0)
            ranks = np.where(found, matches.argmax(axis=0) + 1, np.inf) if len(chunks) else np.full(len(unique), np.inf)
            first_hit.append(ranks)
            relevance.append(np.asarray(matches.any(axis=1), dtype=np.float64))
        n_gold = np.array([len(r) for r in first_hit], dtype=np.float64)

        def score_at(k: int) -> np.ndarray:
            matched = np.array([float((ranks <= k).sum()) for ranks in first_hit]) if n else np.zeros(0)
            dcg = np.array([float((rel[:k] * any_discount(np.arange(1, len(rel[:k]) + 1))).sum()) for rel in relevance])
            ideal = [np.sort(rel)[::-1][:k] for rel in relevance]
            ideal_dcg = np.array([float((r * any_discount(np.arange(1, len(r) + 1))).sum()) for r in ideal])
            hits = np.array([float(rel[:k].sum()) for rel in relevance])
            with np.errstate(divide="ignore", invalid="ignore"):
                return self._score(n_gold, matched, hits, dcg, ideal_dcg)

        columns = [score_at(k) for k in ks]
        per_example = [{f"{self.key}@{k}": float(col[i]) for k, col in zip(ks, columns)} for i in range(n)]
        pooled = {f"{self.key}@{k}": self._pool([float(v) for v in col]) for k, col in zip(ks, columns)}
        return pooled, per_example

    def _pool(self, values: list[float]) -> float:
        """The mean over examples, rounded as REMem rounds its pooled results (unless round_pooled is None)."""
        if not values:
            return 0.0
        # REMem adds the examples' values one by one, divides by their number and applies Python's round
        mean = sum(values) / len(values)
        return mean if self.round_pooled is None else round(mean, self.round_pooled)

    def to_dict(self) -> dict[str, Any]:
        return {"type": f"evalframe.evaluators.{type(self).__name__}",
                "init_parameters": {"round_pooled": self.round_pooled}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> _AtK:
        return cls(**_init_parameters(data, ("round_pooled",)))


class RetrievalRecall(_AtK):
    """Recall@k: the share of a query's unique gold documents with a matching chunk in the top k.

    Examples
    --------
    >>> RetrievalRecall().calculate_metric_scores([["doc A text", "doc B text"]], [["A text", "C", "B text"]], [1, 3])
    ({'Recall@1': 0.5, 'Recall@3': 1.0}, [{'Recall@1': 0.5, 'Recall@3': 1.0}])
    """

    key = "Recall"

    def _score(self, n_gold: np.ndarray, matched: np.ndarray, hits: np.ndarray, dcg: np.ndarray,
               ideal_dcg: np.ndarray) -> np.ndarray:
        # for recall, "a hit" is a gold found (not a relevant chunk)
        return _zero_edges(kernels.recall_multi_hit(matched, n_gold), n_gold, matched)


class RetrievalRecallAll(_AtK):
    """Recall_all@k: 1.0 when every unique gold document has a matching chunk in the top k.

    Examples
    --------
    >>> RetrievalRecallAll().calculate_metric_scores([["doc A text", "doc B text"]], [["A text", "C", "B text"]], [1, 3])
    ({'Recall_all@1': 0.0, 'Recall_all@3': 1.0}, [{'Recall_all@1': 0.0, 'Recall_all@3': 1.0}])
    """

    key = "Recall_all"

    def _score(self, n_gold: np.ndarray, matched: np.ndarray, hits: np.ndarray, dcg: np.ndarray,
               ideal_dcg: np.ndarray) -> np.ndarray:
        # for recall, "a hit" is a gold found (not a relevant chunk)
        return _zero_edges(kernels.recall_all(matched, n_gold), n_gold, matched)


class RetrievalNDCGAny(_AtK):
    """NDCG_any@k: binary relevance (a chunk matching any gold), REMem's discount, ideal from the retrieved list.

    DCG@k = rel_1 + rel_2 + sum over ranks r = 3..k of rel_r / log2(r); the ideal DCG sorts the
    relevances of the whole retrieved list. 0.0 when nothing relevant was retrieved.

    Examples
    --------
    >>> pooled, _ = RetrievalNDCGAny().calculate_metric_scores([["gold"]], [["x", "y", "gold"]], [3])
    >>> pooled["NDCG_any@3"]  # (1 / log2(3)) / 1 = 0.63093, pooled means rounded to 4 decimals as in REMem
    0.6309
    """

    key = "NDCG_any"

    def _score(self, n_gold: np.ndarray, matched: np.ndarray, hits: np.ndarray, dcg: np.ndarray,
               ideal_dcg: np.ndarray) -> np.ndarray:
        return _zero_edges(kernels.ndcg(dcg, ideal_dcg), n_gold, hits)


def _init_parameters(data: Any, allowed: Sequence[str]) -> dict[str, Any]:
    """The ``init_parameters`` of a ``to_dict()`` output, refusing unknown names."""
    if not isinstance(data, dict) or not isinstance(data.get("init_parameters", {}), dict):
        raise InvalidParameterError("from_dict needs the output of to_dict(): {'type': ..., 'init_parameters': {...}}.")
    params = data.get("init_parameters", {})
    unknown = [name for name in params if name not in allowed]
    if unknown:
        raise InvalidParameterError(
            f"init_parameters holds unknown name(s) {unknown}; valid: {list(allowed)}.{did_you_mean(unknown[0], allowed)}"
        )
    return dict(params)
