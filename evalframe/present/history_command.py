"""``evalframe history``: the runs of a store (:class:`evalframe.History`) listed with their means and intervals, or
one measure's trend over them (``--measure``), drawn with ``--plot FILE.png|FILE.html``
(:mod:`evalframe.report.trend`).

Imported by :func:`evalframe.present.cli.main` when the command runs, apart from the other commands'
implementations (:mod:`evalframe.present.commands`, which load the whole library): listing 1,000 runs and drawing
their trend stays a matter of reading the runs' footers (``benchmarks/bench_history.py``).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InvalidParameterError
from ..report.trend import measure_text, save_trend
from .formats import render_table
from .history import History, store_from

__all__ = ["history_command", "store_of", "HEADLINE_MEASURES"]

#: The measures the listing shows by default (with every judge score): a document node's mrr, ndcg and
#: recall_single_hit, a TREC node's AP, nDCG@10, P@10 and RR, an answer node's f1 and exact_match. ``--measures`` /
#: ``--all`` choose others; ``--format json`` / ``csv`` hold every measure.
HEADLINE_MEASURES = ("mrr", "ndcg", "recall_single_hit", "AP", "nDCG@10", "P@10", "RR", "f1", "exact_match")


def store_of(args: argparse.Namespace) -> Any:
    """``--store``, else ``$EVALFRAME_STORE`` (:func:`evalframe.present.history.store_from`)."""
    return store_from(getattr(args, "store", None))


def _tags(cell: Any) -> str:
    return ", ".join(str(tag) for tag in cell) if isinstance(cell, (list, tuple, np.ndarray)) else ""


def _short(commit: Any) -> str:
    return commit[:10] if isinstance(commit, str) else ""


def _time(values: pd.Series) -> pd.Series:
    """ISO 8601 UTC, to the second."""
    return pd.to_datetime(values, utc=True).dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _render(frame: pd.DataFrame, fmt: str, numbers: pd.DataFrame) -> str:
    """table and markdown: the readable frame; json and csv: the numbers, each a column of its own."""
    if fmt in ("json", "csv"):
        return render_table(numbers, fmt)
    return render_table(frame, fmt)


def _chosen_measures(args: argparse.Namespace, held: list[str], scores: set[str]) -> list[str]:
    """The measures the listing shows: ``--measures``' (each held by some run, else an error naming what is held),
    every one with ``--all`` or ``--format json/csv``, else the headline ones and the judge scores (every one when the
    runs hold none of those)."""
    given = getattr(args, "measures", None)
    if given is not None:
        wanted = [part.strip() for part in str(given).split(",") if part.strip()]
        unknown = [measure for measure in wanted if measure not in held]
        if not wanted or unknown:
            raise InvalidParameterError(f"--measures {given!r}: {'none given' if not wanted else 'no run holds '}"
                                        f"{', '.join(map(repr, unknown))}; the runs hold {', '.join(held)}.")
        return list(dict.fromkeys(wanted))
    if getattr(args, "all", False) or args.format in ("json", "csv"):
        return held
    headline = [measure for measure in held if measure in HEADLINE_MEASURES or measure in scores]
    return headline or held


def _listing(args: argparse.Namespace, history: History, store: Any) -> str:
    """Every run (of ``--name`` / ``--tag``): id, time, name, tags, commit, queries, whether the question set changed
    from the run before (of the same node), and the chosen measures' mean [low, high] (node/measure when there are
    several nodes). The store's metadata is read once."""
    every = history.metas()
    if not every:
        return f"no runs in {store}"
    metas = [meta for meta in every if (args.name is None or meta.get("name") == args.name)
             and (args.tag is None or args.tag in (meta.get("tags") or ()))]
    if not metas:
        _refuse_filters(args, every, store)
    runs = history.runs_of(metas)
    nodes_of = {meta["id"]: {node: info for node, info in meta.get("nodes", {}).items()
                             if args.node is None or node == args.node} for meta in metas}
    node_names = sorted({node for nodes in nodes_of.values() for node in nodes})
    if args.node is not None and not node_names:
        raise InvalidParameterError(f"--node {args.node!r}: no run in {store} has that node.")
    several = len(node_names) > 1
    # one record per (run, node, measure): the runs' footers, not their tables
    records = [(run_id, node, measure, stats.get("mean"), stats.get("low"), stats.get("high"))
               for run_id, nodes in nodes_of.items() for node, info in nodes.items()
               for measure, stats in info.get("measures", {}).items()]
    stats = pd.DataFrame(records, columns=["id", "node", "measure", "mean", "low", "high"])
    scores = {str(name) for meta in metas for name in (meta.get("scores") or {})}
    chosen = _chosen_measures(args, list(dict.fromkeys(stats["measure"])), scores)
    stats = stats[stats["measure"].isin(chosen)]
    # the columns: node by node (in the order the runs hold them), each node's measures in the chosen order
    stats = stats.assign(rank=stats["measure"].map({measure: at for at, measure in enumerate(chosen)}),
                         node_at=stats["node"].map({node: at for at, node in enumerate(dict.fromkeys(stats["node"]))}),
                         column=(stats["node"] + "/" + stats["measure"]) if several else stats["measure"])
    columns = list(dict.fromkeys(stats.sort_values(["node_at", "rank"], kind="stable")["column"]))
    wide = {part: stats.pivot(index="id", columns="column", values=part).reindex(index=runs.index, columns=columns)
            .to_numpy(dtype=np.float64) for part in ("mean", "low", "high")}
    fingerprints = pd.DataFrame([(run_id, node, info.get("fingerprint")) for run_id, nodes in nodes_of.items()
                                 for node, info in nodes.items()], columns=["id", "node", "fingerprint"])
    changed = _changed(fingerprints, runs.index)
    head = {"time": _time(runs["time"]).to_numpy(), "name": runs["name"].to_numpy(),
            "tags": runs["tags"].map(_tags).to_numpy(), "commit": runs["commit"].map(_short).to_numpy(),
            "queries": runs["queries"].to_numpy() if args.node is None else
            [nodes_of.get(run_id, {}).get(args.node, {}).get("queries") for run_id in runs.index]}
    index = pd.Index(runs.index, name="id")
    # the cells of each column built at once, the frame made in one go (no column added one by one)
    texts = {column: [measure_text(*values) for values in zip(*(wide[part][:, at] for part in ("mean", "low", "high")))]
             for at, column in enumerate(columns)}  # one cell per run, not per query
    table = pd.DataFrame({**head, "question set": np.where(changed, "changed", ""), **texts}, index=index)
    numbers_columns: dict[str, Any] = {**head, "question_set_changed": changed}
    for at, column in enumerate(columns):
        numbers_columns[column] = wide["mean"][:, at]
        numbers_columns[f"{column} low"] = wide["low"][:, at]
        numbers_columns[f"{column} high"] = wide["high"][:, at]
    numbers = pd.DataFrame(numbers_columns, index=index)
    return _render(table, args.format, numbers)


