"""The comparative page's Python side (report/html.py): the payloads packed (gzip, base64) in non-executable script
elements, the constant scripts (no user data in them), the assets read from the package, the texts fit to the
page's budget (hand-worked cuts), no drill-down texts past the stated size."""

from __future__ import annotations

import base64
import gzip
import json
import re
from importlib.resources import files

import pytest

from evalframe.report import html
from tests.report import compare_page_payloads as fixture


def _unpacked(page: str, element: str) -> dict:
    found = re.search(rf"<script type='application/octet-stream' id='{element}'>([A-Za-z0-9+/=]*)</script>", page)
    assert found, element
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_the_payloads_travel_packed_and_the_scripts_are_constants():
    grid, detail = fixture.grid_payload(), fixture.detail_payload(fixture.query_details(), fixture.RUNS)
    page = html._page("<p>body</p>", grid, detail)
    assert _unpacked(page, "evalframe-grid") == grid and _unpacked(page, "evalframe-detail") == detail
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert scripts == [html.asset("grid.js"), html.asset("page.js")]  # the executable scripts: the assets unchanged
    assert fixture.HOSTILE not in page and "onerror" not in page.replace(html.asset("grid.js"), "")
    for name in ("grid.js", "grid.css", "page.js"):  # package files; none can close its element early
        text = (files("evalframe.report") / "assets" / name).read_text(encoding="utf-8")
        assert text == html.asset(name) and "</script" not in text.lower() and "</style" not in text.lower()
    assert "id='evalframe-detail'" not in html._page("", grid, None)  # no detail: no element (the drill-down of values)


def _detail(texts: list[str], answers: tuple[str, ...] = (), gold: str = "gold answer") -> dict:
    """A DETAIL PAYLOAD of one query whose run 0 answered ``answers`` and retrieved documents with ``texts`` (ids d0,
    d1, ...), its gold answer ``gold``."""
    details = [{"row": 0, "id": "q", "query": "the query", "gold_answers": [gold], "gold_documents": [],
                "meta": {"topic": "meta text"},
                "runs": [{"name": "A",
                          "answers": [{"rank": k + 1, "text": t, "length": len(t), "correct": None, "document_ids": [],
                                       "marks": {"exact_match": 0.0, "f1": 0.0}} for k, t in enumerate(answers)],
                          "documents": [{"rank": k + 1, "id": f"d{k}", "text": t, "length": len(t), "correct": None,
                                         "marks": {"gold_id_match": 0.0}} for k, t in enumerate(texts)]},
                         {"name": "B", "answers": [], "documents": []}]}]
    return fixture.detail_payload(details, ["A", "B"])


def _texts(detail: dict, kind: str, column: str = "text") -> list[str]:
    return [detail["strings"][k] for k in detail["runs"][0][kind][column]]


def test_the_passages_are_cut_to_fit_the_budget():
    # distinct passages of 10, 40 and 100 characters and "gold answer" (11): the answer is kept, the passages share
    # 100 - 11 = 89; a cut c keeps min(len, c) of each: c = 39 gives 10 + 39 + 39 = 88, c = 40 gives 90
    detail = _detail(["a" * 10, "b" * 40, "c" * 100, "c" * 100])  # the third text twice: counted once
    assert html._fit_texts(detail, 100, shortest=0) == (None, 39)
    assert _texts(detail, "documents") == ["a" * 10, "b" * 39, "c" * 39, "c" * 39]
    assert detail["runs"][0]["documents"]["length"] == [10, 40, 100, 100]  # the whole lengths stay
    assert detail["characters"] is None and detail["passage_characters"] == 39
    # ids, the query and meta are never cut
    assert {"the query", "meta text", "d0", "d1", "d2", "d3", "q"} <= set(detail["strings"])


