"""osmnx's own graph of an OSM file, the way Frontier built it before `engine.graphs.roads`
(osmium writes the kept ways as XML, osmnx's ``graph_from_xml`` builds the graph, timed and
simplified by `engine.graphs.osm.simplified`): the reference the road graph is tested
against, and the maker of the GraphML seed files.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engine._errors import GraphFormatError
from engine.graphs import osm
from engine.graphs.ways import osmium_file


def arcs(path: Path, network: str = "all", *, fmt: str = "xml") -> dict:
    """`engine.graphs.osm.arcs_from_osm`'s arrays, made by osmnx. Of strongly connected
    parts of one size, the one with the smallest node id is kept, as
    `engine.graphs.roads` keeps it (osmnx keeps the first networkx finds)."""
    import networkx as nx

    G = networkx_from_osm(path, network, fmt=fmt)
    roads = G.subgraph([v for v in G if G.degree(v)])
    parts = list(nx.strongly_connected_components(roads)) or [set()]
    best = max(parts, key=lambda part: (len(part), -min(part, default=0)))
    return osm.arcs_from_networkx(nx.MultiDiGraph(G.subgraph(best)), network)


def clean_osm_xml(path: Path, out: Path, network: str = "all", *, fmt: str = "xml") -> int:
    """Write the roads of ``network`` in an OSM file (``fmt``: ``xml`` or ``pbf``) to
    ``out`` as OSM XML in a form osmnx accepts; return how many ways were written.

    Only ways passing osmnx's filter of ``network`` (`way_filter`) and the nodes they refer
    to are kept (an extract's other nodes, most of them, would only slow osmnx down), and
    each way is cut where it refers to a node missing from the file (clipped extracts), its
    pieces getting fresh way ids.
    """
    import osmium
    from osmium.osm.mutable import Node, Way

    keep = osm.way_filter(network)
    try:
        source = osmium_file(path, fmt)
        ways, next_id = [], 1
        for way in osmium.FileProcessor(source, osmium.osm.WAY):
            next_id = max(next_id, way.id + 1)
            if keep(way.tags):
                ways.append((way.id, [r.ref for r in way.nodes], dict(way.tags)))
        wanted = {ref for _, refs, _ in ways for ref in refs}
        present = {}
        for node in osmium.FileProcessor(source, osmium.osm.NODE):
            if node.id in wanted:
                _check_location(node)
                present[node.id] = (node.location.lon, node.location.lat)
        written = 0
        with osmium.SimpleWriter(str(out), overwrite=True) as writer:
            for v, lon_lat in present.items():
                writer.add_node(Node(id=v, location=lon_lat))
            for way_id, refs, tags in ways:
                runs, run = [], []
                for ref in refs:
                    if ref in present:
                        run.append(ref)
                    else:
                        runs.append(run)
                        run = []
                runs.append(run)
                for k, piece in enumerate(r for r in runs if len(r) > 1):
                    writer.add_way(Way(id=way_id if k == 0 else next_id, nodes=piece, tags=tags))
                    next_id += k > 0
                    written += 1
    except GraphFormatError as exc:
        msg = f"{path.name}: {exc}"
        raise GraphFormatError(msg) from None
    except Exception as exc:  # osmium's errors (bad XML, bad locations) are of many types
        msg = f"{path.name}: cannot read as OSM {fmt.upper()} ({type(exc).__name__}: {exc})"
        raise GraphFormatError(msg) from None
    return written


def _check_location(node) -> None:
    """Refuse an OSM node off the globe (before simplification drops it from the graph but
    not from the lengths of the roads through it)."""
    where = node.location
    if not where.valid():
        msg = (
            f"node {node.id} is at latitude {where.lat_without_check():g}, longitude "
            f"{where.lon_without_check():g}; latitudes lie within ±90° and longitudes ±180°"
        )
        raise GraphFormatError(msg)


def networkx_from_osm(path: Path, network: str = "all", *, fmt: str = "xml"):
    """Read the roads of ``network`` in an OSM file, PBF or XML (plain, gzip or bzip2), with
    osmnx, after `clean_osm_xml`: osmnx's filter and one-way rule (`two_way`) whatever the
    file's format, so an XML and a PBF extract of one area give one graph; timed, then
    simplified (`simplified`)."""
    import osmnx as ox

    with tempfile.TemporaryDirectory() as folder:
        cleaned = Path(folder) / "roads.osm"
        if not clean_osm_xml(path, cleaned, network, fmt=fmt):
            raise GraphFormatError(osm._no_roads(path.name, network))
        try:
            G = ox.graph_from_xml(
                cleaned, bidirectional=osm.two_way(network), simplify=False, retain_all=True
            )
        except Exception as exc:  # malformed XML surfaces as several exception types
            msg = f"{path.name}: cannot read as OSM {fmt.upper()} ({type(exc).__name__}: {exc})"
            raise GraphFormatError(msg) from None
    if G.number_of_edges() == 0:
        raise GraphFormatError(osm._no_roads(path.name, network))
    return osm.simplified(G, network)