def _changed(fingerprints: pd.DataFrame, order: pd.Index) -> np.ndarray:
    """Per run (in ``order``, by time): whether a node's question set differs from that node's in the run before it
    that has the node."""
    if fingerprints.empty:
        return np.zeros(len(order), dtype=bool)
    position = pd.Series(np.arange(len(order)), index=order)
    fingerprints = fingerprints.assign(at=fingerprints["id"].map(position)).sort_values(["node", "at"], kind="stable")
    previous = fingerprints.groupby("node")["fingerprint"].shift()
    differs = previous.notna() & previous.ne(fingerprints["fingerprint"])
    flags = np.zeros(len(order), dtype=bool)
    flags[fingerprints.loc[differs, "at"].to_numpy(dtype=np.int64)] = True
    return flags


def _refuse_filters(args: argparse.Namespace, every: list[dict[str, Any]], store: Any) -> None:
    """--name / --tag that no run of a store holding runs has: an error naming what there is."""
    names = sorted({str(meta.get("name")) for meta in every})
    tags = sorted({str(tag) for meta in every for tag in (meta.get("tags") or ())})
    given = " ".join(f"{flag} {value!r}" for flag, value in (("--name", args.name), ("--tag", args.tag))
                     if value is not None)
    raise InvalidParameterError(f"{given}: none of the {len(every)} runs in {store} matches; their names are "
                                f"{names}, their tags {tags}.")