def test_the_answers_stay_whole_while_the_passages_are_cut():
    # the answers first: "gold answer" (11) and a run's answer of 50 take 61 of 100; the passages (10, 40, 100)
    # share 39: c = 14 gives 10 + 14 + 14 = 38, c = 15 gives 40 (before, every text was cut alike: c = 26,
    # 11 + 26 + 10 + 26 + 26 = 99, the answer cut to 26)
    detail = _detail(["a" * 10, "b" * 40, "c" * 100], answers=("x" * 50,))
    assert html._fit_texts(detail, 100, shortest=0) == (None, 14)
    assert _texts(detail, "answers") == ["x" * 50] and detail["strings"][detail["gold_answers"]["text"][0]] == "gold answer"
    assert _texts(detail, "documents") == ["a" * 10, "b" * 14, "c" * 14]
    assert detail["gold_answers"]["length"] == [11] and detail["runs"][0]["answers"]["length"] == [50]


def test_each_kind_keeps_at_most_its_own_cap():
    # budget 10,000: the answer of 1,200 keeps 1,000 (ANSWER_CHARACTERS), the passage of 400 keeps 300
    # (PAGE_CHARACTERS): 1,000 + 11 + 300 + 10 fits
    detail = _detail(["p" * 400, "a" * 10], answers=("x" * 1200,))
    assert (html.ANSWER_CHARACTERS, html.PAGE_CHARACTERS) == (1000, 300)
    assert html._fit_texts(detail, 10_000) == (1000, 300)
    assert _texts(detail, "answers") == ["x" * 1000] and _texts(detail, "documents") == ["p" * 300, "a" * 10]
    assert detail["runs"][0]["answers"]["length"] == [1200] and detail["runs"][0]["documents"]["length"] == [400, 10]


def test_answers_past_the_budget_are_water_filled_and_the_passages_get_the_floor():
    # budget 40 < 11 + 50: the answers' cut c keeps min(11, c) + min(50, c): c = 29 gives 40, c = 30 gives 41;
    # the passages keep PASSAGE_FLOOR = 0 characters (the drill-down says each is not in the page, and its length)
    detail = _detail(["a" * 10, "b" * 40], answers=("x" * 50,))
    assert html.PASSAGE_FLOOR == 0
    assert html._fit_texts(detail, 40) == (29, 0)
    assert _texts(detail, "answers") == ["x" * 29] and _texts(detail, "documents") == ["", ""]
    assert detail["strings"][detail["gold_answers"]["text"][0]] == "gold answer"  # 11 < 29: whole
    assert detail["runs"][0]["documents"]["length"] == [10, 40]
    # budget 20: c = 10 gives min(11, 10) + min(50, 10) = 20; the gold answer cut too, its whole length kept
    detail = _detail(["a" * 10], answers=("x" * 50,))
    assert html._fit_texts(detail, 20) == (10, 0)
    assert detail["strings"][detail["gold_answers"]["text"][0]] == "gold answe" and detail["gold_answers"]["length"] == [11]


def test_passages_the_budget_would_cut_shorter_than_the_shortest_keep_no_text():
    # as above, the passages would share 39 (c = 14 < 60, PASSAGE_SHORTEST): a 14-character start of each passage
    # says too little, so none is kept; a cut of 39 with shortest 39 is kept
    assert html.PASSAGE_SHORTEST == 60
    detail = _detail(["a" * 10, "b" * 40, "c" * 100], answers=("x" * 50,))
    assert html._fit_texts(detail, 100) == (None, 0)
    assert _texts(detail, "documents") == ["", "", ""]
    assert detail["runs"][0]["documents"]["length"] == [10, 40, 100]
    detail = _detail(["a" * 10, "b" * 40, "c" * 100, "c" * 100])
    assert html._fit_texts(detail, 100, shortest=39) == (None, 39)


def test_texts_within_the_budget_stay_whole():
    detail = _detail(["a" * 10, "b" * 40], answers=("x" * 20,))
    before = list(detail["strings"])
    assert html._fit_texts(detail, 1000) == (None, None)
    assert detail["strings"] == before and detail["characters"] is None


def test_the_page_states_its_cut(tmp_path):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    # the longest text, "passage g1 with wordg1" (22 characters), whole: every text fits
    assert "the page holds every text whole" in page
    assert "evalframe serve" not in page.split("<script")[0]  # a small page does not send the reader elsewhere
    detail = _unpacked(page, "evalframe-detail")
    assert detail["n"] == 4 and detail["names"] == ["A", "B"]
    assert detail["gold_answers"]["length"] == [7, 7, 7, 7]  # answer1 ... answer4


