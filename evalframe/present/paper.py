"""``evalframe.comparison_table``: the paper table of N runs (:class:`evalframe.report.paper.ComparisonTable`).

Here (the present stage) because a run may be a TREC run file or dict, read by :func:`evalframe.compare` (the
facade); the statistics are compare's, with ``pairs="all"``, computed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..analysis.compare import TESTS, directions_of, is_result, p_column_of, scores_of_runs
from ..errors import InvalidParameterError
from ..options import CompareOptions, MetricOptions, with_options
from ..report.paper import LETTERS, ComparisonTable, caption_of, table_of_pairs
from ..trec_compare import compare

__all__ = ["comparison_table"]


def _runs_and_names(runs: Any, names: Sequence[str] | None) -> tuple[list[Any], Sequence[str] | None]:
    """The runs as a list and their names: a dict's keys, or ``names``."""
    if isinstance(runs, Mapping) and not is_result(runs):
        values = list(runs.values())
        if any(isinstance(value, Mapping) and not is_result(value)
               and not all(isinstance(ranking, Mapping) for ranking in value.values()) for value in values):
            raise InvalidParameterError(
                "runs must be a dict {name: run} or a list of runs (results, per-query tables, TREC run files or "
                "dicts {qid: {docid: score}}); got a dict whose values are not runs (one TREC run? put it in a "
                "list or a dict with the others).", parameter="runs")
        if names is not None:
            raise InvalidParameterError("names= names the runs of a list; the runs of a dict are named by its keys.",
                                        parameter="names")
        return values, [str(name) for name in runs]
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise InvalidParameterError(f"runs must be a dict {{name: run}} or a list of runs; got {type(runs).__name__}.",
                                    parameter="runs")
    return list(runs), names


@with_options(CompareOptions, MetricOptions, without=("pairs",), documented=(CompareOptions,))
def comparison_table(runs: Mapping[str, Any] | Sequence[Any], *, qrels: Any = None, max_p: float = 0.05,
                     digits: int = 4, **options: Any) -> ComparisonTable:
    """The paper table: every run's mean of every measure, with superscripts naming the runs it is significantly
    better than (ranx's convention), the test and correction stated in its caption; as LaTeX, Markdown and HTML.

    The statistics are :func:`evalframe.compare`'s over all pairs of runs (``pairs="all"``, one call): each pair of
    runs is compared on each measure by ``test`` and its p-values corrected by ``correction`` over ``family``; a
    run's cell carries the letter of each run it beats by the measure's direction
    (:func:`evalframe.direction_of`) with a significant difference (p-value at most ``max_p``).

    Parameters
    ----------
    runs : dict or list
        ``{name: run}`` or a list of runs (named by ``names``, "A", "B", ... by default), each what
        :func:`evalframe.compare` takes: a result, a per-query table, a TREC run file or dict (with ``qrels``).
        At most 26 runs (their letters are a to z).
    qrels : path, dict or ir_datasets dataset, optional
        The judgments of TREC runs, as in :func:`evalframe.compare` (``"irds:<id>"`` too).
    max_p : float
        A difference is significant when its (corrected) p-value is at most this (default 0.05; ranx's 0.01).
    digits : int
        The digits each mean is shown with (the bold best is the best of the rounded means).

    Returns
    -------
    evalframe.report.paper.ComparisonTable
        ``.frame`` (runs x measures: ``mean`` and ``better_than``), ``.caption``, ``.latex``, ``.markdown``,
        ``.html``, ``save(path)``; ``.pairs`` is compare's table it was built from.

    Raises
    ------
    InvalidParameterError
        Runs neither a dict nor a list, more than 26 runs, a bad ``digits``, and every error of
        :func:`evalframe.compare`.

    Examples
    --------
    Three TREC runs of two queries (the runs of :func:`evalframe.compare`'s example), and a third query where run C
    finds its document first:

    >>> from evalframe import comparison_table
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    >>> a = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0}, "q3": {"d9": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d9": 2.0}, "q2": {"d2": 2.0, "d9": 1.0}, "q3": {"d9": 2.0, "d3": 1.0}}
    >>> c = {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d9": 2.0, "d2": 1.0}, "q3": {"d3": 2.0}}
    >>> table = comparison_table({"A": a, "B": b, "C": c}, qrels=qrels, metrics=["RR"], max_p=0.5, rounds=1000)
    >>> table.means["RR"].round(4).tolist(), table.superscripts()["RR"].tolist()
    ([0.5, 0.5, 0.6667], ['', '', ''])
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 15:
        raise InvalidParameterError(f"digits must be an int from 0 to 15 (the digits each mean is shown with); got "
                                    f"{digits!r}.", parameter="digits")
    if "pairs" in options:
        raise InvalidParameterError("comparison_table compares every pair of runs (pairs='all'); leave pairs out.",
                                    parameter="pairs")
    listed, names = _runs_and_names(runs, options.pop("names", None))
    if len(listed) < 2:
        raise InvalidParameterError(f"runs must hold two or more runs; got {len(listed)}.", parameter="runs")
    if len(listed) > len(LETTERS):  # before any run is compared
        raise InvalidParameterError(f"the paper table names its runs by the letters a to z: at most {len(LETTERS)} runs; "
                                    f"got {len(listed)}.", parameter="runs")
    chosen, _ = CompareOptions.take({**options, "max_p": max_p})
    pairs = compare(*listed, qrels=qrels, names=names, pairs="all", max_p=chosen.max_p, **options)
    shown = list(dict.fromkeys(pairs.index.get_level_values("run_a")))
    shown += [name for name in dict.fromkeys(pairs.index.get_level_values("run_b")) if name not in shown]
    metrics = list(dict.fromkeys(str(metric) for metric in pairs.index.get_level_values("metric")))
    directions = directions_of(metrics, scores_of_runs(listed))  # results' and QueryTables' declared scores
    corrected = p_column_of(pairs, chosen.test) != TESTS[chosen.test]
    caption = caption_of(pairs, shown, metrics, test=chosen.test, correction=chosen.correction, corrected=corrected,
                         family=chosen.family, max_p=float(max_p), rounds=chosen.rounds, seed=chosen.seed,
                         zero_method=chosen.zero_method)
    return table_of_pairs(pairs, shown, directions, caption=caption, digits=digits)
