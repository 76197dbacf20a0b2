"""`engine.graphs.ways`: a PBF and an OSM XML file of the same data read as the same arrays,
each node where osmium places it, each way kept as osmnx's filter keeps it."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import engine
from engine.graphs import osm, ways

from .graphs import shared_path, write_osm_ways
from .test_roads import osm_files

osmium = pytest.importorskip("osmium")
pytest.importorskip("pyrosm")


def _as_pbf(source, pbf, *, dense=True):
    """``source`` written as PBF, its nodes in dense blocks or one by one (blocks pyrosm's
    GIL-free decoder hands back to its plain one)."""
    pbf.unlink(missing_ok=True)
    options = "pbf" if dense else "pbf,pbf_dense_nodes=false"
    with osmium.SimpleWriter(osmium.io.File(str(pbf), options)) as writer:
        for obj in osmium.FileProcessor(str(source)):
            writer.add(obj)
    return pbf


def _values(read: ways.Ways, key: str) -> list:
    """Each way's value of ``key``, None where it has none."""
    codes, strings = read.tags[key]
    return [None if c < 0 else strings[c] for c in codes.tolist()]


def assert_same_ways(a: ways.Ways, b: ways.Ways) -> None:
    for key in ("node_ids", "x", "y", "refs", "offsets"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    for key in ways.TAGS:
        assert _values(a, key) == _values(b, key), key


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=osm_files())
def test_xml_and_pbf_read_alike(case, tmp_path):
    nodes, way_list = case
    xml = write_osm_ways(tmp_path / "w.osm", nodes, way_list)
    dense = _as_pbf(xml, tmp_path / "w.osm.pbf")
    sparse = _as_pbf(xml, tmp_path / "w-sparse.osm.pbf", dense=False)
    for network in ("drive", "all"):
        clauses = osm.clauses(network)
        read = ways.read(xml, "xml", clauses)
        assert_same_ways(read, ways.read(dense, "pbf", clauses))
        assert_same_ways(read, ways.read(sparse, "pbf", clauses))


def test_pbf_nodes_and_ways_are_osmiums(tmp_path):
    path = shared_path("osm", "liechtenstein.osm.pbf")
    if not path.exists():
        pytest.skip("needs ../shared/data")
    keep = osm.way_filter("drive")
    read = ways.read(path, "pbf", osm.clauses("drive"))
    sparse = _as_pbf(path, tmp_path / "sparse.osm.pbf", dense=False)
    assert_same_ways(read, ways.read(sparse, "pbf", osm.clauses("drive")))
    ids, xs, ys = [], [], []
    for node in osmium.FileProcessor(str(path), osmium.osm.NODE):
        ids.append(node.id)
        xs.append(node.location.x)
        ys.append(node.location.y)
    assert np.array_equal(read.node_ids, ids)
    assert np.array_equal(read.x, xs) and np.array_equal(read.y, ys)
    refs, highways = [], []
    for way in osmium.FileProcessor(str(path), osmium.osm.WAY):
        if keep(way.tags):
            refs.extend(r.ref for r in way.nodes)
            highways.append(way.tags.get("highway"))
    assert np.array_equal(read.refs, refs) and _values(read, "highway") == highways
    assert 0 < len(highways) < 10_000


def test_unreadable_files_are_one_line(tmp_path):
    pbf = tmp_path / "cut.osm.pbf"
    pbf.write_bytes(b"\x00\x00\x00\x0d\x0a\x09OSMHeader" + bytes(40))
    with pytest.raises(engine.GraphFormatError, match=r"^cut\.osm\.pbf: cannot read as OSM PBF"):
        ways.read(pbf, "pbf", [])
    xz = tmp_path / "roads.osm.xz"
    xz.write_bytes(b"\xfd7zXZ\x00\x00")
    with pytest.raises(engine.GraphFormatError, match="xz-compressed OSM XML is not read"):
        ways.read(xz, "xml", [])
