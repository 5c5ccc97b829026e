"""What each metric is: one :class:`Metric` entry per metric in :data:`REGISTRY`, the single source of its definition.

Two families share the registry. *Haystack* metrics (``calculate_metrics``, ``query_metrics``) and the evaluators'
``recall_all`` read a node's rows under a relevance criterion; *trec_eval* measures (``trec_metrics``,
``evalframe trec``) read a ranking against graded judgments. An entry holds the metric's name and other names, its
parameters (a cutoff ``@k``: required, optional or none; a relevance level ``rel``), its level, whether it is its
level's headline metric, its bounds, its formula and edge rule as text, its kernel, its edge policy and its
aggregation over queries. ``docs/metrics.md``'s table of metrics, ``evalframe list-metrics``, the report's
definitions of the metrics it shows, the names :func:`evalframe.metrics.trec.parse_measure` accepts and the common
test over every entry (``tests/metrics/test_common.py``) are generated from these entries.

Haystack document kernels are functions of per-query counts (:class:`~evalframe.metrics.kernels.DocumentCounts`),
written for queries that have gold documents and a hit; the two edge cases (no gold, no hit) are set
by an :class:`~evalframe.metrics.kernels.EdgePolicy` (``docs/metrics.md#per-query``). trec_eval kernels
(:mod:`.trec_kernels`) are one pass over a node's rankings for every cutoff of a measure (``kernel``), then the
measure's values from its column (``finish``).

Adding a metric is one entry here and one kernel: a trec_eval-style measure such as ``hit_rate@k`` is an entry with
``family="trec"``, a table kernel (an existing one, ``count_table``, or a new one in :mod:`.trec_kernels`) and a finish;
a Haystack one is an entry with a formula of :class:`DocumentCounts` fields in :mod:`.kernels`. Everything else
(the names accepted, the docs table, ``list-metrics``, the common test) reads the entry. Run
``python scripts/make_metrics_table.py`` to rewrite the table in ``docs/metrics.md`` after editing an entry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..columns import COLUMN_ORDER, LIST_COLUMNS
from ..errors import InvalidParameterError
from . import cwl_kernels, diversity_kernels, kernels, trec_gain_kernels, trec_kernels, trec_set_kernels
from .kernels import HAYSTACK_EDGE_POLICY, ZERO_EDGE_POLICY, DocumentCounts, EdgePolicy

__all__ = [
    "Metric",
    "Param",
    "Name",
    "NAME_TOOLS",
    "TrecEvalName",
    "LEVELS",
    "FAMILIES",
    "CUTOFFS",
    "AGGREGATIONS",
    "REGISTRY",
    "DOCUMENT_METRICS",
    "ANSWER_METRICS",
    "METRICS",
    "EVALUATOR_METRICS",
    "TREC_MEASURES",
    "SYMBOLS",
    "TREC_SYMBOLS",
    "headline_metric",
    "SCORE_LEVELS",
    "DIRECTIONS",
    "TABLE_COUNTS",
    "SCORE_PREFIX",
    "score_measure",
    "DIRECTION_WORDS",
    "score_column",
    "format_bounds",
    "parameters",
    "other_names",
    "ranx_names",
    "metrics_table_markdown",
    "update_metrics_table",
    "measures_table_markdown",
    "update_measures_table",
    "TABLE_START",
    "TABLE_END",
    "MEASURES_TABLE_START",
    "MEASURES_TABLE_END",
]

#: The levels a metric is computed at: the rows it reads.
LEVELS = ("answer", "document")
#: The families of metrics: Haystack 1.x's EvaluationResult metrics, the other frameworks' evaluators' kernels
#: (docs/evaluators.md) and trec_eval's measures (docs/ir-researchers.md).
#: ``"score"``: scores computed elsewhere (a judge's faithfulness, latency), declared by :func:`score_measure` and held
#: by a result (``result.scores``), never listed in :data:`REGISTRY`.
FAMILIES = ("haystack", "evaluators", "trec", "score")
#: The levels of a score (family ``"score"``): one value per query, or one per row (averaged over the rows kept).
SCORE_LEVELS = ("query", "row")
#: Which way a measure is better: ``"higher"`` (recall, nDCG), ``"lower"`` (trec_eval's unjudged rate ``unj``, a
#: score such as latency) or ``"none"``: neither, for a count (``NumRet``, ``NumRel``), which then has no worst
#: queries, no wins and no losses. Every registry entry declares its own (:attr:`Metric.direction`), a score its own
#: (:func:`score_measure`); :func:`evalframe.direction_of` reads both.
DIRECTIONS = ("higher", "lower", "none")
#: The counts evalframe's metric tables hold beside the measures (``calculate_metrics``' ``num_examples_for_eval``,
#: the queries of ``sliced_metrics``' slices): no measure, their direction ``"none"`` (:func:`evalframe.direction_of`).
TABLE_COUNTS = ("num_examples_for_eval", "queries")
#: How each direction reads for a person: the "better" column of ``docs/metrics.md``, ``evalframe list-metrics``.
DIRECTION_WORDS = {"higher": "higher", "lower": "lower", "none": "neither"}
#: The prefix of a score's column in the node frames: ``scores.faithfulness``.
SCORE_PREFIX = "scores."
#: Whether a metric's name takes a cutoff ``@k``: it must, it may, or it does not.
CUTOFFS = ("required", "optional", "none")
#: The kinds of a measure parameter's value (:class:`Param`).
PARAM_KINDS = ("int", "float", "str", "bool", "gains")
#: What follows the dot in a trec_eval name (:class:`TrecEvalName`): nothing, cutoffs (``P.5,10``), a gain mapping
#: (``ndcg.1=3,2=9``) or the values of the measure's parameters in order (``set_F.0.5``, ``utility.1,-1,0,0``).
TREC_EVAL_PARAMS = ("none", "cutoffs", "gains", "values")
#: trec_eval's floor of a per-query value in a geometric mean (its MIN_GEO_MEAN: gm_map).
GEOMETRIC_MEAN_FLOOR = 1e-5


def _over_count(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    ratio = np.full(np.shape(sums), np.nan)
    np.divide(sums, counts, out=ratio, where=np.asarray(counts) > 0)
    return ratio


def _exp_over_count(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.exp(_over_count(sums, counts))


def _floored_log(values: Any) -> Any:
    return np.log(np.maximum(values, GEOMETRIC_MEAN_FLOOR))  # NaN (no value) stays NaN


def _sum_only(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.asarray(sums, dtype=np.float64)


def _mean_interval(low: float, high: float, n: int, value_a: float) -> tuple[float, float]:
    return low, high


def _sum_interval(low: float, high: float, n: int, value_a: float) -> tuple[float, float]:
    return n * low, n * high  # the sum of n differences is n times their mean


def _ratio_interval(low: float, high: float, n: int, value_a: float) -> tuple[float, float]:
    # the mean of the differences of the logs is log(b / a): b - a = a (e^x - 1), increasing in x
    return value_a * math.expm1(low), value_a * math.expm1(high)


@dataclass(frozen=True)
class Aggregation:
    """How a metric's per-query values become one number, through a sum and a count so that parts add up.

    Each query with a value (NaN: none) adds ``summand(value)`` to a sum (``summand`` None: the value itself) and 1 to a
    count; ``finish(sums, counts)`` turns arrays of sums and counts into the numbers. A result in memory sums one
    table, a result on Dask each partition's, added up on the client (:mod:`evalframe.analysis.aggregate`): the same
    definition either way.

    Examples
    --------
    >>> AGGREGATIONS["mean"](np.array([0.25, 1.0, np.nan])), AGGREGATIONS["sum"](np.array([0.25, 1.0]))
    (0.625, 1.25)
    """

    name: str
    finish: Callable[[np.ndarray, np.ndarray], np.ndarray]
    summand: Callable[[Any], Any] | None = None
    delta_interval: Callable[[float, float, int, float], tuple[float, float]] = _mean_interval

    def summands(self, values: Any) -> Any:
        """What each value adds to the sum (a numpy array or a pandas Series, which stays one)."""
        return values if self.summand is None else self.summand(values)

    def interval(self, low: float, high: float, n: int, value_a: float) -> tuple[float, float]:
        """The interval of the difference b - a of two runs' numbers from ``(low, high)``, an interval of the mean of
        their ``n`` paired queries' differences of summands (:meth:`summands`), ``value_a`` run a's number: the same
        for the mean, ``n`` times it for the sum, ``value_a (e^x - 1)`` at each end for the geometric mean (whose
        summands are logs: their mean difference is log(b / a)). Each is the image of the mean's interval under the
        one increasing map from that mean to b - a (given a), so it holds 0 exactly when the mean's interval does.

        Examples
        --------
        >>> AGGREGATIONS["sum"].interval(-0.5, 1.0, 4, 13.0), AGGREGATIONS["mean"].interval(-0.5, 1.0, 4, 0.3)
        ((-2.0, 4.0), (-0.5, 1.0))
        >>> [round(x, 12) for x in AGGREGATIONS["geometric_mean"].interval(0.0, math.log(2), 4, 0.25)]
        [0.0, 0.25]
        """
        return self.delta_interval(low, high, n, value_a)

    def __call__(self, values: Any) -> float:
        """The one number of ``values`` (a numpy array or pandas Series; NaN: no value)."""
        array = np.asarray(values, dtype=np.float64)
        total = np.array([float(np.nansum(self.summands(array)))])
        return float(self.finish(total, np.array([int(np.count_nonzero(~np.isnan(array)))]))[0])


#: How a metric's per-query values become one number, by name: the mean (every metric today), trec_eval's geometric
#: mean (gm_map: each value floored at :data:`GEOMETRIC_MEAN_FLOOR`, the exp of the mean of the logs) or the sum
#: (num_ret). NaN values are skipped; the mean of no value is NaN, the sum 0.
AGGREGATIONS: dict[str, Aggregation] = {
    "mean": Aggregation("mean", _over_count),
    "geometric_mean": Aggregation("geometric_mean", _exp_over_count, _floored_log, _ratio_interval),
    "sum": Aggregation("sum", _sum_only, delta_interval=_sum_interval),
}


@dataclass(frozen=True)
class Param:
    """A parameter of a measure, other than its cutoff and relevance level (``p`` of ``RBP(p=0.8)``).

    ``kind`` is one of :data:`PARAM_KINDS` (``"gains"``: a ``{grade: gain}`` mapping); ``default`` is its value when
    the name leaves it out (a name at its default is written without it); ``choices`` the allowed values, if few.
    A ``required`` parameter must be written (``RBP(rel=1)``, ``INSQ(max_rel=3)``): it is always in the name, and
    ``default`` is the value the examples write.

    Examples
    --------
    >>> Param("p", "float", 0.8, description="the persistence").default
    0.8
    """

    name: str
    kind: str
    default: Any
    choices: tuple[Any, ...] | None = None
    description: str = ""
    required: bool = False

    def __post_init__(self) -> None:
        if self.kind not in PARAM_KINDS:
            raise InvalidParameterError(f"parameter {self.name!r}: kind must be one of {list(PARAM_KINDS)}; got {self.kind!r}.")


#: The tools whose other names of a measure an entry lists (:class:`Name`).
NAME_TOOLS = ("ir_measures", "ranx")


@dataclass(frozen=True)
class Name:
    """Another name of a measure, ir_measures' (``MAP`` of ``AP``) or ranx's (``hit_rate`` of ``Success``), written
    in ir_measures' syntax (``Name(param=value)@k``), with the parameters it implies (``SetRelP`` is
    ``SetP(relative=True)``; ranx's ``ndcg_burges`` is ``nDCG(dcg='exp-log2')``).

    ``cutoff`` says when the name stands for this measure, if not as the entry's ``cutoff`` says: ``"required"``
    (only with ``@k``: ranx's ``precision@5`` is ``P@5``) or ``"none"`` (only without: ranx's ``precision``, the
    whole ranking's, is ``SetP``).

    Examples
    --------
    >>> Name("SetRelP", (("relative", True),)).implies
    (('relative', True),)
    >>> Name("precision", tool="ranx", cutoff="none").cutoff
    'none'
    """

    text: str
    implies: tuple[tuple[str, Any], ...] = ()
    tool: str = "ir_measures"
    cutoff: str | None = None

    def __post_init__(self) -> None:
        if self.tool not in NAME_TOOLS:
            raise InvalidParameterError(f"name {self.text!r}: tool must be one of {list(NAME_TOOLS)}; got {self.tool!r}.")
        if self.cutoff not in (None, "required", "none"):
            raise InvalidParameterError(f"name {self.text!r}: cutoff must be None, 'required' or 'none'; got "
                                        f"{self.cutoff!r}.")


@dataclass(frozen=True)
class TrecEvalName:
    """One of trec_eval's names of a measure: ``stem``, and what may follow it after a dot (``params``, one of
    :data:`TREC_EVAL_PARAMS`).

    * ``"cutoffs"``: ``P.5,10`` (one measure per cutoff; pytrec_eval's keys ``P_5``, ``P_10``); a bare stem in a list
      of measures stands for trec_eval's ``defaults`` (``-m P``: ``P_5`` ... ``P_1000``);
    * ``"gains"``: ``ndcg.1=3,2=9``, the measure's ``gains`` parameter;
    * ``"values"``: the values of ``values`` (parameter names, in trec_eval's order), ``set_F.0.5``;
    * ``"none"``: the stem alone.

    ``implies`` are parameters the name sets (``set_relative_P``: ``relative=True``); ``key_format`` how a cutoff is
    printed in trec_eval's key (``"{:d}"``: ``P_5``; ``"{:.2f}"``: ``iprec_at_recall_0.10``).

    Examples
    --------
    >>> TrecEvalName("iprec_at_recall", "cutoffs", key_format="{:.2f}").key(0.1)
    'iprec_at_recall_0.10'
    """

    stem: str
    params: str = "none"
    defaults: tuple[float, ...] = ()
    values: tuple[str, ...] = ()
    implies: tuple[tuple[str, Any], ...] = ()
    key_format: str = "{:d}"

    def __post_init__(self) -> None:
        if self.params not in TREC_EVAL_PARAMS:
            raise InvalidParameterError(f"trec_eval name {self.stem!r}: params must be one of {list(TREC_EVAL_PARAMS)}; "
                                        f"got {self.params!r}.")

    def key(self, cutoff: float | None = None) -> str:
        """trec_eval's (and pytrec_eval's) key of the measure at ``cutoff``: ``P_5``, ``map``."""
        if cutoff is None or self.params != "cutoffs":
            return self.stem
        return f"{self.stem}_{self.key_format.format(cutoff)}"


@dataclass(frozen=True)
class Metric:
    """The definition of one metric.

    Attributes
    ----------
    name : the metric's key in ``calculate_metrics`` and ``query_metrics``; for a trec_eval measure, its name in
        ir_measures' syntax without parameters (``P`` of ``P(rel=2)@5``).
    level : ``"document"`` (from a node's document rows) or ``"answer"`` (from its answer rows).
    description : one line, as ``evalframe list-metrics`` prints it.
    formula : the per-query value as markdown (the symbols are :data:`SYMBOLS`, ``docs/metrics.md#per-query``, and
        for trec_eval measures :data:`TREC_SYMBOLS`).
    edge : what a query outside the formula's domain scores, as markdown.
    bounds : ``(low, high)`` every per-query value lies in, or None when the metric is not bounded.
    bounds_note : when the bounds hold, or why there are none.
    headline : whether this is the headline metric of its level (reports, plots and the CLI sum a node up by it).
    kernel : the formula. Haystack (:mod:`.kernels`): a document kernel takes the :class:`DocumentCounts` fields
        named by ``inputs``, an answer kernel is :func:`~evalframe.metrics.kernels.best_per_query`. trec
        (:mod:`.trec_kernels`): a table kernel ``kernel(rows, level, cutoffs)``, shared by the measures of one pass.
    inputs : the :class:`DocumentCounts` fields the kernel reads, in order (Haystack document metrics only).
    policy : the edge policy the metric is reported with (document metrics). For a trec measure, the edge cases are
        the queries without a relevant document retrieved: ``no_gold`` is their value when the query has no relevant
        judgment (num_rel = 0), ``no_hit`` when it has some.
    family : one of :data:`FAMILIES`.
    trec_eval : trec_eval's names of a trec measure (:class:`TrecEvalName`: ``map``, ``map_cut.k``), the first of each
        kind the one its values are printed under; pytrec_eval's keys are derived from them (``map_cut_5``).
    synonyms : other names in ir_measures' syntax (:class:`Name`: ``MAP``; ``SetRelP``, implying ``relative=True``).
    params : the measure's parameters other than the cutoff and ``rel`` (:class:`Param`), in ir_measures' order.
    cutoff_kind : ``"int"`` (a rank, ``P@5``) or ``"float"`` (a recall level or a fraction of R, ``IPrec@0.1``).
    reference : the tool the tests check the measure against: ``"pytrec_eval"`` (trec_eval's C code),
        ``"trec_eval"`` (the trec_eval 10.0 binary, for what pytrec_eval, trec_eval 9.x, lacks or computes otherwise),
        ``"ir_measures"`` or ``"hand"`` (worked from the measure's paper).
    cutoff : whether the name takes a cutoff ``@k`` (one of :data:`CUTOFFS`).
    rel : whether the measure takes a relevance level ``(rel=N)`` (grade >= N is relevant); False for nDCG, whose
        gains are the grades, and for the Haystack metrics (their relevance is the criterion's).
    finish : trec measures: the values from the kernel's column, ``finish(column, cutoff, num_rel)``.
    check_params : trec measures whose parameters must hold together (``min_rel < max_rel``):
        ``check_params(values)``, every parameter's value by name, returns what is wrong (a sentence) or None.
    aggregation : how the per-query values become one number (a key of :data:`AGGREGATIONS`).
    direction : which way is better, one of :data:`DIRECTIONS`: ``"higher"``, ``"lower"`` (``unj``, a score such as
        latency) or ``"none"`` (a count); every entry says it (a keyword argument without default), and it is read
        through :func:`evalframe.direction_of`.
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
    family: str = "haystack"
    trec_eval: tuple[TrecEvalName, ...] = ()
    synonyms: tuple[Name, ...] = ()
    params: tuple[Param, ...] = ()
    cutoff_kind: str = "int"
    reference: str = ""
    cutoff: str = "none"
    rel: bool = False
    finish: Callable[..., np.ndarray] | None = None
    check_params: Callable[[dict[str, Any]], str | None] | None = None
    aggregation: str = "mean"
    direction: str = field(kw_only=True)  # no default: a new entry must say which way is better

    def __post_init__(self) -> None:
        levels = SCORE_LEVELS if self.family == "score" else LEVELS
        for attribute, value, choices in (("level", self.level, levels), ("family", self.family, FAMILIES),
                                          ("direction", self.direction, DIRECTIONS),
                                          ("cutoff", self.cutoff, CUTOFFS), ("aggregation", self.aggregation, AGGREGATIONS)):
            if value not in choices:
                raise InvalidParameterError(f"metric {self.name!r}: {attribute} must be one of {list(choices)}; got {value!r}.")
        if self.family == "trec" and self.finish is None:
            raise InvalidParameterError(f"measure {self.name!r}: a trec measure needs a finish.")
        if self.cutoff_kind not in ("int", "float"):
            raise InvalidParameterError(f"metric {self.name!r}: cutoff_kind must be 'int' or 'float'; got {self.cutoff_kind!r}.")

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
        if self.family == "trec":
            raise InvalidParameterError(f"{self.name!r} is a trec_eval measure; evalframe.metrics.trec.evaluate computes it.")
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

#: The symbols of the trec_eval measures' formulas, per query (``docs/ir-researchers.md#measures-and-trec_evals-rules``).
TREC_SYMBOLS: dict[str, str] = {
    "k": "the cutoff (the whole ranking without one)",
    "rel": "the relevance level: a document is relevant when its grade is at least rel (default 1)",
    "num_rel": "the number of the query's judged documents that are relevant",
    "num_nonrel": "the number of the query's judged documents that are not relevant (0 <= grade < rel)",
    "grade(d)": "the qrels grade of document d (0 when unjudged or below 0)",
    "rank(d)": "the position of a retrieved document d in the query's ranking, from 1",
}


def _trec_edge_rule(policy: EdgePolicy) -> str:
    """A trec measure's edge rule as text, from its policy."""
    return (f"no relevant judgment (num_rel = 0): **{policy.no_gold:.1f}**; no relevant document retrieved: "
            f"**{policy.no_hit:.1f}**; a query without judgments is not evaluated")


_HAYSTACK_EDGE = _edge_rule(HAYSTACK_EDGE_POLICY)
_ANSWER_EDGE = "no remaining answer row: **0.0**; every remaining row without a value: NaN"


def trec_measure(name: str, description: str, formula: str, *, kernel: Callable[..., np.ndarray],
                 finish: Callable[..., np.ndarray] = trec_kernels.as_is, trec_eval: tuple[TrecEvalName, ...] = (),
                 synonyms: tuple[Name, ...] = (), params: tuple[Param, ...] = (), cutoff: str = "none",
                 cutoff_kind: str = "int", rel: bool = True, bounds: tuple[float, float] | None = (0.0, 1.0),
                 bounds_note: str = "", policy: EdgePolicy | None = ZERO_EDGE_POLICY, edge: str | None = None,
                 aggregation: str = "mean", reference: str = "pytrec_eval",
                 check_params: Callable[[dict[str, Any]], str | None] | None = None, direction: str) -> Metric:
    """A trec_eval measure's entry: a document metric of the trec family, its edge rule written from its policy
    (or ``edge``, for a measure whose kernel gives its final values: ``policy=None``); ``direction`` (no default)
    says which way is better, one of :data:`DIRECTIONS`."""
    if edge is None:
        edge = _trec_edge_rule(policy) if policy is not None else "a query without judgments is not evaluated"
    return Metric(name, "document", description, formula, edge, bounds, bounds_note, kernel=kernel, policy=policy,
                  family="trec", trec_eval=trec_eval, synonyms=synonyms, params=params, cutoff=cutoff,
                  cutoff_kind=cutoff_kind, rel=rel, finish=finish, check_params=check_params, aggregation=aggregation,
                  reference=reference, direction=direction)


#: ir_measures' ``judged_only`` (pytrec_eval's judged_docs_only_flag, trec_eval -J): the unjudged documents removed
#: from the ranking before the measure is computed. :func:`evalframe.metrics.trec.evaluate` applies it to any entry
#: declaring it.
JUDGED_ONLY = Param("judged_only", "bool", False, description="rank the judged documents only (trec_eval -J)")

#: A gain mapping ``{grade: gain}`` (trec_eval's ``ndcg.1=3,2=9``, ir_measures' ``nDCG(gains={1:3,2:9})``): a grade it
#: leaves out gains its own value, an unjudged document or a grade < 0 gains 0.
GAINS = Param("gains", "gains", (), description="{grade: gain}; a grade left out gains its own value")
#: ir_measures' nDCG ``dcg``: trec_eval's gain / log2(rank + 1), or gdeval's (2^gain - 1) / log2(rank + 1).
DCG = Param("dcg", "str", "log2", ("log2", "exp-log2"), description="the gain of a document: its grade (log2) or "
            "2^grade - 1 (exp-log2, gdeval's)")
#: trec_eval's rbp and rbp_resid persistence (their default 0.9; ir_measures' RBP's is 0.8).
TREC_RBP_P = Param("p", "float", 0.9, description="the persistence: the chance a user reads on")
_GAIN_EDGE = ("no document of non-zero gain retrieved: **0.0**; a query without judgments is not evaluated")

#: trec_eval's default cutoffs of P, recall, map_cut, ndcg_cut, success and relative_P (``-m P``: P_5 ... P_1000).
TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: The edge rules of the measures whose kernels give final values (trec_set_kernels.py).
_COUNT_EDGE = "a query without run lines (trec_eval -c) retrieves nothing; a query without judgments is not evaluated"
_ZERO_EDGE = ("no relevant judgment or nothing retrieved: **0.0** (0 / 0 is 0); a query without judgments is not "
              "evaluated")
#: IPrec's and 11pt_avg's rounding of a recall level to a number of documents: trec_eval 10.0's or 9.x's.
_VERSION = Param("version", "str", "10.0", ("10.0", "9"),
                 "trec_eval 10.0 rounds r × num_rel to the nearest; 9 (and pytrec_eval) truncates r × num_rel + 0.9")


#: cwl_eval's measures (ir_measures' cwl_eval provider): the gains are the grades scaled to [0, 1] by min_rel and
#: max_rel (ir_measures' parameters; max_rel must be given), the ranking read to depth 1000 (cwl_kernels.py).
CWL_MIN_REL = Param("min_rel", "int", 0, description="the lowest grade: a grade at or below it gains 0")
CWL_MAX_REL = Param("max_rel", "int", 3, required=True,
                    description="the highest grade: a grade at or above it gains 1, each grade (grade - min_rel) / "
                    "(max_rel - min_rel)")
CWL_T = Param("T", "float", 1.0, description="the gain the user wants (in units of a document of gain 1)")
_CWL_EDGE = ("no document of positive gain retrieved: **0.0**; a query without judgments is not evaluated")
_CWL_GAIN = ("g(i) the grade at rank i scaled to [0, 1], (min(max(grade, min_rel), max_rel) − min_rel) / (max_rel − "
             "min_rel) (a negative grade read as 0), 0 for a document not judged and past the ranking; W(i) = "
             "Π_{j<i} C(j) / Σ_{i' ≤ 1000} Π_{j<i'} C(j)")


def _check_gain_range(values: dict[str, Any]) -> str | None:
    """min_rel below max_rel (cwl_eval's measures through ir_measures), else what is wrong."""
    if values["min_rel"] >= values["max_rel"]:
        return (f"min_rel must be below max_rel (a grade gains (grade - min_rel) / (max_rel - min_rel)); got "
                f"min_rel={values['min_rel']}, max_rel={values['max_rel']}.")
    return None


def _check_goal(values: dict[str, Any]) -> str | None:
    """The gain range, and a goal T > 0 (the gain the user wants)."""
    if not values["T"] > 0:
        return f"T, the gain the user wants, must be > 0; got T={values['T']:g}."
    return _check_gain_range(values)


def _check_persistence(values: dict[str, Any]) -> str | None:
    """The gain range, and a persistence p in [0, 1] (a chance)."""
    if not 0.0 <= values["p"] <= 1.0:
        return f"p, the chance a user reads on, must lie in [0, 1]; got p={values['p']:g}."
    return _check_gain_range(values)


def _cwl_measure(name: str, description: str, continuation: str, *, kernel: Callable[..., np.ndarray],
                 params: tuple[Param, ...], cutoff: str = "none",
                 check: Callable[[dict[str, Any]], str | None] = _check_goal) -> Metric:
    """A cwl_eval measure's entry: the C/W/L expected rate of gain Σ W(i) g(i) of its continuation C."""
    return trec_measure(name, description + " Gains: the grades scaled to [0, 1] by min_rel and max_rel (max_rel must "
                        "be given); the ranking is read to depth 1000, padded with documents of gain 0.",
                        f"Σ_{{i ≤ 1000}} W(i) g(i), C(i) = {continuation}; {_CWL_GAIN}",
                        params=(*params, CWL_MIN_REL, CWL_MAX_REL), cutoff=cutoff, rel=False, policy=None,
                        edge=_CWL_EDGE, reference="ir_measures", kernel=kernel, check_params=check, direction="higher")


#: Every metric, one entry each: answer metrics, document metrics, the evaluators' kernels, trec_eval's measures.
#: The dicts below are views of it by family and level.
REGISTRY: tuple[Metric, ...] = (
    # ---------------------------------------------------------------- Haystack 1.x: answer rows
    Metric("exact_match", "answer", "1 if the best answer equals a gold answer after SQuAD normalisation.",
           "max over the query's remaining answer rows of `exact_match`", _ANSWER_EDGE, (0.0, 1.0), direction="higher"),
    Metric("f1", "answer", "Best token-overlap F1 between an answer and a gold answer.",
           "max over the query's remaining answer rows of `f1`", _ANSWER_EDGE, (0.0, 1.0), headline=True, direction="higher"),
    Metric("sas", "answer", "Best semantic answer similarity (needs a SAS model at build time).",
           "max over the query's remaining answer rows of `sas`", _ANSWER_EDGE, None,
           "the SAS model's score: a cosine similarity or a cross-encoder's output, not clipped", direction="higher"),
    # ---------------------------------------------------------------- Haystack 1.x: document rows
    Metric("recall_multi_hit", "document", "Share of a query's gold documents found among the relevant rows.",
           "M / L", _HAYSTACK_EDGE, (0.0, 1.0), "when M ≤ L: no match list indexes a `\"00\"` gold entry",
           kernel=kernels.recall_multi_hit, inputs=("matched", "n_gold"), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    Metric("recall_single_hit", "document", "1 if at least one relevant document was retrieved.",
           "1", _HAYSTACK_EDGE, (0.0, 1.0), headline=True,
           kernel=kernels.recall_single_hit, inputs=("n_gold",), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    Metric("precision", "document", "Relevant rows / retrieved rows.",
           "\\|R\\| / number of rows of the query", _HAYSTACK_EDGE, (0.0, 1.0),
           kernel=kernels.precision, inputs=("n_relevant_rows", "n_rows"), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    Metric("map", "document", "Average precision at each relevant rank, over the number of relevant documents.",
           "(Σ over r in R of \\|{r' in R : rank(r') ≤ rank(r)}\\| / rank(r)) / num_relevants", _HAYSTACK_EDGE, None,
           "exceeds 1 when a relevant document is retrieved twice",
           kernel=kernels.map, inputs=("precision_sum", "num_relevants"), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    Metric("mrr", "document", "Reciprocal rank of the first relevant document.",
           "1 / min rank over R", _HAYSTACK_EDGE, (0.0, 1.0), "for ranks ≥ 1",
           kernel=kernels.mrr, inputs=("min_rank",), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    Metric("ndcg", "document", "DCG of the relevant ranks over the ideal DCG (binary relevance).",
           "(Σ over r in R of 1 / log2(rank(r) + 1)) / (Σ_{i=1..num_relevants} 1 / log2(i + 1))", _HAYSTACK_EDGE, None,
           "exceeds 1 when a relevant document is retrieved twice",
           kernel=kernels.ndcg, inputs=("dcg", "ideal_dcg"), policy=HAYSTACK_EDGE_POLICY, direction="higher"),
    # ---------------------------------------------------------------- other frameworks' evaluators (docs/evaluators.md)
    Metric("recall_all", "document", "1 if every gold document was retrieved (evaluators only).",
           "1 if M = L else 0", _edge_rule(ZERO_EDGE_POLICY, "gold found"), (0.0, 1.0), family="evaluators",
           kernel=kernels.recall_all, inputs=("matched", "n_gold"), policy=ZERO_EDGE_POLICY, direction="higher"),
    # ---------------------------------------------------------------- trec_eval (docs/ir-researchers.md)
    # name (ir_measures'), description, per-query formula; trec_eval: trec_eval's names (pytrec_eval's keys derive
    # from them: P.5 or P_5 mean P@5); synonyms: ir_measures' other names; cutoff: whether "@k" is required, optional
    # or refused; rel: whether "(rel=N)" is taken; kernel: the pass over the rankings (measures sharing one, with the
    # same rel and parameters, share the pass); finish: the values from its column
    trec_measure("AP", "Average precision: the sum, over the relevant documents retrieved in the top k, of the precision "
                       "at each one's rank, over the query's number of relevant documents.",
                 "(Σ over relevant d in the top k of \\|{relevant d' : rank(d') ≤ rank(d)}\\| / rank(d)) / num_rel",
                 trec_eval=(TrecEvalName("map"), TrecEvalName("map_cut", "cutoffs", TREC_EVAL_CUTOFFS)),
                 synonyms=(Name("MAP"), Name("map", tool="ranx")), cutoff="optional",
                 params=(JUDGED_ONLY,), kernel=trec_kernels.ap_table, finish=trec_kernels.as_is, direction="higher"),
    trec_measure("nDCG", "Normalised discounted cumulative gain: the sum of grade / log2(rank + 1) over the top k, over "
                         "the same sum of the ideal ranking (the judged grades, highest first).",
                 "(Σ over d in the top k of grade(d) / log2(rank(d) + 1)) / (the same sum over the query's judged "
                 "grades, highest first)",
                 trec_eval=(TrecEvalName("ndcg"), TrecEvalName("ndcg_cut", "cutoffs", TREC_EVAL_CUTOFFS),
                            TrecEvalName("ndcg", "gains")),
                 synonyms=(Name("NDCG"), Name("ndcg", tool="ranx"),
                           Name("ndcg_burges", (("dcg", "exp-log2"),), tool="ranx")), cutoff="optional", rel=False,
                 bounds_note="with gains >= 0 (a gains mapping may give negative ones, as trec_eval allows)",
                 params=(DCG, GAINS, JUDGED_ONLY),
                 kernel=trec_gain_kernels.ndcg_table, finish=trec_kernels.as_is, direction="higher"),
    trec_measure("P", "Precision: relevant documents in the top k, over k.",
                 "\\|relevant d in the top k\\| / k",
                 trec_eval=(TrecEvalName("P", "cutoffs", TREC_EVAL_CUTOFFS),),
                 synonyms=(Name("Precision"), Name("precision", tool="ranx", cutoff="required")), cutoff="required",
                 params=(JUDGED_ONLY,), kernel=trec_kernels.count_table, finish=trec_kernels.over_cutoff, direction="higher"),
    trec_measure("R", "Recall: relevant documents in the top k, over the query's number of relevant documents.",
                 "\\|relevant d in the top k\\| / num_rel",
                 trec_eval=(TrecEvalName("recall", "cutoffs", TREC_EVAL_CUTOFFS),),
                 synonyms=(Name("Recall"), Name("recall", tool="ranx", cutoff="required")), cutoff="required",
                 params=(JUDGED_ONLY,), kernel=trec_kernels.count_table, finish=trec_kernels.over_num_rel, direction="higher"),
    trec_measure("RR", "Reciprocal rank: 1 / the rank of the first relevant document in the top k (0 if there is none).",
                 "1 / min rank(d) over relevant d in the top k",
                 trec_eval=(TrecEvalName("recip_rank"),), synonyms=(Name("MRR"), Name("mrr", tool="ranx")), cutoff="optional",
                 params=(JUDGED_ONLY,), kernel=trec_kernels.rr_table, finish=trec_kernels.as_is, direction="higher"),
    trec_measure("Success", "1 if a relevant document is in the top k, else 0.",
                 "1 if a relevant d is in the top k, else 0",
                 trec_eval=(TrecEvalName("success", "cutoffs", (1, 5, 10)),), synonyms=(Name("hit_rate", tool="ranx"),),
                 cutoff="required",
                 params=(JUDGED_ONLY,), kernel=trec_kernels.count_table, finish=trec_kernels.found, direction="higher"),
    trec_measure("Rprec", "R-precision: relevant documents in the top R, over R, the query's number of relevant "
                          "documents.",
                 "\\|relevant d in the top num_rel\\| / num_rel",
                 trec_eval=(TrecEvalName("Rprec"),), synonyms=(Name("RPrec"), Name("r-precision", tool="ranx")),
                 params=(JUDGED_ONLY,), kernel=trec_kernels.rprec_table, finish=trec_kernels.as_is, direction="higher"),
    trec_measure("Bpref", "Binary preference: the mean, over the query's relevant documents, of 1 - (judged "
                          "non-relevant documents ranked above it) / min(judged non-relevant, relevant); unjudged "
                          "documents are skipped.",
                 "(Σ over relevant retrieved d of 1 − min(n(d), num_rel) / min(num_nonrel, num_rel)) / num_rel, n(d) "
                 "the judged non-relevant documents ranked above d (the term is 1 when n(d) = 0)",
                 trec_eval=(TrecEvalName("bpref"),), synonyms=(Name("BPref"), Name("bpref", tool="ranx")),
                 kernel=trec_kernels.bpref_table, finish=trec_kernels.as_is, direction="higher"),
    # ---------------------------------------------------------------- diversity (subtopic qrels) and Compat
    # ndeval's measures as ir_measures runs them (pyndeval): they read subtopic judgments (from_trec(...,
    # subtopics=True)); binary per subtopic (grade >= rel), S the query's subtopics with a relevant document,
    # g(r) the novelty-discounted gain of rank r (diversity_kernels). Compat reads the ordinary grades.
    trec_measure("alpha_nDCG", "alpha-nDCG (Clarke et al. 2008): DCG of the novelty-discounted gains (each subtopic's "
                               "gain shrinks by (1 - alpha) for each document above already relevant to it) over the "
                               "same of ndeval's greedy ideal ranking.",
                 "(Σ_{r ≤ k} g(r) / log2(r + 1)) / (the same sum over the greedy ideal ranking); g(r) = Σ over the "
                 "subtopics j of d at rank r of (1 − alpha)^(documents above relevant to j)",
                 cutoff="required", bounds=None,
                 bounds_note="[0, 1] but where the run beats ndeval's greedy ideal ranking",
                 params=(Param("alpha", "float", 0.5, description="redundancy intolerance"), JUDGED_ONLY),
                 synonyms=(Name("alpha-nDCG"), Name("α_nDCG"), Name("α-nDCG")),
                 kernel=diversity_kernels.alpha_ndcg_table, reference="ir_measures", direction="higher"),
    trec_measure("alpha_DCG", "alpha-DCG as ndeval reports it: the novelty-discounted DCG over that of an ideal that "
                              "covers every subtopic at every rank (collection-independent).",
                 "(Σ_{r ≤ k} g(r) / log2(r + 1)) / (S Σ_{r ≤ k} (1 − alpha)^(r−1) / log2(r + 1)); at k = 1, g(1)",
                 cutoff="required", bounds=None,
                 bounds_note="[0, 1] for k ≥ 2; at k = 1 ndeval leaves g(1) unnormalised (up to S)",
                 params=(Param("alpha", "float", 0.5, description="redundancy intolerance"), JUDGED_ONLY),
                 synonyms=(Name("alpha-DCG"), Name("α_DCG"), Name("α-DCG")),
                 kernel=diversity_kernels.alpha_dcg_table, reference="ir_measures", direction="higher"),
    trec_measure("ERR_IA", "Intent-aware ERR as ndeval reports it: the novelty-discounted gains over rank, over those "
                           "of an ideal covering every subtopic at every rank (alpha 0.5).",
                 "(Σ_{r ≤ k} g(r) / r) / (S Σ_{r ≤ k} 0.5^(r−1) / r); at k = 1, g(1)",
                 cutoff="required", bounds=None,
                 bounds_note="[0, 1] for k ≥ 2; at k = 1 ndeval leaves g(1) unnormalised (up to S)",
                 synonyms=(Name("ERR-IA"),), params=(JUDGED_ONLY,),
                 kernel=diversity_kernels.err_ia_table, reference="ir_measures", direction="higher"),
    trec_measure("nERR_IA", "Intent-aware ERR over subtopics, normalised by ndeval's greedy ideal ranking (alpha 0.5).",
                 "(Σ_{r ≤ k} g(r) / r) / (the same sum over the greedy ideal ranking)",
                 cutoff="required", bounds=None, bounds_note="[0, 1] but where the run beats the greedy ideal ranking",
                 synonyms=(Name("nERR-IA"),), params=(JUDGED_ONLY,),
                 kernel=diversity_kernels.nerr_ia_table, reference="ir_measures", direction="higher"),
    trec_measure("P_IA", "Intent-aware precision: the relevant (document, subtopic) pairs in the top k, over k times "
                         "the query's subtopics.",
                 "\\|(d, j): d in the top k relevant to subtopic j\\| / (k S)",
                 synonyms=(Name("P-IA"),), cutoff="required", params=(JUDGED_ONLY,),
                 kernel=diversity_kernels.p_ia_table, reference="ir_measures", direction="higher"),
    trec_measure("AP_IA", "Intent-aware average precision: the mean over the query's subtopics of each one's average "
                          "precision (its relevant documents, over the whole ranking).",
                 "(1 / S) Σ_j (Σ over d relevant to j of \\|{d' relevant to j : rank(d') ≤ rank(d)}\\| / rank(d)) / "
                 "num_rel(j)",
                 synonyms=(Name("MAP_IA"), Name("MAP-IA")), params=(JUDGED_ONLY,),
                 kernel=diversity_kernels.ap_ia_table,
                 reference="ir_measures", direction="higher"),
    trec_measure("StRecall", "Subtopic recall: the query's subtopics with a relevant document in the top k, over all "
                             "its subtopics.",
                 "\\|{j : a d in the top k is relevant to j}\\| / S",
                 synonyms=(Name("strec"),), cutoff="required",
                 kernel=diversity_kernels.strecall_table, reference="ir_measures", direction="higher"),
    trec_measure("NRBP", "Novelty- and rank-biased precision (Clarke et al. 2009): the novelty-discounted gains over "
                         "the subtopics, each rank weighted beta^(r-1), over the whole ranking.",
                 "(1 − (1 − alpha) beta) / S Σ_r beta^(r−1) g(r)",
                 params=(Param("alpha", "float", 0.5, description="redundancy intolerance"),
                         Param("beta", "float", 0.5, description="patience")),
                 kernel=diversity_kernels.nrbp_table, reference="ir_measures", direction="higher"),
    trec_measure("nNRBP", "NRBP over subtopics, normalised by ndeval's greedy ideal ranking.",
                 "(Σ_r beta^(r−1) g(r)) / (the same sum over the greedy ideal ranking); no value when S = 0",
                 params=(Param("alpha", "float", 0.5, description="redundancy intolerance"),
                         Param("beta", "float", 0.5, description="patience")),
                 bounds=None, bounds_note="[0, 1] but where the run beats the greedy ideal ranking; NaN (no value) for "
                 "a ranked query without a relevant subtopic, as ndeval (0 / 0)",
                 kernel=diversity_kernels.nnrbp_table, reference="ir_measures", direction="higher"),
    trec_measure("Compat", "Compatibility (Clarke et al. 2020): the rank-biased overlap (persistence p) of the ranking "
                           "with the ideal one (grade > 0, highest first, ties in the run's order), normalised by the "
                           "ideal's with itself.",
                 "(Σ_{i ≤ D} p^(i−1) \\|run[:i] ∩ ideal[:i]\\| / i) / (the same with run = ideal), D = max(ranked, "
                 "relevant)",
                 rel=False,
                 params=(Param("p", "float", 0.95, description="persistence"),
                         Param("normalize", "bool", True, description="divide by the ideal ranking's own overlap")),
                 kernel=diversity_kernels.compat_table, reference="ir_measures", direction="higher"),
    # ---------------------------------------------------------------- gain-based and inferred measures (issue 27,
    # tegains): trec_eval 10.0's infAP, binG, G, ndcg_rel, Rndcg, rbp, rbp_resid; ir_measures' RBP and ERR (nDCG's
    # gains and dcg='exp-log2' are parameters of its entry above). Kernels: metrics/trec_gain_kernels.py; their values
    # are final (policy None: no edge override)
    trec_measure("infAP", "Inferred average precision (Yilmaz & Aslam 2006): AP estimated from a sampled pool; "
                          "documents absent from the qrels are skipped, judgments < 0 are pooled but not judged.",
                 "(Σ over relevant retrieved d, at 0-based position j with r relevant, n judged non-relevant and u "
                 "pooled-unjudged documents up to it, of 1 if j = 0 else 1/(j+1) + (j/(j+1)) ((r−1+n+u)/j) "
                 "((r−1+ε)/(r−1+n+2ε))) / num_rel, ε = 0.00001",
                 trec_eval=(TrecEvalName("infAP"),), params=(JUDGED_ONLY,), policy=None,
                 edge="no relevant judgment or none retrieved: **0.0**; a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.infap_table, direction="higher"),
    trec_measure("binG", "Binary G (trec_eval, experimental): the mean over the relevant documents of 1 / log2(2 + the "
                         "non-relevant or unjudged documents ranked above it), 0 for one not retrieved.",
                 "(Σ over relevant retrieved d of 1 / log2(2 + \\|non-relevant d' ranked above d\\|)) / num_rel",
                 trec_eval=(TrecEvalName("binG"),), params=(JUDGED_ONLY,), policy=None,
                 edge="no relevant judgment or none retrieved: **0.0**; a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.bing_table, direction="higher"),
    trec_measure("G", "Normalised gain (trec_eval, experimental): each document's gain over log2(2 + the ideal ranking's "
                      "cost so far - the gain so far), summed, over the ideal total gain; gains from `gains` (default: "
                      "the grade).",
                 "(Σ over retrieved d with gain(d) ≠ 0 of gain(d) / log2(2 + Σ_{i ≤ rank(d)} max(ideal gain at i, 1) − "
                 "Σ_{d' up to d} gain(d'))) / (Σ of the judged positive gains)",
                 trec_eval=(TrecEvalName("G"), TrecEvalName("G", "gains")), params=(GAINS, JUDGED_ONLY), rel=False,
                 policy=None, bounds_note="with gains >= 0", edge=_GAIN_EDGE,
                 kernel=trec_gain_kernels.g_table, direction="higher"),
    trec_measure("ndcg_rel", "nDCG averaged over the relevant documents (trec_eval, experimental): at each retrieved "
                             "document of positive gain, the DCG so far over the ideal DCG so far; each one not "
                             "retrieved adds the whole ranking's nDCG.",
                 "(Σ over retrieved d with gain > 0 of DCG(top rank(d)) / IDCG(top min(rank(d), L)) + (L − their "
                 "number) DCG / IDCG) / L, L the judged documents of positive gain (0 unless the sum is > 0)",
                 trec_eval=(TrecEvalName("ndcg_rel"), TrecEvalName("ndcg_rel", "gains")), params=(GAINS, JUDGED_ONLY),
                 rel=False, policy=None, bounds_note="with gains >= 0", edge=_GAIN_EDGE,
                 kernel=trec_gain_kernels.ndcg_rel_table, direction="higher"),
    trec_measure("Rndcg", "nDCG averaged at the R levels (trec_eval, experimental): the mean of nDCG@b at each rank b "
                          "where the ideal gain changes, and of the whole ranking's nDCG when it is longer than the "
                          "ideal ranking plus one document.",
                 "mean of DCG(top b) / IDCG(top b) over the ranks b ≤ L where the ideal gain changes (b = L always), "
                 "and DCG / IDCG when the query retrieved more than L + 1 documents; L the judged documents of "
                 "positive gain",
                 trec_eval=(TrecEvalName("Rndcg"), TrecEvalName("Rndcg", "gains")), params=(GAINS, JUDGED_ONLY),
                 policy=None, bounds_note="with gains >= 0; NaN (trec_eval prints nan) when every gain is <= 0 but "
                 "the query has a relevant judgment",
                 edge="no relevant judgment (grade >= rel): **0.0**; a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.rndcg_table, direction="higher"),
    trec_measure("rbp", "trec_eval 10.0's rank-biased precision: graded, the query's gains rescaled to [0, 1] when one "
                        "lies outside; persistence p (default 0.9).",
                 "(1 − p) Σ over retrieved d of gain'(d) p^(rank(d) − 1); gain' = (gain − min) / (max − min) when a "
                 "gain of the query's levels lies outside [0, 1] (min, max over those gains and 0), else the gain",
                 trec_eval=(TrecEvalName("rbp"), TrecEvalName("rbp", "gains")), params=(TREC_RBP_P, GAINS, JUDGED_ONLY),
                 rel=False, policy=None, reference="trec_eval",
                 edge="no document of positive gain retrieved: **0.0**; a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.trec_rbp_table, direction="higher"),
    trec_measure("rbp_resid", "trec_eval 10.0's residual of rbp: how much rbp could rise if every unjudged document "
                              "retrieved were relevant (0 when none is retrieved). Lower is better: less of rbp is "
                              "left unknown.",
                 "p^num_ret + (1 − p) Σ over retrieved d not judged (absent from the qrels or grade < 0) of "
                 "p^(rank(d) − 1); 0 when there is no such d",
                 trec_eval=(TrecEvalName("rbp_resid"), TrecEvalName("rbp_resid", "gains")),
                 params=(TREC_RBP_P, JUDGED_ONLY), rel=False, policy=None,
                 reference="trec_eval",
                 edge="no unjudged document retrieved: **0.0** (trec_eval leaves it unset); a query without judgments "
                 "is not evaluated",
                 kernel=trec_gain_kernels.rbp_resid_table, direction="lower"),
    trec_measure("RBP", "Rank-biased precision (Moffat & Zobel 2008): (1 - p) times the sum of p^(rank - 1) over the "
                        "relevant documents in the top k; persistence p (default 0.8).",
                 "(1 − p) Σ over relevant d in the top k of p^(rank(d) − 1)",
                 params=(Param("p", "float", 0.8, description="the persistence: the chance a user reads on"),
                         Param("rel", "int", 1, description="grade >= rel is relevant (ir_measures' RBP without rel is "
                               "trectools' graded RBP, which evalframe does not compute)", required=True)),
                 cutoff="optional", rel=False, policy=None, reference="ir_measures",
                 edge="no relevant document retrieved: **0.0**; a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.rbp_table, direction="higher"),
    trec_measure("ERR", "Expected reciprocal rank (Chapelle et al. 2009), as gdeval computes it: the cascade user stops "
                        "at a document with probability (2^grade - 1) / 16 (grades 0..4; above 4 counts as 4).",
                 "Σ over the top k of R(d) / rank(d) Π over d' ranked above d of (1 − R(d')), R(d) = (2^min(grade(d), 4) "
                 "− 1) / 2^4",
                 cutoff="optional", rel=False, policy=None, reference="ir_measures",
                 edge="no document of grade > 0 retrieved: **0.0** (gdeval leaves out a query without a positive "
                 "judgment); a query without judgments is not evaluated",
                 kernel=trec_gain_kernels.err_table, direction="higher"),
    # ---------------------------------------------------------------- trec_eval's counts, set measures, recall points,
    # geometric means and judgment rates (issue 27, area "tesets"; kernels in trec_set_kernels.py): the kernels give
    # the final values (policy None); counts are summed over queries as trec_eval sums them (meas_acc.c)
    trec_measure("NumQ", "The number of queries evaluated (1 per query, summed); a count, neither higher nor lower is "
                         "better.", "1",
                 trec_eval=(TrecEvalName("num_q"),), rel=False, bounds=(1.0, 1.0), policy=None,
                 edge=_COUNT_EDGE, aggregation="sum", kernel=trec_set_kernels.num_q_table, direction="none"),
    trec_measure("NumRet", "The number of documents retrieved (summed over queries); a count, neither higher nor lower "
                           "is better (a longer ranking is not a better one).", "num_ret",
                 trec_eval=(TrecEvalName("num_ret"),), rel=False, params=(JUDGED_ONLY,), bounds=None,
                 bounds_note="a count", policy=None, edge=_COUNT_EDGE, aggregation="sum",
                 kernel=trec_set_kernels.num_ret_table, direction="none"),
    trec_measure("NumRelRet", "The number of relevant documents retrieved (summed over queries); ir_measures' "
                              "NumRet(rel=N). Higher is better: per query it is set recall times num_rel, which the "
                              "qrels fix, so two runs compare on it as on set recall.", "\\|relevant d retrieved\\|",
                 trec_eval=(TrecEvalName("num_rel_ret"),), bounds=None, bounds_note="a count", policy=None,
                 edge=_COUNT_EDGE, aggregation="sum", kernel=trec_set_kernels.num_rel_ret_table, direction="higher"),
    trec_measure("NumRel", "The number of relevant documents the qrels hold for the query (summed over queries); a count of the "
                           "qrels, the same for every run: neither higher nor lower is better.",
                 "num_rel", trec_eval=(TrecEvalName("num_rel"),), bounds=None, bounds_note="a count", policy=None,
                 edge=_COUNT_EDGE, aggregation="sum", kernel=trec_set_kernels.num_rel_table, direction="none"),
    trec_measure("num_nonrel_judged_ret", "The number of judged non-relevant documents retrieved (summed over "
                                          "queries); a count, neither higher nor lower is better (a run retrieving "
                                          "unjudged documents instead has fewer).", "\\|retrieved d with 0 ≤ grade(d) < rel\\|",
                 trec_eval=(TrecEvalName("num_nonrel_judged_ret"),), bounds=None, bounds_note="a count", policy=None,
                 edge=_COUNT_EDGE, aggregation="sum", kernel=trec_set_kernels.num_nonrel_judged_ret_table, direction="none"),
    trec_measure("gm_map", "Geometric mean average precision: AP per query, averaged over queries as exp(mean(log(max("
                           "AP, 1e-5)))).", "AP (aggregated: exp(mean over queries of log(max(AP, 1e-5))))",
                 trec_eval=(TrecEvalName("gm_map"),), params=(JUDGED_ONLY,), policy=None, edge=_ZERO_EDGE,
                 aggregation="geometric_mean", kernel=trec_set_kernels.gm_map_table, direction="higher"),
    trec_measure("gm_bpref", "Bpref per query, averaged over queries as exp(mean(log(max(bpref, 1e-5)))).",
                 "Bpref (aggregated: exp(mean over queries of log(max(Bpref, 1e-5))))",
                 trec_eval=(TrecEvalName("gm_bpref"),), policy=None, edge=_ZERO_EDGE,
                 aggregation="geometric_mean", kernel=trec_set_kernels.gm_bpref_table, direction="higher"),
    trec_measure("IPrec", "Interpolated precision at recall level r: the highest precision at or after the rank where "
                          "the relevant documents retrieved reach round(r × num_rel) (trec_eval 10.0; version='9': "
                          "trunc(r × num_rel + 0.9), as trec_eval 9.x and pytrec_eval).",
                 "max over j ≥ max(c, 1) of j / rank(j-th relevant d), c = round(r · num_rel); 0 when c exceeds the "
                 "relevant documents retrieved",
                 trec_eval=(TrecEvalName("iprec_at_recall", "cutoffs", trec_set_kernels.IPREC_RECALLS,
                                         key_format="{:.2f}"),),
                 cutoff="required", cutoff_kind="float", params=(JUDGED_ONLY, _VERSION), policy=None,
                 edge=_ZERO_EDGE + "; a ranking left empty (judged_only, -M 0) scores 0 too (trec_eval divides 0 by 0 "
                 "at a recall level standing for no document: --format trec_eval prints its -nan)",
                 kernel=trec_set_kernels.iprec_table, reference="trec_eval", direction="higher"),
    trec_measure("11pt_avg", "The mean of the interpolated precisions at recall 0.0, 0.1, ..., 1.0 (IPrec).",
                 "(Σ over r in 0.0, 0.1, ..., 1.0 of IPrec@r) / 11", trec_eval=(TrecEvalName("11pt_avg"),),
                 params=(JUDGED_ONLY, _VERSION), policy=None, edge=_ZERO_EDGE,
                 kernel=trec_set_kernels.eleven_point_table, reference="trec_eval", direction="higher"),
    trec_measure("Rprec_mult", "Precision at a multiple m of R, the query's number of relevant documents: relevant "
                               "documents in the top trunc(m × R + 0.9), over that number.",
                 "\\|relevant d in the top k\\| / k, k = trunc(m · num_rel + 0.9) (0 when k = 0)",
                 trec_eval=(TrecEvalName("Rprec_mult", "cutoffs", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                                         key_format="{:.2f}"),),
                 cutoff="required", cutoff_kind="float", params=(JUDGED_ONLY,), policy=None, edge=_ZERO_EDGE,
                 kernel=trec_set_kernels.rprec_mult_table, direction="higher"),
    trec_measure("relative_P", "Relative precision: relevant documents in the top k over the most there could be, "
                               "min(k, R).", "\\|relevant d in the top k\\| / min(k, num_rel)",
                 trec_eval=(TrecEvalName("relative_P", "cutoffs", TREC_EVAL_CUTOFFS),), cutoff="required",
                 params=(JUDGED_ONLY,), policy=None, edge=_ZERO_EDGE, kernel=trec_set_kernels.relative_p_table,
                 direction="higher"),
    trec_measure("SetP", "Set precision: relevant documents retrieved over the documents retrieved (relative=True: "
                         "over min(retrieved, R), trec_eval's set_relative_P).",
                 "num_rel_ret / num_ret (relative: num_rel_ret / min(num_ret, num_rel))",
                 trec_eval=(TrecEvalName("set_P"), TrecEvalName("set_relative_P", implies=(("relative", True),))),
                 synonyms=(Name("SetRelP", (("relative", True),)), Name("precision", tool="ranx", cutoff="none")),
                 params=(Param("relative", "bool", False, description="over the most that could be relevant"),
                         JUDGED_ONLY), policy=None, edge=_ZERO_EDGE, kernel=trec_set_kernels.set_p_table, direction="higher"),
    trec_measure("SetR", "Set recall: relevant documents retrieved over the query's relevant documents.",
                 "num_rel_ret / num_rel", trec_eval=(TrecEvalName("set_recall"),), policy=None, edge=_ZERO_EDGE,
                 kernel=trec_set_kernels.set_recall_table, direction="higher"),
    trec_measure("SetAP", "Unranked set AP: set precision × set recall.", "num_rel_ret² / (num_ret · num_rel)",
                 trec_eval=(TrecEvalName("set_map"),), params=(JUDGED_ONLY,), policy=None, edge=_ZERO_EDGE,
                 kernel=trec_set_kernels.set_map_table, direction="higher"),
    trec_measure("SetF", "Set F: the weighted harmonic mean (beta + 1) P R / (beta P + R) of set precision P and set "
                         "recall R.", "(β + 1) · P · R / (β · P + R), P = num_rel_ret / num_ret, R = num_rel_ret / "
                         "num_rel",
                 trec_eval=(TrecEvalName("set_F", "values", values=("beta",)),),
                 synonyms=(Name("f1", tool="ranx"),),
                 params=(Param("beta", "float", 1.0, description="the weight of recall against precision"),
                         JUDGED_ONLY), policy=None, edge=_ZERO_EDGE, kernel=trec_set_kernels.set_f_table, direction="higher"),
    trec_measure("utility", "Set utility: a weighted sum of the relevant and non-relevant documents retrieved and not "
                            "retrieved (trec_eval's utility.p1,p2,p3,p4; num_docs is trec_eval's -N).",
                 "rel_ret · num_rel_ret + nonrel_ret · (num_ret − num_rel_ret) + rel_unret · (num_rel − num_rel_ret) "
                 "+ nonrel_unret · (num_docs + num_rel_ret − num_ret − num_rel)",
                 trec_eval=(TrecEvalName("utility", "values", values=tuple(n for n, _ in trec_set_kernels.UTILITY_PARAMS)),),
                 params=(*(Param(n, "float", d, description=f"the worth of a document {n.replace('_', ' ')}")
                           for n, d in trec_set_kernels.UTILITY_PARAMS),
                         Param("num_docs", "int", 0, description="the documents in the collection (trec_eval -N)"),
                         JUDGED_ONLY),
                 bounds=None, bounds_note="a weighted sum of counts", policy=None,
                 edge="a query without run lines (trec_eval -c): **0.0**; a query without judgments is not evaluated",
                 kernel=trec_set_kernels.utility_table, direction="higher"),
    trec_measure("unj", "trec_eval 10.0's unjudged rate: documents in the top k without a grade >= 0, over k (a "
                        "shorter ranking is filled with judged documents). Lower is better: fewer unjudged documents, "
                        "the other measures more certain.",
                 "\\|d in the top k with no grade ≥ 0\\| / k", trec_eval=(TrecEvalName("unj", "cutoffs", (5, 10, 20)),),
                 cutoff="required", rel=False, params=(JUDGED_ONLY,), policy=None, edge=_ZERO_EDGE,
                 kernel=trec_set_kernels.unj_table, reference="trec_eval", direction="lower"),
    trec_measure("Judged", "ir_measures' judgment rate: documents in the top k the qrels judge (any grade), over "
                           "min(k, retrieved). Higher is better: more judged documents, the other measures more "
                           "certain.", "\\|judged d in the top k\\| / min(k, num_ret)",
                 cutoff="optional", rel=False, policy=None, edge=_ZERO_EDGE, reference="ir_measures",
                 kernel=trec_set_kernels.judged_table, direction="higher"),
    # ---------------------------------------------------------------- cwl_eval's C/W/L measures, as ir_measures names
    # them (its cwl_eval provider; kernels in cwl_kernels.py): the user reads on from rank i with chance C(i)
    _cwl_measure("INSQ", "cwl_eval's INSQ (Moffat, Scholer & Thomas 2012): the expected rate of gain of a user who "
                         "reads on from rank i with chance ((i + 2T - 1) / (i + 2T))^2, T the gain wanted (default 1).",
                 "((i + 2T − 1) / (i + 2T))²", kernel=cwl_kernels.insq_table, params=(CWL_T,)),
    _cwl_measure("INST", "cwl_eval's INST (Moffat, Bailey, Scholer & Thomas 2015): INSQ adapting to the gain still "
                         "wanted, T minus the gain read so far.",
                 "((i + T + T_i − 1) / (i + T + T_i))², T_i = T − Σ_{j ≤ i} g(j)", kernel=cwl_kernels.inst_table,
                 params=(CWL_T,)),
    _cwl_measure("SDCG", "cwl_eval's scaled DCG@k: DCG of the gains over the DCG of k documents of gain 1 (nDCG "
                         "as though k fully relevant documents existed).",
                 "log2(i + 1) / log2(i + 2) for i < k, else 0", kernel=cwl_kernels.sdcg_table, cutoff="required",
                 params=(Param("dcg", "str", "log2", ("log2",), description="the discount: log2, cwl_eval's only"),),
                 check=_check_gain_range),
    _cwl_measure("NERR8", "cwl_eval's NERR, equation 8 of Azzopardi, Mackenzie & Moffat 2021 (ERR as a C/W/L "
                          "measure): the user stops at a document with chance its gain, and at rank k.",
                 "1 − g(i) for i < k, else 0", kernel=cwl_kernels.nerr8_table, cutoff="required", params=(),
                 check=_check_gain_range),
    _cwl_measure("NERR9", "cwl_eval's NERR, equation 9 of Azzopardi, Mackenzie & Moffat 2021: NERR8 with the "
                          "reciprocal rank's discount, i / (i + 1), in the chance to read on.",
                 "(i / (i + 1)) (1 − g(i)) for i < k, else 0", kernel=cwl_kernels.nerr9_table, cutoff="required",
                 params=(), check=_check_gain_range),
    _cwl_measure("NERR10", "cwl_eval's NERR, equation 10 of Azzopardi, Mackenzie & Moffat 2021: the user stops at "
                           "a document with chance its gain and reads on with RBP's persistence p (default 0.9).",
                 "p (1 − g(i))", kernel=cwl_kernels.nerr10_table,
                 params=(Param("p", "float", 0.9, description="the persistence: the chance a user reads on past a "
                               "document of gain 0"),), check=_check_persistence),
    _cwl_measure("NERR11", "cwl_eval's NERR, equation 11 of Azzopardi, Mackenzie & Moffat 2021: the user stops at "
                           "a document with chance its gain and reads on as INSQ's user with goal T (default 1).",
                 "((i + 2T − 1) / (i + 2T))² (1 − g(i))", kernel=cwl_kernels.nerr11_table, params=(CWL_T,)),
    _cwl_measure("BPM", "cwl_eval's static Bejeweled Player Model (Zhang et al. 2017): the user reads on while the "
                        "gain so far is below T (default 1) and the documents read below k; the mean gain of the "
                        "documents read.",
                 "1 while Σ_{j ≤ i} g(j) < T and i < k, else 0", kernel=cwl_kernels.bpm_table, cutoff="required",
                 params=(CWL_T,)),
)


def _view(family: str, level: str | None = None) -> dict[str, Metric]:
    return {m.name: m for m in REGISTRY if m.family == family and level in (None, m.level)}


#: Haystack 1.x's document metrics (``calculate_metrics`` of a node with document rows), in their column order.
DOCUMENT_METRICS: dict[str, Metric] = _view("haystack", "document")

#: Kernels of other frameworks' evaluators that are not EvaluationResult metrics (docs/evaluators.md).
EVALUATOR_METRICS: dict[str, Metric] = _view("evaluators")

#: Haystack 1.x's answer metrics.
ANSWER_METRICS: dict[str, Metric] = _view("haystack", "answer")

#: Every EvaluationResult metric, answer metrics first.
METRICS: dict[str, Metric] = {**ANSWER_METRICS, **DOCUMENT_METRICS}

#: trec_eval's measures by their ir_measures name (``trec_metrics``; :mod:`evalframe.metrics.trec` reads the names).
TREC_MEASURES: dict[str, Metric] = _view("trec")


_SCORE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")


def _taken_names() -> dict[str, str]:
    """Every name of the static registry, lower-cased, with what it is (for a score's name to be refused)."""
    taken: dict[str, str] = {}
    for metric in REGISTRY:
        kind = "a trec_eval measure" if metric.family == "trec" else f"a {metric.family} metric"
        taken.setdefault(metric.name.lower(), f"{kind} ({metric.name!r})")
        for synonym in metric.synonyms:
            taken.setdefault(synonym.text.lower(), f"a name of the trec_eval measure {metric.name!r}")
        for trec_name in metric.trec_eval:
            taken.setdefault(trec_name.stem.lower(), f"trec_eval's name of the measure {metric.name!r}")
    return taken


def _check_score_name(name: Any) -> str:
    """``name``, when it can name a score: refused when it is a registry measure's name (any case, with or without a
    trec_eval cutoff ``_k``), a frame column of the schema, or holds characters a measure name reads otherwise."""
    if not isinstance(name, str) or not _SCORE_NAME.match(name):
        raise InvalidParameterError(
            f"score name {name!r}: a score's name starts with a letter and holds letters, digits, '_' and '-' only "
            "(no '@', '(', ')', '.', ',', '=' or space, which measure names read as a cutoff or parameters); rename it.")
    taken = _taken_names()
    stem = re.sub(r"_[0-9.]+$", "", name).lower()
    clash = taken.get(name.lower()) or taken.get(stem)
    if clash:
        raise InvalidParameterError(f"score name {name!r} is {clash} of evalframe's registry; rename the score "
                                    f"(e.g. {name + '_score'!r}).")
    columns = {*COLUMN_ORDER, *LIST_COLUMNS, "meta", "no_answer", *TABLE_COUNTS, "node", "k", "metric", "value"}
    if name in columns:
        raise InvalidParameterError(f"score name {name!r} is a column of evalframe's node frames or tables; rename the "
                                    f"score (e.g. {name + '_score'!r}).")
    return name


def score_measure(name: str, *, direction: str = "higher", bounds: tuple[float, float] | None = None,
                  level: str = "query", description: str = "") -> Metric:
    """Declare a score computed elsewhere (a judge's faithfulness, a human rating, latency) as a measure.

    A result holds its scores' declarations in ``result.scores`` (``{name: Metric}``) and their values in the node
    frames' ``scores.<name>`` columns (:meth:`evalframe.EvaluationResult.add_scores`, ``from_runs(scores=...)``); every
    analysis then reports ``<name>`` beside the node's metrics, each query's value averaged over the queries that have
    one.

    Parameters
    ----------
    name : str
        The score's name: a letter, then letters, digits, ``_`` or ``-``; not a name of the registry (``mrr``, ``AP``,
        ``ndcg_cut``...) nor a column of the node frames.
    direction : {"higher", "lower", "none"}
        Which way is better (``"lower"``: latency, cost; ``"none"``: neither, e.g. a count of tokens, which then has no
        worst queries, wins or losses); worst-query lists, comparisons and plots follow it.
    bounds : (float, float), optional
        The range every value must lie in (checked when values are attached); None: unbounded.
    level : {"query", "row"}
        ``"query"``: one value per query; ``"row"``: one per row, a query's value the mean over its rows that the
        simulated top-k keeps.
    description : str
        One line saying what the score is.

    Returns
    -------
    Metric
        An entry of family ``"score"``.

    Examples
    --------
    >>> latency = score_measure("latency_ms", direction="lower", bounds=(0, 60000), description="seconds to answer")
    >>> latency.direction, latency.bounds, latency.level, latency.family
    ('lower', (0.0, 60000.0), 'query', 'score')
    >>> score_measure("mrr")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: score name 'mrr' is a haystack metric ('mrr') of evalframe's registry; ...
    """
    name = _check_score_name(name)
    if direction not in DIRECTIONS:
        raise InvalidParameterError(f"score {name!r}: direction must be one of {list(DIRECTIONS)}; got {direction!r}.")
    if level not in SCORE_LEVELS:
        raise InvalidParameterError(f"score {name!r}: level must be one of {list(SCORE_LEVELS)}; got {level!r}.")
    if not isinstance(description, str):
        raise InvalidParameterError(f"score {name!r}: description must be a string; got {type(description).__name__}.")
    checked: tuple[float, float] | None = None
    if bounds is not None:
        try:
            low, high = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"score {name!r}: bounds must be (low, high) numbers or None; got {bounds!r}.") from None
        if np.isnan(low) or np.isnan(high) or low > high:
            raise InvalidParameterError(f"score {name!r}: bounds must be (low, high) with low <= high; got {bounds!r}.")
        checked = (low, high)
    better = {"higher": "higher is better", "lower": "lower is better", "none": "neither higher nor lower is better"}
    return Metric(name, level, description or f"a score computed elsewhere ({better[direction]})",
                  formula=("the query's value" if level == "query" else "mean of the values of the query's rows kept"),
                  edge="no value: NaN, left out of the mean", bounds=checked,
                  bounds_note="" if checked else "declared unbounded", family="score", direction=direction)


def score_column(name: str) -> str:
    """The frame column of score ``name``: ``scores.<name>``.

    Examples
    --------
    >>> score_column("faithfulness")
    'scores.faithfulness'
    """
    return SCORE_PREFIX + name


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


def parameters(metric: Metric) -> str:
    """A metric's parameters as written after its name: ``"[@k], rel"`` (cutoff optional, relevance level), ``"@k"``.

    Examples
    --------
    >>> parameters(TREC_MEASURES["AP"]), parameters(TREC_MEASURES["P"]), parameters(TREC_MEASURES["nDCG"])
    ('[@k], rel', '@k, rel', '[@k]')
    """
    cutoff = {"required": "@k", "optional": "[@k]", "none": ""}[metric.cutoff]
    return ", ".join(part for part in (cutoff, "rel" if metric.rel else "") if part)


def other_names(metric: Metric) -> list[str]:
    """A trec measure's names in trec_eval's and pytrec_eval's form (``.k``: a cutoff after a dot or an underscore;
    ``.g=v,...``: a gain mapping; ``.x,y``: the values of its parameters), then its other ir_measures names, then
    ranx's (:func:`ranx_names`).

    Examples
    --------
    >>> other_names(TREC_MEASURES["nDCG"])
    ['ndcg', 'ndcg_cut.k', 'ndcg.g=v,...', 'NDCG', 'ndcg[@k]', "ndcg_burges[@k] (dcg='exp-log2')"]
    >>> other_names(TREC_MEASURES["Rprec"])
    ['Rprec', 'RPrec', 'r-precision']
    """
    tails = {"none": "", "cutoffs": ".k", "gains": ".g=v,...", "values": ""}
    names = [name.stem + (tails[name.params] if name.params != "values" else "." + ",".join(name.values))
             for name in metric.trec_eval]
    return names + [name.text for name in metric.synonyms if name.tool == "ir_measures"] + ranx_names(metric)


def ranx_names(metric: Metric) -> list[str]:
    """ranx's names of a trec measure as ranx writes them: ``@k`` a cutoff, ``[@k]`` an optional one, then the
    parameters the name implies (ranx 0.3.21's ``metric_switch``; its ``-lN`` level is ``rel=N``).

    Examples
    --------
    >>> ranx_names(TREC_MEASURES["P"]), ranx_names(TREC_MEASURES["SetP"])
    (['precision@k'], ['precision'])
    """
    cutoffs = {"required": "@k", "optional": "[@k]", "none": ""}
    return [name.text + cutoffs[name.cutoff or metric.cutoff]
            + (f" ({','.join(f'{key}={value!r}' for key, value in name.implies)})" if name.implies else "")
            for name in metric.synonyms if name.tool == "ranx"]


def metrics_table_markdown() -> str:
    """The table of metrics in ``docs/metrics.md``, generated from the registry (answer, document, evaluator-only,
    trec_eval).

    Examples
    --------
    >>> print(metrics_table_markdown().splitlines()[0])
    | metric | level | per-query value | edge rule | bounds | better | headline | parameters; trec_eval's names |
    """
    lines = ["| metric | level | per-query value | edge rule | bounds | better | headline | parameters; trec_eval's names |",
             "|---|---|---|---|---|---|---|---|"]
    for metric in (*ANSWER_METRICS.values(), *DOCUMENT_METRICS.values(), *EVALUATOR_METRICS.values(),
                   *TREC_MEASURES.values()):
        bounds = format_bounds(metric, note=True)
        level = f"{metric.level} (trec_eval)" if metric.family == "trec" else metric.level
        names = "; ".join(part for part in (parameters(metric), ", ".join(f"`{n}`" for n in other_names(metric))) if part)
        lines.append(f"| `{metric.name}` | {level} | {metric.formula} | {metric.edge} | {bounds} | "
                     f"{DIRECTION_WORDS[metric.direction]} | {'yes' if metric.headline else ''} | {names} |")
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


def _ir_measures_form(metric: Metric) -> str:
    """A measure's name in ir_measures' syntax with its parameters at their defaults: ``RBP(p=0.8,rel=1)[@k]``."""
    params = ([f"{p.name}={'{}' if p.kind == 'gains' else 'N' if p.required else repr(p.default)}"
               for p in metric.params if p.name != "judged_only"]
              + (["rel=1"] if metric.rel else []) + (["judged_only=False"] if any(
                  p.name == "judged_only" for p in metric.params) else []))
    cutoff = {"required": "@k", "optional": "[@k]", "none": ""}[metric.cutoff]
    return metric.name + (f"({','.join(params)})" if params else "") + cutoff


def _pytrec_eval_keys(metric: Metric) -> list[str]:
    """pytrec_eval's keys of a measure (trec_eval's names with ``_k`` for a cutoff)."""
    return list(dict.fromkeys(name.stem + ("_k" if name.params == "cutoffs" else "") for name in metric.trec_eval))


def measures_table_markdown() -> str:
    """The table of trec_eval and ir_measures measures in ``docs/ir-researchers.md``, generated from the registry:
    each measure's names in ir_measures', trec_eval's, pytrec_eval's and ranx's spelling, its per-query value, how the
    values become one number, and the tool the tests check it against.

    Examples
    --------
    >>> print(measures_table_markdown().splitlines()[0])
    | ir_measures | trec_eval | pytrec_eval | ranx | per-query value | over queries | better | checked against |
    """
    lines = ["| ir_measures | trec_eval | pytrec_eval | ranx | per-query value | over queries | better | checked against |",
             "|---|---|---|---|---|---|---|---|"]
    for metric in TREC_MEASURES.values():
        ir_names = ", ".join(f"`{n}`" for n in [_ir_measures_form(metric),
                                                 *(s.text for s in metric.synonyms if s.tool == "ir_measures")])
        trec_eval = ", ".join(f"`{n}`" for n in other_names(metric)[:len(metric.trec_eval)]) or "—"
        pytrec = ", ".join(f"`{n}`" for n in _pytrec_eval_keys(metric)) or "—"
        ranx = ", ".join(f"`{n}`" for n in ranx_names(metric)) or "—"
        lines.append(f"| {ir_names} | {trec_eval} | {pytrec} | {ranx} | {metric.formula} | "
                     f"{metric.aggregation.replace('_', ' ')} | {DIRECTION_WORDS[metric.direction]} | {metric.reference} |")
    return "\n".join(lines)


MEASURES_TABLE_START = ("<!-- measures-table:start (generated by `python scripts/make_metrics_table.py`; "
                        "do not edit) -->")
MEASURES_TABLE_END = "<!-- measures-table:end -->"
_MEASURES_TABLE = re.compile(re.escape(MEASURES_TABLE_START) + r"\n.*?" + re.escape(MEASURES_TABLE_END), re.DOTALL)


def update_measures_table(text: str) -> str:
    """``text`` (docs/ir-researchers.md) with the part between the measures-table markers replaced by
    :func:`measures_table_markdown`."""
    if not _MEASURES_TABLE.search(text):
        raise InvalidParameterError(f"the text holds no measures table between {MEASURES_TABLE_START!r} and "
                                    f"{MEASURES_TABLE_END!r}; add the two markers.")
    return _MEASURES_TABLE.sub(lambda _: f"{MEASURES_TABLE_START}\n{measures_table_markdown()}\n{MEASURES_TABLE_END}",
                               text, count=1)
