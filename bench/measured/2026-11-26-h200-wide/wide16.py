# ruff: noqa: E501
"""near_far_async vs near_far at wide Delta, per source: time, hand-over (iterations > 0).
python .dev16/wide16.py NE,FLA,NY 8,16"""

import pathlib
import statistics as st
import sys
import time

import numpy as np

import engine
from engine import sssp
from engine.bench import seeded_sources

graphs = sys.argv[1].split(",")
factors = [int(x) for x in sys.argv[2].split(",")]
for name in graphs:
    g = engine.load_graph(pathlib.Path(f".dev16/data/pace16/{name}.gr.xz"), weights="random:1")
    starts = seeded_sources(g, 20, 0)
    ref = [sssp(g, int(s), method="dijkstra").distances for s in starts]
    for f in factors:
        d = f * g.auto_delta()
        for m in ("near_far_async", "near_far"):
            sssp(g, int(starts[0]), method=m, delta=d, batch_size=1024)
        rows = {"near_far_async": [], "near_far": []}
        for s, r in zip(starts, ref, strict=True):
            for m in rows:
                t0 = time.perf_counter()
                res = sssp(g, int(s), method=m, delta=d, batch_size=1024)
                rows[m].append((time.perf_counter() - t0, res.counters.iterations))
                assert np.array_equal(res.distances, r)
        a = rows["near_far_async"]
        sync = st.median(t for t, _ in rows["near_far"]) * 1e3
        kept = [t for t, it in a if it == 0]
        handed = [t for t, it in a if it > 0]
        print(
            f"{name} {f}x: near_far {sync:.2f} ms; async median {st.median(t for t, _ in a) * 1e3:.2f}"
            f" ms; finished in the async launch {len(kept)}/20"
            f" (median {st.median(kept) * 1e3 if kept else float('nan'):.2f} ms),"
            f" handed over {len(handed)} (median {st.median(handed) * 1e3 if handed else float('nan'):.2f} ms)",
            flush=True,
        )