def test_the_page_keeps_the_answers_and_cuts_the_passages(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    # the four gold answers "answer1".."answer4" (7 each: 28) are the answers; the passages are the distinct
    # "passage <id> with word<id>" of g1..g4 (22 each), x1, x2, x4 (22 each): 7 x 22 = 154 characters whole.
    # budget 28 + 70 = 98: the passages share 70, a cut c keeps 7c: c = 10 gives 70
    monkeypatch.setattr(html, "TEXT_BUDGET", 98)
    monkeypatch.setattr(html, "PASSAGE_SHORTEST", 0)
    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    assert "the page holds every answer whole and each passage&#x27;s first 10 characters" in page
    # 10 < SERVE_PASSAGES (150): the page says what evalframe serve shows
    assert ("<p class='serve'>This page holds each passage's first 10 characters (its texts stay under 98 "
            "characters); <code>evalframe serve RUN...</code>") in page
    detail = _unpacked(page, "evalframe-detail")
    assert [detail["strings"][k] for k in detail["gold_answers"]["text"]] == ["answer1", "answer2", "answer3", "answer4"]
    passages = {detail["strings"][k] for run in detail["runs"] for k in run["documents"]["text"]}
    assert passages == {"passage g1", "passage g2", "passage g3", "passage g4", "passage x1", "passage x2",
                        "passage x4"}
    assert {length for run in detail["runs"] for length in run["documents"]["length"]} == {22}


def test_page_characters_keeps_n_characters_whatever_the_page_size(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    monkeypatch.setattr(html, "TEXT_BUDGET", 1)  # the fit would leave nothing
    monkeypatch.setattr(html, "PAGE_LIMIT", 7)  # 4 queries x 2 runs = 8 > 7: the fit would leave the texts out
    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20, page_characters=12).html
    assert "page_characters=12: the page holds each text&#x27;s first 12 characters" in page
    assert ("this page holds the grid, every value and each text's first 12 characters (page_characters); "
            "<code>evalframe serve RUN...</code> (each RUN a run's folder or file, here <bdi>A</bdi>, "
            "<bdi>B</bdi>;") in page  # past the limit it still says so
    detail = _unpacked(page, "evalframe-detail")
    gold = [detail["strings"][k] for k in detail["gold_answers"]["text"]]
    passages = {detail["strings"][k] for run in detail["runs"] for k in run["documents"]["text"]}
    assert gold == ["answer1", "answer2", "answer3", "answer4"]  # 7 < 12: whole
    assert passages == {"passage g1 w", "passage g2 w", "passage g3 w", "passage g4 w", "passage x1 w",
                        "passage x2 w", "passage x4 w"}
    page = compare_report(runs, metrics=["mrr"], rounds=20, page_characters=0).html
    assert "page_characters=0: the page holds no text of the drill-down" in page
    detail = _unpacked(page, "evalframe-detail")
    texts = [detail["strings"][k] for run in detail["runs"] for k in run["documents"]["text"]]
    assert set(texts) == {""} and detail["gold_answers"]["length"] == [7, 7, 7, 7]
    assert {detail["strings"][k] for k in detail["gold_answers"]["text"]} == {""}
    assert {detail["strings"][k] for run in detail["runs"] for k in run["documents"]["id"]} == {
        "g1", "g2", "g3", "g4", "x1", "x2", "x4"}  # the ids stay


@pytest.mark.parametrize(("value", "shown"), [(-1, "-1"), (2.5, "2.5"), (True, "True"), ("300", "'300'")])
def test_page_characters_refuses_what_is_no_count(tmp_path, value, shown):
    from evalframe import compare_report
    from evalframe.errors import InvalidParameterError
    from tests.present.compare_fixtures import run_result

    runs = {name: run_result(name, tmp_path) for name in "AB"}
    with pytest.raises(InvalidParameterError, match=rf"^page_characters must be an int >= 0; got {re.escape(shown)}\.$"):
        compare_report(runs, metrics=["mrr"], rounds=20, page_characters=value)


def test_page_characters_on_the_command_line(tmp_path, capsys):
    from evalframe.present.cli import main
    from tests.present.compare_fixtures import run_result

    folders = []
    for name in "AB":
        folder = tmp_path / name
        run_result(name, tmp_path).save(folder)
        folders.append(str(folder))
    out = tmp_path / "p.html"
    assert main(["report", *folders, "--metric", "mrr", "--rounds", "20", "--page-characters", "3", "--html",
                 str(out)]) == 0
    assert "page_characters=3: the page holds each text&#x27;s first 3 characters" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["report", *folders, "--page-characters", "-1"])
    assert exit_info.value.code == 2
    assert ("argument --page-characters: must be an int >= 0 (characters of each text the HTML page keeps); "
            "got '-1'") in capsys.readouterr().err


