"""The HTML of ``evalframe serve``'s views, rendered on the server: a shell (navigation, the package's own style and
scripts) around the runs of a store, a trend, a comparison's summary and slices, and the paper table. Every user text
(run names, tags, ids, node, measure and slice names, labels, file names) goes through
:func:`evalframe.report.escape.h`; the grid and the drill-down are drawn in the browser by ``grid.js`` with
``textContent`` from the JSON API, never as markup.

Needs no Starlette: the functions take plain values and return strings.

Examples
--------
>>> page = shell("runs", "<p>x</p>", title="<script>alert(1)</script>")
>>> "<script>alert" in page, "&lt;script&gt;alert(1)&lt;/script&gt;" in page
(False, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from ...report.escape import h, hi

__all__ = ["shell", "runs_page", "comparison_page", "message_page", "MeasureRow", "NodeSummary", "number", "link",
           "files_list", "trend_page", "paper_page"]

#: The arrows that say which way a measure is better.
ARROWS = {"higher": "↑", "lower": "↓", "none": ""}


@dataclass(frozen=True)
class MeasureRow:
    """One measure (or one slice's measure) of a node in every run: each run's value and each later run's delta with
    its interval and p-value (``deltas``: dicts of run, delta, ci_low, ci_high, p_value, significant, change)."""

    metric: str
    direction: str
    values: tuple[float, ...]
    deltas: tuple[Mapping[str, Any], ...]
    queries: int
    description: str = ""
    slice: str = ""


@dataclass(frozen=True)
class NodeSummary:
    """A node of a comparison: its measures, its slices' measures and the measure its grid is ordered by."""

    node: str
    answer_node: bool
    order_metric: str
    slice_keys: tuple[str, ...]
    measures: tuple[MeasureRow, ...]
    slices: tuple[MeasureRow, ...] = field(default=())


def number(value: Any, digits: int = 4) -> str:
    """A value as the tables show it (``–`` for a missing one).

    Examples
    --------
    >>> number(0.123456), number(float("nan")), number(None)
    ('0.1235', '–', '–')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):.{digits}f}"


def _p(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):.3g}" if value >= 0.001 else f"{float(value):.1e}"


def link(path: str, params: Sequence[tuple[str, Any]] = ()) -> str:
    """A path and its query string, escaped for an ``href``.

    Examples
    --------
    >>> link("/compare", [("run", "@last~1"), ("run", "@last")])
    '/compare?run=%40last~1&amp;run=%40last'
    """
    query = urlencode([(key, str(value)) for key, value in params], quote_via=quote)
    return h(path + (f"?{query}" if query else ""))


def shell(active: str, body: str, *, title: str, scripts: bool = False, has_store: bool = True) -> str:
    """A whole page: the navigation, ``body`` (already HTML), the package's style sheets, and with ``scripts`` the
    grid component and the viewer's script (``/static/grid.js``, ``/static/app.js``)."""
    nav = []
    if has_store:
        nav.append(f'<a href="/runs"{" aria-current=page" if active == "runs" else ""}>runs</a>')
    nav.append(f'<a href="/"{" aria-current=page" if active == "home" else ""}>start</a>')
    script = ('<script src="/static/grid.js"></script><script src="/static/app.js"></script>' if scripts else "")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{h(title)} · evalframe serve</title>",
        '<link rel="stylesheet" href="/static/grid.css"><link rel="stylesheet" href="/static/app.css">',
        "</head><body>",
        f'<header class="sv-header"><strong>evalframe serve</strong> <nav>{" ".join(nav)}</nav></header>',
        f'<main class="sv-main"><h1>{h(title)}</h1>', body, "</main>", script, "</body></html>", ""])


def message_page(status: int, message: str, *, has_store: bool = True) -> str:
    """A page saying what went wrong (a 404, a refused view), the message escaped."""
    return shell("", f'<p class="sv-error">{h(message)}</p>', title=f"{status}", has_store=has_store)


def files_list(files: Sequence[tuple[str, str]]) -> str:
    """The FOLDER / FILE arguments, by index (their names as given), with a link to compare them all."""
    if not files:
        return ""
    rows = "".join(f"<tr><td>{i}</td><td>{hi(name)}</td><td><code>{h(shown)}</code></td></tr>"
                   for i, (name, shown) in enumerate(files))
    every = link("/compare", [("run", i) for i in range(len(files))])
    compare_all = (f'<p><a class="sv-compare" href="{every}">compare them side by side</a></p>'
                   if len(files) > 1 else "")
    return (f"<h2>Runs given</h2><table class=\"sv-table\"><thead><tr><th>#</th><th>run</th><th>read from</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>{compare_all}")


