"""An OSM PBF file's framing: its blobs indexed and read, decompressed, and its header's
required features checked; what the blocks hold is decoded by pyrosm's block decoder
(`engine.graphs.ways`).

A file is a run of blobs, each a 4-byte big-endian length, a ``BlobHeader`` (its type and
data size) and a ``Blob`` (its data: raw, zlib or lzma). Only these two small protobuf
messages and the ``HeaderBlock``'s features are read here, with a reader of the protobuf
wire format of a few lines: pyrosm's own reader of them comes with an import of geopandas
(1 s and more of a cold load).
"""

from __future__ import annotations

import lzma
import struct
import zlib
from pathlib import Path

from engine._errors import GraphFormatError

#: The format's bounds: a BlobHeader's bytes, and a Blob's, compressed or not.
MAX_HEADER = 64 * 1024
MAX_BLOB = 32 * 1024 * 1024
#: Required features a reader of nodes and ways needs nothing more for.
KNOWN_FEATURES = ("OsmSchema-V0.6", "DenseNodes", "HistoricalInformation")


def blobs(path: Path) -> list[tuple[str, int, int]]:
    """Each blob's type, and where its data lies in the file (offset, size); the first
    must be the ``OSMHeader`` and hold no feature this reader does not know."""
    out = []
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        at = f.seek(0)
        while at < size:
            f.seek(at)
            (length,) = struct.unpack("!L", _exactly(f, 4))
            if length > MAX_HEADER:
                msg = f"a blob header of {length} bytes, more than the format's 64 KiB"
                raise GraphFormatError(msg)
            fields = dict(_fields(_exactly(f, length)))
            kind = bytes(fields.get(1, b"")).decode("utf-8", "replace")
            data = int(fields.get(3, -1))
            if not 0 <= data <= MAX_BLOB or at + 4 + length + data > size:
                msg = f"a blob ({kind or 'no type'}) of {data} bytes, which the file does not hold"
                raise GraphFormatError(msg)
            out.append((kind, at + 4 + length, data))
            at += 4 + length + data
        if not out or out[0][0] != "OSMHeader":
            msg = "no OSMHeader block first"
            raise GraphFormatError(msg)
        header = _fields(block(f, *out[0][1:]))
        features = [bytes(v).decode("utf-8", "replace") for number, v in header if number == 4]
    unknown = [feature for feature in features if feature not in KNOWN_FEATURES]
    if unknown:
        msg = f"the file requires the PBF feature {unknown[0]!r}, which is not read"
        raise GraphFormatError(msg)
    return out


def block(f, offset: int, size: int) -> bytes:
    """The decompressed block of the blob whose data is ``size`` bytes at ``offset`` of the
    open file ``f`` (at most `MAX_BLOB` bytes)."""
    f.seek(offset)
    fields = dict(_fields(_exactly(f, size)))
    if 1 in fields:
        return bytes(fields[1])
    if 3 in fields:
        data, inflate, error = fields[3], zlib.decompressobj(), zlib.error
    elif 4 in fields:
        data, inflate, error = fields[4], lzma.LZMADecompressor(), lzma.LZMAError
    else:
        msg = "a blob compressed in a way that is not read (only raw, zlib and lzma are)"
        raise GraphFormatError(msg)
    try:
        out = inflate.decompress(data, MAX_BLOB + 1)
    except error as exc:
        msg = f"a blob's compressed data is corrupt ({exc})"
        raise GraphFormatError(msg) from None
    if len(out) > MAX_BLOB:
        msg = "a blob of more than 32 MiB once decompressed"
        raise GraphFormatError(msg)
    if not inflate.eof:
        msg = "a blob's compressed data is cut off"
        raise GraphFormatError(msg)
    return out


def _exactly(f, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        msg = "the file ends inside a blob"
        raise GraphFormatError(msg)
    return data


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            msg = "a block's number is cut off"
            raise GraphFormatError(msg)
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            return value, i
        shift += 7


def _fields(data: bytes):
    """A protobuf message's fields: (number, value), a value a number or bytes."""
    data = memoryview(data)
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            n, i = _varint(data, i)
            value, i = data[i : i + n], i + n
        elif wire in (1, 5):
            value, i = data[i : i + (8 if wire == 1 else 4)], i + (8 if wire == 1 else 4)
        else:
            msg = f"a block's field of wire type {wire}, which protobuf has no more"
            raise GraphFormatError(msg)
        if i > len(data):
            msg = "a block's field runs past its end"
            raise GraphFormatError(msg)
        yield number, value
