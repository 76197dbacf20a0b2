"""Device: a recorded search's time by part, without a profiler: perf_counter around the
engine's functions (each wrapper ≈ 1 µs), CUDA events around the search kernel.

    PYTHONPATH=ENGINE python3 steps2.py GRAPH METHODS LABEL
"""

import collections
import functools
import statistics
import sys
import time

import cupy as cp

from engine import _backend, _gpu, recording, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz
from engine.io import load_graph

name, methods, label = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
spent = collections.defaultdict(float)
events = []


def wrap(owner, attr, tag):
    f = getattr(owner, attr, None)
    if f is None:
        return

    @functools.wraps(f)
    def g(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[tag] += time.perf_counter() - t

    setattr(owner, attr, g)


for owner, attr in [
    (_gpu, "finish_rows"),
    (_gpu._Recorder, "record"),
    (_gpu._Recorder, "take_batch"),
    (recording.Recording, "append"),
    (recording.Recording, "__init__"),
    (_gpu, "prepare"),
    (_gpu, "_launch_elementwise"),
    (_gpu, "_initial_row"),
    (_backend, "pinned_empty"),
    (_gpu, "sum_bins"),
    (_gpu, "_launch_over"),
]:
    wrap(owner, attr, attr)
plain = _gpu._kernel


class Timed:
    def __init__(self, k):
        self.k = k

    def __getattr__(self, a):
        return getattr(self.k, a)

    def __call__(self, *a, **kw):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        self.k(*a, **kw)
        e.record()
        events.append((s, e))


_gpu._kernel = lambda *a, **k: Timed(plain(*a, **k))
g = (
    load_npz(f".dev15/data/{name}")
    if name.endswith(".npz")
    else load_graph(f".dev15/data/{name}.gr.xz", weights="random:1")
)
src = [int(s) for s in seeded_sources(g, 40, 0)]
for method in methods:
    for record in (False, True):
        for s in src[:5]:
            sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
        rows = collections.defaultdict(list)
        for s in src:
            spent.clear()
            events.clear()
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
            rows["total"].append(time.perf_counter() - t)
            rows["kernel"].append(sum(cp.cuda.get_elapsed_time(a, b) for a, b in events) / 1e3)
            for k, v in spent.items():
                rows[k].append(v)
        m = statistics.median
        print(
            f"{label:4s} {name[:10]:10s} {method:15s} rec={record!s:5s} "
            + "  ".join(f"{k} {m(v) * 1e3:.3f}" for k, v in rows.items()),
            flush=True,
        )
