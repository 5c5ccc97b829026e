"""The regression gate's decisions: rules per measure, decided on two runs' per-query tables (``evalframe gate``).

A rule is one of :data:`RULE_KINDS`, on one measure (a Haystack metric, a trec_eval measure, a judge score):

- ``no-drop M``: fail when the candidate is *significantly worse* than the baseline on M: the one-sided paired test
  of H0 "mean gain >= 0" against H1 "mean gain < 0" has a p-value at most ``alpha`` after the correction over every
  no-drop rule of the gate (Holm's by default). Noise alone fails it in about ``alpha`` of the runs, not half.
- ``margin M=m``: non-inferiority: pass only when the candidate is *shown* not worse than ``m``: the one-sided
  ``1 - alpha`` lower bound of the mean gain is above ``-m`` (H0 "mean gain <= -m" rejected at ``alpha``). No
  correction: every margin rule must pass, an intersection-union test whose error rate stays at ``alpha``.
- ``min M=f``: an absolute floor on the candidate's number (a ceiling for a lower-is-better measure), with its
  interval, and a word when the interval reaches past the floor.

The gain of a query is ``g = candidate - baseline`` for a higher-is-better measure and its opposite for a
lower-is-better one (the direction of :func:`evalframe.direction_of`; a judge score's from its declaration). With
``n`` paired queries (those both runs scored, paired as :func:`evalframe.compare` pairs them), mean ``ḡ``, sample sd
``s`` (ddof 1) and ``se = s / sqrt(n)``, the t-test's p-value of no-drop is ``P(T_{n-1} <= ḡ / se)``; the
randomization test's is ``(1 + #{r : sum_i s_ri g_i <= sum_i g_i}) / (rounds + 1)`` over ``rounds`` random sign
patterns ``s_r`` (seeded). Every interval is ``delta -+ t_{1-alpha, n-1} se``: two-sided at ``1 - 2 alpha``, its
worse end the one-sided ``1 - alpha`` bound. A measure aggregated otherwise than by the mean (trec_eval's geometric
mean of ``gm_map``) is tested on what each query adds to its number (the floored logs), as compare does, its
interval carried to the number's scale.

Examples
--------
>>> import pandas as pd
>>> index = pd.Index([f"q{i}" for i in range(6)], name="multilabel_id")
>>> baseline = pd.DataFrame({"mrr": [1.0, 0.5, 1.0, 0.5, 1.0, 0.25]}, index=index)
>>> candidate = pd.DataFrame({"mrr": [0.5, 0.5, 0.5, 0.25, 1.0, 0.25]}, index=index)
>>> verdict = decide(baseline, candidate, rules_of(no_drop="mrr", margin={"mrr": 0.5}))
>>> verdict.status, verdict.exit_code
('fail', 1)
>>> print(verdict)  # gains 0 or -0.5, -0.25: mean -0.2083, se 0.1004, t -2.076 on 5 df
gate FAIL (exit 1): 'candidate' against 'baseline', 6 queries, alpha 0.05, t-test
  --no-drop mrr: FAIL: delta -0.2083 is below 0: p 0.0463 <= alpha 0.05 (one no-drop rule)
  --margin mrr=0.5: PASS: delta -0.2083 is shown above -0.5: its one-sided 95% lower bound -0.4105 > -0.5
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import _validation as check
from ..errors import EvalframeError, InvalidParameterError
from ..metrics.registry import AGGREGATIONS, Aggregation, Metric
from ..metrics.trec import aggregation_of, without_direction
from ..options import COMPARE_CORRECTIONS
from .compare import (directions_of, measure_names, paired_differences_many, per_query_table, scores_of_runs,
                      select_metrics)
from .protocol import QueryTable
from .stats import adjust_p_values, randomization_p_value_below, student_t_below

__all__ = ["RULE_KINDS", "GATE_TESTS", "Rule", "rules_of", "Outcome", "QuestionSets", "Verdict", "decide",
           "WORST_COLUMNS", "queries_needed"]

#: The kinds of rule: a significant drop fails, a drop past a margin not excluded fails, a number below a floor fails.
RULE_KINDS = ("no-drop", "margin", "min")
#: The tests of the no-drop and margin rules (``test=``): the one-sided paired t-test (the default) or the paired
#: randomization (sign-flip) test.
GATE_TESTS = ("t-test", "randomization")
#: The columns of :attr:`Verdict.worst`.
WORST_COLUMNS = ("measure", "query", "text", "baseline", "candidate", "delta")
#: The parameter of :func:`rules_of` each kind is given by (the command line's flags: ``--no-drop``, ``--margin``,
#: ``--min``).
_PARAMETERS = {"no-drop": "no_drop", "margin": "margin", "min": "minimum"}
#: How each correction is named in a reason.
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "holm-sidak": "Holm-Sidak",
                     "fdr_bh": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli", "none": "uncorrected"}


def _number(value: float) -> str:
    """A number as a reason writes it: 4 decimals, or 2 significant digits when smaller than that shows."""
    if math.isnan(value):
        return "nan"
    if value == 0 or abs(value) >= 1e-4 or math.isinf(value):
        return f"{value:.4f}"
    return f"{value:.2g}"


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + _number(value)


def _value_text(value: float) -> str:
    return f"{value:.12g}"


@dataclass(frozen=True)
class Rule:
    """One rule of the gate: its kind (:data:`RULE_KINDS`), the measure it gates (as the per-query tables name it)
    and its value (the margin, >= 0, or the floor; None for no-drop).

    Examples
    --------
    >>> Rule("margin", "recall_single_hit", 0.01).flag()
    '--margin recall_single_hit=0.01'
    >>> Rule("no-drop", "nDCG@10", None).flag()
    '--no-drop nDCG@10'
    """

    kind: str
    measure: str
    value: float | None = None

    def __post_init__(self) -> None:
        check.check_choice(self.kind, RULE_KINDS, name="kind")
        if not isinstance(self.measure, str) or not self.measure:
            raise InvalidParameterError(f"measure must be a measure's name (a non-empty str); got {self.measure!r}.",
                                        parameter="measure")
        if self.kind == "no-drop":
            if self.value is not None:
                raise InvalidParameterError(f"value must be None for a no-drop rule (it has no margin or floor); got "
                                            f"{self.value!r}.", parameter="value")
            return
        value = self.value
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                or not math.isfinite(float(value))):
            what = "the margin (a finite number >= 0)" if self.kind == "margin" else "the floor (a finite number)"
            raise InvalidParameterError(f"value must be {what} of the {self.kind} rule on {self.measure!r}; got "
                                        f"{value!r}.", parameter="value")
        if self.kind == "margin" and float(value) < 0:
            raise InvalidParameterError(f"value must be a margin >= 0 (how far the candidate may fall); got {value!r} "
                                        f"for {self.measure!r}.", parameter="value")
        object.__setattr__(self, "value", float(value))

    def flag(self) -> str:
        """The rule as the command line writes it: ``--no-drop M``, ``--margin M=m``, ``--min M=f``."""
        if self.value is None:
            return f"--{self.kind} {self.measure}"
        return f"--{self.kind} {self.measure}={_value_text(self.value)}"


def _canonical(name: str, parameter: str) -> list[str]:
    """The measures a rule's name stands for, in the per-query tables' names (``ndcg_cut_10`` is ``nDCG@10``; a
    trec_eval family such as ``P.5,10`` is several)."""
    try:
        named, _ = measure_names([name])
    except EvalframeError as error:
        raise InvalidParameterError(f"{parameter}: {error}", parameter=parameter) from None
    return named


def _pairs_of(given: Any, parameter: str) -> list[tuple[str, float]]:
    """A margin's or floor's ``{measure: value}`` or ``["measure=value", ...]`` (the command line's texts)."""
    if given is None:
        return []
    example = "recall_single_hit=0.01" if parameter == "margin" else "recall_single_hit=0.8"
    if isinstance(given, Mapping):
        items = list(given.items())
    elif isinstance(given, str) or (isinstance(given, Sequence) and not isinstance(given, bytes)):
        items = []
        for text in ([given] if isinstance(given, str) else given):
            if not isinstance(text, str) or "=" not in text:
                raise InvalidParameterError(
                    f"{parameter} must be written measure=value, e.g. {example}; got {text!r}.", parameter=parameter)
            name, _, value = text.rpartition("=")  # the last '=': a measure's name may hold one, P(rel=2)@5
            try:
                number = float(value.strip())
            except ValueError:
                raise InvalidParameterError(
                    f"{parameter} must be written measure=value with a number after '=', e.g. {example}; got "
                    f"{text!r}.", parameter=parameter) from None
            items.append((name.strip(), number))
    else:
        raise InvalidParameterError(
            f"{parameter} must be a mapping {{measure: value}} or a list of 'measure=value' texts, e.g. [{example!r}]; "
            f"got {type(given).__name__} {check.short_repr(given)}.", parameter=parameter)
    pairs = []
    for name, value in items:
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"{parameter} must name a measure before '=', e.g. {example}; got {name!r}.",
                                        parameter=parameter)
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                or not math.isfinite(float(value))):
            raise InvalidParameterError(f"{parameter} {name}= must be a finite number, e.g. {example}; got {value!r}.",
                                        parameter=parameter)
        if parameter == "margin" and float(value) < 0:
            raise InvalidParameterError(
                f"{parameter} {name}= must be >= 0 (how far below the baseline the candidate may fall, in the measure's "
                f"own units); got {value!r}.", parameter=parameter)
        pairs.append((name, float(value)))
    return pairs


