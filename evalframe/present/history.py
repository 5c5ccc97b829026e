"""A history of runs (docs/history.md): ``evalframe.History(store)`` logs results into a store, lists them, follows a
measure over time and gives a stored run back for :func:`evalframe.compare` and the gate.

The store's format is :mod:`evalframe.io.history`'s: one immutable object per run, its means and intervals in the
footer, so that :meth:`History.runs` and :meth:`History.trend` read no per-query value.
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._locations import UrlText
from .._validation import close_matches
from .._version import __version__
from ..analysis.intervals import column_intervals
from ..analysis.protocol import QueryTable
from ..errors import InvalidParameterError
from ..io.history import FORMAT, is_run_id, list_runs, new_run_id, read_run, resolve, store_location, write_run
from ..metrics.registry import Metric, score_measure
from ..metrics.trec import aggregation_of, direction_of, parse_measure
from ..options import IntervalOptions
from .trec_formats import trec_eval_request

__all__ = ["History", "StoredRun", "git_state", "fingerprint", "store_from", "RUNS_COLUMNS", "TREND_COLUMNS",
           "GATED_TREC_MEASURES"]

#: The columns of :meth:`History.runs` (index ``id``).
RUNS_COLUMNS = ("name", "time", "tags", "commit", "params", "nodes", "queries")
#: The columns of :meth:`History.trend`, one row per run holding the measure, by time.
TREND_COLUMNS = ("id", "name", "time", "tags", "commit", "node", "queries", "fingerprint", "mean", "low", "high",
                 "direction", "question_set_changed")
_INTERVAL = IntervalOptions(ci=0.95, ci_method="t")
#: What a node with TREC judgments logs besides ``trec_eval -q``'s default set: the cut-off measures gated on.
GATED_TREC_MEASURES = ("nDCG@5", "nDCG@10", "nDCG@20", "P@5", "P@10", "P@20", "R@5", "R@10", "R@20", "R@100",
                       "R@1000", "RR@10", "AP@100")


#: The environment variable a store is read from when ``--store`` is not given.
STORE_VARIABLE = "EVALFRAME_STORE"


def store_from(given: str | os.PathLike[str] | None) -> Any:
    """The store a command works on: ``given`` (``--store``), else ``$EVALFRAME_STORE``, else an error saying how to
    give one. A local file given as the store is refused.

    Examples
    --------
    >>> store_from("ci-runs")
    'ci-runs'
    """
    store: Any = given
    if store is None or (isinstance(store, str) and not store):
        store = os.environ.get(STORE_VARIABLE) or None
    if store is None:
        raise InvalidParameterError(f"no store given: pass --store STORE (a folder or a URL), or set ${STORE_VARIABLE}.")
    if isinstance(store, (str, os.PathLike)) and not isinstance(store, UrlText) and os.path.isfile(store):
        raise InvalidParameterError(f"store {str(store)!r} is a file; a store is a folder (or a URL) that "
                                    "evalframe log writes runs into.", parameter="store")
    return store


def git_state() -> tuple[str | None, bool | None]:
    """The current folder's git commit (``git rev-parse HEAD``) and whether its work tree has changes (``git status
    --porcelain``), or ``(None, None)`` outside a repository or without git.

    Examples
    --------
    >>> commit, dirty = git_state()
    >>> commit is None or len(commit) == 40
    True
    """
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30, check=False)
        if head.returncode != 0:
            return None, None
        status = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True, timeout=60,
                                check=False)
    except (OSError, subprocess.SubprocessError):
        return None, None
    commit = head.stdout.strip() or None
    return commit, (bool(status.stdout.strip()) if status.returncode == 0 else None)


def fingerprint(queries: Sequence[str] | pd.Index | np.ndarray, judgments: pd.DataFrame | None = None) -> str:
    """The fingerprint of a question set: sha256 hex of the sorted distinct query ids joined by ``"\\n"``; with
    ``judgments`` (columns query, document, relevance: a TREC node's qrels rows) the digest goes on over those rows,
    sorted, one ``query \\t document \\t relevance`` line each, so that other qrels give another fingerprint.

    Examples
    --------
    >>> fingerprint(["q2", "q1", "q1"]) == hashlib.sha256(b"q1\\nq2").hexdigest()
    True
    """
    ids = np.unique(np.asarray(pd.Index(queries).astype(str), dtype=object))
    digest = hashlib.sha256("\n".join(ids.tolist()).encode("utf-8"))
    if judgments is not None:
        rows = judgments.astype({"query": str, "document": str}).assign(relevance=judgments["relevance"].astype("int64"))
        rows = rows.drop_duplicates().sort_values(["query", "document", "relevance"])
        lines = rows["query"] + "\t" + rows["document"] + "\t" + rows["relevance"].astype(str)
        digest.update(b"\n\x00judgments\n")
        digest.update("\n".join(lines.tolist()).encode("utf-8"))
    return digest.hexdigest()


def _judgments(frame: pd.DataFrame) -> pd.DataFrame | None:
    """A TREC node's judgments (query, document, relevance) from its frame: each query's judged documents, relevant
    and not; None for a node without TREC judgments."""
    if "gold_document_relevance" not in frame.columns:
        return None
    first = frame.drop_duplicates("multilabel_id")
    parts = []
    for ids, relevance in (("gold_document_ids", "gold_document_relevance"),
                           ("nonrelevant_document_ids", "nonrelevant_document_relevance")):
        if ids in first.columns and relevance in first.columns:
            rows = first[["multilabel_id", ids, relevance]].explode([ids, relevance]).dropna()
            parts.append(pd.DataFrame({"query": rows["multilabel_id"].astype(str), "document": rows[ids].astype(str),
                                       "relevance": rows[relevance].astype("int64")}))
    return pd.concat(parts, ignore_index=True) if parts else None


def _summary(table: pd.DataFrame, scores: Mapping[str, Metric]) -> dict[str, dict[str, Any]]:
    """Each measure's number (its aggregation), 95% t interval, count and direction."""
    columns = {name: table[name].to_numpy(dtype=np.float64) for name in table.columns}
    numbers = {name: float(aggregation_of(name)(values)) for name, values in columns.items()}
    found = column_intervals(columns, numbers, _INTERVAL)

    def clean(value: float) -> float | None:
        return None if math.isnan(value) else float(value)

    return {name: {"mean": clean(float(found[name])), "low": clean(found[name].low), "high": clean(found[name].high),
                   "n": int(found[name].n), "direction": direction_of(name, scores)} for name in columns}


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"name must be a non-empty str naming the run (such as 'bm25-top5'); got {name!r}.",
                                    parameter="name")
    return name


