"""Phases and arcs relaxed of adaptive against fixed Δ on PACE NY (``random:1`` weights),
Near-Far, NumPy twin (the counts are the GPU kernel's too), 4 seeded sources.

    python bench/measured/2026-11-24-cpu-adaptive-ny/adaptive_work.py
"""

from pathlib import Path

import numpy as np

from engine import _validate, sssp
from engine.adaptive import SPAN, AdaptiveDelta
from engine.io import load_graph

NY = Path(__file__).resolve().parents[4] / "shared" / "data" / "pace16" / "NY.gr.xz"
graph = load_graph(NY, weights="random:1")
auto = _validate.delta("auto", graph)
sources = np.random.default_rng(0).integers(0, graph.n_nodes, 4)
print(f"NY, Davidson's Δ {auto}; per source: phases, arcs relaxed; adaptive: its last Δ")
for start in (1, 2, 4, 8):
    rule = AdaptiveDelta(max(1, auto // SPAN), auto * SPAN, auto * start)
    runs = [sssp(graph, int(s), method="near_far", backend="cpu", delta=rule, record=True)
            for s in sources]  # fmt: skip
    phases = [r.counters.phases for r in runs]
    arcs = [r.counters.edges_relaxed for r in runs]
    last = [int(r.recording.frames[-1, 12]) for r in runs]
    print(f"adaptive from {start}× Δ: phases {phases}, arcs {arcs}, last Δ {last}")
for times in (1, 2, 4, 8):
    runs = [sssp(graph, int(s), method="near_far", backend="cpu", delta=auto * times)
            for s in sources]  # fmt: skip
    phases = [r.counters.phases for r in runs]
    arcs = [r.counters.edges_relaxed for r in runs]
    print(f"fixed {times}× Δ: phases {phases}, arcs {arcs}")
