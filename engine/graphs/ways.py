"""The road ways of an OSM file as arrays: PBF decoded block by block (pyrosm's decoder),
OSM XML read by osmium.

A `Ways` holds the file's nodes (ids and fixed-point coordinates, in file order) and the
ways a filter of their tags keeps (their node references and the four tags the road graph
needs), so that `engine.graphs.roads` builds one graph whatever the file's format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine._errors import GraphFormatError

#: The way tags the road graph reads (one-way rules, speeds).
TAGS = ("highway", "oneway", "junction", "maxspeed")
#: OSM's fixed-point coordinates: units per degree (osmium's, and PBF's at the default
#: granularity).
PRECISION = 10_000_000
#: A clause of an Overpass filter: key, operator ('' for "has the key", '~' or '!~') and
#: regular expression.
Clause = tuple[str, str, re.Pattern]


@dataclass(frozen=True)
class Ways:
    """Nodes and kept ways of an OSM file.

    ``node_ids``, ``x``, ``y``: every node of the file in file order, its coordinates in
    1e-7 degrees (``x`` longitude). ``refs`` and ``offsets``: the node ids of each kept way,
    way ``k`` being ``refs[offsets[k]:offsets[k + 1]]``, ways in file order. ``tags``: for
    each key of `TAGS`, the codes of each way's value (-1 where the way has none) and the
    values they index.
    """

    node_ids: np.ndarray
    x: np.ndarray
    y: np.ndarray
    refs: np.ndarray
    offsets: np.ndarray
    tags: dict[str, tuple[np.ndarray, list[str]]]

    def values(self, key: str) -> np.ndarray:
        """Each way's value of ``key``, None where it has none (an object array)."""
        codes, strings = self.tags[key]
        table = np.array([*strings, None], dtype=object)
        return table[codes]


def read(path: Path, fmt: str, clauses: list[Clause]) -> Ways:
    """The nodes of the OSM file ``path`` (``fmt``: ``pbf`` or ``xml``) and its ways whose
    tags pass every clause. Errors of the file come as one `GraphFormatError` line."""
    reader = _read_pbf if fmt == "pbf" else _read_xml
    try:
        return reader(path, clauses)
    except GraphFormatError as exc:
        msg = f"{path.name}: {exc}"
        raise GraphFormatError(msg) from None
    except MemoryError:
        raise
    except Exception as exc:  # the readers' errors (bad blocks, bad XML) are of many types
        msg = f"{path.name}: cannot read as OSM {fmt.upper()} ({type(exc).__name__}: {exc})"
        raise GraphFormatError(msg) from None