def rules_of(no_drop: str | Sequence[str] = (), margin: Mapping[str, float] | Sequence[str] | None = None,
             minimum: Mapping[str, float] | Sequence[str] | None = None) -> list[Rule]:
    """The gate's rules from the keyword arguments of :func:`evalframe.gate` (and the flags of ``evalframe gate``).

    Parameters
    ----------
    no_drop : str or sequence of str
        The measures that must not drop significantly (``--no-drop``).
    margin : mapping or sequence of "measure=value", optional
        Non-inferiority margins (``--margin``): each measure must be shown no more than its margin worse.
    minimum : mapping or sequence of "measure=value", optional
        Floors on the candidate's number (``--min``; a ceiling for a lower-is-better measure).

    Returns
    -------
    list of Rule
        The no-drop rules, then the margins, then the floors, each measure in the tables' name (``ndcg_cut_10`` is
        ``nDCG@10``; a trec_eval family, ``P.5,10``, is one rule per measure).

    Raises
    ------
    InvalidParameterError
        Naming the parameter (``no_drop``, ``margin`` or ``minimum``): a text not of the form measure=value, a value
        that is no finite number, a negative margin, a measure named twice in one kind, or no rule at all.

    Examples
    --------
    >>> [rule.flag() for rule in rules_of("ndcg_cut_10", margin=["recall_single_hit=0.01"], minimum={"mrr": 0.5})]
    ['--no-drop nDCG@10', '--margin recall_single_hit=0.01', '--min mrr=0.5']
    """
    if isinstance(no_drop, str):
        no_drop = [no_drop]
    if not isinstance(no_drop, Sequence) or not all(isinstance(name, str) and name for name in no_drop):
        raise InvalidParameterError(f"no_drop must be a measure's name or a list of them, e.g. ['nDCG@10']; got "
                                    f"{check.short_repr(no_drop)}.", parameter="no_drop")
    given: list[tuple[str, str, float | None]] = [("no-drop", name, None) for name in no_drop]
    given += [("margin", name, value) for name, value in _pairs_of(margin, "margin")]
    given += [("min", name, value) for name, value in _pairs_of(minimum, "minimum")]
    if not given:
        raise InvalidParameterError("give at least one rule: no_drop (a measure that must not drop), margin "
                                    "({measure: margin}) or minimum ({measure: floor}).", parameter="no_drop")
    rules: list[Rule] = []
    seen: dict[tuple[str, str], str] = {}
    for kind, name, value in given:
        parameter = _PARAMETERS[kind]
        for measure in _canonical(name, parameter):
            if (kind, measure) in seen:
                same = "" if seen[kind, measure] == name else f" (as {seen[kind, measure]!r})"
                raise InvalidParameterError(f"{parameter} names {measure!r} twice{same}; give each measure once.",
                                            parameter=parameter)
            seen[kind, measure] = name
            rules.append(Rule(kind, measure, value))
    return rules


