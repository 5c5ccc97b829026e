"""evalframe serve's application (present/serve/app.py) through Starlette's TestClient: the views and the JSON API
over a store of runs, the 404s of every traversal attempt, no write method, and hostile texts escaped in every page
the server renders."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

import evalframe as ef  # noqa: E402
from evalframe.present.serve.app import ASSETS, SECURITY_HEADERS, Sources, make_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

HOSTILE = "<script>window.__pwned=1</script>\"'><img src=x onerror=alert(1)>"
PAIR = "run=@last~1&run=@last"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two runs of the demo in a store, the first named and tagged with hostile text, the second's Reader f1 changed
    on one query so that it differs."""
    folder = tmp_path_factory.mktemp("store")
    history = ef.History(folder)
    demo = ef.load_demo_result()
    history.log(demo, name=HOSTILE, tags=[HOSTILE, "v1"], commit=None)
    history.log(demo, name="hybrid", tags=["v2"], commit=None)
    return folder


@pytest.fixture(scope="module")
def client(store):
    with TestClient(make_app(Sources(history=ef.History(store), store=str(store)), warm=False)) as test_client:
        yield test_client


def test_the_runs_of_the_store_listed_escaped(client):
    page = client.get("/runs")
    assert page.status_code == 200
    assert HOSTILE not in page.text and "<script>window.__pwned" not in page.text
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;&quot;&#x27;&gt;&lt;img src=x onerror=alert(1)&gt;" in page.text
    assert page.text.count('<tr><td><input type="checkbox" name="run"') == 2  # the two runs, each to be checked
    listed = client.get("/api/runs").json()
    assert [run["name"] for run in listed["runs"]] == [HOSTILE, "hybrid"]
    assert listed["runs"][0]["tags"] == [HOSTILE, "v1"]
    # the demo's numbers, as evalframe metrics prints them (0.7292 mrr of the Retriever, 0.8333 f1 of the Reader)
    assert round(listed["runs"][0]["means"]["mrr"], 4) == 0.7292 and round(listed["runs"][1]["means"]["f1"], 4) == 0.8333
    assert "mrr" in listed["measures"] and "f1" in listed["measures"]


def test_security_headers_on_every_response(client):
    for url in ("/runs", "/api/runs", "/static/app.js", "/nothing"):
        response = client.get(url)
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value, (url, name)
    assert "script-src 'self'" in SECURITY_HEADERS["content-security-policy"]


def test_the_trend_of_a_measure(client):
    page = client.get("/trend?measure=mrr")
    assert page.status_code == 200 and "<svg" in page.text
    # each run's mean and its 95% t interval over the 8 queries (scipy's t quantile on the demo's per-query mrr)
    stats = pytest.importorskip("scipy.stats")
    values = ef.load_demo_result().query_metrics("Retriever")["mrr"].to_numpy()
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert page.text.count(f"<td>{values.mean():.4f} [{low:.4f}, {high:.4f}]</td>") == 2
    assert HOSTILE not in page.text
    assert client.get("/trend?measure=nope").status_code == 404


def test_a_comparison_of_two_stored_runs(client):
    page = client.get(f"/compare?{PAIR}")
    assert page.status_code == 200
    assert 'id="sv-grid"' in page.text and "/static/grid.js" in page.text and "/static/app.js" in page.text
    assert re.search(r"<script(?![^>]*\bsrc=)", page.text) is None  # no inline script anywhere
    info = client.get(f"/api/grid/info?{PAIR}&node=Reader").json()
    assert info["names"] == [HOSTILE, "hybrid"] and info["total"] == 8  # the names they were logged under
    assert [m["metric"] for m in info["measures"]] == ["exact_match", "f1"]
    grid = client.get(f"/api/grid/page?{PAIR}&node=Reader&sort=query&limit=3").json()
    assert grid["total"] == 8 and len(grid["rows"]) == 3
    texts = [row["query"] for row in grid["rows"]]
    assert texts == sorted(texts, key=str.lower)
    detail = client.get(f"/api/grid/detail?{PAIR}&node=Reader&i=0").json()
    assert set(detail) >= {"row", "id", "query", "gold_answers", "gold_documents", "meta", "runs"}
    paper = client.get(f"/paper?{PAIR}&node=Reader")
    assert paper.status_code == 200 and "<caption>" in paper.text


