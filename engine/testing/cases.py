"""The fuzzer's cases (`engine.testing.fuzz` checks them): seeded random graphs with the
searches to run on each (`draw_case`: shapes, weight families, Δ, batch sizes, recording),
and valid graph files of every format (`seed_files`, `write_osm_grid`, `write_osm_ways`)
with the byte edits that break them (`mutate`).

Case ``k`` of seed ``s`` is drawn from ``numpy.random.default_rng([s, k])`` alone, so
``draw_case(s, k)`` rebuilds any reported failure without the cases before it.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from engine import methods as _methods
from engine.graphs.csr import MAX_WEIGHT, CSRGraph, from_arcs

SHAPES = ("random", "grid", "star", "chain", "components")
FAMILIES = ("small", "zeros", "wide", "max", "edge", "half")
METHODS = _methods.names(iterative=True)
BATCHES = (1, 2, 3, 8, 64, 1024)
#: Δ values beyond every weight family's distances: one phase, clamped to the distance type.
WIDE_DELTAS = (2**31, 2**32 - 1, 2**32, 2**39, 2**40)


@dataclasses.dataclass(frozen=True)
class Run:
    """One search of a case: a method at a Δ and a batch size, recorded or not."""

    method: str
    delta: int | str
    batch: int
    record: bool


@dataclasses.dataclass(frozen=True, eq=False)
class Case:
    """A drawn graph, its source and target, and the searches to run on it."""

    seed: int
    index: int
    shape: str
    family: str
    n_nodes: int
    tails: np.ndarray
    heads: np.ndarray
    weights: np.ndarray
    source: int
    target: int | None
    runs: tuple[Run, ...]

    def graph(self) -> CSRGraph:
        return from_arcs(
            self.n_nodes,
            self.tails,
            self.heads,
            self.weights,
            name=f"fuzz {self.seed}/{self.index} {self.shape} {self.family}",
        )

    def reproducer(self, run: Run, backend: str, max_nodes: int) -> str:
        """Python that rebuilds this case and repeats ``run``."""
        return (
            f"c = engine.testing.cases.draw_case({self.seed}, {self.index}, "
            f"max_nodes={max_nodes}); "
            f"engine.sssp(c.graph(), {self.source}, method={run.method!r}, "
            f"backend={backend!r}, delta={run.delta!r}, batch_size={run.batch}, "
            f"target={self.target!r}, record={run.record})"
        )


def _log_uniform(rng: np.random.Generator, low: int, high: int) -> int:
    if high <= low:
        return low
    return round(math.exp(rng.uniform(math.log(low), math.log(high))))


def _shape(rng: np.random.Generator, shape: str, n: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Node count and arcs (tails, heads) of a graph of ``shape`` with about ``n`` nodes."""
    if shape == "grid":
        rows = max(1, int(math.sqrt(n)))
        cols = max(1, n // rows)
        n = rows * cols
        idx = np.arange(n).reshape(rows, cols)
        a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
        b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
        keep = rng.random(a.size) < 0.9  # missing streets
        a, b = a[keep], b[keep]
        return n, np.concatenate([a, b]), np.concatenate([b, a])
    if shape == "star":
        leaves = np.arange(1, n)
        back = leaves[rng.random(leaves.size) < 0.5]
        return (
            n,
            np.concatenate([np.zeros(leaves.size, int), back]),
            np.concatenate([leaves, np.zeros(back.size, int)]),
        )
    if shape == "chain":
        a = np.arange(n - 1)
        back = a[rng.random(a.size) < 0.3]
        return n, np.concatenate([a, back + 1]), np.concatenate([a + 1, back])
    if shape == "components":
        parts = int(rng.integers(2, 6))
        cuts = np.sort(rng.choice(np.arange(1, n), size=min(parts - 1, n - 1), replace=False))
        tails, heads = [], []
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n], strict=True):
            m = int((hi - lo) * rng.uniform(1, 3))
            tails.append(rng.integers(lo, hi, size=m))
            heads.append(rng.integers(lo, hi, size=m))
        return n, np.concatenate(tails), np.concatenate(heads)
    m = int(n * rng.uniform(1, 4))
    return n, rng.integers(0, n, size=m), rng.integers(0, n, size=m)


