"""Regenerate evalframe/data/demo/runs.jsonl and runs_top5.jsonl: ``python scripts/make_demo_runs.py``.

A small, team-written corpus (a passage about each country and one about its capital city), ~100
questions with gold labels (capital questions have two gold passages; a few questions have no answer),
a real BM25 retriever (top 3) over the corpus and a simple extractive reader (it scores capitalised spans of the
retrieved passages by the question words around them). Integrated: the reader reads the retriever's top 3;
isolated: it reads the gold passages. ``runs_top5.jsonl`` is a second run of the same pipeline with the
retriever's top 5, for comparing runs. Deterministic: no randomness, no model.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "evalframe" / "data" / "demo"
RUNS = {3: FOLDER / "runs.jsonl", 5: FOLDER / "runs_top5.jsonl"}  # retriever top-k -> file

# country, capital, continent, currency, river through the capital
FACTS = [
    ("France", "Paris", "Europe", "euro", "Seine"),
    ("Germany", "Berlin", "Europe", "euro", "Spree"),
    ("the United Kingdom", "London", "Europe", "pound sterling", "Thames"),
    ("Italy", "Rome", "Europe", "euro", "Tiber"),
    ("Portugal", "Lisbon", "Europe", "euro", "Tagus"),
    ("Austria", "Vienna", "Europe", "euro", "Danube"),
    ("Hungary", "Budapest", "Europe", "forint", "Danube"),
    ("the Czech Republic", "Prague", "Europe", "Czech koruna", "Vltava"),
    ("Poland", "Warsaw", "Europe", "zloty", "Vistula"),
    ("Russia", "Moscow", "Europe", "ruble", "Moskva"),
    ("Ireland", "Dublin", "Europe", "euro", "Liffey"),
    ("Serbia", "Belgrade", "Europe", "Serbian dinar", "Sava"),
    ("Slovakia", "Bratislava", "Europe", "euro", "Danube"),
    ("Switzerland", "Bern", "Europe", "Swiss franc", "Aare"),
    ("Belgium", "Brussels", "Europe", "euro", "Senne"),
    ("the Netherlands", "Amsterdam", "Europe", "euro", "Amstel"),
    ("Ukraine", "Kyiv", "Europe", "hryvnia", "Dnieper"),
    ("Latvia", "Riga", "Europe", "euro", "Daugava"),
    ("Lithuania", "Vilnius", "Europe", "euro", "Neris"),
    ("Georgia", "Tbilisi", "Asia", "lari", "Kura"),
    ("Egypt", "Cairo", "Africa", "Egyptian pound", "Nile"),
    ("Sudan", "Khartoum", "Africa", "Sudanese pound", "Nile"),
    ("Mali", "Bamako", "Africa", "CFA franc", "Niger"),
    ("Iraq", "Baghdad", "Asia", "Iraqi dinar", "Tigris"),
    ("Japan", "Tokyo", "Asia", "yen", "Sumida"),
    ("Thailand", "Bangkok", "Asia", "baht", "Chao Phraya"),
    ("Vietnam", "Hanoi", "Asia", "dong", "Red River"),
    ("Cambodia", "Phnom Penh", "Asia", "riel", "Mekong"),
    ("Canada", "Ottawa", "North America", "Canadian dollar", "Ottawa River"),
    ("the United States", "Washington, D.C.", "North America", "United States dollar", "Potomac"),
    ("Paraguay", "Asuncion", "South America", "guarani", "Paraguay River"),
    ("Australia", "Canberra", "Oceania", "Australian dollar", "Molonglo"),
]

NO_ANSWER = [
    "What is the capital of Atlantis?",
    "Which currency is used on the Moon?",
    "Which river flows through the capital of Narnia?",
    "Who won the football world cup in 2050?",
    "What is the population of El Dorado?",
    "Which language is spoken in Wakanda?",
]


def country_slug(country: str) -> str:
    return re.sub(r"[^a-z]+", "-", country.lower().removeprefix("the ")).strip("-")


def corpus() -> list[dict]:
    documents = []
    for country, capital, continent, currency, river in FACTS:
        name = country[0].upper() + country[1:]
        documents.append({
            "id": f"country-{country_slug(country)}",
            "content": f"{name} is a country in {continent}. Its capital is {capital}, and the currency used in "
                       f"{country} is the {currency}. Travellers exchange money for the {currency} at banks and "
                       f"airports across the country.",
        })
        documents.append({
            "id": f"city-{country_slug(country)}",
            "content": f"{capital} is the capital city of {country}. The {river} flows through {capital}, and its "
                       f"old town, bridges and museums along the {river} attract visitors from all over {continent}.",
        })
    return documents


def questions() -> list[dict]:
    out = []
    for number, (country, capital, _, currency, river) in enumerate(FACTS):
        slug = country_slug(country)
        country_doc, city_doc = f"country-{slug}", f"city-{slug}"
        out.append({"query": f"What is the capital of {country}?", "gold": [(country_doc, capital), (city_doc, capital)]})
        out.append({"query": f"Which currency is used in {country}?", "gold": [(country_doc, currency)]})
        out.append({"query": f"Which river flows through {capital}?", "gold": [(city_doc, river)]})
        if number % 3 == 0:  # a two-step question for every third country: the gold is the city passage
            out.append({"query": f"Which river flows through the capital of {country}?", "gold": [(city_doc, river)]})
    for query in NO_ANSWER:
        out.append({"query": query, "gold": [("country-france", "")]})
    return out


WORD = re.compile(r"[a-z0-9]+")
STOP = set("the a an of is in which what who what's to and its at for from on by with through used are was".split())


def tokens(text: str) -> list[str]:
    return [t for t in WORD.findall(text.lower()) if t not in STOP]


class BM25:
    def __init__(self, documents: list[dict], k1: float = 1.5, b: float = 0.75) -> None:
        self.documents = documents
        self.terms = [Counter(tokens(d["content"])) for d in documents]
        self.lengths = [sum(t.values()) for t in self.terms]
        self.average = sum(self.lengths) / len(self.lengths)
        frequency = Counter(term for t in self.terms for term in t)
        n = len(documents)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in frequency.items()}
        self.k1, self.b = k1, b

    def search(self, query: str, top_k: int) -> list[tuple[dict, float]]:
        words = tokens(query)
        scores = []
        for doc, terms, length in zip(self.documents, self.terms, self.lengths):
            score = 0.0
            for word in words:
                if word in terms:
                    tf = terms[word]
                    score += self.idf[word] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / self.average))
            scores.append((doc, score))
        scores.sort(key=lambda pair: -pair[1])
        return scores[:top_k]


SPAN = re.compile(r"(?:[A-Z][a-zA-Z]+(?:(?: |, )(?:[A-Z][a-zA-Z]+|D\.C\.))*)"
                  r"|(?:[a-z]+ (?:franc|dollar|pound|dinar|koruna|sterling))"
                  r"|(?:euro|yen|baht|riel|dong|lari|forint|zloty|ruble|hryvnia|guarani)")


def read(query: str, documents: list[tuple[dict, float]], top_k: int = 3) -> list[dict]:
    """Score candidate spans: question words within 60 characters around the span, plus the retrieval score."""
    words = set(tokens(query))
    candidates = []
    for doc, retrieval in documents:
        text = doc["content"]
        for match in SPAN.finditer(text):
            span = match.group(0).rstrip(" ,.")
            if not span or set(tokens(span)) & words or span.split()[0] in {"Its", "Travellers", "The"}:
                continue
            window = tokens(text[max(0, match.start() - 60): match.start()] + " " + text[match.end(): match.end() + 60])
            score = sum(1 for w in window if w in words) + 0.3 * retrieval
            start = match.start()
            candidates.append({"answer": span, "score": round(score, 4), "context": text, "document_ids": [doc["id"]],
                               "offsets_in_document": [{"start": start, "end": start + len(span)}],
                               "offsets_in_context": [{"start": start, "end": start + len(span)}]})
    candidates.sort(key=lambda c: -c["score"])
    seen, answers = set(), []
    for candidate in candidates:
        if candidate["answer"] not in seen:
            seen.add(candidate["answer"])
            answers.append(candidate)
        if len(answers) == top_k:
            break
    return answers


def run(documents: list[dict], top_k: int) -> list[dict]:
    by_id = {d["id"]: d for d in documents}
    bm25 = BM25(documents)
    lines = []
    for question in questions():
        retrieved = bm25.search(question["query"], top_k=top_k)
        gold_docs = [(by_id[doc_id], 1.0) for doc_id, answer in question["gold"] if answer]
        lines.append({
            "query": question["query"],
            "gold": {
                "document_ids": [doc_id for doc_id, _ in question["gold"]],
                "contexts": [by_id[doc_id]["content"] for doc_id, _ in question["gold"]],
                "answers": [answer for _, answer in question["gold"]],
            },
            "nodes": {
                "Retriever": {"documents": [{**doc, "score": round(score, 4)} for doc, score in retrieved]},
                "Reader": {"answers": read(question["query"], retrieved),
                           "answers_isolated": read(question["query"], gold_docs)},
            },
        })
    return lines


def main() -> None:
    documents = corpus()
    FOLDER.mkdir(parents=True, exist_ok=True)
    for top_k, path in RUNS.items():
        lines = run(documents, top_k)
        with path.open("w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        print(f"wrote {len(lines)} questions over {len(documents)} passages (retriever top {top_k}) to {path}")


if __name__ == "__main__":
    main()
