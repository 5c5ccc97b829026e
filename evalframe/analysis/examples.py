"""The queries a person should read: the worst queries of a node, and wrong_examples-shaped dicts.

:func:`worst_examples` and :func:`examples_of` are the bodies of ``EvaluationResult.wrong_examples`` and
``query_examples``, whose docstrings are theirs (``result`` is the result, ``options`` the metric options as passed;
:class:`evalframe.analysis.protocol.ExampleSource` says what they read of it): they rank a node's per-query table by a
metric's direction (:func:`worst`) and list each query's rows (:func:`examples`).
:class:`evalframe.dask.DaskEvaluationResult` runs them on each partition's result and merges what the partitions
list. :class:`Examples` prints them for a person.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, SupportsIndex, overload

import pandas as pd

from .. import _validation as check
from ..columns import EVAL_MODES
from ..errors import EvalframeError, InvalidParameterError, SchemaError
from ..metrics.registry import ANSWER_METRICS, DOCUMENT_METRICS
from ..metrics.trec import direction_of, parse_measure, without_direction
from .protocol import ExampleSource

__all__ = ["ANSWER_DROP", "DOCUMENT_DROP", "NO_ANSWER", "NO_ROWS_FOR_METRIC", "Examples",
           "worst", "examples", "worst_examples", "examples_of", "with_measures"]

#: What wrong_examples(metric=...) says of a node without the rows the metric lists (evalframe.dask skips such parts).
NO_ROWS_FOR_METRIC = "has none of"

#: Columns left out of each listed answer / document row (they are the query's, listed once; ``meta`` parsed).
ANSWER_DROP = ("node", "query", "type", "gold_answers", "gold_offsets_in_documents", "gold_document_ids", "meta")
DOCUMENT_DROP = ("node", "query", "multilabel_id", "filters", "type", "gold_document_ids", "gold_contexts", "meta")


def parsed_meta(value: Any, multilabel_id: Any) -> dict[str, Any]:
    """A query's ``meta`` cell as the dict it holds: JSON text (as saved) or a dict; ``{}`` for none."""
    if isinstance(value, dict):
        return value
    if value is None or (isinstance(value, float) and value != value):
        return {}
    try:
        meta = json.loads(value)
    except (TypeError, ValueError):
        meta = None
    if not isinstance(meta, dict):
        raise SchemaError(f"column 'meta' holds {value!r:.80} for multilabel_id {multilabel_id!r}, which is not the JSON "
                          "text of an object; meta cells are JSON objects such as '{\"topic\": \"billing\"}' (or empty).")
    return meta


def _looks_like_measure(name: str, parameter: str, choices: Sequence[str]) -> bool:
    """Whether ``name`` is a trec_eval measure (ir_measures' names) rather than one of ``choices``; neither: an error."""
    if name in ANSWER_METRICS or name in DOCUMENT_METRICS:
        return False
    try:
        parse_measure(name)
    except EvalframeError as error:
        try:
            check.check_choice(name, tuple(choices), name=parameter)
        except InvalidParameterError as not_a_metric:
            raise InvalidParameterError(f"{not_a_metric} Nor is it a trec_eval measure: {error}",
                                        parameter=parameter) from None
    return True


def with_measures(result: ExampleSource, table: pd.DataFrame, node: str, measures: str | Sequence[str] | None,
                  eval_mode: str, complete: bool = False, duplicates: str = "error") -> pd.DataFrame:
    """``table`` (a per-query table of ``node``) with a column per trec_eval measure it lacks
    (``result.trec_query_metrics``; NaN for the queries trec_eval skips: docs/ir-researchers.md).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> table = result.query_table("Retriever", "document")
    >>> list(with_measures(result, table, "Retriever", ["RR"], "integrated", duplicates="first").columns)[-2:]
    ['ndcg', 'RR']
    """
    if measures is None:
        return table
    values = result.trec_query_metrics(measures, node=node, eval_mode=eval_mode, complete=complete,
                                       duplicates=duplicates)
    return table.join(values[[c for c in values.columns if c not in table.columns]])