def _weights(rng: np.random.Generator, family: str, m: int, n: int) -> np.ndarray:
    if family == "small":
        w = rng.integers(0, 21, size=m)
    elif family == "zeros":
        w = np.where(rng.random(m) < 0.7, 0, rng.integers(0, 6, size=m))
    elif family == "wide":
        w = rng.integers(0, MAX_WEIGHT + 1, size=m, dtype=np.int64)
    elif family == "max":
        w = MAX_WEIGHT - rng.integers(0, 4, size=m)
    elif family == "edge":  # every distance fits 32 bits, a relaxation's sum may not
        w = (2**32 - 2) // max(n - 1, 1) - rng.integers(0, 4, size=m)
    else:  # "half": two arcs in a row pass 2^32
        w = 2**31 - 1 - rng.integers(0, 3, size=m)
    w = np.clip(np.asarray(w, dtype=np.int64), 0, MAX_WEIGHT)
    # Zeros and MAX_WEIGHT sprinkled in; not at the 32-bit edge, which one MAX_WEIGHT
    # arc would move into 64 bits.
    for value in (0, MAX_WEIGHT)[: 1 if family in ("edge", "half") else 2]:
        if m and rng.random() < 0.3:
            w[rng.integers(0, m, size=int(rng.integers(1, 3)))] = value
    return w


def _delta(rng: np.random.Generator, weights: np.ndarray, n: int) -> int | str:
    pick = rng.random()
    if pick < 0.15:
        return "auto"
    if pick < 0.25:
        return 1
    if pick < 0.35:
        return int(rng.choice(WIDE_DELTAS))
    if pick < 0.55:
        return 2 ** int(rng.integers(0, 41))
    # Around the mean weight: Dijkstra-like to a few hops per band. Small graphs only take
    # Δ of one or two units, whose phases are as many as the distinct distances.
    mean = max(float(weights.mean()) if weights.size else 1.0, 1.0)
    low = 1 if n <= 2000 else max(1, int(mean / 4))
    return max(low, int(mean * 2.0 ** rng.uniform(-3, 8)))


