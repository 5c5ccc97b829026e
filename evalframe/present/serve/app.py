"""``evalframe serve``'s read-only ASGI application (Starlette): the views of what it was started on and their JSON API.

What is reachable is fixed when the server starts (:class:`Sources`): the FOLDER / FILE arguments, named in a URL by
their index (``run=0``), and a history store's runs, named by a reference (``run=@last``, ``run=@last~1``,
``run=@<id>``). No URL holds a path: a run that is neither is a 404, and so is every path but the routes below
(``/static/`` serves a fixed list of the package's own files). Every route is ``GET`` (``HEAD``); any other method is
a 405. The pages are shells rendered here (:mod:`.views`, every user text escaped) and the grid is drawn in the
browser by ``grid.js`` over ``/api/grid/page`` (:mod:`.paging`); the pages run no inline script and request nothing
outside the server (a Content-Security-Policy of ``'self'``).

Routes: ``/`` (the runs given, or the store's), ``/runs`` (the store's runs), ``/trend?measure=M[&node=N]``,
``/compare?run=A&run=B[...][&node=N]`` (the summary, slices, the grid), ``/paper?run=...&node=N`` (the paper
table), ``/api/runs``, ``/api/summary``, ``/api/grid/info``, ``/api/grid/page``, ``/api/grid/detail``,
``/api/grid/row``, ``/static/<name>``.

A comparison (its model, grids and sort orders) is built once per set of runs and kept in a bounded cache
(:class:`Viewer`).
"""

from __future__ import annotations

import dataclasses
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ... import report as report_package
from ...analysis.compare import TESTS, compare, directions_of, p_column_of, scores_of_runs
from ...analysis.protocol import QueryTable
from ...errors import EvalframeError
from ...options import CompareOptions, ComparisonReportOptions, MetricOptions
from ...report.drill import Detail, Grid, build_detail, empty_rows, node_rows, rows_of
from ...report.drill import texts as drill_texts
from ...report.model import ComparisonModel, measure_direction
from ...report.paper import ComparisonTable, caption_of, table_of_pairs
from ...report.trend import trend_html
from ..comparison import compare_report
from ..history import StoredRun
from ..history_command import HEADLINE_MEASURES
from ..paper import comparison_table
from . import views
from .paging import Pager, view_from_query

__all__ = ["Sources", "Viewer", "Comparison", "comparison_of_model", "make_app", "host_checked", "ASSETS",
           "SECURITY_HEADERS"]

_HERE = Path(__file__).parent / "assets"
_REPORT_ASSETS = Path(str(report_package.__file__)).parent / "assets"
#: The only files ``/static/`` serves: name -> (the package's file, its media type).
ASSETS: dict[str, tuple[Path, str]] = {
    "grid.js": (_REPORT_ASSETS / "grid.js", "text/javascript; charset=utf-8"),
    "grid.css": (_REPORT_ASSETS / "grid.css", "text/css; charset=utf-8"),
    "app.js": (_HERE / "app.js", "text/javascript; charset=utf-8"),
    "app.css": (_HERE / "app.css", "text/css; charset=utf-8"),
}
#: Sent with every response: scripts and requests of the server's own origin only, no inline script, no framing.
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
#: The comparisons kept built (each holds its runs' grids and sort orders).
CACHE_SIZE = 4
#: The most runs one comparison takes.
MAX_RUNS = 26
_SIGNS = {"higher": 1.0, "lower": -1.0, "none": 0.0}
#: The options of ``query_metrics`` among the server's (the others are the comparison's).
_METRIC_OPTIONS = frozenset(field.name for field in dataclasses.fields(MetricOptions))
#: The options of the paper table (``compare``'s) among the server's.
_PAPER_OPTIONS = _METRIC_OPTIONS | {"test", "max_p", "metrics", "rounds", "confidence", "seed"}
#: What the drill-down of a stored run says: the store keeps each query's values, not its texts.
STORED_NOTE = ("A run of the store keeps each query's values and text, not its answers, passages, gold or meta: the "
               "drill-down of a stored run shows its values only, and it has no slices (serve the runs' folders or "
               "files to see their passages and slices).")


class NotFound(EvalframeError):
    """A run, node or page the server was not started on."""


