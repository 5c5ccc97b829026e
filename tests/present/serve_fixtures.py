"""A hand-made grid of six queries and two runs (three measures, one slice key), its values chosen so that every
paging rule has a row that shows it (tests/present/test_serve_paging.py works the expected rows out by hand)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

NAN = float("nan")


def grid_of(ids, query, slices, values, signs, node="Retriever"):
    """A grid of the contract's shape (evalframe.report.drill.Grid's fields)."""
    return SimpleNamespace(node=node, ids=np.array(ids, dtype=object), query=np.array(query, dtype=object),
                           slices={key: np.array(labels, dtype=object) for key, labels in slices.items()},
                           values={key: np.array(rows, dtype=np.float64) for key, rows in values.items()},
                           signs=dict(signs), detail=np.arange(len(ids), dtype=np.int64))


def six() -> SimpleNamespace:
    return grid_of(
        ids=["q0", "q1", "q2", "q3", "q4", "FLOOD-5"],
        query=["Flood claim", "fire POLICY", "", "Flood deductible", "premium", "auto"],
        slices={"topic": ["auto", "home", "auto", "", "home", "auto"]},
        values={"mrr": [[1.0, 0.5], [0.0, 1.0], [0.5, NAN], [0.5, 0.0], [NAN, NAN], [0.0, 0.5]],
                "latency": [[2.0, 1.0], [1.0, 3.0], [NAN, NAN], [1.0, 1.0], [2.0, 2.0], [3.0, 1.0]],
                "count": [[1.0, 2.0], [3.0, 3.0], [1.0, 0.0], [NAN, 1.0], [2.0, 2.0], [0.0, 0.0]]},
        signs={"mrr": 1.0, "latency": -1.0, "count": 0.0})
