"""Where a recorded search's time goes: kernel time (CUDA events around each launch) and the
rest on the host, with the engine that PYTHONPATH finds.

    PYTHONPATH=ENGINE python3 rec_split.py NE|porto_alegre_all.npz near_far,delta_stepping LABEL

Graphs are read from ``.data/`` (PACE ``NAME.gr.xz`` with ``random:1`` weights, or a CSR
``.npz``); batch 1024, median of 10 seeded sources.
"""

import statistics
import sys
import time

import cupy as cp

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz
from engine.io import load_graph

name, methods, label = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
if name.endswith(".npz"):
    g = load_npz(f".data/{name}")
else:
    g = load_graph(f".data/{name}.gr.xz", weights="random:1")
src = [int(s) for s in seeded_sources(g, 10, 0)]
events = []
plain = _gpu._kernel


class Timed:
    """A kernel whose launches are timed by CUDA events."""

    def __init__(self, kernel):
        self.kernel = kernel

    def __getattr__(self, attr):
        return getattr(self.kernel, attr)

    def __call__(self, *args, **kw):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        self.kernel(*args, **kw)
        stop.record()
        events.append((start, stop))


_gpu._kernel = lambda *a, **k: Timed(plain(*a, **k))
for method in methods:
    for record in (False, True):
        sssp(g, src[0], backend="gpu", method=method, record=record, batch_size=1024)
        total, kernels, launches = [], [], []
        for s in src:
            events.clear()
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
            total.append(time.perf_counter() - t)
            kernels.append(sum(cp.cuda.get_elapsed_time(a, b) for a, b in events) / 1e3)
            launches.append(r.counters.host_syncs)
        m = statistics.median
        rest = m([a - b for a, b in zip(total, kernels, strict=True)])
        print(
            f"{label:9s} {name:10s} {method:15s} rec={record!s:5s} total {m(total) * 1e3:6.2f} ms"
            f"  kernels {m(kernels) * 1e3:6.2f} ms  rest {rest * 1e3:6.2f} ms"
            f"  launches {m(launches)}",
            flush=True,
        )