def test_past_the_limit_the_page_says_serve_and_keeps_the_gold_and_the_meta(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    monkeypatch.setattr(html, "PAGE_LIMIT", 7)  # 4 queries x 2 runs = 8 > 7
    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    assert ("4 queries x 2 runs: past 7 this page holds the grid, every value and each query's gold answers and "
            "meta but leaves the runs' answers and the passages out; <code>evalframe serve RUN...</code>") in page
    assert "passage g1" not in page
    detail = _unpacked(page, "evalframe-detail")
    assert detail["runs_left_out"] is True
    strings = detail["strings"]
    assert [strings[k] for k in detail["gold_answers"]["text"]] == ["answer1", "answer2", "answer3", "answer4"]
    assert detail["gold_answers"]["length"] == [7, 7, 7, 7]
    assert sorted(strings[k] for k in detail["gold_documents"]["id"]) == ["g1", "g2", "g3", "g4"]
    assert set(detail["gold_documents"]["text"]) == {-1} and set(detail["gold_documents"]["length"]) == {22}
    for run in detail["runs"]:  # no run's answer or passage: every query's range is empty
        assert set(run["documents"]["offsets"]) == {0} and run["documents"]["id"] == []
        assert set(run["answers"]["offsets"]) == {0}
    assert not any(s.startswith("passage") for s in strings)
    assert _unpacked(page, "evalframe-grid")["grids"][0]["n"] == 4


def test_the_serve_note_names_the_runs_files_when_they_are(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    monkeypatch.setattr(html, "PAGE_LIMIT", 7)
    runs = {name: run_result(run, tmp_path) for name, run in zip(["a.jsonl", "my runs/b.jsonl"], "AB")}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    assert "<code>evalframe serve a.jsonl &#x27;my runs/b.jsonl&#x27;</code> is the better tool" in page
    model = compare_report(runs, metrics=["mrr"], rounds=20).model
    given = html.render_comparison(model, serve="evalframe serve --from ragas a.jsonl b.jsonl")
    assert "<code>evalframe serve --from ragas a.jsonl b.jsonl</code> is the better tool" in given


def test_a_page_with_no_passage_text_says_serve_shows_them(tmp_path, monkeypatch):
    from evalframe import compare_report
    from tests.present.compare_fixtures import run_result

    # 28 characters of gold answers, 70 left: each passage would keep 10 < PASSAGE_SHORTEST (60): none kept
    monkeypatch.setattr(html, "TEXT_BUDGET", 98)
    runs = {name: run_result(name, tmp_path) for name in "AB"}
    page = compare_report(runs, metrics=["mrr"], rounds=20).html
    assert ("<p class='serve'>This page holds no passage's text (its texts stay under 98 characters); "
            "<code>evalframe serve RUN...</code> (each RUN a run's folder or file, here <bdi>A</bdi>, "
            "<bdi>B</bdi>; a Ragas, Haystack or LlamaIndex file with <code>--from</code>, e.g. "
            "<code>evalframe serve --from ragas a.jsonl b.jsonl</code>) is the better tool: every text whole, the "
            "grid paged on the server.</p>") in page
