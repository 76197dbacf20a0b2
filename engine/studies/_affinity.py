"""A GPU worker of a ``local-gpu`` Dask cluster kept on the CPU cores next to its GPU.

Dask loads this module into each worker it starts for `distributed.connect` (a ``preload``),
as dask-cuda's ``CPUAffinity`` does for its workers: a worker's host work (its kernels'
launches and waits, its searches' SciPy references) then stays on its GPU's NUMA node
instead of wandering to the other socket's cores and memory.
"""

from __future__ import annotations

import os

from engine.backends import device as _backend


def dask_setup(worker) -> None:
    """Dask's preload hook: pin this worker process to its GPU's cores."""
    pin(_backend.local_cpus())


def pin(cpus: set[int]) -> None:
    """Keep every thread of this process on ``cpus`` (nothing changes when empty); threads
    started later inherit it."""
    if not cpus:
        return
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except (OSError, ValueError):  # a thread that has just ended
            pass
