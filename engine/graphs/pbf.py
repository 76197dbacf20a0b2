"""An OSM PBF file's framing: its blobs indexed and read, decompressed, and its header's
required features checked; what the blocks hold is decoded by pyrosm's block decoder
(`engine.graphs.ways`).

A file is a run of blobs, each a 4-byte big-endian length, a ``BlobHeader`` (its type and
data size) and a ``Blob`` (its data: raw, zlib or lzma). Only these two small protobuf
messages and the ``HeaderBlock``'s features are read here, by a reader of the protobuf wire
format that validates before it allocates: each field's wire type is checked against the
format's (`BLOB_HEADER`, `BLOB`, `HEADER_BLOCK`), every length against the bytes left in
its message and the format's bounds (a ``BlobHeader`` of at most 64 KiB, a blob of at most
32 MiB), and unknown fields are skipped by their wire type. Anything else is refused in one
`GraphFormatError` line naming the blob and what is wrong. (pyrosm's own reader of these
messages comes with an import of geopandas, 1 s and more of a cold load, and the
``protobuf`` package would add a dependency to read three messages: decision 0104.)
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
#: Protobuf's wire types of the fields read here: a varint, and bytes of a given length.
VARINT, BYTES = 0, 2
_WIRE_NAMES = {0: "a number", 1: "8 fixed bytes", 2: "bytes", 5: "4 fixed bytes"}
#: The fields of each message read (fileformat.proto, osmformat.proto): number → name and
#: wire type. ``repeated`` names the fields that may come more than once.
BLOB_HEADER = {1: ("type", BYTES), 2: ("indexdata", BYTES), 3: ("datasize", VARINT)}
BLOB = {
    1: ("raw", BYTES), 2: ("raw_size", VARINT), 3: ("zlib_data", BYTES),
    4: ("lzma_data", BYTES), 5: ("bzip2_data", BYTES), 6: ("lz4_data", BYTES),
    7: ("zstd_data", BYTES),
}  # fmt: skip
HEADER_BLOCK = {
    1: ("bbox", BYTES), 4: ("required_features", BYTES), 5: ("optional_features", BYTES),
    16: ("writingprogram", BYTES), 17: ("source", BYTES), 32: ("replication_timestamp", VARINT),
    33: ("replication_sequence_number", VARINT), 34: ("replication_base_url", BYTES),
}  # fmt: skip
REPEATED = ("required_features", "optional_features")
#: What to do with a file whose framing is damaged.
REDO = "the file is damaged or not an OSM PBF; download or export it again"


class _Damaged(Exception):
    """A message's bytes break the format: the words say how (the caller says where)."""


def blobs(path: Path) -> list[tuple[str, int, int]]:
    """Each blob's type, and where its data lies in the file (offset, size); the first
    must be the ``OSMHeader`` (and the only one) and hold no feature this reader does not
    know."""
    out = []
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        at = f.seek(0)
        while at < size:
            where = f"blob {len(out) + 1} (at byte {at:,})"
            f.seek(at)
            (length,) = struct.unpack("!L", _exactly(f, 4, where))
            if not 0 < length <= MAX_HEADER:
                what = "an empty header" if not length else f"a header of {length:,} bytes"
                msg = f"{where} has {what}; the format's are 1 byte to 64 KiB; {REDO}"
                raise GraphFormatError(msg)
            fields = _message(_exactly(f, length, where), BLOB_HEADER, f"{where}'s header")
            kind = _text(fields.get("type"), f"{where}'s type")
            data = fields.get("datasize")
            if data is None or kind is None:
                msg = f"{where}'s header gives no {'type' if kind is None else 'size'}; {REDO}"
                raise GraphFormatError(msg)
            where = f"blob {len(out) + 1} ({kind[:40]}, at byte {at:,})"
            if not 0 < data <= MAX_BLOB:
                msg = f"{where} is of {data:,} bytes; the format's are 1 byte to 32 MiB; {REDO}"
                raise GraphFormatError(msg)
            if at + 4 + length + data > size:
                msg = f"{where} is of {data:,} bytes, more than the file holds: cut off; {REDO}"
                raise GraphFormatError(msg)
            if kind == "OSMHeader" and out:
                msg = f"{where} is a second OSMHeader; a file has one, first; {REDO}"
                raise GraphFormatError(msg)
            out.append((kind, at + 4 + length, data))
            at += 4 + length + data
        if not out or out[0][0] != "OSMHeader":
            msg = f"no OSMHeader block first; {REDO}"
            raise GraphFormatError(msg)
        header = _message(block(f, *out[0][1:], number=1), HEADER_BLOCK, "the header block")
    features = [_text(v, "a required feature") for v in header.get("required_features", [])]
    unknown = [feature for feature in features if feature not in KNOWN_FEATURES]
    if unknown:
        msg = f"the file requires the PBF feature {unknown[0]!r}, which is not read"
        raise GraphFormatError(msg)
    return out


