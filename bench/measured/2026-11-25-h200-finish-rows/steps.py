"""Device: a recorded search's host steps on Porto Alegre (perf_counter around the engine's
functions), and ``PROBE``'s timers where the engine has them (the probe copy of the first
step's tree: the work before, the wait in and the work after `_Recorder.record`'s wait).

    PYTHONPATH=ENGINE python3 steps.py
"""

import collections
import functools
import statistics
import time

import cupy as cp

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev16/data/porto_alegre_all.npz")
spent = collections.defaultdict(float)
WRAPPED = [
    (_gpu, "count_rows"),
    (_gpu._Recorder, "take_batch"),
    (_gpu._Recorder, "record"),
    (_gpu, "run"),
    (_gpu, "prepare"),
]


def wrap(owner, attr):
    f = getattr(owner, attr, None)
    if f is None:
        return

    @functools.wraps(f)
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            spent[attr] += time.perf_counter() - t

    setattr(owner, attr, timed)


for owner, attr in WRAPPED:
    wrap(owner, attr)
probe = getattr(_gpu, "PROBE", {})
src = [int(s) for s in seeded_sources(g, 40, 0)]
for method in ("delta_stepping", "near_far"):
    for record in (False, True):
        for s in src[:5]:
            sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
        rows = collections.defaultdict(list)
        for s in src:
            spent.clear()
            probe.clear()
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
            rows["total"].append(time.perf_counter() - t)
            for k, v in (spent | probe).items():
                rows[k].append(v)
        parts = "  ".join(f"{k} {statistics.median(v) * 1e3:.3f}" for k, v in rows.items())
        print(f"{method:15s} rec={record!s:5s} {parts}", flush=True)