@pytest.mark.parametrize("url", [
    "/static/../../etc/passwd",
    "/static/..%2f..%2fetc%2fpasswd",
    "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/static/%2e%2e",
    "/static//etc/passwd",
    "/static/%2Fetc%2Fpasswd",
    "/static/..\\..\\etc\\passwd",
    "/static/..%5c..%5cetc%5cpasswd",
    "/static/app.py",
    "/static/grid.js.map",
    "/etc/passwd",
    "/compare?run=%2Fetc%2Fpasswd&run=0",
    "/compare?run=../../etc&run=@last",
    "/compare?run=2&run=@last",  # no FOLDER / FILE argument at all
    "/compare?run=@last~9&run=@last",  # a ref past the store's first run
    "/compare?run=@nosuchref&run=@last",
    "/compare?run=@last",  # one run
    f"/api/grid/detail?{PAIR}&node=Reader&i=8",  # a row out of range
    f"/api/grid/detail?{PAIR}&node=Nope&i=0",
    f"/api/grid/page?{PAIR}&node=Nope",
])
def test_traversal_and_unknown_names_are_404(client, url):
    response = client.get(url)
    assert response.status_code == 404, (url, response.text[:200])
    assert "root:" not in response.text


def test_static_serves_only_the_allow_list(client):
    assert set(ASSETS) == {"grid.js", "grid.css", "app.js", "app.css"}
    response = client.get("/static/app.js")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/javascript")
    assert response.text == ASSETS["app.js"][0].read_text()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("url", ["/", "/runs", f"/compare?{PAIR}", "/api/runs", f"/api/grid/page?{PAIR}",
                                 "/static/app.js"])
def test_no_write_method(client, method, url):
    assert client.request(method, url).status_code == 405


@pytest.mark.parametrize("query, match", [
    ("sort=bogus", "sort must be one of"),
    ("measure=f2", r"measure must be one of \['exact_match', 'f1'\]; got 'f2'"),
    ("show=worst", "Did you mean 'worse'"),
    ("offset=-1", "offset must be a whole number"),
    ("limit=1e9", "limit must be a whole number"),
])
def test_a_bad_view_is_a_400_naming_the_parameter(client, query, match):
    response = client.get(f"/api/grid/page?{PAIR}&node=Reader&{query}")
    assert response.status_code == 400
    assert re.search(match, response.json()["error"])


def test_a_host_not_allowed_is_refused(store):
    app = make_app(Sources(history=ef.History(store)), allowed_hosts=["127.0.0.1", "localhost"], warm=False)
    with TestClient(app, base_url="http://evil.example") as other:
        assert other.get("/runs").status_code == 400
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        assert local.get("/runs").status_code == 200


def test_the_summary_holds_compares_numbers_to_the_last_digit(client, store):
    history = ef.History(store)
    refs = ["@last~1", "@last"]
    summary = client.get(f"/api/summary?{PAIR}").json()
    assert summary["names"] == [HOSTILE, "hybrid"]
    for node in summary["nodes"]:
        tables = [history.get(ref).run(node["node"]) for ref in refs]
        expected = ef.compare(*tables, names=refs, max_p=0.05, test="t")
        assert [m["metric"] for m in node["measures"]] == list(expected.index)
        for measure in node["measures"]:
            row = expected.loc[measure["metric"]]
            assert measure["values"] == [float(row["mean_a"]), float(row["mean_b"])]
            delta = measure["deltas"][0]
            assert [delta["delta"], delta["ci_low"], delta["ci_high"]] == [float(row["delta"]), float(row["ci_low"]),
                                                                           float(row["ci_high"])]
            p = row["p_ttest"]  # the paired t-test's (NaN when the runs agree on every query: JSON null)
            assert delta["p_value"] == (None if p != p else float(p))
            grid = client.get(f"/api/grid/page?{PAIR}&node={node['node']}&limit=1000").json()["rows"]
            for run in (0, 1):  # each run's mean over the grid's rows (both runs score every query here)
                column = [r["values"][measure["metric"]][run] for r in grid]
                assert sum(column) / len(column) == pytest.approx(measure["values"][run], rel=1e-12)


