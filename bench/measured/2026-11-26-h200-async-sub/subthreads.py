"""near_far_async with sub-bands: blocks of 1,024 threads (the default from 4 x Davidson's
Delta) against 512, paired in one process; and near_far. python .dev16/subthreads.py NE 6,8,16"""

import statistics
import sys
import time

import cupy as cp
import numpy as np

import engine
from engine import _gpu
from engine.experiments import seeded_sources

real_run = _gpu.run
THREADS = {"n": None}
_gpu.run = lambda spec, on_batch=None, **kw: real_run(
    spec, on_batch, async_threads=THREADS["n"], **kw
)
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
for name in sys.argv[1].split(","):
    g = engine.load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    sources = [int(s) for s in seeded_sources(g, 20, 0)]
    for factor in (int(f) for f in sys.argv[2].split(",")):
        delta = factor * g.auto_delta()
        cells = [("t1024", None, "near_far_async"), ("t512", 512, "near_far_async"),
                 ("sync", None, "near_far")]  # fmt: skip

        def one(cell, s, delta=delta, g=g):
            THREADS["n"] = cell[1]
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engine.sssp(g, s, backend="gpu", method=cell[2], delta=delta, batch_size=1024)
            return (time.perf_counter() - t) * 1e3, r

        for c in cells:
            one(c, sources[0])
        times = {c[0]: [] for c in cells}
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = cells[(k + rnd) % 3 :] + cells[: (k + rnd) % 3]
                got = {c[0]: one(c, s) for c in order}
                for key in times:
                    times[key].append(got[key][0])
                    assert np.array_equal(got[key][1].distances, got["sync"][1].distances)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{name} x{factor}: " + " ".join(f"{k} {v:.3f}" for k, v in med.items()), flush=True)
