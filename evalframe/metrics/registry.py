"""What each metric is: one :class:`Metric` spec per metric, the single source of its definition.

A spec holds the metric's name, level (``"document"`` or ``"answer"``), whether it is its level's
headline metric, its bounds, its formula and edge rule as text, and its kernel (:mod:`.kernels`).
``docs/metrics.md``'s table of metrics, ``evalframe list-metrics``, the report's definitions of the metrics it shows
and the common test over every registered metric (``tests/metrics/test_common.py``) are generated from these specs.

Document kernels are functions of per-query counts (:class:`~evalframe.metrics.kernels.DocumentCounts`),
written for queries that have gold documents and a hit; the two edge cases (no gold, no hit) are set
by an :class:`~evalframe.metrics.kernels.EdgePolicy` (``docs/metrics.md#per-query``).

Run ``python scripts/make_metrics_table.py`` to rewrite the table in ``docs/metrics.md`` after editing a spec.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError
from . import kernels
from .kernels import HAYSTACK_EDGE_POLICY, ZERO_EDGE_POLICY, DocumentCounts, EdgePolicy

__all__ = [
    "Metric",
    "LEVELS",
    "DOCUMENT_METRICS",
    "ANSWER_METRICS",
    "METRICS",
    "EVALUATOR_METRICS",
    "SYMBOLS",
    "headline_metric",
    "format_bounds",
    "metrics_table_markdown",
    "update_metrics_table",
    "TABLE_START",
    "TABLE_END",
]

#: The levels a metric is computed at: the rows it reads.
LEVELS = ("answer", "document")


@dataclass(frozen=True)
class Metric:
    """The definition of one metric.

    Attributes
    ----------
    name : the metric's key in ``calculate_metrics`` and ``query_metrics``.
    level : ``"document"`` (from a node's document rows) or ``"answer"`` (from its answer rows).
    description : one line, as ``evalframe list-metrics`` prints it.
    formula : the per-query value as markdown (the symbols are :data:`SYMBOLS`, ``docs/metrics.md#per-query``).
    edge : what a query outside the formula's domain scores, as markdown.
    bounds : ``(low, high)`` every per-query value lies in, or None when the metric is not bounded.
    bounds_note : when the bounds hold, or why there are none.
    headline : whether this is the headline metric of its level (reports, plots and the CLI sum a node up by it).
    kernel : the formula (:mod:`.kernels`); a document kernel takes the :class:`DocumentCounts` fields named by
        ``inputs``, an answer kernel is :func:`~evalframe.metrics.kernels.best_per_query`.
    inputs : the :class:`DocumentCounts` fields the kernel reads, in order (document metrics only).
    policy : the edge policy the metric is reported with (document metrics only).
    """

    name: str
    level: str
    description: str
    formula: str
    edge: str
    bounds: tuple[float, float] | None
    bounds_note: str = ""
    headline: bool = False
    kernel: Callable[..., np.ndarray] = kernels.best_per_query
    inputs: tuple[str, ...] = ()
    policy: EdgePolicy | None = None

    def values(self, counts: DocumentCounts, policy: EdgePolicy | None = None) -> np.ndarray:
        """Per-query values of a document metric from ``counts``, edge policy applied (default: the spec's).

        Examples
        --------
        >>> import numpy as np
        >>> from evalframe.metrics.kernels import document_counts
        >>> counts = document_counts(row_query=np.array([0]), rank=np.array([2.0]), kept=np.array([True]),
        ...     relevant=np.array([True]), doc_group=np.array([0]), doc_group_query=np.array([0]), pair_row=np.array([0]),
        ...     pair_group=np.array([0]), pair_group_query=np.array([0]), pair_matched=np.array([True]), n_gold=np.array([1]))
        >>> DOCUMENT_METRICS["mrr"].values(counts).tolist()
        [0.5]
        """
        if self.level != "document":
            raise InvalidParameterError(
                f"metric {self.name!r} is an {self.level} metric; values(counts) computes document metrics only.")
        policy = policy or self.policy or HAYSTACK_EDGE_POLICY
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = self.kernel(*(getattr(counts, field) for field in self.inputs))
        return kernels.apply_edge_policy(raw, n_gold=counts.n_gold, n_hits=counts.n_relevant_rows, policy=policy)


def _edge_rule(policy: EdgePolicy, hit: str = "relevant row") -> str:
    """A document metric's edge rule as text, from its policy."""
    return f"no gold (L = 0): **{policy.no_gold:.1f}**; no {hit}: **{policy.no_hit:.1f}**"


#: The symbols of the document formulas, per query (``docs/metrics.md#per-query`` has the details).
SYMBOLS: dict[str, str] = {
    "L": "the number of the query's gold documents",
    "R": "the retrieved rows that are relevant under the relevance criterion",
    "M": "the number of distinct gold documents matched by the rows of R",
    "num_relevants": "the number of distinct document ids in R + (L − M)",
}

_HAYSTACK_EDGE = _edge_rule(HAYSTACK_EDGE_POLICY)
_ANSWER_EDGE = "no remaining answer row: **0.0**; every remaining row without a value: NaN"

DOCUMENT_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("recall_multi_hit", "document", "Share of a query's gold documents found among the relevant rows.",
               "M / L", _HAYSTACK_EDGE, (0.0, 1.0), "when M ≤ L: no match list indexes a `\"00\"` gold entry",
               kernel=kernels.recall_multi_hit, inputs=("matched", "n_gold"), policy=HAYSTACK_EDGE_POLICY),
        Metric("recall_single_hit", "document", "1 if at least one relevant document was retrieved.",
               "1", _HAYSTACK_EDGE, (0.0, 1.0), headline=True,
               kernel=kernels.recall_single_hit, inputs=("n_gold",), policy=HAYSTACK_EDGE_POLICY),
        Metric("precision", "document", "Relevant rows / retrieved rows.",
               "\\|R\\| / number of rows of the query", _HAYSTACK_EDGE, (0.0, 1.0),
               kernel=kernels.precision, inputs=("n_relevant_rows", "n_rows"), policy=HAYSTACK_EDGE_POLICY),
        Metric("map", "document", "Average precision at each relevant rank, over the number of relevant documents.",
               "(Σ over r in R of \\|{r' in R : rank(r') ≤ rank(r)}\\| / rank(r)) / num_relevants", _HAYSTACK_EDGE, None,
               "exceeds 1 when a relevant document is retrieved twice",
               kernel=kernels.map, inputs=("precision_sum", "num_relevants"), policy=HAYSTACK_EDGE_POLICY),
        Metric("mrr", "document", "Reciprocal rank of the first relevant document.",
               "1 / min rank over R", _HAYSTACK_EDGE, (0.0, 1.0), "for ranks ≥ 1",
               kernel=kernels.mrr, inputs=("min_rank",), policy=HAYSTACK_EDGE_POLICY),
        Metric("ndcg", "document", "DCG of the relevant ranks over the ideal DCG (binary relevance).",
               "(Σ over r in R of 1 / log2(rank(r) + 1)) / (Σ_{i=1..num_relevants} 1 / log2(i + 1))", _HAYSTACK_EDGE, None,
               "exceeds 1 when a relevant document is retrieved twice",
               kernel=kernels.ndcg, inputs=("dcg", "ideal_dcg"), policy=HAYSTACK_EDGE_POLICY),
    )
}

#: Kernels of other frameworks' evaluators that are not EvaluationResult metrics (docs/evaluators.md).
EVALUATOR_METRICS: dict[str, Metric] = {
    "recall_all": Metric("recall_all", "document", "1 if every gold document was retrieved (evaluators only).",
                         "1 if M = L else 0", _edge_rule(ZERO_EDGE_POLICY, "gold found"), (0.0, 1.0),
                         kernel=kernels.recall_all, inputs=("matched", "n_gold"), policy=ZERO_EDGE_POLICY),
}

ANSWER_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("exact_match", "answer", "1 if the best answer equals a gold answer after SQuAD normalisation.",
               "max over the query's remaining answer rows of `exact_match`", _ANSWER_EDGE, (0.0, 1.0)),
        Metric("f1", "answer", "Best token-overlap F1 between an answer and a gold answer.",
               "max over the query's remaining answer rows of `f1`", _ANSWER_EDGE, (0.0, 1.0), headline=True),
        Metric("sas", "answer", "Best semantic answer similarity (needs a SAS model at build time).",
               "max over the query's remaining answer rows of `sas`", _ANSWER_EDGE, None,
               "the SAS model's score: a cosine similarity or a cross-encoder's output, not clipped"),
    )
}

