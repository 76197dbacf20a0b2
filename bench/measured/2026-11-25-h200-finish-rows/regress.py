"""Recorded and unrecorded speed of the engine PYTHONPATH finds.

PYTHONPATH=ENGINE python3 .dev16/regress.py GRAPHS LABEL [METHODS]
"""

import os
import sys

from engine.bench import benchmark
from engine.graph import load_npz
from engine.io import load_graph

methods = (
    tuple(sys.argv[3].split(","))
    if len(sys.argv) > 3
    else ("near_far", "delta_stepping", "bucketing")
)
for name in sys.argv[1].split(","):
    if name.endswith(".npz"):
        g = load_npz(f".dev16/data/{name}")
    else:
        g = load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    for record in (False, True):
        for r in benchmark(
            g,
            methods=methods,
            sources=20,
            record=record,
            batch_size=int(os.environ.get("BATCH", "1024")),
        ):
            print(
                f"{sys.argv[2]:4s} {name:22s} {r['method']:15s} rec={record!s:5s} "
                f"{r['time_ms']:7.3f} ms  exact={r['identical']}",
                flush=True,
            )
