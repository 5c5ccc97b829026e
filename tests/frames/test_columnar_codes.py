"""Run-based query codes and hash-found document duplicates (evalframe.frames.arrays, .hashing) against pandas' factorize.

``first_appearance_codes`` hashes only the first value of each run of equal neighbours, and the document
rows find a query's repeated ``document_id`` from one 64-bit key per id (``first_equal_rows``); both must
give exactly what hashing every value gave, for any row order, missing ids and column dtypes. The
end-to-end tests compare every analysis with the old path (forced by disabling the new helpers).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalframe import EvaluationResult, SchemaError
from evalframe.frames import arrays, hashing, prepared
from evalframe.frames.arrays import coded_values, first_appearance_codes, run_starts
from evalframe.frames.hashing import first_equal_rows
from evalframe.frames.rows import coded_equals, column_coding, has_rows

pa = pytest.importorskip("pyarrow")

_VALUES = ["a", "b", "doc-1", "doc-10", "ü-ß", "", "a" * 9, "a" * 17, "x" * 40 + "1", "x" * 40 + "2", None, np.nan]
_DTYPES = ["object", "str", "arrow-string", "arrow-large-string"]


def _series(values: list, dtype: str) -> pd.Series:
    if dtype == "object":
        return pd.Series(values, dtype=object)
    if dtype == "str":
        return pd.Series(values, dtype="str")
    arrow_type = pa.string() if dtype == "arrow-string" else pa.large_string()
    return pd.Series(pd.array([None if v is None or v is np.nan else v for v in values], dtype=pd.ArrowDtype(arrow_type)))


def _reference_first_equal(series: pd.Series, rows: np.ndarray, groups: np.ndarray) -> np.ndarray:
    codes, _ = pd.factorize(series.iloc[rows], sort=False, use_na_sentinel=False)
    first: dict[tuple[int, int], int] = {}
    return np.array([first.setdefault((int(g), int(c)), i) for i, (g, c) in enumerate(zip(groups, codes))], dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(len(_VALUES))), st.integers(1, 6)), max_size=20),
       st.sampled_from(_DTYPES), st.randoms(use_true_random=False))
@pytest.mark.stress  # the long sweep: .ci/run runs it with -m stress; the suite runs the short one below
def test_first_appearance_codes_equal_factorize_for_many_orders(runs, dtype, random):
    test_first_appearance_codes_equal_factorize_for_any_order.hypothesis.inner_test(runs, dtype, random)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(len(_VALUES))), st.integers(1, 6)), max_size=20),
       st.sampled_from(_DTYPES), st.randoms(use_true_random=False))
def test_first_appearance_codes_equal_factorize_for_any_order(runs, dtype, random):
    """40 examples in the suite (each of the four dtypes several times, five row selections each); the sweep of 150
    is test_first_appearance_codes_equal_factorize_for_many_orders, under ``-m stress``."""
    series = _series([_VALUES[i] for i, length in runs for _ in range(length)], dtype)
    positions = list(range(len(series)))
    random.shuffle(positions)
    half = np.array(sorted(positions[: len(positions) // 2]), dtype=np.int64)
    for rows in (None, np.arange(len(series)), half, half[: len(half) // 3], np.array(positions, dtype=np.int64)):
        codes, uniques = first_appearance_codes(series, rows)
        expected_codes, expected = pd.factorize(series if rows is None else series.iloc[rows], sort=False,
                                                use_na_sentinel=False)
        assert codes.tolist() == expected_codes.tolist()
        assert pd.Series(uniques, dtype=object).equals(pd.Series(np.asarray(expected, dtype=object), dtype=object))
        codes, uniques, first = coded_values(series, rows, objects=False)
        assert codes.tolist() == expected_codes.tolist()
        assert pd.Series(np.asarray(uniques, dtype=object)).equals(pd.Series(np.asarray(expected, dtype=object)))
        assert first.tolist() == [int(np.argmax(expected_codes == c)) for c in range(len(expected))]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(range(len(_VALUES)))), max_size=40),
       st.sampled_from(_DTYPES), st.randoms(use_true_random=False))
def test_first_equal_rows_equal_a_factorize_of_the_pairs(rows, dtype, random):
    series = _series([_VALUES[v] for _, v in rows], dtype)
    groups = np.array(sorted(g for g, _ in rows) if random.random() < 0.5 else [g for g, _ in rows], dtype=np.int64)
    order = np.array(random.sample(range(len(rows)), len(rows)), dtype=np.int64)
    found = first_equal_rows(series, order, groups)
    assert found is not None  # strings and missing values are always handled
    assert found.tolist() == _reference_first_equal(series, order, groups).tolist()


def test_cells_that_cannot_be_keyed_are_left_to_the_caller():
    mixed = pd.Series([1, 1.0, "1", None], dtype=object)  # 1 == 1.0: only pandas' factorize is trusted
    assert first_equal_rows(mixed, np.arange(4), np.zeros(4, dtype=np.int64)) is None
    assert first_equal_rows(pd.Series([[1], [1]], dtype=object), np.arange(2), np.zeros(2, dtype=np.int64)) is None
    assert first_equal_rows(pd.Series([1.0, 1.0]), np.arange(2), np.zeros(2, dtype=np.int64)) is None
    assert run_starts(pd.Series([np.array([1, 2]), np.array([1, 2])], dtype=object)) is None
    codes, uniques = first_appearance_codes(pd.Series([1, 1.0, True, "1", None, np.nan], dtype=object))
    assert codes.tolist() == [0, 0, 0, 1, 2, 2]


def test_a_key_collision_falls_back_to_exact_codes(monkeypatch):
    series = pd.Series(["a", "b", "a", "c"], dtype="string[pyarrow]")  # Arrow-backed on pandas 2.2 too ("str" is not)
    monkeypatch.setattr(hashing, "_arrow_string_keys", lambda array, rows: np.zeros(len(rows), dtype=np.uint64))
    assert first_equal_rows(series, np.arange(4), np.zeros(4, dtype=np.int64)) is None


# ----------------------------------------------------------------------------- end to end, old path vs new path
def _variants():
    from benchmarks.synthetic import make_result

    base = make_result(120)
    rng = np.random.default_rng(7)
    out = {"synthetic": base}
    frames = {node: frame.copy() for node, frame in base.node_results.items()}
    retriever = frames["Retriever"]
    ids = retriever["document_id"].to_numpy(dtype=object, copy=True)
    ids[rng.choice(len(ids), 40, replace=False)] = None
    ids[rng.choice(len(ids), 20, replace=False)] = np.nan
    same_query = np.flatnonzero(retriever["multilabel_id"].to_numpy()[1:] == retriever["multilabel_id"].to_numpy()[:-1])
    for row in rng.choice(same_query, 150, replace=False):  # a document twice in one query
        ids[row + 1] = ids[row]
    for dtype in ("object", "str", "arrow-large-string"):
        edited = {node: frame.copy() for node, frame in frames.items()}
        edited["Retriever"]["document_id"] = _series(list(ids), dtype).to_numpy() if dtype == "object" else \
            _series(list(ids), dtype).array
        edited["Retriever"]["multilabel_id"] = _series(list(retriever["multilabel_id"]), dtype).array
        out[f"duplicates-{dtype}"] = EvaluationResult(edited, matching=base.matching)
    shuffled = {node: frame.sample(frac=1.0, random_state=3) for node, frame in out["duplicates-str"].node_results.items()}
    out["shuffled"] = EvaluationResult(shuffled, matching=base.matching)  # no query's rows contiguous
    return out


def _analyses(result: EvaluationResult) -> list:
    out: list = []
    for scope in ("document_id", "context", "document_id_and_context", "document_id_or_context", "answer",
                  "document_id_or_answer"):
        for k in (-1, 1, 3):
            out.append(result.calculate_metrics(document_scope=scope, simulated_top_k_retriever=k))
    out.append(result.calculate_metrics(simulated_top_k_reader=2, simulated_top_k_retriever=3))
    for node in result.node_results:
        out.append(result.query_metrics(node))
        out.append(result.query_metrics(node, simulated_top_k_retriever=2))
        out.append(result.wrong_examples(node, n=5))
    out.append(result.metrics_at_k(ks=(1, 3, 5)))
    return out


def _same(a, b) -> None:
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    else:
        assert a == b or (a != a and b != b), (a, b)


@pytest.mark.parametrize("variant", ["synthetic", "duplicates-object", "duplicates-str", "duplicates-arrow-large-string",
                                     "shuffled"])
def test_every_analysis_equals_the_hash_every_value_path(variant, monkeypatch):
    result = _variants()[variant]
    ids = result["Retriever"]["document_id"]
    assert first_equal_rows(ids, np.arange(len(ids)), np.zeros(len(ids), dtype=np.int64)) is not None  # the new path
    new = _analyses(result)
    result.clear_cache()
    monkeypatch.setattr(arrays, "run_starts", lambda series: None)
    monkeypatch.setattr(prepared, "first_equal_rows", lambda series, rows, groups: None)
    _same(new, _analyses(result))


# ----------------------------------------------------------------------------- Arrow list columns
def _arrow_lists(frame: pd.DataFrame, *, large: bool = False, chunks: int = 1) -> pd.DataFrame:
    """``frame`` with every column of Python lists held as a ``pd.ArrowDtype(pa.list_(...))`` column."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object and values.map(lambda v: isinstance(v, list) or v is None).all() \
                and values.map(lambda v: isinstance(v, list)).any():
            array = pa.array(values.tolist())
            if large:
                array = array.cast(pa.large_list(array.type.value_type))
            bounds = np.linspace(0, len(array), chunks + 1).astype(int)
            chunked = pa.chunked_array([array.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:])], type=array.type)
            out[column] = pd.Series(pd.arrays.ArrowExtensionArray(chunked), index=out.index)
    return out


