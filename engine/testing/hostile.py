"""Hostile input files for Frontier's readers, generated, with what each must give.

Each ``*_corpus`` function writes small files that an attacker, a broken exporter or a
careless user could hand to ``frontier info``: OSM PBF with wrong wire types, huge varints
and broken blocks (issue 70), OSM XML with bad coordinates, ids at the limits, entities,
non-UTF-8 text, long tags and duplicate nodes; GraphML, DIMACS and coordinate files with
bad values (issue 67). Every one must load into a correct graph (the ``*_LOADS`` names) or
be refused with one line of plain words (exit 2), within the bounds of
`engine.testing.measured`, which runs each in a child process. The PBF files are written
by `engine.testing.wire`.
"""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.testing.wire import (
    HEADER,
    blob,
    field,
    header_block,
    primitive_block,
    raw,
    varint,
    zigzag,
    zlibbed,
)

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
    return file_corpus(folder, {**pbf_corpus(), **xml_corpus()})


_GRAPHML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
_NS = 'xmlns="http://graphml.graphdrawing.org/xmlns"'


def _graphml(
    nodes: str | None = None,
    edges: str | None = None,
    *,
    keys: str | None = None,
    graph: str = '<graph edgedefault="directed">',
    head: str = _GRAPHML_HEAD,
) -> bytes:
    """A GraphML file of the 3 × 3 grid's nodes (ids, x and y) and its streets both ways
    with a ``length`` of 100 m each (or ``nodes``, ``edges``, ``keys`` instead)."""
    if keys is None:
        keys = (
            '<key id="d0" for="node" attr.name="x" attr.type="double"/>\n'
            '<key id="d1" for="node" attr.name="y" attr.type="double"/>\n'
            '<key id="d2" for="edge" attr.name="length" attr.type="double"/>\n'
        )
    if nodes is None:
        nodes = "".join(
            f'<node id="{v}"><data key="d0">{lon / 1e7:.7f}</data>'
            f'<data key="d1">{lat / 1e7:.7f}</data></node>\n'
            for v, lat, lon in zip(GRID_IDS, GRID_LATS, GRID_LONS, strict=True)
        )
    if edges is None:
        pairs = [pair for refs in GRID_WAYS for pair in itertools.pairwise(refs)]
        edges = "".join(
            f'<edge source="{u}" target="{v}"><data key="d2">100.0</data></edge>\n'
            for a, b in pairs
            for u, v in ((a, b), (b, a))
        )
    return f"{head}<graphml {_NS}>\n{keys}{graph}\n{nodes}{edges}</graph>\n</graphml>\n".encode(
        "utf-8", "surrogateescape"
    )


def _length(value: str) -> bytes:
    """The grid's GraphML with its first edge's length ``value``."""
    return _graphml().replace(b">100.0<", f">{value}<".encode(), 1)


