"""Which Dask client runs evalframe's tasks, and running a list of them (docs/cluster.md#pointing-evalframe-at-a-cluster).

``client=`` wins; else the current client of this process (``distributed.get_client()``: the last one created, or
the one a task runs on); else the address in ``DASK_SCHEDULER_ADDRESS`` (connected once and kept); else Dask's
default scheduler (threads in this process), which needs no cluster.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import dask
import distributed

from ..errors import InvalidParameterError

__all__ = ["current_client", "run", "ADDRESS_VARIABLE"]

#: The environment variable naming a scheduler to connect to when no client is given or current.
ADDRESS_VARIABLE = "DASK_SCHEDULER_ADDRESS"
_connected: dict[str, distributed.Client] = {}


def current_client(client: Any = None) -> distributed.Client | None:
    """The client to run on: ``client``, the current one, one connected to ``$DASK_SCHEDULER_ADDRESS``, or None.

    ``client`` may be a :class:`distributed.Client` or a scheduler address (``"tcp://10.0.0.5:8786"``).

    Examples
    --------
    >>> import os
    >>> os.environ.pop("DASK_SCHEDULER_ADDRESS", None) and None
    >>> current_client() is None  # no cluster: Dask's default scheduler in this process
    True
    """
    if client is None:
        try:
            return distributed.get_client()
        except ValueError:
            pass
        address = os.environ.get(ADDRESS_VARIABLE)
        if not address:
            return None
        client = address
    if isinstance(client, str):
        if client not in _connected or _connected[client].status in ("closed", "closing"):
            try:
                _connected[client] = distributed.Client(client, set_as_default=False, timeout="10s")
            except OSError as exc:
                raise InvalidParameterError(f"cannot connect to the Dask scheduler at {client!r} ({exc}); start it, or "
                                            f"pass another address (client= or ${ADDRESS_VARIABLE}).") from None
        return _connected[client]
    if not isinstance(client, distributed.Client):
        raise InvalidParameterError(f"client must be a distributed.Client or a scheduler address such as "
                                    f"'tcp://127.0.0.1:8786'; got {type(client).__name__}.")
    return client


def run(tasks: Sequence[Any], client: distributed.Client | None) -> list[Any]:
    """Compute the ``dask.delayed`` ``tasks`` on ``client`` (or Dask's default scheduler); their values, in order."""
    if not tasks:
        return []
    if client is None:
        return list(dask.compute(*tasks))
    return list(client.gather(client.compute(list(tasks))))
