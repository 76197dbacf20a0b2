"""OSM PBF files written by hand: the protobuf wire format with any wire type and any
length (`field`), packed and delta-coded numbers, blobs and their headers, and primitive
blocks of dense nodes and ways, so that a test can write a file no encoder would.
"""

from __future__ import annotations

import struct
import zlib


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
