"""GraphML files of any tool: osmnx's ``save_graphml``, networkx's ``write_graphml``,
igraph's, Gephi's, read as arrays by a streaming parser of our own.

A file holds one ``<graph>`` of ``<node>`` and ``<edge>`` elements whose values are
``<data key=...>`` of the ``<key>`` declarations (with their ``<default>``). What is read:

* the nodes' ids: integers are kept as the graph's node ids (osmnx's OSM ids); names
  (``n0``, ``Berlin``) are numbered 0, 1, … in the file's order, which the graph's notes
  say;
* coordinates, optional: ``x`` and ``y`` in degrees (longitude and latitude, as osmnx
  writes them) on every node, or on none;
* the edges' weight, ``length`` (metres, as centimetres) by default, ``travel_time``
  (seconds, as milliseconds; imputed from the roads' speeds as osmnx imputes them where a
  file of osmnx's has none), or any other attribute named, whose values must then be whole
  numbers (kept as they are); directed or undirected (each edge both ways), parallel edges
  keeping the lightest;
* a graph osmnx saved keeps its largest strongly connected part, as an OSM file does;
  any other is kept whole, as a DIMACS file is.

Every bad value is refused in one line naming the file, the line, the element and the
value, and what to do: a weight that is no number, not finite or negative, an id too large
for 64 bits, an edge to an undeclared node, a node or key declared twice, a datum of an
undeclared key, a document type (no entity is ever expanded).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

import numpy as np

from engine._errors import GraphFormatError, GraphTooLargeError
from engine.graphs import _validate
from engine.graphs.csr import MAX_WEIGHT, CSRGraph, from_arcs

#: The weights read in fixed point: units per metre and per second.
SCALE = {"length": 100, "travel_time": 1000}
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: Elements GraphML has that a road graph cannot be read from.
_UNREAD = {"hyperedge": "hyperedges", "port": "ports", "endpoint": "hyperedges"}
#: How many elements are read between checks of the memory free.
_CHECK_EVERY = 1 << 18
#: Bytes a node and an edge take while the file is read (ids, values and lists).
_BYTES_EACH = 400


class _Refused(Exception):
    """A bad element: the words (the caller adds the file's name)."""


@dataclass
class _Element:
    kind: str  # "node" or "edge"
    line: int
    ident: str
    attrs: dict[str, str]
    data: dict[str, str] = field(default_factory=dict)


@dataclass
class Parsed:
    """What a GraphML file holds: its keys (id → (for, name, type, default)), whether its
    edges are directed by default, the graph's own data by name, node ids and data, edges'
    ends, direction and data, each element's line."""

    keys: dict[str, tuple[str, str, str, str | None]] = field(default_factory=dict)
    directed: bool = True
    graph_data: dict[str, str] = field(default_factory=dict)
    node_ids: list[str] = field(default_factory=list)
    node_lines: list[int] = field(default_factory=list)
    node_data: dict[str, dict[int, str]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    edge_directed: list[bool] = field(default_factory=list)
    edge_lines: list[int] = field(default_factory=list)
    edge_ids: list[str | None] = field(default_factory=list)
    edge_data: dict[str, dict[int, str]] = field(default_factory=dict)


def parse(path: Path) -> Parsed:
    """Read the GraphML file ``path`` (plain or compressed) into a `Parsed`; its errors
    come as one `GraphFormatError` line naming the line."""
    from engine.graphs.dimacs import open_text

    out, parser = Parsed(), expat.ParserCreate()
    state = _State(out, parser)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = state.doctype
    parser.EntityDeclHandler = state.entity
    parser.StartElementHandler = state.start
    parser.EndElementHandler = state.end
    parser.CharacterDataHandler = state.text
    try:
        with open_text(path) as f:
            while chunk := f.read(1 << 20):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except _Refused as exc:
        msg = f"{path.name}, line {parser.CurrentLineNumber:,}: {exc}"
        raise GraphFormatError(msg) from None
    except expat.ExpatError as exc:
        why = expat.ErrorString(exc.code)
        msg = (
            f"{path.name}, line {exc.lineno:,}, column {exc.offset}: the XML is not well formed "
            f"({why}); the file is damaged, cut off or not UTF-8: save it again"
        )
        raise GraphFormatError(msg) from None
    except OSError as exc:  # a compressed file cut off or damaged
        msg = f"{path.name}: cannot decompress ({exc}); the file is corrupt or truncated"
        raise GraphFormatError(msg) from None
    if not state.graphs:
        msg = f"{path.name} holds no <graph>; give a GraphML file of one graph"
        raise GraphFormatError(msg)
    return out


class _State:
    """The expat handlers of `parse`: what is open, and the elements read so far."""

    def __init__(self, out: Parsed, parser) -> None:
        self.out, self.parser = out, parser
        self.element: _Element | None = None
        self.key: list | None = None
        self.datum: list | None = None  # [key id, text parts]
        self.graphs = self.depth = 0
        self.node_index: dict[str, int] = {}
        self.free, self.seen = _validate.available_memory(), 0

    def doctype(self, *_args) -> None:
        msg = "a document type (<!DOCTYPE>), which GraphML does not use; save the file again"
        raise _Refused(msg)

    def entity(self, *_args) -> None:
        msg = "an XML entity, which is not expanded; save the file again without it"
        raise _Refused(msg)

    def start(self, name: str, attrs: dict[str, str]) -> None:
        tag = name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]
        line = self.parser.CurrentLineNumber
        if tag in _UNREAD:
            raise _Refused(f"GraphML {_UNREAD[tag]}, which a road graph cannot be read from")
        if tag == "graph":
            self.depth += 1
            if self.depth > 1 or self.graphs:
                raise _Refused("a second <graph>; give a file of one graph, not nested")
            self.graphs += 1
            self.out.directed = attrs.get("edgedefault", "directed") != "undirected"
        elif tag == "key":
            self.key = [attrs.get("id"), attrs.get("for", "all"), attrs.get("attr.name"),
                        attrs.get("attr.type", "string"), None]  # fmt: skip
            if self.key[0] is None:
                raise _Refused("a <key> without an id")
            if self.key[0] in self.out.keys:
                raise _Refused(f"key {self.key[0]!r} is declared twice")
        elif tag == "default" and self.key is not None:
            self.datum = ["default", []]
        elif tag == "node" and self.depth:
            self._open("node", line, attrs)
        elif tag == "edge" and self.depth:
            self._open("edge", line, attrs)
        elif tag == "data":
            key = attrs.get("key")
            if key not in self.out.keys:
                raise _Refused(f"a <data> of key {key!r}, which no <key> declares")
            owner = self.element.data if self.element else None
            if owner is not None and key in owner:
                raise _Refused(f"{self._what()} has two values of key {key!r}")
            self.datum = [key, []]

    def _open(self, kind: str, line: int, attrs: dict[str, str]) -> None:
        self.seen += 1
        held = len(self.out.node_ids) + len(self.out.sources)
        if self.seen % _CHECK_EVERY == 0 and _BYTES_EACH * held > self.free:
            msg = f"more nodes and edges than fit the {self.free / 2**30:,.1f} GiB free here"
            raise GraphTooLargeError(msg)
        ident = attrs.get("id")
        if kind == "node" and ident is None:
            raise _Refused("a <node> without an id")
        if kind == "edge" and ("source" not in attrs or "target" not in attrs):
            raise _Refused(f"edge {ident or ''} without a source and a target".replace("  ", " "))
        self.element = _Element(kind, line, ident, attrs)

    def _what(self) -> str:
        e = self.element
        if e.kind == "node":
            return f"node {e.ident!r}"
        named = f" {e.ident!r}" if e.ident else ""
        return f"edge{named} from {e.attrs['source']!r} to {e.attrs['target']!r}"

    def text(self, data: str) -> None:
        if self.datum is not None:
            self.datum[1].append(data)

    def end(self, name: str) -> None:
        tag = name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]
        out = self.out
        if tag == "graph":
            self.depth -= 1
        elif tag == "default" and self.key is not None and self.datum is not None:
            self.key[4] = "".join(self.datum[1])
            self.datum = None
        elif tag == "key" and self.key is not None:
            ident, owner, attr, kind, default = self.key
            out.keys[ident] = (owner, attr or ident, kind, default)
            self.key = None
        elif tag == "data" and self.datum is not None:
            key, parts = self.datum
            self.datum = None
            if self.element is not None:
                self.element.data[key] = "".join(parts)
            elif self.depth:
                out.graph_data[out.keys[key][1]] = "".join(parts)
        elif tag == "node" and self.element is not None:
            e, self.element = self.element, None
            if e.ident in self.node_index:
                first = out.node_lines[self.node_index[e.ident]]
                raise _Refused(f"node {e.ident!r} is declared twice (first on line {first:,})")
            k = self.node_index[e.ident] = len(out.node_ids)
            out.node_ids.append(e.ident)
            out.node_lines.append(e.line)
            for key, value in e.data.items():
                out.node_data.setdefault(out.keys[key][1], {})[k] = value
        elif tag == "edge" and self.element is not None:
            e, self.element = self.element, None
            k = len(out.sources)
            out.sources.append(e.attrs["source"])
            out.targets.append(e.attrs["target"])
            direction = e.attrs.get("directed")
            out.edge_directed.append(out.directed if direction is None else direction == "true")
            out.edge_lines.append(e.line)
            out.edge_ids.append(e.ident)
            for key, value in e.data.items():
                out.edge_data.setdefault(out.keys[key][1], {})[k] = value


