"""Hand-built payloads in the contract's shapes (GRID PAYLOAD, DETAIL PAYLOAD of docs/compare-report.md), for the
page's script tested apart from the model that builds them. Five queries of one node, two runs (the second's name
hostile), three measures:

====  =====  ==================  =====  ============  ===============  ============
i     id     query               topic  mrr A, B      latency A, B     hits A, B
====  =====  ==================  =====  ============  ===============  ============
0     q1     where is g1?        x      1, 0.5        100, 120         2, 1
1     q2     where is g2?        x      0.5, 1        200, 150         1, 1
2     q3     What about G3?      y      1, 1          -, 90            1, 3
3     q4     HOSTILE             y      0, 1          50, 80           0, 2
4     q5     ""                  ""     -, -          60, 60           -, -
====  =====  ==================  =====  ============  ===============  ============

mrr is higher-better (sign 1), latency lower-better (-1), hits a count (0: no direction). Gains (sign x (B - A)):
mrr q1 -0.5, q2 +0.5, q3 0, q4 +1, q5 NaN; latency q1 -20, q2 +50, q3 NaN, q4 -30, q5 0; hits always 0 or NaN.
The grid's row i is the Detail's row 4 - i (the mapping is tested).
"""

from __future__ import annotations

HOSTILE = "</script><img src=x onerror=alert(1)> \"'><svg onload=alert(2)> \u202eevil"
RUNS = ["A", "B</script><img src=x onerror=alert(3)>"]
IDS = ["q1", "q2", "q3", "q4", "q5"]
QUERIES = ["where is g1?", "where is g2?", "What about G3?", HOSTILE, ""]
TOPICS = ["x", "x", "y", "y", ""]
N = None
VALUES = {"mrr": [[1.0, 0.5, 1.0, 0.0, N], [0.5, 1.0, 1.0, 1.0, N]],
          "latency": [[100.0, 200.0, N, 50.0, 60.0], [120.0, 150.0, 90.0, 80.0, 60.0]],
          "hits": [[2.0, 1.0, 1.0, 0.0, N], [1.0, 1.0, 3.0, 2.0, N]]}
SIGNS = {"mrr": 1, "latency": -1, "hits": 0}
LONG_ANSWER = "word " * 60  # 300 characters: the page's cut, the whole answer 700 long
CHARACTERS = 300


def query_details() -> list[dict]:
    """Each query's DETAIL (the contract's one-query shape), in Detail row order (row 4 - i holds grid row i)."""
    details = []
    for i in range(5):
        documents_a = [{"rank": 1, "id": f"g{i + 1}", "text": f"passage g{i + 1}", "length": 10, "correct": True,
                        "marks": {"gold_id_match": 1.0}}]
        documents_b = [{"rank": 1, "id": f"x{i + 1}", "text": HOSTILE if i == 3 else f"passage x{i + 1}",
                        "length": len(HOSTILE) if i == 3 else 10, "correct": False, "marks": {"gold_id_match": 0.0}},
                       {"rank": 2, "id": f"g{i + 1}", "text": f"passage g{i + 1}", "length": 10, "correct": True,
                        "marks": {"gold_id_match": 1.0}}]
        answers_a = [{"rank": 1, "text": f"answer{i + 1}", "length": 7, "correct": True, "document_ids": [f"g{i + 1}"],
                      "marks": {"exact_match": 1.0, "f1": 1.0}}]
        answers_b = [{"rank": 1, "text": LONG_ANSWER, "length": 700, "correct": False, "document_ids": [],
                      "marks": {"exact_match": 0.0, "f1": 0.25}}]
        details.append({"row": 4 - i, "id": IDS[i], "query": QUERIES[i], "gold_answers": [f"answer{i + 1}"],
                        "gold_documents": [{"id": f"g{i + 1}", "text": f"passage g{i + 1}", "length": 10}],
                        "meta": {"topic": TOPICS[i], "note": HOSTILE} if TOPICS[i] else {},
                        "runs": [{"name": RUNS[0], "answers": answers_a, "documents": documents_a},
                                 {"name": RUNS[1], "answers": answers_b, "documents": documents_b}]})
    return sorted(details, key=lambda d: d["row"])


