"""A Ragas evaluation dataset (or the frame of a Ragas evaluation result) -> records (:func:`read_ragas`,
``EvaluationResult.from_ragas``).

Ragas' single-turn samples have the columns ``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``,
``reference_contexts``, ``reference_context_ids``, ``response`` and ``reference``; Ragas before 0.2 called them
``question``, ``contexts``, ``answer`` and ``ground_truth`` (``ground_truths``: a list), which are read the same way.
Every other column of numbers (or their text, in at least half of its rows) is a score unless it is named like an id
(``id``, ``sample_id``, ``sku``, ``year``, ...), and so is each of Ragas' metric columns (:data:`RAGAS_SCORES`:
faithfulness, answer_relevancy, context_precision, ...) whatever it holds, each cell read by
:mod:`~evalframe.frames.score_values` (a cell that is no number is refused, named); every other column of one value
per row (texts: a topic, a test set's ``persona_name``; a column named like an id) is a field of the query's
``meta``; one warning names each column that gives no score, with what it became and why
(:mod:`evalframe.sources.extras`, the rule of every source). A metric's column named with its mode
(``factual_correctness(mode=f1)``, a name no score may hold) is the score of its name mended
(``factual_correctness_mode_f1``: :func:`~evalframe.sources.foreign.mended_name`). Nothing of Ragas is imported: a
dataset is read through its ``to_pandas()``, or from the files Ragas writes (``to_jsonl``, ``to_csv``,
``to_pandas().to_parquet``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from .._validation import did_you_mean, few_names
from .._locations import remote_or_value
from ..errors import EvalframeError, InvalidParameterError, warn
from ..frames.score_values import score_values
from ..options import MatchingOptions, with_options
from .assemble import Built
from .extras import check_score_columns, extra_meta, extra_scores, warn_left_out
from .foreign import check_apart, score_name, source_name, warn_mended
from .frame import ColumnMapping, Table, frame_records, id_hint, read_table
from .records import Record, build, collection_paused

__all__ = ["RAGAS_COLUMNS", "OLDER_NAMES", "read_ragas", "ragas_mapping", "ragas_score_name"]

#: Ragas' sample columns and the :class:`~evalframe.sources.frame.ColumnMapping` field each fills.
RAGAS_COLUMNS: dict[str, str] = {
    "user_input": "question", "retrieved_contexts": "retrieved_texts", "retrieved_context_ids": "retrieved_ids",
    "reference_contexts": "gold_contexts", "reference_context_ids": "gold_ids", "response": "answer",
    "reference": "gold_answers"}
#: The names of Ragas before 0.2, read as the current ones (when the current one is absent).
OLDER_NAMES: dict[str, str] = {"question": "user_input", "contexts": "retrieved_contexts", "answer": "response",
                               "ground_truth": "reference", "ground_truths": "reference"}
#: Columns of Ragas' samples and test sets that are never scores; the test set's become ``meta`` fields.
_TESTSET_META = ("persona_name", "query_style", "query_length", "synthesizer_name")
_NOT_SCORES = frozenset(RAGAS_COLUMNS) | frozenset(OLDER_NAMES) | frozenset(_TESTSET_META) | frozenset(
    {"multi_responses", "rubrics", "reference_tool_calls", "reference_topics", "retrieved_contexts_ids"})


#: Ragas' metric columns (``ragas.evaluate(...).to_pandas()``; a metric with a mode adds it: ``factual_correctness(mode=f1)``,
#: ``noise_sensitivity_relevant``): scores whatever their cells hold, so that a judge's score stored as text is read as
#: a number and a cell that is no number is refused, named, instead of the column quietly becoming a ``meta`` field.
RAGAS_SCORES = frozenset({
    "faithfulness", "answer_relevancy", "response_relevancy", "context_precision", "context_recall",
    "context_entity_recall", "context_entities_recall", "context_utilization", "context_relevance", "noise_sensitivity",
    "answer_correctness", "answer_similarity", "semantic_similarity", "factual_correctness", "answer_accuracy",
    "response_groundedness", "llm_context_precision_with_reference", "llm_context_precision_without_reference",
    "non_llm_context_precision_with_reference", "non_llm_context_recall", "id_based_context_precision",
    "id_based_context_recall", "nv_accuracy", "nv_context_relevance", "nv_response_groundedness",
    "faithfulness_with_hhem", "multimodal_faithness", "multimodal_relevance", "bleu_score", "chrf_score",
    "rouge_score", "exact_match", "string_present", "non_llm_string_similarity", "summary_score", "topic_adherence",
    "tool_call_accuracy", "agent_goal_accuracy", "harmfulness", "maliciousness", "coherence", "correctness",
    "conciseness"})


def _ragas_score(column: str) -> bool:
    """Whether ``column`` is one of Ragas' metric columns (with or without its mode)."""
    base = column.split("(", 1)[0].strip()
    return base in RAGAS_SCORES or any(base.startswith(name + "_") for name in
                                       ("noise_sensitivity", "factual_correctness", "rouge_score"))