#: Every EvaluationResult metric, answer metrics first.
METRICS: dict[str, Metric] = {**ANSWER_METRICS, **DOCUMENT_METRICS}


def headline_metric(level: str) -> str:
    """The headline metric of a level: ``"f1"`` for answer rows, ``"recall_single_hit"`` for document rows.

    Reports, plots and the CLI sum a node up by the headline metric of its answer rows if it has any,
    else of its document rows.

    Examples
    --------
    >>> headline_metric("answer"), headline_metric("document")
    ('f1', 'recall_single_hit')
    """
    if level not in LEVELS:
        raise InvalidParameterError(f"level must be one of {list(LEVELS)}; got {level!r}.")
    return next(m.name for m in METRICS.values() if m.level == level and m.headline)


def format_bounds(metric: Metric, *, note: bool = False) -> str:
    """The bounds as text: ``"[0, 1]"``, or ``"unbounded"``; with ``note``, followed by the bounds note in parentheses.

    Examples
    --------
    >>> format_bounds(METRICS["f1"]), format_bounds(METRICS["map"])
    ('[0, 1]', 'unbounded')
    """
    if metric.bounds is None:
        text = "unbounded"
    else:
        low, high = metric.bounds
        text = f"[{low:g}, {high:g}]"
    return text + (f" ({metric.bounds_note})" if note and metric.bounds_note else "")


