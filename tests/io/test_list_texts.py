"""Literal list texts parsed column-wide in Arrow (:func:`evalframe.io.arrow_csv.parse_list_texts`) against the
exact parser (the same texts as Python strings: JSON, the plain string-list split, ``ast.literal_eval``)."""

from __future__ import annotations

import ast
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalframe.errors import LoadError
from evalframe.io.literals import LiteralParser

pa = pytest.importorskip("pyarrow")

AWKWARD_VALUES: list[Any] = [
    [], [0.5, -0.0, 0.0], [5e-324, 1.7976931348623157e308, 1e-05, 1e16, 1.5e16, 0.1], [64.44, 78.21],
    [0, -1, 7, 2**62, -(2**63)], [2**63, 10**30], [-(10**19)], ["doc-1", "doc-2"], [""], ["", ""], ["a", ""],
    ["it's"], ['say "hi"'], ["back\\slash"], ["é à", "中文", "🎉"], ["new\nline", "tab\tx"], ["nul \x00"],
    ["comma, 'inside'"], ["', '"], [[1.0, 2.0]], [[]], [1, 2.5], [1.0, "a"], [True, False], [None], [1.0, None],
    ["a", 1], [(1, 2)], [{"start": 0, "end": 10}], [b"bytes"], ("tuple",), {"k": 1}, 3, "text", None, math.nan,
]

#: Texts repr does not write but a person or another tool may: each read as the exact parser reads it (or refused).
HAND_WRITTEN = ["[1.50]", "[1e5]", "[1E+5]", "[1e+400]", "[-1e+400]", "[.5]", "[1.]", "[007]", "[007.5]", "[-0]",
                "[1,2]", "[ 1.0]", "[1.0 ]", "['a','b']", "[ 'a']", '["a"]', "[+1.0]", "[0x10]", "[1_000]", "[1, ]",
                "[]", "", "nan", "['a\\'b']", "['a\\nb']", "[[1.0], [2.0]]", "['a', 1.0]", "[1.0, 'a']",
                "[12345678901234567890]", "[123456789012345678]", "[-123456789012345678]", "['x'", "[1.0", "[nan]",
                "[None]", "[True]", "['']", "['', '']", "[''']", "['a', ']"]


def arrow_texts(texts: list[str]) -> pd.Series:
    return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(texts, pa.large_string())])))


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (NaN equal to NaN, -0.0 apart from 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def parse_both(texts: list[str]) -> tuple[Any, Any]:
    """(Arrow path, exact path) of one column; each a DistinctLists or the LoadError message."""
    outcomes = []
    for series in (arrow_texts(texts), pd.Series(texts, dtype=object)):
        try:
            outcomes.append(LiteralParser(Path("f.csv"), "c").distinct_values(series))
        except LoadError as exc:
            outcomes.append(re.sub(r"0x[0-9a-f]+", "0x", str(exc)))  # ast's messages name node addresses
    return outcomes[0], outcomes[1]


def check_same(texts: list[str]) -> None:
    arrow, exact = parse_both(texts)
    if isinstance(exact, str):
        assert arrow == exact
        return
    assert not isinstance(arrow, str), arrow
    np.testing.assert_array_equal(arrow.codes, exact.codes)
    assert len(arrow.cells) == len(exact.cells)
    for got, want in zip(arrow.cells.tolist(), exact.cells.tolist()):
        assert same(got, want), (got, want)
    # rows with one text share one object, and distinct texts never do
    assert len({id(cell) for cell in arrow.cells.tolist()}) == len(arrow.cells)


def test_awkward_reprs_parse_as_the_exact_parser_reads_them() -> None:
    texts = ["" if value is None else repr(value) for value in AWKWARD_VALUES]
    check_same(texts * 3)
    for text in texts:  # alone, every text in its own column (one shape per column)
        check_same([text, text])


@pytest.mark.parametrize("text", HAND_WRITTEN)
def test_hand_written_texts_parse_or_fail_as_the_exact_parser_does(text: str) -> None:
    check_same([text])
    check_same(["[1.0, 2.0]", text, "['a']", text, "[3]"])


def test_a_bad_text_is_named_by_its_row() -> None:
    arrow, exact = parse_both(["[1.0]", "[2.0]", "['a']", "[1.0", "[2.0]"])
    assert isinstance(arrow, str) and arrow == exact and "data row 4" in arrow


def test_common_shapes_are_exact_on_many_floats() -> None:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**63, size=20000, dtype=np.int64) * rng.choice([1, -1], size=20000)
    numbers = bits.view(np.float64)
    numbers = numbers[np.isfinite(numbers)].tolist() + np.round(rng.random(5000) * 100, 2).tolist()
    cells = [numbers[i:i + 3] for i in range(0, len(numbers), 3)]
    check_same([repr(cell) for cell in cells])


FLOATS = st.floats(allow_nan=False, allow_infinity=False)
SCALARS = st.one_of(FLOATS, st.integers(), st.text(max_size=6), st.booleans(), st.none())
CELLS = st.one_of(st.lists(FLOATS, max_size=4), st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=4),
                  st.lists(st.text(max_size=6), max_size=4), st.lists(SCALARS, max_size=3),
                  st.lists(st.lists(FLOATS, max_size=2), max_size=2), st.none())


# 50 examples here; the long sweep (200) under the stress marker, which .ci/run runs in full
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CELLS, min_size=1, max_size=12))
def test_any_literal_cells_parse_as_the_exact_parser_reads_them(cells: list[Any]) -> None:
    texts = ["" if cell is None else repr(cell) for cell in cells]
    check_same(texts)
    arrow, _ = parse_both(texts)
    assert all(same(got, None if cell is None else ast.literal_eval(repr(cell)))
               for got, cell in zip(arrow.row_values().tolist(), cells))


@pytest.mark.stress
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CELLS, min_size=1, max_size=12))
def test_many_literal_cells_parse_as_the_exact_parser_reads_them(cells: list[Any]) -> None:
    test_any_literal_cells_parse_as_the_exact_parser_reads_them.hypothesis.inner_test(cells)



@pytest.mark.parametrize("body", [r"a\d", r"\700", r"\8\9", r"x\\d", r"\q\w\e", r"\400\377\0", r"tab\tand\N{BULLET}"])
def test_escapes_decode_as_python_literals_do_without_touching_the_warning_state(body):
    # the decoder's DeprecationWarning (unknown or over-large octal escapes) is no longer silenced with
    # warnings.catch_warnings, which is not thread-safe: the escapes are rewritten so that none is raised
    from evalframe.io.literals import _unescape

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ast.literal_eval("'" + body + "'")  # Python's own reading (it warns of the same escapes)
    filters = list(warnings.filters)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _unescape("'" + body + "'", body) == expected
    assert warnings.filters == filters