def _cells(table: Table, column: str) -> list[Any]:
    return [row.get(column) for row in table.rows]


def ragas_score_name(column: str) -> str:
    """A Ragas score column's name as a score: a metric's name with its mode (``factual_correctness(mode=f1)``,
    which a score's name cannot hold) mended, every run of characters other than letters, digits, ``_`` and ``-``
    as ``_``, stripped at the ends (:func:`~evalframe.sources.foreign.mended_name`); ``ragas_<name>`` when
    evalframe's registry or frames own the name (Ragas' ``exact_match``).

    Examples
    --------
    >>> ragas_score_name("exact_match"), ragas_score_name("faithfulness")
    ('ragas_exact_match', 'faithfulness')
    >>> ragas_score_name("factual_correctness(mode=f1)"), ragas_score_name("noise_sensitivity(mode=relevant)")
    ('factual_correctness_mode_f1', 'noise_sensitivity_mode_relevant')
    """
    return score_name(column, "ragas")


def repeated_columns(table: Table, repeats: Any) -> dict[str, list[str]]:
    """``repeats={score: [column per repetition]}`` checked against ``table``: each score's columns (one at least,
    each a column of the table, none named twice nor for two scores), its name no other column's.

    Examples
    --------
    >>> from evalframe.sources.frame import read_table
    >>> table = read_table([{"user_input": "q", "f_1": 0.5, "f_2": 1.0}])
    >>> repeated_columns(table, {"f": ["f_1", "f_2"]})
    {'f': ['f_1', 'f_2']}
    >>> repeated_columns(table, {"f": ["f_1", "f_3"]})
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: repeats['f'] names column 'f_3', which is no column of df; ... Did you mean 'f_2'?
    """
    if repeats is None:
        return {}
    if not isinstance(repeats, Mapping):
        raise InvalidParameterError(f"repeats must be a dict {{score: [column per repetition]}}; got {repeats!r}.",
                                    parameter="repeats")
    out: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for name, columns in repeats.items():
        if not isinstance(name, str) or isinstance(columns, str) or not isinstance(columns, Sequence):
            raise InvalidParameterError(f"repeats[{name!r}] must be a list of the columns holding the score's "
                                        f"repetitions; got {columns!r}.", parameter="repeats")
        if not columns:
            raise InvalidParameterError(f"repeats[{name!r}] names no column: a score with repetitions has k >= 1 "
                                        "columns, one per repetition.", parameter="repeats")
        for column in columns:
            if not isinstance(column, str) or column not in table.columns:
                raise InvalidParameterError(
                    f"repeats[{name!r}] names column {column!r}, which is no column of {table.name}; its columns "
                    f"are {few_names(table.columns, 20)}.{did_you_mean(str(column), table.columns)}",
                    parameter="repeats")
            if column in seen:
                raise InvalidParameterError(f"repeats[{name!r}] names column {column!r}, named before by "
                                            f"repeats[{seen[column]!r}]; each column is one repetition of one score.",
                                            parameter="repeats")
            seen[column] = name
        if name in table.columns and name not in columns:
            raise InvalidParameterError(f"repeats names score {name!r}, which is also a column of {table.name}; name "
                                        "the score apart from the table's columns.", parameter="repeats")
        out[name] = list(columns)
    return out


