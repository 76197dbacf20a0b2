"""Pictures of a recorded search, drawn on the CPU: the map of one frame as an image.

The roads are rasterised once; each frame then paints the nodes' states over a copy, in a
small fixed palette (so a GIF needs no colour quantisation and every frame of an animation
shares one palette). A caption band on top carries the method, Δ, batch, the iteration
counter and the near/far/settled counts with a legend; OSM maps carry their attribution.
Pillow draws the text; nothing here needs a browser or a display.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from engine._errors import ParameterError
from engine.graphs.csr import CSRGraph, unique
from engine.graphs.osm import WEIGHTS as OSM_WEIGHTS
from engine.methods import METHODS
from engine.recording import FAR, NEAR, SETTLED
from engine.search import SSSPResult

#: Colours shared by the dashboard and the exports (the state colours of the map).
COLORS = {
    "background": "#ffffff",
    "road": "#b4b4b4",
    # Okabe and Ito's colour-blind-safe colours: the three states stay at least 50 apart
    # (CIEDE2000) under simulated protanopia, deuteranopia and tritanopia (tests/test_viz_style).
    "far": "#56b4e9",
    "near": "#e69f00",
    # Settled is a mid grey, darker than the roads: black made the settled region of a real
    # city (thousands of nodes) a blot that hid the near and far nodes at its edge.
    "settled": "#6e6e6e",
    "source": "#0072b2",
    "target": "#d55e00",
    "text": "#222222",
    "muted": "#666666",
}
_INDEX = {name: k for k, name in enumerate(COLORS)}
#: The states in the order they are painted: settled first, so that the frontier (near over
#: far) is never hidden under it, as on the dashboard's map.
_STATES = ((SETTLED, "settled"), (FAR, "far"), (NEAR, "near"))
ATTRIBUTION = "Map data © OpenStreetMap contributors"


def osm_data(graph: CSRGraph) -> bool:
    """Whether ``graph`` is OpenStreetMap's data, whose maps carry `ATTRIBUTION`: its weights
    are lengths or travel times, which only the OSM loaders give (not DIMACS or PACE files,
    nor a synthetic city)."""
    return graph.weight_kind in OSM_WEIGHTS


#: Height of the caption band, in pixels.
BAND = 66


def palette() -> list[int]:
    """The RGB palette of every picture, flattened as Pillow wants it."""
    return [int(c[k : k + 2], 16) for c in COLORS.values() for k in (1, 3, 5)]


def rgb(image) -> np.ndarray:
    """A palette image as an ``(H, W, 3)`` ``uint8`` array."""
    table = np.array(palette(), dtype=np.uint8).reshape(-1, 3)
    return table[np.asarray(image)]


def line_pixels(x0, y0, x1, y1) -> tuple[np.ndarray, np.ndarray]:
    """The pixels of straight segments from (x0, y0) to (x1, y1), in pixel units (a pixel's
    centre at a whole number): from the pixel of one end to the other's, one pixel a column
    or a row, whichever the segment crosses more of, so lines have no gaps (a segment
    within one pixel is that pixel)."""
    c0, r0, c1, r1 = (np.rint(np.asarray(a, dtype=np.float64)).astype(np.int64)
                      for a in (x0, y0, x1, y1))  # fmt: skip
    dc, dr = c1 - c0, r1 - r0
    steps = np.maximum(np.abs(dc), np.abs(dr))  # pixels after the first
    longer = np.flatnonzero(steps)  # (most roads of a city seen whole are a pixel or less)
    k = steps[longer]
    seg = np.repeat(longer, k)
    f = (np.arange(seg.size) - np.repeat(np.cumsum(k) - k, k) + 1) / steps[seg]
    cols = c0[seg] + np.rint(f * dc[seg]).astype(np.int64)
    rows = r0[seg] + np.rint(f * dr[seg]).astype(np.int64)
    return np.concatenate([c0, cols]), np.concatenate([r0, rows])


def road_segments(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """The two end nodes of each road, one per pair of opposite arcs, loops left out."""
    tails, heads = graph.sources, graph.indices
    lo, hi = np.minimum(tails, heads), np.maximum(tails, heads)
    # one sort, of keys in runs (the arcs' rows): NumPy's stable sort takes them
    keys = unique(lo.astype(np.int64) * graph.n_nodes + hi, kind="stable")
    a, b = keys // graph.n_nodes, keys % graph.n_nodes
    keep = a != b
    return a[keep], b[keep]


@functools.cache
def _font(size: int):
    """DejaVu Sans (matplotlib ships it; it has Δ and ·), at ``size`` pixels."""
    import matplotlib
    from PIL import ImageFont

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return ImageFont.truetype(str(path), size)


def parse_size(text: str) -> tuple[int, int]:
    """``"960x720"`` as (width, height), each 200–4096 pixels."""
    try:
        width, height = (int(v) for v in str(text).lower().split("x"))
    except ValueError:
        width = height = 0
    if not (200 <= width <= 4096 and 200 <= height <= 4096):
        msg = f"--size must be WIDTHxHEIGHT with each side 200–4096 pixels, got {text!r}"
        raise ParameterError(msg)
    return width, height


def default_size(graph: CSRGraph, width: int = 800) -> tuple[int, int]:
    """A picture ``width`` pixels wide whose height fits the graph's shape (300–1200)."""
    x, y = graph.mercator
    aspect = max(float(np.ptp(y)), 1.0) / max(float(np.ptp(x)), 1.0)
    height = int(min(max(BAND + 20 + (width - 20) * aspect, 300), 1200))
    return width, height + height % 2


