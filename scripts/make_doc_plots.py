"""Regenerate the plots shown in docs/notebooks.md: ``python scripts/make_doc_plots.py``.

They are drawn from the demo runs (``evalframe.load_demo_runs``) with the same calls as the docs show.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import evalframe as ef  # noqa: E402
from evalframe.report.plots import plot_comparison, plot_funnel, plot_metric_distribution, plot_metrics_at_k  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    top3 = ef.EvaluationResult.from_runs(*ef.load_demo_runs(top_k=3), progress=False)
    top5 = ef.EvaluationResult.from_runs(*ef.load_demo_runs(top_k=5), progress=False)
    plots = {
        "metrics_at_k.png": lambda: plot_metrics_at_k(top5, ks=(1, 2, 3, 4, 5), node="Retriever"),
        "metrics_at_k_pipeline.png": lambda: plot_metrics_at_k(top5, ks=(1, 2, 3, 4, 5)),
        "funnel.png": lambda: plot_funnel(top3),
        "distribution.png": lambda: plot_metric_distribution(top3, node="Reader", metric="f1", kind="ecdf"),
        "comparison.png": lambda: plot_comparison(top3, top5, node="Retriever", metric="ndcg", names=["top 3", "top 5"]),
    }
    for name, draw in plots.items():
        ax = draw()
        ax.figure.savefig(OUT / name, dpi=90, metadata={"Software": None})  # no version stamp: stable files
        plt.close(ax.figure)
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
