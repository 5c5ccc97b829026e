"""Rewrite the command outputs the docs show from real runs: ``python scripts/make_cli_docs.py [--check]``.

The pages are :data:`PAGES` (docs/cli.md, and the other pages with console examples). Every ```` ```console ````
block of a page is a session: ``$ evalframe ...`` lines are commands, the lines up to
the next command are what it prints (stdout and stderr, in order). The commands of a whole page run one after
the other in one scratch folder holding the files the page uses (:func:`prepare`: the demo data under
``evalframe/data/``, ``docs/examples/runs.jsonl``, and ``run.txt`` / ``run_b.txt`` / ``qrels.txt`` / ``dense.txt`` of
the IR page), so a command may read what an earlier one wrote, as a reader's would; each runs through
``evalframe.present.cli.main``, in this process, with an 80-column terminal. Apart from ``evalframe``, a session may
use ``head -N FILE ...``.

A shown line that is ``...`` alone (indented or not) stands for any number of lines of the real output; a block
right after the comment ``<!-- cli-docs: not run -->`` is an illustration (a cluster, files the page does not ship)
and is left alone. Trailing spaces do not count, nor do blank lines at the end of an output.

``--check`` rewrites nothing and exits 1 when a shown output differs (``tests/present/test_cli_docs.py`` runs the
same check); without it the pages are rewritten, keeping an output with ``...`` lines as it is while it still matches
(else it is replaced by the full output, to cut by hand again).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose console examples are run (a page's blocks that cannot run here are marked NOT_RUN).
PAGES = tuple(ROOT / "docs" / name for name in ("cli.md", "ir-researchers.md", "cluster.md", "rag.md"))
NOT_RUN = "<!-- cli-docs: not run -->"
ELISION = "..."
#: The TREC run and qrels of docs/ir-researchers.md#from-trec-files-to-trec_evals-numbers, which the trec examples use.
IR_RUN = "q1 Q0 d1 1 6.0 bm25\nq1 Q0 d2 2 5.0 bm25\nq1 Q0 d3 3 5.0 bm25\nq2 Q0 d6 1 2.0 bm25\nq2 Q0 d5 2 1.0 bm25\n"
IR_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d4 1\nq2 0 d5 0\nq2 0 d6 0\nq3 0 d7 1\n"
#: The second run of docs/ir-researchers.md#comparing-runs-from-trec-files, which the compare examples use.
IR_RUN_B = "q1 Q0 d3 1 3.0 dense\nq1 Q0 d1 2 2.0 dense\nq1 Q0 d4 3 1.0 dense\nq2 Q0 d6 1 1.0 dense\nq3 Q0 d7 1 1.0 dense\n"
#: The second run of docs/ir-researchers.md#fusing-runs, which the fuse examples fuse with IR_RUN.
IR_DENSE = "q1 Q0 d3 1 0.9 dense\nq1 Q0 d4 2 0.8 dense\nq1 Q0 d1 3 0.3 dense\nq2 Q0 d5 1 0.7 dense\nq2 Q0 d7 2 0.2 dense\n"
_BLOCK = re.compile(r"^(?P<before>[^\n]*\n)?```console\n(?P<body>.*?)^```$", re.M | re.S)


class Example(NamedTuple):
    """One command of the page and the output it shows; ``line`` is the command's line in the page (from 1)."""

    line: int
    command: str
    shown: list[str]


def examples(text: str, page: str = "cli.md") -> list[Example]:
    """The commands of the console blocks of ``text`` (the page ``page``), in order (blocks after NOT_RUN left out)."""
    found: list[Example] = []
    for block in _BLOCK.finditer(text):
        if (block["before"] or "").strip() == NOT_RUN:
            continue
        first = text.count("\n", 0, block.start("body")) + 1
        for offset, line in enumerate(block["body"].splitlines()):
            if line.startswith("$ "):
                found.append(Example(first + offset, line[2:], []))
            elif found and found[-1].line >= first:
                found[-1].shown.append(line)
            else:
                raise ValueError(f"{page}:{first + offset}: a console block must start with a '$ ' command line; "
                                 f"got {line!r}")
    return found