@dataclass
class Sources:
    """What the server was started on: the FOLDER / FILE arguments (``files``: (name, shown) by index, read by
    ``read(index)``), a history store (``history``: an :class:`evalframe.History`, or None) and the comparison's
    options (``options``: :func:`evalframe.compare_report`'s ``by`` and metric options)."""

    files: Sequence[tuple[str, str]] = ()
    read: Callable[[int], Any] | None = None
    history: Any = None
    store: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Comparison:
    """A comparison as the views show it: the runs' names, each node's summary, grid and pager, the drill-down of a
    query, and what the paper table is built from."""

    names: tuple[str, ...]
    nodes: tuple[views.NodeSummary, ...]
    grids: dict[str, Any]
    detail: Callable[[str, int], dict[str, Any]]
    paper_runs: Callable[[str], list[Any]]
    test: str
    notes: tuple[str, ...] = ()
    note: str = ""
    pagers: dict[str, Pager] = field(default_factory=dict)
    labels: dict[str, list[list[str]]] = field(default_factory=dict)
    papers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for node, grid in self.grids.items():
            self.pagers[node] = Pager(grid)
            self.labels[node] = [sorted(set(pd.unique(pd.Series(grid.slices[key], dtype=object)).tolist()))
                                 for key in grid.slices]

    def summary(self, node: str) -> views.NodeSummary:
        for summary in self.nodes:
            if summary.node == node:
                return summary
        raise NotFound(f"no node {node!r} in this comparison; its nodes: {[n.node for n in self.nodes]}")

    def info(self, node: str) -> dict[str, Any]:
        """The grid's ``source.info`` (grid.js): names, node, measures, slice keys and labels, order, total."""
        summary = self.summary(node)
        grid = self.grids[node]
        return {"names": list(self.names), "node": node, "answer_node": summary.answer_node,
                "measures": [{"metric": m.metric, "direction": m.direction, "description": m.description}
                             for m in summary.measures if m.metric in grid.values],
                "slice_keys": list(grid.slices), "slice_labels": self.labels[node],
                "order_metric": summary.order_metric, "total": len(grid.ids), "note": self.note}

    def warm(self) -> None:
        for pager in self.pagers.values():
            pager.warm()


def _deltas(names: Sequence[str], rows: Sequence[pd.Series], sign: float, p_column: str) -> tuple[dict[str, Any], ...]:
    out = []
    for name, row in zip(names, rows):
        gain = sign * float(row["delta"])
        significant = bool(row["significant"])
        out.append({"run": name, "delta": float(row["delta"]), "ci_low": float(row["ci_low"]),
                    "ci_high": float(row["ci_high"]), "p_value": float(row[p_column]), "significant": significant,
                    "change": ("better" if gain > 0 else "worse" if gain < 0 else "") if significant else ""})
    return tuple(out)


def comparison_of_model(model: ComparisonModel) -> Comparison:
    """A comparison of results: :func:`evalframe.compare_report`'s model, its grids and its drill-down."""
    nodes = []
    grids = {}
    for node in model.nodes:
        measures = tuple(views.MeasureRow(m.metric, m.direction, tuple(m.values),
                                          tuple(vars(d) if not isinstance(d, Mapping) else d for d in m.deltas),
                                          m.queries, m.description) for m in node.measures)
        slices = tuple(views.MeasureRow(s.metric, s.direction, tuple(s.values), tuple(vars(d) for d in s.deltas),
                                        s.queries, slice=s.slice) for s in node.slices)
        nodes.append(views.NodeSummary(node.node, node.answer_node, node.order_metric, tuple(node.slice_keys),
                                       measures, slices))
        grids[node.node] = node.grid
    detail = model.detail

    def drill(node: str, i: int) -> dict[str, Any]:
        found = detail.query(int(grids[node].detail[i]), characters=None)
        return {**found, "row": i}

    return Comparison(tuple(model.names), tuple(nodes), grids, drill, lambda node: [], model.test,
                      tuple(note.message for note in model.notes) + tuple(model.includes))


