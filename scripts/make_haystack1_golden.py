"""Generate golden test data from the real Haystack 1.x ``EvaluationResult``.

evalframe re-implements Haystack 1.x's evaluation-result analysis; this script records what the
reference implementation (farm-haystack 1.26.4) computes for a small, hand-made set of inputs so the
tests can compare evalframe against it. It is a development aid only: it runs in a throwaway
virtualenv that has farm-haystack installed and evalframe never imports it.

How to rerun (from the repository root)::

    benchmarks/setup_haystack1.sh                # once: creates /tmp/haystack1
    HAYSTACK_TELEMETRY_ENABLED=False /tmp/haystack1/bin/python scripts/make_haystack1_golden.py

Everything it writes goes to ``tests/data/haystack1/`` (see the README.md written there):

- ``inputs.json``: the labels (``Label.to_dict()``) and node outputs (``Document.to_dict()``,
  ``Answer.to_dict()``) per query, and the ``_build_eval_dataframe`` parameters.
- ``frames.json``: the node frames as Haystack built them in memory (before saving).
- ``result/``: ``EvaluationResult.save()`` of those frames (nodes ``Retriever`` and ``Reader``).
- ``metrics.json``: ``calculate_metrics()`` of ``EvaluationResult.load("result/")`` for a grid of
  parameters, with the per-query frames of the private helpers.
- ``wrong_examples.json``: ``wrong_examples()`` of the loaded result for a few settings.
- ``legacy/`` and ``legacy_metrics.json``: the same frames with pre-1.x column names.

The frames are built the way ``Pipeline.eval()`` builds them: one ``_build_eval_dataframe`` call
per query and node, ``EvaluationResult.append`` and ``Pipeline._reorder_columns_in_eval_result``.
No model is run. The output is deterministic (fixed label ids and timestamps, fixed or
content-hash document ids).
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import logging
import math
import os
import shutil
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import haystack  # noqa: E402
from haystack.pipelines import Pipeline  # noqa: E402
from haystack.schema import Answer, Document, EvaluationResult, Label, MultiLabel, Span  # noqa: E402

warnings.simplefilter("ignore")
logging.getLogger("haystack").setLevel(logging.ERROR)

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "haystack1"
NODES = ["Retriever", "Reader"]
CREATED_AT = "2024-01-01 00:00:00"

BUILD_PARAMS = {
    "custom_document_id_field": None,
    "context_matching_min_length": 100,
    "context_matching_boost_split_overlaps": True,
    "context_matching_threshold": 65.0,
}

DOCUMENT_SCOPES = [
    "document_id",
    "context",
    "document_id_and_context",
    "document_id_or_context",
    "answer",
    "document_id_or_answer",
]
ANSWER_SCOPES = ["any", "context", "document_id", "document_id_and_context"]
EVAL_MODES = ["integrated", "isolated"]
TOP_K_RETRIEVER = [-1, 1, 2, 3]
TOP_K_READER = [-1, 1, 2]

# ---------------------------------------------------------------------------------------------
# Documents. id=None -> Haystack's content hash (mmh3 128 bit of the content).
# ---------------------------------------------------------------------------------------------

P_BERLIN = (
    "Berlin is the capital and largest city of Germany by both area and population. Its more than "
    "3.85 million inhabitants make it the most populous city of the European Union, as measured by "
    "population within city limits."
)
# near-copy of P_BERLIN with a few words changed (context match without id match)
P_BERLIN_NEAR = (
    "Berlin is the capital and biggest city of Germany by both area and population. Its more than "
    "3.8 million residents make it the most populous city in the European Union, as measured by "
    "population inside city limits."
)
P_BERLIN_SHORT = "Berlin is in Germany."  # shorter than context_matching_min_length -> similarity 0
P_PARIS = (
    "Paris is the capital and most populous city of France, with an estimated population of "
    "2,102,650 residents in January 2023 in an area of more than 105 square kilometres. It is the "
    "fourth-most populated city in the European Union."
)
# new text + first half of P_PARIS: score in the 40-65 band, alignment at the end -> right cut boost
P_PARIS_OVERLAP = (
    "Visitors arriving at the Gare du Nord are often surprised by how compact the historic centre "
    "is, and most of the famous sights can be reached on foot within an hour or so. Paris is the "
    "capital and most populous city of France, with an estimated population of 2,102,650 residents."
)
P_PARIS_LANDMARKS = (
    "Paris is home to many landmarks, including the Eiffel Tower, the Louvre museum and the "
    "cathedral of Notre-Dame. The city is divided into twenty arrondissements arranged in a "
    "clockwise spiral."
)
P_RHINE = (
    "The Rhine is one of the major European rivers. It begins in the Swiss canton of Graubunden in "
    "the southeastern Swiss Alps and flows through Germany before emptying into the North Sea in "
    "the Netherlands. Its length is about 1,230 kilometres."
)
# second half of P_RHINE + new text: score 64.4 -> boosted (left cut) to 80.9, above 65
P_RHINE_OVERLAP = (
    "flows through Germany before emptying into the North Sea in the Netherlands. Its length is "
    "about 1,230 kilometres. For centuries the river has been an important trade route, carrying "
    "coal, grain and timber between the industrial cities of the interior and the busy ports on "
    "the coast."
)
# a third of P_RHINE + new text: score 48.1 -> boosted to 62.8, still below 65
P_RHINE_THIRD = (
    "into the North Sea in the Netherlands. Its length is about 1,230 kilometres. Barges loaded "
    "with coal, grain and timber travel between the industrial cities of the interior and the "
    "ports on the coast, passing vineyards and castles on the steep banks."
)
P_PYTHON = (
    "Python is a high-level, general-purpose programming language. Its design philosophy "
    "emphasizes code readability with the use of significant indentation. Python was created by "
    "Guido van Rossum and first released in 1991."
)
P_MOON = (
    "The Moon is Earth's only natural satellite. It orbits at an average distance of 384,400 km, "
    "about 30 times the diameter of Earth. The Moon was first visited by humans during the Apollo "
    "11 mission in July 1969."
)
P_APOLLO = (
    "In 1969 the Apollo 11 crew, Neil Armstrong and Buzz Aldrin, landed the lunar module Eagle on "
    "the Sea of Tranquility, while Michael Collins remained in lunar orbit aboard the command "
    "module Columbia."
)
P_EVEREST = (
    "Mount Everest is Earth's highest mountain above sea level, located in the Mahalangur Himal "
    "sub-range of the Himalayas. Its elevation of 8,848.86 metres was most recently established "
    "in 2020 by Chinese and Nepali authorities."
)
P_AMAZON = (
    "The Amazon River in South America is the largest river by discharge volume of water in the "
    "world, and the disputed longest river system in the world in comparison to the Nile. It "
    "flows into the Atlantic Ocean."
)
P_NILE = (
    "The Nile is a major north-flowing river in northeastern Africa. It flows into the "
    "Mediterranean Sea. The Nile is the longest river in Africa and has historically been "
    "considered the longest river in the world."
)
P_SHAKESPEARE = (
    "William Shakespeare was an English playwright, poet and actor. He is widely regarded as the "
    "greatest writer in the English language and the world's pre-eminent dramatist. His extant "
    "works include some 39 plays."
)
P_PHOTOSYNTHESIS = (
    "Photosynthesis is a system of biological processes by which photosynthetic organisms, such as "
    "most plants, algae and cyanobacteria, convert light energy, typically from sunlight, into the "
    "chemical energy necessary to fuel their metabolism."
)


def make_documents() -> dict:
    spec = {
        # name: (content, id, meta, score)
        "berlin": (P_BERLIN, "doc-berlin", {"name": "a"}, 0.91),
        "berlin_near": (P_BERLIN_NEAR, None, {"name": "a"}, 0.93),
        "berlin_short": (P_BERLIN_SHORT, "doc-berlin-short", {"name": "a"}, 0.55),
        "paris": (P_PARIS, None, {"name": "b", "year": 2023}, 0.82),
        "paris_overlap": (P_PARIS_OVERLAP, "doc-paris-overlap", {"name": "b", "year": 2023}, 0.84),
        "paris_landmarks": (P_PARIS_LANDMARKS, None, {"name": "b", "year": 2023}, 0.61),
        "rhine": (P_RHINE, "doc-rhine", {}, 0.77),
        "rhine_overlap": (P_RHINE_OVERLAP, "doc-rhine-overlap", {}, 0.8),
        "rhine_third": (P_RHINE_THIRD, "doc-rhine-third", {}, 0.52),
        "python": (P_PYTHON, "doc-python", {"name": "c"}, 0.88),
        "moon": (P_MOON, "doc-moon", {"name": "a"}, 0.71),
        "apollo": (P_APOLLO, "doc-apollo", {"name": "a"}, 0.86),
        "everest": (P_EVEREST, "doc-everest", {}, 0.9),
        "amazon": (P_AMAZON, "doc-amazon", {}, 0.64),
        "nile": (P_NILE, "doc-nile", {}, 0.66),
        "shakespeare": (P_SHAKESPEARE, "doc-shakespeare", {}, 0.42),
        "photosynthesis": (P_PHOTOSYNTHESIS, "doc-photosynthesis", {}, 0.4),
    }
    docs = {}
    for name, (content, doc_id, meta, score) in spec.items():
        docs[name] = Document(content=content, id=doc_id, meta=dict(meta), score=score)
    return docs


DOCS = make_documents()


def ranked(*names: str) -> list:
    """A retriever ranking: fresh Document copies (a name may repeat: duplicates in a ranking)."""
    out = []
    for name in names:
        d = DOCS[name]
        out.append(Document(content=d.content, id=d.id, meta=dict(d.meta), score=d.score))
    return out


def span_of(text: str, haystack_text: str) -> list:
    start = haystack_text.find(text)
    if start < 0:
        raise ValueError(f"{text!r} not found in {haystack_text[:40]!r}...")
    return [Span(start=start, end=start + len(text))]


def answer(text: str, doc_names: list, score: float, context: str | None = "full") -> Answer:
    """An extractive answer found in the first of doc_names (all ids go to document_ids).

    context: "full" -> the whole document content; a string -> that window of the document.
    """
    doc = DOCS[doc_names[0]]
    ctx = doc.content if context == "full" else context
    return Answer(
        answer=text,
        type="extractive",
        score=score,
        context=ctx,
        offsets_in_document=span_of(text, doc.content),
        offsets_in_context=span_of(text, ctx),
        document_ids=[DOCS[n].id for n in doc_names],
        meta=dict(doc.meta),
    )


def no_answer(score: float) -> Answer:
    """A reader's no-answer prediction: empty string, no context, document_ids == []."""
    return Answer(
        answer="",
        type="extractive",
        score=score,
        context=None,
        offsets_in_document=[Span(start=0, end=0)],
        offsets_in_context=[Span(start=0, end=0)],
        document_ids=[],
        meta={},
    )


