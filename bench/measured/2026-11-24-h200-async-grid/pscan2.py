"""Device: near_far_async at fixed Δ (x1, x2 the auto Δ) and adaptive with bounds
[auto/64, auto*H], start auto*S and phase cost P; iterations > 0 means a hand-over to the
synchronous batches. 20 seeded sources, every distance checked.

    PYTHONPATH=ENGINE python3 pscan2.py GRAPHS CELLS   (CELLS: H:S:P,...)
"""

import statistics
import sys
import time

import numpy as np

from engine import sssp
from engine.adaptive import SPAN, AdaptiveDelta
from engine.experiments import seeded_sources
from engine.io import load_graph

names, specs = sys.argv[1].split(","), sys.argv[2].split(",")
for name in names:
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    ref = np.load(f"/tmp/ref-{name}.npy")
    a = g.auto_delta()
    cells = [("x1", a), ("x2", 2 * a)]
    for spec in specs:
        h, s0, p = (int(x) for x in spec.split(":"))
        cells.append((f"H{h}S{s0}P{p}", AdaptiveDelta(max(1, a // SPAN), a * h, a * s0, p)))
    for rnd in range(2):
        for label, delta in cells:
            for s in src[:2]:
                sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
            ts, ok, its, ph = [], True, [], []
            for k, s in enumerate(src):
                t = time.perf_counter()
                r = sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
                ts.append(time.perf_counter() - t)
                ok &= bool(np.array_equal(r.distances, ref[k]))
                its.append(r.counters.iterations)
                ph.append(r.counters.phases)
            ms = statistics.median(ts) * 1e3
            handed = sum(i > 0 for i in its)
            print(
                f"{name:4s} r{rnd} {label:14s} {ms:7.3f} ms phases {statistics.median(ph):5.0f}"
                f" handed over {handed:2d}/20 exact {ok}",
                flush=True,
            )