@dataclass(frozen=True)
class Outcome:
    """One rule's decision, with its numbers (each in the measure's own scale).

    ``status`` is ``"pass"``, ``"fail"`` or ``"undecided"``; ``reason`` says why, with the numbers; ``queries`` the
    paired queries the statistic used (for ``min``, the candidate's scored queries); ``baseline`` / ``candidate``
    their numbers over those queries (the measure's aggregation; ``baseline`` NaN for ``min``); ``delta`` candidate -
    baseline; ``low`` / ``high`` the rule's interval (``delta`` -+ t se, or the candidate's number -+ t se for
    ``min``); ``p_value`` the one-sided p-value of the rule's test (NaN for ``min``); ``p_adjusted`` the no-drop
    p-value corrected over the gate's no-drop rules (``p_value`` otherwise).
    """

    rule: Rule
    status: str
    reason: str
    direction: str
    queries: int
    baseline: float
    candidate: float
    delta: float
    low: float
    high: float
    p_value: float
    p_adjusted: float


@dataclass(frozen=True)
class QuestionSets:
    """The question sets of the two runs: the distinct query ids of each and those they share, and whether the gate
    was told to decide on the shared ones only (``on_common``)."""

    baseline: int
    candidate: int
    common: int
    on_common: bool

    @property
    def differ(self) -> int:
        """How many questions one run has and the other has not."""
        return self.baseline + self.candidate - 2 * self.common


_EXIT_CODES = {"pass": 0, "fail": 1, "undecided": 2}