def label(lid: str, query: str, doc_name: str, text: str | None, filters=None, correct_answer=True) -> Label:
    doc = DOCS[doc_name]
    if text is None:
        ans = None
    elif text == "":
        ans = Answer(answer="", offsets_in_document=[Span(0, 0)], offsets_in_context=[Span(0, 0)], document_ids=[doc.id])
    else:
        spans = span_of(text, doc.content)
        ans = Answer(
            answer=text,
            context=doc.content,
            offsets_in_document=spans,
            offsets_in_context=spans,
            document_ids=[doc.id],
        )
    return Label(
        query=query,
        document=Document(content=doc.content, id=doc.id, meta=dict(doc.meta)),
        is_correct_answer=correct_answer,
        is_correct_document=True,
        origin="gold-label",
        answer=ans,
        id=lid,
        created_at=CREATED_AT,
        meta={},
        filters=filters,
    )


def make_queries() -> list:
    q = []

    # q1: gold doc at rank 2; near-copy of the gold passage (different id) at rank 1;
    # a passage shorter than min_length that contains the answer; label filters {"name": ["a"]}.
    text = "What is the capital of Germany?"
    f = {"name": ["a"]}
    q.append(
        {
            "note": (
                "gold doc at rank 2; near-copy of the gold passage (other id) at rank 1; "
                "a passage shorter than min_length containing the answer; filters {\"name\": [\"a\"]}"
            ),
            "query": text,
            "labels": [label("label-q1-1", text, "berlin", "Berlin", filters=f)],
            "documents": ranked("berlin_near", "berlin", "paris", "berlin_short"),
            "answers": [
                answer("Berlin", ["berlin_near"], 0.91),
                answer("Paris", ["paris"], 0.35),
            ],
            "answers_isolated": [
                answer("Berlin", ["berlin"], 0.95),
                answer("Germany", ["berlin"], 0.2, context="largest city of Germany by both area"),
            ],
        }
    )

    # q2: two gold labels on different documents; only one gold doc retrieved, at rank 3, and it
    # also contains the other label's answer ("Nile"); an answer with two document_ids.
    text = "Which is the longest river in the world?"
    q.append(
        {
            "note": (
                "two gold labels on different documents; "
                "only one retrieved, at rank 3, and it also contains the other label's answer; "
                "an answer with two document_ids"
            ),
            "query": text,
            "labels": [
                label("label-q2-1", text, "nile", "Nile"),
                label("label-q2-2", text, "amazon", "Amazon River"),
            ],
            "documents": ranked("rhine", "photosynthesis", "amazon"),
            "answers": [
                answer("The Rhine", ["rhine"], 0.7, context="full"),
                answer("Nile", ["amazon"], 0.6),
                answer("Amazon River", ["amazon", "photosynthesis"], 0.5),
            ],
            "answers_isolated": [
                answer("Nile", ["nile"], 0.9),
                answer("Amazon River", ["amazon"], 0.8),
            ],
        }
    )

    # q3: two labels on the same document with different answers; gold doc only at rank 3; the
    # answer string is contained in a different document (answer_match without id match) at rank 1;
    # an answer whose document is not in the top 2; an answer context shorter than min_length.
    text = "When did humans first land on the Moon?"
    f = {"name": ["a"]}
    q.append(
        {
            "note": (
                "two labels on the same document with different answers; gold doc only at rank 3; "
                "answer string in another document at rank 1; answer from a document outside the top 2; "
                "answer context shorter than min_length"
            ),
            "query": text,
            "labels": [
                label("label-q3-1", text, "moon", "July 1969", filters=f),
                label("label-q3-2", text, "moon", "1969", filters=f),
            ],
            "documents": ranked("apollo", "everest", "moon"),
            "answers": [
                answer("1969", ["apollo"], 0.8),
                answer(
                    "July 1969",
                    ["moon"],
                    0.75,
                    context="first visited by humans during the Apollo 11 mission in July 1969.",
                ),
            ],
            "answers_isolated": [answer("July 1969", ["moon"], 0.9)],
        }
    )

    # q4: no-answer query (label answer ""); reader's no-answer prediction with document_ids == [].
    text = "Who was the first person to walk on Mars?"
    q.append(
        {
            "note": "no-answer label; reader's no-answer prediction with document_ids []",
            "query": text,
            "labels": [label("label-q4-1", text, "moon", "")],
            "documents": ranked("moon", "apollo"),
            "answers": [no_answer(0.6), answer("Neil Armstrong", ["apollo"], 0.3)],
            "answers_isolated": [no_answer(0.7)],
        }
    )

    # q5: the retriever returned nothing (placeholder document row); integrated reader predicts
    # no answer; label filters {} (an empty dict, distinct from None).
    text = "How tall is Mount Everest?"
    q.append(
        {
            "note": "retriever returned nothing (placeholder row); integrated reader predicts no answer; filters {}",
            "query": text,
            "labels": [label("label-q5-1", text, "everest", "8,848.86 metres", filters={})],
            "documents": [],
            "answers": [no_answer(0.5)],
            "answers_isolated": [
                answer("8,848.86 metres", ["everest"], 0.9),
                answer("2020", ["everest"], 0.1),
            ],
        }
    )

    # q6: duplicate document in the ranking; a duplicate label (same content, other id -> dropped by
    # MultiLabel); the isolated reader returned nothing (Haystack's placeholder answer has
    # document_ids None).
    text = "Who created the Python programming language?"
    q.append(
        {
            "note": (
                "duplicate document in the ranking (map and ndcg > 1); duplicate label dropped by MultiLabel; "
                "isolated reader returned nothing (placeholder answer, document_ids None)"
            ),
            "query": text,
            "labels": [
                label("label-q6-1", text, "python", "Guido van Rossum"),
                label("label-q6-1-duplicate", text, "python", "Guido van Rossum"),
            ],
            "documents": ranked("python", "python", "shakespeare"),
            "answers": [
                answer("Guido", ["python"], 0.7),
                answer("Guido van Rossum", ["python"], 0.65),
            ],
            "answers_isolated": [],
        }
    )

    # q7: a passage overlapping half of the gold passage (boost lifts it above 65) at rank 1 and one
    # overlapping a third (boosted but below 65) at rank 4; gold doc at rank 3.
    text = "Where does the Rhine flow into the sea?"
    q.append(
        {
            "note": (
                "passage overlapping half of the gold passage (boost lifts 64.4 to 80.9) at rank 1, "
                "one overlapping a third (48.1 boosted to 62.8) at rank 4; "
                "gold doc at rank 3"
            ),
            "query": text,
            "labels": [label("label-q7-1", text, "rhine", "North Sea")],
            "documents": ranked("rhine_overlap", "photosynthesis", "rhine", "rhine_third"),
            "answers": [
                answer("the North Sea", ["rhine_overlap"], 0.8),
                answer("the Netherlands", ["rhine"], 0.4),
            ],
            "answers_isolated": [answer("North Sea", ["rhine"], 0.9)],
        }
    )

    # q8: a label with answer=None listed first (it contributes a gold document id and context but no
    # gold answer, so the gold lists have different lengths and Haystack pairs the gold answer with
    # the first label's document/context); content-hash document ids; a passage whose second half
    # repeats the first half of the gold passage (right-cut boost); no answer survives
    # simulated_top_k_retriever=1 or 2; filters with two keys (sorted by json.dumps).
    # Every answer here comes from a gold document with its full content as context: with unequal
    # gold lists Haystack's scoped max() loses its sentinel and raises "max() arg is an empty
    # sequence" for an answer matching neither gold document nor gold context.
    text = "What is the population of Paris?"
    f = {"year": 2023, "name": ["b"]}
    q.append(
        {
            "note": (
                "label with answer=None first (gold lists of different lengths, mispaired scopes); content-hash ids; "
                "right-cut boost passage; no answer within simulated_top_k_retriever 1 or 2; two-key filters"
            ),
            "query": text,
            "labels": [
                label("label-q8-1", text, "paris_landmarks", None, filters=f, correct_answer=False),
                label("label-q8-2", text, "paris", "2,102,650", filters=f),
            ],
            "documents": ranked("shakespeare", "paris_overlap", "paris", "paris_landmarks"),
            "answers": [
                answer("2,102,650 residents", ["paris"], 0.7),
                answer("Eiffel Tower", ["paris_landmarks"], 0.6),
            ],
            "answers_isolated": [answer("2,102,650", ["paris"], 0.9)],
        }
    )
    return q


