"""Fixed-Δ speed, recorded and not, of the engine that PYTHONPATH finds (HEAD's or this one).

    PYTHONPATH=OLD_OR_NEW python3 regress.py NE,porto_alegre_all.npz LABEL

Graphs are read from ``.data/`` (PACE ``NAME.gr.xz`` with ``random:1`` weights, or a CSR
``.npz``); 20 seeded sources, batch 1024, every distance checked against SciPy.
"""

import sys

from engine.bench import benchmark
from engine.graph import load_npz
from engine.io import load_graph

PLAIN = ("near_far", "near_far_async", "delta_stepping")
RECORDED = ("near_far", "delta_stepping")

for name in sys.argv[1].split(","):
    if name.endswith(".npz"):
        g = load_npz(f".data/{name}")
    else:
        g = load_graph(f".data/{name}.gr.xz", weights="random:1")
    for record in (False, True):
        methods = RECORDED if record else PLAIN
        for r in benchmark(g, methods=methods, sources=20, record=record, batch_size=1024):
            print(
                f"{sys.argv[2]:4s} {name:24s} {r['method']:15s} rec={record!s:5s} "
                f"{r['time_ms']:7.2f} ms  scipy {r['scipy_ms']:7.1f}  exact={r['identical']}",
                flush=True,
            )
