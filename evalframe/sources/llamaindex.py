"""LlamaIndex as a source: retrieval evaluation results -> :class:`~evalframe.sources.records.Record` per query
(``EvaluationResult.from_llamaindex`` builds the result).

Read duck-typed, never importing llama-index: ``RetrievalEvalResult`` objects (``query``, ``expected_ids``,
``expected_texts``, ``retrieved_ids``, ``retrieved_texts``, ``metric_dict`` of ``RetrievalMetricResult`` with its
``score``), their dicts (``model_dump()``), a JSON file of a list of them or a JSON Lines file of one per line
(``model_dump_json()``). Instead of ``retrieved_ids`` / ``retrieved_texts`` a dict may hold ``retrieved_nodes``: the
retriever's ``NodeWithScore`` list (objects or ``model_dump()`` dicts), or LangChain documents, which keeps each
node's score and metadata.

The ids are the gold: a retrieved node is relevant when its id is one of ``expected_ids``, as llama-index's own
metrics count it; ``expected_texts`` are the gold contexts (for the context scopes). Each ``metric_dict`` entry is a
score of the retriever node, named as llama-index names it unless evalframe's registry owns the name (``mrr``,
``precision``, ``recall``, ``ndcg``, ...: then ``llamaindex_mrr``), and declared higher-is-better in [0, 1] for
llama-index's own retrieval metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._validation import short_repr
from ..errors import EvalframeError
from .foreign import ScoreChoice, is_path, number_or_nan, read_json_file
from .records import Record, Retrieved, retrieved_of

__all__ = ["LlamaIndexSource", "read_llamaindex", "LLAMAINDEX_METRICS"]

#: llama-index's retrieval metrics (``llama_index.core.evaluation.retrieval.metrics``): name -> what it is. Each is
#: declared higher-is-better in [0, 1].
LLAMAINDEX_METRICS: dict[str, str] = {
    "hit_rate": "llama-index HitRate: 1 when an expected id is retrieved (granular: the share of expected ids)",
    "mrr": "llama-index MRR: 1 / rank of the first expected id retrieved",
    "precision": "llama-index Precision: expected ids retrieved / retrieved ids",
    "recall": "llama-index Recall: expected ids retrieved / expected ids",
    "ap": "llama-index AveragePrecision: sum of precision@k at the expected ids retrieved / expected ids",
    "ndcg": "llama-index NDCG: binary relevance, ideal ranking over min(retrieved, expected) positions",
}

_FIELDS = {"query": "query", "retrieved": "retrieved_ids", "gold_ids": "expected_ids", "gold_contexts": "expected_texts",
           "scores": "metric_dict"}


@dataclass
class LlamaIndexSource:
    """What :func:`read_llamaindex` read: one record per query, the declarations of its scores, the message names."""

    records: list[Record]
    score_measures: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=lambda: dict(_FIELDS))
    name: str = "results"  # how messages about the whole source name it (its file)


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def _optional_strings(value: Any, where: str, name: str) -> list[str] | None:
    return None if value is None else _strings(value, where, name)


def _strings(value: Any, where: str, name: str) -> list[str]:
    if value is None:
        raise EvalframeError(f"{where}: {name} is missing; a RetrievalEvalResult holds it (a list of strings).")
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise EvalframeError(f"{where}: {name} must be a list of strings; got {short_repr(value, 60)} of type "
                             f"{type(value).__name__}.")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise EvalframeError(f"{where}: {name}[{i}] must be a string; got {short_repr(item, 60)} of type "
                                 f"{type(item).__name__}.")
    return list(value)


def _retrieved(item: Any, where: str) -> list[Retrieved]:
    nodes = _get(item, "retrieved_nodes")
    if nodes is not None:
        if isinstance(nodes, (str, bytes, Mapping)) or not isinstance(nodes, Sequence):
            raise EvalframeError(f"{where}: retrieved_nodes must be a list of nodes; got {short_repr(nodes, 60)}.")
        return [retrieved_of(node, f"{where}, retrieved_nodes[{j}]") for j, node in enumerate(nodes)]
    ids = _strings(_get(item, "retrieved_ids"), where, "retrieved_ids")
    texts = _optional_strings(_get(item, "retrieved_texts"), where, "retrieved_texts")
    if texts is not None and len(texts) != len(ids):
        raise EvalframeError(f"{where}: retrieved_ids has {len(ids)} entries and retrieved_texts {len(texts)}; they "
                             "name the same retrieved nodes, one entry each, in rank order.")
    return [Retrieved(doc_id, None if texts is None else texts[j]) for j, doc_id in enumerate(ids)]


def _metric_scores(item: Any, where: str) -> dict[str, float]:
    metric_dict = _get(item, "metric_dict")
    if metric_dict is None:
        return {}
    if not isinstance(metric_dict, Mapping):
        raise EvalframeError(f"{where}: metric_dict must map metric names to RetrievalMetricResult; got "
                             f"{short_repr(metric_dict, 60)}.")
    scores = {}
    for name, outcome in metric_dict.items():
        # a RetrievalMetricResult (or its dict): its score; anything else is the value itself, read by the rule of
        # every score's value (a number's text is the number; a list, a dict without "score" are refused, named)
        value = outcome.get("score", outcome) if isinstance(outcome, Mapping) else getattr(outcome, "score", outcome)
        scores[str(name)] = number_or_nan(value, f"{where}: metric_dict[{name!r}].score")
    return scores


def _items(results: Any) -> list[tuple[str, Any]]:
    """``(where, item)`` per result: ``results[i]``, ``file: results[i]`` (JSON) or ``file:line`` (JSON Lines)."""
    if is_path(results):
        path, value = read_json_file(results, name="results")
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            return [(f"{path}:{number}", item) for number, item in value]
        if isinstance(value, Mapping) and "results" in value:
            value = value["results"]
        if not isinstance(value, list):
            raise EvalframeError(f"{path}: must hold a JSON list of RetrievalEvalResult dicts (model_dump()), or one "
                                 "per line in a .jsonl file; got a JSON " + type(value).__name__ + ".")
        return [(f"{path}: results[{i}]", item) for i, item in enumerate(value)]
    if isinstance(results, Mapping) or hasattr(results, "retrieved_ids") or hasattr(results, "metric_dict"):
        return [("results[0]", results)]  # one result
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence):
        raise EvalframeError("from_llamaindex takes RetrievalEvalResult objects, their dicts (model_dump()), a list of "
                             f"them or a JSON / JSON Lines file of them; got {type(results).__name__}.")
    return [(f"results[{i}]", item) for i, item in enumerate(results)]


def read_llamaindex(results: Any, *, scores: Sequence[str] | Mapping[str, Any] | None = None,
                    taken: Callable[[str], bool] | None = None, measure: Callable[..., Any] | None = None
                    ) -> LlamaIndexSource:
    """Read llama-index retrieval evaluation results into records (see the module's doc).

    ``taken`` (handed in by the result) says which score names evalframe owns: those get the prefix ``llamaindex_``;
    ``measure`` (``evalframe.score_measure``) declares llama-index's own metrics (higher, in [0, 1]).

    Examples
    --------
    >>> result = {"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
    ...           "retrieved_texts": ["Bonn.", "Berlin."], "metric_dict": {"hit_rate": {"score": 1.0}}}
    >>> record = read_llamaindex([result]).records[0]
    >>> [r.id for r in record.retrieved], record.gold_ids, record.scores
    (['d2', 'd1'], ['d1'], {'hit_rate': 1.0})
    """
    items = _items(results)
    rows = []
    for where, item in items:
        if not (isinstance(item, Mapping) or hasattr(item, "query")):
            raise EvalframeError(f"{where}: a RetrievalEvalResult (or its dict) is expected; got "
                                 f"{short_repr(item, 60)} of type {type(item).__name__}.")
        query = _get(item, "query")
        if not isinstance(query, str):
            raise EvalframeError(f"{where}: query must be the question's text; got {short_repr(query, 60)}.")
        gold_ids = _strings(_get(item, "expected_ids"), where, "expected_ids")
        gold_texts = _optional_strings(_get(item, "expected_texts"), where, "expected_texts")
        if gold_texts is not None and len(gold_texts) != len(gold_ids):
            raise EvalframeError(f"{where}: expected_ids has {len(gold_ids)} entries and expected_texts "
                                 f"{len(gold_texts)}; they name the same expected nodes, one entry each.")
        rows.append((where, query, _retrieved(item, where), gold_ids, gold_texts, _metric_scores(item, where)))
    available = list(dict.fromkeys(name for row in rows for name in row[5]))
    known = {name: {"bounds": (0.0, 1.0), "description": description}
             for name, description in LLAMAINDEX_METRICS.items()}
    choice = ScoreChoice(available, scores, prefix="llamaindex", taken=taken, measure=measure, known=known)
    for where, *_, metric_scores in rows:
        for name, value in metric_scores.items():
            choice.check_bounds(name, value, f"{where}: metric_dict[{name!r}].score")
    records = [Record(where=where, query=query, retrieved=retrieved, gold_ids=gold_ids, gold_contexts=gold_texts,
                      scores=choice.of(metric_scores))
               for where, query, retrieved, gold_ids, gold_texts, metric_scores in rows]
    return LlamaIndexSource(records, choice.measures, name=str(results) if is_path(results) else "results")
