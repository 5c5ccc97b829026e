"""``evalframe history``: the runs of a store (:class:`evalframe.History`) listed with their means and intervals, or
one measure's trend over them (``--measure``), drawn with ``--plot FILE.png|FILE.html``
(:mod:`evalframe.report.trend`).

Imported by :func:`evalframe.present.cli.main` when the command runs, apart from the other commands'
implementations (:mod:`evalframe.present.commands`, which load the whole library): listing 1,000 runs and drawing
their trend stays a matter of reading the runs' footers (``benchmarks/bench_history.py``).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np
import pandas as pd

from .._locations import UrlText
from ..errors import InvalidParameterError
from ..io.history import list_runs
from ..report.trend import measure_text, save_trend
from .formats import render_table
from .history import History

__all__ = ["history_command", "store_of", "STORE_VARIABLE"]

#: The environment variable a store is read from when ``--store`` is not given.
STORE_VARIABLE = "EVALFRAME_STORE"


def store_of(args: argparse.Namespace) -> Any:
    """``--store``, else ``$EVALFRAME_STORE``, else an error saying how to give it."""
    store = getattr(args, "store", None)
    if store is None:
        store = os.environ.get(STORE_VARIABLE) or None
    if store is None:
        raise InvalidParameterError(f"no store given: pass --store STORE (a folder or a URL), or set {STORE_VARIABLE}.")
    if isinstance(store, (str, os.PathLike)) and not isinstance(store, UrlText) and os.path.isfile(store):
        raise InvalidParameterError(f"--store {str(store)!r} is a file; a store is a folder (or a URL) that "
                                    "evalframe log writes runs into.")
    return store


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


def _listing(args: argparse.Namespace, history: History, store: Any) -> str:
    """Every run (of ``--name`` / ``--tag``): id, time, name, tags, commit, queries, whether the question set changed
    from the run before (of the same node), and each measure's mean [low, high] (node/measure when there are
    several nodes)."""
    runs = history.runs(name=args.name, tag=args.tag)
    if runs.empty:
        _refuse_filters(args, history, store)
        return f"no runs in {store}"
    metas = {meta["id"]: meta for meta in list_runs(store, storage_options=args.storage_options)}
    nodes_of = {run_id: {node: info for node, info in meta.get("nodes", {}).items()
                         if args.node is None or node == args.node}
                for run_id, meta in metas.items() if run_id in runs.index}
    node_names = sorted({node for nodes in nodes_of.values() for node in nodes})
    if args.node is not None and not node_names:
        raise InvalidParameterError(f"--node {args.node!r}: no run in {store} has that node.")
    several = len(node_names) > 1
    # one record per (run, node, measure): the runs' footers, not their tables
    records = [(run_id, node, measure, stats.get("mean"), stats.get("low"), stats.get("high"))
               for run_id, nodes in nodes_of.items() for node, info in nodes.items()
               for measure, stats in info.get("measures", {}).items()]
    stats = pd.DataFrame(records, columns=["id", "node", "measure", "mean", "low", "high"])
    stats["column"] = (stats["node"] + "/" + stats["measure"]) if several else stats["measure"]
    columns = list(dict.fromkeys(stats["column"]))
    wide = {part: stats.pivot(index="id", columns="column", values=part).reindex(index=runs.index, columns=columns)
            for part in ("mean", "low", "high")}
    fingerprints = pd.DataFrame([(run_id, node, info.get("fingerprint")) for run_id, nodes in nodes_of.items()
                                 for node, info in nodes.items()], columns=["id", "node", "fingerprint"])
    changed = _changed(fingerprints, runs.index)
    table = pd.DataFrame({"time": _time(runs["time"]).to_numpy(), "name": runs["name"].to_numpy(),
                          "tags": runs["tags"].map(_tags).to_numpy(), "commit": runs["commit"].map(_short).to_numpy(),
                          "queries": runs["queries"].to_numpy() if args.node is None else
                          [nodes_of.get(run_id, {}).get(args.node, {}).get("queries") for run_id in runs.index],
                          "question set": np.where(changed, "changed", "")}, index=runs.index)
    numbers = table.drop(columns="question set").assign(question_set_changed=changed)
    for column in columns:
        mean, low, high = (wide[part][column].to_numpy(dtype=np.float64) for part in ("mean", "low", "high"))
        table[column] = [measure_text(*values) for values in zip(mean, low, high)]  # one cell per run, not per query
        numbers[column], numbers[f"{column} low"], numbers[f"{column} high"] = mean, low, high
    table.index.name = numbers.index.name = "id"
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


def _refuse_filters(args: argparse.Namespace, history: History, store: Any) -> None:
    """--name / --tag that no run of a store holding runs has: an error naming what there is."""
    if args.name is None and args.tag is None:
        return
    every = history.runs()
    if every.empty:
        return
    names = sorted(set(every["name"].astype(str)))
    tags = sorted({str(tag) for cell in every["tags"] if isinstance(cell, (list, tuple, np.ndarray)) for tag in cell})
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
    history = History(store, storage_options=args.storage_options)
    if args.measure is None:
        return _listing(args, history, store)
    return _trend(args, history, store)