def worst_examples(result: ExampleSource, node: str, n: int, document_metric: str, answer_metric: str,
                   document_metric_threshold: float, answer_metric_threshold: float, metric: str | None,
                   threshold: float | None, complete: bool, duplicates: str, options: Mapping[str, Any]) -> Examples:
    """The ``n`` worst queries of a node, for a person to read (``docs/metrics.md``).

    ``metric`` names any measure of the node instead: a Haystack metric, a trec_eval measure or a declared score
    (``result.scores``); the queries are ranked worst first by its direction (:func:`evalframe.direction_of`: the
    lowest first when higher is better, the highest first when lower is, as for ``unj@10``; a count such as
    ``NumRet``, whose direction is ``"none"``, has no worst queries and is refused), queries without a value left
    out. ``threshold=None`` lists the ``n`` worst whatever their value; a number keeps those at or worse than it. An
    answer metric lists the answer rows, a document metric or measure the document rows, a score the answer rows
    of a node that has them (else its document rows); each query's ``metrics`` hold the node's scores too. The
    ``*_metric`` and ``*_threshold`` arguments are ignored then.

    Answer nodes are ranked by ``answer_metric``, document nodes by ``document_metric`` (a
    Haystack metric or a trec_eval measure such as ``"nDCG@10"``, see :meth:`trec_metrics`; queries
    trec_eval skips are not listed; ``complete`` and ``duplicates`` as in :meth:`trec_metrics`); ties keep
    first-appearance order, and only queries whose value is ``<=`` the threshold are returned (a measure where
    lower is better, ``unj@10``: the highest first, those ``>=`` the threshold; a count is refused). Each query
    is a dict with ``multilabel_id``, ``query``, ``filters``, ``meta`` (the query's meta as a dict, ``{}`` without),
    ``metrics``, ``answers`` or ``documents`` (all the query's rows of that eval_mode, in frame
    order) and the gold answers / document ids. The options are those of
    :class:`evalframe.options.MetricOptions`. The list is an
    :class:`evalframe.analysis.examples.Examples`: a plain list of these dicts that prints
    a few lines per query (and a table in a notebook).

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> worst = load_demo_result().wrong_examples("Retriever", n=2)
    >>> [example["metrics"]["recall_single_hit"] for example in worst]
    [0.0]
    """
    node = result.check_node(node)
    n = check.check_positive_int(n, name="n")
    if metric is not None:
        return _worst_by(result, node, n, metric, threshold, complete, duplicates, options)
    measure = None
    if isinstance(document_metric, str) and _looks_like_measure(document_metric, "document_metric", tuple(DOCUMENT_METRICS)):
        measure = document_metric = str(parse_measure(document_metric))
        if direction_of(measure) == "none":
            error = without_direction(measure, None, "no worst queries")
            error.parameter = "document_metric"
            raise error
    else:
        check.check_choice(document_metric, tuple(DOCUMENT_METRICS), name="document_metric")
    check.check_choice(answer_metric, tuple(ANSWER_METRICS), name="answer_metric")
    document_metric_threshold = check.check_number(document_metric_threshold, name="document_metric_threshold")
    answer_metric_threshold = check.check_number(answer_metric_threshold, name="answer_metric_threshold")
    opts = result.check_options(options, passed_to="wrong_examples takes these options")

    answers = result.query_table(node, "answer", **options)
    if answers is not None:
        if answer_metric not in answers.columns:
            raise InvalidParameterError(
                f"answer_metric must be one of {list(answers.columns)} for node {node!r}; got {answer_metric!r} "
                "(sas exists only when the result was built with a SAS model)."
            )
        rows = result.node_rows(node, "answer", opts.eval_mode)
        return worst(answers, answer_metric, answer_metric_threshold, n, rows, "answers", ANSWER_DROP)
    documents = result.query_table(node, "document", **options)
    if documents is not None:
        opts.warn_if_scopes_disagree()
        documents = with_measures(result, documents, node, measure, opts.eval_mode, complete, duplicates)
        rows = result.node_rows(node, "document", opts.eval_mode)
        return worst(documents, document_metric, document_metric_threshold, n, rows, "documents", DOCUMENT_DROP,
                     direction_of(document_metric))
    return Examples()


