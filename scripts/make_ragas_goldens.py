"""Write the Ragas golden files of tests/data/rag/ragas/ with Ragas itself (no network model, no API key).

Run it in a virtual environment with Ragas (it is not a dependency of evalframe, not even a test one)::

    python3 -m venv /tmp/venv-ragas && /tmp/venv-ragas/bin/pip install ragas pandas pyarrow
    /tmp/venv-ragas/bin/python scripts/make_ragas_goldens.py

(Ragas 0.4.3 imports ``langchain_community.chat_models.vertexai``, gone from langchain-community 0.4: add
``"langchain-community<0.4"`` to the install line if ``import ragas`` fails on it.)

What it writes:

* ``dataset.jsonl``, ``dataset.csv``: a four-question ``ragas.EvaluationDataset`` of ``SingleTurnSample`` written
  by Ragas' own ``to_jsonl`` and ``to_csv``; ``dataset.parquet``: its ``to_pandas().to_parquet()``;
* ``results.jsonl``, ``results.csv``, ``results.parquet``: the frame of a ``ragas.dataset_schema.EvaluationResult``
  (``to_pandas()``: the samples' columns, then one column per metric), written by pandas. The metrics
  ``id_based_context_precision``, ``id_based_context_recall``, ``exact_match`` and ``string_present`` are computed
  by ``ragas.evaluate`` for real (they need no model); ``faithfulness`` needs an LLM judge, so its column holds fixed
  numbers, set in Ragas' own ``EvaluationResult`` beside the computed ones, laid out by its ``to_pandas()``;
* ``versions.json``: the versions of Ragas, pandas, pyarrow and Python that wrote them.

The questions (tests/sources/test_ragas.py works their metrics out by hand): the capital of Germany (the gold
document at rank 2), of France (at rank 1; the response is wrong), who
wrote Faust (no gold document retrieved; the response is part of the reference) and a no-answer question (no
reference context, reference ``""``, response ``""``). The second response spans two lines: the CSV rows after it
start a line later than their number says.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # no usage analytics: nothing leaves the machine

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "rag" / "ragas"

BERLIN = 'Berlin is the capital of Germany.\nIt is also its largest city, with "3.8 million" people.'
BONN = "Bonn was the capital of West Germany until 1990."
PARIS = "Paris is the capital and largest city of France."
SCHILLER = "Friedrich Schiller wrote The Robbers."
WEIMAR = "Weimar is a city in Thuringia, home to many poets."
GOETHE = "Faust is a tragic play by Johann Wolfgang von Goethe."

SAMPLES = [
    {"user_input": "What is the capital of Germany?", "retrieved_contexts": [BONN, BERLIN],
     "retrieved_context_ids": ["bonn", "berlin"], "reference_contexts": [BERLIN], "reference_context_ids": ["berlin"],
     "response": "Berlin", "reference": "Berlin"},
    {"user_input": "What is the capital of France?", "retrieved_contexts": [PARIS], "retrieved_context_ids": ["paris"],
     "reference_contexts": [PARIS], "reference_context_ids": ["paris"], "response": "Lyon.\nIt is in France.",
     "reference": "Paris"},
    {"user_input": "Who wrote Faust?", "retrieved_contexts": [SCHILLER, WEIMAR],
     "retrieved_context_ids": ["schiller", "weimar"], "reference_contexts": [GOETHE],
     "reference_context_ids": ["goethe"], "response": "Goethe", "reference": "Johann Wolfgang von Goethe"},
    {"user_input": "Who won the 2030 World Cup?", "retrieved_contexts": [PARIS], "retrieved_context_ids": ["paris"],
     "reference_contexts": [], "reference_context_ids": [], "response": "", "reference": ""},
]
#: An LLM judge's faithfulness, fixed here (Ragas needs a model to compute it); NaN: the judge gave no value.
FAITHFULNESS = [0.9, 0.2, float("nan"), 0.6]


def main() -> None:
    import pandas as pd
    import pyarrow
    import ragas
    from ragas import EvaluationDataset, SingleTurnSample, evaluate
    from ragas.dataset_schema import EvaluationResult
    from ragas.metrics import ExactMatch, IDBasedContextPrecision, IDBasedContextRecall, StringPresence

    OUT.mkdir(parents=True, exist_ok=True)
    dataset = EvaluationDataset(samples=[SingleTurnSample(**sample) for sample in SAMPLES])
    dataset.to_jsonl(OUT / "dataset.jsonl")
    dataset.to_csv(OUT / "dataset.csv")
    dataset.to_pandas().to_parquet(OUT / "dataset.parquet", index=False)

    computed = evaluate(dataset, metrics=[IDBasedContextPrecision(), IDBasedContextRecall(), ExactMatch(),
                                          StringPresence()], show_progress=False)
    scores = [{**row, "faithfulness": value} for row, value in zip(computed.scores, FAITHFULNESS)]
    # Ragas' own result class lays the columns out; its traces are the run's (it parses them when made)
    frame = EvaluationResult(scores=scores, dataset=dataset, ragas_traces=computed.ragas_traces,
                             run_id=computed.run_id).to_pandas()
    frame.to_json(OUT / "results.jsonl", orient="records", lines=True, force_ascii=False)
    frame.to_csv(OUT / "results.csv", index=False)
    frame.to_parquet(OUT / "results.parquet", index=False)

    versions = {"ragas": ragas.__version__, "pandas": pd.__version__, "pyarrow": pyarrow.__version__,
                "python": platform.python_version()}
    (OUT / "versions.json").write_text(json.dumps(versions, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {sorted(p.name for p in OUT.iterdir())} to {OUT} with {versions}", file=sys.stderr)


if __name__ == "__main__":
    main()
