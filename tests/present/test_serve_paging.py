"""evalframe serve's paging (present/serve/paging.py) on a hand-made grid of six queries (tests/present/serve_fixtures.py):
every expected row list below is worked out by hand from the fixture's values and the contract's rules."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from evalframe.errors import InvalidParameterError
from evalframe.present.serve.paging import CACHED_ORDERS, MAX_LIMIT, Pager, View, view_from_query
from tests.present.serve_fixtures import NAN, grid_of, six


def shown(view: View, grid=None) -> list[int]:
    return [row["i"] for row in Pager(grid or six()).page(view, 0, 100)["rows"]]


# mrr gains (b - a): q0 -0.5, q1 +1, q2 NaN, q3 -0.5, q4 NaN, q5 +0.5
# latency (lower is better) gains -(b - a): q0 +1, q1 -2, q2 NaN, q3 0, q4 0, q5 +2; count: no direction (0)
@pytest.mark.parametrize("sort, descending, expected", [
    ("", False, [0, 1, 2, 3, 4, 5]),
    ("rank", True, [5, 4, 3, 2, 1, 0]),
    ("gain:mrr", False, [0, 3, 5, 1, 2, 4]),  # the tie q0 / q3 (-0.5) kept in the grid's order, NaN last
    ("gain:mrr", True, [1, 5, 0, 3, 2, 4]),  # descending: the tie still q0 before q3, NaN still last
    ("gain:latency", False, [1, 3, 4, 0, 5, 2]),
    ("value:mrr:1", False, [3, 0, 5, 1, 2, 4]),
    ("value:mrr:1", True, [1, 0, 5, 3, 2, 4]),
    ("value:mrr:0", False, [1, 5, 2, 3, 0, 4]),
    ("delta:latency:1", False, [5, 0, 3, 4, 1, 2]),
    ("query", False, [5, 1, 0, 3, 4, 2]),  # lower-cased: auto, fire policy, flood claim, flood deductible, premium; "" last
    ("query", True, [4, 3, 0, 1, 5, 2]),
    ("slice:0", False, [0, 2, 5, 1, 4, 3]),  # auto, home, then the empty label last
    ("slice:0", True, [1, 4, 0, 2, 5, 3]),
])
def test_sort_keys_nan_last_and_ties_stable(sort, descending, expected):
    assert shown(View(sort=sort, descending=descending)) == expected


@pytest.mark.parametrize("view, expected", [
    (View(text="flood"), [0, 3, 5]),  # two queries, and the id FLOOD-5: case-insensitive, query or id
    (View(text="POLICY"), [1]),
    (View(text="Fire policy"), [1]),
    (View(text="nothing here"), []),
    (View(slices=(("topic", "auto"),)), [0, 2, 5]),
    (View(slices=(("topic", ""),)), [3]),  # the empty label is a label
    (View(measure="mrr"), [0, 1, 2, 3, 5]),  # q4 is scored by no run
    (View(measure="latency"), [0, 1, 3, 4, 5]),
    (View(show="worse"), [0, 1, 3]),  # mrr drops q0, q3; latency rises q1; count has no direction
    (View(show="better"), [0, 1, 5]),
    (View(show="changed"), [0, 1, 3, 5]),
    (View(show="worse", measure="latency"), [1]),
    (View(show="better", measure="mrr"), [1, 5]),
    (View(show="changed", measure="count"), []),
    (View(show="worse", text="flood", sort="gain:mrr"), [0, 3]),
    (View(slices=(("topic", "auto"),), sort="gain:mrr", descending=True), [5, 0, 2]),
])
def test_filters(view, expected):
    assert shown(view) == expected


def test_a_page_is_an_offset_and_a_limit_of_the_sorted_rows_in_the_contract_shape():
    page = Pager(six()).page(View(sort="gain:mrr"), 1, 2)
    assert page["total"] == 6
    assert page["rows"] == [
        {"i": 3, "id": "q3", "query": "Flood deductible", "slices": [""],
         "values": {"mrr": [0.5, 0.0], "latency": [1.0, 1.0], "count": [None, 1.0]}},
        {"i": 5, "id": "FLOOD-5", "query": "auto", "slices": ["auto"],
         "values": {"mrr": [0.0, 0.5], "latency": [3.0, 1.0], "count": [0.0, 0.0]}}]
    assert Pager(six()).page(View(), 10, 5) == {"total": 6, "rows": []}
    assert len(Pager(grid_of([f"q{i}" for i in range(MAX_LIMIT + 5)], [""] * (MAX_LIMIT + 5), {},
                             {"m": [[0.0, 1.0]] * (MAX_LIMIT + 5)}, {"m": 1.0})).page(View(), 0, 10**9)["rows"]) \
        == MAX_LIMIT


def test_three_runs_gain_is_the_smallest_over_the_later_runs():
    grid = grid_of(["a", "b", "c"], ["", "", ""], {},
                   {"mrr": [[0.5, 1.0, 0.0], [0.5, NAN, 0.75], [0.0, 0.0, 0.0]]}, {"mrr": 1.0})
    assert shown(View(sort="gain:mrr"), grid) == [0, 2, 1]  # -0.5, 0, 0.25
    assert shown(View(show="worse"), grid) == [0]
    assert shown(View(show="better"), grid) == [0, 1]
    assert shown(View(sort="delta:mrr:2"), grid) == [0, 2, 1]


def test_warm_computes_the_default_and_gain_orders_and_keeps_them():
    pager = Pager(six())
    pager.warm()
    assert sorted(pager._orders) == [("gain:count", False), ("gain:count", True), ("gain:latency", False),
                                     ("gain:latency", True), ("gain:mrr", False), ("gain:mrr", True),
                                     ("rank", False)]
    assert not pager._recent  # the other keys wait for a request
    first = pager.order("gain:mrr")
    assert pager.order("gain:mrr") is first
    assert np.array_equal(first, [0, 3, 5, 1, 2, 4]) and first.dtype == np.int16  # six rows: int16 holds them


def _reference(keys: list, descending: bool) -> list[int]:
    """The contract's order worked out in plain Python: the present keys by value (largest first when descending),
    ties by position, then the missing ones (None) by position."""
    present = sorted((i for i, k in enumerate(keys) if k is not None),
                     key=lambda i: ((-keys[i] if descending else keys[i]), i))
    return present + [i for i, k in enumerate(keys) if k is None]


def _many(n: int = 400):
    rng = np.random.default_rng(11)
    values = rng.choice([0.0, -0.0, 0.5, 1.0, NAN], size=(n, 3))
    labels = rng.choice(["b", "a", "", "\U0001f600", "\uff41"], size=n).tolist()
    return grid_of([f"Q{i}" for i in range(n)], rng.choice(["x", "Y", "", "y", "\u0130"], size=n).tolist(),
                   {"t": labels}, {"m": values.tolist(), "k": (values * 2).tolist()}, {"m": 1.0, "k": -1.0}), values


@pytest.mark.parametrize("cached", [CACHED_ORDERS, 1])
def test_every_order_both_ways_matches_the_rule_and_is_the_same_when_recomputed(cached):
    grid, values = _many()
    pager = Pager(grid, cached_orders=cached)

    def key(v):
        return None if v != v else float(v)

    expected = {}
    for r in range(3):
        expected[f"value:m:{r}"] = [key(v) for v in values[:, r]]
    for r in (1, 2):
        expected[f"delta:m:{r}"] = [key(v) for v in values[:, r] - values[:, 0]]
    gains = values[:, 1:] - values[:, :1]
    expected["gain:m"] = [None if np.isnan(g).all() else float(np.nanmin(g)) for g in gains]
    order16 = sorted({t for t in grid.slices["t"].tolist() if t}, key=lambda t: t.encode("utf-16-be"))
    expected["slice:0"] = [None if t == "" else order16.index(t) for t in grid.slices["t"].tolist()]
    for _ in range(2):  # the second pass: the LRU (of one order, or of the default 16) recomputes what it dropped
        for sort, keys in expected.items():
            for descending in (False, True):
                got = pager.order(sort, descending)
                assert got.tolist() == _reference(keys, descending), (sort, descending)
                assert got.dtype == np.int16
    assert len(pager._recent) <= cached
    assert set(pager._orders) <= {("rank", False), ("rank", True), ("gain:m", False), ("gain:m", True),
                                  ("gain:k", False), ("gain:k", True)}


def test_the_kept_orders_are_bounded_whatever_the_runs_and_measures():
    # 26 runs x 6 measures: 300+ sort keys; kept: the default, each gain both ways, and CACHED_ORDERS others, in int32
    n, runs = 40_000, 26
    rng = np.random.default_rng(2)
    grid = grid_of([str(i) for i in range(n)], [""] * n, {},
                   {f"m{j}": rng.random((n, runs)) for j in range(6)}, {f"m{j}": 1.0 for j in range(6)})
    pager = Pager(grid)
    pager.warm()
    for key in pager.sort_keys()[:40]:
        pager.order(key)
    kept = list(pager._orders.values()) + list(pager._recent.values())
    assert len(kept) == 1 + 2 * 6 + CACHED_ORDERS
    assert all(order.dtype == np.int32 for order in kept)
    assert sum(order.nbytes for order in kept) == len(kept) * n * 4


def test_close_stops_a_running_warm():
    pager = Pager(six())
    started, release, calls = threading.Event(), threading.Event(), []
    order = pager.order

    def slow(key, descending=False):
        calls.append((key, descending))
        started.set()
        release.wait(5)
        return order(key, descending)

    pager.order = slow  # type: ignore[method-assign]
    thread = threading.Thread(target=pager.warm)
    thread.start()
    assert started.wait(5)
    pager.close()  # while the first order (the default one) is being computed
    release.set()
    thread.join(5)
    assert not thread.is_alive() and calls == [("rank", False)]  # nothing after it
    assert pager._haystack is None  # nor the text index
    closed = Pager(six())
    closed.close()
    closed.warm()
    assert not closed._orders and closed._haystack is None


@pytest.mark.parametrize("view, match", [
    (View(sort="bogus"), r"sort must be one of \['rank', 'query'"),
    (View(sort="delta:mrr:0"), "sort must be one of"),  # the first run has no delta
    (View(sort="value:mrr:2"), "sort must be one of"),
    (View(sort="slice:1"), "sort must be one of"),
    (View(measure="mr"), r"measure must be one of \['mrr', 'latency', 'count'\]; got 'mr'. Did you mean 'mrr'"),
    (View(show="worst"), r"show must be one of \['changed', 'worse', 'better'\]; got 'worst'. Did you mean 'worse'"),
    (View(slices=(("topik", "auto"),)), r"slice must be one of \['topic'\]; got 'topik'"),
    # digits str.isdigit takes but int() does not (a 500 before), or reads as another run (Arabic-Indic 1: run 1)
    (View(sort="value:mrr:\u00b9"), r"sort must be one of .*got 'value:mrr:\u00b9'"),
    (View(sort="slice:\u00b9"), r"sort must be one of .*got 'slice:\u00b9'"),
    (View(sort="delta:mrr:\u0661"), r"sort must be one of .*got 'delta:mrr:\u0661'"),
])
def test_a_bad_view_is_refused_naming_what(view, match):
    with pytest.raises(InvalidParameterError, match=match):
        Pager(six()).page(view, 0, 10)


def test_view_from_query():
    assert view_from_query({"measure": "mrr", "sort": "gain:mrr", "desc": "1", "show": "worse", "text": "Flood",
                            "slice.topic": "auto", "slice.a b": ""}) == \
        View("mrr", "gain:mrr", True, "worse", (("topic", "auto"), ("a b", "")), "Flood")
    assert view_from_query({}) == View()
    assert len(view_from_query({"text": "x" * 5000}).text) == 1000


@pytest.mark.parametrize("needle", ["a", "ab", "zz", "q1", "Q12", "b a", "x\x00y", "é", "\x01"])
def test_the_text_filter_is_a_case_insensitive_substring_of_the_query_or_the_id(needle):
    # a common text (a test per row) and a rare one (a search over the joined rows) keep the rows a plain test keeps
    rng = np.random.default_rng(7)
    letters = np.array(list("abAB é\x01"), dtype=object)
    queries = ["".join(rng.choice(letters, size=int(rng.integers(0, 6)))) for _ in range(300)]
    ids = [f"Q{i}" for i in range(300)]
    grid = grid_of(ids, queries, {}, {"m": [[0.0, 0.0]] * 300}, {"m": 1.0})
    expected = [i for i, (q, ident) in enumerate(zip(queries, ids))
                if needle.lower() in q.lower() or needle.lower() in ident.lower()]
    page = Pager(grid).page(View(text=needle), 0, 1000)
    assert [row["i"] for row in page["rows"]] == expected and page["total"] == len(expected)
    assert needle != "a" or len(expected) * 20 > 300  # the common path is taken


@pytest.mark.parametrize("needle", ["a", "zz", "q1", "\x01"])
def test_a_text_among_few_rows_left_is_tested_on_them_alone(needle):
    rng = np.random.default_rng(3)
    letters = np.array(list("abz \x01"), dtype=object)
    queries = ["".join(rng.choice(letters, size=int(rng.integers(0, 5)))) for _ in range(200)]
    topics = ["x" if i % 10 == 0 else "y" for i in range(200)]  # 20 rows of x: fewer than a quarter
    grid = grid_of([f"Q{i}" for i in range(200)], queries, {"t": topics}, {"m": [[0.0, 0.0]] * 200}, {"m": 1.0})
    expected = [i for i in range(0, 200, 10) if needle.lower() in queries[i].lower() or needle.lower() in f"q{i}"]
    pager = Pager(grid)
    assert [row["i"] for row in pager.page(View(text=needle, slices=(("t", "x"),)), 0, 1000)["rows"]] == expected
    assert needle.lower() not in pager._texts or needle == "\x01"  # not kept: the whole text's mask was not computed


def test_texts_sort_by_utf16_code_units_as_the_browser_compares_them():
    # 'a' U+0061, '\U0001F600' (UTF-16: D83D DE00), fullwidth 'ａ' U+FF41: by code units a < emoji < ａ (by code points
    # the emoji would come last); '' last
    grid = grid_of(["q0", "q1", "q2", "q3"], ["\uff41", "\U0001f600", "", "A"],
                   {"t": ["\uff41", "\U0001f600", "a", ""]}, {"m": [[0.0, 0.0]] * 4}, {"m": 1.0})
    assert shown(View(sort="query"), grid) == [3, 1, 0, 2]
    assert shown(View(sort="query", descending=True), grid) == [0, 1, 3, 2]
    assert shown(View(sort="slice:0"), grid) == [2, 1, 0, 3]
    assert shown(View(sort="slice:0", descending=True), grid) == [0, 1, 2, 3]