def _stored_grid(node: str, tables: Sequence[pd.DataFrame], texts: Sequence[pd.Series | None], metrics: Sequence[str],
                 directions: Mapping[str, str], labels: Sequence[pd.DataFrame | None] = ()) -> tuple[Grid, str]:
    """The grid of per-query tables: every query of any run (the first run's order, then the others'), worst change
    of the order measure first (as the comparison's model orders it); its slice labels are those of the runs that
    have them (``labels``: a result's, None for a stored run), each query's from the first run holding it."""
    index = tables[0].index
    for other in tables[1:]:
        index = index.append(other.index[~other.index.isin(index)])
    values = {m: np.column_stack([t[m].reindex(index).to_numpy(dtype=np.float64, na_value=np.nan) if m in t
                                  else np.full(len(index), np.nan) for t in tables]) for m in metrics}
    text = pd.Series("", index=index, dtype=object)
    for found in texts:
        if found is not None:
            shown = found.reindex(index).fillna("").astype(str)
            text = text.where(text != "", shown)
    keys = list(dict.fromkeys(str(c) for frame in labels if frame is not None for c in frame.columns))
    sliced = pd.DataFrame({key: pd.Series(np.full(len(index), None, dtype=object), index=index) for key in keys})
    for frame in labels:
        if frame is not None:
            sliced = sliced.fillna(frame.reindex(index))
    signs = {m: _SIGNS[directions[m]] for m in metrics}
    directed = [m for m in metrics if signs[m]] or list(metrics)
    order_metric = next((m for m in directed if m in HEADLINE_MEASURES), directed[0])
    gains = signs[order_metric] * (values[order_metric][:, 1:] - values[order_metric][:, :1])
    worst = np.minimum(np.nan_to_num(np.where(np.isnan(gains), np.inf, gains).min(axis=1), posinf=0.0), 0.0)
    order = np.argsort(worst, kind="stable")
    ids = index.to_numpy(dtype=object).astype(str).astype(object)
    grid = Grid(node, ids[order], text.to_numpy(dtype=object)[order],
                {key: drill_texts(sliced[key].to_numpy(dtype=object)[order], "") for key in keys},
                {m: v[order] for m, v in values.items()}, signs, order.astype(np.int64))
    return grid, order_metric


def _of_tables(names: Sequence[str], runs: Sequence[Any], options: Mapping[str, Any]) -> Comparison:
    """A comparison with stored runs (per-query tables, :class:`evalframe.analysis.protocol.QueryTable`) among its
    runs: compare's table per shared node, a grid of the tables, a drill-down of each query's values."""
    shared = [n for n in list(runs[0].nodes) if all(n in run.nodes for run in runs[1:])]
    if not shared:
        raise EvalframeError(f"the runs {list(names)} share no node.")
    test = str(options.get("test") or ComparisonReportOptions.test)  # the page's and `evalframe report`'s: the t-test
    max_p = float(options.get("max_p") or ComparisonReportOptions.max_p)
    metric_options = {key: value for key, value in options.items() if key in _METRIC_OPTIONS}  # query_metrics's
    compare_options = {key: value for key, value in options.items()
                       if key in _METRIC_OPTIONS or key in ("rounds", "confidence", "seed")}
    by = options.get("by")
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    summaries, grids, per_node = [], {}, {}
    for node in shared:
        listed: list[Any] = []
        texts: list[pd.Series | None] = []
        labels: list[pd.DataFrame | None] = []
        for name, run in zip(names, runs):
            if isinstance(run, StoredRun):
                table = run.run(node)
                listed.append(QueryTable(table.table, table.scores, name))
                texts.append(run.texts(node))
                labels.append(None)
            else:
                listed.append(run)
                per_query = run.query_metrics(node, with_query=True, by=keys or None, **metric_options)
                texts.append(per_query["query"])
                labels.append(per_query[[c for c in per_query.columns if c in keys]] if keys else None)
        per_node[node] = listed
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = compare(*listed, node=node, names=list(names), test=test, max_p=max_p,
                            metrics=options.get("metrics"), **compare_options)
        p_column = p_column_of(table, test)
        metrics = list(dict.fromkeys(table.index.get_level_values("metric")))
        scores: dict[str, Any] = {}
        for run in listed:
            scores.update(getattr(run, "scores", {}) or {})
        directions = {m: measure_direction(m, scores) for m in metrics}
        measures = []
        for metric in metrics:
            rows = [table.loc[metric]] if len(names) == 2 else [table.loc[(name, metric)] for name in names[1:]]
            means = (float(rows[0]["mean_a"]), *(float(row["mean_b"]) for row in rows))
            measures.append(views.MeasureRow(metric, directions[metric], means,
                                             _deltas(names[1:], rows, _SIGNS[directions[metric]], p_column),
                                             int(min(row["queries"] for row in rows))))
        tables = [run.table if isinstance(run, QueryTable) else run.query_metrics(node, **metric_options)
                  for run in listed]
        grid, order_metric = _stored_grid(node, tables, texts, metrics, directions, labels)
        grids[node] = grid
        results = [run for run in runs if not isinstance(run, StoredRun)]
        answer = bool(results[0].has_answers(node)) if results else False
        summaries.append(views.NodeSummary(node, answer, order_metric, tuple(grid.slices), tuple(measures)))
    detail = _files_detail(names, runs, summaries, grids, options)

    def drill(node: str, i: int) -> dict[str, Any]:
        return {**detail.query(int(grids[node].detail[i]), characters=None), "row": i}

    return Comparison(tuple(names), tuple(summaries), grids, drill, lambda node: per_node[node], test,
                      note=STORED_NOTE)


