"""The map of a large graph, drawn on the server.

Above `RASTER_ABOVE` nodes the browser is sent one small-integer image per frame instead of
a glyph per node: the roads are rasterised once per viewport (pan, zoom, resize) and the
nodes' codes once per frame, at the viewport's resolution, by NumPy (`draw_roads`,
`Rasterizer.image`) or, where a GPU is, by CUDA kernels with the same pixels (the nodes
mapped as Datashader maps them: a node at a pixel's far edge of the view goes to the last
pixel).
Datashader drew them until its first call, which compiles its code, took 3.7 s of a cold
1M-node city's first picture (decisions/0079, 0085). The image holds `EMPTY`, `ROAD`, or
``ROAD + rank`` for the highest-ranked node code in the pixel, and goes to the browser as an
indexed PNG with its palette (`png`): a few hundred kilobytes that the browser
decodes natively, where 1.6 MB of ``uint8`` coloured pixel by pixel in BokehJS held a
1,600 × 1,000 map to 8.5 painted frames a second (decisions/0026, issue 19).

Which code wins a pixel is the layer's choice: for node states the frontier is drawn on top
(near over far over settled, `STATE_RANK`), for the wasted-work layer the most relaxed node.
"""

from __future__ import annotations

import base64
import concurrent.futures
import dataclasses
import functools
import os
import struct
import zlib

import numpy as np

import engine
from engine.backends import raster as _gpu_raster
from engine.media.render import line_pixels
from engine.recording import FAR, NEAR, SETTLED, UNREACHED, Recording

#: Graphs with more nodes are drawn as server-side images; smaller ones as one glyph a node.
RASTER_ABOVE = 100_000
#: The longest side of a rasterised frame, in pixels (the viewport's own size when smaller).
MAX_SIDE = 1600
#: Image values below the node codes.
EMPTY, ROAD = 0, 1
#: Node states ranked for drawing: a pixel shows its highest-ranked node.
STATE_RANK = np.zeros(4, dtype=np.uint8)
STATE_RANK[[UNREACHED, SETTLED, FAR, NEAR]] = [0, 1, 2, 3]
#: Threads compressing one frame's image, each a slice of its rows (as pigz does).
THREADS = min(4, os.cpu_count() or 1)


