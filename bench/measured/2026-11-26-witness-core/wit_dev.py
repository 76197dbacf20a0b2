"""near_far_core with and without witnesses, by max_degree; Delta multiples of each core's
heuristic and adaptive; configs interleaved per round. python .dev16/wit_dev.py NY,NE

(Ran on the first version of the change, whose `contract` took a `witness` keyword.)"""

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

CONFIGS = [(False, 4), (True, 4), (True, 6), (True, 8), (True, 12)]
FACTORS = [1, 2, "adaptive"]


def load(name):
    if name.endswith(".npz"):
        return load_npz(f".dev16/data/{name}")
    return engine.load_graph(pathlib.Path(f".dev16/data/pace16/{name}.gr.xz"), weights="random:1")


def timed(g, starts, ref, delta):
    sssp(g, int(starts[0]), method="near_far_core", delta=delta)
    ts, arcs, ok = [], [], True
    for s, r in zip(starts, ref, strict=True):
        t0 = time.perf_counter()
        res = sssp(g, int(s), method="near_far_core", delta=delta)
        ts.append(time.perf_counter() - t0)
        arcs.append(res.counters.edges_relaxed)
        ok &= bool(np.array_equal(res.distances, r))
    return st.median(ts) * 1e3, st.median(arcs), ok


for name in sys.argv[1].split(","):
    g = load(name)
    starts = seeded_sources(g, 20, 0)
    matrix, ref, sci = g.scipy_matrix(), [], []
    for s in starts:
        t0 = time.perf_counter()
        d = dijkstra(matrix, indices=int(s))
        sci.append(time.perf_counter() - t0)
        ref.append(from_scipy(d))
    deg = np.diff(g.indptr)
    dj = st.median(int(deg[r != engine.UNREACHABLE].sum()) for r in ref)
    sms = st.median(sci) * 1e3
    print(f"{name}: n {g.n_nodes} scipy {sms:.1f} ms", flush=True)
    cores = {}
    for w, k in CONFIGS:
        c = contraction.contract(g, witness=w, max_degree=k)
        cores[w, k] = c
        h = c.graph
        print(
            f"  w{w:d} k{k}: core {c.n_core} arcs {h.core_arcs} down {c.n_down} rounds "
            f"{c.n_rounds} contract {c.seconds:.1f}s auto {h.auto_delta()} {h.distance_dtype()}",
            flush=True,
        )
    for rnd in range(2):
        for (w, k), c in cores.items():
            contraction._cores[g] = c
            for f in FACTORS:
                d = f if isinstance(f, str) else max(1, round(f * c.graph.auto_delta()))
                med, arcs, ok = timed(g, starts, ref, d)
                print(
                    f"  r{rnd} w{w:d} k{k:2d} {f!s:8s} {d!s:9s} {med:7.3f} ms  x{sms / med:5.1f}"
                    f"  arcs {arcs / dj:.3f}  exact {ok}",
                    flush=True,
                )