class _Strings:
    """Tag values coded as integers over all blocks: each distinct value once."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}

    def code(self, value: str) -> int:
        return self.codes.setdefault(value, len(self.codes))

    @property
    def table(self) -> list[str]:
        return list(self.codes)


def _read_pbf(path: Path, clauses: list[Clause]) -> Ways:
    from pyrosm.engine.blobs import _index_blobs, _read_block
    from pyrosm.pbf_export import read_header_block
    from pyrosm.primitive_block_decoder import decode_primitive_block
    from pyrosm.utils import valid_header_block

    valid_header_block(read_header_block(str(path)))
    nodes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    ways: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
    strings = {key: _Strings() for key in TAGS}
    with open(path, "rb") as f:
        for kind, offset, length in _index_blobs(str(path)):
            if kind != "OSMData":
                continue
            table, header, dense, block_ways, _ = decode_primitive_block(
                _read_block(f, offset, length), keep_metadata=False
            )
            if dense is not None and len(dense["id"]):
                nodes.append(_pbf_nodes(dense, header))
            if block_ways is not None and len(block_ways["id"]):
                kept = _pbf_ways(block_ways, table, clauses, strings)
                if kept is not None:
                    ways.append(kept)
    return _joined(nodes, ways, strings)


def _pbf_nodes(dense: dict, header: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A block's node ids and coordinates in 1e-7 degrees, as osmium reads them: nanodegrees
    ``offset + granularity × value`` divided by 100, rounded toward zero."""
    granularity = int(header.get("granularity", 100))
    fixed = []
    for axis in ("lon", "lat"):
        nano = header.get(f"{axis}_offset", 0) + granularity * dense[axis].astype(np.int64)
        fixed.append(np.sign(nano) * (np.abs(nano) // 100))
    return dense["id"].astype(np.int64), fixed[0], fixed[1]


def _pbf_ways(block: dict, table: list, clauses: list[Clause], strings: dict):
    """A block's ways whose tags pass ``clauses``: refs, their counts, and the codes of each
    kept way's `TAGS` values; None when it keeps none."""
    keys, vals, tags_off = block["keys"], block["vals"], block["tags_off"]
    n = len(block["id"])
    owner = np.repeat(np.arange(n), np.diff(tags_off))
    where = {s: i for i, s in reversed(list(enumerate(table)))}  # a string's first index

    def value_ids(key: str) -> np.ndarray:
        """Each way's string id of ``key``'s value (its first if tagged twice), -1 if none."""
        out = np.full(n, -1, dtype=np.int64)
        sid = where.get(key.encode())
        if sid is not None:
            at = np.flatnonzero(keys == sid)[::-1]  # the first tag of a way written last
            out[owner[at]] = vals[at]
        return out

    found: dict[str, np.ndarray] = {}
    keep = np.ones(n, dtype=bool)
    for key, op, rx in clauses:
        ids = found[key] = found.get(key, value_ids(key))
        if not op:
            keep &= ids >= 0
            continue
        used = np.unique(ids[ids >= 0])
        hit = np.zeros(len(table) + 1, dtype=bool)  # the last slot: no value
        hit[[i for i in used.tolist() if rx.search(table[i].decode("utf-8", "replace"))]] = True
        keep &= hit[ids] if op == "~" else ~hit[ids]
    if not keep.any():
        return None
    refs_off = block["refs_off"]
    counts = np.diff(refs_off)[keep]
    refs = block["refs"][np.repeat(keep, np.diff(refs_off))]
    codes = {}
    for key in TAGS:
        ids = found.get(key, value_ids(key))[keep]
        lookup = np.full(len(table) + 1, -1, dtype=np.int32)  # the last slot: no value
        for i in np.unique(ids[ids >= 0]).tolist():
            lookup[i] = strings[key].code(table[i].decode("utf-8", "replace"))
        codes[key] = lookup[ids]
    return refs.astype(np.int64), counts, codes


def _joined(nodes: list, ways: list, strings: dict) -> Ways:
    """The blocks' parts as one `Ways`."""

    def cat(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    counts = cat([c for _, c, _ in ways], np.int64)
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    tags = {key: (cat([t[key] for *_, t in ways], np.int32), strings[key].table) for key in TAGS}
    return Ways(
        node_ids=cat([i for i, _, _ in nodes], np.int64),
        x=cat([x for _, x, _ in nodes], np.int64),
        y=cat([y for _, _, y in nodes], np.int64),
        refs=cat([r for r, _, _ in ways], np.int64),
        offsets=offsets,
        tags=tags,
    )


def _read_xml(path: Path, clauses: list[Clause]) -> Ways:
    import osmium

    from engine.graphs.dimacs import compression

    packed = compression(path)
    if packed == ".xz":
        msg = "xz-compressed OSM XML is not read; decompress it or use .gz/.bz2"
        raise GraphFormatError(msg)
    keep = tag_test(clauses)
    ids, xs, ys = [], [], []
    refs, counts = [], []
    strings = {key: _Strings() for key in TAGS}
    codes: dict[str, list[int]] = {key: [] for key in TAGS}
    source = osmium.io.File(str(path), "osm" + (packed or ""))
    for obj in osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY):
        if obj.is_node():
            ids.append(obj.id)
            xs.append(obj.location.x)
            ys.append(obj.location.y)
        elif keep(obj.tags):
            nodes = [r.ref for r in obj.nodes]
            refs.extend(nodes)
            counts.append(len(nodes))
            for key in TAGS:
                value = obj.tags.get(key)
                codes[key].append(-1 if value is None else strings[key].code(value))
    parts = (np.array(ids, np.int64), np.array(xs, np.int64), np.array(ys, np.int64))
    block = (np.array(refs, np.int64), np.array(counts, np.int64),
             {k: np.array(v, np.int32) for k, v in codes.items()})  # fmt: skip
    return _joined([parts], [block] if counts else [], strings)


def tag_test(clauses: list[Clause]) -> Callable[[object], bool]:
    """``clauses`` as a test of one way's tags (a mapping with ``get``)."""

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
