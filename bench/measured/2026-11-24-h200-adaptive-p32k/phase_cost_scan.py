"""Which phase cost P brings adaptive Δ closest to the best fixed Δ? For each graph of
bench/run.py's suite, 20 sources drawn with seed 1 (bench/adaptive.py's figures use seed 0),
batch 1024, each method at Davidson's Δ × ½ … 8 and adaptive with each P; every distance
checked against SciPy. Prints adaptive's median over the best fixed Δ's per P and writes
$OUT/pscan.json. Run from the repository root on a GPU machine:

    PYTHONPATH=. python bench/measured/2026-11-24-h200-adaptive-p32k/phase_cost_scan.py
"""

import dataclasses
import json
import os
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, "bench")
from run import chosen

from engine import adaptive, experiments

SYNC = [8192, 16384, 32768, 65536]
ASYNC = [1024, 2048, 4096, 8192]
out = {}
for label, load in chosen(None):
    if label == "helsinki":
        continue
    g = load()
    fixed = experiments.parse_deltas("x0.5,auto,x2,x4,x8", g)
    rule = adaptive.parse("adaptive", g.auto_delta(), g.max_delta())
    queries = experiments.study_queries(g, experiments.seeded_sources(g, 20, 1), "sweep")
    rows = []
    t = time.perf_counter()
    for method, costs in (("near_far", SYNC), ("delta_stepping", SYNC), ("near_far_async", ASYNC)):
        cells = fixed + [(f"P{p}", dataclasses.replace(rule, phase_cost=p)) for p in costs]
        experiments.run_cells(
            g, queries[:1], methods=[method], deltas=cells, batches=[1024], on_row=lambda r: None
        )  # warm
        experiments.run_cells(
            g, queries, methods=[method], deltas=cells, batches=[1024], on_row=rows.append
        )
    assert all(r["exact"] for r in rows), "inexact"
    times = defaultdict(list)
    for r in rows:
        times[r["method"], r["delta_spec"]].append(r["time_ms"])
    res = {}
    for method in ("near_far", "delta_stepping", "near_far_async"):
        med = {s: statistics.median(v) for (m, s), v in times.items() if m == method}
        best = min((s for s in med if not s.startswith("P")), key=med.get)
        res[method] = {
            "best": best,
            "best_ms": med[best],
            **{s: round(med[s] / med[best], 3) for s in med if s.startswith("P")},
        }
        print(
            f"{label:13s} {method:15s} best {best:5s} {med[best]:.3f} ms  "
            + "  ".join(f"{s}:{res[method][s]}" for s in res[method] if s.startswith("P")),
            flush=True,
        )
    out[label] = res
    print(f"  ({time.perf_counter() - t:.0f} s)", flush=True)
with open(os.path.join(os.environ.get("OUT", "/tmp"), "pscan.json"), "w") as f:
    json.dump(out, f, indent=1)