@dataclasses.dataclass(frozen=True)
class Viewport:
    """The map area on show (Web Mercator metres) and its size in pixels."""

    x0: float
    x1: float
    y0: float
    y1: float
    width: int
    height: int

    @classmethod
    def fit(cls, x0: float, x1: float, y0: float, y1: float, width: int, height: int):
        """A viewport of ``width × height`` screen pixels, scaled down so that its longer
        side is at most `MAX_SIDE` (never below 1 pixel)."""
        shrink = min(1.0, MAX_SIDE / max(width, height, 1))
        w, h = max(round(width * shrink), 1), max(round(height * shrink), 1)
        return cls(float(x0), float(x1), float(y0), float(y1), int(w), int(h))

    def pixel_of(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Column and row (row 0 at the bottom) of map points; outside: -1."""
        col = np.floor((x - self.x0) / (self.x1 - self.x0) * self.width).astype(np.int64)
        row = np.floor((y - self.y0) / (self.y1 - self.y0) * self.height).astype(np.int64)
        inside = (col >= 0) & (col < self.width) & (row >= 0) & (row < self.height)
        return np.where(inside, col, -1), np.where(inside, row, -1)


def widen_to(x0: float, x1: float, y0: float, y1: float, aspect: float) -> tuple[float, ...]:
    """The ranges ``x0..x1`` and ``y0..y1`` widened about their centre along one axis so
    that width over height is ``aspect`` (a plot frame's pixels across over its pixels up):
    a map drawn in that frame is then as long per pixel across as up."""
    width, height = x1 - x0, y1 - y0
    if width < height * aspect:
        grow = (height * aspect - width) / 2
        return x0 - grow, x1 + grow, y0, y1
    grow = (width / aspect - height) / 2
    return x0, x1, y0 - grow, y1 + grow


def palette(node_colors: tuple[str, ...], road: str) -> list[str]:
    """The image's colours by value: transparent, the road, then the node colours by rank
    (``node_colors[0]``, the colour of rank 0, is never drawn: rank 0 shows the road)."""
    return ["#00000000", road, *node_colors[1:]]


def png(image: np.ndarray, colors: list[str]) -> str:
    """``image`` (row 0 at the bottom) as a ``data:`` URL of an indexed PNG whose palette is
    ``colors`` (``#rrggbb`` or ``#rrggbbaa``), made for speed, not size.

    Written here rather than by Pillow: pixels packed two to a byte (up to 16 colours), no
    row filters, zlib's run-length strategy, and the rows compressed in slices on
    `THREADS` threads; a 1,600 × 1,000 map frame took 9 ms on one thread instead of
    Pillow's 25 (decisions/0031, issue 19).
    """
    rgba = b"".join(bytes.fromhex((c.lstrip("#") + "ff")[:8]) for c in colors)
    height, width = image.shape
    depth = 4 if len(colors) <= 16 else 8
    rows = image[::-1]
    if depth == 4:
        pairs = np.pad(rows, ((0, 0), (0, width % 2)))
        packed = np.empty((height, pairs.shape[1] // 2 + 1), dtype=np.uint8)
        np.left_shift(pairs[:, 0::2], 4, out=packed[:, 1:])
        packed[:, 1:] |= pairs[:, 1::2]
    else:
        packed = np.empty((height, width + 1), dtype=np.uint8)
        packed[:, 1:] = rows
    packed[:, 0] = 0  # each row's filter: none
    pixels = _deflate(packed.tobytes(), THREADS)
    header = struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)  # 3: indexed colour
    chunks = [
        (b"IHDR", header),
        (b"PLTE", b"".join(rgba[i : i + 3] for i in range(0, len(rgba), 4))),
        (b"tRNS", rgba[3::4]),
        (b"IDAT", pixels),
        (b"IEND", b""),
    ]
    out = b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        for kind, data in chunks
    )
    return "data:image/png;base64," + base64.b64encode(out).decode("ascii")


def _deflate(data: bytes, parts: int) -> bytes:
    """``data`` as one zlib stream, compressed in ``parts`` slices at once: each slice a raw
    deflate ended on a byte boundary (a sync flush; the last one finishes the stream), then
    the checksum of the whole. zlib lets go of Python's lock while it compresses."""
    size = -(-len(data) // max(parts, 1)) or 1
    slices = [data[i : i + size] for i in range(0, len(data), size)] or [b""]

    def compress(i: int) -> bytes:
        deflate = zlib.compressobj(1, zlib.DEFLATED, -15, 9, zlib.Z_RLE)
        end = zlib.Z_FINISH if i == len(slices) - 1 else zlib.Z_SYNC_FLUSH
        return deflate.compress(slices[i]) + deflate.flush(end)

    if len(slices) == 1:
        body = compress(0)
    else:
        body = b"".join(_pool().map(compress, range(len(slices))))
    return b"\x78\x01" + body + struct.pack(">I", zlib.adler32(data))  # 78 01: level 1


@functools.cache
def _pool() -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(THREADS, thread_name_prefix="raster")


def gpu_nodes(x: np.ndarray, y: np.ndarray) -> _gpu_raster.NodeRaster | None:
    """The nodes at ``x``, ``y`` copied to the GPU for `Rasterizer` where a GPU is, else None."""
    return _gpu_raster.NodeRaster(x, y) if engine.gpu_available() else None


def gpu_roads(
    nodes: _gpu_raster.NodeRaster | None, a: np.ndarray, b: np.ndarray
) -> _gpu_raster.RoadRaster | None:
    """The roads from nodes ``a`` to nodes ``b`` copied to the GPU for `Rasterizer`, beside
    ``nodes`` (`gpu_nodes`; None without a GPU, and then so is this)."""
    return None if nodes is None else _gpu_raster.RoadRaster(nodes, a, b)


def draw_roads(segments: tuple[np.ndarray, ...], v: Viewport) -> np.ndarray:
    """The pixels the road ``segments`` (``x0, y0, x1, y1`` in map units) cross in ``v``
    (``bool``, row 0 at the bottom): each segment clipped to the view (Liang-Barsky; not
    when every road lies in it), then stepped through in pixels as the exports draw roads
    (`engine.media.render.line_pixels`, a pixel's centre half a pixel in)."""
    ax, ay, bx, by = segments
    sx, sy = v.width / (v.x1 - v.x0), v.height / (v.y1 - v.y0)

    def pixels(a, lo, scale):  # pixel units, a pixel's centre at a whole number
        return (a - lo) * scale - 0.5

    inside = bool(ax.size) and min(ax.min(), bx.min()) >= v.x0 and max(ax.max(), bx.max()) <= v.x1
    inside = inside and min(ay.min(), by.min()) >= v.y0 and max(ay.max(), by.max()) <= v.y1
    if not inside:  # the part of each segment in the view
        dx, dy = bx - ax, by - ay
        t0, t1 = np.zeros(ax.size), np.ones(ax.size)
        keep = np.ones(ax.size, dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore"):
            for p, q in ((-dx, ax - v.x0), (dx, v.x1 - ax), (-dy, ay - v.y0), (dy, v.y1 - ay)):
                r = q / p
                keep &= (p != 0) | (q >= 0)  # parallel to an edge and outside it: dropped
                np.maximum(t0, r, out=t0, where=p < 0)
                np.minimum(t1, r, out=t1, where=p > 0)
        keep &= t0 <= t1
        ax, ay, dx, dy, t0, t1 = (a[keep] for a in (ax, ay, dx, dy, t0, t1))
        ax, ay, bx, by = ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy
    col, row = line_pixels(
        pixels(ax, v.x0, sx), pixels(ay, v.y0, sy), pixels(bx, v.x0, sx), pixels(by, v.y0, sy)
    )
    out = np.zeros(v.height * v.width, dtype=bool)
    out[np.clip(row, 0, v.height - 1) * v.width + np.clip(col, 0, v.width - 1)] = True
    return out.reshape(v.height, v.width)


class Rasterizer:
    """One map's images: the roads of the current viewport, then a frame at a time.

    ``x``, ``y`` are the nodes' map coordinates and ``segments`` the roads as four arrays
    ``(x0, y0, x1, y1)``; they are read, never changed (graphs are shared by the server's
    sessions). Given ``nodes``, the same nodes on the GPU (`gpu_nodes`; a graph's sessions
    share one copy through its `viz.state.Geometry`), each frame's nodes are drawn by a CUDA
    kernel; else each node's pixel is found once per viewport, and a frame writes its ranks
    there. The roads are drawn once per viewport by a CUDA kernel given ``roads``, the same
    roads on the GPU (`gpu_roads`), else by NumPy (`draw_roads`): the same pixels either way.
    """

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        segments: tuple[np.ndarray, ...],
        *,
        nodes: _gpu_raster.NodeRaster | None = None,
        roads: _gpu_raster.RoadRaster | None = None,
    ):
        self._x, self._y = x, y
        self._nodes = nodes
        self._gpu_roads = roads
        self._stamps = None
        self._segments = segments
        self._spacing = _typical_spacing(segments)
        self.viewport: Viewport | None = None
        self._roads: np.ndarray | None = None
        #: the nodes in the view (None: all) and their pixels (drawn by NumPy)
        self._inside: np.ndarray | None = None
        self._pixels: np.ndarray | None = None
        self.radius = 0

    def set_viewport(self, viewport: Viewport) -> None:
        """Rasterise the roads for ``viewport`` (once per pan, zoom or resize), and find
        each node's pixel where NumPy draws them."""
        if viewport == self.viewport:
            return
        v = viewport
        if self._gpu_roads is not None:
            crossed = self._gpu_roads.draw((v.x0, v.x1), (v.y0, v.y1), v.width, v.height)
        else:
            crossed = draw_roads(self._segments, v)
        self._roads = np.where(crossed, ROAD, EMPTY).astype(np.uint8)
        if self._nodes is None:
            self._inside, self._pixels = _node_pixels(self._x, self._y, viewport)
        self.viewport = viewport
        pixels = self._spacing * viewport.width / max(viewport.x1 - viewport.x0, 1e-9)
        # Nodes grow to small squares once they lie several pixels apart (zoomed in).
        self.radius = 0 if pixels < 4 else 1 if pixels < 10 else 2

    def image(self, ranks: np.ndarray) -> np.ndarray:
        """The frame's image (``uint8``, row 0 at the bottom): each pixel is `ROAD` plus the
        highest rank among its nodes, where that rank is above 0, else the roads'."""
        v = self._drawing()
        if self._nodes is not None:
            top = self._nodes.max_rank(ranks, (v.x0, v.x1), (v.y0, v.y1), v.width, v.height)
        else:
            shown = ranks if self._inside is None else ranks[self._inside]
            top = np.zeros(v.height * v.width, dtype=np.uint8)
            for rank in range(1, int(shown.max(initial=0)) + 1):  # each rank over the lower
                top[self._pixels[shown == rank]] = rank
            top = top.reshape(v.height, v.width)
        return self._finish(top)

    def states_image(self, recording: Recording, frame: int) -> np.ndarray:
        """``image(STATE_RANK[recording.states(frame)])``. On the GPU the states are computed
        there, from the recording's stamps copied once (the last recording drawn keeps its
        copy: 12 bytes a node): the server does no work a node per frame."""
        if self._nodes is None:
            return self.image(STATE_RANK[recording.states(frame)])
        v = self._drawing()
        if self._stamps is None or self._stamps[0] is not recording:
            self._stamps = None  # the last recording's copy goes before the next is made
            self._stamps = (recording, self._nodes.stamps_of(recording))
        top = self._nodes.max_state_rank(
            self._stamps[1], frame, STATE_RANK, (v.x0, v.x1), (v.y0, v.y1), v.width, v.height
        )
        return self._finish(top)

    def _drawing(self) -> Viewport:
        if self.viewport is None:
            msg = "set_viewport before drawing a frame"
            raise RuntimeError(msg)
        return self.viewport

    def _finish(self, top: np.ndarray) -> np.ndarray:
        """The nodes' ranks ``top`` grown to the zoom's squares, over the roads."""
        top = _grow(top, self.radius)
        top += top > 0  # ranks 1.. become ROAD + 1..; 0 stays 0, below the road
        return np.maximum(top, self._roads, out=top)


def _node_pixels(x: np.ndarray, y: np.ndarray, v: Viewport) -> tuple:
    """The nodes in the view (None: all of them) and each one's pixel index (``int32``),
    mapped as Datashader's ``Canvas.points`` maps them, as the GPU's kernel does: column
    ``int(x * sx + tx)``, the last column taking the points on the view's far edge."""
    sx, sy = v.width / (v.x1 - v.x0), v.height / (v.y1 - v.y0)
    tx, ty = -v.x0 * sx, -v.y0 * sy
    inside = (v.x0 <= x) & (x <= v.x1) & (v.y0 <= y) & (y <= v.y1)
    which = None if inside.all() else np.flatnonzero(inside)
    xs, ys = (x, y) if which is None else (x[which], y[which])
    col = np.minimum((xs * sx + tx).astype(np.int64), v.width - 1)
    row = np.minimum((ys * sy + ty).astype(np.int64), v.height - 1)
    return which, (row * v.width + col).astype(np.int32)


def _typical_spacing(segments: tuple[np.ndarray, ...]) -> float:
    """The median road segment's length in map units (how far apart nodes lie)."""
    x0, y0, x1, y1 = (s[:100_000] for s in segments)  # a sample is enough
    if not len(x0):
        return 0.0
    return float(np.median(np.hypot(x1 - x0, y1 - y0)))


def _grow(top: np.ndarray, radius: int) -> np.ndarray:
    """Each pixel takes the highest value within ``radius`` pixels (a square): the maximum
    over rows, then over columns."""
    out = top
    for axis in (0, 1):
        for _ in range(radius):
            grown = out.copy()
            lo = [slice(None)] * 2
            hi = [slice(None)] * 2
            lo[axis], hi[axis] = slice(None, -1), slice(1, None)
            np.maximum(grown[tuple(lo)], out[tuple(hi)], out=grown[tuple(lo)])
            np.maximum(grown[tuple(hi)], out[tuple(lo)], out=grown[tuple(hi)])
            out = grown
    return out
