"""The reports as one self-contained HTML page: :func:`render` (one run, its recall@k charts embedded as PNG) and
:func:`render_comparison` (the per-query grid, sortable and filterable, each query opening to every run's rows:
inline CSS and script, no network, no server). Every text of the user's is escaped for an element or a quoted
attribute (:func:`evalframe.report.escape.h`); no page embeds data in a script: the comparison's script is a constant.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> render(build_model(load_demo_result(), n=1, charts=False)).startswith("<!DOCTYPE html>")
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .wording import slice_note  # the slice view
from .escape import h, hi
from .wording import (ABOVE_ONE, DEFINITIONS_TITLE, answerable_shown, arrow, detectable_text, includes, plain, scopes,
                      signed, significance_note, trec_note)
from .wording import interval_text, isolated_shown, top1_shown

if TYPE_CHECKING:
    from .model import ComparedNode, ComparisonModel, GridQuery, ReportModel, RunDelta, Section

__all__ = ["render", "render_comparison", "DEFINITIONS_ANCHOR"]

#: The page links to the report's last section (and to each metric's definition there) by these anchors.
DEFINITIONS_ANCHOR = "evalframe-definitions"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:72rem;color:#1f2328;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.node{font-weight:600}.muted{color:#656d76;font-size:.85rem}img{max-width:36rem}
.evalframe-report th,.evalframe-report td{text-align:left!important}.evalframe-report td.num{text-align:right!important}
.ok{color:#1a7f37;font-weight:700}.flag{color:#9a6700}.field,.why{color:#656d76;font-size:.8rem}
a.metric{color:inherit;text-decoration:underline dotted}dl.definitions dt{font-weight:600;margin-top:.6rem}
dl.definitions dt code{font-size:1rem}
dl.definitions dd{margin-left:1.5rem}
.evalframe-report b,.evalframe-report code,.evalframe-report span,.evalframe-report a{unicode-bidi:isolate}
"""


def _metric_anchor(metric: str) -> str:
    """The id of a metric's definition in the page (a measure's ``(``, ``=`` and ``@`` become ``-``)."""
    return "evalframe-metric-" + re.sub(r"[^A-Za-z0-9_]", "-", metric)


def _markdown_html(markdown: str) -> str:
    """The registry's inline markdown (``**bold**``, ```code```, ``\\|``) as escaped HTML."""
    text = h(markdown.replace("\\|", "|"))
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def render(model: ReportModel) -> str:
    """The report as one self-contained HTML page (the recall@k charts embedded as PNG)."""
    # a column no row fills is left out (no reader giving several answers: no top-1; no isolated run: no isolated)
    shown = [name for name, on in (("top-1", top1_shown(model)), ("isolated (upper bound)", isolated_shown(model)),
                                   ("answerable only", answerable_shown(model))) if on]
    page = [f"<h1>Evaluation report</h1><p class='muted'>evalframe {h(model.version)}; nodes: "
            f"{', '.join(map(hi, model.nodes))}</p>",
            f"<p class='scopes'>Scopes: <code>document_scope={h(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={h(repr(model.answer_scope))}</code> "
            f"(<a href='#{DEFINITIONS_ANCHOR}'>what they mean</a>)</p>", "<h2>Pipeline funnel</h2>",
            "<table><tr><th>node</th><th>metric</th><th>integrated</th>"
            + "".join(f"<th>{name}</th>" for name in shown) + "</tr>"]
    for node in model.funnel:
        for row in node.rows:
            anchor = _metric_anchor(row.metric)
            flag = (f" <span class='flag' title='{h(ABOVE_ONE)}'>&#9888; above 1 "
                    f"(<a href='#{anchor}'>why</a>)</span>" if row.above_one else "")
            name = f"<a class='metric' href='#{anchor}' title='{h(row.description)}'>{h(row.metric)}</a>"
            cells = {"top-1": row.top1, "isolated (upper bound)": row.isolated, "answerable only": row.answerable}
            # a node of one answer per query: its top-1 cell is empty, and says why when pointed at
            why = {"top-1": f" title='{h(node.top1_note)}'"} if node.top1_note else {}
            page.append(
                f"<tr><td class='node'>{h(node.node)}</td><td>{name}{flag}</td>"
                f"<td class='num'>{row.integrated:.4f}{h(interval_text(row.interval))}</td>"
                + "".join(f"<td class='num'{why.get(column, '')}>"
                          f"{f'{cells[column]:.4f}' if cells[column] is not None else ''}</td>" for column in shown)
                + "</tr>")
    page.append("</table>")
    page += [f"<p class='muted includes'>{h(line)}</p>" for _, line in includes(model)]
    for count in model.trec_counts:
        page.append(f"<p class='muted'>{h(trec_note(model, count.node, count.queries))} "
                    f"(<a href='#{DEFINITIONS_ANCHOR}'>definitions</a>).</p>")
    if model.above_one:
        page.append(f"<p class='flag'>&#9888; map / ndcg {h(ABOVE_ONE)}; see "
                    f"<a href='#{DEFINITIONS_ANCHOR}'>{h(DEFINITIONS_TITLE)}</a>.</p>")
    page += [_section(section) for section in model.sections]
    page.append(_definitions(model))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe report</title>"
            f"<style>{_CSS}</style></head><body><div class='evalframe-report'>{''.join(page)}</div></body></html>")


