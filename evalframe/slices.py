"""Deprecated alias of :mod:`evalframe.analysis.slices`, where this module moved; import from there."""

from .errors import warn
from .analysis.slices import *  # noqa: F403
from .analysis.slices import __all__  # noqa: F401

warn("evalframe.slices moved to evalframe.analysis.slices; import it from there (this alias will be removed).", FutureWarning)
