# ruff: noqa: E501
"""near_far_core by max_degree and Delta factor (of the core graph's heuristic).
python .dev16/core2.py NE,NY 3,4,5 0.5,0.7,1,1.4,2"""

import pathlib
import statistics as st
import sys
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra

import engine
from engine import contraction, sssp
from engine.bench import seeded_sources
from engine.search import from_scipy

graphs = sys.argv[1].split(",")
degrees = [int(x) for x in sys.argv[2].split(",")]
factors = [float(x) for x in sys.argv[3].split(",")]
for name in graphs:
    g = engine.load_graph(pathlib.Path(f".dev16/data/pace16/{name}.gr.xz"), weights="random:1")
    starts = seeded_sources(g, 20, 0)
    M = g.scipy_matrix()
    ref = []
    sci = []
    for s in starts:
        t0 = time.perf_counter()
        d = dijkstra(M, indices=int(s))
        sci.append(time.perf_counter() - t0)
        ref.append(from_scipy(d))
    deg = np.diff(g.indptr)
    dj = st.median(int(deg[r != engine.UNREACHABLE].sum()) for r in ref)
    sms = st.median(sci) * 1e3
    print(f"{name}: scipy {sms:.1f} ms dijkstra arcs {dj}", flush=True)
    for k in degrees:
        c = contraction.contract(g, max_degree=k)
        contraction._cores[g] = c
        h = c.graph
        print(
            f" k={k}: core {c.n_core} rounds {c.n_rounds} H arcs {h.n_arcs} down {c.n_down} ({c.n_down / dj:.3f}) contract {c.seconds:.1f}s {h.distance_dtype()} autoH {h.auto_delta()}",
            flush=True,
        )
        for f in factors:
            d = max(1, int(f * h.auto_delta()))
            sssp(g, int(starts[0]), method="near_far_core", delta=d)
            ts, arcs, ok = [], [], True
            for s, r in zip(starts, ref, strict=False):
                t0 = time.perf_counter()
                res = sssp(g, int(s), method="near_far_core", delta=d)
                ts.append(time.perf_counter() - t0)
                arcs.append(res.counters.edges_relaxed)
                ok &= bool(np.array_equal(res.distances, r))
            med = st.median(ts) * 1e3
            print(
                f"   f {f:4.2f} delta {d:6d} {med:7.3f} ms  x{sms / med:5.1f}  arcs {st.median(arcs) / dj:.3f}  exact {ok}",
                flush=True,
            )