def _check_tags(tags: object) -> list[str]:
    given = [tags] if isinstance(tags, str) else tags
    if not isinstance(given, Sequence) or not all(isinstance(tag, str) and tag.strip() for tag in given):
        raise InvalidParameterError(f"tags must be a str or a list of non-empty str (such as ['v3', 'main']); got "
                                    f"{tags!r}.", parameter="tags")
    return list(dict.fromkeys(given))


def _check_params(params: object) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, Mapping) or not all(isinstance(key, str) and key for key in params):
        raise InvalidParameterError(f"params must be a dict of the run's config (str keys, such as {{'top_k': 5}}); "
                                    f"got {params!r}.", parameter="params")
    out: dict[str, Any] = {}
    for key, value in params.items():
        if value is not None and not isinstance(value, (str, bool, int, float)):
            raise InvalidParameterError(f"params[{key!r}] must be a str, number, bool or None; got {value!r:.80}.",
                                        parameter="params")
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidParameterError(f"params[{key!r}] must be a finite number; got {value!r}.", parameter="params")
        out[key] = value
    return out


class StoredRun:
    """A run read back from a store: its metadata and its per-query values.

    Examples
    --------
    >>> from evalframe import History, load_demo_result
    >>> history = History("memory://evalframe-doc/stored-run")
    >>> stored = history.log(load_demo_result(), name="demo", commit=None)
    >>> stored.nodes, stored.table("Reader").columns.tolist()
    (['Retriever', 'Reader'], ['exact_match', 'f1'])
    """

    def __init__(self, meta: Mapping[str, Any], frame: pd.DataFrame) -> None:
        self.meta = dict(meta)
        self._frame = frame

    def __repr__(self) -> str:
        return f"StoredRun({self.id!r}, name={self.meta.get('name')!r})"

    @property
    def id(self) -> str:
        """The run id."""
        return str(self.meta["id"])

    @property
    def name(self) -> str:
        """The name it was logged under."""
        return str(self.meta.get("name"))

    @property
    def nodes(self) -> list[str]:
        """The nodes logged, in the result's order."""
        return list(self.meta.get("nodes") or {})

    def _node(self, node: str | None) -> str:
        nodes = self.nodes
        if node is None:
            if len(nodes) != 1:
                raise InvalidParameterError(f"node is needed: the run {self.id} holds the nodes {nodes}.",
                                            parameter="node")
            return nodes[0]
        if node not in nodes:
            close = close_matches(str(node), nodes)
            raise InvalidParameterError(f"node must be one of the run's nodes {nodes}; got {node!r}"
                                        + (f". Did you mean {close[0]!r}?" if close else "."), parameter="node")
        return node

    def _rows(self, node: str) -> pd.DataFrame:
        return self._frame[self._frame["node"].to_numpy() == node]

    def table(self, node: str | None = None) -> pd.DataFrame:
        """The node's per-query values: index the query id (``multilabel_id``), one column per measure or score."""
        node = self._node(node)
        measures = list((self.meta["nodes"][node].get("measures") or {}))
        rows = self._rows(node)
        table = rows[measures].set_axis(pd.Index(rows["query"].to_numpy(dtype=object), name="multilabel_id"))
        return table.astype(np.float64)

    def texts(self, node: str | None = None) -> pd.Series:
        """The node's query texts by query id ("" where none was logged)."""
        node = self._node(node)
        rows = self._rows(node)
        return pd.Series(rows["text"].fillna("").to_numpy(dtype=object),
                         index=pd.Index(rows["query"].to_numpy(dtype=object), name="multilabel_id"), name="text")

    def scores(self) -> dict[str, Metric]:
        """The declarations of the run's judge scores (name -> :func:`evalframe.score_measure`)."""
        out = {}
        for name, declared in (self.meta.get("scores") or {}).items():
            bounds = declared.get("bounds")
            out[name] = score_measure(name, direction=declared.get("direction", "higher"),
                                      bounds=tuple(bounds) if bounds is not None else None)
        return out

    def run(self, node: str | None = None) -> QueryTable:
        """The node as a :class:`~evalframe.analysis.protocol.QueryTable` (its table, its scores' directions, the
        run's name), what :func:`evalframe.compare` and the gate read."""
        table = self.table(node)
        scores = {name: metric for name, metric in self.scores().items() if name in table.columns}
        return QueryTable(table, scores, name=self.name)


