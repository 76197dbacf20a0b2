"""Device: SciPy's distances and median time for 20 seeded sources, saved for ab.py and pscan.py."""

import statistics
import sys
import time

import numpy as np
from scipy.sparse.csgraph import dijkstra

from engine.experiments import seeded_sources
from engine.graph import UNREACHABLE
from engine.io import load_graph

for name in sys.argv[1].split(","):
    g = load_graph(f".dev16/data/{name}.gr.xz", weights="random:1")
    m = g.scipy_matrix()
    out, ts = [], []
    for s in seeded_sources(g, 20, 0):
        t = time.perf_counter()
        d = dijkstra(m, indices=int(s))
        ts.append(time.perf_counter() - t)
        out.append(np.where(np.isinf(d), UNREACHABLE, d).astype(np.int64))
    np.save(f"/tmp/ref-{name}.npy", np.array(out))
    print(f"scipy {name} {statistics.median(ts) * 1e3:.1f} ms", flush=True)
