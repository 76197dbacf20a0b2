"""PHAST's contraction hierarchies (issues 55, 68, 69): for each graph, each kind
(`engine.contraction.KINDS`: ``hierarchy``, its dense top kept as a small core, the one
method phast searches; ``whole``, every node contracted, beside it), made by
`engine.contraction.contract` with NumPy or CuPy: its levels, core, arcs up and down and the
time to make it (or the memory it ran out of); then method phast on it, one tree at a time
(``sssp``) and all at once (the GPU's many-trees kernel, `gpu_phast.rows`, or its NumPy twin
`engine.contraction.trees`), each tree checked against SciPy's Dijkstra from seeded
sources, with the median time of a tree and the many trees a second.

    python bench/hierarchy.py GRAPH... [--kinds hierarchy,whole] [--weights random:1]
        [--sources 10] [--xp numpy|cupy] [--backend cpu|gpu] [--out FILE.json]

GRAPH is a path, a name `engine.load_graph` takes (PACE ``NY``: ``../shared/data/pace16``)
or ``city:N``, the synthetic city of N nodes (`engine.graphs.synthetic.city`, seed 19).
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


def graph_of(spec: str, weights: str):
    import engine
    from engine.graphs import synthetic

    if spec.startswith("city:"):
        return synthetic.city(int(spec.removeprefix("city:")), seed=19)
    path = Path(spec)
    if not path.exists():
        path = ROOT.parent / "shared" / "data" / "pace16" / f"{spec}.gr.xz"
    return engine.load_graph(path, weights=weights)


def many_trees(graph, c, sources, backend: str) -> tuple[list, list]:
    """The trees from ``sources`` at once on ``c`` and the seconds a tree (three times on
    the GPU: the first compiles)."""
    from engine import contraction

    if backend == "cpu":
        start = time.perf_counter()
        got = list(contraction.trees(c, sources).T)
        return got, [(time.perf_counter() - start) / len(sources)]
    from engine.backends import device, gpu_phast

    times = []
    for _ in range(3):
        start = time.perf_counter()
        dist, _, _ = gpu_phast.rows(graph, sources, None)
        device.cupy().cuda.get_current_stream().synchronize()
        times.append((time.perf_counter() - start) / len(sources))
    return list(dist.get()), times[1:]


def measure(spec: str, *, kinds, weights: str, sources: int, xp_name: str, backend: str):
    import engine
    from engine import contraction
    from engine._errors import GraphTooLargeError
    from engine.studies.experiments import seeded_sources

    graph = graph_of(spec, weights)
    xp = np
    if xp_name == "cupy":
        xp = engine.backends.device.cupy()
        contraction.contract(graph, xp=xp, max_rounds=1)  # CuPy's kernels compiled
    rows = []
    sources_at = seeded_sources(graph, sources, 0)
    reference = [engine.sssp(graph, int(u), method="dijkstra").distances for u in sources_at]
    for kind in kinds:
        row = dict(graph=graph.name, nodes=graph.n_nodes, arcs=graph.n_arcs,
                   weights=graph.weight_kind, kind=kind, made_by=xp_name)  # fmt: skip
        start = time.perf_counter()
        try:
            c = contraction.contract(graph, xp=xp, **contraction.KINDS[kind])
        except (MemoryError, GraphTooLargeError) as error:  # a dense top can outgrow it
            rows.append({**row, "seconds": time.perf_counter() - start, "error": str(error)})
            print(rows[-1], file=sys.stderr, flush=True)
            continue
        widest = int(np.diff(c.round_starts).max()) if c.n_rounds else 0
        row.update(seconds=time.perf_counter() - start, levels=c.n_rounds, core=c.n_core,
                   arcs_up=c.graph.n_arcs, arcs_down=c.n_down, widest_level=widest)  # fmt: skip
        print(row, file=sys.stderr, flush=True)
        contraction.cache._made["hierarchy"][graph] = c  # what method phast searches now
        times, one = [], []
        for u in sources_at:
            tree = engine.sssp(graph, int(u), method="phast", backend=backend)
            times.append(tree.elapsed_s)
            one.append(tree.distances)
        many, many_times = many_trees(graph, c, sources_at, backend)
        row.update(
            sources=sources,
            backend=backend,
            wrong_one=sum(not np.array_equal(a, b) for a, b in zip(one, reference, strict=True)),
            wrong_many=sum(not np.array_equal(a, b) for a, b in zip(many, reference, strict=True)),
            tree_ms_median=1000 * statistics.median(times),
            many_trees_per_s=1 / statistics.median(many_times),
        )
        rows.append(row)
        del contraction.cache._made["hierarchy"][graph]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+")
    parser.add_argument("--kinds", default="hierarchy,whole")
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
            spec,
            kinds=args.kinds.split(","),
            weights=args.weights,
            sources=args.sources,
            xp_name=args.xp,
            backend=args.backend,
        ):
            result["rows"].append(row)
            print(row, flush=True)
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
