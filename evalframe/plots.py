"""Deprecated alias of :mod:`evalframe.present.plots`, where this module moved; import from there."""

from .errors import warn
from .present.plots import *  # noqa: F403
from .present.plots import __all__  # noqa: F401

warn("evalframe.plots moved to evalframe.present.plots; import it from there (this alias will be removed).", FutureWarning)