# ---------------------------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------------------------


def clean(obj):
    """Make obj JSON-safe: numpy -> Python, NaN -> None, bytes -> str, dataclasses -> dicts."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, bytes):
        return obj.decode("utf-8")
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [clean(v) for v in obj.tolist()]
    if isinstance(obj, pd.DataFrame):
        return clean(obj.to_dict(orient="records"))
    if dataclasses.is_dataclass(obj):
        return clean(dataclasses.asdict(obj))
    if obj is pd.NA:
        return None
    raise TypeError(f"cannot serialise {type(obj)}: {obj!r}")


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(clean(data), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")


def write_json_records(path: Path, head: dict, key: str, records: list) -> None:
    """Like write_json, but the list under `key` is written one compact record per line."""
    head_text = json.dumps(clean(head), indent=1, ensure_ascii=False, allow_nan=False)
    lines = [json.dumps(clean(r), ensure_ascii=False, allow_nan=False) for r in records]
    body = "[\n" + ",\n".join("  " + line for line in lines) + "\n ]"
    text = head_text[:-2] + f',\n "{key}": {body}\n}}\n'
    json.loads(text)  # well-formed
    path.write_text(text, encoding="utf-8")


def err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------------------------


def build(queries: list) -> EvaluationResult:
    """Mirror Pipeline.eval(): one _build_eval_dataframe call per query and node, append, reorder."""
    pipeline = Pipeline()
    result = EvaluationResult()
    for q in queries:
        multilabel = MultiLabel(labels=q["labels"])
        node_outputs = {
            "Retriever": {"documents": q["documents"]},
            "Reader": {"answers": q["answers"], "answers_isolated": q["answers_isolated"]},
        }
        for node in NODES:
            df = pipeline._build_eval_dataframe(
                queries=[q["query"]],
                query_labels_per_query=[multilabel],
                node_name=node,
                node_output=node_outputs[node],
                **BUILD_PARAMS,
            )
            result.append(node, df)
    return pipeline._reorder_columns_in_eval_result(eval_result=result)


def inputs_json(queries: list) -> dict:
    out_queries = []
    for q in queries:
        ml = MultiLabel(labels=q["labels"])
        out_queries.append(
            {
                "query": q["query"],
                "note": q["note"],
                "multilabel_id": ml.id,
                "labels": [label.to_dict() for label in q["labels"]],
            }
        )
    return {
        "haystack_version": haystack.__version__,
        "pandas_version": pd.__version__,
        "build": (
            "Like Pipeline.eval(): for each query (in this order) and node, "
            "Pipeline()._build_eval_dataframe(queries=[query], query_labels_per_query=[MultiLabel(labels)], "
            "node_name=node, node_output=<that query's outputs of the node>, **build_eval_dataframe_params); "
            "EvaluationResult.append(node, df); then Pipeline()._reorder_columns_in_eval_result()."
        ),
        "build_eval_dataframe_params": BUILD_PARAMS,
        "queries": out_queries,
        "node_outputs": {
            "Retriever": {"documents": [[d.to_dict() for d in q["documents"]] for q in queries]},
            "Reader": {
                "answers": [[a.to_dict() for a in q["answers"]] for q in queries],
                "answers_isolated": [[a.to_dict() for a in q["answers_isolated"]] for q in queries],
            },
        },
    }


def frames_json(result: EvaluationResult) -> dict:
    return {
        "note": (
            "Frames as Haystack built them in memory (before save): df.to_dict(orient='records'), "
            "numpy -> Python, NaN -> null, bytes -> str. 'filters' cells were bytes in Haystack "
            "(json.dumps(filters, sort_keys=True).encode()); answer rows have None when the label "
            "filters are None, document rows b'null'."
        )
    } | {
        node: {
            "columns": list(result[node].columns),
            "dtypes": {c: str(t) for c, t in result[node].dtypes.items()},
            "records": result[node].to_dict(orient="records"),
        }
        for node in NODES
    }


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------


def ordered(metrics: dict) -> dict:
    return {node: metrics[node] for node in NODES if node in metrics} | {
        node: v for node, v in metrics.items() if node not in NODES
    }


def per_query(df: pd.DataFrame) -> dict:
    return {str(mid): row for mid, row in df.to_dict(orient="index").items()}


def per_query_frames(result: EvaluationResult, params: dict) -> dict:
    """The per-query frames of the private helpers calculate_metrics() uses, per node."""
    out = {}
    for node in NODES:
        node_df = result._filter_eval_mode(result[node], params["eval_mode"])
        entry = {}
        answers = node_df[node_df["type"] == "answer"]
        if len(answers) > 0:
            try:
                entry["answers"] = per_query(
                    result._build_answer_metrics_df(
                        answers.copy(),
                        simulated_top_k_reader=params["simulated_top_k_reader"],
                        simulated_top_k_retriever=params["simulated_top_k_retriever"],
                        answer_scope=params["answer_scope"],
                    )
                )
            except Exception as e:  # noqa: BLE001 - recorded as golden data
                entry["answers_error"] = err(e)
        documents = node_df[node_df["type"] == "document"]
        if len(documents) > 0:
            criterion = result._get_document_relevance_criterion(
                document_scope=params["document_scope"], answer_scope=params["answer_scope"]
            )
            entry["document_relevance_criterion"] = criterion
            try:
                entry["documents"] = per_query(
                    result._build_document_metrics_df(
                        documents.copy(),
                        simulated_top_k_retriever=params["simulated_top_k_retriever"],
                        document_relevance_criterion=criterion,
                    )
                )
            except Exception as e:  # noqa: BLE001
                entry["documents_error"] = err(e)
        out[node] = entry
    return out


def metrics_grid(result: EvaluationResult) -> list:
    records = []
    for ds, ans_scope, mode, k_ret, k_read in itertools.product(
        DOCUMENT_SCOPES, ANSWER_SCOPES, EVAL_MODES, TOP_K_RETRIEVER, TOP_K_READER
    ):
        params = {
            "document_scope": ds,
            "answer_scope": ans_scope,
            "eval_mode": mode,
            "simulated_top_k_retriever": k_ret,
            "simulated_top_k_reader": k_read,
        }
        rec = {"params": params}
        try:
            rec["metrics"] = ordered(result.calculate_metrics(**params))
        except Exception as e:  # noqa: BLE001
            rec["error"] = err(e)
        rec["per_query"] = per_query_frames(result, params)
        records.append(rec)
    return records


WRONG_EXAMPLES_SETTINGS = [
    ("Retriever", {}),
    ("Retriever", {"n": 10}),
    ("Retriever", {"n": 10, "document_metric": "mrr"}),
    ("Retriever", {"n": 10, "document_metric": "mrr", "document_scope": "document_id"}),
    ("Retriever", {"n": 10, "document_metric": "not_a_metric"}),
    ("Reader", {}),
    ("Reader", {"n": 10}),
    ("Reader", {"n": 10, "answer_metric": "exact_match"}),
    ("Reader", {"n": 10, "eval_mode": "isolated"}),
    ("Reader", {"n": 10, "simulated_top_k_retriever": 2}),
    ("Reader", {"n": 10, "answer_metric": "exact_match", "simulated_top_k_reader": 1}),
    ("Reader", {"n": 10, "answer_metric": "not_a_metric"}),
]


def wrong_examples(result: EvaluationResult) -> list:
    out = []
    for node, kwargs in WRONG_EXAMPLES_SETTINGS:
        rec = {"node": node, "kwargs": kwargs}
        try:
            rec["result"] = result.wrong_examples(node, **kwargs)
        except Exception as e:  # noqa: BLE001
            rec["error"] = err(e)
        out.append(rec)
    return out


# ---------------------------------------------------------------------------------------------
# Legacy files
# ---------------------------------------------------------------------------------------------


def legacy_frames(result: EvaluationResult) -> dict:
    """Old column names: Retriever content/gold_document_contents, Reader single document_id."""
    frames = {}
    for node in NODES:
        df = result[node].copy()
        if node == "Retriever":
            df = df.rename(columns={"context": "content", "gold_contexts": "gold_document_contents"})
        else:
            pos = list(df.columns).index("document_ids")
            single = [ids[0] if isinstance(ids, list) and len(ids) > 0 else "None" for ids in df["document_ids"]]
            df = df.drop(columns=["document_ids"])
            df.insert(pos, "document_id", single)
        if "index" in df.columns:
            df = df.drop(columns=["index"])
        df.insert(0, "index", np.arange(len(df)))
        frames[node] = df
    return frames


def check_legacy_csvs(result_dir: Path, legacy_dir: Path) -> None:
    """Cells of the legacy CSVs equal the saved ones except for the intended changes."""
    renames = {"content": "context", "gold_document_contents": "gold_contexts"}
    for node in NODES:
        with open(result_dir / f"{node}.csv", newline="", encoding="utf-8") as fh:
            orig = list(csv.reader(fh))
        with open(legacy_dir / f"{node}.csv", newline="", encoding="utf-8") as fh:
            leg = list(csv.reader(fh))
        assert len(orig) == len(leg), node
        o_idx = {c: i for i, c in enumerate(orig[0])}
        for col_i, col in enumerate(leg[0]):
            if col == "index" or (node == "Reader" and col == "document_id"):
                continue  # the intended changes
            src = renames.get(col, col)
            for r in range(1, len(leg)):
                assert leg[r][col_i] == orig[r][o_idx[src]], (node, col, r)


# ---------------------------------------------------------------------------------------------

README = """\
# Golden data from Haystack 1.x (farm-haystack {version})

