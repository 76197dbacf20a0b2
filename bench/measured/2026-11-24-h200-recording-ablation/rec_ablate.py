"""Device: recorded Near-Far on NE with parts of recording switched off (timing only)."""

import statistics
import sys
import time

import cupy as cp

from engine import sssp
from engine.experiments import seeded_sources
from engine.io import load_graph

g = load_graph(".data/NE.gr.xz", weights="random:1")
src = [int(s) for s in seeded_sources(g, 10, 0)]
for record in (False, True):
    sssp(g, src[0], backend="gpu", record=record, batch_size=1024)
    tot = []
    for s in src:
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        sssp(g, s, backend="gpu", method="near_far", record=record, batch_size=1024)
        tot.append(time.perf_counter() - t)
    print(f"{sys.argv[1]:10s} rec={record!s:5s} {statistics.median(tot) * 1e3:7.2f} ms", flush=True)
