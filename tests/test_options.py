"""The options are defined once (evalframe/options.py): every signature, the CLI flags and the checks come from there."""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import pytest

import evalframe
from evalframe import EvaluationResult, InvalidParameterError, load_demo_result
from evalframe.analysis.compare import compare, worst_by_delta
from evalframe.options import MatchingOptions, MetricOptions
from evalframe.report import plots
from evalframe.present.parsers import build
from tests.fixtures import hand_result

METRIC_OPTIONS = ("simulated_top_k_reader", "simulated_top_k_retriever", "document_scope", "eval_mode", "answer_scope",
                  "context_matching_threshold", "retriever_node")


def test_the_defaults_are_haystacks():
    assert MetricOptions.names() == METRIC_OPTIONS
    assert dataclasses.asdict(MetricOptions()) == {
        "simulated_top_k_reader": -1, "simulated_top_k_retriever": -1, "document_scope": "document_id_or_answer",
        "eval_mode": "integrated", "answer_scope": "any", "context_matching_threshold": None, "retriever_node": None}
    assert MatchingOptions().as_dict() == {"context_matching_threshold": 65.0, "context_matching_min_length": 100,
                                           "context_matching_boost_split_overlaps": True, "custom_document_id_field": None}


@pytest.mark.parametrize("method", [EvaluationResult.calculate_metrics, EvaluationResult.sliced_metrics,
                                    EvaluationResult.query_metrics, EvaluationResult.wrong_examples, compare,
                                    worst_by_delta, plots.plot_metric_distribution, plots.plot_comparison])
def test_every_analysis_shows_every_option_with_its_default(method):
    parameters = inspect.signature(method).parameters
    for option in dataclasses.fields(MetricOptions):
        assert parameters[option.name].default == option.default


def test_the_options_may_be_passed_by_position_in_haystacks_order():
    result = hand_result()
    assert list(inspect.signature(EvaluationResult.calculate_metrics).parameters) == ["self", *METRIC_OPTIONS]
    assert result.calculate_metrics(-1, 3) == result.calculate_metrics(simulated_top_k_retriever=3)
    assert result.calculate_metrics(1, -1, "context") == result.calculate_metrics(simulated_top_k_reader=1,
                                                                               document_scope="context")
    assert result.query_metrics("Reader", 1).equals(result.query_metrics("Reader", simulated_top_k_reader=1))
    # Haystack 1.x's wrong_examples(node, n, simulated_top_k_reader, simulated_top_k_retriever, document_scope,
    # document_metric, answer_metric, ...)
    assert (result.wrong_examples("Reader", 3, 1, -1, "document_id_or_answer", "recall_single_hit", "exact_match")
            == result.wrong_examples("Reader", n=3, simulated_top_k_reader=1, answer_metric="exact_match"))
    assert result.metrics_at_k((1, 3), "Retriever", "document_id").equals(
        result.metrics_at_k(ks=(1, 3), node="Retriever", document_scope="document_id"))
    with pytest.raises(TypeError, match=r"got multiple values for argument 'simulated_top_k_reader'"):
        result.calculate_metrics(1, simulated_top_k_reader=2)
    with pytest.raises(TypeError, match=r"takes at most 8 positional arguments"):
        result.calculate_metrics(-1, -1, "context", "integrated", "any", None, None, 1)


def test_metrics_at_k_and_the_funnel_show_only_the_options_they_take():
    at_k = inspect.signature(EvaluationResult.metrics_at_k).parameters
    assert [name for name in METRIC_OPTIONS if name in at_k] == ["document_scope", "eval_mode", "answer_scope",
                                                                 "context_matching_threshold"]
    assert "eval_mode" not in inspect.signature(plots.plot_funnel).parameters
    with pytest.raises(TypeError, match="metrics_at_k sets the simulated top-k from ks, so "
                                        "simulated_top_k_retriever cannot be passed"):
        load_demo_result().metrics_at_k(ks=(1,), simulated_top_k_retriever=2)


def test_from_runs_shows_the_matching_options():
    parameters = inspect.signature(EvaluationResult.from_runs).parameters
    for option in dataclasses.fields(MatchingOptions):
        assert parameters[option.name].default == option.default


@pytest.mark.parametrize("kwargs, message", [
    ({"document_scop": "context"}, r"unknown argument\(s\) \['document_scop'\].*Did you mean 'document_scope'"),
    ({"top_k_retriever": 3}, r"Did you mean 'simulated_top_k_retriever'"),
    ({"eval_mode": "isolate"}, r"eval_mode must be one of \['integrated', 'isolated'\]; got 'isolate'"),
    ({"simulated_top_k_retriever": 0}, r"simulated_top_k_retriever"),
    ({"context_matching_threshold": 101}, r"context_matching_threshold"),
    ({"retriever_node": ""}, r"retriever_node"),
])
def test_a_bad_option_is_named_whichever_analysis_gets_it(kwargs, message):
    result = hand_result()
    for call in (lambda: result.calculate_metrics(**kwargs), lambda: result.query_metrics("Reader", **kwargs),
                 lambda: result.wrong_examples("Reader", **kwargs), lambda: result.sliced_metrics("no_answer", **kwargs),
                 lambda: compare(result, result, node="Reader", **kwargs)):
        with pytest.raises(InvalidParameterError, match=message) as caught:
            call()
        if "unknown" in message:  # what Python raises for an unexpected keyword, too
            assert isinstance(caught.value, TypeError)


def test_the_command_line_flags_are_the_options():
    commands = build()[1]
    for command in ("metrics", "compare", "worst"):
        destinations = {action.dest: action for action in commands[command]._actions}
        for option in dataclasses.fields(MetricOptions):
            assert destinations[option.name].option_strings == [option.metadata["flag"]]
            assert destinations[option.name].choices == option.metadata["choices"]
    flatten = {action.dest for action in commands["flatten"]._actions}
    assert set(MatchingOptions.names()) <= flatten


def test_warnings_point_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hand_result().calculate_metrics(document_scope="document_id", answer_scope="context")
    assert [w.filename for w in caught if "ignores answer_scope" in str(w.message)] == [__file__]


def test_the_version_comes_from_the_package_metadata():
    from importlib.metadata import version

    assert evalframe.__version__ == version("evalframe")