@pytest.mark.parametrize(("large", "chunks"), [(False, 1), (True, 3)])
def test_arrow_list_columns_give_the_numbers_of_python_lists(large, chunks):
    from benchmarks.synthetic import make_result

    result = make_result(80)
    frames = {node: _arrow_lists(frame, large=large, chunks=chunks) for node, frame in result.node_results.items()}
    assert isinstance(frames["Retriever"]["gold_documents_id_match"].dtype, pd.ArrowDtype)
    arrow = EvaluationResult(frames, matching=result.matching)
    for node in arrow.node_results:
        store_lists = arrow._store.distinct_lists(node, "gold_document_ids")
        assert not isinstance(store_lists.cells, np.ndarray)  # the Arrow path: no Python list per cell
    _same(_analyses(arrow), _analyses(result))
    for node in result.node_results:
        assert str(arrow.wrong_examples(node, n=4)) == str(result.wrong_examples(node, n=4))


def test_arrow_list_cells_missing_or_not_numeric_are_named_as_python_lists_are():
    from benchmarks.synthetic import make_result

    result = make_result(6)
    for edit, message in (
        (lambda f: f.__setitem__("gold_documents_id_match", [None] + f["gold_documents_id_match"].tolist()[1:]),
         r"column 'gold_documents_id_match' must hold a list in every row; row 0 holds None \(NoneType\)"),
        (lambda f: f.__setitem__("gold_answers_match", [["x"]] * len(f)),  # Arrow lists hold one element type
         r"column 'gold_answers_match' must hold lists of numbers; row 0 holds \['x'\]"),
    ):
        frames = {node: frame.copy() for node, frame in result.node_results.items()}
        edit(frames["Retriever"])
        python = EvaluationResult(frames, matching=result.matching)
        arrow = EvaluationResult({node: _arrow_lists(frame) for node, frame in frames.items()}, matching=result.matching)
        for each in (python, arrow):
            with pytest.raises(SchemaError, match=message):
                each.calculate_metrics(document_scope="document_id_or_answer")
    frames = {node: frame.copy() for node, frame in result.node_results.items()}
    match = frames["Retriever"]["gold_answers_match"]
    frames["Retriever"]["gold_answers_match"] = [[None] * len(cell) if i % 3 == 0 else cell for i, cell in enumerate(match)]
    python = EvaluationResult(frames, matching=result.matching)  # a missing element is NaN (numpy's float of None)
    arrow = EvaluationResult({node: _arrow_lists(frame) for node, frame in frames.items()}, matching=result.matching)
    assert arrow.calculate_metrics(document_scope="answer") == python.calculate_metrics(document_scope="answer")


