"""Median of 5 uncached loads of each PACE graph (random:1) and of 3 contractions of NE, with
whatever engine/graph.py is checked out; one line each. CPU only.

    python bench/measured/2026-11-26-from-arcs/time_loads.py LABEL
"""

import statistics
import sys
import time

from engine import contraction, io

label = sys.argv[1]
for name in ["NY", "BAY", "COL", "FLA", "NE"]:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        g = io.load_graph(f"../shared/data/pace16/{name}.gr.xz", weights="random:1", cache=False)
        times.append(time.perf_counter() - start)
    print(f"{label} load {name} {statistics.median(times):.2f} s", flush=True)
times = []
for _ in range(3):
    start = time.perf_counter()
    contraction.contract(g)
    times.append(time.perf_counter() - start)
print(f"{label} contract NE {statistics.median(times):.2f} s", flush=True)
