"""Hostile text in every field a user controls, on the report pages, in a real browser (headless Chromium through
playwright, as tests/present/test_report_browser.py; skipped without one unless EVALFRAME_REQUIRE_BROWSER is set).

The fields (:data:`FIELDS`): node names, score names (letters, digits, ``_``, ``-``: what they may hold) and
descriptions, query texts, answers, contexts, retrieved and gold document ids, meta keys and values (the comparison's
slice filter), run names, file names (``evalframe report --from runs FILE...`` names the runs by their files), a
column of the frames listed in the worst queries (``wrong_examples_fields``). The texts (:data:`PAYLOADS`): script
tags, attribute break-outs, a ``</script>`` closing the page's script, a ``javascript:`` URL, template syntax
(``{{7*7}}``, ``${...}``), U+2028 and U+2029, NUL, a right-to-left override, a 5,000-character string, tags that would
load from the network, a lone surrogate. Each page loaded must open no dialog, run no injected script
(``window.__pwned`` stays undefined), request nothing but itself, log no console error, and show each hostile text
as text (:func:`shown`: a NUL as ``␀``, a lone surrogate as U+FFFD, as the renderers document; a field the report cuts
to one line and 150 characters, cut so).

The normal suite loads a single-run page and a comparative page whose every field holds a payload, a page named by
a hostile file name, and a page built unescaped on purpose (the checks must catch it); the full matrix, each payload
alone in each field (13 x 13 = 169 cases, each a comparative page and a single-run page when both show the field:
about 290 pages), is behind the stress marker. The Markdown renderers are checked without a browser: no ``<`` of the
user's text survives unescaped outside a code span.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import evalframe as ef
from evalframe.present.cli import main
from evalframe.options import WRONG_EXAMPLES_FIELDS
from evalframe.sources.runs import read_runs
from tests.fixtures import launched_chromium

#: What a user may put in a field, each with a name for the test ids.
PAYLOADS: dict[str, str] = {
    "script": "<script>window.__pwned=1;alert(1)</script>",
    "attribute": "\"><img src=x onerror=\"window.__pwned=1;alert(1)\">",
    "quote": "'><svg onload='window.__pwned=1;alert(1)'>",
    "end-script": "</script><script>window.__pwned=1;alert(1)</script>",
    "javascript-url": "javascript:window.__pwned=1",
    "template": "{{7*7}}",
    "template-literal": "${window.__pwned=1}",
    "line-separators": "a\u2028b\u2029c",
    "nul": "nul\x00byte",
    "rtl-override": "abc\u202edef",
    "long": "<b>" + "x" * 5000 + "</b>",
    "network": "<img src='https://evalframe.invalid/x.png'><link rel=stylesheet href='//evalframe.invalid/x.css'>",
    "lone-surrogate": "lone\ud800surrogate",
}
#: The fields a user controls, and which pages show them: (single-run, comparative). The meta fields, run and file
#: names are the comparison's; a column of the frames listed by ``report(wrong_examples_fields=[...])`` the single
#: report's.
FIELDS: dict[str, tuple[bool, bool]] = {
    "node": (True, True), "score": (True, True), "score_name": (True, True), "query": (True, True),
    "answer": (True, True), "context": (True, True), "document_id": (True, True), "gold": (True, True),
    "meta_key": (False, True), "meta_value": (False, True), "run": (False, True), "file": (False, True),
    "field_name": (True, False)}
#: Fields that cannot hold a lone surrogate: the sources refuse it before any report (UnicodeEncodeError while the
#: query ids are hashed; not the renderers' concern).
NO_SURROGATE = {"node", "query", "meta_key", "meta_value", "file", "field_name"}
#: A cut field's characters (the single report's max_characters_per_field; the grid's drill-down cuts at 150 too).
CUT = 150


def allowed(field: str, payload: str) -> str:
    """The payload as the field can hold it: a score name is letters, digits, ``_`` and ``-`` (the rest becomes
    ``-``); a meta key has no ``.`` (``by="meta.a.b"`` reads nested keys); a file name no ``/``, NUL, ``.``, and at most 200
    bytes."""
    if field == "score_name":
        return "s" + re.sub(r"[^A-Za-z0-9_-]", "-", payload)[:60]
    if field == "meta_key":
        return payload.replace(".", "_")
    if field == "file":  # and no "." either: a run is named by its file's name up to its first dot
        return payload.replace("/", "_").replace("\x00", "_").replace(".", "_").encode("utf-8", "surrogatepass")[:200].decode(
            "utf-8", "ignore")
    return payload


def shown(text: str) -> list[str]:
    """What the page may show for ``text`` (any one of them): as it is, or cut to one line (whitespace runs as one
    space, U+2028 and U+2029 included) and to :data:`CUT` characters; a NUL as its picture ``␀`` and a lone
    surrogate as U+FFFD, as ``evalframe.report.escape`` documents."""
    text = text.replace("\x00", "\u2400")
    text = re.sub("[\ud800-\udfff]", "\ufffd", text)
    one_line = " ".join(text.split())
    return [text[:100], one_line[:100]]


# ---------------------------------------------------------------------------------------------- the runs
def _lines(values: dict[str, str], run: str) -> list[dict[str, Any]]:
    """Three queries of a retriever and a reader, with ``values`` in the fields they name (defaults elsewhere)."""
    node = values.get("node", "Retriever")
    key = values.get("meta_key", "topic")
    score = values.get("score_name", "judge")
    lines = []
    for i in range(3):
        doc, gold = values.get("document_id", "doc") + f" {i}", values.get("gold", "gold") + f" {i}"
        context = values.get("context", "passage") + f" {i}"
        documents = [{"id": doc, "content": context}, {"id": gold, "content": f"gold passage {i}"}]
        lines.append({
            "query": values.get("query", "query") + f" {i}",
            "meta": {key: values.get("meta_value", "x") if i < 2 else "y"},
            "gold": {"document_ids": [gold], "contexts": [f"gold passage {i}"], "answers": [f"gold answer {i}"]},
            # run A misses query 0's gold (a worst query, listed with its gold), run B ranks it first
            "nodes": {node: {"documents": (documents[:1] if i == 0 else documents) if run == "A" else documents[::-1]},
                      "Reader": {"answers": [{"answer": values.get("answer", "answer") + f" {i}", "context": context,
                                              "document_ids": [doc]}]}},
            "scores": {"Reader": {score: 0.25 * i + (0.25 if run == "B" else 0.0)}}})
    return lines


def _write(values: dict[str, str], run: str, path: Path) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in _lines(values, run)), encoding="utf-8")
    return path


def _result(values: dict[str, str], run: str, folder: Path) -> ef.EvaluationResult:
    lines = _lines(values, run)
    labels, outputs = read_runs(_write(values, run, folder / f"run{run}.jsonl"), progress=False)
    score = values.get("score_name", "judge")
    declared = {score: ef.score_measure(score, description=values.get("score", "a judge's score"))}
    result = ef.EvaluationResult.from_runs(labels, outputs, meta=[line["meta"] for line in lines], progress=False,
                                           score_measures=declared)
    if "field_name" in values:  # a column of the user's frames, listed in the worst queries
        result[values.get("node", "Retriever")][values["field_name"]] = "a value"
    return result


def pages(values: dict[str, str], folder: Path, *, single: bool = True, comparative: bool = True) -> list[Path]:
    """The comparative page of two runs with ``values`` in their fields (written by ``evalframe report --from runs``
    when a file name is among them), and the single-run page of the first."""
    folder.mkdir(parents=True, exist_ok=True)
    key = "meta." + values.get("meta_key", "topic")
    out = folder / "compare.html"
    made = []
    if not comparative:
        pass
    elif "file" in values:
        files = [_write(values, run, folder / f"{values['file']} {run}.jsonl") for run in "AB"]
        assert main(["report", "--from", "runs", *map(str, files), "--by", key, "--html", str(out)]) == 0
    else:
        first, second = _result(values, "A", folder), _result(values, "B", folder)
        ef.compare_report({values.get("run", "run") + " A": first, "B": second}, by=key, rounds=20).save(out)
    made += [out] if comparative else []
    if single:
        fields = [*WRONG_EXAMPLES_FIELDS, *([values["field_name"]] if "field_name" in values else [])]
        report = _result(values, "A", folder).report(n=3, charts=False, wrong_examples_fields=fields)
        made.append(folder / "single.html")
        made[-1].write_text(report.html, encoding="utf-8")
    return made


def expected(values: dict[str, str], page: Path) -> list[list[str]]:
    """The texts the page must show (each a list of acceptable forms)."""
    comparative = page.name == "compare.html"
    return [shown(text) for field, text in values.items() if FIELDS[field][comparative]]


# ---------------------------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("playwright.sync_api")
    with launched_chromium() as chromium:
        yield chromium


def visit(browser, path: Path) -> dict[str, Any]:
    """Load ``path`` in a fresh context: the dialogs it opened, the requests other than its own file (refused), the
    console errors, ``typeof window.__pwned``, and its text with every attribute value."""
    context = browser.new_context()
    seen: dict[str, Any] = {"dialogs": [], "requests": [], "errors": []}

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url == path.as_uri():
            request_route.continue_()
        else:
            seen["requests"].append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: seen["errors"].append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(20)  # an onerror / onload handler runs after its element failed or loaded
    seen["pwned"] = page.evaluate("typeof window.__pwned")
    # the comparative page draws its grid from the packed payloads and a query's drill-down when it is opened: every
    # query of every grid is opened in turn (all measures shown) and the page's text read each time
    seen["text"] = page.evaluate("""async () => {
        const read = () => document.body.textContent + '\\n' + Array.from(document.querySelectorAll('*'))
            .flatMap(e => Array.from(e.attributes).map(a => a.value)).join('\\n');
        const parts = [];
        for (const grid of window.evalframePage ? await evalframePage.ready : []) {
            grid.setView({measure: ''});
            await grid.ready;
            for (let p = 0; p < grid.total; p++) { await grid.open(p); parts.push(read()); }
        }
        return parts.concat([read()]).join('\\n');
    }""")
    context.close()
    return seen


def check(browser, path: Path, texts: list[list[str]]) -> None:
    seen = visit(browser, path)
    assert seen["dialogs"] == [], f"{path}: a dialog opened"
    assert seen["pwned"] == "undefined", f"{path}: an injected script ran"
    assert seen["requests"] == [], f"{path}: requests left the page"
    assert seen["errors"] == [], f"{path}: console errors"
    for forms in texts:
        assert any(form in seen["text"] for form in forms), f"{path}: {forms[0][:60]!r} is not shown as text"


def test_the_checks_catch_a_page_built_unescaped(browser, tmp_path):
    """The harness itself: a page with the payloads pasted in raw must fail each check."""
    raw = tmp_path / "raw.html"
    raw.write_text("<!DOCTYPE html><html><body>" + PAYLOADS["attribute"] + PAYLOADS["network"] + "</body></html>",
                   encoding="utf-8")
    seen = visit(browser, raw)
    assert seen["pwned"] == "number" and seen["dialogs"] == ["1"]
    assert any("evalframe.invalid" in url for url in seen["requests"])


#: Every field but the file name (a page of its own: the runs are then named by their files) with a payload of its
#: own, for the normal suite's two pages; the lone surrogate in the answer, which holds one.
MIXED = {"node": "script", "score": "attribute", "query": "end-script", "answer": "quote", "context": "network",
         "document_id": "template-literal", "gold": "javascript-url", "meta_key": "template",
         "meta_value": "rtl-override", "run": "line-separators", "score_name": "nul", "field_name": "attribute"}


def _mixed() -> dict[str, str]:
    values = {field: allowed(field, PAYLOADS[name]) for field, name in MIXED.items() if field in FIELDS}
    values["context"] += " " + PAYLOADS["long"]
    values["answer"] += PAYLOADS["lone-surrogate"]
    return values


@pytest.fixture(scope="module")
def mixed_pages(tmp_path_factory):
    values = _mixed()
    return values, pages(values, tmp_path_factory.mktemp("mixed"))


def test_a_comparative_page_with_hostile_text_in_every_field(browser, mixed_pages):
    values, (comparative, _) = mixed_pages
    check(browser, comparative, expected(values, comparative))


def test_a_single_run_page_with_hostile_text_in_every_field(browser, mixed_pages):
    values, (_, single) = mixed_pages
    check(browser, single, expected(values, single))


def test_a_file_name_with_hostile_text_names_its_run(browser, tmp_path):
    """``evalframe report --from runs FILE...`` names each run by its file."""
    values = {"file": allowed("file", PAYLOADS["attribute"] + PAYLOADS["end-script"])}
    [comparative] = pages(values, tmp_path, single=False)
    check(browser, comparative, expected(values, comparative))


def test_the_comparison_page_has_no_data_in_its_script(mixed_pages):
    """The page's executable scripts are the package's constant assets: no user text inside them (a ``</script>``
    there would end them); the data travels base64-packed in non-executable elements."""
    from evalframe.report.html import asset

    page = mixed_pages[1][0].read_text(encoding="utf-8")
    assert re.findall(r"<script>(.*?)</script>", page, flags=re.S) == [asset("grid.js"), asset("page.js")]
    packed = re.findall(r"<script type='application/octet-stream' id='evalframe-(?:grid|detail)'>([^<]*)</script>", page)
    assert len(packed) == 2 and all(re.fullmatch(r"[A-Za-z0-9+/=]+", data) for data in packed)


def test_markdown_shows_the_tags_as_text(tmp_path):
    """GitHub renders inline HTML in Markdown: every ``<`` of the user's text is escaped (``\\<``), in both reports."""
    values = _mixed()
    first, second = _result(values, "A", tmp_path), _result(values, "B", tmp_path)
    for markdown in (first.report(n=3, charts=False).render("markdown"),
                     ef.compare_report({values["run"] + " A": first, "B": second}, rounds=20).markdown):
        outside_code = re.sub(r"(`+)(?:(?!\1).)+\1", "", markdown)  # a code span shows its text as it is
        assert not re.search(r"(?<!\\)<(?=[A-Za-z/!?])", outside_code), "an unescaped tag"
        assert "\x00" not in markdown and "\ud800" not in markdown


@pytest.mark.stress
@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize("payload", list(PAYLOADS))
def test_each_payload_alone_in_each_field(browser, tmp_path, payload, field):
    if payload == "lone-surrogate" and field in NO_SURROGATE:
        pytest.skip(f"the sources refuse a lone surrogate in the {field} (UnicodeEncodeError)")
    values = {field: allowed(field, PAYLOADS[payload])}
    for page in pages(values, tmp_path, single=FIELDS[field][0], comparative=FIELDS[field][1]):
        check(browser, page, expected(values, page))
