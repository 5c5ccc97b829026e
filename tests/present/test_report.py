"""The evaluation report (text and HTML) and its command, checked against the library's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalframe import EvaluationResult, InvalidParameterError, load_demo_result, print_eval_report
from evalframe.present.cli import main
from evalframe.metrics.registry import METRICS
from evalframe.report.reports import build_report

DEMO = Path(__file__).parents[2] / "evalframe" / "data" / "demo_result"


def test_text_report_shows_the_funnel_with_the_library_numbers():
    result = load_demo_result()
    text = result.report(n=2, charts=False).text
    integrated = result.calculate_metrics()
    top1 = result.calculate_metrics(simulated_top_k_reader=1)
    isolated = result.calculate_metrics(eval_mode="isolated")
    assert text.index("Retriever") < text.index("Reader") < text.index("Output")
    assert f"| mrr                {integrated['Retriever']['mrr']:.4f}" in text
    assert (f"| f1                 {integrated['Reader']['f1']:.4f}   (top-1 {top1['Reader']['f1']:.4f}, "
            f"isolated {isolated['Reader']['f1']:.4f})") in text
    worst = result.wrong_examples("Reader", n=2)
    assert f"query:  {worst[0]['query']}" in text
    assert "Worst queries of Retriever by recall_single_hit" in text


def test_html_report_is_self_contained_and_escaped():
    result = load_demo_result()
    result["Reader"]["query"] = "<script>alert(1)</script>"
    page = result.report(n=8).html
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert not re.search(r"(src|href)=['\"]https?://", page)  # no network
    assert page.count("<table>") >= 3
    if "data:image/png;base64," not in page:
        pytest.importorskip("matplotlib")  # the recall@k chart is drawn only with matplotlib


def test_node_order_and_truncation():
    result = load_demo_result()
    text = result.report(n=1, node_order=["Reader", "Retriever"], max_characters_per_field=10, charts=False).text
    assert text.index("Reader") < text.index("Retriever")
    assert "query:  How tal..." in text  # 10 characters: 7 and "..."
    with pytest.raises(InvalidParameterError, match=r"node_order names node\(s\) \['Ranker'\]"):
        result.report(node_order=["Ranker"])


def test_print_eval_report_for_haystack_users(capsys):
    print_eval_report(load_demo_result(), n_wrong_examples=1)
    assert "Pipeline funnel" in capsys.readouterr().out


def test_report_command_writes_html(tmp_path, capsys):
    assert main(["report", str(DEMO), "--html", str(tmp_path / "report.html"), "-n", "1",
                 "--node-order", "Retriever,Reader"]) == 0
    out = capsys.readouterr().out
    assert "Pipeline funnel" in out and f"HTML report: {tmp_path / 'report.html'}" in out
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_node_whose_isolated_rows_lack_some_metrics_reports_the_ones_they_have():
    import pandas as pd

    from evalframe import EvaluationResult

    result = load_demo_result()  # a node with document and answer rows; only the answers were run isolated
    both = EvaluationResult({"Retriever": result["Retriever"],
                             "Reader": pd.concat([result["Reader"], result["Retriever"]], ignore_index=True)})
    text = both.report(charts=False).text
    isolated_f1 = both.calculate_metrics(eval_mode="isolated")["Reader"]["f1"]
    assert f"isolated {isolated_f1:.4f}" in text
    assert not re.search(r"recall_multi_hit .*isolated", text.split("Reader", 1)[1].split("Output", 1)[0])


def test_funnel_puts_retrievers_before_readers_when_the_folder_records_no_order():
    # a Haystack folder loads its files in name order: Reader.csv before Retriever.csv
    haystack = EvaluationResult.load(Path(__file__).parents[1] / "data" / "haystack1" / "result")
    assert list(haystack) == ["Reader", "Retriever"]
    text = haystack.report(n=1, charts=False).text
    funnel = text[text.index("Query"): text.index("Output")]
    assert funnel.index("Retriever") < funnel.index("Reader")
    page = haystack.report(n=1, charts=False).html
    assert "nodes: <bdi>Retriever</bdi>, <bdi>Reader</bdi>" in page
    assert page.index("<td class='node'>Retriever") < page.index("<td class='node'>Reader")
    # an explicit order is kept, and so is the result's order among nodes of one kind
    text = haystack.report(n=1, node_order=["Reader", "Retriever"], charts=False).text
    assert text.index("Reader") < text.index("Retriever")


# ---------------------------------------------------------------- Haystack 1.26's print_eval_report, scopes, marks
def _one_query_retriever(doc_rows):
    import pandas as pd

    from tests.fixtures import doc_row

    return EvaluationResult({"Retriever": pd.DataFrame([doc_row("q1", *row) for row in doc_rows])})


@pytest.mark.filterwarnings("ignore:document_scope=.document_id. ignores")
def test_print_eval_report_takes_haystack_126_arguments_by_position(capsys):
    result = load_demo_result()
    # Haystack 1.26: (eval_result, n_wrong_examples, metrics_filter, document_scope, answer_scope,
    #                 wrong_examples_fields, max_characters_per_field)
    print_eval_report(result, 1, {"Retriever": ["mrr"], "Reader": ["f1"]}, "document_id", "document_id", ["answer"], 12)
    out = capsys.readouterr().out
    funnel = out[out.index("Query"): out.index("Output")]
    assert "mrr" in funnel and "f1" in funnel and "ndcg" not in funnel and "exact_match" not in funnel
    assert "Scopes: document_scope='document_id', answer_scope='document_id'" in out
    expected = result.calculate_metrics(document_scope="document_id", answer_scope="document_id")
    assert f"| mrr                {expected['Retriever']['mrr']:.4f}" in funnel
    assert f"| f1                 {expected['Reader']['f1']:.4f}" in funnel
    worst = out[out.index("Worst queries of Reader"):]
    assert "    answer: " in worst and "    context: " not in worst and "document_id: " not in worst
    assert "query:  What is t..." in out  # 12 characters
    assert "not from the gold document" in worst  # "Berlin" is right, but from another document


def test_print_eval_report_defaults_are_haystacks():
    import inspect

    signature = inspect.signature(print_eval_report)
    assert list(signature.parameters)[:7] == ["eval_result", "n_wrong_examples", "metrics_filter", "document_scope",
                                              "answer_scope", "wrong_examples_fields", "max_characters_per_field"]
    defaults = {name: p.default for name, p in signature.parameters.items()}
    assert defaults["n_wrong_examples"] == 3 and defaults["metrics_filter"] is None
    assert defaults["document_scope"] == "document_id_or_answer" and defaults["answer_scope"] == "any"
    assert list(defaults["wrong_examples_fields"]) == ["answer", "context", "document_id"]
    assert defaults["max_characters_per_field"] == 150
    assert signature.parameters["node_order"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(("call", "message"), [
    (lambda r: print_eval_report(r, 1, {"Ranker": ["mrr"]}), r"metrics_filter names node 'Ranker'"),
    (lambda r: print_eval_report(r, 1, {"Retriever": ["f1"]}), r"metrics_filter\['Retriever'\] names metric\(s\) \['f1'\]"),
    (lambda r: print_eval_report(r, 1, ["mrr"]), r"metrics_filter must be a dict"),
    (lambda r: print_eval_report(r, 1, None, "doc"), r"document_scope"),
    (lambda r: print_eval_report(r, 1, None, "document_id", "everything"), r"answer_scope"),
    (lambda r: print_eval_report(r, 1, None, "document_id", "any", "answer"), r"wrong_examples_fields must be a list"),
    (lambda r: print_eval_report(r, 1, None, "document_id", "any", ["answer"], 0), r"max_characters_per_field"),
])
@pytest.mark.filterwarnings("ignore:document_scope=.document_id. ignores")
def test_print_eval_report_names_a_bad_argument(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call(load_demo_result())


def test_scope_mismatch_is_warned_once_per_report():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build_report(load_demo_result(), n=1, charts=False, document_scope="document_id", answer_scope="context")
    assert len([w for w in caught if "ignores answer_scope" in str(w.message)]) == 1


def test_every_report_states_its_scopes_text_and_html():
    report = load_demo_result().report(n=1)
    assert "Scopes: document_scope='document_id_or_answer', answer_scope='any'" in report.text
    assert "document_scope=&#x27;document_id_or_answer&#x27;" in report.html
    assert "(<a href='#evalframe-definitions'>what they mean</a>)" in report.html
    assert "(what they mean: 'What the numbers mean', at the end)" in report.text


def test_listed_rows_say_what_they_matched_and_mark_the_correct_ones():
    # gold d1; rank 1 holds the answer but another id, rank 2 nothing: relevant by answer, not by id
    result = _one_query_retriever([(1, "d3", ["d1"], [0], [10], [1]), (2, "d4", ["d1"], [0], [10], [0])])
    by_id = build_report(result, n=1, charts=False, document_scope="document_id")
    assert "  rank 1: (matches gold: id no, context no, answer yes)" in by_id.text  # why recall is 0 under document_id
    assert "[correct]" not in by_id.text.split("Worst queries", 1)[1].split("\n", 3)[3]
    # a row judged correct under the report's scope is marked, in text and HTML: list the query (which scores 1
    # under the default scope, so wrong_examples would not list it) through query_examples
    def every_query(node, n, **options):
        return result.query_examples(node, result.query_metrics(node, **options), metric="recall_single_hit")

    result.wrong_examples = every_query
    marked = build_report(result, n=1, charts=False)
    assert "  rank 1 [correct]: (matches gold: id no, context no, answer yes)" in marked.text
    assert "  rank 2: (matches gold: id no, context no, answer no)" in marked.text
    assert "<span class='ok' title='judged correct'>&#10003;</span>" in marked.html


def test_no_answer_gold_reads_no_answer():
    from tests.fixtures import hand_result

    result = hand_result()
    result["Reader"].loc[result["Reader"]["multilabel_id"] == "q2", ["exact_match", "f1"]] = 0.0  # make q2 a worst query
    report = result.report(n=5, charts=False)
    reader = report.text[report.text.index("Worst queries of Reader"):]
    q2 = reader[reader.index("query:  question q2"):]
    assert q2.splitlines()[2] == "gold:   (no answer)" and "['']" not in report.text
    assert "    answer: (no answer)" in q2
    assert "<td>(no answer)</td>" in report.html


def test_map_and_ndcg_above_one_are_flagged_with_the_reason_and_a_link():
    # the gold document retrieved twice: Haystack's map and ndcg count it twice
    result = _one_query_retriever([(1, "d1", ["d1"], [1], [90], [1]), (2, "d1", ["d1"], [1], [90], [1])])
    values = result.calculate_metrics()["Retriever"]
    assert values["map"] > 1 and values["ndcg"] > 1
    report = result.report(n=1)
    assert re.search(r"\| map +\d\.\d{4}   \[! above 1: a relevant document retrieved twice counts twice", report.text)
    assert "; see 'What the numbers mean', at the end." in report.text
    assert report.html.count("&#9888; above 1") == 2
    assert "&#9888; above 1 (<a href='#evalframe-metric-map'>why</a>)" in report.html
    # the reason is in the page: map's bounds note, under the id the link points to
    assert re.search(r"<dt id='evalframe-metric-map'>.*?<dd>[^<]*.*?exceeds 1 when a relevant document is retrieved "
                     r"twice.*?</dd>", report.html)
    plain = load_demo_result().report(n=1)
    assert "above 1" not in plain.text and "above 1" not in plain.html


def test_report_text_columns_are_left_aligned_in_a_notebook():
    page = load_demo_result().report(n=1, charts=False)._repr_html_()
    assert "<div class='evalframe-report'>" in page
    assert ".evalframe-report th,.evalframe-report td{text-align:left!important}" in page  # Jupyter right-aligns td
    assert ".evalframe-report td.num{text-align:right!important}" in page


def test_recall_chart_stops_at_the_deepest_rank_the_retriever_returned(monkeypatch):
    pytest.importorskip("matplotlib")
    import evalframe.report.plots as plots

    seen = []
    draw = plots.plot_metrics_at_k

    def recording(result, ks, **kwargs):
        seen.append(list(ks))
        return draw(result, ks, **kwargs)

    monkeypatch.setattr(plots, "plot_metrics_at_k", recording)
    result = _one_query_retriever([(1, "d3", ["d1"], [0], [10], [0]), (2, "d4", ["d1"], [0], [10], [0]),
                                   (3, "d1", ["d1"], [1], [90], [1])])
    assert "data:image/png;base64," in build_report(result, n=1).html
    assert seen == [[1, 2, 3]]  # three documents returned: no k = 4..10 that would repeat k = 3


def test_lists_read_as_items_and_an_empty_retrieval_says_so():
    report = load_demo_result().report(n=1, charts=False)
    retriever = report.text[report.text.index("Worst queries of Retriever"):report.text.index("Worst queries of Reader")]
    assert "gold:   doc-everest" in retriever and "['doc-everest']" not in report.text
    assert "    document_id: (nothing retrieved)" in retriever
    reader = report.text[report.text.index("Worst queries of Reader"):]
    assert "gold:   8,848.86 metres" in reader and "    document_id: (none)" in reader  # a no-answer has no documents


def _ids_and_links(page: str) -> tuple[set[str], list[str], list[str]]:
    ids = set(re.findall(r"\bid=['\"]([^'\"]+)['\"]", page))
    return ids, re.findall(r"\bhref=['\"]([^'\"]*)['\"]", page), re.findall(r"\bsrc=['\"]([^'\"]*)['\"]", page)


@pytest.mark.parametrize("options", [{}, {"measures": ["nDCG@10", "P(rel=2)@5"], "duplicates": "first"},
                                     {"metrics_filter": {"Reader": ["f1"]}}])
def test_html_report_links_only_inside_itself(options):
    # a saved report, or one of a pip-installed evalframe, has no docs/ folder beside it: every link is an anchor of
    # the page and every image is inline
    page = load_demo_result().report(n=2, **options).html
    ids, links, sources = _ids_and_links(page)
    assert links and all(link.startswith("#") for link in links), [x for x in links if not x.startswith("#")]
    assert {link[1:] for link in links} <= ids  # no dangling anchor
    assert all(source.startswith("data:") for source in sources)
    assert "docs/" not in page


def test_every_metric_the_report_shows_is_explained_in_it():
    report = load_demo_result().report(n=1, charts=False, measures=["nDCG@10"], duplicates="first")
    page, text = report.html, report.text
    # mrr, hand-picked: its line in the metric registry, linked from the funnel and defined at the end with its formula
    assert METRICS["mrr"].description == "Reciprocal rank of the first relevant document."
    assert ("<a class='metric' href='#evalframe-metric-mrr' title='Reciprocal rank of the first relevant document.'>mrr</a>"
            in page)
    definition = re.search(r"<dt id='evalframe-metric-mrr'><code>mrr</code></dt><dd>(.*?)</dd>", page)
    assert definition and definition[1].startswith("Reciprocal rank of the first relevant document. Per query: "
                                                   "1 / min rank over R.")
    assert "mrr" in text.split("\nWhat the numbers mean\n")[1]
    assert "mrr                Reciprocal rank of the first relevant document." in text
    # the trec_eval measure: its definition with its cutoff
    ndcg10 = re.search(r"<dt id='evalframe-metric-nDCG-10'><code>nDCG@10</code></dt><dd>(.*?)</dd>", page)
    assert ndcg10 and ndcg10[1].startswith("Normalised discounted cumulative gain") and "k = 10" in ndcg10[1]
    # every metric of the funnel, and the one ranking each node's worst queries, has its definition
    shown = set(re.findall(r"<a class='metric' href='#evalframe-metric-([^']+)'", page))
    assert shown == {"recall_multi_hit", "recall_single_hit", "precision", "map", "mrr", "ndcg", "nDCG-10",
                     "exact_match", "f1"}
    assert {f"evalframe-metric-{name}" for name in shown} <= _ids_and_links(page)[0]
    # the scopes, in words
    assert ("<dd>its id is a gold document id or it contains a gold answer</dd>" in page
            and "relevant document (document_scope='document_id_or_answer', answer_scope='any'): its id is a gold "
                "document id or it contains a gold answer" in text)


def test_the_definitions_follow_the_scopes_and_the_filter():
    report = load_demo_result().report(n=1, charts=False, document_scope="document_id_and_context",
                                       metrics_filter={"Retriever": ["mrr"], "Reader": ["exact_match"]})
    assert "<dd>its id is a gold document id and its text matches a gold context" in report.html
    definitions = report.text.split("\nWhat the numbers mean\n")[1]
    # mrr and exact_match are shown in the funnel; recall_single_hit and f1 rank the worst queries; map is not shown
    for name in ("mrr", "exact_match", "recall_single_hit", "f1"):
        assert f"\n{name} " in definitions
    assert "\nmap " not in definitions and "evalframe-metric-map" not in report.html
    assert "docs/" not in report.text
