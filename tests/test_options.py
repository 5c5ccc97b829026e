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
    # then, by keyword only, the interval's options (ci=)
    assert list(inspect.signature(EvaluationResult.calculate_metrics).parameters) == [
        "self", *METRIC_OPTIONS, "ci", "ci_method", "seed", "rounds"]
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


# ---------------------------------------------------------------------------------------------- report and compare
def _shown(function) -> dict[str, object]:
    return {name: p.default for name, p in inspect.signature(function).parameters.items()}


def test_the_report_signatures_are_the_report_options():
    from evalframe.options import ReportOptions
    from evalframe.report.reports import build_report
    from evalframe.report.model import build_model

    defaults = {f.name: f.default for f in dataclasses.fields(ReportOptions)}
    assert defaults == {"n": 3, "node_order": None, "max_characters_per_field": 150, "charts": True,
                        "metrics_filter": None, "document_scope": "document_id_or_answer", "answer_scope": "any",
                        "wrong_examples_fields": ("answer", "context", "document_id"), "measures": None,
                        "complete": False, "duplicates": "error", "metric": None, "ci": None,
                        "ci_method": "bootstrap", "seed": 0, "rounds": 10_000}
    assert _shown(EvaluationResult.report) == {"self": inspect.Parameter.empty, **defaults}
    assert _shown(build_report) == _shown(build_model) == {"result": inspect.Parameter.empty, **defaults}
    # n, node_order, max_characters_per_field and charts by position, as before; the others by keyword
    kinds = [p.kind for p in inspect.signature(EvaluationResult.report).parameters.values()]
    assert kinds == [inspect.Parameter.POSITIONAL_OR_KEYWORD] * 5 + [inspect.Parameter.KEYWORD_ONLY] * 12


def test_the_report_takes_its_options_by_position_and_by_keyword_and_names_a_bad_one():
    result = load_demo_result()
    assert result.report(1, ["Reader", "Retriever"], 40, False).text == result.report(
        n=1, node_order=["Reader", "Retriever"], max_characters_per_field=40, charts=False).text
    assert result.report(1, charts=False, wrong_examples_fields=None).text == result.report(1, charts=False).text
    with pytest.raises(InvalidParameterError, match=r"^n \(worst queries per node\) must be an int >= 1; got 0\.$"):
        result.report(0)
    with pytest.raises(TypeError, match=r"unknown argument\(s\) \['top_k'\]; the report takes these options: .*"
                                        r"'max_characters_per_field'"):
        result.report(top_k=3)
    with pytest.raises(InvalidParameterError, match=r"document_scope must be one of .*Did you mean 'document_id'"):
        result.report(document_scope="documentid")


def test_the_compare_signatures_are_the_compare_options():
    import evalframe.trec_compare
    from evalframe.options import CompareOptions

    compare_defaults = {f.name: f.default for f in dataclasses.fields(CompareOptions)}
    assert compare_defaults == {"node": None, "metrics": None, "names": None, "rounds": 10_000, "confidence": 0.95,
                                "seed": 0, "complete": False, "duplicates": "error", "test": "randomization",
                                "zero_method": "wilcox", "correction": "holm", "pairs": "first", "family": "runs", "by": None,
                                "max_p": None}
    metric_defaults = {f.name: f.default for f in dataclasses.fields(MetricOptions)}
    runs = {"a": inspect.Parameter.empty, "b": inspect.Parameter.empty, "others": inspect.Parameter.empty}
    output = {"backend": "pandas"}  # OutputOptions: the kind of table returned
    assert _shown(compare) == {**runs, **compare_defaults, **metric_defaults, **output}
    assert _shown(evalframe.trec_compare.compare) == {**runs, "qrels": None, "storage_options": None, **compare_defaults,
                                                      **metric_defaults, **output}
    assert _shown(evalframe.compare) == _shown(evalframe.trec_compare.compare)


def test_compare_on_dask_has_the_same_signature():
    pytest.importorskip("distributed")
    import evalframe.dask

    assert _shown(evalframe.dask.compare) == _shown(compare)