class MapPainter:
    """Draws frames of searches on one graph at one size (roads rasterised once); the
    default size is `default_size`."""

    def __init__(self, graph: CSRGraph, size: tuple[int, int] | None = None):
        if graph.lon is None:
            msg = f"{graph.name} has no coordinates: there is no map to draw"
            raise ParameterError(msg)
        self.graph = graph
        self.size = size or default_size(graph)
        width, height = self.size
        x, y = graph.mercator
        margin = 10
        dx, dy = max(float(np.ptp(x)), 1.0), max(float(np.ptp(y)), 1.0)
        scale = min((width - 2 * margin) / dx, (height - BAND - 2 * margin) / dy)
        left = (width - dx * scale) / 2
        top = BAND + (height - BAND - dy * scale) / 2
        self.px = np.rint(left + (x - x.min()) * scale).astype(np.int64)
        self.py = np.rint(top + (y.max() - y) * scale).astype(np.int64)
        self.dot = 2 if graph.n_nodes > 20_000 else 3
        # Each node's pixel in the flattened image (nodes lie `margin` pixels inside it).
        self._pixel = (self.py * width + self.px).astype(
            np.int32 if width * height < 2**31 else np.int64
        )
        base = np.full((height, width), _INDEX["background"], dtype=np.uint8)
        a, b = road_segments(graph)
        self._paint_line(base, a, b, "road")
        self._base = base

    def _paint_line(
        self, image: np.ndarray, a: np.ndarray, b: np.ndarray, colour: str, width: int = 1
    ) -> None:
        px, py = line_pixels(self.px[a], self.py[a], self.px[b], self.py[b])
        h, w = image.shape
        for dx in range(width):
            for dy in range(width):
                image[np.clip(py + dy, 0, h - 1), np.clip(px + dx, 0, w - 1)] = _INDEX[colour]

    def _paint_nodes(self, image: np.ndarray, nodes: np.ndarray, colour: str, dot: int) -> None:
        h, w = image.shape
        for dy in range(dot):
            for dx in range(dot):
                image[
                    np.clip(self.py[nodes] + dy - dot // 2, 0, h - 1),
                    np.clip(self.px[nodes] + dx - dot // 2, 0, w - 1),
                ] = _INDEX[colour]

    def _paint_states(self, image: np.ndarray, states: np.ndarray) -> None:
        """Paint each node a `dot`-pixel square of its state's colour, the states in the
        order of `_STATES` (a later one over an earlier one): each pixel first takes the
        latest state among the nodes there, then each square the latest within it. The same
        picture as painting the states' squares in turn, in a sixth of the time on a
        16M-node city (one pass a state over the nodes, none a square's pixel)."""
        h, w = image.shape
        top = np.zeros(h * w, dtype=np.uint8)
        for k, (code, _colour) in enumerate(_STATES, 1):
            top[self._pixel[states == code]] = k
        top = top.reshape(h, w)
        grown = np.zeros_like(top)
        lo = -(self.dot // 2)  # a node's square spans offsets lo .. lo + dot - 1
        for dy in range(lo, lo + self.dot):
            for dx in range(lo, lo + self.dot):
                src = top[max(-dy, 0) : h - max(dy, 0), max(-dx, 0) : w - max(dx, 0)]
                dst = grown[max(dy, 0) : h - max(-dy, 0), max(dx, 0) : w - max(-dx, 0)]
                np.maximum(dst, src, out=dst)
        colours = np.array([0] + [_INDEX[c] for _code, c in _STATES], dtype=np.uint8)
        np.copyto(image, colours[grown], where=grown > 0)

    def frame(self, result: SSSPResult, frame: int):
        """Frame ``frame`` of ``result`` as a Pillow palette image."""
        from PIL import Image, ImageDraw

        rec = result.recording
        image = self._base.copy()
        self._paint_states(image, rec.states(frame))
        target = result.target
        if target is not None and 0 <= rec.settled_at[target] <= frame:
            route = np.asarray(result.path_to(target), dtype=np.int64)
            self._paint_line(image, route[:-1], route[1:], "source", width=3)
        marks = [(result.source, "source")] + ([(target, "target")] if target is not None else [])
        for node, colour in marks:
            self._paint_nodes(image, np.array([node]), colour, 9)
        picture = Image.fromarray(image, mode="P")
        picture.putpalette(palette())
        self._caption(ImageDraw.Draw(picture), result, frame)
        return picture

    def _caption(self, draw, result: SSSPResult, frame: int) -> None:
        s = result.recording.snapshot(frame)
        method = METHODS[result.method].title
        delta = f"Δ {result.delta_text}"
        last = len(result.recording) - 1
        lines = (
            f"{method} · {delta} · batch {result.batch_size}",
            f"iteration {s.iteration:,} of {last:,} · phase {s.phase:,}",
        )
        for k, line in enumerate(lines):
            draw.text((10, 4 + 18 * k), line, fill=_INDEX["text"], font=_font(14))
        x, y = 10, 44
        for count, name in ((s.far, "far"), (s.near, "near"), (s.settled, "settled")):
            draw.rectangle((x, y + 3, x + 10, y + 13), fill=_INDEX[name])
            label = f"{name} {count:,}"
            draw.text((x + 15, y), label, fill=_INDEX["text"], font=_font(13))
            x += 30 + int(draw.textlength(label, font=_font(13)))
        for node_colour, label in (("source", "source"), ("target", "target")):
            if label == "target" and result.target is None:
                continue
            draw.rectangle((x, y + 3, x + 10, y + 13), fill=_INDEX[node_colour])
            draw.text((x + 15, y), label, fill=_INDEX["text"], font=_font(13))
            x += 30 + int(draw.textlength(label, font=_font(13)))
        if osm_data(self.graph):
            width, height = self.size
            font = _font(11)
            w = draw.textlength(ATTRIBUTION, font=font)
            draw.text((width - w - 6, height - 16), ATTRIBUTION, fill=_INDEX["muted"], font=font)
