"""The rasterised map of large graphs (viz.raster): frames equal the recording's node states
pixel by pixel, roads follow the viewport, and the map view sends one image per frame."""

import numpy as np
import pytest

import engine
from engine.backends import raster as _gpu_raster
from engine.graphs import synthetic
from engine.media.render import road_segments
from engine.recording import FAR, NEAR, SETTLED, UNREACHED
from viz import raster


@pytest.fixture(scope="module")
def city_run():
    graph = synthetic.city(6_000, seed=3)
    result = engine.sssp(graph, graph.n_nodes // 2, backend="cpu", delta=400, record=True)
    return graph, result


def _rasterizer(graph, width=300, gpu=None):
    """A map of ``graph`` ``width`` pixels across; its frames drawn as the app draws them
    (on the GPU where one is), or by NumPy (``gpu=False``) or the GPU (``gpu=True``)."""
    from viz.geometry import Geometry

    geo = Geometry(graph)
    if gpu is None:
        nodes = geo.gpu_nodes
    else:
        nodes = _gpu_raster.NodeRaster(geo.x, geo.y) if gpu else None
    roads = raster.gpu_roads(nodes, *road_segments(graph))
    r = raster.Rasterizer(geo.x, geo.y, geo.segments, nodes=nodes, roads=roads)
    (x0, x1), (y0, y1) = geo.bounds()
    height = round(width * (y1 - y0) / (x1 - x0))
    r.set_viewport(raster.Viewport.fit(x0, x1, y0, y1, width, height))
    return geo, r


def _expected(viewport, x, y, ranks):
    """Each pixel's highest node rank, computed independently of the rasterizer."""
    col, row = viewport.pixel_of(x, y)
    inside = col >= 0
    top = np.zeros((viewport.height, viewport.width), dtype=np.int64)
    np.maximum.at(top, (row[inside], col[inside]), ranks[inside])
    return top


def test_state_ranks_put_the_frontier_on_top():
    rank = raster.STATE_RANK
    assert rank[UNREACHED] == 0 < rank[SETTLED] < rank[FAR] < rank[NEAR]


def test_frames_equal_the_recorded_states_at_sampled_pixels(city_run):
    graph, result = city_run
    geo, r = _rasterizer(graph)
    assert r.radius == 0  # zoomed out: one pixel a node
    rec = result.recording
    rng = np.random.default_rng(0)
    for frame in (0, len(rec) // 3, len(rec) - 1):
        ranks = raster.STATE_RANK[rec.states(frame)]
        image = r.states_image(rec, frame)  # as the app draws a recorded frame
        want = _expected(r.viewport, geo.x, geo.y, ranks)
        # pixels holding nodes, away from the pixel borders where rounding may differ
        col, row = r.viewport.pixel_of(geo.x, geo.y)
        fx = (geo.x - r.viewport.x0) / (r.viewport.x1 - r.viewport.x0) * r.viewport.width
        fy = (geo.y - r.viewport.y0) / (r.viewport.y1 - r.viewport.y0) * r.viewport.height
        clear = (np.abs(fx - np.round(fx)) > 0.01) & (np.abs(fy - np.round(fy)) > 0.01)
        picks = rng.choice(np.flatnonzero(clear & (col >= 0)), 300, replace=False)
        checked = 0
        for node in picks:
            y, x = row[node], col[node]
            pixel_nodes = (row == y) & (col == x)
            if not (clear[pixel_nodes]).all():
                continue
            got = int(image[y, x])
            checked += 1
            if want[y, x] > 0:
                assert got == raster.ROAD + want[y, x], (frame, node)
            else:  # no node drawn: the roads show
                assert got in (raster.EMPTY, raster.ROAD)
        assert checked > 200
        states = rec.states(frame)
        assert (image > raster.ROAD).sum() <= np.count_nonzero(states)
        assert ((image == raster.ROAD + raster.STATE_RANK[NEAR]).any()) == bool(
            (states == NEAR).any()
        ) or frame == 0


def test_roads_follow_the_viewport_and_nodes_grow_when_zoomed_in(city_run):
    graph, _ = city_run
    geo, r = _rasterizer(graph)
    whole = r.image(np.zeros(graph.n_nodes, dtype=np.uint8))
    assert set(np.unique(whole)) == {raster.EMPTY, raster.ROAD}
    assert (whole == raster.ROAD).mean() > 0.2
    v = r.viewport
    cx, cy, w, h = (v.x0 + v.x1) / 2, (v.y0 + v.y1) / 2, (v.x1 - v.x0) / 20, (v.y1 - v.y0) / 20
    r.set_viewport(raster.Viewport.fit(cx - w, cx + w, cy - h, cy + h, v.width, v.height))
    assert r.radius == 2
    node = geo.nearest(cx, cy)
    ranks = np.zeros(graph.n_nodes, dtype=np.uint8)
    ranks[node] = 3
    image = r.image(ranks)
    col, row = r.viewport.pixel_of(geo.x[[node]], geo.y[[node]])
    assert (image == raster.ROAD + 3).sum() == 25  # a 5 × 5 square around the node
    assert image[row[0], col[0]] == raster.ROAD + 3


@pytest.mark.gpu
def test_gpu_frames_equal_the_cpus_at_every_pixel(city_run):
    graph, result = city_run
    rec = result.recording
    other = engine.sssp(graph, 7, backend="cpu", delta=900, record=True).recording
    _, cpu = _rasterizer(graph, gpu=False)
    _, gpu = _rasterizer(graph, gpu=True)
    v = cpu.viewport
    w, h = v.x1 - v.x0, v.y1 - v.y0
    views = [
        v,  # the whole graph
        raster.Viewport(v.x0 + w / 3, v.x0 + w / 2, v.y0 + h / 4, v.y0 + h / 3, 640, 400),
        raster.Viewport(v.x0 - w, v.x1 - w / 2, v.y0, v.y1 + h, 333, 517),  # partly outside
    ]
    nodes_drawn = 0
    for view in views:
        cpu.set_viewport(view)
        gpu.set_viewport(view)
        for frame in (0, len(rec) // 3, len(rec) - 1):
            ranks = raster.STATE_RANK[rec.states(frame)]
            want = cpu.image(ranks)
            assert np.array_equal(gpu.image(ranks), want), (view, frame)
            # the states computed on the GPU from its copy of the stamps
            assert np.array_equal(gpu.states_image(rec, frame), want), (view, frame)
            nodes_drawn += int((want > raster.ROAD).sum())
        for frame in (1, len(other) // 2):  # another recording: its own stamps are copied
            want = cpu.image(raster.STATE_RANK[other.states(frame)])
            assert np.array_equal(gpu.states_image(other, frame), want), (view, frame)
    assert nodes_drawn > 1_000
    empty = np.zeros(0, dtype=np.uint8)
    none = empty.astype(float)
    tiny = raster.Rasterizer(none, none, (none,) * 4, nodes=_gpu_raster.NodeRaster(none, none))
    tiny.set_viewport(raster.Viewport(0.0, 1.0, 0.0, 1.0, 5, 3))
    assert not tiny.image(empty).any()


@pytest.mark.gpu
def test_gpu_roads_are_the_cpus_at_every_pixel():
    """The roads' kernel finds the pixels `draw_roads` finds: roads wholly in the view (drawn
    uncut), cut by its edges, along them, outside them, and a pixel or less long."""
    rng = np.random.default_rng(11)
    n = 3_000
    x, y = rng.uniform(0.0, 1000.0, n), rng.uniform(0.0, 600.0, n)
    x[:40], y[40:80] = 250.0, 150.0  # vertical and horizontal roads, on a view's edge
    x[80:90], y[80:90] = x[90:100] + 1e-3, y[90:100]  # shorter than a pixel
    a, b = rng.integers(0, n, 20_000), rng.integers(0, n, 20_000)
    a[:400], b[:400] = rng.integers(0, 40, 400), rng.integers(0, 40, 400)
    a[400:800], b[400:800] = rng.integers(40, 80, 400), rng.integers(40, 80, 400)
    a[800:810], b[800:810] = np.arange(80, 90), np.arange(90, 100)
    segments = (x[a], y[a], x[b], y[b])
    roads = _gpu_raster.RoadRaster(_gpu_raster.NodeRaster(x, y), a, b)
    views = [
        raster.Viewport(-1.0, 1001.0, -1.0, 601.0, 1500, 900),  # every road in it
        raster.Viewport(250.0, 500.0, 150.0, 300.0, 640, 400),  # edges on the straight roads
        raster.Viewport(-500.0, 700.0, 100.0, 1200.0, 333, 517),  # partly outside
        raster.Viewport(1100.0, 1200.0, 0.0, 600.0, 50, 300),  # beside every road
        raster.Viewport(300.0, 300.5, 200.0, 200.5, 800, 800),  # a pixel is 1/1600 across
    ]
    for v in views:
        want = raster.draw_roads(segments, v)
        got = roads.draw((v.x0, v.x1), (v.y0, v.y1), v.width, v.height)
        assert got.shape == want.shape and np.array_equal(got, want), v
    assert raster.draw_roads(segments, views[0]).sum() > 100_000
    assert not raster.draw_roads(segments, views[3]).any()
    none = np.zeros(0, dtype=np.int64)
    empty = _gpu_raster.RoadRaster(_gpu_raster.NodeRaster(x, y), none, none)
    assert not empty.draw((0.0, 1.0), (0.0, 1.0), 5, 3).any()


@pytest.mark.gpu
def test_gpu_frames_draw_every_node_of_a_large_graph():
    """More nodes than a GPU runs threads at once (the kernels were first compiled for
    cooperative launches, and CuPy cut their grids to one wave: 3/4 of a 1M-node city's
    nodes went undrawn on an H100)."""
    from engine.recording import Recording

    n = 1_200_000
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0.0, 1000.0, n), rng.uniform(0.0, 600.0, n)
    roads = (x[:1], y[:1], x[1:2], y[1:2])
    cpu = raster.Rasterizer(x, y, roads)
    gpu = raster.Rasterizer(x, y, roads, nodes=_gpu_raster.NodeRaster(x, y))
    view = raster.Viewport(0.0, 1000.0, 0.0, 600.0, 1500, 900)
    cpu.set_viewport(view)
    gpu.set_viewport(view)
    last = np.zeros(n, dtype=np.uint8)
    last[-1000:] = 3  # only the last nodes drawn: the ones a cut grid would miss
    for ranks in (rng.integers(0, 4, n, dtype=np.uint8), last):
        want = cpu.image(ranks)
        assert np.array_equal(gpu.image(ranks), want)
    assert (want > raster.ROAD).sum() > 900
    stamps = tuple(rng.integers(-1, 50, n).astype(np.int32) for _ in range(3))
    rec = Recording(n, delta=1, with_buckets=False, stamps=stamps)
    for frame in (0, 20, 49):
        want = cpu.image(raster.STATE_RANK[rec.states(frame)])
        assert np.array_equal(gpu.states_image(rec, frame), want), frame


@pytest.mark.parametrize("parts", [1, 2, 3, 5])
@pytest.mark.parametrize("size", [0, 1, 7, 50_001])
def test_deflate_in_slices_is_one_zlib_stream(parts, size):
    import zlib

    data = np.random.default_rng(size).integers(0, 3, size).astype(np.uint8).tobytes()
    assert zlib.decompress(raster._deflate(data, parts)) == data


def test_viewport_fits_the_largest_side():
    v = raster.Viewport.fit(0, 2, 0, 1, 3200, 1600)
    assert (v.width, v.height) == (1600, 800)
    assert raster.Viewport.fit(0, 1, 0, 1, 640, 400).width == 640


def _picture(url: str):
    """The PNG image of a ``data:`` URL."""
    import base64
    import io

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def _values(url: str) -> np.ndarray:
    """A rasterised frame's values (row 0 at the bottom) from its PNG URL."""
    return np.array(_picture(url))[::-1]


def test_png_keeps_every_value_and_the_palette():
    image = np.zeros((30, 50), dtype=np.uint8)
    image[3:9, 4:20] = raster.ROAD
    image[20, 7] = raster.ROAD + 3
    colors = raster.palette(("#999999", "#000000", "#56b4e9", "#e69f00"), "#d0d0d0")
    url = raster.png(image, colors)
    assert np.array_equal(_values(url), image)
    rgba = _picture(url).convert("RGBA")
    assert rgba.getpixel((7, 29 - 20)) == (0xE6, 0x9F, 0x00, 255)  # near, from the top
    assert rgba.getpixel((4, 29 - 3)) == (0xD0, 0xD0, 0xD0, 255)  # a road
    assert rgba.getpixel((0, 0))[3] == 0  # empty is transparent


@pytest.mark.parametrize(("n_colors", "width"), [(5, 51), (5, 1), (16, 8), (17, 33), (256, 7)])
def test_png_keeps_random_values_at_any_width_and_palette_size(n_colors, width):
    rng = np.random.default_rng(n_colors * 1000 + width)
    image = rng.integers(0, n_colors, (23, width)).astype(np.uint8)
    colors = [f"#{v:06x}" for v in rng.integers(0, 1 << 24, n_colors)]
    picture = _picture(raster.png(image, colors))
    assert np.array_equal(np.array(picture)[::-1], image)
    palette = picture.getpalette()[: 3 * n_colors]
    assert bytes(palette).hex() == "".join(c[1:] for c in colors)


@pytest.fixture
def town_map(monkeypatch, tmp_path):
    """A session on a 3,000-node synthetic town drawn as images, and its map view."""
    from viz import geometry
    from viz.citymap import MapView
    from viz.state import Session

    monkeypatch.setattr(geometry, "RASTER_ABOVE", 1_000)
    gr, _ = synthetic.write_city(tmp_path / "town", 3_000, seed=1)
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    s = Session()
    assert s.load_path(str(gr)), s.error
    return s, MapView(s)


def test_map_view_sends_one_image_per_frame(monkeypatch, town_map):
    s, view = town_map
    assert s.loaded.geometry.rasterized and not hasattr(view, "_nodes")
    gpu = engine.gpu_available()  # the nodes and the roads drawn there where a GPU is
    assert (view._raster._nodes is not None) == (view._raster._gpu_roads is not None) == gpu
    image = _values(view._image.data["url"][0])
    assert image.shape[1] == raster.MAX_SIDE
    placement = {k: view._image.data[k] for k in ("x", "y", "w", "h")}
    run = s.runs[0]
    s.seek(run.n_frames - 1)
    last = _values(view._image.data["url"][0])
    assert (last > raster.ROAD).sum() > (image > raster.ROAD).sum()
    assert np.array_equal(last, view._raster.image(raster.STATE_RANK[run.states(s.frame)]))
    assert {k: view._image.data[k] for k in placement} == placement  # only the image changed
    s.layer = "work"
    assert len(view._raster_colors()) == 2 + 4
    assert _values(view._image.data["url"][0]).max() > raster.ROAD

    class Zoom:  # what Bokeh's RangesUpdate event carries
        x0, x1 = placement["x"][0], placement["x"][0] + placement["w"][0] / 4
        y0, y1 = placement["y"][0], placement["y"][0] + placement["h"][0] / 4

    monkeypatch.setattr("viz.citymap.RangesUpdate", Zoom)
    view._on_view(Zoom())
    assert view._image.data["x"] == [Zoom.x0] and view._image.data["w"] == [Zoom.x1 - Zoom.x0]


def test_a_map_replacing_a_laid_out_one_sends_its_first_image_with_its_figure(
    monkeypatch, tmp_path
):
    """Issue 54: in a served page, a rasterised map that replaces one the browser has laid
    out is drawn at that one's size before the page has it, so its first image travels with
    the figure; the browser's layout, the same size, does not send it again."""
    from viz import citymap, geometry
    from viz.state import Session

    monkeypatch.setattr(geometry, "RASTER_ABOVE", 1_000)
    monkeypatch.setattr(citymap, "served", lambda: object())  # a page's server
    village, _ = synthetic.write_city(tmp_path / "village", 500, seed=2)
    gr, _ = synthetic.write_city(tmp_path / "town", 3_000, seed=1)
    monkeypatch.setenv("FRONTIER_DATA_DIRS", str(tmp_path))
    s = Session()
    assert s.load_path(str(village)), s.error  # drawn with glyphs
    assert not s.loaded.geometry.rasterized
    view = citymap.MapView(s)
    view._pane.object.set_from_json("inner_width", 1235)  # as the browser reports its layout
    view._pane.object.set_from_json("inner_height", 590)
    assert s.load_path(str(gr)), s.error
    assert view._unsent  # not on the page yet ...
    first = view._image.data["url"][0]  # ... and its first image drawn
    assert _values(first).shape == (590, 1235)
    fig = view._pane.object
    fig.set_from_json("inner_width", 1235)  # the page has it, laid out the same
    fig.set_from_json("inner_height", 590)
    assert not view._unsent and view._image.data["url"][0] is first  # not sent again


def test_the_centre_node_is_found_without_the_k_d_tree(tmp_path):
    """Issue 54: a new session's source, the node nearest the map's centre, is the one the
    k-d tree finds, without making the tree (0.2-0.3 s on a 1M-node city)."""
    from viz.geometry import Geometry

    gr, _ = synthetic.write_city(tmp_path / "town", 3_000, seed=4)
    for graph in (engine.load_graph("helsinki"), engine.load_graph(str(gr))):
        geo = Geometry(graph)
        centre = geo.centre_node()
        assert "_tree" not in vars(geo)
        cx, cy = (geo.x.min() + geo.x.max()) / 2, (geo.y.min() + geo.y.max()) / 2
        assert centre == geo.nearest(cx, cy)


def test_widen_to_keeps_the_centre_and_reaches_the_aspect():
    assert raster.widen_to(0, 10, 0, 10, 2.0) == (-5, 15, 0, 10)
    assert raster.widen_to(0, 10, 0, 10, 0.5) == (0, 10, -5, 15)
    assert raster.widen_to(0, 20, 0, 10, 2.0) == (0, 20, 0, 10)


def test_map_image_has_the_frame_size_and_the_map_keeps_its_shape(town_map):
    _, view = town_map
    fig = view._fig
    (x0, x1), (y0, y1) = (fig.x_range.start, fig.x_range.end), (fig.y_range.start, fig.y_range.end)
    fig.set_from_json("inner_width", 1235)  # as the browser reports its layout
    fig.set_from_json("inner_height", 590)
    assert _values(view._image.data["url"][0]).shape == (590, 1235)
    xr, yr = fig.x_range, fig.y_range
    assert (xr.end - xr.start) / (yr.end - yr.start) == pytest.approx(1235 / 590)
    assert (yr.start, yr.end) == (y0, y1)  # the wider frame widened the view across
    assert (xr.start + xr.end) / 2 == pytest.approx((x0 + x1) / 2)
    v = view._raster.viewport
    assert (v.x0, v.x1, v.y0, v.y1) == (xr.start, xr.end, yr.start, yr.end)
    placed = {k: view._image.data[k][0] for k in ("x", "y", "w", "h")}
    assert placed == {"x": xr.start, "y": yr.start, "w": xr.end - xr.start, "h": y1 - y0}


def test_roads_are_drawn_without_gaps_and_clipped_to_the_view():
    """Decision 0085: NumPy draws the roads. A segment lights the pixels between its ends
    without a gap; one partly outside the view is cut at its edge; one outside draws
    nothing."""
    v = raster.Viewport(0.0, 10.0, 0.0, 5.0, 10, 5)  # one unit a pixel
    f = np.array

    def drawn(*segments):
        x0, y0, x1, y1 = (f([seg[k] for seg in segments], dtype=float) for k in range(4))
        return raster.draw_roads((x0, y0, x1, y1), v)

    across = drawn((0.5, 2.5, 9.5, 2.5))
    assert across[2].all() and across.sum() == 10
    steep = drawn((1.5, 0.2, 3.5, 4.8))  # across 5 rows and 3 columns: every row, no gap
    rows, cols = np.nonzero(steep)
    assert set(rows) == {0, 1, 2, 3, 4} and set(cols) == {1, 2, 3}
    cut = drawn((-20.0, 1.5, 4.5, 1.5))  # from far outside on the left
    assert cut[1, :5].all() and cut.sum() == 5
    assert not drawn((11.0, 0.0, 30.0, 4.0), (-5.0, -1.0, 20.0, -3.0)).any()
    on_edge = drawn((10.0, 0.0, 10.0, 5.0))  # the far edge: the last column
    assert on_edge[:, 9].all() and on_edge.sum() == 5
    assert raster.draw_roads((f([]), f([]), f([]), f([])), v).shape == (5, 10)


def test_node_pixels_are_datashaders():
    """The nodes' pixels as Datashader's ``Canvas.points`` maps them (the GPU's kernel maps
    them so too): the far edge of the view is the last pixel, nodes outside are left out,
    and a pixel shows its highest rank."""
    v = raster.Viewport(0.0, 4.0, 0.0, 2.0, 4, 2)
    x = np.array([0.0, 0.999, 1.0, 4.0, 4.0001, 2.5, 2.6, -1.0])
    y = np.array([0.0, 0.5, 1.5, 2.0, 1.0, 0.5, 0.7, 1.0])
    r = raster.Rasterizer(x, y, (np.zeros(0),) * 4, nodes=None)
    r.set_viewport(v)
    ranks = np.array([1, 2, 3, 1, 3, 1, 3, 3], dtype=np.uint8)
    image = r.image(ranks)
    assert (image - (image > raster.ROAD)).tolist() == [[2, 0, 3, 0], [0, 3, 0, 1]]