def _worst_by(result: ExampleSource, node: str, n: int, metric: str, threshold: float | None, complete: bool,
              duplicates: str, options: Mapping[str, Any]) -> Examples:
    """:func:`worst_examples` with ``metric=`` (any measure of the node, ranked by its direction)."""
    opts = result.check_options(options, passed_to="wrong_examples takes these options")
    threshold = None if threshold is None else check.check_number(threshold, name="threshold")
    scores = result.query_table(node, "score", **options)
    named = list(scores.columns) if scores is not None else []
    measure = None
    if not isinstance(metric, str):
        raise InvalidParameterError(f"metric must be a metric name (str); got {type(metric).__name__}.",
                                    parameter="metric")
    row_type: str | None
    if metric in named:
        row_type = None  # the answer rows of a node that has them in the eval_mode, else its document rows
    elif metric in ANSWER_METRICS:
        row_type = "answer"
    elif metric in DOCUMENT_METRICS:
        row_type = "document"
    elif _looks_like_measure(metric, "metric", [*ANSWER_METRICS, *DOCUMENT_METRICS, *named]):
        row_type, measure = "document", str(parse_measure(metric))
        metric = measure
    else:
        check.check_choice(metric, [*ANSWER_METRICS, *DOCUMENT_METRICS, *named], name="metric")
        raise AssertionError  # check_choice raised
    declared = result.declared_scores()
    direction = direction_of(metric, declared)
    if direction == "none":  # a count: no query is worse than another
        raise without_direction(metric, declared, "no worst queries")
    table = result.query_table(node, "answer", **options) if row_type in (None, "answer") else None
    if row_type is None:
        row_type = "answer" if table is not None else "document"
    if row_type == "document":
        table = result.query_table(node, "document", **options)
    if table is None:
        if scores is None or metric not in named:
            raise InvalidParameterError(f"metric {metric!r} needs {row_type} rows, which node {node!r} "
                                        f"{NO_ROWS_FOR_METRIC} in eval_mode {opts.eval_mode!r}.", parameter="metric")
        table = pd.DataFrame(index=scores.index)
    if row_type == "document":
        opts.warn_if_scopes_disagree()
        table = with_measures(result, table, node, measure, opts.eval_mode, complete, duplicates)
    if scores is not None:
        table = table.join(scores.reindex(table.index)) if len(table.columns) else scores.reindex(table.index)
    if metric not in table.columns:
        raise InvalidParameterError(f"metric must be one of {list(table.columns)} for node {node!r}; got {metric!r}.",
                                    parameter="metric")
    rows = result.node_rows(node, row_type, opts.eval_mode)
    table = table[table.index.isin(rows["multilabel_id"])]
    return worst(table, metric, threshold, n, rows, f"{row_type}s",
                 ANSWER_DROP if row_type == "answer" else DOCUMENT_DROP, direction)


def examples_of(result: ExampleSource, node: str, queries: pd.DataFrame, metric: str, eval_mode: str) -> Examples:
    """:meth:`wrong_examples`-shaped dicts for the queries of ``queries``, in its order.

    ``queries`` is a per-query table (index ``multilabel_id``; its columns become each dict's
    ``metrics``); the node's answer rows are listed when ``metric`` is an answer metric, else (a
    document metric or a trec_eval measure) its document rows.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> result = load_demo_result()
    >>> table = result.query_metrics("Reader").head(1)
    >>> [e["multilabel_id"] == table.index[0] for e in result.query_examples("Reader", table, metric="f1")]
    [True]
    """
    node = result.check_node(node)
    if not (isinstance(metric, str) and _looks_like_measure(metric, "metric", [*ANSWER_METRICS, *DOCUMENT_METRICS])):
        check.check_choice(metric, tuple(ANSWER_METRICS) + tuple(DOCUMENT_METRICS), name="metric")
    eval_mode = check.check_choice(eval_mode, EVAL_MODES, name="eval_mode")
    row_type = "answer" if metric in ANSWER_METRICS else "document"
    if not isinstance(queries, pd.DataFrame):
        raise InvalidParameterError(f"queries must be a per-query DataFrame indexed by multilabel_id (e.g. a slice of "
                                    f"result.query_metrics({node!r})); got {type(queries).__name__}.")
    rows = result.node_rows(node, row_type, eval_mode)
    unknown = queries.index[~queries.index.isin(rows["multilabel_id"])]
    if len(unknown):
        raise InvalidParameterError(
            f"queries holds {len(unknown)} multilabel_id(s) without {row_type} rows of node {node!r} in eval_mode "
            f"{eval_mode!r} (e.g. {unknown[0]!r}); metric={metric!r} lists the node's {row_type} rows, so pass "
            f"queries of result.query_metrics({node!r}) and one of its metrics."
        )
    numeric = [c for c in queries.columns if not pd.api.types.is_numeric_dtype(queries[c])]
    if numeric:
        raise InvalidParameterError(f"queries' columns become each query's metrics and must be numeric; "
                                    f"{numeric[0]!r} is {queries[numeric[0]].dtype}. Drop the label columns first.")
    if row_type == "answer":
        return examples(queries, rows, "answers", ANSWER_DROP)
    return examples(queries, rows, "documents", DOCUMENT_DROP)


