"""The map: roads, node states per frame, source, target, route and the threshold band."""

from __future__ import annotations

import functools

import numpy as np
import panel as pn
from bokeh.core.property.descriptors import UnsetValueError
from bokeh.events import RangesUpdate, Tap
from bokeh.models import ColumnDataSource, LinearColorMapper, Range1d
from bokeh.plotting import figure

from engine.graphs import osm
from engine.media.render import osm_data

from . import raster, style
from ._page import served
from .geometry import Geometry
from .runview import RunView
from .state import Session

#: Node colours by drawing rank on a rasterised map (`raster.STATE_RANK`).
RANKED_STATE_COLORS = tuple(
    style.STATE_COLORS[code] for code in np.argsort(raster.STATE_RANK, kind="stable")
)


#: The map box's height in pixels, on a screen and on a projector (presentation mode): the
#: map fills the view below the player, the search bar and the caption at 1400×900 and at
#: 1920×1080; the city is fitted into it, its shape kept.
MAP_HEIGHT, PRESENT_MAP_HEIGHT = 580, 840


@functools.cache
def tiles_available() -> bool:
    """Whether to draw a basemap: the server is online (``FRONTIER_OFFLINE=1`` says no)."""
    return osm.online(timeout=2.0)


def _frame_size(fig) -> tuple[int, int] | None:
    """The plot frame's size in pixels as the browser laid ``fig`` out (None before)."""
    try:
        width, height = fig.inner_width, fig.inner_height
    except (AttributeError, UnsetValueError):
        return None
    return (width, height) if width and height else None