def _which(args: argparse.Namespace) -> str:
    given = [f"{flag} {value}" for flag, value in (("--name", args.name), ("--tag", args.tag), ("--node", args.node))
             if value is not None]
    return f" ({', '.join(given)})" if given else ""


def _trend(args: argparse.Namespace, history: History, store: Any) -> str:
    """One row per run holding ``--measure``: its mean [low, high], in time order, the change of question set said;
    ``--plot`` draws it."""
    trend = history.trend(args.measure, node=args.node, name=args.name, tag=args.tag)
    if trend.empty:
        raise InvalidParameterError(f"--measure {args.measure!r}: no run in {store}{_which(args)} holds it; "
                                    f"`evalframe history --store {store}` lists the runs and their measures.")
    trend = trend.iloc[np.argsort(pd.to_datetime(trend["time"], utc=True).to_numpy(), kind="stable")]
    changed = trend["question_set_changed"].fillna(False).to_numpy(dtype=bool)
    mean, low, high = (trend[part].to_numpy(dtype=np.float64, na_value=np.nan) for part in ("mean", "low", "high"))
    table = pd.DataFrame({
        "time": _time(trend["time"]).to_numpy(), "name": trend["name"].to_numpy(),
        "tags": trend["tags"].map(_tags).to_numpy(), "commit": trend["commit"].map(_short).to_numpy(),
        "node": trend["node"].to_numpy(), "queries": trend["queries"].to_numpy(),
        args.measure: [measure_text(*values) for values in zip(mean, low, high)],  # one cell per run
        "question set": np.where(changed, "changed", "")}, index=pd.Index(trend["id"].to_numpy(), name="id"))
    numbers = trend.set_index("id").assign(time=_time(trend["time"]).to_numpy(),
                                           tags=trend["tags"].map(lambda cell: list(cell) if isinstance(
                                               cell, (list, tuple, np.ndarray)) else []).to_numpy())
    if args.format == "csv":
        numbers["tags"] = numbers["tags"].map(_tags)
    shown = _render(table, args.format, numbers)
    if args.plot is None:
        return shown
    where = save_trend(trend, args.plot, measure=args.measure, storage_options=args.storage_options, name="--plot")
    drawn = f"trend of {args.measure} over {len(trend)} runs drawn to {getattr(where, 'url', where)}"
    if args.format in ("table", "markdown"):
        marks = int(changed.sum())
        note = f" ({marks} change{'s' if marks != 1 else ''} of question set marked)" if marks else ""
        return f"{shown}\n{drawn}{note}"
    return shown


def history_command(args: argparse.Namespace) -> str:
    """``evalframe history``: the listing, or ``--measure``'s trend (and ``--plot``)."""
    store = store_of(args)
    if args.plot is not None and args.measure is None:
        raise InvalidParameterError("--plot draws one measure's trend: give --measure M too.")
    if args.measure is not None and (getattr(args, "measures", None) is not None or getattr(args, "all", False)):
        raise InvalidParameterError("--measures and --all choose the listing's columns; --measure shows one "
                                    "measure's trend: give one or the other.")
    history = History(store, storage_options=args.storage_options)
    if args.measure is None:
        return _listing(args, history, store)
    return _trend(args, history, store)
