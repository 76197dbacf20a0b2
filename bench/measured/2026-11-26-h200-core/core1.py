# ruff: noqa: E501
"""near_far_core vs near_far_async on PACE graphs: exactness, time, arcs, by Delta factor.
python .dev16/core1.py NY,NE 0.25,0.5,1,2"""

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
factors = [float(x) for x in sys.argv[2].split(",")]
nsrc = int(sys.argv[3]) if len(sys.argv) > 3 else 20
for name in graphs:
    g = engine.load_graph(pathlib.Path(f".dev16/data/pace16/{name}.gr.xz"), weights="random:1")
    t = time.perf_counter()
    c = contraction.core_of(g)
    ct = time.perf_counter() - t
    h = c.graph
    print(
        f"{name}: n {g.n_nodes} core {c.n_core} rounds {c.n_rounds} H arcs {h.n_arcs} down {c.n_down} contract {ct:.1f}s dtype {h.distance_dtype()} autoH {h.auto_delta()} autoG {g.auto_delta()}",
        flush=True,
    )
    starts = seeded_sources(g, nsrc, 0)
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
    print(f"  scipy {st.median(sci) * 1e3:.1f} ms  dijkstra arcs {dj}", flush=True)
    cases = [("near_far_async", "adaptive"), ("near_far_core", "adaptive")]
    cases += [("near_far_core", max(1, int(f * h.auto_delta()))) for f in factors]
    for m, d in cases:
        sssp(g, int(starts[0]), method=m, delta=d)
    for rnd in range(2):
        for m, d in cases:
            ts, arcs, ok = [], [], True
            for s, r in zip(starts, ref, strict=False):
                t0 = time.perf_counter()
                res = sssp(g, int(s), method=m, delta=d)
                ts.append(time.perf_counter() - t0)
                arcs.append(res.counters.edges_relaxed)
                ok &= bool(np.array_equal(res.distances, r))
            med = st.median(ts) * 1e3
            print(
                f"  r{rnd} {m:15s} {d!s:9s} {med:7.3f} ms  x{st.median(sci) * 1e3 / med:5.1f}  arcs {st.median(arcs) / dj:.3f}  exact {ok}  backend {res.backend}",
                flush=True,
            )