def _section(section: Section) -> str:
    page = ""
    if section.chart:
        page += (f"<h2>{hi(section.node)}: recall@k</h2>"
                 f"<img alt='recall@k' src='data:image/png;base64,{h(section.chart)}'>")
    elif section.chart_note:  # where the chart would be: why there is none, and the install line
        page += f"<h2>{hi(section.node)}: recall@k</h2><p class='muted charts'>{h(section.chart_note)}</p>"
    page += f"<h2>Worst queries of {hi(section.node)} by {hi(section.metric)}</h2>"  # _title's words
    if not section.queries:
        at_worst = "&ge;" if section.at_worst == ">=" else "&le;"
        return page + f"<p>No query scores {hi(section.metric)} {at_worst} {h(section.threshold)}.</p>"
    kind = "answers" if section.answer_node else "retrieved documents"
    rows = [f"<table><tr><th>query</th><th>{h(section.metric)}</th><th>gold</th><th>{kind} "
            "(<span class='ok'>&#10003;</span> judged correct under the scopes above)</th></tr>"]
    for query in section.queries:
        items = []
        for listed in query.listed:
            mark = "<span class='ok' title='judged correct'>&#10003;</span> " if listed.correct else ""
            why = f" <span class='why'>({h(listed.why)})</span>" if listed.why else ""
            items.append(f"{h(listed.rank)}. {mark}" + " ".join(
                f"<span class='field'>{h(field)}:</span> "
                + (f"<b>{h(value)}</b>" if field in ("answer", "document_id") else f"<span class='muted'>{h(value)}</span>")
                for field, value in listed.fields) + why)
        rows.append(f"<tr><td>{h(query.query)}</td><td class='num'>{query.value:.4f}</td>"
                    f"<td>{h(query.gold)}</td><td>{'<br>'.join(items)}</td></tr>")
    return page + "".join(rows) + "</table>"


def _definitions(model: ReportModel) -> str:
    definitions = model.definitions
    items = "".join(
        f"<dt id='{_metric_anchor(d.metric)}'><code>{h(d.metric)}</code></dt>"
        f"<dd>{h(d.description)} {_markdown_html(d.details)}</dd>" for d in definitions.metrics)
    symbols = ("<p class='muted'>" + "; ".join(f"<b>{h(s)}</b>: {h(meaning)}" for s, meaning in definitions.symbols)
               + ".</p>" if definitions.symbols else "")
    return (f"<h2 id='{DEFINITIONS_ANCHOR}'>{h(DEFINITIONS_TITLE)}</h2><dl class='definitions'>"
            f"<dt>relevant document ({h(scopes(model))})</dt><dd>{h(definitions.relevant_document)}</dd>"
            f"<dt>correct answer (answer_scope={h(repr(model.answer_scope))})</dt>"
            f"<dd>{h(definitions.correct_answer)}</dd>"
            f"<dt>integrated, top-1, isolated</dt><dd>{h(definitions.modes)}</dd>{items}</dl>{symbols}"
            "<p class='muted'>Every value is the mean over the node's queries of the per-query value.</p>")


_COMPARISON_CSS = """
.evalframe-compare .controls{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;margin:.5rem 0}
.evalframe-compare .better{background:#dafbe1}.evalframe-compare .worse{background:#ffebe9}
.evalframe-compare tr.query{cursor:pointer}.evalframe-compare tr.query:hover td{background-color:#f6f8fa}
.evalframe-compare tr.query td.better{background:#dafbe1}.evalframe-compare tr.query td.worse{background:#ffebe9}
.evalframe-compare th.sortable{cursor:pointer;user-select:none}.evalframe-compare th.sortable::after{content:" ⇅";color:#8c959f}
.evalframe-compare th[aria-sort=ascending]::after{content:" ▲"}.evalframe-compare th[aria-sort=descending]::after{content:" ▼"}
.evalframe-compare .sig{font-weight:700}.evalframe-compare tr.drill td{background:#fbfcfd}
.evalframe-compare .runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:.8rem}
.evalframe-compare .mark{font-size:.75rem;border-radius:.6rem;padding:0 .35rem;margin-right:.2rem;background:#eaeef2}
.evalframe-compare .mark.on{background:#1a7f37;color:#fff}.evalframe-compare ol{margin:.2rem 0;padding-left:1.4rem}
"""

