"""Synthetic cities (engine.graphs.synthetic): seeded, road-like, and read back from .gr + .co."""

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

import engine
from engine import load_graph
from engine.graphs import synthetic


def test_a_city_is_seeded_road_like_and_mostly_one_piece():
    g = synthetic.city(2_000, seed=4)
    assert g.n_nodes == 45 * 45 and g.lon is not None
    assert synthetic.city(2_000, seed=4).weights.tolist() == g.weights.tolist()
    assert synthetic.city(2_000, seed=5).weights.tolist() != g.weights.tolist()
    degree = np.diff(g.indptr)
    assert 2.5 < degree.mean() < 4 and degree.max() <= 4  # a grid with streets missing
    _, labels = connected_components(g.scipy_matrix(), directed=False)
    assert np.bincount(labels).max() > 0.95 * g.n_nodes
    # blocks of 100 m: neighbours lie 0.0005°–0.002° apart around 47° N, 8° E
    assert abs(g.lat.mean() - 47) < 0.01 and abs(g.lon.mean() - 8) < 0.01
    # arterials at 60 km/h: the fastest streets take about half the time per metre
    assert g.weights.min() >= 1 and np.median(g.weights) > 2 * g.weights.min()


def test_written_city_reads_back_with_its_coordinates(tmp_path):
    gr, co = synthetic.write_city(tmp_path / "town", 500, seed=2)
    assert (gr.name, co.name) == ("town.gr", "town.co")
    back = load_graph(gr, cache=False)
    made = synthetic.city(500, seed=2)
    assert back.n_nodes == made.n_nodes and back.n_arcs == made.n_arcs
    np.testing.assert_array_equal(back.weights, made.weights)
    np.testing.assert_allclose(back.lon, made.lon, atol=1e-6)
    np.testing.assert_allclose(back.lat, made.lat, atol=1e-6)
    r = engine.sssp(back, 0, backend="cpu")
    assert r.summary()["reached"] > 0.95 * back.n_nodes


@pytest.mark.parametrize(("n", "options"), [(3, {}), (2.5, {}), (100, {"missing": 1.0})])
def test_bad_sizes(n, options):
    with pytest.raises(engine.ParameterError):
        synthetic.city(n, **options)
