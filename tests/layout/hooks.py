"""The hook rule of tests/test_layout.py: no module of evalframe keeps a hook for tests (:func:`hooks_for_tests`)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from .registries import bindings, block_statements

#: The last version of evalframe/io/atomic.py with its test hook (``step_hook``), which the hook rule must find.
OLD_ATOMIC = ("c9092f84726c860fa29eeca970a730f8032aa8c1", "evalframe/io/atomic.py")


def comments_by_line(source: str) -> dict[int, str]:
    """The comment on each line of ``source`` (tokenized: a ``#`` inside a string is no comment)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string for token in tokens if token.type == tokenize.COMMENT}


def hooks_for_tests(source: str, filename: str, tree: ast.Module | None = None) -> list[str]:
    """Module-level names that exist for tests: production code is tested as it runs, with no hook of its own.

    Two rules, read from the source (at module level, any depth of ``if`` / ``try`` / ``with`` blocks included):

    * no name bound to None whose name ends in ``_hook`` (``step_hook = None``, ``on_save_hook: ... = None``);
    * no name -- assigned, or a ``def`` / ``class`` -- whose comment (the ``#`` lines right above it, or the one
      after it) or docstring (a function's or class's, or the string right after an assignment) says "test hook".

    A test replaces the function it needs (``monkeypatch.setattr(atomic, "step", ...)``): see
    :func:`evalframe.io.atomic.step`, a no-op marker the code looks up when it runs.

    What it cannot see: the rule reads names and words, not intent. A hook under another name with no such comment
    (``_on_step = None``, then ``if _on_step is not None: _on_step(name)``), or one whose comment says it otherwise
    ("injected by tests", "for testing"), passes; so does a hook kept in a dict, an attribute or a default argument.
    It is a tripwire for the form atomic.py had (:data:`OLD_ATOMIC`), not a proof that no hook is left: review
    still decides whether a module-level ``None`` exists only for tests.

    Examples
    --------
    >>> hooks_for_tests("#: Test hook (None outside tests).\\nsave_hook = None\\n", "m.py")  # doctest: +NORMALIZE_WHITESPACE
    ['m.py:2: save_hook (a *_hook name bound to None at module level)',
     'm.py:2: save_hook (its comment or docstring says it is a test hook)']
    """
    tree = ast.parse(source) if tree is None else tree  # ``tree``: ``source`` parsed already
    lines = source.splitlines()
    # a comment is the source's own text: with no "hook" in the source none says "test hook" (not tokenized, then);
    # names and docstrings are read from the tree, their escapes and normalisation undone
    comments = comments_by_line(source) if "hook" in source.lower() else {}
    found = []
    statements = list(block_statements(tree.body))
    following = {id(a): b for a, b in zip(statements, statements[1:])}
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            named = [(statement.name, None)]
            docstring = ast.get_docstring(statement) or ""
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            named = list(bindings(statement)) or [
                (target.id, None) for target in [getattr(statement, "target", None)] if isinstance(target, ast.Name)]
            after = following.get(id(statement))
            docstring = (after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                         and isinstance(after.value.value, str) else "")
        else:
            continue
        first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
        said = [docstring] + [comments.get(line, "") for line in range(first, (statement.end_lineno or first) + 1)
                              if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                              or line < statement.body[0].lineno]
        above = first - 1
        while above >= 1 and lines[above - 1].strip().startswith("#"):
            said.append(lines[above - 1])
            above -= 1
        for name, value in named:
            at = f"{filename}:{statement.lineno}: {name}"
            if name.endswith("_hook") and isinstance(value, ast.Constant) and value.value is None:
                found.append(f"{at} (a *_hook name bound to None at module level)")
            if re.search(r"\btest[-_ ]?hooks?\b", " ".join(said), re.IGNORECASE):
                found.append(f"{at} (its comment or docstring says it is a test hook)")
    return sorted(found, key=lambda problem: (int(problem.split(":")[1]), problem))