@dataclass(frozen=True)
class Verdict:
    """The gate's decision on a candidate run against a baseline: one :class:`Outcome` per rule.

    ``status`` is ``"fail"`` when a rule fails, else ``"undecided"`` when a rule could not be decided or the whole
    gate could not (``message``: the question sets differ), else ``"pass"``; ``exit_code`` 0, 1 or 2 accordingly.
    ``worst`` lists the worst regressed queries of each gated measure (:data:`WORST_COLUMNS`).
    """

    baseline_name: str
    candidate_name: str
    node: str | None
    outcomes: tuple[Outcome, ...]
    questions: QuestionSets
    worst: pd.DataFrame
    alpha: float
    test: str
    correction: str
    confidence_note: str
    message: str

    @property
    def status(self) -> str:
        """``"fail"``, ``"undecided"`` or ``"pass"``."""
        statuses = {outcome.status for outcome in self.outcomes}
        if "fail" in statuses:
            return "fail"
        if "undecided" in statuses or self.message:
            return "undecided"
        return "pass"

    @property
    def exit_code(self) -> int:
        """0 pass, 1 a rule failed, 2 the gate could not decide."""
        return _EXIT_CODES[self.status]

    @property
    def passed(self) -> bool:
        """Whether every rule passed."""
        return self.status == "pass"

    def __str__(self) -> str:
        queries = max((outcome.queries for outcome in self.outcomes), default=0)
        node = f", node {self.node!r}" if self.node is not None else ""
        lines = [f"gate {self.status.upper()} (exit {self.exit_code}): {self.candidate_name!r} against "
                 f"{self.baseline_name!r}{node}, {queries} quer{'y' if queries == 1 else 'ies'}, "
                 f"alpha {_value_text(self.alpha)}, {self.test}"]
        if self.message:
            lines.append(f"  {self.message}")
        lines += [f"  {outcome.rule.flag()}: {outcome.status.upper()}: {outcome.reason}" for outcome in self.outcomes]
        return "\n".join(lines)


def _t_quantile(probability: float, df: int) -> float:
    """t_{probability, df}: Student's t quantile (``scipy.stats.t.ppf``, imported when a gate runs)."""
    from scipy import stats  # lazily: import evalframe loads no scipy

    return float(stats.t.ppf(probability, df))


def queries_needed(alpha: float) -> int:
    """The fewest queries whose exact sign-flip test can reach ``alpha``: the smallest n with ``1 / 2**n <= alpha``
    (the lowest one-sided p-value of n queries is that of the one sign pattern as low as the observed one).

    Examples
    --------
    >>> queries_needed(0.05), queries_needed(0.0625), queries_needed(0.01)
    (5, 4, 7)
    """
    return max(1, math.ceil(-math.log2(alpha) - 1e-12))


def _summand_margin(aggregation: Aggregation, margin: float, n: int, mean_a: float, direction: str) -> float:
    """A margin on the number's scale (delta) as a margin on the mean of the per-query summands' gains: the same
    for the mean, over n for a sum, and for a geometric mean (summands: logs) the log ratio that moves the number by
    the margin the worse way (inf when no value of the number is that far below)."""
    worse = -margin if direction == "higher" else margin  # the delta at the margin
    if aggregation.name == "sum":
        shift = worse / n
    elif aggregation.name == "geometric_mean":
        ratio = 1.0 + worse / mean_a if mean_a > 0 else math.nan
        shift = math.log(ratio) if ratio > 0 else -math.inf
    else:
        shift = worse
    return -shift if direction == "higher" else shift


@dataclass(frozen=True)
class _Sample:
    """One measure of the two runs on the paired queries: the gains (on the summands' scale) and the numbers."""

    gains: np.ndarray
    baseline: float
    candidate: float
    aggregation: Aggregation


def _correction_note(correction: str, tested: int) -> str:
    if tested <= 1:
        return "one no-drop rule"
    if correction == "none":
        return f"uncorrected, {tested} no-drop rules"
    return f"{_CORRECTION_NAMES[correction]} over {tested} measures"


def _check_table(run: Any, name: str) -> pd.DataFrame:
    if not isinstance(run, (pd.DataFrame, QueryTable)):
        raise InvalidParameterError(
            f"{name} must be a per-query table (a pandas DataFrame indexed by query id, or a QueryTable); got "
            f"{type(run).__name__}. evalframe.gate reads results, folders and stored runs.", parameter=name)
    return per_query_table(run, None, {}, name)


