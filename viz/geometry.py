"""What the map needs of a graph: Web Mercator points, road segments, the roads as one
image, nearest-node lookup. Imports nothing of the dashboard but `viz.raster`."""

from __future__ import annotations

import functools

import numpy as np
from scipy.spatial import cKDTree

import engine
from engine.media.render import line_pixels, road_segments

from .raster import RASTER_ABOVE, Rasterizer, gpu_nodes, gpu_roads, png


class Geometry:
    """What the map needs of a graph: Web Mercator points, road segments, nearest-node lookup.

    ``scale`` converts a distance in weight units to map units such that every node closer
    than ``d`` lies within ``d * scale`` of the source as the crow flies (the largest ratio
    of straight length to weight over the arcs), so the threshold ring is a true bound.
    """

    def __init__(self, graph: engine.CSRGraph):
        self.x, self.y = graph.mercator
        tails, heads = graph.sources, graph.indices
        a, b = road_segments(graph)
        self.segments = (self.x[a], self.y[a], self.x[b], self.y[b])
        straight = np.hypot(self.x[tails] - self.x[heads], self.y[tails] - self.y[heads])
        w = graph.weights.astype(np.float64)
        self.scale = float(np.max(straight[w > 0] / w[w > 0], initial=0.0))
        self.extent = float(np.hypot(np.ptp(self.x), np.ptp(self.y)))
        #: Width ÷ height of the map: the graph's own, kept between square and 2.5 : 1.
        self.aspect = min(max(float(np.ptp(self.x)) / max(float(np.ptp(self.y)), 1.0), 1.0), 2.5)
        #: Whether the map is drawn as server-side images (`viz.raster`) rather than glyphs.
        self.rasterized = len(self.x) > RASTER_ABOVE
        #: each road's end nodes, for `gpu_roads` (a rasterised map's, where a GPU draws it)
        drawn_on_gpu = self.rasterized and engine.gpu_available()
        self._ends = (a.astype(np.int32), b.astype(np.int32)) if drawn_on_gpu else None
        self._roads: dict[tuple[str, int], tuple[str, tuple[float, ...]]] = {}

    @functools.cached_property
    def _tree(self) -> cKDTree:
        """The nodes' k-d tree, made at the first click on the map, not with the map: it
        took 0.27 s of a 1M-node city's first picture (issue 54)."""
        return cKDTree(np.column_stack([self.x, self.y]))

    @functools.cached_property
    def gpu_nodes(self):
        """The nodes on the GPU for a rasterised map's frames (`viz.raster.gpu_nodes`, None
        without a GPU): copied once per graph, at its first map, and shared by its sessions."""
        return gpu_nodes(self.x, self.y)

    @functools.cached_property
    def gpu_roads(self):
        """The roads on the GPU beside `gpu_nodes` (`viz.raster.gpu_roads`, None without a
        GPU or for a map of glyphs), drawn there once per view: copied once per graph."""
        return None if self._ends is None else gpu_roads(self.gpu_nodes, *self._ends)

    def rasterizer(self) -> Rasterizer:
        """A rasterised map's images (`viz.raster.Rasterizer`): its nodes and roads drawn on
        the GPU where one is (`gpu_nodes`, `gpu_roads`), else by NumPy."""
        return Rasterizer(self.x, self.y, self.segments, nodes=self.gpu_nodes, roads=self.gpu_roads)

    def _centre(self) -> tuple[float, float]:
        """The middle of the nodes' extent."""
        return (self.x.min() + self.x.max()) / 2, (self.y.min() + self.y.max()) / 2

    def bounds(self, pad: float = 0.02) -> tuple[tuple[float, float], tuple[float, float]]:
        """The map's x and y ranges: the graph with a margin, widened to `aspect`."""
        cx, cy = self._centre()
        half_w = max(float(np.ptp(self.x)), 1.0) * (0.5 + pad)
        half_h = max(float(np.ptp(self.y)), 1.0) * (0.5 + pad)
        half_w, half_h = max(half_w, half_h * self.aspect), max(half_h, half_w / self.aspect)
        return (float(cx - half_w), float(cx + half_w)), (float(cy - half_h), float(cy + half_h))

    def roads_image(self, color: str, size: int = 1400) -> tuple[str, tuple[float, ...]]:
        """The road segments rasterized once into a PNG (a ``data:`` URL, longer side
        ``size`` pixels, the roads ``color``, the rest transparent) and its placement
        ``(x, y, dw, dh)``: a browser redraws one image per frame instead of tens of
        thousands of line segments. Made once per graph and colour, shared by its sessions.

        A PNG rather than raw RGBA: the embedded city's roads were 4.8 MB in every page's
        document, sent before its first picture; as a two-colour PNG they are a few dozen
        kilobytes (decision 0097)."""
        key = (color, size)
        if key not in self._roads:
            x0, y0, x1, y1 = self.segments
            left, bottom = float(self.x.min()), float(self.y.min())
            dw, dh = max(float(np.ptp(self.x)), 1.0), max(float(np.ptp(self.y)), 1.0)
            scale = (size - 1) / max(dw, dh)
            width, height = int(dw * scale) + 1, int(dh * scale) + 1
            px, py = line_pixels(
                (x0 - left) * scale,
                (y0 - bottom) * scale,
                (x1 - left) * scale,
                (y1 - bottom) * scale,
            )
            lit = np.zeros((height, width), dtype=np.uint8)  # row 0 at the bottom
            for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):  # lines two pixels wide
                lit[np.minimum(py + dy, height - 1), np.minimum(px + dx, width - 1)] = 1
            self._roads[key] = png(lit, ["#00000000", color]), (left, bottom, dw, dh)
        return self._roads[key]

    def nearest(self, x: float, y: float) -> int:
        return int(self._tree.query([x, y])[1])

    def centre_node(self) -> int:
        """The node nearest the map's centre (a new session's source), found by one pass over
        the nodes: the k-d tree `nearest` uses costs a 1M-node city 0.2-0.3 s, and a page
        opened by link waited for it before its first picture (issue 54)."""
        cx, cy = self._centre()
        return int(np.argmin((self.x - cx) ** 2 + (self.y - cy) ** 2))