def test_the_comparative_report_signature_is_its_options():
    from evalframe.options import ComparisonReportOptions
    from evalframe.report.model import build_comparison_model

    defaults = {f.name: f.default for f in dataclasses.fields(ComparisonReportOptions)}
    assert defaults == {"names": None, "nodes": None, "metrics": None, "by": None, "test": "t-test", "max_p": 0.05,
                        "power": 0.8, "n": 20, "page_characters": None, "rounds": 10_000, "confidence": 0.95,
                        "seed": 0}
    metric_defaults = {f.name: f.default for f in dataclasses.fields(MetricOptions)}
    assert _shown(evalframe.compare_report) == {"runs": inspect.Parameter.empty, "storage_options": None, **defaults,
                                                **metric_defaults}
    assert _shown(build_comparison_model) == {"runs": inspect.Parameter.empty, "compare_function": compare,
                                              **{k: v for k, v in defaults.items() if k != "names"}, **metric_defaults}


def test_each_parameter_is_described_once_where_it_is_declared():
    import evalframe.trec_compare
    from evalframe.options import CompareOptions, ComparisonReportOptions, ReportOptions
    from evalframe.report.reports import build_report

    for options, functions in ((ReportOptions, [EvaluationResult.report, build_report]),
                               (CompareOptions, [compare, evalframe.trec_compare.compare]),
                               (ComparisonReportOptions, [evalframe.compare_report])):
        for function in functions:
            doc = " ".join(function.__doc__.split())
            for option in dataclasses.fields(options):
                entry = " ".join(option.metadata["doc"].split())
                assert doc.count(entry) == 1, (function.__qualname__, option.name)
                assert doc.count(f" {option.name} : {option.metadata['kind']}") == 1, (function.__qualname__, option.name)
    # numpydoc's "name : type, default value" (None: optional)
    doc = " ".join(EvaluationResult.report.__doc__.split())
    assert "n : int, default 3 The worst queries listed per node" in doc and "metric : str, optional Rank" in doc


def test_the_comparisons_check_their_options_once():
    from evalframe.options import CompareOptions, ComparisonReportOptions

    assert CompareOptions(test="fisher").test == "randomization" and ComparisonReportOptions(test="t").test == "t-test"
    with pytest.raises(InvalidParameterError, match=r"^max_p must be a p-value in \(0, 1\), e.g. 0.05\.$"):
        ComparisonReportOptions(max_p=None)
    with pytest.raises(InvalidParameterError,
                       match=r"^test must be one of \['randomization', 't-test', 'wilcoxon', 'sign', 'bootstrap'\]; got 'z'"):
        evalframe.compare_report([hand_result(), hand_result()], test="z")
    with pytest.raises(InvalidParameterError, match=r"confidence must lie strictly between 0 and 1, e.g. 0.95; got 1.5"):
        evalframe.compare_report([hand_result(), hand_result()], confidence=1.5)
    with pytest.raises(InvalidParameterError, match=r"unknown argument\(s\) \['round'\].*Did you mean 'rounds'"):
        compare(hand_result(), hand_result(), node="Reader", round=10)


def test_the_report_and_compare_flags_are_the_options():
    from evalframe.options import CompareOptions, ComparisonReportOptions, ReportOptions

    commands = build()[1]
    for command, sets in (("report", (ReportOptions, ComparisonReportOptions)), ("compare", (CompareOptions,))):
        actions = {action.dest: action for action in commands[command]._actions}
        for options in sets:
            for option in dataclasses.fields(options):
                meta = option.metadata
                if meta["flag"] is None or option.name not in actions:
                    continue
                action = actions[option.name]
                assert action.option_strings == [*([meta["short"]] if meta["short"] else []), meta["flag"]]
                assert action.default is None and action.choices == meta["choices"]  # the library's default applies
                shown = "" if option.default is None or isinstance(option.default, bool) else f" (default {option.default})"
                assert action.help.endswith(meta["help"] + shown)
    report = {action.dest for action in commands["report"]._actions}
    assert {"n", "node_order", "measures", "document_scope", "answer_scope", "names", "metrics", "by", "test",
            "max_p"} <= report
    compare_flags = {action.dest for action in commands["compare"]._actions}
    assert {"node", "metrics", "complete", "names", "rounds", "seed", "test", "max_p"} <= compare_flags
