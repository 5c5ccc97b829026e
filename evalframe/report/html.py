"""The reports as one self-contained HTML page: :func:`render` (one run, its recall@k charts embedded as PNG) and
:func:`render_comparison` (the summary tables, and per node a virtualized per-query grid drawn by the package's
``assets/grid.js`` from the comparison's columns, inline as gzip-compressed base64 JSON; a query's drill-down is
built when it is opened). One self-contained file: no network, no server. Every text of the user's is escaped for an
element or a quoted attribute (:func:`evalframe.report.escape.h`) or, in the grid, inserted as text by the script;
no executable script holds data: the scripts are constants, the data sits in ``application/octet-stream`` elements.

Examples
--------
>>> from evalframe import load_demo_result
>>> from evalframe.report.model import build_model
>>> render(build_model(load_demo_result(), n=1, charts=False)).startswith("<!DOCTYPE html>")
True
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shlex
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import numpy as np

from .wording import slice_note  # the slice view
from .escape import h, hi, visible
from .wording import (ABOVE_ONE, DEFINITIONS_TITLE, answerable_shown, arrow, detectable_text, includes, plain, scopes,
                      signed, significance_note, trec_note)
from .wording import interval_text, isolated_shown, top1_shown
from .viewer_data import viewer_payload

if TYPE_CHECKING:
    from .model import ComparedNode, ComparisonModel, ReportModel, RunDelta, Section

__all__ = ["render", "render_comparison", "asset", "serve_command", "DEFINITIONS_ANCHOR", "ANSWER_CHARACTERS",
           "PAGE_CHARACTERS", "TEXT_BUDGET", "PASSAGE_FLOOR", "PASSAGE_SHORTEST", "PAGE_LIMIT", "SERVE_PASSAGES"]

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


#: The page holds at most this many characters of each answer (each run's, the gold ones): what a person needs to
#: judge a query, kept whole first; their whole length kept, so the drill-down says "cut: N characters in all"
#: (``evalframe serve`` shows every text whole).
ANSWER_CHARACTERS = 1_000
#: ... and at most this many of each passage (a retrieved document's text, a gold document's).
PAGE_CHARACTERS = 300
#: The page's texts stay under this many characters in all (the distinct texts: a passage several runs retrieved
#: counts once), so that 5,000 questions x 2 runs of Ragas (five passages each) stay a page under 5 MB: the answers
#: first (each to :data:`ANSWER_CHARACTERS`), the passages share what is left, each cut to the one length that fits.
#: When the answers alone pass it they are cut to the length that fits and the passages keep
#: :data:`PASSAGE_FLOOR` characters (the drill-down still shows each passage's id, rank, mark and gold matches).
TEXT_BUDGET = 4_000_000
#: What each passage keeps when the answers take the whole :data:`TEXT_BUDGET`: nothing (the drill-down says
#: "text not in this page (N characters)").
PASSAGE_FLOOR = 0
#: A passage cut shorter than this says too little to judge it by: when the budget leaves the passages less, the page
#: holds none of their texts (as :data:`PASSAGE_FLOOR`) and the drill-down says so, with each passage's length
#: (``--page-characters N`` keeps N characters of each text whatever the page's size).
PASSAGE_SHORTEST = 60
#: Past this many queries x runs the page leaves the runs' answers and passages out of the drill-down (the grid, every
#: value, each query's gold answers, its gold documents' ids and its meta stay) and says that ``evalframe serve`` is
#: the better tool.
PAGE_LIMIT = 50_000
#: A page whose passages keep fewer characters than this (or none) also says what ``evalframe serve`` shows.
SERVE_PASSAGES = 150
#: The names that read as a file or a folder given on the command line (a suffix of a source's file, or a path).
_FILE_NAME = re.compile(r"[\\/]|\.(jsonl|json|ndjson|csv|tsv|parquet|txt|run|trec|gz)$", re.IGNORECASE)

_PAGE_CSS = """
.evalframe-compare .better{background:#dafbe1}.evalframe-compare .worse{background:#ffebe9}
.evalframe-compare .sig{font-weight:700}
.evalframe-compare .serve{border-left:4px solid #9a6700;padding:.3rem .8rem;background:#fff8c5}
"""


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """The text of one of the page's assets (``grid.js``, ``grid.css``, ``page.js``: files of the package, shipped
    unchanged to the page and to ``evalframe serve``).

    Examples
    --------
    >>> "window.Evalframe" in asset("grid.js")
    True
    """
    return (files("evalframe.report") / "assets" / name).read_text(encoding="utf-8")


def _attr(value: object) -> str:
    """``value`` for a quoted attribute (:func:`evalframe.report.escape.h`)."""
    return h(value)


#: The characters :func:`evalframe.report.escape.visible` shows otherwise (controls but tab and line breaks, DEL, a
#: lone surrogate).
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _visible_strings(value: Any) -> Any:
    """``value`` (a payload: dicts, lists, strings, numbers) with every string as the reports write it
    (:func:`evalframe.report.escape.visible`: a NUL as ``␀``, a lone surrogate as U+FFFD); a list of numbers is
    passed by (the payloads' lists hold one type)."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible(key): _visible_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        first = next((item for item in value if item is not None), None)
        if first is None or isinstance(first, (bool, int, float)):
            return value
        if isinstance(first, str) and not _INVISIBLE.search("".join(item for item in value if item is not None)):
            return value  # one scan of the whole list: most hold no character to show otherwise
        return [_visible_strings(item) for item in value]
    return value


def _packed(payload: dict) -> str:
    """``payload`` as JSON, gzip-compressed, base64: text that cannot close the script element holding it."""
    text = json.dumps(_visible_strings(payload), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=3, mtime=0)).decode("ascii")


def _longest_cut(lengths: np.ndarray, budget: int) -> int:
    """The largest cut c with ``sum(min(lengths, c)) <= budget`` (water-filling: every text keeps its first c
    characters, a shorter one whole); the longest length when all fit."""
    longest = int(lengths.max()) if len(lengths) else 0
    if int(lengths.sum()) <= budget:
        return longest
    low, high = 0, longest  # the total grows with the cut
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if int(np.minimum(lengths, middle).sum()) <= budget else (low, middle - 1)
    return low


def _sizes(strings: list[str]) -> np.ndarray:
    """Each string's length (int64)."""
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


def _text_refs(detail: dict) -> tuple[np.ndarray, np.ndarray]:
    """The strings (indices) of the DETAIL PAYLOAD's answers (each run's, the gold ones) and of its passages (the
    retrieved and the gold documents' texts), each once; a string that is also an answer counts as an answer, and
    one that is also an id, a query or a meta value is in neither (never cut)."""
    def refs(*columns: list) -> np.ndarray:
        joined = np.concatenate([np.asarray(c, dtype=np.int64) for c in columns if len(c)] or [np.zeros(0, np.int64)])
        return np.unique(joined[joined >= 0])

    runs = detail["runs"]
    kept = refs(detail["id"], detail["query"], detail["gold_documents"]["id"], *detail["meta"]["values"],
                *(run["documents"]["id"] for run in runs), *(run["answers"]["document_ids"]["id"] for run in runs))
    answers = np.setdiff1d(refs(detail["gold_answers"]["text"], *(run["answers"]["text"] for run in runs)), kept,
                           assume_unique=True)
    passages = refs(detail["gold_documents"]["text"], *(run["documents"]["text"] for run in runs))
    return answers, np.setdiff1d(passages, np.union1d(kept, answers), assume_unique=True)


def _cut_texts(detail: dict, answers: int, passages: int,
               refs: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Cut the DETAIL PAYLOAD's answers to ``answers`` characters and its passages to ``passages``, in place; the
    gold answers get their whole lengths (``gold_answers.length``, as the other texts have theirs), so that the
    drill-down says of each text it holds the start of how long it is in all."""
    strings = detail["strings"]
    gold = detail["gold_answers"]
    refer = np.asarray(gold["text"], dtype=np.int64)
    sizes = _sizes(strings)
    gold["length"] = np.where(refer >= 0, sizes[np.maximum(refer, 0)] if len(sizes) else 0, 0).tolist()
    for texts, cut in zip(_text_refs(detail) if refs is None else refs, (answers, passages)):
        for k in texts[sizes[texts] > cut].tolist():
            strings[k] = strings[k][:cut]


def _fit_texts(detail: dict, budget: int, *, answers: int = ANSWER_CHARACTERS, passages: int = PAGE_CHARACTERS,
               floor: int = PASSAGE_FLOOR, shortest: int | None = None) -> tuple[int | None, int | None]:
    """Cut the DETAIL PAYLOAD's texts in place to fit ``budget`` distinct characters: the answers (each run's, the
    gold ones) first, each to at most ``answers`` characters; the passages (retrieved and gold documents' texts)
    share what is left, each to the largest common length that fits, at most ``passages``. When the answers alone
    pass ``budget`` they are cut to the largest common length that fits it and the passages to ``floor``; so are the
    passages when what is left would cut them shorter than ``shortest`` (:data:`PASSAGE_SHORTEST`). Strings
    that are also ids, queries or meta are never cut; the lengths kept say what each text holds in all. Returns the
    lengths the answers and the passages were cut to, None for a kind kept whole (also ``detail["characters"]``
    and ``detail["passage_characters"]``)."""
    sizes = _sizes(detail["strings"])
    answer_refs, passage_refs = _text_refs(detail)
    answer_whole, passage_whole = sizes[answer_refs], sizes[passage_refs]
    answer_lengths, passage_lengths = np.minimum(answer_whole, answers), np.minimum(passage_whole, passages)
    if int(answer_lengths.sum()) <= budget:
        answer_cut = answers
        passage_cut = _longest_cut(passage_lengths, budget - int(answer_lengths.sum()))
        if passage_cut < int(passage_lengths.max(initial=0)) and passage_cut < (
                PASSAGE_SHORTEST if shortest is None else shortest):
            passage_cut = floor  # a few characters of each passage would only look like its text
    else:
        answer_cut, passage_cut = _longest_cut(answer_lengths, budget), floor
    _cut_texts(detail, answer_cut, passage_cut, (answer_refs, passage_refs))

    def said(cut: int, whole: np.ndarray) -> int | None:
        return None if not len(whole) or cut >= int(whole.max()) else cut

    cuts = said(answer_cut, answer_whole), said(passage_cut, passage_whole)
    detail["characters"], detail["passage_characters"] = cuts
    return cuts


def serve_command(names: Sequence[str]) -> str:
    """The ``evalframe serve`` command that shows these runs: their names when each reads as a file or a folder
    (shell-quoted), else ``evalframe serve RUN...`` (the names are the runs', not where they are).

    Examples
    --------
    >>> serve_command(["a.jsonl", "runs/b.jsonl"])
    'evalframe serve a.jsonl runs/b.jsonl'
    >>> serve_command(["bm25", "hybrid"])
    'evalframe serve RUN...'
    """
    if names and all(_FILE_NAME.search(name) for name in names):
        return "evalframe serve " + " ".join(shlex.quote(name) for name in names)
    return "evalframe serve RUN..."


def _serve_note(model: ComparisonModel, command: str, *, over: bool, large: bool, chosen: int | None,
                passages: int | None) -> str:
    """The page's line naming ``evalframe serve`` ("" when the page holds what a person needs): past
    :data:`PAGE_LIMIT`, or when the passages keep fewer than :data:`SERVE_PASSAGES` characters (or none)."""
    names = model.names
    short = passages is not None and passages < SERVE_PASSAGES
    if not over and not short:
        return ""
    if command == "evalframe serve RUN...":
        how = (f"<code>{h(command)}</code> (each RUN a run's folder or file, here {', '.join(map(hi, names))}; a "
               "Ragas, Haystack or LlamaIndex file with <code>--from</code>, e.g. "
               "<code>evalframe serve --from ragas a.jsonl b.jsonl</code>)")
    else:
        how = f"<code>{h(command)}</code>"
    if over:
        holds = ("holds the grid, every value and each query's gold answers and meta but leaves the runs' answers and "
                 "the passages out" if large else
                 f"holds the grid, every value and each text's first {chosen:,} characters (page_characters)")
        said = f"{len(model.detail):,} queries x {len(names)} runs: past {PAGE_LIMIT:,} this page {holds}"
    else:
        said = ("This page holds no passage's text" if passages == 0 else
                f"This page holds each passage's first {passages:,} characters")
        said += (" (page_characters)" if chosen is not None else
                 f" (its texts stay under {TEXT_BUDGET:,} characters)")
    return (f"<p class='serve'>{said}; {how} is the better tool: every text whole, the grid paged on the "
            "server.</p>")


def _runs_left_out(detail: dict, answers: int = ANSWER_CHARACTERS, budget: int = TEXT_BUDGET) -> None:
    """The DETAIL PAYLOAD past :data:`PAGE_LIMIT`, in place: each run's answers and passages left out (no rows), the
    gold documents' texts too (their ids and lengths kept); each query's id, text, gold answers (each to ``answers``
    characters, all of them to ``budget``) and meta kept; ``runs_left_out`` set (the drill-down says so)."""
    def emptied(part: dict) -> dict:
        out: dict = {}
        for key, value in part.items():
            if key == "offsets":
                out[key] = [0] * len(value)
            elif key == "document_ids":
                out[key] = {"offsets": [0], "id": []}
            elif isinstance(value, dict):  # marks: one column per mark
                out[key] = {name: [] for name in value}
            else:
                out[key] = value if not isinstance(value, list) else []
        return out

    for run in detail["runs"]:
        for part in ("answers", "documents"):
            if run.get(part):
                run[part] = emptied(run[part])
    gold_documents = detail["gold_documents"]
    gold_documents["text"] = [-1] * len(gold_documents["text"])
    strings = detail["strings"]
    gold = np.asarray(detail["gold_answers"]["text"], dtype=np.int64)
    kept = np.concatenate([np.asarray(c, dtype=np.int64) for c in (detail["id"], detail["query"], gold,
                                                                     gold_documents["id"], *detail["meta"]["values"])
                           if len(c)] or [np.zeros(0, np.int64)])
    keep = np.zeros(len(strings), dtype=bool)
    keep[kept[kept >= 0]] = True
    sizes = _sizes(strings)
    detail["gold_answers"]["length"] = np.where(gold >= 0, sizes[np.maximum(gold, 0)] if len(sizes) else 0,
                                                0).tolist()
    texts = np.unique(gold[gold >= 0])
    cut = _longest_cut(np.minimum(sizes[texts], answers), budget) if len(texts) else answers
    cut = min(cut, answers)
    for k in np.flatnonzero(~keep).tolist():
        strings[k] = ""
    for k in texts[sizes[texts] > cut].tolist():
        strings[k] = strings[k][:cut]
    detail["runs_left_out"] = True
    detail["characters"] = cut if len(texts) and cut < int(sizes[texts].max()) else None


def _cut_sentence(large: bool, cuts: tuple[int | None, int | None], chosen: int | None) -> str:
    """What the page holds of the drill-down's texts (``cuts``: the answers' and the passages' lengths, None:
    whole), as the grid's line says it."""
    if chosen is not None:
        return (f"page_characters={chosen}: the page holds no text of the drill-down" if chosen == 0 else
                f"page_characters={chosen}: the page holds each text's first {chosen:,} characters")
    if large:
        return (f"the runs' answers and passages are left out of this page (past {PAGE_LIMIT:,} queries x runs); "
                "each query's gold answers and meta are in it")
    answers, passages = cuts
    if answers is None and passages is None:
        return "the page holds every text whole"
    said = "every answer whole" if answers is None else f"each answer's first {answers:,} characters"
    return ("the page holds " + said + " and "
            + ("every passage whole" if passages is None else "no passage's text" if passages == 0 else
               f"each passage's first {passages:,} characters"))


def _grid_box(model: ComparisonModel, node: ComparedNode, position: int, cut: str) -> str:
    kind = "answers" if node.answer_node else "retrieved passages"
    return (f"<div class='evalframe-grid' id='evalframe-grid-{position}' data-grid='{position}'>"
            f"<h3>Queries of {hi(node.node)}</h3>"
            f"<p class='muted'>Worst change of {hi(node.order_metric)} first; choose a measure to sort by its worst "
            f"change, click a column to sort, a query to open its gold and every run's {kind} ({h(cut)}).</p>"
            "<div class='ef-mount'><noscript>The per-query grid needs JavaScript.</noscript></div></div>")


def _delta_cells(deltas: Sequence[RunDelta]) -> str:
    """Each run's delta, its interval and mark, then its p-value (``*`` when significant), as table cells."""
    cells = ""
    for d in deltas:
        mark = {"better": " &#9650;", "worse": " &#9660;"}.get(d.change, "")
        cells += (f"<td class='num {_attr(d.change)}'>{signed(d.delta)} [{signed(d.ci_low)}, {signed(d.ci_high)}]"
                  f"{mark}</td><td class='num{' sig' if d.significant else ''}'>{plain(d.p_value)}"
                  f"{' *' if d.significant else ''}</td>")
    return cells


def render_comparison(model: ComparisonModel, *, serve: str | None = None) -> str:
    """The comparative report as one self-contained HTML page: the summary tables, and per node a grid drawn by the
    package's ``assets/grid.js`` from the comparison's columns (:func:`evalframe.report.viewer_data.viewer_payload`),
    inline as gzip-compressed base64 JSON. Its texts fit the page's :data:`TEXT_BUDGET`: the answers first (each to
    :data:`ANSWER_CHARACTERS`), the passages what is left (each to the one length that fits, at most
    :data:`PAGE_CHARACTERS`); past :data:`PAGE_LIMIT` queries x runs no drill-down texts and a line naming
    ``evalframe serve`` (as when the passages keep fewer than :data:`SERVE_PASSAGES` characters): ``serve`` the
    command that shows these runs (the command line passes the one it was given), else :func:`serve_command` of the
    runs' names. With ``model.page_characters`` (``compare_report(..., page_characters=N)``) each text keeps
    its first N characters whatever the page's size. No network.

    Examples
    --------
    >>> from evalframe import load_demo_result
    >>> from evalframe.report.model import build_comparison_model
    >>> demo = load_demo_result()
    >>> page = render_comparison(build_comparison_model({"a": demo, "b": demo}, metrics=["mrr"], rounds=10))
    >>> page.count("id='evalframe-grid'"), page.count("<div class='evalframe-grid'")  # the data once, a grid per node
    (1, 1)
    """
    names = model.names
    chosen = model.page_characters
    over = len(model.detail) * len(names) > PAGE_LIMIT
    large = over and chosen is None
    cuts: tuple[int | None, int | None]
    if chosen is not None:  # the texts the user asked for, whatever the page's size
        grid, detail = viewer_payload(model, characters=chosen)
        _cut_texts(detail, chosen, chosen)
        cuts = (chosen, chosen)
    else:
        grid, detail = viewer_payload(model, characters=max(ANSWER_CHARACTERS, PAGE_CHARACTERS))
        if large:
            _runs_left_out(detail)
            cuts = (0, 0)
        else:
            cuts = _fit_texts(detail, TEXT_BUDGET)
    cut = _cut_sentence(large, cuts, chosen)
    page = [f"<h1>Comparative report</h1><p class='muted'>evalframe {h(model.version)}; runs: "
            f"{', '.join(map(hi, names))} (baseline {hi(names[0])}); "
            f"<code>document_scope={h(repr(model.document_scope))}</code>, "
            f"<code>answer_scope={h(repr(model.answer_scope))}</code></p>",
            f"<p class='muted'>{h(significance_note(model))}</p>",
            *(f"<p class='includes'>{h(line)}</p>" for line in model.includes)]
    page.append(_serve_note(model, serve or serve_command(names), over=over, large=large, chosen=chosen,
                            passages=cuts[1]))
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
        page.append(_grid_box(model, node, position, cut))
    page += [f"<p class='flag'>{h(note.category.__name__)}: {h(note.message)}</p>"
             for note in model.notes]
    return _page("".join(page), grid, detail)


def _page(body: str, grid: dict, detail: dict | None) -> str:
    """The page: ``body`` (escaped HTML), the payloads packed in non-executable script elements (no detail: a
    drill-down of the values alone), the constant assets."""
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>evalframe comparative report</title>"
            f"<style>{_CSS}{_PAGE_CSS}{asset('grid.css')}</style></head><body>"
            f"<div class='evalframe-report evalframe-compare'>{body}</div>"
            f"<script type='application/octet-stream' id='evalframe-grid'>{_packed(grid)}</script>"
            + (f"<script type='application/octet-stream' id='evalframe-detail'>{_packed(detail)}</script>"
               if detail is not None else "") +
            f"<script>{asset('grid.js')}</script><script>{asset('page.js')}</script></body></html>")
