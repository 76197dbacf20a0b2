"""Exact answers on the real road graphs of ../shared/data (skipped when absent)."""

import numpy as np
import pytest

from engine import sssp

from .graphs import OSM_CITIES, PACE, check_tree, load_shared

METHODS = [
    "near_far",
    "delta_stepping",
    "bucketing",
    "bellman_ford",
    "near_far_async",
    "near_far_core",
    "phast",
]


def _sources(graph, count, seed=7):
    return np.random.default_rng(seed).choice(graph.n_nodes, size=count, replace=False)


@pytest.mark.parametrize("city", OSM_CITIES)
def test_osm_cities(backend, city):
    g = load_shared(f"osm/{city}.osm.pbf", network="drive")
    assert g.n_nodes > 300 and g.lon is not None
    for source in _sources(g, 2):
        ref = sssp(g, source, method="dijkstra").distances
        for method in METHODS:
            for delta, batch in [("auto", 7), (g.auto_delta() // 8 + 1, 64)]:
                r = sssp(g, source, method=method, backend=backend, delta=delta, batch_size=batch)
                assert np.array_equal(r.distances, ref), (city, method, delta, batch)
    check_tree(r)


@pytest.mark.slow
@pytest.mark.parametrize("name", PACE)
def test_pace_random_weights(backend, name):
    g = load_shared(f"pace16/{name}.gr.xz", weights="random:1")
    assert g.weight_kind == "random:1"
    source = int(_sources(g, 1)[0])
    ref = sssp(g, source, method="dijkstra").distances
    methods = METHODS if backend == "gpu" or g.n_nodes < 500_000 else METHODS[:2]
    for method in methods:
        r = sssp(g, source, method=method, backend=backend, batch_size=7)
        assert np.array_equal(r.distances, ref), (name, method)


@pytest.mark.gpu
@pytest.mark.slow
def test_ne_gpu_all_methods_sources_and_batches():
    g = load_shared("pace16/NE.gr.xz", weights="random:1")
    for source in _sources(g, 3, seed=11):
        ref = sssp(g, source, method="dijkstra").distances
        for method in METHODS:
            for batch in (1, 2, 7, 64):
                r = sssp(g, source, method=method, backend="gpu", batch_size=batch)
                assert np.array_equal(r.distances, ref), (source, method, batch)
        for method in ("near_far", "near_far_async"):
            for delta in (1000, 50_000):
                r = sssp(g, source, method=method, backend="gpu", delta=delta)
                assert np.array_equal(r.distances, ref), (source, method, delta)