# ---------------------------------------------------------------------------------------------- results (FOLDER / FILE)
@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Two results whose every field holds hostile text (tests/report/test_hostile_text.py's runs), served as the
    FOLDER / FILE arguments, sliced by their meta field."""
    from tests.report.test_hostile_text import PAYLOADS, _result

    values = {"query": PAYLOADS["script"], "answer": PAYLOADS["attribute"], "context": PAYLOADS["quote"],
              "document_id": PAYLOADS["end-script"], "gold": PAYLOADS["script"], "meta_key": "topic",
              "meta_value": PAYLOADS["attribute"], "run": PAYLOADS["script"], "score_name": "judge"}
    folder = tmp_path_factory.mktemp("hostile")
    results = [_result(values, "A", folder), _result(values, "B", folder)]
    names = [values["run"] + " A", "B"]
    sources = Sources(files=[(names[0], f"{PAYLOADS['attribute']}.jsonl"), ("B", "b.jsonl")], read=results.__getitem__,
                      options={"by": "meta.topic", "rounds": 500})
    with TestClient(make_app(sources, warm=False)) as test_client:
        yield test_client, results, names, values


def test_hostile_texts_are_escaped_in_every_page_and_whole_in_the_json(hostile):
    client, _, names, values = hostile
    for url in ("/", "/compare?run=0&run=1", "/compare?run=0&run=1&node=Reader", "/paper?run=0&run=1&node=Reader"):
        page = client.get(url, follow_redirects=True)
        assert page.status_code == 200, url
        for text in (values["query"], values["answer"], values["context"], values["document_id"], values["meta_value"]):
            assert text not in page.text, (url, text)
        assert re.search(r"<script(?![^>]*\bsrc=)", page.text) is None and "onerror=" not in page.text.replace(
            "onerror=&quot;", "")
    summary_page = client.get("/compare?run=0&run=1").text
    assert "&lt;script&gt;window.__pwned=1;alert(1)&lt;/script&gt; A" in summary_page  # the run's name
    assert "&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=1;alert(1)&quot;&gt;" in summary_page  # a slice label
    detail = client.get("/api/grid/detail?run=0&run=1&node=Retriever&i=0").json()
    assert detail["query"] == values["query"] + " 0"
    texts = [doc["text"] for run in detail["runs"] for doc in run["documents"]]
    assert values["context"] + " 0" in texts and "gold passage 0" in texts  # whole, as the runs hold them
    assert detail["gold_answers"] == ["gold answer 0"] and detail["meta"] == {"topic": values["meta_value"]}


def test_the_grid_and_the_summary_show_compares_numbers_for_every_measure(hostile):
    client, results, names, _ = hostile
    summary = client.get("/api/summary?run=0&run=1").json()
    for node in summary["nodes"]:
        expected = ef.compare(*results, node=node["node"], names=names, rounds=500, max_p=0.05)
        assert [m["metric"] for m in node["measures"]] == list(expected.index)
        for measure in node["measures"]:
            row = expected.loc[measure["metric"]]
            assert measure["values"] == [float(row["mean_a"]), float(row["mean_b"])]
            delta = measure["deltas"][0]
            assert [delta["delta"], delta["ci_low"], delta["ci_high"]] == [float(row["delta"]), float(row["ci_low"]),
                                                                           float(row["ci_high"])]
        rows = client.get(f"/api/grid/page?run=0&run=1&node={node['node']}&measure=&limit=1000").json()["rows"]
        for run, result in enumerate(results):  # every query's value of every measure, as query_metrics has it
            table = result.query_metrics(node["node"])
            for measure in node["measures"]:
                shown = {r["id"]: r["values"][measure["metric"]][run] for r in rows}
                column = table[measure["metric"]]
                assert shown == {str(i): (None if v != v else float(v)) for i, v in column.items()}


def test_a_comparison_is_built_once_and_the_cache_is_bounded(store):
    from evalframe.present.serve.app import Viewer

    viewer = Viewer(Sources(history=ef.History(store)), cache_size=2, warm=False)
    first = viewer.comparison(["@last~1", "@last"])
    assert viewer.comparison(["@last~1", "@last"]) is first  # kept
    viewer.comparison(["@last", "@last~1"])
    viewer.comparison(["@last~1", "@last:hybrid"])
    assert len(viewer._built) == 2
    assert viewer.comparison(["@last~1", "@last"]) is not first  # the oldest was let go, built again


# ---------------------------------------------------------------------------------------------- stored Ragas runs
RAG = __import__("pathlib").Path(__file__).resolve().parents[2] / "docs" / "examples" / "rag"
STORED = "run=@last~1&run=@last"


@pytest.fixture(scope="module")
def ragas(tmp_path_factory):
    """docs/examples/rag's two Ragas runs (judge scores faithfulness, answer_relevancy, latency_ms) served both as
    files (run=0, run=1) and as the two runs of a store (run=@last~1, run=@last)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [ef.EvaluationResult.from_ragas(RAG / f"{name}.jsonl", progress=False) for name in ("bm25", "hybrid")]
    folder = tmp_path_factory.mktemp("ragas-store")
    history = ef.History(folder)
    for name, result in zip(("bm25", "hybrid"), results):
        history.log(result, name=name, commit=None)
    sources = Sources(files=[("bm25", "bm25.jsonl"), ("hybrid", "hybrid.jsonl")], read=results.__getitem__,
                      history=ef.History(folder), store=str(folder))
    with TestClient(make_app(sources, warm=False)) as test_client:
        yield test_client, results, history


def test_stored_runs_are_compared_with_the_files_paired_t_test(ragas):
    """The page's test is the paired t-test (ComparisonReportOptions.test): a stored pair's p-values are the files'
    and scipy's ttest_rel on the per-query values, not a randomization test's."""
    stats = pytest.importorskip("scipy.stats")
    client, results, _ = ragas
    stored = client.get(f"/api/summary?{STORED}").json()
    files = client.get("/api/summary?run=0&run=1").json()
    assert stored["test"] == files["test"] == "t-test"
    for node, node_files in zip(stored["nodes"], files["nodes"]):
        assert node["node"] == node_files["node"]
        expected = ef.compare(*results, node=node["node"], test="t", rounds=200)  # p_ttest: no resampling
        tables = [result.query_metrics(node["node"]) for result in results]
        for measure in node["measures"]:
            metric = measure["metric"]
            p = measure["deltas"][0]["p_value"]
            assert p == float(expected.loc[metric, "p_ttest"]), metric
            assert p == next(m for m in node_files["measures"] if m["metric"] == metric)["deltas"][0]["p_value"]
            both = tables[0][[metric]].join(tables[1][[metric]].add_suffix("_b")).dropna()
            if (both[f"{metric}_b"] - both[metric]).std() > 0:  # scipy's paired t-test on the per-query values
                assert p == pytest.approx(stats.ttest_rel(both[f"{metric}_b"], both[metric]).pvalue,
                                          rel=1e-6, abs=1e-300), metric


def test_mixed_runs_keep_the_files_t_test(ragas):
    """Files beside a stored run: the same paired t-test, Holm-corrected over the two later runs (three runs)."""
    client, results, history = ragas
    mixed = client.get("/api/summary?run=0&run=1&run=@last").json()
    assert mixed["test"] == "t-test"
    node = next(n for n in mixed["nodes"] if n["node"] == "Retriever")
    stored = history.get("@last").run("Retriever")
    expected = ef.compare(results[0], results[1], stored, node="Retriever", names=["a", "b", "c"], test="t",
                          rounds=200)  # p_ttest, Holm-corrected: no resampling
    for measure in node["measures"]:
        assert measure["deltas"][0]["p_value"] == float(expected.loc[("b", measure["metric"]), "p_holm"])


def _paper_cells(page):
    """The paper table's rows: letter -> [cell text] (tags dropped, a superscript kept after '^')."""
    body = page[page.index("<tbody>"):page.index("</tbody>")]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body):
        cells = [re.sub(r"<[^>]+>", "", cell.replace("<sup>", "^")) for cell in re.findall(r"<td>(.*?)</td>", row)]
        rows[cells[0]] = cells[2:]
    return rows