def _files_detail(names: Sequence[str], runs: Sequence[Any], nodes: Sequence[views.NodeSummary],
                  grids: dict[str, Grid], options: Mapping[str, Any]) -> Detail:
    """The drill-down of a comparison with stored runs: the gold, meta, answers and passages of the results among
    ``runs`` (as :func:`evalframe.compare_report`'s: the answers of the first node with answers, the passages of the
    last node with documents only), nothing of a stored run (the store keeps per-query tables only). Each grid's
    ``detail`` is pointed at its queries' rows."""
    union = pd.Index([], dtype=object)
    for node in nodes:
        ids = pd.Index(grids[node.node].ids)
        union = union.append(ids[~ids.isin(union)])
    query = pd.Series(np.concatenate([grids[n.node].query for n in nodes]),
                      index=pd.Index(np.concatenate([grids[n.node].ids for n in nodes])))
    query = query[~query.index.duplicated()].reindex(union).fillna("").to_numpy(dtype=object)
    results = [run for run in runs if not isinstance(run, StoredRun)]
    answer_node = next((node.node for node in nodes if node.answer_node), None)
    document_node = next((node.node for node in reversed(nodes) if results and not node.answer_node
                          and results[0].has_documents(node.node)), None)
    scopes = {"document_scope": options.get("document_scope", MetricOptions.document_scope),
              "answer_scope": options.get("answer_scope", MetricOptions.answer_scope)}
    sides = []
    for chosen, kind in ((answer_node, "answer"), (document_node, "document")):
        pairs = []
        for run in runs:
            if chosen is None or isinstance(run, StoredRun):
                pairs.append((pd.DataFrame(), empty_rows(kind, len(union))))
            else:
                frame = node_rows(run, chosen, kind)
                frame = frame.assign(multilabel_id=frame["multilabel_id"].astype(str)) if len(frame) else frame
                pairs.append((frame, rows_of(frame, chosen, kind, union, scopes)))
        sides.append(pairs)
    detail = build_detail(names, union, query, sides[0], sides[1])
    for node in nodes:
        grid = grids[node.node]
        grids[node.node] = dataclasses.replace(grid, detail=union.get_indexer(pd.Index(grid.ids)).astype(np.int64))
    return detail


def _paper_of_tables(runs: Sequence[Any], names: Sequence[str], node: str,
                     options: Mapping[str, Any]) -> ComparisonTable:
    """:func:`evalframe.comparison_table` of runs among which stored ones are (per-query tables): their judge scores'
    directions are those the tables declare (``QueryTable.scores``), which ``comparison_table`` reads of results
    only (it refuses a judge score of a table as "no metric")."""
    given = dict(options)
    max_p = float(given.pop("max_p", 0.05))
    chosen, _ = CompareOptions.take({**given, "max_p": max_p})
    pairs = compare(*runs, node=node, names=list(names), pairs="all", max_p=max_p, **given)
    shown = list(dict.fromkeys(pairs.index.get_level_values("run_a")))
    shown += [name for name in dict.fromkeys(pairs.index.get_level_values("run_b")) if name not in shown]
    metrics = list(dict.fromkeys(str(metric) for metric in pairs.index.get_level_values("metric")))
    directions = directions_of(metrics, scores_of_runs(runs))
    corrected = p_column_of(pairs, chosen.test) != TESTS[chosen.test]
    caption = caption_of(pairs, shown, metrics, test=chosen.test, correction=chosen.correction, corrected=corrected,
                         family=chosen.family, max_p=max_p, rounds=chosen.rounds, seed=chosen.seed,
                         zero_method=chosen.zero_method)
    return table_of_pairs(pairs, shown, directions, caption=caption)


