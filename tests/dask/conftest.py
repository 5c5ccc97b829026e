"""The evalframe.dask tests run on the session's LocalCluster of two worker processes (``dask_client``,
tests/conftest.py), the one the ``backend`` fixture's dask tests use: started once for the whole suite.

Its client is not the default one: tests pass ``client=`` (those without it run on Dask's scheduler in the process).
"""

from __future__ import annotations

import pytest

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="session")
def client(dask_client):
    return dask_client
