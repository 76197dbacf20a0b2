"""Device: near_far_async at fixed Δ x2 against adaptive rules L:H:S:P (bounds and start as
multiples of the auto Δ, phase cost P), two rounds, 20 seeded sources, every distance checked.

    PYTHONPATH=. python3 pscan4.py GRAPHS CELLS
"""

import statistics
import sys
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra

from engine import sssp
from engine.adaptive import AdaptiveDelta
from engine.experiments import seeded_sources
from engine.graph import UNREACHABLE, load_npz
from engine.io import load_graph

names, specs = sys.argv[1].split(","), sys.argv[2].split(",")
for name in names:
    if name == "porto_alegre":
        g = load_npz(".dev16/prebuilt/porto_alegre.osm.pbf.npz")
    else:
        g = load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    src = [int(s) for s in seeded_sources(g, 20, 0)]
    m = g.scipy_matrix()
    ref = [np.where(np.isinf(d), UNREACHABLE, d).astype(np.int64)
           for d in (dijkstra(m, indices=s) for s in src)]  # fmt: skip
    a = g.auto_delta()
    cells = [("x2", 2 * a), ("x3", 3 * a)]
    for spec in specs:
        lo, hi, st, p = (float(x) for x in spec.split(":"))
        cells.append((spec, AdaptiveDelta(int(lo * a), int(hi * a), int(st * a), int(p))))
    for rnd in range(2):
        for label, delta in cells:
            for s in src[:2]:
                sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
            ts, ok, ph = [], True, []
            for k, s in enumerate(src):
                t = time.perf_counter()
                r = sssp(g, s, backend="gpu", method="near_far_async", delta=delta)
                ts.append(time.perf_counter() - t)
                ok &= bool(np.array_equal(r.distances, ref[k]))
                ph.append(r.counters.phases)
            ms = statistics.median(ts) * 1e3
            print(f"{name:12s} r{rnd} {label:16s} {ms:7.3f} ms phases "
                  f"{statistics.median(ph):5.1f} exact {ok}", flush=True)  # fmt: skip
