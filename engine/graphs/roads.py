"""osmnx's road graph of OSM ways, built in arrays: the graph ``graph_from_xml`` makes of a
file's kept ways, each edge timed at its own way's speed, then simplified as
``simplify_graph`` does, and its largest strongly connected part, as arcs.

Each rule is osmnx's (2.x), step by step:

- a way is cut where it refers to a node missing from the file (clipped extracts) and
  loses repeated consecutive nodes; each pair of consecutive nodes is an edge;
- one-way ways (``oneway`` of ``yes``, ``true``, ``1``, ``-1``, ``reverse``, ``T`` or ``F``,
  or ``junction=roundabout``; none on a two-way network type) give their edges one way,
  reversed for ``-1``, ``reverse`` and ``T``; the others both ways;
- an edge's length is the great-circle distance between its nodes (radius 6,371,009 m);
- its speed is its way's ``maxspeed`` where that reads (osmnx's reading, `clean_maxspeed`),
  else the mean of its road type's read speeds, else the mean of the types' means;
  `FALLBACK_KPH` where no road has one; one speed on ``walk`` and ``bike``
  (`engine.graphs.osm.SPEED_KPH`); its travel time is its length over its speed;
- a node is kept (an endpoint) where it has a loop, no edge in or none out, or other than
  two neighbours with two or four edges; each path from an endpoint through other nodes
  becomes one edge of the summed lengths and travel times of the path's edges (the first
  edge of each pair of nodes), and the nodes inside are dropped; parts with no endpoint
  left (rings) are dropped;
- the largest strongly connected part is kept (of equal ones, the one with the smallest
  node id; nodes on no road are no part). osmnx keeps the first networkx finds.

One difference: a road type's mean speed is summed in this module's order of edges, not
osmnx's, so it may differ from osmnx's in its last bit (a travel time in milliseconds would
differ only where it lies within about 1e-12 of a half). The tests compare every weight with
osmnx's graph.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine._errors import GraphFormatError
from engine.graphs import _validate
from engine.graphs.ways import PRECISION, Ways

#: osmnx's ``oneway`` values of a one-way way, and of one drawn against its nodes' order.
ONE_WAY = ("yes", "true", "1", "-1", "reverse", "T", "F")
REVERSED = ("-1", "reverse", "T")
#: osmnx's radius of the earth, in metres.
EARTH_RADIUS_M = 6_371_009
#: Speed given to every road when no road has a maxspeed that reads (km/h).
FALLBACK_KPH = 30.0
#: osmnx's pattern of a maxspeed value, and its miles to kilometres.
_MAXSPEED = re.compile(r"^([0-9][\.,0-9]*?)(?:[ ]?(?:km/h|kmh|kph|mph|knots))?$")
MILES_TO_KM = 1.60934
#: The words of a road graph without a strongly connected part of two nodes or more.
NO_STRONG_PART = (
    "no part of these roads lets every node reach every other (one-way streets only?); try "
    "--network walk, or a larger extract"
)


def graph(
    ways: Ways, *, two_way: bool, speed_kph: float | None, implicit: dict, nothing: str
) -> dict:
    """The largest strongly connected part of osmnx's simplified graph of ``ways``.

    Parameters
    ----------
    ways : Ways
        The file's nodes and kept ways.
    two_way : bool
        Whether every way goes both ways (osmnx's bidirectional network types).
    speed_kph : float or None
        One speed for every road, or None for car speeds from the ways' tags.
    implicit : dict
        osmnx's implicit speeds in km/h (``maxspeed=DE:urban`` and the like).
    nothing : str
        The error's words where the ways make no road.

    Returns
    -------
    dict
        ``node_ids`` (sorted), ``lon``, ``lat``, ``tails``, ``heads`` (node indices),
        ``length_m`` and ``travel_s`` (floats) of the arcs, and ``notes`` (`_cut`).

    Raises
    ------
    GraphTooLargeError
        If building them would take more memory than is free.
    GraphFormatError
        If a node is given twice at two places, a node the roads use has no place or
        lies off the globe, there is no road, or no part of the roads lets every node
        reach every other.
    """
    _validate.road_size(ways.refs.size)
    ids, x, y = _nodes(ways)
    u, v, way, twin, present = _edges(ways, ids, two_way=two_way) if ids.size else ((),) * 5
    if len(u) == 0:
        raise GraphFormatError(nothing)
    lon, lat = x / PRECISION, y / PRECISION

    def weights():
        drawn = twin == np.arange(u.size)  # an edge and its reverse: one length, to the bit
        a, b = u[drawn], v[drawn]
        length = great_circle(lat[a], lon[a], lat[b], lon[b])[(np.cumsum(drawn) - 1)[twin]]
        speed = _speeds(ways, way, speed_kph, implicit)
        with np.errstate(divide="ignore"):  # a speed of 0 km/h: refused by the caller
            return length, (length / 1000) / (speed / (60 * 60))

    # The weights and the pairs of nodes on two cores: NumPy lets go of the GIL in both.
    with ThreadPoolExecutor(1) as pool:
        weighed = pool.submit(weights)
        pairs = _pairs(u, v, ids.size)
        length, travel = weighed.result()
    u, v, length, travel = _simplified(u, v, length, travel, ids.size, pairs)
    u, v, length, travel, kept = _largest_strong_part(u, v, length, travel, ids.size)
    index = np.full(ids.size, -1, dtype=np.int64)
    index[kept] = np.arange(kept.size)
    return {
        "node_ids": ids[kept], "lon": lon[kept], "lat": lat[kept],
        "tails": index[u], "heads": index[v], "length_m": length, "travel_s": travel,
        "notes": _cut(ways, present),
    }  # fmt: skip


def _cut(ways: Ways, present: np.ndarray) -> tuple[str, ...]:
    """The note of the ways cut where they name nodes the file lacks (``present``: whether
    the file has each way reference's node), as osmnx cuts them; none when no way is."""
    lacking = ~present
    if not lacking.any():
        return ()
    owner = np.searchsorted(ways.offsets, np.flatnonzero(lacking), side="right") - 1
    n_ways, n_nodes = _distinct(owner).size, _distinct(np.sort(ways.refs[lacking])).size
    ways_cut = f"{n_ways:,} way{'s' * (n_ways != 1)}"
    name = "they name" if n_ways != 1 else "it names"
    nodes = f"{n_nodes:,} node{'s' * (n_nodes != 1)}"
    return (
        f"{ways_cut} cut where {name} {nodes} the file lacks (a clipped extract), as osmnx "
        "cuts them",
    )


def great_circle(lat1, lon1, lat2, lon2) -> np.ndarray:
    """osmnx's great-circle distance in metres (``distance.great_circle``), each operation
    as it writes it so that every length equals its own; NaN becomes 0."""
    y1 = np.deg2rad(lat1)
    y2 = np.deg2rad(lat2)
    delta_y = y2 - y1
    x1 = np.deg2rad(lon1)
    x2 = np.deg2rad(lon2)
    delta_x = x2 - x1
    h = np.sin(delta_y / 2) ** 2 + np.cos(y1) * np.cos(y2) * np.sin(delta_x / 2) ** 2
    h = np.minimum(1, h)
    arc = 2 * np.arcsin(np.sqrt(h))
    dist = arc * EARTH_RADIUS_M
    dist[np.isnan(dist)] = 0
    return dist


#: osmium's coordinate of a node whose location the file does not give.
UNDEFINED = 2**31 - 1


def _nodes(ways: Ways) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes the ways refer to that the file has, sorted by id, with their coordinates;
    refuse a node given twice at two places (`_one_place_each`), and one the roads use
    with no place or one off the globe (the first in the file)."""
    _one_place_each(ways)
    wanted = _distinct(np.sort(ways.refs))
    used = _member(ways.node_ids, wanted)
    nowhere = used & ((ways.x == UNDEFINED) | (ways.y == UNDEFINED))
    if nowhere.any():
        k = int(np.flatnonzero(nowhere)[0])
        msg = f"node {ways.node_ids[k]} has no place (no lat and lon); give every node both"
        raise GraphFormatError(msg)
    off = used & ((np.abs(ways.x) > 180 * PRECISION) | (np.abs(ways.y) > 90 * PRECISION))
    if off.any():
        k = int(np.flatnonzero(off)[0])
        msg = (
            f"node {ways.node_ids[k]} is at latitude {ways.y[k] / PRECISION:g}, longitude "
            f"{ways.x[k] / PRECISION:g}; latitudes lie within ±90° and longitudes ±180°"
        )
        raise GraphFormatError(msg)
    at = np.flatnonzero(used)
    ids = ways.node_ids[at]
    if ids.size > 1 and not (ids[1:] > ids[:-1]).all():  # unsorted, or a node given twice
        ids, first = _first_of_each(ids)
        at = at[first]
    return ids, ways.x[at], ways.y[at]


def _one_place_each(ways: Ways) -> None:
    """Refuse a file that gives one node id twice at two places, naming the first such
    node in the file and both places. (osmnx keeps the later place silently: a road
    through it can become thousands of kilometres long.) The same node given twice at
    one place, as where two extracts were joined, is read once."""
    ids = ways.node_ids
    if ids.size < 2 or (ids[1:] > ids[:-1]).all():  # sorted and distinct: osmium's files
        return
    order = np.argsort(ids, kind="stable")
    ordered = ids[order]
    twice = np.flatnonzero(ordered[1:] == ordered[:-1])
    a, b = order[twice], order[twice + 1]
    moved = (ways.x[a] != ways.x[b]) | (ways.y[a] != ways.y[b])
    if not moved.any():
        return
    k = int(np.argmin(np.where(moved, b, ids.size)))  # the first repeat in the file
    i, j = int(a[k]), int(b[k])

    def place(n: int) -> str:
        return f"{ways.y[n] / PRECISION:.7f}, {ways.x[n] / PRECISION:.7f}"

    msg = (
        f"node {ids[i]} is given twice, at {place(i)} and at {place(j)} (latitude, "
        "longitude); an extract places each node once: export it again"
    )
    raise GraphFormatError(msg)


def _distinct(sorted_values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array."""
    new = np.ones(sorted_values.size, dtype=bool)
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return sorted_values[new]


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in ``sorted_set`` (distinct, sorted)."""
    if sorted_set.size == 0:
        return np.zeros(values.size, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[at] == values


def _first_of_each(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``key``, sorted, and where each first comes.

    One sort of the values and their places packed into one integer where they fit (a
    stable argsort where they do not): several times faster than NumPy's argsort."""
    m = key.size
    bits = max(int(m - 1).bit_length(), 1)
    room = 1 << (63 - bits)
    if m and -room <= int(key.min()) and int(key.max()) < room:
        packed = np.sort((key << bits) | np.arange(m))
        values, places = packed >> bits, packed & ((1 << bits) - 1)
    else:
        places = np.argsort(key, kind="stable")
        values = key[places]
    new = np.ones(m, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=new[1:])
    return values[new], places[new]


def _edges(ways: Ways, ids: np.ndarray, *, two_way: bool):
    """The graph's edges as node indices into ``ids``, in osmnx's order of insertion (way
    by way, its edges, then the same reversed), each edge's way, and its twin: the edge
    itself, or for the reverse of an edge that edge; and whether the file has each way
    reference's node."""
    n_ways = ways.offsets.size - 1
    owner = np.repeat(np.arange(n_ways), np.diff(ways.offsets))
    at = np.minimum(np.searchsorted(ids, ways.refs), ids.size - 1)
    present = ids[at] == ways.refs
    pair = (owner[:-1] == owner[1:]) & present[:-1] & present[1:]
    pair &= ways.refs[:-1] != ways.refs[1:]
    first = np.flatnonzero(pair)
    u, v, way = at[first], at[first + 1], owner[first]
    codes, values = ways.tags["oneway"]
    rule = np.zeros(len(values) + 1, dtype=bool)  # the last slot: no tag
    against = np.zeros(len(values) + 1, dtype=bool)
    if not two_way:
        rule[:-1] = np.isin(np.array(values, dtype=object), ONE_WAY)
        against[:-1] = np.isin(np.array(values, dtype=object), REVERSED)
        kinds, names = ways.tags["junction"]
        roundabout = np.array([name == "roundabout" for name in names] + [False])
        one_way = rule[codes] | roundabout[kinds]
    else:
        one_way = np.zeros(n_ways, dtype=bool)
    backwards = (one_way & against[codes])[way]
    u, v = np.where(backwards, v, u), np.where(backwards, u, v)
    both = ~one_way[way]
    # Way by way: its edges, then (two-way) the same reversed.
    ahead = np.bincount(way, minlength=n_ways)
    start = np.zeros(n_ways + 1, dtype=np.int64)
    np.cumsum(ahead * (1 + ~one_way), out=start[1:])
    rank = np.arange(way.size) - np.repeat(np.cumsum(ahead) - ahead, ahead)
    places = start[way] + rank
    total = int(start[-1])
    tails, heads, owners, twin = (np.empty(total, dtype=np.int64) for _ in range(4))
    tails[places], heads[places], owners[places], twin[places] = u, v, way, places
    back = places[both] + ahead[way[both]]
    tails[back], heads[back], owners[back], twin[back] = v[both], u[both], way[both], places[both]
    return tails, heads, owners, twin, present


def clean_maxspeed(value: str, implicit: dict) -> float | None:
    """osmnx's reading of a ``maxspeed`` value (``routing._clean_maxspeed``) in km/h: a
    number, with km/h, kmh, kph, mph (converted) or knots (not converted) after it, or
    several split by ``|`` (their mean); else its implicit speed; None where neither."""
    try:
        speeds = []
        for part in value.split("|"):
            speed = float(_MAXSPEED.match(part).group(1).replace(",", "."))
            if "mph" in value.lower():
                speed *= MILES_TO_KM
            speeds.append(speed)
        return float(np.mean(speeds))
    except (ValueError, AttributeError):
        return implicit.get(value)


def _speeds(ways: Ways, way: np.ndarray, speed_kph, implicit) -> np.ndarray:
    """Each edge's speed in km/h: ``speed_kph``, or osmnx's ``add_edge_speeds`` where it is
    None (the mean speeds taken over edges, as osmnx's are)."""
    if speed_kph is not None:
        return np.full(way.size, float(speed_kph))
    codes, values = ways.tags["maxspeed"]
    read = [clean_maxspeed(value, implicit) for value in values]
    table = np.array([np.nan if r is None else float(r) for r in read] + [np.nan])
    speed = table[codes[way]]
    known = ~np.isnan(speed)
    if not known.any():
        return np.full(way.size, FALLBACK_KPH)
    kinds, names = ways.tags["highway"]
    kind = kinds[way]  # -1 (no highway tag: no type, no imputed speed) picks the last slot
    typed = np.unique(kind[kind >= 0])
    mean = np.full(len(names) + 1, np.nan)
    for k in typed:
        of_kind = speed[kind == k]
        if not np.isnan(of_kind).all():
            mean[k] = np.nanmean(of_kind)
    by_name = sorted((names[k], mean[k]) for k in typed)  # osmnx's groupby: sorted types
    means = np.array([m for _, m in by_name])
    if not np.isnan(means).all():
        mean[typed] = np.where(np.isnan(mean[typed]), np.nanmean(means), mean[typed])
    return np.where(known, speed, mean[kind])


def _endpoints(u, v, n, pairs, backward) -> np.ndarray:
    """osmnx's ``_is_endpoint`` of each of ``n`` nodes of the multigraph ``u → v``, whose
    distinct pairs ``tail × n + head`` are ``pairs`` and ``head × n + tail`` ``backward``
    (both sorted)."""
    out = np.bincount(u, minlength=n)
    into = np.bincount(v, minlength=n)
    tail, head = pairs // n, pairs % n
    loop = np.zeros(n, dtype=bool)
    loop[tail[tail == head]] = True
    mutual = backward[_member(backward, pairs)] % n  # t of each pair (t, h) with (h, t)
    neighbours = (np.bincount(tail, minlength=n) + np.bincount(head, minlength=n)
                  - np.bincount(mutual, minlength=n))  # fmt: skip
    degree = out + into
    middle = (neighbours == 2) & ((degree == 2) | (degree == 4))
    return loop | (out == 0) | (into == 0) | ~middle


def _pairs(u, v, n) -> tuple:
    """The multigraph ``u → v``'s distinct pairs of nodes (sorted keys ``tail × n +
    head``), each one's first edge, its tail and head, the keys ``head × n + tail`` sorted,
    and which nodes are endpoints (`_endpoints`)."""
    pairs, first = _first_of_each(u * n + v)
    tail, head = pairs // n, pairs % n
    backward = np.sort(head * n + tail)
    return pairs, first, tail, head, backward, _endpoints(u, v, n, pairs, backward)


def _simplified(u, v, length, travel, n, made):
    """osmnx's ``simplify_graph`` on the multigraph ``u → v`` of ``n`` nodes (rings
    removed), whose `_pairs` are ``made``; returns its edges."""
    pairs, first, tail, head, backward, end = made
    back_tail, back_head = backward // n, backward % n
    m = pairs.size
    row = np.zeros(n + 1, dtype=np.int64)  # the pairs from each node
    np.cumsum(np.bincount(tail, minlength=n), out=row[1:])
    # A middle node's two neighbours: the smallest and largest of its pairs either way.
    col = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(back_tail, minlength=n), out=col[1:])
    middle = np.flatnonzero(~end)
    lo = np.minimum(head[row[middle]], back_head[col[middle]])
    hi = np.maximum(head[row[middle + 1] - 1], back_head[col[middle + 1] - 1])
    low, high = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    low[middle], high[middle] = lo, hi
    # A pair into a middle node goes on along the pair from it to its other neighbour,
    # where there is one (the middle node has at most two pairs out).
    onward = np.flatnonzero(~end[head])
    c = head[onward]
    other = np.where(tail[onward] == low[c], high[c], low[c])
    r0, size = row[c], row[c + 1] - row[c]
    hit0 = (size >= 1) & (head[np.minimum(r0, m - 1)] == other)
    hit1 = ~hit0 & (size >= 2) & (head[np.minimum(r0 + 1, m - 1)] == other)
    succ = np.full(m, -1, dtype=np.int64)
    succ[onward[hit0]] = r0[hit0]
    succ[onward[hit1]] = r0[hit1] + 1
    # Walk every path from its start (an endpoint into a middle node), summing its lengths
    # and travel times in its order, as Python's sum does.
    starts = np.flatnonzero(end[tail] & ~end[head])
    total_length = length[first[starts]]
    total_travel = travel[first[starts]]
    last = head[starts]
    removed = np.zeros(n, dtype=bool)
    chain, at = np.arange(starts.size), starts
    while at.size:
        step = succ[at]
        go = step >= 0
        removed[head[at[go]]] = True
        chain, at = chain[go], step[go]
        total_length[chain] += length[first[at]]
        total_travel[chain] += travel[first[at]]
        last[chain] = head[at]
    u = np.concatenate([u, tail[starts]])
    v = np.concatenate([v, last])
    length = np.concatenate([length, total_length])
    travel = np.concatenate([travel, total_travel])
    keep = ~removed[u] & ~removed[v]
    return _without_rings(u[keep], v[keep], length[keep], travel[keep], n)


def _without_rings(u, v, length, travel, n):
    """osmnx's ``_remove_rings``: drop each weakly connected part with no endpoint. Such a
    part is all middle nodes, each of two neighbours: it is a part of the graph of the
    middle nodes that no edge joins to an endpoint. Only nodes of two or four edges can be
    middle nodes: their neighbours are counted."""
    degree = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    maybe = (degree == 2) | (degree == 4)
    near = maybe[u] | maybe[v]
    a, b = u[near], v[near]
    node = np.concatenate([a, b])
    other = np.concatenate([b, a])
    mine = maybe[node]
    pairs = _distinct(np.sort(node[mine] * n + other[mine]))
    out = np.bincount(a, minlength=n)
    into = np.bincount(b, minlength=n)
    loop = np.zeros(n, dtype=bool)
    loop[a[a == b]] = True
    neighbours = np.bincount(pairs // n, minlength=n)
    middle = maybe & (out > 0) & (into > 0) & ~loop & (neighbours == 2)
    middle &= (degree == 2) | (degree == 4)
    if not middle.any():
        return u, v, length, travel
    inner = middle[u] & middle[v]
    label = _parts(u[inner], v[inner], n, "weak")
    joined = np.zeros(label.max() + 1, dtype=bool)
    joined[label[u[middle[u] & ~middle[v]]]] = True
    joined[label[v[middle[v] & ~middle[u]]]] = True
    ring = middle & ~joined[label]
    if not ring.any():
        return u, v, length, travel
    keep = ~ring[u] & ~ring[v]
    return u[keep], v[keep], length[keep], travel[keep]


def _largest_strong_part(u, v, length, travel, n):
    """The edges inside the largest strongly connected part and its nodes (osmnx's
    ``largest_component``; of equal parts, the one with the smallest node)."""
    keep, nodes = largest_strong_part(u, v, n)
    return u[keep], v[keep], length[keep], travel[keep], nodes


def largest_strong_part(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Which edges ``u → v`` of ``n`` nodes lie inside the largest strongly connected part
    (of nodes on some edge; of equal parts, the one with the smallest node), and its
    nodes; refused when no part has an edge."""
    used = np.zeros(n, dtype=bool)
    used[u] = used[v] = True
    label = _parts(u, v, n, "strong")
    size = np.bincount(label[used], minlength=label.max(initial=-1) + 1)
    lowest = np.full(size.size, n, dtype=np.int64)
    np.minimum.at(lowest, label, np.arange(n))
    tied = np.flatnonzero(size == size.max(initial=0))
    best = int(tied[np.argmin(lowest[tied])]) if size.size else -1
    keep = (label[u] == best) & (label[v] == best)
    if not keep.any():
        raise GraphFormatError(NO_STRONG_PART)
    return keep, np.flatnonzero(used & (label == best))


def _parts(u, v, n, connection: str) -> np.ndarray:
    """Each of ``n`` nodes' label of its ``weak`` or ``strong`` part of the graph ``u → v``
    (SciPy's)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(u.size), (u, v)), shape=(n, n))
    return connected_components(graph, directed=True, connection=connection)[1]
