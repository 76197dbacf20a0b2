"""The road ways of an OSM file as arrays: a PBF's blocks decoded on a thread each core by
pyrosm's block decoder (its framing read by `engine.graphs.pbf`), OSM XML read by osmium.

A `Ways` holds the file's nodes (ids and fixed-point coordinates, in file order) and the
ways a filter of their tags keeps (their node references and the four tags the road graph
needs), so that `engine.graphs.roads` builds one graph whatever the file's format.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine._errors import GraphFormatError
from engine.graphs import pbf

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
    """Decode the file's data blocks on a thread each core (pyrosm's decoder lets go of the
    GIL), a run of blocks to a task, then join the tasks' parts in file order."""
    from concurrent.futures import ThreadPoolExecutor

    try:
        index = pbf.blobs(path)
    except GraphFormatError as exc:
        msg = f"cannot read as OSM PBF: {exc}"
        raise GraphFormatError(msg) from None
    blobs = [(offset, size) for kind, offset, size in index if kind == "OSMData"]
    threads = max(1, min(os.cpu_count() or 1, 16))
    step = max(1, -(-len(blobs) // (4 * threads)))
    runs = [blobs[k : k + step] for k in range(0, len(blobs), step)]
    strings = {key: _Strings() for key in TAGS}
    with ThreadPoolExecutor(threads) as pool:
        decoded = list(pool.map(lambda run: _decoded_run(path, run, clauses), runs))
    nodes, ways = [], []
    for run in decoded:
        for kind, part in run:
            if kind == "nodes":
                nodes.append(part)
            else:
                ways.append(_coded(part, strings))
    return _joined(nodes, ways, strings)


def _keys(clauses: list[Clause]) -> list[bytes]:
    """The tags a way's test and the road graph read, asked of the decoder."""
    return sorted({key.encode() for key, _, _ in clauses} | {key.encode() for key in TAGS})


def _decoded_run(path: Path, run: list, clauses: list[Clause]) -> list:
    """The blocks ``run`` (offsets and sizes in the file) read, decompressed and decoded
    without the GIL: their parts in order, ``("nodes", (ids, x, y))`` and ``("ways", ...)``
    (`_kept_ways`). A block the GIL-free decoder hands back is decoded by the plain one."""
    from pyrosm.primitive_block_decoder import (
        BLOCK_COUNTS,
        decode_batch_nogil,
        decode_primitive_block,
    )

    with open(path, "rb") as f:
        blocks = [pbf.block(f, offset, size) for offset, size in run]
    starts = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in blocks], out=starts[1:])
    buffer = np.frombuffer(b"".join(blocks), dtype=np.uint8)
    wanted = [key.encode() for key, op, _ in clauses if not op] or None
    d = decode_batch_nogil(buffer, starts, keys=wanted, way_strings=True, requested=_keys(clauses))
    if d["counts"][:, BLOCK_COUNTS.index("status")].any():  # handed back: each on its own
        parts = []
        for block in blocks:
            decoded = decode_primitive_block(np.frombuffer(block, np.uint8), keep_metadata=False)
            parts.extend(_block_parts(decoded, clauses))
        return parts
    parts = []
    if d["node_id"].size:
        x, y = (
            _fixed(np.rint(d[f"node_{axis}"] * 1e9).astype(np.int64)) for axis in ("lon", "lat")
        )
        parts.append(("nodes", (d["node_id"].astype(np.int64), x, y)))
    if d["way_id"].size:
        data, off = d["string_data"], d["string_off"].tolist()
        table = [bytes(data[a:b]).decode("utf-8", "replace") for a, b in itertools.pairwise(off)]
        kept = _kept_ways(d["way_keys"], d["way_vals"], d["way_tags_off"], d["way_refs_off"],
                          d["way_refs"], table, clauses)  # fmt: skip
        if kept is not None:
            parts.append(("ways", kept))
    return parts


def _block_parts(block: tuple, clauses: list[Clause]) -> list:
    """The parts (as `_decoded_run`'s) of a block decoded by pyrosm's plain decoder."""
    table, header, dense, ways, _ = block
    parts = []
    if dense is not None and len(dense["id"]):
        parts.append(("nodes", _pbf_nodes(dense, header)))
    if ways is not None and len(ways["id"]):
        text = [s.decode("utf-8", "replace") for s in table]
        kept = _kept_ways(ways["keys"], ways["vals"], ways["tags_off"], ways["refs_off"],
                          ways["refs"], text, clauses)  # fmt: skip
        if kept is not None:
            parts.append(("ways", kept))
    return parts


