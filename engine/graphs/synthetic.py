"""Seeded road-like cities of any size, for tests and benchmarks, as DIMACS ``.gr`` + ``.co``.

A city is a grid of ``rows × cols`` crossings, each moved at random by up to a third of a
block, with a share of its streets missing (never the arterials, so that it stays mostly in
one piece) and every ``arterial_every``-th row and column an arterial road driven twice as
fast. Streets are two-way: each is two arcs of the same weight, its travel time in
deciseconds (residential streets at 30 km/h, arterials at 60 km/h) from the straight-line
length between its ends. Blocks are 100 m; the city lies around 47° N, 8° E (an arbitrary
inland spot), so that maps and scale bars read as a town's.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine._errors import ParameterError
from engine.graphs.csr import CSRGraph, from_arcs
from engine.graphs.io import write_atomic

BLOCK_M = 100.0
CENTRE = (8.0, 47.0)  # longitude, latitude in degrees
SPEED_KMH = {"street": 30.0, "arterial": 60.0}
#: The share of streets left out, and which rows and columns are arterials, by default.
MISSING, ARTERIAL_EVERY = 0.15, 8


def grid_of(n_nodes: int) -> tuple[int, int]:
    """The rows and columns of the grid a city of about ``n_nodes`` crossings is laid out on
    (the square at or above it; ``rows × cols`` crossings)."""
    cols = math.isqrt(n_nodes - 1) + 1
    return -(-n_nodes // cols), cols


def _streets(n_nodes: int, seed: int, missing: float, arterial_every: int):
    """The streets of a city of about ``n_nodes`` crossings: (n, tails, heads, arterial,
    metres, lon, lat), each street once, ``arterial`` its kind."""
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int) or n_nodes < 4:
        msg = f"a city needs an integer of at least 4 nodes, got {n_nodes!r}"
        raise ParameterError(msg)
    if not 0 <= missing < 1:
        msg = f"missing is the share of streets left out, in [0, 1); got {missing!r}"
        raise ParameterError(msg)
    rng = np.random.default_rng(seed)
    rows, cols = grid_of(n_nodes)
    n = rows * cols
    r, c = np.divmod(np.arange(n), cols)
    x = (c + rng.uniform(-1 / 3, 1 / 3, n)) * BLOCK_M  # metres east of the corner
    y = (r + rng.uniform(-1 / 3, 1 / 3, n)) * BLOCK_M  # metres north
    idx = np.arange(n).reshape(rows, cols)
    across = (idx[:, :-1].ravel(), idx[:, 1:].ravel())  # streets along a row
    down = (idx[:-1, :].ravel(), idx[1:, :].ravel())  # streets along a column
    tails = np.concatenate([across[0], down[0]])
    heads = np.concatenate([across[1], down[1]])
    arterial = np.concatenate(
        [r[across[0]] % arterial_every == 0, c[down[0]] % arterial_every == 0]
    )
    keep = arterial | (rng.random(tails.size) >= missing)
    tails, heads, arterial = tails[keep], heads[keep], arterial[keep]
    metres = np.hypot(x[tails] - x[heads], y[tails] - y[heads])
    lat = CENTRE[1] + (y - y.mean()) / 111_320.0
    lon = CENTRE[0] + (x - x.mean()) / (111_320.0 * math.cos(math.radians(CENTRE[1])))
    return n, tails, heads, arterial, metres, lon, lat


def city_arcs(
    n_nodes: int, *, seed: int = 0, missing: float = MISSING, arterial_every: int = ARTERIAL_EVERY
):
    """The arcs and coordinates of a city of about ``n_nodes`` crossings.

    Returns (n, tails, heads, weights, lon, lat): ``n`` is ``rows × cols`` (the square at or
    above ``n_nodes``), arcs both ways of each street, weights in deciseconds.
    """
    n, tails, heads, arterial, metres, lon, lat = _streets(n_nodes, seed, missing, arterial_every)
    speed = np.where(arterial, SPEED_KMH["arterial"], SPEED_KMH["street"]) / 3.6  # m/s
    weights = np.maximum(np.rint(metres / speed * 10), 1).astype(np.int64)
    both = (np.concatenate([tails, heads]), np.concatenate([heads, tails]))
    return n, both[0], both[1], np.concatenate([weights, weights]), lon, lat


def city(n_nodes: int, *, seed: int = 0, **options) -> CSRGraph:
    """A synthetic city (`city_arcs`) as a `CSRGraph` with coordinates."""
    n, tails, heads, weights, lon, lat = city_arcs(n_nodes, seed=seed, **options)
    return from_arcs(
        n, tails, heads, weights, lon=lon, lat=lat, node_ids=np.arange(1, n + 1),
        name=f"synthetic city n={n} seed={seed}", weight_kind="file",
    )  # fmt: skip


def write_city(stem: str | Path, n_nodes: int, *, seed: int = 0, **options) -> tuple[Path, Path]:
    """Write a synthetic city as ``STEM.gr`` (``p sp``, one ``a`` line per arc) and
    ``STEM.co`` (``p aux sp co``, longitude and latitude × 10^6); return both paths."""
    import pandas as pd

    n, tails, heads, weights, lon, lat = city_arcs(n_nodes, seed=seed, **options)
    stem = Path(stem)
    gr, co = stem.with_name(stem.name + ".gr"), stem.with_name(stem.name + ".co")
    head = f"c synthetic city, seed {seed}: frontier engine.graphs.synthetic\n"
    arcs = pd.DataFrame({"a": "a", "u": tails + 1, "v": heads + 1, "w": weights})
    spots = pd.DataFrame({
        "v": "v", "id": np.arange(1, n + 1),
        "x": np.rint(lon * 1e6).astype(np.int64), "y": np.rint(lat * 1e6).astype(np.int64),
    })  # fmt: skip

    def table(header: str, frame):
        def write(f) -> None:
            f.write((head + header).encode())
            frame.to_csv(f, sep=" ", header=False, index=False, lineterminator="\n")

        return write

    write_atomic(gr, table(f"p sp {n} {len(tails)}\n", arcs))
    write_atomic(co, table(f"p aux sp co {n}\n", spots))
    return gr, co


def write_city_pbf(
    path: str | Path,
    n_nodes: int,
    *,
    seed: int = 0,
    missing: float = MISSING,
    arterial_every: int = ARTERIAL_EVERY,
) -> Path:
    """Write a synthetic city (`city_arcs`'s streets) as an OSM PBF of road ways; return
    its path.

    Node ``k`` of the city is OSM node ``k + 1``; each street is a way of its two crossings:
    arterials ``highway=primary`` with ``maxspeed=60``, streets ``highway=residential``, a
    tenth of them with ``maxspeed=30``, a twentieth ``20 mph``, and one in twenty a one-way
    street (seeded by ``seed + 1``); the other streets' speed is osmnx's imputed one."""
    import osmium
    from osmium.osm.mutable import Node, Way

    _, tails, heads, arterial, _, lon, lat = _streets(n_nodes, seed, missing, arterial_every)
    rng = np.random.default_rng(seed + 1)
    pick = rng.random(tails.size)
    oneway = rng.random(tails.size) < 0.05
    path = Path(path)
    path.unlink(missing_ok=True)
    arterial_tags = {"highway": "primary", "maxspeed": "60"}
    with osmium.SimpleWriter(str(path)) as writer:
        for k, (x, y) in enumerate(zip(lon.tolist(), lat.tolist(), strict=True)):
            writer.add_node(Node(id=k + 1, location=(x, y)))
        for k, (u, v) in enumerate(zip(tails.tolist(), heads.tolist(), strict=True)):
            if arterial[k]:
                tags = arterial_tags
            else:
                tags = {"highway": "residential"}
                if pick[k] < 0.1:
                    tags["maxspeed"] = "30"
                elif pick[k] < 0.15:
                    tags["maxspeed"] = "20 mph"
                if oneway[k]:
                    tags["oneway"] = "yes"
            writer.add_way(Way(id=k + 1, nodes=[u + 1, v + 1], tags=tags))
    return path
