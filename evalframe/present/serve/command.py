"""``evalframe serve [STORE | FOLDER | FILE ...]``: the viewer (:mod:`.app`) on uvicorn, bound to 127.0.0.1 by default.

Imported by :func:`evalframe.present.cli.main` when the command runs (it needs the ``serve`` extra).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any

import uvicorn

from ...errors import EvalframeError
from ...io.history import RUNS
from ...options import ComparisonReportOptions, MetricOptions
from ..history import History, STORE_VARIABLE
from ..inputs import read_result, run_names
from ..parsers import options_given
from .app import Sources, Viewer, host_checked, make_app

__all__ = ["serve_command", "sources_of", "listen", "serve_in_thread", "allowed_hosts"]

def allowed_hosts(host: str) -> list[str] | None:
    """The names a ``Host`` header may give on ``host`` (its port left out, an IPv6 address in brackets): on a
    loopback address (127.0.0.0/8, ``::1``, ``localhost``) the loopback names and the address bound, so that a page
    of another site pointing its own name there (DNS rebinding) is refused; on any other address, any (None).

    >>> allowed_hosts("::1"), allowed_hosts("0.0.0.0")
    (['127.0.0.1', 'localhost', '[::1]'], None)
    >>> allowed_hosts("127.0.0.2")
    ['127.0.0.1', 'localhost', '[::1]', '127.0.0.2']
    """
    name = host.strip().lower().strip("[]")
    if name != "localhost":
        try:
            if not ipaddress.ip_address(name).is_loopback:
                return None
        except ValueError:
            return None
    shown = f"[{name}]" if ":" in name else name
    return list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", shown]))


def _is_store(path: Any) -> bool:
    """A local folder ``evalframe log`` writes: it holds ``runs/`` and no result's manifest."""
    return (isinstance(path, Path) and (path / RUNS).is_dir() and not (path / "manifest.json").exists())


def sources_of(args: argparse.Namespace) -> Sources:
    """What ``evalframe serve`` was started on: a store (STORE, ``--store`` or ``$EVALFRAME_STORE``) and the FOLDER /
    FILE arguments, read on first use with the flags of ``evalframe report``."""
    given = list(args.runs or [])
    store: Any = args.store
    if given and _is_store(given[0]):
        if store is not None:
            raise EvalframeError(f"{given[0]} is a store, and --store {store} names another: give one store.")
        store = given.pop(0)
    stores = [path for path in given if _is_store(path)]
    if stores:
        raise EvalframeError(f"{stores[0]} is a store: give it first (evalframe serve STORE [FOLDER | FILE ...]) or "
                             "with --store.")
    if store is None and not given:
        store = os.environ.get(STORE_VARIABLE) or None
        if store is None:
            raise EvalframeError(f"nothing to serve: give a store, results folders or files (evalframe serve STORE, "
                                 f"evalframe serve --from ragas a.jsonl b.jsonl), or set ${STORE_VARIABLE}.")
    elif store is None:
        store = os.environ.get(STORE_VARIABLE) or None
    history = None
    if store is not None:
        history = History(store, storage_options=getattr(args, "storage_options", None) or None)
        history.metas()  # a store that is not there is said now, not on the first page
    for path in given:
        if isinstance(path, Path) and not path.exists():
            raise EvalframeError(f"{path}: no such file or folder.")
    names = args.names or (run_names(given) if given else [])
    if len(names) != len(given):
        raise EvalframeError(f"--names gives {len(names)} names for {len(given)} runs; give one per FOLDER or FILE.")
    options = {**options_given(args, ComparisonReportOptions), **options_given(args, MetricOptions)}
    options.pop("names", None)

    def read(index: int) -> Any:
        return read_result(given[index], args)

    return Sources(files=[(name, str(path)) for name, path in zip(names, given)], read=read, history=history,
                   store="" if store is None else str(store), options=options)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (0: a free port), refused with one line when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise EvalframeError(f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc}); choose "
                             "another --port, or --port 0 for any free one.") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> tuple[str, uvicorn.Server, threading.Thread]:
    """``app`` served by uvicorn in a thread (a notebook's, a test's): its address, the server (``should_exit =
    True`` stops it) and the thread, returned once it listens. On a loopback address a request naming another host
    is refused (:func:`allowed_hosts`: DNS rebinding), as ``evalframe serve`` refuses it."""
    hosts = allowed_hosts(host)
    if hosts is not None:
        app = host_checked(app, hosts)
    sock = listen(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="evalframe-serve")
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}", server, thread


def serve_command(args: argparse.Namespace) -> str:
    """Serve until interrupted (Ctrl-C); prints the address first."""
    if not 0 <= args.port <= 65535:
        raise EvalframeError(f"--port must be a port from 0 to 65535 (0: any free one); got {args.port}.")
    sources = sources_of(args)
    if sources.read is not None:  # every run read now: a bad file is said before the server starts
        results = [sources.read(index) for index in range(len(sources.files))]
        sources.read = results.__getitem__
    viewer = Viewer(sources)
    if len(sources.files) > 1:  # the comparison of the runs given, built now: a bad --by or --metrics said before
        viewer.comparison([str(index) for index in range(len(sources.files))])
    app = make_app(viewer, allowed_hosts=allowed_hosts(args.host))  # a Host of another name refused on a loopback
    sock = listen(args.host, args.port)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    print(f"evalframe serve: {url} (read-only; Ctrl-C stops it)", flush=True)
    if allowed_hosts(args.host) is None:
        print(f"warning: listening on {args.host}: other machines can read these runs.", file=sys.stderr)
    if args.open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return ""