def _pbf_nodes(dense: dict, header: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A block's node ids and coordinates in 1e-7 degrees: nanodegrees ``offset +
    granularity × value``, `_fixed`."""
    granularity = int(header.get("granularity", 100))
    x, y = (_fixed(header.get(f"{axis}_offset", 0) + granularity * dense[axis].astype(np.int64))
            for axis in ("lon", "lat"))  # fmt: skip
    return dense["id"].astype(np.int64), x, y


def _fixed(nano: np.ndarray) -> np.ndarray:
    """Nanodegrees in 1e-7 degrees, as osmium reads them: divided by 100, rounded toward
    zero."""
    return np.sign(nano) * (np.abs(nano) // 100)


def _kept_ways(keys, vals, tags_off, refs_off, refs, table: list[str], clauses: list[Clause]):
    """The ways (tags ``keys``/``vals``, string ids into ``table``, ``tags_off`` per way;
    node ids ``refs``, ``refs_off`` per way) whose tags pass ``clauses``: their refs, their
    counts, and each one's `TAGS` values as string ids into ``table`` (-1 where untagged)
    with the table; None when none passes."""
    n = tags_off.size - 1
    owner = np.repeat(np.arange(n), np.diff(tags_off))
    where: dict[str, list[int]] = {}
    for i, s in enumerate(table):
        where.setdefault(s, []).append(i)

    def value_ids(key: str) -> np.ndarray:
        """Each way's string id of ``key``'s value (its first if tagged twice), -1 if none."""
        out = np.full(n, -1, dtype=np.int64)
        at = np.flatnonzero(np.isin(keys, where.get(key, [])))[::-1]  # first written last
        out[owner[at]] = vals[at]
        return out

    found = {key: value_ids(key) for key in {k for k, _, _ in clauses} | set(TAGS)}
    keep = np.ones(n, dtype=bool)
    for key, op, rx in clauses:
        ids = found[key]
        if not op:
            keep &= ids >= 0
            continue
        hit = np.zeros(len(table) + 1, dtype=bool)  # the last slot: no value
        hit[[i for i in np.unique(ids[ids >= 0]).tolist() if rx.search(table[i])]] = True
        keep &= hit[ids] if op == "~" else ~hit[ids]
    if not keep.any():
        return None
    values = {key: found[key][keep] for key in TAGS}
    refs = refs[np.repeat(keep, np.diff(refs_off))].astype(np.int64)
    return refs, np.diff(refs_off)[keep], (values, table)


def _coded(part: tuple, strings: dict) -> tuple:
    """A ways part with its `TAGS` values coded over all parts."""
    refs, counts, (values, table) = part
    codes = {}
    for key in TAGS:
        lookup = np.full(len(table) + 1, -1, dtype=np.int32)  # the last slot: untagged
        for i in np.unique(values[key][values[key] >= 0]).tolist():
            lookup[i] = strings[key].code(table[i])
        codes[key] = lookup[values[key]]
    return refs, counts, codes


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


def osmium_file(path: Path, fmt: str):
    """``path`` for osmium, which picks its reader by the name: PBF, or XML plain or
    compressed, whatever the file is called."""
    import osmium

    from engine.graphs.dimacs import compression

    if fmt == "pbf":
        return osmium.io.File(str(path), "pbf")
    packed = compression(path)
    if packed == ".xz":
        msg = "xz-compressed OSM XML is not read; decompress it or use .gz/.bz2"
        raise GraphFormatError(msg)
    return osmium.io.File(str(path), "osm" + (packed or ""))


def _read_xml(path: Path, clauses: list[Clause]) -> Ways:
    import osmium

    source = osmium_file(path, "xml")
    keep = tag_test(clauses)
    ids, xs, ys = [], [], []
    refs, counts = [], []
    strings = {key: _Strings() for key in TAGS}
    codes: dict[str, list[int]] = {key: [] for key in TAGS}
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
