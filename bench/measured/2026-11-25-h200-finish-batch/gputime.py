"""GPU time of each launch of a search (CUDA events around each), recorded or not, on
Porto Alegre: where recording's extra time goes.  BATCH env: batch size."""

import collections
import os
import statistics
import time

import cupy as cp

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev16/data/porto_alegre_all.npz")
batch = int(os.environ.get("BATCH", "64"))
src = [int(s) for s in seeded_sources(g, 20, 0)]
methods = tuple(os.environ.get("METHODS", "near_far,delta_stepping,bucketing").split(","))
for m in methods:
    for rec in (False, True):
        for s in src[:3]:
            sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
events = []


class Timed:
    def __init__(self, f, name):
        self.f, self.name = f, name

    def __getattr__(self, attr):
        return getattr(self.f, attr)

    def __call__(self, *a, **k):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        self.f(*a, **k)
        e1.record()
        events.append((self.name, e0, e1))


kernel, function = _gpu._kernel, _gpu._function
_gpu._kernel = lambda scope, *a: Timed(kernel(scope, *a), "search:" + scope)
_gpu._function = lambda name: Timed(function(name), name.split("<")[0])
for m in methods:
    for rec in (False, True):
        per = collections.defaultdict(list)
        for s in src:
            events.clear()
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
            wall = time.perf_counter() - t
            cp.cuda.Device().synchronize()
            spent = collections.defaultdict(float)
            for name, e0, e1 in events:
                spent[name] += cp.cuda.get_elapsed_time(e0, e1) / 1e3
            spent["launches"] = len(events) * 1e-3
            spent["gpu"] = sum(v for k, v in spent.items() if k != "launches")
            spent["wall"] = wall
            for k, v in spent.items():
                per[k].append(v)
        print(
            f"batch {batch} {m:15s} rec={rec!s:5s} "
            + "  ".join(f"{k} {statistics.median(v) * 1e3:.3f}" for k, v in sorted(per.items())),
            flush=True,
        )
