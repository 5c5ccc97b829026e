"""docs/cli.md (and every page with console examples) shows what the commands print today: each example runs and
its output is compared with the page.

The commands of a page run in order in one scratch folder holding the files they use (the demo data, the IR page's
run and qrels); ``python scripts/make_cli_docs.py`` rewrites the outputs that differ. A ``...`` line of a page
stands for any number of lines of the output.
"""

from __future__ import annotations

import pytest

from tests.fixtures import SCRIPTS, load_benchmark

docs = load_benchmark("make_cli_docs.py", SCRIPTS)
TEXTS = {page.name: page.read_text(encoding="utf-8") for page in docs.PAGES}
EXAMPLES = docs.examples(TEXTS["cli.md"])
CASES = [(page, example) for page, text in TEXTS.items() for example in docs.examples(text, page)]
REGENERATE = "run `python scripts/make_cli_docs.py` to write the real outputs into the page"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[tuple[str, int], list[str]]:
    """Each example's real output by (page, line), each page run once, in order, in a folder of its own (the cases
    that read it are one ``xdist_group``: under ``-n 2`` they run on one worker, so the pages run once, not once per
    worker)."""
    return {(page, example.line): actual for page, text in TEXTS.items()
            for example, actual in docs.run_page(text, tmp_path_factory.mktemp("cli-docs"), page)}


def test_the_page_has_the_examples_it_is_known_for():
    commands = [example.command for example in EXAMPLES]
    for command in ("evalframe --help", "evalframe report evalframe/data/demo_result -n 1",
                    "evalframe report evalframe/data/demo_result -n 1 --format json",
                    "evalframe trec run.txt qrels.txt -m ndgc@10", "evalframe list-metrics",
                    "evalframe worst docs/examples/runs.jsonl --node Retriever", "evalframe trec qrels.txt run.txt",
                    "evalframe metrics --top-k-retreiver 5 evalframe/data/demo_result",
                    "evalframe compare run.txt run_b.txt dense.txt --qrels qrels.txt -m AP -m P@5 --test tukey "
                    "--rounds 1000",
                    "evalframe metrics evalframe/data/demo_result --node Reader --ci 0.95",
                    "evalframe trec run.txt qrels.txt -m AP -m P@5 --ci 0.9 --ci-method t"):
        assert command in commands
    # the illustration of a cluster build is marked as not run
    assert not any("--scheduler tcp://" in command for command in commands)
    assert len(EXAMPLES) == 48  # 24, gate (2), compare --by, the report as JSON, compare of TREC run files (2), its paper table,
    # fuse (5), trec_eval's flags (2), ranx's names read by evalframe trec; what a command reads (4), did-you-mean (2),
    # trec's swapped files; metrics --ci and trec --ci
    # the IR page's four trec examples and its compare example run too; the cluster page's need a cluster and are marked
    assert [len(docs.examples(TEXTS[page], page)) for page in ("ir-researchers.md", "cluster.md")] == [5, 0]


@pytest.mark.xdist_group("cli-docs")
@pytest.mark.parametrize(("page", "example"), CASES, ids=[f"{page}:{example.line}" for page, example in CASES])
def test_the_page_shows_what_the_command_prints(page, example, outputs):
    actual = outputs[page, example.line]
    assert docs.matches(example.shown, actual), (
        f"docs/{page}:{example.line}: `{example.command}` prints\n" + "\n".join(actual) + f"\n\n{REGENERATE}")


def test_known_outputs_in_words():
    # the four outputs that had drifted, independently of the page: what a user sees today
    shown = {example.command: example.shown for example in EXAMPLES}
    assert shown["evalframe trec run.txt qrels.txt -m ndgc@10"][0].endswith("Did you mean 'nDCG@10'?")
    assert shown["evalframe trec run.txt qrels.txt -m ndcg@10 -m mrr -m hit_rate@1"][1:] == [  # ranx's names
        "nDCG@10  \tall\t0.3612", "RR       \tall\t0.5000", "Success@1\tall\t0.5000"]
    report = shown["evalframe report evalframe/data/demo_result -n 1"]
    assert report[2].startswith("Scopes: document_scope='document_id_or_answer', answer_scope='any'")
    assert "gold:   doc-everest" in report and "What the numbers mean" in report
    compare = shown["evalframe compare top3 top5 --node Retriever --metrics recall_single_hit,precision,ndcg"]
    assert compare[1].split()[-6:] == ["wins", "ties", "losses", "queries", "only_a", "only_b"]
    assert compare[3].split()[-6:] == ["10", "103", "0", "113", "0", "0"]  # counts as integers


def test_elisions_and_trailing_space():
    assert docs.matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert docs.matches(["a", "  ...", "b"], ["a", "b"])  # any number of lines, none included
    assert docs.matches(["a   ", ""], ["a"])
    assert not docs.matches(["a", "...", "d"], ["a", "b", "c"])
    assert not docs.matches(["a"], ["a", "b"])


def test_blocks_marked_not_run_and_stray_lines():
    text = ("```console\n$ evalframe list-metrics\nout\n\n$ evalframe --version\n```\n\n"
            "<!-- cli-docs: not run -->\n```console\n$ evalframe flatten x -o y\nwrote\n```\n")
    assert [(e.line, e.command, e.shown) for e in docs.examples(text)] == [
        (2, "evalframe list-metrics", ["out", ""]), (5, "evalframe --version", [])]
    with pytest.raises(ValueError, match=r"cli.md:2: a console block must start with a '\$ ' command line; got 'out'"):
        docs.examples("```console\nout\n```\n")


def test_the_script_rewrites_a_stale_output_and_keeps_a_matching_elided_one(tmp_path):
    text = ("```console\n$ evalframe trec run.txt qrels.txt -m AP\nnum_q\tall\t9\n\n$ evalframe list-metrics\n"
            "answer metrics:\n...\n```\n")
    results = docs.run_page(text, tmp_path)
    rewritten = docs.rewrite(text, results)
    # AP of the IR page's run: q1 ranks d1, d3, d2 (d2 and d3 tie on score: the larger id first), relevant d1, d3 and
    # d4 (not retrieved): (1/1 + 2/2) / 3 = 0.6667; q2 retrieves nothing relevant: 0; mean over 2 queries 0.3333
    assert rewritten == ("```console\n$ evalframe trec run.txt qrels.txt -m AP\nnum_q\tall\t2\nAP   \tall\t0.3333\n\n"
                         "$ evalframe list-metrics\nanswer metrics:\n...\n```\n")