def decide(baseline: QueryTable | pd.DataFrame, candidate: QueryTable | pd.DataFrame, rules: Sequence[Rule], *,
           alpha: float = 0.05, test: str = "t-test", correction: str = "holm", on_common: bool = False,
           names: tuple[str, str] = ("baseline", "candidate"), node: str | None = None, worst: int = 5,
           rounds: int = 10_000, seed: int = 0, texts: pd.Series | None = None,
           judgments_differ: str | None = None) -> Verdict:
    """Decide the gate's ``rules`` on two runs' per-query tables: the statistics of the module's documentation.

    Parameters
    ----------
    baseline, candidate : QueryTable or pandas.DataFrame
        The runs' per-query tables (index: the query id; one column per measure or score); a QueryTable's
        ``scores`` declare its judge scores' directions.
    rules : sequence of Rule
        What to decide (:func:`rules_of`).
    alpha : float
        The level of every test and bound, in (0, 0.5).
    test : str
        ``"t-test"`` or ``"randomization"`` (:data:`GATE_TESTS`), for no-drop and margin.
    correction : str
        The correction of the no-drop p-values over the gate's no-drop rules (compare's corrections, ``"none"``).
    on_common : bool
        Decide on the questions both runs have when their question sets differ (else the gate is undecided).
    names : tuple of str
        What the baseline and the candidate are called.
    node : str, optional
        The node the tables are of (shown).
    worst : int
        How many of the worst regressed queries to list per gated measure.
    rounds, seed : int
        The randomization test's sign patterns and their seed.
    texts : pandas.Series, optional
        The query texts by query id, for :attr:`Verdict.worst`.
    judgments_differ : str, optional
        Why the two runs' values are not comparable although their query ids may be (e.g. stored runs judged by
        different qrels): the verdict is undecided with this message, even with ``on_common``.

    Returns
    -------
    Verdict

    Raises
    ------
    InvalidParameterError
        A bad option (named), a rule's measure missing from a table (naming the columns there are), a measure
        whose direction is ``"none"`` (a count) or unknown.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"recall_single_hit": [1.0, 1.0, 0.0, 1.0]}, index=["q1", "q2", "q3", "q4"])
    >>> verdict = decide(a, a, rules_of(minimum={"recall_single_hit": 0.8}))
    >>> verdict.passed, verdict.exit_code  # 0.75 -+ t_{0.95, 3} 0.5 / 2 = 0.75 -+ 2.3534 * 0.25
    (False, 1)
    >>> print(verdict.outcomes[0].reason)
    the candidate 0.7500 is below the floor 0.8, but within its interval [0.1617, 1.3383]: more queries would tell
    """
    rules = _check_rules(rules)
    alpha = check.check_number(alpha, name="alpha")
    if not 0.0 < alpha < 0.5:
        raise InvalidParameterError(f"alpha must lie strictly between 0 and 0.5, e.g. 0.05; got {alpha!r}.",
                                    parameter="alpha")
    test = check.check_choice(test, GATE_TESTS, name="test")
    correction = check.check_choice(correction, COMPARE_CORRECTIONS, name="correction")
    on_common = check.check_real_bool(on_common, name="on_common")
    if (not isinstance(names, Sequence) or isinstance(names, str) or len(names) != 2
            or not all(isinstance(n, str) and n for n in names) or names[0] == names[1]):
        raise InvalidParameterError(f"names must be two distinct names (baseline, candidate); got {names!r}.",
                                    parameter="names")
    node = check.check_optional_name(node, name="node")
    worst = check.check_positive_int(worst, name="worst")
    rounds = check.check_positive_int(rounds, name="rounds", minimum=1)
    seed = check.check_positive_int(seed, name="seed")
    if texts is not None and not isinstance(texts, pd.Series):
        raise InvalidParameterError(f"texts must be a pandas Series of query texts by query id, or None; got "
                                    f"{type(texts).__name__}.", parameter="texts")
    if texts is not None and texts.index.has_duplicates:
        raise InvalidParameterError(f"texts has query {texts.index[texts.index.duplicated()][0]!r} more than once; "
                                    "give one text per query id.", parameter="texts")
    tables = [_check_table(baseline, "baseline"), _check_table(candidate, "candidate")]
    measures = list(dict.fromkeys(rule.measure for rule in rules))
    for table, (which, name) in zip(tables, (("baseline", names[0]), ("candidate", names[1]))):
        for rule in rules:
            if rule.measure not in table.columns:
                columns = [str(c) for c in table.columns]
                raise InvalidParameterError(
                    f"rules: {rule.flag()}: the {which} {name!r} has no measure {rule.measure!r}; its columns are "
                    f"{check.few_names(columns, limit=10)}.{check.did_you_mean(rule.measure, columns)}",
                    parameter="rules")
    select_metrics(tables, measures, names, parameter="rules")  # numeric and finite
    scores: dict[str, Metric] = scores_of_runs([baseline, candidate])
    directions: dict[str, str] = {}
    for measure in measures:
        try:
            directions.update(directions_of([measure], scores))
        except InvalidParameterError:
            raise InvalidParameterError(
                f"rules: which way {measure!r} is better is not known: it is no measure of evalframe's registry and no "
                "declared score; declare it (QueryTable(table, scores={name: score_measure(name, direction=...)}) or "
                "result.add_scores(..., direction=...)).", parameter="rules") from None
    for measure in measures:
        if directions[measure] == "none":
            error = without_direction(measure, scores, "no better or worse side to gate")
            raise InvalidParameterError(f"rules: {error}", parameter="rules")

    ids = [pd.Index(table.index).unique() for table in tables]
    common = ids[0].intersection(ids[1], sort=False)
    questions = QuestionSets(len(ids[0]), len(ids[1]), len(common), on_common)
    note = _confidence_note(alpha, test, rounds, seed)
    if judgments_differ is not None and not isinstance(judgments_differ, str):
        raise InvalidParameterError(f"judgments_differ must be a message (str) or None; got "
                                    f"{type(judgments_differ).__name__}.", parameter="judgments_differ")
    if judgments_differ or (questions.differ and not on_common):
        message = judgments_differ or (
            f"{questions.differ} questions differ (baseline {questions.baseline}, candidate "
            f"{questions.candidate}, common {questions.common}); pass on_common=True (--on-common on the command "
            f"line) to gate on the {questions.common} shared")
        why = "the judgments differ" if judgments_differ else "the question sets differ"
        refused = tuple(Outcome(rule, "undecided", f"not compared: {why}", directions[rule.measure],
                                0, *([math.nan] * 7)) for rule in rules)
        return Verdict(names[0], names[1], node, refused, questions, _no_worst(), alpha, test, correction, note,
                       message)
    if questions.differ:
        tables = [table.loc[table.index.isin(common)] for table in tables]
    shared = f" (on the {questions.common} questions both runs have)" if questions.differ else ""

    samples = {}
    for measure, pairs in zip(measures, paired_differences_many(tables, [(0, 1)], measures, directions)):
        gains = pairs.d if directions[measure] == "higher" else -pairs.d
        samples[measure] = _Sample(gains, pairs.mean_a, pairs.mean_b, AGGREGATIONS[pairs.aggregation])
    decided = [_decide_rule(rule, samples[rule.measure], directions[rule.measure], tables[1][rule.measure],
                            alpha=alpha, test=test, rounds=rounds, seed=seed) for rule in rules]
    no_drop = [position for position, rule in enumerate(rules) if rule.kind == "no-drop"]
    p = np.array([decided[position].p_value for position in no_drop], dtype=np.float64)
    adjusted = adjust_p_values(p, correction) if len(p) else p
    tested = int(np.count_nonzero(~np.isnan(p)))
    outcomes = list(decided)
    for position, p_adjusted in zip(no_drop, adjusted.tolist()):
        outcomes[position] = _no_drop_verdict(decided[position], p_adjusted, alpha, correction, tested)
    unscored = _unscored(tables, measures, names)
    outcomes = [_with_reason(outcome, (outcome.reason or "") + unscored[outcome.rule.measure] + shared)
                if shared or unscored[outcome.rule.measure] else outcome for outcome in outcomes]
    return Verdict(names[0], names[1], node, tuple(outcomes), questions,
                   _worst_queries(tables, measures, directions, worst, texts), alpha, test, correction, note, "")