def test_the_paper_table_of_stored_runs_with_judge_scores(ragas):
    """The Generator's paper table of the two stored Ragas runs (judge scores declared in the store): each mean as
    compare's to 4 digits, run b marked better than a where compare's randomization p <= 0.05 by the score's
    direction (faithfulness 0.7233 -> 0.7654, p 0.0077; answer_relevancy 0.7280 -> 0.7567, p 0.041; exact_match and
    f1 not significant)."""
    client, results, _ = ragas
    page = client.get(f"/paper?{STORED}&node=Generator")
    assert page.status_code == 200, page.text[-300:]
    cells = _paper_cells(page.text)
    expected = ef.compare(*results, node="Generator")
    head = re.findall(r"<th>(.*?)</th>", page.text[page.text.index("<thead>"):page.text.index("</thead>")])[2:]
    assert head == ["exact_match", "f1", "faithfulness", "answer_relevancy", "latency_ms"]
    for column, metric in enumerate(head):
        assert cells["a"][column].split("^")[0] == f"{expected.loc[metric, 'mean_a']:.4f}"
        assert cells["b"][column].split("^")[0] == f"{expected.loc[metric, 'mean_b']:.4f}"
    assert [cells["b"][head.index(m)].partition("^")[2] for m in ("exact_match", "f1", "faithfulness",
                                                                  "answer_relevancy")] == ["", "", "a", "a"]
    assert all("^" not in cell for cell in cells["a"][:4])
    files = client.get("/paper?run=0&run=1&node=Generator").text  # the same table as the files'
    assert files[files.index("<table"):files.index("</table>")] == page.text[page.text.index("<table"):
                                                                             page.text.index("</table>")]
    latency = results[0].scores["latency_ms"].direction  # as the files declare it (p 0.0001: significant)
    assert (cells["b"] if latency == "higher" else cells["a"])[head.index("latency_ms")].endswith("^" + (
        "a" if latency == "higher" else "b"))