def graphml_corpus() -> dict[str, bytes]:
    """Hostile GraphML files by name: values, ids, references, declarations, structure and
    encodings; a few valid ones of other tools' shapes (names for ids, no coordinates,
    undirected, defaults)."""
    edge = '<edge source="1" target="2"><data key="d2">5</data></edge>\n'
    named = "".join(f'<node id="n{v}"/>\n' for v in GRID_IDS)
    length_only = '<key id="d2" for="edge" attr.name="length" attr.type="double"/>\n'
    laughs = "".join(f'<!ENTITY l{k} "{f"&l{k - 1};" * 10}">' for k in range(1, 10))
    grid = _graphml().decode()
    out = {
        "good.graphml": _graphml(),
        "names.graphml": _graphml(
            named, edge.replace('"1"', '"n1"').replace('"2"', '"n2"'), keys=length_only
        ),
        "no-coordinates.graphml": _graphml(
            "".join(f'<node id="{v}"/>' for v in GRID_IDS), keys=length_only
        ),
        "undirected.graphml": _graphml(graph='<graph edgedefault="undirected">'),
        "default-length.graphml": _graphml(
            edges='<edge source="1" target="2"/>\n',
            keys=grid[grid.index("<key") : grid.index('<key id="d2"')]
            + '<key id="d2" for="edge" attr.name="length"><default>7.5</default></key>\n',
        ),
        "good.graphml.gz": gzip.compress(_graphml()),
        "bom.graphml": b"\xef\xbb\xbf" + _graphml(),
        "length-inf.graphml": _length("inf"),
        "length-nan.graphml": _length("nan"),
        "length-negative.graphml": _length("-5"),
        "length-abc.graphml": _length("abc"),
        "length-empty.graphml": _length(""),
        "length-huge.graphml": _length("1e30"),
        "length-missing.graphml": _graphml().replace(b'<data key="d2">100.0</data>', b"", 1),
        "no-length.graphml": _graphml(
            keys=grid[grid.index("<key") : grid.index('<key id="d2"')],
            edges='<edge source="1" target="2"/>\n',
        ),
        "x-north.graphml": _graphml().replace(b">24.9300000<", b">north<", 1),
        "x-500.graphml": _graphml().replace(b">24.9300000<", b">500<", 1),
        "x-some.graphml": _graphml().replace(b'<data key="d0">24.9300000</data>', b"", 1),
        "id-huge.graphml": _graphml()
        .replace(b'node id="1"', b'node id="' + b"1" * 23 + b'"')
        .replace(b'source="1"', b'source="' + b"1" * 23 + b'"'),
        "id-twice.graphml": _graphml().replace(b'node id="2"', b'node id="1"', 1),
        "node-no-id.graphml": _graphml().replace(b'node id="2"', b"node", 1),
        "edge-to-nowhere.graphml": _graphml(edges=edge.replace('target="2"', 'target="99"')),
        "edge-no-target.graphml": _graphml(edges='<edge source="1"/>\n'),
        "key-undeclared.graphml": _graphml(edges=edge.replace('key="d2"', 'key="d9"')),
        "key-twice.graphml": _graphml(
            keys=grid[grid.index("<key") : grid.index("<graph ")] + length_only
        ),
        "data-twice.graphml": _graphml(edges=edge.replace("</e", '<data key="d2">6</data></e')),
        "doctype.graphml": _graphml(
            head=_GRAPHML_HEAD + '<!DOCTYPE graphml [<!ENTITY a "5">]>\n',
            edges=edge.replace(">5<", ">&a;<"),
        ),
        "external-entity.graphml": _graphml(
            head=_GRAPHML_HEAD + '<!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n',
            edges=edge.replace(">5<", ">&x;<"),
        ),
        "billion-laughs.graphml": _graphml(
            head=_GRAPHML_HEAD + f'<!DOCTYPE g [<!ENTITY l0 "ha">{laughs}]>\n',
            edges=edge.replace(">5<", ">&l9;<"),
        ),
        "hyperedge.graphml": _graphml(edges='<hyperedge><endpoint node="1"/></hyperedge>\n'),
        "nested.graphml": _graphml(edges='<node id="99"><graph id="g2"/></node>\n'),
        "two-graphs.graphml": _graphml().replace(b"</graph>", b'</graph><graph id="b"/>'),
        "truncated.graphml": _graphml()[:-100],
        "not-xml.graphml": b"<graphml>\x00\x01 not xml at all",
        "no-nodes.graphml": _graphml("", ""),
        "no-edges.graphml": _graphml(edges=""),
        "no-graph.graphml": f"<graphml {_NS}></graphml>".encode(),
        "non-utf8.graphml": _graphml().replace(b"<graph ", b"<!-- \xff\xfe --><graph ", 1),
        "latin1.graphml": _graphml(head='<?xml version="1.0" encoding="ISO-8859-1"?>\n').replace(
            b'"1"', b'"\xe91"'
        ),
        "truncated.graphml.gz": gzip.compress(_graphml())[:-30],
        "utf16.graphml": _graphml().decode().encode("utf-16"),
    }
    return out


#: The GraphML corpus's files that must load (every other one must be refused in one line).
GRAPHML_LOADS = frozenset({
    "good.graphml", "names.graphml", "no-coordinates.graphml", "undirected.graphml",
    "default-length.graphml", "good.graphml.gz", "bom.graphml", "latin1.graphml",
})  # fmt: skip


