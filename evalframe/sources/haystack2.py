"""Haystack 2.x (haystack-ai) as a source: an ``EvaluationRunResult``, its detailed report, or pipeline outputs ->
:class:`~evalframe.sources.records.Record` per question (:func:`haystack2_records`), built by :func:`read_haystack2`
(``EvaluationResult.from_haystack2``).

Read duck-typed, never importing Haystack:

* an ``EvaluationRunResult`` (``.inputs``: one list per input, one entry per question; ``.results``:
  ``{metric: {"score": ..., "individual_scores": [...]}}``), or the same as a dict or a JSON file
  (``{"run_name", "inputs", "results"}``, Documents as ``Document.to_dict()``);
* its detailed report (``detailed_report()``: a dict of lists, the inputs and one list per metric; or the
  DataFrame of ``detailed_report(output_format="df")``);
* a list of pipeline outputs (``Pipeline.run`` per question: ``{component: {"documents": [...], "answers": [...],
  "replies": [...]}}``), with the questions and the gold given beside them; without a ``documents`` output, the
  documents the first ``GeneratedAnswer`` cites.

Documents are ``haystack.Document`` objects or their dicts (``to_dict()``, whose meta keys stand beside ``id`` and
``content``; ``to_dict(flatten=False)``), or any document :func:`~evalframe.sources.records.retrieved_of` reads
(LangChain, llama-index, strings). Answers are strings, ``GeneratedAnswer`` (``data``), ``ChatMessage`` (``text``)
or their dicts; a list of them: the first.

An input (a report's column) that plays no role is read by the rule of every source's extra columns
(:mod:`evalframe.sources.extras`, as ``from_ragas`` reads a dataset's): numbers (or their text) in at least half of
its rows: a score (beside the run result's own ``results``), unless named like an id (``id``, ``sample_id``, ``sku``,
``year``, ...); one value per row otherwise (a ``topic``): a field of the query's ``meta``; lists: left out; one
warning names each input that gives no score and why. ``meta=[...]`` (or ``inputs={"meta": [...]}``) names the meta inputs
instead (``[]``: none).

Which document field says that a retrieved document is a gold one is ``document_comparison_field``, as in
Haystack's document evaluators: ``"content"`` (Haystack's default: equal texts), ``"id"`` or ``"meta.<key>"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._validation import did_you_mean, short_repr
from .._locations import remote_or_value
from ..errors import EvalframeError, InvalidParameterError, LoadError
from ..options import MatchingOptions, with_options
from .assemble import Built
from .extras import check_score_columns, extra_meta, extra_scores, meta_of, warn_left_out
from .foreign import ScoreChoice, is_path, naming_file, read_json_file, warn_mended
from .records import Record, Retrieved, build, retrieved_of
from ..frames.score_values import score_values

__all__ = ["ROLES", "ROLE_GUESSES", "Haystack2Source", "haystack2_records", "read_haystack2"]

#: What an input of a run result may be, and the input names each is looked for under when ``inputs=`` does not say
#: (the names of Haystack's evaluators' inputs and of its tutorials, in this order).
ROLE_GUESSES: dict[str, tuple[str, ...]] = {
    "question": ("question", "questions", "query", "queries", "user_input"),
    "documents": ("retrieved_documents", "documents", "retrieved_contexts", "contexts"),
    "answer": ("predicted_answer", "predicted_answers", "response", "responses", "replies", "generated_answer",
               "answers"),
    "gold_documents": ("ground_truth_documents", "gold_documents", "reference_documents", "reference_contexts",
                       "ground_truth_contexts"),
    "gold_ids": ("ground_truth_document_ids", "gold_document_ids", "reference_context_ids"),
    "gold_answers": ("ground_truth_answers", "ground_truth_answer", "gold_answers", "reference", "answer"),
}
#: The roles an input may play: the guessed ones, and ``meta`` (a list of input names: each query's value of each
#: becomes a field of its metadata).
ROLES: tuple[str, ...] = (*ROLE_GUESSES, "meta")

#: A Haystack 2.x Document dict's own keys (``to_dict()`` puts the meta keys beside them).
_DOCUMENT_FIELDS = frozenset({"id", "content", "blob", "meta", "score", "embedding", "sparse_embedding",
                              "content_type", "id_hash_keys", "dataframe"})
_COMPARISON = ("content", "id", "meta.<key>")


@dataclass
class Haystack2Source:
    """What :func:`read_haystack2` read: one record per question, the declarations of its scores, the message names."""

    records: list[Record]
    score_measures: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    name: str = "the run result"  # how messages about the whole source name it (its file)


# ------------------------------------------------------------------------------------------------ documents
def _document(obj: Any, where: str) -> Retrieved:
    """One document: a Haystack Document dict keeps its flattened meta keys as meta; anything else as retrieved_of."""
    if isinstance(obj, Mapping) and ("id" in obj or "content" in obj) and "page_content" not in obj \
            and not isinstance(obj.get("node"), Mapping):
        nested = obj.get("meta")
        if nested is not None and not isinstance(nested, Mapping):
            raise EvalframeError(f"{where}: meta must be an object (a dict) or null; got {short_repr(nested, 60)}.")
        meta = {**(nested or {}), **{k: v for k, v in obj.items() if k not in _DOCUMENT_FIELDS}}
        return retrieved_of({"id": obj.get("id"), "content": obj.get("content"), "score": obj.get("score"),
                             "meta": meta}, where)
    return retrieved_of(obj, where)


def _documents(value: Any, where: str, name: str) -> list[Retrieved] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise EvalframeError(f"{where}: {name} must be a list of documents; got {short_repr(value, 60)} of type "
                             f"{type(value).__name__}.")
    return [_document(item, f"{where}, {name}[{j}]") for j, item in enumerate(value)]


def _comparison_field(value: object) -> str:
    if isinstance(value, str) and (value in ("content", "id") or (value.startswith("meta.") and len(value) > 5)):
        return value
    raise InvalidParameterError(f"document_comparison_field must be one of {list(_COMPARISON)} (as Haystack's document "
                                f"evaluators take it); got {value!r}.", parameter="document_comparison_field")


def _meta_value(meta: Mapping[str, Any] | None, path: str) -> Any:
    value: Any = meta
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _key(doc: Retrieved, comparison: str) -> str | None:
    """The text two documents are compared by (None: the document has none, so it matches nothing)."""
    if comparison == "content":
        return doc.content
    if comparison == "id":
        return doc.id
    value = _meta_value(doc.meta, comparison[len("meta."):])
    return None if value is None else str(value)


def _as_compared(docs: list[Retrieved] | None, comparison: str) -> list[Retrieved] | None:
    """Retrieved documents whose id is their comparison value (content: no id, so the content's hash, as the gold's)."""
    if docs is None or comparison == "id":
        return docs
    if comparison == "content":
        return [Retrieved(None, d.content if d.content is not None else "", d.score, d.meta) for d in docs]
    return [Retrieved(_key(d, comparison) or "", d.content, d.score, d.meta) for d in docs]


def _gold(docs: list[Retrieved] | None, comparison: str, where: str, name: str
          ) -> tuple[list[str] | None, list[str] | None]:
    """``(gold_ids, gold_contexts)`` of the gold documents compared by ``comparison``; a gold document without the
    field compared by is refused (it could never be found)."""
    if docs is None:
        return None, None
    contexts = [d.content if d.content is not None else "" for d in docs]
    if comparison == "content":
        return None, contexts
    ids = [_key(d, comparison) for d in docs]
    missing = next((j for j, key in enumerate(ids) if key in (None, "")), None)
    if missing is not None:
        raise EvalframeError(f"{where}: {name}[{missing}] has no {comparison!r} to compare by "
                             f"(document_comparison_field={comparison!r}); give it one, or compare by another field "
                             "(document_comparison_field='content' compares the texts).")
    return [key for key in ids if key is not None], contexts


# ------------------------------------------------------------------------------------------------ answers
def _answer(value: Any, where: str, name: str) -> str | None:
    """A generated answer's text: a str, a GeneratedAnswer (``data``), a ChatMessage (``text``), their dicts; a list:
    the first."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Sequence) and not isinstance(value, (bytes, Mapping)):
        if len(value) and isinstance(value[0], Sequence) and not isinstance(value[0], (str, bytes, Mapping)):
            raise EvalframeError(f"{where}: {name}[0] must be an answer (a string, a GeneratedAnswer or ChatMessage, "
                                 f"or their dict); got a list inside the list.")
        return _answer(value[0], where, f"{name}[0]") if len(value) else None
    if isinstance(value, Mapping):
        if "data" in value:
            if isinstance(value["data"], Mapping):  # a GeneratedAnswer's data is its text
                raise EvalframeError(f"{where}: {name}.data must be the answer's text; got a dict.")
            return _answer(value["data"], where, f"{name}.data")
        content = value.get("content", value.get("_content"))
        if isinstance(content, list):  # ChatMessage.to_dict(): {"role", "content": [{"text": ...}, ...]}
            texts = [part["text"] for part in content if isinstance(part, Mapping) and isinstance(part.get("text"), str)]
            return " ".join(texts) if texts else None
        if isinstance(content, str):
            return content
        raise EvalframeError(f"{where}: {name} must be an answer (a string, a GeneratedAnswer or ChatMessage, or "
                             f"their dict); got a dict with keys {sorted(map(str, value))[:8]}.")
    if hasattr(value, "data") and isinstance(value.data, (str, type(None))):  # GeneratedAnswer
        return value.data
    text = getattr(value, "text", None)  # ChatMessage
    if isinstance(text, str) or (text is None and hasattr(value, "role")):
        return text
    raise EvalframeError(f"{where}: {name} must be an answer (a string, a GeneratedAnswer or ChatMessage, or their "
                         f"dict); got {short_repr(value, 60)} of type {type(value).__name__}.")