def test_stored_runs_are_named_by_their_names_with_the_short_id_when_two_share_one(ragas, tmp_path):
    """Headers, title and summary name a stored run by the name it was logged under ("bm25"), not by its URL's
    reference; two runs of one name each get their id's tail (the 8 hex digits after the id's '-')."""
    client, results, history = ragas
    page = client.get(f"/compare?{STORED}")
    assert "<title>bm25 vs hybrid" in page.text and "@last" not in page.text.split("<main", 1)[1].split("data-api")[0]
    assert client.get(f"/api/summary?{STORED}").json()["names"] == ["bm25", "hybrid"]
    last = history.get("@last")
    tail = last.id.rsplit("-", 1)[1]
    assert len(tail) == 8
    mixed = client.get("/api/grid/info?run=0&run=1&run=@last&node=Generator").json()
    assert mixed["names"] == ["bm25", "hybrid", f"hybrid ({tail})"]  # the file "hybrid" and the stored one
    twice = ef.History(tmp_path / "twice")
    ids = [twice.log(results[0], name="bm25", commit=None).id for _ in range(2)]
    with TestClient(make_app(Sources(history=ef.History(tmp_path / "twice")), warm=False)) as other:
        names = other.get("/api/summary?run=@last~1&run=@last").json()["names"]
        assert names == [f"bm25 ({ids[0][-8:]})", f"bm25 ({ids[1][-8:]})"]
        refused = other.get(f"/api/summary?run=@last&run=@{ids[1]}")
        assert refused.status_code == 400 and "a run is given twice" in refused.json()["error"]


