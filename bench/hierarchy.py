"""A whole contraction hierarchy (issue 55, PHAST): `engine.contraction.contract` with no
degree limit, no share and rounds enough, so that no core is left. Reports per graph the
levels (rounds), the arcs up (the upward searches' graph) and down (the sweep's), the time to
make it, and a check: trees from seeded sources by the search up and the sweep down
(method ``phast``, CPU or GPU backend) against SciPy's Dijkstra.

    python bench/hierarchy.py GRAPH... [--weights random:1] [--sources 10] [--xp numpy|cupy]
        [--backend cpu|gpu] [--out FILE.json]

GRAPH is a path or a name `engine.load_graph` takes (PACE ``NY``: ``../shared/data/pace16``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(spec: str, *, weights: str, sources: int, xp_name: str, backend: str) -> dict:
    import engine
    from engine import contraction
    from engine.studies.experiments import seeded_sources

    path = Path(spec)
    if not path.exists():
        path = ROOT.parent / "shared" / "data" / "pace16" / f"{spec}.gr.xz"
    graph = engine.load_graph(path, weights=weights)
    xp = np
    if xp_name == "cupy":
        xp = engine.backends.device.cupy()
        contraction.contract(graph, xp=xp, max_rounds=1)  # CuPy's kernels compiled
    left = []
    start = time.perf_counter()
    c = contraction.contract(
        graph, xp=xp, on_round=lambda _r, n: left.append(n), **contraction.KINDS["hierarchy"]
    )
    seconds = time.perf_counter() - start
    row = dict(
        graph=graph.name, nodes=graph.n_nodes, arcs=graph.n_arcs, weights=weights,
        made_by=xp_name, seconds=seconds, levels=c.n_rounds, core=c.n_core,
        arcs_up=c.graph.n_arcs, arcs_down=c.n_down,
        widest_level=int(np.diff(c.round_starts).max()) if c.n_rounds else 0,
    )  # fmt: skip
    print(row, file=sys.stderr, flush=True)
    contraction._made["hierarchy"][graph] = c  # phast searches up and sweeps down this one
    wrong, times = 0, []
    for s in seeded_sources(graph, sources, 0):
        t = time.perf_counter()
        tree = engine.sssp(graph, int(s), method="phast", backend=backend)
        times.append(time.perf_counter() - t)
        ref = engine.sssp(graph, int(s), method="dijkstra", backend="cpu")
        wrong += not np.array_equal(tree.distances, ref.distances)
    row.update(sources=sources, wrong=wrong, backend=backend,
               tree_ms_median=1000 * statistics.median(times))  # fmt: skip
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--weights", default="random:1")
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--xp", choices=["numpy", "cupy"], default="numpy")
    parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from engine.backends.device import device_name
    from engine.graphs.io import write_json

    result = dict(device=device_name(args.backend), rows=[])
    for spec in args.graphs:
        row = measure(
            spec, weights=args.weights, sources=args.sources, xp_name=args.xp, backend=args.backend
        )
        result["rows"].append(row)
        print(result["rows"][-1], flush=True)
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