def _unscored(tables: Sequence[pd.DataFrame], measures: Sequence[str], names: Sequence[str]) -> dict[str, str]:
    """Per measure, the words saying how many questions of both runs one run did not score (NaN there, a number in
    the other run): those are not paired, and a rule must say so rather than silently decide on fewer."""
    first = [table.loc[~pd.Index(table.index).duplicated()] for table in tables]
    ids = pd.Index(first[0].index).intersection(pd.Index(first[1].index), sort=False)
    words = {}
    for measure in measures:
        missing = [first[k][measure].reindex(ids).isna().to_numpy() for k in (0, 1)]
        parts = []
        for k, which in ((0, "baseline"), (1, "candidate")):
            count = int(np.count_nonzero(missing[k] & ~missing[1 - k]))
            if count:
                parts.append(f"{count} {'query' if count == 1 else 'queries'} unscored in the {which} {names[k]!r}")
        words[measure] = f" ({'; '.join(parts)}: not paired)" if parts else ""
    return words


def _check_rules(rules: Any) -> list[Rule]:
    if isinstance(rules, Rule):
        rules = [rules]
    if isinstance(rules, (str, bytes)) or not isinstance(rules, Sequence) or not all(isinstance(r, Rule) for r in rules):
        raise InvalidParameterError(f"rules must be a list of Rule (evalframe.analysis.gate.rules_of(...)); got "
                                    f"{check.short_repr(rules)}.", parameter="rules")
    if not rules:
        raise InvalidParameterError("rules must hold at least one rule (rules_of(no_drop=..., margin=..., "
                                    "minimum=...)).", parameter="rules")
    seen = set()
    for rule in rules:
        if (rule.kind, rule.measure) in seen:
            raise InvalidParameterError(f"rules: {rule.kind} {rule.measure!r} is given twice; give each once.",
                                        parameter="rules")
        seen.add((rule.kind, rule.measure))
    return list(rules)


def _confidence_note(alpha: float, test: str, rounds: int, seed: int) -> str:
    level = _value_text(100 * (1 - alpha))
    note = f"one-sided {level}% t bounds"
    if test == "randomization":
        note += f"; p-values of the sign-flip test ({rounds:,} rounds, seed {seed})"
    return note


def _no_worst() -> pd.DataFrame:
    return pd.DataFrame({"measure": pd.Series(dtype=object), "query": pd.Series(dtype=object),
                         "text": pd.Series(dtype=object), "baseline": pd.Series(dtype=np.float64),
                         "candidate": pd.Series(dtype=np.float64), "delta": pd.Series(dtype=np.float64)})


def _with_reason(outcome: Outcome, reason: str, **changes: Any) -> Outcome:
    fields = {**outcome.__dict__, "reason": reason, **changes}
    return Outcome(**fields)