def read_graphml(path: Path, weight: str, label: str) -> CSRGraph:
    """The `CSRGraph` of the GraphML file ``path`` weighed by ``weight``, named ``label``:
    its nodes sorted by id, and of a graph osmnx saved only the largest strongly connected
    part (module docstring)."""
    from engine.graphs.roads import largest_strong_part

    made, kind = arcs(path, weight)
    ids, tails, heads, w = made["node_ids"], made["tails"], made["heads"], made["w"]
    lon, lat = made["lon"], made["lat"]
    if made["osmnx"]:
        keep, nodes = largest_strong_part(tails, heads, ids.size)
        index = np.full(ids.size, -1, dtype=np.int64)
        index[nodes] = np.arange(nodes.size)
        tails, heads, w, ids = index[tails[keep]], index[heads[keep]], w[keep], ids[nodes]
        lon, lat = (None, None) if lon is None else (lon[nodes], lat[nodes])
    order = np.argsort(ids, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return from_arcs(
        ids.size, rank[tails], rank[heads], w, node_ids=ids[order],
        lon=None if lon is None else lon[order], lat=None if lat is None else lat[order],
        name=label, weight_kind=kind, notes=tuple(str(n) for n in made.get("notes", ())),
    )  # fmt: skip


def arcs(path: Path, weight: str) -> tuple[dict, str]:
    """The arc and node arrays of the GraphML file ``path`` weighed by ``weight`` (as
    `engine.graphs.osm.graph_from_arcs` takes them, the weight in ``w``) and the weight's
    kind (``length``, ``travel_time`` or ``file``).

    Raises
    ------
    GraphFormatError
        On a bad value, naming the file, line, element and value (module docstring).
    """
    g = parse(path)
    name = path.name
    n = len(g.node_ids)
    if n == 0 or not g.sources:
        msg = f"{name} holds no {'edges' if n else 'nodes'}; give a GraphML file of a road graph"
        raise GraphFormatError(msg)
    node_ids, notes = _ids(g, name)
    index = {ident: k for k, ident in enumerate(g.node_ids)}
    tails = np.empty(len(g.sources), dtype=np.int64)
    heads = np.empty(len(g.sources), dtype=np.int64)
    for k, (u, v) in enumerate(zip(g.sources, g.targets, strict=True)):
        for end, out in ((u, tails), (v, heads)):
            if end not in index:
                msg = (
                    f"{name}, line {g.edge_lines[k]:,}: {_edge(g, k)} names node {end!r}, which "
                    "the file does not declare; add the node or drop the edge"
                )
                raise GraphFormatError(msg)
            out[k] = index[end]
    lon, lat = _coordinates(g, name)
    w, kind = _weights(g, name, weight, tails, heads, lon, lat)
    both = ~np.array(g.edge_directed, dtype=bool)
    if both.any():
        tails, heads = np.concatenate([tails, heads[both]]), np.concatenate([heads, tails[both]])
        w = np.concatenate([w, w[both]])
    made = {
        "node_ids": node_ids, "lon": lon, "lat": lat, "tails": tails, "heads": heads, "w": w,
        "osmnx": str(g.graph_data.get("created_with", "")).startswith("OSMnx"),
    }  # fmt: skip
    if notes:
        made["notes"] = np.array(notes)
    return made, kind


def _edge(g: Parsed, k: int) -> str:
    named = f" {g.edge_ids[k]!r}" if g.edge_ids[k] else ""
    return f"edge{named} from {g.sources[k]!r} to {g.targets[k]!r}"


def _ids(g: Parsed, name: str) -> tuple[np.ndarray, list[str]]:
    """The nodes' ids: the file's where every one is an integer (each within 64 bits),
    else 0, 1, … in the file's order, with a note saying so."""
    if all(_INTEGER.fullmatch(ident.strip()) for ident in g.node_ids):
        values = [int(ident) for ident in g.node_ids]
        for k, v in enumerate(values):
            if not -(2**63) <= v < 2**63:
                msg = (
                    f"{name}, line {g.node_lines[k]:,}: node id {g.node_ids[k][:40]!r} does not "
                    "fit 64 bits; give integer ids within ±9,223,372,036,854,775,807, or names"
                )
                raise GraphFormatError(msg)
        return np.array(values, dtype=np.int64), []
    n = len(g.node_ids)
    first = ", ".join(f"{ident!r} is {k}" for k, ident in enumerate(g.node_ids[:2]))
    return np.arange(n, dtype=np.int64), [
        f"node ids are names, not integers: numbered 0 to {n - 1:,} in the file's order ({first})"
    ]


def _number(g: Parsed, kind: str, k: int, attr: str, text: str, name: str) -> float:
    """``text``, the value of ``attr`` of element ``k``, as a float; refused when it is no
    number."""
    try:
        return float(text)
    except ValueError:
        what = f"node {g.node_ids[k]!r}" if kind == "node" else _edge(g, k)
        line = (g.node_lines if kind == "node" else g.edge_lines)[k]
        msg = (
            f"{name}, line {line:,}: {what} has {attr} {text.strip()[:40]!r}, which is not a number"
        )
        raise GraphFormatError(msg) from None


def _values(g: Parsed, kind: str, attr: str) -> dict[int, str] | None:
    """Element ``k``'s text of ``attr`` by ``k``, the key's default filled in where the
    key has one; None when no element has it."""
    given = (g.node_data if kind == "node" else g.edge_data).get(attr)
    default = next((d for owner, a, _, d in g.keys.values()
                    if a == attr and owner in (kind, "all") and d is not None), None)  # fmt: skip
    if given is None and default is None:
        return None
    count = len(g.node_ids) if kind == "node" else len(g.sources)
    if default is not None:
        return {k: (given or {}).get(k, default) for k in range(count)}
    return given


def _coordinates(g: Parsed, name: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Longitudes and latitudes from ``x`` and ``y`` on every node, or None where no node
    has them; a node without them, or one off the globe, is refused."""
    xs, ys = _values(g, "node", "x"), _values(g, "node", "y")
    if xs is None and ys is None:
        return None, None
    n = len(g.node_ids)
    out = []
    for attr, given, bound, word in (("x", xs, 180, "longitude"), ("y", ys, 90, "latitude")):
        values = np.empty(n)
        for k in range(n):
            if given is None or k not in given:
                msg = (
                    f"{name}, line {g.node_lines[k]:,}: node {g.node_ids[k]!r} has no {attr} "
                    f"({word}); give every node x and y in degrees, or none"
                )
                raise GraphFormatError(msg)
            values[k] = v = _number(g, "node", k, attr, given[k], name)
            if not -bound <= v <= bound:
                msg = (
                    f"{name}, line {g.node_lines[k]:,}: node {g.node_ids[k]!r} has {attr} "
                    f"{given[k].strip()[:40]}, which is no {word} (within ±{bound}°); Frontier "
                    "reads x and y as degrees: drop them to load the graph without coordinates"
                )
                raise GraphFormatError(msg)
        out.append(values)
    return out[0], out[1]


def _weights(g, name, weight, tails, heads, lon, lat) -> tuple[np.ndarray, str]:
    """Each edge's integer weight (module docstring) and the weight's kind."""
    given = _values(g, "edge", weight)
    m = len(g.sources)
    if given is None and weight == "travel_time":
        return _imputed_travel(g, name, tails, heads, lon, lat), "travel_time"
    if given is None:
        names = sorted({a for owner, a, _, _ in g.keys.values() if owner in ("edge", "all")})
        have = f"its edges have {', '.join(names[:8])}" if names else "its edges have no values"
        msg = f"{name}: no edge has a {weight!r}; {have}: choose one with --weight NAME"
        raise GraphFormatError(msg)
    scale = SCALE.get(weight)
    w = np.empty(m, dtype=np.int64)
    for k in range(m):
        if k not in given:
            msg = (
                f"{name}, line {g.edge_lines[k]:,}: {_edge(g, k)} has no {weight}; give every "
                "edge one, or choose another with --weight NAME"
            )
            raise GraphFormatError(msg)
        v = _number(g, "edge", k, weight, given[k], name)
        problem = None
        if not math.isfinite(v) or v < 0:
            problem = "weights are finite and at least 0"
        elif scale is None and v != int(v):
            problem = "a named weight is a whole number (Frontier's weights are integers): scale it"
        elif (scale or 1) * v > MAX_WEIGHT:
            unit = {"length": " m", "travel_time": " s"}.get(weight, "")
            problem = f"at most {MAX_WEIGHT / (scale or 1):,.2f}{unit} can be held"
        if problem:
            msg = (
                f"{name}, line {g.edge_lines[k]:,}: {_edge(g, k)} has {weight} "
                f"{given[k].strip()[:40]}; {problem}"
            )
            raise GraphFormatError(msg)
        w[k] = round(v * scale) if scale else int(v)
    return w, weight if scale else "file"


def _imputed_travel(g, name, tails, heads, lon, lat) -> np.ndarray:
    """Travel times (ms) of a graph osmnx saved without them: each edge's ``speed_kph``
    where every edge has one, else osmnx's own imputation from its ``highway`` and
    ``maxspeed`` values (osmnx is imported for it), over its ``length``."""
    length = _values(g, "edge", "length")
    if length is None:
        msg = (
            f"{name}: its edges have no travel_time and no length to time them by; choose --weight"
        )
        raise GraphFormatError(msg)
    m = len(g.sources)
    metres = np.array([_number(g, "edge", k, "length", length.get(k, "nan"), name)
                       for k in range(m)])  # fmt: skip
    speeds = _values(g, "edge", "speed_kph")
    if speeds is not None and len(speeds) == m:
        kph = np.array([_number(g, "edge", k, "speed_kph", speeds[k], name) for k in range(m)])
    else:
        kph = _osmnx_speeds(g, tails, heads)
    with np.errstate(divide="ignore", invalid="ignore"):
        seconds = (metres / 1000) / (kph / 3600)
    bad = ~np.isfinite(seconds) | (seconds < 0) | (seconds * 1000 > MAX_WEIGHT)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        msg = (
            f"{name}, line {g.edge_lines[k]:,}: {_edge(g, k)} has a length of {metres[k]:g} m "
            f"at {kph[k]:g} km/h: no travel time Frontier can hold; fix it, or weigh by length"
        )
        raise GraphFormatError(msg)
    return np.rint(seconds * 1000).astype(np.int64)


def _osmnx_speeds(g: Parsed, tails: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """osmnx's ``add_edge_speeds`` of the edges (their ``highway`` and ``maxspeed``, lists
    written as osmnx writes them), in km/h."""
    import ast

    import networkx as nx

    from engine.graphs.osm import add_car_speeds

    def read(text: str | None):
        if text is not None and text.startswith("["):
            try:
                return ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return text
        return text

    highway, maxspeed = _values(g, "edge", "highway") or {}, _values(g, "edge", "maxspeed") or {}
    G = nx.MultiDiGraph(crs="epsg:4326")
    G.add_nodes_from(range(len(g.node_ids)), x=0.0, y=0.0)
    for k, (u, v) in enumerate(zip(tails.tolist(), heads.tolist(), strict=True)):
        data = {"highway": read(highway.get(k))}
        if k in maxspeed:
            data["maxspeed"] = read(maxspeed[k])
        G.add_edge(u, v, key=k, **data)
    try:
        add_car_speeds(G)
    except (ValueError, KeyError, TypeError):
        msg = "cannot impute travel times from these edges' highway and maxspeed values"
        raise GraphFormatError(msg) from None
    ends = zip(tails.tolist(), heads.tolist(), strict=True)
    return np.array([G.edges[u, v, k]["speed_kph"] for k, (u, v) in enumerate(ends)], dtype=float)
