"""LlamaIndex as a source: retrieval evaluation results -> :class:`~evalframe.sources.records.Record` per query
(:func:`llamaindex_records`), built by :func:`read_llamaindex` (``EvaluationResult.from_llamaindex``).

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
llama-index's own retrieval metrics. A dict's other fields are read by the rule of every source's extra columns
(:mod:`evalframe.sources.extras`, as ``from_ragas`` reads a dataset's): numbers (or their text) in at least half of the
results: a score, unless named like an id (``id``, ``sample_id``, ``sku``, ``year``, ...); one value per result
otherwise (a ``topic``): a field of the query's ``meta``; lists: left out; one warning names each field that gives
no score and why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._validation import short_repr
from .._locations import remote_or_value, suffix_of
from ..errors import EvalframeError, InvalidParameterError
from ..options import MatchingOptions, with_options
from .assemble import Built
from .extras import check_score_columns, extra_meta, extra_scores, meta_of, warn_left_out
from .foreign import ScoreChoice, is_path, number_or_nan, read_json_file, warn_mended
from .records import Record, Retrieved, build, retrieved_of

__all__ = ["LlamaIndexSource", "llamaindex_records", "read_llamaindex", "LLAMAINDEX_METRICS"]

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
#: The fields of a RetrievalEvalResult (and ``retrieved_nodes``): a dict's other fields are its extra ones.
_MODEL_FIELDS = frozenset({"query", "expected_ids", "expected_texts", "retrieved_ids", "retrieved_texts", "mode",
                           "metric_dict", "retrieved_nodes"})


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
        if suffix_of(path).lower() in (".jsonl", ".ndjson"):
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


def _extra_fields(rows: Sequence[tuple[str, Any]], meta: Sequence[str] | None, scores_given: bool, source: str
                  ) -> tuple[dict[str, list[float]], dict[str, list[Any]]]:
    """The extra fields of the result dicts (those of no RetrievalEvalResult field): ``(scores, meta fields)``, one
    value per result each, by the rule of every source's extra columns (:mod:`evalframe.sources.extras`)."""
    found = list(dict.fromkeys(str(key) for _, item in rows if isinstance(item, Mapping) for key in item
                               if key not in _MODEL_FIELDS))
    if meta is not None:
        if isinstance(meta, (str, bytes, Mapping)) or not isinstance(meta, Sequence) \
                or not all(isinstance(name, str) for name in meta):
            raise InvalidParameterError(f"meta must be a list of field names (as from_ragas' meta= names columns); "
                                        f"got {short_repr(meta, 60)}.", parameter="meta")
        unknown = [name for name in meta if name not in found]
        if unknown:
            raise InvalidParameterError(f"meta names {unknown[0]!r}, which is no field of the results beyond a "
                                        f"RetrievalEvalResult's; their other fields are {found}.", parameter="meta")
    cells = {name: [item.get(name) if isinstance(item, Mapping) else None for _, item in rows] for name in found}
    named_meta = list(meta or ())
    unnamed = {name: values for name, values in cells.items() if name not in named_meta}
    score_names = extra_scores(unnamed)
    meta_names = list(meta) if meta is not None else extra_meta(unnamed, score_names)
    if not scores_given:
        warn_left_out(source, unnamed, score_names, meta_names, noun="fields")
    values = {name: [number_or_nan(value, f"{where}: {name}") for (where, _), value in zip(rows, cells[name])]
              for name in score_names}
    if not scores_given:  # (a cell that is no number refused first, named)
        check_score_columns(source, score_names, noun="fields", prefix="llamaindex")
    return values, {name: cells[name] for name in meta_names}