def _undecided(rule: Rule, direction: str, reason: str, n: int, sample: _Sample | None = None) -> Outcome:
    baseline = sample.baseline if sample is not None and rule.kind != "min" else math.nan
    candidate = sample.candidate if sample is not None else math.nan
    delta = candidate - baseline if rule.kind != "min" else math.nan
    return Outcome(rule, "undecided", reason, direction, n, baseline, candidate, delta, math.nan, math.nan,
                   math.nan, math.nan)


def _decide_rule(rule: Rule, sample: _Sample, direction: str, candidate_values: pd.Series, *, alpha: float,
                 test: str, rounds: int, seed: int) -> Outcome:
    """A rule's statistics; a no-drop rule's status is left to :func:`_no_drop_verdict` (after the correction)."""
    if rule.kind == "min":
        return _floor(rule, direction, candidate_values, alpha)
    g = sample.gains
    n = len(g)
    flag = rule.flag()
    if n < 2:
        return _undecided(rule, direction, f"too few queries for {flag}: {n} paired, at least 2 are needed", n,
                          sample if n else None)
    if test == "randomization":
        needed = queries_needed(alpha)
        if n < needed:
            return _undecided(rule, direction, f"too few queries for {flag} at alpha {_value_text(alpha)}: {n} "
                              f"paired, at least {needed} are needed (the sign-flip test's smallest p-value is "
                              f"1/2^n)", n, sample)
        if 1 / (rounds + 1) > alpha:
            return _undecided(rule, direction, f"too few rounds for {flag} at alpha {_value_text(alpha)}: "
                              f"{rounds}; the smallest p-value is 1/(rounds + 1)", n, sample)
    mean = float(g.mean())
    equal = bool(np.all(g == g[0]))
    se = 0.0 if equal else float(g.std(ddof=1)) / math.sqrt(n)
    half = _t_quantile(1.0 - alpha, n - 1) * se
    delta = sample.candidate - sample.baseline
    # the interval of the summands' mean difference (candidate - baseline), carried to delta's scale
    d_mean = mean if direction == "higher" else -mean
    low, high = sample.aggregation.interval(d_mean - half, d_mean + half, n, sample.baseline)
    if equal:
        low = high = delta
    worse_end = low if direction == "higher" else high
    if rule.kind == "no-drop":
        if equal:
            p = 1.0 if g[0] >= 0 else 0.0
        elif test == "t-test":
            p = student_t_below(mean / se, n - 1)
        else:
            p = randomization_p_value_below(g, rounds=rounds, rng=np.random.default_rng(seed))
        return Outcome(rule, "undecided", "every query's gain is the same" if equal else "", direction, n,
                       sample.baseline, sample.candidate, delta, low, high, p, p)
    # margin: H0 mean gain <= -m against H1 mean gain > -m
    value = float(rule.value or 0.0)
    shift = _summand_margin(sample.aggregation, value, n, sample.baseline, direction)
    shifted = g + shift
    if equal or math.isinf(shift):
        p = 0.0 if (math.isinf(shift) or shifted[0] > 0) else 1.0
    elif test == "t-test":
        p = student_t_below(-float(shifted.mean()) / se, n - 1)  # P(T >= (mean + m) / se)
    else:
        p = randomization_p_value_below(-shifted, rounds=rounds, rng=np.random.default_rng(seed))
    margin = _value_text(value)
    bound_name = "lower" if direction == "higher" else "upper"
    limit = f"-{margin}" if direction == "higher" else f"+{margin}"
    beyond = "above" if direction == "higher" else "below"
    level = f"one-sided {_value_text(100 * (1 - alpha))}%"
    if test == "t-test":
        shown = (worse_end > -value) if direction == "higher" else (worse_end < value)
        if equal:
            shown = p == 0.0
        evidence = f"its {level} {bound_name} bound {_number(worse_end)}"
        relation = {(True, "higher"): ">", (False, "higher"): "<=", (True, "lower"): "<", (False, "lower"): ">="}
        reason = (f"delta {_signed(delta)} is {'' if shown else 'not '}shown {beyond} {limit}: {evidence} "
                  f"{relation[shown, direction]} {limit}")
    else:
        shown = p <= alpha
        reason = (f"delta {_signed(delta)} is {'' if shown else 'not '}shown {beyond} {limit}: sign-flip p "
                  f"{_number(p)} {'<=' if shown else '>'} alpha {_value_text(alpha)}")
    if equal:
        reason += " (every query's gain is the same)"
    if direction == "lower":
        reason += " (lower is better)"
    return Outcome(rule, "pass" if shown else "fail", reason, direction, n, sample.baseline, sample.candidate, delta,
                   low, high, p, p)


