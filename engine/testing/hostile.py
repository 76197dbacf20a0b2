"""Hostile input files for Frontier's readers, and a way to run a command on each in a
child process that measures it.

Each ``*_corpus`` function writes small files that an attacker, a broken exporter or a
careless user could hand to ``frontier info``: OSM PBF with wrong wire types, huge varints
and broken blocks (issue 70), OSM XML with bad coordinates, ids at the limits, entities,
non-UTF-8 text, long tags and duplicate nodes; GraphML, DIMACS and coordinate files with
bad values (issue 67). Every one must load into a correct graph or be refused with one line
of plain words (exit 2), within `TIME_S` and `PEAK_BYTES`. `measured` runs a command in a
forked child (the parent's imports are shared, so a case costs no interpreter start) and
returns its exit status, its output, its peak resident memory and its time.

The PBF writers (`varint`, `field`, `blob`, `primitive_block`) write the protobuf wire
format by hand, so that a field can be given any wire type and any length.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import io
import lzma
import os
import resource
import select
import signal
import struct
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

#: What a hostile case may take: seconds, and peak resident bytes of its process.
TIME_S = 60.0
PEAK_BYTES = 2 * 2**30
#: What a child may allocate before an allocation fails (so that a case that would take
#: tens of GB fails fast instead of taking the machine): RLIMIT_DATA, private writable
#: memory, which the loaders count as the memory free (`available_memory`).
GUARD_BYTES = 2 * 2**30
#: Words of Python's that no message to a user may hold: exception names and wordings.
PYTHON_WORDS = (
    "Traceback", "Error:", "Exception", "object has no attribute", "bytes-like object",
    "could not convert", "invalid literal", "NoneType", "is not subscriptable",
    "unsupported operand", "codec can't", "KeyError", "IndexError", "TypeError",
    "ValueError", "RuntimeError", "AttributeError", "OverflowError", "UnicodeDecodeError",
    "InvalidLocationError", "InvalidOSMFileError", "ParseError", "ExpatError",
)  # fmt: skip


# -- the protobuf wire format, by hand ----------------------------------------------------


def varint(n: int) -> bytes:
    """``n`` (≥ 0) as a protobuf varint; negative numbers as their 64-bit two's complement."""
    n &= (1 << 64) - 1 if n < 0 else (1 << 80) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def field(number: int, value: bytes | int, *, wire: int | None = None) -> bytes:
    """One protobuf field: a varint (an int) or length-delimited bytes, unless ``wire``
    names another wire type (its value then written as given)."""
    if wire is None:
        wire = 0 if isinstance(value, int) else 2
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(int(value))
    if wire == 2:
        data = value if isinstance(value, bytes) else varint(int(value))
        return key + varint(len(data)) + data
    if wire == 1:
        return key + struct.pack("<q", int(value))
    if wire == 5:
        return key + struct.pack("<i", int(value))
    return key + (value if isinstance(value, bytes) else b"")


def packed(values, *, signed: bool = False, delta: bool = False) -> bytes:
    """A packed repeated field's bytes (zigzag for ``signed``, delta-coded for ``delta``)."""
    out, last = bytearray(), 0
    for v in values:
        v = int(v)
        d, last = (v - last, v) if delta else (v, v)
        out += varint(zigzag(d) if signed else d)
    return bytes(out)


def blob(kind: str | bytes, body: bytes, *, datasize: int | None = None) -> bytes:
    """A PBF blob: its 4-byte length, its ``BlobHeader`` (of type ``kind`` and the body's
    size, or ``datasize``; or ``kind`` itself when it is bytes: a whole header) and its
    ``Blob`` message ``body`` (`raw`, `zlibbed`)."""
    size = len(body) if datasize is None else datasize
    header = kind if isinstance(kind, bytes) else field(1, kind.encode()) + field(3, size)
    return struct.pack("!L", len(header)) + header + body


def raw(data: bytes) -> bytes:
    """A ``Blob`` holding ``data`` uncompressed."""
    return field(1, data)


def zlibbed(data: bytes) -> bytes:
    """A ``Blob`` holding ``data`` zlib-compressed, with its size."""
    return field(2, len(data)) + field(3, zlib.compress(data))


