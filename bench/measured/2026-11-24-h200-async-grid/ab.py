"""Device: one engine copy's near_far_async (scope from argv) and near_far over Δ.
PYTHONPATH=COPY python3 ab2.py LABEL SCOPE GRAPHS SCALES METHODS"""

import statistics
import sys
import time

import numpy as np

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.io import load_graph

label, scope, names, scales, methods = sys.argv[1:6]
if scope != "-":
    _gpu.ASYNC_SCOPE = scope
for name in names.split(","):
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    ref = np.load(f"/tmp/ref-{name}.npy")
    for scale in scales.split(","):
        delta = "adaptive" if scale == "a" else max(1, round(g.auto_delta() * float(scale)))
        for method in methods.split(","):
            for s in src[:2]:
                sssp(g, s, backend="gpu", method=method, delta=delta)
            ts, ok, arcs = [], True, []
            for k, s in enumerate(src):
                t = time.perf_counter()
                r = sssp(g, s, backend="gpu", method=method, delta=delta)
                ts.append(time.perf_counter() - t)
                ok &= bool(np.array_equal(r.distances, ref[k]))
                arcs.append(r.counters.edges_relaxed)
            ms = statistics.median(ts) * 1e3
            print(
                f"{label:4s} {name:4s} x{scale:<4} {method:15s} {ms:7.3f} ms "
                f"arcs {statistics.median(arcs):,.0f} exact {ok}",
                flush=True,
            )
