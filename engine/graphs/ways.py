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

from engine._errors import GraphFormatError, GraphTooLargeError
from engine.graphs import _validate, pbf

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
    tags pass every clause. Errors of the file come as one `GraphFormatError` line in plain
    words: what is wrong, where (a blob, a line) and what to do."""
    reader = _read_pbf if fmt == "pbf" else _read_xml
    try:
        return reader(path, clauses)
    except GraphFormatError as exc:
        msg = f"{path.name}: cannot read as OSM {fmt.upper()}: {exc}"
        raise GraphFormatError(msg) from None
    except (GraphTooLargeError, MemoryError):  # named the file already; or said by the CLI
        raise
    except Exception as exc:  # osmium's errors of the XML are of several types
        if fmt == "pbf":  # the PBF's blocks are decoded under `_decoded`, which words them
            raise
        msg = f"{path.name}: cannot read as OSM XML: {xml_problem(path, exc)}"
        raise GraphFormatError(msg) from None


#: osmium's words for the XML it cannot read, and ours: (its words, what they mean, what
#: to do). ``{0}`` is what osmium quotes.
_OSMIUM_WORDS = (
    ("wrong format for coordinate: ", "a coordinate {0}, which is not a number of degrees",
     "write coordinates as decimals such as 60.1699"),
    ("characters after coordinate: ", "a coordinate followed by {0}",
     "write coordinates as decimals such as 60.1699"),
    ("illegal id: ", "an id {0}, which is not an OSM id",
     "ids are whole numbers of up to 19 digits"),
    ("XML entities are not supported", "it declares XML entities (a DOCTYPE), which are not "
     "expanded", "OSM files have none: export it again"),
    ("xml file nested too deep", "its elements are nested deeper than OSM's",
     "give an OSM XML extract"),
    ("OSM tag value is too long", "a tag value longer than OSM's 255 characters",
     "shorten or drop that tag"),
    ("OSM tag key is too long", "a tag key longer than OSM's 255 characters",
     "shorten or drop that tag"),
    ("Can not read file without version", "its <osm> element has no version",
     "add version=\"0.6\" to it"),
    ("Can not read file with version", "it is not of OSM's version 0.6", "export it again"),
)  # fmt: skip
_PARSE_ERROR = re.compile(r"XML parsing error at line (\d+), column (\d+): (.*)")


def xml_problem(path: Path, exc: BaseException) -> str:
    """What osmium's error ``exc`` reading ``path`` means, in plain words with the line it
    is on where that can be found, and what to do."""
    text = str(exc).strip().rstrip(".")
    if found := _PARSE_ERROR.match(text):
        line, column, why = found.groups()
        return (
            f"line {int(line):,}, column {column}: the XML is not well formed ({why}); the "
            "file is damaged, cut off or not UTF-8: export it again"
        )
    for words, meaning, todo in _OSMIUM_WORDS:
        if text.startswith(words):
            quoted = text[len(words) :].strip()
            where = _line_of(path, quoted.strip("'").encode()) if quoted else None
            at = f"line {where:,}: " if where else ""
            return f"{at}{meaning.format(quoted[:60])}; {todo}"
    return f"osmium cannot read it ({text[:200]}); check that it is a whole OSM XML extract"


def _line_of(path: Path, value: bytes) -> int | None:
    """The line of ``path`` (decompressed) where ``"value"`` first stands, read a chunk at
    a time; None when it is not found."""
    from engine.graphs.dimacs import open_text

    needle = b'"' + value + b'"'
    lines, tail = 0, b""
    with open_text(path) as f:
        while chunk := f.read(1 << 22):
            text = tail + chunk
            at = text.find(needle)
            if at >= 0:
                return lines + text.count(b"\n", 0, at) + 1
            keep = max(len(text) - len(needle), 0)
            lines += text.count(b"\n", 0, keep)
            tail = text[keep:]
    return None


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

    index = pbf.blobs(path)
    blobs = [(k + 1, offset, size) for k, (kind, offset, size) in enumerate(index)
             if kind == "OSMData"]  # fmt: skip
    threads = max(1, min(os.cpu_count() or 1, 16))
    step = max(1, -(-len(blobs) // (4 * threads)))
    runs = [blobs[k : k + step] for k in range(0, len(blobs), step)]
    strings = {key: _Strings() for key in TAGS}
    take = _validate.text_budget("pbf", path.name)
    with ThreadPoolExecutor(threads) as pool:
        decoded = list(pool.map(lambda run: _decoded_run(path, run, clauses, take), runs))
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


def _decoded_run(path: Path, run: list, clauses: list[Clause], take) -> list:
    """The blocks ``run`` (numbers, offsets and sizes in the file) read, decompressed
    (their sizes counted by ``take``, `text_budget`) and decoded without the GIL: their
    parts in order, ``("nodes", (ids, x, y))`` and ``("ways", ...)`` (`_kept_ways`).
    Blocks the GIL-free decoder hands back are decoded one by one by the plain one, which
    names a damaged block (`_decoded`)."""
    from pyrosm.primitive_block_decoder import BLOCK_COUNTS, decode_batch_nogil

    blocks = []
    with open(path, "rb") as f:
        for k, offset, size in run:
            blocks.append(pbf.block(f, offset, size, number=k))
            take(len(blocks[-1]))
    starts = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in blocks], out=starts[1:])
    buffer = np.frombuffer(b"".join(blocks), dtype=np.uint8)
    wanted = [key.encode() for key, op, _ in clauses if not op] or None
    try:
        d = decode_batch_nogil(
            buffer, starts, keys=wanted, way_strings=True, requested=_keys(clauses)
        )
        handed_back = d["counts"][:, BLOCK_COUNTS.index("status")].any()
    except Exception:  # a block that breaks the batch: each on its own names it
        handed_back = True
    if handed_back:
        parts = []
        for (k, offset, _), data in zip(run, blocks, strict=True):
            parts.extend(_decoded(data, clauses, f"blob {k} (at byte {offset:,})"))
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


#: pyrosm's words before what is wrong with a block it cannot decode.
_CORRUPT = "A data block of the PBF is corrupt: "


def _decoded(data: bytes, clauses: list[Clause], where: str) -> list:
    """The parts of one block (as `_decoded_run`'s) decoded by pyrosm's plain decoder;
    a block it cannot decode is refused in words naming ``where``."""
    from pyrosm.primitive_block_decoder import decode_primitive_block

    try:
        decoded = decode_primitive_block(np.frombuffer(data, np.uint8), keep_metadata=False)
        return _block_parts(decoded, clauses)
    except GraphFormatError as exc:
        msg = f"{where} is damaged: {exc}; download or export the file again"
        raise GraphFormatError(msg) from None
    except Exception as exc:  # pyrosm's decoder: its own error, or any of a broken block
        text = str(exc)
        why = text[len(_CORRUPT) :].rstrip(".") if text.startswith(_CORRUPT) else (
            "its data does not follow the PBF format")  # fmt: skip
        msg = f"{where} is damaged: {why}; download or export the file again"
        raise GraphFormatError(msg) from None


def _block_parts(block: tuple, clauses: list[Clause]) -> list:
    """The parts (as `_decoded_run`'s) of a block decoded by pyrosm's plain decoder."""
    table, header, dense, ways, _ = block
    parts = []
    if dense is not None and len(dense["id"]):
        parts.append(("nodes", _pbf_nodes(dense, header)))
    if ways is not None and len(ways["id"]):
        for name in ("keys", "vals"):
            codes = ways[name]
            if codes.size and not (0 <= codes.min() and codes.max() < len(table)):
                bad = int(codes[(codes < 0) | (codes >= len(table))][0])
                msg = f"a way's tag names string {bad:,} of a table of {len(table):,}"
                raise GraphFormatError(msg)
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


#: How many nodes and ways an XML read takes between checks of the memory free.
_XML_CHECK_EVERY = 1 << 20


def _read_xml(path: Path, clauses: list[Clause]) -> Ways:
    """Read an OSM XML file with osmium into typed arrays (8 bytes a number), checking
    every `_XML_CHECK_EVERY` objects that what is held is within the memory free at the
    start (`_validate.available_memory`)."""
    from array import array

    import osmium

    source = osmium_file(path, "xml")
    keep = tag_test(clauses)
    ids, xs, ys, refs, counts = (array("q") for _ in range(5))
    strings = {key: _Strings() for key in TAGS}
    codes: dict[str, array] = {key: array("i") for key in TAGS}
    free, seen = _validate.available_memory(), 0
    for obj in osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY):
        seen += 1
        if seen % _XML_CHECK_EVERY == 0 and 32 * (len(ids) + len(refs)) > free:
            msg = (
                f"{path.name} holds more nodes and ways than fit the "
                f"{free / 2**30:,.1f} GiB free here ({len(ids):,} nodes so far)"
            )
            raise GraphTooLargeError(msg)
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
    parts = tuple(np.frombuffer(a, np.int64) if len(a) else np.zeros(0, np.int64)
                  for a in (ids, xs, ys))  # fmt: skip
    if not (parts[1].all() and parts[2].all()):  # a place at 0: read right, or an exponent?
        _no_exponents(path)
    block = (np.frombuffer(refs, np.int64), np.frombuffer(counts, np.int64),
             {k: np.frombuffer(v, np.int32) for k, v in codes.items()})  # fmt: skip
    return _joined([parts], [block] if counts else [], strings)


#: A coordinate written with an exponent, which osmium can read as 0 (``1e99``, and
#: ``0.000000001e10``): OSM XML writes decimals.
_EXPONENT = re.compile(rb"""\bl(?:at|on)\s*=\s*["']([^"'<>]*[eE][^"'<>]*)["']""")


def _no_exponents(path: Path) -> None:
    """Refuse an OSM XML file with a coordinate written with an exponent, naming its line
    (read a chunk at a time)."""
    from engine.graphs.dimacs import open_text

    lines, tail = 0, b""
    with open_text(path) as f:
        while chunk := f.read(1 << 22):
            text = tail + chunk
            if found := _EXPONENT.search(text):
                line = lines + text.count(b"\n", 0, found.start()) + 1
                value = found.group(1)[:40].decode("utf-8", "replace")
                msg = (
                    f"line {line:,}: a coordinate {value!r} written with an exponent, which is "
                    "read wrongly; write coordinates as decimals such as 60.1699"
                )
                raise GraphFormatError(msg)
            keep = max(len(text) - 256, 0)
            lines += text.count(b"\n", 0, keep)
            tail = text[keep:]


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