class History:
    """The runs of one store (a folder or a URL): log a result, list the runs, follow a measure, get a run back.

    Parameters
    ----------
    store : str or Path
        The store's folder or URL (``s3://bucket/evalframe-runs``, ``memory://x``).
    storage_options : dict, optional
        The filesystem's options for a URL.

    Examples
    --------
    >>> from evalframe import History, load_demo_result
    >>> history = History("memory://evalframe-doc/history")
    >>> first = history.log(load_demo_result(), name="demo", tags=["v1"], commit=None)
    >>> second = history.log(load_demo_result(), name="demo", commit=None)
    >>> history.get("@tag:v1").id == first.id, history.get("@last").id == second.id
    (True, True)
    >>> history.trend("mrr")[["name", "queries", "mean", "question_set_changed"]]
       name  queries      mean  question_set_changed
    0  demo        8  0.729167                 False
    1  demo        8  0.729167                 False
    """

    def __init__(self, store: object, *, storage_options: Mapping[str, Any] | None = None) -> None:
        self.location = store_location(store, storage_options=storage_options)
        self.store = store
        self.storage_options = dict(storage_options or {})

    def __repr__(self) -> str:
        return f"History({str(self.location)!r})"

    def _options(self) -> dict[str, Any]:
        return {"storage_options": self.storage_options or None}

    def _check_exists(self) -> None:
        """Reading a local store whose folder does not exist is an error naming it (a typo in CI must not read as
        "no runs"); :meth:`log` creates a new store instead."""
        if isinstance(self.location, Path) and not self.location.is_dir():
            raise InvalidParameterError(f"store {self.store}: no such store folder ({self.location.absolute()} does "
                                        "not exist); `evalframe log` writes runs into a new store.", parameter="store")

    # ------------------------------------------------------------------ writing
    def log(self, result: Any, *, name: str, tags: str | Sequence[str] = (), params: Mapping[str, Any] | None = None,
            node: str | None = None, source: str | None = None, commit: str | None = "auto") -> StoredRun:
        """Record a result as one new run: every node's per-query values (``query_metrics``, its judge scores, and
        for a node with TREC judgments trec_eval's ``-q`` measures of its default set and
        :data:`GATED_TREC_MEASURES`: nDCG@10 and the others gated on), the config, the git commit
        and the time, with each node's question-set fingerprint and every measure's mean and 95% t interval.

        Parameters
        ----------
        result : EvaluationResult or DaskEvaluationResult
            What to log (a result on Dask is gathered first).
        name : str
            The run's name (the pipeline or experiment).
        tags : str or list of str
            Tags to find it by (``@tag:TAG``).
        params : dict, optional
            The run's config (str, number or bool values).
        node : str, optional
            Log this node only (default: every node).
        source : str, optional
            What was logged (a path), kept in the metadata; default the result's type.
        commit : str or None
            ``"auto"``: the current folder's git commit and dirty flag (None outside a repository); None: none; any
            other str: that commit (dirty unknown).

        Returns
        -------
        StoredRun
            The run as stored.

        Examples
        --------
        >>> from evalframe import History, load_demo_result
        >>> stored = History("memory://evalframe-doc/log").log(load_demo_result(), name="demo", params={"top_k": 5},
        ...                                                    commit=None)
        >>> stored.meta["params"], stored.meta["nodes"]["Reader"]["queries"]
        ({'top_k': 5}, 8)
        """
        name = _check_name(name)
        tags = _check_tags(tags)
        params = _check_params(params)
        if commit is not None and not isinstance(commit, str):
            raise InvalidParameterError(f"commit must be 'auto', None or a commit's id; got {commit!r}.",
                                        parameter="commit")
        if source is not None and not isinstance(source, str):
            raise InvalidParameterError(f"source must be a str (what was logged); got {source!r}.", parameter="source")
        if getattr(result, "on_cluster", False):
            result = result.compute()
        if not hasattr(result, "query_metrics") or not hasattr(result, "nodes"):
            raise InvalidParameterError(f"result must be an EvaluationResult; got {type(result).__name__}.",
                                        parameter="result")
        nodes = list(result.nodes) if node is None else [result.check_node(node)]
        declared = result.declared_scores()
        official = list(dict.fromkeys([str(measure) for measure in trec_eval_request(["official"]).measures]
                                      + list(GATED_TREC_MEASURES)))
        parts, node_meta = [], {}
        for each in nodes:
            table = result.query_metrics(each, with_query=True)
            texts = table.pop("query")
            judged = _judgments(result[each])
            if judged is not None:
                trec = result.trec_query_metrics(official, node=each)
                table = table.join(trec.drop(columns=[c for c in trec.columns if c in table.columns]), how="left")
            table = table.astype(np.float64)
            node_meta[each] = {"queries": int(len(table)), "fingerprint": fingerprint(table.index, judged),
                               "measures": _summary(table, declared)}
            part = table.reset_index(drop=True)
            part.insert(0, "text", texts.astype(object).where(texts.notna(), None).to_numpy(dtype=object))
            part.insert(0, "query", table.index.astype(str).to_numpy(dtype=object))
            part.insert(0, "node", each)
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True, sort=False)
        if commit == "auto":
            sha, dirty = git_state()
        else:
            sha, dirty = commit, None
        now = time.time()
        run_id = new_run_id(now)
        meta = {"format": FORMAT, "id": run_id, "name": name,
                "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{run_id[15:21]}Z",
                "tags": tags, "params": params, "commit": sha, "dirty": dirty,
                "source": source if source is not None else type(result).__name__, "evalframe": __version__,
                "nodes": node_meta,
                "scores": {key: {"direction": metric.direction,
                                 "bounds": list(metric.bounds) if metric.bounds is not None else None}
                           for key, metric in declared.items()}}
        write_run(self.store, frame, meta, **self._options())
        return StoredRun(meta, frame)

    # ------------------------------------------------------------------ reading
    def metas(self) -> list[dict[str, Any]]:
        """Every run's metadata (the JSON of its footer), by time.

        Raises
        ------
        InvalidParameterError
            When the store is a local folder that does not exist.
        """
        self._check_exists()
        return list_runs(self.store, **self._options())

    def runs(self, *, name: str | None = None, tag: str | None = None) -> pd.DataFrame:
        """One row per run, by time: index ``id``; name, time (UTC), tags, commit, params, nodes, queries (the most
        of any node). ``name`` / ``tag`` keep the runs of that name / with that tag.

        Examples
        --------
        >>> from evalframe import History, load_demo_result
        >>> history = History("memory://evalframe-doc/runs")
        >>> _ = history.log(load_demo_result(), name="demo", tags="v1", commit=None)
        >>> history.runs()[["name", "tags", "nodes", "queries"]]  # doctest: +ELLIPSIS
                                              name  tags               nodes  queries
        id
        ...Z-...  demo  [v1]  [Retriever, Reader]        8
        """
        return self.runs_of(self._chosen(name, tag))

    @staticmethod
    def runs_of(metas: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
        """:meth:`runs`' frame of metadata already read (:meth:`metas`), so that a caller reads the store once.

        Examples
        --------
        >>> History.runs_of([]).columns.tolist()
        ['name', 'time', 'tags', 'commit', 'params', 'nodes', 'queries']
        """
        frame = pd.DataFrame({
            "id": [meta["id"] for meta in metas],
            "name": [meta.get("name") for meta in metas],
            "time": pd.to_datetime(pd.Series([meta.get("time") for meta in metas], dtype=object), utc=True),
            "tags": [list(meta.get("tags") or ()) for meta in metas],
            "commit": pd.Series([meta.get("commit") for meta in metas], dtype=object),
            "params": [dict(meta.get("params") or {}) for meta in metas],
            "nodes": [list(meta.get("nodes") or {}) for meta in metas],
            "queries": np.array([max([int(n.get("queries", 0)) for n in (meta.get("nodes") or {}).values()] or [0])
                                 for meta in metas], dtype=np.int64)})
        return frame.set_index("id")

    def _chosen(self, name: str | None, tag: str | None) -> list[dict[str, Any]]:
        metas = self.metas()
        if name is not None:
            metas = [meta for meta in metas if meta.get("name") == name]
        if tag is not None:
            metas = [meta for meta in metas if tag in (meta.get("tags") or ())]
        return metas

    def trend(self, measure: str, *, node: str | None = None, name: str | None = None,
              tag: str | None = None) -> pd.DataFrame:
        """One row per run holding ``measure`` (in ``node``), by time: id, name, time, tags, commit, node, queries,
        fingerprint, mean, low, high (its 95% t interval), direction, and ``question_set_changed`` (True where the
        question set's fingerprint differs from the previous row's).

        Raises
        ------
        InvalidParameterError
            When no run holds the measure, or a run holds it in several nodes and ``node`` is not given.

        Examples
        --------
        >>> from evalframe import History, load_demo_result
        >>> history = History("memory://evalframe-doc/trend")
        >>> _ = history.log(load_demo_result(), name="demo", commit=None)
        >>> row = history.trend("f1").iloc[0]
        >>> row["node"], int(row["queries"]), round(float(row["mean"]), 4), bool(row["question_set_changed"])
        ('Reader', 8, 0.8333, False)
        """
        metas = self._chosen(name, tag)
        wanted = self._measure_name(measure, metas)
        rows = []
        for meta in metas:
            held = [each for each, data in (meta.get("nodes") or {}).items() if wanted in (data.get("measures") or {})]
            if node is not None:
                held = [each for each in held if each == node]
            if len(held) > 1:
                raise InvalidParameterError(f"node is needed: the run {meta['id']} holds {wanted} in the nodes {held}.",
                                            parameter="node")
            if not held:
                continue
            data = meta["nodes"][held[0]]
            found = data["measures"][wanted]
            rows.append((meta["id"], meta.get("name"), meta.get("time"), list(meta.get("tags") or ()),
                         meta.get("commit"), held[0], int(data.get("queries", 0)), data.get("fingerprint"),
                         found.get("mean"), found.get("low"), found.get("high"), found.get("direction")))
        if not rows and metas:
            raise InvalidParameterError(f"no run{' of the ones chosen' if name or tag else ''} holds the measure "
                                        f"{measure!r}{' in node ' + repr(node) if node else ''}.", parameter="measure")
        frame = pd.DataFrame(rows, columns=list(TREND_COLUMNS[:-1]))
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
        frame["commit"] = pd.Series([row[4] for row in rows], dtype=object)
        frame["queries"] = frame["queries"].astype(np.int64)
        for column in ("mean", "low", "high"):
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(np.float64)
        previous = frame["fingerprint"].shift()
        frame["question_set_changed"] = (previous.notna() & frame["fingerprint"].ne(previous)).astype(bool)
        return frame

    def _measure_name(self, measure: str, metas: Sequence[Mapping[str, Any]]) -> str:
        if not isinstance(measure, str) or not measure:
            raise InvalidParameterError(f"measure must be a measure's name (such as 'nDCG@10'); got {measure!r}.",
                                        parameter="measure")
        held = {m for meta in metas for data in (meta.get("nodes") or {}).values() for m in data.get("measures") or {}}
        if measure in held or not metas:
            return measure
        try:
            canonical = str(parse_measure(measure))
        except InvalidParameterError:
            canonical = measure
        if canonical in held:
            return canonical
        close = close_matches(measure, sorted(held))
        raise InvalidParameterError(f"no run holds the measure {measure!r}; the runs hold {', '.join(sorted(held))}"
                                    + (f". Did you mean {close[0]!r}?" if close else "."), parameter="measure")

    def get(self, ref: str) -> StoredRun:
        """The run a reference names (``@last``, ``@last~N``, ``@last:NAME``, ``@best:MEASURE[:NAME]``,
        ``@tag:TAG``, ``@<id prefix>``), read whole.

        Examples
        --------
        >>> from evalframe import History, load_demo_result
        >>> history = History("memory://evalframe-doc/get")
        >>> _ = history.log(load_demo_result(), name="demo", commit=None)
        >>> history.get("@last:demo").run("Reader").table["f1"].round(4).tolist()[:3]
        [1.0, 1.0, 1.0]
        """
        self._check_exists()
        if isinstance(ref, str) and is_run_id(ref[1:]) and ref.startswith("@"):  # a whole id: read without listing
            stored, frame = read_run(self.store, ref[1:], **self._options())
            return StoredRun(stored, frame)
        meta = resolve(self.metas(), ref, store=self.location)
        stored, frame = read_run(self.store, str(meta["id"]), **self._options())
        return StoredRun(stored, frame)
