"""Device: CuPy's pinned pool after recorded searches from many sources (blocks kept, RSS).

PYTHONPATH=ENGINE python3 pool.py LABEL
"""

import sys

import cupy as cp

from engine import sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev15/data/porto_alegre_all.npz")
pool = cp.get_default_pinned_memory_pool()


def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024


for k, s in enumerate(seeded_sources(g, 300, 5)):
    sssp(g, int(s), backend="gpu", method="delta_stepping", record=True, batch_size=64)
    if k + 1 in (10, 100, 300):
        kept = pool.n_free_blocks()
        print(
            f"{sys.argv[1]:4s} after {k + 1:3d} searches: {kept:5d} free pinned blocks kept,"
            f" RSS {rss_mb():7.1f} MB",
            flush=True,
        )