#: The comparison page's script: sorting, filtering, the drill-downs. No network, no library: plain DOM.
_COMPARISON_JS = """
(function(){
document.querySelectorAll('.evalframe-grid').forEach(function(grid){
  var table=grid.querySelector('table.grid'), bodies=function(){return Array.prototype.slice.call(table.tBodies);};
  var measure=grid.querySelector('select.measure'), show=grid.querySelector('select.show'),
      text=grid.querySelector('input.text'), slices=grid.querySelectorAll('select.slice'), count=grid.querySelector('.count');
  function apply(){
    var m=measure.value, s=show.value, t=text.value.toLowerCase(), shown=0;
    table.querySelectorAll('[data-measure]').forEach(function(cell){
      cell.style.display=(m==='' || cell.getAttribute('data-measure')===m)?'':'none';});
    bodies().forEach(function(body){
      var ok=true, row=body.rows[0];
      if(t && body.getAttribute('data-text').indexOf(t)<0) ok=false;
      slices.forEach(function(select){
        if(select.value!=='' && body.getAttribute('data-slice-'+select.getAttribute('data-key'))!==select.value) ok=false;});
      if(ok && m!==''){ if(body.getAttribute('data-scored-'+m)!=='1') ok=false; }
      if(ok && s!==''){
        var changes=(m===''?body.getAttribute('data-changes'):(body.getAttribute('data-change-'+m)||''));
        if(s==='changed'? !/better|worse/.test(changes) : changes.indexOf(s)<0) ok=false; }
      body.style.display=ok?'':'none'; if(ok) shown++; });
    count.textContent=shown+' of '+bodies().length+' queries shown';
  }
  [measure,show].concat(Array.prototype.slice.call(slices)).forEach(function(c){c.addEventListener('change',apply);});
  text.addEventListener('input',apply);
  table.querySelectorAll('th.sortable').forEach(function(th, position){
    th.addEventListener('click',function(){
      var key=th.getAttribute('data-key'), ascending=th.getAttribute('aria-sort')!=='ascending',
          numeric=th.hasAttribute('data-numeric');
      table.querySelectorAll('th.sortable').forEach(function(other){other.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',ascending?'ascending':'descending');
      var list=bodies(); list.forEach(function(b,i){b._i=i;});
      list.sort(function(a,b){
        var x=a.getAttribute('data-sort-'+key), y=b.getAttribute('data-sort-'+key), r;
        if(numeric){ x=x===''?NaN:parseFloat(x); y=y===''?NaN:parseFloat(y);
          if(isNaN(x)&&isNaN(y)) r=0; else if(isNaN(x)) return 1; else if(isNaN(y)) return -1; else r=x-y; }
        else r=x<y?-1:x>y?1:0;
        return (ascending?r:-r)||a._i-b._i; });
      list.forEach(function(b){table.appendChild(b);}); }); });
  table.addEventListener('click',function(event){
    var row=event.target.closest('tr.query'); if(!row) return;
    var drill=row.nextElementSibling; var open=drill.hidden; drill.hidden=!open;
    row.setAttribute('aria-expanded',open?'true':'false'); });
  apply();
});
})();
"""


def _attr(value: object) -> str:
    """``value`` for a quoted attribute (:func:`evalframe.report.escape.h`)."""
    return h(value)


