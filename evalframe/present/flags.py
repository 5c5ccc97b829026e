"""The ``evalframe`` command's argument parsers' rules beyond argparse's: a mistyped flag or command is refused with
the closest one (``did you mean --top-k-retriever?``; a short flag with its other case, the command's short flags
named), and a subcommand's parser keeps its options so that errors can name them as typed. No pandas.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any

from .._validation import close_matches

__all__ = ["Command", "MainParser"]


#: A negative number is a value, not a flag (argparse's rule, for parsers without flags like -1).
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _unknown_flags(parser: argparse.ArgumentParser, tokens: Sequence[str]) -> list[str]:
    """The tokens of ``tokens`` that argparse would read as a flag of ``parser`` it does not have (as typed, before
    any ``=value``): ``--flag`` neither a flag nor the start of one flag's name, ``-x`` no short flag (``-qc`` and
    ``-n5``: their first letter's); a negative number, ``-`` and what follows ``--`` are values."""
    flags = [flag for action in parser._actions for flag in action.option_strings]
    unknown = []
    for token in tokens:
        if token == "--":
            break
        if not token.startswith("-") or token == "-" or " " in token or _NEGATIVE_NUMBER.match(token):
            continue
        name = token.split("=", 1)[0]
        if name.startswith("--"):
            known = name in flags or (parser.allow_abbrev and any(flag.startswith(name) for flag in flags))
        else:
            known = name[:2] in flags
        if not known:
            unknown.append(name)
    return unknown


def _unknown_flag_message(parser: argparse.ArgumentParser, flag: str) -> str:
    """``unrecognized argument FLAG; did you mean ...?``: the closest long flag of ``parser``, or for a short flag the
    one of another case, with every short flag named."""
    flags = [flag for action in parser._actions for flag in action.option_strings]
    if flag.startswith("--"):
        close = close_matches(flag, [f for f in flags if f.startswith("--")])
        hint = f"; did you mean {' or '.join(close)}?" if close else f" ({parser.prog} --help lists its flags)"
        return f"unrecognized argument {flag}{hint}"
    shorts = sorted((f for f in flags if not f.startswith("--")), key=lambda f: (f.lower(), f))
    close = [f for f in shorts if f.lower() == flag[:2].lower()]
    named = (f"the short flags of {parser.prog} are {', '.join(shorts)}" if len(shorts) > 1 else
             f"{parser.prog} has no short flag but -h")
    return f"unrecognized argument {flag}" + (f"; did you mean {' or '.join(close)}?" if close else "") + f" ({named})"


class Command(argparse.ArgumentParser):
    """A subcommand's parser that keeps the options it was given, so that errors can name them as typed, and that
    refuses a flag it does not have with the closest it has (``did you mean --top-k-retriever?``).

    Attributes
    ----------
    options : list of argparse.Action
        The options (not the positional arguments), in the order added.
    flags : dict
        The flag of each option's ``dest`` (its long spelling): ``{"simulated_top_k_retriever": "--top-k-retriever"}``;
        a positional argument's is its name in the usage line (``OUT``).

    Examples
    --------
    >>> import contextlib, io
    >>> metrics = Command(prog="evalframe metrics")
    >>> _ = metrics.add_argument("--top-k-retriever", type=int)
    >>> with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.suppress(SystemExit):
    ...     metrics.parse_args(["--top-k-retreiver", "5"])
    >>> err.getvalue().splitlines()[-1]
    'evalframe metrics: error: unrecognized argument --top-k-retreiver; did you mean --top-k-retriever?'
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: list[argparse.Action] = []
        self.flags: dict[str, str] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if action.option_strings:
            self.options.append(action)
            self.flags.setdefault(action.dest, max(action.option_strings, key=len))
        elif isinstance(action.metavar, str):
            self.flags.setdefault(action.dest, action.metavar)
        else:
            self.flags.setdefault(action.dest, action.dest)
        return action

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's, but an unknown flag is an error naming the closest flag (before a missing argument is:
        ``--nod Reader`` is a typo of ``--node``, not a missing ``--node``), and so is any argument left over."""
        tokens = list(sys.argv[1:] if args is None else args)
        unknown = _unknown_flags(self, tokens)
        if unknown:
            self.error(_unknown_flag_message(self, unknown[0]))
        parsed, extras = super().parse_known_args(tokens, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


class MainParser(argparse.ArgumentParser):
    """The ``evalframe`` parser: a mistyped command or flag before it is refused with the closest one."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        tokens = list(sys.argv[1:] if args is None else args)
        position = next((i for i, token in enumerate(tokens) if not token.startswith("-")), len(tokens))
        unknown = _unknown_flags(self, tokens[:position])
        if unknown:
            self.error(_unknown_flag_message(self, unknown[0]))
        commands = next(action for action in self._actions if isinstance(action, argparse._SubParsersAction)).choices
        if position < len(tokens) and tokens[position] not in commands:
            typed = tokens[position]
            close = close_matches(typed, commands)
            self.error(f"argument COMMAND: invalid choice: {typed!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                       + f" (choose from {', '.join(map(repr, commands))})")
        return super().parse_known_args(tokens, namespace)
