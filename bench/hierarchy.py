"""PHAST's contraction hierarchies (issue 55): for each graph, each kind PHAST searches
(`engine.contraction.KINDS`: ``hierarchy``, its dense top kept as a small core, for one tree;
``whole``, every node contracted, for many trees), made by `engine.contraction.contract` with
NumPy or CuPy: its levels, core, arcs up and down and the time to make it, then a check
against SciPy's Dijkstra from seeded sources: one tree at a time (``sssp``, method ``phast``,
on the hierarchy) or all at once (the NumPy twin `engine.contraction.trees`, or the GPU's
kernel, on the whole one), with the median time of a tree.

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


def measure(spec: str, *, weights: str, sources: int, xp_name: str, backend: str) -> list:
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
    rows = []
    sources_at = seeded_sources(graph, sources, 0)
    reference = [engine.sssp(graph, int(u), method="dijkstra").distances for u in sources_at]
    for kind in ("hierarchy", "whole"):
        start = time.perf_counter()
        c = contraction.contract(graph, xp=xp, **contraction.KINDS[kind])
        seconds = time.perf_counter() - start
        row = dict(
            graph=graph.name, nodes=graph.n_nodes, arcs=graph.n_arcs, weights=weights,
            kind=kind, made_by=xp_name, seconds=seconds, levels=c.n_rounds, core=c.n_core,
            arcs_up=c.graph.n_arcs, arcs_down=c.n_down,
            widest_level=int(np.diff(c.round_starts).max()) if c.n_rounds else 0,
        )  # fmt: skip
        print(row, file=sys.stderr, flush=True)
        contraction.cache._made[kind][graph] = c  # searched from here on, not made again
        times, got = [], []
        if kind == "hierarchy":
            for u in sources_at:
                tree = engine.sssp(graph, int(u), method="phast", backend=backend)
                times.append(tree.elapsed_s)
                got.append(tree.distances)
        elif backend == "gpu":
            from engine.backends import gpu_phast

            for _ in range(3):
                t = time.perf_counter()
                dist, _, _ = gpu_phast.rows(graph, sources_at, None)
                many = dist.get()
                times.append((time.perf_counter() - t) / len(sources_at))
            got = list(many)
        else:
            t = time.perf_counter()
            got = list(contraction.trees(c, sources_at).T)
            times.append((time.perf_counter() - t) / len(sources_at))
        wrong = sum(not np.array_equal(a, b) for a, b in zip(got, reference, strict=True))
        row.update(sources=sources, wrong=wrong, backend=backend,
                   tree_ms_median=1000 * statistics.median(times))  # fmt: skip
        rows.append(row)
    return rows


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
        for row in measure(
            spec, weights=args.weights, sources=args.sources, xp_name=args.xp, backend=args.backend
        ):
            result["rows"].append(row)
            print(row, flush=True)
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