def _key(text: str) -> str:
    """A measure or slice name as an attribute suffix (letters, digits, -, _)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text).lower()


def _drill(model: ComparisonModel, query: GridQuery) -> str:
    runs = []
    for name, rows in zip(model.names, query.rows):
        items = []
        for row in rows:
            mark = "<span class='ok' title='judged correct'>&#10003;</span> " if row.correct else ""
            fields = " ".join(f"<span class='field'>{h(field)}:</span> "
                              + (f"<b>{h(value)}</b>" if field in ("answer", "document_id")
                                 else f"<span class='muted'>{h(value)}</span>") for field, value in row.fields)
            marks = "".join(f"<span class='mark{' on' if value > 0 else ''}' title='{_attr(mark_name)}'>"
                            f"{h(mark_name)} {value:g}</span>" for mark_name, value in row.marks)
            items.append(f"<li value='{_attr(str(row.rank)) if isinstance(row.rank, int) else ''}'>{mark}{fields}"
                         f"<div>{marks}</div></li>")
        body = f"<ol>{''.join(items)}</ol>" if items else "<p class='muted'>no rows</p>"
        runs.append(f"<div class='run' data-run='{_attr(name)}'><b>{h(name)}</b>{body}</div>")
    return f"<div class='runs'>{''.join(runs)}</div>"


def _grid(model: ComparisonModel, node: ComparedNode, position: int) -> str:
    names = model.names
    metrics = [m.metric for m in node.measures]
    options = "".join(f"<option value='{_attr(_key(m))}'>{h(m)}</option>" for m in metrics)
    controls = [f"<label>measure <select class='measure'><option value=''>all measures</option>{options}</select></label>",
                "<label>show <select class='show'><option value=''>all queries</option><option value='changed'>changed"
                "</option><option value='worse'>regressions</option><option value='better'>improvements</option>"
                "</select></label>"]
    for index, key in enumerate(node.slice_keys):
        labels = sorted({dict(q.slices)[key] for q in node.queries})
        choices = "".join(f"<option value='{_attr(label)}'>{h(label)}</option>" for label in labels)
        controls.append(f"<label>{h(key)} <select class='slice' data-key='{index}'>"
                        f"<option value=''>all</option>{choices}</select></label>")
    controls.append("<label>text <input class='text' type='search' placeholder='query or id'></label>"
                    "<span class='count muted'></span>")
    head = ["<th class='sortable' data-key='rank' data-numeric>#</th>", "<th class='sortable' data-key='query'>query</th>"]
    head += [f"<th class='sortable' data-key='slice{i}'>{h(key)}</th>" for i, key in enumerate(node.slice_keys)]
    for m in node.measures:
        for r, name in enumerate(names):
            head.append(f"<th class='sortable' data-numeric data-key='v-{_attr(_key(m.metric))}-{r}' "
                        f"data-measure='{_attr(_key(m.metric))}'>{h(m.metric)} {arrow(m.direction)}<br>"
                        f"<span class='muted'>{h(name)}</span></th>")
        for r, name in enumerate(names[1:], start=1):
            head.append(f"<th class='sortable' data-numeric data-key='d-{_attr(_key(m.metric))}-{r}' "
                        f"data-measure='{_attr(_key(m.metric))}'>&Delta; {h(m.metric)}<br>"
                        f"<span class='muted'>{hi(name)} &minus; {hi(names[0])}</span></th>")
    width = 2 + len(node.slice_keys) + len(metrics) * (2 * len(names) - 1)
    bodies = []
    for rank, query in enumerate(node.queries, start=1):
        attrs = [f"data-text='{_attr((query.query + ' ' + query.multilabel_id).lower())}'",
                 f"data-sort-rank='{rank}'", f"data-sort-query='{_attr(query.query.lower())}'",
                 f"data-changes='{_attr(' '.join(c for changes in query.changes for c in changes if c))}'"]
        attrs += [f"data-slice-{i}='{_attr(label)}' data-sort-slice{i}='{_attr(label)}'"
                  for i, (_, label) in enumerate(query.slices)]
        cells = [f"<td class='num'>{rank}</td>", f"<td>{h(query.query)}</td>"]
        cells += [f"<td>{h(label)}</td>" for _, label in query.slices]
        for m, values, deltas, changes in zip(node.measures, query.values, query.deltas, query.changes):
            key = _key(m.metric)
            scored = any(v == v for v in values)
            attrs.append(f"data-scored-{_attr(key)}='{1 if scored else 0}' "
                         f"data-change-{_attr(key)}='{_attr(' '.join(c for c in changes if c))}'")
            for r, value in enumerate(values):
                attrs.append(f"data-sort-v-{_attr(key)}-{r}='{'' if value != value else repr(value)}'")
                cells.append(f"<td class='num' data-measure='{_attr(key)}'>{plain(value)}</td>")
            for r, (delta, change) in enumerate(zip(deltas, changes), start=1):
                attrs.append(f"data-sort-d-{_attr(key)}-{r}='{'' if delta != delta else repr(delta)}'")
                cells.append(f"<td class='num {_attr(change)}' data-measure='{_attr(key)}'>{signed(delta)}</td>")
        regressed = any("worse" in changes for changes in query.changes)
        bodies.append(f"<tbody {' '.join(attrs)}><tr class='query{' regressed' if regressed else ''}' "
                      f"aria-expanded='false' title='open to see every run&#39;s rows'>{''.join(cells)}</tr>"
                      f"<tr class='drill' hidden><td colspan='{width}'>{_drill(model, query)}</td></tr></tbody>")
    return (f"<div class='evalframe-grid' id='evalframe-grid-{position}'><h3>Queries of {hi(node.node)}</h3>"
            f"<p class='muted'>All {len(node.queries)} queries, worst change of {hi(node.order_metric)} first; "
            f"click a column to sort, a query to open every run's {'answers' if node.answer_node else 'documents'} with "
            f"their gold matches.</p><div class='controls'>{''.join(controls)}</div>"
            f"<table class='grid'><thead><tr>{''.join(head)}</tr></thead>{''.join(bodies)}</table></div>")


def _delta_cells(deltas: Sequence[RunDelta]) -> str:
    """Each run's delta, its interval and mark, then its p-value (``*`` when significant), as table cells."""
    cells = ""
    for d in deltas:
        mark = {"better": " &#9650;", "worse": " &#9660;"}.get(d.change, "")
        cells += (f"<td class='num {_attr(d.change)}'>{signed(d.delta)} [{signed(d.ci_low)}, {signed(d.ci_high)}]"
                  f"{mark}</td><td class='num{' sig' if d.significant else ''}'>{plain(d.p_value)}"
                  f"{' *' if d.significant else ''}</td>")
    return cells


