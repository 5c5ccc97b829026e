"""The one exception family of evalframe.

Every error evalframe raises on purpose derives from :class:`EvalframeError`, itself a
``ValueError``, so ``except ValueError`` keeps working for callers that do not know evalframe.
"""

from __future__ import annotations

__all__ = [
    "EvalframeError",
    "InvalidParameterError",
    "UnknownNodeError",
    "SchemaError",
    "LoadError",
    "SaveError",
]


class EvalframeError(ValueError):
    """Base class of every error evalframe raises deliberately."""


class InvalidParameterError(EvalframeError):
    """A public function was called with an argument outside its valid values."""


class UnknownNodeError(InvalidParameterError, KeyError):
    """A node name that the EvaluationResult does not hold.

    Also a ``KeyError`` so that ``result["missing"]`` behaves like a dict lookup.
    """

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class SchemaError(EvalframeError):
    """A node DataFrame lacks a column (or holds a value) the computation needs."""


class LoadError(EvalframeError):
    """A results folder or one of its files cannot be read; the message names file, row and column."""


class SaveError(EvalframeError):
    """A result cannot be written losslessly; nothing was written."""
