# ruff: noqa: E402

import engine
import engine.fuzz
from engine import contraction
from engine.search import from_scipy

cases = [
    (21, 17, 0, 17179869184, 8),
    (21, 55, 0, 53622181920, 64),
    (21, 113, 0, 4294967296, 8),
    (21, 303, 1, 187044423020, 2),
    (5, 214, 0, 4294967296, 8),
    (21, 311, 0, 1099511627776, 64),
]
from scipy.sparse.csgraph import dijkstra

for seed, k, src, delta, batch in cases:
    c = engine.fuzz.draw_case(seed, k, max_nodes=20000)
    g = c.graph()
    ref = engine.sssp(g, src, method="dijkstra").distances
    r = engine.sssp(g, src, method="near_far_core", backend="gpu", delta=delta, batch_size=batch)
    core = contraction.core_of(g)
    h = core.graph
    href = from_scipy(dijkstra(h.scipy_matrix(), directed=True, indices=src))
    hr = engine.sssp(h, src, method="near_far_async", backend="gpu", delta=delta, batch_size=batch)
    print(
        k,
        "n",
        g.n_nodes,
        "tails",
        g.sources.tolist(),
        "heads",
        g.indices.tolist(),
        "w",
        g.weights.tolist(),
    )
    print(
        "   H arcs",
        h.sources.tolist(),
        h.indices.tolist(),
        h.weights.tolist(),
        "dtype",
        h.distance_dtype(),
        "order",
        core.order.tolist(),
        "down",
        core.down_tails.tolist(),
        core.down_weights.tolist(),
        core.down_indptr.tolist(),
        core.round_starts.tolist(),
    )
    print(
        "   core result",
        r.distances.tolist(),
        "ref",
        ref.tolist(),
        "| H async",
        hr.distances.tolist(),
        "H ref",
        href.tolist(),
        "counters",
        r.counters.iterations,
        r.counters.held_back,
        r.delta,
        flush=True,
    )
