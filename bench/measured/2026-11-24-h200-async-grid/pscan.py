"""Device: near_far_async (this tree: the whole grid) at fixed Δ (multiples of the auto Δ)
and adaptive with phase costs P, 20 seeded sources, every distance checked.

    PYTHONPATH=ENGINE python3 pscan.py GRAPHS SCALES PS
"""

import statistics
import sys
import time

import numpy as np

from engine import sssp
from engine.adaptive import SPAN, AdaptiveDelta
from engine.experiments import seeded_sources
from engine.io import load_graph

names, scales, ps = sys.argv[1].split(","), sys.argv[2].split(","), sys.argv[3].split(",")
for name in names:
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    ref = np.load(f"/tmp/ref-{name}.npy")
    a = g.auto_delta()
    cells = [(f"x{x}", max(1, round(a * float(x)))) for x in scales]
    cells += [(f"P{p}", AdaptiveDelta(max(1, a // SPAN), a * SPAN, a, int(p))) for p in ps]
    for rnd in range(2):
        for label, delta in cells:
            for s in src[:2]:
                sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
            ts, ok = [], True
            for k, s in enumerate(src):
                t = time.perf_counter()
                r = sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
                ts.append(time.perf_counter() - t)
                ok &= bool(np.array_equal(r.distances, ref[k]))
            ms = statistics.median(ts) * 1e3
            print(f"{name:4s} r{rnd} {label:7s} {ms:7.3f} ms exact {ok}", flush=True)
