"""Trees per second: `engine.many_to_many` on the GPU against SciPy and a loop of searches.

For each graph (PACE NY, BAY, NE with `random:1` weights unless given): N seeded sources to
all targets, and to T seeded random targets (point to point, searches stopping at their
targets), three ways on the same host in the same run: the batched GPU kernel with the
distances kept on the GPU (median of 3) and copied to the host, a loop of single `sssp`
calls on the GPU (on the first L sources; with targets, each call to one of them), and SciPy's
`dijkstra(indices=...)` over a process pool of every core. Every row of the batched matrix
is checked against SciPy (a seeded sample of rows on graphs above 1M nodes). Writes JSON
rows with the device and the settings.

    python bench/many.py [GRAPH ...] [--sources 1000] [--targets 1000] [--loop 50]
                         [--seed 0] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import dijkstra

import engine
from engine import many_to_many
from engine.backends import device as _backend
from engine.graphs.io import write_json
from engine.search import from_scipy
from engine.studies.experiments import seeded_sources

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "pace16"
_GRAPH = {}
#: One chunk for the whole matrix (the default bound would cut NE into chunks of 42 rows).
MEMORY = 2**36


def _start(graph):
    _GRAPH["g"] = graph


def _scipy_rows(chunk):
    return from_scipy(dijkstra(_GRAPH["g"].scipy_matrix(), indices=chunk))


def scipy_pool(graph, sources, workers):
    chunks = np.array_split(sources, workers * 4)
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=_start, initargs=(graph,)) as pool:
        rows = list(pool.map(_scipy_rows, chunks))
    return np.concatenate(rows), time.perf_counter() - start


def measure(graph, sources, targets, n_loop: int, seed: int, workers: int) -> dict:
    """One matrix (``targets`` None: all nodes) three ways, checked against SciPy."""
    cp = _backend.cupy()
    many_to_many(graph, sources[:8], targets, backend="gpu", keep_on_gpu=True)  # warm
    cp.cuda.Device().synchronize()
    kept = []
    for _ in range(3):
        start = time.perf_counter()
        m = many_to_many(graph, sources, targets, backend="gpu", keep_on_gpu=True)
        cp.cuda.Device().synchronize()
        kept.append(time.perf_counter() - start)
        del m
    gpu_s = float(np.median(kept))
    start = time.perf_counter()
    host = many_to_many(graph, sources, targets, backend="gpu", memory_bytes=MEMORY)
    host_s = time.perf_counter() - start
    reference, scipy_s = scipy_pool(graph, sources, workers)
    if targets is not None:
        reference = reference[:, targets]
    checked = np.arange(len(sources))
    if graph.n_nodes > 1_000_000:
        checked = np.sort(np.random.default_rng(seed).choice(len(sources), 100, replace=False))
    exact = bool(np.array_equal(host.dist[checked], reference[checked]))
    ends = [None] * n_loop if targets is None else targets[:n_loop]
    engine.sssp(graph, int(sources[0]), backend="gpu", target=ends[0])  # warm
    start = time.perf_counter()
    for s, t in zip(sources[:n_loop], ends, strict=True):
        engine.sssp(graph, int(s), backend="gpu", target=None if t is None else int(t))
    loop_s = (time.perf_counter() - start) / n_loop * len(sources)
    row = {
        "graph": graph.name, "nodes": graph.n_nodes, "arcs": graph.n_arcs,
        "weights": "random:1", "seed": seed, "sources": len(sources),
        "targets": "all" if targets is None else len(targets),
        "device": _backend.device_name("gpu"), "delta": graph.auto_delta(),
        "trees_per_s_kept_on_gpu": len(sources) / gpu_s,
        "trees_per_s_to_host": len(sources) / host_s,
        "trees_per_s_scipy_pool": len(sources) / scipy_s, "scipy_workers": workers,
        "trees_per_s_sssp_loop": len(sources) / loop_s, "loop_sources": n_loop,
        "rows_checked": len(checked), "exact": exact, "memory_bytes": MEMORY,
    }  # fmt: skip
    print(
        f"{graph.name} to {row['targets']} targets: "
        f"{row['trees_per_s_kept_on_gpu']:,.0f} trees/s kept on the GPU, "
        f"{row['trees_per_s_to_host']:,.0f} to the host, SciPy pool "
        f"{row['trees_per_s_scipy_pool']:,.0f}, sssp loop {row['trees_per_s_sssp_loop']:,.0f}; "
        f"{len(checked)} rows exact: {exact}",
        flush=True,
    )
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graphs", nargs="*")
    p.add_argument("--sources", type=int, default=1000)
    p.add_argument("--targets", type=int, default=1000, help="point to point (0: skip)")
    p.add_argument("--loop", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=len(__import__("os").sched_getaffinity(0)))
    p.add_argument("--out")
    args = p.parse_args()
    graphs = args.graphs or [str(SHARED / f"{n}.gr.xz") for n in ("NY", "BAY", "NE")]
    rows = []
    for spec in graphs:
        graph = engine.load_graph(spec, weights="random:1")
        sources = np.sort(seeded_sources(graph, args.sources, args.seed))
        cases = [None] + ([seeded_sources(graph, args.targets, args.seed + 1)] * (args.targets > 0))
        for targets in cases:
            rows.append(measure(graph, sources, targets, args.loop, args.seed, args.workers))
    if args.out:
        write_json(args.out, rows)
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