def dimacs_corpus() -> dict[str, bytes]:
    """Hostile DIMACS ``.gr`` and PACE files, and ``.co`` coordinate files (each read beside
    ``co-graph.gr``, a graph of four nodes), by name."""
    gr = "p sp 4 4\na 1 2 5\na 2 3 5\na 3 4 5\na 4 1 5\n"
    co = "p aux sp co 4\n" + "".join(
        f"v {v} {24930000 + 1000 * (v in (2, 3))} {60160000 + 1000 * (v > 2)}\n"
        for v in range(1, 5)
    )
    out = {
        "good.gr": gr,
        "arc-to-0.gr": gr.replace("a 3 4 5", "a 3 0 5"),
        "arc-beyond-n.gr": gr.replace("a 3 4 5", "a 3 5 5"),
        "arc-far-beyond.gr": gr.replace("a 3 4 5", "a 3 99999999999999999999 5"),
        "edge-to-0.gr": "p tw 3 2\n1 2\n2 0\n",
        "edge-beyond-n.gr": "p tw 3 2\n1 2\n2 7\n",
        "weight-negative.gr": gr.replace("a 2 3 5", "a 2 3 -5"),
        "weight-2e32.gr": gr.replace("a 2 3 5", "a 2 3 4294967296"),
        "weight-abc.gr": gr.replace("a 2 3 5", "a 2 3 abc"),
        "weight-float.gr": gr.replace("a 2 3 5", "a 2 3 1.5"),
        "too-few-arcs.gr": gr.replace("p sp 4 4", "p sp 4 9"),
        "too-many-arcs.gr": gr.replace("p sp 4 4", "p sp 4 2"),
        "two-headers.gr": "p sp 4 4\n" + gr,
        "no-header.gr": gr.replace("p sp 4 4\n", ""),
        "header-late.gr": gr.replace("p sp 4 4\n", "") + "p sp 4 4\n",
        "n-huge.gr": gr.replace("p sp 4 4", "p sp 99999999999 4"),
        "m-huge.gr": gr.replace("p sp 4 4", "p sp 4 99999999999999"),
        "pace-three-columns.gr": "p tw 3 1\n1 2 3\n",
        "nul.gr": gr.replace("a 2 3 5", "a 2 3\x005"),
        "crlf.gr": gr.replace("\n", "\r\n"),
        "tabs.gr": gr.replace(" ", "\t"),
        "only-comments.gr": "c nothing\nc here\n",
        "co-graph.gr": gr,
        "good.co": co,
        "co-missing-node.co": co.replace("v 4 24930000 60161000\n", ""),
        "co-duplicate.co": co.replace("v 4 ", "v 3 "),
        "co-id-0.co": co.replace("v 4 ", "v 0 "),
        "co-id-beyond.co": co.replace("v 4 ", "v 9 "),
        "co-abc.co": co.replace("24931000 60161000", "east north"),
        "co-count.co": co.replace("co 4", "co 5"),
        "co-off-globe.co": co.replace("24931000 60161000", "24931000 95000000"),
        "co-huge.co": co.replace("24931000 60161000", "999999999999999999999 1"),
        "co-no-header.co": co.replace("p aux sp co 4\n", ""),
    }
    return {name: text.encode() for name, text in out.items()}


#: The DIMACS corpus's files that must load.
DIMACS_LOADS = frozenset({"good.gr", "crlf.gr", "tabs.gr", "header-late.gr", "co-graph.gr",
                          "good.co"})  # fmt: skip


def corpora(folder: Path) -> list[tuple[str, dict[str, Path], frozenset, Callable]]:
    """Every corpus written into a folder of ``folder`` of its own: (kind, files, the names
    that must load, the ``frontier`` arguments of a file's case)."""
    osm = osm_corpus(folder / "osm") if (folder / "osm").mkdir(parents=True) is None else {}
    graphml = file_corpus(folder / "graphml", graphml_corpus())
    dimacs = file_corpus(folder / "dimacs", dimacs_corpus())

    def osm_args(path: Path) -> list[str]:
        return ["info", str(path), "--network", "drive", "--no-cache"]

    def args(path: Path) -> list[str]:
        if path.suffix == ".co":  # a coordinate file, read beside a graph of four nodes
            return ["info", str(dimacs["co-graph.gr"]), "--coords", str(path), "--no-cache"]
        return ["info", str(path), "--no-cache"]

    return [
        ("osm", osm, OSM_LOADS, osm_args),
        ("graphml", graphml, GRAPHML_LOADS, args),
        ("dimacs", dimacs, DIMACS_LOADS, args),
    ]


def file_corpus(folder: Path, corpus: dict[str, bytes]) -> dict[str, Path]:
    """The files of ``corpus`` written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, data in corpus.items():
        out[name] = folder / name
        out[name].write_bytes(data)
    return out
