"""The analysis commands on a Dask scheduler: --scheduler ADDRESS or DASK_SCHEDULER_ADDRESS, a partitioned folder."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.synthetic import make_result
from evalframe.present.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    parts = [make_result(60, seed=s).save(root / f"run{s}", format="parquet", partitions=4, progress=False) for s in (1, 2)]
    plain = make_result(60, seed=1).save(root / "plain", format="parquet", progress=False)
    return parts, plain


@pytest.mark.parametrize("command", [["metrics", "--top-k-retriever", "3"], ["metrics", "--by", "no_answer"],
                                     ["metrics", "--node", "Reader", "--by-query"], ["worst", "--node", "Reader", "-n", "4"],
                                     ["worst", "--node", "Retriever", "--metric", "mrr"]])
def test_an_analysis_on_the_scheduler_prints_what_it_prints_in_memory(capsys, client, folders, command, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    folder = str(folders[0][0])
    name, *options = command
    expected = run(capsys, name, folder, *options, "--format", "json")
    got = run(capsys, name, folder, *options, "--format", "json", "--scheduler", client.scheduler.address)
    assert got[0] == expected[0] == 0
    assert _close(json.loads(got[1]), json.loads(expected[1]))
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    assert _close(json.loads(run(capsys, name, folder, *options, "--format", "json")[1]), json.loads(expected[1]))


def test_compare_on_the_scheduler(capsys, client, folders, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    first, second = (str(f) for f in folders[0])
    argv = ["compare", first, second, "--node", "Retriever", "--rounds", "300", "--format", "json"]
    expected = run(capsys, *argv)
    got = run(capsys, *argv, "--scheduler", client.scheduler.address)
    assert got[0] == expected[0] == 0 and _close(json.loads(got[1]), json.loads(expected[1]))


def test_scheduler_with_a_folder_that_is_not_partitioned_is_refused(capsys, client, folders, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    code, out, err = run(capsys, "metrics", str(folders[1]), "--scheduler", client.scheduler.address)
    assert code != 0 and "--scheduler evaluates a partitioned folder" in err and "partitions=N" in err
    # the environment variable applies to partitioned folders only: a plain folder is evaluated here
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    assert run(capsys, "metrics", str(folders[1]))[0] == 0


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-12 or (a != a and b != b)
    return a == b


def test_convert_and_report_read_a_partitioned_folder_here_even_with_the_variable_set(capsys, client, folders, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    code, out, err = run(capsys, "convert", str(folders[0][0]), str(tmp_path / "as_csv"), "--to", "csv")
    assert code == 0, err
    assert run(capsys, "report", str(folders[0][0]))[0] == 0


@pytest.mark.parametrize("argv", [["metrics", "{a}", "--top-k-retriever", "0"], ["metrics", "{a}", "--by", "filters.nope"],
                                  ["worst", "{a}", "--node", "Reader", "--metric", "f2"],
                                  ["compare", "{a}", "{b}", "--node", "Retriever", "--metrics", "mrx"]])
def test_an_error_on_the_scheduler_names_the_flag_too(capsys, client, folders, argv, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    first, second = (str(f) for f in folders[0])
    argv = [arg.format(a=first, b=second) for arg in argv]
    flag = argv[-2]
    for on_dask in (["--scheduler", client.scheduler.address], []):  # the message may differ, the flag is named
        code, out, err = run(capsys, *argv, *on_dask)
        assert code == 1 and out == "" and re.match(rf"error: {flag}[ :]", err) and len(err.splitlines()) == 1, err
