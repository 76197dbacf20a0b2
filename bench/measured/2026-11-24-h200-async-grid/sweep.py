"""Device: near_far_async on one cluster and on the whole grid, and near_far, over Δ
(multiples of the auto Δ, and adaptive), 20 seeded sources, every distance checked.

    PYTHONPATH=ENGINE python3 sweep.py GRAPHS SCALES
"""

import statistics
import sys
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.graph import UNREACHABLE
from engine.io import load_graph

names = sys.argv[1].split(",")
scales = sys.argv[2].split(",")
variants = [("near_far_async", "async"), ("near_far_async", "async_grid"), ("near_far", None)]
for name in names:
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    m = g.scipy_matrix()
    ref, sc = [], []
    for s in src:
        t = time.perf_counter()
        d = dijkstra(m, indices=s)
        sc.append(time.perf_counter() - t)
        ref.append(np.where(np.isinf(d), UNREACHABLE, d).astype(np.int64))
    scipy_ms = statistics.median(sc) * 1e3
    for scale in scales:
        delta = "adaptive" if scale == "a" else max(1, round(g.auto_delta() * float(scale)))
        for method, scope in variants:
            if scope:
                _gpu.ASYNC_SCOPE = scope
            for s in src[:2]:
                sssp(g, s, backend="gpu", method=method, delta=delta)
            ts, ok, arcs = [], True, []
            for s, want in zip(src, ref, strict=True):
                t = time.perf_counter()
                r = sssp(g, s, backend="gpu", method=method, delta=delta)
                ts.append(time.perf_counter() - t)
                ok &= bool(np.array_equal(r.distances, want))
                arcs.append(r.counters.edges_relaxed)
            ms = statistics.median(ts) * 1e3
            print(
                f"{name:4s} x{scale:<4} {method:15s} {scope or '-':10s} {ms:7.3f} ms "
                f"{scipy_ms / ms:5.1f}x scipy({scipy_ms:.0f}) arcs {statistics.median(arcs):,.0f}"
                f" exact {ok}",
                flush=True,
            )