def ragas_mapping(table: Table, *, scores: Any = None, meta: Sequence[str] | None = None,
                  id_column: str | None = None, repeated: Sequence[str] = ()
                  ) -> tuple[ColumnMapping, dict[str, Any]]:
    """The column mapping of a Ragas table, and the score declarations ``scores`` gives (``{column: measure}``).

    A score column's name as a score is :func:`ragas_score_name`'s; ``id_column``: the column
    of the queries' ids (neither a score nor a ``meta`` field then); ``repeated``: the columns of the repetitions
    (``repeats=``), neither a score nor a ``meta`` field of their own.

    Examples
    --------
    >>> from evalframe.sources.frame import read_table
    >>> table = read_table([{"question": "q", "contexts": ["c"], "answer": "a", "ground_truth": "a", "faithfulness": 1}])
    >>> mapping, _ = ragas_mapping(table)
    >>> mapping.question, mapping.retrieved_texts, mapping.gold_answers, mapping.scores
    ('question', 'contexts', 'ground_truth', ('faithfulness',))
    """
    columns = set(table.columns)
    chosen: dict[str, str] = {}
    for column, field in RAGAS_COLUMNS.items():
        if column in columns:
            chosen[field] = column
    for old, new in OLDER_NAMES.items():
        field = RAGAS_COLUMNS[new]
        if old in columns and field not in chosen:
            chosen[field] = old
    if "question" not in chosen:
        raise EvalframeError(f"{table.name} has no column 'user_input' (Ragas' question; 'question' before Ragas 0.2); "
                             f"its columns are {few_names(table.columns, 20)}.")
    if id_column is not None:
        if not isinstance(id_column, str) or id_column not in columns:
            raise InvalidParameterError(f"id_column={id_column!r} names no column of {table.name}; its columns are "
                                        f"{few_names(table.columns, 20)}.{did_you_mean(str(id_column), table.columns)}",
                                        parameter="id_column")
    not_scores = _NOT_SCORES | ({id_column} if id_column is not None else set()) | set(repeated)
    declared: dict[str, Any] = {}
    cells = {c: _cells(table, c) for c in table.columns if c not in not_scores}
    named_meta = list(meta) if isinstance(meta, Sequence) and not isinstance(meta, str) else []
    # a column the caller names by its score's name (factual_correctness_mode_f1) is the file's
    # factual_correctness(mode=f1)
    if scores is None:  # a column of numbers (or their text) not named like an id, or a Ragas metric's, is a score
        score_columns = extra_scores(cells, named_meta, _ragas_score)
    elif isinstance(scores, Mapping):
        score_columns = [source_name(column, table.columns) for column in scores]
        declared = {source_name(column, table.columns): measure for column, measure in scores.items()
                    if measure is not None}
    elif isinstance(scores, str) or not isinstance(scores, Sequence):
        raise InvalidParameterError(f"scores must be None (every column of numbers), a list of columns or a dict "
                                    f"column -> score_measure; got {scores!r}.", parameter="scores")
    else:
        score_columns = [source_name(column, table.columns) for column in scores]
    for column in score_columns:
        if column in repeated:
            raise InvalidParameterError(f"scores names {column!r}, a column of the repetitions of repeats=; name a "
                                        "column in one of them.", parameter="scores")
        if column not in columns:
            raise InvalidParameterError(f"scores names {column!r}, which is no column of {table.name}; its columns are "
                                        f"{few_names(table.columns, 20)}.", parameter="scores")
    if meta is None:
        meta_columns = extra_meta(cells, score_columns) + [c for c in _TESTSET_META if c in columns]
    elif isinstance(meta, str) or not isinstance(meta, Sequence):
        raise InvalidParameterError(f"meta must be a list of columns; got {meta!r}.", parameter="meta")
    else:
        meta_columns = list(meta)
        clash = [c for c in meta_columns if c in repeated]
        if clash:
            raise InvalidParameterError(f"meta names {clash[0]!r}, a column of the repetitions of repeats=; name a "
                                        "column in one of them.", parameter="meta")
        unknown = [c for c in meta_columns if c not in columns]
        if unknown:
            raise InvalidParameterError(f"meta names {unknown[0]!r}, which is no column of {table.name}.",
                                        parameter="meta")
    source = "from_ragas" if table.name == "dataset_or_path" else table.name  # a file by its path
    if scores is None:
        warn_left_out(source, {c: cells[c] for c in cells if c not in named_meta}, score_columns, meta_columns)
    names = {column: ragas_score_name(column) for column in score_columns}
    check_apart(names, noun="columns", way_out="keep one in scores=[...], or name the other in meta=[...]")
    mapping = ColumnMapping(
        question=chosen["question"], retrieved_ids=chosen.get("retrieved_ids"),
        retrieved_texts=chosen.get("retrieved_texts"), answer=chosen.get("answer"), gold_ids=chosen.get("gold_ids"),
        gold_contexts=chosen.get("gold_contexts"), gold_answers=chosen.get("gold_answers"),
        meta=meta_columns or None, scores=tuple(score_columns), gold_answer_text=chosen.get("gold_answers") in
        ("reference", "ground_truth"), score_names=names, query_id=id_column)
    return mapping, {names[column]: measure for column, measure in declared.items()}


