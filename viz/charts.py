"""Charts and readouts linked to the player: near/far/settled sizes, arcs relaxed, an
adaptive Δ, buckets."""

from __future__ import annotations

import numpy as np
import panel as pn
from bokeh.models import (
    BasicTicker,
    ColorBar,
    ColumnDataSource,
    DataRange1d,
    Label,
    LogColorMapper,
    NumeralTickFormatter,
    Range1d,
    Span,
)
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from engine.recording import BUCKET_BINS

from . import style
from .runview import RunView
from .state import Session

_READOUTS = (
    ("iteration", "Iteration", "frontier-iteration"),
    ("phase", "Phase", "frontier-phase"),
    ("near", "Near", "frontier-near-count"),
    ("far", "Far", "frontier-far-count"),
    ("settled", "Settled", "frontier-settled-count"),
)


def _chart(title: str, x_range, height: int, y_range=None) -> figure:
    fig = figure(
        title=title,
        x_range=x_range,
        y_range=y_range or DataRange1d(),
        height=height,
        sizing_mode="stretch_width",
        tools="xpan,xwheel_zoom,reset,save",
        toolbar_location="right",
    )
    fig.toolbar.autohide = True  # the save button (a PNG of the chart) shows on hover
    fig.toolbar.logo = None
    fig.title.text_font_size = "12px"
    fig.yaxis.formatter.use_scientific = False
    return fig


def _cursor(color: str) -> Span:
    """A chart's frame cursor, on Bokeh's overlay level: moving it repaints that level alone,
    not the chart's lines, axes and labels (decisions/0037, issue 19)."""
    return Span(location=0, dimension="height", line_color=color, line_width=1, level="overlay")


class TextPane(pn.pane.HTML):
    """An HTML pane whose updates send the new text alone.

    Panel's pane re-sends all fourteen of its model's properties and six new style sheets
    with every change of its text: per frame, that was more server time than the rest of the
    frame (decisions/0013, load). A Bokeh ``Div`` sends only its text but makes the browser
    lay the whole page out again, which slowed playback in the browser twofold."""

    def _update(self, ref: str, model) -> None:
        model.text = self._transform_object(self.object)["object"]


class Readouts(RunView):
    """The current frame's numbers, each in an element with a stable CSS class."""

    def __init__(self, session: Session, slot: int = 0, **params):
        super().__init__(session, slot, **params)
        self._layout = TextPane("", margin=(0, 10), sizing_mode="stretch_width")
        self._follow()

    def _on_frame(self, *_events) -> None:
        run = self._run
        if run is None:
            return
        values = run.readout(self.session.frame)
        labels = {"iteration": "Phases ended"} if run.by_phase else {}
        items = [
            f'{labels.get(key, label)} <b class="{css}">{values[key]}</b>'
            for key, label, css in _READOUTS
        ]
        kind = run.result.graph.weight_kind
        shown = "∞" if run.result.delta is None else style.weight_text(values["hi"], kind)
        items.append(f"Threshold phase·Δ <b>{shown}</b>")
        if run.result.adaptive is not None:
            now = style.weight_text(values["delta"], kind)
            items.append(f'Δ now <b class="frontier-delta-now">{now}</b>')
        self._layout.object = (
            '<div style="display:flex;gap:28px">'
            + "".join(f"<span>{item}</span>" for item in items)
            + "</div>"
        )