def block(f, offset: int, size: int, *, number: int | None = None) -> bytes:
    """The decompressed block of the blob whose data is ``size`` bytes at ``offset`` of the
    open file ``f`` (at most `MAX_BLOB` bytes; ``number``: the blob's, for messages)."""
    where = f"blob {number} (at byte {offset:,})" if number else f"the blob at byte {offset:,}"
    f.seek(offset)
    fields = _message(_exactly(f, size, where), BLOB, where)
    held = [name for name in fields if name.endswith(("_data", "raw"))]
    if len(held) != 1:
        what = "no data" if not held else f"two kinds of data ({held[0]} and {held[1]})"
        msg = f"{where} holds {what}; a blob holds one; {REDO}"
        raise GraphFormatError(msg)
    raw_size = fields.get("raw_size")
    if raw_size is not None and raw_size > MAX_BLOB:
        msg = f"{where} says it holds {raw_size:,} bytes unpacked, over the format's 32 MiB; {REDO}"
        raise GraphFormatError(msg)
    kind = held[0]
    if kind == "raw":
        out = bytes(fields["raw"])
    elif kind in ("zlib_data", "lzma_data"):
        out = _inflated(fields[kind], kind, where)
    else:
        msg = (
            f"{where} is compressed with {kind.removesuffix('_data')}, which is not read "
            "(only raw, zlib and lzma are); convert the file with osmium cat"
        )
        raise GraphFormatError(msg)
    if raw_size is not None and kind != "raw" and raw_size != len(out):
        msg = f"{where} says it holds {raw_size:,} bytes unpacked but holds {len(out):,}; {REDO}"
        raise GraphFormatError(msg)
    return out


def _inflated(data: memoryview, kind: str, where: str) -> bytes:
    """``data`` decompressed (zlib or lzma, by ``kind``), at most `MAX_BLOB` bytes of it,
    the stream whole and nothing after it."""
    if kind == "zlib_data":
        inflate, error = zlib.decompressobj(), zlib.error
    else:
        inflate, error = lzma.LZMADecompressor(), lzma.LZMAError
    try:
        out = inflate.decompress(data, MAX_BLOB + 1)
    except error:
        msg = f"{where}'s compressed data is corrupt; {REDO}"
        raise GraphFormatError(msg) from None
    if len(out) > MAX_BLOB:
        msg = (
            f"{where} holds more than 32 MiB once decompressed, more than the format allows; {REDO}"
        )
        raise GraphFormatError(msg)
    if not inflate.eof:
        msg = f"{where}'s compressed data is cut off; {REDO}"
        raise GraphFormatError(msg)
    if inflate.unused_data:
        msg = f"{where} holds bytes after its compressed data; {REDO}"
        raise GraphFormatError(msg)
    return out


def _exactly(f, n: int, where: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        msg = f"the file ends inside {where}: it is cut off; {REDO}"
        raise GraphFormatError(msg)
    return data


def _text(value, what: str) -> str | None:
    """A string field's value as text (None when absent); bytes that are no UTF-8 text are
    refused."""
    if value is None:
        return None
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        msg = f"{what} is not UTF-8 text; {REDO}"
        raise GraphFormatError(msg) from None


def _message(data: bytes, schema: dict[int, tuple[str, int]], where: str) -> dict:
    """The fields of ``schema`` in a protobuf message, by name: a number (varint), a view of
    its bytes, or for `REPEATED` fields a list of those. Each field's wire type must be the
    schema's; unknown fields are skipped by theirs; a singular field given twice, a length
    past the message's end, a varint of more than 64 bits, field number 0 and the
    deprecated group wire types are refused."""
    try:
        return _fields(memoryview(data), schema)
    except _Damaged as exc:
        msg = f"{where}: {exc}; {REDO}"
        raise GraphFormatError(msg) from None


def _fields(data: memoryview, schema: dict[int, tuple[str, int]]) -> dict:
    out: dict = {}
    i, end = 0, len(data)
    while i < end:
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Damaged("a field numbered 0")
        if wire == VARINT:
            value, i = _varint(data, i)
        elif wire == BYTES:
            n, i = _varint(data, i)
            if n > end - i:
                raise _Damaged(f"field {number} claims {n:,} bytes, more than the {end - i:,} left")
            value, i = data[i : i + n], i + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            if n > end - i:
                raise _Damaged(f"field {number} is cut off")
            value, i = data[i : i + n], i + n
        else:
            raise _Damaged(f"field {number} has wire type {wire}, which protobuf does not use")
        if number not in schema:
            continue  # an unknown field, skipped by its wire type
        name, expected = schema[number]
        if wire != expected:
            raise _Damaged(
                f"its {name} is {_WIRE_NAMES[wire]} where the format has {_WIRE_NAMES[expected]}"
            )
        if name in REPEATED:
            out.setdefault(name, []).append(value)
        elif name in out:
            raise _Damaged(f"its {name} is given twice")
        else:
            out[name] = value
    return out


def _varint(data: memoryview, i: int) -> tuple[int, int]:
    """The varint at ``data[i]`` and the place after it; at most 10 bytes, 64 bits."""
    value = shift = 0
    while True:
        if i >= len(data):
            raise _Damaged("a number is cut off")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            if value >> 64:
                raise _Damaged("a number of more than 64 bits")
            return value, i
        shift += 7
        if shift > 63:
            raise _Damaged("a number of more than 64 bits")