def header_block(*features: str) -> bytes:
    return b"".join(field(4, f.encode()) for f in features or ("OsmSchema-V0.6", "DenseNodes"))


HEADER = blob("OSMHeader", raw(header_block()))


def primitive_block(
    strings=(b"",),
    *,
    nodes: tuple | None = None,
    ways: list | None = None,
    granularity: int | None = None,
    offsets: tuple[int, int] = (0, 0),
) -> bytes:
    """A ``PrimitiveBlock``: a string table, dense ``nodes`` (ids, lats, lons in units of
    the granularity, any lengths), and ``ways`` of (id, keys, vals, refs) with string ids."""
    out = field(1, b"".join(field(1, s) for s in strings))
    if nodes is not None:
        ids, lats, lons = nodes
        dense = field(1, packed(ids, signed=True, delta=True))
        dense += field(8, packed(lats, signed=True, delta=True))
        dense += field(9, packed(lons, signed=True, delta=True))
        out += field(2, field(2, dense))
    for way_id, keys, vals, refs in ways or ():
        way = field(1, way_id) + field(2, packed(keys)) + field(3, packed(vals))
        out += field(2, field(3, way + field(8, packed(refs, signed=True, delta=True))))
    if granularity is not None:
        out += field(17, granularity)
    if offsets != (0, 0):
        out += field(19, offsets[0]) + field(20, offsets[1])
    return out


