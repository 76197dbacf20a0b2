"""`benchmark`: searches timed against SciPy's Dijkstra on the same CSR, side by side.

For each method the searches start from the same seeded sources. Times are end to end: from
the `sssp` call to int64 distances on the host, the graph upload and kernel compilation
excluded (done by a warm-up run and reported apart as ``setup_s``). SciPy's Dijkstra runs on
a ``csr_array`` built once, from the same sources, in the same process, so the ratio compares
two measurements taken side by side. Every distance array is compared with SciPy's.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from engine import _validate, adaptive, contraction
from engine.backends import device as _backend
from engine.backends import gpu_contract
from engine.graphs.csr import CSRGraph
from engine.methods import METHODS, names
from engine.search import DEFAULT_BATCH, UNREACHABLE, from_scipy, shortest_path_tree, sssp
from engine.studies.experiments import seeded_sources

ITERATIVE = names(iterative=True)
#: The methods that can be recorded (the asynchronous ones by phase): `names`.
RECORDABLE = names(recordable=True)

#: Columns of the readable table: (key, heading, format).
TABLE = (
    ("graph", "graph", "{}"),
    ("method", "method", "{}"),
    ("delta", "Δ", "{}"),
    ("delta_rule", "Δ rule", "{}"),
    ("batch_size", "batch", "{}"),
    ("time_ms", "time ms", "{:.2f}"),
    ("scipy_ms", "SciPy ms", "{:.2f}"),
    ("speedup", "× SciPy", "{:.2f}"),
    ("iterations", "iterations", "{:,}"),
    ("us_per_iteration", "µs/iter", "{:.2f}"),
    ("queue_items", "ring items", "{:,}"),
    ("edges_relaxed", "arcs relaxed", "{:,}"),
    ("dijkstra_edges", "Dijkstra arcs", "{:,}"),
    ("hop_depth", "hops", "{:,}"),
    ("floor_ratio", "× floor", "{:.1f}"),
    ("identical", "exact", "{}"),
)


def tree_depth(pred: np.ndarray) -> int:
    """Hop depth of a shortest-path tree given by its predecessors (-1 at the root and at
    unreached nodes), level by level from the roots."""
    pred = np.asarray(pred, dtype=np.int64)
    child = np.flatnonzero(pred >= 0)
    order = np.argsort(pred[child], kind="stable")
    parent_of, child = pred[child][order], child[order]
    level, depth = np.flatnonzero(pred < 0), 0
    while True:
        lo = np.searchsorted(parent_of, level, side="left")
        counts = np.searchsorted(parent_of, level, side="right") - lo
        total = int(counts.sum())
        if total == 0:
            return depth
        starts = np.repeat(lo - (np.cumsum(counts) - counts), counts)
        level = child[starts + np.arange(total)]
        depth += 1


def _median(values) -> float:
    return float(statistics.median(values))


def benchmark(
    graph: CSRGraph,
    *,
    methods: tuple[str, ...] = ITERATIVE,
    backend: str = "auto",
    sources: int = 20,
    seed: int = 0,
    delta: int | str = "auto",
    batch_size: int = DEFAULT_BATCH,
    record: bool = False,
) -> list[dict]:
    """Time each method from ``sources`` seeded sources against SciPy's Dijkstra.

    Returns one JSON-ready dict per method: medians of time, iterations and arcs relaxed,
    SciPy's median time and arcs, the speed-up (ratio of the medians), µs per iteration, the
    median hop depth of the shortest-path tree and, on the GPU, the ratio of the time to the
    floor ``hop depth × barrier cost`` (the barrier of ``sync_scope``, ``sync_us`` µs);
    ``identical`` says every distance equalled SciPy's. With an adaptive Δ only the methods
    with buckets run, and ``delta`` is the first phase's Δ (``delta_rule`` names the rule).
    """
    from scipy.sparse.csgraph import dijkstra

    if adaptive.is_adaptive(delta):
        methods = tuple(m for m in methods if METHODS[m].uses_delta)

    starts = seeded_sources(graph, sources, seed)
    matrix = graph.scipy_matrix()
    degree = np.diff(graph.indptr)
    reference = []
    for s in starts:
        t0 = time.perf_counter()
        d = dijkstra(matrix, directed=True, indices=int(s))
        elapsed = time.perf_counter() - t0
        dist = from_scipy(d)
        depth = tree_depth(shortest_path_tree(graph, dist, int(s)))
        reference.append((dist, elapsed, int(degree[dist != UNREACHABLE].sum()), depth))
    scipy_ms = _median(r[1] for r in reference) * 1e3
    sync_us = sync_scope = None
    rows = []
    for method in methods:
        warm = sssp(
            graph,
            int(starts[0]),
            method=method,
            backend=backend,
            delta=delta,
            batch_size=batch_size,
            record=record,
        )
        if warm.backend == "gpu" and sync_us is None:
            from engine.backends import gpu_kernels as _gpu

            sync_scope = _gpu.small_frontier_scope()
            sync_us = _gpu.sync_us(sync_scope)
        times, iterations, edges, queued, identical = [], [], [], [], True
        for s, (dist, *_rest) in zip(starts, reference, strict=True):
            t0 = time.perf_counter()
            r = sssp(
                graph,
                int(s),
                method=method,
                backend=backend,
                delta=delta,
                batch_size=batch_size,
                record=record,
            )
            times.append(time.perf_counter() - t0)
            iterations.append(r.counters.iterations)
            edges.append(r.counters.edges_relaxed)
            queued.append(r.counters.queue_items)
            identical &= bool(np.array_equal(r.distances, dist))
        time_ms = _median(times) * 1e3
        its = _median(iterations)
        depth = _median(r[3] for r in reference)
        floor_ms = depth * sync_us / 1e3 if sync_us else None
        rows.append(
            {
                "graph": graph.name,
                "nodes": graph.n_nodes,
                "arcs": graph.n_arcs,
                "weights": graph.weight_kind,
                "method": method,
                "backend": warm.backend,
                "device": warm.device,
                "delta": warm.delta,
                "delta_rule": None if warm.adaptive is None else warm.adaptive.spec(),
                "batch_size": warm.batch_size,
                "record": record,
                "sources": len(starts),
                "seed": seed,
                "setup_s": warm.setup_s,
                "time_ms": time_ms,
                "scipy_ms": scipy_ms,
                "speedup": scipy_ms / time_ms,
                "iterations": round(its),
                "us_per_iteration": time_ms * 1e3 / its if its else None,
                "queue_items": round(_median(queued)) if any(queued) else None,
                "edges_relaxed": round(_median(edges)),
                "dijkstra_edges": round(_median(r[2] for r in reference)),
                "hop_depth": round(depth),
                "sync_scope": sync_scope,
                "sync_us": sync_us,
                "floor_ms": floor_ms,
                "floor_ratio": time_ms / floor_ms if floor_ms else None,
                "identical": identical,
                "host": _backend.device_name("cpu"),
            }
        )
    return rows


#: Columns of the readable table of batches (`benchmark_batch`).
BATCH_TABLE = (
    ("graph", "graph", "{}"),
    ("method", "method", "{}"),
    ("queries", "queries", "{:,}"),
    ("trees_per_s", "trees/s", "{:,.0f}"),
    ("trees_per_s_kept_on_gpu", "kept on GPU", "{:,.0f}"),
    ("scipy_trees_per_s", "SciPy trees/s", "{:,.0f}"),
    ("scipy_workers", "SciPy cores", "{}"),
    ("speedup", "× SciPy", "{:.1f}"),
    ("edges_relaxed", "arcs/tree", "{:,}"),
    ("made_s", "made in (s)", "{:.2f}"),
    ("memory_share", "of copy BW", "{:.0%}"),
    ("ceiling_trees_per_s", "ceiling trees/s", "{:,.0f}"),
    ("identical", "exact", "{}"),
)


def roofline(graph: CSRGraph, method: str, trees_per_s: float | None) -> dict:
    """Where ``trees_per_s`` kept on the GPU stands against the GPU's copy bandwidth
    (`engine.backends.device.copy_bandwidth`, measured here): for ``phast``, the bytes a
    tree moves by its kernel's layout and at the least (`gpu_phast.traffic`), the memory
    speed that rate makes of the layout's bytes and its share of the copy bandwidth, and the
    ceiling in trees a second that the least bytes allow; empty for other methods."""
    if method != "phast" or trees_per_s is None:
        return {}
    from engine.backends import gpu_phast

    moved, bandwidth = gpu_phast.traffic(graph), _backend.copy_bandwidth()
    return {
        "copy_gb_s": bandwidth / 1e9,
        "layout_bytes_per_tree": moved["layout"],
        "floor_bytes_per_tree": moved["floor"],
        "memory_gb_s": trees_per_s * moved["layout"] / 1e9,
        "memory_share": trees_per_s * moved["layout"] / bandwidth,
        "ceiling_trees_per_s": bandwidth / moved["floor"],
    }


def batch_fits(graph: CSRGraph, queries: int, *, advice: str = "give fewer queries") -> None:
    """Refuse `benchmark_batch` of ``queries`` sources (as many as ``graph`` has nodes at
    most) where SciPy's matrix and a method's, held at once, would not fit the memory free:
    before SciPy's hours of work, or a contraction."""
    rows = min(queries, graph.n_nodes)
    _validate.matrices_fit(rows, graph.n_nodes, copies=2, advice=advice)


