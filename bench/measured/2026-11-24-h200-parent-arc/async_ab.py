"""near_far_async (and near_far) of the engine PYTHONPATH finds, on PACE graphs and a CSR.

PYTHONPATH=OLD_OR_NEW python3 async_ab.py NY,BAY,NE,porto_alegre_all.npz LABEL [methods]
"""

import sys

from engine import sssp
from engine.bench import benchmark
from engine.graph import load_npz
from engine.io import load_graph

methods = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else ("near_far_async",)
for name in sys.argv[1].split(","):
    if name.endswith(".npz"):
        g = load_npz(f".data/{name}")
    else:
        g = load_graph(f".data/{name}.gr.xz", weights="random:1")
    for r in benchmark(g, methods=methods, sources=20, batch_size=1024):
        c = sssp(g, 0, method=r["method"], batch_size=1024).counters
        print(
            f"{sys.argv[2]:4s} {name:22s} {r['method']:15s} {r['time_ms']:7.3f} ms "
            f"scipy {r['scipy_ms']:7.2f} x{r['speedup']:6.2f} arcs {r['edges_relaxed']:>9,} "
            f"/{r['dijkstra_edges']:>9,} = {r['edges_relaxed'] / r['dijkstra_edges']:.3f} "
            f"phases {c.phases} compactions {c.far_compactions} exact={r['identical']}",
            flush=True,
        )