def render_comparison(model: ComparisonModel) -> str:
    """The comparative report as one self-contained HTML page (inline CSS and script, no network)."""
    names = model.names
    page = [f"<h1>Comparative report</h1><p class='muted'>evalframe {h(model.version)}; runs: "
            f"{', '.join(map(hi, names))} (baseline {hi(names[0])}); "
            f"<code>document_scope={h(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={h(repr(model.answer_scope))}</code></p>",
            f"<p class='muted'>{h(significance_note(model))}</p>",
            *(f"<p class='includes'>{h(line)}</p>" for line in model.includes)]
    for position, node in enumerate(model.nodes):
        deltas = node.measures[0].deltas
        page.append(f"<h2>{h(node.node)}</h2><table class='summary'><tr><th>metric</th>"
                    + "".join(f"<th>{h(name)}</th>" for name in names)
                    + "".join(f"<th>&Delta; {hi(d.run)} &minus; {hi(names[0])} [CI]</th><th>p</th>"
                              for d in deltas) + "</tr>")
        for m in node.measures:
            cells = "".join(f"<td class='num'>{plain(v)}</td>" for v in m.values) + _delta_cells(m.deltas)
            page.append(f"<tr><td title='{_attr(m.description)}'>{h(m.metric)} {arrow(m.direction)}</td>"
                        f"{cells}</tr>")
        page.append("</table>")
        detectable = [detectable_text(m) for m in node.measures if m.detectable is not None]
        if detectable:
            page.append("<ul class='detectable muted'>" + "".join(f"<li>{h(line)}</li>" for line in detectable)
                        + "</ul>")
        if node.slices:  # the slice view: each slice's queries compared alone, corrected over the slices
            page.append(f"<p class='muted'>{h(slice_note(model, node.slice_keys))}</p><table class='slices'><tr>"
                        "<th>slice</th><th>metric</th><th>queries</th>"
                        + "".join(f"<th>{h(name)}</th>" for name in names)
                        + "".join(f"<th>&Delta; {hi(d.run)} &minus; {hi(names[0])} [CI]</th><th>p</th>"
                                  for d in deltas) + "</tr>")
            page += [f"<tr><td>{h(sv.slice)}</td><td>{h(sv.metric)} {arrow(sv.direction)}</td>"
                     f"<td class='num'>{sv.queries}</td>"
                     + "".join(f"<td class='num'>{plain(v)}</td>" for v in sv.values) + _delta_cells(sv.deltas)
                     + "</tr>" for sv in node.slices]
            page.append("</table>")
        page.append(_grid(model, node, position))
    page += [f"<p class='flag'>{h(note.category.__name__)}: {h(note.message)}</p>"
             for note in model.notes]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe comparative report</title>"
            f"<style>{_CSS}{_COMPARISON_CSS}</style></head><body><div class='evalframe-report evalframe-compare'>"
            f"{''.join(page)}</div><script>{_COMPARISON_JS}</script></body></html>")