def _short_id(run_id: str) -> str:
    """A stored run's id as a name tells two apart: its random tail (``20261202T154015054700Z-1e6d68aa``:
    ``1e6d68aa``)."""
    return run_id.rsplit("-", 1)[-1] if "-" in run_id else run_id[:8]


def _unique_names(tokens: Sequence[str], named: Sequence[tuple[str, Any]]) -> list[str]:
    """The names of the runs ``tokens`` name: a FOLDER / FILE by its name, a stored run by the name it was logged
    under, with its short id when another run of the comparison has that name (``bm25 (1e6d68aa)``). One run named
    twice (``@last`` and its id, or an index given twice) is refused."""
    seen: dict[Any, str] = {}
    for token, (_, run) in zip(tokens, named):
        identity = ("store", run.id) if isinstance(run, StoredRun) else ("file", int(token))
        if identity in seen:
            raise EvalframeError(f"a run is given twice: {seen[identity]!r} and {token!r} name the same run; compare "
                                 "different runs.")
        seen[identity] = token
    names = [name for name, _ in named]
    counts = {name: names.count(name) for name in names}
    names = [f"{name} ({_short_id(run.id)})" if counts[name] > 1 and isinstance(run, StoredRun) else name
             for name, run in named]
    if len(set(names)) < len(names):  # still alike (two runs of one id tail): each by its token too
        names = [f"{name} [{token}]" for name, token in zip(names, tokens)]
    return names


