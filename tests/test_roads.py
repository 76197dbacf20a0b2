"""`engine.graphs.roads`: osmnx's road graph built in arrays equals osmnx's own, arc for arc
and weight for weight, on random OSM files, the shared extracts and a synthetic city."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.graphs import osm, roads, synthetic
from engine.testing import osmnx_roads

from .graphs import shared_path, write_osm_ways

pytest.importorskip("osmnx")
pytest.importorskip("osmium")


def _lightest(arcs: dict, field: str) -> dict:
    """Each pair of nodes' lightest arc (parallel arcs keep the lightest in the CSR)."""
    best: dict = {}
    ends = zip(arcs["tails"].tolist(), arcs["heads"].tolist(), strict=True)
    for (u, v), w in zip(ends, arcs[field].tolist(), strict=True):
        best[u, v] = min(w, best.get((u, v), w))
    return best


def assert_same_roads(path: Path, network: str, fmt: str) -> None:
    """Frontier's arrays and osmnx's graph of one file: the same nodes at the same places,
    the same arcs, and each weight equal (or the same weight refused), or both refused."""
    try:
        want = osmnx_roads.arcs(path, network, fmt=fmt)
    except engine.GraphFormatError:
        with pytest.raises(engine.GraphFormatError):
            osm.arcs_from_osm(path, network, fmt=fmt)
        return
    got = osm.arcs_from_osm(path, network, fmt=fmt)
    for key in ("node_ids", "lon", "lat"):
        assert np.array_equal(got[key], want[key]), key
    assert got["tails"].size == want["tails"].size
    for weight, field in (("length", "length_cm"), ("travel_time", "travel_ms")):
        assert (f"{weight}_problem" in got) == (f"{weight}_problem" in want)
        assert _lightest(got, field) == _lightest(want, field), weight


TAGS = {
    "highway": ["residential", "primary", "service", "footway", "track", "cycleway"],
    "oneway": ["yes", "-1", "no", "reverse", "T", "F", "1", "true"],
    "junction": ["roundabout", "circular"],
    "maxspeed": ["30", "50", "20 mph", "50|30", "signals", "RU:urban", "none", "35;40", "7 knots"],
    "access": ["private", "yes"],
}


@st.composite
def osm_files(draw):
    """Nodes on a small patch (some missing from the file, as in a clipped extract) and ways
    over them: repeated nodes, closed rings, parallel ways, one-way and speed tags."""
    n = draw(st.integers(3, 12))
    place = st.tuples(st.integers(0, 40), st.integers(0, 40))
    nodes = {v: (60 + a * 1e-4, 24 + b * 1e-4) for v, (a, b) in
             ((v, draw(place)) for v in range(1, n + 1))}  # fmt: skip
    for v in draw(st.sets(st.integers(1, n), max_size=2)):
        del nodes[v]
    ways = []
    for _ in range(draw(st.integers(1, 9))):
        refs = draw(st.lists(st.integers(1, n), min_size=1, max_size=7))
        if draw(st.booleans()):
            refs = [*refs, refs[0]]
        tags = {"highway": draw(st.sampled_from(TAGS["highway"]))}
        for key in ("oneway", "junction", "maxspeed", "access"):
            if draw(st.integers(0, 3)) == 0:
                tags[key] = draw(st.sampled_from(TAGS[key]))
        ways.append((refs, tags))
    return nodes, ways


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=osm_files(), network=st.sampled_from(list(osm.NETWORKS)))
def test_random_osm_files_give_osmnx_graph(case, network, tmp_path):
    import warnings

    nodes, ways = case
    path = write_osm_ways(tmp_path / "random.osm", nodes, ways)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # osmnx warns of patterns it simplifies anyway
        assert_same_roads(path, network, "xml")


@pytest.mark.slow
@pytest.mark.parametrize("city", ["liechtenstein", "manhattan", "porto_alegre", "baltimore",
                                  "harrisburg"])  # fmt: skip
@pytest.mark.parametrize("network", list(osm.NETWORKS))
def test_shared_extracts_give_osmnx_graph(city, network):
    path = shared_path("osm", f"{city}.osm.pbf")
    if not path.exists():
        pytest.skip("needs ../shared/data")
    assert_same_roads(path, network, "pbf")


def test_synthetic_city_pbf_gives_osmnx_graph(tmp_path):
    path = synthetic.write_city_pbf(tmp_path / "city.osm.pbf", 900, seed=4)
    for network in ("drive", "walk"):
        assert_same_roads(path, network, "pbf")


def test_merged_roads_sum_their_edges_in_order():
    """A path's length is summed edge by edge from its start, as Python's sum does."""
    # a chain 0 → 1 → 2 → 3 of one-way edges; 1 and 2 are middle nodes
    u, v = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])
    length = np.array([0.1, 0.2, 0.3, 1e-17])
    travel = length * 10
    got = roads._simplified(u, v, length, travel, 4, roads._pairs(u, v, 4))
    # a ring of middle nodes only: osmnx drops it whole
    assert all(part.size == 0 for part in got)
    u, v = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3])  # 0 → 1 → 2 → 3 and 0 → 3
    lengths = np.array([0.1, 0.2, 0.3, 5.0])
    made = roads._pairs(u, v, 4)
    got_u, got_v, got_length, _ = roads._simplified(u, v, lengths, np.zeros(4), 4, made)
    merged = got_length[(got_u == 0) & (got_v == 3)]
    assert sorted(merged.tolist()) == [((0.0 + 0.1) + 0.2) + 0.3, 5.0]


def test_first_of_each_without_room_to_pack():
    rng = np.random.default_rng(1)
    for top in (50, 2**60):  # packed with their places, then a stable argsort
        key = rng.integers(0, top, 500)
        values, places = roads._first_of_each(key)
        assert np.array_equal(values, np.unique(key))
        assert np.array_equal(places, [np.flatnonzero(key == k)[0] for k in values])
