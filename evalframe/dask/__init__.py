"""evalframe on Dask: partitioned results evaluated, and frames built, on a Dask cluster (docs/cluster.md).

Needs ``pip install "evalframe[dask]"``; ``import evalframe`` never imports it. Modules:

``client``   which Dask client runs the tasks (``client=`` or the current one) and running them;
``result``   :class:`DaskEvaluationResult`: the analyses of :class:`evalframe.EvaluationResult`, one task per
             partition of a partitioned folder, with the same kernels; only partial sums and the n worst queries
             come back;
``compare``  :func:`evalframe.compare` of partitioned folders: per-partition sums and distinct differences;
``build``    ``from_runs`` over sharded runs files on the workers, written as a partitioned folder;
``trec``     ``from_trec``: TREC runs (text, gzip, Parquet; paths or URLs) read in blocks on the workers, shuffled by
             query to partitions, evaluated with trec_eval's rules.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(f"evalframe.dask needs Dask ({exc.name} is missing): pip install 'evalframe[dask]'.") from None

from .build import BuiltFolder, from_runs
from .client import current_client
from .compare import compare
from .result import DaskEvaluationResult, load
from .trec import from_trec

__all__ = ["BuiltFolder", "DaskEvaluationResult", "compare", "current_client", "from_runs", "from_trec", "load"]