def warn_numbered(source: str, columns: Sequence[str]) -> None:
    """One warning when score columns are numbered alike (``faithfulness_1``, ``faithfulness_2``): perhaps one judge
    run each, read as scores of their own unless ``repeats=`` names them (nothing is guessed from names).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_numbered("t.csv", ["faithfulness_1", "faithfulness_2", "latency"])
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    t.csv: the score columns 'faithfulness_1', 'faithfulness_2' are numbered alike: each is read as a score of its own; ...
    """
    stems: dict[str, list[str]] = {}
    for column in columns:
        stem, _, number = column.rpartition("_")
        if stem and number.isdigit():
            stems.setdefault(stem, []).append(column)
    numbered = {stem: found for stem, found in stems.items() if len(found) > 1}
    if numbered:
        stem, found = next(iter(numbered.items()))
        warn(f"{source}: the score columns {', '.join(map(repr, found))} are numbered alike: each is read as a score "
             f"of its own; if they are runs of one judge, name them as its repetitions: repeats={{{stem!r}: "
             f"{found!r}}} (docs/scores.md#repeated-judge-runs).")


def _cell_of(table: Table, column: str) -> Callable[[int], str]:
    """How errors name row ``i``'s cell of ``column``."""
    def cell(i: int) -> str:
        return f"{table.wheres[i]}, column {column!r}"

    return cell


def with_repetitions(table: Table, records: list[Record], repeated: Mapping[str, Sequence[str]]) -> list[Record]:
    """Each record with its repetitions of each score of ``repeated`` (``{score: [column per repetition]}``) as a
    list among its scores, every cell read by the rule of a score's value (one that is no number named by row and
    column)."""
    lists: dict[str, list[list[float]]] = {}
    for name, columns in repeated.items():
        read = [score_values(_cells(table, column), where=_cell_of(table, column), error=EvalframeError)
                for column in columns]
        lists[name] = np.column_stack(read).tolist()
    return [replace(record, scores={**(record.scores or {}), **{name: rows[i] for name, rows in lists.items()}})
            for i, record in enumerate(records)]


