"""The plots, for notebooks and reports (extra ``plots``): :mod:`evalframe.report.plots`, under their public path.

They live in the report's stage, before the facade, because the HTML report embeds them.

Examples
--------
>>> from evalframe.present.plots import plot_funnel
>>> plot_funnel.__module__
'evalframe.report.plots'
"""

from ..report.plots import *  # noqa: F403
from ..report.plots import __all__  # noqa: F401
