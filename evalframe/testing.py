"""Helpers for a project's own tests: :func:`assert_no_regression`, the regression gate as a pytest assertion.

Examples
--------
>>> import pandas as pd
>>> from evalframe.testing import assert_no_regression
>>> index = pd.Index([f"q{i}" for i in range(6)], name="multilabel_id")
>>> baseline = pd.DataFrame({"mrr": [1.0, 0.5, 1.0, 0.5, 1.0, 0.25]}, index=index)
>>> assert_no_regression(baseline + 0.0, baseline, no_drop="mrr").status
'pass'
"""

from __future__ import annotations

from typing import Any

from .analysis.gate import Verdict
from .present.gate import gate
from .report.verdict import render_verdict

__all__ = ["assert_no_regression"]


def assert_no_regression(candidate: Any, baseline: Any, **gate_options: Any) -> Verdict:
    """Assert that ``candidate`` passes the gate's rules against ``baseline`` (:func:`evalframe.gate`).

    Note the order: the candidate (the run under test) first, then the baseline it must not fall behind.

    Parameters
    ----------
    candidate, baseline
        The runs, of any kind :func:`evalframe.gate` takes (results, per-query tables, paths, ``"@ref"``).
    **gate_options
        :func:`evalframe.gate`'s options: ``no_drop``, ``margin``, ``minimum``, ``alpha``, ``node``, ``store``, ...

    Returns
    -------
    Verdict
        The verdict, when it passes.

    Raises
    ------
    AssertionError
        The verdict fails, or is undecided (different question sets, too few queries): its message is the verdict
        as text (:func:`evalframe.report.verdict.render_verdict`), every rule with its numbers and reason.
    InvalidParameterError
        Bad options (as :func:`evalframe.gate`).

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.Index([f"q{i}" for i in range(6)], name="multilabel_id")
    >>> baseline = pd.DataFrame({"mrr": [1.0, 0.5, 1.0, 0.5, 1.0, 0.25]}, index=index)
    >>> candidate = pd.DataFrame({"mrr": [0.5, 0.5, 0.5, 0.25, 1.0, 0.25]}, index=index)
    >>> assert_no_regression(candidate, baseline, no_drop="mrr")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: evalframe gate: candidate 'candidate' against baseline 'baseline'
    ...
    verdict: FAIL (exit 1): 1 of 1 rule failed
    """
    verdict = gate(baseline, candidate, **gate_options)
    if not verdict.passed:
        raise AssertionError(render_verdict(verdict, "text"))
    return verdict
