"""Deprecated alias of :mod:`evalframe.analysis.stats`, where this module moved; import from there."""

from .errors import warn
from .analysis.stats import *  # noqa: F403
from .analysis.stats import __all__  # noqa: F401

warn("evalframe.stats moved to evalframe.analysis.stats; import it from there (this alias will be removed).", FutureWarning)
