"""The map of a large graph, drawn on the server with Datashader.

Above `RASTER_ABOVE` nodes the browser is sent one small-integer image per frame instead of
a glyph per node: Datashader rasterises the roads once per viewport (pan, zoom, resize) and
the nodes' codes once per frame, at the viewport's resolution. Where a GPU is, the nodes are
drawn by a CUDA kernel with Datashader's pixel mapping instead (Datashader's own GPU path for
points needs RAPIDS cuDF, a large install of its own). The image holds `EMPTY`, `ROAD`, or
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
import threading
import zlib

import numpy as np
import pandas as pd

import engine
from engine.backends import raster as _gpu_raster
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


class Rasterizer:
    """One map's images: the roads of the current viewport, then a frame at a time.

    ``x``, ``y`` are the nodes' map coordinates and ``segments`` the roads as four arrays
    ``(x0, y0, x1, y1)``; they are read, never changed (graphs are shared by the server's
    sessions). Given ``nodes``, the same nodes on the GPU (`gpu_nodes`; a graph's sessions
    share one copy through its `viz.state.Geometry`), each frame's nodes are drawn by a CUDA
    kernel with Datashader's pixel mapping; the roads are always drawn by Datashader on the CPU.
    """

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        segments: tuple[np.ndarray, ...],
        *,
        nodes: _gpu_raster.NodeRaster | None = None,
    ):
        self._x, self._y = x, y
        self._nodes = nodes
        self._stamps = None
        self._segments = segments
        self._spacing = _typical_spacing(segments)
        self.viewport: Viewport | None = None
        self._canvas = None
        self._roads: np.ndarray | None = None
        self.radius = 0

    def set_viewport(self, viewport: Viewport) -> None:
        """Rasterise the roads for ``viewport`` (once per pan, zoom or resize)."""
        import datashader as ds

        if viewport == self.viewport:
            return
        canvas = ds.Canvas(
            plot_width=viewport.width,
            plot_height=viewport.height,
            x_range=(viewport.x0, viewport.x1),
            y_range=(viewport.y0, viewport.y1),
        )
        x0, y0, x1, y1 = self._segments
        lines = pd.DataFrame({"x0": x0, "y0": y0, "x1": x1, "y1": y1}, copy=False)
        agg = canvas.line(lines, x=["x0", "x1"], y=["y0", "y1"], axis=1, agg=ds.any())
        self._roads = np.where(agg.values, ROAD, EMPTY).astype(np.uint8)
        self._canvas, self.viewport = canvas, viewport
        pixels = self._spacing * viewport.width / max(viewport.x1 - viewport.x0, 1e-9)
        # Nodes grow to small squares once they lie several pixels apart (zoomed in).
        self.radius = 0 if pixels < 4 else 1 if pixels < 10 else 2

    def image(self, ranks: np.ndarray) -> np.ndarray:
        """The frame's image (``uint8``, row 0 at the bottom): each pixel is `ROAD` plus the
        highest rank among its nodes, where that rank is above 0, else the roads'."""
        import datashader as ds

        v = self._drawing()
        if self._nodes is not None:
            top = self._nodes.max_rank(ranks, (v.x0, v.x1), (v.y0, v.y1), v.width, v.height)
        else:
            points = pd.DataFrame({"x": self._x, "y": self._y, "rank": ranks}, copy=False)
            agg = self._canvas.points(points, "x", "y", agg=ds.max("rank")).values
            top = np.fmax(agg, 0.0, out=agg).astype(np.uint8)  # an empty pixel (NaN) is 0
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
        if self._canvas is None:
            msg = "set_viewport before drawing a frame"
            raise RuntimeError(msg)
        return self.viewport

    def _finish(self, top: np.ndarray) -> np.ndarray:
        """The nodes' ranks ``top`` grown to the zoom's squares, over the roads."""
        top = _grow(top, self.radius)
        top += top > 0  # ranks 1.. become ROAD + 1..; 0 stays 0, below the road
        return np.maximum(top, self._roads, out=top)


def warm_up() -> None:
    """Rasterise a tiny map once per process: Datashader compiles its code on first use
    (3.7 s on this project's 2-core machine), which a caller can so pay on a worker thread
    rather than on a page's. A second call waits for the first, then returns."""
    with _warm_lock:
        if _warmed.is_set():
            return
        x, y = np.array([0.0, 1.0]), np.array([0.0, 1.0])
        tiny = Rasterizer(x, y, (x[:1], y[:1], x[1:], y[1:]), nodes=gpu_nodes(x, y))
        tiny.set_viewport(Viewport(0.0, 1.0, 0.0, 1.0, 4, 4))
        tiny.image(np.ones(2, dtype=np.uint8))
        _warmed.set()


def warm_up_in_background() -> None:
    """Start `warm_up` on a daemon thread (once per process): the served app does so as its
    first page opens, so that the first big map to load finds Datashader compiled, or
    compiling while the graph is read (it took 3.7 of a 1M-node city's 10.7 s to its first
    picture, cold, decisions/0079)."""
    global _warm_thread
    with _start_lock:
        if _warm_thread is None and not _warmed.is_set():
            _warm_thread = threading.Thread(target=warm_up, name="frontier-warm-up", daemon=True)
            _warm_thread.start()


_warm_lock, _start_lock = threading.Lock(), threading.Lock()
_warmed = threading.Event()
_warm_thread: threading.Thread | None = None


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