def worst(
    table: pd.DataFrame,
    metric: str,
    threshold: float | None,
    n: int,
    rows: pd.DataFrame,
    key: str,
    drop: tuple[str, ...],
    direction: str = "higher",
) -> Examples:
    """The ``n`` queries of ``table`` worst in ``metric`` (ties in table order; queries without a value left out):
    the lowest when higher is better (``direction``), the highest when lower is; with a ``threshold``, those at or
    worse than it (``<=``, or ``>=`` for lower-is-better). A metric without a direction (``"none"``: a count) has no
    worst queries: refused (the callers name the measure and what to pick instead, before any work)."""
    if direction not in ("higher", "lower"):
        raise InvalidParameterError(f"{metric} has direction {direction!r}: it has no worst queries; pick a measure "
                                    "where higher or lower is better.", parameter="metric")
    valued = table[table[metric].notna()]
    ranked = valued.sort_values(metric, kind="stable", ascending=direction == "higher").head(n)
    if threshold is not None:
        ranked = ranked[ranked[metric] <= threshold] if direction == "higher" else ranked[ranked[metric] >= threshold]
    return examples(ranked, rows, key, drop)


def examples(queries: pd.DataFrame, rows: pd.DataFrame, key: str, drop: tuple[str, ...]) -> Examples:
    """One wrong_examples dict per query of ``queries`` (a per-query table), in its order."""
    if len(queries) == 0:
        return Examples()
    selected = rows[rows["multilabel_id"].isin(queries.index)]
    listed = selected.drop(columns=[c for c in drop if c in selected.columns])
    groups = {qid: idx for qid, idx in selected.groupby("multilabel_id", sort=False).indices.items()}
    records = listed.to_dict(orient="records")
    out = Examples()
    for multilabel_id, values in queries.iterrows():
        positions = groups[multilabel_id]
        first = selected.iloc[positions[0]]
        example: dict[str, Any] = {
            "multilabel_id": multilabel_id,
            "query": first.get("query"),
            "filters": first.get("filters"),
            "meta": parsed_meta(first.get("meta"), multilabel_id),
            "metrics": {m: float(v) for m, v in values.items()},
            key: [records[p] for p in positions],
        }
        if key == "answers":
            example["gold_answers"] = first.get("gold_answers")
        example["gold_document_ids"] = first.get("gold_document_ids")
        out.append(example)
    return out


#: What the printed form shows: rows listed per query, and the width each line is cut to.
SHOWN_ROWS = 3
WIDTH = 100


