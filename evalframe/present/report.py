"""Deprecated alias of :mod:`evalframe.report`, where the report moved (a stage before the facade); import from there."""

from ..errors import warn
from ..report import *  # noqa: F403
from ..report import __all__  # noqa: F401

warn("evalframe.present.report moved to evalframe.report; import it from there (this alias will be removed).",
     FutureWarning)
