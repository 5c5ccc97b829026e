"""One LocalCluster of two worker processes for the evalframe.dask tests (as CI runs them).

Its client is not the default one: tests pass ``client=`` (those without it run on Dask's scheduler in the process).
"""

from __future__ import annotations

import pytest

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="session")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit="2GB") as cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client
