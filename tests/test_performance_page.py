"""docs/performance.md is a page a user reads: today's figures, each table under the command that reproduces it (a
script of benchmarks/ with flags it takes), history in one appendix; and the links into it resolve."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"


def _sections() -> list[tuple[str, str]]:
    """(heading, text up to the next heading of level 2 or 3) of the page."""
    parts = re.split(r"^(#{2,3} .*)$", PAGE.read_text(encoding="utf-8"), flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def _flags(script: Path) -> set[str]:
    """The options a benchmark script's argparse takes (its ``add_argument("--x", ...)`` calls, read with ast)."""
    return {arg.value for node in ast.walk(ast.parse(script.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument"
            for arg in node.args if isinstance(arg, ast.Constant) and str(arg.value).startswith("-")} | {"-h", "--help"}


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.

    >>> slug("## Evaluation on Dask"), slug("### The columnar core: what is held how")
    ('evaluation-on-dask', 'the-columnar-core-what-is-held-how')
    """
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_the_page_is_short_with_one_history_appendix():
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 320, f"docs/performance.md has {len(lines)} lines"
    assert [h for h, _ in _sections() if "history" in h.lower() or "earlier round" in h.lower()] == ["## Appendix: history"]
    assert _sections()[-1][0] == "## Appendix: history"


def test_every_table_of_figures_follows_the_command_that_reproduces_it():
    for heading, text in _sections():
        if heading.startswith("## Appendix") or heading.startswith("### Saving CSV") or "|---" not in text:
            continue
        if heading.startswith("## The columnar core"):
            continue  # the alternatives measured while choosing the design: no benchmark of their own
        assert re.search(r"```bash\n(?:.*\n)*?python ", text), f"{heading}: no command that reproduces its figures"


def test_each_command_names_a_benchmark_and_flags_it_takes():
    commands = re.findall(r"^python (benchmarks/\w+\.py)([^\n#]*)", PAGE.read_text(encoding="utf-8"), flags=re.M)
    assert len(commands) >= 8
    for script, arguments in commands:
        path = ROOT / script
        assert path.is_file(), script
        used = set(re.findall(r"(?<!\S)(--?[a-z][\w-]*)", arguments))
        assert used <= _flags(path), f"{script}: {sorted(used - _flags(path))} not among its options"


def test_every_link_into_the_page_names_one_of_its_headings():
    anchors = {slug(heading) for heading, _ in _sections()}
    files = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "evalframe").rglob("*.py"),
             *(ROOT / "tests").rglob("*.py")]
    links = [(path, anchor) for path in files
             for anchor in re.findall(r"performance\.md#([\w-]+)", path.read_text(encoding="utf-8"))]
    links += [(PAGE, anchor) for anchor in re.findall(r"\]\(#([\w-]+)\)", PAGE.read_text(encoding="utf-8"))]
    assert links
    assert [(str(path.relative_to(ROOT)), a) for path, a in links if a not in anchors] == []
