"""Write the RAG example of docs/rag.md: two Ragas evaluation datasets of one support bot, ``python scripts/make_rag_example.py``.

``docs/examples/rag/bm25.jsonl`` and ``docs/examples/rag/hybrid.jsonl`` hold the same 200 support questions (20 of
them unanswerable: no reference, no reference context) answered by two pipelines: a top-5 BM25 retriever and a
top-10 hybrid one, each followed by a generator. Each line is a Ragas ``SingleTurnSample`` as ``EvaluationDataset``
writes it (``user_input``, ``retrieved_contexts``, ``retrieved_context_ids``, ``reference_contexts``,
``reference_context_ids``, ``response``, ``reference``) plus the columns an evaluation adds: the LLM judge's
``faithfulness`` and ``answer_relevancy`` (numbers in [0, 1], as Ragas' metrics give), the pipeline's
``latency_ms`` and the question's ``topic``.

The data is synthetic and seeded (``random.Random(28)``), so the files are the same on every run; nothing here is
measured from a real pipeline. Some of the knowledge base's chunks are FAQ digests that repeat the answers of other
articles: the default ``document_scope`` credits them (the answer string is in the chunk), ``document_id`` does not.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "docs" / "examples" / "rag"
TOPICS = ("billing", "account", "shipping", "returns", "api")
FACTS = {
    "billing": ["on the 1st of each month", "by credit card or SEPA transfer", "a 2% late fee", "in euros",
                "from the Invoices page", "within 3 business days", "as a PDF", "for 10 years"],
    "account": ["from Settings > Security", "after 5 failed attempts", "with an authenticator app", "up to 20 seats",
                "by the account owner", "within 24 hours", "in 12 languages", "after 90 days of inactivity"],
    "shipping": ["in 2 to 4 business days", "to 38 countries", "free above 50 euros", "with DHL or UPS",
                 "from our Leipzig warehouse", "by 2 pm", "with a tracking link", "on Saturdays too"],
    "returns": ["within 30 days", "with the prepaid label", "in the original packaging", "within 5 business days",
                "except for gift cards", "to the original payment method", "from the Orders page", "for free"],
    "api": ["1,000 requests per minute", "with a bearer token", "in JSON", "for 12 months",
            "from the developer console", "with HTTP 429", "in UTC", "up to 100 items per page"],
}
QUESTION = {
    "billing": ["When am I charged?", "How can I pay?", "What happens if I pay late?", "Which currency do you bill in?",
                "Where do I download invoices?", "How fast are refunds booked?", "In which format are invoices?",
                "How long do you keep invoices?"],
    "account": ["Where do I change my password?", "When is my account locked?", "How do I set up two-factor login?",
                "How many users can a team have?", "Who can delete the account?", "How fast is a data export ready?",
                "In how many languages is the app?", "When are unused accounts closed?"],
    "shipping": ["How long does delivery take?", "Where do you ship to?", "When is shipping free?",
                 "Which carriers do you use?", "Where do parcels ship from?", "What is the same-day cut-off?",
                 "Can I track my parcel?", "Do you deliver at weekends?"],
    "returns": ["How long do I have to return an item?", "How do I send a return?", "How must returns be packed?",
                "How fast is a return refunded?", "What cannot be returned?", "Where does the refund go?",
                "Where do I start a return?", "What does a return cost?"],
    "api": ["What is the API rate limit?", "How do I authenticate API calls?", "Which format does the API return?",
            "How long are API keys valid?", "Where do I create API keys?", "What does the API answer when throttled?",
            "Which time zone do API timestamps use?", "How big can an API page be?"],
}
UNANSWERABLE = ["Do you sell hardware in Japan?", "Can I pay with cryptocurrency at the kiosk?",
                "Who was your first customer?", "Is there a student discount for the API?",
                "Can I change the colour of the invoice PDF?", "Do you ship to Antarctica?",
                "What is the CEO's phone number?", "Can I return food items bought in store?",
                "Does the app run on a smartwatch?", "Will prices drop next year?"]


def knowledge_base() -> dict[str, str]:
    """One article per fact (``doc-<topic>-<n>``) and one FAQ digest per topic that repeats four facts."""
    chunks = {}
    for topic in TOPICS:
        for n, (question, fact) in enumerate(zip(QUESTION[topic], FACTS[topic])):
            chunks[f"doc-{topic}-{n}"] = f"{question.rstrip('?')}: {fact}. See the {topic} help centre for details."
        digest = "; ".join(FACTS[topic][::2])
        chunks[f"faq-{topic}"] = f"Frequently asked {topic} questions, in short: {digest}."
    return chunks


def ranked(rng: random.Random, gold: str | None, depth: int, found: float, chunks: list[str]) -> list[str]:
    """``depth`` chunk ids; the gold chunk among them with probability ``found``, nearer the top the likelier."""
    others = [c for c in chunks if c != gold]
    rng.shuffle(others)
    ids = others[:depth]
    if gold is not None and rng.random() < found:
        rank = min(int(rng.expovariate(0.7)), depth - 1)
        ids = ids[:rank] + [gold] + ids[rank:depth - 1]
    return ids


def rows(system: str) -> list[dict[str, object]]:
    """The 200 samples of one system (``"bm25"``: top 5, ``"hybrid"``: top 10), in one fixed question order."""
    chunks = knowledge_base()
    ids = sorted(chunks)
    questions = [(topic, n) for topic in TOPICS for n in range(8)] * 5  # 200 draws, 180 kept answerable
    order = random.Random(28)
    order.shuffle(questions)
    plan = [(topic, n) for topic, n in questions[:180]] + [(None, i) for i in range(20)]
    random.Random(7).shuffle(plan)
    rng = random.Random(f"{system}-28")
    depth, found = (5, 0.78) if system == "bm25" else (10, 0.9)
    out = []
    asked: dict[tuple[str, int], int] = {}  # how often a question came up: each time in other words
    for topic, n in plan:
        if topic is None:
            question, gold, fact = UNANSWERABLE[n % len(UNANSWERABLE)], None, ""
            if n >= len(UNANSWERABLE):
                question = question.replace("?", " at all?")
            topic_label = rng.choice(TOPICS)
        else:
            question, gold, fact = QUESTION[topic][n], f"doc-{topic}-{n}", FACTS[topic][n]
            times = asked[topic, n] = asked.get((topic, n), 0) + 1
            question = ("", "Quick question: ", "Hi! ", "Please tell me: ", "Hello, ")[times - 1] + question
            topic_label = topic
        retrieved = ranked(rng, gold, depth, found, ids)
        hit = gold in retrieved[:3]
        if gold is None:
            response = "I could not find this in our help centre." if rng.random() < 0.7 else "Yes, that is possible."
        elif hit or rng.random() < 0.2:
            response = f"It is {fact}." if rng.random() < 0.5 else fact
        else:
            response = f"It is {rng.choice(FACTS[topic])}."
        grounded = gold in retrieved
        faithfulness = round(min(1.0, max(0.0, rng.gauss(0.85 if grounded else 0.45, 0.12))), 3)
        relevancy = round(min(1.0, max(0.0, rng.gauss(0.8 if hit or gold is None else 0.55, 0.1))), 3)
        latency = round(rng.gauss(420 if system == "bm25" else 610, 60), 1)
        out.append({
            "user_input": question,
            "retrieved_contexts": [chunks[i] for i in retrieved],
            "retrieved_context_ids": retrieved,
            "reference_contexts": [] if gold is None else [chunks[gold]],
            "reference_context_ids": [] if gold is None else [gold],
            "response": response,
            "reference": fact,
            "faithfulness": faithfulness,
            "answer_relevancy": relevancy,
            "latency_ms": latency,
            "topic": topic_label,
        })
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for system in ("bm25", "hybrid"):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows(system))
        (OUT / f"{system}.jsonl").write_text(text, encoding="utf-8")
        print(f"wrote {OUT / f'{system}.jsonl'} ({len(text):,} bytes)")


if __name__ == "__main__":
    main()