class Viewer:
    """The views of :class:`Sources`: the store's runs, a trend, and comparisons, each built once per set of runs and
    kept (the last :data:`CACHE_SIZE`)."""

    def __init__(self, sources: Sources, *, cache_size: int = CACHE_SIZE, warm: bool = True) -> None:
        self.sources = sources
        self.cache_size = cache_size
        self.warm = warm
        self._built: OrderedDict[tuple[str, ...], Comparison] = OrderedDict()
        self._lock = threading.Lock()
        self._building = threading.Lock()
        self._results: dict[int, Any] = {}

    # ------------------------------------------------------------------ runs
    def run(self, token: str) -> tuple[str, Any]:
        """The run a URL names: a FOLDER / FILE argument by its index, or a store's run by its reference."""
        files = self.sources.files
        if token.isdigit() and token.isascii():
            index = int(token)
            if index >= len(files) or self.sources.read is None:
                raise NotFound(f"no run {index}: " + (f"the server was started on {len(files)} run(s), 0 to "
                                                      f"{len(files) - 1}." if files else "the server was started on "
                                                      "no FOLDER or FILE (name a store's run by its reference, "
                                                      "such as @last)."))
            if index not in self._results:
                self._results[index] = self.sources.read(index)
            return files[index][0], self._results[index]
        if token.startswith("@") and self.sources.history is not None:
            try:
                stored = self.sources.history.get(token)
            except EvalframeError as exc:
                raise NotFound(str(exc)) from None
            return stored.name, stored
        raise NotFound(f"no run {token!r}: a run is named by its index among the FOLDER / FILE arguments (0, 1, ...) "
                       "or, with a store, by a reference such as @last, @last~1 or @<id>.")

    def comparison(self, tokens: Sequence[str]) -> Comparison:
        """The comparison of the runs ``tokens`` name (built on first use, then kept)."""
        key = tuple(tokens)
        if len(key) < 2:
            raise NotFound("a comparison names two runs or more: /compare?run=0&run=1 (or run=@last~1&run=@last).")
        if len(key) > MAX_RUNS:  # a request the server cannot answer, not a run it lacks: 400
            raise EvalframeError(f"run: a comparison takes at most {MAX_RUNS} runs (the paper table names them a to "
                                 f"z); got {len(key)}.")
        with self._lock:
            found = self._built.get(key)
            if found is not None:
                self._built.move_to_end(key)
                return found
        with self._building:  # one build at a time; the pages of comparisons built already are served meanwhile
            with self._lock:
                found = self._built.get(key)
            if found is not None:  # built by the request that held the lock before this one
                return found
            named = [self.run(token) for token in key]
            runs = [run for _, run in named]
            names = _unique_names(key, named)
            options = dict(self.sources.options)
            if any(isinstance(run, StoredRun) for run in runs):
                built = _of_tables(names, runs, options)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = compare_report(dict(zip(names, runs)), **options).model
                built = comparison_of_model(model)
                built.paper_runs = lambda node: runs
            with self._lock:
                self._built[key] = built
                while len(self._built) > self.cache_size:
                    for pager in self._built.popitem(last=False)[1].pagers.values():
                        pager.close()  # its warming stops, its orders go
        if self.warm:  # every sort order computed ahead, so that no page waits for one
            threading.Thread(target=built.warm, daemon=True, name="evalframe-serve-warm").start()
        return built

    def paper(self, tokens: Sequence[str], node: str) -> str:
        built = self.comparison(tokens)
        built.summary(node)
        if node not in built.papers:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs = built.paper_runs(node)
                options = {k: v for k, v in self.sources.options.items() if k in _PAPER_OPTIONS}
                if any(isinstance(run, QueryTable) for run in runs):  # stored runs: their judge scores declared
                    table = _paper_of_tables(runs, built.names, node, options)
                else:
                    table = comparison_table(runs, names=list(built.names), node=node, **options)
            built.papers[node] = table.html
        return built.papers[node]

    # ------------------------------------------------------------------ the store
    def store_runs(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The store's runs (id, time, name, tags, queries, each measure's mean) and the headline measures shown."""
        history = self.sources.history
        metas = history.metas() if history is not None else []
        rows: list[dict[str, Any]] = []
        held: list[str] = []
        judged: set[str] = set()
        for meta in metas:
            means: dict[str, float] = {}
            for data in (meta.get("nodes") or {}).values():
                for measure, found in (data.get("measures") or {}).items():
                    means.setdefault(measure, found.get("mean"))
                    if measure not in held:
                        held.append(measure)
            judged.update(meta.get("scores") or {})
            time = str(meta.get("time") or "")
            rows.append({"id": str(meta["id"]), "time": time.replace("T", " ").rstrip("Z")[:19], "name":
                         str(meta.get("name")), "tags": [str(tag) for tag in meta.get("tags") or ()],
                         "queries": max([int(n.get("queries", 0)) for n in (meta.get("nodes") or {}).values()] or [0]),
                         "means": means})
        shown = [m for m in held if m in HEADLINE_MEASURES or m in judged] or held
        return rows, shown

    def measures(self) -> list[str]:
        rows, shown = self.store_runs()
        held = list(dict.fromkeys(m for row in rows for m in row["means"]))
        return shown + [m for m in held if m not in shown]


# ---------------------------------------------------------------------------------------------- the application
class _Headers:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^\[\]:/@\s]+)(?::[0-9]{1,5})?")


def host_of(header: str) -> str | None:
    """The name a ``Host`` header gives, lower-cased, its port left out (``[::1]:8000``: ``[::1]``); None when the
    header is no host with an optional port (``[::1]evil``, ``a:b:c``).

    >>> host_of("[::1]:8000"), host_of("LOCALHOST"), host_of("127.0.0.1:80"), host_of("[::1]evil.example")
    ('[::1]', 'localhost', '127.0.0.1', None)
    """
    found = _HOST.fullmatch(header.strip().lower())
    return found.group(1) if found else None


class _Hosts:
    """ASGI middleware: a request whose ``Host`` names none of ``allowed`` is refused (400), so that a page of another
    site that points its own name at a loopback address (DNS rebinding) cannot read the viewer. Unlike Starlette's
    TrustedHostMiddleware it reads an IPv6 host with its port (``[::1]:8000``)."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = {name.lower() for name in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or ())
            name = host_of(headers.get(b"host", b"").decode("latin-1"))
            if name not in self.allowed:
                response = Response("invalid Host header: this viewer answers to " + ", ".join(sorted(self.allowed)),
                                    status_code=400, media_type="text/plain; charset=utf-8")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def host_checked(app: ASGIApp, allowed: Sequence[str]) -> ASGIApp:
    """``app`` refusing (400) a request whose ``Host`` names none of ``allowed`` (:func:`evalframe serve
    <evalframe.present.serve.command.allowed_hosts>`'s names on a loopback): what ``serve_in_thread`` puts in front
    of any app it serves on a loopback address, as ``make_app(allowed_hosts=...)`` does.

    >>> from starlette.testclient import TestClient
    >>> from starlette.responses import PlainTextResponse
    >>> async def hello(scope, receive, send):
    ...     await PlainTextResponse("hello")(scope, receive, send)
    >>> TestClient(host_checked(hello, ["127.0.0.1"]), base_url="http://evil.example").get("/").status_code
    400
    """
    return _Hosts(app, allowed)


