"""Deprecated alias of :mod:`evalframe.build.matching`, where this module moved; import from there."""

from .errors import warn
from .build.matching import *  # noqa: F403
from .build.matching import __all__  # noqa: F401

warn("evalframe.matching moved to evalframe.build.matching; import it from there (this alias will be removed).", FutureWarning)
