"""The output of ``evalframe trec``, without pandas: trec_eval's ``tsv`` lines, ``json`` and ``markdown``.

A :class:`TrecTable` is the per-query values (one float64 array per measure, the evaluated queries in result order)
with the query ids; :data:`TREC_FORMATS` renders it with the means, for ``--format``, ``-q`` and ``--digits``.
Both ways of running the command (the columnar one of :mod:`evalframe.present.trec_command`, and the one through
``EvaluationResult.from_trec``) print through these renderers.

Examples
--------
>>> import argparse, numpy as np
>>> table = TrecTable(["q1", "q2"], {"P@1": np.array([1.0, 0.0])})
>>> args = argparse.Namespace(per_query=True, digits=2)
>>> print(trec_tsv(table, {"P@1": 0.5}, args))
P@1  	q1	1.00
P@1  	q2	0.00
num_q	all	2
P@1  	all	0.50
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["TrecTable", "TREC_FORMATS", "trec_tsv", "trec_json", "trec_markdown", "cell_text"]


@dataclass(frozen=True)
class TrecTable:
    """The evaluated queries' ids (in result order) and each measure's values for them (float64, same order).

    Parameters
    ----------
    query_ids : sequence of str
        The evaluated queries, in result order (the run's order, as trec_eval ``-q`` prints them).
    columns : dict of str to numpy.ndarray
        Each measure's name (as printed) and its float64 value per query, in ``query_ids``' order (NaN: no value).

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"P@1": np.array([1.0, 0.0])})
    >>> len(table), table.columns["P@1"].tolist()
    (2, [1.0, 0.0])
    """

    query_ids: Sequence[str]
    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.query_ids)


def cell_text(value: Any) -> str:
    """A markdown cell: a float with 4 decimals (NaN empty), other values as text with ``|`` escaped, on one line.

    Examples
    --------
    >>> cell_text(0.5), cell_text("a|b")
    ('0.5000', 'a\\\\|b')
    """
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _texts(values: np.ndarray, digits: int) -> list[str]:
    """Each value with ``digits`` decimals, as trec_eval prints them (Python's float formatting)."""
    return list(map(f"{{:.{digits}f}}".format, values.tolist()))


def trec_tsv(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """trec_eval's layout: ``measure<TAB>query<TAB>value`` lines (``-q``: per query first, grouped by query).

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries (its aggregation), in the order printed.
    args : argparse.Namespace
        ``per_query`` (``-q``) and ``digits`` (``--digits``) of ``evalframe trec``.

    Returns
    -------
    str
        The lines, measure names padded to one width, without a final line end.

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"RR": np.array([1.0, 0.5])})
    >>> print(trec_tsv(table, {"RR": 0.75}, argparse.Namespace(per_query=False, digits=3)))
    num_q	all	2
    RR   	all	0.750
    """
    width = max(len(m) for m in [*table.columns, "num_q"])
    lines = []
    if args.per_query:  # grouped by query, as trec_eval -q prints them (queries in the run's order)
        heads = [f"{column:<{width}}\t" for column in table.columns]
        texts = [_texts(values, args.digits) for values in table.columns.values()]
        for qid, row in zip(table.query_ids, zip(*texts)):
            lines += [f"{head}{qid}\t{text}" for head, text in zip(heads, row)]
    lines.append(f"{'num_q':<{width}}\tall\t{len(table)}")
    lines += [f"{column:<{width}}\tall\t{value:.{args.digits}f}" for column, value in means.items()]
    return "\n".join(lines)


def trec_json(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """``{"measures": means, "queries": n}``, with ``-q`` ``"per_query": {qid: {measure: value}}`` (every digit).

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries.
    args : argparse.Namespace
        ``per_query`` (``-q``); ``digits`` is not read (JSON keeps every digit).

    Returns
    -------
    str
        The JSON text, indented by one space.

    Examples
    --------
    >>> table = TrecTable(["q1"], {"RR": np.array([0.5])})
    >>> print(trec_json(table, {"RR": 0.5}, argparse.Namespace(per_query=True, digits=4)))
    {
     "measures": {
      "RR": 0.5
     },
     "queries": 1,
     "per_query": {
      "q1": {
       "RR": 0.5
      }
     }
    }
    """
    record: dict[str, Any] = {"measures": means, "queries": len(table)}
    if args.per_query:
        names = list(table.columns)
        rows = zip(*[values.tolist() for values in table.columns.values()])
        record["per_query"] = dict(zip(map(str, table.query_ids), (dict(zip(names, row)) for row in rows)))
    return json.dumps(record, indent=1, ensure_ascii=False)


def trec_markdown(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """A markdown table: a row per query with ``-q``, then the means in row ``all``.

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries.
    args : argparse.Namespace
        ``per_query`` (``-q``) and ``digits`` (``--digits``); ``|`` in a query id is escaped.

    Returns
    -------
    str
        The table's lines, without a final line end.

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"RR": np.array([1.0, 0.5])})
    >>> print(trec_markdown(table, {"RR": 0.75}, argparse.Namespace(per_query=True, digits=2)))
    | query | RR |
    |---|---|
    | q1 | 1.00 |
    | q2 | 0.50 |
    | all | 0.75 |
    """
    header = ["query", *table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    if args.per_query:
        texts = [_texts(values, args.digits) for values in table.columns.values()]
        for qid, row in zip(table.query_ids, zip(*texts)):
            lines.append("| " + " | ".join([cell_text(str(qid)), *map(cell_text, row)]) + " |")
    lines.append("| " + " | ".join(["all", *(cell_text(f"{value:.{args.digits}f}") for value in means.values())]) + " |")
    return "\n".join(lines)


#: The --format of ``evalframe trec``: each format's renderer of the per-query table and the means.
TREC_FORMATS: dict[str, Callable[[TrecTable, dict[str, float], argparse.Namespace], str]] = {
    "tsv": trec_tsv, "json": trec_json, "markdown": trec_markdown}