def prepare(folder: Path) -> None:
    """The files the page's commands read, at the paths they use (run from the repository's root)."""
    for relative in ("evalframe/data/demo", "evalframe/data/demo_result", "docs/examples"):
        shutil.copytree(ROOT / relative, folder / relative)
    (folder / "run.txt").write_text(IR_RUN, encoding="utf-8")
    (folder / "qrels.txt").write_text(IR_QRELS, encoding="utf-8")
    (folder / "run_b.txt").write_text(IR_RUN_B, encoding="utf-8")
    (folder / "dense.txt").write_text(IR_DENSE, encoding="utf-8")


def _head(argv: list[str]) -> str:
    """``head -N FILE ...`` as coreutils prints it (a ``==> FILE <==`` header per file when there are several)."""
    if not argv or not re.fullmatch(r"-[0-9]+", argv[0]) or len(argv) < 2:
        raise ValueError(f"the docs' head takes -N and files; got {argv}")
    count, files = int(argv[0][1:]), argv[1:]
    parts = []
    for name in files:
        with open(name, encoding="utf-8") as f:
            lines = [line for _, line in zip(range(count), f)]
        parts.append((f"==> {name} <==\n" if len(files) > 1 else "") + "".join(lines))
    return "\n".join(parts)


@contextlib.contextmanager
def _session(folder: Path) -> Iterator[None]:
    """Commands run in ``folder`` with an 80-column terminal and no Dask scheduler from the environment."""
    saved = {key: os.environ.get(key) for key in ("COLUMNS", "LINES", "DASK_SCHEDULER_ADDRESS")}
    cwd = os.getcwd()
    os.environ.update(COLUMNS="80", LINES="24")
    os.environ.pop("DASK_SCHEDULER_ADDRESS", None)
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run(command: str, folder: Path) -> list[str]:
    """What ``command`` prints (stdout and stderr interleaved), run in ``folder``; the folder's path removed."""
    from evalframe.present.cli import main

    argv = shlex.split(command)
    captured = io.StringIO()
    with _session(folder), contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
        if argv[0] == "evalframe":
            try:
                main(argv[1:])
            except SystemExit:  # --help, --version and usage errors end through argparse
                pass
        elif argv[0] == "head":
            print(_head(argv[1:]), end="")
        else:
            raise ValueError(f"the docs' console blocks run evalframe and head only; got {command!r}")
    output = captured.getvalue().replace(str(folder) + os.sep, "").replace(str(folder), ".")
    return _trimmed(output.splitlines())


def _trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is what ``shown`` says, a ``...`` line standing for any number of lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == ELISION else re.escape(line) + "\n"
                      for line in _trimmed(shown))
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def run_page(text: str, folder: Path, page: str = "cli.md") -> list[tuple[Example, list[str]]]:
    """Every example of the page with its real output, run in order in ``folder`` (prepared first)."""
    prepare(folder)
    return [(example, run(example.command, folder)) for example in examples(text, page)]


def rewrite(text: str, results: list[tuple[Example, list[str]]]) -> str:
    """The page with each shown output replaced by the real one (an elided one kept while it matches)."""
    lines = text.splitlines(keepends=True)
    for example, actual in reversed(results):  # from the end: earlier line numbers stay valid
        if matches(example.shown, actual):
            continue
        start = example.line  # the command's line (1-based) is lines[example.line - 1]
        stop = start + len(example.shown)
        kept_blank = [""] if example.shown and not example.shown[-1].strip() else []  # a blank line between commands
        lines[start:stop] = [line + "\n" for line in actual + kept_blank]
    return "".join(lines)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    differ = 0
    for page in PAGES:
        name = page.relative_to(ROOT)
        text = page.read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="cli-docs-") as work:
            results = run_page(text, Path(work), page.name)
        stale = [example for example, actual in results if not matches(example.shown, actual)]
        differ += len(stale)
        for example in stale:
            print(f"{name}:{example.line}: the output of `{example.command}` differs from a real run")
        if check:
            continue
        if stale:
            page.write_text(rewrite(text, results), encoding="utf-8")
            for example in (e for e in stale if any(line.strip() == ELISION for line in e.shown)):
                print(f"  line {example.line}: `{example.command}` had '...' lines: written in full, cut it again by hand")
        print(f"{name}: {len(results)} command outputs, {len(stale)} rewritten")
    return 1 if check and differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