def draw_case(seed: int, index: int, *, max_nodes: int = 200) -> Case:
    """Case ``index`` of the campaign of ``seed``, with at most about ``max_nodes`` nodes."""
    rng = np.random.default_rng([seed, index])
    shape = str(rng.choice(SHAPES))
    family = str(rng.choice(FAMILIES))
    size = _log_uniform(rng, 2, max_nodes)
    if family in ("edge", "half") and rng.random() < 0.5:
        size = int(rng.integers(2, 9))  # where a wrapped sum is a short path away
    n, tails, heads = _shape(rng, shape, max(2, size))
    tails, heads = np.asarray(tails, np.int64), np.asarray(heads, np.int64)
    if tails.size and rng.random() < 0.5:  # parallel arcs, of other weights
        dup = rng.integers(0, tails.size, size=int(rng.integers(1, 1 + tails.size // 4 + 1)))
        tails, heads = np.concatenate([tails, tails[dup]]), np.concatenate([heads, heads[dup]])
    if rng.random() < 0.5:  # self loops
        loops = rng.integers(0, n, size=int(rng.integers(1, 1 + n // 8 + 1)))
        tails, heads = np.concatenate([tails, loops]), np.concatenate([heads, loops])
    weights = _weights(rng, family, tails.size, n)
    source = int(rng.integers(0, n))
    target = int(rng.integers(0, n)) if rng.random() < 0.25 else None
    runs = tuple(
        Run(
            method,
            _delta(rng, weights, n),
            int(rng.choice(BATCHES)),
            _methods.METHODS[method].recordable and bool(rng.random() < 0.25),
        )
        for method in METHODS
    )
    return Case(seed, index, shape, family, n, tails, heads, weights, source, target, runs)


def write_osm_grid(
    path: Path, rows: int, cols: int, *, spacing_deg: float = 0.0009, one_way: int | None = None
) -> Path:
    """A synthetic city as OSM XML: a ``rows`` × ``cols`` street grid near Helsinki with
    two-way residential streets, so it has coordinates, lengths and speeds like real data;
    the street of row ``one_way`` (when given) is one-way, eastwards."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="frontier">']
    node = np.arange(1, rows * cols + 1).reshape(rows, cols)
    for r in range(rows):
        for c in range(cols):
            lat, lon = 60.16 + r * spacing_deg * 0.5, 24.93 + c * spacing_deg
            lines.append(f'<node id="{node[r, c]}" lat="{lat:.7f}" lon="{lon:.7f}"/>')
    ways = [node[r, :] for r in range(rows)] + [node[:, c] for c in range(cols)]
    for k, members in enumerate(ways, start=1):
        refs = "".join(f'<nd ref="{m}"/>' for m in members)
        oneway = '<tag k="oneway" v="yes"/>' if one_way is not None and k == one_way + 1 else ""
        lines.append(f'<way id="{k}">{refs}<tag k="highway" v="residential"/>{oneway}</way>')
    lines.append("</osm>")
    path.write_text("\n".join(lines))
    return path


def write_osm_ways(
    path: Path, nodes: dict[int, tuple[float, float]], ways: list[tuple[list[int], dict]]
) -> Path:
    """OSM XML of ``nodes`` (id: latitude, longitude) and ``ways`` (node ids, tags)."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="frontier">']
    for v, (lat, lon) in nodes.items():
        lines.append(f'<node id="{v}" lat="{lat:.7f}" lon="{lon:.7f}"/>')
    for k, (members, tags) in enumerate(ways, start=1):
        refs = "".join(f'<nd ref="{m}"/>' for m in members)
        kv = "".join(f'<tag k="{key}" v="{value}"/>' for key, value in tags.items())
        lines.append(f'<way id="{k}">{refs}{kv}</way>')
    lines.append("</osm>")
    path.write_text("\n".join(lines))
    return path


def seed_files(folder: Path) -> list[Path]:
    """Valid small graph files of every format Frontier reads, written into ``folder``."""
    import osmium
    import osmnx as ox

    from engine.testing import osmnx_roads

    rng = np.random.default_rng(0)
    n, m = 30, 90
    ends = rng.integers(1, n + 1, (2, m))
    arcs = zip(ends[0], ends[1], rng.integers(0, 50, m), strict=True)
    gr = folder / "seed.gr"
    gr.write_text(f"c random\np sp {n} {m}\n" + "".join(f"a {u} {v} {w}\n" for u, v, w in arcs))
    pace = folder / "seed-pace.gr"
    pace.write_text("p tw 6 6\n1 2\n2 3\n3 4\n4 5\n5 6\n6 1\n")
    xml = write_osm_grid(folder / "seed.osm", 5, 5)
    graphml = folder / "seed.graphml"
    ox.save_graphml(osmnx_roads.networkx_from_osm(xml), graphml)
    pbf = folder / "seed.osm.pbf"
    with osmium.SimpleWriter(str(pbf)) as writer:
        for obj in osmium.FileProcessor(str(xml)):
            writer.add(obj)
    return [gr, pace, xml, graphml, pbf]


#: Byte strings a mutation inserts besides random bytes: what breaks parsers.
_SPLICES = (b"-1", b"\r", b"\n", b"a", b"p sp 9 9", b"<", b">", b'"', b"9" * 25, b"\x00", b" ")


def mutate(rng: np.random.Generator, data: bytes) -> bytes:
    """``data`` after one to four random edits: a digit or a byte changed, bytes inserted,
    deleted, duplicated, or the end cut off. A changed digit often leaves the file valid,
    with other numbers: those loads are checked against SciPy."""
    out = bytearray(data)
    digits = [i for i, b in enumerate(data) if 48 <= b <= 57]
    for _ in range(int(rng.integers(1, 5))):
        i = int(rng.integers(0, len(out) + 1))
        k = int(rng.integers(1, 17))
        op = rng.integers(0, 7)
        if op >= 5 and digits:
            j = digits[int(rng.integers(0, len(digits)))]
            if j < len(out):
                out[j] = int(rng.integers(48, 58))
        elif op == 0 and out:
            out[min(i, len(out) - 1)] = int(rng.integers(0, 256))
        elif op == 1:
            splice = _SPLICES[rng.integers(0, len(_SPLICES))]
            out[i:i] = splice if rng.random() < 0.6 else rng.bytes(k)
        elif op == 2:
            del out[i : i + k]
        elif op == 3:
            j = int(rng.integers(0, len(out) + 1))
            out[i:i] = out[j : j + k * 8]
        else:
            del out[i:]
    return bytes(out)
