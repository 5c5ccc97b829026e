"""Shared fixtures.

``storage`` runs a test once per way a user holds a result: in memory as built, and after a round trip through
each on-disk format (``result.save(...)`` then ``EvaluationResult.load``; see docs/persistence.md). The metric tests
take their result through it, so every hand-worked number is checked on what a loaded folder gives as well.

``backend`` runs a test once per engine that analyses a result (narwhals' ``constructor`` fixture is the model): in
memory (:class:`evalframe.EvaluationResult`) and on Dask (:class:`evalframe.dask.DaskEvaluationResult`, on one
LocalCluster of two worker processes started once per session, ``dask_client``). A test builds its result in memory
and takes ``backend(result)``; one test then checks both engines against the same hand-worked numbers, where
tests/dask/ once held a copy of each analysis test. tests/dask/ keeps what only Dask has (partitions, the client,
building on the cluster, the commands' ``--scheduler``).

``cluster`` (a marker set here, not in the test files) is every test that runs on the session's LocalCluster: those
that take ``dask_client`` (tests/dask/'s ``client``) and the ``backend`` fixture's dask runs. They stay out of the
README's command (its 4 minutes on two cores) but for ``CLUSTER_SMOKE``, a fast test of each Dask feature that keeps
Dask in that command end to end; ``.ci/run`` runs the rest (``-m 'cluster and not stress'``).

``SMOKE`` names the tests of the smoke subset (``python -m pytest -m smoke``, about a minute; README.md): one or two
per stage of the data path, each with hand-worked or reference-tool values.
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evalframe import EvaluationResult, compare

STORAGES = ("memory", "csv", "parquet")
BACKENDS = ("memory", "dask")
#: The parameters of tests/dask/'s and the backend's cluster (as CI runs them): two worker processes of one thread,
#: the scheduler's HTTP server on a port the system picks (two suites at once on one machine do not collide), a
#: memory limit per worker that stays well within the CI machine's.
CLUSTER = {"n_workers": 2, "threads_per_worker": 1, "processes": True, "dashboard_address": ":0", "memory_limit": "2GB"}


def _through(storage: str, folder: Path) -> Callable[[EvaluationResult], EvaluationResult]:
    names = itertools.count()

    def through(result: EvaluationResult) -> EvaluationResult:
        if storage == "memory":
            return result
        path = folder / f"r{next(names)}"
        with warnings.catch_warnings():
            # a test frame cut from a bigger one has a non-default index, which is not saved: the metrics do not read it
            warnings.filterwarnings("ignore", message=r"node .*: the frame's index is not a default RangeIndex")
            if storage == "csv":
                result.save(path)
            else:
                result.save(path, format=storage)
        return EvaluationResult.load(path)

    return through


@pytest.fixture(params=STORAGES)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[EvaluationResult], EvaluationResult]:
    """``storage(result)``: the result as the user would have it (memory: as is; csv / parquet: saved and loaded back)."""
    return _through(request.param, tmp_path)


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """One LocalCluster of two worker processes for the session, and a client of it that is not the default one
    (tests pass ``client=``; those without it run on Dask's scheduler in the process). Started on first use only."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(**CLUSTER) as cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


def saved_partitioned(folder: Path) -> bool:
    """Whether ``folder`` holds a partitioned save (``save(..., partitions=N)``), read from its evalframe.json."""
    manifest = folder / "evalframe.json"
    return manifest.is_file() and json.loads(manifest.read_text(encoding="utf-8")).get("partitioned") is not None


class Backend:
    """``backend(result)``: ``result`` (an EvaluationResult, or the folder of a saved one) as this engine holds it.

    memory: the result itself (a folder: ``EvaluationResult.load``); dask: the result saved as a partitioned Parquet
    folder (``partitions``, 3 unless given; a partitioned folder as it is) and opened by ``evalframe.dask.load`` on the
    session's cluster. The helpers give what a test compares in the same shape on both: ``compare`` (evalframe's or
    evalframe.dask's) and the per-query tables as pandas (Dask's are lazy and come back in partition order).
    """

    def __init__(self, name: str, folder: Path, client: Any = None) -> None:
        self.name, self.folder, self.client = name, folder, client
        self._names = itertools.count()

    def __repr__(self) -> str:
        return f"Backend({self.name!r})"

    @property
    def on_cluster(self) -> bool:
        return self.name == "dask"

    def __call__(self, result: EvaluationResult | Path | str, *, partitions: int = 3) -> Any:
        if self.name == "memory":
            return result if isinstance(result, EvaluationResult) else EvaluationResult.load(result, progress=False)
        import evalframe.dask

        if isinstance(result, EvaluationResult) or not saved_partitioned(Path(result)):
            memory = result if isinstance(result, EvaluationResult) else EvaluationResult.load(result, progress=False)
            with warnings.catch_warnings():  # a frame cut from a bigger one: its index is not saved (see _through)
                warnings.filterwarnings("ignore", message=r"node .*: the frame's index is not a default RangeIndex")
                result = memory.save(self.folder / f"r{next(self._names)}", format="parquet", partitions=partitions,
                                     progress=False)
        return evalframe.dask.load(result, client=self.client)

    def compare(self, *runs: Any, **options: Any) -> pd.DataFrame:
        """``evalframe.compare`` of results in memory, ``evalframe.dask.compare`` of results on Dask."""
        if self.name == "memory":
            return compare(*runs, **options)
        import evalframe.dask

        return evalframe.dask.compare(*runs, **options)

    def query_metrics(self, result: Any, node: str, **options: Any) -> pd.DataFrame:
        """``result.query_metrics(node, ...)`` as pandas, in the in-memory order."""
        return result.query_metrics(node, compute=True, **options) if self.on_cluster else result.query_metrics(node, **options)

    def trec_query_metrics(self, result: Any, measures: Any, **options: Any) -> pd.DataFrame:
        """``result.trec_query_metrics(measures, ...)`` as pandas (on Dask computed; its rows in partition order and
        its index of query ids in pandas' str dtype, docs/cluster.md: compare by label, ``.loc`` or ``sort_index``)."""
        table = result.trec_query_metrics(measures, **options)
        return table.compute() if self.on_cluster else table


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Backend:
    """The engine a test runs on (memory, dask): ``backend(result)`` is the result on it (:class:`Backend`)."""
    if request.param == "memory":
        return Backend("memory", tmp_path_factory.mktemp("memory"))
    pytest.importorskip("dask.dataframe")
    return Backend("dask", tmp_path_factory.mktemp("dask"), request.getfixturevalue("dask_client"))


#: The smoke subset (marker ``smoke``): every stage once. A metric of each family (document, answer, trec_eval's measures
#: against pytrec_eval, a declared score) on both backends and after a save, the Haystack 1.x golden folder, sources
#: (runs, Ragas, TREC), the analyses (compare, slices, fusion), save and load (CSV, Parquet), the evaluators, the
#: reports (text, HTML, the comparative one), the commands (flatten, convert, metrics, trec, report) and the stage rule.
#: A test id names every parametrisation of the test. tests/test_smoke.py checks each names a test that is there.
SMOKE = (
    "tests/test_layout.py::test_every_module_imports_only_from_its_stage_and_earlier_ones",
    "tests/test_metrics_at_k.py::test_hand_result_at_k",
    "tests/metrics/test_answer_metrics.py::test_simulated_top_k_reader",
    "tests/test_haystack1_compat.py::test_the_folder_loads_like_haystack_loaded_it",
    "tests/test_haystack1_compat.py::test_wrong_examples_equal_haystack_up_to_tie_order",
    "tests/test_trec_vs_pytrec_eval.py::test_every_measure_equals_pytrec_eval",
    "tests/sources/test_from_trec.py::test_from_trec_builds_the_hand_worked_frame",
    "tests/sources/test_from_trec.py::test_convert_trec_to_folder_and_back",
    "tests/present/test_trec_command.py::test_the_values_are_pytrec_evals",
    "tests/present/test_cli.py::test_flatten_then_convert_then_metrics",
    "tests/present/test_cli.py::test_metrics_json_equals_the_library",
    "tests/present/test_cli.py::test_demo_builds_reports_and_saves",
    "tests/test_scores_everywhere.py::test_means_and_per_query_values",
    "tests/analysis/test_compare.py::test_two_runs_by_hand",
    "tests/analysis/test_slices.py::test_no_answer_slices_by_hand",
    "tests/io/test_io.py::test_round_trip_of_a_full_result",
    "tests/io/test_io.py::test_parquet_stores_list_columns_natively_and_loads_back",
    "tests/evaluators/test_evaluators.py::test_seed_multi_hit_example",
    "tests/report/test_model_and_renderers.py::test_every_format_is_one_renderer_of_the_model",
    "tests/test_directions.py::test_the_comparative_report_marks_changes_by_the_direction",
    "tests/test_result.py::test_the_hand_result_gives_its_hand_worked_values",
    "tests/frames/test_codings.py::test_from_trec_hands_its_layout_to_the_result",
    "tests/sources/test_ragas.py::test_hand_worked_metrics_of_each_golden_file",
    "tests/test_trec_compare.py::test_hand_worked_means_deltas_and_p_values",
    "tests/present/test_report.py::test_text_report_shows_the_funnel_with_the_library_numbers",
    "tests/present/test_report.py::test_report_command_writes_html",
    "tests/analysis/test_fusion.py::test_combsum_min_max",
    "tests/test_smoke.py::test_the_smoke_list_names_tests_there_are",
)


#: The cluster tests the README's command keeps (the others are marked ``cluster``): a fast one of each Dask feature
#: (building, the commands' ``--scheduler``, compare with its tests, from_trec, the partition checks, power, a URL
#: read on the workers, repetitions, scores, the result's layout and errors, the benchmark's folder) and of the
#: ``backend`` fixture's analyses on Dask; SMOKE's are kept too. Kept on one test process (``xdist_group``), so a
#: run of ``-n 2`` starts one cluster. A test id names every parametrisation of the test; tests/test_smoke.py checks
#: each names a test that is there.
CLUSTER_SMOKE = (
    "tests/dask/test_build.py::test_the_lines_left_out_are_recorded_in_the_folder_as_a_save_records_them",
    "tests/dask/test_cli.py::test_an_analysis_on_the_scheduler_prints_what_it_prints_in_memory[command2]",
    "tests/dask/test_compare_all_pairs.py::test_the_paper_table_of_runs_on_dask_is_memorys",
    "tests/dask/test_compare_tests.py::test_dask_compare_by_slices_equals_memory",
    "tests/dask/test_from_trec.py::test_gzip_files_give_the_same_numbers",
    "tests/dask/test_from_trec.py::test_a_bad_line_in_a_later_block_is_named_by_its_line_in_the_file",
    "tests/dask/test_partition_checks.py::test_a_row_moved_into_another_partition_is_refused_by_both_readers",
    "tests/dask/test_power.py::test_power_on_dask_equals_in_memory",
    "tests/dask/test_remote.py::test_dask_load_of_a_url_reads_the_partitions_on_the_workers",
    "tests/dask/test_repeats.py::test_sharded_runs_files_with_repetitions_build_the_folder_memory_saves",
    "tests/dask/test_result.py::test_the_layout_is_recorded_and_the_repr_names_it",
    "tests/dask/test_result.py::test_errors_name_the_folder_the_node_and_the_saved_row",
    "tests/dask/test_result.py::test_compare_needs_the_same_partition_count",
    "tests/dask/test_scores.py::test_sharded_runs_files_with_scores_build_the_folder_memory_saves",
    "tests/test_bench_dask.py::test_the_generated_folder_loads_whole_as_its_partitions_made_in_one_process[3-8]",
    "tests/analysis/test_same_analyses.py::test_the_same_error_in_memory_and_on_dask",
    "tests/analysis/test_same_analyses.py::test_both_are_result_like",
    "tests/analysis/test_same_analyses.py::test_calculate_metrics_by_hand",
    "tests/analysis/test_same_analyses.py::test_trec_metrics",
    "tests/analysis/test_same_analyses.py::test_wrong_examples",
    "tests/analysis/test_compare.py::test_compare_of_a_metric_a_run_lacks_names_the_metrics_the_runs_share",
    "tests/analysis/test_meta.py::test_wrong_examples_carry_the_query_meta",
    "tests/analysis/test_no_answer_summary.py::test_the_counts_and_each_metric_beside_its_answerable_only_value_by_hand",
    "tests/frames/test_backends.py::test_metrics_frame_in_every_backend",
    "tests/test_every_measure_everywhere.py::test_trec_metrics_is_each_measures_aggregation_of_the_per_query_values",
    "tests/test_directions.py::test_wrong_examples_refuses_a_measure_without_direction",
    "tests/test_directions.py::test_wrong_examples_document_metric_refuses_a_count",
)


def on_cluster(item: pytest.Item) -> bool:
    """Whether ``item`` runs on the session's LocalCluster (``dask_client``, or the ``backend`` fixture's dask run)."""
    callspec = getattr(item, "callspec", None)
    on_dask = callspec is not None and callspec.params.get("backend") == "dask"
    return on_dask or "dask_client" in getattr(item, "fixturenames", ())


class S3Bucket:
    """A fresh bucket on the tests' S3 server: ``url`` (``s3://<bucket>``), the ``storage_options`` that reach it, and
    ``fs``, an s3fs filesystem of its own (listings never cached) for a test to look at what was written."""

    def __init__(self, endpoint: str, name: str) -> None:
        import s3fs

        self.endpoint, self.name, self.url = endpoint, name, f"s3://{name}"
        self.storage_options: dict[str, Any] = {"key": "testing", "secret": "testing", "endpoint_url": endpoint}
        self.fs = s3fs.S3FileSystem(**self.storage_options, use_listings_cache=False, skip_instance_cache=True)
        self.fs.mkdir(name, region_name="eu-west-1")

    def keys(self, prefix: str = "") -> list[str]:
        """Every object's key under ``prefix`` (without the bucket), sorted."""
        self.fs.invalidate_cache()
        found = self.fs.find(f"{self.name}/{prefix}".rstrip("/"))
        return sorted(key.split("/", 1)[1] for key in found)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """moto's S3 API server on 127.0.0.1 (a port the system picks), started once per test process; its endpoint URL.

    As s3fs's and Dask's own tests do: a real HTTP server speaking S3's API, reached by s3fs and botocore as a bucket
    in the cloud is, with its own (strong) read-after-write consistency."""
    pytest.importorskip("s3fs")
    server_module = pytest.importorskip("moto.server")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3(s3_server: str) -> S3Bucket:
    """A new, empty bucket on the tests' S3 server (:class:`S3Bucket`)."""
    import uuid

    return S3Bucket(s3_server, f"evalframe-{uuid.uuid4().hex[:12]}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests SMOKE names, and the cluster tests but CLUSTER_SMOKE's and SMOKE's (before ``-m`` selects, and
    before pytest-xdist's ``--dist loadgroup`` reads the groups)."""
    smoke, kept = set(SMOKE), set(CLUSTER_SMOKE)
    for item in items:
        names = (item.nodeid, item.nodeid.split("[", 1)[0])
        if any(name in smoke for name in names):
            item.add_marker(pytest.mark.smoke)
        if on_cluster(item):
            if any(name in smoke or name in kept for name in names):
                item.add_marker(pytest.mark.xdist_group("cluster"))
            else:
                item.add_marker(pytest.mark.cluster)


def pytest_configure(config: pytest.Config) -> None:
    """On CI the references are installed (the test extra): a missing one fails the run instead of skipping its tests."""
    import importlib.util
    import os

    if os.environ.get("CI"):
        missing = [name for name in ("pytrec_eval", "ir_measures", "ranx") if importlib.util.find_spec(name) is None]
        if missing:
            raise pytest.UsageError(f"CI needs the test extra's references {missing}: pip install -e '.[test]'")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """No cyclic garbage collection while the tests are collected, and what collection made (modules, their functions,
    the test items) moved out of the collector's sight afterwards (``gc.freeze``): it lives for the whole session, and
    each full collection during the tests would otherwise walk it again (measured: 15.8 s of a 69 s run of
    tests/analysis and tests/test_layout.py in one process spent in the collector, 5.2 s with the freeze). Importing
    the modules and rewriting their assertions makes few reference cycles."""
    import gc

    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()
