"""Shared toy graphs and reference answers for the tests."""

from __future__ import annotations

import heapq
import os
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import UNREACHABLE, from_arcs
from engine.testing.cases import write_osm_grid, write_osm_ways

__all__ = ["write_osm_grid", "write_osm_ways"]  # toy graphs in one place: the fuzzer's too

#: What draws a `random_graph` in the property tests (with a node count of the test's own).
RANDOM_GRAPH = dict(
    seed=st.integers(0, 2**32 - 1),
    density=st.floats(0.0, 4.0),
    max_weight=st.sampled_from([0, 1, 5, 100]),
)


def property_settings(max_examples: int):
    """Hypothesis settings of the property tests: no deadline (the first GPU search compiles
    its kernels) and the ``backend`` fixture allowed."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


SHARED = Path(
    os.environ.get("FRONTIER_SHARED_DATA")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)
PACE = ["NY", "BAY", "COL", "FLA", "NE"]
OSM_CITIES = ["manhattan", "baltimore", "harrisburg", "liechtenstein", "porto_alegre"]


def random_graph(rng: np.random.Generator, n: int, m: int, max_weight: int = 20):
    """A random directed graph with zero weights, parallel arcs and self loops allowed."""
    tails = rng.integers(0, n, size=m)
    heads = rng.integers(0, n, size=m)
    weights = rng.integers(0, max_weight + 1, size=m)
    return from_arcs(n, tails, heads, weights, name=f"random n={n} m={m}")


def grid_graph(rows: int, cols: int, seed: int = 0):
    """A bidirectional grid with seeded weights in 1..100."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    pairs = [(idx[:, :-1].ravel(), idx[:, 1:].ravel()), (idx[:-1, :].ravel(), idx[1:, :].ravel())]
    tails = np.concatenate([a for a, b in pairs] + [b for a, b in pairs])
    heads = np.concatenate([b for a, b in pairs] + [a for a, b in pairs])
    w = np.random.default_rng(seed).integers(1, 101, size=tails.size)
    return from_arcs(rows * cols, tails, heads, w, name=f"grid {rows}x{cols}")


def path_graph(n: int, weight: int):
    """Nodes 0 - 1 - ... - n-1, both ways, every arc of the same weight."""
    tails = np.r_[np.arange(n - 1), np.arange(1, n)]
    heads = np.r_[np.arange(1, n), np.arange(n - 1)]
    return from_arcs(n, tails, heads, np.full(tails.size, weight), name=f"path {n}")


def both_ways(n: int, edges):
    """Nodes 0..n-1 with each edge ``(u, v, w)`` as the arcs u -> v and v -> u of weight w."""
    u, v, w = (list(c) for c in zip(*edges, strict=True))
    return from_arcs(n, u + v, v + u, w + w)


def heap_dijkstra(graph, source: int) -> np.ndarray:
    """A plain binary-heap Dijkstra, independent of SciPy."""
    dist = np.full(graph.n_nodes, UNREACHABLE, dtype=np.int64)
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for k in range(graph.indptr[u], graph.indptr[u + 1]):
            v, nd = int(graph.indices[k]), d + int(graph.weights[k])
            if nd < dist[v]:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


def check_tree(result) -> None:
    """Assert that the predecessors form a shortest-path tree over the final nodes."""
    g, dist, pred = result.graph, result.distances, result.predecessors
    final = dist < min(result.settled_below, UNREACHABLE)
    assert pred[result.source] == -1
    has = np.flatnonzero(pred >= 0)
    assert np.all(final[has])
    # every final node but the source has a parent; the parent's arc is tight
    expected = np.flatnonzero(final)
    expected = expected[expected != result.source]
    assert np.array_equal(np.sort(has), expected)
    for v in has:
        u = pred[v]
        row = slice(g.indptr[u], g.indptr[u + 1])
        w = g.weights[row][g.indices[row] == v]
        assert w.size and dist[u] + int(w.min()) == dist[v]
    # following parents always reaches the source (no cycles)
    for v in has:
        x, steps = v, 0
        while x != result.source:
            x = pred[x]
            steps += 1
            assert steps <= g.n_nodes


def shared_path(*parts: str) -> Path:
    return SHARED.joinpath(*parts)


def load_shared(relative: str, **options):
    """Load a graph from ``../shared/data``; skip the test when it is absent.

    Where ``FRONTIER_PREBUILT`` names a folder holding ``<file name>.npz`` (CSR graphs saved
    beforehand, for machines without osmnx), that is loaded instead; elsewhere a PBF file
    skips the test where osmium or osmnx is not installed.
    """
    import pytest

    from engine import load_graph
    from engine.graphs.csr import load_npz

    prebuilt = os.environ.get("FRONTIER_PREBUILT")
    if prebuilt:
        candidate = Path(prebuilt) / f"{Path(relative).name}.npz"
        if candidate.is_file():
            return load_npz(candidate)
    path = SHARED / relative
    if not path.is_file():
        pytest.skip(f"{relative} is not in {SHARED}")
    if path.name.endswith(".pbf"):  # a GPU machine may have the data but not osmnx
        pytest.importorskip("osmium", reason="PBF files are read by osmium")
        pytest.importorskip("osmnx", reason="PBF files are built by osmnx")
    return load_graph(path, **options)