def metrics_table_markdown() -> str:
    """The table of metrics in ``docs/metrics.md``, generated from the specs (answer, document, evaluator-only).

    Examples
    --------
    >>> print(metrics_table_markdown().splitlines()[0])
    | metric | level | per-query value | edge rule | bounds | headline |
    """
    lines = ["| metric | level | per-query value | edge rule | bounds | headline |", "|---|---|---|---|---|---|"]
    for metric in (*ANSWER_METRICS.values(), *DOCUMENT_METRICS.values(), *EVALUATOR_METRICS.values()):
        bounds = format_bounds(metric, note=True)
        lines.append(f"| `{metric.name}` | {metric.level} | {metric.formula} | {metric.edge} | {bounds} | "
                     f"{'yes' if metric.headline else ''} |")
    return "\n".join(lines)


TABLE_START = "<!-- metrics-table:start (generated by `python scripts/make_metrics_table.py`; do not edit) -->"
TABLE_END = "<!-- metrics-table:end -->"
_TABLE = re.compile(re.escape(TABLE_START) + r"\n.*?" + re.escape(TABLE_END), re.DOTALL)


def update_metrics_table(text: str) -> str:
    """``text`` (docs/metrics.md) with the part between the table markers replaced by :func:`metrics_table_markdown`."""
    if not _TABLE.search(text):
        raise InvalidParameterError(
            f"the text holds no metrics table between {TABLE_START!r} and {TABLE_END!r}; add the two markers.")
    return _TABLE.sub(lambda _: f"{TABLE_START}\n{metrics_table_markdown()}\n{TABLE_END}", text, count=1)
