"""`engine.graphs.pbf`: a PBF's blobs indexed and decompressed as osmium writes them, and a
broken or hostile framing refused in one line before anything is allocated for it."""

import lzma
import re
import struct
import zlib

import pytest

import engine
from engine.graphs import pbf
from engine.testing.wire import HEADER, blob, field, header_block, raw, varint

from .graphs import shared_path


def _file(tmp_path, *parts: bytes):
    path = tmp_path / "t.osm.pbf"
    path.write_bytes(b"".join(parts))
    return path


def test_blobs_and_their_compressions(tmp_path):
    data = b"block bytes" * 100
    path = _file(
        tmp_path,
        HEADER,
        blob("OSMData", field(2, len(data)) + field(3, zlib.compress(data))),
        blob("OSMData", raw(data)),
        blob("OSMData", field(4, lzma.compress(data))),
        blob("OSMSomething", raw(b"skipped")),
    )
    index = pbf.blobs(path)
    assert [kind for kind, _, _ in index] == ["OSMHeader"] + ["OSMData"] * 3 + ["OSMSomething"]
    with open(path, "rb") as f:
        assert [pbf.block(f, offset, size) for _, offset, size in index[1:4]] == [data] * 3


def test_unknown_fields_are_skipped_by_their_wire_type(tmp_path):
    extra = field(9, 5) + field(10, b"xyz") + field(11, 7, wire=1) + field(12, 7, wire=5)
    path = _file(tmp_path, blob("OSMHeader", extra + raw(header_block() + extra)))
    assert [kind for kind, _, _ in pbf.blobs(path)] == ["OSMHeader"]


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


BIG = 2**31 - 1


@pytest.mark.parametrize(
    ("parts", "words"),
    [
        ((), "no OSMHeader block first"),
        ((HEADER[:7],), "the file ends inside blob 1"),
        ((struct.pack("!L", 10**6),), "a header of 1,000,000 bytes"),
        ((b"\0\0\0\0",), "an empty header"),
        ((blob("OSMHeader", b"", datasize=10**6),), "more than the file holds"),
        ((blob("OSMHeader", b"", datasize=2**40),), "the format's are 1 byte to 32 MiB"),
        ((blob(field(1, b"OSMHeader"), raw(b"")),), "header gives no size"),
        ((blob(field(1, BIG) + field(3, 4), raw(b"")),), "its type is a number where"),
        ((blob(field(1, b"OSMHeader") + field(3, b"\5"), raw(b"")),), "its datasize is bytes"),
        ((blob("OSMData", raw(b"")),), "no OSMHeader block first"),
        ((HEADER, HEADER), "blob 2 (OSMHeader, at byte 47) is a second OSMHeader"),
        ((blob("OSMHeader", raw(header_block("LocationsOnWays"))),), "is not read"),
        ((blob("OSMHeader", raw(field(4, BIG))),), "its required_features is a number"),
        ((blob("OSMHeader", raw(field(4, b"\xff"))),), "a required feature is not UTF-8"),
        ((blob("OSMHeader", field(1, BIG)),), "its raw is a number where the format has bytes"),
        ((blob("OSMHeader", field(3, BIG)),), "its zlib_data is a number"),
        ((blob("OSMHeader", field(4, b"not lzma")),), "compressed data is corrupt"),
        ((blob("OSMHeader", field(3, zlib.compress(b"x" * 99)[:-6])),), "is cut off"),
        ((blob("OSMHeader", field(3, zlib.compress(b"x") + b"junk")),), "bytes after its"),
        ((blob("OSMHeader", field(2, 5) + field(3, zlib.compress(b"x"))),), "holds 1"),
        ((blob("OSMHeader", field(2, 2**40) + raw(b"x")),), "over the format's 32 MiB"),
        ((blob("OSMHeader", raw(b"") + field(3, b"")),), "two kinds of data (raw and zlib_data)"),
        ((blob("OSMHeader", field(2, 5)),), "holds no data"),
        ((blob("OSMHeader", b"\x0b"),), "wire type 3, which protobuf does not use"),
        ((blob("OSMHeader", field(0, b"")),), "a field numbered 0"),
        ((blob("OSMHeader", b"\x08" + b"\xff" * 10 + b"\x01"),), "a number of more than 64 bits"),
        ((blob("OSMHeader", b"\x0a\xff"),), "a number is cut off"),
        ((blob("OSMHeader", b"\x0a\x05ab"),), "claims 5 bytes, more than the 2 left"),
        ((blob("OSMHeader", varint(2 << 3 | 2) + varint(2**40)),), "claims 1,099,511,627,776"),
        ((blob("OSMHeader", field(7, b"zstd")),), "compressed with zstd, which is not read"),
    ],
)  # fmt: skip
def test_broken_framing_is_one_line(tmp_path, parts, words):
    path = _file(tmp_path, *parts)
    with pytest.raises(engine.GraphFormatError, match=re.escape(words)) as caught:
        pbf.blobs(path)
    assert "\n" not in str(caught.value)


def test_a_blob_that_decompresses_past_32_mib_is_refused(tmp_path):
    bomb = zlib.compress(bytes(40 * 2**20), 9)
    assert len(bomb) < 100_000
    path = _file(tmp_path, HEADER, blob("OSMData", field(3, bomb)))
    offset, size = pbf.blobs(path)[1][1:]
    with open(path, "rb") as f, pytest.raises(engine.GraphFormatError, match="32 MiB"):
        pbf.block(f, offset, size, number=2)