def _no_drop_verdict(outcome: Outcome, p_adjusted: float, alpha: float, correction: str, tested: int) -> Outcome:
    if outcome.status == "undecided" and outcome.reason and math.isnan(outcome.p_value):
        return outcome  # too few queries
    same = outcome.reason  # "every query's gain is the same" or ""
    lower = outcome.direction == "lower"
    worse = "above 0 (lower is better)" if lower else "below 0"
    failed = p_adjusted <= alpha
    note = _correction_note(correction, tested)
    shown_p = f"p {_number(outcome.p_value)}"
    if correction != "none" and tested > 1:
        shown_p += f", adjusted {_number(p_adjusted)}"
    if failed:
        reason = f"delta {_signed(outcome.delta)} is {worse}: {shown_p} <= alpha {_value_text(alpha)} ({note})"
    else:
        reason = (f"delta {_signed(outcome.delta)} is not significantly {worse}: {shown_p} > alpha "
                  f"{_value_text(alpha)} ({note})")
    if same:
        reason += f"; {same}"
    return _with_reason(outcome, reason, status="fail" if failed else "pass", p_adjusted=p_adjusted)


def _floor(rule: Rule, direction: str, values: pd.Series, alpha: float) -> Outcome:
    """``min``: the candidate's number over every query it scored against the floor (a ceiling when lower is
    better), with its interval: the summands' mean -+ t se, finished as the number is."""
    value = float(rule.value or 0.0)
    aggregation = aggregation_of(values.name)
    scored = values.to_numpy(dtype=np.float64, na_value=np.nan)
    scored = scored[~np.isnan(scored)]
    n = len(scored)
    if n == 0:
        return _undecided(rule, direction, f"the candidate scored no query for {rule.flag()}", 0)
    number = aggregation(scored)
    summands = aggregation.summands(scored)
    if n >= 2 and not np.all(summands == summands[0]):
        half = _t_quantile(1.0 - alpha, n - 1) * float(summands.std(ddof=1)) / math.sqrt(n)
        mean = float(summands.mean())
        ends = aggregation.finish(np.array([n * (mean - half), n * (mean + half)]), np.array([n, n]))
        low, high = float(ends[0]), float(ends[1])
    elif n >= 2:
        low = high = number
    else:
        low = high = math.nan
    floor = _value_text(value)
    interval = f"[{_number(low)}, {_number(high)}]"
    if direction == "higher":
        name, side = "floor", "below"
        broken = number < value
        reaches = high >= value if broken else low < value  # NaN (one query): False
    else:
        name, side = "ceiling", "above"
        broken = number > value
        reaches = low <= value if broken else high > value
    if broken:
        reason = f"the candidate {_number(number)} is {side} the {name} {floor}"
        if reaches:
            reason += f", but within its interval {interval}: more queries would tell"
    else:
        reason = f"the candidate {_number(number)} is not {side} the {name} {floor}"
        if reaches:
            reason += f", but its interval {interval} reaches {side} it: more queries would tell"
    if n < 2:
        reason += " (one query: no interval)"
    return Outcome(rule, "fail" if broken else "pass", reason, direction, n, math.nan, number, math.nan, low, high,
                   math.nan, math.nan)


def _worst_queries(tables: Sequence[pd.DataFrame], measures: Sequence[str], directions: Mapping[str, str],
                   count: int, texts: pd.Series | None) -> pd.DataFrame:
    """Per measure the ``count`` queries whose value dropped most by its direction (ties in the baseline's order)."""
    if count == 0:
        return _no_worst()
    in_candidate = tables[1].index.get_indexer(tables[0].index)  # each baseline query's row in the candidate, or -1
    ids = np.asarray(tables[0].index, dtype=object)
    columns: dict[str, list[np.ndarray]] = {name: [] for name in ("measure", "query", "baseline", "candidate", "delta")}
    for measure in measures:
        a = tables[0][measure].to_numpy(dtype=np.float64, na_value=np.nan)
        b = np.full(len(a), np.nan)
        found = in_candidate >= 0
        b[found] = tables[1][measure].to_numpy(dtype=np.float64, na_value=np.nan)[in_candidate[found]]
        delta = b - a
        gain = delta if directions[measure] == "higher" else -delta
        dropped = np.flatnonzero(gain < 0)  # NaN (a query one run did not score) is no drop
        # rounded to 12 digits: equal drops written alike (1.05 - 1.0, 0.95 - 0.9) tie, and keep the baseline's order
        chosen = dropped[np.argsort(np.round(gain[dropped], 12), kind="stable")][:count]
        columns["measure"].append(np.full(len(chosen), measure, dtype=object))
        columns["query"].append(ids[chosen])
        for name, values in (("baseline", a), ("candidate", b), ("delta", delta)):
            columns[name].append(values[chosen])
    joined = {name: np.concatenate(parts) for name, parts in columns.items()}
    if not len(joined["query"]):
        return _no_worst()
    text = np.full(len(joined["query"]), "", dtype=object)
    if texts is not None:
        looked_up = texts.reindex(pd.Index(joined["query"], dtype=object)).to_numpy(dtype=object)
        known = ~pd.isna(looked_up)
        text[known] = pd.Series(looked_up[known], dtype=object).astype(str).to_numpy(dtype=object)
    return pd.DataFrame({"measure": joined["measure"], "query": joined["query"], "text": text,
                         "baseline": joined["baseline"], "candidate": joined["candidate"], "delta": joined["delta"]})
