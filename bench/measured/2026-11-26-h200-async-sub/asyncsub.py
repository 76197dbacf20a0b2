"""near_far_async's sub-band width (x Davidson's Delta) at multiples of Davidson's Delta,
against near_far, in one process. python .dev16/asyncsub.py NE,NY 1,2,4 2,4,8,16"""

import statistics
import sys
import time

import cupy as cp
import numpy as np

import engine
from engine import _gpu
from engine.experiments import seeded_sources

real_run = _gpu.run
SUB = {"w": _gpu.ASYNC_SUB}
_gpu.run = lambda spec, on_batch=None, **kw: real_run(spec, on_batch, async_sub=SUB["w"], **kw)

print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
widths = [int(w) for w in sys.argv[2].split(",")]
for name in sys.argv[1].split(","):
    g = engine.load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    sources = [int(s) for s in seeded_sources(g, 20, 0)]
    auto = g.auto_delta()
    for factor in (int(f) for f in sys.argv[3].split(",")):
        delta = factor * auto

        def one(method, s, delta=delta, g=g):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engine.sssp(g, s, backend="gpu", method=method, delta=delta, batch_size=1024)
            return (time.perf_counter() - t) * 1e3, r

        cells = {f"w{w}": w for w in widths}
        times = {k: [] for k in [*cells, "sync"]}
        handed = dict.fromkeys(cells, 0)
        for rnd in range(2):
            for s in sources:
                ref = one("near_far", s)
                times["sync"].append(ref[0])
                for key, w in cells.items():
                    SUB["w"] = w
                    if rnd == 0 and s == sources[0]:
                        one("near_far_async", s)
                    t, r = one("near_far_async", s)
                    times[key].append(t)
                    handed[key] += r.counters.iterations > 0
                    assert np.array_equal(r.distances, ref[1].distances)
        med = {k: statistics.median(v) for k, v in times.items()}
        cols = " ".join(f"{k} {med[k]:.3f} ({handed[k]})" for k in cells)
        print(f"{name} x{factor}: near_far {med['sync']:.3f}; async {cols}", flush=True)
