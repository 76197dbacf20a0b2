"""Launcher of the map-frame kernel (engine/kernels/raster.cu) through CuPy.

`viz.raster` draws a large graph's map as one image per frame; where a GPU is, the nodes of
each frame are drawn by this kernel instead of by Datashader on the CPU (Datashader's own
GPU path for points needs cuDF). The nodes' coordinates go to the device once; a frame sends
one byte a node and gets one byte a pixel back.
"""

from __future__ import annotations

import functools

import numpy as np

from . import _backend

KERNEL_FILE = "raster.cu"
BLOCK = 256


@functools.cache
def _kernel():
    return _backend.kernel_module(KERNEL_FILE, ("rank_max",)).get_function("rank_max")


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
        0 where no node or only rank 0), as Datashader's ``Canvas(width, height, x_range,
        y_range).points(..., agg=max("rank"))`` with its empty pixels set to 0."""
        cp = _backend.cupy()
        image = cp.zeros((height, width), dtype=np.uint32)
        ranks = cp.asarray(ranks, dtype=np.uint8)
        n = len(ranks)
        if n:
            # Datashader's scale and translate (`Axis.compute_scale_and_translate`)
            sx = width / (x_range[1] - x_range[0])
            sy = height / (y_range[1] - y_range[0])
            tx, ty = -x_range[0] * sx, -y_range[0] * sy
            _kernel()(
                (-(-n // BLOCK),),
                (BLOCK,),
                (
                    self._x, self._y, ranks, np.int64(n),
                    np.float64(sx), np.float64(tx), np.float64(sy), np.float64(ty),
                    np.float64(x_range[0]), np.float64(x_range[1]),
                    np.float64(y_range[0]), np.float64(y_range[1]),
                    np.int32(width), np.int32(height), image,
                ),
            )  # fmt: skip
        return image.astype(np.uint8).get()