def _records(name):
    import json

    return [json.loads(line) for line in (RAG / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def test_files_beside_a_stored_run_keep_their_drill_down_and_slices(ragas):
    """run=0&run=1&run=@last: the file runs' answers, passages, gold and meta in the drill-down (as the JSONL files
    hold them), the stored run's empty; the grid's slice labels (meta.topic) from the files."""
    _, results, history = ragas
    sources = Sources(files=[("bm25", "bm25.jsonl"), ("hybrid", "hybrid.jsonl")], read=results.__getitem__,
                      history=history, options={"by": "meta.topic", "rounds": 500})
    records = [_records("bm25"), _records("hybrid")]
    topics = [record["topic"] for record in records[0]]
    with TestClient(make_app(sources, warm=False)) as client:
        mixed = "run=0&run=1&run=@last&node=Generator"
        info = client.get(f"/api/grid/info?{mixed}").json()
        assert info["slice_keys"] == ["meta.topic"] and info["slice_labels"] == [sorted(set(topics))]
        shown = client.get(f"/api/grid/page?{mixed}&slice.meta.topic=billing&limit=1000").json()
        assert shown["total"] == topics.count("billing")
        first = shown["rows"][0]
        at = [record["user_input"] for record in records[0]].index(first["query"])
        detail = client.get(f"/api/grid/detail?{mixed}&i={first['i']}").json()
        assert detail["query"] == records[0][at]["user_input"] and detail["meta"] == {"topic": "billing"}
        assert detail["gold_answers"] == [records[0][at]["reference"]]
        assert [doc["id"] for doc in detail["gold_documents"]] == records[0][at]["reference_context_ids"]
        for run, record in zip(detail["runs"][:2], (records[0][at], records[1][at])):
            assert [answer["text"] for answer in run["answers"]] == [record["response"]]
            assert [doc["id"] for doc in run["documents"]] == record["retrieved_context_ids"]
            assert [doc["text"] for doc in run["documents"]] == record["retrieved_contexts"]
        assert detail["runs"][2]["answers"] == [] and detail["runs"][2]["documents"] == []  # the stored run's


def test_a_forged_host_is_refused_on_every_loopback(store):
    """--host ::1 (and 127.0.0.2, localhost): a request naming another site in its Host (DNS rebinding) is a 400; the
    loopback names, IPv6 ones with a port, are served."""
    from evalframe.present.serve.command import allowed_hosts

    forged = ("evil.example", "evil.example:8000", "[::1]evil.example", "[::1]:8000.evil.example", "[::2]:8000",
              "127.0.0.1.evil.example", "localhost@evil.example", "")
    for bound, own in (("::1", "[::1]:8000"), ("127.0.0.2", "127.0.0.2:9"), ("localhost", "localhost:8000")):
        app = make_app(Sources(history=ef.History(store)), allowed_hosts=allowed_hosts(bound), warm=False)
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            for host in forged:
                response = client.get("/runs", headers={"Host": host})
                assert response.status_code == 400, (bound, host)
                assert "invalid Host header" in response.text
            for host in ("[::1]", "[::1]:8000", "127.0.0.1:8000", "LOCALHOST", own):
                assert client.get("/runs", headers={"Host": host}).status_code == 200, (bound, host)
    assert allowed_hosts("0.0.0.0") is None and allowed_hosts("192.168.1.5") is None  # served to any name


@pytest.mark.parametrize("url, status, match", [
    ("/api/summary?" + "&".join(["run=@last"] * 27), 400, r"run: a comparison takes at most 26 runs .*; got 27\."),
    (f"/api/grid/detail?{PAIR}&node=Reader", 400, r"^i is required: the query's row \(0 to 7 in Reader\)\.$"),
    (f"/api/grid/row?{PAIR}&node=Reader", 400, r"^i is required: the query's row \(0 to 7 in Reader\)\.$"),
    (f"/api/grid/detail?{PAIR}&node=Reader&i=8", 404, r"^no query 8 in Reader: i is a row from 0 to 7\.$"),
    (f"/api/grid/page?{PAIR}&node=Reader&desc=maybe", 400, r"^desc must be 0 or 1 \(or false / true\).*got 'maybe'"),
    (f"/api/grid/page?{PAIR}&node=Reader&desc=yes", 400, r"^desc must be"),
])
def test_a_bad_request_says_what_was_wrong(client, url, status, match):
    response = client.get(url)
    assert response.status_code == status, response.text
    assert re.search(match, response.json()["error"]), response.json()["error"]


def test_desc_takes_0_1_true_false(client):
    """The Reader's f1 of the demo's first run, sorted by value: ascending and descending orders are each other's
    reverse where values differ; desc=0/false give the ascending one, desc=1/TRUE the descending one."""
    base = f"/api/grid/page?{PAIR}&node=Reader&sort=value:f1:0&limit=100"
    values = {desc: [row["values"]["f1"][0] for row in client.get(f"{base}&desc={desc}").json()["rows"]]
              for desc in ("0", "false", "1", "TRUE")}
    assert values["0"] == values["false"] == sorted(values["0"])
    assert values["1"] == values["TRUE"] == sorted(values["0"], reverse=True)
    assert values["0"] != values["1"]


def test_an_app_served_in_a_thread_on_a_loopback_refuses_another_host(store):
    # the notebook's way (docs/viewer.md): serve_in_thread(make_app(...)) on 127.0.0.1 answers to its own names only
    import httpx

    from evalframe.present.serve.command import serve_in_thread

    url, running, thread = serve_in_thread(make_app(Sources(history=ef.History(store)), warm=False))
    try:
        assert httpx.get(url + "/api/runs").status_code == 200
        assert httpx.get(url + "/api/runs", headers={"Host": "attacker.example"}).status_code == 400
        port = url.rsplit(":", 1)[1]
        assert httpx.get(url + "/api/runs", headers={"Host": f"localhost:{port}"}).status_code == 200
    finally:
        running.should_exit = True
        thread.join(timeout=10)