def llamaindex_records(results: Any, *, scores: Sequence[str] | Mapping[str, Any] | None = None,
                       meta: Sequence[str] | None = None) -> LlamaIndexSource:
    """Read llama-index retrieval evaluation results into records (see the module's doc).

    A score named as evalframe's registry names a measure gets the prefix ``llamaindex_``; llama-index's own metrics
    are declared higher-is-better in [0, 1].

    Examples
    --------
    >>> result = {"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
    ...           "retrieved_texts": ["Bonn.", "Berlin."], "metric_dict": {"hit_rate": {"score": 1.0}}}
    >>> record = llamaindex_records([result]).records[0]
    >>> [r.id for r in record.retrieved], record.gold_ids, record.scores
    (['d2', 'd1'], ['d1'], {'llamaindex_hit_rate': 1.0})
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
    name = str(results) if is_path(results) else "results"
    extra_values, meta_values = _extra_fields(items, meta, scores is not None,
                                              name if is_path(results) else "from_llamaindex")
    for i, row in enumerate(rows):
        row[5].update({field: values[i] for field, values in extra_values.items() if field not in row[5]})
    available = list(dict.fromkeys(name for row in rows for name in row[5]))
    known = {name: {"bounds": (0.0, 1.0), "description": description}
             for name, description in LLAMAINDEX_METRICS.items()}
    choice = ScoreChoice(available, scores, prefix="llamaindex", known=known)
    warn_mended(name if is_path(results) else "from_llamaindex", choice.mended)
    for where, *_, metric_scores in rows:
        for metric, value in metric_scores.items():
            choice.check_bounds(metric, value, f"{where}: metric_dict[{metric!r}].score")
    records = [Record(where=where, query=query, retrieved=retrieved, gold_ids=gold_ids, gold_contexts=gold_texts,
                      meta=meta_of({field: values[i] for field, values in meta_values.items()}),
                      scores=choice.of(metric_scores))
               for i, (where, query, retrieved, gold_ids, gold_texts, metric_scores) in enumerate(rows)]
    return LlamaIndexSource(records, choice.measures, name=name)


@with_options(MatchingOptions)
def read_llamaindex(
    results: Any,
    *,
    scores: Sequence[str] | Mapping[str, Any] | None = None,
    meta: Sequence[str] | None = None,
    retriever: str = "Retriever",
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    duplicates: Literal["error", "first"] = "error",
    on_invalid: Literal["raise", "skip"] = "raise",
    storage_options: Mapping[str, Any] | None = None,
    **matching: Any,
) -> Built:
    """A result from LlamaIndex's retrieval evaluation: ``RetrievalEvalResult`` objects, their dicts or a file of them.

    Nothing of llama-index is imported: any object with its attributes (``query``, ``expected_ids``,
    ``expected_texts``, ``retrieved_ids``, ``retrieved_texts``, ``metric_dict``) or its dict (``model_dump()``)
    is read (``docs/frameworks.md``). A dict may hold ``retrieved_nodes`` (``NodeWithScore`` objects or dicts, or
    LangChain documents) instead of ``retrieved_ids`` / ``retrieved_texts``. The retrieved nodes become the
    ``retriever`` node, relevant when their id is one of ``expected_ids`` (the ``expected_texts`` are the gold
    contexts); each ``metric_dict`` score becomes a score of the query (``evalframe.score_measure``).

    Parameters
    ----------
    results
        A list of ``RetrievalEvalResult`` (or one), of their dicts, or a path to a JSON file of a list of them
        or a JSON Lines file of one per line.
    scores : list or dict, optional
        Which metrics of ``metric_dict`` to keep: None all, a list of their names, or a dict name ->
        ``evalframe.score_measure(...)`` declaring each. A name evalframe's registry owns (``mrr``,
        ``precision``, ``recall``, ``ndcg``, ...) is kept as ``llamaindex_<name>`` unless declared, one named with
        its parameters (``f(mode=x)``) as its name mended (``f_mode_x``, either name taken here); llama-index's
        own retrieval metrics are declared higher-is-better in [0, 1], any other higher and unbounded.
    meta : list of str, optional
        The fields of the result dicts beyond a ``RetrievalEvalResult``'s whose values become each query's
        ``meta`` fields (as ``from_ragas``' ``meta=``; default: those of one value per result that hold no
        numbers or are named like an id; ``[]``: none). Such a field of numbers (or their text) is a score, as a
        Ragas column is (``docs/rag.md#which-columns-are-scores``), unless named here or like an id; a field of
        lists is left out; one warning names each field that gives no score and why.
    retriever : str
        The node's name.
    duplicates, on_invalid
        As in :meth:`from_frame`: a node id twice in ``retrieved_ids`` is refused unless ``duplicates="first"``; a
        result with empty ``expected_ids`` (no gold) is refused unless ``on_invalid="skip"``.
    sas_model, progress, **matching
        As in :meth:`from_runs`.

    storage_options : dict, optional
        The filesystem's options for a file given as a URL (``s3://bucket/eval.jsonl``; ``docs/storage.md``).

    Returns
    -------
    Built
        What the results built (``EvaluationResult.from_llamaindex`` returns the result made of it).

    Raises
    ------
    EvalframeError
        A missing or mistyped field, named with where it is (``results[2]``, ``file:line``) and the field's name.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> results = [{"query": "Capital of Germany?", "expected_ids": ["d1"], "retrieved_ids": ["d2", "d1"],
    ...             "retrieved_texts": ["Bonn.", "Berlin."], "metric_dict": {"mrr": {"score": 0.5}}},
    ...            {"query": "Capital of France?", "expected_ids": ["d3"], "retrieved_ids": ["d3"],
    ...             "retrieved_texts": ["Paris."], "metric_dict": {"mrr": {"score": 1.0}}}]
    >>> metrics = EvaluationResult.from_llamaindex(results, progress=False).calculate_metrics()["Retriever"]
    >>> metrics["mrr"], metrics["llamaindex_mrr"]
    (0.75, 0.75)
    """
    results = remote_or_value(results, name='results', storage_options=storage_options)
    options = MatchingOptions.from_keywords(matching, passed_to="from_llamaindex takes these matching options")
    read = llamaindex_records(results, scores=scores, meta=meta)
    return build(read.records, retriever=retriever, score_measures=read.score_measures or None, sas_model=sas_model,
                 progress=progress, fields=read.fields, duplicates=duplicates, on_invalid=on_invalid,
                 source=read.name, **options.as_dict())
