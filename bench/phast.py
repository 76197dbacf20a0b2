"""PHAST's many trees against the memory's speed: the kernel timed and set against its
roofline (issue 69).

    python bench/phast.py [GRAPH ...] [--sources 1000] [--clusters 4] [--rounds 5]
                          [--check 32] [--out FILE]

GRAPH is a PACE name (NY, BAY, COL, FLA, NE: ``random:1`` weights, from
``$FRONTIER_SHARED_DATA/pace16`` or ``../shared/data/pace16``) or a path. For each graph the
hierarchy is made (or read from the cache folder); then `gpu_phast.rows`, from
``--sources`` seeded sources to every node, the matrix kept on the GPU, is timed by CUDA
events for each cluster size (blocks a group of trees shares) in turn, round after round,
so that any drift of the machine falls on each alike. Each one's median is reported in
trees a second, with the bytes its layout moves at that rate (`gpu_phast.traffic`) against
the copy bandwidth measured in the same run, and the ceiling that the fewest bytes allow.
Every matrix is checked against SciPy's Dijkstra on ``--check`` sampled sources, whose
trees a second on one core are reported beside.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.backends import device as _backend  # noqa: E402
from engine.backends import gpu_phast  # noqa: E402
from engine.graphs.io import write_json  # noqa: E402
from engine.search import from_scipy  # noqa: E402
from engine.studies.experiments import seeded_sources  # noqa: E402

SHARED = Path(os.environ.get("FRONTIER_SHARED_DATA") or ROOT.parent / "shared" / "data")


def graph_of(name: str) -> engine.CSRGraph:
    path = Path(name)
    if not path.exists():
        path = SHARED / "pace16" / f"{name}.gr.xz"
    return engine.load_graph(path, weights="random:1")


def timed(graph, sources, cluster: int) -> tuple[float, object]:
    """Seconds of one matrix (kernel and widen) by CUDA events, and the matrix."""
    cp = _backend.cupy()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    dist, _, _ = gpu_phast.rows(graph, sources, None, cluster=cluster)
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) / 1e3, dist


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="*", default=["NY", "NE"])
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--clusters", default="4", help="cluster sizes to time, by commas")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", type=int, default=32)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from scipy.sparse.csgraph import dijkstra

    variants = [int(v) for v in args.clusters.split(",")]
    cp = _backend.cupy()
    bandwidth = _backend.copy_bandwidth()
    device = _backend.device_name("gpu")
    print(f"{device}: copy bandwidth {bandwidth / 1e9:,.0f} GB/s (read + written)", flush=True)
    rows = []
    for name in args.graphs:
        graph = graph_of(name)
        start = time.perf_counter()
        c = gpu_phast.hierarchy(graph)
        made = time.perf_counter() - start
        sources = np.sort(seeded_sources(graph, args.sources, 0))
        moved = gpu_phast.traffic(graph)
        sample = np.random.default_rng(1).choice(len(sources), args.check, replace=False)
        start = time.perf_counter()
        reference = from_scipy(dijkstra(graph.scipy_matrix(), indices=sources[sample]))
        scipy_rate = args.check / (time.perf_counter() - start)
        times: dict[int, list[float]] = {v: [] for v in variants}
        exact = dict.fromkeys(variants, True)
        for v in variants:  # warm: compile, upload
            timed(graph, sources[:32], v)
        for r in range(args.rounds):
            for v in variants if r % 2 == 0 else variants[::-1]:
                seconds, dist = timed(graph, sources, v)
                times[v].append(seconds)
                if r == 0:
                    exact[v] = bool(np.array_equal(dist[cp.asarray(sample)].get(), reference))
                del dist
        print(f"{graph.name}: {graph.n_nodes:,} nodes, hierarchy of {c.n_rounds + 1} levels "
              f"({'read' if c.from_cache else 'made'} in {made:.2f} s); a tree moves "
              f"{moved['layout'] / 1e6:.1f} MB by the layout, {moved['floor'] / 1e6:.1f} MB "
              f"at least; SciPy's Dijkstra {scipy_rate:,.1f} trees/s on one core",
              flush=True)  # fmt: skip
        for v in variants:
            median = statistics.median(times[v])
            rate = len(sources) / median
            row = {
                "graph": graph.name, "nodes": graph.n_nodes, "device": device,
                "cluster": v, "sources": len(sources),
                "seconds": times[v], "median_s": median, "trees_per_s": rate,
                "exact": exact[v], "scipy_trees_per_s_one_core": scipy_rate,
                "copy_gb_s": bandwidth / 1e9,
                "layout_bytes_per_tree": moved["layout"], "floor_bytes_per_tree": moved["floor"],
                "memory_gb_s": rate * moved["layout"] / 1e9,
                "memory_share": rate * moved["layout"] / bandwidth,
                "ceiling_trees_per_s": bandwidth / moved["floor"],
            }  # fmt: skip
            rows.append(row)
            speed = f"{row['memory_gb_s']:6,.0f} GB/s = {row['memory_share']:4.0%} of copy"
            ceiling = f"ceiling {row['ceiling_trees_per_s']:,.0f}  exact {exact[v]}"
            print(f"  cluster {v}: "
                  f"{rate:>10,.0f} trees/s  {median * 1e3:7.2f} ms  {speed}  {ceiling}",
                  flush=True)  # fmt: skip
    if args.out:
        write_json(args.out, {"device": device, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main_())
