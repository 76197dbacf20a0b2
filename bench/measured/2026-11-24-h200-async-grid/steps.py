"""Device: an unrecorded search's time by part: perf_counter around engine functions, CUDA
events around each kernel launched through _gpu._kernel.

    PYTHONPATH=ENGINE python3 steps.py GRAPH[,GRAPH] METHODS LABEL
"""

import collections
import functools
import statistics
import sys
import time

import cupy as cp

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.io import load_graph

names, methods, label = sys.argv[1].split(","), sys.argv[2].split(","), sys.argv[3]
spent = collections.defaultdict(float)
events = collections.defaultdict(list)


def wrap(owner, attr, tag):
    f = getattr(owner, attr)

    @functools.wraps(f)
    def g(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[tag] += time.perf_counter() - t

    setattr(owner, attr, g)


for owner, attr in [(_gpu, "prepare"), (_gpu, "run"), (_gpu, "_launch_elementwise")]:
    wrap(owner, attr, attr)
plain = _gpu._kernel


class Timed:
    def __init__(self, k, tag):
        self.k, self.tag = k, tag

    def __getattr__(self, a):
        return getattr(self.k, a)

    def __call__(self, *a, **kw):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        self.k(*a, **kw)
        e.record()
        events[self.tag].append((s, e))


_gpu._kernel = lambda scope, *a, **k: Timed(plain(scope, *a, **k), "k_" + scope)
for name in names:
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    for method in methods:
        for s in src[:3]:
            sssp(g, s, backend="gpu", method=method, batch_size=1024)
        rows = collections.defaultdict(list)
        for s in src:
            spent.clear()
            events.clear()
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            sssp(g, s, backend="gpu", method=method, batch_size=1024)
            rows["total"].append(time.perf_counter() - t)
            for tag, ev in events.items():
                rows[tag].append(sum(cp.cuda.get_elapsed_time(a, b) for a, b in ev) / 1e3)
                rows["n" + tag].append(len(ev) / 1e3)
            for k, v in spent.items():
                rows[k].append(v)
        m = statistics.median
        print(
            f"{label:4s} {name:4s} {method:15s} "
            + "  ".join(f"{k} {m(v) * 1e3:.3f}" for k, v in rows.items()),
            flush=True,
        )