def detail_payload(details: list[dict], names: list[str]) -> dict:
    """The DETAIL PAYLOAD of ``details`` (row order): every string interned, lists flattened with offsets."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def s(text: str | None) -> int:
        if text is None:
            return -1
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    def flat(lists: list[list[dict]], fields) -> dict:
        out: dict = {"offsets": [0]}
        for items in lists:
            out["offsets"].append(out["offsets"][-1] + len(items))
        for name, read in fields.items():
            out[name] = [read(item) for items in lists for item in items]
        return out

    keys = sorted({key for d in details for key in d["meta"]})
    payload = {"names": names, "n": len(details), "strings": strings, "characters": CHARACTERS,
               "id": [s(d["id"]) for d in details], "query": [s(d["query"]) for d in details],
               "gold_answers": flat([[{"t": t} for t in d["gold_answers"]] for d in details], {"text": lambda x: s(x["t"])}),
               "gold_documents": flat([d["gold_documents"] for d in details],
                                      {"id": lambda x: s(x["id"]), "text": lambda x: s(x["text"]),
                                       "length": lambda x: x["length"]}),
               "meta": {"keys": keys, "values": [[s(d["meta"].get(key)) for d in details] for key in keys]}, "runs": []}
    for r in range(len(names)):
        answers = [d["runs"][r]["answers"] for d in details]
        documents = [d["runs"][r]["documents"] for d in details]
        a = flat(answers, {"rank": lambda x: x["rank"], "text": lambda x: s(x["text"]), "length": lambda x: x["length"],
                           "correct": lambda x: None if x["correct"] is None else int(x["correct"])})
        a["node"] = "Reader"
        ids = flat([item["document_ids"] for items in answers for item in items], {})
        ids["id"] = [s(x) for items in answers for item in items for x in item["document_ids"]]
        a["document_ids"] = ids
        a["marks"] = {m: [x["marks"][m] for items in answers for x in items] for m in ("exact_match", "f1")}
        docs = flat(documents, {"rank": lambda x: x["rank"], "id": lambda x: s(x["id"]), "text": lambda x: s(x["text"]),
                                "length": lambda x: x["length"],
                                "correct": lambda x: None if x["correct"] is None else int(x["correct"])})
        docs["node"] = "Retriever"
        docs["marks"] = {"gold_id_match": [x["marks"]["gold_id_match"] for items in documents for x in items]}
        payload["runs"].append({"answers": a, "documents": docs})
    return payload


def grid_payload() -> dict:
    measures = [{"metric": m, "description": f"{m} of the query", "direction": d, "values": [0.0, 0.0], "queries": 5,
                 "detectable": None, "deltas": []} for m, d in (("mrr", "higher"), ("latency", "lower"), ("hits", "none"))]
    node = {"node": "Retriever", "answer_node": False, "order_metric": "mrr", "slice_keys": ["topic"], "slice_note": "",
            "measures": measures, "slices": []}
    return {"format": "evalframe-comparison", "version": 1, "evalframe": "0",
            "summary": {"names": RUNS, "test": "randomization", "max_p": 0.05, "holm": False, "confidence": 0.95,
                        "document_scope": "document_id", "answer_scope": "any", "significance_note": "", "includes": [],
                        "notes": [], "nodes": [node]},
            "grids": [{"node": "Retriever", "n": 5, "id": IDS, "query": QUERIES, "slices": [TOPICS], "values": VALUES,
                       "signs": SIGNS, "detail": [4, 3, 2, 1, 0]}]}


def big_payloads(n: int) -> tuple[dict, dict]:
    """A grid of ``n`` queries (q1..qn, mrr i/n in A, 1 - i/n in B) and a detail payload to match."""
    grid = grid_payload()
    grid["summary"]["nodes"][0]["measures"] = grid["summary"]["nodes"][0]["measures"][:1]
    grid["summary"]["nodes"][0]["slice_keys"] = []
    ids = [f"q{i + 1}" for i in range(n)]
    grid["grids"] = [{"node": "Retriever", "n": n, "id": ids, "query": [f"question {i + 1}" for i in range(n)],
                      "slices": [], "values": {"mrr": [[i / n for i in range(n)], [1 - i / n for i in range(n)]]},
                      "signs": {"mrr": 1}, "detail": list(range(n))}]
    details = [{"row": i, "id": ids[i], "query": f"question {i + 1}", "gold_answers": [], "gold_documents": [], "meta": {},
                "runs": [{"name": name, "answers": [], "documents": []} for name in RUNS]} for i in range(n)]
    return grid, detail_payload(details, RUNS)
