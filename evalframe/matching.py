"""Deprecated alias of :mod:`evalframe.sources.matching`, where this module moved; import from there."""

from .errors import warn
from .sources.matching import *  # noqa: F403
from .sources.matching import __all__  # noqa: F401

warn("evalframe.matching moved to evalframe.sources.matching; import it from there (this alias will be removed).", FutureWarning)