class MapView(RunView):
    """The city map of one run (``slot`` 0, or 1 in the comparison)."""

    def __init__(self, session: Session, slot: int = 0, **params):
        super().__init__(session, slot, **params)
        self._pane = pn.pane.Bokeh(sizing_mode="stretch_width", css_classes=["frontier-map"])
        self._empty = pn.pane.Alert(
            "This graph has no coordinates: there is no map to draw; the charts and the "
            "stats still follow the search.",
            alert_type="light",
        )
        self._note = pn.pane.HTML(style.ATTRIBUTION, styles={"font-size": "11px"}, margin=(0, 5))
        self._layout = pn.Column(self._pane, self._note, sizing_mode="stretch_width")
        self._graph = None
        self._unsent = False  # a figure just built, not drawn on until it is on the page
        self._laid_out_before = (0, 0)  # the size of the map a new one replaces
        session.param.watch(self._on_layer, "layer")
        session.param.watch(self._on_marked, "marked")
        session.param.watch(self._on_present, "present")
        self._follow()

    def _build(self) -> None:
        loaded = self.session.loaded
        geo = loaded.geometry
        self._graph = loaded.graph
        self._note.visible = osm_data(loaded.graph)  # the exports' rule
        self._laid_out_before = _frame_size(self._pane.object) or (0, 0)  # the map it replaces
        if geo is None:
            self._layout[0] = self._empty
            return
        self._raster = geo.rasterizer() if geo.rasterized else None
        fig = self._figure(geo)
        if tiles_available():
            import xyzservices.providers as xyz

            fig.add_tile(xyz.CartoDB.Positron, retina=True)
        if self._raster is None:
            url, (x, y, w, h) = geo.roads_image(style.ROAD)
            fig.image_url(url=[url], x=x, y=y, w=w, h=h, anchor="bottom_left")
        self._ring = ColumnDataSource(dict(x=[0.0], y=[0.0], inner=[0.0], outer=[0.0]))
        fig.annulus(
            x="x",
            y="y",
            inner_radius="inner",
            outer_radius="outer",
            source=self._ring,
            fill_color=style.RING,
            fill_alpha=0.07,
            line_color=style.RING,
            line_alpha=0.35,
        )
        self._mappers = {
            "states": LinearColorMapper(palette=list(style.STATE_COLORS), low=-0.5, high=3.5),
            "work": LinearColorMapper(palette=list(style.WORK_COLORS), low=-0.5, high=4.5),
        }
        # The same nodes again, over the first dots, in the colours that must not be hidden
        # (near and far; relaxed twice or more): Bokeh draws a glyph's points in index order,
        # so a settled node's dot covered a near neighbour's drawn before it.
        self._top_mappers = {
            layer: LinearColorMapper(palette=[c if k in keep else style.CLEAR for k, c in
                                              enumerate(mapper.palette)],
                                     low=mapper.low, high=mapper.high)
            for (layer, mapper), keep in zip(self._mappers.items(), ((1, 2), (2, 3, 4)),
                                            strict=True)
        }  # fmt: skip
        if self._raster is None:
            zeros = np.zeros(len(geo.x), dtype=np.uint8)
            self._nodes = ColumnDataSource(dict(x=geo.x, y=geo.y, state=zeros, work=zeros))
            self._dots, self._top = (
                fig.scatter("x", "y", source=self._nodes, size=size, line_color=None,
                            marker="square", fill_color=self._fill(mappers))
                for size, mappers in ((4, self._mappers), (5, self._top_mappers))
            )  # fmt: skip
            # The map fits the nodes (the roads' extent): the ring never zooms it out.
            fig.x_range.renderers = fig.y_range.renderers = [self._dots]
        else:
            self._image = ColumnDataSource(dict(url=[], x=[], y=[], w=[], h=[]))
            self._drawn = None  # the run, frame, layer and viewport of the image on show
            fig.image_url(url="url", x="x", y="y", w="w", h="h", anchor="bottom_left",
                          source=self._image)  # fmt: skip
            fig.on_event(RangesUpdate, self._on_view)
            fig.on_change("inner_width", lambda _attr, _old, _new: self._on_view())
            fig.on_change("inner_height", lambda _attr, _old, _new: self._on_view())
            self._fig = fig
        self._route = ColumnDataSource(dict(x=[], y=[]))
        self._route_line = fig.line(
            "x", "y", source=self._route, color=style.ROUTE, line_width=4, alpha=0.8
        )
        self._marks = ColumnDataSource(dict(x=[], y=[], color=[], marker=[]))
        fig.scatter(
            "x",
            "y",
            source=self._marks,
            color="color",
            marker="marker",
            size=14,
            line_color="white",
            line_width=2,
        )
        self._asked = ColumnDataSource(dict(x=[], y=[], label=[]))
        fig.scatter("x", "y", source=self._asked, size=22, fill_color="white",
                    line_color=style.TARGET, line_width=3)  # fmt: skip
        fig.text("x", "y", text="label", source=self._asked, text_align="center",
                 text_baseline="middle", text_font_style="bold", text_font_size="12px")  # fmt: skip
        fig.on_event(Tap, self._on_tap)
        self._unsent = True
        if self._raster is not None and self._laid_out_before != (0, 0) and self._run is not None:
            # The first image goes with the figure (drawn before the page has it, as its
            # first state), at the size of the map it replaces. Before, it waited for the
            # browser to lay the new map out and say so, then for the roads: a 1M-node
            # city's map showed empty 0.6 s on an H200 machine (decision 0097).
            self._on_view()
            self._draw_raster(self._run, self.session.frame)
        self._on_marked()  # as its first state: sent after it, the page could not apply it
        self._pane.object = fig
        self._layout[0] = self._pane

    def _figure(self, geo: Geometry):
        """A map figure: the graph's own shape; a rasterised map gets fixed ranges (the
        images follow the view, so the view must not follow them)."""
        if geo.rasterized:
            (x0, x1), (y0, y1) = geo.bounds()
            options = dict(x_range=Range1d(x0, x1), y_range=Range1d(y0, y1))
        else:
            options = dict(match_aspect=True)
        fig = figure(
            x_axis_type="mercator",
            y_axis_type="mercator",
            tools="pan,wheel_zoom,reset,save",
            active_scroll="wheel_zoom",
            output_backend="canvas",  # faster than WebGL where the browser has no GPU
            sizing_mode="stretch_width",  # a box of the view's shape; the city fitted in it
            height=self._height(),
            **options,
        )
        fig.axis.visible = False
        fig.grid.visible = False
        fig.toolbar.logo = None
        fig.toolbar.autohide = True  # pan, zoom, reset and save show on hover
        return fig

    def _height(self) -> int:
        return PRESENT_MAP_HEIGHT if self.session.present else MAP_HEIGHT

    def _on_present(self, *_events) -> None:
        fig = self._pane.object
        if fig is not None:
            fig.height = self._height()

    def _raster_colors(self) -> list[str]:
        """The rasterised image's palette for the layer on show."""
        colors = RANKED_STATE_COLORS if self.session.layer == "states" else style.WORK_COLORS
        return raster.palette(colors, style.ROAD)

    def _on_view(self, *events) -> None:
        """Pan, zoom or resize: rasterise the roads for the new view and redraw the frame.

        Once the browser has laid the map out, the image has the plot frame's own size in
        pixels (drawn unscaled), and a view whose shape differs from the frame's (the first
        layout, a resize) is widened to it, so that the map keeps its shape, as Bokeh's
        ``match_aspect`` does for the small graphs' glyphs. Until then, a map that replaced
        another takes that one's size.
        """
        fig = self._fig
        x0, x1, y0, y1 = fig.x_range.start, fig.x_range.end, fig.y_range.start, fig.y_range.end
        if events and isinstance(events[0], RangesUpdate):  # the ranges as the browser has them
            x0, x1, y0, y1 = events[0].x0, events[0].x1, events[0].y0, events[0].y1
        width, height = _frame_size(fig) or self._laid_out_before
        if width and height:
            view = raster.widen_to(x0, x1, y0, y1, width / height)
            if not np.allclose(view, (x0, x1, y0, y1), rtol=0, atol=1e-6 * (x1 - x0)):
                x0, x1, y0, y1 = view  # only a change of shape moves the browser's view
                fig.x_range.update(start=x0, end=x1)
                fig.y_range.update(start=y0, end=y1)
        else:  # the browser has not laid the map out yet
            width = raster.MAX_SIDE
            height = round(width * (y1 - y0) / max(x1 - x0, 1e-9))
        self._raster.set_viewport(raster.Viewport.fit(x0, x1, y0, y1, width, height))
        self._on_frame()

    def _on_runs(self, *_events) -> None:
        run = self._run
        if run is None:
            return
        if self.session.loaded.graph is not self._graph:
            self._build()
            # Drawn once the new figure is on the page: changes made to it before the browser
            # had it were lost (a paused page showed no states, source or target; B's map the
            # route before its target settled; a lesson's B nothing at all, though it was
            # drawn on the tick after it was sent). In a served page the browser's first
            # layout of the figure (its inner width) says so; elsewhere it is at once.
            fig = self._pane.object
            if served() is None:
                self._when_on_page(fig)
            else:
                fig.on_change("inner_width", lambda _a, _o, _n: self._when_on_page(fig))
            return
        if self._unsent:
            return
        geo = self.session.loaded.geometry
        if geo is None:
            return
        result = run.result
        marks = [(result.source, style.SOURCE, "circle")]
        if result.target is not None:
            marks.append((result.target, style.TARGET, "square"))
        nodes = [m[0] for m in marks]
        self._marks.data = dict(
            x=geo.x[nodes],
            y=geo.y[nodes],
            color=[m[1] for m in marks],
            marker=[m[2] for m in marks],
        )
        self._route.data = dict(x=geo.x[run.route], y=geo.y[run.route])
        self._on_frame()

    def _when_on_page(self, fig) -> None:
        """Draw the run on ``fig``, now on the page, unless another figure replaced it or
        it was drawn already."""
        if fig is self._pane.object and self._unsent:
            self._unsent = False
            self._on_runs()

    def _on_marked(self, *_events) -> None:
        """The nodes a question asks about, labelled A, B, C."""
        geo = self.session.loaded.geometry
        if self._graph is None or geo is None or self.session.loaded.graph is not self._graph:
            return
        nodes = [v for v in self.session.marked if v < len(geo.x)]
        self._asked.data = dict(x=geo.x[nodes], y=geo.y[nodes], label=list("ABC"[: len(nodes)]))

    def _fill(self, mappers: dict) -> dict:
        field = "state" if self.session.layer == "states" else "work"
        return {"field": field, "transform": mappers[self.session.layer]}

    def _on_layer(self, *_events) -> None:
        if self._graph is not None and self.session.loaded.geometry is not None:
            if self._raster is None:
                self._dots.glyph.fill_color = self._fill(self._mappers)
                self._top.glyph.fill_color = self._fill(self._top_mappers)
            self._on_frame()  # a rasterised map's next image has the layer's palette

    def _on_frame(self, *_events) -> None:
        run = self._run
        geo = self.session.loaded.geometry
        if run is None or geo is None or self.session.loaded.graph is not self._graph:
            return
        if self._unsent:
            return
        frame = self.session.frame
        if self._raster is not None:
            self._draw_raster(run, frame)
        elif self.session.layer == "states":  # one column replaced per frame
            self._nodes.data["state"] = run.states(frame)
        else:
            self._nodes.data["work"] = run.work(frame)
        visible = run.route_visible(frame)
        if self._route_line.visible != visible:  # a property set costs even when unchanged
            self._route_line.visible = visible
        counts = run.readout(frame)
        inner, outer = counts["lo"] * geo.scale, counts["hi"] * geo.scale
        if outer > 2 * geo.extent or run.sweeping(frame):  # no threshold: Bellman-Ford's
            inner = outer = 0.0  # infinite Δ, the last phase, or the core's sweep
        src = run.result.source
        ring = dict(x=[geo.x[src]], y=[geo.y[src]], inner=[min(inner, outer)], outer=[outer])
        if ring != self._ring.data:  # it changes at phase ends; a new one costs every frame
            self._ring.data = ring

    def _draw_raster(self, run, frame: int) -> None:
        if self._raster.viewport is None:
            self._on_view()  # the first frame: rasterise the roads of the whole graph
            return
        v = self._raster.viewport
        drawn, before = (frame, self.session.layer, v), self._drawn
        if before is not None and before[0] is run and before[1:] == drawn:
            return  # on show already (sent with its figure)
        rec = run.result.recording
        if self.session.layer != "states":
            image = self._raster.image(run.work(frame))
        elif rec is None:  # Dijkstra: its final states
            image = self._raster.image(raster.STATE_RANK[run.states(frame)])
        else:
            image = self._raster.states_image(rec, run.clamp(frame))
        url = raster.png(image, self._raster_colors())
        if before is not None and before[3] == v:
            self._image.data["url"] = [url]  # one column replaced per frame
        else:
            self._image.data = dict(url=[url], x=[v.x0], y=[v.y0], w=[v.x1 - v.x0], h=[v.y1 - v.y0])
        self._drawn = (run, *drawn)

    def _on_tap(self, event) -> None:
        shift = bool(event.modifiers and event.modifiers.get("shift"))
        role = "target" if shift else self.session.click_sets
        self.session.pick(event.x, event.y, role=role)
