"""`engine.graphs.pbf`: a PBF's blobs indexed and decompressed as osmium writes them, and a
broken or hostile framing refused in one line, with bounded memory."""

import lzma
import struct
import zlib

import pytest

import engine
from engine.graphs import pbf

from .graphs import shared_path


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, value: bytes | int) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _blob(kind: str, blob: bytes, datasize: int | None = None) -> bytes:
    header = _field(1, kind.encode()) + _field(3, len(blob) if datasize is None else datasize)
    return struct.pack("!L", len(header)) + header + blob


def _file(tmp_path, *parts: bytes):
    path = tmp_path / "t.osm.pbf"
    path.write_bytes(b"".join(parts))
    return path


HEADER = _blob("OSMHeader", _field(1, _field(4, b"OsmSchema-V0.6") + _field(4, b"DenseNodes")))


def test_blobs_and_their_compressions(tmp_path):
    data = b"block bytes" * 100
    path = _file(
        tmp_path,
        HEADER,
        _blob("OSMData", _field(2, len(data)) + _field(3, zlib.compress(data))),
        _blob("OSMData", _field(1, data)),
        _blob("OSMData", _field(4, lzma.compress(data))),
    )
    index = pbf.blobs(path)
    assert [kind for kind, _, _ in index] == ["OSMHeader"] + ["OSMData"] * 3
    with open(path, "rb") as f:
        assert [pbf.block(f, offset, size) for _, offset, size in index[1:]] == [data] * 3


def test_osmium_files_are_indexed_as_osmium_writes_them():
    osmium = pytest.importorskip("osmium")
    path = shared_path("osm", "liechtenstein.osm.pbf")
    if not path.exists():
        pytest.skip("needs ../shared/data")
    index = pbf.blobs(path)
    assert index[0][0] == "OSMHeader" and len(index) > 10
    assert index[-1][1] + index[-1][2] == path.stat().st_size
    nodes = sum(1 for _ in osmium.FileProcessor(str(path), osmium.osm.NODE))
    assert nodes > 100_000


@pytest.mark.parametrize(
    ("parts", "words"),
    [
        ((), "no OSMHeader block first"),
        ((HEADER[:7],), "the file ends inside a blob"),
        ((struct.pack("!L", 10**6),), "more than the format's 64 KiB"),
        ((_blob("OSMHeader", b"", datasize=10**6),), "which the file does not hold"),
        ((_blob("OSMData", b""),), "no OSMHeader block first"),
        ((_blob("OSMHeader", _field(1, _field(4, b"LocationsOnWays"))),), "is not read"),
        ((_blob("OSMHeader", _field(4, b"not lzma")),), "compressed data is corrupt"),
        ((_blob("OSMHeader", _field(3, zlib.compress(b"x" * 99)[:-6])),), "is cut off"),
        ((_blob("OSMHeader", b"\x0b"),), "wire type 3"),
        ((_blob("OSMHeader", b"\x0a\xff"),), "cut off"),
        ((_blob("OSMHeader", b"\x0a\x05ab"),), "runs past its end"),
        ((_blob("OSMHeader", _field(7, b"zstd")),), "only raw, zlib and lzma"),
    ],
)
def test_broken_framing_is_one_line(tmp_path, parts, words):
    path = _file(tmp_path, *parts)
    with pytest.raises(engine.GraphFormatError, match=words):
        pbf.blobs(path)


def test_a_blob_that_decompresses_past_32_mib_is_refused(tmp_path):
    bomb = zlib.compress(bytes(40 * 2**20), 9)
    assert len(bomb) < 100_000
    path = _file(tmp_path, HEADER, _blob("OSMData", _field(3, bomb)))
    offset, size = pbf.blobs(path)[1][1:]
    with open(path, "rb") as f, pytest.raises(engine.GraphFormatError, match="32 MiB"):
        pbf.block(f, offset, size)