def _cut(text: str, width: int = WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with a trailing ``…``."""
    text = str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _number(value: Any) -> str:
    try:
        return format(float(value), ".3g")
    except (TypeError, ValueError):
        return str(value)


def _metrics(metrics: Any) -> str:
    if not isinstance(metrics, dict):
        return ""
    return "  ".join(f"{name} {_number(value)}" for name, value in metrics.items())


def _gold(example: dict[str, Any]) -> str:
    parts = []
    if "gold_answers" in example:
        parts.append(f"answers {_quoted(example['gold_answers'])}")
    parts.append(f"documents {_plain(example.get('gold_document_ids'))}")
    return " | ".join(parts)


#: How a missing or empty answer reads, as in the report.
NO_ANSWER = "(no answer)"


def _answer(value: Any) -> str:
    """An answer as it reads: quoted, or (no answer) for an empty or missing one."""
    return NO_ANSWER if value is None or value == "" or (isinstance(value, float) and value != value) else repr(value)


def _quoted(values: Any) -> str:
    if values is None or isinstance(values, (float, str)):
        return _answer(values)
    return "[" + ", ".join(_answer(v) for v in values) + "]" if len(values) else "[]"


def _plain(values: Any) -> str:
    if values is None or isinstance(values, (float, str)):
        return repr(values)
    return "[" + ", ".join(str(v) for v in values) + "]"


def _row(row: dict[str, Any], kind: str) -> str:
    """One listed row: rank, the answer (and its documents) or the document id (its gold id match and passage)."""
    rank = row.get("rank")
    head = f"{int(rank)}." if isinstance(rank, (int, float)) and rank == rank else "-."
    if kind == "answers":
        scores = "  ".join(f"{m} {_number(row[m])}" for m in ("exact_match", "f1") if m in row)
        return f"{head} {_answer(row.get('answer'))}  {scores}  docs {_plain(row.get('document_ids'))}"
    document_id = row.get("document_id")
    shown = repr(document_id) if not isinstance(document_id, str) or document_id == "" else document_id
    match = "gold" if row.get("gold_id_match") == 1 else "    "
    return f"{head} {shown:<12} {match}  {row.get('context')!r}"


def _kind(example: dict[str, Any]) -> str:
    return "answers" if "answers" in example else "documents"


class Examples(list[dict[str, Any]]):
    """The list of wrong_examples dicts, printed for a person to read.

    A plain ``list`` in every other way (it equals the list of dicts, ``json.dumps`` and ``pickle`` take it);
    its ``repr`` gives a few lines per query (id, query text, metrics, gold, the first rows cut to a line)
    and, in a notebook, a compact table. Index it for the full dicts: ``examples[0]["answers"]``.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> worst = load_demo_result().wrong_examples("Reader", n=1)
    >>> isinstance(worst, list)
    True
    >>> worst  # doctest: +NORMALIZE_WHITESPACE
    1 query (a list of dicts; index it for all fields)
    [0] How tall is Mount Everest?  (c385ff700e6e9d9a78dc15ccad18f7d5)
        metrics   exact_match 0  f1 0
        gold      answers ['8,848.86 metres'] | documents [doc-everest]
        answers   1. (no answer)  exact_match 0  f1 0  docs []
    """

    @overload
    def __getitem__(self, index: SupportsIndex) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Examples: ...

    def __getitem__(self, index: SupportsIndex | slice) -> dict[str, Any] | Examples:
        """One query's dict; a slice (``worst[:2]``) is an Examples again, printed the same way."""
        if isinstance(index, slice):
            return Examples(super().__getitem__(index))
        return super().__getitem__(index)

    def _summary(self, example: dict[str, Any]) -> list[str]:
        kind = _kind(example)
        rows = example.get(kind) or []
        lines = [f"    metrics   {_metrics(example.get('metrics'))}"]
        if example.get("meta"):
            lines.append(f"    meta      {json.dumps(example['meta'], sort_keys=True, default=str)}")
        if "delta" in example:
            baseline = example.get("baseline") or {}
            lines.append(f"    delta     {_number(example['delta'])}  (baseline {_metrics(baseline.get('metrics'))})")
        lines.append(f"    gold      {_gold(example)}")
        for position, row in enumerate(rows[:SHOWN_ROWS]):
            label = kind if position == 0 else ""
            lines.append(f"    {label:<9} {_row(row, kind)}")
        if len(rows) > SHOWN_ROWS:
            lines.append(f"    {'':<9} … {len(rows) - SHOWN_ROWS} more (in [{kind!r}])")
        return lines

    def __repr__(self) -> str:
        if not self:
            return "0 queries (an empty list)"
        lines = [f"{len(self)} {'query' if len(self) == 1 else 'queries'} (a list of dicts; index it for all fields)"]
        for number, example in enumerate(self):
            if not isinstance(example, dict):
                lines.append(f"[{number}] {example!r}")
                continue
            lines.append(f"[{number}] {example.get('query')}  ({example.get('multilabel_id')})")
            lines += self._summary(example)
        return "\n".join(_cut(line, WIDTH) if not line.startswith("    ") else "    " + _cut(line[4:], WIDTH - 4)
                         for line in lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left'>{h}</th>" for h in ("#", "query", "metrics", "gold", "rows"))
        body = []
        for number, example in enumerate(self):
            if not isinstance(example, dict):
                body.append(f"<tr><td>{number}</td><td colspan='4'>{escape(_cut(repr(example)))}</td></tr>")
                continue
            kind = _kind(example)
            rows = example.get(kind) or []
            listed = [escape(_cut(_row(row, kind), 80)) for row in rows[:SHOWN_ROWS]]
            if len(rows) > SHOWN_ROWS:
                listed.append(f"… {len(rows) - SHOWN_ROWS} more")
            metrics = escape(_metrics(example.get("metrics")))
            if "delta" in example:
                metrics += f"<br>delta {escape(_number(example['delta']))}"
            body.append(
                f"<tr><td>{number}</td><td>{escape(_cut(str(example.get('query'))))}<br>"
                f"<small><code>{escape(str(example.get('multilabel_id')))}</code></small></td>"
                f"<td>{metrics}</td><td>{escape(_cut(_gold(example)))}</td>"
                f"<td style='text-align:left'>{'<br>'.join(listed)}</td></tr>"
            )
        caption = f"{len(self)} {'query' if len(self) == 1 else 'queries'} (a list of dicts; index it for all fields)"
        return (f"<table><caption style='text-align:left'>{escape(caption)}</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
