"""The queries a person should read: wrong_examples-shaped dicts from a per-query table and the node's rows."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["ANSWER_DROP", "DOCUMENT_DROP", "THRESHOLD", "worst", "examples"]

#: wrong_examples lists the queries scoring at most this, unless told otherwise.
THRESHOLD = 0.5

#: Columns left out of each listed answer / document row (they are the query's, listed once).
ANSWER_DROP = ("node", "query", "type", "gold_answers", "gold_offsets_in_documents", "gold_document_ids")
DOCUMENT_DROP = ("node", "query", "multilabel_id", "filters", "type", "gold_document_ids", "gold_contexts")


def worst(
    table: pd.DataFrame,
    metric: str,
    threshold: float,
    n: int,
    rows: pd.DataFrame,
    key: str,
    drop: tuple[str, ...],
) -> list[dict[str, Any]]:
    """The ``n`` queries of ``table`` lowest in ``metric`` (ties in table order), those ``<= threshold``."""
    lowest = table.sort_values(metric, kind="stable").head(n)
    return examples(lowest[lowest[metric] <= threshold], rows, key, drop)


def examples(queries: pd.DataFrame, rows: pd.DataFrame, key: str, drop: tuple[str, ...]) -> list[dict[str, Any]]:
    """One wrong_examples dict per query of ``queries`` (a per-query table), in its order."""
    if len(queries) == 0:
        return []
    selected = rows[rows["multilabel_id"].isin(queries.index)]
    listed = selected.drop(columns=[c for c in drop if c in selected.columns])
    groups = {qid: idx for qid, idx in selected.groupby("multilabel_id", sort=False).indices.items()}
    records = listed.to_dict(orient="records")
    out = []
    for multilabel_id, values in queries.iterrows():
        positions = groups[multilabel_id]
        first = selected.iloc[positions[0]]
        example: dict[str, Any] = {
            "multilabel_id": multilabel_id,
            "query": first.get("query"),
            "filters": first.get("filters"),
            "metrics": {m: float(v) for m, v in values.items()},
            key: [records[p] for p in positions],
        }
        if key == "answers":
            example["gold_answers"] = first.get("gold_answers")
        example["gold_document_ids"] = first.get("gold_document_ids")
        out.append(example)
    return out
