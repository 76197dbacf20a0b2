# ruff: noqa: E501
"""near_far_core: a sweep of fixed Delta (multiples of the core's heuristic) against
adaptive, on PACE graphs and .npz graphs. python .dev16/core3.py NY,porto_alegre_all.npz 0.5,1,2"""

import pathlib
import statistics as st
import sys
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra

import engine
from engine import contraction, sssp
from engine.bench import seeded_sources
from engine.graph import load_npz
from engine.search import from_scipy

graphs = sys.argv[1].split(",")
factors = [float(x) for x in sys.argv[2].split(",")]
for name in graphs:
    if name.endswith(".npz"):
        g = load_npz(f".dev16/data/{name}")
    else:
        g = engine.load_graph(pathlib.Path(f".dev16/data/pace16/{name}.gr.xz"), weights="random:1")
    c = contraction.core_of(g)
    h = c.graph
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
    print(
        f"{name}: n {g.n_nodes} core {c.n_core} rounds {c.n_rounds} contract {c.seconds:.1f}s core auto {h.auto_delta()} scipy {sms:.1f} ms",
        flush=True,
    )
    cases = [("near_far_core", max(1, round(f * h.auto_delta()))) for f in factors]
    cases += [
        ("near_far_core", "adaptive"),
        ("near_far_async", "adaptive"),
        ("near_far_async", "auto"),
    ]
    for rnd in range(2):
        for m, d in cases:
            sssp(g, int(starts[0]), method=m, delta=d)
            ts, arcs, ok = [], [], True
            for s, r in zip(starts, ref, strict=False):
                t0 = time.perf_counter()
                res = sssp(g, int(s), method=m, delta=d)
                ts.append(time.perf_counter() - t0)
                arcs.append(res.counters.edges_relaxed)
                ok &= bool(np.array_equal(res.distances, r))
            med = st.median(ts) * 1e3
            print(
                f"  r{rnd} {m:15s} {d!s:9s} {med:7.3f} ms  x{sms / med:5.1f}  arcs {st.median(arcs) / dj:.3f}  exact {ok}",
                flush=True,
            )