def _clean(value: Any) -> Any:
    """``value`` JSON-ready: NaN and infinities as None (JSON has neither), tuples as lists."""
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return _clean(value.item())
    return value


def _tokens(request: Request) -> list[str]:
    return request.query_params.getlist("run")


def _int(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isdigit() and text.isascii()) or len(text) > 12:
        raise EvalframeError(f"{name} must be a whole number >= 0; got {text!r}.")
    return int(text)


def _row(request: Request, rows: int, node: str) -> int:
    """The query row ``i`` of a request: required, a whole number below ``rows`` (else a 404: no such query)."""
    if "i" not in request.query_params:
        raise EvalframeError(f"i is required: the query's row (0 to {rows - 1} in {node}).")
    row = _int(request, "i", 0)
    if row >= rows:
        raise NotFound(f"no query {row} in {node}: i is a row from 0 to {rows - 1}.")
    return row


#: What ``desc`` may be: true or false.
_DESC = {"": False, "0": False, "false": False, "1": True, "true": True}


def _view(request: Request) -> Any:
    """The grid view of a request (:func:`.paging.view_from_query`), ``desc`` checked: 0, 1, true or false."""
    desc = request.query_params.get("desc")
    if desc is not None and desc.lower() not in _DESC:
        raise EvalframeError(f"desc must be 0 or 1 (or false / true): sort descending or not; got {desc[:40]!r}.")
    return view_from_query(request.query_params)  # which reads 1 and true as descending, the rest as not


