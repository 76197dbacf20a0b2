"""The map: roads, node states per frame, source, target, route and the threshold band."""

from __future__ import annotations

import functools

import numpy as np
import panel as pn
from bokeh.events import Tap
from bokeh.models import ColumnDataSource, LinearColorMapper
from bokeh.plotting import figure

from engine import osm

from . import style
from .runview import RunView
from .state import Session


@functools.cache
def tiles_available() -> bool:
    """Whether to draw a basemap: the server is online (``FRONTIER_OFFLINE=1`` says no)."""
    return osm.online(timeout=2.0)


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
        session.param.watch(self._on_layer, "layer")
        self._follow()

    def _build(self) -> None:
        loaded = self.session.loaded
        geo = loaded.geometry
        self._graph = loaded.graph
        if geo is None:
            self._layout[0] = self._empty
            return
        fig = figure(
            x_axis_type="mercator",
            y_axis_type="mercator",
            match_aspect=True,
            tools="pan,wheel_zoom,reset,save",
            active_scroll="wheel_zoom",
            output_backend="canvas",  # faster than WebGL where the browser has no GPU
            sizing_mode="scale_width",  # the graph's shape, so the map fills its panel
            aspect_ratio=geo.aspect,
        )
        fig.axis.visible = False
        fig.grid.visible = False
        fig.toolbar.logo = None
        if tiles_available():
            import xyzservices.providers as xyz

            fig.add_tile(xyz.CartoDB.Positron, retina=True)
        image, (x, y, dw, dh) = geo.roads_image(style.ROAD)
        roads = fig.image_rgba(image=[image], x=x, y=y, dw=dw, dh=dh)
        fig.x_range.renderers = fig.y_range.renderers = [roads]  # the ring never zooms out
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
        zeros = np.zeros(len(geo.x), dtype=np.uint8)
        self._nodes = ColumnDataSource(dict(x=geo.x, y=geo.y, state=zeros, work=zeros))
        self._dots = fig.scatter(
            "x",
            "y",
            source=self._nodes,
            size=4,
            line_color=None,
            marker="square",
            fill_color=self._fill(),
        )
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
        fig.on_event(Tap, self._on_tap)
        self._pane.object = fig
        self._layout[0] = self._pane

    def _on_runs(self, *_events) -> None:
        run = self._run
        if run is None:
            return
        if self.session.loaded.graph is not self._graph:
            self._build()
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

    def _fill(self) -> dict:
        field = "state" if self.session.layer == "states" else "work"
        return {"field": field, "transform": self._mappers[self.session.layer]}

    def _on_layer(self, *_events) -> None:
        if self._graph is not None and self.session.loaded.geometry is not None:
            self._dots.glyph.fill_color = self._fill()
            self._on_frame()

    def _on_frame(self, *_events) -> None:
        run = self._run
        geo = self.session.loaded.geometry
        if run is None or geo is None or self.session.loaded.graph is not self._graph:
            return
        frame = self.session.frame
        if self.session.layer == "states":  # one column replaced per frame
            self._nodes.data["state"] = run.states(frame)
        else:
            self._nodes.data["work"] = run.work(frame)
        visible = run.route_visible(frame)
        if self._route_line.visible != visible:  # a property set costs even when unchanged
            self._route_line.visible = visible
        counts = run.readout(frame)
        inner, outer = counts["lo"] * geo.scale, counts["hi"] * geo.scale
        if outer > 2 * geo.extent:  # Bellman-Ford's infinite Δ, or the last phase
            inner = outer = 0.0
        src = run.result.source
        self._ring.data = dict(
            x=[geo.x[src]], y=[geo.y[src]], inner=[min(inner, outer)], outer=[outer]
        )

    def _on_tap(self, event) -> None:
        shift = bool(event.modifiers and event.modifiers.get("shift"))
        role = "target" if shift else self.session.click_sets
        self.session.pick(event.x, event.y, role=role)
