"""Write notebooks/quickstart.ipynb and store both shipped notebooks executed: ``python scripts/make_quickstart.py``.

The quickstart is kept as plain cells here so that changes to it are reviewable as code; getting-started.ipynb
is edited as a notebook. Both are then run top to bottom in a Jupyter kernel (nbclient) and saved with their
outputs, so they read as a worked example on a repository page; tests/test_notebooks.py runs them again and
checks that the stored outputs are still what the code prints (run this script when they are not).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

OUT = Path(__file__).resolve().parent.parent / "notebooks" / "quickstart.ipynb"

CELLS = [
    ("markdown", """# evalframe quickstart

Build an evaluation result from a pipeline's runs, read its metrics, find the worst queries, draw metrics@k
and the pipeline funnel, then compare two runs with confidence intervals and p-values.

The demo pipeline: a BM25 retriever over 64 passages and an extractive reader, on 113 questions (6 without an
answer). It ran twice, with the retriever's top 3 and top 5. Plots need `pip install "evalframe[plots]"`."""),
    ("markdown", """Reading, building, scoring and saving show a progress bar in Jupyter and in a terminal once a step takes
more than half a second; `progress=False` turns it off (as here, to keep the stored notebook clean)."""),
    ("code", """import evalframe as ef

result = ef.EvaluationResult.from_runs(*ef.load_demo_runs(top_k=3), progress=False)
result"""),
    ("markdown", """## Metrics

`calculate_metrics` returns `{node: {metric: value}}`, as Haystack 1.x did; `metrics_frame` is the same as a table.
`sliced_metrics` splits the queries, here into those with and without an answer."""),
    ("code", """result.metrics_frame().round(3)"""),
    ("code", """result.sliced_metrics("no_answer")[["queries", "recall_single_hit", "mrr", "exact_match", "f1"]].round(3)"""),  # noqa: E501 - one line in the notebook
    ("markdown", """## The worst queries

`wrong_examples` lists the queries that scored worst, with every answer the reader gave."""),
    ("code", """worst = result.wrong_examples("Reader", n=3)
worst"""),
    ("markdown", """It is a list of dicts, as Haystack's: `worst[0]["answers"]` holds every row of the first query.
`query_metrics` gives every query's metrics; `with_query=True` puts the query text beside its id."""),
    ("code", """result.query_metrics("Reader", with_query=True).sort_values("f1").head()"""),
    ("markdown", """## metrics@k and the funnel

`metrics_at_k` simulates a smaller retriever top-k (and reader top-k) in one pass. The funnel puts each node's
integrated score (fed by the node before it) beside its isolated score (fed the gold passages)."""),
    ("code", """from evalframe.report.plots import plot_funnel, plot_metric_distribution, plot_metrics_at_k

plot_metrics_at_k(result, ks=(1, 2, 3));"""),
    ("code", """plot_funnel(result);"""),
    ("code", """plot_metric_distribution(result, node="Reader", metric="f1", kind="ecdf");"""),
    ("markdown", """## Is top 5 better than top 3?

`compare` pairs the queries of two runs: the delta of each metric, a bootstrap 95% interval of it, a paired
randomization test and a paired t-test, and how many queries each run won."""),
    ("code", """top5 = ef.EvaluationResult.from_runs(*ef.load_demo_runs(top_k=5), progress=False)
table = ef.compare(result, top5, node="Retriever", names=["top 3", "top 5"])
table[["mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_value", "p_ttest", "wins", "ties", "losses"]].round(4)"""),
    ("code", """from evalframe.report.plots import plot_comparison

plot_comparison(result, top5, node="Retriever", metric="ndcg", names=["top 3", "top 5"]);"""),
    ("markdown", """`worst_by_delta` lists the queries that changed most, with both runs' documents."""),
    ("code", """rescued = ef.worst_by_delta(result, top5, "Retriever", "recall_single_hit", direction="better", n=3)
rescued"""),
    ("markdown", """## Save and load

A result folder holds one CSV (or Parquet) file per node; Haystack 1.x folders load too."""),
    ("code", """import tempfile

folder = result.save(tempfile.mkdtemp() + "/demo")
ef.EvaluationResult.load(folder).calculate_metrics() == result.calculate_metrics()"""),
]


def execute(path: Path) -> None:
    """Run the notebook at ``path`` in a fresh kernel (in a scratch folder) and store it with its outputs."""
    import tempfile

    import nbclient

    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as scratch:
        nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": scratch}}).execute()
    notebook.metadata.pop("widgets", None)
    path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    print(f"executed {path}")


def write_quickstart() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, source in CELLS:
        cell = nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
        cell.pop("id", None)
        notebook.cells.append(cell)
    notebook.nbformat_minor = 4  # no cell ids: stable diffs
    nbformat.validate(notebook)
    OUT.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


def main() -> None:
    write_quickstart()
    for path in sorted(OUT.parent.glob("*.ipynb")):
        execute(path)


if __name__ == "__main__":
    main()