Generated by `scripts/make_haystack1_golden.py`; do not edit by hand. To regenerate (from the repository root):

    benchmarks/setup_haystack1.sh         # once: creates /tmp/haystack1
    HAYSTACK_TELEMETRY_ENABLED=False /tmp/haystack1/bin/python scripts/make_haystack1_golden.py

Eight hand-made queries (each query's `note` in `inputs.json` names the edge cases it covers), two nodes:
`Retriever` (documents, integrated only) and `Reader` (answers, integrated and isolated). The frames are
built like `Pipeline.eval()` does: `Pipeline()._build_eval_dataframe(...)` once per query and node,
`EvaluationResult.append`, `Pipeline()._reorder_columns_in_eval_result`. No model is run.

| file | content |
|---|---|
| `inputs.json` | labels (`Label.to_dict()`), node outputs per query (`Document.to_dict()`, `Answer.to_dict()`), `_build_eval_dataframe` parameters |
| `frames.json` | the frames in memory before saving: column names in order, dtypes, records |
| `result/` | `EvaluationResult.save()` of those frames |
| `metrics.json` | `calculate_metrics(**params)` of `EvaluationResult.load("result/")` for all {n_combos} parameter combinations, with Haystack's per-query frames (`_build_document_metrics_df` / `_build_answer_metrics_df`) as {{multilabel_id: {{metric: value}}}}; a call that raised is recorded as `"error"` |
| `wrong_examples.json` | `wrong_examples(node, **kwargs)` of the loaded result for a few settings |
| `legacy/` | the frames with older column names: Retriever `content` / `gold_document_contents`, Reader a single `document_id` (first id; the text `None` where there was none), and a leading `index` column 0..n-1 |
| `legacy_metrics.json` | `calculate_metrics()` (defaults) of `EvaluationResult.load("legacy/")` |

The `index` column: Haystack 1.26's `Pipeline._build_eval_dataframe` ends with
`pd.concat(partial_dfs, ignore_index=True).reset_index()` (deepset-ai/haystack PR #2398, April 2022, meant to
keep index values equal across save/load), which turns the row index into an ordinary column named `index` that
`save()` (`index=False`) then writes like any other column: in `result/` it is the last column (because
`_reorder_columns_in_eval_result` appends columns it does not know) and restarts at 0 for every query (because
`Pipeline.eval` calls `_build_eval_dataframe` once per query), while the raw `_build_eval_dataframe` output, and
so any file saved without that reordering, has it as the leading column, as `legacy/` imitates;
`EvaluationResult.load` keeps it as a plain column.

Other things to know when comparing:
- `filters` is bytes in Haystack (`json.dumps(filters, sort_keys=True).encode()`): answer rows hold None when the
  labels' filters are None (an empty CSV cell), document rows hold `b'null'`; the CSV cells are bytes literals such
  as `b'{{"name": ["a"]}}'`. JSON files show them decoded.
- `rank` is float64 in Haystack's frames (written `1.0`): each call also appends empty frames for the output type
  the node does not have, and concatenating them upcasts the integer column.
- The placeholder answer for an empty answer list has `document_ids` None (empty CSV cell), so every
  `simulated_top_k_retriever != -1` call in isolated mode raises `TypeError` (query q6); the placeholder document
  has id and content `""`, which load back as None.
- Queries left without answers by `simulated_top_k_retriever` get NaN (null) and drop out of Haystack's mean.
- A duplicate document in a ranking is counted twice as relevant but once in `num_relevants`: map 2.0, ndcg > 1 (q6).
- `wrong_examples` sorts with pandas' default (unstable) sort, so ties are not in first-appearance order; an
  unknown metric name raises `KeyError` in `sort_values` (it is not logged-and-skipped).

Headline numbers (defaults, integrated): {headline}
"""  # noqa: E501 - table rows of the generated README


def headline(grid: list) -> str:
    defaults = {
        "document_scope": "document_id_or_answer",
        "answer_scope": "any",
        "eval_mode": "integrated",
        "simulated_top_k_retriever": -1,
        "simulated_top_k_reader": -1,
    }
    rec = next(r for r in grid if r["params"] == defaults)
    ret, rea = rec["metrics"]["Retriever"], rec["metrics"]["Reader"]
    return (
        f"Retriever recall_single_hit {ret['recall_single_hit']!r}, recall_multi_hit {ret['recall_multi_hit']!r}, "
        f"mrr {ret['mrr']!r}, map {ret['map']!r}, ndcg {ret['ndcg']!r}, precision {ret['precision']!r}; "
        f"Reader exact_match {rea['exact_match']!r}, f1 {rea['f1']!r}, num_examples_for_eval "
        f"{rea['num_examples_for_eval']!r}."
    )


def main() -> int:
    queries = make_queries()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)

    write_json(OUT / "inputs.json", inputs_json(queries))

    result = build(queries)
    write_json(OUT / "frames.json", frames_json(result))
    result.save(OUT / "result")

    loaded = EvaluationResult.load(OUT / "result")
    columns_before = {node: list(loaded[node].columns) for node in NODES}
    grid = metrics_grid(loaded)
    write_json_records(
        OUT / "metrics.json",
        {
            "source": "EvaluationResult.load('result/').calculate_metrics(**params)",
            "per_query_source": (
                "per node, on the rows of eval_mode: _build_answer_metrics_df(answers, simulated_top_k_reader, "
                "simulated_top_k_retriever, answer_scope) and _build_document_metrics_df(documents, "
                "simulated_top_k_retriever, document_relevance_criterion) with document_relevance_criterion = "
                "_get_document_relevance_criterion(document_scope, answer_scope); NaN written as null"
            ),
            "grid": {
                "document_scope": DOCUMENT_SCOPES,
                "answer_scope": ANSWER_SCOPES,
                "eval_mode": EVAL_MODES,
                "simulated_top_k_retriever": TOP_K_RETRIEVER,
                "simulated_top_k_reader": TOP_K_READER,
            },
        },
        "results",
        grid,
    )
    write_json(OUT / "wrong_examples.json", {"source": "EvaluationResult.load('result/')", "calls": wrong_examples(loaded)})
    for node in NODES:  # the helpers must not have mutated the loaded frames
        assert list(loaded[node].columns) == columns_before[node], node

    legacy = EvaluationResult(legacy_frames(result))
    legacy.save(OUT / "legacy")
    check_legacy_csvs(OUT / "result", OUT / "legacy")
    legacy_loaded = EvaluationResult.load(OUT / "legacy")
    write_json(
        OUT / "legacy_metrics.json",
        {
            "source": "EvaluationResult.load('legacy/').calculate_metrics()",
            "params": {},
            "metrics": ordered(legacy_loaded.calculate_metrics()),
            "columns_after_load": {node: list(legacy_loaded[node].columns) for node in NODES},
        },
    )
    (OUT / "README.md").write_text(
        README.format(version=haystack.__version__, n_combos=len(grid), headline=headline(grid)), encoding="utf-8"
    )
    print(f"wrote golden data to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
