"""`engine.graphs.graphml`: GraphML of any tool read as arrays, exactly: networkx's
``write_graphml`` with names for ids, no coordinates, undirected edges, a named weight;
osmnx's, its travel times imputed as osmnx imputes them; every bad value one line."""

import networkx as nx
import numpy as np
import pytest

import engine
from engine.graphs import graphml, osm
from engine.testing import osmnx_roads

from .graphs import heap_dijkstra, write_osm_grid


def _nx_city(seed: int, n: int = 40, *, directed: bool = True):
    rng = np.random.default_rng(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    for v in range(n):
        G.add_node(f"n{v}")
    for _ in range(3 * n):
        u, v = rng.integers(0, n, 2)
        G.add_edge(f"n{u}", f"n{v}", length=float(rng.integers(1, 5000)) / 7,
                   capacity=int(rng.integers(0, 9)))  # fmt: skip
    return G


def _scipy_reference(G, weight: str, scale: int):
    """Each node's distance from the first node by SciPy, on the weights as Frontier rounds
    them, nodes in the file's order."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    nodes = list(G.nodes)
    index = {v: k for k, v in enumerate(nodes)}
    best: dict = {}
    arcs = list(G.edges(data=True))
    if not G.is_directed():
        arcs += [(v, u, d) for u, v, d in arcs]
    for u, v, d in arcs:
        w = round(d[weight] * scale)
        key = (index[u], index[v])
        best[key] = min(best.get(key, w), w)
    rows, cols = zip(*best, strict=True)
    m = csr_matrix((np.array(list(best.values()), float) + 1e-9, (rows, cols)),
                   shape=(len(nodes), len(nodes)))  # fmt: skip
    d = dijkstra(m, indices=0)
    return np.where(np.isinf(d), engine.UNREACHABLE, np.rint(np.nan_to_num(d, posinf=0)))


@pytest.mark.parametrize("directed", [True, False])
def test_networkx_graphml_with_names_and_no_coordinates(tmp_path, directed):
    G = _nx_city(3, directed=directed)
    path = tmp_path / "city.graphml"
    nx.write_graphml(G, path)
    g = engine.load_graph(path, cache=False)
    assert g.lon is None and g.weight_kind == "length"
    assert g.notes == (
        f"node ids are names, not integers: numbered 0 to {G.number_of_nodes() - 1} in the "
        "file's order ('n0' is 0, 'n1' is 1)",
    )
    r = engine.sssp(g, g.index_of(0), backend="cpu")
    assert np.array_equal(r.distances, _scipy_reference(G, "length", 100))
    assert np.array_equal(r.distances, heap_dijkstra(g, g.index_of(0)))


def test_a_named_weight_of_whole_numbers(tmp_path):
    G = _nx_city(5)
    path = tmp_path / "city.graphml"
    nx.write_graphml(G, path)
    g = engine.load_graph(path, weight="capacity", cache=False)
    assert g.weight_kind == "file" and g.name == "city.graphml (weight: capacity)"
    ref = _scipy_reference(G, "capacity", 1)
    assert np.array_equal(engine.sssp(g, 0, backend="cpu").distances, ref)
    with pytest.raises(engine.GraphFormatError, match="no edge has a 'speed'; its edges have "
                       "capacity, length: choose one with --weight NAME"):  # fmt: skip
        engine.load_graph(path, weight="speed", cache=False)
    for u, v in G.edges:
        G.edges[u, v]["capacity"] = 1.5
    nx.write_graphml(G, path)
    with pytest.raises(engine.GraphFormatError, match=r"capacity 1\.5; a named weight is a whole"):
        engine.load_graph(path, weight="capacity", cache=False)


def test_osmnx_graphml_reads_as_osmnx_reads_it(tmp_path):
    import osmnx as ox

    xml = write_osm_grid(tmp_path / "g.osm", 6, 7, one_way=2)
    G = osmnx_roads.networkx_from_osm(xml)
    for *_, data in G.edges(data=True):  # saved without times: imputed as osmnx does
        del data["travel_time"], data["speed_kph"]
    path = tmp_path / "g.graphml"
    ox.save_graphml(G, path)
    reference = osm.arcs_from_networkx(ox.load_graphml(path), None)
    for weight, field in (("length", "length_cm"), ("travel_time", "travel_ms")):
        g = engine.load_graph(path, weight=weight, cache=False)
        ref = osm.graph_from_arcs(reference, weight, "ref")
        assert np.array_equal(g.node_ids, ref.node_ids) and np.array_equal(g.lon, ref.lon)
        assert np.array_equal(g.indptr, ref.indptr) and np.array_equal(g.indices, ref.indices)
        assert np.array_equal(g.weights, ref.weights), field


def test_graphml_defaults_and_directed_edges(tmp_path):
    text = (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="w" for="edge" attr.name="length"><default>2.5</default></key>'
        '<graph edgedefault="undirected"><node id="1"/><node id="2"/><node id="3"/>'
        '<edge source="1" target="2"/><edge source="2" target="3" directed="true">'
        '<data key="w">4</data></edge></graph></graphml>'
    )
    path = tmp_path / "d.graphml"
    path.write_text(text)
    g = engine.load_graph(path, cache=False)
    arcs = sorted(zip(g.sources.tolist(), g.indices.tolist(), g.weights.tolist(), strict=True))
    assert arcs == [(0, 1, 250), (1, 0, 250), (1, 2, 400)]


def test_parse_keeps_each_line(tmp_path):
    path = tmp_path / "l.graphml"
    path.write_text('<graphml>\n<key id="k" for="edge" attr.name="length"/>\n<graph>\n'
                    '<node id="a"/>\n<node id="b"/>\n<edge source="a" target="b">'
                    '<data key="k">1</data></edge>\n</graph></graphml>')  # fmt: skip
    parsed = graphml.parse(path)
    assert parsed.node_lines == [4, 5] and parsed.edge_lines == [6]
    assert parsed.edge_data == {"length": {0: "1"}}
