"""The one exception family of evalframe.

Every error evalframe raises on purpose derives from :class:`EvalframeError`, itself a
``ValueError``, so ``except ValueError`` keeps working for callers that do not know evalframe.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = [
    "warn",
    "EvalframeError",
    "InvalidParameterError",
    "UnknownNodeError",
    "UnknownArgumentError",
    "SchemaError",
    "LoadError",
    "SaveError",
]


class EvalframeError(ValueError):
    """Base class of every error evalframe raises deliberately.

    Parameters
    ----------
    message : str
        The one-line message.
    parameter : str, optional
        The Python parameter the error is about (``simulated_top_k_retriever``), for callers that name it otherwise:
        the ``evalframe`` command shows its flag instead (:meth:`naming`). A message about a parameter starts with
        its name when the name is its subject.

    Examples
    --------
    >>> error = EvalframeError("simulated_top_k_retriever must be -1 or a positive int; got 0.",
    ...                        parameter="simulated_top_k_retriever")
    >>> error.naming("--top-k-retriever")
    '--top-k-retriever must be -1 or a positive int; got 0.'
    >>> EvalframeError("unknown measure 'x'.", parameter="measures").naming("--measure")
    "--measure: unknown measure 'x'."
    """

    def __init__(self, *args: object, parameter: str | None = None) -> None:
        super().__init__(*args)
        self.parameter = parameter

    def naming(self, shown: str) -> str:
        """The message with :attr:`parameter` called ``shown``: in place of the leading name, else as a prefix."""
        message = str(self)
        name = self.parameter
        if not name:
            return message
        # only the leading name is the parameter for sure: later the same word may be English ('node', 'names')
        if message.startswith(name) and message[len(name):len(name) + 1] in ("", " ", "=", ":", ";", ".", ","):
            rest = message[len(name):]
            return shown + (" " + rest[1:] if rest.startswith("=") else rest)
        return f"{shown}: {message}"


class InvalidParameterError(EvalframeError):
    """A public function was called with an argument outside its valid values."""


class UnknownNodeError(InvalidParameterError, KeyError):
    """A node name that the EvaluationResult does not hold.

    Also a ``KeyError`` so that ``result["missing"]`` behaves like a dict lookup.
    """

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class UnknownArgumentError(InvalidParameterError, TypeError):
    """A keyword argument the function does not take (the message lists those it does, and the nearest name).

    Also a ``TypeError``, what Python raises for an unexpected keyword argument.
    """


class SchemaError(EvalframeError):
    """A node DataFrame lacks a column (or holds a value) the computation needs."""


class LoadError(EvalframeError):
    """A results folder or one of its files cannot be read; the message names file, row and column."""


class SaveError(EvalframeError):
    """A result cannot be written losslessly, or its folder could not be put in place.

    Refused before writing (the common case), nothing was written. A failure while the folder is swapped (the
    rename fallback of file systems without an atomic exchange) says what the folder holds at that moment.
    """


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the user's line: the first caller outside evalframe, however deep inside evalframe this is called.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("look")
    >>> caught[0].filename.endswith("evalframe" + os.sep + "errors.py")
    False
    """
    level, frame = 1, sys._getframe(1)
    # (frames of the import machinery, between an import line and a module warning as it is imported, are
    # skipped by warnings.warn itself)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    warnings.warn(message, category, stacklevel=level + 1)
