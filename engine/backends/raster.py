"""Launchers of the map-frame kernels (engine/backends/kernels/raster.cu) through CuPy.

`viz.raster` draws a large graph's map as one image per frame; where a GPU is, the nodes of
each frame are drawn by these kernels instead of by NumPy on the CPU, and so are the roads of
each view. The nodes' coordinates go to the device once, the roads' end nodes once, and a
recording's stamps once; a frame of node states then sends nothing a node (the states are
computed on the device), another layer's frame one byte a node; one byte a pixel comes back.
"""

from __future__ import annotations

import functools

import numpy as np

from engine.backends import device as _backend

KERNEL_FILE = "raster.cu"
KERNELS = ("rank_max", "state_max", "roads")
BLOCK = 256


@functools.cache
def _kernel(name: str):
    return _backend.kernel_module(KERNEL_FILE, KERNELS, cooperative=False).get_function(name)


class NodeRaster:
    """The nodes at ``x``, ``y`` (``float64`` map coordinates), kept on the GPU."""

    def __init__(self, x: np.ndarray, y: np.ndarray):
        cp = _backend.cupy()
        self._x, self._y = cp.asarray(x, dtype=np.float64), cp.asarray(y, dtype=np.float64)

    def max_rank(
        self, ranks: np.ndarray, x_range: tuple[float, float], y_range: tuple[float, float],
        width: int, height: int,
    ) -> np.ndarray:  # fmt: skip
        """Each pixel's highest rank (``uint8``, ``height × width``, row 0 at ``y_range[0]``;
        0 where no node or only rank 0), as `viz.raster.Rasterizer` draws them on the CPU
        (Datashader's ``Canvas(width, height, x_range, y_range).points(...,
        agg=max("rank"))`` with its empty pixels set to 0)."""
        ranks = _backend.cupy().asarray(ranks, dtype=np.uint8)
        return self._draw("rank_max", (ranks,), x_range, y_range, width, height)

    def max_state_rank(
        self, stamps: tuple, frame: int, rank_of: np.ndarray,
        x_range: tuple[float, float], y_range: tuple[float, float], width: int, height: int,
    ) -> np.ndarray:  # fmt: skip
        """`max_rank` of the ranks ``rank_of[recording.states(frame)]``, the node states
        computed here from ``stamps``, the recording's three stamp arrays on the GPU
        (`stamps_of`): one byte a pixel comes back, nothing a node goes up."""
        table = sum(int(rank) << (8 * code) for code, rank in enumerate(rank_of))
        args = (*stamps, np.uint32(frame), np.uint32(table))
        return self._draw("state_max", args, x_range, y_range, width, height)

    @staticmethod
    def stamps_of(recording) -> tuple:
        """A `engine.recording.Recording`'s reached, band and settled stamps, copied to the
        GPU for `max_state_rank` (12 bytes a node)."""
        cp = _backend.cupy()
        stamps = (recording.reached_at, recording.near_at, recording.settled_at)
        return tuple(cp.asarray(s.view(np.uint32)) for s in stamps)

    def _draw(self, kernel: str, args: tuple, x_range, y_range, width, height) -> np.ndarray:
        cp = _backend.cupy()
        image = cp.zeros((height, width), dtype=np.uint32)
        n = len(self._x)
        if n:
            # Datashader's scale and translate (`Axis.compute_scale_and_translate`)
            sx = width / (x_range[1] - x_range[0])
            sy = height / (y_range[1] - y_range[0])
            tx, ty = -x_range[0] * sx, -y_range[0] * sy
            _kernel(kernel)(
                (-(-n // BLOCK),),
                (BLOCK,),
                (
                    self._x, self._y, *args, np.int64(n),
                    np.float64(sx), np.float64(tx), np.float64(sy), np.float64(ty),
                    np.float64(x_range[0]), np.float64(x_range[1]),
                    np.float64(y_range[0]), np.float64(y_range[1]),
                    np.int32(width), np.int32(height), image,
                ),
            )  # fmt: skip
        return image.astype(np.uint8).get()


class RoadRaster:
    """The roads of a map on the GPU: each road its two end nodes ``a``, ``b`` (indices into
    ``nodes``, whose coordinates it uses; 8 bytes a road)."""

    def __init__(self, nodes: NodeRaster, a: np.ndarray, b: np.ndarray):
        cp = _backend.cupy()
        self._x, self._y = nodes._x, nodes._y
        self._a, self._b = cp.asarray(a, dtype=np.int32), cp.asarray(b, dtype=np.int32)
        #: the roads' extent (x0, x1, y0, y1): a view that holds it draws them uncut
        self._extent = None
        if len(self._a):
            ends = cp.zeros(len(self._x), dtype=bool)  # a byte a node, not 16 a road's end
            ends[self._a] = ends[self._b] = True
            xs, ys = self._x[ends], self._y[ends]
            self._extent = tuple(float(f()) for f in (xs.min, xs.max, ys.min, ys.max))

    def draw(
        self, x_range: tuple[float, float], y_range: tuple[float, float], width: int, height: int
    ) -> np.ndarray:
        """The pixels the roads cross (``bool``, ``height × width``, row 0 at
        ``y_range[0]``), as `viz.raster.draw_roads` finds them on the CPU."""
        cp = _backend.cupy()
        image = cp.zeros((height, width), dtype=np.uint8)
        n = len(self._a)
        if n:
            (x0, x1), (y0, y1), e = x_range, y_range, self._extent
            clip = not (e[0] >= x0 and e[1] <= x1 and e[2] >= y0 and e[3] <= y1)
            _kernel("roads")(
                (-(-n // BLOCK),),
                (BLOCK,),
                (
                    self._x, self._y, self._a, self._b, np.int64(n),
                    np.float64(x0), np.float64(x1), np.float64(y0), np.float64(y1),
                    np.float64(width / (x1 - x0)), np.float64(height / (y1 - y0)),
                    np.int32(clip), np.int32(width), np.int32(height), image,
                ),
            )  # fmt: skip
        return image.get().view(bool)