def test_missing_arrow_document_ids_count_as_empty_and_edits_are_seen():
    from benchmarks.synthetic import make_result

    result = make_result(30)
    frames = {node: frame.copy() for node, frame in result.node_results.items()}
    ids = frames["Reader"]["document_ids"].tolist()
    ids[::4] = [None] * len(ids[::4])
    frames["Reader"]["document_ids"] = pd.Series(ids, index=frames["Reader"].index, dtype=object)
    python = EvaluationResult(frames, matching=result.matching)
    arrow = EvaluationResult({node: _arrow_lists(frame) for node, frame in frames.items()}, matching=result.matching)
    assert arrow.calculate_metrics(simulated_top_k_retriever=3) == python.calculate_metrics(simulated_top_k_retriever=3)
    # replacing an Arrow column (cells of such columns cannot be assigned) is noticed: new numbers
    flipped = [[1.0 - v for v in cell] for cell in frames["Retriever"]["gold_documents_id_match"]]
    for each in (python, arrow):
        frame = each["Retriever"]
        frame["gold_documents_id_match"] = (pd.Series(flipped, index=frame.index, dtype=object) if each is python
                                            else _arrow_lists(pd.DataFrame({"c": flipped}, index=frame.index))["c"])
    assert arrow.calculate_metrics(document_scope="document_id") == python.calculate_metrics(document_scope="document_id")
    assert arrow.calculate_metrics(document_scope="document_id") != result.calculate_metrics(document_scope="document_id")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["document", "answer", "integrated", "", None, np.nan]), st.integers(1, 30)),
                max_size=12), st.sampled_from(_DTYPES))
def test_type_and_eval_mode_masks_from_runs_equal_comparing_every_row(runs, dtype):
    series = _series([value for value, length in runs for _ in range(length)], dtype)
    coding = column_coding(series)
    for value in ("document", "answer", "integrated", ""):
        assert coded_equals(coding, value).tolist() == (series == value).to_numpy(dtype=bool, na_value=False).tolist()
    assert has_rows(pd.DataFrame({"type": series}), "document") == bool((series == "document").fillna(False).any())