def benchmark_batch(
    graph: CSRGraph,
    *,
    queries: int,
    methods: tuple[str, ...] = ("near_far",),
    backend: str = "auto",
    seed: int = 0,
    delta: int | str = "auto",
    batch_size: int = DEFAULT_BATCH,
    repeats: int = 3,
    progress=None,
) -> list[dict]:
    """Trees per second of `engine.many_to_many` from ``queries`` seeded sources to every
    node, against SciPy's Dijkstra on the same sources over every core of this host.

    Each method runs once to warm up (compilation, upload; 8 sources), then ``repeats``
    times: the median is reported, with the matrix copied to the host and, for the batched
    GPU kernel, kept on the GPU. SciPy's figure is one `many_to_many(method="dijkstra")`
    over a process pool (its start included). ``identical`` says every distance equalled
    SciPy's. ``progress`` (optional) is called with a line before each step. A method that
    searches a contraction (``near_far_core``, ``phast``) reports the seconds its contraction
    took to make, or to read from the cache folder (``made_s``, ``made_from_cache``), which no
    tree's time includes. ``phast`` kept on the GPU is set against the memory's speed
    (`roofline`).
    """
    from engine.studies.batch import default_workers, many_to_many

    say = progress or (lambda _line: None)
    starts = np.sort(seeded_sources(graph, queries, seed))  # checks queries
    batch_fits(graph, len(starts))
    workers = default_workers()
    say(f"{graph.name}: SciPy's Dijkstra from {len(starts):,} sources on {workers} cores")
    reference = many_to_many(graph, starts, method="dijkstra", workers=workers)
    scipy_rate = reference.trees_per_s
    rows = []
    for method in methods:
        options = dict(method=method, backend=backend, delta=delta, batch_size=batch_size)
        say(f"{graph.name}: {method}, {repeats} × {len(starts):,} trees")
        kind = METHODS[method].contraction
        made = contraction.of(graph, kind, xp=gpu_contract.contraction_module) if kind else None
        warm = many_to_many(graph, starts[:8], **options)
        batched = warm.backend == "gpu" and METHODS[warm.method].batched
        rates, kept, edges, identical = [], [], [], True
        for _ in range(repeats):
            m = many_to_many(graph, starts, **options)
            rates.append(m.trees_per_s)
            edges.append(float(np.median(m.edges_relaxed)))
            identical &= bool(np.array_equal(m.dist, reference.dist))
            del m
            if batched:
                on_gpu = many_to_many(graph, starts, keep_on_gpu=True, **options)
                kept.append(on_gpu.trees_per_s)  # its counters came back: the GPU is done
                del on_gpu
        step = _validate.delta(delta, graph) if METHODS[method].uses_delta else None
        rows.append({
            "graph": graph.name, "nodes": graph.n_nodes, "arcs": graph.n_arcs,
            "weights": graph.weight_kind, "method": method, "backend": warm.backend,
            "device": _backend.device_name(warm.backend), "delta": step,
            "batch_size": batch_size, "queries": len(starts), "seed": seed, "repeats": repeats,
            "trees_per_s": _median(rates),
            "trees_per_s_kept_on_gpu": _median(kept) if kept else None,
            "scipy_trees_per_s": scipy_rate, "scipy_workers": workers,
            "speedup": _median(rates) / scipy_rate, "edges_relaxed": round(_median(edges)),
            "made_s": None if made is None else made.seconds,
            "made_from_cache": None if made is None else made.from_cache,
            "identical": identical, "host": _backend.device_name("cpu"),
            **roofline(graph, method, _median(kept) if kept else None),
        })  # fmt: skip
    return rows


def table(rows: list[dict], columns=TABLE) -> str:
    """The rows as an aligned text table of ``columns`` ((key, heading, format) each)."""
    heads = [h for _k, h, _f in columns]
    cells = [
        ["—" if row.get(k) is None else f.format(row[k]) for k, _h, f in columns] for row in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(heads, *cells, strict=True)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True))]
    lines += [
        "  ".join(
            c.ljust(w) if k < 2 else c.rjust(w)
            for k, (c, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in cells
    ]
    return "\n".join(lines)