def make_app(sources: Sources | Viewer, *, allowed_hosts: Sequence[str] | None = None, warm: bool = True) -> Starlette:
    """The application serving ``sources`` (read-only: every route is ``GET``).

    Parameters
    ----------
    sources : Sources or Viewer
        What the server was started on (a :class:`Viewer` of it: with the comparisons it built already).
    allowed_hosts : list of str, optional
        The names a ``Host`` header may give, its port left out, an IPv6 address in brackets (``[::1]``): any other
        is refused (400; a page of another site that points a name at 127.0.0.1 cannot read the viewer). Default:
        any.
    warm : bool
        Compute every sort order of a comparison in a thread as soon as it is built.

    Returns
    -------
    starlette.applications.Starlette
    """
    viewer = sources if isinstance(sources, Viewer) else Viewer(sources, warm=warm)
    sources = viewer.sources
    has_store = sources.history is not None

    def page(active: str, body: str, title: str, scripts: bool = False) -> HTMLResponse:
        return HTMLResponse(views.shell(active, body, title=title, scripts=scripts, has_store=has_store))

    def failed(status: int, message: str, api: bool) -> Response:
        if api:
            return JSONResponse({"error": message}, status_code=status)
        return HTMLResponse(views.message_page(status, message, has_store=has_store), status_code=status)

    def guarded(api: bool) -> Callable[[Callable[[Request], Response]], Callable[[Request], Response]]:
        def wrap(endpoint: Callable[[Request], Response]) -> Callable[[Request], Response]:
            def run(request: Request) -> Response:
                try:
                    return endpoint(request)
                except NotFound as exc:
                    return failed(404, str(exc), api)
                except EvalframeError as exc:
                    return failed(400, str(exc), api)
                except Exception as exc:  # noqa: BLE001 - a bug of evalframe: one line, as the command says it
                    return failed(500, f"internal error {type(exc).__name__}: {exc} (please report it)", api)
            run.__name__ = endpoint.__name__
            return run
        return wrap

    @guarded(api=False)
    def home(request: Request) -> Response:
        if has_store:
            return runs(request)
        if len(sources.files) > 1:
            return RedirectResponse(views.link("/compare", [("run", i) for i in range(len(sources.files))])
                                    .replace("&amp;", "&"), status_code=303)
        return page("home", views.files_list(sources.files) or "<p>Nothing to show.</p>", "evalframe serve")

    @guarded(api=False)
    def runs(request: Request) -> Response:
        if not has_store:
            raise NotFound("the server was started without a store (evalframe serve STORE, or --store).")
        rows, shown = viewer.store_runs()
        return page("runs", views.runs_page(rows, shown, files=sources.files, store=sources.store), "Runs")

    @guarded(api=True)
    def api_runs(request: Request) -> Response:
        rows, shown = viewer.store_runs() if has_store else ([], [])
        return JSONResponse({"runs": [{**row, "means": {k: v for k, v in row["means"].items() if v == v}}
                                      for row in rows], "measures": shown,
                             "files": [{"run": i, "name": name} for i, (name, _) in enumerate(sources.files)]})

    @guarded(api=False)
    def trend(request: Request) -> Response:
        if not has_store:
            raise NotFound("the server was started without a store (evalframe serve STORE, or --store).")
        measure = request.query_params.get("measure", "")
        node = request.query_params.get("node") or None
        measures = viewer.measures()
        if measure not in measures:
            raise NotFound(f"no run of the store holds the measure {measure!r}; they hold {measures}.")
        frame = sources.history.trend(measure, node=node)
        whole = trend_html(frame, measure=measure)
        body = whole.split("<body>", 1)[1].rsplit("</body>", 1)[0]
        body = body.split("</h1>", 1)[1] if "</h1>" in body else body
        title = f"{measure} over {len(frame)} run{'s' if len(frame) != 1 else ''}"
        return page("trend", views.trend_page(body, measures, measure), title)

    @guarded(api=False)
    def compare_view(request: Request) -> Response:
        tokens = _tokens(request)
        built = viewer.comparison(tokens)
        node = request.query_params.get("node") or built.nodes[0].node
        built.summary(node)
        params = [("run", token) for token in tokens]
        api = views.link("/api/grid", [*params, ("node", node)]).replace("&amp;", "&")
        body = views.comparison_page(built.names, built.nodes, node, params, note=built.note, notes=built.notes,
                                     test=built.test, api=api)
        return page("compare", body, " vs ".join(built.names), scripts=True)

    @guarded(api=False)
    def paper(request: Request) -> Response:
        tokens = _tokens(request)
        built = viewer.comparison(tokens)
        node = request.query_params.get("node") or built.nodes[0].node
        html = viewer.paper(tokens, node)
        params = [("run", token) for token in tokens] + [("node", node)]
        return page("paper", views.paper_page(html, params), f"Paper table: {node}")

    def grid_of(request: Request) -> tuple[Comparison, str]:
        built = viewer.comparison(_tokens(request))
        node = request.query_params.get("node") or built.nodes[0].node
        built.summary(node)
        return built, node

    @guarded(api=True)
    def api_summary(request: Request) -> Response:
        built = viewer.comparison(_tokens(request))
        return JSONResponse(_clean({"names": list(built.names), "test": built.test, "notes": list(built.notes),
                                    "nodes": [dataclasses.asdict(node) for node in built.nodes]}))

    @guarded(api=True)
    def api_info(request: Request) -> Response:
        built, node = grid_of(request)
        return JSONResponse(built.info(node))

    @guarded(api=True)
    def api_page(request: Request) -> Response:
        built, node = grid_of(request)
        view = _view(request)
        return JSONResponse(built.pagers[node].page(view, _int(request, "offset", 0), _int(request, "limit", 100)))

    @guarded(api=True)
    def api_detail(request: Request) -> Response:
        built, node = grid_of(request)
        return JSONResponse(built.detail(node, _row(request, len(built.grids[node].ids), node)))

    @guarded(api=True)
    def api_row(request: Request) -> Response:
        built, node = grid_of(request)
        return JSONResponse(built.pagers[node].row(_row(request, len(built.grids[node].ids), node)))

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        found = ASSETS.get(name)
        if found is None or not found[0].is_file():
            return failed(404, f"no file {name!r} here", api=True)
        return Response(found[0].read_bytes(), media_type=found[1])

    routes = [Route("/", home), Route("/runs", runs), Route("/trend", trend), Route("/compare", compare_view),
              Route("/paper", paper), Route("/api/runs", api_runs), Route("/api/summary", api_summary),
              Route("/api/grid/info", api_info),
              Route("/api/grid/page", api_page), Route("/api/grid/detail", api_detail),
              Route("/api/grid/row", api_row),
              Route("/static/{name}", static)]
    middleware = [Middleware(_Headers)]
    if allowed_hosts is not None:
        middleware.insert(0, Middleware(_Hosts, allowed=list(allowed_hosts)))
    return Starlette(routes=routes, middleware=middleware)
