"""This process's CPU time and peak resident memory, for the Dask benchmarks (bench_dask.py, bench_dask_build.py)."""

from __future__ import annotations

import resource
from pathlib import Path


def peak_rss_mb() -> float:
    """This process's peak RSS in MB: VmHWM of /proc/self/status (Linux), else ``ru_maxrss``.

    Not ``ru_maxrss`` on Linux: a worker is forked from the process that starts the cluster and then exec'd, and
    its ``ru_maxrss`` keeps that process's peak (measured 06:12: 10.6 GB in both workers of a cluster started after
    a 10M-row in-memory load), while VmHWM is the peak of the worker's own memory.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux, bytes on macOS


def cpu_seconds() -> float:
    """This process's CPU time (user + system) so far, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
