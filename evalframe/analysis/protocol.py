"""What the analyses and the presentation call on a result: the :class:`ResultLike` protocol.

:class:`evalframe.EvaluationResult` (in memory) and :class:`evalframe.dask.DaskEvaluationResult` (partitions on a
cluster) both satisfy it, so :mod:`evalframe.analysis` and :mod:`evalframe.present` take either without importing
them (the facade imports those stages; importing it back would close an import circle). The protocol is
runtime-checkable: ``isinstance(run, ResultLike)`` recognises a result by these members.

Examples
--------
>>> from evalframe import load_demo_result
>>> isinstance(load_demo_result(), ResultLike)
True
>>> import tempfile, evalframe.dask
>>> folder = load_demo_result().save(tempfile.mkdtemp() + "/demo", format="parquet", partitions=2, progress=False)
>>> on_dask = evalframe.dask.load(folder)
>>> isinstance(on_dask, ResultLike), on_dask.on_cluster, on_dask.nodes
(True, True, ['Retriever', 'Reader'])
>>> import pandas as pd
>>> isinstance(pd.DataFrame(), ResultLike)
False
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pandas as pd

from ..metrics.registry import Metric
from ..options import MetricOptions

__all__ = ["ResultLike", "ResultSource", "ExampleSource", "QueryTable"]


@runtime_checkable
class ResultLike(Protocol):
    """A result of one or more nodes, as the analyses and the presentation read it."""

    #: True: the per-query tables are Dask DataFrames, computed on a cluster (``query_metrics(..., compute=True)``
    #: gathers one as pandas); False: the result is in memory.
    on_cluster: bool

    @property
    def nodes(self) -> list[str]:
        """The node names, in order."""
        ...

    def has_answers(self, node: str) -> bool:
        """Whether ``node`` has answer rows."""
        ...

    def has_documents(self, node: str) -> bool:
        """Whether ``node`` has document rows."""
        ...

    def headline_metric(self, node: str) -> str:
        """The metric that sums ``node`` up."""
        ...

    def pipeline_order(self) -> list[str]:
        """The nodes in pipeline order (retrievers before readers)."""
        ...

    def calculate_metrics(self, **options: Any) -> dict[str, dict[str, float]]:
        """Mean metrics per node."""
        ...

    def sliced_metrics(self, by: Any, **options: Any) -> pd.DataFrame:
        """Mean metrics per slice of the queries."""
        ...

    def query_metrics(self, node: str, by: Any = None, **options: Any) -> pd.DataFrame:
        """One row per query, one column per metric."""
        ...

    def metrics_at_k(self, ks: Sequence[int] = ..., node: str | None = None, **options: Any) -> pd.DataFrame:
        """Metrics at each simulated top-k."""
        ...

    def trec_metrics(self, measures: str | Sequence[str], **options: Any) -> Any:
        """trec_eval's measures of a document node: ``{measure: mean}``."""
        ...

    def trec_query_metrics(self, measures: str | Sequence[str], **options: Any) -> Any:
        """trec_eval's measures of a document node per query (a DataFrame; on a cluster, a Dask DataFrame)."""
        ...

    def wrong_examples(self, node: str, n: int = ..., **options: Any) -> list[dict[str, Any]]:
        """The worst queries of ``node``."""
        ...

    def query_examples(self, node: str, queries: pd.DataFrame, *args: Any, **options: Any) -> list[dict[str, Any]]:
        """The rows of ``queries`` (a per-query table) as examples a person reads."""
        ...


class ResultSource(ResultLike, Protocol):
    """A :class:`ResultLike` whose node frames are read too (``result[node]``, ``node in result``,
    ``list(result)``) and that computes trec_eval measures: what the comparisons, the plots and the report type
    their result as. A typing aid only (not runtime-checkable: a result is recognised by :class:`ResultLike`).
    """

    def __getitem__(self, node: str) -> pd.DataFrame:
        """The frame of ``node``."""
        ...

    def __contains__(self, node: object) -> bool:
        """Whether the result holds ``node``."""
        ...

    def __iter__(self) -> Iterator[str]:
        """The node names."""
        ...

    def __len__(self) -> int:
        """The number of nodes."""
        ...

    def trec_metrics(self, *args: Any, **options: Any) -> Any:
        """trec_eval measures of a document node: ``{measure: mean}``."""
        ...

    def trec_query_metrics(self, *args: Any, **options: Any) -> Any:
        """trec_eval measures of a document node per query."""
        ...

    def no_answer_summary(self, **options: Any) -> pd.DataFrame:
        """Per document node: its queries, its no-answer queries, each document metric and its answerable-only value."""
        ...


class ExampleSource(Protocol):
    """What the worst-example ranking (:func:`evalframe.analysis.examples.worst_examples`,
    :func:`~evalframe.analysis.examples.examples_of`) reads of a result in memory (:class:`evalframe.EvaluationResult`;
    :class:`evalframe.dask.DaskEvaluationResult` runs it on each partition's). A typing aid only.
    """

    def check_node(self, node: str) -> str:
        """``node``, when the result holds it (else an error naming the nodes)."""
        ...

    def check_options(self, keywords: Mapping[str, Any], *, passed_to: str) -> MetricOptions:
        """The call's options, checked."""
        ...

    def declared_scores(self) -> dict[str, Metric]:
        """The declared scores (``result.scores``), checked."""
        ...

    def query_table(self, node: str, row_type: str, **options: Any) -> pd.DataFrame | None:
        """The per-query table of one row type (``"answer"``, ``"document"``, ``"score"``) of a node, or None."""
        ...

    def trec_query_metrics(self, measures: str | Sequence[str], *, node: str | None = None,
                           eval_mode: str = "integrated", complete: bool = False,
                           duplicates: str = "error") -> pd.DataFrame:
        """trec_eval's measures of a document node per query."""
        ...

    def node_rows(self, node: str, row_type: str, eval_mode: str = "integrated") -> pd.DataFrame:
        """The node frame's rows of one type and eval_mode, in frame order."""
        ...


@dataclass(frozen=True)
class QueryTable:
    """A run as its per-query table and the declarations of the scores in it: what a stored run is to
    :func:`evalframe.compare` and the gate (``History.get(ref).run(node)``).

    ``table`` has one row per query (index: the query id, multilabel_id or the TREC query id) and one column per
    measure or score; ``scores`` declares the judge scores among its columns (name -> :class:`Metric`, with their
    direction), so that a comparison knows which way each is better, as it knows of a result's ``result.scores``.
    A plain per-query DataFrame declares none. ``name`` is what the run is called where one is shown.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import compare, score_measure
    >>> table_a = pd.DataFrame({"faithfulness": [0.5, 0.75, 1.0]}, index=pd.Index(["q1", "q2", "q3"], name="multilabel_id"))
    >>> table_b = table_a + 0.25
    >>> judge = {"faithfulness": score_measure("faithfulness", direction="higher")}
    >>> compare(QueryTable(table_a, judge), QueryTable(table_b, judge))[["mean_a", "mean_b", "delta", "wins"]]
                  mean_a  mean_b  delta  wins
    metric
    faithfulness    0.75     1.0   0.25     3
    """

    table: pd.DataFrame
    scores: Mapping[str, Metric] = field(default_factory=dict)
    name: str | None = None