def runs_page(runs: Sequence[Mapping[str, Any]], measures: Sequence[str], *, files: Sequence[tuple[str, str]] = (),
              store: str = "") -> str:
    """The runs of a store, newest last: id, time, name, tags, queries and each headline measure's mean; a check box
    per run to compare the ones chosen, and a link per measure to its trend."""
    head = "".join(f'<th><a href="{link("/trend", [("measure", m)])}">{h(m)}</a></th>' for m in measures)
    rows = []
    for run in runs:
        ref = "@" + str(run["id"])
        cells = "".join(f"<td class=\"sv-num\">{number(run['means'].get(m))}</td>" for m in measures)
        tags = " ".join(f'<span class="sv-tag">{h(tag)}</span>' for tag in run["tags"])
        rows.append(f'<tr><td><input type="checkbox" name="run" value="{h(ref)}" aria-label="compare {h(run["id"])}">'
                    f'</td><td><code>{h(run["id"])}</code></td><td>{h(run["time"])}</td><td>{hi(run["name"])}</td>'
                    f"<td>{tags}</td><td class=\"sv-num\">{h(run['queries'])}</td>{cells}</tr>")
    table = (f'<form method="get" action="/compare" class="sv-runs"><table class="sv-table"><thead><tr><th></th>'
             f"<th>id</th><th>time (UTC)</th><th>name</th><th>tags</th><th>queries</th>{head}</tr></thead>"
             f'<tbody>{"".join(rows)}</tbody></table>'
             '<p><button type="submit">compare the runs checked</button> (the first checked is the baseline; '
             "or open <a href=\"/compare?run=%40last~1&amp;run=%40last\">the last two</a>)</p></form>"
             if runs else "<p>The store holds no run yet: <code>evalframe log RESULT --store STORE --name NAME</code> "
                          "logs one.</p>")
    where = f"<p>Store <code>{h(store)}</code>: {len(runs)} run{'s' if len(runs) != 1 else ''}.</p>" if store else ""
    return where + table + files_list(files)


def _measure_table(names: Sequence[str], rows: Sequence[MeasureRow], *, sliced: bool = False) -> str:
    later = names[1:]
    head = (("<th>slice</th>" if sliced else "") + "<th>measure</th>" + "".join(f"<th>{hi(n)}</th>" for n in names)
            + "".join(f"<th>Δ {hi(n)}</th><th>interval</th><th>p</th>" for n in later) + "<th>queries</th>")
    body = []
    for row in rows:
        cells = "".join(f'<td class="sv-num">{number(v)}</td>' for v in row.values)
        for delta in row.deltas:
            change = str(delta.get("change") or "")
            mark = f' class="sv-num sv-{h(change)}"' if change else ' class="sv-num"'
            cells += (f"<td{mark}>{number(delta.get('delta'))}{' *' if delta.get('significant') else ''}</td>"
                      f'<td class="sv-num">[{number(delta.get("ci_low"))}, {number(delta.get("ci_high"))}]</td>'
                      f'<td class="sv-num">{_p(delta.get("p_value"))}</td>')
        title = f' title="{h(row.description)}"' if row.description else ""
        body.append(("<tr>" + (f"<td>{hi(row.slice)}</td>" if sliced else "")
                     + f"<td{title}>{h(row.metric)} {ARROWS.get(row.direction, '')}</td>{cells}"
                       f'<td class="sv-num">{h(row.queries)}</td></tr>'))
    return (f'<table class="sv-table sv-summary"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            "</table>")


def comparison_page(names: Sequence[str], nodes: Sequence[NodeSummary], chosen: str, params: Sequence[tuple[str, str]],
                    *, note: str = "", notes: Sequence[str] = (), test: str = "", api: str = "") -> str:
    """A comparison's view: the runs, each node's measures with their paired intervals and p-values, its slices
    (``--by``), links to the paper table and to the other nodes, and the grid of ``chosen`` (drawn by ``app.js``
    from ``api``, the grid's JSON API)."""
    parts = [f'<p class="sv-runs-line">Runs: {", ".join(hi(name) for name in names)} (the first is the baseline; '
             f"each delta is a run minus it{', ' + h(test) if test else ''}; * significant).</p>"]
    if note:
        parts.append(f'<p class="sv-note">{h(note)}</p>')
    for text in notes:
        parts.append(f'<p class="sv-note">{h(text)}</p>')
    for node in nodes:
        here = node.node == chosen
        parts.append(f'<section class="sv-node" data-node="{h(node.node)}"><h2>{h(node.node)}</h2>')
        parts.append(_measure_table(names, node.measures))
        if node.slices:  # folded: a row per slice and measure
            parts.append(f'<details class="sv-slices"><summary>By {h(", ".join(node.slice_keys))} '
                         f"({len({row.slice for row in node.slices})} slices; each test corrected over the slices)"
                         "</summary>")
            parts.append(_measure_table(names, node.slices, sliced=True) + "</details>")
        paper = link("/paper", [*params, ("node", node.node)])
        grid = link("/compare", [*params, ("node", node.node)])
        parts.append(f'<p><a href="{paper}">the paper table</a>'
                     + ("" if here else f' · <a href="{grid}">its queries</a>') + "</p>")
        if here:
            parts.append(f'<h3>Queries of {h(node.node)}</h3><div id="sv-grid" class="evalframe-grid" data-api="{h(api)}" '
                         f'data-node="{h(node.node)}"><p class="sv-muted">loading the grid…</p></div>')
        parts.append("</section>")
    return "\n".join(parts)


def trend_page(body: str, measures: Sequence[str], measure: str) -> str:
    """A trend's view: the chooser of the measure, and the trend (:func:`evalframe.report.trend.trend_html`'s body,
    escaped there)."""
    choices = " ".join(f'<a href="{link("/trend", [("measure", m)])}"'
                       f'{" aria-current=page" if m == measure else ""}>{h(m)}</a>' for m in measures)
    return f'<p class="sv-choices">Measures: {choices}</p><div class="sv-trend">{body}</div>'


def paper_page(table_html: str, params: Sequence[tuple[str, str]]) -> str:
    """The paper table (:meth:`evalframe.report.paper.ComparisonTable.to_html`, escaped there) and a link back."""
    return (f'<p><a href="{link("/compare", params)}">back to the comparison</a></p>'
            f'<div class="sv-paper">{table_html}</div>')
