"""COL end to end against the GPU time of its launches (near_far_async), and the steps of
run() on the host: where the time outside the search kernel goes."""

import collections
import statistics
import time

import cupy as cp

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.io import load_graph

g = load_graph(".dev16/data/pace16/COL.gr.xz", weights="random:1")
src = [int(s) for s in seeded_sources(g, 20, 0)]
auto = g.auto_delta()
for delta in ("adaptive", 3 * auto):
    for s in src[:3]:
        sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
    walls = []
    for s in src:
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
        walls.append(time.perf_counter() - t)
    print(f"COL delta={delta} wall {statistics.median(walls) * 1e3:.3f} ms", flush=True)

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
spent = collections.defaultdict(float)


def wrap(owner, attr):
    f = getattr(owner, attr)

    def w(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[attr] += time.perf_counter() - t

    setattr(owner, attr, w)


wrap(_gpu, "prepare")
wrap(_gpu, "run")
for delta in ("adaptive", 3 * auto):
    per = collections.defaultdict(list)
    for s in src:
        events.clear()
        spent.clear()
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
        wall = time.perf_counter() - t
        cp.cuda.Device().synchronize()
        got = dict(spent)
        for name, e0, e1 in events:
            got[name] = got.get(name, 0) + cp.cuda.get_elapsed_time(e0, e1) / 1e3
        got["wall"] = wall
        for k, v in got.items():
            per[k].append(v)
    print(
        f"COL delta={delta} (events) "
        + "  ".join(f"{k} {statistics.median(v) * 1e3:.3f}" for k, v in sorted(per.items())),
        flush=True,
    )