class ChartsView(RunView):
    """Near/far/settled per iteration with phase marks, arcs relaxed, an adaptive Δ, and
    the buckets of Δ-stepping and bucketing; a cursor follows the player."""

    def __init__(self, session: Session, slot: int = 0, x_range=None, y_ranges=None, **params):
        """``x_range`` (iterations) and ``y_ranges`` (``{"sets": ..., "edges": ...}``) may
        be shared with the other run's charts, so that A and B are read on one scale."""
        super().__init__(session, slot, **params)
        x_range = x_range or DataRange1d()
        y_ranges = y_ranges or {}
        self._series = ColumnDataSource(
            dict(frame=[], near=[], far=[], settled=[], edges=[], delta=[])
        )
        self._phases = ColumnDataSource(dict(x=[]))
        self._sets = _chart(
            "Nodes near, far and settled per iteration", x_range, 210, y_ranges.get("sets")
        )
        for name, color in (("settled", style.SETTLED), ("far", style.FAR), ("near", style.NEAR)):
            self._sets.line(
                "frame", name, source=self._series, color=color, line_width=2, legend_label=name
            )
        self._sets.vspan(
            x="x", source=self._phases, line_color="#999999", line_alpha=0.35, line_dash="dotted"
        )
        self._sets.legend.location = "top_left"
        self._sets.legend.label_text_font_size = "11px"
        self._edges = _chart("Arcs relaxed, cumulative (dashed: Dijkstra's total)", x_range, 160,
                             y_ranges.get("edges"))  # fmt: skip
        self._edges.line("frame", "edges", source=self._series, color="#555555", line_width=2)
        self._dijkstra = Span(dimension="width", line_dash="dashed", line_color="#888888")
        self._edges.add_layout(self._dijkstra)
        self._delta = _chart("Adaptive Δ per iteration (chosen at each phase end)", x_range, 140)
        self._delta.step("frame", "delta", source=self._series, color="#555555", line_width=2,
                         mode="after")  # fmt: skip
        self._delta.yaxis.ticker = BasicTicker(min_interval=1)  # Δ is whole: no 107,647.5
        self._delta.yaxis.formatter = NumeralTickFormatter(format="0,0")
        self._cursors = []  # (figure, its cursor): a hidden figure's cursor waits
        for fig in (self._sets, self._edges, self._delta):
            cursor = _cursor("#222222")
            fig.add_layout(cursor)
            self._cursors.append((fig, cursor))
        self._bins = ColumnDataSource(
            dict(k=np.arange(BUCKET_BINS), size=np.zeros(BUCKET_BINS, dtype=np.int64))
        )
        self._buckets = figure(
            title="Buckets now: nodes per bucket, current first (last bar: the rest)",
            x_range=Range1d(-0.5, BUCKET_BINS - 0.5),
            height=160,
            sizing_mode="stretch_width",
            toolbar_location=None,
            tools="save",
        )
        self._buckets.title.text_font_size = "12px"
        self._buckets.y_range = Range1d(0, 1)  # the run's largest bucket, set with the run
        self._buckets.vbar(x="k", top="size", source=self._bins, width=0.9, color=style.FAR)
        self._no_bucket = Label(
            x=0, y=0.5, text="No node waits in a bucket at this iteration", text_color="#555555",
            text_font_size="12px", visible=False,
        )  # fmt: skip
        self._buckets.add_layout(self._no_bucket)
        self._life = _chart(
            "Buckets over the search: nodes in each bucket (distance ÷ Δ) per iteration",
            x_range,
            180,
        )
        self._life.yaxis.axis_label = "bucket"
        self._grid = ColumnDataSource(dict(image=[], dw=[], dh=[]))
        self._colours = LogColorMapper(palette=Viridis256, low=1, high=2, low_color="#00000000")
        self._life.image(
            image="image", x=-0.5, y=-0.5, dw="dw", dh="dh", source=self._grid,
            color_mapper=self._colours,
        )  # fmt: skip
        self._life.add_layout(ColorBar(color_mapper=self._colours, width=8), "right")
        cursor = _cursor("#d62728")
        self._life.add_layout(cursor)
        self._cursors.append((self._life, cursor))
        self._layout = pn.Column(
            pn.pane.Bokeh(self._sets, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._edges, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._delta, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._buckets, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._life, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        self._follow()

    def _on_runs(self, *_events) -> None:
        run = self._run
        if run is None:
            return
        self._series.data = run.chart_columns()
        self._sets.title.text = f"Nodes near, far and settled per {run.step_noun}"
        self._phases.data = dict(x=run.phase_starts())
        dijkstra = run.reference.edges_relaxed  # None: not known (`viz.runs.Reference`)
        self._dijkstra.visible = dijkstra is not None
        if dijkstra is not None:
            self._dijkstra.location = dijkstra
        self._delta.visible = run.result.adaptive is not None
        rec = run.result.recording
        has_buckets = rec is not None and rec.buckets is not None
        self._buckets.visible = self._life.visible = has_buckets
        if has_buckets:
            # zoom to the buckets ever in use; the rest bar comes right after them
            used = np.flatnonzero(rec.buckets[:, :-1].any(axis=0))
            last = int(used.max()) if used.size else 0
            k = np.arange(BUCKET_BINS)
            k[-1] = last + 1
            self._bins.data = dict(k=k, size=rec.buckets[min(self.session.frame, len(rec) - 1)])
            self._buckets.x_range.start, self._buckets.x_range.end = -0.5, last + 1.5
            self._buckets.y_range.end = max(int(rec.buckets.max(initial=0)), 1)
            self._no_bucket.y = self._buckets.y_range.end / 2
            grid = rec.bucket_matrix()
            self._grid.data = dict(image=[grid.T], dw=[grid.shape[0]], dh=[grid.shape[1]])
            self._colours.high = max(int(grid.max(initial=0)), 2)
        self._on_frame()

    def _on_frame(self, *_events) -> None:
        run = self._run
        if run is None:
            return
        frame = min(self.session.frame, run.n_frames - 1)
        for fig, cursor in self._cursors:
            if fig.visible:
                cursor.location = frame
        bins = run.buckets(frame)
        if bins is not None:
            self._bins.data["size"] = bins
            if self._no_bucket.visible != (empty := not bins.any()):
                self._no_bucket.visible = empty
