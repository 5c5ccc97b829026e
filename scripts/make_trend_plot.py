"""Regenerate the trend shown in docs/history.md: ``python scripts/make_trend_plot.py``.

A history of real runs of the demo pipeline (``evalframe.load_demo_runs``), logged into a scratch store with
``History.log`` as a team's CI would: the retriever's top 3, then its top 5, then both again after the question set
lost 13 of its 113 questions; then ``History.trend("ndcg", node="Retriever")`` drawn by ``evalframe.report.trend``
(docs/images/trend.png, and the HTML page beside it in the scratch folder).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import evalframe as ef
from evalframe.present.history import History
from evalframe.report.trend import save_trend, trend_png

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def _result(top_k: int, questions: int | None = None) -> ef.EvaluationResult:
    labels, outputs = ef.load_demo_runs(top_k=top_k)
    if questions is not None:  # the first `questions` of them: a question set of its own
        labels = labels[:questions]
        outputs = {node: {key: values[:questions] for key, values in lists.items()} for node, lists in outputs.items()}
    return ef.EvaluationResult.from_runs(labels, outputs, progress=False)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="evalframe-trend-"))
    history = History(scratch / "store")
    for name, tags, top_k, questions in [("bm25-top3", ["v1"], 3, None), ("bm25-top5", ["v2"], 5, None),
                                         ("bm25-top5", ["v3"], 5, 100), ("bm25-top3", ["v3"], 3, 100)]:
        history.log(_result(top_k, questions), name=name, tags=tags, params={"top_k": str(top_k)})
        time.sleep(0.01)  # distinct times: the store sorts its runs by time
    trend = history.trend("ndcg", node="Retriever")
    trend_png(trend, OUT / "trend.png", measure="ndcg")
    save_trend(trend, scratch / "trend.html", measure="ndcg")
    print(f"wrote {OUT / 'trend.png'} (and {scratch / 'trend.html'})")


if __name__ == "__main__":
    main()