@pytest.mark.parametrize("arrow_type", ["string", "large_string", "binary"])
def test_string_keys_read_every_byte_of_every_length(arrow_type):
    rng = np.random.default_rng(5)
    texts = ["", "a", "ab", "a" * 7, "a" * 8, "a" * 9, "a" * 16, "a" * 17, "é" * 5, "x" * 40 + "1", "x" * 40 + "2",
             "1" + "x" * 40, "2" + "x" * 40, "x" * 20 + "1" + "x" * 20, "x" * 20 + "2" + "x" * 20, "y" * 300 + "z"]
    texts += ["".join(rng.choice(list("ab\0"), size=int(k))) for k in rng.integers(0, 40, size=400)]
    texts += ["q" * int(k) for k in range(0, 70)] + ["q" * 500, "q" * 499 + "r"]
    values = [texts[int(i)] for i in rng.integers(0, len(texts), size=3000)] + [None] * 5
    array = pa.array([v.encode() if arrow_type == "binary" and v is not None else v for v in values],
                     type=getattr(pa, arrow_type)())
    for sliced in (array, array.slice(37, 2000), array.slice(len(array) - 3)):
        series = pd.Series(pd.arrays.ArrowExtensionArray(sliced))
        rows = rng.permutation(len(series))
        groups = np.zeros(len(rows), dtype=np.int64)
        found = first_equal_rows(series, rows, groups)
        assert found is not None and found.tolist() == _reference_first_equal(series, rows, groups).tolist()
    tiny = pd.Series(pd.array(["a", "", "a", None], dtype="str"))  # 2 bytes of text in all
    assert first_equal_rows(tiny, np.arange(4), np.zeros(4, dtype=np.int64)).tolist() == [0, 1, 0, 3]


def test_match_lists_are_laid_out_when_a_call_needs_them():
    from benchmarks.synthetic import make_result

    result = make_result(60)
    frames = {node: frame.copy() for node, frame in result.node_results.items()}
    # answer lists shorter than the gold lists on some queries (Haystack's shape for labels without an answer), so the
    # other lists are longer than the rows laid out for document_scope="answer"
    retriever = frames["Retriever"]
    queries = retriever["multilabel_id"].drop_duplicates().tolist()[::7]
    shorter = [cell[:-1] if query in queries else cell
               for query, cell in zip(retriever["multilabel_id"], retriever["gold_answers_match"])]
    retriever["gold_answers_match"] = pd.Series(shorter, index=retriever.index, dtype=object)
    for source in (result, EvaluationResult(frames, matching=result.matching)):
        scopes = ("document_id", "context", "answer", "document_id_and_context", "document_id_or_answer")
        lazy = EvaluationResult(dict(source.node_results), matching=source.matching)
        first = lazy.calculate_metrics(document_scope="answer")
        assert lazy._store.document_rows("Retriever", "integrated").parts == {"ans"}  # the other lists are not read
        for scope in scopes:
            fresh = EvaluationResult(dict(source.node_results), matching=source.matching)
            assert lazy.calculate_metrics(document_scope=scope) == fresh.calculate_metrics(document_scope=scope)
            assert lazy.query_metrics("Retriever", document_scope=scope, simulated_top_k_retriever=2).equals(
                fresh.query_metrics("Retriever", document_scope=scope, simulated_top_k_retriever=2))
        assert lazy.calculate_metrics(document_scope="answer") == first


@pytest.mark.parametrize("variant", ["synthetic", "shuffled"])
def test_pair_values_at_a_shift_equal_the_per_pair_lookup(variant):
    import dataclasses

    result = _variants()[variant]
    rows = result._store.document_rows("Retriever", "integrated", ("ans", "ctx", "id"))
    assert rows is not None and rows.longest is not None
    for part in ("id", "ctx", "ans"):
        general = dataclasses.replace(rows, longest=None, _values={})
        np.testing.assert_array_equal(rows.pair_values(part), general.pair_values(part))


@pytest.mark.parametrize("variant", ["synthetic", "duplicates-object", "duplicates-str", "duplicates-arrow-large-string",
                                     "shuffled"])
def test_query_index_is_the_index_of_the_python_ids(variant):
    from evalframe.frames.tables import query_index

    result = _variants()[variant]
    for rows in (result._store.document_rows("Retriever", "integrated"), result._store.answer_rows("Reader", "integrated")):
        expected = pd.Index(rows.query_ids, name="multilabel_id")
        index = query_index(rows)
        assert index.dtype == expected.dtype and index.name == expected.name
        pd.testing.assert_index_equal(index, expected, exact=True)
