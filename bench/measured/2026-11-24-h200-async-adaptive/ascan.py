"""near_far_async: adaptive Δ (phase cost P) over the best of Davidson's Δ × ½, 1, 2, 4,
20 sources of seed SEED, batch 1024, every distance checked against SciPy.

    PYTHONPATH=ENGINE python3 ascan.py LABEL SEED GRAPHS
"""

import dataclasses
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, "bench")
from run import chosen

from engine import adaptive, experiments

PS = [1536, 2048, 3072]
for label, load in chosen(sys.argv[3]):
    t = time.perf_counter()
    g = load()
    fixed = experiments.parse_deltas("x0.5,auto,x2,x4", g)
    rule = adaptive.parse("adaptive", g.auto_delta(), g.max_delta())
    queries = experiments.study_queries(
        g, experiments.seeded_sources(g, 20, int(sys.argv[2])), "sweep"
    )
    cells = fixed + [(f"P{p}", dataclasses.replace(rule, phase_cost=p)) for p in PS]
    rows = []
    kw = dict(methods=["near_far_async"], deltas=cells, batches=[1024])
    experiments.run_cells(g, queries[:1], on_row=lambda r: None, **kw)
    experiments.run_cells(g, queries, on_row=rows.append, **kw)
    assert all(r["exact"] for r in rows), "inexact"
    times = defaultdict(list)
    for r in rows:
        times[r["delta_spec"]].append(r["time_ms"])
    med = {s: statistics.median(v) for s, v in times.items()}
    best = min((s for s in med if not s.startswith("P")), key=med.get)
    print(
        f"{sys.argv[1]:5s} {label:5s} best {best:5s} {med[best]:.3f} ms  "
        + "  ".join(f"{s}:{med[s] / med[best]:.3f}" for s in med if s.startswith("P"))
        + f"  ({time.perf_counter() - t:.0f} s)",
        flush=True,
    )