@collection_paused
@with_options(MatchingOptions)
def read_ragas(
    dataset_or_path: Any,
    *,
    scores: Sequence[str] | Mapping[str, Any] | None = None,
    meta: Sequence[str] | None = None,
    repeats: Mapping[str, Sequence[str]] | None = None,
    retriever: str = "Retriever",
    generator: str = "Generator",
    score_node: str | None = None,
    score_measures: Mapping[str, Any] | None = None,
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    id_column: str | None = None,
    duplicates: Literal["error", "first"] = "error",
    on_invalid: Literal["raise", "skip"] = "raise",
    storage_options: Mapping[str, Any] | None = None,
    **matching: Any,
) -> Built:
    """A result from a Ragas evaluation dataset, or the frame of a Ragas evaluation with its metric columns.

    Reads Ragas' single-turn columns ``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``,
    ``reference_contexts``, ``reference_context_ids``, ``response`` and ``reference`` (Ragas before 0.2:
    ``question``, ``contexts``, ``answer``, ``ground_truth`` / ``ground_truths``, read the same way) as
    :meth:`from_frame` does: the retrieved contexts are the ``retriever`` node's documents (matched by their ids
    when ``retrieved_context_ids`` and ``reference_context_ids`` are given, else by their text and by holding the
    reference answer), the response the ``generator`` node's answer, ``reference`` the gold answer (with no
    reference context: a label credited by the answer only; an empty reference without reference contexts: a
    no-answer question). Every other column of numbers (or their text, in at least half of its rows) is a score of
    ``score_node`` unless it is named like an id (``id``, ``sample_id``, ``sku``, ``year``, ...), and so is each
    metric column of ``ragas.evaluate(...).to_pandas()`` (``faithfulness``, ``answer_relevancy``,
    ``context_precision``, ...) whatever it holds: a cell of a score column that is no number (``"n/a"``, True,
    ``[0.5]``) is refused, naming its row and column (``docs/rag.md#which-columns-are-scores``); one named like an
    evalframe measure or column (Ragas' ``exact_match``) is kept as ``ragas_<name>``, and one named with its
    metric's mode, which a score's name cannot hold, under its name mended (``factual_correctness(mode=f1)`` as
    ``factual_correctness_mode_f1``: ``docs/rag.md#a-metrics-name-with-its-mode``; a warning names it; two columns
    mending to one name are refused). Every other column of texts
    (a ``topic``; a Ragas test set's ``persona_name``, ``query_style``, ``query_length``) is a field of the query's
    ``meta``, to slice by (``sliced_metrics("meta.topic")``), and so is a column named like an id and one of
    flags or objects (lists are left out); one warning names each column that gives no score, saying what it
    became and why.

    Parameters
    ----------
    dataset_or_path
        A Ragas ``EvaluationDataset`` or ``EvaluationResult`` (anything with ``to_pandas()``), a DataFrame, a list
        of sample dicts, or the path of a ``.jsonl`` (``to_jsonl``), ``.csv`` (``to_csv``), ``.parquet`` or
        ``.json`` (a list of samples) file.
    scores : list of str or dict, optional
        The score columns (default: every column of numbers that is not a sample field nor named like an id; a
        column named here is a score whatever its name; a column named with its mode by its own name or its mended
        one, ``factual_correctness_mode_f1``), or ``{column: score_measure(...)}`` to declare each one's direction
        and bounds.
    meta : list of str, optional
        Columns whose values become each query's ``meta`` fields (default: the other columns above; ``[]``: none);
        a column named here is never read as a score.
    repeats : dict, optional
        Repeated judge runs: ``{score: [column per repetition]}`` (``{"faithfulness": ["faithfulness_1",
        "faithfulness_2", "faithfulness_3"]}``): the score's k values per query, kept as its repetitions beside
        their mean (``docs/scores.md#repeated-judge-runs``); each cell read by the rule of a score's value (NaN:
        no value), the columns neither scores nor ``meta`` fields of their own. Nothing is guessed from names.
    id_column : str, optional
        A column of the samples' ids (a test set asking one question about two products): each is its query's
        ``multilabel_id``, so the same question under two ids is two queries (neither a score nor a meta field).
        None (default): a question is identified by its text, and a question twice is refused (the message names
        a column called ``id``, ``sample_id``, ``question_id``, ``query_id`` or ``qid`` when there is one; it is
        not taken on its own, as that would change how every such dataset's queries are identified and paired).
    retriever, generator, score_node, score_measures, sas_model, progress, duplicates, on_invalid,
    context_matching_threshold, context_matching_min_length, context_matching_boost_split_overlaps,
    custom_document_id_field
        As :meth:`from_frame` (a retrieved context without an id is named by its text: the same passage twice
        is a duplicate).

    storage_options : dict, optional
        The filesystem's options for a file given as a URL (``s3://bucket/eval.jsonl``; ``docs/storage.md``).

    Returns
    -------
    Built
        What the dataset built (``EvaluationResult.from_ragas`` returns the result made of it).

    Raises
    ------
    EvalframeError
        A sample field of the wrong kind, naming ``file:line`` (JSON Lines, CSV: the line the row starts on),
        ``file, row N`` (Parquet, JSON) or ``row N``, and the column.

    Examples
    --------
    >>> from evalframe import EvaluationResult
    >>> samples = [{"user_input": "Capital of Germany?", "retrieved_contexts": ["Bonn.", "Berlin."],
    ...             "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"],
    ...             "response": "Berlin", "reference": "Berlin", "faithfulness": 1.0},
    ...            {"user_input": "Who won the 2030 World Cup?", "retrieved_contexts": ["Paris."],
    ...             "retrieved_context_ids": ["d3"], "reference_context_ids": [], "response": "",
    ...             "reference": "", "faithfulness": 0.5}]
    >>> result = EvaluationResult.from_ragas(samples, progress=False)
    >>> metrics = result.calculate_metrics()
    >>> metrics["Retriever"]["mrr"], metrics["Generator"]["exact_match"]  # (1/2 + 1) / 2: no-answer scores 1
    (0.75, 1.0)
    >>> metrics["Generator"]["faithfulness"]  # the judge's score: (1.0 + 0.5) / 2
    0.75
    """
    dataset_or_path = remote_or_value(dataset_or_path, name='dataset_or_path', storage_options=storage_options)
    options = MatchingOptions.from_keywords(matching, passed_to="from_ragas takes these matching options")
    table = read_table(dataset_or_path, name="dataset_or_path")
    if not table.rows:
        raise EvalframeError(f"{table.name} holds no sample.")
    repeated = repeated_columns(table, repeats)
    mapping, declared = ragas_mapping(table, scores=scores, meta=meta, id_column=id_column,
                                      repeated=[column for columns in repeated.values() for column in columns])
    if repeats is None:
        warn_numbered("from_ragas" if table.name == "dataset_or_path" else table.name, mapping.scores)
    records = frame_records(table, mapping)  # (a score's cell that is no number refused first, named)
    if repeated:
        check_score_columns("from_ragas" if table.name == "dataset_or_path" else table.name, list(repeated))
        records = with_repetitions(table, records, repeated)
    check_score_columns("from_ragas" if table.name == "dataset_or_path" else table.name,
                        [column for column in mapping.scores if (mapping.score_names or {}).get(column) not in declared],
                        names=mapping.score_names)
    warn_mended("from_ragas" if table.name == "dataset_or_path" else table.name,
                {column: name for column, name in (mapping.score_names or {}).items() if name not in declared})
    measures = {**(dict(score_measures) if score_measures is not None else {}), **declared}
    fields = {"query": mapping.question, "retrieved": mapping.retrieved_texts or mapping.retrieved_ids or "retrieved",
              "answer": mapping.answer or "response", "gold_ids": mapping.gold_ids or "reference_context_ids",
              "gold_contexts": mapping.gold_contexts or "reference_contexts",
              "gold_answers": mapping.gold_answers or "reference"}
    return build(records, retriever=retriever, generator=generator, score_node=score_node,
                 score_measures=measures or None, sas_model=sas_model, progress=progress, fields=fields,
                 duplicates=duplicates, on_invalid=on_invalid, key_hint="" if id_column else id_hint(table),
                 source=table.name, **options.as_dict())
