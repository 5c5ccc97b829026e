"""The ``evalframe serve`` command: its flags, its one-line errors (the serve extra missing, nothing to serve, a bad
port), and the server started as a person starts it (a subprocess on a free port, the address it prints answered)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import evalframe as ef
from evalframe.present.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_parser(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    for flag in ("--store", "--host", "--port", "--open", "--from", "--by", "--names"):
        assert flag in shown
    assert "default 127.0.0.1" in shown and "default 8000" in shown


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_bad_port_is_refused_before_anything_is_read(capsys, port):
    assert main(["serve", "--port", port, "nowhere.jsonl"]) == 1
    assert capsys.readouterr().err == f"error: --port must be a port from 0 to 65535 (0: any free one); got {port}.\n"


def test_a_port_that_is_no_number_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", "http"])
    assert exited.value.code == 2 and "argument --port: invalid int value: 'http'" in capsys.readouterr().err


def test_without_the_serve_extra_one_line_names_the_install(capsys, monkeypatch, tmp_path):
    import evalframe.present.serve as package

    for name in [name for name in sys.modules if name.startswith("evalframe.present.serve.")]:
        monkeypatch.delitem(sys.modules, name)
        monkeypatch.delattr(package, name.rpartition(".")[2], raising=False)
    for name in ["starlette", *[name for name in sys.modules if name.startswith("starlette.")]]:
        monkeypatch.setitem(sys.modules, name, None)  # import starlette raises ModuleNotFoundError
    assert main(["serve", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == "error: evalframe serve needs starlette, which is not installed: pip install 'evalframe[serve]'\n"


def test_nothing_to_serve_is_said(capsys, monkeypatch):
    pytest.importorskip("starlette")
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    assert main(["serve"]) == 1
    assert capsys.readouterr().err.startswith("error: nothing to serve: give a store, results folders or files")


def test_a_missing_file_is_said_before_serving(capsys, monkeypatch, tmp_path):
    pytest.importorskip("starlette")
    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    assert main(["serve", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 1
    assert capsys.readouterr().err == f"error: {tmp_path / 'a.jsonl'}: no such file or folder.\n"


def test_a_store_is_told_from_results(tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    from evalframe.present.parsers import build
    from evalframe.present.serve.command import sources_of

    monkeypatch.delenv("EVALFRAME_STORE", raising=False)
    store = tmp_path / "store"
    ef.History(store).log(ef.load_demo_result(), name="demo", commit=None)
    folder = ef.load_demo_result().save(tmp_path / "demo")
    args = build()[0].parse_args(["serve", str(store), str(folder), str(folder)])
    sources = sources_of(args)
    assert sources.store == str(store) and sources.history is not None
    assert [name for name, _ in sources.files] == ["demo", "demo (2)"]


def test_the_server_answers_at_the_address_it_prints(tmp_path):
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    store = tmp_path / "store"
    ef.History(store).log(ef.load_demo_result(), name="demo", commit=None)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "evalframe", "serve", str(store), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        found = re.match(r"evalframe serve: (http://127\.0\.0\.1:(\d+)/) \(read-only; Ctrl-C stops it\)$", line.strip())
        assert found, line
        url = found.group(1)
        for _ in range(100):  # uvicorn starts on the socket already bound
            try:
                page = httpx.get(url + "runs", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        assert page.status_code == 200 and "demo" in page.text
        assert httpx.post(url + "runs", timeout=5).status_code == 405
        assert httpx.get(url + "runs", headers={"host": "evil.example"}, timeout=5).status_code == 400
    finally:
        process.terminate()
        process.wait(timeout=10)
