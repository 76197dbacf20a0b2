"""Recorded ÷ unrecorded, paired: each source's search timed without and with recording,
alternating which goes first, in one process (a host's process-to-process spread cancels).

    python .dev16/recratio.py GRAPH METHODS BATCH
"""

import statistics
import sys
import time

import cupy as cp

from engine import sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz
from engine.io import load_graph

name, methods, batch = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
if name.endswith(".npz"):
    g = load_npz(f".dev16/data/{name}")
else:
    g = load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
sources = [int(s) for s in seeded_sources(g, 20, 0)]
device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
for m in methods:

    def one(s, rec, m=m):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
        return (time.perf_counter() - t) * 1e3

    for s in sources[:3]:
        one(s, False), one(s, True)
    plain, recorded, ratios = [], [], []
    for rnd in range(3):
        for k, s in enumerate(sources):
            if (k + rnd) % 2 == 0:  # recorded first
                r = one(s, True)
                u = one(s, False)
            else:
                u = one(s, False)
                r = one(s, True)
            plain.append(u)
            recorded.append(r)
            ratios.append(r / u)
    q = statistics.quantiles(ratios, n=4)
    print(
        f"{device} {name} batch {batch} {m:15s} unrecorded {statistics.median(plain):7.3f} ms"
        f"  recorded {statistics.median(recorded):7.3f} ms  ratio of medians "
        f"{statistics.median(recorded) / statistics.median(plain):.3f}  paired ratio median "
        f"{statistics.median(ratios):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f}, n={len(ratios)})",
        flush=True,
    )