#: A valid little road network: a 3 × 3 grid of OSM nodes 1–9 near Helsinki, about 100 m
#: apart (latitudes and longitudes in 1e-7 degrees), its three rows and three columns
#: residential streets.
GRID_IDS = tuple(range(1, 10))
GRID_LATS = tuple(601600000 + 9000 * (k // 3) for k in range(9))
GRID_LONS = tuple(249300000 + 18000 * (k % 3) for k in range(9))
GRID_WAYS = ((1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9))
STRINGS = (b"", b"highway", b"residential", b"oneway", b"no")


def _grid(ids=GRID_IDS, lats=None, lons=None, ways=None, **options) -> bytes:
    """A ``Blob`` of the grid as one block (coordinates in units of the default
    granularity, 100 nanodegrees: 1e-7 degrees)."""
    lats = GRID_LATS if lats is None else lats
    lons = GRID_LONS if lons is None else lons
    if ways is None:
        ways = [(k + 1, [1], [2], list(refs)) for k, refs in enumerate(GRID_WAYS)]
    block = primitive_block(options.pop("strings", STRINGS), nodes=(ids, lats, lons),
                            ways=ways, **options)  # fmt: skip
    return zlibbed(block)


def _street(refs, keys=(1,), vals=(2,)) -> list:
    """The grid's ways and one more, of ``refs`` and those tags."""
    return [*((k + 1, [1], [2], list(r)) for k, r in enumerate(GRID_WAYS)),
            (99, list(keys), list(vals), list(refs))]  # fmt: skip


def _node_bomb(n: int) -> bytes:
    """A ``Blob`` of ``n`` dense nodes one id apart at one place: three bytes a node, and
    a thousand to one compressed (built as bytes, not by `packed`)."""
    dense = field(1, varint(2) + b"\x02" * (n - 1))  # ids 1, 2, …: zigzag deltas of 1
    dense += field(8, varint(zigzag(GRID_LATS[0])) + bytes(n - 1))
    dense += field(9, varint(zigzag(GRID_LONS[0])) + bytes(n - 1))
    return zlibbed(field(1, field(1, b"")) + field(2, field(2, dense)))


def pbf_corpus() -> dict[str, bytes]:
    """Hostile PBF files by name: framing (wire types, lengths, varints, compression) and
    blocks (string tables, ids, coordinates, tags) broken or at their limits; a few valid."""
    big = 2**31 - 1
    h = raw(header_block())
    good = _grid()
    data = blob("OSMData", good)
    lat, lon = list(GRID_LATS), list(GRID_LONS)
    block = primitive_block(STRINGS, nodes=(GRID_IDS, lat, lon), ways=_street([1, 2]))
    out = {
        "good.osm.pbf": HEADER + data,
        # the header blob's type given as a number, of 2 GB (issue 70's 18 GB case)
        "type-varint.osm.pbf": blob(field(1, big) + field(3, len(h)), h) + data,
        "data-type-varint.osm.pbf": HEADER + blob(field(1, big) + field(3, len(good)), good),
        "type-fixed64.osm.pbf": blob(field(1, 7, wire=1) + field(3, len(h)), h) + data,
        "datasize-bytes.osm.pbf": blob(field(1, b"OSMHeader") + field(3, b"\x05"), h) + data,
        "datasize-huge.osm.pbf": blob("OSMHeader", h, datasize=2**36) + data,
        "datasize-negative.osm.pbf": blob("OSMHeader", h, datasize=-5) + data,
        "header-no-size.osm.pbf": blob(field(1, b"OSMHeader"), h) + data,
        "raw-varint.osm.pbf": blob("OSMHeader", field(1, big)) + data,
        "raw-varint-data.osm.pbf": HEADER + blob("OSMData", field(1, big)),
        "zlib-varint.osm.pbf": HEADER + blob("OSMData", field(2, 100) + field(3, big)),
        "lzma-fixed32.osm.pbf": HEADER + blob("OSMData", field(4, 9, wire=5)),
        "raw-size-huge.osm.pbf": HEADER
        + blob("OSMData", field(2, 2**40) + good[good.index(b"\x1a") :]),
        "raw-size-wrong.osm.pbf": HEADER
        + blob("OSMData", field(2, 3) + good[good.index(b"\x1a") :]),
        "raw-size-bytes.osm.pbf": HEADER
        + blob("OSMData", field(2, b"\x03") + good[good.index(b"\x1a") :]),
        "features-varint.osm.pbf": blob("OSMHeader", raw(field(4, big))) + data,
        "features-huge-length.osm.pbf": blob("OSMHeader", raw(varint(4 << 3 | 2) + varint(2**40)))
        + data,
        "features-not-utf8.osm.pbf": blob("OSMHeader", raw(field(4, b"\xff\xfe"))) + data,
        "bbox-garbage.osm.pbf": blob("OSMHeader", raw(field(1, b"\xff" * 9) + header_block()))
        + data,
        "varint-overlong.osm.pbf": blob("OSMHeader", b"\x08" + b"\xff" * 12 + b"\x01") + data,
        "field-zero.osm.pbf": blob("OSMHeader", field(0, h)) + data,
        "field-huge-number.osm.pbf": blob("OSMHeader", field(2**29 - 1, 5) + h) + data,
        "wire-3.osm.pbf": blob("OSMHeader", field(1, b"", wire=3)) + data,
        "wire-4.osm.pbf": blob("OSMHeader", field(1, b"", wire=4)) + data,
        "wire-6.osm.pbf": blob("OSMHeader", field(1, b"", wire=6)) + data,
        "wire-7.osm.pbf": blob("OSMHeader", field(1, b"", wire=7)) + data,
        "length-ffffffff.osm.pbf": b"\xff\xff\xff\xff" + b"\x00" * 64,
        "length-zero.osm.pbf": b"\x00\x00\x00\x00" + HEADER + data,
        "header-only.osm.pbf": HEADER,
        "two-headers.osm.pbf": HEADER + HEADER + data,
        "raw-and-zlib.osm.pbf": HEADER + blob("OSMData", field(1, block) + good),
        "no-data.osm.pbf": HEADER + blob("OSMData", field(2, 10)),
        "zstd.osm.pbf": HEADER + blob("OSMData", field(7, b"(\xb5/\xfd")),
        "zlib-bomb.osm.pbf": HEADER
        + blob("OSMData", field(3, zlib.compress(bytes(64 * 2**20), 9))),
        "lzma-bomb.osm.pbf": HEADER + blob("OSMData", field(4, lzma.compress(bytes(64 * 2**20)))),
        "zlib-garbage.osm.pbf": HEADER + blob("OSMData", field(3, b"\x78\x9c" + bytes(50))),
        "zlib-trailing.osm.pbf": HEADER + blob("OSMData", field(3, zlib.compress(block) + b"junk")),
        "unknown-blob.osm.pbf": HEADER + blob("OSMSomething", raw(b"whatever")) + data,
        "block-random.osm.pbf": HEADER + blob("OSMData", raw(np.random.default_rng(1).bytes(4000))),
        "block-empty.osm.pbf": HEADER + blob("OSMData", raw(b"")) + data,
        "block-wire-types.osm.pbf": HEADER + blob("OSMData", raw(field(1, big) + field(2, big))),
        "block-huge-length.osm.pbf": HEADER
        + blob("OSMData", raw(varint(2 << 3 | 2) + varint(2**33))),
        "strings-not-utf8.osm.pbf": HEADER
        + blob("OSMData", _grid(strings=(b"", b"highway", b"\xff\xfe\xc0", b"oneway", b"no"))),
        "strings-missing.osm.pbf": HEADER + blob("OSMData", _grid(strings=(b"",))),
        "tag-index-beyond.osm.pbf": HEADER
        + blob("OSMData", _grid(ways=_street([1, 5], vals=[99]))),
        "tags-unpaired.osm.pbf": HEADER + blob("OSMData", _grid(ways=_street([1, 5], keys=[1, 3]))),
        "tag-long.osm.pbf": HEADER
        + blob(
            "OSMData", _grid(strings=(*STRINGS, b"x" * 2**20), ways=_street([1, 5], [1, 5], [2, 5]))
        ),
        "ids-at-limits.osm.pbf": HEADER
        + blob("OSMData", _grid(ids=(*GRID_IDS[:7], 2**63 - 1, -(2**63)))),
        "ids-delta-overflow.osm.pbf": HEADER
        + blob(
            "OSMData",
            zlibbed(
                primitive_block(STRINGS, nodes=((2**62, -(2**62), 2**62), (1, 2, 3), (1, 2, 3)))
            ),
        ),
        "nodes-uneven.osm.pbf": HEADER + blob("OSMData", _grid(lats=[1, 2], lons=list(range(12)))),
        "lat-off-globe.osm.pbf": HEADER + blob("OSMData", _grid(lats=[9_990_000_000] * 9)),
        "offset-huge.osm.pbf": HEADER + blob("OSMData", _grid(offsets=(2**62, 2**62))),
        "granularity-zero.osm.pbf": HEADER + blob("OSMData", _grid(granularity=0)),
        "granularity-huge.osm.pbf": HEADER + blob("OSMData", _grid(granularity=big)),
        "refs-missing.osm.pbf": HEADER + blob("OSMData", _grid(ways=_street([1, 77, 5]))),
        "duplicate-node.osm.pbf": HEADER
        + blob("OSMData", _grid(ids=(*GRID_IDS, 5), lats=[*lat, 0], lons=[*lon, 0])),
        "duplicate-node-same.osm.pbf": HEADER
        + blob("OSMData", _grid(ids=(*GRID_IDS, 5), lats=[*lat, lat[4]], lons=[*lon, lon[4]])),
        "many-tiny-blobs.osm.pbf": HEADER + blob("OSMData", raw(b"")) * 20_000 + data,
        "way-refs-huge-count.osm.pbf": HEADER
        + blob("OSMData", _grid(ways=_street([1, 2] * 400_000))),
        "cut.osm.pbf": (HEADER + data)[:-7],
        "node-bomb.osm.pbf": HEADER + blob("OSMData", _node_bomb(3_000_000)) * 10,
    }
    return out


_XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="hostile">\n'


def _way(refs, tags='<tag k="highway" v="residential"/>', way_id: int = 99) -> str:
    nds = "".join(f'<nd ref="{r}"/>' for r in refs)
    return f'<way id="{way_id}">{nds}{tags}</way>\n'


def _osm(nodes: str = "", ways: str = "", *, head: str = _XML_HEAD) -> bytes:
    """OSM XML of the grid's nodes (``nodes`` added after them) and streets (``ways``
    added after them)."""
    grid = "".join(
        f'<node id="{v}" lat="{lat / 1e7:.7f}" lon="{lon / 1e7:.7f}"/>\n'
        for v, lat, lon in zip(GRID_IDS, GRID_LATS, GRID_LONS, strict=True)
    )
    streets = "".join(_way(refs, way_id=k + 1) for k, refs in enumerate(GRID_WAYS))
    return (head + grid + nodes + streets + ways + "</osm>\n").encode("utf-8", "surrogateescape")


def xml_corpus() -> dict[str, bytes]:
    """Hostile OSM XML files by name: coordinates, ids, references, entities, encodings,
    sizes and structure, plain and compressed; a few valid."""
    laughs = "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, 10))
    spur = _way([5, 10])

    def node10(lat: str = "60.1601", lon: str = "24.9301", v: str = "10") -> str:
        return f'<node id="{v}" lat="{lat}" lon="{lon}"/>\n'

    road = '<tag k="highway" v="residential"/>'
    out = {
        "good.osm": _osm(),
        "bom.osm": b"\xef\xbb\xbf" + _osm(),
        "duplicate-node.osm": _osm('<node id="5" lat="-33.9" lon="151.2"/>\n'),
        "duplicate-node-same.osm": _osm(
            f'<node id="5" lat="{GRID_LATS[4] / 1e7:.7f}" lon="{GRID_LONS[4] / 1e7:.7f}"/>\n'
        ),
        "duplicate-way.osm": _osm(ways=_way([1, 5], way_id=1)),
        "missing-node.osm": _osm(ways=_way([1, 77, 5])),
        "only-missing-nodes.osm": _osm(ways=_way([70, 71, 72])).replace(b"residential", b"x", 6),
        "lat-999.osm": _osm(node10("999"), spur),
        "lat-abc.osm": _osm(node10("abc"), spur),
        "lat-empty.osm": _osm(node10(""), spur),
        "lat-missing.osm": _osm('<node id="10" lon="24.9"/>\n', spur),
        "lat-nan.osm": _osm(node10("nan"), spur),
        "lat-exp.osm": _osm(node10("1e400"), spur),
        "lat-91.osm": _osm(node10("91"), spur),
        "lon-181.osm": _osm(node10(lon="180.0000001"), spur),
        "lat-long-digits.osm": _osm(node10("60." + "1" * 5000), spur),
        "id-abc.osm": _osm(node10(v="abc")),
        "id-empty.osm": _osm(node10(v="")),
        "id-2e63.osm": _osm(node10(v="9223372036854775808")),
        "id-2e64.osm": _osm(node10(v="18446744073709551616")),
        "id-max.osm": _osm(node10(v="9223372036854775806"), _way([5, 9223372036854775806])),
        "id-negative.osm": _osm(node10(v="-5"), _way([5, -5])),
        "id-float.osm": _osm(node10(v="1.5")),
        "ref-abc.osm": _osm(ways=_way(["1", "abc", "3"])),
        "ref-missing-attr.osm": _osm(
            ways=f'<way id="99"><nd ref="1"/><nd/><nd ref="5"/>{road}</way>\n'
        ),
        "way-no-nodes.osm": _osm(ways=_way([])),
        "way-one-node.osm": _osm(ways=_way([1])),
        "way-repeated-node.osm": _osm(ways=_way([1, 1, 5, 5, 9])),
        "tag-no-value.osm": _osm(ways=_way([1, 5], '<tag k="highway"/>')),
        "tag-long.osm": _osm(ways=_way([1, 5], f'{road}<tag k="name" v="{"x" * 2**20}"/>')),
        "tags-many.osm": _osm(
            ways=_way([1, 5], road + "".join(f'<tag k="k{i}" v="v"/>' for i in range(20_000)))
        ),
        "maxspeed-weird.osm": _osm(ways=_way([1, 5], f'{road}<tag k="maxspeed" v="1e400"/>')),
        "maxspeed-zero.osm": _osm(ways=_way([1, 5], f'{road}<tag k="maxspeed" v="0"/>')),
        "non-utf8.osm": _osm(ways=_way([1, 5], f'{road}<tag k="name" v="\udcff\udcfe"/>')),
        "latin1.osm": _osm(
            head='<?xml version="1.0" encoding="ISO-8859-1"?>\n<osm version="0.6">\n',
            ways=_way([1, 5], f'{road}<tag k="name" v="\udce9"/>'),
        ),
        "utf16.osm": _osm().decode().encode("utf-16"),
        "entity.osm": _osm(
            head='<?xml version="1.0"?>\n<!DOCTYPE osm [<!ENTITY a "residential">]>\n<osm>\n',
            ways=_way([1, 5], '<tag k="highway" v="&a;"/>'),
        ),
        "external-entity.osm": _osm(
            head='<?xml version="1.0"?>\n<!DOCTYPE osm [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<osm>\n',
            ways=_way([1, 5], '<tag k="highway" v="&x;"/>'),
        ),
        "billion-laughs.osm": _osm(
            head=f'<?xml version="1.0"?>\n<!DOCTYPE osm [<!ENTITY l0 "ha">{laughs}]>\n<osm>\n',
            ways=_way([1, 5], '<tag k="highway" v="&l9;"/>'),
        ),
        "nested-deep.osm": (_XML_HEAD + "<a>" * 100_000 + "</a>" * 100_000 + "</osm>").encode(),
        "truncated.osm": _osm()[:-40],
        "not-closed.osm": _osm().replace(b"</osm>", b""),
        "root-other.osm": b'<?xml version="1.0"?>\n<osmChange><create/></osmChange>\n',
        "binary-in-xml.osm": _osm().replace(b"<way", b"\x00\x01\x02<way", 1),
        "cdata-and-comments.osm": _osm(ways="<!-- c --><![CDATA[x]]><?pi x?>" + _way([1, 5])),
        "empty.osm": b"",
        "whitespace.osm": b"   \n\n ",
        "good.osm.gz": gzip.compress(_osm()),
        "truncated.osm.gz": gzip.compress(_osm())[:-20],
        "garbage.osm.bz2": b"BZh9" + bytes(100),
        "good.osm.bz2": bz2.compress(_osm()),
        "xz.osm.xz": lzma.compress(_osm()),
        "gzip-bomb.osm.gz": gzip.compress(_XML_HEAD.encode() + b" " * (200 * 2**20) + b"</osm>", 9),
    }
    return out


#: The OSM corpus's files that are valid (or readable without harm) and must load; every
#: other one must be refused in one line. Of those, the ones that must give the grid's
#: graph (good.osm's) arc for arc.
OSM_LOADS = frozenset({
    "good.osm.pbf", "unknown-blob.osm.pbf", "block-empty.osm.pbf", "strings-not-utf8.osm.pbf",
    "tag-long.osm.pbf", "granularity-zero.osm.pbf", "refs-missing.osm.pbf",
    "duplicate-node-same.osm.pbf", "many-tiny-blobs.osm.pbf", "way-refs-huge-count.osm.pbf",
    "bbox-garbage.osm.pbf", "field-huge-number.osm.pbf",
    "good.osm", "bom.osm", "duplicate-node-same.osm", "duplicate-way.osm", "missing-node.osm",
    "only-missing-nodes.osm", "id-max.osm", "id-negative.osm", "ref-missing-attr.osm",
    "way-no-nodes.osm", "way-one-node.osm", "way-repeated-node.osm", "tag-no-value.osm",
    "tags-many.osm", "maxspeed-weird.osm", "maxspeed-zero.osm", "latin1.osm",
    "cdata-and-comments.osm", "good.osm.gz", "good.osm.bz2",
})  # fmt: skip
OSM_SAME_AS_GOOD = frozenset({
    "good.osm.pbf", "unknown-blob.osm.pbf", "block-empty.osm.pbf", "duplicate-node-same.osm.pbf",
    "many-tiny-blobs.osm.pbf", "bbox-garbage.osm.pbf", "field-huge-number.osm.pbf", "bom.osm",
    "duplicate-node-same.osm", "way-no-nodes.osm", "way-one-node.osm", "good.osm.gz",
    "good.osm.bz2",
})  # fmt: skip


def osm_corpus(folder: Path) -> dict[str, Path]:
    """The hostile OSM files (`pbf_corpus`, `xml_corpus`) written into ``folder``."""
    out = {}
    for name, data in {**pbf_corpus(), **xml_corpus()}.items():
        out[name] = folder / name
        out[name].write_bytes(data)
    return out


def text_bytes(path: Path) -> int:
    """How many bytes ``path`` holds once decompressed: its PBF blocks', its text's, or
    (unreadable) the file's own size."""
    from engine.graphs import dimacs, io, pbf

    try:
        if io.sniff(path) == "pbf":
            with open(path, "rb") as f:
                return sum(len(pbf.block(f, o, n)) for _, o, n in pbf.blobs(path))
        total = 0
        with dimacs.open_text(path) as f:
            while chunk := f.read(1 << 22):
                total += len(chunk)
        return total
    except Exception:  # a damaged file: its own size
        return path.stat().st_size


def peak_bound(path: Path, base: int) -> int:
    """The most memory a load of ``path`` may take, by the stated bounds of the loaders
    (`engine.graphs._validate.TEXT_PEAK`): ``base`` (the process before it), plus
    `LOAD_FIXED` and the loader's multiple of the file's `text_bytes`, within
    `PEAK_BYTES`."""
    from engine.graphs import _validate, io

    try:
        kind = io.sniff(path) or "dimacs"
    except Exception:  # a file no reader takes
        kind = "dimacs"
    per_byte = _validate.TEXT_PEAK.get(kind, max(_validate.TEXT_PEAK.values()))
    return min(base + _validate.LOAD_FIXED + per_byte * text_bytes(path), PEAK_BYTES)


# -- measured runs ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Measured:
    """A command's run in a child: exit status (None when killed at `TIME_S`), what it
    wrote (stdout and stderr together), peak resident bytes, seconds."""

    code: int | None
    output: str
    peak_bytes: int
    seconds: float


def measured(
    run: Callable[[], int], *, timeout_s: float = TIME_S, guard: int = GUARD_BYTES
) -> Measured:
    """``run()`` in a forked child whose stdout and stderr are captured and whose private
    memory is capped at ``guard`` bytes: its exit status, output, peak memory and time.

    The child shares the parent's imports, so its peak counts their pages too. A child
    still running after ``timeout_s`` is killed."""
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            os.close(read)
            resource.setrlimit(resource.RLIMIT_DATA, (guard, guard))
            os.dup2(write, 1)
            os.dup2(write, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), write_through=True)
            sys.stderr = sys.stdout
            code = run()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 70
        finally:
            try:
                sys.stdout.flush()
            finally:
                os._exit(code if isinstance(code, int) else 70)
    os.close(write)
    chunks, status, usage = [], None, None
    deadline = start + timeout_s
    while True:
        ready, _, _ = select.select([read], [], [], 0.05)
        if ready:
            chunk = os.read(read, 1 << 16)
            if chunk:
                chunks.append(chunk)
                continue
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            status = None
            break
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    seconds = time.perf_counter() - start
    code = None if status is None else os.waitstatus_to_exitcode(status)
    text = b"".join(chunks).decode("utf-8", "replace")
    return Measured(code, text, usage.ru_maxrss * 1024, seconds)


def judged(m: Measured, *, peak_bytes: int = PEAK_BYTES, time_s: float = TIME_S) -> tuple[str, str]:
    """A measured run's outcome: ``ok`` (exit 0), ``refused`` (exit 2 with one line of
    plain words) or ``bad`` (anything else: a traceback, several lines, Python's words, an
    out-of-memory refusal, more than ``peak_bytes`` or ``time_s``), and why when bad."""
    lines = [ln for ln in m.output.splitlines() if ln.strip() and "%|" not in ln]
    if m.code is None:
        return "bad", f"still running after {time_s:.0f} s"
    if m.peak_bytes > peak_bytes:
        return "bad", f"peak memory {m.peak_bytes / 2**20:,.0f} MiB"
    if m.seconds > time_s:
        return "bad", f"took {m.seconds:.0f} s"
    if m.code == 0:
        return "ok", ""
    words = next((w for w in PYTHON_WORDS if w in m.output), None)
    if words:
        return "bad", f"Python's words ({words!r})"
    if "out of memory" in m.output:
        return "bad", "refused as out of memory"
    if m.code == 2 and len([ln for ln in lines if not ln.startswith("frontier: warning")]) == 1:
        return "refused", ""
    return "bad", f"exit {m.code}, {len(lines)} lines"