def _gold_answers(value: Any, where: str, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and not isinstance(value, (bytes, Mapping)):
        return [_answer(v, where, f"{name}[{i}]") or "" for i, v in enumerate(value)]
    return [_answer(value, where, name) or ""]


def _ids(value: Any, where: str, name: str) -> list[str]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise EvalframeError(f"{where}: {name} must be a list of document ids; got {short_repr(value, 60)}.")
    return list(value)


def _question(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str):
        raise EvalframeError(f"{where}: {name} must be the question's text; got {short_repr(value, 60)} of type "
                             f"{type(value).__name__}.")
    return value


def _record(where: str, values: Mapping[str, Any], names: Mapping[str, str], comparison: str,
            meta: Mapping[str, Any] | None, scores: dict[str, float] | None) -> Record:
    """One question's record from its values by role (a role missing: its value None)."""
    retrieved = _as_compared(_documents(values.get("documents"), where, names["documents"]), comparison)
    gold_docs = _documents(values.get("gold_documents"), where, names["gold_documents"])
    gold_ids, gold_contexts = _gold(gold_docs, comparison, where, names["gold_documents"])
    if values.get("gold_ids") is not None:
        gold_ids = _ids(values["gold_ids"], where, names["gold_ids"])
        if gold_contexts is not None and len(gold_contexts) != len(gold_ids):
            gold_contexts = None  # two gold lists of different documents: the ids name the gold
    return Record(where=where, query=_question(values.get("question"), where, names["question"]), retrieved=retrieved,
                  answer=_answer(values.get("answer"), where, names["answer"]), gold_ids=gold_ids,
                  gold_contexts=gold_contexts,
                  gold_answers=_gold_answers(values.get("gold_answers"), where, names["gold_answers"]),
                  meta=meta, scores=scores)


# ------------------------------------------------------------------------------------------------ run results
def _roles(columns: Sequence[str], inputs: Mapping[str, Any] | None, what: str,
           meta: Sequence[str] | None = None) -> dict[str, Any]:
    """Role -> input name (``meta``: a list of names), from ``inputs=`` (and ``meta=``, the meta inputs) and the
    guesses for the roles they leave."""
    chosen: dict[str, Any] = {}
    given = dict(inputs or {})
    if meta is not None:
        if "meta" in given:
            raise InvalidParameterError("meta= and inputs={'meta': ...} both name the meta inputs; name them once.",
                                        parameter="meta")
        given["meta"] = list(meta)
    for role, name in given.items():
        if role not in ROLES:
            raise InvalidParameterError(f"inputs: unknown role {role!r}; the roles are {list(ROLES)}."
                                        f"{did_you_mean(role, ROLES)}", parameter="inputs")
        names = [name] if role != "meta" or isinstance(name, str) else list(name)
        for item in names:
            if item not in columns:
                raise InvalidParameterError(f"inputs[{role!r}]: the {what} has no input {item!r}; its inputs are "
                                            f"{list(columns)}.{did_you_mean(item, columns)}", parameter="inputs")
        chosen[role] = name if role != "meta" else names
    used = {n for role, n in chosen.items() if role != "meta"} | set(chosen.get("meta", []))
    for role, guesses in ROLE_GUESSES.items():
        if role in chosen:
            continue
        found = next((g for g in guesses if g in columns and g not in used), None)
        if found is not None:
            chosen[role] = found
            used.add(found)
    if "question" not in chosen:
        raise EvalframeError(f"the {what} has no input holding the questions (looked for {list(ROLE_GUESSES['question'])}); "
                             f"its inputs are {list(columns)}: name it, e.g. inputs={{'question': 'q'}}.")
    if not {"gold_documents", "gold_ids", "gold_answers"} & set(chosen):
        raise EvalframeError(f"the {what} has no gold input (looked for ground-truth documents "
                             f"{list(ROLE_GUESSES['gold_documents'])}, ids {list(ROLE_GUESSES['gold_ids'])} and answers "
                             f"{list(ROLE_GUESSES['gold_answers'])}); its inputs are {list(columns)}: name them, e.g. "
                             "inputs={'gold_documents': 'expected', 'gold_answers': 'truth'}.")
    if "documents" not in chosen and "answer" not in chosen:
        raise EvalframeError(f"the {what} has neither retrieved documents (looked for {list(ROLE_GUESSES['documents'])}) "
                             f"nor generated answers (looked for {list(ROLE_GUESSES['answer'])}); its inputs are "
                             f"{list(columns)}: name them, e.g. inputs={{'documents': 'docs', 'answer': 'reply'}}.")
    return chosen


def _column_list(values: Any, name: str, where: str, n: int | None) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
        raise EvalframeError(f"{where}{name} must be a list (one entry per question); got {short_repr(values, 60)}.")
    if n is not None and len(values) != n:
        raise EvalframeError(f"{where}{name} has {len(values)} entries, but there are {n} questions: every input "
                             "holds one entry per question.")
    return list(values)


def _run_records(inputs: Mapping[str, Any], results: Mapping[str, Any], *, prefix: str, roles: Mapping[str, Any],
                 comparison: str, choice_of: Callable[[Sequence[str]], ScoreChoice], report: bool = False,
                 scores_given: bool = False) -> Haystack2Source:
    """Records of a run result (``results``: metric -> individual scores; question i named ``inputs[i]``) or a
    detailed report (its score columns found here; question i named ``row i+1``); the inputs that play no role are
    read by the rule of every source's extra columns (:mod:`evalframe.sources.extras`)."""
    label = "column" if report else "inputs"
    n = len(_column_list(inputs[roles["question"]], f"{label}[{roles['question']!r}]", prefix, None))
    columns = {name: _column_list(inputs[name], f"{label}[{name!r}]", prefix, n)
               for role, name in roles.items() if role != "meta"}
    named_meta = list(roles["meta"]) if "meta" in roles else None
    extras, odd = {}, {}  # the inputs that play no role; those that hold no entry per question (left out, named)
    for name, values in inputs.items():
        if name not in columns and name not in (named_meta or ()):
            if isinstance(values, Sequence) and not isinstance(values, (str, bytes)) and len(values) == n:
                extras[str(name)] = list(values)
            else:
                odd[str(name)] = f"left out: not a list of one entry per question ({short_repr(values, 40)})"
    input_scores = extra_scores(extras, named_meta or ())
    meta_names = named_meta if named_meta is not None else extra_meta(extras, input_scores)
    meta_columns = {name: _column_list(inputs[name], f"{label}[{name!r}]", prefix, n) for name in meta_names}
    if not scores_given:
        warn_left_out(prefix[:-2] if prefix else "from_haystack2", extras, input_scores, meta_names,
                      noun="columns" if report else "inputs", more=odd)
    # a report's score columns are its results; a run result's inputs of numbers are scores beside its results
    given = {**results, **{name: {"individual_scores": extras[name]} for name in input_scores
                           if report or name not in results}}
    individual: dict[str, list[float]] = {}
    for metric, outcome in given.items():
        where = f"{prefix}results[{metric!r}]" if report or metric in results else f"{prefix}inputs[{metric!r}]"
        if not isinstance(outcome, Mapping) or "individual_scores" not in outcome:
            raise EvalframeError(f"{where} must hold 'individual_scores' (one per question), as an "
                                 "EvaluationRunResult's results do; got "
                                 f"{sorted(map(str, outcome))[:8] if isinstance(outcome, Mapping) else short_repr(outcome, 60)}.")
        listed = _column_list(outcome["individual_scores"], "['individual_scores']", where, n)
        at = f"{where}['individual_scores']" if report or metric in results else where

        def cell(i: int, at: str = at) -> str:
            return f"{at}[{i}]"

        individual[str(metric)] = score_values(listed, where=cell, error=EvalframeError).tolist()  # read at once
    if not scores_given:  # (a cell that is no number refused first, named)
        check_score_columns(prefix[:-2] if prefix else "from_haystack2", input_scores,
                            noun="columns" if report else "inputs", prefix="haystack")
    choice = choice_of(list(individual))
    warn_mended(prefix[:-2] if prefix else "from_haystack2", choice.mended)
    for metric, column in individual.items():
        at = f"{prefix}results[{metric!r}]['individual_scores']" if report or metric in results \
            else f"{prefix}inputs[{metric!r}]"
        for i, value in enumerate(column):
            choice.check_bounds(metric, value, f"{at}[{i}]")
    names = {role: (name if isinstance(name, str) else "meta") for role, name in roles.items()}
    names = {role: names.get(role, role) for role in ROLE_GUESSES}
    records = []
    for i in range(n):
        where = f"{prefix}row {i + 1}" if report else f"{prefix}inputs[{i}]"
        values = {role: columns[name][i] for role, name in roles.items() if role != "meta"}
        meta = meta_of({name: column[i] for name, column in meta_columns.items()})
        scores = choice.of({metric: values_[i] for metric, values_ in individual.items()})
        records.append(_record(where, values, names, comparison, meta, scores))
    return Haystack2Source(records, choice.measures, _fields(names))


def _fields(names: Mapping[str, str]) -> dict[str, str]:
    """How :func:`~evalframe.sources.records.build` names the Record fields in its messages."""
    return {"query": names["question"], "retrieved": names["documents"], "answer": names["answer"],
            "gold_answers": names["gold_answers"], "gold_ids": names.get("gold_ids") or "gold_ids",
            "gold_contexts": names["gold_documents"]}


# ------------------------------------------------------------------------------------------------ pipeline outputs
def _component_with(outputs: Sequence[Mapping[str, Any]], keys: tuple[str, ...], given: str | None, name: str
                    ) -> tuple[str, str] | None:
    """``(component, output key)`` of the pipeline outputs holding one of ``keys``, the earlier keys first (an
    answer builder's ``answers`` before a generator's ``replies``), or None."""
    found: dict[str, dict[str, str]] = {key: {} for key in keys}
    for output in outputs:
        for component, values in output.items():
            if isinstance(values, Mapping):
                for key in keys:
                    if key in values:
                        found[key].setdefault(component, key)
    if given is not None:
        for key in keys:
            if given in found[key]:
                return given, key
        having = sorted({c for components in found.values() for c in components})
        raise InvalidParameterError(f"{name}: no pipeline output has a component {given!r} with {list(keys)}; "
                                    f"the components with them are {having}.", parameter=name)
    for key in keys:
        if len(found[key]) > 1:
            raise InvalidParameterError(f"several components output {key!r}: {sorted(found[key])}; say which one, "
                                        f"e.g. {name}={sorted(found[key])[-1]!r}.", parameter=name)
        if found[key]:
            return next(iter(found[key])), key
    return None


def _cited_documents(answers: Any) -> Any:
    """The documents of the first GeneratedAnswer (or its dict), None when there is none or it has none."""
    if not isinstance(answers, Sequence) or isinstance(answers, (str, bytes)) or not answers:
        return None
    first = answers[0]
    return first.get("documents") if isinstance(first, Mapping) else getattr(first, "documents", None)


def _per_question(values: Any, name: str, n: int) -> list[Any]:
    if values is None:
        return [None] * n
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
        raise InvalidParameterError(f"{name} must be a list with one entry per pipeline output; got "
                                    f"{short_repr(values, 60)}.", parameter=name)
    if len(values) != n:
        raise InvalidParameterError(f"{name} has {len(values)} entries for {n} pipeline outputs; give one per output.",
                                    parameter=name)
    return list(values)


def _pipeline_records(outputs: Sequence[Any], *, questions: Any, gold_documents: Any, gold_ids: Any,
                      gold_answers: Any, meta: Any, documents_from: str | None, answers_from: str | None,
                      comparison: str) -> Haystack2Source:
    n = len(outputs)
    for i, output in enumerate(outputs):
        if not isinstance(output, Mapping):
            raise EvalframeError(f"outputs[{i}] must be a pipeline output, {{component: {{output: value}}}}; got "
                                 f"{short_repr(output, 60)} of type {type(output).__name__}.")
    docs_at = _component_with(outputs, ("documents",), documents_from, "documents_from")
    answers_at = _component_with(outputs, ("answers", "replies"), answers_from, "answers_from")
    if docs_at is None and answers_at is None:
        raise EvalframeError("no pipeline output holds 'documents', 'answers' or 'replies' of a component; give the "
                             "outputs of Pipeline.run (include_outputs_from= keeps an inner component's).")
    question_list = _per_question(questions, "questions", n)
    gold_lists = {"gold_documents": _per_question(gold_documents, "gold_documents", n),
                  "gold_ids": _per_question(gold_ids, "gold_ids", n),
                  "gold_answers": _per_question(gold_answers, "gold_answers", n)}
    if gold_documents is None and gold_ids is None and gold_answers is None:
        raise InvalidParameterError("pipeline outputs hold no gold: give gold_documents=, gold_ids= or gold_answers= "
                                    "(one entry per output).", parameter="gold_documents")
    metas = _per_question(meta, "meta", n)
    names = {"question": "questions", "documents": "documents", "answer": "answers", "gold_documents": "gold_documents",
             "gold_ids": "gold_ids", "gold_answers": "gold_answers"}
    records = []
    for i, output in enumerate(outputs):
        where = f"outputs[{i}]"
        values: dict[str, Any] = {key: lists[i] for key, lists in gold_lists.items()}
        if docs_at is not None:
            values["documents"] = output.get(docs_at[0], {}).get(docs_at[1], [])
            names["documents"] = f"{docs_at[0]}.{docs_at[1]}"
        elif answers_at is not None and answers_at[1] == "answers":
            # Pipeline.run returns the last component's outputs only: the retrieved documents are those the answer
            # builder's GeneratedAnswer cites
            values["documents"] = _cited_documents(output.get(answers_at[0], {}).get("answers"))
            names["documents"] = f"{answers_at[0]}.answers[0].documents"
        if answers_at is not None:
            values["answer"] = output.get(answers_at[0], {}).get(answers_at[1])
            names["answer"] = f"{answers_at[0]}.{answers_at[1]}"
        question = question_list[i]
        if question is None:  # a GeneratedAnswer knows its query
            answers = output.get(answers_at[0], {}).get(answers_at[1]) if answers_at is not None else None
            first = answers[0] if isinstance(answers, Sequence) and not isinstance(answers, str) and answers else None
            question = first.get("query") if isinstance(first, Mapping) else getattr(first, "query", None)
            if question is None:
                raise InvalidParameterError(f"{where}: the question is unknown; give questions= (one per output).",
                                            parameter="questions")
        values["question"] = question
        record_meta = metas[i]
        if record_meta is not None and not isinstance(record_meta, Mapping):
            raise InvalidParameterError(f"meta[{i}] must be a dict or None; got {short_repr(record_meta, 60)}.",
                                        parameter="meta")
        records.append(_record(where, values, names, comparison, record_meta, None))
    return Haystack2Source(records, {}, _fields(names))


# ------------------------------------------------------------------------------------------------ entry point
def _as_table(report: Any) -> dict[str, list[Any]] | None:
    """A detailed report as a dict of lists (a DataFrame's columns), or None if ``report`` is none."""
    if hasattr(report, "to_dict") and hasattr(report, "columns") and hasattr(report, "iloc"):  # a DataFrame
        return {str(c): list(report[c]) for c in report.columns}
    if isinstance(report, Mapping) and report and all(
            isinstance(v, Sequence) and not isinstance(v, (str, bytes)) for v in report.values()):
        return {str(k): list(v) for k, v in report.items()}
    return None


def haystack2_records(source: Any, *, inputs: Mapping[str, Any] | None = None, questions: Any = None,
                      gold_documents: Any = None, gold_ids: Any = None, gold_answers: Any = None, meta: Any = None,
                      scores: Sequence[str] | Mapping[str, Any] | None = None, documents_from: str | None = None,
                      answers_from: str | None = None, document_comparison_field: str | None = None
                      ) -> Haystack2Source:
    """Read a Haystack 2.x run result, detailed report or pipeline outputs into records (see the module's doc).

    The parameters are those of :func:`read_haystack2`.

    Examples
    --------
    >>> run = {"inputs": {"question": ["Capital of Germany?"], "ground_truth_answer": ["Berlin"],
    ...                   "predicted_answer": ["Berlin"]},
    ...        "results": {"faithfulness": {"score": 1.0, "individual_scores": [1.0]}}}
    >>> read = haystack2_records(run)
    >>> read.records[0].answer, read.records[0].gold_answers, read.records[0].scores
    ('Berlin', ['Berlin'], {'faithfulness': 1.0})
    """
    prefix = ""
    path = None
    if is_path(source):
        path, source = read_json_file(source, name="run_result")
        prefix = f"{path}: "
    with naming_file(path):
        read = _read(source, prefix, inputs=inputs, questions=questions, gold_documents=gold_documents,
                     gold_ids=gold_ids, gold_answers=gold_answers, meta=meta, scores=scores,
                     documents_from=documents_from, answers_from=answers_from,
                     document_comparison_field=document_comparison_field)
    if path is not None:
        read.name = str(path)
    return read


def _meta_inputs(meta: Any) -> list[str] | None:
    """``meta=`` of a run result or report: the names of the inputs whose values become meta fields (None: the
    rule's; ``[]``: none)."""
    if meta is None:
        return None
    if isinstance(meta, (str, bytes, Mapping)) or not isinstance(meta, Sequence) \
            or not all(isinstance(name, str) for name in meta):
        raise InvalidParameterError(f"meta= of a run result names the inputs whose values become each query's meta "
                                    f"fields, a list of input names (as from_ragas' meta= names columns), e.g. "
                                    f"meta=['topic']; got {short_repr(meta, 60)}. One dict per question is for "
                                    "pipeline outputs.", parameter="meta")
    return list(meta)


def _read(source: Any, prefix: str, *, inputs: Mapping[str, Any] | None, questions: Any, gold_documents: Any,
          gold_ids: Any, gold_answers: Any, meta: Any, scores: Sequence[str] | Mapping[str, Any] | None,
          documents_from: str | None, answers_from: str | None, document_comparison_field: str | None
          ) -> Haystack2Source:
    """:func:`haystack2_records` of what the file held (``prefix``: ``"file: "``, or ``""``)."""
    has_comparison = document_comparison_field is not None
    comparison = _comparison_field("content" if document_comparison_field is None else document_comparison_field)

    def choice_of(available: Sequence[str]) -> ScoreChoice:
        return ScoreChoice(available, scores, prefix="haystack")

    pipeline_keywords = {"questions": questions, "gold_documents": gold_documents, "gold_ids": gold_ids,
                         "gold_answers": gold_answers}
    if isinstance(source, Sequence) and not isinstance(source, (str, bytes)):
        if inputs is not None:
            raise InvalidParameterError("inputs= names the inputs of a run result; pipeline outputs take questions=, "
                                        "gold_documents=, gold_ids=, gold_answers= and meta= as lists.",
                                        parameter="inputs")
        if scores is not None:
            raise InvalidParameterError("scores= chooses among a run result's scores; pipeline outputs carry none "
                                        "(attach scores with result.add_scores).", parameter="scores")
        if gold_ids is not None and not has_comparison:
            comparison = "id"
        return _pipeline_records(source, questions=questions, gold_documents=gold_documents, gold_ids=gold_ids,
                                 gold_answers=gold_answers, meta=meta, documents_from=documents_from,
                                 answers_from=answers_from, comparison=comparison)
    given = [name for name, value in pipeline_keywords.items() if value is not None]
    if given:
        role = "question" if given[0] == "questions" else given[0]
        raise InvalidParameterError(f"{given[0]}= is for pipeline outputs; a run result names its inputs by role: "
                                    f"inputs={{{role!r}: 'input name'}} (roles {list(ROLES)}).", parameter=given[0])
    for name, value in (("documents_from", documents_from), ("answers_from", answers_from)):
        if value is not None:
            raise InvalidParameterError(f"{name}= names a pipeline component; a run result has none.", parameter=name)
    meta_inputs = _meta_inputs(meta)
    run_inputs = getattr(source, "inputs", None) if not isinstance(source, Mapping) else source.get("inputs")
    run_results = getattr(source, "results", None) if not isinstance(source, Mapping) else source.get("results")
    if isinstance(run_inputs, Mapping) and isinstance(run_results, Mapping):
        roles = _roles(list(map(str, run_inputs)), inputs, "run result", meta_inputs)
        if "gold_ids" in roles and not has_comparison:
            comparison = "id"
        return _run_records(run_inputs, run_results, prefix=prefix, roles=roles, comparison=comparison,
                            choice_of=choice_of, scores_given=scores is not None)
    table = _as_table(source)
    if table is not None:
        roles = _roles(list(table), inputs, "detailed report", meta_inputs)
        if "gold_ids" in roles and not has_comparison:
            comparison = "id"
        return _run_records(table, {}, prefix=prefix, roles=roles, comparison=comparison, choice_of=choice_of,
                            report=True, scores_given=scores is not None)
    if prefix:
        raise LoadError(f"{prefix}not a Haystack 2.x run result: the file must hold a JSON object with 'inputs' and "
                        "'results' (an EvaluationRunResult's), or a detailed report (a JSON object of lists).")
    raise EvalframeError("from_haystack2 takes an EvaluationRunResult (.inputs and .results), its dict or JSON file, "
                         "its detailed report (a dict of lists or a DataFrame), or a list of pipeline outputs; got "
                         f"{type(source).__name__}.")


@with_options(MatchingOptions)
def read_haystack2(
    run_result_or_pipeline_outputs: Any,
    *,
    inputs: Mapping[str, str | Sequence[str]] | None = None,
    questions: Sequence[str] | None = None,
    gold_documents: Sequence[Any] | None = None,
    gold_ids: Sequence[Sequence[str]] | None = None,
    gold_answers: Sequence[Any] | None = None,
    meta: Sequence[str] | Sequence[Mapping[str, Any] | None] | None = None,
    scores: Sequence[str] | Mapping[str, Any] | None = None,
    documents_from: str | None = None,
    answers_from: str | None = None,
    document_comparison_field: str | None = None,
    retriever: str = "Retriever",
    generator: str = "Generator",
    score_node: str | None = None,
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    duplicates: Literal["error", "first"] = "error",
    on_invalid: Literal["raise", "skip"] = "raise",
    storage_options: Mapping[str, Any] | None = None,
    **matching: Any,
) -> Built:
    """A result from Haystack 2.x (haystack-ai): an ``EvaluationRunResult``, its detailed report, or pipeline outputs.

    Nothing of Haystack is imported: any object with its attributes, its dict, or a JSON file of it is read
    (``docs/frameworks.md``). The retrieved documents become the ``retriever`` node, the generated answers the
    ``generator`` node, matched against the gold as :meth:`from_runs` matches a runs file's gold; each metric of
    the run result's ``results`` (its ``individual_scores``) becomes a score of the query
    (``evalframe.score_measure``), on the generator node when there is one (``score_node``).

    Parameters
    ----------
    run_result_or_pipeline_outputs
        An ``EvaluationRunResult`` (``.inputs``: one list per input; ``.results``: ``{metric: {"score",
        "individual_scores"}}``), its dict ``{"inputs", "results"}`` or a path to a JSON file of it (Documents
        as ``Document.to_dict()``); its detailed report (``detailed_report()``'s dict of lists, or the DataFrame of
        ``output_format="df"``), whose numeric columns that play no role are the scores; or a list of pipeline
        outputs (``Pipeline.run``'s ``{component: {"documents": [...], "answers" or "replies": [...]}}``), one
        per question, with the questions and gold given by the keywords below.
    inputs : dict, optional
        For a run result or report: role -> input name, for the roles ``question``, ``documents`` (retrieved),
        ``answer`` (generated), ``gold_documents``, ``gold_ids``, ``gold_answers`` and ``meta`` (a list of input
        names, each becoming a field of the query's metadata, as ``meta=``). A role not named is looked for under
        the names Haystack's evaluators and tutorials use (``question``, ``retrieved_documents``/``contexts``,
        ``predicted_answer``/``replies``, ``ground_truth_documents``, ``ground_truth_answer(s)``/``answer``, ...).
        Every other input is read as ``from_ragas`` reads a dataset's other columns (``docs/rag.md#which-columns-are-scores``):
        numbers (or their text) make it a score unless it is named like an id (``sample_id``), one value per row
        (a ``topic``) a field of the query's ``meta``; lists are left out; one warning names each input that gives
        no score and why.
    meta : list, optional
        For a run result or report: the inputs whose values become each query's ``meta`` fields (as
        ``from_ragas``' ``meta=``; default: the inputs of one value per row that play no role and hold no
        numbers or are named like an id; ``[]``: none); an input named here is never a score. For pipeline
        outputs: one metadata dict (or None) per output.
    questions, gold_documents, gold_ids, gold_answers : list, optional
        For pipeline outputs: one entry per output (the question, its gold Documents, gold ids and gold
        answer(s)). A ``GeneratedAnswer`` knows its question, so ``questions`` may be left out then.
    scores : list or dict, optional
        Which of a run result's metrics to keep: None all, a list of their names, or a dict name ->
        ``evalframe.score_measure(...)`` declaring each (direction, bounds; its name is the score's name in
        evalframe). A metric named as a measure of evalframe's registry (``exact_match``, ``mrr``, ...) is kept as
        ``haystack_<name>`` unless declared; one named with its parameters (``factual_correctness(mode=f1)``) as its
        name mended (``factual_correctness_mode_f1``, either name taken here; ``docs/frameworks.md``); the others
        are higher-is-better and unbounded.
    documents_from, answers_from : str, optional
        For pipeline outputs: the component whose ``documents`` / ``answers`` (or ``replies``) to read, when
        several have them. Without any ``documents`` output, the documents the ``GeneratedAnswer`` cites are the
        retrieved ones.
    document_comparison_field : str, optional
        What makes a retrieved document a gold one, as Haystack's document evaluators say it: ``"content"`` (equal
        texts; the default, as Haystack's), ``"id"`` (the default when gold ids are given) or ``"meta.<key>"``.
    retriever, generator, score_node : str
        The node names (``score_node``: where the scores go; default the generator when there are answers).
    duplicates, on_invalid
        As in :meth:`from_frame`: a document twice in one ranking (by the ``document_comparison_field``: two
        chunks of one file compared by ``meta.file_id`` are one document twice) is refused unless
        ``duplicates="first"``; a question without gold is refused unless ``on_invalid="skip"``.
    sas_model, progress, **matching
        As in :meth:`from_runs`.

    storage_options : dict, optional
        The filesystem's options for a file given as a URL (``s3://bucket/eval.jsonl``; ``docs/storage.md``).

    Returns
    -------
    Built
        What the run result (or the outputs) built (``EvaluationResult.from_haystack2`` returns the result made
        of it).

    Raises
    ------
    EvalframeError
        A missing or mistyped field, named with where it is (``inputs[2]``, ``outputs[1]``, ``row 3``, the file)
        and the input's name.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> run = {"inputs": {
    ...     "question": ["Capital of Germany?", "Capital of France?"],
    ...     "retrieved_documents": [[{"id": "d2", "content": "Bonn."}, {"id": "d1", "content": "Berlin."}],
    ...                             [{"id": "d3", "content": "Paris."}]],
    ...     "ground_truth_documents": [[{"id": "d1", "content": "Berlin."}], [{"id": "d3", "content": "Paris."}]],
    ...     "ground_truth_answer": ["Berlin", "Paris"], "predicted_answer": ["Berlin", "Lyon"]},
    ...     "results": {"faithfulness": {"score": 0.5, "individual_scores": [1.0, 0.0]}}}
    >>> result = EvaluationResult.from_haystack2(run, progress=False)
    >>> metrics = result.calculate_metrics()
    >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"], metrics["Generator"]["faithfulness"]
    (0.75, 0.5, 0.5)
    """
    run_result_or_pipeline_outputs = remote_or_value(run_result_or_pipeline_outputs, name='run_result',
                                                     storage_options=storage_options)
    options = MatchingOptions.from_keywords(matching, passed_to="from_haystack2 takes these matching options")
    read = haystack2_records(run_result_or_pipeline_outputs, inputs=inputs, questions=questions,
                             gold_documents=gold_documents, gold_ids=gold_ids, gold_answers=gold_answers, meta=meta,
                             scores=scores, documents_from=documents_from, answers_from=answers_from,
                             document_comparison_field=document_comparison_field)
    return build(read.records, retriever=retriever, generator=generator, score_node=score_node,
                 score_measures=read.score_measures or None, sas_model=sas_model, progress=progress,
                 fields=read.fields, duplicates=duplicates, on_invalid=on_invalid, source=read.name,
                 **options.as_dict())
