"""Generate the golden files of the Haystack 2.x and LlamaIndex sources from the real libraries.

``EvaluationResult.from_haystack2`` and ``EvaluationResult.from_llamaindex`` read what these libraries produce; the
tests read files the libraries wrote themselves, made here. It is a development aid only: each part runs in a
throwaway virtualenv that has the library installed, and evalframe never imports either library.

How to rerun (from the repository root; the two libraries' dependencies may clash, so one venv each)::

    python3 -m venv /tmp/venv-hs2 && /tmp/venv-hs2/bin/pip install haystack-ai pandas
    python3 -m venv /tmp/venv-li && /tmp/venv-li/bin/pip install llama-index-core langchain-core pandas
    HAYSTACK_TELEMETRY_ENABLED=False /tmp/venv-hs2/bin/python scripts/make_framework_goldens.py haystack2
    /tmp/venv-li/bin/python scripts/make_framework_goldens.py llamaindex

No network model and no API key: the documents, the retrieved lists and the answers are written here; the scores
are those of the libraries' own non-LLM evaluators, run for real (Haystack's DocumentMRREvaluator,
DocumentMAPEvaluator, DocumentRecallEvaluator, DocumentNDCGEvaluator, AnswerExactMatchEvaluator; llama-index's
HitRate, MRR, Precision, Recall, AveragePrecision, NDCG), except ``faithfulness``, an LLM judge's score in a real
run, whose numbers are set by hand (FAITHFULNESS below). The pipeline outputs are those of a real Haystack
``Pipeline`` (InMemoryBM25Retriever over an InMemoryDocumentStore, a PromptBuilder, a stand-in generator component
that replies with fixed text instead of an LLM, an AnswerBuilder).

Written (``tests/data/rag/haystack2/``, ``tests/data/rag/llamaindex/``; each with a ``versions.json``):

- ``haystack2/run_result.json``: an ``EvaluationRunResult``'s ``run_name``, ``inputs`` and ``results``, every
  Document as ``Document.to_dict()`` (Haystack's default, meta flattened), the detailed report beside it as
  ``detailed_report.json`` (``detailed_report()``'s dict, the same serialisation).
- ``haystack2/pipeline_outputs.json``: ``{"questions": [...], "outputs": [Pipeline.run(...) per question]}``,
  Documents as ``to_dict()``, GeneratedAnswers as ``to_dict()``, ChatMessages as ``to_dict()``.
- ``llamaindex/retrieval_results.json``: ``[RetrievalEvalResult.model_dump() ...]``, and the same as JSON Lines
  (``retrieval_results.jsonl``, ``model_dump_json()`` per line); ``llamaindex/nodes.json``: NodeWithScore and
  LangChain Documents as the libraries dump them (``model_dump()``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "rag"

#: The corpus: id -> (content, meta).
CORPUS = {
    "d1": ("Berlin is the capital of Germany.", {"source": "wiki/germany"}),
    "d2": ("Bonn was the capital of West Germany.", {"source": "wiki/bonn"}),
    "d3": ("Paris is the capital of France.", {"source": "wiki/france"}),
    "d4": ("Lyon is a city in France.", {"source": "wiki/lyon"}),
    "d5": ("Mount Everest is the highest mountain on Earth.", {"source": "wiki/everest"}),
}

#: The questions: question, gold ids, gold answer ("" for the no-answer question), retrieved ids (rank order) with
#: their retriever scores, the generated answer, a topic (the query's metadata).
QUERIES = [
    ("What is the capital of Germany?", ["d1"], "Berlin", [("d2", 0.9), ("d1", 0.8)], "Berlin", "germany"),
    ("What is the capital of France?", ["d3"], "Paris", [("d4", 0.7), ("d5", 0.6), ("d3", 0.5)], "Lyon", "france"),
    ("Who won the 2030 World Cup?", [], "", [("d5", 0.2)], "I don't know.", "sports"),
    ("Which cities were capitals of Germany?", ["d1", "d2"], "Berlin and Bonn",
     [("d1", 0.95), ("d3", 0.4), ("d2", 0.3)], "Berlin and Bonn", "germany"),
    ("What is the highest mountain?", ["d5"], "Mount Everest", [("d1", 0.3), ("d3", 0.1)], "K2", "geography"),
]

#: An LLM judge's per-question faithfulness in a real run; set by hand here (no model is run).
FAITHFULNESS = [1.0, 0.0, 1.0, 0.5, 0.0]


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print("wrote", path.relative_to(DATA.parent.parent.parent))


def _versions(folder: Path, *packages: str) -> None:
    _write(folder / "versions.json", {"python": sys.version.split()[0],
                                      **{p: importlib.metadata.version(p) for p in packages}})


# ------------------------------------------------------------------------------------------------ Haystack 2.x
def haystack2() -> None:
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    from haystack import Document, Pipeline, component
    from haystack.components.builders import AnswerBuilder, PromptBuilder
    from haystack.components.evaluators import (AnswerExactMatchEvaluator, DocumentMAPEvaluator, DocumentMRREvaluator,
                                                DocumentNDCGEvaluator, DocumentRecallEvaluator)
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore
    from haystack.evaluation import EvaluationRunResult

    folder = DATA / "haystack2"

    def doc(doc_id: str, score: float | None = None) -> Document:
        content, meta = CORPUS[doc_id]
        return Document(id=doc_id, content=content, meta=dict(meta), score=score)

    questions = [q[0] for q in QUERIES]
    gold_documents = [[doc(i) for i in q[1]] for q in QUERIES]
    gold_answers = [q[2] for q in QUERIES]
    retrieved = [[doc(i, s) for i, s in q[3]] for q in QUERIES]
    predicted = [q[4] for q in QUERIES]
    documents = {"ground_truth_documents": gold_documents, "retrieved_documents": retrieved}
    results = {
        "doc_mrr": DocumentMRREvaluator(document_comparison_field="id").run(**documents),
        "doc_map": DocumentMAPEvaluator(document_comparison_field="id").run(**documents),
        "doc_recall": DocumentRecallEvaluator(mode="single_hit", document_comparison_field="id").run(**documents),
        "doc_ndcg": DocumentNDCGEvaluator(document_comparison_field="id").run(**documents),
        # "exact_match" is evalframe's own metric's name too: the source renames it (haystack_exact_match)
        "exact_match": AnswerExactMatchEvaluator().run(ground_truth_answers=gold_answers, predicted_answers=predicted),
        "faithfulness": {"score": sum(FAITHFULNESS) / len(FAITHFULNESS), "individual_scores": FAITHFULNESS},
    }
    inputs = {"question": questions, "retrieved_documents": retrieved, "ground_truth_documents": gold_documents,
              "ground_truth_answer": gold_answers, "predicted_answer": predicted, "topic": [q[5] for q in QUERIES]}
    run = EvaluationRunResult(run_name="bm25_top3", inputs=inputs, results=results)

    def plain(value: Any) -> Any:  # Haystack's own serialisation of each object
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value.to_dict() if hasattr(value, "to_dict") else value

    _write(folder / "run_result.json", {"run_name": run.run_name, "inputs": plain(run.inputs),
                                        "results": plain(run.results)})
    _write(folder / "detailed_report.json", plain(run.detailed_report(output_format="json")))

    # a real pipeline: BM25 over the corpus, a stand-in generator (fixed replies, no LLM), an answer builder
    store = InMemoryDocumentStore()
    store.write_documents([doc(i) for i in CORPUS])
    replies = dict(zip(questions, predicted))

    @component
    class FixedGenerator:  # replies as an LLM would, from a table: no model, no network
        @component.output_types(replies=list[str])
        def run(self, prompt: str) -> dict[str, Any]:
            question = prompt.rsplit("Question:", 1)[1].strip()
            return {"replies": [replies[question]]}

    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=3))
    pipeline.add_component("prompt_builder", PromptBuilder(
        template="{% for d in documents %}{{ d.content }}\n{% endfor %}Question: {{ question }}",
        required_variables=["documents", "question"]))
    pipeline.add_component("llm", FixedGenerator())
    pipeline.add_component("answer_builder", AnswerBuilder())
    pipeline.connect("retriever.documents", "prompt_builder.documents")
    pipeline.connect("prompt_builder.prompt", "llm.prompt")
    pipeline.connect("llm.replies", "answer_builder.replies")
    pipeline.connect("retriever.documents", "answer_builder.documents")
    outputs = [pipeline.run({"retriever": {"query": q}, "prompt_builder": {"question": q},
                             "answer_builder": {"query": q}}, include_outputs_from={"retriever", "llm"})
               for q in questions]
    _write(folder / "pipeline_outputs.json", {"questions": questions, "ground_truth_answers": gold_answers,
                                              "ground_truth_document_ids": [q[1] for q in QUERIES],
                                              "outputs": plain(outputs)})
    _versions(folder, "haystack-ai", "pandas")


# ------------------------------------------------------------------------------------------------ LlamaIndex
def llamaindex() -> None:
    from langchain_core.documents import Document as LangChainDocument
    from llama_index.core.evaluation.retrieval.base import RetrievalEvalResult
    from llama_index.core.evaluation.retrieval.metrics import NDCG, MRR, AveragePrecision, HitRate, Precision, Recall
    from llama_index.core.schema import NodeWithScore, TextNode

    folder = DATA / "llamaindex"
    metrics = [HitRate(), MRR(), Precision(), Recall(), AveragePrecision(), NDCG()]
    results = []
    # llama-index's metrics refuse a query without expected ids ("Retrieved ids and expected ids must be provided"):
    # its evaluation has no no-answer question, so that one is left out here
    for question, gold, _answer, ranked, _predicted, _topic in QUERIES:
        if not gold:
            continue
        retrieved_ids = [i for i, _ in ranked]
        arguments = {"query": question, "expected_ids": gold, "expected_texts": [CORPUS[i][0] for i in gold],
                     "retrieved_ids": retrieved_ids, "retrieved_texts": [CORPUS[i][0] for i in retrieved_ids]}
        metric_dict = {m.metric_name: m.compute(**arguments) for m in metrics}
        results.append(RetrievalEvalResult(**arguments, metric_dict=metric_dict))
    _write(folder / "retrieval_results.json", [r.model_dump(mode="json") for r in results])
    path = folder / "retrieval_results.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in results), encoding="utf-8")
    print("wrote", path.relative_to(DATA.parent.parent.parent))

    question, gold, _answer, ranked, _predicted, _topic = QUERIES[0]
    nodes = [NodeWithScore(node=TextNode(id_=i, text=CORPUS[i][0], metadata=dict(CORPUS[i][1])), score=s)
             for i, s in ranked]
    langchain = [LangChainDocument(id=i, page_content=CORPUS[i][0], metadata=dict(CORPUS[i][1])) for i, _ in ranked]
    _write(folder / "nodes.json", {"query": question, "expected_ids": gold,
                                   "nodes_with_score": [n.model_dump(mode="json") for n in nodes],
                                   "langchain_documents": [d.model_dump(mode="json") for d in langchain]})
    _versions(folder, "llama-index-core", "langchain-core", "pydantic")


if __name__ == "__main__":
    parts = {"haystack2": haystack2, "llamaindex": llamaindex}
    if len(sys.argv) != 2 or sys.argv[1] not in parts:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(parts)}")
    parts[sys.argv[1]]()
