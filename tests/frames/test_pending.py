"""Nodes held as columns until a frame is asked for (evalframe/frames/pending.py), through the result's analyses."""

from __future__ import annotations

import copy
import pickle
import weakref

import pandas as pd
import pytest

from evalframe import EvaluationResult, InvalidParameterError, load_demo_result
from evalframe.frames.pending import NodeFrames, PendingFrame
from tests.fixtures import without_cyclic_gc


class FrameColumns:
    """A column source over a frame (copies, so nothing is shared with it), counting the columns made."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.names = list(frame.columns)
        self.made: list[str] = []

    def column(self, name: str) -> pd.Series:
        self.made.append(name)
        return self.frame[name].copy().reset_index(drop=True)


def pending_demo() -> tuple[EvaluationResult, dict[str, FrameColumns]]:
    demo = load_demo_result()
    sources = {node: FrameColumns(demo[node]) for node in demo}
    result = EvaluationResult({node: PendingFrame(len(demo[node]), source) for node, source in sources.items()},
                              matching=demo.matching)
    return result, sources


def test_metrics_of_a_pending_node_need_no_frame_and_equal_the_built_ones() -> None:
    result, sources = pending_demo()
    metrics = result.calculate_metrics()
    assert round(metrics["Retriever"]["recall_single_hit"], 4) == 0.875  # the demo's figure (docstring of the facade)
    assert not result.node_results.is_built("Retriever") and not result.node_results.is_built("Reader")
    assert "query" not in sources["Retriever"].made  # only the columns the metrics read
    assert metrics == load_demo_result().calculate_metrics()
    assert repr(result) == "<EvaluationResult: 2 node(s) (Retriever: 24 rows, Reader: 27 rows)>"
    assert not result.node_results.is_built("Retriever")


def test_the_built_frame_is_the_content_and_an_edit_of_it_is_seen() -> None:
    result, _ = pending_demo()
    before = result.calculate_metrics()["Retriever"]["recall_single_hit"]
    frame = result["Retriever"]
    assert result.node_results.is_built("Retriever")
    pd.testing.assert_frame_equal(frame, load_demo_result()["Retriever"])
    assert result.calculate_metrics()["Retriever"]["recall_single_hit"] == before
    # every gold match removed: recall drops to what the no-match rows give (0 for every query with gold documents)
    for column in ("gold_id_match", "context_match", "answer_match", "gold_id_or_answer_match",
                   "gold_id_and_answer_match", "gold_id_or_context_match", "gold_id_and_context_match"):
        if column in frame.columns:
            frame[column] = 0.0
    frame["gold_documents_id_match"] = [[0.0] * len(cell) for cell in frame["gold_documents_id_match"]]
    edited = result.calculate_metrics()["Retriever"]["recall_single_hit"]
    reference = load_demo_result()
    reference["Retriever"] = frame.copy()
    assert edited == reference.calculate_metrics()["Retriever"]["recall_single_hit"] != before


def test_iteration_over_names_does_not_build_but_values_do() -> None:
    result, _ = pending_demo()
    assert list(result) == ["Retriever", "Reader"] and "Reader" in result and len(result) == 2
    assert result.has_documents("Retriever") and not result.has_answers("Retriever")
    assert not any(result.node_results.is_built(node) for node in result)
    frames = dict(result.node_results)
    assert all(result.node_results.is_built(node) for node in result)
    pd.testing.assert_frame_equal(frames["Reader"], load_demo_result()["Reader"])


@pytest.mark.parametrize("duplicate", [pickle.loads, copy.deepcopy])
def test_a_result_with_pending_nodes_pickles_with_them_built(duplicate: object) -> None:
    result, _ = pending_demo()
    result.calculate_metrics()
    copied = duplicate(pickle.dumps(result)) if duplicate is pickle.loads else duplicate(result)  # type: ignore[operator]
    assert all(copied.node_results.is_built(node) for node in copied)
    assert copied.calculate_metrics() == load_demo_result().calculate_metrics()


def test_node_frames_replace_and_delete() -> None:
    frames = NodeFrames()
    source = FrameColumns(pd.DataFrame({"a": [1, 2]}))
    frames["n"] = PendingFrame(2, source)
    assert frames.n_rows("n") == 2 and frames.pending("n") is not None
    frames["n"] = pd.DataFrame({"a": [3]})
    assert frames.is_built("n") and frames.view("n")["a"].tolist() == [3] and source.made == []
    del frames["n"]
    assert "n" not in frames and len(frames) == 0


@pytest.mark.parametrize("fmt", ["csv", "parquet", "partitions"])
def test_an_edit_of_a_metric_column_after_metrics_on_the_columns_is_seen(tmp_path: object, fmt: str) -> None:
    """Metrics computed while the nodes were columns, then the built frames' metric columns edited (review of issue
    26: the prepared rows kept reading the columns they were made from)."""
    options = {"partitions": 3, "format": "parquet"} if fmt == "partitions" else {"format": fmt}
    saved = load_demo_result().save(tmp_path / "r", **options)  # type: ignore[operator, arg-type]
    result = EvaluationResult.load(saved)
    result.calculate_metrics(document_scope="context")
    result._repr_html_()  # a notebook's display computes the metrics first too
    result["Reader"]["f1"] = 0.0
    result["Retriever"]["context_match"] = 0.0
    metrics = result.calculate_metrics(document_scope="context")
    assert metrics["Reader"]["f1"] == 0.0  # every row's f1 is 0 now
    reference = EvaluationResult({node: result[node].copy() for node in result}, matching=result.matching)
    assert metrics == reference.calculate_metrics(document_scope="context")
    del result["Reader"]["exact_match"]
    assert "exact_match" not in result.calculate_metrics()["Reader"]


# ------------------------------------------------------------------------------ item 17: node_results is a dict
def _read(path: str, frames: NodeFrames) -> list[pd.DataFrame]:
    """The frames a dict read path gives (Haystack 1.x's node_results was a plain dict)."""
    if path == "[]":
        return [frames["Retriever"], frames["Reader"]]
    if path == "get":
        return [frames.get("Retriever"), frames.get("Reader")]
    if path == "items":
        return [frame for _, frame in frames.items()]
    if path == "values":
        return list(frames.values())
    if path == "dict()":
        return list(dict(frames).values())
    if path == "{**}":
        return list({**frames}.values())
    if path == "update":
        merged: dict[str, pd.DataFrame] = {}
        merged.update(frames)
        return list(merged.values())
    if path == "f(**)":
        return list((lambda **kwargs: kwargs)(**frames).values())
    if path == "|":
        return list((frames | {}).values())
    if path == "r|":
        return list(({} | frames).values())
    if path == "copy()":
        return list(frames.copy().values())
    if path == "copy.copy":
        return [dict.__getitem__(copied, node) for copied in [copy.copy(frames)] for node in copied]
    if path == "copy.deepcopy":
        return [dict.__getitem__(copied, node) for copied in [copy.deepcopy(frames)] for node in copied]
    if path == "pickle":
        return [dict.__getitem__(copied, node) for copied in [pickle.loads(pickle.dumps(frames))] for node in copied]
    if path == "pd.concat(values())":
        return [pd.concat(frames.values(), keys=list(frames))]
    if path == "pd.concat(mapping)":
        return [pd.concat(frames)]
    if path == "setdefault":
        return [frames.setdefault("Retriever", None), frames.setdefault("Reader", None)]
    if path == "pop":
        return [frames.pop("Retriever"), frames.pop("Reader")]
    if path == "popitem":
        return [frames.popitem()[1], frames.popitem()[1]][::-1]
    raise AssertionError(path)


DICT_READS = ["[]", "get", "items", "values", "dict()", "{**}", "update", "f(**)", "|", "r|", "copy()", "copy.copy",
              "copy.deepcopy", "pickle", "pd.concat(values())", "pd.concat(mapping)", "setdefault", "pop", "popitem"]


@pytest.mark.parametrize("path", DICT_READS)
def test_node_results_is_a_dict_and_every_dict_read_gives_built_frames(path: str) -> None:
    """Haystack 1.x declares node_results: Dict[str, DataFrame]; code checking isinstance(..., dict), merging it into
    a dict or copying it got a NodeFrames mapping (isinstance False) before. Each read must build a pending frame:
    a dict subclass's C methods would otherwise hand out the PendingFrame held (dict(x) did, without __iter__)."""
    result, _ = pending_demo()
    frames = result.node_results
    assert isinstance(frames, dict) and not any(frames.is_built(node) for node in frames)
    got = _read(path, frames)
    assert all(isinstance(frame, pd.DataFrame) for frame in got), [type(frame).__name__ for frame in got]
    demo = load_demo_result()
    if path.startswith("pd.concat"):
        pd.testing.assert_frame_equal(got[0], pd.concat({node: demo[node] for node in demo}))
    else:
        for frame, node in zip(got, ["Retriever", "Reader"]):
            pd.testing.assert_frame_equal(frame, demo[node])
    if path in ("[]", "get", "items", "values", "dict()", "{**}", "update", "f(**)", "|", "r|", "copy()", "copy.copy",
                "setdefault"):  # the very frame the result keeps: an edit of it is the result's
        assert all(frame is result[node] for frame, node in zip(got, ["Retriever", "Reader"]))


def test_node_results_reads_that_build_nothing_and_equality() -> None:
    result, sources = pending_demo()
    frames = result.node_results
    assert (list(frames), list(frames.keys()), len(frames), "Reader" in frames) == (
        ["Retriever", "Reader"], ["Retriever", "Reader"], 2, True)
    assert list(reversed(frames)) == ["Reader", "Retriever"] and sorted(frames) == ["Reader", "Retriever"]
    assert repr(frames).startswith("{'Retriever': <24 rows, ")
    assert not any(frames.is_built(node) for node in frames) and not sources["Retriever"].made
    assert frames.get("nowhere") is None and frames.get("nowhere", 1) == 1
    assert frames == dict(frames) and not frames != frames.copy()  # equal: the same frames, once built
    with pytest.raises(TypeError, match="unhashable"):
        hash(frames)


def test_the_repr_of_node_results_shows_frames_and_sizes_not_pending_objects() -> None:
    # it once showed "<PendingFrame: 24 rows, columns [...]>", an internal object, and "<27 rows>" for a built frame
    result, sources = pending_demo()
    demo = load_demo_result()
    columns = {node: len(demo[node].columns) for node in demo}
    assert repr(result.node_results) == (f"{{'Retriever': <24 rows, {columns['Retriever']} columns, not yet built>, "
                                         f"'Reader': <27 rows, {columns['Reader']} columns, not yet built>}}")
    assert not any(result.node_results.is_built(node) for node in result.node_results)  # the repr builds nothing
    assert not sources["Retriever"].made
    built = result["Reader"]
    assert repr(result.node_results) == (f"{{'Retriever': <24 rows, {columns['Retriever']} columns, not yet built>, "
                                         f"'Reader': {built!r}}}")  # as a dict of DataFrames shows it
    assert "PendingFrame" not in repr(result.node_results) and "PendingFrame" not in str(result.node_results)


def test_node_frames_takes_what_a_dict_takes() -> None:
    frame = pd.DataFrame({"a": [1]})
    for frames in (NodeFrames({"n": frame}), NodeFrames([("n", frame)]), NodeFrames(n=frame)):
        assert isinstance(frames, dict) and frames["n"] is frame
    frames = NodeFrames({"n": frame})
    frames |= {"m": frame}
    frames.update([("k", frame)], j=frame)
    assert list(frames) == ["n", "m", "k", "j"]
    frames.clear()
    assert frames == {} and len(frames) == 0
    with pytest.raises(KeyError):
        frames.popitem()
    with pytest.raises(KeyError):
        frames.pop("n")
    assert frames.pop("n", None) is None


def test_assigning_node_results_a_dict_replaces_the_nodes_and_what_was_prepared_from_them() -> None:
    """Haystack 1.x code may assign the attribute a dict; the prepared arrays of the frames replaced were read on (the
    metrics of the 24-row frame for a node of 2 rows)."""
    result, _ = pending_demo()
    result.calculate_metrics()
    retriever = load_demo_result()["Retriever"]
    first = retriever[retriever["multilabel_id"] == retriever["multilabel_id"].iloc[0]].copy()
    result.node_results = {"Retriever": first}
    assert isinstance(result.node_results, NodeFrames) and list(result) == ["Retriever"]
    expected = EvaluationResult({"Retriever": first.copy()}, matching=result.matching).calculate_metrics()
    assert result.calculate_metrics() == expected
    assert expected["Retriever"]["mrr"] == 1.0 / first.loc[first["gold_id_or_answer_match"] > 0, "rank"].min()
    with pytest.raises(InvalidParameterError, match="node_results must be a dict of node name -> DataFrame; got list"):
        result.node_results = [first]  # type: ignore[assignment]


def test_a_result_on_pending_nodes_is_freed_as_soon_as_it_is_dropped() -> None:
    # the store registers its bound method with the result's NodeFrames, which the store holds: held strongly, the two
    # made a reference cycle, and the nodes' columns stayed until the cyclic GC ran (on a Dask worker, many tasks'
    # partitions at once: the 10M benchmark's peak worker RSS went from 750 to 1,209 MB)
    with without_cyclic_gc():
        result, sources = pending_demo()
        assert result.calculate_metrics() == load_demo_result().calculate_metrics()
        result["Reader"]  # one node built: the store's listener ran
        alive = [weakref.ref(result.node_results), weakref.ref(sources["Retriever"]), weakref.ref(sources["Reader"])]
        del result, sources
        assert [ref() is None for ref in alive] == [True, True, True]


def test_a_bound_method_listening_to_builds_is_held_weakly_and_a_function_as_given() -> None:
    class Listener:
        def __init__(self) -> None:
            self.built: list[str] = []

        def heard(self, node: str, view: object, frame: pd.DataFrame) -> None:
            self.built.append(node)

    demo = load_demo_result()
    with without_cyclic_gc():
        frames = NodeFrames({node: PendingFrame(len(demo[node]), FrameColumns(demo[node])) for node in demo})
        listener, gone, heard_by_function = Listener(), Listener(), []
        frames.on_build(listener.heard)
        frames.on_build(gone.heard)
        frames.on_build(lambda node, view, frame: heard_by_function.append(node))
        was = weakref.ref(gone)
        del gone
        assert was() is None  # not kept alive by the frames it listens to
        frames["Retriever"]
        assert listener.built == ["Retriever"] and heard_by_function == ["Retriever"]
        del listener
        frames["Reader"]  # its listener gone: not called, no error
        assert heard_by_function == ["Retriever", "Reader"]
